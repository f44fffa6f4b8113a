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


# on dask: the same names, raised when computed (the kept coordinates where the
# result is one chunk, else the variable)
def test_dask_overflow_names_variable_and_cell():
    pytest.importorskip("dask")
    lazy = _grid().chunk({"time": 1}).nanstats.sum("time")  # still lazy: no error yet
    with pytest.raises(OverflowError, match=r"variable 'v' at lat=20\.0, lon='c' is 9\d+"):
        lazy.compute()
    with pytest.raises(OverflowError, match=r"exact integer sum of variable 'v' is 9\d+"):
        _grid().chunk({"lat": 1}).nanstats.sum("time").compute()


def test_dask_frame_overflow_names_the_column():
    dd = pytest.importorskip("dask.dataframe")
    import pandas as pd

    df = pd.DataFrame({"x": np.array([2**62, 2**62, 5], np.int64), "y": [1, 2, 3]},
                      index=pd.date_range("2024-03-30", periods=3, tz="Europe/Paris"))
    ddf = dd.from_pandas(df, npartitions=2)
    for lazy in (ddf.nanstats.sum(), ddf["x"].nanstats.sum()):
        with pytest.raises(OverflowError, match=r"exact integer sum of column 'x' is 9\d+"):
            lazy.compute()
    assert int(ddf["y"].nanstats.sum().compute()) == 6
