"""Exponentially weighted statistics (issue 23): exact references, pandas, policies."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

import nanaccess as na
from nanaccess import options
from nanaccess.core import _numba
from nanaccess.core.ewm import ewm_alpha, ewm_stat

NEEDS_NUMBA = pytest.mark.skipif(not _numba.AVAILABLE, reason="numba not installed or disabled")


def fraction_ewm_mean(x, alpha: float, adjust: bool = True) -> list[float]:
    """The exact weighted mean at every step (NaN-free data), rounded once."""
    a = Fraction(alpha)
    f = 1 - a
    out, num, den = [], Fraction(0), Fraction(0)
    y = None
    for v in x:
        if adjust:
            num = f * num + Fraction(float(v))
            den = f * den + 1
            out.append(float(num / den))
        else:
            y = Fraction(float(v)) if y is None else f * y + a * Fraction(float(v))
            out.append(float(y))
    return out


def ulps(a: float, b: float) -> float:
    return 0.0 if a == b else abs(a - b) / math.ulp(max(abs(a), abs(b)))


@pytest.fixture(params=("numpy", pytest.param("numba", marks=NEEDS_NUMBA)))
def engine(request):
    options.set_options(compile="foreground") if request.param == "numba" else None
    with options.option_context(engine=request.param):
        yield request.param


@pytest.mark.parametrize("adjust", [True, False])
@pytest.mark.parametrize("alpha", [0.5, 0.1, 0.013])
def test_mean_within_two_ulps_of_the_exact_one(engine, adjust, alpha):
    rng = np.random.default_rng(int(alpha * 1000))
    x = 1e6 + rng.normal(size=400)  # an offset: a running float mean drifts here
    got = ewm_stat(x, "mean", alpha=alpha, adjust=adjust, policy="raise")[0]
    want = fraction_ewm_mean(x, alpha, adjust)
    assert max(ulps(g, w) for g, w in zip(got.tolist(), want, strict=True)) <= 2


def test_constant_data_give_the_constant(engine):
    x = np.full(20000, 0.1)
    for adjust in (True, False):
        got = ewm_stat(x, "mean", alpha=0.01, adjust=adjust, policy="raise")[0]
        assert (got == 0.1).all()
        v = ewm_stat(x, "var", alpha=0.01, adjust=adjust, policy="raise")[0]
        assert (v[1:] == 0.0).all()


@pytest.mark.parametrize("kw", [{"alpha": 0.2}, {"span": 5}, {"com": 2.5}, {"halflife": 3.0}])
@pytest.mark.parametrize("ignore_na", [True, False])
def test_agrees_with_pandas(kw, ignore_na):
    rng = np.random.default_rng(3)
    x = rng.integers(-9, 10, size=200).astype(float)
    x[[0, 5, 6, 40]] = np.nan
    s = pd.Series(x, index=pd.date_range("2024", periods=200, freq="h", tz="UTC"))
    for st in ("mean", "var", "std"):
        got = getattr(s.ewm(ignore_na=ignore_na, min_periods=3, **kw).nanstats, st)(
            nan_policy="omit"
        )
        want = getattr(s.ewm(ignore_na=ignore_na, min_periods=3, **kw), st)()
        pd.testing.assert_series_equal(got, want, rtol=1e-12)


def test_times_agree_with_pandas():
    t = pd.to_datetime(["2024-01-01", "2024-01-02", "2024-01-05", "2024-01-06"])
    s = pd.Series([1.0, 3.0, np.nan, 10.0])
    got = s.ewm(halflife="2 days", times=t).nanstats.mean(nan_policy="omit")
    pd.testing.assert_series_equal(got, s.ewm(halflife="2 days", times=t).mean())


def test_policies():
    a = na.make_nan(4)
    x = np.array([1.0, 2.0, a, 3.0])
    prop = ewm_stat(x, "mean", alpha=0.5, policy="propagate")[0]
    assert prop[:2].tolist() == [1.0, 1.6666666666666667]
    assert prop.view(np.int64)[2] == prop.view(np.int64)[3] == x.view(np.int64)[2]
    omit = ewm_stat(x, "mean", alpha=0.5, policy="omit")[0]
    assert omit[2] == omit[1] and not np.isnan(omit[3])
    with pytest.raises(na.NaNError, match="position 2"):
        ewm_stat(x, "mean", alpha=0.5, policy="raise")
    s = pd.Series([1.0, np.nan], name="v")
    with pytest.raises(na.NaNError, match="column 'v'|'v'"):
        s.ewm(alpha=0.5).nanstats.mean(nan_policy="raise")


def test_nullable_and_frames():
    s = pd.Series(pd.array([1, None, 3, 4], dtype="Int64"))
    got = s.ewm(alpha=0.5).nanstats.mean(nan_policy="omit")
    want = s.astype("float64").ewm(alpha=0.5).mean()
    np.testing.assert_allclose(got.to_numpy(float), want.to_numpy(float), rtol=1e-15)
    prop = s.ewm(alpha=0.5).nanstats.mean(nan_policy="propagate")
    assert prop.isna().tolist() == [False, True, True, True]
    df = pd.DataFrame({"a": [1.0, 2.0, 3.0], "b": [3, 2, 1]})
    out = df.ewm(span=2).nanstats.var(nan_policy="raise")
    pd.testing.assert_frame_equal(out, df.ewm(span=2).var())


def test_parameters_checked():
    with pytest.raises(ValueError, match="mutually exclusive"):
        ewm_alpha(com=1, span=2)
    with pytest.raises(ValueError, match="alpha"):
        ewm_alpha(alpha=0)
    x = np.array([1.0, 2.0])
    before = x.copy()
    ewm_stat(x, "std", alpha=0.5, policy="raise")
    assert (x == before).all()


def fraction_ewm_var(x, alpha: float, bias: bool) -> list[float]:
    """pandas' weighted variance (adjust=True), exact, rounded once."""
    f = 1 - Fraction(alpha)
    out = []
    xs = [Fraction(float(v)) for v in x]
    for t in range(len(xs)):
        w = [f ** (t - j) for j in range(t + 1)]
        sw, sw2 = sum(w), sum(v * v for v in w)
        m = sum(wi * xi for wi, xi in zip(w, xs[: t + 1], strict=True)) / sw
        c = sum(wi * (xi - m) ** 2 for wi, xi in zip(w, xs[: t + 1], strict=True)) / sw
        if bias:
            out.append(float(c))
        else:
            den = sw * sw - sw2
            out.append(float(c * sw * sw / den) if den > 0 else math.nan)
    return out


