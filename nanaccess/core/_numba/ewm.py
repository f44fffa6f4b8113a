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

__all__ = ["build", "ewm_kernel"]

_SPLIT = 134217729.0


def _two_sum(a, b):  # pragma: no cover - compiled
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _two_prod(a, b):  # pragma: no cover - compiled
    p = a * b
    c = _SPLIT * a
    ah = c - (c - a)
    al = a - ah
    c = _SPLIT * b
    bh = c - (c - b)
    bl = b - bh
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _dd_add(ah, al, bh, bl):  # pragma: no cover - compiled
    s, e = _two_sum(ah, bh)
    e += al + bl
    return _two_sum(s, e)


def _dd_mul(ah, al, bh, bl):  # pragma: no cover - compiled
    p, e = _two_prod(ah, bh)
    e += ah * bl + al * bh
    return _two_sum(p, e)


def _dd_div(ah, al, bh, bl):  # pragma: no cover - compiled
    q = ah / bh
    ph, pl = _dd_mul(q, 0.0, bh, bl)
    rh, rl = _dd_add(ah, al, -ph, -pl)
    q2 = rh / bh
    return _two_sum(q, q2)


def ewm_kernel(v, starts, fh, fl, deltas, use_deltas, adjust, nanmode, minp, want_var,
               bias, out):  # pragma: no cover - compiled
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
            out[i0] = ((0.0 if bias else np.nan) if want_var else mh)
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


_HELPERS = ("_two_sum", "_two_prod", "_dd_add", "_dd_mul", "_dd_div")


def build() -> dict[str, Any]:
    """Compile the kernel."""
    bind(globals(), _HELPERS)
    return {"ewm": jit(nogil=True)(ewm_kernel)}


register("ewm", build)
