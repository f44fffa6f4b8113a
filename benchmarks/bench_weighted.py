"""Weighted statistics (issue 13): rows and targets (same-run ratios).

* weighted ``median`` of 1e6 float64 values, real and integer weights: <= 1.0x
  ``np.quantile(x, 0.5, weights=w, method="inverted_cdf")``;
* grouped weighted ``median``, 1e6 rows, 1e3 (and 1e5) groups, 1 % NaN, "omit":
  <= 1.0x pandas' unweighted ``groupby().median()``; the accessor spelling
  ``df.groupby(k).nanstats.median(weights="w")`` against ``df.groupby(k).median()`` of
  the same frame (factorisation included on both sides; the data column's median
  alone logged);
* grouped weighted ``mean`` (same data): reported against pandas' unweighted
  ``groupby().mean()`` (no target; certified compiled sums, exact where uncertified);
* grouped weighted ``var`` / ``std`` (ddof 1, same data): reported against pandas'
  unweighted ``groupby().var()`` / ``.std()`` (no target; certified compiled
  variances, exact where uncertified);
* row-wise weighted ``var`` of a ``(2000, 500)`` array along axis 1: reported
  against the NumPy formula ``np.average((x - np.average(x, weights=w, axis=1)[:,
  None])**2, weights=w, axis=1)`` (ddof 0; rounded twice, not exact; no target);
* weighted ``quantile`` along axis 0 of a ``(time, lat, lon)`` float32 grid: <= 0.5x
  xarray's ``da.weighted(w).quantile(q, dim="time")``;
* reliability weights (issue 23): ``na.var(x, weights=w, ddof=1,
  weights_kind="reliability")`` of 1e6 float64 against ``np.cov(x, aweights=w)``
  (rounded several times, not exact; no target), the frequency ``var`` (ddof 1) of
  the same data logged beside it;
* weighted covariance matrix (issue 24): ``df.nanstats.cov(weights=w,
  weights_kind="reliability")`` of ``n / 10`` rows x 4 columns (no NaN) against
  ``np.cov(X.T, aweights=w)`` (no target).

Run alone: ``python benchmarks/bench_weighted.py``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from common import float_data, log, make_row, optional_import, time_interleaved

import nanaccess as na
from nanaccess.core.grouped import grouped_reduce
from nanaccess.options import NanPolicy

__all__ = ["run"]


def _median_rows(n: int, repeats: int) -> list[dict[str, Any]]:
    rng = np.random.default_rng(11)
    x = rng.standard_normal(n)
    rows = []
    for kind, w in (("real", rng.random(n)), ("integer", rng.integers(1, 10, n).astype(float))):
        t = time_interleaved({
            "na": lambda w=w: na.median(x, weights=w),
            "ref": lambda w=w: np.quantile(x, 0.5, weights=w, method="inverted_cdf")},
            repeats=repeats)
        rows.append(make_row(f"weighted median, {kind} weights", n, "raise", t["na"],
                             "np.quantile(weights=, inverted_cdf)", t["ref"], target=1.0))
        log(f"weighted median {kind} n={n}: {t['na'] / t['ref']:.2f}x")
    return rows


def _grouped_rows(n: int, groups: tuple[int, ...], repeats: int) -> list[dict[str, Any]]:
    pd = optional_import("pandas")
    if pd is None:
        return []
    rng = np.random.default_rng(12)
    x = float_data(n, 1.0, seed=12)
    w = rng.random(n)
    rows = []
    for g in groups:
        codes = rng.integers(0, g, n)
        s = pd.Series(x)
        for stat, target in (("median", 1.0), ("mean", None)):
            t = time_interleaved({
                "na": lambda c=codes, g=g, st=stat: grouped_reduce(
                    x, c, g, st, policy=NanPolicy.OMIT, weights=w).values,
                "ref": lambda c=codes, st=stat, s=s: getattr(s.groupby(c), st)()},
                repeats=repeats)
            rows.append(make_row(f"grouped weighted {stat}, {g} groups", n, "omit", t["na"],
                                 f"pandas groupby().{stat}() (unweighted)", t["ref"],
                                 nan_pct=1.0, target=target, groups=g))
            log(f"grouped weighted {stat} n={n} groups={g}: {t['na'] / t['ref']:.2f}x")
        rows.append(_accessor_row(pd, x, w, codes, g, repeats))
    return rows


def _accessor_row(pd: Any, x: np.ndarray, w: np.ndarray, codes: np.ndarray, g: int,
                  repeats: int) -> dict[str, Any]:
    """The issue's spelling, ``df.groupby(k).nanstats.median(weights="w")``, against
    pandas' unweighted ``df.groupby(k).median()`` of the same frame (its weight column
    is a column to pandas: two medians) and of the data column alone (reported)."""
    df = pd.DataFrame({"k": codes, "v": x, "w": w})
    one = df[["k", "v"]].copy()
    t = time_interleaved({
        "na": lambda: df.groupby("k").nanstats.median(weights="w", nan_policy="omit"),
        "ref": lambda: df.groupby("k").median(),
        "one": lambda: one.groupby("k").median()}, repeats=repeats)
    log(f"df.groupby(k).nanstats.median(weights='w') groups={g}: {t['na'] / t['ref']:.2f}x "
        f"df.groupby(k).median(), {t['na'] / t['one']:.2f}x the data column's alone")
    return make_row(f"grouped weighted median via the accessor, {g} groups", len(x), "omit",
                    t["na"], "pandas df.groupby(k).median() (unweighted, columns v and w)",
                    t["ref"], nan_pct=1.0, target=1.0, groups=g)


def _spread_rows(n: int, groups: tuple[int, ...], repeats: int) -> list[dict[str, Any]]:
    """Grouped weighted var / std (ddof 1) against pandas' unweighted ones."""
    pd = optional_import("pandas")
    if pd is None:
        return []
    rng = np.random.default_rng(14)
    x = float_data(n, 1.0, seed=14)
    w = rng.random(n)
    s = pd.Series(x)
    rows = []
    for g in groups:
        codes = rng.integers(0, g, n)
        for stat in ("var", "std"):
            t = time_interleaved({
                "na": lambda c=codes, g=g, st=stat: grouped_reduce(
                    x, c, g, st, policy=NanPolicy.OMIT, weights=w, ddof=1).values,
                "ref": lambda c=codes, st=stat: getattr(s.groupby(c), st)()},
                repeats=repeats)
            rows.append(make_row(f"grouped weighted {stat}, {g} groups", n, "omit", t["na"],
                                 f"pandas groupby().{stat}() (unweighted)", t["ref"],
                                 nan_pct=1.0, groups=g))
            log(f"grouped weighted {stat} n={n} groups={g}: {t['na'] / t['ref']:.2f}x")
    return rows


