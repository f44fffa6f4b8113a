"""The digit engine: exact per-row sums of ``mant * 2**exp`` terms, rounded once.

Every finite float is ``m * 2**e`` with an integer ``|m| < 2**53``. Each term is cut
into base ``2**26`` limbs at digit positions relative to a per-row base exponent,
limbs are accumulated per (digit, row) with :func:`numpy.bincount`, carries are
propagated with a loop over digit positions (vectorised over rows), and the result is
rounded half-even with integer operations. Means and variances long-divide the digit
vector. The integer helpers turn int64/uint64 rows into such terms.
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np

from .common import I64_MAX

W = 26  # bits per digit: limb products < 2**52 and long division stays in int64
_MASK = (1 << W) - 1
_BIN_CHUNK = 1 << 26  # limbs per bincount bin stay exact in float64 below 2**27


def float_terms(v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Finite float64 ``v`` -> (signed int64 mantissa, exponent) with v = m * 2**e."""
    bits = np.ascontiguousarray(v, dtype=np.float64).view(np.int64)
    biased = (bits >> 52) & 0x7FF
    m = (bits & ((1 << 52) - 1)) | ((biased > 0).astype(np.int64) << 52)
    e = np.maximum(biased, 1) - 1075
    return np.where(bits < 0, -m, m), e


