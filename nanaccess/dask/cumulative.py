"""Lazy cumulative statistics of dask arrays and DataFrames, exact across chunks.

Each chunk along the running axis is one task that continues from the state of the
chunks before it (:func:`nanaccess.core.cumulative.carry.carry_step`: for ``cumsum``
the exact sum so far, not a rounded float), so the result equals the in-memory one
bit for bit. The chunks of one row of blocks run in order (a chain of tasks); the
other blocks run in parallel. Nothing is computed until ``.compute()``; policy errors
are raised then, naming the position in the whole array (arrays) or the column and
index label (DataFrames).
"""

from __future__ import annotations

import itertools
from typing import Any

import dask.array as da
import numpy as np
import pandas as pd
from dask.base import tokenize
from dask.highlevelgraph import HighLevelGraph

from ..core.cumulative import CUMULATIVE
from ..core.cumulative.carry import carry_step, out_dtype
from ..errors import NaNError
from ..options import resolve_policy
from ..typing import NanPolicyArg

__all__ = ["array_cumulative", "frame_cumulative", "series_cumulative",
           "DaskCumulativeMixin"]


def _block_step(block: np.ndarray, carry: Any, stat: str, policy: Any, offset: int,
                lead: tuple[int, ...], ax: int) -> tuple[np.ndarray, Any]:
    rows = block.reshape(-1, block.shape[-1])
    try:
        out, _, new = carry_step(rows, carry, stat, policy, offset=offset)
    except NaNError as err:  # the position in the whole (axis-last) array
        if err.position is not None and len(err.position) == 2:
            r, c = err.position
            local = np.unravel_index(int(r), block.shape[:-1]) if block.ndim > 1 else ()
            pos = [int(o) + int(i) for o, i in zip(lead, local, strict=True)]
            pos.insert(ax, int(c))  # the running axis back in its place
            err.position = tuple(pos)
            err = err.relabel(err.subject)
        raise err from None
    return out.reshape(block.shape), new


def array_cumulative(a: Any, stat: str, *, axis: int = -1, policy: Any = None) -> Any:
    """``stat`` along ``axis`` of the dask array ``a``, lazily (see the module).

    Examples
    --------
    >>> import dask.array as da
    >>> x = da.from_array(np.array([0.1] * 10), chunks=3)
    >>> float(array_cumulative(x, "cumsum", policy="raise")[-1].compute())
    1.0
    """
    if stat not in CUMULATIVE:
        raise ValueError(f"unknown cumulative statistic {stat!r}; expected one of {CUMULATIVE}")
    policy = resolve_policy(policy)
    if a.ndim == 0:
        a = a.reshape(1)
    ax = axis % a.ndim
    b = da.moveaxis(a, ax, -1)
    dtype = out_dtype(b.dtype, stat)
    name = f"nanstats-{stat}-" + tokenize(b, stat, str(policy))
    step = name + "-step"
    dsk: dict[Any, Any] = {}
    nb = b.numblocks
    starts = [np.concatenate([[0], np.cumsum(c)]).astype(int) for c in b.chunks]
    for lead in itertools.product(*[range(k) for k in nb[:-1]]):
        offs = tuple(int(starts[d][i]) for d, i in enumerate(lead))
        prev = None
        for j in range(nb[-1]):
            key = (b.name, *lead, j)
            carry: tuple[Any, Any] | None = None if prev is None else (_second, prev)
            dsk[(step, *lead, j)] = (_block_step, key, carry, stat, policy,
                                     int(starts[-1][j]), offs, ax)
            dsk[(name, *lead, j)] = (_first, (step, *lead, j))
            prev = (step, *lead, j)
    graph = HighLevelGraph.from_collections(name, dsk, dependencies=[b])
    out = da.Array(graph, name, chunks=b.chunks, dtype=dtype)
    return da.moveaxis(out, -1, ax)


def _first(pair: tuple[Any, ...]) -> Any:
    return pair[0]


def _second(pair: tuple[Any, ...]) -> Any:
    return pair[1]


def _part_step(part: pd.Series, carry: Any, stat: str, policy: Any) -> tuple[Any, ...]:
    from ..pandas.columns import restated, type_error
    from ..pandas.dtypes import column_arrays, to_pandas_array

    try:
        col = column_arrays(part)
    except TypeError as err:
        raise type_error(part.name, err, True) from None
    miss = None if col.missing is None else col.missing.reshape(1, -1)
    try:
        vals, vmiss, new = carry_step(col.values.reshape(1, -1), carry, stat, policy,
                                      missing=miss)
    except NaNError as err:
        pos = err.position
        local = err.relabel(err.subject)
        local.position = None if pos is None else (int(pos[-1]),)
        raise restated(local, part.name, part.index, series=True) from None
    v = vals[0]
    m = None if vmiss is None else vmiss[0]
    arr = to_pandas_array(v, m, col) if col.has_na else v
    return pd.Series(arr, index=part.index, name=part.name, copy=False), new


