"""A 0-d dask array as the dask ``Scalar`` pandas-like reductions return (shared by the
accessors of :mod:`.dataframe` and :mod:`.bivariate`)."""

from __future__ import annotations

from typing import Any

import numpy as np
from dask.base import tokenize

__all__ = ["scalar"]


def scalar(arr: Any) -> Any:
    """A 0-d dask array as a dask ``Scalar`` (what ``ddf.x.sum()`` returns): it computes
    to the NumPy scalar pandas' own reduction gives, not a 0-d array."""
    from dask.dataframe.dask_expr import from_graph

    key = arr.__dask_keys__()[0]
    name = "nanstats-scalar-" + tokenize(arr)
    layer = dict(arr.__dask_graph__())
    layer[(name, 0)] = (_item, key)
    meta = arr.dtype.type(0) if arr.dtype.kind in "fiub" else None
    return from_graph(layer, meta, (None, None), [(name, 0)], "nanstats-scalar")


def _item(block: Any) -> Any:
    return np.asarray(block)[()]
