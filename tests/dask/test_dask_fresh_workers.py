"""Real clusters: worker processes that never imported nanaccess (spawned), and again
after a restart. Everything shipped to the workers must import nanaccess by itself.

This module imports nanaccess only inside the tests (and the fixture): a spawned
worker that unpickles a function of this module imports the module, and a top-level
``import nanaccess`` would then hide the fault under test.
"""

from __future__ import annotations

import sys

import numpy as np
import pandas as pd
import pytest

distributed = pytest.importorskip("distributed")
dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")
xr = pytest.importorskip("xarray")

pytestmark = pytest.mark.xdist_group("distributed")


@pytest.fixture(scope="module")
def fresh_client():
    with dask.config.set({"distributed.worker.multiprocessing-method": "spawn"}), \
            distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                     memory_limit="1GiB", dashboard_address=":0") as cluster, \
            distributed.Client(cluster) as c:
        yield c


def _imported(client) -> list[bool]:
    # a lambda is pickled by value: running it imports nothing on the worker
    return list(client.run(lambda: "nanaccess" in sys.modules).values())


def _data():
    rng = np.random.default_rng(17)
    x = rng.normal(size=(40, 6))
    x[rng.random(x.shape) < 0.15] = np.nan
    pdf = pd.DataFrame(x[:, :3], columns=["a", "b", "c"])
    pdf["k"] = rng.integers(0, 5, len(pdf))
    return x, pdf


def _cases(x, pdf):
    """(name, lazy result, expected) of every host: nothing is computed here."""
    import dask.array as da

    import nanaccess as na  # noqa: F401 - registers the accessors in this process

    ddf = dd.from_pandas(pdf, npartitions=3)
    want_g = pdf.groupby("k").nanstats.median(nan_policy="omit")
    arr = xr.DataArray(x, dims=("t", "y")).chunk({"t": 9})
    return [
        ("ddf.nanstats.groupby", ddf.nanstats.groupby("k").median(nan_policy="omit"), want_g),
        ("ddf.groupby.nanstats", ddf.groupby("k").nanstats.median(nan_policy="omit"), want_g),
        ("ddf.nanstats", ddf.nanstats.median(nan_policy="omit"),
         pdf.nanstats.median(nan_policy="omit")),
        ("dask array", na.median(da.from_array(x, chunks=(9, 4)), axis=0, nan_policy="omit"),
         np.nanmedian(x, axis=0)),
        ("xarray on dask", arr.nanstats.median("t", nan_policy="omit"),
         np.nanmedian(x, axis=0)),
        # not persisted ("+ 0"): the passes are deferred into one task that runs them on
        # the cluster when computed (a worker of one thread: the task secedes)
        ("deferred passes", na.median(da.from_array(x, chunks=(9, 4)) + 0, axis=0,
                                      nan_policy="omit"), np.nanmedian(x, axis=0)),
        ("deferred 1-D passes", na.median(da.from_array(x.ravel(), chunks=50) + 0,
                                          nan_policy="omit"), np.nanmedian(x)),
    ]


def _check(client, cases):
    for name, lazy, want in cases:
        got = client.compute(lazy).result()
        if isinstance(want, pd.DataFrame):
            got = got.sort_index()
            pd.testing.assert_frame_equal(got, want, check_exact=True, obj=name)
        elif isinstance(want, pd.Series):
            pd.testing.assert_series_equal(got, want, check_exact=True, obj=name)
        else:
            got = np.asarray(getattr(got, "values", got))
            assert got.tobytes() == np.asarray(want).tobytes(), name


def test_fresh_worker_processes_then_restart(fresh_client):
    x, pdf = _data()
    assert _imported(fresh_client) == [False]
    _check(fresh_client, _cases(x, pdf))
    assert _imported(fresh_client) == [True]  # unpickling imported nanaccess
    fresh_client.restart()
    assert _imported(fresh_client) == [False]
    _check(fresh_client, _cases(x, pdf))
