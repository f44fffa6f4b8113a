"""The one core entry point for reductions: ``reduce(x, stat, ...)``.

Adapters (pandas, xarray, dask DataFrame, the plain functions) call :func:`reduce`
and nothing below it; it reads the statistics table to pick the engine
(:mod:`.select` for order and arg statistics, :mod:`.moments` for moments and
counts) and composes the ``spread`` statistics (iqr, mad) from order statistics, so
every host that reduces gets them. As flox's ``groupby_reduce``, the result carries
the count of values each output saw, so no adapter counts again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from .. import _stats
from ..options import NanPolicy
from .axes import normalize_axis
from .moments import moment_stat
from .policy import RULES
from .select import order_stat

__all__ = ["Reduced", "reduce", "count_left", "MAD_NORMAL_SCALE"]

#: ``scale="normal"`` of :func:`scipy.stats.median_abs_deviation`: the 0.75 quantile
#: of the standard normal distribution (``scipy.special.ndtri(0.75)``)
MAD_NORMAL_SCALE = 0.6744897501960817


@dataclass
class Reduced:
    """What :func:`reduce` returns.

    ``values``: an ndarray (0-d for a full reduction; quantile dimensions first);
    ``missing``: ``None`` or a bool array of ``values``' shape marking results that are
    the host's missing value; ``count``: int64 array of the reduced shape (no quantile
    dimension): how many values the statistic saw (numbers, plus NaN and missing
    values unless the policy removes them). ``count`` is computed on first use.
    """

    values: np.ndarray
    missing: np.ndarray | None
    _x: np.ndarray = field(repr=False)
    _in_missing: np.ndarray | None = field(repr=False)
    _axis: Any = field(repr=False)
    _policy: NanPolicy = field(repr=False)
    _keepdims: bool = field(repr=False, default=False)

    @cached_property
    def count(self) -> np.ndarray:
        return count_left(self._x, self._in_missing, self._policy, self._axis, self._keepdims)

    @property
    def empty(self) -> np.ndarray:
        """Outputs where nothing was left (bool, the reduced shape)."""
        return self.count == 0


def count_left(x: np.ndarray, missing: np.ndarray | None, policy: NanPolicy,
               axis: Any = None, keepdims: bool = False) -> np.ndarray:
    """How many values a statistic sees along ``axis`` (numbers, plus NaN and missing
    values unless ``policy`` removes them)."""
    x = np.asarray(x)
    axes = normalize_axis(axis, x.ndim)
    n = int(np.prod([x.shape[a] for a in axes], dtype=np.int64))
    out_shape = tuple(1 if a in axes else s for a, s in enumerate(x.shape)) if keepdims \
        else tuple(s for a, s in enumerate(x.shape) if a not in axes)
    if not RULES[policy].removes:
        return np.full(out_shape, n, dtype=np.int64)
    gone = np.zeros(x.shape, bool) if missing is None else np.array(missing, dtype=bool)
    if x.dtype.kind == "f":
        gone |= np.isnan(x)
    elif x.dtype.kind in "mM":
        gone |= np.isnat(x)
    elif x.dtype.kind == "O":
        gone |= _object_kinds(x) != "number"
    return (n - gone.sum(axis=axes, keepdims=keepdims)).astype(np.int64)


def _object_kinds(x: np.ndarray) -> np.ndarray:
    """"number" / "nan" / "missing" / "other" of every element of an object array."""
    from .objects import classify_object

    return np.array([classify_object(v)[0] for v in x.ravel().tolist()],
                    dtype=object).reshape(x.shape)


def reduce(
    x: Any,
    stat: str,
    *,
    axis: Any = None,
    policy: NanPolicy = NanPolicy.RAISE,
    missing: np.ndarray | None = None,
    keepdims: bool = False,
    **params: Any,
) -> Reduced:
    """Reduce ``x`` along ``axis`` with statistic ``stat`` under a resolved ``policy``.

    Parameters
    ----------
    x : ndarray
        float16/32/64, int/uint, bool, datetime64/timedelta64 (NaT is missing) or
        object (the exact Python-object path).
    stat : str
        A name of :data:`nanaccess._stats.STATISTICS`.
    axis : None, int or tuple of int
    policy : NanPolicy
        Resolved by the caller's boundary.
    missing : bool ndarray, optional
        Missing entries (masked / nullable / Arrow nulls) of ``x``'s shape.
    keepdims : bool
    **params
        The statistic's own parameters (``q``, ``method``, ``ddof``, ``rng``,
        ``scale``), as listed in the table.

    Returns
    -------
    Reduced
    """
    x = np.asarray(x)
    entry = _stats.get(stat)
    unknown = set(params) - set(entry.param_names)
    if unknown:
        raise TypeError(f"{stat}() got unexpected keyword(s) {sorted(unknown)}")
    common = dict(axis=axis, policy=policy, missing=missing, keepdims=keepdims)
    if entry.family in ("order", "arg"):
        values, miss = order_stat(x, stat, **common, **params)
    elif entry.family in ("moment", "count"):
        values, miss = moment_stat(x, stat, **common, **params)
    elif stat == "iqr":
        values, miss = _iqr(x, **common, **params)
    else:
        values, miss = _mad(x, **common, **params)
    return Reduced(values, miss, x, missing, axis, policy, keepdims)


def _nan_first(a: np.ndarray, b: np.ndarray, res: np.ndarray) -> np.ndarray:
    """Where ``a`` or ``b`` is NaN the result is that NaN, quieted (``b``'s if both):
    the NaN rule of an interpolation applied to a difference."""
    if res.dtype.kind != "f":
        return res
    from .classify import quiet

    out = np.where(np.isnan(a), quiet(a.astype(res.dtype)), res)
    return np.where(np.isnan(b), quiet(b.astype(res.dtype)), out)


def _iqr(x, *, rng=(25, 75), method="linear", **common):
    lo_p, hi_p = (float(p) for p in rng)
    if not (0 <= lo_p <= 100 and 0 <= hi_p <= 100):
        raise ValueError(f"rng must hold two percentiles in [0, 100], got {rng!r}")
    values, miss = order_stat(x, "quantile", q=[lo_p / 100, hi_p / 100], method=method,
                              **common)
    lo, hi = values[0], values[1]
    if lo.dtype.kind == "M":
        res = hi - lo
    else:
        with np.errstate(invalid="ignore", over="ignore"):
            res = _nan_first(lo, hi, np.subtract(hi, lo, dtype=np.result_type(lo, 0.0)
                                                 if lo.dtype.kind in "biu" else None))
    return np.asarray(res), None if miss is None else (miss[0] | miss[1])


def _mad(x, *, scale=1.0, axis=None, policy=NanPolicy.RAISE, missing=None, keepdims=False):
    if isinstance(scale, str):
        if scale != "normal":
            raise ValueError(f"scale must be a number or 'normal', got {scale!r}")
        scale = MAD_NORMAL_SCALE
    center, cmiss = order_stat(x, "median", axis=axis, policy=policy, missing=missing,
                               keepdims=True)
    dev = _deviations(x, center)
    values, miss = order_stat(dev, "median", axis=axis, policy=policy, missing=missing,
                              keepdims=keepdims)
    if dev.dtype.kind == "O":
        out = np.frompyfunc(lambda v: v / scale if scale != 1 else v, 1, 1)(values)
    else:
        with np.errstate(invalid="ignore"):
            out = values / values.dtype.type(scale) if values.dtype.kind == "f" and scale != 1 \
                else values if scale == 1 else values / scale
    if cmiss is not None and cmiss.any():
        cm = cmiss if keepdims else np.squeeze(cmiss, axis=normalize_axis(axis, x.ndim))
        miss = cm if miss is None else (miss | cm)
    return np.asarray(out), miss


def _deviations(x: np.ndarray, center: np.ndarray) -> np.ndarray:
    """``|x - center|``, where a NaN of ``x`` stays that NaN (its bits rank it under
    "smallest"/"largest"/"totalorder" as in the median of ``x``)."""
    if x.dtype.kind == "O":
        cb = np.broadcast_to(center, x.shape)
        num = (_object_kinds(x) == "number") & (_object_kinds(cb) == "number")
        dev = np.empty(x.shape, dtype=object)
        dev[num] = [abs(a - b) for a, b in zip(x[num].tolist(), cb[num].tolist(), strict=True)]
        dev[~num] = x[~num]
        return dev
    if x.dtype.kind in "mM":
        return np.abs(x - center)
    work = x if x.dtype.kind == "f" else x.astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        dev = np.abs(work - center.astype(work.dtype, copy=False))
    nan = np.isnan(work)
    if nan.any():
        dev[nan] = work[nan]  # the NaN itself, bits kept
    return dev
