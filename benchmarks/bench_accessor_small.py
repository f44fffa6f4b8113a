"""The pandas accessors on small data (issue 14, the Series small-data path).

Rows (same-run ratios against pandas' own method on the same object):

* ``s.nanstats.median()`` of a float64 Series, n = 10, 1000, 1e5: target <= 1.5x
  ``Series.median()`` at n = 1000;
* the neighbours, reported without a target: int64 and nullable ``Float64`` Series,
  a float64 Series with 10% NaN under "omit" (median at n = 100, 1000, 4000; std,
  mean), a 1000x3 float64 DataFrame, ``mean``, ``std``;
* issue 30's small labelled calls: ``s.nanstats.median(nan_policy="omit")`` of a
  float64 Series with one NaN, 1 % and 10 % NaN (at least one), n = 10, 100, 1000,
  target <= 1.2x ``Series.median()``; ``mean`` / ``std`` with one NaN and nullable
  ``Int64`` / ``Float64`` with one NA (median, mean), target <= 1.2x pandas' own
  method; its neighbours without a target: float32, int64 and nullable ``Float64``,
  0 NaN;
* grouped median of 1e3 and 1e4 rows (10, 100 and n/10 groups, 1 % NaN, "omit"),
  target <= 1.2x ``DataFrameGroupBy.median()`` (the GroupBy is built inside each
  call, as a user's one-liner does).

Issue 30's rows report the least of at least 7 interleaved samples (min: a small
call's noise is only ever added time); the older rows the median.

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
    for n in (100, 4000):  # the median "omit" lane's neighbours (beyond the sorted copy too)
        y = rng.normal(size=n)
        y[::10] = np.nan
        out.append(("Series float64 10% NaN median", n, pd.Series(y), "median", "omit", {},
                    None))
    out += _small_nan_cases(rng)
    return out


def _small_nan_cases(rng: np.random.Generator) -> list:
    """Issue 30: a small Series with one NaN, 1 % and 10 % NaN (the targets) and its
    neighbours."""
    out = []
    for n in (10, 100, 1000):
        seen = set()
        for dtype, nans in (("float64", 1), ("float64", max(1, n // 100)),
                            ("float64", max(1, n // 10)), ("float64", 0), ("float32", 1),
                            ("Float64", 1), ("int64", 0)):
            if (dtype, nans) in seen:
                continue
            seen.add((dtype, nans))
            y = rng.normal(size=n) if dtype != "int64" else rng.integers(0, 100, n)
            s = pd.Series(y, dtype=dtype)
            if nans:
                s.iloc[rng.choice(n, nans, replace=False)] = np.nan
            target = 1.2 if dtype == "float64" and nans else None
            out.append((f"Series {dtype} {nans} NaN median", n, s, "median", "omit", {},
                        target))
        y = rng.normal(size=n)
        y[n // 3] = np.nan
        for stat, kw in (("mean", {}), ("std", {"ddof": 1})):
            out.append((f"Series float64 1 NaN {stat}", n, pd.Series(y), stat, "omit", kw,
                        1.2))
    for dtype in ("Int64", "Float64"):  # nullable with one NA, n = 1000
        s = pd.Series(rng.integers(0, 100, 1000), dtype=dtype)
        s.iloc[17] = pd.NA
        for stat in ("median", "mean"):
            out.append((f"Series {dtype} 1 NA {stat}", 1000, s, stat, "omit", {}, 1.2))
    return out


def _grouped_cases(rng: np.random.Generator) -> list:
    """Issue 30: grouped median of 1e3 / 1e4 rows against pandas' GroupBy.median."""
    out = []
    for n in (1000, 10_000):
        for groups in (10, 100, n // 10):
            df = pd.DataFrame({"k": rng.integers(0, groups, n), "x": rng.normal(size=n)})
            df.loc[rng.choice(n, n // 100, replace=False), "x"] = np.nan
            out.append((f"grouped median {groups} groups", n, df))
    return out


def run(*, repeats: int = 5, out_dir: Path | str | None = None, write: bool = True,
        name: str = "accessor_small") -> list[dict[str, Any]]:
    """Time the accessor cases; return rows and write ``<name>.json`` / ``.md``."""
    rows: list[dict[str, Any]] = []
    cases = _cases(np.random.default_rng(5))
    n_old = len(cases) - len(_small_nan_cases(np.random.default_rng(5)))
    for i, (case, n, obj, stat, policy, kw, target) in enumerate(cases):
        ours = getattr(obj.nanstats, stat)
        theirs = getattr(obj, stat)
        issue30 = i >= n_old
        t = time_interleaved({"na": lambda f=ours, p=policy, k=kw: f(nan_policy=p, **k),
                              "ref": lambda f=theirs, k=kw: f(**k)},
                             repeats=max(repeats, 7) if issue30 else repeats,
                             stat="min" if issue30 else "median")
        nan_pct = 100.0 * float(obj.isna().mean()) if isinstance(obj, pd.Series) else 0.0
        rows.append(make_row(case, n, policy, t["na"], f"pandas .{stat}()", t["ref"],
                             target=target, nan_pct=round(nan_pct, 2)))
        log(f"accessor {case} n={n}: {t['na'] / t['ref']:.2f}x pandas")
    for case, n, df in _grouped_cases(np.random.default_rng(6)):
        t = time_interleaved(
            {"na": lambda d=df: d.groupby("k").nanstats.median(nan_policy="omit"),
             "ref": lambda d=df: d.groupby("k").median()}, repeats=max(repeats, 7),
            stat="min")
        rows.append(make_row(case, n, "omit", t["na"], "pandas GroupBy.median()", t["ref"],
                             target=1.2, nan_pct=1.0))
        log(f"accessor {case} n={n}: {t['na'] / t['ref']:.2f}x pandas")
    if write:
        from common import write_results

        write_results(name, rows, out_dir)
    return rows


if __name__ == "__main__":
    run()
