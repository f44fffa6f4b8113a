"""A slow, pure-Python oracle for the NaN contract (spec: docs "NaN semantics").

Nothing here imports nanaccess. Float values are handled as their raw bit patterns,
read with :mod:`struct`, and ordered by IEEE 754 totalOrder keys built from those
integers, so the oracle shares no code (and no bugs) with the NumPy key transform.

Interpolation arithmetic uses NumPy scalars of the data's dtype, following
``numpy.quantile``'s ``_lerp`` formula and ``numpy.mean`` for the midpoint, plus the
contract's repairs (weight-zero pick, NaN neighbour quieted, canonical NaN, no
overflow of the midpoint).
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass

import numpy as np

# ------------------------------------------------------------------- bit layouts


@dataclass(frozen=True)
class Layout:
    width: int
    mant: int
    ufmt: str  # struct format of the unsigned integer of this width
    dtype: np.dtype

    @property
    def sign_bit(self) -> int:
        return 1 << (self.width - 1)

    @property
    def mag_mask(self) -> int:
        return self.sign_bit - 1

    @property
    def exp_mask(self) -> int:
        return self.mag_mask & ~((1 << self.mant) - 1)

    @property
    def quiet_bit(self) -> int:
        return 1 << (self.mant - 1)

    @property
    def payload_mask(self) -> int:
        return self.quiet_bit - 1

    @property
    def canonical_nan(self) -> int:
        return self.exp_mask | self.quiet_bit


LAYOUTS = {
    16: Layout(16, 10, "H", np.dtype(np.float16)),
    32: Layout(32, 23, "I", np.dtype(np.float32)),
    64: Layout(64, 52, "Q", np.dtype(np.float64)),
}


def layout(dtype) -> Layout:
    return LAYOUTS[np.dtype(dtype).itemsize * 8]


def bits_list(arr: np.ndarray) -> list[int]:
    """Bit patterns of a float array, C order, read with struct (any byte order)."""
    a = np.asarray(arr)
    lay = layout(a.dtype)
    order = ">" if a.dtype.byteorder == ">" else "<"
    if a.dtype.byteorder == "=" or a.dtype.byteorder == "|":
        order = "<" if np.little_endian else ">"
    raw = np.ascontiguousarray(a).tobytes()
    return list(struct.unpack(f"{order}{a.size}{lay.ufmt}", raw))


def bits_of_scalar(v) -> int:
    """Bits of one NumPy float scalar / 0-d array (struct read)."""
    return bits_list(np.asarray(v).reshape(1))[0]


def from_bits(bits: list[int] | int, dtype) -> np.ndarray:
    """Float array (native order) with exactly these bit patterns (struct write)."""
    lay = layout(dtype)
    if isinstance(bits, int):
        bits = [bits]
    raw = struct.pack(f"<{len(bits)}{lay.ufmt}", *bits)
    return np.frombuffer(raw, dtype=np.dtype(dtype).newbyteorder("<")).astype(
        np.dtype(dtype).newbyteorder("="))


def float64_bits(x: float) -> int:
    return struct.unpack("<Q", struct.pack("<d", x))[0]


# ---------------------------------------------------------------- classification


def is_nan(b: int, lay: Layout) -> bool:
    return (b & lay.exp_mask) == lay.exp_mask and (b & ((1 << lay.mant) - 1)) != 0


def is_signaling(b: int, lay: Layout) -> bool:
    return is_nan(b, lay) and not (b & lay.quiet_bit)


def is_negative(b: int, lay: Layout) -> bool:
    return bool(b & lay.sign_bit)


def payload(b: int, lay: Layout) -> int:
    return b & lay.payload_mask


def quieted(b: int, lay: Layout) -> int:
    return b | lay.quiet_bit if is_nan(b, lay) else b


# ---------------------------------------------------------------------- keys


def total_key(b: int, lay: Layout) -> int:
    """IEEE 754 totalOrder as a Python int: -(magnitude)-1 for negatives."""
    mag = b & lay.mag_mask
    return -mag - 1 if b & lay.sign_bit else mag


def policy_key(b: int, lay: Layout, policy: str):
    """Sort key of bit pattern ``b`` under an ordering policy."""
    k = total_key(b, lay)
    if policy == "smallest":
        return (0 if is_nan(b, lay) else 1, k)
    if policy == "largest":
        return (1 if is_nan(b, lay) else 0, k)
    return (0, k)  # totalorder (and numbers-only data)


# ---------------------------------------------------------------------- errors


class OracleNaN(Exception):
    """The oracle says: NaNError."""


class OracleSignaling(OracleNaN):
    """The oracle says: SignalingNaNError."""


def check(bits: list[int], lay: Layout, policy: str) -> None:
    if policy != "totalorder" and any(is_signaling(b, lay) for b in bits):
        raise OracleSignaling()
    if policy == "raise" and any(is_nan(b, lay) for b in bits):
        raise OracleNaN()


# ----------------------------------------------------------- quantile positions


def positions(n: int, q: float, method: str) -> tuple[int, int, float]:
    """(lo, hi, weight of hi) as numpy.quantile's virtual index, in Python floats."""
    nm1 = n - 1
    if method in ("linear", "inclusive"):
        vi = nm1 * q
    elif method == "lower":
        vi = float(math.floor(nm1 * q))
    elif method == "higher":
        vi = float(math.ceil(nm1 * q))
    elif method == "nearest":
        vi = float(round(nm1 * q))  # round half to even, as np.around
    elif method == "midpoint":
        vi = 0.5 * (math.floor(nm1 * q) + math.ceil(nm1 * q))
    elif method in ("exclusive", "weibull"):
        vi = n * q + (0.0 + q * (1 - 0.0 - 0.0)) - 1
    else:
        raise ValueError(method)
    if vi >= nm1:
        return nm1, nm1, 0.0
    if vi < 0:
        return 0, 0, 0.0
    lo = math.floor(vi)
    t = vi - lo
    if method == "midpoint" and t != 0:
        t = 0.5
    return lo, lo + 1, t


