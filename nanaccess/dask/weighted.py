"""Weighted statistics of dask arrays (issue 13): lazy, and exact as the core's.

The weighted engines (:mod:`nanaccess.core.weighted`) need every pair of a reduced
slice at once (cumulative weights in sorted order; exact sums rounded once), so the
reduced axes are moved last and merged into one chunk (the other axes keep their
chunks) and each block is reduced by the in-memory core: the result equals the eager
one bit for bit, block by block. The weights (NumPy or dask; broadcastable to the
data, or 1-D along a single ``axis``) are laid out the same way.

Policy errors are raised when the result is computed, and name what the eager path
names on the same data: the global count and first position, never a block's. Each
chunk of the weights (in their own shape) and of the data (in its own chunks) gives a
small record with global positions (:func:`_weights_record`, :func:`_data_record`);
the records are reduced as a tree (counts add, the first position wins) and the result
raises from them in the eager order: NaN / missing weights, then negative or infinite
weights, then NaN / missing data. A block the core refuses returns placeholder values
instead of raising (the records raise for it), so no block waits for a global scan.
"""

from __future__ import annotations

from typing import Any

import dask.array as da
import numpy as np

from .. import _stats
from ..core.chunked import (
    RULES,
    NanTally,
    check_weights,
    flat_position,
    float_nan_masks,
    lay_weights,
    normalize_axis,
    raise_for,
)
from ..core.reduce import reduce
from ..errors import NaNError, WeightsValueError
from .typed_dask import (
    asarray,
    blockwise,
    broadcast_to,
    from_array,
    map_blocks,
    rechunk,
    reduction,
)

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
    return broadcast_to(asarray(lay_weights(w, shape, axis)), shape)


def _block(xb: np.ndarray, wb: np.ndarray, *masks: np.ndarray, stat: str, nred: int, policy: Any,
           out_dtype: Any, params: dict[str, Any], has: tuple[bool, bool],
           lead: tuple[int, ...]) -> np.ndarray:
    """The core's weighted ``stat`` of one block over its last ``nred`` axes; ``masks``:
    the data's and / or the weights' missing flags, as ``has`` says. A block the policy
    refuses gives zeros: the global records (:func:`_checked`) raise for it."""
    axes = tuple(range(xb.ndim - nred, xb.ndim))
    it = iter(masks)
    missing = next(it) if has[0] else None
    w_missing = next(it) if has[1] else None
    try:
        r = reduce(xb, stat, axis=axes, policy=policy, missing=missing, weights=wb,
                   weights_missing=w_missing, **params)
    except (NaNError, WeightsValueError):
        return np.zeros(lead + xb.shape[:xb.ndim - nred], out_dtype)
    return np.asarray(r.values).astype(out_dtype, copy=False)


# ---------------------------------------------------------------------- error records

_NONE = np.iinfo(np.int64).max  # NanTally's "no position"
#: a weights record: NanTally's six ints, then the negative / infinite weights' count,
#: first flat position and first value (its float64 or int64 bits)
_WREC = 9


def _glob(p: int, bshape: tuple[int, ...], starts: list[int], shape: tuple[int, ...]) -> int:
    """A flat C-order position within a block, as a flat position in the whole array."""
    if not shape:
        return p
    local = np.unravel_index(p, bshape)
    return int(np.ravel_multi_index(tuple(int(i) + s for i, s in zip(local, starts,
                                                                      strict=True)), shape))


def _globalized(t: NanTally, bshape: Any, block_info: dict[Any, Any]) -> NanTally:
    starts = [lo for lo, _ in block_info[0]["array-location"]]
    shape = tuple(block_info[0]["shape"])

    def g(p: int | None) -> int | None:
        return None if p is None else _glob(p, bshape, starts, shape)

    return NanTally(t.signaling, g(t.first_signaling), t.nan, g(t.first_nan), t.missing,
                    g(t.first_missing))


def _weights_record(wb: np.ndarray, *mask: np.ndarray, block_info: Any = None) -> np.ndarray:
    """One chunk of the weights (their own shape): the NaN / missing tally and the
    negative or infinite weights (count, first position, its value's bits), global."""
    wnan, wsig = float_nan_masks(wb)
    wmiss = mask[0] if mask and mask[0].any() else None
    if wmiss is not None and wnan is not None:
        wnan, wsig = wnan & ~wmiss, wsig & ~wmiss
    t = _globalized(NanTally.from_masks(nan=wnan, signaling=wsig, missing=wmiss), wb.shape,
                    block_info)
    out = np.full(_WREC, 0, np.int64)
    out[:6] = t.as_array()
    out[7] = _NONE
    if wb.dtype.kind not in "bu" and wb.size:  # the eager rule (_check_values)
        with np.errstate(invalid="ignore"):
            bad = (wb < 0) | np.isinf(wb) if wb.dtype.kind == "f" else (wb < 0)
        for m in (wnan, wmiss):  # a masked weight's hidden value is not a value
            if m is not None:
                bad &= ~m
        flat = np.flatnonzero(bad.ravel())
        if flat.size:
            first = wb.reshape(-1)[flat[0]]
            out[6] = flat.size
            starts = [lo for lo, _ in block_info[0]["array-location"]]
            out[7] = _glob(int(flat[0]), wb.shape, starts, tuple(block_info[0]["shape"]))
            out[8] = (np.float64(first).view(np.int64) if wb.dtype.kind == "f"
                      else np.int64(first))
    return out.reshape((1,) * wb.ndim + (_WREC,))


