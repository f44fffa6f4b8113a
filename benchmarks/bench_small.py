"""Small data and every kind of list (issue 14, items 2 and 3).

Rows and targets (same-run ratios):

* ``median`` of float64 arrays, n = 10, 100, 1000: <= 1.0x ``np.median``;
* ``mean`` of float64 arrays, n = 10, 100, 1000: <= 3.0x ``np.mean``;
* the same with one NaN under "omit" (against ``np.nanmedian`` / ``np.nanmean``),
  and the median with 1 % and 10 % NaN (at least one, issue 30's NaN counts),
  ``quantile(q=0.3)`` and ``std`` (against ``np.quantile`` / ``np.std``): the
  neighbours of the targets, reported without a target;
* ``median`` of a list of 10 floats: <= 3x ``statistics.median`` (also with one NaN
  under "omit" and "propagate", NaN-free lists of 10 ints / ``np.float64`` /
  ``Decimal``, and lists of 10 ``np.float64`` / ``np.float32`` / ``Decimal`` /
  NumPy-and-Python floats with one NaN under "omit", against ``statistics.median`` of
  the numbers, no target);
* ``median`` of a list of 1e5 ints / ``np.float64`` / ``np.int64`` / ``np.float32``
  scalars: <= 0.5x ``statistics.median``;
* ``median`` of 2e4 ``Decimal`` or ``Fraction``: <= 1.0x ``statistics.median``.

Every kind of list at every size is in :mod:`bench_list`.
Run alone: ``python benchmarks/bench_small.py``.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
from common import log, make_row, time_interleaved

import nanaccess as na

__all__ = ["run"]

#: (case, ours, reference name, reference, target, NaN under "omit")
_ARRAY_CASES: list[tuple[str, Callable, str, Callable, float | None, bool]] = [
    ("median of a float64 array", na.median, "np.median", np.median, 1.0, False),
    ("mean of a float64 array", na.mean, "np.mean", np.mean, 3.0, False),
    ("median of a float64 array", lambda x: na.median(x, nan_policy="omit"), "np.nanmedian",
     np.nanmedian, None, True),
    ("mean of a float64 array", lambda x: na.mean(x, nan_policy="omit"), "np.nanmean",
     np.nanmean, None, True),
    ("quantile(0.3) of a float64 array", lambda x: na.quantile(x, 0.3), "np.quantile",
     lambda x: np.quantile(x, 0.3), None, False),
    ("std of a float64 array", na.std, "np.std", np.std, None, False),
    ("std of a float64 array", lambda x: na.std(x, nan_policy="omit"), "np.nanstd",
     np.nanstd, None, True),
]


def _lists(n_list: int, n_exact: int) -> list[tuple[str, list, float]]:
    rng = np.random.default_rng(7)
    x = rng.normal(size=n_list)
    ints = rng.integers(-10**6, 10**6, n_list)
    exact = rng.normal(size=n_exact)
    return [
        ("list of 10 floats", rng.normal(size=10).tolist(), 3.0),
        ("list of ints", ints.tolist(), 0.5),
        ("list of np.float64", list(x), 0.5),
        ("list of np.int64", list(ints), 0.5),
        ("list of np.float32", list(x.astype(np.float32)), 0.5),
        ("list of Decimal", [Decimal(str(v)) for v in exact], 1.0),
        ("list of Fraction", [Fraction(v) for v in exact], 1.0),
    ]


def _array_rows(sizes: tuple[int, ...], repeats: int) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    rng = np.random.default_rng(3)
    for n in sizes:
        x = rng.normal(size=n)
        xn = x.copy()
        xn[n // 3] = np.nan
        for case, ours, ref, theirs, target, with_nan in _ARRAY_CASES:
            d = xn if with_nan else x
            t = time_interleaved({"na": lambda f=ours, d=d: f(d),
                                  "ref": lambda f=theirs, d=d: f(d)}, repeats=repeats)
            rows.append(make_row(case, n, "omit" if with_nan else "raise", t["na"], ref,
                                 t["ref"], nan_pct=100.0 / n if with_nan else 0.0,
                                 target=target))
            log(f"small {case} n={n}{' NaN omit' if with_nan else ''}: "
                f"{t['na'] / t['ref']:.2f}x {ref}")
        for k in sorted({max(1, n // 100), max(1, n // 10)} - {1}):  # 1 NaN: above
            xk = x.copy()
            xk[rng.choice(n, k, replace=False)] = np.nan
            t = time_interleaved({"na": lambda d=xk: na.median(d, nan_policy="omit"),
                                  "ref": lambda d=xk: np.nanmedian(d)}, repeats=repeats)
            rows.append(make_row("median of a float64 array", n, "omit", t["na"],
                                 "np.nanmedian", t["ref"], nan_pct=100.0 * k / n))
            log(f"small median of a float64 array n={n} {k} NaN omit: "
                f"{t['na'] / t['ref']:.2f}x np.nanmedian")
    return rows


#: short lists of other kinds holding one NaN ("omit"): (case, element builder)
_NAN_KINDS: list[tuple[str, Callable[[float], Any]]] = [
    ("list of 10 np.float64", np.float64),
    ("list of 10 Decimal", lambda v: Decimal(repr(v))),
    ("list of 10 NumPy/Python floats", float),  # every other element made np.float64
    ("list of 10 np.float32", np.float32),
]


def _short_nan_rows(repeats: int) -> list[dict[str, Any]]:
    """A list of 10 floats holding one NaN: the policy acts (omit, propagate); then
    lists of 10 other kinds holding one NaN under "omit"."""
    rows: list[dict[str, Any]] = []
    vals = np.random.default_rng(5).normal(size=10).tolist()
    numbers = vals[:9]
    vals[4], vals[9] = float("nan"), vals[4]
    for policy in ("omit", "propagate"):
        t = time_interleaved({"na": lambda p=policy: na.median(vals, nan_policy=p),
                              "ref": lambda: statistics.median(numbers)}, repeats=repeats)
        rows.append(make_row("median of a list of 10 floats", 10, policy, t["na"],
                             "statistics.median", t["ref"], nan_pct=10.0))
        log(f"small median of a list of 10 floats, one NaN, {policy}: "
            f"{t['na'] / t['ref']:.2f}x")
    for case, make in _NAN_KINDS:
        kind = [make(v) if k % 2 or make is not float else np.float64(v)
                for k, v in enumerate(vals)]
        kind[4] = Decimal("NaN") if isinstance(kind[0], Decimal) else type(kind[0])("nan")
        nums = [v for v in kind if v == v]
        t = time_interleaved({"na": lambda d=kind: na.median(d, nan_policy="omit"),
                              "ref": lambda d=nums: statistics.median(d)}, repeats=repeats)
        rows.append(make_row(f"median of a {case}", 10, "omit", t["na"], "statistics.median",
                             t["ref"], nan_pct=10.0))
        log(f"small median of a {case}, one NaN, omit: {t['na'] / t['ref']:.2f}x")
    for case, make in _SHORT_KINDS:  # NaN-free lists of 10 of other kinds (neighbours)
        kind = [make(v) for v in numbers + [0.5]]
        t = time_interleaved({"na": lambda d=kind: na.median(d),
                              "ref": lambda d=kind: statistics.median(d)}, repeats=repeats)
        rows.append(make_row(f"median of a {case}", 10, "raise", t["na"], "statistics.median",
                             t["ref"]))
        log(f"small median of a {case}: {t['na'] / t['ref']:.2f}x")
    return rows


#: NaN-free short lists of other kinds: (case, element builder)
_SHORT_KINDS: list[tuple[str, Callable[[float], Any]]] = [
    ("list of 10 ints", lambda v: int(v * 1000)),
    ("list of 10 np.float64", np.float64),
    ("list of 10 Decimal", lambda v: Decimal(repr(v))),
]


def run(sizes: tuple[int, ...] = (10, 100, 1000), *, n_list: int = 100_000,
        n_exact: int = 20_000, repeats: int = 5, out_dir: Path | str | None = None,
        write: bool = True, name: str = "small") -> list[dict[str, Any]]:
    """Time the small-array and list cases; return rows and write ``<name>.json`` / ``.md``.

    Parameters
    ----------
    sizes : tuple of int
        Array lengths.
    n_list : int
        Length of the int / NumPy scalar lists.
    n_exact : int
        Length of the Decimal / Fraction lists.
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
    rows = _array_rows(sizes, repeats)
    for case, data, target in _lists(n_list, n_exact):
        t = time_interleaved({"na": lambda d=data: na.median(d),
                              "ref": lambda d=data: statistics.median(d)}, repeats=repeats)
        rows.append(make_row(f"median of a {case}", len(data), "raise", t["na"],
                             "statistics.median", t["ref"], target=target))
        log(f"small median of a {case} n={len(data)}: {t['na'] / t['ref']:.2f}x")
    rows += _short_nan_rows(repeats)
    if write:
        from common import write_results

        write_results(name, rows, out_dir)
    return rows


if __name__ == "__main__":
    run()
