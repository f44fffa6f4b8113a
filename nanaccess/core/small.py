"""Lean paths for small, NaN-free float data: medians, and exact sums and means.

For a few dozen floats the generic engine's blocks, scans and rank plans cost a
hundred times the data. When no NaN is present no policy acts, and when the
selected elements are nonzero the order of ``-0.0`` and ``+0.0`` (totalOrder in the
generic engine, equal in ``sorted`` / ``np.partition``) cannot change them. Then the
median is the element(s) at ranks ``(n-1)//2`` and ``n//2`` and, for two of them,
``(a + b) / 2`` in float64, which is what :func:`nanaccess.core.interp.midpoint`
computes whenever ``a + b`` is finite.

Sums and means of a 1-D float64 array use :func:`math.fsum` (correctly rounded):
the sum is ``s = fsum(x)``; ``e = fsum(x + [-s])`` is the rest, and when
``fsum(x + [-s, -e]) == 0`` the exact sum is ``s + e``, so the mean is the Python
integer quotient of that sum by ``n``, correctly rounded once, as the exact engine's.

Everything else (a NaN, a zero or an overflowing sum at a selected rank, other
dtypes) returns ``None`` and the caller takes the generic path, which owns every
error and every rule.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import _stats
from .plan import median_ranks

__all__ = ["MEDIANS", "MOMENTS", "SMALL_LIST", "SMALL_ARRAY", "SMALL_MOMENT",
           "float_list_median", "array_median",
           "array_moment"]

#: the statistics with a lean path here
MEDIANS = _stats.MEDIANS
#: the statistics with an exact lean path here
MOMENTS = ("sum", "mean")
#: longest list of Python floats sorted in Python (beyond it the float64 path wins)
SMALL_LIST = 64
#: longest 1-D array summed here (fsum's three passes beat the exact engine's set-up)
SMALL_MOMENT = 1024
#: longest 1-D array selected here (beyond it the generic engine's selection wins)
SMALL_ARRAY = 4096
_FLOAT = {float}


def _mid(a: float, b: float) -> float | None:
    t = a + b
    # an overflow (the midpoint's repair) or inf + -inf (the canonical NaN): generic
    return t / 2.0 if math.isfinite(t) else None


def float_list_median(vals: list, stat: str) -> float | None:
    """``stat`` of a short list of exact Python floats, or ``None``.

    Examples
    --------
    >>> float_list_median([3.0, 1.0, 2.0, 4.0], "median")
    2.5
    >>> float_list_median([1.0, float("nan")], "median") is None
    True
    """
    n = len(vals)
    if not 0 < n <= SMALL_LIST or type(vals) is not list or set(map(type, vals)) != _FLOAT:
        return None
    total = sum(vals)
    if total != total:  # a NaN (or +inf and -inf): the generic path
        return None
    s = sorted(vals)
    lo, hi = median_ranks(stat, n)
    a, b = s[lo], s[hi]
    if a == 0.0 or b == 0.0:
        return None
    return a if lo == hi else _mid(a, b)


def array_median(x: Any, stat: str) -> np.float64 | None:
    """``stat`` of a 1-D NaN-free float64 ndarray reduced whole, or ``None``.

    Examples
    --------
    >>> array_median(np.array([3.0, 1.0, 2.0, 4.0]), "median")
    np.float64(2.5)
    >>> array_median(np.array([0.0, 1.0, -0.0]), "median") is None  # a zero: generic
    True
    """
    if type(x) is not np.ndarray or x.ndim != 1 or x.dtype != np.float64 \
            or not 0 < x.size <= SMALL_ARRAY:
        return None
    n = x.size
    lo, hi = median_ranks(stat, n)
    p = np.partition(x, (lo, hi, n - 1))  # a NaN sorts last
    last = p[n - 1]
    if last != last:
        return None
    a, b = p[lo], p[hi]
    if a == 0.0 or b == 0.0:
        return None
    if lo == hi:
        return a
    m = _mid(float(a), float(b))
    return None if m is None else np.float64(m)


def array_moment(x: Any, stat: str) -> np.float64 | None:
    """Exact ``sum`` or ``mean`` of a 1-D finite float64 ndarray reduced whole, or ``None``.

    Examples
    --------
    >>> array_moment(np.array([1e100, 1.0, -1e100]), "mean")
    np.float64(0.3333333333333333)
    >>> array_moment(np.array([1.0, np.nan]), "sum") is None
    True
    """
    if type(x) is not np.ndarray or x.ndim != 1 or x.dtype != np.float64 \
            or not 0 < x.size <= SMALL_MOMENT:
        return None
    xs = x.tolist()
    try:
        s = math.fsum(xs)
    except (OverflowError, ValueError):  # an intermediate overflow, inf + -inf: generic
        return None
    if s == 0.0 or not math.isfinite(s):  # signed zeros, NaN, infinities: generic
        return None
    if stat == "sum":
        return np.float64(s)
    xs.append(-s)
    e = math.fsum(xs)
    xs.append(-e)
    if math.fsum(xs) != 0.0:  # the rest does not fit one float: generic
        return None
    sn, sd = s.as_integer_ratio()
    en, ed = e.as_integer_ratio()
    d = sd if sd > ed else ed  # powers of two
    return np.float64((sn * (d // sd) + en * (d // ed)) / (d * x.size))
