"""Block kernels of the dask selection: key prefixes of one block, its histogram of
the next key bits, and the gathering of the elements of the wanted buckets.

On the fast path (native floats, NaNs not ranked first/last) the top 16 key bits come
from the top 16 *raw* bits alone, read in place, and only elements beside the
infinities (where NaNs live) get exact keys.
"""

from __future__ import annotations

import functools
import math
import sys
from typing import Any, cast

import numpy as np

from ..core.chunked import RULES, as_bits, float_keys, layout_of
from ..options import NanPolicy
from .keys import key_width, ukeys
from .tally import raw16, scan_eq, special16, special_positions


def _rows(b: np.ndarray, kept: tuple[int, ...], axes: tuple[int, ...]) -> np.ndarray:
    moved = b.transpose(kept + axes)
    rows = int(np.prod([b.shape[a] for a in kept], dtype=np.int64))
    return np.ascontiguousarray(moved).reshape(rows, -1)


TOP = 16  # bits of the key prefix the first pass histograms (and the fast path reads)


def fast_top(dtype: np.dtype, policy: NanPolicy) -> bool:
    """Whether the top key bits can be read from the raw float bits (no full keys)."""
    return (dtype.kind == "f" and dtype.isnative
            and RULES[policy].nan_rank not in ("first", "last"))


def _take(b: np.ndarray, kept: Any, axes: Any, r_idx: np.ndarray, c_idx: np.ndarray) -> np.ndarray:
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
    return cast("np.ndarray", b[tuple(index)] if b.ndim else b.reshape(1)[c_idx])


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

    def __init__(self, b: np.ndarray, kept: Any, axes: Any, policy: NanPolicy, w: int) -> None:
        self.b, self.kept, self.axes, self.policy, self.w = b, kept, axes, policy, w
        self.tb = min(TOP, w)
        self.full = None
        if fast_top(b.dtype, policy):
            lay = layout_of(b.dtype)
            raw = as_bits(b)
            k = b.dtype.itemsize // 2
            if k == 1:
                t16 = raw.view(np.uint16)
            elif sys.byteorder == "little" and b.ndim and b.flags.c_contiguous:
                t16 = raw.view(np.uint16)[..., k - 1::k]
            else:
                t16 = (raw >> (w - TOP)).astype(np.uint16)
            top = _rows(t16, kept, axes)
            if np.may_share_memory(top, b):  # never write into the input
                top = top.copy()
            # top 16 bits of the unsigned totalOrder key: flip all if negative, else sign
            mask = (top.view(np.int16) >> 15).view(np.uint16)
            mask |= np.uint16(0x8000)
            top ^= mask
            if not RULES[policy].orders_nans:
                # NaNs become the top key: fix the elements beside the infinities
                inf16 = (lay.exp_mask >> (w - TOP)) ^ 0x8000
                ninf16 = ((lay.exp_mask >> (w - TOP)) | 0x8000) ^ 0xFFFF
                span = np.uint16(inf16 - ninf16 - 1)
                edge = (top - np.uint16(ninf16 + 1)) >= span
                r, c = _nonzero2(edge)
                if r.size:
                    u = ukeys(_take(b, kept, axes, r, c), policy)
                    top[r, c] = (u >> np.uint64(w - TOP)).astype(np.uint16)
            self.top = top
        else:
            self.full = _rows(ukeys(b, policy), kept, axes)
            self.top = self.full >> np.uint64(w - self.tb)

    def keys(self, r: np.ndarray, c: np.ndarray) -> np.ndarray:
        if self.full is not None:
            return cast("np.ndarray", self.full[r, c])
        return ukeys(_take(self.b, self.kept, self.axes, r, c), self.policy)


def hist_block(b: Any, *, kept: Any, axes: Any, policy: Any, w: Any, bits: Any, nb: Any) -> Any:
    """Per-row histograms of the top ``bits`` bits of the keys (the first pass)."""
    if bits > TOP:  # one row, a histogram wider than 16 bits
        h = _wide_hist(b, policy, w, bits) if b.size else np.zeros(nb, dtype=np.int64)
        return h.reshape((1,) * b.ndim + (1, nb))
    rows = math.prod(b.shape[a] for a in kept)
    out = np.zeros((1, rows, nb), dtype=np.int64)
    raw = raw16(b) if not kept and fast_top(b.dtype, policy) else None
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


