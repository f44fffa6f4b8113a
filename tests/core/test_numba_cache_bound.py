"""numba's on-disk cache is refreshed when only a bound helper's module changes.

A kernel compiled through :func:`nanaccess.core._numba.jit` that calls a helper of
another module (bound with :func:`~nanaccess.core._numba.bind`) or names one of its
constants must not be loaded from the cache with the old helper's bits after that
module alone was edited (:mod:`nanaccess.core._numba._cache`). Each step runs in a
fresh process sharing one temporary ``NUMBA_CACHE_DIR``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from nanaccess.core import _numba

pytestmark = pytest.mark.skipif(not _numba.AVAILABLE, reason="numba is not installed")

_KERNEL = textwrap.dedent('''
    import helper_mod
    from helper_mod import SCALE
    from nanaccess.core._numba import bind, jit

    def helper(x):
        raise AssertionError("bound to the compiled helper before use")

    def kernel(x):
        return helper(x) * SCALE

    def build():
        compiled = jit(nogil=True)(helper_mod.helper)
        bind(globals(), ("helper",), {"helper": compiled})
        return jit(nogil=True)(kernel)
''')

_RUN = textwrap.dedent('''
    import json, sys
    sys.path.insert(0, sys.argv[1])
    import kernel_mod
    k = kernel_mod.build()
    value = k(1.0)
    print(json.dumps([value, sum(k.stats.cache_hits.values())]))
''')


def _helper(tmp: Path, add: float, scale: float) -> None:
    (tmp / "helper_mod.py").write_text(
        f"SCALE = {scale!r}\n\n\ndef helper(x):\n    return x + {add!r}\n")


def _run(tmp: Path, cache: Path) -> tuple[float, int]:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache), PYTHONDONTWRITEBYTECODE="1")
    env.pop("NANACCESS_NO_NUMBA", None)
    got = subprocess.run([sys.executable, "-c", _RUN, str(tmp)], env=env,
                         capture_output=True, text=True, check=True)
    value, hits = json.loads(got.stdout.strip().splitlines()[-1])
    return float(value), int(hits)


def test_helper_edit_recompiles_the_kernel(tmp_path):
    src, cache = tmp_path / "src", tmp_path / "cache"
    src.mkdir()
    (src / "kernel_mod.py").write_text(_KERNEL)
    _helper(src, 1.0, 2.0)
    assert _run(src, cache) == (4.0, 0)  # compiled, then saved
    assert _run(src, cache) == (4.0, 1)  # the cache is used while nothing changed
    _helper(src, 2.0, 2.0)  # the helper's module alone: old bits would give 4.0
    assert _run(src, cache) == (6.0, 0)
    _helper(src, 2.0, 3.0)  # a constant the kernel names, frozen into its code
    assert _run(src, cache) == (9.0, 0)


@pytest.mark.parametrize("module,kernel", [("compensated_var", "var_rows_kernel"),
                                           ("compensated_var", "var_grouped_kernel"),
                                           ("weighted_moments", "_nb_group_moments")])
def test_kernel_stamps_cover_compensated(monkeypatch, module, kernel):
    """The kernels that call compensated's TwoSum / TwoProduct are stamped with
    compensated.py (no compilation needed: the stamp follows the Python functions)."""
    import importlib

    from nanaccess.core._numba import _cache

    fn = getattr(importlib.import_module(f"nanaccess.core._numba.{module}"), kernel)
    before = _cache.source_stamp(fn)
    real = _cache._file_hash
    monkeypatch.setattr(_cache, "_file_hash", lambda p: real(p) + (
        b"edited" if p.endswith(os.sep + "compensated.py") else b""))
    assert _cache.source_stamp(fn) != before
    monkeypatch.setattr(_cache, "_file_hash", lambda p: real(p) + (
        b"edited" if p.endswith(os.sep + "window_var.py") else b""))
    assert _cache.source_stamp(fn) == before  # a module it does not bind


def test_stamp_follows_closures_and_globals(monkeypatch):
    from nanaccess.core._numba import _cache

    def make(helper):
        def kernel(x):
            return helper(x)
        return kernel

    local = make(lambda x: x)
    other = make(os.path.join)  # a helper of another module, captured by the closure
    assert _cache.source_stamp(other) != _cache.source_stamp(local)
    assert _cache.source_stamp(other) == _cache.source_stamp(make(os.path.join))
