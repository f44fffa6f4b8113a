"""Everything runs on dask.distributed with worker processes; benchmark body as a test."""

from __future__ import annotations

import importlib.util
import pathlib

import dask.array as da
import numpy as np
import pandas as pd
import pytest
import xarray as xr

import nanaccess.dask  # noqa: F401
import nanaccess.xarray  # noqa: F401
from nanaccess.core.select import order_stat
from nanaccess.dask.array import dask_moment_stat, dask_order_stat
from nanaccess.errors import NaNError

distributed = pytest.importorskip("distributed")

pytestmark = pytest.mark.xdist_group("distributed")  # one xdist worker starts the clusters


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  memory_limit="2GB", dashboard_address=":0") as cluster, \
            distributed.Client(cluster) as c:
        yield c


def _data():
    rng = np.random.default_rng(5)
    x = rng.normal(size=(30, 41))
    x[rng.random(x.shape) < 0.1] = np.nan
    x[3, 4] = -0.0
    return x


def test_order_and_moment_stats_on_cluster(client):
    x = _data()
    dx = da.from_array(x, chunks=(15, 21))
    for axis in (None, 1):
        got = client.compute(dask_order_stat(dx, "median", axis=axis, policy="omit")).result()
        want, _ = order_stat(x, "median", axis=axis, policy="omit")
        assert np.asarray(got).tobytes() == want.tobytes()
    from nanaccess.core.moments import moment_stat

    got = client.compute(dask_moment_stat(dx, "mean", axis=0, policy="omit")).result()
    assert got.tobytes() == moment_stat(x, "mean", axis=0, policy="omit")[0].tobytes()


def test_raise_on_cluster_keeps_class_and_message(client):
    x = _data()
    dx = da.from_array(x, chunks=(15, 21))
    fut = client.compute(dask_order_stat(dx, "median", policy="raise"))
    with pytest.raises(NaNError) as got:
        fut.result()
    with pytest.raises(NaNError) as want:
        order_stat(x, "median", policy="raise")
    assert str(got.value) == str(want.value)


def test_xarray_and_dataframe_on_cluster(client):
    x = _data()
    a = xr.DataArray(x, dims=("t", "y"), name="v").chunk({"t": 7})
    got = a.nanstats.quantile([0.1, 0.5], "t", nan_policy="omit").compute()
    np.testing.assert_array_equal(got.values, np.nanquantile(x, [0.1, 0.5], axis=0))
    import dask.dataframe as dd

    df = pd.DataFrame(x[:, :3], columns=list("abc"))
    ddf = dd.from_pandas(df, npartitions=4)
    med = ddf.nanstats.median(nan_policy="omit").compute()
    pd.testing.assert_series_equal(med, df.median(), check_names=False)


def test_benchmark_body_tiny(client, tmp_path):
    path = pathlib.Path(__file__).parents[2] / "benchmarks" / "bench_dask.py"
    spec = importlib.util.spec_from_file_location("bench_dask", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    res = bench.run(4_001, 3, client, write=False, moments=True)
    assert res["size"] == 4_001 and res["median_time_ratio"] > 0
    assert [r["case"].split(" (")[0] for r in res["rows"]] == [
        "dask median", "dask quantiles", "dask mean", "dask var"]


def test_streaming_passes_on_cluster(client):
    """Each pass its own computation on the cluster (the default Client): the same bits
    as the one-graph mode, and "raise" names the global first NaN at call time."""
    import nanaccess as na

    x = _data().ravel()
    dx = da.from_array(x, chunks=97)
    with na.option_context(dask_passes="streaming"):
        got = dask_order_stat(dx, "quantile", q=[0.1, 0.5, 0.9], policy="omit")
        with pytest.raises(NaNError) as err:
            dask_order_stat(dx, "median", policy="raise")
    want, _ = order_stat(x, "quantile", q=[0.1, 0.5, 0.9], policy="omit")
    assert np.asarray(got.compute()).tobytes() == want.tobytes()
    with pytest.raises(NaNError) as want_err:
        order_stat(x, "median", policy="raise")
    assert str(err.value) == str(want_err.value)
