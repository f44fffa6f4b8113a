"""The compiled exact sums (numba, :mod:`nanaccess.core._numba.exact`) behind the
NumPy engine's functions: same inputs, same bits.

:func:`compiled_rows` and :func:`compiled_groups` return ``None`` when the NumPy
engine should serve the call (engine option, numba missing, disabled or broken, a
count beyond the kernels' divisions); the callers then run the NumPy engine, which
stays the reference. The kernels resolve the sums; the IEEE special cases
(infinities, NaN, ``-0.0``) are applied here exactly as the NumPy engine applies them.
"""

from __future__ import annotations

import threading
from typing import Any, cast

import numpy as np

from ... import _stats
from .. import _numba as nb
from .certified import F_NAN as _C_NAN
from .certified import F_SNAN as _C_SNAN
from .certified import (
    certified_1d,
    certified_groups,
    certified_rows,
    certified_var_groups,
    certified_var_rows,
    uncertified_groups,
)
from .common import CANONICAL_NAN
from .extraction import negzero_rows
from .numpy_var import exact_var_numpy

__all__ = ["compiled_rows", "compiled_rows_skipnan", "compiled_groups", "compiled_1d",
           "compiled_digits", "MIN_SIZE", "STATS"]

#: inputs with fewer elements stay with the NumPy engine (Python ints there)
MIN_SIZE = 65
#: the statistics the kernels compute, by code
STATS = {"sum": 0, "mean": 1, "var": 2}
_MAX_COUNT = (1 << 31) - 1  # the kernels' long division takes divisors below 2**31
_DUMMY_MASK = np.ones((1, 1), dtype=bool)
_LOCAL = threading.local()


def _kernels() -> Any:
    return nb.kernels("exact")


def _state() -> tuple[Any, ...]:
    """This thread's kernel scratch state (the kernels leave it clean)."""
    st = getattr(_LOCAL, "state", None)
    if st is None:
        from .._numba.exact import new_state

        outs = tuple(np.zeros(1, np.int64) for _ in range(3))
        st = _LOCAL.state = (*new_state(), outs)
    return st


def _engine(size: int) -> bool:
    return nb.choose_engine(size=size, min_size=MIN_SIZE) == "numba"


_FLAGS: list[tuple[int, int, int, int, int]] = []


def _flags() -> tuple[int, int, int, int, int]:
    """The kernels' row flags (+inf, -inf, NaN, squares out of range, signaling NaN)."""
    if not _FLAGS:
        from .._numba.exact import F_NAN, F_NEGINF, F_POSINF, F_RAW, F_SNAN

        _FLAGS.append((F_POSINF, F_NEGINF, F_NAN, F_RAW, F_SNAN))
    return _FLAGS[0]


def _specials(res: Any, flags: Any, stat: Any) -> Any:
    """Infinities and NaN as the NumPy engine (``_ieee_specials`` / ``exact_var``)."""
    f_pos, f_neg, f_nan = _flags()[:3]
    pos = (flags & f_pos) != 0
    neg = (flags & f_neg) != 0
    nan = (flags & f_nan) != 0
    if stat in _stats.VARIANCES:
        return np.where(pos | neg | nan, CANONICAL_NAN, res)
    res = np.where(pos, np.inf, res)
    res = np.where(neg, -np.inf, res)
    return np.where((pos & neg) | nan, CANONICAL_NAN, res)


def _float64(x: np.ndarray) -> Any:
    return x if x.dtype == np.float64 else x.astype(np.float64)


def compiled_rows(x2: np.ndarray, w2: np.ndarray | None, stat: str,
                  ddof: float = 0) -> np.ndarray | None:
    """Per-row exact ``stat`` ("sum", "mean", "var") of float rows, or None.

    Parameters
    ----------
    x2 : numpy.ndarray
        ``(rows, n)`` float16/32/64 rows.
    w2 : numpy.ndarray of bool or None
        ``(rows, n)`` selection, as the NumPy engine's ``where``.
    stat : str
    ddof : float
        For "var".

    Returns
    -------
    numpy.ndarray or None
        float64 ``(rows,)`` equal bit for bit to the NumPy engine, or None when the
        NumPy engine should run.
    """
    cert = certified_var_rows(x2, w2, ddof) if stat in _stats.VARIANCES \
        else certified_rows(x2, w2, stat)
    if cert is not None:
        vals, ok = cert[:2]
        if ok.all():
            return cast("np.ndarray | None", vals)
        bad = np.flatnonzero(~ok)  # the exact kernel takes the rows not certified
        every = bad.size == ok.size  # no gathering copy when every row goes
        sub = _exact_rows(x2 if every else np.ascontiguousarray(x2[bad]),
                          w2 if every or w2 is None else w2[bad], stat, ddof)
        if sub is None:
            return None
        vals[bad] = sub
        return cast("np.ndarray | None", vals)
    return cast("np.ndarray | None", _exact_rows(x2, w2, stat, ddof))


