"""Weighted mean, sum, var, std and sem: exact, rounded once.

Frequency weights: the sum is ``S = sum(w x)``, the mean ``S / W`` with
``W = sum(w)``, the variance ``sum(w (x - S/W)**2) / (W - ddof)`` (``ddof`` subtracts
from the total weight), the standard deviation its square root. Every product is
split exactly into float64 terms (Dekker's two-product, exact for values and
weights within ``2**-300 .. 2**300``), the terms are summed exactly by
:func:`nanaccess.core.exactsum.exact_partials`, and each row is rounded once from
those exact integers, every row at once (NumPy's object loops over Python ints:
no Python loop per row or group). So integer weights give the bits of the unweighted
statistic of the repeated data, and every permutation of the pairs gives the same
bits. Rows outside that range (rare: huge or tiny magnitudes, ints beyond ``2**53``)
are summed with Python fractions instead, element by element for those rows only.

The mean, sum, var and std of float data (and of ints within ``2**53``, but for an
integer sum) first go through :mod:`.certified` (compiled double-double sums with a
certified rounding): the rows it certifies have these exact bits already, and only
the others are summed here. The sem is the correctly rounded square root of its
exact square (as the unweighted sem), the std the square root of the rounded var.

Reliability weights (``weights_kind="reliability"``, :func:`numpy.cov`'s
``aweights``): the variance divides by ``W - ddof * V / W`` with ``V = sum(w**2)``
(summed exactly as the others), that is ``(W Q - S**2) / (W**2 - ddof V)``; the sem
divides the variance by the effective count ``W**2 / V`` (frequency weights: by
``W``). Non-integer frequency weights whose total leaves ``W - ddof < 1`` raise
:class:`~nanaccess.errors.TotalWeightError`; integer ones give NaN for ``W <= ddof``.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, cast

import numpy as np

from ... import _stats
from ...errors import TotalWeightError
from ..exactsum import exact_partials
from ..exactsum.common import CANONICAL_NAN, SCALE, idiv
from ..higher.finish import round_sqrt
from ..moments import result_dtype
from ..policy import RULES
from .certified import certified_rows
from .prepare import Prepared, greatest_nan_of

__all__ = ["weighted_moment", "total_doubt", "weights_kind_of"]

_SPLIT = 134217729.0  # 2**27 + 1 (Veltkamp)
_SAFE_LO, _SAFE_HI = 2.0 ** -300, 2.0 ** 300


def _split(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    c = _SPLIT * a
    hi = c - (c - a)
    return hi, a - hi


def _two_product(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``a * b == p + e`` exactly (no overflow or underflow inside the safe range)."""
    p = a * b
    ah, al = _split(a)
    bh, bl = _split(b)
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    return p, e


def _ints(terms: np.ndarray) -> np.ndarray:
    """Per row, the exact sum of the float64 terms times ``2**1074`` (an object array
    of Python ints)."""
    return exact_partials(terms, squares=False).s.reshape(-1)


def _fraction_rows(x: np.ndarray, w: np.ndarray, want_sq: bool) -> Any:
    """Exact S, W, Q, V (times 2**1074, as the vectorised path) of a few rows."""
    out = []
    unit = 1 << SCALE
    for xr, wr in zip(x.tolist(), w.tolist(), strict=True):
        s = wt = sq = v2 = Fraction(0)
        for v, k in zip(xr, wr, strict=True):
            if k == 0 or v in (np.inf, -np.inf):
                continue
            fv, fk = Fraction(v), Fraction(k)
            s += fk * fv
            wt += fk
            v2 += fk * fk
            if want_sq:
                sq += fk * fv * fv
        out.append((s * unit, wt * unit, sq * unit, v2 * unit))
    return out


def _ratio(a: Any, b: Any) -> float:
    """Correctly rounded a / b (b > 0) for Python ints, or fractions (slow rows)."""
    if type(a) is int and type(b) is int:
        return idiv(a, b)
    v = Fraction(a) / Fraction(b)
    return idiv(v.numerator, v.denominator)


def weights_kind_of(stat: str, params: dict[str, Any]) -> str:
    """The ``weights_kind`` of ``params`` (popped; "frequency" when not given),
    checked: a TypeError for a statistic without it, a ValueError for an unknown
    kind."""
    kind = params.pop("weights_kind", "frequency")
    if kind not in _stats.WEIGHTS_KIND_CHOICES:
        raise ValueError(f"weights_kind must be one of "
                         f"{', '.join(map(repr, _stats.WEIGHTS_KIND_CHOICES))}, got {kind!r}")
    if kind != "frequency" and stat not in _stats.WEIGHTS_KINDS:
        raise TypeError(f"{stat}() takes no weights_kind; statistics with reliability "
                        f"weights are {', '.join(sorted(_stats.WEIGHTS_KINDS))}")
    return cast("str", kind)


