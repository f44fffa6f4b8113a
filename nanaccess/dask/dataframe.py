"""``ddf.nanstats`` on dask DataFrames and Series: lazy, exact statistics.

dask DataFrame has no exact median (``median_approximate`` only); here every column
goes through the exact selection of :mod:`nanaccess.dask.array` (histogram passes
over totalOrder key prefixes, combined across partitions), so results equal the
in-memory pandas accessor's numbers bit for bit. Partition lengths need not be known.
Policy errors are raised at compute time and name the column and the index label of
the first offending value. The statistic methods are generated from the statistics
table (:mod:`nanaccess.dask._generated`) and call the one hook ``_reduce`` of each
class here; the computations live in :mod:`nanaccess.dask.frame_reduce`.
"""

from __future__ import annotations

from typing import Any

from dask.dataframe.extensions import register_dataframe_accessor, register_series_accessor

from ._generated import DaskDataFrameStatsMixin, DaskGroupByStatsMixin, DaskSeriesStatsMixin
from .frame_reduce import frame_stat, groupby_stat, series_stat

__all__ = ["DaskDataFrameNanStats", "DaskNanGroupBy", "DaskSeriesNanStats", "series_stat"]


@register_series_accessor("nanstats")
class DaskSeriesNanStats(DaskSeriesStatsMixin):
    """``dask Series.nanstats``: exact, lazy statistics (0-d dask arrays).

    Examples
    --------
    >>> import numpy as np, pandas as pd, dask.dataframe as dd, nanaccess.dask
    >>> s = dd.from_pandas(pd.Series([4.0, np.nan, 1.0, 3.0]), npartitions=2)
    >>> float(s.nanstats.median(nan_policy="omit").compute())
    3.0
    """

    def __init__(self, obj: Any) -> None:
        self._obj = obj

    def _reduce(self, stat: str, *, nan_policy: Any = None, **params: Any) -> Any:
        return series_stat(self._obj, stat, nan_policy=nan_policy, **params)


@register_dataframe_accessor("nanstats")
class DaskDataFrameNanStats(DaskDataFrameStatsMixin):
    """``dask DataFrame.nanstats``: per-column exact statistics as a lazy Series.

    Examples
    --------
    >>> import numpy as np, pandas as pd, dask.dataframe as dd, nanaccess.dask
    >>> df = pd.DataFrame({"a": [4.0, np.nan, 1.0, 3.0], "b": [1.0, 2.0, 3.0, 4.0]})
    >>> ddf = dd.from_pandas(df, npartitions=2)
    >>> ddf.nanstats.median(nan_policy="omit").compute().tolist()
    [3.0, 2.5]
    """

    def __init__(self, obj: Any) -> None:
        self._obj = obj

    def _reduce(self, stat: str, *, numeric_only: bool = False, nan_policy: Any = None,
                **params: Any) -> Any:
        return frame_stat(self._obj, stat, numeric_only, nan_policy=nan_policy, **params)

    def groupby(self, by: Any, *, dropna: bool = True) -> DaskNanGroupBy:
        """Exact grouped statistics: ``ddf.nanstats.groupby("k").median(...)``.

        Parameters
        ----------
        by : label or list of labels
            The key column(s); rows are shuffled so each group sits in one partition.
        dropna : bool, default True
            Leave out rows whose key is NaN / missing, as pandas.

        Returns
        -------
        DaskNanGroupBy

        Examples
        --------
        >>> import pandas as pd, dask.dataframe as dd, nanaccess.dask
        >>> ddf = dd.from_pandas(pd.DataFrame({"k": [1, 1], "x": [1.0, 3.0]}), npartitions=1)
        >>> float(ddf.nanstats.groupby("k").mean(nan_policy="omit").compute()["x"].iloc[0])
        2.0
        """
        return DaskNanGroupBy(self._obj, by, dropna=dropna)


class DaskNanGroupBy(DaskGroupByStatsMixin):
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

    def _reduce(self, stat: str, **kw: Any) -> Any:
        return groupby_stat(self._ddf, self._by, self._dropna, stat, **kw)
