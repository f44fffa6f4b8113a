"""Weighted statistics of dask arrays (issue 13): lazy, and exact as the core's.

The weighted engines (:mod:`nanaccess.core.weighted`) need every pair of a reduced
slice at once (cumulative weights in sorted order; exact sums rounded once), so the
reduced axes are moved last and merged into one chunk (the other axes keep their
chunks) and each block is reduced by the in-memory core: the result equals the eager
one bit for bit, block by block. The weights (NumPy or dask; broadcastable to the
data, or 1-D along a single ``axis``) are laid out the same way. Policy errors are
raised when the result is computed.
"""

from __future__ import annotations

from typing import Any

import dask.array as da
import numpy as np

from ..core.axes import normalize_axis
from ..core.reduce import reduce
from ..core.weighted.prepare import lay_weights

__all__ = ["dask_weighted"]


def _masked(a: Any) -> bool:
    """A masked array, or a dask array of masked chunks."""
    return isinstance(a, np.ma.MaskedArray) or (
        isinstance(a, da.Array) and isinstance(getattr(a, "_meta", None), np.ma.MaskedArray))


def _split(a: Any) -> tuple[Any, Any]:
    """``(values, mask or None)`` of data or weights: the mask of a masked array (or of
    a dask array of masked chunks) becomes a plain bool array beside the values, since
    broadcasting and the core's ``np.asarray`` drop masks."""
    if isinstance(a, da.Array):
        return (da.ma.getdata(a), da.ma.getmaskarray(a)) if _masked(a) else (a, None)
    if isinstance(a, np.ma.MaskedArray):
        mask = np.ma.getmaskarray(a)
        return np.ma.getdata(a), (mask if mask.any() else None)
    return np.asarray(a), None


def _weights_like(weights: Any, shape: tuple[int, ...], axis: Any) -> da.Array:
    """``weights`` as a dask array of ``shape`` (the eager path's rule, ``lay_weights``)."""
    w = weights if isinstance(weights, da.Array) else np.asarray(weights)
    return da.broadcast_to(da.asarray(lay_weights(w, shape, axis)), shape)


def _block(xb: np.ndarray, wb: np.ndarray, *masks: np.ndarray, stat: str, nred: int, policy,
           out_dtype, params: dict, has: tuple[bool, bool]) -> np.ndarray:
    """The core's weighted ``stat`` of one block over its last ``nred`` axes; ``masks``:
    the data's and / or the weights' missing flags, as ``has`` says."""
    axes = tuple(range(xb.ndim - nred, xb.ndim))
    it = iter(masks)
    missing = next(it) if has[0] else None
    w_missing = next(it) if has[1] else None
    r = reduce(xb, stat, axis=axes, policy=policy, missing=missing, weights=wb,
               weights_missing=w_missing, **params)
    return np.asarray(r.values).astype(out_dtype, copy=False)


def _result_dtype(x: da.Array, w: da.Array, stat: str, policy, params: dict) -> np.dtype:
    """The eager engine's result dtype, from one pair of the data's and weights' dtypes
    (an int ``sum`` is int64 only for weights of integer dtype)."""
    xs = np.ones(1, x.dtype)
    ws = np.ones(1, w.dtype if w.dtype.kind in "biu" else np.float64) * (
        1 if w.dtype.kind in "biu" else 0.5)
    return np.asarray(reduce(xs, stat, policy=policy, weights=ws, **params).values).dtype


def dask_weighted(x: da.Array, stat: str, weights: Any, *, axis: Any = None, policy,
                  keepdims: bool = False, **params: Any) -> da.Array:
    """Lazy weighted ``stat`` of the dask array ``x`` along ``axis``, equal bit for bit
    to :func:`nanaccess.core.reduce.reduce` with ``weights`` on the computed data.

    Examples
    --------
    >>> import dask.array as da
    >>> from nanaccess.options import NanPolicy
    >>> x = da.from_array(np.array([1.0, 2.0, 3.0, 4.0]), chunks=2)
    >>> r = dask_weighted(x, "median", [1, 1, 1, 5], policy=NanPolicy.RAISE)
    >>> float(r.compute())
    4.0
    """
    ndim = x.ndim
    axes = tuple(range(ndim)) if axis is None else normalize_axis(axis, ndim)
    x, x_mask = _split(x)
    weights, w_mask = _split(weights)
    w = _weights_like(weights, x.shape, axis)
    keep = [a for a in range(ndim) if a not in axes]
    perm = keep + list(axes)
    xt = da.transpose(x, perm).rechunk({i: -1 for i in range(len(keep), ndim)})
    wt = da.transpose(w, perm).rechunk(xt.chunks)
    masks = []  # missing data and weights, laid out as the data and the weights
    if x_mask is not None:
        masks.append(da.transpose(x_mask, perm).rechunk(xt.chunks))
    if w_mask is not None:
        masks.append(da.transpose(_weights_like(w_mask, x.shape, axis), perm)
                     .rechunk(xt.chunks))
    q = params.get("q")
    lead = () if stat != "quantile" or np.ndim(q) == 0 else np.shape(q)
    dtype = _result_dtype(x, w, stat, policy, params)
    out = da.map_blocks(_block, xt, wt, *masks, stat=stat, nred=len(axes), policy=policy,
                        out_dtype=dtype, dtype=dtype, params=params,
                        has=(x_mask is not None, w_mask is not None),
                        drop_axis=list(range(len(keep), ndim)),
                        new_axis=list(range(len(lead))) if lead else None,
                        chunks=tuple((n,) for n in lead) + xt.chunks[:len(keep)],
                        meta=np.empty((0,) * (len(lead) + len(keep)), dtype))
    if keepdims:
        shape = lead + tuple(1 if a in axes else x.shape[a] for a in range(ndim))
        out = out.reshape(shape)
    return out
