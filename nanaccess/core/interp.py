"""Quantile positions and NaN-aware interpolation between two picked neighbours.

Positions follow :func:`numpy.quantile` exactly (same virtual-index formulas), so
NaN-free data gives NumPy's numbers. Arithmetic follows spec section 3/4:

* a weight of exactly zero is a pick (``a`` returned as stored, even next to inf);
* a NaN neighbour makes the result that NaN, quieted (the higher-ranked if both);
* a NaN made by arithmetic from numbers (-inf + inf) is the canonical NaN;
* the midpoint of two finite values never overflows.
"""

from __future__ import annotations

import math
import numbers
from typing import Any, cast

import numpy as np

from .bits import layout_of

__all__ = ["METHODS", "PICK_METHODS", "quantile_positions", "quantile_position",
           "virtual_index", "lerp", "midpoint", "validate_q"]

# numpy's 13 method names plus the statistics module's "inclusive" / "exclusive"
METHODS = ("linear", "lower", "higher", "nearest", "midpoint", "inclusive", "exclusive",
           "weibull", "hazen", "median_unbiased", "normal_unbiased", "inverted_cdf",
           "averaged_inverted_cdf", "closest_observation", "interpolated_inverted_cdf")
#: methods whose result is one stored element (numpy's discontinuous methods but the
#: averaging one): no arithmetic, dtype and bits kept
PICK_METHODS = ("lower", "higher", "nearest", "inverted_cdf", "closest_observation")
ALPHA_BETA = {
    "weibull": (0.0, 0.0),
    "exclusive": (0.0, 0.0),
    "hazen": (0.5, 0.5),
    "median_unbiased": (1 / 3.0, 1 / 3.0),
    "normal_unbiased": (3 / 8.0, 3 / 8.0),
    "interpolated_inverted_cdf": (0.0, 1.0),
}


def validate_q(q: Any) -> np.ndarray:
    """q as a float64 array, checked to be real numbers in [0, 1] (a string such as
    "0.5" is refused, not parsed)."""
    raw = np.asarray(q)
    if raw.dtype.kind not in "fiub" and not (
            raw.dtype.kind == "O" and all(isinstance(v, numbers.Real) and not isinstance(v, bool)
                                          for v in raw.ravel().tolist())):
        raise TypeError(f"q must be a number or a sequence of numbers in [0, 1], got {q!r}")
    qa = np.asarray(q, dtype=np.float64)
    if qa.size and (np.isnan(qa).any() or (qa < 0).any() or (qa > 1).any()):
        raise ValueError(f"quantiles must be in the range [0, 1], got {q!r}")
    return qa


def quantile_positions(m: np.ndarray, q: np.ndarray, method: str) -> Any:
    """Ranks and weights for quantiles ``q`` of rows holding ``m`` valid values.

    Parameters
    ----------
    m : int array (rows,)
    q : float array (Q,)
    method : one of :data:`METHODS`

    Returns
    -------
    lo, hi : int64 arrays (Q, rows), clipped to [0, m-1] (0 where m == 0)
    t : float64 array (Q, rows) of weights of ``hi`` (0 means: pick ``lo``)
    """
    if method not in METHODS:
        raise ValueError(f"unknown quantile method {method!r}; expected one of {METHODS}")
    n = m.astype(np.float64)[None, :]
    qq = q.reshape(-1, 1)
    nm1 = n - 1
    if method in ("inverted_cdf", "closest_observation"):
        return _discrete(n, qq, method)
    vi, _raw = virtual_index(n, qq, method)
    lo = np.floor(vi)
    t = vi - lo
    above = vi >= nm1
    below = vi < 0
    lo = np.where(above, nm1, np.where(below, 0.0, lo))
    hi = np.where(above | below, lo, lo + 1)
    t = np.where(above | below, 0.0, t)
    if method == "midpoint":
        t = np.where(t != 0, 0.5, 0.0)
    elif method == "averaged_inverted_cdf":
        # numpy's weight is 1 (the next element) off the steps of the CDF, 1/2 on them:
        # a weight of 1 is a pick of ``hi`` (no arithmetic next to an infinity)
        inside = ~(above | below)
        step = inside & (t == 0)
        lo = np.where(inside & ~step, hi, lo)
        t = np.where(step, 0.5, 0.0)
    empty = n <= 0
    lo = np.where(empty, 0, lo).astype(np.int64)
    hi = np.where(empty, 0, hi).astype(np.int64)
    return lo, hi, np.broadcast_to(t, lo.shape)


