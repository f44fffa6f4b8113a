"""Exact moments (mean, var, std, sum) of a sequence of Python objects."""

from __future__ import annotations

import math
import numbers
import operator
import statistics
from collections import defaultdict
from collections.abc import Iterable
from decimal import Decimal, FloatOperation, localcontext
from fractions import Fraction
from typing import Any, cast

import numpy as np

from ... import _stats
from ...options import NanPolicy, resolve_policy
from ..policy import RULES, raise_for
from .arith import as_arith, as_exact, convert, inf_result, is_inf, rank_of_type
from .classify import CANONICAL_NAN, DEC, INT
from .scan import Check, scan_values

__all__ = ["object_moment_stat", "MOMENT_STATS"]

MOMENT_STATS = _stats.MOMENT


def _exact_sum(nums: list[Any]) -> Fraction | int:
    """Exact sum of finite numbers (partial sums per denominator, as ``statistics``)."""
    partials: dict[int, int] = {}
    get = partials.get
    for v in nums:
        try:
            num, den = v.as_integer_ratio()
        except AttributeError:
            e = as_exact(v)
            num, den = (e, 1) if isinstance(e, int) else (e.numerator, e.denominator)
        partials[den] = get(den, 0) + num
    if not partials:
        return 0
    if len(partials) == 1 and 1 in partials:
        return partials[1]
    return sum((Fraction(num, den) for den, num in partials.items()), Fraction(0))


def _result_type(nums: list[Any]) -> tuple[int, type[Any], type[Any] | None]:
    """(rank, float type, Decimal type) of a moment's result: the highest type rank
    present (``statistics`` where it can coerce, extended to every mixture)."""
    types = {type(v) for v in nums}
    rank = max((rank_of_type(t) for t in types), default=INT)
    ftypes = {t for t in types if issubclass(t, (float, np.floating))}
    ftype = ftypes.pop() if len(ftypes) == 1 else float
    dtypes = {t for t in types if issubclass(t, Decimal)}
    dtype = dtypes.pop() if len(dtypes) == 1 else Decimal
    return rank, ftype, dtype


