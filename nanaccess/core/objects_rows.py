"""Object-dtype arrays along an axis: the exact object path, one call per output row.

Object data has no vectorised arithmetic (Decimal, Fraction, huge ints), so this is
the one place where a Python-level loop per row is the honest implementation.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import NaNError
from ..options import NanPolicy
from .axes import Reduction

__all__ = ["object_rows_order_stat", "object_rows_moment_stat"]


def _rows(x: np.ndarray, axis, missing):
    red = Reduction.of(x, axis)
    rows = red.as_rows(x)
    mrows = red.as_rows(np.asarray(missing, bool)) if missing is not None else None
    return red, rows, mrows


def _row_values(rows, mrows, r: int) -> list:
    vals = rows[r].tolist()
    if mrows is not None:
        vals = [None if m else v for v, m in zip(vals, mrows[r].tolist(), strict=True)]
    return vals


def _relocate(err: NaNError, red: Reduction, r: int) -> NaNError:
    """Map an error's row-local position back to an index tuple of the input."""
    if err.position is None or not red.shape:
        return err
    j = err.position[0] if isinstance(err.position, tuple) else err.position
    kept = np.unravel_index(r, red.out_shape) if red.out_shape else ()
    red_idx = np.unravel_index(j, tuple(red.shape[a] for a in red.axes))
    pos = [0] * len(red.shape)
    for a, i in zip(red.kept_axes, kept, strict=True):
        pos[a] = int(i)
    for a, i in zip(red.axes, red_idx, strict=True):
        pos[a] = int(i)
    return type(err)(count=err.count, kind=err.kind, position=tuple(pos))


def _run(x, axis, missing, keepdims, fn, lead_of):
    red, rows, mrows = _rows(x, axis, missing)
    out = []
    for r in range(red.rows):
        try:
            v = fn(_row_values(rows, mrows, r))
        except NaNError as err:
            raise _relocate(err, red, r) from None
        out.append(v)
    lead = lead_of(out)
    arr = np.empty((red.rows,) + lead, dtype=object)
    for r, v in enumerate(out):
        arr[r] = v
    isnone = np.vectorize(lambda v: v is None, otypes=[bool])(arr) if arr.size else None
    arr = np.moveaxis(arr, 0, -1) if lead else arr
    vals = red.finish(arr, keepdims, lead)
    if isnone is not None and isnone.any():
        isnone = np.moveaxis(isnone, 0, -1) if lead else isnone
        return vals, red.finish(isnone, keepdims, lead)
    return vals, None


def object_rows_order_stat(x, stat, *, q=None, method="linear", axis=None,
                           policy: NanPolicy, missing=None, keepdims=False):
    from .objects import object_order_stat

    qa = None if q is None else np.asarray(q, dtype=object)

    def fn(vals: list) -> Any:
        qq = None if qa is None else (qa.tolist() if qa.ndim else qa.item())
        return object_order_stat(vals, stat, q=qq, method=method, policy=policy)

    def lead_of(out: list) -> tuple[int, ...]:
        return () if qa is None or qa.ndim == 0 else qa.shape

    return _run(x, axis, missing, keepdims, fn, lead_of)


def object_rows_moment_stat(x, stat, *, ddof=0, axis=None, policy: NanPolicy, missing=None,
                            keepdims=False):
    from .objects import object_moment_stat

    def fn(vals: list) -> Any:
        if stat == "count":
            return _count_numbers(vals, policy)
        return object_moment_stat(vals, stat, ddof=ddof, policy=policy)

    return _run(x, axis, missing, keepdims, fn, lambda out: ())


def _count_numbers(vals: list, policy: NanPolicy) -> int:
    """How many values are numbers (neither NaN nor missing); raises as the stats do."""
    from .objects import classify_object, object_order_stat

    if policy is NanPolicy.RAISE and vals:
        object_order_stat(vals, "min", policy=policy)  # the policy's errors
    classes = [classify_object(v)[0] for v in vals]
    bad = [i for i, c in enumerate(classes) if c == "other"]
    if bad:
        raise TypeError(f"non-numeric value {vals[bad[0]]!r} at position {bad[0]}")
    return sum(c == "number" for c in classes)
