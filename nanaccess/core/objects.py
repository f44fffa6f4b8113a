"""The Python-object path: exact statistics on sequences of Python objects.

This is the path for plain lists (when the fast float path does not apply) and for
NumPy/pandas object arrays. It handles ints of any size, ``bool``, ``Fraction``,
``Decimal`` (quiet and signaling NaNs, payloads, signs), Python floats, NumPy scalars,
missing values (``None``, ``pd.NA``, ``NaT``) and mixtures of all of them, with the
same NaN contract as the array path (see the "NaN semantics" page).

Every element is classified once (fast paths for plain int/float/Fraction/Decimal);
order statistics sort the numbers once by value and break ties inside runs of equal
values only, so that the result realises the fixed total order of the contract:

* numbers by value, then by type rank ``int < Fraction < Decimal < float`` for equal
  values (``bool`` and NumPy integers count as int, NumPy floats as float), Decimals
  among themselves by :meth:`decimal.Decimal.compare_total`, floats by IEEE totalOrder
  (``-0.0 < +0.0``), and finally by the name of the concrete type, so that equal keys
  mean objects of the same type with the same bits;
* NaNs by IEEE totalOrder: sign, then signaling below quiet for positive NaNs
  (mirrored for negative ones), then payload (mirrored for negative ones), then type
  rank and type name (not mirrored, as for numbers); where they go relative to the
  numbers depends on the policy;
* missing values after everything else (among themselves by type name).

Arithmetic follows :mod:`statistics` (exact for int, Fraction and Decimal, result types
as ``statistics``), with the repairs the contract asks for: no overflow for huge ints
(the exact ``Fraction``) or huge floats, interpolation weights of exactly zero are
picks, NaNs made by arithmetic are the canonical NaN, NaN neighbours are quieted.

Examples
--------
>>> from decimal import Decimal
>>> from nanaccess.core.objects import object_order_stat
>>> nan = float("nan")
>>> object_order_stat([nan, 1, 2, 3, 4], "median", policy="omit")
2.5
>>> object_order_stat([1, 2, 3, 4, nan, nan, nan, nan, 5, 6, 7], "median", policy="largest")
6
>>> object_order_stat([Decimal("-NaN123"), 1], "median", policy="propagate")
Decimal('-NaN123')
"""

from __future__ import annotations

import math
import numbers
import operator
import reprlib
import statistics
import struct
from collections import defaultdict
from collections.abc import Iterable, Sequence
from decimal import Decimal, FloatOperation, localcontext
from fractions import Fraction
from typing import Any

import numpy as np

from ..errors import NaNError, SignalingNaNError
from ..options import NanPolicy, resolve_policy

__all__ = [
    "classify_object",
    "object_order_stat",
    "object_moment_stat",
    "object_sort_keys",
    "CANONICAL_NAN",
]

#: The canonical positive quiet NaN, bits 0x7FF8000000000000.
CANONICAL_NAN: float = struct.unpack("<d", struct.pack("<Q", 0x7FF8000000000000))[0]

_F64_QUIET = 1 << 51
_F64_PAYLOAD = _F64_QUIET - 1

# type ranks of the fixed order (equal values: int < Fraction < Decimal < float)
_INT, _FRAC, _DEC, _FLOAT = 0, 1, 2, 3

# element codes after classification
_NUM, _NAN, _MISS = 0, 1, 2

ORDER_STATS = (
    "median",
    "median_low",
    "median_high",
    "quantile",
    "quantiles",
    "min",
    "max",
    "argmin",
    "argmax",
)
MOMENT_STATS = ("mean", "var", "std", "sum")
QUANTILE_METHODS = (
    "linear",
    "lower",
    "higher",
    "nearest",
    "midpoint",
    "inclusive",
    "exclusive",
)

_TYPE_NAMES: dict[type, str] = {}


def _tname(t: type) -> str:
    name = _TYPE_NAMES.get(t)
    if name is None:
        name = _TYPE_NAMES[t] = f"{t.__module__}.{t.__qualname__}"
    return name


# ---------------------------------------------------------------------------
# classification
# ---------------------------------------------------------------------------

# A description is (cls, sign, payload, quiet, rank, value):
#   cls    "number" | "nan" | "missing" | "other"
#   rank   type rank (numbers and NaNs), -1 otherwise
#   value  for numbers: an exactly comparable Python int / Fraction / Decimal / float
_MISSING_DESC = ("missing", 0, 0, False, -1, None)
_OTHER_DESC = ("other", 0, 0, False, -1, None)


def _float64_desc(v: float) -> tuple:
    if v == v:
        return ("number", 1 if math.copysign(1.0, v) < 0 else 0, 0, False, _FLOAT, float(v))
    bits = struct.unpack("<Q", struct.pack("<d", v))[0]
    return ("nan", bits >> 63, bits & _F64_PAYLOAD, bool(bits & _F64_QUIET), _FLOAT, None)


def _decimal_desc(v: Decimal) -> tuple:
    if v.is_nan():
        digits = v.as_tuple().digits
        payload = int("".join(map(str, digits))) if digits else 0
        return ("nan", int(v.is_signed()), payload, v.is_qnan(), _DEC, None)
    return ("number", int(v.is_signed()), 0, False, _DEC, v)


def _npfloat_desc(v: np.floating) -> tuple:
    size = v.dtype.itemsize
    if size in (2, 4, 8):
        nbits = size * 8
        mant = {2: 10, 4: 23, 8: 52}[size]
        bits = int(v.view(np.dtype(f"u{size}")))
        if v == v:
            sign = bits >> (nbits - 1)
            return ("number", sign, 0, False, _FLOAT, float(v))
        quiet = 1 << (mant - 1)
        return ("nan", bits >> (nbits - 1), bits & (quiet - 1), bool(bits & quiet), _FLOAT, None)
    # extended precision: no portable bit layout; exact value, NaNs without payload
    sign = int(np.signbit(v))
    if v != v:
        return ("nan", sign, 0, True, _FLOAT, None)
    if np.isinf(v):
        return ("number", sign, 0, False, _FLOAT, float(v))
    return ("number", sign, 0, False, _FLOAT, Fraction(*v.as_integer_ratio()))


