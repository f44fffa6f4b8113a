"""``da.nanstats.groupby(...)`` and ``da.nanstats.resample(...)``.

Group codes come from xarray's own groupby machinery (``GroupBy.encoded``), so the
groups, their order and the group coordinate are those of ``da.groupby(...)``; the
numbers come from the grouped core entry point
:func:`nanaccess.core.grouped.grouped_reduce` (shared with the pandas adapter): the
grouped dimension is moved first and the other dimensions are flattened into columns.
A group over several dimensions is stacked into one first, as xarray does. Results
are laid out as xarray's default (flox) engine lays them out: see decision 21 in
``docs/dev/decisions.md``. Dask data is reduced block by block along the other
dimensions (:mod:`.grouped_blocks`): the grouped dimension is brought whole into
blocks of cells no larger than the largest input chunk, spread over many tasks, and
errors name what the in-memory path names.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any, cast

import numpy as np
import pandas as pd
import xarray as xr

from .. import _stats
from .._hostkit import reaches_min_count
from .._labels import CoordLocation, relabel
from ..errors import NaNError
from ..options import NanPolicy, resolve_policy
from ..typing import NanPolicyArg
from ._common import holds_numbers as _holds_numbers
from ._common import is_dask as _is_dask
from ._common import keep_attrs as _keep_attrs
from ._common import variable_subject
from ._generated import GroupByStatsMixin
from ._xr_internals import from_temp_dataset, to_temp_dataset
from .grouped_blocks import grouped_dask, kernel, run_block
from .grouped_layout import Grouping, plan
from .masks import kind_masks

__all__ = ["NanGroupBy", "grouped_dataarray", "null_below"]

class _GroupRelabel:
    """Relabel a grouped-kernel error: variable, group label and coordinates.

    The kernel's position is (row along the group dim, flat column of the others);
    it is mapped back to the variable's own dims before the coordinates are read.
    """

    def __init__(self, name: Any, dims: Any, labels: Any, gaxis: Any, rest_shape: Any, codes: Any,
                 full_index: Any,
                 stacked: Any = None) -> None:
        self.subject = variable_subject(name)
        self.stacked = stacked  # (dims, sizes, labels) of the dims stacked at gaxis
        if stacked is not None:
            dims = (*dims[:gaxis], *stacked[0], *dims[gaxis + 1:])
            labels = [*labels[:gaxis], *stacked[2], *labels[gaxis + 1:]]
        self.location = CoordLocation(dims, labels)
        self.gaxis = gaxis
        self.rest_shape = rest_shape
        self.codes = codes
        self.full_index = full_index

    def __call__(self, err: NaNError) -> NaNError:
        pos = err.position
        if pos is None or len(pos) < 1:
            return relabel(err, self.subject, self.location)
        i = int(pos[0])
        j = int(pos[1]) if len(pos) > 1 else 0
        full = [int(r) for r in np.unravel_index(j, self.rest_shape)] if self.rest_shape else []
        if self.stacked is not None:
            full[self.gaxis:self.gaxis] = [int(r) for r in np.unravel_index(i, self.stacked[1])]
        else:
            full.insert(self.gaxis, i)
        code = int(self.codes[i])
        group = self.full_index[code] if code >= 0 else None
        return relabel(err, self.subject, lambda _pos: self.location(tuple(full)), group)


def _grouped_array(data: Any, axis: int, codes: np.ndarray, ngroups: int, stat: str, *,
                   policy: NanPolicy, params: dict[str, Any], relabeller: Any = None,
                   prior: list[Any] | None = None) -> Any:
    """Grouped statistic along ``axis``; the result has ``ngroups`` there
    (and leading q dims for array q).

    On dask the grouped axis is brought whole into blocks of cells, spread over the
    tasks, and errors name what the in-memory path names (:mod:`.grouped_blocks`)."""
    qshape = np.shape(params["q"]) if "q" in params else ()
    run: dict[str, Any] = dict(axis=axis, codes=codes, ngroups=ngroups, stat=stat,
                               params=params, qshape=qshape)
    if not _is_dask(data):
        return run_block(np.asarray(data), policy=policy, relabeller=relabeller, **run)
    sample = np.zeros((1, 2), dtype=data.dtype)
    try:  # the result dtype, from a tiny run of the kernel
        out_dtype = kernel(sample, np.zeros(1, np.intp), 1, stat, NanPolicy.TOTALORDER,
                           params).dtype
    except Exception:  # pragma: no cover - dtype probe only
        out_dtype = data.dtype
    return grouped_dask(data, axis, codes, ngroups, stat, policy=policy, params=params,
                        qshape=qshape, out_dtype=out_dtype, relabeller=relabeller,
                        prior=prior)


class NanGroupBy(GroupByStatsMixin):
    """Grouped nanaccess statistics over an xarray ``GroupBy`` / ``Resample`` object.

    Built by ``obj.nanstats.groupby(...)`` / ``obj.nanstats.resample(...)``; every
    statistic returns what ``obj.groupby(...).<stat>()`` would return in shape,
    dims, coords and attrs.

    Examples
    --------
    >>> import numpy as np, pandas as pd, xarray as xr, nanaccess.xarray
    >>> t = pd.date_range("2024-01-30", periods=4)
    >>> da = xr.DataArray([1.0, 2.0, 3.0, 9.0], dims="time", coords={"time": t})
    >>> da.nanstats.groupby("time.month").max().values
    array([2., 9.])
    """

    def __init__(self, obj: xr.DataArray | xr.Dataset, gb: Any, resample: bool = False) -> None:
        self._obj = obj
        self._gb = gb
        self._resample = resample

    # -- machinery -------------------------------------------------------------------

    def _reduce(self, stat: str, *, dim: Any = None, axis: Any = None, nan_policy: Any = None,
                keep_attrs: bool | None = None, min_count: int = 0,
                **params: Any) -> xr.DataArray | xr.Dataset:
        """The hook of every generated statistic: the grouped kernel per variable,
        laid out as xarray's own GroupBy result."""
        out = self._grouped(stat, dim=dim, axis=axis, nan_policy=nan_policy,
                            keep_attrs=keep_attrs, **params)
        if min_count:
            out = null_below(out, self.count(dim, axis=axis, keep_attrs=keep_attrs),
                             min_count)
        return out

    def describe(self, percentiles: Any = None, dim: Any = None, *,
                 nan_policy: NanPolicyArg = None,
                 ddof: float = 1) -> xr.DataArray | xr.Dataset:
        """describe's rows per group, as ``obj.nanstats.describe`` per group.

        A ``statistic`` dimension (first) holds the rows of every host
        (:mod:`nanaccess._describe`): count, nan, missing, mean, std (``ddof=1`` as
        pandas), min, the percentiles and max, all float64. The counts report every kind
        of value; the statistics are computed under "omit" unless ``nan_policy`` is
        passed or a policy other than "raise" was chosen with ``set_options`` /
        ``option_context``.
        ``dim`` as the statistics' (default: the dims the groups span). Lazy on dask data.

        Examples
        --------
        >>> import numpy as np, pandas as pd, xarray as xr, nanaccess.xarray
        >>> t = pd.date_range("2024-01-30", periods=4)
        >>> da = xr.DataArray([1.0, np.nan, 3.0, 5.0], dims="time", coords={"time": t})
        >>> d = da.nanstats.groupby("time.month").describe()
        >>> d.sel(statistic=["count", "nan", "50%"]).values.tolist()
        [[1.0, 2.0], [1.0, 0.0], [1.0, 4.0]]
        """
        from .._describe import describe_policy, pct_label, row_labels
        from .._describe import percentiles as _pcts

        policy = describe_policy(nan_policy)
        qs = _pcts(percentiles)
        nan, missing = kind_masks(self._obj)
        parts = {
            "count": self.count(dim),
            # counts of the masks: 0 in an empty group, as the count row
            "nan": NanGroupBy(nan, self._gb, self._resample).sum(dim).fillna(0),
            "missing": NanGroupBy(missing, self._gb, self._resample).sum(dim).fillna(0),
            "mean": self.mean(dim, nan_policy=policy),
            "std": self.std(dim, ddof=ddof, nan_policy=policy),
            "min": self.min(dim, nan_policy=policy),
        }
        qv = self.quantile(qs, dim, nan_policy=policy)
        for q in qs:
            parts[pct_label(q)] = qv.sel(quantile=q, drop=True)
        parts["max"] = self.max(dim, nan_policy=policy)
        rows = row_labels(percentiles)
        floats = [parts[r].astype(np.float64) for r in rows]
        out = xr.concat(floats, dim="statistic", coords="minimal", compat="override",
                        join="override")
        return cast("xr.DataArray | xr.Dataset", out.assign_coords(statistic=rows))

    def nan_report(self, dim: Any = None) -> pd.DataFrame:
        """The counts of :func:`nanaccess.nan_report` per group (as pandas GroupBy
        ``nanstats.nan_report``): a DataFrame indexed by group (every group of the full
        index, as the statistics; a MultiIndex for several keys), one column per report
        key for a DataArray, (variable, key) columns for a Dataset. ``dim`` as the
        statistics' (default: the dims the groups span). Dask data is computed (the
        report is a small in-memory table).

        Examples
        --------
        >>> import numpy as np, pandas as pd, xarray as xr, nanaccess.xarray
        >>> t = pd.date_range("2024-01-30", periods=4)
        >>> da = xr.DataArray([1.0, np.nan, np.nan, 5.0], dims="time", coords={"time": t})
        >>> da.nanstats.groupby("time.month").nan_report()["nan"].tolist()
        [1, 1]
        """
        from ..pandas.dtypes import Column
        from ..pandas.group_report import grouped_report

        g = self._plan(dim, None)
        ds = to_temp_dataset(g.obj) if isinstance(g.obj, xr.DataArray) else g.obj
        index = g.full_index
        if not isinstance(index, pd.MultiIndex):
            index = pd.Index(index, name=g.names[0])
        frames = {}
        for name, var in ds.data_vars.items():
            if g.rdim not in var.dims:
                continue
            v = np.moveaxis(np.asarray(var.values), var.get_axis_num(g.rdim), 0)
            rest = int(np.prod(v.shape[1:], dtype=np.int64))
            flat = v.reshape(-1)
            col = Column(flat, None, "object" if flat.dtype.kind == "O" else "numpy", flat.dtype)
            rep = grouped_report(col, np.repeat(g.codes, rest), g.ngroups)
            frames[name] = pd.DataFrame({k: np.asarray(c) for k, c in rep.items()},
                                        index=index)
        if isinstance(self._obj, xr.DataArray):
            return next(iter(frames.values()))
        return pd.concat(frames, axis=1)

    def _plan(self, dim: Any, axis: Any) -> Grouping:
        g = plan(self._obj, self._gb, dim, axis, resample=self._resample)
        if isinstance(g, tuple):
            raise ValueError(f"dim={dim!r} reduces none of the dims the groups span")
        return g

    def _grouped(self, stat: str, *, dim: Any = None, axis: Any = None,
                 nan_policy: Any = None, keep_attrs: bool | None = None,
                 **params: Any) -> xr.DataArray | xr.Dataset:
        # a grouped count takes no policy (as pandas'): it counts the numbers, and
        # "totalorder" is the policy under which nothing raises
        policy = NanPolicy.TOTALORDER if stat in _stats.names("count") else \
            resolve_policy(nan_policy)
        keep = _keep_attrs(keep_attrs)
        g = plan(self._obj, self._gb, dim, axis, resample=self._resample)
        if isinstance(g, tuple):  # no dim of the groups reduced: the plain reduction
            from .reduction import reduce

            params.pop("engine", None)
            return reduce(self._obj, stat, g, nan_policy=policy, keep_attrs=keep_attrs,
                          **params)
        qarr = None
        if "q" in params:
            qarr = np.asarray(params["q"], dtype=np.float64)
            if qarr.ndim > 1:
                raise ValueError(f"q must be a scalar or 1-D, got shape {qarr.shape}")
            params = {**params, "q": qarr}
        is_ds = isinstance(self._obj, xr.Dataset)
        ds = g.obj if is_ds else to_temp_dataset(g.obj)
        templates = self._obj if is_ds else to_temp_dataset(self._obj)
        name_of = ({n: n for n in ds.data_vars} if is_ds
                   else {n: self._obj.name for n in ds.data_vars})
        lead = int(qarr is not None and qarr.ndim == 1)
        variables: dict[Hashable, xr.Variable] = {}
        prior: list[Any] = []  # dask: the earlier variables' error checks (raised first)
        for name, var in ds.data_vars.items():
            var = var.variable
            if g.rdim not in var.dims:
                # no reduced dim (a Dataset's): expanded along the keys it lacks, as xarray
                missing = {n: s for n, s in zip(g.names, g.sizes, strict=True)
                           if n not in var.dims}
                if lead:  # xarray's grouped quantile adds its dim there too
                    missing["quantile"] = qarr.size
                variables[name] = var.set_dims({**missing, **var.sizes}).copy(deep=False)
                if not keep:
                    variables[name].attrs = {}
                continue
            if is_ds and not _holds_numbers(var):
                continue  # strings are left out, never raised on (decision 16)
            variables[name] = self._one(g, stat, name_of[name], var, templates[name].dims,
                                        ds, policy=policy, params=params, prior=prior,
                                        lead=lead, keep=keep, dataset=is_ds)
        coords = {k: v.variable for k, v in self._obj.coords.items()
                  if not set(v.dims) & set(g.reduced) and k not in g.names}
        coords.update(g.coords)
        out = xr.Dataset(variables, coords=coords,
                         attrs=self._obj.attrs if keep and is_ds else None)
        if qarr is not None:
            out = out.assign_coords(quantile=qarr)
        if not is_ds:
            return from_temp_dataset(self._obj, out)
        return out

    @staticmethod
    def _one(g: Grouping, stat: str, label: Hashable, var: xr.Variable, template: tuple[Any, ...],
             ds: xr.Dataset, *, policy: NanPolicy, params: dict[str, Any], prior: list[Any],
             lead: int,
             keep: bool, dataset: bool) -> xr.Variable:
        """One variable reduced per group: the key dims in place of the reduced dim,
        then in xarray's order."""
        axis = var.get_axis_num(g.rdim)
        rest = tuple(s for d, s in zip(var.dims, var.shape, strict=True) if d != g.rdim)
        stacked = None
        if len(g.rows) > 1:
            stacked = (g.rows, g.row_sizes, [g.indexes.get(d) for d in g.rows])
        relabeller = _GroupRelabel(
            label, var.dims, [ds.indexes[d] if d in ds.indexes else None for d in var.dims],
            axis, rest, g.codes, g.full_index, stacked)
        vals = _grouped_array(var.data, axis, g.codes, g.ngroups, stat, policy=policy,
                              params=params, relabeller=relabeller, prior=prior)
        at = lead + axis
        if g.has_empty and vals.dtype.kind in "iubf" and stat not in _stats.COUNTS:
            # a group without rows is NaN, as xarray; its count stays an exact 0 (int64,
            # as pandas' count of an empty bin)
            present = np.bincount(g.codes[g.codes >= 0], minlength=g.ngroups) > 0
            shape = [1] * vals.ndim
            shape[at] = g.ngroups
            vals = np.where(present.reshape(shape), vals, np.nan)
        if len(g.sizes) > 1:
            vals = vals.reshape(vals.shape[:at] + g.sizes + vals.shape[at + 1:])
        dims = (("quantile",) * lead + var.dims[:axis] + g.names + var.dims[axis + 1:])
        out = xr.Variable(dims, vals, attrs=var.attrs if keep else None)
        loop = tuple(d for d in var.dims if d != g.rdim)
        return out.transpose(*g.dims_of(loop, template, dataset=dataset, quantile=bool(lead)))


