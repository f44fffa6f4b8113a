"""Benchmark: ``df.groupby(k).nanstats.<stat>()`` against pandas' own groupby.

Run ``python benchmarks/bench_groupby.py`` for the table (1e6 rows, 1e3 and 1e5 groups;
median and quantile(0.9)); it also writes ``benchmarks/results/groupby.json``.
:func:`run` is the benchmark body; the test suite runs it tiny so it never rots.

Timings are interleaved (ours, pandas, ours, pandas, ...) in one process and the
median of the repeats is reported, so a machine busy with something else slows
both sides alike. The ratio is ours / pandas (below 1 means nanaccess is faster).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

import nanaccess  # noqa: F401  (registers .nanstats)

CASES = (
    ("median", lambda gb: gb.nanstats.median(nan_policy="omit"), lambda gb: gb.median()),
    ("quantile(0.9)", lambda gb: gb.nanstats.quantile(0.9, nan_policy="omit"),
     lambda gb: gb.quantile(0.9)),
)


def make_frame(n_rows: int, n_groups: int, seed: int = 0) -> pd.DataFrame:
    """Random float64 values (5 % NaN) with integer group keys."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(n_rows)
    x[rng.random(n_rows) < 0.05] = np.nan
    return pd.DataFrame({"k": rng.integers(0, n_groups, n_rows), "x": x})


def _time(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def run(n_rows: int = 1_000_000, n_groups: int = 1_000, repeats: int = 7,
        check: bool = True) -> dict[str, Any]:
    """Time nanaccess against pandas on one frame; returns seconds and ratios.

    Returns
    -------
    dict
        ``{stat: {"nanaccess": s, "pandas": s, "ratio": ours / pandas}}`` plus the sizes.
    """
    df = make_frame(n_rows, n_groups)
    out: dict[str, Any] = {"n_rows": n_rows, "n_groups": n_groups, "repeats": repeats}
    for name, ours, theirs in CASES:
        a = ours(df.groupby("k"))  # warm up (numba compiles / loads its cache)
        b = theirs(df.groupby("k"))
        if check:
            pd.testing.assert_frame_equal(a, b)
        t_ours, t_pd = [], []
        for _ in range(repeats):
            t_ours.append(_time(lambda ours=ours: ours(df.groupby("k"))))
            t_pd.append(_time(lambda theirs=theirs: theirs(df.groupby("k"))))
        mo, mp = float(np.median(t_ours)), float(np.median(t_pd))
        out[name] = {"nanaccess": mo, "pandas": mp, "ratio": mo / mp}
    out["xarray median"] = _xarray_median(df, repeats)
    return out


def _xarray_median(df: pd.DataFrame, repeats: int) -> dict[str, float]:
    """``da.nanstats.groupby(k).median()`` against xarray's ``groupby(k).median()``."""
    import xarray as xr

    da = xr.DataArray(df["x"].to_numpy(), dims="i", coords={"k": ("i", df["k"].to_numpy())})

    def ours():
        return da.nanstats.groupby("k").median(nan_policy="omit")

    def theirs():
        return da.groupby("k").median()

    ours(), theirs()  # warm up (JIT, caches)
    t_ours, t_xr = [], []
    for _ in range(max(1, min(repeats, 3))):
        t_ours.append(_time(ours))
        t_xr.append(_time(theirs))
    mo, mx = float(np.median(t_ours)), float(np.median(t_xr))
    return {"nanaccess": mo, "xarray": mx, "ratio": mo / mx}


def month_grid(shape: tuple[int, int, int] = (365, 180, 360), repeats: int = 3,
               check: bool = True) -> dict[str, Any]:
    """In memory: ``da.groupby("time.month").nanstats.median()`` of a float32 time x lat
    x lon grid (1 % NaN) against xarray's ``groupby("time.month").median()`` with
    ``use_flox=False`` (issue 17's reference) and with flox; best of ``repeats``,
    interleaved. ``check``: each month equals NumPy's ``nanmedian`` bit for bit on a
    corner of the grid.

    Returns
    -------
    dict
        ``{"nanaccess": s, "xarray (use_flox=False)": s, "flox": s, "ratio": ours /
        xarray, "ratio_flox": ours / flox, "shape": [...]}``.
    """
    import xarray as xr

    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape, dtype=np.float32)
    x[rng.random(shape) < 0.01] = np.nan
    time_ = pd.date_range("2000-01-01", periods=shape[0], freq="D")
    da = xr.DataArray(x, dims=("time", "lat", "lon"), coords={"time": time_})

    def ours():
        return da.groupby("time.month").nanstats.median(nan_policy="omit")

    def reference(flox: bool):
        with xr.set_options(use_flox=flox):
            return da.groupby("time.month").median()

    got = ours()  # warm up (numba compiles / loads its cache)
    reference(False), reference(True)
    if check:
        months = time_.month.to_numpy()
        corner = x[:, :3, :4]
        want = np.stack([np.nanmedian(corner[months == m], axis=0)
                         for m in np.unique(months)])
        assert got.values[:, :3, :4].tobytes() == want.tobytes()
    best = {"nanaccess": np.inf, "xarray (use_flox=False)": np.inf, "flox": np.inf}
    for _ in range(repeats):
        best["nanaccess"] = min(best["nanaccess"], _time(ours))
        best["xarray (use_flox=False)"] = min(best["xarray (use_flox=False)"],
                                              _time(lambda: reference(False)))
        best["flox"] = min(best["flox"], _time(lambda: reference(True)))
    return {**best, "ratio": best["nanaccess"] / best["xarray (use_flox=False)"],
            "ratio_flox": best["nanaccess"] / best["flox"], "shape": list(shape)}


def main(argv: list[str] | None = None) -> int:
    results = []
    print(f"{'rows':>9} {'groups':>7} {'stat':>14} {'nanaccess ms':>13} {'pandas ms':>10} "
          f"{'ratio':>6}")
    for n_groups in (1_000, 100_000):
        r = run(1_000_000, n_groups)
        results.append(r)
        for name, _, _ in CASES:
            c = r[name]
            print(f"{r['n_rows']:>9} {n_groups:>7} {name:>14} {c['nanaccess'] * 1e3:>13.1f} "
                  f"{c['pandas'] * 1e3:>10.1f} {c['ratio']:>6.2f}")
    grid = month_grid()
    results.append({"month-grouped median (in memory)": grid})
    print(f"month-grouped median {grid['shape']} float32: nanaccess "
          f"{grid['nanaccess'] * 1e3:.0f} ms, xarray use_flox=False "
          f"{grid['xarray (use_flox=False)'] * 1e3:.0f} ms ({grid['ratio']:.2f}x), flox "
          f"{grid['flox'] * 1e3:.0f} ms ({grid['ratio_flox']:.2f}x)")
    path = Path(__file__).parent / "results" / "groupby.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    meta = {"pandas": pd.__version__, "numpy": np.__version__,
            "python": sys.version.split()[0]}
    path.write_text(json.dumps({"meta": meta, "results": results}, indent=2))
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