def _describe_slow(v: Any, t: type) -> tuple:
    if isinstance(v, (np.datetime64, np.timedelta64)):  # timedelta64 is an np.integer
        return _MISSING_DESC if np.isnat(v) else _OTHER_DESC
    if isinstance(v, (bool, np.bool_)):
        return ("number", 0, 0, False, _INT, int(v))
    if isinstance(v, (int, np.integer)):
        iv = int(v)
        return ("number", int(iv < 0), 0, False, _INT, iv)
    if isinstance(v, float):  # float subclasses, np.float64
        return _float64_desc(v)
    if isinstance(v, np.floating):
        return _npfloat_desc(v)
    if isinstance(v, Decimal):
        return _decimal_desc(v)
    if isinstance(v, numbers.Rational):
        fv = Fraction(v.numerator, v.denominator)
        return ("number", int(fv < 0), 0, False, _FRAC, fv)
    if t.__name__ in ("NAType", "NaTType") and t.__module__.startswith("pandas"):
        return _MISSING_DESC
    if isinstance(v, numbers.Real):
        try:
            fv = float(v)
        except (TypeError, ValueError, OverflowError):
            return _OTHER_DESC
        if fv != fv:
            return ("nan", int(math.copysign(1.0, fv) < 0), 0, True, _FLOAT, None)
        return ("number", int(math.copysign(1.0, fv) < 0), 0, False, _FLOAT, fv)
    return _OTHER_DESC


def _describe(v: Any) -> tuple:
    t = type(v)
    if t is float:
        return _float64_desc(v)
    if t is int:
        return ("number", int(v < 0), 0, False, _INT, v)
    if t is bool:
        return ("number", 0, 0, False, _INT, int(v))
    if t is Fraction:
        return ("number", int(v < 0), 0, False, _FRAC, v)
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
    return _describe(v)[:4]


# ---------------------------------------------------------------------------
# keys
# ---------------------------------------------------------------------------


def _number_key(v: Any, sign: int, rank: int, value: Any) -> tuple:
    if rank == _FLOAT:
        sub: Any = (1 - sign, _tname(type(v)))
    elif rank == _DEC:
        exp = v.as_tuple().exponent
        if not isinstance(exp, int):  # infinities
            exp = 0
        # compare_total among equal values: -0 < +0; positive: smaller exponent first,
        # negative: mirrored
        sub = (1 - sign, -exp if sign else exp, _tname(type(v)))
    else:
        sub = _tname(type(v))
    return (1, value, rank, sub)


def _nan_order(v: Any, sign: int, payload: int, quiet: bool, rank: int) -> tuple:
    """totalOrder among NaNs (a key whose first element is the sign)."""
    if sign:
        return (0, -int(quiet), -payload, rank, _tname(type(v)))
    return (1, int(quiet), payload, rank, _tname(type(v)))


def _key(v: Any, desc: tuple, policy: NanPolicy) -> tuple:
    cls = desc[0]
    if cls == "number":
        return _number_key(v, desc[1], desc[4], desc[5])
    if cls == "nan":
        tk = _nan_order(v, desc[1], desc[2], desc[3], desc[4])
        if policy is NanPolicy.SMALLEST:
            group = 0
        elif policy is NanPolicy.TOTALORDER:
            group = 0 if desc[1] else 2
        else:  # largest (and "omit" sort keys: dropped by the caller)
            group = 2
        return (group, *tk)
    return (3, _tname(type(v)))  # missing: last; by type only so the order is fixed


# ---------------------------------------------------------------------------
# scanning: one classification pass with the policy checks
# ---------------------------------------------------------------------------


class _Scan:
    """What one classification pass found.

    ``nums`` holds ``(value, position, object)`` with ``value`` exactly comparable
    across types (the object itself for Python int/float/Fraction/Decimal); ``nans``
    ``(nan order, position, object)``; ``miss`` the missing objects.
    """

    __slots__ = ("nums", "nans", "miss", "first_nan", "first_miss")

    def __init__(self) -> None:
        self.nums: list[tuple[Any, int, Any]] = []
        self.nans: list[tuple[tuple, int, Any]] = []
        self.miss: list[tuple[int, Any]] = []
        self.first_nan = -1
        self.first_miss = -1

    def best_nan(self) -> tuple[tuple, int, Any] | None:
        """The NaN greatest under totalOrder (first position among identical ones)."""
        if not self.nans:
            return None
        return max(self.nans, key=lambda e: (e[0], -e[1]))


def _type_error(v: Any, i: int, what: str) -> TypeError:
    if isinstance(v, (complex, np.complexfloating)) or (
        isinstance(v, numbers.Complex) and not isinstance(v, numbers.Real)
    ):
        return TypeError(
            f"complex numbers have no order: {reprlib.repr(v)} at position {i} "
            f"(nanaccess {what} need real numbers)"
        )
    return TypeError(
        f"non-numeric value {reprlib.repr(v)} of type {type(v).__name__!r} at position {i}; "
        f"nanaccess {what} need real numbers (int, float, Fraction, Decimal) or missing "
        "values (None, pd.NA, NaT)"
    )


