"""``groupby(...).ewm(...).nanstats`` (issue 23): pandas' labels, one pass for all groups."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import nanaccess as na


def _frame(n: int = 400, seed: int = 0, nan: bool = False) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"k": rng.choice(["b", "a", "c"], n), "j": rng.integers(0, 2, n),
                       "v": 1e6 + rng.normal(size=n), "i": rng.integers(-5, 6, n)},
                      index=pd.date_range("2024-03-30", periods=n, freq="h",
                                          tz="Europe/Berlin"))
    if nan:
        df.loc[df.index[rng.random(n) < 0.1], "v"] = np.nan
    return df


@pytest.mark.parametrize("kw", [{"alpha": 0.3}, {"span": 4, "adjust": False},
                                {"com": 2.0, "min_periods": 3}, {"halflife": 5.0}])
@pytest.mark.parametrize("stat", ["mean", "var", "std"])
def test_frame_groupby_matches_pandas(kw, stat):
    df = _frame()
    got = getattr(df.groupby("k").ewm(**kw).nanstats, stat)(nan_policy="raise")
    want = getattr(df.groupby("k").ewm(**kw), stat)()
    pd.testing.assert_frame_equal(got, want, rtol=1e-9)


def test_series_groupby_two_keys_and_selection():
    df = _frame(seed=1)
    got = df.groupby(["k", "j"])["v"].ewm(alpha=0.2).nanstats.mean(nan_policy="raise")
    want = df.groupby(["k", "j"])["v"].ewm(alpha=0.2).mean()
    pd.testing.assert_series_equal(got, want, rtol=1e-12)
    s = df["i"]
    got = s.groupby(df["k"].to_numpy()).ewm(span=3).nanstats.var(nan_policy="raise")
    pd.testing.assert_series_equal(got, s.groupby(df["k"].to_numpy()).ewm(span=3).var(),
                                   rtol=1e-9)


@pytest.mark.parametrize("ignore_na", [True, False])
def test_omit_is_pandas_skipna_per_group(ignore_na):
    df = _frame(seed=2, nan=True)
    got = df.groupby("k").ewm(alpha=0.4, ignore_na=ignore_na).nanstats.std(nan_policy="omit")
    want = df.groupby("k").ewm(alpha=0.4, ignore_na=ignore_na).std()
    pd.testing.assert_frame_equal(got, want, rtol=1e-9)


def test_propagate_stays_in_its_group_and_raise_names_the_group():
    df = pd.DataFrame({"k": [1, 2, 1, 2, 1], "v": [1.0, 2.0, 3.0, 4.0, 5.0]},
                      index=list("pqrst"))
    df.loc["r", "v"] = np.inf - np.inf  # an arithmetic NaN
    before = df.copy()
    got = df.groupby("k").ewm(alpha=0.5).nanstats.mean(nan_policy="propagate")["v"]
    assert np.isnan(got.loc[(1, "r")]) and np.isnan(got.loc[(1, "t")])
    assert got.loc[(2, "s")] == df.groupby("k").ewm(alpha=0.5).mean()["v"].loc[(2, "s")]
    with pytest.raises(na.NaNError, match=r"'r'") as err:
        df.groupby("k").ewm(alpha=0.5).nanstats.mean(nan_policy="raise")
    assert err.value.group == 1
    pd.testing.assert_frame_equal(df, before)


def test_nullable_and_dropped_keys():
    df = pd.DataFrame({"k": [1.0, np.nan, 1.0, 2.0, 2.0],
                       "v": pd.array([1, 2, None, 4, 6], dtype="Int64")})
    got = df.groupby("k").ewm(alpha=0.5).nanstats.mean(nan_policy="omit")
    want = df.astype({"v": "float64"}).groupby("k").ewm(alpha=0.5).mean()
    np.testing.assert_allclose(got["v"].to_numpy(float), want["v"].to_numpy(float))
    assert got.index.equals(want.index)
    prop = df.groupby("k").ewm(alpha=0.5).nanstats.mean(nan_policy="propagate")["v"]
    assert prop.isna().tolist() == [False, True, False, False]


def test_times_per_group():
    t = pd.date_range("2024-01-01", periods=6, freq="D")
    df = pd.DataFrame({"k": [1, 2, 1, 2, 1, 2], "v": [1.0, 2.0, 3.0, 5.0, 8.0, 13.0]})
    got = df.groupby("k").ewm(halflife="2 days", times=t).nanstats.mean(nan_policy="raise")
    want = df.groupby("k").ewm(halflife="2 days", times=t).mean()
    pd.testing.assert_frame_equal(got, want, rtol=1e-12)


@pytest.mark.parametrize("stat", ["mean", "std"])
@pytest.mark.parametrize("index", [
    pd.Index([0, 0, 1, 1, 2, 2, 3]),  # repeated labels
    pd.DatetimeIndex(["2024-03-30 01:00", "2024-03-30 01:00", "2024-03-30 03:00",
                      "2024-03-30 02:00", "2024-03-30 05:00", "2024-03-30 04:00",
                      "2024-03-30 06:00"]).tz_localize("Europe/Berlin"),
])
@pytest.mark.parametrize("ignore_na", [True, False])
def test_repeated_and_tz_aware_row_labels(stat, index, ignore_na):
    """The general label path (rows not unique or keys with NaN): pandas' labels and
    values, with NaNs made by arithmetic (it raised ImportError on repeated labels)."""
    x = np.array([1.0, np.inf, 3.0, 4.0, 5.0, 2.0, -7.5])
    x[1] = x[1] - x[1]  # inf - inf: a NaN made by arithmetic (negative on x86)
    df = pd.DataFrame({"g": [1, 1, 2, 2, 1, 2, 1], "x": x}, index=index)
    ewm = df.groupby("g")["x"].ewm(alpha=0.5, ignore_na=ignore_na)
    got = getattr(ewm.nanstats, stat)(nan_policy="omit")
    want = getattr(ewm, stat)()
    pd.testing.assert_series_equal(got, want, check_exact=False, rtol=1e-13)
