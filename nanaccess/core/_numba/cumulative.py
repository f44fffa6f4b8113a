"""Compiled exact prefix sums: the fast path of :mod:`nanaccess.core.cumulative.prefix`.

Per segment the running sum is carried *exactly* as a triple-double ``hi + lo + lo2``
(TwoSum of the running ``hi`` and the value, TwoSum of its error into ``lo``, TwoSum
of that error into ``lo2``); the segment is flagged for the reference engine the
moment the third TwoSum leaves an error (the carried sum would stop being exact) or a
value overflows. Each prefix is then rounded once from the exact triple: ``a + b =
hi + lo`` (TwoSum), ``c + d = b + lo2``, ``r + e = a + c``; ``r`` is the correctly
rounded sum unless ``a + c`` lies exactly half-way between ``r`` and its neighbour
on ``e``'s side, where the sign of the remainder ``d`` decides (``d = 0``: the tie,
which ``r`` already breaks to even). ``e`` and the half-way distance are multiples of
``ulp(c)`` and ``|d| <= ulp(c) / 2``, so no other case can cross a rounding boundary.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import bind, jit, register

__all__ = ["build"]


def _two_sum(a: Any, b: Any) -> Any:  # pragma: no cover - compiled
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _round3(hi: Any, lo: Any, lo2: Any) -> Any:  # pragma: no cover - compiled
    """``hi + lo + lo2`` (exact reals) rounded once to the nearest double, ties even."""
    a, b = _two_sum(hi, lo)
    c, d = _two_sum(b, lo2)
    r, e = _two_sum(a, c)
    if d != 0.0 and e != 0.0:
        nb = np.nextafter(r, np.inf if e > 0 else -np.inf)
        if e == (nb - r) * 0.5 and (d > 0) == (e > 0):
            return nb
    return r


def prefix_kernel(v: np.ndarray, starts: np.ndarray, out: np.ndarray, bad: np.ndarray, skipnan: Any,
                  bits: np.ndarray, quiet: Any, sig: np.ndarray) -> None:  # pragma: no cover
    """``out``: the correctly rounded prefix sums of each segment; ``bad[s] = 1`` when
    the segment's carried sum stopped being exact (the caller's reference sums it).
    ``skipnan``: a NaN is skipped and keeps its place (bits as stored); one without the
    ``quiet`` bit in ``bits`` (``v`` viewed as ints) sets ``sig[0]`` (signaling: the
    caller raises). A zero prefix is -0.0 only when every value so far is -0.0 (IEEE
    addition)."""
    for s in range(starts.size - 1):
        hi = 0.0
        lo = 0.0
        lo2 = 0.0
        negz = True
        for i in range(starts[s], starts[s + 1]):
            x = v[i]
            if skipnan and x != x:
                if bits[i] & quiet == 0:
                    sig[0] = 1
                out[i] = x
                continue
            hi, e1 = _two_sum(hi, x)
            lo, e2 = _two_sum(lo, e1)
            lo2, e3 = _two_sum(lo2, e2)
            if e3 != 0.0 or not np.isfinite(hi):
                bad[s] = 1
                break
            negz = negz and x == 0.0 and math.copysign(1.0, x) < 0.0
            r = _round3(hi, lo, lo2)
            out[i] = -0.0 if (negz and r == 0.0) else r


def extreme_kernel(v: np.ndarray, starts: np.ndarray, out: np.ndarray, want_max: Any,
                   bits: np.ndarray, quiet: Any, sig: np.ndarray) -> None:  # pragma: no cover
    """Running maximum (``want_max``) or minimum of each segment skipping NaNs, which
    keep their place (bits as stored; a signaling one sets ``sig[0]``, as
    :func:`prefix_kernel`); zeros ordered as totalOrder (``-0.0 < +0.0``).
    One pass, the same comparison for both: a minimum is a maximum of negated keys."""
    sgn = 1.0 if want_max else -1.0
    for s in range(starts.size - 1):
        started = False
        m = v[0] if v.size else 0.0
        for i in range(starts[s], starts[s + 1]):
            x = v[i]
            if x != x:
                if bits[i] & quiet == 0:
                    sig[0] = 1
                out[i] = x
                continue
            if not started:
                m = x
                started = True
            else:
                a = sgn * x  # negation is exact
                b = sgn * m
                if a > b or (a == 0.0 and b == 0.0
                             and math.copysign(1.0, a) > math.copysign(1.0, b)):
                    m = x
            out[i] = m


def grouped_prefix_kernel(v: np.ndarray, codes: np.ndarray, ngroups: Any, out: np.ndarray,
                          bad: np.ndarray, bits: np.ndarray, quiet: Any,
                          sig: np.ndarray) -> None:  # pragma: no cover - compiled
    """:func:`prefix_kernel` (skipping NaNs) within groups, in one pass over the rows in
    their order: a triple-double per group (``codes`` -1: NaN out). ``bad[g] = 1``: the
    group's carried sum stopped being exact (the caller's reference sums it); a
    signaling NaN in a group sets ``sig[0]``."""
    st = np.zeros((max(ngroups, 1), 4))  # hi, lo, lo2, all -0.0 so far: one cache line
    st[:, 3] = 1.0
    for i in range(v.size):
        g = codes[i]
        x = v[i]
        if g < 0:
            out[i] = np.nan
            continue
        if x != x:
            if bits[i] & quiet == 0:
                sig[0] = 1
            out[i] = x
            continue
        if bad[g]:
            continue
        h, e1 = _two_sum(st[g, 0], x)
        c, e2 = _two_sum(st[g, 1], e1)
        c2, e3 = _two_sum(st[g, 2], e2)
        if e3 != 0.0 or not np.isfinite(h):
            bad[g] = 1
            continue
        st[g, 0] = h
        st[g, 1] = c
        st[g, 2] = c2
        nz = st[g, 3] != 0.0 and x == 0.0 and math.copysign(1.0, x) < 0.0
        st[g, 3] = 1.0 if nz else 0.0
        r = _round3(h, c, c2)
        out[i] = -0.0 if (nz and r == 0.0) else r


def grouped_extreme_kernel(v: np.ndarray, codes: np.ndarray, ngroups: Any, out: np.ndarray,
                           want_max: Any, bits: np.ndarray, quiet: Any,
                           sig: np.ndarray) -> None:  # pragma: no cover
    """:func:`extreme_kernel` within groups, in one pass over the rows in their order
    (a signaling NaN in a group sets ``sig[0]``)."""
    sgn = 1.0 if want_max else -1.0
    m = np.zeros(ngroups, v.dtype)
    started = np.zeros(ngroups, np.bool_)
    for i in range(v.size):
        g = codes[i]
        x = v[i]
        if g < 0:
            out[i] = np.nan
            continue
        if x != x:
            if bits[i] & quiet == 0:
                sig[0] = 1
            out[i] = x
            continue
        if not started[g]:
            started[g] = True
            m[g] = x
        else:
            a = sgn * x
            b = sgn * m[g]
            if a > b or (a == 0.0 and b == 0.0
                         and math.copysign(1.0, a) > math.copysign(1.0, b)):
                m[g] = x
        out[i] = m[g]


_HELPERS = ("_two_sum", "_round3")


def build() -> dict[str, Any]:
    """Compile the kernel."""
    bind(globals(), _HELPERS)
    return {"prefix": jit(nogil=True)(prefix_kernel),
            "extreme": jit(nogil=True)(extreme_kernel),
            "grouped_prefix": jit(nogil=True)(grouped_prefix_kernel),
            "grouped_extreme": jit(nogil=True)(grouped_extreme_kernel)}


register("cumulative", build)
