"""Streaming passes: when each pass of a selection is its own computation.

In the one-graph mode every pass of the exact selection (a histogram pass, then
refinement passes) sits in one lazy graph, so dask keeps each input chunk (or spills
it) until the last pass has read it. In the streaming mode each pass is its own
``dask.compute`` over the same input collection: a lazily generated or read input is
recomputed (re-read) per pass and its chunks are released after each pass; only the
small state between passes (bucket prefixes, ranks and counts per row) is kept, on
the client. ``k`` passes read the input ``k`` times; a persisted input is read from
memory each time (the same code).

Under ``"auto"`` (the default) the streaming passes are deferred: the statistic is a
lazy dask array of one task (:func:`deferred`) that runs the passes, each its own
computation, when the result is computed (on a distributed worker through
``worker_client``, so the passes run on the cluster). Whether a call would stream is
found by building its one-graph form under a probe (:func:`lazily`): a statistic that
needs no passes (a sum, a persisted input) keeps its one lazy graph.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import dask
import dask.array as da
import numpy as np
from dask.core import flatten, istask

from ..options import option_context, resolve_dask_passes

__all__ = ["is_persisted", "streams", "would_stream", "compute_pass", "as_dask",
           "lazily", "deferred", "defers"]

log = logging.getLogger("nanaccess.dask")


def is_persisted(x: da.Array) -> bool:
    """Whether ``x``'s graph holds only its own chunks, each already computed (NumPy
    arrays after a local ``persist``, futures after a distributed one): reading it
    again costs no recomputation.

    Examples
    --------
    >>> import dask.array as da
    >>> x = da.ones(10, chunks=5) + 1
    >>> is_persisted(x), is_persisted(x.persist())
    (False, True)
    """
    graph = x.__dask_graph__()
    keys = set(flatten(x.__dask_keys__()))
    return len(graph) == len(keys) and not any(istask(v) for v in graph.values())


#: set while :func:`lazily` builds a call's one-graph form: the streaming decisions
#: append to it (and answer "graph") instead of running passes
_PROBE: ContextVar[list | None] = ContextVar("nanaccess_stream_probe", default=None)


def would_stream(x: da.Array) -> bool:
    """Whether passes over ``x`` stream under the ``dask_passes`` option, when a
    selection needs them (a persisted input streams only under "streaming"); under
    the probe of :func:`lazily` the answer is noted and False."""
    mode = resolve_dask_passes(None)
    if mode == "graph" or (mode == "auto" and is_persisted(x)):
        return False
    probe = _PROBE.get()
    if probe is not None and mode == "auto":
        probe.append(True)
        return False
    return True


def streams(x: da.Array, kept: tuple[int, ...]) -> bool:
    """Whether the selection of ``x`` runs streaming, under the ``dask_passes`` option
    (the result's chunks must be known: they are rebuilt from the computed values)."""
    if any(math.isnan(c) for a in kept for c in x.chunks[a]):
        return False
    return would_stream(x)


def defers() -> bool:
    """Whether a call made now defers its streaming passes (option "auto", not
    already inside :func:`lazily`'s probe or a deferred task)."""
    return resolve_dask_passes(None) == "auto" and _PROBE.get() is None


def lazily(build: Callable[[], Any]) -> Any:
    """``build()`` (a lazy statistic) under ``"auto"``: its one-graph form when no
    pass would stream, else :func:`deferred` with that form's shape, dtype and chunks.

    ``build`` is called once here (a graph, nothing computed) and, when deferred, once
    more in the result's task under ``"streaming"``; it must be picklable for a
    distributed cluster (a ``functools.partial`` of a module-level function).
    """
    if not defers():
        return build()
    token = _PROBE.set([])
    try:
        like = build()
        hit = bool(_PROBE.get())
    finally:
        _PROBE.reset(token)
    if not hit:
        return like
    return deferred(build, like.shape, like.dtype, like.chunks)


def deferred(run: Callable[[], Any], shape: tuple[int, ...], dtype: Any,
             chunks: tuple[tuple[int, ...], ...], *, after: Sequence[Any] = (),
             before: Callable[..., None] | None = None) -> da.Array:
    """A lazy array whose one task runs ``run()`` with streaming passes when computed.

    ``run`` returns the values (a NumPy array or a dask array already computed, as
    the streaming functions return them); the input collection inside ``run`` is not
    a dependency of the task (dask would compute and hold it), it is read by the
    passes. ``after``: dask collections to compute first (an earlier variable's
    result or error record: its error comes first, as in memory); ``before`` is
    called with their values before ``run`` (to raise an earlier record). The result
    is rechunked to ``chunks`` (the one-graph form's, so both modes give the same
    chunks).
    """
    task = dask.delayed(_run_deferred, pure=True, traverse=False)(run, before, *after)
    dtype = np.dtype(dtype)
    out = da.from_delayed(task, shape=tuple(int(s) for s in shape), dtype=dtype,
                          meta=np.empty((0,) * len(shape), dtype))
    return out.rechunk(chunks) if len(shape) else out


def _run_deferred(run: Callable[[], Any], before: Callable[..., None] | None,
                  *after: Any) -> np.ndarray:
    """The task of :func:`deferred`: the passes as their own computations, on the
    cluster when this runs on a distributed worker."""
    if before is not None:
        before(*after)
    with option_context(dask_passes="streaming"), _cluster_scheduler():
        out = run()
        if dask.is_dask_collection(out):
            (out,) = dask.compute(out)
        return np.asarray(out)


@contextmanager
def _cluster_scheduler():
    """On a distributed worker: the worker's client as the scheduler of the passes
    (the task secedes from the worker's thread pool while they run); elsewhere the
    current scheduler (a local scheduler runs nested computations in their own pool)."""
    try:
        from distributed import get_worker, worker_client

        get_worker()
    except (ImportError, ValueError):
        yield
        return
    with worker_client() as client, dask.config.set(scheduler=client):
        yield


def compute_pass(what: str, *lazy: Any) -> tuple[Any, ...]:
    """One pass: compute ``lazy`` together (one read of the input) on the current
    scheduler (a distributed ``Client`` when one is the default)."""
    log.debug("nanaccess streaming pass: %s", what)
    return dask.compute(*lazy)


def as_dask(values: Any, chunks: tuple[tuple[int, ...], ...]) -> da.Array:
    """Computed values as a dask array with ``chunks`` (what the lazy mode returns)."""
    return da.from_array(values, chunks=chunks if chunks else ())