# ---------------------------------------------------------------- arithmetic


def _np_scalar(b: int, lay: Layout):
    return from_bits([b], lay.dtype)[0]


def lerp_bits(a: int, b: int, t: float, lay: Layout) -> int:
    """The contract's interpolation between stored neighbours a (lower) and b."""
    if t == 0:
        return a
    an, bn = is_nan(a, lay), is_nan(b, lay)
    if bn:
        return quieted(b, lay)
    if an:
        return quieted(a, lay)
    fa, fb = _np_scalar(a, lay), _np_scalar(b, lay)
    ft = lay.dtype.type(t)
    # NumPy's scalar-q lerp: 1 - t in float64, then cast (issue 25 class 9)
    omt = lay.dtype.type(1.0 - float(t))
    with np.errstate(all="ignore"):
        if np.isinf(fa) and fa == fb:
            res = fa
        else:
            diff = fb - fa
            if not np.isfinite(diff) and np.isfinite(fa) and np.isfinite(fb):
                res = fa * omt + fb * ft
            elif t >= 0.5:
                res = fb - diff * omt
            else:
                res = fa + diff * ft
    out = bits_of_scalar(np.asarray(res, dtype=lay.dtype))
    if is_nan(out, lay):
        return lay.canonical_nan
    return out


def midpoint_bits(a: int, b: int, lay: Layout) -> int:
    """(a + b) / 2 as numpy.mean of two values, a/2 + b/2 on overflow."""
    an, bn = is_nan(a, lay), is_nan(b, lay)
    if bn:
        return quieted(b, lay)
    if an:
        return quieted(a, lay)
    work = np.float32 if lay.width == 16 else lay.dtype.type
    fa, fb = work(_np_scalar(a, lay)), work(_np_scalar(b, lay))
    with np.errstate(all="ignore"):
        s = fa + fb
        if np.isinf(s) and np.isfinite(fa) and np.isfinite(fb):
            res = fa / work(2) + fb / work(2)
        else:
            res = s / work(2)
    out = bits_of_scalar(np.asarray(res).astype(lay.dtype))
    if is_nan(out, lay):
        return lay.canonical_nan
    return out


# ------------------------------------------------------------ order statistics


def ranked(bits: list[int], lay: Layout, policy: str) -> list[int] | int:
    """The values in rank order under ``policy``, or the propagated NaN (an int)."""
    check(bits, lay, policy)
    if policy in ("omit", "propagate", "raise"):
        nans = [b for b in bits if is_nan(b, lay)]
        if nans and policy == "propagate":
            return max(nans, key=lambda b: total_key(b, lay))
        nums = [b for b in bits if not is_nan(b, lay)]
        return sorted(nums, key=lambda b: total_key(b, lay))
    return sorted(bits, key=lambda b: policy_key(b, lay, policy))


