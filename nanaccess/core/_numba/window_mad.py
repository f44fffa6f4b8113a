"""The sliding median absolute deviation: one sorted buffer of the window's values,
the center and the median of the deviations found by binary search.

A window's deviations ``|x - c|`` from its median ``c`` are two sorted runs of the
sorted buffer: ``c - x`` for the values below ``c`` (read from ``c`` outwards) and
``x - c`` for the others. Rounding is monotone, so both runs stay sorted as
computed, and the ``k``-th smallest deviation is a selection in two sorted arrays:
O(log w). A step of the window costs the buffer's O(log w) search plus a shift of
the keys between the two places (:mod:`.window_select`'s helpers), so a window
statistic is O(n log w) in all, where the reference engine is O(n w).

The arithmetic is :func:`nanaccess.core.spread.deviations` and
:func:`nanaccess.core.interp.midpoint` in the data's own float dtype (``two`` is a
2 of that dtype: float32 stays float32), so each output has the reference engine's
bits. Windows holding an infinity are flagged for the reference engine (their
deviations may be undefined: ``inf - inf``). Plain Python over arrays, compiled
through :mod:`nanaccess.core._numba`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import bind, jit, kernels, register
from .window_select import (  # noqa: F401  (bound as this module's globals)
    BUFFER_HELPERS,
    nb_advance,
    nb_insert,
    nb_lower,
    nb_remove,
    nb_replace,
)

__all__ = ["slide_mad"]


def _nb_half(v: Any, half: Any, sc: np.ndarray) -> Any:  # pragma: no cover - compiled
    """``v`` (float64) rounded to the nearest float16 (ties to even, past 65520:
    inf), as float64, where ``half``; else ``v`` as is. float16 sums, differences and
    halvings are exact in float64, so one such rounding after each is float16's own
    correctly rounded arithmetic. ``sc``: a 1-element scratch of the data's dtype (the
    result's type: float32 stays float32)."""
    if not half or v != v or v == 0 or np.isinf(v):
        return v
    a = abs(v)
    if a >= 65520.0:
        sc[0] = math.copysign(np.inf, v)
    else:
        q = max(math.frexp(a)[1] - 11, -24)  # the float16 unit of a's binade
        sc[0] = math.copysign(np.rint(math.ldexp(a, -q)) * math.ldexp(1.0, q), v)
    return sc[0]


def nb_mid(a: Any, b: Any, two: Any, half: Any, sc: Any) -> Any:  # pragma: no cover - compiled
    """``(a + b) / 2``, or ``a / 2 + b / 2`` where ``a + b`` overflows (``midpoint``),
    each operation rounded as the data's dtype rounds it (``half``: float16)."""
    s = _nb_half(a + b, half, sc)
    if np.isinf(s) and np.isfinite(a) and np.isfinite(b):
        return _nb_half(_nb_half(a / two, half, sc) + _nb_half(b / two, half, sc), half,
                        sc)
    return _nb_half(s / two, half, sc)


def _nb_dev(buf: np.ndarray, m: Any, p: Any, c: Any, j: Any) -> Any:  # pragma: no cover - compiled
    """The ``j``-th of the below-center run (``j < p``) or the ``(j - p)``-th of the
    other run of deviations, as ``abs(x - c)`` rounds them."""
    if j < p:
        return abs(buf[p - 1 - j] - c)
    return abs(buf[j] - c)


def _nb_kth(buf: Any, m: Any, p: Any, c: Any, k: Any) -> Any:  # pragma: no cover - compiled
    """The ``k``-th smallest deviation (0-based) of the two sorted runs: run A is
    ``c - buf[p-1-j]`` (``p`` of them), run B is ``buf[p+j] - c`` (``m - p``)."""
    na = p
    nb = m - p
    lo = k + 1 - nb
    if lo < 0:
        lo = 0
    hi = k + 1
    if hi > na:
        hi = na
    while lo < hi:  # a: how many of the k + 1 smallest come from run A
        a = (lo + hi) >> 1
        b = k + 1 - a
        if b > 0 and _nb_dev(buf, m, p, c, p + b - 1) > _nb_dev(buf, m, p, c, a):
            lo = a + 1
        else:
            hi = a
    a = lo
    b = k + 1 - a
    if a == 0:
        return _nb_dev(buf, m, p, c, p + b - 1)
    if b == 0:
        return _nb_dev(buf, m, p, c, a - 1)
    da = _nb_dev(buf, m, p, c, a - 1)
    db = _nb_dev(buf, m, p, c, p + b - 1)
    return da if da > db else db


