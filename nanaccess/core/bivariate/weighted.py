"""Weighted covariance and Pearson correlation (issue 24 item 4): exact, rounded once.

For a pair of columns ``x``, ``y`` with weights ``w`` (the pairs both columns keep
under the policy: pairwise-complete under "omit"), with the exact sums ``W = sum(w)``,
``V = sum(w**2)``, ``Sx = sum(w x)``, ``Sy``, ``Sxy = sum(w x y)``, ``Sxx``, ``Syy``:

* co-moments ``Cxy = W Sxy - Sx Sy`` (``W**2`` times the weighted covariance about the
  weighted means), ``Cxx``, ``Cyy``, exact integers;
* covariance ``Cxy / (W (W - ddof))`` for frequency weights (integer weights give the
  unweighted covariance of the repeated rows), ``Cxy / (W**2 - ddof V)`` for
  reliability weights (:func:`numpy.cov`'s ``aweights``), correctly rounded; non-integer
  frequency weights with ``W - ddof < 1`` raise
  :class:`~nanaccess.errors.TotalWeightError` as the weighted variance does;
* Pearson's ``r = Cxy / sqrt(Cxx Cyy)``, the correctly rounded square root of the exact
  ``Cxy**2 / (Cxx Cyy)`` with its sign: ``|r| <= 1`` always and exactly ``+-1`` for
  collinear data (the weights' kind does not matter: ``r`` is scale-free).

Every product is split exactly (Dekker's two-product; three factors for ``w x y``) into
float64 terms summed exactly by :func:`nanaccess.core.exactsum.exact_partials`, all
pairs at once; pairs with magnitudes outside ``2**-200 .. 2**200`` are summed with
fractions. The policy covers data and weights as the weighted moments
(:func:`nanaccess.core.weighted.prepare`): "propagate" and the ordering policies give
the NaN of either column (the greatest under totalOrder), missing data a missing
result.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any, cast

import numpy as np

from ...errors import NaNError, TotalWeightError
from ..exactsum import exact_partials
from ..exactsum.common import CANONICAL_NAN, SCALE
from ..keys import totalorder_key
from ..weighted.prepare import prepare
from .rounding import corr_from, ratio

__all__ = ["weighted_pairs"]

_SPLIT = 134217729.0  # 2**27 + 1 (Veltkamp)
_LO, _HI = 2.0 ** -200, 2.0 ** 200  # three-factor products stay exact inside


def _split(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    c = _SPLIT * a
    hi = c - (c - a)
    return hi, a - hi


def _tp(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``a * b == p + e`` exactly (inside the safe range)."""
    p = a * b
    ah, al = _split(a)
    bh, bl = _split(b)
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _three(w: np.ndarray, a: np.ndarray, b: np.ndarray) -> list[np.ndarray]:
    """Four float64 terms summing exactly to ``w a b``."""
    p, e = _tp(a, b)
    return [*_tp(w, p), *_tp(w, e)]


def _ints(terms: list[np.ndarray]) -> np.ndarray:
    return exact_partials(np.concatenate(terms, axis=1), squares=False).s.reshape(-1)


