"""The extraction front end: error-free vector extraction (AccSum) in blocks.

Rows whose values stay below ``2**990`` are reduced to a few exact "level sums" per
row (Rump, Ogita and Oishi, SIAM J. Sci. Comput. 31(1), 2008) on cache-sized blocks;
the digit engine (:mod:`.digits`) then adds those exactly. Rows the front end cannot
take (huge values, squares out of the Veltkamp range, very short rows) are flagged
"raw" for the digit engine.
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np

_BLOCK = 1 << 15  # elements per block of the extraction front end (cache sized)
_SUM_SAFE = 2.0**990  # extraction needs sigma = 2**(M + ceil(log2 max)) finite
_SQ_HI = 2.0**480  # Veltkamp split and the squares' extraction stay finite
_SQ_LO = 2.0**-480  # ... and the low products do not underflow
_VELTKAMP = 134217729.0  # 2**27 + 1
_DIRECT_N = 8  # rows this short skip the extraction front end


def _levels(xb: np.ndarray, mu: np.ndarray, out: list[np.ndarray]) -> None:
    """Error-free extraction (AccSum): append exact level sums of the rows of ``xb``.

    ``xb`` (float64, finite, owned) is consumed; ``mu`` is its per-row max ``|x|``.
    """
    M = max(2, (xb.shape[1] + 1).bit_length())  # 2**M >= n + 2
    t = np.empty_like(xb)
    e = np.frexp(mu)[1]  # max|x| < 2**e
    live = mu != 0
    xb += 0.0  # -0.0 -> +0.0: from here on a zero remainder has zero bits
    bits = xb.view(np.int64)
    while live.any():
        sigma = np.ldexp(1.0, e + M)[:, None]
        np.add(xb, sigma, out=t)
        np.subtract(t, sigma, out=t)
        out.append(t.sum(axis=1))
        np.subtract(xb, t, out=xb)
        # |x - q| <= ulp(sigma) / 2 = 2**(e + M - 53): a bound for the next level, so
        # no max/min pass (a larger sigma stays exact); stop where nothing is left
        e = e + M - 52
        live = (np.any(bits, axis=1) if xb.shape[0] > 1
                else np.array([np.count_nonzero(bits) > 0]))


def _pad_stack(parts: list[tuple[int, int, list[np.ndarray]]], rows: int) -> np.ndarray:
    kmax = max((len(p[2]) for p in parts), default=0)
    T = np.zeros((rows, kmax), dtype=np.float64)
    for r0, r1, taus in parts:
        if taus:
            T[r0:r1, : len(taus)] = np.stack(taus, axis=1)
    return T


class Scan:
    """Result of the front end: level sums, rows needing the digit engine, inf flags."""

    def __init__(self, rows: int) -> None:
        self.posinf = np.zeros(rows, bool)
        self.neginf = np.zeros(rows, bool)
        self.nan = np.zeros(rows, bool)
        self.raw = np.zeros(rows, bool)
        self.t_sum: np.ndarray | None = None
        self.t_sq: np.ndarray | None = None

    @property
    def nonfinite(self) -> np.ndarray:
        return self.posinf | self.neginf | self.nan


def _block(x2: Any, w2: Any, r0: Any, r1: Any, c0: Any, c1: Any) -> np.ndarray:
    blk = x2[r0:r1, c0:c1]
    if w2 is not None:
        return np.where(w2[r0:r1, c0:c1], blk, 0).astype(np.float64, copy=False)
    return cast("np.ndarray", blk.astype(np.float64, copy=True))


def scan(x2: np.ndarray, w2: np.ndarray | None, want_sum: bool, want_sq: bool) -> Scan:
    rows, n = x2.shape
    sc = Scan(rows)
    if n == 0 or rows == 0:
        sc.t_sum = np.zeros((rows, 0)) if want_sum else None
        sc.t_sq = np.zeros((rows, 0)) if want_sq else None
        return sc
    direct = n <= _DIRECT_N
    cb = max(1, min(n, _BLOCK))
    rb = max(1, _BLOCK // cb)
    s_parts, q_parts = [], []
    for r0 in range(0, rows, rb):
        r1 = min(rows, r0 + rb)
        s_list: list[np.ndarray] = []
        q_list: list[np.ndarray] = []
        for c0 in range(0, n, cb):
            xb = _block(x2, w2, r0, r1, c0, min(n, c0 + cb))
            mu = np.maximum(xb.max(axis=1), -xb.min(axis=1))
            if not np.isfinite(mu).all():
                sc.posinf[r0:r1] |= (xb == np.inf).any(axis=1)
                sc.neginf[r0:r1] |= (xb == -np.inf).any(axis=1)
                sc.nan[r0:r1] |= np.isnan(xb).any(axis=1)
                xb[~np.isfinite(xb)] = 0.0
                mu = np.maximum(xb.max(axis=1), -xb.min(axis=1))
            if direct:
                bad = np.ones(r1 - r0, bool)
            elif want_sq:
                a = np.abs(xb)
                bad = (mu > _SQ_HI) | ((a < _SQ_LO) & (a != 0)).any(axis=1)
            else:
                bad = mu >= _SUM_SAFE
            if bad.any():
                sc.raw[r0:r1] |= bad
                if bad.all():
                    continue
                xb[bad] = 0.0
                mu = np.where(bad, 0.0, mu)
            if want_sq:
                c = xb * _VELTKAMP
                xh = c - (c - xb)
                xl = xb - xh
                sq = np.concatenate([xh * xh, 2.0 * xh * xl, xl * xl], axis=1)
                _levels(sq, np.maximum(sq.max(axis=1), -sq.min(axis=1)), q_list)
            if want_sum:
                _levels(xb, mu, s_list)
        s_parts.append((r0, r1, s_list))
        q_parts.append((r0, r1, q_list))
    if want_sum:
        sc.t_sum = _pad_stack(s_parts, rows)
    if want_sq:
        sc.t_sq = _pad_stack(q_parts, rows)
    return sc


def raw_rows(x2: Any, w2: Any, rows_idx: Any) -> np.ndarray:
    """The selected finite values of the given rows as float64, others zero."""
    xr = x2[rows_idx].astype(np.float64)
    if w2 is not None:
        xr = np.where(w2[rows_idx], xr, 0.0)
    xr[~np.isfinite(xr)] = 0.0
    return cast("np.ndarray", xr)


def negzero_rows(x2: Any, w2: Any, rows_idx: Any) -> np.ndarray:
    """Rows (of rows_idx) whose selected elements are all -0.0 (and at least one)."""
    xr = x2[rows_idx]
    isnz = (xr == 0) & np.signbit(xr)
    if w2 is None:
        return cast("np.ndarray", isnz.all(axis=1) & (xr.shape[1] > 0))
    wr = w2[rows_idx]
    return cast("np.ndarray", (isnz | ~wr).all(axis=1) & wr.any(axis=1))