def _scan(values: Iterable, policy: NanPolicy, what: str) -> _Scan:
    """Classify every element once; raise for non-numbers, signaling NaNs and "raise"."""
    sc = _Scan()
    nums_append = sc.nums.append
    sig_count = 0
    first_sig = -1
    for i, v in enumerate(values):
        t = type(v)
        # fast paths for the common exact types (no description needed)
        if t is float:
            if v == v:
                nums_append((v, i, v))
                continue
        elif t is int or t is Fraction:
            nums_append((v, i, v))
            continue
        elif t is Decimal and not v.is_nan():
            nums_append((v, i, v))
            continue
        desc = _describe(v)
        cls = desc[0]
        if cls == "number":
            nums_append((desc[5], i, v))
        elif cls == "nan":
            if not desc[3]:
                sig_count += 1
                if first_sig < 0:
                    first_sig = i
            if sc.first_nan < 0:
                sc.first_nan = i
            sc.nans.append((_nan_order(v, desc[1], desc[2], desc[3], desc[4]), i, v))
        elif cls == "missing":
            if sc.first_miss < 0:
                sc.first_miss = i
            sc.miss.append((i, v))
        else:
            raise _type_error(v, i, what)
    if sig_count and policy is not NanPolicy.TOTALORDER:
        raise SignalingNaNError(count=sig_count, position=(first_sig,))
    if policy is NanPolicy.RAISE:
        if sc.nans:
            raise NaNError(count=len(sc.nans), kind="NaN", position=(sc.first_nan,))
        if sc.miss:
            raise NaNError(count=len(sc.miss), kind="missing", position=(sc.first_miss,))
    return sc


def _full_key(e: tuple[Any, int, Any]) -> tuple:
    """The complete number key of a ``(value, position, object)`` entry."""
    v = e[2]
    desc = _describe(v)
    return _number_key(v, desc[1], desc[4], e[0])


def _first(e: tuple) -> Any:
    return e[0]


def _plain_run(run: list[tuple[Any, int, Any]]) -> bool:
    """True when equal-valued entries are indistinguishable (same type and bits)."""
    t = type(run[0][2])
    if t is int or t is Fraction:
        return all(type(e[2]) is t for e in run)
    if t is float and run[0][0] != 0:
        return all(type(e[2]) is t for e in run)
    return False


def _sort_numbers(nums: list[tuple[Any, int, Any]]) -> None:
    """Sort entries in place into the fixed order: by value, then (only inside runs of
    equal values, where type and bits can differ) by the full key."""
    nums.sort(key=_first)
    n = len(nums)
    k = 0
    while k < n - 1:
        if nums[k + 1][0] != nums[k][0]:
            k += 1
            continue
        j = k + 1
        while j < n and nums[j][0] == nums[k][0]:
            j += 1
        run = nums[k:j]
        if not _plain_run(run):
            run.sort(key=_full_key)
            nums[k:j] = run
        k = j


def _extreme_number(nums: list[tuple[Any, int, Any]], which: str) -> tuple[Any, int, Any]:
    """min/max entry in the fixed order; among identical ones the first position."""
    pick = min if which == "min" else max
    target = pick(nums, key=_first)[0]
    ties = [e for e in nums if e[0] == target]
    if len(ties) == 1 or _plain_run(ties):
        return ties[0]
    best = pick(_full_key(e) for e in ties)
    return next(e for e in ties if _full_key(e) == best)


# ---------------------------------------------------------------------------
# arithmetic helpers
# ---------------------------------------------------------------------------


_RANKS: dict[type, int] = {}


def _rank_of_type(t: type) -> int:
    rank = _RANKS.get(t)
    if rank is None:
        if issubclass(t, (int, np.integer, np.bool_)):
            rank = _INT
        elif issubclass(t, Decimal):
            rank = _DEC
        elif issubclass(t, (float, np.floating)):
            rank = _FLOAT
        else:
            rank = _FRAC
        _RANKS[t] = rank
    return rank


def _rank_of(v: Any) -> int:
    return _rank_of_type(type(v))


def _arith(v: Any) -> Any:
    """NumPy integers/bools as Python ints (no wrap-around), everything else as is."""
    if isinstance(v, np.bool_):
        return bool(v)
    if isinstance(v, np.integer):
        return int(v)
    return v


def _is_inf(v: Any) -> bool:
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


def _exact(v: Any) -> Fraction | int:
    v = _arith(v)
    if isinstance(v, int):
        return v
    if isinstance(v, Fraction):
        return v
    if isinstance(v, numbers.Rational):
        return Fraction(v.numerator, v.denominator)
    return Fraction(*v.as_integer_ratio())


def _float_type(a: Any, b: Any) -> type:
    fa = isinstance(a, (float, np.floating))
    fb = isinstance(b, (float, np.floating))
    if fa and fb:
        return type(a) if type(a) is type(b) else float
    return type(a) if fa else type(b) if fb else float


def _convert(
    r: Fraction | int,
    rank: int,
    ftype: type = float,
    dtype: type | None = None,
    keep_int: bool = False,
) -> Any:
    """The exact ``r`` as the result type of rank ``rank`` (the ``statistics`` rules).

    Ints become floats unless ``keep_int`` and ``r`` is integral (``statistics.mean``);
    where the float conversion overflows the exact ``Fraction`` is returned.
    """
    if rank == _FRAC:
        return Fraction(r)
    if rank == _DEC:
        r = Fraction(r)
        dt = dtype or Decimal
        return dt(r.numerator) / dt(r.denominator)
    if rank == _INT and keep_int and Fraction(r).denominator == 1:
        return int(r)
    try:
        f = float(r)
    except OverflowError:
        return Fraction(r)
    return ftype(f) if ftype is not float else f


