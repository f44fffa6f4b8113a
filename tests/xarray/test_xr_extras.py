"""describe / sortby / argmin / argmax on the xarray accessor, against xarray and pandas."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import xarray as xr

import nanaccess as na


@pytest.fixture
def da() -> xr.DataArray:
    rng = np.random.default_rng(3)
    x = rng.normal(size=(7, 5))
    x[rng.random(x.shape) < 0.2] = np.nan
    x[:, 0] = rng.normal(size=7)  # one column without NaN
    return xr.DataArray(x, dims=("time", "site"),
                        coords={"time": pd.date_range("2024-01-01", periods=7),
                                "site": list("abcde")}, name="temp")


def test_sortby_equals_xarray_with_nans_last(da):
    key = da.isel(site=1)
    got = da.nanstats.sortby(key, nan_policy="largest")
    want = da.sortby(key)
    xr.testing.assert_identical(got, want)


def test_sortby_several_keys_first_is_primary():
    d = xr.DataArray(np.arange(6.0), dims="t",
                     coords={"a": ("t", [2, 1, 2, 1, np.nan, 1.0]), "b": ("t", [5, 6, 4, 3, 2, 1])})
    xr.testing.assert_identical(d.nanstats.sortby(["a", "b"], nan_policy="largest"),
                                d.sortby(["a", "b"]))


def test_sortby_keeps_signed_zero_order_and_payloads():
    nan = na.make_nan(9, negative=True)
    d = xr.DataArray(np.array([0.0, nan, -0.0, 1.0]), dims="t", coords={"t": [0, 1, 2, 3]})
    got = d.nanstats.sortby(d, nan_policy="totalorder")  # -NaN, -0.0, +0.0, 1
    assert got.t.values.tolist() == [1, 2, 0, 3]
    assert na.nan_payload(got.values[0]) == 9
    got = d.nanstats.sortby(d)  # default "largest": every NaN last (issue 25)
    assert got.t.values.tolist() == [2, 0, 3, 1]
    assert na.nan_payload(got.values[-1]) == 9


def test_describe_matches_pandas_under_omit(da):
    got = da.nanstats.describe("time", nan_policy="omit")
    for site in da.site.values:
        s = da.sel(site=site).to_series()
        want = s.describe()
        g = got.sel(site=site)
        assert g.sel(statistic="count").item() == want["count"]
        assert g.sel(statistic="nan").item() == s.isna().sum()
        for stat in ("mean", "std", "min", "25%", "50%", "75%", "max"):
            np.testing.assert_allclose(g.sel(statistic=stat).item(), want[stat], rtol=1e-12)


def test_describe_raise_names_variable(da):
    with pytest.raises(na.NaNError, match="variable 'temp'"):
        da.nanstats.describe("time", nan_policy="raise")  # the default is "omit" (issue 15)


@pytest.mark.parametrize("stat", ["argmin", "argmax"])
def test_arg_equals_xarray_on_nan_free_data(da, stat):
    d = da.fillna(0.25)
    got = getattr(d.nanstats, stat)("time")
    want = getattr(d, stat)("time")
    xr.testing.assert_equal(got, want)


def test_argmin_raise_names_coordinates(da):
    with pytest.raises(na.NaNError, match=r"variable 'temp' holds .* \(first at time="):
        da.nanstats.argmin("time")


@pytest.mark.parametrize("group", ["k"])
def test_factorized_groupby_identical_to_xarray(group):
    """The pd.factorize fast path (no xarray GroupBy construction) gives xarray's result:
    NaN keys dropped, sorted labels, attrs and coords kept."""
    d = xr.DataArray([1.0, 2, 3, np.nan, 5], dims="t", name="v", attrs={"units": "m"},
                     coords={"t": [0, 1, 2, 3, 4], "k": ("t", [2.0, np.nan, 1, 2, 1])})
    from nanaccess.xarray.groupby import factorized_groupby

    assert factorized_groupby(d, group) is not None
    assert factorized_groupby(d, "t") is None  # a dimension coordinate: xarray's path
    xr.testing.assert_identical(d.nanstats.groupby(group).median(nan_policy="omit"),
                                d.groupby(group).median())
    ds = d.to_dataset()
    xr.testing.assert_identical(ds.nanstats.groupby(group).max(nan_policy="omit"),
                                ds.groupby(group).max())
