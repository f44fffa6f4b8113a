"""The reference engine of windows: the grouped engine over the expanded windows.

Every statistic, every dtype, every policy: the windows are expanded into (output,
element) pairs and reduced by :func:`nanaccess.core.grouped.grouped_reduce` with the
output as the group code, exact by construction, ``O(sum of window lengths)`` work
and memory, done in chunks of outputs (:data:`CHUNK` pairs at most). The other
engines (:mod:`.engines`) are tested against it and hand it the few outputs they do
not serve (:func:`patched`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import NaNError
from ..grouped import grouped_reduce
from ..grouped.common import widen

__all__ = ["window_reference", "patched", "CHUNK"]

#: (output, element) pairs the reference engine expands at most at once
CHUNK = 1 << 22


def window_reference(x2: Any, miss2: Any, start: Any, end: Any, stat: Any, policy: Any, engine: Any,
                     params: Any) -> Any:
    """``(values, missing, holes)``: the grouped engine over the expanded windows, in
    chunks of outputs (integer picks and sums kept as the grouped engine keeps them)."""
    lengths = end - start
    nout = start.size
    bounds = [0]
    if nout:
        csum = np.cumsum(lengths)
        b = 0
        while b < nout:  # outputs [b, nb) hold at most CHUNK pairs (at least one output)
            base = csum[b - 1] if b else 0
            nb = int(np.searchsorted(csum, base + CHUNK, side="right"))
            nb = max(nb, b + 1)
            bounds.append(nb)
            b = nb
    vals, miss, holes = [], [], []
    for b0, b1 in zip(bounds[:-1], bounds[1:], strict=True):
        ln = lengths[b0:b1]
        codes = np.repeat(np.arange(b1 - b0, dtype=np.intp), ln)
        offs = np.cumsum(ln) - ln
        idx = np.arange(codes.size, dtype=np.int64) - np.repeat(offs, ln) + np.repeat(
            start[b0:b1], ln)
        sub_miss = None if miss2 is None else miss2[idx]
        try:
            red = grouped_reduce(x2[idx], codes, b1 - b0, stat, policy=policy,
                                 missing=sub_miss, engine=engine, **params)
        except NaNError as err:  # object data: restate in x's frame
            raise _in_frame(err, idx, b0) from None
        vals.append(red.exact)
        miss.append(red.missing)
        holes.append(red.holes)
    if not vals:  # no window: the dtype the grouped engine gives (int picks kept)
        try:
            red = grouped_reduce(x2[:0], np.zeros(0, np.intp), 0, stat, policy=policy,
                                 missing=None if miss2 is None else miss2[:0],
                                 engine=engine, **params)
            return red.exact, None, None
        except (TypeError, ValueError):
            return (*_no_outputs(x2, stat, params), None)
    lead = vals[0].ndim - 2
    if len({v.dtype for v in vals}) > 1:  # chunks of several dtypes: as NumPy hosts
        vals = [widen(v, h).astype(np.float64) for v, h in zip(vals, holes, strict=True)]
        holes = [None]
    out = np.concatenate(vals, axis=lead)
    return out, _joined(miss, vals, lead), _joined(holes, vals, lead)


def patched(values: Any, vmiss: Any, redo: Any, x2: Any, miss2: Any, start: Any, end: Any,
            stat: Any, policy: Any, engine: Any, params: Any) -> Any:
    """``(values, missing, None)`` with the windows ``redo`` marks from the reference
    engine."""
    rows = np.flatnonzero(redo.any(axis=1))
    if rows.size:
        ref, rmiss, _ = window_reference(x2, miss2, start[rows], end[rows], stat, policy,
                                         engine, params)
        values[rows] = ref
        if rmiss is not None or vmiss is not None:
            vmiss = np.zeros(values.shape, bool) if vmiss is None else vmiss.copy()
            vmiss[rows] = False if rmiss is None else rmiss
    if vmiss is not None and not vmiss.any():
        vmiss = None
    return values, vmiss, None


def _joined(masks: list[Any], vals: list[Any], lead: int) -> np.ndarray | None:
    """Per-chunk bool masks (None: all False) as one array along the outputs."""
    if all(m is None for m in masks):
        return None
    return np.concatenate([np.zeros(v.shape, bool) if m is None else m
                           for v, m in zip(vals, masks, strict=True)], axis=lead)


def _no_outputs(x2: Any, stat: Any, params: Any) -> Any:
    lead = (len(np.atleast_1d(params["q"])),) if (np.ndim(params.get("q")) > 0) else ()
    dt = x2.dtype if x2.dtype.kind in "fmM" else np.dtype(np.float64)
    return np.empty(lead + (0, x2.shape[1]), dtype=dt), None


def _in_frame(err: NaNError, idx: np.ndarray, b0: int) -> NaNError:
    """A grouped error on the expanded rows restated with ``x``'s row and the output."""
    pos = err.position
    position = pos
    if pos:
        row = int(idx[int(pos[0])])
        position = (row,) + tuple(pos[1:])
    group = None if err.group is None else int(err.group) + b0
    return type(err)(count=err.count, kind=err.kind, position=position,
                     subject=f"window {group}", group=group)
