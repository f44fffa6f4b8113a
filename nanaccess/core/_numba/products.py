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


def _two_product(a, b):  # pragma: no cover - compiled
    p = a * b
    c = _SPLIT * a
    ah = c - (c - a)
    al = a - ah
    c = _SPLIT * b
    bh = c - (c - b)
    bl = b - bh
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def products_kernel(ubits, starts, out, flags):  # pragma: no cover - compiled
    """``out[s]``: the product of segment ``s`` (float64), ``flags[s]``: 1 when it is
    not certified (the caller's exact tree decides)."""
    for s in range(starts.size - 1):
        hi = 1.0
        lo = 0.0
        ex = 0
        neg = False
        zero = False
        inf = False
        n = 0
        for i in range(starts[s], starts[s + 1]):
            b = ubits[i]
            if b >> np.uint64(63):
                neg = not neg
            e = np.int64((b >> np.uint64(52)) & np.uint64(2047))
            m = b & np.uint64(_MANT)
            if e == 2047:
                inf = True
                continue
            if e == 0:
                if m == 0:
                    zero = True
                    continue
                # subnormal: normalise the mantissa to [1, 2)
                sh = 0
                while (m >> np.uint64(52)) == 0:
                    m <<= np.uint64(1)
                    sh += 1
                m &= np.uint64(_MANT)
                e = 1 - sh
            f = np.uint64(m | np.uint64(_ONE))
            fm = np.uint64(f).view(np.float64)
            ex += e - 1023
            p, err = _two_product(hi, fm)
            t = err + lo * fm
            hi = p + t
            lo = t - (hi - p)
            if hi >= 2.0:
                hi *= 0.5
                lo *= 0.5
                ex += 1
            n += 1
        if zero or inf:
            out[s] = np.nan if (zero and inf) else (0.0 if zero else np.inf)
            flags[s] = 0
        else:
            d = (2.0 * n + 2.0) * 2.0 ** -104 * hi
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


_HELPERS = ("_two_product",)


def build() -> dict[str, Any]:
    """Compile the kernel."""
    bind(globals(), _HELPERS)
    return {"products": jit(nogil=True)(products_kernel)}


register("products", build)
