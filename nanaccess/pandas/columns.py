"""One pandas column through the core, and per-column results back into pandas.

:func:`column_reduce` is the one call from a pandas column into
:func:`nanaccess.core.reduce.reduce`; it restates the core's errors with the column
name and the index label of the first offending value (:mod:`nanaccess._labels`)
and says which results are over no values (``Reduced.empty``), where nullable and
Arrow hosts give ``pd.NA``. :func:`combine` builds one Series from per-column
results with pandas' common-dtype rules.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import numpy as np
import pandas as pd

from .._hostkit import (
    empty_is_missing,
    host_reduce,
    kept_int_dtype,
    relabelled,
    undefined_spread,
)
from .._hostkit import with_min_count as _kit_min_count
from .._labels import IndexLocation, fmt_label, relabel, restate, subject
from ..core import REPORT_KEYS, SumOverflowError, classify_object, issignaling, report_array
from ..core.reduce import Reduced, reduce_whole
from ..errors import NaNError
from ..options import NanPolicy
from .dtypes import Column

__all__ = [
    "REPORT_KEYS",
    "column_reduce",
    "values_reduce",
    "empty_is_missing",
    "combine",
    "fmt_label",
    "holds_numbers",
    "int_dtype_kept",
    "numbers",
    "overflow_named",
    "report",
    "undefined_spread",
    "restated",
    "subject_of",
    "type_error",
    "with_min_count",
]


def subject_of(name: Hashable | None, *, series: bool = False) -> str:
    """``"column 'temp'"`` (``"Series"`` for an unnamed Series) for error messages."""
    return subject("column", name, unnamed="Series" if series else None)


def restated(err: NaNError, name: Hashable | None, index: pd.Index, *,
             rows: np.ndarray | None = None, group: Any = None,
             series: bool = False) -> NaNError:
    """A core error restated with the column, the index label and the group."""
    return relabel(err, subject_of(name, series=series), IndexLocation(index, rows), group)


def type_error(name: Hashable | None, err: Exception, series: bool = False) -> Exception:
    """A TypeError of the core prefixed by the column (or "Series")."""
    return restate(err, subject_of(name, series=series))


def report(col: Column) -> dict[str, int]:
    """:func:`nanaccess.nan_report`'s counts of one column."""
    return report_array(col.values, col.missing)


def numbers(col: Column) -> int:
    """Values that are neither NaN nor missing (a count takes no policy)."""
    return int(report(col)["numbers"])


def overflow_named(err: SumOverflowError, name: Hashable | None, *, series: bool = False,
                   group: Any = None) -> SumOverflowError:
    """An integer sum's OverflowError naming the column (and group), not "row 0"."""
    where = subject_of(name, series=series)
    if group is not None:
        where += f" in group {fmt_label(group)}"
    return err.naming(where)


def column_reduce(
    col: Column,
    name: Hashable | None,
    index: pd.Index,
    stat: str,
    policy: NanPolicy,
    *,
    axis: int | None = None,
    series: bool = False,
    **params: Any,
) -> tuple[Reduced, np.ndarray | None]:
    """``reduce(col, stat)`` with pandas' labels on errors; (result, empty).

    ``empty`` marks results over no values where the host's missing value belongs
    (nullable and Arrow columns), else None.
    """
    try:
        return host_reduce(col.values, stat, policy, col.missing, col.has_na, axis, params)
    except (SumOverflowError, NaNError, TypeError) as err:  # labelled only when raised
        raise _labelled(err, name, index, series) from None


def values_reduce(values: np.ndarray, s: pd.Series, stat: str, policy: NanPolicy,
                  params: dict[str, Any]) -> Reduced | np.generic:
    """``reduce_whole(values, stat, ...)`` of the whole NumPy data of Series ``s`` (no
    missing slots): the small-call lane of the Series accessor (no column record,
    no host steps, which such data does not need; the labels are read only for an
    error): the lean paths' scalar, or the engines' :class:`Reduced`; errors labelled
    as :func:`column_reduce`'s."""
    try:
        return reduce_whole(values, stat, policy, params)
    except (SumOverflowError, NaNError, TypeError) as err:
        raise _labelled(err, s.name, s.index, True) from None


def _labelled(err: Exception, name: Hashable | None, index: pd.Index, series: bool
              ) -> Exception:
    if isinstance(err, SumOverflowError):
        return overflow_named(err, name, series=series)
    return relabelled(err, subject_of(name, series=series), IndexLocation(index, None))


