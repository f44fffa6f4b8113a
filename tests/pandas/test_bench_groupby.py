"""Run the groupby benchmark body tiny so it never rots (no timing asserted)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_groupby.py"


def test_benchmark_body_runs_small():
    spec = importlib.util.spec_from_file_location("bench_groupby", BENCH)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    out = mod.run(n_rows=1000, n_groups=10, repeats=1)  # checks equality with pandas
    assert out["n_rows"] == 1000
    for name in ("median", "quantile(0.9)"):
        assert set(out[name]) == {"nanaccess", "pandas", "ratio"}
