"""Python lists of floats to float64 arrays, checking every element's type on the way.

The list API may take the fast float64 path only when *every* element is an exact
``float``: ints (a median of ints is an int, and ints above 2**53 do not fit a
double), bools, Decimals and Fractions must take the exact object path, and
``np.array(list)`` would convert all of them silently.

Checking types in Python (``set(map(type, xs))``) and then converting
(``np.fromiter``) costs two passes of ~16 ns per element. :func:`marshal.dumps`
does both in one C pass: at version 2 a list is ``b"["``, a little-endian int32
length, then per element one type code and its payload, and an exact float is the
code ``b"g"`` followed by its 8 IEEE bytes copied verbatim (sign, payload and the
quiet bit of a NaN survive). Any other element either makes ``marshal`` refuse the
list or shows up as another code or another length, and then the caller falls
back to the generic path, so the format only ever speeds things up.
"""

from __future__ import annotations

import marshal
import math
import struct
from math import isnan
from operator import countOf
from typing import Any, cast

import numpy as np

from .. import _stats
from ..options import NanPolicy
from .plan import median_ranks
from .policy import RULES

__all__ = ["float_list_array", "bool_list_falses", "SMALL_LIST", "LIST_RANKS", "float_mid",
           "float_list_median", "float_list_pick", "float_list_nan_median"]

_RECORD = np.dtype([("code", "u1"), ("value", "<f8")])  # one marshalled float
_FLOAT_CODE = ord("g")  # marshal's TYPE_BINARY_FLOAT
_HEADER = 5  # b"[" + int32 length
_NO_REFS = 2  # marshal version without back-references: a fixed 9-byte stride
_TRUE, _FALSE = ord("T"), ord("F")  # marshal's TYPE_TRUE / TYPE_FALSE: one byte each


def float_list_array(seq: Any) -> np.ndarray | None:
    """float64 array of ``seq`` when it is a non-empty list/tuple of exact floats.

    Returns ``None`` for anything else (including float subclasses, ints and
    empty sequences); the caller then takes the generic path.

    Examples
    --------
    >>> float_list_array([1.5, float("nan"), -0.0])
    array([ 1.5,  nan, -0. ])
    >>> float_list_array([1.5, 2]) is None
    True
    """
    if type(seq) not in (list, tuple) or not seq:
        return None
    try:
        raw = marshal.dumps(seq, _NO_REFS)
    except (ValueError, RecursionError):  # unmarshallable elements
        return None
    n = len(seq)
    if len(raw) != _HEADER + _RECORD.itemsize * n:
        return None
    rec = np.frombuffer(raw, _RECORD, count=n, offset=_HEADER)
    if not (rec["code"] == _FLOAT_CODE).all():
        return None
    # the values sit at a 9-byte stride; one copy makes them aligned and native
    return rec["value"].astype(np.float64)


#: lists of bools up to this length are counted in Python (the crossover measured between 40 and 64)
_SHORT_BOOLS = 48


def bool_list_falses(seq: list[Any]) -> int | None:
    """The number of ``False`` in ``seq`` when it is a non-empty list of bools, else None.

    One :func:`marshal.dumps` pass: ``True`` and ``False`` are one byte each (``T``,
    ``F``), every other element takes more or another code, so the record length
    and the two counts prove the types (ints 0 and 1 are not bools).

    Examples
    --------
    >>> bool_list_falses([True, False, False])
    2
    >>> bool_list_falses([True, 0]) is None
    True
    """
    if type(seq) is not list or not seq:
        return None
    n = len(seq)
    if n <= _SHORT_BOOLS:  # NumPy's fixed cost would dominate: count in Python
        return seq.count(False) if countOf(map(type, seq), bool) == n else None
    try:
        raw = marshal.dumps(seq, _NO_REFS)
    except (ValueError, RecursionError):
        return None
    if len(raw) != _HEADER + n:
        return None
    codes = np.frombuffer(raw, np.uint8, count=n, offset=_HEADER)
    falses = int(np.count_nonzero(codes == _FALSE))
    return falses if falses + int(np.count_nonzero(codes == _TRUE)) == n else None


# ------------------------------------------- the float-list lane of the small paths
# (medians of short lists of exact Python floats, sorted in Python; core/small.py
# and core/lists.py call them)

#: longest list of Python floats sorted in Python (beyond it the float64 path wins)
SMALL_LIST = 64
_DOUBLE, _BITS = struct.Struct("<d"), struct.Struct("<q")  # a float's bits as an int64
#: plan.median_ranks of every short list by statistic (a lookup costs less than a call)
LIST_RANKS = {stat: [median_ranks(stat, max(n, 1)) for n in range(SMALL_LIST + 1)]
              for stat in _stats.MEDIANS}
