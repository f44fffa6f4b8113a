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
from ._common import holds_numbers, is_dask, variable_subject
from ._common import keep_attrs as _keep_attrs
from ._generated_window import XrWindowStatsMixin
from ._xr_internals import groupby_classes, grouped_object, resample_classes, window_classes
from .window_nd import (
    box_reduce,
    coarsen_boxes,
    coarsen_chunks,
    coarsen_codes,
    dask_coarsen_nd,
    dask_rolling_nd,
    rolling_boxes,
)

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
        policy = NanPolicy.TOTALORDER if stat in _stats.COUNTS else \
            resolve_policy(nan_policy)
        keep = _keep_attrs(keep_attrs)
        spec = _Spec(w)
        obj = w.obj
        template = _coarsen_template(w, spec) if spec.coarsen else None
        q: Any = params.get("q")  # None, a float or a sequence of floats
        if q is not None:
            params = {**params, "q": np.asarray(q, dtype=np.float64)}
        lead = stat in _stats.QUANTILES and np.ndim(q) > 0
        run: dict[str, Any] = dict(stat=stat, policy=policy, engine=engine, params=params,
                                   lead=lead)

        def one(name: Hashable | None, var: xr.Variable, indexes: Any) -> xr.Variable:
            mine = [d for d in spec.dims if d in var.dims]
            if not mine:
                return var
            if len(mine) == 1:
                vals = _one_dim(name, var, indexes, spec, mine[0], template, **run)
            else:
                vals = _several_dims(name, var, indexes, spec, mine, template, **run)
            dims = (("quantile",) if lead else ()) + var.dims
            return xr.Variable(dims, vals, attrs=var.attrs if keep else None)

        indexes = obj.indexes
        out: xr.DataArray | xr.Dataset
        if isinstance(obj, xr.DataArray):
            var = one(obj.name, obj.variable, indexes)
            out = xr.DataArray(var, coords=_coords(obj, template, spec.dims), name=obj.name)
        else:
            data_vars = {k: one(k, v.variable, indexes) for k, v in obj.data_vars.items()
                         if holds_numbers(v.variable)}  # strings left out (decision 16)
            out = xr.Dataset(data_vars, coords=_coords(obj, template, spec.dims),
                             attrs=obj.attrs if keep else None)
        if lead:
            out = out.assign_coords(quantile=np.atleast_1d(params["q"]))
        return out


class _Spec:
    """The window of an xarray rolling / coarsen object, per dim."""

    def __init__(self, w: Any) -> None:
        self.coarsen = hasattr(w, "boundary")
        if self.coarsen:
            self.dims = list(w.windows)
            self.sizes = {d: int(s) for d, s in w.windows.items()}
            side = w.side
            self.side = {d: (side.get(d, "left") if isinstance(side, dict) else side)
                         for d in self.dims}
            self.boundary = {d: (w.boundary.get(d, "exact") if isinstance(w.boundary, dict)
                                 else w.boundary) for d in self.dims}
            self.min_periods = 0
        else:
            self.dims = list(w.dim)
            self.sizes = {d: int(s) for d, s in zip(w.dim, w.window, strict=True)}
            centers = list(w.center)
            # xarray keeps a list ``center`` once per dim: the dim's own entry
            self.center = {d: bool(c[i] if isinstance(c, list | tuple) else c)
                           for i, (d, c) in enumerate(zip(self.dims, centers, strict=True))}
            self.min_periods = int(w.min_periods)
            # xarray's default (None) is the whole box; a Dataset variable rolled over
            # only some of the dims then needs its own box's size, as xarray's
            self.default_mp = self.min_periods == int(np.prod(list(self.sizes.values())))

    def periods(self, dims: list[Any]) -> int:
        """``min_periods`` of a variable rolled over ``dims``."""
        if self.coarsen or not self.default_mp:
            return self.min_periods
        return int(np.prod([self.sizes[d] for d in dims]))


