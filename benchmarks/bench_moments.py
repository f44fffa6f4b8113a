"""Exact moments (issue 14, item 1): the compiled exact sums against NumPy and pandas.

Rows and targets (same-run ratios, numba on unless said):

* exact ``sum`` / ``mean`` of 1e6 and 1e7 float64, normal and wide-range data:
  <= 3.0x ``np.sum`` / ``np.mean``;
* ``mean`` / ``std`` with ``nan_policy="omit"``, 1e6, 1 % NaN: <= 1.0x ``np.nanmean`` /
  ``np.nanstd``;
* ``df.groupby(k).nanstats.mean/sum/std/var(nan_policy="omit")``, 1e6 rows, 1e3 and 1e5
  groups: <= 1.5x pandas' own groupby; var/std (ddof=1) again on one reused groupby
  object (no grouping cost on either side), reported without a target;
* ``df.nanstats.mean()`` of a 1e6 x 8 float64 DataFrame: <= 1.0x ``df.mean()``;
  ``da.nanstats.mean(dim="time")`` of a 365 x 180 x 36 float64 and float32 DataArray:
  <= 1.0x ``da.mean("time")``;
* ``mean`` of float64 arrays, n = 10, 100, 1000: <= 3.0x ``np.mean``;
* without numba (``NANACCESS_NO_NUMBA=1``, in a subprocess): 1-D exact sum of 1e6 and
  1e7 float64, normal and wide-range data: <= 6x ``np.sum``; a cancelling sum and
  float32 data at the first size are reported without a target;
* the first compiled call in a fresh process, numba's cache cold then warm (seconds,
  ``reference_s`` 0.3 s: the warm target; the warm row is the best of 3 fresh
  processes);
* hard exact sums (issue 30): a cancelling sum of 1e6 float64 (no NaN) <= 3x
  ``np.sum``; the mean of data spanning 1e-300 .. 1e300 with 1 % NaN under "omit" <= 1.5x
  ``np.nanmean``; a 1 %-NaN sum <= 2x ``np.sum``; the sum of 1e4 values (past the
  small path) reported beside them; without numba, 1 %-NaN sums of normal and
  wide-range data;
* gridded data (issue 30): ``da.nanstats.mean/std("time", nan_policy="omit")`` of a
  365 x 180 x 360 float32 grid with NaN over a fixed 30 % land mask <= 1.0x xarray's
  own (numbagg/bottleneck on when installed), with the neighbours float64, F order,
  the last axis and 1 % NaN at random (``--quick``: 365 x 45 x 60).

Run alone: ``python benchmarks/bench_moments.py [--quick]``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from common import float_data, log, make_row, time_interleaved

__all__ = ["run"]

_HERE = Path(__file__).resolve().parent


def _wide(n: int, seed: int = 11) -> np.ndarray:
    """Normal values scaled over about 2**-430 .. 2**430 (a wide exponent range)."""
    rng = np.random.default_rng(seed)
    return rng.standard_normal(n) * np.exp(rng.uniform(-300, 300, n))


def _wider(n: int, seed: int = 19) -> np.ndarray:
    """Normal values scaled over 1e-300 .. 1e300: sums beyond ``2**990`` (the range
    where a mean needs the certified path's power-of-two scaling)."""
    rng = np.random.default_rng(seed)
    return rng.standard_normal(n) * 10.0 ** rng.uniform(-300, 300, n)


def _cancelling(n: int, seed: int = 12) -> np.ndarray:
    """Values and their negatives, shuffled, plus 1e-3: a sum far below the values' size
    (the NumPy engine's certified pass needs its second extraction level)."""
    rng = np.random.default_rng(seed)
    y = rng.standard_normal(n // 2)
    x = np.concatenate([y, -y, [1e-3]])
    rng.shuffle(x)
    return x


def _ratio_rows(repeats: int, sizes: tuple[int, ...]) -> list[dict[str, Any]]:
    import nanaccess as na

    rows = []
    for n in sizes:
        for label, x in (("normal", float_data(n, 0.0, seed=1)), ("wide-range", _wide(n))):
            for stat, ours, ref, theirs in (("sum", na.sum, "np.sum", np.sum),
                                            ("mean", na.mean, "np.mean", np.mean)):
                t = time_interleaved({"na": lambda f=ours, x=x: f(x),
                                      "ref": lambda f=theirs, x=x: f(x)}, repeats=repeats)
                rows.append(make_row(f"exact {stat}, {label} float64", n, "raise", t["na"],
                                     ref, t["ref"], target=3.0))
                log(f"moments {stat} {label} n={n}: {t['na'] / t['ref']:.2f}x {ref}")
    x = float_data(1_000_000, 1.0, seed=2)
    for stat, ours, ref, theirs in (("mean", na.mean, "np.nanmean", np.nanmean),
                                    ("std", na.std, "np.nanstd", np.nanstd)):
        t = time_interleaved({"na": lambda f=ours: f(x, nan_policy="omit"),
                              "ref": lambda f=theirs: f(x)}, repeats=repeats)
        rows.append(make_row(f"{stat} omit, 1% NaN", x.size, "omit", t["na"], ref, t["ref"],
                             nan_pct=1.0, target=1.0))
        log(f"moments {stat} omit: {t['na'] / t['ref']:.2f}x {ref}")
    y = float_data(x.size, 0.0, seed=2)  # a neighbour with no target: exact var vs np.var
    t = time_interleaved({"na": lambda: na.var(y), "ref": lambda: np.var(y)}, repeats=repeats)
    rows.append(make_row("exact var, normal float64", y.size, "raise", t["na"], "np.var",
                         t["ref"]))
    log(f"moments var: {t['na'] / t['ref']:.2f}x np.var")
    rng = np.random.default_rng(3)
    for n in (10, 100, 1000):
        x = rng.standard_normal(n)
        t = time_interleaved({"na": lambda x=x: na.mean(x), "ref": lambda x=x: np.mean(x)},
                             repeats=repeats)
        rows.append(make_row("mean of a float64 array", n, "raise", t["na"], "np.mean",
                             t["ref"], target=3.0))
        log(f"moments mean n={n}: {t['na'] / t['ref']:.2f}x np.mean")
    return rows


def _host_rows(repeats: int, quick: bool) -> list[dict[str, Any]]:
    """The DataFrame and DataArray means (leading-axis reductions, no transpose)."""
    import pandas as pd

    import nanaccess.pandas  # noqa: F401 - registers the accessor

    rows = []
    n = 100_000 if quick else 1_000_000
    df = pd.DataFrame(float_data(n * 8, 0.0, seed=5).reshape(n, 8), columns=list("abcdefgh"))
    t = time_interleaved({"na": lambda: df.nanstats.mean(), "ref": lambda: df.mean()},
                         repeats=repeats)
    rows.append(make_row("DataFrame mean, 8 float64 columns", n * 8, "raise", t["na"],
                         "df.mean()", t["ref"], target=1.0))
    log(f"moments DataFrame mean {n}x8: {t['na'] / t['ref']:.2f}x df.mean()")
    try:
        import xarray as xr

        import nanaccess.xarray  # noqa: F401 - registers the accessor
    except ImportError:  # xarray is optional
        return rows
    shape = (365, 18 if quick else 180, 36)
    base = float_data(int(np.prod(shape)), 0.0, seed=6, shape=shape)
    for dtype in (np.float64, np.float32):
        da = xr.DataArray(base.astype(dtype), dims=("time", "lat", "lon"))
        t = time_interleaved({"na": lambda da=da: da.nanstats.mean(dim="time"),
                              "ref": lambda da=da: da.mean("time")}, repeats=repeats)
        name = np.dtype(dtype).name
        rows.append(make_row(f"DataArray mean over time, {name}", da.size, "raise", t["na"],
                             'da.mean("time")', t["ref"], target=1.0))
        log(f"moments DataArray mean {shape} {name}: {t['na'] / t['ref']:.2f}x da.mean")
    return rows


def _grouped_rows(repeats: int, n: int, groups: tuple[int, ...]) -> list[dict[str, Any]]:
    import pandas as pd

    import nanaccess.pandas  # noqa: F401 - registers the accessor

    rows = []
    for ng in groups:
        rng = np.random.default_rng(ng)
        df = pd.DataFrame({"k": rng.integers(0, ng, n), "v": float_data(n, 1.0, seed=4)})
        for stat in ("mean", "sum", "std", "var"):
            ours: Callable[[], Any] = lambda s=stat, df=df: getattr(  # noqa: E731
                df.groupby("k").nanstats, s)(nan_policy="omit")
            theirs: Callable[[], Any] = lambda s=stat, df=df: getattr(  # noqa: E731
                df.groupby("k"), s)()
            t = time_interleaved({"na": ours, "ref": theirs}, repeats=repeats)
            rows.append(make_row(f"groupby {stat} omit, {ng} groups", n, "omit", t["na"],
                                 f"pandas groupby().{stat}()", t["ref"], nan_pct=1.0,
                                 target=1.5, groups=ng))
            log(f"moments groupby {stat} {ng} groups: {t['na'] / t['ref']:.2f}x pandas")
        # one groupby object reused (pandas keeps its codes): the grouping cost both sides
        # pay above is gone, so the statistic's own cost shows (var/std, ddof=1)
        g = df.groupby("k")
        for stat in ("var", "std"):
            t = time_interleaved({"na": lambda s=stat, g=g: getattr(g.nanstats, s)(
                nan_policy="omit", ddof=1), "ref": lambda s=stat, g=g: getattr(g, s)()},
                repeats=repeats)
            rows.append(make_row(f"groupby {stat} omit, {ng} groups, groupby reused", n,
                                 "omit", t["na"], f"pandas groupby().{stat}()", t["ref"],
                                 nan_pct=1.0, groups=ng))
            log(f"moments groupby {stat} {ng} groups, reused: {t['na'] / t['ref']:.2f}x")
    return rows


def _hard_rows(repeats: int, n: int = 1_000_000) -> list[dict[str, Any]]:
    """The hard exact sums of issue 30 (numba on): cancellation, NaN, wide range."""
    import nanaccess as na

    rng = np.random.default_rng(13)
    canc = _cancelling(n)
    wide = _wider(n)
    wide[rng.random(n) < 0.01] = np.nan
    norm = float_data(n, 1.0, seed=14)
    small = float_data(10_000, 0.0, seed=15)
    cases = (
        ("exact sum, cancelling float64", canc, lambda: na.sum(canc), "np.sum",
         lambda: np.sum(canc), 3.0, 0.0),
        ("exact mean omit, 1e+-300 float64, 1% NaN", wide,
         lambda: na.mean(wide, nan_policy="omit"), "np.nanmean", lambda: np.nanmean(wide),
         1.5, 1.0),
        ("exact sum omit, 1% NaN", norm, lambda: na.sum(norm, nan_policy="omit"), "np.sum",
         lambda: np.sum(norm), 2.0, 1.0),
        ("exact sum omit, 1% NaN", norm, lambda: na.sum(norm, nan_policy="omit"),
         "np.nansum", lambda: np.nansum(norm), None, 1.0),
        ("exact sum, past the small path", small, lambda: na.sum(small), "np.sum",
         lambda: np.sum(small), None, 0.0),
    )
    rows = []
    for case, x, ours, ref, theirs, target, pct in cases:
        t = time_interleaved({"na": ours, "ref": theirs}, repeats=repeats)
        rows.append(make_row(case, x.size, "omit" if pct else "raise", t["na"], ref,
                             t["ref"], nan_pct=pct, target=target))
        log(f"moments {case} n={x.size}: {t['na'] / t['ref']:.2f}x {ref}")
    return rows


def land_grid(shape: tuple[int, int, int], dtype, land: float = 0.3,
              order: str = "C") -> np.ndarray:
    """Normal data on a (time, lat, lon) grid with NaN at every time over a fixed
    pattern of blocks covering ``land`` of the cells (a land mask)."""
    t, ny, nx = shape
    x = float_data(t * ny * nx, 0.0, seed=16, shape=shape).astype(dtype) + dtype(280)
    blocks = np.add.outer(np.arange(ny) // 5, 3 * (np.arange(nx) // 7)) % 10
    x[:, blocks < round(land * 10)] = np.nan
    return np.asfortranarray(x) if order == "F" else x


def _grid_rows(repeats: int, quick: bool, shape: tuple[int, int, int] | None = None
               ) -> list[dict[str, Any]]:
    """``mean`` / ``std`` over an axis of a gridded DataArray with NaN over land."""
    try:
        import xarray as xr

        import nanaccess.xarray  # noqa: F401 - registers the accessor
    except ImportError:  # xarray is optional
        return []
    shape = shape or ((365, 45, 60) if quick else (365, 180, 360))
    rows = []
    cases = (  # (stat, dtype, order, dim, land share or None for 1 % NaN at random, target)
        ("mean", np.float32, "C", "time", 0.3, 1.0),
        ("std", np.float32, "C", "time", 0.3, 1.0),
        ("mean", np.float64, "C", "time", 0.3, None),
        ("std", np.float64, "C", "time", 0.3, None),
        ("mean", np.float32, "F", "time", 0.3, None),
        ("mean", np.float32, "C", "lon", 0.3, None),
        ("mean", np.float32, "C", "time", None, None),
    )
    for stat, dtype, order, dim, land, target in cases:
        if land is None:
            x = float_data(int(np.prod(shape)), 1.0, seed=17, shape=shape).astype(dtype)
        else:
            x = land_grid(shape, dtype, land, order)
        da = xr.DataArray(x, dims=("time", "lat", "lon"))
        t = time_interleaved({
            "na": lambda da=da, s=stat, d=dim: getattr(da.nanstats, s)(d, nan_policy="omit"),
            "ref": lambda da=da, s=stat, d=dim: getattr(da, s)(d)}, repeats=repeats)
        name = np.dtype(dtype).name
        nan = "30% land NaN" if land else "1% NaN"
        case = f"DataArray {stat}(\"{dim}\"), {name}, {order} order, {nan}"
        rows.append(make_row(case, x.size, "omit", t["na"], f'da.{stat}("{dim}")', t["ref"],
                             nan_pct=100.0 * float(np.isnan(x).mean()), target=target,
                             shape="x".join(map(str, shape))))
        log(f"moments {case} {shape}: {t['na'] / t['ref']:.2f}x xarray")
    return rows


_NO_NUMBA = """
import json, sys
sys.path.insert(0, {here!r})
import numpy as np
from common import float_data, time_interleaved
import nanaccess as na
from bench_moments import _cancelling, _wide
out = []
for i, n in enumerate({sizes!r}):
    cases = [("normal", float_data(n, 0.0, seed=1)), ("wide-range", _wide(n))]
    if i == 0:  # neighbours without a target, at the first size only
        w = _wide(n)
        w[np.random.default_rng(18).random(n) < 0.01] = np.nan
        cases += [("cancelling", _cancelling(n)),
                  ("float32", float_data(n, 0.0, seed=1).astype(np.float32)),
                  ("1% NaN omit", float_data(n, 1.0, seed=1)), ("wide-range 1% NaN omit", w)]
    for label, x in cases:
        pol = "omit" if "NaN" in label else "raise"
        t = time_interleaved({{"na": lambda: na.sum(x, nan_policy=pol),
                              "ref": lambda: np.sum(x)}}, repeats={repeats})
        out.append((label, n, t["na"], t["ref"]))
print(json.dumps(out))
"""

_FIRST_CALL = """
import time
t0 = time.perf_counter()
import numpy as np
import nanaccess as na
x = np.random.default_rng(0).standard_normal(100_000)
t1 = time.perf_counter()
na.mean(x)
t2 = time.perf_counter()
print(t2 - t1)
"""


def _subprocess_rows(repeats: int, sizes: tuple[int, ...]) -> list[dict[str, Any]]:
    rows = []
    env = dict(os.environ, NANACCESS_NO_NUMBA="1")
    code = _NO_NUMBA.format(here=str(_HERE), sizes=tuple(sizes), repeats=repeats)
    got = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True, cwd=_HERE)
    for label, n, t_na, t_ref in json.loads(got.stdout.strip().splitlines()[-1]):
        dtype = "" if label.startswith(("float32", "1%", "wide-range 1%")) else " float64"
        rows.append(make_row(f"exact sum without numba, {label}{dtype}", n,
                             "omit" if "NaN" in label else "raise", t_na, "np.sum", t_ref,
                             accel=False, nan_pct=1.0 if "NaN" in label else 0.0,
                             target=6.0 if label in ("normal", "wide-range") else None))
        log(f"moments no-numba sum {label} n={n}: {t_na / t_ref:.2f}x np.sum")
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        env.pop("NANACCESS_NO_NUMBA", None)
        for label in ("cold", "warm"):
            secs = []
            for _ in range(1 if label == "cold" else 3):  # warm: best of 3 fresh processes
                got = subprocess.run([sys.executable, "-c", _FIRST_CALL], env=env,
                                     capture_output=True, text=True, check=True)
                secs.append(float(got.stdout.strip().splitlines()[-1]))
            sec = min(secs)
            rows.append(make_row(f"first compiled mean in a fresh process, cache {label}",
                                 100_000, "raise", sec, "target seconds (warm)", 0.3,
                                 target=1.0 if label == "warm" else None))
            log(f"moments first call, cache {label}: {sec:.3f} s")
    return rows


def run(repeats: int = 5, out_dir: Path | str | None = None, name: str = "moments", *,
        quick: bool = False, write: bool = True) -> list[dict[str, Any]]:
    """Time every row of the issue-14 moment targets; return rows, write ``<name>.*``.

    Parameters
    ----------
    repeats : int
        Interleaved repeats (median reported).
    out_dir : path, optional
        Where to write (default ``benchmarks/results``).
    name : str
        Result file stem.
    quick : bool
        Smaller sizes (1e5 instead of 1e6/1e7) for a smoke run.
    write : bool
        Write the result files.

    Returns
    -------
    list of dict
        Result rows (schema in :mod:`common`).
    """
    sizes = (100_000,) if quick else (1_000_000, 10_000_000)
    n_group = 100_000 if quick else 1_000_000
    rows = _ratio_rows(repeats, sizes)
    rows += _host_rows(repeats, quick)
    rows += _hard_rows(repeats, 100_000 if quick else 1_000_000)
    rows += _grid_rows(repeats, quick)
    rows += _grouped_rows(repeats, n_group, (1000, 100_000) if not quick else (1000,))
    rows += _subprocess_rows(repeats, sizes)
    if write:
        from common import write_results

        write_results(name, rows, out_dir)
    return rows


if __name__ == "__main__":
    run(quick="--quick" in sys.argv)