#: up to this many NaNs are removed one by one (a comprehension costs more below it)
_FEW_NANS = 4
_INT64_MAX = (1 << 63) - 1


def float_mid(a: float, b: float) -> float | None:
    t = a + b
    # an overflow (the midpoint's repair) or inf + -inf (the canonical NaN): generic
    return t / 2.0 if math.isfinite(t) else None


def float_list_median(vals: list[Any], stat: str) -> float | None:
    """``stat`` of a short list of exact Python floats, or ``None``.

    Examples
    --------
    >>> float_list_median([3.0, 1.0, 2.0, 4.0], "median")
    2.5
    >>> float_list_median([1.0, float("nan")], "median") is None
    True
    """
    return float_list_pick(vals, LIST_RANKS[stat]) if type(vals) is list else None


def float_list_pick(vals: list[Any], ranks: list[tuple[int, int]],
                    policy: NanPolicy | None = None, nan_free: bool = False) -> float | None:
    """:func:`float_list_median` of a list with the statistic's ranks table
    (``LIST_RANKS[stat]``) looked up once by the caller: the plain functions' lane.
    With a resolved ``policy``, quiet NaNs are handled as
    :func:`float_list_nan_median` does. ``nan_free``: the caller has proved ``vals``
    a non-empty list of at most :data:`SMALL_LIST` exact floats, none a NaN."""
    n = len(vals)
    if not nan_free:
        # the cheapest exact-float test: one identity probe per element, no set built
        # (the first element alone turns other lists away without the pass)
        if not 0 < n <= SMALL_LIST or type(vals[0]) is not float \
                or countOf(map(type, vals), float) != n:
            return None
        total = sum(vals)
        if total != total:  # a NaN (or +inf and -inf): the policy, or the generic path
            return None if policy is None else _nan_pick(vals, ranks, policy)
    s = sorted(vals)  # (the pick inline: a call costs a tenth of a 10-value median)
    lo, hi = ranks[n]
    a, b = s[lo], s[hi]
    if a == 0.0 or b == 0.0:  # sorted() keeps -0.0 and +0.0 in input order
        neg = sum(1 for v in vals if v < 0.0 or (v == 0.0 and math.copysign(1.0, v) < 0))
        a = (-0.0 if lo < neg else 0.0) if a == 0.0 else a
        b = (-0.0 if hi < neg else 0.0) if b == 0.0 else b
    if lo == hi:
        return cast("float | None", a)
    t = a + b
    # an overflow (the midpoint's repair) or inf + -inf (the canonical NaN): generic
    return t / 2.0 if t - t == 0.0 else None


def float_list_nan_median(vals: list[Any], stat: str, policy: NanPolicy) -> float | None:
    """``stat`` of a short list of exact Python floats holding quiet NaNs, under a
    policy that removes them (the numbers' median) or propagates them (the
    totalOrder-greatest NaN, as stored); ``None`` otherwise (the generic path).

    Examples
    --------
    >>> float_list_nan_median([3.0, float("nan"), 1.0], "median", NanPolicy.OMIT)
    2.0
    """
    n = len(vals)
    if not 0 < n <= SMALL_LIST or type(vals) is not list or countOf(map(type, vals),
                                                                     float) != n:
        return None
    return _nan_pick(vals, LIST_RANKS[stat], policy)


def _nan_pick(vals: list[Any], ranks: list[tuple[int, int]], policy: NanPolicy) -> float | None:
    """:func:`float_list_nan_median` of a list of exact floats."""
    r = RULES[policy]
    if r.nan_raises:
        return None
    nans = list(filter(isnan, vals))
    if not nans:
        return None  # no NaN (+inf and -inf): the generic path
    signaling = False
    for v in nans:  # the quiet bit (bit 51) is bit 3 of the 7th little-endian byte
        if not _DOUBLE.pack(v)[6] & 8:
            signaling = True
    if r.drops_silently(True, signaling):
        if len(nans) <= _FEW_NANS:  # list.remove finds each NaN object by identity
            nums = vals.copy()
            for v in nans:
                nums.remove(v)
        else:
            nums = [v for v in vals if v == v]
        return float_list_pick(nums, ranks, nan_free=True) if nums else None
    if r.propagates and not signaling:  # the totalOrder-greatest NaN, as stored
        if len(nans) == 1:
            return cast("float | None", nans[0])
        bits = [_BITS.unpack(_DOUBLE.pack(v))[0] for v in nans]
        keys = [b if b >= 0 else b ^ _INT64_MAX for b in bits]  # totalOrder of a NaN
        return cast("float | None", nans[keys.index(max(keys))])
    return None
