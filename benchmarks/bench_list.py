"""The list API: ``na.median(list)`` against :func:`statistics.median`, every kind of list.

Rows (same-run ratios against ``statistics.median`` on the same list):

* ``median of a list of floats`` (n = ``n``), NaN-free under every policy and with
  1 % NaN: target <= 0.5 (with NaN, ``statistics.median``'s answer depends on the
  order of the data, which is the reason nanaccess exists; the time is still the
  fair comparison);
* ``median of a list of <kind>`` for every kind (ints, bools, ``np.float64``,
  ``np.float32``, ``np.int64``, int/float and NumPy/Python mixtures, Decimal,
  Fraction) at every size of ``sizes``, NaN-free (default policy) and, for the
  kinds that hold NaN, with 1 % NaN under "omit": target <= 0.5 from 1e5 values
  (Decimal / Fraction <= 1.0, the issue's 2e4 rows are in ``bench_small``).

Run alone: ``python benchmarks/bench_list.py``.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
from common import float_data, log, make_row, time_interleaved

import nanaccess as na

__all__ = ["run", "KINDS", "list_of"]

TARGET = 0.5
#: element kinds: builder from (normal floats, ints) -> list; whether it holds a NaN
KINDS: dict[str, tuple[Callable[[np.ndarray, np.ndarray], list], bool]] = {
    "ints": (lambda x, i: i.tolist(), False),
    "bools": (lambda x, i: (i > 0).tolist(), False),
    "np.float64": (lambda x, i: list(x), True),
    "np.float32": (lambda x, i: list(x.astype(np.float32)), True),
    "np.int64": (lambda x, i: list(i), False),
    "int/float mixture": (lambda x, i: [v if k % 2 else float(v)
                                        for k, v in enumerate(i.tolist())], True),
    "NumPy/Python float mixture": (lambda x, i: [v if k % 2 else float(v)
                                                 for k, v in enumerate(list(x))], True),
    "Decimal": (lambda x, i: [Decimal(repr(v)) for v in x.tolist()], True),
    "Fraction": (lambda x, i: [Fraction(v) for v in x.tolist()], False),
}
#: the exact kinds are slow to build and to sort: at most this many values
EXACT_MAX = 20_000


def list_of(kind: str, n: int, nan_pct: float = 0.0, seed: int = 7) -> list:
    """A list of ``n`` values of ``kind`` (see :data:`KINDS`), ``nan_pct`` % NaN
    (a NaN of the kind's own type where it has one, else ``float("nan")``)."""
    rng = np.random.default_rng(seed)
    x, ints = rng.normal(size=n), rng.integers(-10**6, 10**6, n)
    vals = KINDS[kind][0](x, ints)
    k = int(round(n * nan_pct / 100))
    if k:
        nan = vals[0] * float("nan") if kind != "Decimal" else Decimal("NaN")
        for i in rng.choice(n, k, replace=False).tolist():
            vals[i] = nan
    return vals


def _float_rows(n: int, repeats: int, nan_pcts: Sequence[float],
                policies: Sequence[str]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for pct in nan_pcts:
        data = float_data(n, pct, seed=7).tolist()
        pols = [p for p in policies if not (p == "raise" and pct)]
        fns: dict[str, Any] = {"statistics.median": lambda d=data: statistics.median(d)}
        for p in pols:
            fns[p] = lambda d=data, p=p: na.median(d, nan_policy=p)
        t = time_interleaved(fns, repeats=repeats)
        for p in pols:
            rows.append(make_row("median of a list of floats", n, p, t[p], "statistics.median",
                                 t["statistics.median"], nan_pct=pct, target=TARGET))
        log(f"list n={n} nan={pct}%: " + ", ".join(
            f"{p}={t[p] / t['statistics.median']:.2f}x" for p in pols))
    return rows


def _kind_rows(sizes: Sequence[int], repeats: int, kinds: Sequence[str]
               ) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for kind in kinds:
        exact = kind in ("Decimal", "Fraction")
        for n in sizes:
            if exact and n > EXACT_MAX:
                continue
            cases = [(0.0, None)] + ([(1.0, "omit")] if KINDS[kind][1] else [])
            for pct, policy in cases:
                data = list_of(kind, n, pct)
                ref = [v for v in data if v == v] if pct else data
                t = time_interleaved(
                    {"na": lambda d=data, p=policy: na.median(d, nan_policy=p),
                     "ref": lambda d=ref: statistics.median(d)},
                    repeats=repeats if n < 1_000_000 else 1)
                target = (1.0 if exact else TARGET) if n >= 20_000 else None
                rows.append(make_row(f"median of a list of {kind}", n, policy or "raise",
                                     t["na"], "statistics.median", t["ref"], nan_pct=pct,
                                     target=target))
                log(f"list {kind} n={n} nan={pct}%: {t['na'] / t['ref']:.2f}x")
    return rows


def run(n: int = 100_000, *, repeats: int = 5, nan_pcts: Sequence[float] = (0, 1),
        policies: Sequence[str] = ("raise", "omit", "propagate", "totalorder"),
        sizes: Sequence[int] = (10, 100, 1000, 100_000, 1_000_000),
        kinds: Sequence[str] = tuple(KINDS), out_dir: Path | str | None = None,
        write: bool = True, name: str = "list") -> list[dict[str, Any]]:
    """Time the list cases; return the rows and write ``<name>.json`` / ``.md``.

    Parameters
    ----------
    n : int
        Length of the float list.
    repeats : int
        Interleaved repeats (median reported; one at 1e6 values).
    nan_pcts : sequence of float
        NaN shares in percent of the float list.
    policies : sequence of str
        nan_policy values to time on the float list ("raise" only on NaN-free data).
    sizes : sequence of int
        Lengths of the lists of every kind (Decimal / Fraction up to
        :data:`EXACT_MAX`).
    kinds : sequence of str
        Names of :data:`KINDS` to time.
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
    rows = _float_rows(n, repeats, nan_pcts, policies) + _kind_rows(sizes, repeats, kinds)
    if write:
        from common import write_results

        write_results(name, rows, out_dir)
    return rows


if __name__ == "__main__":
    run()
