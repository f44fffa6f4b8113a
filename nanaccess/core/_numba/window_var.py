"""Certified moving variances (the fast numba engine of var / std windows).

:func:`binned_var` keeps a window's sum ``S`` and sum of squares ``Q`` on fixed bins
(see the comment above :func:`_nb_cert`) and certifies each quotient
``(n Q - S**2) / (n (n - ddof))`` from a rigorous bound; only the outputs it cannot
certify (ties, near-ties, cancellation beyond the bins) are left to the exact
expansion kernel of :mod:`.window_exact_var`
(:func:`nanaccess.core.window.moments.fused_moment` runs it over those windows only).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import jit, kernels, register
from .window_sums import _fma, fma_intrinsic  # noqa: F401  (bound as this module's globals)

__all__ = ["binned_var", "stats", "reset_stats"]

# ------------------------------------------------------- certified moving variances
# The common case, as the sums' fixed bins: native float64 data whose squares stay
# finite. Each value enters (and leaves) S and Q through two fixed bins: a fixed
# function ``fS(v)`` / ``fQ(v)`` of the value alone, its pieces multiples of the bins'
# units (``(y + C) - C`` rounds y to the grid) and every bin an integer below 2**53
# units, so removing a value undoes its entry exactly: the bins are a function of the
# window's values, whatever came before (no drift). ``fS(v) = v`` unless v has bits
# below the lower bin (then within ``es`` = half that unit); ``fQ(v)`` is ``v*v``
# (``p + e``, TwoProduct by fma) within ``eq`` = the lower unit plus ``2**-52`` of the
# upper one. Each output forms D = n Q - S**2 from TwoProducts of the bins' sums
# with a rigorous bound (:func:`_nb_cert`) and returns the quotient only when the
# bound proves it correctly rounded; the rest (ties, near-ties, heavy cancellation,
# results near under/overflow) are flagged for the exact kernel (window_exact_var). A window of
# one repeated value is exactly 0 (a run counter). Windows that only grow (one
# start: expanding) fold the bins into running pairs every CUM_BLOCK values, so their
# units stay fine however long the window grows (:func:`_nb_cum_var`).

_U = 2.0 ** -53
_ABS_ERR = 2.0 ** -1000  # the TwoProducts' errors when their products underflow
_D_LO, _D_HI = 2.0 ** -900, 2.0 ** 990  # D (and the quotient) inside: normal pieces
_MARGIN = 1.0 + 2.0 ** -40  # covers the few roundings of the final test
_SHRINK = 1.0 - 2.0 ** -39  # below 1 / _MARGIN: multiplies where _nb_cert divides
_STATS = {"certified": 0, "fallback": 0}
CUM_BLOCK = 126  # values the bins of growing windows hold between folds
CUM_CHUNK = 256  # outputs of growing windows certified together


def _nb_numerator(sh: Any, sl: Any, es: Any, qh: Any, ql: Any, eq: Any, dn: Any,
                  scale: Any) -> Any:  # pragma: no cover - compiled
    """``D = n Q - S**2`` as a double-double ``(dh, dl)`` with its error bound ``err``
    (``S = sh + sl`` within ``es``, ``Q = qh + ql`` within ``eq``, ``n = dn``): the
    products split exactly by fma, the differences by TwoSum. Shared by the branching
    (:func:`_nb_cert`) and the branch-free (:func:`_nb_cert_flat`) certifications."""
    p1 = dn * qh
    e1 = _fma(dn, qh, -p1)
    p2 = dn * ql
    e2 = _fma(dn, ql, -p2)
    p3 = sh * sh
    e3 = _fma(sh, sh, -p3)
    t2 = 2.0 * sh
    p4 = t2 * sl
    e4 = _fma(t2, sl, -p4)
    t = p1 - p3
    z = t - p1
    et = (p1 - (t - z)) - (p3 + z)
    r = ((et + (e1 - e3)) + (p2 - p4)) + (e2 - e4)
    small = abs(et) + abs(e1) + abs(e3) + abs(p2) + abs(p4) + abs(e2) + abs(e4)
    dh = t + r
    z = dh - t
    dl = (t - (dh - z)) + (r - z)
    ash = abs(sh) + abs(sl)
    err = (dn * eq + (2.0 * ash + es) * es + sl * sl + 8.0 * _U * small + _ABS_ERR) \
        * 1.0001 * scale
    return dh, dl, err


def _nb_cert(sh: Any, sl: Any, es: Any, qh: Any, ql: Any, eq: Any, cnt: Any, ddof: Any,
             scale: Any) -> Any:  # pragma: no cover - compiled
    """(value, certified) of ``(n Q - S**2) / (n (n - ddof))`` for ``n = cnt`` when
    ``|S - (sh + sl)| <= es`` and ``|Q - (qh + ql)| <= eq`` (``scale`` multiplies the
    bound: 1.0; tests set 0 to show that it matters).

    ``D`` is ``p1 + e1 + p2 + e2 - p3 - e3 - p4 - e4`` (TwoProducts of ``n qh``,
    ``n ql``, ``sh sh``, ``2 sh sl``; ``sl**2`` left out, in the bound), ``p1 - p3``
    by TwoSum and the six small terms summed naively (``8u`` of their magnitudes
    bounds that), then TwoSum into ``(dh, dl)``: ``|D - dh - dl| <= E = (n eq + (2|S|
    + es) es + sl**2 + 8u sum|small| + 2**-1000) * 1.0001``. The candidate ``q``
    (``dh / m`` corrected once by the residual, ``m = n (n - ddof) < 2**53`` exact)
    is certified when ``|dh + dl - q m| + slack + E < m h / 2`` strictly (``h`` the
    spacing below q, the smaller one): then q is D/m correctly rounded, no tie."""
    dn = np.float64(cnt)
    m = dn * np.float64(cnt - ddof)
    if not (m < 2.0 ** 53):
        return 0.0, False
    dh, dl, err = _nb_numerator(sh, sl, es, qh, ql, eq, dn, scale)
    if not (_D_LO <= dh <= _D_HI and err < np.inf and dh - abs(dl) - err > 0.0):
        return 0.0, False  # D's interval holds 0, or D near under/overflow (or NaN)
    q = dh / m
    p = q * m
    q += (((dh - p) - _fma(q, m, -p)) + dl) / m  # dh / m is off by an ulp if dl tips it
    if not (_D_LO <= q <= _D_HI):
        return 0.0, False
    p = q * m
    r1 = dh - p  # exact (Sterbenz)
    r2 = _fma(q, m, -p)
    num = (r1 - r2) + dl
    slack = 3.0 * _U * (abs(r1) + abs(r2) + abs(dl))
    h = q - np.int64(np.int64(np.float64(q).view(np.int64)) - 1).view(np.float64)
    if (abs(num) + slack + err) * _MARGIN < (0.5 * h) * m / _MARGIN:
        return q, True
    return 0.0, False


def _nb_q0(v: Any, c: Any, cq0: Any) -> Any:  # pragma: no cover - compiled
    """The upper bin's piece of ``fQ(v)``: ``fl(v - c)**2`` rounded to its grid."""
    y = v - c
    p = y * y
    return (p + cq0) - cq0


