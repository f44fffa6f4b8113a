"""Lazy cov / corr of dask arrays: exact partials merged across chunks."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import nanaccess as na
from nanaccess import NaNError

da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")
import nanaccess.dask  # noqa: E402, F401  (registers ddf.nanstats)


@pytest.fixture
def data():
    rng = np.random.default_rng(4)
    x = rng.standard_normal(500) * 1e3 + 1e6
    y = 2 * x + rng.standard_normal(500)
    x[[7, 300]] = np.nan
    return x, y


@pytest.mark.parametrize("stat", ["corr", "cov"])
def test_lazy_equals_in_memory_bit_for_bit(data, stat):
    x, y = data
    lazy = getattr(na, stat)(da.from_array(x, chunks=60), da.from_array(y, chunks=77),
                             nan_policy="omit")
    assert isinstance(lazy, da.Array)
    eager = getattr(na, stat)(x, y, nan_policy="omit")
    assert np.float64(lazy.compute()).tobytes() == np.float64(eager).tobytes()


def test_raise_when_computed_with_global_position(data):
    x, y = data
    lazy = na.corr(da.from_array(x, chunks=60), da.from_array(y, chunks=60),
                   nan_policy="raise")
    with pytest.raises(NaNError, match="x holds 2 NaN values .*position 7"):
        lazy.compute()


def test_ranked_methods(data):
    x, y = data
    for method in ("spearman", "kendall"):
        lazy = na.corr(da.from_array(x, chunks=100), da.from_array(y, chunks=100),
                       method=method, nan_policy="omit")
        assert lazy.compute() == na.corr(x, y, method=method, nan_policy="omit")


def test_dask_series(data):
    dd = pytest.importorskip("dask.dataframe")
    pd = pytest.importorskip("pandas")
    x, y = data
    ddf = dd.from_pandas(pd.DataFrame({"x": x, "y": y}), npartitions=4)
    lazy = na.corr(ddf["x"], ddf["y"], nan_policy="omit")
    assert lazy.compute() == na.corr(x, y, nan_policy="omit")
    with pytest.raises(NaNError, match="position 7"):
        na.cov(ddf["x"], ddf["y"], nan_policy="raise").compute()


def _frames():
    rng = np.random.default_rng(17)
    n = 200
    df = pd.DataFrame({"a": rng.standard_normal(n), "b": rng.standard_normal(n),
                       "i": rng.integers(-3, 4, n),
                       "n": pd.array(rng.integers(0, 5, n), dtype="Int64")},
                      index=pd.date_range("2024", periods=n, freq="h", tz="UTC"))
    df["c"] = 3 * df["a"] + 1e7
    df.iloc[::9, 0] = np.inf - np.inf  # a NaN made by arithmetic
    df.iloc[::13, 3] = pd.NA
    return df, dd.from_pandas(df, npartitions=5)


@pytest.mark.parametrize("stat, kw", [("corr", {}), ("cov", {}), ("cov", {"ddof": 0}),
                                      ("corr", {"method": "kendall"}),
                                      ("corr", {"min_periods": 190})])
def test_frame_accessor_matrices_equal_pandas_accessor_bits(stat, kw):
    df, ddf = _frames()
    lazy = getattr(ddf.nanstats, stat)(nan_policy="omit", **kw)
    assert isinstance(lazy, dd.DataFrame)
    got = lazy.compute()
    exp = getattr(df.nanstats, stat)(nan_policy="omit", **kw)
    pd.testing.assert_index_equal(got.index, exp.index)
    np.testing.assert_array_equal(got.to_numpy().view(np.int64), exp.to_numpy().view(np.int64))
    if stat == "corr" and not kw:  # exactly collinear columns
        assert got.loc["a", "c"] == 1.0
    if kw.get("min_periods"):  # 177 joint rows of a and c
        assert np.isnan(got.loc["a", "c"]) and not np.isnan(got.loc["b", "i"])


def test_frame_accessor_raise_names_the_column():
    _, ddf = _frames()
    lazy = ddf.nanstats.corr(nan_policy="raise")  # lazy: raises when computed
    with pytest.raises(NaNError, match="column 'a'"):
        lazy.compute()


def test_series_accessor_corr_and_cov():
    df, ddf = _frames()
    got = ddf["a"].nanstats.corr(ddf["c"], nan_policy="omit")
    assert got.compute() == 1.0
    exp = df["a"].nanstats.cov(df["b"], nan_policy="omit")
    assert ddf["a"].nanstats.cov(ddf["b"], nan_policy="omit").compute() == exp