@pytest.mark.parametrize("bias", [True, False])
def test_var_close_to_the_exact_one_even_after_a_jump(engine, bias):
    # a large offset, then a jump to another level: the sums re-centre on the mean
    rng = np.random.default_rng(7)
    x = np.concatenate([1e9 + rng.normal(size=60), 3e15 + rng.integers(-4, 5, 60) * 2.0])
    got = ewm_stat(x, "var", alpha=0.3, bias=bias, policy="raise")[0]
    want = fraction_ewm_var(x, 0.3, bias)
    err = [ulps(g, w) for g, w in zip(got.tolist(), want, strict=True) if not math.isnan(w)]
    assert max(err) <= 2
    assert np.isnan(got[0]) == (not bias)


@pytest.mark.parametrize("adjust", [True, False])
def test_gaps_decay_as_pandas(engine, adjust):
    rng = np.random.default_rng(11)
    x = rng.normal(size=300)
    x[rng.random(300) < 0.2] = np.nan
    x[100:112] = np.nan  # a gap (pandas' float weights lose a longer one: NaN)
    x[200:1200] = np.nan  # a gap past the normal range of the decayed weights
    x = np.concatenate([x, rng.normal(size=5)])
    s = pd.Series(x[:200])
    for st in ("mean", "var", "std"):
        for ign in (True, False):
            got = getattr(s.ewm(alpha=0.4, adjust=adjust, ignore_na=ign).nanstats, st)(
                nan_policy="omit"
            )
            want = getattr(s.ewm(alpha=0.4, adjust=adjust, ignore_na=ign), st)()
            pd.testing.assert_series_equal(got, want, rtol=1e-13)
    after = pd.Series(x).ewm(alpha=0.4, adjust=True).nanstats.mean(nan_policy="omit")
    assert after.iloc[-5] == x[-5]  # the old weights decayed to nothing, as pandas
    assert after.iloc[-4] == pd.Series(x).ewm(alpha=0.4).mean().iloc[-4]


