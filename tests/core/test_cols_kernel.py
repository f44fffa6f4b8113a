"""The leading-axis Sum2 kernel (``compensated.cols_kernel``) reads four rows per pass
over the cells: its accumulators must be those of adding each cell's rows one by one
in order (the sequential Sum2 below, in Python floats), bit for bit, at every number
of rows (multiples of four or not), for float64 and float32 data of any bit pattern
(NaN accumulators: NaN, their payload unspecified; a column whose sum is NaN is never
certified, so its smallest magnitude is unspecified too: the four-row pass takes the
minimum pairwise, and a NaN beside a number hides the number)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nanaccess.core import _numba as NB
from nanaccess.core._numba.compensated import MODE_ALL

pytestmark = pytest.mark.skipif(not NB.AVAILABLE, reason="numba not installed or disabled")


def _sequential(x: np.ndarray) -> tuple[np.ndarray, ...]:
    n, m = x.shape
    out = [np.zeros(m), np.zeros(m), np.zeros(m), np.full(m, np.inf)]
    for j in range(m):
        s = c = b = 0.0
        y = math.inf
        for i in range(n):
            v = float(x[i, j])
            t = s + v
            z = t - s
            e = (s - (t - z)) + (v - z)
            s, c, b = t, c + e, b + abs(e)
            y = min(y, abs(v) if v != 0.0 else math.inf)
        out[0][j], out[1][j], out[2][j], out[3][j] = s, c, b, y
    return tuple(out)


def _kernel(x: np.ndarray) -> tuple[np.ndarray, ...]:
    m = x.shape[1]
    s, c, b, y = np.zeros(m), np.zeros(m), np.zeros(m), np.full(m, np.inf)
    counts, flags = np.zeros(m, np.int64), np.zeros(m, np.int64)
    NB.kernels("compensated")["cols_kernel"](x, np.ones((1, 1), bool),
                                             np.zeros((1, 1), np.uint64), MODE_ALL, s, c,
                                             b, y, counts, flags)
    assert (counts == x.shape[0]).all() and not flags.any()
    return s, c, b, y


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 23), st.integers(1, 9), st.sampled_from(["f8", "f4"]), st.data())
def test_four_rows_per_pass_equal_the_sequential_sum2(n, m, dt, data):
    width = 64 if dt == "f8" else 32
    pats = st.one_of(st.integers(0, 2**width - 1),
                     st.sampled_from([0, 1 << (width - 1)]))  # +0.0, -0.0
    raw = data.draw(st.lists(pats, min_size=n * m, max_size=n * m))
    x = np.array(raw, dtype=f"u{width // 8}").view(dt).reshape(n, m)
    with np.errstate(all="ignore"):
        got, want = _kernel(x), _sequential(x)
    nan_sum = np.isnan(want[0])
    for g, w in zip(got[:3], want[:3], strict=True):
        # a NaN accumulator's payload is the hardware's pick (never certified: the
        # exact engine answers such cells); every other value bit for bit
        nan = np.isnan(w)
        assert np.array_equal(np.isnan(g), nan)
        assert g[~nan].tobytes() == w[~nan].tobytes()
    assert got[3][~nan_sum].tobytes() == want[3][~nan_sum].tobytes()
