"""``gb.nanstats.nan_report()``: the counts of :func:`nanaccess.nan_report` per group.

Each element is classified once (vectorised on the bits for floats, as
:func:`nanaccess.core.classify.nan_report`), then every count is one ``bincount``
over the group codes: no loop per group. ``distinct_payloads`` counts the distinct
(group, payload) pairs of the NaNs.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, cast

import numpy as np
import pandas as pd

from ..core import REPORT_KEYS, classify_object, float_masks
from .dtypes import Column

__all__ = ["grouped_report"]


def _element_masks(col: Column) -> dict[str, np.ndarray]:
    """Per element: nan, signaling, negative, posinf, neginf, missing (bool) and the
    NaN payload codes (int64, -1 where not NaN)."""
    a = col.values
    n = a.size
    zeros = np.zeros(n, bool)
    miss = zeros.copy() if col.missing is None else np.asarray(col.missing, bool).copy()
    if a.dtype.kind == "f":
        nan, sig, neg, payload = float_masks(a)
        nan, sig, neg = nan & ~miss, sig & ~miss, neg & ~miss
        return {"nan": nan, "signaling": sig, "negative": neg, "posinf": a == np.inf,
                "neginf": a == -np.inf, "missing": miss,
                "payload": np.where(nan, payload, -1)}
    if a.dtype.kind != "O":
        if a.dtype.kind in "mM":
            miss |= np.isnat(a)
        return {"nan": zeros, "signaling": zeros, "negative": zeros, "posinf": zeros,
                "neginf": zeros, "missing": miss, "payload": np.full(n, -1, np.int64)}
    classes = [classify_object(v) for v in a.tolist()]
    cls = np.array([c[0] for c in classes], dtype=object)
    miss |= cls == "missing"
    nan = (cls == "nan") & ~miss
    sig = nan & ~np.array([c[3] for c in classes], dtype=bool)
    neg = nan & np.array([bool(c[1]) for c in classes], dtype=bool)
    codes, _ = pd.factorize(pd.Series([c[2] for c in classes], dtype=object))
    inf = np.array([(1 if v > 0 else -1) if (isinstance(v, float | np.floating) and np.isinf(v))
                    or (isinstance(v, Decimal) and v.is_infinite()) else 0 for v in a.tolist()])
    return {"nan": nan, "signaling": sig, "negative": neg, "posinf": inf == 1,
            "neginf": inf == -1, "missing": miss,
            "payload": np.where(nan, codes, -1).astype(np.int64)}


def grouped_report(col: Column, codes: np.ndarray, ngroups: int) -> dict[str, np.ndarray]:
    """key of :data:`~nanaccess.core.classify.REPORT_KEYS` -> int64 counts per group.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from nanaccess.pandas.dtypes import column_arrays
    >>> col = column_arrays(pd.Series([1.0, np.nan, np.nan, 2.0]))
    >>> r = grouped_report(col, np.array([0, 0, 1, 1]), 2)
    >>> r["nan"].tolist(), r["numbers"].tolist()
    ([1, 1], [1, 1])
    """
    m = _element_masks(col)
    ok = codes >= 0
    c = codes[ok]

    def count(mask: np.ndarray) -> np.ndarray:
        return np.bincount(c, weights=mask[ok], minlength=ngroups).astype(np.int64)

    values = np.bincount(c, minlength=ngroups).astype(np.int64)
    nan, miss = count(m["nan"]), count(m["missing"])
    sig = count(m["signaling"])
    nanrows = ok & m["nan"]
    pairs = np.unique(np.stack([codes[nanrows], m["payload"][nanrows]]), axis=1)
    distinct = np.bincount(pairs[0], minlength=ngroups).astype(np.int64)
    out = {"values": values, "numbers": values - nan - miss, "nan": nan,
           "quiet_nan": nan - sig, "signaling_nan": sig, "negative_nan": count(m["negative"]),
           "distinct_payloads": distinct, "posinf": count(m["posinf"]),
           "neginf": count(m["neginf"]), "missing": miss}
    return {k: out[k] for k in REPORT_KEYS}


def report_frame(parts: dict[Any, dict[str, np.ndarray]], index: pd.Index,
                 series: bool = False) -> pd.DataFrame:
    """One row per group; columns (column, key) as pandas' ``GroupBy.describe`` (the
    keys alone for a SeriesGroupBy)."""
    tables = {name: pd.DataFrame(rep, index=index, dtype=np.int64)
              for name, rep in parts.items()}
    if series:
        return next(iter(tables.values()))
    return cast("pd.DataFrame", pd.concat(tables, axis=1))