def order_stat(bits: list[int], lay: Layout, stat: str, policy: str, q: float = 0.5,
               method: str = "linear") -> int | None:
    """Bits of the order statistic of a 1-D float row (None: empty after omit).

    Raises :class:`OracleNaN` / :class:`OracleSignaling` as the package should.
    """
    s = ranked(bits, lay, policy)
    if isinstance(s, int):
        return s
    n = len(s)
    if n == 0:
        return None
    if stat == "min":
        return s[0]
    if stat == "max":
        return s[-1]
    if stat == "median_low":
        return s[(n - 1) // 2]
    if stat == "median_high":
        return s[n // 2]
    if stat == "median":
        lo, hi = (n - 1) // 2, n // 2
        return s[lo] if lo == hi else midpoint_bits(s[lo], s[hi], lay)
    if stat == "quantile":
        lo, hi, t = positions(n, q, method)
        if method in ("lower", "higher", "nearest"):
            return s[lo]
        return lerp_bits(s[lo], s[hi], t, lay)
    raise ValueError(stat)


def arg_stat(bits: list[int], lay: Layout, stat: str, policy: str) -> int:
    """Index of the first element holding the min/max under ``policy``."""
    check(bits, lay, policy)
    idx = list(range(len(bits)))
    if policy == "propagate" and any(is_nan(b, lay) for b in bits):
        best = max((b for b in bits if is_nan(b, lay)), key=lambda b: total_key(b, lay))
        return bits.index(best)
    if policy in ("omit", "propagate", "raise"):
        idx = [i for i in idx if not is_nan(bits[i], lay)]
    if not idx:
        raise ValueError("empty")
    def key(i):
        return policy_key(bits[i], lay, policy)

    if stat == "argmin":
        best = min(key(i) for i in idx)
    else:
        best = max(key(i) for i in idx)
    return next(i for i in idx if key(i) == best)


def sort_bits(bits: list[int], lay: Layout, policy: str) -> list[int]:
    """Stable sort of the bit patterns under a sort policy."""
    check(bits, lay, policy)
    if policy == "omit":
        bits = [b for b in bits if not is_nan(b, lay)]
    return sorted(bits, key=lambda b: policy_key(b, lay, policy))


def argsort_bits(bits: list[int], lay: Layout, policy: str) -> list[int]:
    check(bits, lay, policy)
    idx = list(range(len(bits)))
    if policy == "omit":
        idx = [i for i in idx if not is_nan(bits[i], lay)]
    return sorted(idx, key=lambda i: policy_key(bits[i], lay, policy))


def rank_bits(bits: list[int], lay: Layout, policy: str, method: str = "average") -> list[float]:
    """pandas-style ranks on totalOrder (omit: NaN keeps a NaN rank)."""
    check(bits, lay, policy)
    keep = [i for i in range(len(bits)) if not (policy == "omit" and is_nan(bits[i], lay))]
    key = {i: policy_key(bits[i], lay, policy) for i in keep}
    order = sorted(keep, key=lambda i: key[i])
    out = [math.nan] * len(bits)
    groups: list[list[int]] = []
    for i in order:
        if groups and key[groups[-1][0]] == key[i]:
            groups[-1].append(i)
        else:
            groups.append([i])
    pos = 0
    for g, grp in enumerate(groups, start=1):
        first, last = pos + 1, pos + len(grp)
        for j, i in enumerate(grp):
            if method == "average":
                out[i] = (first + last) / 2
            elif method == "min":
                out[i] = float(first)
            elif method == "max":
                out[i] = float(last)
            elif method == "first":
                out[i] = float(first + j)
            elif method == "dense":
                out[i] = float(g)
        pos = last
    return out


def moment_nan_bits(bits: list[int], lay: Layout, policy: str) -> int | None:
    """Under a non-omit policy: the NaN a moment statistic must return (or None)."""
    check(bits, lay, policy)
    if policy == "omit":
        return None
    nans = [b for b in bits if is_nan(b, lay)]
    if not nans:
        return None
    return max(nans, key=lambda b: total_key(b, lay))


# ------------------------------------------------------- hypothesis strategies


def special_bits(width: int) -> list[int]:
    """Bit patterns every test should meet: NaN kinds, signed zeros, infinities,
    subnormals, extremes."""
    lay = LAYOUTS[width]
    s, e, qb = lay.sign_bit, lay.exp_mask, lay.quiet_bit
    top_mant = (1 << lay.mant) - 1
    base = [
        0, 1, 2, top_mant,  # +0, smallest subnormals, largest subnormal
        1 << lay.mant,  # smallest normal
        e - 1,  # largest finite
        e,  # +inf
        e | 1, e | lay.payload_mask,  # signaling NaNs
        e | qb, e | qb | 1, e | top_mant,  # quiet NaNs
        bits_of_scalar(np.asarray(1.0, dtype=lay.dtype)),
        bits_of_scalar(np.asarray(2.0, dtype=lay.dtype)),
        bits_of_scalar(np.asarray(-1.5, dtype=lay.dtype)),
    ]
    return base + [b | s for b in base]


def bit_patterns(width: int, *, signaling: bool = True):
    """Strategy: one bit pattern of ``width`` bits, biased to special values."""
    from hypothesis import strategies as st

    lay = LAYOUTS[width]
    specials = special_bits(width)
    nan_any = st.builds(
        lambda sign, m: (lay.sign_bit if sign else 0) | lay.exp_mask | m,
        st.booleans(), st.integers(1, (1 << lay.mant) - 1))
    strat = st.one_of(st.integers(0, (1 << width) - 1), st.sampled_from(specials), nan_any)
    if not signaling:
        strat = strat.map(lambda b: quieted(b, lay))
    return strat


def float_arrays(width: int, *, min_size: int = 0, max_size: int = 12,
                 signaling: bool = True):
    """Strategy: a 1-D float array of ``width`` bits built from bit patterns."""
    from hypothesis import strategies as st

    lay = LAYOUTS[width]
    return st.lists(bit_patterns(width, signaling=signaling), min_size=min_size,
                    max_size=max_size).map(lambda bs: from_bits(bs, lay.dtype))