def _nb_q1(v: Any, c: Any, cq0: Any, cq1: Any) -> Any:  # pragma: no cover - compiled
    """The lower bin's piece of ``fQ(v)``: the rest of ``(v - c)**2`` (``v - c = y +
    t`` by TwoSum, ``y*y = p + e`` by fma, ``2 y t`` rounded, ``t*t`` left out) rounded
    to its grid."""
    if c == 0.0:  # no shift (the common case): no TwoSum, no cross term
        p = v * v
        g = (p + cq0) - cq0
        return (((p - g) + _fma(v, v, -p)) + cq1) - cq1
    y = v - c
    z = y - v
    t = (v - (y - z)) - (c + z)
    p = y * y
    g = (p + cq0) - cq0
    return (((p - g) + (_fma(y, y, -p) + 2.0 * y * t)) + cq1) - cq1


def _nb_binned_var(x: np.ndarray, fixed: Any, e0: Any, step: Any, span: Any, start: np.ndarray,
                   end: np.ndarray, ddof: Any, c: Any, cs0: Any, cs1: Any, cq0: Any, cq1: Any,
                   es: Any,
                   eq: Any, scale: Any, out: np.ndarray, cnt: np.ndarray,
                   bad: np.ndarray) -> Any:  # pragma: no cover - compiled
    """Certified variance of every window's non-NaN values (module comment above;
    bins ``cs0``/``cs1`` of S and ``cq0``/``cq1`` of Q, per-value bounds ``es``,
    ``eq``). ``bad[i]``: output i for the exact kernel. ``fixed`` and the return
    value as :func:`.window_sums._nb_binned` (-1 at a decreasing bound, else bit 0 a
    NaN entered a window, bit 1 an output is bad)."""
    a0 = 0.0
    a1 = 0.0
    b0 = 0.0
    b1 = 0.0
    cs = 0
    ce = 0
    ps = 0
    pe = 0
    m = 0
    run = 0  # the last `run` values entered are equal (to `last`)
    last = 0.0
    seen = 0
    n_x = x.shape[0]
    for i in range(out.shape[0]):
        if fixed:
            e = e0 + i * step
            s = e - span
            e = min(max(e, 0), n_x)
            s = min(max(s, 0), e)
        else:
            s = start[i]
            e = end[i]
            if s < ps or e < pe:
                return -1
            ps = s
            pe = e
        if s >= ce:
            a0 = 0.0
            a1 = 0.0
            b0 = 0.0
            b1 = 0.0
            m = 0
            run = 0
            cs = s
            ce = s
        while cs < s:
            v = x[cs]
            if v == v:
                h = (v + cs0) - cs0
                a0 -= h
                a1 -= ((v - h) + cs1) - cs1
                b0 -= _nb_q0(v, c, cq0)
                b1 -= _nb_q1(v, c, cq0, cq1)
                m -= 1
            cs += 1
        while ce < e:
            v = x[ce]
            if v == v:
                h = (v + cs0) - cs0
                a0 += h
                a1 += ((v - h) + cs1) - cs1
                b0 += _nb_q0(v, c, cq0)
                b1 += _nb_q1(v, c, cq0, cq1)
                m += 1
                run = run + 1 if v == last else 1
                last = v
            else:
                seen |= 1
            ce += 1
        cnt[i] = m
        if m - ddof <= 0:
            out[i] = np.nan
            continue
        if run >= m:  # one value repeated: D is exactly 0
            out[i] = 0.0
            continue
        dn = np.float64(m)
        pc = dn * c
        sh, sl, se = _nb_fold(-pc, -_fma(dn, c, -pc), dn * es, a0, a1)  # S - n c
        qh = b0 + b1
        z = qh - b0
        ql = (b0 - (qh - z)) + (b1 - z)
        q, ok = _nb_cert(sh, sl, se, qh, ql, dn * eq, m, ddof, scale)
        out[i] = q
        if not ok:
            bad[i] = True
            seen |= 2
    return seen


