"""xarray windows: ``da.rolling(time=7).nanstats`` and ``da.coarsen(time=7).nanstats``.

Rolling windows are pandas' fixed windows (xarray centers them the same way), reduced
by :func:`nanaccess.core.window.window_reduce` along the rolled dimension with the
other dimensions as columns; coarsen blocks are contiguous groups, reduced by
:func:`nanaccess.core.grouped.grouped_reduce`. Results carry the dims, coords, name
and attrs of xarray's own window reductions (a coarsen's coordinates are xarray's own,
from its ``coord_func``). Dask-backed windows stay lazy: each rolling block is reduced
with the overlap its windows need (``map_overlap``), a coarsened dimension is rechunked
to whole coarsen blocks (one reduction per chunk), a list of ``q`` is one lazy pass per
quantile.

The accessor is set on the classes xarray hands out for ``.rolling`` / ``.coarsen``
(found from instances, as xarray has no accessor registry for them).
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import numpy as np
import xarray as xr

from .. import _stats
from .._labels import CoordLocation, fmt_label
from ..core.grouped import grouped_reduce
from ..core.reduce import result_dtype
from ..core.window import fixed_windows, segment_bounds, window_reduce
from ..errors import NaNError
from ..options import NanPolicy, resolve_policy
from ._common import is_dask, variable_subject
from ._common import keep_attrs as _keep_attrs
from ._generated_window import XrWindowStatsMixin
from ._xr_internals import groupby_classes, grouped_object, resample_classes, window_classes

__all__ = ["NanXrWindow", "register_window_accessors", "register_groupby_accessors"]


class NanXrWindow(XrWindowStatsMixin):
    """NaN-explicit statistics of an xarray rolling or coarsen object.

    Examples
    --------
    >>> import numpy as np, xarray as xr, nanaccess  # noqa: F401
    >>> da = xr.DataArray([1.0, np.nan, 3.0, 4.0], dims="t")
    >>> da.rolling(t=2, min_periods=1).nanstats.max(nan_policy="omit").values
    array([1., 1., 3., 4.])
    >>> da.coarsen(t=2).nanstats.max(nan_policy="propagate").values
    array([nan,  4.])
    """

    def __init__(self, obj: Any) -> None:
        self._obj = obj

    def _reduce(self, stat: str, *, nan_policy: Any = None, keep_attrs: bool | None = None,
                engine: str | None = None, **params: Any) -> Any:
        """The hook of every generated statistic."""
        w = self._obj
        policy = NanPolicy.TOTALORDER if _stats.get(stat).family == "count" else \
            resolve_policy(nan_policy)
        keep = _keep_attrs(keep_attrs)
        coarsen = hasattr(w, "boundary")
        obj = w.obj
        if coarsen:
            dim, size = _one(w.windows.items())
            template = _coarsen_template(w, dim)
        else:
            dim, size = _one(zip(w.dim, w.window, strict=True))
            template = None
        q = params.get("q")
        if q is not None:
            params = {**params, "q": np.asarray(q, dtype=np.float64)}
        lead = stat == "quantile" and np.ndim(q) > 0

        def one(name: Hashable | None, var: xr.Variable, indexes: Any) -> xr.Variable:
            if dim not in var.dims:
                return var
            axis = var.get_axis_num(dim)
            if is_dask(var.data):
                lazy = _dask_window(var.data, axis, w, dim, size, coarsen, stat, policy,
                                    engine, params, variable_subject(name), lead)
                dims = (("quantile",) if lead else ()) + var.dims
                return xr.Variable(dims, lazy, attrs=var.attrs if keep else None)
            data = np.moveaxis(np.asarray(var.values), axis, 0)
            rest = data.shape[1:]
            x2 = data.reshape(data.shape[0], -1)
            labels = [indexes[d] if d in indexes else None for d in var.dims]
            try:
                if coarsen:
                    vals, nout = _coarsen_values(x2, w, dim, size, stat, policy, engine,
                                                 params)
                else:
                    n = x2.shape[0]
                    start, end = fixed_windows(n, size, center=bool(w.center[0])), None
                    mp = size if w.min_periods is None else int(w.min_periods)
                    red = window_reduce(x2, start, end, stat, policy=policy,
                                        min_periods=mp, engine=engine, **params)
                    vals, nout = red.values, n
                    if stat == "count":  # xarray: min_periods counts the numbers
                        vals = np.where(vals < mp, np.nan, vals.astype(np.float64))
            except NaNError as err:
                raise _restated(err, name, var.dims, labels, axis, rest, out_labels_of(
                    coarsen, template, dim, labels[axis])) from None
            if vals.dtype.kind in "iub":
                vals = vals.astype(np.float64)
            qs = vals.shape[:-2] if lead else ()
            vals = vals.reshape(qs + (nout,) + rest)
            vals = np.moveaxis(vals, len(qs), len(qs) + axis)
            dims = (("quantile",) if lead else ()) + var.dims
            return xr.Variable(dims, vals, attrs=var.attrs if keep else None)

        if isinstance(obj, xr.DataArray):
            indexes = obj.indexes
            var = one(obj.name, obj.variable, indexes)
            coords = _coords(obj, template, dim)
            out = xr.DataArray(var, coords=coords, name=obj.name)
        else:
            indexes = obj.indexes
            data_vars = {k: one(k, v.variable, indexes) for k, v in obj.data_vars.items()}
            out = xr.Dataset(data_vars, coords=_coords(obj, template, dim),
                             attrs=obj.attrs if keep else None)
        if lead:
            out = out.assign_coords(quantile=np.atleast_1d(params["q"]))
        return out


def _rolling_block(block: np.ndarray, axis: int, size: int, center: bool, mp: int, stat: str,
                   policy: NanPolicy, engine: Any, params: dict, subject: str) -> np.ndarray:
    """The rolling statistic of one (overlapped) block along ``axis``."""
    x = np.moveaxis(np.asarray(block), axis, 0)
    rest = x.shape[1:]
    x2 = x.reshape(x.shape[0], -1)
    start, end = fixed_windows(x2.shape[0], size, center=center), None
    try:
        red = window_reduce(x2, start, end, stat, policy=policy, min_periods=mp,
                            engine=engine, **params)
    except NaNError as err:  # a block's positions are not the array's: no label
        raise err.relabel(subject, "a window of a dask block") from None
    vals = red.values
    if stat == "count":
        vals = np.where(vals < mp, np.nan, vals.astype(np.float64))
    elif vals.dtype.kind in "iub":
        vals = vals.astype(np.float64)
    return np.moveaxis(vals.reshape((x2.shape[0],) + rest), 0, axis)


def _block_dtype(stat: str, dtype: Any, params: dict) -> np.dtype:
    """A block's result dtype from the table's rule (no probe run): ints, uints and
    bools widen to float64, where a short window or block is NaN."""
    dt = result_dtype(stat, dtype, **params)
    return np.dtype(np.float64) if dt.kind in "iub" else dt


def _dask_rolling(data: Any, axis: int, size: int, center: bool, mp: int, stat: str,
                  policy: NanPolicy, engine: Any, params: dict, subject: str) -> Any:
    """A lazy rolling statistic: each block with the overlap its windows need
    (``map_overlap``, no padding at the array's ends), so every window is exact."""
    off = (size - 1) // 2 if (center or size == 0) else 0
    depth = {a: 0 for a in range(data.ndim)}
    depth[axis] = (max(size - 1 - off, 0), off)
    dt = _block_dtype(stat, data.dtype, params)
    return data.map_overlap(_rolling_block, depth=depth, boundary="none", trim=True,
                            dtype=dt, meta=np.empty((0,) * data.ndim, dt),
                            axis=axis, size=size, center=center, mp=mp, stat=stat,
                            policy=policy, engine=engine, params=params, subject=subject)


def _dask_window(data: Any, axis: int, w: Any, dim: Hashable, size: int, coarsen: bool,
                 stat: str, policy: NanPolicy, engine: Any, params: dict, subject: str,
                 lead: bool) -> Any:
    """A lazy rolling or coarsen statistic of dask data; a list of ``q`` is one lazy
    pass per quantile, stacked on a leading axis."""
    import dask.array as dsa

    def single(p: dict) -> Any:
        if coarsen:
            side = w.side.get(dim, "left") if isinstance(w.side, dict) else w.side
            return _dask_coarsen(data, axis, size, w.boundary, side, stat, policy, engine,
                                 p, subject)
        mp = size if w.min_periods is None else int(w.min_periods)
        return _dask_rolling(data, axis, size, bool(w.center[0]), mp, stat, policy,
                             engine, p, subject)

    if not lead:
        return single(params)
    return dsa.stack([single({**params, "q": float(qj)}) for qj in params["q"]], axis=0)


def _coarsen_block(block: np.ndarray, axis: int, size: int, stat: str, policy: NanPolicy,
                   engine: Any, params: dict, subject: str) -> np.ndarray:
    """The coarsen statistic of one block holding whole coarsen blocks along ``axis``
    (the array's last one may be short: ``boundary="pad"``)."""
    x = np.moveaxis(np.asarray(block), axis, 0)
    rest = x.shape[1:]
    x2 = x.reshape(x.shape[0], -1)
    nb = -(-x2.shape[0] // size)
    codes = (np.arange(x2.shape[0]) // size).astype(np.intp)
    try:
        red = grouped_reduce(x2, codes, nb, stat, policy=policy, engine=engine, **params)
    except NaNError as err:  # a block's positions are not the array's: no label
        raise err.relabel(subject, "a window of a dask block") from None
    vals = red.values
    if vals.dtype.kind in "iub":
        vals = vals.astype(np.float64)
    return np.moveaxis(vals.reshape((nb,) + rest), 0, axis)


def _dask_coarsen(data: Any, axis: int, size: int, boundary: str, side: str, stat: str,
                  policy: NanPolicy, engine: Any, params: dict, subject: str) -> Any:
    """A lazy coarsen: the dimension rechunked to whole coarsen blocks (the remainder
    trimmed, refused or left as a short block at the ``side`` end by ``boundary``), one
    reduction per chunk."""
    n = data.shape[axis]
    rem = n % size
    if boundary == "exact" and rem:
        raise ValueError(f"Could not coarsen a dimension of size {n} with window {size} "
                         "and boundary='exact'. Try a different 'boundary' option.")
    right = side == "right"
    if boundary == "trim" and rem:
        cut = slice(rem, n) if right else slice(0, n - rem)
        data = data[(slice(None),) * axis + (cut,)]
        n, rem = n - rem, 0
    per = max(int(max(data.chunks[axis], default=size)) // size, 1) * size
    if right and rem:  # the short block first, then whole ones
        body = n - rem
        chunks = [rem] + [per] * (body // per) + ([body % per] if body % per else [])
    else:
        chunks = [per] * (n // per) + ([n % per] if n % per else [])
    data = data.rechunk({axis: tuple(chunks)})
    dt = _block_dtype(stat, data.dtype, params)
    out_chunks = list(data.chunks)
    out_chunks[axis] = tuple(-(-c // size) for c in chunks)
    return data.map_blocks(_coarsen_block, dtype=dt, chunks=tuple(out_chunks),
                           meta=np.empty((0,) * data.ndim, dt), axis=axis,
                           size=size, stat=stat, policy=policy, engine=engine,
                           params=params, subject=subject)


def out_labels_of(coarsen: bool, template: Any, dim: Hashable, labels: Any) -> Any:
    if coarsen:
        return template.indexes[dim] if dim in template.indexes else None
    return labels


def _one(items: Any) -> tuple[Hashable, int]:
    items = list(items)
    if len(items) != 1:
        raise NotImplementedError("nanstats windows over several dimensions at once are not "
                                  "supported; roll one dimension at a time")
    dim, size = items[0]
    return dim, int(size)


def _coarsen_template(w: Any, dim: Hashable) -> Any:
    """xarray's own coarsen of the coordinates (its ``coord_func``, boundary and side):
    the labels of the result, from a count of a one-dimensional stand-in."""
    obj = w.obj
    n = obj.sizes[dim]
    coords = {k: v for k, v in obj.coords.items() if dim in v.dims and v.dims == (dim,)}
    stand_in = xr.DataArray(np.zeros(n), dims=dim, coords=coords)
    return stand_in.coarsen({dim: w.windows[dim]}, boundary=w.boundary, side=w.side,
                            coord_func=w.coord_func).count()


def _coarsen_codes(n: int, size: int, boundary: str, side: Any, dim: Hashable) -> tuple[
        np.ndarray, int]:
    """Block of each row (-1: trimmed), and the number of blocks."""
    side = side.get(dim, "left") if isinstance(side, dict) else side
    rem = n % size
    if boundary == "exact" and rem:
        raise ValueError(f"Could not coarsen a dimension of size {n} with window {size} "
                         "and boundary='exact'. Try a different 'boundary' option.")
    pos = np.arange(n)
    if side == "right" and rem:
        pos = pos - rem + size  # blocks aligned at the end: the first block is short
    codes = pos // size
    nblocks = n // size
    if boundary == "trim" and rem:
        codes = codes - 1 if side == "right" else codes
        codes[(codes < 0) | (codes >= nblocks)] = -1
    else:
        nblocks = int(codes.max(initial=-1)) + 1
    return codes.astype(np.intp), nblocks


def _coarsen_values(x2, w, dim, size, stat, policy, engine, params):
    """Coarsen blocks as windows over their contiguous rows (window_reduce reduces
    disjoint windows by selection)."""
    codes, nblocks = _coarsen_codes(x2.shape[0], size, w.boundary, w.side, dim)
    start, end = segment_bounds(codes, nblocks)
    red = window_reduce(x2, start, end, stat, policy=policy, engine=engine, **params)
    return red.values, nblocks


def _coords(obj: Any, template: Any, dim: Hashable) -> dict:
    if template is None:
        return dict(obj.coords)
    coords = {k: v for k, v in obj.coords.items() if dim not in v.dims}
    coords.update({k: v for k, v in template.coords.items()})
    return coords


def _restated(err: NaNError, name: Any, dims: tuple, labels: list, axis: int,
              rest: tuple, out_labels: Any) -> NaNError:
    """The core error naming the variable, the window's label and the NaN's coords."""
    pos = err.position
    location = None
    if pos:
        row = int(pos[0])
        col = int(pos[1]) if len(pos) > 1 else 0
        full = [int(i) for i in np.unravel_index(col, rest)] if rest else []
        full.insert(axis, row)
        location = CoordLocation(dims, labels)(tuple(full))
    group = err.group
    label = group
    if group is not None and out_labels is not None:
        label = out_labels[int(group)]
    subject = variable_subject(name)
    if label is not None:
        subject = f"{subject} in window {dims[axis]}={fmt_label(label)}"
    return err.relabel(subject, location, group=label)


class _Accessor:
    """Descriptor: ``obj.nanstats`` builds :class:`NanXrWindow` (no state kept)."""

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        if obj is None:
            return NanXrWindow
        return NanXrWindow(obj)


def register_window_accessors() -> None:
    """Set ``.nanstats`` on xarray's rolling and coarsen classes."""
    for cls in window_classes():
        cls.nanstats = _Accessor()


# ---------------------------------------------------------------- groupby / resample
# ``da.groupby(...).nanstats`` and ``da.resample(...).nanstats``: the same spelling as
# pandas, on the grouped accessor of ``da.nanstats.groupby(...)``.


class _GroupByAccessor:
    """Descriptor: ``gb.nanstats`` builds the grouped accessor over ``gb`` itself."""

    def __get__(self, gb: Any, owner: type | None = None) -> Any:
        from .groupby import NanGroupBy

        if gb is None:
            return NanGroupBy
        return NanGroupBy(grouped_object(gb), gb, resample=isinstance(gb, resample_classes()))


def register_groupby_accessors() -> None:
    """Set ``.nanstats`` on xarray's GroupBy and Resample classes."""
    for cls in groupby_classes():
        cls.nanstats = _GroupByAccessor()
