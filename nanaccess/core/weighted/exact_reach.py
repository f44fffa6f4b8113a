"""Reaches computed from the exact total weight, where the rounded total would misplace them.

:mod:`.positions` evaluates NumPy's formulas on the float64 total weight. Two cases
need the exact total ``W`` (a row's last cumulative pair, :mod:`.cumulative`) instead:

* ``"inverted_cdf"`` of a total that is not a float64 (or of integer weights from
  ``2**53`` on, as below): the element is the first
  whose cumulative weight ``C`` reaches ``W q``, compared exactly. In the row's units
  (``2**L``) that is the first ``C`` reaching ``ceil(q W)``; with ``q = num / 2**k``
  it is integer arithmetic on the limbs (the product of the rounded total can sit
  one unit off: weights ``[0.3, 0.3, 1.1, 0.7]``, exact total ``2.4 + 2.2e-17``, at
  ``q = 0.25`` reach ``W q`` just after the second, not at it). A total that is a
  float64 keeps NumPy's ``n q`` in float64 (so integer weights repeat the data
  exactly as the unweighted quantile ranks it: ``q = 0.9`` of ten unit weights is
  the ninth value, as NumPy's, although ``0.9`` is slightly above nine tenths).
* integer weights whose total reaches ``2**53``: every method's positions are
  evaluated exactly on ``W`` (the median of a total ``2**54 + 1`` is the element at
  ``2**53``, which the rounded total ``2**54`` misses; and even a total that is a
  float64 there, such as ``2**54 - 4``, has an ``n - 1`` that is not).

Both are vectorised over rows on Python integers (object arrays: the only exact
arithmetic wide enough for ``q`` times a 124-bit total); the second is evaluated per
row, but only for integer-weight rows of totals beyond ``2**53``. Rows whose float
total is exact keep :mod:`.positions`' float formulas, which are then NumPy's (and the
repeated data's) own.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, cast

import numpy as np

from ... import _stats
from ..interp import ALPHA_BETA

__all__ = ["exact_reaches"]


def _as_ints(a: np.ndarray) -> np.ndarray:
    return np.asarray(a, np.int64).astype(object)


def _totals(L: Any, B: Any, last_h: Any, last_l: Any, rows: Any) -> Any:
    """The exact totals of ``rows`` in their units, as Python ints (object array)."""
    return (_as_ints(last_h[rows]) << _as_ints(B[rows])) + _as_ints(last_l[rows])


def _float_exact(L: Any, B: Any, last_h: Any, last_l: Any, total: Any) -> np.ndarray:
    """Whether each row's float64 total is its exact total: the float, split into the
    row's limbs as :func:`.cumulative.units_of` splits a weight, gives back the pair."""
    with np.errstate(all="ignore"):
        u = np.ldexp(np.asarray(total, np.float64), -np.asarray(L, np.int64))
        h = np.floor(np.ldexp(u, -np.asarray(B, np.int64)))
        lo = u - np.ldexp(h, B)
        ok = np.isfinite(u) & (h < 2.0 ** 62)
        return cast("np.ndarray",
               ok & (np.where(ok, h, 0).astype(np.int64) == last_h) & \
            (np.where(ok, lo, 0).astype(np.int64) == last_l))


