"""Slabs of cells: a reduction over a dim of a lazily read input in a few computations.

Bringing a reduced dim whole (a median over ``time`` of a grid chunked along
``time``) is an all-to-all: every block of cells needs a piece of every input chunk,
so no block can start before every input chunk exists, and one graph holds the whole
input in the cluster (about ``input / workers`` per worker). In the streaming mode
(option ``dask_passes``, see :mod:`.stream`) the kept cells are cut instead into
``k`` slabs along one kept dim, each small enough that its share of the input fits a
worker's budget (:data:`HELD_CHUNKS` input chunks), and each slab is its own
computation: the input is read ``k`` times (for a lazily generated input, generated
``k`` times), and a worker holds about ``input / (k * workers)`` at once instead of
``input / workers``. Each slab's values are exact (the same core per block of cells),
so the result is the same bits.

Policy errors name the global count and first position: each slab reports the error
its own data raise (positions within the slab), the positions are moved into the
whole array and the first one, in the policy's order of kinds, is raised with the
counts of that kind added over the slabs.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, cast

import dask.array as da
import numpy as np

from ..core.chunked import NanTally, raise_for
from ..errors import NaNError
from ..options import NanPolicy
from .final import chunk_bytes
from .stream import Passes, as_dask, compute_pass, is_persisted, log, passes_of, would_stream

__all__ = ["HELD_CHUNKS", "plan_slabs", "by_slabs", "own_block", "worker_count", "slab"]

#: input chunks a worker may hold at once for a slab's all-to-all (its working block
#: and the core's scratch come on top: about two chunks more)
HELD_CHUNKS = 2.0


def worker_count() -> int:
    """Worker processes of the default distributed client (1 without one: the local
    schedulers share one process's memory)."""
    try:
        from distributed import default_client

        return max(len(default_client().scheduler_info()["workers"]), 1)
    except (ImportError, ValueError):
        return 1


def plan_slabs(x: da.Array, axes: tuple[int, ...], passes: str | Passes | None = None
               ) -> tuple[int, list[int]] | None:
    """``(axis, boundaries)`` of the slabs of kept cells for ``x`` reduced over
    ``axes`` whole, or None when one computation is right: not streaming (option
    ``dask_passes``), unknown chunks, a persisted input (held anyway), or an input
    whose share per worker already fits :data:`HELD_CHUNKS` chunks."""
    passes = passes_of(passes)
    mode = passes.mode
    kept = [a for a in range(x.ndim) if a not in axes]
    if (mode == "graph" or not kept or any(math.isnan(s) for s in x.shape)
            or any(math.isnan(c) for cs in x.chunks for c in cs)):
        return None
    if mode == "auto" and is_persisted(x):
        return None
    per_worker = x.nbytes / worker_count()
    k = math.ceil(per_worker / (HELD_CHUNKS * chunk_bytes(x)))
    if k <= 1 or not would_stream(x, passes):  # the probe of `lazily` notes a slab plan here
        return None
    axis = max(kept, key=lambda a: x.shape[a])
    k = min(k, int(x.shape[axis]))
    bounds = np.linspace(0, int(x.shape[axis]), k + 1).round().astype(int).tolist()
    return axis, bounds


def own_block(b: np.ndarray) -> np.ndarray:
    """A slab's piece of an input chunk as its own array (a view would keep the whole
    chunk alive while the piece waits for the all-to-all)."""
    return np.array(b, copy=True)


def slab(x: da.Array, axis: int, lo: int, hi: int) -> da.Array:
    """Cells ``lo:hi`` of ``x`` along ``axis``, each piece its own array."""
    index = tuple(slice(lo, hi) if a == axis else slice(None) for a in range(x.ndim))
    return cast("da.Array", x[index].map_blocks(own_block, dtype=x.dtype, meta=x._meta))


def _global_error(err: NaNError, axis: int, lo: int, shape: tuple[int, ...]) -> tuple[Any, ...]:
    """(kind, count, flat position in the whole array) of a slab's error."""
    pos = list(err.position) if err.position is not None else None
    flat = None
    if pos is not None and len(pos) == len(shape):
        pos[axis] += lo
        flat = int(np.ravel_multi_index(tuple(pos), shape))
    return err.kind, int(err.count), flat


def _raise_first(errors: list[tuple[Any, ...]], policy: NanPolicy, shape: tuple[int, ...],
                 relabel: Callable[[NaNError], NaNError] | None) -> None:
    """Raise the first of the slabs' errors as the whole array's (see the module
    docstring): the kind the policy raises first, its counts added."""
    order = {"signaling NaN": "signaling", "NaN": "nan", "missing": "missing"}
    tallies: dict[str, NanTally] = {}
    for kind, count, flat in errors:
        name = order.get(kind, "nan")
        t = NanTally(**{name: count, f"first_{name}": flat})
        tallies[name] = t if name not in tallies else tallies[name].merge(t)
    for name in ("signaling", "nan", "missing"):
        if name in tallies:
            try:
                raise_for(tallies[name], policy, shape=shape)
            except NaNError as err:
                if relabel is None:
                    raise
                raise relabel(err) from None
    raise RuntimeError(f"slabs raised {errors} but the policy raises none of them")


def by_slabs(x: da.Array, slabs: tuple[int, list[int]], run: Callable[[da.Array], Any],
             *, out_axis: Callable[[int], int], policy: NanPolicy,
             relabel: Callable[[NaNError], NaNError] | None) -> da.Array:
    """``run`` (a lazy statistic of a slab, errors unlabelled) computed slab by slab,
    the values joined along ``out_axis(ndim of a slab's result)``; errors as the
    module docstring says."""
    axis, bounds = slabs
    shape = tuple(int(s) for s in x.shape)
    parts, errors = [], []
    for lo, hi in zip(bounds[:-1], bounds[1:], strict=True):
        try:
            (vals,) = compute_pass(f"cells {lo}:{hi}", run(slab(x, axis, lo, hi)))
        except NaNError as err:
            errors.append(_global_error(err, axis, lo, shape))
            continue
        parts.append(np.asarray(vals))
    log.info("nanaccess slabs of cells: %d computations over %d chunks", len(bounds) - 1,
             x.npartitions)
    if errors:
        _raise_first(errors, policy, shape, relabel)
    ax = out_axis(parts[0].ndim)
    out = np.concatenate(parts, axis=ax)
    chunks = tuple((n,) if a != ax else tuple(p.shape[ax] for p in parts)
                   for a, n in enumerate(out.shape))
    return as_dask(out, chunks)