def _merge_weights(b: np.ndarray, axis: Any = None, keepdims: bool = True) -> np.ndarray:
    """Tree step of the weights records: counts add, the first position wins."""
    flat = np.asarray(b, np.int64).reshape(-1, _WREC)
    out = np.zeros(_WREC, np.int64)
    out[:6] = NanTally.merge_arrays(flat[:, :6], axis=0)
    out[6] = flat[:, 6].sum()
    i = int(np.argmin(flat[:, 7]))
    out[7:] = flat[i, 7:]
    return out.reshape((1,) * (np.ndim(b) - 1) + (_WREC,)) if keepdims else out


def _data_record(xb: np.ndarray, wb: np.ndarray, *mask: np.ndarray,
                 block_info: Any = None) -> np.ndarray:
    """One chunk of the data (its own chunks): the tally of the NaN and missing values
    whose weight is not zero (a zero weight drops the pair first), positions global."""
    xnan, xsig = float_nan_masks(xb)
    xmiss = mask[0] if mask else None
    if xmiss is not None and xnan is not None:
        xnan, xsig = xnan & ~xmiss, xsig & ~xmiss
    if xb.dtype.kind in "mM":
        nat = np.isnat(xb)
        xmiss = nat if xmiss is None else (xmiss | nat)
    with np.errstate(invalid="ignore"):
        present = wb != 0
    if xnan is not None:
        xnan, xsig = xnan & present, xsig & present
    if xmiss is not None:
        xmiss = xmiss & present
    t = _globalized(NanTally.from_masks(nan=xnan, signaling=xsig, missing=xmiss), xb.shape,
                    block_info)
    return t.as_array().reshape((1,) * xb.ndim + (6,))


def _merge_data(b: np.ndarray, axis: Any = None, keepdims: bool = True) -> np.ndarray:
    flat = np.asarray(b, np.int64).reshape(-1, 6)
    out = NanTally.merge_arrays(flat, axis=0)
    return out.reshape((1,) * (np.ndim(b) - 1) + (6,)) if keepdims else out


def _records(fn: Any, merge: Any, width: int, *arrays: da.Array) -> da.Array:
    """A one-chunk ``(width,)`` record of ``arrays`` (same chunks): ``fn`` per chunk,
    reduced by ``merge`` as a tree."""
    nd = arrays[0].ndim
    rec = map_blocks(fn, *arrays, chunks=tuple((1,) * n for n in arrays[0].numblocks)
                        + ((width,),), new_axis=nd, dtype=np.int64,
                        meta=np.empty((0,) * (nd + 1), np.int64))
    return reduction(rec, merge, merge, combine=merge, axis=tuple(range(nd)),
                        keepdims=False, dtype=np.int64, concatenate=True,
                        meta=np.empty((0,), np.int64))


def _checked(vals: np.ndarray, wrec: np.ndarray, *xrec: np.ndarray, policy: Any,
             wshape: tuple[int, ...], wkind: str, xshape: tuple[int, ...],
             relabel: Any = None, relabel_weights: Any = None) -> np.ndarray:
    """A block of results, after raising from the global records in the eager order
    (restated by the host's ``relabel`` (data) / ``relabel_weights`` when given)."""
    try:
        return _checked_raw(vals, wrec, *xrec, policy=policy, wshape=wshape, wkind=wkind,
                            xshape=xshape)
    except (NaNError, WeightsValueError) as err:
        on_weights = isinstance(err, WeightsValueError) or err.subject == "weights"
        fix = relabel_weights if on_weights else relabel
        if fix is None:
            raise
        raise fix(err) from None


def _checked_raw(vals: np.ndarray, wrec: np.ndarray, *xrec: np.ndarray, policy: Any,
                 wshape: tuple[int, ...], wkind: str, xshape: tuple[int, ...]) -> np.ndarray:
    wrec = np.asarray(wrec, np.int64).ravel()
    check_weights(NanTally.from_array(wrec[:6]), policy, shape=wshape)
    if wrec[6]:
        bits = np.int64(wrec[8])
        value = bits.view(np.float64).item() if wkind == "f" else int(bits)
        raise WeightsValueError(count=int(wrec[6]), position=flat_position(int(wrec[7]), wshape),
                                value=value)
    if xrec:
        raise_for(NanTally.from_array(xrec[0]), policy, shape=xshape)
    return vals


