"""Core two-variable statistics: exactness against Fraction, policies, engines."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from nanaccess import NaNError, SignalingNaNError
from nanaccess.core import _numba as nb
from nanaccess.core.bivariate import corr_matrix, corr_pair, pairwise, segments_of
from nanaccess.core.bivariate.ranks import inversions_numpy, kendall_counts
from nanaccess.core.bivariate.rounding import sqrt_ratio
from nanaccess.core.bivariate.sums import pair_tables

ENGINES = ["numpy"] + (["numba"] if nb.AVAILABLE else [])

finite = st.floats(allow_nan=False, allow_infinity=False, min_value=-1e150, max_value=1e150)
pairs_st = st.lists(st.tuples(finite, finite), min_size=2, max_size=30)


def _bits(v: float) -> int:
    return int(np.float64(v).view(np.int64))


def _comoments(x, y):
    xs = [Fraction(float(v)) for v in x]
    ys = [Fraction(float(v)) for v in y]
    n = len(xs)
    sx, sy = sum(xs), sum(ys)
    cxy = n * sum(a * b for a, b in zip(xs, ys, strict=True)) - sx * sy
    cxx = n * sum(a * a for a in xs) - sx * sx
    cyy = n * sum(b * b for b in ys) - sy * sy
    return n, cxy, cxx, cyy


def _float(q: Fraction) -> float:
    try:
        return float(q)
    except OverflowError:
        return math.inf if q > 0 else -math.inf


def _is_correct_sqrt(f: float, q: Fraction) -> bool:
    """f is sqrt(q) correctly rounded: q lies within f's rounding interval."""
    if f == 0:
        return q == 0
    lo = Fraction(f) - Fraction(f - math.nextafter(f, 0)) / 2
    hi = Fraction(f) + Fraction(math.nextafter(f, math.inf) - f) / 2
    return lo * lo <= q <= hi * hi


@pytest.mark.parametrize("engine", ENGINES)
@given(data=pairs_st)
def test_pearson_and_cov_are_correctly_rounded(engine, data):
    x = np.array([a for a, _ in data])
    y = np.array([b for _, b in data])
    n, cxy, cxx, cyy = _comoments(x, y)
    cov, _ = corr_pair(x, y, stat="cov", nan_policy="omit", engine=engine)
    ref = cxy / (n * (n - 1))
    assert _bits(cov) == _bits(_float(ref)) or (cov == 0 and ref == 0)
    r, _ = corr_pair(x, y, nan_policy="omit", engine=engine)
    if cxx == 0 or cyy == 0:
        assert math.isnan(r)
        return
    assert -1.0 <= r <= 1.0
    assert (r < 0) == (cxy < 0) or r == 0
    assert _is_correct_sqrt(abs(r), cxy * cxy / (cxx * cyy))


@given(data=pairs_st, seed=st.integers(0, 2**32 - 1))
def test_symmetric_and_permutation_invariant(data, seed):
    x = np.array([a for a, _ in data])
    y = np.array([b for _, b in data])
    perm = np.random.default_rng(seed).permutation(x.size)
    for stat, method in (("corr", "pearson"), ("cov", "pearson"), ("corr", "spearman"),
                         ("corr", "kendall")):
        a, _ = corr_pair(x, y, stat=stat, method=method, nan_policy="omit")
        b, _ = corr_pair(y, x, stat=stat, method=method, nan_policy="omit")
        c, _ = corr_pair(x[perm], y[perm], stat=stat, method=method, nan_policy="omit")
        assert _bits(a) == _bits(b) == _bits(c)


@given(a=finite, b=finite, c=finite, d=finite)
def test_two_distinct_points_give_exactly_one(a, b, c, d):
    x, y = np.array([a, b]), np.array([c, d])
    r, _ = corr_pair(x, y, nan_policy="omit")
    if a == b or c == d:
        assert math.isnan(r)
    else:
        assert r == (1.0 if (b - a > 0) == (d - c > 0) else -1.0)


