"""skew, kurt, sem and prod of NaN-free values per cell (a row or a group).

The policy is the caller's job (:mod:`.stat` for rows, :mod:`.grouped` for groups);
here every value given counts. Values arrive flat with the cell of each, so rows and
groups share one vectorised engine (no loop per row or group before the O(1) final
rounding of each cell).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .certified import CERTIFIED, certified_groups, certified_rows
from .finish import kurt_values, sem_values, skew_values
from .powers import SCALE, power_sums
from .product import group_products, row_products

__all__ = ["HIGHER", "KMAX", "cell_values", "cell_sums", "finish_cells", "check_params",
           "big_ints"]

#: the statistics of this engine, with their parameters and defaults
HIGHER: dict[str, dict[str, Any]] = {
    "skew": {"bias": False}, "kurt": {"bias": False, "fisher": True}, "sem": {"ddof": 1},
    "prod": {}}
_EXACT_INT = 2 ** 53
#: the highest power sum each statistic needs
KMAX = {"sem": 2, "skew": 3, "kurt": 4}


def check_params(stat: str, params: dict[str, Any]) -> dict[str, Any]:
    """The statistic's parameters with defaults, checked."""
    unknown = set(params) - set(HIGHER[stat])
    if unknown:
        raise TypeError(f"{stat}() got unexpected keyword(s) {sorted(unknown)}")
    out = {**HIGHER[stat], **params}
    for b in ("bias", "fisher"):
        if b in out and not isinstance(out[b], (bool, np.bool_)):
            raise TypeError(f"{b} must be True or False, got {out[b]!r}")
    if "ddof" in out:
        d = out["ddof"]
        if isinstance(d, (bool, np.bool_)) or not isinstance(d, (int, float, np.number)) \
                or not math.isfinite(float(d)):
            raise TypeError(f"ddof must be a finite number, got {d!r}")
    return out


def _int_sums(vals: np.ndarray, gid: np.ndarray, ncells: int, kmax: int) -> list[np.ndarray]:
    """Power sums of integers beyond 2**53 (Python ints, scaled as the float ones)."""
    obj = vals.astype(object)
    out = []
    for k in range(1, kmax + 1):
        t = np.zeros(ncells, dtype=object)
        np.add.at(t, gid, obj ** k)
        out.append(t * (1 << (k * SCALE)))
    return out


def _int_products(vals: np.ndarray, gid: np.ndarray, ncells: int) -> np.ndarray:
    t = np.ones(ncells, dtype=object)
    np.multiply.at(t, gid, vals.astype(object))
    out = np.empty(ncells, np.float64)
    for i, v in enumerate(t.tolist()):
        try:
            out[i] = float(v)
        except OverflowError:
            out[i] = math.copysign(math.inf, v)
    return out


