"""Every benchmark body runs once, tiny, so the benchmarks never rot.

Nothing here times anything or checks a speed: the bodies run on small inputs, write
their results into a temporary directory, and the rows are checked for the schema
that ``docs/gen_perf.py`` renders.
"""

from __future__ import annotations

import doctest
import importlib
import json
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"
sys.path.insert(0, str(BENCH))

SCHEMA = {"case", "n", "policy", "nanaccess_s", "reference", "reference_s", "ratio", "accel"}


def _check_rows(rows, path: Path):
    assert rows
    for r in rows:
        assert SCHEMA <= set(r), r
        assert r["nanaccess_s"] > 0 and r["reference_s"] > 0
        assert isinstance(r["accel"], bool)
    data = json.loads(path.read_text())
    assert data["results"] == json.loads(json.dumps(rows))
    assert path.with_suffix(".md").exists()


def test_core(tmp_path):
    import bench_core

    rows = bench_core.run([200], repeats=1, out_dir=tmp_path)
    _check_rows(rows, tmp_path / "core.json")
    assert {r["policy"] for r in rows} == set(bench_core.POLICIES)
    assert {"np.median", "np.quantile", "np.nanmedian"} <= {r["reference"] for r in rows}


def test_axis(tmp_path):
    import bench_axis

    # numbagg and xarray (which may call numbagg) compile on first use: minutes, so
    # the tiny run keeps to the references that need no JIT
    rows = bench_axis.run((12, 150), repeats=1, out_dir=tmp_path,
                          references=("bottleneck", "np.nanmedian", "np.nanquantile"))
    _check_rows(rows, tmp_path / "axis.json")
    assert any(r["reference"].startswith("fastest of") for r in rows)


def test_list(tmp_path):
    import bench_list

    rows = bench_list.run(300, repeats=1, sizes=(10, 300), out_dir=tmp_path)
    _check_rows(rows, tmp_path / "list.json")


def test_memory(tmp_path):
    import bench_memory

    rows = bench_memory.run(5_000, policies=("omit", "propagate"), out_dir=tmp_path)
    assert all(r["extra_copies"] > 0 and r["input_bytes"] == 40_000 for r in rows)
    assert json.loads((tmp_path / "memory.json").read_text())["results"] == rows


def _cfg(tmp_path, *extra):
    import run

    return run.parse_args(["--quick", "--out-dir", str(tmp_path), *extra])


def test_groupby_via_runner(tmp_path):
    import run

    if not (BENCH / "bench_groupby.py").exists():
        pytest.skip("benchmarks/bench_groupby.py not written yet")
    cfg = _cfg(tmp_path)
    cfg.groupby_rows, cfg.groups, cfg.repeats = 2_000, (10,), 1
    rows = run.bench_groupby(cfg, tmp_path)
    _check_rows(rows, tmp_path / "groupby.json")


def test_dask_via_runner(tmp_path):
    import run

    if not (BENCH / "bench_dask.py").exists():
        pytest.skip("benchmarks/bench_dask.py not written yet")
    pytest.importorskip("dask")
    cfg = _cfg(tmp_path, "--no-dask-cluster", "--dask-size", "2e4")
    rows = run.bench_dask(cfg, tmp_path)
    _check_rows(rows, tmp_path / "dask.json")


def test_runner_main_and_summary(tmp_path, capsys):
    import run

    assert run.main(["--only", "list,memory", "--out-dir", str(tmp_path), "--repeats", "1",
                     "--no-accel-pass", "--list-n", "500", "--memory-n", "2000"]) == 0
    summary = json.loads((tmp_path / "summary.json").read_text())["results"]
    assert {s["bench"] for s in summary} >= {"list", "memory"}
    assert "| bench |" in capsys.readouterr().out


@pytest.mark.parametrize("name", ["common", "run"])
def test_doctests(name):
    mod = importlib.import_module(name)
    res = doctest.testmod(mod, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert res.failed == 0 and res.attempted > 0


def test_windows(tmp_path):
    import bench_windows

    rows = bench_windows.run(2_000, 20, repeats=1, grid=(20, 3, 4), out_dir=tmp_path)
    _check_rows(rows, tmp_path / "windows.json")


def test_weighted(tmp_path):
    import bench_weighted

    rows = bench_weighted.run(n=2_000, groups=(10,), grid=(20, 3, 4), repeats=1,
                              out_dir=tmp_path)
    _check_rows(rows, tmp_path / "weighted.json")


def test_accessor_small(tmp_path):
    import bench_accessor_small

    rows = bench_accessor_small.run(repeats=1, out_dir=tmp_path)
    _check_rows(rows, tmp_path / "accessor_small.json")


def test_moments_bodies():
    import bench_moments

    # the in-process bodies only: the no-numba and first-call rows start subprocesses
    # that compile from a cold cache (about a minute), run by hand
    rows = bench_moments._ratio_rows(1, (2_000,)) + bench_moments._grouped_rows(1, 2_000, (10,))
    rows += bench_moments._host_rows(1, True)
    rows += bench_moments._hard_rows(1, 2_000) + bench_moments._grid_rows(1, True, (20, 10, 14))
    assert rows and all(SCHEMA <= set(r) and r["ratio"] > 0 for r in rows)


def test_higher(tmp_path):
    import bench_higher

    rows = bench_higher.run(repeats=1, out_dir=tmp_path, sizes=(300,))
    _check_rows(rows, tmp_path / "higher.json")
    assert {"skew", "cumsum", "grouped skew"} <= {r["case"] for r in rows}


def test_polars(tmp_path):
    pytest.importorskip("polars")
    import bench_polars

    rows = bench_polars.run(n=2_000, groups=10, window=5, repeats=1, neighbours=False,
                            out_dir=tmp_path)
    _check_rows(rows, tmp_path / "polars.json")


def test_running(tmp_path):
    import bench_running

    rows = bench_running.run(repeats=1, out_dir=tmp_path, sizes=(300,))
    _check_rows(rows, tmp_path / "running.json")


def test_tree_compares_two_trees_in_workers(tmp_path):
    """bench_tree: one worker per tree answers the same cases (here one tree twice)."""
    import bench_tree

    root = BENCH.parent
    rows = bench_tree.compare(root, root, repeats=1, only="np median a10_0")
    assert [r["case"] for r in rows] == ["np median a10_0"]
    assert rows[0]["before_s"] > 0 and rows[0]["after_s"] > 0
    text = bench_tree.markdown(rows, "HEAD", "0.0")
    assert "| np median a10_0 |" in text
