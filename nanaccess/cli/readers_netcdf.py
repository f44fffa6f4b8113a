"""Reading NetCDF for the command line: each data variable over its own dimensions.

Variables are never broadcast into one table: ``temp(t, x)`` gives ``t*x`` values and
``elev(t)`` gives ``t`` values. The file is opened with ``mask_and_scale=False`` and the
mask is applied here, so that

* entries equal to ``_FillValue`` or ``missing_value`` are *missing* (a nullable column),
* a NaN stored in the file stays NaN, bits and sign included (a NaN ``_FillValue``, as
  xarray writes by default for floats, therefore marks nothing missing),
* ``scale_factor`` / ``add_offset`` are applied to the other numbers.

Examples
--------
>>> import numpy as np
>>> raw = np.array([1, -999, 3], dtype=np.int16)
>>> values = unpack(raw, {"_FillValue": -999, "scale_factor": 0.5})
>>> values.dtype, values.isna().tolist(), float(values[2])
(Float64Dtype(), [False, True, False], 1.5)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["Variable", "read_netcdf", "unpack", "fill_mask"]


@dataclass
class Variable:
    """A NetCDF variable: name, dims (name -> length), dtype text and attributes."""

    name: str
    dims: dict[str, int]
    dtype: str
    attrs: dict[str, Any] = field(default_factory=dict)


def fill_mask(raw: np.ndarray, attrs: dict[str, Any]) -> np.ndarray | None:
    """Where ``raw`` equals ``_FillValue`` or a ``missing_value`` (NaN fills: nowhere).

    Examples
    --------
    >>> fill_mask(np.array([1.0, -9.0, np.nan]), {"_FillValue": np.nan, "missing_value": -9.0})
    array([False,  True, False])
    """
    if raw.dtype.kind not in "iufb":
        return None
    fills = [
        v
        for key in ("_FillValue", "missing_value")
        if key in attrs
        for v in np.atleast_1d(np.asarray(attrs[key])).ravel().tolist()
    ]
    fills = [v for v in fills if not (isinstance(v, float) and np.isnan(v))]
    if not fills:
        return None
    return np.isin(raw, np.asarray(fills, dtype=raw.dtype))


def unpack(raw: np.ndarray, attrs: dict[str, Any]) -> pd.Series:
    """Flat values of a variable: fills masked as missing, scale and offset applied."""
    flat = np.ravel(raw)
    mask = fill_mask(flat, attrs)
    scale, offset = attrs.get("scale_factor"), attrs.get("add_offset")
    if flat.dtype.kind in "iuf" and (scale is not None or offset is not None):
        values = flat.astype(np.result_type(flat.dtype, np.float32, np.asarray(scale or 1.0)))
        ok = ~np.isnan(values)  # a NaN in the file stays bit for bit
        if mask is not None:
            ok &= ~mask
        values[ok] = values[ok] * (1 if scale is None else scale) + (offset or 0)
        flat = values
    if mask is None or not mask.any():
        return pd.Series(flat)
    values = flat.copy()
    values[mask] = 0  # a missing slot's bits mean nothing
    if values.dtype.kind == "f":
        arr = pd.arrays.FloatingArray(values.astype(np.float64, copy=False), mask)
    elif values.dtype.kind in "iu":
        arr = pd.arrays.IntegerArray(values, mask)
    else:
        arr = pd.arrays.BooleanArray(values, mask)
    return pd.Series(arr)


def _index(ds: Any, dims: tuple[str, ...]) -> pd.Index:
    """The labels of a variable's flattened values (dims' coordinates, C order)."""
    levels = [
        pd.Index(ds.indexes[d], name=d) if d in ds.indexes else pd.RangeIndex(ds.sizes[d], name=d)
        for d in dims
    ]
    if not levels:
        return pd.RangeIndex(1)
    if len(levels) == 1:
        return levels[0]
    return pd.MultiIndex.from_product(levels, names=list(dims))


def read_netcdf(
    src: Any, bar: Any
) -> tuple[dict[str, pd.Series], dict[str, Variable], dict[str, Variable], dict[str, Any]]:
    """(values per data variable, data variables, coordinates, coordinate arrays).

    ``bar(names)`` wraps the variable loop (a progress bar or the plain list).
    """
    import xarray as xr

    ds = xr.open_dataset(src, mask_and_scale=False, decode_times=True)
    with ds:
        names = [str(v) for v in ds.data_vars]
        data: dict[str, pd.Series] = {}
        variables: dict[str, Variable] = {}
        for name in bar(names):
            var = ds[name]
            variables[name] = Variable(name, dict(var.sizes), str(var.dtype), dict(var.attrs))
            s = unpack(var.values, dict(var.attrs))
            s.index = _index(ds, var.dims)
            s.name = name
            data[name] = s
        coords = {
            str(c): Variable(str(c), dict(ds[c].sizes), str(ds[c].dtype), dict(ds[c].attrs))
            for c in ds.coords
        }
        arrays = {str(c): ds[c].load() for c in ds.coords}
    return data, variables, coords, arrays


def group_keys(series: pd.Series, var: Variable, by: str, arrays: dict) -> Any:
    """Group labels of each flattened value of a variable, or None if ``by`` is not
    on the variable's dimensions."""
    dims = tuple(var.dims)
    if by in dims:
        index = series.index
        return index.get_level_values(by) if isinstance(index, pd.MultiIndex) else index
    coord = arrays.get(by)
    if coord is None or not set(coord.dims) <= set(dims):
        return None
    extra = {d: n for d, n in var.dims.items() if d not in coord.dims}
    return np.ravel(coord.expand_dims(extra).transpose(*dims).values)
