"""``weights=`` on the xarray accessors and ``obj.weighted(w).nanstats`` (issue 13).

Weights are a DataArray broadcast against each variable by dimension names (as
xarray's ``weighted``; its coordinates must equal the data's, and every dimension of
the weights must be one of the variable's), or, for a DataArray, an array of the
data's shape (or 1-D along a single reduced dimension, as :func:`numpy.quantile`).
The numbers come from the weighted core (:func:`nanaccess.core.reduce.reduce` with
``weights=``), or, where the data or the weights are dask-backed, from its lazy form
(:func:`nanaccess.dask.weighted.dask_weighted`: equal bit for bit, errors raised when
the result is computed, naming positions rather than coordinates); the policy covers
the weights there. Errors on the weights name
"weights" and the coordinates of the first offending weight.

``da.weighted(w).nanstats`` sits next to xarray's own weighted methods: the same
reductions with the weights of the weighted object (xarray refuses NaN weights when
the object is made; dask-backed weights are checked by the policy here).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from functools import partial
from typing import Any

import numpy as np
import xarray as xr

from .. import _stats
from .._labels import CoordLocation, relabel_weights
from ._common import is_dask, variable_subject

__all__ = ["VariableWeights", "variable_weights", "aligned_weights", "check_weighted"]


def check_weighted(stat: str) -> None:
    """A statistic without weights: TypeError saying which have them."""
    if not _stats.get(stat).weighted:
        raise TypeError(f"{stat}() takes no weights; weighted statistics are "
                        f"{', '.join(_stats.WEIGHTED)}")


def aligned_weights(obj: Any, weights: Any) -> Any:
    """``weights`` checked against ``obj``: a DataArray's coordinates must equal the
    data's along shared dimensions (ValueError otherwise); arrays pass unchanged."""
    if isinstance(weights, xr.Dataset):
        raise TypeError("weights must be a DataArray or an array, got a Dataset")
    if not isinstance(weights, xr.DataArray):
        if isinstance(obj, xr.Dataset):
            raise TypeError("weights of a Dataset must be a DataArray (broadcast by "
                            "dimension names)")
        return np.asarray(weights)
    try:
        xr.align(obj, weights, join="exact", copy=False)
    except ValueError as err:
        raise ValueError(f"weights' coordinates do not match the data's: {err}") from None
    return weights


class VariableWeights:
    """The weights of one variable as the core takes them, and their error labels."""

    def __init__(self, values: np.ndarray, missing: np.ndarray | None,
                 locate: Any) -> None:
        self.values, self.missing, self.locate = values, missing, locate

    def relabel(self, err: Exception) -> Exception:
        """A core error on the weights with their coordinates; others unchanged."""
        return relabel_weights(err, "weights", self.locate)

    def labeller(self) -> Any:
        """:meth:`relabel` without the weights' values (shipped in a dask graph)."""
        return partial(relabel_weights, subject="weights", location_of_position=self.locate)


def variable_weights(weights: Any, var: xr.Variable, name: Hashable | None,
                     indexes: Mapping[Hashable, Any]) -> VariableWeights:
    """``weights`` laid out against ``var``: a DataArray's dimensions in the variable's
    order, size one where the weights lack one (the core broadcasts, so counts and
    positions are the weights' own)."""
    if not isinstance(weights, xr.DataArray):
        labels = [indexes[d] if d in indexes else None for d in var.dims]
        return VariableWeights(np.asarray(weights), None, CoordLocation(var.dims, labels))
    extra = [d for d in weights.dims if d not in var.dims]
    if extra:
        raise ValueError(f"weights have dimension(s) {tuple(extra)} that "
                         f"{variable_subject(name)} lacks {tuple(var.dims)}")
    dims = tuple(d for d in var.dims if d in weights.dims)
    w = weights.transpose(*dims).data  # dask weights stay lazy
    if not is_dask(w):
        w = np.asarray(w)
    shape = tuple(weights.sizes[d] if d in weights.dims else 1 for d in var.dims)
    missing = None
    if w.dtype.kind in "mMO":
        raise TypeError(f"weights must be real numbers, got dtype {w.dtype}")
    labels = [indexes[d] if d in indexes else None for d in dims]
    kept = [i for i, d in enumerate(var.dims) if d in weights.dims]
    return VariableWeights(w.reshape(shape), missing,
                           _Padded(CoordLocation(dims, labels), kept, var.ndim))


class _Padded:
    """A position in the size-one-padded layout -> the weights' own coordinates."""

    def __init__(self, inner: CoordLocation, kept: list[int], ndim: int) -> None:
        self.inner, self.kept, self.ndim = inner, kept, ndim

    def __call__(self, position: Any) -> str | None:
        pos = tuple(int(p) for p in np.atleast_1d(position))
        if len(pos) != self.ndim:
            return None
        return self.inner(tuple(pos[i] for i in self.kept))
