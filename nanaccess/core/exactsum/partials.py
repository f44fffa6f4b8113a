"""Mergeable exact partial sums for distributed reductions (dask)."""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np

from .common import CANONICAL_NAN, I64_MAX, SCALE, SumOverflowError, counts, idiv, prepare
from .compiled import compiled_digits
from .digits import W, digits_of, float_terms, int_hilo, int_square_terms, square_terms
from .extraction import negzero_rows, raw_rows, scan

__all__ = [
    "ExactPartials",
    "exact_partials",
    "merge_partials",
    "round_sum",
    "round_mean",
    "round_var",
]

# Distributed reductions (dask) need per-chunk partial results that merge exactly and
# round to the very bits of the one-shot functions. A partial holds the exact
# sum S and the exact sum of squares Q of the selected elements as Python integers in
# units of 2**-1074 (S) and 2**-2148 (Q): every finite float64, and every product of
# two, is an integer multiple of those, so merging is integer addition and the final
# rounding is Python's correctly rounded ``int / int`` (the same rounding the small-input
# path uses, and the tests check that path against the vectorised engine).


class ExactPartials(NamedTuple):
    """Mergeable exact partial sums of the rows of an array (see :func:`exact_partials`).

    Attributes
    ----------
    s : numpy.ndarray of object
        Per row, the exact sum of the selected finite values times ``2**1074`` (int).
    q : numpy.ndarray of object or None
        Per row, the exact sum of their squares times ``2**2148`` (int); ``None`` when
        squares were not requested.
    count : numpy.ndarray of int64
        Selected elements per row (infinities included).
    posinf, neginf, nan : numpy.ndarray of bool
        A selected ``+inf`` / ``-inf`` / NaN is present.
    negzero : numpy.ndarray of bool
        Every selected element is ``-0.0`` (vacuously true for an empty row).
    integer : bool
        The data were integers or booleans (sums are then int64, as :func:`exact_sum`).
    unsigned : bool
        The data were unsigned integers (sums are then uint64, as NumPy and pandas).
    """

    s: np.ndarray
    q: np.ndarray | None
    count: np.ndarray
    posinf: np.ndarray
    neginf: np.ndarray
    nan: np.ndarray
    negzero: np.ndarray
    integer: bool
    unsigned: bool = False


_Q_SCALE = 2 * SCALE


def _terms_to_ints(mant: np.ndarray, exp: np.ndarray, mbits: int, scale: int) -> np.ndarray:
    """Exact per-row ``sum(mant * 2**exp) * 2**scale`` as Python ints (object array)."""
    rows = mant.shape[0]
    out = np.empty(rows, dtype=object)
    if rows == 0:
        return out
    dig, neg, base = digits_of(mant, exp, mbits)
    cols = dig.T.tolist()
    for r in range(rows):
        v = 0
        for d in reversed(cols[r]):
            v = (v << W) | d
        sh = int(base[r]) + scale
        if sh >= 0:
            v <<= sh
        else:  # pragma: no cover - every term is a multiple of 2**-scale
            if v & ((1 << -sh) - 1):
                raise AssertionError("internal error: partial sum below the fixed scale")
            v >>= -sh
        out[r] = -v if neg[r] else v
    return out