#: methods whose ranks :func:`quantile_position` gives in Python numbers
_SCALAR_METHODS = frozenset(METHODS) - {"midpoint", "averaged_inverted_cdf", "inverted_cdf",
                                        "closest_observation"}


def quantile_position(n: int, q: float, method: str) -> tuple[int, int, float] | None:
    """:func:`quantile_positions` of one row of ``n >= 1`` values and one ``q``, in
    Python numbers (the same float64 operations, no arrays): the small-data lane's
    form. None for the methods whose ranks need the array form ("midpoint",
    "averaged_inverted_cdf" and the discrete ones).

    Examples
    --------
    >>> quantile_position(5, 0.3, "linear")
    (1, 2, 0.19999999999999996)
    >>> quantile_position(5, 1.0, "hazen")
    (4, 4, 0.0)
    """
    if method not in _SCALAR_METHODS:
        return None
    vi = float(virtual_index(float(n), q, method)[0])
    if vi >= n - 1.0:
        return n - 1, n - 1, 0.0
    if vi < 0:
        return 0, 0, 0.0
    lo = math.floor(vi)
    return lo, lo + 1, vi - lo


def virtual_index(n: np.ndarray, qq: np.ndarray, method: str
                  ) -> tuple[np.ndarray, np.ndarray | None]:
    """NumPy's virtual index (0-based, float) of the quantiles ``qq`` (Q, 1) of rows of
    ``n`` (1, rows) values, for every continuous method (not "inverted_cdf" /
    "closest_observation"), and for the rounding methods the unrounded ``(n-1) q``
    (None otherwise). The one copy of the formulas: the unweighted ranks and the
    weighted reaches (``n`` the total weight) both use it."""
    raw = (n - 1) * qq
    if method in ("linear", "inclusive"):
        return raw, None
    if method == "lower":
        return np.floor(raw), raw
    if method == "higher":
        return np.ceil(raw), raw
    if method == "nearest":
        return np.around(raw), raw
    if method == "midpoint":
        return 0.5 * (np.floor(raw) + np.ceil(raw)), raw
    if method == "averaged_inverted_cdf":
        return n * qq - 1, None
    alpha, beta = ALPHA_BETA[method]
    return n * qq + (alpha + qq * (1 - alpha - beta)) - 1, None


def _discrete(n: np.ndarray, qq: np.ndarray, method: str) -> Any:
    """The picked rank of numpy's "inverted_cdf" / "closest_observation" (numpy's
    ``_discrete_interpolation_to_boundaries``): ``n q - 1`` (minus one half for the
    closest observation), rounded up off the steps; on a step "inverted_cdf" keeps it
    and "closest_observation" keeps it only when the (1-based) order is even."""
    index = n * qq - 1 - (0.5 if method == "closest_observation" else 0.0)
    prev = np.floor(index)
    on_step = (index - prev) == 0
    if method == "closest_observation":
        on_step &= (prev % 2) == 1
    rank = np.where(on_step, prev, prev + 1)
    rank = np.clip(rank, 0, np.maximum(n - 1, 0))
    lo = np.where(n <= 0, 0, rank).astype(np.int64)
    return lo, lo, np.zeros(lo.shape)


def _fix_nans(res: np.ndarray, a: np.ndarray, b: np.ndarray, pick: np.ndarray) -> np.ndarray:
    """Apply the NaN rules to an interpolated float result (in place on ``res``)."""
    a_nan, b_nan = np.isnan(a), np.isnan(b)
    made = np.isnan(res) & ~a_nan & ~b_nan
    lay = layout_of(res.dtype)
    bits = res.view(lay.int_dtype)
    if made.any():
        bits[made] = lay.int_dtype.type(lay.canonical_nan)
    nb = b_nan & ~pick
    na_ = a_nan & ~b_nan & ~pick
    if nb.any() or na_.any():
        qb = lay.int_dtype.type(lay.quiet_bit)
        bits[nb] = b.view(lay.int_dtype)[nb] | qb
        bits[na_] = a.view(lay.int_dtype)[na_] | qb
    if pick.any():
        res[pick] = a[pick]
    return res


