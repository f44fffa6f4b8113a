"""Covariance and correlation (issue 24): same-run ratios against pandas.

Rows (targets of the issue at full size; ``scale`` shrinks every case for quick runs):

* ``df.nanstats.corr()`` / ``cov()`` of an ``n x 8`` float64 frame with 1 % NaN at
  random under "omit": target <= 2.0x ``df.corr()`` / ``df.cov()`` at n = 1e6;
* Spearman (target <= 1.0x pandas) and Kendall on ``n x 4`` (<= 0.5x pandas at 1e5);
* ``df.groupby(k).nanstats.corr()``, 1e3 groups, 4 columns (target <= 1.5x pandas);
* ``s.rolling(100).nanstats.corr(other)`` (target <= 2x pandas at 1e6), and for
  reference rolling(100) cov, rolling(10) / rolling(1000) corr and expanding corr.

Run alone: ``python benchmarks/bench_corr.py [scale]`` (default scale 0.01: n = 1e4 for
the matrices; 1.0 is the issue's size).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from common import log, make_row, time_interleaved

import nanaccess  # noqa: F401  (registers .nanstats)

__all__ = ["run"]


def _frame(rng: np.random.Generator, n: int, k: int) -> pd.DataFrame:
    a = rng.standard_normal((n, k))
    a[rng.random((n, k)) < 0.01] = np.nan
    return pd.DataFrame(a, columns=[f"c{i}" for i in range(k)])


def _cases(rng: np.random.Generator, scale: float
           ) -> list[tuple[str, int, Any, Any, float | None]]:
    n = max(int(1e6 * scale), 1000)
    nk = max(int(1e5 * scale), 1000)
    df8 = _frame(rng, n, 8)
    df4 = _frame(rng, nk, 4)
    ng = max(int(1e3 * min(scale * 10, 1)), 10)
    dfg = _frame(rng, max(int(1e6 * scale), 20 * ng), 4)
    dfg["g"] = rng.integers(0, ng, len(dfg))
    gb = dfg.groupby("g")
    s1, s2 = df8["c0"], df8["c1"]
    return [
        ("pearson matrix n x 8", n, lambda: df8.nanstats.corr(nan_policy="omit"),
         lambda: df8.corr(), 2.0),
        ("cov matrix n x 8", n, lambda: df8.nanstats.cov(nan_policy="omit"),
         lambda: df8.cov(), 2.0),
        ("spearman matrix n x 4", nk,
         lambda: df4.nanstats.corr(method="spearman", nan_policy="omit"),
         lambda: df4.corr(method="spearman"), 1.0),
        ("kendall matrix n x 4", nk,
         lambda: df4.nanstats.corr(method="kendall", nan_policy="omit"),
         lambda: df4.corr(method="kendall"), 0.5),
        (f"grouped pearson ({ng} groups) n x 4", len(dfg),
         lambda: gb.nanstats.corr(nan_policy="omit"), lambda: gb.corr(), 1.5),
        ("rolling(100) corr", n,
         lambda: s1.rolling(100).nanstats.corr(s2, nan_policy="omit"),
         lambda: s1.rolling(100).corr(s2), 2.0),
        ("rolling(100) cov", n,
         lambda: s1.rolling(100).nanstats.cov(s2, nan_policy="omit"),
         lambda: s1.rolling(100).cov(s2), None),
        ("rolling(10) corr", n,
         lambda: s1.rolling(10).nanstats.corr(s2, nan_policy="omit"),
         lambda: s1.rolling(10).corr(s2), None),
        ("rolling(1000) corr", n,
         lambda: s1.rolling(1000).nanstats.corr(s2, nan_policy="omit"),
         lambda: s1.rolling(1000).corr(s2), None),
        ("expanding corr", n,
         lambda: s1.expanding().nanstats.corr(s2, nan_policy="omit"),
         lambda: s1.expanding().corr(s2), None),
    ]


def run(*, scale: float = 0.01, repeats: int = 3, out_dir: Path | str | None = None,
        write: bool = True, name: str = "corr") -> list[dict[str, Any]]:
    """Time the cases; return rows and write ``<name>.json`` / ``.md``."""
    rows: list[dict[str, Any]] = []
    for case, n, ours, theirs, target in _cases(np.random.default_rng(24), scale):
        t = time_interleaved({"na": ours, "ref": theirs}, repeats=repeats)
        rows.append(make_row(case, n, "omit", t["na"], "pandas", t["ref"], nan_pct=1.0,
                             target=target if scale == 1.0 else None))
        log(f"corr {case} n={n}: {t['na'] / t['ref']:.2f}x pandas")
    if write:
        from common import write_results

        write_results(name, rows, out_dir)
    return rows


def run_min(*, scale: float = 1.0, repeats: int = 7, only: tuple[str, ...] = ()
            ) -> list[tuple[str, float, float]]:
    """Min of ``repeats`` interleaved calls per side (nanaccess, then pandas, each
    repeat), printed with the load (``uptime``) before and after: the numbers the issue's
    targets are judged on. ``only``: substrings of the cases to run."""
    import os
    import time

    def load() -> str:
        return os.getloadavg().__repr__()

    log(f"load before {load()}")
    out = []
    for case, _n, ours, theirs, target in _cases(np.random.default_rng(24), scale):
        if only and not any(o in case for o in only):
            continue
        ours()
        theirs()
        a, b = [], []
        for _ in range(repeats):
            for fn, acc in ((ours, a), (theirs, b)):
                t0 = time.perf_counter()
                fn()
                acc.append(time.perf_counter() - t0)
        out.append((case, min(a), min(b)))
        log(f"corr {case}: nanaccess {min(a):.4f} s, pandas {min(b):.4f} s, "
            f"{min(a) / min(b):.2f}x (target {target})")
    log(f"load after {load()}")
    return out


if __name__ == "__main__":
    if "--min" in sys.argv:  # python bench_corr.py --min [scale] [case substrings...]
        args = [a for a in sys.argv[1:] if a != "--min"]
        run_min(scale=float(args[0]) if args else 1.0, only=tuple(args[1:]))
    else:
        run(scale=float(sys.argv[1]) if len(sys.argv) > 1 else 0.01)
