"""Certified moving covariance and correlation: the sliding kernels of
:mod:`.bivariate_cert` (its chains, bounds and Ziv test), in blocks of windows that
owe nothing to each other.

The five chains slide (rows entering added, leaving taken out) and start again from
the window's own rows every ``restart`` windows and after a gap: no drift, a bound that
does not grow, and blocks of ``restart`` windows computed alone, so the same bits
whatever thread runs which block (:func:`rolling_pair_threads` spreads them over
numba's threads; a function of its own, as numba's cache would mix a parallel and a
serial compilation of one function). Family ``"bivariate_cert_roll"``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import bind, bivariate_cert, jit, kernels, register

prange = range  # numba's prange once compiled (bound by build)

__all__ = ["rolling_pair", "rolling_pair_threads", "build"]

_U = 2.0 ** -53
_TINY = 2.0 ** -1073
_BATCH = 256  # windows combined, then finished together (vectorised loops; W in L1)
_SHARED = ("_two_sum", "_terms", "_acc", "_finish_many")  # bivariate_cert's helpers
_two_sum, _terms, _acc, _finish_many = (getattr(bivariate_cert, name) for name in _SHARED)


def _rolling_block(x: np.ndarray, y: np.ndarray, ok: np.ndarray, ninf: np.ndarray,
                   start: np.ndarray, end: np.ndarray, big: Any, b0: Any, b1: Any, stat: Any,
                   ddof: Any, minp: Any, out: np.ndarray,
                   good: np.ndarray) -> None:  # pragma: no cover - compiled
    """Windows ``b0..b1-1`` of :func:`rolling_pair`, the sums starting from the rows of
    window ``b0``. The batch's chains ``(s, c)`` go to (hi, lo, bound) in a loop of
    their own (it vectorises): the errors of ``c`` after ``K`` steps since the start
    are at most ``1.1 u**2 (K + K**2) (big + 3) V`` (a step errs by ``u (|d| + |c|)``,
    ``d`` = t + e, ``|d| <= 1.01 u (|s| + |v|)``, ``|s| <= (big + 2) V``, ``V`` the
    largest term since the start: ``vx``, ``vy``; ``|c| <= 1.01 K max |d|``), and ``K
    2**-1073`` for products that underflow."""
    W = np.zeros((15, _BATCH))
    N, NI, K = np.zeros(_BATCH, np.int64), np.zeros(_BATCH, np.int64), np.zeros(_BATCH, np.int64)
    vx = vy = 0.0  # the largest |x|, |y| of the block's rows
    for r in range(max(start[b0], 0), max(end[b1 - 1], start[b1 - 1])):
        if ok[r]:
            vx = max(vx, abs(x[r]))
            vy = max(vy, abs(y[r]))
    lo = hi = cnt = steps = 0
    s0 = c0 = s1 = c1 = s2 = c2 = s3 = c3 = s4 = c4 = 0.0
    for a0 in range(b0, b1, _BATCH):
        m = min(_BATCH, b1 - a0)
        for j in range(m):
            i = a0 + j
            s = max(start[i], 0)
            e = max(end[i], s)
            if s >= hi or i == b0:  # start again from its rows
                s0 = c0 = s1 = c1 = s2 = c2 = s3 = c3 = s4 = c4 = 0.0
                cnt = steps = 0
                lo = hi = s
            while hi < e:
                if ok[hi]:
                    xv, yv, qx, ex, qy, ey, qp, ep = _terms(x[hi], y[hi], 1.0)
                    s0, c0 = _acc(s0, c0, xv, 0.0)
                    s1, c1 = _acc(s1, c1, yv, 0.0)
                    s2, c2 = _acc(s2, c2, qx, ex)
                    s3, c3 = _acc(s3, c3, qy, ey)
                    s4, c4 = _acc(s4, c4, qp, ep)
                    cnt += 1
                    steps += 1
                hi += 1
            while lo < s:
                if ok[lo]:
                    xv, yv, qx, ex, qy, ey, qp, ep = _terms(x[lo], y[lo], -1.0)
                    s0, c0 = _acc(s0, c0, xv, 0.0)
                    s1, c1 = _acc(s1, c1, yv, 0.0)
                    s2, c2 = _acc(s2, c2, qx, ex)
                    s3, c3 = _acc(s3, c3, qy, ey)
                    s4, c4 = _acc(s4, c4, qp, ep)
                    cnt -= 1
                    steps += 1
                lo += 1
            W[0, j], W[1, j], W[3, j], W[4, j] = s0, c0, s1, c1
            W[6, j], W[7, j], W[9, j], W[10, j] = s2, c2, s3, c3
            W[12, j], W[13, j] = s4, c4
            K[j] = steps
            N[j] = cnt
            NI[j] = ninf[e] - ninf[s] if ninf.shape[0] > 0 else 0
        f = 1.1 * _U * _U * (big + 3.0)
        for j in range(m):  # (s, c) to (hi, lo, bound): a loop that vectorises
            k = float(K[j])
            g = f * (k + k * k)
            tiny = k * _TINY
            for q in range(5):
                W[3 * q, j], W[3 * q + 1, j] = _two_sum(W[3 * q, j], W[3 * q + 1, j])
            W[2, j] = g * vx + tiny
            W[5, j] = g * vy + tiny
            W[8, j] = g * vx * vx * 1.01 + tiny
            W[11, j] = g * vy * vy * 1.01 + tiny
            W[14, j] = g * vx * vy * 1.01 + tiny
        _finish_many(W, N, NI, m, stat, ddof, minp, out[a0:a0 + m], good[a0:a0 + m])


def rolling_pair(x: Any, y: Any, ok: Any, ninf: Any, start: np.ndarray, end: Any, big: Any,
                 restart: Any, stat: Any, ddof: Any, minp: Any, out: Any,
                 good: Any) -> None:  # pragma: no cover
    """Windows ``[max(start[i], 0), end[i])`` (non-decreasing; ``big`` rows at
    most) of the joint finite rows ``ok`` (``ninf``: prefix counts of the joint rows
    holding an infinity, or empty): ``out[i]`` the cov (stat 1) or Pearson r (stat 0),
    ``good[i]`` certified (else the caller recomputes it); the sums start again every
    ``restart`` windows and after a gap."""
    nwin = start.shape[0]
    for b in range((nwin + restart - 1) // restart):
        _rolling_block(x, y, ok, ninf, start, end, float(big), b * restart,
                       min(nwin, (b + 1) * restart), stat, ddof, minp, out, good)


def rolling_pair_threads(x: Any, y: Any, ok: Any, ninf: Any, start: np.ndarray, end: Any, big: Any,
                         restart: Any, stat: Any, ddof: Any, minp: Any, out: Any,
                         good: Any) -> None:  # pragma: no cover
    """:func:`rolling_pair` with ``prange`` over its blocks: the same bits."""
    nwin = start.shape[0]
    for b in prange((nwin + restart - 1) // restart):
        _rolling_block(x, y, ok, ninf, start, end, float(big), b * restart,
                       min(nwin, (b + 1) * restart), stat, ddof, minp, out, good)


def build() -> dict[str, Any]:
    """Compile the sliding kernels, with :mod:`.bivariate_cert`'s helpers as it compiled
    them (numpy's error model, as there)."""
    kernels("bivariate_cert")
    ns = globals()
    bind(ns, _SHARED, {name: getattr(bivariate_cert, name) for name in _SHARED})
    opts = {"nogil": True, "error_model": "numpy"}
    ns["_rolling_block"] = jit(**opts)(_rolling_block)
    return {"rolling_pair": jit(**opts)(rolling_pair),
            "rolling_pair_parallel": jit(parallel=True, **opts)(rolling_pair_threads)}


register("bivariate_cert_roll", build)
