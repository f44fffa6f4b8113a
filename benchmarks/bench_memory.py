"""Peak memory of a 1-D order statistic relative to the input size (tracemalloc).

NumPy reports its buffers to :mod:`tracemalloc`, so the traced peak during one call is
the extra memory the call needed. Target: at most one extra copy of the data
(``extra_copies <= 1.0``, i.e. peak <= input bytes; the spec's promise). NumPy's own
``np.median`` / ``np.quantile`` are measured the same way for comparison.
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


def run(n: int = 1_000_000, *, nan_pct: float = 1.0, policies: Sequence[str] = POLICIES,
        out_dir: Path | str | None = None, write: bool = True, name: str = "memory"
        ) -> list[dict[str, Any]]:
    """Measure peak memory per policy; return the rows and write ``<name>.json`` / ``.md``.

    Parameters
    ----------
    n : int
        Length of the float64 input.
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
        reference, reference_peak_bytes, reference_copies, target, accel}``.
    """
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
                "extra_copies": round(mine / x.nbytes, 3),
                "reference": ref_name, "reference_peak_bytes": ref,
                "reference_copies": round(ref / x.nbytes, 3),
                "target": TARGET, "accel": accel_active(),
            })
            log(f"memory {stat} {p}: {mine / x.nbytes:.3f} copies (numpy {ref / x.nbytes:.3f})")
    if write:
        from common import write_results

        write_results(name, rows, out_dir)
    return rows
