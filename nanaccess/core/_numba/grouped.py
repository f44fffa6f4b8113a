"""The grouped selection kernels (the numba engine of :mod:`nanaccess.core.grouped`).

Filters nothing and copies nothing: the keys are made on the fly from the float bits,
and a row takes part when its code is >= 0 and its key lies in the policy's key range
(under "omit"/"propagate" the numbers: totalOrder puts negative NaNs below -inf and
positive NaNs above +inf, so every NaN falls outside). One pass counts each group's
taking-part rows (the ranks need them), a second scatters their keys into per-group
segments (a counting sort), then per group the ranks are selected: a group of at most
:data:`SMALL_GROUP` keys by counting, for each key, the keys below and equal to it
(branch-free, no sort; the key holds the ranks ``[#below, #below + #equal)``), a
larger one by a quickselect with branchless Lomuto partitions (a second pass gathers
the pivot's duplicates, so runs of equal keys stay linear); the next rank of an even
median is the minimum of the upper part. O(n) on average. For large inputs
(:data:`PARALLEL_MIN_ROWS`, main thread only) the selection runs on blocks of groups
over numba's threads (the count and the scatter, memory-bound, stay serial: one
parallel region, which a busy machine delays least).

Plain Python over arrays, compiled through :mod:`nanaccess.core._numba` on first use.
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np

from . import bind, jit, kernels, register
from .sorting import insertion_sort, move_min_to  # noqa: F401 - kernel globals

__all__ = ["NumbaSelect", "SMALL_GROUP", "PARALLEL_MIN_ROWS"]

prange = range  # numba's prange once compiled (:func:`nanaccess.core._numba.bind`)

#: groups of at most this many keys are selected by counting ranks (branch-free)
SMALL_GROUP = 32
#: rows at or above which the numba engine selects on numba's threads
PARALLEL_MIN_ROWS = 200_000


def _nb_flip(b: Any, fm: Any, sh: Any) -> Any:  # pragma: no cover - compiled
    """``b ^ ((b >> sh) & fm)``: the totalOrder key of float bits (``fm`` = INT_MAX of
    the width) and back (it is its own inverse), or ``b`` itself (``fm`` = 0)."""
    return b ^ ((b >> sh) & fm)


def _nb_count(bits: np.ndarray, codes: np.ndarray, fm: Any, sh: Any, klo: Any, khi: Any, slo: Any,
              shi: Any, cnt: np.ndarray, lo: np.ndarray, hi: np.ndarray,
              extremes: Any) -> Any:  # pragma: no cover - compiled
    """Count per group the rows that take part; return the number of grouped rows
    whose key lies outside ``[klo, khi]`` but inside ``[slo, shi]``.

    The key of a row is ``_nb_flip(bits[i])``: totalOrder keys straight from float
    bits, or the keys themselves. A row takes part when its code is >= 0 and its key
    lies in ``[klo, khi]``. ``extremes``: also keep each group's smallest and largest
    taking-part key in ``lo`` / ``hi`` (a min or max needs nothing else: no scatter,
    no select).
    """
    out = 0
    for i in range(bits.shape[0]):
        g = codes[i]
        if g >= 0:
            k = _nb_flip(bits[i], fm, sh)
            if k >= klo and k <= khi:
                cnt[g] += 1
                if extremes:
                    if k < lo[g]:
                        lo[g] = k
                    if k > hi[g]:
                        hi[g] = k
            elif k >= slo and k <= shi:
                out += 1
    return out


def _nb_scatter(bits: np.ndarray, codes: np.ndarray, fm: Any, sh: Any, klo: Any, khi: Any,
                starts: np.ndarray, buf: np.ndarray) -> None:  # pragma: no cover - compiled
    """Counting-sort scatter of the keys of the taking-part rows into their segments."""
    pos = starts.copy()
    for i in range(bits.shape[0]):
        g = codes[i]
        if g >= 0:
            k = _nb_flip(bits[i], fm, sh)
            if k >= klo and k <= khi:
                buf[pos[g]] = k
                pos[g] += 1


def _nb_qselect(a: np.ndarray, lo: Any, hi: Any, k: Any) -> None:  # pragma: no cover - compiled
    # quickselect with branchless Lomuto partitions (no mispredicted branches on
    # random keys); a second pass gathers the pivot's duplicates, so runs of equal
    # keys cannot make it quadratic
    while hi > lo:
        if hi - lo < 16:
            insertion_sort(a, lo, hi)
            return
        mid = (lo + hi) >> 1
        x, y, z = a[lo], a[mid], a[hi]
        p = max(min(x, y), min(max(x, y), z))
        i = lo
        for j in range(lo, hi + 1):
            v = a[j]
            a[j] = a[i]
            a[i] = v
            i += v < p
        if k < i:
            hi = i - 1
            continue
        i2 = i
        for j in range(i, hi + 1):
            v = a[j]
            a[j] = a[i2]
            a[i2] = v
            i2 += v == p
        if k < i2:
            return
        lo = i2


def _nb_rank_span(tmp: np.ndarray, n: Any, v: Any) -> Any:  # pragma: no cover - compiled
    """(#keys < v, #keys <= v) among ``tmp[:n]``: v holds the ranks in between."""
    lt = 0
    le = 0
    for j in range(n):
        lt += tmp[j] < v
        le += tmp[j] <= v
    return lt, le


def _nb_select_group(buf: np.ndarray, starts: np.ndarray, counts: np.ndarray, ranks: np.ndarray,
                     out: np.ndarray, g: Any, tmp: np.ndarray) -> None:  # pragma: no cover
    """The keys of ranks ``ranks[g]`` (ascending; -1 or >= count: unused) of group g.

    ``tmp`` is a scratch array; groups of at most ``tmp.size`` keys are selected by
    counting ranks instead of sorting.
    """
    s = starts[g]
    n = counts[g]
    nr = ranks.shape[1]
    if n == 0:
        return
    if n <= tmp.shape[0]:
        # small group: the key v holds the ranks [#keys < v, #keys <= v); counting
        # them is branch-free and vectorises, where a sort mispredicts on random keys
        for j in range(n):
            tmp[j] = buf[s + j]
        if nr == 2:  # median, one quantile: the two ranks in registers
            r0 = ranks[g, 0]
            r1 = ranks[g, 1]
            o0 = out[g, 0]
            o1 = out[g, 1]
            for i in range(n):
                v = tmp[i]
                lt, le = _nb_rank_span(tmp, n, v)
                o0 = v if (lt <= r0) & (r0 < le) else o0
                o1 = v if (lt <= r1) & (r1 < le) else o1
            out[g, 0] = o0
            out[g, 1] = o1
            return
        for i in range(n):
            v = tmp[i]
            lt, le = _nb_rank_span(tmp, n, v)
            for t in range(nr):
                r = ranks[g, t]
                if lt <= r and r < le:
                    out[g, t] = v
        return
    e = s + n
    lo = s
    prev = -2
    for j in range(nr):
        r = ranks[g, j]
        if r < 0 or r >= n:
            continue
        t = s + r
        if r == prev:
            pass
        elif r == prev + 1:
            # the next rank: the minimum of the upper part, moved to t
            move_min_to(buf, t, e)
        else:
            _nb_qselect(buf, lo, e - 1, t)
        out[g, j] = buf[t]
        lo = t
        prev = r


def _nb_unflip(out: np.ndarray, g: Any, fm: Any, sh: Any) -> None:  # pragma: no cover - compiled
    """Selected totalOrder keys back to float bits (``fm`` = 0: keys stay keys)."""
    for t in range(out.shape[1]):
        out[g, t] = _nb_flip(out[g, t], fm, sh)


def _nb_select_serial(bits: np.ndarray, codes: Any, fm: Any, sh: Any, klo: Any, khi: Any,
                      starts: np.ndarray, counts: np.ndarray, ranks: np.ndarray,
                      small: Any) -> Any:  # pragma: no cover - compiled
    ngroups = counts.shape[0]
    buf = np.empty(max(starts[-1] + counts[-1], 1) if ngroups else 1, bits.dtype)
    _nb_scatter(bits, codes, fm, sh, klo, khi, starts, buf)
    out = np.zeros(ranks.shape, dtype=bits.dtype)
    tmp = np.empty(small, bits.dtype)
    for g in range(ngroups):
        _nb_select_group(buf, starts, counts, ranks, out, g, tmp)
        _nb_unflip(out, g, fm, sh)
    return out


def _nb_select_parallel(bits: np.ndarray, codes: Any, fm: Any, sh: Any, klo: Any, khi: Any,
                        starts: np.ndarray, counts: np.ndarray, ranks: np.ndarray,
                        small: Any) -> Any:  # pragma: no cover - compiled
    ngroups = counts.shape[0]
    buf = np.empty(max(starts[-1] + counts[-1], 1) if ngroups else 1, bits.dtype)
    _nb_scatter(bits, codes, fm, sh, klo, khi, starts, buf)
    out = np.zeros(ranks.shape, dtype=bits.dtype)
    nblk = min(ngroups, 256)  # blocks of groups: one scratch array per block
    for blk in prange(nblk):
        tmp = np.empty(small, bits.dtype)
        for g in range(blk * ngroups // nblk, (blk + 1) * ngroups // nblk):
            _nb_select_group(buf, starts, counts, ranks, out, g, tmp)
            _nb_unflip(out, g, fm, sh)
    return out


def build() -> dict[str, Any]:
    """Compile the grouped kernels (the shared sorting helpers first)."""
    bind(globals(), ("insertion_sort", "move_min_to"), kernels("sorting"))
    bind(globals(), ("_nb_flip", "_nb_scatter", "_nb_qselect", "_nb_rank_span", "_nb_select_group",
                     "_nb_unflip"))
    return {"count": jit(nogil=True)(_nb_count),
            False: jit(nogil=True)(_nb_select_serial),
            True: jit(nogil=True, parallel=True)(_nb_select_parallel)}


register("grouped", build)


def _nb_compile() -> dict[str, Any]:
    return kernels("grouped")


class NumbaSelect:
    """The numba engine in two phases: count the taking-part rows of each group (so
    the ranks can be computed), then scatter them into per-group segments and select.

    ``bits`` are the keys, or for float data the raw bits (``flip``: the totalOrder
    keys are made on the fly, never stored). Rows take part when their code is >= 0
    and their key lies in ``[klo, khi]`` (under "omit"/"propagate" the number keys:
    totalOrder puts every NaN outside), so no filtered copies are made. ``signaling``
    counts the grouped rows with keys in ``[slo, shi]`` outside ``[klo, khi]``.
    ``parallel``: the selection runs on blocks of groups over numba's threads (the
    count and the scatter stay serial: one parallel region per call, so a busy
    machine that delays a thread costs little).
    """

    def __init__(self, bits: Any, flip: Any, codes: Any, ngroups: Any, klo: Any, khi: Any, slo: Any,
                 shi: Any, parallel: Any,
                 extremes: Any = False) -> None:
        self.kern = _nb_compile()
        self.bits = np.ascontiguousarray(bits)
        width = self.bits.dtype.itemsize * 8
        self.flip = flip  # the selection returns float bits, not keys
        self.fm = np.int64((1 << (width - 1)) - 1 if flip else 0)
        self.sh = np.int64(width - 1)
        self.codes = np.ascontiguousarray(codes, dtype=np.intp)
        self.klo, self.khi = np.int64(klo), np.int64(khi)
        self.parallel = parallel
        self.counts = np.zeros(ngroups, np.int64)
        # min / max: the counting pass keeps the extremes (else one-element dummies)
        info = np.iinfo(self.bits.dtype)
        size = ngroups if extremes else 1
        lo = np.full(size, info.max, self.bits.dtype)
        hi = np.full(size, info.min, self.bits.dtype)
        self.signaling = self.kern["count"](self.bits, self.codes, self.fm, self.sh, self.klo,
                                            self.khi, np.int64(slo), np.int64(shi),
                                            self.counts, lo, hi, extremes)
        self.lo: np.ndarray | None
        self.hi: np.ndarray | None
        self.lo, self.hi = (lo, hi) if extremes else (None, None)

    def extreme(self, largest: bool) -> np.ndarray:
        """Each group's smallest or largest taking-part key (made with
        ``extremes=True``), as the selection returns it: float bits under ``flip``
        (an empty group holds a sentinel: the caller fills it)."""
        k = cast("np.ndarray", self.hi if largest else self.lo)
        return cast("np.ndarray",
               k ^ ((k >> self.bits.dtype.type(self.sh)) & self.bits.dtype.type(self.fm)))

    def __call__(self, ranks: np.ndarray) -> Any:
        counts = self.counts
        starts = np.cumsum(counts) - counts
        ranks = np.ascontiguousarray(ranks, dtype=np.int64)
        # the kernel wants each group's ranks ascending (-1 anywhere); a pair [lo, hi]
        # always is
        if ranks.shape[1] > 2 and not (np.diff(ranks, axis=1) >= 0).all():
            order = np.argsort(ranks, axis=1, kind="stable")
            sr = np.ascontiguousarray(np.take_along_axis(ranks, order, axis=1))
        else:
            order, sr = None, ranks
        got = self.kern[self.parallel](self.bits, self.codes, self.fm, self.sh, self.klo,
                                       self.khi, starts, counts, sr, SMALL_GROUP)
        if order is None:
            return got
        out = np.empty_like(got)
        np.put_along_axis(out, order, got, axis=1)
        return out
