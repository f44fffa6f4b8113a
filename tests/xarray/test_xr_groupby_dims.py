"""xarray groupby spellings (issues 25 and 27): ``dim=`` / ``axis=``, ``groupby_bins``
(IntervalIndex, empty bins kept), several keys (one dim each, unstacked), Datasets
holding strings; compared with xarray (flox engine) on NaN-free data and with the
documented policy on NaN data."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from xr_helpers import assert_matches_xarray

import nanaccess.xarray  # noqa: F401
from nanaccess import NaNError

pytest.importorskip("flox")


@pytest.fixture(autouse=True)
def _flox_references():
    """xarray's default engine (flox) on its NumPy kernels (numbagg JIT-compiles)."""
    with xr.set_options(use_numbagg=False, use_bottleneck=False, use_flox=True):
        yield


def make(dtype=np.float64, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.integers(-50, 50, size=(40, 3, 4)).astype(dtype)
    t = pd.date_range("2024-01-20", periods=40, freq="D")  # tz-naive, two months
    return xr.DataArray(x, dims=("time", "lat", "lon"),
                        coords={"time": t, "lat": [10.0, 20.0, 30.0],
                                "lon": [1.0, 2.0, 3.0, 4.0], "tag": ("lon", list("abcd"))},
                        name="v", attrs={"units": "K"})


STATS = [("median", {}), ("max", {}), ("min", {}), ("mean", {}), ("sum", {}),
         ("count", {}), ("quantile", {"q": [0.25, 0.75]})]
DTYPES = [np.float64, np.float32, np.int64]


def _both(obj_call, stat, kw, **extra):
    got = getattr(obj_call(True), stat)(**kw, **extra)
    want = getattr(obj_call(False), stat)(**kw, **extra)
    return got, want


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("stat,kw", STATS, ids=lambda v: str(v))
def test_groupby_bins_keeps_interval_index_and_empty_bins(stat, kw, dtype):
    da = make(dtype)
    bins = [0, 15, 25, 100]  # (25, 100] holds 30.0; (0, 15] holds 10.0; add an empty one
    bins = [0, 15, 17, 25, 100]

    def call(ours):
        g = da.groupby_bins("lat", bins)
        return g.nanstats if ours else g

    got, want = _both(call, stat, kw)
    assert isinstance(got.indexes["lat_bins"], pd.IntervalIndex)
    assert got.sizes["lat_bins"] == 4  # the empty (15, 17] bin is kept
    empty = got.sel(lat_bins=pd.Interval(15, 17)).values
    if stat == "count":  # an exact 0 (int64, as pandas); xarray's flox fills NaN there
        assert got.dtype == np.int64 and (empty == 0).all()
        want = want.fillna(0).astype(np.int64)
    else:
        assert np.isnan(empty).all()
    assert_matches_xarray(got, want)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("stat,kw", STATS, ids=lambda v: str(v))
@pytest.mark.parametrize("kind", ["DataArray", "Dataset"])
def test_two_keys_unstack_as_xarray(kind, stat, kw, dtype):
    da = make(dtype)
    obj = da if kind == "DataArray" else da.to_dataset().assign(w=("lon", np.arange(4.0)))

    def call(ours):
        g = obj.groupby(["time.month", "lat"])
        return g.nanstats if ours else g

    got, want = _both(call, stat, kw)
    assert "month" in got.dims and "lat" in got.dims
    assert not any(str(d).startswith("stacked") for d in got.dims)
    assert_matches_xarray(got, want)


def test_two_keys_absent_combination_is_nan():
    da = xr.DataArray([1.0, 2.0, 3.0], dims="x",
                      coords={"a": ("x", [0, 0, 1]), "b": ("x", ["p", "q", "p"])})
    got = da.groupby(["a", "b"]).nanstats.median()
    want = da.groupby(["a", "b"]).median()
    assert_matches_xarray(got, want)
    assert np.isnan(got.sel(a=1, b="q").item())


@pytest.mark.parametrize("stat,kw", STATS, ids=lambda v: str(v))
@pytest.mark.parametrize("dim", ["time", ["time", "lon"], ..., ("lat", "time")])
@pytest.mark.parametrize("kind", ["DataArray", "Dataset"])
def test_dim_as_xarray(kind, dim, stat, kw):
    da = make()
    obj = da if kind == "DataArray" else da.to_dataset()

    def call(ours):
        g = obj.groupby("time.month")
        return g.nanstats if ours else g

    got, want = _both(call, stat, kw, dim=dim)
    assert_matches_xarray(got, want)


def test_dim_positional_and_resample_and_axis():
    da = make()
    ref = da.groupby("time.month").median(dim="time")
    assert_matches_xarray(da.groupby("time.month").nanstats.median("time"), ref)
    assert_matches_xarray(da.groupby("time.month").nanstats.median(axis=0), ref)
    assert_matches_xarray(da.groupby("time.month").nanstats.median(axis=(0, 2)),
                          da.groupby("time.month").median(dim=["time", "lon"]))
    assert_matches_xarray(da.nanstats.groupby("time.month").quantile(0.5, dim=...),
                          da.groupby("time.month").quantile(0.5, dim=...))
    assert_matches_xarray(da.resample(time="10D").nanstats.max(dim=["time", "lat"]),
                          da.resample(time="10D").max(dim=["time", "lat"]))
    with pytest.raises(ValueError, match="both"):
        da.groupby("time.month").nanstats.median(dim="time", axis=0)
    with pytest.raises(ValueError, match="cannot reduce over dimensions"):
        da.groupby("time.month").nanstats.median(dim="nope")
    with pytest.raises(TypeError, match="axis"):
        da.to_dataset().groupby("time.month").nanstats.median(axis=0)


def test_dim_missing_the_group_dims_is_the_plain_reduction():
    da = make()
    got = da.groupby("time.month").nanstats.max(dim="lon")
    assert_matches_xarray(got, da.groupby("time.month").max(dim="lon"))


@pytest.mark.parametrize("policy", ["omit", "propagate", "raise"])
def test_dim_on_nan_data_follows_the_policy(policy):
    da = make()
    vals = da.values.copy()
    vals[3, 1, 2] = np.inf - np.inf  # a NaN made by arithmetic (negative on x86)
    vals[35, 0, 0] = np.nan
    da = da.copy(data=vals)
    g = da.groupby("time.month").nanstats
    if policy == "raise":
        with pytest.raises(NaNError, match=r"group 1 .*lat=20.0, time='2024-01-23', lon=3.0"):
            g.median(dim=["time", "lon"], nan_policy=policy)
        return
    got = g.median(dim=["time", "lon"], nan_policy=policy)
    months = da.time.dt.month.values
    for m in (1, 2):
        block = np.moveaxis(vals[months == m], 1, 0).reshape(3, -1)
        ref = np.nanmedian(block, axis=1) if policy == "omit" else np.median(block, axis=1)
        np.testing.assert_array_equal(got.sel(month=m).values, ref)


def test_dask_groupby_dims_lazy_and_bit_equal():
    da = make()
    vals = da.values.copy()
    vals[5, 1, 1] = np.nan
    da = da.copy(data=vals)
    lazy = da.chunk({"time": 7, "lon": 2})
    for call in (lambda o: o.groupby("time.month").nanstats.median(dim=["time", "lon"],
                                                                     nan_policy="omit"),
                 lambda o: o.groupby_bins("lat", [0, 15, 17, 100]).nanstats.max(
                     nan_policy="omit"),
                 lambda o: o.groupby(["time.month", "lat"]).nanstats.quantile(
                     [0.1, 0.9], nan_policy="omit")):
        got = call(lazy)
        assert hasattr(got.data, "dask")
        xr.testing.assert_identical(got.compute(), call(da))


def test_dataset_with_strings_leaves_them_out_everywhere():
    t = pd.date_range("2024-01-01", periods=6, freq="D")
    ds = xr.Dataset({"a": ("time", [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]),
                     "i": ("time", np.arange(6)),
                     "s": ("time", list("abcdef"))}, coords={"time": t})
    num = ds.drop_vars("s")
    with xr.set_options(use_flox=False):
        for stat in ("min", "max", "median", "count", "sum"):
            got = getattr(ds.nanstats, stat)()
            assert "s" not in got.data_vars
            assert_matches_xarray(got, getattr(num, stat)())
            got = getattr(ds.groupby("time.day").nanstats, stat)()
            assert "s" not in got.data_vars
            got = getattr(ds.resample(time="2D").nanstats, stat)()
            assert_matches_xarray(got, getattr(num.resample(time="2D"), stat)())
            got = getattr(ds.rolling(time=2).nanstats, stat)()
            assert "s" not in got.data_vars
            assert_matches_xarray(got, getattr(num.rolling(time=2), stat)())
            got = getattr(ds.coarsen(time=2).nanstats, stat)()
            assert "s" not in got.data_vars
        got = ds.nanstats.quantile([0.5], nan_policy="omit")
        assert "s" not in got.data_vars
    # a DataArray of strings is refused: it is the data itself
    with pytest.raises(TypeError, match="variable 's'"):
        ds["s"].nanstats.min()


def test_grouped_describe_takes_dim_and_keeps_empty_bins():
    da = make()
    d = da.groupby_bins("lat", [0, 15, 17, 100]).nanstats.describe(dim=["lat", "time"])
    assert d.dims == ("statistic", "lat_bins", "lon")
    empty = d.sel(lat_bins=pd.Interval(15, 17))
    assert empty.sel(statistic=["count", "nan", "missing"]).values.tolist() == [[0.0] * 4] * 3
    assert np.isnan(empty.sel(statistic="50%").values).all()
    one = d.sel(lat_bins=pd.Interval(0, 15), statistic="50%")
    np.testing.assert_array_equal(one.values, da.sel(lat=10.0).median("time").values)


@pytest.mark.parametrize("case", ["unindexed dim", "nan keys", "duplicate dim labels",
                                  "UniqueGrouper", "BinGrouper", "two keys, two dims",
                                  "two keys, one dim", "2-D group"])
@pytest.mark.parametrize("kind", ["DataArray", "Dataset"])
def test_grouping_spellings_as_xarray(kind, case):
    from xarray.groupers import BinGrouper, UniqueGrouper

    da = xr.DataArray(np.arange(12.0).reshape(3, 4), dims=("x", "y"), name="v")
    obj = da if kind == "DataArray" else da.to_dataset().assign(w=("y", np.arange(4.0)))
    k = ("y", [3, 1, 3, 1])
    spell = {
        "unindexed dim": lambda o: o.groupby("x"),
        "nan keys": lambda o: o.assign_coords(k=("y", [1.0, np.nan, 1.0, 2.0])).groupby("k"),
        "duplicate dim labels": lambda o: o.assign_coords(y=[1, 1, 2, 2]).groupby("y"),
        "UniqueGrouper": lambda o: o.assign_coords(k=k).groupby(k=UniqueGrouper()),
        "BinGrouper": lambda o: o.assign_coords(k=k).groupby(k=BinGrouper(bins=[0, 2, 4, 6])),
        "two keys, two dims": lambda o: o.assign_coords(
            a=("x", [0, 0, 1]), b=("y", [5, 6, 5, 6])).groupby(["a", "b"]),
        "two keys, one dim": lambda o: o.assign_coords(
            a=("y", [0, 0, 1, 1]), b=("y", [5, 6, 5, 6])).groupby(["a", "b"]),
        "2-D group": lambda o: o.assign_coords(
            lab=(("x", "y"), np.arange(12).reshape(3, 4) % 3)).groupby("lab"),
    }[case]
    for stat, kw in (("median", {}), ("quantile", {"q": [0.5]}), ("max", {})):
        assert_matches_xarray(getattr(spell(obj).nanstats, stat)(**kw),
                              getattr(spell(obj), stat)(**kw))


def test_describe_leaves_strings_out():
    t = pd.date_range("2024-01-01", periods=6, freq="D")
    ds = xr.Dataset({"a": ("time", [1.0, 2.0, np.nan, 4.0, 5.0, 6.0]),
                     "s": ("time", list("abcdef"))}, coords={"time": t})
    assert list(ds.nanstats.describe().data_vars) == ["a"]
    assert list(ds.groupby("time.month").nanstats.describe().data_vars) == ["a"]
