"""One block of an xarray grouped statistic, in memory and on dask.

The grouped core entry point (:func:`nanaccess.core.grouped.grouped_reduce`) runs on
a block holding the whole grouped dim, moved first, the other dims flattened into
columns (:func:`run_block`). In memory the block is the whole variable.

On dask (:func:`grouped_dask`) the grouped dim is brought whole into blocks of cells
no larger than the largest input chunk (:func:`nanaccess.dask.final.bounded_whole_axes`),
spread over the tasks. Each block runs the same kernel; a block whose values the
policy refuses returns, instead of raising, a record of the error the kernel raised:
its kind, its first position in the variable's grouped-first order, its group and
count (exact: the block holds the whole column). The records are reduced to the
first one (signaling NaNs before NaNs before missing values, then the position) and
the per-group results, small, raise it when they are computed. So:

* "raise" names the group, position and labels of the in-memory path on the same
  data (whose scan runs over the grouped dim first), whatever the chunking;
* no task waits for a scan of the whole input before it starts: a block is freed as
  soon as its kernel ran; only the results (``ngroups`` rows per column) wait for
  the records.

When the passes stream (option ``dask_passes``) and the input's share per worker is
larger than a few chunks, the cells are cut into slabs, each its own computation
(:mod:`nanaccess.dask.cells`: the all-to-all of one slab holds a slab's share of the
input, not all of it); each slab's first record is moved into the whole variable and
the first of them is raised at the call.
"""

from __future__ import annotations

from contextlib import nullcontext
from functools import partial
from typing import Any, cast

import numpy as np

from ..core import NanTally, raise_for
from ..core.grouped import grouped_reduce
from ..errors import NaNError
from ..options import NanPolicy
from ._common import labelled_errors

__all__ = ["kernel", "run_block", "grouped_dask", "block_record", "first_record",
           "raise_record", "shift_record"]

#: an error record: (kind rank, flat position, row, column, count, group code); rank
#: 3 is "no error" (signaling NaNs raise before NaNs, NaNs before missing values)
_KINDS = ("signaling", "nan", "missing")
_NONE = np.array([3, 0, 0, 0, 0, 0], np.int64)
#: a block of cells holds at most this fraction of the largest input chunk's bytes
BLOCK_FRACTION = 1.0


def kernel(x2: np.ndarray, codes: np.ndarray, ngroups: int, stat: str, policy: NanPolicy,
           params: dict[str, Any]) -> np.ndarray:
    """Values of ``stat`` for every group and column of ``x2`` (rows, columns): the
    grouped core entry point (``params`` may hold its ``engine``)."""
    return np.asarray(grouped_reduce(x2, codes, ngroups, stat, policy=policy, **params).values)


def run_block(block: np.ndarray, *, axis: int, codes: np.ndarray, ngroups: int, stat: str,
              policy: NanPolicy, params: dict[str, Any], qshape: tuple[int, ...],
              relabeller: Any = None) -> np.ndarray:
    """The grouped kernel on one block holding the whole grouped axis."""
    x = np.moveaxis(block, axis, 0)
    rest = x.shape[1:]
    x2 = x.reshape(x.shape[0], -1)
    with labelled_errors(relabeller) if relabeller is not None else nullcontext():
        out = kernel(x2, codes, ngroups, stat, policy, params)
    out = out.reshape(qshape + (ngroups,) + rest)
    return np.moveaxis(out, len(qshape), len(qshape) + axis)


def block_record(err: NaNError, axis: int, block_shape: tuple[int, ...],
                 origin: tuple[int, ...], shape: tuple[int, ...]) -> np.ndarray:
    """The record of a kernel error raised on a block at ``origin`` of a variable of
    ``shape``: the block's column (flat over its other dims) becomes the variable's."""
    row, col = (int(p) for p in err.position)
    rest_b = [s for a, s in enumerate(block_shape) if a != axis]
    rest = [s for a, s in enumerate(shape) if a != axis]
    start = [o for a, o in enumerate(origin) if a != axis]
    local = np.unravel_index(col, rest_b) if rest_b else ()
    gcol = int(np.ravel_multi_index(tuple(int(i) + s for i, s in zip(local, start, strict=True)),
                                    rest)) if rest else 0
    ncols = int(np.prod(rest, dtype=np.int64))
    kind = _KINDS.index("signaling" if err.kind == "signaling NaN" else
                        "nan" if err.kind == "NaN" else "missing")
    return np.array([kind, row * ncols + gcol, row, gcol, err.count, err.group], np.int64)


def first_record(records: np.ndarray) -> np.ndarray:
    """The first of some ``(..., 6)`` records: lowest kind rank, then position."""
    flat = np.asarray(records, np.int64).reshape(-1, 6)
    if not flat.shape[0]:
        return _NONE.copy()
    best = np.lexsort((flat[:, 1], flat[:, 0]))[0]
    return cast("np.ndarray", flat[best].copy())


