"""The core's entry for plain Python data: lists and iterables, and small plain arrays.

The plain functions (:mod:`nanaccess.api` through :mod:`nanaccess._boundary`) follow
the :mod:`statistics` module for iterables (Python results, ``StatisticsError`` on
empty data). :func:`reduce_iterable` is that entry; it tries the lean small-data paths
(:mod:`.small` for short float lists and small arrays, :mod:`.lists` for short lists
of any numbers, :mod:`.floatlist` for float lists as arrays) before the array core
(:func:`nanaccess.core.reduce.reduce`) and the exact object path
(:mod:`nanaccess.core.objects`). :func:`list_median_lane`, :func:`array_whole` and
:func:`plain_moment` are the same lean paths for the boundary's hottest calls (a
median of a list, a small array reduced whole, a moment of a plain float64 array).
The boundary imports these entries and nothing below them.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import _stats
from ..options import NanPolicy
from .floatlist import float_list_array
from .interp import validate_q
from .lists import MEDIANS, SHORT_LIST, list_median
from .objects import object_moment_stat, object_order_stat
from .reduce import reduce
from .small import (
    LEAN_MOMENTS,
    LIST_RANKS,
    ORDERS,
    SMALL_LIST,
    float_list_pick,
    moment_plain,
    moment_small,
    order_small,
)

__all__ = ["reduce_iterable", "list_median_lane", "array_whole", "plain_moment", "list_array",
           "LEAN_LIST_STATS", "LEAN_MOMENTS", "LIST_RANKS"]

#: statistics with a lean lane for lists (:func:`list_median_lane`)
LEAN_LIST_STATS = MEDIANS
_EMPTY_MSG = {
    "mean": "mean requires at least one data point",
    "var": "variance requires at least one data point",
    "std": "standard deviation requires at least one data point",
}


def list_median_lane(data: list[Any], stat: str, policy: NanPolicy | None = None,
                     ranks: Any = None) -> Any:
    """A median of a list: short float lists (:mod:`.small`), then short lists of any
    kind (:mod:`.lists`); None: the generic path. ``policy`` None: no policy known
    (NaN-free lists only); ``ranks``: ``LIST_RANKS[stat]`` when the caller holds it.

    Examples
    --------
    >>> list_median_lane([3.0, 1.0, 2.0], "median")
    2.0
    """
    out = float_list_pick(data, LIST_RANKS[stat] if ranks is None else ranks, policy)
    if out is None and len(data) <= SHORT_LIST:
        out = list_median(data, stat, policy)
    return out


def array_whole(stat: str, data: Any, policy: NanPolicy, params: dict[str, Any]) -> Any:
    """The lean paths of a small 1-D array reduced whole (:mod:`.small`): a Python or
    NumPy scalar, or None (the generic path)."""
    if stat in ORDERS:
        out = order_small(data, stat, policy, params.get("q"), params.get("method", "linear"))
        return None if out is None else (out[()] if out.ndim == 0 else out)
    if stat in LEAN_MOMENTS and set(params) <= {"ddof"}:
        return moment_small(data, stat, policy, params.get("ddof", 0))  # exact
    return None


def list_array(vals: list[Any]) -> np.ndarray:
    """A list as an array for the array core: a list of floats with every bit kept
    (:func:`.floatlist.float_list_array`), anything else as :func:`numpy.asarray`."""
    arr = float_list_array(vals)
    return np.asarray(vals) if arr is None else arr


def plain_moment(data: np.ndarray, stat: str, ddof: float) -> Any:
    """A moment of a plain small float64 array with no policy given (no NaN: no
    policy acts), or None (:func:`.small.moment_plain`)."""
    return moment_plain(data, stat, ddof)


def reduce_iterable(stat: str, vals: list[Any], policy: NanPolicy, params: dict[str, Any]) -> Any:
    """``stat`` of a list with the :mod:`statistics` module's behaviour.

    Examples
    --------
    >>> reduce_iterable("mean", [1, 2, 4], NanPolicy.RAISE, {})
    2.3333333333333335
    """
    return _ITERABLE[_stats.get(stat).family](stat, vals, policy, params)


def _iterable_order(stat: str, vals: list[Any], policy: NanPolicy, params: dict[str, Any]) -> Any:
    """statistics-module behaviour for plain iterables."""
    arr: Any = False  # not converted yet
    if stat in MEDIANS:
        # short float lists (core/small.py), lists of numbers (core/lists.py); a long
        # list that starts with a float is tried as floats first (list_median would
        # scan every element's type only to leave a float list to the array path)
        out = float_list_pick(vals, LIST_RANKS[stat], policy)
        if out is None:
            if len(vals) > SMALL_LIST and type(vals[0]) is float:
                arr = float_list_array(vals)
            if arr is None or arr is False:
                out = list_median(vals, stat, policy)
        if out is not None:
            return out
    if arr is False:
        arr = float_list_array(vals)
    if arr is not None and stat in ORDERS:
        q = validate_q(params["q"]) if "q" in params else None
        out = order_small(arr, stat, policy, q, params.get("method", "linear"))
        if out is not None:
            return out.tolist() if out.ndim else out.item()
    if arr is not None:
        r = reduce(arr, stat, policy=policy, **params)
        # a NaN result may mean nothing was left ("omit"): statistics raises then
        if np.isnan(r.values).any() and not r.count:
            raise statistics.StatisticsError(f"no {stat} for empty data")
        return r.values.tolist() if r.values.ndim else r.values.item()
    if not vals:
        raise statistics.StatisticsError(f"no {stat} for empty data")
    out = object_order_stat(vals, stat, policy=policy, statistics_compat=True, **params)
    if out is None and stat in _stats.ARG:
        # decision 6: an arg statistic never points at a missing value (as the array
        # path): missing values have no place in the order, so they are passed over
        return object_order_stat(vals, stat, policy=NanPolicy.OMIT, statistics_compat=True,
                                 **params)
    return out


def _overflowed(stat: str, out: Any, arr: np.ndarray) -> bool:
    """A float64 var / std of finite floats that overflowed (the exact value does not
    fit, or only its square does): the list then takes the exact object path, which
    returns the exact value (var) or the square root of it (std), as lists of
    ``np.float64`` scalars do."""
    return stat in _stats.SQUARES and out == np.inf \
        and not np.isinf(arr).any()


def _iterable_moment(stat: str, vals: list[Any], policy: NanPolicy, params: dict[str, Any]) -> Any:
    arr = float_list_array(vals)
    if arr is not None and stat in LEAN_MOMENTS and set(params) <= {"ddof"}:
        out = moment_small(arr, stat, policy, params.get("ddof", 0))  # exact (core/small.py)
        if out is not None and not _overflowed(stat, out.item(), arr):
            return out.item()
    if arr is not None:
        r = reduce(arr, stat, policy=policy, **params)
        if stat in _EMPTY_MSG and not r.count:  # nothing left ("omit")
            raise statistics.StatisticsError(_EMPTY_MSG[stat])
        if not _overflowed(stat, r.values.item(), arr):
            return r.values.item()
    if not vals:
        if stat in _stats.SUMS:
            return 0
        raise statistics.StatisticsError(_EMPTY_MSG[stat])
    return object_moment_stat(vals, stat, policy=policy, statistics_compat=True, **params)


def _iterable_spread(stat: str, vals: list[Any], policy: NanPolicy, params: dict[str, Any]) -> Any:
    """iqr / mad of an iterable: floats on the float64 path, anything else exactly on
    the object path (Fraction and Decimal results); nothing left is a
    ``StatisticsError`` as the statistics module's."""
    arr = float_list_array(vals)
    if arr is None:
        arr = np.empty(len(vals), dtype=object)
        arr[:] = vals
    r = reduce(arr, stat, policy=policy, **params)
    if not r.count:
        raise statistics.StatisticsError(f"no {stat} for empty data")
    if r.missing is not None and r.missing.any():
        return None  # a missing result ("propagate" over missing values), as median's
    return r.values.item()


def _iterable_higher(stat: str, vals: list[Any], policy: NanPolicy, params: dict[str, Any]) -> Any:
    """skew / kurt / sem / prod of an iterable of numbers (floats, ints, bools); other
    values reach the engine as an object array, whose TypeError names the first one."""
    arr = float_list_array(vals)
    if arr is None:
        arr = np.empty(len(vals), dtype=object)
        arr[:] = vals
        if all(isinstance(v, int | float | np.number) and not isinstance(v, complex)
               for v in vals):
            arr = np.asarray(vals)  # ints and bools: their own dtype
    return reduce(arr, stat, policy=policy, **params).values.item()


_ITERABLE: dict[str, Callable[..., Any]] = {  # by family
    "order": _iterable_order,
    "arg": _iterable_order,
    "moment": _iterable_moment,
    "spread": _iterable_spread,
    "higher": _iterable_higher,
}
