"""Classification of values: number, quiet NaN, signaling NaN, missing (spec section 1).

Arrays of float16/32/64 are classified on their bit patterns without Python loops;
datetime64/timedelta64 NaT counts as missing; everything else goes through the
object path (:func:`nanaccess.core.objects.classify_object`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from decimal import Decimal
from typing import Any

import numpy as np

from ..options import NanPolicy
from .axes import Reduction
from .bits import as_bits, layout_of
from .keys import number_keys
from .objects import classify_object
from .policy import RULES, NanTally, raise_for

__all__ = [
    "isnan",
    "issignaling",
    "nan_payload",
    "make_nan",
    "nan_report",
    "NanScan",
    "scan_rows",
    "quiet",
    "canonical_nan",
    "values_and_missing",
    "register_host_split",
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


def _is_float_array(a: np.ndarray) -> bool:
    return a.dtype.kind == "f" and a.dtype.itemsize in (2, 4, 8)


def _float_masks(a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
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


def _object_map(a: np.ndarray, fn) -> np.ndarray:
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


#: functions splitting a host object (a nullable / Arrow pandas column) into
#: ``(values, missing)``, or returning None for objects they do not know. The
#: boundary (:func:`nanaccess._boundary.split_host`) installs them, so the core
#: imports no adapter.
_HOST_SPLITS: list[Callable[[Any], tuple[Any, np.ndarray | None] | None]] = []


def register_host_split(fn: Callable[[Any], tuple[Any, np.ndarray | None] | None]) -> None:
    """Install ``fn`` as a host split read by :func:`values_and_missing` (once)."""
    if fn not in _HOST_SPLITS:
        _HOST_SPLITS.append(fn)


def values_and_missing(data: Any, missing: np.ndarray | None = None
                       ) -> tuple[Any, np.ndarray | None]:
    """``data``'s values and its missing mask, kept apart (None when nothing is missing).

    A masked array's mask is read here; a host object (nullable / Arrow pandas
    columns: their value bits are read from the buffers, so a NaN stays a NaN) by
    the splits the boundary installed (:func:`register_host_split`). Anything else is
    returned as is. ``missing`` (a mask the caller already has) is or-ed in.
    """
    miss = None
    if isinstance(data, np.ma.MaskedArray):
        miss = np.ma.getmaskarray(data)
        data = np.ma.getdata(data)
    elif not isinstance(data, np.ndarray | np.generic):
        for split in _HOST_SPLITS:
            got = split(data)
            if got is not None:
                data, miss = got
                break
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
    if _is_float_array(a):
        out = np.isnan(a)
    elif a.dtype.kind in "biumM":
        out = np.zeros(a.shape, dtype=bool)
    else:
        out = _object_map(a, lambda c: c[0] == "nan").astype(bool)
    return out if miss is None else out & ~miss


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
    if _is_float_array(a):
        out = _float_masks(a)[1]
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
    if _is_float_array(a):
        out = _float_masks(a)[3]
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
    return np.array(bits, dtype=lay.uint_dtype).view(lay.float_dtype)[()]


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
    return np.array(lay.canonical_nan, dtype=lay.uint_dtype).view(lay.float_dtype)[()]


def nan_report(data: Any) -> dict[str, int]:
    """Count the kinds of values in ``data``.

    Parameters
    ----------
    data : array_like or iterable
        pandas and xarray objects are handled by their ``.nanstats.nan_report()``.

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
    mod = type(data).__module__.split(".")[0]
    if mod in ("pandas", "xarray") and hasattr(data, "nanstats"):
        return data.nanstats.nan_report()
    if isinstance(data, np.ma.MaskedArray):
        return _report_array(np.ma.getdata(data), np.ma.getmaskarray(data))
    a = data if isinstance(data, np.ndarray) else None
    if a is None:
        try:
            a = np.asarray(data)
        except (ValueError, TypeError):
            a = np.asarray(list(data), dtype=object)
        if a.dtype.kind in "OUSc":  # keep each object as given (1.0 beside 1j is real)
            a = np.asarray(list(data) if not isinstance(data, np.ndarray) else data, dtype=object)
    return _report_array(a, missing=None)


