"""Correct rounding of float32 (and float16) moments: no double rounding.

The engines give the exact statistic rounded once to float64. Rounding that float64
again to a narrower type is the correctly rounded narrow value except where the
float64 sits on (or, for a square root, within two float64 ulps of) a midpoint
between two neighbouring narrow floats: the narrow floats and their midpoints are
float64 numbers, and a correctly rounded float64 never crosses one. Those few cells
are rounded here from the exact rational value (Python integers), so every float32
sum, mean and variance is the exact one rounded once, and a float32 standard
deviation is the correctly rounded square root of the exact variance.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from math import fsum
from struct import pack, unpack
from typing import Any, cast

import numpy as np

from ... import _stats

__all__ = ["narrow_hard", "narrow_scalar", "round_narrow", "round_narrow_exact"]


def narrow_hard(vals: np.ndarray, dtype: np.dtype, ulps: float = 0.0) -> np.ndarray:
    """Indices of the float64 results ``vals`` whose rounding to ``dtype`` may differ
    from the exact value's: within ``ulps`` float64 ulps of a midpoint between
    neighbouring ``dtype`` floats (0: on one; a correctly rounded float64 never crosses
    a midpoint, a square root of one may by 1.5 ulps), or near the largest ``dtype``
    float (the overflow threshold)."""
    v = np.asarray(vals, dtype=np.float64)
    if v.size == 1 and _scalar_hard(float(v.reshape(-1)[0]), dtype, ulps) is False:
        return _NONE  # one value: integer bit tests, no NumPy calls
    with np.errstate(all="ignore"):
        f = v.astype(dtype)
        up = np.nextafter(f, dtype.type(np.inf)).astype(np.float64)
        dn = np.nextafter(f, dtype.type(-np.inf)).astype(np.float64)
        f64 = f.astype(np.float64)
        tol = ulps * np.spacing(np.abs(v))
        near = (np.abs(v - (f64 + up) * 0.5) <= tol) | (np.abs(v - (f64 + dn) * 0.5) <= tol)
        big = np.abs(v) >= float(np.finfo(dtype).max) * 0.99
    return np.flatnonzero(np.isfinite(v) & (near | big))


_INF = float("inf")
_NONE = np.empty(0, dtype=np.intp)  # no hard cell
_NONE.flags.writeable = False
#: per narrow dtype: (smallest normal, overflow threshold, low-bits mask, midpoint bits)
_LIMITS: dict[np.dtype, tuple[float, float, int, int]] = {}


def _scalar_hard(v: float, dtype: np.dtype, ulps: float) -> bool | None:
    """:func:`narrow_hard` of one float64 ``v`` by integer bit tests, no NumPy call:
    within the normal range of ``dtype`` the midpoints are the float64 numbers whose
    low ``52 - nmant`` significand bits are ``1 << (51 - nmant)``, and ``v``'s distance
    to the nearest in float64 ulps is that field's distance to it (a midpoint never
    lies near a binade's edge). None outside that range (the array test decides)."""
    a = abs(v)
    if a == 0.0 or not a < _INF:  # zero, an infinity, a NaN
        return False
    lim = _LIMITS.get(dtype)
    if lim is None:
        fi = np.finfo(dtype)
        shift = 52 - fi.nmant
        lim = _LIMITS[dtype] = (float(fi.smallest_normal), float(fi.max) * 0.99,
                                (1 << shift) - 1, 1 << (shift - 1))
    tiny, big, mask, half = lim
    if a < tiny or a >= big:
        return None
    low: int = unpack("<q", pack("<d", a))[0] & mask
    return abs(low - half) <= ulps


def narrow_scalar(v: float, dtype: np.dtype, root: bool) -> np.floating[Any] | None:
    """The correctly rounded float64 statistic ``v`` (``root``: a square root of one)
    as a ``dtype`` scalar, when rounding it again is the exact value's single
    rounding (:func:`narrow_hard` by bit tests); None otherwise (the caller's exact
    path decides)."""
    if _scalar_hard(v, dtype, 2.0 if root else 0.0) is not False:
        return None
    return cast("np.floating[Any]", dtype.type(v))


def _round_fraction(q: Fraction, dtype: np.dtype) -> float:
    """``q`` rounded once to ``dtype`` (half-even; beyond the range: an infinity)."""
    fi = np.finfo(dtype)
    if q == 0:
        return 0.0
    neg = q < 0
    a = -q if neg else q
    p = fi.nmant + 1  # significand bits
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    e = max(e, fi.minexp)  # subnormals: the fixed spacing of the smallest binade
    ulp = Fraction(2) ** (e - p + 1)
    m, r = divmod(a, ulp)
    half = Fraction(1, 2)
    frac = r / ulp
    if frac > half or (frac == half and m % 2 == 1):
        m += 1
    out = float(m * ulp) if m * ulp <= Fraction(float(fi.max)) else float("inf")
    return -out if neg else out


def _sqrt_narrow(v: Fraction, dtype: np.dtype) -> float:
    """The correctly rounded ``sqrt(v)`` in ``dtype``, for ``v >= 0``: the candidate
    whose midpoints with its neighbours bracket ``sqrt(v)``, by exact squares."""
    if v == 0:
        return 0.0
    top = dtype.type(np.inf)
    c = np.sqrt(np.float64(float(v))).astype(dtype)
    for _ in range(4):
        cf = Fraction(float(c))
        below = (cf + Fraction(float(np.nextafter(c, dtype.type(0))))) / 2
        nxt = np.nextafter(c, top)
        above = (cf + Fraction(float(nxt))) / 2 if np.isfinite(nxt) else None
        if v < below * below or (v == below * below and _odd(c)):
            c = np.nextafter(c, dtype.type(0))
        elif above is not None and (v > above * above or (v == above * above and _odd(c))):
            c = nxt
        else:
            return float(c)
    return float(c)


