"""The one-shot exact sums of in-memory arrays (see :mod:`nanaccess.core.exactsum`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import numpy as np

from .certified_numpy import BLOCK as _CERT_BLOCK
from .certified_numpy import certified_numpy_1d
from .common import CANONICAL_NAN, SumOverflowError, counts, finish, prepare
from .compiled import compiled_rows
from .digits import (
    digits_of,
    div_round,
    float_terms,
    hilo_terms,
    int_fits_float,
    int_hilo,
    int_square_terms,
    round_digits,
    square_terms,
)
from .extraction import Scan, negzero_rows, raw_rows, scan
from .numpy_var import SMALL, exact_var_numpy, numpy_var_rows
from .small import small_stat

__all__ = ["exact_sum", "exact_mean", "exact_sum_of_squares", "exact_var", "exact_var_numpy"]



def exact_sum(x: np.ndarray, where: np.ndarray | None = None) -> np.ndarray:
    """Correctly rounded (float) or exact (integer) sum along the last axis.

    Parameters
    ----------
    x : numpy.ndarray
        float16/32/64, integer or bool data of shape ``(..., n)``; NaN-free where
        selected (a selected NaN gives the canonical NaN).
    where : numpy.ndarray of bool, optional
        Elements to include, broadcastable to ``x``; default all.

    Returns
    -------
    numpy.ndarray
        Shape ``x.shape[:-1]``: float64 for float input (the exact sum rounded once,
        half-even; ``+inf`` with ``-inf`` gives the canonical NaN), int64 for
        integer/bool input.

    Raises
    ------
    OverflowError
        An integer row sum does not fit in int64; the message names the row.

    Examples
    --------
    >>> import numpy as np
    >>> from nanaccess.core.exactsum import exact_sum
    >>> float(exact_sum(np.array([1.0, 1e100, 1.0, -1e100])))
    2.0
    >>> float(exact_sum(np.array([1e308, 1e308, -1e308])))
    1e+308
    >>> exact_sum(np.array([[0.1, 0.2, 0.3], [1.0, 2.0, 3.0]]), where=np.array([True, True, False]))
    array([0.3, 3. ])
    >>> exact_sum(np.array([2**62, 2**62, -(2**62)], dtype=np.int64))
    array(4611686018427387904)
    """
    if x.dtype.kind == "u":
        return _unsigned_sum(x, where)
    x2, w2, lead, kind = prepare(x, where)
    rows = x2.shape[0]
    if x2.size <= SMALL:
        return small_stat(x2, w2, lead, kind, "sum")
    if kind == "int":
        hi, lo = int_hilo(x2, w2)
        bad = (hi < -(1 << 31)) | (hi >= 1 << 31)
        if bad.any():
            r = int(np.flatnonzero(bad)[0])
            value = int(hi[r]) * (1 << 32) + int(lo[r])
            more = f" ({int(bad.sum())} of {rows} rows overflow)" if rows > 1 else ""
            raise SumOverflowError(r, lead, value, "int64", more)
        return finish((hi << 32) + lo, lead)
    got = compiled_rows(x2, w2, "sum")
    if got is None and w2 is None:  # the NumPy engine's certified pass
        got = _certified(x2, "sum", _sum_engine)
    if got is None:
        got = _sum_engine(x2, w2)
    return finish(got, lead)


def _sum_engine(x2: np.ndarray, w2: np.ndarray | None) -> np.ndarray:
    """The NumPy engine's exact row sums of float rows (extraction, digits, specials)."""
    res, sc = _rounded(x2, w2, False, lambda dig, neg, base, rows: round_digits(dig, base, neg))
    return _ieee_specials(res, sc, x2, w2)


#: rows at least this long (one cache block of :mod:`.certified_numpy`) are certified
#: one by one: the loop runs once per block of values, as the pass itself does
_ROW_MIN = _CERT_BLOCK


def _certified(x2: np.ndarray, stat: str,
               engine: Callable[[np.ndarray, None], np.ndarray]) -> np.ndarray | None:
    """Row results of ``stat`` with every row the certified pass
    (:mod:`.certified_numpy`) proves, ``engine`` on the others; None when it serves
    no row (one row not proven: the caller's engine runs on ``x2`` itself)."""
    rows = x2.shape[0]
    if rows > 1 and x2.shape[1] < _ROW_MIN:
        return None
    vals = [certified_numpy_1d(row, stat) for row in x2]
    bad = [i for i, v in enumerate(vals) if v is None]
    if len(bad) == rows:
        return None
    out = np.array([0.0 if v is None else v for v in vals])
    if bad:
        out[bad] = engine(x2[bad], None)
    return out


Rounding = Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None], np.ndarray]