def _nb_fold(h: Any, l: Any, err: Any, a0: Any, a1: Any) -> Any:  # pragma: no cover - compiled
    """``(h, l)`` plus the bins ``a0 + a1`` as a renormalised pair, and its bound:
    TwoSum of ``h + a0``, the rest summed naively (``3u`` of their magnitudes)."""
    t = h + a0
    z = t - h
    e1 = (h - (t - z)) + (a0 - z)
    w = (l + a1) + e1
    err += 3.0 * _U * (abs(l) + abs(a1) + abs(e1)) + _ABS_ERR
    hh = t + w
    z = hh - t
    return hh, (t - (hh - z)) + (w - z), err


def _nb_cert_flat(sh: Any, sl: Any, es: Any, qh: Any, ql: Any, eq: Any, dn: Any, ddof: Any,
                  scale: Any) -> Any:  # pragma: no cover - compiled
    """:func:`_nb_cert` without a branch (every step computed, the tests ANDed) and
    with one division, so that a loop of independent outputs (:func:`_nb_cum_flush`)
    runs them side by side: ``cnt = dn`` (a count as a float). The candidate comes
    from the reciprocal of ``m`` (corrected once by the exact residual), and the test
    divides by no margin but multiplies by ``_SHRINK < 1 / _MARGIN`` (stricter); ``r1
    = dh - p`` is exact wherever q is within a factor 2 of D/m (Sterbenz), and
    elsewhere ``|num|`` alone fails the test: a value certified here is the
    correctly rounded one, as :func:`_nb_cert`'s."""
    m = dn * (dn - ddof)
    ok = m < 2.0 ** 53
    m = m if m >= 1.0 else 1.0  # a count without a variance: no division by zero
    dh, dl, err = _nb_numerator(sh, sl, es, qh, ql, eq, dn, scale)
    ok = ok & (_D_LO <= dh) & (dh <= _D_HI) & (err < np.inf) & (dh - abs(dl) - err > 0.0)
    inv = 1.0 / m  # one division: q from the reciprocal, corrected once by the residual
    q = dh * inv
    p = q * m
    q += (((dh - p) - _fma(q, m, -p)) + dl) * inv
    ok = ok & (_D_LO <= q) & (q <= _D_HI)
    p = q * m
    r1 = dh - p
    r2 = _fma(q, m, -p)
    num = (r1 - r2) + dl
    slack = 3.0 * _U * (abs(r1) + abs(r2) + abs(dl))
    h = q - np.int64(np.int64(np.float64(q).view(np.int64)) - 1).view(np.float64)
    ok = ok & ((abs(num) + slack + err) * _MARGIN < (0.5 * h) * m * _SHRINK)
    return q, ok


