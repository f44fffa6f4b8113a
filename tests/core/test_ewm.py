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


@pytest.mark.parametrize("kw", [{"alpha": 0.2}, {"span": 5}, {"com": 2.5},
                                {"halflife": 3.0}])
@pytest.mark.parametrize("ignore_na", [True, False])
def test_agrees_with_pandas(kw, ignore_na):
    rng = np.random.default_rng(3)
    x = rng.integers(-9, 10, size=200).astype(float)
    x[[0, 5, 6, 40]] = np.nan
    s = pd.Series(x, index=pd.date_range("2024", periods=200, freq="h", tz="UTC"))
    for st in ("mean", "var", "std"):
        got = getattr(s.ewm(ignore_na=ignore_na, min_periods=3, **kw).nanstats, st)(
            nan_policy="omit")
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
