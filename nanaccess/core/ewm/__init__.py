"""Exponentially weighted mean, variance and standard deviation (issue 23).

:func:`ewm_stat` applies the ``nan_policy`` and the smoothing parameters (pandas'
``com`` / ``span`` / ``halflife`` / ``alpha``, ``times``, ``adjust``, ``ignore_na``,
``min_periods``) along one axis; the recurrences run in double-double arithmetic in
:mod:`nanaccess.core._numba.ewm` (compiled with numba, plain Python otherwise).
"""

from __future__ import annotations

from .stat import EWM_STATS, ewm_alpha, ewm_stat

__all__ = ["EWM_STATS", "ewm_alpha", "ewm_stat"]
