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

The mode is a parameter (:class:`Passes`), read from the ``dask_passes`` option once
where a call enters the dask engine (:func:`nanaccess.dask.reduce.dask_reduce`) and
passed down; no function here sets an option or reads ambient state.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import dask
import dask.array as da
import numpy as np

from ..options import resolve_dask_passes
from .typed_dask import (
    compute,
    delayed,
    flatten,
    from_array,
    from_delayed,
    is_dask_collection,
    istask,
    rechunk,
)

__all__ = ["is_persisted", "streams", "would_stream", "compute_pass", "as_dask",
           "lazily", "deferred", "defers", "Passes", "passes_of"]

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


@dataclass(frozen=True)
class Passes:
    """How the passes of a selection run: ``mode`` is ``"auto"``, ``"graph"`` or
    ``"streaming"``; ``probe`` is set while :func:`lazily` builds a call's one-graph
    form: the streaming decisions append to it (and answer "graph") instead of
    running passes."""

    mode: str
    probe: list[Any] | None = field(default=None, compare=False)


def passes_of(passes: str | Passes | None) -> Passes:
    """``passes`` as a :class:`Passes` (None: the ``dask_passes`` option, read once
    by the caller that enters the engine)."""
    if isinstance(passes, Passes):
        return passes
    return Passes(resolve_dask_passes(passes))


def would_stream(x: da.Array, passes: str | Passes | None = None) -> bool:
    """Whether passes over ``x`` stream under ``passes``, when a selection needs them
    (a persisted input streams only under "streaming"); under the probe of
    :func:`lazily` the answer is noted and False."""
    p = passes_of(passes)
    if p.mode == "graph" or (p.mode == "auto" and is_persisted(x)):
        return False
    if p.probe is not None and p.mode == "auto":
        p.probe.append(True)
        return False
    return True


def streams(x: da.Array, kept: tuple[int, ...], passes: str | Passes | None = None) -> bool:
    """Whether the selection of ``x`` runs streaming under ``passes`` (the result's
    chunks must be known: they are rebuilt from the computed values)."""
    if any(math.isnan(c) for a in kept for c in x.chunks[a]):
        return False
    return would_stream(x, passes)


def defers(passes: str | Passes | None = None) -> bool:
    """Whether a call under ``passes`` defers its streaming passes ("auto", not
    already inside :func:`lazily`'s probe)."""
    p = passes_of(passes)
    return p.mode == "auto" and p.probe is None


def lazily(build: Callable[..., Any], passes: str | Passes | None = None) -> Any:
    """``build(dask_passes=...)`` (a lazy statistic) under ``"auto"``: its one-graph
    form when no pass would stream, else :func:`deferred` with that form's shape,
    dtype and chunks.

    ``build`` is called once here under a probe (a graph, nothing computed) and,
    when deferred, once more in the result's task with ``"streaming"``; it must be
    picklable for a distributed cluster (a ``functools.partial`` of a module-level
    function).
    """
    p = passes_of(passes)
    if not defers(p):
        return build(dask_passes=p)
    probe = Passes("auto", [])
    like = build(dask_passes=probe)
    if not probe.probe:
        return like
    return deferred(partial(build, dask_passes=Passes("streaming")), like.shape, like.dtype,
                    like.chunks)


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
    task = delayed(_run_deferred, pure=True, traverse=False)(run, before, *after)
    dtype = np.dtype(dtype)
    out = from_delayed(task, shape=tuple(int(s) for s in shape), dtype=dtype,
                          meta=np.empty((0,) * len(shape), dtype))
    return rechunk(out, chunks) if len(shape) else out


def _run_deferred(run: Callable[[], Any], before: Callable[..., None] | None,
                  *after: Any) -> np.ndarray:
    """The task of :func:`deferred`: the passes as their own computations, on the
    cluster when this runs on a distributed worker."""
    if before is not None:
        before(*after)
    with _cluster_scheduler():
        out = run()
        if is_dask_collection(out):
            (out,) = compute(out)
        return np.asarray(out)


@contextmanager
def _cluster_scheduler() -> Iterator[None]:
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
    return compute(*lazy)


def as_dask(values: Any, chunks: tuple[tuple[int, ...], ...]) -> da.Array:
    """Computed values as a dask array with ``chunks`` (what the lazy mode returns)."""
    return from_array(values, chunks=chunks if chunks else ())
