"""The pandas adapter: ``.nanstats`` on Series, DataFrame and their GroupBy objects.

Importing this package (``import nanaccess`` does) registers the accessors.
``nanaccess.agg`` is :mod:`nanaccess.pandas.agg`.

The statistic methods (median, quantile, var, iqr, mad, ...) are generated from the
statistics table into :mod:`nanaccess.pandas._generated`; each calls the one hook
``_reduce`` of the accessor class (:mod:`.series`, :mod:`.frame`), which converts
the columns with :mod:`nanaccess.pandas.dtypes`, calls
:func:`nanaccess.core.reduce.reduce` through
:func:`~nanaccess.pandas.columns.column_reduce` and labels the result as pandas' own
method would. Errors from the core are restated with the column name and the index
label of the first offending value. What is not table-shaped (describe, nan_report,
sort_values, rank, groupby, plots) is written in those classes; ranks and sorts in
:mod:`.sorting`, weights in :mod:`.weighted`. This package names both classes and
keeps the decisions below.

Decisions where the spec is silent:

* Nullable (``Float64``, ``Int64``, ...) and Arrow columns give the host's missing
  value (``pd.NA``) for a statistic over no values, as pandas does; NumPy columns give
  the canonical NaN.
* ``describe`` adds the rows ``nan`` and ``missing`` after ``count``; ``count`` counts
  numbers (neither NaN nor missing), as pandas' count does for float data.
* ``argmin`` / ``argmax`` return positions (as pandas' ``Series.argmax``);
  ``idxmin`` / ``idxmax`` the index labels there (issue 25).
* ``rank`` gives missing values a NaN rank (pandas' ``na_option="keep"``), or places
  them as pandas' ``na_option`` says; ``sort_values`` puts missing values last under
  every policy but "omit", which drops them with the NaNs. ``sort_values`` defaults to
  "largest" and ``rank`` to "omit", not to ``set_options(nan_policy=...)``: a sort
  must place every value (spec section 5).
* ``describe`` (:mod:`.describe`) computes under "omit" unless a policy is passed.
* ``axis=1`` and ``axis=None`` reduce the columns as one block (:mod:`.frame_block`).
* ``weights=`` (issue 13) are one per row: an array, a Series aligned on the index or
  (DataFrame, GroupBy) a column label, whose column is left out of the result.
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
from .ewm import register_ewm_accessor  # s.ewm(...).nanstats (issue 23)
from .frame import DataFrameNanStats
from .groupby import NanGroupBy
from .series import SeriesNanStats
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