def _rawtop(b: np.ndarray) -> np.ndarray | None:
    """The top 32 raw bits of every element of a float32/64 block (its top 16 for
    float16), as an in-place view; None when no such view exists."""
    raw = raw16(b)
    if raw is None or b.dtype.itemsize == 2:
        return raw
    return b.reshape(-1).view(np.uint32)[b.dtype.itemsize // 4 - 1::b.dtype.itemsize // 4]


def _wide_hist(b: np.ndarray, policy: NanPolicy, w: int, bits: int) -> np.ndarray:
    """Histogram of the top ``bits`` (> 16) selection-key bits of a one-row block.

    Native floats: the top raw bits are read in place and mapped to key buckets in
    cache-sized blocks with reused buffers (no key array, no second histogram); then
    under "omit", "raise" and "propagate" the quiet-NaN buckets are folded into the top
    one (where :func:`ukeys` puts every NaN; a signaling NaN raises anyway). Other
    data: full keys, shifted.
    """
    nb = 1 << bits
    top = _rawtop(b) if fast_top(b.dtype, policy) else None
    if top is None or top.dtype.itemsize * 8 < bits:
        u = ukeys(np.ascontiguousarray(b).reshape(-1), policy) >> np.uint64(w - bits)
        return np.bincount(u.view(np.int64), minlength=nb)
    h = np.zeros(nb, dtype=np.int64)
    t = top.dtype.type
    sh, sign, half = t(top.dtype.itemsize * 8 - bits), t(bits - 1), t(nb >> 1)
    blk = min(_BLOCK, top.size)
    o, m = np.empty(blk, dtype=top.dtype), np.empty(blk, dtype=top.dtype)
    for c0 in range(0, top.size, blk):
        part = top[c0:c0 + blk]
        k, mk = o[:part.size], m[:part.size]
        np.right_shift(part, sh, out=k)
        # key order: a negative pattern flips all its bits, a positive one its sign
        np.right_shift(k, sign, out=mk)
        np.multiply(mk, t(half - 1), out=mk)
        np.bitwise_or(mk, half, out=mk)
        np.bitwise_xor(k, mk, out=k)
        np.add.at(h, k, 1)
    if not RULES[policy].orders_nans:
        q = (layout_of(b.dtype).exp_mask | layout_of(b.dtype).quiet_bit) >> (w - bits)
        hi, lo = h[(nb >> 1) + q:], h[:(nb >> 1) - q]  # positive / negative quiet NaNs
        nan = int(hi.sum() + lo.sum())
        hi[:] = 0
        lo[:] = 0
        h[-1] = nan
    return h


_BLOCK = 1 << 16  # elements per block of the wide histogram's in-place count


@functools.lru_cache(maxsize=32)
def _raw_to_key16(dtype: np.dtype, policy: NanPolicy) -> np.ndarray:
    """Key bucket (top 16 bits of the selection key) of each raw top-16 bit pattern.

    Under "omit", "raise" and "propagate" the patterns that hold only quiet NaNs go to
    the top bucket (where :func:`ukeys` puts every NaN); a signaling NaN raises anyway.
    """
    v = np.arange(1 << 16, dtype=np.int64)
    k = np.where(v & 0x8000, v ^ 0xFFFF, v ^ 0x8000)
    if not RULES[policy].orders_nans:
        k[special16(dtype)[1]] = 0xFFFF
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

    def __init__(self, e: list[Any]) -> None:
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

    def __reduce__(self) -> Any:
        return (_Refine, (self.e,))


def box_block(state: np.ndarray) -> np.ndarray:
    """The state of a block of rows as one object (what :func:`refine_block` takes)."""
    out = np.empty((1,) * (state.ndim - 2), dtype=object)
    out.reshape(-1)[0] = np.asarray(state)
    return out


def refine_block(b: Any, boxed: Any, *, kept: Any, axes: Any, policy: Any, w: Any, bits: Any,
                 limit: Any) -> Any:
    """One refinement pass over a block (see ``_select``); an object array of ``_Refine``.
    ``boxed``: the block's state, ``(rows..., targets, 4)``, boxed by :func:`box_block`
    (or the state itself)."""
    state = np.asarray(boxed)
    if state.dtype == object:
        state = state.reshape(-1)[0]
    rows = math.prod(b.shape[a] for a in kept)
    T = state.shape[-2]
    st = state.reshape(rows, T, 4)
    known = st[..., 2].astype(np.int64)
    active = known < w
    entries: list[list[Any]] = [[None] * T for _ in range(rows)]
    if active.any():
        gather = st[..., 3] <= np.uint64(limit)
        prefix = np.where(active, st[..., 0], 0).astype(np.int64)  # < 2**63 when active
        raw = raw16(b) if not kept and fast_top(b.dtype, policy) else None
        if raw is not None and b.size and (known[active] >= TOP).all():
            k16 = prefix[active] >> (known[active] - TOP)
            c_idx = scan_eq(raw, _key16_to_raw(b.dtype, policy, k16))
            r_idx = np.zeros(c_idx.size, np.int64)
            u = ukeys(b.reshape(-1)[c_idx], policy)
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


def refine_combine(parts: Any, axis: Any = None, keepdims: Any = True) -> Any:
    return np.add.reduce(np.asarray(parts, dtype=object), axis=axis, keepdims=True)


def refine_aggregate(parts: Any, axis: Any = None, keepdims: Any = False) -> Any:
    merged = np.add.reduce(np.asarray(parts, dtype=object), axis=axis, keepdims=False)
    if not isinstance(merged, np.ndarray):
        box = np.empty((), dtype=object)
        box[()] = merged
        merged = box
    return merged


def ident_chunk(b: Any, axis: Any = None, keepdims: Any = True) -> Any:
    return b


def ukey_extreme(b: Any, *, policy: Any, which: Any) -> Any:
    u = ukeys(b, policy)
    if (
        which == "max"
        and b.dtype.kind in "fmM"
        and not RULES[policy].orders_nans
    ):
        # removed values sit at the top key: take them out of the maximum
        top = np.uint64((1 << key_width(b.dtype)) - 1)
        u[u == top] = 0
    return u


def maxnan_block(b: np.ndarray, axes: Any) -> np.ndarray:
    """The largest totalOrder key of a NaN per row of a block (reduced axes kept with
    length 1; the int64 minimum where a row holds none). One-row native float blocks
    look only at their infinities and NaNs (found from the top 16 raw bits)."""
    low = np.iinfo(np.int64).min
    raw = raw16(b) if len(axes) == b.ndim else None
    if raw is not None:
        v = b.reshape(-1)[special_positions(raw, b.dtype)]
        v = v[np.isnan(v)]
        m = int(float_keys(v).astype(np.int64).max()) if v.size else low
        return np.full((1,) * b.ndim, m, dtype=np.int64)
    k = np.where(np.isnan(b), float_keys(b).astype(np.int64), low)
    return cast("np.ndarray", np.max(k, axis=axes, keepdims=True, initial=low))
