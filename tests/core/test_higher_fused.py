"""The one-pass certified kernel of skew/kurt/sem (``core/_numba/central_fused.py``):
where it answers (``ok``), its bits equal the exact power sums' (Fraction-checked
references in ``test_higher.py``); rows it leaves open go on to the two-pass kernel
and the exact engine, so the public result never changes."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from nanaccess import options
from nanaccess.core import _numba
from nanaccess.core.higher.cells import cell_values
from nanaccess.core.higher.certified import CERTIFIED

pytestmark = pytest.mark.skipif(not _numba.AVAILABLE, reason="numba not installed or disabled")

STATS = [
    ("skew", {"bias": False}),
    ("skew", {"bias": True}),
    ("kurt", {"bias": False}),
    ("kurt", {"bias": True, "fisher": False}),
    ("kurt", {"bias": False, "fisher": False}),
    ("sem", {"ddof": 1}),
    ("sem", {"ddof": 0}),
    ("sem", {"ddof": 2.5}),
]
_CODE = {"skew": 0, "kurt": 1, "sem": 2}


@pytest.fixture(autouse=True)
def _numba_now():
    with options.option_context(engine="numba", compile="foreground"):
        yield


def _fused(x, keep, stat, p):
    """The fused kernel alone: ``(values, ok)``."""
    x = np.ascontiguousarray(np.atleast_2d(x), np.float64)
    keep = (
        np.ones(x.shape, bool) if keep is None else np.ascontiguousarray(np.atleast_2d(keep), bool)
    )
    out = np.empty(x.shape[0])
    ok = np.zeros(x.shape[0], bool)
    _numba.kernels("central_fused")["rows"](
        x,
        keep,
        CERTIFIED[stat],
        _CODE[stat],
        bool(p.get("bias", False)),
        bool(p.get("fisher", True)),
        float(p.get("ddof", 1)),
        out,
        ok,
    )
    return out, ok


def _exact(x, keep, stat, p):
    x = np.atleast_2d(x)
    keep = None if keep is None else np.atleast_2d(keep)
    with options.option_context(engine="numpy"):
        return cell_values(None, None, x.shape[0], stat, p, rows=x, rows_keep=keep, certify=False)


def _check(x, keep, stat, p):
    vals, ok = _fused(x, keep, stat, p)
    exp = _exact(x, keep, stat, p)
    np.testing.assert_array_equal(vals[ok], exp[ok])  # bit-equal
    assert np.array_equal(np.signbit(vals[ok]), np.signbit(exp[ok]))
    x2 = np.atleast_2d(x)
    full = cell_values(
        None,
        None,
        x2.shape[0],
        stat,
        p,
        rows=x2,
        rows_keep=None if keep is None else np.atleast_2d(keep),
    )
    np.testing.assert_array_equal(full, exp)
    return ok


def _data(kind: str, n: int, rng) -> np.ndarray:
    if kind == "normal":
        return rng.normal(size=n)
    if kind == "offset":  # large offset, unit spread: float formulas lose every digit
        return rng.normal(size=n) + 1e9
    if kind == "trend":  # sorted: the strided sample must still see the spread
        return np.sort(rng.exponential(size=n)) * 1e-3 - 7.0
    if kind == "outlier":  # one value far beyond the sample's spread: left open
        x = rng.normal(size=n)
        x[n // 3 + 1] = 1e6
        return x
    if kind == "cauchy":
        return rng.standard_cauchy(n)
    if kind == "tiny":
        return rng.exponential(size=n) * 1e-300
    if kind == "huge":
        return rng.normal(size=n) * 1e290
    if kind == "ints":
        return rng.integers(-50, 50, n).astype(np.float64)
    raise AssertionError(kind)


KINDS = ["normal", "offset", "trend", "outlier", "cauchy", "tiny", "huge", "ints"]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("stat,p", STATS)
def test_fused_bit_equal_to_exact(kind, stat, p):
    rng = np.random.default_rng(11)
    # lengths across the lane (32) and block (32 * 128) boundaries, with a tail
    x = np.vstack([_data(kind, 9000, rng) for _ in range(2)])
    keep = rng.random(x.shape) > 0.05
    _check(x, keep, stat, p)
    _check(x[:, :4097], None, stat, p)


@pytest.mark.parametrize("stat,p", STATS)
def test_ordinary_rows_are_settled_in_one_pass(stat, p):
    rng = np.random.default_rng(3)
    x = np.vstack(
        [
            rng.normal(size=20000),
            rng.normal(size=20000) + 1e9,
            np.sort(rng.normal(size=20000)),
            rng.normal(size=20000) * 1e-200,
        ]
    )
    keep = rng.random(x.shape) > 0.3
    assert _check(x, keep, stat, p).all()


@pytest.mark.parametrize("stat,p", STATS)
def test_rows_left_open(stat, p):
    """Constant rows, a non-finite value taken, an outlier beyond the sample's spread,
    too few values: the fused kernel leaves them open or gives the trivial answer;
    the public path equals the exact engine on every row."""
    rng = np.random.default_rng(4)
    x = rng.normal(size=(6, 3000))
    x[0] = 2.5  # constant
    x[1, 7] = np.inf
    x[2, 1500] = np.nan
    x[3, 999] = 1e12  # outlier: max|d| beyond 1 after the sample's scaling
    keep = np.ones(x.shape, bool)
    keep[4, 3:] = False  # three values
    keep[5, :] = False  # none
    vals, ok = _fused(x, keep, stat, p)
    assert not ok[[0, 1, 2, 3]].any()
    exp = _exact(np.where(np.isfinite(x), x, 0.0), keep, stat, p)
    np.testing.assert_array_equal(vals[ok], exp[ok])
    fin = np.isfinite(x).all(axis=1)
    full = cell_values(None, None, 6, stat, p, rows=x, rows_keep=keep)
    np.testing.assert_array_equal(full[fin], exp[fin])
    assert np.isnan(full[~fin]).all()


@settings(max_examples=40, deadline=None)
@given(
    n=hs.integers(300, 5000),
    seed=hs.integers(0, 2**16),
    offset=hs.sampled_from([0.0, 1e9, -3e12, 1e-300, 2.0**600]),
    scale=hs.sampled_from([1.0, 1e-3, 2.0**-1000, 1e200]),
    which=hs.integers(0, len(STATS) - 1),
    nan_pct=hs.sampled_from([0.0, 0.01, 0.3]),
)
def test_fused_hypothesis(n, seed, offset, scale, which, nan_pct):
    stat, p = STATS[which]
    rng = np.random.default_rng(seed)
    with np.errstate(over="ignore", under="ignore"):
        x = rng.normal(size=n) * scale + offset
    x = np.where(np.isfinite(x), x, 0.0)
    keep = rng.random(n) >= nan_pct
    _check(x, keep, stat, p)
    # permutation invariance: the same multiset gives the same bits
    perm = rng.permutation(n)
    np.testing.assert_array_equal(
        cell_values(None, None, 1, stat, p, rows=x[perm][None], rows_keep=keep[perm][None]),
        cell_values(None, None, 1, stat, p, rows=x[None], rows_keep=keep[None]),
    )


def test_no_mutation():
    x = np.random.default_rng(1).normal(size=(2, 5000))
    keep = x > -1
    x0, k0 = x.copy(), keep.copy()
    _fused(x, keep, "kurt", {"bias": False})
    np.testing.assert_array_equal(x, x0)
    np.testing.assert_array_equal(keep, k0)


def _exact_groups(vals, gid, ngroups, stat, p):
    taken = gid >= 0
    with options.option_context(engine="numpy"):
        return cell_values(vals[taken], gid[taken], ngroups, stat, p, certify=False)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("stat,p", STATS)
def test_groups_one_pass_bit_equal(stat, p, dtype):
    """Groups by the counting sort and the one-pass kernel (float32 read as stored):
    ordinary groups are settled there; a group with an outlier beyond its sample, a
    constant group, tiny groups and empty groups are left to the scatter kernel or
    answered trivially; every cell equals the exact engine's."""
    from nanaccess.core.higher.certified import certified_groups

    rng = np.random.default_rng(8)
    n, ng = 40000, 40
    gid = rng.integers(-1, ng - 5, n)  # -1: left out; the last five groups empty
    vals = (rng.normal(size=n) * 3 + 1e4).astype(dtype)
    vals[np.flatnonzero(gid == 3)[10]] = 1e9  # an outlier (not in the sample)
    vals[gid == 4] = 2.5  # constant
    gid[gid == 5] = -1
    gid[np.flatnonzero(gid == -1)[:2]] = 5  # two values
    seg = _numba.kernels("central_fused")
    sv, starts = seg["bucket"](vals, gid, ng)
    np.testing.assert_array_equal(np.diff(starts), np.bincount(gid[gid >= 0], minlength=ng))
    out = np.empty(ng)
    ok = np.zeros(ng, bool)
    seg["segments"](
        sv,
        starts,
        CERTIFIED[stat],
        _CODE[stat],
        bool(p.get("bias", False)),
        bool(p.get("fisher", True)),
        float(p.get("ddof", 1)),
        out,
        ok,
    )
    exp = _exact_groups(vals.astype(np.float64), gid, ng, stat, p)
    np.testing.assert_array_equal(out[ok], exp[ok])
    assert ok[[0, 1, 2, 6, 7]].all() and not ok[3]
    got, gok = certified_groups(vals, gid, ng, stat, p)
    np.testing.assert_array_equal(got[gok], exp[gok])
    np.testing.assert_array_equal(cell_values(vals, gid, ng, stat, p), exp)
    perm = rng.permutation(n)
    np.testing.assert_array_equal(cell_values(vals[perm], gid[perm], ng, stat, p), exp)


