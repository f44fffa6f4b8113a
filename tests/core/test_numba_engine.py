"""The one compiled-engine module: lazy import, engine choice, broken-numba fallback."""

from __future__ import annotations

import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

import nanaccess as na
from nanaccess.core import _numba as NB
from nanaccess.core._numba import grouped as nbg
from nanaccess.core.grouped import grouped_stat
from nanaccess.core.grouped import order as GO

needs_numba = pytest.mark.skipif(not NB.AVAILABLE, reason="numba not installed or disabled")


def _run(code: str, **env: str) -> str:
    out = subprocess.run([sys.executable, "-c", code], env=dict(os.environ, **env),
                         capture_output=True, text=True, check=True)
    return out.stdout.strip()


@needs_numba
def test_import_does_not_import_numba_and_the_first_grouped_call_does():
    code = ("import sys, numpy as np; import nanaccess;"
            "from nanaccess.core.grouped import grouped_stat;"
            "before = 'numba' in sys.modules;"
            "x = np.arange(60_000.0); codes = np.arange(60_000) % 7;"
            "grouped_stat(x, codes, 7, 'median', policy='omit');"
            "print(before, 'numba' in sys.modules)")
    assert _run(code) == "False True"


def test_env_var_turns_every_compiled_path_off():
    code = ("import sys, numpy as np; from nanaccess.core import _numba as NB;"
            "from nanaccess.core.grouped import grouped_stat;"
            "x = np.arange(60_000.0); codes = np.arange(60_000) % 7;"
            "v = grouped_stat(x, codes, 7, 'median', policy='omit')[0];"
            "print(NB.AVAILABLE, NB.choose_engine(), 'numba' in sys.modules, v[0]);"
            "NB.choose_engine('numba')")
    out = subprocess.run([sys.executable, "-c", code],
                         env=dict(os.environ, NANACCESS_NO_NUMBA="1"), capture_output=True,
                         text=True)
    assert out.stdout.split() == ["False", "numpy", "False", str(np.median(np.arange(0, 60_000,
                                                                                     7.0)))]
    assert "ImportError" in out.stderr


def test_choose_engine_reads_the_option():
    assert NB.choose_engine("numpy") == "numpy"
    with na.option_context(engine="numpy"):
        assert NB.choose_engine() == "numpy"
        assert NB.choose_engine("auto") == ("numba" if NB.AVAILABLE and not NB.BROKEN
                                            else "numpy")
    with na.set_options(engine="numpy"):
        assert NB.choose_engine(None, size=10**9) == "numpy"
    assert NB.choose_engine("auto", size=10, min_size=100) == "numpy"
    with pytest.raises(ValueError, match="unknown engine"):
        NB.choose_engine("fortran")
    if NB.AVAILABLE:
        assert NB.choose_engine("numba", size=1, min_size=100) == "numba"
    else:
        with pytest.raises(ImportError):
            NB.choose_engine("numba")


def test_broken_numba_makes_auto_choose_numpy(monkeypatch):
    monkeypatch.setattr(NB, "BROKEN", ["RuntimeError()"])
    assert NB.choose_engine("auto", size=10**9) == "numpy"


@needs_numba
def test_engine_option_keeps_grouped_calls_on_numpy(monkeypatch):
    def never(*args, **kwargs):
        raise AssertionError("the numba engine ran")

    monkeypatch.setattr(nbg, "NumbaSelect", never)
    monkeypatch.setattr(GO, "NUMBA_MIN_ROWS", 0)
    x = np.array([3.0, 1.0, np.nan, 2.0])
    with na.option_context(engine="numpy"):
        v, _ = grouped_stat(x, [0, 0, 1, 1], 2, "median", policy="omit")
    assert v.tolist() == [2.0, 2.0]
    with na.option_context(engine="numba"), pytest.raises(AssertionError, match="numba"):
        grouped_stat(x, [0, 0, 1, 1], 2, "median", policy="omit")


