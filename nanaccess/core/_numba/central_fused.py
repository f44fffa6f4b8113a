"""Certified skew, kurt and sem in one pass: the front of :mod:`.central_moments`.

:mod:`.central_moments` reads each row twice (the first pass finds the centre and the
scale). Here the centre ``c`` and the scale ``2**-E`` come from a strided sample of at
most ``_SAMPLE`` values of the row (the mean of the sample, ``E`` so that the sample's
largest ``|x - c| 2**-E`` lies in ``[2**-4, 2**-3)``), and one pass over the row forms
the same terms as :mod:`.central_moments`' second pass: ``d = (x - c) 2**-E`` exact as
``dh + dl`` (TwoSum, then an exact scaling) and the powers ``d**k = th + tl`` (k = 1..4)
whose error terms are the same products, their rounding errors taken by LLVM's fused
multiply-add instead of Veltkamp's splitting (``fma(a, b, -fl(a b))`` is the exact
error, as Dekker's TwoProduct). The terms are added in ``_L`` lanes, ``_B`` terms per
lane and block, each block folded into the lane's double-double total: the error
model, and so the bound ``A_k (2**-85 + nb 2**-98) + n 2**-998`` of
:mod:`.central_moments`, hold unchanged once the pass proves its premise, that every
scaled ``|d|`` is below 1 (the pass tracks ``max|d|``, and counts the values).

A row is certified by :func:`.central_moments.finish_bounded` exactly as the two-pass
kernel's; a row the pass cannot settle (``ok`` False: the sample missed the spread,
``max|d|`` outside ``[2**-20, 1)``, a NaN or an infinity taken, constant data, a tie,
a huge count)
goes to the two-pass kernel and then to the exact engine. A certified value is the
correctly rounded exact value, so every path gives the same bits.

The pass is bound by the floating-point adders (about 33 adds to 10 multiplies per
value at k <= 3): the lane sums spell some adds as ``fma(a, 1, b)`` (rounded once,
so the same bits), which the multiply pipes then take (about 15 % faster). With no
``keep`` (``None``, pruned when compiled) the pass leaves out the NaNs itself and
counts what it took (:func:`fused_rows_nan`): the callers need no policy scan or mask
when the policy drops NaNs silently; :func:`signaling` and :func:`bucket_nan` look
for the signaling NaNs that must still raise.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import bind, jit, register
from .central_moments import finish_bounded, skew_factor, trivial

__all__ = ["build", "fused_rows", "fused_rows_nan", "fused_segments", "bucket", "bucket_nan",
           "signaling"]

_L = 32  # lanes: one chunk of _L values is a map over them (LLVM vectorises it)
_B = 128  # terms per lane and block (the bound of central_moments assumes <= 128)
_SAMPLE = 64  # values of the strided sample that sets the centre and the scale
_HEAD = 3  # the sample's spread is scaled to [2**-4, 2**-3): room for 8x wider data
_MX_LO = 2.0**-20


def _fma(a: Any, b: Any, c: Any) -> Any:  # pragma: no cover - replaced by LLVM's fma when compiled
    """``a * b + c`` rounded once (exact rational arithmetic uncompiled)."""
    from fractions import Fraction

    if not (math.isfinite(a) and math.isfinite(b) and math.isfinite(c)):
        return a * b + c
    try:
        return float(Fraction(a) * Fraction(b) + Fraction(c))
    except OverflowError:
        return a * b + c


def _sample(xr: np.ndarray, kr: np.ndarray) -> Any:  # pragma: no cover - compiled
    """``(centre, factor 2**-E, E, usable)`` from a strided sample of the row."""
    n = xr.shape[0]
    step = max(1, n // _SAMPLE)
    s = 0.0
    cnt = 0
    lo = math.inf
    hi = -math.inf
    for i in range(0, n, step):
        v = xr[i]
        if kr is None:
            take = v == v
        else:
            take = kr[i]
        if take:
            s += v
            cnt += 1
            lo = min(lo, v)
            hi = max(hi, v)
    if cnt == 0 or not (abs(s) < math.inf and abs(lo) < math.inf and abs(hi) < math.inf):
        return 0.0, 1.0, 0, False
    c = min(max(s / cnt, lo), hi)
    m = max(hi - c, c - lo)
    if m == 0.0:
        m = abs(c) if c != 0.0 else 1.0
    if not (m > 0.0 and m < math.inf):
        return 0.0, 1.0, 0, False
    ex = math.frexp(m)[1] + _HEAD
    if ex < -1000 or ex > 1000:
        return 0.0, 1.0, 0, False
    return c, math.ldexp(1.0, -ex), ex, True


def _tail_term(v: Any, c: Any, f: Any) -> Any:  # pragma: no cover - compiled
    """``(d, dl, p, q, m3, t3, m4, t4)``: the scaled difference and its powers."""
    d = v - c
    z = d - v
    dl = ((v - (d - z)) + (-c - z)) * f
    d = d * f
    p = d * d
    q = _fma(d, d, -p) + 2.0 * d * dl
    m3 = p * d
    t3 = _fma(p, d, -m3) + (p * dl + q * d)
    m4 = p * p
    t4 = _fma(p, p, -m4) + 2.0 * p * q
    return d, dl, p, q, m3, t3, m4, t4


def _add(bs: np.ndarray, bc: np.ndarray, k: Any, j: Any, t: Any,
         tl: Any) -> None:  # pragma: no cover - compiled
    a = bs[k, j]
    s = a + t
    z = s - a
    bs[k, j] = s
    bc[k, j] += ((a - (s - z)) + (t - z)) + tl


def _fold_lanes(bs: np.ndarray, bc: np.ndarray, hh: np.ndarray, hl: np.ndarray,
                kmax: Any) -> None:  # pragma: no cover - compiled
    for k in range(kmax):
        for j in range(_L):
            t, e = _two_sum(hh[k, j], bs[k, j])
            e += hl[k, j] + bc[k, j]
            h = t + e
            hh[k, j] = h
            hl[k, j] = e - (h - t)
            bs[k, j] = 0.0
            bc[k, j] = 0.0


def _two_sum(a: Any, b: Any) -> Any:  # pragma: no cover - compiled
    s = a + b
    z = s - a
    return s, (a - (s - z)) + (b - z)


def _pass(xr: np.ndarray, kr: np.ndarray, kmax: Any, c: Any, f: Any, bs: np.ndarray, bc: np.ndarray,
          hh: np.ndarray, hl: np.ndarray, st: np.ndarray) -> Any:  # pragma: no cover - compiled
    """One pass over the row into the lanes; ``st`` gets ``(max|d|, count)`` per lane
    (rows 0-1). Returns the folds made (per lane, times ``_L``)."""
    n = xr.shape[0]
    full = n - n % _L
    for k in range(4):
        for j in range(_L):
            bs[k, j] = 0.0
            bc[k, j] = 0.0
            hh[k, j] = 0.0
            hl[k, j] = 0.0
    mxl = st[0]
    nl = st[1]
    for j in range(_L):
        mxl[j] = 0.0
        nl[j] = 0.0
    b0s = bs[0]
    b1s = bs[1]
    b2s = bs[2]
    b3s = bs[3]
    b0c = bc[0]
    b1c = bc[1]
    b2c = bc[2]
    b3c = bc[3]
    nb = 0
    # sums and differences spelled as fma(a, +-1, b), the same rounding: the adds share
    # the multiply pipes (f / f: a 1.0 the compiler cannot fold back into an add)
    one = f / f
    mone = -one
    for i0b in range(0, full, _L * _B):
        i1b = min(full, i0b + _L * _B)
        for i0 in range(i0b, i1b, _L):
            xb = xr[i0 : i0 + _L]
            if kr is not None:
                kb = kr[i0 : i0 + _L]
            # spelled out per kmax (no call, no branch inside): LLVM vectorises the map
            if kmax == 2:
                for j in range(_L):
                    v = xb[j]
                    if kr is None:  # pruned at compile time: NaNs left out
                        t = v == v
                    else:
                        t = kb[j]
                    w = v if t else c
                    nl[j] += 1.0 if t else 0.0
                    d = _fma(c, mone, w)
                    z = _fma(w, mone, d)
                    dl = ((w - (d - z)) + (-c - z)) * f
                    d = d * f
                    mxl[j] = max(mxl[j], abs(d))
                    a = b0s[j]
                    s = _fma(a, one, d)
                    z = s - a
                    b0s[j] = s
                    b0c[j] = _fma(b0c[j], one, ((a - (s - z)) + _fma(z, mone, d)) + dl)
                    p = d * d
                    q = _fma(d, d, -p) + 2.0 * d * dl
                    a = b1s[j]
                    s = _fma(a, one, p)
                    z = s - a
                    b1s[j] = s
                    b1c[j] = _fma(b1c[j], one, ((a - (s - z)) + _fma(z, mone, p)) + q)
            elif kmax == 3:
                for j in range(_L):
                    v = xb[j]
                    if kr is None:  # pruned at compile time: NaNs left out
                        t = v == v
                    else:
                        t = kb[j]
                    w = v if t else c
                    nl[j] += 1.0 if t else 0.0
                    d = _fma(c, mone, w)
                    z = _fma(w, mone, d)
                    dl = ((w - (d - z)) + (-c - z)) * f
                    d = d * f
                    mxl[j] = max(mxl[j], abs(d))
                    a = b0s[j]
                    s = _fma(a, one, d)
                    z = s - a
                    b0s[j] = s
                    b0c[j] = _fma(b0c[j], one, ((a - (s - z)) + _fma(z, mone, d)) + dl)
                    p = d * d
                    q = _fma(d, d, -p) + 2.0 * d * dl
                    a = b1s[j]
                    s = _fma(a, one, p)
                    z = s - a
                    b1s[j] = s
                    b1c[j] = _fma(b1c[j], one, ((a - (s - z)) + _fma(z, mone, p)) + q)
                    m3 = p * d
                    t3 = _fma(p, d, -m3) + (p * dl + q * d)
                    a = b2s[j]
                    s = _fma(a, one, m3)
                    z = s - a
                    b2s[j] = s
                    b2c[j] = _fma(b2c[j], one, ((a - (s - z)) + _fma(z, mone, m3)) + t3)
            else:
                for j in range(_L):
                    v = xb[j]
                    if kr is None:  # pruned at compile time: NaNs left out
                        t = v == v
                    else:
                        t = kb[j]
                    w = v if t else c
                    nl[j] += 1.0 if t else 0.0
                    d = _fma(c, mone, w)
                    z = _fma(w, mone, d)
                    dl = ((w - (d - z)) + (-c - z)) * f
                    d = d * f
                    mxl[j] = max(mxl[j], abs(d))
                    a = b0s[j]
                    s = _fma(a, one, d)
                    z = s - a
                    b0s[j] = s
                    b0c[j] = _fma(b0c[j], one, ((a - (s - z)) + _fma(z, mone, d)) + dl)
                    p = d * d
                    q = _fma(d, d, -p) + 2.0 * d * dl
                    a = b1s[j]
                    s = _fma(a, one, p)
                    z = s - a
                    b1s[j] = s
                    b1c[j] = _fma(b1c[j], one, ((a - (s - z)) + _fma(z, mone, p)) + q)
                    m3 = p * d
                    t3 = _fma(p, d, -m3) + (p * dl + q * d)
                    a = b2s[j]
                    s = _fma(a, one, m3)
                    z = s - a
                    b2s[j] = s
                    b2c[j] = _fma(b2c[j], one, ((a - (s - z)) + _fma(z, mone, m3)) + t3)
                    m4 = p * p
                    t4 = _fma(p, p, -m4) + 2.0 * p * q
                    a = b3s[j]
                    s = _fma(a, one, m4)
                    z = s - a
                    b3s[j] = s
                    b3c[j] = _fma(b3c[j], one, ((a - (s - z)) + _fma(z, mone, m4)) + t4)
        _fold_lanes(bs, bc, hh, hl, kmax)
        nb += _L
    for i in range(full, n):  # the tail: one more term for some lanes
        v = xr[i]
        if kr is None:
            if v != v:
                continue
        elif not kr[i]:
            continue
        j = i - full
        nl[j] += 1.0
        d, dl, p, q, m3, t3, m4, t4 = _tail_term(v, c, f)
        mxl[j] = max(mxl[j], abs(d))
        _add(bs, bc, 0, j, d, dl)
        _add(bs, bc, 1, j, p, q)
        if kmax > 2:
            _add(bs, bc, 2, j, m3, t3)
        if kmax > 3:
            _add(bs, bc, 3, j, m4, t4)
    _fold_lanes(bs, bc, hh, hl, kmax)
    return nb + _L


def _cell(xr: Any, kr: Any, kmax: Any, stat: Any, bias: Any, fisher: Any, ddof: Any,
          ws: Any) -> Any:  # pragma: no cover - compiled
    """``(value, ok)`` of one row or segment ``xr`` (``kr``: the values taken); ``ws``:
    the work arrays of :func:`_work`."""
    bs, bc, hh, hl, st, sh, sl, bnd, fac = ws
    st[2, 0] = -1.0  # the count of values taken (-1: not counted)
    c, f, ex, usable = _sample(xr, kr)
    if not usable:
        return math.nan, False
    nb = _pass(xr, kr, kmax, c, f, bs, bc, hh, hl, st)
    mx = 0.0
    cnt = 0.0
    for j in range(_L):
        mx = max(mx, st[0, j])
        cnt += st[1, j]
    st[2, 0] = cnt
    finite = True
    for k in range(4):
        if k >= kmax:  # never summed: the zeros the lane reduction would give
            sh[k] = 0.0
            sl[k] = 0.0
            continue
        h = hh[k, 0]
        lo = hl[k, 0]
        for j in range(1, _L):
            h, lo = _dd_add(h, lo, hh[k, j], hl[k, j])
        sh[k] = h
        sl[k] = lo
        finite = finite and abs(h) < math.inf and abs(lo) < math.inf
    mx = mx * (1.0 + 2.0**-50)
    # constant data (left to the two-pass kernel, which sees the extremes) have
    # mx near 0 or an M2 interval holding 0: not certified here
    if not finite or not (mx < 1.0 and mx >= _MX_LO):
        return math.nan, False
    return _finish(
        stat,
        np.int64(cnt),
        sh,
        sl,
        mx,
        np.float64(nb + 2 * _L),
        bias,
        fisher,
        ddof,
        ex,
        bnd,
        fac,
    )


def _work() -> Any:  # pragma: no cover - compiled
    """The work arrays of :func:`_cell` (lanes, lane totals, per-lane state, sums)."""
    return (
        np.zeros((4, _L)),
        np.zeros((4, _L)),
        np.zeros((4, _L)),
        np.zeros((4, _L)),
        np.zeros((4, _L)),
        np.zeros(4),
        np.zeros(4),
        np.zeros(4),
        np.zeros(3),
    )


def fused_rows(x: np.ndarray, keep: np.ndarray, kmax: Any, stat: Any, bias: Any, fisher: Any,
               ddof: Any, out: np.ndarray, ok: np.ndarray) -> None:
    # pragma: no cover - compiled
    """Certified ``stat`` of each row of the C-order float64 ``(rows, n)`` ``x``
    (``keep`` of ``x``'s shape: False leaves a value out); ``ok[r]`` False: row ``r``
    is not settled here (the caller's two-pass kernel, then the exact engine)."""
    ws = _work()
    for r in range(x.shape[0]):
        out[r], ok[r] = _cell(x[r], keep[r], kmax, stat, bias, fisher, ddof, ws)


def fused_rows_nan(x: np.ndarray, kmax: Any, stat: Any, bias: Any, fisher: Any, ddof: Any,
                   out: np.ndarray, ok: np.ndarray, cnt: np.ndarray) -> None:
    # pragma: no cover - compiled
    """:func:`fused_rows` leaving out the NaNs of ``x`` (float32 or float64, read as
    they are; no mask), ``cnt[r]`` the values row ``r`` took (-1: not counted)."""
    ws = _work()
    for r in range(x.shape[0]):
        out[r], ok[r] = _cell(x[r], None, kmax, stat, bias, fisher, ddof, ws)
        cnt[r] = np.int64(ws[4][2, 0])


def signaling(u: np.ndarray, mag: Any, inf: Any, quiet: Any) -> Any:  # pragma: no cover - compiled
    """Any signaling NaN among the floats whose bits are ``u`` (uint64 or uint32)?
    ``mag``: every bit but the sign, ``inf``: the bits of +infinity, ``quiet``: the
    quiet bit, all of ``u``'s type (passed in: numba widens ``~`` of a uint32)."""
    zero = quiet ^ quiet
    acc = zero
    for i in range(u.shape[0]):  # branch-free: a select and an or, vectorised
        b = u[i] & mag
        acc |= (quiet & ~b) if b > inf else zero  # a NaN's quiet bit clear: signaling
    return acc != 0


def _placed(starts: np.ndarray, ncells: Any) -> Any:  # pragma: no cover - compiled
    """The counting sort's middle step: cell counts in ``starts[1:]`` become offsets
    (in place); ``(pos, sv)``: each cell's next free slot and the float64 values."""
    for g in range(ncells):
        starts[g + 1] += starts[g]
    return starts[:ncells].copy(), np.empty(starts[ncells], np.float64)


def bucket(vals: np.ndarray, gid: np.ndarray, ncells: Any) -> Any:  # pragma: no cover - compiled
    """``(values, starts)``: the values of ``vals`` (float32 or float64, read as they
    are) grouped by cell (``gid`` in ``[0, ncells)``; -1: left out) by a counting
    sort into float64, cell ``g`` at ``values[starts[g]:starts[g + 1]]``."""
    starts = np.zeros(ncells + 1, np.int64)
    for i in range(gid.shape[0]):
        g = gid[i]
        if g >= 0:
            starts[g + 1] += 1
    pos, sv = _placed(starts, ncells)
    for i in range(gid.shape[0]):
        g = gid[i]
        if g >= 0:
            sv[pos[g]] = vals[i]
            pos[g] += 1
    return sv, starts


def bucket_nan(vals: np.ndarray, u: np.ndarray, mag: Any, inf: Any, quiet: Any,
               gid: np.ndarray, ncells: Any) -> Any:  # pragma: no cover - compiled
    """:func:`bucket` leaving the NaNs out too: ``(values, starts, NaNs left out,
    any of them signaling)`` (``u``: ``vals``' bits, ``mag``, ``inf`` and ``quiet`` as for
    :func:`signaling`); values of cell -1 are not looked at."""
    starts = np.zeros(ncells + 1, np.int64)
    nnan = 0
    acc = quiet ^ quiet
    for i in range(gid.shape[0]):
        g = gid[i]
        if g >= 0:
            if vals[i] == vals[i]:
                starts[g + 1] += 1
            else:
                nnan += 1
                b = u[i] & mag
                if b > inf:
                    acc |= quiet & ~b
    pos, sv = _placed(starts, ncells)
    for i in range(gid.shape[0]):
        g = gid[i]
        v = vals[i]
        if g >= 0 and v == v:
            sv[pos[g]] = v
            pos[g] += 1
    return sv, starts, nnan, acc != 0


def fused_segments(sv: np.ndarray, starts: np.ndarray, kmax: Any, stat: Any, bias: Any, fisher: Any,
                   ddof: Any, out: np.ndarray, ok: np.ndarray) -> None:
    # pragma: no cover - compiled
    """Certified ``stat`` of each segment ``sv[starts[g]:starts[g + 1]]`` (every value
    taken), as :func:`fused_rows` gives a row's."""
    ws = _work()
    for g in range(starts.shape[0] - 1):
        i0 = starts[g]
        i1 = starts[g + 1]
        val, done, good = trivial(stat, i1 - i0, False, bias, ddof)
        if done:
            out[g] = val
            ok[g] = good
            continue
        out[g], ok[g] = _cell(sv[i0:i1], None, kmax, stat, bias, fisher, ddof, ws)


def _dd_add(ah: Any, al: Any, bh: Any, bl: Any) -> Any:  # pragma: no cover - compiled
    """Accurate DW+DW (its error is counted as a fold by the caller's bound)."""
    s, t = _two_sum(ah, bh)
    u, v = _two_sum(al, bl)
    t += u
    h = s + t
    t = t - (h - s)
    t += v
    s = h + t
    return s, t - (s - h)


def _finish(stat: Any, n: Any, sh: np.ndarray, sl: Any, mx: Any, nb: Any, bias: Any, fisher: Any,
            ddof: Any, ex: Any, bnd: np.ndarray, fac: Any) -> Any:
    # pragma: no cover - compiled
    """``(value, ok)`` of one non-constant row from its central sums, as
    :mod:`.central_moments` finishes a cell (the same bound, the same certification)."""
    out, done, good = trivial(stat, n, False, bias, ddof)
    if done:
        return out, good
    fn = np.float64(n)
    rel = 2.0**-85 + nb * 2.0**-98
    ab = fn * 2.0**-998
    a2 = (abs(sh[1]) + ab) * (1.0 + 2.0**-50)
    a4 = (abs(sh[3]) + ab) * (1.0 + 2.0**-50)
    bnd[0] = math.sqrt(fn * a2) * (1.0 + 2.0**-50) * rel + ab
    bnd[1] = a2 * rel + ab
    bnd[2] = mx * (1.0 + 2.0**-50) * a2 * rel + ab
    bnd[3] = a4 * rel + ab
    skew_factor(n, bias, fac)
    return finish_bounded(stat, n, sh, sl, bnd, bias, fisher, ddof, ex, fac)


_HELPERS = (
    "_cell",
    "_work",
    "_sample",
    "_tail_term",
    "_add",
    "_two_sum",
    "_fold_lanes",
    "_pass",
    "_dd_add",
    "_finish",
    "_placed",
)
_SHARED = ("trivial", "skew_factor", "finish_bounded")


def build() -> dict[str, Any]:
    """Compile the kernel (the finishing helpers compiled by :mod:`.central_moments`)."""
    from . import central_moments, kernels
    from .window_sums import fma_intrinsic

    kernels("central_moments")  # binds its compiled helpers in its globals
    ns = vars(central_moments)
    globals()["_fma"] = fma_intrinsic()
    bind(globals(), _SHARED, {name: ns[name] for name in _SHARED})
    bind(globals(), _HELPERS)
    return {
        "rows": jit(nogil=True)(fused_rows),
        "rows_nan": jit(nogil=True)(fused_rows_nan),
        "signaling": jit(nogil=True)(signaling),
        "segments": jit(nogil=True)(fused_segments),
        "bucket": jit(nogil=True)(bucket),
        "bucket_nan": jit(nogil=True)(bucket_nan),
    }


register("central_fused", build)
