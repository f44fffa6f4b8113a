"""Issue 17's scale cases on a memory-limited LocalCluster (run by hand, not in CI).

    python benchmarks/bench_scale.py [--n 1e8] [--grid 365,180,360] [--time-chunk 73]
                                     [--workers 2] [--memory 2GiB] [--lowmem]
                                     [--skip 1d,1d-stream,grid,groups]
                                     [--out results/scale.json]

Cases, each on lazily generated input (``dask.array.random``, nothing persisted):

* ``1d``: exact ``na.median`` of ``n`` float64 in 100 chunks against ``x.sum()`` on the
  same lazy input (the time of one read), checked by rank counts;
* ``1d-stream``: the same median with streaming passes (each pass its own
  computation, re-reading the lazy input): under ``--passes auto`` (the default, the
  library's default) lazily, one task running the passes when computed; under
  ``--passes streaming`` at the call; best of two timed in alternation with ``x.sum()``;
* ``grid``: ``da.nanstats.median(dim="time")`` of a float32 time x lat x lon grid in
  time chunks, against xarray's ``median("time")``;
* ``groups``: ``da.nanstats.groupby("time.month").median()`` of the same grid against
  xarray's ``groupby("time.month").median()`` with ``use_flox=False``.

Each row reports the wall time, the reference's time and their ratio, the peak RSS of
every worker (sampled every 0.2 s by a thread on the client), the bytes spilled to disk
(peak of the workers' ``spilled_bytes``, sampled from the scheduler's heartbeats), the
chunk size, the largest growth of a worker's RSS over the case (in chunks) and the
number of histogram/refinement passes in the order statistic's graph. The grid cases
check the result bit for bit against NumPy on a sub-block.

``--lowmem`` is issue 17's memory test (too slow for the test suite): workers of
400 MiB and inputs several times the cluster's memory.
"""

from __future__ import annotations

import argparse
import json
import logging
import pathlib
import threading
import time
from typing import Any

import dask
import dask.array as da
import numpy as np
import pandas as pd
import xarray as xr

import nanaccess as na  # noqa: F401 - registers the xarray accessors


class Sampler:
    """Peak RSS per worker and peak spilled bytes, sampled in a background thread."""

    def __init__(self, client: Any, every: float = 0.2) -> None:
        self.client, self.every = client, every
        self.rss: dict[str, int] = {}
        self.start: dict[str, int] = {}  # the first sample: the workers' RSS before
        self.spill = 0
        self.cpu0: dict[str, float] = {}  # each worker's CPU seconds before and after
        self.cpu1: dict[str, float] = {}
        self.t0 = self.t1 = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def _loop(self) -> None:
        import psutil  # noqa: F401 - the workers need it; distributed depends on it

        while not self._stop.is_set():
            try:
                now = self.client.run(lambda: __import__("psutil").Process().memory_info().rss)
                for k, v in now.items():
                    self.rss[k] = max(self.rss.get(k, 0), int(v))
                    self.start.setdefault(k, int(v))
                info = self.client.scheduler_info()["workers"]
                disk = sum(int(w.get("metrics", {}).get("spilled_bytes", {}).get("disk", 0))
                           for w in info.values())
                self.spill = max(self.spill, disk)
            except Exception:  # noqa: BLE001 - a best-effort sample
                pass
            self._stop.wait(self.every)

    def _cpu(self) -> dict[str, float]:
        try:
            return {k: float(v) for k, v in self.client.run(_cpu_seconds).items()}
        except Exception:  # noqa: BLE001 - a best-effort sample
            return {}

    def __enter__(self) -> Sampler:
        from distributed import get_task_stream

        self._ts = get_task_stream(self.client)
        self._ts.__enter__()
        self.cpu0, self.t0 = self._cpu(), time.perf_counter()
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.t1 = time.perf_counter()
        self.cpu1 = self._cpu()
        self._ts.__exit__(None, None, None)
        self._stop.set()
        self._thread.join()

    def tasks_busy(self) -> list[float]:
        """Each worker's time running tasks over the case's wall time (the task
        stream; unlike CPU time, not lowered by other processes on the machine)."""
        wall = max(self.t1 - self.t0, 1e-9)
        per: dict[str, float] = {}
        for t in getattr(getattr(self, "_ts", None), "data", None) or []:
            for ss in t.get("startstops", ()):
                if ss.get("action") == "compute":
                    w = ss.get("worker", t.get("worker", "?"))
                    per[w] = per.get(w, 0.0) + ss["stop"] - ss["start"]
        return sorted(round(v / wall, 2) for v in per.values())

    def busy(self) -> list[float]:
        """Each worker's CPU time over the case's wall time (1.0: busy throughout)."""
        wall = max(self.t1 - self.t0, 1e-9)
        return sorted(round((self.cpu1[k] - self.cpu0.get(k, 0.0)) / wall, 2)
                      for k in self.cpu1)


