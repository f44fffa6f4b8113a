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

from . import bind, jit, kernels, numba, parallel_ok, register
from .window_fused import MODE_MID, MODE_PICK, _nb_lerp, _nb_mid, fused_args

__all__ = ["heap_select", "heap_ok", "PARALLEL_MIN_OUTPUTS"]

#: outputs from which the kernel runs in blocks on numba's threads
PARALLEL_MIN_OUTPUTS = 200_000
prange = range  # numba's prange once compiled (:func:`nanaccess.core._numba.bind`)


def _nb_heap(x, bits, sc, scb, imax, expmask, quiet, start, end, lo_t, hi_t, w_t, ft_t,
             mode, nanv, one, half, out, cnt, hk, hn, pos):  # pragma: no cover
    """One order statistic (``lo_t[0]``, ``hi_t[0]`` by count) of every window of a
    float column, NaNs taking no rank; the arguments and result as
    :func:`.window_fused._nb_fused` (``out`` ``(1, nout)``); ``hk``/``hn`` the two
    heaps' keys and nodes (heap ``h`` at ``h * cap``, ``cap`` a power of two above the
    widest window), ``pos`` each node's place in them (its heap: ``pos >= cap``).

    One flat loop of events (a replacement, a removal, an insertion, a move of a top
    across), each leaving at most two heap entries to sift, so no
    helper call passes arrays (whose reference counts would cost more than a sift).
    An entering key that belongs in the other heap than the leaving one takes that
    heap's top's place, and the top fills the hole (the heaps stay split by rank).
    """
    cap = pos.shape[0]
    mask = cap - 1
    ha = 0  # the entries left to sift: (ha, pa), then (hb, pb)
    pa = 0
    hb = 0
    pb = 0
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
                    g = pos[old]
                    h = 1 if g >= cap else 0
                    p = g - h * cap
                    nq = 1
                    ha = h
                    pa = p
                    if h == 0 and n1 > 0 and ki > hk[cap]:  # it belongs high:
                        hk[p] = ~hk[cap]  # the high top fills the hole low
                        hn[p] = hn[cap]
                        hk[cap] = ki
                        hn[cap] = node
                        hb = 1
                        pb = 0
                        nq = 2
                    elif h == 1 and n0 > 0 and ki < ~hk[0]:  # it belongs low
                        hk[cap + p] = ~hk[0]
                        hn[cap + p] = hn[0]
                        hk[0] = ~ki
                        hn[0] = node
                        hb = 0
                        pb = 0
                        nq = 2
                    else:
                        hk[h * cap + p] = ~ki if h == 0 else ki
                        hn[h * cap + p] = node
                elif to:  # the heap's last entry fills the hole
                    g = pos[old]
                    h = 1 if g >= cap else 0
                    p = g - h * cap
                    m -= 1
                    if h == 0:
                        n0 -= 1
                        last = n0
                    else:
                        n1 -= 1
                        last = n1
                    if p < last:
                        hk[h * cap + p] = hk[h * cap + last]
                        hn[h * cap + p] = hn[h * cap + last]
                        ha = h
                        pa = p
                        nq = 1
                elif ti:
                    m += 1
                    if n0 > 0 and ki <= ~hk[0]:
                        hk[n0] = ~ki
                        hn[n0] = node
                        ha = 0
                        pa = n0
                        n0 += 1
                    else:
                        hk[cap + n1] = ki
                        hn[cap + n1] = node
                        ha = 1
                        pa = n1
                        n1 += 1
                    nq = 1
            elif m > 0 and n0 != lo_t[0, m] + 1:  # a top moves across
                h = 0 if n0 > lo_t[0, m] + 1 else 1
                k = hk[h * cap]
                nd = hn[h * cap]
                if h == 0:
                    n0 -= 1
                    last = n0
                else:
                    n1 -= 1
                    last = n1
                if last > 0:
                    hk[h * cap] = hk[h * cap + last]
                    hn[h * cap] = hn[h * cap + last]
                    ha = h
                    pa = 0
                    nq = 1
                if h == 1:
                    hk[n0] = ~k
                    hn[n0] = nd
                    if nq == 0:
                        ha = 0
                        pa = n0
                    else:
                        hb = 0
                        pb = n0
                    n0 += 1
                else:
                    hk[cap + n1] = ~k
                    hn[cap + n1] = nd
                    if nq == 0:
                        ha = 1
                        pa = n1
                    else:
                        hb = 1
                        pb = n1
                    n1 += 1
                nq += 1
            else:
                break
            for t in range(nq):  # sift each left entry up, else down
                h = ha if t == 0 else hb
                p = pa if t == 0 else pb
                base = h * cap
                size = n0 if h == 0 else n1
                k = hk[base + p]
                nd = hn[base + p]
                up = False
                while p > 0:
                    par = (p - 1) >> 1
                    kp = hk[base + par]
                    if kp <= k:
                        break
                    c = hn[base + par]
                    hk[base + p] = kp
                    hn[base + p] = c
                    pos[c] = base + p
                    p = par
                    up = True
                while not up:
                    c = 2 * p + 1
                    if c >= size:
                        break
                    # the smaller child without a branch (c + 1 <= size < cap: in bounds)
                    c += (c + 1 < size) & (hk[base + c + 1] < hk[base + c])
                    kc = hk[base + c]
                    if kc >= k:
                        break
                    hk[base + p] = kc
                    cn = hn[base + c]
                    hn[base + p] = cn
                    pos[cn] = base + p
                    p = c
                hk[base + p] = k
                hn[base + p] = nd
                pos[nd] = base + p
        cnt[i] = m
        if m == 0:
            out[0, i] = nanv
            continue
        lo = lo_t[0, m]
        ka = ~hk[0]
        scb[0] = ka ^ ((ka >> 63) & imax)
        a = sc[0]
        hi = hi_t[0, m]
        if mode == MODE_PICK or hi == lo:
            out[0, i] = a
            continue
        kb = hk[cap]
        scb[1] = kb ^ ((kb >> 63) & imax)
        b = sc[1]
        if mode == MODE_MID:
            out[0, i] = _nb_mid(a, b, half, nanv)
        else:
            out[0, i] = _nb_lerp(a, b, w_t[0, m], ft_t[0, m], ft_t[1, m], nanv)
    return seen


