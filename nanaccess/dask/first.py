"""The first pass of the dask selection, fused: one task per input chunk.

Everything the first pass needs from a chunk (the histogram of the top key bits, or
the extreme keys of min / max; per row the element count, the NaNs, the missing values
and the largest NaN key; the NaN tally the policy check raises from) is computed by one
function, :func:`first_block`, into one :class:`FirstRecord`. The records are reduced
by one tree over the reduced axes and then split into the named parts. The input
chunk thus has a single consumer, so dask's blockwise fusion computes (generates,
reads) it inside that task and never stores it as a task output: a loaded scheduler
cannot run input tasks ahead of several consumers and hold (or spill) their chunks.
"""

from __future__ import annotations

import math
from typing import Any, cast

import numpy as np

from .. import _stats
from ..core.chunked import NanTally, float_keys, layout_of
from ..options import NanPolicy
from .buckets import fast_top, hist_block, maxnan_block, ukey_extreme
from .tally import block_tally, globalize, raw16, signaling_mask, special_positions

__all__ = ["FirstRecord", "first_block", "merge_records", "record_tally", "record_counts"]

_LOW = np.iinfo(np.int64).min  # the largest NaN key of a row without NaNs
_U64_MAX = np.iinfo(np.uint64).max


class FirstRecord:
    """What the first pass learnt from a block of rows (``kshape``: its kept shape).

    ``n`` elements per row; per row (flat, C order of the kept axes) the histogram
    ``hist`` (rows, bins) or the extreme key ``ext`` (``which`` is "min" or "max"), the
    NaN count ``nnan``, the missing count ``nmiss`` and the largest NaN key ``maxnan``;
    ``tally`` the six-int :class:`NanTally` of the block (global positions). A part not
    asked for is None.
    """

    __slots__ = ("kshape", "n", "hist", "ext", "which", "nnan", "nmiss", "maxnan", "tally")

    def __init__(self, kshape: Any, n: Any, hist: Any = None, ext: Any = None, which: Any = None,
                 nnan: Any = None, nmiss: Any = None,
                 maxnan: Any = None, tally: Any = None) -> None:
        self.kshape, self.n, self.hist, self.ext, self.which = kshape, n, hist, ext, which
        self.nnan, self.nmiss, self.maxnan, self.tally = nnan, nmiss, maxnan, tally

    def __reduce__(self) -> Any:
        return (FirstRecord, tuple(getattr(self, k) for k in self.__slots__))

    def copy(self) -> FirstRecord:
        return FirstRecord(*(v.copy() if isinstance(v, np.ndarray) else v
                             for v in (getattr(self, k) for k in self.__slots__)))

    def add(self, o: FirstRecord) -> None:
        """Merge ``o`` (the same rows, other elements) into this record, in place."""
        self.n += o.n
        for k in ("hist", "nnan", "nmiss"):
            a = getattr(self, k)
            if a is not None:
                a += getattr(o, k)
        if self.maxnan is not None:
            np.maximum(self.maxnan, o.maxnan, out=self.maxnan)
        if self.ext is not None:
            (np.minimum if self.which == "min" else np.maximum)(self.ext, o.ext, out=self.ext)
        if self.tally is not None:
            self.tally = NanTally.merge_arrays(np.stack([self.tally, o.tally]), axis=0)


