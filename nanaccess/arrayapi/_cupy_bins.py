"""The CuPy engine of :mod:`.bins`: one CUDA kernel pass per row block.

Each block takes a stretch of one row and, in shared memory, adds the signed 26-bit
halves of the integer mantissas of its finite values into 2 x 2048 int64 bins (one
per binary64 exponent: float32 values land on the bins of their float64 exponents)
and counts NaNs, signaling NaNs, +inf, -inf and the values that are not ``-0.0``;
then it adds its nonzero bins and counts into the row's global ones. Integer atomics
are exact and order-free, and only integer operations touch the data, so no compiler
flag (FMA contraction, fast math) can change a bit. :func:`cupy_summary` returns
None when the kernel cannot be built or run; :mod:`.bins` then uses its portable
engine (the same integers, which the GPU tests compare).

The default kernel (``window``) adds in registers: each thread keeps a signed 128-bit
integer accumulator for a window of 62 exponents (chosen by its first value, moved
whenever the accumulator is zero), adds the shifted mantissas of values inside the
window exactly (at most 4096 values a thread: no overflow), sends the rare values
outside it to the shared bins one by one, and at the end splits its accumulator into
three 52-bit pieces added to the bins at ``base``, ``base + 52`` and ``base + 104``.
The data never wait on an atomic, so the pass runs at memory speed. The earlier
kernels (``NANACCESS_XP_BINS=plain``: per-value shared atomics; ``warp``:
warp-aggregated) remain for comparison.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

__all__ = ["cupy_summary", "device_bins", "NFLAGS", "source", "variant"]

#: per-row counts after the bins: NaN, signaling NaN, +inf, -inf, not -0.0 (numbers)
NFLAGS = 5

_TEMPLATE = r"""
extern "C" __global__
void @NAME@(const @BITS@* __restrict__ bits, const long long n,
          unsigned long long* __restrict__ out, unsigned long long* __restrict__ flags)
{
    __shared__ unsigned long long hi[2048];
    __shared__ unsigned long long lo[2048];
    __shared__ unsigned long long cnt[5];
    for (int i = threadIdx.x; i < 2048; i += blockDim.x) { hi[i] = 0ULL; lo[i] = 0ULL; }
    for (int i = threadIdx.x; i < 5; i += blockDim.x) cnt[i] = 0ULL;
    __syncthreads();
    const long long row = blockIdx.y;
    const @BITS@* p = bits + row * n;
    const long long stride = (long long)gridDim.x * blockDim.x;
    unsigned long long nnan = 0, nsig = 0, npinf = 0, nninf = 0, nnum = 0;
    unsigned long long acc_lo = 0ULL;  /* the window kernel's accumulator (others: 0) */
    long long acc_hi = 0LL;
    int base = 0;
    /* four loads in flight a thread before any arithmetic: the pass is bound by
       memory latency otherwise (measured: 0.55 ms against cupy.sum's 0.18 on 1e8) */
    for (long long i0 = (long long)blockIdx.x * blockDim.x + threadIdx.x; i0 < n;
         i0 += 4 * stride) {
        @BITS@ v[4];
#pragma unroll
        for (int u = 0; u < 4; ++u) {
            const long long i = i0 + u * stride;
            v[u] = i < n ? p[i] : (@BITS@)0;
        }
#pragma unroll
        for (int u = 0; u < 4; ++u) {
        if (i0 + u * stride >= n) break;
        const @BITS@ b = v[u];
@BODY@
        }
    }
@FLUSH@
    if (nnan) atomicAdd(&cnt[0], nnan);
    if (nsig) atomicAdd(&cnt[1], nsig);
    if (npinf) atomicAdd(&cnt[2], npinf);
    if (nninf) atomicAdd(&cnt[3], nninf);
    if (nnum) atomicAdd(&cnt[4], nnum);
    __syncthreads();
    unsigned long long* o = out + row * 4096;
    for (int i = threadIdx.x; i < 2048; i += blockDim.x) {
        if (hi[i]) atomicAdd(&o[i], hi[i]);
        if (lo[i]) atomicAdd(&o[2048 + i], lo[i]);
    }
    for (int i = threadIdx.x; i < 5; i += blockDim.x)
        if (cnt[i]) atomicAdd(&flags[row * 5 + i], cnt[i]);
}
"""

#: the per-value code of the plain and warp kernels: halves of the signed mantissa,
#: then their addition (``@ADD@``)
_BODY_BINS = r"""
        const int e = (int)((b >> @MBITS@) & @EMAX@);
        const long long frac = (long long)(b & @MMASK@);
        int sh = -1;  /* no bin: NaN, infinity or zero */
        long long h = 0, l = 0;
        if (e == @EMAX@) {
            if (frac == 0) { if (b < 0) nninf++; else npinf++; nnum++; }
            else { nnan++; if ((frac & @QUIET@) == 0) nsig++; }
        } else {
            if (b != @SIGNMIN@) nnum++;
            const long long m = frac | ((long long)(e > 0) << @MBITS@);
            if (m != 0) {
                sh = (e > 0 ? e : 1) + @OFFSET@;
                h = m >> 26; l = m & 0x3FFFFFFLL;
                if (b < 0) { h = -h; l = -l; }
            }
        }
