"""Certified skew, kurt and sem: a fast front pass before the exact power sums.

Per cell (a row, or a group of a scatter) two passes over the values:

1. the count, the extremes and a compensated sum give a centre ``c`` (about the
   mean) and a power of two ``2**-E`` that brings ``max|x - c|`` near 1;
2. each ``d = (x - c) * 2**-E`` is exact as ``dh + dl`` (TwoSum, then an exact
   scaling: only a low part below ``2**-1022`` can lose bits), and its powers
   ``d**k = th + tl`` (k = 1..4) are formed by Dekker's TwoProduct with error at most
   ``64 u**2 |d|**k + 2**-1000`` (``u = 2**-53``: ``d**2 = TwoSquare(dh) + 2 dh dl``
   drops ``dl**2 <= u**2 dh**2`` and rounds twice, ``<= 7 u**2``; ``d**3`` adds the
   product by ``d`` (``<= 20 u**2``), ``d**4`` the square (``<= 40 u**2``); the
   absolute part covers underflow of tiny terms). Per lane, blocks of ``B`` terms
   are added by TwoSum (errors in a running compensation), each block folded into a
   lane total double-double; the lanes are folded at the end.

The error of each central power sum ``S_k = sum d**k`` is at most
``A_k (2**-85 + nb 2**-98) + n 2**-998`` with ``A_k`` a bound of ``sum |d|**k`` and
``nb`` the number of folds: ``2**-85`` covers the terms and the blocks (``2 B u (B +
8) u`` with ``B = 128`` is below ``2**-90``), ``2**-98`` each fold (``8 u**2`` relative
to ``A_k`` and a share of the block's compensation), the absolute term underflow.
The moments about the mean, ``M2 = S2 - delta S1``, ``M3``, ``M4`` (``delta = S1/n``),
and the statistic are then evaluated in double-double with carried bounds
(:mod:`.dd_bounds`); a cell is certified when the whole interval rounds to one normal
float64, which is then the correctly rounded exact value, the exact engine's answer.
Anything else (a tie, an exact zero, a huge count, a non-finite or subnormal result)
is left to the exact engine (``ok`` False). A cell holding a non-finite value gives
NaN (every policy's caller replaces or has removed it; an infinity makes these
moments NaN).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import bind, jit, register
from .dd_bounds import dadd, ddiv, dmul, dsqrt, fast_two_sum, rounds_to, two_prod, two_sum

__all__ = ["build", "SKEW", "KURT", "SEM", "finish_bounded", "skew_factor"]

SKEW, KURT, SEM = 0, 1, 2
_C = 256  # lanes per row: one chunk of _C values is a vectorised map over them
_B = 128  # terms per lane and block
_NMAX = 2.0 ** 26  # larger counts: the exact engine (constants exact below)
_NAN = math.nan
_SPLIT = 134217729.0  # Veltkamp's splitter, 2**27 + 1


def _scale_of(m: Any) -> Any:  # pragma: no cover - compiled
    """``(f1, f2, E)`` with ``f1 * f2 = 2**-E`` and ``m * 2**-E`` in ``[0.5, 1)``."""
    _, ex = math.frexp(m)
    a = -ex // 2
    return math.ldexp(1.0, a), math.ldexp(1.0, -ex - a), ex


def _powers(d: Any, dl: Any) -> Any:  # pragma: no cover - compiled
    """``d**2``, ``d**3``, ``d**4`` of ``d + dl`` as unnormalised pairs."""
    p, e = two_prod(d, d)
    q = e + 2.0 * d * dl
    a, b = two_prod(p, d)
    t3 = b + (p * dl + q * d)
    f, g = two_prod(p, p)
    t4 = g + 2.0 * p * q
    return p, q, a, t3, f, t4


def _fold(h: Any, lo: Any, s: Any, c: Any) -> Any:  # pragma: no cover - compiled
    t, e = two_sum(h, s)
    e += lo + c
    return fast_two_sum(t, e)


def _finish(stat: Any, n: Any, sh: np.ndarray, sl: Any, mx: Any, nb: Any, lo_x: Any, hi_x: Any,
            bias: Any, fisher: Any, ddof: Any, ex: Any) -> Any:
    # pragma: no cover - compiled
    """``(value, ok)`` of one cell from its central power sums (scaled by ``2**-ex``)."""
    out, done, ok = trivial(stat, n, lo_x == hi_x, bias, ddof)
    if done:
        return out, ok
    fn = np.float64(n)
    rel = 2.0 ** -85 + nb * 2.0 ** -98
    ab = fn * 2.0 ** -998
    a2 = (abs(sh[1]) + ab) * (1.0 + 2.0 ** -50)
    a4 = (abs(sh[3]) + ab) * (1.0 + 2.0 ** -50)
    bnd = np.empty(4)
    bnd[0] = math.sqrt(fn * a2) * (1.0 + 2.0 ** -50) * rel + ab
    bnd[1] = a2 * rel + ab
    bnd[2] = mx * (1.0 + 2.0 ** -50) * a2 * rel + ab
    bnd[3] = a4 * rel + ab
    fac = np.empty(3)
    skew_factor(n, bias, fac)
    return finish_bounded(stat, n, sh, sl, bnd, bias, fisher, ddof, ex, fac)


def skew_factor(n: Any, bias: Any, fac: np.ndarray) -> None:  # pragma: no cover - compiled
    """``fac = (h, l, e)``: ``sqrt(n)`` (``bias``) or ``n sqrt(n - 1) / (n - 2)``, the
    factor from ``M3 / M2**1.5`` to the skewness (``n >= 3`` unless ``bias``)."""
    fn = np.float64(n)
    if bias:
        fac[0], fac[1], fac[2] = dsqrt(fn, 0.0, 0.0)
        return
    fh, fl, fe = dsqrt(fn - 1.0, 0.0, 0.0)
    fh, fl, fe = dmul(fn, 0.0, 0.0, fh, fl, fe)
    fac[0], fac[1], fac[2] = ddiv(fh, fl, fe, fn - 2.0, 0.0, 0.0)


def trivial(stat: Any, n: Any, constant: Any, bias: Any,
            ddof: Any) -> Any:  # pragma: no cover - compiled
    """``(value, done, ok)``: too few values (NaN), constant data (``M2 = 0``), or a
    count beyond the fast path (not done: ``ok`` False)."""
    if stat == SEM:
        if n == 0 or ddof >= n:
            return _NAN, True, True
    elif n < (2 if bias else (3 if stat == SKEW else 4)):
        return _NAN, True, True
    if constant:
        if stat == SEM:
            return 0.0, True, True
        return _NAN, True, True  # 0 / 0, as pandas and scipy
    if n >= _NMAX:
        return _NAN, True, False
    return 0.0, False, True


def finish_bounded(stat: Any, n: Any, sh: np.ndarray, sl: np.ndarray, bnd: np.ndarray, bias: Any,
                   fisher: Any, ddof: Any, ex: Any, fac: np.ndarray) -> Any:
    # pragma: no cover - compiled
    """``(value, ok)`` from central power sums ``sh + sl`` (about any centre, scaled by
    ``2**-ex``) known within ``bnd``; ``n`` values, at least the statistic's minimum;
    ``fac``: :func:`skew_factor` of ``n`` (read by skew only)."""
    fn = np.float64(n)
    dh, dlo, de = ddiv(sh[0], sl[0], bnd[0], fn, 0.0, 0.0)
    th, tl, te = dmul(dh, dlo, de, sh[0], sl[0], bnd[0])
    m2h, m2l, m2e = dadd(sh[1], sl[1], bnd[1], -th, -tl, te)
    if stat == SEM:
        oh, ol = two_sum(fn, -ddof)
        dnh, dnl, dne = dmul(fn, 0.0, 0.0, oh, ol, 0.0)
        vh, vl, ve = ddiv(m2h, m2l, m2e, dnh, dnl, dne)
        rh, rl, re = dsqrt(vh, vl, ve)
        val, ok = rounds_to(rh, rl, re)
        if not ok:
            return val, False
        out = val * math.ldexp(1.0, ex // 2) * math.ldexp(1.0, ex - ex // 2)
        if not (abs(out) >= 2.0 ** -1022 and abs(out) < math.inf):
            return out, False
        return out, True
    if stat == SKEW:
        # M3 = S3 - delta (3 S2 - 2 delta S1)
        uh, ul, ue = dmul(2.0, 0.0, 0.0, th, tl, te)
        wh, wl, we = dmul(3.0, 0.0, 0.0, sh[1], sl[1], bnd[1])
        wh, wl, we = dadd(wh, wl, we, -uh, -ul, ue)
        wh, wl, we = dmul(dh, dlo, de, wh, wl, we)
        m3h, m3l, m3e = dadd(sh[2], sl[2], bnd[2], -wh, -wl, we)
        qh, ql, qe = dsqrt(m2h, m2l, m2e)
        qh, ql, qe = dmul(m2h, m2l, m2e, qh, ql, qe)
        rh, rl, re = ddiv(m3h, m3l, m3e, qh, ql, qe)
        rh, rl, re = dmul(rh, rl, re, fac[0], fac[1], fac[2])
        return rounds_to(rh, rl, re)
    # M4 = S4 - delta (4 S3 - delta (6 S2 - 3 delta S1))
    uh, ul, ue = dmul(3.0, 0.0, 0.0, th, tl, te)
    wh, wl, we = dmul(6.0, 0.0, 0.0, sh[1], sl[1], bnd[1])
    wh, wl, we = dadd(wh, wl, we, -uh, -ul, ue)
    wh, wl, we = dmul(dh, dlo, de, wh, wl, we)
    vh, vl, ve = dmul(4.0, 0.0, 0.0, sh[2], sl[2], bnd[2])
    wh, wl, we = dadd(vh, vl, ve, -wh, -wl, we)
    wh, wl, we = dmul(dh, dlo, de, wh, wl, we)
    m4h, m4l, m4e = dadd(sh[3], sl[3], bnd[3], -wh, -wl, we)
    qh, ql, qe = dmul(m2h, m2l, m2e, m2h, m2l, m2e)
    ph, pl, pe = dmul(fn, 0.0, 0.0, m4h, m4l, m4e)
    rh, rl, re = ddiv(ph, pl, pe, qh, ql, qe)  # n M4 / M2**2
    if bias:
        if fisher:
            rh, rl, re = dadd(rh, rl, re, -3.0, 0.0, 0.0)
        return rounds_to(rh, rl, re)
    rh, rl, re = dmul(fn * fn - 1.0, 0.0, 0.0, rh, rl, re)
    rh, rl, re = dadd(rh, rl, re, -3.0 * (fn - 1.0) * (fn - 1.0), 0.0, 0.0)
    rh, rl, re = ddiv(rh, rl, re, (fn - 2.0) * (fn - 3.0), 0.0, 0.0)
    if not fisher:
        rh, rl, re = dadd(rh, rl, re, 3.0, 0.0, 0.0)
    return rounds_to(rh, rl, re)


def _centre(s: Any, c: Any, cnt: Any, lo_x: Any, hi_x: Any) -> Any:  # pragma: no cover - compiled
    """``(centre, f1, f2, E, usable)`` from the first pass."""
    if cnt == 0 or lo_x == hi_x:
        return 0.0, 1.0, 1.0, 0, True
    ctr = (s + c) / cnt
    if not abs(ctr) < math.inf:
        return 0.0, 1.0, 1.0, 0, False
    ctr = min(max(ctr, lo_x), hi_x)
    m = max(hi_x - ctr, ctr - lo_x)
    if not (m > 0.0 and m < math.inf):
        return 0.0, 1.0, 1.0, 0, False
    f1, f2, ex = _scale_of(m)
    return ctr, f1, f2, ex, True


def _first_pass(x: np.ndarray, keep: np.ndarray, r: Any, ls: np.ndarray, lc: np.ndarray,
                ln: np.ndarray, lmin: np.ndarray, lmax: np.ndarray) -> Any:
    # pragma: no cover - compiled
    """Sum (TwoSum, errors beside), count and extremes of row ``r`` in ``_C`` lanes (a
    map over the lanes per chunk: LLVM vectorises it)."""
    n = x.shape[1]
    full = n - n % _C
    xr = x[r]  # 1-D views: unit-stride loads LLVM can vectorise
    kr = keep[r]
    for j in range(_C):
        ls[j] = 0.0
        lc[j] = 0.0
        ln[j] = 0
        lmin[j] = math.inf
        lmax[j] = -math.inf
    for i0 in range(0, full, _C):
        xb = xr[i0:i0 + _C]
        kb = kr[i0:i0 + _C]
        for j in range(_C):  # spelled out (no calls) so that LLVM vectorises it
            v = xb[j]
            t = kb[j]
            w = v if t else 0.0
            a = ls[j]
            s = a + w
            z = s - a
            ls[j] = s
            lc[j] += (a - (s - z)) + (w - z)
            ln[j] += np.int64(t)
            lmin[j] = min(lmin[j], v if t else math.inf)
            lmax[j] = max(lmax[j], v if t else -math.inf)
    for i in range(full, n):
        j = i - full
        if keep[r, i]:
            v = x[r, i]
            s, e = two_sum(ls[j], v)
            ls[j] = s
            lc[j] += e
            ln[j] += 1
            lmin[j] = min(lmin[j], v)
            lmax[j] = max(lmax[j], v)
    s = 0.0
    c = 0.0
    cnt = 0
    lo_x = math.inf
    hi_x = -math.inf
    for j in range(_C):
        s, e = two_sum(s, ls[j])
        c += e + lc[j]
        cnt += ln[j]
        lo_x = min(lo_x, lmin[j])
        hi_x = max(hi_x, lmax[j])
    return s, c, cnt, lo_x, hi_x


def _lane_add(bs: np.ndarray, bc: np.ndarray, k: Any, j: Any, th: Any,
              tl: Any) -> None:  # pragma: no cover - compiled
    s, e = two_sum(bs[k, j], th)
    bs[k, j] = s
    bc[k, j] += e + tl


def _second_pass(x: np.ndarray, keep: np.ndarray, r: Any, kmax: Any, ctr: Any, f1: Any, f2: Any,
                 bs: np.ndarray, bc: np.ndarray, hh: np.ndarray, hl: np.ndarray) -> Any:
    # pragma: no cover - compiled
    """The power sums of row ``r`` about ``ctr`` (scaled by ``f1 f2``) into ``_C`` lanes:
    ``_B`` terms per lane and block (one chunk of ``_C`` values gives each lane one),
    each block folded into the lane's double-double total. Returns the folds made."""
    n = x.shape[1]
    full = n - n % _C
    xr = x[r]
    kr = keep[r]
    b0s = bs[0]  # 1-D views of the lanes of each power
    b1s = bs[1]
    b2s = bs[2]
    b3s = bs[3]
    b0c = bc[0]
    b1c = bc[1]
    b2c = bc[2]
    b3c = bc[3]
    for k in range(4):
        for j in range(_C):
            bs[k, j] = 0.0
            bc[k, j] = 0.0
            hh[k, j] = 0.0
            hl[k, j] = 0.0
    nb = 0
    for b0 in range(0, full, _C * _B):
        b1 = min(full, b0 + _C * _B)
        for i0 in range(b0, b1, _C):
            # the body of _powers and _lane_add spelled out (no calls, no branch on
            # kmax inside), over slices of the chunk: LLVM vectorises the map
            xb = xr[i0:i0 + _C]
            kb = kr[i0:i0 + _C]
            if kmax == 2:
                for j in range(_C):
                    v = xb[j]
                    w = v if kb[j] else ctr
                    d = w - ctr
                    z = d - w
                    dl = ((w - (d - z)) + (-ctr - z)) * f1 * f2
                    d = (d * f1) * f2
                    a = b0s[j]
                    s = a + d
                    z = s - a
                    b0s[j] = s
                    b0c[j] += ((a - (s - z)) + (d - z)) + dl
                    p = d * d
                    u = _SPLIT * d
                    dh = u - (u - d)
                    dt = d - dh
                    q = (((dh * dh - p) + 2.0 * (dh * dt)) + dt * dt) + 2.0 * d * dl
                    a = b1s[j]
                    s = a + p
                    z = s - a
                    b1s[j] = s
                    b1c[j] += ((a - (s - z)) + (p - z)) + q
            else:
                for j in range(_C):
                    v = xb[j]
                    w = v if kb[j] else ctr
                    d = w - ctr
                    z = d - w
                    dl = ((w - (d - z)) + (-ctr - z)) * f1 * f2
                    d = (d * f1) * f2
                    a = b0s[j]
                    s = a + d
                    z = s - a
                    b0s[j] = s
                    b0c[j] += ((a - (s - z)) + (d - z)) + dl
                    p = d * d
                    u = _SPLIT * d
                    dh = u - (u - d)
                    dt = d - dh
                    q = (((dh * dh - p) + 2.0 * (dh * dt)) + dt * dt) + 2.0 * d * dl
                    a = b1s[j]
                    s = a + p
                    z = s - a
                    b1s[j] = s
                    b1c[j] += ((a - (s - z)) + (p - z)) + q
                    # d**3 = p d + (p dl + q d): TwoProduct(p, d)
                    m3 = p * d
                    u = _SPLIT * p
                    ph = u - (u - p)
                    pt = p - ph
                    t3 = (((ph * dh - m3) + ph * dt + pt * dh) + pt * dt) + (p * dl + q * d)
                    a = b2s[j]
                    s = a + m3
                    z = s - a
                    b2s[j] = s
                    b2c[j] += ((a - (s - z)) + (m3 - z)) + t3
                    # d**4 = p p + 2 p q: TwoProduct(p, p)
                    m4 = p * p
                    t4 = (((ph * ph - m4) + 2.0 * (ph * pt)) + pt * pt) + 2.0 * p * q
                    a = b3s[j]
                    s = a + m4
                    z = s - a
                    b3s[j] = s
                    b3c[j] += ((a - (s - z)) + (m4 - z)) + t4
        for k in range(kmax):
            for j in range(_C):
                hh[k, j], hl[k, j] = _fold(hh[k, j], hl[k, j], bs[k, j], bc[k, j])
                bs[k, j] = 0.0
                bc[k, j] = 0.0
        nb += _C
    for i in range(full, n):  # the tail: one more term for some lanes
        j = i - full
        if not keep[r, i]:
            continue
        d, dl = two_sum(x[r, i], -ctr)
        d = (d * f1) * f2
        dl = (dl * f1) * f2
        p, q, a3, t3, f4, t4 = _powers(d, dl)
        _lane_add(bs, bc, 0, j, d, dl)
        _lane_add(bs, bc, 1, j, p, q)
        _lane_add(bs, bc, 2, j, a3, t3)
        _lane_add(bs, bc, 3, j, f4, t4)
    for k in range(4):
        for j in range(_C):
            hh[k, j], hl[k, j] = _fold(hh[k, j], hl[k, j], bs[k, j], bc[k, j])
    return nb + _C


