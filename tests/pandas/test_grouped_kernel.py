"""core.grouped.grouped_stat against the ungrouped core on each group's slice, bit for bit."""

from __future__ import annotations

import zlib

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from nanaccess import NaNError, SignalingNaNError, make_nan
from nanaccess.core import _numba as NB
from nanaccess.core._numba import grouped as nbg
from nanaccess.core.grouped import HAVE_NUMBA, grouped_stat
from nanaccess.core.grouped import order as GO
from nanaccess.core.moments import moment_stat
from nanaccess.core.select import order_stat

POLICIES = ["propagate", "omit", "smallest", "largest", "totalorder"]
ENGINES = ["numpy"] + (["numba"] if HAVE_NUMBA else [])
ORDER_CASES = [
    ("median", None, "linear"),
    ("median_low", None, "linear"),
    ("median_high", None, "linear"),
    ("min", None, "linear"),
    ("max", None, "linear"),
    ("quantile", 0.9, "linear"),
    ("quantile", [0.0, 0.25, 0.5, 1.0], "linear"),
    ("quantile", [0.3, 0.7], "nearest"),
    ("quantile", [0.3, 0.7], "lower"),
    ("quantile", [0.3, 0.7], "higher"),
    ("quantile", [0.3, 0.7], "midpoint"),
    ("quantile", [0.1, 0.9], "exclusive"),
]


def bits(a: np.ndarray) -> np.ndarray:
    a = np.asarray(a)
    if a.dtype.kind == "f":
        return a.view(f"u{a.dtype.itemsize}")
    if a.dtype.kind in "mM":
        return a.view(np.int64)
    return a


def assert_same_bits(got, want, got_miss=None, want_miss=None):
    got, want = np.asarray(got), np.asarray(want)
    gm = np.zeros(got.shape, bool) if got_miss is None else np.asarray(got_miss)
    wm = np.zeros(want.shape, bool) if want_miss is None else np.asarray(want_miss)
    np.testing.assert_array_equal(gm, wm)
    assert got.shape == want.shape
    if got.dtype != want.dtype:
        # ints picked in a group-wise result may be float64 where another group is empty
        want = want.astype(got.dtype)
    np.testing.assert_array_equal(bits(got)[~gm], bits(want)[~wm])


def nan_zoo(dtype) -> list:
    """NaNs of both signs and several payloads (quiet), infinities, signed zeros."""
    return [
        make_nan(0, dtype=dtype),
        make_nan(5, dtype=dtype),
        make_nan(3, negative=True, dtype=dtype),
        make_nan(9, negative=True, dtype=dtype),
        np.inf,
        -np.inf,
        0.0,
        -0.0,
    ]


def make_data(rng, n, ngroups, dtype, nan_frac=0.15, miss_frac=0.0):
    if np.dtype(dtype).kind == "f":
        x = (rng.standard_normal(n) * 10).round(1).astype(dtype)
        zoo = np.array(nan_zoo(dtype), dtype=dtype)
        pick = rng.random(n) < nan_frac
        x[pick] = zoo[rng.integers(0, zoo.size, pick.sum())]
    else:
        x = rng.integers(-50, 50, n).astype(dtype)
    codes = rng.integers(-1, ngroups, n).astype(np.intp)
    missing = (rng.random(n) < miss_frac) if miss_frac else None
    return x, codes, missing


def reference(x, codes, ngroups, stat, q, method, policy, missing, ddof=0):
    """The ungrouped core on each group's slice."""
    vals, miss = [], []
    for g in range(ngroups):
        sel = codes == g
        m = None if missing is None else missing[sel]
        if stat in ("mean", "var", "std", "sum", "count"):
            v, mm = moment_stat(x[sel], stat, ddof=ddof, policy=policy, missing=m)
        else:
            v, mm = order_stat(x[sel], stat, q=q, method=method, policy=policy, missing=m)
        vals.append(np.asarray(v))
        miss.append(np.zeros(np.shape(v), bool) if mm is None else np.asarray(mm))
    dts = {v.dtype for v in vals}
    dt = np.result_type(*dts) if len(dts) > 1 else vals[0].dtype
    return np.stack([v.astype(dt) for v in vals], axis=-1), np.stack(miss, axis=-1)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16])
