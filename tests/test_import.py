"""``import nanaccess`` stays light: it imports neither dask, numba nor xarray, and the
accessors of xarray and dask exist whichever of the host and nanaccess is imported first."""

from __future__ import annotations

import subprocess
import sys

import pytest


def _run(code: str) -> str:
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=120)
    return res.stdout.strip()


def test_import_imports_no_optional_host_nor_numba():
    out = _run("import sys, nanaccess, pandas as pd\n"
               "print(sorted(m for m in ('dask', 'numba', 'xarray', 'llvmlite') "
               "if m in sys.modules), hasattr(pd.Series, 'nanstats'))")
    assert out == "[] True"


def test_a_first_statistic_on_pandas_still_imports_no_host():
    out = _run("import sys, nanaccess, pandas as pd\n"
               "s = pd.Series([1.0, float('nan'), 3.0])\n"
               "r = s.nanstats.median(nan_policy='omit')\n"
               "print(r, sorted(m for m in ('dask', 'xarray') if m in sys.modules))")
    assert out == "2.0 []"


@pytest.mark.parametrize("order", ["nanaccess first", "xarray first"])
def test_xarray_accessors_in_either_order(order):
    imports = ("import nanaccess; import xarray as xr" if order == "nanaccess first"
               else "import xarray as xr; import nanaccess")
    code = (f"{imports}\n"
            "da = xr.DataArray([1.0, float('nan'), 3.0, 5.0], dims='t')\n"
            "print(da.nanstats.median(nan_policy='omit').item(),\n"
            "      da.rolling(t=2, min_periods=1).nanstats.max(nan_policy='omit').values,\n"
            "      da.groupby(xr.DataArray([0, 0, 1, 1], dims='t')).nanstats.min(\n"
            "          nan_policy='omit').values)")
    assert _run(code) == "3.0 [1. 1. 3. 5.] [1. 3.]"


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


def test_a_failing_registration_warns_and_leaves_the_host_import_working():
    code = ("import sys, warnings\n"
            "sys.modules['nanaccess.xarray'] = None  # importing the adapter fails\n"
            "import nanaccess\n"
            "with warnings.catch_warnings(record=True) as w:\n"
            "    warnings.simplefilter('always')\n"
            "    import xarray\n"
            "print(hasattr(xarray.DataArray, 'nanstats'),\n"
            "      [str(x.message).split(' (')[0] for x in w if 'nanaccess' in str(x.message)])")
    assert _run(code) == ("False ['nanaccess could not register its xarray accessors']")


def test_import_defers_the_statistics_and_imports_no_wrapt():
    """Issue 26: ``import nanaccess`` registers stand-ins; the statistics (the core's
    reduce, the accessor classes) and wrapt (asyncio behind it) come on first use."""
    out = _run("import sys, pandas as pd, nanaccess\n"
               "heavy = ('nanaccess.core.reduce', 'nanaccess._hostkit', 'nanaccess.api',\n"
               "         'nanaccess.pandas.series', 'wrapt', 'asyncio')\n"
               "print(sorted(m for m in heavy if m in sys.modules))\n"
               "print(type(pd.Series.__dict__['nanstats']).__name__)\n"
               "r = pd.Series([1.0, float('nan'), 3.0]).nanstats.mean(nan_policy='omit')\n"
               "print(r, type(pd.Series.__dict__['nanstats']).__name__,\n"
               "      'nanaccess.core.reduce' in sys.modules)")
    assert out.splitlines() == ["[]", "_StandIn", "2.0 Accessor True"]


def test_first_use_replaces_every_stand_in_without_a_warning():
    out = _run("import warnings; warnings.simplefilter('error')\n"
               "import pandas as pd, nanaccess\n"
               "from pandas.api import typing as t\n"
               "classes = (pd.Series, pd.DataFrame, t.DataFrameGroupBy, t.SeriesGroupBy,\n"
               "           t.Rolling, t.Expanding, t.Resampler, t.ExponentialMovingWindow)\n"
               "print(pd.DataFrame.nanstats.__name__)\n"
               "print(sorted({type(c.__dict__['nanstats']).__name__ for c in classes}))\n"
               "print(nanaccess.median([3.0, 1.0, 2.0]), nanaccess.pandas.NanWindow.__name__)")
    assert out.splitlines() == ["DataFrameNanStats", "['Accessor', 'GroupByAccessor']",
                                "2.0 NanWindow"]


def test_first_use_from_several_threads_at_once():
    out = _run("import threading, pandas as pd, nanaccess\n"
               "s = pd.Series([1.0, float('nan'), 3.0, 4.0])\n"
               "got, errors = [], []\n"
               "def use():\n"
               "    try:\n"
               "        got.append(float(s.nanstats.median(nan_policy='omit')))\n"
               "    except Exception as exc:\n"
               "        errors.append(repr(exc))\n"
               "ts = [threading.Thread(target=use) for _ in range(8)]\n"
               "[t.start() for t in ts]; [t.join() for t in ts]\n"
               "print(got, errors)")
    assert out == f"{[3.0] * 8} []"


def test_post_import_hook_runs_once_after_the_module_and_at_once_if_imported():
    """nanaccess._posthook (wrapt's post-import hook without wrapt): after the module
    ran, with its own loader, once; a module already imported is handed over at once."""
    out = _run("import sys, nanaccess\n"
               "from nanaccess._posthook import register_post_import_hook\n"
               "seen = []\n"
               "hook = lambda m: seen.append((m.__name__, hasattr(m, 'Fraction'),\n"
               "                              type(m.__loader__).__name__))\n"
               "register_post_import_hook(hook, 'fractions')\n"
               "register_post_import_hook(lambda m: seen.append(m.__name__), 'json')\n"
               "print(seen)\n"
               "import fractions; del sys.modules['fractions']; import fractions\n"
               "print(seen, type(fractions.__spec__.loader).__name__)")
    assert out.splitlines() == ["['json']",
                                "['json', ('fractions', True, 'SourceFileLoader')] "
                                "SourceFileLoader"]