def _error_records(x: da.Array, x_mask: Any, weights: Any, w_mask: Any, w: da.Array,
                   policy: Any) -> tuple[da.Array, da.Array | None, tuple[int, ...], str]:
    """The lazy global records of the weights (always: negative weights are an error
    under every policy) and of the data (when the policy can refuse it)."""
    wv = weights if isinstance(weights, da.Array) else from_array(np.asarray(weights))
    wshape = tuple(int(s) for s in wv.shape)
    wm = []
    if w_mask is not None:
        wm = [rechunk(w_mask, wv.chunks) if isinstance(w_mask, da.Array)
              else from_array(np.asarray(w_mask), chunks=wv.chunks)]
    if wv.ndim == 0:  # a scalar weight: its one position is flat 0
        wv, wm = wv[None], [m[None] for m in wm]
    wrec = _records(_weights_record, _merge_weights, _WREC, wv, *wm)
    refuses = bool(RULES[policy].refused)
    xrec = None
    if refuses and (x.dtype.kind in "fmM" or x_mask is not None):
        xm = [] if x_mask is None else [rechunk(x_mask, x.chunks) if isinstance(x_mask, da.Array)
                                        else from_array(np.asarray(x_mask), chunks=x.chunks)]
        xw = rechunk(w, x.chunks)
        if x.ndim == 0:  # a scalar: its one position is flat 0
            x, xw, xm = x[None], xw[None], [m[None] for m in xm]
        xrec = _records(_data_record, _merge_data, 6, x, xw, *xm)
    return wrec, xrec, wshape, wv.dtype.kind


def _result_dtype(x: da.Array, w: da.Array, stat: str, policy: Any,
                  params: dict[str, Any]) -> np.dtype:
    """The eager engine's result dtype, from one pair of the data's and weights' dtypes
    (an int ``sum`` is int64 only for weights of integer dtype)."""
    xs = np.ones(1, x.dtype)
    ws = np.ones(1, w.dtype if w.dtype.kind in "biu" else np.float64) * (
        1 if w.dtype.kind in "biu" else 0.5)
    probe = {**params, "ddof": 0} if "ddof" in params else params  # (no total-weight
    return np.asarray(reduce(xs, stat, policy=policy, weights=ws,  # error on one pair)
                             **probe).values).dtype


def dask_weighted(x: da.Array, stat: str, weights: Any, *, axis: Any = None, policy: Any,
                  keepdims: bool = False, relabel: Any = None, relabel_weights: Any = None,
                  **params: Any) -> da.Array:
    """Lazy weighted ``stat`` of the dask array ``x`` along ``axis``, equal bit for bit
    to :func:`nanaccess.core.reduce.reduce` with ``weights`` on the computed data.
    ``relabel`` / ``relabel_weights`` (picklable) restate the errors on the data / the
    weights with the host's labels when the result is computed.

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
    q: Any = params.get("q")  # None, a float or a sequence of floats
    lead = () if stat not in _stats.TAKES_Q or np.ndim(q) == 0 else np.shape(q)
    dtype = _result_dtype(x, w, stat, policy, params)
    out = map_blocks(_block, xt, wt, *masks, stat=stat, nred=len(axes), policy=policy,
                        out_dtype=dtype, dtype=dtype, params=params,
                        has=(x_mask is not None, w_mask is not None), lead=lead,
                        drop_axis=list(range(len(keep), ndim)),
                        new_axis=list(range(len(lead))) if lead else None,
                        chunks=tuple((n,) for n in lead) + xt.chunks[:len(keep)],
                        meta=np.empty((0,) * (len(lead) + len(keep)), dtype))
    wrec, xrec, wshape, wkind = _error_records(x, x_mask, weights, w_mask, w, policy)
    ind = tuple(f"d{i}" for i in range(out.ndim))
    args: list[Any] = [out, ind, wrec, ("w",)]
    if xrec is not None:
        args += [xrec, ("x",)]
    out = blockwise(_checked, ind, *args, dtype=dtype, concatenate=True,
                       meta=np.empty((0,) * out.ndim, dtype), policy=policy, wshape=wshape,
                       wkind=wkind, xshape=tuple(int(s) for s in x.shape), relabel=relabel,
                       relabel_weights=relabel_weights)
    if keepdims:
        shape = lead + tuple(1 if a in axes else x.shape[a] for a in range(ndim))
        out = out.reshape(shape)
    return out
