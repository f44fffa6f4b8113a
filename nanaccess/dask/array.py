"""Exact, lazy order and moment statistics on dask arrays.

Order statistics (median, quantile, min, max, ...) over reduced axes that span several
chunks use an exact radix selection on the totalOrder keys of
:mod:`nanaccess.core.keys`. The first pass counts (per row) the top 16 key bits of
every element; for native floats this reads the top 16 *raw* bits in place and maps
the 65536-bucket histogram to key order afterwards, so no key array is ever built. The
counts are summed by a tree reduction and the bucket holding each wanted rank is
found. A refinement pass then gathers, from every chunk, only the elements of the
wanted buckets (a small fraction for smooth data), computes their exact keys and
selects the rank among them (``np.partition``): two reads of the data in all. A
bucket holding more than ``_GATHER_LIMIT`` elements (heavily tied or skewed data) is
narrowed instead by a histogram of its next 16 key bits, pass after pass, so memory per
task stays bounded by a chunk. The final key is inverted to the element's exact bits,
and the value (interpolation, NaN propagation) follows the core's rules, so results
equal :func:`nanaccess.core.select.order_stat` bit for bit, with no rechunk, sort or
gather of the data.

Moment statistics (sum, mean, var, std, count) are a tree reduction
(:func:`dask.array.reduction`) of exact per-row partials
(:func:`nanaccess.core.exactsum.exact_partials`: the exact sum and sum of squares as
integers), merged by exact addition and rounded once, bit-identical to
:func:`nanaccess.core.moments.moment_stat`.

When every reduced axis already lies in one chunk, the core runs on each block
(``blockwise``). Policy errors ("raise", signaling NaNs) are checked by a small tree
reduction and raised inside the tasks, i.e. when the result is computed, with the
same count and first position as the NumPy path.
"""

from __future__ import annotations

import functools
import math
import sys
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

import dask.array as da
import numpy as np

from ..core.axes import normalize_axis
from ..core.bits import as_bits, layout_of
from ..core.keys import float_keys, integer_keys, keys_to_float, remap_keys, unmap_keys
from ..core.moments import result_dtype
from ..errors import NaNError, SignalingNaNError
from ..options import NanPolicy, resolve_policy

__all__ = ["dask_order_stat", "dask_moment_stat", "is_dask_array"]

ORDER_STATS = ("median", "median_low", "median_high", "quantile", "min", "max", "argmin", "argmax")
MOMENT_STATS = ("mean", "var", "std", "sum", "count")
_SELECT_STATS = ("median", "median_low", "median_high", "quantile", "min", "max")
_U63 = np.uint64(1 << 63)
_NO_POS = np.iinfo(np.int64).max


def is_dask_array(x: Any) -> bool:
    """True for a :class:`dask.array.Array`.

    Examples
    --------
    >>> import numpy as np, dask.array as da
    >>> is_dask_array(da.zeros(3)), is_dask_array(np.zeros(3))
    (True, False)
    """
    return isinstance(x, da.Array)


# ---------------------------------------------------------------------------------
# keys: a uint64 "selection key" per element whose order is the policy's order
# ---------------------------------------------------------------------------------


def _key_width(dtype: np.dtype) -> int:
    """Bits of the selection keys of ``dtype`` (the radix passes cover them all)."""
    kind = dtype.kind
    if kind == "f":
        return layout_of(dtype).bits
    if kind in "mM":
        return 64
    if kind in "biu":
        return integer_keys(np.zeros(0, dtype=dtype)).dtype.itemsize * 8
    raise TypeError(f"no exact dask selection for dtype {dtype}")


def _ukeys(b: np.ndarray, policy: NanPolicy) -> np.ndarray:
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
        if policy in (NanPolicy.OMIT, NanPolicy.RAISE, NanPolicy.PROPAGATE):
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


def _from_ukeys(u: np.ndarray, dtype: np.dtype, policy: NanPolicy) -> np.ndarray:
    """Invert :func:`_ukeys` (exact bits; NaNs collapsed by omit/raise/propagate excepted)."""
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
    w = _key_width(dtype)
    if w == 64:
        k = (u ^ _U63).view(np.int64)
    else:
        k = u.astype(np.int64) - (1 << (w - 1))
    if dtype.kind == "u" and dtype.itemsize == 8:
        return (k ^ np.int64(-(1 << 63))).view(np.uint64).astype(dtype.newbyteorder("="))
    return k.astype(dtype.newbyteorder("="))


# ---------------------------------------------------------------------------------
# policy checks, raised inside tasks (at compute time)
# ---------------------------------------------------------------------------------


def _may_hold_nan(dtype: np.dtype) -> bool:
    return dtype.kind in "fmM"


# Worker processes of dask.distributed run with MALLOC_TRIM_THRESHOLD_ set, so every
# large temporary array is fresh memory whose page faults cost more than the arithmetic.
# The fast paths below therefore read the top 16 raw bits of each float in place
# (a strided uint16 view) and scan in cache-sized blocks with reused small buffers.
_SCAN = 1 << 15  # elements per block of the in-place scans


def _raw16(b: np.ndarray) -> np.ndarray | None:
    """The top 16 raw bits of every element of a float block, as a uint16 view (C order).

    None when no such view exists (not a native, C-contiguous float16/32/64 block).
    """
    if (b.dtype.kind != "f" or not b.dtype.isnative or not b.flags.c_contiguous
            or b.dtype.itemsize not in (2, 4, 8) or sys.byteorder != "little"):
        return None
    k = b.dtype.itemsize // 2
    flat = b.reshape(-1).view(np.uint16)
    return flat if k == 1 else flat[k - 1::k]


def _scan_eq(raw: np.ndarray, values: np.ndarray) -> np.ndarray:
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


def _special16(dtype: np.dtype) -> tuple[np.ndarray, np.ndarray]:
    """(raw top-16 values with an all-ones exponent, those that hold only quiet NaNs)."""
    lay = layout_of(dtype)
    sh = lay.bits - 16
    e16 = lay.exp_mask >> sh
    q16 = (lay.exp_mask | lay.quiet_bit) >> sh
    v = np.arange(1 << 16, dtype=np.int64)
    return np.flatnonzero((v & e16) == e16), np.flatnonzero((v & q16) == q16)


def _special_positions(raw: np.ndarray, dtype: np.dtype) -> np.ndarray:
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


