"""The NaN/missing tally of a dask array, reduced as a tree and raised at compute time.

Each block gives a :class:`nanaccess.core.policy.NanTally` (counts and first global
C-order positions of signaling NaNs, NaNs and missing values) in its six-int array
form; :meth:`NanTally.merge_arrays` is the tree-reduction step and
:func:`nanaccess.core.policy.raise_for` raises from the merged record inside the
tasks, i.e. when the result is computed, with the same count and first position as
the NumPy path. Native floats are scanned in place through their top 16 raw bits
(only infinities and NaNs are looked at), in cache-sized blocks with reused buffers.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import dask.array as da
import numpy as np

from ..core.chunked import RULES, NanTally, as_bits, layout_of, raise_for
from ..errors import NaNError
from ..options import NanPolicy
from .typed_dask import map_blocks, rechunk, reduction

__all__ = ["global_info", "merge_tally", "globalize", "raise_from_info", "needs_check",
           "policy_check"]

# Worker processes of dask.distributed run with MALLOC_TRIM_THRESHOLD_ set, so every
# large temporary array is fresh memory whose page faults cost more than the arithmetic.
# The fast paths therefore read the top 16 raw bits of each float in place (a strided
# uint16 view) and scan in cache-sized blocks with reused small buffers.
_SCAN = 1 << 15  # elements per block of the in-place scans


def needs_check(dtype: np.dtype, policy: NanPolicy) -> bool:
    """Whether data of ``dtype`` can make ``policy`` raise (a check is worth building)."""
    return dtype.kind in "fmM" and bool(RULES[policy].refused)


def raw16(b: np.ndarray) -> np.ndarray | None:
    """The top 16 raw bits of every element of a float block, as a uint16 view (C order).

    None when no such view exists (not a native, C-contiguous float16/32/64 block).
    """
    if (b.dtype.kind != "f" or not b.dtype.isnative or not b.flags.c_contiguous
            or b.dtype.itemsize not in (2, 4, 8) or sys.byteorder != "little"):
        return None
    k = b.dtype.itemsize // 2
    flat = b.reshape(-1).view(np.uint16)
    return flat if k == 1 else flat[k - 1::k]


def scan_eq(raw: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Flat positions (ascending) where ``raw`` (uint16) takes one of ``values``."""
    values = np.unique(np.asarray(values, dtype=np.uint16))
    n = raw.size
    out: list[np.ndarray] = []
    if values.size == 0 or n == 0:
        return np.zeros(0, np.intp)
    few = values.size <= 4
    blk = min(_SCAN, n) if few else min(1 << 13, n)
    buf = np.empty(blk, dtype=bool)
    tmp = np.empty(blk, dtype=bool)
    tbl = None
    if not few:
        tbl = np.zeros(1 << 16, dtype=bool)
        tbl[values] = True
    for c0 in range(0, n, blk):
        part = raw[c0:c0 + blk]
        m = buf[:part.size]
        if few:
            np.equal(part, values[0], out=m)
            for v in values[1:]:
                np.equal(part, v, out=tmp[:part.size])
                m |= tmp[:part.size]
        else:
            np.take(tbl, part, out=m)
        nz = np.flatnonzero(m)
        if nz.size:
            out.append(nz + c0)
    return np.concatenate(out) if out else np.zeros(0, np.intp)


def special16(dtype: np.dtype) -> tuple[np.ndarray, np.ndarray]:
    """(raw top-16 values with an all-ones exponent, those that hold only quiet NaNs)."""
    lay = layout_of(dtype)
    sh = lay.bits - 16
    e16 = lay.exp_mask >> sh
    q16 = (lay.exp_mask | lay.quiet_bit) >> sh
    v = np.arange(1 << 16, dtype=np.int64)
    return np.flatnonzero((v & e16) == e16), np.flatnonzero((v & q16) == q16)


