"""The fixed total order of the object path and the one classification pass.

:func:`scan_values` classifies every element once and hands what it found to
:func:`nanaccess.core.policy.raise_for` (the policy's errors); the number keys and
:func:`sort_numbers` realise the fixed order (numbers by value, then type rank and
bits inside runs of equal values; NaNs by totalOrder; missing values last), and
:func:`object_sort_keys` gives one key per element for the sorts.
"""

from __future__ import annotations

import numbers
import reprlib
from collections.abc import Callable, Iterable, Sequence
from decimal import Decimal
from fractions import Fraction
from typing import Any

import numpy as np

from ...options import NanPolicy, resolve_policy
from ..policy import RULES, NanTally, raise_for
from .classify import DEC, FLOAT, describe, tname


def _number_key(v: Any, sign: int, rank: int, value: Any) -> tuple[Any, ...]:
    if rank == FLOAT:
        sub: Any = (1 - sign, tname(type(v)))
    elif rank == DEC:
        exp = v.as_tuple().exponent
        if not isinstance(exp, int):  # infinities
            exp = 0
        # compare_total among equal values: -0 < +0; positive: smaller exponent first,
        # negative: mirrored
        sub = (1 - sign, -exp if sign else exp, tname(type(v)))
    else:
        sub = tname(type(v))
    # the sign before the type: among equal values (zeros) every negative zero
    # (-0.0, Decimal("-0")) sorts below every non-negative one, whatever its type
    return (1, value, 1 - sign, rank, sub)


def _nan_order(v: Any, sign: int, payload: int, quiet: bool, rank: int) -> tuple[Any, ...]:
    """totalOrder among NaNs (a key whose first element is the sign)."""
    if sign:
        return (0, -int(quiet), -payload, rank, tname(type(v)))
    return (1, int(quiet), payload, rank, tname(type(v)))


def _key(v: Any, desc: tuple[Any, ...], nan_rank: str | None) -> tuple[Any, ...]:
    """The sort key of ``v`` (described by ``desc``) when NaNs rank at ``nan_rank``
    (:attr:`PolicyRules.nan_rank`)."""
    cls = desc[0]
    if cls == "number":
        return _number_key(v, desc[1], desc[4], desc[5])
    if cls == "nan":
        tk = _nan_order(v, desc[1], desc[2], desc[3], desc[4])
        if nan_rank == "first":
            group = 0
        elif nan_rank == "totalorder":
            group = 0 if desc[1] else 2
        else:  # last (and "omit" sort keys: dropped by the caller)
            group = 2
        return (group, *tk)
    return (3, tname(type(v)))  # missing: last; by type only so the order is fixed


# ------------------------------------------------------- one classification pass


class Scan:
    """What one classification pass found.

    ``nums`` holds ``(value, position, object)`` with ``value`` exactly comparable
    across types (the object itself for Python int/float/Fraction/Decimal); ``nans``
    ``(nan order, position, object)``; ``miss`` ``(position, object)`` of the
    missing values. ``first_nan`` / ``first_miss`` are the first positions (``None``:
    none seen).
    """

    __slots__ = ("nums", "nans", "miss", "first_nan", "first_miss")

    def __init__(self) -> None:
        self.nums: list[tuple[Any, int, Any]] = []
        self.nans: list[tuple[tuple[Any, ...], int, Any]] = []
        self.miss: list[tuple[int, Any]] = []
        self.first_nan: int | None = None
        self.first_miss: int | None = None

    def best_nan(self) -> tuple[tuple[Any, ...], int, Any] | None:
        """The NaN greatest under totalOrder (first position among identical ones)."""
        if not self.nans:
            return None
        return max(self.nans, key=lambda e: (e[0], -e[1]))


def _type_error(v: Any, i: int, what: str) -> TypeError:
    if isinstance(v, (complex, np.complexfloating)) or (
        isinstance(v, numbers.Complex) and not isinstance(v, numbers.Real)
    ):
        return TypeError(
            f"complex numbers have no order: {reprlib.repr(v)} at position {i} "
            f"(nanaccess {what} need real numbers)"
        )
    return TypeError(
        f"non-numeric value {reprlib.repr(v)} of type {type(v).__name__!r} at position {i}; "
        f"nanaccess {what} need real numbers (int, float, Fraction, Decimal) or missing "
        "values (None, pd.NA, NaT)"
    )


#: raises the policy's error for a tally of one sequence (positions index the sequence);
#: :func:`nanaccess.core.policy.raise_for` or a wrapper that places the sequence in an
#: array (:mod:`.rows`)
Check = Callable[[NanTally, NanPolicy], None]


