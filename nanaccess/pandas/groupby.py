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

from collections.abc import Hashable, Sequence
from typing import Any, cast

import numpy as np
import pandas as pd

from .. import _stats
from .._hostkit import without_weights_kind
from ..core import SumOverflowError
from ..core.grouped import grouped_reduce
from ..core.window import segment_bounds, window_reduce
from ..errors import NaNError, TotalWeightError
from ..options import NanPolicy, resolve_policy
from ..typing import NanPolicyArg
from ._generated import GroupByStatsMixin
from ._groupby_registry import (
    RESAMPLER_CLASSES,
    frame_column,
    grouping_info,
    selected_obj,
    selected_positions,
)
from ._nanagg import NanAgg
from .agg_forms import (
    broadcast_to_rows,
    check_keywords,
    label_of,
    named_aggregation,
    one_statistic,
)
from .bivariate import GroupByBivariate
from .columns import (
    empty_is_missing,
    overflow_named,
    restated,
    type_error,
    undefined_spread,
    with_min_count,
)
from .cumulative import GroupedCumulativeMixin  # cumsum, ... (issue 23)
from .describe import describe_groups
from .dtypes import column_arrays, is_numeric_column, to_pandas_array
from .group_report import grouped_report, report_frame
from .weighted import grouped_weighted_column, resolve_weights

__all__ = ["NanGroupBy"]


def _kept_columns(columns: pd.Index, kept: list[int], names: list[Any],
                  keep_names: list[Any]) -> pd.Index:
    """The result's column labels: ``columns`` at the kept positions; the names
    themselves when they repeat (positions are ambiguous).

    A run of positions of a plain Index is a slice of its array: indexing a string
    Index by a list, or even by a slice (which updates its cached lookup engine),
    costs pandas 3 as much as a small grouped median."""
    if len(set(names)) != len(names):
        return cast("pd.Index", pd.Index(keep_names))
    pos = [kept[names.index(n)] for n in keep_names]
    if pos and pos == list(range(pos[0], pos[-1] + 1)):
        if type(columns) is pd.Index:
            part = getattr(columns, "_values")[pos[0]:pos[-1] + 1]  # noqa: B009  (stored)
            try:  # the Index of that array as pandas wraps one (a third of pd.Index's cost)
                return cast("pd.Index", getattr(pd.Index, "_simple_new")(part, name=columns.name))  # noqa: B009
            except (AttributeError, TypeError):  # pragma: no cover - pandas moved it
                return cast("pd.Index",
                       pd.Index(part, dtype=columns.dtype, name=columns.name, copy=False))
        return columns[pos[0]:pos[-1] + 1]
    return columns[pos]