def test_collinear_data_with_large_offset_is_exactly_one():
    x = np.arange(1000.0)
    y = 3 * x + 1e7  # exact in float64
    assert corr_pair(x, y, nan_policy="omit")[0] == 1.0
    assert corr_pair(x, -y, nan_policy="omit")[0] == -1.0
    # NumPy's two-pass formula misses: the classic failure this fixes
    z = np.array([1e7 + 1, 1e7 + 2, 1e7 + 3]) * 1e8
    assert corr_pair(z, 2 * z, nan_policy="omit")[0] == 1.0


def test_wide_exponent_range_and_subnormals_against_fraction():
    x = np.array([1e-300, 5e-324, 1e300, -2.5, 0.0, -0.0, 3e-310])
    y = np.array([2.0, 1e300, -1e-300, 7.0, 1.0, 1e-320, -4.0])
    n, cxy, cxx, cyy = _comoments(x, y)
    for engine in ENGINES:
        cov, _ = corr_pair(x, y, stat="cov", nan_policy="omit", engine=engine)
        assert cov == _float(cxy / (n * (n - 1)))
        r, _ = corr_pair(x, y, nan_policy="omit", engine=engine)
        assert _is_correct_sqrt(abs(r), cxy * cxy / (cxx * cyy))


def test_big_integers_are_exact():
    x = np.array([2**62, 2**62 + 1, -(2**61), 5], dtype=np.int64)
    y = np.array([1, 2, 3, 2**60], dtype=np.int64)
    n, _, _, _ = 4, 0, 0, 0
    xs, ys = [int(v) for v in x], [int(v) for v in y]
    cxy = n * sum(a * b for a, b in zip(xs, ys, strict=True)) - sum(xs) * sum(ys)
    assert corr_pair(x, y, stat="cov", nan_policy="omit")[0] == cxy / (n * (n - 1))


@pytest.mark.parametrize("engine", ENGINES)
def test_engines_give_the_same_tables(engine):
    rng = np.random.default_rng(3)
    v = rng.standard_normal((3, 500)) * np.array([[1e-5], [1e5], [1.0]])
    ok = rng.random((3, 500)) > 0.1
    pairs = np.array([[0, 1], [1, 2], [0, 2]])
    for mode in (0, 1):
        a = pair_tables(v, ok, pairs, mode, engine="numpy")
        b = pair_tables(v, ok, pairs, mode, engine=engine)
        assert (a.ints() == b.ints()).all() and (a.counts == b.counts).all()


def test_infinity_gives_nan():
    x = np.array([1.0, np.inf, 3.0])
    assert math.isnan(corr_pair(x, np.array([1.0, 2.0, 4.0]), nan_policy="omit")[0])
    assert math.isnan(corr_pair(x, np.array([1.0, 2.0, 4.0]), stat="cov",
                                nan_policy="omit")[0])


# ----------------------------------------------------------------------------- policies

def _nan(payload: int, negative: bool = False, signaling: bool = False) -> float:
    bits = (0xFFF0000000000000 if negative else 0x7FF0000000000000) | payload
    if not signaling:
        bits |= 1 << 51
    return np.array([bits], np.uint64).view(np.float64)[0]


def test_omit_is_pairwise_complete_like_pandas():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    a = rng.standard_normal((60, 4))
    a[rng.random((60, 4)) < 0.2] = np.nan
    df = pd.DataFrame(a)
    for method in ("pearson", "spearman", "kendall"):
        got, miss = corr_matrix(a, method=method, nan_policy="omit")
        assert miss is None
        np.testing.assert_allclose(got, df.corr(method=method).to_numpy(), rtol=1e-14,
                                   atol=1e-15)
    got, _ = corr_matrix(a, stat="cov", nan_policy="omit")
    np.testing.assert_allclose(got, df.cov().to_numpy(), rtol=1e-13)
    got, _ = corr_matrix(a, nan_policy="omit", min_periods=50)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(df.corr(min_periods=50).to_numpy()))


