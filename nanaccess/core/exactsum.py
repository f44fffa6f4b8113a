"""Correctly rounded, permutation-invariant sums, means and variances.

Every moment statistic in nanaccess must give the same bits for every permutation of
its input. A floating-point sum in any fixed order cannot promise that, so this module
computes sums *exactly* and rounds once (round-half-even, like :func:`math.fsum`).
All functions reduce along the **last** axis; a 1-D input is one row and gives a 0-d
result, an input of shape ``(..., n)`` gives shape ``(...)``. Inputs must be free of
NaN and missing values: the caller removes those by passing ``where``. Inputs are never
modified; read-only arrays are fine.

Definitions
-----------
``exact_sum``
    Float input: the exact sum of the selected elements rounded once to float64.
    ``+inf`` and ``-inf`` together give the canonical NaN ``0x7FF8000000000000``, one
    kind of infinity gives that infinity, a finite sum beyond the float64 range gives
    ``+-inf`` as correct rounding does. The sum is ``-0.0`` only when every selected
    element is ``-0.0`` (as IEEE addition); an empty row sums to ``+0.0``.
    Integer/bool input: the exact sum as int64; :class:`OverflowError` naming the row
    when it does not fit (never a wrapped value).
``exact_mean``
    The exact sum divided by the count, rounded once (equal to :func:`statistics.mean`
    bit for bit on float data, and exact for int64 of any magnitude). Count 0 gives the
    canonical NaN; infinities as for the sum; an all ``-0.0`` row gives ``-0.0``
    (as NumPy; :func:`statistics.mean` gives ``0.0``, an equal number).
``exact_sum_of_squares``
    The exact sum of ``x * x`` rounded once.
``exact_var``
    The **exactly rounded variance**, ``round(sum((x - mu)**2) / (count - ddof))`` with
    ``mu`` the exact rational mean. It is computed as
    ``(n*Q - S*S) / (n * (n - ddof))`` with ``S`` the exact sum and ``Q`` the exact sum
    of squares held as big fixed-point integers, so nothing is rounded before the last
    step. This is better than the "round the mean, then sum squared deviations" recipe,
    which can be wrong by 50 % when the spread of the data is a few ulps of the mean,
    and it equals :func:`statistics.pvariance` (``ddof=0``) and
    :func:`statistics.variance` (``ddof=1``) bit for bit on float data, which are
    exactly rounded too. ``count - ddof <= 0`` or an infinity in the row gives the
    canonical NaN. A non-integer ``ddof`` is applied in floating point to the exactly
    rounded ``ddof=0`` variance (two more roundings, documented, rare).

How it works
------------
*Digit engine (exact, general).* Every finite float is ``m * 2**e`` with an integer
``|m| < 2**53``. Each term is cut into base ``2**26`` limbs placed at digit positions
``(e - base) // 26`` relative to a per-row base exponent (so narrow-range rows need few
digits), limbs are accumulated per (digit, row) with :func:`numpy.bincount` on float64
weights (exact while fewer than ``2**27`` limbs share a bin; longer inputs are chunked),
carries are propagated with a Python loop over *digit positions* (vectorised over rows),
and the top 53 bits plus guard and sticky bits are rounded half-even with integer
operations and :func:`numpy.ldexp` (subnormal results are exact, overflow gives inf).
Means and variances long-divide the digit vector by the count (again a loop over digit
positions) keeping a sticky remainder, then round once. Squares are exact: the 53-bit
mantissa is split in two halves and the partial products become terms.

*Extraction front end (fast, exact).* Bincounting every element is slow, so rows whose
values stay below ``2**990`` first go through Rump, Ogita and Oishi's error-free
vector extraction ("AccSum", SIAM J. Sci. Comput. 31(1), 2008): with
``sigma = 2**(M + ceil(log2(max|x|)))`` and ``2**M >= n + 2``, ``q = (sigma + x) - sigma``
is exact, the remainders ``x - q`` are exact, and ``sum(q)`` is exact in *any* order, so
NumPy's pairwise sum may compute it. Each level removes about ``53 - M`` bits; typical
data needs 2-4 levels. This runs on cache-sized blocks; each block reduces to a few
exact "level sums" per row that the digit engine then adds exactly. Squares go through
the same front end after an exact Veltkamp split (``x*x = xh*xh + 2*xh*xl + xl*xl``,
each product exact) for rows with every nonzero ``|x|`` in ``[2**-480, 2**480]``; other
rows use the digit engine directly.

Permutation invariance follows because every result is a function of the exact sum(s)
only. Integer sums split each value into 32-bit halves whose int64 sums cannot overflow.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

__all__ = [
    "exact_sum",
    "exact_mean",
    "exact_sum_of_squares",
    "exact_var",
    "ExactPartials",
    "exact_partials",
    "merge_partials",
    "round_sum",
    "round_mean",
    "round_var",
]

_W = 26  # bits per digit: limb products < 2**52 and long division stays in int64
_MASK = (1 << _W) - 1
_CANONICAL_NAN = float(np.array(0x7FF8000000000000, dtype=np.int64).view(np.float64))
_BLOCK = 1 << 15  # elements per block of the extraction front end (cache sized)
_SUM_SAFE = 2.0**990  # extraction needs sigma = 2**(M + ceil(log2 max)) finite
_SQ_HI = 2.0**480  # Veltkamp split and the squares' extraction stay finite
_SQ_LO = 2.0**-480  # ... and the low products do not underflow
_VELTKAMP = 134217729.0  # 2**27 + 1
_BIN_CHUNK = 1 << 26  # limbs per bincount bin stay exact in float64 below 2**27
_DIRECT_N = 8  # rows this short skip the extraction front end
_SMALL = 64  # inputs with at most this many elements take the Python-int path
_I64_MAX = (1 << 63) - 1
_SCALE = 1074  # 2**-1074 is the smallest float64 step: x * 2**1074 is an integer


# ----------------------------------------------------------------------------- input


def _prepare(x, where) -> tuple[np.ndarray, np.ndarray | None, tuple[int, ...], str]:
    """View x as ``(rows, n)``; broadcast ``where``; classify the dtype."""
    x = np.asarray(x)
    if x.ndim == 0:
        raise ValueError("exact sums reduce along the last axis: pass an array with ndim >= 1")
    kind = x.dtype.kind
    if kind == "f":
        if x.dtype.itemsize not in (2, 4, 8):
            raise TypeError(f"exact sums handle float16/32/64, not {x.dtype}")
        kind = "float"
    elif kind in "iub":
        kind = "int"
    else:
        raise TypeError(f"exact sums need float, int or bool data, not dtype {x.dtype}")
    lead = x.shape[:-1]
    x2 = x.reshape(math.prod(lead), x.shape[-1])
    w2 = None
    if where is not None:
        w = np.asarray(where)
        if w.dtype != np.bool_:
            raise TypeError(f"'where' must be a boolean array, not dtype {w.dtype}")
        w2 = np.broadcast_to(w, x.shape).reshape(x2.shape)
    return x2, w2, lead, kind


def _counts(x2: np.ndarray, w2: np.ndarray | None) -> np.ndarray:
    if w2 is None:
        return np.full(x2.shape[0], x2.shape[1], dtype=np.int64)
    return np.count_nonzero(w2, axis=1).astype(np.int64)


def _row_label(r: int, lead: tuple[int, ...]) -> str:
    if len(lead) <= 1:
        return f"row {r}"
    return f"row {tuple(int(i) for i in np.unravel_index(r, lead))}"


def _finish(res: np.ndarray, lead: tuple[int, ...]) -> np.ndarray:
    return res.reshape(lead)


# ------------------------------------------------------------------ digit engine


def _float_terms(v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Finite float64 ``v`` -> (signed int64 mantissa, exponent) with v = m * 2**e."""
    bits = np.ascontiguousarray(v, dtype=np.float64).view(np.int64)
    biased = (bits >> 52) & 0x7FF
    m = (bits & ((1 << 52) - 1)) | ((biased > 0).astype(np.int64) << 52)
    e = np.maximum(biased, 1) - 1075
    return np.where(bits < 0, -m, m), e