@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("case", ORDER_CASES, ids=lambda c: f"{c[0]}-{c[2]}-{c[1]}")
def test_order_stats_equal_core_bit_for_bit(case, policy, dtype, engine):
    stat, q, method = case
    rng = np.random.default_rng(
        zlib.crc32(repr((stat, str(policy), str(dtype), method)).encode()))
    x, codes, _ = make_data(rng, 300, 12, dtype)
    v, m = grouped_stat(x, codes, 13, stat, q=q, method=method, policy=policy, engine=engine)
    rv, rm = reference(x, codes, 13, stat, q, method, policy, None)
    assert_same_bits(v, rv, m, rm)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("stat", ["median", "quantile", "min", "max", "median_high"])
def test_order_stats_with_missing_mask(stat, policy, engine):
    rng = np.random.default_rng(7)
    x, codes, missing = make_data(rng, 200, 9, np.float64, nan_frac=0.1, miss_frac=0.1)
    q = [0.2, 0.5, 0.95] if stat == "quantile" else None
    v, m = grouped_stat(x, codes, 9, stat, q=q, policy=policy, missing=missing, engine=engine)
    rv, rm = reference(x, codes, 9, stat, q, "linear", policy, missing)
    assert_same_bits(v, rv, m, rm)


@pytest.mark.parametrize("dtype", [np.int64, np.int8, np.uint16, np.uint64, np.bool_])
@pytest.mark.parametrize("case", ORDER_CASES[:7], ids=lambda c: f"{c[0]}-{c[1]}")
def test_integer_data(case, dtype):
    stat, q, method = case
    rng = np.random.default_rng(3)
    x, codes, _ = make_data(rng, 150, 6, dtype)
    for engine in ENGINES:
        v, m = grouped_stat(x, codes, 6, stat, q=q, method=method, policy="raise",
                            engine=engine)
        rv, rm = reference(x, codes, 6, stat, q, method, "raise", None)
        assert_same_bits(v, rv, m, rm)


@pytest.mark.parametrize("stat", ["median", "min", "quantile", "mean", "sum", "count"])
def test_datetime_and_timedelta(stat):
    rng = np.random.default_rng(11)
    base = rng.integers(0, 10**6, 100)
    for dt in ("datetime64[s]", "timedelta64[ms]"):
        if stat == "sum" and dt.startswith("datetime"):
            continue
        x = base.astype(dt)
        x[::7] = np.array("NaT", dtype=dt)
        codes = rng.integers(0, 5, 100)
        q = [0.25, 0.5] if stat == "quantile" else None
        v, m = grouped_stat(x, codes, 5, stat, q=q, policy="omit")
        rv, rm = reference(x, codes, 5, stat, q, "linear", "omit", None)
        assert_same_bits(v, rv, m, rm)


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("stat", ["mean", "var", "std", "sum", "count"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.bool_])
def test_moments_equal_core_bit_for_bit(stat, policy, dtype):
    rng = np.random.default_rng(5)
    x, codes, missing = make_data(rng, 300, 10, dtype, miss_frac=0.05)
    if np.dtype(dtype).kind == "f":  # moments: drop infinities so the sums are finite
        x[np.isinf(x)] = 1.5
    v, m = grouped_stat(x, codes, 11, stat, ddof=1, policy=policy, missing=missing)
    rv, rm = reference(x, codes, 11, stat, None, "linear", policy, missing, ddof=1)
    if stat == "count":
        np.testing.assert_array_equal(v, rv)
    else:
        assert_same_bits(v, rv, m, rm)


def test_2d_columns_share_grouping():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((120, 3))
    x[rng.random((120, 3)) < 0.1] = np.nan
    codes = rng.integers(0, 7, 120)
    v, _ = grouped_stat(x, codes, 7, "quantile", q=[0.1, 0.5], policy="omit")
    assert v.shape == (2, 7, 3)
    for c in range(3):
        vc, _ = grouped_stat(x[:, c], codes, 7, "quantile", q=[0.1, 0.5], policy="omit")
        assert_same_bits(v[..., c], vc)


def test_propagate_returns_greatest_nan_as_stored():
    pos_small, pos_big = make_nan(1), make_nan(7)
    neg = make_nan(100, negative=True)
    x = np.array([1.0, pos_small, neg, pos_big, 2.0, neg, 3.0])
    codes = np.array([0, 0, 0, 0, 1, 1, 1])
    for stat in ("median", "min", "mean", "sum", "max"):
        v, _ = grouped_stat(x, codes, 2, stat, policy="propagate")
        assert bits(v)[0] == bits(np.array(pos_big)) and bits(v)[1] == bits(np.array(neg))


