"""Compiled exact power sums ``sum(x**k)``, k = 1..4, per segment (a row or a group).

Each value's powers are written as exact sums of doubles by Dekker's TwoProduct
(``x**2``: 2, ``x**3``: 4, ``x**4``: 6 doubles; exact for nonzero ``|x|`` in
``[2**-200, 2**250]``, where no partial product underflows or overflows), and every
double is added exactly into the ``xsum``-style tables of :mod:`.exact` (one table per
power, indexed by sign and exponent, flushed into 32-bit fixed-point digits in units
of ``2**-1074`` before an entry could overflow). The caller turns the digits into
Python ints (:func:`nanaccess.core.higher.powers.compiled_power_sums`); a segment
holding a value outside the range is flagged and left to the NumPy engine. The values
arrive NaN- and infinity-free (the caller's scan zeroes what the policy removes).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import bind, jit, kernels, register
from .exact import _flush, magnitude_of  # bound to .exact's compiled helpers by build

__all__ = ["build"]

_SPLIT = 134217729.0
_LO_E = 1023 - 200  # biased exponents of the exact range
_HI_E = 1023 + 250
_EVERY = 256  # values between flushes: <= 6 adds per value per entry stay < 2048
_NT = 8  # the table layout of .exact (entry ix of table t at ix * 8 + t)


def _two_product(a: Any, b: Any) -> Any:  # pragma: no cover - compiled
    p = a * b
    c = _SPLIT * a
    ah = c - (c - a)
    al = a - ah
    c = _SPLIT * b
    bh = c - (c - b)
    bl = b - bh
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _put(tabs: np.ndarray, k: Any, v: Any) -> None:  # pragma: no cover - compiled
    """Add double ``v`` (any finite value; a zero adds nothing) to the table of power
    ``k + 1`` (table 0 of the .exact layout: entry ``sign|exponent`` at ``ix * 8``)."""
    b = np.float64(v).view(np.uint64)
    ix = np.int64(b >> np.uint64(52))
    e = ix & 2047
    tabs[k, ix * _NT] += (b & np.uint64(0xFFFFFFFFFFFFF)) | (np.uint64(e != 0) << np.uint64(52))


def _flush_all(tabs: np.ndarray, emin: Any, emax: Any, digs: np.ndarray, rngs: np.ndarray,
               kmax: Any) -> None:  # pragma: no cover - compiled
    """Flush the entries the block can have touched: the values' biased exponents in
    [emin, emax] bound those of every term of ``x**k`` (the low parts of a TwoProduct
    lie at most 53 bits below each factor's last place)."""
    for k in range(1, kmax + 1):
        lo = k * (emin - 1023 - 53) - 2 + 1023
        hi = k * (emax - 1023 + 1) + 2 + 1023
        _flush(tabs[k - 1], 1, max(lo, 1), min(hi, 2046), digs[k - 1], rngs[k - 1])


def segments_kernel(vals: np.ndarray, ubits: np.ndarray, starts: np.ndarray, kmax: Any,
                    out: np.ndarray, sneg: np.ndarray, flags: np.ndarray, tabs: Any,
                    digs: np.ndarray,
                    rngs: np.ndarray) -> None:  # pragma: no cover - compiled
    """Per segment ``[starts[s], starts[s+1])``: the magnitudes of the exact power
    sums as 32-bit digits ``out[s, k]`` (units ``2**-1074``), their signs ``sneg[s, k]``
    and ``flags[s]`` (1: a value outside the exact range; the segment is not summed).
    ``ubits``: ``vals`` viewed as uint64."""
    nd = digs.shape[1]
    for s in range(starts.size - 1):
        i0 = starts[s]
        i1 = starts[s + 1]
        bad = False
        for i in range(i0, i1):
            x = vals[i]
            if x != 0.0:
                e = (ubits[i] >> np.uint64(52)) & np.uint64(2047)
                if e < _LO_E or e > _HI_E:
                    bad = True
                    break
        if bad:
            flags[s] = 1
            continue
        i = i0
        while i < i1:
            j1 = min(i1, i + _EVERY)
            emin = 2047
            emax = 0
            for j in range(i, j1):
                x = vals[j]
                if x == 0.0:
                    continue
                ex = np.int64((ubits[j] >> np.uint64(52)) & np.uint64(2047))
                emin = min(emin, ex)
                emax = max(emax, ex)
                _put(tabs, 0, x)
                if kmax >= 2:
                    p2, e2 = _two_product(x, x)
                    _put(tabs, 1, p2)
                    _put(tabs, 1, e2)
                    if kmax >= 3:
                        a, b = _two_product(x, p2)
                        c, d = _two_product(x, e2)
                        _put(tabs, 2, a)
                        _put(tabs, 2, b)
                        _put(tabs, 2, c)
                        _put(tabs, 2, d)
                    if kmax >= 4:
                        a, b = _two_product(p2, p2)
                        c, d = _two_product(p2, e2)
                        f, g = _two_product(e2, e2)
                        _put(tabs, 3, a)
                        _put(tabs, 3, b)
                        _put(tabs, 3, 2.0 * c)
                        _put(tabs, 3, 2.0 * d)
                        _put(tabs, 3, f)
                        _put(tabs, 3, g)
            if emin <= emax:
                _flush_all(tabs, emin, emax, digs, rngs, kmax)
            i = j1
        for k in range(kmax):
            if rngs[k, 0] <= rngs[k, 1]:
                neg, _ = magnitude_of(digs[k], rngs[k, 0], rngs[k, 1])
                sneg[s, k] = neg
                for d in range(nd):
                    out[s, k, d] = digs[k, d]
                    digs[k, d] = 0
            rngs[k, 0] = nd - 2
            rngs[k, 1] = -1


_HELPERS = ("_two_product", "_put", "_flush_all")
_SHARED = ("_flush", "magnitude_of")


def build() -> dict[str, Any]:
    """Compile the kernel (the shared helpers as :mod:`.exact` compiled them)."""
    kernels("exact")
    from . import exact

    bind(globals(), _SHARED, {name: getattr(exact, name) for name in _SHARED})
    bind(globals(), _HELPERS)
    return {"segments": jit(nogil=True)(segments_kernel)}


register("powers", build)
