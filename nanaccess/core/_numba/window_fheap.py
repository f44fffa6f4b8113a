"""The two-heap sliding kernel on float keys in 8-ary heaps (the fast path of one
order statistic of float windows; :mod:`.window_heap` is its general twin).

The heaps split a window's numbers by rank as in :mod:`.window_heap` and
``bottleneck``'s ``move_median``: the ``lo + 1`` smallest in the low heap, the rest in
the high heap, both min-heaps (the low heap holds ``-v``: negation is exact and
reverses the order). What differs:

* the keys are the values themselves (the data's dtype), so no totalOrder key is made
  on the way in nor undone on the way out (``-(-v)`` has ``v``'s bits). Float order is
  totalOrder's on numbers except that ``-0.0 == 0.0``: a window holding both zeros
  could pick the wrong one, so the kernel reports a column holding both (flag bits
  2 and 3, :data:`FLAG_ZEROS`) and the caller runs :mod:`.window_heap` instead;
* 8 children per node, their keys side by side: a sift down reads one or two cache
  lines per level, and the heaps are about half as deep as binary ones
  (``bottleneck`` also has 8 children but reads each child's key through a pointer);
  the smallest child is found by a branch-free tournament over all 8 slots (the slots
  past a heap's size hold +inf, and a tie goes to the lower slot, so a slot past the
  size is never chosen while a real child exists; 8 spare slots follow each heap);
* node ids and positions are int32 (half the memory traffic of int64);
* fixed windows take no bound arrays: ``end = e0 + i * step``, ``start = end - span``,
  both clipped to ``[0, n]`` (pandas' fixed windows, centered or not, any ``closed``);
* windows holding fewer than ``minp`` numbers are written as the empty fill here.

NaNs take no rank (their windows' counts leave them out, as :mod:`.window_fused`),
and the midpoint / lerp are that module's, so the bits are the other kernels'.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import bind, jit, kernels, numba, parallel_ok, register
from .window_fused import MODE_MID, MODE_PICK, _nb_lerp, _nb_mid, weight_tables

__all__ = ["fheap_select", "FLAG_ZEROS", "PARALLEL_MIN_OUTPUTS"]

#: outputs from which the kernel runs in blocks on numba's threads
PARALLEL_MIN_OUTPUTS = 200_000
#: the flag of a column holding both signed zeros (float keys cannot order them)
FLAG_ZEROS = 12
LOGK = 3  # 8 children a node
K = 1 << LOGK
prange = range  # numba's prange once compiled (:func:`nanaccess.core._numba.bind`)


def _nb_fheap(x, bits, quiet, fixed, e0, step, span, n, start, end, lo_t, hi_t, w_t, ft_t,
              mode, nanv, one, half, minp, out, cnt, hk, hn, pos, i0,
              i1):  # pragma: no cover - compiled
    """One order statistic of the windows ``i0 <= i < i1`` of a float column.

    ``fixed``: the bounds come from ``(e0, step, span, n)`` (``start``/``end`` unused),
    else from ``start``/``end`` (non-decreasing; -1 at the first that is not).
    ``lo_t``/``hi_t``/``w_t``/``ft_t`` the plan's ``(1, W + 1)`` tables by count;
    ``out`` and ``cnt`` indexed by output; ``hk`` the two heaps' keys (heap ``h`` at
    ``h * hc``, ``hc = cap + 8``; +inf in every slot past the heap's size), ``hn``
    their nodes, ``pos`` each node's place (``>= hc``: high), ``cap`` (a power of two
    above the widest window) nodes.
    Returns -1 or the flags: bit 0 a NaN, bit 1 a signaling NaN, bits 2 / 3 a
    ``-0.0`` / ``+0.0`` entered a window.

    One flat loop of events (a replacement, a removal, an insertion, a move of a top
    across), each leaving at most two heap entries to sift, so the sift is written
    once and no helper call passes arrays.
    """
    cap = pos.shape[0]
    mask = cap - 1
    hc = hk.shape[0] // 2  # heap h's keys at h * hc; +inf past its size
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
    for i in range(i0, i1):
        if fixed:
            e = e0 + i * step
            s = e - span
            e = min(max(e, 0), n)
            s = min(max(s, 0), e)
        else:
            s = start[i]
            e = end[i]
            if s < ps or e < pe:
                return -1
            ps = s
            pe = e
        if s >= ce:
            hk[:n0] = np.inf  # the sentinels back (a new run of windows)
            hk[hc:hc + n1] = np.inf
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
                ki = x[0]
                old = 0
                node = 0
                if cs < s:
                    old = cs & mask
                    to = pos[old] >= 0
                    cs += 1
                if ce < e:
                    ki = x[ce]
                    ti = ki == ki
                    node = ce & mask
                    if not ti:
                        pos[node] = -1
                        seen |= 1 if (bits[ce] & quiet) != 0 else 3
                    elif ki == 0:
                        seen |= 4 if bits[ce] < 0 else 8
                    ce += 1
                if to and ti:  # the entering key takes the leaving one's place
                    g = pos[old]
                    h = 1 if g >= hc else 0
                    p = g - h * hc
                    nq = 1
                    ha = h
                    pa = p
                    if h == 0 and n1 > 0 and ki > hk[hc]:  # it belongs high:
                        hk[p] = -hk[hc]  # the high top fills the hole low
                        hn[p] = hn[hc]
                        hk[hc] = ki
                        hn[hc] = node
                        hb = 1
                        pb = 0
                        nq = 2
                    elif h == 1 and n0 > 0 and ki < -hk[0]:  # it belongs low
                        hk[hc + p] = -hk[0]
                        hn[hc + p] = hn[0]
                        hk[0] = -ki
                        hn[0] = node
                        hb = 0
                        pb = 0
                        nq = 2
                    else:
                        hk[h * hc + p] = -ki if h == 0 else ki
                        hn[h * hc + p] = node
                elif to:  # the heap's last entry fills the hole
                    g = pos[old]
                    h = 1 if g >= hc else 0
                    p = g - h * hc
                    m -= 1
                    if h == 0:
                        n0 -= 1
                        last = n0
                    else:
                        n1 -= 1
                        last = n1
                    if p < last:
                        hk[h * hc + p] = hk[h * hc + last]
                        hn[h * hc + p] = hn[h * hc + last]
                        ha = h
                        pa = p
                        nq = 1
                    hk[h * hc + last] = np.inf
                elif ti:
                    m += 1
                    if n0 > 0 and ki <= -hk[0]:
                        hk[n0] = -ki
                        hn[n0] = node
                        ha = 0
                        pa = n0
                        n0 += 1
                    else:
                        hk[hc + n1] = ki
                        hn[hc + n1] = node
                        ha = 1
                        pa = n1
                        n1 += 1
                    nq = 1
            elif m > 0 and n0 != lo_t[0, m] + 1:  # a top moves across
                h = 0 if n0 > lo_t[0, m] + 1 else 1
                k = hk[h * hc]
                nd = hn[h * hc]
                if h == 0:
                    n0 -= 1
                    last = n0
                else:
                    n1 -= 1
                    last = n1
                if last > 0:
                    hk[h * hc] = hk[h * hc + last]
                    hn[h * hc] = hn[h * hc + last]
                    ha = h
                    pa = 0
                    nq = 1
                hk[h * hc + last] = np.inf
                if h == 1:
                    hk[n0] = -k
                    hn[n0] = nd
                    if nq == 0:
                        ha = 0
                        pa = n0
                    else:
                        hb = 0
                        pb = n0
                    n0 += 1
                else:
                    hk[hc + n1] = -k
                    hn[hc + n1] = nd
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
                base = h * hc
                size = n0 if h == 0 else n1
                k = hk[base + p]
                nd = hn[base + p]
                up = False
                while p > 0:
                    par = (p - 1) >> LOGK
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
                    c0 = (p << LOGK) + 1
                    if c0 >= size:
                        break
                    b = base + c0  # a branch-free tournament of the 8 children (the
                    # slots past the heap's size hold +inf: never the smaller of a tie)
                    k0 = hk[b]
                    k1 = hk[b + 1]
                    k2 = hk[b + 2]
                    k3 = hk[b + 3]
                    k4 = hk[b + 4]
                    k5 = hk[b + 5]
                    k6 = hk[b + 6]
                    k7 = hk[b + 7]
                    j01 = 1 if k1 < k0 else 0
                    m01 = min(k0, k1)
                    j23 = 3 if k3 < k2 else 2
                    m23 = min(k2, k3)
                    j45 = 5 if k5 < k4 else 4
                    m45 = min(k4, k5)
                    j67 = 7 if k7 < k6 else 6
                    m67 = min(k6, k7)
                    ja = j23 if m23 < m01 else j01
                    ma = min(m01, m23)
                    jb = j67 if m67 < m45 else j45
                    mb = min(m45, m67)
                    c = c0 + (jb if mb < ma else ja)
                    kc = min(ma, mb)
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
        if m == 0 or m < minp:
            out[i] = nanv
            continue
        lo = lo_t[0, m]
        a = -hk[0]
        hi = hi_t[0, m]
        if mode == MODE_PICK or hi == lo:
            out[i] = a
            continue
        b = hk[hc]
        if mode == MODE_MID:
            out[i] = _nb_mid(a, b, half, nanv)
        else:
            out[i] = _nb_lerp(a, b, w_t[0, m], ft_t[0, m], ft_t[1, m], nanv)
    return seen


def _nb_fheap_columns(x, bits, quiet, fixed, e0, step, span, n, start, end, lo_t, hi_t,
                      w_t, ft_t, mode, nanv, one, half, minp, out, cnt, hk, hn, pos, bnd,
                      flags):  # pragma: no cover - compiled
    """:func:`_nb_fheap` for every row of ``x`` ``(ncols, n)`` and every block of
    outputs ``[bnd[j], bnd[j + 1])`` (each block starts its heaps afresh: the blocks
    are independent, run in parallel by the parallel build). Task ``t`` (column
    ``t // nblk``, block ``t % nblk``) has its heaps ``hk[t]``, ``hn[t]``, ``pos[t]``
    and writes its flags to ``flags[t]``."""
    nblk = bnd.shape[0] - 1
    for t in prange(x.shape[0] * nblk):
        c = t // nblk
        flags[t] = _nb_fheap(x[c], bits[c], quiet, fixed, e0, step, span, n, start, end,
                             lo_t, hi_t, w_t, ft_t, mode, nanv, one, half, minp, out[c],
                             cnt[c], hk[t], hn[t], pos[t], bnd[t % nblk],
                             bnd[t % nblk + 1])


def build() -> dict[str, Any]:
    """Compile the float-key heap kernel (serial and parallel drivers)."""
    for name in ("_nb_mid", "_nb_lerp"):  # per output: inlined
        globals()[name] = jit(nogil=True, inline="always")(globals()[name])
    bind(globals(), ("_nb_fheap",))
    return {"heap": jit(nogil=True)(_nb_fheap_columns),
            "parallel": jit(nogil=True, parallel=True)(_nb_fheap_columns)}


register("window_fheap", build)


def fheap_select(x: np.ndarray, bounds: tuple, nout: int, lo_t: np.ndarray,
                 hi_t: np.ndarray, w_t: np.ndarray, mode: int, minp: int, out: np.ndarray,
                 cnt: np.ndarray, *, compiled: bool = True) -> int:
    """One order statistic of every window of each row of ``x`` ``(ncols, n)``
    (float32/64, native, contiguous rows) on float-keyed heaps.

    ``bounds``: ``("fixed", e0, step, span)`` (output ``i``'s window ends at
    ``e0 + i * step`` and spans ``span`` rows, clipped to the data) or ``("arrays",
    start, end)``; ``lo_t``/``hi_t``/``w_t`` the plan by count (``(1, W + 1)``,
    :func:`.window_heap.heap_ok`); ``mode`` a ``MODE_*``; windows holding fewer than
    ``minp`` numbers give NaN. Writes ``out`` ``(ncols, nout)`` (x's dtype) and
    ``cnt`` ``(ncols, nout)`` (int64). Returns -1 (bounds not monotone: nothing
    valid), else the flags of every column (bit 0 NaN, bit 1 signaling NaN; both bits
    of :data:`FLAG_ZEROS`: a column held both signed zeros, the result is not valid).
    """
    dt = x.dtype
    it = np.dtype(f"i{dt.itemsize}")
    n = x.shape[1]
    width = int(lo_t.shape[1]) - 1
    cap = 1 << max(width, 8).bit_length()
    fixed = bounds[0] == "fixed"
    if fixed:
        _, e0, step, span = bounds
        start = end = np.zeros(1, np.int64)
    else:
        _, start, end = bounds
        e0 = step = span = 0
        start = np.ascontiguousarray(start, np.int64)
        end = np.ascontiguousarray(end, np.int64)
    ncols = x.shape[0]
    nblk = 1
    if compiled and nout >= PARALLEL_MIN_OUTPUTS and parallel_ok(nout, PARALLEL_MIN_OUTPUTS):
        nblk = min(int(numba().get_num_threads()), max(nout // (4 * (width + 1)), 1))
        if nblk > 1 and not fixed and ((np.diff(start) < 0).any() or
                                       (np.diff(end) < 0).any()):
            return -1  # blocks would hide a decreasing bound between them
    bnd = np.linspace(0, nout, nblk + 1).astype(np.int64)
    ntask = ncols * nblk
    quiet = 1 << (np.finfo(dt).nmant - 1)
    expmask = int(np.array(np.inf, dt).view(it))
    nanv = np.array(expmask | quiet, it).view(dt)[()]
    flags = np.zeros(ntask, np.int64)
    hk = np.full((ntask, 2 * (cap + K)), np.inf, dt)  # K slots of +inf past a full heap
    hn = np.empty((ntask, 2 * (cap + K)), np.int32)
    pos = np.empty((ntask, cap), np.int32)
    if compiled:
        fn = kernels("window_fheap")["parallel" if nblk > 1 else "heap"]
    else:
        fn = _nb_fheap_columns
    fn(x, x.view(it), it.type(quiet), fixed, np.int64(e0), np.int64(step), np.int64(span),
       np.int64(n), start, end, np.ascontiguousarray(lo_t, np.int64),
       np.ascontiguousarray(hi_t, np.int64), np.ascontiguousarray(w_t, np.float64),
       weight_tables(w_t, dt), int(mode), nanv, dt.type(1), dt.type(0.5),
       np.int64(minp), out, cnt, hk, hn, pos, bnd, flags)
    return -1 if (flags < 0).any() else int(np.bitwise_or.reduce(flags))
