"""The ``.nanstats`` namespaces of polars: Series, DataFrame, LazyFrame, Expr, and the
grouped statistics of ``df.nanstats.group_by(...)``.

Every statistic method is generated from the table (:mod:`._generated`) and calls
one hook, ``_reduce``, here; the hooks map polars columns onto the core entry points
(:func:`nanaccess.core.reduce.reduce`, :func:`nanaccess.core.grouped.grouped_reduce`,
:func:`nanaccess.core.window.window_reduce`) and back (:mod:`.columns`). null is
missing and NaN is NaN, as polars stores them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import numpy as np
import pandas as pd
import polars as pl

from .. import _stats
from .._conventions import below_min_count
from .._describe import describe_policy, describe_values, row_labels
from .._hostkit import empty_is_missing, host_reduce, with_min_count
from ..core.exactsum.common import SumOverflowError
from ..core.grouped import grouped_reduce
from ..core.window import fixed_windows, window_reduce
from ..errors import NaNError
from ..options import resolve_policy
from ..typing import NanPolicyArg
from ._generated import (
    DataFrameStatsMixin,
    ExprStatsMixin,
    GroupByStatsMixin,
    LazyFrameStatsMixin,
    SeriesStatsMixin,
)
from .columns import PolarsColumn, column_of, relabelled, to_scalar, to_series, type_error

__all__ = [
    "DataFrameNanStats",
    "ExprNanStats",
    "LazyFrameNanStats",
    "NanGroupBy",
    "SeriesNanStats",
]

#: the rolling statistics of the Series and Expr namespaces (polars' rolling_* names)
ROLLING = ("median", "quantile", "min", "max", "mean", "sum", "var", "std")


def _policy_of(stat: str, nan_policy: Any) -> Any:
    """The resolved policy; a count takes none (it counts the numbers: "omit")."""
    return resolve_policy("omit" if stat in _stats.COUNTS else nan_policy)


def column_reduce(col: PolarsColumn, stat: str, nan_policy: Any = None, min_count: int = 0,
                  **params: Any) -> tuple[np.ndarray, np.ndarray | None]:
    """One column reduced: ``(values, missing)`` (0-d, or ``(nq,)`` for a list ``q``)."""
    policy = _policy_of(stat, nan_policy)
    n = len(col.values)
    try:
        # the host kit's after-core steps: polars' null is a missing value of its own
        red, empty = host_reduce(col.values, stat, policy, col.missing, True, None, params)
    except NaNError as err:
        raise relabelled(err, col.name, n) from None
    except TypeError as err:
        raise type_error(col.name, err) from None
    except SumOverflowError as err:  # name the column, not "row 0"
        raise err.naming(f"column {col.name!r}") from None
    values, missing = red.values, red.missing
    if min_count:
        values, missing = with_min_count(values, missing, red.count, min_count, has_na=True)
    null = np.zeros(np.shape(values), bool) if missing is None else np.asarray(missing)
    if empty is not None:  # nothing left, or too few values for the ddof: null
        null = null | empty
    return values, (null if null.any() else None)


def _reduce_series(s: pl.Series, stat: str, kw: dict[str, Any]) -> Any:
    """A Series' statistic as polars gives one: a scalar (None when missing); a
    Series of one value per ``q`` for a list ``q``."""
    col = column_of(s)
    values, missing = column_reduce(col, stat, **kw)
    if np.ndim(values):
        return to_series(s.name, values, missing, col.dtype)
    return to_scalar(values, missing, col.dtype)


def _result_column(s: pl.Series, stat: str, kw: dict[str, Any]) -> pl.Series:
    col = column_of(s)
    values, missing = column_reduce(col, stat, **kw)
    return to_series(s.name, values, missing, col.dtype)


class SeriesNanStats(SeriesStatsMixin):
    """NaN-explicit statistics of a polars Series (``s.nanstats``).

    Examples
    --------
    >>> import polars as pl, nanaccess  # noqa: F401
    >>> s = pl.Series("x", [1.0, 2.0, float("nan"), None, 7.0])
    >>> s.nanstats.median(nan_policy="omit")
    np.float64(2.0)
    >>> s.nanstats.median(nan_policy="largest")  # NaN ranks after 7.0, null after NaN
    np.float64(7.0)
    """

    def __init__(self, obj: pl.Series) -> None:
        self._obj = obj

    def _reduce(self, stat: str, **kw: Any) -> Any:
        return _reduce_series(self._obj, stat, kw)

    def rolling(self, stat: str, window_size: int, *, min_samples: int | None = None,
                center: bool = False, nan_policy: NanPolicyArg = None, **params: Any
                ) -> pl.Series:
        """A rolling statistic of the table over fixed windows (as ``rolling_<stat>``).

        Parameters
        ----------
        stat : str
            One of ``median``, ``quantile``, ``min``, ``max``, ``mean``, ``sum``,
            ``var``, ``std`` (and the other grouped statistics of the table); var
            and std take ``ddof`` (default 1, as polars' ``rolling_var``).
        window_size : int
            Rows per window.
        min_samples : int, optional
            Windows with fewer values (after the policy) are null; default
            ``window_size``, as polars.
        center : bool, default False
            Label each window by its middle row.
        nan_policy : str, optional
            The policy (default: the ``nan_policy`` option).
        **params
            The statistic's own parameters (``q``, ``method``, ``ddof``).

        Returns
        -------
        polars.Series
            One value per row; picks keep the dtype.

        Examples
        --------
        >>> import polars as pl, nanaccess  # noqa: F401
        >>> s = pl.Series("x", [1.0, float("nan"), 3.0, 4.0, 5.0])
        >>> s.nanstats.rolling("median", 3, min_samples=1, nan_policy="omit").to_list()
        [1.0, 1.0, 2.0, 3.5, 4.0]
        """
        return _rolling(self._obj, stat, window_size, min_samples, center, nan_policy, params)

    def rolling_median(self, window_size: int, *, min_samples: int | None = None,
                       center: bool = False, nan_policy: NanPolicyArg = None) -> pl.Series:
        """The rolling median, as ``Series.rolling_median`` with a ``nan_policy``.

        Parameters
        ----------
        window_size : int
            Rows per window.
        min_samples : int, optional
            Windows with fewer values (after the policy) are null; default
            ``window_size``, as polars.
        center : bool, default False
            Label each window by its middle row.
        nan_policy : str, optional
            The policy (default: the ``nan_policy`` option).

        Returns
        -------
        polars.Series

        Examples
        --------
        >>> import polars as pl, nanaccess  # noqa: F401
        >>> s = pl.Series("x", [1.0, float("nan"), 3.0, 4.0])
        >>> s.nanstats.rolling_median(2, nan_policy="largest").to_list()
        [None, nan, nan, 3.5]
        """
        return self.rolling("median", window_size, min_samples=min_samples, center=center,
                            nan_policy=nan_policy)

    def rolling_quantile(self, quantile: float, window_size: int, *, method: str = "linear",
                         min_samples: int | None = None, center: bool = False,
                         nan_policy: NanPolicyArg = None) -> pl.Series:
        """A rolling quantile, as ``Series.rolling_quantile`` with a ``nan_policy``.

        Parameters
        ----------
        quantile : float
            In [0, 1].
        window_size : int
            Rows per window.
        method : str, default "linear"
            NumPy's quantile methods (``linear``, ``lower``, ``higher``, ``nearest``,
            ``midpoint``).
        min_samples : int, optional
            Windows with fewer values are null; default ``window_size``.
        center : bool, default False
            Label each window by its middle row.
        nan_policy : str, optional
            The policy (default: the ``nan_policy`` option).

        Returns
        -------
        polars.Series

        Examples
        --------
        >>> import polars as pl, nanaccess  # noqa: F401
        >>> s = pl.Series("x", [1.0, 2.0, 3.0, 4.0])
        >>> s.nanstats.rolling_quantile(0.5, 2).to_list()
        [None, 1.5, 2.5, 3.5]
        """
        return self.rolling("quantile", window_size, min_samples=min_samples, center=center,
                            nan_policy=nan_policy, q=quantile, method=method)


def _rolling(s: pl.Series, stat: str, window_size: int, min_samples: int | None,
             center: bool, nan_policy: Any, params: dict[str, Any]) -> pl.Series:
    if stat not in _stats.GROUPED:
        raise ValueError(f"rolling takes a statistic of {_stats.GROUPED}, got {stat!r}")
    if window_size < 1:
        raise ValueError(f"window_size must be at least 1, got {window_size}")
    col = column_of(s)
    n = len(col.values)
    policy = resolve_policy(nan_policy)
    min_periods = window_size if min_samples is None else min_samples
    if any(p.name == "ddof" for p in _stats.get(stat).params):
        params = {"ddof": 1, **params}  # polars' rolling_var / rolling_std
    try:
        out = window_reduce(col.values, fixed_windows(n, window_size, center=center), None,
                            stat, policy=policy, missing=col.missing,
                            min_periods=min_periods, **params)
    except NaNError as err:
        raise relabelled(err, col.name, n) from None
    null = out.short | (out.count == 0) if empty_is_missing(stat) else out.short
    if out.missing is not None:
        null = null | out.missing
    values = out.values
    if values.dtype.kind in "iub" and null.any():  # an int pick keeps its dtype
        values = np.where(null, 0, values).astype(values.dtype)
    return to_series(s.name, values, null if null.any() else None, col.dtype)


class DataFrameNanStats(DataFrameStatsMixin):
    """NaN-explicit statistics of a polars DataFrame (``df.nanstats``): one row, as
    polars' own ``df.median()``.

    Examples
    --------
    >>> import polars as pl, nanaccess  # noqa: F401
    >>> df = pl.DataFrame({"x": [1.0, float("nan"), 3.0], "n": [4, None, 6]})
    >>> df.nanstats.max(nan_policy="omit")
    shape: (1, 2)
    ┌─────┬─────┐
    │ x   ┆ n   │
    │ --- ┆ --- │
    │ f64 ┆ i64 │
    ╞═════╪═════╡
    │ 3.0 ┆ 6   │
    └─────┴─────┘
    """

    def __init__(self, obj: pl.DataFrame) -> None:
        self._obj = obj

    def _reduce(self, stat: str, *, numeric_only: bool = False, **kw: Any) -> pl.DataFrame:
        df = self._obj
        columns = [df.to_series(i) for i in range(df.width)]
        if numeric_only:
            columns = [s for s in columns if s.dtype.is_numeric() or s.dtype == pl.Boolean]
        q = kw.get("q")
        out = [_result_column(s, stat, kw) for s in columns]
        if q is not None and np.ndim(q):  # one row per q, as xarray/pandas label them
            qs = pl.Series("quantile", np.asarray(q, dtype=np.float64).ravel())
            return pl.DataFrame([qs, *out])
        return pl.DataFrame(out)

    def describe(self, percentiles: Sequence[float] | None = None, *,
                 nan_policy: NanPolicyArg = None) -> pl.DataFrame:
        """Counts and summary statistics of every numeric column, as ``df.describe``.

        Parameters
        ----------
        percentiles : sequence of float, optional
            In [0, 1]; default 0.25, 0.5, 0.75 (0.5 is always added).
        nan_policy : str, optional
            The policy of the statistic rows; None: the policy chosen with
            ``set_options`` / ``option_context`` (but "raise"), else "omit"
            (describe reports the NaNs and nulls in its ``nan`` and ``missing`` rows).

        Returns
        -------
        polars.DataFrame
            A ``statistic`` column (``count`` of numbers, ``nan``, ``missing``,
            ``mean``, ``std``, ``min``, the percentiles, ``max``), then one Float64
            column per numeric column (datetimes as their int64 nanoseconds).

        Examples
        --------
        >>> import polars as pl, nanaccess  # noqa: F401
        >>> df = pl.DataFrame({"x": [1.0, float("nan"), 3.0, None]})
        >>> df.nanstats.describe()["x"].to_list()[:4]
        [2.0, 1.0, 1.0, 2.0]
        """
        policy = describe_policy(nan_policy)
        out = [pl.Series("statistic", row_labels(percentiles))]
        for i in range(self._obj.width):
            s = self._obj.to_series(i)
            if not (s.dtype.is_numeric() or s.dtype.is_temporal() or s.dtype == pl.Boolean):
                continue
            col = column_of(s)
            try:
                rows = describe_values(col.values, col.missing, policy, percentiles,
                                       subject=f"column {s.name!r}")
            except NaNError as err:
                raise relabelled(err, s.name, len(s)) from None
            out.append(pl.Series(s.name, list(rows.values()), dtype=pl.Float64))
        return pl.DataFrame(out)

    def nan_report(self) -> pl.DataFrame:
        """The counts of :func:`nanaccess.nan_report` of every numeric column.

        Returns
        -------
        polars.DataFrame
            A ``column`` column, then one Int64 column per kind (``values``,
            ``numbers``, ``nan``, ``quiet_nan``, ``signaling_nan``, ``negative_nan``,
            ``distinct_payloads``, ``posinf``, ``neginf``, ``missing``); nulls count as
            missing, never as NaN.

        Examples
        --------
        >>> import polars as pl, nanaccess  # noqa: F401
        >>> df = pl.DataFrame({"x": [1.0, float("nan"), None]})
        >>> df.nanstats.nan_report().select("column", "nan", "missing").rows()
        [('x', 1, 1)]
        """
        import nanaccess

        rows = []
        for i in range(self._obj.width):
            s = self._obj.to_series(i)
            try:
                col = column_of(s)
            except TypeError:
                continue
            masked = col.values if col.missing is None else \
                np.ma.masked_array(col.values, mask=col.missing)
            rep = nanaccess.nan_report(masked)
            rows.append({"column": s.name, **{k: int(v) for k, v in rep.items()}})
        return pl.DataFrame(rows)

    def group_by(self, *by: Any, maintain_order: bool = True) -> NanGroupBy:
        """Group the rows for NaN-explicit statistics of every group at once.

        One pass of the grouped kernels serves all groups (no Python call per group,
        as polars' ``map_batches`` inside ``agg`` would make).

        Parameters
        ----------
        *by : str or list of str
            The key columns (nulls form a group, as polars').
        maintain_order : bool, default True
            Groups in the order of their first row (polars' ``maintain_order=True``);
            False sorts them by key (a null key last).

        Returns
        -------
        NanGroupBy

        Examples
        --------
        >>> import polars as pl, nanaccess  # noqa: F401
        >>> df = pl.DataFrame({"k": ["a", "b", "a"], "x": [1.0, float("nan"), 3.0]})
        >>> df.nanstats.group_by("k").median(nan_policy="omit")
        shape: (2, 2)
        ┌─────┬──────┐
        │ k   ┆ x    │
        │ --- ┆ ---  │
        │ str ┆ f64  │
        ╞═════╪══════╡
        │ a   ┆ 2.0  │
        │ b   ┆ null │
        └─────┴──────┘
        """
        keys = [k for b in by for k in ([b] if isinstance(b, str) else list(b))]
        return NanGroupBy(self._obj, keys, maintain_order)


class NanGroupBy(GroupByStatsMixin):
    """The statistics of ``df.nanstats.group_by(...)``: one row per group, the keys
    first, as polars' ``group_by().agg()``."""

    def __init__(self, df: pl.DataFrame, keys: Sequence[str], maintain_order: bool) -> None:
        missing = [k for k in keys if k not in df.columns]
        if not keys or missing:
            raise KeyError(f"group_by needs key columns of the frame; {missing or 'none'} given")
        self._df = df
        self._keys = list(keys)
        self._maintain_order = maintain_order

    def _codes(self) -> tuple[np.ndarray, int, np.ndarray]:
        """(row codes, number of groups, first row of each group), in one factorisation
        per key (pandas' hash tables; a null key is a group, as polars')."""
        sort = not self._maintain_order
        codes, ngroups = None, 1
        for k in self._keys:
            c, uniques = pd.factorize(self._df.get_column(k).to_numpy(), sort=sort,
                                      use_na_sentinel=False)
            codes = c if codes is None else codes * len(uniques) + c
            ngroups = len(uniques)
        codes = cast("np.ndarray", codes)  # keys: at least one (checked when made)
        if len(self._keys) > 1:  # dense codes of the key combinations that occur
            codes, uniques = pd.factorize(codes, sort=sort)
            ngroups = len(uniques)
        n = len(codes)
        first = np.empty(ngroups, dtype=np.intp)
        first[codes[::-1]] = np.arange(n - 1, -1, -1)  # the last write is the first row
        return codes.astype(np.intp, copy=False), ngroups, first

    def _reduce(self, stat: str, *, numeric_only: bool = False, **kw: Any) -> pl.DataFrame:
        codes, ngroups, first = self._codes()
        df = self._df
        keys = df.select(self._keys)[first]
        values = [c for c in df.columns if c not in self._keys]
        if numeric_only:
            values = [c for c in values if df.schema[c].is_numeric()]
        policy = _policy_of(stat, kw.pop("nan_policy", None))
        min_count = kw.pop("min_count", 0)
        out = [keys]
        for name in values:
            col = column_of(df.get_column(name))
            try:
                red = grouped_reduce(col.values, codes, ngroups, stat, policy=policy,
                                     missing=col.missing, **kw)
            except NaNError as err:
                group = None if err.group is None else keys.row(int(err.group))
                raise relabelled(err, name, len(codes), group) from None
            except TypeError as err:
                raise type_error(name, err) from None
            exact, null = red.exact, red.holes
            if red.missing is not None:
                null = red.missing if null is None else (null | red.missing)
            if empty_is_missing(stat):
                empty = np.broadcast_to(red.count == 0, exact.shape)
                null = empty if null is None else (null | empty)
            if min_count:
                few = np.broadcast_to(below_min_count(red.count, min_count), exact.shape)
                null = few if null is None else (null | few)
            out.append(pl.DataFrame(to_series(name, exact, null, col.dtype)))
        return pl.concat(out, how="horizontal")


def _expr_call(stat: str, kw: dict[str, Any]) -> Any:
    def statistic(s: pl.Series) -> pl.Series:
        return _result_column(s, stat, kw)
    return statistic


class ExprNanStats(ExprStatsMixin):
    """NaN-explicit statistics as polars expressions (``pl.col(...).nanstats``), for
    ``select``, ``with_columns`` and ``group_by().agg`` on DataFrames and LazyFrames.

    Examples
    --------
    >>> import polars as pl, nanaccess  # noqa: F401
    >>> df = pl.DataFrame({"k": ["a", "a", "b"], "x": [1.0, float("nan"), 3.0]})
    >>> df.group_by("k", maintain_order=True).agg(
    ...     pl.col("x").nanstats.median(nan_policy="omit"))
    shape: (2, 2)
    ┌─────┬─────┐
    │ k   ┆ x   │
    │ --- ┆ --- │
    │ str ┆ f64 │
    ╞═════╪═════╡
    │ a   ┆ 1.0 │
    │ b   ┆ 3.0 │
    └─────┴─────┘
    """

    def __init__(self, expr: pl.Expr) -> None:
        self._expr = expr

    def _reduce(self, stat: str, **kw: Any) -> pl.Expr:
        q = kw.get("q")
        return self._expr.map_batches(_expr_call(stat, kw),
                                      returns_scalar=q is None or not np.ndim(q))

    def rolling(self, stat: str, window_size: int, *, min_samples: int | None = None,
                center: bool = False, nan_policy: NanPolicyArg = None, **params: Any
                ) -> pl.Expr:
        """A rolling statistic (see :meth:`SeriesNanStats.rolling`) as an expression.

        Parameters
        ----------
        stat : str
            A statistic of the table (``median``, ``quantile``, ``mean``, ...).
        window_size : int
            Rows per window.
        min_samples : int, optional
            Windows with fewer values are null; default ``window_size``.
        center : bool, default False
            Label each window by its middle row.
        nan_policy : str, optional
            The policy (default: the ``nan_policy`` option).
        **params
            The statistic's own parameters.

        Returns
        -------
        polars.Expr

        Examples
        --------
        >>> import polars as pl, nanaccess  # noqa: F401
        >>> df = pl.DataFrame({"x": [1.0, float("nan"), 3.0]})
        >>> df.select(pl.col("x").nanstats.rolling("max", 2, nan_policy="omit",
        ...                                           min_samples=1))["x"].to_list()
        [1.0, 1.0, 3.0]
        """
        def rolled(s: pl.Series) -> pl.Series:
            return _rolling(s, stat, window_size, min_samples, center, nan_policy, params)
        return self._expr.map_batches(rolled)

    def rolling_median(self, window_size: int, *, min_samples: int | None = None,
                       center: bool = False, nan_policy: NanPolicyArg = None) -> pl.Expr:
        """The rolling median as an expression (``Expr.rolling_median`` with a policy).

        Parameters
        ----------
        window_size : int
            Rows per window.
        min_samples : int, optional
            Windows with fewer values are null; default ``window_size``.
        center : bool, default False
            Label each window by its middle row.
        nan_policy : str, optional
            The policy (default: the ``nan_policy`` option).

        Returns
        -------
        polars.Expr

        Examples
        --------
        >>> import polars as pl, nanaccess  # noqa: F401
        >>> df = pl.DataFrame({"x": [1.0, float("nan"), 3.0, 5.0]})
        >>> df.with_columns(m=pl.col("x").nanstats.rolling_median(
        ...     2, nan_policy="omit", min_samples=1))["m"].to_list()
        [1.0, 1.0, 3.0, 4.0]
        """
        return self.rolling("median", window_size, min_samples=min_samples, center=center,
                            nan_policy=nan_policy)


class LazyFrameNanStats(LazyFrameStatsMixin):
    """NaN-explicit statistics of a polars LazyFrame (``lf.nanstats``): a lazy one-row
    frame, computed when collected; ``nan_policy="raise"`` raises at ``collect()``.

    Examples
    --------
    >>> import polars as pl, nanaccess  # noqa: F401
    >>> lf = pl.LazyFrame({"x": [1.0, float("nan"), 3.0]})
    >>> lf.nanstats.median(nan_policy="omit").collect()["x"].to_list()
    [2.0]
    """

    def __init__(self, obj: pl.LazyFrame) -> None:
        self._obj = obj

    def _reduce(self, stat: str, *, numeric_only: bool = False, **kw: Any) -> pl.LazyFrame:
        schema = self._obj.collect_schema()
        names = [n for n, dt in schema.items()
                 if not numeric_only or dt.is_numeric() or dt == pl.Boolean]
        return self._obj.select([ExprNanStats(pl.col(n))._reduce(stat, **kw) for n in names])
