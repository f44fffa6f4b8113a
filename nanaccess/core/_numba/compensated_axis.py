"""Certified sums, means and variances along one axis of gridded data, in place.

The data are seen as a C-order ``(outer, n, inner)`` array (any C- or F-contiguous
array reduced over one axis, or over a run of neighbouring axes, is such a view):
each of the ``outer * inner`` cells reduces ``n`` values ``inner`` apart. The cells are
the vector lanes: a tile of ``tile`` neighbouring cells keeps its accumulators in L1
while the ``n`` rows of the tile stream past (contiguous runs of ``tile`` values), so
the data are read once, in order, with no transposed copy and no Python per cell.

Per cell the accumulators are those of :mod:`.compensated` (Sum2 of ``x``: ``s, c,
b``; the smallest nonzero magnitude ``y``; the count and NaN flags) and, for the
variance, those of :mod:`.compensated_var` (Sum2 of ``x*x`` by TwoProduct). NaNs are
skipped in the same pass (added as ``-0.0``, the exact identity of IEEE addition, and
counted out; the signaling NaNs are counted from the data's own bits, so float32
ones are seen before any widening). ``s`` starts at ``-0.0`` too: a cell of
zeros then sums to ``-0.0`` exactly when every value is ``-0.0``, as IEEE addition.

The certification is the one of :func:`.compensated._certify_one` and
:func:`.compensated_var._certify_var` with no lane term (each cell is one lane of
``n`` values, ``K <= n`` errors). Cells settled without them: no value (count 0: sum
``+0.0``, mean and variance the canonical NaN) and only zeros (sum and mean the
signed zero above, variance ``+0.0``). Everything else not certified (ties the bound
cannot settle, heavy cancellation, infinities, subnormal results) has ``ok`` False and
is left to the exact engine by the caller. Family ``"compensated_axis"``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import bind, jit, kernels, register
from .compensated import LANES, _certify_one
from .compensated import lane_add as _lane_add
from .compensated_var import _certify_var, _var_add

__all__ = ["build", "TILE"]

#: cells per tile: eight float64 accumulators of 128 cells stay in L1 (8 KiB)
TILE = 128
_CANONICAL_NAN = np.uint64(0x7FF8000000000000).view(np.float64)


def _tile_sum(x: np.ndarray, bits: np.ndarray, absmask: Any, slo: Any, span: Any, o: Any, j0: Any,
              w: Any, acc: np.ndarray) -> Any:  # pragma: no cover - compiled
    """Sum2 accumulators of the cells ``j0 .. j0 + w`` of slab ``o`` into the rows of
    ``acc`` (s, c, b, y, count; NaNs skipped); returns how many signaling NaNs it
    met (``bits & absmask`` in ``[slo, slo + span)``: integer lanes beside the float
    ones, so the loop stays one vector loop)."""
    n = x.shape[1]
    s = acc[0]
    c = acc[1]
    b = acc[2]
    y = acc[3]
    cnt = acc[4]
    for j in range(w):
        s[j] = -0.0
        c[j] = 0.0
        b[j] = 0.0
        y[j] = np.inf
        cnt[j] = 0.0
    sig = 0
    for i in range(n):
        xr = x[o, i, j0:j0 + w]
        br = bits[o, i, j0:j0 + w]
        for j in range(w):
            v = np.float64(xr[j])
            isn = v != v
            sig += ((br[j] & absmask) - slo) < span
            v = -0.0 if isn else v
            sj = s[j]
            t = sj + v
            z = t - sj
            e = (sj - (t - z)) + (v - z)
            s[j] = t
            c[j] += e
            b[j] += abs(e)
            y[j] = min(y[j], abs(v) if v != 0.0 else np.inf)
            cnt[j] += 0.0 if isn else 1.0
    return sig


def _tile_var(x: np.ndarray, bits: np.ndarray, absmask: Any, slo: Any, span: Any, o: Any, j0: Any,
              w: Any, acc: np.ndarray) -> Any:  # pragma: no cover - compiled
    """:func:`_tile_sum` plus the Sum2 of the squares (TwoProduct) in ``acc[5:8]``."""
    n = x.shape[1]
    s = acc[0]
    c = acc[1]
    b = acc[2]
    y = acc[3]
    cnt = acc[4]
    qs = acc[5]
    qc = acc[6]
    qb = acc[7]
    for j in range(w):
        s[j] = -0.0
        c[j] = 0.0
        b[j] = 0.0
        y[j] = np.inf
        cnt[j] = 0.0
        qs[j] = 0.0
        qc[j] = 0.0
        qb[j] = 0.0
    sig = 0
    for i in range(n):
        xr = x[o, i, j0:j0 + w]
        br = bits[o, i, j0:j0 + w]
        for j in range(w):
            v = np.float64(xr[j])
            isn = v != v
            sig += ((br[j] & absmask) - slo) < span
            v = -0.0 if isn else v
            s[j], c[j], b[j], qs[j], qc[j], qb[j] = _var_add(
                s[j], c[j], b[j], qs[j], qc[j], qb[j], v)
            y[j] = min(y[j], abs(v) if v != 0.0 else np.inf)
            cnt[j] += 0.0 if isn else 1.0
    return sig


def _settle(s: Any, k: Any, has: Any, ddof: Any, stat: Any) -> Any:  # pragma: no cover - compiled
    """(value, settled) of a cell with no nonzero value: ``k`` values, ``has`` False
    when ``s`` is not a zero (an infinity or overflow: the exact engine's)."""
    if k == 0:
        return (0.0 if stat == 0 else _CANONICAL_NAN), True
    if not has:
        return 0.0, False
    if stat == 0 or stat == 1:
        return s, True  # -0.0 only when every value is -0.0
    if k - ddof <= 0:
        return _CANONICAL_NAN, True
    return 0.0, True


def axis_kernel(x: np.ndarray, bits: Any, absmask: Any, slo: Any, span: Any, stat: Any, ddof: Any,
                tile: Any, out: np.ndarray, ok: np.ndarray, counts: np.ndarray) -> Any:
    # pragma: no cover - compiled
    """Certified ``stat`` (0 sum, 1 mean, 2 variance with integer ``ddof``) of every
    cell of the C-order ``(outer, n, inner)`` float32/64 array ``x`` over its middle
    axis, NaNs skipped (``bits``: ``x``'s unsigned view; a signaling NaN is
    ``bits & absmask`` in ``[slo, slo + span)``); ``out, ok, counts`` of shape
    ``(outer, inner)``. Returns how many signaling NaNs there are."""
    outer, n, inner = x.shape
    acc = np.empty((8, tile))
    sig = 0
    for o in range(outer):
        for j0 in range(0, inner, tile):
            w = min(tile, inner - j0)
            if stat == 2:
                sig += _tile_var(x, bits, absmask, slo, span, o, j0, w, acc)
            else:
                sig += _tile_sum(x, bits, absmask, slo, span, o, j0, w, acc)
            for j in range(w):
                k = np.int64(acc[4, j])
                s = acc[0, j]
                c = acc[1, j]
                counts[o, j0 + j] = k
                if not (acc[3, j] < np.inf):
                    out[o, j0 + j], ok[o, j0 + j] = _settle(s, k, s == 0.0 and c == 0.0,
                                                            ddof, stat)
                elif stat == 2:
                    out[o, j0 + j], ok[o, j0 + j] = _certify_var(
                        s, c, acc[2, j], acc[5, j], acc[6, j], acc[7, j], k, ddof, 0)
                else:
                    out[o, j0 + j], ok[o, j0 + j] = _certify_one(
                        s, c, acc[2, j], acc[3, j], k, stat == 1, 0)
    return sig


def _lanes_sum(x: np.ndarray, bits: np.ndarray, absmask: Any, slo: Any, span: Any, r: Any,
               s: np.ndarray, c: np.ndarray, b: np.ndarray, y: np.ndarray, cnt: np.ndarray) -> Any:
    # pragma: no cover - compiled
    """Row ``r`` of the C-order ``(rows, n)`` array ``x`` into ``LANES`` Sum2 lanes
    (zeroed here; ``s`` starts at ``-0.0`` and NaNs are added as ``-0.0``, as in the
    tiled kernel); returns how many signaling NaNs it met."""
    n = x.shape[1]
    for j in range(LANES):
        s[j] = -0.0
        c[j] = 0.0
        b[j] = 0.0
        y[j] = np.inf
        cnt[j] = 0.0
    sig = 0
    full = n - n % LANES
    for i in range(0, full, LANES):
        for j in range(LANES):
            v = np.float64(x[r, i + j])
            isn = v != v
            sig += ((bits[r, i + j] & absmask) - slo) < span
            v = -0.0 if isn else v
            s[j], c[j], b[j] = _lane_add(s[j], c[j], b[j], v)
            y[j] = min(y[j], abs(v) if v != 0.0 else np.inf)
            cnt[j] += 0.0 if isn else 1.0
    for i in range(full, n):
        j = i - full
        v = np.float64(x[r, i])
        isn = v != v
        sig += ((bits[r, i] & absmask) - slo) < span
        v = -0.0 if isn else v
        s[j], c[j], b[j] = _lane_add(s[j], c[j], b[j], v)
        y[j] = min(y[j], abs(v) if v != 0.0 else np.inf)
        cnt[j] += 0.0 if isn else 1.0
    return sig


def _lanes_var(x: np.ndarray, bits: np.ndarray, absmask: Any, slo: Any, span: Any, r: Any,
               s: np.ndarray, c: np.ndarray, b: np.ndarray, y: np.ndarray, cnt: np.ndarray,
               qs: np.ndarray, qc: np.ndarray, qb: np.ndarray) -> Any:
    # pragma: no cover - compiled
    """:func:`_lanes_sum` plus the Sum2 lanes of the squares."""
    n = x.shape[1]
    for j in range(LANES):
        s[j] = -0.0
        c[j] = 0.0
        b[j] = 0.0
        y[j] = np.inf
        cnt[j] = 0.0
        qs[j] = 0.0
        qc[j] = 0.0
        qb[j] = 0.0
    sig = 0
    full = n - n % LANES
    for i in range(0, full, LANES):
        for j in range(LANES):
            v = np.float64(x[r, i + j])
            isn = v != v
            sig += ((bits[r, i + j] & absmask) - slo) < span
            v = -0.0 if isn else v
            s[j], c[j], b[j], qs[j], qc[j], qb[j] = _var_add(
                s[j], c[j], b[j], qs[j], qc[j], qb[j], v)
            y[j] = min(y[j], abs(v) if v != 0.0 else np.inf)
            cnt[j] += 0.0 if isn else 1.0
    for i in range(full, n):
        j = i - full
        v = np.float64(x[r, i])
        isn = v != v
        sig += ((bits[r, i] & absmask) - slo) < span
        v = -0.0 if isn else v
        s[j], c[j], b[j], qs[j], qc[j], qb[j] = _var_add(
            s[j], c[j], b[j], qs[j], qc[j], qb[j], v)
        y[j] = min(y[j], abs(v) if v != 0.0 else np.inf)
        cnt[j] += 0.0 if isn else 1.0
    return sig


def rows_kernel(x: np.ndarray, bits: Any, absmask: Any, slo: Any, span: Any, stat: Any, ddof: Any,
                out: np.ndarray, ok: np.ndarray, counts: np.ndarray) -> Any:
    # pragma: no cover - compiled
    """:func:`axis_kernel` for ``inner == 1``: each row of the C-order ``(rows, n)``
    array ``x`` is one cell, summed in ``LANES`` lanes combined by TwoSum (so ``K <= n
    + LANES`` errors); cells of NaNs or zeros only are settled as there."""
    s = np.empty(LANES)
    c = np.empty(LANES)
    b = np.empty(LANES)
    y = np.empty(LANES)
    cnt = np.empty(LANES)
    qs = np.empty(LANES)
    qc = np.empty(LANES)
    qb = np.empty(LANES)
    sig = 0
    var = stat == 2
    for r in range(x.shape[0]):
        if var:
            sig += _lanes_var(x, bits, absmask, slo, span, r, s, c, b, y, cnt, qs, qc, qb)
        else:
            sig += _lanes_sum(x, bits, absmask, slo, span, r, s, c, b, y, cnt)
        ts = s[0]
        tc = c[0]
        tb = b[0]
        ty = y[0]
        k = cnt[0]
        us = qs[0]
        uc = qc[0]
        ub = qb[0]
        for j in range(1, LANES):
            ts, tc, tb = _lane_add(ts, tc + c[j], tb + b[j], s[j])
            if var:
                us, uc, ub = _lane_add(us, uc + qc[j], ub + qb[j], qs[j])
            ty = min(ty, y[j])
            k += cnt[j]
        kn = np.int64(k)
        counts[r] = kn
        if not (ty < np.inf):
            out[r], ok[r] = _settle(ts, kn, ts == 0.0 and tc == 0.0, ddof, stat)
        elif var:
            out[r], ok[r] = _certify_var(ts, tc, tb, us, uc, ub, kn, ddof, LANES)
        else:
            out[r], ok[r] = _certify_one(ts, tc, tb, ty, kn, stat == 1, LANES)
    return sig


_FROM_SUM = ("_certify_one", "_lane_add")
_FROM_VAR = ("_var_add", "_certify_var")
_HELPERS = ("_tile_sum", "_tile_var", "_settle", "_lanes_sum", "_lanes_var")


def build() -> dict[str, Any]:
    """Compile the helpers (the shared ones as their families compiled them), then
    the kernels (called once by ``kernels``)."""
    kernels("compensated_var")
    from . import compensated, compensated_var

    bind(globals(), _FROM_SUM, {"_certify_one": compensated._certify_one,
                                "_lane_add": compensated.lane_add})
    bind(globals(), _FROM_VAR, {name: getattr(compensated_var, name) for name in _FROM_VAR})
    bind(globals(), _HELPERS)
    return {"axis_kernel": jit(nogil=True)(axis_kernel),
            "rows_kernel": jit(nogil=True)(rows_kernel)}


register("compensated_axis", build)
