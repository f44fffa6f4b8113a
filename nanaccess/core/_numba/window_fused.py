"""The fused float selection kernel: an order statistic of every window of a float
column in one pass (the fast engine of :func:`nanaccess.core.window.order.fused_order`).

The common case: float32/64 data without missing values whose NaNs the policy
removes (or that hold none). Keys come from the bits as they are read, the window's
count is the buffer's size, the ranks and weights are looked up in tables of
rank_plan over every possible count, and the midpoint / lerp of
:mod:`nanaccess.core.interp` is applied here (same operations, same order, so the
same bits). Short windows keep one sorted buffer placed by counting; a single
quantile of wider windows uses the two heaps of :mod:`.window_heap` (O(log w) per
step, no shift of the keys between).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import bind, jit, kernels, register
from .window_select import (  # noqa: F401  (bound as this module's globals)
    BUFFER_HELPERS,
    _shift,
    memmove_intrinsic,
    nb_insert,
    nb_lower,
    nb_remove,
    nb_replace,
    nb_upper,
)

__all__ = ["fused_select", "fused_args", "weight_tables", "MODE_PICK", "MODE_MID",
           "MODE_LERP", "LINEAR_MAX", "HEAP_MIN"]

MODE_PICK, MODE_MID, MODE_LERP = 0, 1, 2
#: widest window placed by counting (wider: binary search)
LINEAR_MAX = 512
#: a single quantile of windows at least this wide uses the two heaps
HEAP_MIN = 32


def nb_mid(a: Any, b: Any, half: Any, nanv: Any) -> Any:  # pragma: no cover - compiled
    """interp.midpoint of two numbers of one float dtype (``x * 0.5`` is ``x / 2``
    bit for bit: one correctly rounded scaling, and no division)."""
    s = a + b
    if s - s == 0:
        return s * half
    if (s == s) and (a - a == 0) and (b - b == 0):  # overflow of finite values
        return a * half + b * half
    r = s * half
    return nanv if r != r else r


def nb_lerp(a: Any, b: Any, t: Any, ft: Any, omt: Any,
            nanv: Any) -> Any:  # pragma: no cover - compiled
    """interp.lerp of two numbers (``t`` the float64 weight, ``ft`` it in a's dtype,
    ``omt`` ``1 - t`` computed in float64, then cast, as NumPy's scalar-q lerp)."""
    if t == 0:
        return a
    diff = b - a
    if t >= 0.5:
        res = b - diff * omt
    else:
        res = a + diff * ft
    if diff - diff == 0:
        return res
    if (a - a == 0) and (b - b == 0):
        res = a * omt + b * ft
    if (a - a != 0) and a == b:  # between equal infinities
        res = a
    return nanv if res != res else res


def _nb_count2(buf: np.ndarray, m: Any, ko: Any, ki: Any) -> Any:  # pragma: no cover - compiled
    """(keys < ko, keys <= ki) in ``buf[:m]``: one branch-free pass the compiler
    vectorises; for short windows faster than two dependent binary searches."""
    c1 = 0
    c2 = 0
    for j in range(m):
        c1 += buf[j] < ko
        c2 += buf[j] <= ki
    return c1, c2


def _nb_swap(buf: np.ndarray, m: Any, ko: Any, ki: Any,
             linear: Any) -> None:  # pragma: no cover - compiled
    """Remove key ``ko`` and insert ``ki`` (``linear``: places by counting)."""
    if not linear:
        nb_replace(buf, m, ko, ki)
        return
    p, q = _nb_count2(buf, m, ko, ki)
    if q > p:  # ki >= ko: the keys in (p, q) move down one place
        _shift(buf, p, p + 1, q - 1 - p)
        buf[q - 1] = ki
    else:
        _shift(buf, q + 1, q, p - q)
        buf[q] = ki


def _nb_drop(buf: Any, m: Any, ko: Any, linear: Any) -> Any:  # pragma: no cover - compiled
    if not linear:
        return nb_remove(buf, m, ko)
    p, _ = _nb_count2(buf, m, ko, ko)
    _shift(buf, p, p + 1, m - 1 - p)
    return m - 1


def _nb_add(buf: np.ndarray, m: Any, ki: Any, linear: Any) -> Any:  # pragma: no cover - compiled
    if not linear:
        return nb_insert(buf, m, ki)
    _, q = _nb_count2(buf, m, ki, ki)
    _shift(buf, q + 1, q, m - q)
    buf[q] = ki
    return m + 1


def _nb_fused(x: Any, bits: np.ndarray, sc: np.ndarray, scb: np.ndarray, imax: Any, expmask: Any,
              quiet: Any, start: np.ndarray, end: np.ndarray, lo_t: np.ndarray, hi_t: np.ndarray,
              w_t: np.ndarray, ft_t: np.ndarray,
              mode: Any, nanv: Any, one: Any, half: Any, out: np.ndarray, cnt: np.ndarray,
              buf: np.ndarray, linear: Any) -> Any:  # pragma: no cover - compiled
    """Order statistic of every window of a float column (NaNs take no rank).

    ``bits``: ``x``'s bits as ints; ``sc``/``scb``: a 2-element scratch of x's dtype
    and its int view (keys back to floats); ``lo_t``/``hi_t``/``w_t``/``ft_t``:
    ``(nq, W + 1)`` tables of the plan by count. Writes ``out`` ``(nq, nout)`` and
    ``cnt``. Returns -1 (nothing valid) at the first decreasing bound, else the NaNs
    seen in windows: bit 0 a NaN, bit 1 a signaling NaN (the caller decides whether
    the policy allows them).
    """
    seen = 0
    cs = 0
    ce = 0
    m = 0
    ps = 0
    pe = 0
    nq = lo_t.shape[0]
    for i in range(start.shape[0]):
        s = start[i]
        e = end[i]
        if s < ps or e < pe:
            return -1
        ps = s
        pe = e
        if s >= ce:
            m = 0
            cs = s
            ce = s
        while cs < s and ce < e:
            bo = np.int64(bits[cs])
            bi = np.int64(bits[ce])
            to = (bo & imax) <= expmask
            ti = (bi & imax) <= expmask
            ko = bo ^ ((bo >> 63) & imax)
            ki = bi ^ ((bi >> 63) & imax)
            if to and ti:
                _nb_swap(buf, m, ko, ki, linear)
            elif to:
                m = _nb_drop(buf, m, ko, linear)
            elif ti:
                m = _nb_add(buf, m, ki, linear)
            if not ti:
                seen |= 1 if (bi & quiet) != 0 else 3
            cs += 1
            ce += 1
        while cs < s:
            bo = np.int64(bits[cs])
            if (bo & imax) <= expmask:
                m = _nb_drop(buf, m, bo ^ ((bo >> 63) & imax), linear)
            cs += 1
        while ce < e:
            bi = np.int64(bits[ce])
            if (bi & imax) <= expmask:
                m = _nb_add(buf, m, bi ^ ((bi >> 63) & imax), linear)
            else:
                seen |= 1 if (bi & quiet) != 0 else 3
            ce += 1
        cnt[i] = m
        if m == 0:
            for t in range(nq):
                out[t, i] = nanv
            continue
        for t in range(nq):
            lo = lo_t[t, m]
            ka = buf[lo]
            scb[0] = ka ^ ((ka >> 63) & imax)
            a = sc[0]
            hi = hi_t[t, m]
            if mode == MODE_PICK or hi == lo:
                out[t, i] = a
                continue
            kb = buf[hi]
            scb[1] = kb ^ ((kb >> 63) & imax)
            b = sc[1]
            if mode == MODE_MID:
                out[t, i] = nb_mid(a, b, half, nanv)
            else:
                out[t, i] = nb_lerp(a, b, w_t[t, m], ft_t[t, m], ft_t[nq + t, m], nanv)
    return seen

def _nb_fused_columns(x: np.ndarray, bits: np.ndarray, sc: Any, scb: Any, imax: Any, expmask: Any,
                      quiet: Any, start: Any, end: Any, lo_t: Any, hi_t: Any, w_t: Any,
                      ft_t: Any, mode: Any, nanv: Any, one: Any, half: Any, out: np.ndarray,
                      cnt: np.ndarray, buf: Any,
                      linear: Any) -> Any:  # pragma: no cover - compiled
    """:func:`_nb_fused` for every row of ``x`` ``(ncols, n)`` into ``out[:, c]``
    ``(nq, ncols, nout)`` and ``cnt[c]``: -1 at once if a column gives -1, else the
    union of the NaN flags."""
    seen = 0
    for c in range(x.shape[0]):
        f = _nb_fused(x[c], bits[c], sc, scb, imax, expmask, quiet, start, end, lo_t, hi_t,
                      w_t, ft_t, mode, nanv, one, half, out[:, c], cnt[c], buf, linear)
        if f < 0:
            return -1
        seen |= f
    return seen

def build() -> dict[str, Any]:
    """Compile the fused kernel."""
    globals()["_shift"] = memmove_intrinsic()
    bind(globals(), BUFFER_HELPERS, kernels("window_select"))  # compiled there
    for name in ("_nb_count2", "_nb_swap", "_nb_drop", "_nb_add", "nb_mid", "nb_lerp"):
        # small, called per step or output: inlined into the kernel
        globals()[name] = jit(nogil=True, inline="always")(globals()[name])
    bind(globals(), ("_nb_fused",))
    return {"fused": jit(nogil=True)(_nb_fused_columns)}


register("window_fused", build)


def weight_tables(w_t: np.ndarray, dt: np.dtype) -> np.ndarray:
    """The ``(2 nq, W + 1)`` table of the weights ``t`` in ``dt`` above ``1 - t``
    (computed in float64, then cast: NumPy's lerp with a scalar q) for the kernels."""
    w = np.asarray(w_t, np.float64)
    return np.ascontiguousarray(np.concatenate([w.astype(dt), (1.0 - w).astype(dt)]))


def fused_args(x: np.ndarray, start: np.ndarray, end: np.ndarray, lo_t: np.ndarray,
               hi_t: np.ndarray, w_t: np.ndarray, mode: int) -> tuple[Any, ...]:
    """The kernel's arguments after the data and its bits (``sc`` to ``half``)."""
    dt = x.dtype
    it = np.dtype(f"i{dt.itemsize}")
    sc = np.zeros(2, dt)
    imax = np.iinfo(it).max
    expmask = int(np.array(np.inf, dt).view(it))
    quiet = 1 << (np.finfo(dt).nmant - 1)
    nanv = np.array(expmask | quiet, it).view(dt)[()]
    return (sc, sc.view(it), np.int64(imax), np.int64(expmask), np.int64(quiet),
            np.ascontiguousarray(start, dtype=np.int64),
            np.ascontiguousarray(end, dtype=np.int64),
            np.ascontiguousarray(lo_t, np.int64), np.ascontiguousarray(hi_t, np.int64),
            np.ascontiguousarray(w_t, np.float64), weight_tables(w_t, dt),
            int(mode), nanv, dt.type(1), dt.type(0.5))


def fused_select(x: np.ndarray, start: np.ndarray, end: np.ndarray, lo_t: np.ndarray,
                 hi_t: np.ndarray, w_t: np.ndarray, mode: int, out: np.ndarray,
                 cnt: np.ndarray, *, compiled: bool = True) -> int:
    """Fill ``out`` ``(nq, ncols, nout)`` and ``cnt`` ``(ncols, nout)`` with an order
    statistic of every window of each row of ``x`` ``(ncols, n)`` (float32/64, native),
    NaNs taking no rank, the plan's tables indexed by the window's count (see
    :func:`_nb_fused`). Returns -1 where the bounds are not monotone, else the NaN
    flags of all columns (bit 0 NaN, bit 1 signaling)."""
    it = np.dtype(f"i{x.dtype.itemsize}")
    buf = np.empty(int(lo_t.shape[1]) + 1, np.int64)
    fn = kernels("window_fused")["fused"] if compiled else _nb_fused_columns
    return int(fn(x, x.view(it), *fused_args(x, start, end, lo_t, hi_t, w_t, mode), out,
                  cnt, buf, lo_t.shape[1] <= LINEAR_MAX + 1))
