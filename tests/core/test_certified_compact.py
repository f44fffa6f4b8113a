"""The rows of uncertified groups (``core.exactsum.certified.uncertified_groups``): while
``compact_kernel`` compiles in the background (:class:`NotReady`) NumPy gathers the same
rows, and a grouped statistic then still answers (it raised NotReady before)."""

from __future__ import annotations

import numpy as np
import pytest

from nanaccess.core import _numba as nb
from nanaccess.core.exactsum import certified


class _NotReadyKernels(dict):
    def __getitem__(self, name):
        if name == "compact_kernel":
            def refuse(*args):
                raise nb.NotReady("compact_kernel compiles in the background")
            return refuse
        return super().__getitem__(name)


@pytest.mark.skipif(not nb.AVAILABLE, reason="numba not installed or disabled")
@pytest.mark.parametrize("with_include", [False, True])
def test_numpy_compaction_equals_the_kernel(monkeypatch, with_include):
    rng = np.random.default_rng(3)
    n, groups = 5000, 40
    vals = rng.standard_normal(n)
    codes = rng.integers(-1, groups, n)
    ok = rng.random(groups) < 0.6
    include = rng.random(n) < 0.8 if with_include else None
    want = certified.uncertified_groups(vals, include, codes, ok)
    real = certified._kernels()
    monkeypatch.setattr(certified, "_kernels", lambda: _NotReadyKernels(real))
    got = certified.uncertified_groups(vals, include, codes, ok)
    for w, g in zip(want, got, strict=True):
        if w is None:
            assert g is None
            continue
        assert w.dtype == g.dtype and w.tobytes() == g.tobytes()