def _nb_heap_columns(x, bits, sc, scb, imax, expmask, quiet, start, end, lo_t, hi_t, w_t,
                     ft_t, mode, nanv, one, half, out, cnt, hk, hn, pos, bnd,
                     flags):  # pragma: no cover - compiled
    """:func:`_nb_heap` for every row of ``x`` ``(ncols, n)`` and every block of
    outputs ``[bnd[j], bnd[j + 1])`` (each block starts its heaps afresh: the blocks
    are independent, run in parallel by the parallel build). Task ``t`` (column
    ``t // nblk``, block ``t % nblk``) has its scratch ``sc[t]``, heaps ``hk[t]``,
    ``hn[t]``, ``pos[t]`` and writes its flags to ``flags[t]``."""
    nblk = bnd.shape[0] - 1
    for t in prange(x.shape[0] * nblk):
        c = t // nblk
        a = bnd[t % nblk]
        b = bnd[t % nblk + 1]
        flags[t] = _nb_heap(x[c], bits[c], sc[t], scb[t], imax, expmask, quiet, start[a:b],
                            end[a:b], lo_t, hi_t, w_t, ft_t, mode, nanv, one, half,
                            out[:, c, a:b], cnt[c, a:b], hk[t], hn[t], pos[t])


def build() -> dict[str, Any]:
    """Compile the two-heap kernel (serial and parallel drivers)."""
    for name in ("_nb_mid", "_nb_lerp"):  # per output: inlined
        globals()[name] = jit(nogil=True, inline="always")(globals()[name])
    bind(globals(), ("_nb_heap",))
    return {"heap": jit(nogil=True)(_nb_heap_columns),
            "parallel": jit(nogil=True, parallel=True)(_nb_heap_columns)}


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
    accepts (``out`` ``(1, ncols, nout)``); the same result and flags. Long inputs
    run in blocks of outputs on numba's threads (:func:`nanaccess.core._numba.
    parallel_ok`)."""
    width = int(lo_t.shape[1]) - 1
    cap = 1 << max(width, 1).bit_length()
    ncols, nout = x.shape[0], start.size
    nblk = 1
    if compiled and nout >= PARALLEL_MIN_OUTPUTS and parallel_ok(nout, PARALLEL_MIN_OUTPUTS):
        nblk = min(int(numba().get_num_threads()), max(nout // (4 * (width + 1)), 1))
        if nblk > 1 and ((np.diff(start) < 0).any() or (np.diff(end) < 0).any()):
            return -1  # blocks would hide a decreasing bound between them
    bnd = np.linspace(0, nout, nblk + 1).astype(np.int64)
    ntask = ncols * nblk
    dt = x.dtype
    args = fused_args(x, start, end, lo_t, hi_t, w_t, mode)
    sc = np.zeros((ntask, 2), dt)
    it = np.dtype(f"i{dt.itemsize}")
    flags = np.zeros(ntask, np.int64)
    heaps = (np.empty((ntask, 2 * cap), np.int64), np.empty((ntask, 2 * cap), np.int64),
             np.empty((ntask, cap), np.int64))
    if compiled:
        fn = kernels("window_heap")["parallel" if nblk > 1 else "heap"]
    else:
        fn = _nb_heap_columns
    fn(x, x.view(it), sc, sc.view(it), *args[2:], out, cnt, *heaps, bnd, flags)
    return -1 if (flags < 0).any() else int(np.bitwise_or.reduce(flags))
