"""The polars host: ``.nanstats`` on ``pl.Series``, ``pl.DataFrame``, ``pl.LazyFrame``
and ``pl.Expr`` (optional: ``pip install "nanaccess[polars]"``).

:func:`register` adds the namespaces through polars' own ``register_*_namespace``;
``import nanaccess`` calls it once polars is imported (before or after nanaccess).
The namespaces registered are small factories: the adapter itself
(:mod:`.accessor`) is imported on the first ``.nanstats``, so importing polars stays
as fast as before. null is missing and NaN is NaN, as polars stores them; see
``docs/polars.md``.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["register"]

_REGISTERED = False


def _factory(name: str) -> type[Any]:
    """A namespace class whose construction builds ``accessor.<name>``."""

    def __new__(cls: type[Any], obj: Any) -> Any:
        return getattr(importlib.import_module("nanaccess.polars.accessor"), name)(obj)

    return type(name, (), {"__new__": __new__, "__doc__": f"Factory of {name}."})


def register() -> None:
    """Register the ``nanstats`` namespaces on polars (idempotent).

    Examples
    --------
    >>> import polars as pl
    >>> from nanaccess.polars import register
    >>> register()
    >>> pl.Series([1.0, float("nan"), 3.0]).nanstats.max(nan_policy="omit")
    np.float64(3.0)
    """
    global _REGISTERED
    if _REGISTERED:
        return
    import polars as pl

    pl.api.register_series_namespace("nanstats")(_factory("SeriesNanStats"))
    pl.api.register_dataframe_namespace("nanstats")(_factory("DataFrameNanStats"))
    pl.api.register_lazyframe_namespace("nanstats")(_factory("LazyFrameNanStats"))
    pl.api.register_expr_namespace("nanstats")(_factory("ExprNanStats"))
    _REGISTERED = True
