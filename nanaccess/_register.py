"""Register the accessors on host libraries that ``import nanaccess`` does not import.

pandas is always there (nanaccess needs it), so its accessors are set on import. xarray
(about 0.1 s), dask (about 1 s) and polars are optional and slow to import: their
accessors are set by a post-import hook (:mod:`nanaccess._posthook`) the moment the
user imports ``xarray``, ``dask.dataframe`` or ``polars``, before or after nanaccess
(at once if the library is already imported). Nothing is imported before the user asks for it.

A failure while registering never breaks the user's own ``import xarray``: it becomes a
warning naming the library and the error.
"""

from __future__ import annotations

import importlib
import importlib.util
import warnings

from ._posthook import register_post_import_hook

__all__ = ["register_accessors_on_import", "register_xarray", "register_dask",
           "register_polars"]


def register_xarray(module: object = None) -> None:
    """Set ``.nanstats`` on xarray's DataArray, Dataset and their GroupBy / window objects."""
    _register("xarray", "nanaccess.xarray")


def register_dask(module: object = None) -> None:
    """Set ``.nanstats`` on dask DataFrames and Series."""
    _register("dask.dataframe", "nanaccess.dask")


def register_polars(module: object = None) -> None:
    """Set the ``nanstats`` namespaces on polars' Series, DataFrame, LazyFrame and Expr."""
    _register("polars", "nanaccess.polars", "register")


def _register(library: str, adapter: str, call: str | None = None) -> None:
    try:
        mod = importlib.import_module(adapter)
        if call is not None:
            getattr(mod, call)()
    except Exception as exc:  # never break the user's import of the host library
        warnings.warn(
            f"nanaccess could not register its {library} accessors ({type(exc).__name__}: "
            f"{exc}); {library} works, but without .nanstats",
            RuntimeWarning,
            stacklevel=2,
        )


def register_accessors_on_import() -> None:
    """Hook the optional hosts: each registers once it is imported (now if it is)."""
    if importlib.util.find_spec("xarray") is not None:
        register_post_import_hook(register_xarray, "xarray")
    if importlib.util.find_spec("dask") is not None:
        register_post_import_hook(register_dask, "dask.dataframe")
    if importlib.util.find_spec("polars") is not None:
        register_post_import_hook(register_polars, "polars")
