"""``Series.nanstats`` and ``DataFrame.nanstats``: thin accessors over the core.

Each method converts the columns with :mod:`nanaccess.pandas.dtypes`, calls the core
(:func:`~nanaccess.core.select.order_stat`, :func:`~nanaccess.core.moments.moment_stat`,
:mod:`nanaccess.core.sorting`, :mod:`nanaccess.core.classify`), and labels the result
as pandas' own method would. Errors from the core are restated with the column name
and the index label of the first offending value.

Decisions where the spec is silent:

* Nullable (``Float64``, ``Int64``, ...) and Arrow columns give the host's missing
  value (``pd.NA``) for a statistic over no values, as pandas does; NumPy columns give
  the canonical NaN.
* ``describe`` adds the rows ``nan`` and ``missing`` after ``count``; ``count`` counts
  numbers (neither NaN nor missing), as pandas' count does for float data.
* ``argmin`` / ``argmax`` return index labels (as ``idxmin`` / ``idxmax``, which are
  aliases).
* ``rank`` gives missing values a NaN rank (pandas' ``na_option="keep"``);
  ``sort_values`` puts missing values last under every policy but "omit", which drops
  them with the NaNs.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..errors import NaNError
from ..options import NanPolicy, resolve_policy
from .dtypes import Column, column_arrays, is_numeric_column, to_pandas_array, to_scalar

__all__ = ["SeriesNanStats", "DataFrameNanStats"]

_DESCRIBE_ROWS = ("count", "nan", "missing", "mean", "std", "min")


# --------------------------------------------------------------------- labelling


def fmt_label(label: Any) -> str:
    """A label as error messages show it (dates without a midnight time)."""
    if isinstance(label, pd.Timestamp) and label == label.normalize() and label.tz is None:
        return repr(label.strftime("%Y-%m-%d"))
    if isinstance(label, pd.Timestamp | pd.Timedelta):
        return repr(str(label))
    if isinstance(label, np.generic):
        label = label.item()
    if isinstance(label, tuple):  # MultiIndex labels: (2024, 'y'), not (np.int64(2024), 'y')
        parts = [x.item() if isinstance(x, np.generic) else x for x in label]
        return "(" + ", ".join(map(repr, parts)) + ("," if len(parts) == 1 else "") + ")"
    return repr(label)


def subject_of(name: Hashable | None, group: Any = None, *, series: bool = False) -> str:
    """'column 'temp'' (+ " in group 'a'") for error messages."""
    if name is None and series:
        subject = "Series"
    else:
        subject = f"column {fmt_label(name)}"
    if group is not None:
        subject += f" in group {fmt_label(group)}"
    return subject


def relabel(
    err: NaNError,
    name: Hashable | None,
    index: pd.Index,
    *,
    rows: np.ndarray | None = None,
    group: Any = None,
    series: bool = False,
    position: Any = None,
) -> NaNError:
    """Restate a core :class:`NaNError` with the column, group and index label.

    ``rows`` maps the core's row positions to positions in ``index`` (when the core
    saw a subset of the rows).
    """
    pos = err.position if position is None else position
    location = None
    if pos is not None:
        row = int(pos[0] if isinstance(pos, tuple) else pos)
        if rows is not None:
            row = int(rows[row])
        location = f"index {fmt_label(index[row])}"
    new = err.relabel(subject_of(name, group, series=series), location)
    if group is not None or hasattr(err, "group"):
        new.group = group if group is not None else err.group
    return new


def type_error(name: Hashable | None, err: Exception, series: bool = False) -> TypeError:
    what = "Series" if (series and name is None) else f"column {fmt_label(name)}"
    return TypeError(f"{what}: {err}")


# ------------------------------------------------------------------ core calls


def _core_order(col: Column, stat: str, policy: NanPolicy, **kw: Any):
    from ..core.select import order_stat

    return order_stat(col.values, stat, policy=policy, missing=col.missing, **kw)


def _core_moment(col: Column, stat: str, policy: NanPolicy, ddof: float, **kw: Any):
    from ..core.moments import moment_stat

    return moment_stat(col.values, stat, policy=policy, missing=col.missing, ddof=ddof, **kw)


def _left_count(col: Column, policy: NanPolicy, axis: int | None = None) -> np.ndarray:
    """How many values a statistic sees (numbers; plus NaN/missing unless "omit")."""
    v = col.values
    n = v.shape[axis] if axis is not None else v.size
    if policy is not NanPolicy.OMIT:
        return np.asarray(n)
    gone = np.zeros(v.shape, bool) if col.missing is None else col.missing.copy()
    if v.dtype.kind == "f":
        gone |= np.isnan(v)
    elif v.dtype.kind in "mM":
        gone |= np.isnat(v)
    return np.asarray(n - gone.sum(axis=axis))


def column_stat(
    col: Column,
    name: Hashable | None,
    index: pd.Index,
    stat: str,
    policy: NanPolicy,
    *,
    q: Any = None,
    method: str = "linear",
    ddof: float = 1,
    series: bool = False,
) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
    """(values, missing, empty) of one column's statistic, errors relabelled."""
    try:
        if stat in ("mean", "var", "std", "sum", "count"):
            if stat == "count" and col.values.dtype.kind == "O":
                return np.asarray(_report(col)["numbers"]), None, None
            values, miss = _core_moment(col, stat, policy, ddof)
        elif stat == "quantile":
            values, miss = _core_order(col, stat, policy, q=q, method=method)
        else:
            values, miss = _core_order(col, stat, policy)
    except NaNError as err:
        raise relabel(err, name, index, series=series) from None
    except TypeError as err:
        raise type_error(name, err, series) from None
    empty = None
    if col.host in ("masked", "arrow") and stat not in ("sum", "count"):
        empty = np.broadcast_to(_left_count(col, policy) == 0, np.shape(values))
    return values, miss, empty