def fraction_ewm_var_sums(x, alpha: float, bias: bool) -> list[float]:
    """pandas' weighted variance (adjust=True) from exact running sums (linear time)."""
    f = 1 - Fraction(alpha)
    w = s = q = w2 = Fraction(0)
    out = []
    for v in x:
        xv = Fraction(float(v))
        w, s, q, w2 = f * w + 1, f * s + xv, f * q + xv * xv, f * f * w2 + 1
        c = q / w - (s / w) ** 2
        den = w * w - w2
        out.append(float(c) if bias else float(c * w * w / den) if den > 0 else math.nan)
    return out


@pytest.mark.parametrize("bias", [True, False])
def test_var_after_a_jump_once_the_weights_are_steady(engine, bias):
    # the weights stop changing (in double-double) after ~110 steps at alpha 0.5; a
    # level jump then re-centres the sums: the kept 1/den must survive it (a bug once
    # gave ~1e6x the variance from there on)
    rng = np.random.default_rng(5)
    x = np.concatenate([rng.normal(size=200), 1e6 + rng.normal(size=150)])
    got = ewm_stat(x, "var", alpha=0.5, bias=bias, policy="raise")[0]
    want = fraction_ewm_var_sums(x, 0.5, bias)
    err = [ulps(g, w) for g, w in zip(got.tolist(), want, strict=True) if not math.isnan(w)]
    assert max(err) <= 2
    pd_var = pd.Series(x).ewm(alpha=0.5).var(bias=bias).to_numpy()
    np.testing.assert_allclose(got[-100:], pd_var[-100:], rtol=1e-6)
    std = ewm_stat(x, "std", alpha=0.5, bias=bias, policy="raise")[0]
    np.testing.assert_array_equal(std[-100:], np.sqrt(got[-100:]))


@pytest.mark.parametrize("stat", ["mean", "var", "std"])
@pytest.mark.parametrize("ignore_na", [True, False])
def test_a_signaling_nan_is_refused_under_omit(engine, stat, ignore_na):
    # "omit" finds it inside the kernel pass (no separate scan): same error, same bits
    x = np.array([1.0, np.nan, 2.0, 3.0, np.nan, 4.0] * 20)
    bits = x.view(np.int64)
    bits[100] = 0x7FF0000000000001  # signaling, late in the series
    before = x.copy()
    with pytest.raises(na.SignalingNaNError, match="position 100"):
        ewm_stat(x, stat, alpha=0.3, ignore_na=ignore_na, policy="omit")
    assert np.array_equal(x.view(np.int64), before.view(np.int64))
    x[100] = np.nan  # quiet again: the same values as a scan-first run
    got = ewm_stat(x, stat, alpha=0.3, ignore_na=ignore_na, policy="omit")[0]
    want = getattr(pd.Series(x).ewm(alpha=0.3, ignore_na=ignore_na), stat)().to_numpy()
    np.testing.assert_allclose(got, want, rtol=1e-12)
    assert ewm_stat(x, stat, alpha=0.3, policy="totalorder")[0].shape == x.shape
