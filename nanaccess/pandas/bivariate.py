"""Covariance and correlation on pandas objects (mixins of the accessor classes).

``df.nanstats.corr/cov/corrwith``, ``s.nanstats.corr/cov(other)`` and
``df.groupby(k).nanstats.corr/cov()`` with pandas' labels and shapes, through
:func:`nanaccess.core.bivariate.pairwise` (exact sums, one rounding; under "omit"
each pair of columns uses its pairwise-complete rows, as pandas does). Errors name the
column and the index label of the first offending value.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any, cast

import numpy as np
import pandas as pd

from .._labels import IndexLocation
from ..core.bivariate import METHODS, all_pairs, pairwise, segments_of
from ..options import resolve_policy
from ._groupby_registry import grouping_info, selected_obj
from .columns import subject_of
from .dtypes import Column, column_arrays, is_numeric_column
from .weighted_bivariate import check_method, weighted_matrix, weighted_pair

__all__ = ["SeriesBivariate", "FrameBivariate", "GroupByBivariate", "frame_columns",
           "run_pairs"]


def _method(method: Any) -> str:
    if callable(method) or method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, not {method!r}")
    return cast("str", method)


def _check_min_periods(min_periods: Any) -> int | None:
    if min_periods is None:
        return None
    if isinstance(min_periods, bool) or not isinstance(min_periods, int | np.integer) or \
            min_periods < 0:
        raise ValueError(f"min_periods must be a non-negative integer, not {min_periods!r}")
    return int(min_periods)


def frame_columns(df: pd.DataFrame, numeric_only: bool) -> tuple[list[Hashable], list[Column]]:
    """The columns of ``df`` as core arrays (non-numeric ones skipped under
    ``numeric_only``, else a TypeError naming the column)."""
    names: list[Hashable] = []
    cols: list[Column] = []
    for i in range(df.shape[1]):
        s = df.iloc[:, i]
        if numeric_only and not is_numeric_column(s.dtype):
            continue
        try:
            col = column_arrays(s, df.columns[i])
        except TypeError as err:
            raise TypeError(str(err)) from None
        if col.values.dtype.kind not in "fiub":
            raise TypeError(f"{subject_of(df.columns[i])} has dtype {s.dtype}: covariance "
                            "and correlation need numbers")
        names.append(df.columns[i])
        cols.append(col)
    return names, cols


def run_pairs(cols: Sequence[Column], names: Sequence[Hashable], index: pd.Index,
              pairs: np.ndarray, *, series: bool = False, segments: Any = None,
              **kw: Any) -> Any:
    """:func:`pairwise` with pandas' labels on errors."""
    loc = IndexLocation(index)
    return pairwise([c.values for c in cols], pairs, missing=[c.missing for c in cols],
                    subjects=[subject_of(n, series=series) for n in names],
                    locate=lambda flat: loc((flat,)), segments=segments, **kw)


def _nullable(cols: Sequence[Column]) -> bool:
    return any(c.has_na for c in cols)


def _values(values: np.ndarray, missing: np.ndarray | None, nullable: bool) -> Any:
    """float64 values; ``Float64`` with ``pd.NA`` where a result is missing and the
    input was nullable (NumPy hosts: the canonical NaN)."""
    if missing is None or not missing.any():
        return values
    if nullable:
        return pd.arrays.FloatingArray(np.where(missing, 0.0, values), missing.copy())
    out = values.copy()
    out[missing] = np.nan
    return out


def _square(res_vals: np.ndarray, res_miss: np.ndarray | None, k: int, pairs: np.ndarray
            ) -> tuple[np.ndarray, np.ndarray | None]:
    """Per-(segment, pair) results -> ``(G, K, K)`` symmetric matrices."""
    g = res_vals.shape[0]
    out = np.empty((g, k, k))
    out[:, pairs[:, 0], pairs[:, 1]] = res_vals
    out[:, pairs[:, 1], pairs[:, 0]] = res_vals
    miss = None
    if res_miss is not None:
        miss = np.zeros((g, k, k), bool)
        miss[:, pairs[:, 0], pairs[:, 1]] = res_miss
        miss[:, pairs[:, 1], pairs[:, 0]] = res_miss
    return out, miss


def _frame(values: np.ndarray, miss: np.ndarray | None, nullable: bool, index: Any,
           columns: Any) -> pd.DataFrame:
    if miss is None or not miss.any():
        return pd.DataFrame(values, index=index, columns=columns)
    return pd.DataFrame({c: _values(values[:, j], miss[:, j], nullable)
                         for j, c in enumerate(columns)}, index=index).set_axis(
                             columns, axis=1)