def _one_dim(name: Any, var: xr.Variable, indexes: Any, spec: _Spec, dim: Hashable,
             template: Any, *, stat: str, policy: NanPolicy, engine: Any, params: dict[str, Any],
             lead: bool) -> Any:
    """A window along one dim: the sliding engines (rolling) or contiguous segments
    (coarsen), no copy of the data; lazy on dask."""
    axis = var.get_axis_num(dim)
    size = spec.sizes[dim]
    if is_dask(var.data):
        return _dask_window(var.data, axis, spec, dim, stat, policy, engine, params,
                            variable_subject(name), lead)
    data = np.moveaxis(np.asarray(var.values), axis, 0)
    rest = data.shape[1:]
    x2 = data.reshape(data.shape[0], -1)
    labels = [indexes[d] if d in indexes else None for d in var.dims]
    try:
        if spec.coarsen:
            codes, nout = coarsen_codes(x2.shape[0], size, spec.boundary[dim], spec.side[dim],
                                        dim)
            start, end = segment_bounds(codes, nout)
            vals = window_reduce(x2, start, end, stat, policy=policy, engine=engine,
                                 **params).values
        else:
            nout = x2.shape[0]
            start, end = fixed_windows(nout, size, center=spec.center[dim]), None
            mp = spec.periods([dim])
            vals = window_reduce(x2, start, end, stat, policy=policy, min_periods=mp,
                                 engine=engine, **params).values
            if stat in _stats.COUNTS:  # xarray: min_periods counts the numbers
                vals = np.where(vals < mp, np.nan, vals.astype(np.float64))
    except NaNError as err:
        raise _restated(err, name, var.dims, labels, axis, rest, out_labels_of(
            spec.coarsen, template, dim, labels[axis])) from None
    if vals.dtype.kind in "iub":
        vals = vals.astype(np.float64)
    qs = vals.shape[:-2] if lead else ()
    vals = vals.reshape(qs + (nout,) + rest)
    return np.moveaxis(vals, len(qs), len(qs) + axis)


def _several_dims(name: Any, var: xr.Variable, indexes: Any, spec: _Spec, dims: list[Any],
                  template: Any, *, stat: str, policy: NanPolicy, engine: Any,
                  params: dict[str, Any],
                  lead: bool) -> Any:
    """A box over several dims (:mod:`.window_nd`); lazy on dask."""
    axes = [var.get_axis_num(d) for d in dims]
    sizes = [spec.sizes[d] for d in dims]
    subject = variable_subject(name)
    if is_dask(var.data):
        def single(p: dict[Any, Any]) -> Any:
            if spec.coarsen:
                pairs = list(zip(axes, dims, strict=True))
                return dask_coarsen_nd(var.data, axes, sizes,
                                       {a: spec.boundary[d] for a, d in pairs},
                                       {a: spec.side[d] for a, d in pairs},
                                       stat, policy, engine, p, subject)
            return dask_rolling_nd(var.data, axes, sizes, [spec.center[d] for d in dims],
                                   spec.periods(dims), stat, policy, engine, p, subject)

        if not lead:
            return single(params)
        from ..dask.typed_dask import stack

        return stack([single({**params, "q": float(qj)}) for qj in params["q"]], axis=0)
    shape = [var.shape[a] for a in axes]
    if spec.coarsen:
        per_dim = [coarsen_codes(var.shape[a], spec.sizes[d], spec.boundary[d], spec.side[d],
                                 d) for a, d in zip(axes, dims, strict=True)]
        gather, start, end, out_shape = coarsen_boxes(per_dim)
    else:
        gather, start, end = rolling_boxes(shape, sizes, [spec.center[d] for d in dims])
        out_shape = tuple(shape)
    labels = {d: indexes[d] if d in indexes else None for d in var.dims}
    rest_dims = [d for d in var.dims if d not in dims]

    def locate(err: NaNError, grid: tuple[Any, ...], rest: tuple[Any, ...]) -> NaNError:
        pos = dict(zip(dims, grid, strict=True)) | dict(zip(rest_dims, rest, strict=True))
        full = tuple(pos[d] for d in var.dims)
        location = CoordLocation(var.dims, [labels[d] for d in var.dims])(full)
        box: str | None = None
        if err.group is not None:
            cell = np.unravel_index(int(err.group), out_shape)
            out_labels = [out_labels_of(spec.coarsen, template, d, labels[d]) for d in dims]
            box = ", ".join(f"{d}={fmt_label(lab[int(i)]) if lab is not None else int(i)}"
                            for d, lab, i in zip(dims, out_labels, cell, strict=True))
        where = subject if box is None else f"{subject} in window {box}"
        return err.relabel(where, location, group=box)

    return box_reduce(np.asarray(var.values), axes, gather, start, end, out_shape, stat,
                      policy=policy, min_periods=spec.periods(dims), engine=engine,
                      params=params, locate=locate)