def test_empty_groups_and_unused_rows():
    x = np.array([1.0, 2.0, 50.0, np.nan])
    codes = np.array([0, 0, -1, 2])  # group 1 has no row, row 2 belongs to no group
    v, m = grouped_stat(x, codes, 3, "median", policy="omit")
    assert_same_bits(v, np.array([1.5, np.nan, np.nan]))
    assert m is None
    s, _ = grouped_stat(x, codes, 3, "sum", policy="omit")
    np.testing.assert_array_equal(s, [3.0, 0.0, 0.0])
    c, _ = grouped_stat(x, codes, 3, "count", policy="omit")
    np.testing.assert_array_equal(c, [2, 0, 0])
    # a NaN in a row of no group never raises
    grouped_stat(np.array([1.0, np.nan]), np.array([0, -1]), 1, "median", policy="raise")


def test_int_picks_become_float_where_a_group_is_empty():
    v, _ = grouped_stat(np.array([3, 1, 2]), np.array([0, 0, 2]), 3, "min", policy="raise")
    assert v.dtype == np.float64
    np.testing.assert_array_equal(v, [1.0, np.nan, 2.0])
    v, _ = grouped_stat(np.array([3, 1, 2]), np.array([0, 0, 1]), 2, "min", policy="raise")
    assert v.dtype == np.int64


def test_raise_error_carries_position_group_count():
    x = np.array([[1.0, 2.0], [3.0, np.nan], [np.nan, 5.0], [4.0, np.nan]])
    codes = np.array([0, 1, 0, 1])
    with pytest.raises(NaNError) as info:
        grouped_stat(x, codes, 2, "median", policy="raise")
    err = info.value
    assert err.position == (1, 1) and err.group == 1 and err.count == 2
    assert "group 1 holds 2 NaN values" in str(err)
    with pytest.raises(NaNError) as info:
        grouped_stat(x[:, 0], codes, 2, "mean", policy="raise")
    assert info.value.position == (2,) and info.value.group == 0 and info.value.count == 1


def test_missing_raises_with_kind_missing():
    with pytest.raises(NaNError, match="missing") as info:
        grouped_stat(np.array([1.0, 2.0]), np.array([0, 0]), 1, "median",
                     missing=np.array([False, True]))
    assert info.value.kind == "missing" and info.value.position == (1,)


@pytest.mark.parametrize("policy", ["omit", "propagate", "smallest", "raise"])
def test_signaling_nan_raises_except_totalorder(policy):
    x = np.array([1.0, make_nan(3, signaling=True), 2.0])
    with pytest.raises(SignalingNaNError) as info:
        grouped_stat(x, np.array([0, 0, 0]), 1, "median", policy=policy)
    assert info.value.group == 0
    v, _ = grouped_stat(x, np.array([0, 0, 0]), 1, "max", policy="totalorder")
    assert bits(v)[0] == bits(x)[1]


def test_bad_arguments():
    x = np.array([1.0, 2.0])
    with pytest.raises(ValueError, match="unknown nan_policy"):
        grouped_stat(x, np.array([0, 0]), 1, "median", policy="nope")
    with pytest.raises(ValueError, match="unknown grouped statistic"):
        grouped_stat(x, np.array([0, 0]), 1, "mode", policy="omit")
    with pytest.raises(ValueError, match="codes must"):
        grouped_stat(x, np.array([0, 5]), 1, "median", policy="omit")
    with pytest.raises(ValueError, match="range"):
        grouped_stat(x, np.array([0, 0]), 1, "quantile", q=1.5, policy="omit")
    with pytest.raises(TypeError):
        grouped_stat(np.array(["a", "b"]), np.array([0, 0]), 1, "median", policy="omit")
    with pytest.raises(TypeError):
        grouped_stat(np.array([1j, 2j]), np.array([0, 0]), 1, "median", policy="omit")


def test_input_never_modified():
    rng = np.random.default_rng(1)
    x, codes, missing = make_data(rng, 200, 5, np.float64, miss_frac=0.1)
    x.flags.writeable = False
    before = x.tobytes(), codes.tobytes(), missing.tobytes()
    for stat in ("median", "quantile", "mean", "max"):
        for engine in ENGINES:
            grouped_stat(x, codes, 5, stat, q=[0.5, 0.1], policy="totalorder",
                         missing=missing, engine=engine)
    assert (x.tobytes(), codes.tobytes(), missing.tobytes()) == before


