"""Reading NetCDF for the command line: each data variable over its own dimensions.

One reader, netCDF4 (NetCDF3 classic and 64-bit, NetCDF4/HDF5; files and bytes from
stdin), with its own CF decoding (``set_auto_maskandscale``). Variables are never
broadcast into one table: ``temp(t, x)`` gives ``t*x`` values and ``elev(t)`` gives
``t`` values. What the library masks (entries equal to ``_FillValue`` or
``missing_value``, outside ``valid_range``) is *missing*: a nullable column. A NaN
stored in the file is not missing: it stays NaN, bits and sign included, even where
the fill value is NaN itself (as xarray writes by default for floats, so that fill
marks nothing missing) and under ``scale_factor`` / ``add_offset``, which the library
applies to the other numbers.

Coordinates are the variables that name a dimension or that another variable lists in
its ``coordinates`` attribute; times with CF units (``days since ...``) become dates.

Examples
--------
>>> import numpy as np
>>> values = as_series(np.ma.masked_array([1.0, -999.0, np.nan], [False, True, False]))
>>> values.dtype, values.isna().tolist()
(Float64Dtype(), [False, True, False])
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np
import pandas as pd

__all__ = ["Variable", "read_netcdf", "as_series", "group_keys"]


@dataclass
class Variable:
    """A NetCDF variable: name, dims (name -> length), dtype text and attributes."""

    name: str
    dims: dict[str, int]
    dtype: str
    attrs: dict[str, Any] = field(default_factory=dict)


def _open(src: Any) -> Any:
    try:
        import netCDF4
    except ImportError:
        raise ImportError(
            'reading NetCDF needs netCDF4: pip install "nanaccess[io]" (or pip install netCDF4)'
        ) from None
    if isinstance(src, bytes | bytearray | memoryview):
        return netCDF4.Dataset("<stdin>.nc", mode="r", memory=bytes(src))
    return netCDF4.Dataset(str(src), mode="r")


def _decoded(var: Any) -> np.ndarray | np.ma.MaskedArray:
    """The library's decoding of ``var``; stored NaNs unmasked and bit for bit."""
    var.set_auto_maskandscale(True)
    var.set_always_mask(False)
    values = var[...]
    if values.dtype.kind != "f" or var.dtype.kind != "f":
        return cast("np.ndarray | np.ma.MaskedArray", values)
    data = np.ma.getdata(values)
    nan = np.isnan(data)
    if not nan.any():
        return cast("np.ndarray | np.ma.MaskedArray", values)
    if {"scale_factor", "add_offset"} & set(var.ncattrs()):  # scaled NaNs: the stored bits
        var.set_auto_maskandscale(False)
        data[nan] = np.asarray(var[...], dtype=data.dtype)[nan]
        var.set_auto_maskandscale(True)
    if isinstance(values, np.ma.MaskedArray):  # a NaN fill value masks stored NaNs
        values = np.ma.masked_array(data, np.ma.getmaskarray(values) & ~nan)
    return cast("np.ndarray | np.ma.MaskedArray", values)


def as_series(values: np.ndarray | np.ma.MaskedArray) -> pd.Series:
    """Flat values; masked entries missing (a nullable column), the rest bit for bit."""
    flat = np.ravel(np.ma.getdata(values))
    mask = np.ravel(np.ma.getmaskarray(values)) if np.ma.is_masked(values) else None
    if mask is None or flat.dtype.kind not in "iufb":
        return pd.Series(flat)
    flat = flat.copy()
    flat[mask] = 0  # a missing slot's bits mean nothing
    if flat.dtype.kind == "f":
        arr = pd.arrays.FloatingArray(flat.astype(np.float64, copy=False), mask)
    elif flat.dtype.kind in "iu":
        arr = pd.arrays.IntegerArray(flat, mask)
    else:
        arr = pd.arrays.BooleanArray(flat, mask)
    return pd.Series(arr)


