"""The first-use tour of docs/performance.md, cold and warm (issue 26).

Each run is a fresh process: a median, a mean, a grouped median and std (50 groups),
a rolling median (window 50) and ``df.nanstats.describe()`` on 2e5 rows with 5 % NaN.
``cold`` gives the process an empty ``NUMBA_CACHE_DIR``; the later ones reuse the one
the cold run filled (a process waits at exit for the compilations it started, so they
land in the cache; here up to 900 s, ``NANACCESS_EXIT_WAIT``, so that they finish on a
loaded machine too). Prints the process CPU time (all threads, the background
compiler's included) and wall time of each step and of the tour, the whole process's
wall and CPU time (its exit included: the wait for background compilations) and
``uptime``'s load::

    python benchmarks/first_use_tour.py          # cold, second, warm
    python benchmarks/first_use_tour.py describe # `nanaccess describe`, cold vs warm

``describe`` times the README demo, ``nanaccess describe`` of the bundled sample, as
whole fresh processes (``python -m nanaccess describe``: the interpreter's start, the
imports, the table and the exit, its wait for background compilations included):
each cold run with its own empty ``NUMBA_CACHE_DIR``, each warm run with the cache
the cold runs filled. Prints the process CPU time (user + system, all threads) and
wall time, min and median of the repeats, and ``uptime``'s load before and after.
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

TOUR = r"""
import json, time
t0 = time.process_time(); w0 = time.perf_counter()
import numpy as np, pandas as pd
import nanaccess as na
rng = np.random.default_rng(0)
n = 200_000
x = rng.normal(size=n); x[rng.random(n) < 0.05] = np.nan
df = pd.DataFrame({"x": x, "g": rng.integers(0, 50, n)})
steps = {}
def step(name, fn):
    c, w = time.process_time(), time.perf_counter()
    fn()
    steps[name] = (time.process_time() - c, time.perf_counter() - w)
step("median", lambda: df.x.nanstats.median(nan_policy="omit"))
step("mean", lambda: df.x.nanstats.mean(nan_policy="omit"))
step("grouped median", lambda: df.groupby("g").nanstats.median(nan_policy="omit"))
step("grouped std", lambda: df.groupby("g").nanstats.std(nan_policy="omit"))
step("rolling median", lambda: df.x.rolling(50).nanstats.median(nan_policy="omit"))
step("describe", lambda: df.nanstats.describe())
print(json.dumps({"cpu": time.process_time() - t0, "wall": time.perf_counter() - w0,
                  "steps": steps}))
"""


def run(cache: str) -> dict:
    env = {**os.environ, "NUMBA_CACHE_DIR": cache}
    env.pop("NANACCESS_COMPILE", None)  # the default, as a user gets it
    env.setdefault("NANACCESS_EXIT_WAIT", "900")  # let each process finish its compiles
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-c", TOUR], env=env, capture_output=True, text=True, check=True
    )
    got = json.loads(out.stdout.strip().splitlines()[-1])
    got["process"] = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    got["process_cpu"] = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return got


def _load() -> str:
    if not hasattr(os, "getloadavg"):
        return "load average unknown"
    return "load average {:.1f} {:.1f} {:.1f}".format(*os.getloadavg())


def describe_once(cache: str) -> tuple[float, float]:
    """(CPU s, wall s) of one fresh ``python -m nanaccess describe`` process."""
    env = {**os.environ, "NUMBA_CACHE_DIR": cache}
    env.pop("NANACCESS_COMPILE", None)  # the default, as a user gets it
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "nanaccess", "describe"], env=env,
                   capture_output=True, text=True, check=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall


def describe_mode(repeats: int = 7) -> dict[str, list[tuple[float, float]]]:
    """Cold (each run an empty cache) and warm (the filled one) ``nanaccess describe``,
    interleaved; prints min and median CPU and wall of each."""
    print(_load())
    got: dict[str, list[tuple[float, float]]] = {"cold": [], "warm": []}
    with tempfile.TemporaryDirectory() as warm:
        describe_once(warm)  # fills the warm cache (whatever a describe compiles)
        for _ in range(repeats):
            with tempfile.TemporaryDirectory() as cold:
                got["cold"].append(describe_once(cold))
            got["warm"].append(describe_once(warm))
    for label, runs in got.items():
        cpu, wall = [r[0] for r in runs], [r[1] for r in runs]
        print(f"{label:5s} nanaccess describe: {min(cpu):.2f} s CPU min "
              f"({statistics.median(cpu):.2f} median), {min(wall):.2f} s wall min "
              f"({statistics.median(wall):.2f} median), {repeats} fresh processes")
    print(_load())
    return got


def main() -> None:
    if sys.argv[1:2] == ["describe"]:
        describe_mode(int(sys.argv[2]) if len(sys.argv) > 2 else 7)
        return
    with tempfile.TemporaryDirectory() as cache:
        for label in ("cold", "second", "third", "warm"):
            r = run(cache)
            steps = ", ".join(f"{k} {v[0]:.2f}" for k, v in r["steps"].items())
            print(
                f"{label:7s} tour {r['cpu']:.2f} s CPU, {r['wall']:.2f} s wall ({steps}); "
                f"process {r['process']:.1f} s wall, {r['process_cpu']:.1f} s CPU with its exit"
            )
    print(_load())


if __name__ == "__main__":
    main()
