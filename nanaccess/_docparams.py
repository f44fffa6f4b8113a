"""Parameters and Returns of the plain statistic functions (:mod:`nanaccess.api`),
written from their signatures and the table of statistics (:mod:`nanaccess._stats`),
so a parameter's text lives once: the statistic's own keywords (``q``, ``method``,
``ddof``, ``weights``...) read the table, the common ones (``data``, ``axis``,
``nan_policy``, ``keepdims``) read :data:`COMMON`. A docstring that writes its own
Parameters section keeps it.
"""

from __future__ import annotations

import inspect
import textwrap
from collections.abc import Callable
from typing import Any

from . import _stats

__all__ = ["COMMON", "add_sections"]

_POLICIES = '{"raise", "propagate", "omit", "smallest", "largest", "totalorder"}, optional'

#: name -> (numpydoc type line, description) of the keywords every statistic shares
COMMON: dict[str, tuple[str, str]] = {
    "data": ("iterable or array_like",
             "A list/iterable (any Python numbers: floats, ints of any size, Fraction, "
             "Decimal), a NumPy (or masked) array, a pandas/xarray object (delegates to "
             "its ``.nanstats`` accessor) or a dask array (lazy, exact)."),
    "axis": ("None, int or tuple of ints, optional",
             "Axes to reduce (arrays only). None reduces all."),
    "nan_policy": (_POLICIES,
                   "What NaNs mean (see :doc:`/semantics`); None uses "
                   '``nanaccess.get_options()["nan_policy"]`` (initially "raise").'),
    "keepdims": ("bool, default False",
                 "Keep reduced axes with length one (arrays only)."),
}

_RETURNS = {
    "order": ("scalar or ndarray",
              "The statistic: for iterables a Python number of the type :mod:`statistics` "
              "gives on NaN-free data; a NumPy scalar "
              "for a full reduction of an array, else an array of the kept axes (a "
              "sequence ``q`` first). A picked element keeps its dtype and bits."),
    "arg": ("int or ndarray of int",
            "Position(s) along ``axis`` (flat position for ``axis=None``) of the first "
            "extreme element under the policy's order."),
    "moment": ("scalar or ndarray",
               "Computed from exact sums and rounded once, so the result is the same for "
               "every order of the data; float inputs keep their float dtype."),
    "count": ("int or ndarray of int", "How many values the policy keeps."),
    "spread": ("scalar or ndarray",
               "The spread (float), with the NaN rules of :doc:`/semantics`."),
}


def _entry(name: str, type_line: str, doc: str) -> list[str]:
    return [f"{name} : {type_line}",
            *textwrap.wrap(doc, 84, initial_indent="    ", subsequent_indent="    ")]


def add_sections(fn: Callable[..., Any]) -> None:
    """Insert Parameters and Returns into ``fn.__doc__`` (before Raises or Examples)
    unless it has them; ``fn.__name__`` names the statistic."""
    doc = inspect.cleandoc(fn.__doc__ or "")
    if "\nParameters\n" in doc or fn.__name__ not in _stats.STATISTICS:
        return
    stat = _stats.get(fn.__name__)
    own = {p.name: p for p in (*stat.params, *stat.weight_params)}
    lines = ["Parameters", "----------"]
    for name in inspect.signature(fn).parameters:
        if name in own:
            lines += _entry(name, own[name].type, own[name].doc)
        elif name in COMMON:
            lines += _entry(name, *COMMON[name])
    kind, desc = _RETURNS[stat.family]
    lines += ["", "Returns", "-------", kind,
              *textwrap.wrap(desc, 84, initial_indent="    ", subsequent_indent="    ")]
    block = "\n".join(lines) + "\n\n"
    for head in ("Raises\n------", "Examples\n--------"):
        at = doc.find(head)
        if at >= 0:
            fn.__doc__ = doc[:at] + block + doc[at:]
            return
    fn.__doc__ = doc + "\n\n" + block
