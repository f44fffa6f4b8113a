"""Everything nanaccess needs from xarray internals, in one small module.

xarray has no public API for these (as ``pandas/_groupby_registry.py`` is for
pandas); this module is the only place that touches them:

* :func:`default_keep_attrs` reads ``xarray.core.options._get_keep_attrs`` (the
  ``keep_attrs`` option as xarray's own reductions resolve it);
* :func:`replace_with_new_dims` calls ``Dataset._replace_with_new_dims`` (a Dataset
  built from reduced variables without re-validating indexes, as ``Dataset.reduce``);
* :func:`to_temp_dataset` / :func:`from_temp_dataset` call the DataArray methods of the
  same name (a DataArray reduced through the Dataset loop keeps its name and coords);
* :func:`encoded_groups` reads ``GroupBy.encoded`` (``codes``, ``full_index``,
  ``unique_coord``): the group codes of xarray's own groupby / resample machinery;
* :func:`window_classes`, :func:`groupby_classes`, :func:`resample_classes` read the
  classes xarray hands out for ``.rolling``/``.coarsen``/``.groupby``/``.resample``
  from ``xarray.computation.rolling``, ``xarray.core.groupby`` and
  ``xarray.core.resample`` (by name: an instance would import dask);
* :func:`grouped_object` reads ``GroupBy.groupers[0].obj`` and :func:`group_parts`
  each grouper's ``name``, ``full_index``, ``codes`` and ``group``;
* :func:`weighted_classes` reads ``DataArrayWeighted`` / ``DatasetWeighted`` of
  :data:`WEIGHTED_MODULE` (``.weighted`` imports it on first use) and
  :func:`weighted_parts` their ``obj`` and ``weights`` attributes.

``tests/xarray/test_xr_private.py`` fails loudly if any of these move.
"""

from __future__ import annotations

import importlib
from collections.abc import Hashable, Mapping
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr
from packaging.version import Version

__all__ = [
    "default_keep_attrs",
    "replace_with_new_dims",
    "to_temp_dataset",
    "from_temp_dataset",
    "encoded_groups",
    "window_classes",
    "groupby_classes",
    "resample_classes",
    "grouped_object",
    "group_parts",
    "weighted_classes",
    "weighted_parts",
    "WEIGHTED_MODULE",
    "InternalsError",
]


class InternalsError(RuntimeError):
    """xarray moved an internal nanaccess reads."""


def _internals_error(what: str) -> InternalsError:
    return InternalsError(
        f"nanaccess cannot read {what} from this xarray {xr.__version__}; xarray changed "
        "its internals (see nanaccess/xarray/_xr_internals.py)"
    )


def default_keep_attrs() -> bool:
    """xarray's ``keep_attrs`` option as its reductions read it (True by default since
    xarray 2025.11, False before)."""
    try:
        from xarray.core.options import _get_keep_attrs
    except ImportError as exc:
        raise _internals_error("xarray.core.options._get_keep_attrs") from exc
    return bool(_get_keep_attrs(default=_KEEP_ATTRS_DEFAULT))


#: xarray's reductions keep attributes by default from 2025.11 on
_KEEP_ATTRS_DEFAULT = Version(xr.__version__) >= Version("2025.11")


def replace_with_new_dims(ds: xr.Dataset, variables: dict[Hashable, xr.Variable], *,
                          coord_names: set[Hashable], attrs: Mapping[str, Any] | None,
                          indexes: Mapping[Hashable, Any]) -> xr.Dataset:
    """A Dataset of ``variables`` with ``ds``'s class (``Dataset._replace_with_new_dims``)."""
    try:
        method = ds._replace_with_new_dims
    except AttributeError as exc:
        raise _internals_error("Dataset._replace_with_new_dims") from exc
    return method(variables, coord_names=coord_names, attrs=attrs, indexes=indexes)


def to_temp_dataset(da: xr.DataArray) -> xr.Dataset:
    """The DataArray as a one-variable Dataset (``DataArray._to_temp_dataset``)."""
    try:
        method = da._to_temp_dataset
    except AttributeError as exc:
        raise _internals_error("DataArray._to_temp_dataset") from exc
    return method()


def from_temp_dataset(da: xr.DataArray, ds: xr.Dataset) -> xr.DataArray:
    """Inverse of :func:`to_temp_dataset` (name and coords of ``da``)."""
    try:
        method = da._from_temp_dataset
    except AttributeError as exc:
        raise _internals_error("DataArray._from_temp_dataset") from exc
    return method(ds)


