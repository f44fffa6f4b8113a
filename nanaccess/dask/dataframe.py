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

from typing import TYPE_CHECKING, Any

import dask.dataframe as dd
import numpy as np
import pandas as pd

from .._describe import describe_policy
from ..typing import NanPolicyArg
from ._generated import DaskDataFrameStatsMixin, DaskGroupByStatsMixin, DaskSeriesStatsMixin
from .bivariate import DaskFrameBivariate, DaskSeriesBivariate
from .cumulative import DaskCumulativeMixin  # cumsum & co (issue 23)
from .frame_agg import lazy_frame_agg, lazy_series_agg, register_groupby_agg
from .frame_reduce import frame_stat, groupby_stat, series_stat
from .frame_report import frame_describe, frame_report, series_describe, series_report
from .scalars import scalar as _scalar
from .typed_dask import delayed

if TYPE_CHECKING:  # dask's own are untyped: a class decorator returns the class
    from collections.abc import Callable
    from typing import TypeVar

    _C = TypeVar("_C", bound=type)

    def register_series_accessor(name: str) -> Callable[[_C], _C]: ...

    def register_dataframe_accessor(name: str) -> Callable[[_C], _C]: ...
else:
    from dask.dataframe.extensions import register_dataframe_accessor, register_series_accessor

__all__ = ["DaskDataFrameNanStats", "DaskNanGroupBy", "DaskSeriesNanStats", "series_stat"]


@register_series_accessor("nanstats")
class DaskSeriesNanStats(DaskSeriesBivariate, DaskCumulativeMixin, DaskSeriesStatsMixin):
    """``dask Series.nanstats``: exact, lazy statistics (dask Scalars computing to
    what pandas returns; a sequence ``q`` gives a lazy Series indexed by q).

    Examples
    --------
    >>> import numpy as np, pandas as pd, dask.dataframe as dd, nanaccess.dask
    >>> s = dd.from_pandas(pd.Series([4.0, np.nan, 1.0, 3.0]), npartitions=2)
    >>> s.nanstats.median(nan_policy="omit").compute()
    np.float64(3.0)
    >>> s.nanstats.quantile([0.25, 0.75], nan_policy="omit").compute()
    0.25    2.0
    0.75    3.5
    dtype: float64
    """

    def __init__(self, obj: Any) -> None:
        self._obj = obj

    def _reduce(self, stat: str, *, nan_policy: Any = None, **params: Any) -> Any:
        out = series_stat(self._obj, stat, nan_policy=nan_policy, **params)
        if np.ndim(params.get("q")) > 0:  # as pandas: a Series indexed by q
            return _labelled(out, params["q"], self._obj.name)
        return _scalar(out)

    def agg(self, func: Any = None, **kwargs: Any) -> Any:
        """Several statistics at once, as ``Series.nanstats.agg`` (lazy, exact).

        Parameters
        ----------
        func : str, nanaccess.agg callable, list or dict
            Statistic names of the table, :mod:`nanaccess.agg` callables, a list of
            them, or a dict ``{label: statistic}``.
        **kwargs
            Keywords for every statistic that takes them (``nan_policy``, ``q``...).

        Returns
        -------
        dask Scalar or dask.dataframe.Series
            One statistic: that statistic's lazy result; several: a lazy Series
            indexed by their labels, as pandas.

        Examples
        --------
        >>> import numpy as np, pandas as pd, dask.dataframe as dd, nanaccess as na
        >>> s = dd.from_pandas(pd.Series([4.0, np.nan, 1.0, 3.0]), npartitions=2)
        >>> s.nanstats.agg([na.agg.median(nan_policy="omit"), "max"], nan_policy="omit"
        ...                ).compute()
        median    3.0
        max       4.0
        dtype: float64
        """
        return lazy_series_agg(self, func, kwargs)

    aggregate = agg

    def describe(self, percentiles: Any = None, *, nan_policy: NanPolicyArg = None) -> Any:
        """describe's rows (as ``Series.nanstats.describe``), lazy and exact.

        The counts report every kind of value; the statistics are computed under
        "omit" unless ``nan_policy`` is passed or chosen (but "raise") with ``set_options`` /
        ``option_context`` (describe does not raise by itself).

        Parameters
        ----------
        percentiles : sequence of float, optional
            In [0, 1]; default 0.25, 0.5, 0.75; otherwise exactly those (as pandas 3).
        nan_policy : str, optional
            The policy of the statistic rows; None: the policy chosen with
            ``set_options`` / ``option_context`` (but "raise"), else "omit".

        Returns
        -------
        dask.dataframe.Series
            float64, indexed by the row names (lazy).

        Examples
        --------
        >>> import numpy as np, pandas as pd, dask.dataframe as dd, nanaccess.dask
        >>> s = dd.from_pandas(pd.Series([4.0, np.nan, 1.0, 3.0]), npartitions=2)
        >>> s.nanstats.describe().compute()[["count", "nan", "mean", "max"]].tolist()
        [3.0, 1.0, 2.6666666666666665, 4.0]
        """
        return series_describe(self._obj, percentiles, nan_policy)

    def nan_report(self) -> Any:
        """The counts of :func:`nanaccess.nan_report`, lazy (merged per partition).

        Returns
        -------
        dask.dataframe.Series
            int64, indexed by the report keys (lazy).

        Examples
        --------
        >>> import numpy as np, pandas as pd, dask.dataframe as dd, nanaccess.dask
        >>> s = dd.from_pandas(pd.Series([4.0, np.nan, 1.0, np.nan]), npartitions=2)
        >>> int(s.nanstats.nan_report().compute()["nan"])
        2
        """
        return series_report(self._obj)