def _inf_result(cands: list[Any], top: int) -> Any:
    """Result of a weighted mean whose terms (with non-zero weight) include infinities."""
    infs = [x for x in cands if _is_inf(x)]
    if any(x > 0 for x in infs) and any(x < 0 for x in infs):
        return CANONICAL_NAN
    x = infs[-1]
    if _rank_of(x) == top:
        return x
    return math.inf if x > 0 else -math.inf  # Decimal inf next to a float


def _weighted(a: Any, wa: int, b: Any, wb: int, d: int) -> Any:
    """``(a*wa + b*wb) / d`` as :mod:`statistics` computes it, with the repairs.

    ``a`` and ``b`` are numbers (finite or infinite); ``wa >= 1``; ``wb >= 0``. A zero
    weight next to an infinite neighbour drops that term (a pick, not ``inf * 0``).
    Overflow and type mixtures the standard library cannot do go exact.
    """
    top = max(_rank_of(a), _rank_of(b))
    ia, ib = _is_inf(a), _is_inf(b)
    if ib and wb == 0:
        b, ib = 0, False
        top = _rank_of(a) if _rank_of(a) != _INT else _FLOAT
    if ia or ib:
        return _inf_result([a, b] if wb else [a], top)
    x, y = _arith(a), _arith(b)
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
    exact = (_exact(a) * wa + _exact(b) * wb) / Fraction(d)
    return _convert(exact, top, _float_type(a, b), _decimal_type(a, b))


def _decimal_type(a: Any, b: Any) -> type | None:
    for v in (a, b):
        if isinstance(v, Decimal):
            return type(v)
    return None


def _lerp(a: Any, b: Any, t: Fraction) -> Any:
    """``a + (b - a) * t`` for numbers ``a <= b`` and ``0 < t < 1``.

    Two floats: NumPy's formula in their float type; otherwise exact, rounded once.
    """
    top = max(_rank_of(a), _rank_of(b))
    if _is_inf(a) or _is_inf(b):
        return _inf_result([a, b], top)
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
    ea, eb = _exact(a), _exact(b)
    exact = ea + (eb - ea) * t
    if top == _INT:
        top = _FLOAT  # interpolated ints are floats (NumPy, statistics)
    return _convert(exact, top, _float_type(a, b), _decimal_type(a, b))


def _as_interpolated(v: Any) -> Any:
    """A pick that stands for an interpolation: ints become floats (exact Fraction
    if too large), everything else is returned as stored."""
    if isinstance(v, (int, np.integer, np.bool_)):
        try:
            return float(int(v))
        except OverflowError:
            return Fraction(int(v))
    return v


def _quiet(v: Any) -> Any:
    """The quiet version of NaN ``v``: sign and payload kept; ``v`` itself if quiet."""
    if isinstance(v, Decimal):
        if v.is_qnan():
            return v
        t = v.as_tuple()
        return type(v)((t.sign, t.digits, "n"))
    if isinstance(v, float) and type(v) is float:
        bits = struct.unpack("<Q", struct.pack("<d", v))[0]
        if bits & _F64_QUIET:
            return v
        return struct.unpack("<d", struct.pack("<Q", bits | _F64_QUIET))[0]
    if isinstance(v, (np.floating, float)):
        arr = np.asarray(v)
        size = arr.dtype.itemsize
        if size not in (2, 4, 8):
            return v
        mant = {2: 10, 4: 23, 8: 52}[size]
        udt = np.dtype(f"u{size}")
        bits = int(arr.view(udt))
        quiet = 1 << (mant - 1)
        if bits & quiet:
            return v
        out = np.array(bits | quiet, dtype=udt).view(arr.dtype)[()]
        return type(v)(out) if not isinstance(out, type(v)) else out
    return v


# ---------------------------------------------------------------------------
# order statistics
# ---------------------------------------------------------------------------


def _check_quantile_args(stat: str, method: str | None, n: int) -> str:
    """Validate the arguments; return the method to use ("weibull" is "exclusive")."""
    if stat not in ORDER_STATS:
        raise ValueError(f"unknown order statistic {stat!r}; expected one of {ORDER_STATS}")
    if stat == "quantiles":
        method = {None: "exclusive", "linear": "inclusive", "weibull": "exclusive"}.get(
            method, method
        )
        if method not in ("inclusive", "exclusive"):
            raise ValueError(f"Unknown method: {method!r}")
        if n < 1:
            raise statistics.StatisticsError("n must be at least 1")
        return method
    method = {None: "linear", "weibull": "exclusive"}.get(method, method)
    if stat == "quantile" and method not in QUANTILE_METHODS:
        raise ValueError(
            f"unknown quantile method {method!r}; expected one of {QUANTILE_METHODS} "
            '("weibull" is accepted for "exclusive")'
        )
    return method


def _q_scalar(q: Any) -> float | Fraction:
    if isinstance(q, (float, np.floating)):
        qf = float(q)
        if not (0.0 <= qf <= 1.0):  # also NaN
            raise ValueError(f"Quantiles must be in the range [0, 1], got {q!r}")
        return qf
    try:
        qe = Fraction(_arith(q))
    except (TypeError, ValueError, OverflowError, ArithmeticError):
        raise ValueError(f"Quantiles must be real numbers in the range [0, 1], got {q!r}") from None
    if not (0 <= qe <= 1):
        raise ValueError(f"Quantiles must be in the range [0, 1], got {q!r}")
    return qe


def _q_structure(q: Any) -> tuple[bool, Any]:
    """(is_scalar, validated q or nested list of validated q)."""
    if q is None:
        raise TypeError("quantile needs q (a number in [0, 1] or a sequence of them)")
    if isinstance(q, (str, bytes)):
        raise TypeError(f"q must be a number or a sequence of numbers, got {q!r}")
    if np.ndim(q) == 0:
        if isinstance(q, np.ndarray):
            q = q[()]
        return True, _q_scalar(q)

    def walk(x: Any) -> Any:
        if isinstance(x, (list, tuple, np.ndarray)):
            return [walk(y) for y in x]
        return _q_scalar(x)

    return False, walk(list(q) if not isinstance(q, np.ndarray) else q.tolist())


