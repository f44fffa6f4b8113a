"""Double-double arithmetic with a carried error bound: the finishing steps of the
certified higher moments (:mod:`.central_moments`).

A quantity is ``(h, l, e)``: the double-double ``h + l`` (normalised: ``|l| <=
ulp(h)/2``) lies within ``e`` of the exact real value. Every operation adds its
inputs' propagated errors and its own rounding error, bounded by ``R = 2**-98`` times
the magnitudes involved. The published bounds of these algorithms (Joldes, Muller,
Popescu, ACM TOMS 44(2), 2017: accurate DW+DW ``3u**2``, DW*DW ``7u**2``, DW/DW
``15u**2 + 56u**3``; a Newton step of the square root ``~3u**2``, ``u = 2**-53``)
are all below ``256 u**2 = 2**-98``: the margin also covers the roundings of the
bound arithmetic (a few ``u`` relative each) and a low part up to ``4u`` of its
high part. Valid while no value underflows (the callers keep magnitudes within
``[2**-500, 2**500]`` by a power-of-two scaling, or leave the cell to the exact
engine).
"""

from __future__ import annotations

import math
from typing import Any

__all__ = ["R", "two_sum", "fast_two_sum", "two_prod", "dadd", "dmul", "ddiv", "dsqrt",
           "rounds_to"]

R = 2.0 ** -98
_SPLIT = 134217729.0
_SLACK = 1.0 + 2.0 ** -40  # inflates magnitudes taken from high parts


def two_sum(a: Any, b: Any) -> Any:  # pragma: no cover - compiled
    s = a + b
    z = s - a
    return s, (a - (s - z)) + (b - z)


def fast_two_sum(a: Any, b: Any) -> Any:  # pragma: no cover - compiled
    s = a + b
    return s, b - (s - a)


def two_prod(a: Any, b: Any) -> Any:  # pragma: no cover - compiled
    p = a * b
    c = _SPLIT * a
    ah = c - (c - a)
    al = a - ah
    c = _SPLIT * b
    bh = c - (c - b)
    bl = b - bh
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def dadd(ah: Any, al: Any, ae: Any, bh: Any, bl: Any,
         be: Any) -> Any:  # pragma: no cover - compiled
    """``a + b`` (accurate DW+DW)."""
    s, t = two_sum(ah, bh)
    u, v = two_sum(al, bl)
    t += u
    s, t = fast_two_sum(s, t)
    t += v
    s, t = fast_two_sum(s, t)
    return s, t, ae + be + R * (abs(ah) + abs(bh)) * _SLACK


def dmul(ah: Any, al: Any, ae: Any, bh: Any, bl: Any,
         be: Any) -> Any:  # pragma: no cover - compiled
    """``a * b`` (DW*DW)."""
    p, e = two_prod(ah, bh)
    e += ah * bl + al * bh
    p, e = fast_two_sum(p, e)
    ma = abs(ah) * _SLACK
    mb = abs(bh) * _SLACK
    return p, e, (ma * be + mb * ae + ae * be + R * ma * mb) * _SLACK


def ddiv(ah: Any, al: Any, ae: Any, bh: Any, bl: Any,
         be: Any) -> Any:  # pragma: no cover - compiled
    """``a / b``; ``e`` is infinite when ``b``'s interval may hold 0."""
    mb = abs(bh) * (1.0 - 2.0 ** -40) - be
    if not mb > 0.0:
        return 0.0, 0.0, math.inf
    q1 = ah / bh
    p, e = two_prod(q1, bh)
    r = (((ah - p) - e) + al) - q1 * bl
    q2 = r / bh
    q, ql = fast_two_sum(q1, q2)
    mq = abs(q) * _SLACK
    return q, ql, ((ae + mq * be) / mb + R * mq) * _SLACK


def dsqrt(ah: Any, al: Any, ae: Any) -> Any:  # pragma: no cover - compiled
    """``sqrt(a)``; ``e`` is infinite unless ``a``'s interval is positive."""
    if not ah - ae * _SLACK > 0.0:
        return 0.0, 0.0, math.inf
    s = math.sqrt(ah)
    p, e = two_prod(s, s)
    r = (((ah - p) - e) + al) / (2.0 * s)
    h, lo = fast_two_sum(s, r)
    lower = math.sqrt(max(ah * (1.0 - 2.0 ** -40) - ae * _SLACK, 0.0))
    if not lower > 0.0:
        return h, lo, math.inf
    return h, lo, (ae / lower + R * abs(h)) * _SLACK


def rounds_to(h: Any, lo: Any, e: Any) -> Any:  # pragma: no cover - compiled
    """``(value, True)`` when every real within ``e`` of ``h + lo`` rounds to the same
    normal float64 ``value`` (round to nearest even), else ``(h, False)``. The
    interval is widened by 2 ``e``: ``fl(lo -+ 2e)`` then still lies beyond ``lo -+
    e`` (``e >= R |h|`` is far above the rounding of ``lo``)."""
    if not (e < math.inf and abs(h) < math.inf):
        return h, False
    a = h + (lo - 2.0 * e)
    b = h + (lo + 2.0 * e)
    if a != b or not abs(a) >= 2.0 ** -1022 or abs(a) == math.inf:
        return h, False
    return a, True
