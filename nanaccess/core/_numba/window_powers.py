"""Certified rolling and expanding skew and kurt: prefix double-double power sums.

One column at a time: the values taken are centred on one ``c`` and scaled by one
power of two (as :mod:`.central_moments`), and the prefix sums ``P_k(i)`` of ``d**k``
(k = 1..4) are carried as double-doubles (each term by TwoProduct, added by TwoSum
with the low parts beside: one step errs by at most ``24 u**2 G_k(i)``, ``G_k`` the
prefix sum of ``|d|**k``, ``u = 2**-53``), with the prefix counts and the prefix
count of infinities. A window's central sums are ``P_k(end) - P_k(start)``, known
within ``B_k(end) + B_k(start)`` plus the subtraction's own error, where ``B_k(i) =
(24 u**2 i + 2**-99) G_k(i) + i 2**-998`` (``2**-99`` the terms' error, the absolute
part underflow); ``G_1 <= sqrt(i G_2)`` and ``G_3 <= sqrt(G_2 G_4)``. The statistic
is finished as in :func:`.central_moments.finish_bounded`; a window whose interval
does not round to one float (its spread far below the column's, an exact zero, a
tie) is left to the exact engine (``ok`` False). Windows holding an infinity give
NaN, as the plain statistic.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import bind, jit, kernels, register
from .central_moments import _powers, finish_bounded, skew_factor, trivial
from .dd_bounds import dadd, two_sum

__all__ = ["build"]

_U2 = 2.0 ** -106


def _acc(h: Any, lo: Any, t: Any, tl: Any) -> Any:  # pragma: no cover - compiled
    """``(h, lo) + (t, tl)``: TwoSum of the high parts, the low parts beside."""
    s = h + t
    z = s - h
    e = ((h - (s - z)) + (t - z)) + (lo + tl)
    r = s + e
    return r, e - (r - s)


def prefix_kernel(x: np.ndarray, take: np.ndarray, ctr: Any, f1: Any, f2: Any, ph: np.ndarray,
                  pl: np.ndarray, pg: np.ndarray, cnt: np.ndarray,
                  ninf: np.ndarray) -> None:  # pragma: no cover
    """Fill the prefix arrays (row ``i + 1`` after value ``i``): ``ph + pl`` the sums of
    ``d**k`` (columns k - 1), ``pg`` those of ``d**2`` and ``d**4`` rounded upward
    enough to bound them, ``cnt`` the values taken, ``ninf`` the infinities taken.
    The four running sums live in scalars (registers): their chains overlap."""
    h0 = h1 = h2 = h3 = 0.0
    l0 = l1 = l2 = l3 = 0.0
    g2 = 0.0
    g4 = 0.0
    c = 0
    ni = 0
    for i in range(x.shape[0]):
        if take[i]:
            v = x[i]
            if abs(v) == math.inf:
                ni += 1
            else:
                d, dl = two_sum(v, -ctr)
                d = (d * f1) * f2
                dl = (dl * f1) * f2
                p, q, a3, t3, f4, t4 = _powers(d, dl)
                h0, l0 = _acc(h0, l0, d, dl)
                h1, l1 = _acc(h1, l1, p, q)
                h2, l2 = _acc(h2, l2, a3, t3)
                h3, l3 = _acc(h3, l3, f4, t4)
                g2 += p
                g4 += f4
                c += 1
        ph[i + 1, 0] = h0
        ph[i + 1, 1] = h1
        ph[i + 1, 2] = h2
        ph[i + 1, 3] = h3
        pl[i + 1, 0] = l0
        pl[i + 1, 1] = l1
        pl[i + 1, 2] = l2
        pl[i + 1, 3] = l3
        pg[i + 1, 0] = g2
        pg[i + 1, 1] = g4
        cnt[i + 1] = c
        ninf[i + 1] = ni


def _bound(i: Any, pg: np.ndarray, cnt: np.ndarray, k: Any) -> Any:  # pragma: no cover - compiled
    m = np.float64(cnt[i])
    up = 1.0 + 2.0 ** -30 + m * 2.0 ** -52  # the rounding of the prefix magnitudes
    g2 = pg[i, 0] * up
    if k == 0:
        g = math.sqrt(m * g2)
    elif k == 1:
        g = g2
    elif k == 2:
        g = math.sqrt(g2 * pg[i, 1] * up)
    else:
        g = pg[i, 1] * up
    return ((24.0 * _U2 * m + 2.0 ** -99) * g + m * 2.0 ** -998) * (1.0 + 2.0 ** -40)


def windows_kernel(ph: np.ndarray, pl: np.ndarray, pg: Any, cnt: np.ndarray, ninf: np.ndarray,
                   start: np.ndarray, end: np.ndarray, stat: Any, bias: Any, fisher: Any, ddof: Any,
                   ex: Any,
                   out: np.ndarray, ok: np.ndarray) -> None:  # pragma: no cover - compiled
    """``(out[w], ok[w])`` of every window ``[start[w], end[w])``."""
    sh = np.zeros(4)
    sl = np.zeros(4)
    bnd = np.zeros(4)
    fac = np.zeros(3)
    last = -1
    pb = np.empty((ph.shape[0], 4))  # the prefix rows' bounds, once
    for i in range(ph.shape[0]):
        for k in range(4):
            pb[i, k] = _bound(i, pg, cnt, k)
    for w in range(start.shape[0]):
        s = start[w]
        e = end[w]
        if e < s:
            e = s
        m = cnt[e] - cnt[s]
        if ninf[e] - ninf[s] > 0:
            out[w] = np.nan
            ok[w] = True
            continue
        val, done, good = trivial(stat, m, False, bias, ddof)
        if done:
            out[w] = val
            ok[w] = good
            continue
        if m != last:  # most windows hold as many values as the one before
            skew_factor(m, bias, fac)
            last = m
        for k in range(4):
            sh[k], sl[k], bnd[k] = dadd(ph[e, k], pl[e, k], pb[e, k], -ph[s, k], -pl[s, k],
                                        pb[s, k])
        out[w], ok[w] = finish_bounded(stat, m, sh, sl, bnd, bias, fisher, ddof, ex, fac)


_SHARED = ("two_sum", "dadd", "_powers", "trivial", "finish_bounded",
           "skew_factor")
_HELPERS = ("_bound", "_acc")


def build() -> dict[str, Any]:
    """Compile the kernels (the helpers as :mod:`.central_moments` compiled them)."""
    kernels("central_moments")
    from . import central_moments

    comp = {name: getattr(central_moments, name) for name in _SHARED}
    bind(globals(), _SHARED, comp)
    bind(globals(), _HELPERS)
    return {"prefix": jit(nogil=True)(prefix_kernel),
            "windows": jit(nogil=True)(windows_kernel)}


register("window_powers", build)
