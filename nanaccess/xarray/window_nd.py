"""Windows over several dimensions at once: ``rolling(lat=3, lon=3)``, ``coarsen(lat=4,
lon=4)``.

A window over several dims is a box: the product of each dim's window (a coarsen
block is the product of each dim's blocks). The box's values are gathered, each box's
values contiguous, into one buffer of rows (the variable's other dims are the
columns), and the buffer is reduced as disjoint windows by the core window engine
(:func:`nanaccess.core.window.window_reduce`: every statistic and policy, the same
``min_periods`` rule as one dim). So each box's value is exactly the plain statistic
of the box's values. A rolling box at the array's edge holds only the values inside
the array (xarray pads with NaN and skips them), so ``min_periods`` (default: the box's
full size, as xarray) decides whether it is NaN.

The buffer holds every value once per box that contains it (``prod(window)`` times
for rolling, once for coarsen): the one-dimensional paths of :mod:`.window` slide
instead and hold no copy. On dask, rolling blocks get the overlap their boxes need
(``map_overlap``, no padding at the array's ends) and coarsened dims are rechunked to
whole blocks (:func:`coarsen_chunks`), then each block runs the in-memory path.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import _stats
from ..core.window import segment_bounds, window_reduce
from ..errors import NaNError
from ..options import NanPolicy

__all__ = ["rolling_boxes", "coarsen_boxes", "box_reduce", "before_after", "coarsen_codes",
           "coarsen_chunks", "dask_rolling_nd", "dask_coarsen_nd"]


def before_after(size: int, center: bool) -> tuple[int, int]:
    """How many rows before and after its own row a rolling window of ``size`` holds
    (pandas' and xarray's centering: the extra row of an even window is before)."""
    after = (size - 1) // 2 if center else 0
    return size - 1 - after, after


def rolling_boxes(shape: Sequence[int], sizes: Sequence[int], centers: Sequence[bool]
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(gather, start, end): the flat grid positions of every box's values inside the
    array, each box's contiguous, and each box's bounds in that list (one box per grid
    point, C order). A loop over the box's offsets, vectorised over the points."""
    shape = tuple(int(s) for s in shape)
    npoints = int(np.prod(shape, dtype=np.int64))
    grid = np.indices(shape, dtype=np.intp).reshape(len(shape), -1)
    offsets = list(itertools.product(*(range(int(s)) for s in sizes)))
    befores = [before_after(int(s), bool(c))[0] for s, c in zip(sizes, centers, strict=True)]
    flat = np.zeros((npoints, len(offsets)), np.intp)
    inside = np.ones((npoints, len(offsets)), bool)
    for j, off in enumerate(offsets):
        pos_flat = np.zeros(npoints, np.intp)
        for d, n in enumerate(shape):
            pos = grid[d] - befores[d] + off[d]
            inside[:, j] &= (pos >= 0) & (pos < n)
            pos_flat = pos_flat * n + pos
        flat[:, j] = pos_flat
    counts = inside.sum(axis=1)
    end = np.cumsum(counts)
    return flat[inside], end - counts, end


def coarsen_codes(n: int, size: int, boundary: str, side: str, dim: Any
                  ) -> tuple[np.ndarray, int]:
    """Block of each row of one dim (-1: trimmed) and the number of blocks, as xarray's
    coarsen (``boundary`` exact / trim / pad, ``side`` left / right)."""
    rem = n % size
    if boundary == "exact" and rem:
        raise ValueError(f"Could not coarsen a dimension of size {n} with window {size} "
                         "and boundary='exact'. Try a different 'boundary' option.")
    pos = np.arange(n)
    if side == "right" and rem:
        pos = pos - rem + size  # blocks aligned at the end: the first block is short
    codes = pos // size
    nblocks = n // size
    if boundary == "trim" and rem:
        codes = codes - 1 if side == "right" else codes
        codes[(codes < 0) | (codes >= nblocks)] = -1
    else:
        nblocks = int(codes.max(initial=-1)) + 1
    return codes.astype(np.intp), nblocks


