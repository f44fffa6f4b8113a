"""xarray windows: ``da.rolling(time=7).nanstats`` and ``da.coarsen(time=7).nanstats``,
labelled as xarray's own window reductions (dims, coords, name, attrs)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import xarray as xr

import nanaccess  # noqa: F401  (registers the accessors)
from nanaccess import NaNError, make_nan
from nanaccess.core import _numba as NB
from nanaccess.xarray import NanXrWindow
from nanaccess.xarray.window import window_classes

ENGINES = ["numpy"] + (["numba"] if NB.AVAILABLE else [])
STATS = ["median", "max", "min", "sum", "count"]


def sample(seed=0):
    rng = np.random.default_rng(seed)
    x = rng.integers(-20, 20, (30, 3)) / 4.0
    x[rng.random((30, 3)) < 0.15] = np.nan
    return xr.DataArray(x, dims=("time", "lat"),
                        coords={"time": pd.date_range("2024", periods=30),
                                "lat": [1.0, 2.0, 3.0], "label": ("lat", list("abc"))},
                        attrs={"units": "K"}, name="t")


def kw(stat):
    return {} if stat == "count" else {"nan_policy": "omit"}


def test_registered_on_xarray_window_classes():
    da = sample()
    for obj in (da.rolling(time=2), da.to_dataset().rolling(time=2), da.coarsen(time=2,
                                                                                 boundary="trim")):
        assert isinstance(obj.nanstats, NanXrWindow)
    assert all(c.nanstats is NanXrWindow for c in window_classes())
    # the classes read by name are the ones xarray hands out (loud if xarray moves them)
    ds = da.to_dataset()
    assert window_classes() == (type(da.rolling(time=2)), type(ds.rolling(time=2)),
                                type(da.coarsen(time=2)), type(ds.coarsen(time=2)))


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("stat", STATS)
@pytest.mark.parametrize("center", [False, True])
@pytest.mark.parametrize("min_periods", [None, 1, 3])
def test_rolling_as_xarray(engine, stat, center, min_periods):
    da = sample()
    r = da.rolling(time=4, center=center, min_periods=min_periods)
    xr.testing.assert_identical(getattr(r.nanstats, stat)(engine=engine, **kw(stat)),
                                getattr(r, stat)())
    ds = da.to_dataset()
    if stat != "count":  # (xarray's rolling count turns a variable without the dim to NaN)
        ds = ds.assign(other=("lat", [1.0, 2.0, 3.0]))
    rd = ds.rolling(time=4, center=center, min_periods=min_periods)
    xr.testing.assert_identical(getattr(rd.nanstats, stat)(engine=engine, **kw(stat)),
                                getattr(rd, stat)())


def test_rolling_mean_std_close_to_xarray():
    r = sample().rolling(time=5, min_periods=2)
    xr.testing.assert_allclose(r.nanstats.mean(nan_policy="omit"), r.mean())
    xr.testing.assert_allclose(r.nanstats.std(nan_policy="omit"), r.std())


@pytest.mark.parametrize("stat", STATS)
@pytest.mark.parametrize("boundary", ["trim", "pad", "exact"])
@pytest.mark.parametrize("side", ["left", "right"])
def test_coarsen_as_xarray(stat, boundary, side):
    da = sample(1).isel(time=slice(0, 28 if boundary == "exact" else 30))
    r = da.coarsen(time=7, boundary=boundary, side=side)
    xr.testing.assert_identical(getattr(r.nanstats, stat)(**kw(stat)), getattr(r, stat)())


def test_coarsen_exact_refuses_partial_blocks():
    with pytest.raises(ValueError, match="Could not coarsen"):
        sample().coarsen(time=7).nanstats.max(nan_policy="omit")


def test_policies_inside_windows():
    p = make_nan(77)
    da = xr.DataArray([1.0, p, 3.0, 4.0], dims="t", attrs={"a": 1})
    out = da.rolling(t=2).nanstats.max(nan_policy="propagate")
    assert out.values.view(np.uint64)[1] == np.float64(p).view(np.uint64)
    assert out.values[3] == 4.0 and out.attrs == {"a": 1}
    assert da.rolling(t=2).nanstats.max(nan_policy="largest").values[2] == \
        out.values[2] or np.isnan(out.values[2])
    with pytest.raises(NaNError, match=r"window t=1 .*first at t=1"):
        da.rolling(t=2).nanstats.median()
    da = sample()
    with pytest.raises(NaNError, match="variable 't' in window time="):
        da.coarsen(time=6).nanstats.median(nan_policy="raise")
    q = da.rolling(time=3).nanstats.quantile([0.1, 0.9], nan_policy="omit")
    assert q.dims == ("quantile", "time", "lat") and q["quantile"].values.tolist() == [0.1, 0.9]
    assert np.array_equal(q.isel(quantile=1).values,
                          da.rolling(time=3).nanstats.quantile(0.9, nan_policy="omit").values,
                          equal_nan=True)


@pytest.mark.parametrize("stat", ["median", "max", "sum", "count", "quantile"])
def test_groupby_and_resample_spelled_as_pandas(stat):
    from nanaccess.xarray import NanGroupBy
    from nanaccess.xarray.window import groupby_classes

    assert all(c.nanstats is NanGroupBy for c in groupby_classes())
    da0 = sample()
    assert groupby_classes() == (type(da0.groupby("lat")), type(da0.to_dataset().groupby("lat")),
                                 type(da0.resample(time="1D")),
                                 type(da0.to_dataset().resample(time="1D")))
    da = sample(2)
    kw_ = dict(kw(stat), **({"q": 0.3} if stat == "quantile" else {}))
    for obj in (da, da.to_dataset()):
        xr.testing.assert_identical(
            getattr(obj.groupby("time.dayofweek").nanstats, stat)(**kw_),
            getattr(obj.nanstats.groupby("time.dayofweek"), stat)(**kw_))
        xr.testing.assert_identical(
            getattr(obj.resample(time="3D").nanstats, stat)(**kw_),
            getattr(obj.nanstats.resample(time="3D"), stat)(**kw_))
    if stat in ("median", "max", "sum"):
        xr.testing.assert_identical(getattr(da.resample(time="3D").nanstats, stat)(**kw_),
                                    getattr(da.resample(time="3D"), stat)())


@pytest.mark.parametrize("center", [False, True])
@pytest.mark.parametrize("window", [1, 4, 20])
def test_dask_rolling_stays_lazy_and_exact(center, window):
    pytest.importorskip("dask")
    import dask

    da = sample(3).isel(time=slice(0, 30))
    dk = da.chunk(time=7)
    for stat in ["median", "max", "mean", "count"]:
        with dask.config.set(scheduler="sync"):
            lazy = getattr(dk.rolling(time=window, center=center, min_periods=1).nanstats,
                           stat)(**kw(stat))
            assert lazy.chunks is not None  # still a dask array
            xr.testing.assert_identical(
                lazy.compute(),
                getattr(da.rolling(time=window, center=center, min_periods=1).nanstats,
                        stat)(**kw(stat)))
    with pytest.raises(NaNError, match="variable 't'"):
        dk.rolling(time=3).nanstats.median().compute()


def _refuse(*args, **kwargs):
    raise AssertionError("computed before .compute()")


@pytest.mark.parametrize("boundary, side", [("trim", "left"), ("pad", "left"),
                                            ("exact", "left"), ("trim", "right"),
                                            ("pad", "right")])
def test_dask_coarsen_and_quantile_lists_stay_lazy(boundary, side):
    # coarsen over dask data rechunks to whole blocks (lazy); a list of q is one lazy
    # pass per quantile; both equal the NumPy-backed results
    pytest.importorskip("dask")
    import dask

    da = sample(3).isel(time=slice(0, 30 if boundary == "exact" else 29))
    dk = da.chunk(time=7)
    cases = [("median", {}), ("quantile", {"q": [0.2, 0.9]}), ("max", {}), ("mean", {}),
             ("count", {})]
    for stat, params in cases:
        kw_ = {**kw(stat), **params}
        with dask.config.set(scheduler=_refuse):
            lazy = getattr(dk.coarsen(time=3, boundary=boundary, side=side).nanstats,
                           stat)(**kw_)
            roll = getattr(dk.rolling(time=4, min_periods=1).nanstats, stat)(**kw_)
        with dask.config.set(scheduler="sync"):
            xr.testing.assert_identical(
                lazy.compute(),
                getattr(da.coarsen(time=3, boundary=boundary, side=side).nanstats,
                        stat)(**kw_))
            xr.testing.assert_identical(
                roll.compute(),
                getattr(da.rolling(time=4, min_periods=1).nanstats, stat)(**kw_))
    with pytest.raises(ValueError, match="boundary='exact'"):
        dk.isel(time=slice(0, 29)).coarsen(time=3, boundary="exact").nanstats.median(
            nan_policy="omit")


@pytest.mark.parametrize("stat", ["median", "max", "mean", "count"])
@pytest.mark.parametrize("center", [False, True])
def test_long_rolling_as_xarray(stat, center):
    # a time axis long enough for the fixed windows to reach the kernels as numbers
    from nanaccess.core.window.reduce import FIXED_MIN_OUTPUTS

    n = FIXED_MIN_OUTPUTS + 100
    rng = np.random.default_rng(6)
    x = rng.integers(-20, 20, (n, 2)) / 4.0
    x[rng.random((n, 2)) < 0.1] = np.nan
    da = xr.DataArray(x, dims=("time", "lat"), coords={"time": np.arange(n)},
                      attrs={"units": "K"}, name="t")
    for window, mp in ((50, 5), (9, None)):
        r = da.rolling(time=window, center=center, min_periods=mp)
        xr.testing.assert_identical(getattr(r.nanstats, stat)(**kw(stat)),
                                    getattr(r, stat)())
