"""Grouped kernels: order and moment statistics per group, with no loop per group.

NumPy-only (shared by the pandas and xarray adapters). The data ``x`` is 1-D ``(n,)``
or 2-D ``(n, ncols)`` (the columns share one grouping); ``codes`` gives each row's
group (``-1``: the row belongs to no group and is ignored entirely).

How the order statistics work
-----------------------------
Each column's values become integer keys (:mod:`nanaccess.core.keys`; remapped for
"smallest"/"largest"). Rows that do not take part (code -1, missing, and NaNs under
"omit"/"propagate") are dropped, then the keys are ordered by (group code, key) with
one sort and the wanted ranks are gathered at ``group start + rank``:

* when the key range and the code range fit in 63 bits together (all 8/16/32-bit
  data, ints and datetimes of moderate range, floats of one sign and a narrow range),
  one ``np.sort`` of a composite ``code << b | (key - min)`` (no index array);
* otherwise one ``np.argsort`` of the keys, then a stable counting (radix, 16 bits a
  pass) sort of the codes.

An optional numba engine (``engine="numba"``; the default when numba imports and the
column has at least 50 000 rows) scatters the keys into per-group segments (a counting
sort), then per group either insertion-sorts a small segment (<= 24 keys) or runs a
quickselect with branchless Lomuto partitions (a second pass gathers the pivot's
duplicates, so runs of equal keys stay linear); the next rank of an even median is
the minimum of the upper part. O(n) on average. Both engines return the same keys,
so the results are equal bit for bit (tested). numba is never required.

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

import warnings
from typing import Any

import numpy as np

from ..errors import NaNError, SignalingNaNError
from ..options import NanPolicy, resolve_policy
from .bits import layout_of
from .interp import METHODS, lerp, midpoint, quantile_positions
from .keys import float_keys, integer_keys, keys_to_float, remap_keys, unmap_keys

__all__ = ["grouped_stat", "ORDER_STATS", "MOMENT_STATS", "QUANTILE_METHODS", "HAVE_NUMBA"]

ORDER_STATS = ("median", "median_low", "median_high", "quantile", "min", "max")
MOMENT_STATS = ("mean", "var", "std", "sum", "count")
QUANTILE_METHODS = METHODS

# optional accelerator: one switch for every compiled path (NANACCESS_NO_NUMBA=1)
from .accel import HAVE_NUMBA  # noqa: E402

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
    nan, miss = _scan(x2, codes, policy, miss2, one_d)
    if dt.kind == "M" and stat not in ORDER_STATS and stat not in ("mean", "count"):
        raise TypeError(f"{stat} of datetime64 data is not defined")
    outs, omiss = [], []
    for c in range(x2.shape[1]):
        col = x2[:, c]
        ncol = None if nan is None else nan[:, c]
        mcol = None if miss is None else miss[:, c]
        if stat in ORDER_STATS:
            v, m = _order_column(col, ncol, mcol, codes, ngroups, stat, q_arr, method, policy,
                                 engine)
        else:
            v, m = _moment_column(col, ncol, mcol, codes, ngroups, stat, ddof, policy)
        outs.append(v)
        omiss.append(m)
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

    ``mid`` marks midpoints ((a+b)/2 arithmetic) as opposed to linear interpolation.
    """
    N = N.astype(np.int64)
    last = np.maximum(N - 1, 0)
    if stat in ("median", "median_low", "median_high"):
        lo = (last // 2)[None]
        hi = (N // 2)[None]
        hi = np.minimum(hi, last[None])
        if stat == "median_low":
            hi = lo
        elif stat == "median_high":
            lo = hi
        w = np.where(hi != lo, 0.5, 0.0)
        return lo, hi, w, np.ones_like(lo, dtype=bool)
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


_NB_CACHE: dict[str, Any] = {}


def _numba_kernels():
    if "select" in _NB_CACHE:
        return _NB_CACHE["select"]
    from numba import njit

    @njit(cache=True, nogil=True)
    def _qselect(a, lo, hi, k):  # pragma: no cover - compiled
        # quickselect with branchless Lomuto partitions (no mispredicted branches on
        # random keys); a second pass gathers the pivot's duplicates, so runs of equal
        # keys cannot make it quadratic
        while hi > lo:
            if hi - lo < 16:
                for u in range(lo + 1, hi + 1):
                    v = a[u]
                    w = u - 1
                    while w >= lo and a[w] > v:
                        a[w + 1] = a[w]
                        w -= 1
                    a[w + 1] = v
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

    @njit(cache=True, nogil=True)
    def select(kk, cc, starts, counts, ranks):  # pragma: no cover - compiled
        n = kk.shape[0]
        buf = np.empty_like(kk)
        pos = starts.copy()
        for i in range(n):
            g = cc[i]
            buf[pos[g]] = kk[i]
            pos[g] += 1
        out = np.zeros(ranks.shape, dtype=kk.dtype)
        for g in range(counts.shape[0]):
            s = starts[g]
            e = s + counts[g]
            if counts[g] <= 24:
                # small group: insertion sort the segment, then read every rank
                for u in range(s + 1, e):
                    v = buf[u]
                    w = u - 1
                    while w >= s and buf[w] > v:
                        buf[w + 1] = buf[w]
                        w -= 1
                    buf[w + 1] = v
                for j in range(ranks.shape[1]):
                    r = ranks[g, j]
                    if r >= 0 and r < counts[g]:
                        out[g, j] = buf[s + r]
                continue
            lo = s
            prev = -2
            for j in range(ranks.shape[1]):
                r = ranks[g, j]
                if r < 0 or r >= counts[g]:
                    continue
                t = s + r
                if r == prev:
                    pass
                elif r == prev + 1:
                    # the next rank: the minimum of the upper part, moved to t
                    best = t
                    for u in range(t + 1, e):
                        if buf[u] < buf[best]:
                            best = u
                    buf[t], buf[best] = buf[best], buf[t]
                else:
                    _qselect(buf, lo, e - 1, t)
                out[g, j] = buf[t]
                lo = t
                prev = r
        return out

    _NB_CACHE["select"] = select
    return select


def _select_numba(kk, cc, counts, ranks):
    select = _numba_kernels()
    starts = (np.cumsum(counts) - counts).astype(np.int64)
    ranks = np.ascontiguousarray(ranks, dtype=np.int64)
    if ranks.shape[1] > 1 and not (np.diff(ranks, axis=1) >= 0).all():
        order = np.argsort(ranks, axis=1, kind="stable")
        sr = np.ascontiguousarray(np.take_along_axis(ranks, order, axis=1))
    else:
        order, sr = None, ranks
    got = select(np.ascontiguousarray(kk), cc.astype(np.int64, copy=False), starts,
                 counts.astype(np.int64, copy=False), sr)
    if order is None:
        return got
    out = np.empty_like(got)
    np.put_along_axis(out, order, got, axis=1)
    return out


# the order-statistic column kernel --------------------------------------------------


def _order_column(col, nan, miss, codes, ngroups, stat, q_arr, method, policy, engine):
    dt = col.dtype
    keys = _keys_of(col)
    if dt.kind == "f" and policy in (NanPolicy.SMALLEST, NanPolicy.LARGEST):
        remap_keys(keys, dt, policy)
    drop_nan = policy in (NanPolicy.OMIT, NanPolicy.PROPAGATE)
    if miss is None and (nan is None or not drop_nan) and (codes.size == 0 or codes.min() >= 0):
        kk, cc = keys, codes  # every row takes part: no copies
    else:
        include = codes >= 0
        if miss is not None:
            include &= ~miss
        if nan is not None and drop_nan:
            include &= ~nan
        kk = keys[include]
        cc = codes[include]
    m = np.bincount(cc, minlength=ngroups).astype(np.int64)
    nmiss = _group_counts(codes, miss, ngroups)
    sorting = policy in _SORTING
    N = m + nmiss if sorting else m
    lo, hi, w, mid = _ranks(stat, N, q_arr, method)
    nq = lo.shape[0]
    empty = (N == 0)[None] & np.ones((nq, 1), bool)
    # the rank falls among the missing (sorted last)
    res_miss = np.maximum(lo, hi) >= m[None]
    res_miss &= ~empty
    want = np.concatenate([lo, hi], axis=0).T  # (ngroups, 2 nq)
    want = np.where(want < m[:, None], want, -1)
    if stat in ("min", "max") and not sorting:
        kmin = _minmax_keys(kk, cc, ngroups, stat)
        got = np.concatenate([kmin[:, None]] * (2 * nq), axis=1)
    else:
        use_nb = engine == "numba" or (
            engine is None and HAVE_NUMBA and not _NUMBA_BROKEN and kk.size >= _NUMBA_MIN_ROWS
        )
        got = None
        if use_nb:
            try:
                got = _select_numba(kk, cc, m, want)
            except Exception as exc:  # pragma: no cover - a broken numba install
                if engine == "numba":
                    raise
                _NUMBA_BROKEN.append(repr(exc))
                warnings.warn(f"nanaccess: numba kernel failed ({exc!r}); using NumPy",
                              RuntimeWarning, stacklevel=2)
        if got is None:
            got = _select_numpy(kk, cc, m, want)
    ka, kb = got[:, :nq].T, got[:, nq:].T
    a = _values_of_keys(ka, dt, policy)
    b = _values_of_keys(kb, dt, policy)
    if stat == "median":
        vals = midpoint(a, b)
        vals = np.where(lo == hi, a.astype(vals.dtype), vals)
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
