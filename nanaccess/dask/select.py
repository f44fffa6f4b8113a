"""Exact, lazy order statistics of dask arrays: radix selection over key prefixes.

The first pass counts (per row) the top 16 key bits of every element (for native floats
the top 16 *raw* bits, read in place, mapped to key order afterwards: no key array is
built); a single row gets a wider histogram (up to 24 bits, sized to the data and to
half a chunk's bytes) so that one refinement usually suffices. The counts are summed by
a tree reduction and the bucket holding each wanted rank
(:func:`nanaccess.core.plan.rank_plan`) is found. A refinement pass gathers, from every
chunk, only the elements of the wanted buckets, computes their exact keys and selects
the rank among them (``np.partition``): two reads of the data in all. A bucket holding
more than ``_GATHER_LIMIT`` elements (heavily tied or skewed data) is narrowed instead
by a histogram of its next 16 key bits, pass after pass, so memory per task stays
bounded by a chunk. The final keys are inverted to the elements' exact bits and
combined by :func:`nanaccess.core.plan.combine`, so results equal
:func:`nanaccess.core.select.order_stat` bit for bit, with no rechunk, sort or gather
of the data. When every reduced axis lies in one chunk the core runs per block.

Each pass reads an input chunk in one task (the first pass's is
:func:`.first.first_block`: histogram, counts and NaN tally at once), so dask fuses
the chunk's own generating or reading tasks into it.

The passes run in one lazy graph, or (option ``dask_passes``) each as its own
computation with the small state between them kept by the caller: the client under
"streaming", the result's one deferred task under "auto" (:mod:`.stream`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

import dask.array as da
import numpy as np
from dask.base import tokenize

from .. import _stats
from ..core.chunked import (
    RULES,
    combine,
    empty_value,
    keys_to_float,
    layout_of,
    normalize_axis,
    rank_plan,
)
from ..errors import NaNError
from ..options import NanPolicy, resolve_policy
from .buckets import (
    TOP,
    box_block,
    ident_chunk,
    refine_aggregate,
    refine_block,
    refine_combine,
)
from .final import (
    apply_keepdims,
    axes_whole,
    bounded_whole_axes,
    chunk_bytes,
    out_dtype,
    per_block_core,
    whole_axes,
)
from .first import first_block, merge_records, record_counts, record_tally
from .keys import from_ukeys, key_width
from .leading import leading_order
from .stream import Passes, as_dask, compute_pass, log, streams
from .tally import merge_tally as _merge_tally
from .tally import needs_check, policy_check, raise_from_info
from .typed_dask import blockwise, map_blocks, reduction

__all__ = ["dask_order_stat", "ORDER_STATS"]

#: what :func:`dask_order_stat` computes (the order and arg families of the table)
ORDER_STATS = _stats.ORDER + _stats.ARG

_GATHER_LIMIT = 1 << 21  # a bucket with at most this many keys is gathered and selected
_WIDE = 24  # most bits of a one-row first-pass histogram (16M bins: 128 MB)


def _init_state(neff: Any, *, stat: Any, q: Any, method: Any) -> Any:
    """State ``[prefix, rank, known bits, bucket count]`` per row and target."""
    neff = np.asarray(neff, dtype=np.int64)
    ranks = rank_plan(stat, neff.ravel(), q, method).ranks  # (T, rows): lo then hi
    ranks = np.clip(ranks, 0, None).T.astype(np.uint64)  # (rows, T)
    st = np.zeros(ranks.shape + (4,), dtype=np.uint64)
    st[..., 1] = ranks
    return st.reshape(neff.shape + st.shape[-2:])


def _first_state(rec: Any, *, stat: Any, q: Any, method: Any, removes: Any, bits_now: Any) -> Any:
    """The state after the first pass, from a reduced :class:`.first.FirstRecord`."""
    r = np.asarray(rec, dtype=object).reshape(-1)[0]
    counts = record_counts(rec, removes=removes)
    st = _init_state(counts[..., 0], stat=stat, q=q, method=method)
    if r.ext is not None:  # min / max: the extreme key is the answer
        st[..., 0] = r.ext.reshape(r.kshape)[..., None]
        return st
    return _locate(r.hist.reshape(r.kshape + (1, -1)), st, bits_now=bits_now)


def _checked(state: Any, *info: Any, policy: Any, shape: Any, relabel: Any) -> Any:
    """The state, once the tally (or the caller's check) raised nothing."""
    raise_from_info(info[0] if info else None, policy, shape, relabel)
    return state


def _locate(hist: Any, state: Any, *, bits_now: Any) -> Any:
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


def _locate_refine(refined: Any, state: Any, *, w: Any) -> Any:
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


def _finish_block(state: Any, counts: Any, *, stat: Any, q: Any, qshape: Any, method: Any,
                  policy: Any, in_dtype: Any, res_dtype: Any,
                  has_maxnan: Any) -> Any:
    """Values from the final prefixes (= keys), combined by the core's rank plan."""
    state = np.asarray(state)
    kept_shape = state.shape[:-2]
    rows = int(np.prod(kept_shape, dtype=np.int64))
    ntargets = state.shape[-2]
    keys = state[..., 0].reshape(rows, ntargets).T  # (T, rows)
    nq = ntargets // 2
    vals = from_ukeys(keys, in_dtype, policy)
    lo_v, hi_v = vals[:nq], vals[nq:]
    counts = np.asarray(counts, np.int64).reshape(rows, 4)
    neff, nnan, nmiss, maxkey = counts.T
    plan = rank_plan(stat, neff, q, method)
    res = np.asarray(combine(plan, lo_v, hi_v))
    res = np.array(np.broadcast_to(res, (nq, rows)), dtype=res_dtype)
    empty = neff <= 0
    fill = empty_value(res_dtype, stat) if res_dtype.kind in "fmM" else 0
    r = RULES[policy]
    if r.orders_nans and nmiss.any():  # missing values rank after everything
        tail = plan.reaches(neff - nmiss)
        res[np.broadcast_to(tail, res.shape)] = fill
    if empty.any():
        res[:, empty] = fill
    if r.propagates:
        if has_maxnan:
            hit = nnan > 0
            if hit.any():
                nanv = keys_to_float(maxkey.astype(layout_of(in_dtype).int_dtype), in_dtype)
                res[:, hit] = nanv[hit].astype(res_dtype)
            miss_only = (nmiss > 0) & ~hit
        else:
            miss_only = nmiss > 0
        if miss_only.any():
            res[:, miss_only] = fill
    return res.reshape(qshape + kept_shape)


def _max_chunk(chunks: tuple[float, ...]) -> int:
    sizes = [c for c in chunks if not math.isnan(c)]
    return int(max(sizes)) if len(sizes) == len(chunks) and sizes else 1 << 20


def _wanted_bits(x: da.Array) -> int:
    """Key bits after which a bucket of values spread evenly over one binade (the
    densest common case: a float bucket spans 2**-(bits - sign - exponent bits) of a
    binade) holds at most half of ``_GATHER_LIMIT`` of the ``x.size`` values. Integers
    and unknown sizes: as wide as the budget allows."""
    if x.dtype.kind != "f" or math.isnan(x.size):
        return _WIDE
    lay = layout_of(x.dtype)
    head = lay.bits - lay.mantissa_bits  # sign and exponent bits
    return head + max(int(x.size).bit_length() - (_GATHER_LIMIT.bit_length() - 1) + 1, 0)


def first_bits(x: da.Array, axes: tuple[int, ...]) -> int | None:
    """Bits of the first-pass histogram, sized to the block: at most 16, and the
    per-row histograms of a chunk (8 bytes a bin) take at most half its bytes, so a
    task (and a tree step adding a few of them) stays near one chunk. None when even
    256 bins per row would not fit: so many rows share a chunk that the reduced axes
    are better brought whole into bounded blocks of rows (:func:`bounded_whole_axes`)."""
    kept = [a for a in range(x.ndim) if a not in axes]
    rows_c = max(math.prod(_max_chunk(x.chunks[a]) for a in kept), 1)
    budget = max(chunk_bytes(x) // 2, 1 << 16)
    if rows_c == 1:
        # one row: wide enough that one refinement pass usually gathers the wanted
        # bucket, within half the chunk's bytes (and _WIDE bits)
        bits = TOP
        while (bits < min(_WIDE, key_width(x.dtype), _wanted_bits(x))
               and (8 << (bits + 1)) <= budget):
            bits += 1
        return min(bits, key_width(x.dtype))
    bits = min(TOP, key_width(x.dtype))
    while bits > 8 and rows_c * (8 << bits) > budget:
        bits -= 2
    return None if rows_c * (8 << bits) > budget else bits


class _Plan:
    """What every pass of one selection shares (index names, targets, parameters)."""

    def __init__(self, x: Any, stat: Any, qarr: Any, method: Any, axes: Any, policy: Any,
                 res_dtype: Any, check: Any, relabel: Any, shape: Any,
                 bits: Any) -> None:
        self.nd = nd = x.ndim
        self.axes, self.stat, self.method, self.policy = axes, stat, method, policy
        self.kept = tuple(a for a in range(nd) if a not in axes)
        self.xi = tuple(f"d{i}" for i in range(nd))
        self.ki = tuple(self.xi[a] for a in self.kept)
        self.qflat = None if qarr is None else qarr.ravel()
        self.qshape = () if qarr is None else qarr.shape
        self.ntargets = 2 * (1 if qarr is None else max(int(qarr.size), 1))
        self.w = key_width(x.dtype)
        self.bits = bits
        self.in_dtype, self.res_dtype = x.dtype, res_dtype
        self.check, self.relabel, self.shape = check, relabel, shape
        # the first pass tallies the NaNs itself unless the caller's check does
        self.tally = check is None and needs_check(x.dtype, policy)
        self.has_maxnan = RULES[policy].propagates and x.dtype.kind == "f"

    @property
    def refinements(self) -> int:
        """Most refinement passes a selection can need (16 more key bits each)."""
        return 0 if self.stat in _stats.EXTREMES else -(-(self.w - self.bits) // TOP)

    def state_meta(self) -> np.ndarray:
        return np.empty((0,) * (len(self.ki) + 2), np.uint64)


def _first_pass(x: Any, p: _Plan) -> dict[str, da.Array]:
    """The lazy first pass: one task per chunk (:func:`.first.first_block`), one tree of
    records, split into the state after the first histogram (or the extreme keys of
    min / max) and the counts per row; the state passes the policy check."""
    ki, kept = p.ki, p.kept
    rules = RULES[p.policy]
    kind = x.dtype.kind
    hist = p.stat not in _stats.EXTREMES
    nb = 1 << p.bits if hist else 1
    # the layer keeps the name "hist_block" (the scale benchmark counts passes by it)
    name = "hist_block-" + tokenize(x, p.stat, p.axes, p.policy, p.bits, p.tally)
    recs = map_blocks(
        first_block, x, name=name, dtype=object, chunks=tuple((1,) * n for n in x.numblocks),
        meta=np.empty((0,) * p.nd, dtype=object),
        kept=kept, axes=p.axes, policy=p.policy, w=p.w, bits=p.bits, stat=p.stat,
        tally=p.tally, nans=kind == "f" and (rules.removes or rules.propagates),
        missing=kind in "mM", maxnan=p.has_maxnan,
    )
    # a tree step merges split_every records: about one chunk at most
    per = 8 * nb * max(1, math.prod(_max_chunk(x.chunks[a]) for a in kept))
    every = max(2, min(4, chunk_bytes(x) // per))
    rec = reduction(
        recs, ident_chunk, merge_records, combine=merge_records, axis=p.axes,
        keepdims=False, dtype=object, concatenate=True, split_every=every,
        meta=np.empty((0,) * len(ki), dtype=object),
    )
    back = {k: x.chunks[a] for k, a in zip(ki, kept, strict=True)}  # one record a block
    state = blockwise(
        _first_state, ki + ("t", "s"), rec, ki, new_axes={"t": p.ntargets, "s": 4},
        adjust_chunks=back, dtype=np.uint64, concatenate=True, meta=p.state_meta(),
        stat=p.stat, q=p.qflat, method=p.method, removes=rules.removes, bits_now=p.bits,
    )
    counts = blockwise(
        record_counts, ki + ("c",), rec, ki, new_axes={"c": 4}, adjust_chunks=back,
        dtype=np.int64, concatenate=True, meta=np.empty((0,) * (len(ki) + 1), np.int64),
        removes=rules.removes,
    )
    info = p.check
    if p.tally:
        info = blockwise(record_tally, ki + ("six",), rec, ki, new_axes={"six": 6},
                            dtype=np.int64, meta=np.empty((0,) * (len(ki) + 1), np.int64))
        if ki:  # the global tally: merged over the blocks of rows
            info = reduction(info, _merge_tally, _merge_tally, combine=_merge_tally,
                                axis=tuple(range(len(ki))), keepdims=False, dtype=np.int64,
                                concatenate=True, meta=np.empty((0,), np.int64))
    if info is not None:
        state = blockwise(
            _checked, ki + ("t", "s"), state, ki + ("t", "s"), info, ("info",),
            dtype=np.uint64, concatenate=True, meta=p.state_meta(),
            policy=p.policy, shape=p.shape, relabel=p.relabel,
        )
    return {"state": state, "counts": counts, "info": info}


def _refine_pass(x: Any, state: Any, p: _Plan) -> Any:
    """One lazy refinement pass: gather the wanted buckets' keys and select among them,
    or narrow a crowded bucket by 16 more key bits."""
    kw = dict(kept=p.kept, axes=p.axes, policy=p.policy, w=p.w, bits=TOP, limit=_GATHER_LIMIT)
    chunks = {p.xi[a]: 1 for a in p.axes}
    meta = np.empty((0,) * p.nd, dtype=object)
    if isinstance(state, np.ndarray) and not p.kept:
        # streaming, all axes reduced: the few state values ride in the task itself, so
        # the chunk's task is its only dependency (dask fuses even a materialized
        # input layer, such as dask.array.random's, into a sole dependent)
        parts = blockwise(refine_block, p.xi, x, p.xi, adjust_chunks=chunks,
                             dtype=object, meta=meta, boxed=state, **kw)
    else:
        # the state of each block of rows boxed in one object, indexed by the kept axes
        # alone: a blockwise layer whose inputs carry indices its output lacks (the
        # targets) is a reduction to dask, which then never fuses the input chunk's own
        # tasks into it (the chunk would be a stored task output)
        if isinstance(state, np.ndarray):
            state = as_dask(state, tuple(x.chunks[a] for a in p.kept)
                            + ((p.ntargets,), (4,)))
        boxed = blockwise(
            box_block, p.ki, state, p.ki + ("t", "s"), adjust_chunks={k: 1 for k in p.ki},
            dtype=object, concatenate=True, meta=np.empty((0,) * len(p.ki), dtype=object),
        )
        parts = blockwise(refine_block, p.xi, x, p.xi, boxed, p.ki, align_arrays=False,
                             adjust_chunks=chunks, dtype=object, meta=meta, **kw)
    refined = reduction(
        parts, ident_chunk, refine_aggregate, combine=refine_combine,
        axis=p.axes, keepdims=False, dtype=object, concatenate=True,
        meta=np.empty((0,) * len(p.ki), dtype=object),
    )
    if isinstance(state, np.ndarray):
        state = as_dask(state, ((p.ntargets,), (4,)))
    return blockwise(
        _locate_refine, p.ki + ("t", "s"), refined, p.ki, state, p.ki + ("t", "s"),
        dtype=np.uint64, concatenate=True, meta=p.state_meta(), w=p.w,
    )


def _finish_kw(p: _Plan) -> dict[str, Any]:
    return dict(stat=p.stat, q=p.qflat, qshape=p.qshape, method=p.method, policy=p.policy,
                in_dtype=p.in_dtype, res_dtype=p.res_dtype, has_maxnan=p.has_maxnan)


def _select(x: Any, p: _Plan) -> Any:
    """The one lazy graph of the radix selection (see the module docstring)."""
    first = _first_pass(x, p)
    state = first["state"]
    # refinement: a bucket small enough is gathered and selected exactly in one more
    # pass (the usual case); a crowded one is narrowed by 16 more bits a pass
    for _p in range(p.refinements):
        state = _refine_pass(x, state, p)
    ki = p.ki
    fin_args: list[Any] = [state, ki + ("t", "s"), first["counts"], ki + ("c",)]
    qi = tuple(f"q{i}" for i in range(len(p.qshape)))
    return blockwise(
        _finish_block, qi + ki, *fin_args,
        new_axes={k: s for k, s in zip(qi, p.qshape, strict=True)},
        dtype=p.res_dtype, concatenate=True,
        meta=np.empty((0,) * (len(qi) + len(ki)), p.res_dtype), **_finish_kw(p),
    )


def _stream_select(x: Any, p: _Plan) -> da.Array:
    """The radix selection with each pass its own computation (see :mod:`.stream`):
    the input is read once per pass and only the state between passes is kept."""
    first = _first_pass(x, p)
    state, counts = compute_pass("histogram", first["state"], first["counts"])
    chunks = tuple(x.chunks[a] for a in p.kept)
    passes = 1
    for _p in range(p.refinements):
        if (state[..., 2] >= p.w).all():  # every target resolved: no more reads
            break
        lazy = _refine_pass(x, state, p)
        (state,) = compute_pass("refinement", lazy)
        passes += 1
    log.info("nanaccess streaming %s of %s: %d passes over %d chunks", p.stat, x.dtype,
             passes, x.npartitions)
    res = _finish_block(state, counts, **_finish_kw(p))
    return as_dask(res, tuple((s,) for s in p.qshape) + chunks)


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
    dask_passes: str | Passes | None = None,
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
    dask_passes : {"auto", "graph", "streaming"}, optional
        How the selection's passes run (None: the ``dask_passes`` option).

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
    if stat in _stats.TAKES_Q:
        if q is None:
            raise TypeError("quantile needs q")
        qarr = np.asarray(q, dtype=np.float64)
    else:
        qarr = None
    qshape = qarr.shape if qarr is not None else ()
    if x.dtype.kind == "c" and stat in _stats.ORDER:
        raise TypeError(f"complex numbers have no order: cannot take the {stat} of {x.dtype}")
    res_dtype = out_dtype(x, stat, axes, **({"q": qarr, "method": method}
                                            if stat in _stats.TAKES_Q else {}))
    shape = tuple(0 if math.isnan(s) else int(s) for s in x.shape)

    x0 = x  # the tally's positions are those of the caller's array
    single = axes_whole(x, axes)
    bits = None if single else first_bits(x, axes)
    if not single and (stat not in _stats.ORDER or x.dtype.kind not in "fiubmM"):
        # argmin/argmax and object data: bring the reduced axes into one chunk (rows
        # whole: the core's errors name rows of the whole array)
        x, single = whole_axes(x, axes), True
    elif not single and bits is None:
        # many rows per chunk: the reduced axes whole in blocks of rows no larger than
        # an input chunk, the core per block (no histogram could fit a task)
        x, single = bounded_whole_axes(x, axes), True
    if single:
        info = policy_check(x0, policy, check)
        # over a leading axis the block is read in place (.leading), else the core
        fn = partial(leading_order, stat=stat, q=qarr, method=method, policy=policy)
        return per_block_core(x, fn, axes, keepdims, res_dtype, qshape, info, policy,
                              relabel)
    check = None if check is None else policy_check(x, policy, check)
    plan = _Plan(x, stat, qarr, method, axes, policy, res_dtype, check, relabel, shape,
                 0 if bits is None else bits)
    if streams(x, plan.kept, dask_passes):
        res = _stream_select(x, plan)
    else:
        res = _select(x, plan)
    return apply_keepdims(res, axes, x.ndim, len(qshape), keepdims)