def _report_array(a: np.ndarray, missing: np.ndarray | None) -> dict[str, int]:
    n = int(a.size)
    n_other = 0  # values that are not numbers (strings): no count of their own
    if _is_float_array(a):
        nan, sig, neg, payload = _float_masks(a)
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


# --------------------------------------------------------------------------------------
# policy checks on the (rows, n) layout used by the kernels


class NanScan:
    """Where the NaNs and missing values of a reduction sit, in ``(rows, n)`` layout."""

    __slots__ = ("nan", "missing", "nnan", "nmiss")

    def __init__(self, nan, missing, nnan, nmiss) -> None:
        # bool (rows, n) NaN mask; None when there is no NaN or when the scan read
        # the keys block by block (then only the counts and the blocks are known)
        self.nan = nan
        self.missing = missing  # bool (rows, n), None when nothing is missing
        self.nnan = nnan  # int64 (rows,)
        self.nmiss = nmiss  # int64 (rows,)

    @property
    def has_nan(self) -> bool:
        return self.nan is not None or bool(self.nnan.any())

    @property
    def removed(self) -> np.ndarray | None:
        """bool mask of NaN or missing values (mask scans only)."""
        if self.nan is None:
            return self.missing
        if self.missing is None:
            return self.nan
        return self.nan | self.missing


def _count_rows(mask: np.ndarray) -> np.ndarray:
    if mask.shape[0] == 1:
        return np.array([np.count_nonzero(mask)], dtype=np.int64)
    return np.count_nonzero(mask, axis=1).astype(np.int64)


def scan_rows(
    x: np.ndarray,
    red: Reduction,
    policy: NanPolicy,
    missing: np.ndarray | None = None,
    keys: np.ndarray | None = None,
    visit: Callable[..., None] | None = None,
) -> NanScan:
    """Find NaN / missing values of ``x`` in row layout and apply the policy's errors.

    ``keys`` (the ``(rows, n)`` totalOrder keys, when the caller has them) lets the
    scan read only the keys, one block at a time; ``visit(start, block, indices,
    nan_keys)`` is then called for every block holding NaNs (flat start in ``keys``, a
    writable view of the block, the NaNs' indices in it and their keys), and the scan
    keeps no positions.

    Raises
    ------
    SignalingNaNError
        A signaling NaN is present and the policy is not "totalorder".
    NaNError
        A NaN or missing value is present under "raise".
    """
    if keys is not None and x.dtype.kind == "f":
        return _scan_keys(x, red, policy, missing, keys, visit)
    nan = None
    if x.dtype.kind == "f" and x.size:
        buf, nan = red.empty_rows(bool)
        np.isnan(red.moved(x), out=buf)
        if not np.count_nonzero(nan):
            nan = None
    if x.dtype.kind in "mM":
        nat = np.isnat(x)
        if nat.any():
            missing = nat if missing is None else (missing | nat)
    miss_rows = None
    if missing is not None:
        missing = np.asarray(missing, dtype=bool)
        if missing.any():
            miss_rows = red.as_rows(missing)
            if nan is not None:
                nan &= ~miss_rows
                if not nan.any():
                    nan = None
    r = RULES[policy]
    if nan is not None and not r.signaling_allowed:
        lay = layout_of(x.dtype)
        bits = as_bits(red.as_rows(x))[nan]
        if r.nan_raises or (bits & lay.int_dtype.type(lay.quiet_bit) == 0).any():
            _raise_policy(x, policy, missing)
    if miss_rows is not None and r.missing_raises:
        _raise_policy(x, policy, missing)
    zeros = np.zeros(red.rows, dtype=np.int64)
    return NanScan(
        nan=nan,
        missing=miss_rows,
        nnan=_count_rows(nan) if nan is not None else zeros,
        nmiss=_count_rows(miss_rows) if miss_rows is not None else zeros,
    )


_SCAN_BLOCK = 1 << 15  # elements per block: NaN positions without a full-size mask


