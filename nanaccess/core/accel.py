"""Optional compiled kernels (numba), used automatically when numba is installed.

The NumPy path stays the tested reference; every kernel here must return the same
bits. Each hook is ``None`` when numba is missing or disabled with the environment
variable ``NANACCESS_NO_NUMBA=1`` (read once, at import).

Hooks
-----
select_rows(keys, ranks)
    ``keys`` is a C-ordered ``(rows, n)`` integer scratch buffer (modified in place),
    ``ranks`` a ``(K, rows)`` integer array; returns the ``(K, rows)`` keys that hold
    those ranks in each row's ascending order. Called by
    :func:`nanaccess.core.select._gather` when the rows want different ranks (a
    reduction along an axis under "omit" with different NaN counts per row).

Selection works on integer keys, so it returns an element of the row: which element
is an exact property of the data (the rank-th smallest key), independent of the
algorithm; the NumPy path and this one agree bit for bit by construction.

Numba compiles on first use and caches to disk (``cache=True``); where the package
directory and the user cache are not writable the kernels are compiled in memory
instead. If compilation fails at all, the hook falls back to the NumPy reference
for that call and for the rest of the process.
"""

from __future__ import annotations

import os
import threading
import warnings

import numpy as np

__all__ = ["select_rows", "HAVE_NUMBA", "ENABLED", "PARALLEL_MIN_SIZE"]

#: the environment switch honoured at import
DISABLED = os.environ.get("NANACCESS_NO_NUMBA", "").strip().lower() not in ("", "0", "false",
                                                                            "no")
#: rows * n at or above which the row loop is spread over numba's threads (main thread only)
PARALLEL_MIN_SIZE = 200_000

try:  # optional accelerator: imported at module import, compiled on first call
    if DISABLED:
        raise ImportError("disabled by NANACCESS_NO_NUMBA")
    import numba as _numba
    from numba import prange as _prange

    HAVE_NUMBA = True
except Exception:  # numba missing, broken or disabled: the NumPy path is used
    _numba = None
    _prange = range
    HAVE_NUMBA = False

ENABLED = HAVE_NUMBA


def _jit(**options):
    """``numba.njit`` with an on-disk cache when one can be written, else in memory."""

    def deco(fn):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return _numba.njit(cache=True, **options)(fn)
        except Exception:  # no cache locator (read-only install): compile in memory
            return _numba.njit(cache=False, **options)(fn)

    return deco


# --------------------------------------------------------------------- pure kernels
# Written as plain Python over arrays; numba compiles them. They are also valid
# (slow) Python, which keeps them readable and lets the tests run them uncompiled.


def _sift_down(a, base, root, end):  # pragma: no cover - compiled
    while True:
        child = 2 * root + 1
        if child >= end:
            return
        if child + 1 < end and a[base + child] < a[base + child + 1]:
            child += 1
        if a[base + root] < a[base + child]:
            t = a[base + root]
            a[base + root] = a[base + child]
            a[base + child] = t
            root = child
        else:
            return


