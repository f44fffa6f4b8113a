"""The certified moving-window shortcut for two host columns, after the policy's
errors (pandas' ``rolling(...).nanstats.corr/cov``): the columns' checks of
:mod:`.pairwise` in front of :func:`.certified.window_shortcut`."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..policy import RULES
from .certified import window_shortcut
from .pairwise import column_of, raise_for_columns

__all__ = ["checked_window_shortcut"]


def checked_window_shortcut(xv: np.ndarray, yv: np.ndarray, xm: Any, ym: Any, start: np.ndarray,
                            end: np.ndarray, stat: str, ddof: int, min_periods: int,
                            policy: Any, subjects: Any, loc: Any) -> Any:
    """:func:`window_shortcut` of two host columns (values ``xv``/``yv``, missing
    masks ``xm``/``ym``) where it serves: float-exact columns, and under a policy that
    keeps NaNs, columns without any; the policy's errors raised first (``subjects``
    and ``loc`` name them). None where it does not serve."""
    cx, cy = column_of(xv, xm), column_of(yv, ym)
    if not (cx.exact_float and cy.exact_float):
        return None
    bad = [m for c in (cx, cy) for m in (c.nan, c.missing) if m is not None]
    if bad and not RULES[policy].removes:
        return None
    raise_for_columns([cx, cy], [0, 1], policy, subjects, lambda flat: loc((flat,)))
    ok = np.ones(xv.size, bool)
    for m in bad:
        ok &= ~m
    return window_shortcut(xv.astype(np.float64, copy=False), yv.astype(np.float64, copy=False),
                           ok, start, end, stat=stat, ddof=ddof, min_periods=min_periods)
