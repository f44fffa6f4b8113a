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

import numpy as np

from ... import _stats

__all__ = ["narrow_hard", "round_narrow"]


def narrow_hard(vals: np.ndarray, dtype: np.dtype, ulps: float = 0.0) -> np.ndarray:
    """Indices of the float64 results ``vals`` whose rounding to ``dtype`` may differ
    from the exact value's: within ``ulps`` float64 ulps of a midpoint between
    neighbouring ``dtype`` floats (0: on one; a correctly rounded float64 never crosses
    a midpoint, a square root of one may by 1.5 ulps), or near the largest ``dtype``
    float (the overflow threshold)."""
    v = np.asarray(vals, dtype=np.float64)
    with np.errstate(all="ignore"):
        f = v.astype(dtype)
        up = np.nextafter(f, dtype.type(np.inf)).astype(np.float64)
        dn = np.nextafter(f, dtype.type(-np.inf)).astype(np.float64)
        f64 = f.astype(np.float64)
        tol = ulps * np.spacing(np.abs(v))
        near = (np.abs(v - (f64 + up) * 0.5) <= tol) | (np.abs(v - (f64 + dn) * 0.5) <= tol)
        big = np.abs(v) >= float(np.finfo(dtype).max) * 0.99
    return np.flatnonzero(np.isfinite(v) & (near | big))


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


def _odd(c) -> bool:
    """Is the last significand bit of the narrow float ``c`` set?"""
    return bool(int(np.asarray(c).view(f"u{np.asarray(c).dtype.itemsize}")) & 1)


def _side(h: float, xs: np.ndarray, stat: str, dtype: np.dtype) -> float:
    """The narrow rounding of the exact sum (or mean) of ``xs``, whose correctly
    rounded float64 ``h`` is a narrow midpoint: the exact ``S - h`` (or ``S - n*h``,
    with ``n*h`` an exact pair) by :func:`math.fsum` says which side (zero: a tie,
    half-even)."""
    terms = xs.tolist()
    with np.errstate(over="ignore"):
        f = np.float64(h).astype(dtype)
    if float(f) == h:
        return float(f)
    other = np.nextafter(f, dtype.type(np.inf if h > float(f) else -np.inf))
    if not (np.isfinite(f) and np.isfinite(other)):  # the overflow threshold: exactly
        ex = sum((Fraction(v) for v in terms), Fraction(0))
        return _round_fraction(ex if stat in _stats.SUMS else ex / len(terms), dtype)
    if (float(f) + float(other)) * 0.5 != h:
        return float(f)  # not on a midpoint: the float64 rounds right
    if stat in _stats.SUMS:
        terms.append(-h)
    else:
        p = len(terms) * h
        err = Fraction(len(terms)) * Fraction(h) - Fraction(p)  # a float (no underflow)
        terms += [-p, -float(err)]
    d = fsum(terms)
    if d == 0:
        return float(f)  # exactly the midpoint: NumPy's conversion is half-even
    lo, hi = (other, f) if float(f) > h else (f, other)
    return float(hi if d > 0 else lo)


def round_narrow(vals: np.ndarray, out: np.ndarray, stat: str, ddof: float,
                 cell_values: Callable[[np.ndarray], list[np.ndarray]]) -> np.ndarray:
    """Correct the narrow results ``out`` (``vals`` rounded to ``out.dtype``) where the
    float64 ``vals`` sit near a midpoint: those cells are recomputed from their
    selected values (``cell_values(indices)``: one float64 array per index)."""
    hard = narrow_hard(vals, out.dtype, 2.0 if stat in _stats.ROOTS else 0.0)
    if not hard.size:
        return out
    out = out.copy()
    for k, xs in zip(hard.tolist(), cell_values(hard), strict=True):
        if not xs.size:
            continue
        if stat in _stats.LINEAR:  # on a midpoint: the side of the exact value decides
            out[k] = _side(float(vals[k]), xs, stat, out.dtype)
            continue
        fr = [Fraction(float(v)) for v in xs.tolist()]
        n = len(fr)
        s = sum(fr, Fraction(0))
        if n - ddof <= 0 or float(ddof) != int(ddof):
            continue  # NaN, or the documented fractional-ddof roundings
        q = sum((f * f for f in fr), Fraction(0))
        var = (n * q - s * s) / (n * (n - int(ddof)))
        out[k] = _sqrt_narrow(var, out.dtype) if stat in _stats.ROOTS \
            else _round_fraction(var, out.dtype)
    return out
