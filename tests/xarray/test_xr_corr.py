"""xarray hosts of cov / corr: xr.corr / xr.cov semantics, exact, under policies."""

from __future__ import annotations

import numpy as np
import pytest
import xarray as xr

import nanaccess as na
from nanaccess import NaNError


@pytest.fixture
def arrays():
    rng = np.random.default_rng(0)
    t = np.arange("2024-01-01", "2024-01-31", dtype="datetime64[D]")
    a = xr.DataArray(rng.standard_normal((4, t.size)), dims=("x", "time"),
                     coords={"x": [1.0, 2.0, 3.0, 4.0], "time": t}, name="a")
    b = xr.DataArray(rng.standard_normal((t.size, 4)), dims=("time", "x"),
                     coords={"x": [1.0, 2.0, 3.0, 4.0], "time": t}, name="b")
    a[1, 5] = np.nan
    b[7, 2] = np.nan
    return a, b


@pytest.mark.parametrize("dim", ["time", "x", None, ["x", "time"]])
def test_matches_xarray(arrays, dim):
    a, b = arrays
    xr.testing.assert_allclose(na.corr(a, b, dim=dim, nan_policy="omit"),
                               xr.corr(a, b, dim=dim), rtol=1e-13)
    xr.testing.assert_allclose(na.cov(a, b, dim=dim, nan_policy="omit"),
                               xr.cov(a, b, dim=dim), rtol=1e-13)
    xr.testing.assert_allclose(a.nanstats.cov(b, dim=dim, ddof=0, nan_policy="omit"),
                               xr.cov(a, b, dim=dim, ddof=0), rtol=1e-13)


def test_alignment_and_exact_one(arrays):
    a, _ = arrays
    c = (3 * a.fillna(0).round() + 1e7).isel(time=slice(3, None))  # inner join on time
    got = a.fillna(0).round().nanstats.corr(c, dim="time", nan_policy="omit")
    assert got.sizes == {"x": 4}
    assert (got == 1.0).all()


def test_raise_names_variable_and_coords(arrays):
    a, b = arrays
    with pytest.raises(NaNError, match=r"variable 'a' holds 1 NaN value \(first at "
                                       r"x=2.0, time='2024-01-06'\)"):
        na.corr(a, b, dim="time")


def test_propagate_per_cell(arrays):
    a, b = arrays
    got = na.corr(a, b, dim="time", nan_policy="propagate")
    assert np.isnan(got.values[[1, 2]]).all() and np.isfinite(got.values[[0, 3]]).all()


def test_dask_backed_arrays(arrays):
    pytest.importorskip("dask")
    a, b = arrays
    got = na.corr(a.chunk({"time": 7}), b.chunk({"time": 5}), dim="time", nan_policy="omit")
    xr.testing.assert_allclose(got, xr.corr(a, b, dim="time"), rtol=1e-13)
