"""The one core entry point for reductions: ``reduce(x, stat, ...)``.

Adapters (pandas, xarray, dask DataFrame, the plain functions) call :func:`reduce`
and nothing below it; it reads the statistics table to pick the engine
(:mod:`.select` for order and arg statistics, :mod:`.moments` for moments and
counts) and composes the ``spread`` statistics (iqr, mad) from order statistics, so
every host that reduces gets them. As flox's ``groupby_reduce``, the result carries
the count of values each output saw, so no adapter counts again.

NaN rules of the spread statistics
----------------------------------
``iqr``
    ``q_hi - q_lo`` of two quantiles of the policy's order. A NaN at either
    quantile makes the result that NaN, quieted (the upper one if both are NaN, as
    an interpolation between two NaNs); a NaN made by the subtraction of two
    numbers (``inf - inf``) is the canonical NaN. Floats keep their dtype
    (float16/32/64); ints and bools give float64 (no overflow); datetime64 and
    timedelta64 give timedelta64; objects subtract exactly (Fraction, Decimal at
    full precision, ints).
``mad``
    ``median(|x - median(x)|) / scale``, both medians under the same policy. A
    NaN of ``x`` keeps its own bits as its deviation (sign, payload, signaling
    bit), so NaNs rank among the deviations as they rank in the median of ``x``;
    where the center is a NaN every deviation of a number is that NaN, quieted; a
    deviation made undefined by arithmetic (``inf - inf``) makes that output the
    canonical NaN (as NumPy's median of NaN-holding data). Floats keep their dtype,
    ints and bools give float64, datetime64/timedelta64 give timedelta64, objects
    keep their exact type (a Fraction scale divides exactly).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property
from typing import Any

import numpy as np

from .. import _stats
from ..options import NanPolicy
from .axes import normalize_axis
from .bits import layout_of
from .classify import quiet
from .moments import moment_stat
from .objects import classify_object, object_deviations, object_difference, object_scale
from .policy import RULES
from .select import order_stat

__all__ = ["Reduced", "reduce", "count_left", "divide_by_scale", "MAD_NORMAL_SCALE"]

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
    """How many values a statistic sees along ``axis``: every value, or under a
    policy that removes (``"omit"``) only the numbers (NaN, NaT, missing and masked
    entries, and object NaN/missing values left out). int64, the reduced shape.

    Examples
    --------
    >>> count_left(np.array([[1.0, np.nan], [3.0, 4.0]]), None, NanPolicy.OMIT, axis=1)
    array([1, 2])
    """
    x = np.asarray(x)
    axes = normalize_axis(axis, x.ndim)
    n = 1
    for a in axes:
        n *= x.shape[a]
    shape = tuple(1 if a in axes else s for a, s in enumerate(x.shape)) if keepdims \
        else tuple(s for a, s in enumerate(x.shape) if a not in axes)
    kind = x.dtype.kind
    if not RULES[policy].removes or (missing is None and kind in "biu"):
        return np.full(shape, n, dtype=np.int64)
    if kind == "f":
        gone = np.isnan(x)
    elif kind in "mM":
        gone = np.isnat(x)
    elif kind == "O":
        gone = _object_kinds(x) != "number"
    else:
        gone = None
    if missing is not None:
        miss = np.broadcast_to(np.asarray(missing, dtype=bool), x.shape)
        gone = miss if gone is None else (gone | miss)
    left = n - np.count_nonzero(gone, axis=axes or None, keepdims=keepdims)
    return np.asarray(left, dtype=np.int64).reshape(shape)


def _object_kinds(x: np.ndarray) -> np.ndarray:
    """"number" / "nan" / "missing" / "other" of every element of an object array."""
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
        ``values``, ``missing`` and the lazily computed ``count``.

    Examples
    --------
    >>> r = reduce(np.array([1.0, np.nan, 3.0, 4.0]), "iqr", policy=NanPolicy.OMIT)
    >>> r.values, r.count
    (array(1.5), array(3))
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


# ------------------------------------------------------------------------- spread


def _canonical(dtype: np.dtype) -> np.floating:
    lay = layout_of(dtype)
    return np.array(lay.canonical_nan, dtype=lay.int_dtype).view(lay.float_dtype)[()]


def _difference(hi: np.ndarray, lo: np.ndarray) -> np.ndarray:
    """``hi - lo`` with the NaN rules of the module docstring (any dtype)."""
    kind = hi.dtype.kind
    if kind == "O":
        return object_difference(hi, lo)
    if kind in "mM":
        return np.subtract(hi, lo)
    if kind != "f":  # ints, bools: float64, as an interpolation would give
        hi, lo = hi.astype(np.float64), lo.astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        res = np.asarray(np.subtract(hi, lo))
    bad = np.isnan(res)
    if not bad.any():
        return res
    hn, ln = np.isnan(hi), np.isnan(lo)
    res = np.where(bad & ~hn & ~ln, _canonical(res.dtype), res)  # inf - inf
    res = np.where(ln, quiet(lo), res)
    return np.asarray(np.where(hn, quiet(hi), res), dtype=hi.dtype)


def _check_rng(rng: Any) -> tuple[float, float]:
    """scipy.stats.iqr's checks: two percentiles in [0, 100], taken in order."""
    try:
        lo, hi = (float(p) for p in rng)
    except (TypeError, ValueError):
        raise TypeError(f"rng must be a sequence of two percentiles, got {rng!r}") from None
    if not (0 <= lo <= 100 and 0 <= hi <= 100):  # NaN fails too
        raise ValueError(f"rng must hold two percentiles in [0, 100], got {rng!r}")
    return (lo, hi) if lo <= hi else (hi, lo)


