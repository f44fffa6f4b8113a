"""Grouped kernels: order and moment statistics per group, with no loop per group.

NumPy, with an optional numba engine for order statistics (shared by the pandas and
xarray adapters). The data ``x`` is 1-D ``(n,)`` or 2-D ``(n, ncols)`` (the columns
share one grouping); ``codes`` gives each row's group (``-1``: the row belongs to no
group and is ignored entirely).

How the order statistics work
-----------------------------
Each column's values become integer keys (:mod:`nanaccess.core.keys`; remapped for
"smallest"/"largest"). The NumPy engine drops the rows that do not take part (code
-1, missing, and NaNs under "omit"/"propagate"), then orders the keys by (group code,
key) with one sort and gathers the wanted ranks at ``group start + rank``:

* when the key range and the code range fit in 63 bits together (all 8/16/32-bit
  data, ints and datetimes of moderate range, floats of one sign and a narrow range),
  one ``np.sort`` of a composite ``code << b | (key - min)`` (no index array);
* otherwise one ``np.argsort`` of the keys, then a stable counting (radix, 16 bits a
  pass) sort of the codes.

An optional numba engine (``engine="numba"``; the default when numba imports and the
column has at least 50 000 rows) filters nothing and copies nothing: it makes the keys
on the fly from the float bits, and a row takes part when its code is >= 0 and its
key lies in the policy's key range (under "omit"/"propagate" the numbers: totalOrder
puts negative NaNs below -inf and positive NaNs above +inf, so every NaN falls
outside). One pass counts each group's taking-part rows (the ranks need them), a
second scatters their keys into per-group segments (a counting sort), then per group
the ranks are selected: a group of at most ``_SMALL_GROUP`` keys by counting, for
each key, the keys below and equal to it (branch-free, no sort; the key holds the
ranks ``[#below, #below + #equal)``), a larger one by a quickselect with branchless
Lomuto partitions (a second pass gathers the pivot's duplicates, so runs of equal keys
stay linear); the next rank of an even median is the minimum of the upper part.
O(n) on average. For large inputs (``_PARALLEL_MIN_ROWS``, main thread only) the
selection runs on blocks of groups over numba's threads (the count and the scatter,
memory-bound, stay serial: one parallel region, which a busy machine delays least).
Under "omit" and "totalorder" the separate NaN scan is skipped: the counting pass
sorts the NaNs out itself and, under "omit", counts the signaling ones (if any, the
scan runs and raises). Both engines return the same keys, so the results are equal
bit for bit (tested). numba is never required; when it fails to compile, a warning is
issued and NumPy serves the rest of the run.

Keys are inverted back to values, so picked results keep their exact bits. The ranks
and weights follow NumPy's quantile methods; interpolation follows the core's rules
(spec section 3-4): weight 0 is a pick, a NaN neighbour gives that NaN quieted (the
higher-ranked one when both are NaN), arithmetic NaNs are canonical, and the midpoint
of two numbers is ``(a + b) / 2`` unless that overflows.

How the moment statistics work (rounding)
-----------------------------------------
mean / var / std / sum are **correctly rounded** with
:mod:`nanaccess.core.exactsum` (so they equal the ungrouped core bit for bit and never
depend on row order). Groups are shaped for it without a loop per group: rows are
ordered by group code, groups are bucketed by size class (``2**(k-1) < size <= 2**k``)
and each class becomes one zero-padded ``(groups, 2**k)`` block with a ``where`` mask
(padding is at most 2x the data; one call per size class, about ``log2(n)`` calls).
float16/32 results are rounded from the float64 result to the input dtype.

NaN and missing values
----------------------
As :mod:`nanaccess.core.select`: "raise" raises :class:`~nanaccess.errors.NaNError`
(NaN before missing), signaling NaNs raise under every policy but "totalorder". The
error's ``position`` is ``(row,)`` for 1-D input and ``(row, col)`` for 2-D (the first
offending element in C order), ``group`` is that row's group code and ``count`` is the
number of offending values in that group and column. "propagate" gives the group's
greatest NaN under totalOrder (exact bits), else missing when the group holds a
missing value; "smallest"/"largest"/"totalorder" sort missing values after everything.
An empty group gives the canonical NaN (``sum``: 0, ``count``: 0).

Result dtypes: picked values keep the input dtype, except that int/bool picks are
returned as float64 when some group has no value (empty or missing result), since an
int cannot hold NaN; interpolated int results are float64; datetime64/timedelta64
results keep their unit (interpolated values rounded half-even to the unit, NaT where
missing or empty). ``count`` is int64.
"""

from __future__ import annotations

import threading
import warnings
from typing import Any

import numpy as np

from ..errors import NaNError, SignalingNaNError
from ..options import NanPolicy, resolve_policy
from .bits import layout_of
from .interp import METHODS, lerp, midpoint, quantile_positions
from .keys import float_keys, integer_keys, keys_to_float, number_keys, remap_keys, unmap_keys

__all__ = ["grouped_stat", "ORDER_STATS", "MOMENT_STATS", "QUANTILE_METHODS", "HAVE_NUMBA"]

ORDER_STATS = ("median", "median_low", "median_high", "quantile", "min", "max")
MOMENT_STATS = ("mean", "var", "std", "sum", "count")
QUANTILE_METHODS = METHODS

# optional accelerator: one switch for every compiled path (NANACCESS_NO_NUMBA=1)
from .accel import HAVE_NUMBA, _insertion, _jit, _move_min_to, _prange  # noqa: E402

_NUMBA_BROKEN: list[str] = []  # set when compiling failed: NumPy for the rest of the run

_NUMBA_MIN_ROWS = 50_000  # below this the NumPy engine is as fast (and needs no JIT)
_SORTING = (NanPolicy.SMALLEST, NanPolicy.LARGEST, NanPolicy.TOTALORDER)


