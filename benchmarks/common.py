"""Shared helpers of the benchmark suite: timing, result rows, output files.

Every benchmark measures nanaccess and its references in the same process, with the
calls interleaved (A, B, C, A, B, C, ...) so that a noisy, shared machine slows them
alike, and reports the median of the repeats. A ratio is always computed from two
times of the same run.

Result rows (one JSON list per benchmark, under ``"results"``, in
``benchmarks/results/<name>.json``)::

    {"case": str, "n": int, "policy": str, "nanaccess_s": float,
     "reference": str, "reference_s": float, "ratio": float, "accel": bool,
     "nan_pct": float, "target": float | None}

``ratio`` is ``nanaccess_s / reference_s`` (below 1: nanaccess is faster);
``target`` is the ratio the issue asks for on that row, when it asks for one.
"""

from __future__ import annotations

import json
import math
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

__all__ = [
    "RESULTS",
    "POLICIES",
    "time_interleaved",
    "make_row",
    "accel_active",
    "machine_info",
    "write_results",
    "markdown_table",
    "float_data",
    "optional_import",
]

RESULTS = Path(__file__).resolve().parent / "results"
POLICIES = ("raise", "propagate", "omit", "smallest", "largest", "totalorder")


def optional_import(name: str) -> Any:
    """The module ``name``, or None when it is not installed.

    Examples
    --------
    >>> optional_import("math").sqrt(4.0), optional_import("no_such_module_xyz")
    (2.0, None)
    """
    try:
        return __import__(name, fromlist=["_"])
    except Exception:
        return None


def _calibrate(fn: Callable[[], Any], min_sample: float) -> int:
    """Calls per sample so that one sample lasts at least ``min_sample`` seconds."""
    number = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        dt = time.perf_counter() - t0
        if dt >= min_sample or number >= 1 << 16:
            return number
        number *= 2 if dt <= 0 else max(2, min(16, math.ceil(min_sample / dt)))


def time_interleaved(
    fns: Mapping[str, Callable[[], Any]],
    *,
    repeats: int = 5,
    min_sample: float = 0.005,
    warmup: bool = True,
    stat: str = "median",
) -> dict[str, float]:
    """Median (or least) seconds per call of each function, the calls interleaved.

    Parameters
    ----------
    fns : mapping of name to zero-argument callable
        Everything to compare; each is called once first (warm-up, JIT, caches).
    repeats : int
        Samples per function; the median is reported.
    min_sample : float
        Fast functions are called in a loop so that a sample lasts this long.
    warmup : bool
        Call each function once before timing.
    stat : {"median", "min"}
        What one function's samples report: their median, or their least (the
        small-call rows, where a sample's noise is only ever added time).

    Returns
    -------
    dict
        Name to median (or least) seconds per call.

    Examples
    --------
    >>> t = time_interleaved({"a": lambda: sum(range(100))}, repeats=3, min_sample=0.0)
    >>> t["a"] > 0
    True
    """
    names = list(fns)
    if warmup:
        for name in names:
            fns[name]()
    numbers = {name: _calibrate(fns[name], min_sample) for name in names}
    samples: dict[str, list[float]] = {name: [] for name in names}
    for r in range(repeats):
        # rotate the order too, so no function always runs right after another
        order = names[r % len(names):] + names[: r % len(names)]
        for name in order:
            fn, number = fns[name], numbers[name]
            t0 = time.perf_counter()
            for _ in range(number):
                fn()
            samples[name].append((time.perf_counter() - t0) / number)
    pick = min if stat == "min" else statistics.median
    return {name: pick(samples[name]) for name in names}


def accel_active() -> bool:
    """Whether nanaccess' numba accelerator is in use in this process.

    Examples
    --------
    >>> isinstance(accel_active(), bool)
    True
    """
    from nanaccess.core._numba import rows as accel

    return accel.select_rows is not None


