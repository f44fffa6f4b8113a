"""First use: the compile note, the NumPy-engine note, ``nanaccess warm`` and a
``describe`` of small data that compiles nothing (the same output, bit for bit)."""

from __future__ import annotations

import io
import logging
import os
import subprocess
import sys

import numpy as np
import pytest

from nanaccess.cli import main
from nanaccess.cli import warm as warm_module
from nanaccess.core import _numba as NB

needs_numba = pytest.mark.skipif(not NB.AVAILABLE or bool(NB.BROKEN),
                                 reason="numba not installed or broken")


def _fresh_notes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(NB, "_NOTIFIED", [])


def test_compile_note_is_logged_once_and_only_over_the_threshold(monkeypatch, caplog):
    _fresh_notes(monkeypatch)
    with caplog.at_level(logging.WARNING, logger="nanaccess"):
        assert not NB.compile_notice(0.2, "k.quick")
        assert NB.compile_notice(2.5, "k.slow")
        assert not NB.compile_notice(3.0, "k.slower")  # once per process
    (rec,) = caplog.records
    assert rec.name == "nanaccess" and "k.slow took 2.5 s" in rec.getMessage()
    assert "nanaccess warm" in rec.getMessage()


@needs_numba
def test_a_real_compilation_of_a_nanaccess_kernel_is_timed(monkeypatch, caplog, tmp_path):
    """numba's public compile event reaches the note; user functions do not."""
    _fresh_notes(monkeypatch)
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(NB, "NOTICE_SECONDS", 0.0)
    NB.numba()  # the listener is registered once numba is loaded

    def user_fn(x):
        return x + 1.0

    def kernel_fn(x):
        return x * 2.0

    kernel_fn.__module__ = "nanaccess.core._numba.fake_kernels"
    with caplog.at_level(logging.WARNING, logger="nanaccess"):
        assert NB.jit()(user_fn)(1.0) == 2.0
        assert not caplog.records
        assert NB.jit()(kernel_fn)(1.0) == 2.0
    (rec,) = caplog.records
    assert "fake_kernels.kernel_fn" in rec.getMessage()
    assert any(p.name.startswith("nanaccess-") for p in tmp_path.iterdir())


def test_numpy_engine_note_when_numba_is_missing(monkeypatch, caplog):
    _fresh_notes(monkeypatch)
    monkeypatch.setattr(NB, "AVAILABLE", False)
    monkeypatch.setattr(NB, "DISABLED", False)
    monkeypatch.setattr(NB, "BROKEN", [])
    with caplog.at_level(logging.WARNING, logger="nanaccess"):
        assert NB.choose_engine("auto", size=10, min_size=0) == "numpy"
        assert not caplog.records  # small calls: no note
        assert NB.choose_engine("auto", size=NB.SLOW_NOTICE_SIZE) == "numpy"
        assert NB.choose_engine("auto", size=NB.SLOW_NOTICE_SIZE * 10) == "numpy"
    (rec,) = caplog.records
    assert "numba is not installed" in rec.getMessage() and "rolling" in rec.getMessage()


def test_numpy_engine_note_not_shown_when_numba_is_disabled_on_purpose(monkeypatch, caplog):
    _fresh_notes(monkeypatch)
    monkeypatch.setattr(NB, "AVAILABLE", False)
    monkeypatch.setattr(NB, "DISABLED", True)
    with caplog.at_level(logging.WARNING, logger="nanaccess"):
        NB.choose_engine("auto", size=NB.SLOW_NOTICE_SIZE * 10)
    assert not caplog.records


def test_describe_of_small_data_compiles_nothing():
    code = ("import sys, io\nfrom nanaccess.cli import main\n"
            "out = io.StringIO()\n"
            "from nanaccess.cli.command import describe\n"
            "describe(None, fmt='csv', out=out)\n"
            "print('numba' in sys.modules, len(out.getvalue()) > 500)")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=300)
    assert res.stdout.split() == ["False", "True"]


@needs_numba
def test_describe_engine_does_not_change_a_bit(monkeypatch):
    """The engine ``describe`` picks for small data gives the numba engine's output."""
    import nanaccess as na
    from nanaccess.cli.command import describe

    outs = []
    for engine in ("auto", "numba"):
        buf = io.StringIO()
        with na.option_context(engine=engine):
            describe(None, fmt="json", columns=["temp_c"], stats=["mean", "median"],
                     policy="omit", out=buf)
        outs.append(buf.getvalue())
    assert outs[0] == outs[1]


def test_warm_compiles_each_step_and_reports(monkeypatch):
    _fresh_notes(monkeypatch)
    calls = []
    monkeypatch.setattr(warm_module, "STEPS", [("min", lambda df: calls.append(
        (df["x"].dtype, df["x"].nanstats.min())))])
    out = io.StringIO()
    assert warm_module.warm(("float64", "float32"), out=out) == 0
    text = out.getvalue()
    if NB.AVAILABLE:
        assert [str(d) for d, _ in calls] == ["float64", "float32"]
        assert all(np.isfinite(v) for _, v in calls)
        assert "float32  min" in text and "kernels cached in" in text
        assert not NB.compile_notice(5.0, "k")  # warm itself asks for no note
    else:
        assert calls == [] and "compiles nothing" in text


def test_warm_rejects_other_dtypes(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["warm", "--dtypes", "float16"])
    assert exc.value.code == 2
    assert "float16" in capsys.readouterr().err


def test_warm_without_numba_says_so():
    res = subprocess.run([sys.executable, "-m", "nanaccess", "warm"], capture_output=True,
                         text=True, timeout=120,
                         env={**os.environ, "NANACCESS_NO_NUMBA": "1"})
    assert res.returncode == 0 and "compiles nothing" in res.stderr