def test_large_group_count_is_natural():
    rng = np.random.default_rng(0)
    n, g = 20_000, 10_000
    x = rng.standard_normal(n)
    codes = rng.integers(0, g, n)
    v, _ = grouped_stat(x, codes, g, "median", policy="omit", engine="numpy")
    counts = np.bincount(codes, minlength=g)
    some = np.flatnonzero(counts)[:25]
    for grp in some:
        assert v[grp] == np.median(x[codes == grp])


def test_object_data_exact():
    from decimal import Decimal
    from fractions import Fraction

    x = np.array([Decimal("1.5"), Decimal("2.5"), Fraction(1, 3), Fraction(2, 3), None],
                 dtype=object)
    codes = np.array([0, 0, 1, 1, 1])
    v, _ = grouped_stat(x, codes, 2, "median", policy="omit")
    assert v[0] == Decimal("2.0") and v[1] == Fraction(1, 2)
    with pytest.raises(NaNError, match="missing") as info:
        grouped_stat(x, codes, 2, "median", policy="raise")
    assert info.value.group == 1 and info.value.position == (4,)


@pytest.mark.skipif(not HAVE_NUMBA, reason="numba not installed")
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.int16])
def test_numba_equals_numpy_engine(dtype):
    rng = np.random.default_rng(9)
    x, codes, _ = make_data(rng, 3000, 40, dtype)
    x[:500] = x[0]  # long runs of duplicates
    for stat, q in [("median", None), ("quantile", [0.9, 0.1, 0.5]), ("median_low", None)]:
        for policy in ("omit", "totalorder", "largest"):
            a = grouped_stat(x, codes, 40, stat, q=q, policy=policy, engine="numpy")
            b = grouped_stat(x, codes, 40, stat, q=q, policy=policy, engine="numba")
            assert_same_bits(a[0], b[0], a[1], b[1])


@given(
    data=st.lists(
        st.one_of(
            st.floats(allow_nan=False, width=64, min_value=-1e6, max_value=1e6),
            st.sampled_from(nan_zoo(np.float64)),
        ),
        min_size=1,
        max_size=60,
    ),
    seed=st.integers(0, 2**32 - 1),
    policy=st.sampled_from(POLICIES),
    stat=st.sampled_from(["median", "quantile", "mean", "var", "min", "max", "sum"]),
)
def test_invariant_under_row_permutation(data, seed, policy, stat):
    x = np.array(data, dtype=np.float64)
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, 4, x.size)
    q = [0.1, 0.5, 0.75] if stat == "quantile" else None
    perm = rng.permutation(x.size)
    for engine in ENGINES:
        a = grouped_stat(x, codes, 4, stat, q=q, policy=policy, ddof=1, engine=engine)
        b = grouped_stat(x[perm], codes[perm], 4, stat, q=q, policy=policy, ddof=1,
                         engine=engine)
        assert_same_bits(a[0], b[0], a[1], b[1])
    if stat in ("median", "quantile"):  # and the ungrouped core agrees
        rv, rm = reference(x, codes, 4, stat, q, "linear", policy, None)
        assert_same_bits(a[0], rv, a[1], rm)


# ------------------------------------------------------------------ the numba engine

needs_numba = pytest.mark.skipif(not HAVE_NUMBA, reason="numba not installed")
ALL_POLICIES = ["raise", *POLICIES]


def sized_groups(rng, sizes, dtype, nan_frac=0.2):
    """Rows for groups of the given sizes (shuffled), some rows of no group (-1)."""
    codes = np.repeat(np.arange(len(sizes)), sizes)
    codes = np.concatenate([codes, np.full(7, -1)])
    rng.shuffle(codes)
    x, _, _ = make_data(rng, codes.size, 1, dtype, nan_frac=nan_frac)
    return x, codes.astype(np.intp)


def both_engines(x, codes, ngroups, stat, q, policy, missing=None, method="linear"):
    """(numpy result, numba result), or the two errors when both raise."""
    out = []
    for engine in ("numpy", "numba"):
        try:
            out.append(grouped_stat(x, codes, ngroups, stat, q=q, method=method,
                                    policy=policy, missing=missing, engine=engine))
        except NaNError as err:
            out.append(err)
    return out


