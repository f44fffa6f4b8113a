"""``import nanaccess`` stays light: dask is imported only when the user imports it,
and ``ddf.nanstats`` exists whichever of the two is imported first."""

from __future__ import annotations

import subprocess
import sys

import pytest

from nanaccess._hooks import when_imported


def _run(code: str) -> str:
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=120)
    return res.stdout.strip()


def test_import_does_not_import_dask():
    assert _run("import sys, nanaccess; print('dask' in sys.modules)") == "False"


@pytest.mark.parametrize("order", ["nanaccess first", "dask first"])
def test_dask_dataframe_accessor_in_either_order(order):
    pytest.importorskip("dask.dataframe")
    imports = ("import nanaccess; import dask.dataframe as dd" if order == "nanaccess first"
               else "import dask.dataframe as dd; import nanaccess")
    code = (f"{imports}; import pandas as pd\n"
            "ddf = dd.from_pandas(pd.DataFrame({'a': [1.0, float('nan'), 3.0]}), "
            "npartitions=2)\n"
            "print(ddf.nanstats.median(nan_policy='omit').compute()['a'])")
    assert _run(code) == "2.0"


def test_when_imported_runs_after_the_module_executes(monkeypatch):
    seen = []
    when_imported("json", lambda: seen.append("now"))  # already imported: at once
    assert seen == ["now"]
    when_imported("nanaccess._version", lambda: seen.append("version"))
    assert seen == ["now", "version"]
    # a module not imported yet: the callback waits for it, then sees it complete
    monkeypatch.delitem(sys.modules, "colorsys", raising=False)
    when_imported("colorsys", lambda: seen.append(sys.modules["colorsys"].rgb_to_hsv))
    assert len(seen) == 2
    import colorsys

    assert seen[-1] is colorsys.rgb_to_hsv
    assert not [f for f in sys.meta_path if type(f).__name__ == "_AfterImport"
                and f.name == "colorsys"]
