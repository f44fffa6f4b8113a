"""The lean paths of skew/kurt/sem (no policy scan: the kernels leave NaNs out
themselves) give the exact engine's bits, and leave errors to the full path."""

from __future__ import annotations

import numpy as np
import pytest

from nanaccess.core.higher.cells import cell_values
from nanaccess.core.higher.stat import grouped_higher, higher_stat
from nanaccess.errors import SignalingNaNError

_SNAN = {np.float64: np.uint64(0x7FF0000000000001), np.float32: np.uint32(0x7F800001)}


def _data(seed: int, n: int, dtype, frac: float) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(n) * 10.0 ** rng.uniform(-3, 4) + rng.uniform(-50, 50)
    x[rng.random(n) < frac] = np.nan
    return x.astype(dtype)


def _exact(v: np.ndarray, gid: np.ndarray, ncells: int, stat: str) -> np.ndarray:
    v = v.astype(np.float64)
    return cell_values(v, gid, ncells, stat, {}, certify=False)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("frac", [0.0, 0.01, 0.3])
@pytest.mark.parametrize("stat", ["skew", "kurt", "sem"])
def test_rows_match_exact(dtype, frac, stat):
    for seed in range(3):
        x = _data(seed, 5003, dtype, frac)
        got = higher_stat(x, stat, policy="omit")[0]
        keep = ~np.isnan(x)
        want = _exact(x[keep], np.zeros(int(keep.sum()), np.int64), 1, stat)[0]
        assert np.asarray(got).tobytes() == np.asarray(want, dtype).tobytes()
        x2 = x[: 5000].reshape(50, 100)
        got2 = higher_stat(x2, stat, axis=1, policy="omit")[0]
        for r in range(0, 50, 7):
            k = ~np.isnan(x2[r])
            w = _exact(x2[r][k], np.zeros(int(k.sum()), np.int64), 1, stat)[0]
            assert got2[r].tobytes() == np.asarray(w, dtype).tobytes()


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("stat", ["skew", "kurt", "sem"])
def test_groups_match_exact(dtype, stat):
    rng = np.random.default_rng(7)
    x = _data(7, 20000, dtype, 0.05)
    codes = rng.integers(-1, 40, x.size)
    got = grouped_higher(x, codes, 40, stat, policy="omit")[0]
    keep = (codes >= 0) & ~np.isnan(x)
    want = _exact(x[keep], codes[keep], 40, stat)
    assert got.tobytes() == want.astype(dtype).tobytes()


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_signaling_nan_raises_rows_and_groups(dtype):
    x = _data(1, 4000, dtype, 0.01)
    x.view(_SNAN[dtype].dtype)[123] = _SNAN[dtype]
    with pytest.raises(SignalingNaNError):
        higher_stat(x, "skew", policy="omit")
    assert np.isnan(higher_stat(x, "skew", policy="totalorder")[0])
    codes = np.arange(x.size) % 20
    with pytest.raises(SignalingNaNError):
        grouped_higher(x, codes, 20, "kurt", policy="omit")
    codes[123] = -1  # a row in no group is not looked at
    got = grouped_higher(x, codes, 20, "kurt", policy="omit")[0]
    assert np.isfinite(got).all()


def test_nan_under_raise_and_propagate():
    x = _data(2, 3000, np.float64, 0.01)
    with pytest.raises(Exception, match="NaN"):
        higher_stat(x, "skew", policy="raise")
    assert np.isnan(higher_stat(x, "skew", policy="propagate")[0])
    y = np.nan_to_num(x)
    assert np.isfinite(higher_stat(y, "skew", policy="raise")[0])


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64])
def test_lean_paths_skip_the_scan(dtype, monkeypatch):
    """With numba, NaN-holding (or int) data under "omit" never reaches the policy
    scan (negative values and quiet NaNs of either sign are no signaling NaN)."""
    from nanaccess.core import _numba as nb
    from nanaccess.core.higher import stat as hs

    if nb.choose_engine(size=10**5, min_size=256) != "numba":
        pytest.skip("numba not installed or disabled")
    x = _data(3, 6000, np.float64, 0.02)
    x[::97] = -np.nan
    x = (np.nan_to_num(x) * 100).astype(dtype) if dtype == np.int64 else x.astype(dtype)
    want = higher_stat(x, "skew", policy="omit")[0]
    gwant = grouped_higher(x, np.arange(x.size) % 30, 30, "kurt", policy="omit")[0]

    def boom(*a, **k):
        raise AssertionError("the policy scan ran")

    monkeypatch.setattr(hs, "scan_rows", boom)
    monkeypatch.setattr(hs, "scan", boom)
    assert higher_stat(x, "skew", policy="omit")[0].tobytes() == want.tobytes()
    if dtype != np.int64:  # grouped ints take the full path
        got = grouped_higher(x, np.arange(x.size) % 30, 30, "kurt", policy="omit")[0]
        assert got.tobytes() == gwant.tobytes()


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_infinity_leaves_the_lean_path(dtype):
    """An infinity makes the kernel refuse its row or group; the full path gives NaN."""
    x = _data(4, 8000, dtype, 0.01)
    x[17] = np.inf
    assert np.isnan(higher_stat(x, "kurt", policy="omit")[0])
    codes = np.arange(x.size) % 25
    got = grouped_higher(x, codes, 25, "skew", policy="omit")[0]
    assert np.isnan(got[17]) and np.isfinite(np.delete(got, 17)).all()
