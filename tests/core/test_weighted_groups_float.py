"""The grouped weighted selection on float sums decides as the exact limbs would.

:mod:`nanaccess.core._numba.weighted_groups` compares float64 cumulative weights with
the targets and decides only outside the group's rounding bound (``0`` when every
partial sum is exact); an undecided comparison sends the group to the exact limbs.
These cases put the targets on the partial sums themselves (equal weights that are
not exact in binary, integer weights), check that the float path really gives up
there, and that every route (float, exact fallback, keyed and index layouts, groups
in chunks) gives the NumPy engine's bits.
"""

from __future__ import annotations

import numpy as np
import pytest

from nanaccess.core.grouped import HAVE_NUMBA
from nanaccess.core.grouped.weighted import grouped_weighted

pytestmark = pytest.mark.skipif(not HAVE_NUMBA, reason="numba not installed")

CASES = [("median", {}), ("median_low", {}), ("median_high", {}),
         ("quantile", {"q": [0.0, 0.1, 0.25, 0.5, 0.7, 1.0], "method": "linear"}),
         ("quantile", {"q": [0.2, 0.5, 0.9], "method": "inverted_cdf"}),
         ("quantile", {"q": [0.3, 0.6], "method": "nearest"})]


def _bits(v) -> bytes:
    return np.ascontiguousarray(v).tobytes()


def _same(x, codes, ngroups, w, policy) -> None:
    for stat, kw in CASES:
        a = grouped_weighted(x, codes, ngroups, stat, w, policy=policy, engine="numba", **kw)
        b = grouped_weighted(x, codes, ngroups, stat, w, policy=policy, engine="numpy", **kw)
        assert a[0].dtype == b[0].dtype
        assert _bits(a[0]) == _bits(b[0]), (stat, kw, policy)
        assert (a[2] == b[2]).all()
        if b[1] is None:
            assert a[1] is None or not a[1].any()
        else:
            assert (a[1] == b[1]).all()


def _module():
    from nanaccess.core._numba import kernels
    from nanaccess.core._numba import weighted_groups as wg

    kernels("weighted_groups")  # binds the compiled helpers into the module
    return wg


def test_decide_is_sure_only_outside_the_bound():
    wg = _module()

    def decide(v, t, err, c=3, kind=0, n=5):
        return wg._nb_decide(v, c, t, kind, n, err)

    assert decide(1.0, 1.0, 0.0) == 1 and decide(0.5, 1.0, 0.0) == 0
    assert decide(1.0 + 1e-9, 1.0, 1e-12) == 1
    assert decide(1.0 - 1e-9, 1.0, 1e-12) == 0
    assert decide(1.0, 1.0, 1e-12) == -1
    assert decide(1.0 + 1e-13, 1.0, 1e-12) == -1
    # the total and the first unit: by the count, whatever the floats say
    assert decide(1.0, 1.0, 1e-12, c=5, kind=1) == 1
    assert decide(1.0, 1.0, 1e-12, c=4, kind=1) == 0
    assert decide(0.0, 1e-300, 1e-12, c=0, kind=2) == 0
    assert decide(1e-300, 1e-300, 1e-12, c=1, kind=2) == 1


def test_float_path_gives_up_on_a_target_at_a_partial_sum():
    """Ten weights 0.1 (not exact in binary): the median's reaches sit on partial
    sums, within the bound of the float sums, so the float selection refuses."""
    wg = _module()
    n = 10
    k = np.arange(n, dtype=np.int64)[::-1].copy()
    ws = np.full(n, 0.1)
    tot = float(np.sum(ws))
    err = (n + 4) * 2.0 ** -52 * tot
    tf = np.array([0.5, 0.6])  # the 5th and 6th partial sums, as floats
    kinds = np.zeros(2, np.int64)
    out = np.full((2, 1), -1, np.int64)
    ok = wg._nb_fgroup_select(k, ws.copy(), k, 0, n, tot, err, tf, kinds, np.arange(2),
                              out, 0,
                              np.empty(64, np.int64), np.empty(64), np.empty(16, np.int64),
                              True)
    assert ok is False or ok == 0
    # a target clear of every partial sum is decided by the floats alone
    tf = np.array([0.55, 0.55])
    ok = wg._nb_fgroup_select(k, ws.copy(), k, 0, n, tot, err, tf, kinds, np.arange(2),
                              out, 0,
                              np.empty(64, np.int64), np.empty(64), np.empty(16, np.int64),
                              True)
    assert ok and (out[:, 0] == 5).all()  # keyed: the 6th smallest key, 5
    # the total (kind 1) and the first unit (kind 2): decided by the counts
    tf, kinds = np.array([tot, 2.0 ** -56]), np.array([1, 2])
    ok = wg._nb_fgroup_select(k, ws.copy(), k, 0, n, tot, err, tf, kinds, np.array([1, 0]),
                              out, 0, np.empty(64, np.int64), np.empty(64),
                              np.empty(16, np.int64), True)
    assert ok and out[0, 0] == 9 and out[1, 0] == 0


@pytest.mark.parametrize("policy", ["omit", "propagate", "totalorder", "largest"])
@pytest.mark.parametrize("weight", [0.1, 1.0 / 3.0, 0.7, 3.0])
def test_equal_inexact_weights_give_the_numpy_bits(weight, policy):
    """Targets on the partial sums in every group (the exact fallback), for the keyed
    layout ("omit", "propagate") and the index layout (NaNs ordered)."""
    rng = np.random.default_rng(21)
    sizes = np.array([1, 2, 3, 4, 5, 9, 10, 16, 17, 33, 64, 100, 257])
    codes = np.repeat(np.arange(sizes.size), sizes)
    rng.shuffle(codes)
    x = rng.normal(size=codes.size).round(1)
    x[::19] = np.nan
    w = np.full(codes.size, weight)
    w[::23] = 0.0
    _same(x, codes, sizes.size + 1, w, policy)