def int_dtype_kept(col: Column, stat: str, policy: NanPolicy, **params: Any) -> Any:
    """The integer dtype ``stat`` keeps for this nullable / Arrow integer column (a
    pick: min, max, median_low, quantile(method="lower"), ...), else None
    (:func:`nanaccess._hostkit.kept_int_dtype`: the table's dtype rule)."""
    return kept_int_dtype(stat, col.values.dtype, col.has_na, **params)


def with_min_count(values: np.ndarray, missing: np.ndarray | None, count: Any,
                   min_count: int, col: Column) -> tuple[np.ndarray, np.ndarray | None]:
    """(values, missing) with the results over fewer than ``min_count`` values made
    the host's missing value, as pandas' ``sum(min_count=)``: ``pd.NA`` for nullable
    and Arrow columns (their dtype kept), NaN for NumPy columns (ints become float64)
    (:func:`nanaccess._hostkit.with_min_count`).

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from nanaccess.pandas.dtypes import column_arrays
    >>> col = column_arrays(pd.Series([1, 2]))
    >>> with_min_count(np.array([3, 0]), None, np.array([2, 0]), 1, col)
    (array([ 3., nan]), array([False,  True]))
    """
    return _kit_min_count(values, missing, count, min_count, col.has_na)


def q_is_list(q: Any) -> bool:
    return q is not None and np.ndim(q) > 0


def q_index(q: Any) -> pd.Index:
    return pd.Index(np.asarray(q, dtype=np.float64))


def combine(arrays: list[Any], index: pd.Index, name: Any = None) -> pd.Series:
    """One value per column -> a Series, with pandas' common-dtype rules."""
    if not arrays:
        return pd.Series([], index=index, dtype=np.float64, name=name)
    if all(isinstance(a, np.ndarray) for a in arrays):
        kinds = {a.dtype.kind for a in arrays}
        # bools beside numbers: pandas' common type is object ([False, 3], not [0, 3])
        mixed_bool = "b" in kinds and len(kinds) > 1
        if len({a.dtype for a in arrays}) == 1 or (
                kinds <= set("fiub") and not mixed_bool and not _widening_quiets(arrays)):
            return pd.Series(np.concatenate(arrays), index=index, name=name)
        if kinds <= set("fiub"):
            # a picked signaling NaN of a narrower float column would be quieted by
            # the common dtype, and a bool would become a number: keep each value
            # exactly as stored (object Series)
            vals = np.empty(sum(a.size for a in arrays), dtype=object)
            vals[:] = [x for a in arrays for x in a.ravel()]
            return pd.Series(vals, index=index, name=name, dtype=object)
    kept = _nan_beside_masked(arrays)
    if kept is not None:
        return pd.Series(kept, index=index, name=name)
    parts = [pd.Series(a) for a in arrays]
    out = pd.concat(parts, ignore_index=True)
    out.index = index
    out.name = name
    return out


def holds_numbers(s: pd.Series) -> bool:
    """An object column whose values are all numbers, NaNs or missing values."""
    if s.dtype != object or not len(s):
        return False
    return all(classify_object(v)[0] != "other" for v in s.array)


def _widening_quiets(arrays: list[np.ndarray]) -> bool:
    """Whether the common dtype would quiet a stored signaling NaN (a narrower float)."""
    common = np.result_type(*arrays)
    if common.kind != "f":
        return False
    return any(a.dtype.kind == "f" and a.dtype != common and a.size
               and bool(np.any(issignaling(a))) for a in arrays)


_MASKED = (pd.arrays.FloatingArray, pd.arrays.IntegerArray, pd.arrays.BooleanArray)


def _nan_beside_masked(arrays: list[Any]) -> Any:
    """NumPy results holding NaNs next to nullable results, as one nullable float array
    whose mask covers only the nullable parts' missing slots: pandas' concat would turn
    every NaN (payload and all) into ``pd.NA``; a NaN is never made a missing value.
    None when pandas' own concat loses nothing."""
    if not any(isinstance(a, _MASKED) for a in arrays):
        return None
    if not all(isinstance(a, _MASKED) or (isinstance(a, np.ndarray) and a.dtype.kind in "fiub")
               for a in arrays):
        return None
    if not any(isinstance(a, np.ndarray) and a.dtype.kind == "f" and np.isnan(a).any()
               for a in arrays):
        return None
    data = [np.asarray(a._data) if isinstance(a, _MASKED) else a for a in arrays]
    common = np.result_type(*data)
    if common.kind != "f" or common.itemsize < 4:
        common = np.dtype(np.float64)
    mask = [np.asarray(a._mask) if isinstance(a, _MASKED) else np.zeros(a.shape, bool)
            for a in arrays]
    vals = np.concatenate([d.astype(common).ravel() for d in data])
    return pd.arrays.FloatingArray(vals, np.concatenate([m.ravel() for m in mask]))