def coarsen_boxes(per_dim: Sequence[tuple[np.ndarray, int]]
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray, tuple[int, ...]]:
    """(gather, start, end, out_shape) of coarsen blocks over several dims: the flat
    grid positions ordered by block (C order), each block's bounds in that list."""
    out_shape = tuple(nb for _, nb in per_dim)
    codes = np.zeros((), np.intp)
    trimmed = np.zeros((), bool)
    for c, nb in per_dim:  # the outer product of the dims' block codes, C order
        codes = codes[..., None] * nb + c
        trimmed = trimmed[..., None] | (c < 0)
    codes = np.where(trimmed, -1, codes).reshape(-1)
    keep = np.flatnonzero(codes >= 0)
    order = keep[np.argsort(codes[keep], kind="stable")]
    start, end = segment_bounds(codes[order], int(np.prod(out_shape, dtype=np.int64)))
    return order, np.asarray(start), np.asarray(end), out_shape


def box_reduce(x: np.ndarray, axes: Sequence[int], gather: np.ndarray, start: np.ndarray,
               end: np.ndarray, out_shape: Sequence[int], stat: str, *, policy: NanPolicy,
               min_periods: int, engine: Any, params: dict[str, Any],
               locate: Any = None) -> np.ndarray:
    """``stat`` of every box of ``x`` over ``axes`` (the boxes' dims, in that order),
    the result's box dims in place of ``axes`` (a list ``q`` first). ``locate(err,
    grid_pos, rest_pos)`` restates a core error (``grid_pos`` over ``axes``)."""
    axes = list(axes)
    moved = np.moveaxis(np.asarray(x), axes, list(range(len(axes))))
    grid_shape = moved.shape[:len(axes)]
    rest = moved.shape[len(axes):]
    x2 = moved.reshape(int(np.prod(grid_shape, dtype=np.int64)), -1)
    try:
        red = window_reduce(x2[gather], start, end, stat, policy=policy,
                            min_periods=min_periods, engine=engine, **params)
    except NaNError as err:
        if locate is None or not err.position:
            raise
        row = int(gather[int(err.position[0])])
        col = int(err.position[1]) if len(err.position) > 1 else 0
        grid_pos = tuple(int(i) for i in np.unravel_index(row, grid_shape))
        rest_pos = tuple(int(i) for i in np.unravel_index(col, rest)) if rest else ()
        raise locate(err, grid_pos, rest_pos) from None
    vals = np.asarray(red.values)
    if stat in _stats.COUNTS and min_periods:  # xarray: min_periods counts the numbers
        vals = np.where(vals < min_periods, np.nan, vals.astype(np.float64))
    elif vals.dtype.kind in "iub":
        vals = vals.astype(np.float64)
    lead = vals.ndim - 2
    vals = vals.reshape(vals.shape[:lead] + tuple(out_shape) + rest)
    return np.moveaxis(vals, [lead + i for i in range(len(axes))], [lead + a for a in axes])


# ---------------------------------------------------------------------------------- dask


def _rolling_block(block: np.ndarray, axes: list[int], sizes: list[int], centers: list[bool],
                   mp: int, stat: str, policy: NanPolicy, engine: Any, params: dict[str, Any],
                   subject: str) -> np.ndarray:
    shape = [block.shape[a] for a in axes]
    gather, start, end = rolling_boxes(shape, sizes, centers)

    def locate(err: NaNError, grid: Any, rest: Any) -> NaNError:
        return err.relabel(subject, "a window of a dask block")

    return box_reduce(block, axes, gather, start, end, shape, stat, policy=policy,
                      min_periods=mp, engine=engine, params=params, locate=locate)


