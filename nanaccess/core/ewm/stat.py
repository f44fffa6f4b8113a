"""The policy and parameter layer of the exponentially weighted statistics."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...options import NanPolicy, resolve_policy
from .. import _numba as nb
from ..axes import Reduction
from ..nanscan import scan_rows
from ..policy import RULES

__all__ = ["EWM_STATS", "ewm_alpha", "ewm_stat", "ewm_step"]

EWM_STATS = ("mean", "var", "std")
_MIN_SIZE = 64


def ewm_alpha(com: float | None = None, span: float | None = None,
              halflife: Any = None, alpha: float | None = None, *,
              times: bool = False) -> float:
    """The smoothing factor alpha as pandas computes it (exactly one of ``com``,
    ``span``, ``halflife``, ``alpha``; with ``times``, ``halflife`` is a duration and
    alpha is 0.5 per half-life).

    Examples
    --------
    >>> ewm_alpha(span=3), ewm_alpha(com=1.0), ewm_alpha(alpha=0.25)
    (0.5, 0.5, 0.25)
    """
    given = [k for k, v in (("com", com), ("span", span), ("halflife", halflife),
                            ("alpha", alpha)) if v is not None]
    if times:
        if halflife is None or com is not None or span is not None or alpha is not None:
            raise ValueError("times= needs halflife= (a duration) and none of com, span, "
                             "alpha")
        return 0.5
    if len(given) != 1:
        raise ValueError("comass, span, halflife, and alpha are mutually exclusive"
                         if given else "Must pass one of comass, span, halflife, or alpha")
    if com is not None:
        if com < 0:
            raise ValueError("comass must satisfy: comass >= 0")
        c = float(com)
    elif span is not None:
        if span < 1:
            raise ValueError("span must satisfy: span >= 1")
        c = (span - 1) / 2
    elif halflife is not None:
        if halflife <= 0:
            raise ValueError("halflife must satisfy: halflife > 0")
        decay = 1 - np.exp(np.log(0.5) / halflife)
        c = 1 / decay - 1
    else:
        if alpha <= 0 or alpha > 1:
            raise ValueError("alpha must satisfy: 0 < alpha <= 1")
        c = (1 - alpha) / alpha
    return 1.0 / (1.0 + float(c))


def _duration_ns(halflife: Any) -> int:
    """A halflife of time-based weights in nanoseconds: a ``timedelta64``, a
    ``datetime.timedelta`` or a host Timedelta (``to_timedelta64``). Strings such as
    "2 days" are the host's to parse (``nanaccess._hostkit.duration``)."""
    to64 = getattr(halflife, "to_timedelta64", None)
    if to64 is not None:
        halflife = to64()
    if isinstance(halflife, str):
        raise TypeError(f"a halflife of the core is a duration, got {halflife!r} (host "
                        "adapters parse strings: nanaccess._hostkit.duration)")
    return int(np.timedelta64(halflife).astype("m8[ns]").astype(np.int64))


