"""Exact sums, means and variances along the axes of gridded data, in place.

:func:`axis_moments` reduces one axis (or a run of neighbouring axes) of a C- or
F-contiguous float32/float64 array with the tiled kernel of
:mod:`nanaccess.core._numba.compensated_axis` (no transposed copy, NaNs found and
skipped in the same pass), then sends only the cells it could not certify to the
exact engine, as rows. float32 results are rounded once from the exact value
(:mod:`.narrow`).
"""

from __future__ import annotations

from math import prod
from typing import Any

import numpy as np

from ... import _stats
from .. import _numba as nb
from .certified import _count as count_certified
from .compiled import compiled_rows_skipnan
from .narrow import round_narrow

__all__ = ["axis_view", "axis_moments"]
_STAT_CODE = {"sum": 0, "mean": 1, "var": 2}
#: (|bits| mask, smallest signaling NaN, how many) per item size
_SIGNALING = {4: (np.uint32(0x7FFFFFFF), np.uint32(0x7F800001), np.uint32((1 << 22) - 1)),
              8: (np.uint64(0x7FFFFFFFFFFFFFFF), np.uint64(0x7FF0000000000001),
                  np.uint64((1 << 51) - 1))}


def axis_view(x: np.ndarray, axes: tuple[int, ...]) -> Any:
    """``(x3, flip)``: ``x`` as a C-order ``(outer, n, inner)`` view reducing ``axes``
    (``flip``: the view is of ``x.T``, so the cells come in reversed axis order), or
    None (the axes are not one run, or ``x`` is neither C- nor F-contiguous)."""
    nd = x.ndim
    if not axes or nd == 0 or list(axes) != list(range(axes[0], axes[-1] + 1)):
        return None
    if x.flags.c_contiguous:
        a, b, shape, flip = axes[0], axes[-1], x.shape, False
    elif x.flags.f_contiguous:
        a, b, shape, flip = nd - 1 - axes[-1], nd - 1 - axes[0], x.shape[::-1], True
        x = x.T
    else:
        return None
    outer, n, inner = prod(shape[:a]), prod(shape[a:b + 1]), prod(shape[b + 1:])
    return x.reshape(outer, n, inner), flip


def _cells(x3: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """The values of cells ``idx`` (flat over ``(outer, inner)``) as C-order rows."""
    o, j = np.divmod(idx, x3.shape[2])
    return np.ascontiguousarray(x3.transpose(0, 2, 1)[o, j])


def axis_moments(x: np.ndarray, axes: tuple[int, ...], out_shape: tuple[int, ...],
                 stat: str, ddof: float = 0) -> Any:
    """``stat`` (a sum, mean, variance or standard deviation) of the float32/64 array
    ``x`` over ``axes`` with NaNs left out, in ``x``'s dtype, flat in the C order of
    the kept axes; with the NaN flags: ``(values, any NaN, any signaling NaN)``. None
    when the engine does not serve the call (numba off, a layout or ``ddof`` it does
    not take): the caller's general path then runs. Cells side by side are the vector
    lanes of a tiled pass; a contiguous reduced axis is summed in lanes per row."""
    if x.dtype not in (np.float32, np.float64) or not x.dtype.isnative:
        return None
    kind = "var" if stat in _stats.SQUARES else "sum" if stat in _stats.SUMS else "mean"
    if kind not in _STAT_CODE or stat not in _stats.LINEAR | _stats.SQUARES:
        return None
    if kind == "var" and (float(ddof) != int(ddof) or abs(ddof) >= 1 << 31):
        return None
    view = axis_view(x, axes)
    if view is None and not (x.flags.c_contiguous or x.flags.f_contiguous):
        # a strided view (a dask chunk of a larger array, a slice): one C-order copy
        # costs far less than the general path's row-wise gathers
        view = axis_view(np.ascontiguousarray(x), axes)
    if view is None:
        return None
    x3, flip = view
    if x3.shape[1] == 0 or nb.choose_engine(size=x.size, min_size=65) != "numba":
        return None
    outer, n, inner = x3.shape
    vals = np.empty((outer, inner))
    ok = np.empty((outer, inner), dtype=bool)
    counts = np.empty((outer, inner), np.int64)
    bits = x3.view(f"u{x3.dtype.itemsize}")
    from .._numba.compensated_axis import TILE

    try:
        kern = nb.kernels("compensated_axis")
        if inner == 1:  # the reduced axis is contiguous: rows, in vector lanes
            sig = kern["rows_kernel"](x3[:, :, 0], bits[:, :, 0],
                                      *_SIGNALING[x3.dtype.itemsize], _STAT_CODE[kind],
                                      int(ddof), vals[:, 0], ok[:, 0], counts[:, 0])
        else:
            sig = kern["axis_kernel"](x3, bits, *_SIGNALING[x3.dtype.itemsize],
                                      _STAT_CODE[kind], int(ddof), TILE, vals, ok, counts)
    except Exception as err:  # numba failed: the NumPy engine, from now on
        nb.fallback(err)
        return None
    vals, ok = vals.ravel(), ok.ravel()
    count_certified(ok)
    if not ok.all():  # the exact engine takes the cells not certified, as rows
        bad = np.flatnonzero(~ok)
        rows = _cells(x3, bad)
        if rows.dtype != np.float64:
            rows = rows.astype(np.float64)  # NaNs are flagged already (no quieting lost)
        sub = compiled_rows_skipnan(rows, kind, ddof)
        if sub is None:
            return None
        vals[bad] = sub[0]
    if stat in _stats.ROOTS:
        with np.errstate(invalid="ignore"):
            vals = np.sqrt(vals)
    with np.errstate(over="ignore"):  # beyond the float32 range: an infinity
        out = vals.astype(x.dtype)
    if x.dtype != np.float64:
        out = round_narrow(vals, out, stat, ddof, lambda idx: _cells(x3, idx))
    if flip:  # cells of x.T: back to the C order of x's kept axes
        out = np.ascontiguousarray(out.reshape(out_shape[::-1]).T).ravel()
    return out, bool((counts < n).any()), sig > 0
