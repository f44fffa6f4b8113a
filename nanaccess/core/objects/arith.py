"""Exact arithmetic of the object path, with the result types of :mod:`statistics`.

Midpoints, weighted means and interpolations of two neighbours: exact for int,
Fraction and Decimal (rounded once), NumPy's formulas for two floats, and the
contract's repairs (no overflow, zero weights are picks, NaNs made by arithmetic are
canonical, NaN neighbours are quieted).
"""

from __future__ import annotations

import math
import numbers
import struct
from decimal import Decimal
from fractions import Fraction
from typing import Any, cast

import numpy as np

from .classify import CANONICAL_NAN, DEC, F64_QUIET, FLOAT, FRAC, INT, LAYOUT_BY_SIZE

_RANKS: dict[type[Any], int] = {}


def rank_of_type(t: type[Any]) -> int:
    rank = _RANKS.get(t)
    if rank is None:
        if issubclass(t, (int, np.integer, np.bool_)):
            rank = INT
        elif issubclass(t, Decimal):
            rank = DEC
        elif issubclass(t, (float, np.floating)):
            rank = FLOAT
        else:
            rank = FRAC
        _RANKS[t] = rank
    return rank


def _rank_of(v: Any) -> int:
    return rank_of_type(type(v))


def as_arith(v: Any) -> Any:
    """NumPy integers/bools as Python ints (no wrap-around), everything else as is."""
    if isinstance(v, np.bool_):
        return bool(v)
    if isinstance(v, np.integer):
        return int(v)
    return v


def is_inf(v: Any) -> bool:
    if isinstance(v, Decimal):
        return v.is_infinite()
    if isinstance(v, (float, np.floating)):
        return bool(np.isinf(v)) if isinstance(v, np.floating) else math.isinf(v)
    return False


def _is_float_nan_or_inf(r: Any) -> bool:
    if isinstance(r, float):
        return not math.isfinite(r)
    if isinstance(r, np.floating):
        return not bool(np.isfinite(r))
    return False


def as_exact(v: Any) -> Fraction | int:
    v = as_arith(v)
    if isinstance(v, int):
        return v
    if isinstance(v, Fraction):
        return v
    if isinstance(v, numbers.Rational):
        return cast("Fraction | int", Fraction(v.numerator, v.denominator))
    return Fraction(*v.as_integer_ratio())


def _float_type(a: Any, b: Any) -> type[Any]:
    fa = isinstance(a, (float, np.floating))
    fb = isinstance(b, (float, np.floating))
    if fa and fb:
        return type(a) if type(a) is type(b) else float
    return type(a) if fa else type(b) if fb else float


def convert(
    r: Fraction | int,
    rank: int,
    ftype: type[Any] = float,
    dtype: type[Any] | None = None,
    keep_int: bool = False,
) -> Any:
    """The exact ``r`` as the result type of rank ``rank`` (the ``statistics`` rules).

    Ints become floats unless ``keep_int`` and ``r`` is integral (``statistics.mean``);
    where the float conversion overflows the exact ``Fraction`` is returned.
    """
    if rank == FRAC:
        return Fraction(r)
    if rank == DEC:
        r = Fraction(r)
        dt = dtype or Decimal
        return dt(r.numerator) / dt(r.denominator)
    if rank == INT and keep_int and Fraction(r).denominator == 1:
        return int(r)
    try:
        f = float(r)
    except OverflowError:
        return Fraction(r)
    return ftype(f) if ftype is not float else f


def inf_result(cands: list[Any], top: int) -> Any:
    """Result of a weighted mean whose terms (with non-zero weight) include infinities."""
    infs = [x for x in cands if is_inf(x)]
    if any(x > 0 for x in infs) and any(x < 0 for x in infs):
        # inf - inf: a NaN of the result's type (Decimal data give a Decimal NaN)
        return Decimal("NaN") if top == DEC else CANONICAL_NAN
    x = infs[-1]
    if _rank_of(x) == top:
        return x
    return math.inf if x > 0 else -math.inf  # Decimal inf next to a float


