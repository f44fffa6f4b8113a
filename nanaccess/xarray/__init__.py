"""xarray adapter: registers ``DataArray.nanstats`` and ``Dataset.nanstats``.

Importing this module (``import nanaccess`` does it) registers the accessors; the
same statistics are available as functions for users who prefer them.
"""

from .accessor import DataArrayNanStats, DatasetNanStats, nan_report, quantile, reduce
from .groupby import NanGroupBy, grouped_dataarray

__all__ = [
    "DataArrayNanStats",
    "DatasetNanStats",
    "NanGroupBy",
    "grouped_dataarray",
    "nan_report",
    "quantile",
    "reduce",
]
