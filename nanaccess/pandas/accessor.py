"""``Series.nanstats`` and ``DataFrame.nanstats``: thin accessors over the core.

The statistic methods (median, quantile, var, iqr, mad, ...) are generated from the
statistics table into :mod:`nanaccess.pandas._generated`; each calls the one hook
``_reduce`` of the accessor class (:mod:`.series`, :mod:`.frame`), which converts
the columns with :mod:`nanaccess.pandas.dtypes`, calls
:func:`nanaccess.core.reduce.reduce` through
:func:`~nanaccess.pandas.columns.column_reduce` and labels the result as pandas' own
method would. Errors from the core are restated with the column name and the index
label of the first offending value. What is not table-shaped (describe, nan_report,
sort_values, rank, groupby, plots) is written in those classes; ranks and sorts in
:mod:`.sorting`, weights in :mod:`.weighted`. This module names both classes (the
import path every caller uses) and keeps the decisions below.

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

from .frame import DataFrameNanStats
from .series import SeriesNanStats

__all__ = ["SeriesNanStats", "DataFrameNanStats"]
