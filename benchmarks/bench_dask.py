"""Exact dask median/quantiles/moments against in-memory NumPy: time and worker memory.

Run ``python benchmarks/bench_dask.py [size] [nchunks] [repeats]`` (default 1e8 float64
in 10 chunks, on a LocalCluster of 2 worker processes with 1 thread each); prints the
ratios and writes ``benchmarks/results/dask.json`` (common row schema, see
``benchmarks/common.py``). ``run(size)`` is the body (``benchmarks/run.py`` and the test
suite call it; the test suite runs a tiny version).

Timing: the dask computation and the in-memory NumPy reference of each case are
timed alternately (dask, NumPy, dask, NumPy, ...) so that load from other processes on
a shared machine hits both alike; the median of the repeats is reported. Memory: the
peak RSS the workers' monitors saw while the statistics ran, minus the RSS they had
just before (the persisted input), in units of one chunk.
"""

from __future__ import annotations

import pathlib
import statistics
import sys
import time
from typing import Any

import dask.array as da
import numpy as np


def _worker_counts(client) -> dict:
    return client.run(lambda dask_worker: dask_worker.monitor.count)


def _worker_rss(client, start: dict | None = None) -> tuple[int, int]:
    """(max RSS now, peak RSS since the monitor sample ``start``) over workers, bytes."""
    try:
        now = client.run(lambda dask_worker: dask_worker.monitor.get_process_memory())

        def peak(dask_worker, starts=start or {}):
            mem = dask_worker.monitor.range_query(starts.get(dask_worker.address, 0))["memory"]
            return max(mem) if len(mem) else 0

        peaks = client.run(peak)
        return int(max(now.values())), int(max(max(peaks.values()), max(now.values())))
    except Exception:  # noqa: BLE001 - a best-effort number
        return 0, 0


def _alternate(fns: dict[str, Any], repeats: int) -> tuple[dict[str, float], dict]:
    """Median seconds of each function over ``repeats`` alternating calls; last results."""
    times: dict[str, list[float]] = {k: [] for k in fns}
    out: dict[str, Any] = {}
    for _ in range(repeats):
        for k, fn in fns.items():
            t0 = time.perf_counter()
            out[k] = fn()
            times[k].append(time.perf_counter() - t0)
    return {k: statistics.median(v) for k, v in times.items()}, out


