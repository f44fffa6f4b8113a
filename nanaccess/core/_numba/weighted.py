"""Exact weighted selection: the helpers and the row kernels (the numba engine of the
weighted order statistics).

Two phases, so that the positions (NumPy's formulas on each row's total weight,
:mod:`nanaccess.core.weighted.positions`) are computed in one place:

* ``totals``: per row, the exact limbs of :mod:`nanaccess.core.weighted.cumulative`
  (scale ``L``, base ``B``, ``hi`` / ``lo`` per weight) and the total as a
  normalised pair; a row too wide for the pairs is sorted by (key, weight) and summed
  in float64, as the NumPy engine does.
* ``select``: per row and target, an exact row by a weighted quickselect (a three-way
  partition around a median-of-three key; the exact pair sum of the lower part
  decides where the target lies; O(n) on average), a float row by a binary search in
  its cumulative sums.

Groups go through :mod:`.weighted_groups` (float sums that decide, these exact
helpers when they cannot). Both engines find the smallest key whose cumulative
weight reaches the target, so they give the same bits. Plain Python over arrays,
compiled through :mod:`nanaccess.core._numba` on first use.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import bind, jit, kernels, register

__all__: list[str] = []

_SMALL = 16


def _nb_reached(h: Any, lo: Any, th: Any, tl: Any, b: Any) -> Any:  # pragma: no cover - compiled
    """Whether the pair ``(h, lo)`` (``lo`` not normalised) is >= ``(th, tl)``."""
    hn = h + (lo >> b)
    ln = lo & ((np.int64(1) << b) - 1)
    return hn > th or (hn == th and ln >= tl)


def _nb_part(k: np.ndarray, hi: np.ndarray, lo: np.ndarray, src: np.ndarray, a: Any, b: Any,
             pivot: Any, eq: Any, keyed: Any) -> Any:  # pragma: no cover - compiled
    """Branch-free Lomuto pass over ``[a, b)``: the keys ``< pivot`` (``eq``: ``==``
    for a range already ``>= pivot``) first. Returns their end and pair sum.
    ``keyed``: ``src`` is ``k`` itself, so it is not moved twice (a loop-invariant
    test: the compiler makes two loops of it)."""
    st = a
    sh = np.int64(0)
    sl = np.int64(0)
    for i in range(a, b):
        x = k[i]
        hv = hi[i]
        lv = lo[i]
        k[i] = k[st]
        hi[i] = hi[st]
        lo[i] = lo[st]
        if not keyed:
            sv = src[i]
            src[i] = src[st]
            src[st] = sv
        k[st] = x
        hi[st] = hv
        lo[st] = lv
        take = np.int64(x == pivot) if eq else np.int64(x < pivot)
        sh += hv * take
        sl += lv * take
        st += take
    return st, sh, sl


def nb_group_select(k: np.ndarray, hi: np.ndarray, lo: np.ndarray, src: np.ndarray, a: Any,
                    end: Any, tot_h: Any, tot_l: Any, th: np.ndarray, tl: np.ndarray,
                    tord: np.ndarray, bb: Any, out: np.ndarray, g: Any,
                     st_b: np.ndarray, st_h: np.ndarray, st_l: np.ndarray, perm: np.ndarray,
                     keyed: Any) -> None:  # pragma: no cover - compiled
    """For every target ``(th[j, g], tl[j, g])`` (visited in ascending order ``tord``), the
    source index of the first key of ``[a, end)`` whose exact cumulative weight
    reaches it, into ``out[j, g]``. A quickselect that resumes: the right boundaries
    it leaves behind (with the cumulative weight there) bound the next target's range,
    so a median's two neighbours cost little more than one selection. ``perm``:
    scratch of ``_SMALL`` entries."""
    ph = np.int64(0)
    pl = np.int64(0)
    sp = 0
    cap = st_b.shape[0]
    nt = tord.shape[0]
    jj = 0
    while jj < nt:
        j = tord[jj]
        t_h, t_l = th[j, g], tl[j, g]
        while sp > 0 and not _nb_reached(st_h[sp - 1], st_l[sp - 1], t_h, t_l, bb):
            sp -= 1
        if sp > 0:
            b = st_b[sp - 1]
            rh, rl = st_h[sp - 1] - ph, st_l[sp - 1] - pl
        else:
            b = end
            rh, rl = tot_h - ph, tot_l - pl
        while True:
            if b - a <= _SMALL:
                # the last range of this target (never visited again): ordered by
                # key through a small permutation, each entry's place its stable rank
                # (branch-free counts: no mispredicted shifts); nothing is moved
                for i in range(a, b):
                    x = k[i]
                    c = 0
                    for j2 in range(a, b):
                        y = k[j2]
                        c += (y < x) | ((y == x) & (j2 < i))
                    perm[c] = i
                for i in range(b - a):
                    q = perm[i]
                    ph += hi[q]
                    pl += lo[q]
                    while jj < nt and _nb_reached(ph, pl, t_h, t_l, bb):
                        out[j, g] = src[q]
                        jj += 1
                        if jj < nt:
                            j = tord[jj]
                            t_h, t_l = th[j, g], tl[j, g]
                    if jj == nt:
                        return
                a = b
                break
            x, y, z = k[a], k[(a + b) // 2], k[b - 1]
            pivot = max(min(x, y), min(max(x, y), z))
            lt, s0h, s0l = _nb_part(k, hi, lo, src, a, b, pivot, False, keyed)
            if _nb_reached(ph + s0h, pl + s0l, t_h, t_l, bb):
                if sp < cap:  # the boundary for later targets
                    st_b[sp] = b
                    st_h[sp] = ph + rh
                    st_l[sp] = pl + rl
                    sp += 1
                b = lt
                rh, rl = s0h, s0l
                continue
            if lt > a:  # the target lies at or above the pivot: the keys below it are
                ph += s0h  # passed (no pass for the keys equal to the pivot: the next
                pl += s0l  # pivot comes from this upper part, as they do)
                rh -= s0h
                rl -= s0l
                a = lt
                continue
            # the pivot is the smallest key left: its equal keys, taken together
            gt, s1h, s1l = _nb_part(k, hi, lo, src, lt, b, pivot, True, keyed)
            ph += s0h + s1h
            pl += s0l + s1l
            rh -= s0h + s1h
            rl -= s0l + s1l
            if _nb_reached(ph, pl, t_h, t_l, bb):
                while jj < nt and _nb_reached(ph, pl, t_h, t_l, bb):
                    out[j, g] = src[lt]
                    jj += 1
                    if jj < nt:
                        j = tord[jj]
                        t_h, t_l = th[j, g], tl[j, g]
                if sp < cap:
                    st_b[sp] = b
                    st_h[sp] = ph + rh
                    st_l[sp] = pl + rl
                    sp += 1
                a = gt
                break
            a = gt


def _nb_ctz(m: Any) -> Any:  # pragma: no cover - compiled
    """Trailing zero bits of a positive int64."""
    n = 0
    if (m & 0xFFFFFFFF) == 0:
        n += 32
        m >>= 32
    if (m & 0xFFFF) == 0:
        n += 16
        m >>= 16
    if (m & 0xFF) == 0:
        n += 8
        m >>= 8
    if (m & 0xF) == 0:
        n += 4
        m >>= 4
    if (m & 0x3) == 0:
        n += 2
        m >>= 2
    if (m & 0x1) == 0:
        n += 1
    return n


def _nb_bits_range(wb: Any) -> Any:  # pragma: no cover - compiled
    """``(lsb, top)`` of a positive finite float64 from its bits: ``w`` is a multiple
    of ``2**lsb`` and below ``2**top`` (``top`` as :func:`math.frexp`'s exponent)."""
    e = (wb >> 52) & 0x7FF
    m = wb & 0xFFFFFFFFFFFFF
    if e == 0:  # subnormal
        return -1074 + _nb_ctz(m), math.frexp(math.ldexp(float(m), -1074))[1]
    m |= np.int64(1) << 52
    return e - 1075 + _nb_ctz(m), e - 1022


def nb_group_bits(wsb: np.ndarray, a: Any, b: Any, emin: Any,
                  emax: Any) -> Any:  # pragma: no cover - compiled
    """``(lsb, top)`` of the positive weights with bits ``wsb[a:b]``: all are
    multiples of ``2**lsb`` and below ``2**top``. Branch-free: the lowest bit is the
    trailing zeros of the OR of the mantissas aligned at the smallest exponent (bits
    shifted past 64 cannot be the lowest: the smallest exponent's mantissa is)."""
    if b == a:
        return 0, 0
    acc = np.uint64(0)
    one = np.int64(1) << 52
    mask = one - 1
    for i in range(a, b):
        v = wsb[i]
        e = (v >> 52) & 0x7FF
        m = (v & mask) | (one if e > 0 else 0)
        sh = e - emin
        if sh < 64:
            acc |= np.uint64(m) << np.uint64(sh)
    # subnormals: exponent field 0 has the unit of exponent field 1
    base = max(emin, 1) - 1075
    if emin == 0:  # mixed subnormal / normal exponents: the plain per-element route
        lo_bit = 1 << 30
        for i in range(a, b):
            lb, _tp = _nb_bits_range(wsb[i])
            lo_bit = min(lo_bit, lb)
        top = emax - 1022 if emax > 0 else _nb_bits_range(wsb[a])[1]
        if emax == 0:
            for i in range(a, b):
                top = max(top, _nb_bits_range(wsb[i])[1])
        return lo_bit, top
    return base + _nb_ctz(np.int64(acc & np.uint64(0x7FFFFFFFFFFFFFFF)) if (
        acc & np.uint64(0x7FFFFFFFFFFFFFFF)) != 0 else 63), emax - 1022


def nb_limbs(w: np.ndarray, a: Any, b: Any, lsb: Any, top: Any, hi: np.ndarray,
             lo: np.ndarray) -> Any:  # pragma: no cover - compiled
    """Base and exactness of the positive weights ``w[a:b]`` (lowest bit ``lsb``,
    top ``top``); fills their limbs when exact. Returns ``(B, exact)``."""
    zero = np.int64(0)
    if b == a:
        return 62, True, zero, zero
    nb = math.frexp(float(b - a))[1]
    base = 62 - nb
    if max(top - lsb - base, 0) + nb > 62:
        return base, False, zero, zero
    # w * 2**-lsb in two exact power-of-two factors (2**-lsb alone may overflow)
    e1 = min(-lsb, 1000)
    f1 = math.ldexp(1.0, e1)
    f2 = math.ldexp(1.0, -lsb - e1)
    fb = math.ldexp(1.0, -base)
    pb = math.ldexp(1.0, base)
    sh = np.int64(0)
    sl = np.int64(0)
    if top - lsb <= base:  # one limb: every hi is 0
        for i in range(a, b):
            v = np.int64((w[i] * f1) * f2)
            hi[i] = 0
            lo[i] = v
            sl += v
        return base, True, sh, sl
    for i in range(a, b):
        u = (w[i] * f1) * f2
        h = math.floor(u * fb)
        hv = np.int64(h)
        lv = np.int64(u - h * pb)
        hi[i] = hv
        lo[i] = lv
        sh += hv
        sl += lv
    return base, True, sh, sl


def nb_sort_float(k: np.ndarray, w: np.ndarray, src: np.ndarray, a: Any, b: Any,
                  cf: np.ndarray) -> None:  # pragma: no cover - compiled
    """Sort ``[a, b)`` by (key, weight) and fill its float64 cumulative weights."""
    perm = np.argsort(k[a:b]) + a
    ks = k[perm]
    ws = w[perm]
    ss = src[perm]
    n = b - a
    i = 0
    while i < n:  # ties: by weight, so the sums do not depend on the input order
        j = i + 1
        while j < n and ks[j] == ks[i]:
            j += 1
        if j - i > 1:
            o = np.argsort(ws[i:j], kind="mergesort") + i
            ws[i:j] = ws[o].copy()
            ss[i:j] = ss[o].copy()
        i = j
    c = 0.0
    for i in range(n):
        k[a + i] = ks[i]
        w[a + i] = ws[i]
        src[a + i] = ss[i]
        c += ws[i]
        cf[a + i] = c


def build() -> dict[str, Any]:
    """Compile the exact helpers (bound here; the row kernels below and the grouped
    kernels of :mod:`.weighted_groups` call them)."""
    return bind(globals(), ("_nb_reached", "_nb_part", "nb_group_select", "_nb_ctz",
                            "_nb_bits_range", "nb_group_bits", "nb_limbs", "nb_sort_float"))


register("weighted", build)


def _nb_row_load(keys: np.ndarray, fm: Any, sh: Any, w: np.ndarray, r: Any, k: np.ndarray,
                 ws: np.ndarray, src: np.ndarray) -> Any:  # pragma: no cover - compiled
    """Copy row ``r``'s pairs of positive weight into the scratch arrays (keys made
    from float bits when ``fm``); returns their number and exponent range."""
    n = keys.shape[1]
    m = 0
    emin = np.int64(4096)
    emax = np.int64(-1)
    for i in range(n):
        wi = w[r, i]
        if wi > 0:
            b = keys[r, i]
            k[m] = np.int64(b ^ ((b >> sh) & fm))
            ws[m] = wi
            src[m] = i
            m += 1
    wsb = ws.view(np.int64)
    for i in range(m):
        e = (wsb[i] >> 52) & 0x7FF
        emin = min(emin, e)
        emax = max(emax, e)
    return m, emin, emax


def _nb_rows_totals(keys: np.ndarray, fm: Any, sh: Any,
                    w: Any) -> Any:  # pragma: no cover - compiled
    """Per row of ``(rows, n)`` data: scale, base, exactness, total pair and total
    weight, positive-weight count (the rows are groups, without a counting sort)."""
    rows, n = keys.shape
    k = np.empty(n, np.int64)
    ws = np.empty(n, np.float64)
    src = np.empty(n, np.int64)
    hi = np.zeros(n, np.int64)
    lo = np.zeros(n, np.int64)
    cf = np.zeros(n, np.float64)
    L = np.zeros(rows, np.int64)
    B = np.zeros(rows, np.int64)
    exact = np.zeros(rows, np.bool_)
    last_h = np.zeros(rows, np.int64)
    last_l = np.zeros(rows, np.int64)
    total = np.zeros(rows, np.float64)
    counts = np.zeros(rows, np.int64)
    wsb = ws.view(np.int64)
    for r in range(rows):
        m, emin, emax = _nb_row_load(keys, fm, sh, w, r, k, ws, src)
        counts[r] = m
        lg, tg = nb_group_bits(wsb, 0, m, emin, emax)
        L[r] = lg
        bg, ex, s_h, s_l = nb_limbs(ws, 0, m, lg, tg, hi, lo)
        B[r], exact[r] = bg, ex
        if ex:
            s_h += s_l >> bg
            s_l &= (np.int64(1) << bg) - 1
            last_h[r], last_l[r] = s_h, s_l
            total[r] = math.ldexp(float(s_h), bg + lg) + math.ldexp(float(s_l), lg)
        elif m:
            nb_sort_float(k, ws, src, 0, m, cf)
            total[r] = cf[m - 1]
    return L, B, exact, last_h, last_l, total, counts


def _nb_rows_select(keys: np.ndarray, fm: Any, sh: Any, w: Any, L: np.ndarray, B: np.ndarray,
                    exact: np.ndarray, last_h: np.ndarray, last_l: np.ndarray, th: np.ndarray,
                    tl: np.ndarray,
                    tf: np.ndarray) -> Any:  # pragma: no cover - compiled
    """Per target and row, the column of the pair at the target (-1: empty)."""
    rows, n = keys.shape
    nt = th.shape[0]
    out = np.full((nt, rows), -1, np.int64)
    k = np.empty(n, np.int64)
    ws = np.empty(n, np.float64)
    src = np.empty(n, np.int64)
    hi = np.zeros(n, np.int64)
    lo = np.zeros(n, np.int64)
    cf = np.zeros(n, np.float64)
    st_b = np.empty(64, np.int64)
    st_h = np.empty(64, np.int64)
    st_l = np.empty(64, np.int64)
    tord = np.empty(nt, np.int64)
    perm = np.empty(_SMALL, np.int64)
    wsb = ws.view(np.int64)
    for r in range(rows):
        m, emin, emax = _nb_row_load(keys, fm, sh, w, r, k, ws, src)
        if m == 0:
            continue
        if exact[r]:
            _lg, tg = nb_group_bits(wsb, 0, m, emin, emax)
            nb_limbs(ws, 0, m, L[r], tg, hi, lo)
            if tg - L[r] <= B[r]:
                hi[:m] = 0
            for j in range(nt):  # the targets in ascending order (insertion sort)
                q = j
                while q > 0 and (th[tord[q - 1], r] > th[j, r] or (
                        th[tord[q - 1], r] == th[j, r] and tl[tord[q - 1], r] > tl[j, r])):
                    tord[q] = tord[q - 1]
                    q -= 1
                tord[q] = j
            nb_group_select(k, hi, lo, src, 0, m, last_h[r], last_l[r], th, tl,
                             tord, B[r], out, r, st_b, st_h, st_l, perm, False)
            continue
        nb_sort_float(k, ws, src, 0, m, cf)
        for j in range(nt):
            t = tf[j, r]
            lo_i, hi_i = 0, m - 1
            while lo_i < hi_i:  # first cumulative weight >= t
                mid = (lo_i + hi_i) // 2
                if cf[mid] < t:
                    lo_i = mid + 1
                else:
                    hi_i = mid
            out[j, r] = src[lo_i]
    return out


def build_rows() -> dict[str, Any]:
    """Compile the row kernels (after the group kernels' helpers)."""
    kernels("weighted")
    bind(globals(), ("_nb_row_load",))
    return {"totals": jit(nogil=True)(_nb_rows_totals),
            "select": jit(nogil=True)(_nb_rows_select)}


register("weighted_rows", build_rows)
