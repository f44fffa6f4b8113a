"""The certified front pass of skew/kurt/sem (issue 23): bit-equal to the exact power
sums wherever it answers, and the exact engine decides every cell it leaves open."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as hs
from hypothesis.extra import numpy as hnp

from nanaccess import options
from nanaccess.core import _numba
from nanaccess.core.higher import cells
from nanaccess.core.higher.cells import cell_values
from nanaccess.core.higher.certified import certified_groups, certified_rows

pytestmark = pytest.mark.skipif(not _numba.AVAILABLE, reason="numba not installed or disabled")

STATS = [("skew", {"bias": False}), ("skew", {"bias": True}), ("kurt", {"bias": False}),
         ("kurt", {"bias": True, "fisher": False}), ("sem", {"ddof": 1}), ("sem", {"ddof": 0.5})]


@pytest.fixture(autouse=True)
def _numba_now():
    with options.option_context(engine="numba", compile="foreground"):
        yield


def _exact_rows(x, keep, stat, p):
    with options.option_context(engine="numpy"):
        return cell_values(None, None, x.shape[0], stat, p, rows=x, rows_keep=keep,
                           certify=False)


def _check_rows(x, keep, stat, p):
    got = certified_rows(x, keep, stat, p)
    assert got is not None
    vals, ok = got
    exp = _exact_rows(x, keep, stat, p)
    np.testing.assert_array_equal(vals[ok], exp[ok])  # bit-equal (signed zeros too)
    assert np.array_equal(np.signbit(vals[ok]), np.signbit(exp[ok]))
    full = cell_values(None, None, x.shape[0], stat, p, rows=x, rows_keep=keep)
    np.testing.assert_array_equal(full, exp)
    return ok


FLOATS = hs.floats(-1e6, 1e6, allow_nan=False, width=64)


@given(data=hnp.arrays(np.float64, hs.tuples(hs.integers(1, 3), hs.integers(0, 400)),
                       elements=FLOATS),
       offset=hs.sampled_from([0.0, 1e9, -3e12, 1e-300, 2.0 ** 600]),
       scale=hs.sampled_from([1.0, 1e-3, 2.0 ** -1060, 1e200]),
       seed=hs.integers(0, 2 ** 16), which=hs.integers(0, len(STATS) - 1))
def test_rows_bit_equal_to_exact(data, offset, scale, seed, which):
    stat, p = STATS[which]
    with np.errstate(over="ignore", under="ignore"):
        x = data * scale + offset
    x = np.where(np.isfinite(x), x, 0.0)
    keep = np.random.default_rng(seed).random(x.shape) > 0.2
    _check_rows(x, keep, stat, p)
    _check_rows(x, None, stat, p)


@given(data=hnp.arrays(np.float32, hs.integers(0, 600),
                       elements=hs.floats(-1e4, 1e4, width=32)),
       ngroups=hs.integers(1, 12), seed=hs.integers(0, 2 ** 16),
       which=hs.integers(0, len(STATS) - 1))
def test_groups_bit_equal_to_exact(data, ngroups, seed, which):
    stat, p = STATS[which]
    gid = np.random.default_rng(seed).integers(-1, ngroups, data.size)  # -1: left out
    got = certified_groups(data.astype(np.float64), gid, ngroups, stat, p)
    assert got is not None
    vals, ok = got
    taken = gid >= 0
    with options.option_context(engine="numpy"):
        exp = cell_values(data[taken], gid[taken], ngroups, stat, p, certify=False)
    np.testing.assert_array_equal(vals[ok], exp[ok])
    np.testing.assert_array_equal(cell_values(data, gid, ngroups, stat, p), exp)


@pytest.mark.parametrize("stat,p", STATS)
def test_ordinary_data_is_certified(stat, p):
    rng = np.random.default_rng(5)
    x = np.vstack([rng.normal(size=5000), rng.normal(size=5000) + 1e9,
                   rng.exponential(size=5000) * 1e-290, rng.standard_cauchy(5000)])
    ok = _check_rows(x, None, stat, p)
    assert ok.all()


@pytest.mark.parametrize("stat,p", [s for s in STATS if s[0] != "sem"])
def test_exact_zero_falls_back(monkeypatch, stat, p):
    """Symmetric data have skew exactly 0 (a value no bound can round): the exact
    engine answers (spied), with the exact path's +0.0."""
    x = np.array([[-3.0, -1.0, 0.0, 1.0, 3.0] * 80])
    if stat == "kurt":  # kurt exactly 0: G2 = 0 needs a rational coincidence; use a tie
        x = np.array([[1.0, 2.0, 3.0, 4.0] * 100])
    calls = []
    orig = cells.cell_sums

    def spy(*a, **k):
        calls.append(1)
        return orig(*a, **k)

    monkeypatch.setattr(cells, "cell_sums", spy)
    vals, ok = certified_rows(x, None, stat, p)
    out = cell_values(None, None, 1, stat, p, rows=x)
    exp = _exact_rows(x, None, stat, p)
    np.testing.assert_array_equal(out, exp)
    if stat == "skew":
        assert not ok[0] and calls and out[0] == 0.0 and not np.signbit(out[0])
    else:
        assert ok[0] or calls


