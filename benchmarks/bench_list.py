"""The list API: ``na.median(list_of_floats)`` against :func:`statistics.median`.

Target: ratio <= 0.5 on 1e5 Python floats. With 1 % NaN, ``statistics.median`` is
timed on the same list (its answer then depends on the order of the data, which is
the reason nanaccess exists; the time is still the fair comparison).
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from common import float_data, log, make_row, time_interleaved

import nanaccess as na

__all__ = ["run"]

TARGET = 0.5


def run(n: int = 100_000, *, repeats: int = 5, nan_pcts: Sequence[float] = (0, 1),
        policies: Sequence[str] = ("raise", "omit", "propagate", "totalorder"),
        out_dir: Path | str | None = None, write: bool = True, name: str = "list"
        ) -> list[dict[str, Any]]:
    """Time the list cases; return the rows and write ``<name>.json`` / ``.md``.

    Parameters
    ----------
    n : int
        Length of the list.
    repeats : int
        Interleaved repeats (median reported).
    nan_pcts : sequence of float
        NaN shares in percent.
    policies : sequence of str
        nan_policy values to time ("raise" only on NaN-free data).
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
    for pct in nan_pcts:
        data = float_data(n, pct, seed=7).tolist()
        pols = [p for p in policies if not (p == "raise" and pct)]
        fns: dict[str, Any] = {"statistics.median": lambda d=data: statistics.median(d)}
        for p in pols:
            fns[p] = lambda d=data, p=p: na.median(d, nan_policy=p)
        t = time_interleaved(fns, repeats=repeats)
        for p in pols:
            rows.append(make_row("median of a list of floats", n, p, t[p], "statistics.median",
                                 t["statistics.median"], nan_pct=pct, target=TARGET))
        log(f"list n={n} nan={pct}%: " + ", ".join(
            f"{p}={t[p] / t['statistics.median']:.2f}x" for p in pols))
    if write:
        from common import write_results

        write_results(name, rows, out_dir)
    return rows
