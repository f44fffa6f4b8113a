"""The dask selection's first pass reads each input chunk in one task (issue 17).

Every quantity of the first pass (histogram or extreme keys, counts per row, largest
NaN key, the NaN tally) comes from one function per chunk, so dask's blockwise fusion
computes a lazily generated chunk inside that task and never stores it: checked on
the optimized graph. The counts and the tally are checked against NumPy.
"""

from __future__ import annotations

import dask
import dask.array as da
import numpy as np
import pytest
from dask._task_spec import Alias
from test_dask_array import nasty

import nanaccess as na
from nanaccess.core.keys import float_keys
from nanaccess.core.policy import NanTally
from nanaccess.core.select import order_stat
from nanaccess.dask.array import dask_order_stat
from nanaccess.dask.select import _first_pass, _Plan, _refine_pass, first_bits
from nanaccess.options import resolve_policy


@pytest.fixture(autouse=True)
def _sync_scheduler():
    with dask.config.set(scheduler="sync"):
        yield


def _nan_big(b):
    return np.where(b > 2.0, np.nan, b)


def _lazy(shape, chunks):
    """A lazily generated float64 array with NaNs (blockwise layers only)."""
    x = da.random.default_rng(3).standard_normal(shape, chunks=chunks)
    return da.map_blocks(_nan_big, x, dtype=x.dtype)


def _stored_input(g, x) -> list:
    """Keys of ``x``'s own layers (generating or reading its chunks) left in ``g``: a
    layer fused into its consumer leaves none."""
    names = set(x.__dask_graph__().layers)
    return [k for k in g if (k[0] if isinstance(k, tuple) else k) in names]


def _plan(x, stat, axes, policy):
    return _Plan(x, stat, None, "linear", axes, resolve_policy(policy), np.dtype(x.dtype),
                 None, None, x.shape, first_bits(x, axes))


def _tasks(*lazy):
    """The optimized low-level graph of ``lazy`` (aliases left out)."""
    g: dict = {}
    for a in dask.optimize(*lazy):
        g.update(dict(a.__dask_graph__()))
    return {k: v for k, v in g.items() if not isinstance(v, Alias)}


@pytest.mark.parametrize("stat", ["median", "max"])
@pytest.mark.parametrize(("shape", "chunks", "axes"), [
    ((4000,), (500,), (0,)),  # 1-D: 8 chunks
    ((6, 900), (3, 300), (1,)),  # kept rows: 2 x 3 chunks
    ((6, 900), (3, 300), (0, 1)),
])
@pytest.mark.parametrize("policy", ["omit", "propagate", "raise"])
def test_first_pass_one_task_per_chunk(stat, shape, chunks, axes, policy):
    x = _lazy(shape, chunks)
    p = _plan(x, stat, axes, policy)
    first = _first_pass(x, p)
    g = _tasks(first["state"], first["counts"])
    assert not _stored_input(g, x)  # no input chunk is a stored task output
    reads = [k for k, v in g.items() if not v.dependencies]
    assert len(reads) == x.npartitions  # one task generates and counts each chunk


def test_graph_mode_one_consumer_layer_per_pass():
    x = _lazy((4000,), (500,))
    with na.option_context(dask_passes="graph"):
        med = dask_order_stat(x, "median", policy="omit")
    hlg = med.__dask_graph__()
    users = sorted(n.rsplit("-", 1)[0] for n in hlg.dependents[x.name])
    refinements = _plan(x, "median", (0,), "omit").refinements
    assert users == ["hist_block"] + ["refine_block"] * refinements


@pytest.mark.parametrize("policy", ["omit", "propagate", "totalorder"])
def test_first_pass_counts_and_tally(policy):
    rng = np.random.default_rng(7)
    xn = nasty(rng, (5, 240))
    x = da.from_array(xn, chunks=(2, 70))
    p = _plan(x, "median", (1,), policy)
    p.tally = True  # the tally as a policy that raises would build it
    first = _first_pass(x, p)
    counts = first["counts"].compute()
    nan = np.isnan(xn)
    removes = resolve_policy(policy) is resolve_policy("omit")
    n = 240 - nan.sum(axis=1) if removes else np.full(5, 240)
    assert counts[:, 0].tolist() == n.tolist()
    if policy != "totalorder":
        assert counts[:, 1].tolist() == nan.sum(axis=1).tolist()
    if policy == "propagate":  # the largest NaN key of each row
        keys = np.where(nan, float_keys(xn).astype(np.int64), np.iinfo(np.int64).min)
        assert counts[:, 3].tolist() == keys.max(axis=1).tolist()
    got = NanTally.from_array(first["info"].compute())  # merged over the row blocks
    want = NanTally.from_masks(nan=nan, signaling=nan & _signaling(xn))
    assert got == want


def _signaling(xn):
    from nanaccess.dask.tally import signaling_mask

    return signaling_mask(xn)[1]


@pytest.mark.parametrize(("shape", "chunks", "axes"), [
    ((4000,), (500,), (0,)),
    ((6, 900), (3, 300), (1,)),
])
def test_refine_pass_one_task_per_chunk(shape, chunks, axes):
    x = _lazy(shape, chunks)
    p = _plan(x, "median", axes, "omit")
    state = _first_pass(x, p)["state"].compute()
    lazy = _refine_pass(x, state, p)  # as streaming passes it: computed
    g = _tasks(lazy)
    if p.kept:
        # a blockwise input (the rows' state) beside the chunk: dask fuses the chunk's
        # blockwise layers; the materialized random layer stays (one dependent)
        g = {k: v for k, v in g.items() if "standard_normal" not in str(k)}
    assert not _stored_input(g, x)
    # the tasks that read a chunk depend on nothing or on the boxed state of their rows
    reads = [k for k, v in g.items()
             if all("box_block" in str(d) or "standard_normal" in str(d)
                    for d in v.dependencies) and "box_block" not in str(k)
             and "array" not in str(k)]
    assert len(reads) == x.npartitions


@pytest.mark.parametrize("dtype", ["f8", "f4", "f2"])
@pytest.mark.parametrize("policy", ["omit", "propagate", "raise", "smallest"])
def test_one_row_blocks_with_and_without_specials(dtype, policy):
    # the one-row first pass scans for infinities and NaNs only in blocks whose
    # histogram counts one: clean blocks, a NaN, a -NaN, an infinity, a -infinity
    rng = np.random.default_rng(9)
    xn = rng.standard_normal(600).astype(dtype)
    xn[130] = np.nan
    xn[260] = -np.nan
    xn[390] = np.inf
    xn[520] = -np.inf
    x = da.from_array(xn, chunks=100)
    p = _plan(x, "median", (0,), policy)
    p.tally = True
    first = _first_pass(x, p)
    counts, info = dask.compute(first["counts"], first["info"])
    t = NanTally.from_array(info)
    assert (t.nan, t.first_nan) == (2, 130)
    if policy in ("omit", "propagate"):
        assert counts[1] == 2
    if policy == "propagate":
        assert counts[3] == float_keys(xn[[130, 260]]).astype(np.int64).max()
    if policy != "raise":
        want = order_stat(xn, "median", policy=policy)[0]
        got = dask_order_stat(x, "median", policy=policy).compute()
        assert np.asarray(got).tobytes() == np.asarray(want).tobytes()
    clean = da.from_array(xn[:100], chunks=50)  # no special anywhere: no scan
    pc = _plan(clean, "median", (0,), policy)
    pc.tally = True
    cf = _first_pass(clean, pc)
    assert NanTally.from_array(cf["info"].compute()) == NanTally()
    assert cf["counts"].compute()[:3].tolist() == [100, 0, 0]
