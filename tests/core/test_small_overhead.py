"""Issue 30's per-call work on the lean paths: what was cut keeps every bit.

* float64 medians beyond ``_SORT_MAX`` values are selected by one partition at the
  numbers' median ranks (after one NaN mask), not a sorted copy;
* one-rank partitions of more than ``_ONE_KTH_MAX`` values select two ranks;
* the mean of small int data is the int64 sum over ``n`` (Python's division);
* a kernel remembers the argument types it has machine code for.

Each is compared with the engines (``reduce(..., lean=False)``), bit for bit.
"""

from __future__ import annotations

import numpy as np
import pytest

from nanaccess.core import small
from nanaccess.core.reduce import reduce
from nanaccess.options import NanPolicy, option_context


def _same(x, stat, policy, missing=None, **params):
    def run(lean):
        try:
            r = reduce(x, stat, policy=policy, missing=missing, lean=lean, **params)
            return r.values.dtype, r.values.tobytes(), int(r.count)
        except Exception as exc:  # the same error either way
            return type(exc), str(exc)
    assert run(True) == run(False), (x.dtype, x.size, stat, policy)


@pytest.mark.parametrize("n", [small._SORT_MAX, small._SORT_MAX + 1, 999, 1000, 4096])
@pytest.mark.parametrize("nans", [0, 1, 10, "all"])
@pytest.mark.parametrize("stat", ["median", "median_low", "median_high"])
def test_partitioned_float64_medians_match_the_engines(n, nans, stat):
    rng = np.random.default_rng(n)
    with np.errstate(over="ignore"):
        huge = rng.normal(size=n) * 1e308  # midpoints that overflow
    for data in (rng.normal(size=n), np.round(rng.normal(size=n)),
                 np.where(rng.random(n) < 0.5, -0.0, 0.0), huge):
        x = data.copy()
        k = n if nans == "all" else nans
        x[rng.choice(n, k, replace=False)] = np.nan
        for policy in NanPolicy:
            _same(x, stat, policy)


def test_a_signaling_nan_beyond_the_sort_still_raises_under_omit():
    x = np.arange(1000.0)
    x[7] = np.frombuffer(np.uint64(0x7FF0000000000001).tobytes(), np.float64)[0]
    assert small.order_small(x, "median", NanPolicy.OMIT) is None
    _same(x, "median", NanPolicy.OMIT)


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "int32", "uint64"])
@pytest.mark.parametrize("n", [small._ONE_KTH_MAX, small._ONE_KTH_MAX + 1, 1001])
def test_two_rank_partitions_pick_what_one_rank_does(dtype, n):
    rng = np.random.default_rng(3)
    x = (rng.normal(size=n) * 1000).astype(dtype)
    for stat in ("median", "median_low", "median_high"):
        _same(x, stat, NanPolicy.RAISE)
    if dtype == "float64":
        for q in (0.0, 0.3, 0.5, 1.0):
            _same(x, "quantile", NanPolicy.RAISE, q=q)


@pytest.mark.parametrize("dtype", ["int8", "int32", "int64", "uint8", "uint64"])
@pytest.mark.parametrize("n", [1, 3, 10, 1000, 4096])
def test_int_means_match_the_exact_engine(dtype, n):
    rng = np.random.default_rng(n)
    info = np.iinfo(dtype)
    for scale in (3, 2**31, 2**52, 2**62, 2**63):
        x = rng.integers(max(int(info.min), -scale), min(int(info.max), scale), n,
                         endpoint=True, dtype=dtype)
        miss = np.zeros(n, bool)
        miss[::4] = True
        for policy in (NanPolicy.OMIT, NanPolicy.RAISE, NanPolicy.PROPAGATE):
            _same(x, "mean", policy)
            _same(x, "mean", policy, missing=miss)


def test_int_mean_declines_what_could_overflow():
    assert small.int_mean(np.array([2**62, 2**62], dtype=np.int64)) is None
    assert small.int_mean(np.array([-(2**63)], dtype=np.int64)) is None
    assert small.int_mean(np.array([2**64 - 1], dtype=np.uint64)) is None
    assert small.int_mean(np.array([1, 2], dtype=np.int64)) == 1.5


def test_a_kernel_remembers_ready_argument_types():
    pytest.importorskip("numba")
    from nanaccess.core import _numba
    from nanaccess.core._numba._background import Deferred

    if _numba.choose_engine(size=10) != "numba":
        pytest.skip("the numba engine is off")
    k = _numba.kernels("compensated_var")["var_one_kernel"]
    if not isinstance(k, Deferred):
        pytest.skip("kernels are not deferred here")
    x = np.array([1.0, np.nan, 4.0, 2.0])
    args = (x, x.view(np.uint64), True, 1)
    first = k.dispatcher(*args)  # machine code in memory (compiled here if need be)
    with option_context(compile="background"):  # (the tests compile in the foreground)
        assert k.ready(*args)
        assert k._ready  # the type key is remembered ...
        assert k.ready(*args)  # ... and answers
        got = k(*args)
    assert [np.asarray(v).tobytes() for v in got] == [np.asarray(v).tobytes() for v in first]
