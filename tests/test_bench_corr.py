"""benchmarks/bench_corr.py runs and writes its rows (tiny sizes; speed is not tested)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"
sys.path.insert(0, str(BENCH))


def test_bench_corr_rows(tmp_path):
    import bench_corr

    rows = bench_corr.run(scale=0.001, repeats=1, out_dir=tmp_path)
    assert len(rows) == 10
    for r in rows:
        assert r["nanaccess_s"] > 0 and r["reference_s"] > 0 and r["reference"] == "pandas"
    data = json.loads((tmp_path / "corr.json").read_text())
    assert [r["case"] for r in data["results"]] == [r["case"] for r in rows]