def _canonical(dtype: np.dtype) -> np.floating:
    lay = layout_of(dtype)
    return np.array(lay.canonical_nan, dtype=lay.uint_dtype).view(lay.float_dtype)[()]


# ----------------------------------------------------------------------- public entry


def grouped_stat(
    x: Any,
    codes: Any,
    ngroups: int,
    stat: str,
    *,
    q: Any = None,
    method: str = "linear",
    ddof: float = 0,
    policy: NanPolicy | str | None = None,
    missing: Any = None,
    engine: str | None = None,
) -> tuple[np.ndarray, np.ndarray | None]:
    """A statistic of every group, vectorised over groups (one sort, no group loop).

    Parameters
    ----------
    x : numpy.ndarray
        ``(n,)`` or ``(n, ncols)``: float16/32/64, int/uint, bool, datetime64 /
        timedelta64 (NaT is missing) or object (exact Python-object path, slower).
    codes : array_like of int
        ``(n,)`` group code of each row in ``[0, ngroups)``, or -1 for no group.
    ngroups : int
        Number of groups (groups without rows give the canonical NaN).
    stat : str
        One of median, median_low, median_high, quantile, min, max, mean, var, std,
        sum, count.
    q : float or sequence of float, optional
        Quantile(s) in [0, 1] for ``stat="quantile"``; an array adds a leading axis.
    method : str
        linear (= inclusive), lower, higher, nearest, midpoint, exclusive (= weibull).
    ddof : float
        Delta degrees of freedom for var/std.
    policy : str or NanPolicy, optional
        The ``nan_policy`` (None: the current default).
    missing : numpy.ndarray of bool, optional
        Shape of ``x``: entries that are missing (their bits are ignored).
    engine : {None, "numpy", "numba"}
        Order-statistic engine; None picks numba for large inputs when installed.

    Returns
    -------
    values : numpy.ndarray
        ``(ngroups,)`` or ``(ngroups, ncols)``, with a leading q axis for array ``q``.
    missing : numpy.ndarray of bool or None
        Same shape; True where the result is the host's missing value.

    Raises
    ------
    NaNError, SignalingNaNError
        With ``.position`` ((row,) or (row, col)), ``.group`` (code) and ``.count``.
    TypeError
        Complex, string or other non-numeric data.

    Examples
    --------
    >>> import numpy as np
    >>> from nanaccess.core.grouped import grouped_stat
    >>> x = np.array([1.0, 5.0, np.nan, 2.0, 4.0, 3.0])
    >>> codes = np.array([0, 1, 0, 0, 1, 1])
    >>> grouped_stat(x, codes, 2, "median", policy="omit")[0]
    array([1.5, 4. ])
    >>> grouped_stat(x, codes, 2, "quantile", q=[0.0, 1.0], policy="omit")[0]
    array([[1., 3.],
           [2., 5.]])
    >>> grouped_stat(x, codes, 2, "sum", policy="propagate")[0]
    array([nan, 12.])
    >>> grouped_stat(x, codes, 2, "max", policy="raise")
    Traceback (most recent call last):
    ...
    nanaccess.errors.NaNError: group 0 holds 1 NaN value (first at position 2); ...
    """
    policy = resolve_policy(policy)
    if stat not in ORDER_STATS and stat not in MOMENT_STATS:
        valid = ", ".join(ORDER_STATS + MOMENT_STATS)
        raise ValueError(f"unknown grouped statistic {stat!r}; expected one of {valid}")
    if engine not in (None, "numpy", "numba"):
        raise ValueError(f"unknown engine {engine!r}; expected None, 'numpy' or 'numba'")
    if engine == "numba" and not HAVE_NUMBA:
        raise ImportError("engine='numba' needs numba installed")
    x = np.asarray(x)
    if x.ndim not in (1, 2):
        raise ValueError(f"grouped_stat needs 1-D or 2-D data, got shape {x.shape}")
    one_d = x.ndim == 1
    x2 = x[:, None] if one_d else x
    n, ncols = x2.shape
    codes = np.asarray(codes)
    if codes.shape != (n,):
        raise ValueError(f"codes must have shape ({n},), got {codes.shape}")
    codes = codes.astype(np.intp, copy=False)
    ngroups = int(ngroups)
    if n and (codes.max(initial=-1) >= ngroups or codes.min(initial=0) < -1):
        raise ValueError(f"codes must lie in [-1, {ngroups}); got values outside")
    miss2 = None
    if missing is not None:
        m = np.asarray(missing, dtype=bool)
        if m.shape != x.shape:
            raise ValueError(f"missing must have the shape of x {x.shape}, got {m.shape}")
        miss2 = m[:, None] if one_d else m
        if not miss2.any():
            miss2 = None

    q_arr, q_scalar = _check_q(stat, q, method)
    kind = x2.dtype.kind
    if kind == "O":
        values, vmiss = _object_path(x2, codes, ngroups, stat, q_arr, method, ddof, policy, miss2)
    else:
        if kind in "cSUV" or (kind == "f" and x2.dtype.itemsize not in (2, 4, 8)):
            raise TypeError(f"cannot compute {stat} of non-numeric or unsupported dtype {x2.dtype}")
        values, vmiss = _native_path(
            x2, codes, ngroups, stat, q_arr, method, ddof, policy, miss2, engine, one_d
        )
    if stat in ORDER_STATS and (q_arr is None or q_scalar):  # drop the q axis
        values = values[0]
        vmiss = None if vmiss is None else vmiss[0]
    if one_d:
        values = values[..., 0]
        vmiss = None if vmiss is None else vmiss[..., 0]
    if vmiss is not None and not vmiss.any():
        vmiss = None
    return values, vmiss