class FrameBivariate:
    """``df.nanstats.corr / cov / corrwith``."""

    _obj: pd.DataFrame

    def corr(self, method: str = "pearson", min_periods: int = 1, numeric_only: bool = False,
             *, nan_policy: Any = None, weights: Any = None,
             weights_kind: str = "frequency") -> pd.DataFrame:
        """Pairwise correlation of columns, as :meth:`pandas.DataFrame.corr`, exact.

        Pearson's r is rounded once from exact sums (``|r| <= 1``, exactly ``+-1``
        for collinear data), Spearman's from exact average ranks, Kendall's tau-b
        from exact pair counts.

        Parameters
        ----------
        method : {"pearson", "spearman", "kendall"}, default "pearson"
        min_periods : int, default 1
            Fewest pairwise rows a result may use; fewer give NaN.
        numeric_only : bool, default False
            Skip non-numeric columns (else they raise ``TypeError``).
        nan_policy : {"raise", "propagate", "omit", "smallest", "largest", "totalorder"}, optional
            "omit" uses each pair's complete rows (pandas' behaviour); "propagate"
            gives the NaN of either column; the ordering policies rank NaNs
            (Spearman, Kendall) or propagate (Pearson). Default: the option.
        weights : array_like, Series or column label, optional
            Row weights (Pearson only; a rank method with weights raises
            ``NotImplementedError``): one per row, a Series aligned on the index, or a
            column label (that column is left out). The policy covers them as in the
            weighted moments (:doc:`/weighted`); ``r`` is the same for both kinds.
        weights_kind : {"frequency", "reliability"}, default "frequency"
            As :meth:`cov` (``r`` does not depend on it).

        Returns
        -------
        pandas.DataFrame
            Columns by columns.

        Examples
        --------
        >>> import numpy as np, pandas as pd, nanaccess  # noqa: F401
        >>> df = pd.DataFrame({"x": [1.0, 2.0, np.nan, 4.0], "y": [1e7 + 3, 1e7 + 6, 5.0,
        ...                                                     1e7 + 12]})
        >>> df.nanstats.corr(nan_policy="omit")
             x    y
        x  1.0  1.0
        y  1.0  1.0
        """
        return cast("pd.DataFrame",
               self._matrix("corr", _method(method), 1, min_periods, numeric_only, nan_policy,
                            weights, weights_kind))

    def cov(self, min_periods: int | None = None, ddof: int = 1, numeric_only: bool = False,
            *, nan_policy: Any = None, weights: Any = None,
            weights_kind: str = "frequency") -> pd.DataFrame:
        """Pairwise covariance of columns, as :meth:`pandas.DataFrame.cov`, correctly
        rounded from exact sums.

        Parameters
        ----------
        min_periods : int, optional
        ddof : int, default 1
        numeric_only : bool, default False
        nan_policy : str, optional
            As :meth:`corr`.
        weights : array_like, Series or column label, optional
            Row weights, as :meth:`corr`: the covariance of the exact weighted sums,
            ``sum(w (x - mx)(y - my)) / (sum(w) - ddof)`` (frequency) or ``/ (sum(w) -
            ddof sum(w**2) / sum(w))`` (reliability, :func:`numpy.cov`'s
            ``aweights``), correctly rounded; non-integer frequency weights with
            ``sum(w) - ddof < 1`` raise ``TotalWeightError``.
        weights_kind : {"frequency", "reliability"}, default "frequency"

        Returns
        -------
        pandas.DataFrame

        Examples
        --------
        >>> import numpy as np, pandas as pd, nanaccess  # noqa: F401
        >>> df = pd.DataFrame({"x": [1.0, 2.0, 3.0], "y": [2.0, 4.0, np.nan]})
        >>> df.nanstats.cov(nan_policy="omit")
             x    y
        x  1.0  1.0
        y  1.0  2.0
        """
        return cast("pd.DataFrame",
               self._matrix("cov", "pearson", ddof, min_periods, numeric_only, nan_policy,
                            weights, weights_kind))

    def _matrix(self, stat: Any, method: Any, ddof: Any, min_periods: Any, numeric_only: Any,
                nan_policy: Any,
                weights: Any = None, weights_kind: Any = "frequency") -> Any:
        df = self._obj
        policy = resolve_policy(nan_policy)
        check_method(method, weights)
        names, cols = frame_columns(df, numeric_only)
        if weights is not None:
            names, cols, wv, wm, pairs = weighted_matrix(
                df, names, cols, weights, stat, policy=policy, ddof=ddof,
                weights_kind=weights_kind, min_periods=_check_min_periods(min_periods))
            idx = pd.Index(names)
            vals, miss = _square(wv[None], None if wm is None else wm[None], len(cols), pairs)
            return _frame(vals[0], None if miss is None else miss[0], _nullable(cols), idx, idx)
        k = len(cols)
        idx = pd.Index(names, dtype=df.columns.dtype if len(names) == df.shape[1] else None)
        if k == 0:
            return pd.DataFrame(index=idx, columns=idx, dtype=np.float64)
        pairs = all_pairs(k)
        res = run_pairs(cols, names, df.index, pairs, method=method, stat=stat, ddof=ddof,
                        min_periods=_check_min_periods(min_periods), policy=policy)
        vals, miss = _square(res.values, res.missing, k, pairs)
        return _frame(vals[0], None if miss is None else miss[0], _nullable(cols), idx, idx)

    def corrwith(self, other: pd.DataFrame | pd.Series, axis: Any = 0, drop: bool = False,
                 method: str = "pearson", numeric_only: bool = False,
                 min_periods: int | None = None, *, nan_policy: Any = None) -> pd.Series:
        """Correlation of each column with ``other``, as :meth:`pandas.DataFrame.corrwith`.

        ``other`` a Series: each column against it (rows aligned on the index); a
        DataFrame: columns of the same label against each other (labels of one side
        only give NaN unless ``drop``). ``axis=1`` correlates rows.

        Parameters
        ----------
        other : pandas.DataFrame or pandas.Series
        axis : {0, 1, "index", "columns"}, default 0
        drop : bool, default False
        method : {"pearson", "spearman", "kendall"}
        numeric_only : bool, default False
        min_periods : int, optional
        nan_policy : str, optional

        Returns
        -------
        pandas.Series

        Examples
        --------
        >>> import pandas as pd, nanaccess  # noqa: F401
        >>> df = pd.DataFrame({"a": [1.0, 2.0, 3.0], "b": [3.0, 1.0, 2.0]})
        >>> df.nanstats.corrwith(df["a"], nan_policy="omit")
        a    1.0
        b   -0.5
        dtype: float64
        """
        method = _method(method)
        policy = resolve_policy(nan_policy)
        df = self._obj
        if axis in (1, "columns"):
            df, other = df.T, other.T if isinstance(other, pd.DataFrame) else other
        elif axis not in (0, "index"):
            raise ValueError(f"No axis named {axis!r} for object type DataFrame")
        if numeric_only:
            df = df[[c for c in df.columns if is_numeric_column(df[c].dtype)]]
        mp = _check_min_periods(min_periods)
        if isinstance(other, pd.Series):
            left, right = df.align(other, join="inner", axis=0)
            names, cols = frame_columns(left, False)
            ocol = column_arrays(right, right.name)
            k = len(cols)
            pairs = np.stack([np.arange(k), np.full(k, k)], axis=1)
            res = run_pairs([*cols, ocol], [*names, right.name], left.index, pairs,
                            method=method, stat="corr", min_periods=mp, policy=policy)
            return pd.Series(_values(res.values[0], None if res.missing is None else
                                     res.missing[0], _nullable([*cols, ocol])),
                             index=pd.Index(names, dtype=df.columns.dtype))
        if not isinstance(other, pd.DataFrame):
            raise TypeError("other must be a DataFrame or a Series")
        left, right = df.align(other, join="inner", axis=0)
        common = [c for c in left.columns if c in right.columns]
        names, cols = frame_columns(left[common], False)
        _, ocols = frame_columns(right[common], False)
        k = len(cols)
        pairs = np.stack([np.arange(k), np.arange(k) + k], axis=1)
        vals = np.full(k, np.nan)
        miss = None
        if k:
            res = run_pairs([*cols, *ocols], [*names, *names], left.index, pairs,
                            method=method, stat="corr", min_periods=mp, policy=policy)
            vals = res.values[0]
            miss = None if res.missing is None else res.missing[0]
        out = pd.Series(_values(vals, miss, _nullable([*cols, *ocols])),
                        index=pd.Index(common, dtype=df.columns.dtype))
        if not drop:
            union = df.columns.union(other.columns, sort=False)
            extra = [c for c in union if c not in common]
            if extra:
                out = pd.concat([out, pd.Series(np.nan, index=pd.Index(extra))])
                out = out.reindex(union)
        return out


