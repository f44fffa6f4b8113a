"""The public sorts: ``sort``, ``argsort`` and ``rank`` in the policy's order (dask
arrays: one lazy task each); re-exported by :mod:`nanaccess.api` and the package."""

from __future__ import annotations

from typing import Any, cast

import numpy as np

from ._boundary import host_of, labelled_errors, split_host
from .core import sorting as _sorting
from .typing import NanPolicyArg

__all__ = ["sort", "argsort", "rank"]


def _dask_sort(fn: Any, data: Any, dtype: Any, *, keeps_length: bool = False,
               **kw: Any) -> Any:
    """A sort of a dask array: one lazy task (:mod:`nanaccess.dask.sorting`)."""
    from .dask.sorting import lazy_sort  # the dask host, on demand

    return lazy_sort(fn, data, dtype, keeps_length=keeps_length, **kw)


def _sort_args(data: Any) -> tuple[Any, np.ndarray | None, Any]:
    """``(data, missing, host)`` of a sort's input: a masked array's mask, or a pandas
    nullable / Arrow column's missing slots (:func:`nanaccess._boundary.split_host`),
    are missing entries (the policy's rule for them lives in
    :func:`nanaccess.core.sorting.sort_policy`); ``host`` is the pandas array a sort
    result is rebuilt as (``pd.NA`` kept), None otherwise."""
    if isinstance(data, np.ma.MaskedArray):
        mask = np.ma.getmaskarray(data)
        return data, (mask if mask.any() else None), None
    split = split_host(data)
    if split is None:
        return data, None, None
    values, missing = split
    if missing is None or not missing.any():
        return values, None, None
    return values, missing, getattr(data, "array", data)


def sort(data: Any, *, axis: int | None = -1, nan_policy: NanPolicyArg = None) -> np.ndarray:
    """A sorted copy of ``data``, every bit kept (NaN payloads, signed zeros).

    ``nan_policy`` defaults to "largest": every NaN after every number (where NumPy,
    pandas and polars put them, whatever sign the CPU gave a NaN made by arithmetic),
    the NaNs among themselves in totalOrder (-NaN before +NaN, then by payload).
    "smallest" puts NaNs first, "totalorder" is IEEE 754 totalOrder (-NaN first, +NaN
    last: for when the sign of a NaN should count), "omit" drops them (1-D only),
    "raise" raises, "propagate" is a ``ValueError``. Signaling NaNs raise except under
    "totalorder". Object data (Decimal, Fraction, huge ints, mixtures) is ordered
    exactly.

    Parameters
    ----------
    data : array_like
        A NumPy (or masked: masked entries are missing) array, or anything
        :func:`numpy.asarray` takes; object data (Decimal, Fraction, huge ints,
        mixtures) is ordered exactly.
    axis : int or None, default -1
        Axis to sort along; None sorts the flattened data.
    nan_policy : {"largest", "smallest", "totalorder", "omit", "raise", "propagate"}, optional
        Where NaNs go; None means "largest" (a sort must place every value, so the
        ``nan_policy`` option does not govern it).

    Returns
    -------
    numpy.ndarray
        The sorted values, the dtype and every bit of each element kept (shorter
        under "omit").

    Examples
    --------
    >>> import nanaccess as na
    >>> na.sort(np.array([1.0, np.nan, -0.0, 0.0, -np.nan]))
    array([-0.,  0.,  1., nan, nan])
    >>> na.sort(np.array([1.0, np.nan, -0.0, 0.0, -np.nan]), nan_policy="totalorder")
    array([nan, -0.,  0.,  1., nan])
    >>> na.sort(np.array([2.0, np.nan, 1.0]), nan_policy="omit")
    array([1., 2.])
    """
    if host_of(data) == "dask":
        return cast("np.ndarray",
               _dask_sort(_sorting.sort, data, data.dtype, axis=axis, nan_policy=nan_policy))
    values, missing, host = _sort_args(data)
    with labelled_errors(data):
        if host is not None:  # the host's own array type, missing slots last
            return cast("np.ndarray",
                   host.take(_sorting.argsort(values, axis=axis, nan_policy=nan_policy,
                                              missing=missing)))
        return cast("np.ndarray",
               _sorting.sort(values, axis=axis, nan_policy=nan_policy, missing=missing))


