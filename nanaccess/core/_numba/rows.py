"""Per-row selection: the accelerated kernel of :func:`nanaccess.core.select._gather`.

Hook
----
select_rows(keys, ranks)
    ``keys`` is a C-ordered ``(rows, n)`` integer scratch buffer (modified in place),
    ``ranks`` a ``(K, rows)`` integer array; returns the ``(K, rows)`` keys that hold
    those ranks in each row's ascending order. Used when the rows want different
    ranks (a reduction along an axis under "omit" with different NaN counts per row).
    ``None`` when numba is not installed or disabled (``NANACCESS_NO_NUMBA=1``).

Selection works on integer keys, so it returns an element of the row: which element
is an exact property of the data (the rank-th smallest key), independent of the
algorithm; the NumPy path (:func:`select_windows`, :func:`_select_rows_numpy`) and
the compiled one agree bit for bit by construction. The kernels compile on first use
through :mod:`nanaccess.core._numba` (which imports numba then); the ``engine``
option and a broken numba route calls to NumPy.
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np

from . import AVAILABLE, bind, choose_engine, fallback, jit, kernels, parallel_ok, register
from .sorting import insertion_sort, move_min_to, select_kth  # noqa: F401 - kernel globals

__all__ = ["select_rows", "select_windows", "warm_up", "ENABLED", "PARALLEL_MIN_SIZE",
           "WINDOW_MAX_FRACTION"]

#: rows * n at or above which the row loop is spread over numba's threads (main thread only)
PARALLEL_MIN_SIZE = 200_000
#: the windows of :func:`select_windows` may cover at most this fraction of a row
WINDOW_MAX_FRACTION = 1 / 8
#: the compiled hook exists (numba installed and not disabled)
ENABLED = AVAILABLE

prange = range  # numba's prange once compiled (:func:`nanaccess.core._numba.bind`)


# --------------------------------------------------------------------- pure kernels

def _select_row(a: np.ndarray, want: np.ndarray, order: np.ndarray, out: np.ndarray,
                row: Any) -> None:  # pragma: no cover - compiled
    """Select the ranks ``want[order]`` (ascending) of the 1-D ``a``; write ``out[:, row]``."""
    n = a.shape[0]
    lo = 0
    prev = -1
    for jj in range(order.shape[0]):
        j = order[jj]
        r = want[j]
        if r < 0 or r >= n:
            out[j, row] = 0
            continue
        if r != prev:
            if r == lo and lo > 0:
                # next rank right after the last one: the minimum of the rest
                move_min_to(a, lo, n)
            else:
                select_kth(a, lo, n - 1, r)
            prev = r
            lo = r + 1
        out[j, row] = a[r]


def _rank_order(want: np.ndarray, order: np.ndarray) -> None:  # pragma: no cover - compiled
    """``order`` = argsort of the few ranks ``want`` (insertion sort; K is small)."""
    for j in range(want.shape[0]):
        order[j] = j
    for i in range(1, want.shape[0]):
        v = order[i]
        j = i - 1
        while j >= 0 and want[order[j]] > want[v]:
            order[j + 1] = order[j]
            j -= 1
        order[j + 1] = v


def _select_rows_serial(keys: np.ndarray, ranks: np.ndarray) -> Any:  # pragma: no cover - compiled
    rows = keys.shape[0]
    kq = ranks.shape[0]
    out = np.zeros((kq, rows), dtype=keys.dtype)
    want = np.empty(kq, dtype=np.int64)
    order = np.empty(kq, dtype=np.int64)
    for row in range(rows):
        for j in range(kq):
            want[j] = ranks[j, row]
        _rank_order(want, order)
        _select_row(keys[row], want, order, out, row)
    return out


def _select_rows_parallel(keys: np.ndarray,
                          ranks: np.ndarray) -> Any:  # pragma: no cover - compiled
    rows = keys.shape[0]
    kq = ranks.shape[0]
    out = np.zeros((kq, rows), dtype=keys.dtype)
    for row in prange(rows):
        want = np.empty(kq, dtype=np.int64)
        order = np.empty(kq, dtype=np.int64)
        for j in range(kq):
            want[j] = ranks[j, row]
        _rank_order(want, order)
        _select_row(keys[row], want, order, out, row)
    return out



# ------------------------------------------------------------------- NumPy reference


def _select_rows_numpy(keys: np.ndarray, ranks: np.ndarray) -> np.ndarray:
    """The NumPy reference of :func:`select_rows` (multi-kth partition of every row)."""
    kth = np.unique(ranks)
    if kth.size <= 32:
        keys.partition(kth, axis=1)
    else:
        keys.sort(axis=1)
    return np.take_along_axis(keys, np.asarray(ranks, dtype=np.intp).T, axis=1).T


def _windows(ranks: np.ndarray) -> list[tuple[int, int]] | None:
    """Disjoint sorted ``[a, b]`` rank windows covering every row's ranks, slot by slot."""
    spans = sorted(zip(ranks.min(axis=1).tolist(), ranks.max(axis=1).tolist(), strict=True))
    merged: list[list[int]] = []
    for a, b in spans:
        if merged and a <= merged[-1][1] + 1:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    return [(a, b) for a, b in merged]


