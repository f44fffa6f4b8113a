"""Quantile and median over ``time`` of a dask-backed climate grid against xarray+dask.

The grid: ``time x lat x lon`` float32 with NaN over "land" (30 % of the cells, every
time step) plus 1 % scattered NaN, chunked ``{time: -1, lat: 180, lon: lon / 5}`` (as
``da.quantile(0.9, "time")`` on dask wants it: one task per chunk). nanaccess runs
``arr.nanstats.quantile(0.9, dim="time", nan_policy="omit")``; the reference is xarray's
own ``arr.quantile(0.9, "time")`` (``dask.array.nanquantile``, a sort along the core
axis). Threaded scheduler, 2 workers; results checked bit-equal to the in-memory
nanaccess result before timing. Neighbours without a target: float64, the median, a
grid without land.

Moments (issue 30): ``mean`` / ``std`` over ``time`` of the same grid, against xarray's
``arr.mean("time")`` / ``arr.std("time")`` on dask, with ``time`` whole in each chunk
(``{lat: 180, lon: 72}``: ~19 MB float32 chunks at 360 lon; target 1.2) and with
``time`` split across chunks (``{time: 73}``, rechunked once; no target). Every
row's time is the min of at least 7 repeats, the calls interleaved
(:func:`_time_min`).

Run alone: ``python benchmarks/bench_dask_grid.py [lon] [quantile|moments]`` (default
72 lon: 4.7e6 values; 360 is the full 365 x 180 x 360 grid; the moment rows always
use the full grid, ``moment_lon``).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
from common import log, make_row, write_results

__all__ = ["run"]


def _grid(lon: int, dtype: Any, land: bool, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((365, 180, lon)).astype(dtype)
    if land:
        a[:, rng.random((180, lon)) < 0.3] = np.nan
    a[rng.random(a.shape) < 0.01] = np.nan
    return a


def _calls(ch: Any, stat: str) -> tuple[Any, Any]:
    """(nanaccess, xarray) zero-argument calls of ``stat`` over time of ``ch``."""
    if stat == "median":
        return (lambda: ch.nanstats.median(dim="time", nan_policy="omit").compute(),
                lambda: ch.median("time").compute())
    return (lambda: ch.nanstats.quantile(0.9, dim="time", nan_policy="omit").compute(),
            lambda: ch.quantile(0.9, "time").compute())


def _time_min(fns: dict[str, Any], repeats: int) -> dict[str, float]:
    """Min seconds per call of each function over ``repeats`` interleaved rounds (the
    order rotates), after one warm-up call each."""
    import time

    names = list(fns)
    for name in names:
        fns[name]()
    best = {name: float("inf") for name in names}
    for r in range(repeats):
        for name in names[r % len(names):] + names[: r % len(names)]:
            t0 = time.perf_counter()
            fns[name]()
            best[name] = min(best[name], time.perf_counter() - t0)
    return best


def _moment_rows(lon: int, repeats: int) -> list[dict]:
    """mean / std over time, time whole in the chunks (target 1.2) and time split."""
    import xarray as xr

    rows = []
    a = _grid(lon, np.float32, True)
    arr = xr.DataArray(a, dims=("time", "lat", "lon"))
    layouts = [("time whole", {"time": -1, "lat": 180, "lon": min(lon, 72)}, 1.2),
               ("time split", {"time": 73, "lat": 180, "lon": -1}, None)]
    for label, chunks, target in layouts:
        ch = arr.chunk(chunks)
        for stat in ("mean", "std"):
            def ours(ch=ch, stat=stat):
                return getattr(ch.nanstats, stat)(dim="time", nan_policy="omit").compute()

            def theirs(ch=ch, stat=stat):
                return getattr(ch, stat)("time").compute()

            mem = getattr(arr.nanstats, stat)(dim="time", nan_policy="omit")
            assert np.array_equal(ours().values, mem.values, equal_nan=True)
            t = _time_min({"nanaccess": ours, "xarray": theirs}, max(repeats, 7))
            case = f"dask {stat} over time, float32 365x180x{lon}, NaN land, {label}"
            rows.append(make_row(case, a.size, "omit", t["nanaccess"], "xarray+dask",
                                 t["xarray"], nan_pct=float(np.isnan(a).mean() * 100),
                                 target=target))
            log(f"{case}: {rows[-1]['ratio']:.2f}x")
    return rows


def run(repeats: int = 5, out_dir: Path | None = None, name: str = "dask_grid",
        lon: int = 72, only: str | None = None, moment_lon: int = 360) -> list[dict]:
    import dask
    import xarray as xr

    import nanaccess as na  # noqa: F401  (registers .nanstats)

    rows = []
    cases = [("quantile(0.9)", np.float32, True, 1.0), ("quantile(0.9)", np.float64, True, None),
             ("median", np.float32, True, None), ("quantile(0.9)", np.float32, False, None)]
    with dask.config.set(scheduler="threads", num_workers=2):
        for stat, dtype, land, target in cases if only in (None, "quantile") else []:
            a = _grid(lon, dtype, land)
            arr = xr.DataArray(a, dims=("time", "lat", "lon"))
            ch = arr.chunk({"time": -1, "lat": 180, "lon": max(lon // 5, 1)})
            ours, theirs = _calls(ch, stat)
            mem = (arr.nanstats.median(dim="time", nan_policy="omit") if stat == "median"
                   else arr.nanstats.quantile(0.9, dim="time", nan_policy="omit"))
            assert np.array_equal(ours().values, mem.values, equal_nan=True)
            t = _time_min({"nanaccess": ours, "xarray": theirs}, max(repeats, 7))
            case = (f"dask {stat} over time, {np.dtype(dtype).name} 365x180x{lon}"
                    f"{', NaN land' if land else ''}")
            rows.append(make_row(case, a.size, "omit", t["nanaccess"], "xarray+dask",
                                 t["xarray"], nan_pct=float(np.isnan(a).mean() * 100),
                                 target=target))
            log(f"{case}: {rows[-1]['ratio']:.2f}x")
        if only in (None, "moments"):
            rows += _moment_rows(moment_lon, repeats)
    write_results(name, rows, out_dir)
    return rows


if __name__ == "__main__":  # pragma: no cover
    run(lon=int(sys.argv[1]) if len(sys.argv) > 1 else 72,
        only=sys.argv[2] if len(sys.argv) > 2 else None)
