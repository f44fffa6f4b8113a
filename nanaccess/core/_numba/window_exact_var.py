"""Exact moving variances (the numba engine of var / std windows).

A window's exact sum ``S`` and exact sum of squares ``Q`` are two Shewchuk expansions
that values enter and leave without rounding (``x * x`` is exactly ``hi + lo`` by a
fused multiply-add). Each output forms ``D = n Q - S S`` exactly (error-free products
of the expansions' components) and divides it by ``n (n - ddof)`` with one correct
rounding (:func:`.window_sums.nb_mean`), so the result is
:func:`nanaccess.core.exactsum.exact_var`'s definition, a function of the window's
values alone: equal to the plain variance of the window bit for bit. Values outside
``[2**-400, 2**400]`` (and infinities), quotients the division cannot decide, and
expansions grown too long are flagged for the reference engine.

The fast path (:func:`.window_var.binned_var`) keeps S and Q on fixed bins instead
and certifies each quotient from a bound; only the outputs it cannot certify are
left to this kernel.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import bind, jit, kernels, register
from .window_sums import (  # noqa: F401  (bound as this module's globals)
    EXPANSION_HELPERS,
    MAXP,
    _fma,
    fma_intrinsic,
    nb_cmp_half,
    nb_grow,
    nb_mean,
    nb_round,
    nb_sign,
    nb_split,
)

__all__ = ["moving_var", "LO_OK", "HI_OK"]

#: |x| outside [LO_OK, HI_OK] (nonzero) is left to the reference engine
LO_OK, HI_OK = 2.0 ** -400, 2.0 ** 400


def _nb_two_prod(a: Any, b: Any) -> Any:  # pragma: no cover - compiled
    """(a * b rounded, its exact error)."""
    p = a * b
    return p, _fma(a, b, -p)


def _nb_var(x: np.ndarray, take: np.ndarray, start: np.ndarray, end: np.ndarray, ddof: Any,
            out: np.ndarray, bad: np.ndarray) -> None:  # pragma: no cover - compiled
    """Exactly rounded variance of every window's taking-part values (``ddof`` an
    integer; ``n - ddof <= 0`` gives NaN). ``bad[i]``: recompute output i elsewhere."""
    ps = np.empty(MAXP, np.float64)  # S
    pq = np.empty(MAXP, np.float64)  # Q
    d = np.empty(4 * MAXP * MAXP + 8, np.float64)
    tmp = np.empty(4 * MAXP * MAXP + 12, np.float64)
    ms = 0
    mq = 0
    cnt = 0
    cs = 0
    ce = 0
    for i in range(start.shape[0]):
        s = start[i]
        e = end[i]
        if s >= ce or ms > MAXP - 6 or mq > MAXP - 6:  # afresh: disjoint, or long
            ms = 0
            mq = 0
            cnt = 0
            cs = s
            ce = s
        while cs < s:
            if take[cs]:
                v = x[cs]
                if v != 0.0:
                    ms = nb_grow(ps, ms, -v)
                    h, lo = _nb_two_prod(v, v)
                    mq = nb_grow(pq, mq, -h)
                    if lo != 0.0:
                        mq = nb_grow(pq, mq, -lo)
                cnt -= 1
            cs += 1
        while ce < e:
            if take[ce]:
                v = x[ce]
                a = abs(v)
                if v != 0.0:
                    if a < LO_OK or a > HI_OK:
                        bad[i] = True
                    ms = nb_grow(ps, ms, v)
                    h, lo = _nb_two_prod(v, v)
                    mq = nb_grow(pq, mq, h)
                    if lo != 0.0:
                        mq = nb_grow(pq, mq, lo)
                cnt += 1
            ce += 1
        if ms > MAXP - 6 or mq > MAXP - 6:
            bad[i] = True
            continue
        if cnt - ddof <= 0:
            out[i] = np.nan
            continue
        n = np.float64(cnt)
        k = 0
        for j in range(mq):  # n Q
            hp, lp = _nb_two_prod(n, pq[j])
            k = nb_grow(d, k, hp)
            if lp != 0.0:
                k = nb_grow(d, k, lp)
        for j in range(ms):  # - S S
            for t in range(j, ms):
                hp, lp = _nb_two_prod(ps[j], ps[t])
                if t != j:
                    hp *= 2.0
                    lp *= 2.0
                k = nb_grow(d, k, -hp)
                if lp != 0.0:
                    k = nb_grow(d, k, -lp)
        if nb_sign(d, k) <= 0:  # a constant window (D is never negative)
            out[i] = 0.0
            continue
        q = nb_mean(d, k, n * np.float64(cnt - ddof), tmp)
        out[i] = q
        if q != q:
            bad[i] = True


def _nb_var_columns(x: np.ndarray, take: np.ndarray, start: Any, end: Any, ddof: Any,
                    out: np.ndarray, bad: np.ndarray) -> None:  # pragma: no cover
    """:func:`_nb_var` for every column (``x[c]``, ``out[c]``, ``bad[c]``)."""
    for c in range(x.shape[0]):
        _nb_var(x[c], take[c], start, end, ddof, out[c], bad[c])

def build() -> dict[str, Any]:
    """Compile the exact variance kernel (the expansion helpers compiled by window_sums)."""
    globals()["_fma"] = fma_intrinsic()
    bind(globals(), EXPANSION_HELPERS, kernels("window_sums"))
    bind(globals(), ("_nb_two_prod", "_nb_var"))
    return {"var": jit(nogil=True)(_nb_var_columns)}


register("window_exact_var", build)


def moving_var(x: np.ndarray, take: np.ndarray, start: np.ndarray, end: np.ndarray,
               ddof: int, *, compiled: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """(exactly rounded variance of each window's taking-part float64 values, outputs
    to recompute elsewhere); ``x`` and ``take`` ``(ncols, n)`` give ``(ncols, nout)``.
    Windows with ``count - ddof <= 0`` give NaN."""
    x = np.ascontiguousarray(x, dtype=np.float64)
    take = np.ascontiguousarray(take, dtype=np.bool_)
    start = np.ascontiguousarray(start, dtype=np.int64)
    end = np.ascontiguousarray(end, dtype=np.int64)
    out = np.zeros((x.shape[0], start.size), np.float64)
    bad = np.zeros((x.shape[0], start.size), np.bool_)
    fn = kernels("window_exact_var")["var"] if compiled else _nb_var_columns
    fn(x, take, start, end, int(ddof), out, bad)
    return out, bad
