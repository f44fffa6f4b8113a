"""The sliding-window selection kernel (the numba engine of :mod:`nanaccess.core.window`).

Each window's taking-part keys live in one sorted buffer: a value entering the
window is inserted at its binary-search place, a value leaving is found by binary
search and removed (keys are one-to-one with bits, so any equal key is the one to
remove). A rank is then one read of the buffer, so every rank of every statistic
(median, quantiles, min, max) costs O(1) per window, and a step costs O(log w) to
search plus a shift of the keys between the two places (a few cache lines for the
windows time series use). Windows must have non-decreasing starts and ends (fixed,
expanding and time-based windows all do); a window starting after the previous one
ended starts afresh.

The keys are the engine's totalOrder keys (remapped for "smallest"/"largest"), so
NaNs are placed by the policy, not by a second pass, and picked keys invert to the
stored bits. Plain Python over arrays, compiled through :mod:`nanaccess.core._numba`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import bind, jit, kernels, register

__all__ = ["slide_select", "moving_sum", "fused_select", "binned_sum"]


def _shift(buf, dst, src, count):  # pragma: no cover - replaced when compiled
    """``buf[dst:dst + count] = buf[src:src + count]`` for overlapping ranges (a
    ``memmove``: :func:`_memmove_intrinsic` once compiled)."""
    if count > 0:
        buf[dst:dst + count] = buf[src:src + count].copy()


def _memmove_intrinsic() -> Any:
    """``_shift`` as an LLVM ``memmove`` of the buffer's items (a loop numba compiles
    moves one key at a time)."""
    from numba import types
    from numba.core import cgutils
    from numba.extending import intrinsic

    @intrinsic
    def shift(typingctx, arr, dst, src, count):
        sig = types.void(arr, types.intp, types.intp, types.intp)

        def codegen(context, builder, signature, args):
            a, d, s, c = args
            aty = signature.args[0]
            ary = context.make_array(aty)(context, builder, a)
            size = context.get_abi_sizeof(context.get_data_type(aty.dtype))
            cgutils.raw_memmove(builder, cgutils.gep(builder, ary.data, d),
                                cgutils.gep(builder, ary.data, s), c, size)
            return context.get_dummy_value()

        return sig, codegen

    return shift


def _fma(a, b, c):  # pragma: no cover - replaced when compiled
    """a * b + c rounded once (LLVM's ``fma`` once compiled)."""
    from fractions import Fraction

    return float(Fraction(a) * Fraction(b) + Fraction(c))


def _fma_intrinsic() -> Any:
    """``_fma`` as LLVM's ``llvm.fma.f64`` (one instruction where the CPU has it)."""
    from llvmlite import ir
    from numba import types
    from numba.extending import intrinsic

    @intrinsic
    def fma(typingctx, a, b, c):
        sig = types.float64(types.float64, types.float64, types.float64)

        def codegen(context, builder, signature, args):
            d = ir.DoubleType()
            fn = builder.module.declare_intrinsic("llvm.fma", [d], ir.FunctionType(d, [d, d, d]))
            return builder.call(fn, args)

        return sig, codegen

    return fma


def _nb_lower(buf, m, k):  # pragma: no cover - compiled
    """First position of ``buf[:m]`` holding a key >= k (branch-free halving: the
    comparisons of a search in random keys are unpredictable)."""
    if m == 0:
        return 0
    base = 0
    n = m
    while n > 1:
        half = n >> 1
        base = base + half if buf[base + half - 1] < k else base
        n -= half
    return base + (buf[base] < k)


def _nb_upper(buf, m, k):  # pragma: no cover - compiled
    """First position of ``buf[:m]`` holding a key > k."""
    if m == 0:
        return 0
    base = 0
    n = m
    while n > 1:
        half = n >> 1
        base = base + half if buf[base + half - 1] <= k else base
        n -= half
    return base + (buf[base] <= k)


def _nb_remove(buf, m, k):  # pragma: no cover - compiled
    p = _nb_lower(buf, m, k)
    _shift(buf, p, p + 1, m - 1 - p)
    return m - 1


def _nb_insert(buf, m, k):  # pragma: no cover - compiled
    q = _nb_upper(buf, m, k)
    _shift(buf, q + 1, q, m - q)
    buf[q] = k
    return m + 1


def _nb_replace(buf, m, old, k):  # pragma: no cover - compiled
    """Remove ``old`` and insert ``k``: one shift of the keys between their places."""
    p = _nb_lower(buf, m, old)
    if k >= old:
        q = p + _nb_upper(buf[p:], m - p, k)  # > p: keys in (p, q) move down one place
        _shift(buf, p, p + 1, q - 1 - p)
        buf[q - 1] = k
    else:
        q = _nb_upper(buf, p, k)  # <= p: the keys in [q, p) move up one place
        _shift(buf, q + 1, q, p - q)
        buf[q] = k


def _nb_slide(keys, take, start, end, ranks, out, buf):  # pragma: no cover - compiled
    """Keys at ``ranks[i]`` (-1 or >= count: left as is) of window ``i``'s sorted keys.

    ``take[j]``: element j takes part (its key enters the buffer).
    """
    cs = 0
    ce = 0
    m = 0
    nr = ranks.shape[1]
    for i in range(start.shape[0]):
        s = start[i]
        e = end[i]
        if s >= ce:  # disjoint from the previous window: start afresh
            m = 0
            cs = s
            ce = s
        while cs < s and ce < e:  # one leaves, one enters: a single shift
            if take[cs] and take[ce]:
                _nb_replace(buf, m, keys[cs], keys[ce])
            elif take[cs]:
                m = _nb_remove(buf, m, keys[cs])
            elif take[ce]:
                m = _nb_insert(buf, m, keys[ce])
            cs += 1
            ce += 1
        while cs < s:
            if take[cs]:
                m = _nb_remove(buf, m, keys[cs])
            cs += 1
        while ce < e:
            if take[ce]:
                m = _nb_insert(buf, m, keys[ce])
            ce += 1
        for t in range(nr):
            r = ranks[i, t]
            if r >= 0 and r < m:
                out[i, t] = buf[r]


# ---------------------------------------------------------------- fused float selection
# The common case in one pass: float32/64 data without missing values whose NaNs the
# policy removes (or that hold none). Keys come from the bits as they are read, the
# window's count is the buffer's size, the ranks and weights are looked up in tables
# of rank_plan over every possible count, and the midpoint / lerp of
# nanaccess.core.interp is applied here (same operations, same order, so the same
# bits). MODE_PICK / MODE_MID / MODE_LERP as RankPlan.mode.

MODE_PICK, MODE_MID, MODE_LERP = 0, 1, 2
#: widest window placed by counting (wider: binary search)
LINEAR_MAX = 512


def _nb_mid(a, b, half, nanv):  # pragma: no cover - compiled
    """interp.midpoint of two numbers of one float dtype (``x * 0.5`` is ``x / 2``
    bit for bit: one correctly rounded scaling, and no division)."""
    s = a + b
    if s - s == 0:
        return s * half
    if (s == s) and (a - a == 0) and (b - b == 0):  # overflow of finite values
        return a * half + b * half
    r = s * half
    return nanv if r != r else r


def _nb_lerp(a, b, t, ft, one, nanv):  # pragma: no cover - compiled
    """interp.lerp of two numbers (``t`` the float64 weight, ``ft`` it in a's dtype)."""
    if t == 0:
        return a
    diff = b - a
    if t >= 0.5:
        res = b - diff * (one - ft)
    else:
        res = a + diff * ft
    if diff - diff == 0:
        return res
    if (a - a == 0) and (b - b == 0):
        res = a * (one - ft) + b * ft
    if (a - a != 0) and a == b:  # between equal infinities
        res = a
    return nanv if res != res else res


def _nb_count2(buf, m, ko, ki):  # pragma: no cover - compiled
    """(keys < ko, keys <= ki) in ``buf[:m]``: one branch-free pass the compiler
    vectorises; for short windows faster than two dependent binary searches."""
    c1 = 0
    c2 = 0
    for j in range(m):
        c1 += buf[j] < ko
        c2 += buf[j] <= ki
    return c1, c2


def _nb_swap(buf, m, ko, ki, linear):  # pragma: no cover - compiled
    """Remove key ``ko`` and insert ``ki`` (``linear``: places by counting)."""
    if not linear:
        _nb_replace(buf, m, ko, ki)
        return
    p, q = _nb_count2(buf, m, ko, ki)
    if q > p:  # ki >= ko: the keys in (p, q) move down one place
        _shift(buf, p, p + 1, q - 1 - p)
        buf[q - 1] = ki
    else:
        _shift(buf, q + 1, q, p - q)
        buf[q] = ki


def _nb_drop(buf, m, ko, linear):  # pragma: no cover - compiled
    if not linear:
        return _nb_remove(buf, m, ko)
    p, _ = _nb_count2(buf, m, ko, ko)
    _shift(buf, p, p + 1, m - 1 - p)
    return m - 1


def _nb_add(buf, m, ki, linear):  # pragma: no cover - compiled
    if not linear:
        return _nb_insert(buf, m, ki)
    _, q = _nb_count2(buf, m, ki, ki)
    _shift(buf, q + 1, q, m - q)
    buf[q] = ki
    return m + 1


def _nb_fused(x, bits, sc, scb, imax, expmask, quiet, start, end, lo_t, hi_t, w_t, ft_t,
              mode, nanv, one, half, out, cnt, buf, linear):  # pragma: no cover - compiled
    """Order statistic of every window of a float column (NaNs take no rank).

    ``bits``: ``x``'s bits as ints; ``sc``/``scb``: a 2-element scratch of x's dtype
    and its int view (keys back to floats); ``lo_t``/``hi_t``/``w_t``/``ft_t``:
    ``(nq, W + 1)`` tables of the plan by count. Writes ``out`` ``(nq, nout)`` and
    ``cnt``. Returns -1 (nothing valid) at the first decreasing bound, else the NaNs
    seen in windows: bit 0 a NaN, bit 1 a signaling NaN (the caller decides whether
    the policy allows them).
    """
    seen = 0
    cs = 0
    ce = 0
    m = 0
    ps = 0
    pe = 0
    nq = lo_t.shape[0]
    for i in range(start.shape[0]):
        s = start[i]
        e = end[i]
        if s < ps or e < pe:
            return -1
        ps = s
        pe = e
        if s >= ce:
            m = 0
            cs = s
            ce = s
        while cs < s and ce < e:
            bo = np.int64(bits[cs])
            bi = np.int64(bits[ce])
            to = (bo & imax) <= expmask
            ti = (bi & imax) <= expmask
            ko = bo ^ ((bo >> 63) & imax)
            ki = bi ^ ((bi >> 63) & imax)
            if to and ti:
                _nb_swap(buf, m, ko, ki, linear)
            elif to:
                m = _nb_drop(buf, m, ko, linear)
            elif ti:
                m = _nb_add(buf, m, ki, linear)
            if not ti:
                seen |= 1 if (bi & quiet) != 0 else 3
            cs += 1
            ce += 1
        while cs < s:
            bo = np.int64(bits[cs])
            if (bo & imax) <= expmask:
                m = _nb_drop(buf, m, bo ^ ((bo >> 63) & imax), linear)
            cs += 1
        while ce < e:
            bi = np.int64(bits[ce])
            if (bi & imax) <= expmask:
                m = _nb_add(buf, m, bi ^ ((bi >> 63) & imax), linear)
            else:
                seen |= 1 if (bi & quiet) != 0 else 3
            ce += 1
        cnt[i] = m
        if m == 0:
            for t in range(nq):
                out[t, i] = nanv
            continue
        for t in range(nq):
            lo = lo_t[t, m]
            ka = buf[lo]
            scb[0] = ka ^ ((ka >> 63) & imax)
            a = sc[0]
            hi = hi_t[t, m]
            if mode == MODE_PICK or hi == lo:
                out[t, i] = a
                continue
            kb = buf[hi]
            scb[1] = kb ^ ((kb >> 63) & imax)
            b = sc[1]
            if mode == MODE_MID:
                out[t, i] = _nb_mid(a, b, half, nanv)
            else:
                out[t, i] = _nb_lerp(a, b, w_t[t, m], ft_t[t, m], one, nanv)
    return seen


# ------------------------------------------------------------------ exact moving sums
# The window's exact sum is a Shewchuk expansion (non-overlapping partials of
# increasing magnitude, as math.fsum keeps): a value entering is added, a value leaving
# is subtracted, both without rounding. Each output rounds the expansion once
# (math.fsum's final step: correct rounding, half to even); a mean divides it by the
# count with correct rounding (the exact remainder S - q*n decides q's last bit).
# Outputs whose inputs leave the safe range (|x| outside [2**-960, 2**1000]) or whose
# quotient is tiny are flagged: the caller recomputes them with the reference engine.

_MAXP = 48  # partials: the exponent range of the safe inputs needs at most ~40


def _nb_grow(p, m, x):  # pragma: no cover - compiled
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


def _nb_round(p, m):  # pragma: no cover - compiled
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


def _nb_sign(p, m):  # pragma: no cover - compiled
    """Sign of the expansion: that of its largest nonzero partial."""
    for j in range(m - 1, -1, -1):
        if p[j] > 0.0:
            return 1
        if p[j] < 0.0:
            return -1
    return 0


def _nb_split(a):  # pragma: no cover - compiled
    c = 134217729.0 * a
    hi = c - (c - a)
    return hi, a - hi


def _nb_cmp_half(p, m, q, n, step, tmp):  # pragma: no cover - compiled
    """Sign of 2 (S - q n) - n step, with S = p[:m] (all exact)."""
    for j in range(m):
        tmp[j] = p[j]
    k = m
    prod = q * n
    ah, al = _nb_split(q)
    bh, bl = _nb_split(n)
    err = ((ah * bh - prod) + ah * bl + al * bh) + al * bl
    k = _nb_grow(tmp, k, -prod)
    k = _nb_grow(tmp, k, -err)
    for j in range(k):
        tmp[j] = 2.0 * tmp[j]
    k = _nb_grow(tmp, k, -(n * step))
    return _nb_sign(tmp, k)


def _nb_mean(p, m, n, tmp):  # pragma: no cover - compiled
    """S / n correctly rounded (half to even); NaN when it cannot be decided here."""
    q = _nb_round(p, m) / n
    if q != 0.0 and (abs(q) < 2.0 ** -900 or abs(q) > 2.0 ** 1000):
        return np.nan
    # fast path: E = S - q n exactly; its largest partial is E within a factor
    # 1 +- 2**-52 (the partials do not overlap), so |E| clearly below n/2 of the
    # distance to q's nearer neighbour proves q correctly rounded (no tie possible)
    for j in range(m):
        tmp[j] = p[j]
    prod = q * n
    ah, al = _nb_split(q)
    bh, bl = _nb_split(n)
    k = _nb_grow(tmp, m, -prod)
    k = _nb_grow(tmp, k, -(((ah * bh - prod) + ah * bl + al * bh) + al * bl))
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
        c = _nb_cmp_half(p, m, q, n, up - q, tmp)
        if c > 0:
            q = up
            continue
        if c == 0:  # a tie: the even one
            return q if (np.int64(np.float64(q).view(np.int64)) & 1) == 0 else up
        dn = np.nextafter(q, -np.inf)
        c = _nb_cmp_half(p, m, q, n, dn - q, tmp)
        if c < 0:
            q = dn
            continue
        if c == 0:
            return q if (np.int64(np.float64(q).view(np.int64)) & 1) == 0 else dn
        return q
    return np.nan


def _nb_moving(x, take, start, end, mean, out, bad):  # pragma: no cover - compiled
    """Exact sum (``mean`` False) or mean of every window's taking-part values.

    ``bad[i]`` is set where the output must be recomputed (out of the safe range).
    """
    p = np.empty(_MAXP, np.float64)
    tmp = np.empty(_MAXP + 4, np.float64)
    m = 0
    cnt = 0
    cs = 0
    ce = 0
    lo_ok = 2.0 ** -960
    hi_ok = 2.0 ** 1000
    for i in range(start.shape[0]):
        s = start[i]
        e = end[i]
        if s >= ce or m > _MAXP - 4:  # disjoint, or a long expansion: start afresh
            m = 0
            cnt = 0
            cs = s
            ce = s
        while cs < s:
            if take[cs]:
                v = x[cs]
                if v != 0.0:
                    m = _nb_grow(p, m, -v)
                cnt -= 1
            cs += 1
        while ce < e:
            if take[ce]:
                v = x[ce]
                a = abs(v)
                if v != 0.0 and (a < lo_ok or a > hi_ok):
                    bad[i] = True
                if v != 0.0:
                    m = _nb_grow(p, m, v)
                cnt += 1
            ce += 1
        if m > _MAXP - 4:
            bad[i] = True
            continue
        if mean:
            out[i] = _nb_mean(p, m, np.float64(cnt), tmp) if cnt > 0 else np.nan
            if cnt > 0 and out[i] != out[i]:
                bad[i] = True
        else:
            out[i] = _nb_round(p, m)


def _nb_fused_columns(x, bits, sc, scb, imax, expmask, quiet, start, end, lo_t, hi_t, w_t,
                      ft_t, mode, nanv, one, half, out, cnt, buf,
                      linear):  # pragma: no cover - compiled
    """:func:`_nb_fused` for every row of ``x`` ``(ncols, n)`` into ``out[:, c]``
    ``(nq, ncols, nout)`` and ``cnt[c]``: -1 at once if a column gives -1, else the
    union of the NaN flags."""
    seen = 0
    for c in range(x.shape[0]):
        f = _nb_fused(x[c], bits[c], sc, scb, imax, expmask, quiet, start, end, lo_t, hi_t,
                      w_t, ft_t, mode, nanv, one, half, out[:, c], cnt[c], buf, linear)
        if f < 0:
            return -1
        seen |= f
    return seen


# ------------------------------------------------------------ binned exact moving sums
# The common case of exact moving sums: finite float64 data whose exponents span a
# modest range. Every value splits exactly into pieces on a fixed grid of two bins
# (bin k holds multiples of 2**b_k; (r + C_k) - C_k rounds r to the bin's grid, and r
# minus it is exact); a bin's accumulator is a double holding an integer of at most
# 53 bits in its unit, so adding and removing pieces is exact: the accumulators are
# the window's exact sum, a function of its values alone. TwoSum of the two rounds it
# once and gives the exact error, which decides the mean's last bit (near a tie: the
# expansion's exact test). Wider exponent ranges use the expansion engine above.


def _nb_range(bits, start, end):  # pragma: no cover - compiled
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


def _nb_binned(x, bits, start, end, mean, c0, c1, out, cnt, bad):  # pragma: no cover
    """Exact sum (``mean`` False) or mean of every window's non-NaN values on the two
    bins ``c0``, ``c1`` (see above). ``bad[i]``: recompute output i elsewhere.
    Returns -1 at a decreasing bound, else 1 if a NaN entered a window (0 if none)
    plus 2 if an output is bad."""
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
    for i in range(start.shape[0]):
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
                seen |= 1
            ce += 1
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
        gap = np.int64((ef - 52) << 52).view(np.float64)  # ulp(q); half below a power of 2
        if (qb & 0xFFFFFFFFFFFFF) == 0:
            gap *= 0.5
        # hi - q n is exact (a division's remainder): one fused multiply-add
        r = _fma(-q, n, hi) + lo  # S - q n, within an ulp of itself
        if 2.0 * abs(r) < 0.98 * n * gap:
            out[i] = q
            continue
        # hi / n rounded S's error too: the neighbour on r's side, checked the same way
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
        q = _nb_mean(p, k, n, tmp)
        out[i] = q
        if q != q:
            bad[i] = True
            seen |= 2
    return seen


def _nb_moving_columns(x, take, start, end, mean, out, bad):  # pragma: no cover
    """:func:`_nb_moving` for every column (``x[c]``, ``out[c]``, ``bad[c]``)."""
    for c in range(x.shape[0]):
        _nb_moving(x[c], take[c], start, end, mean, out[c], bad[c])


def _nb_slide_columns(keys, take, start, end, ranks, out, buf):  # pragma: no cover
    """:func:`_nb_slide` for every column (``keys[c]``, ``ranks[c]``, ``out[c]``)."""
    for c in range(keys.shape[0]):
        _nb_slide(keys[c], take[c], start, end, ranks[c], out[c], buf)


def build() -> dict[str, Any]:
    """Compile the sliding kernel."""
    globals()["_shift"] = _memmove_intrinsic()
    globals()["_fma"] = _fma_intrinsic()
    bind(globals(), ("_nb_lower", "_nb_upper", "_nb_remove", "_nb_insert", "_nb_replace",
                     "_nb_grow", "_nb_round", "_nb_sign", "_nb_split", "_nb_cmp_half",
                     "_nb_mean"))
    for name in ("_nb_count2", "_nb_swap", "_nb_drop", "_nb_add", "_nb_mid", "_nb_lerp"):
        # small, called per step or output: inlined into the kernel
        globals()[name] = jit(nogil=True, inline="always")(globals()[name])
    bind(globals(), ("_nb_slide", "_nb_moving", "_nb_fused"))
    return {"slide": jit(nogil=True)(_nb_slide_columns),
            "moving": jit(nogil=True)(_nb_moving_columns),
            "fused": jit(nogil=True)(_nb_fused_columns),
            "range": jit(nogil=True)(_nb_range),
            "binned": jit(nogil=True)(_nb_binned)}


register("window", build)


def slide_select(keys: np.ndarray, take: np.ndarray, start: np.ndarray, end: np.ndarray,
                 ranks: np.ndarray, *, compiled: bool = True) -> np.ndarray:
    """The keys at ``ranks`` ((nout, r) int64, -1: unused) of each window's taking-part
    keys, in ascending key order; unused ranks give 0. ``compiled`` False runs the
    kernel as plain Python (for tests of tiny inputs).

    Several columns at once: ``keys`` and ``take`` ``(ncols, n)``, ``ranks``
    ``(ncols, nout, r)``; the result is ``(ncols, nout, r)``.
    """
    one = np.ndim(keys) == 1
    keys = np.ascontiguousarray(keys if not one else keys[None])
    take = np.ascontiguousarray(take if not one else take[None], dtype=np.bool_)
    ranks = np.ascontiguousarray(ranks if not one else ranks[None], dtype=np.int64)
    start = np.ascontiguousarray(start, dtype=np.int64)
    end = np.ascontiguousarray(end, dtype=np.int64)
    out = np.zeros(ranks.shape, keys.dtype)
    width = int((end - start).max(initial=0))
    buf = np.empty(width + 1, keys.dtype)
    fn = kernels("window")["slide"] if compiled else _nb_slide_columns
    fn(keys, take, start, end, ranks, out, buf)
    return out[0] if one else out


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
    fn = kernels("window")["moving"] if compiled else _nb_moving_columns
    fn(x, take, start, end, mean, out, bad)
    return (out[0], bad[0]) if one else (out, bad)


def fused_select(x: np.ndarray, start: np.ndarray, end: np.ndarray, lo_t: np.ndarray,
                 hi_t: np.ndarray, w_t: np.ndarray, mode: int, out: np.ndarray,
                 cnt: np.ndarray, *, compiled: bool = True) -> int:
    """Fill ``out`` ``(nq, ncols, nout)`` and ``cnt`` ``(ncols, nout)`` with an order
    statistic of every window of each row of ``x`` ``(ncols, n)`` (float32/64, native),
    NaNs taking no rank, the plan's tables indexed by the window's count (see
    :func:`_nb_fused`). Returns -1 where the bounds are not monotone, else the NaN
    flags of all columns (bit 0 NaN, bit 1 signaling)."""
    dt = x.dtype
    it = np.dtype(f"i{dt.itemsize}")
    sc = np.zeros(2, dt)
    imax = np.iinfo(it).max
    expmask = int(np.array(np.inf, dt).view(it))
    quiet = 1 << (np.finfo(dt).nmant - 1)
    nanv = np.array(expmask | quiet, it).view(dt)[()]
    buf = np.empty(int(lo_t.shape[1]) + 1, np.int64)
    fn = kernels("window")["fused"] if compiled else _nb_fused_columns
    return int(fn(x, x.view(it), sc, sc.view(it), np.int64(imax), np.int64(expmask),
                  np.int64(quiet), np.ascontiguousarray(start, dtype=np.int64),
                  np.ascontiguousarray(end, dtype=np.int64),
                  np.ascontiguousarray(lo_t, np.int64), np.ascontiguousarray(hi_t, np.int64),
                  np.ascontiguousarray(w_t, np.float64), np.ascontiguousarray(w_t.astype(dt)),
                  int(mode), nanv, dt.type(1), dt.type(0.5), out, cnt, buf,
                  lo_t.shape[1] <= LINEAR_MAX + 1))


def binned_sum(x: np.ndarray, start: np.ndarray, end: np.ndarray, out: np.ndarray,
               cnt: np.ndarray, bad: np.ndarray, *, mean: bool = False,
               compiled: bool = True) -> int:
    """Fill ``out`` (the exact sum or mean of each window's non-NaN values of a native
    float64 column), ``cnt`` (those values) and ``bad`` (outputs to recompute
    elsewhere; False beforehand), see :func:`_nb_binned`. Returns -1 where the bins do
    not apply (an infinity, an exponent range too wide for two bins, decreasing
    bounds), else bit 0: a NaN entered a window, bit 1: an output is bad."""
    fns = kernels("window") if compiled else {"range": _nb_range, "binned": _nb_binned}
    start = np.ascontiguousarray(start, np.int64)
    end = np.ascontiguousarray(end, np.int64)
    big, small, inf, width = fns["range"](x.view(np.int64), start, end)
    if inf:
        return -1
    width = int(width)
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
    return int(fns["binned"](x, x.view(np.int64), start, end, bool(mean),
                             1.5 * 2.0 ** (b0 + 52), 1.5 * 2.0 ** (b1 + 52), out, cnt, bad))
