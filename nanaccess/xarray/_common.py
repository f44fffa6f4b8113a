"""Helpers shared by the xarray accessors and the grouped statistics.

Both :mod:`.reduction` and :mod:`.groupby` import this module (and neither imports
the other), so the package has no import cycle.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import numpy as np
import xarray as xr

from .._labels import CoordLocation, Relabeller, restate, subject
from ..errors import NaNError
from ._xr_internals import default_keep_attrs

__all__ = ["is_dask", "keep_attrs", "numeric", "holds_numbers",
           "variable_subject", "variable_relabel", "labelled_errors"]


def is_dask(data: Any) -> bool:
    """``data`` is a dask array (False when dask is not installed)."""
    try:
        import dask.array as da
    except ImportError:  # pragma: no cover - dask is optional
        return False
    return isinstance(data, da.Array)


def keep_attrs(value: bool | None) -> bool:
    """``keep_attrs`` as xarray resolves it (``None``: its option, True by default)."""
    return bool(value) if value is not None else default_keep_attrs()


def numeric(var: xr.Variable) -> bool:
    """Numbers, bools, datetimes and timedeltas."""
    return np.issubdtype(var.dtype, np.number) or var.dtype == np.bool_ or \
        var.dtype.kind in "mM"


def holds_numbers(var: xr.Variable) -> bool:
    """An object variable whose elements are all numbers, NaNs or missing values.

    Such a variable (Decimal, Fraction, huge ints, None) is data to nanaccess (spec
    section 1), so the numeric-only reductions keep it where xarray would drop it;
    strings and other objects are still left out, as xarray does.
    """
    if numeric(var):
        return True
    if var.dtype.kind != "O" or is_dask(var.data):
        return False
    from ..core import classify_object

    return all(classify_object(v)[0] != "other" for v in np.asarray(var.values).ravel())


def variable_subject(name: Hashable | None) -> str:
    """"variable 'temp'" (or "data" for an unnamed DataArray)."""
    return subject("variable", name, unnamed="data")


def variable_relabel(name: Hashable | None, var: xr.Variable,
                     indexes: Mapping[Hashable, Any]) -> Relabeller:
    """Restates core errors on ``var``: variable name and ``dim=label`` coordinates."""
    labels = [indexes[d] if d in indexes else None for d in var.dims]
    return Relabeller(variable_subject(name), CoordLocation(var.dims, labels))


@contextmanager
def labelled_errors(relabel: Callable[[NaNError], NaNError] | None) -> Iterator[None]:
    """Restate the core's errors for the user: a NaNError through ``relabel``; a
    TypeError / OverflowError prefixed by its ``subject`` (unless the data is unnamed)."""
    try:
        yield
    except NaNError as err:
        if relabel is None:
            raise
        raise relabel(err) from None
    except (TypeError, OverflowError) as err:
        name = getattr(relabel, "subject", None)
        if name is None or name == variable_subject(None):
            raise
        raise restate(err, name) from None
