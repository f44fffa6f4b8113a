"""Hard exact sums (issue 30): the NaN-skipping rows loop switching at the first block
that meets a NaN, one float64 row by the lean kernel, wide-range means certified after
a power-of-two scaling, the NumPy engine's certified pass on the non-NaN values. Every
value against ``math.fsum`` / Fraction references, both engines."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

import nanaccess as na
from nanaccess.core import _numba as NB
from nanaccess.core.exactsum import certified
from nanaccess.core.moments import moment_stat
from nanaccess.errors import NaNError

NEEDS_NUMBA = pytest.mark.skipif(not NB.AVAILABLE, reason="numba not installed or disabled")
ENGINES = ["numpy", pytest.param("auto", marks=NEEDS_NUMBA)]


def _neg_nan() -> float:
    with np.errstate(invalid="ignore"):
        return np.float64(np.inf) - np.float64(np.inf)  # x86: the negative default NaN


def _mean_ref(x: np.ndarray) -> float:
    v = [Fraction(float(a)) for a in x if a == a]
    return float(sum(v, Fraction(0)) / len(v))


def _sum_ref(x: np.ndarray) -> float:
    return math.fsum(float(a) for a in x if a == a)


def _wide(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.standard_normal(n) * np.exp(rng.uniform(-300, 300, n))


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("where", [0, 17, 4095, 4096, 9000, 12_003])
def test_a_nan_in_any_block_is_skipped_once(engine, where):
    rng = np.random.default_rng(where)
    x = rng.standard_normal(12_004)
    x[where] = _neg_nan()
    x[-1] = np.nan  # the tail, beyond the last full lane block
    with na.option_context(engine=engine):
        assert na.sum(x, nan_policy="omit") == _sum_ref(x)
        assert na.mean(x, nan_policy="omit") == _mean_ref(x)
        with pytest.raises(NaNError):
            na.sum(x)


@NEEDS_NUMBA
def test_an_infinity_before_the_nan_block_still_gives_the_ieee_result():
    x = np.ones(20_000)
    x[5] = np.inf
    x[9_000] = np.nan
    assert na.sum(x, nan_policy="omit") == np.inf
    x[6] = -np.inf
    assert np.isnan(na.sum(x, nan_policy="omit"))


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("nan_pct", [0.0, 1.0, 30.0])
def test_wide_range_means_are_exact(engine, nan_pct):
    x = _wide(50_000, seed=int(nan_pct))
    x[np.random.default_rng(1).random(x.size) < nan_pct / 100] = np.nan
    with na.option_context(engine=engine):
        assert na.mean(x, nan_policy="omit") == _mean_ref(x)
        assert na.sum(x, nan_policy="omit") == _sum_ref(x)


@NEEDS_NUMBA
@pytest.mark.parametrize("scale", [1e300, 1e-300, 2.0 ** 1000, 2.0 ** -1000])
def test_wide_range_means_stay_on_the_certified_path(scale):
    rng = np.random.default_rng(3)
    x = (rng.random(10_000) + 0.5) * scale
    certified.reset_stats()
    got = na.mean(x)
    assert got == _mean_ref(x)
    assert certified.stats()["certified"] >= 1


@NEEDS_NUMBA
def test_a_mean_scaled_near_the_subnormal_range_is_still_exact():
    x = np.full(1000, 2.0 ** -1021)
    x[::2] = 2.0 ** -1022 * 1.5
    assert na.mean(x) == _mean_ref(x)
    y = np.array([5e-324] * 999 + [2.0 ** -1020])
    assert na.mean(y) == _mean_ref(y)


@pytest.mark.parametrize("engine", ENGINES)
def test_cancelling_sums_are_exact(engine):
    rng = np.random.default_rng(4)
    y = rng.standard_normal(100_000)
    x = np.concatenate([y, -y, [1e-3, 2.0 ** -60]])
    rng.shuffle(x)
    with na.option_context(engine=engine):
        assert na.sum(x) == _sum_ref(x)
        assert na.mean(x) == _mean_ref(x)


@pytest.mark.parametrize("engine", ENGINES)
def test_signaling_nans_raise_under_omit_on_every_path(engine):
    x = np.random.default_rng(5).standard_normal(20_000)
    x[777] = np.array(0x7FF0000000000001, np.uint64).view(np.float64)
    with na.option_context(engine=engine):
        with pytest.raises(NaNError):
            na.sum(x, nan_policy="omit")
        got = moment_stat(x, "sum", policy="totalorder")[0]
        assert np.isnan(got)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("n", [100, 4097, 10_000])
def test_one_row_lean_path_every_statistic(engine, n):
    rng = np.random.default_rng(n)
    x = rng.standard_normal(n) * 1e8 + 3
    x[::97] = np.nan
    v = [Fraction(float(a)) for a in x if a == a]
    m = len(v)
    s = sum(v, Fraction(0))
    q = sum((a * a for a in v), Fraction(0))
    var1 = float((m * q - s * s) / (m * (m - 1)))
    with na.option_context(engine=engine):
        assert na.sum(x, nan_policy="omit") == float(s)
        assert na.mean(x, nan_policy="omit") == float(s / m)
        assert na.var(x, nan_policy="omit", ddof=1) == var1
        assert na.std(x, nan_policy="omit", ddof=1) == np.sqrt(var1)
        assert np.isnan(na.mean(np.full(n, np.nan), nan_policy="omit"))
        assert na.sum(np.full(n, np.nan), nan_policy="omit") == 0.0


def test_float32_row_without_numba_rounds_once():
    x = np.zeros(1000, np.float32)
    x[:3] = [1.0, 2.0 ** -24, 2.0 ** -80]
    x[10] = np.nan
    with na.option_context(engine="numpy"):
        assert na.sum(x, nan_policy="omit") == np.float32(1 + 2.0 ** -23)
        assert na.sum(x[np.isfinite(x)]) == np.float32(1 + 2.0 ** -23)
