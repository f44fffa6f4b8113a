"""Large data: a 1-D order statistic on 2e8 float64 values (1.6 GB) within the spec's
memory bound (at most one extra copy of the data), against np.median.

Not a test: run ``python benchmarks/bench_large.py [--n N]``. Writes
``benchmarks/results/large.json`` and prints peak extra memory / input size and the
time relative to ``np.median``. Memory is measured two ways: tracemalloc (NumPy
reports its allocations to it) and the process RSS high-water mark sampled in a
background thread (catches allocations tracemalloc cannot see, e.g. numba).
"""

from __future__ import annotations

import argparse
import gc
import json
import platform
import threading
import time
import tracemalloc
from pathlib import Path

import numpy as np
import psutil

import nanaccess as na

RESULTS = Path(__file__).resolve().parent / "results" / "large.json"


class RssPeak:
    """Sample RSS every few ms; ``peak - base`` is the extra memory of the block."""

    def __init__(self, interval: float = 0.002) -> None:
        self.proc = psutil.Process()
        self.interval = interval
        self.peak = 0
        self._stop = threading.Event()

    def __enter__(self) -> RssPeak:
        gc.collect()
        self.base = self.proc.memory_info().rss
        self.peak = self.base
        self._t = threading.Thread(target=self._run, daemon=True)
        self._t.start()
        return self

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, self.proc.memory_info().rss)
            time.sleep(self.interval)

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._t.join()
        self.peak = max(self.peak, self.proc.memory_info().rss)

    @property
    def extra(self) -> int:
        return self.peak - self.base


def measure(fn, x: np.ndarray) -> dict:
    fn(x[:1000])  # warm up (numba compilation is not part of the measurement)
    gc.collect()
    tracemalloc.start()
    with RssPeak() as rss:
        t0 = time.perf_counter()
        result = fn(x)
        elapsed = time.perf_counter() - t0
    _, traced_peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return {"seconds": elapsed, "tracemalloc_peak": traced_peak, "rss_extra": rss.extra,
            "result": float(result)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--n", type=float, default=2e8, help="number of float64 values")
    ap.add_argument("--policy", default="omit")
    args = ap.parse_args()
    n = int(args.n)
    total = psutil.virtual_memory().total
    if n * 8 * 3.2 > total:
        raise SystemExit(f"{n} float64 ({n * 8 / 1e9:.1f} GB) need about 3x that in RAM "
                         f"(input, one copy, np.median's copy); this machine has "
                         f"{total / 1e9:.1f} GB: pass a smaller --n")
    rng = np.random.default_rng(0)
    x = rng.standard_normal(n)
    x[rng.integers(0, n, n // 1000)] = np.nan
    nbytes = x.nbytes

    ours = measure(lambda a: na.median(a, nan_policy=args.policy), x)
    ref = measure(np.nanmedian if args.policy == "omit" else np.median, x)
    assert ours["result"] == ref["result"], (ours["result"], ref["result"])
    peak_extra = max(ours["tracemalloc_peak"], ours["rss_extra"])
    out = {
        "n": n,
        "input_bytes": nbytes,
        "policy": args.policy,
        "nanaccess": ours,
        "numpy": ref,
        "peak_extra_over_input": peak_extra / nbytes,
        "within_one_copy": peak_extra <= 1.05 * nbytes,
        "time_vs_numpy": ours["seconds"] / ref["seconds"],
        "machine": {"python": platform.python_version(), "numpy": np.__version__,
                    "cpus": psutil.cpu_count(), "ram_bytes": total},
    }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(out, indent=2))
    print(f"n={n:.3g} ({nbytes / 1e9:.2f} GB), policy={args.policy}")
    print(f"peak extra memory / input size: {out['peak_extra_over_input']:.3f} "
          f"(tracemalloc {ours['tracemalloc_peak'] / nbytes:.3f}, "
          f"RSS {ours['rss_extra'] / nbytes:.3f}); numpy: "
          f"{max(ref['tracemalloc_peak'], ref['rss_extra']) / nbytes:.3f}")
    print(f"time: nanaccess {ours['seconds']:.2f} s, np.median {ref['seconds']:.2f} s "
          f"(x{out['time_vs_numpy']:.2f}); within one copy: {out['within_one_copy']}")


if __name__ == "__main__":
    main()
