"""Certified weighted variances per group or row (the compiled fast path of weighted
var and std).

Frequency weights, as the exact engine (:mod:`nanaccess.core.weighted.moments`)
defines them: ``var = (W Q - S**2) / (W (W - ddof))`` with ``S = sum(w x)``, ``Q =
sum(w x**2)`` and ``W = sum(w)``. One pass over the pairs accumulates, per group,
``S``, ``Q`` and ``W`` as double-doubles: Dekker's TwoProduct splits ``w x = p + e``
and ``p x``, ``e x`` exactly (every pair in ``2**-300 .. 2**300``: each product's
lowest bit is at least ``2**-1056``, so no error term underflows), Knuth's TwoSum
adds the high parts exactly and the low parts are summed in float64 with the bound
``2 (K + 2) u sum|low terms|`` (``K`` low terms), as :mod:`.weighted_moments` does for
the mean.

Per group, the numerator ``N = W Q - S**2`` and the denominator ``M = W (W - ddof)``
are each formed from exact TwoProduct pieces of the double-doubles (the products of
two low parts left out and bounded) by a compensated sum, with a bound carried from
the bounds of ``S``, ``Q`` and ``W``; :func:`.weighted_moments._nb_ratio` then
certifies the correctly rounded ``N / M`` by the signs of ``N - m M`` at the
midpoints ``m`` around the candidate. A certified group has exactly the exact
engine's bits. The exact cases are settled here too: no weight (NaN, the empty
result), ``W - ddof <= 0`` (NaN) and a group of one repeated value (``N = 0``: 0.0).
Everything else the bounds cannot settle (a pair outside the safe range, a
non-finite value, a tie or near tie, a variance outside ``2**-500 .. 2**500``, or a
cancellation ``W Q / N`` beyond about ``1 / (n u**2)``) is left to the exact engine.
Family ``"weighted_var"``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import bind, jit, kernels, register
from . import compensated as _compensated
from . import weighted_moments as _moments

# bound to the compiled versions by build(): TwoSum/TwoProduct from compensated, the
# certified ratio from weighted_moments
two_sum, two_prod = _compensated.two_sum, _compensated.two_prod
_nb_ratio = _moments._nb_ratio

__all__ = ["build"]

_U = 2.0 ** -53
_LO, _HI = 2.0 ** -300, 2.0 ** 300
_TINY = 2.0 ** -1000  # covers a product's error lost to underflow (below 2**-1022)

# columns of the per-group accumulator (16 floats: two cache lines per group)
_SH, _SL, _SA, _QH, _QL, _QA, _WH, _WL, _WA, _N, _BAD, _X0, _DIFF = range(13)
_WIDTH = 16


def _nb_accumulate_var(x: np.ndarray, w: np.ndarray, codes: np.ndarray, ngroups: Any,
                       row: Any) -> Any:  # pragma: no cover - compiled
    """Per group: S, Q, W as double-doubles with the sums of their low terms'
    magnitudes, the pair count, whether a pair left the safe range (non-finite values
    included), the first value and whether another differs. ``row`` > 0: no codes,
    group ``i // row``."""
    acc = np.zeros((ngroups, _WIDTH), np.float64)
    for i in range(x.shape[0]):
        wi = w[i]
        if not wi > 0.0:
            continue
        g = i // row if row > 0 else codes[i]
        if g < 0:
            continue
        xi = x[i]
        ax = abs(xi)
        if not ((ax == 0.0 or (ax >= _LO and ax <= _HI)) and wi >= _LO and wi <= _HI):
            acc[g, _BAD] = 1.0
            continue
        p, e = two_prod(xi, wi)
        c1, c2 = two_prod(p, xi)
        d1, d2 = two_prod(e, xi)
        sh, q = two_sum(acc[g, _SH], p)
        acc[g, _SH] = sh
        acc[g, _SL] = (acc[g, _SL] + q) + e
        acc[g, _SA] += abs(q) + abs(e)
        qh, r = two_sum(acc[g, _QH], c1)
        acc[g, _QH] = qh
        acc[g, _QL] = (((acc[g, _QL] + r) + c2) + d1) + d2
        acc[g, _QA] += (abs(r) + abs(c2)) + (abs(d1) + abs(d2))
        wh, qw = two_sum(acc[g, _WH], wi)
        acc[g, _WH] = wh
        acc[g, _WL] += qw
        acc[g, _WA] += abs(qw)
        if acc[g, _N] == 0.0:
            acc[g, _X0] = xi
        elif xi != acc[g, _X0]:
            acc[g, _DIFF] = 1.0
        acc[g, _N] += 1.0
    return acc