def _float_sqrt_of_frac(num: int, den: int) -> float:
    """Correctly rounded sqrt(num/den) (as :mod:`statistics` computes it)."""
    width = 2 * 53 + 3
    qq = (num.bit_length() - den.bit_length() - width) // 2
    if qq >= 0:
        a = math.isqrt(num // (den << 2 * qq))
        a |= a * a * (den << 2 * qq) != num
        top, bottom = a << qq, 1
    else:
        a = math.isqrt((num << -2 * qq) // den)
        a |= a * a * den != (num << -2 * qq)
        top, bottom = a, 1 << -qq
    try:
        return top / bottom
    except OverflowError:
        raise OverflowError(
            "standard deviation too large for a float (the variance is exact: use var)"
        ) from None


def _decimal_sqrt_of_frac(num: int, den: int, dtype: type[Any] = Decimal) -> Decimal:
    """Correctly rounded sqrt(num/den) as a Decimal in the current context."""
    if num <= 0:
        return cast("Decimal", dtype("0.0"))
    root = (dtype(num) / dtype(den)).sqrt()
    nr, dr = root.as_integer_ratio()
    plus = root.next_plus()
    np_, dp = plus.as_integer_ratio()
    if 4 * num * (dr * dp) ** 2 > den * (dr * np_ + dp * nr) ** 2:
        return cast("Decimal", plus)
    minus = root.next_minus()
    nm, dm = minus.as_integer_ratio()
    if 4 * num * (dr * dm) ** 2 < den * (dr * nm + dm * nr) ** 2:
        return cast("Decimal", minus)
    return cast("Decimal", root)


def _check_ddof(ddof: Any) -> int | Fraction:
    """``ddof`` as an int, or an exact Fraction for a non-integral real number."""
    try:
        return operator.index(ddof)
    except TypeError:
        pass
    if not isinstance(ddof, (numbers.Real, Decimal)):
        raise TypeError(f"ddof must be a finite real number, got {ddof!r}")
    try:
        exact = Fraction(ddof) if not isinstance(ddof, np.floating) else Fraction(float(ddof))
    except (TypeError, ValueError, OverflowError):
        raise TypeError(f"ddof must be a finite real number, got {ddof!r}") from None
    return int(exact) if exact.denominator == 1 else exact


def _own_moment(nums: list[Any], stat: str, ddof: int | Fraction) -> Any:
    """Exact moments for what the standard library cannot do (type mixtures it does
    not coerce, overflow, arbitrary ``ddof``)."""
    rank, ftype, dtype = _result_type(nums)
    infs = [v for v in nums if is_inf(v)]
    if stat in _stats.LINEAR:
        if infs:
            return inf_result(infs, rank)
        total = _exact_sum(nums)
        if stat in _stats.SUMS and rank == INT:
            return int(total)
        if stat in _stats.MEANS:
            total = Fraction(total) / len(nums)
        return convert(total, rank, ftype, dtype, keep_int=True)
    if infs:
        return CANONICAL_NAN
    sx_p: dict[int, int] = defaultdict(int)
    sxx_p: dict[int, int] = defaultdict(int)
    for v in nums:
        e = as_exact(v)
        num, den = (e, 1) if isinstance(e, int) else (e.numerator, e.denominator)
        sx_p[den] += num
        sxx_p[den] += num * num
    count = len(nums)
    sx = sum((Fraction(a, d) for d, a in sx_p.items()), Fraction(0))
    sxx = sum((Fraction(a, d * d) for d, a in sxx_p.items()), Fraction(0))
    ss = (count * sxx - sx * sx) / count
    ms = ss / (count - ddof)
    if stat in _stats.VARIANCES:
        return convert(ms, rank, ftype, dtype, keep_int=True)
    if rank == DEC:
        return _decimal_sqrt_of_frac(ms.numerator, ms.denominator, dtype or Decimal)
    return _float_sqrt_of_frac(ms.numerator, ms.denominator)


_DELEGATE = {
    ("mean", 0): statistics.mean,
    ("mean", 1): statistics.mean,
    ("var", 0): statistics.pvariance,
    ("var", 1): statistics.variance,
    ("std", 0): statistics.pstdev,
    ("std", 1): statistics.stdev,
}


def _canonical_if_nan(r: Any) -> Any:
    if isinstance(r, (float, np.floating)) and r != r:
        return CANONICAL_NAN
    if isinstance(r, Decimal) and r.is_nan():
        return Decimal("NaN")  # Decimal data keep a Decimal NaN (quiet, no payload)
    return r


def object_moment_stat(
    values: Iterable[Any],
    stat: str,
    *,
    ddof: int | float | Fraction = 0,
    policy: NanPolicy | str,
    statistics_compat: bool = False,
) -> Any:
    """An exact moment statistic (mean, var, std, sum) of a sequence of Python objects.

    Computed exactly (Fraction/Decimal/int arithmetic) with result types as the
    :mod:`statistics` module gives them: ``mean`` of ints is an int when exact, else a
    float; Fractions give Fractions, Decimals Decimals (rounded once in the current
    decimal context), floats floats; ``std`` is a correctly rounded float (Decimal for
    Decimals). Mixtures the standard library refuses take the highest type rank
    present (int < Fraction < Decimal < float). Where a float result would overflow
    the exact ``Fraction`` is returned.

    Parameters
    ----------
    values : iterable
        Numbers, NaNs and missing values in any mixture.
    stat : {"mean", "var", "std", "sum"}
        What to compute.
    ddof : int or real
        Delta degrees of freedom for var/std: the divisor is ``n - ddof`` (a
        non-integral ``ddof`` is used exactly). ``n - ddof <= 0`` gives the canonical
        NaN (``StatisticsError`` with ``statistics_compat``).
    policy : NanPolicy or str
        "smallest", "largest" and "totalorder" behave as "propagate" (signaling NaNs
        do not raise under "totalorder").
    statistics_compat : bool
        True: empty data raises :class:`statistics.StatisticsError` as the standard
        library does; False: the canonical NaN. ``sum`` of nothing is 0 either way.

    Returns
    -------
    object
        The statistic; under "propagate" with NaNs the NaN greatest under totalOrder
        (as stored); ``None`` for missing input without NaN under "propagate".

    Examples
    --------
    >>> from fractions import Fraction
    >>> object_moment_stat([1, 2, 3], "mean", policy="raise")
    2
    >>> object_moment_stat([Fraction(1, 3), Fraction(1, 6)], "sum", policy="raise")
    Fraction(1, 2)
    >>> object_moment_stat([float("-inf"), float("inf")], "mean", policy="raise")
    nan
    >>> object_moment_stat([1, 2, None], "mean", policy="propagate") is None
    True
    """
    return moment_of_values(values, stat, ddof=ddof, policy=resolve_policy(policy),
                        statistics_compat=statistics_compat)


def moment_of_values(
    values: Iterable[Any],
    stat: str,
    *,
    ddof: Any = 0,
    policy: NanPolicy,
    statistics_compat: bool = False,
    check: Check = raise_for,
) -> Any:
    """:func:`object_moment_stat` for a resolved policy; ``check`` raises the policy's
    errors (see :data:`.scan.Check`)."""
    if stat not in MOMENT_STATS:
        raise ValueError(f"unknown moment statistic {stat!r}; expected one of {MOMENT_STATS}")
    ddof = _check_ddof(ddof)
    sc = scan_values(values, policy, "moment statistics", check)
    if not RULES[policy].removes and (sc.nans or sc.miss):
        best = sc.best_nan()
        return best[2] if best is not None else None
    nums = [as_arith(e[2]) for e in sc.nums]
    count = len(nums)

    if stat in _stats.SUMS:
        return _own_moment(nums, "sum", 0) if nums else 0
    need = 1 if stat in _stats.MEANS else math.floor(ddof) + 1
    if count == 0 or (stat not in _stats.MEANS and count - ddof <= 0):
        if statistics_compat:
            fn = _DELEGATE.get((stat, ddof if stat not in _stats.MEANS else 0))
            if fn is not None:
                fn(nums)  # raises with the standard library's message
            raise statistics.StatisticsError(
                f"{stat} with ddof={ddof} requires at least {need} data points"
            )
        return CANONICAL_NAN
    if stat in _stats.SQUARES and any(is_inf(v) for v in nums):
        return CANONICAL_NAN  # inf - inf: undefined (statistics gives inf or fails)
    if stat in _stats.MEANS and any(is_inf(v) for v in nums):
        return _canonical_if_nan(_own_moment(nums, "mean", 0))
    fn = _DELEGATE.get((stat, 0 if stat in _stats.MEANS else ddof))
    if fn is not None:
        try:
            with localcontext() as ctx:
                ctx.traps[FloatOperation] = False
                return _canonical_if_nan(fn(nums))
        except (TypeError, OverflowError):
            pass
    return _canonical_if_nan(_own_moment(nums, stat, ddof))
