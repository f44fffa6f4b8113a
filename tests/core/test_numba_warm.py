"""``choose_engine(warm=...)``: a kernel family compiled in this process already serves
inputs under the size threshold too; NumPy stays the reference when asked for."""

from __future__ import annotations

import numpy as np
import pytest

from nanaccess.core import _numba as NB
from nanaccess.core.grouped.weighted import grouped_weighted

needs_numba = pytest.mark.skipif(not NB.AVAILABLE or bool(NB.BROKEN),
                                 reason="numba not installed or broken")


def test_a_family_never_compiled_keeps_the_threshold():
    assert NB.choose_engine("auto", size=10, min_size=100, warm="no_such_family") == "numpy"
    assert NB.choose_engine("auto", size=10, min_size=100) == "numpy"


@needs_numba
def test_a_compiled_family_serves_small_inputs():
    NB.kernels("weighted_groups")
    assert NB.choose_engine("auto", size=10, min_size=100, warm="weighted_groups") == "numba"
    assert NB.choose_engine("numpy", size=10, min_size=100, warm="weighted_groups") == "numpy"
    assert NB.choose_engine("auto", size=10, min_size=100) == "numpy"  # no family named


@needs_numba
def test_small_grouped_weighted_median_after_warm_up_keeps_the_bits():
    NB.kernels("weighted_groups")
    rng = np.random.default_rng(4)
    codes = rng.integers(0, 30, 400)
    x = rng.normal(size=400).round(1)
    x[::17] = np.nan
    w = rng.random(400)
    auto = grouped_weighted(x, codes, 30, "median", w, policy="omit", engine="auto")
    ref = grouped_weighted(x, codes, 30, "median", w, policy="omit", engine="numpy")
    assert auto[0].tobytes() == ref[0].tobytes() and (auto[2] == ref[2]).all()