def null_below(out: Any, count: Any, min_count: int) -> Any:
    """``out`` with NaN where ``count`` (same layout) is below ``min_count``, as
    xarray's and pandas' ``sum(min_count=)``."""
    if isinstance(out, xr.Dataset):
        count = count[list(out.data_vars)]
    return out.where(reaches_min_count(count, min_count))


def grouped_dataarray(obj: xr.DataArray, group: Any, stat: str, **kwargs: Any) -> Any:
    """Functional form: ``grouped_dataarray(da, "time.month", "median", nan_policy=...)``.

    Examples
    --------
    >>> import pandas as pd, xarray as xr
    >>> t = pd.date_range("2024-01-30", periods=4)
    >>> da = xr.DataArray([1.0, 2.0, 3.0, 9.0], dims="time", coords={"time": t})
    >>> grouped_dataarray(da, "time.month", "max").values
    array([2., 9.])
    """
    return getattr(NanGroupBy(obj, obj.groupby(group)), stat)(**kwargs)


class _Encoded:
    """The parts of xarray's ``EncodedGroups`` that :class:`NanGroupBy` reads."""

    def __init__(self, codes: xr.DataArray, full_index: pd.Index,
                 unique_coord: xr.Variable) -> None:
        self.codes, self.full_index, self.unique_coord = codes, full_index, unique_coord


