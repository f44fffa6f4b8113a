"""Issue 17's low-memory grid test, at a size the suite can afford.

Worker processes with numpy, pandas, xarray and numba loaded already hold about
250 MB, so a process limit of "a few hundred MiB" leaves nothing for data (a worker
paused at start never runs a task), and an input several times the cluster's memory
would take minutes to generate and spill on the test machine
(``benchmarks/bench_scale.py --lowmem`` runs that case by hand). Here the workers
keep a 1 GiB process limit but may hold only ~6 MB of data each in memory
(``distributed.worker.memory.target``): the lazily generated grid is about four times
the cluster's data memory, so its chunks, the rechunked blocks of cells and the
results go to disk and back. The median over time and the month-grouped median must
finish and equal NumPy bit for bit on a sub-block.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

distributed = pytest.importorskip("distributed")
dask = pytest.importorskip("dask")
xr = pytest.importorskip("xarray")

pytestmark = pytest.mark.xdist_group("distributed")

SHAPE = (365, 120, 240)  # float32: 42 MB, in time chunks of 8.4 MB
DATA_MEMORY = 0.005  # of the 1 GiB limit: ~5.4 MB of data per worker


@pytest.fixture(scope="module")
def small_data_client():
    conf = {"distributed.worker.memory.target": DATA_MEMORY,
            "distributed.worker.memory.spill": False,
            "distributed.worker.memory.pause": False,
            "distributed.worker.memory.terminate": False}
    with dask.config.set(conf), \
            distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                     memory_limit="1GiB", dashboard_address=":0") as cluster, \
            distributed.Client(cluster) as c:
        yield c


def _grid():
    import dask.array as da

    data = da.random.default_rng(3).standard_normal(SHAPE, chunks=(73, -1, -1),
                                                    dtype=np.float32)
    t = pd.date_range("2001-01-01", periods=SHAPE[0])
    return xr.DataArray(data, dims=("time", "lat", "lon"), coords={"time": t})


def _written_to_disk(dask_worker) -> float:
    """Bytes the worker's spill buffer wrote to disk so far (run on each worker)."""
    return float(dask_worker.data.cumulative_metrics.get(("disk-write", "bytes"), 0.0))


def test_grid_cases_finish_exact_with_the_data_on_disk(small_data_client):
    import nanaccess.xarray  # noqa: F401

    c = small_data_client
    a = _grid()
    assert a.nbytes > 3 * 2 * DATA_MEMORY * 2**30
    over_time = a.nanstats.median("time", nan_policy="omit")
    by_month = a.groupby("time.month").nanstats.median(nan_policy="omit")
    got_t, got_m = c.compute([over_time.data, by_month.data], sync=True)
    written = sum(c.run(_written_to_disk).values())
    assert written > a.nbytes / 2  # the data went to disk and back
    sub = c.compute(a.data[:, :3, :4], sync=True)
    assert got_t[:3, :4].tobytes() == np.median(sub, axis=0).tobytes()
    months = a["time.month"].values
    want = np.stack([np.median(sub[months == m], axis=0) for m in range(1, 13)])
    assert got_m[:, :3, :4].tobytes() == want.tobytes()
