"""The certified shortcut of moving cov / corr gives the exact path's bits, window by
window (numba engine against the NumPy reference, and the uncompiled kernel)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import nanaccess  # noqa: F401
from nanaccess.core import _numba as nb
from nanaccess.core._numba import bivariate_cert_roll as kern
from nanaccess.core.bivariate.certified import window_shortcut
from nanaccess.options import option_context

needs_numba = pytest.mark.skipif(not nb.AVAILABLE, reason="numba not installed")


def _bits(a) -> np.ndarray:
    return np.asarray(a, np.float64).view(np.int64)


def _both(fn):
    with option_context(engine="numba", compile="foreground"):
        fast = fn()
    with option_context(engine="numpy"):
        exact = fn()
    return fast, exact


def _series(kind: str, n: int = 400) -> tuple[pd.Series, pd.Series]:
    rng = np.random.default_rng(5)
    if kind == "normal":
        x = rng.standard_normal(n)
        y = 0.3 * x + rng.standard_normal(n)
        x[rng.random(n) < 0.03] = np.nan
        y[rng.random(n) < 0.03] = np.inf - np.inf  # a NaN made by arithmetic
    elif kind == "collinear":
        x = np.arange(n, dtype=np.float64) % 37
        y = 3 * x + 1e7
    elif kind == "drift":  # a segment near 1e10 leaves the windows
        x = np.r_[1e10 + rng.standard_normal(n // 2) * 1e-3, rng.standard_normal(n - n // 2)]
        y = np.r_[rng.standard_normal(n // 2), -0.5 * x[n // 2:] + 1e-2]
    elif kind == "extreme":  # products beyond the float range, subnormal products
        x = rng.standard_normal(n) * np.where(rng.random(n) < 0.5, 1e200, 1e-200)
        y = rng.standard_normal(n) * 1e150
    elif kind == "flat":  # integer data with constant stretches: zero variances
        x = np.repeat(rng.integers(0, 3, n // 8), 8).astype(np.float64)
        y = np.repeat(rng.integers(0, 3, n // 4), 4).astype(np.float64)
        x[::50] = np.inf
    else:  # ties of the rounding: small integers
        x = rng.integers(-3, 4, n).astype(np.float64)
        y = rng.integers(-3, 4, n).astype(np.float64)
    return pd.Series(x), pd.Series(y)


@needs_numba
@pytest.mark.parametrize("kind", ["normal", "collinear", "drift", "extreme", "flat", "ints"])
@pytest.mark.parametrize("stat", ["corr", "cov"])
def test_rolling_and_expanding_bits_equal_the_exact_path(kind, stat):
    x, y = _series(kind)
    for make, kw in ((lambda s: s.rolling(10), {}), (lambda s: s.rolling(50, min_periods=3), {}),
                     (lambda s: s.expanding(2), {}), (lambda s: s.rolling(7), {"ddof": 0})):
        fast, exact = _both(lambda make=make, kw=kw: getattr(make(x).nanstats, stat)(
            y, nan_policy="omit", **kw))
        np.testing.assert_array_equal(_bits(fast), _bits(exact))
        assert (fast.dropna().abs() <= 1).all() or stat == "cov"


@needs_numba
def test_time_windows_and_frames_bits_equal():
    rng = np.random.default_rng(9)
    idx = pd.DatetimeIndex(np.sort(rng.integers(0, 200, 300)) * 86_400_000_000_000,
                           tz="Europe/Paris")  # duplicate labels
    df = pd.DataFrame({"a": rng.standard_normal(300), "b": rng.standard_normal(300)},
                      index=idx)
    df.iloc[::17, 0] = np.nan
    fast, exact = _both(lambda: df.rolling("5D").nanstats.corr(nan_policy="omit"))
    np.testing.assert_array_equal(_bits(fast.to_numpy()), _bits(exact.to_numpy()))
    fast, exact = _both(lambda: df["a"].rolling("3D").nanstats.cov(df["b"], nan_policy="omit"))
    np.testing.assert_array_equal(_bits(fast), _bits(exact))


@needs_numba
def test_the_shortcut_certifies_nearly_every_window():
    rng = np.random.default_rng(1)
    x = rng.standard_normal(5000)
    y = rng.standard_normal(5000) + x
    ok = rng.random(5000) > 0.01
    start = np.maximum(np.arange(5000) - 99, 0)
    with option_context(engine="numba", compile="foreground"):
        for stat in ("corr", "cov"):
            got = window_shortcut(x, y, ok, start, np.arange(5000) + 1, stat=stat, ddof=1,
                                  min_periods=1)
            assert got is not None and got[1].mean() > 0.99
    xs, ys = pd.Series(np.where(ok, x, np.nan)), pd.Series(y)
    for stat in ("corr", "cov"):  # past the sums' first fresh start (4096 windows)
        fast, exact = _both(lambda stat=stat: getattr(xs.rolling(100, min_periods=1).nanstats,
                                                      stat)(ys, nan_policy="omit"))
        np.testing.assert_array_equal(_bits(fast), _bits(exact))


@needs_numba
@pytest.mark.parametrize("stat", ["corr", "cov"])
def test_threaded_blocks_give_the_bits_of_one_block(stat):
    """Blocks of windows between the sums' fresh starts run on numba's threads: the
    same bits (values and certified mask) as the serial kernel, whatever the number of
    threads and the block size; every certified value the exact path's."""
    import numba

    rng = np.random.default_rng(3)
    n = 3000
    x = rng.standard_normal(n)
    y = rng.standard_normal(n) + 0.2 * x
    x[::97] = 1e8  # far from the rest: windows the shortcut leaves to the exact path
    y[::501] = np.inf
    ok = rng.random(n) > 0.02
    start = np.maximum(np.arange(n) - 49, 0)
    end = np.arange(n) + 1
    fin = np.empty(n, bool)
    ninf = np.empty(n + 1, np.int64)
    with option_context(engine="numba", compile="foreground"):
        k = nb.kernels("bivariate_cert_roll")
        big = nb.kernels("window_pair_prep")["pair_prep"](x, y, ok, start, end, fin, ninf)
    code = 1 if stat == "cov" else 0
    threads = numba.get_num_threads()
    for restart in (64, 100, 1000):
        got = []
        for name, nt in (("rolling_pair", threads), ("rolling_pair_parallel", threads),
                         ("rolling_pair_parallel", 1)):
            out, good = np.full(n, 7.0), np.zeros(n, bool)
            numba.set_num_threads(nt)
            try:
                k[name](x, y, fin, ninf, start, end, big, restart, code, 1.0, 1, out, good)
            finally:
                numba.set_num_threads(threads)
            got.append((_bits(out), good))
        for out, good in got[1:]:
            np.testing.assert_array_equal(out, got[0][0])
            np.testing.assert_array_equal(good, got[0][1])
        assert 0.5 < got[0][1].mean() < 1
    with option_context(engine="numba", compile="foreground"):
        fast = window_shortcut(x, y, ok, start, end, stat=stat, ddof=1, min_periods=1,
                               restart=64)
    assert fast is not None
    xs = pd.Series(np.where(ok, x, np.nan))
    with option_context(engine="numpy"):
        exact = getattr(xs.rolling(50, min_periods=1).nanstats, stat)(
            pd.Series(y), nan_policy="omit").to_numpy()
    np.testing.assert_array_equal(_bits(fast[0][fast[1]]), _bits(exact[fast[1]]))


