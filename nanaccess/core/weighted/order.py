"""Weighted order statistics: sort keys per row carrying weights, cumulative weights.

Vectorised over rows: one ``argsort`` of the ``(rows, n)`` totalOrder keys (the
policy's order: "smallest"/"largest" remap NaN keys, kept missing values sort last),
the weights taken in that order, their cumulative sums, and one search per quantile
for the first element whose cumulative weight reaches each position
(:mod:`.positions`). Cumulative weights that decide a rank are exact: each row's
weights are scaled by a power of two to integers and summed in int64 (integer
weights are already integers). Only a row whose weights span more than about 62
bits (real weights with full mantissas over many values, or tiny next to huge) falls
back to float64 sums as NumPy's, with ties ordered by weight so the result still
does not depend on the input order. Integer weights (totals below ``2**53``) are
summed in float64, which is exact for them.
"""

from __future__ import annotations

import numpy as np

from ..keys import float_keys, integer_keys, remap_keys
from ..plan import PICK_METHODS, RankPlan, combine
from ..policy import finish
from .positions import median_positions, weighted_positions
from .prepare import Prepared

__all__ = ["weighted_order"]

_MAX_BITS = 62  # int64 cumulative sums must stay below 2**62
_SAMPLE = 256


def _sort_keys(p: Prepared, policy) -> np.ndarray:
    x = p.x
    if x.dtype.kind == "f":
        return remap_keys(float_keys(x), x.dtype, policy)
    if x.dtype.kind in "mM":
        return x.view(np.int64)
    return integer_keys(x)


