"""Order statistics of contiguous segments (resample / coarsen blocks) by selection.

Segment ``g`` holds ``x[off[g]:off[g + 1]]``. Its taking-part keys (the float's
totalOrder keys made from its bits, NaNs taking no rank: the fused engine's contract,
see :mod:`.window_fused`) are gathered into a buffer and each planned rank is found by
the shared introselect of :mod:`.sorting` (expected O(length), O(m log m) at worst),
the next rank as the least key above it; the midpoint / lerp are
:mod:`.window_fused`'s, so a segment gives the bits of the same window on the sliding
kernels. No sort and no heap: O(n) for all segments.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import bind, jit, kernels, register
from .sorting import select_kth  # noqa: F401 - kernel global (compiled: bound in build)
from .window_fused import MODE_MID, MODE_PICK, fused_args, nb_lerp, nb_mid

__all__ = ["segment_select"]


def _nb_segments(x: Any, bits: np.ndarray, sc: np.ndarray, scb: np.ndarray, imax: Any, expmask: Any,
                 quiet: Any, start: np.ndarray, end: np.ndarray, lo_t: np.ndarray, hi_t: np.ndarray,
                 w_t: np.ndarray, ft_t: np.ndarray,
                 mode: Any, nanv: Any, one: Any, half: Any, out: np.ndarray, cnt: np.ndarray,
                 buf: np.ndarray) -> Any:  # pragma: no cover - compiled
    """The planned statistic of every segment ``[start[g], end[g])`` of a float column
    (arguments and flags as :func:`.window_fused._nb_fused`; ``buf`` holds the widest
    segment)."""
    seen = 0
    nq = lo_t.shape[0]
    for g in range(start.shape[0]):
        m = 0
        for j in range(start[g], end[g]):
            b = np.int64(bits[j])
            if (b & imax) <= expmask:
                buf[m] = b ^ ((b >> 63) & imax)
                m += 1
            else:
                seen |= 1 if (b & quiet) != 0 else 3
        cnt[g] = m
        if m == 0:
            for t in range(nq):
                out[t, g] = nanv
            continue
        for t in range(nq):
            lo = lo_t[t, m]
            hi = hi_t[t, m]
            select_kth(buf, 0, m - 1, lo)
            ka = buf[lo]
            scb[0] = ka ^ ((ka >> 63) & imax)
            a = sc[0]
            if mode == MODE_PICK or hi == lo:
                out[t, g] = a
                continue
            if hi == lo + 1:  # the least key above rank lo is rank lo + 1
                kb = buf[lo + 1]
                for j in range(lo + 2, m):
                    kb = min(kb, buf[j])
            else:
                select_kth(buf, 0, m - 1, hi)
                kb = buf[hi]
            scb[1] = kb ^ ((kb >> 63) & imax)
            b = sc[1]
            if mode == MODE_MID:
                out[t, g] = nb_mid(a, b, half, nanv)
            else:
                out[t, g] = nb_lerp(a, b, w_t[t, m], ft_t[t, m], ft_t[nq + t, m], nanv)
    return seen


def _nb_segments_columns(x: np.ndarray, bits: np.ndarray, sc: Any, scb: Any, imax: Any,
                         expmask: Any, quiet: Any, start: Any, end: Any, lo_t: Any, hi_t: Any,
                         w_t: Any, ft_t: Any, mode: Any, nanv: Any, one: Any, half: Any,
                         out: np.ndarray, cnt: np.ndarray,
                         buf: Any) -> Any:  # pragma: no cover - compiled
    """:func:`_nb_segments` for every row of ``x`` ``(ncols, n)``."""
    seen = 0
    for c in range(x.shape[0]):
        seen |= _nb_segments(x[c], bits[c], sc, scb, imax, expmask, quiet, start, end, lo_t,
                             hi_t, w_t, ft_t, mode, nanv, one, half, out[:, c], cnt[c], buf)
    return seen


def build() -> dict[str, Any]:
    """Compile the segment kernel."""
    for name in ("nb_mid", "nb_lerp"):  # per output: inlined
        globals()[name] = jit(nogil=True, inline="always")(globals()[name])
    bind(globals(), ("select_kth",), kernels("sorting"))  # the shared selection
    bind(globals(), ("_nb_segments",))
    return {"segments": jit(nogil=True)(_nb_segments_columns)}


register("window_segments", build)


def segment_select(x: np.ndarray, start: np.ndarray, end: np.ndarray, lo_t: np.ndarray,
                   hi_t: np.ndarray, w_t: np.ndarray, mode: int, out: np.ndarray,
                   cnt: np.ndarray, *, compiled: bool = True) -> int:
    """:func:`.window_fused.fused_select` for disjoint segments (any order of the
    segments; ``out`` ``(nq, ncols, nseg)``), by selection; returns the NaN flags."""
    width = int(lo_t.shape[1]) - 1
    it = np.dtype(f"i{x.dtype.itemsize}")
    buf = np.empty(max(width, 1), np.int64)
    fn = kernels("window_segments")["segments"] if compiled else _nb_segments_columns
    return int(fn(x, x.view(it), *fused_args(x, start, end, lo_t, hi_t, w_t, mode), out,
                  cnt, buf))
