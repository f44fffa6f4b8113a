"""The polars host against polars' own (NaN-blind) statistics (issue 28).

Rows and targets (same-run ratios, 1e6 rows, 1 % NaN + 1 % null, ``nan_policy="omit"``):

* ``s.nanstats.median()`` <= 1.0x ``s.median()``;
* ``df.nanstats.group_by("k").median()`` (1e3 groups) <= 1.0x
  ``df.group_by("k").agg(pl.col("x").median())``;
* exact grouped mean <= 1.5x polars' grouped mean;
* ``s.nanstats.rolling_median(100)`` <= 0.5x ``s.rolling_median(100)``;
* neighbours without a target: 1e4 rows, float32, grouped max (a pick), 30 % NaN.

Run alone: ``python benchmarks/bench_polars.py`` (writes ``benchmarks/results/polars.json``).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
from common import log, make_row, time_interleaved, write_results

import nanaccess  # noqa: F401  (registers .nanstats on polars)

__all__ = ["run"]


def make_frame(n: int, groups: int, nan_pct: float = 1.0, null_pct: float = 1.0,
               dtype: Any = np.float64, seed: int = 0) -> Any:
    """Normal values with NaNs and nulls at random rows, integer keys."""
    import polars as pl

    rng = np.random.default_rng(seed)
    x = rng.standard_normal(n).astype(dtype)
    x[rng.random(n) < nan_pct / 100] = np.nan
    s = pl.Series("x", x).scatter(np.flatnonzero(rng.random(n) < null_pct / 100), None)
    return pl.DataFrame({"k": rng.integers(0, groups, n), "x": s})


def _cases(df: Any, window: int) -> list[tuple[str, Any, str, Any, float | None]]:
    import polars as pl

    s = df["x"]
    gb = df.nanstats.group_by("k")
    return [
        ("median", lambda: s.nanstats.median(nan_policy="omit"), "polars median",
         lambda: s.median(), 1.0),
        ("grouped median", lambda: gb.median(nan_policy="omit"), "polars group_by median",
         lambda: df.group_by("k").agg(pl.col("x").median()), 1.0),
        ("grouped mean (exact)", lambda: gb.mean(nan_policy="omit"), "polars group_by mean",
         lambda: df.group_by("k").agg(pl.col("x").mean()), 1.5),
        ("grouped max", lambda: gb.max(nan_policy="omit"), "polars group_by max",
         lambda: df.group_by("k").agg(pl.col("x").max()), None),
        (f"rolling median w={window}",
         lambda: s.nanstats.rolling_median(window, nan_policy="omit", min_samples=1),
         f"polars rolling_median({window})",
         lambda: s.rolling_median(window, min_samples=1), 0.5),
    ]


def run(n: int = 1_000_000, groups: int = 1_000, window: int = 100, repeats: int = 5,
        neighbours: bool = True, out_dir: Path | str | None = None) -> list[dict[str, Any]]:
    """Time every case; returns the result rows (written to ``polars.json``)."""
    rows: list[dict[str, Any]] = []
    grids = [(n, np.float64, 1.0, None)]
    if neighbours:
        grids += [(max(n // 100, 100), np.float64, 1.0, "small"),
                  (n, np.float32, 1.0, "float32"), (n, np.float64, 30.0, "30 % NaN")]
    for size, dtype, nan_pct, note in grids:
        df = make_frame(size, groups, nan_pct=nan_pct, dtype=dtype)
        for case, ours, ref, theirs, target in _cases(df, window):
            t = time_interleaved({"na": ours, "ref": theirs}, repeats=repeats)
            label = case if note is None else f"{case} ({note})"
            rows.append(make_row(label, size, "omit", t["na"], ref, t["ref"], nan_pct=nan_pct,
                                 target=target if note is None else None))
            log(f"{label:40s} n={size:>9,d} ratio {rows[-1]['ratio']:.3f}")
    write_results("polars", rows, out_dir)
    return rows


if __name__ == "__main__":
    run(repeats=int(sys.argv[1]) if len(sys.argv) > 1 else 5)