def test_raise_names_the_column_and_first_position():
    x = np.array([1.0, 2.0, np.nan, 4.0])
    with pytest.raises(NaNError, match="column 1 holds 1 NaN value.*position 2"):
        corr_matrix(np.stack([np.arange(4.0), x], axis=1), nan_policy="raise")
    with pytest.raises(NaNError, match="b holds 1 missing value"):
        corr_pair(np.arange(4.0), np.arange(4.0), missing_y=np.array([0, 0, 1, 0], bool),
                  nan_policy="raise", subjects=["a", "b"])


def test_signaling_nan_raises_except_totalorder():
    x = np.array([1.0, _nan(5, signaling=True), 3.0, 4.0])
    y = np.array([1.0, 2.0, 5.0, 4.0])
    for policy in ("omit", "propagate", "smallest", "largest", "raise"):
        with pytest.raises(SignalingNaNError):
            corr_pair(x, y, nan_policy=policy)
    r, _ = corr_pair(x, y, method="spearman", nan_policy="totalorder")
    assert r == corr_pair(np.array([1.0, 9.0, 3.0, 4.0]), y, method="spearman",
                          nan_policy="omit")[0]


def test_propagate_returns_the_greatest_nan_with_payload():
    x = np.array([1.0, _nan(3), 3.0, _nan(7, negative=True)])
    y = np.array([1.0, 2.0, _nan(5), 4.0])
    for method in ("pearson", "spearman", "kendall"):
        r, miss = corr_pair(x, y, method=method, nan_policy="propagate")
        assert not miss and _bits(r) == _bits(_nan(5))
    r, miss = corr_pair(x, y, stat="cov", nan_policy="largest")  # moments: as propagate
    assert _bits(r) == _bits(_nan(5))


def test_missing_is_not_nan():
    x = np.arange(5.0)
    y = np.array([1.0, 3.0, 2.0, 5.0, 4.0])
    m = np.array([0, 1, 0, 0, 0], bool)
    r, miss = corr_pair(x, y, missing_y=m, nan_policy="propagate")
    assert miss and math.isnan(r)
    r, miss = corr_pair(x, y, missing_y=m, nan_policy="omit")
    assert not miss and r == corr_pair(np.delete(x, 1), np.delete(y, 1), nan_policy="omit")[0]
    y2 = y.copy()
    y2[2] = _nan(9)
    r, miss = corr_pair(x, y2, missing_y=m, nan_policy="propagate")  # NaN wins over missing
    assert not miss and _bits(r) == _bits(_nan(9))


def test_ordering_policies_rank_nans():
    scipy_stats = pytest.importorskip("scipy.stats")
    x = np.array([1.0, np.nan, 3.0, 2.0, 5.0])
    y = np.array([2.0, 9.0, 1.0, 4.0, 3.0])
    for policy, fill in (("largest", 1e9), ("smallest", -1e9)):
        xf = np.where(np.isnan(x), fill, x)
        assert corr_pair(x, y, method="spearman", nan_policy=policy)[0] == pytest.approx(
            scipy_stats.spearmanr(xf, y)[0], abs=1e-15)
        assert corr_pair(x, y, method="kendall", nan_policy=policy)[0] == pytest.approx(
            scipy_stats.kendalltau(xf, y)[0], abs=1e-15)


def test_no_mutation_and_read_only_input():
    x = np.array([1.0, np.nan, 3.0, 4.0])
    y = np.array([2.0, 1.0, np.nan, 3.0])
    x.flags.writeable = False
    before = (x.tobytes(), y.tobytes())
    for method in ("pearson", "spearman", "kendall"):
        corr_pair(x, y, method=method, nan_policy="omit")
    assert (x.tobytes(), y.tobytes()) == before


# ----------------------------------------------------------------- ranks, Kendall, groups

@given(st.lists(st.integers(0, 6), max_size=60))
def test_inversions_numpy_against_quadratic(vals):
    a = np.array(vals, dtype=np.int64)
    ref = sum(1 for i in range(a.size) for j in range(i + 1, a.size) if a[i] > a[j])
    assert inversions_numpy(a) == ref


