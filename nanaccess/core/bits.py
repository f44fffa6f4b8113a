"""Bit layouts of IEEE binary16/32/64 and integer views of float arrays."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["FloatLayout", "layout_of", "as_bits", "any_signaling"]


@dataclass(frozen=True)
class FloatLayout:
    """Constants of one IEEE binary format, as Python ints and NumPy dtypes."""

    float_dtype: np.dtype
    int_dtype: np.dtype  # signed view of the bits; also the dtype of the keys
    uint_dtype: np.dtype
    bits: int
    mantissa_bits: int

    @property
    def sign_bit(self) -> int:
        return 1 << (self.bits - 1)

    @property
    def magnitude_mask(self) -> int:  # all bits but the sign: also INT_MAX
        return self.sign_bit - 1

    @property
    def exp_mask(self) -> int:
        return self.magnitude_mask & ~((1 << self.mantissa_bits) - 1)

    @property
    def quiet_bit(self) -> int:
        return 1 << (self.mantissa_bits - 1)

    @property
    def payload_mask(self) -> int:  # mantissa bits below the quiet bit
        return self.quiet_bit - 1

    @property
    def int_min(self) -> int:
        return -self.sign_bit

    @property
    def int_max(self) -> int:
        return self.magnitude_mask

    @property
    def nan_per_sign(self) -> int:
        """How many NaN bit patterns one sign has (quiet and signaling)."""
        return (1 << self.mantissa_bits) - 1

    @property
    def canonical_nan(self) -> int:
        """Bits of the canonical positive quiet NaN (0x7FF8000000000000 for binary64)."""
        return self.exp_mask | self.quiet_bit


def _layout(ft: str, it: str, ut: str, mant: int) -> FloatLayout:
    f = np.dtype(ft)
    return FloatLayout(f, np.dtype(it), np.dtype(ut), f.itemsize * 8, mant)


_LAYOUTS = {
    np.dtype(np.float16): _layout("float16", "int16", "uint16", 10),
    np.dtype(np.float32): _layout("float32", "int32", "uint32", 23),
    np.dtype(np.float64): _layout("float64", "int64", "uint64", 52),
}


def layout_of(dtype: np.dtype) -> FloatLayout:
    """The :class:`FloatLayout` of a float16/32/64 dtype of either byte order."""
    lay = _LAYOUTS.get(dtype)
    if lay is not None:
        return lay
    dtype = np.dtype(dtype)
    try:
        return _LAYOUTS[dtype.newbyteorder("=")]
    except KeyError:
        raise TypeError(
            f"no IEEE bit layout for dtype {dtype}; nanaccess handles float16, float32 "
            "and float64 on the array path (longdouble: convert or use an object array)"
        ) from None


def as_bits(x: np.ndarray) -> np.ndarray:
    """Signed-integer view of the bits of a float array (no copy; byte order kept)."""
    lay = layout_of(x.dtype)
    return x.view(lay.int_dtype.newbyteorder(x.dtype.byteorder))


#: native float dtype -> (its signed-integer view dtype, the quiet bit in that type)
_QUIET_OF = {np.dtype(c): (lay.int_dtype, lay.int_dtype.type(lay.quiet_bit))
             for c in ("f2", "f4", "f8") for lay in (layout_of(np.dtype(c)),)}


#: float type code -> (its signed-integer view dtype, the quiet bit as a Python int)
_QUIET_INT = {dt.char: (view, int(quiet)) for dt, (view, quiet) in _QUIET_OF.items()}


def any_signaling(nans: np.ndarray) -> bool:
    """Whether one of the NaNs ``nans`` (a native float16/32/64 array holding only
    NaNs) is signaling: its layout's quiet bit clear. The dtypes are looked up, not
    built per call (the small-data paths call this)."""
    if nans.size <= 8:  # a few NaNs (the small paths): Python ints beat four NumPy calls
        view, q = _QUIET_INT[nans.dtype.char]
        for v in nans.view(view).tolist():
            if not v & q:
                return True
        return False
    view, q = _QUIET_INT[nans.dtype.char]  # every quiet bit set: their AND has it
    return not np.bitwise_and.reduce(nans.view(view)) & q

