"""Exact, lazy statistics on dask arrays: the public names of the dask engine.

The engine is split along its seams: :mod:`.select` (exact selection: histogram
passes over totalOrder key prefixes, with the block kernels in :mod:`.buckets` and the
keys in :mod:`.keys`), :mod:`.moments` (tree reduction of exact partials),
:mod:`.tally` (the NaN/missing tally, reduced as a tree and raised at compute time),
:mod:`.final` (result dtype, the per-block core path) and :mod:`.reduce`
(:func:`dask_reduce`: every statistic of the table, including iqr and mad). Results
equal the in-memory core's bit for bit; policy errors are raised when computed.
"""

from __future__ import annotations

from typing import Any

import dask.array as da

from .moments import MOMENT_STATS, dask_moment_stat
from .reduce import dask_reduce
from .select import ORDER_STATS, dask_order_stat

__all__ = [
    "dask_order_stat",
    "dask_moment_stat",
    "dask_reduce",
    "is_dask_array",
    "ORDER_STATS",
    "MOMENT_STATS",
]


def is_dask_array(x: Any) -> bool:
    """True for a :class:`dask.array.Array`.

    Examples
    --------
    >>> import numpy as np, dask.array as da
    >>> is_dask_array(da.zeros(3)), is_dask_array(np.zeros(3))
    (True, False)
    """
    return isinstance(x, da.Array)
