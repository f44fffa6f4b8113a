"""Grouped weighted order statistics (issue 13): every group at once, no loop per group.

One sort of all pairs by (group, policy key) puts every group's values in order with
their weights; one cumulative sum over all of them serves every group (a group's
cumulative weights are the global ones minus the sum before the group), and one
:func:`numpy.searchsorted` per quantile finds, for every group, the first pair whose
cumulative weight reaches each position (:mod:`nanaccess.core.weighted.positions`).
The policy on data and weights is :func:`nanaccess.core.weighted.prepare`'s;
"propagate" gives each group its own greatest NaN. Integer weights (totals below
``2**53``) are summed exactly; real weights in float64, as NumPy's.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import _stats
from ..interp import validate_q
from ..keys import keys_to_float
from ..policy import RULES, finish
from ..weighted.order import _combine, _sort_keys
from ..weighted.positions import median_positions, weighted_positions
from ..weighted.prepare import _KMIN, prepare
from .common import radix_argsort_codes

__all__ = ["grouped_weighted", "GROUPED_WEIGHTED"]

#: statistics the grouped weighted engine computes
GROUPED_WEIGHTED = tuple(n for n in _stats.WEIGHTED if _stats.get(n).family == "order")


def grouped_weighted(x: Any, codes: Any, ngroups: int, stat: str, weights: Any, *, policy,
                     missing: np.ndarray | None = None,
                     weights_missing: np.ndarray | None = None, q: Any = None,
                     method: str = "linear"):
    """Weighted ``stat`` of every group of the 1-D ``x`` (``codes``: group per value,
    -1 ignored).

    Returns ``(values, missing, count)``: values ``(ngroups,)`` (``(*q.shape,
    ngroups)`` for a quantile sequence), ``missing`` None or a bool array of that
    shape, ``count`` the pairs each group saw.

    Examples
    --------
    >>> from nanaccess.options import NanPolicy
    >>> x = np.array([1.0, 2.0, 3.0, 10.0, 20.0])
    >>> grouped_weighted(x, [0, 0, 0, 1, 1], 2, "median", [1, 1, 5, 1, 3],
    ...                  policy=NanPolicy.RAISE)[0]
    array([ 3., 20.])
    """
    if stat not in GROUPED_WEIGHTED:
        raise TypeError(f"grouped weighted statistics are {', '.join(GROUPED_WEIGHTED)}; "
                        f"got {stat!r}")
    x = np.asarray(x)
    codes = np.asarray(codes, dtype=np.int64)
    if x.ndim != 1 or codes.shape != x.shape:
        raise ValueError("grouped weights need 1-D data and one code per value")
    w = np.broadcast_to(np.asarray(weights), x.shape)
    keep = codes >= 0
    if not keep.all():  # rows of no group are ignored entirely, their weights too
        x, codes, w = x[keep], codes[keep], w[keep]
        missing = None if missing is None else np.broadcast_to(missing, keep.shape)[keep]
        weights_missing = None if weights_missing is None else \
            np.broadcast_to(weights_missing, keep.shape)[keep]
    p = prepare(x, w, axis=None, policy=policy, missing=missing,
                weights_missing=weights_missing)
    keys = _sort_keys(p, policy)[0]
    miss = None if p.miss is None else p.miss[0]
    # by key (missing last), then a stable radix pass by group
    order = np.argsort(keys) if miss is None else np.lexsort((keys, miss))
    order = order[radix_argsort_codes(codes[order], ngroups)]
    sw = p.w[0][order]
    cs = codes[order]
    c = np.cumsum(sw)
    grid = np.arange(ngroups)
    starts = np.searchsorted(cs, grid, "left")
    ends = np.searchsorted(cs, grid, "right")
    before = np.where(starts > 0, c[np.maximum(starts - 1, 0)] if c.size else 0.0, 0.0)
    upto = np.where(ends > 0, c[np.maximum(ends - 1, 0)] if c.size else 0.0, 0.0)
    total = upto - before
    exact = bool((sw == np.rint(sw)).all() and (c[-1] if c.size else 0) < 2.0 ** 53)

    lead: tuple[int, ...] = ()
    if stat == "quantile":
        qa = validate_q(q)
        lead = qa.shape
        s_lo, s_hi, t = weighted_positions(total, qa.ravel(), method)
        mode = "pick" if method in ("lower", "higher", "nearest") else "lerp"
    else:
        s_lo, s_hi, t = median_positions(total, stat)
        mode = "lerp" if stat == "median" else "pick"
    empty = total == 0

    def locate(s):
        reach = np.minimum(np.ceil(s) if exact else s, total[None, :])
        first_pos = np.searchsorted(c, before, "right")[None, :]
        idx = np.where(s <= 0, first_pos, np.searchsorted(c, before[None, :] + reach, "left"))
        return np.clip(idx, starts[None, :], np.maximum(ends - 1, starts)[None, :])

    if x.size == 0:
        vals = np.zeros(s_lo.shape, x.dtype if x.dtype.kind == "f" else np.float64)
        vals, res_miss = finish(vals, stat, empty=empty[None, :])
        return vals.reshape(lead + (ngroups,)), res_miss, np.zeros(ngroups, np.int64)
    i_lo = np.minimum(locate(s_lo), x.size - 1)
    i_hi = np.minimum(locate(s_hi), x.size - 1)
    src_lo, src_hi = order[i_lo], order[i_hi]
    vals = _combine(stat, mode, p.x[0][src_lo], p.x[0][src_hi], t)

    missing_rows = None
    if miss is not None:
        missing_rows = miss[src_lo] | (miss[src_hi] & (t != 0))
    nan_rows = nan_values = None
    if p.prop_keys is not None:
        best = np.full(ngroups, _KMIN, np.int64)
        np.maximum.at(best, codes, p.prop_keys[0])
        nan_rows = (best > _KMIN)[None, :]
        nan_values = keys_to_float(best, np.dtype(np.float64))[None, :]
    if p.prop_miss is not None:
        gm = np.zeros(ngroups, bool)
        gm[codes[p.prop_miss[0]]] = True
        missing_rows = gm[None, :] if nan_rows is None else (gm & ~nan_rows[0])[None, :]
    if missing_rows is not None and not missing_rows.any():
        missing_rows = None
    if nan_rows is not None and not nan_rows.any():
        nan_rows = nan_values = None
    res_miss = None
    if empty.any() or missing_rows is not None or nan_rows is not None:
        if vals.dtype.kind not in "fmM":
            vals = vals.astype(np.float64)
        vals, res_miss = finish(vals, stat, empty=empty[None, :], nan_rows=nan_rows,
                                nan_values=nan_values, missing_rows=missing_rows)
    with np.errstate(invalid="ignore"):
        seen = (p.w[0] > 0) if RULES[policy].removes else (np.asarray(w) != 0)
    count = np.bincount(codes[seen], minlength=ngroups).astype(np.int64)
    shape = lead + (ngroups,)
    return vals.reshape(shape), None if res_miss is None else \
        np.broadcast_to(res_miss, vals.shape).reshape(shape), count