def total_doubt(total: np.ndarray, ddof: float, stat: str, kind: str) -> np.ndarray | None:
    """Rows (or groups) whose float total weight ``total`` may leave ``W - ddof < 1``
    (the :class:`~nanaccess.errors.TotalWeightError` check, decided on exact sums
    only): the certified fast paths leave them to the exact engine. None: no row is
    in doubt (not a frequency-weighted spread with ``ddof > 0``)."""
    if kind != "frequency" or not ddof > 0 or stat not in _stats.WEIGHTS_KINDS:
        return None
    return np.asarray(total) < ddof + 2


def weighted_moment(p: Prepared, stat: str, policy: Any, *, ddof: float = 0,
                    weights_kind: str = "frequency", engine: str | None = None) -> Any:
    """Weighted ``stat`` (mean, sum, var, std, sem) of prepared rows: ``(values,
    missing)`` with values ``(rows,)``.

    The mean, sum, var and std of frequency weights try the certified compiled path
    first (:mod:`.certified`); only the rows it does not certify (and those whose
    total weight is near ``ddof + 1``) are summed exactly here.
    """
    x = p.x
    if x.dtype.kind in "mMO":
        raise TypeError(f"weighted {stat} of {x.dtype} data is not supported")
    fast = None if weights_kind != "frequency" else certified_rows(p, stat, engine, ddof=ddof)
    if fast is not None:
        doubt = total_doubt(p.w.sum(axis=1), ddof, stat, weights_kind)
        if doubt is not None:
            fast = fast[0], fast[1] & ~doubt
    if fast is None or not fast[1].any():
        vals, empty, short = _exact(x, p.w, p.nan, p.miss, stat, ddof, weights_kind)
        _raise_short(p, policy, short, np.arange(short[0].size), ddof)
        return weighted_tails(p, vals, policy, empty, stat)
    got, ok = fast
    vals = result_dtype(got, x.dtype, stat)
    empty = np.zeros(ok.shape, bool)
    rest = ~ok
    if rest.any():
        def sub(a: Any) -> Any:
            return None if a is None else a[rest]

        v_rest, empty[rest], short = _exact(x[rest], p.w[rest], sub(p.nan), sub(p.miss),
                                            stat, ddof, weights_kind)
        _raise_short(p, policy, short, np.flatnonzero(rest), ddof)
        vals = vals.astype(np.result_type(vals.dtype, v_rest.dtype), copy=False)
        vals[rest] = v_rest
    return weighted_tails(p, vals, policy, empty, stat)


def _raise_short(p: Prepared, policy: Any, short: tuple[np.ndarray, np.ndarray],
                 rows: np.ndarray, ddof: float) -> None:
    """:class:`~nanaccess.errors.TotalWeightError` for the first row of ``short``
    (``(mask, totals)`` over ``rows`` of ``p``) whose result is not a propagated NaN
    or missing value anyway."""
    mask, totals = short
    if not mask.any():
        return
    tail = np.zeros(p.w.shape[0], bool)
    r = RULES[policy]
    for t in (p.nan_rows, p.miss_rows):
        if t is not None:
            tail |= np.broadcast_to(t, tail.shape)
    if r.moment_propagates:
        for a in (p.nan, p.miss):
            if a is not None:
                tail |= a.any(axis=1)
    hit = np.flatnonzero(mask & ~tail[rows])
    if hit.size:
        raise TotalWeightError(total=float(totals[hit[0]]), ddof=ddof,
                               cell=int(rows[hit[0]]))