def series_cumulative(s: Any, stat: str, nan_policy: Any = None) -> Any:
    """``s.nanstats.<stat>()`` of a dask Series, lazily (partitions in order)."""
    if stat not in CUMULATIVE:
        raise ValueError(f"unknown cumulative statistic {stat!r}; expected one of {CUMULATIVE}")
    policy = resolve_policy(nan_policy)
    import dask.dataframe as dd

    from ..pandas.cumulative import cumulative_series

    sample = s._meta_nonempty  # the result's dtype from a small sample of the column's
    meta_out = cumulative_series(sample.fillna(sample.iloc[0]) if sample.hasnans else sample,
                                 stat, "omit").iloc[:0]
    parts = s.to_delayed()
    outs = []
    prev = None
    from .typed_dask import delayed

    for p in parts:
        res = delayed(_part_step, nout=2)(p, prev, stat, policy)
        outs.append(res[0])
        prev = res[1]
    return dd.from_delayed(outs, meta=meta_out, divisions=s.divisions, verify_meta=False)


def frame_cumulative(df: Any, stat: str, nan_policy: Any = None) -> Any:
    """``df.nanstats.<stat>()`` of a dask DataFrame: each column as
    :func:`series_cumulative`, lazily."""
    import dask.dataframe as dd

    cols = [series_cumulative(df[c], stat, nan_policy) for c in df.columns]
    return dd.concat(cols, axis=1)


# what each method's example prints (checked by the doctests)
_EXAMPLE = {"cumsum": "[1.0, nan, 4.0, 6.0]", "cumprod": "[1.0, nan, 3.0, 6.0]",
            "cummax": "[1.0, nan, 3.0, 3.0]", "cummin": "[1.0, nan, 1.0, 1.0]",
            "cumcount": "[1, 1, 2, 3]"}


def _method(stat: str, summary: str) -> Any:
    def method(self: Any, *, nan_policy: NanPolicyArg = None) -> Any:
        import dask.dataframe as dd

        if isinstance(self._obj, dd.DataFrame):
            return frame_cumulative(self._obj, stat, nan_policy)
        return series_cumulative(self._obj, stat, nan_policy)

    method.__name__ = stat
    method.__qualname__ = f"DaskCumulativeMixin.{stat}"
    method.__doc__ = (
        f"{summary}, lazily and exactly as ``Series.nanstats.{stat}`` (each partition "
        "continues from the exact state of those before it).\n\n"
        "    Parameters\n    ----------\n    nan_policy : str, optional\n"
        f"        As ``Series.nanstats.{stat}``.\n\n"
        "    Returns\n    -------\n    dask Series or DataFrame\n"
        "        Lazy, the in-memory result bit for bit once computed.\n\n"
        "    Examples\n    --------\n"
        "    >>> import numpy as np, pandas as pd, dask.dataframe as dd, nanaccess.dask\n"
        "    >>> s = dd.from_pandas(pd.Series([1.0, np.nan, 3.0, 2.0]), npartitions=2)\n"
        f"    >>> s.nanstats.{stat}(nan_policy=\"omit\").compute().tolist()\n"
        f"    {_EXAMPLE[stat]}\n")
    return method


class DaskCumulativeMixin:
    """``cumsum`` / ``cumprod`` / ``cummax`` / ``cummin`` / ``cumcount`` of
    ``ddf.nanstats`` and ``ddf[col].nanstats``.

    Examples
    --------
    >>> import pandas as pd, dask.dataframe as dd, nanaccess.dask  # noqa: F401
    >>> s = dd.from_pandas(pd.Series([0.1] * 10), npartitions=3)
    >>> s.nanstats.cumsum(nan_policy="raise").compute().iloc[-1]
    np.float64(1.0)
    """

    _obj: Any

    cumsum = _method("cumsum", "Cumulative sum, each prefix its exact sum rounded once")
    cumprod = _method("cumprod", "Cumulative product (each step rounded, as pandas)")
    cummax = _method("cummax", "Cumulative maximum under the policy's order")
    cummin = _method("cummin", "Cumulative minimum under the policy's order")
    cumcount = _method("cumcount", "Running count of the values the policy counts")
