"""benchmarks/bench_gpu.py runs, tiny, so it never rots (no timing is checked)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"


def test_bench_gpu_tiny(tmp_path):
    sys.path.insert(0, str(BENCH))
    try:
        import bench_gpu
    finally:
        sys.path.remove(str(BENCH))
    rows = bench_gpu.run(n=3000, n_grouped=2000, groups=20, repeats=1, check_n=1000,
                         out_dir=tmp_path)
    assert {r["case"] for r in rows} == {"median", "quantile", "grouped median", "sum", "mean",
                                         "std", "median, general path"}
    assert {r["policy"] for r in rows if r["case"] == "median"} == set(bench_gpu.POLICIES)
    checked = [r for r in rows if "general path" not in r["case"]]
    assert all(r["bit_equal_cpu"] is True for r in checked), [
        r for r in checked if r["bit_equal_cpu"] is not True]
    data = json.loads((tmp_path / "gpu.json").read_text())
    assert len(data["results"]) == len(rows) and "device" in data["info"]
    assert "| grouped median |" in (tmp_path / "gpu.md").read_text()
