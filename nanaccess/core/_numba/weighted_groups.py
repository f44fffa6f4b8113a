"""Grouped weighted selection kernels: float sums that decide, exact limbs when not sure.

The same two phases as the exact kernels of :mod:`.weighted` (whose helpers these
bind), for pairs laid out by group:

* ``prepare``: a counting sort of the pairs of positive weight by group (keys and
  float64 weights; with float64 data the keys made from the bits stand for the
  values: no source indices), then per group the exact total as the normalised limb
  pair of :mod:`nanaccess.core.weighted.cumulative` (summed on the fly: no limb is
  stored) and a bound on the rounding error of any float64 sum of the group's
  weights; a group too wide for the pairs is sorted and summed in float64, as the
  NumPy engine does.
* ``select``: per group, the weighted quickselect of :mod:`.weighted` on the keys and
  the float64 weights alone (two arrays moved instead of three). Every comparison of
  a float cumulative weight with a target is decided only when their distance exceeds
  the group's error bound (``0`` when every partial sum is exact: integer-like
  weights); an undecided one sends the group to the exact selection on its limbs
  (computed then, in scratch). The decisions are the exact ones, so the moves, the
  element found and the bits are those of the exact kernels.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import bind, jit, kernels, register
from .exact_digits import bitlen as _bitlen  # noqa: F401 - kernel global (int.bit_length)
from .weighted import nb_group_bits, nb_group_select, nb_limbs, nb_sort_float

__all__: list[str] = []

_SMALL = 16
#: float path only for group totals in this range (no overflow, no subnormal targets)
_TINY = 2.0 ** -900
_HUGE = 2.0 ** 1000
#: twice the unit roundoff of float64
_EPS = 2.0 ** -52


def _nb_decide(v: Any, c: Any, t: Any, kind: Any, n: Any,
               err: Any) -> Any:  # pragma: no cover - compiled
    """1 when the cumulative weight ``v`` of the first ``c`` of ``n`` pairs (float,
    within ``err`` of its exact value, as is ``t`` of the target's) surely reaches
    ``t``, 0 when it surely does not, -1 when the floats cannot tell. All pairs
    reach every target (at most the total), none reaches any (at least one unit);
    targets of ``kind`` 1 (the exact total) and 2 (one unit: the first pair) are
    decided by the count alone: only all pairs reach the total, any pair one unit."""
    if c >= n:
        return 1
    if c <= 0:
        return 0
    if kind == 1:
        return 1 if c >= n else 0
    if kind == 2:
        return 1 if c >= 1 else 0
    if err == 0.0:
        return 1 if v >= t else 0
    d = v - t
    if d > err:
        return 1
    if -d > err:
        return 0
    return -1


def _nb_fpart(k: np.ndarray, ws: np.ndarray, src: np.ndarray, a: Any, b: Any, pivot: Any, eq: Any,
              keyed: Any) -> Any:  # pragma: no cover - compiled
    """Branch-free Lomuto pass over ``[a, b)`` (as :mod:`.weighted`'s, with float
    weights): the keys ``< pivot`` (``eq``: ``==``) first. Returns their end and their
    float64 weight sum (a sum of positive terms: within the group's bound)."""
    st = a
    s = 0.0
    for i in range(a, b):
        x = k[i]
        wv = ws[i]
        k[i] = k[st]
        ws[i] = ws[st]
        if not keyed:
            sv = src[i]
            src[i] = src[st]
            src[st] = sv
        k[st] = x
        ws[st] = wv
        take = (x == pivot) if eq else (x < pivot)
        s += wv * np.float64(take)
        st += np.int64(take)
    return st, s


def _nb_fgroup_select(k: np.ndarray, ws: np.ndarray, src: np.ndarray, a: Any, end: Any, tot: Any,
                      err: Any, tf: np.ndarray, tk: np.ndarray, tord: np.ndarray, out: np.ndarray,
                      g: Any, st_b: np.ndarray, st_s: np.ndarray,
                      perm: np.ndarray, keyed: Any) -> Any:  # pragma: no cover - compiled
    """:mod:`.weighted`'s resumable quickselect of the group ``[a, end)`` for the
    float targets ``tf`` of kinds ``tk`` (see :func:`_nb_decide`; visited in ascending
    order ``tord``), on float sums. Returns False as soon as a comparison is undecided
    (``out[:, g]`` then incomplete)."""
    gs = a
    n = end - a
    ph = 0.0
    sp = 0
    cap = st_b.shape[0]
    nt = tord.shape[0]
    jj = 0
    while jj < nt:
        j = tord[jj]
        t = tf[j]
        while sp > 0:
            r = _nb_decide(st_s[sp - 1], st_b[sp - 1] - gs, t, tk[j], n, err)
            if r < 0:
                return False
            if r == 1:
                break
            sp -= 1
        if sp > 0:
            b = st_b[sp - 1]
            cb = st_s[sp - 1]
        else:
            b = end
            cb = tot
        while True:
            if b - a <= _SMALL:
                for i in range(a, b):  # stable ranks, as the exact kernel
                    x = k[i]
                    c = 0
                    for j2 in range(a, b):
                        y = k[j2]
                        c += (y < x) | ((y == x) & (j2 < i))
                    perm[c] = i
                for i in range(b - a):
                    q = perm[i]
                    ph += ws[q]
                    while jj < nt:
                        r = _nb_decide(ph, a - gs + i + 1, t, tk[j], n, err)
                        if r < 0:
                            return False
                        if r == 0:
                            break
                        out[j, g] = src[q]
                        jj += 1
                        if jj < nt:
                            j = tord[jj]
                            t = tf[j]
                    if jj == nt:
                        return True
                a = b
                break
            x, y, z = k[a], k[(a + b) // 2], k[b - 1]
            pivot = max(min(x, y), min(max(x, y), z))
            lt, s0 = _nb_fpart(k, ws, src, a, b, pivot, False, keyed)
            v = ph + s0
            r = _nb_decide(v, lt - gs, t, tk[j], n, err)
            if r < 0:
                return False
            if r == 1:
                if sp < cap:  # the boundary for later targets
                    st_b[sp] = b
                    st_s[sp] = cb
                    sp += 1
                b = lt
                cb = v
                continue
            if lt > a:
                ph = v
                a = lt
                continue
            gt, s1 = _nb_fpart(k, ws, src, lt, b, pivot, True, keyed)
            ph += s1
            r = _nb_decide(ph, gt - gs, t, tk[j], n, err)
            if r < 0:
                return False
            if r == 1:
                while jj < nt:
                    r = _nb_decide(ph, gt - gs, t, tk[j], n, err)
                    if r < 0:
                        return False
                    if r == 0:
                        break
                    out[j, g] = src[lt]
                    jj += 1
                    if jj < nt:
                        j = tord[jj]
                        t = tf[j]
                if sp < cap:
                    st_b[sp] = b
                    st_s[sp] = cb
                    sp += 1
                a = gt
                break
            a = gt
    return True


def _nb_pair_total(sh: Any, sl: Any, bg: Any, lg: Any) -> Any:  # pragma: no cover - compiled
    """The float64 total of an exact pair, ``ldexp(sh, bg + lg) + ldexp(sl, lg)``
    (:func:`nanaccess.core.weighted.cumulative.pair_total`'s formula): a product by an
    exact power of two rounds as ``ldexp`` does, so one libm call serves both terms
    when ``2**(bg + lg)`` is a normal number."""
    if -1022 <= bg + lg <= 1023 and lg >= -1074:
        pl = math.ldexp(1.0, lg)
        return float(sh) * (float(np.int64(1) << bg) * pl) + float(sl) * pl
    return math.ldexp(float(sh), bg + lg) + math.ldexp(float(sl), lg)


def _nb_limb_sums(ws: np.ndarray, a: Any, b: Any, lsb: Any,
                  top: Any) -> Any:  # pragma: no cover - compiled
    """:mod:`.weighted`'s ``nb_limbs`` without storing the limbs: ``(B, exact, hi
    sum, lo sum)`` of the positive weights ``ws[a:b]``."""
    zero = np.int64(0)
    if b == a:
        return 62, True, zero, zero
    nb = _bitlen(b - a)
    base = 62 - nb
    if max(top - lsb - base, 0) + nb > 62:
        return base, False, zero, zero
    # powers of two exactly, with as few libm calls as a small group can afford
    if -lsb <= 1023:
        f1 = math.ldexp(1.0, -lsb)
        f2 = 1.0
    else:
        e1 = min(-lsb, 1000)
        f1 = math.ldexp(1.0, e1)
        f2 = math.ldexp(1.0, -lsb - e1)
    pb = float(np.int64(1) << base)
    fb = 1.0 / pb
    sh = np.int64(0)
    sl = np.int64(0)
    if top - lsb <= base:  # one limb
        for i in range(a, b):
            sl += np.int64((ws[i] * f1) * f2)
        return base, True, sh, sl
    for i in range(a, b):
        u = (ws[i] * f1) * f2
        h = math.floor(u * fb)
        sh += np.int64(h)
        sl += np.int64(u - h * pb)
    return base, True, sh, sl


def _nb_prepare(keys: np.ndarray, flip: Any, w: np.ndarray, drop: np.ndarray, codes: np.ndarray,
                ngroups: Any, rec: np.ndarray, src_buf: Any,
                cf_buf: Any) -> Any:  # pragma: no cover - compiled
    """Counting sort of the positive-weight pairs (not ``drop``-ped: a mask, or empty
    for none) by group; per group the limb base,
    exactness, exact total pair, float total and error bound. ``keys``: the sort keys,
    or float64 bits made keys on the fly when ``flip`` (then ``src`` is ``k``).
    ``k``, ``ws`` (and ``src_buf`` unless ``flip``): scratch of the pairs' length from
    NumPy, filled in group order; ``cf_buf``: float cumulative sums (used by groups
    too wide for the limbs only; length 0 until one needs it)."""
    n = keys.shape[0]
    k = rec[:, 0]
    ws = rec.view(np.float64)[:, 1]
    wsb = rec[:, 1]
    skip = drop.shape[0] > 0  # pairs the policy dropped (their weights kept in w)
    counts = np.zeros(ngroups, np.int64)
    for i in range(n):
        if codes[i] >= 0 and w[i] > 0 and not (skip and drop[i]):
            counts[codes[i]] += 1
    starts = np.zeros(ngroups + 1, np.int64)
    for g in range(ngroups):
        starts[g + 1] = starts[g] + counts[g]
    m = starts[ngroups]
    src = k if flip else src_buf
    fill = starts[:ngroups].copy()
    imax = np.int64(0x7FFFFFFFFFFFFFFF)
    for i in range(n):
        g = codes[i]
        if g >= 0 and w[i] > 0 and not (skip and drop[i]):
            j = fill[g]
            kv = keys[i]
            if flip:
                kv = kv ^ ((kv >> 63) & imax)
            k[j] = kv
            ws[j] = w[i]
            if not flip:
                src[j] = i
            fill[g] = j + 1
    cf = cf_buf
    L = np.zeros(ngroups, np.int64)
    B = np.zeros(ngroups, np.int64)
    exact = np.zeros(ngroups, np.bool_)
    last_h = np.zeros(ngroups, np.int64)
    last_l = np.zeros(ngroups, np.int64)
    total = np.zeros(ngroups, np.float64)
    err = np.full(ngroups, -1.0)  # -1: no float path (a wide group or an odd scale)
    for g in range(ngroups):
        a, b = starts[g], starts[g + 1]
        emin = np.int64(4096)
        emax = np.int64(-1)
        for j in range(a, b):
            e = (wsb[j] >> 52) & 0x7FF
            emin = min(emin, e)
            emax = max(emax, e)
        lg, tg = nb_group_bits(wsb, a, b, emin, emax)
        L[g] = lg
        bg, ex, sh, sl = _nb_limb_sums(ws, a, b, lg, tg)
        B[g], exact[g] = bg, ex
        if ex:
            sh += sl >> bg
            sl &= (np.int64(1) << bg) - 1
            last_h[g], last_l[g] = sh, sl
            tot = _nb_pair_total(sh, sl, bg, lg)
            total[g] = tot
            small = (sh < (np.int64(1) << (53 - bg))) if bg < 53 else \
                (sh == 0 and sl < (np.int64(1) << 53))
            if small and tot <= _HUGE:
                err[g] = 0.0  # every partial sum below 2**53 units: floats are exact
            elif _TINY <= tot <= _HUGE:
                err[g] = float(b - a + 4) * _EPS * tot
        else:
            if cf.shape[0] == 0:
                cf = np.zeros(m, np.float64)
            nb_sort_float(k, ws, src, a, b, cf)
            total[g] = cf[b - 1]
    return cf, src, starts, L, B, exact, err, last_h, last_l, total, counts


def _nb_select(rec: np.ndarray, cf: np.ndarray, src_buf: Any, starts: np.ndarray, L: np.ndarray,
               B: np.ndarray, exact: np.ndarray, err: np.ndarray, tot_h: np.ndarray,
               tot_l: np.ndarray, total: np.ndarray, th: np.ndarray, tl: np.ndarray, tf: np.ndarray,
               keyed: Any) -> Any:  # pragma: no cover - compiled
    """Per target and group, the source index (keyed: the key) of the pair at the
    target (-1: empty); ``th``, ``tl`` the exact target pairs, ``tf`` the float
    targets of the groups too wide for the limbs."""
    nt, ngroups = th.shape
    k = rec[:, 0]
    ws = rec.view(np.float64)[:, 1]
    src = k if keyed else src_buf
    out = np.full((nt, ngroups), -1, np.int64)
    st_b = np.empty(64, np.int64)
    st_s = np.empty(64, np.float64)
    st_h = np.empty(64, np.int64)
    st_l = np.empty(64, np.int64)
    tord = np.empty(nt, np.int64)
    tg_f = np.empty(nt, np.float64)
    tg_k = np.empty(nt, np.int64)
    perm = np.empty(_SMALL, np.int64)
    widest = 0
    for g in range(ngroups):
        widest = max(widest, starts[g + 1] - starts[g])
    sk = np.empty(0, np.int64)  # the exact selection's scratch, on first need
    sw = np.empty(0, np.float64)
    ss = np.empty(0, np.int64)
    shi = np.empty(0, np.int64)
    slo = np.empty(0, np.int64)
    for g in range(ngroups):
        a, b = starts[g], starts[g + 1]
        if b == a:
            continue
        if exact[g]:
            for j in range(nt):  # the targets in ascending order (insertion sort)
                m = j
                while m > 0 and (th[tord[m - 1], g] > th[j, g] or (
                        th[tord[m - 1], g] == th[j, g] and tl[tord[m - 1], g] > tl[j, g])):
                    tord[m] = tord[m - 1]
                    m -= 1
                tord[m] = j
            if err[g] >= 0.0:
                # the exact targets as floats (within the bound; exact when err is 0:
                # below 2**53 units); 2**L is representable whenever err >= 0
                pbg = float(np.int64(1) << B[g])
                pl = math.ldexp(1.0, L[g])
                for j in range(nt):
                    tg_f[j] = (float(th[j, g]) * pbg + float(tl[j, g])) * pl
                    tg_k[j] = 1 if th[j, g] == tot_h[g] and tl[j, g] == tot_l[g] else (
                        2 if th[j, g] == 0 and tl[j, g] == 1 else 0)
                if _nb_fgroup_select(k, ws, src, a, b, total[g], err[g], tg_f, tg_k, tord, out,
                                     g, st_b, st_s, perm, keyed):
                    continue
            if sk.shape[0] == 0:
                sk = np.empty(widest, np.int64)
                sw = np.empty(widest, np.float64)
                ss = sk if keyed else np.empty(widest, np.int64)
                shi = np.empty(widest, np.int64)
                slo = np.empty(widest, np.int64)
            n = b - a
            for i in range(n):  # the group in scratch, with its limbs
                sk[i] = k[a + i]
                sw[i] = ws[a + i]
                if not keyed:
                    ss[i] = src[a + i]
            swb = sw.view(np.int64)
            emin = np.int64(4096)
            emax = np.int64(-1)
            for i in range(n):
                e = (swb[i] >> 52) & 0x7FF
                emin = min(emin, e)
                emax = max(emax, e)
            _lg, tgb = nb_group_bits(swb, 0, n, emin, emax)
            nb_limbs(sw, 0, n, L[g], tgb, shi, slo)
            nb_group_select(sk, shi, slo, ss, 0, n, tot_h[g], tot_l[g], th, tl, tord, B[g],
                             out, g, st_b, st_h, st_l, perm, keyed)
            continue
        for j in range(nt):
            t = tf[j, g]
            lo_i, hi_i = a, b - 1
            while lo_i < hi_i:  # first cumulative weight >= t
                mid = (lo_i + hi_i) // 2
                if cf[mid] < t:
                    lo_i = mid + 1
                else:
                    hi_i = mid
            out[j, g] = src[lo_i]
    return out


_FROM_EXACT = ("nb_group_select", "nb_group_bits", "nb_limbs", "nb_sort_float")


def build() -> dict[str, Any]:
    """Compile the grouped kernels (after the exact kernels' helpers they bind)."""
    kernels("weighted")  # compiles (and binds there) the exact kernels' helpers
    from . import weighted as exact

    bind(globals(), _FROM_EXACT, compiled={name: getattr(exact, name) for name in _FROM_EXACT})
    bind(globals(), ("_bitlen", "_nb_decide", "_nb_fpart", "_nb_fgroup_select",
                     "_nb_pair_total", "_nb_limb_sums"))
    return {"prepare": jit(nogil=True)(_nb_prepare), "select": jit(nogil=True)(_nb_select)}


register("weighted_groups", build)
