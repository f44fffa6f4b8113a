"""Axis handling: move the reduced axes last and view the data as ``(rows, n)``.

As in numbagg: one 1-D kernel over the last axis then serves every ``axis``/``dim``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["normalize_axis", "Reduction"]


def normalize_axis(axis: int | Sequence[int] | None, ndim: int) -> tuple[int, ...]:
    """Sorted, non-negative, unique axes; ``None`` means all of them."""
    if axis is None:
        return tuple(range(ndim))
    if type(axis) is int and -ndim <= axis < ndim:
        return (axis % ndim,)
    axes = (axis,) if np.ndim(axis) == 0 else tuple(axis)
    out = []
    for a in axes:
        if isinstance(a, bool) or not isinstance(a, int | np.integer):
            # as NumPy: 1.0 or "1" is not an axis (int() would accept them silently)
            raise TypeError(f"axis must be an integer or a tuple of integers, got {axis!r}")
        a = int(a)
        if not -ndim <= a < max(ndim, 1) or (ndim == 0 and a not in (0, -1)):
            raise np.exceptions.AxisError(a, ndim)
        out.append(a % ndim if ndim else 0)
    if len(set(out)) != len(out):
        raise ValueError(f"duplicate value in 'axis': {axis!r}")
    return tuple(sorted(set(out))) if ndim else ()


class Reduction:
    """How an array of ``shape`` is reduced over ``axes``.

    ``moved(x)`` views x with the reduced axes last; its C-order reshape to
    ``(rows, n)`` is what the kernels see. ``out_shape`` is the result shape
    (``keep_shape`` with keepdims). Everything is computed once, here: reductions
    run on small arrays too, where Python overhead is the cost.
    """

    __slots__ = ("shape", "axes", "kept_axes", "out_shape", "keep_shape", "n", "rows")

    def __init__(self, shape: tuple[int, ...], axes: tuple[int, ...]) -> None:
        self.shape = shape
        self.axes = axes
        self.kept_axes = tuple(a for a in range(len(shape)) if a not in axes)
        self.out_shape = tuple(shape[a] for a in self.kept_axes)
        self.keep_shape = tuple(1 if a in axes else s for a, s in enumerate(shape))
        n = 1
        for a in axes:
            n *= shape[a]
        rows = 1
        for s in self.out_shape:
            rows *= s
        self.n, self.rows = n, rows

    @classmethod
    def of(cls, x: np.ndarray, axis: Any) -> Reduction:
        return cls(tuple(x.shape), normalize_axis(axis, x.ndim))

    def moved(self, x: np.ndarray) -> np.ndarray:
        if x.ndim == 0:
            return x.reshape(1)
        if not self.kept_axes or not self.axes or self.axes[0] == len(self.kept_axes):
            return x  # reduced axes are already last
        return x.transpose(self.kept_axes + self.axes)

    def as_rows(self, x: np.ndarray) -> np.ndarray:
        """``(rows, n)`` copy-or-view of x, C-contiguous."""
        return np.ascontiguousarray(self.moved(x)).reshape(self.rows, self.n)

    def empty_rows(self, dtype: Any) -> tuple[np.ndarray, np.ndarray]:
        """A C-ordered buffer shaped like ``moved(x)`` and its ``(rows, n)`` view."""
        moved_shape = (1,) if not self.shape else self.out_shape + tuple(
            self.shape[a] for a in self.axes
        )
        buf = np.empty(moved_shape, dtype=dtype)
        return buf, buf.reshape(self.rows, self.n)

    def finish(self, values: np.ndarray, keepdims: bool, lead: tuple[int, ...] = ()) -> np.ndarray:
        """Shape per-row results ``(*lead, rows)`` as ``(*lead, *out_shape)``."""
        shape = self.keep_shape if keepdims else self.out_shape
        return values.reshape(lead + shape)

