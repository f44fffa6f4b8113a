"""The pandas accessor classes, registered on pandas' classes (the real registration).

:mod:`nanaccess.pandas` puts a stand-in descriptor on each class at import (no
statistic code imported: issue 26); the first ``.nanstats`` of any of them imports
this module, whose :func:`register` replaces every stand-in with the accessor itself.
"""

from __future__ import annotations

import pandas as pd

from ._groupby_registry import (
    RESAMPLER_CLASSES,
    WINDOW_CLASSES,
    register_groupby_accessor,
    register_window_accessor,
)
from .ewm import register_ewm_accessor  # s.ewm(...).nanstats (issue 23)
from .frame import DataFrameNanStats
from .groupby import NanGroupBy
from .series import SeriesNanStats
from .window import NanWindow

__all__ = ["SeriesNanStats", "DataFrameNanStats", "NanGroupBy", "NanWindow", "register"]


def register() -> None:
    """Set ``.nanstats`` on Series, DataFrame, their GroupBy, window, resample and ewm
    objects (a stand-in or an earlier registration of these classes is replaced
    silently; anything else named ``nanstats`` warns, as pandas does)."""
    for cls, register_on in (
        (pd.Series, pd.api.extensions.register_series_accessor),
        (pd.DataFrame, pd.api.extensions.register_dataframe_accessor),
    ):
        acc = SeriesNanStats if cls is pd.Series else DataFrameNanStats
        current = cls.__dict__.get("nanstats")
        if current is not None and getattr(current, "_accessor", None) is acc:
            continue  # already registered (module re-import)
        register_on("nanstats")(acc)
    register_groupby_accessor("nanstats", NanGroupBy)
    register_window_accessor("nanstats", NanWindow, WINDOW_CLASSES)
    # a resample is a grouped reduction over contiguous groups: the GroupBy accessor
    register_window_accessor("nanstats", NanGroupBy, RESAMPLER_CLASSES)
    register_ewm_accessor()