def rows_kernel(x: np.ndarray, keep: Any, kmax: Any, stat: Any, bias: Any, fisher: Any, ddof: Any,
                out: np.ndarray, ok: np.ndarray) -> None:
    # pragma: no cover - compiled
    """Certified ``stat`` of each row of the C-order float64 ``(rows, n)`` array ``x``
    (``keep[r, i]`` False: the value is left out; ``keep`` has ``x``'s shape, read
    unconditionally so that the loops stay branch-free).

    Both passes keep ``_C`` lanes and treat one chunk of ``_C`` values as a map over
    them (no dependency between iterations), which LLVM vectorises; the lanes are
    folded together at the end (``2 _C`` more folds in the bound). ``max|d|`` is
    bounded by the extremes of the first pass."""
    nr = x.shape[0]
    ls = np.zeros(_C)
    lc = np.zeros(_C)
    ln = np.zeros(_C, np.int64)
    lmin = np.zeros(_C)
    lmax = np.zeros(_C)
    bs = np.zeros((4, _C))
    bc = np.zeros((4, _C))
    hh = np.zeros((4, _C))
    hl = np.zeros((4, _C))
    sh = np.zeros(4)
    sl = np.zeros(4)
    for r in range(nr):
        s, c, cnt, lo_x, hi_x = _first_pass(x, keep, r, ls, lc, ln, lmin, lmax)
        if cnt == 0:
            out[r], ok[r] = _finish(stat, 0, sh, sl, 0.0, 0.0, 0.0, 0.0, bias, fisher,
                                    ddof, 0)
            continue
        if not (abs(lo_x) < math.inf and abs(hi_x) < math.inf) or s != s:
            out[r] = _NAN  # a NaN or an infinity taken: these moments are NaN
            ok[r] = True
            continue
        ctr, f1, f2, ex, usable = _centre(s, c, cnt, lo_x, hi_x)
        if not usable:
            ok[r] = False
            continue
        if lo_x == hi_x or cnt < 2:
            out[r], ok[r] = _finish(stat, cnt, sh, sl, 0.0, 0.0, lo_x, hi_x, bias, fisher,
                                    ddof, ex)
            continue
        nb = _second_pass(x, keep, r, kmax, ctr, f1, f2, bs, bc, hh, hl)
        for k in range(4):
            h = hh[k, 0]
            lo = hl[k, 0]
            for j in range(1, _C):
                h, lo, _ = dadd(h, lo, 0.0, hh[k, j], hl[k, j], 0.0)
            sh[k] = h
            sl[k] = lo
        # every |x - ctr| is at most the larger distance to an extreme
        mx = max(hi_x - ctr, ctr - lo_x) * f1 * f2 * (1.0 + 2.0 ** -50)
        out[r], ok[r] = _finish(stat, cnt, sh, sl, mx, np.float64(nb + 2 * _C), lo_x, hi_x,
                                bias, fisher, ddof, ex)


