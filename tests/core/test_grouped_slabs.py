"""The slab engine of grouped order statistics (few groups, many columns).

Each group's rows are gathered into slabs of equal-size groups and reduced by the
ungrouped engine: every result must equal the column engine's and each group's own
ungrouped statistic bit for bit, and every error must be the column engine's.
"""

from __future__ import annotations

import numpy as np
import pytest

from nanaccess import NaNError, NanPolicy, make_nan
from nanaccess.core import _numba as NB
from nanaccess.core.grouped import entry, grouped_stat, slabs
from nanaccess.core.reduce import reduce

ENGINES = ["numpy"] + (["numba"] if NB.AVAILABLE else [])
NCOLS = 24  # at least slabs.SLAB_MIN_COLS


def same(a, b) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.dtype.kind in "fmM":
        w = f"u{a.dtype.itemsize}"
        return a.view(w).tobytes() == b.view(w).tobytes()
    return a.tolist() == b.tolist()


@pytest.fixture
def no_slabs(monkeypatch):
    """Run a call on the column engine (the slab engine switched off)."""
    def run(fn, *args, **kw):
        with monkeypatch.context() as m:
            m.setattr(entry, "SLAB_MIN_COLS", 10**9)
            return fn(*args, **kw)
    return run


@pytest.fixture
def spy(monkeypatch):
    """Count the slab engine's calls (so a test knows it ran)."""
    calls = []
    real = entry.order_slabs

    def wrapped(*a, **k):
        calls.append(1)
        return real(*a, **k)

    monkeypatch.setattr(entry, "order_slabs", wrapped)
    return calls


def grid(dtype, seed, n=60, ncols=NCOLS, nan_frac=0.1, signaling=False):
    """Rows x columns with NaNs of both signs and payloads (float dtypes)."""
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    if dt.kind == "f":
        x = rng.standard_normal((n, ncols)).astype(dt)
        x[rng.random(x.shape) < 0.2] = 0.5  # ties
        nans = [np.nan, -np.nan, make_nan(5, dtype=dt), make_nan(7, negative=True, dtype=dt)]
        if signaling:
            nans.append(make_nan(3, signaling=True, dtype=dt))
        where = rng.random(x.shape) < nan_frac
        x[where] = np.array(nans, dt)[rng.integers(0, len(nans), int(where.sum()))]
        x[:, 0] = np.array(nans[0], dt)  # a column with no numbers
        return x
    if dt.kind in "mM":
        return rng.integers(-1000, 1000, (n, ncols)).astype(dt)
    info = np.iinfo(dt)
    return rng.integers(max(info.min, -1000), min(info.max, 1000), (n, ncols)).astype(dt)


def month_like_codes(n, ngroups, seed, drop=True):
    """Codes in runs (as months), some rows of no group, one group without rows."""
    rng = np.random.default_rng(seed)
    codes = np.sort(rng.integers(0, ngroups - 1, n))  # group ngroups - 1 stays empty
    if drop:
        codes[rng.random(n) < 0.1] = -1
    return codes.astype(np.intp)


CASES = [("median", {}), ("median_low", {}), ("median_high", {}), ("min", {}), ("max", {}),
         ("quantile", {"q": 0.3}), ("quantile", {"q": [0.0, 0.25, 0.9, 1.0]}),
         ("quantile", {"q": [0.7, 0.1], "method": "nearest"}),
         ("quantile", {"q": 0.5, "method": "midpoint"})]
POLICIES = [p for p in NanPolicy if p is not NanPolicy.RAISE]


@pytest.mark.parametrize("stat,params", CASES)
@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("dtype", ["float64", "float32", "float16"])
def test_floats_equal_the_column_engine_and_each_group(stat, params, policy, dtype, no_slabs,
                                                       spy):
    x = grid(dtype, seed=len(stat) + 7 * len(policy.value))
    codes = month_like_codes(x.shape[0], 5, seed=3)
    before = x.copy()
    for engine in ENGINES:
        got, gmiss = grouped_stat(x, codes, 5, stat, policy=policy, engine=engine, **params)
        want, wmiss = no_slabs(grouped_stat, x, codes, 5, stat, policy=policy, engine=engine,
                               **params)
        assert same(got, want)
        assert (gmiss is None) == (wmiss is None)
    assert spy, "the slab engine did not run"
    assert same(x, before)  # the caller's data is not touched
    for g in range(4):  # each group is its own ungrouped statistic (group 4 is empty)
        ref = reduce(x[codes == g], stat, axis=0, policy=policy, **params).values
        assert same(got[..., g, :], ref)
    assert np.isnan(got[..., 4, :]).all()


