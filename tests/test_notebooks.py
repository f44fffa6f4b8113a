"""The notebooks in ``notebooks/``.

They are stored with their outputs (one Run All, so a reader on GitHub sees the
tables and figures), and executed again once per test run by the docs build (myst-nb
with ``nb_execution_mode = "force"`` and ``nb_execution_raise_on_error = True``, see
``docs/conf.py`` and the ``docs_build`` fixture): a cell that raises fails the build
and so these tests, and the site shows outputs of the code under test. The checks
below look at the executed pages, plus cheap static checks of the stored ``.ipynb``
files (outputs of one Run All, no error, the figures).
"""

from __future__ import annotations

import re
from html import unescape
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK_DIR = ROOT / "notebooks"
NOTEBOOKS = sorted(NOTEBOOK_DIR.glob("*.ipynb"))
EXPECTED = {"quickstart", "groupby", "nan_forensics", "xarray_dask"}
IDS = [p.stem for p in NOTEBOOKS]

docs = pytest.mark.xdist_group("docs")

# what each executed notebook must show (text found in its HTML outputs)
MUST_SHOW = {
    "quickstart": ["NaNError: column 'temp' holds 3 NaN values", "SignalingNaNError"],
    "groupby": ["NaNError", "station"],
    "nan_forensics": ["0xfff8000000000000", "sensor offline", "signaling_nan"],
    "xarray_dask": ["2 workers", "equal", "NaNError"],
}
# how many figures each must draw
MIN_IMAGES = {"quickstart": 1, "groupby": 2, "nan_forensics": 2, "xarray_dask": 2}


def test_the_four_notebooks_exist():
    assert {p.stem for p in NOTEBOOKS} == EXPECTED


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_notebook_source_is_clean(path: Path):
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    assert nb.metadata["kernelspec"]["name"] == "python3"
    assert nb.cells and nb.cells[0].cell_type == "markdown"
    assert nb.cells[0].source.startswith("# "), "first cell must be the notebook's title"
    code = [cell for cell in nb.cells if cell.cell_type == "code"]
    for cell in code:
        assert "raises-exception" not in cell.metadata.get("tags", []), (
            f"{path.name}: catch expected errors in the cell so Run All works"
        )
    # stored with the outputs of one Run All (readers on GitHub see them): every code
    # cell ran, in order, none failed, and the figures are there
    counts = [cell.execution_count for cell in code]
    assert counts == list(range(1, len(code) + 1)), (
        f"{path.name}: not stored from one Run All (execution counts {counts}); run "
        "python -m nbclient or jupyter execute --inplace on it")
    outputs = [o for cell in code for o in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"], f"{path.name}: an error"
    images = sum("image/png" in o.get("data", {}) for o in outputs)
    assert images >= MIN_IMAGES[path.stem], f"{path.name}: {images} stored figures"


@docs
@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_notebook_executed_in_docs_build(docs_build, path: Path):
    assert docs_build.returncode == 0, f"docs build failed:\n{docs_build.output[-4000:]}"
    html = docs_build.page(f"notebooks/{path.stem}")
    nb = nbformat.read(path, as_version=4)
    n_code = sum(c.cell_type == "code" for c in nb.cells)
    n_outputs = html.count('class="cell_output')
    assert n_outputs >= n_code // 2, f"only {n_outputs} outputs for {n_code} code cells"
    assert "ename" not in html and "Traceback (most recent call last)" not in html
    # no warning printed with a file path (a reader sees a message, not our machine)
    assert not re.search(r"site-packages|\.py:\d+: \w*Warning", html), "a warning is shown"
    text_of_page = unescape(html)
    for text in MUST_SHOW[path.stem]:
        assert text in text_of_page, f"{path.stem}: executed output lacks {text!r}"
    images = re.findall(r'<img[^>]+src="\.\./_images/[^"]+\.png"', html)
    assert len(images) >= MIN_IMAGES[path.stem], f"{path.stem}: {len(images)} figures"