def assert_engines_agree(x, codes, ngroups, stat, q, policy, missing=None, method="linear"):
    a, b = both_engines(x, codes, ngroups, stat, q, policy, missing, method)
    if isinstance(a, Exception):
        assert type(a) is type(b)
        assert (a.position, a.group, a.count) == (b.position, b.group, b.count)
        return
    assert not isinstance(b, Exception), b
    assert_same_bits(a[0], b[0], a[1], b[1])


@needs_numba
@pytest.mark.parametrize("policy", ALL_POLICIES)
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16])
def test_numba_groups_around_the_small_threshold(policy, dtype):
    rng = np.random.default_rng(21)
    t = nbg.SMALL_GROUP
    sizes = [0, 1, 2, 3, t - 1, t, t + 1, 2 * t + 5, 90, 5, 17]
    x, codes = sized_groups(rng, sizes, dtype)
    ngroups = len(sizes) + 1  # and a group without rows
    x[codes == 3] = make_nan(4, negative=True, dtype=dtype)  # a group of only NaNs
    x[codes == 9] = np.array([np.nan, make_nan(2, negative=True, dtype=dtype)] * 3,
                             dtype=dtype)[: (codes == 9).sum()]
    cases = [("median", None), ("quantile", 0.9), ("quantile", [0.9, 0.1, 0.5, 0.5]),
             ("median_low", None), ("min", None), ("max", None)]
    for stat, q in cases:
        if policy != "raise":
            v, m = grouped_stat(x, codes, ngroups, stat, q=q, policy=policy, engine="numba")
            rv, rm = reference(x, codes, ngroups, stat, q, "linear", policy, None)
            assert_same_bits(v, rv, m, rm)
        assert_engines_agree(x, codes, ngroups, stat, q, policy)


@needs_numba
@pytest.mark.parametrize("policy", ALL_POLICIES)
def test_numba_nan_signs_and_payloads_sit_at_the_segment_ends(policy):
    # every group holds negative NaNs (sign bit set) below -inf and positive NaNs above
    # +inf in key order; "omit"/"propagate" must skip both ends
    rng = np.random.default_rng(4)
    n, g = 4000, 150
    x = rng.standard_normal(n)
    codes = rng.integers(-1, g, n).astype(np.intp)
    neg = rng.random(n) < 0.2
    pos = ~neg & (rng.random(n) < 0.2)
    x[neg] = make_nan(11, negative=True)
    x[pos] = make_nan(3)
    x[rng.random(n) < 0.01] = -np.inf
    for stat, q in [("median", None), ("quantile", [0.0, 0.3, 1.0]), ("max", None)]:
        assert_engines_agree(x, codes, g, stat, q, policy)


@needs_numba
@pytest.mark.parametrize("parallel", [False, True])
@pytest.mark.parametrize("policy", ALL_POLICIES)
def test_numba_parallel_and_serial_paths_agree(policy, parallel, monkeypatch):
    monkeypatch.setattr(nbg, "PARALLEL_MIN_ROWS", 0 if parallel else 10**12)
    rng = np.random.default_rng(8)
    n = 30_000
    for g in (40, 5_000):  # big groups (quickselect) and small ones (rank counting)
        x, codes, _ = make_data(rng, n, g, np.float64, nan_frac=0.05 if policy != "raise" else 0)
        codes[:3] = -1
        for stat, q in [("median", None), ("quantile", [0.9, 0.25]), ("median_high", None)]:
            assert_engines_agree(x, codes, g, stat, q, policy)


@needs_numba
@pytest.mark.parametrize("dtype", ["int64", "int16", "uint64", "bool", "datetime64[s]",
                                   "timedelta64[ms]", ">f8", "<f4"])
def test_numba_other_dtypes(dtype):
    rng = np.random.default_rng(6)
    n, g = 3000, 70
    codes = rng.integers(-1, g, n).astype(np.intp)
    if np.dtype(dtype).kind == "f":
        x, _, _ = make_data(rng, n, g, np.dtype(dtype).newbyteorder("="))
        x = x.astype(dtype)
    elif np.dtype(dtype).kind in "mM":
        x = rng.integers(-10**6, 10**6, n).astype(dtype)
        x[::11] = np.array("NaT", dtype=dtype)
    elif dtype == "uint64":
        x = rng.integers(0, 2**63, n, dtype=np.uint64) * np.uint64(2) + np.uint64(1)
    else:
        x = rng.integers(-50, 50, n).astype(dtype)
    for policy in ("omit", "totalorder", "largest", "propagate"):
        for stat, q in [("median", None), ("quantile", [0.75, 0.1]), ("min", None)]:
            assert_engines_agree(x, codes, g, stat, q, policy)


