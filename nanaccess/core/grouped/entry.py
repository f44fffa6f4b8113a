"""``grouped_stat``: validate, scan, and run each column on the right engine."""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import _stats
from ...options import NanPolicy, resolve_policy
from .. import _numba
from ..interp import METHODS
from .common import Rescan, scan, widen
from .moments import certified_columns, moment_column
from .objects import object_columns
from .order import defer_scan, order_column
from .slabs import SLAB_MIN_COLS, order_slabs, slab_batches

__all__ = ["grouped_stat"]

ORDER_STATS = _stats.ORDER
MOMENT_STATS = _stats.names("moment", "count")


def grouped_stat(
    x: Any,
    codes: Any,
    ngroups: int,
    stat: str,
    *,
    q: Any = None,
    method: str = "linear",
    ddof: float = 0,
    policy: NanPolicy | str | None = None,
    missing: Any = None,
    engine: str | None = None,
    counts_out: list[Any] | None = None,
    holes_out: list[Any] | None = None,
) -> tuple[np.ndarray, np.ndarray | None]:
    """A statistic of every group, vectorised over groups (one sort, no group loop).

    ``counts_out``: a list that receives, for a moment statistic, each column's
    per-group counts of the values taken (the engine has them; ``grouped_reduce``
    need not count again). ``holes_out``: a list that receives the holes (see
    Notes), the picks then keeping their int / bool dtype.

    Parameters
    ----------
    x : numpy.ndarray
        ``(n,)`` or ``(n, ncols)``: float16/32/64, int/uint, bool, datetime64 /
        timedelta64 (NaT is missing) or object (exact Python-object path, slower).
    codes : array_like of int
        ``(n,)`` group code of each row in ``[0, ngroups)``, or -1 for no group.
    ngroups : int
        Number of groups (groups without rows give the canonical NaN).
    stat : str
        One of median, median_low, median_high, quantile, min, max, mean, var, std,
        sum, count.
    q : float or sequence of float, optional
        Quantile(s) in [0, 1] for ``stat="quantile"``; an array adds a leading axis.
    method : str
        linear (= inclusive), lower, higher, nearest, midpoint, exclusive (= weibull).
    ddof : float
        Delta degrees of freedom for var/std (fractional values are used exactly).
    policy : str or NanPolicy, optional
        The ``nan_policy`` (None: the current default).
    missing : numpy.ndarray of bool, optional
        Shape of ``x``: entries that are missing (their bits are ignored).
    engine : {None, "auto", "numpy", "numba"}
        Order-statistic engine; None reads the ``engine`` option ("auto": numba for
        large inputs when installed; see :func:`nanaccess.core._numba.choose_engine`).

    Returns
    -------
    values : numpy.ndarray
        ``(ngroups,)`` or ``(ngroups, ncols)``, with a leading q axis for array ``q``.
    missing : numpy.ndarray of bool or None
        Same shape; True where the result is the host's missing value.

    Raises
    ------
    NaNError, SignalingNaNError
        With ``.position`` ((row,) or (row, col)), ``.group`` (code) and ``.count``
        (the offending values of that group and column).
    TypeError
        Complex, string or other non-numeric data.

    Notes
    -----
    As :mod:`nanaccess.core.select`: "raise" raises (NaN before missing), signaling
    NaNs raise under every policy but "totalorder". "propagate" gives the group's
    greatest NaN under totalOrder (exact bits), else missing when the group holds a
    missing value; "smallest"/"largest"/"totalorder" sort missing values after
    everything. An empty group gives the canonical NaN (``sum``: 0, ``count``: 0).
    Picked values keep the input dtype; interpolated int results are float64;
    datetime64 / timedelta64 keep their unit (NaT where missing or empty). ``count``
    is int64. Int and bool picks have no NaN for a group with no value (or a missing
    one): the engine marks those results, its *holes* (they hold 0), and without
    ``holes_out`` the picks are returned as NumPy hosts hold them (float64, NaN in
    the holes: :func:`nanaccess.core.grouped.common.widen`).

    Examples
    --------
    >>> import numpy as np
    >>> from nanaccess.core.grouped import grouped_stat
    >>> x = np.array([1.0, 5.0, np.nan, 2.0, 4.0, 3.0])
    >>> codes = np.array([0, 1, 0, 0, 1, 1])
    >>> grouped_stat(x, codes, 2, "median", policy="omit")[0]
    array([1.5, 4. ])
    >>> grouped_stat(x, codes, 2, "quantile", q=[0.0, 1.0], policy="omit")[0]
    array([[1., 3.],
           [2., 5.]])
    >>> grouped_stat(x, codes, 2, "sum", policy="propagate")[0]
    array([nan, 12.])
    >>> grouped_stat(x, codes, 2, "max", policy="raise")
    Traceback (most recent call last):
    ...
    nanaccess.errors.NaNError: group 0 holds 1 NaN value (first at position 2); ...
    """
    policy = resolve_policy(policy)
    if stat not in ORDER_STATS and stat not in MOMENT_STATS:
        valid = ", ".join(ORDER_STATS + MOMENT_STATS)
        raise ValueError(f"unknown grouped statistic {stat!r}; expected one of {valid}")
    _numba.choose_engine(engine)  # validates (and needs numba when asked for)
    x = np.asarray(x)
    if x.ndim not in (1, 2):
        raise ValueError(f"grouped_stat needs 1-D or 2-D data, got shape {x.shape}")
    one_d = x.ndim == 1
    x2 = x[:, None] if one_d else x
    n = x2.shape[0]
    codes = np.asarray(codes)
    if codes.shape != (n,):
        raise ValueError(f"codes must have shape ({n},), got {codes.shape}")
    codes = codes.astype(np.intp, copy=False)
    ngroups = int(ngroups)
    if n and (codes.max(initial=-1) >= ngroups or codes.min(initial=0) < -1):
        raise ValueError(f"codes must lie in [-1, {ngroups}); got values outside")
    miss2 = None
    if missing is not None:
        m = np.asarray(missing, dtype=bool)
        if m.shape != x.shape:
            raise ValueError(f"missing must have the shape of x {x.shape}, got {m.shape}")
        miss2 = m[:, None] if one_d else m
        if not miss2.any():
            miss2 = None

    q_arr, q_scalar = _check_q(stat, q, method)
    kind = x2.dtype.kind
    holes = None
    if kind == "O":
        values, vmiss = object_columns(x2, codes, ngroups, stat, q_arr, method, ddof, policy,
                                       miss2)
    else:
        if kind in "cSUV" or (kind == "f" and x2.dtype.itemsize not in (2, 4, 8)):
            raise TypeError(f"cannot compute {stat} of non-numeric or unsupported dtype {x2.dtype}")
        with _numba.one_request():  # one kernel compiles in the background, at most
            values, vmiss, holes = _native(x2, codes, ngroups, stat, q_arr, method, ddof,
                                           policy, miss2, engine, one_d, counts_out)
        if holes is not None:
            if holes_out is None:
                values, holes = widen(values, holes), None
            elif not holes.any():
                holes = None
    if stat in ORDER_STATS and (q_arr is None or q_scalar):  # drop the q axis
        values = values[0]
        vmiss = vmiss[0]
        holes = None if holes is None else holes[0]
    if one_d:
        values = values[..., 0]
        vmiss = vmiss[..., 0]
        holes = None if holes is None else holes[..., 0]
    if holes_out is not None:
        holes_out.append(holes)
    return values, vmiss if vmiss.any() else None


