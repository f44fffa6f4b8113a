"""nanaccess: explicit, correct and fast NaN handling for statistics.

``import nanaccess`` registers the ``.nanstats`` accessors on pandas Series /
DataFrame (and their GroupBy, window and resample objects). xarray DataArray / Dataset
and dask DataFrames get theirs the moment ``xarray`` / ``dask.dataframe`` is imported,
before or after nanaccess (a post-import hook, see :mod:`nanaccess._register`):
nanaccess itself imports neither, nor numba until a compiled kernel first runs. Keep
the import even if a linter calls it unused::

    import nanaccess  # noqa: F401
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from . import pandas as _pandas_adapter  # noqa: F401  (registers the pandas accessors)
from ._register import register_accessors_on_import
from ._version import __version__
from .errors import NaNError, SignalingNaNError, TotalWeightError, WeightsValueError
from .options import NanPolicy, get_options, option_context, set_options

if TYPE_CHECKING:  # imported on first use (issue 26: the statistics cost most of the import)
    from ._accessor_of import nanstats
    from ._corr import corr, cov
    from .api import (
        argmax,
        argmin,
        argsort,
        iqr,
        isnan,
        issignaling,
        kurt,
        mad,
        max,
        mean,
        median,
        median_high,
        median_low,
        min,
        nan_payload,
        nan_report,
        prod,
        quantile,
        quantiles,
        rank,
        sem,
        skew,
        sort,
        std,
        sum,
        var,
    )
    from .core.classify import make_nan
    from .core.keys import totalorder_key

#: the public names imported on first use: name -> module
_LAZY = {
    **dict.fromkeys(("argmax", "argmin", "argsort", "iqr", "isnan", "issignaling", "kurt",
                     "mad", "max", "mean", "median", "median_high", "median_low", "min",
                     "nan_payload", "nan_report", "prod", "quantile", "quantiles", "rank",
                     "sem", "skew", "sort", "std", "sum", "var"), "nanaccess.api"),
    "nanstats": "nanaccess._accessor_of",
    "corr": "nanaccess._corr",
    "cov": "nanaccess._corr",
    "make_nan": "nanaccess.core.classify",
    "totalorder_key": "nanaccess.core.keys",
}

__all__ = [
    "__version__",
    "NanPolicy",
    "NaNError",
    "SignalingNaNError",
    "WeightsValueError",
    "TotalWeightError",
    "agg",
    "argmax",
    "argmin",
    "argsort",
    "corr",
    "cov",
    "get_options",
    "iqr",
    "isnan",
    "issignaling",
    "mad",
    "kurt",
    "prod",
    "sem",
    "skew",
    "make_nan",
    "max",
    "mean",
    "median",
    "nanstats",
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


register_accessors_on_import()


def __dir__() -> list[str]:
    # nanaccess.agg is imported lazily (__getattr__): list it for dir() and completion
    return sorted(set(globals()) | set(__all__))


def __getattr__(name: str) -> Any:
    # nanaccess.agg: named callables for pandas' GroupBy.agg
    if name == "agg":
        return importlib.import_module("nanaccess.pandas.agg")
    mod = _LAZY.get(name)
    if mod is not None:  # the statistics: imported now, then plain module attributes
        value = getattr(importlib.import_module(mod), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'nanaccess' has no attribute {name!r}")
