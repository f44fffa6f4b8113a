"""The public functions: one entry per statistic, dispatching on the kind of input.

Lists and other iterables follow the :mod:`statistics` module (Python results,
``StatisticsError`` on empty data); NumPy arrays go to the core; pandas and xarray
objects to their ``.nanstats`` accessors; dask arrays to the lazy exact path.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np

from .core import sorting as _sorting
from .core.floatlist import float_list_array
from .core.moments import moment_stat
from .core.select import order_stat
from .errors import NaNError
from .options import NanPolicy, resolve_policy

__all__ = [
    "median",
    "median_low",
    "median_high",
    "quantile",
    "quantiles",
    "min",
    "max",
    "argmin",
    "argmax",
    "mean",
    "var",
    "std",
    "sum",
    "sort",
    "argsort",
    "rank",
]

Axis = int | Sequence[int] | None
_EMPTY_MSG = {
    "mean": "mean requires at least one data point",
    "var": "variance requires at least one data point",
    "std": "standard deviation requires at least one data point",
    "sum": None,
}


# ----------------------------------------------------------------------- dispatching


def _host(data: Any) -> str:
    mod = type(data).__module__.split(".")[0]
    if mod == "dask" and hasattr(data, "dask"):
        return "dask"
    if mod == "xarray":
        return "xarray"
    if mod == "pandas" and hasattr(data, "nanstats"):
        return "pandas"
    if isinstance(data, np.ma.MaskedArray):
        return "masked"
    if isinstance(data, np.ndarray | np.generic) or hasattr(data, "__array__"):
        return "array"
    if isinstance(data, str | bytes):
        raise TypeError(f"expected numeric data, got {type(data).__name__}")
    if isinstance(data, Iterable):
        return "iterable"
    return "scalar"


def _accessor_call(data: Any, name: str, axis: Axis, kwargs: dict) -> Any:
    host = _host(data)
    acc = data.nanstats
    if axis is not None:
        if host == "xarray":
            axes = (axis,) if np.ndim(axis) == 0 else tuple(axis)
            kwargs["dim"] = [data.dims[a] for a in axes]
        else:
            kwargs["axis"] = axis
    return getattr(acc, name)(**kwargs)


def _scalarize(v: np.ndarray) -> Any:
    return v[()] if isinstance(v, np.ndarray) and v.ndim == 0 else v


def _as_list(data: Any) -> list:
    """The iterable's elements, without copying a list (which is never modified)."""
    return data if type(data) is list else list(data)


def _order(stat: str, data: Any, *, axis: Axis, nan_policy, keepdims: bool = False,
           **kw: Any) -> Any:
    host = _host(data)
    if host in ("pandas", "xarray"):
        return _accessor_call(data, stat, axis, {"nan_policy": nan_policy, **kw})
    policy = resolve_policy(nan_policy)
    if host == "dask":
        from .dask.array import dask_order_stat

        return dask_order_stat(data, stat, axis=axis, policy=policy, keepdims=keepdims, **kw)
    if host == "iterable":
        if axis is not None:
            raise TypeError("axis applies to arrays; got a plain iterable")
        return _iterable_order(stat, _as_list(data), policy, **kw)
    missing = None
    if host == "masked":
        missing, data = np.ma.getmaskarray(data), np.ma.getdata(data)
    values, _ = order_stat(np.asarray(data), stat, axis=axis, policy=policy, missing=missing,
                           keepdims=keepdims, **kw)
    return _scalarize(values)


def _iterable_order(stat: str, vals: list, policy: NanPolicy, **kw: Any) -> Any:
    """statistics-module behaviour for plain iterables."""
    arr = float_list_array(vals) if stat != "quantiles" else None
    if arr is not None:
        values, _ = order_stat(arr, stat, policy=policy, **kw)
        # a NaN result under "omit" may mean nothing was left: statistics raises then
        if policy is NanPolicy.OMIT and np.isnan(values).any() and np.isnan(arr).all():
            raise statistics.StatisticsError(f"no {stat} for empty data")
        if values.ndim:
            return values.tolist()
        return values.item()
    if not vals and stat != "quantiles":
        raise statistics.StatisticsError(f"no {stat} for empty data")
    from .core.objects import object_order_stat

    out = object_order_stat(vals, stat, policy=policy, statistics_compat=True, **kw)
    if out is None and stat in ("argmin", "argmax"):
        # decision 6: an arg statistic never points at a missing value (as the array
        # path): missing values have no place in the order, so they are passed over
        return object_order_stat(vals, stat, policy=NanPolicy.OMIT, statistics_compat=True,
                                 **kw)
    return out


