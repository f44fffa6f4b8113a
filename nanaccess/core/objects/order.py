"""Order statistics of a sequence of Python objects (median, quantiles, min, max).

The numbers are sorted once in the fixed order (:mod:`.scan`), NaNs and missing
values placed where the policy puts them, the ranks read from
:func:`nanaccess.core.plan.rank_plan` and the neighbours combined with the exact
arithmetic of :mod:`.arith`.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable
from decimal import FloatOperation, localcontext
from fractions import Fraction
from functools import lru_cache
from typing import Any, cast

import numpy as np

from ... import _stats
from ...options import NanPolicy, resolve_policy
from ..plan import rank_plan
from ..policy import RULES, raise_for
from .arith import as_arith, as_interpolated, lerp_numbers, quiet_nan, weighted_mean_of
from .classify import CANONICAL_NAN, MISS, NAN, NUM
from .scan import Check, Scan, extreme_number, first_of, scan_values, sort_numbers

__all__ = ["object_order_stat", "ORDER_STATS", "QUANTILE_METHODS"]

#: the table's order and arg statistics, and "quantiles" (:func:`statistics.quantiles`'
#: cut points, a list API of its own)
ORDER_STATS = (*_stats.ORDER, *_stats.ARG, "quantiles")
#: NumPy's methods with a rank plan the object path interpolates exactly ("weibull" is
#: accepted for "exclusive")
QUANTILE_METHODS = (
    "linear",
    "lower",
    "higher",
    "nearest",
    "midpoint",
    "inclusive",
    "exclusive",
)


def _check_quantile_args(stat: str, method: str | None, n: int) -> str:
    """Validate the arguments; return the method to use ("weibull" is "exclusive")."""
    if stat not in ORDER_STATS:
        raise ValueError(f"unknown order statistic {stat!r}; expected one of {ORDER_STATS}")
    if stat == "quantiles":
        method = {None: "exclusive", "linear": "inclusive", "weibull": "exclusive"}.get(
            method, method
        )
        if method not in ("inclusive", "exclusive"):
            raise ValueError(f"Unknown method: {method!r}")
        if n < 1:
            raise statistics.StatisticsError("n must be at least 1")
        return method
    method = {None: "linear", "weibull": "exclusive"}.get(method, method)
    if stat in _stats.TAKES_Q and method not in QUANTILE_METHODS:
        raise ValueError(
            f"unknown quantile method {method!r}; expected one of {QUANTILE_METHODS} "
            '("weibull" is accepted for "exclusive")'
        )
    return method


def _q_scalar(q: Any) -> float | Fraction:
    if isinstance(q, (float, np.floating)):
        qf = float(q)
        if not (0.0 <= qf <= 1.0):  # also NaN
            raise ValueError(f"Quantiles must be in the range [0, 1], got {q!r}")
        return qf
    try:
        qe = Fraction(as_arith(q))
    except (TypeError, ValueError, OverflowError, ArithmeticError):
        raise ValueError(f"Quantiles must be real numbers in the range [0, 1], got {q!r}") from None
    if not (0 <= qe <= 1):
        raise ValueError(f"Quantiles must be in the range [0, 1], got {q!r}")
    return qe


def _q_structure(q: Any) -> tuple[bool, Any]:
    """(is_scalar, validated q or nested list of validated q)."""
    if q is None:
        raise TypeError("quantile needs q (a number in [0, 1] or a sequence of them)")
    if isinstance(q, (str, bytes)):
        raise TypeError(f"q must be a number or a sequence of numbers, got {q!r}")
    if np.ndim(q) == 0:
        if isinstance(q, np.ndarray):
            q = q[()]
        return True, _q_scalar(q)

    def walk(x: Any) -> Any:
        if isinstance(x, (list, tuple, np.ndarray)):
            return [walk(y) for y in x]
        return _q_scalar(x)

    return False, walk(list(q) if not isinstance(q, np.ndarray) else q.tolist())


def _q_map(qs: Any, fn: Any) -> Any:
    if isinstance(qs, list):
        return [_q_map(x, fn) for x in qs]
    return fn(qs)


Plan = tuple[int, int, Fraction, str]


@lru_cache(maxsize=1024)
def _planned(stat: str, nn: int, q: float | None = None, method: str = "linear") -> Plan:
    """:func:`~nanaccess.core.plan.rank_plan` for one sequence of ``nn`` ordered items,
    as Python numbers: ``(lo, hi, weight of hi, mode)``.

    ``mode`` is "pick" (take ``lo``; every zero weight is a pick), "mid" (the exact
    midpoint: median, quantile method "midpoint") or "lerp". Memoised: the object path
    asks for one row at a time, and rows repeat their lengths.
    """
    p = rank_plan(stat, np.array([nn]), None if q is None else np.array([q]), method)
    lo, hi = int(p.lo[0, 0]), int(p.hi[0, 0])
    t = Fraction(float(p.weight[0, 0]))  # h - floor(h) in float64: exact
    if t == 0:
        return lo, lo, t, "pick"
    return lo, hi, t, "mid" if stat in _stats.MIDPOINT_MEDIANS or method == "midpoint" else "lerp"


def _positions(nn: int, q: float | Fraction, method: str) -> Plan:
    """The plan of quantile ``q`` over ``nn`` sorted items (see :func:`_planned`).

    Float ``q``: :func:`~nanaccess.core.plan.rank_plan` (NumPy's float64 expressions,
    so indices agree with NumPy). Exact ``q`` (int, Fraction, Decimal, held as a
    Fraction): the same formulas in rational arithmetic, which float64 would round.
    """
    if isinstance(q, float):
        return _planned("quantile", nn, q, method)
    last = nn - 1
    if method in ("lower", "higher", "nearest"):
        h = last * q
        if method == "lower":
            idx = math.floor(h)
        elif method == "higher":
            idx = math.ceil(h)
        else:
            idx = round(h)  # half to even, as np.around
        idx = min(max(int(idx), 0), last)
        return idx, idx, Fraction(0), "pick"
    if method == "midpoint":
        h = last * q
        lo, hi = math.floor(h), math.ceil(h)
        if lo == hi:
            return lo, lo, Fraction(0), "pick"
        return lo, hi, Fraction(1, 2), "mid"
    if method == "exclusive":  # NumPy "weibull": n*q + (0 + q*(1 - 0 - 0)) - 1
        h = nn * q + q - 1
    else:  # linear, inclusive
        h = last * q
    if h < 0:
        return 0, 0, Fraction(0), "pick"
    if h >= last:
        return last, last, Fraction(0), "pick"
    lo = math.floor(h)
    t = Fraction(h) - lo
    if t == 0:
        return lo, lo, t, "pick"
    return lo, lo + 1, t, "lerp"


def _pick(item: tuple[Any, int]) -> Any:
    return None if item[1] == MISS else item[0]


def _pick_interp(item: tuple[Any, int]) -> Any:
    v, code = item
    if code == MISS:
        return None
    if code == NAN:
        return v
    return as_interpolated(v)


def _nan_neighbours(x: tuple[Any, int], y: tuple[Any, int]) -> tuple[bool, Any]:
    """Shared rules for interpolating two sorted items: missing wins as None, then
    NaN (quieted; the higher-ranked one if both are NaN)."""
    if x[1] == MISS or y[1] == MISS:
        return True, None
    if y[1] == NAN:
        return True, quiet_nan(y[0])
    if x[1] == NAN:
        return True, quiet_nan(x[0])
    return False, None


def _median(s: list[tuple[Any, int]]) -> Any:
    lo, hi, _t, mode = _planned("median", len(s))
    if mode == "pick":
        return _pick(s[lo])
    x, y = s[lo], s[hi]
    done, r = _nan_neighbours(x, y)
    return r if done else weighted_mean_of(x[0], 1, y[0], 1, 2)


def _quantile_one(s: list[tuple[Any, int]], q: float | Fraction, method: str) -> Any:
    lo, hi, t, mode = _positions(len(s), q, method)
    if mode == "pick":
        if method in ("lower", "higher", "nearest"):
            return _pick(s[lo])
        return _pick_interp(s[lo])
    x, y = s[lo], s[hi]
    done, r = _nan_neighbours(x, y)
    if done:
        return r
    if mode == "mid":
        return weighted_mean_of(x[0], 1, y[0], 1, 2)
    return lerp_numbers(x[0], y[0], t)


def _stat_quantiles(s: list[tuple[Any, int]], n: int, method: str) -> list[Any]:
    """``statistics.quantiles`` index arithmetic over sorted items."""
    ld = len(s)
    out = []
    for i in range(1, n):
        if method == "inclusive":
            j, delta = divmod(i * (ld - 1), n)
            x = s[j]
            y = s[j + 1] if j + 1 < ld else s[j]
        else:
            m = ld + 1
            j = i * m // n
            j = 1 if j < 1 else ld - 1 if j > ld - 1 else j
            delta = i * m - j * n
            x, y = s[j - 1], s[j]
        if delta == 0:
            if x[1] != NUM:
                out.append(_pick(x))
            elif y[1] == NUM:
                out.append(weighted_mean_of(x[0], n, y[0], 0, n))
            else:
                out.append(weighted_mean_of(x[0], n, 0, 0, n))
            continue
        done, r = _nan_neighbours(x, y)
        out.append(r if done else weighted_mean_of(x[0], n - delta, y[0], delta, n))
    return out


def _empty_order(stat: str, statistics_compat: bool, q: Any, method: str, n: int) -> Any:
    if statistics_compat:
        if stat in _stats.MEDIANS:
            getattr(statistics, stat)([])
        if stat == "quantiles":
            statistics.quantiles([], n=n, method=method)
        raise statistics.StatisticsError(f"no {stat} for empty data")
    if stat in _stats.ARG:
        raise ValueError(f"attempt to get {stat} of an empty sequence")
    if stat in _stats.TAKES_Q:
        scalar, qs = _q_structure(q)
        return CANONICAL_NAN if scalar else _q_map(qs, lambda _: CANONICAL_NAN)
    if stat == "quantiles":
        return [CANONICAL_NAN] * (n - 1)
    return CANONICAL_NAN


def object_order_stat(
    values: Iterable[Any],
    stat: str,
    *,
    q: Any = None,
    method: str | None = None,
    policy: NanPolicy | str,
    statistics_compat: bool = False,
    n: int = 4,
) -> Any:
    """An order statistic of a sequence of Python objects, exactly.

    Parameters
    ----------
    values : iterable
        ints of any size, bool, Fraction, Decimal, floats, NumPy scalars, missing
        values (None, pd.NA, NaT) in any mixture.
    stat : {"median", "median_low", "median_high", "quantile", "quantiles", "min", \
"max", "argmin", "argmax"}
        What to compute.
    q : float or sequence of float, optional
        For ``"quantile"``: in [0, 1]; a sequence gives a list (nested as ``q``).
    method : str, optional
        For ``"quantile"`` (default "linear"): "linear", "lower", "higher", "nearest",
        "midpoint" as :func:`numpy.quantile`, "inclusive" (= "linear") and "exclusive"
        (= NumPy's "weibull", also accepted by that name). For ``"quantiles"`` (default
        "exclusive"): "inclusive" or "exclusive", exactly as
        :func:`statistics.quantiles` ("linear" and "weibull" are accepted as aliases,
        except with ``statistics_compat``, where "linear" is refused as
        :func:`statistics.quantiles` refuses it).
    policy : NanPolicy or str
        The ``nan_policy`` (see the "NaN semantics" page).
    statistics_compat : bool
        True for plain iterables: empty data (or nothing left under "omit") raises
        :class:`statistics.StatisticsError` as the standard library does. False (object
        arrays): empty gives the canonical NaN.
    n : int
        For ``"quantiles"``: the number of intervals.

    Returns
    -------
    object
        Picked results are the stored object (same type, bits, Decimal payload);
        interpolated ones follow :mod:`statistics` types. ``argmin``/``argmax`` give an
        int position. ``None`` where the result is missing (missing input under
        "propagate" with no NaN, or the selected rank falls among the missing values).
        ``"quantile"`` with a sequence ``q`` and ``"quantiles"`` give lists.

    Raises
    ------
    NaNError
        Under "raise" for NaN (kind "NaN") or missing (kind "missing") values.
    SignalingNaNError
        For signaling NaNs under every policy but "totalorder".
    TypeError
        For complex numbers, strings and other non-numbers (naming the position).
    statistics.StatisticsError
        For empty data with ``statistics_compat=True``.

    Examples
    --------
    >>> from fractions import Fraction
    >>> nan = float("nan")
    >>> object_order_stat([3, 1, 2, nan], "median", policy="smallest")
    1.5
    >>> object_order_stat([10**1000, 10**1000 + 1], "median", policy="raise") == (
    ...     Fraction(2 * 10**1000 + 1, 2))
    True
    >>> object_order_stat([1, 2, float("inf")], "quantile", q=0.5, policy="raise")
    2.0
    >>> object_order_stat([1, 2, 3, 4, 5], "quantiles", n=4, policy="raise",
    ...                   method="exclusive")
    [1.5, 3.0, 4.5]
    """
    return order_of_values(values, stat, q=q, method=method, policy=resolve_policy(policy),
                       statistics_compat=statistics_compat, n=n)


def order_of_values(
    values: Iterable[Any],
    stat: str,
    *,
    q: Any = None,
    method: str | None = None,
    policy: NanPolicy,
    statistics_compat: bool = False,
    n: int = 4,
    check: Check = raise_for,
) -> Any:
    """:func:`object_order_stat` for a resolved policy; ``check`` raises the policy's
    errors (:func:`nanaccess.core.policy.raise_for`, or a wrapper that names the
    position in an array)."""
    if statistics_compat and stat == "quantiles" and method == "linear":
        # the public quantiles() is statistics.quantiles, which refuses "linear": say
        # which method is meant rather than guess
        raise ValueError('quantiles() takes method="exclusive" or "inclusive" (as '
                         'statistics.quantiles); "inclusive" is NumPy\'s "linear"')
    method = _check_quantile_args(stat, method, n)
    if stat in _stats.TAKES_Q:
        q_scalar, qs = _q_structure(q)
    rules = RULES[policy]
    is_arg = stat in _stats.ARG
    # the table's rank of min / max / argmin / argmax: a scan for the extreme, no sort
    extreme = _stats.STATISTICS[stat].rank if stat in _stats.STATISTICS else None
    with localcontext() as ctx:
        # mixed Decimal/float ordering must not trip a user's FloatOperation trap
        ctx.traps[FloatOperation] = False
        sc = scan_values(values, policy, "order statistics", check)

        if rules.propagates and (sc.nans or sc.miss):
            best = sc.best_nan()
            r: Any = best[2] if best is not None else None
            if is_arg:
                return best[1] if best is not None else None
            if stat in _stats.TAKES_Q:
                return r if q_scalar else _q_map(qs, lambda _: r)
            if stat == "quantiles":
                return [r] * (n - 1)
            return r

        low, high, nmiss = _placed_nans(sc, rules.nan_rank)
        if not sc.nums and not low and not high and not nmiss:
            return _empty_order(stat, statistics_compat, q, method, n)
        if extreme in ("min", "max"):
            e = _extreme(sc, low, high, nmiss, extreme == "min")
            if e is None:
                return None
            return e[1] if is_arg else e[2]

        nums = sc.nums
        sort_numbers(nums)
        s = (
            [(e[2], NAN) for e in low]
            + [(e[2], NUM) for e in nums]
            + [(e[2], NAN) for e in high]
            + [(None, MISS)] * nmiss
        )

        if stat in _stats.MIDPOINT_MEDIANS:
            return _median(s)
        if stat in _stats.MEDIANS and stat not in _stats.MIDPOINT_MEDIANS:
            return _pick(s[_planned(stat, len(s))[0]])
        if stat in _stats.TAKES_Q:
            if q_scalar:
                return _quantile_one(s, qs, method)
            return _q_map(qs, lambda qq: _quantile_one(s, qq, method))
        # quantiles
        if len(s) < 2:
            if statistics_compat:
                # the standard library decides (3.13 accepts one data point)
                statistics.quantiles([0] * len(s), n=n, method=method)
            if not s:
                return [CANONICAL_NAN] * (n - 1)
            return [_pick(s[0])] * (n - 1)
        return _stat_quantiles(s, n, method)


def _placed_nans(sc: Scan, nan_rank: str | None) -> tuple[list[Any], list[Any], int]:
    """The NaNs below and above the numbers in the policy's order, and how many
    missing values follow them (none of either where the policy gives them no place)."""
    if nan_rank is None:
        return [], [], 0
    nans = sorted(sc.nans, key=first_of)
    if nan_rank == "first":
        low, high = nans, []
    elif nan_rank == "totalorder":
        split = sum(1 for e in nans if e[0][0] == 0)  # negative NaNs first
        low, high = nans[:split], nans[split:]
    else:
        low, high = [], nans
    return low, high, len(sc.miss)


def _extreme(sc: Scan, low: list[Any], high: list[Any], nmiss: int,
             smallest: bool) -> tuple[Any, ...] | None:
    """The first smallest / largest entry of the policy's order (``None``: missing)."""
    if smallest:
        if low:
            return cast("tuple[Any, ...] | None", low[0])
        if sc.nums:
            return extreme_number(sc.nums, "min")
        return high[0] if high else None
    if nmiss:
        return None
    if high:
        return cast("tuple[Any, ...] | None", high[-1])
    if sc.nums:
        return extreme_number(sc.nums, "max")
    return cast("tuple[Any, ...] | None", low[-1])
