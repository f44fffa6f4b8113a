"""The window matrix: every windowed statistic of the table x the input kinds that
broke windows (issue 25) x the pandas window kinds.

Input kinds: tz-aware and irregular time indexes (repeated times), duplicate index
labels, NaNs made by arithmetic (negative on x86) and ``np.nan``, float32, int64
near 2**62, nullable Int64 with ``pd.NA``, a DataFrame with duplicate column names.
Window kinds: ``rolling(3)``, ``rolling("2h")``, ``expanding()`` and
``groupby(k).rolling(2)``. The contract checked in every cell: each window's value
is exactly the plain statistic (``Series.nanstats``) of that window's values under
the same policy (the window's rows read from pandas' own window), an integer pick or
sum keeps its integer, and the input is left untouched.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import nanaccess  # noqa: F401  (registers the accessors)
from nanaccess import _stats
from nanaccess.core import _numba as NB

STATS = [s for s in _stats.WINDOWED if s != "count"]  # count takes no policy
PARAMS = {"quantile": {"q": 0.3}, "var": {"ddof": 1}, "iqr": {}, "mad": {}}
POLICIES = ["omit", "propagate", "totalorder"]
N = 14
ENGINES = ["numpy"] + (["numba"] if NB.AVAILABLE else [])


def _times(tz=None):
    rng = np.random.default_rng(4)
    steps = rng.choice([0, 20, 50, 70], N).astype("timedelta64[m]")  # repeated times
    t = pd.DatetimeIndex(pd.Timestamp("2024-10-26 23:00") + pd.to_timedelta(np.cumsum(steps)))
    return t.tz_localize("UTC").tz_convert(tz) if tz else t


def _floats(dtype=np.float64):
    rng = np.random.default_rng(5)
    x = (rng.integers(-12, 12, N) / 4).astype(dtype)
    with np.errstate(invalid="ignore"):
        x[[2, 9]] = np.array([np.inf, np.inf], dtype) - np.array([np.inf, np.inf], dtype)
    x[5] = np.nan
    return x


KINDS = {
    "tz-aware float64": lambda: pd.Series(_floats(), index=_times("Europe/London")),
    "irregular float32": lambda: pd.Series(_floats(np.float32), index=_times()),
    "duplicate labels int64": lambda: pd.Series(
        np.random.default_rng(6).choice(np.array([2**62, -(2**62), 2**53 + 1, 3]), N),
        index=pd.DatetimeIndex(np.repeat(_times()[::2], 2))),
    "nullable Int64": lambda: pd.Series(pd.array(
        [2**53 + 1, None, 7, -3, None, None, 2**60, 1, 1, None, 5, 2, 2, 9], "Int64"),
        index=_times("UTC")),
}
WINDOWS = {
    "rolling(3)": lambda s: s.rolling(3, min_periods=1),
    "rolling('2h')": lambda s: s.rolling("2h"),
    "expanding()": lambda s: s.expanding(),
}


def _rows(s: pd.Series, window: str) -> list[np.ndarray]:
    """Each window's row positions, read from pandas' own window over the positions."""
    pos = pd.Series(np.arange(len(s), dtype=float), index=s.index)
    w = WINDOWS[window](pos)
    first = w.apply(lambda v: v[0], raw=True).astype(int)
    last = w.apply(lambda v: v[-1], raw=True).astype(int)
    return [np.arange(a, b + 1) for a, b in zip(first, last, strict=True)]


def _same(got, want) -> bool:
    if pd.isna(want):
        if not pd.isna(got):
            return False
        if want is pd.NA or got is pd.NA:
            return got is want
        return np.asarray(got).tobytes()[-2:] == np.asarray(want, np.asarray(
            got).dtype).tobytes()[-2:]  # the NaN's sign and quiet bits
    if pd.isna(got):
        return False
    if isinstance(want, (int, np.integer)) and not isinstance(want, bool):
        if isinstance(got, (float, np.floating)):  # a column past int64: rounded once
            return float(got) == float(int(want))
        return int(got) == int(want)
    return np.asarray(got).tobytes() == np.asarray(want, np.asarray(got).dtype).tobytes()


def _plain(s: pd.Series, rows: np.ndarray, stat: str, policy: str):
    """The plain statistic of the window's rows; a window left with no value by the
    policy (min_periods is 1 here) is the empty fill."""
    part = s.iloc[rows]
    if policy == "omit" and not part.notna().any():
        return pd.NA if isinstance(s.dtype, pd.api.extensions.ExtensionDtype) else \
            np.float64("nan")
    try:
        return getattr(part.nanstats, stat)(nan_policy=policy, **PARAMS.get(stat, {}))
    except OverflowError:  # the plain int sum refuses; a window sum is a float then
        return float(sum(int(v) for v in part))


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("window", list(WINDOWS))
@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize("stat", STATS)
def test_window_cell(kind, window, stat, engine):
    s = KINDS[kind]()
    before = s.copy()
    rows = _rows(s, window)
    for policy in POLICIES:
        got = getattr(WINDOWS[window](s).nanstats, stat)(nan_policy=policy, engine=engine,
                                                         **PARAMS.get(stat, {}))
        pd.testing.assert_index_equal(got.index, s.index)
        for i, r in enumerate(rows):
            want = _plain(s, r, stat, policy)
            assert _same(got.iloc[i], want), (kind, window, stat, policy, i, got.iloc[i],
                                              want)
        if s.dtype.kind == "i" and stat in ("min", "max", "median_low", "median_high",
                                            "sum") and not (stat == "sum" and (
                                                got.dtype.kind == "f")):
            assert got.dtype == s.dtype, (kind, window, stat)  # int64 or Int64
    pd.testing.assert_series_equal(s, before)


@pytest.mark.parametrize("stat", STATS)
def test_groupby_rolling_and_duplicate_columns_cell(stat):
    base = KINDS["tz-aware float64"]()
    ints = KINDS["nullable Int64"]()
    df = pd.DataFrame({"a": base.to_numpy(), "b": ints.to_numpy(dtype=object)},
                      index=base.index).astype({"b": "Int64"})
    df.columns = ["v", "v"]  # duplicate names: both columns kept, in order
    keys = np.resize([0, 1, 1], N)
    for policy in POLICIES:
        kw = {"nan_policy": policy, **PARAMS.get(stat, {})}
        got = getattr(df.groupby(keys).rolling(2, min_periods=1).nanstats, stat)(**kw)
        assert list(got.columns) == ["v", "v"]
        for c in range(2):
            col = df.iloc[:, c]
            for g in (0, 1):
                part = col[keys == g]
                want = getattr(part.rolling(2, min_periods=1).nanstats, stat)(**kw)
                have = got.iloc[:, c].xs(g, level=0)
                assert len(have) == len(want)
                assert all(_same(a, b) for a, b in zip(have, want, strict=True)), (
                    stat, policy, c, g)
