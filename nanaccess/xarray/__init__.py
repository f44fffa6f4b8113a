"""xarray adapter: registers ``DataArray.nanstats`` and ``Dataset.nanstats``.

Importing this module (``import nanaccess`` does it) registers the accessors; the
same statistics are available as functions for users who prefer them
(:func:`reduce`, :func:`quantile`, :func:`arg_reduce`, :func:`nan_report`).

Modules: :mod:`.reduction` (dims to axes, the core's numbers, labels back),
:mod:`.groupby` (groupby / resample on the grouped core), :mod:`.accessor` (the
accessor classes: describe, sortby, plots), :mod:`._generated` (the statistic methods,
rendered by ``tools/generate_api.py``), :mod:`._common` (helpers both use) and
:mod:`._xr_internals` (the only module touching xarray internals).
"""

import sys

from .._hooks import when_imported
from .accessor import DataArrayNanStats, DatasetNanStats
from .groupby import NanGroupBy, grouped_dataarray
from .reduction import arg_reduce, nan_report, quantile, reduce
from .window import NanXrWindow, register_groupby_accessors, register_window_accessors

# xarray imports its rolling module (which imports numbagg, scipy and numba: 0.15 s+)
# on the first ``.rolling``/``.coarsen``; register then, so ``import nanaccess`` stays lean
_ROLLING = "xarray.computation.rolling"
if _ROLLING in sys.modules:
    register_window_accessors()
else:
    when_imported(_ROLLING, register_window_accessors)
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
