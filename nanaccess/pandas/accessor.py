"""``Series.nanstats`` and ``DataFrame.nanstats``: thin accessors over the core.

The statistic methods (median, quantile, var, iqr, mad, ...) are generated from the
statistics table into :mod:`nanaccess.pandas._generated`; each calls the one hook
``_reduce`` here, which converts the columns with :mod:`nanaccess.pandas.dtypes`,
calls :func:`nanaccess.core.reduce.reduce` through
:func:`~nanaccess.pandas.columns.column_reduce` and labels the result as pandas' own
method would. Errors from the core are restated with the column name and the index
label of the first offending value. What is not table-shaped (describe, nan_report,
sort_values, rank, groupby, plots) is written here.

Decisions where the spec is silent:

* Nullable (``Float64``, ``Int64``, ...) and Arrow columns give the host's missing
  value (``pd.NA``) for a statistic over no values, as pandas does; NumPy columns give
  the canonical NaN.
* ``describe`` adds the rows ``nan`` and ``missing`` after ``count``; ``count`` counts
  numbers (neither NaN nor missing), as pandas' count does for float data.
* ``argmin`` / ``argmax`` return index labels (as ``idxmin`` / ``idxmax``, which are
  aliases).
* ``rank`` gives missing values a NaN rank (pandas' ``na_option="keep"``), or places
  them as pandas' ``na_option`` says; ``sort_values`` puts missing values last under
  every policy but "omit", which drops them with the NaNs. Both default to
  "totalorder", not to ``set_options(nan_policy=...)``: a sort must place every value.
* ``describe`` (:mod:`.describe`) computes under "omit" unless a policy is passed.
* ``axis=1`` and ``axis=None`` reduce the columns as one block (:mod:`.frame_block`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from .. import _stats
from ..options import resolve_policy
from ._generated import DataFrameStatsMixin, SeriesStatsMixin
from ._groupby_registry import column_dtypes
from .columns import (
    REPORT_KEYS,
    column_reduce,
    combine,
    holds_numbers,
    numbers,
    q_index,
    q_is_list,
    report,
    small_column,
    type_error,
    with_min_count,
)
from .describe import describe_column, describe_frame, describe_policy
from .dtypes import Column, column_arrays, is_numeric_column, to_pandas_array, to_scalar
from .frame_block import rows, whole
from .groupby import NanGroupBy
from .sorting import rank_values, sort_order
from .weighted import resolve_weights, weighted_column

__all__ = ["SeriesNanStats", "DataFrameNanStats"]


def _series_axis(axis: Any) -> None:
    """pandas' own check: a Series has one axis."""
    if axis not in (None, 0, "index", "rows"):
        raise ValueError(f"No axis named {axis!r} for object type Series")


def _axis_number(axis: Any, stat: str) -> int | None:
    """0, 1 or None (every value, as pandas 3's ``df.median(axis=None)``; pandas
    refuses it for quantile, count and the positions, and so does nanaccess)."""
    if axis in (0, "index", "rows"):
        return 0
    if axis in (1, "columns"):
        return 1
    if axis is None and _family(stat) not in ("count", "arg") and stat != "quantile":
        return None
    raise ValueError(f"No axis named {axis!r} for object type DataFrame")


def _family(stat: str) -> str:
    return _stats.get(stat).family


