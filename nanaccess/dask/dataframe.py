"""``ddf.nanstats`` on dask DataFrames and Series: lazy, exact statistics.

dask DataFrame has no exact median (``median_approximate`` only); here every column
goes through the exact selection of :mod:`nanaccess.dask.array` (histogram passes
over totalOrder key prefixes, combined across partitions), so results equal the
in-memory pandas accessor's numbers bit for bit. Partition lengths need not be known.
Policy errors are raised at compute time and name the column and the index label of
the first offending value. The computations live in :mod:`nanaccess.dask.frame_reduce`;
this module holds only the accessor classes and their registration.
"""

from __future__ import annotations

from typing import Any

from dask.dataframe.extensions import register_dataframe_accessor, register_series_accessor

from .frame_reduce import frame_stat, groupby_stat, series_stat

__all__ = ["DaskDataFrameNanStats", "DaskNanGroupBy", "DaskSeriesNanStats", "series_stat"]


class _Base:
    def __init__(self, obj: Any) -> None:
        self._obj = obj


@register_series_accessor("nanstats")
class DaskSeriesNanStats(_Base):
    """``dask Series.nanstats``: exact, lazy statistics (0-d dask arrays).

    Examples
    --------
    >>> import numpy as np, pandas as pd, dask.dataframe as dd, nanaccess.dask
    >>> s = dd.from_pandas(pd.Series([4.0, np.nan, 1.0, 3.0]), npartitions=2)
    >>> float(s.nanstats.median(nan_policy="omit").compute())
    3.0
    """

    def median(self, *, nan_policy=None):
        """Exact median.

        Examples
        --------
        >>> import pandas as pd, dask.dataframe as dd, nanaccess.dask
        >>> s = dd.from_pandas(pd.Series([4.0, 1.0, 3.0, 2.0]), npartitions=2)
        >>> float(s.nanstats.median().compute())
        2.5
        """
        return series_stat(self._obj, "median", nan_policy=nan_policy)

    def median_low(self, *, nan_policy=None):
        """Low median.

        Examples
        --------
        >>> import pandas as pd, dask.dataframe as dd, nanaccess.dask
        >>> s = dd.from_pandas(pd.Series([4.0, 1.0, 3.0, 2.0]), npartitions=2)
        >>> float(s.nanstats.median_low().compute())
        2.0
        """
        return series_stat(self._obj, "median_low", nan_policy=nan_policy)

    def median_high(self, *, nan_policy=None):
        """High median.

        Examples
        --------
        >>> import pandas as pd, dask.dataframe as dd, nanaccess.dask
        >>> s = dd.from_pandas(pd.Series([4.0, 1.0, 3.0, 2.0]), npartitions=2)
        >>> float(s.nanstats.median_high().compute())
        3.0
        """
        return series_stat(self._obj, "median_high", nan_policy=nan_policy)

    def quantile(self, q=0.5, *, method="linear", nan_policy=None):
        """Exact quantile(s).

        Examples
        --------
        >>> import pandas as pd, dask.dataframe as dd, nanaccess.dask
        >>> s = dd.from_pandas(pd.Series([4.0, 1.0, 3.0, 2.0]), npartitions=2)
        >>> s.nanstats.quantile([0.0, 1.0]).compute()
        array([1., 4.])
        """
        return series_stat(self._obj, "quantile", q=q, method=method, nan_policy=nan_policy)

    def min(self, *, nan_policy=None):
        """Minimum.

        Examples
        --------
        >>> import pandas as pd, dask.dataframe as dd, nanaccess.dask
        >>> s = dd.from_pandas(pd.Series([4.0, 1.0, 3.0]), npartitions=2)
        >>> float(s.nanstats.min().compute())
        1.0
        """
        return series_stat(self._obj, "min", nan_policy=nan_policy)

    def max(self, *, nan_policy=None):
        """Maximum.

        Examples
        --------
        >>> import pandas as pd, dask.dataframe as dd, nanaccess.dask
        >>> s = dd.from_pandas(pd.Series([4.0, 1.0, 3.0]), npartitions=2)
        >>> float(s.nanstats.max().compute())
        4.0
        """
        return series_stat(self._obj, "max", nan_policy=nan_policy)

    def mean(self, *, nan_policy=None):
        """Correctly rounded mean.

        Examples
        --------
        >>> import pandas as pd, dask.dataframe as dd, nanaccess.dask
        >>> s = dd.from_pandas(pd.Series([4.0, 1.0, 4.0]), npartitions=2)
        >>> float(s.nanstats.mean().compute())
        3.0
        """
        return series_stat(self._obj, "mean", nan_policy=nan_policy)

    def sum(self, *, nan_policy=None):
        """Correctly rounded sum.

        Examples
        --------
        >>> import pandas as pd, dask.dataframe as dd, nanaccess.dask
        >>> s = dd.from_pandas(pd.Series([4.0, 1.0, 4.0]), npartitions=2)
        >>> float(s.nanstats.sum().compute())
        9.0
        """
        return series_stat(self._obj, "sum", nan_policy=nan_policy)

    def var(self, *, ddof=1, nan_policy=None):
        """Variance (``ddof=1`` as pandas).

        Examples
        --------
        >>> import pandas as pd, dask.dataframe as dd, nanaccess.dask
        >>> s = dd.from_pandas(pd.Series([1.0, 3.0]), npartitions=2)
        >>> float(s.nanstats.var().compute())
        2.0
        """
        return series_stat(self._obj, "var", ddof=ddof, nan_policy=nan_policy)

    def std(self, *, ddof=1, nan_policy=None):
        """Standard deviation (``ddof=1`` as pandas).

        Examples
        --------
        >>> import pandas as pd, dask.dataframe as dd, nanaccess.dask
        >>> s = dd.from_pandas(pd.Series([1.0, 3.0]), npartitions=2)
        >>> round(float(s.nanstats.std().compute()), 6)
        1.414214
        """
        return series_stat(self._obj, "std", ddof=ddof, nan_policy=nan_policy)


