"""Former home of the per-row selection accelerator; kept so the old names import.

The kernels and the hook live in :mod:`nanaccess.core._numba.rows` (compiled through
the one compiled-engine module :mod:`nanaccess.core._numba`). New code imports from
there.
"""

from __future__ import annotations

from ._numba import AVAILABLE as HAVE_NUMBA
from ._numba.rows import (
    ENABLED,
    PARALLEL_MIN_SIZE,
    WINDOW_MAX_FRACTION,
    _select_rows_numba,
    _select_rows_numpy,
    select_rows,
    select_windows,
    warm_up,
)

__all__ = ["select_rows", "select_windows", "warm_up", "HAVE_NUMBA", "ENABLED",
           "PARALLEL_MIN_SIZE", "WINDOW_MAX_FRACTION", "_select_rows_numba",
           "_select_rows_numpy"]