@pytest.mark.parametrize("engine", ENGINES)
@given(st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4)), min_size=2, max_size=40))
def test_kendall_counts_against_quadratic(engine, pts):
    x = np.array([a for a, _ in pts])
    y = np.array([b for _, b in pts])
    s = sum(int(np.sign(x[j] - x[i]) * np.sign(y[j] - y[i]))
            for i in range(x.size) for j in range(i + 1, x.size))
    assert kendall_counts(x, y, engine)[0] == s


def test_float32_int_bool_columns():
    x32 = np.array([1.5, 2.25, 3.0, 7.0], np.float32)
    xi = np.array([1, 5, 2, 9])
    xb = np.array([True, False, True, True])
    for a in (x32, xi, xb):
        got, _ = corr_pair(a, xi, nan_policy="omit")
        assert got == pytest.approx(np.corrcoef(a.astype(float), xi)[0, 1], rel=1e-15)


@pytest.mark.parametrize("engine", ENGINES)
def test_grouped_segments_equal_per_group(engine):
    rng = np.random.default_rng(5)
    n = 300
    codes = rng.integers(-1, 7, n)
    a, b = rng.standard_normal(n), rng.standard_normal(n)
    a[rng.random(n) < 0.1] = np.nan
    seg = segments_of(codes, 7)
    res = pairwise([a, b], np.array([[0, 1], [0, 0]]), segments=seg, engine=engine)
    for g in range(7):
        sel = codes == g
        assert _bits(res.values[g, 0]) == _bits(corr_pair(a[sel], b[sel], nan_policy="omit")[0])


def test_sqrt_ratio_rounds_correctly():
    for num, den in ((2, 1), (1, 3), (10**40 + 1, 10**40), (1, 2**200), (7**50, 3**70)):
        assert _is_correct_sqrt(sqrt_ratio(num, den), Fraction(num, den))


def test_table_digits_engines_agree_with_python_ints():
    from nanaccess.core.bivariate.sums import _numpy_digits, table_ints

    rng = np.random.default_rng(9)
    flat = rng.integers(-(2**40), 2**40, (50, 150))
    flat[:, ::7] = 0
    ref = [sum(int(v) << k for k, v in enumerate(row)) for row in flat.tolist()]
    assert table_ints(flat).tolist() == ref
    dig = np.zeros((50, 5 + 3), np.int64)
    _numpy_digits(flat, dig, 5)
    if nb.AVAILABLE:
        cdig = np.zeros_like(dig)
        nb.kernels("bivariate")["table_digits"](flat, cdig)
        assert (cdig == dig).all()


@pytest.mark.parametrize("engine", ENGINES)
def test_grouped_matrix_with_infinity_and_nans_equals_per_group(engine):
    rng = np.random.default_rng(11)
    n = 400
    codes = rng.integers(0, 5, n)
    cols = [rng.standard_normal(n) * 10.0 ** k for k in (-3, 0, 4)]
    cols[0][rng.random(n) < 0.1] = np.nan
    cols[2][np.flatnonzero(codes == 3)[0]] = np.inf
    pairs = np.array([[i, j] for i in range(3) for j in range(i, 3)])
    for stat in ("corr", "cov"):
        res = pairwise(cols, pairs, stat=stat, segments=segments_of(codes, 5), engine=engine)
        for g in range(5):
            sel = codes == g
            for p, (i, j) in enumerate(pairs.tolist()):
                ref, _ = corr_pair(cols[i][sel], cols[j][sel], stat=stat, nan_policy="omit")
                assert _bits(res.values[g, p]) == _bits(ref), (stat, g, i, j)


def test_threaded_ranked_pairs_equal_serial(monkeypatch):
    import importlib

    pw = importlib.import_module("nanaccess.core.bivariate.pairwise")

    rng = np.random.default_rng(12)
    data = rng.integers(0, 20, (300, 4)).astype(float)
    data[rng.random((300, 4)) < 0.05] = np.nan
    serial = {m: corr_matrix(data, method=m, nan_policy="omit")[0]
              for m in ("spearman", "kendall")}
    monkeypatch.setattr(pw, "_THREAD_ROWS", 10)
    for m, ref in serial.items():
        got = corr_matrix(data, method=m, nan_policy="omit")[0]
        assert got.tobytes() == ref.tobytes()
