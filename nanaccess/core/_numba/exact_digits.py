"""Fixed-point digits of the compiled exact sums (:mod:`.exact`): the arithmetic on
the 32-bit digits (held in int64, units of ``2**-1074``) that the superaccumulator's
tables are flushed into, and the finishes that round a segment's exact sum, mean or
variance to float64 bits once, half-even.

A seam of :mod:`.exact`: its hot loops add mantissas into tables and flush them here;
these functions know nothing of tables, masks or NaNs. They are plain Python (testable
uncompiled) and compile as a group (:func:`build_helpers`), so their calls to one
another are compiled calls; :mod:`.exact` binds the compiled ones as its kernels'
globals.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import bind

__all__ = ["ND", "SCRATCH", "DIGIT_HELPERS", "build_helpers"]

#: 32-bit digits of a fixed-point sum (units 2**-1074): 2**(32*ND) > 2**2110 * headroom
ND = 72
#: int64 scratch digits of the variance's products
SCRATCH = 512
_M32 = 0xFFFFFFFF


# ------------------------------------------------------------------ fixed-point digits

def add_chunk(dig: np.ndarray, v: Any, shift: Any, neg: Any,
              rng: np.ndarray) -> None:  # pragma: no cover - compiled
    """Add (or subtract) ``v * 2**shift`` (``v`` < 2**64 unsigned) into ``dig``;
    ``rng[0]``/``rng[1]`` widen to the touched digit range."""
    d = shift >> 5
    r = shift & 31
    lo = np.int64(v & np.uint64(_M32))
    hi = np.int64(v >> np.uint64(32))
    t0 = lo << r
    t1 = hi << r
    a0 = t0 & _M32
    a1 = (t0 >> 32) + (t1 & _M32)
    a2 = t1 >> 32
    if neg:
        dig[d] -= a0
        dig[d + 1] -= a1
        dig[d + 2] -= a2
    else:
        dig[d] += a0
        dig[d + 1] += a1
        dig[d + 2] += a2
    if d < rng[0]:
        rng[0] = d
    if d + 2 > rng[1]:
        rng[1] = d + 2


def carry_digits(dig: np.ndarray, lo: Any, hi: Any) -> Any:  # pragma: no cover - compiled
    """Signed carry propagation over ``dig[lo:hi+1]`` (room above ``hi`` for the carry):
    digits below the top in [0, 2**32); returns the new top index (the sign digit)."""
    for j in range(lo, hi + 1):
        c = dig[j] >> 32
        dig[j] -= c << 32
        dig[j + 1] += c
    top = hi + 1
    while top > lo and (dig[top] == 0 or (dig[top] == -1 and dig[top - 1] >= 0x80000000)):
        if dig[top] == -1:  # fold the sign down: -2**32 + d == d - 2**32
            dig[top - 1] -= np.int64(1) << 32
        dig[top] = 0
        top -= 1
    return top


def magnitude_of(dig: np.ndarray, lo: Any, hi: Any) -> Any:  # pragma: no cover - compiled
    """Normalise ``dig[lo:hi+1]`` (signed) to its magnitude in place; returns
    (negative, top digit index or lo - 1 when zero)."""
    top = carry_digits(dig, lo, hi)
    neg = dig[top] < 0
    if neg:
        for j in range(lo, top + 1):
            dig[j] = -dig[j]
        top = carry_digits(dig, lo, top)
    while top >= lo and dig[top] == 0:
        top -= 1
    return neg, top


def bitlen(v: Any) -> Any:  # pragma: no cover - compiled
    n = 0
    while v > 0:
        v >>= 1
        n += 1
    return n


def round_bits(dig: np.ndarray, lo: Any, top: Any, e0: Any, neg: Any,
               sticky: Any) -> Any:  # pragma: no cover - compiled
    """float64 bits of ``(sum_j dig[j] 2**(32 j) + tail) * 2**e0``, rounded half-even.

    ``dig[lo:top+1]`` holds non-negative 32-bit digits (``top < lo``: zero); ``sticky``:
    a nonzero tail below ``2**e0`` (division remainders). Overflow gives inf."""
    sign = np.int64(1) << 63 if neg else np.int64(0)
    if top < lo:
        return sign
    msb = 32 * top + bitlen(dig[top]) - 1  # bit index of the leading one
    L = msb + e0 - 52
    if L < -1074:
        L = -1074
    sh = L - e0  # bits below the result's last place
    q = np.int64(0)
    if sh <= 0:  # exact: the value fits (only small integers reach here)
        for j in range(top, lo - 1, -1):
            q = (q << 32) | dig[j]
        q <<= -sh
    else:
        for j in range(top, lo - 1, -1):  # q = value >> sh (<= 53 bits)
            off = 32 * j - sh
            if off >= 0:
                q |= dig[j] << off
            elif off > -32:
                q |= dig[j] >> (-off)
        gpos = sh - 1
        gd = gpos >> 5
        guard = False
        if gd >= lo and gd <= top:
            guard = ((dig[gd] >> (gpos & 31)) & 1) == 1
            if (dig[gd] & ((np.int64(1) << (gpos & 31)) - 1)) != 0:
                sticky = True
        for j in range(lo, min(gd, top + 1)):
            if dig[j] != 0:
                sticky = True
                break
        if guard and (sticky or (q & 1) == 1):
            q += 1
    if L + 1074 >= 2047:
        return np.int64(0x7FF0000000000000) | sign
    bits = ((np.int64(L) + 1074) << 52) + q
    if bits >= np.int64(0x7FF0000000000000):
        bits = np.int64(0x7FF0000000000000)
    return bits | sign


def divide_digits(dig: np.ndarray, lo: Any, top: Any, d: Any) -> Any:  # pragma: no cover - compiled
    """``dig[lo:top+1] //= d`` in place (d < 2**31); returns remainder != 0."""
    rem = np.int64(0)
    for j in range(top, lo - 1, -1):
        cur = (rem << 32) | dig[j]
        qj = cur // d
        rem = cur - qj * d
        dig[j] = qj
    return rem != 0


