"""Concurrency: threads, per-thread option overrides, and a process LocalCluster."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import nanaccess as na

RNG = np.random.default_rng(7)
DATA = RNG.normal(size=20_000)
DATA[RNG.integers(0, DATA.size, 200)] = np.nan
STATS = ["median", "median_low", "min", "max", "mean", "var", "sum"]


def _bits(x: object) -> bytes:
    return np.asarray(x).tobytes()


def _serial() -> dict:
    return {(s, p): _bits(getattr(na, s)(DATA, nan_policy=p))
            for s in STATS for p in ("omit", "propagate", "smallest")}


def test_eight_threads_equal_serial_with_overrides() -> None:
    want = _serial()
    barrier = threading.Barrier(8)

    def work(i: int) -> dict:
        barrier.wait()
        out = {}
        for _ in range(3):
            for s in STATS:
                for p in ("omit", "propagate", "smallest"):
                    if i % 2:  # half the threads use a with-block override instead
                        with na.option_context(nan_policy=p):
                            out[s, p] = _bits(getattr(na, s)(DATA))
                    else:
                        out[s, p] = _bits(getattr(na, s)(DATA, nan_policy=p))
        return out

    with ThreadPoolExecutor(8) as ex:
        results = list(ex.map(work, range(8)))
    assert all(r == want for r in results)
    assert str(na.get_options()["nan_policy"]) == "raise"


def test_with_block_never_leaks_into_other_threads() -> None:
    inside = threading.Event()
    done = threading.Event()
    seen: list[str] = []

    def overrider() -> None:
        with na.option_context(nan_policy="omit"):
            inside.set()
            done.wait(5)

    def observer() -> None:
        inside.wait(5)
        for _ in range(200):
            seen.append(str(na.get_options()["nan_policy"]))
            try:
                na.median([1.0, float("nan")])
                seen.append("no-raise")
            except na.NaNError:
                pass
        done.set()

    t1 = threading.Thread(target=overrider)
    t2 = threading.Thread(target=observer)
    t1.start()
    t2.start()
    t1.join(10)
    t2.join(10)
    assert seen and set(seen) == {"raise"}


def test_with_block_overrides_only_its_own_thread_many_times() -> None:
    errors: list[str] = []

    def worker(policy: str) -> None:
        for _ in range(300):
            with na.option_context(nan_policy=policy):
                got = str(na.get_options()["nan_policy"])
                if got != policy:
                    errors.append(f"{policy} saw {got}")
            if str(na.get_options()["nan_policy"]) != "raise":
                errors.append(f"{policy}: leaked after the block")

    threads = [threading.Thread(target=worker, args=(p,))
               for p in ("omit", "propagate", "largest", "smallest") * 2]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert not errors, errors[:5]


def test_local_cluster_with_processes_equals_in_memory() -> None:
    distributed = pytest.importorskip("distributed")
    da = pytest.importorskip("dask.array")
    x = DATA[:4000]
    lazy = da.from_array(x, chunks=700)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None, silence_logs=40) as cluster, \
            distributed.Client(cluster) as client:
        for stat in ("median", "max", "mean"):
            for policy in ("omit", "propagate"):
                want = getattr(na, stat)(x, nan_policy=policy)
                got = client.compute(getattr(na, stat)(lazy, nan_policy=policy)).result()
                assert _bits(got) == _bits(want), (stat, policy)
        with pytest.raises(na.NaNError):
            client.compute(na.median(lazy, nan_policy="raise")).result()