def _moment(stat: str, data: Any, *, axis: Axis, nan_policy, ddof: float = 0,
            keepdims: bool = False) -> Any:
    host = _host(data)
    kw: dict[str, Any] = {"nan_policy": nan_policy}
    if stat in ("var", "std"):
        kw["ddof"] = ddof
    if host in ("pandas", "xarray"):
        return _accessor_call(data, stat, axis, kw)
    policy = resolve_policy(nan_policy)
    if host == "dask":
        from .dask.array import dask_moment_stat

        return dask_moment_stat(data, stat, axis=axis, ddof=ddof, policy=policy,
                                keepdims=keepdims)
    if host == "iterable":
        if axis is not None:
            raise TypeError("axis applies to arrays; got a plain iterable")
        vals = _as_list(data)
        arr = float_list_array(vals)
        if arr is not None:
            if policy is NanPolicy.OMIT and np.isnan(arr).all() and stat != "sum":
                raise statistics.StatisticsError(_EMPTY_MSG[stat])
            return moment_stat(arr, stat, ddof=ddof, policy=policy)[0].item()
        if not vals:
            if stat == "sum":
                return 0
            raise statistics.StatisticsError(_EMPTY_MSG[stat])
        from .core.objects import object_moment_stat

        return object_moment_stat(vals, stat, ddof=ddof, policy=policy, statistics_compat=True)
    missing = None
    if host == "masked":
        missing, data = np.ma.getmaskarray(data), np.ma.getdata(data)
    values, _ = moment_stat(np.asarray(data), stat, axis=axis, ddof=ddof, policy=policy,
                            missing=missing, keepdims=keepdims)
    return _scalarize(values)


@contextmanager
def _labelled_errors(data: Any) -> Iterator[None]:
    """Restate core errors on a pandas Series with its index label."""
    try:
        yield
    except NaNError as err:
        index = getattr(data, "index", None)
        ndim = getattr(data, "ndim", 0)
        if index is None or err.position is None or ndim not in (1, 2):
            raise
        from .pandas.accessor import fmt_label

        pos = err.position
        if ndim == 2:  # a DataFrame read row-major (np.asarray(df).ravel())
            flat = int(np.ravel_multi_index(pos, data.shape) if len(pos) == 2 else pos[0])
            row, col = divmod(flat, data.shape[1])
            subject = f"column {fmt_label(data.columns[col])}"
        else:
            row = int(pos[0] if isinstance(pos, tuple) else pos)
            name = getattr(data, "name", None)
            subject = "data" if name is None else f"column {fmt_label(name)}"
        raise err.relabel(subject, f"index {fmt_label(index[row])}") from None


def _check_masked_sort(data: Any, nan_policy: Any) -> None:
    """A masked entry is missing: "raise" says so (sorts have no mask of their own)."""
    if not isinstance(data, np.ma.MaskedArray):
        return
    mask = np.ma.getmaskarray(data)
    if not mask.any():
        return
    policy = resolve_policy(NanPolicy.TOTALORDER if nan_policy is None else nan_policy)
    if policy is NanPolicy.RAISE:
        first = tuple(int(i) for i in np.unravel_index(int(np.argmax(mask)), mask.shape))
        raise NaNError(count=int(mask.sum()), kind="missing", position=first)