def _info_block(b: np.ndarray, block_info: dict | None = None) -> np.ndarray:
    """[n_signaling, first, n_nan, first, n_missing, first] of one block (global C index)."""
    out = np.array([0, _NO_POS, 0, _NO_POS, 0, _NO_POS], dtype=np.int64)
    if b.size:
        loc = block_info[0]["array-location"]
        shape = block_info[0]["shape"]
        starts = [lo for lo, _ in loc]
        raw = _raw16(b) if b.dtype.kind == "f" else None
        if raw is not None:  # only the infinities and NaNs are looked at
            pos = _special_positions(raw, b.dtype)
            vals = b.reshape(-1)[pos]
            lay = layout_of(b.dtype)
            nanm = np.isnan(vals)
            sigm = nanm & ((as_bits(vals) & lay.int_dtype.type(lay.quiet_bit)) == 0)
            for j, m in enumerate((sigm, nanm)):
                hit = pos[m]
                if hit.size:
                    local = np.unravel_index(hit[0], b.shape)
                    glob = tuple(int(i) + s0 for i, s0 in zip(local, starts, strict=True))
                    out[2 * j] = hit.size
                    out[2 * j + 1] = np.ravel_multi_index(glob, shape) if shape else 0
            return out.reshape((1,) * b.ndim + (6,))
        if b.dtype.kind == "f":
            nan = np.isnan(b)
            lay = layout_of(b.dtype)

            sig = nan & ((as_bits(b) & lay.int_dtype.type(lay.quiet_bit)) == 0)
            masks = (sig, nan, None)
        else:
            masks = (None, None, np.isnat(b))
        for j, m in enumerate(masks):
            if m is None:
                continue
            flat = np.flatnonzero(m.ravel())
            if flat.size:
                local = np.unravel_index(flat[0], b.shape)
                glob = tuple(int(i) + s for i, s in zip(local, starts, strict=True))
                out[2 * j] = flat.size
                out[2 * j + 1] = np.ravel_multi_index(glob, shape) if shape else 0
    return out.reshape((1,) * b.ndim + (6,))


def _global_info(x: da.Array) -> da.Array:
    """A one-chunk (6,) int64 dask array: counts and first positions over all of x."""
    nd = x.ndim
    info = da.map_blocks(
        _info_block,
        x,
        chunks=tuple((1,) * n for n in x.numblocks) + ((6,),),
        new_axis=nd,
        dtype=np.int64,
        meta=np.empty((0,) * (nd + 1), dtype=np.int64),
    )
    red = tuple(range(nd))
    counts = info[..., 0::2].sum(axis=red)
    firsts = info[..., 1::2].min(axis=red)
    return da.blockwise(_interleave, "i", counts, "i", firsts, "i", adjust_chunks={"i": 6},
                        dtype=np.int64, meta=np.empty((0,), np.int64))


def _interleave(counts: np.ndarray, firsts: np.ndarray) -> np.ndarray:
    return np.stack([counts, firsts], axis=1).reshape(6)


def _raise_from_info(
    info: np.ndarray | None,
    policy: NanPolicy,
    shape: tuple[int, ...],
    relabel: Callable[[NaNError], NaNError] | None,
) -> None:
    """Raise what the core's ``scan_rows`` raises for these global counts."""
    if info is None:
        return
    info = np.asarray(info).ravel()
    if info.dtype == bool:  # a plain dependency whose own task did the checking
        return
    nsig, fsig, nnan, fnan, nmiss, fmiss = (int(v) for v in info)

    def pos(flat: int) -> tuple[int, ...]:
        return tuple(int(i) for i in np.unravel_index(flat, shape)) if shape else ()

    err: NaNError | None = None
    if nnan and policy is not NanPolicy.TOTALORDER and nsig:
        err = SignalingNaNError(count=nsig, position=pos(fsig))
    elif policy is NanPolicy.RAISE and nnan:
        err = NaNError(count=nnan, kind="NaN", position=pos(fnan))
    elif policy is NanPolicy.RAISE and nmiss:
        err = NaNError(count=nmiss, kind="missing", position=pos(fmiss))
    if err is not None:
        if relabel is not None:
            err = relabel(err)
        raise err


# ---------------------------------------------------------------------------------
# ranks and final values, by the core's rules
# ---------------------------------------------------------------------------------


def _core_select():
    from ..core import select

    return select


