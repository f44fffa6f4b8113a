"""Sorting helpers shared by the compiled kernels (per-row and grouped selection).

Plain Python over integer key arrays, compiled by :mod:`nanaccess.core._numba` on first
use (:func:`build`); valid (slow) Python too.
"""

from __future__ import annotations

from typing import Any

from . import bind, register

HELPERS = ("_sift_down", "_heapsort", "insertion_sort", "select_kth", "move_min_to")


def _sift_down(a: Any, base: Any, root: Any, end: Any) -> None:  # pragma: no cover - compiled
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


def _heapsort(a: Any, lo: Any, hi: Any) -> None:  # pragma: no cover - compiled
    """Sort ``a[lo:hi + 1]`` in place; the O(m log m) fallback of the introselect."""
    m = hi - lo + 1
    for start in range((m - 2) // 2, -1, -1):
        _sift_down(a, lo, start, m)
    for end in range(m - 1, 0, -1):
        t = a[lo]
        a[lo] = a[lo + end]
        a[lo + end] = t
        _sift_down(a, lo, 0, end)


def insertion_sort(a: Any, lo: Any, hi: Any) -> None:  # pragma: no cover - compiled
    for i in range(lo + 1, hi + 1):
        v = a[i]
        j = i - 1
        while j >= lo and a[j] > v:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = v


def select_kth(a: Any, lo: Any, hi: Any, k: Any) -> None:  # pragma: no cover - compiled
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
            insertion_sort(a, lo, hi)
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


def move_min_to(a: Any, t: Any, e: Any) -> None:  # pragma: no cover - compiled
    """Swap the minimum of ``a[t:e]`` into ``a[t]``: the rank right after a selected
    one, once everything above it is known to be in ``a[t:e]``."""
    best = t
    for i in range(t + 1, e):
        if a[i] < a[best]:
            best = i
    v = a[t]
    a[t] = a[best]
    a[best] = v


def build() -> dict[Any, Any]:
    """Compile the helpers and bind them here (the kernels of other modules take them
    from the returned dict)."""
    return bind(globals(), HELPERS)


register("sorting", build)
