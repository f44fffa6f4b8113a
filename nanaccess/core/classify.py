"""Classification of values: number, quiet NaN, signaling NaN, missing (spec section 1).

Arrays of float16/32/64 are classified on their bit patterns without Python loops;
datetime64/timedelta64 NaT counts as missing; everything else goes through the
object path (:func:`nanaccess.core.objects.classify_object`).
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any, cast

import numpy as np

from .bits import as_bits, layout_of
from .objects import classify_object

__all__ = [
    "isnan",
    "issignaling",
    "nan_payload",
    "make_nan",
    "nan_report",
    "is_float_array",
    "quiet",
    "canonical_nan",
    "values_and_missing",
]

REPORT_KEYS = (
    "values",
    "numbers",
    "nan",
    "quiet_nan",
    "signaling_nan",
    "negative_nan",
    "distinct_payloads",
    "posinf",
    "neginf",
    "missing",
)


def is_float_array(a: np.ndarray) -> bool:
    return a.dtype.kind == "f" and a.dtype.itemsize in (2, 4, 8)


def float_masks(a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(nan, signaling, negative, payload) for a float array, vectorised on the bits."""
    lay = layout_of(a.dtype)
    bits = as_bits(a)
    nan = np.isnan(a)
    t = lay.int_dtype.type
    quiet_bit = (bits & t(lay.quiet_bit)) != 0
    signaling = nan & ~quiet_bit
    negative = nan & (bits < 0)
    payload = np.where(nan, (bits & t(lay.payload_mask)).astype(np.int64), np.int64(-1))
    return nan, signaling, negative, payload


def _object_map(a: np.ndarray, fn: Any) -> np.ndarray:
    flat = [fn(_scalar_class(v)) for v in a.ravel().tolist()]
    return np.array(flat, dtype=object if not flat else None).reshape(a.shape)


def _scalar_class(x: Any) -> tuple[str, int, int, bool]:
    """:func:`classify_object`, except that a complex number with a NaN part is that
    NaN (as :func:`cmath.isnan` and :func:`numpy.isnan` say) for the classifying
    functions; order statistics keep refusing complex numbers ("other")."""
    c = classify_object(x)
    if c[0] == "other" and isinstance(x, complex | np.complexfloating):
        for part in (x.real, x.imag):
            pc = classify_object(part)
            if pc[0] == "nan":
                return pc
    return c


def values_and_missing(data: Any, missing: np.ndarray | None = None,
                       split: Callable[[Any], tuple[Any, np.ndarray | None] | None] | None
                       = None) -> tuple[Any, np.ndarray | None]:
    """``data``'s values and its missing mask, kept apart (None when nothing is missing).

    A masked array's mask is read here; a host object (nullable / Arrow pandas
    columns: their value bits are read from the buffers, so a NaN stays a NaN) by
    ``split``, the boundary's host split (:func:`nanaccess._boundary.split_host`),
    passed by the caller: the core knows no host. Anything else is returned as is.
    ``missing`` (a mask the caller already has) is or-ed in.
    """
    miss = None
    if isinstance(data, np.ma.MaskedArray):
        miss = np.ma.getmaskarray(data)
        data = np.ma.getdata(data)
    elif split is not None and not isinstance(data, np.ndarray | np.generic):
        got = split(data)
        if got is not None:
            data, miss = got
    if missing is not None:
        missing = np.asarray(missing, dtype=bool)
        miss = missing if miss is None else (miss | missing)
    return data, (miss if miss is not None and miss.any() else None)


def _as_array_or_none(x: Any) -> np.ndarray | None:
    if isinstance(x, np.ndarray):
        return x
    if hasattr(x, "__array__") and not np.isscalar(x) and not isinstance(x, np.generic):
        return np.asarray(x)
    if isinstance(x, list | tuple):
        return np.asarray(x, dtype=object)
    return None


def isnan(x: Any, missing: Any = None) -> bool | np.ndarray:
    """True where ``x`` is a NaN (quiet or signaling) of any numeric type.

    Unlike :func:`math.isnan` it never raises: huge ints, Decimals (``sNaN``
    included), Fractions, NumPy scalars, ``None`` and ``pd.NA`` are all accepted.
    Missing values (``None``, ``pd.NA``, ``NaT``) are not NaN.

    Parameters
    ----------
    x : scalar or array_like
    missing : bool array_like, optional
        Entries of ``x`` that are missing (masked, nullable, Arrow nulls): never NaN,
        whatever their bits. A masked array's mask and a pandas column's missing
        slots are read without it. :func:`issignaling` and :func:`nan_payload` take
        it too.

    Returns
    -------
    bool or numpy.ndarray of bool

    Examples
    --------
    >>> import nanaccess as na
    >>> from decimal import Decimal
    >>> na.isnan(10**1000), na.isnan(Decimal("sNaN")), na.isnan(None)
    (False, True, False)
    >>> na.isnan(np.array([1.0, np.nan], dtype=np.float32))
    array([False,  True])
    """
    x, miss = values_and_missing(x, missing)
    a = _as_array_or_none(x)
    if a is None:
        return _scalar_class(x)[0] == "nan"
    if is_float_array(a):
        out = np.isnan(a)
    elif a.dtype.kind in "biumM":
        out = np.zeros(a.shape, dtype=bool)
    else:
        out = _object_map(a, lambda c: c[0] == "nan").astype(bool)
    return cast("bool | np.ndarray", out if miss is None else out & ~miss)