def _rank_plan(stat: str, n: np.ndarray, q: np.ndarray | None, method: str):
    """(lo, hi) int64 ranks, each (nq, rows), for per-row counts ``n`` (as the core)."""
    from ..core.interp import quantile_positions

    n = np.asarray(n, dtype=np.int64)
    if stat == "min":
        lo = np.zeros((1,) + n.shape, np.int64)
        return lo, lo
    if stat == "max":
        hi = np.maximum(n - 1, 0)[None]
        return hi, hi
    if stat == "quantile":
        lo, hi, _t = quantile_positions(n, np.asarray(q, np.float64).ravel(), method)
        return np.asarray(lo, np.int64), np.asarray(hi, np.int64)
    mm = np.maximum(n, 1)
    lo, hi = ((mm - 1) // 2)[None], (mm // 2)[None]
    if stat == "median_low":
        return lo, lo
    if stat == "median_high":
        return hi, hi
    return lo, hi


def _finish_values(
    stat: str,
    lo_v: np.ndarray,
    hi_v: np.ndarray,
    n: np.ndarray,
    q: np.ndarray | None,
    method: str,
    dtype: np.dtype,
) -> np.ndarray:
    """Combine the values at the lo/hi ranks with the core's rules (core/interp.py)."""
    from ..core.interp import lerp, midpoint, quantile_positions
    from ..core.select import _PICK_METHODS

    if stat in ("min", "max", "median_low", "median_high"):
        return lo_v
    if stat == "quantile" and method in _PICK_METHODS:
        return lo_v
    lo, hi = _rank_plan(stat, n, q, method)
    if stat == "median":
        vals = midpoint(lo_v, hi_v)
        vals = np.where(lo == hi, lo_v.astype(vals.dtype), vals)
    else:
        _lo, _hi, t = quantile_positions(np.asarray(n, np.int64),
                                         np.asarray(q, np.float64).ravel(), method)
        vals = lerp(lo_v, hi_v, t)
    if dtype.kind not in "fmM":
        vals = vals.astype(np.float64)
    return vals


# ---------------------------------------------------------------------------------
# blockwise kernels of the selection
# ---------------------------------------------------------------------------------


def _rows(b: np.ndarray, kept: tuple[int, ...], axes: tuple[int, ...]) -> np.ndarray:
    moved = b.transpose(kept + axes)
    rows = int(np.prod([b.shape[a] for a in kept], dtype=np.int64))
    return np.ascontiguousarray(moved).reshape(rows, -1)


_TOP = 16  # bits of the key prefix the first pass histograms (and the fast path reads)
_GATHER_LIMIT = 1 << 21  # a bucket with at most this many keys is gathered and selected


def _fast_top(dtype: np.dtype, policy: NanPolicy) -> bool:
    """Whether the top key bits can be read from the raw float bits (no full keys)."""
    return (dtype.kind == "f" and dtype.isnative
            and policy not in (NanPolicy.SMALLEST, NanPolicy.LARGEST))


def _take(b: np.ndarray, kept, axes, r_idx: np.ndarray, c_idx: np.ndarray) -> np.ndarray:
    """Elements of ``b`` at (row, column) positions of its ``(rows, n)`` layout."""
    kshape = tuple(b.shape[a] for a in kept)
    ashape = tuple(b.shape[a] for a in axes)
    ki = np.unravel_index(r_idx, kshape) if kshape else ()
    ai = np.unravel_index(c_idx, ashape) if ashape else ()
    index: list[Any] = [None] * b.ndim
    for a, v in zip(kept, ki, strict=True):
        index[a] = v
    for a, v in zip(axes, ai, strict=True):
        index[a] = v
    return b[tuple(index)] if b.ndim else b.reshape(1)[c_idx]


def _nonzero2(m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.nonzero`` of a 2-D mask via one flat scan (faster for few hits)."""
    flat = np.flatnonzero(m)
    return np.divmod(flat, max(m.shape[1], 1))


class _BlockKeys:
    """The keys of one block in ``(rows, n)`` layout, computed as lazily as possible.

    ``top`` holds the top ``tb = min(16, w)`` bits of every selection key. On the fast
    path (native floats, not "smallest"/"largest") they come from the top 16 raw bits
    alone, a quarter of the work of full keys; only elements next to the infinities
    (where NaNs live) get their exact keys. ``keys(r, c)`` gives full keys of a few.
    """

    def __init__(self, b: np.ndarray, kept, axes, policy: NanPolicy, w: int) -> None:
        self.b, self.kept, self.axes, self.policy, self.w = b, kept, axes, policy, w
        self.tb = min(_TOP, w)
        self.full = None
        if _fast_top(b.dtype, policy):
            lay = layout_of(b.dtype)
            raw = as_bits(b)
            k = b.dtype.itemsize // 2
            if k == 1:
                t16 = raw.view(np.uint16)
            elif sys.byteorder == "little" and b.ndim and b.flags.c_contiguous:
                t16 = raw.view(np.uint16)[..., k - 1::k]
            else:
                t16 = (raw >> (w - _TOP)).astype(np.uint16)
            top = _rows(t16, kept, axes)
            if np.may_share_memory(top, b):  # never write into the input
                top = top.copy()
            # top 16 bits of the unsigned totalOrder key: flip all if negative, else sign
            mask = (top.view(np.int16) >> 15).view(np.uint16)
            mask |= np.uint16(0x8000)
            top ^= mask
            if policy is not NanPolicy.TOTALORDER:
                # NaNs become the top key: fix the elements beside the infinities
                inf16 = (lay.exp_mask >> (w - _TOP)) ^ 0x8000
                ninf16 = ((lay.exp_mask >> (w - _TOP)) | 0x8000) ^ 0xFFFF
                span = np.uint16(inf16 - ninf16 - 1)
                edge = (top - np.uint16(ninf16 + 1)) >= span
                r, c = _nonzero2(edge)
                if r.size:
                    u = _ukeys(_take(b, kept, axes, r, c), policy)
                    top[r, c] = (u >> np.uint64(w - _TOP)).astype(np.uint16)
            self.top = top
        else:
            self.full = _rows(_ukeys(b, policy), kept, axes)
            self.top = self.full >> np.uint64(w - self.tb)

    def keys(self, r: np.ndarray, c: np.ndarray) -> np.ndarray:
        if self.full is not None:
            return self.full[r, c]
        return _ukeys(_take(self.b, self.kept, self.axes, r, c), self.policy)


def _hist_block(b, *, kept, axes, policy, w, bits, nb):
    """Per-row histograms of the top ``bits`` bits of the keys (the first pass)."""
    rows = math.prod(b.shape[a] for a in kept)
    out = np.zeros((1, rows, nb), dtype=np.int64)
    raw = _raw16(b) if not kept and _fast_top(b.dtype, policy) else None
    if raw is not None and b.size:
        # histogram of the raw top 16 bits in place, then mapped to key buckets
        h = np.zeros(1 << 16, dtype=np.int64)
        np.add.at(h, raw, 1)
        hk = np.zeros(1 << 16, dtype=np.int64)
        np.add.at(hk, _raw_to_key16(b.dtype, policy), h)
        out[0, 0] = hk.reshape(nb, -1).sum(axis=1)
    elif b.size:
        bk = _BlockKeys(b, kept, axes, policy, w)
        d = bk.top >> bk.top.dtype.type(bk.tb - bits) if bits < bk.tb else bk.top
        if d.dtype == np.uint64:
            d = d.view(np.int64)
        if rows == 1:
            out[0, 0] = np.bincount(d.ravel(), minlength=nb)
        else:
            idx = (d.astype(np.int64) + (np.arange(rows, dtype=np.int64) * nb)[:, None]).ravel()
            out[0] = np.bincount(idx, minlength=rows * nb).reshape(rows, nb)
    kept_shape = tuple(b.shape[a] for a in kept)
    res = out.transpose(1, 0, 2).reshape(kept_shape + (1, nb))
    full = tuple(b.shape[a] if a in kept else 1 for a in range(b.ndim))
    return res.reshape(full + (1, nb))


@functools.lru_cache(maxsize=32)
def _raw_to_key16(dtype: np.dtype, policy: NanPolicy) -> np.ndarray:
    """Key bucket (top 16 bits of the selection key) of each raw top-16 bit pattern.

    Under "omit", "raise" and "propagate" the patterns that hold only quiet NaNs go to
    the top bucket (where :func:`_ukeys` puts every NaN); a signaling NaN raises anyway.
    """
    v = np.arange(1 << 16, dtype=np.int64)
    k = np.where(v & 0x8000, v ^ 0xFFFF, v ^ 0x8000)
    if policy in (NanPolicy.OMIT, NanPolicy.RAISE, NanPolicy.PROPAGATE):
        k[_special16(dtype)[1]] = 0xFFFF
    k.setflags(write=False)
    return k


def _key16_to_raw(dtype: np.dtype, policy: NanPolicy, k16: np.ndarray) -> np.ndarray:
    """Every raw top-16 pattern whose key bucket is one of ``k16``."""
    tbl = _raw_to_key16(dtype, policy)
    want = np.zeros(1 << 16, dtype=bool)
    want[np.asarray(k16, dtype=np.int64)] = True
    return np.flatnonzero(want[tbl])


class _Refine:
    """Per-row, per-target work of one refinement pass: candidate keys or a histogram.

    ``None`` for a target already resolved; ``+`` merges blocks (concatenate / add).
    """

    __slots__ = ("e",)

    def __init__(self, e: list) -> None:
        self.e = e

    def __add__(self, o: _Refine) -> _Refine:
        out = []
        for a, b in zip(self.e, o.e, strict=True):
            if a is None or b is None:
                out.append(a if b is None else b)
            elif a.dtype == np.uint64:
                out.append(np.concatenate([a, b]))
            else:
                out.append(a + b)
        return _Refine(out)

    def __reduce__(self):
        return (_Refine, (self.e,))


def _refine_block(b, state, *, kept, axes, policy, w, bits, limit):
    """One refinement pass over a block (see ``_select``); an object array of ``_Refine``."""
    state = np.asarray(state)
    rows = math.prod(b.shape[a] for a in kept)
    T = state.shape[-2]
    st = state.reshape(rows, T, 4)
    known = st[..., 2].astype(np.int64)
    active = known < w
    entries: list[list] = [[None] * T for _ in range(rows)]
    if active.any():
        gather = st[..., 3] <= np.uint64(limit)
        prefix = np.where(active, st[..., 0], 0).astype(np.int64)  # < 2**63 when active
        raw = _raw16(b) if not kept and _fast_top(b.dtype, policy) else None
        if raw is not None and b.size and (known[active] >= _TOP).all():
            k16 = prefix[active] >> (known[active] - _TOP)
            c_idx = _scan_eq(raw, _key16_to_raw(b.dtype, policy, k16))
            r_idx = np.zeros(c_idx.size, np.int64)
            u = _ukeys(b.reshape(-1)[c_idx], policy)
        elif b.size:
            bk = _BlockKeys(b, kept, axes, policy, w)
            tb = bk.tb
            top = bk.top
            kt = np.minimum(known, tb)
            ptop = prefix >> np.maximum(known - tb, 0)
            if rows * (1 << tb) <= 1 << 24 and (kt[active] == tb).all():
                tbl = np.zeros(rows << tb, dtype=bool)
                rr, tt = np.nonzero(active)
                tbl[(rr << tb) + ptop[rr, tt]] = True
                if rows == 1:
                    c_idx = np.flatnonzero(tbl[top[0]])
                    r_idx = np.zeros(c_idx.size, np.int64)
                else:
                    off = (np.arange(rows, dtype=np.int64) << tb)[:, None]
                    sel = tbl[top.astype(np.int64) + off]
                    r_idx, c_idx = _nonzero2(sel)
            else:
                sel = np.zeros(top.shape, dtype=bool)
                t64 = top.astype(np.int64)
                for t in range(T):
                    if not active[:, t].any():
                        continue
                    sh = (tb - kt[:, t])[:, None]
                    sel |= ((t64 >> sh) == ptop[:, t, None]) & active[:, t, None]
                r_idx, c_idx = _nonzero2(sel)
            u = bk.keys(r_idx, c_idx)
        else:
            r_idx = np.zeros(0, np.int64)
            u = np.zeros(0, np.uint64)
        bounds = np.searchsorted(r_idx, np.arange(rows + 1))
        for r in range(rows):
            if not active[r].any():
                continue
            ur = u[bounds[r]:bounds[r + 1]]
            for t in range(T):
                if not active[r, t]:
                    continue
                kn = int(known[r, t])
                m = (ur >> np.uint64(w - kn)) == np.uint64(prefix[r, t])
                ut = ur[m]
                if gather[r, t]:
                    entries[r][t] = ut
                else:
                    width = min(bits, w - kn)
                    d = (ut >> np.uint64(w - kn - width)) & np.uint64((1 << width) - 1)
                    entries[r][t] = np.bincount(d.view(np.int64), minlength=1 << width)
    out = np.empty(rows, dtype=object)
    for r in range(rows):
        out[r] = _Refine(entries[r])
    kept_shape = tuple(b.shape[a] for a in kept)
    full = tuple(b.shape[a] if a in kept else 1 for a in range(b.ndim))
    return out.reshape(kept_shape).reshape(full)


def _refine_combine(parts, axis=None, keepdims=True):
    return np.add.reduce(np.asarray(parts, dtype=object), axis=axis, keepdims=True)


def _refine_aggregate(parts, axis=None, keepdims=False):
    merged = np.add.reduce(np.asarray(parts, dtype=object), axis=axis, keepdims=False)
    if not isinstance(merged, np.ndarray):
        box = np.empty((), dtype=object)
        box[()] = merged
        merged = box
    return merged


def _init_state(neff, *info, stat, q, method, policy, shape, relabel):
    """State ``[prefix, rank, known bits, bucket count]`` per row and target."""
    _raise_from_info(info[0] if info else None, policy, shape, relabel)
    neff = np.asarray(neff, dtype=np.int64)
    lo, hi = _rank_plan(stat, neff.ravel(), q, method)
    ranks = np.concatenate([lo, hi], axis=0)  # (T, rows)
    ranks = np.clip(ranks, 0, None).T.astype(np.uint64)  # (rows, T)
    st = np.zeros(ranks.shape + (4,), dtype=np.uint64)
    st[..., 1] = ranks
    return st.reshape(neff.shape + st.shape[-2:])


def _locate(hist, state, *, bits_now):
    """Narrow each target's prefix to the bucket of the first-pass histogram holding it."""
    hist = np.asarray(hist)
    state = np.asarray(state)
    if hist.shape[-2] != state.shape[-2]:  # the first histogram is shared by all targets
        hist = np.broadcast_to(hist, state.shape[:-1] + hist.shape[-1:])
    cs = np.cumsum(hist, axis=-1)
    r = state[..., 1].astype(np.int64)
    d = np.argmax(cs > r[..., None], axis=-1)
    cnt = np.take_along_axis(hist, d[..., None], axis=-1)[..., 0]
    before = np.take_along_axis(cs, d[..., None], axis=-1)[..., 0] - cnt
    out = np.empty_like(state)
    out[..., 0] = (state[..., 0] << np.uint64(bits_now)) | d.astype(np.uint64)
    out[..., 1] = (r - before).clip(0).astype(np.uint64)
    out[..., 2] = state[..., 2] + np.uint64(bits_now)
    out[..., 3] = cnt.astype(np.uint64)
    return out


def _locate_refine(refined, state, *, w):
    """Select within gathered buckets (exact keys) or narrow by a histogram."""
    state = np.array(state)
    T = state.shape[-2]
    st = state.reshape(-1, T, 4)
    objs = np.asarray(refined, dtype=object).reshape(-1)
    for r in range(st.shape[0]):
        ent = objs[r].e
        for t in range(T):
            e = ent[t]
            if e is None or int(st[r, t, 2]) >= w:
                continue
            rank = int(st[r, t, 1])
            kn = int(st[r, t, 2])
            if e.dtype == np.uint64:  # gathered: the key at the rank, exactly
                if e.size:
                    k = int(np.partition(e, min(rank, e.size - 1))[min(rank, e.size - 1)])
                else:  # an empty row: any key (the result is the empty fill)
                    k = int(st[r, t, 0]) << (w - kn)
                st[r, t] = (k, 0, w, 1)
            else:
                width = int(e.size).bit_length() - 1
                cs = np.cumsum(e)
                d = int(np.argmax(cs > rank))
                before = int(cs[d] - e[d])
                st[r, t] = ((int(st[r, t, 0]) << width) | d, max(rank - before, 0), kn + width,
                            int(e[d]))
    return st.reshape(state.shape)


def _ident_chunk(b, axis=None, keepdims=True):
    return b


def _finish_block(state, neff, nnan, nmiss, *extra, stat, q, qshape, method, policy, in_dtype,
                  out_dtype, has_maxnan):
    """Values from the final prefixes (= keys), by the core's interpolation rules."""
    state = np.asarray(state)
    kept_shape = state.shape[:-2]
    rows = int(np.prod(kept_shape, dtype=np.int64))
    ntargets = state.shape[-2]
    keys = state[..., 0].reshape(rows, ntargets).T  # (T, rows)
    nq = ntargets // 2
    vals = _from_ukeys(keys, in_dtype, policy)
    lo_v, hi_v = vals[:nq], vals[nq:]
    neff = np.asarray(neff, np.int64).reshape(rows)
    res = np.asarray(_finish_values(stat, lo_v, hi_v, neff, q, method, in_dtype))
    res = np.array(np.broadcast_to(res, (nq, rows)), dtype=out_dtype)
    empty = neff <= 0
    nnan = np.asarray(nnan, np.int64).reshape(rows)
    nmiss = np.asarray(nmiss, np.int64).reshape(rows)
    fill = _empty_fill(out_dtype)
    if policy in (NanPolicy.SMALLEST, NanPolicy.LARGEST, NanPolicy.TOTALORDER) and nmiss.any():
        lo, hi = _rank_plan(stat, neff, q, method)
        tail = np.maximum(lo, hi) >= (neff - nmiss)[None, :]
        res[np.broadcast_to(tail, res.shape)] = fill
    if empty.any():
        res[:, empty] = fill
    if policy is NanPolicy.PROPAGATE:
        if has_maxnan:
            maxkey = np.asarray(extra[0]).reshape(rows)
            hit = nnan > 0
            if hit.any():
                nanv = keys_to_float(maxkey.astype(layout_of(in_dtype).int_dtype), in_dtype)
                res[:, hit] = nanv[hit].astype(out_dtype)
            miss_only = (nmiss > 0) & ~hit
        else:
            miss_only = nmiss > 0
        if miss_only.any():
            res[:, miss_only] = fill
    return res.reshape(qshape + kept_shape)


def _empty_fill(dtype: np.dtype):
    if dtype.kind == "f":
        from ..core.classify import canonical_nan

        return canonical_nan(dtype)
    if dtype.kind in "mM":
        return np.array("NaT", dtype=dtype)[()]
    return 0


def _ukey_extreme(b, *, policy, which):
    u = _ukeys(b, policy)
    if (
        which == "max"
        and b.dtype.kind in "fmM"
        and policy in (NanPolicy.OMIT, NanPolicy.RAISE, NanPolicy.PROPAGATE)
    ):
        # removed values sit at the top key: take them out of the maximum
        top = np.uint64((1 << _key_width(b.dtype)) - 1)
        u[u == top] = 0
    return u


def _maxnan_block(b):
    k = float_keys(b).astype(np.int64)
    return np.where(np.isnan(b), k, np.iinfo(np.int64).min)


# ---------------------------------------------------------------------------------
# public entry points
# ---------------------------------------------------------------------------------


def _out_dtype(x: da.Array, stat: str, q, method: str, axes, core_fn: str) -> np.dtype:
    """Result dtype, from the core on a tiny sample of the same dtype."""
    sample = np.zeros((2,) * x.ndim, dtype=x.dtype)
    if core_fn == "order":
        from ..core.select import order_stat

        v, _m = order_stat(sample, stat, q=q, method=method, axis=axes,
                           policy=NanPolicy.TOTALORDER)
    else:
        from ..core.moments import moment_stat

        v, _m = moment_stat(sample, stat, axis=axes, ddof=0, policy=NanPolicy.TOTALORDER)
    return np.asarray(v).dtype


def _apply_keepdims(res: da.Array, axes: tuple[int, ...], ndim: int, lead: int,
                    keepdims: bool) -> da.Array:
    if not keepdims:
        return res
    index: list[Any] = [slice(None)] * lead
    for a in range(ndim):
        index.append(None if a in axes else slice(None))
    return res[tuple(index)]


def _per_block_core(
    x: da.Array,
    fn: Callable[..., Any],
    axes: tuple[int, ...],
    keepdims: bool,
    out_dtype: np.dtype,
    qshape: tuple[int, ...],
    info: da.Array | None,
    policy: NanPolicy,
    relabel,
) -> da.Array:
    """Run ``fn(block, axes)`` (the core) on each block; the reduced axes are whole."""
    nd = x.ndim
    xi = tuple(f"d{i}" for i in range(nd))
    qi = tuple(f"q{i}" for i in range(len(qshape)))
    out_ind = qi + xi
    args: list[Any] = [x, xi]
    if info is not None:
        args += [info, ("info",)]

    def block(b, *inf):
        _raise_from_info(inf[0] if inf else None, policy, tuple(x.shape), relabel)
        v = np.asarray(fn(b, axes))
        return v.reshape(qshape + tuple(1 if a in axes else b.shape[a] for a in range(nd)))

    res = da.blockwise(
        block,
        out_ind,
        *args,
        new_axes={k: s for k, s in zip(qi, qshape, strict=True)},
        adjust_chunks={xi[a]: 1 for a in axes},
        dtype=out_dtype,
        concatenate=True,
        meta=np.empty((0,) * len(out_ind), dtype=out_dtype),
    )
    if not keepdims:
        index = (slice(None),) * len(qi) + tuple(0 if a in axes else slice(None)
                                                 for a in range(nd))
        res = res[index]
    return res


def dask_order_stat(
    x: da.Array,
    stat: str,
    *,
    q: float | Sequence[float] | np.ndarray | None = None,
    method: str = "linear",
    axis: int | Sequence[int] | None = None,
    policy: NanPolicy | str | None = None,
    keepdims: bool = False,
    relabel: Callable[[NaNError], NaNError] | None = None,
    check: da.Array | None = None,
) -> da.Array:
    """Exact, lazy order statistic of a dask array.

    Parameters
    ----------
    x : dask.array.Array
        float16/32/64, integer, bool, datetime64 or timedelta64 data.
    stat : {"median", "median_low", "median_high", "quantile", "min", "max", \
"argmin", "argmax"}
        The statistic, as in :func:`nanaccess.core.select.order_stat`.
    q : float or array_like, optional
        Quantile(s) in [0, 1] for ``stat="quantile"``; array ``q`` adds leading
        dimensions, as :func:`numpy.quantile`.
    method : str, default "linear"
        Quantile method (see :func:`nanaccess.quantile`).
    axis : int, tuple of int or None
        Axes to reduce; ``None`` reduces all of them (the all-axes median works).
    policy : NanPolicy or str
        The NaN policy (``None``: the current default).
    keepdims : bool, default False
        Keep the reduced axes with length one.
    relabel : callable, optional
        Applied to a policy error before it is raised (adapters use it to name
        variables and coordinates).
    check : dask.array.Array, optional
        A one-chunk bool array whose task does the policy checks itself (the dask
        DataFrame adapter names index labels that way); replaces the built-in check.

    Returns
    -------
    dask.array.Array
        Lazy result; its computed value equals the core's ``order_stat`` value bit
        for bit. Policy errors are raised when it is computed.

    Examples
    --------
    >>> import numpy as np, dask.array as da
    >>> x = da.from_array(np.array([3.0, np.nan, 1.0, 2.0, 5.0, 4.0]), chunks=4)
    >>> r = dask_order_stat(x, "median", policy="omit")
    >>> float(r.compute())
    3.0
    >>> dask_order_stat(x, "quantile", q=[0.0, 1.0], policy="omit").compute()
    array([1., 5.])
    """
    policy = resolve_policy(policy)
    if stat not in ORDER_STATS:
        raise ValueError(f"unknown order statistic {stat!r}; expected one of {ORDER_STATS}")
    axes = normalize_axis(axis, x.ndim)
    if stat == "quantile":
        if q is None:
            raise TypeError("quantile needs q")
        qarr = np.asarray(q, dtype=np.float64)
    else:
        qarr = None
    qshape = qarr.shape if qarr is not None else ()
    if x.dtype.kind in "cSUO" and stat in _SELECT_STATS:
        if x.dtype.kind == "c":
            raise TypeError(f"complex numbers have no order: cannot take the {stat} of {x.dtype}")
    out_dtype = _out_dtype(x, stat, qarr, method, axes, "order")
    if check is not None:
        info = check.rechunk(-1) if check.ndim else check[None]
    else:
        info = _global_info(x) if _may_hold_nan(x.dtype) else None
    shape = tuple(0 if math.isnan(s) else int(s) for s in x.shape)

    single = x.ndim == 0 or all(x.numblocks[a] == 1 for a in axes)
    if not single and (stat not in _SELECT_STATS or x.dtype.kind not in "fiubmM"):
        # argmin/argmax and object data: bring the reduced axes into one chunk
        x = x.rechunk({a: (-1 if a in axes else "auto") for a in range(x.ndim)})
        single = True
    if single:
        from ..core.select import order_stat

        def fn(b, ax):
            return order_stat(b, stat, q=qarr, method=method, axis=ax, policy=policy,
                              keepdims=True)[0]

        return _per_block_core(x, fn, axes, keepdims, out_dtype, qshape, info, policy,
                               relabel)
    res = _select(x, stat, qarr, method, axes, policy, out_dtype, info, relabel, shape)
    return _apply_keepdims(res, axes, x.ndim, len(qshape), keepdims)


def _row_counts(x: da.Array, axes, policy) -> tuple[da.Array, da.Array, da.Array]:
    """Per-row (n_eff, n_nan, n_missing) over the reduced axes."""
    kind = x.dtype.kind
    if kind == "f":
        nnan = da.map_blocks(_nan_count_block, x, dtype=np.int64, axes=axes,
                             chunks=tuple((1,) * x.numblocks[a] if a in axes else x.chunks[a]
                                          for a in range(x.ndim)),
                             meta=np.empty((0,) * x.ndim, np.int64)).sum(axis=axes)
    else:
        nnan = da.zeros(tuple(x.shape[a] for a in range(x.ndim) if a not in axes),
                        dtype=np.int64,
                        chunks=tuple(x.chunks[a] for a in range(x.ndim) if a not in axes))
    if kind in "mM":
        nmiss = da.map_blocks(np.isnat, x, dtype=bool).sum(axis=axes, dtype=np.int64)
    else:
        nmiss = da.zeros_like(nnan)
    if all(not math.isnan(x.shape[a]) for a in axes):
        n: Any = math.prod(int(x.shape[a]) for a in axes)
        n = n if policy is NanPolicy.OMIT else da.full_like(nnan, n)
    else:  # unknown chunk sizes (e.g. from a dask DataFrame): count lazily
        n = da.map_blocks(_ones, x, dtype=np.int8).sum(axis=axes, dtype=np.int64)
    neff = n - nnan - nmiss if policy is NanPolicy.OMIT else n
    return neff, nnan, nmiss


def _nan_count_block(b: np.ndarray, axes) -> np.ndarray:
    """NaNs per row of a block (reduced axes kept with length 1)."""
    raw = _raw16(b) if len(axes) == b.ndim else None
    if raw is not None:
        pos = _special_positions(raw, b.dtype)
        cnt = int(np.count_nonzero(np.isnan(b.reshape(-1)[pos])))
        return np.full((1,) * b.ndim, cnt, dtype=np.int64)
    return np.isnan(b).sum(axis=axes, keepdims=True, dtype=np.int64)


def _ones(b: np.ndarray) -> np.ndarray:
    return np.ones(b.shape, dtype=np.int8)


def _max_chunk(chunks: tuple[float, ...]) -> int:
    sizes = [c for c in chunks if not math.isnan(c)]
    return int(max(sizes)) if len(sizes) == len(chunks) and sizes else 1 << 20


def _select(x, stat, qarr, method, axes, policy, out_dtype, info, relabel, shape):
    nd = x.ndim
    kept = tuple(a for a in range(nd) if a not in axes)
    xi = tuple(f"d{i}" for i in range(nd))
    ki = tuple(xi[a] for a in kept)
    nq = 1 if qarr is None else max(int(qarr.size), 1)
    qflat = None if qarr is None else qarr.ravel()
    qshape = () if qarr is None else qarr.shape
    ntargets = 2 * nq
    neff, nnan, nmiss = _row_counts(x, axes, policy)
    w = _key_width(x.dtype)

    init_args: list[Any] = [neff, ki]
    if info is not None:
        init_args += [info, ("info",)]
    state = da.blockwise(
        _init_state, ki + ("t", "s"), *init_args,
        new_axes={"t": ntargets, "s": 2}, dtype=np.uint64, concatenate=True,
        meta=np.empty((0,) * (len(ki) + 2), np.uint64),
        stat=stat if stat != "quantile" else "quantile", q=qflat, method=method,
        policy=policy, shape=shape, relabel=relabel,
    )

    if stat in ("min", "max"):
        ext = da.map_blocks(_ukey_extreme, x, dtype=np.uint64, policy=policy, which=stat)
        ext = ext.min(axis=axes) if stat == "min" else ext.max(axis=axes)

        def _set(st, e):
            st = np.array(st)
            st[..., 0] = np.asarray(e)[..., None]
            return st

        state = da.blockwise(_set, ki + ("t", "s"), state, ki + ("t", "s"), ext, ki,
                             dtype=np.uint64, concatenate=True,
                             meta=np.empty((0,) * (len(ki) + 2), np.uint64))
    else:
        # first-pass bits: 16 for few rows per chunk, fewer when many rows share a chunk
        rows_c = max(math.prod(_max_chunk(x.chunks[a]) for a in kept), 1)
        n_c = max(math.prod(_max_chunk(x.chunks[a]) for a in axes), 1)
        bits = min(_TOP, w)
        while bits > 4 and rows_c * (1 << bits) > max(4 * rows_c * n_c, 1 << 16):
            bits -= 2
        hist = da.blockwise(
            _hist_block, xi + ("t", "bin"), x, xi,
            new_axes={"bin": 1 << bits, "t": 1}, adjust_chunks={xi[a]: 1 for a in axes},
            dtype=np.int64, concatenate=True,
            meta=np.empty((0,) * (nd + 2), np.int64),
            kept=kept, axes=axes, policy=policy, w=w, bits=bits, nb=1 << bits,
        )
        hist = hist.sum(axis=axes)
        state = da.blockwise(
            _locate, ki + ("t", "s"), hist, ki + ("t", "bin"), state, ki + ("t", "s"),
            dtype=np.uint64, concatenate=True,
            meta=np.empty((0,) * (len(ki) + 2), np.uint64), bits_now=bits,
        )
        # refinement: a bucket small enough is gathered and selected exactly in one
        # more pass (the usual case); a crowded one is narrowed by 16 more bits a pass
        for _p in range(-(-(w - bits) // _TOP)):
            parts = da.blockwise(
                _refine_block, xi, x, xi, state, ki + ("t", "s"),
                adjust_chunks={xi[a]: 1 for a in axes}, dtype=object, concatenate=True,
                meta=np.empty((0,) * nd, dtype=object),
                kept=kept, axes=axes, policy=policy, w=w, bits=_TOP, limit=_GATHER_LIMIT,
            )
            refined = da.reduction(
                parts, _ident_chunk, _refine_aggregate, combine=_refine_combine,
                axis=axes, keepdims=False, dtype=object, concatenate=True,
                meta=np.empty((0,) * len(ki), dtype=object),
            )
            state = da.blockwise(
                _locate_refine, ki + ("t", "s"), refined, ki, state, ki + ("t", "s"),
                dtype=np.uint64, concatenate=True,
                meta=np.empty((0,) * (len(ki) + 2), np.uint64), w=w,
            )
    fin_args: list[Any] = [state, ki + ("t", "s"), neff, ki, nnan, ki, nmiss, ki]
    has_maxnan = policy is NanPolicy.PROPAGATE and x.dtype.kind == "f"
    if has_maxnan:
        maxnan = da.map_blocks(_maxnan_block, x, dtype=np.int64).max(axis=axes)
        fin_args += [maxnan, ki]
    qi = tuple(f"q{i}" for i in range(len(qshape)))
    return da.blockwise(
        _finish_block, qi + ki, *fin_args,
        new_axes={k: s for k, s in zip(qi, qshape, strict=True)},
        dtype=out_dtype, concatenate=True,
        meta=np.empty((0,) * (len(qi) + len(ki)), out_dtype),
        stat=stat, q=qflat, qshape=qshape, method=method, policy=policy,
        in_dtype=x.dtype, out_dtype=out_dtype, has_maxnan=has_maxnan,
    )


class _MomentPart:
    """Exact, mergeable partial moments of one row (``+`` merges; see ``exact_partials``)."""

    __slots__ = ("s", "q", "count", "posinf", "neginf", "nan", "negzero", "nnan", "nmiss",
                 "maxnan")

    def __init__(self, s, q, count, posinf, neginf, nan, negzero, nnan, nmiss, maxnan):
        self.s, self.q, self.count = s, q, count
        self.posinf, self.neginf, self.nan, self.negzero = posinf, neginf, nan, negzero
        self.nnan, self.nmiss, self.maxnan = nnan, nmiss, maxnan

    def __add__(self, o: _MomentPart) -> _MomentPart:
        if self.maxnan is None:
            mx = o.maxnan
        else:
            mx = self.maxnan if o.maxnan is None else max(self.maxnan, o.maxnan)
        return _MomentPart(
            self.s + o.s,
            None if self.q is None else self.q + o.q,
            self.count + o.count,
            self.posinf or o.posinf,
            self.neginf or o.neginf,
            self.nan or o.nan,
            self.negzero and o.negzero,
            self.nnan + o.nnan,
            self.nmiss + o.nmiss,
            mx,
        )

    def __reduce__(self):
        return (_MomentPart, tuple(getattr(self, k) for k in self.__slots__))


def _moment_rows(b: np.ndarray, red):
    rows = red.as_rows(b)
    if b.dtype.kind in "mM":
        rows = rows.view(np.int64)
    elif b.dtype.kind == "b":
        rows = rows.astype(np.int64)
    return rows


def _moment_chunk(b, axis=None, keepdims=True, *, stat, squares):
    """Per-row exact partials of one block (object array, reduced axes of length 1)."""
    from ..core.axes import Reduction
    from ..core.classify import scan_rows
    from ..core.exactsum import exact_partials

    b = np.asarray(b)
    red = Reduction.of(b, axis)
    sc = scan_rows(b, red, NanPolicy.TOTALORDER)  # classification only: never raises
    removed = sc.removed
    nrows = red.rows
    if stat == "count":
        cnt = red.n - sc.nnan - sc.nmiss
        z = [0] * nrows
        f = [False] * nrows
        fields = (z, [None] * nrows, cnt.tolist(), f, f, f, f)
    else:
        rows = _moment_rows(b, red)
        p = exact_partials(rows, None if removed is None else ~removed, squares=squares)
        fields = (p.s.reshape(-1).tolist(),
                  [None] * nrows if p.q is None else p.q.reshape(-1).tolist(),
                  p.count.reshape(-1).tolist(), p.posinf.reshape(-1).tolist(),
                  p.neginf.reshape(-1).tolist(), p.nan.reshape(-1).tolist(),
                  p.negzero.reshape(-1).tolist())
    if sc.nan is not None:
        k = float_keys(red.as_rows(b))
        kmin = np.iinfo(k.dtype).min
        best = np.where(sc.nan, k, k.dtype.type(kmin)).max(axis=1)
        maxnan = [int(v) if n else None for v, n in zip(best.tolist(), sc.nnan.tolist(),
                                                       strict=True)]
    else:
        maxnan = [None] * nrows
    out = np.empty(nrows, dtype=object)
    for r, vals in enumerate(zip(*fields, sc.nnan.tolist(), sc.nmiss.tolist(), maxnan,
                                 strict=True)):
        out[r] = _MomentPart(*vals)
    return red.finish(out, True)


def _moment_combine(parts, axis=None, keepdims=True):
    return np.add.reduce(np.asarray(parts, dtype=object), axis=axis, keepdims=True)


def _moment_finish(parts, axis=None, keepdims=False, *, stat, ddof, policy, dtype):
    """Round merged partials exactly as ``moment_stat`` does (bit for bit)."""
    from ..core.classify import canonical_nan
    from ..core.exactsum import ExactPartials, round_mean, round_sum, round_var

    merged = np.add.reduce(np.asarray(parts, dtype=object), axis=axis, keepdims=keepdims)
    if not isinstance(merged, np.ndarray):  # a full reduction gives the bare partial
        box = np.empty((), dtype=object)
        box[()] = merged
        merged = box
    shape = merged.shape
    flat = merged.reshape(-1).tolist()
    kind = dtype.kind
    native = dtype.newbyteorder("=")
    count = np.array([p.count for p in flat], dtype=np.int64)
    nnan = np.array([p.nnan for p in flat], dtype=np.int64)
    nmiss = np.array([p.nmiss for p in flat], dtype=np.int64)
    if stat == "count":
        return count.reshape(shape)
    obj = np.empty(len(flat), dtype=object)
    obj[:] = [p.s for p in flat]
    qobj = None
    if stat in ("var", "std"):
        qobj = np.empty(len(flat), dtype=object)
        qobj[:] = [p.q for p in flat]
    ep = ExactPartials(
        obj, qobj, count,
        np.array([p.posinf for p in flat], bool), np.array([p.neginf for p in flat], bool),
        np.array([p.nan for p in flat], bool), np.array([p.negzero for p in flat], bool),
        kind in "iubmM",
    )
    if stat == "sum":
        vals = round_sum(ep)
    elif stat == "mean":
        vals = round_mean(ep)
    else:
        with np.errstate(invalid="ignore"):
            vals = round_var(ep, ddof)
            if stat == "std":
                vals = np.sqrt(vals)
    vals = result_dtype(vals, np.dtype(native), stat)
    if policy is not NanPolicy.OMIT:
        has = nnan > 0
        if kind == "f" and has.any():
            lay = layout_of(native)
            best = np.array([p.maxnan if p.maxnan is not None else 0 for p in flat],
                            dtype=lay.int_dtype)
            pv = keys_to_float(best, native)
            vals = np.where(has, pv.astype(vals.dtype), vals)
        mrow = (nmiss > 0) & ~has
        if mrow.any():
            if vals.dtype.kind == "f":
                vals = np.where(mrow, canonical_nan(vals.dtype), vals)
            elif vals.dtype.kind in "mM":
                vals = np.where(mrow, np.array("NaT", dtype=vals.dtype), vals)
    return np.asarray(vals).reshape(shape)


def _check_then(vals, *info, policy, shape, relabel, dtype_out):
    _raise_from_info(info[0] if info else None, policy, shape, relabel)
    return np.asarray(vals).astype(dtype_out, copy=False)


def dask_moment_stat(
    x: da.Array,
    stat: str,
    *,
    axis: int | Sequence[int] | None = None,
    ddof: int = 0,
    policy: NanPolicy | str | None = None,
    keepdims: bool = False,
    relabel: Callable[[NaNError], NaNError] | None = None,
    check: da.Array | None = None,
) -> da.Array:
    """Lazy mean / var / std / sum / count of a dask array, equal to the core bit for bit.

    Parameters
    ----------
    x : dask.array.Array
        Numeric data.
    stat : {"mean", "var", "std", "sum", "count"}
        The statistic, as in :func:`nanaccess.core.moments.moment_stat`.
    axis : int, tuple of int or None
        Axes to reduce.
    ddof : int, default 0
        Delta degrees of freedom of var and std.
    policy : NanPolicy or str
        The NaN policy (``None``: the current default).
    keepdims : bool, default False
        Keep the reduced axes with length one.
    relabel : callable, optional
        Applied to a policy error before it is raised.
    check : dask.array.Array, optional
        A one-chunk bool array whose task does the policy checks itself (as in
        :func:`dask_order_stat`); replaces the built-in check.

    Returns
    -------
    dask.array.Array
        Lazy result, computed by a tree reduction of exact per-chunk partials
        (:func:`nanaccess.core.exactsum.exact_partials`), so no chunk grows beyond the
        input's; equal to the core's ``moment_stat`` bit for bit. Policy errors are
        raised when it is computed.

    Examples
    --------
    >>> import numpy as np, dask.array as da
    >>> x = da.from_array(np.array([1.0, 2.0, np.nan, 5.0]), chunks=2)
    >>> float(dask_moment_stat(x, "mean", policy="omit").compute())
    2.6666666666666665
    """
    policy = resolve_policy(policy)
    if stat not in MOMENT_STATS:
        raise ValueError(f"unknown moment statistic {stat!r}; expected one of {MOMENT_STATS}")
    axes = normalize_axis(axis, x.ndim)
    out_dtype = _out_dtype(x, stat, None, "linear", axes, "moment")
    if check is not None:
        info = check.rechunk(-1) if check.ndim else check[None]
    elif _may_hold_nan(x.dtype) and policy is not NanPolicy.TOTALORDER:
        info = _global_info(x)
    else:
        info = None
    from ..core.moments import moment_stat

    if x.dtype.kind == "O" or x.ndim == 0:
        # object data: the core's Python path, on one chunk over the reduced axes
        if not (x.ndim == 0 or all(x.numblocks[a] == 1 for a in axes)):
            x = x.rechunk({a: (-1 if a in axes else "auto") for a in range(x.ndim)})

        def fn(b, ax):
            return moment_stat(b, stat, axis=ax, ddof=ddof, policy=policy, keepdims=True)[0]

        return _per_block_core(x, fn, axes, keepdims, out_dtype, (), info, policy, relabel)
    res = da.reduction(
        x,
        partial(_moment_chunk, stat=stat, squares=stat in ("var", "std")),
        partial(_moment_finish, stat=stat, ddof=ddof, policy=policy, dtype=x.dtype),
        combine=_moment_combine,
        axis=axes,
        keepdims=keepdims,
        dtype=object,  # the partials; the aggregate returns out_dtype values
        concatenate=True,
        meta=np.empty((0,) * (x.ndim if keepdims else x.ndim - len(axes)), dtype=object),
    )
    shape = tuple(0 if math.isnan(s) else int(s) for s in x.shape)
    ri = tuple(f"r{i}" for i in range(res.ndim))
    args: list[Any] = [res, ri]
    if info is not None:
        args += [info, ("info",)]
    return da.blockwise(_check_then, ri, *args, dtype=out_dtype, concatenate=True,
                        meta=np.empty((0,) * res.ndim, dtype=out_dtype),
                        policy=policy, shape=shape, relabel=relabel, dtype_out=out_dtype)
