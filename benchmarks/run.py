"""The benchmark runner: nanaccess against its references, same process, ratios printed.

Usage (from the repository root)::

    .venv/bin/python benchmarks/run.py                 # everything, full sizes
    .venv/bin/python benchmarks/run.py --quick         # smaller sizes, fewer repeats
    .venv/bin/python benchmarks/run.py --only core,axis --repeats 7
    .venv/bin/python benchmarks/run.py --dask-size 1e7 # smaller dask case

Writes ``benchmarks/results/<bench>.json`` (machine info + rows, the schema in
``common.py``; ``docs/gen_perf.py`` renders them) and ``<bench>.md``, plus
``summary.json`` / ``summary.md``: each target of the issue with the worst measured
ratio. Benchmarks affected by the numba accelerator (core, axis, groupby) are run a second time
in a child process with ``NANACCESS_NO_NUMBA=1``; those rows carry ``accel: false``
and go to ``<bench>_noaccel.json``.

The groupby and dask cases live in ``bench_groupby.py`` / ``bench_dask.py``; when those
files exist their ``run`` functions are called here and their results converted to the
same row schema (``groupby.json``, ``dask.json``).
"""

from __future__ import annotations

import argparse
import inspect
import json
import math
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
# numba (numbagg's kernels, nanaccess' accelerator) runs on OpenMP threads that by
# default spin after each parallel region, stealing the CPU from whatever is timed
# next in the interleaved loop (measured: bottleneck and nanaccess 1.8x slower right
# after numbagg on 2 cores). Passive waiting makes the interleaved timings fair.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from common import RESULTS, accel_active, log, make_row, write_results  # noqa: E402

BENCHES = ("core", "axis", "list", "small", "accessor_small", "memory", "groupby", "moments",
           "weighted", "windows", "dask", "dask_grid")
ACCEL_BENCHES = ("core", "axis", "groupby", "moments")  # paths the accelerator changes


def _load(name: str) -> Any | None:
    """Import ``benchmarks/<name>.py`` if it exists (None otherwise)."""
    if not (HERE / f"{name}.py").exists():
        return None
    import importlib

    return importlib.import_module(name)


def _call(fn: Callable[..., Any], **kwargs: Any) -> Any:
    """Call ``fn`` with the keyword arguments its signature accepts."""
    params = inspect.signature(fn).parameters
    if any(p.kind is p.VAR_KEYWORD for p in params.values()):
        return fn(**kwargs)
    return fn(**{k: v for k, v in kwargs.items() if k in params})


# ----------------------------------------------------------------------- benchmarks


def bench_core(cfg: argparse.Namespace, out_dir: Path, suffix: str = "") -> list[dict]:
    import bench_core

    return bench_core.run(cfg.sizes, repeats=cfg.repeats, out_dir=out_dir, name="core" + suffix)


def bench_axis(cfg: argparse.Namespace, out_dir: Path, suffix: str = "") -> list[dict]:
    import bench_axis

    return bench_axis.run(cfg.shape, repeats=cfg.repeats, out_dir=out_dir, name="axis" + suffix)


def bench_list(cfg: argparse.Namespace, out_dir: Path, suffix: str = "") -> list[dict]:
    import bench_list

    sizes = sorted({10, 100, 1000, cfg.list_n, 10 * cfg.list_n})  # the kinds' sizes
    return bench_list.run(cfg.list_n, repeats=cfg.repeats, sizes=sizes, out_dir=out_dir,
                          name="list" + suffix)


def bench_small(cfg: argparse.Namespace, out_dir: Path, suffix: str = "") -> list[dict]:
    import bench_small

    return bench_small.run(repeats=cfg.repeats, out_dir=out_dir, name="small" + suffix)


def bench_memory(cfg: argparse.Namespace, out_dir: Path, suffix: str = "") -> list[dict]:
    import bench_memory

    sizes = (cfg.memory_n, 10 * cfg.memory_n)
    return bench_memory.run(sizes, out_dir=out_dir, name="memory" + suffix)


