"""The first-use tour of docs/performance.md, cold and warm (issue 26).

Each run is a fresh process: a median, a mean, a grouped median and std (50 groups),
a rolling median (window 50) and ``df.nanstats.describe()`` on 2e5 rows with 5 % NaN.
``cold`` gives the process an empty ``NUMBA_CACHE_DIR``; the later ones reuse the one
the cold run filled (a process waits at exit for the compilations it started, so they
land in the cache; here up to 900 s, ``NANACCESS_EXIT_WAIT``, so that they finish on a
loaded machine too). Prints the process CPU time (all threads, the background
compiler's included) and wall time of each step and of the tour, the whole process's
wall time (its exit included: the wait for background compilations) and ``uptime``'s
load::

    python benchmarks/first_use_tour.py          # cold, second, warm
"""

from __future__ import annotations

import json
import os
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
    t0 = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-c", TOUR], env=env, capture_output=True, text=True, check=True
    )
    got = json.loads(out.stdout.strip().splitlines()[-1])
    got["process"] = time.perf_counter() - t0
    return got


def main() -> None:
    with tempfile.TemporaryDirectory() as cache:
        for label in ("cold", "second", "third", "warm"):
            r = run(cache)
            steps = ", ".join(f"{k} {v[0]:.2f}" for k, v in r["steps"].items())
            print(
                f"{label:7s} tour {r['cpu']:.2f} s CPU, {r['wall']:.2f} s wall ({steps}); "
                f"process {r['process']:.1f} s wall with its exit"
            )
    if hasattr(os, "getloadavg"):
        print("load average {:.1f} {:.1f} {:.1f}".format(*os.getloadavg()))


if __name__ == "__main__":
    main()
