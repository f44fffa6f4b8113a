"""1-D float64 median and quantile([.1, .5, .9]) against NumPy, bottleneck and pandas.

For each size and NaN share (0 % and 1 %) every policy is timed against the target
reference (``np.median`` / ``np.quantile`` on the same data, target ratio 0.5 for
n >= 1e5), and "omit" also against the NaN-skipping references (``np.nanmedian`` /
``np.nanquantile``, ``bottleneck.nanmedian``, pandas ``Series.median`` /
``Series.quantile``). "raise" is timed on NaN-free data only (it raises otherwise).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from common import POLICIES, float_data, log, make_row, optional_import, time_interleaved

import nanaccess as na

__all__ = ["run", "SIZES"]

SIZES = (1_000, 100_000, 1_000_000, 10_000_000)
QS = [0.1, 0.5, 0.9]
TARGET = 0.5
TARGET_MIN_N = 100_000


def _references(stat: str, x: np.ndarray) -> dict[str, Any]:
    """The NaN-skipping references of ``stat`` on ``x`` (those installed)."""
    refs: dict[str, Any] = {}
    if stat == "median":
        refs["np.nanmedian"] = lambda: np.nanmedian(x)
        bn = optional_import("bottleneck")
        if bn is not None:
            refs["bottleneck.nanmedian"] = lambda: bn.nanmedian(x)
    else:
        refs["np.nanquantile"] = lambda: np.nanquantile(x, QS)
    pd = optional_import("pandas")
    if pd is not None:
        s = pd.Series(x, copy=False)
        if stat == "median":
            refs["pandas.Series.median"] = lambda: s.median()
        else:
            refs["pandas.Series.quantile"] = lambda: s.quantile(QS)
    return refs


def run(sizes: Sequence[int] = SIZES, *, repeats: int = 5, nan_pcts: Sequence[float] = (0, 1),
        policies: Sequence[str] = POLICIES, stats: Sequence[str] = ("median", "quantile"),
        out_dir: Path | str | None = None, write: bool = True, name: str = "core"
        ) -> list[dict[str, Any]]:
    """Time the 1-D cases; return the rows and write ``<name>.json`` / ``.md``.

    Parameters
    ----------
    sizes : sequence of int
        Lengths of the 1-D arrays.
    repeats : int
        Interleaved repeats (median reported).
    nan_pcts : sequence of float
        NaN shares in percent.
    policies : sequence of str
        nan_policy values to time.
    stats : sequence of {"median", "quantile"}
        Statistics to time.
    out_dir : path, optional
        Where to write (default ``benchmarks/results``).
    write : bool
        Write the result files.
    name : str
        Result file stem.

    Returns
    -------
    list of dict
        Result rows (schema in :mod:`common`).
    """
    rows: list[dict[str, Any]] = []
    for stat in stats:
        for n in sizes:
            for pct in nan_pcts:
                x = float_data(n, pct, seed=n)
                target_name = "np.median" if stat == "median" else "np.quantile"
                fns: dict[str, Any] = {}
                if stat == "median":
                    fns[target_name] = lambda x=x: np.median(x)
                else:
                    fns[target_name] = lambda x=x: np.quantile(x, QS)
                pols = [p for p in policies if not (p == "raise" and pct)]
                for p in pols:
                    if stat == "median":
                        fns[f"na:{p}"] = lambda x=x, p=p: na.median(x, nan_policy=p)
                    else:
                        fns[f"na:{p}"] = lambda x=x, p=p: na.quantile(x, QS, nan_policy=p)
                refs = _references(stat, x) if "omit" in pols else {}
                fns.update(refs)
                t = time_interleaved(fns, repeats=repeats)
                target = TARGET if n >= TARGET_MIN_N else None
                for p in pols:
                    rows.append(make_row(stat, n, p, t[f"na:{p}"], target_name, t[target_name],
                                         nan_pct=pct, target=target))
                for ref in refs:
                    rows.append(make_row(stat, n, "omit", t["na:omit"], ref, t[ref],
                                         nan_pct=pct))
                log(f"core {stat} n={n} nan={pct}%: " + ", ".join(
                    f"{p}={t[f'na:{p}'] / t[target_name]:.2f}x" for p in pols))
    if write:
        from common import write_results

        write_results(name, rows, out_dir)
    return rows