def weighted_mean_of(a: Any, wa: int, b: Any, wb: int, d: int) -> Any:
    """``(a*wa + b*wb) / d`` as :mod:`statistics` computes it, with the repairs.

    ``a`` and ``b`` are numbers (finite or infinite); ``wa >= 1``; ``wb >= 0``. A zero
    weight next to an infinite neighbour drops that term (a pick, not ``inf * 0``).
    Overflow and type mixtures the standard library cannot do go exact.
    """
    top = max(_rank_of(a), _rank_of(b))
    ia, ib = is_inf(a), is_inf(b)
    if ib and wb == 0:
        b, ib = 0, False
        top = _rank_of(a) if _rank_of(a) != INT else FLOAT
    if ia or ib:
        return inf_result([a, b] if wb else [a], top)
    x, y = as_arith(a), as_arith(b)
    r: Any = None
    try:
        with np.errstate(all="ignore"):
            if wa == 1 and wb == 1:
                r = (x + y) / d
            else:
                r = (x * wa + y * wb) / d
    except (OverflowError, TypeError):
        r = None
    if r is not None and not _is_float_nan_or_inf(r):
        return r
    if r is not None and wa == 1 and wb == 1 and d == 2 and type(x) is type(y):
        with np.errstate(all="ignore"):
            r = x / 2 + y / 2  # float midpoint whose sum overflowed
        if not _is_float_nan_or_inf(r):
            return r
    exact = (as_exact(a) * wa + as_exact(b) * wb) / Fraction(d)
    return convert(exact, top, _float_type(a, b), _decimal_type(a, b))


def _decimal_type(a: Any, b: Any) -> type[Any] | None:
    for v in (a, b):
        if isinstance(v, Decimal):
            return type(v)
    return None


def lerp_numbers(a: Any, b: Any, t: Fraction) -> Any:
    """``a + (b - a) * t`` for numbers ``a <= b`` and ``0 < t < 1``.

    Two floats: NumPy's formula in their float type; otherwise exact, rounded once.
    """
    top = max(_rank_of(a), _rank_of(b))
    if is_inf(a) or is_inf(b):
        return inf_result([a, b], top)
    fa = isinstance(a, (float, np.floating))
    fb = isinstance(b, (float, np.floating))
    if fa and fb:
        ft = _float_type(a, b)
        x, y = (a, b) if ft is not float else (float(a), float(b))
        tf = ft(float(t)) if ft is not float else float(t)
        with np.errstate(all="ignore"):
            diff = y - x
            r = x + diff * tf if t < Fraction(1, 2) else y - diff * (1 - tf)
        if not _is_float_nan_or_inf(r):
            return r
    ea, eb = as_exact(a), as_exact(b)
    exact = ea + (eb - ea) * t
    if top == INT:
        top = FLOAT  # interpolated ints are floats (NumPy, statistics)
    return convert(exact, top, _float_type(a, b), _decimal_type(a, b))


def as_interpolated(v: Any) -> Any:
    """A pick that stands for an interpolation: ints become floats (exact Fraction
    if too large), everything else is returned as stored."""
    if isinstance(v, (int, np.integer, np.bool_)):
        try:
            return float(int(v))
        except OverflowError:
            return Fraction(int(v))
    return v


def quiet_nan(v: Any) -> Any:
    """The quiet version of NaN ``v``: sign and payload kept; ``v`` itself if quiet."""
    if isinstance(v, Decimal):
        if v.is_qnan():
            return v
        t = v.as_tuple()
        return type(v)((t.sign, t.digits, "n"))
    if isinstance(v, float) and type(v) is float:
        bits = struct.unpack("<Q", struct.pack("<d", v))[0]
        if bits & F64_QUIET:
            return v
        return struct.unpack("<d", struct.pack("<Q", bits | F64_QUIET))[0]
    if isinstance(v, (np.floating, float)):
        arr = np.asarray(v)
        lay = LAYOUT_BY_SIZE.get(arr.dtype.itemsize)
        if lay is None:
            return v
        bits = int(arr.view(lay.uint_dtype))
        if bits & lay.quiet_bit:
            return v
        out = np.array(bits | lay.quiet_bit, dtype=lay.uint_dtype).view(arr.dtype)[()]
        return type(v)(out) if not isinstance(out, type(v)) else out
    return v
