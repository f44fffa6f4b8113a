"""The host kit: what every host adapter does around the core, written once.

pandas' ``nanops`` shares one prologue and one epilogue across its nan-functions; so
do nanaccess's hosts. An adapter maps its labels to an array, a missing mask and an
``axis``, calls a core entry point through :func:`host_reduce`, and gets back the
result with the after-core steps applied in one place:

* the core's errors restated with the host's subject and labels
  (:mod:`nanaccess._labels`), ``TypeError`` s prefixed by the subject;
* which results are over no values where the host's missing value belongs
  (:func:`empty_is_missing`, from the table's ``empty`` field);
* the integer dtype a pick keeps for hosts whose missing value is not NaN
  (:func:`kept_int_dtype`, from the table's result-dtype rule, no probe run);
* ``min_count`` (:func:`with_min_count`);
* host window lengths (:func:`window_length`: pandas offset aliases), parsed here so
  the core's window bounds take NumPy lengths only.

pandas uses it through :mod:`nanaccess.pandas.columns`; xarray, dask and a polars host
take the same functions. It imports no host library at module level.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np

from . import _stats
from ._conventions import below_min_count
from ._labels import relabel, restate
from .core.reduce import Reduced, reduce
from .errors import NaNError
from .options import NanPolicy

__all__ = ["host_reduce", "empty_is_missing", "kept_int_dtype", "with_min_count",
           "reaches_min_count", "window_length", "relabelled",
           "without_weights_kind"]


def without_weights_kind(weights: Any, params: dict[str, Any]) -> dict[str, Any]:
    """``params`` as the hook of a host that takes ``weights`` passes them on: the
    generated methods always pass ``weights_kind``, which only weighted calls use, so
    without ``weights`` it is dropped (a ValueError for anything but the default
    "frequency", which would be silently ignored).

    Examples
    --------
    >>> without_weights_kind(None, {"ddof": 1, "weights_kind": "frequency"})
    {'ddof': 1}
    >>> without_weights_kind([1, 2], {"ddof": 1, "weights_kind": "reliability"})
    {'ddof': 1, 'weights_kind': 'reliability'}
    """
    if weights is not None or "weights_kind" not in params:
        return params
    kind = params.pop("weights_kind")
    if kind not in (None, "frequency"):
        raise ValueError(f"weights_kind={kind!r} applies to weighted statistics: pass "
                         "weights= too")
    return params


def empty_is_missing(stat: str) -> bool:
    """Whether a result over no values is the host's missing value (pandas gives NA
    for nullable data) rather than a number (a sum over nothing is 0).

    Examples
    --------
    >>> empty_is_missing("median"), empty_is_missing("sum")
    (True, False)
    """
    return _stats.get(stat).empty == "nan"


def kept_int_dtype(stat: str, dtype: Any, has_na: bool, **params: Any) -> np.dtype | None:
    """The integer dtype ``stat`` keeps for integer data whose host has a missing
    value of its own (nullable / Arrow: a pick such as min, median_low or
    ``quantile(method="lower")``), else None. The core writes a missing or empty
    result of integer data as a float NaN; such hosts rebuild it in this dtype.

    Examples
    --------
    >>> kept_int_dtype("max", np.int32, True), kept_int_dtype("mean", np.int32, True)
    (dtype('int32'), None)
    """
    if not has_na:
        return None
    dt = np.dtype(dtype)
    if dt.kind not in "iu":
        return None
    if not params:  # the common call: the table's rule looked up once per dtype
        key = (stat, dt)
        if key not in _KEPT:
            kept = _stats.result_dtype(stat, dt)
            _KEPT[key] = kept if kept.kind in "iu" else None
        return _KEPT[key]
    kept = _stats.result_dtype(stat, dt, **params)
    return kept if kept.kind in "iu" else None


#: (statistic, integer dtype) -> :func:`kept_int_dtype` without parameters
_KEPT: dict[tuple[str, np.dtype], np.dtype | None] = {}


def relabelled(err: Exception, subject: str, locate: Callable[..., Any] | None = None,
               group: Any = None) -> Exception:
    """A core error restated for the user: policy errors with the subject and labels,
    ``TypeError`` s prefixed by the subject; others as they are."""
    if isinstance(err, NaNError):
        return relabel(err, subject, locate, group)
    if isinstance(err, TypeError):
        return restate(err, subject)
    return err


def undefined_spread(count: Any, stat: str, params: dict[str, Any]) -> Any:
    """Where a var / std has too few values for its ``ddof`` (``count - ddof <= 0``): a
    host with a missing value of its own gives it there (pandas' ``pd.NA`` for nullable
    data), not NaN.

    Examples
    --------
    >>> undefined_spread(np.array([1, 3]), "var", {"ddof": 1}).tolist()
    [True, False]
    """
    if stat not in _stats.SQUARES:
        return False
    return np.asarray(count) - params.get("ddof", 0) <= 0


def host_reduce(values: np.ndarray, stat: str, policy: NanPolicy,
                missing: np.ndarray | None, has_na: bool, axis: int | None = None,
                params: dict[str, Any] | None = None) -> tuple[Reduced, np.ndarray | None]:
    """``reduce(values, stat, **params)`` with the host's after-core steps;
    ``(result, empty)``. Core errors propagate: the host restates them with its
    labels (:func:`relabelled`), so labels cost nothing on the way through.

    ``has_na``: the host has a missing value of its own (nullable / Arrow columns):
    ``empty`` then marks the results over no values (else None), and a whole-column
    pick of integer data whose result is missing keeps the integer dtype.

    Examples
    --------
    >>> r, empty = host_reduce(np.array([1.0, np.nan]), "median", NanPolicy.OMIT,
    ...                        None, False)
    >>> r.values, empty
    (array(1.), None)
    """
    params = params or {}
    red = reduce(values, stat, axis=axis, policy=policy, missing=missing, **params)
    if not has_na:
        return red, None
    empty = None
    if empty_is_missing(stat):
        if axis is None and missing is None and values.dtype.kind in "iub":
            # whole integer data with no missing slot: every value counts (no count scan)
            n = values.size
            flag = n == 0 or bool(undefined_spread(n, stat, params))
            empty = np.array(flag) if np.ndim(red.values) == 0 else \
                np.full(np.shape(red.values), flag)
        else:
            empty = np.asarray(red.empty | undefined_spread(red.count, stat, params))
            if empty.shape != np.shape(red.values):
                empty = np.broadcast_to(empty, np.shape(red.values))
    kept = kept_int_dtype(stat, values.dtype, has_na, **params) if (
        axis is None and red.values.dtype.kind == "f") else None
    if kept is not None:
        # a whole integer column whose result is missing: the host's NA in the column's
        # integer dtype (the core's float NaN stands for it), never a float result
        red = dataclasses.replace(red, values=np.zeros(red.values.shape, kept))
    return red, empty


def with_min_count(values: np.ndarray, missing: np.ndarray | None, count: Any,
                   min_count: int, has_na: bool) -> tuple[np.ndarray, np.ndarray | None]:
    """(values, missing) with the results over fewer than ``min_count`` values made
    the host's missing value, as pandas' ``sum(min_count=)``: marked missing (their
    dtype kept) where the host has a missing value of its own, else NaN (ints become
    float64).

    Examples
    --------
    >>> with_min_count(np.array([3, 0]), None, np.array([2, 0]), 1, has_na=False)
    (array([ 3., nan]), array([False,  True]))
    """
    below = np.broadcast_to(below_min_count(count, min_count), np.shape(values))
    if not below.any():
        return values, missing
    if not has_na:
        dt = values.dtype if values.dtype.kind in "fO" else np.dtype(np.float64)
        values = np.array(values, dtype=dt)
        values[below] = np.nan
    missing = below.copy() if missing is None else (np.asarray(missing) | below)
    return values, missing


def reaches_min_count(count: Any, min_count: int) -> Any:
    """Where ``count`` (an array or a labelled host object of counts) reaches
    ``min_count``: the results that ``sum(min_count=)`` keeps, as pandas and xarray;
    ``min_count`` validated as every host's.

    Examples
    --------
    >>> reaches_min_count(np.array([0, 2, 3]), 2).tolist()
    [False, True, True]
    """
    below_min_count(0, min_count)  # validates
    return count >= min_count


def window_length(window: Any) -> Any:
    """A host's time-window length as NumPy takes it: an offset alias (``"7D"``), a
    pandas Timedelta or a ``datetime.timedelta`` becomes a ``timedelta64``; an int
    (a length in the index's unit) or a ``timedelta64`` is returned as is.

    Examples
    --------
    >>> window_length("2D") == np.timedelta64(2, "D"), window_length(3)
    (np.True_, 3)
    """
    if isinstance(window, int | np.integer | np.timedelta64):
        return window
    import pandas as pd  # the host's offset aliases: parsed by the host library

    if isinstance(window, str):
        off = pd.tseries.frequencies.to_offset(window)
        try:  # .nanos, not Timedelta(off): pandas 3.0 refuses Timedelta(Day())
            td = pd.Timedelta(off.nanos, unit="ns")
        except ValueError:
            raise ValueError(f"{window!r} is not a fixed frequency") from None
    else:
        td = pd.Timedelta(window)
    return td.to_timedelta64()


def duration(value: Any) -> Any:
    """A host's duration as NumPy takes it: a string ("2 days", "1h") or a pandas
    Timedelta becomes a ``timedelta64[ns]``; numbers and ``timedelta64`` are returned as
    they are.

    Examples
    --------
    >>> duration("2 days") == np.timedelta64(2, "D"), duration(0.5)
    (np.True_, 0.5)
    """
    if value is None or isinstance(value, int | float | np.number | np.timedelta64):
        return value
    import pandas as pd  # the host's duration strings: parsed by the host library

    return pd.Timedelta(value).to_timedelta64()
