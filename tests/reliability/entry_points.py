"""The public entry points of nanaccess, generated from the package itself.

Nothing here is a hand-kept list of statistics: the plain functions come from
``nanaccess.__all__`` (every function whose first parameter takes the data), and the
accessor methods from the classes actually registered on the hosts, found through
``type(pd.Series([1.0]).nanstats)`` and friends. A method added to any accessor, or a
function added to ``__all__``, becomes a row of the matrix without touching this file.

``FAMILIES`` only sorts names into families so that the matrix knows which reference
to use; a name it does not know lands in the ``"unknown"`` family, which still gets
the generic checks (documented exception types only, input never modified).
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import pandas as pd
import xarray as xr

import nanaccess as na
from nanaccess import _stats

# host name -> human description (the order is the order of the matrix report)
HOSTS = {
    "function": "nanaccess.<name>(data) with ndarray / list / pandas data",
    "series": "pd.Series.nanstats",
    "frame": "pd.DataFrame.nanstats",
    "sgroupby": "pd.Series.groupby(...).nanstats",
    "dfgroupby": "pd.DataFrame.groupby(...).nanstats",
    "agg": "pd.DataFrame.groupby(...)[col].agg(nanaccess.agg.<name>(...))",
    "dataarray": "xr.DataArray.nanstats",
    "dataset": "xr.Dataset.nanstats",
    "xgroupby": "xr.DataArray.nanstats.groupby(...)",
}
GROUPED_HOSTS = frozenset({"sgroupby", "dfgroupby", "agg", "xgroupby"})
PANDAS_HOSTS = frozenset({"series", "frame", "sgroupby", "dfgroupby", "agg"})
XARRAY_HOSTS = frozenset({"dataarray", "dataset", "xgroupby"})

# the statistics come from the package's own table (nanaccess/_stats.py): a statistic
# added there lands in its family here without touching this file
FAMILIES = {
    "order": set(_stats.ORDER),
    "arg": set(_stats.ARG) | {"idxmin", "idxmax"},
    "quantiles": {"quantiles"},
    "moment": set(_stats.MOMENT),
    "count": set(_stats.names("count")),
    "spread": set(_stats.SPREAD),
    "sort": {"sort", "argsort", "sort_values", "rank"},
    "report": {"nan_report", "describe"},
    "classify": {"isnan", "issignaling", "nan_payload", "totalorder_key"},
    # methods that return another object (a grouping) or draw: no statistic to check
    # (agg / aggregate / transform need a func: what they compute is the named
    # statistics, checked there; corr / cov / corrwith need a second variable: their
    # own matrix is tests/*/test_*corr*)
    # (the running statistics give one value per row, not per group: their own tests
    # are tests/core/test_cumulative.py, test_ewm.py and tests/pandas/test_higher_hosts.py)
    "object": {"groupby", "resample", "plot_nan_map", "agg", "aggregate", "transform",
               "corr", "cov", "corrwith", "cumsum", "cumprod", "cummax", "cummin",
               "cumcount", "ewm"},
}
# the functions in __all__ that are not statistics of data (configuration, constructors)
NOT_STATISTICS = {"get_options", "set_options", "option_context", "make_nan"}


def family_of(name: str) -> str:
    for fam, names in FAMILIES.items():
        if name in names:
            return fam
    return "unknown"


@dataclass(frozen=True)
class EntryPoint:
    host: str
    name: str
    params: tuple[str, ...] = field(compare=False)

    @property
    def family(self) -> str:
        return family_of(self.name)

    @property
    def id(self) -> str:
        return f"{self.host}.{self.name}"

    def takes(self, param: str) -> bool:
        return param in self.params


def _params(fn: Any) -> tuple[str, ...]:
    try:
        return tuple(inspect.signature(fn).parameters)
    except (TypeError, ValueError):  # pragma: no cover - builtins
        return ()


def _public_methods(cls: type) -> list[tuple[str, tuple[str, ...]]]:
    out = []
    for name in sorted(dir(cls)):
        if name.startswith("_"):
            continue
        attr = inspect.getattr_static(cls, name)
        if isinstance(attr, staticmethod | classmethod):
            attr = attr.__func__
        if not callable(attr) or isinstance(attr, type):
            continue
        params = _params(attr)
        out.append((name, params[1:] if params and params[0] == "self" else params))
    return out


def accessor_classes() -> dict[str, type]:
    """host -> the accessor class pandas / xarray actually hand out."""
    s = pd.Series([1.0, 2.0], name="x")
    df = pd.DataFrame({"x": [1.0, 2.0], "g": ["a", "b"]})
    da = xr.DataArray([1.0, 2.0], dims="t", coords={"g": ("t", ["a", "b"])}, name="x")
    return {
        "series": type(s.nanstats),
        "frame": type(df.nanstats),
        "sgroupby": type(s.groupby([0, 1]).nanstats),
        "dfgroupby": type(df.groupby("g").nanstats),
        "dataarray": type(da.nanstats),
        "dataset": type(da.to_dataset().nanstats),
        "xgroupby": type(da.nanstats.groupby("g")),
    }


def _function_entry_points() -> list[EntryPoint]:
    out = []
    for name in na.__all__:
        if name in NOT_STATISTICS or name.startswith("__"):
            continue
        obj = getattr(na, name)
        if not inspect.isfunction(obj):
            continue  # classes (NaNError, NanPolicy), modules (agg), strings
        params = _params(obj)
        if not params or params[0] not in ("data", "x", "array", "values"):
            continue
        out.append(EntryPoint("function", name, params))
    return out


def _agg_entry_points() -> list[EntryPoint]:
    agg = na.agg
    names = getattr(agg, "__all__", [n for n in dir(agg) if not n.startswith("_")])
    out = []
    for name in names:
        obj = getattr(agg, name, None)
        if inspect.isfunction(obj) and getattr(obj, "__module__", "") == agg.__name__:
            out.append(EntryPoint("agg", name, _params(obj)))
    return out


@cache
def entry_points() -> tuple[EntryPoint, ...]:
    """Every public entry point, in a stable order (host order, then name)."""
    eps = _function_entry_points()
    classes = accessor_classes()
    for host in HOSTS:
        if host in classes:
            eps += [EntryPoint(host, n, p) for n, p in _public_methods(classes[host])]
        elif host == "agg":
            eps += _agg_entry_points()
    return tuple(eps)


def call(ep: EntryPoint, obj: Any, **kw: Any) -> Any:
    """Call ``ep`` on the host object ``obj`` (already built for ``ep.host``).

    ``kw`` may hold ``nan_policy``, ``q``, ``method``, ``ddof``, ``n``, ``percentiles``;
    keys the entry point does not accept are dropped (so one call shape fits all).
    """
    kw = {k: v for k, v in kw.items() if ep.takes(k)}
    if ep.name in ("quantile",) and "q" not in kw and ep.takes("q"):
        kw["q"] = 0.5
    if ep.host == "dataset" and ep.name == "sortby":
        kw["variables"] = next(iter(obj.data_vars))  # a Dataset sorts by one of its variables
    if ep.host == "function":
        return getattr(na, ep.name)(obj, **kw)
    if ep.host == "agg":
        # obj is a SeriesGroupBy; pandas hands each group's Series to the callable
        return obj.agg(getattr(na.agg, ep.name)(**kw))
    if ep.host == "xgroupby":
        return getattr(obj, ep.name)(**kw)  # obj is what da.nanstats.groupby(...) returned
    return getattr(obj.nanstats, ep.name)(**kw)
