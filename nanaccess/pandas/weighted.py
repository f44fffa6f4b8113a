"""``weights=`` on the pandas accessors (issue 13): weights aligned with the rows.

The weights of a Series, a DataFrame or a GroupBy are one per row: an array of the
rows' length, a Series aligned on the index (labels that do not match raise a
``ValueError`` naming them) or, for a DataFrame, a column label (that column holds
the weights and is left out of the result). The numbers come from the weighted core
(:func:`nanaccess.core.reduce.reduce` with ``weights=``, and
:func:`nanaccess.core.grouped.weighted.grouped_weighted` per group); the policy covers
the weights there (:func:`nanaccess.core.policy.check_weights`). Errors are restated
here with the index label of the first offending weight or value (the weights'
errors carry their position as data: :func:`nanaccess._labels.relabel_weights`).
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .. import _stats
from .._labels import IndexLocation, fmt_label, relabel_weights
from ..core.grouped import weighted as grouped_weighted_mod
from ..core.reduce import reduce
from ..errors import NaNError, TotalWeightError, WeightsValueError
from ..options import NanPolicy
from .columns import empty_is_missing, restated, subject_of, type_error, with_min_count
from .dtypes import Column, column_arrays

__all__ = ["Weights", "resolve_weights", "weighted_column", "weight_label",
           "grouped_weighted_column", "check_weighted"]


@dataclass(frozen=True)
class Weights:
    """Row weights as the core takes them, and how errors name them."""

    values: np.ndarray
    missing: np.ndarray | None
    #: "weights" or "weights (column 'w')"
    subject: str
    #: the weight column's label when given by label (left out of the result)
    label: Any = None
    by_label: bool = False


def check_weighted(stat: str) -> None:
    """A statistic without ``weights``: TypeError naming the weighted ones."""
    if not _stats.get(stat).weighted:
        raise TypeError(f"{stat}() takes no weights; weighted statistics are "
                        f"{', '.join(_stats.WEIGHTED)}")


def weight_label(weights: Any, columns: pd.Index | None) -> bool:
    """Whether ``weights`` names a column (a scalar label, or a tuple when the columns
    are a MultiIndex, as pandas reads ``df[("a", "b")]``; arrays and Series are data)."""
    if columns is None:
        return False
    if isinstance(weights, tuple) and isinstance(columns, pd.MultiIndex):
        return True
    return np.ndim(weights) == 0 and not isinstance(
        weights, np.ndarray | pd.Series | pd.api.extensions.ExtensionArray)


def _aligned(w: pd.Series, index: pd.Index) -> pd.Series:
    """``w`` on ``index``: equal indexes as they are, the same unique labels reordered;
    anything else is a ValueError naming the labels that do not match."""
    if w.index.equals(index):
        return w
    if w.index.is_unique and index.is_unique:
        lacking = index.difference(w.index, sort=False)
        extra = w.index.difference(index, sort=False)
        if not len(lacking) and not len(extra):
            return w.reindex(index)
    else:
        lacking = index[~index.isin(w.index)]
        extra = w.index[~w.index.isin(index)]
    parts = []
    if len(lacking):
        parts.append(f"{len(lacking)} label(s) of the data have no weight (first "
                     f"{', '.join(fmt_label(v) for v in lacking[:3])})")
    if len(extra):
        parts.append(f"{len(extra)} label(s) of the weights are not in the data (first "
                     f"{', '.join(fmt_label(v) for v in extra[:3])})")
    if not parts:
        parts.append("the index holds duplicate labels in another order")
    raise ValueError("weights are not aligned with the data's index: " + "; ".join(parts))


def resolve_weights(weights: Any, index: pd.Index, frame: pd.DataFrame | None = None
                    ) -> Weights:
    """Row weights for data on ``index`` (``frame``: where a column label is looked up).

    Examples
    --------
    >>> import pandas as pd
    >>> resolve_weights(pd.Series([2, 1], index=["b", "a"]), pd.Index(["a", "b"])).values
    array([1, 2])
    """
    subject, label, by_label = "weights", None, False
    if weight_label(weights, None if frame is None else frame.columns):
        assert frame is not None
        if weights not in frame.columns:
            raise KeyError(f"weights={weights!r} is not a column; columns are "
                           f"{', '.join(fmt_label(c) for c in frame.columns)}")
        label, by_label = weights, True
        w = frame[weights]
        if isinstance(w, pd.DataFrame):
            raise ValueError(f"weights={weights!r} names {w.shape[1]} columns; name one")
        subject = f"weights (column {fmt_label(weights)})"
    elif isinstance(weights, pd.Series):
        w = _aligned(weights, index)
    elif isinstance(weights, pd.DataFrame):
        raise TypeError("weights must be one weight per row (array, Series or column "
                        "label), got a DataFrame")
    else:
        if isinstance(weights, np.ma.MaskedArray):
            arr = np.ma.getdata(weights)
            miss = np.ma.getmaskarray(weights)
        else:
            arr, miss = weights, None
        w = pd.Series(arr if isinstance(arr, pd.api.extensions.ExtensionArray)
                      else np.asarray(arr), copy=False)
        if w.ndim != 1 or len(w) != len(index):
            raise ValueError(f"weights of shape {np.shape(arr)} do not match the "
                             f"{len(index)} rows of the data; pass one weight per row")
        if miss is not None:
            return Weights(np.asarray(arr), miss if miss.any() else None, subject)
    try:
        col = column_arrays(w, subject)
    except TypeError as err:
        raise TypeError(f"{subject} must be real numbers: {err}") from None
    if col.values.dtype.kind not in "biuf":
        raise TypeError(f"{subject} must be real numbers, got dtype {w.dtype}")
    return Weights(col.values, col.missing, subject, label, by_label)


def _restate(err: Exception, w: Weights, name: Hashable | None, index: pd.Index, *,
             rows: np.ndarray | None = None, series: bool = False) -> Exception:
    if isinstance(err, WeightsValueError) or (isinstance(err, NaNError)
                                              and err.subject == "weights"):
        return relabel_weights(err, w.subject, IndexLocation(index, rows))
    if isinstance(err, NaNError):
        return restated(err, name, index, rows=rows, series=series)
    if isinstance(err, TotalWeightError):  # the column (the group: the caller)
        return err.relabel(subject_of(name, series=series))
    if isinstance(err, TypeError):
        return type_error(name, err, series)
    return err


def weighted_column(col: Column, name: Hashable | None, index: pd.Index, stat: str,
                    policy: NanPolicy, w: Weights, *, min_count: int = 0,
                    series: bool = False, **params: Any
                    ) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
    """Weighted ``stat`` of one column: ``(values, missing, empty)`` as the unweighted
    path's, errors labelled by the index (and "weights" for the weights)."""
    check_weighted(stat)
    try:
        red = reduce(col.values, stat, policy=policy, missing=col.missing,
                     weights=w.values, weights_missing=w.missing, **params)
    except (NaNError, TypeError, ValueError) as err:
        raise _restate(err, w, name, index, series=series) from None
    values, miss = red.values, red.missing
    if min_count:
        values, miss = with_min_count(values, miss, red.count, min_count, col)
    empty = None
    if col.has_na and empty_is_missing(stat):
        empty = np.broadcast_to(red.count == 0, np.shape(values))
    return values, miss, empty