def _nb_mad(x: Any, take: Any, start: np.ndarray, end: np.ndarray, two: Any, half: Any,
            out: np.ndarray, redo: np.ndarray, buf: np.ndarray,
            sc: Any) -> None:  # pragma: no cover
    """The median absolute deviation of each window's taking-part values (``out``);
    ``redo[i]``: window ``i`` holds an infinity (left to the reference engine).
    ``half``: ``x`` holds float16 values as float64, rounded to float16 after each
    operation (the deviations are compared exact: rounding is monotone, so the
    ``k``-th smallest exact deviation rounds to the ``k``-th smallest rounded one)."""
    cs = 0
    ce = 0
    m = 0
    for i in range(start.shape[0]):
        s = start[i]
        e = end[i]
        cs, ce, m = nb_advance(x, take, s, e, cs, ce, m, buf)
        if m == 0:
            continue  # an empty window: the caller's empty fill
        if np.isinf(buf[0]) or np.isinf(buf[m - 1]):
            redo[i] = True
            continue
        h = m >> 1
        c = buf[h] if m & 1 else nb_mid(buf[h - 1], buf[h], two, half, sc)
        p = nb_lower(buf, m, c)  # values below the center: run A
        if m & 1:
            out[i] = _nb_half(_nb_kth(buf, m, p, c, h), half, sc)
        else:
            out[i] = nb_mid(_nb_half(_nb_kth(buf, m, p, c, h - 1), half, sc),
                             _nb_half(_nb_kth(buf, m, p, c, h), half, sc), two, half, sc)


def _nb_mad_columns(x: np.ndarray, take: np.ndarray, start: Any, end: Any, two: Any, half: Any,
                    out: np.ndarray, redo: np.ndarray,
                    buf: np.ndarray) -> None:  # pragma: no cover
    """:func:`_nb_mad` for every column (``x[c]``, ``out[c]``, ``redo[c]``)."""
    for c in range(x.shape[0]):
        _nb_mad(x[c], take[c], start, end, two, half, out[c], redo[c], buf, buf[-1:])


def build() -> dict[str, Any]:
    """Compile the sliding mad kernel (the buffer helpers of :mod:`.window_select`)."""
    helpers = bind(globals(), BUFFER_HELPERS, kernels("window_select"))
    bind(globals(), ("_nb_half", "nb_mid", "_nb_dev", "_nb_kth", "_nb_mad"))
    return {"mad": jit(nogil=True)(_nb_mad_columns), **helpers}


register("window_mad", build)


def slide_mad(x: np.ndarray, take: np.ndarray, start: np.ndarray, end: np.ndarray, *,
              compiled: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """``(mad (ncols, nout), redo (ncols, nout))`` of each window's taking-part values
    of float ``x`` ``(ncols, n)`` (no NaN among them) over monotone bounds, before any
    ``scale``; empty windows hold the dtype's canonical NaN. float16 runs the float64
    kernel with float16's roundings (one compiled signature for both). ``compiled``
    False runs the kernel as plain Python (tests of tiny inputs).

    Examples
    --------
    >>> x = np.array([[1.0, 2.0, 4.0, 7.0, 11.0]], np.float16)
    >>> mad, redo = slide_mad(x, np.ones(x.shape, bool), np.array([0, 0, 1]),
    ...                       np.array([2, 4, 5]), compiled=False)
    >>> mad.dtype, mad[0].tolist(), redo.any()
    (dtype('float16'), [0.5, 1.5, 2.5], np.False_)
    """
    dtype = np.dtype(x.dtype)
    half = dtype == np.float16
    x = np.ascontiguousarray(x, np.float64 if half else None)
    take = np.ascontiguousarray(take, dtype=np.bool_)
    start = np.ascontiguousarray(start, dtype=np.int64)
    end = np.ascontiguousarray(end, dtype=np.int64)
    out = np.full((x.shape[0], start.size), np.nan, x.dtype)
    redo = np.zeros((x.shape[0], start.size), np.bool_)
    buf = np.empty(int((end - start).max(initial=0)) + 2, x.dtype)  # + a scratch
    two = x.dtype.type(2)
    fn = kernels("window_mad")["mad"] if compiled else _nb_mad_columns
    fn(x, take, start, end, two, half, out, redo, buf)
    return (out.astype(np.float16) if half else out), redo
