"""dask DataFrame / Series accessor: lazy, exact, equal to pandas / the core."""

from __future__ import annotations

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest

import nanaccess.dask  # noqa: F401
from nanaccess.errors import NaNError


@pytest.fixture(autouse=True)
def _sync_scheduler():
    with dask.config.set(scheduler="sync"):
        yield


def frame(seed=0):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"a": rng.normal(size=53), "b": rng.integers(0, 9, 53).astype(float)},
                      index=pd.date_range("2024-01-01", periods=53))
    df.iloc[[5, 17, 40], 0] = np.nan
    return df


def test_series_median_and_quantile_equal_pandas():
    df = frame()
    s = dd.from_pandas(df["a"], npartitions=5)
    assert float(s.nanstats.median(nan_policy="omit").compute()) == df["a"].median()
    np.testing.assert_array_equal(
        s.nanstats.quantile([0.1, 0.5, 0.9], nan_policy="omit").compute(),
        df["a"].quantile([0.1, 0.5, 0.9]).to_numpy())


def test_dataframe_median_lazy_and_equal_pandas():
    df = frame()
    ddf = dd.from_pandas(df, npartitions=4)
    res = ddf.nanstats.median(nan_policy="omit")
    assert isinstance(res, dd.Series)
    pd.testing.assert_series_equal(res.compute(), df.median(), check_names=False)
    q = ddf.nanstats.quantile([0.25, 0.75], nan_policy="omit").compute()
    pd.testing.assert_frame_equal(q, df.quantile([0.25, 0.75]))


def test_raise_names_column_and_index_label():
    ddf = dd.from_pandas(frame(), npartitions=4)
    r = ddf["a"].nanstats.median(nan_policy="raise")
    with pytest.raises(NaNError, match=r"column 'a' holds 3 NaN values \(first at index "
                                       r"'2024-01-06'\)"):
        r.compute()


# ----------------------------------------------------- issue 15: the pandas spelling


def _frame():
    df = pd.DataFrame({"k": [1, 2, 1, 2, 1, 3], "x": [1.0, np.nan, 3.0, 4.0, 8.0, 2.0],
                       "y": [1, 2, 3, 4, 5, 6]})
    return df, dd.from_pandas(df, npartitions=2)


@pytest.mark.parametrize("stat", ["median", "max", "mean", "sum", "iqr"])
def test_scalars_compute_to_what_pandas_returns(stat):
    df, ddf = _frame()
    got = getattr(ddf.x.nanstats, stat)(nan_policy="omit")
    assert isinstance(got, dd.dask_expr._collection.Scalar)
    value = got.compute()
    want = getattr(df.x.nanstats, stat)(nan_policy="omit")
    assert type(value) is type(want) and np.ndim(value) == 0
    assert value == want


def test_list_quantile_is_a_series_indexed_by_q():
    df, ddf = _frame()
    got = ddf.x.nanstats.quantile([0.1, 0.5, 0.9], nan_policy="omit").compute()
    pd.testing.assert_series_equal(got, df.x.quantile([0.1, 0.5, 0.9]))
    pd.testing.assert_series_equal(got, df.x.nanstats.quantile([0.1, 0.5, 0.9],
                                                              nan_policy="omit"))


def test_dask_groupby_nanstats_is_the_pandas_spelling():
    df, ddf = _frame()
    got = ddf.groupby("k").nanstats.median(nan_policy="omit").compute().sort_index()
    pd.testing.assert_frame_equal(got, df.groupby("k").nanstats.median(nan_policy="omit"))
    pd.testing.assert_frame_equal(
        got, ddf.nanstats.groupby("k").median(nan_policy="omit").compute().sort_index())
    s = ddf.groupby("k")["x"].nanstats.max(nan_policy="omit").compute().sort_index()
    pd.testing.assert_series_equal(s, df.groupby("k")["x"].max())
    sub = ddf.groupby("k")[["y"]].nanstats.sum(nan_policy="omit").compute().sort_index()
    pd.testing.assert_frame_equal(sub, df.groupby("k")[["y"]].sum())
    with pytest.raises(NaNError, match="column 'x'"):
        ddf.groupby("k").nanstats.median().compute()


def test_dask_groupby_by_a_series_points_to_the_accessor():
    _, ddf = _frame()
    with pytest.raises(TypeError, match="ddf.nanstats.groupby"):
        ddf.x.groupby(ddf.k).nanstats  # noqa: B018


def test_describe_and_nan_report_equal_the_pandas_accessor():
    df, ddf = _frame()
    df = df.assign(z=pd.array([1.5, None, 2.5, np.nan, 3.0, 4.0], dtype="Float64"))
    ddf = dd.from_pandas(df, npartitions=3)
    num = df[["k", "x", "y"]]
    pd.testing.assert_frame_equal(ddf[["k", "x", "y"]].nanstats.describe().compute(),
                                  num.nanstats.describe())
    pd.testing.assert_series_equal(ddf.x.nanstats.describe(percentiles=[0.1]).compute(),
                                   df.x.nanstats.describe(percentiles=[0.1]))
    pd.testing.assert_frame_equal(ddf.nanstats.nan_report().compute(),
                                  df.nanstats.nan_report())
    pd.testing.assert_series_equal(ddf.z.nanstats.nan_report().compute(),
                                   df.z.nanstats.nan_report())
    with pytest.raises(NaNError, match="column 'x'"):
        ddf.x.nanstats.describe(nan_policy="raise").compute()
