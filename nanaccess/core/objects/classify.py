"""Classification of one Python object as the contract does (number, NaN, missing).

Every element of the object path is classified once: fast paths for plain
int/float/Fraction/Decimal, a slower description for NumPy scalars, Decimal NaNs
(payloads, signs, signaling) and pandas' missing values.
"""

from __future__ import annotations

import math
import numbers
import struct
from decimal import Decimal
from fractions import Fraction
from typing import Any

import numpy as np

from ..bits import layout_of

__all__ = ["classify_object", "CANONICAL_NAN"]

#: The canonical positive quiet NaN, bits 0x7FF8000000000000.
_F64 = layout_of(np.dtype(np.float64))
CANONICAL_NAN: float = struct.unpack("<d", struct.pack("<Q", _F64.canonical_nan))[0]
F64_QUIET = _F64.quiet_bit
_F64_PAYLOAD = _F64.payload_mask
#: the IEEE layouts of NumPy float scalars by size (extended precision has none)
LAYOUT_BY_SIZE = {lay.bits // 8: lay for lay in map(layout_of, ("f2", "f4", "f8"))}

# type ranks of the fixed order (equal values: int < Fraction < Decimal < float)
INT, FRAC, DEC, FLOAT = 0, 1, 2, 3

# element codes after classification
NUM, NAN, MISS = 0, 1, 2

_TYPE_NAMES: dict[type[Any], str] = {}


def tname(t: type[Any]) -> str:
    name = _TYPE_NAMES.get(t)
    if name is None:
        name = _TYPE_NAMES[t] = f"{t.__module__}.{t.__qualname__}"
    return name

# A description is (cls, sign, payload, quiet, rank, value):
#   cls    "number" | "nan" | "missing" | "other"
#   rank   type rank (numbers and NaNs), -1 otherwise
#   value  for numbers: an exactly comparable Python int / Fraction / Decimal / float
_MISSING_DESC = ("missing", 0, 0, False, -1, None)
_OTHER_DESC = ("other", 0, 0, False, -1, None)


def _float64_desc(v: float) -> tuple[Any, ...]:
    if v == v:
        return ("number", 1 if math.copysign(1.0, v) < 0 else 0, 0, False, FLOAT, float(v))
    bits = struct.unpack("<Q", struct.pack("<d", v))[0]
    return ("nan", bits >> 63, bits & _F64_PAYLOAD, bool(bits & F64_QUIET), FLOAT, None)


def _decimal_desc(v: Decimal) -> tuple[Any, ...]:
    if v.is_nan():
        digits = v.as_tuple().digits
        payload = int("".join(map(str, digits))) if digits else 0
        return ("nan", int(v.is_signed()), payload, v.is_qnan(), DEC, None)
    return ("number", int(v.is_signed()), 0, False, DEC, v)


def npfloat_desc(v: np.floating) -> tuple[Any, ...]:
    lay = LAYOUT_BY_SIZE.get(v.dtype.itemsize)
    if lay is not None:
        bits = int(v.view(lay.uint_dtype))
        sign = bits >> (lay.bits - 1)
        if v == v:
            return ("number", sign, 0, False, FLOAT, float(v))
        return ("nan", sign, bits & lay.payload_mask, bool(bits & lay.quiet_bit), FLOAT, None)
    # extended precision: no portable bit layout; exact value, NaNs without payload
    sign = int(np.signbit(v))
    if v != v:
        return ("nan", sign, 0, True, FLOAT, None)
    if np.isinf(v):
        return ("number", sign, 0, False, FLOAT, float(v))
    return ("number", sign, 0, False, FLOAT, Fraction(*v.as_integer_ratio()))


def _describe_slow(v: Any, t: type[Any]) -> tuple[Any, ...]:
    if isinstance(v, (np.datetime64, np.timedelta64)):  # timedelta64 is an np.integer
        return _MISSING_DESC if np.isnat(v) else _OTHER_DESC
    if isinstance(v, (bool, np.bool_)):
        return ("number", 0, 0, False, INT, int(v))
    if isinstance(v, (int, np.integer)):
        iv = int(v)
        return ("number", int(iv < 0), 0, False, INT, iv)
    if isinstance(v, float):  # float subclasses, np.float64
        return _float64_desc(v)
    if isinstance(v, np.floating):
        return npfloat_desc(v)
    if isinstance(v, Decimal):
        return _decimal_desc(v)
    if isinstance(v, numbers.Rational):
        fv = Fraction(v.numerator, v.denominator)
        return ("number", int(fv < 0), 0, False, FRAC, fv)
    if t.__name__ in ("NAType", "NaTType") and t.__module__.startswith("pandas"):
        return _MISSING_DESC
    if isinstance(v, numbers.Real):
        try:
            fv = float(v)
        except (TypeError, ValueError, OverflowError):
            return _OTHER_DESC
        if fv != fv:
            return ("nan", int(math.copysign(1.0, fv) < 0), 0, True, FLOAT, None)
        return ("number", int(math.copysign(1.0, fv) < 0), 0, False, FLOAT, fv)
    return _OTHER_DESC


def describe(v: Any) -> tuple[Any, ...]:
    t = type(v)
    if t is float:
        return _float64_desc(v)
    if t is int:
        return ("number", int(v < 0), 0, False, INT, v)
    if t is bool:
        return ("number", 0, 0, False, INT, int(v))
    if t is Fraction:
        return ("number", int(v < 0), 0, False, FRAC, v)
    if t is Decimal:
        return _decimal_desc(v)
    if v is None:
        return _MISSING_DESC
    return _describe_slow(v, t)


def classify_object(v: Any) -> tuple[str, int, int, bool]:
    """Classify one Python object as the contract does.

    Never raises for a numeric type: huge ints are numbers, ``Decimal('sNaN')`` is
    classified without :class:`decimal.InvalidOperation`.

    Parameters
    ----------
    v : object
        Any Python object.

    Returns
    -------
    cls : {"number", "nan", "missing", "other"}
        "other" is anything that is not a real number or a missing value (strings,
        complex numbers, arbitrary objects); callers raise ``TypeError`` for it.
    sign : int
        1 for negative values (including ``-0.0``, ``Decimal('-0')`` and negative
        NaNs), else 0. Always 0 for "missing" and "other".
    payload : int
        For NaNs: the float mantissa bits below the quiet bit, or the integer of a
        Decimal NaN's digits (0 if it has none). 0 otherwise.
    quiet : bool
        For NaNs: True for quiet, False for signaling NaNs. False otherwise.

    Examples
    --------
    >>> from decimal import Decimal
    >>> classify_object(10**1000)
    ('number', 0, 0, False)
    >>> classify_object(Decimal("-sNaN123"))
    ('nan', 1, 123, False)
    >>> classify_object(-0.0)
    ('number', 1, 0, False)
    >>> classify_object(None)
    ('missing', 0, 0, False)
    >>> classify_object("1.0")
    ('other', 0, 0, False)
    """
    return describe(v)[:4]
