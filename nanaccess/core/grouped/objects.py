"""Grouped statistics of Python-object data (Decimal, Fraction, big ints, mixed).

The slow exact path: one grouping sort, then the exact per-group routine of
:mod:`nanaccess.core.objects` on each group's slice (Python arithmetic per group by
nature). Errors are restated through :func:`nanaccess.core.policy.raise_for` with the
row (and column) in the whole input and the group code.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import _stats
from ...errors import NaNError, SignalingNaNError
from ...options import NanPolicy
from ..objects import classify_object, object_moment_stat, object_order_stat
from ..policy import NanTally, raise_for
from .common import radix_argsort_codes

__all__ = ["object_columns"]


def _tally(err: NaNError, flat: int) -> NanTally:
    """The tally of what the per-group routine raised, at ``flat`` in the whole input."""
    if isinstance(err, SignalingNaNError):
        return NanTally(signaling=err.count, first_signaling=flat)
    if err.kind == "missing":
        return NanTally(missing=err.count, first_missing=flat)
    return NanTally(nan=err.count, first_nan=flat)


def object_columns(x2: Any, codes: Any, ngroups: Any, stat: Any, q_arr: Any, method: Any, ddof: Any,
                   policy: NanPolicy, miss2: Any) -> Any:
    """``(values, missing)`` of every column: ``(lead, ngroups, ncols)`` object arrays
    (``lead``: the q axis of order statistics, none for moments)."""
    n, ncols = x2.shape
    rows = np.flatnonzero(codes >= 0)
    order = rows[radix_argsort_codes(codes[rows], ngroups)] if rows.size else rows
    counts = np.bincount(codes[rows], minlength=ngroups)
    starts = np.cumsum(counts) - counts
    is_order = stat in _stats.ORDER
    lead = (len(q_arr),) if q_arr is not None else ((1,) if is_order else ())
    values = np.empty(lead + (ngroups, ncols), dtype=object)
    qq = None if q_arr is None else [float(v) for v in q_arr]
    for c in range(ncols):
        colv = x2[:, c]
        if miss2 is not None:
            colv = np.where(miss2[:, c], None, colv)
        for g in range(ngroups):  # object data: exact Python arithmetic per group
            idx = order[starts[g] : starts[g] + counts[g]]
            seq = colv[idx].tolist()
            try:
                if stat in _stats.COUNTS:
                    r = sum(classify_object(v)[0] == "number" for v in seq)
                elif not is_order:
                    # ddof passes through as given: a fractional ddof is used exactly
                    r = object_moment_stat(seq, stat, ddof=ddof, policy=policy) if seq else (
                        0 if stat in _stats.SUMS else float("nan"))
                elif not seq:
                    r = [float("nan")] * len(q_arr) if q_arr is not None else float("nan")
                else:
                    r = object_order_stat(seq, stat, q=qq, method=method, policy=policy)
            except NaNError as err:
                pos = err.position
                p = int(pos[0] if isinstance(pos, tuple) else pos) if pos is not None else 0
                row = int(idx[min(p, idx.size - 1)])
                raise_for(_tally(err, row * ncols + c), policy,
                          shape=(n,) if ncols == 1 else (n, ncols), subject=f"group {g}",
                          group=g)
                raise  # (raise_for raises whatever the routine raised)
            if q_arr is not None:
                values[:, g, c] = r
            elif lead:
                values[0, g, c] = r
            else:
                values[g, c] = r
    return values, np.zeros(values.shape, bool)