def _check_q(stat: str, q: Any, method: str) -> tuple[np.ndarray | None, bool]:
    if stat not in _stats.TAKES_Q:
        return None, False
    if method not in METHODS:
        raise ValueError(f"unknown quantile method {method!r}; expected one of {METHODS}")
    if q is None:
        raise TypeError("quantile needs q")
    qa = np.asarray(q, dtype=np.float64)
    if qa.ndim > 1:
        raise ValueError("q must be a scalar or a 1-D sequence")
    if np.isnan(qa).any() or (qa < 0).any() or (qa > 1).any():
        raise ValueError(f"quantiles must be in the range [0, 1], got {q!r}")
    return np.atleast_1d(qa), qa.ndim == 0


def _native(x2: Any, codes: Any, ngroups: Any, stat: Any, q_arr: Any, method: Any, ddof: Any,
            policy: Any, miss2: Any, engine: Any, one_d: Any,
            counts_out: Any = None) -> Any:
    """Every column of native-dtype data: ``(values, missing, holes)`` with the column
    last (``holes``: None, or where int / bool picks have no value)."""
    dt = x2.dtype
    if dt.kind in "mM":
        nat = np.isnat(x2)
        if nat.any():
            miss2 = nat if miss2 is None else (miss2 | nat)
    is_order = stat in ORDER_STATS
    if dt.kind == "M" and not is_order and stat not in _stats.MEANS | _stats.COUNTS:
        raise TypeError(f"{stat} of datetime64 data is not defined")
    slabs = None
    if is_order and miss2 is None and dt.kind in "fiumM" and x2.shape[1] >= SLAB_MIN_COLS:
        slabs = slab_batches(codes, ngroups, x2.shape[1])  # few groups, many columns
    if slabs is not None:
        scan(x2, codes, policy, None, one_d)  # raises as the column engine would
        return order_slabs(x2, codes, ngroups, stat, q_arr, method, policy, engine, slabs)
    if not is_order and miss2 is None:  # float64 moments: the kernel finds the NaNs
        got = certified_columns(x2, codes, ngroups, stat, policy, counts_out,
                                ddof=ddof if stat in _stats.SQUARES else None)
        if got is not None:
            return (*got, None)
    deferred = defer_scan(x2, is_order, miss2, policy, engine)
    nan, miss = (None, None) if deferred else scan(x2, codes, policy, miss2, one_d)
    outs, omiss, oholes = [], [], []
    try:
        for c in range(x2.shape[1]):  # columns, not groups
            col = x2[:, c]
            ncol = None if nan is None else nan[:, c]
            mcol = None if miss is None else miss[:, c]
            h = None
            if is_order:
                v, m, h = order_column(col, ncol, mcol, codes, ngroups, stat, q_arr, method,
                                       policy, engine, scanned=not deferred)
            else:
                v, m = moment_column(col, ncol, mcol, codes, ngroups, stat, ddof, policy,
                                     counts_out=counts_out)
            outs.append(v)
            omiss.append(m)
            oholes.append(h)
    except Rescan:
        # a signaling NaN (raised here), or numba failed: redo with the scan first
        scan(x2, codes, policy, miss2, one_d)
        if counts_out is not None:
            counts_out.clear()  # the first attempt's columns are computed again
        return _native(x2, codes, ngroups, stat, q_arr, method, ddof, policy, miss2,
                       "numpy" if engine is None else engine, one_d, counts_out)
    if not outs:  # no columns
        lead = (len(q_arr),) if q_arr is not None else ((1,) if is_order else ())
        values = np.empty(lead + (ngroups, 0), dtype=np.float64 if dt.kind != "f" else dt)
        return values, np.zeros(values.shape, bool), None
    holes = None
    if any(h is not None for h in oholes):
        holes = np.stack([np.zeros(o.shape, bool) if h is None else h
                          for o, h in zip(outs, oholes, strict=True)], axis=-1)
    return np.stack(outs, axis=-1), np.stack(omiss, axis=-1), holes
