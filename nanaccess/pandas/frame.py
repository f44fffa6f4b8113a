"""``DataFrame.nanstats``: the DataFrame accessor (see :mod:`nanaccess.pandas`).

One result per column (``axis=0``), per row (``axis=1``, :mod:`.frame_block`) or over
every value (``axis=None``); ``weights=`` per row through :mod:`.weighted`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from .. import _stats
from .._hostkit import without_weights_kind
from .._stats import MEDIANS
from ..core.reduce import reduce
from ..errors import NaNError
from ..options import resolve_policy
from ..typing import NanPolicyArg
from ._generated import DataFrameStatsMixin
from ._groupby_registry import column_dtypes
from .agg_forms import frame_agg
from .bivariate import FrameBivariate
from .columns import (
    REPORT_KEYS,
    column_reduce,
    combine,
    holds_numbers,
    numbers,
    q_index,
    q_is_list,
    report,
    with_min_count,
)
from .cumulative import CumulativeMixin  # cumsum, cummax, ... (issue 23)
from .describe import describe_frame
from .dtypes import Column, column_arrays, is_numeric_column, to_pandas_array
from .frame_block import rows, whole
from .groupby import NanGroupBy
from .series import SeriesNanStats
from .sorting import rank_values
from .weighted import resolve_weights, weighted_column

__all__ = ["DataFrameNanStats"]


def _axis_number(axis: Any, stat: str) -> int | None:
    """0, 1 or None (every value, as pandas 3's ``df.median(axis=None)``; pandas
    refuses it for quantile, count and the positions, and so does nanaccess)."""
    if axis in (0, "index", "rows"):
        return 0
    if axis in (1, "columns"):
        return 1
    if axis is None and stat not in _stats.INT_RESULTS and stat not in _stats.QUANTILES:
        return None
    raise ValueError(f"No axis named {axis!r} for object type DataFrame")

class DataFrameNanStats(FrameBivariate, DataFrameStatsMixin, CumulativeMixin):
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
        params = without_weights_kind(weights, params)
        if weights is not None:
            if axis != 0:
                raise ValueError(f"{stat}(weights=...) takes one weight per row: axis=0 "
                                 f"only, got axis={axis!r}")
            return self._weighted(stat, weights, numeric_only, nan_policy, min_count,
                                  params)
        if axis == 1 and stat in _stats.INT_RESULTS:
            # per row = per column of the transpose (labels are the columns)
            return DataFrameNanStats(self._obj.T)._reduce(
                stat, numeric_only=numeric_only, nan_policy=nan_policy, **params)
        names, cols = self._columns(numeric_only)
        if stat in _stats.COUNTS:
            return pd.Series([numbers(c) for c in cols], index=names, dtype=np.int64)
        if stat in _stats.ARG:  # positions, as Series.argmax (idxmax: the labels)
            df = self._obj
            pos = [SeriesNanStats(df.iloc[:, i] if not df.columns.is_unique else df[n]
                                  )._reduce(stat, nan_policy=nan_policy)
                   for i, n in enumerate(names)]
            return pd.Series(pos, index=names, dtype=np.int64)
        policy = resolve_policy(nan_policy)
        if axis is None:
            return whole(self._obj.index, stat, names, cols, policy, min_count, **params)
        if axis == 1:
            return rows(self._obj.index, stat, names, cols, policy, min_count, **params)
        index = self._obj.index
        if stat in MEDIANS and not params and not min_count and cols and all(
                c.host == "numpy" and c.values.dtype == np.float64 for c in cols):
            # one float64 block: every column's median at once (the core tries its lean
            # path for small blocks first); a policy error: per column, to name it
            block = self._obj.to_numpy(copy=False)
            if block.shape[1] == len(cols):
                try:
                    return pd.Series(reduce(block, stat, axis=0, policy=policy).values,
                                     index=names)
                except NaNError:
                    pass

        def one(name: Any, col: Column) -> tuple[Any, Any, Any]:
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
        return combine(arrays, names, name=q if stat in _stats.QUANTILES else None)

    def _labels(self, pos: pd.Series, axis: Any) -> pd.Series:
        """The index (``axis=0``) or column (``axis=1``) labels at positions ``pos``."""
        labels = self._obj.columns if _axis_number(axis, "idxmax") == 1 else self._obj.index
        got = labels.take(pos.to_numpy())
        if isinstance(got, pd.MultiIndex):  # tuples, as pandas' idxmax
            return pd.Series(got.tolist(), index=pos.index, dtype=object)
        return pd.Series(got, index=pos.index, dtype=labels.dtype)

    def idxmin(self, axis: Any = 0, numeric_only: bool = False, *,
               nan_policy: NanPolicyArg = None, skipna: bool | None = None) -> pd.Series:
        """Label of each column's (``axis=1``: row's) first smallest value, as
        ``DataFrame.idxmin``: the labels at :meth:`argmin`'s positions.

        Parameters
        ----------
        axis : {0, 1, "index", "columns", "rows"}, default 0
            0: the index label of each column's value; 1: the column label of each row's.
        numeric_only : bool, default False
            As :meth:`argmin`.
        nan_policy : str, optional
            As :meth:`argmin` (None: the ``nan_policy`` option).
        skipna : bool, optional
            As :meth:`argmin`.

        Returns
        -------
        Series
            Index labels (``axis=1``: column labels), one per column (row).

        Examples
        --------
        >>> import numpy as np, pandas as pd, nanaccess  # noqa: F401
        >>> df = pd.DataFrame({"a": [4.0, np.nan, 1.0], "b": [2, 5, 3]}, index=list("xyz"))
        >>> df.nanstats.idxmin(nan_policy="omit")
        a    z
        b    x
        dtype: str
        """
        pos = self.argmin(axis=axis, numeric_only=numeric_only, nan_policy=nan_policy,
                          skipna=skipna)
        return self._labels(pos, axis)

    def idxmax(self, axis: Any = 0, numeric_only: bool = False, *,
               nan_policy: NanPolicyArg = None, skipna: bool | None = None) -> pd.Series:
        """Label of each column's (``axis=1``: row's) first largest value, as
        ``DataFrame.idxmax``: the labels at :meth:`argmax`'s positions.

        Parameters
        ----------
        axis : {0, 1, "index", "columns", "rows"}, default 0
            0: the index label of each column's value; 1: the column label of each row's.
        numeric_only : bool, default False
            As :meth:`argmax`.
        nan_policy : str, optional
            As :meth:`argmax` (None: the ``nan_policy`` option).
        skipna : bool, optional
            As :meth:`argmax`.

        Returns
        -------
        Series
            Index labels (``axis=1``: column labels), one per column (row).

        Examples
        --------
        >>> import numpy as np, pandas as pd, nanaccess  # noqa: F401
        >>> df = pd.DataFrame({"a": [4.0, np.nan, 1.0], "b": [2, 5, 3]}, index=list("xyz"))
        >>> df.nanstats.idxmax(nan_policy="omit")
        a    x
        b    y
        dtype: str
        """
        pos = self.argmax(axis=axis, numeric_only=numeric_only, nan_policy=nan_policy,
                          skipna=skipna)
        return self._labels(pos, axis)

    def rank(
        self,
        axis: Any = 0,
        method: str = "average",
        *,
        numeric_only: bool = False,
        ascending: bool = True,
        pct: bool = False,
        na_option: str | None = None,
        nan_policy: NanPolicyArg = None,
    ) -> pd.DataFrame:
        """Ranks of each column (or row) as ``DataFrame.rank``, on totalOrder keys.

        Each column is ranked as :meth:`SeriesNanStats.rank` ranks a Series; the
        default policy is "omit" (a NaN ranks NaN, pandas' ``na_option="keep"``),
        whatever ``set_options(nan_policy=...)`` says.

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
            As :meth:`SeriesNanStats.rank` (default "omit").

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
        nan_policy: NanPolicyArg = None,
    ) -> pd.DataFrame:
        """Summary of the numeric and datetime columns as ``DataFrame.describe``, with
        NaN counts.

        The counts report every kind of value (numbers, NaN, missing); the statistics
        are computed under "omit" unless ``nan_policy`` says otherwise, so describe
        does not raise by default. Columns and rows are pandas 3's: numeric,
        timedelta and (tz-naive) datetime columns by default, datetimes without a
        ``std`` row (which then goes last, as pandas orders the rows). Object columns
        that hold numbers (Decimal, Fraction, huge ints) are described too; other
        object and string columns are left out, as pandas does, unless ``include``
        names them.

        Parameters
        ----------
        percentiles : sequence of float, optional
            In [0, 1]; default 0.25, 0.5, 0.75; otherwise exactly those (as pandas 3).
        include : "all", list of dtypes or None
            As pandas: "all" describes every column (columns holding no numbers get
            their counts and NaN statistics), a list selects by dtype as
            ``DataFrame.select_dtypes`` (ValueError when nothing matches); None: the
            numeric and datetime columns (every column when there is none).
        exclude : list of dtypes or None
            Dtypes left out, as pandas.
        nan_policy : str, optional
            The policy of the statistic rows (see :doc:`/semantics`); None: "omit".
            describe never raises by default, whatever ``set_options`` says: it
            exists to show the NaNs.

        Returns
        -------
        DataFrame
            One column per described column (float64 unless a datetime or timedelta
            column is described, then object as pandas), the rows of
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

        Columns that hold no numbers (text, categories of strings, ...) have no NaN
        kinds to count: they are left out of the rows and named, with the reason, in
        the result's ``attrs["skipped"]``.

        Returns
        -------
        pandas.DataFrame
            Indexed by column, one int64 column per kind of value (``values``,
            ``numbers``, ``nan``, ``signaling``, ``missing``, ...).

        Examples
        --------
        >>> import numpy as np, pandas as pd, nanaccess  # noqa: F401
        >>> df = pd.DataFrame({"a": [1.0, np.nan], "b": [1, 2], "s": ["x", None]})
        >>> out = df.nanstats.nan_report()
        >>> out[["values", "nan", "missing"]]
           values  nan  missing
        a       2    1        0
        b       2    0        0
        >>> out.attrs["skipped"]
        {'s': 'non-numeric dtype str'}
        """
        df = self._obj
        keep, rows, skipped = [], [], {}
        for i in range(df.shape[1]):
            s = df.iloc[:, i]
            try:
                rows.append(report(column_arrays(s, df.columns[i])))
            except TypeError:
                skipped[df.columns[i]] = f"non-numeric dtype {s.dtype}"
                continue
            keep.append(i)
        out = pd.DataFrame(
            [[r[k] for k in REPORT_KEYS] for r in rows], index=df.columns[keep],
            columns=list(REPORT_KEYS), dtype=np.int64,
        )
        out.attrs["skipped"] = skipped
        return out

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

    # -- several statistics at once
    def agg(self, func: Any = None, axis: Any = 0, **kwargs: Any) -> Any:
        """Several statistics at once, as ``DataFrame.agg``.

        Parameters
        ----------
        func : str, nanaccess.agg callable, list of them, or dict
            A statistic of the table ("median", "iqr", ...); a list gives one row per
            statistic; a dict maps columns to a statistic or a list of them. Omit it
            for named aggregation: ``name=(column, statistic)`` or ``pd.NamedAgg``.
        axis : {0, "index", 1, "columns"}, default 0
            0 applies each statistic to each column; 1 to each row (of the
            transposed frame, as pandas does).
        **kwargs
            Keywords for every statistic that takes them (``nan_policy``, ``skipna``,
            ``q``, ``ddof``, ``numeric_only``, ...), and named aggregations.

        Returns
        -------
        scalar, Series or DataFrame
            As ``DataFrame.agg``: one statistic gives a Series by column; a list a
            DataFrame indexed by statistic; a dict of single statistics a Series by
            column; a dict with lists, or named aggregation, a DataFrame with missing
            cells where a column was not asked for a statistic.

        Examples
        --------
        >>> import numpy as np, pandas as pd, nanaccess  # noqa: F401
        >>> df = pd.DataFrame({"x": [1.0, np.nan, 3.0], "y": [4.0, 5.0, 9.0]})
        >>> df.nanstats.agg(["median", "max"], nan_policy="omit")
                  x    y
        median  2.0  5.0
        max     3.0  9.0
        >>> df.nanstats.agg({"x": "min", "y": ["min", "mean"]}, nan_policy="omit")
                x    y
        min   1.0  4.0
        mean  NaN  6.0
        >>> df.nanstats.agg(lo=("x", "min"), mid=("y", "median"), nan_policy="omit")
               x    y
        lo   1.0  NaN
        mid  NaN  5.0
        """
        if axis in (1, "columns"):  # pandas: the statistics become the columns
            out = self._obj.T.nanstats.agg(func, **kwargs)
            return out.T if isinstance(out, pd.DataFrame) else out
        if axis not in (0, "index"):
            raise ValueError(f"agg: axis must be 0, 'index', 1 or 'columns', got {axis!r}")
        return frame_agg(self, func, kwargs, self._column_accessor)

    aggregate = agg

    def _column_accessor(self, label: Any) -> Any:
        column = self._obj[label]
        if isinstance(column, pd.DataFrame):
            raise ValueError(f"agg: the label {label!r} names {column.shape[1]} columns; "
                             "a dict or named aggregation needs unique column labels")
        return column.nanstats

