"""Median picks of lists of numbers without the per-element object scan.

The generic list path (:mod:`nanaccess.core.objects`) classifies every element in
Python and sorts ``(value, position, object)`` entries. For a list of ``int``,
``bool``, ``float``, ``Fraction``, ``Decimal`` and NumPy scalars, in any mixture,
holding no NaN (or quiet NaNs that the policy removes), only the elements at the
median ranks matter. They are found on an array of keys, and only the run of
elements *equal* to a selected key is ordered the generic way
(:func:`~nanaccess.core.objects.scan._sort_numbers`), so the same stored object is
returned and the midpoint is the same call (:func:`~nanaccess.core.objects.arith.weighted_mean_of`).

Keys are exact where they can be (ints that fit int64, a list of one NumPy scalar
type converted to its own dtype) and otherwise ``float(v)`` (one C pass,
``np.fromiter``): correctly rounded for every type here, hence monotone
non-decreasing in the value, so the elements of rank ``k`` lie in the run of keys
equal to the ``k``-th key, which is then ordered exactly. Short lists of one type
are sorted in Python (``sorted``; Decimals with ``InvalidOperation`` trapped so a NaN
raises and the generic path decides), where an array costs more than the data.

Every function returns ``None`` when its fast path does not apply; the caller then
takes the generic path, which also owns every error.
"""

from __future__ import annotations

import math
import struct
from bisect import bisect_left, bisect_right
from decimal import Decimal, FloatOperation, InvalidOperation, localcontext
from fractions import Fraction
from itertools import filterfalse
from typing import Any, cast

import numpy as np

from .. import _stats
from ..options import NanPolicy
from .floatlist import bool_list_falses
from .objects.arith import weighted_mean_of
from .objects.classify import classify_object, describe, npfloat_desc
from .objects.scan import sort_numbers
from .plan import median_ranks
from .policy import RULES
from .small import LIST_RANKS, SMALL_LIST, float_list_pick

__all__ = ["MEDIANS", "SHORT_LIST", "list_median"]

#: the statistics with a fast path here
MEDIANS = _stats.MEDIANS

#: NumPy scalar types converted exactly to an array of their own dtype
_NUMPY_TYPES = frozenset(
    np.dtype(c).type for c in ("f2", "f4", "f8", "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8")
)
#: element types whose mixtures convert exactly to int64 (beyond it: the float keys)
_INT_TYPES = frozenset({int, bool} | {np.dtype(c).type for c in ("i1", "i2", "i4", "i8", "u1",
                                                                 "u2", "u4")})
#: element types whose ``float(v)`` is correctly rounded (monotone keys) or a NaN
_REAL_TYPES = _NUMPY_TYPES | _INT_TYPES | {float, Fraction, Decimal}
#: element types ordered by ``sorted`` in a short homogeneous list (equal values are
#: interchangeable there: same type, same bits, except zeros and NaNs, checked)
_SORTABLE = _NUMPY_TYPES | {int, bool}
_PLAIN_INTS = (int, bool)
_PY_NUMBERS = (int, bool, float)
_PY_TYPES = frozenset({int, bool, float, Fraction})
_FLOAT_MAX: dict[type, float] = {
    np.dtype(c).type: float(np.finfo(c).max) for c in ("f2", "f4", "f8")}
_FLOAT_MAX[float] = float(np.finfo("f8").max)
#: a homogeneous list at most this long is sorted in Python (no array set-up;
#: measured: sorting 256 ints beats the keys' set-up)
SHORT_LIST = 256
#: Decimals sort by their own C comparisons faster than they convert to float keys
SHORT_DECIMALS = 4096
_FLOAT_ONLY, _BOOL_ONLY, _DECIMAL_ONLY = {float}, {bool}, {Decimal}
_NP_F64_ONLY = {np.float64}
_DOUBLE = struct.Struct("<d")
_DEC_IS_NAN = Decimal.is_nan
#: Decimal lists up to this long are scanned for NaNs before sorting (a context with
#: the trap costs more below it; measured crossover ~30)
_SHORT_DECIMAL_SCAN = 24


