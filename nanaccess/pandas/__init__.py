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

import importlib
import threading
from typing import Any

import pandas as pd

from ._groupby_registry import (
    GROUPBY_CLASSES,
    RESAMPLER_CLASSES,
    WINDOW_CLASSES,
    GroupByAccessor,
)

__all__ = ["SeriesNanStats", "DataFrameNanStats", "NanGroupBy", "NanWindow", "agg"]

#: the names this package exports from its modules, imported on first use (issue 26)
_LAZY = {"SeriesNanStats": "_accessors", "DataFrameNanStats": "_accessors",
         "NanGroupBy": "_accessors", "NanWindow": "_accessors", "agg": "agg"}
_LOCK = threading.RLock()
_STATE = {"loaded": False}
_REGISTERING = threading.local()  # this thread is replacing the stand-ins


class _StandIn(GroupByAccessor):
    """``.nanstats`` until first used: importing the statistics costs most of
    ``import nanaccess`` (issue 26), so each pandas class first gets this descriptor;
    its first use (``obj.nanstats``, or the class attribute itself) imports
    :mod:`._accessors`, which replaces every stand-in by the real accessor, and then
    answers as that accessor does. (A GroupBy accessor, so the registry replaces it
    without a warning; while it does, it is absent for pandas' own check.)"""

    def __init__(self) -> None:
        super().__init__("nanstats", type(None))

    def __get__(self, obj: Any, owner: Any = None) -> Any:
        if getattr(_REGISTERING, "active", False):
            raise AttributeError("nanstats")  # being replaced: pandas' hasattr check
        load()
        return owner.nanstats if obj is None else obj.nanstats


def _classes() -> tuple[type[Any], ...]:
    """Every pandas class that gets ``.nanstats`` (as :func:`._accessors.register`):
    the registry's own lists, and the ewm class."""
    from pandas.api.typing import ExponentialMovingWindow

    return ((pd.Series, pd.DataFrame) + GROUPBY_CLASSES + WINDOW_CLASSES + RESAMPLER_CLASSES
            + (ExponentialMovingWindow,))


def load() -> None:
    """Import the accessors and register them, replacing the stand-ins (once; another
    thread's first use waits for it)."""
    with _LOCK:
        if _STATE["loaded"]:
            return
        mod = importlib.import_module("nanaccess.pandas._accessors")
        _REGISTERING.active = True
        try:
            mod.register()
        finally:
            _REGISTERING.active = False
        _STATE["loaded"] = True


def _register() -> None:
    """Put a stand-in on every class that has no ``nanstats`` yet."""
    for cls in _classes():
        if cls.__dict__.get("nanstats") is None:
            if cls in (pd.Series, pd.DataFrame):
                cls._accessors.add("nanstats")  # (pandas' registry of accessor names)
            cls.nanstats = _StandIn()


def __getattr__(name: str) -> Any:
    mod = _LAZY.get(name)
    if mod is None:
        raise AttributeError(f"module 'nanaccess.pandas' has no attribute {name!r}")
    if mod == "_accessors":
        load()
    module = importlib.import_module(f"nanaccess.pandas.{mod}")
    return module if name == "agg" else getattr(module, name)


_register()
