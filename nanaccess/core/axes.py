"""Axis handling: move the reduced axes last and view the data as ``(rows, n)``.

As in numbagg: one 1-D kernel over the last axis then serves every ``axis``/``dim``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["normalize_axis", "Reduction"]


def normalize_axis(axis: int | Sequence[int] | None, ndim: int) -> tuple[int, ...]:
    """Sorted, non-negative, unique axes; ``None`` means all of them."""
    if axis is None:
        return tuple(range(ndim))
    axes = (axis,) if np.ndim(axis) == 0 else tuple(axis)
    out = []
    for a in axes:
        a = int(a)
        if not -ndim <= a < max(ndim, 1) or (ndim == 0 and a not in (0, -1)):
            raise np.exceptions.AxisError(a, ndim)
        out.append(a % ndim if ndim else 0)
    if len(set(out)) != len(out):
        raise ValueError(f"duplicate value in 'axis': {axis!r}")
    return tuple(sorted(set(out))) if ndim else ()


@dataclass(frozen=True)
class Reduction:
    """How an array of ``shape`` is reduced over ``axes``.

    ``moved(x)`` views x with the reduced axes last; its C-order reshape to
    ``(rows, n)`` is what the kernels see. ``out_shape`` is the result shape
    (``keep_shape`` with keepdims).
    """

    shape: tuple[int, ...]
    axes: tuple[int, ...]

    @classmethod
    def of(cls, x: np.ndarray, axis) -> Reduction:
        return cls(tuple(x.shape), normalize_axis(axis, x.ndim))

    @property
    def kept_axes(self) -> tuple[int, ...]:
        return tuple(a for a in range(len(self.shape)) if a not in self.axes)

    @property
    def out_shape(self) -> tuple[int, ...]:
        return tuple(self.shape[a] for a in self.kept_axes)

    @property
    def keep_shape(self) -> tuple[int, ...]:
        return tuple(1 if a in self.axes else s for a, s in enumerate(self.shape))

    @property
    def n(self) -> int:
        return int(np.prod([self.shape[a] for a in self.axes], dtype=np.int64))

    @property
    def rows(self) -> int:
        return int(np.prod(self.out_shape, dtype=np.int64))

    def moved(self, x: np.ndarray) -> np.ndarray:
        if x.ndim == 0:
            return x.reshape(1)
        return x.transpose(self.kept_axes + self.axes)

    def as_rows(self, x: np.ndarray) -> np.ndarray:
        """``(rows, n)`` copy-or-view of x, C-contiguous."""
        return np.ascontiguousarray(self.moved(x)).reshape(self.rows, self.n)

    def empty_rows(self, dtype) -> tuple[np.ndarray, np.ndarray]:
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


def first_position(mask: np.ndarray) -> tuple[int, ...] | None:
    """Index tuple (C order of ``mask``) of the first True, or None."""
    flat = np.flatnonzero(mask.ravel())
    if not flat.size:
        return None
    return tuple(int(i) for i in np.unravel_index(flat[0], mask.shape))