def first_block(b: np.ndarray, block_info: dict[Any, Any] | None = None, *, kept: Any, axes: Any,
                policy: NanPolicy, w: int, bits: int, stat: str, tally: bool,
                nans: bool, missing: bool, maxnan: bool) -> np.ndarray:
    """The :class:`FirstRecord` of one block, in a ``(1,) * b.ndim`` object array.

    One-row native float blocks find their infinities and NaNs once, from the top 16
    raw bits, for the tally, the NaN count and the largest NaN key alike.
    """
    kshape = tuple(b.shape[a] for a in kept)
    rows = math.prod(kshape)
    rec = FirstRecord(kshape, math.prod(b.shape[a] for a in axes))
    if stat in _stats.EXTREMES:
        u = ukey_extreme(b, policy=policy, which=stat)
        low = stat in _stats.RANK_MIN
        red = np.min if low else np.max
        init = _U64_MAX if low else 0
        rec.ext = red(u, axis=axes, initial=init).astype(np.uint64).reshape(rows)
        rec.which = stat
    else:
        nb = 1 << bits
        h = hist_block(b, kept=kept, axes=axes, policy=policy, w=w, bits=bits, nb=nb)
        rec.hist = h.reshape(rows, nb)
    raw = raw16(b) if not kept and b.size else None
    if raw is not None and (tally or nans or maxnan):
        if fast_top(b.dtype, policy) and not _maybe_special(rec.hist, b.dtype, bits):
            # the histogram counts no infinity or NaN: no scan for them
            pos = np.zeros(0, np.intp)
        else:
            pos = special_positions(raw, b.dtype)
        v = b.reshape(-1)[pos]
        nan, sig = signaling_mask(v)
        if tally:
            spos, npos = pos[sig], pos[nan]
            t = NanTally(int(spos.size), int(spos[0]) if spos.size else None,
                         int(npos.size), int(npos[0]) if npos.size else None)
            rec.tally = globalize(t, b.shape, block_info).as_array()
        if nans:
            rec.nnan = np.array([np.count_nonzero(nan)], dtype=np.int64)
        if maxnan:
            v = v[nan]
            rec.maxnan = np.array([float_keys(v).astype(np.int64).max() if v.size else _LOW],
                                  dtype=np.int64)
    else:
        if tally:
            rec.tally = globalize(block_tally(b), b.shape, block_info).as_array()
        if nans:
            rec.nnan = np.isnan(b).sum(axis=axes, dtype=np.int64).reshape(rows)
        if maxnan:
            rec.maxnan = maxnan_block(b, axes).reshape(rows)
    if missing:
        rec.nmiss = np.isnat(b).sum(axis=axes, dtype=np.int64).reshape(rows)
    out = np.empty((1,) * b.ndim, dtype=object)
    out.reshape(-1)[0] = rec
    return out


def _maybe_special(hist: np.ndarray | None, dtype: np.dtype, bits: int) -> bool:
    """Whether a one-row histogram of the top ``bits`` key bits may count an infinity
    or a NaN: with unshifted keys (:func:`.buckets._fast_top` policies) every one sits
    in a bucket whose sign-and-exponent bits are all ones (positive, and the quiet NaNs
    the policy files at the top) or all zeros (negative)."""
    head = layout_of(dtype).bits - layout_of(dtype).mantissa_bits
    if hist is None or bits < head:
        return True
    h = hist.reshape(-1)
    span = 1 << (bits - head)  # buckets per sign-and-exponent pattern
    return bool(h[:span].any() or h[-span:].any())


def merge_records(parts: Any, axis: Any = None, keepdims: Any = False) -> np.ndarray:
    """Tree step of the records of a block of rows: one record (copied, then merged in
    place). Every kept axis has length one here, so the whole array is merged."""
    flat = np.asarray(parts, dtype=object).reshape(-1)
    rec = flat[0].copy()
    for o in flat[1:]:
        rec.add(o)
    nd = np.ndim(parts)
    out = np.empty((1,) * (nd if keepdims else nd - len(_axes(axis, nd))), dtype=object)
    out.reshape(-1)[0] = rec
    return out


def _axes(axis: Any, nd: int) -> tuple[int, ...]:
    if axis is None:
        return tuple(range(nd))
    return (axis,) if isinstance(axis, int) else tuple(axis)


def _record(rec: Any) -> FirstRecord:
    return cast("FirstRecord", np.asarray(rec, dtype=object).reshape(-1)[0])


def record_tally(rec: Any) -> np.ndarray:
    """The six-int tally of a reduced record, with a leading axis per kept axis."""
    r = np.asarray(rec, dtype=object)
    return cast("np.ndarray", _record(r).tally.reshape((1,) * r.ndim + (6,)))


def record_counts(rec: Any, *, removes: bool) -> np.ndarray:
    """``kshape + (4,)`` int64 per row: n_eff, n_nan, n_missing, largest NaN key."""
    r = _record(rec)
    rows = math.prod(r.kshape)
    nnan = r.nnan if r.nnan is not None else np.zeros(rows, np.int64)
    nmiss = r.nmiss if r.nmiss is not None else np.zeros(rows, np.int64)
    mx = r.maxnan if r.maxnan is not None else np.full(rows, _LOW, np.int64)
    n = np.full(rows, r.n, np.int64)
    neff = n - nnan - nmiss if removes else n
    return np.stack([neff, nnan, nmiss, mx], axis=-1).reshape(r.kshape + (4,))