def sort(data: Any, *, axis: int | None = -1, nan_policy: str | None = None) -> np.ndarray:
    """A sorted copy of ``data``, every bit kept (NaN payloads, signed zeros).

    ``nan_policy`` defaults to "totalorder"; "smallest"/"largest" put NaNs first/last,
    "omit" drops them (1-D only), "raise" raises, "propagate" is a ``ValueError``.
    Object data (Decimal, Fraction, huge ints, mixtures) is ordered exactly.

    Examples
    --------
    >>> import nanaccess as na
    >>> na.sort(np.array([1.0, np.nan, -0.0, 0.0, -np.nan]))
    array([nan, -0.,  0.,  1., nan])
    >>> na.sort(np.array([2.0, np.nan, 1.0]), nan_policy="omit")
    array([1., 2.])
    """
    _check_masked_sort(data, nan_policy)
    with _labelled_errors(data):
        return _sorting.sort(data, axis=axis, nan_policy=nan_policy)


def argsort(data: Any, *, axis: int | None = -1, nan_policy: str | None = None) -> np.ndarray:
    """Indices that sort ``data`` under ``nan_policy`` (default "totalorder"), stably.

    Examples
    --------
    >>> import nanaccess as na
    >>> na.argsort(np.array([0.0, np.nan, -0.0, -np.inf]))
    array([3, 2, 0, 1])
    """
    _check_masked_sort(data, nan_policy)
    with _labelled_errors(data):
        return _sorting.argsort(data, axis=axis, nan_policy=nan_policy)


def rank(data: Any, *, axis: int = -1, method: str = "average", nan_policy: str | None = None,
         ascending: bool = True, pct: bool = False) -> np.ndarray:
    """Ranks (1-based, float64) as pandas' ``rank(method=...)``, on totalOrder keys.

    Under "omit" NaNs keep a NaN rank (pandas' ``na_option="keep"``); "smallest" and
    "largest" rank them first / last; "totalorder" ranks -0.0 below +0.0 and NaNs by
    sign and payload.

    Examples
    --------
    >>> import nanaccess as na
    >>> na.rank(np.array([3.0, np.nan, 1.0, 3.0]), nan_policy="omit")
    array([2.5, nan, 1. , 2.5])
    >>> na.rank(np.array([0.0, -0.0]))
    array([2., 1.])
    """
    _check_masked_sort(data, nan_policy)
    with _labelled_errors(data):
        return _sorting.rank(data, axis=axis, method=method, nan_policy=nan_policy,
                             ascending=ascending, pct=pct)


# ------------------------------------------------------------------ order statistics


def median(data: Any, *, axis: Axis = None, nan_policy: str | None = None,
           keepdims: bool = False) -> Any:
    """Median of ``data`` under an explicit ``nan_policy``.

    Parameters
    ----------
    data : iterable or array_like
        A list/iterable (any Python numbers: floats, ints of any size, Fraction,
        Decimal), a NumPy (or masked) array, a pandas/xarray object (delegates to its
        ``.nanstats`` accessor) or a dask array (lazy, exact).
    axis : None, int or tuple of ints
        Axes to reduce (arrays only). None reduces all.
    nan_policy : {"raise", "propagate", "omit", "smallest", "largest", "totalorder"}
        What NaNs mean; default from :func:`nanaccess.get_options` ("raise").
    keepdims : bool
        Keep reduced axes with length one (arrays only).

    Returns
    -------
    scalar or ndarray
        Plain iterables give the same value and type as :func:`statistics.median`
        on NaN-free data.

    Raises
    ------
    NaNError
        Under "raise" when a NaN or missing value is present.
    SignalingNaNError
        For a signaling NaN under every policy but "totalorder".
    statistics.StatisticsError
        Empty iterable (or nothing left under "omit").

    Examples
    --------
    >>> import nanaccess as na
    >>> nan = float("nan")
    >>> data = [nan, 1, 2, 3, 4]
    >>> na.median(data, nan_policy="omit"), na.median(data[::-1], nan_policy="omit")
    (2.5, 2.5)
    >>> na.median([nan] * 4 + [1, 2, 3, 4, 5, 6, 7], nan_policy="smallest")  # the stored int
    2
    >>> na.median([1.7e308, 1.7e308])
    1.7e+308
    >>> na.median(np.array([[1.0, np.nan], [3.0, 4.0]]), axis=1, nan_policy="omit")
    array([1. , 3.5])
    """
    return _order("median", data, axis=axis, nan_policy=nan_policy, keepdims=keepdims)