def _load() -> list[float]:
    import os

    return [round(v, 2) for v in os.getloadavg()]


def _cpu_seconds() -> float:
    """The calling worker process's CPU seconds (user + system)."""
    import psutil

    t = psutil.Process().cpu_times()
    return t.user + t.system


_REFERENCE = [True]  # --no-reference: skip the reference computations (lowmem runs)
_PASSES = ["auto"]  # --passes: nanaccess's dask_passes option for the grid cases


def _timed(client: Any, lazy: Any, reference: bool = False) -> tuple[Any, float, Sampler]:
    if reference and not _REFERENCE[0]:
        return None, 0.0, Sampler(client)
    with Sampler(client) as s:
        t0 = time.perf_counter()
        out = client.compute(lazy).result()
        dt = time.perf_counter() - t0
    return out, dt, s


def _timed_call(client: Any, build: Any) -> tuple[Any, float, Sampler]:
    """``build()`` (which may compute, under streaming passes) then its compute, timed
    together, under the ``--passes`` option."""
    with Sampler(client) as s, na.option_context(dask_passes=_PASSES[0]):
        t0 = time.perf_counter()
        out = client.compute(build()).result()
        dt = time.perf_counter() - t0
    return out, dt, s


def _passes(lazy: Any) -> int:
    """Passes over the input in an order statistic's graph (histogram + refinements)."""
    layers = getattr(lazy.__dask_graph__(), "layers", {})
    return sum(1 for name in layers if str(name).startswith(("hist_block", "refine_block")))


def _row(case: str, dt: float, ref: str, ref_dt: float, s: Sampler, ref_s: Sampler,
         chunk: int, **extra: Any) -> dict:
    row = dict(case=case, nanaccess_s=round(dt, 3), reference=ref, reference_s=round(ref_dt, 3),
               ratio=round(dt / ref_dt, 3) if ref_dt else None, chunk_bytes=chunk,
               peak_rss_per_worker=sorted(s.rss.values()),
               start_rss_per_worker=sorted(s.start.values()),
               peak_rss_growth_chunks=round(max((v - s.start.get(k, v) for k, v in
                                                 s.rss.items()), default=0) / chunk, 2),
               spilled_bytes=s.spill, worker_busy=s.busy(), worker_tasks_busy=s.tasks_busy(),
               reference_peak_rss=sorted(ref_s.rss.values()),
               reference_peak_rss_growth_chunks=round(max(
                   (v - ref_s.start.get(k, v) for k, v in ref_s.rss.items()), default=0)
                   / chunk, 2),
               reference_spilled_bytes=ref_s.spill, reference_worker_busy=ref_s.busy()
               if ref_s.cpu1 else [], reference_worker_tasks_busy=ref_s.tasks_busy()
               if ref_s.cpu1 else [], passes_mode=_PASSES[0], load_average=_load(),
               **extra)
    print(json.dumps(row))
    return row