def _rounded(x2: Any, w2: Any, squares: bool, rounding: Rounding) -> tuple[np.ndarray, Scan]:
    """Per-row results of float rows: the extraction front end's level sums (of the
    values, or of their squares) rounded by ``rounding(dig, neg, base, rows)``, and
    the rows the front end could not take through the digit engine directly
    (``rows`` is None for all rows, else the row indices)."""
    sc = scan(x2, w2, want_sum=not squares, want_sq=squares)
    mant, exp = float_terms(sc.t_sq if squares else sc.t_sum)
    res = rounding(*digits_of(mant, exp, 53), None)
    raw = np.flatnonzero(sc.raw & ~sc.nonfinite)
    if raw.size:
        xr = raw_rows(x2, w2, raw)
        terms = square_terms(xr) if squares else (*float_terms(xr), 53)
        res[raw] = rounding(*digits_of(*terms), raw)
    return res, sc


def _ieee_specials(res: np.ndarray, sc: Scan, x2: Any, w2: Any) -> np.ndarray:
    """Infinities and NaNs of the rows (as IEEE addition), and ``-0.0`` where every
    selected element is ``-0.0`` (a sum or mean)."""
    res = np.where(sc.posinf, np.inf, res)
    res = np.where(sc.neginf, -np.inf, res)
    res = np.where((sc.posinf & sc.neginf) | sc.nan, CANONICAL_NAN, res)
    zero = np.flatnonzero((res == 0) & ~np.signbit(res))  # exact zero or + underflow
    if zero.size:
        res[zero] = np.where(negzero_rows(x2, w2, zero), -0.0, 0.0)
    return res


def exact_mean(x: np.ndarray, where: np.ndarray | None = None) -> np.ndarray:
    """Correctly rounded mean (exact sum / count, rounded once) along the last axis.

    Parameters
    ----------
    x : numpy.ndarray
        float16/32/64, integer (any int64/uint64 magnitude) or bool data, ``(..., n)``.
    where : numpy.ndarray of bool, optional
        Elements to include, broadcastable to ``x``; default all.

    Returns
    -------
    numpy.ndarray
        float64 of shape ``x.shape[:-1]``; a row with count 0 gives the canonical NaN.

    Examples
    --------
    >>> import numpy as np
    >>> from nanaccess.core.exactsum import exact_mean
    >>> float(exact_mean(np.array([1e308, 1e308, -1e308])))
    3.333333333333333e+307
    >>> exact_mean(np.array([[1, 2], [3, 5]]), where=np.array([[True, True], [False, False]]))
    array([1.5, nan])
    >>> big = np.array([2**62 + 1, -(2**62), 1], dtype=np.int64)  # exact sum 2
    >>> float(exact_mean(big)), float(np.mean(big))  # NumPy rounds to float64 first
    (0.6666666666666666, 0.3333333333333333)
    """
    x2, w2, lead, kind = prepare(x, where)
    if x2.size <= SMALL:
        return small_stat(x2, w2, lead, kind, "mean")
    if kind == "int":
        count = counts(x2, w2)
        div = np.maximum(count, 1)
        mant, exp, mb = hilo_terms(*int_hilo(x2, w2))
        dig, neg, base = digits_of(mant, exp, mb)
        res = div_round(dig, base, neg, [div])
        return finish(np.where(count == 0, CANONICAL_NAN, res), lead)
    got = compiled_rows(x2, w2, "mean")
    if got is None and w2 is None:
        got = _certified(x2, "mean", _mean_engine)
    if got is None:
        got = _mean_engine(x2, w2)
    return finish(got, lead)


def _mean_engine(x2: np.ndarray, w2: np.ndarray | None) -> np.ndarray:
    """The NumPy engine's exact row means of float rows (count 0: the canonical NaN)."""
    count = counts(x2, w2)
    div = np.maximum(count, 1)
    res, sc = _rounded(
        x2, w2, False,
        lambda dig, neg, base, rows: div_round(dig, base, neg,
                                                [div if rows is None else div[rows]]),
    )
    res = _ieee_specials(res, sc, x2, w2)
    return np.where(count == 0, CANONICAL_NAN, res)


def _unsigned_sum(x: np.ndarray, where: np.ndarray | None) -> np.ndarray:
    """Exact uint64 sums of unsigned rows (as NumPy and pandas: unsigned data sum to
    uint64): the 32-bit halves are summed exactly as int64, then joined; an
    OverflowError names the first row whose sum does not fit in uint64."""
    u = x.astype(np.uint64, copy=False)
    hi = exact_sum((u >> np.uint64(32)).astype(np.int64), where)
    lo = exact_sum((u & np.uint64(0xFFFFFFFF)).astype(np.int64), where)
    hi, lo = np.asarray(hi), np.asarray(lo)
    # hi * 2**32 + lo < 2**64  <=>  hi + (lo >> 32) < 2**32 (then the low words add)
    carry = lo >> 32
    bad = (hi + carry) >= (1 << 32)
    if bad.any():
        r = int(np.flatnonzero(bad.ravel())[0])
        value = int(hi.ravel()[r]) * (1 << 32) + int(lo.ravel()[r])
        raise OverflowError(f"exact unsigned sum of row {r} is {value}, which does not "
                            "fit in uint64")
    top = (hi + carry).astype(np.uint64) << np.uint64(32)
    return cast("np.ndarray", top + (lo & 0xFFFFFFFF).astype(np.uint64))


