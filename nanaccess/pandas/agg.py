"""Named callables for pandas' ``.agg``: ``df.groupby(k).agg(nanaccess.agg.median(...))``.

One function per statistic of the table (generated into
:mod:`nanaccess.pandas._generated_agg`); each returns a :class:`NanAgg` whose
``__name__`` is the statistic, so pandas labels the result columns "median",
"quantile", ... as with its own names. pandas calls an ``.agg`` callable once per
group and column (its Python path), so for speed prefer
``df.groupby(k).nanstats.median(...)``, which is vectorised.

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

from ._generated_agg import *  # noqa: F403
from ._generated_agg import __all__ as _generated
from ._nanagg import NanAgg

__all__ = ["NanAgg", *_generated]