def _nb_cum_flush(buf: np.ndarray, k: Any, i0: Any, sh: Any, sl: Any, se: Any, qh: Any,
                  ql: Any, qe: Any, ddof: Any, es: Any, eq: Any, et: Any, scale: Any,
                  out: np.ndarray, bad: np.ndarray) -> Any:  # pragma: no cover - compiled
    """Outputs ``i0 .. i0 + k`` of :func:`_nb_cum_var` from the running pairs of S
    and Q they share (``sh, sl, se``, ``qh, ql, qe``: no fold between them) and the
    state it saved of each (``buf[:, j]``: S's bins, Q's, the count, one repeated
    value): the folds and the certificate of each, independent of the others (no
    branch: the compiler runs several at once). Returns the outputs left over."""
    nbad = 0
    for j in range(k):
        dn = buf[4, j]
        a1s = buf[1, j]
        th, tl, te = _nb_fold(sh, sl, se + dn * es + dn * dn * et + 2.0 * _U * abs(a1s),
                              buf[0, j], a1s)  # S - n c
        uh, ul, ue = _nb_fold(qh, ql, qe, buf[2, j], buf[3, j])
        q, ok = _nb_cert_flat(th, tl, te, uh, ul, ue + dn * eq, dn, ddof, scale)
        none = dn - ddof <= 0.0
        zero = buf[5, j] != 0.0
        q = q if ok else 0.0
        q = 0.0 if zero else q
        out[i0 + j] = np.nan if none else q
        miss = not (ok or none or zero)
        bad[i0 + j] = miss
        nbad += miss
    return nbad