class SeriesNanStats(SeriesStatsMixin):
    """NaN-explicit statistics of a pandas Series (``s.nanstats``).

    Registered on ``import nanaccess``. Each statistic returns what ``Series.<method>``
    would (a scalar, or a Series indexed by q for a list of quantiles).

    Examples
    --------
    >>> import numpy as np, pandas as pd, nanaccess  # noqa: F401
    >>> s = pd.Series([1.0, np.nan, 3.0, 4.0], name="temp")
    >>> s.nanstats.median(nan_policy="omit")
    np.float64(3.0)
    """

    def __init__(self, obj: pd.Series) -> None:
        self._obj = obj

    def _col(self) -> Column:
        s = self._obj
        try:
            return column_arrays(s)
        except TypeError as err:
            raise type_error(s.name, err, True) from None

    def _reduce(self, stat: str, *, axis: Any = None, nan_policy: Any = None,
                min_count: int = 0, weights: Any = None, **params: Any) -> Any:
        """The hook of every generated statistic: the core's result, labelled."""
        _series_axis(axis)
        s = self._obj
        col = self._col()
        family = _family(stat)
        if family == "count":
            return numbers(col)
        policy = resolve_policy(nan_policy)
        if weights is not None:
            values, miss, empty = weighted_column(
                col, s.name, s.index, stat, policy, resolve_weights(weights, s.index),
                min_count=min_count, series=True, **params)
            return self._result(values, miss, col, empty, params)
        if not min_count:
            small = small_column(col, stat, policy, params)
            if small is not None:  # small NaN-free data: no blocks, scans nor plans
                return self._result(np.asarray(small), None, col, None, params)
        red, empty = column_reduce(col, s.name, s.index, stat, policy, series=True, **params)
        if family == "arg":
            return s.index[int(red.values)]
        values, miss = red.values, red.missing
        if min_count:
            values, miss = with_min_count(values, miss, red.count, min_count, col)
        return self._result(values, miss, col, empty, params)

    def _result(self, values: np.ndarray, miss: Any, col: Column, empty: Any,
                params: dict[str, Any]) -> Any:
        """A scalar, or a Series indexed by q for a sequence of quantiles."""
        s = self._obj
        if q_is_list(params.get("q")):
            arr = to_pandas_array(values, miss, col, empty)
            return pd.Series(arr, index=q_index(params["q"]), name=s.name)
        m = bool(miss) if miss is not None and np.ndim(miss) == 0 else False
        return to_scalar(values, m, col, bool(empty) if empty is not None else False)

    #: aliases, as pandas names them (``Series.idxmin`` / ``idxmax``)
    idxmin = SeriesStatsMixin.argmin
    idxmax = SeriesStatsMixin.argmax

    # -- reports
    def describe(
        self,
        percentiles: Sequence[float] | None = None,
        *,
        nan_policy: str | None = None,
    ) -> pd.Series:
        """Summary statistics as ``Series.describe``, plus NaN and missing counts.

        Rows: count (numbers), nan, missing, mean, std, min, the percentiles
        (default 25%, 50%, 75%) and max (:mod:`nanaccess._describe`, the same rows on
        every host). The counts report every kind of value; the statistics are
        computed under "omit" unless ``nan_policy`` says otherwise, so describe does
        not raise by default.

        Parameters
        ----------
        percentiles : sequence of float, optional
            In [0, 1]; default 0.25, 0.5, 0.75 (0.5 is always added, as pandas).
        nan_policy : str, optional
            The policy of the statistic rows (see :doc:`/semantics`); None: "omit".
            describe never raises by default, whatever ``set_options`` says: it
            exists to show the NaNs.

        Returns
        -------
        Series
            float64, indexed by the row names.

        Examples
        --------
        >>> import numpy as np, pandas as pd, nanaccess  # noqa: F401
        >>> pd.Series([1.0, np.nan, 3.0], name="x").nanstats.describe(nan_policy="omit")
        count      2.000000
        nan        1.000000
        missing    0.000000
        mean       2.000000
        std        1.414214
        min        1.000000
        25%        1.500000
        50%        2.000000
        75%        2.500000
        max        3.000000
        Name: x, dtype: float64
        """
        s = self._obj
        return describe_column(self._col(), s.name, s.index, describe_policy(nan_policy),
                               percentiles)

    def nan_report(self) -> pd.Series:
        """Counts of each kind of value (see :func:`nanaccess.nan_report`).

        Examples
        --------
        >>> import numpy as np, pandas as pd, nanaccess  # noqa: F401
        >>> r = pd.Series([1.0, np.nan, None], dtype="Float64").nanstats.nan_report()
        >>> int(r["missing"]), int(r["numbers"])
        (2, 1)
        """
        return pd.Series(report(self._col()), name=self._obj.name, dtype=np.int64)

    # -- sorting
    def sort_values(
        self,
        *,
        ascending: bool = True,
        ignore_index: bool = False,
        nan_policy: str | None = None,
    ) -> pd.Series:
        """A stably sorted copy, every bit kept (default policy "totalorder").

        The default is "totalorder" (a sort must place every value), whatever
        ``set_options(nan_policy=...)`` says. "smallest" / "largest" put NaNs first /
        last, "omit" drops NaNs and missing values, "raise" raises; missing values go
        last otherwise.

        Parameters
        ----------
        ascending : bool, default True
            Descending keeps ties in input order (stable).
        ignore_index : bool, default False
            Number the result 0, 1, ... instead of keeping the index.
        nan_policy : str, optional
            "totalorder" (default here), "smallest", "largest", "omit" or "raise";
            "propagate" has no meaning for a sort (ValueError).

        Returns
        -------
        Series

        Examples
        --------
        >>> import numpy as np, pandas as pd, nanaccess  # noqa: F401
        >>> pd.Series([1.0, np.nan, -0.0, 0.0]).nanstats.sort_values(nan_policy="smallest")
        1    NaN
        2   -0.0
        3    0.0
        0    1.0
        dtype: float64
        """
        s = self._obj
        order = sort_order(self._col(), s.name, s.index, nan_policy, ascending)
        if isinstance(s.dtype, np.dtype) and not s.dtype.isnative:
            # pandas' take kernels refuse big-endian buffers: take with NumPy (bits kept)
            out = pd.Series(s.to_numpy()[order], index=s.index[order], name=s.name,
                            copy=False)
        else:
            out = s.iloc[order]
        if ignore_index:
            out = out.reset_index(drop=True)
        return out

    def rank(
        self,
        method: str = "average",
        *,
        ascending: bool = True,
        pct: bool = False,
        na_option: str | None = None,
        nan_policy: str | None = None,
    ) -> pd.Series:
        """Ranks as ``Series.rank(method=...)`` on totalOrder keys.

        The default policy is "totalorder" (as every sort: a ranking must place every
        value), whatever ``set_options(nan_policy=...)`` says: NaNs are ranked by
        sign and payload (-NaN first, +NaN last). Missing values get a NaN rank;
        under "omit" so do NaNs. ``na_option`` gives pandas' placement instead.

        Parameters
        ----------
        method : {"average", "min", "max", "first", "dense"}, default "average"
            How ties are ranked, as pandas.
        ascending : bool, default True
        pct : bool, default False
            Ranks divided by the number of ranked values (by the highest rank for
            "dense"), as pandas.
        na_option : {"keep", "top", "bottom"}, optional
            pandas' placement of NaN and missing values, all tied with each other:
            "keep" gives them a NaN rank, "top" / "bottom" the first / last ranks.
            Not together with ``nan_policy`` (ValueError); signaling NaNs raise.
        nan_policy : str, optional
            As :meth:`sort_values` (default "totalorder").

        Returns
        -------
        Series
            float64 ranks, indexed as the Series.

        Examples
        --------
        >>> import numpy as np, pandas as pd, nanaccess  # noqa: F401
        >>> pd.Series([0.0, -0.0, np.nan]).nanstats.rank()
        0    2.0
        1    1.0
        2    3.0
        dtype: float64
        """
        s = self._obj
        return pd.Series(
            rank_values(self._col(), s.name, s.index, method, ascending, pct, nan_policy,
                        na_option),
            index=s.index,
            name=s.name,
        )

    # -- grouping / plotting
    def groupby(self, by: Any = None, **kwargs: Any) -> Any:
        """Group the Series (as ``Series.groupby``) for NaN-explicit statistics.

        Parameters
        ----------
        by : mapping, function, label or list of labels
            As ``Series.groupby``.
        **kwargs
            Further ``Series.groupby`` keywords (``sort``, ``dropna``, ...).

        Returns
        -------
        NanGroupBy

        Examples
        --------
        >>> import numpy as np, pandas as pd, nanaccess  # noqa: F401
        >>> s = pd.Series([1.0, np.nan, 3.0, 5.0])
        >>> s.nanstats.groupby([0, 0, 1, 1]).median(nan_policy="omit")
        0    1.0
        1    4.0
        dtype: float64
        """
        return NanGroupBy(self._obj.groupby(by, **kwargs))

    def plot_nan_map(self, ax: Any = None) -> Any:
        """Draw where the NaNs and missing values sit (:func:`nanaccess.plotting.plot_nan_map`).

        Parameters
        ----------
        ax : matplotlib.axes.Axes, optional
            Where to draw (a new figure when None).

        Returns
        -------
        matplotlib.axes.Axes

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> import numpy as np, pandas as pd, nanaccess  # noqa: F401
        >>> ax = pd.Series([1.0, np.nan]).nanstats.plot_nan_map()
        """
        from ..plotting import plot_nan_map  # drawing is optional: not at import

        return plot_nan_map(self._obj, ax=ax)