def groupby_rows(res: Any, n_rows: int, n_groups: int) -> list[dict]:
    """Rows (common schema) from ``bench_groupby.run``'s result.

    Accepts ``{stat: {"nanaccess": s, "<reference>": s, ...}, ...}`` (other keys
    ignored) or a list of rows already in the common schema.

    Examples
    --------
    >>> r = groupby_rows({"median": {"nanaccess": 1.0, "pandas": 2.0, "ratio": 0.5}}, 10, 2)
    >>> r[0]["case"], r[0]["reference"], r[0]["ratio"]
    ('groupby median, 2 groups', 'pandas', 0.5)
    """
    if isinstance(res, list):
        return [dict(r) for r in res]
    rows = []
    for stat, val in (res or {}).items():
        if not isinstance(val, dict) or "nanaccess" not in val:
            continue
        for ref, t in val.items():
            if ref in ("nanaccess", "ratio") or not isinstance(t, int | float):
                continue
            rows.append(make_row(f"groupby {stat}, {n_groups} groups", n_rows, "omit",
                                 val["nanaccess"], ref, t, nan_pct=1.0,
                                 target={"pandas": 1.0, "xarray": 0.1}.get(ref)))
    return rows


def month_grid_rows(res: dict) -> list[dict]:
    """Rows of ``bench_groupby.month_grid`` (issue 17: <= 1.0x xarray's own month-grouped
    median with ``use_flox=False``; flox reported).

    Examples
    --------
    >>> r = month_grid_rows({"nanaccess": 1.0, "xarray (use_flox=False)": 2.0, "flox": 1.0,
    ...                      "shape": [2, 3, 4]})
    >>> [(x["reference"], x["ratio"], x["target"]) for x in r]
    [('xarray (use_flox=False)', 0.5, 1.0), ('flox', 1.0, None)]
    """
    n = math.prod(res["shape"])
    return [make_row("month-grouped median, float32 " + "x".join(map(str, res["shape"])), n,
                     "omit", res["nanaccess"], ref, res[ref], nan_pct=1.0,
                     target=1.0 if ref.startswith("xarray") else None)
            for ref in ("xarray (use_flox=False)", "flox")]