def cell_values(vals: np.ndarray, gid: np.ndarray, ncells: int, stat: str,
                params: dict[str, Any], rows: np.ndarray | None = None,
                rows_keep: np.ndarray | None = None, certify: bool = True) -> np.ndarray:
    """float64 ``stat`` of each cell of ``vals`` (1-D, NaN-free, ``gid`` its cells).

    ``rows`` (``(ncells, n)``, with ``rows_keep`` its selection or None) may replace
    ``vals``/``gid`` for whole rows, which lets the compiled kernel take them.
    ``certify``: skew, kurt and sem try the certified front pass (:mod:`.certified`)
    first; False forces the exact power sums (the reference). A ``gid`` of -1 leaves
    its value out (the certified kernel reads the full array, skipping those).

    Examples
    --------
    >>> cell_values(np.array([1.0, 2.0, 4.0, 8.0]), np.zeros(4, np.int64), 1, "skew",
    ...             {"bias": False})
    array([1.13762437])
    """
    p = check_params(stat, params)
    if rows is not None and rows.dtype.kind in "iub" and not big_ints(rows):
        # every integer an exact double: the float rows (a zero product stays +0.0,
        # integers having no signed zero)
        out = cell_values(None, None, ncells, stat, params, rows=rows.astype(np.float64),
                          rows_keep=rows_keep, certify=certify)
        return np.where(out == 0, 0.0, out) if stat == "prod" else out
    if rows is not None and rows.dtype.kind == "f":
        # whole rows: excluded values become the operation's identity (0 adds
        # nothing to a power sum, 1 nothing to a product), so the rows stay
        # rectangular and the compiled kernel can take them
        rows = rows.astype(np.float64, copy=False)
        if stat == "prod":
            return row_products(rows, rows_keep)
        got = certified_rows(rows, rows_keep, stat, p) if certify else None
        if got is not None:
            out, ok = got
            if not ok.all():  # the cells the bound leaves open: exact power sums
                redo = np.flatnonzero(~ok)
                out[redo] = cell_values(None, None, redo.size, stat, params, rows=rows[redo],
                                        rows_keep=None if rows_keep is None
                                        else rows_keep[redo], certify=False)
            return out
        counts = np.full(ncells, rows.shape[1], np.int64) if rows_keep is None \
            else np.count_nonzero(rows_keep, axis=1).astype(np.int64)
        if rows_keep is not None:
            rows = np.where(rows_keep, rows, 0.0)
        _, t, bad = cell_sums(rows.reshape(-1), None, ncells, KMAX[stat], rows, False)
        return finish_cells(stat, counts, t, bad, p)
    if rows is not None:
        vals = rows.reshape(-1) if rows_keep is None else rows[rows_keep]
        gid = np.repeat(np.arange(ncells, dtype=np.int64), rows.shape[1])
        if rows_keep is not None:
            gid = gid[rows_keep.reshape(-1)]
    vals = np.asarray(vals)
    gid = np.asarray(gid, np.int64)
    if gid.size and gid.min() < 0:  # cell -1: left out (read by the certified kernel)
        if not (certify and stat in CERTIFIED and vals.dtype.kind == "f"):
            taken = gid >= 0
            vals, gid = vals[taken], gid[taken]
        else:
            got = certified_groups(vals, gid, ncells, stat, p)
            if got is None:
                taken = gid >= 0
                return cell_values(vals[taken], gid[taken], ncells, stat, params)
            return _redo_cells(vals, gid, stat, params, *got)
    big_int = big_ints(vals)
    if stat == "prod":
        if big_int:
            return _int_products(vals, gid, ncells)
        out = group_products(vals.astype(np.float64), gid, ncells)
        # integers have no signed zero: a zero product of ints is +0.0
        return np.where(out == 0, 0.0, out) if vals.dtype.kind in "iub" else out
    got = certified_groups(vals, gid, ncells, stat, p) if certify and not big_int else None
    if got is not None:
        return _redo_cells(vals, gid, stat, params, *got)
    counts, t, bad = cell_sums(vals, gid, ncells, KMAX[stat], None, big_int)
    return finish_cells(stat, counts, t, bad, p)


def big_ints(v: np.ndarray) -> bool:
    """Integers beyond ``2**53`` in magnitude (not all exact doubles)?"""
    if v.dtype.kind not in "iu" or not v.size:
        return False
    return int(v.max()) > _EXACT_INT or (v.dtype.kind == "i" and int(v.min()) < -_EXACT_INT)


def _redo_cells(vals: np.ndarray, gid: np.ndarray, stat: str, params: dict[str, Any],
                out: np.ndarray, ok: np.ndarray) -> np.ndarray:
    """``out`` with the cells the certified bound left open (``ok`` False) from the
    exact power sums."""
    if not ok.all():
        redo = np.flatnonzero(~ok)
        sel = np.isin(gid, redo)
        out[redo] = cell_values(vals[sel], np.searchsorted(redo, gid[sel]), redo.size,
                                stat, params, certify=False)
    return out


def cell_sums(vals: np.ndarray, gid: np.ndarray, ncells: int, kmax: int,
              rows: np.ndarray | None = None, big_int: bool | None = None) -> Any:
    """``(counts, [T_1..T_kmax], bad)`` per cell: mergeable exact partials (the ints
    add across chunks); ``bad`` marks cells holding an infinity."""
    if big_int is None:
        big_int = big_ints(vals)
    counts = None if gid is None else np.bincount(gid, minlength=ncells).astype(np.int64)
    if big_int:
        return counts, _int_sums(vals, gid, ncells, kmax), np.zeros(ncells, bool)
    v = vals.astype(np.float64)
    inf = np.isinf(v)
    bad = np.zeros(ncells, bool)
    if inf.any():  # an infinity makes every moment of its cell NaN
        cells = np.repeat(np.arange(ncells), rows.shape[1]) if gid is None else gid
        bad[cells[inf]] = True
        v = np.where(inf, 0.0, v)
    if rows is not None:
        return counts, power_sums(None, None, ncells, kmax, rows=v.reshape(rows.shape)), bad
    return counts, power_sums(v, gid, ncells, kmax), bad


def finish_cells(stat: str, counts: np.ndarray, t: list[Any], bad: np.ndarray,
                 p: dict[Any, Any]) -> np.ndarray:
    """The statistic of each cell from its exact partials (rounded once)."""
    if stat == "skew":
        out = skew_values(counts, t, bool(p["bias"]))
    elif stat == "kurt":
        out = kurt_values(counts, t, bool(p["bias"]), bool(p["fisher"]))
    else:
        out = sem_values(counts, t, float(p["ddof"]))
    out[bad] = np.nan
    return out
