"""The sliding-window selection kernel over one sorted buffer (the general sliding
engine of :mod:`nanaccess.core.window.order`: any dtype's keys, any ranks).

Each window's taking-part keys live in one sorted buffer: a value entering the
window is inserted at its binary-search place, a value leaving is found by binary
search and removed (keys are one-to-one with bits, so any equal key is the one to
remove). A rank is then one read of the buffer, so every rank of every statistic
(median, quantiles, min, max) costs O(1) per window, and a step costs O(log w) to
search plus a shift of the keys between the two places. Windows must have
non-decreasing starts and ends (fixed, expanding and time-based windows all do); a
window starting after the previous one ended starts afresh.

The keys are the engine's totalOrder keys (remapped for "smallest"/"largest"), so
NaNs are placed by the policy, not by a second pass, and picked keys invert to the
stored bits. Plain Python over arrays, compiled through :mod:`nanaccess.core._numba`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import bind, jit, kernels, register

__all__ = ["slide_select", "BUFFER_HELPERS"]

#: the buffer helpers other kernel modules bind (their ``_shift`` is the memmove too)
BUFFER_HELPERS = ("nb_lower", "nb_upper", "nb_remove", "nb_insert", "nb_replace",
                  "nb_advance")


def _shift(buf: np.ndarray, dst: Any, src: Any,
           count: Any) -> None:  # pragma: no cover - replaced when compiled
    """``buf[dst:dst + count] = buf[src:src + count]`` for overlapping ranges (a
    ``memmove``: :func:`memmove_intrinsic` once compiled)."""
    if count > 0:
        buf[dst:dst + count] = buf[src:src + count].copy()


def memmove_intrinsic() -> Any:
    """``_shift`` as an LLVM ``memmove`` of the buffer's items (a loop numba compiles
    moves one key at a time)."""
    from numba import types
    from numba.core import cgutils
    from numba.extending import intrinsic

    @intrinsic
    def shift(typingctx: Any, arr: Any, dst: Any, src: Any, count: Any) -> Any:
        sig = types.void(arr, types.intp, types.intp, types.intp)

        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            a, d, s, c = args
            aty = signature.args[0]
            ary = context.make_array(aty)(context, builder, a)
            size = context.get_abi_sizeof(context.get_data_type(aty.dtype))
            cgutils.raw_memmove(builder, cgutils.gep(builder, ary.data, d),
                                cgutils.gep(builder, ary.data, s), c, size)
            return context.get_dummy_value()

        return sig, codegen

    return shift

def nb_lower(buf: np.ndarray, m: Any, k: Any) -> Any:  # pragma: no cover - compiled
    """First position of ``buf[:m]`` holding a key >= k (branch-free halving: the
    comparisons of a search in random keys are unpredictable)."""
    if m == 0:
        return 0
    base = 0
    n = m
    while n > 1:
        half = n >> 1
        base = base + half if buf[base + half - 1] < k else base
        n -= half
    return base + (buf[base] < k)


def nb_upper(buf: np.ndarray, m: Any, k: Any) -> Any:  # pragma: no cover - compiled
    """First position of ``buf[:m]`` holding a key > k."""
    if m == 0:
        return 0
    base = 0
    n = m
    while n > 1:
        half = n >> 1
        base = base + half if buf[base + half - 1] <= k else base
        n -= half
    return base + (buf[base] <= k)


def nb_remove(buf: Any, m: Any, k: Any) -> Any:  # pragma: no cover - compiled
    p = nb_lower(buf, m, k)
    _shift(buf, p, p + 1, m - 1 - p)
    return m - 1


def nb_insert(buf: np.ndarray, m: Any, k: Any) -> Any:  # pragma: no cover - compiled
    q = nb_upper(buf, m, k)
    _shift(buf, q + 1, q, m - q)
    buf[q] = k
    return m + 1


def nb_replace(buf: np.ndarray, m: Any, old: Any, k: Any) -> None:  # pragma: no cover - compiled
    """Remove ``old`` and insert ``k``: one shift of the keys between their places."""
    p = nb_lower(buf, m, old)
    if k >= old:
        q = p + nb_upper(buf[p:], m - p, k)  # > p: keys in (p, q) move down one place
        _shift(buf, p, p + 1, q - 1 - p)
        buf[q - 1] = k
    else:
        q = nb_upper(buf, p, k)  # <= p: the keys in [q, p) move up one place
        _shift(buf, q + 1, q, p - q)
        buf[q] = k


def nb_advance(keys: np.ndarray, take: np.ndarray, s: Any, e: Any, cs: Any, ce: Any, m: Any,
               buf: Any) -> Any:  # pragma: no cover - compiled
    """Slide the sorted buffer ``buf[:m]`` of the taking-part keys of ``[cs, ce)`` to
    those of ``[s, e)`` (bounds non-decreasing); returns the new ``(cs, ce, m)``."""
    if s >= ce:  # disjoint from the previous window: start afresh
        m = 0
        cs = s
        ce = s
    while cs < s and ce < e:  # one leaves, one enters: a single shift
        if take[cs] and take[ce]:
            nb_replace(buf, m, keys[cs], keys[ce])
        elif take[cs]:
            m = nb_remove(buf, m, keys[cs])
        elif take[ce]:
            m = nb_insert(buf, m, keys[ce])
        cs += 1
        ce += 1
    while cs < s:
        if take[cs]:
            m = nb_remove(buf, m, keys[cs])
        cs += 1
    while ce < e:
        if take[ce]:
            m = nb_insert(buf, m, keys[ce])
        ce += 1
    return cs, ce, m


def _nb_slide(keys: Any, take: Any, start: np.ndarray, end: np.ndarray, ranks: np.ndarray,
              out: np.ndarray, buf: np.ndarray) -> None:  # pragma: no cover - compiled
    """Keys at ``ranks[i]`` (-1 or >= count: left as is) of window ``i``'s sorted keys.

    ``take[j]``: element j takes part (its key enters the buffer).
    """
    cs = 0
    ce = 0
    m = 0
    nr = ranks.shape[1]
    for i in range(start.shape[0]):
        s = start[i]
        e = end[i]
        cs, ce, m = nb_advance(keys, take, s, e, cs, ce, m, buf)
        for t in range(nr):
            r = ranks[i, t]
            if r >= 0 and r < m:
                out[i, t] = buf[r]

def _nb_slide_columns(keys: np.ndarray, take: np.ndarray, start: Any, end: Any, ranks: np.ndarray,
                      out: np.ndarray, buf: Any) -> None:  # pragma: no cover
    """:func:`_nb_slide` for every column (``keys[c]``, ``ranks[c]``, ``out[c]``)."""
    for c in range(keys.shape[0]):
        _nb_slide(keys[c], take[c], start, end, ranks[c], out[c], buf)

def build() -> dict[str, Any]:
    """Compile the buffer kernel."""
    globals()["_shift"] = memmove_intrinsic()
    helpers = bind(globals(), BUFFER_HELPERS)
    bind(globals(), ("_nb_slide",))
    return {"slide": jit(nogil=True)(_nb_slide_columns), **helpers}


register("window_select", build)


def slide_select(keys: np.ndarray, take: np.ndarray, start: np.ndarray, end: np.ndarray,
                 ranks: np.ndarray, *, compiled: bool = True) -> np.ndarray:
    """The keys at ``ranks`` ((nout, r) int64, -1: unused) of each window's taking-part
    keys, in ascending key order; unused ranks give 0. ``compiled`` False runs the
    kernel as plain Python (for tests of tiny inputs).

    Several columns at once: ``keys`` and ``take`` ``(ncols, n)``, ``ranks``
    ``(ncols, nout, r)``; the result is ``(ncols, nout, r)``.
    """
    one = np.ndim(keys) == 1
    keys = np.ascontiguousarray(keys if not one else keys[None])
    take = np.ascontiguousarray(take if not one else take[None], dtype=np.bool_)
    ranks = np.ascontiguousarray(ranks if not one else ranks[None], dtype=np.int64)
    start = np.ascontiguousarray(start, dtype=np.int64)
    end = np.ascontiguousarray(end, dtype=np.int64)
    out = np.zeros(ranks.shape, keys.dtype)
    width = int((end - start).max(initial=0))
    buf = np.empty(width + 1, keys.dtype)
    fn = kernels("window_select")["slide"] if compiled else _nb_slide_columns
    fn(keys, take, start, end, ranks, out, buf)
    return out[0] if one else out
