"""``s.nanstats.cumsum()`` and friends: cumulative statistics of Series and DataFrames.

Hand-written (they are not reductions): each method runs
:func:`nanaccess.core.cumulative.cumulative` on every column and returns what pandas'
own method returns (same index, columns and name), with the NaN policy made explicit
(:mod:`nanaccess.core.cumulative.scan` states the rules). Nullable columns keep
``pd.NA`` where the result is missing.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..core.cumulative import cumulative
from ..errors import NaNError
from ..options import resolve_policy
from ..typing import NanPolicyArg
from .columns import restated, type_error
from .dtypes import column_arrays, to_pandas_array

__all__ = ["CumulativeMixin", "GroupedCumulativeMixin", "cumulative_series",
           "grouped_cumulative_frame"]

_DOC = """{summary}

    Parameters
    ----------
    nan_policy : {{"raise", "propagate", "omit", "smallest", "largest", "totalorder"}}, optional
        "omit" is pandas' ``skipna=True`` (a NaN position stays NaN, as stored, and the
        running value skips it); "propagate" gives, from the first NaN on, the NaN
        greatest under totalOrder so far (payload kept); {order}"raise" raises
        ``NaNError`` naming the first NaN. None: the current default
        (:func:`nanaccess.get_options`).

    Returns
    -------
    Series or DataFrame
        The same labels as ``obj.{name}()``.{returns}

    Examples
    --------
    >>> import numpy as np, pandas as pd, nanaccess  # noqa: F401
    >>> s = pd.Series([{example}])
    >>> s.nanstats.{name}(nan_policy="omit").tolist()
    {omit}
    >>> s.nanstats.{name}(nan_policy="propagate").tolist()
    {propagate}
"""


def cumulative_series(s: pd.Series, stat: str, nan_policy: Any) -> pd.Series:
    """One column's cumulative statistic as a Series of the same index and name."""
    return pd.Series(_column(s, stat, nan_policy), index=s.index, name=s.name, copy=False)


def _column(s: pd.Series, stat: str, nan_policy: Any) -> Any:
    """One column's cumulative statistic: the array pandas would hold for it."""
    policy = resolve_policy(nan_policy)
    try:
        col = column_arrays(s)
    except TypeError as err:
        raise type_error(s.name, err, True) from None
    try:
        values, miss = cumulative(col.values, stat, policy=policy, missing=col.missing)
    except NaNError as err:
        raise restated(err, s.name, s.index, series=True) from None
    except TypeError as err:
        raise type_error(s.name, err, True) from None
    return to_pandas_array(values, miss, col) if col.has_na else values


def _assemble(arrays: list[Any], df: pd.DataFrame) -> pd.DataFrame:
    """The result frame of ``df``'s shape from one result array per column: one 2-D
    block, no copy, when every column came back as a NumPy array of one dtype (pandas
    would otherwise stack the columns again), column by column otherwise."""
    first = arrays[0] if arrays else None
    if (isinstance(first, np.ndarray) and first.ndim == 1
            and all(isinstance(a, np.ndarray) and a.dtype == first.dtype for a in arrays)):
        block = first[None, :] if len(arrays) == 1 else np.stack(arrays)
        return pd.DataFrame(block.T, index=df.index, columns=df.columns, copy=False)
    out = pd.DataFrame({i: pd.Series(a, index=df.index, copy=False)
                        for i, a in enumerate(arrays)}, index=df.index)
    out.columns = df.columns
    return out


def _frame(df: pd.DataFrame, stat: str, nan_policy: Any) -> pd.DataFrame:
    return _assemble([_column(df.iloc[:, i], stat, nan_policy)
                      for i in range(df.shape[1])], df)


def _method(stat: str, summary: str, example: str, omit: str, propagate: str,
            order: str = "", returns: str = "") -> Any:
    def method(self: Any, *, nan_policy: NanPolicyArg = None) -> Any:
        obj = self._obj
        if isinstance(obj, pd.DataFrame):
            return _frame(obj, stat, nan_policy)
        return cumulative_series(obj, stat, nan_policy)

    method.__name__ = stat
    method.__qualname__ = f"CumulativeMixin.{stat}"
    method.__doc__ = _DOC.format(summary=summary, name=stat, example=example, omit=omit,
                                 propagate=propagate, order=order, returns=returns)
    return method


_ORDER = ('"smallest" / "largest" / "totalorder" place each NaN by their order\n'
          '        (payload kept); ')


