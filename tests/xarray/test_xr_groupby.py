"""xarray groupby / resample through the grouped kernel, shaped as xarray gives them."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from xr_helpers import assert_matches_xarray

import nanaccess.xarray  # noqa: F401


@pytest.fixture(autouse=True)
def _plain_xarray_references():
    """xarray's numbagg/flox engines JIT-compile for tens of seconds on first use; the
    references here use xarray's plain NumPy paths (same numbers, same labels)."""
    with xr.set_options(use_numbagg=False, use_bottleneck=False, use_flox=False):
        yield


def make_da(seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(60, 4))
    x[rng.random(x.shape) < 0.2] = np.nan
    t = pd.date_range("2024-01-20", periods=60, freq="13h")
    return xr.DataArray(x, dims=("time", "x"),
                        coords={"time": t, "x": [1, 2, 3, 4], "lab": ("x", list("abcd"))},
                        name="v", attrs={"units": "m"})


@pytest.mark.parametrize("stat", ["median", "min", "max", "mean"])
def test_groupby_identical_to_xarray(stat):
    a = make_da()
    got = getattr(a.nanstats.groupby("time.day"), stat)(nan_policy="omit")
    want = getattr(a.groupby("time.day"), stat)()
    assert_matches_xarray(got, want)
    got_t = getattr(a.T.nanstats.groupby("time.month"), stat)(nan_policy="omit")
    assert_matches_xarray(got_t, getattr(a.T.groupby("time.month"), stat)())


def test_groupby_quantile_identical_to_xarray():
    a = make_da()
    got = a.nanstats.groupby("time.month").quantile([0.25, 0.75], nan_policy="omit")
    want = a.groupby("time.month").quantile([0.25, 0.75])
    assert_matches_xarray(got, want.transpose(*got.dims))


@pytest.mark.parametrize("chunks", [None, {"time": 17}])
def test_resample_identical_to_xarray(chunks):
    a = make_da()
    src = a.chunk(chunks) if chunks else a
    got = src.nanstats.resample(time="2D").median(nan_policy="omit")
    assert_matches_xarray(got.compute(), a.resample(time="2D").median())


def test_groupby_dataset():
    a = make_da()
    ds = a.to_dataset()
    assert_matches_xarray(ds.nanstats.groupby("time.month").max(nan_policy="omit"),
                                ds.groupby("time.month").max())
