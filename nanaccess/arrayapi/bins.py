"""Exact sums of float64 data on the device, as per-exponent integer bins.

Every finite binary64 ``v`` is ``m * 2**(max(e, 1) - 1075)`` with biased exponent
``e`` and integer mantissa ``0 <= m < 2**53``, so ``v * 2**1074 = m * 2**sh`` with
``sh = max(e, 1) - 1`` in ``[0, 2045]``. The device adds the mantissas, cut into a
high and a low 26-bit half, per (row, ``sh``) bin in int64 (exact for rows shorter
than ``2**36``); the host turns the few thousand bins into one Python int per row,
``sum((hi * 2**26 + lo) * 2**sh)``: the exact ``sum(v) * 2**1074`` that
:class:`nanaccess.core.exactsum.ExactPartials` holds, which the NumPy core then
rounds once. Infinities and NaNs fall outside the bins (the caller flags them).

Two device engines give the same integers: a portable one in standard operations
(sort the bin keys, cumulative sums, read the segment ends) and, for CuPy, a CUDA
kernel with per-block shared-memory bins (:mod:`._cupy_bins`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core.bits import layout_of
from ._shim import bits_view, from_numpy, library, np_dtype, to_numpy

__all__ = ["exact_ints", "summarize", "Summary", "NBINS", "last_engine"]

NBINS = 2048
_M52 = (1 << 52) - 1
_HALF = 26
_LOW = (1 << _HALF) - 1
#: which engine answered the last call ("cupy-kernel" or "portable"), for benchmarks
_LAST = ["portable"]


def last_engine() -> str:
    """The engine of the last :func:`exact_ints` call."""
    return _LAST[0]


def _portable(bits: Any, xp: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(bin key = row * NBINS + sh, hi sum, lo sum) of the nonempty bins, NumPy."""
    rows, n = bits.shape
    e = (bits >> 52) & 0x7FF
    m = (bits & _M52) | (xp.astype(e > 0, bits.dtype) << 52)
    m = xp.where(e == 0x7FF, xp.zeros_like(m), m)  # infinities and NaNs: not summed
    sh = xp.where(e > 0, e - 1, xp.zeros_like(e))
    neg = bits < 0
    hi, lo = m >> _HALF, m & _LOW
    hi = xp.reshape(xp.where(neg, -hi, hi), (-1,))
    lo = xp.reshape(xp.where(neg, -lo, lo), (-1,))
    row = from_numpy(np.arange(rows, dtype=np.int64)[:, None] * NBINS, like=bits)
    key = xp.reshape(row + sh, (-1,))
    order = xp.argsort(key)
    ks = xp.take(key, order, axis=0)
    hs = xp.cumulative_sum(xp.take(hi, order, axis=0))
    ls = xp.cumulative_sum(xp.take(lo, order, axis=0))
    ends = xp.nonzero(ks[1:] != ks[:-1])[0]
    last = from_numpy(np.array([rows * n - 1], np.int64), like=bits)
    ends = xp.concat([xp.astype(ends, xp.int64), last])
    k, h, low = (to_numpy(xp.take(a, ends, axis=0)).astype(np.int64) for a in (ks, hs, ls))
    return k, np.diff(h, prepend=0), np.diff(low, prepend=0)


@dataclass
class Summary:
    """One pass over ``(rows, n)`` float data: ``s``, per row the exact sum of the
    finite values times ``2**1074`` (Python ints); NumPy per-row ``nnan`` (NaNs),
    ``nsig`` (signaling NaNs), ``posinf`` / ``neginf`` (an infinity of that sign is
    there) and ``negzero`` (every non-NaN value is ``-0.0``; true for none)."""

    s: list[int]
    nnan: np.ndarray
    nsig: np.ndarray
    posinf: np.ndarray
    neginf: np.ndarray
    negzero: np.ndarray


def summarize(x2: Any, xp: Any) -> Summary:
    """:class:`Summary` of float32/float64 rows ``x2`` (device): the CUDA kernel for
    CuPy (one pass), standard operations elsewhere."""
    dtype = np_dtype(x2)
    lay = layout_of(dtype)
    bits = bits_view(x2, xp)
    if library(x2) == "cupy" and x2.shape[0] * x2.shape[1]:
        from ._cupy_bins import cupy_summary

        got = cupy_summary(bits)
        if got is not None:
            _LAST[0] = "cupy-kernel"
            (keys, hi, lo), f = got
            return Summary(_assemble(keys, hi, lo, x2.shape[0]), f[:, 0], f[:, 1],
                           f[:, 2] > 0, f[:, 3] > 0, f[:, 4] == 0)
    nan = xp.isnan(x2)
    nnan = to_numpy(xp.count_nonzero(nan, axis=1)).astype(np.int64)
    nsig = np.zeros_like(nnan)
    if nnan.any():
        nsig = to_numpy(xp.count_nonzero(nan & ((bits & lay.quiet_bit) == 0),
                                         axis=1)).astype(np.int64)
        x2 = xp.where(nan, xp.zeros_like(x2), x2)  # no NaN is cast or summed
    x64 = x2 if dtype == np.float64 else xp.astype(x2, xp.float64)
    b64 = bits_view(x64, xp)
    posinf = to_numpy(xp.any(x64 == np.inf, axis=1)).astype(bool)
    neginf = to_numpy(xp.any(x64 == -np.inf, axis=1)).astype(bool)
    negzero = to_numpy(xp.all((b64 == -(1 << 63)) | nan, axis=1)).astype(bool)
    return Summary(exact_ints(b64, xp), nnan, nsig, posinf, neginf, negzero)


def _assemble(keys: np.ndarray, hi: np.ndarray, lo: np.ndarray, rows: int) -> list[int]:
    out = [0] * rows
    for k, h, low in zip(keys.tolist(), hi.tolist(), lo.tolist(), strict=True):
        if h or low:
            r, sh = divmod(k, NBINS)
            out[r] += ((h << _HALF) + low) << sh
    return out


def exact_ints(bits: Any, xp: Any) -> list[int]:
    """Per row of ``bits`` ((rows, n) int64 bit patterns of float64 data, device),
    the exact sum of its finite values times ``2**1074``, as Python ints."""
    rows, n = bits.shape
    if rows * n == 0:
        return [0] * rows
    got = None
    if library(bits) == "cupy":
        from ._cupy_bins import cupy_summary

        got = cupy_summary(bits)
    if got is None:
        keys, hi, lo = _portable(bits, xp)
        _LAST[0] = "portable"
    else:
        (keys, hi, lo), _ = got
        _LAST[0] = "cupy-kernel"
    return _assemble(keys, hi, lo, rows)