def _square_terms(v: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """Exact terms of ``v * v`` for finite float64 v: (mant, exp, mant bits), 3 per value."""
    m, e = _float_terms(v)
    m = np.abs(m)
    mh, ml = m >> _W, m & _MASK  # mh < 2**27, ml < 2**26
    mant = np.concatenate([mh * mh, 2 * mh * ml, ml * ml], axis=1)  # each < 2**54
    exp = np.concatenate([2 * e + 2 * _W, 2 * e + _W, 2 * e], axis=1)
    return mant, exp, 54


def _int_square_terms(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
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


def _min_exp(mant: np.ndarray, exp: np.ndarray) -> np.ndarray:
    """Per-row smallest exponent of a nonzero term (0 for rows without one)."""
    if mant.shape[1] == 0:
        return np.zeros(mant.shape[0], np.int64)
    big = _I64_MAX
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
    pos = rel // _W
    r = rel - pos * _W
    nl = -(-(mbits + _W - 1) // _W)  # limbs per term
    kk = max(k, 1)
    head = -(-(min(kk, _BIN_CHUNK).bit_length() + (kk // _BIN_CHUNK + 1).bit_length() + 2) // _W)
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
        lo = _W - rc
        limb = (a & ((np.int64(1) << lo) - 1)) << rc
        rest = a >> lo
        for j in range(nl):
            if j:
                limb = rest & _MASK
                rest = rest >> _W
                idx = idx + rows
            wgt = np.where(neg, -limb, limb).astype(np.float64)
            dig += np.bincount(idx.ravel(), weights=wgt.ravel(), minlength=P * rows).astype(
                np.int64
            )
    return dig.reshape(P, rows)


def _carry(dig: np.ndarray) -> None:
    """Propagate carries in place: digits 0..P-2 into [0, 2**26), signed top digit."""
    for j in range(dig.shape[0] - 1):
        c = dig[j] >> _W
        dig[j] &= _MASK
        dig[j + 1] += c


def _normalize(dig: np.ndarray) -> np.ndarray:
    """Normalise in place to |value| with digits in [0, 2**26); return the sign mask."""
    _carry(dig)
    neg = dig[-1] < 0
    if neg.any():
        sub = -dig[:, neg]
        _carry(sub)
        dig[:, neg] = sub
    return neg


def _digits(mant, exp, mbits, base=None):
    """(normalised |digits| (P, rows), negative mask, base) of the exact per-row sum."""
    if base is None:
        base = _min_exp(mant, exp)
    dig = _accumulate(mant, exp, base, mbits)
    neg = _normalize(dig)
    return dig, neg, base


def _round(dig: np.ndarray, base: np.ndarray, neg: np.ndarray, sticky=None) -> np.ndarray:
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
    msb = base + _W * h + nb - 1
    L = np.maximum(msb - 52, -1074)  # exponent of the result's last place
    q = np.zeros(rows, dtype=np.int64)
    for k in range(3):
        j = h - k
        d = np.where(j >= 0, dig[np.maximum(j, 0), ar], 0)
        s = base + _W * j - L
        q += np.where(s >= 0, d << np.minimum(np.maximum(s, 0), 63), d >> np.minimum(-s, 63))
    g = L - 1 - base  # guard bit position relative to base
    gd = np.maximum(g, 0) // _W
    gb = np.maximum(g, 0) - gd * _W
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
        cur = (rem << _W) + dig[j]
        qj = cur // divisor
        rem = cur - qj * divisor
        out[j] = qj
    return out, rem != 0


def _spare_digits(max_divisor_bits: int) -> int:
    """Zero digits to append below the value so a quotient keeps 55+ significant bits."""
    return -(-(56 + max_divisor_bits) // _W) + 1


def _div_round(dig, base, neg, divisors: list[np.ndarray]) -> np.ndarray:
    """Correctly rounded ``value / prod(divisors)`` (chained exact long division)."""
    bits = sum(int(d.max()).bit_length() if d.size else 1 for d in divisors)
    e = _spare_digits(bits)
    dig = np.concatenate([np.zeros((e, dig.shape[1]), np.int64), dig])
    base = base - _W * e
    sticky = np.zeros(dig.shape[1], dtype=bool)
    for d in divisors:
        if int(d.max(initial=1)) >= 1 << 37:
            raise ValueError("exact division supports counts below 2**37 per row")
        dig, s = _divide(dig, d)
        sticky |= s
    return _round(dig, base, neg, sticky)


def _square_digits(dig: np.ndarray) -> np.ndarray:
    """Schoolbook square of normalised digits (P, rows) -> unnormalised (2P, rows)."""
    P, rows = dig.shape
    out = np.zeros((2 * P, rows), dtype=np.int64)
    live = np.flatnonzero(dig.any(axis=1))
    for i in live:
        out[i : i + P] += dig[i] * dig  # products < 2**52, at most P of them per digit
    return out


# -------------------------------------------------------------- extraction front end


def _levels(xb: np.ndarray, mu: np.ndarray, out: list[np.ndarray]) -> None:
    """Error-free extraction (AccSum): append exact level sums of the rows of ``xb``.

    ``xb`` (float64, finite, owned) is consumed; ``mu`` is its per-row max ``|x|``.
    """
    M = max(2, (xb.shape[1] + 1).bit_length())  # 2**M >= n + 2
    t = np.empty_like(xb)
    while mu.any():
        sigma = np.ldexp(1.0, np.frexp(mu)[1] + M)[:, None]
        np.add(xb, sigma, out=t)
        np.subtract(t, sigma, out=t)
        out.append(t.sum(axis=1))
        np.subtract(xb, t, out=xb)
        mu = np.maximum(xb.max(axis=1), -xb.min(axis=1))


def _pad_stack(parts: list[tuple[int, int, list[np.ndarray]]], rows: int) -> np.ndarray:
    kmax = max((len(p[2]) for p in parts), default=0)
    T = np.zeros((rows, kmax), dtype=np.float64)
    for r0, r1, taus in parts:
        if taus:
            T[r0:r1, : len(taus)] = np.stack(taus, axis=1)
    return T


class _Scan:
    """Result of the front end: level sums, rows needing the digit engine, inf flags."""

    def __init__(self, rows: int):
        self.posinf = np.zeros(rows, bool)
        self.neginf = np.zeros(rows, bool)
        self.nan = np.zeros(rows, bool)
        self.raw = np.zeros(rows, bool)
        self.t_sum: np.ndarray | None = None
        self.t_sq: np.ndarray | None = None

    @property
    def nonfinite(self) -> np.ndarray:
        return self.posinf | self.neginf | self.nan


def _block(x2, w2, r0, r1, c0, c1) -> np.ndarray:
    blk = x2[r0:r1, c0:c1]
    if w2 is not None:
        return np.where(w2[r0:r1, c0:c1], blk, 0).astype(np.float64, copy=False)
    return blk.astype(np.float64, copy=True)


def _scan(x2: np.ndarray, w2: np.ndarray | None, want_sum: bool, want_sq: bool) -> _Scan:
    rows, n = x2.shape
    sc = _Scan(rows)
    if n == 0 or rows == 0:
        sc.t_sum = np.zeros((rows, 0)) if want_sum else None
        sc.t_sq = np.zeros((rows, 0)) if want_sq else None
        return sc
    direct = n <= _DIRECT_N
    cb = max(1, min(n, _BLOCK))
    rb = max(1, _BLOCK // cb)
    s_parts, q_parts = [], []
    for r0 in range(0, rows, rb):
        r1 = min(rows, r0 + rb)
        s_list: list[np.ndarray] = []
        q_list: list[np.ndarray] = []
        for c0 in range(0, n, cb):
            xb = _block(x2, w2, r0, r1, c0, min(n, c0 + cb))
            mu = np.maximum(xb.max(axis=1), -xb.min(axis=1))
            if not np.isfinite(mu).all():
                sc.posinf[r0:r1] |= (xb == np.inf).any(axis=1)
                sc.neginf[r0:r1] |= (xb == -np.inf).any(axis=1)
                sc.nan[r0:r1] |= np.isnan(xb).any(axis=1)
                xb[~np.isfinite(xb)] = 0.0
                mu = np.maximum(xb.max(axis=1), -xb.min(axis=1))
            if direct:
                bad = np.ones(r1 - r0, bool)
            elif want_sq:
                a = np.abs(xb)
                bad = (mu > _SQ_HI) | ((a < _SQ_LO) & (a != 0)).any(axis=1)
            else:
                bad = mu >= _SUM_SAFE
            if bad.any():
                sc.raw[r0:r1] |= bad
                if bad.all():
                    continue
                xb[bad] = 0.0
                mu = np.where(bad, 0.0, mu)
            if want_sq:
                c = xb * _VELTKAMP
                xh = c - (c - xb)
                xl = xb - xh
                sq = np.concatenate([xh * xh, 2.0 * xh * xl, xl * xl], axis=1)
                _levels(sq, np.maximum(sq.max(axis=1), -sq.min(axis=1)), q_list)
            if want_sum:
                _levels(xb, mu, s_list)
        s_parts.append((r0, r1, s_list))
        q_parts.append((r0, r1, q_list))
    if want_sum:
        sc.t_sum = _pad_stack(s_parts, rows)
    if want_sq:
        sc.t_sq = _pad_stack(q_parts, rows)
    return sc


def _raw_rows(x2, w2, rows_idx) -> np.ndarray:
    """The selected finite values of the given rows as float64, others zero."""
    xr = x2[rows_idx].astype(np.float64)
    if w2 is not None:
        xr = np.where(w2[rows_idx], xr, 0.0)
    xr[~np.isfinite(xr)] = 0.0
    return xr


def _negzero_rows(x2, w2, rows_idx) -> np.ndarray:
    """Rows (of rows_idx) whose selected elements are all -0.0 (and at least one)."""
    xr = x2[rows_idx]
    isnz = (xr == 0) & np.signbit(xr)
    if w2 is None:
        return isnz.all(axis=1) & (xr.shape[1] > 0)
    wr = w2[rows_idx]
    return (isnz | ~wr).all(axis=1) & wr.any(axis=1)


# ------------------------------------------------------------------- integer helpers


def _int_hilo(x2: np.ndarray, w2: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
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


def _hilo_terms(hi, lo) -> tuple[np.ndarray, np.ndarray, int]:
    mant = np.stack([hi, lo], axis=1)
    exp = np.broadcast_to(np.array([32, 0], np.int64), mant.shape)
    return mant, exp, 63


def _int_fits_float(x2, w2) -> bool:
    """True when every selected integer is exactly representable (|x| <= 2**53)."""
    if x2.dtype.itemsize <= 4 or x2.dtype.kind == "b" or x2.size == 0:
        return True
    blk = x2 if w2 is None else np.where(w2, x2, 0)
    lim = 1 << 53
    if blk.dtype.kind == "u":
        return int(blk.max()) <= lim
    return int(blk.max()) <= lim and int(blk.min()) >= -lim


# ------------------------------------------------------------------------ small inputs
# Below _SMALL elements in total, a few dozen NumPy calls cost far more than the data:
# Python integers are exact and ``int / int`` is correctly rounded, so these paths give
# the same bits as the vectorised engine (the tests check both against Fraction).


def _idiv(a: int, b: int) -> float:
    """Correctly rounded a / b for Python ints (b > 0), overflow -> +-inf."""
    try:
        return a / b
    except OverflowError:
        return math.inf if a > 0 else -math.inf


class _Row:
    __slots__ = ("s", "q", "count", "posinf", "neginf", "nan", "negzero")

    def __init__(self, row: list, is_float: bool, squares: bool):
        self.s = self.q = 0
        self.count = len(row)
        self.posinf = self.neginf = self.nan = False
        self.negzero = is_float and bool(row)
        for v in row:
            if is_float:
                if v != v:
                    self.nan = True
                    continue
                if v in (math.inf, -math.inf):
                    self.posinf |= v > 0
                    self.neginf |= v < 0
                    continue
                if self.negzero and not (v == 0 and math.copysign(1.0, v) < 0):
                    self.negzero = False
                num, den = v.as_integer_ratio()
                k = num << (_SCALE + 1 - den.bit_length())
            else:
                k = int(v)
            self.s += k
            if squares:
                self.q += k * k


def _small_rows(x2, w2) -> list[list]:
    vals = x2.tolist()
    if w2 is None:
        return vals
    return [
        [v for v, k in zip(row, sel, strict=True) if k]
        for row, sel in zip(vals, w2.tolist(), strict=True)
    ]


def _small(x2, w2, lead, kind: str, stat: str, ddof: float = 0) -> np.ndarray:
    is_float = kind == "float"
    scale = _SCALE if is_float else 0
    out = []
    for r, row in enumerate(_small_rows(x2, w2)):
        a = _Row(row, is_float, stat in ("sumsq", "var"))
        n = a.count
        if a.nan or (a.posinf and a.neginf and stat != "sumsq"):
            out.append(_CANONICAL_NAN)
        elif stat == "sum" and not is_float:
            if not -(1 << 63) <= a.s <= _I64_MAX:
                raise OverflowError(
                    f"exact integer sum of {_row_label(r, lead)} is {a.s}, which does not fit "
                    "in int64"
                )
            out.append(a.s)
        elif stat == "var":
            if a.posinf or a.neginf or n - ddof <= 0:
                out.append(_CANONICAL_NAN)
                continue
            num = n * a.q - a.s * a.s
            if float(ddof) == int(ddof):
                out.append(_idiv(num, (n * (n - int(ddof))) << (2 * scale)))
            else:
                out.append(_idiv(num, (n * n) << (2 * scale)) * n / (n - ddof))
        elif a.posinf or a.neginf:
            out.append(math.inf if stat == "sumsq" or a.posinf else -math.inf)
        elif stat == "sumsq":
            out.append(_idiv(a.q, 1 << (2 * scale)))
        elif stat == "mean" and n == 0:
            out.append(_CANONICAL_NAN)
        elif a.s == 0:
            out.append(-0.0 if a.negzero else 0.0)
        else:
            out.append(_idiv(a.s, (n if stat == "mean" else 1) << scale))
    dtype = np.int64 if (stat == "sum" and not is_float) else np.float64
    return np.array(out, dtype=dtype).reshape(lead)


# ------------------------------------------------------------------------ public API


def exact_sum(x: np.ndarray, where: np.ndarray | None = None) -> np.ndarray:
    """Correctly rounded (float) or exact (integer) sum along the last axis.

    Parameters
    ----------
    x : numpy.ndarray
        float16/32/64, integer or bool data of shape ``(..., n)``; NaN-free where
        selected (a selected NaN gives the canonical NaN).
    where : numpy.ndarray of bool, optional
        Elements to include, broadcastable to ``x``; default all.

    Returns
    -------
    numpy.ndarray
        Shape ``x.shape[:-1]``: float64 for float input (the exact sum rounded once,
        half-even; ``+inf`` with ``-inf`` gives the canonical NaN), int64 for
        integer/bool input.

    Raises
    ------
    OverflowError
        An integer row sum does not fit in int64; the message names the row.

    Examples
    --------
    >>> import numpy as np
    >>> from nanaccess.core.exactsum import exact_sum
    >>> float(exact_sum(np.array([1.0, 1e100, 1.0, -1e100])))
    2.0
    >>> float(exact_sum(np.array([1e308, 1e308, -1e308])))
    1e+308
    >>> exact_sum(np.array([[0.1, 0.2, 0.3], [1.0, 2.0, 3.0]]), where=np.array([True, True, False]))
    array([0.3, 3. ])
    >>> exact_sum(np.array([2**62, 2**62, -(2**62)], dtype=np.int64))
    array(4611686018427387904)
    """
    x2, w2, lead, kind = _prepare(x, where)
    rows = x2.shape[0]
    if x2.size <= _SMALL:
        return _small(x2, w2, lead, kind, "sum")
    if kind == "int":
        hi, lo = _int_hilo(x2, w2)
        bad = (hi < -(1 << 31)) | (hi >= 1 << 31)
        if bad.any():
            r = int(np.flatnonzero(bad)[0])
            value = int(hi[r]) * (1 << 32) + int(lo[r])
            raise OverflowError(
                f"exact integer sum of {_row_label(r, lead)} is {value}, which does not fit "
                f"in int64 ({int(bad.sum())} of {rows} rows overflow)"
            )
        return _finish((hi << 32) + lo, lead)
    sc = _scan(x2, w2, want_sum=True, want_sq=False)
    mant, exp = _float_terms(sc.t_sum)
    dig, neg, base = _digits(mant, exp, 53)
    res = _round(dig, base, neg)
    raw = np.flatnonzero(sc.raw & ~sc.nonfinite)
    if raw.size:
        mant, exp = _float_terms(_raw_rows(x2, w2, raw))
        dig, neg, base = _digits(mant, exp, 53)
        res[raw] = _round(dig, base, neg)
    res = _apply_inf(res, sc)
    zero = np.flatnonzero((res == 0) & ~np.signbit(res))  # exact zero or + underflow
    if zero.size:
        res[zero] = np.where(_negzero_rows(x2, w2, zero), -0.0, 0.0)
    return _finish(res, lead)


def _apply_inf(res: np.ndarray, sc: _Scan) -> np.ndarray:
    res = np.where(sc.posinf, np.inf, res)
    res = np.where(sc.neginf, -np.inf, res)
    return np.where((sc.posinf & sc.neginf) | sc.nan, _CANONICAL_NAN, res)


def exact_mean(x: np.ndarray, where: np.ndarray | None = None) -> np.ndarray:
    """Correctly rounded mean (exact sum / count, rounded once) along the last axis.

    Parameters
    ----------
    x : numpy.ndarray
        float16/32/64, integer (any int64/uint64 magnitude) or bool data, ``(..., n)``.
    where : numpy.ndarray of bool, optional
        Elements to include, broadcastable to ``x``; default all.

    Returns
    -------
    numpy.ndarray
        float64 of shape ``x.shape[:-1]``; a row with count 0 gives the canonical NaN.

    Examples
    --------
    >>> import numpy as np
    >>> from nanaccess.core.exactsum import exact_mean
    >>> float(exact_mean(np.array([1e308, 1e308, -1e308])))
    3.333333333333333e+307
    >>> exact_mean(np.array([[1, 2], [3, 5]]), where=np.array([[True, True], [False, False]]))
    array([1.5, nan])
    >>> big = np.array([2**62 + 1, -(2**62), 1], dtype=np.int64)  # exact sum 2
    >>> float(exact_mean(big)), float(np.mean(big))  # NumPy rounds to float64 first
    (0.6666666666666666, 0.3333333333333333)
    """
    x2, w2, lead, kind = _prepare(x, where)
    if x2.size <= _SMALL:
        return _small(x2, w2, lead, kind, "mean")
    count = _counts(x2, w2)
    div = np.maximum(count, 1)
    if kind == "int":
        mant, exp, mb = _hilo_terms(*_int_hilo(x2, w2))
        dig, neg, base = _digits(mant, exp, mb)
        res = _div_round(dig, base, neg, [div])
        return _finish(np.where(count == 0, _CANONICAL_NAN, res), lead)
    sc = _scan(x2, w2, want_sum=True, want_sq=False)
    mant, exp = _float_terms(sc.t_sum)
    dig, neg, base = _digits(mant, exp, 53)
    res = _div_round(dig, base, neg, [div])
    raw = np.flatnonzero(sc.raw & ~sc.nonfinite)
    if raw.size:
        mant, exp = _float_terms(_raw_rows(x2, w2, raw))
        dig, neg, base = _digits(mant, exp, 53)
        res[raw] = _div_round(dig, base, neg, [div[raw]])
    res = _apply_inf(res, sc)
    zero = np.flatnonzero((res == 0) & ~np.signbit(res))  # exact zero or + underflow
    if zero.size:
        res[zero] = np.where(_negzero_rows(x2, w2, zero), -0.0, 0.0)
    return _finish(np.where(count == 0, _CANONICAL_NAN, res), lead)


def exact_sum_of_squares(x: np.ndarray, where: np.ndarray | None = None) -> np.ndarray:
    """Correctly rounded sum of ``x * x`` (every square exact) along the last axis.

    Parameters
    ----------
    x : numpy.ndarray
        float16/32/64, integer or bool data of shape ``(..., n)``.
    where : numpy.ndarray of bool, optional
        Elements to include, broadcastable to ``x``; default all.

    Returns
    -------
    numpy.ndarray
        float64 of shape ``x.shape[:-1]``; ``+inf`` when a selected value is infinite
        or the sum exceeds the float64 range; ``+0.0`` for an empty row.

    Examples
    --------
    >>> import numpy as np
    >>> from nanaccess.core.exactsum import exact_sum_of_squares
    >>> float(exact_sum_of_squares(np.array([3.0, 4.0])))
    25.0
    >>> float(exact_sum_of_squares(np.array([1e-200, 1e200])))
    inf
    >>> float(exact_sum_of_squares(np.array([1 + 2**-52, -1.0])))  # (1+u)^2 + 1, exactly
    2.0000000000000004
    """
    x2, w2, lead, kind = _prepare(x, where)
    if x2.size <= _SMALL:
        return _small(x2, w2, lead, kind, "sumsq")
    if kind == "int" and not _int_fits_float(x2, w2):
        xi = x2 if w2 is None else np.where(w2, x2, 0)
        mant, exp, mb = _int_square_terms(xi)
        dig, neg, base = _digits(mant, exp, mb)
        return _finish(_round(dig, base, neg), lead)
    if kind == "int":
        x2 = x2.astype(np.float64)
    sc = _scan(x2, w2, want_sum=False, want_sq=True)
    mant, exp = _float_terms(sc.t_sq)
    dig, neg, base = _digits(mant, exp, 53)
    res = _round(dig, base, neg)
    raw = np.flatnonzero(sc.raw & ~sc.nonfinite)
    if raw.size:
        mant, exp, mb = _square_terms(_raw_rows(x2, w2, raw))
        dig, neg, base = _digits(mant, exp, mb)
        res[raw] = _round(dig, base, neg)
    res = np.where(sc.posinf | sc.neginf, np.inf, res)
    return _finish(np.where(sc.nan, _CANONICAL_NAN, res), lead)


def _var_rows(s_terms, q_terms, count, ddof_int: int | None, ddof: float) -> np.ndarray:
    """Exactly rounded variance from exact terms of S = sum(x) and Q = sum(x*x)."""
    s_mant, s_exp, s_mb = s_terms
    q_mant, q_exp, q_mb = q_terms
    b = np.minimum(2 * _min_exp(s_mant, s_exp), _min_exp(q_mant, q_exp))
    bs = b >> 1  # floor(b / 2): base of S, and 2*bs <= both natural bases
    bq = 2 * bs
    sd, _, _ = _digits(s_mant, s_exp, s_mb, bs)
    qd, _, _ = _digits(q_mant, q_exp, q_mb, bq)
    s2 = _square_digits(sd)
    P = max(qd.shape[0], s2.shape[0]) + 3
    num = np.zeros((P, qd.shape[1]), np.int64)
    num[: qd.shape[0]] = qd * count  # < 2**26 * 2**37
    num[: s2.shape[0]] -= s2
    neg = _normalize(num)
    if neg.any():  # pragma: no cover - n*Q >= S*S always holds exactly
        raise AssertionError("internal error: negative exact variance numerator")
    n = np.maximum(count, 1)
    if ddof_int is not None:
        den = np.maximum(count - ddof_int, 1)
        return _div_round(num, bq, neg, [n, den])
    pop = _div_round(num, bq, neg, [n, n])
    with np.errstate(divide="ignore", invalid="ignore"):
        return pop * count / (count - ddof)


def exact_var(x: np.ndarray, ddof: float = 0, where: np.ndarray | None = None) -> np.ndarray:
    """Exactly rounded variance ``sum((x - mu)**2) / (count - ddof)`` along the last axis.

    ``mu`` is the exact (rational) mean and the result is rounded once, so it is
    permutation invariant and equals :func:`statistics.pvariance` / ``variance`` bit
    for bit on float data.

    Parameters
    ----------
    x : numpy.ndarray
        float16/32/64, integer (any int64/uint64 magnitude) or bool data, ``(..., n)``.
    ddof : int or float, default 0
        Delta degrees of freedom. A non-integer ``ddof`` is applied to the exactly
        rounded ``ddof=0`` variance in floating point.
    where : numpy.ndarray of bool, optional
        Elements to include, broadcastable to ``x``; default all.

    Returns
    -------
    numpy.ndarray
        float64 of shape ``x.shape[:-1]``; canonical NaN where ``count - ddof <= 0``
        or a selected value is infinite.

    Examples
    --------
    >>> import numpy as np
    >>> from nanaccess.core.exactsum import exact_var
    >>> float(exact_var(np.array([1.0, 2.0, 3.0, 4.0])))
    1.25
    >>> float(exact_var(np.array([1.0, 2.0, 3.0, 4.0]), ddof=1))
    1.6666666666666667
    >>> x = np.array([1.0, 1.0 + 2**-52, 1.0 + 2**-52])  # spread of one ulp
    >>> bool(exact_var(x) == 2 * 2.0**-104 / 9)
    True
    >>> exact_var(np.array([5.0]), ddof=1)
    array(nan)
    """
    x2, w2, lead, kind = _prepare(x, where)
    if x2.size <= _SMALL:
        return _small(x2, w2, lead, kind, "var", ddof)
    count = _counts(x2, w2)
    ddof_int = int(ddof) if float(ddof) == int(ddof) else None
    if kind == "int" and not _int_fits_float(x2, w2):
        xi = x2 if w2 is None else np.where(w2, x2, 0)
        s_terms = _hilo_terms(*_int_hilo(x2, w2))
        res = _var_rows(s_terms, _int_square_terms(xi), count, ddof_int, ddof)
        return _finish(np.where(count - ddof <= 0, _CANONICAL_NAN, res), lead)
    if kind == "int":
        x2 = x2.astype(np.float64)
    sc = _scan(x2, w2, want_sum=True, want_sq=True)
    s_mant, s_exp = _float_terms(sc.t_sum)
    q_mant, q_exp = _float_terms(sc.t_sq)
    res = _var_rows((s_mant, s_exp, 53), (q_mant, q_exp, 53), count, ddof_int, ddof)
    raw = np.flatnonzero(sc.raw & ~sc.nonfinite)
    if raw.size:
        xr = _raw_rows(x2, w2, raw)
        s_mant, s_exp = _float_terms(xr)
        res[raw] = _var_rows((s_mant, s_exp, 53), _square_terms(xr), count[raw], ddof_int, ddof)
    bad = sc.nonfinite | (count - ddof <= 0)
    return _finish(np.where(bad, _CANONICAL_NAN, res), lead)


# ------------------------------------------------------------------ mergeable partials
# Distributed reductions (dask) need per-chunk partial results that merge exactly and
# round to the very bits of the one-shot functions above. A partial holds the exact
# sum S and the exact sum of squares Q of the selected elements as Python integers in
# units of 2**-1074 (S) and 2**-2148 (Q): every finite float64, and every product of
# two, is an integer multiple of those, so merging is integer addition and the final
# rounding is Python's correctly rounded ``int / int`` (the same rounding the small-input
# path above uses, and the tests check that path against the vectorised engine).


class ExactPartials(NamedTuple):
    """Mergeable exact partial sums of the rows of an array (see :func:`exact_partials`).

    Attributes
    ----------
    s : numpy.ndarray of object
        Per row, the exact sum of the selected finite values times ``2**1074`` (int).
    q : numpy.ndarray of object or None
        Per row, the exact sum of their squares times ``2**2148`` (int); ``None`` when
        squares were not requested.
    count : numpy.ndarray of int64
        Selected elements per row (infinities included).
    posinf, neginf, nan : numpy.ndarray of bool
        A selected ``+inf`` / ``-inf`` / NaN is present.
    negzero : numpy.ndarray of bool
        Every selected element is ``-0.0`` (vacuously true for an empty row).
    integer : bool
        The data were integers or booleans (sums are then int64, as :func:`exact_sum`).
    """

    s: np.ndarray
    q: np.ndarray | None
    count: np.ndarray
    posinf: np.ndarray
    neginf: np.ndarray
    nan: np.ndarray
    negzero: np.ndarray
    integer: bool


_Q_SCALE = 2 * _SCALE


def _terms_to_ints(mant: np.ndarray, exp: np.ndarray, mbits: int, scale: int) -> np.ndarray:
    """Exact per-row ``sum(mant * 2**exp) * 2**scale`` as Python ints (object array)."""
    rows = mant.shape[0]
    out = np.empty(rows, dtype=object)
    if rows == 0:
        return out
    dig, neg, base = _digits(mant, exp, mbits)
    cols = dig.T.tolist()
    for r in range(rows):
        v = 0
        for d in reversed(cols[r]):
            v = (v << _W) | d
        sh = int(base[r]) + scale
        if sh >= 0:
            v <<= sh
        else:  # pragma: no cover - every term is a multiple of 2**-scale
            if v & ((1 << -sh) - 1):
                raise AssertionError("internal error: partial sum below the fixed scale")
            v >>= -sh
        out[r] = -v if neg[r] else v
    return out


def exact_partials(x: np.ndarray, where: np.ndarray | None = None, *,
                   squares: bool = True) -> ExactPartials:
    """Exact, mergeable partial sums of the rows (last axis) of ``x``.

    Partials of disjoint parts of a row merge exactly with :func:`merge_partials`, and
    :func:`round_sum`, :func:`round_mean` and :func:`round_var` of the merged partials
    give the same bits as :func:`exact_sum`, :func:`exact_mean` and :func:`exact_var` of
    the whole row.

    Parameters
    ----------
    x : numpy.ndarray
        float16/32/64, integer or bool data of shape ``(..., n)``.
    where : numpy.ndarray of bool, optional
        Elements to include, broadcastable to ``x``; default all.
    squares : bool, default True
        Also compute the exact sums of squares (needed by :func:`round_var`).

    Returns
    -------
    ExactPartials
        Per-row fields of shape ``x.shape[:-1]``.

    Examples
    --------
    >>> import numpy as np
    >>> from nanaccess.core.exactsum import exact_partials, merge_partials, round_mean
    >>> a = exact_partials(np.array([1e100, 1.0]))
    >>> b = exact_partials(np.array([-1e100, 2.0]))
    >>> float(round_mean(merge_partials(a, b)))
    0.75
    """
    x2, w2, lead, kind = _prepare(x, where)
    rows = x2.shape[0]
    count = _counts(x2, w2)
    posinf = np.zeros(rows, bool)
    neginf = np.zeros(rows, bool)
    nan = np.zeros(rows, bool)
    q = None
    if kind == "int":
        hi, lo = _int_hilo(x2, w2)
        s = np.empty(rows, dtype=object)
        for r, (h, lw) in enumerate(zip(hi.tolist(), lo.tolist(), strict=True)):
            s[r] = ((h << 32) + lw) << _SCALE
        if squares:
            xi = x2 if w2 is None else np.where(w2, x2, 0)
            mant, exp, mb = _int_square_terms(xi)
            q = _terms_to_ints(mant, exp, mb, _Q_SCALE)
        negzero = count == 0
    else:
        sc = _scan(x2, w2, want_sum=True, want_sq=squares)
        mant, exp = _float_terms(sc.t_sum)
        s = _terms_to_ints(mant, exp, 53, _SCALE)
        if squares:
            mant, exp = _float_terms(sc.t_sq)
            q = _terms_to_ints(mant, exp, 53, _Q_SCALE)
        raw = np.flatnonzero(sc.raw & ~sc.nonfinite)
        if raw.size:
            xr = _raw_rows(x2, w2, raw)
            mant, exp = _float_terms(xr)
            s[raw] = _terms_to_ints(mant, exp, 53, _SCALE)
            if squares:
                mant, exp, mb = _square_terms(xr)
                q[raw] = _terms_to_ints(mant, exp, mb, _Q_SCALE)
        posinf, neginf, nan = sc.posinf, sc.neginf, sc.nan
        negzero = count == 0
        zero = np.flatnonzero((s == 0) & ~sc.nonfinite & (count > 0))
        if zero.size:
            negzero[zero] = _negzero_rows(x2, w2, zero)
    return ExactPartials(
        s.reshape(lead), None if q is None else q.reshape(lead), count.reshape(lead),
        posinf.reshape(lead), neginf.reshape(lead), nan.reshape(lead),
        np.asarray(negzero, bool).reshape(lead), kind == "int",
    )


def merge_partials(*parts: ExactPartials) -> ExactPartials:
    """Exact merge (elementwise addition) of partials of disjoint parts of the same rows.

    Parameters
    ----------
    *parts : ExactPartials
        One or more partials of equal row shapes.

    Returns
    -------
    ExactPartials
        The partials of the union of the parts.

    Examples
    --------
    >>> import numpy as np
    >>> from nanaccess.core.exactsum import exact_partials, merge_partials, round_sum
    >>> p = merge_partials(exact_partials(np.array([0.1, 0.2])), exact_partials(np.array([0.3])))
    >>> float(round_sum(p)) == 0.6
    True
    """
    if not parts:
        raise ValueError("merge_partials needs at least one partial")
    out = parts[0]
    for p in parts[1:]:
        out = ExactPartials(
            out.s + p.s,
            None if out.q is None or p.q is None else out.q + p.q,
            out.count + p.count,
            out.posinf | p.posinf,
            out.neginf | p.neginf,
            out.nan | p.nan,
            out.negzero & p.negzero,
            out.integer and p.integer,
        )
    return out


def _flat(p: ExactPartials):
    shape = np.shape(p.count)
    s = np.asarray(p.s, dtype=object).reshape(-1)
    q = None if p.q is None else np.asarray(p.q, dtype=object).reshape(-1)
    flags = [np.asarray(f, bool).reshape(-1) for f in (p.posinf, p.neginf, p.nan, p.negzero)]
    return shape, s, q, np.asarray(p.count, np.int64).reshape(-1), flags


def _round_rows(s, divisors, posinf, neginf, nan, negzero) -> np.ndarray:
    """Per row: exact ``s / divisor`` rounded once, after the IEEE special cases
    (NaN or both infinities -> canonical NaN, one infinity -> it, exact zero -> -0.0
    where ``negzero`` else +0.0)."""
    out = np.empty(s.size, np.float64)
    for r, (v, d) in enumerate(zip(s.tolist(), divisors, strict=True)):
        if nan[r] or (posinf[r] and neginf[r]):
            out[r] = _CANONICAL_NAN
        elif posinf[r] or neginf[r]:
            out[r] = math.inf if posinf[r] else -math.inf
        elif v == 0:
            out[r] = -0.0 if negzero[r] else 0.0
        else:
            out[r] = _idiv(v, d)
    return out


def round_sum(p: ExactPartials) -> np.ndarray:
    """The bits of :func:`exact_sum` from (merged) partials.

    Parameters
    ----------
    p : ExactPartials
        From :func:`exact_partials` / :func:`merge_partials`.

    Returns
    -------
    numpy.ndarray
        float64 (float data) or int64 (integer data), shape of the rows.

    Raises
    ------
    OverflowError
        An integer row sum does not fit in int64; the message names the row.

    Examples
    --------
    >>> import numpy as np
    >>> from nanaccess.core.exactsum import exact_partials, round_sum
    >>> float(round_sum(exact_partials(np.array([1.0, 1e100, 1.0, -1e100]))))
    2.0
    """
    shape, s, _q, count, (posinf, neginf, nan, negzero) = _flat(p)
    lead = tuple(shape)
    if p.integer:
        out = np.empty(s.size, np.int64)
        for r, v in enumerate(s.tolist()):
            v >>= _SCALE
            if not -(1 << 63) <= v <= _I64_MAX:
                raise OverflowError(
                    f"exact integer sum of {_row_label(r, lead)} is {v}, which does not fit "
                    "in int64"
                )
            out[r] = v
        return out.reshape(lead)
    divisors = [1 << _SCALE] * s.size
    return _round_rows(s, divisors, posinf, neginf, nan, negzero & (count > 0)).reshape(lead)


def round_mean(p: ExactPartials) -> np.ndarray:
    """The bits of :func:`exact_mean` from (merged) partials.

    Parameters
    ----------
    p : ExactPartials
        From :func:`exact_partials` / :func:`merge_partials`.

    Returns
    -------
    numpy.ndarray
        float64, shape of the rows; count 0 gives the canonical NaN.

    Examples
    --------
    >>> import numpy as np
    >>> from nanaccess.core.exactsum import exact_partials, round_mean
    >>> float(round_mean(exact_partials(np.array([1e308, 1e308, -1e308]))))
    3.333333333333333e+307
    """
    shape, s, _q, count, (posinf, neginf, nan, negzero) = _flat(p)
    divisors = [int(n) << _SCALE for n in count.tolist()]
    out = _round_rows(s, divisors, posinf, neginf, nan | (count == 0),
                      negzero & (not p.integer))
    return out.reshape(tuple(shape))


def round_var(p: ExactPartials, ddof: float = 0) -> np.ndarray:
    """The bits of :func:`exact_var` from (merged) partials with squares.

    Parameters
    ----------
    p : ExactPartials
        From :func:`exact_partials` (``squares=True``) / :func:`merge_partials`.
    ddof : int or float, default 0
        Delta degrees of freedom, as :func:`exact_var`.

    Returns
    -------
    numpy.ndarray
        float64, shape of the rows; canonical NaN where ``count - ddof <= 0`` or a
        selected value is infinite (or NaN).

    Examples
    --------
    >>> import numpy as np
    >>> from nanaccess.core.exactsum import exact_partials, round_var
    >>> float(round_var(exact_partials(np.array([1.0, 2.0, 3.0, 4.0])), ddof=1))
    1.6666666666666667
    """
    if p.q is None:
        raise ValueError("round_var needs partials computed with squares=True")
    shape, s, q, count, (posinf, neginf, nan, _nz) = _flat(p)
    ddof_int = int(ddof) if float(ddof) == int(ddof) else None
    out = np.empty(s.size, np.float64)
    frac = np.zeros(s.size, bool)
    for r, (sv, qv) in enumerate(zip(s.tolist(), q.tolist(), strict=True)):
        n = int(count[r])
        if nan[r] or posinf[r] or neginf[r] or n - ddof <= 0:
            out[r] = _CANONICAL_NAN
            continue
        num = n * qv - sv * sv
        if ddof_int is not None:
            out[r] = _idiv(num, (n * (n - ddof_int)) << _Q_SCALE)
        else:
            out[r] = _idiv(num, (n * n) << _Q_SCALE)
            frac[r] = True
    if frac.any():
        with np.errstate(divide="ignore", invalid="ignore"):
            adj = out * count / (count - ddof)
        out = np.where(frac, adj, out)
    return out.reshape(tuple(shape))