class _Factorized:
    """Stand-in for an xarray GroupBy over one 1-D variable, built with one
    ``pd.factorize``: xarray's own constructor maps codes to group indices with a
    Python loop over every element (about 1 s per million rows), which the grouped
    kernel never needs."""

    def __init__(self, encoded: _Encoded, group: xr.DataArray) -> None:
        self.encoded = encoded
        self.groupers = [_Grouper(encoded, group)]


class _Grouper:
    """The parts of xarray's ``ResolvedGrouper`` that :func:`.grouped_layout.plan` reads."""

    def __init__(self, encoded: _Encoded, group: xr.DataArray) -> None:
        self.name, self.full_index = encoded.full_index.name, encoded.full_index
        self.codes, self.group = encoded.codes, group


def factorized_groupby(obj: xr.DataArray | xr.Dataset, group: Any) -> _Factorized | None:
    """A :class:`_Factorized` for ``group`` naming a 1-D variable of ``obj`` (or a 1-D
    DataArray along one of its dims); None where xarray's own grouping is needed
    (virtual variables such as "time.month", several dims, categorical keys)."""
    if isinstance(group, str):
        names = obj.variables if isinstance(obj, xr.Dataset) else obj.coords
        if group not in names or group in obj.dims:
            return None  # grouping by a dimension coordinate keeps coords: xarray's path
        key = obj[group]
    elif isinstance(group, xr.DataArray) and group.name is not None:
        key = group
    else:
        return None
    if key.ndim != 1 or key.dims[0] not in obj.dims or key.sizes[key.dims[0]] != obj.sizes[
            key.dims[0]] or key.dtype.kind not in "iufbUSMmO":
        return None
    values = key.values
    if isinstance(values.dtype, pd.CategoricalDtype):
        return None
    codes, uniques = pd.factorize(values, sort=True, use_na_sentinel=True)
    name = key.name
    full_index = pd.Index(uniques, name=name)
    unique_coord = xr.Variable(name, np.asarray(uniques), attrs=key.attrs)
    codes_da = xr.DataArray(codes.astype(np.intp), dims=key.dims, name=name,
                            attrs=key.attrs)
    return _Factorized(_Encoded(codes_da, full_index, unique_coord), key)
