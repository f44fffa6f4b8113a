""":class:`NanAgg` and the hook of the generated ``nanaccess.agg`` functions."""

from __future__ import annotations

from typing import Any

import pandas as pd

from ..options import resolve_policy

__all__ = ["NanAgg", "make"]


class NanAgg:
    """A statistic with fixed keywords, callable on a Series (what ``.agg`` passes).

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
        return getattr(s.nanstats, self.stat)(**self.kwargs)

    def __repr__(self) -> str:
        kw = ", ".join(f"{k}={v!r}" for k, v in self.kwargs.items())
        return f"nanaccess.agg.{self.stat}({kw})"


def make(stat: str, **kwargs: Any) -> NanAgg:
    """The :class:`NanAgg` of a generated ``nanaccess.agg`` function; a float ``q``
    names it ``q0.9`` so several quantiles can sit side by side."""
    q = kwargs.get("q")
    name = f"q{q:g}" if stat == "quantile" and isinstance(q, int | float) else None
    return NanAgg(stat, name=name, **kwargs)
