"""Options: ``set_options`` process-wide and as a context manager, contextvar
isolation between threads and tasks, ``NanPolicy``, unknown policies."""

from __future__ import annotations

import asyncio
import threading

import numpy as np
import pytest

import nanaccess as na
from nanaccess.options import NanPolicy, resolve_policy

POLICIES = ["raise", "propagate", "omit", "smallest", "largest", "totalorder"]
DATA = np.array([np.nan] * 4 + [1.0, 2, 3, 4, 5, 6, 7])
# what the median of DATA is under each policy (nan: any NaN; "error": NaNError)
EXPECT = {"raise": "error", "propagate": "nan", "omit": 4.0, "smallest": 2.0,
          "largest": 6.0, "totalorder": 6.0}


def outcome(policy=None):
    try:
        r = na.median(DATA) if policy is None else na.median(DATA, nan_policy=policy)
    except na.NaNError:
        return "error"
    return "nan" if np.isnan(r) else float(r)


@pytest.fixture(autouse=True)
def _restore_default():
    before = na.get_options()["nan_policy"]
    yield
    na.set_options(nan_policy=before)


def test_default_is_raise():
    assert na.get_options()["nan_policy"] == "raise"
    assert na.get_options()["nan_policy"] is NanPolicy.RAISE
    assert outcome() == "error"


@pytest.mark.parametrize("policy", POLICIES)
def test_every_policy_outcome(policy):
    assert outcome(policy) == EXPECT[policy]


def test_set_options_process_wide():
    na.set_options(nan_policy="omit")
    assert na.get_options()["nan_policy"] == "omit"
    assert outcome() == 4.0
    seen = []
    t = threading.Thread(target=lambda: seen.append((na.get_options()["nan_policy"], outcome())))
    t.start()
    t.join()
    assert seen == [(NanPolicy.OMIT, 4.0)]  # worker threads see the process-wide value
    na.set_options(nan_policy="raise")
    assert outcome() == "error"


def test_context_manager_restores():
    with na.set_options(nan_policy="largest") as ctx:
        assert ctx is not None
        assert na.get_options()["nan_policy"] == "largest"
        assert outcome() == 6.0
        with na.set_options(nan_policy="smallest"):
            assert outcome() == 2.0
        assert outcome() == 6.0
    assert na.get_options()["nan_policy"] == "raise"
    assert outcome() == "error"


def test_context_manager_restores_after_exception():
    with pytest.raises(RuntimeError):
        with na.set_options(nan_policy="omit"):
            raise RuntimeError
    assert na.get_options()["nan_policy"] == "raise"


def test_option_context_does_not_touch_process_wide_value():
    """Another thread must not see an option_context override, even for an instant."""
    seen = []
    started = threading.Event()
    release = threading.Event()

    def worker():
        started.wait()
        seen.append(na.get_options()["nan_policy"])
        release.set()

    t = threading.Thread(target=worker)
    t.start()
    with na.option_context(nan_policy="omit"):
        started.set()
        release.wait(10)
        assert outcome() == 4.0
    t.join()
    assert seen == [NanPolicy.RAISE]


def test_explicit_keyword_beats_default():
    with na.set_options(nan_policy="omit"):
        assert outcome("largest") == 6.0
    na.set_options(nan_policy="smallest")
    assert outcome("omit") == 4.0


def test_eight_threads_isolated():
    """8 threads, overrides in some, all running at once: no leak anywhere."""
    n = 8
    barrier = threading.Barrier(n)
    plan = {0: "omit", 2: "largest", 3: "smallest", 5: "propagate", 6: "totalorder"}
    results: dict[int, list] = {}
    errors: list[BaseException] = []

    def worker(i):
        try:
            out = []
            policy = plan.get(i)
            if policy is None:
                barrier.wait(10)
                for _ in range(20):
                    out.append((na.get_options()["nan_policy"].value, outcome()))
                barrier.wait(10)
            else:
                with na.option_context(nan_policy=policy):
                    barrier.wait(10)
                    for _ in range(20):
                        out.append((na.get_options()["nan_policy"].value, outcome()))
                    barrier.wait(10)
                out.append((na.get_options()["nan_policy"].value, outcome()))
            results[i] = out
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert not errors
    for i in range(n):
        policy = plan.get(i, "raise")
        body = results[i][:20]
        assert body == [(policy, EXPECT[policy])] * 20, i
        if i in plan:
            assert results[i][20] == ("raise", "error")  # restored after the block
    assert na.get_options()["nan_policy"] == "raise"