def _iqr(x, *, rng=(25, 75), method="linear", **common):
    lo_p, hi_p = _check_rng(rng)
    values, miss = order_stat(x, "quantile", q=[lo_p / 100, hi_p / 100], method=method,
                              **common)
    res = _difference(values[1, ...], values[0, ...])
    return np.asarray(res), None if miss is None else (miss[0] | miss[1])


def _check_scale(scale: Any) -> Any:
    if isinstance(scale, str):
        if scale.lower() != "normal":
            raise ValueError(f"scale must be a number or 'normal', got {scale!r}")
        return MAD_NORMAL_SCALE
    return scale


def _mad(x, *, scale=1.0, axis=None, policy=NanPolicy.RAISE, missing=None, keepdims=False):
    scale = _check_scale(scale)
    center, cmiss = order_stat(x, "median", axis=axis, policy=policy, missing=missing,
                               keepdims=True)
    dev, undefined = _deviations(x, center)
    values, miss = order_stat(dev, "median", axis=axis, policy=policy, missing=missing,
                              keepdims=keepdims)
    axes = normalize_axis(axis, x.ndim)
    if undefined is not None:
        rows = undefined.any(axis=axes, keepdims=keepdims)
        if values.dtype.kind == "O":
            values = np.where(rows, float("nan"), values)
        else:
            values = np.where(rows, _canonical(values.dtype), values)
    out = divide_by_scale(values, scale)
    if cmiss is not None and cmiss.any():
        cm = cmiss if keepdims else np.squeeze(cmiss, axis=axes)
        miss = cm if miss is None else (miss | cm)
    return np.asarray(out), miss


def _deviations(x: np.ndarray, center: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    """``|x - center|`` (see the module docstring) and a mask of the undefined ones
    (``inf - inf``; None when there is none). Undefined deviations hold 0."""
    if x.dtype.kind == "O":
        try:
            return object_deviations(x, center)
        except OverflowError:
            # an int too large for a float minus a float center: subtract exactly
            # (objects.spread.exact_difference does not catch this case itself yet)
            exact = _object_map1(
                lambda c: Fraction(c) if isinstance(c, float) and math.isfinite(c) else c,
                np.asarray(center, dtype=object))
            return object_deviations(x, exact)
    if x.dtype.kind in "mM":
        return np.abs(x - center), None
    work = x if x.dtype.kind == "f" else x.astype(np.float64)
    c = center.astype(work.dtype, copy=False)
    with np.errstate(invalid="ignore", over="ignore"):
        dev = np.abs(work - c)
    bad = np.isnan(dev)
    if not bad.any():
        return dev, None
    nan = np.isnan(work)
    cnan = np.broadcast_to(np.isnan(c), work.shape)
    undefined = bad & ~nan & ~cnan
    if cnan.any():
        dev = np.where(cnan, quiet(np.broadcast_to(c, work.shape)), dev)
    if undefined.any():
        dev[undefined] = 0
    else:
        undefined = None
    dev[nan] = work[nan]  # the NaN itself, bits kept
    return dev, undefined


def divide_by_scale(values: np.ndarray, scale: Any) -> np.ndarray:
    """``values / scale`` (a checked ``scale``): floats keep their dtype, objects
    their exact type (:func:`nanaccess.core.objects.object_scale`), timedeltas stay
    timedeltas; ``scale == 1`` returns ``values`` as they are."""
    if scale == 1:
        return values
    if values.dtype.kind == "O":
        return object_scale(values, scale)
    if values.dtype.kind == "f":
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            return values / values.dtype.type(scale)
    return values / scale  # timedelta


def _object_map1(fn: Any, a: np.ndarray) -> np.ndarray:
    out = np.empty(a.shape, dtype=object)
    out.ravel()[:] = [fn(v) for v in a.ravel().tolist()]
    return out

