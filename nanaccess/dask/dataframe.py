"""``ddf.nanstats`` on dask DataFrames and Series: lazy, exact statistics.

dask DataFrame has no exact median (``median_approximate`` only); here every column
goes through the exact selection of :mod:`nanaccess.dask.array` (histogram passes
over totalOrder key prefixes, combined across partitions), so results equal the
in-memory pandas accessor's numbers bit for bit. Partition lengths need not be known.
Policy errors are raised at compute time and name the column and the index label of
the first offending value.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import dask
import dask.array as da
import dask.dataframe as dd
import numpy as np
import pandas as pd
from dask.dataframe.extensions import register_dataframe_accessor, register_series_accessor

from ..core.bits import as_bits, layout_of
from ..errors import NaNError, SignalingNaNError
from ..options import NanPolicy, resolve_policy
from .array import dask_moment_stat, dask_order_stat

__all__ = ["DaskSeriesNanStats", "DaskDataFrameNanStats", "series_stat"]

_ORDER = ("median", "median_low", "median_high", "quantile", "min", "max")
_MOMENT = ("mean", "var", "std", "sum", "count")


def _partition_info(part: pd.Series) -> tuple[int, list[int], list[Any]]:
    """(length, [n_sig, n_nan, n_missing], [first label of each]) of one partition."""
    values = np.asarray(part.to_numpy())
    counts = [0, 0, 0]
    firsts: list[Any] = [None, None, None]
    masks: list[np.ndarray | None] = [None, None, None]
    if values.dtype.kind == "f":
        nan = np.isnan(values)
        lay = layout_of(values.dtype)
        masks[0] = nan & ((as_bits(values) & lay.int_dtype.type(lay.quiet_bit)) == 0)
        masks[1] = nan
    elif values.dtype.kind in "mM":
        masks[2] = np.isnat(values)
    for j, m in enumerate(masks):
        if m is not None and m.any():
            idx = np.flatnonzero(m)
            counts[j] = int(idx.size)
            firsts[j] = (int(idx[0]), part.index[idx[0]])
    return len(values), counts, firsts


def _check_series(infos: list, policy: NanPolicy, column: Any) -> np.ndarray:
    """Combine the partition infos in order; raise as the core would, with labels."""
    totals = [0, 0, 0]
    firsts: list[Any] = [None, None, None]
    offset = 0
    for length, counts, fs in infos:
        for j in range(3):
            totals[j] += counts[j]
            if firsts[j] is None and fs[j] is not None:
                firsts[j] = (offset + fs[j][0], fs[j][1])
        offset += length
    subject = "data" if column is None else f"column {column!r}"

    def where(j: int) -> str:
        return f"index {_label(firsts[j][1])}"

    nsig, nnan, nmiss = totals
    if nnan and nsig and policy is not NanPolicy.TOTALORDER:
        raise SignalingNaNError(count=nsig, position=(firsts[0][0],), subject=subject,
                                location=where(0))
    if policy is NanPolicy.RAISE and nnan:
        raise NaNError(count=nnan, kind="NaN", position=(firsts[1][0],), subject=subject,
                       location=where(1))
    if policy is NanPolicy.RAISE and nmiss:
        raise NaNError(count=nmiss, kind="missing", position=(firsts[2][0],),
                       subject=subject, location=where(2))
    return np.ones(1, dtype=bool)


def _label(value: Any) -> str:
    if isinstance(value, pd.Timestamp):
        return repr(value.strftime("%Y-%m-%d") if value == value.normalize()
                    else value.isoformat())
    if isinstance(value, np.generic):
        value = value.item()
    return repr(value)


def _series_check(s: dd.Series, policy: NanPolicy) -> da.Array | None:
    if s.dtype.kind not in "fmM":
        return None
    parts = [dask.delayed(_partition_info)(p) for p in s.to_delayed()]
    chk = dask.delayed(_check_series)(parts, policy, s.name)
    return da.from_delayed(chk, shape=(1,), dtype=bool)


def series_stat(
    s: dd.Series,
    stat: str,
    *,
    q: float | Sequence[float] | None = None,
    method: str = "linear",
    ddof: int = 1,
    nan_policy: NanPolicy | str | None = None,
) -> da.Array:
    """One statistic of a dask Series, lazy (a 0-d dask array, or 1-D for list ``q``).

    Examples
    --------
    >>> import numpy as np, pandas as pd, dask.dataframe as dd
    >>> s = dd.from_pandas(pd.Series([4.0, np.nan, 1.0, 3.0, 2.0]), npartitions=2)
    >>> float(series_stat(s, "median", nan_policy="omit").compute())
    2.5
    """
    policy = resolve_policy(nan_policy)
    x = s.to_dask_array()
    check = _series_check(s, policy)
    if stat in _ORDER:
        return dask_order_stat(x, stat, q=q, method=method, policy=policy, check=check)
    if stat in _MOMENT:
        # a tree reduction of exact partials (unknown partition lengths are fine)
        return dask_moment_stat(x, stat, ddof=ddof, policy=policy, check=check)
    raise ValueError(f"unknown statistic {stat!r}; expected one of {_ORDER + _MOMENT}")


def dask_moment_dtype(x: da.Array, stat: str) -> np.dtype:
    from ..core.moments import moment_stat

    v, _m = moment_stat(np.zeros(2, dtype=x.dtype), stat, policy=NanPolicy.TOTALORDER)
    return np.asarray(v).dtype


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


def _frame_stat(ddf: dd.DataFrame, stat: str, numeric_only: bool, **kw: Any):
    cols = [c for c in ddf.columns
            if not numeric_only or pd.api.types.is_numeric_dtype(ddf[c].dtype)]
    results = [series_stat(ddf[c], stat, **kw) for c in cols]
    q = kw.get("q")
    list_q = q is not None and np.ndim(q) > 0

    def assemble(*values):
        if list_q:
            return pd.DataFrame({c: np.asarray(v) for c, v in zip(cols, values, strict=True)},
                                index=pd.Index(np.asarray(q, dtype=float)))
        return pd.Series([np.asarray(v)[()] for v in values], index=pd.Index(cols),
                         dtype=np.result_type(*[r.dtype for r in results]) if results
                         else float)

    if list_q:
        meta = pd.DataFrame({c: pd.Series(dtype=r.dtype) for c, r in
                             zip(cols, results, strict=True)})
    else:
        meta = pd.Series(dtype=np.result_type(*[r.dtype for r in results]) if results
                         else float)
    delayed = dask.delayed(assemble)(*results)
    return dd.from_delayed([delayed], meta=meta, verify_meta=False)


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
        return _frame_stat(self._obj, "median", numeric_only, nan_policy=nan_policy)

    def quantile(self, q=0.5, *, method="linear", numeric_only=False, nan_policy=None):
        """Exact quantile(s) of each column (list ``q``: a frame indexed by q).

        Examples
        --------
        >>> import pandas as pd, dask.dataframe as dd, nanaccess.dask
        >>> ddf = dd.from_pandas(pd.DataFrame({"a": [4.0, 1.0, 3.0]}), npartitions=2)
        >>> ddf.nanstats.quantile([0.0, 1.0]).compute()["a"].tolist()
        [1.0, 4.0]
        """
        return _frame_stat(self._obj, "quantile", numeric_only, q=q, method=method,
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
        return _frame_stat(self._obj, "min", numeric_only, nan_policy=nan_policy)

    def max(self, *, numeric_only=False, nan_policy=None):
        """Maximum of each column.

        Examples
        --------
        >>> import pandas as pd, dask.dataframe as dd, nanaccess.dask
        >>> ddf = dd.from_pandas(pd.DataFrame({"a": [4.0, 1.0, 3.0]}), npartitions=2)
        >>> ddf.nanstats.max().compute().tolist()
        [4.0]
        """
        return _frame_stat(self._obj, "max", numeric_only, nan_policy=nan_policy)

    def mean(self, *, numeric_only=False, nan_policy=None):
        """Correctly rounded mean of each column.

        Examples
        --------
        >>> import pandas as pd, dask.dataframe as dd, nanaccess.dask
        >>> ddf = dd.from_pandas(pd.DataFrame({"a": [4.0, 1.0, 4.0]}), npartitions=2)
        >>> ddf.nanstats.mean().compute().tolist()
        [3.0]
        """
        return _frame_stat(self._obj, "mean", numeric_only, nan_policy=nan_policy)

    def sum(self, *, numeric_only=False, nan_policy=None):
        """Correctly rounded sum of each column.

        Examples
        --------
        >>> import pandas as pd, dask.dataframe as dd, nanaccess.dask
        >>> ddf = dd.from_pandas(pd.DataFrame({"a": [4.0, 1.0, 4.0]}), npartitions=2)
        >>> ddf.nanstats.sum().compute().tolist()
        [9.0]
        """
        return _frame_stat(self._obj, "sum", numeric_only, nan_policy=nan_policy)

    def var(self, *, ddof=1, numeric_only=False, nan_policy=None):
        """Variance of each column (``ddof=1`` as pandas).

        Examples
        --------
        >>> import pandas as pd, dask.dataframe as dd, nanaccess.dask
        >>> ddf = dd.from_pandas(pd.DataFrame({"a": [1.0, 3.0]}), npartitions=2)
        >>> ddf.nanstats.var().compute().tolist()
        [2.0]
        """
        return _frame_stat(self._obj, "var", numeric_only, ddof=ddof, nan_policy=nan_policy)

    def std(self, *, ddof=1, numeric_only=False, nan_policy=None):
        """Standard deviation of each column (``ddof=1`` as pandas).

        Examples
        --------
        >>> import pandas as pd, dask.dataframe as dd, nanaccess.dask
        >>> ddf = dd.from_pandas(pd.DataFrame({"a": [1.0, 3.0]}), npartitions=2)
        >>> ddf.nanstats.std(ddof=0).compute().tolist()
        [1.0]
        """
        return _frame_stat(self._obj, "std", numeric_only, ddof=ddof, nan_policy=nan_policy)


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
        by, dropna = self._by, self._dropna

        def per_partition(pdf: pd.DataFrame) -> Any:
            return getattr(pdf.groupby(by, sort=True, dropna=dropna).nanstats, stat)(**kw)

        meta = per_partition(self._ddf._meta)
        return self._ddf.shuffle(on=by).map_partitions(per_partition, meta=meta)

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
        if np.ndim(q):
            raise ValueError("dask groupby quantile takes a scalar q")
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