def _partition_windows(keys: np.ndarray, wins: list[tuple[int, int]], lo: int, hi: int) -> None:
    """Make ``keys[:, a:b + 1]`` sorted and in final place for every window (middle first)."""
    if not wins:
        return
    mid = len(wins) // 2
    a, b = wins[mid]
    keys[:, lo:hi].partition(a - lo, axis=1)
    if b > a:
        keys[:, a + 1:hi].partition(b - a - 1, axis=1)
        if b > a + 1:
            keys[:, a + 1:b].sort(axis=1)
    _partition_windows(keys, wins[:mid], lo, a)
    _partition_windows(keys, wins[mid + 1:], b + 1, hi)


def select_windows(keys: np.ndarray, ranks: np.ndarray) -> np.ndarray | None:
    """NumPy selection of per-row ``ranks`` that lie in a few narrow windows, or None.

    Along an axis under "omit", rows differ only by their NaN counts, so the rank
    each row wants lies in a narrow window ``[a, b]`` shared by all rows. One
    single-kth ``partition`` per window edge (NumPy's SIMD path; a multi-kth
    partition is not) and a sort of the ``b - a`` keys in between put every row's
    ranks in place. Returns None (nothing touched) when the windows would cover more
    than :data:`WINDOW_MAX_FRACTION` of a row; the caller then selects row by row.

    Parameters
    ----------
    keys : numpy.ndarray
        C-ordered ``(rows, n)`` keys; reordered in place.
    ranks : numpy.ndarray
        ``(K, rows)`` integer ranks in ``[0, n)``.

    Returns
    -------
    numpy.ndarray or None
        ``(K, rows)`` selected keys.

    Examples
    --------
    >>> import numpy as np
    >>> from nanaccess.core._numba.rows import select_windows
    >>> keys = np.array([[5, 1, 4, 2, 3, 0, 9, 8], [9, 7, 8, 6, 0, 1, 2, 3]])
    >>> select_windows(keys, np.array([[3, 4]])).tolist()
    [[3, 6]]
    """
    rows, n = keys.shape
    if n == 0 or rows == 0:
        return None
    wins = _windows(ranks)
    width = sum(b - a + 1 for a, b in wins)
    if width > 1 + n * WINDOW_MAX_FRACTION:
        return None
    _partition_windows(keys, wins, 0, n)
    return np.take_along_axis(keys, np.asarray(ranks, dtype=np.intp).T, axis=1).T


def build() -> dict[Any, Any]:
    """Compile the per-row kernels (the sorting helpers first)."""
    bind(globals(), ("insertion_sort", "select_kth", "move_min_to"), kernels("sorting"))
    bind(globals(), ("_select_row", "_rank_order"))
    return {"serial": jit(nogil=True)(_select_rows_serial),
            "parallel": jit(nogil=True, parallel=True)(_select_rows_parallel)}


register("rows", build)


def _select_rows_numba(keys: np.ndarray, ranks: np.ndarray) -> np.ndarray:
    """Keys of per-row ``ranks`` ((K, rows)) selected in place on the ``(rows, n)`` ``keys``.

    Narrow rank windows shared by the rows go to :func:`select_windows` (NumPy's SIMD
    partition beats any scalar quickselect there); anything else runs the compiled
    per-row introselect, spread over numba's threads for large inputs (NumPy's
    multi-kth partition when the engine is "numpy" or numba is broken).

    Parameters
    ----------
    keys : numpy.ndarray
        C-ordered ``(rows, n)`` signed-integer keys; reordered in place.
    ranks : numpy.ndarray
        ``(K, rows)`` integer ranks, each in ``[0, n)``.

    Returns
    -------
    numpy.ndarray
        ``(K, rows)`` keys of ``keys.dtype``: the key of rank ``ranks[j, r]`` of row ``r``.

    Examples
    --------
    >>> import numpy as np
    >>> from nanaccess.core._numba import rows
    >>> keys = np.array([[5, 1, 4, 2, 3], [9, 7, 8, 6, 0]])
    >>> fn = rows.select_rows or rows._select_rows_numpy
    >>> fn(keys.copy(), np.array([[0, 4], [2, 1]])).tolist()
    [[1, 9], [3, 6]]
    """
    got = select_windows(keys, ranks)
    if got is not None:
        return got
    if choose_engine() == "numpy":
        return _select_rows_numpy(keys, ranks)
    ranks = np.ascontiguousarray(ranks, dtype=np.int64)
    try:
        kern = kernels("rows")
        rows, n = keys.shape
        if rows > 1 and parallel_ok(rows * n, PARALLEL_MIN_SIZE):
            return cast("np.ndarray", kern["parallel"](keys, ranks))
        return cast("np.ndarray", kern["serial"](keys, ranks))
    except Exception as err:  # numba failed: the NumPy reference, from now on
        fallback(err)
        return _select_rows_numpy(keys, ranks)


#: (keys (rows, n) int, ranks (K, rows) int64) -> (K, rows) keys; None without numba
select_rows = _select_rows_numba if ENABLED else None


def warm_up(dtypes: Any = (np.int64,)) -> None:
    """Compile (or load from the cache) the kernels now instead of on first use.

    Parameters
    ----------
    dtypes : sequence of integer dtypes
        Key dtypes to compile for (int64: float64 data; int32: float32; int16: float16).

    Examples
    --------
    >>> from nanaccess.core._numba import rows
    >>> rows.warm_up()
    """
    if select_rows is None or choose_engine() == "numpy":
        return
    for dt in dtypes:
        keys = np.arange(8, dtype=dt).reshape(2, 4)[:, ::-1].copy()
        ranks = np.array([[0, 3], [1, 3]])  # too wide for the windows: the kernels run
        for kern in kernels("rows").values():
            kern(keys.copy(), ranks)
