"""IEEE 754 totalOrder keys and the policy remaps built on them.

A key is a signed integer of the float's width whose ordinary integer order is the
total order the policy asks for. Every map here is one-to-one over all bit patterns
and is inverted exactly, so a selection on keys alone recovers the element's bits
(no index array, and no float sort that could rewrite NaN payloads or signed zeros).

Layout of binary64 totalOrder keys (``NPS`` = NaN patterns per sign = 2**52 - 1)::

    [INT_MIN, INT_MIN+NPS)          negative NaNs (-qNaN ... -sNaN)
    [INT_MIN+NPS, INT_MAX-NPS]      numbers (-inf ... -0, +0 ... +inf)
    (INT_MAX-NPS, INT_MAX]          positive NaNs (+sNaN ... +qNaN)

"largest" rotates the negative-NaN block above the numbers, "smallest" the positive
block below them; ties among NaNs keep totalOrder in both.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from ..options import NanPolicy
from .bits import FloatLayout, as_bits, layout_of
from .objects import classify_object
from .policy import RULES

__all__ = [
    "totalorder_key",
    "float_keys",
    "keys_to_float",
    "remap_keys",
    "unmap_keys",
    "integer_keys",
    "number_keys",
]


_FLIP_BLOCK = 1 << 16  # elements per block: three passes stay in the cache


def _flip(b: np.ndarray, lay: FloatLayout, out: np.ndarray | None) -> np.ndarray:
    """b XOR (INT_MAX if b < 0 else 0): maps bits to keys and keys to bits."""
    if out is None:
        out = np.empty(b.shape, dtype=lay.int_dtype)  # also for 0-d: ufuncs give scalars
    mask = lay.int_dtype.type(lay.int_max)
    # three ufunc passes, one cache-sized block at a time along the first axis: b is
    # read from memory once (a strided or transposed b included), not three times
    bb: Iterable[np.ndarray]
    oo: Iterable[np.ndarray]
    if b.size <= _FLIP_BLOCK:
        bb, oo = [b], [out]
    else:
        step = max(1, _FLIP_BLOCK // (b.size // b.shape[0]))
        bb = (b[i:i + step] for i in range(0, b.shape[0], step))
        oo = (out[i:i + step] for i in range(0, b.shape[0], step))
    for bk, ok in zip(bb, oo, strict=True):
        np.right_shift(bk, lay.bits - 1, out=ok, dtype=lay.int_dtype)
        np.bitwise_and(ok, mask, out=ok)
        np.bitwise_xor(ok, bk, out=ok)
    return out


def float_keys(x: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """totalOrder keys of a float16/32/64 array (any strides or byte order).

    ``out`` may be a preallocated native-endian signed-integer array of x's shape.
    """
    lay = layout_of(x.dtype)
    return _flip(as_bits(x), lay, out)


def keys_to_float(k: np.ndarray, dtype: np.dtype, out: np.ndarray | None = None) -> np.ndarray:
    """Invert :func:`float_keys`: the float array with exactly those bits."""
    lay = layout_of(dtype)
    return _flip(k, lay, out).view(lay.float_dtype)


def number_keys(lay: FloatLayout) -> tuple[int, int]:
    """(first, last) totalOrder key of a number (-inf .. +inf); NaN keys lie outside."""
    return lay.int_min + lay.nan_per_sign, lay.int_max - lay.nan_per_sign


def _blocks(lay: FloatLayout) -> tuple[int, int, int]:
    return (lay.nan_per_sign, *number_keys(lay))  # NPS, first number key, last number key


def remap_keys(k: np.ndarray, dtype: np.dtype, policy: NanPolicy) -> np.ndarray:
    """Turn totalOrder keys into "smallest"/"largest" keys (in place, returned).

    Any other policy leaves the keys as they are.
    """
    rank = RULES[policy].nan_rank
    if rank not in ("first", "last"):
        return k
    lay = layout_of(dtype)
    nps, lo, hi = _blocks(lay)
    t = lay.int_dtype.type
    # modular int arithmetic: the blocks wrap around the key range
    with np.errstate(over="ignore"):
        if rank == "last":
            neg_nan = k < lo
            is_num = ~neg_nan & (k <= hi)
            np.subtract(k, t(nps), out=k, where=is_num)
            np.subtract(k, t(2 * nps) if 2 * nps <= lay.int_max else t(2 * nps - (1 << lay.bits)),
                        out=k, where=neg_nan, casting="unsafe")
        else:
            pos_nan = k > hi
            is_num = ~pos_nan & (k >= lo)
            np.add(k, t(nps), out=k, where=is_num)
            np.add(k, t(2 * nps) if 2 * nps <= lay.int_max else t(2 * nps - (1 << lay.bits)),
                   out=k, where=pos_nan, casting="unsafe")
    return k


def unmap_keys(k: np.ndarray, dtype: np.dtype, policy: NanPolicy) -> np.ndarray:
    """Invert :func:`remap_keys` (in place, returned)."""
    rank = RULES[policy].nan_rank
    if rank not in ("first", "last"):
        return k
    lay = layout_of(dtype)
    nps = lay.nan_per_sign
    t = lay.int_dtype.type
    two = t(2 * nps) if 2 * nps <= lay.int_max else t(2 * nps - (1 << lay.bits))
    with np.errstate(over="ignore"):
        if rank == "last":
            # numbers now [INT_MIN, INT_MAX-2NPS], negative NaNs the next NPS keys
            num_end = lay.int_max - 2 * nps
            is_num = k <= t(num_end)
            neg_nan = ~is_num & (k <= t(num_end + nps))
            np.add(k, t(nps), out=k, where=is_num)
            np.add(k, two, out=k, where=neg_nan, casting="unsafe")
        else:
            # positive NaNs now [INT_MIN+NPS, INT_MIN+2NPS), numbers above them
            start = lay.int_min + nps
            pos_nan = (k >= t(start)) & (k < t(start + nps))
            is_num = k >= t(start + nps)
            np.subtract(k, t(nps), out=k, where=is_num)
            np.subtract(k, two, out=k, where=pos_nan, casting="unsafe")
    return k


def integer_keys(x: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """Order-preserving signed keys for bool/int/uint/datetime64/timedelta64 arrays."""
    kind = x.dtype.kind
    if kind == "b":
        return np.asarray(x, dtype=np.int8) if out is None else np.copyto(out, x) or out
    if kind in "mM":
        x = x.view(np.dtype("i8").newbyteorder(x.dtype.byteorder))
        kind = "i"
    if kind == "i":
        dt = x.dtype.newbyteorder("=")
        if out is None:
            return np.array(x, dtype=dt, order="C")
        np.copyto(out, x, casting="unsafe")
        return out
    if kind == "u":
        if x.dtype.itemsize < 8:
            wider = np.dtype(f"i{x.dtype.itemsize * 2}")
            if out is None:
                return np.array(x, dtype=wider, order="C")
            np.copyto(out, x, casting="unsafe")
            return out
        # uint64: flip the top bit so the signed order is the unsigned order
        u = x.view(np.dtype("i8").newbyteorder(x.dtype.byteorder))
        out = np.bitwise_xor(u, np.int64(-(1 << 63)), out=out, dtype=np.int64)
        return out
    raise TypeError(f"no integer keys for dtype {x.dtype}")


def totalorder_key(x: Any) -> np.ndarray:
    """Integer keys whose order is IEEE 754 totalOrder.

    -qNaN < -sNaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +sNaN < +qNaN, NaNs of
    one sign ordered by payload. The map is one-to-one and its own inverse on the
    bits, so equal keys mean identical bits.

    Parameters
    ----------
    x : array_like of float16, float32 or float64 (or ints, bool, datetime64)
        Any strides or byte order; never modified.

    Returns
    -------
    numpy.ndarray
        Signed integers of the same width (int16/int32/int64) and shape.

    Examples
    --------
    >>> import numpy as np, nanaccess as na
    >>> x = np.array([0.0, -0.0, np.inf, -np.nan, np.nan, -1.0])
    >>> x[np.argsort(na.totalorder_key(x), kind="stable")]
    array([nan, -1., -0.,  0., inf, nan])
    >>> na.totalorder_key(np.array([-0.0, 0.0]))
    array([-1,  0])
    """
    try:
        a = np.asarray(x)
    except ValueError:  # ragged / mixed iterables: look at them as objects
        vals = list(x)
        a = np.empty(len(vals), dtype=object)
        a[:] = vals
    if a.dtype.kind == "f":
        return float_keys(a)
    if a.dtype.kind == "O":
        for i, v in enumerate(a.ravel().tolist()):
            if classify_object(v)[0] == "other":
                pos = np.unravel_index(i, a.shape) if a.ndim > 1 else i
                raise TypeError(
                    f"non-numeric value {v!r} of type {type(v).__name__!r} at position {pos}"
                )
    if a.dtype.kind not in "biumM":
        raise TypeError(
            f"totalorder_key needs a float, int, bool or datetime array, got dtype {a.dtype}; "
            "Python objects (Decimal, huge ints) have no fixed-width key: use "
            "nanaccess.sort / argsort, which order them exactly"
        )
    return integer_keys(a)
