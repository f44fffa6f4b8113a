"""The spread statistics (iqr, mad): differences of order statistics, one set of rules.

The table (:mod:`nanaccess._stats`) says how each is composed and
:mod:`nanaccess.core.compose` runs the composition once for every shape (flat,
grouped, windows, dask) with the helpers here (:func:`difference`, :func:`deviations`,
:func:`divide_by_scale`, :func:`check_rng`, :func:`check_scale`), so each rule below
is written once.

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

from typing import Any, cast

import numpy as np

from .classify import canonical_nan, quiet
from .objects import classify_object, object_deviations, object_difference, object_scale

__all__ = ["MAD_NORMAL_SCALE", "difference", "deviations", "divide_by_scale",
           "check_rng", "check_scale", "object_kinds"]

#: ``scale="normal"`` of :func:`scipy.stats.median_abs_deviation`: the 0.75 quantile
#: of the standard normal distribution (``scipy.special.ndtri(0.75)``)
MAD_NORMAL_SCALE = 0.6744897501960817


def object_kinds(x: np.ndarray) -> np.ndarray:
    """"number" / "nan" / "missing" / "other" of every element of an object array."""
    return np.array([classify_object(v)[0] for v in x.ravel().tolist()],
                    dtype=object).reshape(x.shape)


def difference(hi: np.ndarray, lo: np.ndarray) -> np.ndarray:
    """``hi - lo`` with the NaN rules of the module docstring (any dtype)."""
    kind = hi.dtype.kind
    if kind == "O":
        return object_difference(hi, lo)
    if kind in "mM":
        return cast("np.ndarray", np.subtract(hi, lo))
    if kind != "f":  # ints, bools: float64, as an interpolation would give
        hi, lo = hi.astype(np.float64), lo.astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        res = np.asarray(np.subtract(hi, lo))
    bad = np.isnan(res)
    if not bad.any():
        return res
    hn, ln = np.isnan(hi), np.isnan(lo)
    res = np.where(bad & ~hn & ~ln, canonical_nan(res.dtype), res)  # inf - inf
    res = np.where(ln, quiet(lo), res)
    return np.asarray(np.where(hn, quiet(hi), res), dtype=hi.dtype)


def check_rng(rng: Any) -> tuple[float, float]:
    """scipy.stats.iqr's checks: two percentiles in [0, 100], taken in order."""
    try:
        lo, hi = (float(p) for p in rng)
    except (TypeError, ValueError):
        raise TypeError(f"rng must be a sequence of two percentiles, got {rng!r}") from None
    if not (0 <= lo <= 100 and 0 <= hi <= 100):  # NaN fails too
        raise ValueError(f"rng must hold two percentiles in [0, 100], got {rng!r}")
    return (lo, hi) if lo <= hi else (hi, lo)


def check_scale(scale: Any) -> Any:
    if isinstance(scale, str):
        if scale.lower() != "normal":
            raise ValueError(f"scale must be a number or 'normal', got {scale!r}")
        return MAD_NORMAL_SCALE
    return scale


def deviations(x: np.ndarray, center: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    """``|x - center|`` (see the module docstring) and a mask of the undefined ones
    (``inf - inf``; None when there is none). Undefined deviations hold 0."""
    if x.dtype.kind == "O":
        return object_deviations(x, center)
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
            return cast("np.ndarray", values / values.dtype.type(scale))
    return cast("np.ndarray", values / scale)  # timedelta