@pytest.mark.parametrize(
    "case", ["near1", "overflow", "underflow", "mixed", "special", "subnormal", "tie"]
)
def test_products_lanes_bit_equal_to_the_exact_tree(case):
    """The 32-lane product kernel (FMA errors, rescaled every 256 steps per lane)
    against the exact product tree: long segments, values left out, unsorted groups
    (counting sort), overflow to +-inf, underflow to +-0; segments with zeros,
    infinities or subnormals are left to the branchy kernel."""
    from nanaccess.core.higher.product import _exact_products, group_products, row_products

    rng = np.random.default_rng(21)
    n = 20000
    x = 1.0 + rng.normal(size=(3, n)) / 1e3
    if case == "overflow":
        x = rng.uniform(1.5, 2.0, (3, n)) * np.where(rng.random((3, n)) < 0.5, -1, 1)
    elif case == "underflow":
        x = rng.uniform(0.3, 0.9, (3, n))
    elif case == "mixed":
        x = np.exp2(rng.integers(-300, 300, (3, n))) * rng.uniform(1, 2, (3, n))
    elif case == "special":
        x[0, 5] = 0.0
        x[1, 7] = -np.inf
        x[2, 9] = 5e-320
    keep = rng.random(x.shape) > 0.1
    if case in ("subnormal", "tie"):  # products below 2**-1022: rounded to 2**-1074 steps
        x[:, 0] = 2.0**-530 * np.array([1.3, -1.7, 1.01])
        x[:, 1] = 2.0**-530 * np.array([1.1, 1.9, 1.5])
        x[:, 2] = 2.0**-10 * np.array([1.0, 3.0, 0.7])
        keep[:, :3] = True
        if case == "tie":  # exactly (2**51 + 1/2) 2**-1074 and 5/2 2**-1074: ties
            x[:2] = 1.0
            x[0, :3] = [(2.0**52 + 1) * 2.0**-600, 2.0**-475, 1.0]
            x[1, :3] = [5.0 * 2.0**-600, 2.0**-475, 1.0]
    exp = np.array(
        [
            _exact_products(x[r][keep[r]], np.zeros(int(keep[r].sum()), np.int64), 1)[0]
            for r in range(3)
        ]
    )
    got = row_products(x, keep)
    np.testing.assert_array_equal(got, exp)
    assert np.array_equal(np.signbit(got), np.signbit(exp))
    flags = np.zeros(3, np.int64)
    out = np.empty(3)
    _numba.kernels("products_fused")["products"](
        x.reshape(-1).view(np.uint64),
        keep.reshape(-1),
        np.arange(4, dtype=np.int64) * n,
        out,
        flags,
    )
    np.testing.assert_array_equal(out[flags == 0], exp[flags == 0])
    if case == "special":
        assert (flags != 0).all()
    elif case == "tie":
        assert (flags[:2] != 0).all()  # ties: the exact tree decides
    else:
        assert not flags.any()
    gid = rng.integers(0, 7, n)
    v = x[0]
    gexp = _exact_products(v, gid, 7)
    np.testing.assert_array_equal(group_products(v, gid, 7), gexp)


def test_products_just_below_the_normal_range():
    """Products in [2**-1026, 2**-1021): the lane kernel rounds them to multiples of
    2**-1074 itself (the low part may carry the high part past a half) and every row
    equals the exact product tree."""
    from nanaccess.core.higher.product import _exact_products

    rng = np.random.default_rng(5)
    x = rng.uniform(1.0, 2.0, (200, 40))
    x[:, 0] *= 2.0**-522
    x[:, 1] *= 2.0**-522
    total = np.log2(x).sum(axis=1)
    x[:, 2] *= np.exp2(-1023 - np.round(total) + rng.integers(-3, 2, 200))
    keep = np.ones(x.shape, bool)
    out = np.empty(200)
    flags = np.zeros(200, np.int64)
    _numba.kernels("products_fused")["products"](
        x.reshape(-1).view(np.uint64),
        keep.reshape(-1),
        np.arange(201, dtype=np.int64) * 40,
        out,
        flags,
    )
    exp = _exact_products(x.reshape(-1), np.repeat(np.arange(200), 40), 200)
    assert (np.abs(exp) < 2.0**-1022).sum() > 100  # most are subnormal
    np.testing.assert_array_equal(out[flags == 0], exp[flags == 0])
    assert (flags == 0).sum() >= 195
