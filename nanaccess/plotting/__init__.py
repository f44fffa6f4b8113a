"""Plots: where NaNs sit (:func:`plot_nan_map`) and how the policies differ
(:func:`plot_policy_comparison`).

matplotlib is an optional dependency (``pip install "nanaccess[plot]"``); it is
imported only when a plot is drawn. The pandas and xarray accessors expose these as
``obj.nanstats.plot_nan_map()``. The kinds of elements are read by
:mod:`.kinds`, the map is drawn by :mod:`.nan_map`, the policy comparison by
:mod:`.policies`.
"""

from __future__ import annotations

from .kinds import KIND_NAMES, MISSING, NEGATIVE, NUMBER, QUIET, SIGNALING, classify_kinds
from .nan_map import KIND_COLORS, MAX_CELLS, plot_nan_map
from .policies import POLICIES, plot_policy_comparison, policy_results

__all__ = ["plot_nan_map", "plot_policy_comparison", "policy_results", "classify_kinds",
           "KIND_NAMES", "KIND_COLORS", "MAX_CELLS", "POLICIES", "NUMBER", "QUIET", "NEGATIVE",
           "SIGNALING", "MISSING"]
