"""Lazy cumulative statistics on dask (issue 23): bit-equal to in memory, exact carry."""

from __future__ import annotations

import math

import dask.array as da
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest
import xarray as xr

import nanaccess as na
import nanaccess.dask  # noqa: F401
from nanaccess.core.cumulative import cumulative
from nanaccess.dask.cumulative import array_cumulative

STATS = ("cumsum", "cumprod", "cummax", "cummin", "cumcount")


def _messy(shape, seed=1):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=shape) * 10.0 ** rng.integers(-3, 17, size=shape)
    x[rng.random(shape) < 0.1] = np.inf - np.inf  # arithmetic NaNs
    x[rng.random(shape) < 0.05] = -0.0
    return x


@pytest.mark.parametrize("stat", STATS)
@pytest.mark.parametrize("policy", ["omit", "propagate", "largest", "totalorder"])
def test_arrays_bit_equal_to_in_memory(stat, policy):
    x = _messy((3, 50))
    for ax in (0, 1):
        got = array_cumulative(da.from_array(x, chunks=(2, 7)), stat, axis=ax, policy=policy)
        want = cumulative(x, stat, axis=ax, policy=policy)[0]
        g = got.compute()
        assert g.dtype == want.dtype and g.tobytes() == want.tobytes()


def test_the_carry_is_exact_not_a_rounded_float():
    x = np.array([1e100, 0.1, -1e100, 0.1, 0.1, 0.1] + [0.1] * 10)
    got = array_cumulative(da.from_array(x, chunks=1), "cumsum", policy="raise").compute()
    assert got.tobytes() == cumulative(x, "cumsum", policy="raise")[0].tobytes()
    assert got[2] == 0.1 and got[-1] == math.fsum([0.1] * 14)  # a float carry: 0.0, drift


@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.int8])
def test_dtypes(dtype):
    rng = np.random.default_rng(2)
    x = (rng.normal(size=40) * 50).astype(dtype)
    for stat in STATS:
        if stat == "cumprod" and x.dtype.kind == "i":
            x = rng.choice(np.array([-1, 1, 2], dtype), 40)  # fits int64
        got = array_cumulative(da.from_array(x, chunks=9), stat, policy="omit").compute()
        want = cumulative(x, stat, policy="omit")[0]
        assert got.dtype == want.dtype and got.tobytes() == want.tobytes()


def test_lazy_and_raise_names_the_position():
    x = np.zeros((30, 4))
    x[17, 2] = np.nan
    lazy = array_cumulative(da.from_array(x, chunks=(7, 3)), "cumsum", axis=0, policy="raise")
    with pytest.raises(na.NaNError, match=r"\(17, 2\)"):
        lazy.compute()


def test_dataframe_series_and_nullable():
    rng = np.random.default_rng(3)
    x = _messy(50, seed=4)
    s = pd.Series(x, index=pd.date_range("2024-03-30", periods=50, freq="h",
                                         tz="Europe/Berlin"), name="v")
    ds = dd.from_pandas(s, npartitions=4)
    for stat in STATS:
        for pol in ("omit", "propagate", "smallest"):
            lazy = getattr(ds.nanstats, stat)(nan_policy=pol)
            pd.testing.assert_series_equal(lazy.compute(),
                                           getattr(s.nanstats, stat)(nan_policy=pol))
    df = pd.DataFrame({"a": x, "b": pd.array(rng.integers(0, 5, 50), dtype="Int64")})
    df.loc[3, "b"] = pd.NA
    ddf = dd.from_pandas(df, npartitions=3)
    for pol in ("omit", "propagate"):
        pd.testing.assert_frame_equal(ddf.nanstats.cumsum(nan_policy=pol).compute(),
                                      df.nanstats.cumsum(nan_policy=pol))
    with pytest.raises(na.NaNError, match="column 'v'.*index"):
        ds.nanstats.cumsum(nan_policy="raise").compute()


def test_xarray_dask_backed_stays_lazy():
    x = _messy((4, 30), seed=5)
    a = xr.DataArray(x, dims=("y", "t"), coords={"t": np.arange(30)}, attrs={"u": "m"})
    d = a.chunk({"t": 7, "y": 3})
    for stat in ("cumsum", "cumprod", "cummax", "cummin"):
        got = getattr(d.nanstats, stat)("t", nan_policy="propagate")
        assert got.chunks is not None  # still lazy
        xr.testing.assert_identical(got.compute(), getattr(a.nanstats, stat)(
            "t", nan_policy="propagate"))
    got = xr.Dataset({"v": d}).nanstats.cumsum("y", nan_policy="omit")
    assert got.v.chunks is not None
    np.testing.assert_array_equal(got.v.values, a.nanstats.cumsum("y", nan_policy="omit"))
