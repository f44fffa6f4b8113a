"""GroupBy statistics: ``df.groupby(k).nanstats.<stat>()`` and ``df.nanstats.groupby(k)``.

The grouping (codes per row and the result index) is pandas' own, so results carry
exactly the index pandas' aggregations give (several keys, categorical keys with
``observed``, ``dropna``, ``sort``, ``as_index``). The statistics are the vectorised
kernels of :mod:`nanaccess.core.grouped` (one sort per column, no loop per group).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..core.grouped import grouped_stat
from ..errors import NaNError
from ..options import NanPolicy, resolve_policy
from ._groupby_registry import grouping_info, selected_obj
from .accessor import relabel, type_error
from .dtypes import column_arrays, is_numeric_column, to_pandas_array

__all__ = ["NanGroupBy"]


class NanGroupBy:
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

    # ------------------------------------------------------------------ engine
    def _run(
        self,
        stat: str,
        *,
        nan_policy: Any = None,
        numeric_only: bool = False,
        q: Any = None,
        method: str = "linear",
        ddof: float = 1,
        engine: str | None = None,
    ) -> pd.Series | pd.DataFrame:
        gb = self._obj
        policy = resolve_policy(nan_policy)
        codes, ngroups, result_index = grouping_info(gb)
        obj = selected_obj(gb)
        is_series = isinstance(obj, pd.Series)
        frame_cols = [obj] if is_series else [obj.iloc[:, i] for i in range(obj.shape[1])]
        names = [obj.name] if is_series else list(obj.columns)
        keep_names, arrays = [], []
        nq = len(np.atleast_1d(q)) if stat == "quantile" and np.ndim(q) > 0 else None
        for name, s in zip(names, frame_cols, strict=True):
            if numeric_only and not is_numeric_column(s.dtype):
                continue
            try:
                col = column_arrays(s, name)
            except TypeError as err:
                raise TypeError(str(err)) from None
            try:
                if stat == "count" and col.values.dtype.kind == "f":
                    # numbers per group, as Series.nanstats.count: a count takes no
                    # policy, so a signaling NaN is counted out, not raised
                    num = ~np.isnan(col.values)
                    if col.missing is not None:
                        num &= ~col.missing
                    sel = num & (codes >= 0)
                    values = np.bincount(codes[sel], minlength=ngroups).astype(np.int64)
                    miss = None
                else:
                    values, miss = grouped_stat(
                        col.values, codes, ngroups, stat, q=q, method=method, ddof=ddof,
                        policy=policy, missing=col.missing, engine=engine,
                    )
            except NaNError as err:
                label = result_index[err.group]
                raise relabel(err, name, obj.index, group=label, series=is_series) from None
            except TypeError as err:
                raise type_error(name, err, is_series) from None
            empty = None
            if col.host in ("masked", "arrow") and stat not in ("sum", "count"):
                empty = self._empty(col, codes, ngroups, policy)
                if nq is not None:
                    empty = np.broadcast_to(empty, values.shape)
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

    @staticmethod
    def _empty(col: Any, codes: np.ndarray, ngroups: int, policy: NanPolicy) -> np.ndarray:
        """Groups a statistic sees no value of (pandas gives NA there for nullable data)."""
        if policy is NanPolicy.OMIT:
            cnt, _ = grouped_stat(col.values, codes, ngroups, "count", policy="omit",
                                  missing=col.missing)
        else:
            cnt = np.bincount(codes[codes >= 0], minlength=ngroups)
        return np.asarray(cnt) == 0

    # ------------------------------------------------------------- statistics
    def median(
        self, *, numeric_only: bool = False, nan_policy: str | None = None,
        engine: str | None = None,
    ) -> pd.Series | pd.DataFrame:
        """Median of each group (as ``GroupBy.median``).

        Parameters
        ----------
        numeric_only : bool
            Skip non-numeric columns (otherwise they raise TypeError).
        nan_policy : str, optional
            "raise" (default), "propagate", "omit", "smallest", "largest", "totalorder".
        engine : {None, "numpy", "numba"}
            Kernel engine (None: numba for large data when installed).

        Examples
        --------
        >>> import numpy as np, pandas as pd, nanaccess  # noqa: F401
        >>> s = pd.Series([1.0, 2.0, np.nan, 4.0], index=list("wxyz"))
        >>> s.groupby([0, 0, 1, 1]).nanstats.median(nan_policy="propagate")
        0    1.5
        1    NaN
        dtype: float64
        """
        return self._run("median", nan_policy=nan_policy, numeric_only=numeric_only,
                         engine=engine)

    def median_low(
        self, *, numeric_only: bool = False, nan_policy: str | None = None,
        engine: str | None = None,
    ) -> pd.Series | pd.DataFrame:
        """Low median of each group.

        Examples
        --------
        >>> import pandas as pd, nanaccess  # noqa: F401
        >>> pd.Series([1, 2, 3, 4]).groupby([0, 0, 0, 0]).nanstats.median_low()
        0    2
        dtype: int64
        """
        return self._run("median_low", nan_policy=nan_policy, numeric_only=numeric_only,
                         engine=engine)

    def median_high(
        self, *, numeric_only: bool = False, nan_policy: str | None = None,
        engine: str | None = None,
    ) -> pd.Series | pd.DataFrame:
        """High median of each group.

        Examples
        --------
        >>> import pandas as pd, nanaccess  # noqa: F401
        >>> pd.Series([1, 2, 3, 4]).groupby([0, 0, 0, 0]).nanstats.median_high()
        0    3
        dtype: int64
        """
        return self._run("median_high", nan_policy=nan_policy, numeric_only=numeric_only,
                         engine=engine)

    def quantile(
        self,
        q: float | Sequence[float] = 0.5,
        *,
        method: str = "linear",
        numeric_only: bool = False,
        nan_policy: str | None = None,
        engine: str | None = None,
    ) -> pd.Series | pd.DataFrame:
        """Quantile(s) of each group (as ``GroupBy.quantile``; a list adds a q level).

        Examples
        --------
        >>> import numpy as np, pandas as pd, nanaccess  # noqa: F401
        >>> s = pd.Series([1.0, 2.0, 3.0, np.nan])
        >>> s.groupby(["a", "a", "a", "b"]).nanstats.quantile([0.5, 1.0], nan_policy="omit")
        a  0.5    2.0
           1.0    3.0
        b  0.5    NaN
           1.0    NaN
        dtype: float64
        """
        return self._run("quantile", q=q, method=method, nan_policy=nan_policy,
                         numeric_only=numeric_only, engine=engine)

    def min(
        self, *, numeric_only: bool = False, nan_policy: str | None = None,
        engine: str | None = None,
    ) -> pd.Series | pd.DataFrame:
        """Smallest value of each group (exact bits).

        Examples
        --------
        >>> import numpy as np, pandas as pd, nanaccess  # noqa: F401
        >>> pd.Series([1.0, -0.0, 0.0]).groupby([0, 1, 1]).nanstats.min()
        0    1.0
        1   -0.0
        dtype: float64
        """
        return self._run("min", nan_policy=nan_policy, numeric_only=numeric_only, engine=engine)

    def max(
        self, *, numeric_only: bool = False, nan_policy: str | None = None,
        engine: str | None = None,
    ) -> pd.Series | pd.DataFrame:
        """Largest value of each group (exact bits).

        Examples
        --------
        >>> import numpy as np, pandas as pd, nanaccess  # noqa: F401
        >>> pd.Series([1.0, np.nan, 0.0]).groupby([0, 1, 1]).nanstats.max(nan_policy="largest")
        0    1.0
        1    NaN
        dtype: float64
        """
        return self._run("max", nan_policy=nan_policy, numeric_only=numeric_only, engine=engine)

    def mean(
        self, *, numeric_only: bool = False, nan_policy: str | None = None
    ) -> pd.Series | pd.DataFrame:
        """Correctly rounded mean of each group.

        Examples
        --------
        >>> import numpy as np, pandas as pd, nanaccess  # noqa: F401
        >>> pd.Series([1.0, 2.0, np.nan]).groupby([0, 0, 1]).nanstats.mean(nan_policy="omit")
        0    1.5
        1    NaN
        dtype: float64
        """
        return self._run("mean", nan_policy=nan_policy, numeric_only=numeric_only)

    def var(
        self, ddof: float = 1, *, numeric_only: bool = False, nan_policy: str | None = None
    ) -> pd.Series | pd.DataFrame:
        """Correctly rounded variance of each group (``ddof=1`` as pandas).

        Examples
        --------
        >>> import pandas as pd, nanaccess  # noqa: F401
        >>> pd.Series([1.0, 3.0, 5.0]).groupby([0, 0, 1]).nanstats.var()
        0    2.0
        1    NaN
        dtype: float64
        """
        return self._run("var", ddof=ddof, nan_policy=nan_policy, numeric_only=numeric_only)

    def std(
        self, ddof: float = 1, *, numeric_only: bool = False, nan_policy: str | None = None
    ) -> pd.Series | pd.DataFrame:
        """Standard deviation of each group (``ddof=1`` as pandas).

        Examples
        --------
        >>> import pandas as pd, nanaccess  # noqa: F401
        >>> pd.Series([1.0, 3.0, 5.0]).groupby([0, 0, 1]).nanstats.std(ddof=0)
        0    1.0
        1    0.0
        dtype: float64
        """
        return self._run("std", ddof=ddof, nan_policy=nan_policy, numeric_only=numeric_only)

    def sum(
        self, *, numeric_only: bool = False, nan_policy: str | None = None
    ) -> pd.Series | pd.DataFrame:
        """Correctly rounded sum of each group (0 for a group without values).

        Examples
        --------
        >>> import numpy as np, pandas as pd, nanaccess  # noqa: F401
        >>> pd.Series([0.1, 0.2, np.nan]).groupby([0, 0, 1]).nanstats.sum(nan_policy="omit")
        0    0.3
        1    0.0
        dtype: float64
        """
        return self._run("sum", nan_policy=nan_policy, numeric_only=numeric_only)

    def count(self, *, numeric_only: bool = False) -> pd.Series | pd.DataFrame:
        """Numbers (neither NaN nor missing) in each group.

        Examples
        --------
        >>> import numpy as np, pandas as pd, nanaccess  # noqa: F401
        >>> pd.Series([1.0, np.nan, 3.0]).groupby([0, 0, 1]).nanstats.count()
        0    1
        1    1
        dtype: int64
        """
        return self._run("count", nan_policy="omit", numeric_only=numeric_only)


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