def argsort(data: Any, *, axis: int | None = -1, nan_policy: NanPolicyArg = None) -> np.ndarray:
    """Indices that sort ``data`` under ``nan_policy`` (default "largest"), stably.

    Parameters
    ----------
    data, axis, nan_policy
        As :func:`sort`.

    Returns
    -------
    numpy.ndarray of intp
        Indices along ``axis`` that sort the data (ties keep their order).

    Examples
    --------
    >>> import nanaccess as na
    >>> na.argsort(np.array([0.0, np.nan, -0.0, -np.inf]))
    array([3, 2, 0, 1])
    >>> with np.errstate(invalid="ignore"):  # 0/0: a negative NaN on x86
    ...     x = np.array([2.0, np.float64(0) / 0, 1.0])
    >>> na.argsort(x)  # NaNs last whatever their sign
    array([2, 0, 1])
    """
    if host_of(data) == "dask":
        return cast("np.ndarray",
               _dask_sort(_sorting.argsort, data, np.intp, axis=axis, nan_policy=nan_policy))
    values, missing, _ = _sort_args(data)
    with labelled_errors(data):
        return cast("np.ndarray",
               _sorting.argsort(values, axis=axis, nan_policy=nan_policy, missing=missing))


def rank(data: Any, *, axis: int = -1, method: str = "average", nan_policy: NanPolicyArg = None,
         ascending: bool = True, pct: bool = False) -> np.ndarray:
    """Ranks (1-based, float64) as pandas' ``rank(method=...)``, on totalOrder keys.

    The default "omit" gives NaNs and missing values a NaN rank (pandas'
    ``na_option="keep"``); "smallest" and "largest" rank them first / last;
    "totalorder" ranks NaNs by sign and payload (-NaN first). -0.0 ranks below +0.0.

    Parameters
    ----------
    data : array_like
        A NumPy (or masked) array or anything :func:`numpy.asarray` takes.
    axis : int, default -1
        Axis to rank along.
    method : {"average", "min", "max", "first", "dense"}, default "average"
        How ties are ranked, as pandas' ``rank(method=...)``.
    nan_policy : {"omit", "smallest", "largest", "totalorder", "raise", "propagate"}, optional
        How NaNs are ranked; None means "omit" (not governed by the ``nan_policy``
        option).
    ascending : bool, default True
        Rank from the smallest (True) or the largest.
    pct : bool, default False
        Ranks as fractions of the number of ranked values, as pandas.

    Returns
    -------
    numpy.ndarray of float64
        Ranks of ``data``'s shape (NaN where a value has no rank under "omit").

    Examples
    --------
    >>> import nanaccess as na
    >>> na.rank(np.array([3.0, np.nan, 1.0, 3.0]))
    array([2.5, nan, 1. , 2.5])
    >>> na.rank(np.array([3.0, np.nan, 1.0, 3.0]), nan_policy="largest")
    array([2.5, 4. , 1. , 2.5])
    >>> na.rank(np.array([0.0, -0.0]))
    array([2., 1.])
    """
    if method not in _sorting.RANK_METHODS:
        raise ValueError(f"unknown rank method {method!r}; expected one of "
                         f"{_sorting.RANK_METHODS}")
    if host_of(data) == "dask":
        return cast("np.ndarray",
               _dask_sort(_sorting.rank, data, np.float64, keeps_length=True, axis=axis,
                          nan_policy=nan_policy, method=method, ascending=ascending, pct=pct))
    values, missing, _ = _sort_args(data)
    with labelled_errors(data):
        return _sorting.rank(values, axis=axis, method=method, nan_policy=nan_policy,
                             ascending=ascending, pct=pct, missing=missing)


# ------------------------------------------------------------------ order statistics