def median_low(data: Any, *, axis: Axis = None, nan_policy: str | None = None,
               keepdims: bool = False) -> Any:
    """Low median: the smaller middle element, returned exactly as stored.

    Parameters as :func:`median`.

    Examples
    --------
    >>> import nanaccess as na
    >>> na.median_low([1, 3, 5, 7])
    3
    >>> na.median_low(np.array([4.0, np.nan, 1.0]), nan_policy="largest")
    np.float64(4.0)
    """
    return _order("median_low", data, axis=axis, nan_policy=nan_policy, keepdims=keepdims)


def median_high(data: Any, *, axis: Axis = None, nan_policy: str | None = None,
                keepdims: bool = False) -> Any:
    """High median: the larger middle element, returned exactly as stored.

    Parameters as :func:`median`.

    Examples
    --------
    >>> import nanaccess as na
    >>> na.median_high([1, 3, 5, 7])
    5
    """
    return _order("median_high", data, axis=axis, nan_policy=nan_policy, keepdims=keepdims)


def quantile(data: Any, q: Any, *, axis: Axis = None, method: str = "linear",
             nan_policy: str | None = None, keepdims: bool = False) -> Any:
    """Quantile(s) ``q`` in [0, 1], with NumPy's methods.

    Parameters
    ----------
    data : iterable or array_like
        As :func:`median`.
    q : float or sequence of floats
        For arrays a sequence puts its dimensions first, as :func:`numpy.quantile`;
        for iterables it gives a list.
    method : {"linear", "lower", "higher", "nearest", "midpoint", "inclusive", "exclusive"}
        As :func:`numpy.quantile` ("inclusive" = "linear", "exclusive" = "weibull").
        A weight of exactly zero is a pick: the quantile of ``[1, 2, inf]`` at 0.5 is 2.0.
    axis, nan_policy, keepdims
        As :func:`median`.

    Examples
    --------
    >>> import nanaccess as na
    >>> na.quantile(np.array([1.0, 2.0, np.inf]), 0.5)
    np.float64(2.0)
    >>> na.quantile(np.array([1.0, 2.0, 3.0, 4.0, np.nan]), [0.25, 0.75], nan_policy="omit")
    array([1.75, 3.25])
    """
    return _order("quantile", data, axis=axis, nan_policy=nan_policy, keepdims=keepdims, q=q,
                  method=method)


def quantiles(data: Any, *, n: int = 4, method: str = "exclusive",
              nan_policy: str | None = None) -> list:
    """Cut points dividing ``data`` into ``n`` intervals, as :func:`statistics.quantiles`.

    Examples
    --------
    >>> import nanaccess as na
    >>> na.quantiles([1, 2, 3, 4, 5, 6, 7, 8, float("nan")], n=4, nan_policy="omit")
    [2.25, 4.5, 6.75]
    """
    from .core.objects import object_order_stat

    policy = resolve_policy(nan_policy)
    host = _host(data)
    if host == "iterable":
        vals = list(data)
    else:
        missing = None
        if host == "masked":
            missing = np.ma.getmaskarray(data).ravel()
            arr = np.ma.getdata(data).ravel()
        else:
            arr = np.asarray(data).ravel()
        if arr.dtype.kind == "f" or missing is not None:
            # the policy's checks on the bits: a conversion to Python floats would
            # quiet float16/float32 signaling NaNs
            with _labelled_errors(data):
                if arr.size:
                    order_stat(arr, "min", policy=policy, missing=missing)
        vals = arr.tolist()
        if missing is not None and missing.any():
            vals = [None if m else v for v, m in zip(vals, missing.tolist(), strict=True)]
    with _labelled_errors(data):
        return object_order_stat(vals, "quantiles", n=n, method=method, policy=policy,
                                 statistics_compat=True)


