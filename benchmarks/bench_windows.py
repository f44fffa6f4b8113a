"""Rolling windows under "omit": nanaccess against bottleneck and pandas (same-run ratios).

Default: 1e6 float64 values with 1 % NaN, window 100. Cases and targets (issue 12):
rolling median vs ``bottleneck.move_median`` (<= 1.0) and pandas ``rolling().median()``
(<= 0.5); rolling quantile(0.9) vs pandas (<= 0.5); exact rolling mean and sum vs pandas
(<= 2.0); ``resample("D").median()`` of minutely rows vs pandas (<= 1.0).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
from common import float_data, log, make_row, optional_import, time_interleaved

import nanaccess  # noqa: F401  (registers the accessors)

__all__ = ["run"]

N = 1_000_000
WINDOW = 100


def run(n: int = N, window: int = WINDOW, *, repeats: int = 5, nan_pct: float = 1.0,
        out_dir: Path | str | None = None, write: bool = True,
        name: str = "windows") -> list[dict[str, Any]]:
    """Time the window cases; return the rows and write ``<name>.json`` / ``.md``.

    Parameters
    ----------
    n : int
        Values in the Series (and minutely rows of the resample case).
    window : int
        Window length.
    repeats : int
        Interleaved repeats (median reported).
    nan_pct : float
        NaN share in percent.
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
    r = s.rolling(window, min_periods=1)
    bn = optional_import("bottleneck")
    x = s.to_numpy()
    rows: list[dict[str, Any]] = []
    cases = {
        "median": (lambda: r.nanstats.median(nan_policy="omit"),
                   {"pandas rolling.median": (lambda: r.median(), 0.5)}),
        "quantile(0.9)": (lambda: r.nanstats.quantile(0.9, nan_policy="omit"),
                          {"pandas rolling.quantile": (lambda: r.quantile(0.9), 0.5)}),
        "mean": (lambda: r.nanstats.mean(nan_policy="omit"),
                 {"pandas rolling.mean": (lambda: r.mean(), 2.0)}),
        "sum": (lambda: r.nanstats.sum(nan_policy="omit"),
                {"pandas rolling.sum": (lambda: r.sum(), 2.0)}),
    }
    if bn is not None:
        cases["median"][1]["bottleneck.move_median"] = (
            lambda: bn.move_median(x, window, min_count=1), 1.0)
    for case, (mine, refs) in cases.items():
        t = time_interleaved({"nanaccess": mine, **{k: v[0] for k, v in refs.items()}},
                             repeats=repeats)
        for ref, (_, target) in refs.items():
            rows.append(make_row(f"rolling({window}) {case} of {n}", n, "omit",
                                 t["nanaccess"], ref, t[ref], nan_pct=nan_pct, target=target))
        log(f"windows {case}: " + ", ".join(f"{k}={t['nanaccess'] / t[k]:.2f}x" for k in refs))
    m = pd.Series(float_data(n, nan_pct, seed=4),
                  index=pd.date_range("2024-01-01", periods=n, freq="min"))
    rs = m.resample("D")
    t = time_interleaved({"nanaccess": lambda: rs.nanstats.median(nan_policy="omit"),
                          "pandas": lambda: rs.median()}, repeats=repeats)
    rows.append(make_row(f"resample('D') median of {n} minutes", n, "omit", t["nanaccess"],
                         "pandas resample.median", t["pandas"], nan_pct=nan_pct, target=1.0))
    log(f"windows resample: {t['nanaccess'] / t['pandas']:.2f}x")
    if write:
        from common import write_results

        write_results(name, rows, out_dir)
    return rows


if __name__ == "__main__":  # pragma: no cover
    for row in run():
        print(row)

