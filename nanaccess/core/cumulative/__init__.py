"""Cumulative statistics (issue 23): cumsum (each prefix correctly rounded), cumprod,
cummax, cummin, cumcount under every ``nan_policy``.

:mod:`.prefix` holds the exact prefix sums (NumPy reference and the compiled
certified kernel of :mod:`nanaccess.core._numba.cumulative`); :mod:`.scan` the
policies and the five statistics along an axis.
"""

from __future__ import annotations

from .grouped import grouped_cumulative
from .prefix import exact_prefix, prefix_sums
from .scan import CUMULATIVE, cumulative

__all__ = ["CUMULATIVE", "cumulative", "grouped_cumulative", "exact_prefix", "prefix_sums"]