@register_dataframe_accessor("nanstats")
class DaskDataFrameNanStats(_Base):
    """``dask DataFrame.nanstats``: per-column exact statistics as a lazy Series.

    Examples
    --------
    >>> import numpy as np, pandas as pd, dask.dataframe as dd, nanaccess.dask
    >>> df = pd.DataFrame({"a": [4.0, np.nan, 1.0, 3.0], "b": [1.0, 2.0, 3.0, 4.0]})
    >>> ddf = dd.from_pandas(df, npartitions=2)
    >>> ddf.nanstats.median(nan_policy="omit").compute().tolist()
    [3.0, 2.5]
    """

    def groupby(self, by, *, dropna=True):
        """Exact grouped statistics: ``ddf.nanstats.groupby("k").median(...)``.

        Examples
        --------
        >>> import pandas as pd, dask.dataframe as dd, nanaccess.dask
        >>> ddf = dd.from_pandas(pd.DataFrame({"k": [1, 1], "x": [1.0, 3.0]}), npartitions=1)
        >>> float(ddf.nanstats.groupby("k").mean(nan_policy="omit").compute()["x"].iloc[0])
        2.0
        """
        return DaskNanGroupBy(self._obj, by, dropna=dropna)

    def median(self, *, numeric_only=False, nan_policy=None):
        """Exact median of each column.

        Examples
        --------
        >>> import pandas as pd, dask.dataframe as dd, nanaccess.dask
        >>> ddf = dd.from_pandas(pd.DataFrame({"a": [4.0, 1.0, 3.0]}), npartitions=2)
        >>> ddf.nanstats.median().compute().tolist()
        [3.0]
        """
        return frame_stat(self._obj, "median", numeric_only, nan_policy=nan_policy)

    def quantile(self, q=0.5, *, method="linear", numeric_only=False, nan_policy=None):
        """Exact quantile(s) of each column (list ``q``: a frame indexed by q).

        Examples
        --------
        >>> import pandas as pd, dask.dataframe as dd, nanaccess.dask
        >>> ddf = dd.from_pandas(pd.DataFrame({"a": [4.0, 1.0, 3.0]}), npartitions=2)
        >>> ddf.nanstats.quantile([0.0, 1.0]).compute()["a"].tolist()
        [1.0, 4.0]
        """
        return frame_stat(self._obj, "quantile", numeric_only, q=q, method=method,
                           nan_policy=nan_policy)

    def min(self, *, numeric_only=False, nan_policy=None):
        """Minimum of each column.

        Examples
        --------
        >>> import pandas as pd, dask.dataframe as dd, nanaccess.dask
        >>> ddf = dd.from_pandas(pd.DataFrame({"a": [4.0, 1.0, 3.0]}), npartitions=2)
        >>> ddf.nanstats.min().compute().tolist()
        [1.0]
        """
        return frame_stat(self._obj, "min", numeric_only, nan_policy=nan_policy)

    def max(self, *, numeric_only=False, nan_policy=None):
        """Maximum of each column.

        Examples
        --------
        >>> import pandas as pd, dask.dataframe as dd, nanaccess.dask
        >>> ddf = dd.from_pandas(pd.DataFrame({"a": [4.0, 1.0, 3.0]}), npartitions=2)
        >>> ddf.nanstats.max().compute().tolist()
        [4.0]
        """
        return frame_stat(self._obj, "max", numeric_only, nan_policy=nan_policy)

    def mean(self, *, numeric_only=False, nan_policy=None):
        """Correctly rounded mean of each column.

        Examples
        --------
        >>> import pandas as pd, dask.dataframe as dd, nanaccess.dask
        >>> ddf = dd.from_pandas(pd.DataFrame({"a": [4.0, 1.0, 4.0]}), npartitions=2)
        >>> ddf.nanstats.mean().compute().tolist()
        [3.0]
        """
        return frame_stat(self._obj, "mean", numeric_only, nan_policy=nan_policy)

    def sum(self, *, numeric_only=False, nan_policy=None):
        """Correctly rounded sum of each column.

        Examples
        --------
        >>> import pandas as pd, dask.dataframe as dd, nanaccess.dask
        >>> ddf = dd.from_pandas(pd.DataFrame({"a": [4.0, 1.0, 4.0]}), npartitions=2)
        >>> ddf.nanstats.sum().compute().tolist()
        [9.0]
        """
        return frame_stat(self._obj, "sum", numeric_only, nan_policy=nan_policy)

    def var(self, *, ddof=1, numeric_only=False, nan_policy=None):
        """Variance of each column (``ddof=1`` as pandas).

        Examples
        --------
        >>> import pandas as pd, dask.dataframe as dd, nanaccess.dask
        >>> ddf = dd.from_pandas(pd.DataFrame({"a": [1.0, 3.0]}), npartitions=2)
        >>> ddf.nanstats.var().compute().tolist()
        [2.0]
        """
        return frame_stat(self._obj, "var", numeric_only, ddof=ddof, nan_policy=nan_policy)

    def std(self, *, ddof=1, numeric_only=False, nan_policy=None):
        """Standard deviation of each column (``ddof=1`` as pandas).

        Examples
        --------
        >>> import pandas as pd, dask.dataframe as dd, nanaccess.dask
        >>> ddf = dd.from_pandas(pd.DataFrame({"a": [1.0, 3.0]}), npartitions=2)
        >>> ddf.nanstats.std(ddof=0).compute().tolist()
        [1.0]
        """
        return frame_stat(self._obj, "std", numeric_only, ddof=ddof, nan_policy=nan_policy)