def make_row(case: str, n: int, policy: str, nanaccess_s: float, reference: str,
             reference_s: float, *, accel: bool | None = None, nan_pct: float = 0.0,
             target: float | None = None, **extra: Any) -> dict[str, Any]:
    """One result row (see the module docstring for the schema).

    Examples
    --------
    >>> r = make_row("median", 1000, "omit", 1.0, "np.median", 4.0, accel=False)
    >>> r["ratio"], r["accel"]
    (0.25, False)
    """
    ratio = nanaccess_s / reference_s if reference_s else float("nan")
    row = {
        "case": case,
        "n": int(n),
        "policy": policy,
        "nanaccess_s": float(nanaccess_s),
        "reference": reference,
        "reference_s": float(reference_s),
        "ratio": round(float(ratio), 4),
        "accel": accel_active() if accel is None else bool(accel),
        "nan_pct": float(nan_pct),
        "target": target,
    }
    row.update(extra)
    return row


def machine_info() -> dict[str, Any]:
    """Versions and machine facts written beside the rows."""
    info: dict[str, Any] = {
        "python": platform.python_version(),
        "platform": platform.platform(terse=True),
        "cpus": os.cpu_count(),
        "numpy": np.__version__,
    }
    for name in ("nanaccess", "pandas", "xarray", "bottleneck", "numbagg", "numba", "dask"):
        mod = optional_import(name)
        if mod is not None:
            info[name] = getattr(mod, "__version__", "?")
    try:
        info["load_avg_1min"] = round(os.getloadavg()[0], 2)
    except OSError:  # pragma: no cover - not on every OS
        pass
    return info


def _fmt(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        return f"{v:.4g}"
    return str(v)


def markdown_table(rows: Iterable[Mapping[str, Any]]) -> str:
    """A Markdown table of the rows (columns in first-seen order).

    Examples
    --------
    >>> print(markdown_table([{"case": "median", "ratio": 0.5}]))
    | case | ratio |
    | --- | --- |
    | median | 0.5 |
    """
    rows = list(rows)
    cols: list[str] = []
    for r in rows:
        cols.extend(k for k in r if k not in cols)
    lines = ["| " + " | ".join(cols) + " |", "| " + " | ".join("---" for _ in cols) + " |"]
    for r in rows:
        lines.append("| " + " | ".join(_fmt(r.get(c)) for c in cols) + " |")
    return "\n".join(lines)


def write_results(name: str, rows: list[dict[str, Any]], out_dir: Path | str | None = None,
                  *, extra_meta: Mapping[str, Any] | None = None) -> Path:
    """Write ``<name>.json`` (machine info + rows) and ``<name>.md`` into ``out_dir``."""
    out = Path(out_dir) if out_dir is not None else RESULTS
    out.mkdir(parents=True, exist_ok=True)
    meta = machine_info()
    if extra_meta:
        meta.update(extra_meta)
    path = out / f"{name}.json"
    path.write_text(json.dumps({"machine": meta, "results": rows}, indent=1) + "\n",
                    encoding="utf-8")
    (out / f"{name}.md").write_text(f"# {name}\n\n{markdown_table(rows)}\n", encoding="utf-8")
    return path


def float_data(n: int, nan_pct: float, seed: int = 0, shape: tuple[int, ...] | None = None
               ) -> np.ndarray:
    """Standard-normal float64 data with ``nan_pct`` percent NaNs at random places.

    Examples
    --------
    >>> x = float_data(1000, 1.0)
    >>> int(np.isnan(x).sum())
    10
    """
    rng = np.random.default_rng(seed)
    shape = (n,) if shape is None else shape
    x = rng.standard_normal(int(np.prod(shape)))
    k = int(round(x.size * nan_pct / 100))
    if k:
        x[rng.choice(x.size, k, replace=False)] = np.nan
    return x.reshape(shape)


def log(*args: Any) -> None:
    """Progress line on stderr (results go to files and stdout)."""
    print(*args, file=sys.stderr, flush=True)
