"""pandas hosts of cov / corr: labels, shapes, policies, against pandas."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

import nanaccess as na
from nanaccess import NaNError


@pytest.fixture
def frame():
    rng = np.random.default_rng(1)
    idx = pd.date_range("2024-01-01", periods=80, freq="D", tz="Europe/Paris")
    df = pd.DataFrame(rng.standard_normal((80, 3)), index=idx, columns=["a", "b", "c"])
    df.iloc[rng.random(80) < 0.15, 0] = np.nan
    with np.errstate(invalid="ignore"):
        df.iloc[rng.random(80) < 0.15, 2] = np.float64(np.inf) - np.inf  # a negative NaN
    df["i"] = rng.integers(0, 10, 80)
    return df


@pytest.mark.parametrize("method", ["pearson", "spearman", "kendall"])
def test_frame_corr_matches_pandas(frame, method):
    got = frame.nanstats.corr(method=method, nan_policy="omit")
    exp = frame.corr(method=method)
    pd.testing.assert_frame_equal(got, exp, rtol=1e-13, atol=1e-15)


def test_frame_cov_ddof_min_periods(frame):
    clean = frame.dropna()
    for ddof in (0, 1, 2):
        pd.testing.assert_frame_equal(clean.nanstats.cov(ddof=ddof, nan_policy="raise"),
                                      clean.cov(ddof=ddof), rtol=1e-13)
    # with NaNs pandas ignores ddof (its pairwise kernel divides by n - 1): we do not
    pd.testing.assert_frame_equal(frame.nanstats.cov(nan_policy="omit"), frame.cov(),
                                  rtol=1e-13)
    n = frame.notna().astype(int).T @ frame.notna().astype(int)
    pd.testing.assert_frame_equal(frame.nanstats.cov(ddof=0, nan_policy="omit"),
                                  frame.cov() * (n - 1) / n, rtol=1e-13, check_dtype=False)
    pd.testing.assert_frame_equal(frame.nanstats.cov(min_periods=70, nan_policy="omit"),
                                  frame.cov(min_periods=70), rtol=1e-13)


def test_raise_names_column_and_label(frame):
    first = frame.index[frame["a"].isna()][0]
    with pytest.raises(NaNError, match=f"column .a. holds .* NaN.*{re.escape(first.isoformat())}"):
        frame.nanstats.corr(nan_policy="raise")


def test_nullable_missing_vs_nan():
    s = pd.Series([1.0, 2.0, None, 4.0, 3.0], dtype="Float64")
    t = pd.Series([2.0, 1.0, 5.0, 3.0, 7.0])
    with pytest.raises(NaNError, match="missing"):
        s.nanstats.corr(t, nan_policy="raise")
    assert s.nanstats.corr(t, nan_policy="propagate") is pd.NA
    assert s.nanstats.corr(t, nan_policy="omit") == pytest.approx(
        s.astype(float).corr(t), rel=1e-15)
    df = pd.DataFrame({"s": s, "t": t})
    got = df.nanstats.corr(nan_policy="propagate")
    assert got.loc["s", "t"] is pd.NA and got.loc["t", "t"] == 1.0


def test_series_corr_cov_align_and_exactness():
    x = pd.Series(np.arange(10.0), index=list("abcdefghij"))
    y = (3 * x + 1e7).iloc[::-1]  # other order: aligned on the index
    assert x.nanstats.corr(y, nan_policy="omit") == 1.0
    assert x.nanstats.cov(y, nan_policy="omit") == x.cov(y)
    two = pd.Series([0.1, 0.7])
    assert two.nanstats.corr(pd.Series([1e-9, -3.3]), nan_policy="omit") == -1.0
    for method in ("spearman", "kendall"):
        assert x.nanstats.corr(y, method=method, nan_policy="omit") == 1.0


def test_corrwith_series_and_frame(frame):
    other = frame["b"] * 2 + frame["i"]
    pd.testing.assert_series_equal(frame.nanstats.corrwith(other, nan_policy="omit"),
                                   frame.corrwith(other), rtol=1e-13)
    f2 = frame[["a", "b"]].rename(columns={"b": "z"}) + 1
    pd.testing.assert_series_equal(frame.nanstats.corrwith(f2, nan_policy="omit"),
                                   frame.corrwith(f2), rtol=1e-13)
    pd.testing.assert_series_equal(
        frame.nanstats.corrwith(f2, drop=True, method="spearman", nan_policy="omit"),
        frame.corrwith(f2, drop=True, method="spearman"), rtol=1e-13)


def test_groupby_corr_cov_match_pandas():
    rng = np.random.default_rng(2)
    df = pd.DataFrame(rng.standard_normal((200, 3)), columns=["x", "y", "z"])
    df.iloc[rng.random(200) < 0.1, 1] = np.nan
    df["g"] = rng.choice(["p", "q", "r"], 200)
    gb = df.groupby("g")
    pd.testing.assert_frame_equal(gb.nanstats.corr(nan_policy="omit"), gb.corr(),
                                  rtol=1e-13)
    pd.testing.assert_frame_equal(gb.nanstats.cov(nan_policy="omit"), gb.cov(), rtol=1e-13)
    pd.testing.assert_frame_equal(gb.nanstats.corr(method="kendall", nan_policy="omit"),
                                  gb.corr(method="kendall"), rtol=1e-13)
    two = df.groupby(["g", df.index % 2])
    pd.testing.assert_frame_equal(two.nanstats.corr(nan_policy="omit"), two.corr(),
                                  rtol=1e-13)
    s = df.groupby("g")["x"]
    pd.testing.assert_series_equal(s.nanstats.corr(df["z"], nan_policy="omit"),
                                   s.corr(df["z"]), rtol=1e-13)


def test_duplicate_labels_and_int_columns():
    df = pd.DataFrame([[1, 2.0, 4], [2, 1.0, 3], [3, 5.0, 9]], columns=["a", "a", "b"],
                      index=[0, 0, 1])
    pd.testing.assert_frame_equal(df.nanstats.corr(nan_policy="omit"), df.corr(), rtol=1e-14)


def test_plain_functions_dispatch(frame):
    pd.testing.assert_frame_equal(na.corr(frame, nan_policy="omit"), frame.corr(),
                                  rtol=1e-13)
    assert na.cov(frame["a"], frame["b"], nan_policy="omit") == pytest.approx(
        frame["a"].cov(frame["b"]), rel=1e-14)
    arr = frame.to_numpy()
    np.testing.assert_allclose(na.corr(arr, nan_policy="omit"), frame.corr().to_numpy(),
                               rtol=1e-13)
    clean = frame.dropna().to_numpy()
    np.testing.assert_allclose(na.cov(clean.T, rowvar=True, nan_policy="raise"),
                               np.cov(clean.T), rtol=1e-13)


def test_no_mutation(frame):
    before = frame.copy()
    frame.nanstats.corr(method="spearman", nan_policy="omit")
    frame.nanstats.cov(nan_policy="omit")
    pd.testing.assert_frame_equal(frame, before)


def test_bad_arguments(frame):
    with pytest.raises(ValueError, match="method"):
        frame.nanstats.corr(method="pearsonn", nan_policy="omit")
    with pytest.raises(TypeError, match="column 's'"):
        pd.DataFrame({"s": ["x", "y"], "n": [1.0, 2.0]}).nanstats.corr(nan_policy="omit")
    got = pd.DataFrame({"s": ["x", "y"], "n": [1.0, 2.0]}).nanstats.corr(
        numeric_only=True, nan_policy="omit")
    assert list(got.columns) == ["n"]


@pytest.mark.parametrize("stat", ["corr", "cov"])
def test_rolling_and_expanding_match_pandas(stat):
    rng = np.random.default_rng(8)
    x = pd.Series(rng.standard_normal(300), index=pd.date_range("2024", periods=300))
    y = 0.5 * x + rng.standard_normal(300)
    x[rng.random(300) < 0.05] = np.nan
    for win in (x.rolling(20), x.rolling(20, min_periods=5), x.expanding(3),
                x.rolling("10D")):
        got = getattr(win.nanstats, stat)(y, nan_policy="omit")
        pd.testing.assert_series_equal(got, getattr(win, stat)(y), rtol=1e-12)
    df = pd.DataFrame({"a": x, "b": y * 2})
    pd.testing.assert_frame_equal(getattr(df.rolling(15).nanstats, stat)(y, nan_policy="omit"),
                                  getattr(df.rolling(15), stat)(y), rtol=1e-12)


def test_rolling_corr_is_exact_on_collinear_windows_and_bounded():
    rng = np.random.default_rng(2)
    xx = np.arange(20.0)
    x = pd.Series(np.r_[1e10 + rng.standard_normal(100) * 0.001, xx])
    y = pd.Series(np.r_[rng.standard_normal(100), 3 * xx + 1e7])
    r = x.rolling(10).nanstats.corr(y, nan_policy="omit")
    assert (r.iloc[-11:] == 1.0).all()
    assert (r.dropna().abs() <= 1).all()


def test_rolling_raise_and_propagate():
    x = pd.Series([1.0, 2.0, np.nan, 4.0, 5.0, 7.0], index=list("abcdef"))
    y = pd.Series([2.0, 1.0, 3.0, 5.0, 4.0, 9.0], index=list("abcdef"))
    with pytest.raises(NaNError, match="index 'c'"):
        x.rolling(3).nanstats.corr(y, nan_policy="raise")
    got = x.rolling(3).nanstats.corr(y, nan_policy="propagate")
    assert got.isna().tolist() == [True, True, True, True, True, False]


@pytest.mark.parametrize("stat", ["corr", "cov"])
def test_rolling_pairwise_frames_match_pandas(stat):
    rng = np.random.default_rng(13)
    idx = pd.date_range("2024-01-01", periods=60)
    df = pd.DataFrame(rng.standard_normal((60, 3)), columns=list("abc"), index=idx)
    df.iloc[rng.random(60) < 0.1, 1] = np.nan
    other = pd.DataFrame(rng.standard_normal((60, 2)), columns=["x", "b"], index=idx)
    win = df.rolling(10)
    pd.testing.assert_frame_equal(getattr(win.nanstats, stat)(nan_policy="omit"),
                                  getattr(win, stat)(), rtol=1e-12)
    pd.testing.assert_frame_equal(
        getattr(win.nanstats, stat)(other, pairwise=True, nan_policy="omit"),
        getattr(win, stat)(other, pairwise=True), rtol=1e-12)


def test_plain_lists_with_none_are_missing():
    got = na.corr([1.0, None, 3.0, 4.0, 6.0], [2.0, 5.0, None, 8.0, 9.0], nan_policy="omit")
    assert got == na.corr([1.0, 4.0, 6.0], [2.0, 8.0, 9.0], nan_policy="omit")
    with pytest.raises(NaNError, match="x holds 1 missing value"):
        na.corr([1.0, None, 3.0], [2.0, 5.0, 1.0], nan_policy="raise")
    assert np.isnan(na.cov([1, pd.NA, 3], [2, 5, 1], nan_policy="propagate"))
    with pytest.raises(TypeError, match="need numbers"):
        na.corr(["a", None], [1.0, 2.0], nan_policy="omit")


def _grouped_frame() -> pd.DataFrame:
    rng = np.random.default_rng(31)
    n = 60
    df = pd.DataFrame({"g": rng.integers(0, 3, n), "a": rng.standard_normal(n),
                       "b": rng.standard_normal(n), "i": rng.integers(-4, 5, n)},
                      index=pd.date_range("2024-03-25", periods=n, freq="7h",
                                          tz="Europe/Berlin"))
    df.iloc[::7, 1] = np.inf - np.inf  # NaNs made by arithmetic
    return df


@pytest.mark.parametrize("stat", ["corr", "cov"])
def test_grouped_rolling_pairwise_matches_pandas(stat):
    df = _grouped_frame()
    gb = df.groupby("g")
    for win in (gb.rolling(5), gb.rolling(5, min_periods=2), gb.expanding(2)):
        got = getattr(win.nanstats, stat)(nan_policy="omit")
        pd.testing.assert_frame_equal(got, getattr(win, stat)(), rtol=1e-12)


@pytest.mark.parametrize("stat", ["corr", "cov"])
def test_grouped_rolling_with_other_is_per_group(stat):
    """pandas' own ``groupby(...).rolling(...).corr(other)`` does not group ``other``
    (its result has a row per group and row of ``other``); ours is the statistic of
    each group's windows against ``other``'s rows of that group, under the labels of
    the grouped window."""
    df = _grouped_frame()
    gb = df.groupby("g")

    def per_group(make):
        return pd.concat({g: getattr(make(sub), stat)(df["b"].loc[sub.index])
                          for g, sub in df.groupby("g")}, names=["g"])

    got = getattr(gb["a"].rolling(4).nanstats, stat)(df["b"], nan_policy="omit")
    pd.testing.assert_series_equal(got, per_group(lambda s: s["a"].rolling(4)), rtol=1e-12,
                                   check_names=False)
    got = getattr(gb["i"].rolling("1D").nanstats, stat)(df["b"], nan_policy="omit")
    pd.testing.assert_series_equal(got, per_group(lambda s: s["i"].rolling("1D")),
                                   rtol=1e-12, check_names=False)
    got = getattr(gb.rolling(4).nanstats, stat)(df["b"], nan_policy="omit")
    pd.testing.assert_frame_equal(got, per_group(lambda s: s[["a", "b", "i"]].rolling(4)),
                                  rtol=1e-12, check_dtype=False)


def test_kendall_large_frames_sort_each_column_once():
    """From 4096 rows each column is sorted once and the pairs reuse its order (ties in
    x: the pair's own sort): both agree with pandas."""
    rng = np.random.default_rng(41)
    n = 5000
    df = pd.DataFrame({"a": rng.standard_normal(n), "b": rng.standard_normal(n),
                       "t": rng.integers(0, 7, n).astype(float)})
    df["c"] = df["a"] * 0.5 + df["b"]
    df.iloc[rng.random(n) < 0.02, 0] = np.inf - np.inf
    df.iloc[rng.random(n) < 0.02, 3] = np.nan
    got = df.nanstats.corr(method="kendall", nan_policy="omit")
    pd.testing.assert_frame_equal(got, df.corr(method="kendall"), rtol=1e-12)
