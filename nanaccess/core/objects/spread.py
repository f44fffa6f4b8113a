"""The object path's part of the spread statistics (iqr, mad): exact differences.

:func:`nanaccess.core.reduce.reduce` composes ``iqr`` and ``mad`` from order
statistics; for object arrays the arithmetic between them (a difference of two
quantiles, the deviations from the median, the division by ``scale``) is exact here,
with the NaN rules of an interpolation: a NaN operand gives that NaN, quieted (the
upper one, ``hi``, if both are NaN); a NaN made by arithmetic (``inf - inf``) is the
canonical NaN; a missing operand gives ``None``. Decimals subtract at full precision
(no rounding to the context), Decimals mixed with floats or Fractions through
``Fraction``.

Examples
--------
>>> from decimal import Decimal as D
>>> object_difference(np.array([D("7.75")], object), np.array([D("1.875")], object))
array([Decimal('5.875')], dtype=object)
"""

from __future__ import annotations

import decimal
from collections.abc import Callable
from decimal import Decimal
from fractions import Fraction
from typing import Any

import numpy as np

from .arith import as_arith, is_inf, quiet_nan
from .classify import CANONICAL_NAN, classify_object

__all__ = ["object_difference", "object_deviations", "object_scale"]


def _kind(v: Any) -> str:
    return classify_object(v)[0]


def _inf_difference(a: Any, b: Any) -> Any:
    """``a - b`` where one of them is infinite: that infinity (negated for ``b``), in
    its own type; two infinities of the same sign give the canonical NaN."""
    sa = (1 if a > 0 else -1) if is_inf(a) else 0
    sb = (1 if b > 0 else -1) if is_inf(b) else 0
    if sa and sb and sa == sb:
        return CANONICAL_NAN
    return a if sa else -b


def exact_difference(a: Any, b: Any) -> Any:
    """``a - b`` of two numbers, exactly: Python's types for int, Fraction and float
    (a float result is rounded once), Decimals at full precision, Decimals mixed with
    floats or Fractions as a Fraction; a float overflow gives the exact Fraction."""
    a, b = as_arith(a), as_arith(b)
    if is_inf(a) or is_inf(b):
        return _inf_difference(a, b)
    if isinstance(a, Decimal) or isinstance(b, Decimal):
        if isinstance(a, Decimal | int) and isinstance(b, Decimal | int):
            with decimal.localcontext() as ctx:
                ctx.prec, ctx.Emax, ctx.Emin = (decimal.MAX_PREC, decimal.MAX_EMAX,
                                                decimal.MIN_EMIN)
                return a - b
        return Fraction(a) - Fraction(b)
    try:
        r = a - b
    except OverflowError:  # an int too large for a float, minus a float
        return Fraction(a) - Fraction(b)
    if isinstance(r, float | np.floating) and not np.isfinite(r):
        return Fraction(a) - Fraction(b)  # |a - b| beyond the float range
    return r


def _map(fn: Callable[..., Any], *arrays: np.ndarray) -> np.ndarray:
    arrays = np.broadcast_arrays(*(np.asarray(a, dtype=object) for a in arrays))
    out = np.empty(arrays[0].shape, dtype=object)
    out.ravel()[:] = [fn(*vs) for vs in zip(*(a.ravel().tolist() for a in arrays),
                                            strict=True)]
    return out


def _difference(hi: Any, lo: Any) -> Any:
    kh, kl = _kind(hi), _kind(lo)
    if kh == "nan":
        return quiet_nan(hi)
    if kl == "nan":
        return quiet_nan(lo)
    if kh != "number" or kl != "number":
        return None
    return exact_difference(hi, lo)


def object_difference(hi: np.ndarray, lo: np.ndarray) -> np.ndarray:
    """``hi - lo`` elementwise (object arrays, broadcast), exactly, with the NaN rules
    of the module docstring; ``None`` where either is missing (``iqr``).

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> object_difference(np.array([F(7, 2), 2.5, None], object),
    ...                   np.array([F(1, 3), float("nan"), 1], object))
    array([Fraction(19, 6), nan, None], dtype=object)
    """
    return _map(_difference, hi, lo)


def object_deviations(x: np.ndarray, center: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    """``|x - center|`` elementwise (``mad``), exactly, and a mask of the undefined
    ones (``inf - inf``, held as 0; ``None`` when there is none).

    A NaN of ``x`` keeps its own bits (it ranks among the deviations as in the median
    of ``x``), a missing value stays missing; where ``center`` is a NaN every number's
    deviation is that NaN, quieted; where ``center`` is missing, ``x`` is kept (that
    output is missing anyway).

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> dev, undefined = object_deviations(np.array([F(1), F(3), F(8)], object),
    ...                                    np.array([F(3)], object))
    >>> dev, undefined
    (array([Fraction(2, 1), Fraction(0, 1), Fraction(5, 1)], dtype=object), None)
    """
    cb = np.broadcast_to(np.asarray(center, dtype=object), np.shape(x))
    xs, cs = np.asarray(x, dtype=object).ravel().tolist(), cb.ravel().tolist()
    dev: list[Any] = []
    undefined = np.zeros(len(xs), dtype=bool)
    for i, (v, c) in enumerate(zip(xs, cs, strict=True)):
        if _kind(v) != "number":
            dev.append(v)
            continue
        kc = _kind(c)
        if kc == "nan":
            dev.append(quiet_nan(c))
        elif kc != "number":
            dev.append(v)
        else:
            d = exact_difference(v, c)
            if _kind(d) == "nan":
                undefined[i] = True
                d = 0
            dev.append(d.copy_abs() if isinstance(d, Decimal) else abs(d))  # no rounding
    out = np.empty(np.shape(x), dtype=object)
    out.ravel()[:] = dev
    return out, (undefined.reshape(np.shape(x)) if undefined.any() else None)


def _scaled(v: Any, scale: Any) -> Any:
    k = _kind(v)
    if k == "nan":
        return quiet_nan(v)  # as a float NaN divided
    if k != "number":
        return v
    if is_inf(v):
        return v if scale > 0 else -v
    v = as_arith(v)
    if isinstance(v, Fraction):
        return v / Fraction(scale)
    if isinstance(v, Decimal):
        exact = Fraction(v) / Fraction(scale)
        return type(v)(exact.numerator) / type(v)(exact.denominator)  # rounded once
    return v / scale


def object_scale(values: np.ndarray, scale: Any) -> np.ndarray:
    """``values / scale`` elementwise (``mad``), keeping each value's exact type:
    a Fraction divides exactly (by the exact value of a float ``scale``), a Decimal is
    rounded once in the current context, ints and floats divide as Python does; NaNs
    are quieted, missing values stay missing.

    Examples
    --------
    >>> from decimal import Decimal as D
    >>> from fractions import Fraction as F
    >>> object_scale(np.array([F(3), D(3), 3, None], object), 2)
    array([Fraction(3, 2), Decimal('1.5'), 1.5, None], dtype=object)
    """
    return _map(lambda v: _scaled(v, scale), values)
