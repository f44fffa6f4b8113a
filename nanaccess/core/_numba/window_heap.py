"""The two-heap sliding kernel of one order statistic (O(log w) per step, any width):
the engine of a single quantile (median, min, max, every method) of float32/64
windows.

A window's numbers are split by rank in two heaps, as ``bottleneck``'s
``move_median`` does: the ``lo + 1`` smallest in the low heap, the rest in the high
heap, both min-heaps (the low heap holds ``-v``: negation is exact and reverses the
order). The rank ``lo`` is the low heap's top and ``lo + 1`` the high heap's top, so a
plan whose ranks differ by at most one reads in O(1); a step replaces the leaving
key by the entering one in place (one sift), and a change of count moves one top
across. Each element owns a node (its row modulo a power of two above the widest
window) recording its place, so a leaving key is found in O(1).

* The keys are the values themselves, so no key is made on the way in nor undone on
  the way out (``-(-v)`` has ``v``'s bits). Float order is totalOrder's on numbers
  except that ``-0.0 == 0.0``: the kernel counts the window's numbers whose sign bit
  is set (``nsig``: the negatives and ``-0.0``), and a picked zero is ``-0.0`` exactly
  when its rank is below that count: the totalOrder pick whatever the heaps hold.
* 8 children per node, their keys side by side: a sift down reads one or two cache
  lines per level; the smallest child is found by a branch-free tournament over all
  8 slots (the slots past a heap's size hold +inf, and a tie goes to the lower slot,
  so a slot past the size is never chosen while a real child exists).
* The data is read where it lies: a flat buffer and strides (column ``c``'s row ``r``
  at ``c * cs + r * rs``), the results written the same way, so time-first grids and
  column-major frames need no transposed copy.
* Fixed windows take no bound arrays: ``end = e0 + i * step``, ``start = end - span``,
  both clipped to ``[0, n]`` (pandas' fixed windows, centered or not, any ``closed``);
  windows holding fewer than ``minp`` numbers are written as the empty fill here.
* One compiled signature per float dtype serves one column or many, serially or in
  parallel: long inputs run as tasks (a column, or a block of a column's outputs) on
  Python threads, the kernel releasing the GIL (no ``prange`` build to compile).

NaNs take no rank (their windows' counts leave them out, as :mod:`.window_fused`),
and the midpoint / lerp are that module's, so the bits are the other kernels'.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from . import NotReady, jit, kernels, numba, parallel_ok, register
from ._background import Deferred
from .window_fused import MODE_MID, MODE_PICK, nb_lerp, nb_mid, weight_tables

__all__ = ["heap_select", "heap_ok", "PARALLEL_MIN_OUTPUTS", "STRIDED_MAX_ROWS"]

#: outputs (all columns together) from which the kernel runs as tasks on threads
PARALLEL_MIN_OUTPUTS = 200_000
#: a C-ordered block of columns is read in place up to this many rows (a column's
#: cache lines then stay cached for its neighbours); longer: one transposed copy
STRIDED_MAX_ROWS = 4096
LOGK = 3  # 8 children a node
K = 1 << LOGK
#: ``geo``'s fields (the kernel's integer arguments in one array)
G_FIXED, G_E0, G_STEP, G_SPAN, G_N, G_RS, G_CS, G_ORS, G_OCS, G_MINP, G_MODE, G_QUIET = range(12)


def _nb_heap(
    x: np.ndarray, bits: np.ndarray, geo: np.ndarray, start: np.ndarray, end: np.ndarray,
    rt: np.ndarray, w_t: np.ndarray, ft_t: np.ndarray, fc: np.ndarray, out: np.ndarray,
    cnt: np.ndarray, hk: np.ndarray, hn: np.ndarray, pos: np.ndarray, bnd: np.ndarray, t0: Any,
    t1: Any, flags: np.ndarray
) -> None:  # pragma: no cover - compiled
    """One order statistic of every window of the tasks ``t0 <= t < t1``: task ``t``
    is column ``c = t // nblk``, outputs ``bnd[j] <= i < bnd[j + 1]`` with
    ``j = t % nblk`` (each task starts its heaps afresh: the tasks are independent,
    and threads run disjoint ranges of them on their own heaps).

    ``x``/``bits``: the flat data and its bits as ints; ``geo``: the integers (``G_*``:
    fixed bounds ``(e0, step, span, n)`` or else ``start``/``end`` (non-decreasing;
    -1 at the first that is not), strides in and out, ``minp``, mode, the quiet bit);
    ``rt`` the plan's ranks ``(lo, hi)`` by count ``(2, W + 1)``, ``w_t``/``ft_t`` its
    weights; ``fc`` ``(nanv, 0.5)`` in x's dtype; ``out``/``cnt`` flat, written at
    ``c * ocs + i * ors``; ``hk`` the two heaps' keys (heap ``h`` at ``h * hc``,
    ``hc = cap + 8``; +inf in every slot past the heap's size, left so on return),
    ``hn`` their nodes, ``pos`` each node's place (``>= hc``: high; -1: a NaN).
    Writes ``flags[t]``: -1, or bit 0 a NaN, bit 1 a signaling NaN entered a window.

    One flat loop of events (a replacement, a removal, an insertion, a move of a top
    across), each leaving at most two heap entries to sift, so the sift is written
    once and no helper call passes arrays.
    """
    fixed = geo[G_FIXED] != 0
    e0 = geo[G_E0]
    step = geo[G_STEP]
    span = geo[G_SPAN]
    n = geo[G_N]
    rs = geo[G_RS]
    ors = geo[G_ORS]
    minp = geo[G_MINP]
    mode = geo[G_MODE]
    quiet = geo[G_QUIET]
    nanv = fc[0]
    half = fc[1]
    cap = pos.shape[0]
    mask = cap - 1
    hc = hk.shape[0] // 2  # heap h's keys at h * hc; +inf past its size
    nblk = bnd.shape[0] - 1
    for task in range(t0, t1):  # a column, or a block of its outputs
        c = task // nblk
        i0 = bnd[task % nblk]
        i1 = bnd[task % nblk + 1]
        xo = c * geo[G_CS]
        oo = c * geo[G_OCS]
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
        nsig = 0  # numbers in the window with the sign bit set (below +0.0 in totalOrder)
        ps = 0
        pe = 0
        bad = False
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
                    bad = True
                    break
                ps = s
                pe = e
            if s >= ce:
                hk[:n0] = np.inf  # the sentinels back (a new run of windows)
                hk[hc : hc + n1] = np.inf
                n0 = 0
                n1 = 0
                m = 0
                nsig = 0
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
                        if to:  # the sign bit as 0 / -1 (no branch on the data)
                            nsig += np.int64(bits[xo + cs * rs]) >> 63
                        cs += 1
                    if ce < e:
                        j = xo + ce * rs
                        ki = x[j]
                        ti = ki == ki
                        node = ce & mask
                        if not ti:
                            pos[node] = -1
                            seen |= 1 if (bits[j] & quiet) != 0 else 3
                        else:
                            nsig -= np.int64(bits[j]) >> 63
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
                elif m > 0 and n0 != rt[0, m] + 1:  # a top moves across
                    h = 0 if n0 > rt[0, m] + 1 else 1
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
                        cn = hn[base + par]
                        hk[base + p] = kp
                        hn[base + p] = cn
                        pos[cn] = base + p
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
                        ch = c0 + (jb if mb < ma else ja)
                        kc = min(ma, mb)
                        if kc >= k:
                            break
                        hk[base + p] = kc
                        cn = hn[base + ch]
                        hn[base + p] = cn
                        pos[cn] = base + p
                        p = ch
                    hk[base + p] = k
                    hn[base + p] = nd
                    pos[nd] = base + p
            o = oo + i * ors
            cnt[o] = m
            if m == 0 or m < minp:
                out[o] = nanv
                continue
            lo = rt[0, m]
            a = -hk[0]
            if a == 0:  # the zero of rank lo in totalOrder: -0.0 below the signed count
                a = -abs(a) if lo < nsig else abs(a)
            hi = rt[1, m]
            if mode == MODE_PICK or hi == lo:
                out[o] = a
                continue
            b = hk[hc]
            if b == 0:
                b = -abs(b) if hi < nsig else abs(b)
            if mode == MODE_MID:
                out[o] = nb_mid(a, b, half, nanv)
            else:
                out[o] = nb_lerp(a, b, w_t[0, m], ft_t[0, m], ft_t[1, m], nanv)
        hk[:n0] = np.inf  # the sentinels back for the next task on these heaps
        hk[hc : hc + n1] = np.inf
        flags[task] = -1 if bad else seen


def build() -> dict[str, Any]:
    """Compile the two-heap kernel (one function: threads run it in parallel)."""
    for name in ("nb_mid", "nb_lerp"):  # per output (LLVM inlines them)
        globals()[name] = jit(nogil=True)(globals()[name])
    return {"heap": jit(nogil=True)(_nb_heap)}


register("window_heap", build)

_POOL: list[ThreadPoolExecutor] = []
_POOL_LOCK = threading.Lock()


def _pool(nthreads: int) -> ThreadPoolExecutor:
    """The module's thread pool (made once, grown when numba's thread count grows)."""
    with _POOL_LOCK:
        if not _POOL or _POOL[0]._max_workers < nthreads:
            _POOL[:] = [
                ThreadPoolExecutor(max_workers=nthreads, thread_name_prefix="nanaccess-heap")
            ]
        return _POOL[0]


def heap_ok(lo_t: np.ndarray, hi_t: np.ndarray) -> bool:
    """Whether a plan table ``(nq, W + 1)`` by count suits the two heaps: one
    quantile whose ranks lie in the window and differ by at most one."""
    if lo_t.shape[0] != 1:
        return False
    m = np.arange(lo_t.shape[1])[1:]
    lo, hi = lo_t[0, 1:], hi_t[0, 1:]
    return bool(((lo >= 0) & (hi >= lo) & (hi <= lo + 1) & (hi < m)).all())


def _flat(x2: np.ndarray) -> tuple[np.ndarray, int, int]:
    """``(flat, rs, cs)``: ``x2`` ``(n, ncols)`` as one contiguous buffer and its row
    and column strides in elements, in place where its layout allows (see
    :data:`STRIDED_MAX_ROWS`), else from one transposed copy."""
    n, ncols = x2.shape
    if x2.flags.f_contiguous or ncols == 1:  # each column contiguous
        return np.ascontiguousarray(x2.T).reshape(-1), 1, n
    if x2.flags.c_contiguous and n <= STRIDED_MAX_ROWS:
        return x2.reshape(-1), ncols, 1
    return np.ascontiguousarray(x2.T).reshape(-1), 1, n


def _weights(w_t: np.ndarray, dt: np.dtype, mode: int) -> tuple[np.ndarray, np.ndarray]:
    """The kernel's ``w_t``/``ft_t``: read by the lerp alone, so a pick or a midpoint
    gets one-column stand-ins of the same types (no tables of ``W + 1`` weights to
    allocate and fill on every call: a long expanding window has ``W`` = its length)."""
    if mode == MODE_PICK or mode == MODE_MID:
        return _NO_WEIGHTS, np.zeros((2 * w_t.shape[0], 1), dt)
    return np.ascontiguousarray(w_t, np.float64), weight_tables(w_t, dt)


_NO_WEIGHTS = np.zeros((1, 1))


def heap_select(
    x2: np.ndarray,
    bounds: tuple[Any, ...],
    nout: int,
    lo_t: np.ndarray,
    hi_t: np.ndarray,
    w_t: np.ndarray,
    mode: int,
    minp: int,
    *,
    compiled: bool = True,
    defer: bool = False,
) -> tuple[np.ndarray, np.ndarray, int]:
    """One order statistic of every window of each column of ``x2`` ``(n, ncols)``
    (float32/64, native) on the two heaps.

    ``bounds``: ``("fixed", e0, step, span)`` (output ``i``'s window ends at
    ``e0 + i * step`` and spans ``span`` rows, clipped to the data) or ``("arrays",
    start, end)``; ``lo_t``/``hi_t``/``w_t`` the plan by count (``(1, W + 1)``,
    :func:`heap_ok`); ``mode`` a ``MODE_*``; windows holding fewer than ``minp``
    numbers (or none) give NaN. Returns ``(values, count, flags)``: values
    ``(nout, ncols)`` of x's dtype and count (int64), views in the layout the kernel
    wrote; flags -1 (bounds not monotone: nothing valid), else those of every column
    (bit 0 NaN, bit 1 signaling NaN).

    ``defer``: when the kernel has no machine code for these types yet (and the
    ``compile`` option is "background"), queue its compilation and raise
    :class:`~nanaccess.core._numba.NotReady` before running (the caller serves the call
    another way); else (the default) a missing compilation happens here. The data
    goes in as read-only views, so every call of a dtype has one signature.

    Examples
    --------
    >>> from nanaccess.core.plan import rank_plan
    >>> plan = rank_plan("median", np.arange(4))
    >>> x = np.array([[3.0], [np.nan], [-0.0], [0.0], [-1.0]])
    >>> v, cnt, flags = heap_select(x, ("fixed", 1, 1, 3), 5, plan.lo, plan.hi,
    ...                             np.broadcast_to(plan.weight, plan.lo.shape), 1, 0,
    ...                             compiled=False)
    >>> v[:, 0].tolist(), cnt[:, 0].tolist(), flags
    ([3.0, 3.0, 1.5, 0.0, -0.0], [1, 1, 2, 2, 3], 1)
    """
    dt = x2.dtype
    it = np.dtype(f"i{dt.itemsize}")
    n, ncols = x2.shape
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
    flat, rs, cs = _flat(x2)
    flat = flat.view()
    flat.flags.writeable = False  # read only, whatever the caller's: one signature
    bits = flat.view(it)
    nthreads = 1
    if compiled and parallel_ok(nout * ncols, PARALLEL_MIN_OUTPUTS):
        nthreads = int(numba().get_num_threads())
    nblk = 1
    if nthreads > 1 and ncols < 2 * nthreads:  # few columns: blocks of outputs too
        nblk = min(2 * nthreads, max(nout // (4 * (width + 1)), 1))
        if nblk > 1 and not fixed and ((np.diff(start) < 0).any() or (np.diff(end) < 0).any()):
            return None, None, -1  # blocks would hide a decreasing bound between them
    bnd = np.linspace(0, nout, nblk + 1).astype(np.int64)
    ntask = ncols * nblk
    nthreads = min(nthreads, ntask)
    if rs == 1 and ncols > 1:  # columns read whole: each column's results together
        out = np.empty((ncols, nout), dt)
        vals, ors, ocs = out.T, 1, nout
    else:
        out = np.empty((nout, ncols), dt)
        vals, ors, ocs = out, ncols, 1
    cnt = np.empty(out.shape, np.int64)
    count = cnt.T if vals is not out else cnt
    quiet = 1 << (np.finfo(dt).nmant - 1)
    nanv = np.array(int(np.array(np.inf, dt).view(it)) | quiet, it).view(dt)[()]
    geo = np.array([fixed, e0, step, span, n, rs, cs, ors, ocs, minp, mode, quiet], np.int64)
    rt = np.ascontiguousarray(np.concatenate([lo_t, hi_t]), np.int64)
    fc = np.array([nanv, 0.5], dt)
    flags = np.zeros(ntask, np.int64)
    args = (
        flat,
        bits,
        geo,
        start,
        end,
        rt,
        *_weights(w_t, dt, mode),
        fc,
        out.reshape(-1),
        cnt.reshape(-1),
    )

    def work(t0: int, t1: int) -> None:  # one set of heaps per thread
        hk = np.full(2 * (cap + K), np.inf, dt)  # K slots of +inf past a full heap
        fn(
            *args,
            hk,
            np.empty(2 * (cap + K), np.int32),
            np.empty(cap, np.int32),
            bnd,
            t0,
            t1,
            flags,
        )

    fn = kernels("window_heap")["heap"] if compiled else _nb_heap
    if isinstance(fn, Deferred):
        if defer and not fn.ready(
            *args, np.empty(0, dt), np.empty(0, np.int32), np.empty(0, np.int32), bnd, 0, 0, flags
        ):
            raise NotReady("the two-heap window kernel compiles in the background")
        fn = fn.dispatcher
    if nthreads > 1:
        cuts = np.linspace(0, ntask, nthreads + 1).astype(np.int64)
        jobs = [
            _pool(nthreads).submit(work, int(a), int(b))
            for a, b in zip(cuts[:-1], cuts[1:], strict=True)
            if b > a
        ]
        for job in jobs:
            job.result()
    else:
        work(0, ntask)
    got = -1 if (flags < 0).any() else int(np.bitwise_or.reduce(flags))
    return vals, count, got
