"""dask adapter: exact lazy statistics on dask arrays and the dask DataFrame accessor.

``import nanaccess`` imports this as soon as ``dask.dataframe`` is imported (before or
after nanaccess), which registers the ``dask.dataframe`` ``.nanstats`` accessors;
dask arrays passed to the public functions import it on first use.
"""

from __future__ import annotations

from .array import dask_moment_stat, dask_order_stat, is_dask_array

__all__ = ["dask_moment_stat", "dask_order_stat", "is_dask_array"]

try:  # the DataFrame accessor needs dask.dataframe (and pandas)
    from . import dataframe as dataframe  # noqa: F401
    from .resample import register_resample_accessor
    from .window import register_window_accessor

    register_window_accessor()  # ddf.rolling(...).nanstats
    register_resample_accessor()  # ddf.resample(...).nanstats
except ImportError:  # pragma: no cover - dask[dataframe] not installed
    pass
