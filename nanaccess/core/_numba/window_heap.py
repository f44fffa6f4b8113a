"""The two-heap sliding kernel of one order statistic (O(log w) per step, any width).

A window's taking-part keys are split in two binary heaps, as ``bottleneck``'s
``move_median`` does: the ``lo + 1`` smallest in a max-heap (stored as ``~key`` in a
min-heap, so one sift serves both; ``~`` reverses the order without overflow), the
rest in a min-heap. The rank ``lo`` is the low heap's top and ``lo + 1`` the high
heap's top, so a plan whose ranks differ by at most one (the median, every quantile
method, min, max) reads in O(1); a step replaces the leaving key by the entering one
in place (one sift), and a change of count moves one top across.

Each element of the data owns a node (its index modulo a power of two at least the
widest window) recording its heap and position, so a leaving key is found in O(1).
The keys are the float's totalOrder keys made from its bits as they are read; NaNs
take no rank (the fused engine's contract, see :mod:`.window_fused`) and the midpoint
/ lerp are :mod:`.window_fused`'s, so this kernel gives that kernel's bits.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import bind, jit, kernels, register
from .window_fused import MODE_MID, MODE_PICK, _nb_lerp, _nb_mid, fused_args

__all__ = ["heap_select", "heap_ok"]


def _nb_heap(x, bits, sc, scb, imax, expmask, quiet, start, end, lo_t, hi_t, w_t, ft_t,
             mode, nanv, one, half, out, cnt, hk, hn, pos, side):  # pragma: no cover
    """One order statistic (``lo_t[0]``, ``hi_t[0]`` by count) of every window of a
    float column, NaNs taking no rank; the arguments and result as
    :func:`.window_fused._nb_fused` (``out`` ``(1, nout)``); ``hk``/``hn`` the two
    heaps' keys and nodes ``(2, cap)``, ``pos``/``side`` per node (``cap`` a power
    of two above the widest window).

    One flat loop of events (a replacement, a removal, an insertion, a move of a top
    across), each leaving at most two heap entries to sift (``qh``/``qp``), so no
    helper call passes arrays (whose reference counts would cost more than a sift).
    An entering key that belongs in the other heap than the leaving one takes that
    heap's top's place, and the top fills the hole (the heaps stay split by rank).
    """
    mask = pos.shape[0] - 1
    qh = np.zeros(4, np.int64)
    qp = np.zeros(4, np.int64)
    n0 = 0
    n1 = 0
    seen = 0
    cs = 0
    ce = 0
    m = 0
    ps = 0
    pe = 0
    for i in range(start.shape[0]):
        s = start[i]
        e = end[i]
        if s < ps or e < pe:
            return -1
        ps = s
        pe = e
        if s >= ce:
            n0 = 0
            n1 = 0
            m = 0
            cs = s
            ce = s
        while True:
            nq = 0
            if cs < s or ce < e:
                to = False
                ti = False
                ki = np.int64(0)
                old = 0
                node = 0
                if cs < s:
                    to = (np.int64(bits[cs]) & imax) <= expmask
                    old = cs & mask
                    cs += 1
                if ce < e:
                    bi = np.int64(bits[ce])
                    ti = (bi & imax) <= expmask
                    ki = bi ^ ((bi >> 63) & imax)
                    node = ce & mask
                    ce += 1
                    if not ti:
                        seen |= 1 if (bi & quiet) != 0 else 3
                if to and ti:  # the entering key takes the leaving one's place
                    h = side[old]
                    p = pos[old]
                    nq = 1
                    qh[0] = h
                    qp[0] = p
                    if h == 0 and n1 > 0 and ki > hk[1, 0]:  # it belongs high:
                        hk[0, p] = ~hk[1, 0]  # the high top fills the hole low
                        hn[0, p] = hn[1, 0]
                        hk[1, 0] = ki
                        hn[1, 0] = node
                        qh[1] = 1
                        qp[1] = 0
                        nq = 2
                    elif h == 1 and n0 > 0 and ki < ~hk[0, 0]:  # it belongs low
                        hk[1, p] = ~hk[0, 0]
                        hn[1, p] = hn[0, 0]
                        hk[0, 0] = ~ki
                        hn[0, 0] = node
                        qh[1] = 0
                        qp[1] = 0
                        nq = 2
                    else:
                        hk[h, p] = ~ki if h == 0 else ki
                        hn[h, p] = node
                elif to:  # the heap's last entry fills the hole
                    h = side[old]
                    p = pos[old]
                    m -= 1
                    if h == 0:
                        n0 -= 1
                        last = n0
                    else:
                        n1 -= 1
                        last = n1
                    if p < last:
                        hk[h, p] = hk[h, last]
                        hn[h, p] = hn[h, last]
                        qh[0] = h
                        qp[0] = p
                        nq = 1
                elif ti:
                    m += 1
                    if n0 > 0 and ki <= ~hk[0, 0]:
                        hk[0, n0] = ~ki
                        hn[0, n0] = node
                        qh[0] = 0
                        qp[0] = n0
                        n0 += 1
                    else:
                        hk[1, n1] = ki
                        hn[1, n1] = node
                        qh[0] = 1
                        qp[0] = n1
                        n1 += 1
                    nq = 1
            elif m > 0 and n0 != lo_t[0, m] + 1:  # a top moves across
                h = 0 if n0 > lo_t[0, m] + 1 else 1
                k = hk[h, 0]
                nd = hn[h, 0]
                if h == 0:
                    n0 -= 1
                    last = n0
                else:
                    n1 -= 1
                    last = n1
                if last > 0:
                    hk[h, 0] = hk[h, last]
                    hn[h, 0] = hn[h, last]
                    qh[0] = h
                    qp[0] = 0
                    nq = 1
                if h == 1:
                    hk[0, n0] = ~k
                    hn[0, n0] = nd
                    qh[nq] = 0
                    qp[nq] = n0
                    n0 += 1
                else:
                    hk[1, n1] = ~k
                    hn[1, n1] = nd
                    qh[nq] = 1
                    qp[nq] = n1
                    n1 += 1
                nq += 1
            else:
                break
            while nq > 0:  # sift each left entry up, else down
                nq -= 1
                h = qh[nq]
                p = qp[nq]
                size = n0 if h == 0 else n1
                k = hk[h, p]
                nd = hn[h, p]
                up = False
                while p > 0:
                    par = (p - 1) >> 1
                    kp = hk[h, par]
                    if kp <= k:
                        break
                    c = hn[h, par]
                    hk[h, p] = kp
                    hn[h, p] = c
                    pos[c] = p
                    p = par
                    up = True
                while not up:
                    c = 2 * p + 1
                    if c >= size:
                        break
                    if c + 1 < size and hk[h, c + 1] < hk[h, c]:
                        c += 1
                    kc = hk[h, c]
                    if kc >= k:
                        break
                    hk[h, p] = kc
                    t = hn[h, c]
                    hn[h, p] = t
                    pos[t] = p
                    p = c
                hk[h, p] = k
                hn[h, p] = nd
                pos[nd] = p
                side[nd] = h
        cnt[i] = m
        if m == 0:
            out[0, i] = nanv
            continue
        lo = lo_t[0, m]
        ka = ~hk[0, 0]
        scb[0] = ka ^ ((ka >> 63) & imax)
        a = sc[0]
        hi = hi_t[0, m]
        if mode == MODE_PICK or hi == lo:
            out[0, i] = a
            continue
        kb = hk[1, 0]
        scb[1] = kb ^ ((kb >> 63) & imax)
        b = sc[1]
        if mode == MODE_MID:
            out[0, i] = _nb_mid(a, b, half, nanv)
        else:
            out[0, i] = _nb_lerp(a, b, w_t[0, m], ft_t[0, m], one, nanv)
    return seen


def _nb_heap_columns(x, bits, sc, scb, imax, expmask, quiet, start, end, lo_t, hi_t, w_t,
                     ft_t, mode, nanv, one, half, out, cnt, hk, hn, pos,
                     side):  # pragma: no cover - compiled
    """:func:`_nb_heap` for every row of ``x`` ``(ncols, n)``."""
    seen = 0
    for c in range(x.shape[0]):
        f = _nb_heap(x[c], bits[c], sc, scb, imax, expmask, quiet, start, end, lo_t, hi_t,
                     w_t, ft_t, mode, nanv, one, half, out[:, c], cnt[c], hk, hn, pos, side)
        if f < 0:
            return -1
        seen |= f
    return seen


def build() -> dict[str, Any]:
    """Compile the two-heap kernel."""
    for name in ("_nb_mid", "_nb_lerp"):  # per output: inlined
        globals()[name] = jit(nogil=True, inline="always")(globals()[name])
    bind(globals(), ("_nb_heap",))
    return {"heap": jit(nogil=True)(_nb_heap_columns)}


register("window_heap", build)


def heap_ok(lo_t: np.ndarray, hi_t: np.ndarray) -> bool:
    """Whether a plan table ``(nq, W + 1)`` by count suits the two heaps: one
    quantile whose ranks lie in the window and differ by at most one."""
    if lo_t.shape[0] != 1:
        return False
    m = np.arange(lo_t.shape[1])[1:]
    lo, hi = lo_t[0, 1:], hi_t[0, 1:]
    return bool(((lo >= 0) & (hi >= lo) & (hi <= lo + 1) & (hi < m)).all())


def heap_select(x: np.ndarray, start: np.ndarray, end: np.ndarray, lo_t: np.ndarray,
                hi_t: np.ndarray, w_t: np.ndarray, mode: int, out: np.ndarray,
                cnt: np.ndarray, *, compiled: bool = True) -> int:
    """:func:`.window_fused.fused_select` on the two heaps, for plans :func:`heap_ok`
    accepts (``out`` ``(1, ncols, nout)``); the same result and flags."""
    width = int(lo_t.shape[1]) - 1
    cap = 1 << max(width, 1).bit_length()
    hk = np.empty((2, cap), np.int64)
    hn = np.empty((2, cap), np.int64)
    pos = np.empty(cap, np.int64)
    side = np.empty(cap, np.int64)
    it = np.dtype(f"i{x.dtype.itemsize}")
    fn = kernels("window_heap")["heap"] if compiled else _nb_heap_columns
    return int(fn(x, x.view(it), *fused_args(x, start, end, lo_t, hi_t, w_t, mode), out,
                  cnt, hk, hn, pos, side))
