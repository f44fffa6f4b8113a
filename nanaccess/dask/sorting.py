"""sort / argsort / rank of a dask array: the core's sort of the whole array in one
lazy task (a sort needs every value of its axis), so nothing computes before
``.compute()`` and errors are raised then. Called from :mod:`nanaccess.api`; the
core's :mod:`nanaccess.core.sorting` knows no dask."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import dask.array as da
import numpy as np

from ..core.chunked import RANK_DEFAULT, RULES, SORT_DEFAULT, sort_policy
from .typed_dask import delayed, from_delayed

__all__ = ["lazy_sort"]


def lazy_sort(fn: Callable[..., Any], data: Any, dtype: Any, *, keeps_length: bool,
              axis: Any, nan_policy: Any, **kw: Any) -> da.Array:
    """``fn`` (a core sort, argsort or rank) of ``data`` as a lazy dask array;
    ``keeps_length``: ``fn`` gives every slot a value (a rank), so "omit" keeps the
    shape; otherwise "omit" drops NaNs and the length is unknown.

    Examples
    --------
    >>> from nanaccess.core.sorting import sort
    >>> x = da.from_array(np.array([2.0, np.nan, 1.0]), chunks=2)
    >>> lazy_sort(sort, x, x.dtype, keeps_length=False, axis=-1,
    ...           nan_policy="omit").compute()
    array([1., 2.])
    """
    # a bad policy is refused now, not at compute; a rank keeps every slot (its default
    # is "omit"), a sort's default is "largest" (spec section 5)
    policy = sort_policy(nan_policy, default=RANK_DEFAULT if keeps_length else SORT_DEFAULT)
    drops = RULES[policy].removes and not keeps_length
    if keeps_length:
        shape = data.shape or (1,)
    elif axis is None or data.ndim <= 1:
        shape = (np.nan,) if drops else (int(np.prod(data.shape)),)
    else:
        shape = data.shape
    task = delayed(fn)(data, axis=axis, nan_policy=nan_policy, **kw)
    return from_delayed(task, shape=shape, dtype=np.dtype(dtype))