def run(size: int = 10**8, nchunks: int = 10, client=None, write: bool = True,
        seed: int = 0, repeats: int = 1, moments: bool = True, **_ignored: Any) -> dict:
    """Time the exact dask statistics against NumPy in memory; return a result dict.

    Parameters
    ----------
    size, nchunks : int
        float64 elements (standard normal) and the number of chunks.
    client : distributed.Client, optional
        Run on this cluster (and report worker memory); default the local scheduler.
    write : bool
        Write ``benchmarks/results/dask.json``.
    seed : int
        Seed of the data.
    repeats : int
        Alternating repeats of each case (median reported).
    moments : bool
        Also time the exact mean and variance (tree reductions) against NumPy.

    Returns
    -------
    dict
        Seconds, ratios and memory figures (keys as ``benchmarks/run.py`` expects),
        with the common-schema rows under ``"rows"``.
    """
    from nanaccess.dask.array import dask_moment_stat, dask_order_stat

    chunk = -(-size // nchunks)
    x = da.random.default_rng(seed).standard_normal(size, chunks=chunk)
    if client is not None:
        from distributed import wait

        x = x.persist()
        wait(x)
    xn = x.compute()
    qs = [0.01, 0.25, 0.5, 0.75, 0.99]
    # warm-up (imports and first calls on the workers), not timed
    tiny = da.from_array(np.arange(1000.0), chunks=100)
    for stat in ("median", "mean", "var"):
        fn = dask_order_stat if stat == "median" else dask_moment_stat
        fn(tiny, stat, policy="omit").compute()
    dask_order_stat(tiny, "quantile", q=qs, policy="omit").compute()
    starts = _worker_counts(client) if client is not None else None
    base_rss = _worker_rss(client)[0] if client is not None else 0

    cases = {
        "median": (lambda: dask_order_stat(x, "median", policy="omit").compute(),
                   lambda: np.median(xn), "np.median (in memory)"),
        "quantiles": (lambda: dask_order_stat(x, "quantile", q=qs, policy="omit").compute(),
                      lambda: np.quantile(xn, qs), "np.quantile (in memory), 5 q"),
    }
    if moments:
        cases["mean"] = (lambda: dask_moment_stat(x, "mean", policy="omit").compute(),
                         lambda: np.mean(xn), "np.mean (in memory, not exact)")
        cases["var"] = (lambda: dask_moment_stat(x, "var", policy="omit").compute(),
                        lambda: np.var(xn), "np.var (in memory, not exact)")
    res: dict[str, Any] = {"size": size, "nchunks": nchunks, "chunk_bytes": chunk * 8,
                           "workers": len(client.scheduler_info()["workers"])
                           if client is not None else 0}
    results = {}
    for name, (fd, fn, _ref) in cases.items():
        t, out = _alternate({"dask": fd, "numpy": fn}, repeats)
        res[f"dask_{name}_s"] = t["dask"]
        res[f"numpy_{name}_s"] = t["numpy"]
        res[f"{name}_time_ratio"] = t["dask"] / t["numpy"]
        results[name] = out
    if client is not None:
        _now, peak = _worker_rss(client, starts)
        res["worker_rss_before_bytes"] = base_rss
        res["peak_worker_rss_bytes"] = peak
        res["peak_worker_extra_in_chunks"] = (peak - base_rss) / (chunk * 8) if peak else None
    # exactness: the same bits as NumPy on NaN-free data (order statistics)
    med, ref = results["median"]["dask"], results["median"]["numpy"]
    assert np.asarray(med).tobytes() == np.asarray(ref).tobytes(), (med, ref)
    assert np.array_equal(results["quantiles"]["dask"], results["quantiles"]["numpy"])
    if moments:
        np.testing.assert_allclose(results["mean"]["dask"], results["mean"]["numpy"],
                                   rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(results["var"]["dask"], results["var"]["numpy"],
                                   rtol=1e-12)
    res["rows"] = rows(res, cases)
    if write:
        sys.path.insert(0, str(pathlib.Path(__file__).parent))
        from common import write_results

        write_results("dask", res["rows"])
    return res


def rows(res: dict, cases: dict) -> list[dict]:
    """Common-schema rows (``common.make_row``) of a result dict."""
    sys.path.insert(0, str(pathlib.Path(__file__).parent))
    from common import make_row

    extra = {k: res[k] for k in ("nchunks", "workers", "chunk_bytes",
                                 "worker_rss_before_bytes", "peak_worker_rss_bytes",
                                 "peak_worker_extra_in_chunks") if k in res}
    out = []
    for name, (_fd, _fn, ref) in cases.items():
        out.append(make_row(f"dask {name} (exact, {res['nchunks']} chunks)", res["size"],
                            "omit", res[f"dask_{name}_s"], ref, res[f"numpy_{name}_s"],
                            target=1.0 if name == "median" else None, **extra))
    return out


def main(argv: list[str]) -> None:
    from distributed import Client, LocalCluster

    size = int(float(argv[1])) if len(argv) > 1 else 10**8
    nchunks = int(argv[2]) if len(argv) > 2 else 10
    repeats = int(argv[3]) if len(argv) > 3 else 2
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      memory_limit="8GB", dashboard_address=None) as cluster, \
            Client(cluster) as client:
        res = run(size, nchunks, client, repeats=repeats)
    for k, v in res.items():
        if k != "rows":
            print(f"{k:32s} {v}")


if __name__ == "__main__":
    main(sys.argv)
