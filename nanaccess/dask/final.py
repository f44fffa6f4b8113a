"""Shared by the dask selection and moments: result dtype, the per-block core path,
keepdims, and the last task that raises from the tally before handing the values on."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import dask.array as da
import numpy as np

from ..core.reduce import reduce
from ..options import NanPolicy
from .tally import raise_from_info

__all__ = ["out_dtype", "apply_keepdims", "axes_whole", "whole_axes", "per_block_core",
           "check_then"]


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
    """Run ``fn(block, axes)`` (the core) on each block; the reduced axes are whole."""
    nd = x.ndim
    xi = tuple(f"d{i}" for i in range(nd))
    qi = tuple(f"q{i}" for i in range(len(qshape)))
    out_ind = qi + xi
    args: list[Any] = [x, xi]
    if info is not None:
        args += [info, ("info",)]
    shape = tuple(x.shape)

    def block(b, *inf):
        raise_from_info(inf[0] if inf else None, policy, shape, relabel)
        v = np.asarray(fn(b, axes))
        return v.reshape(qshape + tuple(1 if a in axes else b.shape[a] for a in range(nd)))

    res = da.blockwise(
        block,
        out_ind,
        *args,
        new_axes={k: s for k, s in zip(qi, qshape, strict=True)},
        adjust_chunks={xi[a]: 1 for a in axes},
        dtype=dtype,
        concatenate=True,
        meta=np.empty((0,) * len(out_ind), dtype=dtype),
    )
    if not keepdims:
        index = (slice(None),) * len(qi) + tuple(0 if a in axes else slice(None)
                                                 for a in range(nd))
        res = res[index]
    return res


def check_then(vals, *info, policy, shape, relabel, dtype_out):
    """Raise from the tally (if any), else the values in ``dtype_out``."""
    raise_from_info(info[0] if info else None, policy, shape, relabel)
    return np.asarray(vals).astype(dtype_out, copy=False)