class NanGroupBy(GroupByBivariate, GroupByStatsMixin, GroupedCumulativeMixin):
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
        weights: Any = None,
        **params: Any,
    ) -> pd.Series | pd.DataFrame:
        """The hook of every generated statistic: one result per group and column."""
        params = without_weights_kind(weights, params)
        gb = self._obj
        count = stat in _stats.COUNTS
        policy = NanPolicy.TOTALORDER if count else resolve_policy(nan_policy)
        codes, ngroups, result_index = grouping_info(gb)
        plain = selected_positions(gb) if weights is None else None
        if plain is not None:  # the frame's own columns by position: no selected copy
            obj, kept = plain
        else:
            obj = selected_obj(gb)
        is_series = isinstance(obj, pd.Series)
        if plain is None:
            kept = [] if is_series else list(range(obj.shape[1]))  # the result's columns
        w = None
        if weights is not None:
            frame = gb.obj if isinstance(gb.obj, pd.DataFrame) else None
            w = resolve_weights(weights, obj.index, frame)
            if w.by_label and not is_series and w.label in obj.columns:
                # the weights are no result column (skipped by position: no copy)
                kept = np.flatnonzero(~(obj.columns == w.label)).tolist()
        frame_cols = [obj] if is_series else [frame_column(obj, i) for i in kept]
        if is_series:
            names: list[Hashable] = [obj.name]
        else:  # one conversion of the labels (an Arrow-string index is slow per item)
            labels = obj.columns.tolist()
            names = [labels[i] for i in kept]
        q: Any = params.get("q")  # None, a float or a sequence of floats
        nq = len(np.atleast_1d(q)) if stat in _stats.QUANTILES and np.ndim(q) > 0 else None
        keep_names, arrays = [], []
        bounds = resample_bounds(gb, codes, ngroups, stat) if w is None else None
        for name, s in zip(names, frame_cols, strict=True):
            if numeric_only and not is_numeric_column(s.dtype):
                continue
            try:
                col = column_arrays(s, name)
            except TypeError as err:
                raise TypeError(str(err)) from None
            if w is not None:
                try:
                    values, miss, wcount = grouped_weighted_column(
                        col, name, obj.index, codes, ngroups, stat, policy, w,
                        series=is_series, engine=engine, **params)
                except TotalWeightError as err:  # the group's label
                    raise err.relabel(err.subject, group=result_index[err.cell]) from None
                red = None
            else:
                try:
                    # a count takes no policy: "totalorder" counts the numbers, raising
                    # for nothing (a signaling NaN is counted out, as Series.nanstats.count)
                    red = None if bounds is None else segment_reduce(
                        col, bounds, stat, policy, engine, params)
                    if red is None:
                        red = grouped_reduce(col.values, codes, ngroups, stat, policy=policy,
                                             missing=col.missing, engine=engine, **params)
                except NaNError as err:
                    raise restated(err, name, obj.index, group=result_index[err.group],
                                   series=is_series) from None
                except TypeError as err:
                    raise type_error(name, err, is_series) from None
                except SumOverflowError as err:
                    g = getattr(err, "group", None)
                    raise overflow_named(err, name, series=is_series, group=None if g is None
                                         else result_index[g]) from None
                values, miss = host_values(red, col)
            empty = None
            if min_count:
                values, miss = with_min_count(values, miss, wcount if red is None else
                                              red.count, min_count, col)
            if col.has_na and empty_is_missing(stat):
                empty = np.broadcast_to(wcount == 0 if red is None else
                                        red.empty | undefined_spread(red.count, stat, params),
                                        values.shape)
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
            columns = _kept_columns(obj.columns, kept, names, keep_names)
            if arrays and all(type(a) is np.ndarray and a.dtype == arrays[0].dtype
                              for a in arrays):  # one block, as pandas builds it
                out = pd.DataFrame(np.stack(arrays, axis=1), index=index, columns=columns,
                                   copy=False)
            else:
                out = pd.DataFrame({j: a for j, a in enumerate(arrays)}, index=index)
                out.columns = columns
        if not getattr(gb, "as_index", True):
            out = out.reset_index()
        return out


    # -- what is not table-shaped

    def idxmin(self, *, numeric_only: bool = False, nan_policy: NanPolicyArg = None,
               skipna: bool | None = None) -> pd.Series | pd.DataFrame:
        """Index label of each group's first smallest value, as ``GroupBy.idxmin``.

        The smallest value is :meth:`min`'s under the policy's order; the label is
        that of the first row of the group holding it (a group with nothing to point
        at is a ``ValueError`` naming it, as pandas).

        Parameters
        ----------
        numeric_only : bool, default False
            Only the numeric columns.
        nan_policy : str, optional
            As :meth:`min` (None: the ``nan_policy`` option).
        skipna : bool, optional
            pandas' spelling: True is "omit", False "propagate".

        Returns
        -------
        Series or DataFrame
            Index labels, indexed by group as pandas' ``GroupBy.idxmin``.

        Examples
        --------
        >>> import numpy as np, pandas as pd, nanaccess  # noqa: F401
        >>> df = pd.DataFrame({"g": list("aabb"), "x": [4.0, 1.0, np.nan, 3.0]},
        ...                   index=list("pqrs"))
        >>> df.groupby("g").nanstats.idxmin(nan_policy="omit")
           x
        g
        a  q
        b  s
        """
        from .group_idx import labels_of_extreme

        return labels_of_extreme(self._obj, "min", nan_policy, skipna, numeric_only)

    def idxmax(self, *, numeric_only: bool = False, nan_policy: NanPolicyArg = None,
               skipna: bool | None = None) -> pd.Series | pd.DataFrame:
        """Index label of each group's first largest value, as ``GroupBy.idxmax``.

        The largest value is :meth:`max`'s under the policy's order; the label is
        that of the first row of the group holding it (a group with nothing to point
        at is a ``ValueError`` naming it, as pandas).

        Parameters
        ----------
        numeric_only : bool, default False
            Only the numeric columns.
        nan_policy : str, optional
            As :meth:`max` (None: the ``nan_policy`` option).
        skipna : bool, optional
            pandas' spelling: True is "omit", False "propagate".

        Returns
        -------
        Series or DataFrame
            Index labels, indexed by group as pandas' ``GroupBy.idxmax``.

        Examples
        --------
        >>> import numpy as np, pandas as pd, nanaccess  # noqa: F401
        >>> df = pd.DataFrame({"g": list("aabb"), "x": [4.0, 1.0, np.nan, 3.0]},
        ...                   index=list("pqrs"))
        >>> df.groupby("g").nanstats.idxmax(nan_policy="omit")
           x
        g
        a  p
        b  s
        """
        from .group_idx import labels_of_extreme

        return labels_of_extreme(self._obj, "max", nan_policy, skipna, numeric_only)

    def describe(self, percentiles: Sequence[float] | None = None, *,
                 nan_policy: NanPolicyArg = None) -> pd.DataFrame:
        """describe's rows per group and column, as pandas' ``GroupBy.describe``.

        Columns are (column, row) with the rows of every host's describe (count,
        nan, missing, mean, std, min, percentiles, max); the counts report every kind
        of value and the statistics are computed under "omit" unless ``nan_policy``
        says otherwise, so describe does not raise by default. Every row is computed
        for all groups at once.

        Parameters
        ----------
        percentiles : sequence of float, optional
            In [0, 1]; default 0.25, 0.5, 0.75; otherwise exactly those (as pandas 3).
        nan_policy : str, optional
            The policy of the statistic rows; None: "omit" (see :doc:`/semantics`).

        Returns
        -------
        DataFrame
            float64, indexed by group, columns (column, row).

        Examples
        --------
        >>> import numpy as np, pandas as pd, nanaccess  # noqa: F401
        >>> df = pd.DataFrame({"g": list("aabb"), "x": [1.0, np.nan, 3.0, 5.0]})
        >>> df.groupby("g").nanstats.describe()["x"][["count", "nan", "mean", "max"]]
           count  nan  mean  max
        g
        a    1.0  1.0   1.0  1.0
        b    2.0  0.0   4.0  5.0
        """
        return describe_groups(self._obj, percentiles, nan_policy)

    def nan_report(self) -> pd.DataFrame:
        """The counts of :func:`nanaccess.nan_report` per group and column.

        Returns
        -------
        DataFrame
            int64, indexed by group, columns (column, key) with the keys of
            :func:`nanaccess.nan_report`.

        Examples
        --------
        >>> import numpy as np, pandas as pd, nanaccess  # noqa: F401
        >>> df = pd.DataFrame({"g": list("aabb"), "x": [1.0, np.nan, np.nan, 5.0]})
        >>> df.groupby("g").nanstats.nan_report()["x"][["values", "nan", "missing"]]
           values  nan  missing
        g
        a       2    1        0
        b       2    1        0
        """
        gb = self._obj
        codes, ngroups, result_index = grouping_info(gb)
        obj = selected_obj(gb)
        frame = obj.to_frame() if isinstance(obj, pd.Series) else obj
        parts = {}
        for i, name in enumerate(frame.columns):
            col = column_arrays(frame.iloc[:, i], name)
            parts[name] = grouped_report(col, codes, ngroups)
        return report_frame(parts, result_index, series=isinstance(obj, pd.Series))

    def agg(self, func: Any = None, **kwargs: Any) -> pd.Series | pd.DataFrame:
        """Several statistics at once, by name, as pandas' ``GroupBy.agg``.

        Parameters
        ----------
        func : str, list of str, or dict
            Names of statistics of the table ("median", "iqr", ...) or
            :mod:`nanaccess.agg` callables; a dict maps columns to a name or a list
            of names, as pandas.
        **kwargs
            Keywords for every statistic that takes them (``nan_policy``, ``skipna``,
            ``q``, ``ddof``, ...).

        Returns
        -------
        Series or DataFrame
            One name: as that statistic's method; a list or dict: columns
            (column, statistic), as pandas.

        Examples
        --------
        >>> import numpy as np, pandas as pd, nanaccess  # noqa: F401
        >>> df = pd.DataFrame({"g": list("aabb"), "x": [1.0, np.nan, 3.0, 5.0]})
        >>> df.groupby("g").nanstats.agg(["median", "max"], nan_policy="omit")
               x
          median  max
        g
        a    1.0  1.0
        b    4.0  5.0
        """
        gb = self._obj
        obj = selected_obj(gb)
        named, kwargs = named_aggregation(kwargs)
        if func is None and named:  # name=(column, statistic) or pd.NamedAgg
            if isinstance(obj, pd.Series):
                raise TypeError("named aggregation of a SeriesGroupBy takes name=statistic "
                                "pairs in pandas' spelling: use agg({name: statistic})")
            absent = [c for c, _ in named.values() if c not in obj.columns]
            if absent:
                raise KeyError(f"agg: column(s) {absent} do not exist (named aggregation)")
            out = pd.concat({name: _as_series(NanGroupBy(gb[c])._one(f, kwargs))
                             for name, (c, f) in named.items()}, axis=1)
            return out
        if func is None:  # pandas: "Must provide 'func'"; say which data it was for
            raise TypeError("agg needs func: names of statistics "
                            f"({', '.join(_stats.GROUPED)}), a list or dict of them, or "
                            "named aggregations (name=(column, statistic))")
        names = [func] if isinstance(func, str) or callable(func) else [
            g for f in (func.values() if isinstance(func, dict) else func)
            for g in (f if isinstance(f, list | tuple) else [f])]
        check_keywords(self, names, kwargs, "agg")
        if isinstance(func, str) or callable(func):
            return cast("pd.Series | pd.DataFrame", self._one(func, kwargs))
        if isinstance(func, dict) and isinstance(obj, pd.Series):  # {label: statistic}
            return cast("pd.Series | pd.DataFrame",
                   pd.concat({k: self._one(f, kwargs) for k, f in func.items()}, axis=1))
        if isinstance(func, dict):
            plan = [(c, f) for c, f in func.items()]
        elif isinstance(obj, pd.Series):
            out = pd.concat({label_of(f): self._one(f, kwargs) for f in func}, axis=1)
            return cast("pd.Series | pd.DataFrame", out)
        else:
            plan = [(c, list(func)) for c in obj.columns]
        blocks: dict[Any, Any] = {}
        nested = any(isinstance(f, list | tuple) for _, f in plan)
        for column, fs in plan:
            sub = NanGroupBy(gb[column])
            for f in (fs if isinstance(fs, list | tuple) else [fs]):
                blocks[(column, label_of(f)) if nested else column] = sub._one(f, kwargs)
        out = pd.concat(blocks, axis=1)
        if nested:
            out.columns = pd.MultiIndex.from_tuples(list(blocks))
        return cast("pd.Series | pd.DataFrame", out)

    aggregate = agg

    def transform(self, func: Any, **kwargs: Any) -> pd.Series | pd.DataFrame:
        """A grouped statistic broadcast back to every row, as ``GroupBy.transform``.

        Parameters
        ----------
        func : str or nanaccess.agg callable
            A statistic of the table ("median", "mean", "iqr", ...) that gives one value
            per group (``quantile`` with one ``q``).
        **kwargs
            The statistic's keywords (``nan_policy``, ``q``, ``ddof``, ...).

        Returns
        -------
        Series or DataFrame
            Indexed like the grouped object (its row order and labels, duplicates
            kept); the grouping columns are left out; rows without a group (a NaN key
            with ``dropna=True``) are missing, as pandas gives.

        Examples
        --------
        >>> import numpy as np, pandas as pd, nanaccess  # noqa: F401
        >>> df = pd.DataFrame({"g": list("abab"), "x": [1.0, np.nan, 3.0, 5.0]})
        >>> df.groupby("g").nanstats.transform("median", nan_policy="omit")
             x
        0  2.0
        1  5.0
        2  2.0
        3  5.0
        """
        gb = self._obj
        if not (isinstance(func, str | NanAgg)):
            raise ValueError(f"transform takes the name of a statistic or a nanaccess.agg "
                             f"callable, got {func!r}")
        check_keywords(self, [func], kwargs, "transform")
        codes, ngroups, _ = grouping_info(gb)
        result = self._one(func, kwargs)
        if len(result) != ngroups:
            raise ValueError(f"transform needs one value per group; {label_of(func)} "
                             f"with {kwargs} gives {len(result)} rows for {ngroups} groups")
        obj = selected_obj(gb)
        keys = [k for k in np.atleast_1d(getattr(gb, "keys", None) or []).tolist()
                if isinstance(k, str | int)] if isinstance(obj, pd.DataFrame) else []
        out = broadcast_to_rows(result, codes, obj.index, keys)
        if isinstance(out, pd.Series):
            out.name = obj.name if isinstance(obj, pd.Series) else out.name
        return cast("pd.Series | pd.DataFrame", out)

    def _one(self, func: Any, kwargs: dict[str, Any]) -> Any:
        """One statistic by name (or a :class:`~nanaccess.pandas.agg.NanAgg`), as every
        accessor's ``agg`` takes it (:func:`.agg_forms.one_statistic`)."""
        return one_statistic(self, func, kwargs, "agg")


