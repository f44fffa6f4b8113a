"""Reliability round 3 (issue 25), the pandas window classes: tz-aware time windows,
duplicate column names, ``as_index=False``, ``groupby(k).resample(f)``, integer
windows and ``quantile(interpolation=)``; each against pandas' own result."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import nanaccess as na
from nanaccess.core import _numba as NB

ENGINES = ["numpy"] + (["numba"] if NB.AVAILABLE else [])


def check(ours, theirs, **kw):
    if isinstance(ours, pd.Series):
        pd.testing.assert_series_equal(ours, theirs, **kw)
    else:
        pd.testing.assert_frame_equal(ours, theirs, **kw)


def tz_frame(tz="UTC", n=40, seed=0):
    """Irregular times (duplicates included) in ``tz``, across a DST change."""
    rng = np.random.default_rng(seed)
    steps = rng.choice([0, 30, 45, 90, 600], n).astype("timedelta64[m]")
    t = pd.Timestamp("2024-03-30 20:00") + pd.to_timedelta(np.cumsum(steps))
    idx = pd.DatetimeIndex(t).tz_localize("UTC").tz_convert(tz)
    x = rng.integers(-8, 8, n) / 4
    x[rng.random(n) < 0.2] = np.nan
    return pd.DataFrame({"x": x, "y": rng.integers(0, 5, n) / 2,
                         "k": rng.integers(0, 3, n)}, index=idx)


# ------------------------------------------------------------- 1. tz-aware windows


def test_issue_reproduction_utc_series():
    s = pd.Series([1.0, 2.0, 3.0],
                  index=pd.date_range("2024", periods=3, freq="12h", tz="UTC"))
    got = s.rolling("1D").nanstats.median()
    check(got, s.rolling("1D").median())
    assert got.tolist() == [1.0, 1.5, 2.5]


@pytest.mark.parametrize("tz", ["UTC", "Europe/Paris", "America/New_York"])
@pytest.mark.parametrize("engine", ENGINES)
def test_tz_aware_index_rolling(tz, engine):
    df = tz_frame(tz)[["x", "y"]]
    for stat in ("median", "max", "sum", "mean", "count"):
        for kw in ({}, {"center": True}, {"closed": "both"}):
            ours = getattr(df.rolling("2h", **kw).nanstats, stat)(
                **({} if stat == "count" else {"nan_policy": "omit"}), engine=engine)
            check(ours, getattr(df.rolling("2h", **kw), stat)())


@pytest.mark.parametrize("tz", ["UTC", "Asia/Kolkata"])
def test_tz_aware_on_column_and_groupby(tz):
    df = tz_frame(tz).rename_axis("t").reset_index()
    check(df.rolling("3h", on="t").nanstats.median(nan_policy="omit"),
          df.rolling("3h", on="t").median())
    g = tz_frame(tz).groupby("k")
    check(g.rolling("3h").nanstats.max(nan_policy="omit"), g.rolling("3h").max())
    check(g.rolling("3h").nanstats.mean(nan_policy="omit"), g.rolling("3h").mean())


def test_tz_aware_arrow_on_column():
    pa = pytest.importorskip("pyarrow")
    idx = pd.date_range("2024", periods=5, freq="7h", tz="UTC")
    df = pd.DataFrame({"t": pd.array(idx, dtype=pd.ArrowDtype(pa.timestamp("ns", tz="UTC"))),
                       "v": [1.0, np.nan, 3.0, 4.0, 5.0]})
    got = df.rolling("1D", on="t").nanstats.median(nan_policy="omit")
    assert got["v"].tolist() == [1.0, 1.0, 2.0, 3.0, 4.0]
    assert got["t"].equals(df["t"])


def test_tz_aware_window_is_measured_in_utc_across_dst():
    # 2024-03-31 02:00 Paris does not exist: wall clock jumps an hour, the window not
    idx = pd.DatetimeIndex(["2024-03-31 00:30", "2024-03-31 01:30", "2024-03-31 03:30"],
                           tz="Europe/Paris")
    s = pd.Series([1.0, 2.0, 4.0], index=idx)
    got = s.rolling("1h", closed="both").nanstats.sum()
    check(got, s.rolling("1h", closed="both").sum())
    assert got.tolist() == [1.0, 3.0, 6.0]  # 01:30 and 03:30 are one hour apart


def test_tz_aware_dask_window():
    dd = pytest.importorskip("dask.dataframe")
    import nanaccess.dask  # noqa: F401

    df = tz_frame("Europe/Paris")
    ddf = dd.from_pandas(df, npartitions=3)
    check(ddf.rolling("2h").nanstats.median(nan_policy="omit").compute(),
          df.rolling("2h").nanstats.median(nan_policy="omit"))


# -------------------------------------------------------- 2. duplicate column names


@pytest.mark.parametrize("engine", ENGINES)
def test_duplicate_columns_all_kept(engine):
    df = pd.DataFrame([[1.0, 2.0, 3.0], [4.0, np.nan, 6.0], [7.0, 8.0, 9.0]],
                      columns=["x", "x", "y"])
    check(df.rolling(1).nanstats.median(nan_policy="omit", engine=engine),
          df.rolling(1).median())
    check(df.rolling(2, min_periods=1).nanstats.max(nan_policy="omit", engine=engine),
          df.rolling(2, min_periods=1).max())
    check(df.expanding().nanstats.sum(nan_policy="omit", engine=engine),
          df.expanding().sum())
    got = df.rolling(2, min_periods=1).nanstats.quantile([0.25, 0.5], nan_policy="omit")
    assert list(got.columns) == [("x", 0.25), ("x", 0.5), ("x", 0.25), ("x", 0.5),
                                 ("y", 0.25), ("y", 0.5)]
    assert got[("x", 0.5)].iloc[:, 1].tolist() == [2.0, 2.0, 8.0]


def test_duplicate_columns_groupby_rolling_and_numeric_only():
    df = pd.DataFrame([[1.0, 2.0, 3.0, 1], [4.0, 5.0, 6.0, 1], [7.0, 8.0, 9.0, 2]],
                      columns=["x", "x", "y", "k"])
    g = df.groupby("k")
    check(g.rolling(2, min_periods=1).nanstats.median(), g.rolling(2, min_periods=1).median())
    d2 = pd.DataFrame([[1.0, "a", 3.0]], columns=["x", "s", "x"])
    got = d2.rolling(1).nanstats.max(numeric_only=True)
    assert list(got.columns) == ["x", "x"] and got.iloc[0].tolist() == [1.0, 3.0]


# ------------------------------------------------------------------ 3. as_index=False


def test_as_index_false_labels_as_pandas():
    df = pd.DataFrame({"k": [1, 2, 1, 2, 1], "j": [0, 0, 0, 1, 0],
                       "v": [1.0, 2.0, np.nan, 4.0, 5.0]}, index=list("abcde"))
    for by in ("k", ["k", "j"]):
        g = df.groupby(by, as_index=False)
        check(g.rolling(2, min_periods=1).nanstats.mean(nan_policy="omit"),
              g.rolling(2, min_periods=1).mean())
        # an int column's max stays int64 (pandas: float64)
        check(g.expanding().nanstats.max(nan_policy="omit"), g.expanding().max(),
              check_dtype=False)
    t = df.set_index(pd.date_range("2024", periods=5, freq="h", tz="UTC"))
    g = t.groupby("k", as_index=False)
    check(g.rolling("2h").nanstats.sum(nan_policy="omit"), g.rolling("2h").sum(),
          check_dtype=False)


# ------------------------------------------------------- 4. groupby(k).resample(f)


def resample_frame():
    t = pd.to_datetime(["2024-01-01 00:00", "2024-01-01 01:00", "2024-01-01 05:00",
                        "2024-01-01 03:00", None, "2024-01-01 02:00", "2024-01-01 06:10"])
    return pd.DataFrame({"k": [2, 1, 1, 2, 1, np.nan, 1],
                         "v": [1.0, 2.0, 3.0, np.nan, 5.0, 6.0, 7.0],
                         "w": [1, 2, 3, 4, 5, 6, 7], "t": t})


@pytest.mark.parametrize("sort", [True, False])
def test_groupby_resample_as_pandas(sort):
    df = resample_frame()
    g = df.groupby("k", sort=sort).resample("2h", on="t")
    check(g.nanstats.mean(nan_policy="omit"), g.mean())
    check(g.nanstats.max(nan_policy="omit"), g.max(), check_dtype=False)
    ix = df.dropna(subset=["t"]).set_index("t")
    g = ix.groupby("k", sort=sort)["v"].resample("2h", closed="right", label="right")
    check(g.nanstats.median(nan_policy="omit"), g.median())
    check(g.nanstats.sum(nan_policy="omit"), g.sum())


def test_groupby_resample_tz_and_policy_errors():
    df = resample_frame().dropna(subset=["t"])
    df["t"] = df["t"].dt.tz_localize("Europe/Paris")
    g = df.groupby("k").resample("1h", on="t")
    check(g.nanstats.min(nan_policy="omit"), g.min(), check_dtype=False)
    with pytest.raises(na.NaNError, match="v"):
        g.nanstats.median()  # "raise" names the column


# ------------------------------------------------------------ 5. integer windows


def test_int64_sums_keep_every_digit():
    s = pd.Series(np.array([2**53 + 1, 1, 2**60, -3], np.int64))
    got = s.rolling(2, min_periods=1).nanstats.sum()
    assert got.dtype == np.int64
    assert got.tolist() == [2**53 + 1, 2**53 + 2, 2**60 + 1, 2**60 - 3]
    got = s.expanding().nanstats.sum()
    assert got.dtype == np.int64 and got.iloc[-1] == 2**53 + 2**60 - 1
    # a short window is NaN: float64, as pandas (and as the grouped paths)
    assert s.rolling(2).nanstats.sum().dtype == np.float64


def test_int64_sum_past_int64_is_a_float_as_pandas():
    s = pd.Series(np.array([2**62, 2**62, 3, 1], np.int64))
    got = s.rolling(2).nanstats.sum()
    check(got, s.rolling(2).sum())
    assert got.iloc[1] == float(2**63)
    u = pd.Series(np.array([2**63, 2**63, 1], np.uint64))
    got = u.rolling(2, min_periods=1).nanstats.sum()
    assert got.dtype == np.float64 and got.tolist() == [2.0**63, 2.0**64, 2.0**63 + 1]


@pytest.mark.parametrize("engine", ENGINES)
def test_int_picks_keep_their_values(engine):
    s = pd.Series(np.array([2**53 + 1, 5, 2**62 + 1, -7], np.int64))
    for stat in ("max", "min", "median_low", "median_high"):
        got = getattr(s.rolling(2, min_periods=1).nanstats, stat)(engine=engine)
        want = [getattr(np, "max" if stat in ("max", "median_high") else "min")(
            [int(v) for v in s.iloc[max(0, i - 1):i + 1]]) for i in range(4)]
        assert got.dtype == np.int64 and got.tolist() == want, stat
    got = s.rolling(2, min_periods=1).nanstats.quantile(0.5, method="lower", engine=engine)
    assert got.tolist() == [2**53 + 1, 5, 5, -7]


@pytest.mark.parametrize("engine", ENGINES)
def test_nullable_int_windows(engine):
    s = pd.Series([2**53 + 1, None, 3, 2**62 + 1, None, None], dtype="Int64")
    got = s.rolling(2, min_periods=1).nanstats.max(nan_policy="omit", engine=engine)
    assert got.dtype == "Int64"
    assert got.tolist() == [2**53 + 1, 2**53 + 1, 3, 2**62 + 1, 2**62 + 1, pd.NA]
    got = s.rolling(2, min_periods=1).nanstats.max(nan_policy="propagate", engine=engine)
    assert got.tolist() == [2**53 + 1, pd.NA, pd.NA, 2**62 + 1, pd.NA, pd.NA]
    got = s.expanding().nanstats.sum(nan_policy="omit", engine=engine)
    assert got.dtype == "Int64" and got.iloc[-1] == 2**62 + 2**53 + 5
    got = s.rolling(2).nanstats.sum(nan_policy="omit", engine=engine)
    assert got.tolist() == [pd.NA, pd.NA, pd.NA, 2**62 + 4, pd.NA, pd.NA]
    u = pd.Series([1, None, 2**63 + 5], dtype="UInt64")
    got = u.expanding().nanstats.max(nan_policy="omit", engine=engine)
    assert got.dtype == "UInt64" and got.tolist() == [1, 1, 2**63 + 5]


def test_int_frame_and_groupby_windows():
    df = pd.DataFrame({"k": [1, 1, 2, 2, 1], "a": np.array([2**60, 1, 2, 3, 4], np.int64),
                       "b": pd.array([1, None, 3, 4, 2**61], dtype="Int64")})
    got = df.groupby("k").rolling(2, min_periods=1).nanstats.sum(nan_policy="omit")
    assert got["a"].dtype == np.int64 and got["b"].dtype == "Int64"
    assert got["a"].tolist() == [2**60, 2**60 + 1, 5, 2, 5]
    assert got["b"].tolist() == [1, 1, 2**61, 3, 7]
    mean = df[["a"]].rolling(2, min_periods=1).nanstats.mean()
    assert mean["a"].tolist() == [2.0**60, (2**60 + 1) / 2, 1.5, 2.5, 3.5]


def test_bool_windows_stay_as_pandas():
    s = pd.Series([True, False, True])
    check(s.rolling(2, min_periods=1).nanstats.max(), s.astype(float).rolling(2,
          min_periods=1).max())
    assert s.rolling(2, min_periods=1).nanstats.sum().tolist() == [1, 1, 1]


# --------------------------------------------------- 6. quantile(interpolation=...)


@pytest.mark.parametrize("how", ["lower", "higher", "nearest", "midpoint", "linear"])
def test_rolling_quantile_interpolation(how):
    s = pd.Series([4.0, 1.0, 3.0, 10.0, 7.0, 2.0])
    got = s.rolling(3, min_periods=1).nanstats.quantile(0.4, interpolation=how)
    check(got, s.rolling(3, min_periods=1).quantile(0.4, interpolation=how))
    check(got, s.rolling(3, min_periods=1).nanstats.quantile(0.4, method=how))
    check(s.expanding().nanstats.quantile(0.4, interpolation=how),
          s.expanding().quantile(0.4, interpolation=how))


def test_rolling_quantile_interpolation_conflict():
    s = pd.Series([1.0, 2.0])
    with pytest.raises(ValueError):
        s.rolling(2).nanstats.quantile(0.5, method="higher", interpolation="lower")
