"""Moments of gridded dask data whose reduced axes lie whole in every chunk.

:func:`.moments.dask_moment_stat` hands such data to the per-block core path
(:func:`.final.per_block_core`: one task per chunk, the in-memory engine, the result
exact). For float32/float64 chunks under a policy that drops NaNs quietly,
:func:`grid_with_tally` runs the tiled axis engine
(:func:`nanaccess.core.exactsum.axis.axis_moments`) on the chunk once: that pass finds
the NaNs and signaling NaNs while it sums, so the chunk needs no separate NaN scan for
its error record. A chunk the pass does not serve (a signaling NaN, another layout)
goes the general way: its record, then the core.

When the reduced axes span chunks, ``moments._regrid`` rechunks float data so that
they lie whole in each chunk while no chunk grows beyond the largest input chunk (the
kept axes split instead), provided a chunk still holds a tile's worth of cells: a
rechunk moves the data once, where the exact mergeable partials hold a Python integer
per cell and chunk (about 20x slower on a 365 x 180 x 360 grid chunked along time).
Data whose kept cells are too few for that (a long series, a full reduction) keep the
partials.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..core.chunked import RULES, NanTally, Reduction, axis_moments
from ..options import NanPolicy

__all__ = ["grid_with_tally"]


def grid_with_tally(
    b: np.ndarray, axes: tuple[int, ...], *, stat: str, ddof: float, policy: NanPolicy
) -> tuple[NanTally, Callable[[], np.ndarray]] | None:
    """``(tally, values thunk)`` of one chunk as :func:`.final.core_moment` gives them
    (``keepdims``), from one tiled pass; None when the pass does not serve the chunk
    or the policy must see its NaNs (raise, propagate, a signaling NaN). The tally is
    empty: under the policies served, the NaNs the pass found raise nothing."""
    rule = RULES[policy]
    if not rule.removes or b.ndim == 0 or b.dtype not in (np.float32, np.float64) or not b.size:
        return None
    red = Reduction.of(b, axes)
    got = axis_moments(b, red.axes, red.out_shape, stat, ddof)
    if got is None:
        return None
    vals, nan, sig = got
    if not rule.drops_silently(nan, sig):
        return None
    shape = tuple(1 if a in red.axes else b.shape[a] for a in range(b.ndim))
    return NanTally(), lambda: vals.reshape(shape)
