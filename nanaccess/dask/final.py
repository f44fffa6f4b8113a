"""Shared by the dask selection and moments: result dtype, the per-block core path,
keepdims, and the last task that raises from the tally before handing the values on."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import dask.array as da
import numpy as np

from ..core.reduce import reduce
from ..core.select import order_stat
from ..options import NanPolicy
from .tally import raise_from_info

__all__ = ["out_dtype", "apply_keepdims", "axes_whole", "whole_axes", "bounded_whole_axes",
           "chunk_bytes", "per_block_core",
           "check_then", "core_reduce", "core_order", "core_moment"]


def out_dtype(x: da.Array, stat: str, axes: tuple[int, ...], **params: Any) -> np.dtype:
    """Result dtype, from the core on a tiny sample of the same dtype (also validates
    ``params`` as the core does, at graph construction)."""
    sample = np.zeros((2,) * x.ndim, dtype=x.dtype)
    return np.asarray(reduce(sample, stat, axis=axes, policy=NanPolicy.TOTALORDER,
                             **params).values).dtype


def axes_whole(x: da.Array, axes: tuple[int, ...]) -> bool:
    """Whether every reduced axis lies in one chunk (the core can run per block)."""
    return x.ndim == 0 or all(x.numblocks[a] == 1 for a in axes)


def whole_axes(x: da.Array, axes: tuple[int, ...]) -> da.Array:
    """``x`` rechunked so that every reduced axis lies in one chunk."""
    if axes_whole(x, axes):
        return x
    return x.rechunk({a: (-1 if a in axes else "auto") for a in range(x.ndim)})


def chunk_bytes(x: da.Array) -> int:
    """Bytes of the largest chunk of ``x`` (unknown sizes: dask's default chunk size)."""
    import math

    import dask

    sizes = [max(c) if c and not any(math.isnan(v) for v in c) else None for c in x.chunks]
    if any(s is None for s in sizes):
        return int(dask.utils.parse_bytes(dask.config.get("array.chunk-size")))
    return max(math.prod(sizes) * x.dtype.itemsize, 1)


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
    return x.rechunk({a: (-1 if a in axes else "auto") for a in range(x.ndim)},
                     block_size_limit=limit)


def apply_keepdims(res: da.Array, axes: tuple[int, ...], ndim: int, lead: int,
                   keepdims: bool) -> da.Array:
    """Insert the reduced axes (length one) after ``lead`` leading (quantile) axes."""
    if not keepdims:
        return res
    index: list[Any] = [slice(None)] * lead
    for a in range(ndim):
        index.append(None if a in axes else slice(None))
    return res[tuple(index)]


def per_block_core(
    x: da.Array,
    fn: Callable[..., Any],
    axes: tuple[int, ...],
    keepdims: bool,
    dtype: np.dtype,
    qshape: tuple[int, ...],
    info: da.Array | None,
    policy: NanPolicy,
    relabel,
) -> da.Array:
    """Run ``fn(block, axes)`` (the core) on each block; the reduced axes are whole.

    ``fn`` is shipped to the workers: make it a module-level function (or a
    :func:`functools.partial` of one), never a closure, so that unpickling it imports
    nanaccess on a fresh worker."""
    nd = x.ndim
    xi = tuple(f"d{i}" for i in range(nd))
    qi = tuple(f"q{i}" for i in range(len(qshape)))
    out_ind = qi + xi
    args: list[Any] = [x, xi]
    if info is not None:
        args += [info, ("info",)]
    shape = tuple(x.shape)
    res = da.blockwise(
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
    if not keepdims:
        index = (slice(None),) * len(qi) + tuple(0 if a in axes else slice(None)
                                                 for a in range(nd))
        res = res[index]
    return res


def _core_block(b, *inf, fn, axes, qshape, policy, shape, relabel):
    """One block of :func:`per_block_core`: raise from the tally, then ``fn``."""
    raise_from_info(inf[0] if inf else None, policy, shape, relabel)
    v = np.asarray(fn(b, axes))
    return v.reshape(qshape + tuple(1 if a in axes else b.shape[a] for a in range(b.ndim)))


def core_reduce(b: np.ndarray, axes: tuple[int, ...], *, stat: str, policy: NanPolicy,
                params: dict) -> np.ndarray:
    """The core's ``reduce`` of one block (a module-level ``fn`` of :func:`per_block_core`,
    bound with :func:`functools.partial`: pickled by reference)."""
    return reduce(b, stat, axis=axes, policy=policy, keepdims=True, **params).values


def core_order(b: np.ndarray, axes: tuple[int, ...], *, stat: str, q: Any, method: str,
               policy: NanPolicy) -> np.ndarray:
    """The core's ``order_stat`` of one block (see :func:`core_reduce`)."""
    return order_stat(b, stat, q=q, method=method, axis=axes, policy=policy,
                      keepdims=True)[0]


def core_moment(b: np.ndarray, axes: tuple[int, ...], *, stat: str, ddof: float,
                policy: NanPolicy) -> np.ndarray:
    """The core's ``moment_stat`` of one block (see :func:`core_reduce`; for the object
    path of :mod:`.moments`)."""
    from ..core.moments import moment_stat

    return moment_stat(b, stat, axis=axes, ddof=ddof, policy=policy, keepdims=True)[0]


def check_then(vals, *info, policy, shape, relabel, dtype_out):
    """Raise from the tally (if any), else the values in ``dtype_out``."""
    raise_from_info(info[0] if info else None, policy, shape, relabel)
    return np.asarray(vals).astype(dtype_out, copy=False)
