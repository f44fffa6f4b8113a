"""Shared by the dask selection and moments: result dtype, the per-block core path,
keepdims, and the last task that raises from the tally before handing the values on.

The per-block core path (:func:`per_block_core`) raises from error records, not from
a global scan the blocks wait for: each block tallies its own NaN and missing values
(positions global, C order over the array: a block is a box, so its C order is the
array's), runs the core unless the policy refuses its tally, and hands on its values
with its record. The records are reduced as a tree (counts add, the first position
wins: :meth:`nanaccess.core.policy.NanTally.merge_arrays`) and only the small results
wait for them, so the count and first position are those of the whole array, as the
NumPy path names them, and a block is freed as soon as its core ran."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any, cast

import dask.array as da
import numpy as np

from ..core.chunked import NanTally, raise_for
from ..core.reduce import reduce, result_dtype
from ..errors import NaNError
from ..options import NanPolicy
from .tally import block_tally, globalize, raise_from_info
from .typed_dask import blockwise, map_blocks, rechunk, reduction

__all__ = ["out_dtype", "apply_keepdims", "axes_whole", "whole_axes", "bounded_whole_axes",
           "chunk_bytes", "per_block_core",
           "check_then", "core_reduce", "core_moment", "block_record",
           "merge_tallies"]


def out_dtype(x: da.Array, stat: str, axes: tuple[int, ...], **params: Any) -> np.dtype:
    """Result dtype, from the table's rule (:func:`nanaccess.core.reduce.result_dtype`,
    which validates ``params`` as the core does, at graph construction)."""
    return result_dtype(stat, x.dtype, **params)


def axes_whole(x: da.Array, axes: tuple[int, ...]) -> bool:
    """Whether every reduced axis lies in one chunk (the core can run per block)."""
    return x.ndim == 0 or all(x.numblocks[a] == 1 for a in axes)


def whole_axes(x: da.Array, axes: tuple[int, ...]) -> da.Array:
    """``x`` rechunked so that every reduced axis lies in one chunk."""
    if axes_whole(x, axes):
        return x
    return rechunk(x, {a: (-1 if a in axes else "auto") for a in range(x.ndim)})


def chunk_bytes(x: da.Array) -> int:
    """Bytes of the largest chunk of ``x`` (unknown sizes: dask's default chunk size)."""
    import math

    import dask

    sizes = [max(c) if c and not any(math.isnan(v) for v in c) else None for c in x.chunks]
    if any(s is None for s in sizes):
        return int(dask.utils.parse_bytes(dask.config.get("array.chunk-size")))
    return cast("int", max(math.prod(sizes) * x.dtype.itemsize, 1))


def bounded_whole_axes(x: da.Array, axes: tuple[int, ...],
                       limit: int | None = None) -> da.Array:
    """``x`` rechunked so that every reduced axis lies in one chunk while no chunk
    grows beyond ``limit`` bytes (default: the largest input chunk): the kept axes
    are split into blocks of cells instead, so the work spreads over many tasks and
    each task holds about one input chunk (at least one cell: a single cell's whole
    reduced axes may be larger)."""
    if axes_whole(x, axes):
        return x
    limit = chunk_bytes(x) if limit is None else limit
    return rechunk(x, {a: (-1 if a in axes else "auto") for a in range(x.ndim)},
                   block_size_limit=limit)


def apply_keepdims(res: da.Array, axes: tuple[int, ...], ndim: int, lead: int,
                   keepdims: bool) -> da.Array:
    """Insert the reduced axes (length one) after ``lead`` leading (quantile) axes."""
    if not keepdims:
        return res
    index: list[Any] = [slice(None)] * lead
    for a in range(ndim):
        index.append(None if a in axes else slice(None))
    return cast("da.Array", res[tuple(index)])


def _is_tally(info: da.Array | None) -> bool:
    """Whether ``info`` is the global tally of the data (:func:`.tally.global_info`:
    six int64), which the blocks' own records replace; a caller's check (a one-chunk
    bool array whose task does its own checking) stays a dependency."""
    return info is not None and info.dtype == np.int64 and tuple(info.shape) == (6,)


def per_block_core(
    x: da.Array,
    fn: Callable[..., Any],
    axes: tuple[int, ...],
    keepdims: bool,
    dtype: np.dtype,
    qshape: tuple[int, ...],
    info: da.Array | None,
    policy: NanPolicy,
    relabel: Any,
) -> da.Array:
    """Run ``fn(block, axes)`` (the core) on each block; the reduced axes are whole.

    ``info``: the global tally (replaced by the blocks' records, see the module
    docstring), a caller's check (a dependency of every block), or None.
    ``fn`` is shipped to the workers: make it a module-level function (or a
    :func:`functools.partial` of one), never a closure, so that unpickling it imports
    nanaccess on a fresh worker."""
    if _is_tally(info) and x.ndim:
        return cast("da.Array",
               _recorded_core(x, fn, axes, keepdims, dtype, qshape, policy, relabel))
    nd = x.ndim
    xi = tuple(f"d{i}" for i in range(nd))
    qi = tuple(f"q{i}" for i in range(len(qshape)))
    out_ind = qi + xi
    args: list[Any] = [x, xi]
    if info is not None:
        args += [info, ("info",)]
    shape = tuple(x.shape)
    res = blockwise(
        _core_block,
        out_ind,
        *args,
        new_axes={k: s for k, s in zip(qi, qshape, strict=True)},
        adjust_chunks={xi[a]: 1 for a in axes},
        dtype=dtype,
        concatenate=True,
        meta=np.empty((0,) * len(out_ind), dtype=dtype),
        fn=fn, axes=axes, qshape=qshape, policy=policy, shape=shape, relabel=relabel,
    )
    return _drop_reduced(res, axes, len(qi), nd, keepdims)


def _drop_reduced(res: da.Array, axes: Any, lead: int, nd: int, keepdims: bool) -> da.Array:
    if keepdims:
        return res
    index = (slice(None),) * lead + tuple(0 if a in axes else slice(None) for a in range(nd))
    return cast("da.Array", res[index])


def _core_block(b: Any, *inf: Any, fn: Any, axes: Any, qshape: Any, policy: Any, shape: Any,
                relabel: Any) -> Any:
    """One block of :func:`per_block_core`: raise from the tally, then ``fn``."""
    raise_from_info(inf[0] if inf else None, policy, shape, relabel)
    return _core_values(b, fn, axes, qshape)


def _core_values(b: np.ndarray, fn: Any, axes: Any, qshape: Any) -> np.ndarray:
    v = np.asarray(fn(b, axes))
    return v.reshape(qshape + tuple(1 if a in axes else b.shape[a] for a in range(b.ndim)))


def block_record(b: np.ndarray, block_info: dict[Any, Any] | None) -> NanTally:
    """The :class:`NanTally` of one block, its positions flat C order over the array
    (``block_info``: dask's, for the block's place)."""
    t = block_tally(b)
    if not (t.signaling or t.nan or t.missing) or not b.ndim:
        return t
    starts = [lo for lo, _ in block_info[0]["array-location"]]
    shape = tuple(block_info[0]["shape"])

    def glob(p: int | None) -> int | None:
        if p is None:
            return None
        local = np.unravel_index(p, b.shape)
        return int(np.ravel_multi_index(
            tuple(int(i) + s for i, s in zip(local, starts, strict=True)), shape))

    return NanTally(t.signaling, glob(t.first_signaling), t.nan, glob(t.first_nan),
                    t.missing, glob(t.first_missing))


def _pair_block(b: np.ndarray, *, fn: Any, axes: Any, qshape: Any, policy: Any, vdtype: Any,
                block_info: dict[Any, Any] | None = None) -> np.ndarray:
    """One task of :func:`_recorded_core`: the block's values (zeros when the policy
    refuses its tally: the merged records raise for it) and its record, as a
    1-element object array."""
    fused = _fused(b, fn, axes)
    if fused is not None:  # the tally from the statistic's own pass over the block
        local, compute = fused
        t = globalize(local, b.shape, block_info)
    else:
        t = block_record(b, block_info)
    try:
        raise_for(t, policy, shape=tuple(block_info[0]["shape"]) if block_info else ())
        vals = compute() if fused is not None else _core_values(b, fn, axes, qshape)
    except NaNError:
        vals = np.zeros(qshape + tuple(1 if a in axes else b.shape[a] for a in range(b.ndim)),
                        vdtype)
    out = np.empty((1,) * b.ndim, object)
    out.reshape(-1)[0] = (vals, t.as_array())
    return out


def _fused(b: np.ndarray, fn: Any, axes: tuple[int, ...]) -> Any:
    """(tally, values thunk) of :func:`.leading.leading_with_tally` when ``fn`` is its
    order statistic and serves this block, or of :func:`.grid.grid_with_tally` for
    the moments; else None."""
    from .leading import leading_order, leading_with_tally, served

    if isinstance(fn, partial) and fn.func is core_moment:  # gridded moments
        from .grid import grid_with_tally

        return grid_with_tally(b, axes, **fn.keywords)
    if not isinstance(fn, partial) or fn.func is not leading_order:
        return None
    kw = fn.keywords
    if not served(b, axes, kw["stat"], kw["policy"]):
        return None
    return leading_with_tally(b, axes, **kw)


def _values_of(pair: np.ndarray) -> np.ndarray:
    return cast("np.ndarray", pair.reshape(-1)[0][0])


def _record_of(pair: np.ndarray) -> np.ndarray:
    return cast("np.ndarray", pair.reshape(-1)[0][1].reshape((1,) * pair.ndim + (6,)))


def merge_tallies(b: np.ndarray, axis: Any = None, keepdims: bool = True) -> np.ndarray:
    """Tree step of the records' reduction (the last axis holds a six-int tally)."""
    flat = np.asarray(b, np.int64).reshape(-1, 6)
    out = NanTally.merge_arrays(flat, axis=0) if flat.shape[0] else NanTally().as_array()
    return out.reshape((1,) * (np.ndim(b) - 1) + (6,)) if keepdims else out


def _recorded_core(x: da.Array, fn: Any, axes: Any, keepdims: Any, dtype: Any, qshape: Any,
                   policy: Any, relabel: Any) -> Any:
    """:func:`per_block_core` with per-block error records (see the module docstring)."""
    nd = x.ndim
    ones = tuple((1,) * n for n in x.numblocks)
    pairs = map_blocks(_pair_block, x, chunks=ones, dtype=object,
                          meta=np.empty((0,) * nd, object), fn=fn, axes=axes,
                          qshape=qshape, policy=policy, vdtype=dtype)
    lead = len(qshape)
    out_chunks = tuple((s,) for s in qshape) + tuple(
        (1,) * x.numblocks[a] if a in axes else c for a, c in enumerate(x.chunks))
    vals = map_blocks(_values_of, pairs, chunks=out_chunks, dtype=dtype,
                         new_axis=list(range(lead)) if lead else None,
                         meta=np.empty((0,) * (lead + nd), dtype))
    recs = map_blocks(_record_of, pairs, chunks=ones + ((6,),), new_axis=nd,
                         dtype=np.int64, meta=np.empty((0,) * (nd + 1), np.int64))
    first = reduction(recs, merge_tallies, merge_tallies, combine=merge_tallies,
                         axis=tuple(range(nd)), keepdims=False, dtype=np.int64,
                         concatenate=True, meta=np.empty((0,), np.int64))
    ind = tuple(f"d{i}" for i in range(lead + nd))  # the small results check the tally
    res = blockwise(check_then, ind, vals, ind, first, ("info",), dtype=dtype,
                       concatenate=True, meta=np.empty((0,) * (lead + nd), dtype),
                       policy=policy, shape=tuple(x.shape), relabel=relabel,
                       dtype_out=dtype)
    return _drop_reduced(res, axes, lead, nd, keepdims)


def core_reduce(b: np.ndarray, axes: tuple[int, ...], *, stat: str, policy: NanPolicy,
                params: dict[str, Any]) -> np.ndarray:
    """The core's ``reduce`` of one block (a module-level ``fn`` of :func:`per_block_core`,
    bound with :func:`functools.partial`: pickled by reference)."""
    return reduce(b, stat, axis=axes, policy=policy, keepdims=True, **params).values


def core_moment(b: np.ndarray, axes: tuple[int, ...], *, stat: str, ddof: float,
                policy: NanPolicy) -> np.ndarray:
    """The core's ``moment_stat`` of one block (see :func:`core_reduce`; for the object
    path of :mod:`.moments`)."""
    from ..core.chunked import moment_stat

    return moment_stat(b, stat, axis=axes, ddof=ddof, policy=policy, keepdims=True)[0]


def check_then(vals: Any, *info: Any, policy: Any, shape: Any, relabel: Any, dtype_out: Any) -> Any:
    """Raise from the tally (if any), else the values in ``dtype_out``."""
    raise_from_info(info[0] if info else None, policy, shape, relabel)
    return np.asarray(vals).astype(dtype_out, copy=False)
