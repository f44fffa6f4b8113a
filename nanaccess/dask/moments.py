"""Exact, lazy moments of dask arrays (sum, mean, var, std, count).

A tree reduction (:func:`dask.array.reduction`) of exact per-row partials
(:func:`nanaccess.core.exactsum.exact_partials`: the exact sum and sum of squares as
integers), merged by exact addition and rounded once, bit-identical to
:func:`nanaccess.core.moments.moment_stat`. Object data runs the core per block.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from fractions import Fraction
from functools import partial
from typing import Any

import dask.array as da
import numpy as np

from .. import _stats
from .._labels import name_overflow
from ..core.chunked import (
    RULES,
    SCALE,
    ExactPartials,
    Reduction,
    canonical_nan,
    exact_partials,
    float_keys,
    keys_to_float,
    layout_of,
    normalize_axis,
    result_dtype,
    round_mean,
    round_narrow_exact,
    round_sum,
    round_var,
    scan_rows,
    temporal_mean_of_sums,
)
from ..errors import NaNError
from ..options import NanPolicy, resolve_policy
from .final import (
    axes_whole,
    bounded_whole_axes,
    check_then,
    chunk_bytes,
    core_moment,
    out_dtype,
    per_block_core,
    whole_axes,
)
from .tally import policy_check
from .typed_dask import blockwise, reduction

__all__ = ["dask_moment_stat", "MOMENT_STATS"]

#: what :func:`dask_moment_stat` computes (the moment and count families of the table)
MOMENT_STATS = _stats.names("moment", "count")

class _MomentPart:
    """Exact, mergeable partial moments of one row (``+`` merges; see ``exact_partials``)."""

    __slots__ = ("s", "q", "count", "posinf", "neginf", "nan", "negzero", "nnan", "nmiss",
                 "maxnan")

    def __init__(self, s: Any, q: Any, count: Any, posinf: Any, neginf: Any, nan: Any, negzero: Any,
                 nnan: Any, nmiss: Any, maxnan: Any) -> None:
        self.s, self.q, self.count = s, q, count
        self.posinf, self.neginf, self.nan, self.negzero = posinf, neginf, nan, negzero
        self.nnan, self.nmiss, self.maxnan = nnan, nmiss, maxnan

    def __add__(self, o: _MomentPart) -> _MomentPart:
        if self.maxnan is None:
            mx = o.maxnan
        else:
            mx = self.maxnan if o.maxnan is None else max(self.maxnan, o.maxnan)
        return _MomentPart(
            self.s + o.s,
            None if self.q is None else self.q + o.q,
            self.count + o.count,
            self.posinf or o.posinf,
            self.neginf or o.neginf,
            self.nan or o.nan,
            self.negzero and o.negzero,
            self.nnan + o.nnan,
            self.nmiss + o.nmiss,
            mx,
        )

    def __reduce__(self) -> Any:
        return (_MomentPart, tuple(getattr(self, k) for k in self.__slots__))


def _moment_rows(b: np.ndarray, red: Any) -> Any:
    rows = red.as_rows(b)
    if b.dtype.kind in "mM":
        rows = rows.view(np.int64)
    elif b.dtype.kind == "b":
        rows = rows.astype(np.int64)
    return rows


def _moment_chunk(b: Any, axis: Any = None, keepdims: Any = True, *, stat: Any,
                  squares: Any) -> Any:
    """Per-row exact partials of one block (object array, reduced axes of length 1)."""
    b = np.asarray(b)
    red = Reduction.of(b, axis)
    sc = scan_rows(b, red, NanPolicy.TOTALORDER)  # classification only: never raises
    removed = sc.removed
    nrows = red.rows
    if stat in _stats.COUNTS:
        cnt = red.n - sc.nnan - sc.nmiss
        z = [0] * nrows
        f = [False] * nrows
        fields = (z, [None] * nrows, cnt.tolist(), f, f, f, f)
    else:
        rows = _moment_rows(b, red)
        p = exact_partials(rows, None if removed is None else ~removed, squares=squares)
        fields = (p.s.reshape(-1).tolist(),
                  [None] * nrows if p.q is None else p.q.reshape(-1).tolist(),
                  p.count.reshape(-1).tolist(), p.posinf.reshape(-1).tolist(),
                  p.neginf.reshape(-1).tolist(), p.nan.reshape(-1).tolist(),
                  p.negzero.reshape(-1).tolist())
    if sc.nan is not None:
        k = float_keys(red.as_rows(b))
        kmin = np.iinfo(k.dtype).min
        best = np.where(sc.nan, k, k.dtype.type(kmin)).max(axis=1)
        maxnan = [int(v) if n else None for v, n in zip(best.tolist(), sc.nnan.tolist(),
                                                       strict=True)]
    else:
        maxnan = [None] * nrows
    out = np.empty(nrows, dtype=object)
    for r, vals in enumerate(zip(*fields, sc.nnan.tolist(), sc.nmiss.tolist(), maxnan,
                                 strict=True)):
        out[r] = _MomentPart(*vals)
    return red.finish(out, True)


def _moment_combine(parts: Any, axis: Any = None, keepdims: Any = True) -> Any:
    return np.add.reduce(np.asarray(parts, dtype=object), axis=axis, keepdims=True)


def _overflow_named(err: Exception, relabel: Any, axis: Any, shape: tuple[Any, ...],
                    keepdims: bool) -> Exception:
    """``err`` naming the column / variable (and the kept coordinates) instead of the
    row of the merged partials (see :func:`nanaccess._labels.name_overflow`)."""
    row = getattr(err, "row", None)
    if row is None or relabel is None:
        return err
    reduced = () if axis is None else tuple(np.atleast_1d(axis).tolist())
    ndim = len(shape) if keepdims else len(shape) + len(reduced)
    kept = [i for i in range(ndim) if i not in reduced]
    position = np.unravel_index(row, shape) if shape else ()
    if keepdims:
        position = tuple(position[i] for i in kept)
    return name_overflow(err, relabel, tuple(int(p) for p in position), kept)


def _moment_finish(parts: Any, axis: Any = None, keepdims: Any = False, *, stat: Any, ddof: Any,
                   policy: Any, dtype: Any,
                   relabel: Any = None, locate: Any = False) -> Any:
    """Round merged partials exactly as ``moment_stat`` does (bit for bit)."""
    merged = np.add.reduce(np.asarray(parts, dtype=object), axis=axis, keepdims=keepdims)
    if not isinstance(merged, np.ndarray):  # a full reduction gives the bare partial
        box = np.empty((), dtype=object)
        box[()] = merged
        merged = box
    shape = merged.shape
    flat = merged.reshape(-1).tolist()
    kind = dtype.kind
    native = dtype.newbyteorder("=")
    count = np.array([p.count for p in flat], dtype=np.int64)
    nnan = np.array([p.nnan for p in flat], dtype=np.int64)
    nmiss = np.array([p.nmiss for p in flat], dtype=np.int64)
    if stat in _stats.COUNTS:
        return count.reshape(shape)
    obj = np.empty(len(flat), dtype=object)
    obj[:] = [p.s for p in flat]
    qobj = None
    if "ddof" in _stats.get(stat).param_names:  # var, std: the sum of squares
        qobj = np.empty(len(flat), dtype=object)
        qobj[:] = [p.q for p in flat]
    ep = ExactPartials(
        obj, qobj, count,
        np.array([p.posinf for p in flat], bool), np.array([p.neginf for p in flat], bool),
        np.array([p.nan for p in flat], bool), np.array([p.negzero for p in flat], bool),
        kind in "iubmM", kind == "u",
    )
    if stat in _stats.SUMS:
        try:
            vals = round_sum(ep)
        except OverflowError as err:  # an integer sum past its dtype: name the data
            if not locate:  # a chunk's own rows: its place in the whole is not known here
                raise name_overflow(err, relabel) from None
            raise _overflow_named(err, relabel, axis, shape, keepdims) from None
    elif stat in _stats.MEANS and kind in "mM":  # exact, toward zero, as moment_stat
        vals = temporal_mean_of_sums([int(s) >> SCALE for s in obj.tolist()],
                                     count.tolist())
    elif stat in _stats.MEANS:
        vals = round_mean(ep)
    else:
        with np.errstate(invalid="ignore"):
            vals = round_var(ep, ddof)
            if stat in _stats.ROOTS:
                vals = np.sqrt(vals)
    narrow = kind == "f" and native.itemsize < 8
    v64 = vals
    vals = result_dtype(vals, np.dtype(native), stat)
    if narrow:  # float32/16: the exact value rounded once, not the float64 again
        vals = round_narrow_exact(v64, vals, stat, partial(_exact_of, flat, stat, ddof))
    if not RULES[policy].removes:  # a NaN or missing value shows in the result
        has = nnan > 0
        if kind == "f" and has.any():
            lay = layout_of(native)
            best = np.array([p.maxnan if p.maxnan is not None else 0 for p in flat],
                            dtype=lay.int_dtype)
            pv = keys_to_float(best, native)
            vals = np.where(has, pv.astype(vals.dtype), vals)
        mrow = (nmiss > 0) & ~has
        if mrow.any():
            if vals.dtype.kind == "f":
                vals = np.where(mrow, canonical_nan(vals.dtype), vals)
            elif vals.dtype.kind in "mM":
                vals = np.where(mrow, np.array("NaT", dtype=vals.dtype), vals)
    return np.asarray(vals).reshape(shape)


def _exact_of(flat: list[Any], stat: str, ddof: float, k: int) -> Fraction | None:
    """The exact sum, mean or variance of merged partial ``k`` (None: not finite, or a
    fractional ``ddof``, which is applied in floating point as the core does)."""
    p = flat[k]
    n = p.count
    if p.nan or p.posinf or p.neginf:
        return None
    if stat in _stats.SUMS:
        return Fraction(p.s, 1 << SCALE)
    if stat in _stats.MEANS:
        return Fraction(p.s, n << SCALE) if n else None
    if float(ddof) != int(ddof) or n - int(ddof) <= 0:
        return None
    return Fraction(n * p.q - p.s * p.s, (n * (n - int(ddof))) << (2 * SCALE))


#: cells a rechunked chunk must be able to hold (the tiled kernel's tile width)
_TILE_CELLS = 128


def _regrid(x: da.Array, axes: tuple[int, ...]) -> da.Array | None:
    """``x`` rechunked with ``axes`` whole in every chunk and no chunk larger than the
    largest input chunk, or None where that does not pay: not float data, the axes
    whole already, no kept axis, unknown sizes, or a chunk that could not hold
    :data:`_TILE_CELLS` cells (fewer when there are fewer)."""
    if x.dtype.kind != "f" or not axes or axes_whole(x, axes) or len(axes) == x.ndim:
        return None
    if any(math.isnan(s) for s in x.shape):
        return None
    n = math.prod(x.shape[a] for a in axes)
    cells = math.prod(x.shape[a] for a in range(x.ndim) if a not in axes)
    if n * x.dtype.itemsize * min(cells, _TILE_CELLS) > chunk_bytes(x):
        return None
    return bounded_whole_axes(x, axes)


def dask_moment_stat(
    x: da.Array,
    stat: str,
    *,
    axis: int | Sequence[int] | None = None,
    ddof: int = 0,
    policy: NanPolicy | str | None = None,
    keepdims: bool = False,
    relabel: Callable[[NaNError], NaNError] | None = None,
    check: da.Array | None = None,
) -> da.Array:
    """Lazy mean / var / std / sum / count of a dask array, equal to the core bit for bit.

    Parameters
    ----------
    x : dask.array.Array
        Numeric data.
    stat : {"mean", "var", "std", "sum", "count"}
        The statistic, as in :func:`nanaccess.core.moments.moment_stat`.
    axis : int, tuple of int or None
        Axes to reduce.
    ddof : int, default 0
        Delta degrees of freedom of var and std.
    policy : NanPolicy or str
        The NaN policy (``None``: the current default).
    keepdims : bool, default False
        Keep the reduced axes with length one.
    relabel : callable, optional
        Applied to a policy error before it is raised.
    check : dask.array.Array, optional
        A one-chunk bool array whose task does the policy checks itself (as in
        :func:`dask_order_stat`); replaces the built-in check.

    Returns
    -------
    dask.array.Array
        Lazy result, computed by a tree reduction of exact per-chunk partials
        (:func:`nanaccess.core.exactsum.exact_partials`), so no chunk grows beyond the
        input's; equal to the core's ``moment_stat`` bit for bit. Policy errors are
        raised when it is computed.

    Examples
    --------
    >>> import numpy as np, dask.array as da
    >>> x = da.from_array(np.array([1.0, 2.0, np.nan, 5.0]), chunks=2)
    >>> float(dask_moment_stat(x, "mean", policy="omit").compute())
    2.6666666666666665
    """
    policy = resolve_policy(policy)
    if stat not in MOMENT_STATS:
        raise ValueError(f"unknown moment statistic {stat!r}; expected one of {MOMENT_STATS}")
    axes = normalize_axis(axis, x.ndim)
    squares = "ddof" in _stats.get(stat).param_names  # var, std: the sum of squares too
    res_dtype = out_dtype(x, stat, axes, **({"ddof": 0} if squares else {}))
    info = policy_check(x, policy, check)
    if x.dtype.kind == "O" or x.ndim == 0:
        # object data: the core's Python path, on one chunk over the reduced axes
        x = whole_axes(x, axes)
        fn = partial(core_moment, stat=stat, ddof=ddof, policy=policy)  # module level
        return per_block_core(x, fn, axes, keepdims, res_dtype, (), info, policy, relabel)
    regridded = _regrid(x, axes)  # gridded float data split along the reduced axes
    if regridded is not None:
        x = regridded
    if x.dtype.kind == "f" and axes_whole(x, axes):
        # gridded data, the reduced axes whole in every chunk: one task per chunk runs
        # the in-memory engine (tiled and certified, exact), no partials to merge
        fn = partial(core_moment, stat=stat, ddof=ddof, policy=policy)
        return per_block_core(x, fn, axes, keepdims, res_dtype, (), info, policy, relabel)
    res = reduction(
        x,
        partial(_moment_chunk, stat=stat, squares=squares),
        partial(_moment_finish, stat=stat, ddof=ddof, policy=policy, dtype=x.dtype,
                relabel=relabel,
                # one output chunk: a row of the merged partials is a row of the result
                locate=all(len(c) == 1 for i, c in enumerate(x.chunks) if i not in axes)),
        combine=_moment_combine,
        axis=axes,
        keepdims=keepdims,
        dtype=object,  # the partials; the aggregate returns res_dtype values
        concatenate=True,
        meta=np.empty((0,) * (x.ndim if keepdims else x.ndim - len(axes)), dtype=object),
    )
    shape = tuple(0 if math.isnan(s) else int(s) for s in x.shape)
    ri = tuple(f"r{i}" for i in range(res.ndim))
    args: list[Any] = [res, ri]
    if info is not None:
        args += [info, ("info",)]
    return blockwise(check_then, ri, *args, dtype=res_dtype, concatenate=True,
                        meta=np.empty((0,) * res.ndim, dtype=res_dtype),
                        policy=policy, shape=shape, relabel=relabel, dtype_out=res_dtype)