def _check_q(stat: str, q: Any, method: str) -> tuple[np.ndarray | None, bool]:
    if stat != "quantile":
        return None, False
    if method not in QUANTILE_METHODS:
        raise ValueError(f"unknown quantile method {method!r}; expected one of {QUANTILE_METHODS}")
    if q is None:
        raise TypeError("quantile needs q")
    qa = np.asarray(q, dtype=np.float64)
    if qa.ndim > 1:
        raise ValueError("q must be a scalar or a 1-D sequence")
    if np.isnan(qa).any() or (qa < 0).any() or (qa > 1).any():
        raise ValueError(f"quantiles must be in the range [0, 1], got {q!r}")
    return np.atleast_1d(qa), qa.ndim == 0


# ------------------------------------------------------------------- NaN scanning


def _raise_first(
    mask: np.ndarray, codes: np.ndarray, one_d: bool, cls: type[NaNError], kind: str
) -> None:
    flat = int(np.flatnonzero(mask.ravel())[0])
    row, col = divmod(flat, mask.shape[1])
    g = int(codes[row])
    count = int(np.count_nonzero(mask[codes == g, col]))
    position = (row,) if one_d else (row, col)
    err = cls(count=count, kind=kind, position=position, subject=f"group {g}")
    err.group = g
    raise err


def _scan(
    x2: np.ndarray,
    codes: np.ndarray,
    policy: NanPolicy,
    miss2: np.ndarray | None,
    one_d: bool,
) -> tuple[np.ndarray | None, np.ndarray | None]:
    """(nan mask, missing mask) restricted to grouped rows; raises the policy errors."""
    in_group = (codes >= 0)[:, None]
    nan = None
    if x2.dtype.kind == "f":
        with np.errstate(all="ignore"):
            maybe = x2.size and np.isnan(np.add.reduce(x2, axis=None))
        if maybe:
            nan = np.isnan(x2) & in_group
            if miss2 is not None:
                nan &= ~miss2
            if not nan.any():
                nan = None
    miss = None
    if miss2 is not None:
        miss = miss2 & in_group
        if not miss.any():
            miss = None
    if nan is not None and policy is not NanPolicy.TOTALORDER:
        lay = layout_of(x2.dtype)
        bits = x2.view(lay.int_dtype.newbyteorder(x2.dtype.byteorder))
        sig = nan & ((bits & lay.int_dtype.type(lay.quiet_bit)) == 0)
        if sig.any():
            _raise_first(sig, codes, one_d, SignalingNaNError, "signaling NaN")
    if policy is NanPolicy.RAISE:
        if nan is not None:
            _raise_first(nan, codes, one_d, NaNError, "NaN")
        if miss is not None:
            _raise_first(miss, codes, one_d, NaNError, "missing")
    return nan, miss


# ----------------------------------------------------------------- native dtypes


def _native_path(x2, codes, ngroups, stat, q_arr, method, ddof, policy, miss2, engine, one_d):
    dt = x2.dtype
    if dt.kind in "mM":
        nat = np.isnat(x2)
        if nat.any():
            miss2 = nat if miss2 is None else (miss2 | nat)
    # "omit"/"totalorder" order statistics on the numba engine: the kernel finds the
    # NaNs itself (and reports signaling ones), so the scan is deferred
    deferred = (stat in ORDER_STATS and dt.kind == "f" and miss2 is None
                and policy in (NanPolicy.OMIT, NanPolicy.TOTALORDER)
                and _use_numba(engine, x2.shape[0]))
    if deferred:
        nan = miss = None
    else:
        nan, miss = _scan(x2, codes, policy, miss2, one_d)
    if dt.kind == "M" and stat not in ORDER_STATS and stat not in ("mean", "count"):
        raise TypeError(f"{stat} of datetime64 data is not defined")
    outs, omiss = [], []
    try:
        for c in range(x2.shape[1]):
            col = x2[:, c]
            ncol = None if nan is None else nan[:, c]
            mcol = None if miss is None else miss[:, c]
            if stat in ORDER_STATS:
                v, m = _order_column(col, ncol, mcol, codes, ngroups, stat, q_arr, method,
                                     policy, engine, scanned=not deferred)
            else:
                v, m = _moment_column(col, ncol, mcol, codes, ngroups, stat, ddof, policy)
            outs.append(v)
            omiss.append(m)
    except _Rescan:
        # a signaling NaN (raised here), or numba failed: redo with the scan first
        _scan(x2, codes, policy, miss2, one_d)
        return _native_path(x2, codes, ngroups, stat, q_arr, method, ddof, policy, miss2,
                            "numpy" if engine is None else engine, one_d)
    # int picks of different columns may differ in dtype (float64 where empty): unify
    dts = {o.dtype for o in outs}
    if len(dts) > 1:
        outs = [o.astype(np.float64) for o in outs]
    values = np.stack(outs, axis=-1) if outs else _empty_result(stat, dt, ngroups, q_arr)
    mm = np.stack(omiss, axis=-1) if omiss else np.zeros(values.shape, bool)
    return values, mm


def _empty_result(stat, dt, ngroups, q_arr):
    lead = (len(q_arr),) if q_arr is not None else ((1,) if stat in ORDER_STATS else ())
    return np.empty(lead + (ngroups, 0), dtype=np.float64 if dt.kind != "f" else dt)


def _keys_of(col: np.ndarray) -> np.ndarray:
    if col.dtype.kind == "f":
        return float_keys(col)
    return integer_keys(col)


def _values_of_keys(k: np.ndarray, dt: np.dtype, policy: NanPolicy) -> np.ndarray:
    """Invert :func:`_keys_of` (after any remap) to values of ``dt`` (native order)."""
    if dt.kind == "f":
        if policy in (NanPolicy.SMALLEST, NanPolicy.LARGEST):
            k = unmap_keys(k.copy(), dt, policy)
        return keys_to_float(k, dt)
    nat = dt.newbyteorder("=")
    if dt.kind == "b":
        return k.astype(bool)
    if dt.kind in "mM":
        return k.astype(np.int64).view(nat)
    if dt.kind == "u" and dt.itemsize == 8:
        return np.bitwise_xor(k, np.int64(-(1 << 63))).view(np.uint64)
    return k.astype(nat)


