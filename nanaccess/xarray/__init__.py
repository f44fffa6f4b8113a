"""xarray adapter: registers ``DataArray.nanstats`` and ``Dataset.nanstats``.

Importing this module registers the accessors; ``import nanaccess`` imports it the
moment the user imports xarray (:mod:`nanaccess._register`), never earlier. The
same statistics are available as functions for users who prefer them
(:func:`reduce`, :func:`quantile`, :func:`arg_reduce`, :func:`nan_report`).

Modules: :mod:`.reduction` (dims to axes, the core's numbers, labels back),
:mod:`.groupby` (groupby / resample on the grouped core), :mod:`.accessor` (the
accessor classes: describe, sortby, plots), :mod:`._generated` (the statistic methods,
rendered by ``tools/generate_api.py``), :mod:`._common` (helpers both use) and
:mod:`._xr_internals` (the only module touching xarray internals).
"""

from __future__ import annotations

from .._posthook import register_post_import_hook
from .accessor import DataArrayNanStats, DatasetNanStats
from .groupby import NanGroupBy, grouped_dataarray
from .reduction import arg_reduce, nan_report, quantile, reduce
from .weighted_accessor import register_weighted_accessors
from .window import NanXrWindow, register_groupby_accessors, register_window_accessors

# xarray imports its rolling module (which imports numbagg, scipy and numba: 0.15 s+)
# on the first ``.rolling``/``.coarsen``, and its weighted module on the first
# ``.weighted``: register each then (at once if it is imported). Both moved from
# xarray.core to xarray.computation in 2025; a hook on a module that never comes is inert.
for _package in ("xarray.computation", "xarray.core"):
    register_post_import_hook(lambda module: register_window_accessors(),
                              f"{_package}.rolling")
    register_post_import_hook(lambda module: register_weighted_accessors(),
                              f"{_package}.weighted")
register_groupby_accessors()

__all__ = [
    "DataArrayNanStats",
    "DatasetNanStats",
    "NanGroupBy",
    "NanXrWindow",
    "arg_reduce",
    "grouped_dataarray",
    "nan_report",
    "quantile",
    "reduce",
]