def _scales(w: np.ndarray, n_total: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Per row: the exponent ``L`` making every weight ``w * 2**-L`` an integer, and
    whether the row's int64 cumulative sums (over ``n_total`` values) then fit."""
    rows, n = w.shape
    mant, exp = np.frexp(w)
    pos = w > 0
    m = np.ldexp(mant, 53).astype(np.int64)  # 53-bit integer mantissas (0 for w == 0)
    low = m & -m  # lowest set bit
    tz = np.frexp(low.astype(np.float64))[1] - 1
    lsb = np.where(pos, exp - 53 + tz, np.iinfo(np.int32).max)
    top = np.where(pos, exp, np.iinfo(np.int32).min)
    lo = lsb.min(axis=1) if n else np.zeros(rows, np.int64)
    hi = top.max(axis=1) if n else np.zeros(rows, np.int64)
    empty = ~pos.any(axis=1) if n else np.ones(rows, bool)
    lo = np.where(empty, 0, lo)
    ok = empty | ((hi - lo) + int(n if n_total is None else n_total).bit_length() <= _MAX_BITS)
    return lo.astype(np.int64), ok


def _first_reaching(c: np.ndarray, target: np.ndarray) -> np.ndarray:
    """Per row, the first index whose cumulative weight is >= target ((Q, rows))."""
    rows = c.shape[0]
    if rows == 1:
        return np.searchsorted(c[0], target[:, 0], side="left")[:, None]
    out = np.empty(target.shape, np.int64)
    for i in range(target.shape[0]):  # one pass per quantile, vectorised over rows
        out[i] = np.count_nonzero(c < target[i][:, None], axis=1)
    return out


def _integral(sw: np.ndarray) -> bool:
    """Every weight an integer and every row's total below 2**53."""
    if not sw.size or not (sw == np.rint(sw)).all():
        return False
    return bool((sw.sum(axis=1) < 2.0 ** 53).all())


def _float_cumulative(p: Prepared, keys: np.ndarray, order: np.ndarray, sw: np.ndarray):
    """float64 cumulative sums (weights spanning more than 62 bits, in practice real
    weights with full mantissas over many values: rounded as NumPy's). Ties
    (identical values) are ordered by weight first, so the sums are a function of
    the multiset of pairs, not of the input order."""
    sk = keys[0][order[0]][None] if keys.shape[0] == 1 else np.take_along_axis(keys, order, 1)
    if (sk[:, 1:] == sk[:, :-1]).any():
        order = np.lexsort((p.w, keys) if p.miss is None else (p.w, keys, p.miss), axis=-1)
        sw = np.take_along_axis(p.w, order, axis=1)
    c = np.cumsum(sw, axis=1)
    return c, c[:, -1] if c.shape[1] else np.zeros(c.shape[0]), order


def _cumulative(sw: np.ndarray, scale: np.ndarray):
    """Exact int64 cumulative weights (scaled by ``2**-scale`` per row)."""
    ints = np.ldexp(sw, -scale[:, None]).astype(np.int64)
    return np.cumsum(ints, axis=1)


def _targets(s: np.ndarray, c_last: np.ndarray, scale: np.ndarray | None, exact: bool):
    """1-based reaches (float) as search targets in the cumulative weights' units:
    0 -> the first positive weight, ``>= W`` -> the last."""
    if exact and c_last.dtype.kind == "f":  # integer weights: units of 1
        return np.where(s <= 0, 1.0, np.minimum(np.ceil(s), c_last[None, :]))
    if exact:
        scaled = np.ceil(np.ldexp(s, -scale[None, :]))
        last = c_last[None, :]
        t = np.where(scaled >= last.astype(np.float64), last,
                     np.minimum(scaled, 2.0 ** 62).astype(np.int64))
        return np.where(s <= 0, 1, t)
    return np.where(s <= 0, np.nextafter(0.0, 1.0), np.minimum(s, c_last[None, :]))


def weighted_order(p: Prepared, stat: str, policy, *, q=None, method: str = "linear"):
    """Weighted ``stat`` (quantile, median, median_low, median_high) of prepared rows.

    Returns ``(values, missing, lead)`` with values ``(Q, rows)``.
    """
    rows, n = p.w.shape
    keys = _sort_keys(p, policy)
    if p.miss is not None:  # kept missing values sort after everything
        order = np.lexsort((keys, p.miss), axis=-1)
    else:
        order = np.argsort(keys, axis=1)
    sw = p.w[0][order[0]][None] if rows == 1 else np.take_along_axis(p.w, order, axis=1)
    exact = True
    if _integral(sw):
        # integer weights summing below 2**53: float64 cumulative sums are exact
        scale = np.zeros(rows, np.int64)
        c = np.cumsum(sw, axis=1)
        c_last = c[:, -1] if n else np.zeros(rows)
        total = c_last
    else:
        # a sample's span bounds the row's from below: reject real weights cheaply
        sample_ok = n <= _SAMPLE or bool(_scales(sw[:, :_SAMPLE], n)[1].all())
        scale, ok = _scales(sw) if sample_ok else (None, np.zeros(rows, bool))
        exact = bool(ok.all())
        if exact:
            c = _cumulative(sw, scale)
            c_last = c[:, -1] if n else np.zeros(rows, np.int64)
            total = np.ldexp(c_last.astype(np.float64), scale)
        else:
            c, c_last, order = _float_cumulative(p, keys, order, sw)
            total = c_last

    lead: tuple[int, ...] = ()
    if stat == "quantile":
        qa = np.asarray(q, np.float64)
        lead = qa.shape
        s_lo, s_hi, t = weighted_positions(total, qa.ravel(), method)
        mode = "pick" if method in PICK_METHODS else "lerp"
    else:
        s_lo, s_hi, t = median_positions(total, stat)
        mode = "lerp" if stat == "median" else "pick"
    empty = total == 0
    if n == 0:
        vals = np.zeros(s_lo.shape, p.x.dtype if p.x.dtype.kind == "f" else np.float64)
        vals, miss = finish(vals, stat, empty=empty[None, :])
        return vals, miss, lead

    i_lo = np.minimum(_first_reaching(c, _targets(s_lo, c_last, scale, exact)), n - 1)
    i_hi = np.minimum(_first_reaching(c, _targets(s_hi, c_last, scale, exact)), n - 1)
    src_lo = np.take_along_axis(order, i_lo.T, axis=1)  # (rows, Q) positions in x rows
    src_hi = np.take_along_axis(order, i_hi.T, axis=1)
    a = np.take_along_axis(p.x, src_lo, axis=1).T
    b = np.take_along_axis(p.x, src_hi, axis=1).T
    vals = _combine(stat, mode, a, b, t)

    missing_rows = None
    if p.miss is not None:
        m_lo = np.take_along_axis(p.miss, src_lo, axis=1).T
        m_hi = np.take_along_axis(p.miss, src_hi, axis=1).T
        missing_rows = m_lo | (m_hi & (t != 0))
    if p.miss_rows is not None:
        missing_rows = p.miss_rows[None, :]
    if missing_rows is not None and not missing_rows.any():
        missing_rows = None
    nan_rows = None if p.nan_rows is None else p.nan_rows[None, :]
    nan_values = None if p.nan_values is None else p.nan_values[None, :]
    res_missing = None
    if empty.any() or missing_rows is not None or nan_rows is not None:
        if vals.dtype.kind not in "fmM":
            vals = vals.astype(np.float64)  # an int result gets a NaN fill
        vals, res_missing = finish(vals, stat, empty=empty[None, :], nan_rows=nan_rows,
                                   nan_values=nan_values, missing_rows=missing_rows)
    return vals, res_missing, lead


def _combine(stat: str, mode: str, a: np.ndarray, b: np.ndarray, t: np.ndarray) -> np.ndarray:
    """The rank plan's arithmetic on the picked neighbours. The median takes the
    unweighted median's midpoint where the weight is 1/2 (so integer weights give
    the repeated data's bits) and interpolates elsewhere (real weights)."""
    t = np.broadcast_to(t, a.shape)
    zeros = np.zeros(a.shape, np.int64)
    if mode == "pick":
        return combine(RankPlan(zeros, zeros, t, "pick"), a)
    lerped = combine(RankPlan(zeros, zeros, t, "lerp"), a, b)
    if stat != "median":
        return lerped
    half = t == 0.5
    if not half.any():
        return lerped
    mid = combine(RankPlan(zeros, np.where(half, 1, 0), t, "mid"), a, b)
    return np.where(half, mid, lerped)
