"""Peak memory of a 1-D order statistic relative to the input size (tracemalloc).

NumPy reports its buffers to :mod:`tracemalloc`, so the traced peak during one call is
the extra memory the call needed. Target: at most one extra copy of the data, the
spec's promise: peak <= input bytes + ``SCRATCH``, a fixed allowance for the NaN
scan's block buffers (32 Ki elements a block: two 32 KiB masks and one block's NaN
indices, whatever the input size), so ``extra_copies`` tends to 1.000 as n grows.
NumPy's own ``np.median`` / ``np.quantile`` are measured the same way for comparison.
"""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from common import POLICIES, accel_active, float_data, log

import nanaccess as na

__all__ = ["run", "peak_bytes"]

QS = [0.1, 0.5, 0.9]
TARGET = 1.0
SCRATCH = 128 * 1024  # bytes: fixed-size block buffers, independent of n


def within_target(row: dict[str, Any]) -> bool:
    """One extra copy of the input, plus the fixed scratch allowance.

    Examples
    --------
    >>> within_target({"input_bytes": 8_000_000, "nanaccess_peak_bytes": 8_040_000})
    True
    >>> within_target({"input_bytes": 8_000_000, "nanaccess_peak_bytes": 8_400_000})
    False
    """
    return row["nanaccess_peak_bytes"] <= TARGET * row["input_bytes"] + SCRATCH


def peak_bytes(fn: Callable[[], Any]) -> int:
    """Peak traced bytes allocated while ``fn()`` runs (its result included).

    Examples
    --------
    >>> peak_bytes(lambda: np.empty(1_000_000, dtype=np.uint8)) >= 1_000_000
    True
    """
    fn()  # warm caches (imports, JIT) outside the measurement
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        res = fn()
        peak = tracemalloc.get_traced_memory()[1] - base
        del res
    finally:
        tracemalloc.stop()
    return int(peak)


def run(n: int | Sequence[int] = (1_000_000, 10_000_000), *, nan_pct: float = 1.0,
        policies: Sequence[str] = POLICIES, out_dir: Path | str | None = None,
        write: bool = True, name: str = "memory") -> list[dict[str, Any]]:
    """Measure peak memory per policy; return the rows and write ``<name>.json`` / ``.md``.

    Parameters
    ----------
    n : int or sequence of int
        Length(s) of the float64 input.
    nan_pct : float
        NaN share in percent ("raise" runs on NaN-free data).
    policies : sequence of str
        nan_policy values to measure.
    out_dir : path, optional
        Where to write (default ``benchmarks/results``).
    write : bool
        Write the result files.
    name : str
        Result file stem.

    Returns
    -------
    list of dict
        Rows ``{case, n, policy, input_bytes, nanaccess_peak_bytes, extra_copies,
        beyond_one_copy_bytes, reference, reference_peak_bytes, reference_copies,
        target, accel}``.
    """
    rows: list[dict[str, Any]] = []
    for size in ([n] if isinstance(n, int) else n):
        rows += _measure(int(size), nan_pct, policies)
    if write:
        from common import write_results

        write_results(name, rows, out_dir)
    return rows


def _measure(n: int, nan_pct: float, policies: Sequence[str]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    clean = float_data(n, 0.0, seed=3)
    dirty = float_data(n, nan_pct, seed=3)
    for stat in ("median", "quantile"):
        for p in policies:
            x = clean if p == "raise" else dirty
            if stat == "median":
                mine = peak_bytes(lambda x=x, p=p: na.median(x, nan_policy=p))
                ref_name, ref = "np.median", peak_bytes(lambda x=x: np.median(x))
            else:
                mine = peak_bytes(lambda x=x, p=p: na.quantile(x, QS, nan_policy=p))
                ref_name, ref = "np.quantile", peak_bytes(lambda x=x: np.quantile(x, QS))
            rows.append({
                "case": f"{stat} 1-D float64", "n": n, "policy": p,
                "nan_pct": 0.0 if p == "raise" else float(nan_pct),
                "input_bytes": int(x.nbytes), "nanaccess_peak_bytes": mine,
                "extra_copies": round(mine / x.nbytes, 4),
                "beyond_one_copy_bytes": mine - x.nbytes,
                "reference": ref_name, "reference_peak_bytes": ref,
                "reference_copies": round(ref / x.nbytes, 4),
                "target": TARGET, "accel": accel_active(),
            })
            log(f"memory {stat} n={n} {p}: {mine / x.nbytes:.4f} copies "
                f"(numpy {ref / x.nbytes:.4f})")
    return rows
