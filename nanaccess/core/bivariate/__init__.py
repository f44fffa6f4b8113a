"""Two-variable statistics: covariance and correlation, exact, under every policy.

Modules
-------
:mod:`.pairwise`
    the entry point (:func:`pairwise`): pairs of columns, row segments (groups), the
    policy's errors, pairwise-complete rows, propagated NaNs, ``min_periods``.
:mod:`.sums`
    exact sums ``Sx, Sy, Sxx, Syy, Sxy`` per (segment, pair) as Python ints (compiled
    kernel in :mod:`nanaccess.core._numba.bivariate`, NumPy reference).
:mod:`.rounding`
    the one rounding: covariance and Pearson's r (correctly rounded square root of an
    exact rational), Kendall's tau-b.
:mod:`.ranks`
    subset average ranks (Spearman) and Kendall's exact pair counts in O(n log n).
:mod:`.matrix`
    the front ends: :func:`corr_matrix`, :func:`corr_pair`, :func:`corr_with`.
:mod:`.weighted`
    weighted covariance and Pearson's r (:func:`weighted_pairs`; frequency or
    reliability weights), from exact weighted sums.
"""

from __future__ import annotations

from .matrix import all_pairs, corr_matrix, corr_pair
from .pairwise import METHODS, Paired, pairwise, segments_of
from .sums import Segments
from .weighted import weighted_pairs

__all__ = ["METHODS", "Paired", "Segments", "all_pairs", "corr_matrix", "corr_pair",
           "pairwise", "segments_of", "weighted_pairs"]