@pytest.mark.parametrize("stat,params", CASES)
@pytest.mark.parametrize("dtype", ["int64", "int8", "uint64", "uint16", "m8[s]", "M8[ms]"])
def test_ints_and_datetimes_equal_the_column_engine(stat, params, dtype, no_slabs, spy):
    x = grid(dtype, seed=11)
    for drop, ngroups in ((True, 5), (False, 4)):  # with and without an empty group
        codes = month_like_codes(x.shape[0], ngroups, seed=4, drop=drop)
        if ngroups == 4:
            codes = np.minimum(np.arange(x.shape[0]) // 15, 3).astype(np.intp)
        got = grouped_stat(x, codes, ngroups, stat, policy="raise", **params)[0]
        want = no_slabs(grouped_stat, x, codes, ngroups, stat, policy="raise", **params)[0]
        assert same(got, want), (got.dtype, want.dtype)
    assert spy


@pytest.mark.parametrize("policy", ["raise", "omit", "propagate", "smallest"])
def test_errors_are_the_column_engines(policy, no_slabs, spy):
    x = grid("float64", seed=5, nan_frac=0.02, signaling=True)
    x[:, 0] = 1.0
    codes = month_like_codes(x.shape[0], 5, seed=6)
    with pytest.raises(NaNError) as got:
        grouped_stat(x, codes, 5, "median", policy=policy)
    with pytest.raises(NaNError) as want:
        no_slabs(grouped_stat, x, codes, 5, "median", policy=policy)
    g, w = got.value, want.value
    assert type(g) is type(w)
    assert (g.position, g.group, g.count, str(g)) == (w.position, w.group, w.count, str(w))
    assert spy == []  # the scan raised before either engine ran


def test_totalorder_keeps_signaling_nans_as_keys(no_slabs, spy):
    x = grid("float32", seed=8, signaling=True)
    codes = month_like_codes(x.shape[0], 5, seed=9)
    got = grouped_stat(x, codes, 5, "quantile", q=[0.0, 0.5, 1.0], policy="totalorder")[0]
    want = no_slabs(grouped_stat, x, codes, 5, "quantile", q=[0.0, 0.5, 1.0],
                    policy="totalorder")[0]
    assert same(got, want) and spy


def test_small_batches_give_the_same_bits(monkeypatch, no_slabs):
    x = grid("float64", seed=12, n=200)
    codes = (np.arange(200) % 7).astype(np.intp)  # interleaved, unequal sizes
    want = no_slabs(grouped_stat, x, codes, 7, "median", policy="omit")[0]
    monkeypatch.setattr(slabs, "SLAB_ELEMS", 1)  # one group a batch
    assert same(grouped_stat(x, codes, 7, "median", policy="omit")[0], want)


def test_batches_and_when_the_column_engine_is_chosen():
    codes = np.repeat(np.arange(4), [3, 5, 3, 5]).astype(np.intp)
    order, batches = slabs.slab_batches(codes, 5, ncols=32)
    assert sorted(map(tuple, (b.tolist() for b in batches))) == [(0, 2), (1, 3)]
    assert order.tolist() == list(range(16))
    # 20 groups of 20 distinct sizes: more batches than 16 columns
    many = np.repeat(np.arange(20), np.arange(1, 21)).astype(np.intp)
    assert slabs.slab_batches(many, 20, ncols=16) is None
    assert slabs.slab_batches(many, 20, ncols=20) is not None


def test_missing_values_keep_the_column_engine(spy):
    x = grid("float64", seed=13, nan_frac=0.0)
    miss = np.zeros(x.shape, bool)
    miss[3, 4] = True
    codes = month_like_codes(x.shape[0], 5, seed=14)
    grouped_stat(x, codes, 5, "median", policy="omit", missing=miss)
    assert spy == []