def exact_sum_of_squares(x: np.ndarray, where: np.ndarray | None = None) -> np.ndarray:
    """Correctly rounded sum of ``x * x`` (every square exact) along the last axis.

    Parameters
    ----------
    x : numpy.ndarray
        float16/32/64, integer or bool data of shape ``(..., n)``.
    where : numpy.ndarray of bool, optional
        Elements to include, broadcastable to ``x``; default all.

    Returns
    -------
    numpy.ndarray
        float64 of shape ``x.shape[:-1]``; ``+inf`` when a selected value is infinite
        or the sum exceeds the float64 range; ``+0.0`` for an empty row.

    Examples
    --------
    >>> import numpy as np
    >>> from nanaccess.core.exactsum import exact_sum_of_squares
    >>> float(exact_sum_of_squares(np.array([3.0, 4.0])))
    25.0
    >>> float(exact_sum_of_squares(np.array([1e-200, 1e200])))
    inf
    >>> float(exact_sum_of_squares(np.array([1 + 2**-52, -1.0])))  # (1+u)^2 + 1, exactly
    2.0000000000000004
    """
    x2, w2, lead, kind = prepare(x, where)
    if x2.size <= SMALL:
        return small_stat(x2, w2, lead, kind, "sumsq")
    if kind == "int" and not int_fits_float(x2, w2):
        xi = x2 if w2 is None else np.where(w2, x2, 0)
        mant, exp, mb = int_square_terms(xi)
        dig, neg, base = digits_of(mant, exp, mb)
        return finish(round_digits(dig, base, neg), lead)
    if kind == "int":
        x2 = x2.astype(np.float64)
    res, sc = _rounded(x2, w2, True, lambda dig, neg, base, rows: round_digits(dig, base, neg))
    res = np.where(sc.posinf | sc.neginf, np.inf, res)
    return finish(np.where(sc.nan, CANONICAL_NAN, res), lead)


def exact_var(x: np.ndarray, ddof: float = 0, where: np.ndarray | None = None) -> np.ndarray:
    """Exactly rounded variance ``sum((x - mu)**2) / (count - ddof)`` along the last axis.

    ``mu`` is the exact (rational) mean and the result is rounded once, so it is
    permutation invariant and equals :func:`statistics.pvariance` / ``variance`` bit
    for bit on float data.

    Parameters
    ----------
    x : numpy.ndarray
        float16/32/64, integer (any int64/uint64 magnitude) or bool data, ``(..., n)``.
    ddof : int or float, default 0
        Delta degrees of freedom. A non-integer ``ddof`` is applied to the exactly
        rounded ``ddof=0`` variance in floating point.
    where : numpy.ndarray of bool, optional
        Elements to include, broadcastable to ``x``; default all.

    Returns
    -------
    numpy.ndarray
        float64 of shape ``x.shape[:-1]``; canonical NaN where ``count - ddof <= 0``
        or a selected value is infinite.

    Examples
    --------
    >>> import numpy as np
    >>> from nanaccess.core.exactsum import exact_var
    >>> float(exact_var(np.array([1.0, 2.0, 3.0, 4.0])))
    1.25
    >>> float(exact_var(np.array([1.0, 2.0, 3.0, 4.0]), ddof=1))
    1.6666666666666667
    >>> x = np.array([1.0, 1.0 + 2**-52, 1.0 + 2**-52])  # spread of one ulp
    >>> bool(exact_var(x) == 2 * 2.0**-104 / 9)
    True
    >>> exact_var(np.array([5.0]), ddof=1)
    array(nan)
    """
    return _exact_var(x, ddof, where, compiled=True)


def _exact_var(x: Any, ddof: Any, where: Any, compiled: bool) -> np.ndarray:
    x2, w2, lead, kind = prepare(x, where)
    if x2.size <= SMALL:
        return small_stat(x2, w2, lead, kind, "var", ddof)
    if compiled and (kind == "float" or int_fits_float(x2, w2)):
        got = compiled_rows(x2, w2, "var", ddof)
        if got is not None:
            return finish(got, lead)
    return numpy_var_rows(x2, w2, lead, kind, ddof)
