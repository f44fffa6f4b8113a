"""Compiled certified products: the fast path of :mod:`nanaccess.core.higher.product`.

Per segment, the product is carried as a double-double ``hi + lo`` with ``hi`` in
``[1, 2)`` and a separate integer exponent (so it never overflows nor underflows on
the way), each factor's mantissa multiplied in by Dekker's TwoProduct. Each step's
relative error is below ``2**-104``, so after ``n`` factors the carried value is
within ``n * 2**-104`` of the exact product (relative). The result is certified when
both ends of ``hi + lo -+ 2 n 2**-104 hi`` round to the same double and the exponent
lies in the normal range (or far below it: zero); every other segment is flagged and
the exact product tree decides it. Zeros, infinities and the sign are counted apart.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import bind, jit, register

__all__ = ["build"]

_SPLIT = 134217729.0
_MANT = 0xFFFFFFFFFFFFF
_ONE = 1023 << 52
_L = 4  # independent lanes per segment
_RENORM = 256  # steps of a lane between exact rescalings (hi < 2**256)


def _two_product(a: Any, b: Any) -> Any:  # pragma: no cover - compiled
    p = a * b
    c = _SPLIT * a
    ah = c - (c - a)
    al = a - ah
    c = _SPLIT * b
    bh = c - (c - b)
    bl = b - bh
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _special(b: Any, st: np.ndarray) -> Any:  # pragma: no cover - compiled
    """A zero, infinity or subnormal factor (``st``: zero, inf flags and the extra
    exponent): ``(mantissa in [1, 2) or 0.0, exponent)``."""
    e = np.int64((b >> np.uint64(52)) & np.uint64(2047))
    m = b & np.uint64(_MANT)
    if e == 2047:
        st[1] = 1
        return 1.0, 0
    if m == 0:
        st[0] = 1
        return 1.0, 0
    sh = 0  # subnormal: normalise the mantissa to [1, 2)
    while (m >> np.uint64(52)) == 0:
        m <<= np.uint64(1)
        sh += 1
    m &= np.uint64(_MANT)
    return np.uint64(m | np.uint64(_ONE)).view(np.float64), 1 - sh - 1023


def _renorm(h: Any, lo: Any) -> Any:  # pragma: no cover - compiled
    """``(h', lo', k)`` with ``h = h' * 2**k`` exactly and ``h'`` in ``[1, 2)``."""
    k = np.int64((np.float64(h).view(np.uint64) >> np.uint64(52)) & np.uint64(2047)) - 1023
    f = np.uint64((1023 - k) << 52).view(np.float64)
    return h * f, lo * f, k


def products_kernel(ubits: np.ndarray, keep: np.ndarray, starts: np.ndarray, out: np.ndarray,
                    flags: np.ndarray) -> None:  # pragma: no cover - compiled
    """``out[s]``: the product of segment ``s`` (float64), ``flags[s]``: 1 when it is
    not certified (the caller's exact tree decides). ``keep[i]`` False: value ``i``
    is left out (read as 1.0; ``keep`` as long as ``ubits``).

    ``_L`` independent lanes (each a double-double times an exponent) take the
    factors in turn, so the dependent multiplications overlap; a lane's ``hi`` may
    grow past 2 for ``_RENORM`` steps before it is scaled back by an exact power of
    two (no branch per factor). The lanes are multiplied together at the end (three
    double-double products, counted as ``4 _L`` steps in the bound)."""
    hs = np.ones(_L)
    ls = np.zeros(_L)
    xs = np.zeros(_L, np.int64)
    st = np.zeros(2, np.int64)
    for s in range(starts.size - 1):
        i0 = starts[s]
        i1 = starts[s + 1]
        for j in range(_L):
            hs[j] = 1.0
            ls[j] = 0.0
            xs[j] = 0
        st[0] = 0
        st[1] = 0
        neg = np.uint64(0)
        full = i0 + (i1 - i0) - (i1 - i0) % _L
        i = i0
        while i < full:
            stop = min(full, i + _L * _RENORM)
            while i < stop:
                for j in range(_L):
                    b = ubits[i + j] if keep[i + j] else np.uint64(_ONE)
                    neg ^= b >> np.uint64(63)
                    e = np.int64((b >> np.uint64(52)) & np.uint64(2047))
                    if e == 0 or e == 2047:
                        fm, ee = _special(b, st)
                    else:
                        fm = np.uint64((b & np.uint64(_MANT)) | np.uint64(_ONE)).view(
                            np.float64)
                        ee = e - 1023
                    xs[j] += ee
                    p, err = _two_product(hs[j], fm)
                    t = err + ls[j] * fm
                    h = p + t
                    ls[j] = t - (h - p)
                    hs[j] = h
                i += _L
            for j in range(_L):
                hs[j], ls[j], k = _renorm(hs[j], ls[j])
                xs[j] += k
        for i in range(full, i1):
            b = ubits[i] if keep[i] else np.uint64(_ONE)
            neg ^= b >> np.uint64(63)
            e = np.int64((b >> np.uint64(52)) & np.uint64(2047))
            if e == 0 or e == 2047:
                fm, ee = _special(b, st)
            else:
                fm = np.uint64((b & np.uint64(_MANT)) | np.uint64(_ONE)).view(np.float64)
                ee = e - 1023
            xs[0] += ee
            p, err = _two_product(hs[0], fm)
            t = err + ls[0] * fm
            h = p + t
            ls[0] = t - (h - p)
            hs[0] = h
        hs[0], ls[0], k = _renorm(hs[0], ls[0])
        ex = xs[0] + k
        hi = hs[0]
        lo = ls[0]
        for j in range(1, _L):  # DW * DW
            p, err = _two_product(hi, hs[j])
            err += hi * ls[j] + lo * hs[j]
            hi = p + err
            lo = err - (hi - p)
            hi, lo, k = _renorm(hi, lo)
            ex += k + xs[j]
        zero = st[0] != 0
        inf = st[1] != 0
        n = i1 - i0
        if zero or inf:
            out[s] = np.nan if (zero and inf) else (0.0 if zero else np.inf)
            flags[s] = 0
        else:
            d = (2.0 * n + 2.0 + 16.0 * _L) * 2.0 ** -104 * hi
            r1 = hi + (lo - d)
            r2 = hi + (lo + d)
            if ex + 1 <= -1075:
                out[s] = 0.0
                flags[s] = 0
            elif r1 != r2 or ex < -1022:
                flags[s] = 1
            elif ex > 1023:
                out[s] = np.inf
                flags[s] = 0
            else:
                # r * 2**ex: exact in the normal range; r = 2.0 at 2**1023 overflows
                out[s] = math.ldexp(hi + lo, ex)
                flags[s] = 0
        if neg and flags[s] == 0 and not (zero and inf):
            out[s] = -out[s]


_HELPERS = ("_two_product", "_special", "_renorm")


def build() -> dict[str, Any]:
    """Compile the kernel."""
    bind(globals(), _HELPERS)
    return {"products": jit(nogil=True)(products_kernel)}


register("products", build)