def _q_map(qs: Any, fn: Any) -> Any:
    if isinstance(qs, list):
        return [_q_map(x, fn) for x in qs]
    return fn(qs)


def _positions(nn: int, q: float | Fraction, method: str) -> tuple[int, int, Fraction, str]:
    """NumPy's index arithmetic: (lo, hi, weight of hi, mode) over ``nn`` sorted items.

    Float ``q`` uses NumPy's float64 expressions (so indices agree with NumPy); exact
    ``q`` (int, Fraction, Decimal) exact arithmetic. ``mode`` is "pick" (take lo),
    "lerp" or "mid".
    """
    last = nn - 1
    if method in ("lower", "higher", "nearest"):
        h = last * q
        if method == "lower":
            idx = math.floor(h)
        elif method == "higher":
            idx = math.ceil(h)
        else:
            idx = round(h)  # half to even, as np.around
        idx = min(max(int(idx), 0), last)
        return idx, idx, Fraction(0), "pick"
    if method == "midpoint":
        h = last * q
        lo, hi = math.floor(h), math.ceil(h)
        if lo == hi:
            return lo, lo, Fraction(0), "pick"
        return lo, hi, Fraction(1, 2), "mid"
    if method == "exclusive":  # NumPy "weibull": n*q + (0 + q*(1 - 0 - 0)) - 1
        h = nn * q + q - 1
    else:  # linear, inclusive
        h = last * q
    if h < 0:
        return 0, 0, Fraction(0), "pick"
    if h >= last:
        return last, last, Fraction(0), "pick"
    lo = math.floor(h)
    t = Fraction(h) - lo
    if t == 0:
        return lo, lo, t, "pick"
    return lo, lo + 1, t, "lerp"


def _pick(item: tuple[Any, int]) -> Any:
    return None if item[1] == _MISS else item[0]


def _pick_interp(item: tuple[Any, int]) -> Any:
    v, code = item
    if code == _MISS:
        return None
    if code == _NAN:
        return v
    return _as_interpolated(v)


def _nan_neighbours(x: tuple[Any, int], y: tuple[Any, int]) -> tuple[bool, Any]:
    """Shared rules for interpolating two sorted items: missing wins as None, then
    NaN (quieted; the higher-ranked one if both are NaN)."""
    if x[1] == _MISS or y[1] == _MISS:
        return True, None
    if y[1] == _NAN:
        return True, _quiet(y[0])
    if x[1] == _NAN:
        return True, _quiet(x[0])
    return False, None


