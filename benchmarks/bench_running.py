"""Cumulative and exponentially weighted statistics (issue 23) against pandas.

Rows and targets (same-run ratios, 1e6 float64, 1 % NaN, ``nan_policy="omit"``):

* ``s.nanstats.cumsum()`` (each prefix correctly rounded) vs ``Series.cumsum()``: <= 1.5x;
  ``cummax`` / ``cummin`` vs pandas': <= 1.0x;
* ``s.ewm(alpha=0.1, ignore_na=True).nanstats.mean()`` vs pandas: <= 1.0x; ``var`` /
  ``std``: <= 1.5x;
* the neighbours (no target): 0 % and 30 % NaN, float32, int64, 1e4 (and with
  ``--big`` 1e7) rows, ``adjust=False``,
  ``groupby(k).ewm().nanstats.mean()`` (1e3 groups) and grouped ``cumsum``.

Run alone: ``python benchmarks/bench_running.py [--quick]`` (``--big``: 1e7 rows too).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from common import accel_active, float_data, log, make_row, time_interleaved

import nanaccess  # noqa: F401

__all__ = ["run"]

_TARGETS = {"cumsum": 1.5, "cummax": 1.0, "cummin": 1.0, "ewm mean": 1.0, "ewm var": 1.5,
            "ewm std": 1.5}


def _row(case: str, n: int, na_fn: Any, ref: str, pd_fn: Any, repeats: int,
         nan_pct: float, main: bool, **extra: Any) -> dict:
    t = time_interleaved({"na": na_fn, "pd": pd_fn}, repeats=repeats)
    row = make_row(case, n, "omit", t["na"], ref, t["pd"], accel=accel_active(),
                   nan_pct=nan_pct, target=_TARGETS.get(case) if main else None, **extra)
    log(row)
    return row


def _cumulative_rows(n: int, nan_pct: float, repeats: int, dtype=np.float64,
                     stats=("cumsum", "cummax", "cummin")) -> list[dict]:
    x = float_data(n, nan_pct)
    if np.dtype(dtype).kind in "iu":  # ints: no NaN, a spread of values
        x = np.nan_to_num(x * 1000.0)
    s = pd.Series(x.astype(dtype))
    main = n >= 10**6 and nan_pct == 1.0 and dtype == np.float64
    suffix = "" if dtype == np.float64 else f" {np.dtype(dtype).name}"
    return [_row(st + suffix, n, lambda st=st: getattr(s.nanstats, st)(nan_policy="omit"),
                 f"Series.{st}", lambda st=st: getattr(s, st)(), repeats, nan_pct, main)
            for st in stats]


def _ewm_rows(n: int, nan_pct: float, repeats: int, adjust: bool = True,
              stats=("mean", "var", "std")) -> list[dict]:
    s = pd.Series(float_data(n, nan_pct))
    main = n >= 10**6 and nan_pct == 1.0 and adjust
    rows = []
    for st in stats:
        case = f"ewm {st}" + ("" if adjust else " adjust=False")
        rows.append(_row(
            case, n,
            lambda st=st: getattr(s.ewm(alpha=0.1, adjust=adjust, ignore_na=True).nanstats,
                                  st)(nan_policy="omit"),
            f"ewm().{st}", lambda st=st: getattr(s.ewm(alpha=0.1, adjust=adjust,
                                                      ignore_na=True), st)(),
            repeats, nan_pct, main))
    return rows


def _grouped_rows(n: int, ngroups: int, repeats: int) -> list[dict]:
    rng = np.random.default_rng(3)
    df = pd.DataFrame({"k": rng.integers(0, ngroups, n), "v": float_data(n, 1.0)})
    gb = df.groupby("k")
    return [
        _row("grouped ewm mean", n,
             lambda: gb.ewm(alpha=0.1).nanstats.mean(nan_policy="omit"),
             "GroupBy.ewm().mean", lambda: gb.ewm(alpha=0.1).mean(), repeats, 1.0, False,
             groups=ngroups),
        _row("grouped cumsum", n, lambda: gb.nanstats.cumsum(nan_policy="omit"),
             "GroupBy.cumsum", lambda: gb.cumsum(), repeats, 1.0, False, groups=ngroups),
    ]


def run(repeats: int = 3, out_dir: Path | str | None = None, name: str = "running", *,
        sizes: tuple[int, ...] = (10**4, 10**6), write: bool = True) -> list[dict[str, Any]]:
    """Time every row; write ``<name>.json`` / ``.md`` into ``out_dir``."""
    rows: list[dict[str, Any]] = []
    for n in sizes:
        rows += _cumulative_rows(n, 1.0, repeats)
        rows += _ewm_rows(n, 1.0, repeats)
    big = sizes[-1]
    for pct in (0.0, 30.0):
        rows += _cumulative_rows(big, pct, repeats, stats=("cumsum", "cummax"))
        rows += _ewm_rows(big, pct, repeats, stats=("mean",))
    rows += _cumulative_rows(big, 1.0, repeats, dtype=np.float32, stats=("cumsum", "cummax"))
    rows += _cumulative_rows(big, 0.0, repeats, dtype=np.int64, stats=("cumsum", "cummax"))
    rows += _ewm_rows(big, 30.0, repeats, stats=("var",))
    rows += _ewm_rows(big, 1.0, repeats, adjust=False, stats=("mean", "var"))
    rows += _grouped_rows(big, max(1, min(1000, big // 100)), repeats)
    if write:
        from common import write_results

        write_results(name, rows, out_dir)
    return rows


if __name__ == "__main__":
    quick = "--quick" in sys.argv
    sizes = (10**4, 10**5) if quick else (10**4, 10**6)
    if "--big" in sys.argv:
        sizes = sizes + (10**7,)
    run(repeats=1 if quick else 3, sizes=sizes)
