"""xarray accessors: labels as xarray's reductions, numbers as the core (bit for bit)."""

from __future__ import annotations

import dask
import dask.array as da
import numpy as np
import pandas as pd
import pytest
import xarray as xr
from xr_helpers import assert_matches_xarray

import nanaccess.xarray  # noqa: F401  (registers .nanstats)
from nanaccess.core.select import order_stat
from nanaccess.errors import NaNError
from nanaccess.xarray.accessor import DataArrayNanStats, DatasetNanStats


@pytest.fixture(autouse=True)
def _plain_xarray_references():
    """xarray's numbagg/flox engines JIT-compile for tens of seconds on first use; the
    references here use xarray's plain NumPy paths (same numbers, same labels)."""
    with xr.set_options(use_numbagg=False, use_bottleneck=False, use_flox=False):
        yield


def make_da(chunks=None, nan=True, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(24, 5, 3))
    if nan:
        x[rng.random(x.shape) < 0.2] = np.nan
    t = pd.date_range("2024-01-28", periods=24, freq="18h")
    arr = xr.DataArray(
        x, dims=("time", "lat", "lon"),
        coords={"time": t, "lat": np.linspace(-10, 10, 5), "lon": [10.0, 20.0, 30.0],
                "label": ("lat", list("abcde")), "tt": ("time", np.arange(24))},
        name="temp", attrs={"units": "K"},
    )
    return arr.chunk(chunks) if chunks else arr


DIMS = [None, "time", ["lat", "lon"], ("time", "lon")]


@pytest.mark.parametrize("dim", DIMS)
@pytest.mark.parametrize("chunks", [None, {"time": 7, "lat": 2}])
def test_median_omit_identical_to_xarray(dim, chunks):
    a = make_da(chunks)
    got = a.nanstats.median(dim, nan_policy="omit")
    want = make_da().median(dim, skipna=True)
    assert_matches_xarray(got, want)
    dims = (dim,) if isinstance(dim, str) else tuple(dim or ("time", "lat", "lon"))
    axis = tuple(("time", "lat", "lon").index(d) for d in dims)
    x = make_da().values
    moved = np.moveaxis(x, axis, tuple(range(-len(axis), 0)))
    exact = np.nanmedian(moved.reshape(moved.shape[: moved.ndim - len(axis)] + (-1,)), axis=-1)
    np.testing.assert_array_equal(got.values, exact)


@pytest.mark.parametrize("q", [0.3, [0.0, 0.25, 0.5, 1.0]])
@pytest.mark.parametrize("chunks", [None, {"time": 5}])
def test_quantile_identical_to_xarray(q, chunks):
    a = make_da(chunks)
    got = a.nanstats.quantile(q, dim="time", nan_policy="omit")
    want = make_da().quantile(q, dim="time", skipna=True)
    assert_matches_xarray(got, want)


def test_keep_attrs_and_min_max():
    a = make_da()
    xr.testing.assert_identical(a.nanstats.max("lat", nan_policy="omit"), a.max("lat"))
    xr.testing.assert_identical(a.nanstats.min("lat", nan_policy="omit", keep_attrs=False),
                                a.min("lat", keep_attrs=False))
    with xr.set_options(keep_attrs=False):
        assert a.nanstats.median("lat", nan_policy="omit").attrs == a.median("lat").attrs


def test_dataset_identical_to_xarray():
    a = make_da()
    ds = xr.Dataset({"temp": a, "other": a.isel(lat=0, drop=True) * 2,
                     "flag": ("lat", np.array(list("vwxyz")))}, attrs={"title": "t"})
    assert_matches_xarray(ds.nanstats.median("time", nan_policy="omit"), ds.median("time"))
    assert_matches_xarray(ds.nanstats.quantile([0.1, 0.9], "time", nan_policy="omit"),
                          ds.quantile([0.1, 0.9], "time"))


@pytest.mark.parametrize("policy", ["propagate", "omit", "smallest", "largest",
                                    "totalorder"])
def test_policies_equal_core_on_dask(policy):
    a = make_da({"time": 7, "lat": 3})
    x = make_da().values
    for stat in ["median", "median_low", "max"]:
        got = getattr(a.nanstats, stat)("time", nan_policy=policy).values
        want, _ = order_stat(x, stat, axis=0, policy=policy)
        assert np.array_equal(got.view("u8"), want.view("u8"))


def test_lazy_then_raise_names_variable_and_coords():
    a = make_da({"time": 7})
    with dask.config.set(scheduler="sync"):
        r = a.nanstats.median("time", nan_policy="raise")
        assert isinstance(r.data, da.Array)
        with pytest.raises(NaNError) as got:
            r.compute()
    msg = str(got.value)
    assert "variable 'temp'" in msg and "time=" in msg and "lat=" in msg
    with pytest.raises(NaNError) as eager:
        make_da().nanstats.median("time", nan_policy="raise")
    assert str(eager.value) == msg


def test_error_location_is_first_nan():
    a = make_da(nan=False)
    a[3, 2, 1] = np.nan
    with pytest.raises(NaNError, match=r"time='2024-01-30T06:00:00', lat=0.0, lon=20.0"):
        a.nanstats.median(nan_policy="raise")


def test_every_accessor_method_documented_and_runs():
    a = make_da(nan=False)
    for cls in (DataArrayNanStats, DatasetNanStats):
        for name in dir(cls):
            if name.startswith("_"):
                continue
            assert getattr(cls, name).__doc__, f"{cls.__name__}.{name} has no docstring"
    for stat in ["median", "median_low", "median_high", "min", "max", "mean", "sum",
                 "var", "std"]:
        assert getattr(a.nanstats, stat)("time").dims == ("lat", "lon")
    assert a.nanstats.nan_report()["nan"] == 0
