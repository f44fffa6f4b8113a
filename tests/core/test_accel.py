"""The optional numba accelerator against the NumPy reference, bit for bit."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import zlib

import numpy as np
import pytest

import nanaccess as na
from nanaccess.core import _numba as NB
from nanaccess.core._numba import rows as accel  # the per-row selection kernels
from nanaccess.core.select import order_stat

POLICIES = ("raise", "propagate", "omit", "smallest", "largest", "totalorder")

needs_numba = pytest.mark.skipif(accel.select_rows is None,
                                 reason="numba not installed or NANACCESS_NO_NUMBA set")


def _random_case(rng, rows=None, n=None, dtype=np.int64):
    rows = int(rng.integers(1, 12)) if rows is None else rows
    n = int(rng.integers(1, 200)) if n is None else n
    span = int(rng.choice([2, 50, 1 << 30]))
    keys = rng.integers(-span, span, (rows, n)).astype(dtype)
    kind = rng.integers(0, 4)
    if kind == 1:
        keys.sort(axis=1)
    elif kind == 2:
        keys = np.ascontiguousarray(np.sort(keys, axis=1)[:, ::-1])
    k = int(rng.integers(1, 7))
    ranks = rng.integers(0, n, (k, rows))
    return keys, ranks


def test_numpy_reference_selects_ranks():
    keys = np.array([[5, 1, 4, 2, 3], [9, 7, 8, 6, 0]])
    got = accel._select_rows_numpy(keys.copy(), np.array([[0, 4], [2, 1]]))
    assert got.tolist() == [[1, 9], [3, 6]]


def test_select_windows_matches_reference_or_declines():
    rng = np.random.default_rng(5)
    for _ in range(200):
        keys, _ = _random_case(rng)
        n = keys.shape[1]
        base = rng.integers(0, n, int(rng.integers(1, 4)))
        ranks = np.clip(base[:, None] + rng.integers(0, 3, (base.size, keys.shape[0])), 0, n - 1)
        want = accel._select_rows_numpy(keys.copy(), ranks)
        got = accel.select_windows(keys.copy(), ranks)
        if got is not None:
            assert got.dtype == want.dtype
            assert np.array_equal(got, want)


def test_select_windows_declines_wide_spreads():
    keys = np.arange(100).reshape(1, 100).repeat(2, axis=0)
    before = keys.copy()
    assert accel.select_windows(keys, np.array([[0, 90]])) is None
    assert np.array_equal(keys, before)  # declined: nothing touched


@needs_numba
@pytest.mark.parametrize("dtype", [np.int64, np.int32])
def test_kernels_match_reference(dtype):
    rng = np.random.default_rng(11)
    accel.warm_up((dtype,))
    for _ in range(150):
        keys, ranks = _random_case(rng, dtype=dtype)
        want = accel._select_rows_numpy(keys.copy(), ranks)
        for kernel in ("serial", "parallel"):
            got = NB.kernels("rows")[kernel](keys.copy(), np.ascontiguousarray(ranks))
            assert got.dtype == want.dtype
            assert np.array_equal(got, want), kernel
        assert np.array_equal(accel.select_rows(keys.copy(), ranks), want)


@needs_numba
def test_kernel_worst_cases_and_duplicates():
    n = 5000
    organ = np.concatenate([np.arange(n // 2), np.arange(n // 2)[::-1]])
    cases = [np.zeros(n, np.int64), np.arange(n), np.arange(n)[::-1], organ,
             np.tile([3, 1, 2], n // 3 + 1)[:n], np.repeat(np.arange(5), n // 5)]
    keys = np.stack([np.asarray(c, dtype=np.int64) for c in cases])
    ranks = np.array([[0] * len(cases), [n // 2] * len(cases), [n - 1] * len(cases)])
    ranks[1, ::2] += 1  # rows want different ranks
    want = accel._select_rows_numpy(keys.copy(), ranks)
    got = NB.kernels("rows")["serial"](keys.copy(), ranks)
    assert np.array_equal(got, want)


@needs_numba
def test_worker_threads_use_the_serial_kernel():
    rng = np.random.default_rng(3)
    keys = rng.integers(-100, 100, (400, 1000))
    ranks = np.stack([np.zeros(400, np.int64), np.full(400, 999)])
    want = accel._select_rows_numpy(keys.copy(), ranks)
    out = {}
    th = threading.Thread(target=lambda: out.setdefault("r", accel.select_rows(keys.copy(),
                                                                                 ranks)))
    th.start()
    th.join()
    assert np.array_equal(out["r"], want)


def _nan_rows(dtype, rng):
    """Rows with different NaN counts, NaN payloads and signs, signed zeros and ties."""
    rows, n = 9, 64
    x = rng.choice(np.array([-0.0, 0.0, 1.5, -2.0, np.inf, -np.inf, 3.0], dtype=dtype),
                   (rows, n))
    x[:, ::3] = rng.standard_normal((rows, (n + 2) // 3)).astype(dtype)
    payloads = [na.make_nan(p, negative=s, dtype=dtype) for p in (0, 1, 5) for s in (0, 1)]
    for r in range(rows):
        k = r * 7 % (n + 1)  # 0 .. n NaNs; one row is all NaN
        pos = rng.choice(n, k, replace=False)
        x[r, pos] = rng.choice(np.array(payloads, dtype=dtype), k)
    x[-1] = payloads[0]
    return x


@needs_numba
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("axis", [0, 1])
def test_order_stat_same_bits_with_and_without_accel(monkeypatch, dtype, policy, axis):
    rng = np.random.default_rng(zlib.crc32(repr((policy, axis)).encode()))
    x = _nan_rows(dtype, rng)
    if policy == "raise":
        x = np.where(np.isnan(x), dtype(1.0), x)
    calls = []
    real = accel.select_rows
    for stat, kw in [("median", {}), ("median_low", {}),
                     ("quantile", {"q": [0.0, 0.1, 0.5, 0.9, 1.0]}),
                     ("quantile", {"q": 0.3, "method": "nearest"})]:
        monkeypatch.setattr(accel, "select_rows",
                            lambda k, r: calls.append(1) or real(k, r))
        fast, fm = order_stat(x, stat, axis=axis, policy=policy, **kw)
        monkeypatch.setattr(accel, "select_rows", None)
        ref, rm = order_stat(x, stat, axis=axis, policy=policy, **kw)
        assert fast.dtype == ref.dtype
        assert fast.tobytes() == ref.tobytes(), (stat, kw)
        assert (fm is None) == (rm is None)
    all_rows_propagate = policy == "propagate" and np.isnan(x).any(axis=axis).all()
    if policy in ("omit", "propagate") and not all_rows_propagate:
        assert calls  # the hook was exercised (no selection when every row propagates)


@needs_numba
def test_compile_failure_falls_back_to_numpy(monkeypatch):
    monkeypatch.setattr(NB, "_COMPILED", {})
    monkeypatch.setattr(NB, "BROKEN", [])

    def boom():
        raise RuntimeError("no compiler")

    monkeypatch.setitem(NB._BUILDERS, "rows", boom)
    keys = np.arange(40).reshape(2, 20)[:, ::-1].copy()
    ranks = np.array([[0, 19], [10, 3]])
    with pytest.warns(RuntimeWarning, match="numba kernel unavailable"):
        got = accel._select_rows_numba(keys.copy(), ranks)
    assert np.array_equal(got, accel._select_rows_numpy(keys.copy(), ranks))
    assert NB.BROKEN and NB.choose_engine() == "numpy"  # NumPy from now on


def test_env_var_disables_accelerator():
    code = ("from nanaccess.core._numba import rows as accel; import nanaccess as na, numpy as np;"
            "assert accel.select_rows is None and not accel.ENABLED;"
            "x = np.array([[1.0, np.nan, 3.0], [4.0, 5.0, 6.0]]);"
            "print(na.median(x, axis=1, nan_policy='omit').tolist())")
    env = dict(os.environ, NANACCESS_NO_NUMBA="1")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True)
    assert out.stdout.strip() == "[2.0, 5.0]"
