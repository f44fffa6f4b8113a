"""skew, kurt, sem, prod on every host (issue 23): labels and values as the hosts'."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import xarray as xr

import nanaccess as na

STATS = ("skew", "kurt", "sem", "prod")


@pytest.fixture
def frame():
    rng = np.random.default_rng(0)
    df = pd.DataFrame({
        "k": rng.integers(0, 4, 60),
        "f": rng.normal(size=60),
        "i": rng.integers(-5, 5, 60),
        "n": pd.array(rng.integers(0, 9, 60), dtype="Int64"),
        "f32": rng.normal(size=60).astype(np.float32),
    }, index=pd.Index(rng.integers(0, 5, 60), name="dup"))  # duplicate labels
    df.iloc[[3, 11], 1] = np.nan
    df.iloc[7, 3] = pd.NA
    return df


@pytest.mark.parametrize("stat", STATS)
def test_frame_and_groupby_match_pandas(frame, stat):
    got = getattr(frame.nanstats, stat)(nan_policy="omit")
    want = getattr(frame, stat)()
    assert list(got.index) == list(want.index)
    for c in got.index:  # float32: pandas rounds a float32 running product each step
        rtol = 1e-5 if c == "f32" else 1e-10
        np.testing.assert_allclose(float(got[c]), float(want[c]), rtol=rtol, err_msg=c)
    gb = frame.groupby("k")
    got = getattr(gb.nanstats, stat)(nan_policy="omit")
    want = getattr(gb, stat)() if stat != "kurt" else gb.agg(lambda s: s.kurt())
    assert got.index.equals(want.index) and list(got.columns) == list(want.columns)
    for c in got.columns:
        rtol = 1e-5 if c == "f32" else 1e-10
        np.testing.assert_allclose(got[c].astype(float), want[c].astype(float), rtol=rtol)
    if stat == "prod":
        assert not np.signbit(got["i"].to_numpy(float)[got["i"] == 0]).any()


def test_raise_names_column_and_label(frame):
    with pytest.raises(na.NaNError, match="column 'f'"):
        frame.nanstats.skew(nan_policy="raise")
    with pytest.raises(na.NaNError, match="group"):
        frame.groupby("k").nanstats.kurt(nan_policy="raise")


def test_propagate_nullable_is_na(frame):
    got = frame["n"].nanstats.sem(nan_policy="propagate")
    assert got is pd.NA
    assert np.isnan(frame["f"].nanstats.prod(nan_policy="propagate"))


def test_xarray_dim_and_dataset():
    rng = np.random.default_rng(1)
    da = xr.DataArray(rng.normal(size=(5, 40)), dims=("x", "time"), name="t",
                      coords={"time": pd.date_range("2024", periods=40)})
    got = da.nanstats.skew(dim="time")
    np.testing.assert_allclose(got.values, da.to_pandas().skew(axis=1).values, rtol=1e-12)
    assert got.dims == ("x",)
    ds = xr.Dataset({"a": da, "b": da * 2})
    out = ds.nanstats.kurt(dim="time")
    np.testing.assert_allclose(out["b"].values, da.to_pandas().kurt(axis=1).values,
                               rtol=1e-12)


def test_dask_lazy_equals_in_memory():
    dd = pytest.importorskip("dask.dataframe")
    import dask.array as dsa

    import nanaccess.dask  # noqa: F401

    rng = np.random.default_rng(2)
    x = rng.normal(size=500)
    x[[4, 90]] = np.nan
    ddf = dd.from_pandas(pd.DataFrame({"x": x}), npartitions=4)
    for stat in STATS:
        lazy = getattr(ddf.x.nanstats, stat)(nan_policy="omit")
        assert lazy.compute() == getattr(pd.Series(x).nanstats, stat)(nan_policy="omit")
    arr = dsa.from_array(x.reshape(50, 10), chunks=(7, 4))
    for stat in STATS:
        a = na.skew(arr, axis=0, nan_policy="omit") if stat == "skew" else \
            getattr(na, stat)(arr, axis=0, nan_policy="omit")
        b = getattr(na, stat)(x.reshape(50, 10), axis=0, nan_policy="omit")
        assert np.asarray(a.compute()).tobytes() == np.asarray(b).tobytes()


def test_plain_functions_lists_and_masked():
    assert na.sem([1.0, 2.0, 3.0, 4.0]) == pd.Series([1.0, 2.0, 3.0, 4.0]).sem()
    m = np.ma.masked_array([1.0, 2.0, 100.0, 4.0], mask=[0, 0, 1, 0])
    assert na.kurt(m, nan_policy="omit", bias=True) == na.kurt([1.0, 2.0, 4.0], bias=True)
    with pytest.raises(TypeError):
        na.skew(["a", "b"])