def _inverted_units(q: np.ndarray, W: np.ndarray) -> np.ndarray:
    """``ceil(q W)`` at least 1 and at most ``W`` ((Q, k) object), vectorised."""
    ratios = [float(v).as_integer_ratio() for v in q]
    num = np.array([r[0] for r in ratios], object)[:, None]
    den = np.array([r[1] for r in ratios], object)[:, None]
    U = -((-(num * W[None, :])) // den)
    U = np.where(U < 1, 1, U)
    return np.where(U > W[None, :], np.broadcast_to(W[None, :], U.shape), U)


def _virtual(n: int, q: Fraction, method: str) -> Any:
    """:func:`..interp.virtual_index` of one row in exact arithmetic."""
    raw = (n - 1) * q
    if method in ("linear", "inclusive"):
        return raw, None
    if method == "lower":
        return Fraction(math.floor(raw)), raw
    if method == "higher":
        return Fraction(math.ceil(raw)), raw
    if method == "nearest":
        return Fraction(round(raw)), raw  # half to even, as np.around
    if method == "midpoint":
        return Fraction(math.floor(raw) + math.ceil(raw), 2), raw
    if method == "averaged_inverted_cdf":
        return n * q - 1, None
    alpha, beta = (Fraction(v) for v in ALPHA_BETA[method])
    return n * q + (alpha + q * (1 - alpha - beta)) - 1, None


def _integer(vi: Fraction, n: int, raw: Any) -> Any:
    """:func:`.positions._integer_positions` of one row, exactly."""
    nm1 = n - 1
    above = (vi if raw is None else max(vi, raw)) >= nm1
    lo = math.floor(vi)
    t = Fraction(0) if above or vi < 0 else vi - lo
    s_lo = 0 if lo <= 0 else lo + 1
    s_hi = n if lo + 1 >= nm1 else lo + 2
    if above:
        s_lo = s_hi = n
    elif vi < 0:
        s_hi = 0
    return s_lo, s_hi, t, above or vi < 0


def _row_positions(n: int, q: float, method: str, stat: str) -> Any:
    """Reaches (Fractions, 1-based) and the weight of one row of integer total ``n``:
    :func:`.positions.weighted_positions` / ``median_positions`` in exact arithmetic."""
    if stat in _stats.LOW_MEDIANS | _stats.HIGH_MEDIANS:
        mid = Fraction(n - 1, 2)
        vi = Fraction(math.floor(mid) if stat in _stats.LOW_MEDIANS else math.ceil(mid))
        s_lo = _integer(vi, n, mid)[0]
        return s_lo, s_lo, 0.0
    fq = Fraction(q)
    if method == "closest_observation":
        index = n * fq - 1 - Fraction(1, 2)
        prev = math.floor(index)
        rank = prev if index == prev and prev % 2 == 1 else prev + 1
        s = n if rank >= n - 1 else (0 if rank <= 0 else rank + 1)
        return s, s, 0.0
    vi, raw = _virtual(n, fq, method)
    s_lo, s_hi, t, clamped = _integer(vi, n, raw)
    if method == "midpoint":
        t = Fraction(1, 2) if t != 0 else Fraction(0)
    elif method == "averaged_inverted_cdf":
        step = not clamped and t == 0
        if not clamped and not step:
            s_lo = s_hi
        t = Fraction(1, 2) if step else Fraction(0)
    return s_lo, s_hi, float(t)


def _integer_total_units(q: Any, method: Any, stat: Any, W: Any, L: Any) -> Any:
    """Reach units and weights of integer-weight rows (``L >= 0``) of exact totals
    ``W`` (units): positions per row on ``n = W 2**L``, then ``ceil(s / 2**L)``."""
    nq, k = len(q), len(W)
    U_lo = np.empty((nq, k), object)
    U_hi = np.empty((nq, k), object)
    t = np.zeros((nq, k))
    for j in range(k):  # rows of integer totals beyond 2**53 only (rare): exact per row
        w, scale = int(W[j]), 1 << int(L[j])
        n = w * scale
        for i, qi in enumerate(q):
            s_lo, s_hi, ti = _row_positions(n, float(qi), method, stat)
            U_lo[i, j] = min(max(-(-s_lo // scale), 1), w)
            U_hi[i, j] = min(max(-(-s_hi // scale), 1), w)
            t[i, j] = ti
    return U_lo, U_hi, t


def exact_reaches(stat: str, q: Any, method: str, L: Any, B: Any, last_h: Any, last_l: Any,
                  total: Any, exact: Any) -> Any:
    """Exact target pairs for the rows (groups) whose total is not a float64.

    ``L``, ``B``, ``last_h``, ``last_l`` (the exact total pair), ``total`` (float64)
    and ``exact`` (rows summed in limbs) are per row. Returns None when no row needs
    it, else ``(rows, th_lo, tl_lo, th_hi, tl_hi, t)``: the row indices and, for them,
    ``(Q, k)`` int64 target pairs (the first cumulative pair at or above them is the
    element) and float64 interpolation weights replacing :mod:`.positions`' ones.
    """
    L, B = np.asarray(L, np.int64), np.asarray(B, np.int64)
    last_h, last_l = np.asarray(last_h, np.int64), np.asarray(last_l, np.int64)
    exact = np.asarray(exact, bool) & ((last_h > 0) | (last_l > 0))
    qa = np.atleast_1d(np.asarray(q if stat in _stats.QUANTILES else 0.5, np.float64)).ravel()
    inverted = stat in _stats.QUANTILES and method == "inverted_cdf"
    rows = np.flatnonzero(exact if inverted else exact & (L >= 0))
    if rows.size:
        tot = np.asarray(total, np.float64)[rows]
        # integer weights from 2**53 on: n - 1 and n q round in float64 even when the
        # total itself is a float64, so their positions are exact too
        need = ~_float_exact(L[rows], B[rows], last_h[rows], last_l[rows], tot) | (
            (L[rows] >= 0) & (tot >= 2.0 ** 53))
        rows = rows[need]
    if not rows.size or not qa.size:
        return None
    W = _totals(L, B, last_h, last_l, rows)
    if inverted:
        U_lo = U_hi = _inverted_units(qa, W)
        t = np.zeros(U_lo.shape)
    else:
        U_lo, U_hi, t = _integer_total_units(qa, method, stat, W, L[rows])
    b = _as_ints(B[rows])[None, :]
    mask = (1 << b) - 1

    def split(U: Any) -> Any:
        return (U >> b).astype(np.int64), (U & mask).astype(np.int64)

    th_lo, tl_lo = split(U_lo)
    th_hi, tl_hi = (th_lo, tl_lo) if U_hi is U_lo else split(U_hi)
    return rows, th_lo, tl_lo, th_hi, tl_hi, t