def exact_partials(x: np.ndarray, where: np.ndarray | None = None, *,
                   squares: bool = True) -> ExactPartials:
    """Exact, mergeable partial sums of the rows (last axis) of ``x``.

    Partials of disjoint parts of a row merge exactly with :func:`merge_partials`, and
    :func:`round_sum`, :func:`round_mean` and :func:`round_var` of the merged partials
    give the same bits as :func:`exact_sum`, :func:`exact_mean` and :func:`exact_var` of
    the whole row.

    Parameters
    ----------
    x : numpy.ndarray
        float16/32/64, integer or bool data of shape ``(..., n)``.
    where : numpy.ndarray of bool, optional
        Elements to include, broadcastable to ``x``; default all.
    squares : bool, default True
        Also compute the exact sums of squares (needed by :func:`round_var`).

    Returns
    -------
    ExactPartials
        Per-row fields of shape ``x.shape[:-1]``.

    Examples
    --------
    >>> import numpy as np
    >>> from nanaccess.core.exactsum import exact_partials, merge_partials, round_mean
    >>> a = exact_partials(np.array([1e100, 1.0]))
    >>> b = exact_partials(np.array([-1e100, 2.0]))
    >>> float(round_mean(merge_partials(a, b)))
    0.75
    """
    x2, w2, lead, kind = prepare(x, where)
    rows = x2.shape[0]
    count = counts(x2, w2)
    posinf = np.zeros(rows, bool)
    neginf = np.zeros(rows, bool)
    nan = np.zeros(rows, bool)
    q = None
    if kind == "int":
        hi, lo = int_hilo(x2, w2)
        s = np.empty(rows, dtype=object)
        for r, (h, lw) in enumerate(zip(hi.tolist(), lo.tolist(), strict=True)):
            s[r] = ((h << 32) + lw) << SCALE
        if squares:
            xi = x2 if w2 is None else np.where(w2, x2, 0)
            mant, exp, mb = int_square_terms(xi)
            q = _terms_to_ints(mant, exp, mb, _Q_SCALE)
        negzero = count == 0
    elif (got := compiled_digits(x2, w2, squares)) is not None:
        s_list, q_list, _, posinf, neginf, nan, raw = got
        s = np.empty(rows, dtype=object)
        s[:] = s_list
        if squares:
            q = np.empty(rows, dtype=object)
            q[:] = q_list
            redo = np.flatnonzero(raw & ~(posinf | neginf | nan))
            if redo.size:  # squares beyond the kernel's range: the digit engine
                mant, exp, mb = square_terms(raw_rows(x2, w2, redo))
                q[redo] = _terms_to_ints(mant, exp, mb, _Q_SCALE)
        negzero = count == 0
        zero = np.flatnonzero((s == 0) & ~(posinf | neginf | nan) & (count > 0))
        if zero.size:
            negzero[zero] = negzero_rows(x2, w2, zero)
    else:
        sc = scan(x2, w2, want_sum=True, want_sq=squares)
        mant, exp = float_terms(sc.t_sum)
        s = _terms_to_ints(mant, exp, 53, SCALE)
        if squares:
            mant, exp = float_terms(sc.t_sq)
            q = _terms_to_ints(mant, exp, 53, _Q_SCALE)
        raw = np.flatnonzero(sc.raw & ~sc.nonfinite)
        if raw.size:
            xr = raw_rows(x2, w2, raw)
            mant, exp = float_terms(xr)
            s[raw] = _terms_to_ints(mant, exp, 53, SCALE)
            if squares:
                mant, exp, mb = square_terms(xr)
                q[raw] = _terms_to_ints(mant, exp, mb, _Q_SCALE)
        posinf, neginf, nan = sc.posinf, sc.neginf, sc.nan
        negzero = count == 0
        zero = np.flatnonzero((s == 0) & ~sc.nonfinite & (count > 0))
        if zero.size:
            negzero[zero] = negzero_rows(x2, w2, zero)
    return ExactPartials(
        s.reshape(lead), None if q is None else q.reshape(lead), count.reshape(lead),
        posinf.reshape(lead), neginf.reshape(lead), nan.reshape(lead),
        np.asarray(negzero, bool).reshape(lead), kind == "int", x.dtype.kind == "u",
    )


def merge_partials(*parts: ExactPartials) -> ExactPartials:
    """Exact merge (elementwise addition) of partials of disjoint parts of the same rows.

    Parameters
    ----------
    *parts : ExactPartials
        One or more partials of equal row shapes.

    Returns
    -------
    ExactPartials
        The partials of the union of the parts.

    Examples
    --------
    >>> import numpy as np
    >>> from nanaccess.core.exactsum import exact_partials, merge_partials, round_sum
    >>> p = merge_partials(exact_partials(np.array([0.1, 0.2])), exact_partials(np.array([0.3])))
    >>> float(round_sum(p)) == 0.6
    True
    """
    if not parts:
        raise ValueError("merge_partials needs at least one partial")
    out = parts[0]
    for p in parts[1:]:
        out = ExactPartials(
            out.s + p.s,
            None if out.q is None or p.q is None else out.q + p.q,
            out.count + p.count,
            out.posinf | p.posinf,
            out.neginf | p.neginf,
            out.nan | p.nan,
            out.negzero & p.negzero,
            out.integer and p.integer,
            out.unsigned and p.unsigned,
        )
    return out


def _flat(p: ExactPartials) -> Any:
    shape = np.shape(p.count)
    s = np.asarray(p.s, dtype=object).reshape(-1)
    q = None if p.q is None else np.asarray(p.q, dtype=object).reshape(-1)
    flags = [np.asarray(f, bool).reshape(-1) for f in (p.posinf, p.neginf, p.nan, p.negzero)]
    return shape, s, q, np.asarray(p.count, np.int64).reshape(-1), flags


