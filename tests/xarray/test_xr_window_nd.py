"""Windows over several dims at once (issue 27): ``rolling(lat=3, lon=3)`` and
``coarsen(lat=4, lon=4)``: labels and values as xarray's own on NaN-free data, each box
exactly the plain statistic of its values under every policy, lazy on dask and
bit-equal to the in-memory path."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
import xarray as xr

import nanaccess as na
import nanaccess.xarray  # noqa: F401
from nanaccess import NaNError


@pytest.fixture(autouse=True)
def _plain_xarray_references():
    with xr.set_options(use_numbagg=False, use_bottleneck=False):
        yield


def make(dtype=np.float64, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.integers(-9, 9, (3, 7, 8)).astype(dtype)
    return xr.DataArray(
        x, dims=("time", "lat", "lon"),
        coords={"time": pd.date_range("2024-01-01", periods=3),  # tz-naive
                "lat": np.arange(7.0) * 2, "lon": np.arange(8.0) + 100,
                "cell": (("lat", "lon"), rng.random((7, 8)))},
        name="v", attrs={"units": "K"})


STATS = ["median", "max", "min", "mean", "sum", "count", "std", "var"]
ROLLING = [dict(lat=3, lon=3), dict(lat=3, lon=2, center=True),
           dict(lat=4, lon=3, min_periods=1), dict(lat=2, lon=2, center={"lat": True}),
           dict(time=2, lon=3, min_periods=2)]
COARSEN = [dict(lat=3, lon=4, boundary="trim"), dict(lat=2, lon=3, boundary="pad"),
           dict(lat=2, lon=3, boundary="pad", side="right"),
           dict(lat=7, lon=4, boundary="exact"),
           dict(lat=2, lon=3, boundary="trim", side={"lat": "right", "lon": "left"})]


def _same(got, want):
    if isinstance(want, xr.Dataset):
        assert set(got.data_vars) == set(want.data_vars)
        for k in want.data_vars:
            _same(got[k], want[k])
        return
    assert got.dims == want.dims
    xr.testing.assert_allclose(got, want, rtol=1e-6 if got.dtype == np.float32 else 1e-13)
    xr.testing.assert_identical(got.copy(data=want.values), want)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64])
@pytest.mark.parametrize("kw", ROLLING, ids=str)
def test_rolling_several_dims_as_xarray(kw, dtype):
    da = make(dtype)
    lazy = da.chunk({"lat": 3, "lon": 5})
    for stat in STATS:
        got = getattr(da.rolling(**kw).nanstats, stat)()
        _same(got, getattr(da.rolling(**kw), stat)())
        lz = getattr(lazy.rolling(**kw).nanstats, stat)()
        assert hasattr(lz.data, "dask")
        np.testing.assert_array_equal(lz.values, got.values)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64])
@pytest.mark.parametrize("kw", COARSEN, ids=str)
def test_coarsen_several_dims_as_xarray(kw, dtype):
    da = make(dtype)
    lazy = da.chunk({"lat": 3, "lon": 5})
    for stat in STATS:
        got = getattr(da.coarsen(**kw).nanstats, stat)()
        _same(got, getattr(da.coarsen(**kw), stat)())
        lz = getattr(lazy.coarsen(**kw).nanstats, stat)()
        assert hasattr(lz.data, "dask")
        np.testing.assert_array_equal(lz.values, got.values)


def _boxes_reference(x, sizes, fn, min_periods):
    """Brute force: each point's box (no centering) over the last two axes."""
    out = np.full(x.shape, np.nan)
    for t, i, j in itertools.product(*(range(n) for n in x.shape)):
        box = x[t, max(i - sizes[0] + 1, 0):i + 1, max(j - sizes[1] + 1, 0):j + 1].ravel()
        if box.size >= min_periods:
            out[t, i, j] = fn(box)
    return out


@pytest.mark.parametrize("policy", ["omit", "propagate", "smallest", "largest", "totalorder"])
def test_rolling_boxes_follow_the_policy_on_nan_data(policy):
    da = make()
    x = da.values.copy()
    x[0, 2, 3] = np.inf - np.inf  # a NaN made by arithmetic (negative on x86)
    x[1, 5, 6] = np.nan
    da = da.copy(data=x)
    got = da.rolling(lat=2, lon=3, min_periods=1).nanstats.median(nan_policy=policy)
    ref = _boxes_reference(x, (2, 3), lambda b: na.median(b, nan_policy=policy), 1)
    np.testing.assert_array_equal(got.values, ref)
    cg = da.coarsen(lat=2, lon=4, boundary="trim").nanstats.max(nan_policy=policy)
    blocks = x[:, :6, :].reshape(3, 3, 2, 2, 4).transpose(0, 1, 3, 2, 4).reshape(3, 3, 2, 8)
    np.testing.assert_array_equal(cg.values, na.max(blocks, axis=-1, nan_policy=policy))


def test_rolling_several_dims_raise_names_window_and_coordinates():
    da = make()
    x = da.values.copy()
    x[1, 4, 5] = np.nan
    da = da.copy(data=x)
    with pytest.raises(NaNError, match=r"variable 'v' in window lat=8.0, lon=105.0.*"
                                       r"time='2024-01-02', lat=8.0, lon=105.0"):
        da.rolling(lat=2, lon=2).nanstats.median(nan_policy="raise")
    with pytest.raises(NaNError, match=r"in window lat=9.0, lon=104.5"):
        da.coarsen(lat=2, lon=2, boundary="trim").nanstats.max(nan_policy="raise")


def test_several_dims_quantile_list_and_dataset():
    da = make()
    got = da.rolling(lat=3, lon=3, min_periods=1).nanstats.quantile([0.25, 0.75])
    assert got.dims == ("quantile", "time", "lat", "lon")
    for k, qk in enumerate([0.25, 0.75]):
        one = da.rolling(lat=3, lon=3, min_periods=1).nanstats.quantile(qk)
        np.testing.assert_array_equal(got.values[k], one.values)
    ds = da.to_dataset().assign(s=("lat", list("abcdefg")), w=("lon", np.arange(8.0)),
                                z=("time", [1.0, 2.0, 3.0]))
    ref = ds.drop_vars("s")
    got = ds.rolling(lat=3, lon=2).nanstats.max()
    assert "s" not in got.data_vars  # strings left out (decision 16)
    _same(got, ref.rolling(lat=3, lon=2).max())
    got = ds.coarsen(lat=7, lon=2, boundary="trim").nanstats.median()
    _same(got, ref.coarsen(lat=7, lon=2, boundary="trim").median())
