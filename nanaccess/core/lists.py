"""Median picks of homogeneous lists without the per-element object scan.

The generic list path (:mod:`nanaccess.core.objects`) classifies every element in
Python and sorts ``(value, position, object)`` entries. For a list whose elements
all share one exact number type (``int``, ``Fraction``, ``Decimal`` or a NumPy
scalar type) and hold no NaN, the policy has nothing to do, so only the elements at
the median ranks matter. They are found on an array of keys, and only the run of
elements *equal* to a selected key is ordered the generic way
(:func:`~nanaccess.core.objects.scan._sort_numbers`), so the same stored object is
returned and the midpoint is the same call (:func:`~nanaccess.core.objects.arith._weighted`).

Keys are exact where they can be (ints that fit int64, NumPy scalars converted to
their own dtype) and otherwise ``float(v)``: correctly rounded, hence monotone
non-decreasing in the value, so the elements of rank ``k`` lie in the run of keys
equal to the ``k``-th key, which is then ordered exactly. Decimals sort faster by
their own C comparisons than they convert to floats, so they are sorted once with
``InvalidOperation`` trapped (any NaN then raises and the generic path decides).

Every function returns ``None`` when its fast path does not apply; the caller then
takes the generic path, which also owns every error.
"""

from __future__ import annotations

from decimal import Decimal, FloatOperation, InvalidOperation, localcontext
from fractions import Fraction
from typing import Any

import numpy as np

from .. import _stats
from .objects.arith import _weighted
from .objects.classify import _describe
from .objects.scan import _sort_numbers
from .plan import median_ranks

__all__ = ["MEDIANS", "list_median"]

#: the statistics with a fast path here
MEDIANS = _stats.MEDIANS

#: NumPy scalar types converted exactly to an array of their own dtype
_NUMPY_TYPES = frozenset(
    np.dtype(c).type for c in ("f2", "f4", "f8", "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8")
)


def _keys(vals: list, t: type) -> np.ndarray | None:
    """Exact or monotone keys of ``vals`` (all of type ``t``), or None."""
    n = len(vals)
    try:
        if t is int:
            try:
                return np.fromiter(vals, np.int64, n)
            except OverflowError:
                pass  # beyond int64: the float keys
        elif t in _NUMPY_TYPES:
            keys = np.fromiter(vals, t, n)
            if keys.dtype.kind == "f" and np.isnan(keys).any():
                return None
            return keys
        elif t is not Fraction:
            return None
        keys = np.fromiter(map(float, vals), np.float64, n)
    except (OverflowError, ValueError, TypeError):
        return None
    if np.isnan(keys).any():
        return None
    return keys


def _entry(v: Any, i: int, t: type) -> tuple[Any, int, Any]:
    """The generic scan's ``(value, position, object)`` entry of ``v``."""
    if t is int or t is Fraction or t is Decimal:
        return (v, i, v)
    return (_describe(v)[5], i, v)


def _select(vals: list, keys: np.ndarray, t: type, ranks: tuple[int, ...]) -> list:
    """The objects at ``ranks`` of the generic path's order."""
    part = np.partition(keys, ranks)
    out = []
    for k in ranks:
        f = part[k]
        below = int(np.count_nonzero(keys < f))
        run = [_entry(vals[i], i, t) for i in np.flatnonzero(keys == f).tolist()]
        if len(run) > 1:
            _sort_numbers(run)
        out.append(run[k - below][2])
    return out


def _decimal_sorted(vals: list) -> list | None:
    """``vals`` (Decimals) in the generic order, or None when one is a NaN."""
    if len(vals) == 1:
        return None if vals[0].is_nan() else vals
    with localcontext() as ctx:
        ctx.traps[InvalidOperation] = True  # an ordering comparison with a NaN raises
        try:
            s = sorted(vals)
        except InvalidOperation:
            return None
    return s


def _decimal_select(vals: list, ranks: tuple[int, ...]) -> list | None:
    s = _decimal_sorted(vals)
    if s is None:
        return None
    out = []
    n = len(s)
    for k in ranks:
        a = b = k
        while a > 0 and s[a - 1] == s[k]:
            a -= 1
        while b < n - 1 and s[b + 1] == s[k]:
            b += 1
        if a == b:
            out.append(s[k])
            continue
        # equal values (1.0 and 1.00) take the generic tie order; sorted() kept the
        # positions' order inside the run, so positions are recovered in that order
        run = _decimal_run(vals, s[k])
        _sort_numbers(run)
        out.append(run[k - a][2])
    return out


def _decimal_run(vals: list, v: Decimal) -> list:
    return [(x, i, x) for i, x in enumerate(vals) if x == v]


def list_median(vals: list, stat: str) -> Any:
    """``stat`` (one of :data:`MEDIANS`) of ``vals`` as the generic list path gives
    it, or ``None`` when the fast path does not apply.

    Applies to non-empty lists whose elements all have one type among ``int``,
    ``Fraction``, ``Decimal`` and the NumPy integer and float scalar types, with no
    NaN (so no policy acts).

    Examples
    --------
    >>> list_median([3, 1, 2, 4], "median")
    2.5
    >>> list_median([3, 1, 2, 4], "median_low")
    2
    >>> list_median([1.0, 2], "median") is None  # mixed types: the generic path
    True
    """
    if stat not in MEDIANS or type(vals) is not list or not vals:
        return None
    types = set(map(type, vals))
    if len(types) != 1:
        return None
    t = types.pop()
    ranks = median_ranks(stat, len(vals))
    if t is Decimal:
        picked = _decimal_select(vals, ranks)
    else:
        keys = _keys(vals, t)
        picked = None if keys is None else _select(vals, keys, t, ranks)
    if picked is None:
        return None
    a, b = picked
    if stat != "median" or ranks[0] == ranks[1]:
        return a
    with localcontext() as ctx:  # the generic path's context
        ctx.traps[FloatOperation] = False
        return _weighted(a, 1, b, 1, 2)
