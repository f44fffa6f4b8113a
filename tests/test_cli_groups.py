"""``describe --groupby``: one accessor call per (policy, statistic) over all groups,
equal cell by cell to each group described alone; refusals computed once per group."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import nanaccess as na
from nanaccess.cli import main
from nanaccess.cli import stats as _cli_stats

POLICIES = ["raise", "propagate", "omit", "smallest", "largest", "totalorder"]
STATS = ["count", "mean", "std", "min", "median", "max", "q25"]


def alone(values: np.ndarray, mask: np.ndarray, stat: str, policy: str) -> tuple[object, str]:
    """(value or None, text or error class) of one group described on its own."""
    s = pd.Series(pd.arrays.FloatingArray(values, mask)) if mask.any() else pd.Series(values)
    try:
        if stat == "count":
            return int(na.nan_report(s)["numbers"]), ""
        if stat == "q25":
            v = na.quantile(s, 0.25, nan_policy=policy)
        else:
            v = getattr(na, stat)(s, nan_policy=policy, **({"ddof": 1} if stat == "std" else {}))
    except na.NaNError as err:
        return None, type(err).__name__
    if v is pd.NA:
        return None, "<NA>"
    v = float(v)
    return (None, "nan") if math.isnan(v) else (v, "")


def test_grouped_equals_each_group_alone(tmp_path: Path, capsys: pytest.CaptureFixture,
                                         monkeypatch: pytest.MonkeyPatch):
    rng = np.random.default_rng(7)
    n = 300
    g = rng.integers(0, 12, n)
    x = rng.standard_normal(n)
    x[rng.integers(0, n, 6)] = np.nan
    missing = np.zeros(n, bool)
    missing[rng.integers(0, n, 5)] = True
    text = np.array([repr(float(v)) for v in x], dtype=object)
    text[missing] = "NA"
    text[np.isnan(x) & ~missing] = "nan"
    path = tmp_path / "g.csv"
    pd.DataFrame({"g": g, "x": text}).to_csv(path, index=False)

    calls = []
    original = _cli_stats._compute
    monkeypatch.setattr(_cli_stats, "_compute",
                        lambda *a, **k: calls.append(a[2]) or original(*a, **k))
    code = main(["describe", str(path), "--groupby", "g", "--format", "json",
                 "--stats", ",".join(STATS)])
    out, err = capsys.readouterr()
    assert code == 0, err
    doc = json.loads(out)
    values = np.where(missing | np.isnan(x), np.where(missing, 0.0, np.nan), x)
    checked = 0
    for rec in doc["statistics"]:
        sel = g == rec["g"]
        want_value, want_text = alone(values[sel], missing[sel], rec["statistic"],
                                      rec["policy"])
        if want_text in ("NaNError", "SignalingNaNError"):
            assert rec["error"].startswith(f"{want_text}: column 'x' in group {rec['g']}")
        else:
            assert rec["error"] is None, rec
            assert rec["value"] == want_value, (rec, want_value)
            if want_text:
                assert rec["text"] == want_text
        checked += 1
    assert checked == 12 * len(POLICIES) * len(STATS)
    # only refusing groups are computed on their own, once per (group, policy)
    bad = {k for k in range(12) if (missing[g == k] | np.isnan(x[g == k])).any()}
    assert calls == ["raise"] * len(bad)
    counts = {(r["g"], r["statistic"]): r["value"] for r in doc["group_counts"]}
    for k in range(12):
        sel = g == k
        assert counts[(k, "n_missing")] == missing[sel].sum()
        assert counts[(k, "n_nan")] == (np.isnan(x[sel]) & ~missing[sel]).sum()