@needs_numba
def test_numba_2d_columns_and_missing_mask():
    rng = np.random.default_rng(12)
    n, g = 2500, 60
    x = rng.standard_normal((n, 3))
    x[rng.random((n, 3)) < 0.1] = np.nan
    x[rng.random((n, 3)) < 0.05] = make_nan(7, negative=True)
    codes = rng.integers(-1, g, n).astype(np.intp)
    missing = rng.random((n, 3)) < 0.05
    for policy in ALL_POLICIES:
        for m in (None, missing):
            assert_engines_agree(x, codes, g, "quantile", [0.5, 0.2], policy, missing=m)


@needs_numba
@pytest.mark.parametrize("policy", ["omit", "propagate", "smallest", "largest", "raise"])
def test_numba_signaling_nan_raises_like_numpy(policy):
    # "omit" defers the NaN scan to the kernel: it must still raise, with the same
    # position, group and count as the NumPy engine
    rng = np.random.default_rng(13)
    n, g = 3000, 50
    x = rng.standard_normal((n, 2))
    x[rng.random((n, 2)) < 0.05] = np.nan
    codes = rng.integers(0, g, n).astype(np.intp)
    x[1500, 1] = make_nan(3, signaling=True)
    x[2100, 1] = make_nan(5, signaling=True, negative=True)
    for xx in (x, x[:, 1]):
        errs = both_engines(xx, codes, g, "median", None, policy)
        assert all(isinstance(e, SignalingNaNError) for e in errs), errs
        assert errs[0].position == errs[1].position and errs[0].count == errs[1].count
    # a signaling NaN in a row of no group is ignored
    codes2 = codes.copy()
    codes2[[1500, 2100]] = -1
    assert_engines_agree(x[:, 1], codes2, g, "median", None, "omit")
    # and "totalorder" selects it
    assert_engines_agree(x[:, 1], codes, g, "max", None, "totalorder")


@needs_numba
def test_numba_failure_falls_back_to_numpy(monkeypatch):
    def broken():
        raise RuntimeError("no compiler")

    monkeypatch.setattr(nbg, "_nb_compile", broken)
    monkeypatch.setattr(NB, "BROKEN", [])
    monkeypatch.setattr(GO, "NUMBA_MIN_ROWS", 0)
    rng = np.random.default_rng(14)
    x, codes, _ = make_data(rng, 500, 9, np.float64)
    want = grouped_stat(x, codes, 9, "median", policy="omit", engine="numpy")
    with pytest.warns(RuntimeWarning, match="numba kernel failed"):
        got = grouped_stat(x, codes, 9, "median", policy="omit")
    assert_same_bits(got[0], want[0], got[1], want[1])
    assert NB.BROKEN
    x[3] = make_nan(1, signaling=True)
    codes[3] = 2
    with pytest.raises(SignalingNaNError):
        grouped_stat(x, codes, 9, "median", policy="omit")
    with pytest.raises(RuntimeError, match="no compiler"):
        grouped_stat(x, codes, 9, "median", policy="omit", engine="numba")


@needs_numba
@pytest.mark.parametrize("policy", ALL_POLICIES)
def test_numba_selection_failure_falls_back_to_numpy(policy, monkeypatch):
    def broken(self, ranks):
        raise RuntimeError("kernel crashed")

    monkeypatch.setattr(nbg.NumbaSelect, "__call__", broken)
    monkeypatch.setattr(NB, "BROKEN", [])
    monkeypatch.setattr(GO, "NUMBA_MIN_ROWS", 0)
    rng = np.random.default_rng(15)
    x, codes, _ = make_data(rng, 400, 9, np.float64, nan_frac=0.1 if policy != "raise" else 0)
    for stat, q in [("median", None), ("quantile", [0.2, 0.9])]:
        NB.BROKEN.clear()
        want = grouped_stat(x, codes, 9, stat, q=q, policy=policy, engine="numpy")
        with pytest.warns(RuntimeWarning, match="kernel crashed"):
            got = grouped_stat(x, codes, 9, stat, q=q, policy=policy)
        assert_same_bits(got[0], want[0], got[1], want[1])