def _median(s: list[tuple[Any, int]]) -> Any:
    nn = len(s)
    if nn % 2:
        return _pick(s[nn // 2])
    x, y = s[nn // 2 - 1], s[nn // 2]
    done, r = _nan_neighbours(x, y)
    return r if done else _weighted(x[0], 1, y[0], 1, 2)


def _quantile_one(s: list[tuple[Any, int]], q: float | Fraction, method: str) -> Any:
    lo, hi, t, mode = _positions(len(s), q, method)
    if mode == "pick":
        if method in ("lower", "higher", "nearest"):
            return _pick(s[lo])
        return _pick_interp(s[lo])
    x, y = s[lo], s[hi]
    done, r = _nan_neighbours(x, y)
    if done:
        return r
    if mode == "mid":
        return _weighted(x[0], 1, y[0], 1, 2)
    return _lerp(x[0], y[0], t)


def _stat_quantiles(s: list[tuple[Any, int]], n: int, method: str) -> list[Any]:
    """``statistics.quantiles`` index arithmetic over sorted items."""
    ld = len(s)
    out = []
    for i in range(1, n):
        if method == "inclusive":
            j, delta = divmod(i * (ld - 1), n)
            x = s[j]
            y = s[j + 1] if j + 1 < ld else s[j]
        else:
            m = ld + 1
            j = i * m // n
            j = 1 if j < 1 else ld - 1 if j > ld - 1 else j
            delta = i * m - j * n
            x, y = s[j - 1], s[j]
        if delta == 0:
            if x[1] != _NUM:
                out.append(_pick(x))
            elif y[1] == _NUM:
                out.append(_weighted(x[0], n, y[0], 0, n))
            else:
                out.append(_weighted(x[0], n, 0, 0, n))
            continue
        done, r = _nan_neighbours(x, y)
        out.append(r if done else _weighted(x[0], n - delta, y[0], delta, n))
    return out


def _empty_order(stat: str, statistics_compat: bool, q: Any, method: str, n: int) -> Any:
    if statistics_compat:
        if stat in ("median", "median_low", "median_high"):
            getattr(statistics, stat)([])
        if stat == "quantiles":
            statistics.quantiles([], n=n, method=method)
        raise statistics.StatisticsError(f"no {stat} for empty data")
    if stat in ("argmin", "argmax"):
        raise ValueError(f"attempt to get {stat} of an empty sequence")
    if stat == "quantile":
        scalar, qs = _q_structure(q)
        return CANONICAL_NAN if scalar else _q_map(qs, lambda _: CANONICAL_NAN)
    if stat == "quantiles":
        return [CANONICAL_NAN] * (n - 1)
    return CANONICAL_NAN


def object_order_stat(
    values: Iterable,
    stat: str,
    *,
    q: Any = None,
    method: str | None = None,
    policy: NanPolicy | str,
    statistics_compat: bool = False,
    n: int = 4,
) -> Any:
    """An order statistic of a sequence of Python objects, exactly.

    Parameters
    ----------
    values : iterable
        ints of any size, bool, Fraction, Decimal, floats, NumPy scalars, missing
        values (None, pd.NA, NaT) in any mixture.
    stat : {"median", "median_low", "median_high", "quantile", "quantiles", "min", \
"max", "argmin", "argmax"}
        What to compute.
    q : float or sequence of float, optional
        For ``"quantile"``: in [0, 1]; a sequence gives a list (nested as ``q``).
    method : str, optional
        For ``"quantile"`` (default "linear"): "linear", "lower", "higher", "nearest",
        "midpoint" as :func:`numpy.quantile`, "inclusive" (= "linear") and "exclusive"
        (= NumPy's "weibull", also accepted by that name). For ``"quantiles"`` (default
        "exclusive"): "inclusive" or "exclusive", exactly as
        :func:`statistics.quantiles` ("linear" and "weibull" are accepted as aliases).
    policy : NanPolicy or str
        The ``nan_policy`` (see the "NaN semantics" page).
    statistics_compat : bool
        True for plain iterables: empty data (or nothing left under "omit") raises
        :class:`statistics.StatisticsError` as the standard library does. False (object
        arrays): empty gives the canonical NaN.
    n : int
        For ``"quantiles"``: the number of intervals.

    Returns
    -------
    object
        Picked results are the stored object (same type, bits, Decimal payload);
        interpolated ones follow :mod:`statistics` types. ``argmin``/``argmax`` give an
        int position. ``None`` where the result is missing (missing input under
        "propagate" with no NaN, or the selected rank falls among the missing values).
        ``"quantile"`` with a sequence ``q`` and ``"quantiles"`` give lists.

    Raises
    ------
    NaNError
        Under "raise" for NaN (kind "NaN") or missing (kind "missing") values.
    SignalingNaNError
        For signaling NaNs under every policy but "totalorder".
    TypeError
        For complex numbers, strings and other non-numbers (naming the position).
    statistics.StatisticsError
        For empty data with ``statistics_compat=True``.

    Examples
    --------
    >>> from fractions import Fraction
    >>> nan = float("nan")
    >>> object_order_stat([3, 1, 2, nan], "median", policy="smallest")
    1.5
    >>> object_order_stat([10**1000, 10**1000 + 1], "median", policy="raise") == (
    ...     Fraction(2 * 10**1000 + 1, 2))
    True
    >>> object_order_stat([1, 2, float("inf")], "quantile", q=0.5, policy="raise")
    2.0
    >>> object_order_stat([1, 2, 3, 4, 5], "quantiles", n=4, policy="raise",
    ...                   method="exclusive")
    [1.5, 3.0, 4.5]
    """
    policy = resolve_policy(policy)
    method = _check_quantile_args(stat, method, n)
    if stat == "quantile":
        q_scalar, qs = _q_structure(q)
    with localcontext() as ctx:
        # mixed Decimal/float ordering must not trip a user's FloatOperation trap
        ctx.traps[FloatOperation] = False
        sc = _scan(values, policy, "order statistics")

        if policy is NanPolicy.PROPAGATE and (sc.nans or sc.miss):
            best = sc.best_nan()
            r: Any = best[2] if best is not None else None
            pos: Any = best[1] if best is not None else None
            if stat in ("argmin", "argmax"):
                return pos
            if stat == "quantile":
                return r if q_scalar else _q_map(qs, lambda _: r)
            if stat == "quantiles":
                return [r] * (n - 1)
            return r

        placed = policy in (NanPolicy.SMALLEST, NanPolicy.LARGEST, NanPolicy.TOTALORDER)
        nans = sorted(sc.nans, key=_first) if placed else []
        nmiss = len(sc.miss) if placed else 0
        if not sc.nums and not nans and not nmiss:
            return _empty_order(stat, statistics_compat, q, method, n)
        # the policy's order: NaN blocks around the numbers, missing values last
        if policy is NanPolicy.SMALLEST:
            low, high = nans, []
        elif policy is NanPolicy.TOTALORDER:
            split = sum(1 for e in nans if e[0][0] == 0)  # negative NaNs first
            low, high = nans[:split], nans[split:]
        else:
            low, high = [], nans

        if stat in ("min", "argmin"):
            if low:
                e = low[0]
            elif sc.nums:
                e = _extreme_number(sc.nums, "min")
            elif high:
                e = high[0]
            else:
                return None
            return e[1] if stat == "argmin" else e[2]
        if stat in ("max", "argmax"):
            if nmiss:
                return None
            if high:
                e = high[-1]
            elif sc.nums:
                e = _extreme_number(sc.nums, "max")
            else:
                e = low[-1]
            return e[1] if stat == "argmax" else e[2]

        nums = sc.nums
        _sort_numbers(nums)
        s = (
            [(e[2], _NAN) for e in low]
            + [(e[2], _NUM) for e in nums]
            + [(e[2], _NAN) for e in high]
            + [(None, _MISS)] * nmiss
        )

        if stat == "median":
            return _median(s)
        if stat == "median_low":
            return _pick(s[(len(s) - 1) // 2])
        if stat == "median_high":
            return _pick(s[len(s) // 2])
        if stat == "quantile":
            if q_scalar:
                return _quantile_one(s, qs, method)
            return _q_map(qs, lambda qq: _quantile_one(s, qq, method))
        # quantiles
        if len(s) < 2:
            if statistics_compat:
                # the standard library decides (3.13 accepts one data point)
                statistics.quantiles([0] * len(s), n=n, method=method)
            if not s:
                return [CANONICAL_NAN] * (n - 1)
            return [_pick(s[0])] * (n - 1)
        return _stat_quantiles(s, n, method)


# ---------------------------------------------------------------------------
# moments
# ---------------------------------------------------------------------------


def _exact_sum(nums: list[Any]) -> Fraction | int:
    """Exact sum of finite numbers (partial sums per denominator, as ``statistics``)."""
    partials: dict[int, int] = {}
    get = partials.get
    for v in nums:
        try:
            num, den = v.as_integer_ratio()
        except AttributeError:
            e = _exact(v)
            num, den = (e, 1) if isinstance(e, int) else (e.numerator, e.denominator)
        partials[den] = get(den, 0) + num
    if not partials:
        return 0
    if len(partials) == 1 and 1 in partials:
        return partials[1]
    return sum((Fraction(num, den) for den, num in partials.items()), Fraction(0))


def _result_type(nums: list[Any]) -> tuple[int, type, type | None]:
    """(rank, float type, Decimal type) of a moment's result: the highest type rank
    present (``statistics`` where it can coerce, extended to every mixture)."""
    types = {type(v) for v in nums}
    rank = max((_rank_of_type(t) for t in types), default=_INT)
    ftypes = {t for t in types if issubclass(t, (float, np.floating))}
    ftype = ftypes.pop() if len(ftypes) == 1 else float
    dtypes = {t for t in types if issubclass(t, Decimal)}
    dtype = dtypes.pop() if len(dtypes) == 1 else Decimal
    return rank, ftype, dtype


def _float_sqrt_of_frac(num: int, den: int) -> float:
    """Correctly rounded sqrt(num/den) (as :mod:`statistics` computes it)."""
    width = 2 * 53 + 3
    qq = (num.bit_length() - den.bit_length() - width) // 2
    if qq >= 0:
        a = math.isqrt(num // (den << 2 * qq))
        a |= a * a * (den << 2 * qq) != num
        top, bottom = a << qq, 1
    else:
        a = math.isqrt((num << -2 * qq) // den)
        a |= a * a * den != (num << -2 * qq)
        top, bottom = a, 1 << -qq
    try:
        return top / bottom
    except OverflowError:
        raise OverflowError(
            "standard deviation too large for a float (the variance is exact: use var)"
        ) from None


def _decimal_sqrt_of_frac(num: int, den: int, dtype: type = Decimal) -> Decimal:
    """Correctly rounded sqrt(num/den) as a Decimal in the current context."""
    if num <= 0:
        return dtype("0.0")
    root = (dtype(num) / dtype(den)).sqrt()
    nr, dr = root.as_integer_ratio()
    plus = root.next_plus()
    np_, dp = plus.as_integer_ratio()
    if 4 * num * (dr * dp) ** 2 > den * (dr * np_ + dp * nr) ** 2:
        return plus
    minus = root.next_minus()
    nm, dm = minus.as_integer_ratio()
    if 4 * num * (dr * dm) ** 2 < den * (dr * nm + dm * nr) ** 2:
        return minus
    return root


def _check_ddof(ddof: Any) -> int | Fraction:
    """``ddof`` as an int, or an exact Fraction for a non-integral real number."""
    try:
        return operator.index(ddof)
    except TypeError:
        pass
    if not isinstance(ddof, (numbers.Real, Decimal)):
        raise TypeError(f"ddof must be a finite real number, got {ddof!r}")
    try:
        exact = Fraction(ddof) if not isinstance(ddof, np.floating) else Fraction(float(ddof))
    except (TypeError, ValueError, OverflowError):
        raise TypeError(f"ddof must be a finite real number, got {ddof!r}") from None
    return int(exact) if exact.denominator == 1 else exact


def _own_moment(nums: list[Any], stat: str, ddof: int | Fraction) -> Any:
    """Exact moments for what the standard library cannot do (type mixtures it does
    not coerce, overflow, arbitrary ``ddof``)."""
    rank, ftype, dtype = _result_type(nums)
    infs = [v for v in nums if _is_inf(v)]
    if stat in ("sum", "mean"):
        if infs:
            return _inf_result(infs, rank)
        total = _exact_sum(nums)
        if stat == "sum" and rank == _INT:
            return int(total)
        if stat == "mean":
            total = Fraction(total) / len(nums)
        return _convert(total, rank, ftype, dtype, keep_int=True)
    if infs:
        return CANONICAL_NAN
    sx_p: dict[int, int] = defaultdict(int)
    sxx_p: dict[int, int] = defaultdict(int)
    for v in nums:
        e = _exact(v)
        num, den = (e, 1) if isinstance(e, int) else (e.numerator, e.denominator)
        sx_p[den] += num
        sxx_p[den] += num * num
    count = len(nums)
    sx = sum((Fraction(a, d) for d, a in sx_p.items()), Fraction(0))
    sxx = sum((Fraction(a, d * d) for d, a in sxx_p.items()), Fraction(0))
    ss = (count * sxx - sx * sx) / count
    ms = ss / (count - ddof)
    if stat == "var":
        return _convert(ms, rank, ftype, dtype, keep_int=True)
    if rank == _DEC:
        return _decimal_sqrt_of_frac(ms.numerator, ms.denominator, dtype or Decimal)
    return _float_sqrt_of_frac(ms.numerator, ms.denominator)


_DELEGATE = {
    ("mean", 0): statistics.mean,
    ("mean", 1): statistics.mean,
    ("var", 0): statistics.pvariance,
    ("var", 1): statistics.variance,
    ("std", 0): statistics.pstdev,
    ("std", 1): statistics.stdev,
}


def _canonical_if_nan(r: Any) -> Any:
    if isinstance(r, (float, np.floating)) and r != r:
        return CANONICAL_NAN
    if isinstance(r, Decimal) and r.is_nan():
        return CANONICAL_NAN
    return r


def object_moment_stat(
    values: Iterable,
    stat: str,
    *,
    ddof: int | float | Fraction = 0,
    policy: NanPolicy | str,
    statistics_compat: bool = False,
) -> Any:
    """An exact moment statistic (mean, var, std, sum) of a sequence of Python objects.

    Computed exactly (Fraction/Decimal/int arithmetic) with result types as the
    :mod:`statistics` module gives them: ``mean`` of ints is an int when exact, else a
    float; Fractions give Fractions, Decimals Decimals (rounded once in the current
    decimal context), floats floats; ``std`` is a correctly rounded float (Decimal for
    Decimals). Mixtures the standard library refuses take the highest type rank
    present (int < Fraction < Decimal < float). Where a float result would overflow
    the exact ``Fraction`` is returned.

    Parameters
    ----------
    values : iterable
        Numbers, NaNs and missing values in any mixture.
    stat : {"mean", "var", "std", "sum"}
        What to compute.
    ddof : int or real
        Delta degrees of freedom for var/std: the divisor is ``n - ddof`` (a
        non-integral ``ddof`` is used exactly). ``n - ddof <= 0`` gives the canonical
        NaN (``StatisticsError`` with ``statistics_compat``).
    policy : NanPolicy or str
        "smallest", "largest" and "totalorder" behave as "propagate" (signaling NaNs
        do not raise under "totalorder").
    statistics_compat : bool
        True: empty data raises :class:`statistics.StatisticsError` as the standard
        library does; False: the canonical NaN. ``sum`` of nothing is 0 either way.

    Returns
    -------
    object
        The statistic; under "propagate" with NaNs the NaN greatest under totalOrder
        (as stored); ``None`` for missing input without NaN under "propagate".

    Examples
    --------
    >>> from fractions import Fraction
    >>> object_moment_stat([1, 2, 3], "mean", policy="raise")
    2
    >>> object_moment_stat([Fraction(1, 3), Fraction(1, 6)], "sum", policy="raise")
    Fraction(1, 2)
    >>> object_moment_stat([float("-inf"), float("inf")], "mean", policy="raise")
    nan
    >>> object_moment_stat([1, 2, None], "mean", policy="propagate") is None
    True
    """
    if stat not in MOMENT_STATS:
        raise ValueError(f"unknown moment statistic {stat!r}; expected one of {MOMENT_STATS}")
    policy = resolve_policy(policy)
    ddof = _check_ddof(ddof)
    sc = _scan(values, policy, "moment statistics")
    if policy is not NanPolicy.OMIT and (sc.nans or sc.miss):
        best = sc.best_nan()
        return best[2] if best is not None else None
    nums = [_arith(e[2]) for e in sc.nums]
    count = len(nums)

    if stat == "sum":
        return _own_moment(nums, "sum", 0) if nums else 0
    need = 1 if stat == "mean" else math.floor(ddof) + 1
    if count == 0 or (stat != "mean" and count - ddof <= 0):
        if statistics_compat:
            fn = _DELEGATE.get((stat, ddof if stat != "mean" else 0))
            if fn is not None:
                fn(nums)  # raises with the standard library's message
            raise statistics.StatisticsError(
                f"{stat} with ddof={ddof} requires at least {need} data points"
            )
        return CANONICAL_NAN
    if stat in ("var", "std") and any(_is_inf(v) for v in nums):
        return CANONICAL_NAN  # inf - inf: undefined (statistics gives inf or fails)
    if stat == "mean" and any(_is_inf(v) for v in nums):
        return _canonical_if_nan(_own_moment(nums, "mean", 0))
    fn = _DELEGATE.get((stat, 0 if stat == "mean" else ddof))
    if fn is not None:
        try:
            with localcontext() as ctx:
                ctx.traps[FloatOperation] = False
                return _canonical_if_nan(fn(nums))
        except (TypeError, OverflowError):
            pass
    return _canonical_if_nan(_own_moment(nums, stat, ddof))


# ---------------------------------------------------------------------------
# sort keys
# ---------------------------------------------------------------------------


def object_sort_keys(values: Sequence, policy: NanPolicy | str) -> list[tuple]:
    """A sort key per element whose order is the policy's order.

    Parameters
    ----------
    values : sequence
        Python objects (numbers, NaNs, missing values).
    policy : NanPolicy or str
        "totalorder", "smallest", "largest": NaNs placed accordingly, missing values
        after everything. "omit": keys as "largest" (NaNs and missing last) for the
        caller to drop them. "raise": ``NaNError`` if any NaN or missing value is
        present. "propagate" has no meaning for a sort (``ValueError``).

    Returns
    -------
    list of tuple
        Mutually comparable keys; equal keys mean objects of the same type and bits
        (missing values: of the same type). Keys of mixed Decimal/float data compare
        a Decimal with a float, which trips a ``decimal.FloatOperation`` trap if the
        caller enabled one; sort inside a ``decimal.localcontext`` without it.

    Raises
    ------
    SignalingNaNError
        For signaling NaNs under every policy but "totalorder".

    Examples
    --------
    >>> vals = [1.0, float("-nan"), -0.0, 0.0, None, float("nan")]
    >>> keys = object_sort_keys(vals, "totalorder")
    >>> [vals[i] for i in sorted(range(len(vals)), key=keys.__getitem__)]
    [nan, -0.0, 0.0, 1.0, nan, None]
    """
    policy = resolve_policy(policy)
    if policy is NanPolicy.PROPAGATE:
        raise ValueError(
            'nan_policy="propagate" has no meaning for a sort; use "totalorder", '
            '"smallest", "largest", "omit" or "raise"'
        )
    values = list(values)
    _scan(values, policy, "sorts")  # the policy checks
    return [_key(v, _describe(v), policy) for v in values]