class SeriesBivariate:
    """``s.nanstats.corr(other) / cov(other)``."""

    _obj: pd.Series

    def corr(self, other: pd.Series, method: str = "pearson", min_periods: int | None = None,
             *, nan_policy: Any = None, weights: Any = None,
             weights_kind: str = "frequency") -> float:
        """Correlation with ``other`` (aligned on the index), as
        :meth:`pandas.Series.corr`, exact (see :meth:`DataFrame.nanstats.corr`).

        Parameters
        ----------
        other : pandas.Series
        method : {"pearson", "spearman", "kendall"}
        min_periods : int, optional
        nan_policy : str, optional
        weights : array_like or Series, optional
            Row weights (Pearson only), as :meth:`DataFrame.nanstats.corr`.
        weights_kind : {"frequency", "reliability"}, default "frequency"

        Returns
        -------
        float

        Examples
        --------
        >>> import pandas as pd, nanaccess  # noqa: F401
        >>> s = pd.Series([1.0, 2.0])
        >>> s.nanstats.corr(pd.Series([5.0, -3.0]), nan_policy="omit")
        -1.0
        """
        return cast("float",
               self._pair(other, "corr", _method(method), 1, min_periods, nan_policy,
                          weights, weights_kind))

    def cov(self, other: pd.Series, min_periods: int | None = None, ddof: int = 1, *,
            nan_policy: Any = None, weights: Any = None,
            weights_kind: str = "frequency") -> float:
        """Covariance with ``other`` (aligned on the index), as
        :meth:`pandas.Series.cov`, correctly rounded.

        Parameters
        ----------
        other : pandas.Series
        min_periods : int, optional
        ddof : int, default 1
        nan_policy : str, optional
        weights : array_like or Series, optional
            Row weights, as :meth:`DataFrame.nanstats.cov`.
        weights_kind : {"frequency", "reliability"}, default "frequency"

        Returns
        -------
        float

        Examples
        --------
        >>> import pandas as pd, nanaccess  # noqa: F401
        >>> pd.Series([1.0, 2.0, 3.0]).nanstats.cov(pd.Series([1.0, 2.0, 4.0]),
        ...                                         nan_policy="omit")
        1.5
        """
        return cast("float",
               self._pair(other, "cov", "pearson", ddof, min_periods, nan_policy, weights,
                          weights_kind))

    def _pair(self, other: Any, stat: Any, method: Any, ddof: Any, min_periods: Any,
              nan_policy: Any, weights: Any = None,
              weights_kind: Any = "frequency") -> Any:
        if not isinstance(other, pd.Series):
            raise TypeError(f"other must be a Series, not {type(other).__name__}")
        policy = resolve_policy(nan_policy)
        left, right = self._obj.align(other, join="inner")
        a = column_arrays(left, left.name)
        b = column_arrays(right, right.name)
        for s, c in ((left, a), (right, b)):
            if c.values.dtype.kind not in "fiub":
                raise TypeError(f"{subject_of(s.name, series=True)} has dtype {s.dtype}: "
                                "covariance and correlation need numbers")
        names = [left.name, right.name] if left.name != right.name or left.name is None \
            else [left.name, "other"]
        check_method(method, weights)
        if weights is not None:
            v, m = weighted_pair(left, a, b, names, weights, stat, policy=policy, ddof=ddof,
                                 weights_kind=weights_kind,
                                 min_periods=_check_min_periods(min_periods))
            if m:
                return pd.NA if (a.has_na or b.has_na) else float("nan")
            return v
        res = run_pairs([a, b], names, left.index, np.array([[0, 1]]), series=True,
                        method=method, stat=stat, ddof=ddof,
                        min_periods=_check_min_periods(min_periods), policy=policy)
        if res.missing is not None and res.missing[0, 0]:
            return pd.NA if (a.has_na or b.has_na) else float("nan")
        return float(res.values[0, 0])