def _odd(c: Any) -> bool:
    """Is the last significand bit of the narrow float ``c`` set?"""
    return bool(int(np.asarray(c).view(f"u{np.asarray(c).dtype.itemsize}")) & 1)


def _midpoints(h: np.ndarray, dtype: np.dtype) -> Any:
    """``(f, other, mid)`` per float64 ``h``: its narrow rounding, the narrow neighbour
    on ``h``'s other side, and whether ``h`` is exactly their midpoint (finite)."""
    with np.errstate(over="ignore", invalid="ignore"):
        f = h.astype(dtype)
        other = np.nextafter(f, np.where(h > f.astype(np.float64), dtype.type(np.inf),
                                         dtype.type(-np.inf)).astype(dtype))
        both = np.isfinite(f) & np.isfinite(other)
        mid = both & ((f.astype(np.float64) + other.astype(np.float64)) * 0.5 == h)
    return f, other, mid, both


def _remainders(rows: np.ndarray, h: np.ndarray, stat: str) -> np.ndarray:
    """The exact ``S - h`` (sums) or ``S - n*h`` (means) per row (NaNs left out),
    rounded once: its sign is exact. The compiled exact kernel on the rows with the
    (exact) terms of ``-h`` or ``-n*h`` appended; math.fsum per row without it."""
    n = np.count_nonzero(~np.isnan(rows), axis=1).astype(np.float64)
    if stat in _stats.SUMS:
        extra = np.stack([-h, np.zeros_like(h)], axis=1)
    else:  # n*h = p + e exactly (Dekker: n < 2**26 splits as itself)
        p = n * h
        t = 134217729.0 * h
        hh = t - (t - h)
        hl = h - hh
        e = (hh * n - p) + hl * n
        extra = np.stack([-p, -e], axis=1)
    full = np.concatenate([rows, extra], axis=1)
    from .compiled import compiled_rows_skipnan

    got = None if n.max(initial=0) >= 1 << 26 else compiled_rows_skipnan(full, "sum")
    if got is not None:
        return got[0]
    return np.array([fsum(r[~np.isnan(r)].tolist()) for r in full])


def round_narrow(vals: np.ndarray, out: np.ndarray, stat: str, ddof: float,
                 cell_rows: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """Correct the narrow results ``out`` (``vals`` rounded to ``out.dtype``) where the
    float64 ``vals`` sit on (or, for a square root, near) a narrow midpoint: those
    cells are recomputed from their values (``cell_rows(indices)``: a float64 row per
    index, NaN where a value is left out)."""
    dtype = out.dtype
    hard = narrow_hard(vals, dtype, 2.0 if stat in _stats.ROOTS else 0.0)
    if not hard.size:
        return out
    out = out.copy()
    rows = np.asarray(cell_rows(hard), dtype=np.float64)
    h = np.asarray(vals, dtype=np.float64)[hard]
    if stat in _stats.LINEAR:  # on a midpoint, the side of the exact value decides
        f, other, mid, both = _midpoints(h, dtype)
        if mid.any():
            d = _remainders(rows[mid], h[mid], stat)
            lo = np.where(f[mid] > h[mid], other[mid], f[mid])
            hi = np.where(f[mid] > h[mid], f[mid], other[mid])
            out[hard[mid]] = np.where(d > 0, hi, np.where(d < 0, lo, f[mid]))
        for k in np.flatnonzero(~both).tolist():  # the overflow threshold: exactly
            xs = rows[k][~np.isnan(rows[k])]
            ex = sum((Fraction(v) for v in xs.tolist()), Fraction(0))
            if xs.size:
                out[hard[k]] = _round_fraction(ex if stat in _stats.SUMS else ex / xs.size,
                                               dtype)
        return out
    for k, row in zip(hard.tolist(), rows, strict=True):
        xs = row[~np.isnan(row)]
        fr = [Fraction(v) for v in xs.tolist()]
        n = len(fr)
        if n == 0 or n - ddof <= 0 or float(ddof) != int(ddof):
            continue  # NaN, or the documented fractional-ddof roundings
        s = sum(fr, Fraction(0))
        q = sum((f * f for f in fr), Fraction(0))
        var = (n * q - s * s) / (n * (n - int(ddof)))
        out[k] = _sqrt_narrow(var, dtype) if stat in _stats.ROOTS \
            else _round_fraction(var, dtype)
    return out


def round_narrow_exact(vals: np.ndarray, out: np.ndarray, stat: str,
                       exact: Callable[[int], Fraction | None]) -> np.ndarray:
    """Correct the narrow results ``out`` (the float64 ``vals`` rounded to
    ``out.dtype``) where rounding twice may differ from rounding once, from the exact
    values: ``exact(index)`` is the cell's exact sum, mean or variance as a Fraction
    (None: leave the cell as it is). A square root (``stat`` in ROOTS) is the
    correctly rounded root of the exact variance. For engines that hold the exact
    value already (the dask partials)."""
    root = stat in _stats.ROOTS
    hard = narrow_hard(vals, out.dtype, 2.0 if root else 0.0)
    if not hard.size:
        return out
    out = out.copy()
    for k in hard.tolist():
        q = exact(k)
        if q is not None:
            out[k] = _sqrt_narrow(q, out.dtype) if root else _round_fraction(q, out.dtype)
    return out