def _keys(vals: list[Any], types: set[Any]) -> np.ndarray | None:
    """Exact or monotone keys of ``vals`` (elements of ``types``), or None."""
    n = len(vals)
    t = next(iter(types)) if len(types) == 1 else None
    try:
        if t in _NUMPY_TYPES:
            with np.errstate(invalid="ignore"):
                return np.fromiter(vals, t, n)  # exact: the elements' own dtype
        if types <= _INT_TYPES:
            try:
                return np.fromiter(vals, np.int64, n)
            except OverflowError:
                pass  # beyond int64: the float keys
        if not types <= _REAL_TYPES:
            return None
        # float(v) of every element (int, Fraction, Decimal, NumPy scalars): correctly
        # rounded, so monotone; runs of equal keys are then ordered exactly
        with np.errstate(invalid="ignore"):  # a signaling NaN; the caller checks
            keys = np.fromiter(vals, np.float64, n)
    except (OverflowError, ValueError, TypeError):  # huge values, Decimal sNaN
        return None
    return keys


def _entry(v: Any, i: int) -> tuple[Any, int, Any]:
    """The generic scan's ``(value, position, object)`` entry of ``v``."""
    t = type(v)
    if t is int or t is float or t is Fraction or t is Decimal:
        return (v, i, v)
    return (describe(v)[5], i, v)


def _select(vals: list[Any], keys: np.ndarray, ranks: tuple[int, ...], same: bool) -> list[Any]:
    """The objects at ``ranks`` of the generic path's order. ``same``: equal nonzero
    keys mean interchangeable objects (one type, exact keys), so a run of them (a
    list of bools has two) needs no ordering."""
    part = np.partition(keys, ranks)
    out = []
    for k in ranks:
        f = part[k]
        below = int(np.count_nonzero(keys < f))
        idx = np.flatnonzero(keys == f)
        if same and (f != 0 or keys.dtype.kind != "f"):
            out.append(vals[int(idx[k - below])])
            continue
        run = [_entry(vals[i], i) for i in idx.tolist()]
        if len(run) > 1:
            sort_numbers(run)
        out.append(run[k - below][2])
    return out


def _short_select(vals: list[Any], t: type[Any], ranks: tuple[int, ...]) -> list[Any] | None:
    """The objects at ``ranks`` of a short list of one type, by ``sorted``, or None
    when a NaN or a zero at a selected rank needs the generic order."""
    if t is Decimal:
        return _decimal_select(vals, ranks)
    if t not in _SORTABLE:
        return None
    floating = t in _FLOAT_MAX
    if floating:
        try:
            if math.isnan(math.fsum(vals)):
                return None
        except (OverflowError, ValueError):  # inf + -inf: a zero is not the issue, but
            return None  # the generic path decides the infinities' midpoint
    s = sorted(vals)
    a, b = s[ranks[0]], s[ranks[1]]  # no comprehension: its set-up costs more here
    if floating and (a == 0 or b == 0):
        return None  # -0.0 and +0.0 are equal to sorted(), not to totalOrder
    return [a, b]


def _decimal_sorted(vals: list[Any]) -> list[Any] | None:
    """``vals`` (Decimals) in the generic order, or None when one is a NaN (an ordering
    comparison with a NaN raises under the trap set here; a short list is looked at
    first instead, which costs less than the context)."""
    if len(vals) <= _SHORT_DECIMAL_SCAN:
        return None if any(map(_DEC_IS_NAN, vals)) else sorted(vals)
    with localcontext() as ctx:
        ctx.traps[InvalidOperation] = True
        try:
            return sorted(vals)
        except InvalidOperation:
            return None


def _decimal_select(vals: list[Any], ranks: tuple[int, ...]) -> list[Any] | None:
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
        sort_numbers(run)
        out.append(run[k - a][2])
    return out


def _decimal_run(vals: list[Any], v: Decimal) -> list[Any]:
    return [(x, i, x) for i, x in enumerate(vals) if x == v]


def _signaling(v: Any) -> bool:
    """Whether NaN ``v`` is signaling: the bits of a float / ``np.float64`` (bit 51, the
    quiet bit, is bit 3 of the 7th little-endian byte), a Decimal's own test, and
    :func:`~nanaccess.core.objects.classify.classify_object` for anything else (a
    float32 NaN would be quieted by ``float()``)."""
    t = type(v)
    if t is float or t is np.float64:
        return not _DOUBLE.pack(v)[6] & 8
    if t is Decimal:
        return cast("bool", v.is_snan())
    if t in _FLOAT_MAX:  # the other NumPy floats: their own bits
        return not npfloat_desc(v)[3]
    return not classify_object(v)[3]


def _drops_silently(nans: list[Any], policy: NanPolicy | None) -> bool:
    """Whether ``policy`` drops the NaN objects ``nans`` with no error
    (:meth:`~nanaccess.core.policy.PolicyRules.drops_silently`; a signaling one never)."""
    if policy is None:
        return False
    return RULES[policy].drops_silently(True, any(map(_signaling, nans)))


