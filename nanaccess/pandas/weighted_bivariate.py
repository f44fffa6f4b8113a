"""``weights=`` on ``df.nanstats.cov / corr`` and ``s.nanstats.cov / corr`` (issue 24).

Row weights as the weighted moments take them (:func:`.weighted.resolve_weights`: an
array, a Series aligned on the index, or a column label of the DataFrame, left out
of the result); the numbers from :func:`nanaccess.core.bivariate.weighted_pairs`
(exact weighted sums, one rounding). Pearson only: Spearman and Kendall with weights
raise ``NotImplementedError`` (weighted ranks have no agreed definition).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .._labels import IndexLocation, relabel, relabel_weights
from ..core.bivariate import all_pairs, weighted_pairs
from ..errors import NaNError, TotalWeightError, WeightsValueError
from .columns import subject_of
from .dtypes import Column
from .weighted import Weights, resolve_weights

__all__ = ["weighted_matrix", "weighted_pair", "check_method"]


def check_method(method: str, weights: Any) -> None:
    """Weights with a rank correlation: NotImplementedError."""
    if weights is not None and method != "pearson":
        raise NotImplementedError(
            f"weights= is available for method='pearson' and cov; a weighted {method} "
            "correlation (weighted ranks) is not implemented")


def _run(cols: Sequence[Column], names: Sequence[Hashable], index: pd.Index,
         pairs: np.ndarray, w: Weights, *, series: bool, stat: str, **kw: Any) -> Any:
    loc = IndexLocation(index)
    subjects = [subject_of(n, series=series) for n in names]
    rel = [(lambda err, s=s: relabel(err, s, loc)) for s in subjects]
    try:
        return weighted_pairs([c.values for c in cols], pairs, w.values, stat=stat,
                              missing=[c.missing for c in cols], weights_missing=w.missing,
                              relabel=rel, **kw)
    except TotalWeightError as err:
        i, j = err.cell
        who = subjects[i] if i == j else f"{subjects[i]} and {subjects[j]}"
        raise err.relabel(who) from None
    except (WeightsValueError, NaNError) as err:
        if isinstance(err, WeightsValueError) or err.subject == "weights":
            raise relabel_weights(err, w.subject, loc) from None
        raise


def weighted_matrix(df: pd.DataFrame, names: list[Hashable], cols: list[Column],
                    weights: Any, stat: str, **kw: Any) -> tuple[list[Any], list[Any], np.ndarray,
                                                                 np.ndarray | None, np.ndarray]:
    """``(names, cols, values, missing, pairs)`` of the weighted matrix of ``df``'s
    numeric columns (a weights column named by label left out)."""
    w = resolve_weights(weights, df.index, df)
    if w.by_label:
        keep = [i for i, n in enumerate(names) if not (n == w.label)]
        names, cols = [names[i] for i in keep], [cols[i] for i in keep]
    pairs = all_pairs(len(cols))
    vals, miss, _count = _run(cols, names, df.index, pairs, w, series=False, stat=stat, **kw)
    return names, cols, vals, miss, pairs


def weighted_pair(left: pd.Series, a: Column, b: Column, names: list[Hashable],
                  weights: Any, stat: str, **kw: Any) -> tuple[float, bool]:
    """``(value, missing)`` of the weighted statistic of two aligned columns."""
    w = resolve_weights(weights, left.index)
    vals, miss, _count = _run([a, b], names, left.index, np.array([[0, 1]]), w, series=True,
                              stat=stat, **kw)
    return float(vals[0]), bool(miss is not None and miss[0])
