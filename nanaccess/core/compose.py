"""Derived statistics, built once for every shape from the table's ``Compose`` entries.

A statistic with a ``compose`` entry in :mod:`nanaccess._stats` (iqr, mad, and any
later one such as sem) is not computed by an engine of its own: :func:`compose` runs
its recipe over a *shape*, the few operations an engine offers (its statistic of the
table, and for deviations each value's own output's center), so the flat core
(:func:`nanaccess.core.reduce.reduce`), the grouped engine
(:func:`nanaccess.core.grouped.grouped_reduce`), the windows
(:func:`nanaccess.core.window.window_reduce`) and dask
(:func:`nanaccess.dask.reduce.dask_reduce`) share one composition, with the NaN rules
of :mod:`nanaccess.core.spread`.

Recipes
-------
``difference``
    ``of`` at the two quantiles of ``rng`` (percentiles), then
    :func:`~nanaccess.core.spread.difference` of the upper and lower.
``deviation``
    each output's ``of`` (the center), each value's deviation from its own center
    (:func:`~nanaccess.core.spread.deviations`), ``of`` of those; outputs holding a
    deviation that arithmetic leaves undefined (``inf - inf``) are the canonical NaN,
    then :func:`~nanaccess.core.spread.divide_by_scale`.
``ratio``
    ``of`` divided by the square root of the count of values the statistic saw
    (sem = std/sqrt(n)).

A shape that cannot run a recipe (windows cannot give each value one center: a value
lies in many windows) says so in :attr:`Shape.recipes`; asking it is a
:class:`StatisticNotServed` naming the statistic and the engine, never a silent
fallback to another statistic.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

import numpy as np

from .. import _stats
from .classify import canonical_nan
from .spread import check_rng, check_scale, difference, divide_by_scale

__all__ = ["Shape", "StatisticNotServed", "compose", "not_served", "composed_of",
           "iqr_block", "mad_block", "ratio_block"]


class StatisticNotServed(NotImplementedError, ValueError):
    """An engine asked for a statistic it cannot compute (a ``NotImplementedError``,
    and a ``ValueError`` as the statistic is a bad argument of that engine)."""


def not_served(stat: str, engine: str, why: str = "") -> StatisticNotServed:
    """The error for ``stat`` asked of ``engine`` (raise it)."""
    tail = f": {why}" if why else ""
    return StatisticNotServed(f"the {engine} engine cannot compute {stat!r}{tail}")


class Shape(Protocol):
    """What an engine offers :func:`compose`."""

    #: the engine's name in error messages ("flat", "grouped", "window", "dask")
    name: str
    #: the recipes it can run
    recipes: frozenset[str]

    def stat(self, name: str, x: Any, *, center: bool = False, **params: Any
             ) -> tuple[Any, Any]:
        """``(values, missing)`` of statistic ``name`` per output; ``center=True``:
        in a form :meth:`deviations` takes (the flat core keeps the reduced axes)."""

    def deviations(self, x: Any, center: Any) -> tuple[Any, Any]:
        """``(|x - center|, undefined)``: each value's deviation from its own
        output's center, and per output whether one is undefined (or None)."""

    def count(self, x: Any) -> Any:
        """How many values each output saw."""

    def each(self, fn: Callable[..., np.ndarray], *arrays: Any, dtype: np.dtype,
             drop_lead: bool = False, **kw: Any) -> Any:
        """``fn`` applied to matching pieces of ``arrays`` (the whole arrays in
        memory, block by block on dask); ``drop_lead``: ``fn`` drops the first axis."""

    def center_missing(self, cmiss: Any) -> Any:
        """The center's missing mask in the outputs' shape (None: none)."""


def composed_of(stat: str) -> _stats.Compose | None:
    """The table's composition of ``stat`` (None: an engine computes it)."""
    return _stats.get(stat).compose


def compose(stat: str | _stats.Statistic, shape: Shape, x: Any, **params: Any
            ) -> tuple[Any, Any]:
    """``(values, missing)`` of a composed statistic over ``shape``.

    Examples
    --------
    >>> from nanaccess.core.reduce import FlatShape
    >>> from nanaccess.options import NanPolicy
    >>> shape = FlatShape(axis=None, policy=NanPolicy.OMIT, missing=None, keepdims=False)
    >>> compose("iqr", shape, np.array([1.0, 2.0, np.nan, 4.0, 10.0]))[0]
    array(3.75)
    """
    entry = stat if isinstance(stat, _stats.Statistic) else _stats.get(stat)
    how = entry.compose
    if how is None:
        raise not_served(entry.name, shape.name, "it is not a composed statistic")
    if how.recipe not in shape.recipes:
        raise not_served(entry.name, shape.name,
                         f"the {how.recipe} of {how.of} needs each value's own output")
    return _RECIPES[how.recipe](shape, how.of, x, **params)


def _difference(shape: Shape, of: str, x: Any, *, rng: Any = (25, 75),
                method: str = "linear") -> Any:
    lo_p, hi_p = check_rng(rng)
    values, miss = shape.stat(of, x, q=[lo_p / 100, hi_p / 100], method=method)
    dtype = _stats.result_dtype("iqr", x.dtype)
    out = shape.each(iqr_block, values, dtype=dtype, drop_lead=True)
    return out, None if miss is None else (miss[0] | miss[1])


def _deviation(shape: Shape, of: str, x: Any, *, scale: Any = 1.0) -> Any:
    scale = check_scale(scale)
    center, cmiss = shape.stat(of, x, center=True)
    dev, undefined = shape.deviations(x, center)
    values, miss = shape.stat(of, dev)
    dtype = _stats.result_dtype("mad", x.dtype)
    if undefined is None:
        out = shape.each(mad_block, values, dtype=dtype, scale=scale)
    else:
        out = shape.each(mad_block, values, undefined, dtype=dtype, scale=scale)
    cm = shape.center_missing(cmiss)
    if cm is not None:
        miss = cm if miss is None else (miss | cm)
    return out, miss


def _ratio(shape: Shape, of: str, x: Any, **params: Any) -> Any:
    values, miss = shape.stat(of, x, **params)
    dtype = np.dtype(values.dtype)
    return shape.each(ratio_block, values, shape.count(x), dtype=dtype), miss


_RECIPES: dict[str, Callable[..., tuple[Any, Any]]] = {
    "difference": _difference, "deviation": _deviation, "ratio": _ratio}


def iqr_block(v: np.ndarray) -> np.ndarray:
    """Upper minus lower quantile (the leading axis) of one block."""
    return np.asarray(difference(v[1, ...], v[0, ...]))


def mad_block(values: np.ndarray, undefined: np.ndarray | None = None, *,
              scale: Any) -> np.ndarray:
    """Undefined outputs the canonical NaN (float NaN for objects), then the scale."""
    if undefined is not None and np.any(undefined):
        nan = float("nan") if values.dtype.kind == "O" else canonical_nan(values.dtype)
        values = np.where(undefined, nan, values)
    return np.asarray(divide_by_scale(values, scale))  # a 0-d block stays an array


def ratio_block(values: np.ndarray, count: np.ndarray) -> np.ndarray:
    """``values / sqrt(count)`` in the values' dtype (objects: float of the count)."""
    if values.dtype.kind == "O":
        return np.asarray(values / np.sqrt(np.asarray(count, dtype=np.float64)))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.asarray(values / np.sqrt(count).astype(values.dtype))
