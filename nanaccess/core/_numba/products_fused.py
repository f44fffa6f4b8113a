"""Certified products in ``_L`` lanes: the front of :mod:`.products`.

The model of :mod:`.products` (a double-double ``hi + lo`` times an exact integer
exponent per lane, each factor's mantissa in ``[1, 2)`` multiplied in with an exact
product error, so each step errs by less than ``2**-104`` relative) with two changes
that let LLVM vectorise the map over the lanes: the product error is LLVM's fused
multiply-add (``fma(h, m, -fl(h m))``, the same exact error as Dekker's TwoProduct),
and a zero, infinity, NaN or subnormal factor is not decoded in the loop but marks
its segment (``flags`` 1), which the caller hands to :mod:`.products` (whose
branches decode them) and then to the exact product tree. The lanes are rescaled by
an exact power of two every ``_RENORM`` steps and multiplied together at the end
(``16 _L`` steps in the bound, as in :mod:`.products`); a segment is certified when
both ends of ``hi + lo -+ (2 n + 2 + 16 _L) 2**-104 hi`` round to one double, or,
for a subnormal product, to one multiple of ``2**-1074`` (:func:`_subnormal`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import bind, jit, register

__all__ = ["build", "fused_products"]

_MANT = 0xFFFFFFFFFFFFF
_ONE = 1023 << 52
_L = 32  # lanes: one chunk of _L factors is a map over them
_RENORM = 256  # steps of a lane between exact rescalings (hi < 2**256)


def _fma(a: Any, b: Any, c: Any) -> Any:  # pragma: no cover - replaced by LLVM's fma when compiled
    """``a * b + c`` rounded once (exact rational arithmetic uncompiled)."""
    from fractions import Fraction

    if not (math.isfinite(a) and math.isfinite(b) and math.isfinite(c)):
        return a * b + c
    return float(Fraction(a) * Fraction(b) + Fraction(c))


def _renorm(h: Any, lo: Any) -> Any:  # pragma: no cover - compiled
    """``(h', lo', k)`` with ``h = h' * 2**k`` exactly and ``h'`` in ``[1, 2)``."""
    k = np.int64((np.float64(h).view(np.uint64) >> np.uint64(52)) & np.uint64(2047)) - 1023
    f = np.uint64((1023 - k) << 52).view(np.float64)
    return h * f, lo * f, k


def _step(ub: Any, kp: Any, hs: np.ndarray, ls: np.ndarray, xs: np.ndarray, sp: np.ndarray,
          ng: np.ndarray, j: Any) -> None:  # pragma: no cover - compiled
    """One factor into lane ``j`` (the tail; the chunk loop spells it out)."""
    b = ub if kp else np.uint64(_ONE)
    ng[j] ^= b >> np.uint64(63)
    e = np.int64((b >> np.uint64(52)) & np.uint64(2047))
    sp[j] |= np.int64(e == 0) | np.int64(e == 2047)
    fm = np.uint64((b & np.uint64(_MANT)) | np.uint64(_ONE)).view(np.float64)
    xs[j] += e - 1023
    h = hs[j]
    p = h * fm
    t = _fma(h, fm, -p) + ls[j] * fm
    h = p + t
    ls[j] = t - (h - p)
    hs[j] = h


def _subnormal(hi: Any, lo: Any, d: Any, ex: Any) -> Any:  # pragma: no cover - compiled
    """``((hi + lo) 2**ex rounded to a multiple of 2**-1074, ok)`` for ``hi`` in
    ``[1, 2)``, ``-1075 <= ex < -1022`` and the exact product within ``d 2**ex`` of
    ``(hi + lo) 2**ex``: with ``k = ex + 1074``, ``y = hi 2**k`` (exact, below
    ``2**52``) is rounded to an integer ``m`` (moved by one where ``lo 2**k`` carries
    ``y`` past a half); the remainder ``y - m`` is exact (Sterbenz) and the whole
    interval ``y - m + (lo -+ d) 2**k`` must lie strictly within ``(-1/2, 1/2)`` (a
    margin of ``2**-30`` covers the few roundings, each below ``2**-52``), so that
    ``m`` is the nearest integer of every real in it: ``m 2**-1074`` is the correctly
    rounded product. Otherwise not ok (a tie or a too wide interval)."""
    k = ex + 1074
    y = math.ldexp(hi, k)
    m = np.float64(round(y))
    lk = math.ldexp(lo, k)
    dk = math.ldexp(d, k)
    r = (y - m) + lk  # y - m exact; lo may move the nearest integer by one
    if r > 0.5:
        m += 1.0
        r -= 1.0
    elif r < -0.5:
        m -= 1.0
        r += 1.0
    a = r - dk
    b = r + dk
    if a > -0.5 + 2.0**-30 and b < 0.5 - 2.0**-30:
        return math.ldexp(m, -1074), True
    return math.nan, False


def fused_products(ubits: np.ndarray, keep: np.ndarray, starts: np.ndarray, out: np.ndarray,
                   flags: np.ndarray) -> None:  # pragma: no cover - compiled
    """``out[s]``: the correctly rounded product of segment ``s`` (the values ``keep``
    marks; a value left out is read as 1.0), ``flags[s]``: 1 when not settled here (a
    special factor, an uncertain rounding, a subnormal result)."""
    hs = np.ones(_L)
    ls = np.zeros(_L)
    xs = np.zeros(_L, np.int64)
    sp = np.zeros(_L, np.int64)
    ng = np.zeros(_L, np.uint64)
    one = np.uint64(_ONE)
    for s in range(starts.size - 1):
        i0 = starts[s]
        i1 = starts[s + 1]
        for j in range(_L):
            hs[j] = 1.0
            ls[j] = 0.0
            xs[j] = 0
            sp[j] = 0
            ng[j] = 0
        full = i1 - (i1 - i0) % _L
        i = i0
        while i < full:
            stop = min(full, i + _L * _RENORM)
            while i < stop:
                ub = ubits[i : i + _L]
                kb = keep[i : i + _L]
                for j in range(_L):  # spelled out (no call): LLVM vectorises the map
                    b = ub[j] if kb[j] else one
                    ng[j] ^= b >> np.uint64(63)
                    e = np.int64((b >> np.uint64(52)) & np.uint64(2047))
                    sp[j] |= np.int64(e == 0) | np.int64(e == 2047)
                    fm = np.uint64((b & np.uint64(_MANT)) | one).view(np.float64)
                    xs[j] += e - 1023
                    h = hs[j]
                    p = h * fm
                    t = _fma(h, fm, -p) + ls[j] * fm
                    h = p + t
                    ls[j] = t - (h - p)
                    hs[j] = h
                i += _L
            for j in range(_L):
                hs[j], ls[j], k = _renorm(hs[j], ls[j])
                xs[j] += k
        for i in range(full, i1):
            _step(ubits[i], keep[i], hs, ls, xs, sp, ng, i - full)
        special = 0
        neg = np.uint64(0)
        for j in range(_L):
            special |= sp[j]
            neg ^= ng[j]
        if special:
            out[s] = math.nan
            flags[s] = 1
            continue
        hs[0], ls[0], k = _renorm(hs[0], ls[0])
        ex = xs[0] + k
        hi = hs[0]
        lo = ls[0]
        for j in range(1, _L):  # DW * DW
            p = hi * hs[j]
            err = _fma(hi, hs[j], -p) + (hi * ls[j] + lo * hs[j])
            hi = p + err
            lo = err - (hi - p)
            hi, lo, k = _renorm(hi, lo)
            ex += k + xs[j]
        n = i1 - i0
        d = (2.0 * n + 2.0 + 16.0 * _L) * 2.0**-104 * hi
        r1 = hi + (lo - d)
        r2 = hi + (lo + d)
        flags[s] = 0
        if ex + 1 <= -1075:
            val = 0.0
        elif ex < -1022:  # a subnormal result: the integer multiple of 2**-1074
            val, good = _subnormal(hi, lo, d, ex)
            flags[s] = 0 if good else 1
        elif r1 != r2:
            flags[s] = 1
            val = math.nan
        elif ex > 1023:
            val = math.inf
        else:
            # r * 2**ex: exact in the normal range; r = 2.0 at 2**1023 overflows
            val = math.ldexp(hi + lo, ex)
        out[s] = -val if neg else val


_HELPERS = ("_renorm", "_step", "_subnormal")


def build() -> dict[str, Any]:
    """Compile the kernel (LLVM's fma bound first)."""
    from .window_sums import fma_intrinsic

    globals()["_fma"] = fma_intrinsic()
    bind(globals(), _HELPERS)
    return {"products": jit(nogil=True)(fused_products)}


register("products_fused", build)