@register_dataframe_accessor("nanstats")
class DaskDataFrameNanStats(DaskFrameBivariate, DaskCumulativeMixin, DaskDataFrameStatsMixin):
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

    def agg(self, func: Any = None, **kwargs: Any) -> Any:
        """Several statistics at once, as ``DataFrame.nanstats.agg`` (lazy, exact).

        dask DataFrames have no ``agg`` of their own; this takes pandas' forms.

        Parameters
        ----------
        func : str, nanaccess.agg callable, list or dict
            Statistic names of the table or :mod:`nanaccess.agg` callables; a list
            gives one row per statistic; a dict maps columns to statistics.
        **kwargs
            Keywords for every statistic that takes them (``nan_policy``, ``q``...),
            or named aggregations ``name=(column, statistic)``.

        Returns
        -------
        dask.dataframe.Series or DataFrame
            Lazy, laid out as pandas' ``DataFrame.agg``.

        Examples
        --------
        >>> import numpy as np, pandas as pd, dask.dataframe as dd, nanaccess as na
        >>> df = pd.DataFrame({"a": [4.0, np.nan, 1.0, 3.0], "b": [1.0, 2.0, 3.0, 4.0]})
        >>> ddf = dd.from_pandas(df, npartitions=2)
        >>> ddf.nanstats.agg([na.agg.median(nan_policy="omit"), na.agg.max(nan_policy="omit")]
        ...                  ).compute()
                  a    b
        median  3.0  2.5
        max     4.0  4.0
        """
        return lazy_frame_agg(self, func, kwargs)

    aggregate = agg

    def describe(self, percentiles: Any = None, *, nan_policy: NanPolicyArg = None) -> Any:
        """describe's rows of the numeric columns (as ``DataFrame.nanstats.describe``),
        lazy and exact; the statistics under "omit" unless ``nan_policy`` is passed (or
        chosen, other than "raise", with ``set_options`` / ``option_context``).

        Parameters
        ----------
        percentiles : sequence of float, optional
            In [0, 1]; default 0.25, 0.5, 0.75; otherwise exactly those (as pandas 3).
        nan_policy : str, optional
            The policy of the statistic rows; None: the policy chosen with
            ``set_options`` / ``option_context`` (but "raise"), else "omit".

        Returns
        -------
        dask.dataframe.DataFrame
            float64, one column per numeric column (lazy).

        Examples
        --------
        >>> import numpy as np, pandas as pd, dask.dataframe as dd, nanaccess.dask
        >>> df = pd.DataFrame({"a": [4.0, np.nan, 1.0, 3.0], "b": [1.0, 2.0, 3.0, 4.0]})
        >>> dd.from_pandas(df, npartitions=2).nanstats.describe().compute().loc["nan"].tolist()
        [1.0, 0.0]
        """
        return frame_describe(self._obj, percentiles, nan_policy)

    def nan_report(self) -> Any:
        """One row per column with the counts of :func:`nanaccess.nan_report` (lazy).

        Returns
        -------
        dask.dataframe.DataFrame
            int64, one row per column (lazy).

        Examples
        --------
        >>> import numpy as np, pandas as pd, dask.dataframe as dd, nanaccess.dask
        >>> df = pd.DataFrame({"a": [4.0, np.nan, 1.0, 3.0], "b": [1.0, 2.0, 3.0, 4.0]})
        >>> dd.from_pandas(df, npartitions=2).nanstats.nan_report().compute()["nan"].tolist()
        [1, 0]
        """
        return frame_report(self._obj)

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