def _native(v: np.ndarray) -> np.ndarray:
    return v if v.dtype.isnative else v.astype(v.dtype.newbyteorder("="))


def lerp(a: np.ndarray, b: np.ndarray, t: np.ndarray) -> np.ndarray:
    """Linear interpolation as numpy's ``_lerp``, with the spec's pick/NaN rules.

    Floats keep their dtype (``t`` is cast to it, as NumPy does for a scalar ``q``);
    ints interpolate in float64; datetime/timedelta in int64 nanoseconds-as-stored.
    """
    a, b = _native(np.asarray(a)), _native(np.asarray(b))
    t = np.asarray(t, dtype=np.float64)
    pick = t == 0
    kind = a.dtype.kind
    if kind in "mM":
        # the exact value a + (b - a) t truncated toward zero, as pandas converts its
        # float result back to the unit (so a timedelta quantile(0.5) equals its median)
        ai, bi = a.view(np.int64), b.view(np.int64)
        d = (bi - ai).astype(np.float64) * t
        whole = np.floor(d)
        base = ai + whole.astype(np.int64)
        out = base + ((base < 0) & (d > whole))
        return np.where(pick, ai, out).astype(np.int64).view(a.dtype)
    if kind != "f":
        a, b = a.astype(np.float64), b.astype(np.float64)
    ft = t.astype(a.dtype)
    # 1 - t in float64, then cast: NumPy's ``_lerp`` with a scalar q subtracts from the
    # Python float (float32 data: 1 - float32(t) can be an ulp away from it)
    omt = (1.0 - t).astype(a.dtype)
    with np.errstate(all="ignore"):
        diff = b - a
        res = a + diff * ft
        alt = b - diff * omt
        res = np.where(t >= 0.5, alt, res)
        if np.isfinite(diff).all():  # finite a and b, no overflow: only picks to apply
            return np.where(pick, a, res).astype(a.dtype)
        # numpy's formula overflows when b - a does; the exact blend cannot
        bad = ~np.isfinite(diff) & np.isfinite(a) & np.isfinite(b)
        if bad.any():
            res = np.where(bad, a * omt + b * ft, res)
        # between equal infinities every blend is that infinity (numpy says nan)
        res = np.where(np.isinf(a) & (a == b), a, res)
    return _fix_nans(np.asarray(res, dtype=a.dtype), a, b, np.broadcast_to(pick, res.shape))


def midpoint(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(a + b) / 2 as NumPy's mean of two values; a/2 + b/2 where a + b overflows."""
    a, b = _native(np.asarray(a)), _native(np.asarray(b))
    kind = a.dtype.kind
    if kind in "mM":
        # (a + b) / 2 truncated toward zero, as pandas (floor + 1 for a negative .5)
        ai, bi = a.view(np.int64), b.view(np.int64)
        diff = bi - ai
        low = ai + diff // 2
        return (low + ((diff & 1).astype(bool) & (low < 0))).view(a.dtype)
    out_dtype = a.dtype if kind == "f" else np.dtype(np.float64)
    work = (np.float32 if out_dtype == np.float16 else out_dtype.type)  # np.mean: f16 via f32
    aw, bw = a.astype(work), b.astype(work)
    with np.errstate(all="ignore"):
        s = aw + bw
        res = s / work(2)
        if kind == "f" and np.isfinite(s).all():
            return cast("np.ndarray",
                   res.astype(out_dtype))  # no NaN, infinity or overflow: nothing to fix
        over = np.isinf(s) & np.isfinite(aw) & np.isfinite(bw)
        if over.any():
            res = np.where(over, aw / work(2) + bw / work(2), res)
        res = np.asarray(res).astype(out_dtype)
    if kind != "f":
        return res
    return _fix_nans(res, a, b, np.zeros(res.shape, dtype=bool))
