"""``dask_reduce``: every statistic of the table on a dask array, lazy and exact.

Order and arg statistics go to :mod:`.select`, moments and counts to :mod:`.moments`.
The spread statistics are composed as :func:`nanaccess.core.reduce.reduce` composes
them, from exact lazy order statistics, so they equal the in-memory result bit for
bit: ``iqr`` is one selection pass for the two quantiles of ``rng``; ``mad`` is the
exact median, then the deviations ``|x - median|`` (a NaN keeps its own bits, so it
ranks as in the median of ``x``), then the exact median of those. When every reduced
axis lies in one chunk (or the data are Python objects) the core runs per block.
When the order statistics would bring the reduced axes whole into blocks of cells (an
all-to-all rechunk) and the passes stream (option ``dask_passes``), a lazily read
input is reduced in slabs of cells, one computation each (:mod:`.cells`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

import dask.array as da
import numpy as np

from .. import _stats
from ..core.axes import normalize_axis
from ..core.select import order_stat
from ..core.spread import (  # the core's spread rules, shared (not re-written here)
    canonical_nan,
    check_rng,
    check_scale,
    deviations,
    difference,
    divide_by_scale,
)
from ..errors import NaNError
from ..options import NanPolicy, option_context, resolve_policy
from .cells import by_slabs, plan_slabs
from .final import axes_whole, core_reduce, out_dtype, per_block_core, whole_axes
from .moments import dask_moment_stat
from .select import _first_bits, dask_order_stat
from .stream import defers, lazily
from .tally import policy_check

__all__ = ["dask_reduce"]


def dask_reduce(
    x: da.Array,
    stat: str,
    *,
    axis: int | Sequence[int] | None = None,
    policy: NanPolicy | str | None,
    keepdims: bool = False,
    relabel: Callable[[NaNError], NaNError] | None = None,
    check: da.Array | None = None,
    **params: Any,
) -> da.Array:
    """Lazy ``stat`` of a dask array, equal bit for bit to the in-memory core's.

    Parameters
    ----------
    x : dask.array.Array
        float16/32/64, integer, bool, datetime64/timedelta64 (NaT is missing) or
        object data.
    stat : str
        A name of :data:`nanaccess._stats.REDUCTIONS`.
    axis : None, int or tuple of int
        Axes to reduce (``None``: all).
    policy : NanPolicy or str
        The NaN policy (``None``: the current default).
    keepdims : bool, default False
        Keep the reduced axes with length one.
    relabel : callable, optional
        Applied to a policy error before it is raised (adapters name their data).
    check : dask.array.Array, optional
        A one-chunk array whose task does the policy checks itself; replaces the
        built-in check.
    **params
        The statistic's own parameters from the table (``q``, ``method``, ``ddof``,
        ``rng``, ``scale``).

    Returns
    -------
    dask.array.Array
        The lazy result (quantile dimensions first); policy errors are raised when it
        is computed.

    Examples
    --------
    >>> import numpy as np, dask.array as da
    >>> x = da.from_array(np.array([1.0, 2.0, np.nan, 4.0, 10.0]), chunks=2)
    >>> float(dask_reduce(x, "iqr", policy="omit").compute())
    3.75
    >>> float(dask_reduce(x, "mad", policy="omit").compute())
    1.5
    """
    policy = resolve_policy(policy)
    entry = _stats.get(stat)
    unknown = set(params) - set(entry.param_names)
    if unknown:
        raise TypeError(f"{stat}() got unexpected keyword(s) {sorted(unknown)}")
    if defers():  # "auto": passes that would stream run when the result is computed
        return lazily(partial(dask_reduce, x, stat, axis=axis, policy=policy,
                              keepdims=keepdims, relabel=relabel, check=check, **params))
    common: dict[str, Any] = dict(axis=axis, policy=policy, keepdims=keepdims,
                                  relabel=relabel, check=check)
    slabs = _slabs(x, stat, entry.family, axis) if check is None else None
    if slabs is not None:
        return _by_slabs(x, stat, slabs, common, params)
    if entry.family in ("order", "arg"):
        return dask_order_stat(x, stat, **common, **params)
    if entry.family in ("moment", "count"):
        return dask_moment_stat(x, stat, **common, **params)
    if entry.family == "higher":
        from .higher import dask_higher_stat  # skew, kurt, sem, prod (issue 23)

        return dask_higher_stat(x, stat, **common, **params)
    axes = normalize_axis(axis, x.ndim)
    res_dtype = out_dtype(x, stat, axes, **params)  # validates rng / method / scale
    info = policy_check(x, policy, check)
    single = axes_whole(x, axes)
    if not single and x.dtype.kind not in "fiubmM":
        x, single = whole_axes(x, axes), True
    if single:
        fn = partial(core_reduce, stat=stat, policy=policy, params=params)
        return per_block_core(x, fn, axes, keepdims, res_dtype, (), info, policy, relabel)
    common.update(axis=axes, check=info)
    if stat == "iqr":
        return _iqr(x, res_dtype, common, **params)
    return _mad(x, res_dtype, common, **params)


def _slabs(x: da.Array, stat: str, family: str, axis: Any) -> tuple[int, list[int]] | None:
    """Slabs of cells (:func:`.cells.plan_slabs`) when the statistic would bring the
    reduced axes whole into blocks of cells by an all-to-all rechunk: an order, arg or
    spread statistic over axes split across chunks whose histograms cannot fit a
    task (:func:`.select._first_bits`)."""
    if family not in ("order", "arg", "spread") or x.ndim < 2:
        return None
    axes = normalize_axis(axis, x.ndim)
    if axes_whole(x, axes) or len(axes) == x.ndim:
        return None
    if family == "order" and x.dtype.kind in "fiubmM" and _first_bits(x, axes) is not None:
        return None  # the selection's histograms fit: no rechunk
    return plan_slabs(x, axes)


def _slab_stat(xs: da.Array, stat: str, common: dict, params: dict) -> da.Array:
    """One slab's lazy statistic, in one graph, errors unlabelled (the slabs' errors
    are moved into the whole array before they are labelled)."""
    with option_context(dask_passes="graph"):
        return dask_reduce(xs, stat, **{**common, "relabel": None}, **params)


def _by_slabs(x: da.Array, stat: str, slabs, common: dict, params: dict) -> da.Array:
    axes = normalize_axis(common["axis"], x.ndim)
    kept = [a for a in range(x.ndim) if a not in axes]
    split = slabs[0]

    def out_axis(ndim: int) -> int:
        if common["keepdims"]:
            return ndim - x.ndim + split
        return ndim - len(kept) + kept.index(split)

    return by_slabs(x, slabs, partial(_slab_stat, stat=stat, common=common, params=params),
                    out_axis=out_axis, policy=common["policy"], relabel=common["relabel"])


def _iqr(x: da.Array, res_dtype: np.dtype, common: dict, *, rng=(25, 75),
         method: str = "linear") -> da.Array:
    lo_p, hi_p = check_rng(rng)
    qs = dask_order_stat(x, "quantile", q=[lo_p / 100, hi_p / 100], method=method, **common)
    return da.map_blocks(_iqr_block, qs, drop_axis=0, dtype=res_dtype,
                         meta=np.empty((0,) * (qs.ndim - 1), res_dtype))


def _iqr_block(v: np.ndarray) -> np.ndarray:
    return np.asarray(difference(v[1], v[0]))


def _mad(x: da.Array, res_dtype: np.dtype, common: dict, *, scale=1.0) -> da.Array:
    scale = check_scale(scale)
    axes, keepdims = common["axis"], common["keepdims"]
    center = dask_order_stat(x, "median", **{**common, "keepdims": True})
    # the center's kept axes chunked as the data's (the selection may have brought
    # the reduced axes whole into other blocks of cells), so blocks pair up one to one
    center = center.rechunk(tuple((1,) if a in axes else x.chunks[a] for a in range(x.ndim)))
    sample = np.zeros((1,) * x.ndim, dtype=x.dtype)
    dev_dtype = deviations(sample, order_stat(sample, "median", keepdims=True,
                                               policy=NanPolicy.TOTALORDER)[0])[0].dtype
    dev = da.map_blocks(_dev_block, x, center, dtype=dev_dtype,
                        meta=np.empty((0,) * x.ndim, dev_dtype))
    med = dask_order_stat(dev, "median", **common)
    if x.dtype.kind == "f":  # only floats can meet inf - inf
        und = da.map_blocks(_undefined_block, x, center, axes=axes, dtype=bool,
                            chunks=tuple((1,) * x.numblocks[a] if a in axes else x.chunks[a]
                                         for a in range(x.ndim)),
                            meta=np.empty((0,) * x.ndim, bool))
        und = und.any(axis=axes, keepdims=keepdims).rechunk(med.chunks)
    else:
        und = da.zeros_like(med, dtype=bool)
    return da.map_blocks(_mad_block, med, und, dtype=res_dtype, scale=scale,
                         meta=np.empty((0,) * med.ndim, res_dtype))


def _dev_block(b: np.ndarray, center: np.ndarray) -> np.ndarray:
    return deviations(b, center)[0]


def _undefined_block(b: np.ndarray, center: np.ndarray, *, axes) -> np.ndarray:
    """Rows of a block holding a deviation that arithmetic leaves undefined (inf - inf)."""
    shape = tuple(1 if a in axes else n for a, n in enumerate(b.shape))
    if not np.isinf(center).any():  # the usual case: no deviation can be undefined
        return np.zeros(shape, dtype=bool)
    und = deviations(b, center)[1]
    return np.zeros(shape, bool) if und is None else und.any(axis=axes, keepdims=True)


def _mad_block(values: np.ndarray, undefined: np.ndarray, *, scale: Any) -> np.ndarray:
    """The tail of the core's ``_mad``: undefined rows are the canonical NaN, then
    :func:`nanaccess.core.reduce.divide_by_scale`."""
    if undefined.any():
        values = np.where(undefined, canonical_nan(values.dtype), values)
    return np.asarray(divide_by_scale(values, scale))  # a 0-d block stays an array
