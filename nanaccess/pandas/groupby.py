"""GroupBy statistics: ``df.groupby(k).nanstats.<stat>()`` and ``df.nanstats.groupby(k)``.

The grouping (codes per row and the result index) is pandas' own, so results carry
exactly the index pandas' aggregations give (several keys, categorical keys with
``observed``, ``dropna``, ``sort``, ``as_index``). The statistic methods are
generated (:mod:`nanaccess.pandas._generated`) and call the one hook ``_reduce``
here, which calls the grouped core entry point
:func:`nanaccess.core.grouped.grouped_reduce` (vectorised: one sort per column, no
loop per group; its count marks the groups a statistic saw nothing of).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from .. import _stats
from ..core.grouped import grouped_reduce
from ..errors import NaNError
from ..options import NanPolicy, resolve_policy
from ._generated import GroupByStatsMixin
from ._groupby_registry import grouping_info, selected_obj
from .columns import empty_is_missing, restated, type_error, with_min_count
from .dtypes import column_arrays, is_numeric_column, to_pandas_array

__all__ = ["NanGroupBy"]


class NanGroupBy(GroupByStatsMixin):
    """NaN-explicit statistics of a pandas GroupBy (``gb.nanstats``).

    Examples
    --------
    >>> import numpy as np, pandas as pd, nanaccess  # noqa: F401
    >>> df = pd.DataFrame({"g": ["a", "b", "a", "b"], "x": [1.0, np.nan, 3.0, 4.0]})
    >>> df.groupby("g").nanstats.median(nan_policy="omit")
         x
    g
    a  2.0
    b  4.0
    """

    def __init__(self, obj: Any) -> None:
        self._obj = obj

    def _reduce(
        self,
        stat: str,
        *,
        nan_policy: Any = None,
        numeric_only: bool = False,
        engine: str | None = None,
        min_count: int = 0,
        **params: Any,
    ) -> pd.Series | pd.DataFrame:
        """The hook of every generated statistic: one result per group and column."""
        gb = self._obj
        count = _stats.get(stat).family == "count"
        policy = NanPolicy.TOTALORDER if count else resolve_policy(nan_policy)
        codes, ngroups, result_index = grouping_info(gb)
        obj = selected_obj(gb)
        is_series = isinstance(obj, pd.Series)
        frame_cols = [obj] if is_series else [obj.iloc[:, i] for i in range(obj.shape[1])]
        names = [obj.name] if is_series else list(obj.columns)
        q = params.get("q")
        nq = len(np.atleast_1d(q)) if stat == "quantile" and np.ndim(q) > 0 else None
        keep_names, arrays = [], []
        for name, s in zip(names, frame_cols, strict=True):
            if numeric_only and not is_numeric_column(s.dtype):
                continue
            try:
                col = column_arrays(s, name)
            except TypeError as err:
                raise TypeError(str(err)) from None
            try:
                # a count takes no policy: "totalorder" counts the numbers, raising for
                # nothing (a signaling NaN is counted out, as Series.nanstats.count)
                red = grouped_reduce(col.values, codes, ngroups, stat, policy=policy,
                                     missing=col.missing, engine=engine, **params)
            except NaNError as err:
                raise restated(err, name, obj.index, group=result_index[err.group],
                               series=is_series) from None
            except TypeError as err:
                raise type_error(name, err, is_series) from None
            values, miss, empty = red.values, red.missing, None
            if min_count:
                values, miss = with_min_count(values, miss, red.count, min_count, col)
            if col.host in ("masked", "arrow") and empty_is_missing(stat):
                empty = np.broadcast_to(red.empty, values.shape)
            if nq is not None:  # (nq, ngroups) -> group-major, as pandas
                values = values.T.reshape(-1)
                miss = None if miss is None else miss.T.reshape(-1)
                empty = None if empty is None else empty.T.reshape(-1)
            arrays.append(to_pandas_array(values, miss, col, empty))
            keep_names.append(name)
        index = result_index if nq is None else _with_q_level(result_index, q)
        if is_series:
            out: pd.Series | pd.DataFrame = pd.Series(arrays[0], index=index, name=obj.name)
        else:
            out = pd.DataFrame({j: a for j, a in enumerate(arrays)}, index=index)
            out.columns = obj.columns[[names.index(n) for n in keep_names]] if len(
                set(names)) == len(names) else pd.Index(keep_names)
        if not getattr(gb, "as_index", True):
            out = out.reset_index()
        return out


def _with_q_level(index: pd.Index, q: Any) -> pd.MultiIndex:
    qs = np.asarray(q, dtype=np.float64).ravel()
    nq = qs.size
    rep = index.repeat(nq)
    if isinstance(index, pd.MultiIndex):
        arrays = [rep.get_level_values(i) for i in range(index.nlevels)]
        names = list(index.names)
    else:
        arrays = [rep]
        names = [index.name]
    arrays.append(pd.Index(np.tile(qs, len(index))))
    return pd.MultiIndex.from_arrays(arrays, names=names + [None])