class CumulativeMixin:
    """Cumulative statistics of ``Series.nanstats`` and ``DataFrame.nanstats``."""

    _obj: Any

    cumsum = _method(
        "cumsum",
        "Cumulative sum, each prefix its exact sum rounded once (as ``math.fsum``).",
        "0.1, 0.1, np.nan, 0.1", "[0.1, 0.2, nan, 0.30000000000000004]",
        "[0.1, 0.2, nan, nan]",
        returns=" Unlike pandas' running float sum, every position is correctly "
                "rounded: ten 0.1 give exactly 1.0.")
    cumprod = _method(
        "cumprod", "Cumulative product (each step rounded, as pandas).",
        "2.0, np.nan, 3.0", "[2.0, nan, 6.0]", "[2.0, nan, nan]")
    cummax = _method(
        "cummax", "Cumulative maximum under the policy's order (values as stored).",
        "1.0, np.nan, 3.0", "[1.0, nan, 3.0]", "[1.0, nan, nan]", order=_ORDER)
    cummin = _method(
        "cummin", "Cumulative minimum under the policy's order (values as stored).",
        "1.0, np.nan, 0.5", "[1.0, nan, 0.5]", "[1.0, nan, nan]", order=_ORDER)
    cumcount = _method(
        "cumcount",
        "Running count of the values the policy counts (1 at the first).",
        "1.0, np.nan, 3.0", "[1, 1, 2]", "[1, 2, 3]",
        returns=" int64. pandas' ``GroupBy.cumcount`` numbers rows from 0; this counts "
                "values from 1 (under \"omit\" the NaNs are not counted).")


def grouped_cumulative_frame(gb: Any, stat: str, nan_policy: Any) -> pd.Series | pd.DataFrame:
    """``gb.<stat>()`` as pandas labels it: the selected columns, the original index."""
    from ..core.cumulative import grouped_cumulative
    from ._groupby_registry import grouping_info, selected_obj

    policy = resolve_policy(nan_policy)
    codes, ngroups, result_index = grouping_info(gb)
    obj: Any = selected_obj(gb)  # a Series or a DataFrame
    is_series = isinstance(obj, pd.Series)
    cols = [obj] if is_series else [obj.iloc[:, i] for i in range(obj.shape[1])]
    out: list[Any] = []
    for s in cols:
        name = s.name
        try:
            col = column_arrays(s, name)
        except TypeError as err:
            raise type_error(name, err, is_series) from None
        try:
            values, miss = grouped_cumulative(col.values, codes, ngroups, stat, policy=policy,
                                              missing=col.missing)
        except NaNError as err:
            raise restated(err, name, obj.index, group=result_index[err.group],
                           series=is_series) from None
        out.append(to_pandas_array(values, miss, col) if col.has_na else values)
    if is_series:
        return pd.Series(out[0], index=obj.index, name=obj.name, copy=False)
    return _assemble(out, obj)


def _grouped_method(stat: str) -> Any:
    def method(self: Any, *, nan_policy: NanPolicyArg = None) -> Any:
        return grouped_cumulative_frame(self._obj, stat, nan_policy)

    method.__name__ = stat
    method.__qualname__ = f"GroupedCumulativeMixin.{stat}"
    method.__doc__ = (
        f"``{stat}`` within each group, labelled as ``GroupBy.{stat}()`` (the original "
        "index; rows of a dropped key are NaN).\n\n    Parameters\n    ----------\n"
        "    nan_policy : str, optional\n        As ``Series.nanstats." + stat + "``; "
        "\"raise\" names the column, the group and the row.\n\n    Returns\n    -------\n"
        "    Series or DataFrame\n\n    Examples\n    --------\n"
        "    >>> import numpy as np, pandas as pd, nanaccess  # noqa: F401\n"
        "    >>> df = pd.DataFrame({\"k\": [1, 2, 1, 1], \"v\": [0.1, 5.0, np.nan, 0.2]})\n"
        f"    >>> df.groupby(\"k\").nanstats.{stat}(nan_policy=\"omit\")[\"v\"].tolist()\n"
        f"    {_GROUPED_EXAMPLE[stat]}\n")
    return method


_GROUPED_EXAMPLE = {"cumsum": "[0.1, 5.0, nan, 0.30000000000000004]",
                    "cumprod": "[0.1, 5.0, nan, 0.020000000000000004]",
                    "cummax": "[0.1, 5.0, nan, 0.2]", "cummin": "[0.1, 5.0, nan, 0.1]",
                    "cumcount": "[1, 1, 1, 2]"}


class GroupedCumulativeMixin:
    """Cumulative statistics of ``GroupBy.nanstats``."""

    _obj: Any

    cumsum = _grouped_method("cumsum")
    cumprod = _grouped_method("cumprod")
    cummax = _grouped_method("cummax")
    cummin = _grouped_method("cummin")
    cumcount = _grouped_method("cumcount")
