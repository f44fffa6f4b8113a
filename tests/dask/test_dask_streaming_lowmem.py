"""Issue 17's low-memory 1-D test: streaming passes over a lazily generated input many
times the workers' data memory.

Worker processes with numpy, pandas, xarray and nanaccess loaded hold about 220 MiB
before any data, so the process limit here is 400 MiB (a nanny kills a worker past
98% of it) and the memory a worker may fill with data before spilling to disk
(``distributed.worker.memory.target``) is 16 MiB: the 128 MiB input is four times the
cluster's data memory. With the default ``dask_passes="auto"`` the result is lazy
and, when computed, one task on a worker runs the passes as their own computations on
the cluster (``worker_client``); each pass regenerates each chunk inside its one task,
so the exact median finishes writing less than an eighth of the input to disk (the
one-graph mode holds every chunk until its last pass: it writes about three times the
input). The input is a permutation of ``0.7 * k + 0.25``, so the exact median is known.
"""

from __future__ import annotations

import numpy as np
import pytest

distributed = pytest.importorskip("distributed")
dask = pytest.importorskip("dask")

pytestmark = [pytest.mark.xdist_group("distributed"), pytest.mark.slow]

K = 24  # 2**24 float64: 128 MiB, in 32 chunks of 4 MiB (few tasks: a loaded machine
CHUNKS = 32  # spends more on each task than on its data)
NAN = 1001  # the largest values become NaN (omitted)
LIMIT = 400 * 2**20
TARGET = 16 * 2**20  # data memory per worker


@pytest.fixture(scope="module")
def low_memory_client():
    conf = {"distributed.worker.memory.target": TARGET / LIMIT,
            "distributed.worker.memory.spill": False,
            "distributed.worker.memory.pause": False,
            "distributed.worker.memory.terminate": 0.98}
    with dask.config.set(conf), \
            distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                     memory_limit=LIMIT, dashboard_address=":0") as cluster, \
            distributed.Client(cluster) as c:
        yield c


def _lazy_input():
    import dask.array as da

    n = 1 << K

    def positions(block_info=None):
        # a closure (pickled by value: the workers need not import this module);
        # generated blockwise, unlike da.arange, so each chunk is made inside its
        # consumer's task
        lo, hi = block_info[None]["array-location"][0]
        return np.arange(lo, hi, dtype=np.int64)

    i = da.map_blocks(positions, chunks=((n // CHUNKS,) * CHUNKS,), dtype=np.int64,
                      meta=np.empty(0, np.int64))
    p = (i * 0x2545F4914F6CDD1D) & (n - 1)  # an odd multiplier: a permutation of 0..n-1
    v = p.astype(np.float64) * 0.7 + 0.25
    return da.where(p >= n - NAN, np.nan, v)


def _written_to_disk(dask_worker) -> float:
    return float(dask_worker.data.cumulative_metrics.get(("disk-write", "bytes"), 0.0))


def test_streaming_median_of_input_four_times_data_memory(low_memory_client):
    import nanaccess as na

    c = low_memory_client
    x = _lazy_input()
    assert x.nbytes >= 4 * 2 * TARGET
    before = sum(c.run(_written_to_disk).values())
    med = na.median(x, nan_policy="omit")  # "auto" (the default): lazy, nothing runs
    got = med.compute()  # one task runs the passes, each its own computation
    m = (1 << K) - NAN  # values left: 0.7 * k + 0.25 for k < m
    f = np.float64(0.7) * np.arange(m // 2 - 1, m // 2 + 1, dtype=np.float64) + 0.25
    want = np.median(f) if m % 2 == 0 else f[1]
    assert np.asarray(got).tobytes() == np.float64(want).tobytes()
    written = sum(c.run(_written_to_disk).values()) - before
    # cumulative disk writes: the one-graph mode writes about 3.2 times the input
    # (408 MiB here: chunks and refinement parts spill and come back). Streaming reads
    # each chunk inside the one task of a pass that uses it (blockwise fusion), so no
    # chunk waits in memory for other consumers however far a loaded scheduler runs
    # ahead: only small records (histograms, gathered keys) can spill
    assert written < x.nbytes / 8


# ---------------------------------------------------------------------------------
# a time x lat x lon grid: a median over time and a month-grouped median
# ---------------------------------------------------------------------------------

GRID = (512, 128, 512)  # float32: 128 MiB, in 32 time chunks of 4 MiB
TCHUNK = 16


def _grid_values():
    """The grid's values from their global indices (a closure: pickled by value)."""
    def values(t0: int, t1: int, y0: int, y1: int, x0: int, x1: int) -> np.ndarray:
        t, y, x = np.ogrid[t0:t1, y0:y1, x0:x1]
        flat = ((t * GRID[1] + y) * GRID[2] + x).astype(np.uint64)
        h = (flat * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(40)  # 24 bits
        v = (h.astype(np.float32) / np.float32(2**24) - np.float32(0.5))
        return np.where(h % np.uint64(97) == 0, np.float32(np.nan), v)  # ~1 % NaN
    return values


def _lazy_grid():
    import dask.array as da
    import pandas as pd
    import xarray as xr

    values = _grid_values()

    def block(block_info=None):
        (t0, t1), (y0, y1), (x0, x1) = block_info[None]["array-location"]
        return values(t0, t1, y0, y1, x0, x1)

    t, y, x = GRID
    data = da.map_blocks(block, chunks=((TCHUNK,) * (t // TCHUNK), (y,), (x,)),
                         dtype=np.float32, meta=np.empty((0, 0, 0), np.float32))
    time = pd.date_range("2000-01-01", periods=t, freq="D")
    return xr.DataArray(data, dims=("time", "lat", "lon"), coords={"time": time})


def _sub_block(lazy):
    """The in-memory DataArray of lat 0:4, lon 0:8 (every time step)."""
    import xarray as xr

    vals = _grid_values()(0, GRID[0], 0, 4, 0, 8)
    return xr.DataArray(vals, dims=lazy.dims, coords={"time": lazy["time"].values})


@pytest.mark.parametrize("case", ["median over time", "month-grouped median"])
def test_grid_statistics_of_input_four_times_data_memory(low_memory_client, case):
    import nanaccess  # noqa: F401 - registers the accessors

    c = low_memory_client
    a = _lazy_grid()
    assert a.nbytes >= 4 * 2 * TARGET
    before = sum(c.run(_written_to_disk).values())
    if case == "median over time":  # slabs of cells, deferred into one task
        run = lambda d: d.nanstats.median("time", nan_policy="omit")  # noqa: E731
    else:
        run = lambda d: d.nanstats.groupby("time.month").median(nan_policy="omit")  # noqa: E731
    lazy = run(a)
    # the slabs of cells, deferred into one task (the one-graph mode would hold the
    # input: an all-to-all rechunk; dask's p2p rechunk writes it to its own disk
    # store, which the spill counters below do not see)
    assert any(str(k).startswith("_run_deferred") for k in lazy.data.__dask_graph__())
    got = lazy.values  # computed on the cluster
    want = run(_sub_block(a)).values
    assert got[..., :4, :8].tobytes() == want.tobytes()
    written = sum(c.run(_written_to_disk).values()) - before
    assert written < a.nbytes / 8
