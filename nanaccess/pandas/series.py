"""``Series.nanstats``: the Series accessor (see :mod:`nanaccess.pandas`).

The statistic methods are generated (:mod:`._generated`); the hook ``_reduce`` here
takes small NaN-free columns through the core's lean paths (inside
:func:`nanaccess.core.reduce.reduce`), weights through
:mod:`.weighted` and everything else through :func:`.columns.column_reduce`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from .. import _stats
from .._hostkit import without_weights_kind
from ..core.reduce import Reduced
from ..options import resolve_policy
from ..typing import NanPolicyArg
from ._generated import SeriesStatsMixin
from ._groupby_registry import plain_values
from .agg_forms import series_agg
from .bivariate import SeriesBivariate
from .columns import (
    column_reduce,
    numbers,
    q_index,
    q_is_list,
    report,
    type_error,
    values_reduce,
    with_min_count,
)
from .cumulative import CumulativeMixin  # cumsum, cummax, ... (issue 23)
from .describe import describe_column, describe_policy
from .dtypes import Column, column_arrays, to_pandas_array, to_scalar
from .groupby import NanGroupBy
from .sorting import rank_values, sort_order
from .weighted import resolve_weights, weighted_column

__all__ = ["SeriesNanStats"]


#: the dtypes of the small-call lane: float16, float32, float64 (no longdouble) and
#: NumPy's integers (bool and datetimes keep the column record's steps)
_LANE_CHARS = frozenset("efd" "bhilqpBHILQP")


def _series_axis(axis: Any) -> None:
    """pandas' own check: a Series has one axis."""
    if axis not in (None, 0, "index", "rows"):
        raise ValueError(f"No axis named {axis!r} for object type Series")