def issignaling(x: Any, missing: Any = None) -> bool | np.ndarray:
    """True where ``x`` is a signaling NaN (float quiet bit clear, or ``Decimal('sNaN')``).

    Parameters
    ----------
    x : scalar or array_like
        Any number (float, NumPy scalar, Decimal, huge int...) or array.
    missing : bool array_like, optional
        Entries of ``x`` that are missing (never NaN, whatever their bits), as
        :func:`isnan`.

    Returns
    -------
    bool or numpy.ndarray of bool

    Examples
    --------
    >>> import nanaccess as na
    >>> from decimal import Decimal
    >>> na.issignaling(na.make_nan(1, signaling=True)), na.issignaling(float("nan"))
    (True, False)
    >>> na.issignaling(Decimal("-sNaN7"))
    True
    """
    x, miss = values_and_missing(x, missing)
    a = _as_array_or_none(x)
    if a is None:
        c = _scalar_class(x)
        return c[0] == "nan" and not c[3]
    if is_float_array(a):
        out = float_masks(a)[1]
    elif a.dtype.kind in "biumM":
        out = np.zeros(a.shape, dtype=bool)
    else:
        out = _object_map(a, lambda c: c[0] == "nan" and not c[3]).astype(bool)
    return out if miss is None else out & ~miss


def nan_payload(x: Any, missing: Any = None) -> int | None | np.ndarray:
    """Payload of a NaN: the mantissa bits below the quiet bit, or a Decimal NaN's digits.

    Scalars give an ``int`` (``None`` when ``x`` is not a NaN); arrays an int64 array
    with -1 where not NaN.

    Parameters
    ----------
    x, missing
        As :func:`issignaling`.

    Returns
    -------
    int, None or numpy.ndarray of int64

    Examples
    --------
    >>> import nanaccess as na
    >>> from decimal import Decimal
    >>> na.nan_payload(na.make_nan(42)), na.nan_payload(Decimal("-NaN123")), na.nan_payload(1.0)
    (42, 123, None)
    >>> na.nan_payload(np.array([np.nan, 0.0]))
    array([ 0, -1])
    """
    x, miss = values_and_missing(x, missing)
    a = _as_array_or_none(x)
    if a is None:
        c = _scalar_class(x)
        return c[2] if c[0] == "nan" else None
    if is_float_array(a):
        out = float_masks(a)[3]
    elif a.dtype.kind in "biumM":
        out = np.full(a.shape, -1, dtype=np.int64)
    else:
        out = _object_map(a, lambda c: c[2] if c[0] == "nan" else -1).astype(np.int64)
    if miss is not None:
        out = np.where(miss, np.int64(-1), out)
    return out


def make_nan(
    payload: int = 0,
    *,
    negative: bool = False,
    signaling: bool = False,
    dtype: Any = "float64",
) -> np.floating:
    """Build a NaN with the given payload, sign and kind.

    Parameters
    ----------
    payload : int
        Mantissa bits below the quiet bit (0 <= payload < 2**(mantissa bits - 1)).
        A signaling NaN needs a non-zero payload (payload 0 would be infinity).
    negative : bool
        Set the sign bit.
    signaling : bool
        Clear the quiet bit.
    dtype : float16, float32 or float64

    Returns
    -------
    numpy scalar of ``dtype``

    Examples
    --------
    >>> import nanaccess as na
    >>> x = na.make_nan(5, negative=True)
    >>> hex(int(np.float64(x).view(np.uint64)))
    '0xfff8000000000005'
    >>> na.issignaling(na.make_nan(1, signaling=True, dtype="float32"))
    True
    """
    lay = layout_of(np.dtype(dtype))
    if isinstance(payload, bool) or not isinstance(payload, int | np.integer):
        raise TypeError(f"payload must be an integer, got {payload!r}")
    payload = int(payload)
    if not 0 <= payload <= lay.payload_mask:
        raise ValueError(
            f"payload must be in [0, {lay.payload_mask}] for {lay.float_dtype}, got {payload}"
        )
    if signaling and payload == 0:
        raise ValueError("a signaling NaN needs a non-zero payload (payload 0 is infinity)")
    bits = lay.exp_mask | payload | (0 if signaling else lay.quiet_bit)
    if negative:
        bits |= lay.sign_bit
    # a 0-d array indexed by () is a scalar (NumPy's stubs say an array)
    return cast("np.floating", np.array(bits, dtype=lay.uint_dtype).view(lay.float_dtype)[()])