def test_uncompiled_kernel_matches_the_exact_path():
    """The plain-Python kernel (no numba) certifies the same bits."""
    x, y = _series("normal", 24)
    ok = (x.notna() & y.notna()).to_numpy()
    start = np.maximum(np.arange(24) - 4, 0)
    end = np.arange(24) + 1
    out = np.empty(24)
    good = np.zeros(24, bool)
    kern.rolling_pair(x.to_numpy(), y.to_numpy(), ok, np.zeros(0, np.int64), start, end, 5,
                      4096, 0, 1.0, 1, out, good)
    with option_context(engine="numpy"):
        exact = x.rolling(5, min_periods=1).nanstats.corr(y, nan_policy="omit").to_numpy()
    assert good.mean() > 0.9
    np.testing.assert_array_equal(_bits(out[good]), _bits(exact[good]))
    assert not np.shares_memory(out, x.to_numpy())


@needs_numba
def test_policies_other_than_omit_keep_their_results():
    x = pd.Series([1.0, 2.0, np.nan, 4.0, 5.0, 7.0] * 50)
    y = pd.Series([2.0, 1.0, 3.0, 5.0, 4.0, 9.0] * 50)
    fast, exact = _both(lambda: x.rolling(3).nanstats.corr(y, nan_policy="propagate"))
    np.testing.assert_array_equal(_bits(fast), _bits(exact))
    a = x.to_numpy().copy()
    a.view(np.int64)[2] = 0x7FF0000000000001  # a signaling NaN raises under "omit"
    for engine in ("numba", "numpy"):
        with option_context(engine=engine), pytest.raises(Exception, match="signaling"):
            pd.Series(a).rolling(3).nanstats.corr(y, nan_policy="omit")


