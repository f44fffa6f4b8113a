"""Certified fast covariance and Pearson correlation (the numba engine's shortcut).

The exact path (:mod:`nanaccess.core._numba.bivariate`) builds exact integer sums and
rounds once in Python. Here the five sums ``Sx, Sy, Sxx, Syy, Sxy`` are compensated
float sums (TwoSum chains, products split exactly by a fused multiply-add) carried
with a *rigorous* bound on their error; the co-moments and the quotient are formed in
double-double arithmetic with the bound carried along, and a result is kept only when
every real number within the bound rounds to the same float64 (Ziv's test, strict, so
ties never pass). Then it is the correctly rounded value of the exact rational, the
same bits as the exact path; every other result (near-ties, zero variances, values
whose products leave the float range, cancellation beyond the bound) is flagged and
recomputed by the exact path. Nothing here may return a number the exact path would
not.

Error of a chain of ``m`` terms ``v_i`` (TwoSum errors ``t_i``, product errors
``e_i``): ``sum v = s + sum (t_i + e_i)`` exactly; the float sum ``c`` of the
corrections errs by at most ``gamma_(m+1) sum(|t_i| + |e_i|)`` with
``|t_i| <= u |s_i| <= u (1 + gamma_m) A`` and ``|e_i| <= u |v_i|`` (``A = sum |v_i|``),
so by at most ``1.1 (m + 1)**2 u**2 A`` (``u = 2**-53``, ``m u < 1e-3``), plus
``m 2**-1074`` for products that underflow (their fma error is then rounded).

Moving windows (:mod:`.bivariate_cert_roll`) slide the chains, the sums starting again
from the window's rows every few thousand windows: no drift, a bound that does not grow.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import bind, jit, register
from .window_sums import fma_intrinsic

prange = range  # numba's prange once compiled (bound by build)

__all__ = ["expanding_pair", "matrix_pairs", "matrix_groups", "build",
           "WIDTH"]

_U = 2.0 ** -53
_TINY = 2.0 ** -1073
#: floats per chain state: (s, c) of Sx, Sy, Sxx, Syy, Sxy, then sum |x|, |y|, |x y|,
#: then the sums of the TwoSum errors' magnitudes of the five chains (a second bound),
#: then the sums of the magnitudes of their running corrections (a third bound)
WIDTH = 23
_LO, _HI = 2.0 ** -960, 2.0 ** 960  # results whose ulp is normal (and ufp finite)
_PHI = 2.0 ** 52 + 1  # Rump's ufp: |phi c - (1 - u) phi c| = 2**floor(log2 |c|)
_BATCH = 256  # windows combined, then finished together (a loop that vectorises; in L1)


def _fma(a: Any, b: Any, c: Any) -> Any:  # pragma: no cover - replaced when compiled
    """a * b + c rounded once (LLVM's ``fma`` once compiled); non-finite or
    overflowing operands as IEEE's fma gives them."""
    import math
    from fractions import Fraction

    if not (math.isfinite(a) and math.isfinite(b) and math.isfinite(c)):
        return a * b + c
    try:
        return float(Fraction(a) * Fraction(b) + Fraction(c))
    except OverflowError:
        return a * b + c


def _two_sum(a: Any, b: Any) -> Any:  # pragma: no cover - compiled
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _step(st: np.ndarray, sn: np.ndarray, k: Any, kk: Any, x: Any,
          y: Any) -> None:  # pragma: no cover - compiled
    """State ``kk`` = state ``k`` with the finite pair (x, y) added (may be one)."""
    prev = st[k]
    cur = st[kk]
    s, t = _two_sum(prev[0], x)
    cur[13] = prev[13] + abs(t)
    c = prev[1] + t
    cur[18] = prev[18] + abs(c)
    cur[0] = s
    cur[1] = c
    s, t = _two_sum(prev[2], y)
    cur[14] = prev[14] + abs(t)
    c = prev[3] + t
    cur[19] = prev[19] + abs(c)
    cur[2] = s
    cur[3] = c
    q = x * x
    e = _fma(x, x, -q)
    s, t = _two_sum(prev[4], q)
    cur[15] = prev[15] + abs(t)
    c = prev[5] + (t + e)
    cur[20] = prev[20] + abs(c)
    cur[4] = s
    cur[5] = c
    q = y * y
    e = _fma(y, y, -q)
    s, t = _two_sum(prev[6], q)
    cur[16] = prev[16] + abs(t)
    c = prev[7] + (t + e)
    cur[21] = prev[21] + abs(c)
    cur[6] = s
    cur[7] = c
    q = x * y
    e = _fma(x, y, -q)
    s, t = _two_sum(prev[8], q)
    cur[17] = prev[17] + abs(t)
    c = prev[9] + (t + e)
    cur[22] = prev[22] + abs(c)
    cur[8] = s
    cur[9] = c
    cur[10] = prev[10] + abs(x)
    cur[11] = prev[11] + abs(y)
    cur[12] = prev[12] + abs(q)
    sn[kk, 0] = sn[k, 0] + 1
    sn[kk, 1] = sn[k, 1]


def _comoment_s(n: Any, ha: Any, la: Any, ea: Any, hb: Any, lb: Any, eb: Any, hc: Any, lc: Any,
                ec: Any) -> Any:  # pragma: no cover - compiled
    """:func:`_comoment` of scalars (straight-line: no branch)."""
    p1 = n * hc
    e1 = _fma(n, hc, -p1)
    r1 = n * lc
    p2 = ha * hb
    e2 = _fma(ha, hb, -p2)
    r2 = ha * lb + la * hb + la * lb
    h, t = _two_sum(p1, -p2)
    lo = t + e1 - e2 + r1 - r2
    h, lo = _two_sum(h, lo)
    err = n * ec + (abs(ha) + abs(la)) * eb + (abs(hb) + abs(lb)) * ea + ea * eb
    err += 8.0 * _U * (abs(r1) + abs(r2) + abs(t) + abs(e1) + abs(e2) + abs(ha * lb)
                       + abs(la * hb))
    err += 8.0 * _U * _U * (abs(p1) + abs(p2)) + 8.0 * _TINY
    return h, lo, err * 1.01


def _ziv_s(q: Any, d: Any, bound: Any) -> Any:  # pragma: no cover - compiled
    """:func:`_ziv` without a branch: the gaps from Rump's ufp (``_PHI``)."""
    cand = q + d
    res = (q - cand) + d
    b = bound + _U * abs(res)
    ac = abs(cand)
    qq = _PHI * ac
    uf = abs(qq - (1.0 - _U) * qq)  # 2**floor(log2 |cand|)
    away = uf * 2.0 ** -53  # half the gap away from zero
    toward = away * (1.0 - 0.5 * (ac == uf))  # a power of two: half the gap below
    pos = 1.0 * (cand > 0.0)
    up = toward + (away - toward) * pos
    down = away + (toward - away) * pos
    ok = (res + b < up) & (b - res < down) & (ac >= _LO) & (ac <= _HI)
    return cand, ok


def _finish_many(W: np.ndarray, N: np.ndarray, NI: np.ndarray, m: Any, stat: Any, ddof: Any,
                 minp: Any, out: np.ndarray,
                 good: np.ndarray) -> None:  # pragma: no cover - compiled
    """:func:`_finish` of windows ``0..m-1`` (sums ``W[:, j]``, rows ``N``,
    infinities ``NI``): one straight-line loop for the common case, then the few
    special windows (empty, short, infinite, a single row) set apart."""
    if stat == 1:
        for j in range(m):
            fn = float(N[j])
            h, lo, err = _comoment_s(fn, W[0, j], W[1, j], W[2, j], W[3, j], W[4, j],
                                     W[5, j], W[12, j], W[13, j], W[14, j])
            den = fn * (fn - ddof)
            q = h / den
            ph = q * den
            pl = _fma(q, den, -ph)
            d = (((h - ph) - pl) + lo) / den
            cand, ok = _ziv_s(q, d, err / den * 1.01 + 4.0 * _U * abs(d))
            out[j] = cand
            good[j] = ok & (abs(h) - 2.0 * err > 0.0) & (abs(h) > 1e-280) & (abs(h) < 1e300)
    else:
        for j in range(m):
            fn = float(N[j])
            hxy, lxy, exy = _comoment_s(fn, W[0, j], W[1, j], W[2, j], W[3, j], W[4, j],
                                        W[5, j], W[12, j], W[13, j], W[14, j])
            hxx, lxx, exx = _comoment_s(fn, W[0, j], W[1, j], W[2, j], W[0, j], W[1, j],
                                        W[2, j], W[6, j], W[7, j], W[8, j])
            hyy, lyy, eyy = _comoment_s(fn, W[3, j], W[4, j], W[5, j], W[3, j], W[4, j],
                                        W[5, j], W[9, j], W[10, j], W[11, j])
            axy = abs(hxy) - exy
            axx = hxx - exx
            ayy = hyy - eyy
            dh = hxx * hyy
            rel = exy / axy + 0.5 * (exx * ayy + eyy * axx) / (axx * ayy)
            dl = _fma(hxx, hyy, -dh) + (hxx * lyy + lxx * hyy)
            q = hxy / np.sqrt(dh)
            c2h = hxy * hxy
            c2l = _fma(hxy, hxy, -c2h) + 2.0 * hxy * lxy
            qh = q * q
            ql = _fma(q, q, -qh)
            mh = qh * dh
            ml = _fma(qh, dh, -mh) + qh * dl + ql * dh
            d = ((c2h - mh) + (c2l - ml)) / (2.0 * q * dh)
            bound = (rel * 1.01 + 64.0 * _U * _U) * abs(q) + 16.0 * _U * abs(d)
            cand, ok = _ziv_s(q, d, bound)
            out[j] = cand
            good[j] = (ok & (axy > 0.0) & (axx > 0.0) & (ayy > 0.0) & (rel < 1e-6)
                       & (dh > 1e-300) & (dh < 1e300) & (abs(hxy) > 1e-140)
                       & (abs(d) < 8.0 * _U * abs(q)))
    for j in range(m):
        n = N[j]
        if NI[j] > 0 or n < minp or n == 0 or (stat == 0 and n == 1) or (
                stat == 1 and n - ddof <= 0):
            out[j] = np.nan
            good[j] = True
        elif stat == 1 and n == 1:
            out[j] = 0.0
            good[j] = True


def _combine_many(S: np.ndarray, Sn: np.ndarray, IA: np.ndarray, IB: np.ndarray, SG: np.ndarray,
                  m: Any, W: np.ndarray, N: np.ndarray,
                  NI: np.ndarray) -> None:  # pragma: no cover - compiled
    """``W[3k:3k+3, j]`` = (hi, lo, bound) of sum k of ``S[IA[j]] + SG[j] * S[IB[j]]``
    for the windows ``0..m-1`` (``N``, ``NI``: their rows and infinities). Each chain
    errs by at most :func:`_perr`, the sum of the two by ``2.1 u`` of its corrections
    (unsigned row indices: no negative-index code in the loop)."""
    for j in range(m):
        ia = np.uint64(IA[j])
        ib = np.uint64(IB[j])
        sg = SG[j]
        na = Sn[ia, 0]
        nb = Sn[ib, 0]
        fa = na + 1.0
        fb = nb + 1.0
        ka = 1.1 * fa * fa * _U * _U
        kb = 1.1 * fb * fb * _U * _U
        tiny = (na + nb) * _TINY
        ax = S[ia, 10]
        bx = S[ib, 10]
        W[0, j], W[1, j], W[2, j] = _join_s(
            S[ia, 0], S[ia, 1], S[ib, 0], S[ib, 1], sg,
            _perr(ka, fa, ax, S[ia, 13], S[ia, 18])
            + _perr(kb, fb, bx, S[ib, 13], S[ib, 18]) + tiny)
        ax = S[ia, 11]
        bx = S[ib, 11]
        W[3, j], W[4, j], W[5, j] = _join_s(
            S[ia, 2], S[ia, 3], S[ib, 2], S[ib, 3], sg,
            _perr(ka, fa, ax, S[ia, 14], S[ia, 19])
            + _perr(kb, fb, bx, S[ib, 14], S[ib, 19]) + tiny)
        ax = 1.01 * (abs(S[ia, 4]) + abs(S[ia, 5]))
        bx = 1.01 * (abs(S[ib, 4]) + abs(S[ib, 5]))
        W[6, j], W[7, j], W[8, j] = _join_s(
            S[ia, 4], S[ia, 5], S[ib, 4], S[ib, 5], sg,
            _perr(ka, fa, ax, S[ia, 15], S[ia, 20])
            + _perr(kb, fb, bx, S[ib, 15], S[ib, 20]) + tiny)
        ax = 1.01 * (abs(S[ia, 6]) + abs(S[ia, 7]))
        bx = 1.01 * (abs(S[ib, 6]) + abs(S[ib, 7]))
        W[9, j], W[10, j], W[11, j] = _join_s(
            S[ia, 6], S[ia, 7], S[ib, 6], S[ib, 7], sg,
            _perr(ka, fa, ax, S[ia, 16], S[ia, 21])
            + _perr(kb, fb, bx, S[ib, 16], S[ib, 21]) + tiny)
        ax = S[ia, 12]
        bx = S[ib, 12]
        W[12, j], W[13, j], W[14, j] = _join_s(
            S[ia, 8], S[ia, 9], S[ib, 8], S[ib, 9], sg,
            _perr(ka, fa, ax, S[ia, 17], S[ia, 22])
            + _perr(kb, fb, bx, S[ib, 17], S[ib, 22]) + tiny)
        N[j] = na + np.int64(sg) * nb
        NI[j] = Sn[ia, 1] + np.int64(sg) * Sn[ib, 1]


def _perr(k2: Any, f: Any, a: Any, t: Any, cc: Any) -> Any:  # pragma: no cover - compiled
    """Error bound of a chain of ``f - 1`` terms, the smallest of three: ``k2 a``
    (``k2 = 1.1 f**2 u**2``, from ``sum|terms| = a``); ``gamma_f (sum |t_i| + u a)``
    from the tracked TwoSum errors ``t`` (module docstring); and ``u (sum |c_i| + sum
    |t_i| + u a)`` from the tracked running corrections ``cc`` (each addition to the
    correction errs by at most ``u |c_i|``, and ``t_i + e_i`` by ``u |t_i + e_i|``).
    2 % for the rounding of the tracked sums."""
    return min(k2 * a, 1.0201 * f * _U * (t + _U * a), 1.0201 * _U * (cc + t + _U * a))


def _join_s(ha: Any, ca: Any, hb: Any, cb: Any, sg: Any,
            err: Any) -> Any:  # pragma: no cover - compiled
    """(hi, lo, bound) of ``(ha + ca) + sg (hb + cb)``, chains erring by ``err``."""
    h, t = _two_sum(ha, sg * hb)
    return h, (ca + sg * cb) + t, err + 2.1 * _U * (abs(ca) + abs(cb) + abs(t))


def _acc(s: Any, c: Any, v: Any, e: Any) -> Any:  # pragma: no cover - compiled
    """Chain ``(s, c)`` plus the term ``v + e`` (``e``: the product's error): exact up to
    the rounding errors of ``c`` (bounded by :func:`_normalise`)."""
    s2, t = _two_sum(s, v)
    return s2, c + (t + e)


def _terms(x: Any, y: Any, sg: Any) -> Any:  # pragma: no cover - compiled
    """``sg`` times (x, y, x x, y y, x y) and the products' errors (fused multiply-adds)."""
    xv = sg * x
    qx = xv * x
    qy = sg * y * y
    qp = xv * y
    return xv, sg * y, qx, _fma(xv, x, -qx), qy, _fma(sg * y, y, -qy), qp, _fma(xv, y, -qp)


def expanding_pair(x: np.ndarray, y: np.ndarray, ok: np.ndarray, end: np.ndarray, stat: Any,
                   ddof: Any, minp: Any, out: np.ndarray,
                   good: np.ndarray) -> None:  # pragma: no cover
    """Windows ``[0, end[i])`` with ``end`` non-decreasing: one running chain."""
    st = np.zeros((1, WIDTH))  # the running chain
    sn = np.zeros((1, 2), np.int64)
    S = np.zeros((_BATCH + 1, WIDTH))  # the batch's states, then a zero state
    Sn = np.zeros((_BATCH + 1, 2), np.int64)
    IA = np.arange(_BATCH)
    IB = np.full(_BATCH, _BATCH)
    SG = np.ones(_BATCH)
    W = np.zeros((15, _BATCH))
    N = np.zeros(_BATCH, np.int64)
    NI = np.zeros(_BATCH, np.int64)
    r = 0
    nwin = end.shape[0]
    for a0 in range(0, nwin, _BATCH):
        m = min(_BATCH, nwin - a0)
        for j in range(m):
            e = end[a0 + j]
            while r < e:
                if ok[r]:
                    if np.isfinite(x[r]) and np.isfinite(y[r]):
                        _step(st, sn, 0, 0, x[r], y[r])
                    else:
                        sn[0, 1] += 1
                r += 1
            S[j, :] = st[0, :]
            Sn[j, 0] = sn[0, 0]
            Sn[j, 1] = sn[0, 1]
        _combine_many(S, Sn, IA, IB, SG, m, W, N, NI)
        _finish_many(W, N, NI, m, stat, ddof, minp, out[a0:a0 + m], good[a0:a0 + m])


def _finish(w: np.ndarray, n: Any, stat: Any, ddof: Any, minp: Any, ninf: Any, fb: Any,
            ib: Any) -> Any:  # pragma: no cover - compiled
    """:func:`_finish_many` of one window's sums ``w`` (flat): (value, certified)."""
    W = w.reshape(15, 1)
    N = np.full(1, n, np.int64)
    NI = np.full(1, ninf, np.int64)
    out = np.empty(1)
    good = np.zeros(1, np.bool_)
    _finish_many(W, N, NI, 1, stat, ddof, minp, out, good)
    return out[0], good[0]


def _chain_err(m: Any, at: Any, a: Any) -> Any:  # pragma: no cover - compiled
    """Error bound of a chain of ``m`` terms from its tracked sums ``at`` = sum |t_i|
    (TwoSum errors, computed) and ``a`` = sum |terms|: ``gamma_(m+1) (sum |t_i| + u
    a)``, with 1 % for the rounding of the tracked sums (``m u < 1e-3``)."""
    return 1.01 * (m + 1.0) * _U * (at + _U * a) * 1.01 + m * _TINY


def _column_chain(x: np.ndarray, ok: np.ndarray,
                  st: np.ndarray) -> None:  # pragma: no cover - compiled
    """``st`` = (s, c) of Sx and Sxx, sum |x|, terms, infinities, and the error bounds
    of Sx and Sxx, over the rows ``ok``."""
    s0 = c0 = s2 = c2 = a = t0 = t2 = 0.0
    m = 0
    inf = 0
    for r in range(x.shape[0]):
        if ok[r]:
            v = x[r]
            if not np.isfinite(v):
                inf += 1
                continue
            s0, t = _two_sum(s0, v)
            c0 += t
            t0 += abs(t)
            q = v * v
            e = _fma(v, v, -q)
            s2, t = _two_sum(s2, q)
            c2 += t + e
            t2 += abs(t)
            a += abs(v)
            m += 1
    st[0] = s0
    st[1] = c0
    st[2] = s2
    st[3] = c2
    st[4] = a
    st[5] = m
    st[6] = inf
    st[7] = _chain_err(m, t0, a)
    st[8] = _chain_err(m, t2, 1.01 * (abs(s2) + t2))


def _pair(x: np.ndarray, y: np.ndarray, vx: np.ndarray, vy: np.ndarray, cx: np.ndarray,
          cy: np.ndarray, stat: Any, ddof: Any, minp: Any, w: np.ndarray, fb: Any,
          fi: Any) -> Any:  # pragma: no cover
    """(value, certified, joint rows) of the pair of columns ``x``, ``y`` (valid rows
    ``vx``, ``vy``; column chains ``cx``, ``cy`` from :func:`_column_chain`): one
    product chain over the rows, and the rows only one side has taken back out of the
    column sums (chains of their own)."""
    sp = cp = ap = tp = 0.0
    s0 = c0 = s1 = c1 = s2 = c2 = s3 = c3 = a0 = a1 = 0.0
    t0 = t1 = t2 = t3 = 0.0
    n = 0
    one = 0
    for r in range(x.shape[0]):
        ux = vx[r]
        uy = vy[r]
        if ux and uy:
            q = x[r] * y[r]
            e = _fma(x[r], y[r], -q)
            sp, t = _two_sum(sp, q)
            cp += t + e
            tp += abs(t)
            ap += abs(q)
            n += 1
        elif ux:
            v = x[r]
            s0, t = _two_sum(s0, v)
            c0 += t
            t0 += abs(t)
            q = v * v
            e = _fma(v, v, -q)
            s2, t = _two_sum(s2, q)
            c2 += t + e
            t2 += abs(t)
            a0 += abs(v)
            one += 1
        elif uy:
            v = y[r]
            s1, t = _two_sum(s1, v)
            c1 += t
            t1 += abs(t)
            q = v * v
            e = _fma(v, v, -q)
            s3, t = _two_sum(s3, q)
            c3 += t + e
            t3 += abs(t)
            a1 += abs(v)
            one += 1
    # the columns' sums less the one-sided rows', and the products
    w[0], w[1], w[2] = _join_s(cx[0], cx[1], s0, c0, -1.0, cx[7] + _chain_err(one, t0, a0))
    w[3], w[4], w[5] = _join_s(cy[0], cy[1], s1, c1, -1.0, cy[7] + _chain_err(one, t1, a1))
    w[6], w[7], w[8] = _join_s(cx[2], cx[3], s2, c2, -1.0,
                               cx[8] + _chain_err(one, t2, 1.01 * (abs(s2) + t2)))
    w[9], w[10], w[11] = _join_s(cy[2], cy[3], s3, c3, -1.0,
                                 cy[8] + _chain_err(one, t3, 1.01 * (abs(s3) + t3)))
    w[12], w[13], w[14] = _join_s(sp, cp, 0.0, 0.0, 1.0, _chain_err(n, tp, ap))
    v, ok = _finish(w, n, stat, ddof, minp, 0, fb, fi)
    return v, ok, n


def matrix_pairs(vals: np.ndarray, valid: np.ndarray, pairs: np.ndarray, stat: Any, ddof: Any,
                 minp: Any, out: np.ndarray, good: np.ndarray,
                 counts: np.ndarray) -> None:  # pragma: no cover
    """Every pair ``pairs[p]`` of the ``(K, n)`` columns ``vals`` (rows ``valid``):
    ``out[p]`` its certified cov / Pearson r, ``good[p]`` certified, ``counts[p]`` the
    joint rows. Pairs of a column holding an infinity are left uncertified. Compiled
    twice: serial, and with ``prange`` over the pairs."""
    K = vals.shape[0]
    cols = np.zeros((K, 9))
    for k in prange(K):
        _column_chain(vals[k], valid[k], cols[k])
    for p in prange(pairs.shape[0]):
        i = pairs[p, 0]
        j = pairs[p, 1]
        if cols[i, 6] > 0 or cols[j, 6] > 0:
            continue
        w = np.zeros(15)
        fb = np.zeros(2)
        fi = fb.view(np.int64)
        out[p], good[p], counts[p] = _pair(vals[i], vals[j], valid[i], valid[j], cols[i],
                                           cols[j], stat, ddof, minp, w, fb, fi)


def matrix_groups(vals: np.ndarray, valid: np.ndarray, rows: np.ndarray, starts: np.ndarray,
                  pairs: np.ndarray, stat: Any, ddof: Any, minp: Any, out: np.ndarray,
                  good: np.ndarray,
                  counts: np.ndarray) -> None:  # pragma: no cover
    """:func:`matrix_pairs` per group ``g`` (rows ``rows[starts[g]:starts[g+1]]``):
    ``out[g, p]``, ``good[g, p]``, ``counts[g, p]``. Compiled twice: serial, and with
    ``prange`` over the groups."""
    K = vals.shape[0]
    for g in prange(starts.shape[0] - 1):
        a = starts[g]
        m = starts[g + 1] - a
        sub = np.empty((K, m))
        sv = np.empty((K, m), np.bool_)
        for k in range(K):
            for q in range(m):
                r = rows[a + q]
                sub[k, q] = vals[k, r]
                sv[k, q] = valid[k, r]
        cols = np.zeros((K, 9))
        for k in range(K):
            _column_chain(sub[k], sv[k], cols[k])
        w = np.zeros(15)
        fb = np.zeros(2)
        fi = fb.view(np.int64)
        for p in range(pairs.shape[0]):
            i = pairs[p, 0]
            j = pairs[p, 1]
            if cols[i, 6] > 0 or cols[j, 6] > 0:
                continue
            out[g, p], good[g, p], counts[g, p] = _pair(sub[i], sub[j], sv[i], sv[j], cols[i],
                                                        cols[j], stat, ddof, minp, w, fb,
                                                        fi)


_INLINE = ("_two_sum", "_step", "_chain_err", "_comoment_s",
           "_ziv_s", "_finish_many", "_join_s", "_perr", "_acc", "_terms")
_HELPERS = (*_INLINE, "_finish", "_column_chain", "_pair", "_combine_many")


def build() -> dict[str, Any]:
    """Compile the certified kernels (numpy's error model: a division by zero gives an
    infinity or NaN, which fails the test, instead of a branch per division)."""
    ns = globals()
    ns["_fma"] = fma_intrinsic()
    opts = {"nogil": True, "error_model": "numpy"}
    for name in _INLINE:  # inlined: no call (and no array view) per row
        ns[name] = jit(inline="always", **opts)(ns[name])
    for name in _HELPERS:
        if name not in _INLINE:
            ns[name] = jit(**opts)(ns[name])
    bind(ns, ())
    return {"matrix_pairs": jit(**opts)(matrix_pairs),
            "matrix_pairs_parallel": jit(parallel=True, **opts)(matrix_pairs),
            "matrix_groups": jit(**opts)(matrix_groups),
            "matrix_groups_parallel": jit(parallel=True, **opts)(matrix_groups),
            "expanding_pair": jit(**opts)(expanding_pair)}


register("bivariate_cert", build)
