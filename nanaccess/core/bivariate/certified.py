"""The certified shortcut of moving covariance and correlation (numba engine only).

:mod:`nanaccess.core._numba.bivariate_cert` computes each window from compensated
sums with a rigorous error bound and keeps a result only when the bound proves it is
the correctly rounded exact value; :func:`window_shortcut` returns those results and
the mask of windows it certified, and the caller (:func:`nanaccess.pandas.
window_bivariate.window_pairs`) recomputes the rest with the exact path. The NumPy
engine (the reference) always takes the exact path, so both engines give the same
bits (tests compare them window by window).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _numba as nb

__all__ = ["window_shortcut", "matrix_shortcut"]

_MIN_COMPILED = 2048  # windows below which the exact path answers (no compilation)
_RESTART = 4096  # windows between fresh starts of the sliding sums: the threads' blocks
_PARALLEL_WINDOWS = 1 << 16  # windows from which the blocks run on numba's threads
_MAX_BLOCK = 1 << 26  # windows longer than this: n (n - ddof) may not be exact


def window_shortcut(x: np.ndarray, y: np.ndarray, ok: np.ndarray, start: np.ndarray,
                    end: np.ndarray, *, stat: str, ddof: float, min_periods: int,
                    engine: str | None = None, restart: int = _RESTART
                    ) -> tuple[np.ndarray, np.ndarray] | None:
    """Certified ``(values, good)`` per window ``[start[i], end[i])`` of the rows
    ``ok`` of float64 ``x``, ``y``; None where the shortcut does not serve (NumPy
    engine, small inputs, a fractional ``ddof``, very long windows). The sliding sums
    start again every ``restart`` windows (rounded up to a multiple of the longest
    window): independent blocks, run on numba's threads for long inputs, with the
    same bits whatever the threads.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.arange(5000.0)
    >>> got = window_shortcut(x, 3 * x + 1e7, np.ones(5000, bool), np.arange(5000) - 9,
    ...                       np.arange(5000) + 1, stat="corr", ddof=1, min_periods=1,
    ...                       engine="numpy")
    >>> got is None
    True
    """
    start = np.ascontiguousarray(start, np.int64)  # clamped as the kernels read them
    end = np.ascontiguousarray(end, np.int64)
    if float(ddof) != int(ddof) or start.size == 0:
        return None
    use = nb.choose_engine(engine, size=start.size, min_size=_MIN_COMPILED,
                           warm="bivariate_cert_roll")
    if use != "numba":
        return None
    x = np.ascontiguousarray(x, np.float64)
    y = np.ascontiguousarray(y, np.float64)
    ok = np.ascontiguousarray(ok, np.bool_)
    out = np.empty(start.size, np.float64)
    good = np.zeros(start.size, np.bool_)
    code = 1 if stat == "cov" else 0
    mp = max(int(min_periods), 1)
    try:
        k = nb.kernels("bivariate_cert")
        if start.size and start[0] <= 0 and not (start > 0).any() and (
                np.diff(np.maximum(end, 0)) >= 0).all():
            k["expanding_pair"](x, y, ok, np.maximum(end, 0), code, float(ddof), mp, out, good)
            return out, good
        fin = np.empty(x.size, np.bool_)
        ninf = np.empty(x.size + 1, np.int64)
        block = int(nb.kernels("window_pair_prep")["pair_prep"](x, y, ok, start, end, fin, ninf))
        if block < 0 or block > _MAX_BLOCK:
            return None
        # the sums start again every `restart` windows: at most one row more per window
        step = max(int(restart), 1)
        step = -(-max(step, block) // step) * step
        par = "_parallel" if nb.parallel_ok(start.size, _PARALLEL_WINDOWS) else ""
        roll = nb.kernels("bivariate_cert_roll")["rolling_pair" + par]
        roll(x, y, fin, ninf, start, end, block, step, code, float(ddof), mp, out, good)
    except Exception as err:  # numba failed (or compiles in the background): exact path
        nb.fallback(err, engine)
        return None
    return out, good


_MATRIX_MIN = 1 << 16  # rows x pairs below which the exact path answers
_PARALLEL = 1 << 20  # rows x pairs from which the pairs run on numba's threads


def matrix_shortcut(vals: np.ndarray, valid: np.ndarray, pairs: np.ndarray, *, stat: str,
                    ddof: float, segments: Any = None, engine: str | None = None
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Certified ``(values, good, counts)`` per (segment, pair), shape ``(G, P)``, of
    the ``(K, n)`` float64 columns ``vals`` over their joint ``valid`` rows (``segments``:
    a :class:`~nanaccess.core.bivariate.sums.Segments`, default every row); None where
    the shortcut does not serve. Cells holding an infinity, and those it cannot certify,
    are ``good`` False."""
    pairs = np.ascontiguousarray(pairs, np.int64).reshape(-1, 2)
    P = pairs.shape[0]
    size = vals.shape[1] * max(P, 1)
    if float(ddof) != int(ddof) or P == 0 or vals.shape[1] > _MAX_BLOCK:
        return None
    if nb.choose_engine(engine, size=size, min_size=_MATRIX_MIN,
                        warm="bivariate_cert") != "numba":
        return None
    grouped = segments is not None and (segments.rows is not None or segments.starts.size != 2)
    G = segments.starts.size - 1 if grouped else 1
    out = np.full((G, P), np.nan)
    good = np.zeros((G, P), np.bool_)
    counts = np.zeros((G, P), np.int64)
    vals = np.ascontiguousarray(vals, np.float64)
    valid = np.ascontiguousarray(valid, np.bool_)
    code = 1 if stat == "cov" else 0
    try:
        k = nb.kernels("bivariate_cert")
        par = "_parallel" if nb.parallel_ok(size, _PARALLEL) else ""
        if grouped:
            rows = (np.arange(vals.shape[1], dtype=np.int64) if segments.rows is None
                    else np.ascontiguousarray(segments.rows, np.int64))
            k["matrix_groups" + par](vals, valid, rows,
                                     np.ascontiguousarray(segments.starts, np.int64), pairs,
                                     code, float(ddof), 1, out, good, counts)
        else:
            k["matrix_pairs" + par](vals, valid, pairs, code, float(ddof), 1, out[0], good[0],
                                    counts[0])
    except Exception as err:  # numba failed (or compiles in the background): exact path
        nb.fallback(err, engine)
        return None
    return out, good, counts