# ------------------------------------------------------------------ exact finishes

def copy_up(src: np.ndarray, lo: Any, top: Any, dst: np.ndarray,
            sp: Any) -> Any:  # pragma: no cover - compiled
    """dst[0:sp] = 0, dst[sp:sp+top-lo+1] = src[lo:top+1]; returns the top index in dst."""
    for i in range(sp):
        dst[i] = 0
    for j in range(lo, top + 1):
        dst[sp + j - lo] = src[j]
    return sp + top - lo


def add_shifted(dst: np.ndarray, src: np.ndarray, nsrc: Any, k: Any,
                sign: Any) -> None:  # pragma: no cover - compiled
    """dst += sign * (src[0:nsrc] << k bits) (src digits in [0, 2**32))."""
    ds = k >> 5
    r = k & 31
    for j in range(nsrc):
        d = src[j]
        if r == 0:
            dst[j + ds] += sign * d
        else:
            dst[j + ds] += sign * ((d << r) & _M32)
            dst[j + ds + 1] += sign * (d >> (32 - r))


def finish_sum(dig: Any, rng: np.ndarray) -> Any:  # pragma: no cover - compiled
    if rng[0] > rng[1]:
        return np.int64(0)
    neg, top = magnitude_of(dig, rng[0], rng[1])
    return round_bits(dig, rng[0], top, -1074, neg, False)


def finish_mean(dig: Any, rng: np.ndarray, count: Any,
                scr: np.ndarray) -> Any:  # pragma: no cover - compiled
    if rng[0] > rng[1] or count == 0:
        return np.int64(0)
    lo = rng[0]
    neg, top = magnitude_of(dig, lo, rng[1])
    if top < lo:
        return np.int64(0)
    sp = 4  # spare digits: the quotient keeps >= 55 significant bits
    t = copy_up(dig, lo, top, scr, sp)
    sticky = divide_digits(scr, 0, t, count)
    while t > 0 and scr[t] == 0:
        t -= 1
    return round_bits(scr, 0, t, -1074 + 32 * (lo - sp), neg, sticky)


