"""Mergeable exact partials: merged partials round to the one-shot functions' bits."""

from __future__ import annotations

import numpy as np
import pytest

from nanaccess.core.exactsum import (
    exact_mean,
    exact_partials,
    exact_sum,
    exact_var,
    extraction,
    merge_partials,
    round_mean,
    round_sum,
    round_var,
)

TINY = 5e-324


def same(a, b) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def split_partials(x, where, cuts, squares=True):
    """Partials of column slices of x, merged (in a shuffled order)."""
    edges = [0, *cuts, x.shape[-1]]
    parts = [
        exact_partials(x[..., a:b], None if where is None else where[..., a:b], squares=squares)
        for a, b in zip(edges[:-1], edges[1:], strict=True)
    ]
    return merge_partials(*parts[::-1])


def data_sets(rng):
    yield "normal", rng.standard_normal((3, 200))
    yield "wide", rng.standard_normal((3, 90)) * 10.0 ** rng.integers(-300, 300, (3, 90))
    yield "dyadic", rng.integers(-5, 6, (2, 80)) * 2.0 ** rng.integers(-1074, 1000, (2, 80))
    yield "close", 1.0 + rng.integers(-3, 4, (2, 100)) * 2.0**-52
    yield "huge", np.array([[1.7e308, 1.7e308, -1e308, 1e300] * 20])
    yield "tiny", np.array([[TINY, -TINY, TINY, 3 * TINY] * 20])
    special = rng.standard_normal((5, 70))
    special[0, 3] = np.inf
    special[1, [4, 60]] = [np.inf, -np.inf]
    special[2, 5] = -np.inf
    special[3] = -0.0
    special[4, :] = 0.0
    special[4, 7] = -0.0
    yield "special", special
    yield "float32", rng.standard_normal((3, 130)).astype(np.float32)
    yield "float16", rng.standard_normal((2, 100)).astype(np.float16)
    yield "int64", rng.integers(-(2**62), 2**62, (3, 100))
    yield "int64-extreme", np.array([[2**63 - 1, -(2**63), 2**63 - 1, -5] * 20])
    yield "uint8", rng.integers(0, 255, (2, 100)).astype(np.uint8)
    yield "bool", rng.random((2, 100)) < 0.3


@pytest.mark.parametrize("mode", ["vector", "blocks"])
def test_merged_partials_equal_one_shot(mode):
    rng = np.random.default_rng(11)
    saved = extraction._BLOCK
    extraction._BLOCK = 16 if mode == "blocks" else saved
    try:
        for name, x in data_sets(rng):
            where = rng.random(x.shape) < 0.8
            where[0, :] = True
            for w in (None, where):
                n = x.shape[-1]
                for cuts in ([n // 3, n // 2], [1, 2, n - 1]):
                    p = split_partials(x, w, cuts)
                    try:
                        want = exact_sum(x, w)
                    except OverflowError:
                        with pytest.raises(OverflowError):
                            round_sum(p)
                    else:
                        assert same(round_sum(p), want), (name, cuts)
                    assert same(round_mean(p), exact_mean(x, w)), (name, cuts)
                    for ddof in (0, 1, 2.5):
                        with np.errstate(invalid="ignore"):
                            want = exact_var(x, ddof, w)
                        assert same(round_var(p, ddof), want), (name, cuts, ddof)
    finally:
        extraction._BLOCK = saved


def test_empty_rows_zero_and_count():
    x = np.array([[-0.0, -0.0], [1.0, 2.0]])
    where = np.array([[False, False], [True, False]])
    p = merge_partials(exact_partials(x[:, :1], where[:, :1]),
                       exact_partials(x[:, 1:], where[:, 1:]))
    assert p.count.tolist() == [0, 1]
    assert same(round_sum(p), exact_sum(x, where))
    assert same(round_mean(p), exact_mean(x, where))
    assert same(round_var(p, 1), exact_var(x, 1, where))
    # all -0.0 across parts stays -0.0; an empty part does not spoil it
    z = np.array([-0.0, -0.0, -0.0])
    pz = merge_partials(exact_partials(z[:2]), exact_partials(z[2:]), exact_partials(z[:0]))
    assert same(round_sum(pz), exact_sum(z))


def test_int_overflow_names_row_and_squares_required():
    x = np.array([[2**62, 2**62], [1, 2]], dtype=np.int64)
    with pytest.raises(OverflowError, match="row 0"):
        round_sum(merge_partials(exact_partials(x[:, :1]), exact_partials(x[:, 1:])))
    with pytest.raises(ValueError, match="squares"):
        round_var(exact_partials(np.ones(3), squares=False))