@needs_numba
def test_broken_numba_warns_once_then_numpy_serves(monkeypatch):
    monkeypatch.setattr(NB, "BROKEN", [])
    monkeypatch.setattr(NB, "_COMPILED", {})
    monkeypatch.setattr(GO, "NUMBA_MIN_ROWS", 0)

    def boom():
        raise RuntimeError("no compiler")

    monkeypatch.setitem(NB._BUILDERS, "grouped", boom)
    monkeypatch.setitem(NB._BUILDERS, "rows", boom)
    rng = np.random.default_rng(2)
    x = rng.standard_normal(300)
    codes = rng.integers(0, 5, 300)
    want = grouped_stat(x, codes, 5, "median", policy="omit", engine="numpy")[0]
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        for _ in range(3):
            got = grouped_stat(x, codes, 5, "median", policy="omit")[0]
            assert got.tobytes() == want.tobytes()
        # the per-row selection shares the flag: no second warning, NumPy's answer
        y = rng.standard_normal((6, 50))
        y[rng.random(y.shape) < 0.3] = np.nan
        assert np.array_equal(na.median(y, axis=1, nan_policy="omit"), np.nanmedian(y, axis=1))
    msgs = [str(w.message) for w in seen if issubclass(w.category, RuntimeWarning)]
    assert len(msgs) == 1 and "no compiler" in msgs[0]
    with pytest.raises(RuntimeError, match="no compiler"):  # asked for explicitly
        grouped_stat(x, codes, 5, "median", policy="omit", engine="numba")


@needs_numba
def test_kernels_compile_once_per_family():
    a = NB.kernels("grouped")
    assert NB.kernels("grouped") is a
    assert set(a) == {"count", False, True}
    assert set(NB.kernels("rows")) == {"serial", "parallel"}


@needs_numba
def test_engine_option_keeps_the_row_selection_on_numpy(monkeypatch):
    monkeypatch.setattr(NB, "BROKEN", [])
    monkeypatch.setattr(NB, "_COMPILED", {})

    def boom():
        raise AssertionError("compiled although engine='numpy'")

    monkeypatch.setitem(NB._BUILDERS, "rows", boom)
    rng = np.random.default_rng(7)
    y = rng.standard_normal((40, 300))
    y[rng.random(y.shape) < np.linspace(0, 0.9, 40)[:, None]] = np.nan  # rows differ
    with na.option_context(engine="numpy"), warnings.catch_warnings():
        warnings.simplefilter("error")
        got = na.quantile(y, [0.1, 0.5, 0.93], axis=1, nan_policy="omit")
    assert np.array_equal(got, np.nanquantile(y, [0.1, 0.5, 0.93], axis=1))
    assert not NB.BROKEN


_FIRST_CALL = (
    "import gc, sys, numpy as np, nanaccess as na;"
    "{before}"
    "x = np.random.default_rng(0).standard_normal(100_000);"
    "import statistics; exact = na.mean(x) == statistics.mean(x.tolist());"
    "from numba.np import arraymath, linalg;"
    "lean = 'scipy.linalg' not in sys.modules;"
    "real = linalg.ensure_blas.__module__ == 'numba.np.linalg';"
    "import scipy.linalg.cython_blas; linalg.ensure_blas();"
    "print(lean, gc.isenabled(), arraymath._HAVE_BLAS, real, exact)"
)


@needs_numba
def test_first_compiled_call_keeps_scipy_linalg_out_and_numbas_answers_unchanged():
    # numba's BLAS question is answered from the file system (no scipy.linalg import);
    # the answer is what numba's own check gives, which is restored; gc is back on
    pytest.importorskip("scipy.linalg")
    assert _run(_FIRST_CALL.format(before="")) == "True True True True True"


@needs_numba
def test_first_compiled_call_leaves_gc_and_an_imported_scipy_as_they_were():
    got = _run(_FIRST_CALL.format(before="gc.disable();"))
    assert got.split()[1:] == ["False", "True", "True", "True"]
    got = _run(_FIRST_CALL.format(before="import scipy.linalg;"))
    assert got.split() == ["False", "True", "True", "True", "True"]


def test_blas_on_disk_raises_importerror_without_scipy(monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "scipy" else real(name, *a))
    with pytest.raises(ImportError, match="cython_blas"):
        NB._blas_on_disk()
