"""Lazy exponentially weighted statistics of dask arrays, bit-equal to in memory.

Each chunk along the running axis is one task continuing from the double-double state
of the chunks before it (:func:`nanaccess.core.ewm.stat.ewm_step`: the weighted sums,
the weight sums, the count, the shift of the variance), so ``da.nanstats.ewm(dim)`` of
a dask-backed DataArray gives exactly the in-memory values. The chunks of one row of
blocks run in order; the other blocks in parallel. ``times=`` and ``adjust=False``
with ``ignore_na=False`` need in-memory data.
"""

from __future__ import annotations

import itertools
from typing import Any

import dask.array as da
import numpy as np
from dask.base import tokenize
from dask.highlevelgraph import HighLevelGraph

from ..core.chunked import Reduction, scan_rows
from ..core.ewm import EWM_STATS, ewm_alpha
from ..core.ewm.stat import ewm_step
from ..errors import NaNError
from ..options import resolve_policy

__all__ = ["array_ewm"]


def _step(block: np.ndarray, state: Any, stat: str, params: dict[str, Any], policy: Any,
          offset: tuple[int, ...], ax: int) -> tuple[np.ndarray, Any]:
    try:  # the policy's errors (raise, signaling NaNs), at the block's own positions
        scan_rows(block, Reduction.of(block, block.ndim - 1), policy, None)
    except NaNError as err:
        if err.position is not None:
            pos = [int(o) + int(p) for o, p in zip(offset, err.position, strict=True)]
            pos.insert(ax, pos.pop())  # the running axis back in its place
            err.position = tuple(pos)
            err = err.relabel(err.subject)
        raise err from None
    rows = block.reshape(-1, block.shape[-1])
    out, new = ewm_step(rows, stat, state, policy=policy, **params)
    return out.reshape(block.shape), new


def _first(pair: tuple[Any, ...]) -> Any:
    return pair[0]


def _second(pair: tuple[Any, ...]) -> Any:
    return pair[1]


def array_ewm(a: Any, stat: str, *, axis: int = -1, com: float | None = None,
              span: float | None = None, halflife: float | None = None,
              alpha: float | None = None, adjust: bool = True, ignore_na: bool = True,
              min_periods: int = 0, bias: bool = False, policy: Any = None) -> Any:
    """Exponentially weighted ``stat`` (mean, var, std) along ``axis`` of a dask array,
    lazily; float64 (see the module).

    Examples
    --------
    >>> x = da.from_array(np.array([1.0, np.nan, 3.0, 4.0]), chunks=2)
    >>> array_ewm(x, "mean", alpha=0.5, policy="omit").compute().tolist()
    [1.0, 1.0, 2.3333333333333335, 3.2857142857142856]
    """
    if stat not in EWM_STATS:
        raise ValueError(f"unknown ewm statistic {stat!r}; expected one of {EWM_STATS}")
    if not adjust and not ignore_na:
        raise NotImplementedError("a lazy ewm with adjust=False needs ignore_na=True "
                                  "(or in-memory data)")
    if a.dtype.kind not in "fiub":
        raise TypeError(f"ewm {stat} needs float, int or bool data, got dtype {a.dtype}")
    policy = resolve_policy(policy)
    params = {"alpha": ewm_alpha(com, span, halflife, alpha), "adjust": bool(adjust),
              "ignore_na": bool(ignore_na), "min_periods": int(min_periods or 0),
              "bias": bool(bias)}
    if a.ndim == 0:
        a = a.reshape(1)
    ax = axis % a.ndim
    b = da.moveaxis(a, ax, -1)
    name = f"nanstats-ewm-{stat}-" + tokenize(b, stat, params, str(policy))
    step = name + "-step"
    starts = [np.concatenate([[0], np.cumsum(c)]).astype(int) for c in b.chunks]
    dsk: dict[Any, Any] = {}
    for lead in itertools.product(*[range(k) for k in b.numblocks[:-1]]):
        prev = None
        for j in range(b.numblocks[-1]):
            offset = tuple(int(starts[d][i]) for d, i in enumerate((*lead, j)))
            carry: tuple[Any, Any] | None = None if prev is None else (_second, prev)
            dsk[(step, *lead, j)] = (_step, (b.name, *lead, j), carry, stat, params, policy,
                                     offset, ax)
            dsk[(name, *lead, j)] = (_first, (step, *lead, j))
            prev = (step, *lead, j)
    graph = HighLevelGraph.from_collections(name, dsk, dependencies=[b])
    out = da.Array(graph, name, chunks=b.chunks, dtype=np.float64)
    return da.moveaxis(out, -1, ax)
