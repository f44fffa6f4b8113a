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
  ``unique_coord``): the group codes of xarray's own groupby / resample machinery.

``tests/xarray/test_xr_private.py`` fails loudly if any of these move.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Any

import pandas as pd
import xarray as xr

__all__ = [
    "default_keep_attrs",
    "replace_with_new_dims",
    "to_temp_dataset",
    "from_temp_dataset",
    "encoded_groups",
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
    """xarray's ``keep_attrs`` option as its reductions read it (True by default)."""
    try:
        from xarray.core.options import _get_keep_attrs
    except ImportError as exc:
        raise _internals_error("xarray.core.options._get_keep_attrs") from exc
    return bool(_get_keep_attrs(default=True))


def replace_with_new_dims(ds: xr.Dataset, variables: dict[Hashable, xr.Variable], *,
                          coord_names: set[Hashable], attrs: Mapping | None,
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
