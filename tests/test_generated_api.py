"""The generated accessor methods (tools/generate_api.py) match the committed files."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import pandas as pd
import pytest

import nanaccess  # noqa: F401  (registers the accessors)
from nanaccess import _stats
from nanaccess.options import NanPolicy

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import generate_api  # noqa: E402
from apigen import render  # noqa: E402


def test_regenerating_changes_nothing(capsys):
    stale = generate_api.check(render.discover_hosts())
    assert not stale, (
        f"stale generated files {stale}: run `python tools/generate_api.py`\n"
        + capsys.readouterr().err[-4000:]
    )


def test_the_check_notices_a_change():
    agg = next(s for s in render.discover_hosts() if s.key == "pandas.agg")
    changed = dataclasses.replace(agg, title="Something else.")
    assert generate_api.check([changed]) == ["nanaccess/pandas/_generated_agg.py"]


def test_policies_of_the_templates_are_the_options():
    assert render.POLICIES == tuple(p.value for p in NanPolicy)


def test_table_statistics_on_every_pandas_host():
    from nanaccess.pandas import DataFrameNanStats, NanGroupBy, SeriesNanStats, agg

    for name in _stats.STATISTICS:
        assert callable(getattr(SeriesNanStats, name)), name
        assert callable(getattr(DataFrameNanStats, name)), name
    for name in _stats.GROUPED:
        assert callable(getattr(NanGroupBy, name)), name
        assert callable(getattr(agg, name)), name
        assert name in agg.__all__


def test_generated_methods_document_every_parameter():
    import inspect

    from numpydoc.docscrape import NumpyDocString

    from nanaccess.pandas import DataFrameNanStats, SeriesNanStats

    for cls in (SeriesNanStats, DataFrameNanStats):
        for name in _stats.STATISTICS:
            method = getattr(cls, name)
            doc = NumpyDocString(inspect.getdoc(method))
            documented = {p.name for p in doc["Parameters"]}
            params = set(inspect.signature(method).parameters) - {"self"}
            assert params == documented, (cls.__name__, name)
            assert doc["Returns"], (cls.__name__, name)


def test_ddof_default_follows_the_host():
    import inspect

    from nanaccess.pandas import SeriesNanStats

    assert inspect.signature(SeriesNanStats.var).parameters["ddof"].default == 1
    assert _stats.get("var").params[0].default == 0  # NumPy / xarray hosts


@pytest.mark.parametrize("key", ["pandas.Series", "pandas.DataFrame", "pandas.GroupBy"])
def test_docs_list_every_generated_method(key):
    spec = next(s for s in render.discover_hosts() if s.key == key)
    text = (ROOT / "docs" / "api.rst").read_text()
    for line in render.render_docs_list(spec):
        assert line in text.splitlines(), line


def test_generated_signature_keeps_pandas_positional_order():
    df = pd.DataFrame({"a": [1.0, 3.0, 2.0]})
    # (axis, ddof, numeric_only) positionally, as before the generator
    assert df.nanstats.var(0, 0).tolist() == df.var(axis=0, ddof=0).tolist()
    assert df.nanstats.quantile(0.5, 0).tolist() == df.quantile(0.5, 0).tolist()


def test_hosts_selection_keeps_whole_modules():
    specs = render.discover_hosts()
    chosen = generate_api.select(specs, ["pandas.Series"])
    # the DataFrame and GroupBy mixins share the Series' module: all are rendered
    assert {s.key for s in chosen} == {"pandas.Series", "pandas.DataFrame", "pandas.GroupBy"}
    assert generate_api.select(specs, None) == specs


def test_weights_only_on_weighted_statistics_of_hosts_that_take_them():
    """``HostSpec.weights``: the weighted statistics get ``weights=`` there and only
    there (windows, dask and grouped xarray never show it)."""
    specs = render.discover_hosts()
    assert {s.key for s in specs if s.weights} == {
        "pandas.Series", "pandas.DataFrame", "pandas.GroupBy", "pandas.agg",
        "xarray.DataArray", "xarray.Dataset"}
    for spec in specs:
        for stat in spec.stats():
            pos, kw = render.signature(spec, stat)
            has = "weights" in {a.name for a in pos + kw}
            assert has == (spec.weights and stat.weighted), (spec.key, stat.name)


def test_weights_documented_with_the_policy():
    import inspect

    from nanaccess.pandas import SeriesNanStats

    doc = inspect.getdoc(SeriesNanStats.median)
    assert "weights : array_like, optional" in doc
    assert "Frequency weights" in doc and '"omit"' in doc
    assert "weights" not in inspect.signature(SeriesNanStats.min).parameters
