"""dask adapter: exact lazy statistics on dask arrays and the dask DataFrame accessor.

``import nanaccess`` imports this when dask is installed, which registers
``dask.dataframe`` ``.nanstats`` accessors.
"""

from .array import dask_moment_stat, dask_order_stat, is_dask_array

__all__ = ["dask_moment_stat", "dask_order_stat", "is_dask_array"]

try:  # the DataFrame accessor needs dask.dataframe (and pandas)
    from . import dataframe as dataframe  # noqa: F401
except ImportError:  # pragma: no cover - dask[dataframe] not installed
    pass
