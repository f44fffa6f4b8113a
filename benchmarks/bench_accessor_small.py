"""The pandas accessors on small data (issue 14, the Series small-data path).

Rows (same-run ratios against pandas' own method on the same object):

* ``s.nanstats.median()`` of a float64 Series, n = 10, 1000, 1e5: target <= 1.5x
  ``Series.median()`` at n = 1000;
* the neighbours, reported without a target: int64 and nullable ``Float64`` Series,
  a float64 Series with 10% NaN under "omit" (median at n = 100, 1000, 4000; std,
  mean), a 1000x3 float64 DataFrame, ``mean``, ``std``;
* issue 30's small labelled calls: ``s.nanstats.median(nan_policy="omit")`` of a
  float64 Series with one NaN, n = 10, 100, 1000, target <= 1.2x ``Series.median()``;
  its neighbours without a target: float32, int64 and nullable ``Float64``, and 0 or
  10 NaN;
* grouped median of 1e3 and 1e4 rows (100 and 1000 groups, 2% NaN, "omit"), target
  <= 1.2x ``DataFrameGroupBy.median()`` (the GroupBy is built inside each call, as a
  user's one-liner does).

Run alone: ``python benchmarks/bench_accessor_small.py``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from common import log, make_row, time_interleaved

import nanaccess  # noqa: F401  (registers .nanstats)

__all__ = ["run"]


def _cases(rng: np.random.Generator) -> list[tuple[str, int, Any, str, str, dict, float | None]]:
    x = rng.normal(size=1000)
    nan = x.copy()
    nan[::10] = np.nan
    out: list[tuple[str, int, Any, str, str, dict, float | None]] = []
    for n in (10, 1000, 100_000):
        out.append(("Series float64 median", n, pd.Series(rng.normal(size=n)), "median",
                    "raise", {}, 1.5 if n == 1000 else None))
    out += [
        ("Series int64 median", 1000, pd.Series(rng.integers(0, 100, 1000)), "median",
         "raise", {}, None),
        ("Series Float64 median", 1000, pd.Series(x, dtype="Float64"), "median", "raise",
         {}, None),
        ("Series float64 10% NaN median", 1000, pd.Series(nan), "median", "omit", {}, None),
        ("DataFrame 1000x3 float64 median", 1000,
         pd.DataFrame(rng.normal(size=(1000, 3)), columns=list("abc")), "median", "raise",
         {}, None),
        ("Series float64 mean", 1000, pd.Series(x), "mean", "raise", {}, None),
        ("Series float64 std", 1000, pd.Series(x), "std", "raise", {"ddof": 1}, None),
        ("Series float64 10% NaN std", 1000, pd.Series(nan), "std", "omit", {"ddof": 1},
         None),
        ("Series float64 10% NaN mean", 1000, pd.Series(nan), "mean", "omit", {}, None),
    ]
    for n in (100, 4000):  # the median "omit" lane's neighbours (one partition reused)
        y = rng.normal(size=n)
        y[::10] = np.nan
        out.append(("Series float64 10% NaN median", n, pd.Series(y), "median", "omit", {},
                    None))
    out += _small_nan_cases(rng)
    return out


def _small_nan_cases(rng: np.random.Generator) -> list:
    """Issue 30: a small Series with one NaN (the target) and its neighbours."""
    out = []
    for n in (10, 100, 1000):
        for dtype, nans in (("float64", 1), ("float64", 0), ("float64", 10),
                            ("float32", 1), ("Float64", 1), ("int64", 0)):
            if nans > n // 2:
                continue
            y = rng.normal(size=n) if dtype != "int64" else rng.integers(0, 100, n)
            s = pd.Series(y, dtype=dtype)
            if nans:
                s.iloc[rng.choice(n, nans, replace=False)] = np.nan
            target = 1.2 if (dtype, nans) == ("float64", 1) else None
            out.append((f"Series {dtype} {nans} NaN median", n, s, "median", "omit", {},
                        target))
    return out


def _grouped_cases(rng: np.random.Generator) -> list:
    """Issue 30: grouped median of 1e3 / 1e4 rows against pandas' GroupBy.median."""
    out = []
    for n in (1000, 10_000):
        df = pd.DataFrame({"k": rng.integers(0, n // 10, n), "x": rng.normal(size=n)})
        df.loc[::50, "x"] = np.nan
        out.append((f"grouped median {n // 10} groups", n, df))
    return out


def run(*, repeats: int = 5, out_dir: Path | str | None = None, write: bool = True,
        name: str = "accessor_small") -> list[dict[str, Any]]:
    """Time the accessor cases; return rows and write ``<name>.json`` / ``.md``."""
    rows: list[dict[str, Any]] = []
    for case, n, obj, stat, policy, kw, target in _cases(np.random.default_rng(5)):
        ours = getattr(obj.nanstats, stat)
        theirs = getattr(obj, stat)
        t = time_interleaved({"na": lambda f=ours, p=policy, k=kw: f(nan_policy=p, **k),
                              "ref": lambda f=theirs, k=kw: f(**k)}, repeats=repeats)
        rows.append(make_row(case, n, policy, t["na"], f"pandas .{stat}()", t["ref"],
                             target=target))
        log(f"accessor {case} n={n}: {t['na'] / t['ref']:.2f}x pandas")
    for case, n, df in _grouped_cases(np.random.default_rng(6)):
        t = time_interleaved(
            {"na": lambda d=df: d.groupby("k").nanstats.median(nan_policy="omit"),
             "ref": lambda d=df: d.groupby("k").median()}, repeats=repeats)
        rows.append(make_row(case, n, "omit", t["na"], "pandas GroupBy.median()", t["ref"],
                             target=1.2, nan_pct=2.0))
        log(f"accessor {case} n={n}: {t['na'] / t['ref']:.2f}x pandas")
    if write:
        from common import write_results

        write_results(name, rows, out_dir)
    return rows


if __name__ == "__main__":
    run()
