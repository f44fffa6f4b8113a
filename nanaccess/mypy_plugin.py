"""A mypy plugin that gives ``obj.nanstats`` its real accessor type.

pandas and xarray register accessors at run time, so a type checker sees
``df.nanstats`` through the host's ``__getattr__`` (pandas-stubs: a column, a
``Series``; xarray: ``Any``). Enable the plugin and mypy types the accessor as the
class nanaccess registers, so a misspelt statistic or a wrong ``nan_policy`` is an
error before the code runs::

    # pyproject.toml
    [tool.mypy]
    plugins = ["nanaccess.mypy_plugin"]

Covered: pandas ``Series``, ``DataFrame``, their GroupBy, ``Resampler``, rolling /
expanding and ``ewm`` objects, and xarray ``DataArray`` / ``Dataset``. The hook only
runs where the host class answers unknown attributes with ``__getattr__``, which
xarray's GroupBy, rolling and coarsen classes do not: there mypy reports an unknown
attribute (``# type: ignore[attr-defined]``, or use :func:`nanaccess.nanstats`, which
every checker and IDE understands). Editors that do not run mypy plugins (Pyright,
Pylance) get the same types from :func:`nanaccess.nanstats`.
"""

from __future__ import annotations

from collections.abc import Callable

from mypy.lookup import lookup_fully_qualified
from mypy.nodes import Import, ImportAll, ImportFrom, MypyFile, TypeInfo
from mypy.plugin import AttributeContext, Plugin
from mypy.types import Instance, Type, get_proper_type
from mypy.typevars import fill_typevars_with_any

__all__ = ["ACCESSORS", "plugin"]

# host class (found in the instance's MRO, most specific first) -> the accessor class
# nanaccess registers on it; ewm before rolling: pandas' EWM derives from BaseWindow
ACCESSORS: dict[str, str] = {
    "pandas.core.series.Series": "nanaccess.pandas.series.SeriesNanStats",
    "pandas.core.frame.DataFrame": "nanaccess.pandas.frame.DataFrameNanStats",
    "pandas.core.groupby.groupby.GroupBy": "nanaccess.pandas.groupby.NanGroupBy",
    "pandas.core.resample.Resampler": "nanaccess.pandas.groupby.NanGroupBy",
    "pandas.core.window.ewm.ExponentialMovingWindow": "nanaccess.pandas.ewm.NanEwm",
    "pandas.core.window.rolling.BaseWindow": "nanaccess.pandas.window.NanWindow",
    "xarray.core.dataarray.DataArray": "nanaccess.xarray.accessor.DataArrayNanStats",
    "xarray.core.dataset.Dataset": "nanaccess.xarray.accessor.DatasetNanStats",
}
_MODULES = sorted({name.rsplit(".", 1)[0] for name in ACCESSORS.values()})


def _imports_nanaccess(file: MypyFile) -> bool:
    for node in file.imports:
        if isinstance(node, Import):
            names = [name for name, _ in node.ids]
        elif isinstance(node, (ImportFrom, ImportAll)):
            names = [node.id]
        else:  # pragma: no cover - mypy has no other import node
            continue
        if any(name == "nanaccess" or name.startswith("nanaccess.") for name in names):
            return True
    return False


def _accessor_type(ctx: AttributeContext) -> Type:
    host = get_proper_type(ctx.type)
    if not isinstance(host, Instance):
        return ctx.default_attr_type
    for info in host.type.mro:
        accessor = ACCESSORS.get(info.fullname)
        if accessor is not None:
            # by full name: the accessor modules are not attributes of the nanaccess
            # package (they are imported lazily), so the checker's own lookup misses them
            modules = getattr(ctx.api, "modules", None)  # the TypeChecker's module table
            if modules is None:
                return ctx.default_attr_type
            symbol = lookup_fully_qualified(accessor, modules)
            if symbol is None or not isinstance(symbol.node, TypeInfo):
                return ctx.default_attr_type  # module not in this build
            return fill_typevars_with_any(symbol.node)
    return ctx.default_attr_type


class NanaccessPlugin(Plugin):
    """Types ``.nanstats`` on pandas and xarray objects (see the module docstring)."""

    def get_additional_deps(self, file: MypyFile) -> list[tuple[int, str, int]]:
        # the accessor modules are imported lazily at run time (xarray's after xarray
        # itself); mypy must analyse them wherever a module imports nanaccess
        if file.fullname.startswith("nanaccess") or not _imports_nanaccess(file):
            return []
        return [(10, module, -1) for module in _MODULES]

    def get_attribute_hook(
        self, fullname: str
    ) -> Callable[[AttributeContext], Type] | None:
        if fullname.endswith(".nanstats"):
            return _accessor_type
        return None


def plugin(version: str) -> type[Plugin]:
    """Entry point mypy calls (``plugins = ["nanaccess.mypy_plugin"]``)."""
    return NanaccessPlugin