class DaskNanGroupBy:
    """``ddf.nanstats.groupby(by)``: exact grouped statistics on a dask DataFrame.

    Rows are shuffled so that every group lands whole in one partition (dask's
    ``DataFrame.shuffle(on=by)``), then each partition runs the in-memory grouped
    kernel (``pdf.groupby(by).nanstats.<stat>``). Results are exact and equal, bit
    for bit, to the pandas result on the same data; it fits where each group fits in
    one worker's memory. The result is lazy; group order across partitions follows the
    shuffle (call ``.compute().sort_index()`` for pandas' sorted order).

    Examples
    --------
    >>> import numpy as np, pandas as pd, dask.dataframe as dd, nanaccess.dask
    >>> df = pd.DataFrame({"k": [1, 2, 1, 2, 1], "x": [1.0, np.nan, 3.0, 4.0, 8.0]})
    >>> ddf = dd.from_pandas(df, npartitions=2)
    >>> ddf.nanstats.groupby("k").median(nan_policy="omit").compute().sort_index()
         x
    k
    1  3.0
    2  4.0
    """

    def __init__(self, ddf: Any, by: Any, dropna: bool = True) -> None:
        self._ddf, self._by, self._dropna = ddf, by, dropna

    def _stat(self, stat: str, **kw: Any) -> Any:
        return groupby_stat(self._ddf, self._by, self._dropna, stat, **kw)

    def median(self, *, nan_policy=None):
        """Exact median per group (see the class docstring)."""
        return self._stat("median", nan_policy=nan_policy)

    def median_low(self, *, nan_policy=None):
        """Exact low median per group."""
        return self._stat("median_low", nan_policy=nan_policy)

    def median_high(self, *, nan_policy=None):
        """Exact high median per group."""
        return self._stat("median_high", nan_policy=nan_policy)

    def quantile(self, q=0.5, *, method="linear", nan_policy=None):
        """Exact quantile per group (scalar ``q``)."""
        return self._stat("quantile", q=q, method=method, nan_policy=nan_policy)

    def min(self, *, nan_policy=None):
        """Smallest value per group."""
        return self._stat("min", nan_policy=nan_policy)

    def max(self, *, nan_policy=None):
        """Largest value per group."""
        return self._stat("max", nan_policy=nan_policy)

    def mean(self, *, nan_policy=None):
        """Exact (correctly rounded) mean per group."""
        return self._stat("mean", nan_policy=nan_policy)

    def sum(self, *, nan_policy=None):
        """Exact sum per group."""
        return self._stat("sum", nan_policy=nan_policy)

    def var(self, *, ddof=1, nan_policy=None):
        """Exactly rounded variance per group (ddof=1 as pandas)."""
        return self._stat("var", ddof=ddof, nan_policy=nan_policy)

    def std(self, *, ddof=1, nan_policy=None):
        """Standard deviation per group (ddof=1 as pandas)."""
        return self._stat("std", ddof=ddof, nan_policy=nan_policy)