class SeriesNanStats(SeriesBivariate, SeriesStatsMixin, CumulativeMixin):
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
        if params:
            params = without_weights_kind(weights, params)
        s = self._obj
        if weights is None and not min_count and stat not in _stats.INT_RESULTS and \
                (not params or not q_is_list(params.get("q"))):
            v = plain_values(s)
            if v is not None and v.dtype.char in _LANE_CHARS:
                # a plain float or int Series (the small-call lane): the core's one door, nothing
                # of the column record or the host steps that such data does not need
                red = values_reduce(v, s, stat, resolve_policy(nan_policy), params)
                if type(red) is not Reduced:  # the lean paths' scalar, unboxed
                    return red
                if red.missing is None:
                    return red.values[()]
                return self._result(red.values, red.missing, self._col(), None, params)
        col = self._col()
        if stat in _stats.COUNTS:
            return numbers(col)
        policy = resolve_policy(nan_policy)
        if weights is not None:
            values, miss, empty = weighted_column(
                col, s.name, s.index, stat, policy, resolve_weights(weights, s.index),
                min_count=min_count, series=True, **params)
            return self._result(values, miss, col, empty, params)
        red, empty = column_reduce(col, s.name, s.index, stat, policy, series=True, **params)
        if stat in _stats.ARG:  # a position, as pandas' Series.argmax (idxmax: the label)
            return np.int64(red.values)
        values, miss = red.values, red.missing
        if miss is None and empty is None and not min_count and not params:
            return to_scalar(values, False, col)  # the small-call lane: no result glue
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

    def idxmin(self, *, axis: Any = None, nan_policy: NanPolicyArg = None,
               skipna: bool | None = None) -> Any:
        """Index label of the first smallest value, as ``Series.idxmin``.

        The label at :meth:`argmin`'s position (``s.index[s.nanstats.argmin()]``).

        Parameters
        ----------
        axis : {None, 0, "index", "rows"}, default None
            As :meth:`argmin`.
        nan_policy : str, optional
            As :meth:`argmin` (None: the ``nan_policy`` option).
        skipna : bool, optional
            As :meth:`argmin`.

        Returns
        -------
        label
            The index label of the first smallest value under the policy's order.

        Examples
        --------
        >>> import numpy as np, pandas as pd, nanaccess  # noqa: F401
        >>> s = pd.Series([4.0, np.nan, 1.0], index=list("abc"))
        >>> s.nanstats.idxmin(nan_policy="omit"), s.nanstats.argmin(nan_policy="omit")
        ('c', np.int64(2))
        """
        return self._obj.index[self.argmin(axis=axis, nan_policy=nan_policy, skipna=skipna)]

    def idxmax(self, *, axis: Any = None, nan_policy: NanPolicyArg = None,
               skipna: bool | None = None) -> Any:
        """Index label of the first largest value, as ``Series.idxmax``.

        The label at :meth:`argmax`'s position (``s.index[s.nanstats.argmax()]``).

        Parameters
        ----------
        axis : {None, 0, "index", "rows"}, default None
            As :meth:`argmax`.
        nan_policy : str, optional
            As :meth:`argmax` (None: the ``nan_policy`` option).
        skipna : bool, optional
            As :meth:`argmax`.

        Returns
        -------
        label
            The index label of the first largest value under the policy's order.

        Examples
        --------
        >>> import numpy as np, pandas as pd, nanaccess  # noqa: F401
        >>> s = pd.Series([4.0, np.nan, 10.0], index=list("abc"))
        >>> s.nanstats.idxmax(nan_policy="omit"), s.nanstats.argmax(nan_policy="omit")
        ('c', np.int64(2))
        """
        return self._obj.index[self.argmax(axis=axis, nan_policy=nan_policy, skipna=skipna)]

    # -- reports
    def describe(
        self,
        percentiles: Sequence[float] | None = None,
        *,
        nan_policy: NanPolicyArg = None,
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
            In [0, 1]; default 0.25, 0.5, 0.75; otherwise exactly those (as pandas 3).
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

        Returns
        -------
        pandas.Series
            int64 counts indexed by kind (``values``, ``numbers``, ``nan``,
            ``signaling``, ``missing``, ...), named as the Series.

        Examples
        --------
        >>> import numpy as np, pandas as pd, nanaccess  # noqa: F401
        >>> r = pd.Series([1.0, np.nan, None], dtype="Float64").nanstats.nan_report()
        >>> int(r["missing"]), int(r["numbers"])
        (2, 1)
        """
        s = self._obj
        if isinstance(s.dtype, np.dtype) and s.dtype.kind == "c":  # counted, not reduced
            from ..core import report_array

            counts = report_array(s.to_numpy(), None)
        else:
            counts = report(self._col())
        return pd.Series(counts, name=s.name, dtype=np.int64)

    # -- sorting
    def sort_values(
        self,
        *,
        ascending: bool = True,
        ignore_index: bool = False,
        nan_policy: NanPolicyArg = None,
    ) -> pd.Series:
        """A stably sorted copy, every bit kept (default policy "largest").

        The default is "largest" (a sort must place every value), whatever
        ``set_options(nan_policy=...)`` says: every NaN after every number, as
        ``Series.sort_values``, the NaNs among themselves in totalOrder. "smallest"
        puts NaNs first, "totalorder" orders them by sign (-NaN first, +NaN last),
        "omit" drops NaNs and missing values, "raise" raises; missing values go last
        otherwise.

        Parameters
        ----------
        ascending : bool, default True
            Descending keeps ties in input order (stable).
        ignore_index : bool, default False
            Number the result 0, 1, ... instead of keeping the index.
        nan_policy : str, optional
            "largest" (default here), "smallest", "totalorder", "omit" or "raise";
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
        nan_policy: NanPolicyArg = None,
    ) -> pd.Series:
        """Ranks as ``Series.rank(method=...)`` on totalOrder keys.

        The default policy is "omit", whatever ``set_options(nan_policy=...)`` says:
        NaNs and missing values get a NaN rank (pandas' ``na_option="keep"``).
        "largest" / "smallest" rank NaNs last / first, "totalorder" by sign and
        payload (-NaN first, +NaN last). ``na_option`` gives pandas' placement
        instead.

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
            As :meth:`sort_values`, but the default is "omit".

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
        2    NaN
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

    # -- several statistics at once
    def agg(self, func: Any = None, **kwargs: Any) -> Any:
        """Several statistics at once, as ``Series.agg``.

        Parameters
        ----------
        func : str, nanaccess.agg callable, list of them, or dict
            A statistic of the table ("median", "iqr", ...); a list gives one value per
            statistic; a dict ``{label: statistic}`` names the results.
        **kwargs
            Keywords for every statistic that takes them (``nan_policy``, ``skipna``,
            ``q``, ``ddof``, ...); a keyword no requested statistic takes is a TypeError.

        Returns
        -------
        scalar or Series
            One statistic: its value; a list or dict: a Series indexed by the
            statistics' names (or the dict's labels), as pandas.

        Examples
        --------
        >>> import numpy as np, pandas as pd, nanaccess  # noqa: F401
        >>> s = pd.Series([1.0, np.nan, 3.0, 5.0], name="x")
        >>> s.nanstats.agg(["median", "max"], nan_policy="omit")
        median    3.0
        max       5.0
        Name: x, dtype: float64
        """
        return series_agg(self, func, kwargs)

    aggregate = agg