def quiet(values: np.ndarray) -> np.ndarray:
    """Set the quiet bit of every NaN in a float array (sign and payload kept); a copy."""
    lay = layout_of(values.dtype)
    out = np.array(values, dtype=values.dtype.newbyteorder("="), copy=True)
    bits = out.view(lay.int_dtype)
    nan = np.isnan(out)
    bits[nan] |= lay.int_dtype.type(lay.quiet_bit)
    return out


def canonical_nan(dtype: Any) -> np.floating:
    """The canonical positive quiet NaN of a float dtype (0x7FF8000000000000 for float64)."""
    lay = layout_of(np.dtype(dtype))
    return cast("np.floating",
                np.array(lay.canonical_nan, dtype=lay.uint_dtype).view(lay.float_dtype)[()])


def nan_report(data: Any) -> dict[str, int]:
    """Count the kinds of values in ``data``.

    Parameters
    ----------
    data : array_like or iterable
        :func:`nanaccess.nan_report` hands pandas and xarray objects to their
        ``.nanstats.nan_report()``.

    Returns
    -------
    dict
        ``values, numbers, nan, quiet_nan, signaling_nan, negative_nan,
        distinct_payloads, posinf, neginf, missing``.

    Examples
    --------
    >>> import nanaccess as na
    >>> r = na.nan_report([1.0, float("nan"), -float("inf"), None, na.make_nan(3, negative=True)])
    >>> r["nan"], r["negative_nan"], r["distinct_payloads"], r["neginf"], r["missing"]
    (2, 1, 2, 1, 1)
    """
    if isinstance(data, np.ma.MaskedArray):
        return report_array(np.ma.getdata(data), np.ma.getmaskarray(data))
    a = data if isinstance(data, np.ndarray) else None
    if a is None:
        try:
            a = np.asarray(data)
        except (ValueError, TypeError):
            a = np.asarray(list(data), dtype=object)
        if a.dtype.kind in "OUSc":  # keep each object as given (1.0 beside 1j is real)
            a = np.asarray(list(data) if not isinstance(data, np.ndarray) else data, dtype=object)
    return report_array(a, missing=None)


def report_array(a: np.ndarray, missing: np.ndarray | None) -> dict[str, int]:
    n = int(a.size)
    n_other = 0  # values that are not numbers (strings): no count of their own
    if is_float_array(a):
        nan, sig, neg, payload = float_masks(a)
        if missing is not None:
            nan = nan & ~missing
            sig, neg = sig & ~missing, neg & ~missing
        nnan = int(nan.sum())
        nmiss = int(missing.sum()) if missing is not None else 0
        posinf = int(np.count_nonzero(a == np.inf))
        neginf = int(np.count_nonzero(a == -np.inf))
        distinct = int(np.unique(payload[nan]).size) if nnan else 0
        nsig = int(sig.sum())
        nneg = int(neg.sum())
    elif a.dtype.kind in "biumM":
        nnan = nsig = nneg = distinct = posinf = neginf = 0
        miss = np.isnat(a) if a.dtype.kind in "mM" else np.zeros(a.shape, bool)
        if missing is not None:
            miss = miss | missing
        nmiss = int(miss.sum())
    else:
        classes = [_scalar_class(v) for v in a.ravel().tolist()]
        mflat = missing.ravel().tolist() if missing is not None else [False] * n
        nnan = nsig = nneg = posinf = neginf = nmiss = nother = 0
        payloads = set()
        for v, (cls, sign, pay, q), m in zip(a.ravel().tolist(), classes, mflat, strict=True):
            if m or cls == "missing":
                nmiss += 1
            elif cls == "other" and not isinstance(v, complex | np.complexfloating):
                nother += 1  # strings: values, not numbers (1+0j is a number)
            elif cls == "nan":
                nnan += 1
                nsig += not q
                nneg += sign
                payloads.add(pay)
        for v, (cls, *_) in zip(a.ravel().tolist(), classes, strict=True):
            if cls != "number":
                continue
            if isinstance(v, float | np.floating) and np.isinf(v):
                posinf += v > 0
                neginf += v < 0
            elif isinstance(v, Decimal) and v.is_infinite():
                posinf += not v.is_signed()
                neginf += v.is_signed()
        distinct = len(payloads)
        n_other = nother
    return {
        "values": n,
        "numbers": n - nnan - nmiss - n_other,
        "nan": nnan,
        "quiet_nan": nnan - nsig,
        "signaling_nan": nsig,
        "negative_nan": nneg,
        "distinct_payloads": distinct,
        "posinf": posinf,
        "neginf": neginf,
        "missing": nmiss,
    }
