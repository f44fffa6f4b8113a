"""Front ends of :func:`.pairwise.pairwise`: a matrix of all column pairs, one pair."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...options import NanPolicy, resolve_policy
from .pairwise import pairwise

__all__ = ["all_pairs", "corr_matrix", "corr_pair"]


def all_pairs(k: int) -> np.ndarray:
    """The ``(i, j)`` pairs with ``i <= j`` of ``k`` columns, row by row."""
    i, j = np.triu_indices(k)
    return np.stack([i, j], axis=1).astype(np.int64)


def corr_matrix(data: np.ndarray, *, stat: str = "corr", method: str = "pearson",
                ddof: float = 1, min_periods: int | None = None,
                nan_policy: Any = None, missing: np.ndarray | None = None,
                engine: str | None = None) -> tuple[np.ndarray, np.ndarray | None]:
    """The symmetric ``(K, K)`` matrix of the columns of ``data`` (``(n, K)``).

    Returns ``(values, missing)`` (``missing`` None or a ``(K, K)`` bool mask).

    Examples
    --------
    >>> import numpy as np
    >>> x = np.array([[1.0, 2.0], [2.0, 4.0], [3.0, 7.0]])
    >>> corr_matrix(x, nan_policy="omit")[0].round(6)
    array([[1.      , 0.993399],
           [0.993399, 1.      ]])
    """
    data = np.asarray(data)
    if data.ndim != 2:
        raise ValueError("corr_matrix takes 2-D data (rows, columns)")
    policy = resolve_policy(nan_policy)
    k = data.shape[1]
    cols = [data[:, c] for c in range(k)]
    miss = None if missing is None else [np.asarray(missing)[:, c] for c in range(k)]
    pairs = all_pairs(k)
    res = pairwise(cols, pairs, missing=miss, method=method, stat=stat, ddof=ddof,
                   min_periods=min_periods, policy=policy, engine=engine)
    return _square(res.values[0], pairs, k), (
        None if res.missing is None else _square(res.missing[0], pairs, k))


def _square(v: np.ndarray, pairs: np.ndarray, k: int) -> np.ndarray:
    out = np.empty((k, k), dtype=v.dtype)
    out[pairs[:, 0], pairs[:, 1]] = v
    out[pairs[:, 1], pairs[:, 0]] = v
    return out


def corr_pair(x: Any, y: Any, *, stat: str = "corr", method: str = "pearson",
              ddof: float = 1, min_periods: int | None = None,
              nan_policy: Any = None, missing_x: Any = None, missing_y: Any = None,
              subjects: Any = None, locate: Any = None,
              engine: str | None = None) -> tuple[float, bool]:
    """One covariance / correlation of two equal-length 1-D arrays: ``(value, missing)``.

    Examples
    --------
    >>> import numpy as np
    >>> corr_pair(np.array([1.0, 2.0]), np.array([5.0, -3.0]), nan_policy="omit")
    (-1.0, False)
    """
    policy = resolve_policy(nan_policy) if not isinstance(nan_policy, NanPolicy) else nan_policy
    x = np.asarray(x)
    y = np.asarray(y)
    if x.ndim != 1 or y.ndim != 1 or x.size != y.size:
        raise ValueError(f"x and y must be 1-D of one length, not shapes {x.shape} and "
                         f"{y.shape}")
    res = pairwise([x, y], np.array([[0, 1]]), missing=[missing_x, missing_y], method=method,
                   stat=stat, ddof=ddof, min_periods=min_periods, policy=policy,
                   subjects=subjects, locate=locate, engine=engine)
    m = bool(res.missing[0, 0]) if res.missing is not None else False
    return float(res.values[0, 0]), m
