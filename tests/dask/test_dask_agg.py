"""dask's own ``agg`` with :mod:`nanaccess.agg` callables, grouped and not.

The reference is pandas' ``agg`` on the computed frame with the same callables (which
calls nanaccess per group and column) and the in-memory ``nanstats`` accessors.
"""

import numpy as np
import pandas as pd
import pytest

dd = pytest.importorskip("dask.dataframe")

import nanaccess as na  # noqa: E402
from nanaccess.errors import NaNError  # noqa: E402


@pytest.fixture
def frame():
    with np.errstate(invalid="ignore"):
        nan = np.float64(np.inf) - np.float64(np.inf)  # a NaN made by arithmetic
    idx = pd.date_range("2024-03-30", periods=9, freq="h", tz="Europe/Berlin")
    df = pd.DataFrame({
        "k": [2, 1, 1, 2, 3, 3, 1, 2, 3],
        "x": [1.0, 2.0, nan, 4.0, 5.0, 6.0, 7.5, -0.0, 2.0],
        "i": np.arange(9, dtype=np.int64) * 3,
        "n": pd.array([1, None, 3, 4, 5, 6, 7, 8, None], dtype="Int64"),
    }, index=idx)
    return df, dd.from_pandas(df, npartitions=3)


def _same(lazy, expected):
    got = lazy.compute()
    got = got.sort_index() if isinstance(got, pd.Series | pd.DataFrame) else got
    if isinstance(expected, pd.DataFrame):
        pd.testing.assert_frame_equal(got, expected, check_exact=True)
    else:
        pd.testing.assert_series_equal(got, expected, check_exact=True)


@pytest.mark.parametrize("spec", [
    lambda: na.agg.median(nan_policy="omit"),
    lambda: [na.agg.median(nan_policy="omit"), na.agg.quantile(q=0.9, nan_policy="propagate")],
    lambda: {"x": na.agg.iqr(nan_policy="omit"), "i": [na.agg.mean(nan_policy="raise")]},
    lambda: [na.agg.median(nan_policy="smallest"), "max"],  # mixed: pandas' "max"
])
def test_groupby_agg_runs_nanaccess(frame, spec):
    df, ddf = frame
    df, ddf = df[["k", "x", "i"]], ddf[["k", "x", "i"]]
    _same(ddf.groupby("k").agg(spec()), df.groupby("k").agg(spec()))


def test_groupby_agg_is_not_dask_median(frame):
    # dask alone maps the callable to its name and runs its own median, which skips
    # the NaN; under "propagate" group 1's median is NaN
    df, ddf = frame
    got = ddf[["k", "x"]].groupby("k").agg(na.agg.median(nan_policy="propagate")).compute()
    assert np.isnan(got.loc[1, "x"])
    assert got.sort_index().equals(df[["k", "x"]].groupby("k").nanstats.median(
        nan_policy="propagate"))


def test_groupby_series_and_named_agg(frame):
    df, ddf = frame
    f = na.agg.median(nan_policy="omit")
    _same(ddf.groupby("k")["x"].agg(f), df.groupby("k")["x"].agg(f))
    _same(ddf.groupby("k").agg(m=("x", f), q=("i", na.agg.quantile(q=0.25))),
          df.groupby("k").agg(m=("x", f), q=("i", na.agg.quantile(q=0.25))))


def test_groupby_agg_nullable_column(frame):
    df, ddf = frame
    f = [na.agg.median(nan_policy="omit"), na.agg.max(nan_policy="omit")]
    _same(ddf[["k", "n"]].groupby("k").agg(f),
          df[["k", "n"]].groupby("k").nanstats.agg(f))


def test_groupby_agg_raise_names_column_group_and_row(frame):
    df, ddf = frame
    f = na.agg.median(nan_policy="raise")
    with pytest.raises(NaNError) as mem:
        df[["k", "x"]].groupby("k").nanstats.agg(f)
    with pytest.raises(NaNError) as lazy:
        ddf[["k", "x"]].groupby("k").agg(f).compute()
    assert str(lazy.value) == str(mem.value)
    assert "column 'x' in group 1" in str(lazy.value)
    assert "2024-03-30T02:00:00+01:00" in str(lazy.value)


def test_groupby_agg_signaling_raises_under_omit():
    x = np.array([1.0, 0.0, 3.0])
    x[1] = na.make_nan(3, signaling=True)
    df = pd.DataFrame({"k": [1, 1, 2], "x": x})
    ddf = dd.from_pandas(df, npartitions=2)
    with pytest.raises(NaNError, match="signaling"):
        ddf.groupby("k").agg(na.agg.median(nan_policy="omit")).compute()


def test_dask_names_untouched(frame):
    df, ddf = frame
    got = ddf[["k", "i"]].groupby("k").agg(["sum", "max"]).compute().sort_index()
    pd.testing.assert_frame_equal(got, df[["k", "i"]].groupby("k").agg(["sum", "max"]))


@pytest.mark.parametrize("spec,kw", [
    (lambda: [na.agg.median(nan_policy="omit"), na.agg.max(nan_policy="omit")], {}),
    (lambda: {"x": ["median", "max"], "i": "min"}, {"nan_policy": "omit"}),
    (lambda: {"x": "max", "i": na.agg.mean()}, {"nan_policy": "omit"}),
])
def test_frame_agg_equals_pandas_accessor(frame, spec, kw):
    df, ddf = frame
    df, ddf = df[["x", "i"]], ddf[["x", "i"]]
    expected = df.nanstats.agg(spec(), **kw)
    got = ddf.nanstats.agg(spec(), **kw).compute()
    if isinstance(expected, pd.DataFrame):
        pd.testing.assert_frame_equal(got, expected, check_exact=True)
    else:
        pd.testing.assert_series_equal(got, expected, check_exact=True)


def test_series_agg_and_named(frame):
    df, ddf = frame
    pd.testing.assert_series_equal(
        ddf.x.nanstats.agg(["median", "min"], nan_policy="omit").compute(),
        df.x.nanstats.agg(["median", "min"], nan_policy="omit"))
    pd.testing.assert_frame_equal(
        ddf.nanstats.agg(mx=("x", "max"), nan_policy="omit").compute(),
        df.nanstats.agg(mx=("x", "max"), nan_policy="omit"))
    one = ddf.x.nanstats.agg(na.agg.median(nan_policy="omit")).compute()
    assert one == df.x.nanstats.median(nan_policy="omit")


def test_frame_agg_raise_names_label(frame):
    df, ddf = frame
    with pytest.raises(NaNError) as mem:
        df[["x"]].nanstats.agg([na.agg.median()])
    with pytest.raises(NaNError) as lazy:
        ddf[["x"]].nanstats.agg([na.agg.median()]).compute()
    assert str(lazy.value) == str(mem.value)
