"""An exact integer sum past int64 names the variable and the kept coordinates (issue 25)."""

from __future__ import annotations

import numpy as np
import pytest
import xarray as xr

import nanaccess  # noqa: F401


def _grid() -> xr.DataArray:
    a = np.zeros((3, 4, 2), dtype=np.int64)
    a[1, 2, :] = 2**62  # lat=20.0, lon='c' sums to 2**63
    return xr.DataArray(a, dims=("lat", "lon", "time"), name="v",
                        coords={"lat": [10.0, 20.0, 30.0], "lon": list("abcd")})


@pytest.mark.parametrize("make", [lambda d: d, lambda d: d.to_dataset()], ids=["da", "ds"])
def test_overflow_names_variable_and_cell(make):
    with pytest.raises(OverflowError, match=r"variable 'v' at lat=20\.0, lon='c' is 9\d+"):
        make(_grid()).nanstats.sum("time")


def test_overflow_on_transposed_and_unlabelled_data():
    with pytest.raises(OverflowError, match=r"at lon='c', lat=20\.0 "):
        _grid().transpose("time", "lon", "lat").nanstats.sum("time")
    bare = _grid().drop_vars(["lat", "lon"]).rename(None)
    with pytest.raises(OverflowError, match=r"of data at lat=1, lon=2 is"):
        bare.nanstats.sum("time")


def test_overflow_of_everything_names_the_variable():
    with pytest.raises(OverflowError, match=r"exact integer sum of variable 'v' is 92\d+"):
        _grid().nanstats.sum()


def test_sums_that_fit_stay_exact():
    g = _grid()
    g[1, 2, 1] = -(2**62)
    out = g.nanstats.sum("time")
    assert out.dtype == np.int64 and int(out.sel(lat=20.0, lon="c")) == 0
    xr.testing.assert_identical(out, g.sum("time"))
