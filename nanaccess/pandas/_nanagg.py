""":class:`NanAgg` and the hook of the generated ``nanaccess.agg`` functions."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from .. import _stats
from ..options import resolve_policy

__all__ = ["NanAgg", "make"]


class NanAgg:
    """A statistic with fixed keywords, callable on a Series (what ``.agg`` passes).

    Made by ``nanaccess.agg.<stat>(**kwargs)``; pandas' ``.agg`` shows its
    ``__name__`` as the result's label.

    Parameters
    ----------
    stat : str
        The statistic (a name of the table of statistics).
    name : str, optional
        The label pandas shows; default ``stat``.
    **kwargs
        The statistic's keywords (``nan_policy``, ``q``, ``ddof``, ``weights``...),
        checked early where they can be (an unknown ``nan_policy`` fails here).

    Examples
    --------
    >>> import numpy as np, pandas as pd, nanaccess as na
    >>> f = na.agg.mean(nan_policy="omit")
    >>> f.__name__, f(pd.Series([1.0, np.nan, 2.0]))
    ('mean', np.float64(1.5))
    """

    def __init__(self, stat: str, name: str | None = None, **kwargs: Any) -> None:
        if kwargs.get("nan_policy") is not None:
            resolve_policy(kwargs["nan_policy"])  # unknown policies fail early
        self.stat = stat
        self.kwargs = kwargs
        self.__name__ = name or stat
        self.__qualname__ = self.__name__

    def __call__(self, s: pd.Series | Any) -> Any:
        if not isinstance(s, pd.Series):
            s = pd.Series(s)
        kwargs = self.kwargs
        w = kwargs.get("weights")
        if w is not None:
            kwargs = {**kwargs, "weights": _group_weights(w, s)}
        return getattr(s.nanstats, self.stat)(**kwargs)

    def __repr__(self) -> str:
        kw = ", ".join(f"{k}={v!r}" for k, v in self.kwargs.items())
        return f"nanaccess.agg.{self.stat}({kw})"


def _group_weights(w: Any, s: pd.Series) -> Any:
    """The weights of the rows pandas' ``.agg`` hands over (one group of one column):
    a Series of weights is looked up by ``s``'s labels; a column label cannot be read
    from one column (TypeError saying where it can)."""
    if isinstance(w, pd.Series):
        if w.index.equals(s.index) or not w.index.is_unique:
            return w  # equal, or the Series accessor names what does not match
        lacking = s.index.difference(w.index, sort=False)
        return w if len(lacking) else w.reindex(s.index)
    if np.ndim(w) == 0:
        raise TypeError(
            f"weights={w!r} names a column, which pandas' .agg cannot hand to a callable "
            "of one column: pass weights=df[...] (a Series), or use "
            "df.groupby(...).nanstats.agg(...) where a column label works")
    return w


def make(stat: str, **kwargs: Any) -> NanAgg:
    """The :class:`NanAgg` of a generated ``nanaccess.agg`` function; a float ``q``
    names it ``q0.9`` so several quantiles can sit side by side."""
    q = kwargs.get("q")
    name = f"q{q:g}" if stat in _stats.QUANTILES and isinstance(q, int | float) else None
    return NanAgg(stat, name=name, **kwargs)
