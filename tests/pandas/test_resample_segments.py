"""Resample bins take the window engine's per-segment selection
(``pandas/groupby.resample_bounds``): every result equals the grouped engine's, bit
for bit, and errors are the grouped engine's (naming the bin)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import nanaccess  # noqa: F401
from nanaccess.errors import NaNError
from nanaccess.pandas import groupby as pgb

POLICIES = ["omit", "propagate", "smallest", "largest", "totalorder"]
CASES = [("median", {}), ("median_low", {}), ("median_high", {}), ("min", {}), ("max", {}),
         ("quantile", {"q": 0.9}), ("quantile", {"q": [0.1, 0.5], "method": "nearest"}),
         ("quantile", {"q": 0.3, "method": "midpoint"})]


def _frame(seed: int, dtype: str = "float64") -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    n = 3_000
    idx = pd.date_range("2024-01-01", periods=n, freq="7min")
    a = rng.standard_normal(n).astype(dtype)
    a[rng.random(n) < 0.05] = np.nan
    a[5] = -np.nan  # a negative NaN: its bits must come through "propagate"/"totalorder"
    a[1000:1300] = np.nan  # a bin (or more) of NaN only
    b = rng.integers(-5, 5, n).astype(dtype)
    b[2000:2400] = np.nan
    return pd.DataFrame({"a": a, "b": b}, index=idx)


def _both(obj, stat, policy, params, monkeypatch):
    fast = getattr(obj.resample("1D").nanstats, stat)(nan_policy=policy, **params)
    with monkeypatch.context() as m:
        m.setattr(pgb, "resample_bounds", lambda *a: None)
        slow = getattr(obj.resample("1D").nanstats, stat)(nan_policy=policy, **params)
    return fast, slow


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("stat,params", CASES)
def test_segment_path_equals_grouped_engine(stat, params, policy, dtype, monkeypatch):
    df = _frame(7, dtype)
    answered = []
    real = pgb.segment_reduce
    monkeypatch.setattr(pgb, "segment_reduce",
                        lambda *a: answered.append(real(*a)) or answered[-1])
    for obj in (df, df["a"]):
        fast, slow = _both(obj, stat, policy, params, monkeypatch)
        assert fast.shape == slow.shape and fast.index.equals(slow.index)
        fv = np.asarray(fast, dtype=dtype)
        sv = np.asarray(slow, dtype=dtype)
        assert fv.tobytes() == sv.tobytes()  # bit for bit (NaN payloads and signs too)
    assert answered and all(r is not None for r in answered)  # the segment path answered


def test_raise_names_the_bin_as_the_grouped_engine():
    s = _frame(3)["a"]
    with pytest.raises(NaNError) as err:
        s.resample("1D").nanstats.median(nan_policy="raise")
    assert "2024-01-01" in str(err.value)


def test_unsorted_rows_take_the_grouped_engine():
    s = _frame(4)["a"].sample(frac=1.0, random_state=0)
    got = s.resample("1D").nanstats.median(nan_policy="omit")
    assert np.allclose(got, s.sort_index().resample("1D").median(), equal_nan=True)
