"""Selection keys of the dask selection: a uint64 per element whose order is the
policy's order (totalOrder keys of :mod:`nanaccess.core.keys`, made unsigned)."""

from __future__ import annotations

import numpy as np

from ..core.chunked import (
    RULES,
    float_keys,
    integer_keys,
    keys_to_float,
    layout_of,
    remap_keys,
    unmap_keys,
)
from ..options import NanPolicy

__all__ = ["key_width", "ukeys", "from_ukeys"]

_U63 = np.uint64(1 << 63)


def key_width(dtype: np.dtype) -> int:
    """Bits of the selection keys of ``dtype`` (the radix passes cover them all)."""
    kind = dtype.kind
    if kind == "f":
        return layout_of(dtype).bits
    if kind in "mM":
        return 64
    if kind in "biu":
        return integer_keys(np.zeros(0, dtype=dtype)).dtype.itemsize * 8
    raise TypeError(f"no exact dask selection for dtype {dtype}")


def ukeys(b: np.ndarray, policy: NanPolicy) -> np.ndarray:
    """uint64 keys in ``[0, 2**w)`` whose order is ``policy``'s order of ``b``.

    Under "omit", "raise" and "propagate" every NaN maps to the top key (those
    elements are never selected: omit ranks stay below the valid count, raise has
    none, propagate overrides the row). NaT (missing) maps to the top key always.
    """
    kind = b.dtype.kind
    if kind == "f":
        lay = layout_of(b.dtype)
        k = float_keys(b)
        k = remap_keys(k, b.dtype, policy)
        w = lay.bits
        if w == 64:
            u = k.view(np.uint64) ^ _U63
        else:
            u = (k.astype(np.int64) + (1 << (w - 1))).astype(np.uint64)
        if not RULES[policy].orders_nans:
            nan = np.isnan(b)
            if nan.any():
                u[nan] = np.uint64((1 << w) - 1)
        return u
    if kind in "mM":
        k = np.ascontiguousarray(b).view(np.int64)
        # NaT (INT64_MIN) -> 2**64 - 1, every other value keeps its order below it
        return k.view(np.uint64) - np.uint64((1 << 63) + 1)
    k = integer_keys(b)
    w = k.dtype.itemsize * 8
    if w == 64:
        return k.view(np.uint64) ^ _U63
    return (k.astype(np.int64) + (1 << (w - 1))).astype(np.uint64)


def from_ukeys(u: np.ndarray, dtype: np.dtype, policy: NanPolicy) -> np.ndarray:
    """Invert :func:`ukeys` (exact bits; NaNs collapsed by omit/raise/propagate excepted)."""
    u = np.asarray(u, dtype=np.uint64)
    kind = dtype.kind
    if kind == "f":
        lay = layout_of(dtype)
        w = lay.bits
        if w == 64:
            k = (u ^ _U63).view(np.int64)
        else:
            k = (u.astype(np.int64) - (1 << (w - 1))).astype(lay.int_dtype)
        k = unmap_keys(np.array(k, dtype=lay.int_dtype), dtype, policy)
        return keys_to_float(k, dtype).astype(dtype.newbyteorder("="))
    if kind in "mM":
        k = (u + np.uint64((1 << 63) + 1)).view(np.int64)
        return k.view(dtype.newbyteorder("="))
    w = key_width(dtype)
    if w == 64:
        k = (u ^ _U63).view(np.int64)
    else:
        k = u.astype(np.int64) - (1 << (w - 1))
    if dtype.kind == "u" and dtype.itemsize == 8:
        return (k ^ np.int64(-(1 << 63))).view(np.uint64).astype(dtype.newbyteorder("="))
    return k.astype(dtype.newbyteorder("="))