def _group_counts(codes: np.ndarray, mask: np.ndarray | None, ngroups: int) -> np.ndarray:
    if mask is None:
        return np.zeros(ngroups, np.int64)
    return np.bincount(codes[mask], minlength=ngroups).astype(np.int64)


def _greatest_nan(col, nan, codes, ngroups):
    """(has NaN per group, the group's greatest NaN under totalOrder as a value)."""
    if nan is None:
        return None, None
    k = float_keys(col[nan])
    g = codes[nan]
    lay = layout_of(col.dtype)
    best = np.full(ngroups, lay.int_min, dtype=lay.int_dtype)
    np.maximum.at(best, g, k)
    has = np.bincount(g, minlength=ngroups) > 0
    return has, keys_to_float(best, col.dtype).copy()


# ranks --------------------------------------------------------------------------


def _ranks(stat, N, q_arr, method):
    """(lo, hi, weight, mid) arrays (nq, ngroups): ranks into each group's sorted values.

    ``mid`` marks midpoints ((a+b)/2 arithmetic) as opposed to linear interpolation;
    the medians (all midpoints, no weights) give None for both.
    """
    N = N.astype(np.int64, copy=False)
    last = N - 1
    np.maximum(last, 0, out=last)
    if stat in ("median", "median_low", "median_high"):
        lo = (last >> 1)[None]  # N >= 0: the shifts are floor halves
        hi = np.minimum(N >> 1, last)[None]
        if stat == "median_low":
            hi = lo
        elif stat == "median_high":
            lo = hi
        return lo, hi, None, None  # midpoints: no weights
    if stat == "min":
        z = np.zeros((1, N.size), np.int64)
        return z, z, np.zeros(z.shape), np.zeros(z.shape, bool)
    if stat == "max":
        lo = last[None]
        return lo, lo, np.zeros(lo.shape), np.zeros(lo.shape, bool)
    lo, hi, t = quantile_positions(N, q_arr, method)
    return lo, hi, np.array(t), np.zeros(lo.shape, bool)


# selection engines ----------------------------------------------------------------


def _radix_argsort_codes(cc: np.ndarray, ngroups: int) -> np.ndarray:
    """Stable argsort of non-negative codes: LSD radix with 16 bits a pass."""
    if ngroups <= 1 << 16:
        return np.argsort(cc.astype(np.uint16), kind="stable")
    order = np.argsort((cc & 0xFFFF).astype(np.uint16), kind="stable")
    shift = 16
    while (ngroups - 1) >> shift:
        digit = ((cc[order] >> shift) & 0xFFFF).astype(np.uint16)
        order = order[np.argsort(digit, kind="stable")]
        shift += 16
    return order


def _sorted_by_group(kk: np.ndarray, cc: np.ndarray, ngroups: int) -> np.ndarray:
    """The keys ordered by (code, key): one composite sort or argsort + radix on codes."""
    if kk.size == 0:
        return kk.copy()
    kmin = int(kk.min())
    span = int(kk.max()) - kmin
    bits = max(span.bit_length(), 1)
    cbits = max(ngroups - 1, 0).bit_length()
    if bits + cbits <= 63:
        comp = kk.astype(np.int64)
        comp -= np.int64(kmin) if kmin >= -(1 << 63) else comp.dtype.type(kmin)
        if cbits:
            comp |= cc.astype(np.int64) << np.int64(bits)
        comp.sort()
        if cbits:
            comp &= np.int64((1 << bits) - 1)
        comp += np.int64(kmin)
        return comp.astype(kk.dtype)
    perm = np.argsort(kk)
    return kk[perm[_radix_argsort_codes(cc[perm], ngroups)]]


def _select_numpy(kk, cc, counts, ranks):
    """Keys at ``ranks`` ((ngroups, r), -1 = unused) of each group's sorted keys."""
    ngroups = counts.size
    sk = _sorted_by_group(kk, cc, ngroups)
    starts = np.cumsum(counts) - counts
    valid = ranks >= 0
    idx = np.where(valid, starts[:, None] + ranks, 0)
    if sk.size == 0:
        return np.zeros(ranks.shape, kk.dtype)
    return np.where(valid, sk[np.minimum(idx, sk.size - 1)], kk.dtype.type(0))


# the numba engine ---------------------------------------------------------------
# Plain Python over arrays, compiled by numba on first use (``_nb_compile``); the
# helpers are bound to their compiled versions in this module's globals before the
# drivers compile, as in :mod:`nanaccess.core.accel`.

#: groups of at most this many keys are selected by counting ranks (branch-free)
_SMALL_GROUP = 32
#: rows at or above which the numba engine selects on numba's threads
_PARALLEL_MIN_ROWS = 200_000


def _nb_count(bits, codes, fm, sh, klo, khi, slo, shi, cnt):  # pragma: no cover - compiled
    """Count per group the rows that take part; return the number of grouped rows
    whose key lies outside ``[klo, khi]`` but inside ``[slo, shi]``.

    The key of a row is ``b ^ ((b >> sh) & fm)``: totalOrder keys straight from float
    bits (``fm`` = INT_MAX of the width), or the keys themselves (``fm`` = 0). A row
    takes part when its code is >= 0 and its key lies in ``[klo, khi]``.
    """
    out = 0
    for i in range(bits.shape[0]):
        g = codes[i]
        if g >= 0:
            b = bits[i]
            k = b ^ ((b >> sh) & fm)
            if k >= klo and k <= khi:
                cnt[g] += 1
            elif k >= slo and k <= shi:
                out += 1
    return out