def encoded_groups(gb: Any) -> tuple[xr.DataArray, pd.Index, xr.Variable]:
    """(codes DataArray (-1 = dropped), full group index, unique group coordinate)
    of an xarray ``GroupBy`` / ``Resample`` (``gb.encoded``).

    The codes index ``full_index``; ``unique_coord`` holds the groups the result of
    a groupby keeps, in its order (a resample keeps every bin of ``full_index``).
    """
    try:
        enc = gb.encoded
        codes, full_index, unique_coord = enc.codes, enc.full_index, enc.unique_coord
    except AttributeError as exc:
        raise _internals_error("the group codes (GroupBy.encoded)") from exc
    if not isinstance(codes, xr.DataArray):
        raise _internals_error("GroupBy.encoded.codes as a DataArray")
    return codes, full_index, unique_coord


# ------------------------------------------------- classes of rolling / groupby objects
# read by module and name: making an instance (the public way) imports dask


def _classes(module: str, names: tuple[str, ...], instances: Any) -> tuple[type[Any], ...]:
    """xarray's classes ``names`` of ``module``, read without making an instance (an
    instance of a rolling or groupby object imports dask, which ``import nanaccess``
    must not); from instances if xarray moved them."""
    try:
        mod = importlib.import_module(module)
        return tuple(getattr(mod, n) for n in names)
    except (ImportError, AttributeError):  # pragma: no cover - xarray moved them
        return tuple(type(o) for o in instances())


def window_classes() -> tuple[type[Any], ...]:
    """The classes xarray hands out for ``.rolling`` and ``.coarsen`` (DataArray, Dataset)."""

    def instances() -> tuple[Any, ...]:
        da = xr.DataArray([0.0, 1.0], dims="d")
        ds = da.to_dataset(name="v")
        return da.rolling(d=1), ds.rolling(d=1), da.coarsen(d=1), ds.coarsen(d=1)

    return _classes("xarray.computation.rolling", ("DataArrayRolling", "DatasetRolling",
                                                   "DataArrayCoarsen", "DatasetCoarsen"),
                    instances)


def resample_classes() -> tuple[type[Any], ...]:
    """The classes xarray hands out for ``.resample`` (DataArray, Dataset)."""

    def instances() -> tuple[Any, ...]:
        da = _probe()
        return da.resample(t="1D"), da.to_dataset(name="v").resample(t="1D")

    return _classes("xarray.core.resample", ("DataArrayResample", "DatasetResample"),
                    instances)


def _probe() -> xr.DataArray:
    return xr.DataArray([0.0, 1.0], dims="t",
                        coords={"t": np.array(["2024-01-01", "2024-01-02"], "M8[ns]")})


def groupby_classes() -> tuple[type[Any], ...]:
    """The classes xarray hands out for ``.groupby`` and ``.resample``."""

    def instances() -> tuple[Any, ...]:
        da = _probe()
        return da.groupby("t"), da.to_dataset(name="v").groupby("t")

    return (*_classes("xarray.core.groupby", ("DataArrayGroupBy", "DatasetGroupBy"),
                      instances), *resample_classes())


def grouped_object(gb: Any) -> Any:
    """The DataArray / Dataset a GroupBy or Resample object groups
    (``GroupBy.groupers[0].obj``)."""
    try:
        return gb.groupers[0].obj
    except (AttributeError, IndexError) as exc:  # pragma: no cover - xarray moved it
        raise _internals_error("the grouped object (GroupBy.groupers[0].obj)") from exc


#: where xarray defines its weighted objects (imported by the first ``.weighted``)
WEIGHTED_MODULE = "xarray.computation.weighted"


def weighted_classes() -> tuple[type[Any], ...]:
    """The classes xarray hands out for ``.weighted`` (DataArray, Dataset)."""

    def instances() -> tuple[Any, ...]:
        da = xr.DataArray([0.0, 1.0], dims="d")
        w = xr.DataArray([1.0, 1.0], dims="d")
        return da.weighted(w), da.to_dataset(name="v").weighted(w)

    return _classes(WEIGHTED_MODULE, ("DataArrayWeighted", "DatasetWeighted"), instances)


def weighted_parts(wobj: Any) -> tuple[Any, xr.DataArray]:
    """(data, weights) of a ``DataArrayWeighted`` / ``DatasetWeighted``."""
    try:
        return wobj.obj, wobj.weights
    except AttributeError as exc:  # pragma: no cover - xarray moved them
        raise _internals_error("the weighted object's data and weights (.obj, .weights)"
                               ) from exc


def group_parts(gb: Any) -> list[tuple[Hashable, pd.Index, xr.DataArray, tuple[Any, ...]]]:
    """(name, full index, codes, group dims) of each grouper of an xarray ``GroupBy`` /
    ``Resample`` (``gb.groupers``: one per key; several keys are composed by xarray
    into ``gb.encoded`` with codes raveled over the full indexes' sizes)."""
    try:
        return [(g.name, g.full_index, g.codes, tuple(g.group.dims)) for g in gb.groupers]
    except AttributeError as exc:
        raise _internals_error("the groupers (GroupBy.groupers: name, full_index, codes, "
                               "group)") from exc
