"""Where xarray's own groupby puts things, for :class:`.groupby.NanGroupBy`.

xarray (with its default engine, flox) reduces a grouped object over ``dim`` (default:
the dimensions the groups span; ``...``: every dimension), gives every key its own
dimension holding that key's *full* index (empty bins of ``groupby_bins`` and of
``resample`` and absent key combinations are kept, NaN-filled), and orders the dims
of each variable by fixed rules (decision 21 in ``docs/dev/decisions.md``). This module
turns a GroupBy object and ``dim`` / ``axis`` into one :class:`Grouping`: the codes of
the rows along the one dimension the kernel reduces (several reduced dims are stacked
into one), the groups' dims and coordinates, and :meth:`Grouping.dims_of`, the order
xarray gives a reduced variable's dims.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from ._xr_internals import encoded_groups, group_parts

__all__ = ["Grouping", "STACKED", "parse_dims", "plan"]

#: the one dim several reduced dims are stacked into
STACKED = "__nanaccess_stacked_group_dims__"
_FAR = 1e6  # xarray's rank of a dim it cannot place (sorts last, stably)


@dataclass
class Grouping:
    """One grouped reduction: what the kernel reduces and how the result is laid out."""

    #: the object to reduce, ``rdim`` one of its dims (reduced dims stacked into it)
    obj: Any
    rdim: Hashable
    #: group code of each row along ``rdim`` (-1: dropped), and the number of groups
    codes: np.ndarray
    ngroups: int
    #: the dims the reduction removes (xarray's parsed ``dim``)
    reduced: tuple[Hashable, ...]
    #: one output dim per key, its size and coordinate (the key's full index)
    names: tuple[Hashable, ...]
    sizes: tuple[int, ...]
    coords: dict[Hashable, xr.Variable]
    #: the dims each key's group spans; the dims xarray's GroupBy keeps its object in
    group_dims: tuple[tuple[Hashable, ...], ...]
    object_dims: tuple[Hashable, ...]
    #: the full group index (labels of the flat groups, for error messages)
    full_index: pd.Index
    #: whether some group has no row (xarray gives NaN there, for every statistic)
    has_empty: bool
    #: the dims stacked into ``rdim`` (just ``rdim`` when one), their sizes and the
    #: object's indexes (error messages name coordinates of the original dims)
    rows: tuple[Hashable, ...] = ()
    row_sizes: tuple[int, ...] = ()
    indexes: dict[Any, Any] = None  # type: ignore[assignment]

    def dims_of(self, loop: tuple[Hashable, ...], template: tuple[Hashable, ...], *,
                dataset: bool, quantile: bool) -> list[Hashable]:
        """The dims of a reduced variable as xarray orders them: ``loop`` (the variable's
        dims not reduced), then the keys' dims and ``quantile``, sorted by flox's rule
        for one key (a Dataset puts a 1-D key first; otherwise each dim by its axis in
        ``template``, the variable's own dims) and, for a DataArray, xarray's rule."""
        pre: list[Hashable] = [*loop, *self.names, *(("quantile",) if quantile else ())]
        if len(self.names) == 1 and len(pre) > 1 + int(quantile):
            one_d = len(self.group_dims[0]) == 1

            def flox_key(d: Hashable) -> float:
                if d == self.names[0] and one_d:
                    if dataset:
                        return -_FAR
                    d = self.group_dims[0][0]
                return template.index(d) if d in template else _FAR

            pre = sorted(pre, key=flox_key)
        if not dataset:
            def xarray_key(d: Hashable) -> float:
                for name, gdims in zip(self.names, self.group_dims, strict=True):
                    if d == name and len(gdims) == 1:
                        d = gdims[0]
                dims = self.object_dims
                return dims.index(d) if d in dims else _FAR

            pre = sorted(pre, key=xarray_key)
        return pre


def parse_dims(dim: Any, axis: Any, obj: Any, code_dims: tuple[Hashable, ...]
               ) -> tuple[Hashable, ...]:
    """xarray's ``GroupBy._parse_dim``, plus ``axis`` (a DataArray's axis numbers)."""
    if dim is not None and axis is not None:
        raise ValueError("cannot supply both 'axis' and 'dim' arguments")
    if axis is not None:
        if isinstance(obj, xr.Dataset):
            raise TypeError("axis= names axes of a DataArray; a Dataset's groupby takes dim=")
        axes = [axis] if isinstance(axis, int | np.integer) else list(axis)
        try:
            return tuple(obj.dims[int(a)] for a in axes)
        except IndexError:
            raise ValueError(f"axis {axis!r} is out of bounds for an array of dimensions "
                             f"{obj.dims}") from None
    if dim is None:
        dims = tuple(code_dims)
    elif dim is ...:
        dims = tuple(obj.dims)
    elif isinstance(dim, str) or not isinstance(dim, Iterable):
        dims = (dim,)
    else:
        dims = tuple(dim)
    if any(d not in code_dims and d not in obj.dims for d in dims):
        raise ValueError(f"cannot reduce over dimensions {dim}.")  # xarray's message
    if len(set(dims)) != len(dims):
        raise ValueError(f"duplicate dimensions in dim={dim!r}")
    return dims


def plan(obj: Any, gb: Any, dim: Any = None, axis: Any = None, *,
         resample: bool = False) -> Grouping | tuple[Any, ...]:
    """The :class:`Grouping` of ``gb`` (an xarray GroupBy / Resample, or the fast
    factorized stand-in) reduced over ``dim``; a tuple of dims instead where ``dim``
    misses every dim of the groups (xarray then reduces as the plain reduction). A
    resample's bins keep the name of the resampled dim, as xarray renames them."""
    codes_da, full_index, _ = encoded_groups(gb)
    orig_dims = tuple(obj.dims)
    parts = group_parts(gb)
    if resample:
        parts = [(codes_da.dims[0], index, codes, gdims) for _, index, codes, gdims in parts]
    code_dims = tuple(codes_da.dims)
    reduced = parse_dims(dim, axis, obj, code_dims)
    if not set(reduced) & set(code_dims):
        return reduced
    left = [d for d in code_dims if d not in reduced]
    if left:
        raise ValueError(f"dim={dim!r} leaves out {tuple(left)}, which the groups span: "
                         "nanaccess reduces each group over every dimension it spans "
                         "(add them to dim)")
    extra = [d for d in obj.dims if d in reduced and d not in code_dims]
    rows = (*code_dims, *extra)
    row_sizes = tuple(int(obj.sizes[d]) for d in rows)
    indexes = dict(obj.indexes)
    if len(rows) == 1:
        rdim = rows[0]
        codes = np.asarray(codes_da.values)
    else:
        rdim = STACKED
        codes_b = codes_da.variable.set_dims({**codes_da.sizes,
                                              **{d: obj.sizes[d] for d in extra}})
        codes = np.asarray(codes_b.transpose(*rows).values).reshape(-1)
        obj = obj.stack({STACKED: rows}, create_index=False)
    codes = codes.astype(np.intp)
    sizes = tuple(len(p[1]) for p in parts)
    ngroups = len(full_index)
    if int(np.prod(sizes, dtype=np.int64)) != ngroups:  # pragma: no cover - xarray moved
        raise RuntimeError("the groupers' full indexes do not compose the group index")
    # a key whose full index is a RangeIndex (a dim without coordinate) gets none, as
    # xarray drops it
    coords = {name: xr.IndexVariable(name, index, attrs=dict(c.attrs))
              for name, index, c, _ in parts if not isinstance(index, pd.RangeIndex)}
    counts = np.bincount(codes[codes >= 0], minlength=ngroups)
    object_dims = gb_dims(obj_dims=orig_dims, code_dims=code_dims)
    return Grouping(obj=obj, rdim=rdim, codes=codes, ngroups=ngroups, reduced=reduced,
                    names=tuple(p[0] for p in parts), sizes=sizes, coords=coords,
                    group_dims=tuple(p[3] for p in parts), object_dims=object_dims,
                    full_index=full_index, has_empty=bool((counts == 0).any()),
                    rows=rows, row_sizes=row_sizes, indexes=indexes)


def gb_dims(*, obj_dims: tuple[Hashable, ...], code_dims: tuple[Hashable, ...]
            ) -> tuple[Hashable, ...]:
    """The dims xarray's GroupBy keeps its object in: as given for 1-D codes, else the
    codes' dims stacked into one at the end (``_ensure_1d``)."""
    if len(code_dims) == 1:
        return obj_dims
    return (*(d for d in obj_dims if d not in code_dims), "stacked_")