@ADD@
"""
#: the window kernel's per-value code: the mantissa shifted into the thread's 128-bit
#: accumulator (the window moved while it is zero); values outside the window go to
#: the shared bins as signed halves
_BODY_WINDOW = r"""
        const unsigned long long ab = (unsigned long long)b & @IMASK@;
        const int e = (int)(ab >> @MBITS@);
        if (e == @EMAX@) {
            if ((ab & @MMASK@) == 0) { if (b < 0) nninf++; else npinf++; nnum++; }
            else { nnan++; if ((ab & @QUIET@) == 0) nsig++; }
            continue;
        }
        if (b != @SIGNMIN@) nnum++;
        if (ab == 0ULL) continue;  /* +0.0 and -0.0 add nothing */
        const unsigned long long m = (ab & @MMASK@) | ((unsigned long long)(e > 0) << @MBITS@);
        const int sh = (e > 0 ? e : 1) + @OFFSET@;
        int s = sh - base;
        if ((unsigned int)s >= 62u) {
            if ((acc_lo | (unsigned long long)acc_hi) == 0ULL) {
                base = sh - 31 < 0 ? 0 : (sh - 31 > 1943 ? 1943 : sh - 31);
                s = sh - base;
            }
            if ((unsigned int)s >= 62u) {
                long long h = (long long)(m >> 26), l = (long long)(m & 0x3FFFFFFULL);
                if (b < 0) { h = -h; l = -l; }
                if (h) atomicAdd(&hi[sh], (unsigned long long)h);
                if (l) atomicAdd(&lo[sh], (unsigned long long)l);
                continue;
            }
        }
        {
            const unsigned long long plo = m << s;
            const long long phi = (long long)((m >> 1) >> (63 - s));  /* m >> (64 - s) */
            if (b < 0) {
                const unsigned long long borrow = acc_lo < plo ? 1ULL : 0ULL;
                acc_lo -= plo;
                acc_hi -= phi + (long long)borrow;
            } else {
                acc_lo += plo;
                acc_hi += phi + (long long)(acc_lo < plo ? 1 : 0);
            }
        }