def _nb_cum_var(x: np.ndarray, start: np.ndarray, end: np.ndarray, plain: Any, ddof: Any, c: Any,
                cs0: Any, cs1: Any, cq0: Any, cq1: Any, es: Any, eq: Any, et: Any, block: Any,
                scale: Any, out: np.ndarray, cnt: np.ndarray,
                bad: np.ndarray) -> Any:  # pragma: no cover - compiled
    """:func:`_nb_binned_var` for windows that share their start and only grow
    (expanding windows): no value leaves, so the bins hold ``block`` values at most
    (fine units whatever the length) and are folded into running pairs of S and Q
    (:func:`_nb_fold`, bounds carried). S is kept of ``v - c`` too: ``fl(v - c)`` in
    the bins (grid error ``es`` each), the TwoSum errors summed in ``ts`` (``et * n**2``
    bounds that sum's rounding). The bins of each output are saved and the outputs
    certified in one loop (:func:`_nb_cum_flush`) before each fold and every CUM_CHUNK
    outputs. ``plain``: ``end[i] = end[0] + i`` (checked by :func:`_nb_extent`), the
    bounds are not read again. Returns -1 if a start differs or an end decreases,
    else the flags of :func:`_nb_binned_var`."""
    a0 = 0.0
    a1 = 0.0
    ts = 0.0
    b0 = 0.0
    b1 = 0.0
    sh = 0.0
    sl = 0.0
    se = 0.0
    qh = 0.0
    ql = 0.0
    qe = 0.0
    k = 0
    m = 0
    run = 0
    last = 0.0
    seen = 0
    nbad = 0
    buf = np.empty((6, CUM_CHUNK), np.float64)
    j = 0
    i0 = 0
    ce = start[0] if start.shape[0] else 0
    s0 = ce
    e1 = end[0] if end.shape[0] else 0
    for i in range(out.shape[0]):
        if plain:
            e = e1 + i
        else:
            e = end[i]
            if start[i] != s0 or e < ce:
                return -1
        while ce < e:
            v = x[ce]
            if v == v:
                y = v
                if c != 0.0:  # no shift (the common case): no TwoSum
                    y = v - c
                    z = y - v
                    ts += (v - (y - z)) - (c + z)
                h = (y + cs0) - cs0
                a0 += h
                a1 += ((y - h) + cs1) - cs1
                b0 += _nb_q0(v, c, cq0)
                b1 += _nb_q1(v, c, cq0, cq1)
                m += 1
                k += 1
                run = run + 1 if v == last else 1
                last = v
                if k == block:
                    if j:  # the outputs saved before this fold: certified now
                        nbad += _nb_cum_flush(buf, j, i0, sh, sl, se, qh, ql, qe, ddof, es,
                                              eq, et, scale, out, bad)
                        i0 += j
                        j = 0
                    sh, sl, se = _nb_fold(sh, sl, se, a0, a1)
                    qh, ql, qe = _nb_fold(qh, ql, qe, b0, b1)
                    a0 = 0.0
                    a1 = 0.0
                    b0 = 0.0
                    b1 = 0.0
                    k = 0
            else:
                seen |= 1
            ce += 1
        cnt[i] = m
        buf[0, j] = a0
        buf[1, j] = a1 + ts
        buf[2, j] = b0
        buf[3, j] = b1
        buf[4, j] = m
        buf[5, j] = run >= m
        j += 1
        if j == CUM_CHUNK:
            nbad += _nb_cum_flush(buf, j, i0, sh, sl, se, qh, ql, qe, ddof, es, eq, et,
                                  scale, out, bad)
            i0 += j
            j = 0
    nbad += _nb_cum_flush(buf, j, i0, sh, sl, se, qh, ql, qe, ddof, es, eq, et, scale, out,
                          bad)
    return seen | (2 if nbad else 0)


def stats() -> dict[str, int]:
    """Outputs :func:`binned_var` certified and left to the exact kernel since
    :func:`reset_stats` (tests read it: the fast path ran, a near-tie fell back)."""
    return dict(_STATS)


def reset_stats() -> None:
    """Zero the counters of :func:`stats`."""
    _STATS["certified"] = _STATS["fallback"] = 0


def _grid(e_top: int, lw: int, d: int) -> tuple[float, float, int, int]:
    """(C0, C1, b0, b1): two bins below ``2**(e_top + 1)`` holding sums of up to
    ``2**lw - 2`` values exactly (units ``2**b0``, ``2**b1``)."""
    b0 = max(e_top + lw - 50, -1074)
    b1 = max(b0 - d, -1074)
    return 1.5 * 2.0 ** (b0 + 52), 1.5 * 2.0 ** (b1 + 52), b0, b1


def _nb_extent(bits: np.ndarray, start: np.ndarray,
               end: np.ndarray) -> Any:  # pragma: no cover - compiled
    """:func:`.window_sums._nb_range` (largest |x|, smallest nonzero |x|, infinities,
    widest window) plus the smallest and largest non-NaN value, in one pass of
    integer reductions on the bits (a sign-folded key orders floats as integers), and
    whether the windows share their start and end one apart (``end[i] = end[0] +
    i``: expanding)."""
    width = 0
    plain = start.shape[0] > 0
    for i in range(start.shape[0]):
        width = max(width, end[i] - start[i])
        plain &= (start[i] == start[0]) & (end[i] == end[0] + i)
    mag = 0x7FFFFFFFFFFFFFFF
    inf_bits = 0x7FF0000000000000
    big = 0
    small = mag
    infs = 0
    lo = mag
    hi = -mag - 1
    for j in range(bits.shape[0]):
        b = bits[j]
        a = b & mag
        num = a <= inf_bits
        key = b ^ ((b >> 63) & mag)
        infs += a == inf_bits
        big = max(big, a if a < inf_bits else 0)
        small = min(small, a if a != 0 else mag)
        lo = min(lo, key if num else mag)
        hi = max(hi, key if num else -mag - 1)
    if lo > hi:  # no number
        return 0.0, np.inf, infs > 0, width, np.inf, -np.inf, plain
    lo = lo ^ ((lo >> 63) & mag)
    hi = hi ^ ((hi >> 63) & mag)
    return (np.int64(big).view(np.float64),
            np.int64(small).view(np.float64) if small < inf_bits else np.inf, infs > 0, width,
            np.int64(lo).view(np.float64), np.int64(hi).view(np.float64), plain)


