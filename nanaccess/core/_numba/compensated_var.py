"""Certified compensated variances: the double-double moments behind
:mod:`nanaccess.core.exactsum.certified`'s variance entries.

``var_rows_kernel`` (rows of a C-order ``(rows, n)`` array) and ``var_grouped_kernel``
(a scatter by group code) certify the exact engine's variance ``(n*Q - S**2) / (n*(n -
ddof))`` from Sum2 accumulations of ``x`` and of ``x*x`` (TwoProduct), with the error
bounds of :mod:`.compensated` (its module docstring) carried through ``D = n*Q -
S**2`` and the division; the bound is stated in :func:`var_rows_kernel`. Sum2 keeps
about ``n**2 u**2`` of Q, so a cancellation of condition ``n*Q / D`` beyond about
``1 / (n**2 u)`` (1e8 plus a spread of 1e-4, say) is left to the exact engine, as are
ties, zero, subnormal and non-finite results. Family ``"compensated_var"``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import bind, jit, kernels, register
from .compensated import (
    ABS,
    F_NAN,
    F_SNAN,
    INF_BITS,
    LANES,
    MARGIN,
    MAX_MU,
    MEAN_HI,
    MEAN_LO,
    MODE_ALL,
    MODE_MASK,
    MODE_SKIPNAN,
    QUIET,
    TINY,
    VELTKAMP,
    U,
    lane_add,
    spacing_below,
    two_prod_err,
)

__all__ = ["build"]

_SQ_HI = 2.0 ** 898  # Q_hi below this: every |x| < 2**450, no product overflows
_SQ_ERR = 2.0 ** -948  # |p + e - x*x| of one |x| < 2**-450 (exact above)
_VAR_ABS = 2.0 ** -1000  # covers underflow in the pieces of D


def _var_add(s: Any, c: Any, b: Any, qs: Any, qc: Any, qb: Any,
             v: Any) -> Any:  # pragma: no cover - compiled
    """One value into the Sum2 accumulators of S (``s, c, b``, :func:`lane_add`) and
    of Q: ``v*v = p + ep`` exactly (Dekker's TwoProduct of a square: one split), ``p``
    by TwoSum into ``qs``, its error and ``ep`` into ``qc``, their magnitudes into
    ``qb``."""
    s, c, b = lane_add(s, c, b, v)
    p = v * v
    vt = VELTKAMP * v
    vh = vt - (vt - v)
    vl = v - vh
    ep = ((vh * vh - p) + 2.0 * (vh * vl)) + vl * vl
    t = qs + p
    z = t - qs
    e = (qs - (t - z)) + (p - z)
    return s, c, b, t, qc + (e + ep), qb + (abs(e) + abs(ep))


def _var_row(x: np.ndarray, mask: np.ndarray, bits: np.ndarray, r: Any, mode: Any, ls: np.ndarray,
             lc: np.ndarray, lb: np.ndarray, lqs: np.ndarray, lqc: np.ndarray, lqb: np.ndarray,
             ln: np.ndarray, lf: np.ndarray) -> None:
    # pragma: no cover - compiled
    """Accumulate row ``r`` for the variance: Sum2 of ``x`` (``ls, lc, lb``) and of
    ``x*x = p + e`` (TwoProduct; ``p`` by TwoSum into ``lqs``, ``e`` and the TwoSum
    errors into ``lqc``, their magnitudes into ``lqb``), the count and NaN flags per
    lane (zeroed here). A value left out is added as 0 (exact). The mode is branched
    on outside the blocks of LANES values so that each block loop vectorises."""
    n = x.shape[1]
    for j in range(LANES):
        ls[j] = 0.0
        lc[j] = 0.0
        lb[j] = 0.0
        lqs[j] = 0.0
        lqc[j] = 0.0
        lqb[j] = 0.0
        ln[j] = 0
        lf[j] = 0
    full = n - n % LANES
    if mode == MODE_ALL:
        for i0 in range(0, full, LANES):
            for j in range(LANES):
                i = i0 + j
                v = np.float64(x[r, i])
                take = True
                ln[j] += np.int64(take)
                ls[j], lc[j], lb[j], lqs[j], lqc[j], lqb[j] = _var_add(
                    ls[j], lc[j], lb[j], lqs[j], lqc[j], lqb[j], v)
    elif mode == MODE_SKIPNAN:
        for i0 in range(0, full, LANES):
            for j in range(LANES):
                i = i0 + j
                b = bits[r, i] & ABS
                take = b <= INF_BITS
                v = np.float64(x[r, i]) if take else 0.0
                lf[j] |= np.int64(not take) * (F_NAN | (F_SNAN * np.int64((b & QUIET) == 0)))
                ln[j] += np.int64(take)
                ls[j], lc[j], lb[j], lqs[j], lqc[j], lqb[j] = _var_add(
                    ls[j], lc[j], lb[j], lqs[j], lqc[j], lqb[j], v)
    else:  # MODE_MASK: the generic loop (every value then)
        full = 0
    for i in range(full, n):  # the tail (and the masked mode)
        j = i % LANES
        if mode == MODE_MASK:
            take = mask[r, i]
            v = np.float64(x[r, i]) if take else 0.0
        elif mode == MODE_SKIPNAN:
            b = bits[r, i] & ABS
            take = b <= INF_BITS
            v = np.float64(x[r, i]) if take else 0.0
            lf[j] |= np.int64(not take) * (F_NAN | (F_SNAN * np.int64((b & QUIET) == 0)))
        else:
            v = np.float64(x[r, i])
            take = True
        ln[j] += np.int64(take)
        ls[j], lc[j], lb[j], lqs[j], lqc[j], lqb[j] = _var_add(
            ls[j], lc[j], lb[j], lqs[j], lqc[j], lqb[j], v)

def _dd_bound(s: Any, c: Any, b: Any, k: Any) -> Any:  # pragma: no cover - compiled
    """(hi, lo, E) of Sum2 accumulators with ``k`` exact error terms: ``|hi + lo -
    exact| <= E`` (the module docstring's bound)."""
    hi = s + c
    z = hi - s
    lo = (s - (hi - z)) + (c - z)
    return hi, lo, 2.0 * (np.float64(k + 2) * U) * b + TINY


def _certify_var(s: Any, c: Any, b: Any, qs: Any, qc: Any, qb: Any, n: Any, ddof: Any,
                 lanes: Any) -> Any:
    # pragma: no cover - compiled
    """(value, certified) of the variance ``(n*Q - S**2) / (n*(n - ddof))`` (see
    :func:`var_rows_kernel`)."""
    m = np.float64(n) * np.float64(n - ddof)
    if n <= 0 or n - ddof <= 0 or not (m < 2.0 ** 53) \
            or np.float64(2 * n + lanes + 2) * U >= MAX_MU:
        return 0.0, False
    sh, sl, es = _dd_bound(s, c, b, n + lanes)
    qh, ql, eq = _dd_bound(qs, qc, qb, 2 * n + lanes)
    if not (abs(sh) < np.inf and abs(sl) < np.inf and 0.0 <= qh <= _SQ_HI
            and abs(ql) < np.inf and es < np.inf and eq < np.inf):
        return 0.0, False  # NaN, infinities, overflow, squares beyond 2**900
    eq += np.float64(n) * _SQ_ERR  # the products of tiny values (not exact)
    dn = np.float64(n)
    # D = n*(qh + ql) - (sh + sl)**2 as exact pieces (TwoProduct) but sl**2 (bounded)
    a1 = dn * qh
    a2 = two_prod_err(dn, qh, a1)
    b1 = dn * ql
    b2 = two_prod_err(dn, ql, b1)
    c1 = sh * sh
    c2 = two_prod_err(sh, sh, c1)
    d1 = (2.0 * sh) * sl
    d2 = two_prod_err(2.0 * sh, sl, d1)
    ds, dc, db = lane_add(0.0, 0.0, 0.0, a1)
    ds, dc, db = lane_add(ds, dc, db, -c1)
    ds, dc, db = lane_add(ds, dc, db, a2)
    ds, dc, db = lane_add(ds, dc, db, -c2)
    ds, dc, db = lane_add(ds, dc, db, b1)
    ds, dc, db = lane_add(ds, dc, db, -d1)
    ds, dc, db = lane_add(ds, dc, db, b2)
    ds, dc, db = lane_add(ds, dc, db, -d2)
    dh, dl, ed = _dd_bound(ds, dc, db, 8)
    ash = abs(sh) + abs(sl)
    ed = (ed + dn * eq + (2.0 * ash + es) * es + sl * sl + _VAR_ABS) * 1.0001
    if not (MEAN_LO <= dh <= MEAN_HI and ed < np.inf) or not (dh - abs(dl) - ed > 0.0):
        return 0.0, False  # D's interval holds 0, or D near under/overflow
    q = dh / m
    p = q * m
    num = ((dh - p) - two_prod_err(q, m, p)) + dl
    q += num / m  # the candidate: fl(dh/m) is off by an ulp when dl tips it
    if not (q >= MEAN_LO and q < np.inf):
        return 0.0, False
    p = q * m
    r1 = dh - p  # exact (Sterbenz)
    r2 = two_prod_err(q, m, p)
    num = (r1 - r2) + dl
    slack = 3.0 * U * (abs(r1) + abs(r2) + abs(dl))
    if (abs(num) + slack + ed) * MARGIN < (0.5 * spacing_below(q)) * m / MARGIN:
        return q, True
    return 0.0, False  # a tie or near-tie: the exact engine rounds


def var_rows_kernel(x: np.ndarray, mask: Any, bits: Any, mode: Any, ddof: Any, out: np.ndarray,
                    ok: np.ndarray, counts: np.ndarray, flags: np.ndarray) -> None:
    # pragma: no cover - compiled
    """Certified variances ``(n*Q - S**2) / (n*(n - ddof))`` of the rows of the C-order
    ``(rows, n)`` float array ``x`` (modes as :func:`rows_kernel`; integer ``ddof``).

    S and Q (``x*x = p + e`` by TwoProduct, both into one Sum2) carry the module
    docstring's bounds ``E_S`` (``K <= n + lanes`` terms) and ``E_Q`` (``K <= 2n +
    lanes``). Each ``|x|`` in ``[2**-450, 2**450)`` has an exact product and error;
    ``Q_hi <= 2**898`` (else not certified) bounds every ``|x|`` below ``2**450``, and
    each ``|x| < 2**-450`` adds at most ``2**-948`` to ``E_Q`` (each of Dekker's
    roundings is then below ``2**-952``). ``D = n*Q - S**2`` is formed from the
    pieces ``TwoProduct(n, Q_hi)``, ``TwoProduct(n, Q_lo)``, ``TwoProduct(S_hi,
    S_hi)``, ``TwoProduct(2 S_hi, S_lo)`` (``S_lo**2`` left out) by an 8-term Sum2
    ``(D_hi, D_lo)``, and ``|D_hi + D_lo - D| <= E_D = (E_sum + n*E_Q + (2|S| + E_S)
    E_S + S_lo**2 + 2**-1000) * 1.0001`` (``E_sum`` the Sum2 bound of the pieces; the
    absolute term covers underflow in the pieces' errors, the factor the bound's own
    roundings). Certified only when ``D_hi - |D_lo| - E_D > 0`` and the candidate
    ``q`` (the mean's correction, ``m = n*(n - ddof) < 2**53`` exact) has
    ``|D_hi + D_lo - q*m| + slack + E_D < m * h_q / 2`` strictly (``h_q`` the smaller
    spacing at ``q``), with ``q`` a normal float: then ``q`` is the correctly rounded
    ``D/m``. Ties, zero, subnormal or non-finite results are left to the exact engine
    (``ok`` False)."""
    ls = np.zeros(LANES)
    lc = np.zeros(LANES)
    lb = np.zeros(LANES)
    lqs = np.zeros(LANES)
    lqc = np.zeros(LANES)
    lqb = np.zeros(LANES)
    ln = np.zeros(LANES, np.int64)
    lf = np.zeros(LANES, np.int64)
    for r in range(x.shape[0]):
        _var_row(x, mask, bits, r, mode, ls, lc, lb, lqs, lqc, lqb, ln, lf)
        s = ls[0]
        c = lc[0]
        b = lb[0]
        qs = lqs[0]
        qc = lqc[0]
        qb = lqb[0]
        cnt = ln[0]
        fl = lf[0]
        for j in range(1, LANES):
            s, c, b = lane_add(s, c + lc[j], b + lb[j], ls[j])
            qs, qc, qb = lane_add(qs, qc + lqc[j], qb + lqb[j], lqs[j])
            cnt += ln[j]
            fl |= lf[j]
        out[r], ok[r] = _certify_var(s, c, b, qs, qc, qb, cnt, ddof, LANES)
        counts[r] = cnt
        flags[r] = fl


def var_one_kernel(x: np.ndarray, bits: np.ndarray, skipnan: Any,
                   ddof: Any) -> Any:  # pragma: no cover - compiled
    """(value, certified, count, flags) of the variance of the 1-D float64 array ``x``:
    :func:`var_rows_kernel` of its one row (``skipnan``: NaNs left out and flagged,
    ``bits`` its uint64 view), the lean entry of small data (four arguments, no output
    arrays: numba's dispatch costs a fraction of a microsecond per argument)."""
    ls = np.zeros(LANES)
    lc = np.zeros(LANES)
    lb = np.zeros(LANES)
    lqs = np.zeros(LANES)
    lqc = np.zeros(LANES)
    lqb = np.zeros(LANES)
    ln = np.zeros(LANES, np.int64)
    lf = np.zeros(LANES, np.int64)
    m = x.shape[0]
    _var_row(x.reshape(1, m), np.ones((1, 1), np.bool_), bits.reshape(1, m), 0,
             MODE_SKIPNAN if skipnan else MODE_ALL, ls, lc, lb, lqs, lqc, lqb, ln, lf)
    s = ls[0]
    c = lc[0]
    b = lb[0]
    qs = lqs[0]
    qc = lqc[0]
    qb = lqb[0]
    cnt = ln[0]
    fl = lf[0]
    for j in range(1, LANES):
        s, c, b = lane_add(s, c + lc[j], b + lb[j], ls[j])
        qs, qc, qb = lane_add(qs, qc + lqc[j], qb + lqb[j], lqs[j])
        cnt += ln[j]
        fl |= lf[j]
    val, ok = _certify_var(s, c, b, qs, qc, qb, cnt, ddof, LANES)
    return val, ok, cnt, fl


def var_grouped_kernel(x: np.ndarray, mask: np.ndarray, bits: np.ndarray, mode: Any,
                       codes: np.ndarray, ddof: Any, out: np.ndarray, ok: np.ndarray,
                       counts: np.ndarray, flags: np.ndarray) -> None:
    # pragma: no cover - compiled
    """Certified variances per group (``codes[i]`` in ``[0, groups)``, -1: no group)
    of the 1-D array ``x``: the accumulators of :func:`var_rows_kernel` per group in
    one scatter (one cache line each), then the same certification; ``flags`` zeroed
    by the caller."""
    acc = np.zeros((out.shape[0], 8))
    for i in range(x.shape[0]):
        g = codes[i]
        if g < 0:
            continue
        if mode == MODE_MASK:
            if not mask[i]:
                continue
        elif mode == MODE_SKIPNAN:
            b = bits[i] & ABS
            if b > INF_BITS:
                flags[g] |= F_NAN | (F_SNAN * np.int64((b & QUIET) == 0))
                continue
        v = np.float64(x[i])
        acc[g, 0], acc[g, 1], acc[g, 2], acc[g, 3], acc[g, 4], acc[g, 5] = _var_add(
            acc[g, 0], acc[g, 1], acc[g, 2], acc[g, 3], acc[g, 4], acc[g, 5], v)
        acc[g, 6] += 1.0
    for g in range(out.shape[0]):
        cnt = np.int64(acc[g, 6])
        out[g], ok[g] = _certify_var(acc[g, 0], acc[g, 1], acc[g, 2], acc[g, 3], acc[g, 4],
                                     acc[g, 5], cnt, ddof, 0)
        counts[g] = cnt


_SHARED = ("lane_add", "two_prod_err", "spacing_below")
_HELPERS = ("_var_add", "_var_row", "_dd_bound", "_certify_var")
_KERNELS = ("var_rows_kernel", "var_one_kernel", "var_grouped_kernel")


def build() -> dict[str, Any]:
    """Compile the helpers (the shared ones as :mod:`.compensated` compiled them:
    its build rebinds its globals), then the kernels (called once by ``kernels``)."""
    kernels("compensated")
    from . import compensated

    bind(globals(), _SHARED, {name: getattr(compensated, name) for name in _SHARED})
    bind(globals(), _HELPERS)
    return {name: jit(nogil=True)(globals()[name]) for name in _KERNELS}


register("compensated_var", build)