def _fraction_sums(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> tuple[int, ...]:
    """The seven exact sums of one pair (times ``2**1074``, fractions), slowly."""
    unit = 1 << SCALE
    acc = [Fraction(0)] * 7
    for a, b, k in zip(x.tolist(), y.tolist(), w.tolist(), strict=True):
        if k == 0:
            continue
        fa, fb, fk = Fraction(a), Fraction(b), Fraction(k)
        for i, v in enumerate((fk, fk * fk, fk * fa, fk * fb, fk * fa * fb, fk * fa * fa,
                               fk * fb * fb)):
            acc[i] += v
    return tuple(v * unit for v in acc)


def _sums(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> list[np.ndarray]:
    """``[W, V, Sx, Sy, Sxy, Sxx, Syy]`` per row of ``(pairs, n)`` arrays (object arrays
    of Python ints, or fractions for the rows outside the safe range), in units of
    ``2**-1074``."""
    def safe(a: Any) -> Any:
        m = np.abs(a)
        return (m == 0) | ((m >= _LO) & (m <= _HI))

    slow = ~(safe(x) & safe(y) & safe(w)).all(axis=1)
    xs, ys, ws = (np.where(slow[:, None], 0.0, a) for a in (x, y, w))
    out = [_ints([ws]), _ints(list(_tp(ws, ws))), _ints(list(_tp(ws, xs))),
           _ints(list(_tp(ws, ys))), _ints(_three(ws, xs, ys)), _ints(_three(ws, xs, xs)),
           _ints(_three(ws, ys, ys))]
    for r in np.flatnonzero(slow).tolist():
        for a, v in zip(out, _fraction_sums(x[r], y[r], w[r]), strict=True):
            a[r] = v
    return out


def weighted_pairs(cols: Sequence[np.ndarray], pairs: np.ndarray, weights: Any, *,
                   stat: str, policy: Any, ddof: float = 1, weights_kind: str = "frequency",
                   missing: Sequence[np.ndarray | None] | None = None,
                   weights_missing: np.ndarray | None = None,
                   min_periods: int | None = None,
                   relabel: Sequence[Callable[[NaNError], Exception]] | None = None
                   ) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
    """Weighted ``stat`` ("cov" or "corr": Pearson) of each pair ``(i, j)`` of the 1-D
    columns ``cols`` with the row weights ``weights``.

    Returns ``(values, missing, count)`` per pair: float64 values, a bool mask of the
    missing results (None when there are none) and the pairs of rows used (weight not
    zero, kept by the policy). ``relabel[i]`` restates a policy error of column ``i``.

    Examples
    --------
    >>> from nanaccess.options import NanPolicy
    >>> x, y = np.array([1.0, 2.0, 4.0]), np.array([3.0, 1e7 + 5.0, 2e7 + 11.0])
    >>> weighted_pairs([x, 2 * x + 1e7], np.array([[0, 1]]), [0.2, 0.3, 0.5],
    ...                stat="corr", policy=NanPolicy.RAISE)[0]
    array([1.])
    """
    if weights_kind not in ("frequency", "reliability"):
        raise ValueError(f"weights_kind must be 'frequency' or 'reliability', got "
                         f"{weights_kind!r}")
    if stat not in ("cov", "corr"):
        raise ValueError(f"weighted pairs compute cov or corr, got {stat!r}")
    preps = []
    for i, x in enumerate(cols):
        x = np.asarray(x)
        if x.dtype.kind not in "fiub":
            raise TypeError(f"weighted {stat} needs numbers, got dtype {x.dtype}")
        try:
            preps.append(prepare(x, weights, axis=None, policy=policy,
                                 missing=None if missing is None else missing[i],
                                 weights_missing=weights_missing))
        except NaNError as err:
            if relabel is None or err.subject == "weights":
                raise
            raise relabel[i](err) from None
    pairs = np.asarray(pairs, np.int64).reshape(-1, 2)
    npairs = pairs.shape[0]
    if not npairs:
        return np.zeros(0), None, np.zeros(0, np.int64)
    xf = [p.x[0].astype(np.float64) for p in preps]
    wv = [p.w[0] for p in preps]
    a, b = pairs[:, 0], pairs[:, 1]
    X, Y = np.stack([xf[i] for i in a]), np.stack([xf[j] for j in b])
    WA, WB = np.stack([wv[i] for i in a]), np.stack([wv[j] for j in b])
    used = (WA > 0) & (WB > 0)
    with np.errstate(invalid="ignore"):
        inf = (used & (np.isinf(X) | np.isinf(Y))).any(axis=1)
    W = np.where(used, WA, 0.0)
    fin = used & np.isfinite(X) & np.isfinite(Y)
    sums = _sums(np.where(fin, X, 0.0), np.where(fin, Y, 0.0), np.where(fin, W, 0.0))
    wt, v2, sx, sy, sxy, sxx, syy = sums
    unit = 1 << SCALE
    count = used.sum(axis=1).astype(np.int64)
    vals = np.full(npairs, CANONICAL_NAN)
    fractional = (used & (W != np.floor(W))).any(axis=1)
    da, db = Fraction(ddof).as_integer_ratio()
    for r in range(npairs):  # one exact rounding per pair (k**2 / 2 of them, not rows)
        if inf[r] or wt[r] == 0 or (min_periods is not None and count[r] < min_periods):
            continue
        cxy = wt[r] * sxy[r] - sx[r] * sy[r]
        if stat == "corr":
            vals[r] = corr_from(*_as_ints(cxy, wt[r] * sxx[r] - sx[r] * sx[r],
                                          wt[r] * syy[r] - sy[r] * sy[r]))
            continue
        if weights_kind == "reliability":
            den = db * wt[r] * wt[r] - da * v2[r] * unit
        else:
            den = wt[r] * (db * wt[r] - da * unit)
            if ddof > 0 and fractional[r] and db * wt[r] - da * unit < db * unit:
                raise TotalWeightError(total=float(Fraction(wt[r]) / unit), ddof=ddof,
                                       cell=(int(a[r]), int(b[r])))
        if den > 0:
            n, d = _as_ints(db * cxy, den)
            vals[r] = ratio(n, d)
    return _tails(preps, a, b, vals, policy), _missing(preps, a, b), count


def _as_ints(*vals: Any) -> tuple[int, ...]:
    """Python ints with the same ratios (fractions of the slow rows scaled out)."""
    if all(type(v) is int for v in vals):
        return tuple(vals)
    fr = [Fraction(v) for v in vals]
    den = math.lcm(*(f.denominator for f in fr))
    return tuple(int(f * den) for f in fr)


def _tails(preps: Any, a: Any, b: Any, vals: Any, policy: Any) -> np.ndarray:
    """A propagated NaN of either column (the greatest under totalOrder)."""
    nan_of: list[float | None] = []
    for p in preps:
        if p.nan_rows is not None and bool(np.any(p.nan_rows)):
            nan_of.append(float(np.ravel(p.nan_values)[0]))
        elif p.nan is not None and p.nan.any():  # ordering policies: propagate here
            nan_of.append(float(p.x[0][p.nan[0]].astype(np.float64)[
                np.argmax(totalorder_key(p.x[0][p.nan[0]].astype(np.float64)))]))
        else:
            nan_of.append(None)
    for r, (i, j) in enumerate(zip(a.tolist(), b.tolist(), strict=True)):
        got = [v for v in (nan_of[i], nan_of[j]) if v is not None]
        if got:
            vals[r] = max(got, key=lambda v: int(totalorder_key(np.float64(v))))
    return cast("np.ndarray", vals)


def _missing(preps: Any, a: Any, b: Any) -> np.ndarray | None:
    miss = [bool(np.any(p.miss_rows)) if p.miss_rows is not None else
            (p.miss is not None and bool(p.miss.any())) for p in preps]
    if not any(miss):
        return None
    m = np.array(miss)
    return cast("np.ndarray | None", m[a] | m[b])
