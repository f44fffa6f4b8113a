"""The pandas adapter: ``.nanstats`` on Series, DataFrame and their GroupBy objects.

Importing this package (``import nanaccess`` does) registers the accessors.
``nanaccess.agg`` is :mod:`nanaccess.pandas.agg`.
"""

from __future__ import annotations

import pandas as pd

from . import agg
from ._groupby_registry import (
    RESAMPLER_CLASSES,
    WINDOW_CLASSES,
    register_groupby_accessor,
    register_window_accessor,
)
from .accessor import DataFrameNanStats, SeriesNanStats
from .ewm import register_ewm_accessor  # s.ewm(...).nanstats (issue 23)
from .groupby import NanGroupBy
from .window import NanWindow

__all__ = ["SeriesNanStats", "DataFrameNanStats", "NanGroupBy", "NanWindow", "agg"]


def _register() -> None:
    for cls, register in (
        (pd.Series, pd.api.extensions.register_series_accessor),
        (pd.DataFrame, pd.api.extensions.register_dataframe_accessor),
    ):
        acc = SeriesNanStats if cls is pd.Series else DataFrameNanStats
        current = cls.__dict__.get("nanstats")
        if current is not None and getattr(current, "_accessor", None) is acc:
            continue  # already registered (module re-import)
        register("nanstats")(acc)
    register_groupby_accessor("nanstats", NanGroupBy)
    register_window_accessor("nanstats", NanWindow, WINDOW_CLASSES)
    # a resample is a grouped reduction over contiguous groups: the GroupBy accessor
    register_window_accessor("nanstats", NanGroupBy, RESAMPLER_CLASSES)
    register_ewm_accessor()


_register()
