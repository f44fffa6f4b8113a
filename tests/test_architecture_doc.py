"""docs/dev/architecture.md stays true to the tree: every file it names exists, and
every package of nanaccess is named (a new package is drawn on the map)."""

from __future__ import annotations

import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "dev" / "architecture.md"
SEARCH = ("", "nanaccess", "nanaccess/core", "nanaccess/core/_numba", "docs", "tools/apigen")
#: names outside the repository (the shared spec) or made by setup (the venv)
OUTSIDE = ("../", ".venv/")


def _names() -> set[str]:
    """Backticked paths of the doc: ``a/b.py``, ``x.py``, ``pkg/`` (whole tokens)."""
    text = DOC.read_text()
    out = set()
    for tok in re.findall(r"`([^`\s]+)`", text):
        tok = tok.split("(")[0].rstrip(".,:")
        if tok.startswith(OUTSIDE):
            continue
        if re.fullmatch(r"[\w./-]+\.(py|md|rst|toml)|[\w./-]+/", tok):
            out.add(tok)
    return out


def _exists(name: str) -> bool:
    name = name.removeprefix("./")
    for base in SEARCH:
        if (ROOT / base / name).exists():
            return True
    # a bare module name of a package's table row (``window.py`` of pandas/)
    if "/" not in name.rstrip("/"):
        return any(ROOT.joinpath("nanaccess").rglob(name.rstrip("/")))
    return False


def test_every_named_file_exists():
    missing = sorted(n for n in _names() if not _exists(n))
    assert not missing, f"docs/dev/architecture.md names files that do not exist: {missing}"


def test_every_package_is_named():
    text = DOC.read_text()
    pkgs = sorted(str(p.parent.relative_to(ROOT / "nanaccess"))
                  for p in (ROOT / "nanaccess").rglob("__init__.py")
                  if p.parent != ROOT / "nanaccess")
    unnamed = [p for p in pkgs if f"{p}/" not in text]
    assert not unnamed, f"packages missing from docs/dev/architecture.md: {unnamed}"


def test_the_doc_names_files_at_all():
    """The checks above would pass on an empty page: the map names the core's rooms."""
    names = _names()
    assert {"core/compose.py", "core/iterable.py", "_hostkit.py"} <= {
        n.removeprefix("nanaccess/") for n in names}
    assert len(names) > 40