def _drop_nans(vals: list[Any], keys: np.ndarray, nan: np.ndarray, policy: NanPolicy | None
               ) -> tuple[list[Any], np.ndarray]:
    """The numbers of ``vals`` and their keys when ``policy`` removes NaNs and none is
    signaling; otherwise nothing (the generic path decides, and raises)."""
    if not _drops_silently([vals[i] for i in np.flatnonzero(nan).tolist()], policy):
        return [], keys
    keep = np.flatnonzero(~nan).tolist()
    return [vals[i] for i in keep], keys[~nan]


def _short_drop(vals: list[Any], t: type[Any], stat: str, policy: NanPolicy
                ) -> tuple[list[Any], tuple[int, int], list[Any]] | None:
    """``(numbers, ranks, picked)`` of a short list of one type ``t`` holding NaNs that
    ``policy`` drops silently (:func:`_short_select` on the numbers); None otherwise
    (no NaN, nothing left, a NaN kept or raised for, a zero picked)."""
    if t is Decimal:  # is_nan: no comparison, so no InvalidOperation for an sNaN
        nans = list(filter(_DEC_IS_NAN, vals))
        nums = list(filterfalse(_DEC_IS_NAN, vals))
    else:
        nans = [v for v in vals if v != v]
        nums = [v for v in vals if v == v]
    if not nans or not nums or not _drops_silently(nans, policy):
        return None
    ranks = median_ranks(stat, len(nums))
    picked = _short_select(nums, t, ranks)
    return None if picked is None else (nums, ranks, picked)


def list_median(vals: list[Any], stat: str, policy: NanPolicy | None = None) -> Any:
    """``stat`` (one of :data:`MEDIANS`) of ``vals`` as the generic list path gives
    it, or ``None`` when the fast path does not apply.

    Applies to non-empty lists of ``int``, ``bool``, ``float``, ``Fraction``,
    ``Decimal`` and the NumPy integer and float scalar types, in any mixture, with
    no NaN, or with quiet NaNs that ``policy`` (resolved; None: no policy known)
    removes. Missing values and other types: the generic path.

    Examples
    --------
    >>> list_median([3, 1, 2, 4], "median")
    2.5
    >>> list_median([3, 1, 2, 4], "median_low")
    2
    >>> list_median([1.0, 2, True], "median")
    1.0
    >>> list_median([1, float("nan")], "median") is None  # a NaN: the policy decides
    True
    """
    if stat not in MEDIANS or type(vals) is not list or not vals:
        return None
    # bools: counted in one C pass that also proves the type of every element
    below = bool_list_falses(vals) if type(vals[0]) is bool else None
    types = _BOOL_ONLY if below is not None else set(map(type, vals))
    if types == _FLOAT_ONLY:
        return None  # Python floats: the float64 array path (core/floatlist.py) is faster
    if types == _NP_F64_ONLY and len(vals) <= SMALL_LIST:
        # np.float64 is a float subclass whose float() keeps every bit: the Python float
        # lane (sorted() on floats, not NumPy's scalar comparisons), as np.float64
        got = float_list_pick(list(map(float, vals)), LIST_RANKS[stat], policy)
        if got is not None:
            return np.float64(got)
    n = len(vals)
    ranks = LIST_RANKS[stat][n] if n <= SMALL_LIST else median_ranks(stat, n)
    picked = None
    if below is not None:  # two values (True and False are singletons)
        picked = [ranks[0] >= below, ranks[1] >= below]
    elif len(types) == 1 and (len(vals) <= SHORT_LIST
                              or (types == _DECIMAL_ONLY and len(vals) <= SHORT_DECIMALS)):
        t = next(iter(types))
        picked = _short_select(vals, t, ranks)
        if picked is None and policy is not None:  # NaNs the policy drops
            short = _short_drop(vals, t, stat, policy)
            if short is not None:
                vals, ranks, picked = short
    if picked is None and len(vals) <= SHORT_LIST and types <= _REAL_TYPES:
        short = _short_keyed(vals, stat, policy)  # mixtures, and NaNs a policy removes
        if short is not None:
            vals, ranks, picked = short
        elif types <= _PY_TYPES:
            picked = _short_mixed(vals, ranks)  # ints beyond float: sorted exactly
    if picked is None:
        keys = _keys(vals, types)
        if keys is None:
            return None
        if keys.dtype.kind == "f":
            nan = np.isnan(keys)
            if nan.any():
                vals, keys = _drop_nans(vals, keys, nan, policy)
                if not vals:
                    return None
                ranks = median_ranks(stat, len(vals))
        t = next(iter(types)) if len(types) == 1 else None
        # exact keys of one type: ints in int64, NumPy scalars in their own dtype
        same = t in _SORTABLE and (t not in _PLAIN_INTS or keys.dtype.kind != "f")
        picked = _select(vals, keys, ranks, same)
    a, b = picked
    if stat not in _stats.MIDPOINT_MEDIANS or ranks[0] == ranks[1]:
        return a
    mid = _plain_mid(a, b)
    if mid is not None:
        return mid
    if Decimal not in types:
        return weighted_mean_of(a, 1, b, 1, 2)
    with localcontext() as ctx:  # the generic path's context
        ctx.traps[FloatOperation] = False
        return weighted_mean_of(a, 1, b, 1, 2)


