"""Rolling windows of dask-backed xarray data (issue 12, item 5): lazy, computed with
the chunk overlap its windows need (``map_overlap``: the time chunks stay as they
are, never one chunk), and the bits of the NumPy-backed result for every statistic,
``center``, ``min_periods`` and policy, on DataArrays and Datasets."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import xarray as xr

import nanaccess  # noqa: F401  (registers the accessors)
from nanaccess import NaNError, make_nan

dask = pytest.importorskip("dask")

#: every statistic of the window accessor, with parameters
CASES = [("median", {}), ("median_low", {}), ("median_high", {}),
         ("quantile", {"q": 0.3, "method": "hazen"}), ("quantile", {"q": [0.1, 0.9]}),
         ("min", {}), ("max", {}), ("mean", {}), ("sum", {}), ("var", {"ddof": 1}),
         ("std", {}), ("count", {}), ("iqr", {}), ("mad", {})]


def _refuse(*args, **kwargs):
    raise AssertionError("computed before .compute()")


def sample(seed: int = 0) -> xr.Dataset:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(40, 4)).round(2)
    x[rng.random((40, 4)) < 0.15] = np.nan
    x[10:16, 1] = make_nan(7)  # a gap longer than some windows, with a payload
    x[22, 2] = -0.0
    t = xr.DataArray(x, dims=("time", "lat"),
                     coords={"time": pd.date_range("2024", periods=40),
                             "lat": [1.0, 2.0, 3.0, 4.0]}, attrs={"units": "K"}, name="t")
    return xr.Dataset({"t": t, "u": t * 2 + 1, "elev": ("lat", [5.0, 6.0, 7.0, 8.0])},
                      attrs={"title": "s"})


def bits(obj: xr.Dataset) -> dict:
    return {k: np.asarray(v.values).view(f"u{v.dtype.itemsize}").tolist()
            if v.dtype.kind == "f" else np.asarray(v.values).tolist()
            for k, v in obj.data_vars.items()}


def _kw(stat, params, policy):
    return dict(params) if stat == "count" else {**params, "nan_policy": policy}


@pytest.mark.parametrize("stat,params", CASES)
@pytest.mark.parametrize("center", [False, True])
@pytest.mark.parametrize("min_periods", [None, 2])
def test_dask_rolling_every_statistic_lazy_overlapped_exact(stat, params, center,
                                                            min_periods):
    ds = sample()
    dk = ds.chunk(time=6, lat=2)  # chunks on both dims, the last time chunk short
    for window in (5, 9):  # 9 > a chunk: the overlap reaches past the neighbour
        kw = _kw(stat, params, "omit")
        with dask.config.set(scheduler=_refuse):
            lazy = getattr(dk.rolling(time=window, center=center,
                                      min_periods=min_periods).nanstats, stat)(**kw)
            arr = getattr(dk.t.rolling(time=window, center=center,
                                       min_periods=min_periods).nanstats, stat)(**kw)
        for name in ("t", "u"):  # overlapped blocks, never one chunk along time
            got_chunks = lazy[name].chunks[lazy[name].dims.index("time")]
            if window <= 6:  # the input's chunks (wider windows: dask merges neighbours
                # until each block holds the overlap, ensure_minimum_chunksize)
                assert got_chunks == dk[name].chunks[dk[name].dims.index("time")]
            assert len(got_chunks) > 1
        assert arr.chunks is not None
        eager = getattr(ds.rolling(time=window, center=center,
                                   min_periods=min_periods).nanstats, stat)(**kw)
        with dask.config.set(scheduler="sync"):
            got = lazy.compute()
            xr.testing.assert_identical(arr.compute(), eager.t)
        xr.testing.assert_identical(got, eager)
        assert bits(got) == bits(eager)


@pytest.mark.parametrize("policy", ["propagate", "smallest", "largest", "totalorder"])
@pytest.mark.parametrize("stat,params", [("median", {}), ("max", {}), ("sum", {}),
                                         ("quantile", {"q": 0.75})])
def test_dask_rolling_every_policy_bits(policy, stat, params):
    # the NaN's own bits (propagate picks the window's totalOrder-greatest NaN) and the
    # ranked NaNs come through the overlap unchanged
    ds = sample(1)
    dk = ds.chunk(time=7)
    kw = _kw(stat, params, policy)
    for center in (False, True):
        with dask.config.set(scheduler=_refuse):
            lazy = getattr(dk.rolling(time=6, center=center, min_periods=2).nanstats,
                           stat)(**kw)
        eager = getattr(ds.rolling(time=6, center=center, min_periods=2).nanstats,
                        stat)(**kw)
        with dask.config.set(scheduler="sync"):
            assert bits(lazy.compute()) == bits(eager)


def test_dask_rolling_raise_names_the_variable():
    ds = sample(2)
    with dask.config.set(scheduler="sync"), pytest.raises(NaNError, match="variable 'u'"):
        ds[["u"]].chunk(time=7).rolling(time=3).nanstats.median().compute()
