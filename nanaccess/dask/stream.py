"""Streaming passes: when each pass of a selection is its own computation.

In the one-graph mode every pass of the exact selection (a histogram pass, then
refinement passes) sits in one lazy graph, so dask keeps each input chunk (or spills
it) until the last pass has read it. In the streaming mode each pass is its own
``dask.compute`` over the same input collection: a lazily generated or read input is
recomputed (re-read) per pass and its chunks are released after each pass; only the
small state between passes (bucket prefixes, ranks and counts per row) is kept, on
the client. ``k`` passes read the input ``k`` times; a persisted input is read from
memory each time (the same code).
"""

from __future__ import annotations

import logging
import math
from typing import Any

import dask
import dask.array as da
from dask.core import flatten, istask

from ..options import resolve_dask_passes

__all__ = ["is_persisted", "streams", "compute_pass", "as_dask"]

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


def streams(x: da.Array, kept: tuple[int, ...]) -> bool:
    """Whether the selection of ``x`` runs streaming, under the ``dask_passes`` option
    (the result's chunks must be known: they are rebuilt from the computed values)."""
    mode = resolve_dask_passes(None)
    if mode == "graph" or any(math.isnan(c) for a in kept for c in x.chunks[a]):
        return False
    return mode == "streaming" or not is_persisted(x)


def compute_pass(what: str, *lazy: Any) -> tuple[Any, ...]:
    """One pass: compute ``lazy`` together (one read of the input) on the current
    scheduler (a distributed ``Client`` when one is the default)."""
    log.debug("nanaccess streaming pass: %s", what)
    return dask.compute(*lazy)


def as_dask(values: Any, chunks: tuple[tuple[int, ...], ...]) -> da.Array:
    """Computed values as a dask array with ``chunks`` (what the lazy mode returns)."""
    return da.from_array(values, chunks=chunks if chunks else ())