def _seen(flag: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Rows of ``flag``: whether a True came at or before each position within its
    segment (rows, or the ``starts`` segments of one row)."""
    if flag.shape[0] != 1 or starts.size <= 2:
        return np.logical_or.accumulate(flag, axis=1)
    f = flag.reshape(-1)
    last = np.maximum.accumulate(np.where(f, np.arange(f.size), -1))
    seg = np.repeat(starts[:-1], np.diff(starts))
    return (last >= seg).reshape(flag.shape)


def _deltas(times: Any, halflife: Any, n: int,
            starts: np.ndarray | None = None) -> np.ndarray:
    t = np.asarray(times)
    if t.shape != (n,):
        raise ValueError(f"times must have one entry per value ({n}), got shape {t.shape}")
    if t.dtype.kind == "M":
        ti = t.astype("datetime64[ns]").view(np.int64)
        if (t != t).any():
            raise ValueError("times must not contain NaT")
        hl_ns = float(_duration_ns(halflife))
    else:
        ti = t.astype(np.float64)
        hl_ns = float(halflife)
    d = np.concatenate([np.diff(ti).astype(np.float64), [0.0]])
    if starts is not None and starts.size > 2:  # no step from one segment to the next
        d[starts[1:-1] - 1] = 0.0
    if (d < 0).any():
        raise ValueError("times must be monotonically increasing")
    return d / hl_ns


def _run(v: np.ndarray, starts: np.ndarray, alpha: float, deltas: np.ndarray | None,
         adjust: bool, nanmode: int, minp: int, want_var: bool, bias: bool,
         state: np.ndarray | None = None, want_std: bool = False
         ) -> tuple[np.ndarray, np.ndarray | None]:
    fh = 1.0 - alpha
    fl = (1.0 - fh) - alpha  # 1 - alpha exactly: fh + fl (Sterbenz: fh is within 2x of 1)
    out = np.empty(v.size, np.float64)
    # the weighted sums (no division on the carried chain) serve everything but time
    # steps and adjust=False decaying over NaNs (pandas' renormalisation after a gap)
    sums = deltas is None and (adjust or nanmode != 1)
    if state is not None and not sums:
        raise NotImplementedError("a chunked ewm needs times=None and (with adjust=False) "
                                  "ignore_na=True")
    if sums:
        name = "var" if want_var else "mean"
        args: tuple[Any, ...] = (v, starts, fh, fl, bool(adjust), nanmode, int(minp))
        if state is None:
            from .._numba.ewm import fresh_state

            state = fresh_state(starts.size - 1)
        args += (bool(bias), out, state, bool(want_std)) if want_var else (out, state)
        args += (v.view(np.int64),)
    else:
        name = "ewm"
        d = np.zeros(1) if deltas is None else deltas
        args = (v, starts, fh, fl, d, deltas is not None, bool(adjust), nanmode, int(minp),
                want_var, bool(bias), out)
    if nb.choose_engine(size=v.size, min_size=_MIN_SIZE) == "numba":
        try:
            nb.kernels("ewm")[name](*args)
            return out, state
        except Exception as err:  # numba failed: the NumPy engine, from now on
            nb.fallback(err)
    from .._numba import ewm as ref  # plain Python: the uncompiled reference

    {"ewm": ref.ewm_kernel, "mean": ref.ewm_mean_kernel, "var": ref.ewm_var_kernel}[name](*args)
    return out, state


def ewm_stat(x: Any, stat: str, *, axis: int = -1, com: float | None = None,
             span: float | None = None, halflife: Any = None, alpha: float | None = None,
             times: Any = None, adjust: bool = True, ignore_na: bool = True,
             min_periods: int = 0, bias: bool = False,
             policy: NanPolicy | str | None = None,
             missing: np.ndarray | None = None,
             starts: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray | None]:
    """Exponentially weighted ``stat`` (mean, var, std) running along ``axis``.

    With ``starts`` (1-D ``x`` only: ascending positions, ``starts[0] == 0`` and the
    last ``len(x)``) every segment ``[starts[s], starts[s+1])`` runs on its own: the
    groups of ``groupby().ewm()``, sorted by group, in one kernel pass.

    "omit" skips NaN and missing values (their positions get the running value, as
    pandas; with ``ignore_na=False`` the weights still decay over them, as pandas'
    default); "propagate" and the ordering policies give, from the first NaN on, that
    NaN (missing values: missing); "raise" names the first NaN.

    Returns
    -------
    values : ndarray of float64
        ``x``'s shape.
    missing : ndarray of bool or None

    Examples
    --------
    >>> ewm_stat(np.array([1.0, np.nan, 3.0]), "mean", alpha=0.5, policy="omit")[0]
    array([1.        , 1.        , 2.33333333])
    >>> ewm_stat(np.full(5, 0.1), "mean", alpha=0.3, policy="raise")[0].tolist()
    [0.1, 0.1, 0.1, 0.1, 0.1]
    >>> ewm_stat(np.array([1.0, 3.0, 10.0, 30.0]), "mean", alpha=0.5, policy="raise",
    ...          starts=np.array([0, 2, 4]))[0].tolist()
    [1.0, 2.3333333333333335, 10.0, 23.333333333333332]
    """
    if stat not in EWM_STATS:
        raise ValueError(f"unknown ewm statistic {stat!r}; expected one of {EWM_STATS}")
    policy = resolve_policy(policy)
    x = np.asarray(x)
    if x.dtype.kind not in "fiub":
        raise TypeError(f"ewm {stat} needs float, int or bool data, got dtype {x.dtype}")
    if x.ndim == 0:
        x = x.reshape(1)
    a = ewm_alpha(com, span, halflife, alpha, times=times is not None)
    if min_periods is None:
        min_periods = 0
    if int(min_periods) < 0:
        raise ValueError("min_periods must be >= 0")
    ax = axis % x.ndim
    rules = RULES[policy]
    nanmode = (0 if ignore_na else 1) if rules.removes else 2
    sums = times is None and (adjust or nanmode != 1)  # the fast kernels (and std's root)
    # "omit" on float64 without a mask: the fast kernels see every NaN and flag a
    # signaling one (the scan then raises its error); no separate pass over the data
    fused = sums and nanmode != 2 and missing is None and x.dtype == np.float64
    if not fused:
        scan_rows(x, Reduction.of(x, ax), policy, missing)  # raise / signaling NaNs
    xm = np.moveaxis(x, ax, -1)
    shape = xm.shape
    n = shape[-1]
    rows = np.ascontiguousarray(xm, dtype=np.float64).reshape(-1, n)  # read-only use
    miss = None
    if missing is not None:
        miss = np.moveaxis(np.asarray(missing, bool), ax, -1).reshape(rows.shape)
        if miss.any():
            rows = np.where(miss, np.nan, rows)  # a copy, skipped as a NaN would be
        else:
            miss = None
    if starts is None:
        starts = np.arange(rows.shape[0] + 1, dtype=np.int64) * n
    else:
        if x.ndim != 1:
            raise ValueError("starts= needs 1-D data")
        starts = np.asarray(starts, np.int64)
    deltas = None
    if times is not None:
        deltas = _deltas(times, halflife, n, starts if rows.shape[0] == 1 else None)
        deltas = np.tile(deltas, rows.shape[0])
    out, state = _run(rows.reshape(-1), starts, a, deltas, adjust, nanmode,
                      max(int(min_periods), 1), stat != "mean", bias,
                      want_std=stat == "std" and sums)
    out = out.reshape(rows.shape)
    if fused and state is not None and state[:, 16].any():
        scan_rows(x, Reduction.of(x, ax), policy, missing)  # raises the signaling NaN
    if stat == "std" and not sums:
        with np.errstate(invalid="ignore"):
            np.sqrt(out, out=out)  # ours: in place
    res_miss = None
    if miss is not None and nanmode == 2:
        nan_seen = _seen(np.isnan(np.where(miss, 0.0, rows)), starts)
        res_miss = _seen(miss, starts) & ~nan_seen
        out = np.where(res_miss, np.nan, out)
    out = np.moveaxis(out.reshape(shape), -1, ax)
    if res_miss is not None:
        res_miss = np.moveaxis(res_miss.reshape(shape), -1, ax)
    return out, res_miss


def ewm_step(rows: np.ndarray, stat: str, state: np.ndarray | None, *, alpha: float,
             adjust: bool = True, ignore_na: bool = True, min_periods: int = 0,
             bias: bool = False, policy: NanPolicy | str | None = None
             ) -> tuple[np.ndarray, np.ndarray]:
    """``stat`` along the rows of a 2-D chunk continuing from ``state`` (None: the
    chunk starts the rows): ``(values, state after the chunk)``. Chunks run in order
    give :func:`ewm_stat`'s values bit for bit (the whole double-double state travels;
    ``times=None``; ``adjust=False`` only with ``ignore_na=True``). The policy's
    errors are the caller's (:func:`ewm_stat` raises them for whole arrays).

    Examples
    --------
    >>> x = np.array([[1.0, 2.0, 4.0, 8.0]])
    >>> a, st = ewm_step(x[:, :1], "var", None, alpha=0.3, policy="raise")
    >>> b, _ = ewm_step(x[:, 1:], "var", st, alpha=0.3, policy="raise")
    >>> whole = ewm_stat(x, "var", alpha=0.3, policy="raise")[0]
    >>> np.array_equal(np.concatenate([a, b], axis=1), whole, equal_nan=True)
    True
    """
    from .._numba.ewm import fresh_state

    rules = RULES[resolve_policy(policy)]
    nanmode = (0 if ignore_na else 1) if rules.removes else 2
    r, n = rows.shape
    state = fresh_state(r) if state is None else state.copy()
    v = np.ascontiguousarray(rows, dtype=np.float64).reshape(-1)
    starts = np.arange(r + 1, dtype=np.int64) * n
    out, _ = _run(v, starts, float(alpha), None, adjust, nanmode, max(int(min_periods), 1),
                  stat != "mean", bias, state, want_std=stat == "std")
    return out.reshape(r, n), state