def _rolling_block(block: np.ndarray, axis: int, size: int, center: bool, mp: int, stat: str,
                   policy: NanPolicy, engine: Any, params: dict[str, Any],
                   subject: str) -> np.ndarray:
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
    if stat in _stats.COUNTS:
        vals = np.where(vals < mp, np.nan, vals.astype(np.float64))
    elif vals.dtype.kind in "iub":
        vals = vals.astype(np.float64)
    return np.moveaxis(vals.reshape((x2.shape[0],) + rest), 0, axis)


def _block_dtype(stat: str, dtype: Any, params: dict[str, Any]) -> np.dtype:
    """A block's result dtype from the table's rule (no probe run): ints, uints and
    bools widen to float64, where a short window or block is NaN."""
    dt = result_dtype(stat, dtype, **params)
    return np.dtype(np.float64) if dt.kind in "iub" else dt


def _dask_rolling(data: Any, axis: int, size: int, center: bool, mp: int, stat: str,
                  policy: NanPolicy, engine: Any, params: dict[str, Any], subject: str) -> Any:
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


def _dask_window(data: Any, axis: int, spec: Any, dim: Hashable, stat: str,
                 policy: NanPolicy, engine: Any, params: dict[str, Any], subject: str,
                 lead: bool) -> Any:
    """A lazy rolling or coarsen statistic of dask data along one dim; a list of ``q``
    is one lazy pass per quantile, stacked on a leading axis."""
    from ..dask.typed_dask import stack

    size = spec.sizes[dim]

    def single(p: dict[Any, Any]) -> Any:
        if spec.coarsen:
            return _dask_coarsen(data, axis, size, spec.boundary[dim], spec.side[dim], stat,
                                 policy, engine, p, subject)
        return _dask_rolling(data, axis, size, spec.center[dim], spec.periods([dim]), stat,
                             policy, engine, p, subject)

    if not lead:
        return single(params)
    return stack([single({**params, "q": float(qj)}) for qj in params["q"]], axis=0)


def _coarsen_block(block: np.ndarray, axis: int, size: int, stat: str, policy: NanPolicy,
                   engine: Any, params: dict[str, Any], subject: str) -> np.ndarray:
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
                  policy: NanPolicy, engine: Any, params: dict[str, Any], subject: str) -> Any:
    """A lazy coarsen: the dimension rechunked to whole coarsen blocks (the remainder
    trimmed, refused or left as a short block at the ``side`` end by ``boundary``), one
    reduction per chunk."""
    data, chunks = coarsen_chunks(data, axis, size, boundary, side)
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


def _coarsen_template(w: Any, spec: _Spec) -> Any:
    """xarray's own coarsen of the coordinates (its ``coord_func``, boundary and side):
    the labels of the result, from a count of a stand-in over the coarsened dims (a
    ``side`` dict lacking a dim: "left" there)."""
    obj, dims = w.obj, spec.dims
    shape = tuple(obj.sizes[d] for d in dims)
    coords = {k: v for k, v in obj.coords.items() if v.dims and set(v.dims) <= set(dims)}
    stand_in = xr.DataArray(np.broadcast_to(np.float64(0), shape), dims=dims, coords=coords)
    return stand_in.coarsen({d: w.windows[d] for d in dims}, boundary=w.boundary,
                            side=dict(spec.side), coord_func=w.coord_func).count()


def _coords(obj: Any, template: Any, dims: list[Any]) -> dict[Any, Any]:
    if template is None:
        return dict(obj.coords)
    coords = {k: v for k, v in obj.coords.items() if not set(v.dims) & set(dims)}
    coords.update({k: v for k, v in template.coords.items()})
    return coords


def _restated(err: NaNError, name: Any, dims: tuple[Any, ...], labels: list[Any], axis: int,
              rest: tuple[Any, ...], out_labels: Any) -> NaNError:
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

    def __get__(self, obj: Any, owner: type[Any] | None = None) -> Any:
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

    def __get__(self, gb: Any, owner: type[Any] | None = None) -> Any:
        from .groupby import NanGroupBy

        if gb is None:
            return NanGroupBy
        return NanGroupBy(grouped_object(gb), gb, resample=isinstance(gb, resample_classes()))


def register_groupby_accessors() -> None:
    """Set ``.nanstats`` on xarray's GroupBy and Resample classes."""
    for cls in groupby_classes():
        cls.nanstats = _GroupByAccessor()