def _exact_rows(x2: Any, w2: Any, stat: Any, ddof: Any) -> Any:
    """:func:`compiled_rows` by the exact kernel alone."""
    got = _run_rows(x2, w2, False, stat, ddof)
    if got is None:
        return None
    out, counts, flags = got
    return _resolve_rows(x2, w2, stat, ddof, out, counts, flags)


def compiled_rows_skipnan(x2: np.ndarray, stat: str, ddof: float = 0, *, certify: bool = True
                          ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Per-row exact ``stat`` of float64 rows with their NaNs left out, in one pass
    that also finds the NaNs (no separate scan, no mask), or None.

    Returns
    -------
    (values, nan, signaling) or None
        ``values`` equal bit for bit to :func:`compiled_rows` with ``w2 = ~isnan(x2)``;
        ``nan`` / ``signaling``: bool ``(rows,)``, the rows holding a NaN / a
        signaling NaN (the caller applies its policy: the values are right only for
        a policy that removes NaNs, or where a row holds none). ``certify`` False:
        the exact kernel alone (the caller's certified pass has refused the rows).
    """
    if x2.dtype != np.float64:
        return None  # a conversion would quiet signaling NaNs
    if not certify:
        return cast("tuple[np.ndarray, np.ndarray, np.ndarray] | None",
               _exact_rows_skipnan(x2, stat, ddof))
    cert = certified_var_rows(x2, None, ddof, skipnan=True) if stat in _stats.VARIANCES \
        else certified_rows(x2, None, stat, skipnan=True)
    if cert is not None:
        vals, ok, _, cflags = cert
        nan = (cflags & _C_NAN) != 0
        sig = (cflags & _C_SNAN) != 0
        if not ok.all():  # the exact kernel takes the rows not certified
            bad = np.flatnonzero(~ok)
            sub = _exact_rows_skipnan(x2 if bad.size == ok.size else
                                      np.ascontiguousarray(x2[bad]), stat, ddof)
            if sub is None:
                return None
            vals[bad] = sub[0]
        return vals, nan, sig
    return cast("tuple[np.ndarray, np.ndarray, np.ndarray] | None",
           _exact_rows_skipnan(x2, stat, ddof))


def _exact_rows_skipnan(x2: Any, stat: Any, ddof: Any) -> Any:
    """:func:`compiled_rows_skipnan` by the exact kernel alone."""
    got = _run_rows(x2, None, True, stat, ddof)
    if got is None:
        return None
    out, counts, flags = got
    f_nan, f_snan = _flags()[2], _flags()[4]
    nan = (flags & f_nan) != 0
    sig = (flags & f_snan) != 0
    vals = _resolve_rows(x2, None, stat, ddof, out, counts, flags & ~(f_nan | f_snan),
                         skipnan=bool(nan.any()))
    return vals, nan, sig


def _run_rows(x2: np.ndarray, w2: Any, skipnan: Any, stat: Any, ddof: Any) -> Any:
    """The rows kernel on ``x2``: (out bits, counts, flags), or None."""
    rows, n = x2.shape
    if not _engine(x2.size) or n > _MAX_COUNT:
        return None
    try:
        kern = _kernels()["rows"]
        xc = np.ascontiguousarray(_float64(x2))
        mask = _DUMMY_MASK if w2 is None else np.ascontiguousarray(w2)
        ddof_int = int(ddof) if float(ddof) == int(ddof) else 0
        out = np.zeros(rows, np.int64)
        counts = np.zeros(rows, np.int64)
        flags = np.zeros(rows, np.int64)
        kern(xc.view(np.uint64), mask, w2 is not None, skipnan, STATS[stat], ddof_int, out,
             counts, flags, *_state()[:-1])
    except Exception as err:  # numba failed: the NumPy engine, from now on
        nb.fallback(err)
        return None
    return out, counts, flags


def _resolve_rows(x2: Any, w2: Any, stat: Any, ddof: Any, out: np.ndarray, counts: Any, flags: Any,
                  skipnan: Any = False) -> Any:
    """The kernel's row results with the IEEE special cases and the rare rows the
    kernel leaves to the NumPy engine; with ``skipnan`` the selection of those rows
    is their non-NaN values."""
    def sel(idx: Any) -> Any:  # the rows idx and their selection
        xr = x2[idx]
        if skipnan:
            return xr, ~np.isnan(xr)
        return xr, None if w2 is None else w2[idx]

    res = out.view(np.float64)
    if stat in _stats.VARIANCES:
        f_raw = _flags()[3]
        raw = np.flatnonzero((flags == f_raw) & (counts - ddof > 0))
        if float(ddof) != int(ddof):
            with np.errstate(divide="ignore", invalid="ignore"):
                res = res * counts / (counts - ddof)
        if raw.size:
            xr, wr = sel(raw)
            res[raw] = exact_var_numpy(xr, ddof, wr)
        res = np.where(counts - ddof <= 0, CANONICAL_NAN, res)
        return _specials(res, flags, stat)
    res = _specials(res, flags, stat)
    zero = np.flatnonzero((out == 0) & (flags == 0) & (counts > 0))
    if zero.size:
        xr, wr = sel(zero)
        res[zero] = np.where(negzero_rows(xr, wr, np.arange(zero.size)), -0.0, 0.0)
    if stat in _stats.MEANS:
        res = np.where(counts == 0, CANONICAL_NAN, res)
    return res


def compiled_1d(x: np.ndarray, stat: str, ddof: float = 0, *,
                plain_only: bool = False) -> float | None:
    """The exact ``stat`` ("sum", "mean", "var") of a 1-D float64 array as a Python
    float, through the compiled kernel with the least overhead (no mask, no reshaping
    beyond a view), or None when the NumPy engine should run.

    For callers that have validated the data already (the small-data path): equal bit
    for bit to ``exact_sum`` / ``exact_mean`` / ``exact_var`` of ``x``. With
    ``plain_only`` the value is returned only when the kernel saw nothing special (no
    NaN, no infinity, a nonzero result, squares in range), so a caller may try it
    before validating: None means "validate and take the general path".

    Examples
    --------
    >>> import numpy as np
    >>> got = compiled_1d(np.arange(100.0), "mean")
    >>> got is None or got == 49.5
    True
    """
    if x.dtype != np.float64 or x.ndim != 1 or not _engine(x.size) or x.size > _MAX_COUNT:
        return None
    var = stat in _stats.VARIANCES
    if not var and (got := certified_1d(np.ascontiguousarray(x), stat)) is not None:
        return got
    if var and (cert := certified_var_rows(x.reshape(1, -1), None, ddof)) is not None \
            and cert[1][0]:
        return float(cert[0][0])
    if plain_only:  # not certified: an answer only for plain data, so look before the
        with np.errstate(all="ignore"):  # exact kernel's pass (NaN or inf: the caller's)
            if not np.isfinite(np.add.reduce(x)):
                return None
    st = _state()
    out, counts, flags = st[-1]
    try:
        _kernels()["rows"](np.ascontiguousarray(x).view(np.uint64).reshape(1, -1),
                           _DUMMY_MASK, False, False, STATS[stat], int(ddof), out, counts, flags,
                           *st[:-1])
    except Exception as err:  # numba failed: the NumPy engine, from now on
        nb.fallback(err)
        return None
    if flags[0] == 0 and out[0] != 0 and float(ddof) == int(ddof):
        return float(out.view(np.float64)[0])  # the common case: nothing special
    if plain_only:
        return None
    rows = compiled_rows(x.reshape(1, -1), None, stat, ddof)
    return None if rows is None else float(rows[0])


def compiled_groups(vals: np.ndarray, include: np.ndarray | None, codes: np.ndarray,
                    ngroups: int, stat: str, ddof: float = 0
                    ) -> tuple[np.ndarray, np.ndarray] | None:
    """Per-group exact ``stat`` of float ``vals`` in one compiled pass, or None.

    Parameters
    ----------
    vals : numpy.ndarray
        1-D float16/32/64 values.
    include : numpy.ndarray of bool or None
        Rows taking part (besides ``codes >= 0``).
    codes : numpy.ndarray
        Group code per row in ``[0, ngroups)``, -1 for rows in no group.
    ngroups : int
    stat : str
        "sum", "mean" or "var".
    ddof : float

    Returns
    -------
    (values, counts) or None
        float64 values equal bit for bit to the NumPy engine on each group's values
        (a group with no value gives ``+0.0`` for "sum", the canonical NaN otherwise),
        and the per-group counts.
    """
    if not _engine(vals.size) or vals.size > _MAX_COUNT:
        return None
    cert = certified_var_groups(vals, include, codes, ngroups, ddof) if stat in _stats.VARIANCES \
        else certified_groups(vals, include, codes, ngroups, stat)
    if cert is not None:
        res, ok, counts = cert[:3]
        if ok.all():
            return res, counts
        # the exact kernel takes the rows of the groups not certified, renumbered
        sv, si, sc, bad = uncertified_groups(vals, include, codes, ok)
        sub = _exact_groups(sv, si, sc, bad.size, stat, ddof)
        if sub is None:
            return None
        res[bad] = sub[0]
        counts[bad] = sub[1]
        return res, counts
    return cast("tuple[np.ndarray, np.ndarray] | None",
           _exact_groups(vals, include, codes, ngroups, stat, ddof))


def _exact_groups(vals: Any, include: Any, codes: np.ndarray, ngroups: Any, stat: Any,
                  ddof: Any) -> Any:
    """:func:`compiled_groups` by the exact kernel alone."""
    try:
        kern = _kernels()["grouped"]
        xc = np.ascontiguousarray(_float64(vals))
        mask = _DUMMY_MASK[0] if include is None else np.ascontiguousarray(include)
        ddof_int = int(ddof) if float(ddof) == int(ddof) else 0
        out = np.zeros(ngroups, np.int64)
        counts = np.zeros(ngroups, np.int64)
        flags = np.zeros(ngroups, np.int64)
        kern(xc.view(np.uint64), mask, include is not None,
             np.ascontiguousarray(codes, dtype=np.int64), ngroups, STATS[stat], ddof_int,
             out, counts, flags, *_state()[:-1])
    except Exception as err:  # numba failed: the NumPy engine, from now on
        nb.fallback(err)
        return None
    res = out.view(np.float64).copy()

    def selected() -> Any:
        return (codes >= 0) if include is None else (codes >= 0) & include

    if stat in _stats.VARIANCES:
        raw = np.flatnonzero((flags == _flags()[3]) & (counts - ddof > 0))
        if float(ddof) != int(ddof):
            with np.errstate(divide="ignore", invalid="ignore"):
                res = res * counts / (counts - ddof)
        for g in raw.tolist():  # values beyond 2**+-480: rare, per group
            res[g] = float(exact_var_numpy(xc[selected() & (codes == g)], ddof))
        res = np.where(counts - ddof <= 0, CANONICAL_NAN, res)
        return _specials(res, flags, stat), counts
    res = _specials(res, flags, stat)
    zero = (out == 0) & (flags == 0) & (counts > 0)
    if zero.any():
        nz = selected() & (xc == 0) & np.signbit(xc)
        allneg = np.bincount(codes[nz], minlength=ngroups) == counts
        res = np.where(zero & allneg, -0.0, res)
    if stat in _stats.MEANS:
        res = np.where(counts == 0, CANONICAL_NAN, res)
    return res, counts


def _ints(dig: np.ndarray, neg: np.ndarray | None, shift: int) -> list[int]:
    """Python ints of 32-bit magnitude digit rows (little endian), signed, << shift."""
    raw = dig.astype("<u4").tobytes()
    w = dig.shape[1] * 4
    out = []
    for r in range(dig.shape[0]):
        v = int.from_bytes(raw[r * w:(r + 1) * w], "little") << shift
        out.append(-v if neg is not None and neg[r] else v)
    return out


def compiled_digits(x2: np.ndarray, w2: np.ndarray | None, squares: bool) -> Any:
    """Exact per-row partials of float rows through the compiled kernel, or None.

    Returns
    -------
    (s, q, counts, posinf, neginf, nan, raw) or None
        ``s``: exact sums times ``2**1074`` and ``q``: exact sums of squares times
        ``2**2148`` (lists of Python ints; ``q`` None without squares); ``raw``: rows
        whose squares the kernel could not take (the caller recomputes them).
    """
    rows, n = x2.shape
    if not _engine(x2.size):
        return None
    from .._numba.exact import ND

    try:
        kern = _kernels()["digits"]
        xc = np.ascontiguousarray(_float64(x2))
        mask = _DUMMY_MASK if w2 is None else np.ascontiguousarray(w2)
        sdig = np.zeros((rows, ND + 2), np.int64)
        qdig = np.zeros((rows, ND + 2) if squares else (1, ND + 2), np.int64)
        sneg = np.zeros(rows, np.bool_)
        counts = np.zeros(rows, np.int64)
        flags = np.zeros(rows, np.int64)
        kern(xc.view(np.uint64), mask, w2 is not None, squares, sdig, qdig, sneg, counts,
             flags, *_state()[:-1])
    except Exception as err:  # numba failed: the NumPy engine, from now on
        nb.fallback(err)
        return None
    f_pos, f_neg, f_nan, f_raw = _flags()[:4]
    s = _ints(sdig, sneg, 0)
    q = _ints(qdig, None, 1074) if squares else None
    return (s, q, counts, (flags & f_pos) != 0, (flags & f_neg) != 0, (flags & f_nan) != 0,
            (flags & f_raw) != 0)