def _round_rows(s: Any, divisors: Any, posinf: Any, neginf: Any, nan: Any,
                negzero: Any) -> np.ndarray:
    """Per row: exact ``s / divisor`` rounded once, after the IEEE special cases
    (NaN or both infinities -> canonical NaN, one infinity -> it, exact zero -> -0.0
    where ``negzero`` else +0.0)."""
    out = np.empty(s.size, np.float64)
    for r, (v, d) in enumerate(zip(s.tolist(), divisors, strict=True)):
        if nan[r] or (posinf[r] and neginf[r]):
            out[r] = CANONICAL_NAN
        elif posinf[r] or neginf[r]:
            out[r] = math.inf if posinf[r] else -math.inf
        elif v == 0:
            out[r] = -0.0 if negzero[r] else 0.0
        else:
            out[r] = idiv(v, d)
    return out


def round_sum(p: ExactPartials) -> np.ndarray:
    """The bits of :func:`exact_sum` from (merged) partials.

    Parameters
    ----------
    p : ExactPartials
        From :func:`exact_partials` / :func:`merge_partials`.

    Returns
    -------
    numpy.ndarray
        float64 (float data) or int64 (integer data), shape of the rows.

    Raises
    ------
    OverflowError
        An integer row sum does not fit in int64; the message names the row.

    Examples
    --------
    >>> import numpy as np
    >>> from nanaccess.core.exactsum import exact_partials, round_sum
    >>> float(round_sum(exact_partials(np.array([1.0, 1e100, 1.0, -1e100]))))
    2.0
    """
    shape, s, _q, count, (posinf, neginf, nan, negzero) = _flat(p)
    lead = tuple(shape)
    if p.integer:
        # unsigned data sum to uint64 (as exact_sum), signed to int64
        lo, hi, dt = (0, (1 << 64) - 1, np.uint64) if p.unsigned else (
            -(1 << 63), I64_MAX, np.int64)
        out = np.empty(s.size, dt)
        for r, v in enumerate(s.tolist()):
            v >>= SCALE
            if not lo <= v <= hi:
                raise SumOverflowError(r, lead, v, np.dtype(dt).name)
            out[r] = v
        return out.reshape(lead)
    divisors = [1 << SCALE] * s.size
    return _round_rows(s, divisors, posinf, neginf, nan, negzero & (count > 0)).reshape(lead)


def round_mean(p: ExactPartials) -> np.ndarray:
    """The bits of :func:`exact_mean` from (merged) partials.

    Parameters
    ----------
    p : ExactPartials
        From :func:`exact_partials` / :func:`merge_partials`.

    Returns
    -------
    numpy.ndarray
        float64, shape of the rows; count 0 gives the canonical NaN.

    Examples
    --------
    >>> import numpy as np
    >>> from nanaccess.core.exactsum import exact_partials, round_mean
    >>> float(round_mean(exact_partials(np.array([1e308, 1e308, -1e308]))))
    3.333333333333333e+307
    """
    shape, s, _q, count, (posinf, neginf, nan, negzero) = _flat(p)
    divisors = [int(n) << SCALE for n in count.tolist()]
    out = _round_rows(s, divisors, posinf, neginf, nan | (count == 0),
                      negzero & (not p.integer))
    return out.reshape(tuple(shape))


def round_var(p: ExactPartials, ddof: float = 0) -> np.ndarray:
    """The bits of :func:`exact_var` from (merged) partials with squares.

    Parameters
    ----------
    p : ExactPartials
        From :func:`exact_partials` (``squares=True``) / :func:`merge_partials`.
    ddof : int or float, default 0
        Delta degrees of freedom, as :func:`exact_var`.

    Returns
    -------
    numpy.ndarray
        float64, shape of the rows; canonical NaN where ``count - ddof <= 0`` or a
        selected value is infinite (or NaN).

    Examples
    --------
    >>> import numpy as np
    >>> from nanaccess.core.exactsum import exact_partials, round_var
    >>> float(round_var(exact_partials(np.array([1.0, 2.0, 3.0, 4.0])), ddof=1))
    1.6666666666666667
    """
    if p.q is None:
        raise ValueError("round_var needs partials computed with squares=True")
    shape, s, q, count, (posinf, neginf, nan, _nz) = _flat(p)
    ddof_int = int(ddof) if float(ddof) == int(ddof) else None
    out = np.empty(s.size, np.float64)
    frac = np.zeros(s.size, bool)
    for r, (sv, qv) in enumerate(zip(s.tolist(), q.tolist(), strict=True)):
        n = int(count[r])
        if nan[r] or posinf[r] or neginf[r] or n - ddof <= 0:
            out[r] = CANONICAL_NAN
            continue
        num = n * qv - sv * sv
        if ddof_int is not None:
            out[r] = idiv(num, (n * (n - ddof_int)) << _Q_SCALE)
        else:
            out[r] = idiv(num, (n * n) << _Q_SCALE)
            frac[r] = True
    if frac.any():
        with np.errstate(divide="ignore", invalid="ignore"):
            adj = out * count / (count - ddof)
        out = np.where(frac, adj, out)
    return out.reshape(tuple(shape))