"""

#: per float width: C type of the bits, mantissa bits, exponent all-ones, the
#: bin offset (float64 bins: ``sh = max(e, 1) - 1``; float32: ``max(e, 1) + 924``),
#: the quiet bit and the bits of -0.0
_LAYOUTS = {
    8: dict(NAME="nanaccess_bins64", BITS="long long", MBITS="52", EMAX="0x7FF",
            MMASK="0xFFFFFFFFFFFFFLL", OFFSET="(-1)", IMASK="0x7FFFFFFFFFFFFFFFULL",
            QUIET="(1LL << 51)",
            SIGNMIN="((long long)0x8000000000000000ULL)"),
    4: dict(NAME="nanaccess_bins32", BITS="int", MBITS="23", EMAX="0xFF", MMASK="0x7FFFFF",
            OFFSET="924", IMASK="0x7FFFFFFFULL", QUIET="(1LL << 22)", SIGNMIN="((int)0x80000000U)"),
}
#: each lane adds its own halves (shared-memory atomics)
_ADD_PLAIN = r"""
        if (sh >= 0) {
            if (h) atomicAdd(&hi[sh], (unsigned long long)h);
            if (l) atomicAdd(&lo[sh], (unsigned long long)l);
        }"""
#: the lanes of a warp holding one bin add their halves first (every active lane
#: reads every lane's halves; only its bin's peers count), one atomic per bin: data
#: crowded in a few exponents does not serialise on them
_ADD_WARP = r"""
        {
            const unsigned int active = __activemask();
            const unsigned int peers = __match_any_sync(active, sh);
            long long hs = 0, ls = 0;
            for (int j = 0; j < 32; ++j) {
                const long long hv = __shfl_sync(active, h, j);
                const long long lv = __shfl_sync(active, l, j);
                if ((peers >> j) & 1u) { hs += hv; ls += lv; }
            }
            if (sh >= 0 && (int)(threadIdx.x & 31) == __ffs(peers) - 1) {
                if (hs) atomicAdd(&hi[sh], (unsigned long long)hs);
                if (ls) atomicAdd(&lo[sh], (unsigned long long)ls);
            }
        }"""
#: the window kernel's end: the accumulator as pieces p0 + p1 * 2**52 + p2 * 2**104
#: (p0, p1 unsigned 52-bit, p2 signed), each added as hi/lo halves at its bin
_FLUSH_WINDOW = r"""
    if (acc_lo != 0ULL || acc_hi != 0LL) {
        const long long p[3] = {
            (long long)(acc_lo & 0xFFFFFFFFFFFFFULL),
            (long long)((acc_lo >> 52) | (((unsigned long long)acc_hi & 0xFFFFFFFFFFULL) << 12)),
            acc_hi >> 40};
        for (int j = 0; j < 3; ++j) {
            if (p[j] == 0) continue;
            const int at = base + 52 * j;
            const long long ph = p[j] >> 26, pl = p[j] & 0x3FFFFFFLL;
            if (ph) atomicAdd(&hi[at], (unsigned long long)ph);
            if (pl) atomicAdd(&lo[at], (unsigned long long)pl);
        }
    }"""
#: the kernels by name: (per-value addition, end of the thread's values)
_VARIANTS = {"plain": (_ADD_PLAIN, ""), "warp": (_ADD_WARP, ""), "window": ("", _FLUSH_WINDOW)}
#: per-thread values at most (the window kernel's 128-bit headroom: 2**12 * 2**114)
MAX_PER_THREAD = 4096
_KERNELS: dict[tuple[int, str], Any] = {}
_THREADS = 256


def variant() -> str:
    """The kernel: ``NANACCESS_XP_BINS`` (``plain``, ``warp``, for benchmarks), else
    ``window``."""
    got = os.environ.get("NANACCESS_XP_BINS", "window")
    return got if got in _VARIANTS else "window"


def warp_aggregated() -> bool:
    """Whether the warp-aggregated kernel is chosen (``NANACCESS_XP_BINS=warp``)."""
    return variant() == "warp"


def source(width: int, kind: str = "window") -> str:
    """The CUDA source of the ``kind`` kernel for ``width``-byte floats."""
    body = _BODY_WINDOW if kind == "window" else _BODY_BINS.replace("@ADD@", _VARIANTS[kind][0])
    src = _TEMPLATE.replace("@BODY@", body).replace("@FLUSH@", _VARIANTS[kind][1])
    for key, val in _LAYOUTS[width].items():
        src = src.replace(f"@{key}@", val + (f"_{kind}" if key == "NAME" else ""))
    return src


def _kernel(width: int, kind: str) -> Any:
    if (width, kind) not in _KERNELS:
        import cupy

        name = _LAYOUTS[width]["NAME"] + f"_{kind}"
        _KERNELS[width, kind] = cupy.RawKernel(source(width, kind), name)
    return _KERNELS[width, kind]


def _device_both(bits: Any) -> Any:
    """The bins and counts of ``bits`` in one device buffer (uint64):
    ``rows * 4096`` bins (per row 2048 hi halves, 2048 lo halves), then
    ``rows * NFLAGS`` counts."""
    import cupy

    from ._cupy_scan import multiprocessors

    rows, n = bits.shape
    if rows > 65535:
        raise ValueError("more rows than a grid's y dimension")
    bits = cupy.ascontiguousarray(bits)
    both = cupy.zeros(rows * (4096 + NFLAGS), dtype=cupy.uint64)  # one memset, one copy
    out, flags = both[:rows * 4096], both[rows * 4096:]
    per_row = max(1, min(-(-n // (_THREADS * 16)), max(1, (multiprocessors() * 8) // rows)))
    per_row = max(per_row, -(-n // (_THREADS * MAX_PER_THREAD)))  # the window's headroom
    _kernel(bits.dtype.itemsize, variant())((per_row, rows), (_THREADS,),
                                            (bits, np.int64(n), out, flags))
    return both


def device_bins(bits: Any) -> tuple[Any, Any]:
    """The (rows, 2, 2048) int64 bins (hi halves, then lo halves) and the (rows, 5)
    counts of ``bits`` ((rows, n) int32/int64 bit patterns of float32/float64)."""
    both = _device_both(bits)
    rows = bits.shape[0]
    return (both[:rows * 4096].reshape(rows, 2, 2048).view("i8"),
            both[rows * 4096:].reshape(rows, NFLAGS).view("i8"))


def cupy_summary(bits: Any) -> tuple[tuple[np.ndarray, np.ndarray, np.ndarray], np.ndarray] | None:
    """((bin key, hi sum, lo sum) of the nonempty bins, as :func:`.bins._portable`;
    the (rows, 5) counts) or None when the kernel is unavailable."""
    try:
        rows = bits.shape[0]
        both = _device_both(bits).get().view(np.int64)
    except Exception:  # noqa: BLE001 - no compiler, no device: the portable engine
        return None
    b = both[:rows * 4096].reshape(rows, 2, 2048)
    f = both[rows * 4096:].reshape(rows, NFLAGS)
    r, sh = np.nonzero((b[:, 0] != 0) | (b[:, 1] != 0))
    return (r * 2048 + sh, b[r, 0, sh], b[r, 1, sh]), f