def raise_record(record: np.ndarray, policy: NanPolicy, nrows: int, ncols: int,
                 relabeller: Any) -> None:
    """Raise the error a record stands for, as the in-memory grouped scan raises it
    (:func:`nanaccess.core.grouped.common.raise_in_group`), labelled by ``relabeller``."""
    kind_rank, flat, _, _, count, group = (int(v) for v in np.asarray(record).ravel())
    if kind_rank >= len(_KINDS):
        return
    kind = _KINDS[kind_rank]
    tally = NanTally(**{kind: count, f"first_{kind}": flat})
    with labelled_errors(relabeller):
        raise_for(tally, policy, shape=(nrows, ncols), subject=f"group {group}", group=group)


def _pair_block(b: np.ndarray, *, run: dict[str, Any], policy: NanPolicy,
                shape: tuple[int, ...], out_dtype: np.dtype,
                block_info: dict[Any, Any] | None = None) -> np.ndarray:
    """One task: the kernel's values and error record of a block, as a 1-element
    object array (split by :func:`_values_of` and :func:`_record_of`)."""
    try:
        vals = run_block(b, policy=policy, **run)
        rec = _NONE.copy()
    except NaNError as err:  # the values are never shown: the record raises
        origin = tuple(lo for lo, _ in block_info[0]["array-location"])
        rec = block_record(err, run["axis"], b.shape, origin, shape)
        oshape = run["qshape"] + tuple(run["ngroups"] if a == run["axis"] else s
                                       for a, s in enumerate(b.shape))
        vals = np.zeros(oshape, out_dtype)
    out = np.empty((1,) * b.ndim, object)
    out.reshape(-1)[0] = (vals, rec)
    return out


def _values_of(pair: np.ndarray) -> np.ndarray:
    return cast("np.ndarray", pair.reshape(-1)[0][0])


def _record_of(pair: np.ndarray) -> np.ndarray:
    return cast("np.ndarray", pair.reshape(-1)[0][1].reshape((1,) * pair.ndim + (6,)))


def _merge_records(b: np.ndarray, axis: Any = None, keepdims: bool = True) -> np.ndarray:
    """Tree step of the records' reduction (the last axis holds a record)."""
    out = first_record(b)
    return out.reshape((1,) * (np.ndim(b) - 1) + (6,)) if keepdims else out


def _raise_records(*records: np.ndarray, policy: NanPolicy,
                   checks: list[tuple[int, int, Any] | None]) -> None:
    """Raise the first error record (if any) of each variable in turn (``checks``:
    each record's rows, columns and relabeller; None: an earlier variable's deferred
    values, whose own task raised its error already)."""
    for record, check in zip(records, checks, strict=True):
        if check is not None:
            raise_record(record, policy, *check)


def _checked(vals: np.ndarray, *records: np.ndarray, policy: NanPolicy,
             checks: list[tuple[int, int, Any] | None]) -> np.ndarray:
    """A block of results, after :func:`_raise_records`."""
    _raise_records(*records, policy=policy, checks=checks)
    return vals


def _lazy_parts(data: Any, axis: int, run: dict[str, Any], policy: NanPolicy,
                out_dtype: np.dtype) -> tuple[Any, Any]:
    """The lazy per-group values of a dask array (blocks of cells) and its first
    error record (one ``(6,)`` chunk)."""
    from ..dask.final import bounded_whole_axes, chunk_bytes
    from ..dask.typed_dask import map_blocks, reduction

    x = bounded_whole_axes(data, (axis,), limit=max(1, int(chunk_bytes(data) * BLOCK_FRACTION)))
    nd = x.ndim
    shape = tuple(int(s) for s in x.shape)
    qshape = run["qshape"]
    ones = tuple((1,) * n for n in x.numblocks)
    pairs = map_blocks(_pair_block, x, chunks=ones, dtype=object,
                          meta=np.empty((0,) * nd, object), run=run, policy=policy,
                          shape=shape, out_dtype=out_dtype)
    out_chunks = tuple((s,) for s in qshape) + tuple(
        (run["ngroups"],) if a == axis else c for a, c in enumerate(x.chunks))
    lead = len(qshape)
    vals = map_blocks(_values_of, pairs, chunks=out_chunks, dtype=out_dtype,
                         new_axis=list(range(lead)) if lead else None,
                         meta=np.empty((0,) * (lead + nd), out_dtype))
    recs = map_blocks(_record_of, pairs, chunks=ones + ((6,),), new_axis=nd,
                         dtype=np.int64, meta=np.empty((0,) * (nd + 1), np.int64))
    first = reduction(recs, _merge_records, _merge_records, combine=_merge_records,
                         axis=tuple(range(nd)), keepdims=False, dtype=np.int64,
                         concatenate=True, meta=np.empty((0,), np.int64))
    return vals, first


