"""The compiled weighted selection gives the NumPy engine's bits on hard weight layouts.

The compiled kernels (:mod:`nanaccess.core._numba.weighted`) find each group's lowest
and top weight bits and split its weights into exact integer limbs on their own; the
NumPy engine does it in :mod:`nanaccess.core.weighted.cumulative`. These cases stress
the split: subnormal weights (alone and next to normal ones), weights spanning many
binades (one limb, two limbs, too wide for the limbs: float groups), integer weights
with exact ties of the cumulative weight and the targets, groups of one to a few
hundred pairs (the small-range rank sort and the quickselect), and keys with ties.
"""

from __future__ import annotations

import numpy as np
import pytest

import nanaccess as na
from nanaccess.core.grouped import HAVE_NUMBA
from nanaccess.core.grouped.weighted import grouped_weighted
from nanaccess.core.reduce import reduce
from nanaccess.core.weighted.cumulative import units_of

pytestmark = pytest.mark.skipif(not HAVE_NUMBA, reason="numba not installed")

CASES = [("median", {}), ("median_low", {}), ("median_high", {}),
         ("quantile", {"q": [0.0, 0.01, 0.25, 0.5, 0.77, 1.0], "method": "linear"}),
         ("quantile", {"q": [0.2, 0.5, 0.9], "method": "inverted_cdf"})]

TINY = np.finfo(np.float64).smallest_subnormal


def _weights(kind: str, rng: np.random.Generator, n: int) -> np.ndarray:
    if kind == "real":
        return rng.random(n)
    if kind == "int":
        return rng.integers(1, 4, n).astype(float)
    if kind == "subnormal":
        return rng.integers(1, 1 << 20, n) * TINY
    if kind == "mixed_subnormal":
        w = rng.integers(1, 1 << 20, n) * TINY
        w[::3] = rng.random(w[::3].size) * 2.0 ** -1000
        w[::7] = rng.random(w[::7].size)
        return w
    if kind == "binades":  # two limbs; the groups holding a huge weight: float groups
        w = rng.random(n) * 2.0 ** rng.integers(-20, 20, n)
        w[::53] *= 2.0 ** 60
        return w
    if kind == "one_limb":
        return rng.integers(1, 1 << 10, n) * 2.0 ** -30
    raise AssertionError(kind)


def _bits(v) -> bytes:
    return np.ascontiguousarray(v).tobytes()


@pytest.mark.parametrize("kind", ["real", "int", "subnormal", "mixed_subnormal", "binades",
                                  "one_limb"])
def test_compiled_groups_give_the_numpy_bits(kind):
    rng = np.random.default_rng(5)
    sizes = np.concatenate([np.arange(1, 40), [63, 64, 65, 200, 700]])
    codes = np.repeat(np.arange(sizes.size), sizes)
    rng.shuffle(codes)
    n = codes.size
    x = rng.normal(size=n).round(1)  # many equal keys
    w = _weights(kind, rng, n)
    w[::11] = 0.0
    x[::13] = np.nan
    ngroups = sizes.size + 1  # one group without rows
    for stat, kw in CASES:
        a = grouped_weighted(x, codes, ngroups, stat, w, policy="omit", engine="numba", **kw)
        b = grouped_weighted(x, codes, ngroups, stat, w, policy="omit", engine="numpy", **kw)
        assert _bits(a[0]) == _bits(b[0]), (stat, kw)
        assert (a[2] == b[2]).all()


def test_the_layouts_cover_exact_and_float_groups():
    """The "binades" weights hold exact groups and groups too wide for the limbs (so
    the test above runs both routes of the compiled engine)."""
    rng = np.random.default_rng(5)
    w = _weights("binades", rng, 700)
    wide = units_of(w[None, :])
    narrow = units_of(w[None, 1:41])
    assert not wide.exact.all()
    assert narrow.exact.all() and (narrow.hi != 0).any()
    assert (units_of(_weights("one_limb", rng, 50)[None, :]).hi == 0).all()


@pytest.mark.parametrize("kind", ["real", "subnormal", "binades"])
def test_compiled_rows_give_the_numpy_bits(kind):
    """Rows of an ndarray (the row kernels share the limbs)."""
    rng = np.random.default_rng(9)
    x = rng.normal(size=(30, 41)).round(1)
    w = _weights(kind, rng, x.size).reshape(x.shape)
    w[:, ::5] = 0.0
    for stat, kw in CASES:
        with na.option_context(engine="numba"):
            a = reduce(x, stat, axis=1, weights=w, policy="omit", **kw).values
        with na.option_context(engine="numpy"):
            b = reduce(x, stat, axis=1, weights=w, policy="omit", **kw).values
        assert _bits(a) == _bits(b), (stat, kw)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.dtype(">f8")])
@pytest.mark.parametrize("policy", ["omit", "propagate", "totalorder", "largest"])
def test_compiled_narrow_floats_give_the_numpy_bits(dtype, policy):
    """float32 / float16 / big-endian data (widened to float64 keys in the kernel when
    no NaN can be picked) keep their dtype and the NumPy engine's bits."""
    rng = np.random.default_rng(3)
    codes = rng.integers(0, 40, 3000)
    x = rng.normal(size=3000).round(2).astype(dtype)
    x[::17] = np.nan
    x[5::29] = -0.0
    w = _weights("real", rng, 3000)
    w[::7] = 0.0
    for stat, kw in CASES:
        a = grouped_weighted(x, codes, 41, stat, w, policy=policy, engine="numba", **kw)
        b = grouped_weighted(x, codes, 41, stat, w, policy=policy, engine="numpy", **kw)
        assert a[0].dtype == b[0].dtype
        assert _bits(a[0]) == _bits(b[0]), (stat, kw)
