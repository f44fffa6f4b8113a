"""Background compilation: a kernel with no machine code for a call's types raises
``NotReady`` (the caller's NumPy fallback serves), a daemon thread compiles it, later
calls run it; explicit ``engine="numba"`` and cached signatures stay in the foreground."""

from __future__ import annotations

import numpy as np
import pytest

import nanaccess as na
from nanaccess.core import _numba as NB
from nanaccess.core._numba import _background as BG

pytestmark = pytest.mark.skipif(not NB.AVAILABLE, reason="numba not installed")


def _toy(x, out):  # pragma: no cover - compiled
    for i in range(x.size):
        out[i] = x[i] * 2.0 + 1.0


def _build():
    return {"toy": NB.jit(nogil=True)(_toy)}


@pytest.fixture
def toy(monkeypatch, tmp_path):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(BG, "DEFERRABLE", BG.DEFERRABLE | {"toy_bg"})
    NB.register("toy_bg", _build)
    yield
    NB._COMPILED.pop("toy_bg", None)
    NB._WRAPPED.pop("toy_bg", None)


def test_background_serves_numpy_then_numba(toy):
    with np.errstate(invalid="ignore"):
        x = np.float64(0) / np.arange(-2.0, 3.0)  # -0, -0, nan (0/0, negative on x86), 0, 0
    out = np.zeros_like(x)
    with na.set_options(compile="background"):
        assert NB.choose_engine("auto") == "numba"
        kern = NB.kernels("toy_bg")["toy"]
        with pytest.raises(NB.NotReady):
            kern(x, out)
        assert not out.any()  # nothing written: the caller's NumPy path serves the call
        NB.fallback(NB.NotReady("x"))  # a deferred kernel is not a broken numba
        assert not NB.BROKEN
        assert BG.wait(timeout=120)
        kern(x, out)  # compiled now: numba runs
    np.testing.assert_array_equal(out, x * 2.0 + 1.0)
    assert len(kern.dispatcher.overloads) == 1


def test_other_types_defer_again_and_float32_keeps_its_bits(toy):
    x = np.array([1.5, -0.0, np.nan], np.float32)
    out = np.zeros_like(x)
    with na.set_options(compile="background"):
        NB.choose_engine("auto")
        kern = NB.kernels("toy_bg")["toy"]
        with pytest.raises(NB.NotReady):
            kern(x, out)
        BG.wait(timeout=120)
        kern(x, out)
    np.testing.assert_array_equal(out.view(np.uint32), (x * 2 + 1).view(np.uint32))


def test_explicit_numba_and_foreground_compile_in_the_caller(toy):
    x, out = np.arange(4.0), np.zeros(4)
    with na.set_options(compile="background"):
        assert NB.choose_engine("numba") == "numba"
        NB.kernels("toy_bg")["toy"](x, out)  # asked for: compiles now
    np.testing.assert_array_equal(out, [1.0, 3.0, 5.0, 7.0])
    with na.set_options(compile="foreground"):
        NB.choose_engine("auto")
        NB.kernels("toy_bg")["toy"](x.astype(np.int64), out)
    assert BG.pending() == 0


def test_a_signature_cached_on_disk_loads_in_the_caller(toy):
    x, out = np.arange(3.0), np.zeros(3)
    with na.set_options(compile="foreground"):
        NB.kernels("toy_bg")["toy"](x, out)  # compiled and written to the disk cache
    fresh = NB.jit(nogil=True)(_toy)  # a new process's dispatcher: nothing in memory
    sig = tuple(fresh.typeof_pyval(a) for a in (x, out))
    assert BG._on_disk(fresh, sig)
    with na.set_options(compile="background"):
        NB.choose_engine("auto")
        BG.Deferred(fresh)(x, out * 0)  # no NotReady: loaded synchronously
    assert fresh.stats.cache_hits


def test_compile_option_is_validated():
    with pytest.raises(ValueError, match="unknown compile"):
        na.set_options(compile="later")
    assert na.get_options()["compile"] in ("background", "foreground")


def _bad(x, out):  # pragma: no cover - compiled (fails to type)
    out[0] = x.no_such_attribute


def test_a_failed_background_compile_reaches_the_callers_fallback(monkeypatch, tmp_path):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    kern = BG.Deferred(NB.jit(nogil=True)(_bad))
    x, out = np.arange(2.0), np.zeros(2)
    with na.set_options(compile="background"):
        NB.choose_engine("auto")
        with pytest.raises(NB.NotReady):
            kern(x, out)
        BG.wait(timeout=120)
        with pytest.raises(Exception) as err:  # numba's typing error, in the caller
            kern(x, out)
    assert not isinstance(err.value, NB.NotReady)


