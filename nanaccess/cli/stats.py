"""Statistics of ``nanaccess describe``: one record per column x policy x statistic.

Ungrouped, each statistic is one call of the public function. Grouped, each
(policy, statistic) is one call of the pandas GroupBy accessor over all groups (no Python
loop per group); the groups a policy refuses are known beforehand from the per-group
counts and ``core.policy.rules`` and get their error once per (group, policy).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .. import _stats
from .._labels import fmt_label, relabel
from .output import COUNT_NAMES, value_fields

__all__ = ["SIMPLE_STATS", "quantile_of", "count_records", "stat_records", "grouped_records"]

# every statistic of the table that needs no argument (qNN covers quantiles); arg
# statistics are positions, not summaries of a column
SIMPLE_STATS = tuple(
    st.name for st in _stats.STATISTICS.values()
    if st.family != "arg" and not any(p.required for p in st.params)
)


def quantile_of(stat: str) -> float | None:
    """``q90`` -> 0.9: qNN is the NN-th *percentile* (``q0.5`` is the 0.005 quantile).

    Examples
    --------
    >>> quantile_of("q90"), quantile_of("q0.5"), quantile_of("q101"), quantile_of("qx")
    (0.9, 0.005, None, None)
    """
    try:
        q = float(stat[1:]) / 100
    except ValueError:
        return None
    return q if 0 <= q <= 1 else None


def _call(stat: str) -> tuple[str, tuple[Any, ...], dict[Any, Any]]:
    """(function name, positional args, keywords) of a statistic, with the table's
    pandas defaults (ddof=1: sample statistics, as pandas' describe)."""
    if stat.startswith("q") and stat not in SIMPLE_STATS:
        return "quantile", (quantile_of(stat),), {}
    params = {p.name: p.pandas_default for p in _stats.get(stat).params
              if p.pandas_default is not None}
    return stat, (), params


@dataclass
class Cell:
    value: Any = None
    error: BaseException | None = None

def _where(s: pd.Series, noun: str) -> Any:
    """err.position (into ``s``) -> the label text of that value."""

    def location(position: Any) -> str | None:
        if not isinstance(position, tuple) or len(position) != 1:
            return None
        label = s.index[int(position[0])]
        if noun == "column":
            return f"row {label}"
        names = list(s.index.names)
        values = label if isinstance(s.index, pd.MultiIndex) else (label,)
        return ", ".join(f"{n}={fmt_label(v)}" for n, v in zip(names, values, strict=True))

    return location


def _compute(stat: str, s: pd.Series, policy: str, noun: str = "column",
             group: Any = None) -> Cell:
    import nanaccess as na

    from ..errors import NaNError

    try:
        if stat in _stats.COUNTS:
            report = na.nan_report(s)
            return Cell(int(report["numbers"]))
        fn, args, params = _call(stat)
        value = getattr(na, fn)(s, *args, nan_policy=policy, **params)
    except NaNError as err:
        # restated with the file's words: column / variable, row / dims labels, group
        err = relabel(err, f"{noun} {s.name!r}", _where(s, noun), group=group)
        return Cell(error=err)
    return Cell(value)


def count_records(s: pd.Series, name: str, lead: dict[Any, Any]) -> list[dict[Any, Any]]:
    import nanaccess as na

    report = na.nan_report(s)
    return [
        {**lead, "column": name, "policy": None, "statistic": tidy_name,
         "value": int(report[k]), "text": str(int(report[k])), "error": None}
        for k, tidy_name in COUNT_NAMES.items()
    ]


def stat_records(s: pd.Series, name: str, lead: dict[Any, Any], policies: list[str],
                  stats: Sequence[str], noun: str, group: Any,
                  errors: list[BaseException]) -> list[dict[Any, Any]]:
    rows = []
    for p in policies:
        for stat in stats:
            cell = _compute(stat, s, p, noun, group)
            rows.append(_record(lead, name, p, stat, cell, errors))
    return rows


def _record(lead: dict[Any, Any], name: str, policy: str, stat: str, cell: Cell,
            errors: list[BaseException]) -> dict[Any, Any]:
    if cell.error is not None:
        errors.append(cell.error)
        value, text = None, ""
        error: str | None = f"{type(cell.error).__name__}: {cell.error}"
    else:
        (value, text), error = value_fields(cell.value), None
    return {**lead, "column": name, "policy": policy, "statistic": stat,
            "value": value, "text": text, "error": error}


def _group_label(key: Any) -> Any:
    if isinstance(key, tuple) and len(key) == 1:
        key = key[0]
    if isinstance(key, np.generic):
        key = key.item()
    if key is None or key is pd.NA or key is pd.NaT or (isinstance(key, float) and key != key):
        return "<NA>"
    if isinstance(key, pd.Timestamp | np.datetime64):
        return fmt_label(key).strip("'")
    return key


def _refuses(report: pd.DataFrame, policy: str) -> np.ndarray:
    """Per group: does ``policy`` refuse its values (the order of ``raise_for``)."""
    from ..core.policy import rules

    out = np.zeros(len(report), dtype=bool)
    for kind in rules(policy).refused:
        out |= report[_REPORT_KEY[kind]].to_numpy() > 0
    return out


#: ``nan_report`` key of each kind a policy may refuse
_REPORT_KEY = {"signaling": "signaling_nan", "nan": "nan", "missing": "missing"}


def grouped_records(s: pd.Series, keys: Any, name: str, by: str, policies: list[str],
                    stats: Sequence[str], noun: str, errors: list[BaseException]
                    ) -> tuple[list[dict[Any, Any]], list[dict[Any, Any]]]:
    """(count records, statistic records) of ``s`` per group of ``keys``."""
    key_arr = np.asarray(keys)
    g = s.groupby(key_arr, sort=True, dropna=False)
    report = g.nanstats.nan_report()
    codes = g.ngroup().to_numpy()  # row -> position of its group in ``report``
    labels = [_group_label(k) for k in report.index]
    counts = [
        {by: label, "column": name, "policy": None, "statistic": tidy_name,
         "value": int(n), "text": str(int(n)), "error": None}
        for k, tidy_name in COUNT_NAMES.items()
        for label, n in zip(labels, report[k].to_numpy().tolist(), strict=True)
    ]
    rows: list[dict[Any, Any]] = []
    for p in policies:
        refused = _refuses(report, p)
        # the error path: one error per refusing group, shared by its statistics
        refusal = {int(i): _compute("min", s[codes == i], p, noun, labels[i])
                   for i in np.flatnonzero(refused)}
        keep = ~refused[codes]
        kept, kept_keys = (s, key_arr) if keep.all() else (s[keep], key_arr[keep])
        for stat in stats:
            if stat in _stats.COUNTS:
                values = [Cell(int(v)) for v in report["numbers"].to_numpy().tolist()]
            else:
                values = _grouped_values(kept, kept_keys, codes[keep], refused, stat, p,
                                         noun, labels)
            for i, label in enumerate(labels):
                cell = values[i] if stat in _stats.COUNTS else refusal.get(i) or values[i]
                rows.append(_record({by: label}, name, p, stat, cell, errors))
    return counts, rows


def _grouped_values(kept: pd.Series, keys: np.ndarray, codes: np.ndarray,
                    refused: np.ndarray, stat: str, policy: str, noun: str,
                    labels: list[Any]) -> list[Cell]:
    """One accessor call over the rows of the groups ``policy`` accepts."""
    cells = [Cell() for _ in labels]
    ok = np.flatnonzero(~refused)
    if not len(ok):
        return cells
    fn, args, params = _call(stat)
    try:
        grouped = kept.groupby(keys, sort=True, dropna=False).nanstats
        result = getattr(grouped, fn)(*args, nan_policy=policy, **params)
        if len(result) != len(ok):
            raise ValueError("groups changed")
    except Exception:  # noqa: BLE001 - anything unexpected: group by group, as ungrouped
        for i in ok:
            cells[i] = _compute(stat, kept[codes == i], policy, noun, labels[i])
        return cells
    for i, v in zip(ok, result.array, strict=True):
        cells[i] = Cell(v)
    return cells
