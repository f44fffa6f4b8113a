"""``df.nanstats.<stat>(axis=1)`` and ``axis=None``: the columns as one 2-D block.

The columns are put into one block of their common dtype (as ``df.to_numpy()``) and
reduced by :func:`nanaccess.core.reduce.reduce` along the rows (``axis=1``) or over every
value (``axis=None``, as pandas 3); errors name the column and the index label.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from .. import _stats
from ..core.reduce import reduce
from ..errors import NaNError
from ..options import NanPolicy
from .columns import empty_is_missing, q_index, q_is_list, restated, with_min_count
from .dtypes import Column, to_pandas_array, to_scalar

__all__ = ["rows", "whole"]


def _block(index: pd.Index, cols: list[Column]
           ) -> tuple[np.ndarray, np.ndarray | None, Column]:
    """The columns as one 2-D block of their common dtype (as ``df.to_numpy()``),
    its missing mask and the Column describing it."""
    dts = [c.values.dtype for c in cols]
    common = np.result_type(*dts) if all(d.kind != "O" for d in dts) else np.dtype(object)
    block = np.empty((len(index), len(cols)), dtype=common)
    missing = None
    for j, c in enumerate(cols):
        block[:, j] = c.values
        if c.missing is not None:
            if missing is None:
                missing = np.zeros(block.shape, bool)
            missing[:, j] = c.missing
    host = "masked" if any(c.host in ("masked", "arrow") for c in cols) else "numpy"
    return block, missing, Column(block, missing, host, common)


def _block_reduce(index: pd.Index, stat: str, names: pd.Index, block: np.ndarray,
                  missing: np.ndarray | None, policy: NanPolicy, axis: int | None,
                  **params: Any) -> Any:
    """``reduce`` of the block, errors naming the column and the index label."""
    try:
        return reduce(block, stat, axis=axis, policy=policy, missing=missing, **params)
    except NaNError as err:
        pos, row_of = err.position, None
        if pos is not None and len(pos) == 1 and block.ndim == 2:  # a flat position
            row_of = np.arange(block.size) // max(block.shape[1], 1)
            pos = np.unravel_index(int(pos[0]), block.shape)
        cname = names[int(pos[1])] if pos is not None and len(pos) > 1 else None
        raise restated(err, cname, index, rows=row_of) from None
    except TypeError as err:
        raise TypeError(f"{stat} over the DataFrame: {err}") from None


def whole(index: pd.Index, stat: str, names: pd.Index, cols: list[Column],
          policy: NanPolicy, min_count: int, **params: Any) -> Any:
    """axis=None: one value over every value of the block, as pandas 3."""
    if not cols:
        return np.float64(0.0 if _stats.get(stat).empty == "zero" else np.nan)
    block, missing, col = _block(index, cols)
    red = _block_reduce(index, stat, names, block, missing, policy, None, **params)
    values, miss = red.values, red.missing
    if min_count:
        values, miss = with_min_count(values, miss, red.count, min_count, col)
    empty = bool(red.empty) if col.host == "masked" and empty_is_missing(stat) else False
    return to_scalar(values, bool(miss) if miss is not None else False, col, empty)


def rows(index: pd.Index, stat: str, names: pd.Index, cols: list[Column],
         policy: NanPolicy, min_count: int = 0, **params: Any) -> pd.Series | pd.DataFrame:
    """axis=1: one 2-D block of the columns' common dtype, reduced along rows."""
    if not cols:
        return pd.Series(np.full(len(index), np.nan), index=index)
    block, missing, col = _block(index, cols)
    red = _block_reduce(index, stat, names, block, missing, policy, 1, **params)
    values, miss = red.values, red.missing
    if min_count:
        values, miss = with_min_count(values, miss, red.count, min_count, col)
    empty = red.empty if col.host == "masked" and empty_is_missing(stat) else None
    q = params.get("q")
    if q_is_list(q):
        per_q = [to_pandas_array(values[j], None if miss is None else miss[j], col, empty)
                 for j in range(values.shape[0])]
        out = pd.DataFrame({i: a for i, a in enumerate(per_q)}, index=index).T
        out.index = q_index(q)
        return out
    arr = to_pandas_array(values, miss, col, empty)
    return pd.Series(arr, index=index, name=q if stat in _stats.QUANTILES else None)