def dask_rolling_nd(data: Any, axes: list[int], sizes: list[int], centers: list[bool],
                    mp: int, stat: str, policy: NanPolicy, engine: Any, params: dict[str, Any],
                    subject: str) -> Any:
    """A lazy rolling statistic over several axes: each block with the overlap its
    boxes need (``map_overlap``, no padding at the array's ends)."""
    depth = {a: 0 for a in range(data.ndim)}
    for a, s, c in zip(axes, sizes, centers, strict=True):
        depth[a] = before_after(s, c)
    probe = _rolling_block(np.zeros((2,) * data.ndim, data.dtype), axes, [1] * len(axes),
                           [False] * len(axes), 0, stat, NanPolicy.TOTALORDER, "numpy",
                           params, subject)
    return data.map_overlap(_rolling_block, depth=depth, boundary="none", trim=True,
                            dtype=probe.dtype, meta=np.empty((0,) * data.ndim, probe.dtype),
                            axes=axes, sizes=sizes, centers=centers, mp=mp, stat=stat,
                            policy=policy, engine=engine, params=params, subject=subject)


def coarsen_chunks(data: Any, axis: int, size: int, boundary: str, side: str
                   ) -> tuple[Any, tuple[int, ...]]:
    """``data`` trimmed (``boundary="trim"``) and rechunked along ``axis`` to whole
    coarsen blocks (a short block at the ``side`` end under "pad"); the chunks."""
    n = data.shape[axis]
    rem = n % size
    if boundary == "exact" and rem:
        raise ValueError(f"Could not coarsen a dimension of size {n} with window {size} "
                         "and boundary='exact'. Try a different 'boundary' option.")
    right = side == "right"
    if boundary == "trim" and rem:
        cut = slice(rem, n) if right else slice(0, n - rem)
        data = data[(slice(None),) * axis + (cut,)]
        n, rem = n - rem, 0
    per = max(int(max(data.chunks[axis], default=size)) // size, 1) * size
    if right and rem:  # the short block first, then whole ones
        body = n - rem
        chunks = [rem] + [per] * (body // per) + ([body % per] if body % per else [])
    else:
        chunks = [per] * (n // per) + ([n % per] if n % per else [])
    return data.rechunk({axis: tuple(chunks)}), tuple(chunks)


def _coarsen_block(block: np.ndarray, axes: list[int], sizes: list[int], stat: str,
                   policy: NanPolicy, engine: Any, params: dict[str, Any],
                   subject: str) -> np.ndarray:
    """A block holding whole coarsen blocks along ``axes`` (the array's short block, if
    any, is a chunk of its own)."""
    per_dim = []
    for a, s in zip(axes, sizes, strict=True):
        n = block.shape[a]
        per_dim.append(((np.arange(n) // s).astype(np.intp), -(-n // s)))
    gather, start, end, out_shape = coarsen_boxes(per_dim)

    def locate(err: NaNError, grid: Any, rest: Any) -> NaNError:
        return err.relabel(subject, "a window of a dask block")

    return box_reduce(block, axes, gather, start, end, out_shape, stat, policy=policy,
                      min_periods=0, engine=engine, params=params, locate=locate)


def dask_coarsen_nd(data: Any, axes: list[int], sizes: list[int], boundary: dict[Any, Any],
                    side: dict[Any, Any], stat: str, policy: NanPolicy, engine: Any,
                    params: dict[str, Any],
                    subject: str) -> Any:
    """A lazy coarsen over several axes: each coarsened dim rechunked to whole blocks,
    one in-memory coarsen per chunk."""
    out_chunks = list(data.chunks)
    for a, s in zip(axes, sizes, strict=True):
        data, chunks = coarsen_chunks(data, a, s, boundary[a], side[a])
        out_chunks[a] = tuple(-(-c // s) for c in chunks)
    for a in range(data.ndim):
        if a not in axes:
            out_chunks[a] = data.chunks[a]
    probe = _coarsen_block(np.zeros((1,) * data.ndim, data.dtype), axes, [1] * len(axes),
                           stat, NanPolicy.TOTALORDER, "numpy", params, subject)
    return data.map_blocks(_coarsen_block, dtype=probe.dtype, chunks=tuple(out_chunks),
                           meta=np.empty((0,) * data.ndim, probe.dtype), axes=axes,
                           sizes=sizes, stat=stat, policy=policy, engine=engine,
                           params=params, subject=subject)
