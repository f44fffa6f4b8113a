"""Long dotted names (``pandas.api.typing.DataFrameGroupBy.nanstats.nan_report``) wrap
after a dot, never inside a word.

Browsers find no line-break opportunity in a dotted name, so furo's ``overflow-wrap``
cuts it wherever the line ends ("DataFrameGro / upBy"). A ``<wbr>`` after each dot
that joins two names gives the break points; it is not text, so a copied name stays
whole. Applied to the page title, the sidebar, the previous/next links and the API
tables, after furo has built its navigation tree.
"""

from __future__ import annotations

import re

_DOT = re.compile(r"(?<=[\w)])\.(?=[A-Za-z_])")
_TAG_OR_TEXT = re.compile(r"(<[^>]*>)|([^<]+)")
_TITLE = re.compile(r"(<h1>)(.*?)(</h1>)", re.S)
_LINK_TEXT = re.compile(r'(<a class="reference internal"[^>]*>)(.*?)(</a>)', re.S)


def break_dots(html: str) -> str:
    """``html`` with ``<wbr>`` after every dot between two names, in text only.

    >>> break_dots('<span class="pre">pandas.Series</span> v1.5 a.b')
    '<span class="pre">pandas.<wbr>Series</span> v1.5 a.<wbr>b'
    >>> break_dots('<a href="x.html">x</a>')
    '<a href="x.html">x</a>'
    """
    return "".join(
        tag if tag else _DOT.sub(".<wbr>", text) for tag, text in _TAG_OR_TEXT.findall(html)
    )


def _inside(pattern: re.Pattern[str], html: str) -> str:
    return pattern.sub(lambda m: m.group(1) + break_dots(m.group(2)) + m.group(3), html)


def add_breaks(app, pagename, templatename, context, doctree) -> None:  # noqa: ANN001
    """``html-page-context`` handler (run after furo's, which builds the sidebar)."""
    if "body" in context:
        context["body"] = _inside(_TITLE, context["body"])
        if pagename == "api":
            context["body"] = _inside(_LINK_TEXT, context["body"])
    if "furo_navigation_tree" in context:
        context["furo_navigation_tree"] = _inside(_LINK_TEXT, context["furo_navigation_tree"])
    for key in ("prev", "next"):
        rel = context.get(key)
        if rel and rel.get("title"):
            context[key] = {**rel, "title": break_dots(rel["title"])}
