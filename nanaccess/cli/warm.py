"""``nanaccess warm``: compile the numba kernels of the common calls ahead, once.

A kernel compiles on its first call on a machine (seconds each) and is then cached on
disk (:mod:`nanaccess.core._numba._cache`), so later processes load it in
milliseconds. This command makes those first calls up front, on data of the size
where "auto" picks the compiled engine, so that a notebook's first statistics are as
fast as its later ones. Results are not affected: the NumPy engine gives the same bits.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TextIO

import numpy as np
import pandas as pd

__all__ = ["warm", "STEPS"]

_ROWS = 200_000


def _frame(dtype: str) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    x = rng.normal(size=_ROWS).astype(dtype)
    x[rng.random(_ROWS) < 0.05] = np.nan
    return pd.DataFrame({"k": rng.integers(0, 50, _ROWS), "x": x})


#: (what, call on a frame with a float column ``x`` and integer keys ``k``)
STEPS: list[tuple[str, Callable[[pd.DataFrame], object]]] = [
    ("median, quantile", lambda df: df["x"].nanstats.quantile([0.25, 0.5, 0.9])),
    ("min, max", lambda df: (df["x"].nanstats.min(), df["x"].nanstats.max())),
    ("sum, mean", lambda df: (df["x"].nanstats.sum(), df["x"].nanstats.mean())),
    ("var, std", lambda df: df["x"].nanstats.std()),
    ("describe", lambda df: df.nanstats.describe()),
    ("grouped median", lambda df: df.groupby("k").nanstats.median()),
    ("grouped sum, mean", lambda df: df.groupby("k").nanstats.mean()),
    ("grouped var, std", lambda df: df.groupby("k").nanstats.std()),
    ("grouped min, max", lambda df: df.groupby("k").nanstats.max()),
    ("rolling median", lambda df: df["x"].rolling(50).nanstats.median()),
    ("rolling sum, mean", lambda df: df["x"].rolling(50).nanstats.mean()),
    ("rolling var, std", lambda df: df["x"].rolling(50).nanstats.std()),
    ("rolling min, max", lambda df: df["x"].rolling(50).nanstats.max()),
]


def warm(dtypes: tuple[str, ...] = ("float64",), *, out: TextIO | None = None) -> int:
    """Compile and cache the kernels of the common statistics; what ``nanaccess warm`` runs.

    Parameters
    ----------
    dtypes : tuple of str
        The float dtypes to compile for ("float64", "float32").
    out : text stream, optional
        Where to report each step and its time (default ``sys.stderr``).

    Returns
    -------
    int
        The exit code: 0 (also when numba is not installed: nothing to compile).

    Examples
    --------
    >>> from nanaccess.cli.warm import STEPS, warm
    >>> [what for what, _ in STEPS][:3]
    ['median, quantile', 'min, max', 'sum, mean']
    >>> warm()  # doctest: +SKIP
    nanaccess warm: float64  median, quantile       2.31 s
    ...
    0
    """
    import nanaccess as na
    from nanaccess.core import _numba

    out = out if out is not None else sys.stderr
    if not _numba.AVAILABLE:
        print("nanaccess warm: numba is not installed (or NANACCESS_NO_NUMBA is set): "
              "the NumPy engine compiles nothing", file=out)
        return 0
    _numba._NOTIFIED.append("nanaccess warm")  # compiling is the point: no note about it
    start = time.perf_counter()
    with na.option_context(engine="numba", nan_policy="omit"):
        for dtype in dtypes:
            df = _frame(dtype)
            for what, call in STEPS:
                t = time.perf_counter()
                call(df)
                print(f"nanaccess warm: {dtype:8} {what:20} {time.perf_counter() - t:6.2f} s",
                      file=out, flush=True)
    from nanaccess.core._numba._cache import cache_base

    print(f"nanaccess warm: done in {time.perf_counter() - start:.1f} s; kernels cached "
          f"in {cache_base()}", file=out)
    return 0
