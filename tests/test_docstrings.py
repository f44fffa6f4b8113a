"""Every public name and accessor method has a numpydoc docstring with a runnable example.

"Runnable" is checked the way ``pytest --doctest-modules`` sees it: the example must
be collected by :class:`doctest.DocTestFinder` from the module that defines the
object (a docstring that doctest cannot reach from its module is never run). The
examples themselves run in the same test session, collected from ``nanaccess/``.
"""

from __future__ import annotations

import doctest
import functools
import importlib
import inspect
import types
from collections.abc import Iterator
from typing import Any

import pandas as pd
import pytest
import xarray as xr
from numpydoc.docscrape import NumpyDocString

import nanaccess

# ---------------------------------------------------------------------------------------
# what is public


def _public_members(cls: type) -> Iterator[tuple[str, Any]]:
    """Public methods and properties a user reaches on instances of ``cls``."""
    seen = set()
    for klass in cls.__mro__:
        if klass is object or klass.__module__.split(".")[0] != "nanaccess":
            continue
        for name, value in vars(klass).items():
            if name.startswith("_") or name in seen:
                continue
            seen.add(name)
            if isinstance(value, staticmethod | classmethod):
                value = value.__func__
            if inspect.isfunction(value) or isinstance(value, property | functools.partial):
                yield name, value


def _walk_public(prefix: str, obj: Any, depth: int = 0) -> Iterator[tuple[str, Any]]:
    if depth > 2:
        return
    if isinstance(obj, types.ModuleType):
        names = getattr(obj, "__all__", None) or [
            n
            for n, v in vars(obj).items()
            if not n.startswith("_") and getattr(v, "__module__", None) == obj.__name__
        ]
        for n in names:
            yield from _walk_public(f"{prefix}.{n}", getattr(obj, n), depth + 1)
    elif inspect.isclass(obj) or inspect.isroutine(obj):
        yield prefix, obj
    elif not isinstance(obj, str | bytes | int | float | tuple | list | dict | frozenset | set):
        # a namespace object (e.g. ``na.agg``): its public methods
        for n, member in _public_members(type(obj)):
            yield f"{prefix}.{n}", member


def public_objects() -> list[tuple[str, Any]]:
    out = []
    for name in nanaccess.__all__:
        out.extend(_walk_public(f"nanaccess.{name}", getattr(nanaccess, name)))
    return out


def accessor_classes() -> dict[str, type]:
    """The classes behind every ``.nanstats`` a user can reach."""
    found: dict[str, type] = {}

    def add(label: str, host: Any) -> None:
        acc = getattr(host, "nanstats", None)
        if acc is None:
            return
        found[label] = acc if inspect.isclass(acc) else type(acc)

    add("Series.nanstats", pd.Series)
    add("DataFrame.nanstats", pd.DataFrame)
    add("DataArray.nanstats", xr.DataArray)
    add("Dataset.nanstats", xr.Dataset)
    add("DataFrameGroupBy.nanstats", pd.api.typing.DataFrameGroupBy)
    add("SeriesGroupBy.nanstats", pd.api.typing.SeriesGroupBy)
    try:
        import dask.dataframe as dd
    except ImportError:  # pragma: no cover
        pass
    else:
        add("dask DataFrame.nanstats", dd.DataFrame)
        add("dask Series.nanstats", dd.Series)
    # objects returned by accessor methods (df.nanstats.groupby(...), da.nanstats.groupby)
    df = pd.DataFrame({"g": ["a", "b"], "v": [1.0, 2.0]})
    if hasattr(df.nanstats, "groupby"):
        found["DataFrame.nanstats.groupby()"] = type(df.nanstats.groupby("g"))
    da = xr.DataArray(
        [1.0, 2.0], dims="time", coords={"time": pd.date_range("2024-01-01", periods=2)}
    )
    if hasattr(da.nanstats, "groupby"):
        found["DataArray.nanstats.groupby()"] = type(da.nanstats.groupby("time.month"))
    if hasattr(da.nanstats, "resample"):
        found["DataArray.nanstats.resample()"] = type(da.nanstats.resample(time="1D"))
    return found


def accessor_methods() -> list[tuple[str, Any]]:
    out = []
    for label, cls in accessor_classes().items():
        for name, member in _public_members(cls):
            out.append((f"{label}.{name}", member))
    return out


# ---------------------------------------------------------------------------------------
# checks