def grouped_weighted_column(col: Column, name: Hashable | None, index: pd.Index,
                            codes: np.ndarray, ngroups: int, stat: str, policy: NanPolicy,
                            w: Weights, *, series: bool = False, engine: str | None = None,
                            **params: Any
                            ) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
    """Weighted ``stat`` of every group of one column: ``(values, missing, count)``.

    Rows of no group (code -1) are left out before the core sees them, so error
    positions map back to the index through ``rows``.
    """
    check_weighted(stat)
    available = grouped_weighted_mod.GROUPED_WEIGHTED
    if stat not in available:
        raise TypeError(f"grouped weighted {stat} is not available yet; grouped weighted "
                        f"statistics are {', '.join(available)}")
    rows = None if not codes.size or codes.min() >= 0 else np.flatnonzero(codes >= 0)

    def take(a: np.ndarray | None) -> np.ndarray | None:
        return a if a is None or rows is None else a[rows]

    if engine is not None:  # the grouped weighted kernels' engine (NumPy or numba)
        params["engine"] = engine
    try:
        vals, miss, count = grouped_weighted_mod.grouped_weighted(
            take(col.values), take(codes), ngroups, stat, take(w.values), policy=policy,
            missing=take(col.missing), weights_missing=take(w.missing), **params)
    except (NaNError, TypeError, ValueError) as err:
        raise _restate(err, w, name, index, rows=rows, series=series) from None
    return vals, miss, count