def _shift(lo: float, hi: float, big: float) -> tuple[float, float]:
    """(c, a bound of every ``|fl(v - c)|``) of data in ``[lo, hi]``: Q is kept of
    ``v - c`` (the variance is the same), with ``c`` the data's midrange when it
    exceeds the range (an offset: the bins then hold the spread, not the offset's
    square), else 0."""
    if not lo <= hi or abs(0.5 * lo + 0.5 * hi) <= hi - lo:  # no value, or no offset
        return 0.0, big
    c = 0.5 * lo + 0.5 * hi
    return c, max(hi - c, c - lo)  # rounding is monotone: fl(v - c) lies between


def _last_bit(c: float) -> int:
    """The exponent of ``c``'s lowest set bit (a large one for 0)."""
    if c == 0:
        return 1 << 20
    num, den = c.as_integer_ratio()
    return (num & -num).bit_length() - den.bit_length()


def _rescaled(x: Any, big: Any, small: Any, start: Any, end: Any, fw: Any, ddof: Any, out: Any,
              cnt: Any, bad: Any, compiled: Any, spread: Any,
              scale: Any) -> int:
    """:func:`binned_var` of ``x * 2**k`` (``big * 2**k`` in ``[1, 2)``: exact while
    every scaled value stays normal), its results times ``2**(-2k)``: exact where they
    are normal (the variance scales with the square), the rest left to the exact
    kernel. -1 where scaling down would lose the smallest values' bits."""
    k = -(int(np.frexp(big)[1]) - 1)
    if k < 0 and not small * 2.0 ** k >= 2.0 ** -1022:
        return -1
    h = k // 2
    xs = (x * 2.0 ** h) * 2.0 ** (k - h)  # two steps: 2**k alone may overflow
    seen = binned_var(xs, fw if fw is not None else start, end, ddof, out, cnt, bad,
                      compiled=compiled, spread=spread, scale=scale)
    if seen < 0:
        return seen
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        for _ in range(2):  # 2**(-2k) in four steps of one sign (exact while normal)
            out *= 2.0 ** -h
            out *= 2.0 ** (h - k)
        odd = ~bad & (out != 0) & ~(np.abs(out) >= 2.0 ** -1022) & ~np.isnan(out)
        odd |= ~bad & np.isinf(out)
    if odd.any():  # subnormal (or overflowed) results: rounded twice here
        bad |= odd
        k = int(np.count_nonzero(odd))
        _STATS["certified"] -= k
        _STATS["fallback"] += k
        seen |= 2
    return seen


