"""Grouped kernels: every statistic of every group, with no loop per group.

Shared by the pandas and xarray adapters. The data ``x`` is 1-D ``(n,)`` or 2-D
``(n, ncols)`` (the columns share one grouping); ``codes`` gives each row's group
(``-1``: the row belongs to no group and is ignored entirely).

Modules (one job each):

* :mod:`.entry`: :func:`grouped_stat` (validation, the NaN scan, columns to engines);
* :mod:`.reduce`: :func:`grouped_reduce`, the grouped counterpart of
  :func:`nanaccess.core.reduce.reduce` (values, missing, count; iqr and mad; int
  picks exact in their dtype with the groups of no value marked as holes);
* :mod:`.order`: the sort engine for order statistics (NumPy; the numba engine's
  kernels are in :mod:`nanaccess.core._numba.grouped`);
* :mod:`.moments`: correctly rounded grouped moments;
* :mod:`.objects`: the exact Python-object path;
* :mod:`.common`: the NaN scan (raising through :func:`nanaccess.core.policy.raise_for`,
  errors carry ``.group``), keys, per-group counts, the propagated NaN.
"""

from __future__ import annotations

from .._numba import AVAILABLE as HAVE_NUMBA
from .entry import grouped_stat
from .reduce import GroupedReduced, count_in_groups, grouped_reduce

__all__ = [
    "grouped_stat",
    "grouped_reduce",
    "GroupedReduced",
    "count_in_groups",
    "HAVE_NUMBA",
]
