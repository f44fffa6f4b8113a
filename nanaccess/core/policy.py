"""The one policy module: what each ``nan_policy`` means, as data, and its two jobs.

1. :data:`RULES`: each policy's rules as a record (where NaNs rank, what raises,
   whether a signaling NaN is allowed, whether the result propagates a NaN, whether
   it can sort). Engines branch on these fields, never on policy names.
2. :class:`NanTally`: a mergeable record of counts and first (flat, C-order)
   positions of signaling NaNs, NaNs and missing values. Every path builds one (an
   in-memory scan, a dask chunk, a pandas partition) and hands it to
   :func:`raise_for`, the single function that raises :class:`NaNError` /
   :class:`SignalingNaNError`. ``merge`` is associative and commutative, so dask
   reduces tallies as a tree.
3. The shared result tails (:func:`empty_value`, :func:`finish`): what a reduction
   returns where nothing is left, where a NaN propagates and where the result is
   missing.

The order of the raise rules is part of the contract: signaling NaNs first (under
every policy but "totalorder"), then NaNs under "raise", then missing values under
"raise".
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, Literal

import numpy as np

from .. import _stats
from ..errors import NaNError, SignalingNaNError, WeightsValueError
from ..options import NanPolicy
from .bits import layout_of

__all__ = [
    "PolicyRules",
    "RULES",
    "rules",
    "NanTally",
    "raise_for",
    "raise_missing",
    "check_weights",
    "empty_value",
    "finish",
]


@dataclass(frozen=True)
class PolicyRules:
    """What one policy does. Read the fields, never compare policy names."""

    policy: NanPolicy
    #: where NaNs go in the order of an order statistic or a sort: "first", "last",
    #: "totalorder" (by sign and payload), or None (no place: raise / propagate / omit)
    nan_rank: Literal["first", "last", "totalorder"] | None
    #: a quiet NaN raises NaNError
    nan_raises: bool
    #: a missing value raises NaNError (kind "missing")
    missing_raises: bool
    #: a signaling NaN is data (only under totalorder); otherwise SignalingNaNError
    signaling_allowed: bool
    #: an order statistic over a NaN is that NaN (the totalOrder-greatest one)
    propagates: bool
    #: a moment (mean, var, std, sum) over a NaN is that NaN: "propagate" and every
    #: ordering policy (a NaN has a place in an order, not in a sum)
    moment_propagates: bool
    #: NaNs and missing values are dropped before the statistic
    removes: bool
    #: sort / argsort / rank are defined ("propagate" has no meaning for a sort)
    can_sort: bool
    #: missing values sort after every number and every NaN (pandas' na_position="last")
    missing_last: bool

    @property
    def orders_nans(self) -> bool:
        """NaNs take part in the order (smallest, largest, totalorder)."""
        return self.nan_rank is not None

    def drops_silently(self, nan: bool, signaling: bool) -> bool:
        """Data holding NaNs or missing values (``nan``; ``signaling`` NaNs among them)
        needs no error and no propagated NaN: dropping them gives the statistic. The
        test every lean path (small data, one-pass sums, sliding windows) applies
        before it answers alone.

        Examples
        --------
        >>> RULES[NanPolicy.OMIT].drops_silently(True, False)
        True
        >>> RULES[NanPolicy.OMIT].drops_silently(True, True)  # signaling: raise
        False
        >>> RULES[NanPolicy.PROPAGATE].drops_silently(True, False)
        False
        """
        return (not nan or self.removes) and (not signaling or self.signaling_allowed)

    @property
    def refused(self) -> tuple[str, ...]:
        """The kinds of value this policy refuses (``NanTally`` field names), in the
        order :func:`raise_for` checks them: signaling NaNs, NaNs, missing values.
        Every path that must know *whether* a policy refuses some data reads this."""
        return tuple(kind for kind, refused in (("signaling", not self.signaling_allowed),
                                                ("nan", self.nan_raises),
                                                ("missing", self.missing_raises)) if refused)


RULES: dict[NanPolicy, PolicyRules] = {
    p.policy: p
    for p in (
        PolicyRules(NanPolicy.RAISE, None, True, True, False, False, False, False, True, False),
        PolicyRules(NanPolicy.PROPAGATE, None, False, False, False, True, True, False, False,
                    False),
        PolicyRules(NanPolicy.OMIT, None, False, False, False, False, False, True, True, False),
        PolicyRules(NanPolicy.SMALLEST, "first", False, False, False, False, True, False, True,
                    True),
        PolicyRules(NanPolicy.LARGEST, "last", False, False, False, False, True, False, True,
                    True),
        PolicyRules(NanPolicy.TOTALORDER, "totalorder", False, False, True, False, True, False,
                    True, True),
    )
}


def rules(policy: NanPolicy | str) -> PolicyRules:
    """The :class:`PolicyRules` of a resolved policy (or its name)."""
    return RULES[NanPolicy(policy)]


# ------------------------------------------------------------------------------ tally

_NONE = np.iinfo(np.int64).max  # "no position" in the array form (min() ignores it)


@dataclass(frozen=True)
class NanTally:
    """Counts and first flat positions of signaling NaNs, NaNs and missing values.

    ``nan`` counts every NaN (quiet and signaling); ``signaling`` the signaling ones
    among them; ``missing`` the missing values (never NaNs). Positions are flat
    C-order indices into the data the tally describes (``None``: none seen).

    Examples
    --------
    >>> a = NanTally(nan=2, first_nan=5)
    >>> b = NanTally(nan=1, first_nan=1, missing=1, first_missing=0)
    >>> a.merge(b.offset(0))
    NanTally(signaling=0, first_signaling=None, nan=3, first_nan=1, missing=1, first_missing=0)
    """

    signaling: int = 0
    first_signaling: int | None = None
    nan: int = 0
    first_nan: int | None = None
    missing: int = 0
    first_missing: int | None = None

    # builders -----------------------------------------------------------------------

    @classmethod
    def from_masks(
        cls,
        nan: np.ndarray | None = None,
        signaling: np.ndarray | None = None,
        missing: np.ndarray | None = None,
    ) -> NanTally:
        """Tally boolean masks (any shape, read in C order)."""
        out = {}
        for name, mask in (("nan", nan), ("signaling", signaling), ("missing", missing)):
            if mask is None:
                continue
            flat = np.flatnonzero(np.asarray(mask).ravel())
            if flat.size:
                out[name] = int(flat.size)
                out[f"first_{name}"] = int(flat[0])
        return cls(**out)

    @classmethod
    def from_array(cls, info: np.ndarray) -> NanTally:
        """Inverse of :meth:`as_array` (six int64 values)."""
        v = [int(x) for x in np.asarray(info, dtype=np.int64).ravel()]
        return cls(*(None if i % 2 and x == _NONE else x for i, x in enumerate(v)))

    def as_array(self) -> np.ndarray:
        """Six int64 values (counts and positions, ``int64 max`` for none): the form
        a dask graph carries and reduces with ``sum`` / ``min``."""
        return np.array(
            [self.signaling, _pos(self.first_signaling), self.nan, _pos(self.first_nan),
             self.missing, _pos(self.first_missing)],
            dtype=np.int64,
        )

    # combining ----------------------------------------------------------------------

    def offset(self, start: int) -> NanTally:
        """The same tally with positions shifted by ``start`` (a chunk's flat start)."""
        if not start:
            return self
        return replace(
            self,
            first_signaling=_shift(self.first_signaling, start),
            first_nan=_shift(self.first_nan, start),
            first_missing=_shift(self.first_missing, start),
        )

    def merge(self, other: NanTally) -> NanTally:
        """Both tallies together (positions must be in one frame of reference)."""
        return NanTally(
            self.signaling + other.signaling,
            _first(self.first_signaling, other.first_signaling),
            self.nan + other.nan,
            _first(self.first_nan, other.first_nan),
            self.missing + other.missing,
            _first(self.first_missing, other.first_missing),
        )

    @staticmethod
    def merge_arrays(infos: np.ndarray, axis: int = 0) -> np.ndarray:
        """Merge many :meth:`as_array` records stacked along ``axis`` (a tree step)."""
        infos = np.asarray(infos, dtype=np.int64)
        counts = infos.take([0, 2, 4], axis=-1).sum(axis=axis)
        firsts = infos.take([1, 3, 5], axis=-1).min(axis=axis)
        return np.stack([counts, firsts], axis=-1).reshape(counts.shape[:-1] + (6,))

    def __bool__(self) -> bool:
        return bool(self.nan or self.missing)


def _pos(p: int | None) -> int:
    return _NONE if p is None else int(p)


def _shift(p: int | None, k: int) -> int | None:
    return None if p is None else p + k


def _first(a: int | None, b: int | None) -> int | None:
    if a is None:
        return b
    if b is None:
        return a
    return a if a <= b else b


# ---------------------------------------------------------------------------- raising


Locate = Callable[[int], str | None]


def raise_for(
    tally: NanTally,
    policy: NanPolicy,
    *,
    shape: tuple[int, ...] | None = None,
    subject: str = "data",
    locate: Locate | None = None,
    group: Any = None,
) -> None:
    """Raise the error ``policy`` has for what ``tally`` counted; return otherwise.

    The one place nanaccess decides to raise: signaling NaNs first (every policy but
    "totalorder"), then NaNs under "raise", then missing values under "raise".

    Parameters
    ----------
    tally : NanTally
    policy : NanPolicy
    shape : tuple of int, optional
        The shape the flat positions index; the error's ``position`` is then an
        index tuple (as NumPy's ``unravel_index``), else a 1-tuple of the flat index.
    subject : str
        What held the values ("data", "column 'temp'", "variable 't'").
    locate : callable, optional
        Flat position -> location text ("index '2024-01-05'"); default
        "position ...".
    group : object, optional
        The group label, kept on the error as ``err.group``.
    """
    for kind in RULES[policy].refused:
        count = getattr(tally, kind)
        if count:
            cls, text = _ERRORS[kind]
            _raise(cls, text, count, getattr(tally, f"first_{kind}"), shape, subject, locate,
                   group)


#: the error class and message word of each refused kind
_ERRORS = {"signaling": (SignalingNaNError, "signaling NaN"), "nan": (NaNError, "NaN"),
           "missing": (NaNError, "missing")}


def raise_missing(mask: np.ndarray, policy: NanPolicy, **kwargs: Any) -> None:
    """:func:`raise_for` for a mask of missing values alone (shape taken from it)."""
    mask = np.asarray(mask, dtype=bool)
    if RULES[policy].missing_raises and mask.any():
        raise_for(NanTally.from_masks(missing=mask), policy, shape=mask.shape, **kwargs)


def check_weights(
    tally: NanTally,
    policy: NanPolicy,
    *,
    shape: tuple[int, ...] | None = None,
    locate: Locate | None = None,
    group: Any = None,
) -> None:
    """The policy's rule for NaN and missing *weights* (issue 13): what
    :func:`raise_for` does for data, with subject "weights"; and under the ordering
    policies ("smallest", "largest", "totalorder") a NaN or missing weight is a
    :class:`~nanaccess.errors.WeightsValueError` (a ``ValueError`` carrying the
    position), since a weight has no place in an order. "omit" (drop the pair)
    and "propagate" (the result is NaN / missing) return.

    Examples
    --------
    >>> check_weights(NanTally(nan=1, first_nan=2), NanPolicy.OMIT)
    >>> check_weights(NanTally(nan=1, first_nan=2), NanPolicy.LARGEST)
    Traceback (most recent call last):
    ...
    nanaccess.errors.WeightsValueError: weights holds 1 NaN value (first at position 2): ...
    """
    raise_for(tally, policy, shape=shape, subject="weights", locate=locate, group=group)
    if RULES[policy].orders_nans and tally:
        kind, count, flat = ("NaN", tally.nan, tally.first_nan) if tally.nan else \
            ("missing", tally.missing, tally.first_missing)
        pos = tuple(int(i) for i in np.unravel_index(int(flat), shape)) if shape \
            else (int(flat),)
        raise WeightsValueError(what=kind, count=int(count), position=pos,
                                location=locate(int(flat)) if locate is not None else None,
                                policy=policy.value, group=group)


def _raise(cls: Any, kind: Any, count: Any, flat: Any, shape: Any, subject: Any, locate: Any,
           group: Any) -> None:
    position: tuple[int, ...] | None
    if flat is None:
        position = None
    elif shape:
        position = tuple(int(i) for i in np.unravel_index(int(flat), shape))
    elif shape == ():
        position = ()
    else:
        position = (int(flat),)
    location = locate(int(flat)) if (locate is not None and flat is not None) else None
    raise cls(count=count, kind=kind, position=position, subject=subject, location=location,
              group=group)


# ------------------------------------------------------------------------------ tails


def empty_value(dtype: np.dtype, stat: str) -> Any:
    """What a reduction over nothing gives: 0 for sum and count, 1 for prod (as
    pandas), else the canonical NaN of a float dtype, NaT of a datetime, float64 NaN
    otherwise."""
    dtype = np.dtype(dtype)
    entry = _stats.STATISTICS.get(stat)
    if entry is not None and entry.empty == "zero":  # sum and count of nothing: 0, as pandas
        return dtype.type(0) if dtype.kind in "biuf" else 0
    if entry is not None and entry.empty == "one":  # prod of nothing: 1, as pandas
        return dtype.type(1) if dtype.kind in "biuf" else 1
    if dtype.kind in "mM":
        return np.array("NaT", dtype=dtype)[()]
    if dtype.kind == "f":
        lay = layout_of(dtype)
        # the layout's integers are native-endian: view them as the native float
        return np.array(lay.canonical_nan, dtype=lay.int_dtype).view(dtype.newbyteorder("="))[()]
    return np.float64("nan")


def finish(
    values: np.ndarray,
    stat: str,
    *,
    empty: np.ndarray | None = None,
    nan_rows: np.ndarray | None = None,
    nan_values: np.ndarray | None = None,
    missing_rows: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray | None]:
    """Apply the result tails, in the contract's order, to per-row results.

    ``values`` has rows on its last axis (leading axes, e.g. quantiles, broadcast).
    ``empty`` marks rows with nothing left (filled with :func:`empty_value`);
    ``nan_rows`` rows whose result is a propagated NaN, taken from ``nan_values``
    (one per row, the totalOrder-greatest NaN: it wins over an empty fill);
    ``missing_rows`` rows whose result is the host's missing value (a real NaN wins
    over missing). Returns ``(values, missing)``; where ``missing`` is True the value
    holds the canonical NaN (NaT for datetimes; 0 for integer results), whatever the
    statistic (a missing sum is missing, not 0).
    """
    values = np.array(values, copy=True)
    fill = empty_value(values.dtype, stat)
    missing_fill = empty_value(values.dtype, "missing") if values.dtype.kind in "fmM" else 0
    res_missing = None
    if missing_rows is not None and np.any(missing_rows):
        res_missing = np.broadcast_to(np.asarray(missing_rows, bool), values.shape).copy()
        if nan_rows is not None:
            res_missing &= ~np.broadcast_to(np.asarray(nan_rows, bool), values.shape)
        if res_missing.any():
            values[res_missing] = missing_fill
        else:
            res_missing = None
    if empty is not None and np.any(empty):
        values[np.broadcast_to(np.asarray(empty, bool), values.shape)] = fill
    if nan_rows is not None and np.any(nan_rows):
        rows = np.broadcast_to(np.asarray(nan_rows, bool), values.shape)
        nv = np.broadcast_to(np.asarray(nan_values).astype(values.dtype, copy=False),
                             values.shape)
        values[rows] = nv[rows]
    return values, res_missing