def special_positions(raw: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """Flat positions of the infinities and NaNs of a block, from its top 16 raw bits."""
    lay = layout_of(dtype)
    e16 = np.uint16(lay.exp_mask >> (lay.bits - 16))
    n = raw.size
    blk = min(_SCAN, max(n, 1))
    a = np.empty(blk, dtype=np.uint16)
    m = np.empty(blk, dtype=bool)
    out: list[np.ndarray] = []
    for c0 in range(0, n, blk):
        part = raw[c0:c0 + blk]
        k = part.size
        np.bitwise_and(part, e16, out=a[:k])
        np.equal(a[:k], e16, out=m[:k])
        nz = np.flatnonzero(m[:k])
        if nz.size:
            out.append(nz + c0)
    return np.concatenate(out) if out else np.zeros(0, np.intp)


def signaling_mask(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(NaN mask, signaling-NaN mask) of a float array."""
    nan = np.isnan(values)
    lay = layout_of(values.dtype)
    return nan, nan & ((as_bits(values) & lay.int_dtype.type(lay.quiet_bit)) == 0)


def block_tally(b: np.ndarray) -> NanTally:
    """The :class:`NanTally` of one block, positions flat (C order) within it."""
    if not b.size:
        return NanTally()
    raw = raw16(b) if b.dtype.kind == "f" else None
    if raw is not None:  # only the infinities and NaNs are looked at
        pos = special_positions(raw, b.dtype)
        nan, sig = signaling_mask(b.reshape(-1)[pos])
        hit, shit = pos[nan], pos[sig]
        return NanTally(int(shit.size), int(shit[0]) if shit.size else None,
                        int(hit.size), int(hit[0]) if hit.size else None)
    if b.dtype.kind == "f":
        nan, sig = signaling_mask(b)
        return NanTally.from_masks(nan=nan, signaling=sig)
    if b.dtype.kind in "mM":
        return NanTally.from_masks(missing=np.isnat(b))
    return NanTally()


def globalize(t: NanTally, block_shape: tuple[int, ...],
              block_info: dict[Any, Any] | None) -> NanTally:
    """A block's tally with its first positions made global (C order over the array
    whose ``block_info`` dask passed to the block's function)."""
    if t.first_signaling is None and t.first_nan is None and t.first_missing is None:
        return t
    starts = [lo for lo, _ in block_info[0]["array-location"]]
    shape = block_info[0]["shape"]

    def glob(p: int | None) -> int | None:
        if p is None or not shape:
            return None if p is None else 0
        local = np.unravel_index(p, block_shape)
        return int(np.ravel_multi_index(
            tuple(int(i) + s for i, s in zip(local, starts, strict=True)), shape))

    return NanTally(t.signaling, glob(t.first_signaling), t.nan, glob(t.first_nan),
                    t.missing, glob(t.first_missing))


def _info_block(b: np.ndarray, block_info: dict[Any, Any] | None = None) -> np.ndarray:
    """The six-int tally of one block, positions global (C order over the array)."""
    t = globalize(block_tally(b), b.shape, block_info)
    return t.as_array().reshape((1,) * b.ndim + (6,))


def merge_tally(b: np.ndarray, axis: Any = None, keepdims: Any = True) -> np.ndarray:
    """Tree step: merge the tallies of a group of blocks (the last axis holds them)."""
    b = np.asarray(b, dtype=np.int64)
    flat = b.reshape(-1, 6)
    out = NanTally.merge_arrays(flat, axis=0) if flat.shape[0] else NanTally().as_array()
    return out.reshape((1,) * (b.ndim - 1) + (6,)) if keepdims else out


def global_info(x: da.Array) -> da.Array:
    """A one-chunk (6,) int64 dask array: the :class:`NanTally` of all of ``x``."""
    nd = x.ndim
    info = map_blocks(
        _info_block,
        x,
        chunks=tuple((1,) * n for n in x.numblocks) + ((6,),),
        new_axis=nd,
        dtype=np.int64,
        meta=np.empty((0,) * (nd + 1), dtype=np.int64),
    )
    return reduction(info, merge_tally, merge_tally, combine=merge_tally, axis=tuple(range(nd)),
                        keepdims=False, dtype=np.int64, concatenate=True,
                        meta=np.empty((0,), np.int64))


def policy_check(x: da.Array, policy: NanPolicy, check: da.Array | None) -> da.Array | None:
    """What the result's tasks raise from: the caller's ``check`` (a one-chunk array
    whose own task checks), else :func:`global_info` when ``policy`` can raise."""
    if check is not None:
        return rechunk(check, -1) if check.ndim else check[None]
    return global_info(x) if needs_check(x.dtype, policy) else None


def raise_from_info(
    info: np.ndarray | None,
    policy: NanPolicy,
    shape: tuple[int, ...],
    relabel: Callable[[NaNError], NaNError] | None,
) -> None:
    """Raise what ``policy`` raises for a merged tally (``relabel`` names the data)."""
    if info is None:
        return
    info = np.asarray(info).ravel()
    if info.dtype == bool:  # a plain dependency whose own task did the checking
        return
    try:
        raise_for(NanTally.from_array(info), policy, shape=shape)
    except NaNError as err:
        if relabel is None:
            raise
        raise relabel(err) from None