def test_exit_waits_for_started_compilations_and_says_so(monkeypatch, caplog):
    # the daemon worker would be killed at exit: the atexit hook waits (bounded) for
    # what is pending; a wait over a second logs one WARNING, a shorter one a DEBUG
    # record only; nothing pending, nothing said
    waited = []
    monkeypatch.setattr(BG, "wait", lambda timeout=None: waited.append(timeout) or True)
    monkeypatch.setattr(BG, "pending", lambda: 0)
    with caplog.at_level("DEBUG", logger="nanaccess"):
        BG._finish_at_exit()
    assert not waited and not caplog.records
    monkeypatch.setattr(BG, "pending", lambda: 3)
    with caplog.at_level("DEBUG", logger="nanaccess"):
        BG._finish_at_exit()  # done within the first second: no warning
    assert waited == [BG.EXIT_NOTICE_SECONDS]
    assert [r.levelname for r in caplog.records] == ["DEBUG"]
    caplog.clear()
    waited.clear()
    monkeypatch.setattr(BG, "wait", lambda timeout=None: waited.append(timeout) and False)
    with caplog.at_level("DEBUG", logger="nanaccess"):
        BG._finish_at_exit()  # still compiling after a second: says so, once, and waits on
    assert waited == [BG.EXIT_NOTICE_SECONDS, BG.EXIT_WAIT_SECONDS - BG.EXIT_NOTICE_SECONDS]
    warned = [r for r in caplog.records if r.levelname == "WARNING"]
    assert len(warned) == 1 and "finishing 3 numba compilation" in caplog.text
    monkeypatch.setattr(BG, "EXIT_WAIT_SECONDS", 0)
    BG._finish_at_exit()
    assert len(waited) == 2  # switched off: no further wait


def _toy3(x, out):  # pragma: no cover - compiled
    for i in range(x.size):
        out[i] = x[i] * 3.0


def test_one_request_queues_only_its_first_kernel(toy, monkeypatch):
    # a fallback chain (kernel a refuses, the caller tries kernel b): within one
    # request only a is queued; b is queued by the next request that reaches it first
    queued = []
    monkeypatch.setattr(BG, "_submit", lambda d, sig: queued.append(d.py_func.__name__))
    a, b = BG.Deferred(NB.jit(nogil=True)(_toy)), BG.Deferred(NB.jit(nogil=True)(_toy3))
    x, out = np.arange(3.0), np.zeros(3)
    with na.set_options(compile="background"):
        NB.choose_engine("auto")
        with BG.one_request():
            with BG.one_request():  # nested: still the same request
                assert not a.ready(x, out)
            assert not b.ready(x, out)
        assert queued == ["_toy"]
        with BG.one_request():
            assert not b.ready(x, out)
        assert queued == ["_toy", "_toy3"]
        assert not a.ready(x, out) and not b.ready(x, out)  # outside a request: each
    assert queued == ["_toy", "_toy3", "_toy", "_toy3"]
    assert not out.any()


def test_the_typing_key_is_cached_per_argument_types(toy):
    # the signature of a call is typed once per argument-type tuple; arrays that
    # differ in dtype, rank, layout or writability get their own signature
    kern = BG.Deferred(NB.jit(nogil=True)(_toy))
    x = np.arange(6.0)
    ro = x.copy()
    ro.flags.writeable = False
    cases = [x, x[::2], x.reshape(2, 3), x.reshape(2, 3).T, x.astype(np.float32), ro,
             np.arange(3), 1.5, 2, 2**63, True, np.float32(1), None]
    for a in cases:
        got = BG.type_signature(kern.dispatcher, (a,))
        assert got == (kern.dispatcher.typeof_pyval(a),)
        assert BG.type_signature(kern.dispatcher, (a,)) == got  # from the cache


_FIRST = """
import sys, numpy as np, pandas as pd
import nanaccess as na
from nanaccess.core import _numba as NB
from nanaccess.core._numba import _background as BG
x = pd.Series(np.random.default_rng(0).normal(size=3000))
r = x.rolling(45).nanstats.median(nan_policy="omit")
print(BG.pending(), sum(NB.kernels("window_heap")["heap"].dispatcher.stats.cache_hits.values()))
"""


def test_a_process_leaves_its_background_compilation_in_the_cache(tmp_path):
    # the first process serves its rolling median by sorting, queues the heap kernel
    # and waits for it at exit; the second loads it from disk (no deferral, no compile)
    import os
    import subprocess
    import sys

    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), "NANACCESS_COMPILE": "background"}
    first = subprocess.run(
        [sys.executable, "-c", _FIRST],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    )
    assert first.stdout.split()[0] == "1"  # the heap kernel queued, the call served
    assert "finishing 1 numba compilation" in first.stderr
    second = subprocess.run(
        [sys.executable, "-c", _FIRST],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    )
    pending, hits = second.stdout.split()
    assert pending == "0" and int(hits) >= 1 and "finishing" not in second.stderr
