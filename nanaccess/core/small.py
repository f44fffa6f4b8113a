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

Order statistics of a small 1-D array reduced whole, under any policy
(:func:`order_small`): one NaN mask decides what the policy does (a NaN under
"raise" or a signaling NaN: the generic path raises; "omit" drops the NaNs;
"propagate" gives the totalOrder-greatest NaN; "totalorder" keeps them in the
order); then the ranks of :func:`~nanaccess.core.plan.rank_plan` are selected on
totalOrder keys by one ``np.partition`` and combined by :func:`~nanaccess.core.plan.combine`:
the generic engine's rules without its blocks, scans and row layout. float64 medians
skip the keys (signed zeros are told apart by counting them) and the mask: one sorted
copy puts the NaNs last, counts them and holds the ranks of the numbers left.

Everything else (other dtypes and policies with NaNs present, missing values, an
overflowing sum) returns ``None`` and the caller takes the generic path, which owns
every error and every rule.
"""

from __future__ import annotations

import math
from typing import Any, cast

import numpy as np

from .. import _stats
from ..options import NanPolicy
from .bits import any_signaling
from .exactsum.certified import (
    F_NAN,
    F_SNAN,
    certified_1d,
    certified_1d_skipnan,
    certified_var_1d,
)
from .exactsum.compiled import compiled_1d
from .floatlist import (
    LIST_RANKS,
    SMALL_LIST,
    float_list_median,
    float_list_nan_median,
    float_list_pick,
    float_mid,
)
from .interp import PICK_METHODS, quantile_position
from .keys import float_keys, integer_keys, keys_to_float
from .plan import combine, median_ranks, rank_plan
from .policy import RULES

__all__ = ["MEDIANS", "ORDERS", "MOMENTS", "LEAN_MOMENTS", "SMALL_LIST", "SMALL_ARRAY",
           "SMALL_MOMENT", "LIST_RANKS", "float_list_median", "float_list_pick",
           "float_list_nan_median", "array_median", "order_small", "array_moment",
           "moment_plain", "moment_small", "column_medians", "int_mean"]

#: the statistics with a lean path here
MEDIANS = _stats.MEDIANS
#: the order statistics with a lean path here (any policy)
ORDERS = frozenset(_stats.names("order"))
#: the statistics with an exact lean path here
MOMENTS = ("sum", "mean")
#: the moments with a lean path of any policy (:func:`moment_small`)
LEAN_MOMENTS = ("sum", "mean", "var", "std")
#: longest 1-D array summed by fsum (its three passes beat the exact engine's set-up;
#: measured crossover ~250 against the exact engine's ~23 us per call)
SMALL_MOMENT = 256
#: longest 1-D array selected here (beyond it the generic engine's selection wins)
SMALL_ARRAY = 4096
_F64 = np.dtype(np.float64)


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
        return cast("np.float64 | None", a)
    m = float_mid(float(a), float(b))
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
    if stat in _stats.SUMS:
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


def int_mean(x: Any) -> np.float64 | None:
    """The exact mean of a 1-D int / uint array whose int64 sum cannot overflow
    (``max |x| * n < 2**63``), else ``None``: the sum in int64, the quotient of Python
    ints (true division is correctly rounded, once), the exact engine's value.

    Examples
    --------
    >>> int_mean(np.array([1, 2, 2]))
    np.float64(1.6666666666666667)
    >>> int_mean(np.array([2**62, 2**62])) is None
    True
    """
    if type(x) is not np.ndarray or x.ndim != 1 or x.dtype.kind not in "iu" or not x.size:
        return None
    n = x.size
    if max(-int(x.min()), int(x.max())) * n >= 2**63:
        return None
    return np.float64(int(x.sum(dtype=np.int64)) / n)


# ------------------------------------------------------------- any policy, any order stat


def _signed_zero(x: np.ndarray, k: int) -> float:
    """The zero at rank ``k`` of ``x`` in totalOrder (every ``-0.0`` below ``+0.0``)."""
    below = int(np.count_nonzero(x < 0.0)) + int(np.count_nonzero(np.signbit(x[x == 0.0])))
    return -0.0 if k < below else 0.0


def _float64_median(x: np.ndarray, stat: str, policy: NanPolicy, q: np.ndarray | None,
                    method: str) -> Any:
    """:func:`order_small` of a float64 median (``x`` native, 1-D, small): one sorted
    (or, beyond :data:`_SORT_MAX`, partitioned) copy holds the ranks of the numbers
    (NaNs placed last), so NaN-free data needs no mask and "omit" no second selection.
    NumPy's sorts write a canonical NaN, so where the policy reads the NaNs' bits (a
    signaling NaN under "omit", the greatest NaN under "propagate") they are taken from
    ``x`` by one mask, only when the sort found some; that mask counts them too."""
    p, m, nan = _sorted_numbers(x, stat)
    if m is not None:
        out = _sorted_median(x, p, m, stat)
        # None: the midpoint overflows (the keys' path repairs it)
        return _by_keys(x, stat, q, method, nan_free=True) if out is None else out
    r = RULES[policy]
    if r.nan_raises:
        return None  # the generic path raises, naming the position
    if r.propagates or not r.signaling_allowed:
        nans = x[np.isnan(x) if nan is None else nan]
        if not r.signaling_allowed and any_signaling(nans):
            return None  # a signaling NaN: the generic path raises
        if r.propagates:
            return _greatest_nan(nans, q)
        m = x.size - nans.size
    if r.removes:
        if m is None:
            # the NaNs lead nowhere (sorted): one binary search; else counted already
            m = int(p.searchsorted(_NAN)) if nan is None else x.size - int(nan.sum())
        if not m:
            return None  # nothing left: the generic path's empty result
        out = _sorted_median(x, p, m, stat)
        return _by_keys(x[~np.isnan(x)], stat, q, method, nan_free=True) if out is None \
            else out
    if r.nan_rank != "totalorder":
        return None  # "smallest" / "largest" remap NaN ranks: generic
    return _by_keys(x, stat, q, method)


def _greatest_nan(nans: np.ndarray, q: np.ndarray | None) -> np.ndarray:
    """The totalOrder-greatest of ``nans`` in ``q``'s shape ("propagate"'s result, as
    the generic engine gives it)."""
    pv = keys_to_float(np.array(float_keys(nans).max()), nans.dtype)
    return np.broadcast_to(pv, () if q is None else q.shape).copy()


def _kth(lo: int, hi: int, n: int) -> int | tuple[int, int]:
    """The ranks to partition ``n`` values at for the picks ``lo`` <= ``hi``: two
    beyond :data:`_ONE_KTH_MAX` values, where NumPy's one-rank selection costs
    several times its two-rank one (1000 float64: 11 us against 3.6 us)."""
    if lo != hi:
        return lo, hi
    return (lo, lo + 1) if n > _ONE_KTH_MAX and lo + 1 < n else lo


#: most values partitioned at one rank (measured crossover: 100-400 values)
_ONE_KTH_MAX = 200


#: a NaN to look up in a sorted array (NumPy sorts every NaN last, its searches too)
_NAN = np.float64("nan")


def _sorted_numbers(x: np.ndarray, stat: str
                   ) -> tuple[np.ndarray, int | None, np.ndarray | None]:
    """``(p, m, nan)``: ``p`` holds the median ranks of the numbers of 1-D float64
    ``x`` (every NaN placed last); ``m`` is ``x.size`` when ``x`` holds no NaN, else
    None (the caller counts them where its policy needs the count); ``nan`` is
    ``x``'s NaN mask when it was made, else None.

    Up to :data:`_SORT_MAX` values ``p`` is a sorted copy: NumPy's sort costs what a
    partition at the median ranks and the last place does there, and the ranks of the
    numbers alone need no second selection. Beyond it (the sort's cost climbs
    steeply: 27 us for 1000 values, a partition 4 us) one NaN mask counts the numbers
    and one partition at their median ranks places them; ``p`` is sorted only there
    (:func:`_sorted_median` reads nothing else)."""
    n = x.size
    if n <= _SORT_MAX:
        p = x.copy()
        p.sort()
        last = p.item(n - 1)
        return p, (n if last == last else None), None
    nan = np.isnan(x)
    m = n - int(np.count_nonzero(nan))
    if not m:
        return x, None, nan
    lo, hi = median_ranks(stat, m)
    p = x.copy()  # (the method, not np.partition's wrapper: a small call's half us)
    p.partition(_kth(lo, hi, n))  # the NaNs go last
    return p, (n if m == n else None), nan


#: longest array :func:`_sorted_numbers` sorts (measured crossover with the mask and
#: partition: 400-450 values)
_SORT_MAX = 400


def _sorted_median(x: np.ndarray, p: np.ndarray, m: int, stat: str) -> np.float64 | None:
    """The median of the ``m`` numbers leading ``p`` (``x`` sorted, NaNs last), the
    zeros signed by counting in ``x`` (a NaN counts as neither sign), or None when the
    midpoint overflows (``m`` > 0)."""
    lo, hi = median_ranks(stat, m)
    return _median_pick(x, p.item(lo), p.item(hi), lo, hi)


def _median_pick(x: np.ndarray, a: float, b: float, lo: int, hi: int) -> np.float64 | None:
    """The median from the values ``a``, ``b`` at ranks ``lo``, ``hi`` of the numbers of
    ``x`` (zeros signed by counting), or None when the midpoint overflows."""
    if a == 0.0:
        a = _signed_zero(x, lo)
    if b == 0.0:
        b = _signed_zero(x, hi)
    if lo == hi:
        return np.float64(a)
    m = float_mid(a, b)
    return None if m is None else np.float64(m)


def _quantile_f64(x: np.ndarray, q: float, method: str) -> np.float64 | None:
    """One quantile of NaN-free 1-D float64 ``x`` in Python numbers: the ranks of
    :func:`~nanaccess.core.interp.quantile_position`, NumPy's blend as
    :func:`~nanaccess.core.interp.lerp` computes it; None when the ranks need the
    array form or ``b - a`` is not finite (lerp's repairs)."""
    pos = quantile_position(x.size, q, method)
    if pos is None:
        return None
    lo, hi, t = pos
    p = np.partition(x, _kth(lo, hi, x.size))
    a = float(p[lo])
    if a == 0.0:
        a = _signed_zero(x, lo)
    if t == 0.0 or method in PICK_METHODS:
        return np.float64(a)
    b = float(p[hi])
    if b == 0.0:
        b = _signed_zero(x, hi)
    diff = b - a
    if diff - diff != 0.0:
        return None
    return np.float64(b - diff * (1.0 - t) if t >= 0.5 else a + diff * t)


def column_medians(x: Any, stat: str) -> np.ndarray | None:
    """``stat`` (one of :data:`MEDIANS`) of each column of a small 2-D NaN-free float64
    array, as :func:`order_small` gives each column (one partition for all of them);
    None when a column holds a NaN, a zero is picked or a midpoint overflows.

    Examples
    --------
    >>> column_medians(np.array([[1.0, 4.0], [3.0, 2.0], [2.0, 9.0]]), "median")
    array([2., 4.])
    """
    if type(x) is not np.ndarray or x.dtype != np.float64 or x.ndim != 2 \
            or not 0 < x.shape[0] <= SMALL_ARRAY or not x.shape[1]:
        return None
    n = x.shape[0]
    lo, hi = median_ranks(stat, n)
    p = np.partition(x.T, sorted({lo, hi, n - 1}), axis=1)  # a copy; a NaN sorts last
    if np.isnan(p[:, n - 1]).any():
        return None
    a, b = p[:, lo], p[:, hi]
    if not (a.all() and b.all()):
        return None  # a zero: its sign needs the per-column count
    if lo == hi:
        return a.copy()
    with np.errstate(over="ignore"):
        total = a + b
    return total / 2.0 if np.isfinite(total).all() else None


def _median_int(x: np.ndarray, stat: str) -> Any:
    """A median of 1-D integer or bool ``x``: the picks as stored (``x``'s dtype), the
    midpoint as :func:`~nanaccess.core.plan.combine` makes it (float64 of each, their
    float64 sum halved; a sum of two int64 values cannot overflow a double)."""
    lo, hi = median_ranks(stat, x.size)
    p = np.partition(x, _kth(lo, hi, x.size))
    a = p[lo]
    if stat not in _stats.MIDPOINT_MEDIANS:
        return a
    if lo == hi:
        return np.float64(a)
    return np.float64((float(a) + float(p[hi])) / 2.0)


def _by_keys(x: np.ndarray, stat: str, q: np.ndarray | None, method: str,
             nan_free: bool = False) -> np.ndarray:
    """``stat`` of 1-D ``x`` (NaNs, if any, in totalOrder) selected on its keys; NaN-free
    float64 on the values themselves, the zeros' signs restored by counting."""
    plan = rank_plan(stat, np.array([x.size]), q, method)
    nq = plan.lo.shape[0]
    ranks = plan.ranks[:, 0]
    kth = np.unique(ranks)
    if nan_free and x.dtype == np.float64:
        sel = np.partition(x, kth)[ranks]  # a copy: x is not touched
        zero = np.flatnonzero(sel == 0.0)
        for i in zero.tolist():
            sel[i] = _signed_zero(x, int(ranks[i]))
        sel = sel[:, None]
        a, b = sel[:nq], sel[nq:]
    else:
        keys = float_keys(x) if x.dtype.kind == "f" else integer_keys(x)
        sel = np.partition(keys, kth)[ranks][:, None]
        a, b = _key_values(sel[:nq], x.dtype), _key_values(sel[nq:], x.dtype)
    vals = combine(plan, a, None if plan.mode == "pick" else b)
    return vals.reshape(() if q is None else q.shape)


def _key_values(k: np.ndarray, dtype: np.dtype) -> np.ndarray:
    if dtype.kind == "f":
        return keys_to_float(k, dtype)
    if dtype == np.uint64:
        return cast("np.ndarray", np.bitwise_xor(k, np.int64(-(1 << 63))).view(np.uint64))
    return k.astype(dtype)


def order_small(x: Any, stat: str, policy: NanPolicy, q: np.ndarray | None = None,
                method: str = "linear") -> Any:
    """``stat`` (one of :data:`ORDERS`) of a small 1-D array reduced whole, or ``None``.

    ``policy`` is resolved and ``q`` validated (a float64 array) by the caller.
    Returns the generic engine's value (0-d array, or ``q``'s shape) bit for bit;
    ``None`` whenever the generic path must decide (errors, nothing left, missing
    values, "smallest"/"largest" with NaNs present, dtypes other than
    float16/32/64, ints and bools).

    Examples
    --------
    >>> order_small(np.array([3.0, np.nan, 1.0, 2.0]), "median", NanPolicy.OMIT)
    np.float64(2.0)
    >>> order_small(np.array([3.0, np.nan]), "median", NanPolicy.RAISE) is None
    True
    """
    if type(x) is not np.ndarray or x.ndim != 1 or not 0 < x.size <= SMALL_ARRAY \
            or not x.dtype.isnative:
        return None
    kind = x.dtype.kind
    if kind == "f":
        if x.dtype.itemsize not in (2, 4, 8):
            return None
        if stat in MEDIANS and x.dtype.char == "d":  # float64 (native: checked above)
            return _float64_median(x, stat, policy, q, method)
        nan = np.isnan(x)
        if nan.any():
            r = RULES[policy]
            if r.nan_raises:
                return None  # the generic path raises, naming the position
            nans = x[nan]
            if not r.signaling_allowed and any_signaling(nans):
                return None  # a signaling NaN: the generic path raises
            if r.propagates:
                return _greatest_nan(nans, q)
            if r.removes:
                x = x[~nan]
                if not x.size:
                    return None  # nothing left: the generic path's empty result
            elif r.nan_rank != "totalorder":
                return None  # "smallest" / "largest" remap NaN ranks: generic
            else:
                return _by_keys(x, stat, q, method)
    elif kind not in "iub":
        return None
    elif stat in MEDIANS:
        return _median_int(x, stat)
    if kind == "f" and x.dtype == np.float64:
        if stat in _stats.TAKES_Q and q is not None and q.ndim == 0:
            out = _quantile_f64(x, float(q), method)
            if out is not None:
                return out
    elif stat in MEDIANS and kind == "f":  # float32 / float16, NaN-free by now
        out = _median_narrow(x, stat)
        if out is not None:
            return out
    return _by_keys(x, stat, q, method, nan_free=True)


def _median_narrow(x: np.ndarray, stat: str) -> np.generic | None:
    """A median of NaN-free 1-D float32 / float16 ``x`` in its dtype, as the engines'
    :func:`~nanaccess.core.interp.midpoint` (the two picks summed and halved in
    float32, then cast back), zeros signed by counting; None when the sum is not
    finite (the midpoint's repairs)."""
    lo, hi = median_ranks(stat, x.size)
    p = np.partition(x, _kth(lo, hi, x.size))  # a copy: x is not touched
    a, b = p[lo], p[hi]
    if a == 0.0:
        a = x.dtype.type(_signed_zero(x, lo))
    if lo == hi:
        return cast("np.generic | None", a)
    if b == 0.0:
        b = x.dtype.type(_signed_zero(x, hi))
    with np.errstate(all="ignore"):
        total = np.float32(a) + np.float32(b)
    if not np.isfinite(total):
        return None
    return cast("np.generic | None", (total / np.float32(2.0)).astype(x.dtype))


# above this many values the compiled exact kernel beats math.fsum (measured: ~65)
SMALL_COMPILED = 64


def _compiled_moment(x: np.ndarray, stat: str, ddof: float, *,
                     plain_only: bool) -> np.float64 | None:
    """The compiled kernel's one-row entry (no scan, no layout; the NumPy engine's
    bits) for more than :data:`SMALL_COMPILED` values, or None."""
    if x.size <= SMALL_COMPILED or stat not in _stats.LINEAR and stat not in _stats.SQUARES:
        return None
    got = compiled_1d(x, "var" if stat in _stats.ROOTS else stat, ddof, plain_only=plain_only)
    if got is None:
        return None
    return np.float64(np.sqrt(got) if stat in _stats.ROOTS else got)


def _certified_skipnan(x: np.ndarray, stat: str, policy: NanPolicy, ddof: float
                       ) -> np.float64 | None:
    """``stat`` of 1-D float64 ``x`` from one pass of the certified kernel that skips
    NaNs and flags them, when it certified the value and ``policy`` drops the NaNs it
    saw silently (:meth:`~nanaccess.core.policy.PolicyRules.drops_silently`); else
    None. A certified value is the exact engine's, so it is the generic path's."""
    if stat in MOMENTS:
        got = certified_1d_skipnan(x, stat)
        if got is None:
            return None
        v, ok, _, f = got
    elif stat in _stats.SQUARES:
        sq = certified_var_1d(x, ddof, skipnan=True)
        if sq is None:
            return None
        v, ok, f = sq
    else:
        return None
    if not ok or not RULES[policy].drops_silently(bool(f & F_NAN), bool(f & F_SNAN)):
        return None
    return np.float64(_root(v) if stat in _stats.ROOTS else v)


def _root(v: float) -> Any:
    """The square root of a Python float as ``np.sqrt`` gives it (one IEEE operation
    either way): :func:`math.sqrt` for ``v >= 0`` (a tenth of the cost), NumPy's for
    NaN and negative values (no ValueError)."""
    return math.sqrt(v) if v >= 0.0 else np.sqrt(v)


def moment_plain(x: Any, stat: str, ddof: float = 0) -> np.float64 | None:
    """``stat`` of a small 1-D float64 array that holds no NaN and no infinity and whose
    result is nonzero, or ``None``: an answer every policy agrees on, so the caller
    need not resolve one (nor scan the data first).

    More than :data:`SMALL_COMPILED` values: the compiled kernel (when it saw nothing
    special); sums and means of fewer: :func:`array_moment` (``fsum`` is NaN or
    infinite, or raises, on such data); variances of fewer: the certified kernel
    (it certifies no NaN, infinity or zero); anything else: ``None``.

    Examples
    --------
    >>> moment_plain(np.array([1.0, 2.0, 4.0]), "mean")
    np.float64(2.3333333333333335)
    >>> moment_plain(np.array([1.0, np.nan]), "mean") is None
    True
    """
    if type(x) is not np.ndarray or x.dtype is not _F64 or x.ndim != 1:
        return None  # a native float64 dtype is NumPy's one instance; others: generic
    n = x.size
    if n > SMALL_COMPILED:
        return _compiled_moment(x, stat, ddof, plain_only=True) if n <= SMALL_ARRAY else None
    if n and stat in _stats.SQUARES:  # the certified kernel: certified means no NaN or inf
        got = certified_var_1d(x, ddof)
        if got is None or not got[1]:
            return None
        return np.float64(_root(got[0]) if stat in _stats.ROOTS else got[0])
    return array_moment(x, stat) if n and stat in MOMENTS else None


def moment_small(x: Any, stat: str, policy: NanPolicy, ddof: float = 0) -> np.float64 | None:
    """``sum``, ``mean``, ``var`` or ``std`` of a small 1-D float64 array reduced whole
    under ``policy``, or ``None``.

    NaNs that the policy removes are dropped (a signaling NaN, a NaN under "raise"
    or a propagated one: the generic path); the rest must be finite. Sums and means
    take :func:`array_moment`; variances the exact engine's own entry
    (:func:`nanaccess.core.exactsum.exact_var`) on the one row, without the generic
    path's scan and row layout; ``std`` is its square root, as the generic path's.

    Examples
    --------
    >>> moment_small(np.array([1.0, np.nan, 4.0]), "mean", NanPolicy.OMIT)
    np.float64(2.5)
    >>> moment_small(np.array([1.0, 2.0, 3.0, 4.0]), "var", NanPolicy.RAISE, ddof=1)
    np.float64(1.6666666666666667)
    """
    if type(x) is not np.ndarray or x.ndim != 1 \
            or x.dtype is not _F64 and (x.dtype != np.float64 or not x.dtype.isnative) \
            or not 0 < x.size <= SMALL_ARRAY:
        return None
    # sums and means: the plain kernel first (NaN-free data, the common case, is its
    # fastest pass); then, and for variances at once, one certified pass that skips
    # the NaNs and flags them
    if x.size <= SMALL_COMPILED:
        got = moment_plain(x, stat, ddof) if stat in MOMENTS else None
    else:
        cert = certified_1d(np.ascontiguousarray(x), stat) if stat in MOMENTS else None
        got = None if cert is None else np.float64(cert)
    if got is None and (x.size > SMALL_COMPILED or stat in _stats.SQUARES):
        got = _certified_skipnan(x, stat, policy, ddof)
    if got is not None:
        return got
    fin = np.isfinite(x)
    if not fin.all():
        nan = np.isnan(x)
        if not (nan | fin).all():
            return None  # an infinity: the generic path's rules
        signaling = any_signaling(x[nan])
        if not RULES[policy].drops_silently(True, signaling):
            return None  # raised or propagated: the generic path
        x = x[fin]
        if not x.size:
            return None
    from .exactsum import exact_mean, exact_sum, exact_var  # the exact engine, one row

    got = _compiled_moment(x, stat, ddof, plain_only=False)
    if got is not None:
        return got
    if stat in MOMENTS:
        out = array_moment(x, stat)
        if out is None:
            out = (exact_sum if stat in _stats.SUMS else exact_mean)(x[None, :])[0]
        return np.float64(out)
    if stat not in _stats.SQUARES:
        return None
    v = exact_var(x[None, :], ddof)[0]
    return np.float64(np.sqrt(v) if stat in _stats.ROOTS else v)