def _row_var_rows(shape: tuple[int, int], repeats: int) -> list[dict[str, Any]]:
    """Weighted var along axis 1 against NumPy's two-pass ``np.average`` formula."""
    rng = np.random.default_rng(15)
    x = rng.standard_normal(shape)
    w = rng.random(shape)

    def numpy_var():
        m = np.average(x, weights=w, axis=1)
        return np.average((x - m[:, None]) ** 2, weights=w, axis=1)

    t = time_interleaved({"na": lambda: na.var(x, weights=w, axis=1), "ref": numpy_var},
                         repeats=repeats)
    n = int(np.prod(shape))
    log(f"weighted var along axis 1 of {shape}: {t['na'] / t['ref']:.2f}x")
    return [make_row(f"weighted var along axis 1 of {shape}", n, "raise", t["na"],
                     "np.average formula (two passes)", t["ref"])]


def _reliability_rows(n: int, repeats: int) -> list[dict[str, Any]]:
    """Reliability-weighted var and a weighted covariance matrix against numpy.cov."""
    rng = np.random.default_rng(23)
    x = rng.standard_normal(n)
    w = rng.random(n) + 0.01
    t = time_interleaved({
        "na": lambda: na.var(x, weights=w, ddof=1, weights_kind="reliability"),
        "freq": lambda: na.var(x, weights=w, ddof=1),
        "ref": lambda: np.cov(x, aweights=w)}, repeats=repeats)
    log(f"reliability var n={n}: {t['na'] / t['ref']:.2f}x np.cov(aweights=); frequency "
        f"var {t['freq'] / t['ref']:.2f}x")
    rows = [make_row("weighted var, reliability weights", n, "raise", t["na"],
                     "np.cov(aweights=)", t["ref"]),
            make_row("weighted var, frequency weights (ddof 1)", n, "raise", t["freq"],
                     "np.cov(aweights=)", t["ref"])]
    pd = optional_import("pandas")
    if pd is None:
        return rows
    m = max(n // 10, 10)
    X = rng.standard_normal((m, 4))
    wm = rng.random(m) + 0.01
    df = pd.DataFrame(X, columns=list("abcd"))
    t = time_interleaved({
        "na": lambda: df.nanstats.cov(weights=wm, weights_kind="reliability"),
        "ref": lambda: np.cov(X.T, aweights=wm)}, repeats=repeats)
    log(f"weighted cov matrix {m}x4: {t['na'] / t['ref']:.2f}x np.cov(aweights=)")
    rows.append(make_row(f"weighted cov matrix, {m} x 4", m * 4, "omit", t["na"],
                         "np.cov(X.T, aweights=)", t["ref"]))
    return rows


def _axis_rows(shape: tuple[int, int, int], repeats: int) -> list[dict[str, Any]]:
    xr = optional_import("xarray")
    if xr is None:
        return []
    rng = np.random.default_rng(13)
    x = rng.standard_normal(shape).astype(np.float32)
    w = rng.random(shape[0])
    da = xr.DataArray(x, dims=("time", "lat", "lon"))
    wa = xr.DataArray(w, dims=("time",))
    t = time_interleaved({
        "na": lambda: na.quantile(x, 0.9, axis=0, weights=w, nan_policy="omit"),
        "ref": lambda: da.weighted(wa).quantile(0.9, dim="time")},
        repeats=repeats, warmup=True)
    n = int(np.prod(shape))
    rows = [make_row(f"weighted quantile along axis 0 of {shape}", n, "omit", t["na"],
                     "xarray weighted().quantile", t["ref"], target=0.5)]
    log(f"weighted quantile along time {shape}: {t['na'] / t['ref']:.2f}x")
    return rows


def run(n: int = 1_000_000, *, groups: tuple[int, ...] = (1_000, 100_000),
        grid: tuple[int, int, int] = (365, 180, 360), repeats: int = 3,
        out_dir: Path | str | None = None, write: bool = True,
        name: str = "weighted") -> list[dict[str, Any]]:
    """Time the weighted cases; return rows and write ``<name>.json`` / ``.md``.

    Parameters
    ----------
    n : int
        Values of the median and grouped cases.
    groups : tuple of int
        Group counts of the grouped cases.
    grid : tuple of int
        ``(time, lat, lon)`` of the along-axis quantile.
    repeats : int
        Interleaved repeats (median reported).
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
    rows = _median_rows(n, repeats) + _grouped_rows(n, groups, repeats) + \
        _spread_rows(n, groups, repeats) + _row_var_rows((max(n // 500, 4), 500), repeats) + \
        _axis_rows(grid, repeats) + _reliability_rows(n, repeats)
    if write:
        from common import write_results

        write_results(name, rows, out_dir)
    return rows


if __name__ == "__main__":
    import sys

    small = "--small" in sys.argv
    run(grid=(365, 45, 90) if small else (365, 180, 360), write=not small)
