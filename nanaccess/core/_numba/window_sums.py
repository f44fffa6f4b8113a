"""Exact moving sums and means (the numba engine of :mod:`nanaccess.core.window.moments`).

Two kernels: a Shewchuk expansion that values enter and leave without rounding (any
finite range) and, for the common case, two fixed bins of exact doubles
(:func:`binned_sum`). Every output rounds once (a mean divides with correct
rounding), so each equals the plain exact sum / mean of its window bit for bit.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import bind, jit, kernels, register

__all__ = ["moving_sum", "binned_sum"]


def _fma(a: Any, b: Any, c: Any) -> Any:  # pragma: no cover - replaced when compiled
    """a * b + c rounded once (LLVM's ``fma`` once compiled)."""
    from fractions import Fraction

    return float(Fraction(a) * Fraction(b) + Fraction(c))


def fma_intrinsic() -> Any:
    """``_fma`` as LLVM's ``llvm.fma.f64`` (one instruction where the CPU has it)."""
    from llvmlite import ir
    from numba import types
    from numba.extending import intrinsic

    @intrinsic
    def fma(typingctx: Any, a: Any, b: Any, c: Any) -> Any:
        sig = types.float64(types.float64, types.float64, types.float64)

        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            d = ir.DoubleType()
            fn = builder.module.declare_intrinsic("llvm.fma", [d], ir.FunctionType(d, [d, d, d]))
            return builder.call(fn, args)

        return sig, codegen

    return fma

# ------------------------------------------------------------------ exact moving sums
# The window's exact sum is a Shewchuk expansion (non-overlapping partials of
# increasing magnitude, as math.fsum keeps): a value entering is added, a value leaving
# is subtracted, both without rounding. Each output rounds the expansion once
# (math.fsum's final step: correct rounding, half to even); a mean divides it by the
# count with correct rounding (the exact remainder S - q*n decides q's last bit).
# Outputs whose inputs leave the safe range (|x| outside [2**-960, 2**1000]) or whose
# quotient is tiny are flagged: the caller recomputes them with the reference engine.

MAXP = 48  # partials: the exponent range of the safe inputs needs at most ~40


def nb_grow(p: np.ndarray, m: Any, x: Any) -> Any:  # pragma: no cover - compiled
    """Add x to the expansion p[:m] without rounding; the new length."""
    i = 0
    for j in range(m):
        y = p[j]
        if abs(x) < abs(y):
            t = x
            x = y
            y = t
        hi = x + y
        lo = y - (hi - x)
        if lo != 0.0:
            p[i] = lo
            i += 1
        x = hi
    p[i] = x
    return i + 1


def nb_round(p: np.ndarray, m: Any) -> Any:  # pragma: no cover - compiled
    """The expansion's value correctly rounded (math.fsum's last step)."""
    if m == 0:
        return 0.0
    n = m - 1
    hi = p[n]
    lo = 0.0
    while n > 0:
        x = hi
        y = p[n - 1]
        n -= 1
        hi = x + y
        yr = hi - x
        lo = y - yr
        if lo != 0.0:
            break
    if n > 0 and ((lo < 0.0 and p[n - 1] < 0.0) or (lo > 0.0 and p[n - 1] > 0.0)):
        y = lo * 2.0
        x = hi + y
        yr = x - hi
        if y == yr:
            hi = x
    return hi


def nb_sign(p: np.ndarray, m: Any) -> Any:  # pragma: no cover - compiled
    """Sign of the expansion: that of its largest nonzero partial."""
    for j in range(m - 1, -1, -1):
        if p[j] > 0.0:
            return 1
        if p[j] < 0.0:
            return -1
    return 0


def nb_split(a: Any) -> Any:  # pragma: no cover - compiled
    c = 134217729.0 * a
    hi = c - (c - a)
    return hi, a - hi


def nb_cmp_half(p: np.ndarray, m: Any, q: Any, n: Any, step: Any,
                tmp: np.ndarray) -> Any:  # pragma: no cover - compiled
    """Sign of 2 (S - q n) - n step, with S = p[:m] (all exact)."""
    for j in range(m):
        tmp[j] = p[j]
    k = m
    prod = q * n
    ah, al = nb_split(q)
    bh, bl = nb_split(n)
    err = ((ah * bh - prod) + ah * bl + al * bh) + al * bl
    k = nb_grow(tmp, k, -prod)
    k = nb_grow(tmp, k, -err)
    for j in range(k):
        tmp[j] = 2.0 * tmp[j]
    k = nb_grow(tmp, k, -(n * step))
    return nb_sign(tmp, k)


def nb_mean(p: np.ndarray, m: Any, n: Any, tmp: np.ndarray) -> Any:  # pragma: no cover - compiled
    """S / n correctly rounded (half to even); NaN when it cannot be decided here."""
    q = nb_round(p, m) / n
    if q != 0.0 and (abs(q) < 2.0 ** -900 or abs(q) > 2.0 ** 1000):
        return np.nan
    # fast path: E = S - q n exactly; its largest partial is E within a factor
    # 1 +- 2**-52 (the partials do not overlap), so |E| clearly below n/2 of the
    # distance to q's nearer neighbour proves q correctly rounded (no tie possible)
    for j in range(m):
        tmp[j] = p[j]
    prod = q * n
    ah, al = nb_split(q)
    bh, bl = nb_split(n)
    k = nb_grow(tmp, m, -prod)
    k = nb_grow(tmp, k, -(((ah * bh - prod) + ah * bl + al * bh) + al * bl))
    top = 0.0
    for j in range(k - 1, -1, -1):
        if tmp[j] != 0.0:
            top = tmp[j]
            break
    gap = min(np.nextafter(q, np.inf) - q, q - np.nextafter(q, -np.inf))
    if 2.0 * abs(top) < 0.98 * n * gap:
        return q
    for _ in range(4):
        up = np.nextafter(q, np.inf)
        c = nb_cmp_half(p, m, q, n, up - q, tmp)
        if c > 0:
            q = up
            continue
        if c == 0:  # a tie: the even one
            return q if (np.int64(np.float64(q).view(np.int64)) & 1) == 0 else up
        dn = np.nextafter(q, -np.inf)
        c = nb_cmp_half(p, m, q, n, dn - q, tmp)
        if c < 0:
            q = dn
            continue
        if c == 0:
            return q if (np.int64(np.float64(q).view(np.int64)) & 1) == 0 else dn
        return q
    return np.nan


def _nb_moving(x: np.ndarray, take: np.ndarray, start: np.ndarray, end: np.ndarray, mean: Any,
               out: np.ndarray, bad: np.ndarray) -> None:  # pragma: no cover - compiled
    """Exact sum (``mean`` False) or mean of every window's taking-part values.

    ``bad[i]`` is set where the output must be recomputed (out of the safe range).
    """
    p = np.empty(MAXP, np.float64)
    tmp = np.empty(MAXP + 4, np.float64)
    m = 0
    cnt = 0
    cs = 0
    ce = 0
    lo_ok = 2.0 ** -960
    hi_ok = 2.0 ** 1000
    for i in range(start.shape[0]):
        s = start[i]
        e = end[i]
        if s >= ce or m > MAXP - 4:  # disjoint, or a long expansion: start afresh
            m = 0
            cnt = 0
            cs = s
            ce = s
        while cs < s:
            if take[cs]:
                v = x[cs]
                if v != 0.0:
                    m = nb_grow(p, m, -v)
                cnt -= 1
            cs += 1
        while ce < e:
            if take[ce]:
                v = x[ce]
                a = abs(v)
                if v != 0.0 and (a < lo_ok or a > hi_ok):
                    bad[i] = True
                if v != 0.0:
                    m = nb_grow(p, m, v)
                cnt += 1
            ce += 1
        if m > MAXP - 4:
            bad[i] = True
            continue
        if mean:
            out[i] = nb_mean(p, m, np.float64(cnt), tmp) if cnt > 0 else np.nan
            if cnt > 0 and out[i] != out[i]:
                bad[i] = True
        else:
            out[i] = nb_round(p, m)

# ------------------------------------------------------------ binned exact moving sums
# The common case of exact moving sums: finite float64 data whose exponents span a
# modest range. Every value splits exactly into pieces on a fixed grid of two bins
# (bin k holds multiples of 2**b_k; (r + C_k) - C_k rounds r to the bin's grid, and r
# minus it is exact); a bin's accumulator is a double holding an integer of at most
# 53 bits in its unit, so adding and removing pieces is exact: the accumulators are
# the window's exact sum, a function of its values alone. TwoSum of the two rounds it
# once and gives the exact error, which decides the mean's last bit (near a tie: the
# expansion's exact test). Wider exponent ranges use the expansion engine above.


def _nb_range(bits: np.ndarray, start: np.ndarray,
              end: np.ndarray) -> Any:  # pragma: no cover - compiled
    """(largest |x|, smallest nonzero |x|, infinities, widest window) over the non-NaN
    values of float64 data given by its ``bits``: integer reductions on |x|'s bits
    (ordered as |x|), which the compiler vectorises."""
    width = 0
    for i in range(start.shape[0]):
        width = max(width, end[i] - start[i])
    inf_bits = 0x7FF0000000000000
    big = 0
    small = 0x7FFFFFFFFFFFFFFF
    infs = 0
    for j in range(bits.shape[0]):
        a = bits[j] & 0x7FFFFFFFFFFFFFFF
        infs += a == inf_bits
        big = max(big, a if a < inf_bits else 0)
        small = min(small, a if a != 0 else 0x7FFFFFFFFFFFFFFF)
    return (np.int64(big).view(np.float64),
            np.int64(small).view(np.float64) if small < inf_bits else np.inf, infs > 0, width)


def _nb_binned(x: np.ndarray, bits: np.ndarray, fixed: Any, e0: Any, step: Any, span: Any,
               start: np.ndarray, end: np.ndarray, mean: Any, c0: Any, c1: Any, out: np.ndarray,
               cnt: np.ndarray,
               bad: np.ndarray) -> Any:  # pragma: no cover - compiled
    """Exact sum (``mean`` False) or mean of every window's non-NaN values on the two
    bins ``c0``, ``c1`` (see above). ``bad[i]``: recompute output i elsewhere.
    ``fixed``: the windows are ``(e0, step, span)`` (output ``i`` ends at ``e0 + i *
    step`` and spans ``span`` rows, clipped to the data: ``start``/``end`` unused).
    Returns -1 at a decreasing bound, else 1 if a NaN entered a window (0 if none)
    plus 2 if an output is bad, plus 4 if one of those NaNs is signaling, plus 8 if
    every row entered a window (then the NaNs seen are all of them)."""
    p = np.empty(4, np.float64)
    tmp = np.empty(8, np.float64)
    a0 = 0.0
    a1 = 0.0
    cs = 0
    ce = 0
    ps = 0
    pe = 0
    m = 0
    nz = 0
    seen = 0
    entered = 0
    n_x = x.shape[0]
    for i in range(out.shape[0]):
        if fixed:
            e = e0 + i * step
            s = e - span
            e = min(max(e, 0), n_x)
            s = min(max(s, 0), e)
        else:
            s = start[i]
            e = end[i]
            if s < ps or e < pe:
                return -1
            ps = s
            pe = e
        if s >= ce:
            a0 = 0.0
            a1 = 0.0
            m = 0
            nz = 0
            cs = s
            ce = s
        while cs < s:
            v = x[cs]
            if v == v:
                h = (v + c0) - c0
                a0 -= h
                a1 -= ((v - h) + c1) - c1
                m -= 1
                nz -= (v == 0.0) & (bits[cs] < 0)
            cs += 1
        while ce < e:
            v = x[ce]
            if v == v:
                h = (v + c0) - c0
                a0 += h
                a1 += ((v - h) + c1) - c1
                m += 1
                nz += (v == 0.0) & (bits[ce] < 0)
            else:
                seen |= 1 if bits[ce] & 0x0008000000000000 else 5  # 4: signaling
            ce += 1
            entered += 1
        cnt[i] = m
        if m > 0 and nz == m:  # -0.0 only when every value is -0.0
            out[i] = -0.0
            continue
        hi = a0 + a1  # TwoSum: hi the correctly rounded sum, lo its exact error
        bv = hi - a0
        lo = (a0 - (hi - bv)) + (a1 - bv)
        if not mean:
            out[i] = hi
            continue
        if m == 0:
            out[i] = np.nan
            continue
        n = np.float64(m)
        q = hi / n
        if q == 0.0:
            out[i] = q
            continue
        qb = np.int64(np.float64(q).view(np.int64)) & 0x7FFFFFFFFFFFFFFF
        ef = qb >> 52
        if ef < 124 or ef > 1983:  # |q| outside [2**-900, 2**960]
            bad[i] = True
            seen |= 2
            continue
        # hi - q n is exact (a division's remainder): one fused multiply-add
        r = _fma(-q, n, hi) + lo  # S - q n, within an ulp of itself
        # hi / n rounded S's error too (q is off by an ulp for about a quarter of the
        # outputs): q + r / n is S / n rounded once except near a tie, which the test
        # below sends on. No branch: a mispredicted one cost more than this.
        qn = q + r / n
        r -= (qn - q) * n  # exact: 0 or an ulp or two times a count
        q = qn
        qb = np.int64(np.float64(q).view(np.int64)) & 0x7FFFFFFFFFFFFFFF
        gap = np.int64(((qb >> 52) - 52) << 52).view(np.float64)  # ulp(q); half below 2**k
        if (qb & 0xFFFFFFFFFFFFF) == 0:
            gap *= 0.5
        if 2.0 * abs(r) < 0.98 * n * gap:
            out[i] = q
            continue
        # near a tie: the neighbour on r's side, checked the same way
        qi = np.int64(np.float64(q).view(np.int64))
        qc = np.int64(qi + 1 if (r > 0.0) == (q > 0.0) else qi - 1).view(np.float64)
        r -= (qc - q) * n  # exact: one ulp times a count
        qb = np.int64(np.float64(qc).view(np.int64)) & 0x7FFFFFFFFFFFFFFF
        gap = np.int64(((qb >> 52) - 52) << 52).view(np.float64)
        if (qb & 0xFFFFFFFFFFFFF) == 0:
            gap *= 0.5
        if 2.0 * abs(r) < 0.98 * n * gap:
            out[i] = qc
            continue
        k = 1
        p[0] = hi
        if lo != 0.0:
            p[0] = lo
            p[1] = hi
            k = 2
        q = nb_mean(p, k, n, tmp)
        out[i] = q
        if q != q:
            bad[i] = True
            seen |= 2
    if entered == n_x:
        seen |= 8
    return seen


def _nb_moving_columns(x: np.ndarray, take: np.ndarray, start: Any, end: Any, mean: Any,
                       out: np.ndarray, bad: np.ndarray) -> None:  # pragma: no cover
    """:func:`_nb_moving` for every column (``x[c]``, ``out[c]``, ``bad[c]``)."""
    for c in range(x.shape[0]):
        _nb_moving(x[c], take[c], start, end, mean, out[c], bad[c])


#: the expansion helpers other kernel modules bind (compiled here, see :func:`build`)
EXPANSION_HELPERS = ("nb_grow", "nb_round", "nb_sign", "nb_split", "nb_cmp_half",
                     "nb_mean")


def build() -> dict[str, Any]:
    """Compile the sum kernels."""
    globals()["_fma"] = fma_intrinsic()
    helpers = bind(globals(), EXPANSION_HELPERS)
    bind(globals(), ("_nb_moving",))
    return {**helpers, "moving": jit(nogil=True)(_nb_moving_columns),
            "range": jit(nogil=True)(_nb_range),
            "binned": jit(nogil=True)(_nb_binned)}


register("window_sums", build)


def moving_sum(x: np.ndarray, take: np.ndarray, start: np.ndarray, end: np.ndarray, *,
               mean: bool = False, compiled: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """(exact sum or mean of each window's taking-part float64 values, outputs to
    recompute elsewhere). An empty window's sum is +0.0 (its mean NaN); the sign of a
    zero result is the caller's (the expansion does not track -0.0). Several columns
    at once: ``x`` and ``take`` ``(ncols, n)`` give ``(ncols, nout)`` results."""
    one = np.ndim(x) == 1
    x = np.ascontiguousarray(x if not one else x[None], dtype=np.float64)
    take = np.ascontiguousarray(take if not one else take[None], dtype=np.bool_)
    start = np.ascontiguousarray(start, dtype=np.int64)
    end = np.ascontiguousarray(end, dtype=np.int64)
    out = np.zeros((x.shape[0], start.size), np.float64)
    bad = np.zeros((x.shape[0], start.size), np.bool_)
    fn = kernels("window_sums")["moving"] if compiled else _nb_moving_columns
    fn(x, take, start, end, mean, out, bad)
    return (out[0], bad[0]) if one else (out, bad)


def binned_sum(x: np.ndarray, start: Any, end: np.ndarray | None, out: np.ndarray,
               cnt: np.ndarray, bad: np.ndarray, *, mean: bool = False,
               compiled: bool = True) -> int:
    """Fill ``out`` (the exact sum or mean of each window's non-NaN values of a native
    float64 column), ``cnt`` (those values) and ``bad`` (outputs to recompute
    elsewhere; False beforehand), see :func:`_nb_binned`. ``start`` may be a
    :class:`nanaccess.core.window.bounds.FixedWindows` (``end`` None: no bound
    arrays). Returns -1 where the bins do not apply (an infinity, an exponent range
    too wide for two bins, decreasing bounds), else bit 0: a NaN entered a window,
    bit 1: an output is bad, bit 2: one of those NaNs is signaling, bit 3: every row
    entered a window."""
    fns = kernels("window_sums") if compiled else {"range": _nb_range, "binned": _nb_binned}
    fixed = end is None
    if fixed:
        fw, start = start, np.zeros(0, np.int64)
        end = start
    start = np.ascontiguousarray(start, np.int64)
    end = np.ascontiguousarray(end, np.int64)
    big, small, inf, width = fns["range"](x.view(np.int64), start, end)
    if inf:
        return -1
    width = fw.width if fixed else int(width)
    e0, step, span = (fw.e0, fw.step, fw.span) if fixed else (0, 1, 0)
    lw = int(width + 2).bit_length()  # W + 2 <= 2**lw: headroom of every bin
    d = 52 - lw
    e_max = int(np.frexp(big)[1]) - 1 if big > 0 else -1074
    e_min = max(int(np.frexp(small)[1]) - 53, -1074) if small < np.inf else e_max
    b0 = max(e_max + lw - 50, e_min)
    # bin units 2**b (b >= -1074 keeps 1.5 * 2**(b + 52) normal, so the rounding trick
    # holds; a last bin closer than d only adds headroom); the data's last bit >= b1
    b1 = max(b0 - d, -1074)
    if b0 > 971 or d < 8 or b1 > e_min:
        return -1
    return int(fns["binned"](x, x.view(np.int64), fixed, e0, step, span, start, end,
                             bool(mean), 1.5 * 2.0 ** (b0 + 52), 1.5 * 2.0 ** (b1 + 52),
                             out, cnt, bad))