def _exact(x: np.ndarray, w: np.ndarray, nan: np.ndarray | None, miss: np.ndarray | None,
           stat: str, ddof: float, wkind: str = "frequency"
           ) -> tuple[np.ndarray, np.ndarray, tuple[np.ndarray, np.ndarray]]:
    """The exact engine on ``(rows, n)`` pairs: ``(values, empty, short)`` before the
    tails (propagated NaNs and missing results); ``short``: the rows of non-integer
    frequency weights with ``W - ddof < 1`` and their totals."""
    kind = x.dtype.kind
    rows, n = w.shape
    xf = x.astype(np.float64)
    used = w > 0
    if nan is not None:  # ordering policies keep NaNs: they propagate (the tails)
        used &= ~nan
    if miss is not None:
        used &= ~miss
    with np.errstate(invalid="ignore"):
        inf = used & np.isinf(xf)
    posinf = (inf & (xf > 0)).any(axis=1)
    neginf = (inf & (xf < 0)).any(axis=1)
    fin = used & ~inf
    xs = np.where(fin, xf, 0.0)
    ws = np.where(fin, w, 0.0)
    ax = np.abs(xs)
    safe = ((ax == 0) | ((ax >= _SAFE_LO) & (ax <= _SAFE_HI))) & \
        ((ws == 0) | ((ws >= _SAFE_LO) & (ws <= _SAFE_HI)))
    if kind in "iu":
        safe &= np.abs(x.astype(np.float64)) < 2.0 ** 53
    slow = ~safe.all(axis=1)
    over = stat in _stats.OVER_COUNT
    want_sq = stat in _stats.SQUARES or over
    want_v2 = want_sq and (wkind == "reliability" or over)
    if slow.any():  # those rows are summed below, with fractions
        xs, ws_fast = np.where(slow[:, None], 0.0, xs), np.where(slow[:, None], 0.0, ws)
    else:
        ws_fast = ws

    p_hi, p_lo = _two_product(xs, ws_fast)
    s_int = _ints(np.concatenate([p_hi, p_lo], axis=1))
    w_int = _ints(ws_fast)
    q_int = None
    if want_sq:
        x2h, x2l = _two_product(xs, xs)
        a, b = _two_product(ws_fast, x2h)
        c, d = _two_product(ws_fast, x2l)
        q_int = _ints(np.concatenate([a, b, c, d], axis=1))
    v_int = None
    if want_v2:
        v_int = _ints(np.concatenate(_two_product(ws_fast, ws_fast), axis=1))
    if slow.any():
        for r, (s, wt, sq, v2) in zip(np.flatnonzero(slow).tolist(),
                                      _fraction_rows(x[slow], ws[slow], want_sq),
                                      strict=True):
            s_int[r], w_int[r] = s, wt
            if q_int is not None:
                q_int[r] = sq
            if v_int is not None:
                v_int[r] = v2

    negzero = (fin & (xs == 0) & np.signbit(xs)).sum(axis=1) == fin.sum(axis=1)
    integer = kind in "biu" and np.asarray(w == np.floor(w)).all()
    unit = _drop_twos((s_int, w_int, q_int, v_int), slow)
    vals = _round(stat, ddof, s_int, w_int, q_int, unit, posinf, neginf,
                  negzero & fin.any(axis=1) if stat in _stats.SUMS else negzero, integer,
                  v_int, wkind)
    if stat in _stats.ROOTS:  # (sem: rounded as a square root already)
        vals = np.sqrt(vals)
    vals = result_dtype(vals, x.dtype, stat)
    empty = (w_int == 0) & ~(posinf | neginf)
    short = np.zeros(rows, bool)
    totals = np.zeros(rows)
    if want_sq and wkind == "frequency" and ddof > 0:
        with np.errstate(invalid="ignore"):
            fractional = (used & (w != np.floor(w))).any(axis=1)
        da, db = Fraction(ddof).as_integer_ratio()
        cand = np.flatnonzero(fractional & (w_int != 0))
        if cand.size:
            wt_c, u_c = w_int[cand], unit[cand]
            bad = (db * wt_c - da * u_c) < db * u_c  # W - ddof < 1, exactly
            short[cand] = bad.astype(bool)
            totals[cand] = _ratios(wt_c, u_c)
    return vals, empty, (short, totals)


def _drop_twos(sums: tuple[np.ndarray | None, ...], slow: np.ndarray) -> np.ndarray:
    """Divide, in place, the exact sums of the rows that are Python ints (not the
    ``slow`` rows' fractions) by their common power of two (at most ``2**1074``), and
    return each row's unit (``2**1074`` divided the same way): every ratio stays the
    same, and the products of the variance shrink from thousands of bits to a few
    hundred (values rarely reach down to ``2**-1074``)."""
    unit = np.full(slow.shape, 1 << SCALE, object)
    ints = np.flatnonzero(~slow)
    if not ints.size:
        return unit
    acc = 0
    for a in sums:
        if a is not None:
            acc |= int(np.bitwise_or.reduce(np.abs(a[ints])))
    k = min((acc & -acc).bit_length() - 1, SCALE) if acc else SCALE
    if k > 0:
        for a in sums:
            if a is not None:
                a[ints] = a[ints] >> k  # exact: every one is a multiple of 2**k
        unit[ints] = 1 << (SCALE - k)
    return unit