def case_1d(client: Any, n: int, nchunks: int = 100, seed: int = 0) -> dict:
    x = da.random.default_rng(seed).standard_normal(n, chunks=-(-n // nchunks))
    med = na.median(x, nan_policy="omit")
    ref, ref_dt, ref_s = _timed(client, x.sum(), True)
    m, dt, s = _timed(client, med)
    m = float(m)
    below, upto = client.compute([(x < m).sum(), (x <= m).sum()], sync=True)
    # the exact median of an even n lies between the two middle ranks
    exact = bool(below <= n // 2 and upto >= n // 2)
    return _row("1-D median vs x.sum()", dt, "x.sum()", ref_dt, s, ref_s,
                x.nbytes // x.numblocks[0], n=n, nchunks=nchunks, passes=_passes(med),
                exact_by_rank_counts=exact)


class _PassLog(logging.Handler):
    """Collects the passes the streaming selection logs (``nanaccess.dask`` at INFO)."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.passes: list[int] = []

    def emit(self, record: logging.LogRecord) -> None:
        msg = record.getMessage()
        if " passes over " in msg:
            self.passes.append(int(msg.split(" passes over ")[0].rsplit(" ", 1)[-1]))


def _streamed(client: Any, x: Any) -> tuple[Any, float, Sampler, int]:
    """``na.median(x)`` with streaming passes (each pass its own compute; at the call
    under "streaming", in the result's task under "auto"): the value, wall time of
    call + compute, the sampler and the passes (0 under "auto": the passes log on the
    worker that runs them)."""
    log = logging.getLogger("nanaccess.dask")
    handler, level = _PassLog(), log.level
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    try:
        mode = "streaming" if _PASSES[0] == "graph" else _PASSES[0]
        with Sampler(client) as s, na.option_context(dask_passes=mode):
            t0 = time.perf_counter()
            out = client.compute(na.median(x, nan_policy="omit")).result()
            dt = time.perf_counter() - t0
    finally:
        log.removeHandler(handler)
        log.setLevel(level)
    return out, dt, s, handler.passes[-1] if handler.passes else 0


def case_1d_streaming(client: Any, n: int, nchunks: int = 100, seed: int = 0,
                      repeat: int = 2) -> dict:
    """The 1-D median with streaming passes against ``x.sum()`` on the same lazy input,
    timed in alternation (best of ``repeat``), exactness by rank counts."""
    x = da.random.default_rng(seed).standard_normal(n, chunks=-(-n // nchunks))
    best, ref_best = float("inf"), float("inf")
    for _ in range(repeat):
        _, ref_dt, ref_s = _timed(client, x.sum(), True)
        m, dt, s, passes = _streamed(client, x)
        if dt < best:
            best, best_s = dt, s
        if ref_dt < ref_best:
            ref_best, best_ref_s = ref_dt, ref_s
    m = float(m)
    below, upto = client.compute([(x < m).sum(), (x <= m).sum()], sync=True)
    exact = bool(below <= n // 2 and upto >= n // 2)
    return _row(f"1-D median, streaming passes ({_PASSES[0]}), vs x.sum()", best,
                "x.sum()", ref_best, best_s, best_ref_s, x.nbytes // x.numblocks[0], n=n,
                nchunks=nchunks, passes=passes, exact_by_rank_counts=exact)


def _grid(shape: tuple[int, int, int], tchunk: int, seed: int = 1) -> xr.DataArray:
    t, y, x = shape
    data = da.random.default_rng(seed).standard_normal(shape, chunks=(tchunk, y, x),
                                                       dtype=np.float32)
    time_ = pd.date_range("2000-01-01", periods=t, freq="D")
    return xr.DataArray(data, dims=("time", "lat", "lon"), coords={"time": time_},
                        name="v")


_REPEAT = [1]  # --repeat: best of N for the grid cases, alternating with the reference


def _best_pair(client: Any, ref_lazy: Any, build: Any) -> tuple:
    """The reference and nanaccess timed in alternation, ``--repeat`` times; the best
    of each (with its sampler)."""
    best = ref_best = None
    for _ in range(_REPEAT[0]):
        ref = _timed(client, ref_lazy, True)
        got = _timed_call(client, build)
        if ref_best is None or ref[1] < ref_best[1]:
            ref_best = ref
        if best is None or got[1] < best[1]:
            best = got
    return ref_best, best


def case_grid(client: Any, shape: tuple[int, int, int], tchunk: int) -> dict:
    a = _grid(shape, tchunk)
    chunk = tchunk * shape[1] * shape[2] * 4
    (_, ref_dt, ref_s), (got, dt, s) = _best_pair(
        client, a.median("time").data,
        lambda: a.nanstats.median("time", nan_policy="omit").data)
    sub = client.compute(a.data[:, :4, :5]).result()
    exact = np.asarray(got)[:4, :5].tobytes() == np.median(sub, axis=0).tobytes()
    return _row("median over time", dt, "xarray median('time')", ref_dt, s, ref_s, chunk,
                shape=list(shape), time_chunk=tchunk, exact_on_sub_block=bool(exact),
                repeat=_REPEAT[0])


def case_groups(client: Any, shape: tuple[int, int, int], tchunk: int) -> dict:
    a = _grid(shape, tchunk)
    chunk = tchunk * shape[1] * shape[2] * 4
    with xr.set_options(use_flox=False):
        ref_lazy = a.groupby("time.month").median().data
    (_, ref_dt, ref_s), (got, dt, s) = _best_pair(
        client, ref_lazy,
        lambda: a.nanstats.groupby("time.month").median(nan_policy="omit").data)
    sub = client.compute(a[:, :3, :4]).result()
    # NumPy per month (xarray's own grouped median of float32 differs by up to an ulp)
    months = sub["time.month"].values
    want = np.stack([np.median(sub.values[months == m], axis=0) for m in np.unique(months)])
    exact = np.asarray(got)[:, :3, :4].tobytes() == want.tobytes()
    return _row("month-grouped median", dt, "xarray groupby median (use_flox=False)",
                ref_dt, s, ref_s, chunk, shape=list(shape), time_chunk=tchunk,
                exact_on_sub_block=bool(exact), repeat=_REPEAT[0])


def run(n: int = 10**8, grid: tuple[int, int, int] = (365, 180, 360), tchunk: int = 73,
        workers: int = 2, memory: str = "2GiB", skip: tuple[str, ...] = (),
        client: Any = None) -> list[dict]:
    """Every case on a fresh LocalCluster (or ``client``); the rows."""
    from distributed import Client, LocalCluster

    rows: list[dict] = []

    def body(c: Any) -> None:
        if "1d" not in skip:
            rows.append(case_1d(c, n))
        if "1d-stream" not in skip:
            rows.append(case_1d_streaming(c, n))
        if "grid" not in skip:
            rows.append(case_grid(c, grid, tchunk))
        if "groups" not in skip:
            rows.append(case_groups(c, grid, tchunk))

    def warm_then_body(c: Any) -> None:
        # a tiny run first: the workers' first call of each path imports and compiles
        # (numba) for minutes on a loaded machine; only the second, full-size run counts
        repeat, _REPEAT[0] = _REPEAT[0], 1
        run(10**4, (62, 4, 5), 31, skip=skip, client=c)
        _REPEAT[0] = repeat
        rows.clear()
        body(c)

    if client is not None:
        body(client)
        return rows
    with dask.config.set({"distributed.worker.memory.spill": 0.7}), \
            LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                         memory_limit=memory, dashboard_address=None) as cluster, \
            Client(cluster) as c:
        warm_then_body(c)
    return rows


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--n", type=float, default=1e8)
    p.add_argument("--grid", default="365,180,360")
    p.add_argument("--time-chunk", type=int, default=73)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--memory", default="2GiB")
    p.add_argument("--lowmem", action="store_true",
                   help="400 MiB workers, inputs several times the cluster's memory")
    p.add_argument("--skip", default="")
    p.add_argument("--no-reference", action="store_true",
                   help="time nanaccess only (xarray's references JIT-compile for minutes)")
    p.add_argument("--rechunk", choices=("tasks", "p2p"), default=None,
                   help="dask's rechunk method for the grid cases (default: dask's choice)")
    p.add_argument("--block-fraction", type=float, default=None,
                   help="grouped blocks of cells: this fraction of an input chunk's bytes")
    p.add_argument("--passes", choices=("graph", "auto", "streaming"), default="auto",
                   help="nanaccess's dask_passes (auto, the default: lazy, the slabs or "
                        "passes run in one task when computed; streaming: at the call; "
                        "graph: one graph); 1d-stream takes streaming under graph")
    p.add_argument("--held-chunks", type=float, default=None,
                   help="slabs of cells: input chunks a worker may hold (dask.cells.HELD_CHUNKS)")
    p.add_argument("--repeat", type=int, default=1,
                   help="grid cases: best of N, timed in alternation with the reference")
    p.add_argument("--out", default=None)
    a = p.parse_args()
    _PASSES[0] = a.passes
    _REPEAT[0] = a.repeat
    if a.held_chunks:
        from nanaccess.dask import cells

        cells.HELD_CHUNKS = a.held_chunks
    if a.block_fraction:
        from nanaccess.xarray import grouped_blocks

        grouped_blocks.BLOCK_FRACTION = a.block_fraction
    grid = tuple(int(v) for v in a.grid.split(","))
    _REFERENCE[0] = not a.no_reference
    memory = "400MiB" if a.lowmem else a.memory
    with dask.config.set({"array.rechunk.method": a.rechunk} if a.rechunk else {}):
        rows = run(int(a.n), grid, a.time_chunk, a.workers, memory,
                   tuple(s for s in a.skip.split(",") if s))
    meta = dict(n=int(a.n), grid=list(grid), time_chunk=a.time_chunk, workers=a.workers,
                memory=memory, lowmem=a.lowmem, rechunk=a.rechunk, passes=a.passes,
                held_chunks=a.held_chunks,
                block_fraction=a.block_fraction)
    if a.out:
        path = pathlib.Path(a.out)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"config": meta, "results": rows}, indent=1))


if __name__ == "__main__":
    main()