def shift_record(record: np.ndarray, axis: int, slab_shape: tuple[int, ...], lo: int,
                 slab_axis: int, shape: tuple[int, ...]) -> np.ndarray:
    """A slab's record (its column flat over the slab's other dims, which start at
    ``lo`` along ``slab_axis``) as a record of the whole variable of ``shape``."""
    rec = np.asarray(record, np.int64).ravel().copy()
    if rec[0] >= len(_KINDS):
        return rec
    rest_s = [s for a, s in enumerate(slab_shape) if a != axis]
    rest = [s for a, s in enumerate(shape) if a != axis]
    local = list(np.unravel_index(int(rec[3]), rest_s)) if rest_s else []
    others = [a for a in range(len(shape)) if a != axis]
    if slab_axis in others:
        local[others.index(slab_axis)] += lo
    gcol = int(np.ravel_multi_index(tuple(int(i) for i in local), rest)) if rest else 0
    ncols = int(np.prod(rest, dtype=np.int64))
    rec[1], rec[3] = int(rec[2]) * ncols + gcol, gcol
    return rec


def _by_slabs(data: Any, axis: int, run: dict[str, Any], policy: NanPolicy,
              out_dtype: np.dtype, relabeller: Any, slabs: tuple[int, list[int]]) -> Any:
    """The grouped statistic slab by slab of cells, each its own computation (see the
    module docstring); the first record of the whole variable raises at the call."""
    from ..dask.cells import slab
    from ..dask.stream import as_dask, compute_pass, log

    split, bounds = slabs
    shape = tuple(int(s) for s in data.shape)
    parts, records = [], []
    for lo, hi in zip(bounds[:-1], bounds[1:], strict=True):
        xs = slab(data, split, lo, hi)
        vals, first = _lazy_parts(xs, axis, run, policy, out_dtype)
        got, rec = compute_pass(f"grouped cells {lo}:{hi}", vals, first)
        parts.append(np.asarray(got))
        records.append(shift_record(rec, axis, tuple(int(s) for s in xs.shape), lo, split,
                                    shape))
    log.info("nanaccess grouped slabs of cells: %d computations over %d chunks",
             len(bounds) - 1, data.npartitions)
    nrows = shape[axis]
    ncols = int(np.prod([s for a, s in enumerate(shape) if a != axis], dtype=np.int64))
    raise_record(first_record(np.stack(records)), policy, nrows, ncols, relabeller)
    ax = len(run["qshape"]) + split
    out = np.concatenate(parts, axis=ax)
    chunks = tuple((n,) if a != ax else tuple(p.shape[ax] for p in parts)
                   for a, n in enumerate(out.shape))
    return as_dask(out, chunks)


def grouped_dask(data: Any, axis: int, codes: np.ndarray, ngroups: int, stat: str, *,
                 policy: NanPolicy, params: dict[str, Any], qshape: tuple[int, ...],
                 out_dtype: np.dtype, relabeller: Any = None,
                 prior: list[Any] | None = None) -> Any:
    """The lazy grouped statistic of a dask array along ``axis`` (see the module
    docstring); the result has ``ngroups`` along ``axis``, leading q dims first.

    ``prior``: the checks of the variables before this one (a list this call appends
    its own to): a Dataset's results raise the first variable's error, as the
    in-memory loop over its variables does.
    """
    from ..dask.cells import plan_slabs
    from ..dask.stream import deferred, defers
    from ..dask.typed_dask import blockwise

    run: dict[str, Any] = dict(axis=axis, codes=codes, ngroups=ngroups, stat=stat,
                               params=params, qshape=qshape)
    prior = [] if prior is None else prior
    slabs = plan_slabs(data, (axis,)) if data.numblocks[axis] > 1 else None
    if slabs is not None and defers():  # "auto": the slabs run when computed
        out = deferred(partial(_by_slabs, data, axis, run, policy, out_dtype, relabeller,
                               slabs),
                       qshape + tuple(ngroups if a == axis else int(n)
                                      for a, n in enumerate(data.shape)),
                       out_dtype,
                       tuple((q,) for q in qshape) + tuple(
                           (ngroups,) if a == axis else c for a, c in enumerate(data.chunks)),
                       after=[rec for rec, _ in prior],
                       before=partial(_raise_records, policy=policy,
                                      checks=[c for _, c in prior]))
        prior.append((out, None))
        return out
    if slabs is not None:
        return _by_slabs(data, axis, run, policy, out_dtype, relabeller, slabs)
    shape = tuple(int(s) for s in data.shape)
    nrows = shape[axis]
    ncols = int(np.prod([s for a, s in enumerate(shape) if a != axis], dtype=np.int64))
    vals, first = _lazy_parts(data, axis, run, policy, out_dtype)
    prior.append((first, (nrows, ncols, relabeller)))
    lead, nd = len(qshape), data.ndim
    ind = tuple(f"d{i}" for i in range(lead + nd))
    args: list[Any] = [vals, ind]
    for i, (rec, check) in enumerate(prior):
        # an earlier variable's deferred values: the whole array (its task raises)
        args += [rec, (f"rec{i}",) if check is not None else
                 tuple(f"rec{i}_{k}" for k in range(rec.ndim))]
    return blockwise(_checked, ind, *args, dtype=out_dtype, concatenate=True,
                        meta=np.empty((0,) * (lead + nd), out_dtype), policy=policy,
                        checks=[c for _, c in prior])
