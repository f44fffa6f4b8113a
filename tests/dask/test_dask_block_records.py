"""The per-block core path raises from the blocks' own error records (issue 17): no
block waits for a scan of the whole input, and "raise" still names the global count
and first position, as NumPy in memory does, whatever the chunking."""

from __future__ import annotations

import numpy as np
import pytest

import nanaccess as na

da = pytest.importorskip("dask.array")


def _error(fn):
    with pytest.raises(na.NaNError) as info:
        fn().compute()
    err = info.value
    return type(err), str(err), err.count, err.position


def _grid(seed: int = 0) -> np.ndarray:
    x = np.random.default_rng(seed).normal(size=(30, 16, 24)).astype(np.float32)
    x[21, 9, 3] = np.nan  # the first in C order, in the last time chunk
    x[25, 0, 0] = x[29, 15, 23] = np.nan
    return x


# (chunks, axis): whole reduced axes per block, and a grid chunked along time whose
# many cells per chunk make the selection bring time whole into blocks of cells
_CASES = [((30, 5, 7), 0), ((10, 16, 24), 0), ((10, 16, 24), (0, 2)), ((6, 4, 24), 2)]


@pytest.mark.parametrize(("chunks", "axis"), _CASES)
@pytest.mark.parametrize(("stat", "kw"), [("median", {}), ("quantile", {"q": [0.1, 0.9]}),
                                          ("iqr", {}), ("max", {})])
def test_raise_names_the_global_first_and_count(stat, kw, chunks, axis):
    x = _grid()
    lazy = da.from_array(x, chunks=chunks)
    want = _error(lambda: da.from_array(np.asarray(
        getattr(na, stat)(x, axis=axis, nan_policy="raise", **kw))))
    got = _error(lambda: getattr(na, stat)(lazy, axis=axis, nan_policy="raise", **kw))
    assert got == want and got[2] == 3 and got[3] == (21, 9, 3)


def _want_error(fn):
    try:
        fn()
    except na.NaNError as err:
        return type(err), str(err), err.count, err.position
    raise AssertionError("no error")


@pytest.mark.parametrize(("chunks", "axis"), _CASES)
def test_raise_names_what_numpy_names(chunks, axis):
    x = _grid(1)
    want = _want_error(lambda: na.median(x, axis=axis, nan_policy="raise"))
    got = _error(lambda: na.median(da.from_array(x, chunks=chunks), axis=axis,
                                   nan_policy="raise"))
    assert got == want
    # a part of the result whose own cells are clean raises it too
    part = na.median(da.from_array(x, chunks=chunks), axis=axis, nan_policy="raise")
    assert _error(lambda: part[:2]) == want


@pytest.mark.parametrize(("chunks", "axis"), _CASES)
@pytest.mark.parametrize("policy", ["omit", "propagate", "largest"])
def test_values_equal_numpy_bit_for_bit(chunks, axis, policy):
    x = _grid(2)
    lazy = na.median(da.from_array(x, chunks=chunks), axis=axis, nan_policy=policy)
    want = na.median(x, axis=axis, nan_policy=policy)
    assert np.asarray(lazy.compute()).tobytes() == np.asarray(want).tobytes()


def test_blocks_do_not_wait_for_a_global_scan():
    """The per-block core tasks depend on the input alone: the records are reduced
    beside them and only the small results wait for them."""
    x = da.from_array(_grid(3), chunks=(10, 16, 24))
    res = na.median(x, axis=0, nan_policy="raise")
    graph = res.__dask_graph__()
    cores = [name for name in graph.layers if str(name).startswith("_pair_block")]
    assert cores, list(graph.layers)
    upstream: set = set()
    todo = [d for c in cores for d in graph.dependencies[c]]
    while todo:
        name = todo.pop()
        if name not in upstream:
            upstream.add(name)
            todo.extend(graph.dependencies[name])
    assert not [n for n in upstream if str(n).startswith(("_merge", "_info", "merge"))], upstream
