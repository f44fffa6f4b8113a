"""Weights in, rows out: align the weights with the data and apply the policy to both.

Everything the weighted engines share happens here, once: the weights' shape rules
(broadcastable to the data, or 1-D along a single ``axis`` as :func:`numpy.quantile`
allows), the checks of the weights (NaN / missing by the policy, through
:func:`nanaccess.core.policy.check_weights`; negative or infinite weights are a
``ValueError``), the data's NaN checks (a value whose weight is zero is dropped before
anything looks at it, as if it were repeated zero times), and the ``(rows, n)`` layout
with the weight of every dropped pair set to 0.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ...errors import WeightsValueError
from ..axes import Reduction, normalize_axis
from ..bits import as_bits, layout_of
from ..keys import float_keys, keys_to_float
from ..policy import RULES, NanTally, check_weights, raise_for

__all__ = ["Prepared", "prepare", "align_weights"]


@dataclass
class Prepared:
    """Data and weights in ``(rows, n)`` layout, after the policy.

    ``w`` is float64 with 0 for every dropped pair (zero weight, "omit", or a pair a
    propagated NaN replaces); ``miss`` marks missing data kept by an ordering policy
    (sorted last); ``nan_rows`` / ``nan_values`` the rows whose result is a propagated
    NaN and that NaN (float64, the totalOrder-greatest among data and weights);
    ``miss_rows`` the rows whose result is missing; ``count`` the pairs seen.
    """

    red: Reduction
    x: np.ndarray
    w: np.ndarray
    miss: np.ndarray | None
    nan: np.ndarray | None
    nan_rows: np.ndarray | None
    nan_values: np.ndarray | None
    miss_rows: np.ndarray | None
    #: per row, the pairs the statistic sees (weight not zero, not removed by "omit")
    count: np.ndarray
    #: "propagate": per pair, the float64 totalOrder key of its NaN (data or weight;
    #: ``int64 min`` where none) and its missing flag, for engines that propagate
    #: per group rather than per row
    prop_keys: np.ndarray | None = None
    prop_miss: np.ndarray | None = None
    #: ``prepare(defer_drop=True)``: the pairs whose weight counts as 0 (``w`` keeps
    #: their weights); None when ``w`` holds the zeros itself
    drop: np.ndarray | None = None

    def applied(self) -> Prepared:
        """This with a deferred drop written into ``w`` (a new array; the dropped
        pairs' weights 0), as every engine but the compiled grouped layout needs."""
        if self.drop is None:
            return self
        return replace(self, w=np.where(self.drop, 0.0, self.w), drop=None)


def lay_weights(w: Any, shape: tuple[int, ...], axis: Any) -> Any:
    """``w`` (a NumPy or dask array) shaped to broadcast to ``shape``: a 1-D array along
    a single ``axis`` (length ``shape[axis]``) is laid along that axis, as
    :func:`numpy.quantile` allows; anything else must broadcast to ``shape`` as it is.
    The one rule for the eager and the lazy (:mod:`nanaccess.dask.weighted`) paths."""
    ndim = len(shape)
    if w.ndim == 1 and ndim > 1 and axis is not None and np.ndim(axis) == 0:
        ax = normalize_axis(axis, ndim)[0]
        if w.shape[0] != shape[ax]:
            raise ValueError(f"1-D weights of length {w.shape[0]} do not match axis {axis} "
                             f"of length {shape[ax]}")
        w = w.reshape(tuple(-1 if a == ax else 1 for a in range(ndim)))
    try:
        np.broadcast_shapes(w.shape, shape)
    except ValueError:
        raise ValueError(
            f"weights of shape {w.shape} do not broadcast to the data's shape "
            f"{shape}; pass weights of that shape, or 1-D weights along a single axis"
        ) from None
    return w


def align_weights(weights: Any, shape: tuple[int, ...], axis: Any) -> np.ndarray:
    """``weights`` as an array broadcast to ``shape`` (a read-only view, no copy; see
    :func:`lay_weights`)."""
    return np.broadcast_to(lay_weights(np.asarray(weights), shape, axis), shape)


def float_nan_masks(a: np.ndarray) -> tuple[np.ndarray | None, np.ndarray | None]:
    """(NaN mask, signaling-NaN mask) of a float array, None for other kinds."""
    if a.dtype.kind != "f":
        return None, None
    nan = np.isnan(a)
    if not nan.any():
        return None, None
    lay = layout_of(a.dtype)
    idx = np.flatnonzero(nan)  # the quiet bit read at the NaNs only (few, usually)
    quiet = as_bits(a).reshape(-1)[idx] & lay.int_dtype.type(lay.quiet_bit)
    sig = np.zeros(a.shape, bool)
    sig.reshape(-1)[idx[quiet == 0]] = True
    return nan, sig


def _check_values(w: np.ndarray, nan: np.ndarray | None,
                  missing: np.ndarray | None = None) -> None:
    """Negative or infinite weights: a ``ValueError`` naming the first position. NaN
    and missing weights are not values (the policy decides them): a masked weight's
    hidden value is never looked at."""
    if w.dtype.kind == "f" and nan is None and missing is None and w.size and \
            w.min() >= 0 and w.max() < np.inf:
        return  # two reductions, no masks: the usual case
    if w.dtype.kind in "bu" or not w.size:
        return
    with np.errstate(invalid="ignore"):
        bad = (w < 0) | np.isinf(w) if w.dtype.kind == "f" else (w < 0)
    for m in (nan, missing):
        if m is not None:
            bad &= ~m
    if bad.any():
        flat = np.flatnonzero(bad.ravel())
        raise WeightsValueError(count=flat.size, position=flat_position(int(flat[0]), w.shape),
                                value=w.reshape(-1)[flat[0]].item())


def flat_position(flat: int, shape: tuple[int, ...]) -> tuple[int, ...]:
    """The index tuple of a flat position (``(flat,)`` for a scalar's)."""
    return tuple(int(i) for i in np.unravel_index(flat, shape)) if shape else (flat,)


KMIN = np.iinfo(np.int64).min


def _nan_keys(parts: list[tuple[np.ndarray, np.ndarray | None]]) -> np.ndarray | None:
    """Per pair, the float64 totalOrder key of its greatest NaN among ``(values,
    mask)`` parts (``int64 min`` where none); None when no part holds a NaN."""
    best = None
    for vals, mask in parts:
        if mask is None or not mask.any():
            continue
        k = np.where(mask, float_keys(np.asarray(vals, dtype=np.float64)), KMIN)
        best = k if best is None else np.maximum(best, k)
    return best


def greatest_nan_of(parts: list[tuple[np.ndarray, np.ndarray]], rows: int) -> np.ndarray:
    """Per row, the totalOrder-greatest NaN (as float64) among ``(values, mask)`` parts
    in ``(rows, n)`` layout."""
    k = _nan_keys(parts)
    best = np.full(rows, KMIN, np.int64) if k is None else k.max(axis=1)
    return keys_to_float(best, np.dtype(np.float64))


def prepare(x: np.ndarray, weights: Any, *, axis: Any, policy: Any, missing: Any = None,
            weights_missing: Any = None, defer_drop: bool = False) -> Prepared:
    """Check ``weights`` and ``x`` under ``policy`` and lay both out as rows.

    ``defer_drop``: leave the weights of the dropped pairs in ``w`` and return their
    mask as ``drop`` (no copy of the weights; :meth:`Prepared.applied` writes the
    zeros) for an engine that skips them itself.

    Raises
    ------
    NaNError, SignalingNaNError
        As :func:`nanaccess.core.policy.raise_for` (subject "weights" for the weights).
    WeightsValueError
        Negative or infinite weights; NaN or missing weights under an ordering policy
        (a ``ValueError`` carrying the count and the first position).
    ValueError
        Weights whose shape does not fit the data.
    TypeError
        Non-numeric weights.
    """
    r = RULES[policy]
    w_in = np.asarray(weights)
    if w_in.dtype.kind not in "biuf" or (w_in.dtype.kind == "f" and w_in.dtype.itemsize > 8):
        raise TypeError(f"weights must be real numbers, got dtype {w_in.dtype}")
    # the usual weights (finite, non-negative floats) in two reductions: a NaN makes the
    # minimum NaN, so this also proves there is none (no NaN mask to build)
    wmin = w_in.min() if w_in.dtype.kind == "f" and w_in.size else None
    clean = wmin is not None and bool(wmin >= 0) and bool(w_in.max() < np.inf)
    positive = clean and bool(wmin > 0)  # every pair present: no mask of them
    wnan, wsig = (None, None) if clean else float_nan_masks(w_in)
    wmiss = None
    if weights_missing is not None:
        wmiss = np.broadcast_to(np.asarray(weights_missing, bool), w_in.shape)
        if not wmiss.any():
            wmiss = None
        elif wnan is not None:
            wnan, wsig = wnan & ~wmiss, wsig & ~wmiss
    check_weights(NanTally.from_masks(nan=wnan, signaling=wsig, missing=wmiss), policy,
                  shape=w_in.shape)
    if not clean:
        _check_values(w_in, wnan, wmiss)

    wb = align_weights(w_in, x.shape, axis)
    wnan_b = None if wnan is None else align_weights(wnan, x.shape, axis)
    wmiss_b = None if wmiss is None else align_weights(wmiss, x.shape, axis)
    with np.errstate(invalid="ignore"):
        # NaN and missing weights included: they decide, not drop
        present = None if positive else (wb != 0)
    xnan, xsig = float_nan_masks(x)
    xmiss = None
    if missing is not None:
        xmiss = np.broadcast_to(np.asarray(missing, bool), x.shape)
        if xnan is not None:
            xnan, xsig = xnan & ~xmiss, xsig & ~xmiss
    if x.dtype.kind in "mM":
        nat = np.isnat(x)
        xmiss = nat if xmiss is None else (xmiss | nat)
    if xnan is not None and present is not None:
        xnan, xsig = xnan & present, xsig & present
    if xmiss is not None:
        xmiss = xmiss if present is None else (xmiss & present)
        if not xmiss.any():
            xmiss = None
    raise_for(NanTally.from_masks(nan=xnan, signaling=xsig, missing=xmiss), policy,
              shape=x.shape)

    red = Reduction.of(x, axis)
    rows = red.as_rows(x)
    w = red.as_rows(wb).astype(np.float64, copy=False)

    def as_rows(m: Any) -> Any:
        return None if m is None else red.as_rows(m)

    xnan_r, xmiss_r, wnan_r, wmiss_r = map(as_rows, (xnan, xmiss, wnan_b, wmiss_b))

    drop = None
    for m in (wnan_r, wmiss_r) + ((xnan_r, xmiss_r) if not r.orders_nans else ()):
        if m is not None:
            drop = m if drop is None else (drop | m)
    nan_rows = nan_values = miss_rows = prop_keys = prop_miss = None
    if r.propagates:
        prop_keys = _nan_keys([(rows, xnan_r), (red.as_rows(wb), wnan_r)])
        has_nan = np.zeros(red.rows, bool)
        if prop_keys is not None:
            best = prop_keys.max(axis=1)
            has_nan = best > KMIN
            nan_rows, nan_values = has_nan, keys_to_float(best, np.dtype(np.float64))
        for m in (xmiss_r, wmiss_r):
            if m is not None:
                prop_miss = m if prop_miss is None else (prop_miss | m)
        if prop_miss is not None:
            has_miss = prop_miss.any(axis=1) & ~has_nan
            if has_miss.any():
                miss_rows = has_miss
    seen = None if present is None else red.as_rows(present)
    deferred = None
    if drop is not None and defer_drop:
        deferred = drop
    elif drop is not None:
        w = np.where(drop, 0.0, w)  # a new array: the caller's weights stay as they are
        if r.removes:
            seen = ~drop if seen is None else (seen & ~drop)
    count = np.full(rows.shape[0], rows.shape[1], np.intp) if seen is None else \
        np.count_nonzero(seen, axis=1)
    keep_miss = xmiss_r if r.orders_nans else None
    keep_nan = xnan_r if r.orders_nans else None
    return Prepared(red, rows, w, keep_miss, keep_nan, nan_rows, nan_values, miss_rows, count,
                    prop_keys, prop_miss, deferred)