def nan_key_blocks(
    flat: np.ndarray, dtype: np.dtype, miss_flat: np.ndarray | None = None,
) -> Iterator[tuple[int, np.ndarray, np.ndarray]]:
    """Yield ``(start, block, local NaN indices)`` for the blocks of ``flat`` with NaNs.

    ``flat`` holds totalOrder keys of ``dtype`` data; NaN keys lie outside
    ``[INT_MIN + NPS, INT_MAX - NPS]``. ``block`` is a writable view of ``flat`` and
    missing positions (``miss_flat``) are not NaNs. The only scratch is two
    block-sized boolean buffers, reused for every block.
    """
    t = layout_of(dtype).int_dtype.type
    lo, hi = (t(k) for k in number_keys(layout_of(dtype)))
    size = min(_SCAN_BLOCK, flat.size)
    hit_buf, tmp_buf = np.empty(size, dtype=bool), np.empty(size, dtype=bool)
    for start in range(0, flat.size, _SCAN_BLOCK):
        blk = flat[start:start + _SCAN_BLOCK]
        hit, tmp = hit_buf[:blk.size], tmp_buf[:blk.size]
        np.less(blk, lo, out=hit)
        hit |= np.greater(blk, hi, out=tmp)
        if miss_flat is not None:
            hit &= ~np.asarray(miss_flat[start:start + _SCAN_BLOCK])
        if hit.any():
            yield start, blk, np.flatnonzero(hit)


def nan_tally(x: np.ndarray, missing: np.ndarray | None = None) -> NanTally:
    """The :class:`NanTally` of ``x`` (positions in its C order): NaNs, signaling
    NaNs, NaT and ``missing`` (a missing entry is never a NaN).

    Full-size masks: for the error path, not for the hot path.
    """
    miss = None if missing is None else np.asarray(missing, dtype=bool)
    if x.dtype.kind in "mM":
        nat = np.isnat(x)
        miss = nat if miss is None else (miss | nat)
    nan = sig = None
    if _is_float_array(x):
        nan = np.isnan(x) if miss is None else (np.isnan(x) & ~miss)
        lay = layout_of(x.dtype)
        sig = nan & ((as_bits(x) & lay.int_dtype.type(lay.quiet_bit)) == 0)
    return NanTally.from_masks(nan=nan, signaling=sig, missing=miss)


def _raise_policy(x, policy: NanPolicy, missing) -> None:
    """Raise the error ``policy`` has for ``x`` (see :func:`policy.raise_for`)."""
    raise_for(nan_tally(x, missing), policy, shape=x.shape)


def _scan_keys(x, red: Reduction, policy: NanPolicy, missing, keys: np.ndarray,
               visit: Callable[..., None] | None) -> NanScan:
    """:func:`scan_rows` reading the NaNs off the ``(rows, n)`` totalOrder keys.

    Blocks of keys are scanned one at a time (:func:`nan_key_blocks`): the NaNs are
    counted per row, checked for the signaling bit, and handed to ``visit`` while the
    block is in cache. Nothing of full size is allocated (the spec's memory bound:
    one extra copy, the keys) and ``x`` is not read a second time.
    """
    lay = layout_of(x.dtype)
    t = lay.int_dtype.type
    rows, n = keys.shape
    flat = keys.reshape(-1)
    miss_rows = miss_flat = None
    if missing is not None:
        missing = np.asarray(missing, dtype=bool)
        if missing.any():
            miss_rows = red.as_rows(missing)
            miss_flat = miss_rows.reshape(-1)
    nnan = np.zeros(rows, dtype=np.int64)
    r = RULES[policy]
    for start, blk, idx in nan_key_blocks(flat, x.dtype, miss_flat):
        if r.nan_raises:
            _raise_policy(x, policy, missing)
        nk = blk[idx]
        if not r.signaling_allowed:
            bits = nk ^ ((nk >> (lay.bits - 1)) & t(lay.int_max))
            if (bits & t(lay.quiet_bit) == 0).any():
                _raise_policy(x, policy, missing)
        if rows == 1:
            nnan[0] += idx.size
        else:
            nnan += np.bincount((idx + start) // n, minlength=rows)
        if visit is not None:
            visit(start, blk, idx, nk)
    if miss_rows is not None and r.missing_raises:
        _raise_policy(x, policy, missing)
    return NanScan(
        nan=None,
        missing=miss_rows,
        nnan=nnan,
        nmiss=_count_rows(miss_rows) if miss_rows is not None else np.zeros(rows, np.int64),
    )
