"""Object-dtype arrays along an axis: the exact object path, one call per output row.

Object data has no vectorised arithmetic (Decimal, Fraction, huge ints), so this is
the one place where a Python-level loop per row is the honest implementation. Errors
name the position in the whole input: each row's tally is moved into the input's
frame before :func:`nanaccess.core.policy.raise_for` raises.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import numpy as np

from ... import _stats
from ...options import NanPolicy
from ..axes import Reduction
from ..policy import RULES, NanTally, raise_for
from .classify import classify_object
from .moments import moment_of_values
from .order import order_of_values
from .scan import Check, scan_values

__all__ = ["object_rows_order_stat", "object_rows_moment_stat"]


def _rows(x: np.ndarray, axis: Any, missing: Any) -> Any:
    red = Reduction.of(x, axis)
    rows = red.as_rows(x)
    mrows = red.as_rows(np.asarray(missing, bool)) if missing is not None else None
    return red, rows, mrows


def _row_values(rows: Any, mrows: Any, r: int) -> list[Any]:
    vals = rows[r].tolist()
    if mrows is not None:
        vals = [None if m else v for v, m in zip(vals, mrows[r].tolist(), strict=True)]
    return cast("list[Any]", vals)


def _flat_in_input(red: Reduction, r: int, j: int) -> int:
    """The C-order flat index into the input of element ``j`` of row ``r``."""
    kept = np.unravel_index(r, red.out_shape) if red.out_shape else ()
    red_idx = np.unravel_index(j, tuple(red.shape[a] for a in red.axes))
    pos = [0] * len(red.shape)
    for a, i in zip(red.kept_axes, kept, strict=True):
        pos[a] = int(i)
    for a, i in zip(red.axes, red_idx, strict=True):
        pos[a] = int(i)
    return int(np.ravel_multi_index(pos, red.shape))


def _row_check(red: Reduction, r: int) -> Check:
    """:func:`raise_for` with row ``r``'s positions moved into the input's frame."""
    if not red.shape:  # a 0-d input is its one row
        return raise_for

    def check(tally: NanTally, policy: NanPolicy) -> None:
        def at(j: int | None) -> int | None:
            return None if j is None else _flat_in_input(red, r, j)

        moved = NanTally(tally.signaling, at(tally.first_signaling), tally.nan,
                         at(tally.first_nan), tally.missing, at(tally.first_missing))
        raise_for(moved, policy, shape=red.shape)

    return check


def _run(x: Any, axis: Any, missing: Any, keepdims: Any, fn: Callable[[list[Any], Check], Any],
         lead: tuple[int, ...] = ()) -> Any:
    red, rows, mrows = _rows(x, axis, missing)
    arr = np.empty((red.rows,) + lead, dtype=object)
    for r in range(red.rows):
        arr[r] = fn(_row_values(rows, mrows, r), _row_check(red, r))
    isnone = np.vectorize(lambda v: v is None, otypes=[bool])(arr) if arr.size else None
    arr = np.moveaxis(arr, 0, -1) if lead else arr
    vals = red.finish(arr, keepdims, lead)
    if isnone is not None and isnone.any():
        isnone = np.moveaxis(isnone, 0, -1) if lead else isnone
        return vals, red.finish(isnone, keepdims, lead)
    return vals, None


def object_rows_order_stat(x: Any, stat: Any, *, q: Any = None, method: Any = "linear",
                           axis: Any = None,
                           policy: NanPolicy, missing: Any = None, keepdims: Any = False) -> Any:
    """:func:`~.order.object_order_stat` of every row of an object array along
    ``axis``: ``(values, missing)`` as :func:`nanaccess.core.select.order_stat`."""
    qa = None if q is None else np.asarray(q, dtype=object)
    qq = None if qa is None else (qa.tolist() if qa.ndim else qa.item())

    def fn(vals: list[Any], check: Check) -> Any:
        return order_of_values(vals, stat, q=qq, method=method, policy=policy, check=check)

    return _run(x, axis, missing, keepdims, fn, () if qa is None else qa.shape)


def object_rows_moment_stat(x: Any, stat: Any, *, ddof: Any = 0, axis: Any = None,
                            policy: NanPolicy, missing: Any = None,
                            keepdims: Any = False) -> Any:
    """:func:`~.moments.object_moment_stat` (and ``count``) of every row of an object
    array along ``axis``: ``(values, missing)`` as
    :func:`nanaccess.core.moments.moment_stat`."""

    def fn(vals: list[Any], check: Check) -> Any:
        if stat in _stats.COUNTS:
            return _count_numbers(vals, policy, check)
        return moment_of_values(vals, stat, ddof=ddof, policy=policy, check=check)

    return _run(x, axis, missing, keepdims, fn)


def _count_numbers(vals: list[Any], policy: NanPolicy, check: Check) -> int:
    """How many values are numbers (neither NaN nor missing); raises as the stats do
    where the policy raises for NaN or missing values."""
    rules = RULES[policy]
    if rules.nan_raises or rules.missing_raises:
        return len(scan_values(vals, policy, "order statistics", check).nums)
    classes = [classify_object(v)[0] for v in vals]
    bad = [i for i, c in enumerate(classes) if c == "other"]
    if bad:
        raise TypeError(f"non-numeric value {vals[bad[0]]!r} at position {bad[0]}")
    return sum(c == "number" for c in classes)