def min(data: Any, *, axis: Axis = None, nan_policy: str | None = None,
        keepdims: bool = False) -> Any:  # noqa: A001 - numpy's name
    """Smallest value under the policy's order (-0.0 below +0.0), exactly as stored.

    Examples
    --------
    >>> import nanaccess as na
    >>> na.min([0.0, -0.0, 3.0])
    -0.0
    >>> na.min(np.array([2.0, np.nan]), nan_policy="smallest")
    np.float64(nan)
    """
    return _order("min", data, axis=axis, nan_policy=nan_policy, keepdims=keepdims)


def max(data: Any, *, axis: Axis = None, nan_policy: str | None = None,
        keepdims: bool = False) -> Any:  # noqa: A001 - numpy's name
    """Largest value under the policy's order, exactly as stored.

    Examples
    --------
    >>> import nanaccess as na
    >>> na.max(np.array([2.0, np.nan, 5.0]), nan_policy="omit")
    np.float64(5.0)
    """
    return _order("max", data, axis=axis, nan_policy=nan_policy, keepdims=keepdims)


def argmin(data: Any, *, axis: int | None = None, nan_policy: str | None = None) -> Any:
    """Index of the first smallest value (flat index for ``axis=None``, as NumPy).

    Examples
    --------
    >>> import nanaccess as na
    >>> na.argmin(np.array([3.0, np.nan, 1.0]), nan_policy="omit")
    np.int64(2)
    """
    return _order("argmin", data, axis=axis, nan_policy=nan_policy)


def argmax(data: Any, *, axis: int | None = None, nan_policy: str | None = None) -> Any:
    """Index of the first largest value (flat index for ``axis=None``, as NumPy).

    Examples
    --------
    >>> import nanaccess as na
    >>> na.argmax(np.array([3.0, np.nan, 1.0]), nan_policy="largest")
    np.int64(1)
    """
    return _order("argmax", data, axis=axis, nan_policy=nan_policy)


# ----------------------------------------------------------------- moment statistics


def mean(data: Any, *, axis: Axis = None, nan_policy: str | None = None,
         keepdims: bool = False) -> Any:
    """Arithmetic mean, computed from the exact sum and rounded once.

    So the result is the same for every order of the data, and equals
    :func:`statistics.mean` bit for bit on floats.

    Examples
    --------
    >>> import nanaccess as na
    >>> na.mean([1.0, float("nan"), 2.0], nan_policy="omit")
    1.5
    >>> na.mean([1e100, 1.0, -1e100])
    0.3333333333333333
    """
    return _moment("mean", data, axis=axis, nan_policy=nan_policy, keepdims=keepdims)


def var(data: Any, *, axis: Axis = None, ddof: float = 0, nan_policy: str | None = None,
        keepdims: bool = False) -> Any:
    """Variance with ``ddof`` (default 0 as NumPy/xarray), exactly rounded.

    Examples
    --------
    >>> import nanaccess as na
    >>> na.var([1.0, 2.0, 3.0, 4.0]), na.var([1.0, 2.0, 3.0, 4.0], ddof=1)
    (1.25, 1.6666666666666667)
    """
    return _moment("var", data, axis=axis, nan_policy=nan_policy, ddof=ddof, keepdims=keepdims)


def std(data: Any, *, axis: Axis = None, ddof: float = 0, nan_policy: str | None = None,
        keepdims: bool = False) -> Any:
    """Standard deviation: the square root of :func:`var`.

    Examples
    --------
    >>> import nanaccess as na
    >>> na.std(np.array([2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]))
    np.float64(2.0)
    """
    return _moment("std", data, axis=axis, nan_policy=nan_policy, ddof=ddof, keepdims=keepdims)


def sum(data: Any, *, axis: Axis = None, nan_policy: str | None = None,  # noqa: A001
        keepdims: bool = False) -> Any:
    """Exact sum rounded once (as :func:`math.fsum`); ints are exact or raise OverflowError.

    Examples
    --------
    >>> import nanaccess as na
    >>> na.sum([0.1] * 10)
    1.0
    >>> na.sum(np.array([1.0, np.nan]), nan_policy="omit")
    np.float64(1.0)
    """
    return _moment("sum", data, axis=axis, nan_policy=nan_policy, keepdims=keepdims)