def _report(col: Column) -> dict[str, int]:
    from ..core.classify import _report_array

    return _report_array(col.values, col.missing)


def _q_is_list(q: Any) -> bool:
    return np.ndim(q) > 0


def _q_index(q: Any) -> pd.Index:
    return pd.Index(np.asarray(q, dtype=np.float64))


def _combine(arrays: list[Any], index: pd.Index, name: Any = None) -> pd.Series:
    """One value per column -> a Series, with pandas' common-dtype rules."""
    if not arrays:
        return pd.Series([], index=index, dtype=np.float64, name=name)
    if all(isinstance(a, np.ndarray) for a in arrays):
        kinds = {a.dtype.kind for a in arrays}
        if len({a.dtype for a in arrays}) == 1 or (
                kinds <= set("fiub") and not _widening_quiets(arrays)):
            return pd.Series(np.concatenate(arrays), index=index, name=name)
        if kinds <= set("fiub"):
            # a picked signaling NaN of a narrower float column would be quieted by
            # the common dtype: keep each value exactly as stored (object Series)
            vals = np.empty(sum(a.size for a in arrays), dtype=object)
            vals[:] = [x for a in arrays for x in a.ravel()]
            return pd.Series(vals, index=index, name=name, dtype=object)
    parts = [pd.Series(a) for a in arrays]
    out = pd.concat(parts, ignore_index=True)
    out.index = index
    out.name = name
    return out


def _holds_numbers(s: pd.Series) -> bool:
    """An object column whose values are all numbers, NaNs or missing values."""
    if s.dtype != object or not len(s):
        return False
    from ..core.objects import classify_object

    return all(classify_object(v)[0] != "other" for v in s.array)


def _widening_quiets(arrays: list[np.ndarray]) -> bool:
    """Whether the common dtype would quiet a stored signaling NaN (a narrower float)."""
    common = np.result_type(*arrays)
    if common.kind != "f":
        return False
    from ..core.classify import issignaling

    return any(a.dtype.kind == "f" and a.dtype != common and a.size
               and bool(np.any(issignaling(a))) for a in arrays)


# ------------------------------------------------------------------- accessors


class _Docs:
    policy = """nan_policy : {"raise", "propagate", "omit", "smallest", "largest", "totalorder"}
        How NaN and missing values are treated; None uses
        ``nanaccess.get_options()["nan_policy"]`` (initially "raise")."""