def scan_values(values: Iterable[Any], policy: NanPolicy, what: str,
                check: Check = raise_for) -> Scan:
    """Classify every element once; ``TypeError`` for a non-number, and ``check`` the
    tally of signaling NaNs, NaNs and missing values (the policy's errors)."""
    sc = Scan()
    nums_append = sc.nums.append
    sig_count = 0
    first_sig = None
    for i, v in enumerate(values):
        t = type(v)
        # fast paths for the common exact types (no description needed)
        if t is float:
            if v == v:
                nums_append((v, i, v))
                continue
        elif t is int or t is Fraction:
            nums_append((v, i, v))
            continue
        elif t is Decimal and not v.is_nan():
            nums_append((v, i, v))
            continue
        desc = describe(v)
        cls = desc[0]
        if cls == "number":
            nums_append((desc[5], i, v))
        elif cls == "nan":
            if not desc[3]:
                sig_count += 1
                if first_sig is None:
                    first_sig = i
            if sc.first_nan is None:
                sc.first_nan = i
            sc.nans.append((_nan_order(v, desc[1], desc[2], desc[3], desc[4]), i, v))
        elif cls == "missing":
            if sc.first_miss is None:
                sc.first_miss = i
            sc.miss.append((i, v))
        else:
            raise _type_error(v, i, what)
    if sc.nans or sc.miss:
        check(NanTally(sig_count, first_sig, len(sc.nans), sc.first_nan, len(sc.miss),
                       sc.first_miss), policy)
    return sc


def _full_key(e: tuple[Any, int, Any]) -> tuple[Any, ...]:
    """The complete number key of a ``(value, position, object)`` entry."""
    v = e[2]
    desc = describe(v)
    return _number_key(v, desc[1], desc[4], e[0])


def first_of(e: tuple[Any, ...]) -> Any:
    return e[0]


def _plain_run(run: list[tuple[Any, int, Any]]) -> bool:
    """True when equal-valued entries are indistinguishable (same type and bits)."""
    t = type(run[0][2])
    if t is int or t is Fraction:
        return all(type(e[2]) is t for e in run)
    if t is float and run[0][0] != 0:
        return all(type(e[2]) is t for e in run)
    return False


def sort_numbers(nums: list[tuple[Any, int, Any]]) -> None:
    """Sort entries in place into the fixed order: by value, then (only inside runs of
    equal values, where type and bits can differ) by the full key."""
    nums.sort(key=first_of)
    n = len(nums)
    k = 0
    while k < n - 1:
        if nums[k + 1][0] != nums[k][0]:
            k += 1
            continue
        j = k + 1
        while j < n and nums[j][0] == nums[k][0]:
            j += 1
        run = nums[k:j]
        if not _plain_run(run):
            run.sort(key=_full_key)
            nums[k:j] = run
        k = j


def extreme_number(nums: list[tuple[Any, int, Any]], which: str) -> tuple[Any, int, Any]:
    """min/max entry in the fixed order; among identical ones the first position."""
    pick = min if which == "min" else max
    target = pick(nums, key=first_of)[0]
    ties = [e for e in nums if e[0] == target]
    if len(ties) == 1 or _plain_run(ties):
        return ties[0]
    best = pick(_full_key(e) for e in ties)
    return next(e for e in ties if _full_key(e) == best)


def object_sort_keys(values: Sequence[Any], policy: NanPolicy | str) -> list[tuple[Any, ...]]:
    """A sort key per element whose order is the policy's order.

    Parameters
    ----------
    values : sequence
        Python objects (numbers, NaNs, missing values).
    policy : NanPolicy or str
        "totalorder", "smallest", "largest": NaNs placed accordingly, missing values
        after everything. "omit": keys as "largest" (NaNs and missing last) for the
        caller to drop them. "raise": ``NaNError`` if any NaN or missing value is
        present. "propagate" has no meaning for a sort (``ValueError``).

    Returns
    -------
    list of tuple
        Mutually comparable keys; equal keys mean objects of the same type and bits
        (missing values: of the same type). Keys of mixed Decimal/float data compare
        a Decimal with a float, which trips a ``decimal.FloatOperation`` trap if the
        caller enabled one; sort inside a ``decimal.localcontext`` without it.

    Raises
    ------
    SignalingNaNError
        For signaling NaNs under every policy but "totalorder".

    Examples
    --------
    >>> vals = [1.0, float("-nan"), -0.0, 0.0, None, float("nan")]
    >>> keys = object_sort_keys(vals, "totalorder")
    >>> [vals[i] for i in sorted(range(len(vals)), key=keys.__getitem__)]
    [nan, -0.0, 0.0, 1.0, nan, None]
    """
    policy = resolve_policy(policy)
    rules = RULES[policy]
    if not rules.can_sort:
        raise ValueError(
            f'nan_policy="{policy.value}" has no meaning for a sort; use "totalorder", '
            '"smallest", "largest", "omit" or "raise"'
        )
    values = list(values)
    scan_values(values, policy, "sorts")  # the policy checks
    return [_key(v, describe(v), rules.nan_rank) for v in values]