def finish_var(dig: np.ndarray, rng: np.ndarray, qdig: np.ndarray, qrng: np.ndarray, count: Any,
               ddof: Any, scr: np.ndarray) -> Any:  # pragma: no cover - compiled
    """Exactly rounded (n*Q - S*S) / (n * (n - ddof)) (the caller rules out
    count - ddof <= 0)."""
    if qrng[0] > qrng[1]:
        return np.int64(0)
    lq = qrng[0]
    _, tq = magnitude_of(qdig, lq, qrng[1])
    if tq < lq:
        return np.int64(0)
    ls = rng[0] if rng[0] <= rng[1] else lq
    ts = ls - 1
    if rng[0] <= rng[1]:
        _, ts = magnitude_of(dig, ls, rng[1])
    nsq = 2 * (ts - ls + 1) + 1
    a = scr[0:nsq + 1]  # S*S, base 2**(2 * (-1074 + 32 ls))
    a[:] = 0
    for i in range(ls, ts + 1):
        di = np.uint64(dig[i])
        for j in range(ls, ts + 1):
            p = di * np.uint64(dig[j])
            a[i + j - 2 * ls] += np.int64(p & np.uint64(_M32))
            a[i + j - 2 * ls + 1] += np.int64(p >> np.uint64(32))
    carry_digits(a, 0, nsq - 1)
    nnq = tq - lq + 2
    b = scr[nsq + 1:nsq + 1 + nnq + 1]  # n*Q, base 2**(-1074 + 32 lq)
    b[:] = 0
    for j in range(lq, tq + 1):
        p = qdig[j] * count  # < 2**63
        b[j - lq] += p & _M32
        b[j - lq + 1] += p >> 32
    carry_digits(b, 0, nnq - 1)
    es2 = 2 * (-1074 + 32 * ls)
    eq = -1074 + 32 * lq
    e0 = min(es2, eq)
    sp = 5  # spare digits: two divisions by < 2**31 keep >= 55 bits
    off = nsq + nnq + 3
    num = scr[off:]
    kq = eq - e0 + 32 * sp
    ks = es2 - e0 + 32 * sp
    hi = max((kq >> 5) + nnq, (ks >> 5) + nsq) + 2
    num[0:hi + 2] = 0
    add_shifted(num, b, nnq, kq, 1)
    add_shifted(num, a, nsq, ks, -1)
    neg, t = magnitude_of(num, 0, hi)
    if t < 0:
        return np.int64(0)
    sticky = divide_digits(num, 0, t, count)
    sticky |= divide_digits(num, 0, t, count - ddof)
    while t > 0 and num[t] == 0:
        t -= 1
    return round_bits(num, 0, t, e0 - 32 * sp, neg, sticky)


def finish(stat: Any, dig: np.ndarray, rng: np.ndarray, qdig: np.ndarray, qrng: np.ndarray,
           count: Any, ddof: Any, scr: Any) -> Any:  # pragma: no cover - compiled
    """float64 bits of one segment's statistic (0 sum, 1 mean, 2 var); clears the
    digits."""
    if stat == 0:
        res = finish_sum(dig, rng)
    elif stat == 1:
        res = finish_mean(dig, rng, count, scr)
    else:
        res = finish_var(dig, rng, qdig, qrng, count, ddof, scr)
    if rng[0] <= rng[1]:
        dig[rng[0]:min(rng[1] + 3, dig.shape[0])] = 0
    if qrng[0] <= qrng[1]:
        qdig[qrng[0]:min(qrng[1] + 3, qdig.shape[0])] = 0
    rng[0] = ND
    rng[1] = -1
    qrng[0] = ND
    qrng[1] = -1
    return res


#: the helpers compiled here, bound by :mod:`.exact` (and ``bitlen`` by
#: :mod:`.weighted_groups`)
DIGIT_HELPERS = ("add_chunk", "carry_digits", "magnitude_of", "bitlen", "round_bits",
                 "divide_digits", "copy_up", "add_shifted", "finish_sum", "finish_mean",
                 "finish_var", "finish")


def build_helpers() -> dict[str, Any]:
    """Compile the digit helpers in this module's namespace (their calls to one another
    compiled too); the compiled functions by name."""
    return bind(globals(), DIGIT_HELPERS)
