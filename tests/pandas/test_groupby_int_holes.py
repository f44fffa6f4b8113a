"""Int columns near 2**63 with a group that has no value, against pandas' own answers.

The grouped core keeps int picks exact and marks the groups with no value (holes);
the pandas adapter turns them into pandas' convention in one place
(:func:`nanaccess.pandas.groupby.host_values`): a NumPy int64 column becomes float64
with NaN there (pandas rounds the ints to float64 the same way), a nullable or Arrow
integer column keeps its exact ints with ``<NA>``, in one grouped pass per column.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import nanaccess  # noqa: F401
import nanaccess.pandas.groupby as pgb

BIG = 2**63 - 1000
DTYPES = ["int64", "Int64", "int64[pyarrow]"]


def _values(seed: int, n: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = (BIG - rng.integers(0, 300, n)).astype(np.int64)
    x[rng.random(n) < 0.2] = 7
    return x


def _frame(dtype: str, seed: int = 0, n: int = 60) -> pd.DataFrame:
    """Keys of a categorical with the unobserved category "b"."""
    if dtype.endswith("[pyarrow]"):
        pytest.importorskip("pyarrow")
    rng = np.random.default_rng(seed)
    k = pd.Categorical(rng.choice(["a", "c", "d"], n), categories=["a", "b", "c", "d"])
    return pd.DataFrame({"k": k, "x": pd.array(_values(seed, n), dtype=dtype),
                         "y": pd.array(_values(seed + 1, n), dtype=dtype)})


def _exact(s: pd.Series) -> list:
    return [None if v is pd.NA else v for v in s.tolist()]


@pytest.mark.parametrize("stat", ["max", "min"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_unobserved_category_as_pandas(dtype, stat):
    df = _frame(dtype)
    gb = df.groupby("k", observed=False)
    want = getattr(gb, stat)()
    got = getattr(gb.nanstats, stat)(nan_policy="omit")
    pd.testing.assert_frame_equal(got, want)
    if dtype != "int64":  # the host keeps ints exact: so are ours, above 2**53
        exact = _exact(got["x"])
        assert exact == _exact(want["x"]) and None in exact
        assert stat == "min" or max(v for v in exact if v is not None) > 2**53


@pytest.mark.parametrize("dtype", DTYPES)
def test_empty_resample_bin_as_pandas(dtype):
    if dtype.endswith("[pyarrow]"):
        pytest.importorskip("pyarrow")
    t = pd.DatetimeIndex(np.array(["2024-01-01T00", "2024-01-01T12", "2024-01-03T00",
                                   "2024-01-03T01", "2024-01-04T05"], "M8[ns]"))
    s = pd.Series(pd.array(_values(3, 5), dtype=dtype), index=t)
    for stat in ("max", "min"):
        want = getattr(s.resample("D"), stat)()
        got = getattr(s.resample("D").nanstats, stat)(nan_policy="omit")
        pd.testing.assert_series_equal(got, want)


@pytest.mark.parametrize("stat,kw,rank", [
    ("median_low", {}, lambda n: (n - 1) // 2),
    ("median_high", {}, lambda n: n // 2),
    ("quantile", {"q": 0.7, "method": "lower"}, lambda n: int(np.floor(0.7 * (n - 1)))),
    ("quantile", {"q": 0.7, "method": "nearest"}, None),
])
@pytest.mark.parametrize("dtype", DTYPES)
def test_other_picks_exact_or_as_numpy_hosts(dtype, stat, kw, rank):
    """Picks pandas has no exact form of (its quantile interpolates in float64):
    against each group's sorted Python ints (np.quantile's pick for "nearest")."""
    df = _frame(dtype, seed=4)
    got = getattr(df.groupby("k", observed=False).nanstats, stat)(nan_policy="omit", **kw)
    for cat, vals in ((c, df.loc[df["k"] == c, "x"]) for c in ["a", "b", "c", "d"]):
        ints = sorted(int(v) for v in vals)
        if not ints:
            want = None
        elif rank is None:
            want = int(np.quantile(np.array(ints, dtype=object), kw["q"], method="nearest"))
        else:
            want = ints[rank(len(ints))]
        value = got.loc[cat, "x"]
        if dtype == "int64":  # NumPy host: float64, NaN for the empty group
            assert got["x"].dtype == np.float64
            assert (np.isnan(value) if want is None else value == float(want))
        else:
            assert got["x"].dtype == df["x"].dtype
            assert (value is pd.NA) if want is None else int(value) == want


def test_missing_values_only_group_is_na(monkeypatch):
    """A group of missing values only: <NA>, the others exact; one grouped pass per
    column (no second reduction to rebuild the ints)."""
    df = _frame("Int64", seed=5)
    df.loc[df["k"] == "c", "x"] = pd.NA
    calls = []
    real = pgb.grouped_reduce
    monkeypatch.setattr(pgb, "grouped_reduce", lambda *a, **k: calls.append(1) or real(*a, **k))
    for policy in ("omit", "propagate"):
        calls.clear()
        got = df.groupby("k", observed=False).nanstats.max(nan_policy=policy)
        assert len(calls) == 2  # x and y
        want = df.groupby("k", observed=False).max(skipna=policy == "omit")
        pd.testing.assert_frame_equal(got, want)


def test_describe_and_agg_unchanged():
    df = _frame("Int64", seed=6)
    gb = df.groupby("k", observed=False)
    d = gb.nanstats.describe()
    assert np.isnan(d.loc["b", ("x", "max")])
    assert d.loc["a", ("x", "max")] == float(gb.max().loc["a", "x"])
    got = gb.nanstats.agg(["max", "min"])
    pd.testing.assert_series_equal(got[("x", "max")], gb.max()["x"], check_names=False)
