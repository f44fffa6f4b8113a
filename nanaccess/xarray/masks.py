"""NaN and missing masks of xarray objects for describe's rows (the ungrouped and the
grouped accessor both read them; lazy for dask data)."""

from __future__ import annotations

from typing import Any

import numpy as np
import xarray as xr

from ._common import holds_numbers, is_dask

__all__ = ["kind_masks"]


def _masks(a: np.ndarray) -> np.ndarray:
    """(2, ...) bool: NaNs (quiet or signaling) and missing values (NaT, None, pd.NA)."""
    a = np.asarray(a)
    out = np.zeros((2,) + a.shape, dtype=bool)
    if a.dtype.kind == "f":
        out[0] = np.isnan(a)
    elif a.dtype.kind in "mM":
        out[1] = np.isnat(a)
    elif a.dtype.kind == "O":
        from ..core import classify_object

        kinds = np.array([classify_object(v)[0] for v in a.ravel().tolist()],
                         dtype=object).reshape(a.shape)
        out[0], out[1] = kinds == "nan", kinds == "missing"
    return out


def kind_masks(obj: xr.DataArray | xr.Dataset) -> tuple[Any, Any]:
    """NaN and missing masks of ``obj`` (lazy for dask data), for describe's rows."""

    def masks(v: xr.DataArray) -> xr.DataArray:
        if is_dask(v.data):
            data = v.data.map_blocks(_masks, new_axis=0, chunks=((2,), *v.data.chunks),
                                     dtype=bool)
        else:
            data = _masks(v.values)
        return xr.DataArray(data, dims=("_kind",) + v.dims, coords=v.coords)

    if isinstance(obj, xr.Dataset):  # strings are left out, as by the statistics
        obj = obj[[k for k, v in obj.data_vars.items() if holds_numbers(v.variable)]]
    both = masks(obj) if isinstance(obj, xr.DataArray) else obj.map(masks)
    return both.isel(_kind=0), both.isel(_kind=1)
