"""Exponentially weighted mean and variance, carried in double-double arithmetic.

The recurrences are pandas' own (``pandas/_libs/window/aggregations.pyx``: ``ewm`` and
``ewmcov``, the same ``adjust``, ``ignore_na``, ``min_periods`` and time-decay rules),
with every state variable (the running mean, the weights, the co-moment) held as an
unevaluated sum of two doubles and updated with error-free TwoSum / TwoProduct steps.
Each step then adds a relative error near ``2**-104`` to a convex combination, so the
old errors shrink instead of piling up: long series keep to the exact weighted mean
(of the doubles ``1 - alpha`` and the data) within an ulp, and constant data give the
constant back at every step. The decay factor is passed as a double-double too
(``1 - alpha`` exactly).

Plain Python over arrays (the NumPy engine runs it uncompiled; numba compiles it).
``nanmode``: 0 skips NaNs (pandas ``ignore_na=True``), 1 decays across them (pandas'
default), 2 carries the NaN from the first one on (``"propagate"``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import bind, jit, register

__all__ = ["build", "ewm_kernel", "ewm_mean_kernel", "ewm_var_kernel"]

_SPLIT = 134217729.0
_QUIET = 1 << 51  # the quiet bit of a float64 NaN


def _two_sum(a: Any, b: Any) -> Any:  # pragma: no cover - compiled
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _two_prod(a: Any, b: Any) -> Any:  # pragma: no cover - compiled
    p = a * b
    c = _SPLIT * a
    ah = c - (c - a)
    al = a - ah
    c = _SPLIT * b
    bh = c - (c - b)
    bl = b - bh
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _dd_add(ah: Any, al: Any, bh: Any, bl: Any) -> Any:  # pragma: no cover - compiled
    s, e = _two_sum(ah, bh)
    e += al + bl
    return _two_sum(s, e)


def _dd_mul(ah: Any, al: Any, bh: Any, bl: Any) -> Any:  # pragma: no cover - compiled
    p, e = _two_prod(ah, bh)
    e += ah * bl + al * bh
    return _two_sum(p, e)


def _dd_div(ah: Any, al: Any, bh: Any, bl: Any) -> Any:  # pragma: no cover - compiled
    q = ah / bh
    ph, pl = _dd_mul(q, 0.0, bh, bl)
    rh, rl = _dd_add(ah, al, -ph, -pl)
    q2 = rh / bh
    return _two_sum(q, q2)


def ewm_kernel(
    v: np.ndarray, starts: np.ndarray, fh: Any, fl: Any, deltas: np.ndarray, use_deltas: Any,
    adjust: Any, nanmode: Any, minp: Any, want_var: Any, bias: Any, out: np.ndarray
) -> None:  # pragma: no cover - compiled
    """Per segment ``[starts[s], starts[s+1])`` of ``v``: the exponentially weighted
    mean (``want_var`` False) or variance into ``out``. ``fh + fl``: the decay factor
    ``1 - alpha`` (double-double); ``deltas``: time steps in half-lives (with
    ``use_deltas``: the factor is then ``0.5 ** delta`` as pandas computes it)."""
    for s in range(starts.size - 1):
        i0 = starts[s]
        i1 = starts[s + 1]
        if i1 <= i0:
            continue
        new_h, new_l = 1.0, 0.0
        if not adjust:  # alpha = 1 - factor, exactly (a double-double)
            new_h, new_l = _dd_add(1.0, 0.0, -fh, -fl)
        poison = np.nan
        x0 = v[i0]
        obs = x0 == x0
        nobs = 1 if obs else 0
        poisoned = (not obs) and nanmode == 2
        mh = x0 if obs else np.nan
        ml = 0.0
        ch, cl = 0.0, 0.0  # the co-moment (variance)
        swh, swl = 1.0, 0.0
        sw2h, sw2l = 1.0, 0.0
        owh, owl = 1.0, 0.0
        if poisoned:
            poison = x0
            out[i0] = x0
        elif nobs >= minp and nobs > 0:
            out[i0] = (0.0 if bias else np.nan) if want_var else mh
        else:
            out[i0] = np.nan
        for i in range(i0 + 1, i1):
            cur = v[i]
            obs = cur == cur
            if poisoned:
                out[i] = poison
                continue
            if not obs and nanmode == 2:
                poisoned = True
                poison = cur
                out[i] = cur
                continue
            if obs:
                nobs += 1
            if mh == mh:
                if obs or nanmode == 1:
                    if use_deltas:
                        dh, dl = math.pow(0.5, deltas[i - 1]), 0.0
                    else:
                        dh, dl = fh, fl
                    if want_var:  # the weight sums of the bias correction
                        swh, swl = _dd_mul(swh, swl, dh, dl)
                        d2h, d2l = _dd_mul(dh, dl, dh, dl)
                        sw2h, sw2l = _dd_mul(sw2h, sw2l, d2h, d2l)
                    owh, owl = _dd_mul(owh, owl, dh, dl)
                    if obs:
                        omh, oml = mh, ml
                        th, tl = _dd_add(owh, owl, new_h, new_l)
                        if mh != cur or ml != 0.0:  # equal: the exact mean stays
                            ah, al = _dd_mul(owh, owl, mh, ml)
                            bh, bl = _dd_mul(new_h, new_l, cur, 0.0)
                            ah, al = _dd_add(ah, al, bh, bl)
                            mh, ml = _dd_div(ah, al, th, tl)
                        if want_var:
                            # cov = (ow (cov + (om - m)**2) + nw (cur - m)**2) / (ow + nw)
                            dmh, dml = _dd_add(omh, oml, -mh, -ml)
                            sqh, sql = _dd_mul(dmh, dml, dmh, dml)
                            sqh, sql = _dd_add(ch, cl, sqh, sql)
                            ah, al = _dd_mul(owh, owl, sqh, sql)
                            dch, dcl = _dd_add(cur, 0.0, -mh, -ml)
                            sqh, sql = _dd_mul(dch, dcl, dch, dcl)
                            bh, bl = _dd_mul(new_h, new_l, sqh, sql)
                            ah, al = _dd_add(ah, al, bh, bl)
                            ch, cl = _dd_div(ah, al, th, tl)
                        if want_var:
                            swh, swl = _dd_add(swh, swl, new_h, new_l)
                            n2h, n2l = _dd_mul(new_h, new_l, new_h, new_l)
                            sw2h, sw2l = _dd_add(sw2h, sw2l, n2h, n2l)
                        owh, owl = th, tl  # old_wt + new_wt
                        if not adjust:
                            if want_var:
                                swh, swl = _dd_div(swh, swl, owh, owl)
                                o2h, o2l = _dd_mul(owh, owl, owh, owl)
                                sw2h, sw2l = _dd_div(sw2h, sw2l, o2h, o2l)
                            owh, owl = 1.0, 0.0
            elif obs:
                mh, ml = cur, 0.0
            if nobs >= minp and nobs > 0:
                if not want_var:
                    out[i] = mh + ml
                elif bias:
                    out[i] = ch + cl
                else:
                    nh, nl = _dd_mul(swh, swl, swh, swl)
                    dh2, dl2 = _dd_add(nh, nl, -sw2h, -sw2l)
                    if dh2 > 0:
                        rh, rl = _dd_div(nh, nl, dh2, dl2)
                        rh, rl = _dd_mul(rh, rl, ch, cl)
                        out[i] = rh + rl
                    else:
                        out[i] = np.nan
            else:
                out[i] = np.nan


def _fast_two_sum(a: Any, b: Any) -> Any:  # pragma: no cover - compiled
    s = a + b
    return s, b - (s - a)


def _fma(a: Any, b: Any, c: Any) -> Any:  # pragma: no cover - replaced when compiled
    """a * b + c rounded once (LLVM's ``fma`` once compiled)."""
    from fractions import Fraction

    return float(Fraction(a) * Fraction(b) + Fraction(c))


def _prod_err(a: Any, b: Any, p: Any) -> Any:  # pragma: no cover - compiled
    """The exact error ``a*b - p`` of ``p = fl(a*b)`` (Dekker's; one fma once
    compiled: :func:`build` rebinds it to :func:`_prod_err_fma`, same bits)."""
    return _two_prod(a, b)[1]


def _prod_err_fma(a: Any, b: Any, p: Any) -> Any:  # pragma: no cover - compiled
    return _fma(a, b, -p)


def _axpy(fh: Any, fl: Any, sh: Any, sl: Any, xh: Any,
          xl: Any) -> Any:  # pragma: no cover - compiled
    """``f s + x`` of double-doubles: the one step of every weighted sum (a relative
    error near ``2**-104`` of ``|f s| + |x|``; no division on the carried chain)."""
    p = fh * sh
    e = _prod_err(fh, sh, p) + (fh * sl + fl * sh)
    t, e2 = _two_sum(p, xh)
    return _fast_two_sum(t, e2 + (e + xl))


def _axpy_lazy(fh: Any, fl: Any, sh: Any, sl: Any, xh: Any,
               xl: Any) -> Any:  # pragma: no cover - compiled
    """:func:`_axpy` with a short carried chain: the high part is the float recurrence
    ``fl(fl(f s) + x)`` (one product, one sum), every rounding error of it (exact:
    TwoProduct, TwoSum) goes into the low part, which is left unnormalised while it
    stays below ``2**-40`` of the high part (then one TwoSum renormalises). Each step
    adds a relative error near ``2**-93`` that the decay ``f`` shrinks: the pair keeps
    the exact weighted sum to ``2**-93 / alpha`` (within an ulp for ``alpha >=
    2**-38``)."""
    p = fh * sh
    t, te = _two_sum(p, xh)
    lo = fh * sl + ((_prod_err(fh, sh, p) + te) + (fl * sh + xl))
    if abs(lo) > 9.094947017729282e-13 * abs(t):  # 2**-40
        return _two_sum(t, lo)
    return t, lo


def _mul2(ah: Any, al: Any, bh: Any, bl: Any) -> Any:  # pragma: no cover - compiled
    p = ah * bh
    return _fast_two_sum(p, _prod_err(ah, bh, p) + (ah * bl + al * bh))


def _ab_minus_cc(ah: Any, al: Any, bh: Any, bl: Any, ch: Any,
                 cl: Any) -> Any:  # pragma: no cover - compiled
    """``a b - c**2`` of double-doubles, as a double-double (exact products, one
    TwoSum for the cancellation)."""
    p = ah * bh
    q = ch * ch
    n, e = _two_sum(p, -q)
    e += (_prod_err(ah, bh, p) - _prod_err(ch, ch, q)) + ((ah * bl + al * bh) - 2.0 * ch * cl)
    return _fast_two_sum(n, e)


def _quot(nh: Any, nl: Any, dh: Any, dl: Any) -> Any:  # pragma: no cover - compiled
    """``(nh + nl) / (dh + dl)`` rounded to a double, within an ulp of the exact
    quotient (and the quotient itself when it is a double)."""
    q = nh / dh
    p = q * dh
    r = ((nh - p) - _prod_err(q, dh, p)) + (nl - q * dl)
    return q + r / dh


def _recip(dh: Any, dl: Any) -> Any:  # pragma: no cover - compiled
    """``1 / (dh + dl)`` as a double-double (a relative error near ``2**-104``)."""
    q = 1.0 / dh
    p = q * dh
    r = ((1.0 - p) - _prod_err(q, dh, p)) - q * dl
    return _fast_two_sum(q, r / dh)


def _alpha_weights(fh: Any, fl: Any, adjust: Any) -> Any:  # pragma: no cover - compiled
    """(the new value's weight, its square, f**2), double-doubles: 1 (adjust) or
    alpha = 1 - f exactly."""
    ah, al = _two_sum(1.0, -fh)
    ah, al = _fast_two_sum(ah, al - fl)
    if adjust:
        ah, al = 1.0, 0.0
    n2h, n2l = _mul2(ah, al, ah, al)
    f2h, f2l = _mul2(fh, fl, fh, fl)
    return ah, al, n2h, n2l, f2h, f2l


def ewm_mean_kernel(
    v: np.ndarray, starts: np.ndarray, fh: Any, fl: Any, adjust: Any, nanmode: Any, minp: Any,
    out: np.ndarray, state: np.ndarray, bits: np.ndarray
) -> None:  # pragma: no cover - compiled
    """The exponentially weighted mean as the quotient of two weighted sums, ``S = f S
    + w x`` and ``W = f W + w`` (double-doubles, one :func:`_axpy` each per value),
    for ``times=None`` and (with ``adjust=False``) ``nanmode`` 0 or 2: the same
    exact value as :func:`ewm_kernel`'s recurrence, at a fraction of its cost.
    ``state[s]`` (:data:`STATE`): segment ``s``'s state on entry (a chunk continuing
    the one before it), written back on exit. ``bits``: ``v`` viewed as int64; a
    signaling NaN sets ``state[s, 16]`` (the caller's scan then raises)."""
    nwh, nwl, _, _, _, _ = _alpha_weights(fh, fl, adjust)
    for s in range(starts.size - 1):
        st = state[s]
        sh, sl, wh, wl = st[0], st[1], st[2], st[3]
        nobs = int(st[4])
        last = st[5]
        if st[6] != 0.0:  # poisoned by an earlier chunk ("propagate")
            for j in range(starts[s], starts[s + 1]):
                out[j] = st[7]
            continue
        steady = st[8] != 0.0  # W stopped changing (in double-double): times 1/W
        rh, rl = st[9], st[10]
        for i in range(starts[s], starts[s + 1]):
            x = v[i]
            if x != x:
                if bits[i] & _QUIET == 0:  # a signaling NaN: the caller raises
                    st[16] = 1.0
                if nanmode == 2:
                    for j in range(i, starts[s + 1]):
                        out[j] = x
                    st[6] = 1.0
                    st[7] = x
                    break
                if nanmode == 1 and nobs > 0:  # the weights decay over the gap
                    steady = False
                    sh, sl = _mul2(sh, sl, fh, fl)
                    wh, wl = _mul2(wh, wl, fh, fl)
                    if wh < 1e-150:  # keep the sums in the normal range (exact scaling)
                        sh, sl, wh, wl = sh * 1e150, sl * 1e150, wh * 1e150, wl * 1e150
                out[i] = last
                continue
            if nobs == 0:
                sh, sl, wh, wl = x, 0.0, 1.0, 0.0
            elif adjust:
                sh, sl = _axpy_lazy(fh, fl, sh, sl, x, 0.0)
                if not steady:
                    ph, pl = wh, wl
                    wh, wl = _axpy(fh, fl, wh, wl, 1.0, 0.0)
                    if wh == ph and wl == pl:
                        steady = True
                        rh, rl = _recip(wh, wl)
            else:
                p = nwh * x
                th, tl = _fast_two_sum(p, _prod_err(nwh, x, p) + nwl * x)
                sh, sl = _axpy_lazy(fh, fl, sh, sl, th, tl)
            nobs += 1
            if nobs >= minp:
                if not adjust:
                    last = sh + sl
                elif steady:
                    mh, ml = _mul2(sh, sl, rh, rl)
                    last = mh + ml
                else:
                    last = _quot(sh, sl, wh, wl)
            out[i] = last
        st[0], st[1], st[2], st[3], st[4], st[5] = sh, sl, wh, wl, nobs, last
        st[8], st[9], st[10] = 1.0 if steady else 0.0, rh, rl


def ewm_var_kernel(
    v: np.ndarray, starts: np.ndarray, fh: Any, fl: Any, adjust: Any, nanmode: Any, minp: Any,
    bias: Any, out: np.ndarray, state: np.ndarray, want_std: Any, bits: np.ndarray
) -> None:  # pragma: no cover - compiled
    """The exponentially weighted variance from weighted sums of the deviations ``d``
    from a shift ``k`` (the first value): ``S = f S + w d``, ``Q = f Q + w d**2``,
    ``W = f W + w``, ``W2 = f**2 W2 + w**2``; the biased variance is ``(Q W - S**2) /
    W**2``, pandas' bias-corrected one ``(Q W - S**2) / (W**2 - W2)``. All double-
    doubles; when the running mean wanders far from ``k`` (the cancellation in ``Q W -
    S**2`` would pass ``2**40``) the sums are re-centred on it, so the result keeps
    about 60 bits beyond a double. Same domain and ``state`` as
    :func:`ewm_mean_kernel`; ``want_std``: the square root of each output."""
    nwh, nwl, n2h, n2l, f2h, f2l = _alpha_weights(fh, fl, adjust)
    for s in range(starts.size - 1):
        st = state[s]
        sh, sl, wh, wl = st[0], st[1], st[2], st[3]
        nobs = int(st[4])
        last = st[5]
        if st[6] != 0.0:  # poisoned by an earlier chunk ("propagate")
            for j in range(starts[s], starts[s + 1]):
                out[j] = st[7]
            continue
        steady = st[8] != 0.0  # W and W2 stopped changing: 1/den is kept
        rh, rl = st[9], st[10]
        k, qh, ql, w2h, w2l = st[11], st[12], st[13], st[14], st[15]
        for i in range(starts[s], starts[s + 1]):
            x = v[i]
            if x != x:
                if bits[i] & _QUIET == 0:  # a signaling NaN: the caller raises
                    st[16] = 1.0
                if nanmode == 2:
                    for j in range(i, starts[s + 1]):
                        out[j] = x
                    st[6] = 1.0
                    st[7] = x
                    break
                if nanmode == 1 and nobs > 0:
                    steady = False
                    sh, sl = _mul2(sh, sl, fh, fl)
                    qh, ql = _mul2(qh, ql, fh, fl)
                    wh, wl = _mul2(wh, wl, fh, fl)
                    w2h, w2l = _mul2(w2h, w2l, f2h, f2l)
                    if wh < 1e-150:
                        sh, sl, qh, ql = sh * 1e150, sl * 1e150, qh * 1e150, ql * 1e150
                        wh, wl, w2h, w2l = wh * 1e150, wl * 1e150, w2h * 1e300, w2l * 1e300
                out[i] = last
                continue
            if nobs == 0:
                k = x
                wh, wl, w2h, w2l = 1.0, 0.0, 1.0, 0.0
            else:
                dh, dl = _two_sum(x, -k)
                th, tl = _mul2(dh, dl, dh, dl)
                if not adjust:
                    dh, dl = _mul2(dh, dl, nwh, nwl)
                    th, tl = _mul2(th, tl, nwh, nwl)
                sh, sl = _axpy_lazy(fh, fl, sh, sl, dh, dl)
                qh, ql = _axpy_lazy(fh, fl, qh, ql, th, tl)
                if not steady:
                    ph, pl, p2h, p2l = wh, wl, w2h, w2l
                    wh, wl = _axpy(fh, fl, wh, wl, nwh, nwl)
                    w2h, w2l = _axpy(f2h, f2l, w2h, w2l, n2h, n2l)
                    steady = wh == ph and wl == pl and w2h == p2h and w2l == p2l
                    if steady:
                        if bias:
                            dh, dl = _mul2(wh, wl, wh, wl)
                        else:
                            dh, dl = _ab_minus_cc(w2h, w2l, 1.0, 0.0, wh, wl)
                            dh, dl = -dh, -dl
                        rh, rl = _recip(dh, dl)
            nobs += 1
            nh, nl = _ab_minus_cc(qh, ql, wh, wl, sh, sl)
            if sh * sh > 1099511627776.0 * nh:  # 2**40: re-centre on the mean
                mh = sh / wh
                if mh != 0.0 and k + mh != k:
                    k2 = k + mh
                    dh, dl = _two_sum(k2, -k)  # the shift, exactly
                    ph, pl = _mul2(dh, dl, wh, wl)
                    gh, gl = _mul2(dh, dl, sh, sl)  # not rh/rl: they hold 1/den
                    uh, ul = _mul2(dh, dl, ph, pl)
                    qh, ql = _dd_add(qh, ql, -2.0 * gh, -2.0 * gl)
                    qh, ql = _dd_add(qh, ql, uh, ul)
                    sh, sl = _dd_add(sh, sl, -ph, -pl)
                    k = k2
                    nh, nl = _ab_minus_cc(qh, ql, wh, wl, sh, sl)
            if nobs >= minp:
                if nh <= 0.0:
                    nh, nl = 0.0, 0.0  # the exact value is >= 0: a rounding below it
                if steady:
                    mh, ml = _mul2(nh, nl, rh, rl)
                    last = mh + ml
                else:
                    if bias:
                        dh, dl = _mul2(wh, wl, wh, wl)
                    else:
                        dh, dl = _ab_minus_cc(w2h, w2l, 1.0, 0.0, wh, wl)  # W2 - W**2
                        dh, dl = -dh, -dl
                    last = _quot(nh, nl, dh, dl) if dh > 0.0 else np.nan
                if want_std:  # the standard deviation: the root, rounded once more
                    last = math.sqrt(last) if last == last else last
            out[i] = last
        st[0], st[1], st[2], st[3], st[4], st[5] = sh, sl, wh, wl, nobs, last
        st[8], st[9], st[10] = 1.0 if steady else 0.0, rh, rl
        st[11], st[12], st[13], st[14], st[15] = k, qh, ql, w2h, w2l


#: the state of one segment of the fast kernels: S (2), W (2), count, last output,
#: poisoned, poison, steady, 1/den (2), shift, Q (2), W2 (2), a signaling NaN seen
STATE = 17


def fresh_state(segments: int) -> np.ndarray:
    """The state of segments that start at their beginning."""
    st = np.zeros((segments, STATE))
    st[:, 5] = np.nan
    st[:, 9] = 1.0
    return st


_HELPERS = (
    "_two_sum",
    "_two_prod",
    "_dd_add",
    "_dd_mul",
    "_dd_div",
    "_fast_two_sum",
    "_prod_err",
    "_axpy",
    "_axpy_lazy",
    "_mul2",
    "_ab_minus_cc",
    "_quot",
    "_recip",
    "_alpha_weights",
)


def build() -> dict[str, Any]:
    """Compile the kernel."""
    from .window_sums import fma_intrinsic

    globals()["_fma"] = fma_intrinsic()
    globals()["_prod_err"] = globals()["_prod_err_fma"]  # exact either way: same bits
    bind(globals(), _HELPERS)
    return {
        "ewm": jit(nogil=True)(ewm_kernel),
        "mean": jit(nogil=True)(ewm_mean_kernel),
        "var": jit(nogil=True)(ewm_var_kernel),
    }


register("ewm", build)