def _as_series(result: Any) -> pd.Series:
    """One statistic of one column as a Series (a one-column frame of as_index=False
    keeps only its values column)."""
    return result.iloc[:, -1] if isinstance(result, pd.DataFrame) else result


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


def host_values(red: Any, col: Any) -> tuple[np.ndarray, np.ndarray | None]:
    """A grouped result's ``(values, missing)`` in the column's host convention, for
    int picks with holes (groups with no value): a nullable or Arrow integer column
    keeps its integers exact with the holes missing (``pd.NA``, as pandas' own
    groupby gives); a NumPy column gets float64 with NaN in the holes, as pandas
    gives (the ints then round to float64, as pandas' do)."""
    holes = getattr(red, "holes", None)  # (the window engine's segments: float data)
    if holes is None or not (col.has_na and red.exact.dtype.kind in "iu"):
        return red.values, red.missing
    miss = holes if red.missing is None else (red.missing | holes)
    return red.exact, miss


# order statistics of resample bins: the bins are contiguous runs of sorted rows, so
# the window engine's per-segment selection (O(n)) replaces the grouped engine's sort
_SEGMENT_STATS = frozenset(_stats.ORDER)


def resample_bounds(gb: Any, codes: np.ndarray, ngroups: int,
                    stat: str) -> tuple[np.ndarray, np.ndarray] | None:
    """The bins of a resampler as ``(start, end)`` row bounds, or None (not a
    resampler, not an order statistic, or rows not in bin order)."""
    if stat not in _SEGMENT_STATS or not isinstance(gb, RESAMPLER_CLASSES):
        return None
    try:
        return segment_bounds(codes, ngroups)
    except ValueError:  # rows out of bin order: the grouped engine
        return None


def segment_reduce(col: Any, bounds: tuple[np.ndarray, np.ndarray], stat: str,
                   policy: NanPolicy, engine: Any, params: dict[str, Any]) -> Any:
    """The window engine over the resample bins, or None to let the grouped engine
    answer (an error is raised by the grouped engine, which names the group)."""
    if col.values.dtype.kind != "f":
        return None
    try:
        return window_reduce(col.values, *bounds, stat, policy=policy, missing=col.missing,
                             engine=engine, **params)
    except NaNError:
        return None