class GroupByBivariate:
    """``df.groupby(k).nanstats.corr() / cov()`` (and ``SeriesGroupBy`` with ``other``)."""

    _obj: Any

    def corr(self, other: Any = None, method: str = "pearson", min_periods: int = 1,
             numeric_only: bool = False, *, nan_policy: Any = None) -> Any:
        """Correlation matrices per group, as ``DataFrameGroupBy.corr`` (a frame indexed
        by (group, column)); on a ``SeriesGroupBy``, the correlation with ``other`` per
        group (a Series by group).

        Parameters
        ----------
        other : pandas.Series, optional
            Only for a ``SeriesGroupBy``.
        method : {"pearson", "spearman", "kendall"}
        min_periods : int, default 1
        numeric_only : bool, default False
        nan_policy : str, optional

        Returns
        -------
        pandas.DataFrame or pandas.Series

        Examples
        --------
        >>> import pandas as pd, nanaccess  # noqa: F401
        >>> df = pd.DataFrame({"g": [1, 1, 2, 2], "a": [1.0, 2.0, 3.0, 4.0],
        ...                    "b": [2.0, 1.0, 3.0, 5.0]})
        >>> df.groupby("g").nanstats.corr(nan_policy="omit")
               a    b
        g
        1 a  1.0 -1.0
          b -1.0  1.0
        2 a  1.0  1.0
          b  1.0  1.0
        """
        return self._grouped("corr", other, _method(method), 1, min_periods, numeric_only,
                             nan_policy)

    def cov(self, other: Any = None, min_periods: int | None = None, ddof: int = 1,
            numeric_only: bool = False, *, nan_policy: Any = None) -> Any:
        """Covariance matrices per group, as ``DataFrameGroupBy.cov``.

        Parameters
        ----------
        other : pandas.Series, optional
            Only for a ``SeriesGroupBy``.
        min_periods : int, optional
        ddof : int, default 1
        numeric_only : bool, default False
        nan_policy : str, optional

        Returns
        -------
        pandas.DataFrame or pandas.Series

        Examples
        --------
        >>> import pandas as pd, nanaccess  # noqa: F401
        >>> df = pd.DataFrame({"g": [1, 1, 2, 2], "a": [1.0, 2.0, 3.0, 4.0]})
        >>> df.groupby("g").nanstats.cov(nan_policy="omit")
               a
        g
        1 a  0.5
        2 a  0.5
        """
        return self._grouped("cov", other, "pearson", ddof, min_periods, numeric_only,
                             nan_policy)

    def _grouped(self, stat: Any, other: Any, method: Any, ddof: Any, min_periods: Any,
                 numeric_only: Any, nan_policy: Any) -> Any:
        gb = self._obj
        policy = resolve_policy(nan_policy)
        codes, ngroups, result_index = grouping_info(gb)
        obj = selected_obj(gb)
        seg = segments_of(codes, ngroups)
        mp = _check_min_periods(min_periods)
        if isinstance(obj, pd.Series):
            if not isinstance(other, pd.Series):
                raise TypeError("SeriesGroupBy.corr/cov need other, a Series")
            right = other.reindex(obj.index) if not other.index.equals(obj.index) else other
            a, b = column_arrays(obj, obj.name), column_arrays(right, right.name)
            res = run_pairs([a, b], [obj.name, right.name], obj.index, np.array([[0, 1]]),
                            series=True, segments=seg, method=method, stat=stat, ddof=ddof,
                            min_periods=mp, policy=policy)
            return pd.Series(_values(res.values[:, 0], None if res.missing is None else
                                     res.missing[:, 0], a.has_na or b.has_na),
                             index=result_index, name=obj.name)
        if other is not None:
            raise TypeError("DataFrameGroupBy.corr/cov take no other")
        names, cols = frame_columns(obj, numeric_only)
        k = len(cols)
        pairs = all_pairs(k)
        res = run_pairs(cols, names, obj.index, pairs, segments=seg, method=method, stat=stat,
                        ddof=ddof, min_periods=mp, policy=policy)
        vals, miss = _square(res.values, res.missing, k, pairs)
        cidx = pd.Index(names)
        index = _group_column_index(result_index, cidx)
        return _frame(vals.reshape(ngroups * k, k),
                      None if miss is None else miss.reshape(ngroups * k, k),
                      _nullable(cols), index, cidx)


def _group_column_index(result_index: pd.Index, columns: pd.Index) -> pd.MultiIndex:
    """(group, column) rows as pandas labels them: the group levels, then None."""
    k = len(columns)
    groups = result_index.repeat(k)
    col = np.tile(np.arange(k), len(result_index))
    if isinstance(result_index, pd.MultiIndex):
        arrays = [groups.get_level_values(i) for i in range(result_index.nlevels)]
        names = list(result_index.names)
    else:
        arrays, names = [groups], [result_index.name]
    return pd.MultiIndex.from_arrays([*arrays, columns.take(col)], names=[*names, None])
