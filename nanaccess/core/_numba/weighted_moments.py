"""Certified weighted sums per group (the compiled fast path of weighted mean and sum).

One pass over the pairs accumulates, per group, ``S = sum(w x)`` as a double-double
(Dekker's two-product splits each ``w x`` exactly, Knuth's two-sum adds the high
parts exactly; the low parts are summed in float64, with a bound on that sum's
error) and ``W = sum(w)`` the same way. A second step rounds ``S / W`` (or ``S``)
once and *certifies* it: for the candidate ``c`` it decides the sign of
``S - m W`` at the midpoints ``m`` between ``c`` and its neighbours (each ``m W``
split exactly into float64 terms, summed with a compensated sum), and accepts ``c``
only when both signs hold beyond every error bound. So a certified group carries
the correctly rounded ratio of the exact sums: the bits of the exact engine
(:mod:`nanaccess.core.weighted.moments`). A group it cannot certify (a pair outside
``2**-300 .. 2**300``, a non-finite value, a result near zero, a tie or a near tie)
is left to the exact engine, group by group.

The two-sum / two-product helpers are :mod:`.compensated`'s compiled ones;
:func:`_nb_ratio` (the certified ratio) serves the weighted variance too
(:mod:`.weighted_var`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import bind, jit, kernels, register
from . import compensated as _compensated

# TwoSum / TwoProduct live in compensated; build() binds their compiled versions here
two_sum, two_prod = _compensated.two_sum, _compensated.two_prod

__all__: list[str] = []

_U = 2.0 ** -53
_LO, _HI = 2.0 ** -300, 2.0 ** 300
_C_LO, _C_HI = 2.0 ** -500, 2.0 ** 500
_TINY = 2.0 ** -1000  # covers products that underflow in the midpoint test

# columns of the per-group accumulator (one row per group: one cache line)
_SH, _SL, _SA, _WH, _WL, _WA, _N, _BAD = range(8)


def _nb_accumulate(x: np.ndarray, w: np.ndarray, codes: np.ndarray, ngroups: Any,
                   row: Any) -> Any:  # pragma: no cover - compiled
    """Per group: S and W as double-doubles, the sums of the low parts' magnitudes
    (for the error bounds), the pair count, and whether a pair left the safe range
    (non-finite values included). ``row`` > 0: no codes, group ``i // row``."""
    acc = np.zeros((ngroups, 8), np.float64)
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
        sh, q = two_sum(acc[g, _SH], p)
        acc[g, _SH] = sh
        acc[g, _SL] = (acc[g, _SL] + q) + e
        acc[g, _SA] += abs(q) + abs(e)
        wh, qw = two_sum(acc[g, _WH], wi)
        acc[g, _WH] = wh
        acc[g, _WL] += qw
        acc[g, _WA] += abs(qw)
        acc[g, _N] += 1.0
    return acc


def _nb_side(sh: Any, sl: Any, c: Any, h: Any, wh: Any, wl: Any, es: Any,
             ew: Any) -> Any:  # pragma: no cover - compiled
    """The sign of ``S - (c + h) W`` (+1, -1) when certain, else 0. ``(sh, sl)``,
    ``(wh, wl)``: S and W within ``es``, ``ew``; ``h`` a power of two (half a gap)."""
    p1, e1 = two_prod(c, wh)
    p2, e2 = two_prod(c, wl)
    s = 0.0
    err = 0.0
    tot = 0.0
    for t in (sh, sl, -p1, -e1, -p2, -e2, -(h * wh), -(h * wl)):
        s, q = two_sum(s, t)
        err += q
        tot += abs(t)
    d = s + err
    bound = 2.0 * (es + (abs(c) + abs(h)) * ew + 1024.0 * _U * _U * tot + 8.0 * _TINY)
    if d > bound:
        return 1
    if d < -bound:
        return -1
    return 0


def _nb_ratio(sh: Any, sl: Any, es: Any, wh: Any, wl: Any,
              ew: Any) -> Any:  # pragma: no cover - compiled
    """``(c, True)``: ``c`` the certified correctly rounded ``S / W`` of ``S = sh + sl``
    within ``es`` and ``W = wh + wl > 0`` within ``ew``; ``(0.0, False)`` when the
    bounds do not settle it (a tie or near tie, or ``|c|`` outside ``2**-500 ..
    2**500``)."""
    c = (sh + sl) / (wh + wl)
    if not (abs(c) >= _C_LO and abs(c) <= _C_HI):
        return 0.0, False  # near zero (or a zero sum's sign), huge, or not a number
    for _ in range(4):  # at most a step or two from the first guess
        up = np.nextafter(c, np.inf)
        dn = np.nextafter(c, -np.inf)
        above = _nb_side(sh, sl, c, (up - c) * 0.5, wh, wl, es, ew)
        if above > 0:
            c = up
            continue
        below = _nb_side(sh, sl, c, (dn - c) * 0.5, wh, wl, es, ew)
        if below < 0:
            c = dn
            continue
        return c, above < 0 and below > 0
    return 0.0, False


def _nb_certify(acc: np.ndarray, is_sum: Any, out: np.ndarray,
                ok: np.ndarray) -> None:  # pragma: no cover - compiled
    """Per group, the certified correctly rounded ``S / W`` (``S`` when ``is_sum``)
    into ``out``, ``ok`` where certified."""
    for g in range(acc.shape[0]):
        n = acc[g, _N]
        if acc[g, _BAD] != 0.0 or n == 0.0:
            continue
        es = 2.0 * (2.0 * n + 2.0) * _U * acc[g, _SA]
        if is_sum:
            wh, wl, ew = 1.0, 0.0, 0.0
        else:
            wh, wl = acc[g, _WH], acc[g, _WL]
            ew = 2.0 * (n + 2.0) * _U * acc[g, _WA]
        c, good = _nb_ratio(acc[g, _SH], acc[g, _SL], es, wh, wl, ew)
        if good:
            out[g] = c
            ok[g] = True


def _nb_group_moments(x: Any, w: Any, codes: Any, ngroups: Any, is_sum: Any,
                      row: Any) -> Any:  # pragma: no cover - compiled
    """``(values, certified)`` per group: the driver's one call (``row`` > 0: rows of
    that length are the groups, ``codes`` unused)."""
    acc = _nb_accumulate(x, w, codes, ngroups, row)
    out = np.zeros(ngroups, np.float64)
    ok = np.zeros(ngroups, np.bool_)
    _nb_certify(acc, is_sum, out, ok)
    return out, ok


def build() -> dict[str, Any]:
    """Compile the certified weighted sums."""
    kernels("compensated")  # compiles its helpers in place: TwoSum/TwoProduct live there
    shared = {"two_sum": _compensated.two_sum, "two_prod": _compensated.two_prod}
    bind(globals(), ("two_sum", "two_prod", "_nb_accumulate", "_nb_side", "_nb_ratio",
                    "_nb_certify"),
         compiled=shared)
    return {"group_moments": jit(nogil=True)(_nb_group_moments)}


register("weighted_moments", build)