def bench_groupby(cfg: argparse.Namespace, out_dir: Path, suffix: str = "") -> list[dict]:
    mod = _load("bench_groupby")
    if mod is None or not hasattr(mod, "run"):
        log("groupby: benchmarks/bench_groupby.py has no run(); skipped")
        return []
    rows: list[dict] = []
    for n_groups in cfg.groups:
        res = _call(mod.run, n_rows=cfg.groupby_rows, n_groups=n_groups,
                    repeats=cfg.repeats, sizes=[cfg.groupby_rows], out_dir=out_dir,
                    write=False)
        got = groupby_rows(res, cfg.groupby_rows, n_groups)
        rows += got
        log("groupby " + ", ".join(f"{r['case']} vs {r['reference']}={r['ratio']:.2f}x"
                                   for r in got))
    if hasattr(mod, "month_grid") and not cfg.quick:
        rows += month_grid_rows(mod.month_grid(repeats=max(1, cfg.repeats // 2)))
        log(f"groupby month-grouped median: {rows[-2]['ratio']:.2f}x xarray (use_flox=False)")
    if rows:
        write_results("groupby" + suffix, rows, out_dir)
    return rows


def dask_rows(res: dict, size: int) -> list[dict]:
    """Rows (common schema) from ``bench_dask.run``'s result dict.

    Examples
    --------
    >>> r = dask_rows({"dask_median_s": 2.0, "numpy_median_s": 4.0}, 100)
    >>> r[0]["ratio"], r[0]["reference"]
    (0.5, 'np.median (in memory)')
    """
    rows = []
    extra = {k: res[k] for k in ("nchunks", "workers", "peak_worker_rss_bytes",
                                 "peak_worker_rss_in_chunks", "numpy_median_extra_bytes")
             if k in res}
    if "dask_median_s" in res and "numpy_median_s" in res:
        rows.append(make_row("dask median (exact)", size, "omit", res["dask_median_s"],
                             "np.median (in memory)", res["numpy_median_s"], target=1.0,
                             **extra))
    if "dask_quantiles_s" in res and "numpy_quantiles_s" in res:
        rows.append(make_row("dask quantiles (exact)", size, "omit", res["dask_quantiles_s"],
                             "np.quantile (in memory)", res["numpy_quantiles_s"], **extra))
    return rows


def bench_dask(cfg: argparse.Namespace, out_dir: Path, suffix: str = "") -> list[dict]:
    mod = _load("bench_dask")
    if mod is None or not hasattr(mod, "run"):
        log("dask: benchmarks/bench_dask.py has no run(); skipped")
        return []
    client = cluster = None
    if cfg.dask_cluster:
        try:
            from distributed import Client, LocalCluster

            cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                   memory_limit="8GB", dashboard_address=None)
            client = Client(cluster)
        except Exception as err:  # no distributed: the threaded scheduler
            log(f"dask: no LocalCluster ({err}); using the threaded scheduler")
    try:
        res = _call(mod.run, size=cfg.dask_size, sizes=[cfg.dask_size], nchunks=10,
                    client=client, write=False)
    finally:
        if client is not None:
            client.close()
        if cluster is not None:
            cluster.close()
    rows = dask_rows(res if isinstance(res, dict) else {}, cfg.dask_size)
    log("dask " + ", ".join(f"{r['case']}={r['ratio']:.2f}x" for r in rows))
    if rows:
        write_results("dask" + suffix, rows, out_dir)
    return rows


def _self_contained(name: str) -> Callable[..., list[dict]]:
    """A runner for ``benchmarks/bench_<name>.py`` whose ``run(repeats=, out_dir=, name=)``
    chooses its own sizes and writes ``<name>.json`` itself."""

    def runner(cfg: argparse.Namespace, out_dir: Path, suffix: str = "") -> list[dict]:
        mod = _load(f"bench_{name}")
        if mod is None or not hasattr(mod, "run"):
            log(f"{name}: benchmarks/bench_{name}.py has no run(); skipped")
            return []
        rows = _call(mod.run, repeats=cfg.repeats, out_dir=out_dir, name=name + suffix)
        log(f"{name} " + ", ".join(f"{r['case']}={r['ratio']:.2f}x" for r in rows or []))
        return rows or []

    return runner


RUNNERS: dict[str, Callable[..., list[dict]]] = {
    "core": bench_core, "axis": bench_axis, "list": bench_list, "small": bench_small,
    "memory": bench_memory, "groupby": bench_groupby, "dask": bench_dask,
    **{name: _self_contained(name)
       for name in ("accessor_small", "moments", "weighted", "windows", "dask_grid")},
}


# -------------------------------------------------------------------------- summary


def _worst(rows: list[dict], pred: Callable[[dict], bool], key: str = "ratio") -> dict | None:
    hits = [r for r in rows if pred(r) and r.get(key) is not None]
    return max(hits, key=lambda r: r[key]) if hits else None


def _has_target(row: dict) -> bool:
    return row.get("target") is not None


def summarize(results: dict[str, list[dict]]) -> list[dict]:
    """One row per target of the issue: the worst measured ratio and whether it is met.

    Examples
    --------
    >>> s = summarize({"list": [make_row("m", 1, "omit", 1.0, "statistics.median", 4.0,
    ...                                   accel=True, target=0.5)]})
    >>> [(r["target"], r["worst_ratio"], r["met"]) for r in s if r["bench"] == "list"]
    [('lists, worst row (each row has its own target): <= 0.5x statistics.median', 0.25, True)]
    """
    specs = [
        ("core", "1-D median/quantile, every policy, n >= 1e5: <= 0.5x NumPy",
         lambda r: r.get("target") is not None and r["reference"].startswith("np."), 0.5),
        ("axis", "along an axis, omit: <= 1.0x fastest of bottleneck / numbagg",
         lambda r: r.get("target") is not None, 1.0),
        ("groupby", "groupby <= 1.0x pandas", lambda r: r["reference"] == "pandas", 1.0),
        ("groupby", "groupby median <= 0.1x xarray", lambda r: r["reference"] == "xarray", 0.1),
        ("groupby", "month-grouped median <= 1.0x xarray (use_flox=False)",
         lambda r: r["reference"] == "xarray (use_flox=False)", 1.0),
        # suites whose rows carry their own targets: the text names the worst row's
        ("list", "lists", _has_target, None),
        ("small", "small arrays and lists", _has_target, None),
        ("accessor_small", "small pandas objects", _has_target, None),
        ("moments", "exact moments (issue 14)", _has_target, None),
        ("weighted", "weighted statistics (issue 13)", _has_target, None),
        ("windows", "windows (issue 12)", _has_target, None),
        ("dask", "dask median <= 1.0x in-memory np.median",
         lambda r: r["case"].startswith("dask median"), 1.0),
    ]
    out = []
    for bench, text, pred, bound in specs:
        for suffix, accel_label in (("", None), ("_noaccel", False)):
            rows = results.get(bench + suffix)
            if not rows:
                continue
            label = text
            if bound is None:  # every row against its own target
                hits = [r for r in rows if pred(r) and r.get("ratio") is not None]
                if not hits:
                    continue
                w = max(hits, key=lambda r: r["ratio"] / r["target"])
                met = all(r["ratio"] <= r["target"] for r in hits)
                label = (f"{text}, worst row (each row has its own target): "
                        f"<= {w['target']:g}x {w['reference']}")
            else:
                w = _worst(rows, pred)
                if w is None:
                    continue
                met = w["ratio"] <= bound
            out.append({"bench": bench + suffix, "target": label,
                        "accel": w["accel"] if accel_label is None else accel_label,
                        "worst_case": f"{w['case']} n={w['n']} {w['policy']} "
                                      f"nan={w.get('nan_pct', 0)}% vs {w['reference']}",
                        "worst_ratio": w["ratio"], "met": bool(met)})
    for suffix in ("", "_noaccel"):
        mem = results.get("memory" + suffix)
        if mem:
            from bench_memory import SCRATCH, within_target

            w = _worst(mem, lambda r: True, key="beyond_one_copy_bytes")
            out.append({"bench": "memory" + suffix,
                        "target": "1-D order statistic: at most one extra copy "
                                  f"(+ {SCRATCH // 1024} KiB fixed scratch)",
                        "accel": w["accel"],
                        "worst_case": f"{w['case']} n={w['n']} {w['policy']} "
                                      f"({w['beyond_one_copy_bytes']} B beyond one copy)",
                        "worst_ratio": w["extra_copies"],
                        "met": all(within_target(r) for r in mem)})
    return out


# --------------------------------------------------------------------------- driver


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--only", default=",".join(BENCHES),
                   help=f"comma-separated subset of {', '.join(BENCHES)}")
    p.add_argument("--quick", action="store_true", help="smaller sizes and 3 repeats")
    p.add_argument("--repeats", type=int, default=None, help="interleaved repeats (default 5)")
    p.add_argument("--sizes", default=None, help="1-D sizes, e.g. 1e3,1e5,1e6,1e7")
    p.add_argument("--shape", default=None, help="2-D shape of the axis case, e.g. 1000x10000")
    p.add_argument("--dask-size", type=float, default=None, help="dask array length (1e8)")
    p.add_argument("--list-n", type=float, default=1e5, help="list length (1e5)")
    p.add_argument("--memory-n", type=float, default=1e6, help="memory case length (1e6)")
    p.add_argument("--groupby-rows", type=float, default=1e6, help="groupby rows (1e6)")
    p.add_argument("--no-dask-cluster", dest="dask_cluster", action="store_false",
                   help="run the dask case on the threaded scheduler")
    p.add_argument("--no-accel-pass", dest="accel_pass", action="store_false",
                   help="skip the NANACCESS_NO_NUMBA=1 re-run of core/axis/groupby")
    p.add_argument("--suffix", default="", help=argparse.SUPPRESS)
    p.add_argument("--out-dir", default=str(RESULTS), help="where to write results")
    cfg = p.parse_args(argv)
    cfg.only = [b.strip() for b in cfg.only.split(",") if b.strip()]
    unknown = set(cfg.only) - set(BENCHES)
    if unknown:
        p.error(f"unknown benchmark(s) {sorted(unknown)}; choose from {BENCHES}")
    q = cfg.quick
    cfg.repeats = cfg.repeats or (3 if q else 5)
    cfg.sizes = ([int(float(s)) for s in cfg.sizes.split(",")] if cfg.sizes
                 else [1_000, 100_000, 1_000_000] if q else [1_000, 100_000, 1_000_000,
                                                             10_000_000])
    cfg.shape = (tuple(int(s) for s in cfg.shape.lower().split("x")) if cfg.shape
                 else (300, 3000) if q else (1000, 10000))
    cfg.dask_size = int(cfg.dask_size or (10**7 if q else 10**8))
    cfg.list_n = int(cfg.list_n)
    cfg.memory_n = int(cfg.memory_n)
    cfg.groupby_rows = int(cfg.groupby_rows)
    cfg.groups = (1_000, 100_000)
    return cfg


def _child_no_accel(cfg: argparse.Namespace, argv: list[str]) -> None:
    """Re-run the accelerator-sensitive benchmarks with NANACCESS_NO_NUMBA=1."""
    which = [b for b in cfg.only if b in ACCEL_BENCHES]
    if not which:
        return
    skip = False
    clean = []
    for a in argv:  # drop "--only X" / "--only=X": the child gets its own
        if skip:
            skip = False
            continue
        if a == "--only":
            skip = True
            continue
        if not a.startswith("--only="):
            clean.append(a)
    cmd = [sys.executable, str(Path(__file__).resolve()), *clean, "--only", ",".join(which),
           "--no-accel-pass", "--suffix", "_noaccel"]
    env = dict(os.environ, NANACCESS_NO_NUMBA="1")
    log("re-running " + ",".join(which) + " with NANACCESS_NO_NUMBA=1")
    subprocess.run(cmd, env=env, check=True)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    cfg = parse_args(argv)
    out_dir = Path(cfg.out_dir)
    t0 = time.perf_counter()
    log(f"accelerator active: {accel_active()}")
    if accel_active():
        from nanaccess.core._numba import rows as accel

        accel.warm_up()  # compile (or load) before anything is timed
    accel_benches = [b for b in cfg.only if b in ACCEL_BENCHES]
    no_accel_pass = not cfg.suffix and cfg.accel_pass and accel_active() and accel_benches
    for bench in cfg.only:
        try:
            RUNNERS[bench](cfg, out_dir, cfg.suffix)
        except Exception as err:  # one broken benchmark must not lose the others
            log(f"{bench}: FAILED ({type(err).__name__}: {err}); continuing")
        if no_accel_pass and bench == accel_benches[-1]:
            # right after the last accelerator-sensitive bench, before dask: a just
            # closed cluster leaves the machine busy freeing its memory for a while
            _child_no_accel(cfg, argv)
    if cfg.suffix:  # the child of the no-accelerator pass: the parent summarizes
        return 0
    results = {}
    for path in sorted(out_dir.glob("*.json")):
        if path.stem == "summary":
            continue
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except ValueError:
            continue
        rows = data.get("results") if isinstance(data, dict) else None
        if isinstance(rows, list) and rows and isinstance(rows[0], dict) and "case" in rows[0]:
            results[path.stem] = rows
    summary = summarize(results)
    write_results("summary", summary, out_dir)
    from common import markdown_table

    print(markdown_table(summary))
    log(f"done in {time.perf_counter() - t0:.0f} s; results in {out_dir}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