def test_mixed_inexact_and_integer_groups():
    """Groups of integer weights (exact floats), of tenths (ties, fallback) and of
    random reals (floats decide) side by side."""
    rng = np.random.default_rng(22)
    codes = rng.integers(0, 60, 6000)
    x = rng.normal(size=6000).round(2)
    kind = codes % 3
    w = np.where(kind == 0, rng.integers(1, 5, 6000).astype(float),
                 np.where(kind == 1, 0.1 * rng.integers(1, 4, 6000), rng.random(6000)))
    _same(x, codes, 60, w, "omit")
    _same(x, codes, 60, w, "largest")


@pytest.mark.parametrize("policy", ["omit", "propagate"])
def test_groups_in_chunks(monkeypatch, policy):
    """More groups than a chunk: the per-group work in several chunks, with empty
    groups, NaN groups ("propagate") and groups too wide for the limbs."""
    from nanaccess.core.weighted import compiled

    monkeypatch.setattr(compiled, "_CHUNK", 7)
    rng = np.random.default_rng(23)
    codes = rng.integers(0, 50, 2000)
    codes[codes == 13] = 14  # an empty group in the middle
    x = rng.normal(size=2000).round(1)
    x[::97] = np.nan
    w = rng.random(2000)
    w[codes == 20] *= 2.0 ** rng.integers(-40, 40, int((codes == 20).sum()))  # wide
    w[codes == 21] = 2.0 ** 60  # exact floats, err 0
    _same(x, codes, 52, w, policy)


def test_kept_scratch_carries_nothing_between_calls_or_threads():
    """The records' buffer is kept per thread between calls: a larger call, then a
    smaller one, and calls from several threads at once all give the NumPy bits."""
    import threading

    from nanaccess.core.weighted import compiled

    rng = np.random.default_rng(24)

    def case(n, groups, seed):
        r = np.random.default_rng(seed)
        return r.normal(size=n).round(2), r.integers(0, groups, n), r.random(n), groups

    def check(x, codes, w, groups, out=None):
        a = grouped_weighted(x, codes, groups, "median", w, policy="omit", engine="numba")
        b = grouped_weighted(x, codes, groups, "median", w, policy="omit", engine="numpy")
        ok = _bits(a[0]) == _bits(b[0])
        if out is None:
            assert ok
        else:
            out.append(ok)

    check(*case(5000, 30, 1))
    kept = compiled._SCRATCH.buf
    check(*case(700, 9, 2))
    assert compiled._SCRATCH.buf is kept  # reused, not reallocated
    results: list[bool] = []
    threads = [threading.Thread(target=check, args=(*case(int(rng.integers(500, 4000)), 17,
                                                         10 + i), results))
               for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [True] * 4


@pytest.mark.parametrize("engine", ["numpy", "numba"])
def test_rows_of_no_group_are_ignored_with_their_weights(engine):
    """Code -1: the row, its (negative, NaN) weight and its NaN data are never seen."""
    x = np.array([1.0, 2.0, 3.0, np.nan, 10.0, 20.0])
    codes = np.array([0, -1, 0, -1, 1, -1])
    w = np.array([1.0, -5.0, 1.0, 1.0, 1.0, np.nan])
    vals, miss, count = grouped_weighted(x, codes, 2, "median", w, policy="raise",
                                         engine=engine)
    assert vals.tolist() == [2.0, 10.0] and miss is None and count.tolist() == [2, 1]


@pytest.mark.parametrize("scale", [2.0 ** -1000, 2.0 ** -1060, 2.0 ** 1010])
def test_tiny_and_huge_totals_take_the_exact_limbs(scale):
    """Real weights scaled so that the group totals leave the float path's range
    (no bound is trusted there): the exact limbs decide, with the NumPy bits."""
    rng = np.random.default_rng(25)
    codes = rng.integers(0, 12, 900)
    x = rng.normal(size=900).round(1)
    w = rng.random(900) * scale
    _same(x, codes, 12, w, "omit")


@pytest.mark.parametrize("policy", ["omit", "propagate"])
def test_dropped_pairs_skipped_by_the_layout(policy):
    """NaN data, NaN weights and missing weights (whatever their hidden values):
    the compiled layout skips the pairs the policy drops without a zeroed copy of
    the weights (``prepare(defer_drop=True)``), with the NumPy bits."""
    rng = np.random.default_rng(26)
    n = 3000
    codes = rng.integers(0, 25, n)
    x = rng.normal(size=n).round(1)
    x[::31] = np.nan
    w = rng.random(n)
    w[5::37] = np.nan
    wmiss = np.zeros(n, bool)
    wmiss[7::41] = True
    w[7::41] = -3.0  # hidden under the mask
    for stat, kw in CASES:
        a = grouped_weighted(x, codes, 25, stat, w, policy=policy, engine="numba",
                             weights_missing=wmiss, **kw)
        b = grouped_weighted(x, codes, 25, stat, w, policy=policy, engine="numpy",
                             weights_missing=wmiss, **kw)
        assert _bits(a[0]) == _bits(b[0]) and (a[2] == b[2]).all(), (stat, kw)
    assert not np.isnan(w[0]) and np.isnan(w[5]) and w[7] == -3.0  # the caller's weights
