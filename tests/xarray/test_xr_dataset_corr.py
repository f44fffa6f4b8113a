"""``ds.nanstats.corr / cov(other, dim)`` per data variable (xarray#6507)."""

from __future__ import annotations

import numpy as np
import pytest
import xarray as xr

import nanaccess  # noqa: F401 - the accessors
from nanaccess.errors import NaNError


def _ds():
    rng = np.random.default_rng(5)
    a = rng.normal(size=(3, 20))
    b = rng.normal(size=(3, 20)) + 1e7
    a[1, 4] = np.nan
    coords = {"x": [10, 20, 30], "t": np.arange(20)}
    return xr.Dataset({"a": (("x", "t"), a), "b": (("x", "t"), b),
                       "c": ("t", rng.normal(size=20))}, coords=coords, attrs={"src": "k"})


@pytest.mark.parametrize("stat", ["corr", "cov"])
def test_each_variable_as_its_dataarray(stat):
    ds = _ds()
    other = ds["b"] * 2 - 3
    got = getattr(ds.nanstats, stat)(other, "t", nan_policy="omit")
    assert set(got.data_vars) == {"a", "b", "c"} and got.attrs == {"src": "k"}
    for name in ("a", "b", "c"):
        want = getattr(ds[name].nanstats, stat)(other, "t", nan_policy="omit")
        xr.testing.assert_identical(got[name].variable, want.variable)
        ref = getattr(xr, stat)(ds[name], other, "t")
        np.testing.assert_allclose(got[name].values, ref.values, rtol=1e-9)
    assert got["b"].dims == ("x",)
    if stat == "corr":
        np.testing.assert_array_equal(got["b"].values, 1.0)  # collinear: exactly 1
        assert (np.abs(got["a"].values) <= 1).all()


def test_a_dataset_pairs_variables_by_name():
    ds = _ds()
    other = ds.copy(deep=True) * 3 + 1
    got = ds.nanstats.cov(other, "t", nan_policy="omit", ddof=0)
    for name in ds.data_vars:
        want = ds[name].nanstats.cov(other[name], "t", nan_policy="omit", ddof=0)
        np.testing.assert_array_equal(got[name].values, want.values)
    with pytest.raises(ValueError, match=r"lacks the data variable\(s\) \['c'\]"):
        ds.nanstats.corr(other.drop_vars("c"), "t", nan_policy="omit")


def test_policies_and_errors_name_the_variable():
    ds = _ds()
    with pytest.raises(NaNError, match="variable 'a'"):
        ds.nanstats.corr(ds["b"], "t")
    prop = ds.nanstats.corr(ds["b"], "t", nan_policy="propagate")
    assert np.isnan(prop["a"].values[1]) and not np.isnan(prop["a"].values[0])
    with pytest.raises(ValueError, match="variable 'a'.*not found"):
        ds.nanstats.corr(ds["b"], "y", nan_policy="omit")  # no such dimension
    with pytest.raises(TypeError):
        ds.nanstats.corr([1.0, 2.0], "t")
    before = ds.copy(deep=True)
    ds.nanstats.corr(ds["b"], "t", method="spearman", nan_policy="omit")
    xr.testing.assert_identical(ds, before)  # no mutation
