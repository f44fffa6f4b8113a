"""The numba kernels of :mod:`nanaccess.core.window`, one module per job:

* :mod:`.window_select`: the general sliding selection over one sorted buffer (any
  keys, any ranks);
* :mod:`.window_fused`: an order statistic of float windows in one pass (sorted
  buffer placed by counting);
* :mod:`.window_heap`: one quantile of float windows on two heaps (O(log w));
* :mod:`.window_segments`: disjoint windows (resample / coarsen blocks) by selection;
* :mod:`.window_sums`: exact moving sums and means (expansion, two fixed bins);
* :mod:`.window_var`: exact moving variances.

Each module registers its own kernel family; this module re-exports the entry points.
"""

from __future__ import annotations

from .window_fused import LINEAR_MAX, MODE_LERP, MODE_MID, MODE_PICK, fused_select
from .window_heap import heap_ok, heap_select
from .window_segments import segment_select
from .window_select import slide_select
from .window_sums import binned_sum, moving_sum

__all__ = ["slide_select", "moving_sum", "fused_select", "binned_sum", "heap_select",
           "heap_ok", "segment_select", "MODE_PICK", "MODE_MID", "MODE_LERP", "LINEAR_MAX"]
