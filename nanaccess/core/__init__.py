"""The NumPy-only core: classification, totalOrder keys, selection, moments.

Nothing in here knows about labels (pandas, xarray) or lazy arrays (dask); the
adapters translate those to plain arrays with an ``axis`` and back.

The names below are the core's face for host adapters: with the entry points
(:func:`nanaccess.core.reduce.reduce`, :mod:`.grouped`, :mod:`.window`,
:mod:`.cumulative`, :mod:`.ewm`, :mod:`.bivariate`), they are all a host imports from
the core (an import-linter contract of ``pyproject.toml`` holds pandas to it), so the
rule modules behind them can move without touching a host.
"""

from __future__ import annotations

from .axes import Reduction
from .classify import REPORT_KEYS, float_masks, isnan, issignaling, nan_report, report_array
from .exactsum.common import SumOverflowError
from .nanscan import scan_rows
from .objects import classify_object
from .policy import RULES, NanTally, raise_for
from .sorting import RANK_DEFAULT, SORT_DEFAULT, object_argsort, rank, sort_keys, sort_policy

__all__ = [
    "Reduction", "REPORT_KEYS", "float_masks", "isnan", "issignaling", "nan_report",
    "report_array", "NanTally", "raise_for",
    "SumOverflowError", "scan_rows", "classify_object", "RULES", "RANK_DEFAULT",
    "SORT_DEFAULT", "object_argsort", "rank", "sort_keys", "sort_policy",
]