def _frame(kind: str, n: int = 3000) -> pd.DataFrame:
    rng = np.random.default_rng(11)
    a = rng.standard_normal((n, 4))
    a[:, 1] += 0.5 * a[:, 0]
    a[rng.random((n, 4)) < 0.02] = np.nan
    df = pd.DataFrame(a, columns=list("abcd"))
    if kind == "offset":  # exactly collinear far from zero: the exact path decides
        df["e"] = 3 * df["a"] + 1e7
    elif kind == "inf":
        df.iloc[5, 2] = np.inf
    elif kind == "ints":
        df["e"] = rng.integers(-5, 5, n)
        df["f"] = pd.array(rng.integers(0, 3, n), dtype="Int64")
    elif kind == "extreme":
        df["a"] *= 1e200
        df["b"] *= 1e-200
    return df


@needs_numba
@pytest.mark.parametrize("kind", ["plain", "offset", "inf", "ints", "extreme"])
@pytest.mark.parametrize("stat, kw", [("corr", {}), ("cov", {}), ("cov", {"ddof": 0}),
                                      ("corr", {"min_periods": 2950})])
def test_matrix_bits_equal_the_exact_path(kind, stat, kw):
    df = _frame(kind)
    before = df.copy()
    fast, exact = _both(lambda: getattr(df.nanstats, stat)(nan_policy="omit", **kw))
    np.testing.assert_array_equal(_bits(fast.to_numpy()), _bits(exact.to_numpy()))
    pd.testing.assert_frame_equal(df, before)
    if stat == "corr":
        assert (fast.abs().fillna(0) <= 1).all().all()


@needs_numba
def test_matrix_shortcut_certifies_plain_pairs():
    from nanaccess.core.bivariate import all_pairs
    from nanaccess.core.bivariate.certified import matrix_shortcut

    v = _frame("plain", 20_000).to_numpy().T.copy()
    with option_context(engine="numba", compile="foreground"):
        got = matrix_shortcut(v, ~np.isnan(v), all_pairs(4), stat="corr", ddof=1)
    assert got is not None and got[1].all()
    assert (got[0][0, [0, 4, 7, 9]] == 1.0).all()  # the diagonal


@needs_numba
@pytest.mark.parametrize("stat, kw", [("corr", {}), ("cov", {"ddof": 0}),
                                      ("corr", {"min_periods": 6})])
def test_grouped_matrices_bits_equal_the_exact_path(stat, kw):
    rng = np.random.default_rng(12)
    n = 4000
    df = pd.DataFrame({"g": rng.integers(0, 300, n), "a": rng.standard_normal(n),
                       "b": rng.standard_normal(n), "i": rng.integers(-2, 3, n)})
    df["c"] = 3 * df["a"] + 1e7  # exactly collinear far from zero: the exact path
    df.loc[df["g"] == 7, "b"] = 1.5  # a constant column in a group: zero variance
    df.iloc[::11, 1] = np.nan
    df.iloc[5, 2] = np.inf
    gb = df.groupby("g")
    fast, exact = _both(lambda: getattr(gb.nanstats, stat)(nan_policy="omit", **kw))
    np.testing.assert_array_equal(_bits(fast.to_numpy()), _bits(exact.to_numpy()))
