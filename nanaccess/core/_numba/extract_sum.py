"""Certified sums of deeply cancelling data by error-free extraction: the second fast
path, tried where the compensated pass (:mod:`.compensated`) refuses one float64 row.

The compensated bound follows the TwoSum errors, so a sum some ``1e-10`` below the
sum of its magnitudes is refused there. This pass bounds its error by the values
instead: only a remainder ``2**-79`` below each block's largest value is rounded.

Extraction (Rump, Ogita and Oishi, "Accurate floating-point summation part I",
SIAM J. Sci. Comput. 31(1), 2008, Lemma 3.3 / ``ExtractVector``). Let ``sigma =
2**k >= 2**-1022`` and ``|x| <= sigma/2``. Then ``sigma + x`` lies in ``[sigma/2,
3*sigma/2]``, so ``t = fl(sigma + x)`` is a multiple of ``g = max(2**(k-53),
2**-1074)`` within ``u*sigma`` of ``sigma + x`` (``u = 2**-53``); ``q = t - sigma`` is
exact (Sterbenz), a multiple of ``g``, and ``r = x - q`` is the rounding error of a
float addition, so it is computed exactly, ``|r| <= u*sigma``. For a block of ``B``
values with ``max|x| < P`` (a power of two), ``sigma1 = 2**M * P``, ``2**M >= B +
2``: ``sum|q| <= B * (P + u*sigma1) < sigma1 <= 2**53 * g``, so every partial sum of
the block's ``q`` (any order: here 16 lanes, then the lanes) is a multiple of ``g``
of at most 53 bits, exact. The remainders ``|r1| <= u*sigma1 = 2**-M * sigma2`` with
``sigma2 = 2**(M-53) * sigma1`` go through the same step: ``q2`` sums exactly, and
``|r2| <= u*sigma2``. ``sigma`` below ``2**-1022`` is raised to it (a larger power of
two keeps every step above true; there ``r = 0``). ``B = 4096``, ``M = 13``: ``|r2| <
2**-79 * P``. A block with ``max|x| >= 2**1009`` (``sigma1`` would overflow) or an
infinity is refused. Each value takes nine additions in one pass over the block in
L1 (after a pass for its maximum), in independent lanes without branches (a NaN is
read as 0: the caller uses this pass where the NaNs are left out or absent).

Bound. Per block ``t`` the pass yields ``T1_t``, ``T2_t`` (exact) and ``R_t``, the
floating-point sum of its ``B_t`` remainders (tree depth ``<= B_t``): ``|R_t - sum r2|
<= gamma_B * B_t * u*sigma2_t`` (Higham (4.4); a float addition errs by at most ``u``
times its result, with or without underflow). The ``K = 3 * blocks`` values go
through Sum2, each kind in its own ``(s, c, b)`` (the ``T1`` are coarse, the ``T2``
fine: apart, their TwoSums are mostly exact), the three then combined by TwoSum
(errors into ``c``; every error's chain has fewer than ``K + 6`` additions), so the
bound of :mod:`.compensated` reads ``2 * (K + 8)*u * b``. The exact sum lies within
``E = 2*(K + 8)*u*b + 2*B*u*D`` of ``s + c``, ``D`` the computed sum of ``B_t *
u*sigma2_t`` (each term exact; the factor 2 covers ``gamma_B`` against ``B*u`` and
the roundings of ``D`` and ``E``). :func:`.compensated._certify_one` then certifies
the sum or mean (``b`` scaled so that its ``2*m*u*b`` is at least ``E``; no tie
test: ties and zeros go on to the exact engine), so a certified value is the
correctly rounded one, the exact engine's bits.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import bind, jit, kernels, register
from .compensated import LANES, U, _certify_one, lane_add

__all__ = ["BLOCK", "build"]

#: values per block (in L1 between the two passes over it)
BLOCK = 4096
M = 13  # 2**M >= BLOCK + 2
_FIELD_MAX = 1023 + 1009  # the biased exponent of 2**1009: every |x| below it
_SLACK = 1.0 + 2.0 ** -40  # covers the roundings of the scaled b


def _pow2(field: Any) -> Any:  # pragma: no cover - compiled
    """The float64 ``2**(field - 1023)``, ``field`` a biased exponent in ``1..2046``."""
    return np.int64(np.int64(field) << 52).view(np.float64)


def extract_one_kernel(x: np.ndarray, n: Any, mean: Any) -> Any:  # pragma: no cover - compiled
    """(value, certified) of the sum, or the mean over ``n`` values, of the 1-D
    float64 array ``x`` (NaNs read as 0; ``n`` counts the others)."""
    mx = np.zeros(LANES)
    a1 = np.zeros(LANES)
    a2 = np.zeros(LANES)
    a3 = np.zeros(LANES)
    acc = np.zeros((3, 3))  # Sum2 (s, c, b) of the T1, of the T2 and of the R
    d = 0.0
    k = 0
    size = x.shape[0]
    for lo in range(0, size, BLOCK):
        xs = x[lo:min(lo + BLOCK, size)]
        m = xs.shape[0]
        full = m - m % LANES
        for j in range(LANES):
            mx[j] = 0.0
        for i in range(0, full, LANES):
            for j in range(LANES):
                a = abs(xs[i + j])
                mx[j] = a if a > mx[j] else mx[j]  # a NaN compares False: left out
        top = 0.0
        for i in range(full, m):
            a = abs(xs[i])
            top = a if a > top else top
        for j in range(LANES):
            top = max(top, mx[j])
        if top == 0.0:
            continue  # zeros (or NaNs) only
        field = (np.int64(np.float64(top).view(np.int64)) >> 52) & 0x7FF
        if field >= _FIELD_MAX:
            return 0.0, False  # too large, or an infinity
        f1 = (field if field > 1 else 1) + 1 + M  # sigma1 = 2**M * P, P = 2**(max(field, 1) - 1022)
        sigma1 = _pow2(f1)
        sigma2 = _pow2(max(f1 + M - 53, 1))
        for j in range(LANES):
            a1[j] = 0.0
            a2[j] = 0.0
            a3[j] = 0.0
        for i in range(0, full, LANES):
            for j in range(LANES):
                v = xs[i + j]
                v = v if v == v else 0.0
                q1 = (sigma1 + v) - sigma1
                r1 = v - q1
                q2 = (sigma2 + r1) - sigma2
                a1[j] += q1
                a2[j] += q2
                a3[j] += r1 - q2
        t1 = 0.0
        t2 = 0.0
        r = 0.0
        for i in range(full, m):
            v = xs[i]
            v = v if v == v else 0.0
            q1 = (sigma1 + v) - sigma1
            r1 = v - q1
            q2 = (sigma2 + r1) - sigma2
            t1 += q1
            t2 += q2
            r += r1 - q2
        for j in range(LANES):
            t1 += a1[j]
            t2 += a2[j]
            r += a3[j]
        acc[0, 0], acc[0, 1], acc[0, 2] = lane_add(acc[0, 0], acc[0, 1], acc[0, 2], t1)
        acc[1, 0], acc[1, 1], acc[1, 2] = lane_add(acc[1, 0], acc[1, 1], acc[1, 2], t2)
        acc[2, 0], acc[2, 1], acc[2, 2] = lane_add(acc[2, 0], acc[2, 1], acc[2, 2], r)
        d += np.float64(m) * (sigma2 * U)
        k += 3
    if k == 0 or n <= 0:
        return 0.0, False
    s, c, b = lane_add(acc[0, 0], acc[0, 1] + acc[1, 1], acc[0, 2] + acc[1, 2], acc[1, 0])
    s, c, b = lane_add(s, c + acc[2, 1], b + acc[2, 2], acc[2, 0])
    e = 2.0 * (np.float64(k + 8) * U) * b + 2.0 * (BLOCK * U) * d
    mu = np.float64(n + LANES + 2) * U  # _certify_one's E is 2*mu*b + TINY
    return _certify_one(s, c, e / (2.0 * mu) * _SLACK, np.inf, n, mean, LANES)


_SHARED = ("lane_add", "_certify_one")
_HELPERS = ("_pow2",)


def build() -> dict[str, Any]:
    """Compile the helpers (the shared ones as :mod:`.compensated` compiled them),
    then the kernel (called once by ``kernels``)."""
    kernels("compensated")
    from . import compensated

    bind(globals(), _SHARED, {name: getattr(compensated, name) for name in _SHARED})
    bind(globals(), _HELPERS)
    return {"extract_one_kernel": jit(nogil=True)(extract_one_kernel)}


register("extract_sum", build)
