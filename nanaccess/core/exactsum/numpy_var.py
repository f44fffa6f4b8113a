"""The NumPy engine of the exact variance: the reference every compiled path falls
back to and is tested against (:func:`exact_var_numpy`), and the exactly rounded
variance of exact sums (:func:`var_of_terms`).

A seam of :mod:`.oneshot`, so the compiled engine (:mod:`.compiled`) reaches its
fallback without importing the module that imports it.
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np

from .common import CANONICAL_NAN, counts, finish, prepare
from .digits import (
    digits_of,
    div_round,
    float_terms,
    hilo_terms,
    int_fits_float,
    int_hilo,
    int_square_terms,
    min_exp,
    normalize,
    square_digits,
    square_terms,
)
from .extraction import raw_rows, scan
from .small import small_stat

__all__ = ["exact_var_numpy", "numpy_var_rows", "var_of_terms", "SMALL"]

#: inputs with at most this many elements take the Python-int path (:mod:`.small`)
SMALL = 64


def exact_var_numpy(x: np.ndarray, ddof: float = 0,
                    where: np.ndarray | None = None) -> np.ndarray:
    """:func:`nanaccess.core.exactsum.exact_var` by the NumPy engine only (the
    compiled engine's fallback for rows it cannot take)."""
    x2, w2, lead, kind = prepare(x, where)
    if x2.size <= SMALL:
        return small_stat(x2, w2, lead, kind, "var", ddof)
    return numpy_var_rows(x2, w2, lead, kind, ddof)


def numpy_var_rows(x2: Any, w2: Any, lead: Any, kind: Any, ddof: Any) -> np.ndarray:
    """The NumPy engine's variance of prepared rows (``x2``, ``w2`` from ``prepare``)."""
    count = counts(x2, w2)
    ddof_int = int(ddof) if float(ddof) == int(ddof) else None
    if kind == "int" and not int_fits_float(x2, w2):
        xi = x2 if w2 is None else np.where(w2, x2, 0)
        s_terms = hilo_terms(*int_hilo(x2, w2))
        res = var_of_terms(s_terms, int_square_terms(xi), count, ddof_int, ddof)
        return finish(np.where(count - ddof <= 0, CANONICAL_NAN, res), lead)
    if kind == "int":
        x2 = x2.astype(np.float64)
    sc = scan(x2, w2, want_sum=True, want_sq=True)
    s_mant, s_exp = float_terms(sc.t_sum)
    q_mant, q_exp = float_terms(sc.t_sq)
    res = var_of_terms((s_mant, s_exp, 53), (q_mant, q_exp, 53), count, ddof_int, ddof)
    raw = np.flatnonzero(sc.raw & ~sc.nonfinite)
    if raw.size:
        xr = raw_rows(x2, w2, raw)
        s_mant, s_exp = float_terms(xr)
        res[raw] = var_of_terms((s_mant, s_exp, 53), square_terms(xr), count[raw], ddof_int, ddof)
    bad = sc.nonfinite | (count - ddof <= 0)
    return finish(np.where(bad, CANONICAL_NAN, res), lead)


def var_of_terms(s_terms: Any, q_terms: Any, count: Any, ddof_int: int | None,
                 ddof: float) -> np.ndarray:
    """Exactly rounded variance from exact terms of S = sum(x) and Q = sum(x*x)."""
    s_mant, s_exp, s_mb = s_terms
    q_mant, q_exp, q_mb = q_terms
    b = np.minimum(2 * min_exp(s_mant, s_exp), min_exp(q_mant, q_exp))
    bs = b >> 1  # floor(b / 2): base of S, and 2*bs <= both natural bases
    bq = 2 * bs
    sd, _, _ = digits_of(s_mant, s_exp, s_mb, bs)
    qd, _, _ = digits_of(q_mant, q_exp, q_mb, bq)
    s2 = square_digits(sd)
    P = max(qd.shape[0], s2.shape[0]) + 3
    num = np.zeros((P, qd.shape[1]), np.int64)
    num[: qd.shape[0]] = qd * count  # < 2**26 * 2**37
    num[: s2.shape[0]] -= s2
    neg = normalize(num)
    if neg.any():  # pragma: no cover - n*Q >= S*S always holds exactly
        raise AssertionError("internal error: negative exact variance numerator")
    n = np.maximum(count, 1)
    if ddof_int is not None:
        den = np.maximum(count - ddof_int, 1)
        return div_round(num, bq, neg, [n, den])
    pop = div_round(num, bq, neg, [n, n])
    with np.errstate(divide="ignore", invalid="ignore"):
        return cast("np.ndarray", pop * count / (count - ddof))
