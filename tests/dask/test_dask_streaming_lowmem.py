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
    med = na.median(x, nan_policy="omit")  # "auto" (the default): lazy, nothing runs
    assert c.run(_written_to_disk) and not any(c.run(_written_to_disk).values())
    got = med.compute()  # one task runs the passes, each its own computation
    m = (1 << K) - NAN  # values left: 0.7 * k + 0.25 for k < m
    f = np.float64(0.7) * np.arange(m // 2 - 1, m // 2 + 1, dtype=np.float64) + 0.25
    want = np.median(f) if m % 2 == 0 else f[1]
    assert np.asarray(got).tobytes() == np.float64(want).tobytes()
    written = sum(c.run(_written_to_disk).values())
    # cumulative disk writes: the one-graph mode writes about 3.2 times the input
    # (408 MiB here: chunks and refinement parts spill and come back). Streaming reads
    # each chunk inside the one task of a pass that uses it (blockwise fusion), so no
    # chunk waits in memory for other consumers however far a loaded scheduler runs
    # ahead: only small records (histograms, gathered keys) can spill
    assert written < x.nbytes / 8