@functools.cache
def _doctests_of(module_name: str) -> dict[str, int]:
    module = importlib.import_module(module_name)
    finder = doctest.DocTestFinder()
    return {t.name: len(t.examples) for t in finder.find(module, module_name)}


def _target(obj: Any) -> Any:
    if isinstance(obj, property):
        return obj.fget
    if isinstance(obj, functools.partial):
        return obj.func
    return obj


def check_docstring(label: str, obj: Any) -> None:
    target = _target(obj)
    doc = inspect.getdoc(target)
    assert doc and doc.strip(), f"{label} has no docstring"
    if isinstance(obj, property):
        return  # properties: a docstring suffices
    parsed = NumpyDocString(doc)
    summary = " ".join(parsed["Summary"]).strip()
    assert summary, f"{label}: the docstring has no one-line summary"
    examples = "\n".join(parsed["Examples"])
    assert ">>>" in examples, f"{label}: the docstring has no 'Examples' section with >>> lines"
    module = getattr(inspect.unwrap(target), "__module__", None)
    qualname = getattr(inspect.unwrap(target), "__qualname__", None)
    assert module and module.startswith("nanaccess"), f"{label} is defined outside nanaccess"
    collected = _doctests_of(module)
    name = f"{module}.{qualname}"
    assert collected.get(name, 0) > 0, (
        f"{label}: doctest does not collect the example from {module} (looked for {name}); "
        "--doctest-modules would never run it"
    )


PUBLIC = public_objects()
ACCESSORS = accessor_methods()


def test_public_api_is_not_empty():
    names = set(nanaccess.__all__)
    for required in ("median", "quantile", "nan_report", "set_options", "NaNError", "NanPolicy"):
        assert required in names, f"nanaccess.__all__ lacks {required!r} (see spec/api.md)"
    assert len(PUBLIC) >= 20


def test_every_host_has_an_accessor():
    labels = set(accessor_classes())
    for required in (
        "Series.nanstats",
        "DataFrame.nanstats",
        "DataArray.nanstats",
        "Dataset.nanstats",
        "DataFrameGroupBy.nanstats",
    ):
        assert required in labels, f"no {required} accessor registered by `import nanaccess`"
    for label in ("Series.nanstats", "DataFrame.nanstats", "DataArray.nanstats"):
        methods = {name for name, _ in _public_members(accessor_classes()[label])}
        missing = {"median", "quantile", "min", "max", "mean", "nan_report", "plot_nan_map"}
        assert not (missing - methods), f"{label} lacks {sorted(missing - methods)}"


@pytest.mark.parametrize(("label", "obj"), PUBLIC, ids=[label for label, _ in PUBLIC])
def test_public_name_has_numpydoc_example(label: str, obj: Any):
    check_docstring(label, obj)


@pytest.mark.parametrize(("label", "obj"), ACCESSORS, ids=[label for label, _ in ACCESSORS])
def test_accessor_method_has_numpydoc_example(label: str, obj: Any):
    check_docstring(label, obj)


def test_the_check_catches_a_missing_example():
    def undocumented_example(x):
        """Do something.

        Parameters
        ----------
        x : int
        """

    with pytest.raises(AssertionError, match="no 'Examples' section"):
        check_docstring("undocumented_example", undocumented_example)
    with pytest.raises(AssertionError, match="no docstring"):
        check_docstring("nothing", lambda: None)


#: hosts whose every method documents every parameter (the xarray hosts and the
#: plain functions are checked by their own modules' tests)
_PARAMETER_HOSTS = ("Series.", "DataFrame.", "DataFrameGroupBy.", "SeriesGroupBy.", "dask ")
PANDAS_DASK = [(label, obj) for label, obj in ACCESSORS if label.startswith(_PARAMETER_HOSTS)]


@pytest.mark.parametrize(("label", "obj"), PANDAS_DASK, ids=[label for label, _ in PANDAS_DASK])
def test_pandas_and_dask_methods_document_every_parameter(label: str, obj: Any):
    target = _target(obj)
    if isinstance(obj, property):
        return
    params = {
        ("**" + n if p.kind is p.VAR_KEYWORD else n)
        for n, p in inspect.signature(target).parameters.items() if n != "self"
    }
    documented = {p.name for p in NumpyDocString(inspect.getdoc(target))["Parameters"]}
    assert params <= documented, f"{label}: parameters without a description {params - documented}"
