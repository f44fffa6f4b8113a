"""pandas' agg forms on the accessors (name, list, dict, named aggregation), groupby
transform, and nan_report of mixed frames: shapes and labels as pandas' own, values
as the single statistics under the policy."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import nanaccess as na

NAN_FREE = pd.DataFrame(
    {"x": [1.0, 2.0, 3.0, 10.0, -4.5], "y": [4, 5, 9, 1, 7],
     "z": pd.array([3, 1, 2, 8, 5], dtype="Int64")},
    index=pd.date_range("2024-03-30", periods=5, freq="12h", tz="Europe/Berlin"),
)

SPECS = [
    "median",
    ["median", "max", "mean"],
    ["min", "sum", "var"],
    {"x": "min", "y": "max"},
    {"x": "min", "y": ["min", "mean"], "z": ["max"]},
]


@pytest.mark.parametrize("spec", SPECS, ids=repr)
def test_frame_agg_matches_pandas_on_nan_free_data(spec):
    got, want = NAN_FREE.nanstats.agg(spec), NAN_FREE.agg(spec)
    if isinstance(want, pd.DataFrame):
        pd.testing.assert_frame_equal(got, want, check_dtype=False)
        assert list(got.index) == list(want.index) and list(got.columns) == list(want.columns)
    else:
        pd.testing.assert_series_equal(got, want, check_dtype=False)


def test_frame_named_aggregation_matches_pandas():
    got = NAN_FREE.nanstats.agg(lo=("x", "min"), hi=pd.NamedAgg("y", "max"), mid=("x", "median"))
    want = NAN_FREE.agg(lo=("x", "min"), hi=pd.NamedAgg("y", "max"), mid=("x", "median"))
    pd.testing.assert_frame_equal(got, want, check_dtype=False)


def test_frame_agg_applies_the_policy_to_every_statistic():
    df = NAN_FREE.astype({"x": "float64"}).copy()
    with np.errstate(invalid="ignore"):
        made = np.float64(np.inf) - np.float64(np.inf)  # negative on x86
    values = df["x"].to_numpy().copy()
    values[1] = made
    df["x"] = values
    before = df.copy()
    got = df.nanstats.agg(["median", "max"], nan_policy="omit")
    assert got.loc["median", "x"] == np.median([1.0, 3.0, 10.0, -4.5])
    assert got.loc["max", "x"] == 10.0
    with pytest.raises(na.NaNError, match="'x'"):
        df.nanstats.agg(["median", "max"])  # the default policy raises, naming the column
    with pytest.raises(na.NaNError, match="'x'"):
        df.nanstats.agg({"x": "min"})
    pd.testing.assert_frame_equal(df, before)  # nothing mutated
    assert got.loc["median", "y"] == 5.0


def test_agg_keywords_and_errors():
    with pytest.raises(TypeError, match="takes \\['bogus'\\]"):
        NAN_FREE.nanstats.agg(["median"], bogus=1)
    with pytest.raises(ValueError, match="names of statistics"):
        NAN_FREE.nanstats.agg(["median", "not_a_stat"])
    with pytest.raises(KeyError, match="nope"):
        NAN_FREE.nanstats.agg({"nope": "min"})
    with pytest.raises(TypeError, match="needs func"):
        NAN_FREE.nanstats.agg()
    dup = pd.DataFrame([[1.0, 2.0]], columns=["a", "a"])
    with pytest.raises(ValueError, match="names 2 columns"):
        dup.nanstats.agg({"a": "min"})
    pd.testing.assert_frame_equal(dup.nanstats.agg(["min"]), dup.agg(["min"]))  # lists keep both
    q = NAN_FREE[["x"]].nanstats.agg(["median", na.agg.quantile(q=0.25)])
    assert list(q.index) == ["median", "q0.25"] and q.loc["q0.25", "x"] == 1.0


def test_agg_axis_one_is_per_row():
    df = pd.DataFrame({"a": [1.0, 4.0], "b": [3.0, np.nan], "c": [2.0, 6.0]}, index=["r", "s"])
    got = df.nanstats.agg(["median", "max"], axis=1, nan_policy="omit")
    want = df.agg(["median", "max"], axis=1)
    pd.testing.assert_frame_equal(got, want)


def test_series_agg_matches_pandas():
    s = NAN_FREE["x"]
    assert s.nanstats.agg("median") == s.agg("median")
    pd.testing.assert_series_equal(s.nanstats.agg(["median", "max"]), s.agg(["median", "max"]))
    pd.testing.assert_series_equal(s.nanstats.agg({"m": "median", "top": "max"}),
                                   s.agg({"m": "median", "top": "max"}))
    ints = NAN_FREE["y"]
    pd.testing.assert_series_equal(ints.nanstats.agg(["min", "max"]), ints.agg(["min", "max"]))
    with_nan = pd.Series([1.0, np.nan, 3.0])
    assert with_nan.nanstats.agg(["max"], skipna=True).tolist() == [3.0]


GROUPED = pd.DataFrame(
    {"g": ["a", "b", None, "a", "b", "a"], "x": [1.0, 2.0, 3.0, 4.0, 8.0, 10.0],
     "y": pd.array([1, 5, 2, 7, 3, 9], dtype="Int64")},
    index=[3, 3, 1, 2, 0, 9],  # duplicate labels, unsorted
)


@pytest.mark.parametrize("stat", ["median", "mean", "max", "std"])
def test_groupby_transform_matches_pandas(stat):
    gb = GROUPED.groupby("g")
    got, want = gb.nanstats.transform(stat), gb.transform(stat)
    pd.testing.assert_frame_equal(got, want, check_dtype=False)
    got, want = gb["x"].nanstats.transform(stat), gb["x"].transform(stat)
    pd.testing.assert_series_equal(got, want, check_dtype=False)


def test_groupby_transform_policy_and_errors():
    df = pd.DataFrame({"g": list("abab"), "x": [1.0, np.nan, 3.0, 5.0]})
    got = df.groupby("g").nanstats.transform("median", nan_policy="omit")
    assert got["x"].tolist() == [2.0, 5.0, 2.0, 5.0]
    with pytest.raises(na.NaNError, match="'x'"):
        df.groupby("g").nanstats.transform("median")
    with pytest.raises(ValueError, match="one value per group"):
        df.groupby("g").nanstats.transform("quantile", q=[0.1, 0.9], nan_policy="omit")
    with pytest.raises(ValueError, match="name of a statistic"):
        df.groupby("g").nanstats.transform(np.median)


def test_groupby_named_aggregation_matches_pandas():
    gb = GROUPED.groupby("g")
    got = gb.nanstats.agg(m=("x", "median"), top=pd.NamedAgg("y", "max"))
    want = gb.agg(m=("x", "median"), top=pd.NamedAgg("y", "max"))
    pd.testing.assert_frame_equal(got, want, check_dtype=False)
    with pytest.raises(KeyError, match="nope"):
        gb.nanstats.agg(m=("nope", "median"))
    with pytest.raises(TypeError, match="needs func"):
        gb.nanstats.agg()


def test_nan_report_of_a_mixed_frame_reports_numbers_and_names_the_rest():
    df = pd.DataFrame({"a": [1.0, np.nan, -np.inf], "s": ["x", None, "z"],
                       "n": pd.array([1, None, 3], dtype="Int64"),
                       "t": pd.to_datetime(["2024-01-01", None, "2024-01-02"])})
    out = df.nanstats.nan_report()
    assert list(out.index) == ["a", "n", "t"]  # datetimes have missing values (NaT)
    assert out.loc["a", "nan"] == 1 and out.loc["a", "neginf"] == 1
    assert out.loc["n", "missing"] == 1 and out.loc["t", "missing"] == 1
    assert out.attrs["skipped"] == {"s": "non-numeric dtype str"}
    assert (out.dtypes == np.int64).all()
