"""``obj.nanstats.nan_report(dim=...)``: the counts of :func:`nanaccess.nan_report` per
cell of the dims that are kept, as an xarray object.

The report's keys become a new leading ``kind`` dimension (labels ``values``,
``numbers``, ``nan``, ``quiet_nan``, ``signaling_nan``, ``negative_nan``,
``distinct_payloads``, ``posinf``, ``neginf``, ``missing``), as ``describe`` adds its
``statistic`` dimension: a DataArray gives a DataArray, a Dataset a Dataset with one
int64 count variable per data variable (strings included: their values count, none
of them is a number). Counts of float data are whole-array operations on the bits
(the distinct payloads of a cell from one sort along the reduced dims); object data
is classified element by element, as the plain report does. Dask data stays lazy:
the reduced dims are merged into one chunk and each block is counted.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import numpy as np
import xarray as xr

from ..core import float_masks
from ..core import nan_report as plain_report
from ._common import is_dask

__all__ = ["KEYS", "report_counts", "report_over"]

#: the report's keys, in :func:`nanaccess.nan_report`'s order
KEYS = ("values", "numbers", "nan", "quiet_nan", "signaling_nan", "negative_nan",
        "distinct_payloads", "posinf", "neginf", "missing")


def report_counts(a: np.ndarray) -> np.ndarray:
    """(len(KEYS), ...) int64: the report of each cell of ``a`` over its last axis.

    Examples
    --------
    >>> report_counts(np.array([[1.0, np.nan], [np.inf, 2.0]]))[:3].tolist()
    [[2, 2], [1, 2], [1, 0]]
    """
    a = np.asarray(a)
    cells = a.shape[:-1]
    out = np.zeros((len(KEYS),) + cells, np.int64)
    out[0] = a.shape[-1]
    kind = a.dtype.kind
    if kind == "f" and a.dtype.itemsize in (2, 4, 8):
        nan, sig, neg, payload = float_masks(a)
        nnan, nsig = nan.sum(-1), sig.sum(-1)
        p = np.sort(payload, axis=-1)  # -1 marks a number; payloads sort together
        new = np.ones(p.shape, bool)
        new[..., 1:] = p[..., 1:] != p[..., :-1]
        out[2], out[3], out[4], out[5] = nnan, nnan - nsig, nsig, neg.sum(-1)
        out[6] = ((p >= 0) & new).sum(-1)
        out[7], out[8] = (a == np.inf).sum(-1), (a == -np.inf).sum(-1)
    elif kind in "biumM":
        if kind in "mM":
            out[9] = np.isnat(a).sum(-1)
    else:  # objects, strings, complex: classified one by one, as the plain report
        flat = a.reshape(-1, a.shape[-1])
        rows = [plain_report(np.asarray(r, dtype=object)) for r in flat]
        for k, key in enumerate(KEYS):
            out[k] = np.array([r[key] for r in rows], np.int64).reshape(cells)
        return out
    out[1] = out[0] - out[2] - out[9]
    return out


def _block(x: np.ndarray, nred: int) -> np.ndarray:
    lead = x.shape[:x.ndim - nred]
    return report_counts(x.reshape(lead + (-1,)))


def _variable_report(var: xr.Variable, dims: set[Hashable]) -> xr.Variable:
    red = [d for d in var.dims if d in dims]
    keep = [d for d in var.dims if d not in dims]
    moved = var.transpose(*keep, *red)
    data = moved.data
    if is_dask(data):
        nk = len(keep)
        data = data.rechunk({i: -1 for i in range(nk, data.ndim)})
        counts = data.map_blocks(_block, len(red), dtype=np.int64, new_axis=0,
                                 drop_axis=list(range(nk, data.ndim)),
                                 chunks=((len(KEYS),), *data.chunks[:nk]),
                                 meta=np.empty((0,) * (nk + 1), np.int64))
    else:
        counts = _block(np.asarray(data), len(red))
    return xr.Variable(("kind", *keep), counts)


def report_over(obj: xr.DataArray | xr.Dataset, dim: Any) -> xr.DataArray | xr.Dataset:
    """The report over ``dim`` (a dim, a list of them or ``...``: every dim) of each
    data variable, with a leading ``kind`` dimension (see the module docstring)."""
    from .reduction import _parse_dims

    dims = _parse_dims(dim, obj.dims)

    def coords_of(o: Any) -> dict[Any, Any]:
        kept = {k: v.variable for k, v in o.coords.items() if not set(v.dims) & dims}
        return {"kind": list(KEYS), **kept}

    if isinstance(obj, xr.DataArray):
        return xr.DataArray(_variable_report(obj.variable, dims), coords=coords_of(obj),
                            name=obj.name)
    data = {k: _variable_report(v.variable, dims) for k, v in obj.data_vars.items()}
    return xr.Dataset(data, coords=coords_of(obj))