def _nb_norm(s: Any, c: Any) -> Any:  # pragma: no cover - compiled
    """``s + c`` as a double-double ``(hi, lo)``, exactly (TwoSum)."""
    return two_sum(s, c)


def _nb_dd_sum(t0: Any, t1: Any, t2: Any, t3: Any, t4: Any, t5: Any, t6: Any,
               t7: Any) -> Any:  # pragma: no cover - compiled
    """``(hi, lo, E)``: eight float terms summed by TwoSum with the errors summed
    apart (Sum2), ``|hi + lo - sum| <= E``: the errors' float sum is off by at most
    ``gamma_7 sum|q|`` and ``sum|q| <= gamma_7 sum|t|``, so ``gamma_7**2 < 64 u**2``
    of ``sum|t|`` (``hi + lo`` is that float sum exactly)."""
    s = 0.0
    err = 0.0
    tot = 0.0
    for t in (t0, t1, t2, t3, t4, t5, t6, t7):
        s, q = two_sum(s, t)
        err += q
        tot += abs(t)
    hi, lo = two_sum(s, err)
    return hi, lo, 64.0 * _U * _U * tot


def _nb_dof(wh: Any, wl: Any, ew: Any, ddof: Any) -> Any:  # pragma: no cover - compiled
    """``V = W - ddof`` as ``(vh, vl, ev, sign)``: a double-double within ``ev`` and its
    sign (-1: ``V <= 0``, +1: ``V > 0``, 0: the bound cannot tell)."""
    t, te = two_sum(wh, -ddof)  # exact
    vh, vl = two_sum(t, te + wl)
    ev = ew + 2.0 * _U * (abs(te) + abs(wl))
    if ev == 0.0 and vh == 0.0 and vl == 0.0:
        return vh, vl, ev, -1  # W == ddof exactly
    if -vh > 2.0 * (abs(vl) + ev):
        return vh, vl, ev, -1
    if vh > 2.0 * (abs(vl) + ev):
        return vh, vl, ev, 1
    return vh, vl, ev, 0


def _nb_var_one(sh: Any, sl: Any, es: Any, qh: Any, ql: Any, eq: Any, wh: Any, wl: Any, ew: Any,
                ddof: Any) -> Any:  # pragma: no cover - compiled
    """``(value, certified)`` of ``(W Q - S**2) / (W (W - ddof))`` from double-doubles
    within their bounds (``W > 0``, ``Q >= 0``); see the module docstring."""
    vh, vl, ev, sign = _nb_dof(wh, wl, ew, ddof)
    if sign < 0:
        return np.nan, True  # W - ddof <= 0: no degrees of freedom left
    if sign == 0:
        return 0.0, False
    aw, av, aq, a_s = abs(wh) + abs(wl), abs(vh) + abs(vl), abs(qh) + abs(ql), \
        abs(sh) + abs(sl)
    # N = W Q - S**2 from exact pieces (wl*ql and sl*sl left out, bounded)
    n1, n2 = two_prod(wh, qh)
    n3, n4 = two_prod(wh, ql)
    n5, n6 = two_prod(wl, qh)
    n7, n8 = two_prod(sh, sh)
    n9, n10 = two_prod(2.0 * sh, sl)
    a1, a2, e_a = _nb_dd_sum(n1, -n7, n2, -n8, n3, -n9, n5, -n10)
    nh, nl, e_b = _nb_dd_sum(a1, a2, n4, n6, 0.0, 0.0, 0.0, 0.0)
    en = (e_a + e_b + aw * eq + aq * ew + ew * eq + (2.0 * a_s + es) * es
          + abs(wl * ql) + sl * sl + 16.0 * _TINY) * 1.0001
    # M = W V the same way (wl*vl left out)
    m1, m2 = two_prod(wh, vh)
    m3, m4 = two_prod(wh, vl)
    m5, m6 = two_prod(wl, vh)
    mh, ml, e_m = _nb_dd_sum(m1, m2, m3, m5, m4, m6, 0.0, 0.0)
    em = (e_m + aw * ev + av * ew + ew * ev + abs(wl * vl) + 8.0 * _TINY) * 1.0001
    if not (abs(nh) < np.inf and abs(mh) < np.inf and en < np.inf and em < np.inf):
        return 0.0, False  # overflow (squares beyond the float range)
    if not (mh > 2.0 * (abs(ml) + em) and nh > 2.0 * (abs(nl) + en)):
        return 0.0, False  # N's interval holds 0: a cancellation beyond the bound
    return _nb_ratio(nh, nl, en, mh, ml, em)