def _short_keyed(vals: list[Any], stat: str, policy: NanPolicy | None
                 ) -> tuple[list[Any], tuple[int, int], list[Any]] | None:
    """``(numbers, ranks, picked)`` of a short list of real types (any mixture) on
    ``float(v)`` keys in Python: :func:`_select` without arrays. Quiet NaNs are dropped
    when ``policy`` removes them; None for anything else (a NaN the policy keeps or
    raises for, a value beyond float)."""
    try:
        keys = list(map(float, vals))
    except (OverflowError, ValueError, TypeError):  # huge values, Decimal sNaN
        return None
    total = sum(keys)
    if total != total:  # a NaN, or +inf and -inf
        nan = [i for i, k in enumerate(keys) if k != k]
        if nan:
            if not _drops_silently([vals[i] for i in nan], policy):
                return None  # kept, raised for, or signaling: the generic path decides
            vals = [v for v, k in zip(vals, keys, strict=True) if k == k]
            if not vals:
                return None
            keys = [k for k in keys if k == k]
    ranks = median_ranks(stat, len(vals))
    s = sorted(keys)
    picked = []
    for k in ranks:
        f = s[k]
        below, end = bisect_left(s, f), bisect_right(s, f)
        if end - below == 1:  # a key of its own: the one element holding it
            picked.append(vals[keys.index(f)])
            continue
        # equal keys (equal or float-rounded values, zeros of both signs): the
        # generic order of that run alone
        run = [_entry(vals[i], i) for i, kv in enumerate(keys) if kv == f]
        sort_numbers(run)
        picked.append(run[k - below][2])
    return vals, ranks, picked


def _short_mixed(vals: list[Any], ranks: tuple[int, ...]) -> list[Any] | None:
    """The objects at ``ranks`` of a short NaN-free mixture, ordered by the generic
    path's own sort (no keys); None when a NaN is present."""
    for v in vals:
        if v != v:
            return None
    entries = list(map(_entry, vals, range(len(vals))))
    sort_numbers(entries)
    return [entries[ranks[0]][2], entries[ranks[1]][2]]


def _plain_mid(a: Any, b: Any) -> Any:
    """``weighted_mean_of(a, 1, b, 1, 2)`` for two ints or two NumPy floats of one type when
    nothing can overflow (the same expression, without its checks), else None."""
    t = type(a)
    if t is not type(b):
        if t in _PY_NUMBERS and type(b) in _PY_NUMBERS:  # int / bool beside float
            try:
                r = (a + b) / 2
            except OverflowError:  # an int beyond float: weighted_mean_of's exact path
                return None
            return r if math.isfinite(r) else None
        fa, fb = _FLOAT_MAX.get(t), _FLOAT_MAX.get(type(b))
        if fa is not None and fb is not None and abs(float(a)) + abs(float(b)) < min(fa, fb):
            return (a + b) / 2  # two float types (NumPy's promotion): nothing overflows
        return None
    if t in _INT_TYPES or t is np.uint64:
        try:
            return (int(a) + int(b)) / 2  # ints as Python ints: no wrap-around
        except OverflowError:  # beyond float: weighted_mean_of's exact path
            return None
    if t is Decimal:  # the same expression in the caller's context, when finite
        return (a + b) / 2 if a.is_finite() and b.is_finite() else None
    fmax = _FLOAT_MAX.get(t)
    if fmax is not None and abs(float(a)) + abs(float(b)) < fmax:
        return (a + b) / 2  # finite, and the sum cannot round to an infinity
    return None