class DataFrameNanStats(DataFrameStatsMixin):
    """NaN-explicit statistics of a pandas DataFrame (``df.nanstats``).

    Methods take ``axis=0|1`` and ``numeric_only=`` and label results as the
    DataFrame methods of the same name (a Series by column; quantile with a list
    gives a DataFrame indexed by q).

    Examples
    --------
    >>> import numpy as np, pandas as pd, nanaccess  # noqa: F401
    >>> df = pd.DataFrame({"a": [1.0, np.nan, 3.0], "b": [4, 5, 6]})
    >>> df.nanstats.median(nan_policy="omit")
    a    2.0
    b    5.0
    dtype: float64
    """

    def __init__(self, obj: pd.DataFrame) -> None:
        self._obj = obj

    def _columns(self, numeric_only: bool, number_objects: bool = False
                 ) -> tuple[pd.Index, list[Column]]:
        df = self._obj
        dtypes = set(column_dtypes(df))
        if len(dtypes) == 1 and df.shape[1]:
            dt = dtypes.pop()
            if isinstance(dt, np.dtype) and dt.kind in "fiub" and dt.itemsize <= 8:
                # one NumPy dtype: every column a view of one 2-D array (``iloc`` per
                # column costs more than a small column's statistic)
                values = df.to_numpy(copy=False)
                return df.columns, [Column(values[:, i], None, "numpy", dt)
                                    for i in range(df.shape[1])]
        keep, cols = [], []
        for i in range(df.shape[1]):
            s = df.iloc[:, i]
            if numeric_only and not is_numeric_column(s.dtype) and not (
                    number_objects and holds_numbers(s)):
                continue
            try:
                cols.append(column_arrays(s, df.columns[i]))
            except TypeError as err:
                raise TypeError(str(err)) from None
            keep.append(i)
        return (df.columns if len(keep) == df.shape[1] else df.columns[keep]), cols

    def _reduce(self, stat: str, *, axis: Any = 0, numeric_only: bool = False,
                nan_policy: Any = None, min_count: int = 0, weights: Any = None,
                **params: Any) -> Any:
        """The hook of every generated statistic: one result per column (or row), or
        one value over all values for ``axis=None``."""
        axis = _axis_number(axis, stat)
        family = _family(stat)
        if weights is not None:
            if axis != 0:
                raise ValueError(f"{stat}(weights=...) takes one weight per row: axis=0 "
                                 f"only, got axis={axis!r}")
            return self._weighted(stat, weights, numeric_only, nan_policy, min_count,
                                  params)
        if axis == 1 and family in ("count", "arg"):
            # per row = per column of the transpose (labels are the columns)
            return DataFrameNanStats(self._obj.T)._reduce(
                stat, numeric_only=numeric_only, nan_policy=nan_policy, **params)
        names, cols = self._columns(numeric_only)
        if family == "count":
            return pd.Series([numbers(c) for c in cols], index=names, dtype=np.int64)
        if family == "arg":
            df = self._obj
            labels = [SeriesNanStats(df.iloc[:, i] if not df.columns.is_unique else df[n]
                                     )._reduce(stat, nan_policy=nan_policy)
                      for i, n in enumerate(names)]
            return pd.Series(labels, index=names, dtype=df.index.dtype if labels else object)
        policy = resolve_policy(nan_policy)
        if axis is None:
            return whole(self._obj.index, stat, names, cols, policy, min_count, **params)
        if axis == 1:
            return rows(self._obj.index, stat, names, cols, policy, min_count, **params)
        index = self._obj.index

        def one(name: Any, col: Column) -> tuple[Any, Any, Any]:
            small = None if min_count else small_column(col, stat, policy, params)
            if small is not None:  # small NaN-free column: no blocks, scans nor plans
                return np.asarray(small), None, None
            red, empty = column_reduce(col, name, index, stat, policy, **params)
            values, miss = red.values, red.missing
            if min_count:
                values, miss = with_min_count(values, miss, red.count, min_count, col)
            return values, miss, empty

        return self._per_column(stat, names, cols, one, params)

    def _weighted(self, stat: str, weights: Any, numeric_only: bool, nan_policy: Any,
                  min_count: int, params: dict[str, Any]) -> Any:
        """``weights=``: one weighted result per column (a weight column left out)."""
        df = self._obj
        w = resolve_weights(weights, df.index, df)
        names, cols = self._columns(numeric_only)
        if w.by_label:
            kept = [i for i, n in enumerate(names) if n != w.label]
            names, cols = names[kept], [cols[i] for i in kept]
        policy = resolve_policy(nan_policy)

        def one(name: Any, col: Column) -> tuple[Any, Any, Any]:
            return weighted_column(col, name, df.index, stat, policy, w,
                                   min_count=min_count, **params)

        return self._per_column(stat, names, cols, one, params)

    @staticmethod
    def _per_column(stat: str, names: pd.Index, cols: list[Column], one: Any,
                    params: dict[str, Any]) -> Any:
        """``one(name, col) -> (values, missing, empty)`` per column, as pandas labels
        a DataFrame reduction (a DataFrame indexed by q for a sequence of quantiles)."""
        arrays = []
        for name, col in zip(names, cols, strict=True):
            values, miss, empty = one(name, col)
            if values.ndim == 0:
                values = values.reshape(1)
                miss = None if miss is None else np.asarray(miss).reshape(1)
                empty = None if empty is None else np.asarray(empty).reshape(1)
            arrays.append(to_pandas_array(values, miss, col, empty))
        q = params.get("q")
        if q_is_list(q):
            out = pd.DataFrame({j: a for j, a in enumerate(arrays)}, index=q_index(q))
            out.columns = names
            return out
        return combine(arrays, names, name=q if stat == "quantile" else None)

    #: aliases, as pandas names them (``DataFrame.idxmin`` / ``idxmax``)
    idxmin = DataFrameStatsMixin.argmin
    idxmax = DataFrameStatsMixin.argmax

    def rank(
        self,
        axis: Any = 0,
        method: str = "average",
        *,
        numeric_only: bool = False,
        ascending: bool = True,
        pct: bool = False,
        na_option: str | None = None,
        nan_policy: str | None = None,
    ) -> pd.DataFrame:
        """Ranks of each column (or row) as ``DataFrame.rank``, on totalOrder keys.

        Each column is ranked as :meth:`SeriesNanStats.rank` ranks a Series; the
        default policy is "totalorder" (a ranking must place every value), whatever
        ``set_options(nan_policy=...)`` says.

        Parameters
        ----------
        axis : {0, 1, "index", "columns"}, default 0
            0 ranks within each column, 1 within each row.
        method : {"average", "min", "max", "first", "dense"}, default "average"
            How ties are ranked, as pandas.
        numeric_only : bool, default False
            Rank only the numeric columns.
        ascending : bool, default True
        pct : bool, default False
            Ranks divided by the number of ranked values, as pandas.
        na_option : {"keep", "top", "bottom"}, optional
            pandas' placement of NaN and missing values (see
            :meth:`SeriesNanStats.rank`); not together with ``nan_policy``.
        nan_policy : str, optional
            As :meth:`SeriesNanStats.sort_values` (default "totalorder").

        Returns
        -------
        DataFrame
            float64 ranks, labelled as the (selected) DataFrame.

        Examples
        --------
        >>> import numpy as np, pandas as pd, nanaccess  # noqa: F401
        >>> df = pd.DataFrame({"a": [2.0, np.nan, 1.0], "b": [1, 3, 2]})
        >>> df.nanstats.rank(na_option="top")
             a    b
        0  3.0  1.0
        1  1.0  3.0
        2  2.0  2.0
        """
        if _axis_number(axis, "rank") == 1:
            return DataFrameNanStats(self._obj.T).rank(
                method=method, numeric_only=numeric_only, ascending=ascending, pct=pct,
                na_option=na_option, nan_policy=nan_policy).T
        names, cols = self._columns(numeric_only)
        index = self._obj.index
        ranks = {j: rank_values(c, n, index, method, ascending, pct, nan_policy, na_option)
                 for j, (n, c) in enumerate(zip(names, cols, strict=True))}
        out = pd.DataFrame(ranks, index=index, dtype=np.float64)
        out.columns = names
        return out

    # -- reports
    def describe(
        self,
        percentiles: Sequence[float] | None = None,
        include: Any = None,
        exclude: Any = None,
        *,
        nan_policy: str | None = None,
    ) -> pd.DataFrame:
        """Summary of the numeric columns as ``DataFrame.describe``, with NaN counts.

        The counts report every kind of value (numbers, NaN, missing); the statistics
        are computed under "omit" unless ``nan_policy`` says otherwise, so describe
        does not raise by default. Object columns that hold numbers (Decimal,
        Fraction, huge ints) are described too; other object and string columns are
        left out, as pandas does, unless ``include`` names them.

        Parameters
        ----------
        percentiles : sequence of float, optional
            In [0, 1]; default 0.25, 0.5, 0.75 (0.5 is always added, as pandas).
        include : "all", list of dtypes or None
            As pandas: "all" describes every column (columns holding no numbers get
            their counts and NaN statistics), a list selects by dtype as
            ``DataFrame.select_dtypes``; None: the numeric columns.
        exclude : list of dtypes or None
            Dtypes left out, as pandas.
        nan_policy : str, optional
            The policy of the statistic rows (see :doc:`/semantics`); None: "omit".
            describe never raises by default, whatever ``set_options`` says: it
            exists to show the NaNs.

        Returns
        -------
        DataFrame
            float64, one column per described column, the rows of
            :func:`nanaccess._describe.row_labels`.

        Examples
        --------
        >>> import numpy as np, pandas as pd, nanaccess  # noqa: F401
        >>> df = pd.DataFrame({"a": [1.0, np.nan, 3.0], "s": list("xyz")})
        >>> df.nanstats.describe().loc[["count", "nan", "mean"]]
                   a
        count    2.0
        nan      1.0
        mean     2.0
        >>> df.nanstats.describe(include="all").loc[["count", "nan", "mean"]]
                 a    s
        count  2.0  3.0
        nan    1.0  0.0
        mean   2.0  NaN
        """
        return describe_frame(self._obj, percentiles, include, exclude, nan_policy)

    def nan_report(self) -> pd.DataFrame:
        """One row per column with the counts of :func:`nanaccess.nan_report`.

        Examples
        --------
        >>> import numpy as np, pandas as pd, nanaccess  # noqa: F401
        >>> df = pd.DataFrame({"a": [1.0, np.nan], "b": [1, 2]})
        >>> df.nanstats.nan_report()[["values", "nan", "missing"]]
           values  nan  missing
        a       2    1        0
        b       2    0        0
        """
        names, cols = self._columns(numeric_only=False)
        rows = [report(c) for c in cols]
        return pd.DataFrame(
            [[r[k] for k in REPORT_KEYS] for r in rows], index=names, columns=list(REPORT_KEYS),
            dtype=np.int64,
        )

    # -- grouping / plotting
    def groupby(self, by: Any = None, **kwargs: Any) -> Any:
        """Group the DataFrame (as ``DataFrame.groupby``) for NaN-explicit statistics.

        Parameters
        ----------
        by : mapping, function, label or list of labels
            As ``DataFrame.groupby``.
        **kwargs
            Further ``DataFrame.groupby`` keywords (``sort``, ``dropna``, ``as_index``,
            ``observed``, ...).

        Returns
        -------
        NanGroupBy

        Examples
        --------
        >>> import numpy as np, pandas as pd, nanaccess  # noqa: F401
        >>> df = pd.DataFrame({"g": list("aabb"), "x": [1.0, np.nan, 3.0, 5.0]})
        >>> df.nanstats.groupby("g").median(nan_policy="omit")
             x
        g
        a  1.0
        b  4.0
        """
        return NanGroupBy(self._obj.groupby(by, **kwargs))

    def plot_nan_map(self, ax: Any = None) -> Any:
        """Draw where the NaNs and missing values sit (:func:`nanaccess.plotting.plot_nan_map`).

        Parameters
        ----------
        ax : matplotlib.axes.Axes, optional
            Where to draw (a new figure when None).

        Returns
        -------
        matplotlib.axes.Axes

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> import numpy as np, pandas as pd, nanaccess  # noqa: F401
        >>> ax = pd.DataFrame({"a": [1.0, np.nan]}).nanstats.plot_nan_map()
        """
        from ..plotting import plot_nan_map  # drawing is optional: not at import

        return plot_nan_map(self._obj, ax=ax)