def test_nonfinite_and_short_cells():
    x = np.array([[1.0, np.inf, 2.0, 3.0, 4.0], [1.0, 2.0, np.nan, 3.0, 5.0],
                  [1.0, 2.0, 3.0, 4.0, 6.0], [7.0] * 5])
    keep = np.ones(x.shape, bool)
    keep[2, 2:] = False  # two values left: skew needs three
    for stat, p in STATS:
        vals, ok = certified_rows(x, keep, stat, p)
        assert ok[[0, 1, 3]].all()  # row 2 under bias=True: skew exactly 0, left open
        assert np.isnan(vals[:2]).all()
        exp = _exact_rows(x[2:], keep[2:], stat, p)
        np.testing.assert_array_equal(vals[2:][ok[2:]], exp[ok[2:]])
        np.testing.assert_array_equal(cell_values(None, None, 4, stat, p, rows=x,
                                                  rows_keep=keep)[2:], exp)


def test_no_mutation():
    x = np.random.default_rng(1).normal(size=(2, 1000))
    keep = x > -1
    x0, k0 = x.copy(), keep.copy()
    certified_rows(x, keep, "kurt", {"bias": False})
    np.testing.assert_array_equal(x, x0)
    np.testing.assert_array_equal(keep, k0)


@given(data=hnp.arrays(np.float64, hs.integers(0, 2500),
                       elements=hs.floats(0.5, 2.0) | hs.sampled_from(
                           [0.0, -0.0, 5e-324, -3e-310, 1e300, -1e-300, np.inf, -1.5])),
       ngroups=hs.integers(1, 4), seed=hs.integers(0, 2 ** 16))
def test_products_lanes_bit_equal_to_the_exact_tree(data, ngroups, seed):
    """The lane kernel of prod (4 lanes, lazy rescaling every 256 steps: long groups
    cross it) against the exact product tree, with zeros, infinities, subnormals."""
    from nanaccess.core.higher.product import _exact_products, group_products

    gid = np.sort(np.random.default_rng(seed).integers(0, ngroups, data.size))
    got = group_products(data, gid, ngroups)
    exp = _exact_products(data, gid, ngroups)
    np.testing.assert_array_equal(got, exp)
    assert np.array_equal(np.signbit(got), np.signbit(exp))


def test_row_products_with_a_selection():
    """Rows of prod with values left out (read as 1.0 by the kernel) equal the exact
    tree of the values taken, including a row the kernel cannot certify."""
    from nanaccess.core.higher.product import _exact_products, row_products

    rng = np.random.default_rng(7)
    rows = 1.0 + rng.normal(size=(4, 3000)) / 1e3
    rows[1, 5] = np.nan  # left out below
    rows[2, :] = 5e-320  # a subnormal product: left to the exact tree
    keep = rng.random(rows.shape) > 0.3
    keep[1, 5] = False
    got = row_products(rows, keep)
    exp = [_exact_products(rows[r][keep[r]], np.zeros(int(keep[r].sum()), np.int64), 1)[0]
           for r in range(4)]
    np.testing.assert_array_equal(got, exp)