def _nb_scatter(bits, codes, fm, sh, klo, khi, starts, buf):  # pragma: no cover - compiled
    """Counting-sort scatter of the keys of the taking-part rows into their segments."""
    pos = starts.copy()
    for i in range(bits.shape[0]):
        g = codes[i]
        if g >= 0:
            b = bits[i]
            k = b ^ ((b >> sh) & fm)
            if k >= klo and k <= khi:
                buf[pos[g]] = k
                pos[g] += 1


def _nb_qselect(a, lo, hi, k):  # pragma: no cover - compiled
    # quickselect with branchless Lomuto partitions (no mispredicted branches on
    # random keys); a second pass gathers the pivot's duplicates, so runs of equal
    # keys cannot make it quadratic
    while hi > lo:
        if hi - lo < 16:
            _insertion(a, lo, hi)
            return
        mid = (lo + hi) >> 1
        x, y, z = a[lo], a[mid], a[hi]
        p = max(min(x, y), min(max(x, y), z))
        i = lo
        for j in range(lo, hi + 1):
            v = a[j]
            a[j] = a[i]
            a[i] = v
            i += v < p
        if k < i:
            hi = i - 1
            continue
        i2 = i
        for j in range(i, hi + 1):
            v = a[j]
            a[j] = a[i2]
            a[i2] = v
            i2 += v == p
        if k < i2:
            return
        lo = i2


def _nb_rank_span(tmp, n, v):  # pragma: no cover - compiled
    """(#keys < v, #keys <= v) among ``tmp[:n]``: v holds the ranks in between."""
    lt = 0
    le = 0
    for j in range(n):
        lt += tmp[j] < v
        le += tmp[j] <= v
    return lt, le


def _nb_select_group(buf, starts, counts, ranks, out, g, tmp):  # pragma: no cover
    """The keys of ranks ``ranks[g]`` (ascending; -1 or >= count: unused) of group g.

    ``tmp`` is a scratch array; groups of at most ``tmp.size`` keys are selected by
    counting ranks instead of sorting.
    """
    s = starts[g]
    n = counts[g]
    nr = ranks.shape[1]
    if n == 0:
        return
    if n <= tmp.shape[0]:
        # small group: the key v holds the ranks [#keys < v, #keys <= v); counting
        # them is branch-free and vectorises, where a sort mispredicts on random keys
        for j in range(n):
            tmp[j] = buf[s + j]
        if nr == 2:  # median, one quantile: the two ranks in registers
            r0 = ranks[g, 0]
            r1 = ranks[g, 1]
            o0 = out[g, 0]
            o1 = out[g, 1]
            for i in range(n):
                v = tmp[i]
                lt, le = _nb_rank_span(tmp, n, v)
                o0 = v if (lt <= r0) & (r0 < le) else o0
                o1 = v if (lt <= r1) & (r1 < le) else o1
            out[g, 0] = o0
            out[g, 1] = o1
            return
        for i in range(n):
            v = tmp[i]
            lt, le = _nb_rank_span(tmp, n, v)
            for t in range(nr):
                r = ranks[g, t]
                if lt <= r and r < le:
                    out[g, t] = v
        return
    e = s + n
    lo = s
    prev = -2
    for j in range(nr):
        r = ranks[g, j]
        if r < 0 or r >= n:
            continue
        t = s + r
        if r == prev:
            pass
        elif r == prev + 1:
            # the next rank: the minimum of the upper part, moved to t
            _move_min_to(buf, t, e)
        else:
            _nb_qselect(buf, lo, e - 1, t)
        out[g, j] = buf[t]
        lo = t
        prev = r


def _nb_unflip(out, g, fm, sh):  # pragma: no cover - compiled
    """Selected totalOrder keys back to float bits (``fm`` = 0: keys stay keys)."""
    for t in range(out.shape[1]):
        k = out[g, t]
        out[g, t] = k ^ ((k >> sh) & fm)


def _nb_select_serial(bits, codes, fm, sh, klo, khi, starts, counts, ranks,
                      small):  # pragma: no cover - compiled
    ngroups = counts.shape[0]
    buf = np.empty(max(starts[-1] + counts[-1], 1) if ngroups else 1, bits.dtype)
    _nb_scatter(bits, codes, fm, sh, klo, khi, starts, buf)
    out = np.zeros(ranks.shape, dtype=bits.dtype)
    tmp = np.empty(small, bits.dtype)
    for g in range(ngroups):
        _nb_select_group(buf, starts, counts, ranks, out, g, tmp)
        _nb_unflip(out, g, fm, sh)
    return out


