"""Sphinx configuration for the nanaccess docs.

Build: ``python -m sphinx -W --keep-going -b html docs docs/_build/html`` (the test suite
does this in tests/test_docs.py, warnings as errors). myst-nb executes every notebook
(``notebooks/``, linked here as ``docs/notebooks``) and every MyST-NB page on each
build and fails the build on a cell error. The performance tables are written by
``gen_perf.py`` from ``benchmarks/results/*.json`` before the pages are read.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import sphinx_autosummary_accessors

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))
# Kernels started by myst-nb inherit this environment: without MPLBACKEND, ipykernel picks
# its inline backend and figures appear in the pages; with MPLBACKEND=Agg (as CI and the
# test suite set it) they would silently vanish.
os.environ.pop("MPLBACKEND", None)

from dotted_breaks import add_breaks  # noqa: E402
from gen_perf import write_tables  # noqa: E402

import nanaccess  # noqa: E402  (registers the .nanstats accessors for autosummary)

project = "nanaccess"
author = "nanaccess developers"
copyright = "nanaccess developers"  # noqa: A001
version = release = nanaccess.__version__ if hasattr(nanaccess, "__version__") else "0.1"

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "numpydoc",
    "myst_nb",
    "sphinx_autosummary_accessors",
]

templates_path = ["_templates", sphinx_autosummary_accessors.templates_path]
exclude_patterns = [
    "_build",
    "jupyter_execute",
    "dev",  # contributor notes, read on GitHub
    "**.ipynb_checkpoints",
    "generated/*.inc.md",
    ".gitignore",
]
source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}

# --- autodoc / autosummary / numpydoc --------------------------------------------------
autosummary_generate = True
autosummary_imported_members = True
autodoc_typehints = "none"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

# --- MyST / myst-nb --------------------------------------------------------------------
myst_enable_extensions = ["colon_fence", "dollarmath", "deflist"]
myst_heading_anchors = 3
nb_execution_mode = "force"  # run every notebook on every build: outputs never go stale
nb_execution_raise_on_error = True  # a failing cell fails the build
nb_execution_show_tb = True
nb_execution_timeout = 240
nb_merge_streams = True
nb_execution_allow_errors = False

# --- HTML ------------------------------------------------------------------------------
html_theme = "furo"
html_title = f"nanaccess {release}"
html_theme_options = {"navigation_with_keys": True}
html_static_path = ["_static"]
html_css_files = ["custom.css"]


def _generate(app) -> None:  # noqa: ANN001
    write_tables(
        ROOT / "benchmarks" / "results",
        HERE / "generated" / "perf_tables.inc.md",
    )


def setup(app) -> None:  # noqa: ANN001
    app.connect("builder-inited", _generate)
    # after furo (priority 500) has built the sidebar
    app.connect("html-page-context", add_breaks, priority=900)