def binned_var(x: np.ndarray, start: Any, end: np.ndarray | None, ddof: int,
               out: np.ndarray, cnt: np.ndarray, bad: np.ndarray, *, compiled: bool = True,
               spread: int | None = None, scale: float = 1.0,
               extent: np.ndarray | None = None) -> int:
    """Fill ``out`` (the certified variance of each window's non-NaN values of a
    native float64 column), ``cnt`` (those values) and ``bad`` (outputs left to the
    exact kernel; False beforehand); see the comment above :func:`_nb_cert`.

    ``start`` may be a :class:`nanaccess.core.window.bounds.FixedWindows` (``end``
    None); windows sharing one start (expanding) take :func:`_nb_cum_var`. ``spread``
    (tests) narrows the bins' spacing below ``52 - log2(width)`` bits, ``scale``
    (tests) scales the error bound; ``extent`` (2 floats) receives the largest and the
    smallest nonzero magnitude of the non-NaN values. Data whose largest magnitude is
    outside ``[2**-200, 2**500)`` is rescaled by a power of two (:func:`_rescaled`).
    Returns -1 where the kernels do not apply (an infinity, a range too wide to
    rescale, bins that would overflow, decreasing bounds), else bit 0: a NaN entered
    a window, bit 1: an output is left to the exact kernel."""
    fns = kernels("window_var") if compiled else {
        "extent": _nb_extent, "binned_var": _nb_binned_var, "cum_var": _nb_cum_var}
    fixed = end is None
    if fixed:
        fw, start = start, np.zeros(0, np.int64)
        end = start
    start = np.ascontiguousarray(start, np.int64)
    end = np.ascontiguousarray(end, np.int64)
    big, small, inf, width, lo, hi, plain = fns["extent"](x.view(np.int64), start, end)
    if extent is not None:
        extent[:] = big, small
    if inf:
        return -1
    if big > 0 and not 2.0 ** -200 <= big < 2.0 ** 500:  # tiny or huge data: rescaled
        return _rescaled(x, big, small, start, end if not fixed else None,
                         fw if fixed else None, ddof, out, cnt, bad, compiled, spread, scale)
    cum = not fixed and start.size and start[0] == start[-1]  # expanding: nothing leaves
    width = CUM_BLOCK if cum else fw.width if fixed else int(width)
    lw = int(width + 2).bit_length()  # W + 2 <= 2**lw: headroom of every bin
    d = 52 - lw if spread is None else min(spread, 52 - lw)
    e_max = int(np.frexp(big)[1]) - 1 if big > 0 else -1074
    lsb = max(int(np.frexp(small)[1]) - 53, -1074) if small < np.inf else e_max
    c, ymax = _shift(lo, hi, big)
    e_y = int(np.frexp(ymax)[1]) - 1 if ymax > 0 else -1074
    if cum:  # S of v - c too: fl(v - c) has no bit below c's or the data's last one
        lsb = min(lsb, _last_bit(c))
        e_max = e_y
    cs0, cs1, bs0, b1 = _grid(e_max, lw, d)
    cq0, cq1, bq0, bq1 = _grid(2 * e_y + 1, lw, d)
    if max(bs0, bq0) > 971:  # the bins' constants would overflow (huge values, windows)
        return -1
    es = 0.0 if b1 <= lsb else 2.0 ** (b1 - 1)  # fS(v) = v: the data lies on the grid
    eq = 2.0 ** bq1 + 2.0 ** (bq0 - 51) + 4.0 * (_U * ymax) ** 2
    if cum:  # |t| <= u |v - c| each, summed naively: gamma_n n u ymax
        plain = bool(plain) and end[0] >= start[0]  # one start, ends one apart
        seen = int(fns["cum_var"](x, start, end, plain, int(ddof), c, cs0, cs1, cq0, cq1, es,
                                  eq, 1.01 * _U * _U * ymax, CUM_BLOCK, float(scale), out,
                                  cnt, bad))
    else:
        e0, step, span = (fw.e0, fw.step, fw.span) if fixed else (0, 1, 0)
        seen = int(fns["binned_var"](x, fixed, e0, step, span, start, end, int(ddof), c,
                                     cs0, cs1, cq0, cq1, es, eq, float(scale), out, cnt,
                                     bad))
    if seen >= 0:
        k = int(np.count_nonzero(bad))
        _STATS["fallback"] += k
        _STATS["certified"] += out.size - k
    return seen


def build() -> dict[str, Any]:
    """Compile the certified variance kernels."""
    globals()["_fma"] = fma_intrinsic()
    for name in ("_nb_numerator", "_nb_q0", "_nb_q1", "_nb_cert", "_nb_fold",
                 "_nb_cert_flat"):  # inlined
        globals()[name] = jit(nogil=True, inline="always")(globals()[name])
    globals()["_nb_cum_flush"] = jit(nogil=True, error_model="numpy")(_nb_cum_flush)
    return {"extent": jit(nogil=True)(_nb_extent),
            "binned_var": jit(nogil=True)(_nb_binned_var),
            "cum_var": jit(nogil=True, error_model="numpy")(_nb_cum_var)}


register("window_var", build)