def _heapsort(a, lo, hi):  # pragma: no cover - compiled
    """Sort ``a[lo:hi + 1]`` in place; the O(m log m) fallback of the introselect."""
    m = hi - lo + 1
    for start in range((m - 2) // 2, -1, -1):
        _sift_down(a, lo, start, m)
    for end in range(m - 1, 0, -1):
        t = a[lo]
        a[lo] = a[lo + end]
        a[lo + end] = t
        _sift_down(a, lo, 0, end)


def _insertion(a, lo, hi):  # pragma: no cover - compiled
    for i in range(lo + 1, hi + 1):
        v = a[i]
        j = i - 1
        while j >= lo and a[j] > v:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = v


def _introselect(a, lo, hi, k):  # pragma: no cover - compiled
    """Put the element of rank ``k`` (within ``a[lo:hi + 1]``) at ``a[k]``.

    Hoare partitioning around a median-of-three pivot (as bottleneck's Wirth
    selection), so equal keys split evenly; after ~2 log2(m) rounds without
    converging the rest is heap-sorted, which bounds the worst case by O(m log m).
    """
    budget = 2
    m = hi - lo + 1
    while m > 1:
        budget += 2
        m >>= 1
    while hi > lo:
        if hi - lo < 16:
            _insertion(a, lo, hi)
            return
        if budget == 0:
            _heapsort(a, lo, hi)
            return
        budget -= 1
        mid = lo + ((hi - lo) >> 1)
        # median of a[lo], a[mid], a[hi] into a[mid]; a[lo] <= pivot <= a[hi] as sentinels
        if a[mid] < a[lo]:
            t = a[mid]
            a[mid] = a[lo]
            a[lo] = t
        if a[hi] < a[mid]:
            t = a[hi]
            a[hi] = a[mid]
            a[mid] = t
            if a[mid] < a[lo]:
                t = a[mid]
                a[mid] = a[lo]
                a[lo] = t
        pivot = a[mid]
        i = lo
        j = hi
        while i <= j:
            while a[i] < pivot:
                i += 1
            while pivot < a[j]:
                j -= 1
            if i <= j:
                t = a[i]
                a[i] = a[j]
                a[j] = t
                i += 1
                j -= 1
        # now a[lo:j+1] <= pivot <= a[i:hi+1], and a[j+1:i] == pivot
        if k <= j:
            hi = j
        elif k >= i:
            lo = i
        else:
            return


def _move_min_to(a, t, e):  # pragma: no cover - compiled
    """Swap the minimum of ``a[t:e]`` into ``a[t]``: the rank right after a selected
    one, once everything above it is known to be in ``a[t:e]``."""
    best = t
    for i in range(t + 1, e):
        if a[i] < a[best]:
            best = i
    v = a[t]
    a[t] = a[best]
    a[best] = v


def _select_row(a, want, order, out, row):  # pragma: no cover - compiled
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
                _move_min_to(a, lo, n)
            else:
                _introselect(a, lo, n - 1, r)
            prev = r
            lo = r + 1
        out[j, row] = a[r]


def _rank_order(want, order):  # pragma: no cover - compiled
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


def _select_rows_serial(keys, ranks):  # pragma: no cover - compiled
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


def _select_rows_parallel(keys, ranks):  # pragma: no cover - compiled
    rows = keys.shape[0]
    kq = ranks.shape[0]
    out = np.zeros((kq, rows), dtype=keys.dtype)
    for row in _prange(rows):
        want = np.empty(kq, dtype=np.int64)
        order = np.empty(kq, dtype=np.int64)
        for j in range(kq):
            want[j] = ranks[j, row]
        _rank_order(want, order)
        _select_row(keys[row], want, order, out, row)
    return out


# ------------------------------------------------------------------------ the hooks


def _select_rows_numpy(keys: np.ndarray, ranks: np.ndarray) -> np.ndarray:
    """The NumPy reference of :func:`select_rows` (multi-kth partition of every row)."""
    kth = np.unique(ranks)
    if kth.size <= 32:
        keys.partition(kth, axis=1)
    else:
        keys.sort(axis=1)
    return np.take_along_axis(keys, np.asarray(ranks, dtype=np.intp).T, axis=1).T


#: the windows of :func:`select_windows` may cover at most this fraction of a row
WINDOW_MAX_FRACTION = 1 / 8


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
    >>> from nanaccess.core.accel import select_windows
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


_KERNELS: dict[str, object] = {}
_FAILED = False


def _compile() -> None:
    helpers = {}
    for fn in (_sift_down, _heapsort, _insertion, _introselect, _move_min_to, _select_row,
               _rank_order):
        helpers[fn.__name__] = _jit(nogil=True)(fn)
    # the kernels resolve helpers through their globals: bind the compiled ones
    g = globals()
    g.update(helpers)
    _KERNELS["serial"] = _jit(nogil=True)(_select_rows_serial)
    _KERNELS["parallel"] = _jit(nogil=True, parallel=True)(_select_rows_parallel)


_LOCK = threading.Lock()


def _select_rows_numba(keys: np.ndarray, ranks: np.ndarray) -> np.ndarray:
    """Keys of per-row ``ranks`` ((K, rows)) selected in place on the ``(rows, n)`` ``keys``.

    Narrow rank windows shared by the rows go to :func:`select_windows` (NumPy's SIMD
    partition beats any scalar quickselect there); anything else runs the compiled
    per-row introselect, spread over numba's threads for large inputs.

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
    >>> from nanaccess.core import accel
    >>> keys = np.array([[5, 1, 4, 2, 3], [9, 7, 8, 6, 0]])
    >>> fn = accel.select_rows or accel._select_rows_numpy
    >>> fn(keys.copy(), np.array([[0, 4], [2, 1]])).tolist()
    [[1, 9], [3, 6]]
    """
    global _FAILED, select_rows
    got = select_windows(keys, ranks)
    if got is not None:
        return got
    if _FAILED:
        return _select_rows_numpy(keys, ranks)
    ranks = np.ascontiguousarray(ranks, dtype=np.int64)
    try:
        if not _KERNELS:
            with _LOCK:
                if not _KERNELS:
                    _compile()
        rows, n = keys.shape
        if rows > 1 and rows * n >= PARALLEL_MIN_SIZE and (
            threading.current_thread() is threading.main_thread()
        ):
            # numba's thread pool is driven from the main thread only, so worker
            # threads (dask, concurrent.futures) never launch parallel regions together
            return _KERNELS["parallel"](keys, ranks)
        return _KERNELS["serial"](keys, ranks)
    except Exception as err:  # compilation failed: the NumPy reference, from now on
        _FAILED = True
        select_rows = _select_rows_numpy
        warnings.warn(f"nanaccess: numba kernel unavailable ({err}); using NumPy",
                      RuntimeWarning, stacklevel=2)
        return _select_rows_numpy(keys, ranks)


#: (keys (rows, n) int, ranks (K, rows) int64) -> (K, rows) keys; None without numba
select_rows = _select_rows_numba if ENABLED else None


def warm_up(dtypes=(np.int64,)) -> None:
    """Compile (or load from the cache) the kernels now instead of on first use.

    Parameters
    ----------
    dtypes : sequence of integer dtypes
        Key dtypes to compile for (int64: float64 data; int32: float32; int16: float16).

    Examples
    --------
    >>> from nanaccess.core import accel
    >>> accel.warm_up()
    """
    if select_rows is None:
        return
    if _FAILED or select_rows is not _select_rows_numba:
        return
    for dt in dtypes:
        keys = np.arange(8, dtype=dt).reshape(2, 4)[:, ::-1].copy()
        ranks = np.array([[0, 3], [1, 3]])  # too wide for the windows: the kernels run
        for kernel in ("serial", "parallel"):
            if not _KERNELS:
                _select_rows_numba(keys.copy(), ranks)
            _KERNELS[kernel](keys.copy(), ranks)
