"""``dask_reduce``: every statistic of the table on a dask array, lazy and exact.

Order and arg statistics go to :mod:`.select`, moments and counts to :mod:`.moments`.
The composed statistics are built by :mod:`nanaccess.core.compose` over
:class:`DaskShape`, from exact lazy order statistics, so they equal the in-memory
result bit for bit: ``iqr`` is one selection pass for the two quantiles of ``rng``;
``mad`` is the exact median, then the deviations ``|x - median|`` (a NaN keeps its own
bits, so it ranks as in the median of ``x``), then the exact median of those. When every reduced
axis lies in one chunk (or the data are Python objects) the core runs per block.
When the order statistics would bring the reduced axes whole into blocks of cells (an
all-to-all rechunk) and the passes stream (option ``dask_passes``), a lazily read
input is reduced in slabs of cells, one computation each (:mod:`.cells`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, cast

import dask.array as da
import numpy as np

from .. import _stats
from ..core.chunked import compose, deviations, normalize_axis
from ..errors import NaNError
from ..options import NanPolicy, resolve_policy
from .cells import by_slabs, plan_slabs
from .final import axes_whole, core_reduce, out_dtype, per_block_core, whole_axes
from .higher import dask_higher_stat
from .moments import dask_moment_stat
from .select import dask_order_stat, first_bits
from .stream import Passes, defers, lazily, passes_of
from .tally import policy_check
from .typed_dask import map_blocks

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
    dask_passes: str | Passes | None = None,
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
    dask_passes : {"auto", "graph", "streaming"}, optional
        How the passes of an exact selection run (None: the ``dask_passes`` option,
        read here once and passed down; see :mod:`.stream`).
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
    passes = passes_of(dask_passes)
    entry = _stats.get(stat)
    unknown = set(params) - set(entry.param_names)
    if unknown:
        raise TypeError(f"{stat}() got unexpected keyword(s) {sorted(unknown)}")
    if defers(passes):  # "auto": passes that would stream run when the result is computed
        return cast("da.Array",
               lazily(partial(dask_reduce, x, stat, axis=axis, policy=policy,
                              keepdims=keepdims, relabel=relabel, check=check, **params),
                      passes))
    common: dict[str, Any] = dict(axis=axis, policy=policy, keepdims=keepdims,
                                  relabel=relabel, check=check)
    slabs = _slabs(x, entry, axis, passes) if check is None else None
    if slabs is not None:
        return _by_slabs(x, stat, slabs, common, params)
    if entry.kernel_family == "higher":  # skew, kurt, sem, prod: power-sum partials
        return dask_higher_stat(x, stat, **common, **params)
    if entry.compose is None and entry.family in ("order", "arg"):
        return dask_order_stat(x, stat, **common, dask_passes=passes, **params)
    if entry.compose is None:
        return dask_moment_stat(x, stat, **common, **params)
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
    return cast("da.Array", compose(entry, DaskShape(common, passes), x, **params)[0])


def _slabs(x: da.Array, entry: _stats.Statistic, axis: Any, passes: Passes
           ) -> tuple[int, list[int]] | None:
    """Slabs of cells (:func:`.cells.plan_slabs`) when the statistic would bring the
    reduced axes whole into blocks of cells by an all-to-all rechunk: an order, arg or
    composed statistic over axes split across chunks whose histograms cannot fit a
    task (:func:`.select._first_bits`)."""
    if entry.family not in ("order", "arg") and entry.compose is None or x.ndim < 2:
        return None
    axes = normalize_axis(axis, x.ndim)
    if axes_whole(x, axes) or len(axes) == x.ndim:
        return None
    if entry.family == "order" and x.dtype.kind in "fiubmM" and \
            first_bits(x, axes) is not None:
        return None  # the selection's histograms fit: no rechunk
    return plan_slabs(x, axes, passes)


def _slab_stat(xs: da.Array, stat: str, common: dict[Any, Any], params: dict[str, Any]) -> da.Array:
    """One slab's lazy statistic, in one graph, errors unlabelled (the slabs' errors
    are moved into the whole array before they are labelled)."""
    return dask_reduce(xs, stat, **{**common, "relabel": None}, dask_passes="graph",
                       **params)


def _by_slabs(x: da.Array, stat: str, slabs: Any, common: dict[Any, Any],
              params: dict[str, Any]) -> da.Array:
    axes = normalize_axis(common["axis"], x.ndim)
    kept = [a for a in range(x.ndim) if a not in axes]
    split = slabs[0]

    def out_axis(ndim: int) -> int:
        if common["keepdims"]:
            return cast("int", ndim - x.ndim + split)
        return ndim - len(kept) + kept.index(split)

    return by_slabs(x, slabs, partial(_slab_stat, stat=stat, common=common, params=params),
                    out_axis=out_axis, policy=common["policy"], relabel=common["relabel"])


@dataclass
class DaskShape:
    """The lazy exact selection as a :class:`nanaccess.core.compose.Shape` (the
    reduced axes split across chunks): elementwise steps run block by block."""

    common: dict[Any, Any]
    passes: Passes
    name: str = "dask"
    recipes = frozenset({"difference", "deviation", "ratio"})

    def stat(self, name: Any, x: Any, *, center: Any = False, **params: Any) -> Any:
        common = {**self.common, "keepdims": True} if center else self.common
        if _stats.get(name).family in ("order", "arg"):
            return dask_order_stat(x, name, **common, dask_passes=self.passes, **params), None
        return dask_moment_stat(x, name, **common, **params), None

    def deviations(self, x: Any, center: Any) -> Any:
        axes, keepdims = self.common["axis"], self.common["keepdims"]
        # the center's kept axes chunked as the data's (the selection may have brought
        # the reduced axes whole into other blocks of cells), so blocks pair up one to one
        center = center.rechunk(tuple((1,) if a in axes else x.chunks[a]
                                      for a in range(x.ndim)))
        dev_dtype = _stats.result_dtype("mad", x.dtype)
        dev = map_blocks(_dev_block, x, center, dtype=dev_dtype,
                            meta=np.empty((0,) * x.ndim, dev_dtype))
        if x.dtype.kind != "f":  # only floats can meet inf - inf
            return dev, None
        und = map_blocks(_undefined_block, x, center, axes=axes, dtype=bool,
                            chunks=tuple((1,) * x.numblocks[a] if a in axes else x.chunks[a]
                                         for a in range(x.ndim)),
                            meta=np.empty((0,) * x.ndim, bool))
        return dev, und.any(axis=axes, keepdims=keepdims)

    def count(self, x: Any) -> Any:
        return dask_moment_stat(x, "count", **self.common)

    def each(self, fn: Any, first: Any, *rest: Any, dtype: Any, drop_lead: Any = False,
             **kw: Any) -> Any:
        rest = tuple(r.rechunk(first.chunks[1:] if drop_lead else first.chunks)
                     for r in rest)
        nd = first.ndim - (1 if drop_lead else 0)
        return map_blocks(fn, first, *rest, dtype=dtype, drop_axis=0 if drop_lead else None,
                             meta=np.empty((0,) * nd, dtype), **kw)

    def center_missing(self, cmiss: Any) -> None:
        return None


def _dev_block(b: np.ndarray, center: np.ndarray) -> np.ndarray:
    return deviations(b, center)[0]


def _undefined_block(b: np.ndarray, center: np.ndarray, *, axes: Any) -> np.ndarray:
    """Rows of a block holding a deviation that arithmetic leaves undefined (inf - inf)."""
    shape = tuple(1 if a in axes else n for a, n in enumerate(b.shape))
    if not np.isinf(center).any():  # the usual case: no deviation can be undefined
        return np.zeros(shape, dtype=bool)
    und = deviations(b, center)[1]
    return np.zeros(shape, bool) if und is None else und.any(axis=axes, keepdims=True)
