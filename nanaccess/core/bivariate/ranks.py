"""Ranks for Spearman and exact pair counts for Kendall's tau-b.

* :func:`subset_ranks`: doubled average ranks (exact integers) of the members of a
  subset of a column, from the column's own ranks (:func:`nanaccess.core.sorting.rank`,
  which places NaNs and missing values by the policy): no sort per pair, O(n).
* :func:`kendall_counts`: ``(S, tot, xtie, ytie)`` of tau-b in O(n log n): sort by
  ``(x, y)``, count the discordant pairs as the inversions of ``y`` (merge levels in
  NumPy, the reference; a Fenwick tree compiled by numba), ties from run lengths.
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np

from .. import _numba as nb

__all__ = ["subset_ranks", "dense", "kendall_counts", "inversions_numpy"]


def dense(full_ranks: np.ndarray, member: np.ndarray) -> np.ndarray:
    """Dense integer ranks (0-based) of the members: equal ranks stay tied."""
    r = full_ranks[member]
    _, inv = np.unique(r, return_inverse=True)
    return inv.astype(np.int64)


def subset_ranks(keys: np.ndarray, member: np.ndarray) -> np.ndarray:
    """Twice the average ranks (1-based) of the members among themselves (int64), from
    the column's dense integer ranks ``keys`` (values in ``[0, n)``): the members keep
    their order and ties, ranks are renumbered. O(n), no sort."""
    d = keys[member]
    cnt = np.bincount(d, minlength=int(keys.max(initial=0)) + 1)
    before = np.cumsum(cnt) - cnt
    return cast("np.ndarray", (2 * before + cnt + 1)[d])


def _tied_pairs(vals: np.ndarray) -> int:
    """sum t (t - 1) / 2 over the tie groups of non-negative integers (O(n))."""
    t = np.bincount(vals)
    return int((t * (t - 1) // 2).sum())


def _runs_pairs(sorted_vals: np.ndarray) -> int:
    """sum t (t - 1) / 2 over runs of equal values in a sorted array."""
    if sorted_vals.size == 0:
        return 0
    new = np.empty(sorted_vals.size, bool)
    new[0] = True
    np.not_equal(sorted_vals[1:], sorted_vals[:-1], out=new[1:])
    t = np.diff(np.append(np.flatnonzero(new), sorted_vals.size)).astype(object)
    return int(sum(v * (v - 1) // 2 for v in t.tolist())) if t.size < 64 else int(
        (t * (t - 1) // 2).sum())


def inversions_numpy(a: np.ndarray) -> int:
    """Pairs ``i < j`` with ``a[i] > a[j]`` (int64 ``a``), by bottom-up merge levels:
    each right half counts the left-half values above its values with one global
    ``searchsorted`` on block-keyed values, then the blocks are merged by a sort."""
    a = np.asarray(a, dtype=np.int64)
    n = a.size
    if n < 2:
        return 0
    span = int(a.max() - a.min()) + 1
    v = a - a.min()
    total = 0
    w = 1
    pos = np.arange(n)
    while w < n:
        blk = pos // (2 * w)
        right = (pos // w) % 2 == 1
        keys = blk * span + v
        left_keys = keys[~right]  # sorted: blocks in order, each left half sorted
        rk = keys[right]
        le = np.searchsorted(left_keys, rk, side="right")  # left values <= it, globally
        # left values in earlier blocks, and this block's left-half size
        lstart = np.searchsorted(left_keys, blk[right] * span, side="left")
        lsize = np.minimum(w, n - blk[right] * 2 * w)
        total += int((lsize - (le - lstart)).sum())
        v = np.sort(keys) - blk * span  # merge: each block sorted (blk is nondecreasing)
        w *= 2
    return total


def _inversions_fenwick(a: Any, m: Any, tree: Any) -> Any:  # pragma: no cover - compiled
    """Inversions of ``a`` (values in [0, m)) with a Fenwick tree of size m + 1."""
    inv = 0
    for i in range(a.shape[0]):
        k = a[i] + 1
        le = 0
        while k > 0:
            le += tree[k]
            k -= k & -k
        inv += i - le
        k = a[i] + 1
        while k <= m:
            tree[k] += 1
            k += k & -k
    return inv


_KERNEL: list[Any] = []


def _inversions(a: np.ndarray, engine: str | None) -> int:
    use = nb.choose_engine(engine, size=a.size, min_size=256)
    if use == "numba":
        try:
            if not _KERNEL:
                with nb.LOCK:
                    if not _KERNEL:
                        _KERNEL.append(nb.jit(nogil=True)(_inversions_fenwick))
            m = int(a.max()) + 1 if a.size else 1
            return int(_KERNEL[0](a, m, np.zeros(m + 1, np.int64)))
        except Exception as err:  # numba failed: NumPy from now on
            nb.fallback(err, engine)
    return inversions_numpy(a)


def kendall_counts(x: np.ndarray, y: np.ndarray, engine: str | None = None, *,
                   order: np.ndarray | None = None) -> tuple[int, int, int, int]:
    """``(S, tot, xtie, ytie)`` for non-negative integer ranks ``x``, ``y`` (ties
    equal): ``S`` concordant minus discordant pairs, ``tot = n (n - 1) / 2``, ``xtie`` /
    ``ytie`` the pairs tied in x / y; tau-b is ``S / sqrt((tot - xtie) (tot - ytie))``.
    ``order``, optional: the rows sorted by ``x`` (used when ``x`` has no ties).

    Examples
    --------
    >>> import numpy as np
    >>> kendall_counts(np.array([0, 1, 2]), np.array([0, 2, 1]), engine="numpy")
    (1, 3, 0, 0)
    """
    n = int(x.size)
    if n < 2:
        return 0, 0, 0, 0
    xtie = _tied_pairs(x)
    ytie = _tied_pairs(y)
    if order is not None and xtie == 0:  # rows by x, no ties in x: no sort, no pair tied in both
        ys = y[order]
        both = 0
    else:
        span = int(y.max()) + 1
        key = x * span + y  # the order of (x, y)
        order = np.argsort(key)  # equal keys are tied pairs: any order among them
        ys = y[order]
        both = _runs_pairs(key[order])
    dis = _inversions(np.ascontiguousarray(ys), engine)
    tot = n * (n - 1) // 2
    return tot - xtie - ytie + both - 2 * dis, tot, xtie, ytie