def _labelled(arr: Any, q: Any, name: Any) -> Any:
    """A 1-D dask array of quantiles as a lazy Series indexed by q, as pandas' list
    quantile."""
    index = pd.Index(np.asarray(q, dtype=np.float64).ravel())

    ext = arr.dtype == object  # nullable / Arrow results (pd.NA): object meta -> strings
    meta = pd.Series(pd.array([], dtype="Float64") if ext else np.empty(0, dtype=arr.dtype),
                     index=index[:0], name=name)
    task = delayed(_by_q)(arr, index=index, name=name, ext=ext)
    return dd.from_delayed([task], meta=meta, verify_meta=False)


def _by_q(values: Any, *, index: pd.Index, name: Any, ext: bool) -> pd.Series:
    if ext:
        return pd.Series(pd.array(list(values)), index=index, name=name)
    return pd.Series(np.asarray(values), index=index, name=name)


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

    def __init__(self, ddf: Any, by: Any, dropna: bool = True, selection: Any = None
                 ) -> None:
        self._ddf, self._by, self._dropna = ddf, by, dropna
        self._selection = selection

    def describe(self, percentiles: Any = None, *, nan_policy: NanPolicyArg = None) -> Any:
        """describe's rows per group and column (as pandas GroupBy ``nanstats.describe``),
        lazy and exact; the statistics under "omit" unless ``nan_policy`` is passed (or
        chosen, other than "raise", with ``set_options`` / ``option_context``).

        Parameters
        ----------
        percentiles : sequence of float, optional
            In [0, 1]; default 0.25, 0.5, 0.75; otherwise exactly those (as pandas 3).
        nan_policy : str, optional
            The policy of the statistic rows; None: the policy chosen with
            ``set_options`` / ``option_context`` (but "raise"), else "omit".

        Returns
        -------
        dask.dataframe.DataFrame
            Indexed by group, columns (column, row) (lazy; group order follows the
            shuffle).

        Examples
        --------
        >>> import numpy as np, pandas as pd, dask.dataframe as dd, nanaccess.dask
        >>> df = pd.DataFrame({"k": [1, 1, 2], "x": [1.0, np.nan, 3.0]})
        >>> d = dd.from_pandas(df, npartitions=2).groupby("k").nanstats.describe()
        >>> d.compute().sort_index()[("x", "nan")].tolist()
        [1.0, 0.0]
        """
        # resolved now, as the graph is built: the partitions run under a snapshot of
        # the options (option_context), where every policy would look chosen
        return self._reduce("describe", percentiles=percentiles,
                            nan_policy=describe_policy(nan_policy))

    def nan_report(self) -> Any:
        """The counts of :func:`nanaccess.nan_report` per group and column (lazy).

        Returns
        -------
        dask.dataframe.DataFrame
            int64, indexed by group, columns (column, key).

        Examples
        --------
        >>> import numpy as np, pandas as pd, dask.dataframe as dd, nanaccess.dask
        >>> df = pd.DataFrame({"k": [1, 1, 2], "x": [1.0, np.nan, 3.0]})
        >>> r = dd.from_pandas(df, npartitions=2).nanstats.groupby("k").nan_report()
        >>> r.compute().sort_index()[("x", "nan")].tolist()
        [1, 0]
        """
        return self._reduce("nan_report")

    def agg(self, func: Any = None, **kwargs: Any) -> Any:
        """Several statistics at once, by name, as pandas GroupBy ``nanstats.agg``.

        Parameters
        ----------
        func : str, list of str, or dict
            Names of statistics of the table or :mod:`nanaccess.agg` callables; a dict
            maps columns to a name or a list of names.
        **kwargs
            Keywords for every statistic that takes them (``nan_policy``, ``q``, ...).

        Returns
        -------
        dask.dataframe.DataFrame or Series
            Lazy, as pandas lays the result out (group order follows the shuffle).

        Examples
        --------
        >>> import numpy as np, pandas as pd, dask.dataframe as dd, nanaccess.dask
        >>> df = pd.DataFrame({"k": [1, 1, 2], "x": [1.0, np.nan, 3.0]})
        >>> a = dd.from_pandas(df, npartitions=2).groupby("k").nanstats.agg(
        ...     ["median", "max"], nan_policy="omit")
        >>> a.compute().sort_index()[("x", "max")].tolist()
        [1.0, 3.0]
        """
        return self._reduce("agg", func=func, **kwargs)

    def _reduce(self, stat: str, **kw: Any) -> Any:
        ddf, sel = self._ddf, self._selection
        if sel is not None:  # ddf.groupby(k)[cols]: only those columns (and the keys)
            keys = list(self._by) if isinstance(self._by, list | tuple) else [self._by]
            cols = list(sel) if isinstance(sel, list | tuple) else [sel]
            ddf = ddf[keys + [c for c in cols if c not in keys]]
        out = groupby_stat(ddf, self._by, self._dropna, stat, **kw)
        if sel is not None and not isinstance(sel, list | tuple):
            out = out[sel]  # a SeriesGroupBy gives a Series, as pandas
        return out


