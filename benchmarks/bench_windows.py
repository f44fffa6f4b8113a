"""Windows under "omit": nanaccess against bottleneck, pandas and xarray (same-run ratios).

Default: 1e6 float64 values with 1 % NaN. Cases and targets (issue 12):

* rolling median, windows 10 / 100 / 1000 / 10000: vs ``bottleneck.move_median``
  (<= 1.0 at window 100) and pandas ``rolling().median()`` (<= 0.5);
* rolling quantile(0.9), window 100: vs pandas (<= 0.5);
* exact rolling mean and sum, window 100: vs pandas (<= 2.0);
* exact rolling var / std, window 100, and expanding var: vs pandas (<= 3.0, issue 12's
  follow-up: certified on fixed bins, the exact kernel for the rest); windows 10 / 1000,
  float32, data offset by 1e6 and expanding std as rows without a target;
* rolling mean of float32 (widened exactly; no target);
* ``resample("D").median()`` of minutely rows: the accessor vs pandas (<= 1.0), and the
  segment path it could take (``window_reduce`` on :func:`segment_bounds`, the bins
  being contiguous) as a second row;
* expanding sum of int64, expanding mean holding an infinity and rolling mad (issue
  25: inputs that took the O(n w) reference engine; rows without a target, mad
  against pandas' rolling median as a yardstick);
* xarray ``rolling(time=7).median()`` of a float32 (time, lat, lon) grid (365 x 180 x 360
  by default; ``grid=`` to shrink it) with NaN over land vs xarray with bottleneck on
  (<= 1.0, issue 30), and its neighbours (float64, F order, windows 3 and 30).

Timings are wall clock, interleaved, median of ``repeats``; the compiled kernels may use
numba's threads (long inputs: blocks of outputs), the references are single-threaded.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from common import float_data, log, make_row, optional_import, time_interleaved

import nanaccess  # noqa: F401  (registers the accessors)

__all__ = ["run"]

N = 1_000_000
WINDOW = 100
WIDTHS = (10, 100, 1000, 10000)
MOMENT_WIDTHS = (10, 100, 1000)
GRID = (365, 180, 360)


def _cases(s: pd.Series, x: np.ndarray, window: int, bn: Any) -> dict[str, Any]:
    """case name -> (nanaccess callable, {reference: (callable, target)})."""
    cases: dict[str, Any] = {}
    for w in (w for w in WIDTHS if w <= len(s)):
        r = s.rolling(w, min_periods=1)
        refs = {"pandas rolling.median": (r.median, 0.5 if w == window else None)}
        if bn is not None:
            refs["bottleneck.move_median"] = (
                lambda w=w: bn.move_median(x, w, min_count=1), 1.0 if w == window else None)
        cases[f"rolling({w}) median"] = (
            lambda r=r: r.nanstats.median(nan_policy="omit"), refs)
    r = s.rolling(window, min_periods=1)
    cases[f"rolling({window}) quantile(0.9)"] = (
        lambda: r.nanstats.quantile(0.9, nan_policy="omit"),
        {"pandas rolling.quantile": (lambda: r.quantile(0.9), 0.5)})
    for stat, target in (("mean", 2.0), ("sum", 2.0), ("var", 3.0), ("std", 3.0)):
        cases[f"rolling({window}) {stat}"] = (
            lambda stat=stat: getattr(r.nanstats, stat)(nan_policy="omit"),
            {f"pandas rolling.{stat}": (getattr(r, stat), target)})
    for w in (w for w in MOMENT_WIDTHS if w != window and w <= len(s)):
        rw = s.rolling(w, min_periods=1)
        for stat in ("var", "std"):
            cases[f"rolling({w}) {stat}"] = (
                lambda rw=rw, stat=stat: getattr(rw.nanstats, stat)(nan_policy="omit"),
                {f"pandas rolling.{stat}": (getattr(rw, stat), None)})
    r32 = s.astype(np.float32).rolling(window, min_periods=1)
    for stat in ("var", "mean"):
        cases[f"rolling({window}) {stat} float32"] = (
            lambda stat=stat: getattr(r32.nanstats, stat)(nan_policy="omit"),
            {f"pandas rolling.{stat}": (getattr(r32, stat), None)})
    lv = s + 1e6  # an offset: the certified variance shifts Q by the midrange
    rl = lv.rolling(window, min_periods=1)
    cases[f"rolling({window}) var, offset 1e6"] = (
        lambda: rl.nanstats.var(nan_policy="omit"), {"pandas rolling.var": (rl.var, None)})
    e = s.expanding()
    for stat in ("var", "std"):
        cases[f"expanding {stat}"] = (
            lambda stat=stat: getattr(e.nanstats, stat)(nan_policy="omit"),
            {f"pandas expanding.{stat}": (getattr(e, stat), 3.0 if stat == "var" else None)})
    # issue 25: the inputs that used to take the O(n w) reference engine (no target)
    si = pd.Series(np.random.default_rng(4).integers(-(2**40), 2**40, len(s)))
    cases["expanding sum int64"] = (lambda: si.expanding().nanstats.sum(),
                                    {"pandas expanding.sum": (si.expanding().sum, None)})
    ei = s.where(s.index != len(s) // 3, np.inf).expanding()  # one infinity
    cases["expanding mean, an infinity"] = (
        lambda: ei.nanstats.mean(nan_policy="omit"),
        {"pandas expanding.mean": (ei.mean, None)})
    rm = s.rolling(window, min_periods=1)
    cases[f"rolling({window}) mad"] = (
        lambda: rm.nanstats.mad(nan_policy="omit"),
        {"pandas rolling.median": (rm.median, None)})
    return cases


def _resample_rows(n: int, repeats: int, nan_pct: float) -> list[dict[str, Any]]:
    from nanaccess.core.window import segment_bounds, window_reduce
    from nanaccess.pandas._groupby_registry import grouping_info

    m = pd.Series(float_data(n, nan_pct, seed=4),
                  index=pd.date_range("2024-01-01", periods=n, freq="min"))
    rs = m.resample("D")

    def segments() -> pd.Series:  # what the resample accessor could call (bins contiguous)
        codes, ngroups, index = grouping_info(rs)
        red = window_reduce(m.to_numpy(), *segment_bounds(codes, ngroups), "median",
                            policy="omit")
        return pd.Series(red.values, index=index)

    t = time_interleaved({"accessor": lambda: rs.nanstats.median(nan_policy="omit"),
                          "segments": segments, "pandas": rs.median}, repeats=repeats)
    log(f"windows resample: accessor {t['accessor'] / t['pandas']:.2f}x, "
        f"segments {t['segments'] / t['pandas']:.2f}x")
    return [make_row(f"resample('D') median of {n} minutes", n, "omit", t["accessor"],
                     "pandas resample.median", t["pandas"], nan_pct=nan_pct, target=1.0),
            make_row(f"resample('D') median of {n} minutes, segment path", n, "omit",
                     t["segments"], "pandas resample.median", t["pandas"], nan_pct=nan_pct)]


def _xarray_row(grid: tuple[int, int, int], repeats: int,
                nan_pct: float) -> list[dict[str, Any]]:
    """xarray ``rolling(time=w).median()`` of a (time, lat, lon) grid with NaN over
    "land" (a block of all-NaN columns) against xarray with bottleneck on (issue 30's
    target row: float32, C order, w = 7), and the neighbours: float64, F order (each
    column contiguous), windows 3 and 30."""
    xr = optional_import("xarray")
    if xr is None:
        return []
    base = float_data(int(np.prod(grid)), nan_pct, seed=5, shape=grid)
    base[:, : grid[1] // 3, : grid[2] // 3] = np.nan  # land: all-NaN columns
    rows = []
    cases = [(np.float32, "C", 7, 1.0), (np.float64, "C", 7, None),
             (np.float32, "F", 7, None), (np.float32, "C", 3, None),
             (np.float32, "C", 30, None)]
    for dtype, order, w, target in cases:
        if w > grid[0]:  # a window longer than the series: xarray refuses it
            continue
        data = np.asarray(base, dtype=dtype, order=order)
        da = xr.DataArray(data, dims=("time", "lat", "lon"))
        r = da.rolling(time=w)

        def peer(r=r):
            with xr.set_options(use_bottleneck=True):
                return r.median()

        t = time_interleaved({"nanaccess": lambda r=r: r.nanstats.median(nan_policy="omit"),
                              "xarray": peer}, repeats=repeats)
        case = (f"xarray rolling(time={w}) median of {np.dtype(dtype).name} "
                f"{'x'.join(map(str, grid))}, {order} order")
        log(f"windows {case}: {t['nanaccess'] / t['xarray']:.2f}x")
        rows.append(make_row(case, data.size, "omit", t["nanaccess"],
                             "xarray rolling.median (bottleneck)", t["xarray"],
                             nan_pct=nan_pct, target=target))
    return rows


def run(n: int = N, window: int = WINDOW, *, repeats: int = 5, nan_pct: float = 1.0,
        grid: tuple[int, int, int] = GRID, out_dir: Path | str | None = None,
        write: bool = True, name: str = "windows") -> list[dict[str, Any]]:
    """Time the window cases; return the rows and write ``<name>.json`` / ``.md``.

    Parameters
    ----------
    n : int
        Values in the Series (and minutely rows of the resample case).
    window : int
        Window length of the quantile / moment cases (and the median's target row).
    repeats : int
        Interleaved repeats (median reported).
    nan_pct : float
        NaN share in percent.
    grid : tuple of int
        (time, lat, lon) of the xarray case.
    out_dir : path, optional
        Where to write (default ``benchmarks/results``).
    write : bool
        Write the result files.
    name : str
        Result file stem.

    Returns
    -------
    list of dict
        Result rows (schema in :mod:`common`).
    """
    s = pd.Series(float_data(n, nan_pct, seed=3))
    bn = optional_import("bottleneck")
    rows: list[dict[str, Any]] = []
    for case, (mine, refs) in _cases(s, s.to_numpy(), window, bn).items():
        t = time_interleaved({"nanaccess": mine, **{k: v[0] for k, v in refs.items()}},
                             repeats=repeats)
        for ref, (_, target) in refs.items():
            rows.append(make_row(f"{case} of {n}", n, "omit", t["nanaccess"], ref, t[ref],
                                 nan_pct=nan_pct, target=target))
        log(f"windows {case}: " + ", ".join(f"{k}={t['nanaccess'] / t[k]:.2f}x"
                                            for k in refs))
    rows += _resample_rows(n, repeats, nan_pct)
    rows += _xarray_row(grid, repeats, nan_pct)
    if write:
        from common import write_results

        write_results(name, rows, out_dir)
    return rows


if __name__ == "__main__":  # pragma: no cover
    for row in run():
        print(row)
