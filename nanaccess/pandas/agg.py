"""Named callables for pandas' ``.agg``: ``df.groupby(k).agg(nanaccess.agg.median(...))``.

Each function returns a callable whose ``__name__`` is the statistic, so pandas
labels the result columns "median", "quantile", ... as with its own names. pandas
calls an ``.agg`` callable once per group and column (its Python path), so for
speed prefer ``df.groupby(k).nanstats.median(...)``, which is vectorised.

Examples
--------
>>> import numpy as np, pandas as pd, nanaccess as na
>>> df = pd.DataFrame({"g": list("aabb"), "x": [1.0, np.nan, 3.0, 5.0]})
>>> df.groupby("g").agg(na.agg.median(nan_policy="omit"))
     x
g
a  1.0
b  4.0
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd

from ..options import resolve_policy

__all__ = [
    "NanAgg",
    "median",
    "median_low",
    "median_high",
    "quantile",
    "min",
    "max",
    "mean",
    "var",
    "std",
    "sum",
]


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
        if "nan_policy" in kwargs and kwargs["nan_policy"] is not None:
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


def median(*, nan_policy: str | None = None) -> NanAgg:
    """Median for ``.agg``.

    Examples
    --------
    >>> import numpy as np, pandas as pd, nanaccess as na
    >>> pd.Series([1.0, np.nan, 3.0]).agg(na.agg.median(nan_policy="omit"))
    np.float64(2.0)
    """
    return NanAgg("median", nan_policy=nan_policy)


def median_low(*, nan_policy: str | None = None) -> NanAgg:
    """Low median for ``.agg``.

    Examples
    --------
    >>> import pandas as pd, nanaccess as na
    >>> na.agg.median_low()(pd.Series([1, 2, 3, 4]))
    np.int64(2)
    """
    return NanAgg("median_low", nan_policy=nan_policy)


def median_high(*, nan_policy: str | None = None) -> NanAgg:
    """High median for ``.agg``.

    Examples
    --------
    >>> import pandas as pd, nanaccess as na
    >>> na.agg.median_high()(pd.Series([1, 2, 3, 4]))
    np.int64(3)
    """
    return NanAgg("median_high", nan_policy=nan_policy)


def quantile(
    q: float | Sequence[float] = 0.5, *, method: str = "linear", nan_policy: str | None = None
) -> NanAgg:
    """Quantile for ``.agg`` (named ``q0.9`` style, so several can sit side by side).

    Examples
    --------
    >>> import numpy as np, pandas as pd, nanaccess as na
    >>> f = na.agg.quantile(0.9, nan_policy="omit")
    >>> f.__name__, float(f(pd.Series([0.0, np.nan, 10.0])))
    ('q0.9', 9.0)
    """
    name = f"q{q:g}" if isinstance(q, int | float) else "quantile"
    return NanAgg("quantile", name=name, q=q, method=method, nan_policy=nan_policy)


def min(*, nan_policy: str | None = None) -> NanAgg:  # noqa: A001
    """Minimum for ``.agg``.

    Examples
    --------
    >>> import numpy as np, pandas as pd, nanaccess as na
    >>> na.agg.min(nan_policy="omit")(pd.Series([2.0, np.nan, 1.0]))
    np.float64(1.0)
    """
    return NanAgg("min", nan_policy=nan_policy)


def max(*, nan_policy: str | None = None) -> NanAgg:  # noqa: A001
    """Maximum for ``.agg``.

    Examples
    --------
    >>> import numpy as np, pandas as pd, nanaccess as na
    >>> na.agg.max(nan_policy="omit")(pd.Series([2.0, np.nan, 1.0]))
    np.float64(2.0)
    """
    return NanAgg("max", nan_policy=nan_policy)


def mean(*, nan_policy: str | None = None) -> NanAgg:
    """Mean for ``.agg``.

    Examples
    --------
    >>> import numpy as np, pandas as pd, nanaccess as na
    >>> na.agg.mean(nan_policy="omit")(pd.Series([2.0, np.nan, 1.0]))
    np.float64(1.5)
    """
    return NanAgg("mean", nan_policy=nan_policy)


def var(*, ddof: float = 1, nan_policy: str | None = None) -> NanAgg:
    """Variance for ``.agg`` (``ddof=1`` as pandas).

    Examples
    --------
    >>> import numpy as np, pandas as pd, nanaccess as na
    >>> na.agg.var(nan_policy="omit")(pd.Series([1.0, np.nan, 3.0]))
    np.float64(2.0)
    """
    return NanAgg("var", ddof=ddof, nan_policy=nan_policy)


def std(*, ddof: float = 1, nan_policy: str | None = None) -> NanAgg:
    """Standard deviation for ``.agg`` (``ddof=1`` as pandas).

    Examples
    --------
    >>> import numpy as np, pandas as pd, nanaccess as na
    >>> na.agg.std(ddof=0, nan_policy="omit")(pd.Series([1.0, np.nan, 3.0]))
    np.float64(1.0)
    """
    return NanAgg("std", ddof=ddof, nan_policy=nan_policy)


def sum(*, nan_policy: str | None = None) -> NanAgg:  # noqa: A001
    """Sum for ``.agg``.

    Examples
    --------
    >>> import numpy as np, pandas as pd, nanaccess as na
    >>> na.agg.sum(nan_policy="omit")(pd.Series([1.0, np.nan, 3.0]))
    np.float64(4.0)
    """
    return NanAgg("sum", nan_policy=nan_policy)
