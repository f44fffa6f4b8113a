"""nanaccess: explicit, correct and fast NaN handling for statistics.

``import nanaccess`` registers the ``.nanstats`` accessors on pandas Series /
DataFrame (and their GroupBy objects), xarray DataArray / Dataset and dask DataFrames
(those once ``dask.dataframe`` is imported, before or after nanaccess: dask itself is
never imported by nanaccess). Keep the import even if a linter calls it unused::

    import nanaccess  # noqa: F401
"""

from __future__ import annotations

import importlib
import importlib.util

from ._hooks import when_imported
from ._version import __version__
from .api import (
    argmax,
    argmin,
    argsort,
    iqr,
    mad,
    max,
    mean,
    median,
    median_high,
    median_low,
    min,
    quantile,
    quantiles,
    rank,
    sort,
    std,
    sum,
    var,
)
from .core.classify import isnan, issignaling, make_nan, nan_payload, nan_report
from .core.keys import totalorder_key
from .errors import NaNError, SignalingNaNError, WeightsValueError
from .options import NanPolicy, get_options, option_context, set_options

__all__ = [
    "__version__",
    "NanPolicy",
    "NaNError",
    "SignalingNaNError",
    "WeightsValueError",
    "agg",
    "argmax",
    "argmin",
    "argsort",
    "get_options",
    "iqr",
    "isnan",
    "issignaling",
    "mad",
    "make_nan",
    "max",
    "mean",
    "median",
    "median_high",
    "median_low",
    "min",
    "nan_payload",
    "nan_report",
    "option_context",
    "quantile",
    "quantiles",
    "rank",
    "set_options",
    "sort",
    "std",
    "sum",
    "totalorder_key",
    "var",
]


def _register_adapters() -> None:
    """Import the adapters; each registers its accessors on import."""
    for name in ("pandas", "xarray"):
        if importlib.util.find_spec(f"nanaccess.{name}") is not None:
            importlib.import_module(f"nanaccess.{name}")
    if importlib.util.find_spec("dask") is not None:
        # dask takes about a second to import: register its accessors when the user
        # imports dask.dataframe (dask arrays are dispatched lazily by the api)
        when_imported("dask.dataframe", lambda: importlib.import_module("nanaccess.dask"))
    if importlib.util.find_spec("polars") is not None:
        # polars' namespaces, registered once polars is imported (before or after us)
        when_imported("polars", lambda: importlib.import_module("nanaccess.polars").register())


_register_adapters()


def __dir__() -> list[str]:
    # nanaccess.agg is imported lazily (__getattr__): list it for dir() and completion
    return sorted(set(globals()) | set(__all__))


def __getattr__(name: str):
    # nanaccess.agg: named callables for pandas' GroupBy.agg
    if name == "agg":
        return importlib.import_module("nanaccess.pandas.agg")
    raise AttributeError(f"module 'nanaccess' has no attribute {name!r}")
