"""Every generated API page (``docs/generated/*``, autosummary) reads as a reference page.

Uses the one docs build of the suite (the ``docs_build`` fixture): no second build. Each
page of a callable must show Parameters (when the callable takes any), Returns (or
Yields; for a class, the page of a class that is not an exception documents what it
holds, an exception documents nothing it returns) and an Examples section. The plain
statistic functions compose Parameters and Returns from the table
(:mod:`nanaccess._docparams`); the generated accessors from their templates.
"""

from __future__ import annotations

import importlib
import inspect
import re
from html import unescape
from pathlib import Path

import pytest

import nanaccess  # noqa: F401  (registers the accessors the pages document)

docs = pytest.mark.xdist_group("docs")

ROOT = Path(__file__).resolve().parents[1]

def _sections(html: str) -> set[str]:
    """Section names on a numpydoc page: field-list heads and rubrics."""
    heads = re.findall(r'<dt class="field-(?:odd|even)">([A-Za-z ]+)<span', html)
    rubrics = re.findall(r'<p class="rubric">([A-Za-z ]+)</p>', html)
    return {h.strip() for h in heads + rubrics}


def _resolve(name: str):
    """The Python object an autosummary page name documents."""
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            obj = getattr(obj, attr)
        return obj
    raise LookupError(name)


def _takes_parameters(obj) -> bool:
    target = obj.__init__ if inspect.isclass(obj) else obj
    try:
        sig = inspect.signature(target)
    except (TypeError, ValueError):
        return True
    return any(p.name not in ("self", "cls") for p in sig.parameters.values())


def required_sections(obj) -> set[str]:
    """Parameters (if it takes any), Returns, Examples; classes: Parameters, Examples."""
    if not callable(obj):  # a constant or attribute page: its description is the page
        return set()
    if inspect.isclass(obj):
        if issubclass(obj, BaseException):
            return {"Examples"}
        return {"Examples"} | ({"Parameters"} if _takes_parameters(obj) else set())
    need = {"Returns", "Examples"}
    if _takes_parameters(obj):
        need.add("Parameters")
    return need


def missing_sections(html_dir: Path) -> dict[str, set[str]]:
    """Page name -> required sections absent from its built page."""
    out = {}
    for page in sorted((html_dir / "generated").glob("*.html")):
        name = page.stem
        obj = _resolve(name)
        have = _sections(unescape(page.read_text(encoding="utf-8")))
        if "Yields" in have:
            have.add("Returns")
        lacking = required_sections(obj) - have
        if lacking:
            out[name] = lacking
    return out


@docs
def test_every_api_page_has_parameters_returns_and_an_example(docs_build):
    assert docs_build.returncode == 0, docs_build.output[-3000:]
    pages = list((docs_build.html / "generated").glob("*.html"))
    assert len(pages) > 100, "autosummary wrote too few pages"
    lacking = missing_sections(docs_build.html)
    assert not lacking, f"API pages lacking sections: {lacking}"


def test_sections_are_read_from_numpydoc_html():
    html = (
        '<dl class="field-list simple"><dt class="field-odd">Parameters<span class="colon">:'
        '</span></dt><dt class="field-even">Returns<span class="colon">:</span></dt></dl>'
        '<p class="rubric">Examples</p>'
    )
    assert _sections(html) == {"Parameters", "Returns", "Examples"}
    assert _sections("<p>Parameters</p>") == set()


def test_required_sections():
    import pandas as pd

    assert required_sections(nanaccess.median) == {"Parameters", "Returns", "Examples"}
    assert required_sections(nanaccess.get_options) == {"Returns", "Examples"}
    assert required_sections(nanaccess.NaNError) == {"Examples"}
    assert _resolve("pandas.DataFrame.nanstats.median") is pd.DataFrame.nanstats.median
