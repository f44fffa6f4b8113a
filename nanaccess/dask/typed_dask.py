"""dask's untyped functions, with the types ``mypy --strict`` checks their calls against.

At run time every name here *is* dask's own object (no wrapper, no extra call); only a
type checker sees the signatures below, which say what nanaccess passes and gets back.
Call sites write ``blockwise(...)`` with ``from .typed_dask import blockwise`` instead
of ``da.blockwise(...)``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import dask
import dask.array as da
import dask.core

__all__ = [
    "asarray", "blockwise", "broadcast_to", "compute", "delayed", "flatten", "from_array",
    "from_delayed", "is_dask_collection", "istask", "map_blocks", "rechunk", "reduction",
    "stack",
]

if TYPE_CHECKING:
    from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence

    def blockwise(func: Callable[..., Any], out_ind: Sequence[Hashable] | None, *args: Any,
                  name: str | None = None, token: str | None = None, dtype: Any = None,
                  adjust_chunks: Any = None, new_axes: dict[Hashable, Any] | None = None,
                  align_arrays: bool = True, concatenate: bool | None = None,
                  meta: Any = None, **kwargs: Any) -> da.Array: ...

    def map_blocks(func: Callable[..., Any], *args: Any, name: str | None = None,
                   token: str | None = None, dtype: Any = None, chunks: Any = None,
                   drop_axis: Any = None, new_axis: Any = None, enforce_ndim: bool = False,
                   meta: Any = None, **kwargs: Any) -> da.Array: ...

    def reduction(x: da.Array, chunk: Callable[..., Any], aggregate: Callable[..., Any],
                  axis: Any = None, keepdims: bool = False, dtype: Any = None,
                  split_every: Any = None, combine: Callable[..., Any] | None = None,
                  name: str | None = None, out: Any = None, concatenate: bool = True,
                  output_size: int = 1, meta: Any = None, weights: Any = None) -> da.Array: ...

    def from_delayed(value: Any, shape: tuple[Any, ...], dtype: Any = None, meta: Any = None,
                     name: str | None = None) -> da.Array: ...

    def from_array(x: Any, chunks: Any = "auto", name: Any = None, lock: Any = False,
                   asarray: bool | None = None, fancy: bool = True, getitem: Any = None,
                   meta: Any = None, inline_array: bool = False) -> da.Array: ...

    def rechunk(x: da.Array, chunks: Any = "auto", threshold: int | None = None,
                block_size_limit: int | None = None, balance: bool = False,
                method: str | None = None) -> da.Array: ...

    def stack(seq: Sequence[Any], axis: int = 0,
              allow_unknown_chunksizes: bool = False) -> da.Array: ...

    def asarray(a: Any, allow_unknown_chunksizes: bool = False, dtype: Any = None,
                order: Any = None, *, like: Any = None, **kwargs: Any) -> da.Array: ...

    def broadcast_to(x: Any, shape: tuple[int, ...], chunks: Any = None,
                     meta: Any = None) -> da.Array: ...

    def delayed(obj: Any, name: str | None = None, pure: bool | None = None,
                nout: int | None = None, traverse: bool = True) -> Any: ...

    def compute(*args: Any, traverse: bool = True, optimize_graph: bool = True,
                scheduler: Any = None, get: Any = None, **kwargs: Any) -> tuple[Any, ...]: ...

    def is_dask_collection(x: object) -> bool: ...

    def flatten(seq: Iterable[Any], container: type = list) -> Iterator[Any]: ...

    def istask(x: object) -> bool: ...
else:
    asarray, blockwise, broadcast_to = da.asarray, da.blockwise, da.broadcast_to
    from_array, from_delayed, map_blocks = da.from_array, da.from_delayed, da.map_blocks
    rechunk, reduction, stack = da.rechunk, da.reduction, da.stack
    compute, delayed, is_dask_collection = dask.compute, dask.delayed, dask.is_dask_collection
    flatten, istask = dask.core.flatten, dask.core.istask
