"""Python lists of floats to float64 arrays, checking every element's type on the way.

The list API may take the fast float64 path only when *every* element is an exact
``float``: ints (a median of ints is an int, and ints above 2**53 do not fit a
double), bools, Decimals and Fractions must take the exact object path, and
``np.array(list)`` would convert all of them silently.

Checking types in Python (``set(map(type, xs))``) and then converting
(``np.fromiter``) costs two passes of ~16 ns per element. :func:`marshal.dumps`
does both in one C pass: at version 2 a list is ``b"["``, a little-endian int32
length, then per element one type code and its payload, and an exact float is the
code ``b"g"`` followed by its 8 IEEE bytes copied verbatim (sign, payload and the
quiet bit of a NaN survive). Any other element either makes ``marshal`` refuse the
list or shows up as another code or another length, and then the caller falls
back to the generic path, so the format only ever speeds things up.
"""

from __future__ import annotations

import marshal
from operator import countOf
from typing import Any

import numpy as np

__all__ = ["float_list_array", "bool_list_falses"]

_RECORD = np.dtype([("code", "u1"), ("value", "<f8")])  # one marshalled float
_FLOAT_CODE = ord("g")  # marshal's TYPE_BINARY_FLOAT
_HEADER = 5  # b"[" + int32 length
_NO_REFS = 2  # marshal version without back-references: a fixed 9-byte stride
_TRUE, _FALSE = ord("T"), ord("F")  # marshal's TYPE_TRUE / TYPE_FALSE: one byte each


def float_list_array(seq: Any) -> np.ndarray | None:
    """float64 array of ``seq`` when it is a non-empty list/tuple of exact floats.

    Returns ``None`` for anything else (including float subclasses, ints and
    empty sequences); the caller then takes the generic path.

    Examples
    --------
    >>> float_list_array([1.5, float("nan"), -0.0])
    array([ 1.5,  nan, -0. ])
    >>> float_list_array([1.5, 2]) is None
    True
    """
    if type(seq) not in (list, tuple) or not seq:
        return None
    try:
        raw = marshal.dumps(seq, _NO_REFS)
    except (ValueError, RecursionError):  # unmarshallable elements
        return None
    n = len(seq)
    if len(raw) != _HEADER + _RECORD.itemsize * n:
        return None
    rec = np.frombuffer(raw, _RECORD, count=n, offset=_HEADER)
    if not (rec["code"] == _FLOAT_CODE).all():
        return None
    # the values sit at a 9-byte stride; one copy makes them aligned and native
    return rec["value"].astype(np.float64)


#: lists of bools up to this length are counted in Python (the crossover measured between 40 and 64)
_SHORT_BOOLS = 48


def bool_list_falses(seq: list) -> int | None:
    """The number of ``False`` in ``seq`` when it is a non-empty list of bools, else None.

    One :func:`marshal.dumps` pass: ``True`` and ``False`` are one byte each (``T``,
    ``F``), every other element takes more or another code, so the record length
    and the two counts prove the types (ints 0 and 1 are not bools).

    Examples
    --------
    >>> bool_list_falses([True, False, False])
    2
    >>> bool_list_falses([True, 0]) is None
    True
    """
    if type(seq) is not list or not seq:
        return None
    n = len(seq)
    if n <= _SHORT_BOOLS:  # NumPy's fixed cost would dominate: count in Python
        return seq.count(False) if countOf(map(type, seq), bool) == n else None
    try:
        raw = marshal.dumps(seq, _NO_REFS)
    except (ValueError, RecursionError):
        return None
    if len(raw) != _HEADER + n:
        return None
    codes = np.frombuffer(raw, np.uint8, count=n, offset=_HEADER)
    falses = int(np.count_nonzero(codes == _FALSE))
    return falses if falses + int(np.count_nonzero(codes == _TRUE)) == n else None