def _times(var: Any, values: Any) -> Any:
    """CF times as dates (a DatetimeIndex-able array); other values unchanged."""
    units = getattr(var, "units", None)
    if not isinstance(units, str) or " since " not in units:
        return values
    try:
        import cftime

        dates = cftime.num2date(values, units, getattr(var, "calendar", "standard"),
                                only_use_cftime_datetimes=False,
                                only_use_python_datetimes=True)
        return pd.to_datetime(np.ravel(dates)).values.reshape(np.shape(values))
    except Exception:  # noqa: BLE001 - a calendar pandas cannot hold: the numbers
        return values


def _coordinate_names(ds: Any) -> set[str]:
    names = {n for n in ds.variables if n in ds.dimensions}
    for var in ds.variables.values():
        names |= set(str(getattr(var, "coordinates", "")).split())
    return names & set(ds.variables)


def _index(dims: tuple[str, ...], sizes: dict[str, int], arrays: dict[Any, Any]) -> pd.Index:
    """The labels of a variable's flattened values (dims' coordinates, C order)."""
    levels = []
    for d in dims:
        coord = arrays.get(d)
        if coord is not None and coord[0] == (d,):
            levels.append(pd.Index(np.ma.getdata(coord[1]), name=d))
        else:
            levels.append(pd.RangeIndex(sizes[d], name=d))
    if not levels:
        return pd.RangeIndex(1)
    if len(levels) == 1:
        return levels[0]
    return pd.MultiIndex.from_product(levels, names=list(dims))


def _attrs(var: Any) -> dict[str, Any]:
    return {k: var.getncattr(k) for k in var.ncattrs()}


def _describe(name: str, var: Any, values: Any, sizes: dict[str, int]) -> Variable:
    # a char array read as strings (``_Encoding``) loses its last, string-length dim
    dims = tuple(str(d) for d in var.dimensions)[: np.ndim(values)]
    dtype = "object" if var.dtype is str else str(np.dtype(var.dtype))
    return Variable(name, {d: sizes[d] for d in dims}, dtype, _attrs(var))


def read_netcdf(
    src: Any, bar: Any
) -> tuple[dict[str, pd.Series], dict[str, Variable], dict[str, Variable], dict[str, Any]]:
    """(values per data variable, data variables, coordinates, coordinate arrays).

    ``src`` is a path or the file's bytes; ``bar(names)`` wraps the variable loop (a
    progress bar or the plain list). A coordinate array is ``(dims, values)``.
    """
    with _open(src) as ds:
        sizes = {str(d): len(dim) for d, dim in ds.dimensions.items()}
        coord_names = _coordinate_names(ds)
        coords: dict[str, Variable] = {}
        arrays: dict[str, Any] = {}
        for c in sorted(coord_names, key=list(ds.variables).index):
            var = ds.variables[c]
            values = _decoded(var)
            coords[c] = _describe(c, var, values, sizes)
            arrays[c] = (tuple(coords[c].dims), _times(var, values))
        names = [str(v) for v in ds.variables if v not in coord_names]
        data: dict[str, pd.Series] = {}
        variables: dict[str, Variable] = {}
        for name in bar(names):
            var = ds.variables[name]
            values = _decoded(var)
            variables[name] = _describe(name, var, values, sizes)
            s = as_series(values)
            s.index = _index(tuple(variables[name].dims), sizes, arrays)
            s.name = name
            data[name] = s
    return data, variables, coords, arrays


def group_keys(series: pd.Series, var: Variable, by: str, arrays: dict[Any, Any]) -> Any:
    """Group labels of each flattened value of a variable, or None if ``by`` is not
    on the variable's dimensions."""
    dims = tuple(var.dims)
    if by in dims:
        index = series.index
        return index.get_level_values(by) if isinstance(index, pd.MultiIndex) else index
    coord = arrays.get(by)
    if coord is None or not set(coord[0]) <= set(dims):
        return None
    cdims, values = coord
    values = np.ma.getdata(values)
    order = [cdims.index(d) for d in dims if d in cdims]  # the variable's dim order
    values = np.transpose(values, order)
    shape = [var.dims[d] if d in cdims else 1 for d in dims]
    return np.ravel(np.broadcast_to(values.reshape(shape), tuple(var.dims.values())))
