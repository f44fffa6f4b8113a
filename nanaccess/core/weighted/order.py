"""Weighted order statistics: sort keys per row carrying weights, cumulative weights.

Vectorised over rows: one ``argsort`` of the ``(rows, n)`` totalOrder keys (the
policy's order: "smallest"/"largest" remap NaN keys, kept missing values sort last),
the weights taken in that order, their cumulative sums, and one search per quantile
for the first element whose cumulative weight reaches each position
(:mod:`.positions`). Cumulative weights that decide a rank are exact: each row's
weights are scaled by a power of two to integers and summed in two int64 limbs
(:mod:`.cumulative`; integer weights with totals below ``2**53`` are summed in
float64, which is exact for them). Only a row whose weights span more than about
``124 - 2 bits(n)`` bits (tiny next to huge) falls back to float64 sums as NumPy's,
with ties ordered by weight so the result still does not depend on the input order.
Every choice is made per row, from the row's own weights.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import _stats
from .. import _numba
from ..plan import PICK_METHODS
from ..policy import finish
from .compiled import compiled_order, use_compiled
from .cumulative import cumulative_pairs, first_reaching_pairs, pair_total, reach_units, units_of
from .exact_reach import exact_reaches
from .positions import combine_picks, median_positions, sort_keys, weighted_positions
from .prepare import Prepared

__all__ = ["weighted_order"]

_SAMPLE = 256


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


def _float_cumulative(w: Any, keys: Any, miss: Any, order: Any, sw: Any) -> Any:
    """float64 cumulative sums (rows whose weights span too many bits for the exact
    pairs: rounded as NumPy's). Ties (identical values) are ordered by weight first,
    so the sums are a function of the multiset of pairs, not of the input order."""
    sk = np.take_along_axis(keys, order, 1)
    if (sk[:, 1:] == sk[:, :-1]).any():
        order = np.lexsort((w, keys) if miss is None else (w, keys, miss), axis=-1)
        sw = np.take_along_axis(w, order, axis=1)
    c = np.cumsum(sw, axis=1)
    return c, c[:, -1] if c.shape[1] else np.zeros(c.shape[0]), order


class _Cumulative:
    """Cumulative weights of sorted rows and the search for a reach in them: float64
    sums of integer weights (exact), exact pairs (:mod:`.cumulative`), or float64
    sums (rows too wide for the pairs), chosen per row."""

    def __init__(self, p: Prepared, keys: np.ndarray, order: np.ndarray, sw: np.ndarray) -> None:
        rows, n = sw.shape
        self.order = order
        if _integral(sw):  # integer weights summing below 2**53: float64 sums are exact
            self.c = np.cumsum(sw, axis=1)
            self.total = self.c[:, -1] if n else np.zeros(rows)
            self.kind = "int"
            return
        self.kind = "mixed"
        u = units_of(sw)
        self.E = np.flatnonzero(u.exact)
        self.F = np.flatnonzero(~u.exact)
        self.total = np.zeros(rows)
        E, F = self.E, self.F
        if E.size:
            self.L, self.B = u.L[E], u.B[E]
            hi, lo = (u.hi, u.lo) if E.size == rows else (u.hi[E], u.lo[E])
            self.H, self.Lo = cumulative_pairs(hi, lo, self.B)
            last_h = self.H[:, -1] if n else np.zeros(E.size, np.int64)
            last_l = self.Lo[:, -1] if n else np.zeros(E.size, np.int64)
            self.last = (last_h, last_l)
            self.total[E] = pair_total(last_h, last_l, self.B, self.L)
        if F.size:
            miss = None if p.miss is None else p.miss[F]
            self.cf, cl, fo = _float_cumulative(p.w[F], keys[F], miss, order[F], sw[F])
            self.total[F] = cl
            order = order.copy()
            order[F] = fo
            self.order = order

    def exact(self, stat: str, q: Any, method: str) -> Any:
        """:func:`.exact_reach.exact_reaches` of the rows whose float total misleads
        (None: none): ``(rows, (th_lo, tl_lo), (th_hi, tl_hi), t)``, rows global."""
        if self.kind == "int" or not self.E.size:  # "int": totals are float64s
            return None
        linear = stat in _stats.MIDPOINT_MEDIANS  # the median's rank rule is linear's
        got = exact_reaches(stat, q, "linear" if linear else method, self.L, self.B,
                            *self.last, self.total[self.E], np.ones(self.E.size, bool))
        if got is None:
            return None
        rows, th_lo, tl_lo, th_hi, tl_hi, t = got
        return self.E[rows], (th_lo, tl_lo), (th_hi, tl_hi), t

    def first(self, s: np.ndarray, exact: Any = None) -> np.ndarray:
        """Per row, the index (in sorted order) of the element at 1-based reach ``s``
        ((Q, rows)): 0 means the first positive weight, ``>= W`` the last. ``exact``:
        ``(rows, (th, tl))`` exact target pairs replacing the reach of those rows."""
        if self.kind == "int":
            last = self.total[None, :]
            t = np.where(s <= 0, 1.0, np.minimum(np.ceil(s), last))
            return _first_reaching(self.c, t)
        out = np.empty(s.shape, np.int64)
        if self.E.size:
            th, tl = reach_units(s[:, self.E], self.L, self.B, *self.last)
            if exact is not None:
                at = np.searchsorted(self.E, exact[0])
                th[:, at], tl[:, at] = exact[1]
            out[:, self.E] = first_reaching_pairs(self.H, self.Lo, th, tl)
        if self.F.size:
            last = self.total[self.F][None, :]
            sf = s[:, self.F]
            t = np.where(sf <= 0, np.nextafter(0.0, 1.0), np.minimum(sf, last))
            out[:, self.F] = _first_reaching(self.cf, t)
        return out


def weighted_order(p: Prepared, stat: str, policy: Any, *, q: Any = None, method: str = "linear",
                   engine: str | None = None) -> Any:
    """Weighted ``stat`` (quantile, median, median_low, median_high) of prepared rows.

    Returns ``(values, missing, lead)`` with values ``(Q, rows)``. Float rows go to
    the compiled selection (:mod:`.compiled`, the same bits) when numba is chosen.
    """
    rows, n = p.w.shape
    lead: tuple[int, ...] = np.shape(q) if stat in _stats.TAKES_Q else ()
    if rows and n:

        if use_compiled(p, engine, grouped=False):
            try:
                vals, miss, _c = compiled_order(p, None, rows, stat, policy, q, method,
                                                (p.nan_rows, p.nan_values, p.miss_rows))
                return vals, miss, lead
            except Exception as exc:  # a broken numba install: NumPy from here on
                _numba.fallback(exc, engine)
    keys = sort_keys(p, policy)
    if p.miss is not None:  # kept missing values sort after everything
        order = np.lexsort((keys, p.miss), axis=-1)
    else:
        order = np.argsort(keys, axis=1)
    sw = np.take_along_axis(p.w, order, axis=1)
    cum = _Cumulative(p, keys, order, sw)
    order, total = cum.order, cum.total

    lead = ()
    if stat in _stats.TAKES_Q:
        qa = np.asarray(q, np.float64)
        lead = qa.shape
        s_lo, s_hi, t = weighted_positions(total, qa.ravel(), method)
        mode = "pick" if method in PICK_METHODS else "lerp"
    else:
        s_lo, s_hi, t = median_positions(total, stat)
        mode = "lerp" if stat in _stats.MIDPOINT_MEDIANS else "pick"
    empty = total == 0
    if n == 0:
        vals = np.zeros(s_lo.shape, p.x.dtype if p.x.dtype.kind == "f" else np.float64)
        vals, miss = finish(vals, stat, empty=empty[None, :])
        return vals, miss, lead

    over = cum.exact(stat, q, method)
    if over is not None:
        rows, ex_lo, ex_hi, ex_t = over
        t = np.array(np.broadcast_to(t, s_lo.shape))
        t[:, rows] = ex_t
    i_lo = np.minimum(cum.first(s_lo, None if over is None else (rows, ex_lo)), n - 1)
    i_hi = np.minimum(cum.first(s_hi, None if over is None else (rows, ex_hi)), n - 1)
    src_lo = np.take_along_axis(order, i_lo.T, axis=1)  # (rows, Q) positions in x rows
    src_hi = np.take_along_axis(order, i_hi.T, axis=1)
    return _finish_rows(p, stat, mode, src_lo, src_hi, t, empty, lead)


def _finish_rows(p: Prepared, stat: Any, mode: Any, src_lo: Any, src_hi: Any, t: Any, empty: Any,
                 lead: Any) -> Any:
    """Values at the picked positions ((rows, Q) indices into ``p.x``' rows), their
    combination, and the policy's tails (empty, missing, propagated NaN)."""
    a = np.take_along_axis(p.x, src_lo, axis=1).T
    b = np.take_along_axis(p.x, src_hi, axis=1).T
    vals = combine_picks(stat, mode, a, b, t)

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
