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
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from .. import _stats
from .._conventions import below_min_count
from .._labels import CoordLocation, relabel
from ..errors import NaNError
from ..options import NanPolicy, resolve_policy
from ._common import holds_numbers as _holds_numbers
from ._common import is_dask as _is_dask
from ._common import keep_attrs as _keep_attrs
from ._common import numeric_only_default, variable_subject
from ._generated import GroupByStatsMixin
from ._xr_internals import encoded_groups, from_temp_dataset, to_temp_dataset
from .grouped_blocks import grouped_dask, kernel, run_block

__all__ = ["NanGroupBy", "grouped_dataarray", "null_below"]

_STACKED = "__nanaccess_stacked_group_dims__"


class _GroupRelabel:
    """Relabel a grouped-kernel error: variable, group label and coordinates.

    The kernel's position is (row along the group dim, flat column of the others);
    it is mapped back to the variable's own dims before the coordinates are read.
    """

    def __init__(self, name, dims, labels, gaxis, rest_shape, codes, full_index):
        self.subject = variable_subject(name)
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
        full.insert(self.gaxis, i)
        code = int(self.codes[i])
        group = self.full_index[code] if code >= 0 else None
        return relabel(err, self.subject, lambda _pos: self.location(tuple(full)), group)


def _grouped_array(data: Any, axis: int, codes: np.ndarray, ngroups: int, stat: str, *,
                   policy: NanPolicy, params: dict[str, Any], relabeller: Any = None,
                   prior: list | None = None) -> Any:
    """Grouped statistic along ``axis``; the result has ``ngroups`` there
    (and leading q dims for array q).

    On dask the grouped axis is brought whole into blocks of cells, spread over the
    tasks, and errors name what the in-memory path names (:mod:`.grouped_blocks`)."""
    qshape = np.shape(params["q"]) if "q" in params else ()
    run = dict(axis=axis, codes=codes, ngroups=ngroups, stat=stat, params=params,
               qshape=qshape)
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

    def __init__(self, obj: xr.DataArray | xr.Dataset, gb: Any, resample: bool = False):
        self._obj = obj
        self._gb = gb
        self._resample = resample

    # -- machinery -------------------------------------------------------------------

    def _groups(self) -> tuple[Any, Hashable, Hashable, np.ndarray, int, xr.Variable,
                               np.ndarray]:
        codes_da, full_index, ucoord = encoded_groups(self._gb)
        obj = self._obj
        if codes_da.ndim != 1:
            # a group over several dims: stack them into one, as xarray's own groupby
            # does (same layout, variables lacking those dims broadcast the same way)
            over = {_STACKED: codes_da.dims}
            codes_da = codes_da.stack(over, create_index=False)
            obj = obj.stack(over, create_index=False)
        gdim = codes_da.dims[0]
        codes = np.asarray(codes_da.values).astype(np.intp)
        ngroups = len(full_index)
        if self._resample:
            new_dim = gdim
            keep = np.arange(ngroups)
            coord = xr.Variable(new_dim, np.asarray(full_index))
        else:
            new_dim = ucoord.dims[0]
            uvals = pd.Index(np.asarray(ucoord.values))
            keep = np.asarray(pd.Index(full_index).get_indexer(uvals), dtype=np.intp)
            coord = xr.Variable(new_dim, np.asarray(ucoord.values), attrs=ucoord.attrs)
        return obj, gdim, new_dim, codes, ngroups, coord, keep

    def _reduce(self, stat: str, *, nan_policy: Any = None, keep_attrs: bool | None = None,
                min_count: int = 0, **params: Any) -> xr.DataArray | xr.Dataset:
        """The hook of every generated statistic: the grouped kernel per variable,
        laid out as xarray's own GroupBy result."""
        out = self._grouped(stat, nan_policy=nan_policy, keep_attrs=keep_attrs, **params)
        if min_count:
            out = null_below(out, self.count(keep_attrs=keep_attrs), min_count)
        return out

    def describe(self, percentiles: Any = None, *, nan_policy: str | None = None,
                 ddof: float = 1) -> xr.DataArray | xr.Dataset:
        """describe's rows per group, as ``obj.nanstats.describe`` per group.

        A ``statistic`` dimension (first) holds the rows of every host
        (:mod:`nanaccess._describe`): count, nan, missing, mean, std (``ddof=1`` as
        pandas), min, the percentiles and max, all float64. The counts report every kind
        of value; the statistics are computed under "omit" unless ``nan_policy`` says
        otherwise (describe does not raise by default). Lazy on dask data.

        Examples
        --------
        >>> import numpy as np, pandas as pd, xarray as xr, nanaccess.xarray
        >>> t = pd.date_range("2024-01-30", periods=4)
        >>> da = xr.DataArray([1.0, np.nan, 3.0, 5.0], dims="time", coords={"time": t})
        >>> d = da.nanstats.groupby("time.month").describe()
        >>> d.sel(statistic=["count", "nan", "50%"]).values.tolist()
        [[1.0, 2.0], [1.0, 0.0], [1.0, 4.0]]
        """
        from .._describe import pct_label, row_labels
        from .._describe import percentiles as _pcts
        from .accessor import _kind_masks

        policy = "omit" if nan_policy is None else nan_policy
        qs = _pcts(percentiles)
        nan, missing = _kind_masks(self._obj)
        parts = {
            "count": self.count(),
            "nan": NanGroupBy(nan, self._gb, self._resample).sum(),
            "missing": NanGroupBy(missing, self._gb, self._resample).sum(),
            "mean": self.mean(nan_policy=policy),
            "std": self.std(ddof=ddof, nan_policy=policy),
            "min": self.min(nan_policy=policy),
        }
        qv = self.quantile(qs, nan_policy=policy)
        for q in qs:
            parts[pct_label(q)] = qv.sel(quantile=q, drop=True)
        parts["max"] = self.max(nan_policy=policy)
        rows = row_labels(percentiles)
        cast = [parts[r].astype(np.float64) for r in rows]
        out = xr.concat(cast, dim="statistic", coords="minimal", compat="override",
                        join="override")
        return out.assign_coords(statistic=rows)

    def nan_report(self) -> pd.DataFrame:
        """The counts of :func:`nanaccess.nan_report` per group (as pandas GroupBy
        ``nanstats.nan_report``): a DataFrame indexed by group, one column per report
        key for a DataArray, (variable, key) columns for a Dataset. Dask data is
        computed (the report is a small in-memory table).

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

        obj, gdim, new_dim, codes, ngroups, coord, keep = self._groups()
        ds = to_temp_dataset(obj) if isinstance(obj, xr.DataArray) else obj
        index = pd.Index(np.asarray(coord.values), name=new_dim)
        frames = {}
        for name, var in ds.data_vars.items():
            if gdim not in var.dims:
                continue
            v = np.moveaxis(np.asarray(var.values), var.get_axis_num(gdim), 0)
            rest = int(np.prod(v.shape[1:], dtype=np.int64))
            flat = v.reshape(-1)
            col = Column(flat, None, "object" if flat.dtype.kind == "O" else "numpy", flat.dtype)
            rep = grouped_report(col, np.repeat(codes, rest), ngroups)
            frames[name] = pd.DataFrame({k: np.asarray(c)[keep] for k, c in rep.items()},
                                        index=index)
        if isinstance(obj, xr.DataArray):
            return next(iter(frames.values()))
        return pd.concat(frames, axis=1)

    def _grouped(self, stat: str, *, nan_policy: Any = None, keep_attrs: bool | None = None,
                 **params: Any) -> xr.DataArray | xr.Dataset:
        # a grouped count takes no policy (as pandas'): it counts the numbers, and
        # "totalorder" is the policy under which nothing raises
        policy = NanPolicy.TOTALORDER if stat in _stats.names("count") else \
            resolve_policy(nan_policy)
        keep = _keep_attrs(keep_attrs)
        obj, gdim, new_dim, codes, ngroups, coord, keep_idx = self._groups()
        full_index = encoded_groups(self._gb)[1]
        qarr = None
        if "q" in params:
            qarr = np.asarray(params["q"], dtype=np.float64)
            if qarr.ndim > 1:
                raise ValueError(f"q must be a scalar or 1-D, got shape {qarr.shape}")
            params = {**params, "q": qarr}
        is_ds = not isinstance(obj, xr.DataArray)
        numeric_only = is_ds and numeric_only_default(stat, grouped=True)
        ds = to_temp_dataset(obj) if isinstance(obj, xr.DataArray) else obj
        name_of = ({n: obj.name for n in ds.data_vars} if isinstance(obj, xr.DataArray)
                   else {n: n for n in ds.data_vars})
        variables: dict[Hashable, xr.Variable] = {}
        lead = 0 if qarr is None or qarr.ndim == 0 else 1
        # xarray's layout: a DataArray keeps the group dim in place, a Dataset puts it
        # first (in place when several dims were stacked into it) and broadcasts the
        # variables lacking it along it; a list of q adds "quantile" last
        group_first = is_ds and gdim != _STACKED
        broadcast: list[Hashable] = []
        prior: list = []  # dask: the earlier variables' error checks (raised first)
        for name, var in ds.data_vars.items():
            var = var.variable
            if gdim not in var.dims:
                if is_ds:
                    broadcast.append(name)
                else:
                    variables[name] = var
                continue
            if numeric_only and not _holds_numbers(var):
                continue  # a Dataset's non-numeric variables are left out, as xarray
            axis = var.get_axis_num(gdim)
            rest = tuple(s for d, s in zip(var.dims, var.shape, strict=True) if d != gdim)
            relabeller = _GroupRelabel(
                name_of[name], var.dims,
                [ds.indexes[d] if d in ds.indexes else None for d in var.dims],
                axis, rest, codes, full_index)
            vals = _grouped_array(
                var.data, axis, codes, ngroups, stat, policy=policy, params=params,
                relabeller=relabeller, prior=prior)
            if len(keep_idx) != ngroups or not np.array_equal(keep_idx, np.arange(ngroups)):
                vals = vals[(slice(None),) * (lead + axis) + (keep_idx,)]
            dims = tuple(new_dim if d == gdim else d for d in var.dims)
            if lead:
                dims = ("quantile",) + dims
            out_var = xr.Variable(dims, vals, attrs=var.attrs if keep else None)
            order = [d for d in dims if d != "quantile"]
            if group_first:
                order = [new_dim] + [d for d in order if d != new_dim]
            variables[name] = out_var.transpose(*order, *(("quantile",) if lead else ()))
        for name in broadcast:
            var = ds[name].variable
            extra = {new_dim: coord.size, **({"quantile": qarr.size} if lead else {})}
            variables[name] = var.set_dims({**extra, **var.sizes}).copy(deep=False)
            if not keep:
                variables[name].attrs = {}
        coords = {k: v.variable for k, v in ds.coords.items() if gdim not in v.dims}
        coords[new_dim] = coord
        out = xr.Dataset(variables, coords=coords, attrs=ds.attrs if keep else None)
        if qarr is not None:
            out = out.assign_coords(quantile=qarr)
        if isinstance(obj, xr.DataArray):
            return from_temp_dataset(obj, out)
        return out


def null_below(out: Any, count: Any, min_count: int) -> Any:
    """``out`` with NaN where ``count`` (same layout) is below ``min_count``, as
    xarray's and pandas' ``sum(min_count=)``."""
    below_min_count(0, min_count)  # validates
    if isinstance(out, xr.Dataset):
        count = count[list(out.data_vars)]
    return out.where(count >= min_count)


def grouped_dataarray(obj: xr.DataArray, group: Any, stat: str, **kwargs: Any):
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

    def __init__(self, codes: xr.DataArray, full_index: pd.Index, unique_coord: xr.Variable):
        self.codes, self.full_index, self.unique_coord = codes, full_index, unique_coord


class _Factorized:
    """Stand-in for an xarray GroupBy over one 1-D variable, built with one
    ``pd.factorize``: xarray's own constructor maps codes to group indices with a
    Python loop over every element (about 1 s per million rows), which the grouped
    kernel never needs."""

    def __init__(self, encoded: _Encoded) -> None:
        self.encoded = encoded


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
    codes_da = xr.DataArray(codes.astype(np.intp), dims=key.dims)
    return _Factorized(_Encoded(codes_da, full_index, unique_coord))