class _DaskGroupByAccessor:
    """Descriptor: ``ddf.groupby(k).nanstats`` is :class:`DaskNanGroupBy` over the same
    frame, keys, ``dropna`` and column selection (the pandas spelling)."""

    def __get__(self, gb: Any, owner: type[Any] | None = None) -> Any:
        if gb is None:
            return DaskNanGroupBy
        by = gb.by[0] if isinstance(gb.by, list) and len(gb.by) == 1 else gb.by
        keys = by if isinstance(by, list) else [by]
        if not isinstance(gb.obj, dd.DataFrame) or not all(
                isinstance(k, str | int | float | tuple) for k in keys):
            raise TypeError("ddf.groupby(...).nanstats groups a dask DataFrame by column "
                            "labels; group other objects with ddf.nanstats.groupby(...)")
        return DaskNanGroupBy(gb.obj, by, dropna=True if gb.dropna is None else gb.dropna,
                              selection=gb._slice)


def _register_groupby() -> None:
    """Set ``.nanstats`` on dask's GroupBy classes (dask has no accessor registry for
    them; the classes are those ``ddf.groupby`` hands out)."""
    probe = dd.from_pandas(pd.DataFrame({"k": [0], "x": [0.0]}), npartitions=1)
    classes = {type(probe.groupby("k")), type(probe.groupby("k")["x"])}
    for cls in classes:
        cls.nanstats = _DaskGroupByAccessor()
    register_groupby_agg(classes)  # gb.agg(nanaccess.agg.median(...)) runs nanaccess


_register_groupby()