def _round(stat: str, ddof: float, s: np.ndarray, wt: np.ndarray, q: np.ndarray | None,
           unit: np.ndarray, posinf: np.ndarray, neginf: np.ndarray, negzero: np.ndarray,
           integer: bool, v2: np.ndarray | None = None, kind: str = "frequency"
           ) -> np.ndarray:
    """Every row rounded once from its exact sums (object arrays of Python ints, or
    fractions for the rare rows beyond the safe range), by NumPy's object loops over
    all rows at once: ``S / unit`` (sum), ``S / W`` (mean), ``(W Q - S**2) / (W (W -
    ddof))`` (var; the caller takes the std's square root), the infinities and empty
    rows as the unweighted statistics have them. ``unit`` per row: ``2**1074`` in the
    sums' scale (:func:`_drop_twos`). int64 for an integer ``sum``."""
    if stat in _stats.SUMS and integer:  # integer data: no infinities
        out = s // unit
        big = [v for v in out.tolist() if not -(1 << 63) <= v < (1 << 63)]
        if big:
            raise OverflowError(f"exact integer weighted sum {big[0]} does not fit in int64")
        return cast("np.ndarray", out.astype(np.int64))
    out = np.full(s.shape, CANONICAL_NAN)  # both infinities, nothing left, var of inf
    inf = posinf | neginf
    if stat not in _stats.VARIANCES and stat not in _stats.ROOTS:
        one = inf & ~(posinf & neginf)
        out[one] = np.where(posinf[one], np.inf, -np.inf)
    zero = (s == 0) & ~inf
    signed = np.where(negzero, -0.0, 0.0)
    if stat in _stats.SUMS:
        out[zero] = signed[zero]
        go = ~inf & ~zero
        out[go] = _ratios(s[go], unit[go])
        return out
    go = ~inf & (wt != 0)
    if stat in _stats.MEANS:
        out[go & zero] = signed[go & zero]
        go &= ~zero
        out[go] = _ratios(s[go], wt[go])
        return out
    da, db = Fraction(ddof).as_integer_ratio()  # ddof = da / db, in units of 2**-1074
    den = np.zeros(s.shape, object)
    if kind == "reliability":
        den[go] = db * wt[go] * wt[go] - da * v2[go] * unit[go]
    else:
        den[go] = wt[go] * (db * wt[go] - da * unit[go])
    go &= den > 0
    num = db * (wt[go] * q[go] - s[go] * s[go])
    den = den[go]
    if stat in _stats.OVER_COUNT:  # sem**2 = var / n
        if kind == "reliability":  # n = W**2 / V
            num, den = num * v2[go] * unit[go], den * wt[go] * wt[go]
        else:  # n = W
            num, den = num * unit[go], den * wt[go]
        out[go] = _sqrt_ratios(num, den)  # correctly rounded, as the unweighted sem
        return out
    out[go] = _ratios(num, den)
    return out


def _sqrt_one(a: Any, b: Any) -> float:
    if type(a) is not int or type(b) is not int:  # fractions (the slow rows)
        v = Fraction(a) / Fraction(b)
        a, b = v.numerator, v.denominator
    return round_sqrt(a, b)


_SQRT = np.frompyfunc(_sqrt_one, 2, 1)


def _sqrt_ratios(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Correctly rounded ``sqrt(a / b)`` of object arrays (ints or fractions), by a
    NumPy object loop over the rows (:func:`nanaccess.core.higher.finish.round_sqrt`:
    an integer square root with a sticky bit)."""
    if not a.size:
        return np.zeros(0)
    return cast("np.ndarray", _SQRT(a, b).astype(np.float64))


def _ratios(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Correctly rounded ``a / b`` (``b > 0``) of object arrays of Python ints (int
    true division rounds correctly) or fractions (``float()`` of one rounds
    correctly); a quotient beyond the float range is +-inf."""
    if not a.size:
        return np.zeros(0)
    try:
        return cast("np.ndarray", np.true_divide(a, b).astype(np.float64))
    except OverflowError:  # rare (a result beyond 1.8e308): each row on its own
        return np.array([_ratio(u, v) for u, v in zip(a.tolist(), b.tolist(), strict=True)],
                        np.float64)


def weighted_tails(p: Prepared, vals: np.ndarray, policy: Any, empty: np.ndarray, stat: str) -> Any:
    """Propagated NaNs and missing results; an empty sum is 0 (as unweighted)."""
    r = RULES[policy]
    res_missing = None
    if stat in _stats.SUMS and empty.any():
        vals = np.where(empty, vals.dtype.type(0), vals)
    nan_rows, nan_values, miss_rows = p.nan_rows, p.nan_values, p.miss_rows
    if r.moment_propagates and not r.propagates and p.nan is not None:
        nan_rows = p.nan.any(axis=1)
        nan_values = greatest_nan_of([(p.x, p.nan)], p.nan.shape[0])
    if r.moment_propagates and not r.propagates and p.miss is not None:
        miss_rows = p.miss.any(axis=1)
        if nan_rows is not None:
            miss_rows &= ~nan_rows
    if nan_rows is not None and nan_rows.any():
        if vals.dtype.kind != "f":
            vals = vals.astype(np.float64)
        vals = np.where(nan_rows, nan_values.astype(vals.dtype), vals)
    if miss_rows is not None and miss_rows.any():
        if vals.dtype.kind != "f":
            vals = vals.astype(np.float64)
        vals = np.where(miss_rows, vals.dtype.type(CANONICAL_NAN), vals)
        res_missing = miss_rows
    return vals, res_missing
