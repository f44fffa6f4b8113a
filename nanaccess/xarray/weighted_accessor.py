"""``obj.weighted(w).nanstats`` (issue 13): the reductions of the accessors with the
weighted object's weights, next to xarray's own weighted methods (xarray refuses NaN
weights when the object is made; dask-backed weights are checked by the policy).
The weights themselves are laid out by :mod:`nanaccess.xarray.weighted`."""

from __future__ import annotations

from typing import Any

from ._generated import WeightedStatsMixin
from ._xr_internals import weighted_classes, weighted_parts
from .reduction import reduce

__all__ = ["NanWeighted", "register_weighted_accessors"]


class NanWeighted(WeightedStatsMixin):
    """``obj.weighted(weights).nanstats``: frequency-weighted statistics over ``dim``.

    Examples
    --------
    >>> import numpy as np, xarray as xr, nanaccess.xarray
    >>> da = xr.DataArray([1.0, 2.0, 3.0], dims="t")
    >>> w = xr.DataArray([1, 1, 5], dims="t")
    >>> float(da.weighted(w).nanstats.median("t"))
    3.0
    """

    def __init__(self, wobj: Any) -> None:
        self._obj, self._weights = weighted_parts(wobj)

    def _reduce(self, stat: str, *, dim: Any = None, **kwargs: Any) -> Any:
        """The hook of every generated statistic: :func:`.reduction.reduce` with the
        weighted object's weights."""
        return reduce(self._obj, stat, dim, weights=self._weights, **kwargs)


class _WeightedAccessor:
    """``.nanstats`` on xarray's weighted objects (a descriptor: one per access)."""

    def __get__(self, wobj: Any, owner: type[Any] | None = None) -> Any:
        if wobj is None:
            return NanWeighted
        return NanWeighted(wobj)


def register_weighted_accessors() -> None:
    """Set ``.nanstats`` on ``DataArrayWeighted`` and ``DatasetWeighted``."""
    for cls in weighted_classes():
        cls.nanstats = _WeightedAccessor()