def _nb_select_parallel(bits, codes, fm, sh, klo, khi, starts, counts, ranks,
                        small):  # pragma: no cover - compiled
    ngroups = counts.shape[0]
    buf = np.empty(max(starts[-1] + counts[-1], 1) if ngroups else 1, bits.dtype)
    _nb_scatter(bits, codes, fm, sh, klo, khi, starts, buf)
    out = np.zeros(ranks.shape, dtype=bits.dtype)
    nblk = min(ngroups, 256)  # blocks of groups: one scratch array per block
    for blk in _prange(nblk):
        tmp = np.empty(small, bits.dtype)
        for g in range(blk * ngroups // nblk, (blk + 1) * ngroups // nblk):
            _nb_select_group(buf, starts, counts, ranks, out, g, tmp)
            _nb_unflip(out, g, fm, sh)
    return out


_NB: dict[str, Any] = {}
_NB_LOCK = threading.Lock()


def _nb_compile() -> dict[str, Any]:
    if _NB:
        return _NB
    with _NB_LOCK:
        if not _NB:
            g = globals()
            for fn in (_nb_scatter, _insertion, _nb_qselect, _nb_rank_span, _move_min_to,
                       _nb_select_group, _nb_unflip):
                # (_insertion and _move_min_to are shared with accel, whose _compile
                # may have bound them to dispatchers already: compile the plain ones)
                g[fn.__name__] = _jit(nogil=True)(getattr(fn, "py_func", fn))
            kern = {"count": _jit(nogil=True)(_nb_count),
                    False: _jit(nogil=True)(_nb_select_serial),
                    True: _jit(nogil=True, parallel=True)(_nb_select_parallel)}
            _NB.update(kern)
    return _NB


def _nb_parallel(n: int) -> bool:
    """Spread the kernel over numba's threads? (large inputs, main thread only: numba's
    pool is never driven from two threads at once, e.g. under dask)."""
    return (n >= _PARALLEL_MIN_ROWS and _nb_threads() > 1
            and threading.current_thread() is threading.main_thread())


def _nb_threads() -> int:
    import numba

    return int(numba.get_num_threads())


class _NumbaSelect:
    """The numba engine in two phases: count the taking-part rows of each group (so
    the ranks can be computed), then scatter them into per-group segments and select.

    ``bits`` are the keys, or for float data the raw bits (``flip``: the totalOrder
    keys are made on the fly, never stored). Rows take part when their code is >= 0
    and their key lies in ``[klo, khi]`` (under "omit"/"propagate" the number keys:
    totalOrder puts every NaN outside), so no filtered copies are made. ``signaling``
    counts the grouped rows with keys in ``[slo, shi]`` outside ``[klo, khi]``.
    ``parallel``: the selection runs on blocks of groups over numba's threads (the
    count and the scatter stay serial: one parallel region per call, so a busy
    machine that delays a thread costs little).
    """

    def __init__(self, bits, flip, codes, ngroups, klo, khi, slo, shi, parallel):
        self.kern = _nb_compile()
        self.bits = np.ascontiguousarray(bits)
        width = self.bits.dtype.itemsize * 8
        self.flip = flip  # the selection returns float bits, not keys
        self.fm = np.int64((1 << (width - 1)) - 1 if flip else 0)
        self.sh = np.int64(width - 1)
        self.codes = np.ascontiguousarray(codes, dtype=np.intp)
        self.klo, self.khi = np.int64(klo), np.int64(khi)
        self.parallel = parallel
        self.counts = np.zeros(ngroups, np.int64)
        self.signaling = self.kern["count"](self.bits, self.codes, self.fm, self.sh, self.klo,
                                            self.khi, np.int64(slo), np.int64(shi),
                                            self.counts)

    def __call__(self, ranks):
        counts = self.counts
        starts = np.cumsum(counts) - counts
        ranks = np.ascontiguousarray(ranks, dtype=np.int64)
        # the kernel wants each group's ranks ascending (-1 anywhere); a pair [lo, hi]
        # always is
        if ranks.shape[1] > 2 and not (np.diff(ranks, axis=1) >= 0).all():
            order = np.argsort(ranks, axis=1, kind="stable")
            sr = np.ascontiguousarray(np.take_along_axis(ranks, order, axis=1))
        else:
            order, sr = None, ranks
        got = self.kern[self.parallel](self.bits, self.codes, self.fm, self.sh, self.klo,
                                       self.khi, starts, counts, sr, _SMALL_GROUP)
        if order is None:
            return got
        out = np.empty_like(got)
        np.put_along_axis(out, order, got, axis=1)
        return out


class _Rescan(Exception):
    """A column met what the deferred NaN scan must report: scan (and raise) now."""


def _numba_failed(exc: Exception, engine: str | None) -> None:
    if engine == "numba":
        raise exc
    _NUMBA_BROKEN.append(repr(exc))
    warnings.warn(f"nanaccess: numba kernel failed ({exc!r}); using NumPy",
                  RuntimeWarning, stacklevel=3)


def _numba_prepare(col, miss, codes, ngroups, policy, scanned) -> _NumbaSelect:
    """The numba engine's first phase for one column (see :class:`_NumbaSelect`).

    ``scanned`` False: the NaN scan was skipped, so under "omit" the signaling NaNs
    are counted here (under "totalorder" they are ordinary keys).
    """
    dt = col.dtype
    remap = dt.kind == "f" and policy in (NanPolicy.SMALLEST, NanPolicy.LARGEST)
    if dt.kind == "f" and not remap and dt.isnative:
        bits, flip = col.view(layout_of(dt).int_dtype), True  # keys made on the fly
    else:
        bits, flip = _keys_of(col), False
        if remap:
            remap_keys(bits, dt, policy)
    info = np.iinfo(bits.dtype)
    klo, khi = info.min, info.max
    slo, shi = klo, khi
    if dt.kind == "f" and policy in (NanPolicy.OMIT, NanPolicy.PROPAGATE):
        lay = layout_of(dt)
        klo, khi = number_keys(lay)  # every NaN is outside
        if not scanned:  # signaling NaN keys sit next to the infinities
            slo, shi = klo - lay.payload_mask, khi + lay.payload_mask
    if miss is not None:  # rare: drop the missing rows with one copy
        keep = ~miss
        bits, codes = bits[keep], codes[keep]
    return _NumbaSelect(bits, flip, codes, ngroups, klo, khi, slo, shi,
                        _nb_parallel(bits.shape[0]))


# the order-statistic column kernel --------------------------------------------------


def _use_numba(engine: str | None, n: int) -> bool:
    return engine == "numba" or (
        engine is None and HAVE_NUMBA and not _NUMBA_BROKEN and n >= _NUMBA_MIN_ROWS
    )


def _numpy_rows(col, nan, miss, codes, policy):
    """The keys and codes of the rows that take part (the NumPy engine's input)."""
    keys = _keys_of(col)
    if col.dtype.kind == "f" and policy in (NanPolicy.SMALLEST, NanPolicy.LARGEST):
        remap_keys(keys, col.dtype, policy)
    drop_nan = policy in (NanPolicy.OMIT, NanPolicy.PROPAGATE)
    if miss is None and (nan is None or not drop_nan) and (codes.size == 0 or codes.min() >= 0):
        return keys, codes  # every row takes part: no copies
    include = codes >= 0
    if miss is not None:
        include &= ~miss
    if nan is not None and drop_nan:
        include &= ~nan
    return keys[include], codes[include]


def _order_column(col, nan, miss, codes, ngroups, stat, q_arr, method, policy, engine,
                  scanned=True):
    """One column's order statistic. ``scanned`` False: the NaN scan was deferred
    (``nan`` is None whatever the data), which only the numba engine handles; it
    raises :class:`_Rescan` when the scan must run after all."""
    dt = col.dtype
    nb = None
    if _use_numba(engine, col.size):
        try:
            nb = _numba_prepare(col, miss, codes, ngroups, policy, scanned)
        except Exception as exc:  # pragma: no cover - a broken numba install
            _numba_failed(exc, engine)
    if not scanned and (nb is None or nb.signaling):
        raise _Rescan
    if nb is not None:
        m = nb.counts
    else:
        kk, cc = _numpy_rows(col, nan, miss, codes, policy)
        m = np.bincount(cc, minlength=ngroups).astype(np.int64)
    nmiss = _group_counts(codes, miss, ngroups)
    sorting = policy in _SORTING
    N = m + nmiss if sorting else m
    lo, hi, w, mid = _ranks(stat, N, q_arr, method)
    nq = lo.shape[0]
    empty = np.broadcast_to(N == 0, lo.shape)
    if sorting:
        # the rank falls among the missing (sorted last)
        res_miss = np.maximum(lo, hi) >= m[None]
        res_miss &= ~empty
    else:  # N == m: every rank of a group with values is a value's
        res_miss = np.zeros(lo.shape, bool)
    want = np.empty((ngroups, 2 * nq), np.int64)  # (ngroups, 2 nq), -1: no such rank
    want[:, :nq] = lo.T
    want[:, nq:] = hi.T
    if nb is None or sorting:  # (the numba kernel skips ranks >= count itself)
        np.putmask(want, want >= m[:, None], -1)
    got = None
    if nb is not None:
        try:
            got = nb(want)
        except Exception as exc:  # a broken numba install: NumPy from here on
            _numba_failed(exc, engine)
            if not scanned:
                raise _Rescan from exc
            nb = None
            np.putmask(want, want >= m[:, None], -1)
            kk, cc = _numpy_rows(col, nan, miss, codes, policy)
    if got is not None:
        pass
    elif stat in ("min", "max") and not sorting:
        kmin = _minmax_keys(kk, cc, ngroups, stat)
        got = np.concatenate([kmin[:, None]] * (2 * nq), axis=1)
    else:
        got = _select_numpy(kk, cc, m, want)
    ka, kb = got[:, :nq].T, got[:, nq:].T
    if nb is not None and nb.flip:  # the kernel returned the float bits
        a, b = ka.view(dt), kb.view(dt)
    else:
        a = _values_of_keys(ka, dt, policy)
        b = _values_of_keys(kb, dt, policy)
    if stat == "median":
        vals = midpoint(a, b)
        vals = np.where(lo == hi, a if a.dtype == vals.dtype else a.astype(vals.dtype), vals)
    elif stat == "quantile" and method not in ("lower", "higher", "nearest"):
        vals = lerp(a, b, w)
    else:
        vals = a
    if vals.dtype.kind == "f":
        fill = _canonical(vals.dtype)
    elif vals.dtype.kind in "mM":
        fill = np.array("NaT", dtype=vals.dtype)
    else:
        fill = None
    flags = res_miss | empty
    if fill is None and flags.any():
        vals = vals.astype(np.float64)
        fill = _canonical(np.dtype(np.float64))
    if fill is not None:
        vals = np.where(flags, fill, vals)
    if policy is NanPolicy.PROPAGATE:
        has_nan, best = _greatest_nan(col, nan, codes, ngroups)
        has_miss = nmiss > 0
        if has_nan is not None:
            vals = np.where(has_nan[None], best[None], vals)
            has_miss = has_miss & ~has_nan
        if has_miss.any():
            res_miss = res_miss | has_miss[None]
            if fill is None:
                vals = vals.astype(np.float64)
                fill = _canonical(np.dtype(np.float64))
            vals = np.where(has_miss[None], fill, vals)
    return vals, res_miss


def _minmax_keys(kk, cc, ngroups, stat):
    info = np.iinfo(kk.dtype)
    if stat == "min":
        out = np.full(ngroups, info.max, kk.dtype)
        np.minimum.at(out, cc, kk)
    else:
        out = np.full(ngroups, info.min, kk.dtype)
        np.maximum.at(out, cc, kk)
    return out


# the moment column kernel ---------------------------------------------------------


def _size_blocks(vals: np.ndarray, cc: np.ndarray, counts: np.ndarray):
    """Yield (group ids, padded (g, width) values, where mask) per group-size class."""
    ngroups = counts.size
    order = _radix_argsort_codes(cc, ngroups) if cc.size else np.zeros(0, np.intp)
    sv = vals[order]
    sc = cc[order]
    starts = np.cumsum(counts) - counts
    pos = np.arange(sc.size, dtype=np.int64) - starts[sc]
    cls = np.zeros(ngroups, np.int64)
    nz = counts > 0
    cls[nz] = np.ceil(np.log2(counts[nz])).astype(np.int64)
    # guard against log2 rounding: make sure 2**cls >= count
    cls[nz] += (np.left_shift(1, cls[nz]) < counts[nz])
    row_in_class = np.zeros(ngroups, np.int64)
    for c in np.unique(cls[nz]):
        gids = np.flatnonzero(nz & (cls == c))
        row_in_class[gids] = np.arange(gids.size)
        width = 1 << int(c)
        block = np.zeros((gids.size, width), dtype=vals.dtype)
        where = np.zeros((gids.size, width), dtype=bool)
        sel = np.flatnonzero(cls[sc] == c)
        r = row_in_class[sc[sel]]
        block[r, pos[sel]] = sv[sel]
        where[r, pos[sel]] = True
        yield gids, block, where


def _moment_column(col, nan, miss, codes, ngroups, stat, ddof, policy):
    from .exactsum import exact_mean, exact_sum, exact_var

    dt = col.dtype
    include = codes >= 0
    if nan is not None:
        include &= ~nan
    if miss is not None:
        include &= ~miss
    vals = col[include]
    cc = codes[include]
    counts = np.bincount(cc, minlength=ngroups).astype(np.int64)
    if stat == "count":
        return counts, np.zeros(counts.shape, bool)
    work = vals.view(np.int64) if dt.kind in "mM" else vals
    if dt.kind == "f" and dt != np.float64:
        work = work.astype(np.float64)  # exact: every float16/32 is a float64
    is_int = work.dtype.kind in "iub"
    if stat == "sum" and is_int:
        out = np.zeros(ngroups, np.int64)
    elif stat == "sum":
        out = np.zeros(ngroups, np.float64)
    else:
        out = np.full(ngroups, _canonical(np.dtype(np.float64)), np.float64)
    for gids, block, where in _size_blocks(work, cc, counts):
        if stat == "sum":
            out[gids] = exact_sum(block, where=where)
        elif stat == "mean":
            out[gids] = exact_mean(block, where=where)
        else:
            v = exact_var(block, ddof=ddof, where=where)
            out[gids] = np.sqrt(v) if stat == "std" else v
    if stat in ("var", "std"):
        out = np.where(counts - ddof <= 0, _canonical(np.dtype(np.float64)), out)
    if dt.kind == "f" and dt != np.float64:
        nanout = np.isnan(out)
        out = out.astype(dt)
        out[nanout] = _canonical(dt)
    res_miss = np.zeros(ngroups, bool)
    if dt.kind in "mM" and stat in ("sum", "mean"):
        fill = np.array("NaT", dtype=dt.newbyteorder("="))
        nat = np.isnan(out) if out.dtype.kind == "f" else np.zeros(ngroups, bool)
        ints = np.round(np.where(nat, 0, out)).astype(np.int64) if out.dtype.kind == "f" else out
        out = np.where(nat, fill, ints.view(fill.dtype))
    if policy is not NanPolicy.OMIT:
        has_nan, best = _greatest_nan(col, nan, codes, ngroups)
        has_miss = _group_counts(codes, miss, ngroups) > 0
        if has_nan is not None:
            out = np.where(has_nan, best, out)
            has_miss &= ~has_nan
        if has_miss.any():
            res_miss = has_miss
            if out.dtype.kind in "iub":
                out = out.astype(np.float64)
            fill = np.array("NaT", dtype=out.dtype) if out.dtype.kind in "mM" else _canonical(
                out.dtype)
            out = np.where(has_miss, fill, out)
    return out, res_miss


# ------------------------------------------------------------ Python-object data


def _object_path(x2, codes, ngroups, stat, q_arr, method, ddof, policy, miss2):
    """Exact object path (Decimal, Fraction, big ints): one grouping sort, then the
    exact per-group routine of :mod:`nanaccess.core.objects` on each group's slice.

    This is the slow exact path; its per-group work is Python by nature.
    """
    from .objects import object_moment_stat, object_order_stat

    n, ncols = x2.shape
    valid = codes >= 0
    rows = np.flatnonzero(valid)
    order = rows[_radix_argsort_codes(codes[rows], ngroups)] if rows.size else rows
    counts = np.bincount(codes[rows], minlength=ngroups)
    starts = np.cumsum(counts) - counts
    lead = (len(q_arr),) if q_arr is not None else ((1,) if stat in ORDER_STATS else ())
    values = np.empty(lead + (ngroups, ncols), dtype=object)
    vmiss = np.zeros(values.shape, bool)
    from ..errors import NaNError as _E

    for c in range(ncols):
        colv = x2[:, c]
        if miss2 is not None:
            colv = np.where(miss2[:, c], None, colv)
        for g in range(ngroups):  # object data: exact Python arithmetic per group
            idx = order[starts[g] : starts[g] + counts[g]]
            seq = colv[idx].tolist()
            try:
                if stat == "count":
                    from .objects import classify_object

                    r = sum(classify_object(v)[0] == "number" for v in seq)
                elif stat in MOMENT_STATS:
                    r = object_moment_stat(seq, stat, ddof=int(ddof), policy=policy) if seq else (
                        0 if stat == "sum" else float("nan"))
                elif not seq:
                    r = [float("nan")] * len(q_arr) if q_arr is not None else float("nan")
                else:
                    qq = None if q_arr is None else [float(v) for v in q_arr]
                    r = object_order_stat(seq, stat, q=qq, method=method, policy=policy)
            except _E as err:
                pos = err.position
                p = int(pos[0] if isinstance(pos, tuple) else pos) if pos is not None else 0
                row = int(idx[min(p, idx.size - 1)])
                new = type(err)(count=err.count, kind=err.kind,
                                position=(row,) if ncols == 1 else (row, c),
                                subject=f"group {g}")
                new.group = g
                raise new from None
            if q_arr is not None:
                for j, rv in enumerate(r):
                    values[j, g, c] = rv
            elif lead:
                values[0, g, c] = r
            else:
                values[g, c] = r
    return values, vmiss