def square_terms(v: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """Exact terms of ``v * v`` for finite float64 v: (mant, exp, mant bits), 3 per value."""
    m, e = float_terms(v)
    m = np.abs(m)
    mh, ml = m >> W, m & _MASK  # mh < 2**27, ml < 2**26
    mant = np.concatenate([mh * mh, 2 * mh * ml, ml * ml], axis=1)  # each < 2**54
    exp = np.concatenate([2 * e + 2 * W, 2 * e + W, 2 * e], axis=1)
    return mant, exp, 54


def int_square_terms(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """Exact terms of ``x * x`` for int64/uint64 x via a 21-bit three-way split."""
    if x.dtype.kind == "u":
        u = x.astype(np.uint64)
    else:
        s = x.astype(np.int64)
        u = np.where(s < 0, -(s.astype(np.uint64)), s.astype(np.uint64))  # wraps -2**63 right
    m21 = np.uint64((1 << 21) - 1)
    a = (u >> np.uint64(42)).astype(np.int64)
    b = ((u >> np.uint64(21)) & m21).astype(np.int64)
    c = (u & m21).astype(np.int64)
    mant = np.concatenate([a * a, 2 * a * b, 2 * a * c + b * b, 2 * b * c, c * c], axis=1)
    k = x.shape[1]
    exp = np.concatenate(
        [np.full((x.shape[0], k), s_, np.int64) for s_ in (84, 63, 42, 21, 0)], axis=1
    )
    return mant, exp, 45


def min_exp(mant: np.ndarray, exp: np.ndarray) -> np.ndarray:
    """Per-row smallest exponent of a nonzero term (0 for rows without one)."""
    if mant.shape[1] == 0:
        return np.zeros(mant.shape[0], np.int64)
    big = I64_MAX
    b = np.where(mant != 0, exp, big).min(axis=1)
    return np.where(b == big, 0, b)


def _accumulate(mant: np.ndarray, exp: np.ndarray, base: np.ndarray, mbits: int) -> np.ndarray:
    """Exact per-row sum of ``mant * 2**exp`` as unnormalised digits, shape (P, rows).

    ``|mant| < 2**mbits <= 2**62`` and ``exp >= base`` wherever ``mant != 0``; the value
    of the result is ``sum_j dig[j] * 2**(base + 26*j)``.
    """
    rows, k = mant.shape
    live = mant != 0
    rel = np.where(live, exp - base[:, None], 0)
    pos = rel // W
    r = rel - pos * W
    nl = -(-(mbits + W - 1) // W)  # limbs per term
    kk = max(k, 1)
    head = -(-(min(kk, _BIN_CHUNK).bit_length() + (kk // _BIN_CHUNK + 1).bit_length() + 2) // W)
    top = int(pos.max()) if pos.size else 0
    P = top + nl + head + 1
    dig = np.zeros(P * rows, dtype=np.int64)
    if k == 0 or rows == 0:
        return dig.reshape(P, rows)
    rowid = np.arange(rows, dtype=np.int64)[:, None]
    for c0 in range(0, k, _BIN_CHUNK):
        c1 = min(k, c0 + _BIN_CHUNK)
        a = np.abs(mant[:, c0:c1])
        neg = mant[:, c0:c1] < 0
        rc = r[:, c0:c1]
        idx = pos[:, c0:c1] * rows + rowid
        lo = W - rc
        limb = (a & ((np.int64(1) << lo) - 1)) << rc
        rest = a >> lo
        for j in range(nl):
            if j:
                limb = rest & _MASK
                rest = rest >> W
                idx = idx + rows
            wgt = np.where(neg, -limb, limb).astype(np.float64)
            dig += np.bincount(idx.ravel(), weights=wgt.ravel(), minlength=P * rows).astype(
                np.int64
            )
    return dig.reshape(P, rows)


def _carry(dig: np.ndarray) -> None:
    """Propagate carries in place: digits 0..P-2 into [0, 2**26), signed top digit."""
    for j in range(dig.shape[0] - 1):
        c = dig[j] >> W
        dig[j] &= _MASK
        dig[j + 1] += c


def normalize(dig: np.ndarray) -> np.ndarray:
    """Normalise in place to |value| with digits in [0, 2**26); return the sign mask."""
    _carry(dig)
    neg = dig[-1] < 0
    if neg.any():
        sub = -dig[:, neg]
        _carry(sub)
        dig[:, neg] = sub
    return cast("np.ndarray", neg)


def digits_of(mant: Any, exp: Any, mbits: Any, base: Any = None) -> Any:
    """(normalised |digits| (P, rows), negative mask, base) of the exact per-row sum."""
    if base is None:
        base = min_exp(mant, exp)
    dig = _accumulate(mant, exp, base, mbits)
    neg = normalize(dig)
    return dig, neg, base


def round_digits(dig: np.ndarray, base: np.ndarray, neg: np.ndarray,
                 sticky: Any = None) -> np.ndarray:
    """Round ``sum_j dig[j] 2**(base + 26 j)`` (+ a sticky tail) to float64, half-even.

    ``dig`` is normalised and non-negative; ``sticky`` marks rows whose true value has
    further nonzero bits below ``2**base`` (division remainders; the callers keep at
    least two spare digits below the rounding position, so only stickiness matters).
    """
    P, rows = dig.shape
    ar = np.arange(rows)
    nz = dig != 0
    anynz = nz.any(axis=0)
    h = (P - 1 - np.argmax(nz[::-1], axis=0)).astype(np.int64)
    dh = dig[h, ar]
    nb = np.frexp(dh.astype(np.float64))[1].astype(np.int64)  # bit length of the top digit
    msb = base + W * h + nb - 1
    L = np.maximum(msb - 52, -1074)  # exponent of the result's last place
    q = np.zeros(rows, dtype=np.int64)
    for k in range(3):
        j = h - k
        d = np.where(j >= 0, dig[np.maximum(j, 0), ar], 0)
        s = base + W * j - L
        q += np.where(s >= 0, d << np.minimum(np.maximum(s, 0), 63), d >> np.minimum(-s, 63))
    g = L - 1 - base  # guard bit position relative to base
    gd = np.maximum(g, 0) // W
    gb = np.maximum(g, 0) - gd * W
    # the guard digit may lie above every digit (tiny value, subnormal target): then
    # the guard bit is 0 and every digit is sticky
    inside = (g >= 0) & (gd < P)
    dg = dig[np.minimum(gd, P - 1), ar]
    guard = inside & (((dg >> gb) & 1) == 1)
    low = inside & ((dg & ((np.int64(1) << gb) - 1)) != 0)
    prefix = np.logical_or.accumulate(nz, axis=0)
    below = (g >= 0) & (gd >= 1) & prefix[np.minimum(np.maximum(gd - 1, 0), P - 1), ar]
    st = low | below
    if sticky is not None:
        st = st | sticky
    q += guard & (st | ((q & 1) == 1))
    with np.errstate(over="ignore"):
        res = np.ldexp(q.astype(np.float64), np.minimum(L, 2000).astype(np.int32))
    res = np.where(anynz, res, 0.0)
    return np.where(neg, -res, res)


def _divide(dig: np.ndarray, divisor: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Long division of normalised digits by a per-row divisor < 2**37: (quotient, rem != 0)."""
    out = np.empty_like(dig)
    rem = np.zeros(dig.shape[1], dtype=np.int64)
    for j in range(dig.shape[0] - 1, -1, -1):
        cur = (rem << W) + dig[j]
        qj = cur // divisor
        rem = cur - qj * divisor
        out[j] = qj
    return out, rem != 0


def _spare_digits(max_divisor_bits: int) -> int:
    """Zero digits to append below the value so a quotient keeps 55+ significant bits."""
    return -(-(56 + max_divisor_bits) // W) + 1


def div_round(dig: Any, base: Any, neg: Any, divisors: list[np.ndarray]) -> np.ndarray:
    """Correctly rounded ``value / prod(divisors)`` (chained exact long division)."""
    bits = sum(int(d.max()).bit_length() if d.size else 1 for d in divisors)
    e = _spare_digits(bits)
    dig = np.concatenate([np.zeros((e, dig.shape[1]), np.int64), dig])
    base = base - W * e
    sticky = np.zeros(dig.shape[1], dtype=bool)
    for d in divisors:
        if int(d.max(initial=1)) >= 1 << 37:
            raise ValueError("exact division supports counts below 2**37 per row")
        dig, s = _divide(dig, d)
        sticky |= s
    return round_digits(dig, base, neg, sticky)


def square_digits(dig: np.ndarray) -> np.ndarray:
    """Schoolbook square of normalised digits (P, rows) -> unnormalised (2P, rows)."""
    P, rows = dig.shape
    out = np.zeros((2 * P, rows), dtype=np.int64)
    live = np.flatnonzero(dig.any(axis=1))
    for i in live:
        out[i : i + P] += dig[i] * dig  # products < 2**52, at most P of them per digit
    return out


# ------------------------------------------------------------------- integer helpers


def int_hilo(x2: np.ndarray, w2: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """Exact row sums of integers as (hi, lo): value = hi * 2**32 + lo, 0 <= lo < 2**32."""
    rows, n = x2.shape
    hi = np.zeros(rows, np.int64)
    lo = np.zeros(rows, np.int64)
    small = x2.dtype.itemsize <= 4 or x2.dtype.kind == "b"
    step = 1 << 30
    for c0 in range(0, max(n, 1), step):
        blk = x2[:, c0 : c0 + step]
        if w2 is not None:
            blk = np.where(w2[:, c0 : c0 + step], blk, 0)
        if small:  # |x| < 2**32 and fewer than 2**31 of them: an int64 sum is exact
            s = blk.sum(axis=1, dtype=np.int64)
            h, low = s >> 32, s & 0xFFFFFFFF
        elif blk.dtype.kind == "u":
            u = blk.astype(np.uint64, copy=False)
            h = (u >> np.uint64(32)).astype(np.int64).sum(axis=1)
            low = (u & np.uint64(0xFFFFFFFF)).astype(np.int64).sum(axis=1)
        else:
            s = blk.astype(np.int64, copy=False)
            h = (s >> 32).sum(axis=1)
            low = (s & 0xFFFFFFFF).sum(axis=1)
        hi += h + (low >> 32)
        lo += low & 0xFFFFFFFF
        hi += lo >> 32
        lo &= 0xFFFFFFFF
    return hi, lo


def hilo_terms(hi: Any, lo: Any) -> tuple[np.ndarray, np.ndarray, int]:
    mant = np.stack([hi, lo], axis=1)
    exp = np.broadcast_to(np.array([32, 0], np.int64), mant.shape)
    return mant, exp, 63


def int_fits_float(x2: Any, w2: Any) -> bool:
    """True when every selected integer is exactly representable (|x| <= 2**53)."""
    if x2.dtype.itemsize <= 4 or x2.dtype.kind == "b" or x2.size == 0:
        return True
    blk = x2 if w2 is None else np.where(w2, x2, 0)
    lim = 1 << 53
    if blk.dtype.kind == "u":
        return int(blk.max()) <= lim
    return int(blk.max()) <= lim and int(blk.min()) >= -lim