def grouped_kernel(x: np.ndarray, gid: np.ndarray, kmax: Any, stat: Any, bias: Any, fisher: Any,
                   ddof: Any, out: np.ndarray, ok: np.ndarray) -> None:
    # pragma: no cover - compiled
    """Certified ``stat`` per group of the 1-D float64 ``x`` (``gid`` in ``[0, groups)``;
    -1: left out), one scatter per pass (each group's accumulators one row)."""
    ng = out.shape[0]
    p1 = np.zeros((ng, 4))
    p1[:, 2] = math.inf
    p1[:, 3] = -math.inf
    cnt = np.zeros(ng, np.int64)
    for i in range(x.shape[0]):
        g = gid[i]
        if g < 0:
            continue
        v = x[i]
        p1[g, 0] += v  # any centre serves: a plain sum is close enough
        p1[g, 2] = min(p1[g, 2], v)
        p1[g, 3] = max(p1[g, 3], v)
        cnt[g] += 1
    ctr = np.zeros(ng)
    fs = np.ones((ng, 2))
    exs = np.zeros(ng, np.int64)
    live = np.zeros(ng, np.bool_)
    sh = np.zeros(4)
    sl = np.zeros(4)
    for g in range(ng):
        lo_x = p1[g, 2]
        hi_x = p1[g, 3]
        if cnt[g] == 0:
            out[g], ok[g] = _finish(stat, 0, sh, sl, 0.0, 0.0, 0.0, 0.0, bias, fisher,
                                    ddof, 0)
            continue
        if not (abs(lo_x) < math.inf and abs(hi_x) < math.inf) or p1[g, 0] != p1[g, 0]:
            out[g] = _NAN
            ok[g] = True
            continue
        c, f1, f2, ex, usable = _centre(p1[g, 0], p1[g, 1], cnt[g], lo_x, hi_x)
        if not usable:
            ok[g] = False
            continue
        if lo_x == hi_x or cnt[g] < 2:
            out[g], ok[g] = _finish(stat, cnt[g], sh, sl, 0.0, 0.0, lo_x, hi_x, bias,
                                    fisher, ddof, ex)
            continue
        ctr[g] = c
        fs[g, 0] = f1
        fs[g, 1] = f2
        exs[g] = ex
        live[g] = True
    # per group: 0-7 block (s, c) of powers 1-4, 8-15 totals (h, lo), 16 terms in
    # block, 17 folds
    acc = np.zeros((ng, 18))
    bufs = np.empty((8, _C))
    for i0 in range(0, x.shape[0], _C):
        xb = x[i0:i0 + _C]
        gb = gid[i0:i0 + _C]
        m = xb.shape[0]
        # the powers of a chunk: a map LLVM vectorises (the group's centre and
        # scale gathered; values left out computed and then skipped)
        for j in range(m):
            g = max(gb[j], 0)
            c = ctr[g]
            fa = fs[g, 0]
            fb = fs[g, 1]
            v = xb[j]
            d = v - c
            z = d - v
            dl = ((v - (d - z)) + (-c - z)) * fa * fb
            d = (d * fa) * fb
            p = d * d
            u = _SPLIT * d
            dh = u - (u - d)
            dt = d - dh
            q = (((dh * dh - p) + 2.0 * (dh * dt)) + dt * dt) + 2.0 * d * dl
            m3 = p * d
            u = _SPLIT * p
            ph = u - (u - p)
            pt = p - ph
            bufs[0, j] = d
            bufs[1, j] = dl
            bufs[2, j] = p
            bufs[3, j] = q
            bufs[4, j] = m3
            bufs[5, j] = (((ph * dh - m3) + ph * dt + pt * dh) + pt * dt) + (p * dl + q * d)
            m4 = p * p
            bufs[6, j] = m4
            bufs[7, j] = (((ph * ph - m4) + 2.0 * (ph * pt)) + pt * pt) + 2.0 * p * q
        for j in range(m):  # the scatter: TwoSum into each group's block
            g = gb[j]
            if g < 0 or not live[g]:
                continue
            for k in range(kmax):
                t = bufs[2 * k, j]
                a0 = acc[g, 2 * k]
                s0 = a0 + t
                z = s0 - a0
                acc[g, 2 * k] = s0
                acc[g, 2 * k + 1] += ((a0 - (s0 - z)) + (t - z)) + bufs[2 * k + 1, j]
            acc[g, 16] += 1.0
            if acc[g, 16] >= _B:
                for k in range(kmax):
                    acc[g, 8 + 2 * k], acc[g, 9 + 2 * k] = _fold(
                        acc[g, 8 + 2 * k], acc[g, 9 + 2 * k], acc[g, 2 * k],
                        acc[g, 2 * k + 1])
                    acc[g, 2 * k] = 0.0
                    acc[g, 2 * k + 1] = 0.0
                acc[g, 16] = 0.0
                acc[g, 17] += 1.0
    for g in range(ng):
        if not live[g]:
            continue
        for k in range(4):
            sh[k], sl[k] = _fold(acc[g, 8 + 2 * k], acc[g, 9 + 2 * k], acc[g, 2 * k],
                                 acc[g, 2 * k + 1])
        # every |x - ctr| is at most the larger distance to an extreme
        mx = max(p1[g, 3] - ctr[g], ctr[g] - p1[g, 2]) * fs[g, 0] * fs[g, 1] * (
            1.0 + 2.0 ** -50)
        out[g], ok[g] = _finish(stat, cnt[g], sh, sl, mx, acc[g, 17] + 1.0,
                                p1[g, 2], p1[g, 3], bias, fisher, ddof, exs[g])


_SHARED = ("two_sum", "fast_two_sum", "two_prod", "dadd", "dmul", "ddiv", "dsqrt",
           "rounds_to")
_HELPERS = ("_scale_of", "_powers", "_fold", "trivial", "skew_factor", "finish_bounded",
            "_finish", "_first_pass", "_lane_add", "_second_pass",
            "_centre")


def build() -> dict[str, Any]:
    """Compile the kernels."""
    from . import dd_bounds

    ns = vars(dd_bounds)
    if hasattr(ns["two_sum"], "py_func"):  # compiled by an earlier build
        comp = {name: ns[name] for name in _SHARED}
    else:
        comp = bind(ns, _SHARED)
    bind(globals(), _SHARED, comp)
    bind(globals(), _HELPERS)
    return {"rows": jit(nogil=True)(rows_kernel), "grouped": jit(nogil=True)(grouped_kernel)}


register("central_moments", build)