def test_asyncio_tasks_isolated():
    async def task(policy):
        if policy is None:
            await asyncio.sleep(0.01)
            return na.get_options()["nan_policy"].value
        with na.option_context(nan_policy=policy):
            await asyncio.sleep(0.01)
            return na.get_options()["nan_policy"].value

    async def main():
        return await asyncio.gather(task("omit"), task(None), task("largest"), task(None))

    assert asyncio.run(main()) == ["omit", "raise", "largest", "raise"]


def test_chained_assignment_applies_process_wide():
    """Regression: the old bytecode reading made ``a = b = set_options(...)`` a no-op."""
    a = b = na.set_options(nan_policy="omit")
    assert a is b
    assert na.get_options()["nan_policy"] == "omit"
    assert outcome() == 4.0
    opts = [na.set_options(nan_policy="largest")][0]
    assert opts is not None and outcome() == 6.0


def test_set_options_with_block_is_process_wide_and_restored():
    """As xarray: the with-form sets the process-wide value (other threads see it)."""
    seen = []
    with na.set_options(nan_policy="largest"):
        t = threading.Thread(target=lambda: seen.append(na.get_options()["nan_policy"]))
        t.start()
        t.join()
    assert seen == [NanPolicy.LARGEST]
    assert na.get_options()["nan_policy"] == "raise"


def test_option_context_nests_over_set_options():
    na.set_options(nan_policy="omit")
    with na.option_context(nan_policy="smallest"):
        assert outcome() == 2.0
        with na.option_context(nan_policy="largest"):
            assert outcome() == 6.0
        assert outcome() == 2.0
    assert outcome() == 4.0


def test_engine_option():
    assert na.get_options()["engine"] == "auto"
    with na.option_context(engine="numpy"):
        assert na.get_options()["engine"] == "numpy"
    with pytest.raises(ValueError, match="numba"):
        na.set_options(engine="fortran")
    assert na.get_options()["engine"] == "auto"


def test_context_manager_bound_to_name_first():
    cm = na.set_options(nan_policy="omit")
    with cm:
        assert outcome() == 4.0
    assert na.get_options()["nan_policy"] == "raise"


# ---------------------------------------------------------------- NanPolicy


def test_nanpolicy_str_enum_accepted():
    assert issubclass(NanPolicy, str)
    assert [p.value for p in NanPolicy] == POLICIES
    assert na.NanPolicy is NanPolicy
    for p in NanPolicy:
        assert outcome(p) == EXPECT[p.value]
        assert resolve_policy(p.value) is p
        assert str(p) == p.value
    with na.set_options(nan_policy=NanPolicy.OMIT):
        assert outcome() == 4.0
    assert na.mean(np.array([1.0, np.nan]), nan_policy=NanPolicy.OMIT) == 1.0
    assert na.sort(np.array([2.0, 1.0]), nan_policy=NanPolicy.TOTALORDER).tolist() == [1.0, 2.0]


@pytest.mark.parametrize("bad", ["ignore", "OMIT", "", "nan", 3])
def test_unknown_policy_value_error_lists_valid(bad):
    for fn in (lambda: na.median(DATA, nan_policy=bad),
               lambda: na.mean(DATA, nan_policy=bad),
               lambda: na.sort(DATA, nan_policy=bad),
               lambda: na.set_options(nan_policy=bad)):
        with pytest.raises(ValueError) as ei:
            fn()
        msg = str(ei.value)
        assert all(p in msg for p in POLICIES), msg
    assert na.get_options()["nan_policy"] == "raise"


def test_unknown_option_name():
    with pytest.raises(TypeError):
        na.set_options(bogus=1)
    with pytest.raises(TypeError, match="option_context"):
        with na.option_context(bogus=1):
            pass