class SeriesNanStats:
    """NaN-explicit statistics of a pandas Series (``s.nanstats``).

    Registered on ``import nanaccess``. Each method calls the matching
    ``nanaccess`` function on this Series and returns what ``Series.<method>`` would
    (a scalar, or a Series indexed by q for a list of quantiles).

    Examples
    --------
    >>> import numpy as np, pandas as pd, nanaccess  # noqa: F401
    >>> s = pd.Series([1.0, np.nan, 3.0, 4.0], name="temp")
    >>> s.nanstats.median(nan_policy="omit")
    np.float64(3.0)
    """

    def __init__(self, obj: pd.Series) -> None:
        self._obj = obj

    # -- helpers
    def _col(self) -> Column:
        s = self._obj
        try:
            return column_arrays(s)
        except TypeError as err:
            raise type_error(s.name, err, True) from None

    def _stat(self, stat: str, nan_policy: Any, axis: Any = None, **kw: Any) -> Any:
        if axis not in (None, 0, "index", "rows"):
            raise ValueError(f"No axis named {axis!r} for object type Series")
        s = self._obj
        policy = resolve_policy(nan_policy)
        col = self._col()
        values, miss, empty = column_stat(col, s.name, s.index, stat, policy, series=True, **kw)
        if stat == "quantile" and _q_is_list(kw.get("q")):
            arr = to_pandas_array(values, miss, col, empty)
            return pd.Series(arr, index=_q_index(kw["q"]), name=s.name)
        m = bool(miss) if miss is not None and np.ndim(miss) == 0 else False
        e = bool(empty) if empty is not None else False
        return to_scalar(values, m, col, e)

    # -- order statistics
    def median(self, *, axis: Any = None, nan_policy: str | None = None) -> Any:
        """Median of the Series under ``nan_policy`` (``Series.median``).

        Parameters
        ----------
        axis : {None, 0}
            Accepted for symmetry with pandas.
        nan_policy : str, optional
            "raise" (default), "propagate", "omit", "smallest", "largest" or
            "totalorder".

        Returns
        -------
        scalar
            A NumPy scalar of the data's dtype (float64 for interpolated ints);
            ``pd.NA`` for a missing result of a nullable Series.

        Examples
        --------
        >>> import numpy as np, pandas as pd, nanaccess  # noqa: F401
        >>> pd.Series([1.0, np.nan, 2.0, 10.0]).nanstats.median(nan_policy="omit")
        np.float64(2.0)
        >>> pd.Series([1.0, np.nan]).nanstats.median(nan_policy="propagate")
        np.float64(nan)
        """
        return self._stat("median", nan_policy, axis)

    def median_low(self, *, axis: Any = None, nan_policy: str | None = None) -> Any:
        """Low median (the smaller middle value, never interpolated).

        Examples
        --------
        >>> import pandas as pd, nanaccess  # noqa: F401
        >>> pd.Series([4, 1, 3, 2]).nanstats.median_low()
        np.int64(2)
        """
        return self._stat("median_low", nan_policy, axis)

    def median_high(self, *, axis: Any = None, nan_policy: str | None = None) -> Any:
        """High median (the larger middle value, never interpolated).

        Examples
        --------
        >>> import pandas as pd, nanaccess  # noqa: F401
        >>> pd.Series([4, 1, 3, 2]).nanstats.median_high()
        np.int64(3)
        """
        return self._stat("median_high", nan_policy, axis)

    def quantile(
        self,
        q: float | Sequence[float] = 0.5,
        *,
        method: str = "linear",
        axis: Any = None,
        nan_policy: str | None = None,
    ) -> Any:
        """Quantile(s) as ``Series.quantile``: a scalar, or a Series indexed by q.

        Parameters
        ----------
        q : float or sequence of float
            In [0, 1].
        method : str
            linear (default, = "inclusive"), lower, higher, nearest, midpoint,
            exclusive (= "weibull"), hazen, median_unbiased, normal_unbiased.
        nan_policy : str, optional

        Examples
        --------
        >>> import numpy as np, pandas as pd, nanaccess  # noqa: F401
        >>> s = pd.Series([1.0, 2.0, np.nan, 4.0], name="x")
        >>> s.nanstats.quantile([0.25, 0.5], nan_policy="omit")
        0.25    1.5
        0.50    2.0
        Name: x, dtype: float64
        """
        return self._stat("quantile", nan_policy, axis, q=q, method=method)

    def min(self, *, axis: Any = None, nan_policy: str | None = None) -> Any:
        """Smallest value (exact bits kept).

        Examples
        --------
        >>> import numpy as np, pandas as pd, nanaccess  # noqa: F401
        >>> pd.Series([2.0, np.nan, -0.0, 0.0]).nanstats.min(nan_policy="omit")
        np.float64(-0.0)
        """
        return self._stat("min", nan_policy, axis)

    def max(self, *, axis: Any = None, nan_policy: str | None = None) -> Any:
        """Largest value (exact bits kept).

        Examples
        --------
        >>> import numpy as np, pandas as pd, nanaccess  # noqa: F401
        >>> pd.Series([2.0, np.nan, 5.0]).nanstats.max(nan_policy="largest")
        np.float64(nan)
        """
        return self._stat("max", nan_policy, axis)

    def _arg(self, stat: str, nan_policy: Any) -> Any:
        s = self._obj
        policy = resolve_policy(nan_policy)
        col = self._col()
        try:
            pos, _ = _core_order(col, stat, policy)
        except NaNError as err:
            raise relabel(err, s.name, s.index, series=True) from None
        except TypeError as err:
            raise type_error(s.name, err, True) from None
        return s.index[int(pos)]

    def argmin(self, *, axis: Any = None, nan_policy: str | None = None) -> Hashable:
        """Index label of the minimum (as ``Series.idxmin``).

        Examples
        --------
        >>> import numpy as np, pandas as pd, nanaccess  # noqa: F401
        >>> pd.Series([3.0, np.nan, 1.0], index=list("abc")).nanstats.argmin(nan_policy="omit")
        'c'
        """
        return self._arg("argmin", nan_policy)

    def argmax(self, *, axis: Any = None, nan_policy: str | None = None) -> Hashable:
        """Index label of the maximum (as ``Series.idxmax``).

        Examples
        --------
        >>> import numpy as np, pandas as pd, nanaccess  # noqa: F401
        >>> pd.Series([3.0, np.nan, 1.0], index=list("abc")).nanstats.argmax(nan_policy="omit")
        'a'
        """
        return self._arg("argmax", nan_policy)

    def idxmin(self, *, nan_policy: str | None = None) -> Hashable:
        """Alias of :meth:`argmin`.

        Examples
        --------
        >>> import pandas as pd, nanaccess  # noqa: F401
        >>> pd.Series([3.0, 1.0], index=["x", "y"]).nanstats.idxmin()
        'y'
        """
        return self._arg("argmin", nan_policy)

    def idxmax(self, *, nan_policy: str | None = None) -> Hashable:
        """Alias of :meth:`argmax`.

        Examples
        --------
        >>> import pandas as pd, nanaccess  # noqa: F401
        >>> pd.Series([3.0, 1.0], index=["x", "y"]).nanstats.idxmax()
        'x'
        """
        return self._arg("argmax", nan_policy)

    # -- moments
    def mean(self, *, axis: Any = None, nan_policy: str | None = None) -> Any:
        """Mean, correctly rounded (independent of the order of the data).

        Examples
        --------
        >>> import numpy as np, pandas as pd, nanaccess  # noqa: F401
        >>> pd.Series([1.0, np.nan, 2.0]).nanstats.mean(nan_policy="omit")
        np.float64(1.5)
        """
        return self._stat("mean", nan_policy, axis)

    def var(self, *, ddof: float = 1, axis: Any = None, nan_policy: str | None = None) -> Any:
        """Variance with ``ddof`` (default 1, as pandas).

        Examples
        --------
        >>> import numpy as np, pandas as pd, nanaccess  # noqa: F401
        >>> pd.Series([1.0, np.nan, 3.0]).nanstats.var(nan_policy="omit")
        np.float64(2.0)
        """
        return self._stat("var", nan_policy, axis, ddof=ddof)

    def std(self, *, ddof: float = 1, axis: Any = None, nan_policy: str | None = None) -> Any:
        """Standard deviation with ``ddof`` (default 1, as pandas).

        Examples
        --------
        >>> import numpy as np, pandas as pd, nanaccess  # noqa: F401
        >>> pd.Series([1.0, np.nan, 3.0]).nanstats.std(ddof=0, nan_policy="omit")
        np.float64(1.0)
        """
        return self._stat("std", nan_policy, axis, ddof=ddof)

    def sum(self, *, axis: Any = None, nan_policy: str | None = None) -> Any:
        """Sum, correctly rounded; 0 over no values (as pandas).

        Examples
        --------
        >>> import numpy as np, pandas as pd, nanaccess  # noqa: F401
        >>> pd.Series([0.1, 0.2, np.nan, 0.3]).nanstats.sum(nan_policy="omit")
        np.float64(0.6)
        """
        return self._stat("sum", nan_policy, axis)

    def count(self) -> int:
        """Number of numbers (values that are neither NaN nor missing).

        Examples
        --------
        >>> import numpy as np, pandas as pd, nanaccess  # noqa: F401
        >>> pd.Series([1.0, np.nan, None], dtype="Float64").nanstats.count()
        1
        """
        return int(_report(self._col())["numbers"])

    # -- reports
    def describe(
        self,
        percentiles: Sequence[float] | None = None,
        *,
        nan_policy: str | None = None,
    ) -> pd.Series:
        """Summary statistics as ``Series.describe``, plus NaN and missing counts.

        Rows: count (numbers), nan, missing, mean, std, min, the percentiles
        (default 25%, 50%, 75%) and max, computed under ``nan_policy``.

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
        return _describe_column(self._col(), s.name, s.index, resolve_policy(nan_policy),
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
        s = self._obj
        return pd.Series(_report(self._col()), name=s.name, dtype=np.int64)

    # -- sorting
    def _order(self, nan_policy: Any, ascending: bool) -> np.ndarray:
        s = self._obj
        return sort_order(self._col(), s.name, s.index, nan_policy, ascending)

    def sort_values(
        self,
        *,
        ascending: bool = True,
        ignore_index: bool = False,
        nan_policy: str | None = None,
    ) -> pd.Series:
        """A stably sorted copy, every bit kept (default policy "totalorder").

        "smallest" / "largest" put NaNs first / last, "omit" drops NaNs and missing
        values, "raise" raises; missing values go last otherwise.

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
        order = self._order(nan_policy, ascending)
        s = self._obj
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
        nan_policy: str | None = None,
    ) -> pd.Series:
        """Ranks as ``Series.rank(method=...)`` on totalOrder keys.

        Missing values get a NaN rank; under "omit" so do NaNs.

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
            rank_values(self._col(), s.name, s.index, method, ascending, pct, nan_policy),
            index=s.index,
            name=s.name,
        )

    # -- grouping / plotting
    def groupby(self, by: Any = None, **kwargs: Any) -> Any:
        """Group the Series (as ``Series.groupby``) for NaN-explicit statistics.

        Examples
        --------
        >>> import numpy as np, pandas as pd, nanaccess  # noqa: F401
        >>> s = pd.Series([1.0, np.nan, 3.0, 5.0])
        >>> s.nanstats.groupby([0, 0, 1, 1]).median(nan_policy="omit")
        0    1.0
        1    4.0
        dtype: float64
        """
        from .groupby import NanGroupBy

        return NanGroupBy(self._obj.groupby(by, **kwargs))

    def plot_nan_map(self, ax: Any = None) -> Any:
        """Draw where the NaNs and missing values sit (:func:`nanaccess.plotting.plot_nan_map`).

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> import numpy as np, pandas as pd, nanaccess  # noqa: F401
        >>> ax = pd.Series([1.0, np.nan]).nanstats.plot_nan_map()
        """
        from ..plotting import plot_nan_map

        return plot_nan_map(self._obj, ax=ax)


# ------------------------------------------------------------------ shared pieces


def _pct_label(p: float) -> str:
    return f"{p * 100:.10g}%"


def _percentiles(percentiles: Sequence[float] | None) -> list[float]:
    ps = [0.25, 0.5, 0.75] if percentiles is None else sorted(set(map(float, percentiles)))
    if percentiles is not None and 0.5 not in ps:
        ps = sorted(ps + [0.5])
    for p in ps:
        if not 0 <= p <= 1:
            raise ValueError("percentiles should all be in the interval [0, 1]")
    return ps


def _as_float(value: Any, miss: Any, name: Any = None, row: str = "") -> float:
    if miss is not None and bool(np.asarray(miss)):
        return np.nan
    v = np.asarray(value)
    if v.dtype.kind in "mM":
        return float(v.view(np.int64)) if not np.isnat(v) else np.nan
    if v.dtype.kind in "fiub":
        return np.float64(v.astype(np.float64))
    try:
        return float(v[()])
    except OverflowError:
        # exact object results (huge ints, Fractions) beyond float64: say where
        raise OverflowError(
            f"column {fmt_label(name)}: the {row} is too large for describe's float64 "
            "table; compute it with the statistic's own method for the exact value"
        ) from None


def _describe_column(
    col: Column, name: Any, index: pd.Index, policy: NanPolicy, percentiles: Any
) -> pd.Series:
    ps = _percentiles(percentiles)
    rep = _report(col)
    out: dict[str, float] = {
        "count": float(rep["numbers"]),
        "nan": float(rep["nan"]),
        "missing": float(rep["missing"]),
    }
    for stat in ("mean", "std", "min"):
        v, m, _ = column_stat(col, name, index, stat, policy, series=True)
        out[stat] = _as_float(v, m, name, stat)
    qv, qm, _ = column_stat(col, name, index, "quantile", policy, q=ps, series=True)
    for j, p in enumerate(ps):
        out[_pct_label(p)] = _as_float(qv[j], None if qm is None else qm[j], name,
                                       _pct_label(p))
    v, m, _ = column_stat(col, name, index, "max", policy, series=True)
    out["max"] = _as_float(v, m, name, "max")
    return pd.Series(list(out.values()), index=list(out), name=name, dtype=np.float64)


def sort_order(
    col: Column, name: Any, index: pd.Index, nan_policy: Any, ascending: bool
) -> np.ndarray:
    """Positions that sort a column (missing values last, or dropped under "omit")."""
    from ..core.sorting import sort_keys

    policy = resolve_policy(NanPolicy.TOTALORDER if nan_policy is None else nan_policy)
    if policy is NanPolicy.PROPAGATE:
        raise ValueError(
            'nan_policy="propagate" has no meaning for a sort; use "totalorder", '
            '"smallest", "largest", "omit" or "raise"'
        )
    v = col.values
    missing = col.missing
    if v.dtype.kind in "mM":
        nat = np.isnat(v)
        missing = nat if missing is None else (missing | nat)
    if missing is not None and not missing.any():
        missing = None
    pos = np.arange(v.size) if missing is None else np.flatnonzero(~missing)
    if missing is not None and policy is NanPolicy.RAISE:
        first = int(np.flatnonzero(missing)[0])
        err = NaNError(count=int(missing.sum()), kind="missing", position=(first,))
        raise relabel(err, name, index, series=True)
    vv = v[pos]
    if vv.dtype.kind == "O":
        from ..core.sorting import _object_argsort

        try:
            o = _object_argsort(vv, policy, ascending=ascending)
        except NaNError as err:
            raise relabel(err, name, index, rows=pos, series=True) from None
        except TypeError as err:
            raise type_error(name, err, True) from None
        order = pos[o]
        if missing is not None and policy is not NanPolicy.OMIT:
            order = np.concatenate([order, np.flatnonzero(missing)])
        return order
    try:
        k = sort_keys(vv, policy)
    except NaNError as err:
        raise relabel(err, name, index, rows=pos, series=True) from None
    if not ascending:
        k = ~k
    o = np.argsort(k, kind="stable")
    if policy is NanPolicy.OMIT:
        if vv.dtype.kind == "f":
            o = o[~np.isnan(vv[o])]
        return pos[o]
    order = pos[o]
    if missing is not None:
        order = np.concatenate([order, np.flatnonzero(missing)])
    return order


def rank_values(
    col: Column, name: Any, index: pd.Index, method: str, ascending: bool, pct: bool,
    nan_policy: Any,
) -> np.ndarray:
    """float64 ranks of a column; missing values get NaN."""
    from ..core.axes import Reduction
    from ..core.classify import scan_rows
    from ..core.sorting import rank

    v = col.values
    missing = col.missing
    if v.dtype.kind in "mM":
        nat = np.isnat(v)
        missing = nat if missing is None else (missing | nat)
    policy = NanPolicy.TOTALORDER if nan_policy is None else resolve_policy(nan_policy)
    if policy is NanPolicy.OMIT and v.dtype.kind == "f":
        # signaling NaNs raise before NaNs are set aside (spec section 2)
        try:
            scan_rows(v, Reduction.of(v, None), policy)
        except NaNError as err:
            raise relabel(err, name, index, series=True) from None
        # rank only the numbers (the core's descending "omit" ranks NaNs first)
        nan = np.isnan(v)
        missing = nan if missing is None else (missing | nan)
    pos = np.arange(v.size) if missing is None else np.flatnonzero(~missing)
    if missing is not None and missing.any() and policy is NanPolicy.RAISE:
        first = int(np.flatnonzero(missing)[0])
        err = NaNError(count=int(missing.sum()), kind="missing", position=(first,))
        raise relabel(err, name, index, series=True)
    out = np.full(v.size, np.nan)
    try:
        out[pos] = rank(v[pos], method=method, nan_policy=policy, ascending=ascending, pct=pct)
    except NaNError as err:
        raise relabel(err, name, index, rows=pos, series=True) from None
    except TypeError as err:
        raise type_error(name, err, True) from None
    return out


# ------------------------------------------------------------------- DataFrame


class DataFrameNanStats:
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
        keep, cols = [], []
        for i in range(df.shape[1]):
            s = df.iloc[:, i]
            name = df.columns[i]
            if numeric_only and not is_numeric_column(s.dtype) and not (
                    number_objects and _holds_numbers(s)):
                continue
            try:
                cols.append(column_arrays(s, name))
            except TypeError as err:
                raise TypeError(str(err)) from None
            keep.append(i)
        return df.columns[keep], cols

    def _stat(
        self, stat: str, axis: Any, numeric_only: bool, nan_policy: Any, **kw: Any
    ) -> pd.Series | pd.DataFrame:
        axis = _axis_number(axis)
        policy = resolve_policy(nan_policy)
        if axis == 1:
            return self._stat_rows(stat, numeric_only, policy, **kw)
        names, cols = self._columns(numeric_only)
        index = self._obj.index
        arrays = []
        for name, col in zip(names, cols, strict=True):
            values, miss, empty = column_stat(col, name, index, stat, policy, **kw)
            if values.ndim == 0:
                values = values.reshape(1)
                miss = None if miss is None else np.asarray(miss).reshape(1)
                empty = None if empty is None else np.asarray(empty).reshape(1)
            arrays.append(to_pandas_array(values, miss, col, empty))
        if stat == "quantile" and _q_is_list(kw.get("q")):
            qidx = _q_index(kw["q"])
            out = pd.DataFrame({j: a for j, a in enumerate(arrays)}, index=qidx)
            out.columns = names
            return out
        name = kw["q"] if stat == "quantile" else None
        return _combine(arrays, names, name=name)

    def _stat_rows(self, stat: str, numeric_only: bool, policy: NanPolicy, **kw: Any):
        """axis=1: one 2-D block of the columns' common dtype, reduced along rows."""
        df = self._obj
        names, cols = self._columns(numeric_only)
        index = df.index
        if not cols:
            return pd.Series(np.full(len(index), np.nan), index=index)
        dts = [c.values.dtype for c in cols]
        common = np.result_type(*dts) if all(d.kind != "O" for d in dts) else np.dtype(object)
        block = np.empty((len(index), len(cols)), dtype=common)
        for j, c in enumerate(cols):
            block[:, j] = c.values
        masks = [c.missing for c in cols]
        missing = None
        if any(m is not None for m in masks):
            missing = np.zeros(block.shape, bool)
            for j, m in enumerate(masks):
                if m is not None:
                    missing[:, j] = m
        host = "masked" if any(c.host in ("masked", "arrow") for c in cols) else "numpy"
        col = Column(block, missing, host, common)
        try:
            if stat in ("mean", "var", "std", "sum", "count"):
                values, miss = _core_moment(col, stat, policy, kw.get("ddof", 1), axis=1)
            elif stat == "quantile":
                values, miss = _core_order(col, stat, policy, q=kw["q"],
                                           method=kw.get("method", "linear"), axis=1)
            else:
                values, miss = _core_order(col, stat, policy, axis=1)
        except NaNError as err:
            pos = err.position
            cname = names[int(pos[1])] if pos is not None and len(pos) > 1 else None
            raise relabel(err, cname, index) from None
        except TypeError as err:
            raise TypeError(f"row-wise {stat}: {err}") from None
        empty = None
        if host == "masked" and stat not in ("sum", "count"):
            empty = _left_count(col, policy, axis=1) == 0
        if stat == "quantile" and _q_is_list(kw.get("q")):
            rows = []
            for j in range(values.shape[0]):
                rows.append(to_pandas_array(values[j], None if miss is None else miss[j], col,
                                            empty))
            out = pd.DataFrame({i: a for i, a in enumerate(rows)}, index=index).T
            out.index = _q_index(kw["q"])
            return out
        arr = to_pandas_array(values, miss, col, empty)
        return pd.Series(arr, index=index, name=kw["q"] if stat == "quantile" else None)

    # -- order statistics
    def median(
        self, axis: Any = 0, numeric_only: bool = False, *, nan_policy: str | None = None
    ) -> pd.Series:
        """Median of each column (``axis=0``) or row (``axis=1``), as ``DataFrame.median``.

        Examples
        --------
        >>> import numpy as np, pandas as pd, nanaccess  # noqa: F401
        >>> df = pd.DataFrame({"a": [1.0, 2.0, np.nan], "b": [1.0, 5.0, 9.0]})
        >>> df.nanstats.median(nan_policy="propagate")
        a    NaN
        b    5.0
        dtype: float64
        >>> df.nanstats.median(axis=1, nan_policy="omit")
        0    1.0
        1    3.5
        2    9.0
        dtype: float64
        """
        return self._stat("median", axis, numeric_only, nan_policy)

    def median_low(
        self, axis: Any = 0, numeric_only: bool = False, *, nan_policy: str | None = None
    ) -> pd.Series:
        """Low median of each column or row.

        Examples
        --------
        >>> import pandas as pd, nanaccess  # noqa: F401
        >>> pd.DataFrame({"a": [1, 2, 3, 4]}).nanstats.median_low()
        a    2
        dtype: int64
        """
        return self._stat("median_low", axis, numeric_only, nan_policy)

    def median_high(
        self, axis: Any = 0, numeric_only: bool = False, *, nan_policy: str | None = None
    ) -> pd.Series:
        """High median of each column or row.

        Examples
        --------
        >>> import pandas as pd, nanaccess  # noqa: F401
        >>> pd.DataFrame({"a": [1, 2, 3, 4]}).nanstats.median_high()
        a    3
        dtype: int64
        """
        return self._stat("median_high", axis, numeric_only, nan_policy)

    def quantile(
        self,
        q: float | Sequence[float] = 0.5,
        axis: Any = 0,
        numeric_only: bool = False,
        *,
        method: str = "linear",
        nan_policy: str | None = None,
    ) -> pd.Series | pd.DataFrame:
        """Quantiles as ``DataFrame.quantile``: a Series named q, or a DataFrame indexed by q.

        Examples
        --------
        >>> import numpy as np, pandas as pd, nanaccess  # noqa: F401
        >>> df = pd.DataFrame({"a": [1.0, 2.0, np.nan, 4.0], "b": [1.0, 2.0, 3.0, 4.0]})
        >>> df.nanstats.quantile([0.5, 1.0], nan_policy="omit")
               a    b
        0.5  2.0  2.5
        1.0  4.0  4.0
        """
        return self._stat("quantile", axis, numeric_only, nan_policy, q=q, method=method)

    def min(
        self, axis: Any = 0, numeric_only: bool = False, *, nan_policy: str | None = None
    ) -> pd.Series:
        """Smallest value of each column or row.

        Examples
        --------
        >>> import numpy as np, pandas as pd, nanaccess  # noqa: F401
        >>> pd.DataFrame({"a": [2.0, np.nan, 1.0]}).nanstats.min(nan_policy="omit")
        a    1.0
        dtype: float64
        """
        return self._stat("min", axis, numeric_only, nan_policy)

    def max(
        self, axis: Any = 0, numeric_only: bool = False, *, nan_policy: str | None = None
    ) -> pd.Series:
        """Largest value of each column or row.

        Examples
        --------
        >>> import numpy as np, pandas as pd, nanaccess  # noqa: F401
        >>> pd.DataFrame({"a": [2.0, np.nan, 1.0]}).nanstats.max(nan_policy="omit")
        a    2.0
        dtype: float64
        """
        return self._stat("max", axis, numeric_only, nan_policy)

    def _arg(self, stat: str, axis: Any, numeric_only: bool, nan_policy: Any) -> pd.Series:
        axis = _axis_number(axis)
        df = self._obj if axis == 0 else self._obj.T
        if axis == 1:
            return DataFrameNanStats(df)._arg(stat, 0, numeric_only, nan_policy)
        names, _ = self._columns(numeric_only)
        labels = []
        for i, name in enumerate(names):
            s = df[name] if df.columns.is_unique else df.iloc[:, i]
            labels.append(SeriesNanStats(s)._arg(stat, nan_policy))
        return pd.Series(labels, index=names, dtype=df.index.dtype if labels else object)

    def argmin(
        self, axis: Any = 0, numeric_only: bool = False, *, nan_policy: str | None = None
    ) -> pd.Series:
        """Index label of each column's minimum (as ``DataFrame.idxmin``).

        Examples
        --------
        >>> import numpy as np, pandas as pd, nanaccess  # noqa: F401
        >>> df = pd.DataFrame({"a": [2.0, np.nan, 1.0]}, index=list("xyz"))
        >>> df.nanstats.argmin(nan_policy="omit")
        a    z
        dtype: str
        """
        return self._arg("argmin", axis, numeric_only, nan_policy)

    def argmax(
        self, axis: Any = 0, numeric_only: bool = False, *, nan_policy: str | None = None
    ) -> pd.Series:
        """Index label of each column's maximum (as ``DataFrame.idxmax``).

        Examples
        --------
        >>> import numpy as np, pandas as pd, nanaccess  # noqa: F401
        >>> df = pd.DataFrame({"a": [2.0, np.nan, 1.0]}, index=list("xyz"))
        >>> df.nanstats.argmax(nan_policy="omit")
        a    x
        dtype: str
        """
        return self._arg("argmax", axis, numeric_only, nan_policy)

    def idxmin(
        self, axis: Any = 0, numeric_only: bool = False, *, nan_policy: str | None = None
    ) -> pd.Series:
        """Alias of :meth:`argmin`.

        Examples
        --------
        >>> import pandas as pd, nanaccess  # noqa: F401
        >>> pd.DataFrame({"a": [2.0, 1.0]}).nanstats.idxmin()
        a    1
        dtype: int64
        """
        return self._arg("argmin", axis, numeric_only, nan_policy)

    def idxmax(
        self, axis: Any = 0, numeric_only: bool = False, *, nan_policy: str | None = None
    ) -> pd.Series:
        """Alias of :meth:`argmax`.

        Examples
        --------
        >>> import pandas as pd, nanaccess  # noqa: F401
        >>> pd.DataFrame({"a": [2.0, 1.0]}).nanstats.idxmax()
        a    0
        dtype: int64
        """
        return self._arg("argmax", axis, numeric_only, nan_policy)

    # -- moments
    def mean(
        self, axis: Any = 0, numeric_only: bool = False, *, nan_policy: str | None = None
    ) -> pd.Series:
        """Correctly rounded mean of each column or row.

        Examples
        --------
        >>> import numpy as np, pandas as pd, nanaccess  # noqa: F401
        >>> pd.DataFrame({"a": [1.0, np.nan, 2.0]}).nanstats.mean(nan_policy="omit")
        a    1.5
        dtype: float64
        """
        return self._stat("mean", axis, numeric_only, nan_policy)

    def var(
        self,
        axis: Any = 0,
        ddof: float = 1,
        numeric_only: bool = False,
        *,
        nan_policy: str | None = None,
    ) -> pd.Series:
        """Variance of each column or row (``ddof=1`` as pandas).

        Examples
        --------
        >>> import numpy as np, pandas as pd, nanaccess  # noqa: F401
        >>> pd.DataFrame({"a": [1.0, np.nan, 3.0]}).nanstats.var(nan_policy="omit")
        a    2.0
        dtype: float64
        """
        return self._stat("var", axis, numeric_only, nan_policy, ddof=ddof)

    def std(
        self,
        axis: Any = 0,
        ddof: float = 1,
        numeric_only: bool = False,
        *,
        nan_policy: str | None = None,
    ) -> pd.Series:
        """Standard deviation of each column or row (``ddof=1`` as pandas).

        Examples
        --------
        >>> import numpy as np, pandas as pd, nanaccess  # noqa: F401
        >>> pd.DataFrame({"a": [1.0, np.nan, 3.0]}).nanstats.std(ddof=0, nan_policy="omit")
        a    1.0
        dtype: float64
        """
        return self._stat("std", axis, numeric_only, nan_policy, ddof=ddof)

    def sum(
        self, axis: Any = 0, numeric_only: bool = False, *, nan_policy: str | None = None
    ) -> pd.Series:
        """Correctly rounded sum of each column or row.

        Examples
        --------
        >>> import numpy as np, pandas as pd, nanaccess  # noqa: F401
        >>> pd.DataFrame({"a": [1.0, np.nan, 2.0]}).nanstats.sum(nan_policy="propagate")
        a   NaN
        dtype: float64
        """
        return self._stat("sum", axis, numeric_only, nan_policy)

    def count(self, axis: Any = 0, numeric_only: bool = False) -> pd.Series:
        """Numbers (neither NaN nor missing) in each column.

        Examples
        --------
        >>> import numpy as np, pandas as pd, nanaccess  # noqa: F401
        >>> pd.DataFrame({"a": [1.0, np.nan, 2.0]}).nanstats.count()
        a    2
        dtype: int64
        """
        if _axis_number(axis) == 1:
            return DataFrameNanStats(self._obj.T).count(0, numeric_only)
        names, cols = self._columns(numeric_only)
        return pd.Series([int(_report(c)["numbers"]) for c in cols], index=names,
                         dtype=np.int64)

    # -- reports
    def describe(
        self, percentiles: Sequence[float] | None = None, *, nan_policy: str | None = None
    ) -> pd.DataFrame:
        """Summary of the numeric columns as ``DataFrame.describe``, with NaN counts.

        Object columns that hold numbers (Decimal, Fraction, huge ints) are described
        too; other object and string columns are left out, as pandas does.

        Examples
        --------
        >>> import numpy as np, pandas as pd, nanaccess  # noqa: F401
        >>> df = pd.DataFrame({"a": [1.0, np.nan, 3.0], "s": list("xyz")})
        >>> df.nanstats.describe(nan_policy="omit").loc[["count", "nan", "mean"]]
                   a
        count    2.0
        nan      1.0
        mean     2.0
        """
        policy = resolve_policy(nan_policy)
        # numeric columns, and object columns holding numbers (Decimal, huge ints):
        # those are data to nanaccess, so their NaNs follow the policy
        names, cols = self._columns(numeric_only=True, number_objects=True)
        if not cols:
            raise TypeError("describe needs at least one numeric column")
        index = self._obj.index
        parts = [_describe_column(c, n, index, policy, percentiles) for n, c in zip(
            names, cols, strict=True)]
        out = pd.DataFrame({j: p.to_numpy() for j, p in enumerate(parts)}, index=parts[0].index)
        out.columns = names
        return out

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
        from ..core.classify import REPORT_KEYS

        names, cols = self._columns(numeric_only=False)
        rows = [_report(c) for c in cols]
        return pd.DataFrame(
            [[r[k] for k in REPORT_KEYS] for r in rows], index=names, columns=list(REPORT_KEYS),
            dtype=np.int64,
        )

    # -- grouping / plotting
    def groupby(self, by: Any = None, **kwargs: Any) -> Any:
        """Group the DataFrame (as ``DataFrame.groupby``) for NaN-explicit statistics.

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
        from .groupby import NanGroupBy

        return NanGroupBy(self._obj.groupby(by, **kwargs))

    def plot_nan_map(self, ax: Any = None) -> Any:
        """Draw where the NaNs and missing values sit (:func:`nanaccess.plotting.plot_nan_map`).

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> import numpy as np, pandas as pd, nanaccess  # noqa: F401
        >>> ax = pd.DataFrame({"a": [1.0, np.nan]}).nanstats.plot_nan_map()
        """
        from ..plotting import plot_nan_map

        return plot_nan_map(self._obj, ax=ax)


def _axis_number(axis: Any) -> int:
    if axis in (0, "index", "rows", None):
        return 0
    if axis in (1, "columns"):
        return 1
    raise ValueError(f"No axis named {axis!r} for object type DataFrame")
