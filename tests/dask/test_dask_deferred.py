"""The default ``dask_passes="auto"`` (issue 17): a statistic whose passes would stream
over an input that is not persisted is a lazy array of one task that runs the passes,
each its own computation, when computed. Nothing runs at the call; the bits, the
errors (raised at compute, naming the whole array's first) and the chunks are those of
the one-graph mode; statistics that need no passes, and persisted inputs, keep their
one graph."""

from __future__ import annotations

import dask
import dask.array as da
import numpy as np
import pandas as pd
import pytest
import xarray as xr

import nanaccess as na
from nanaccess.dask import cells, stream
from nanaccess.errors import NaNError


def _refuse(*args, **kwargs):
    raise AssertionError("computed at the call")


def _deferred(arr) -> bool:
    return any(str(k).startswith("_run_deferred") for k in arr.__dask_graph__())


def _lazy(x, chunks):
    return da.from_array(x, chunks=chunks) + 0  # a graph: not persisted


@pytest.fixture
def passes(monkeypatch):
    """The streaming passes run (their names), spied."""
    seen: list[str] = []
    real = stream.compute_pass

    def spy(what, *lazy):
        seen.append(what)
        return real(what, *lazy)

    monkeypatch.setattr(stream, "compute_pass", spy)
    for mod in ("nanaccess.dask.select", "nanaccess.dask.cells"):
        monkeypatch.setattr(f"{mod}.compute_pass", spy)
    return seen


@pytest.mark.parametrize(("stat", "kw", "axis"), [
    ("median", {}, None), ("quantile", {"q": [0.1, 0.5, 0.9]}, None),
    ("median", {}, 0), ("iqr", {}, 0), ("mad", {}, None), ("median_low", {}, 1)])
def test_nothing_runs_at_the_call_and_the_bits_are_the_graphs(passes, stat, kw, axis):
    rng = np.random.default_rng(3)
    x = rng.normal(size=(60, 20))
    x[rng.random(x.shape) < 0.05] = np.nan
    assert na.get_options()["dask_passes"] == "auto"
    with dask.config.set(scheduler=_refuse):
        lazy = getattr(na, stat)(_lazy(x, (13, 7)), axis=axis, nan_policy="omit", **kw)
    assert passes == [] and _deferred(lazy)
    with na.option_context(dask_passes="graph"):
        graph = getattr(na, stat)(_lazy(x, (13, 7)), axis=axis, nan_policy="omit", **kw)
    assert lazy.shape == graph.shape and lazy.chunks == graph.chunks
    got = lazy.compute()
    assert passes, "the passes ran in the result's task"
    want = getattr(na, stat)(x, axis=axis, nan_policy="omit", **kw)
    assert np.asarray(got).tobytes() == np.asarray(want).tobytes()
    assert np.asarray(graph.compute()).tobytes() == np.asarray(want).tobytes()


def test_no_passes_or_a_persisted_input_keep_the_one_graph(passes):
    x = np.random.default_rng(4).normal(size=500)
    lazy = _lazy(x, 50)
    assert not _deferred(na.sum(lazy, nan_policy="omit"))  # a tree reduction: no passes
    assert not _deferred(na.mean(lazy, nan_policy="omit"))
    kept = na.median(lazy.persist(), nan_policy="omit")
    assert not _deferred(kept)
    assert any(str(k).startswith("refine_block") for k in kept.__dask_graph__().layers)
    with na.option_context(dask_passes="streaming"):  # the explicit mode: at the call
        eager = na.median(lazy, nan_policy="omit")
    assert passes and not _deferred(eager)
    assert eager.compute() == kept.compute() == np.median(x)


def test_errors_are_raised_at_compute_naming_the_whole_arrays_first():
    x = np.arange(300.0)
    x[[211, 57, 250]] = np.nan
    with dask.config.set(scheduler=_refuse):
        lazy = na.median(_lazy(x, 40), nan_policy="raise")
    with pytest.raises(NaNError) as got:
        lazy.compute()
    with pytest.raises(NaNError) as want:
        na.median(x, nan_policy="raise")
    assert str(got.value) == str(want.value) and got.value.position == (57,)
    assert got.value.count == 3


def _months(x, lazy):
    t = pd.date_range("2000-01-01", periods=x.shape[0], freq="7D")
    data = (lambda a: _lazy(a, (10, 12, 30))) if lazy else (lambda a: a)
    return xr.Dataset({"a": (("time", "lat", "lon"), data(x)),
                       "b": (("time", "lat", "lon"), data(x[::-1].copy()))},
                      coords={"time": t})


@pytest.mark.parametrize("policy", ["omit", "raise"])
def test_grouped_dataset_slabs_deferred_first_variable_first(monkeypatch, passes, policy):
    monkeypatch.setattr(cells, "HELD_CHUNKS", 0.3)  # small grids get slabs
    x = np.random.default_rng(5).normal(size=(40, 12, 30)).astype(np.float32)
    x[31, 9, 3] = np.nan  # "a" holds one; "b" (reversed in time) holds it at row 8
    mem = _months(x, False)
    with dask.config.set(scheduler=_refuse):
        lazy = _months(x, True).nanstats.groupby("time.month").median(nan_policy=policy)
    assert passes == [] and _deferred(lazy["b"].data)
    if policy == "raise":
        with pytest.raises(NaNError) as want:
            mem.nanstats.groupby("time.month").median(nan_policy=policy)
        for part in (lazy["b"], lazy):  # "b" alone waits for "a" and raises its error
            with pytest.raises(NaNError) as got:
                part.compute()
            assert str(got.value) == str(want.value) and "'a'" in str(got.value)
        return
    want = mem.nanstats.groupby("time.month").median(nan_policy=policy)
    got = lazy.compute()
    assert len(passes) > 2
    for name in ("a", "b"):
        assert got[name].values.tobytes() == want[name].values.tobytes()