def _nb_var_certify(acc: np.ndarray, ddof: Any, out: np.ndarray,
                    ok: np.ndarray) -> None:  # pragma: no cover - compiled
    """Per group, the certified variance into ``out``, ``ok`` where certified."""
    for g in range(acc.shape[0]):
        n = acc[g, _N]
        if acc[g, _BAD] != 0.0:
            continue
        if n == 0.0:  # no weight: the empty result
            out[g] = np.nan
            ok[g] = True
            continue
        sh, sl = _nb_norm(acc[g, _SH], acc[g, _SL])
        qh, ql = _nb_norm(acc[g, _QH], acc[g, _QL])
        wh, wl = _nb_norm(acc[g, _WH], acc[g, _WL])
        es = 2.0 * (2.0 * n + 2.0) * _U * acc[g, _SA]
        eq = 2.0 * (4.0 * n + 2.0) * _U * acc[g, _QA]
        ew = 2.0 * (n + 2.0) * _U * acc[g, _WA]
        if acc[g, _DIFF] == 0.0:  # one repeated value: N = 0 exactly
            sign = _nb_dof(wh, wl, ew, ddof)[3]
            if sign != 0:
                out[g] = np.nan if sign < 0 else 0.0
                ok[g] = True
            continue
        out[g], ok[g] = _nb_var_one(sh, sl, es, qh, ql, eq, wh, wl, ew, ddof)


def _nb_group_var(x: Any, w: Any, codes: Any, ngroups: Any, ddof: Any,
                  row: Any) -> Any:  # pragma: no cover - compiled
    """``(values, certified)`` per group: the driver's one call (``row`` > 0: rows of
    that length are the groups, ``codes`` unused)."""
    acc = _nb_accumulate_var(x, w, codes, ngroups, row)
    out = np.zeros(ngroups, np.float64)
    ok = np.zeros(ngroups, np.bool_)
    _nb_var_certify(acc, ddof, out, ok)
    return out, ok


_HELPERS = ("_nb_accumulate_var", "_nb_norm", "_nb_dd_sum", "_nb_dof", "_nb_var_one",
            "_nb_var_certify")


def build() -> dict[str, Any]:
    """Compile the certified weighted variance (binding compensated's TwoSum and
    TwoProduct and weighted_moments' certified ratio as compiled there)."""
    kernels("weighted_moments")  # compiles compensated's helpers and _nb_ratio in place
    shared = {"two_sum": _compensated.two_sum, "two_prod": _compensated.two_prod,
              "_nb_ratio": _moments._nb_ratio}
    bind(globals(), ("two_sum", "two_prod", "_nb_ratio") + _HELPERS, compiled=shared)
    return {"group_var": jit(nogil=True)(_nb_group_var)}


register("weighted_var", build)
