"""Exceptions raised by nanaccess, with the facts adapters need to relabel them."""

from __future__ import annotations

from typing import Any

__all__ = ["NaNError", "SignalingNaNError", "WeightsValueError", "TotalWeightError"]

_ADVICE = {
    "NaN": 'pass nan_policy="omit" to skip them or "propagate" to return NaN',
    "missing": 'pass nan_policy="omit" to skip them or "propagate" to return a missing value',
    "signaling NaN": (
        'signaling NaNs raise under every policy except "totalorder"; pass '
        'nan_policy="totalorder" to order them, or replace them'
    ),
}


class NaNError(ValueError):
    """Raised when data holds NaN or missing values that the ``nan_policy`` forbids.

    Subclasses :class:`ValueError`. Besides the message it carries the facts, so
    that adapters can restate it with labels: ``count``, ``kind`` ("NaN",
    "signaling NaN" or "missing"), ``position`` (index tuple into the array the core
    saw, or ``None``), ``subject`` (what held them), ``location`` (the label text of
    the first one, e.g. "index '2024-01-05'", or ``None``) and ``group`` (the group
    label for grouped statistics, or ``None``). All of them survive pickling.

    Examples
    --------
    >>> import nanaccess as na
    >>> try:
    ...     na.median([1.0, float("nan")])
    ... except na.NaNError as err:
    ...     print(f"{type(err).__name__}: {err}")
    NaNError: data holds 1 NaN value (first at position 1); pass nan_policy="omit" ...
    """

    def __init__(
        self,
        message: str | None = None,
        *,
        count: int = 0,
        kind: str = "NaN",
        position: Any = None,
        subject: str = "data",
        location: str | None = None,
        group: Any = None,
    ) -> None:
        self.count = int(count)
        self.kind = kind
        self.position = position
        self.subject = subject
        self.location = location
        self.group = group
        if message is None:
            message = _compose(subject, self.count, kind,
                               location if location is not None else _format_position(position))
        super().__init__(message)

    def __reduce__(self) -> Any:
        # keep the facts across pickling (dask.distributed workers send errors back)
        return (_rebuild, (type(self), str(self), self.count, self.kind, self.position,
                           self.subject, self.location, self.group))

    def relabel(self, subject: str, location: str | None = None, *,
                group: Any = None) -> NaNError:
        """A new error of the same class naming ``subject`` (e.g. "column 'temp'")
        and ``location`` (e.g. "index '2024-01-05'") instead of array positions;
        ``group`` (kept when not given) is the group label of a grouped statistic."""
        return type(self)(
            count=self.count,
            kind=self.kind,
            position=self.position,
            subject=subject,
            location=location if location is not None else self.location,
            group=group if group is not None else self.group,
        )


class SignalingNaNError(NaNError):
    """Raised for signaling NaNs under every policy except ``"totalorder"``.

    Examples
    --------
    >>> import nanaccess as na
    >>> try:
    ...     na.median([1.0, na.make_nan(1, signaling=True)], nan_policy="omit")
    ... except na.SignalingNaNError as err:
    ...     print(f"{type(err).__name__}: {err}")
    SignalingNaNError: data holds 1 signaling NaN value (first at position 1); ...
    """

    def __init__(self, message: str | None = None, **kwargs: Any) -> None:
        kwargs.setdefault("kind", "signaling NaN")
        super().__init__(message, **kwargs)


class WeightsValueError(ValueError):
    """Raised for weights that no policy can use: negative or infinite weights, and NaN
    or missing weights under an ordering policy ("smallest", "largest", "totalorder").

    Subclasses :class:`ValueError`. Like :class:`NaNError` it carries the facts, so
    that adapters restate it with labels (:func:`nanaccess._labels.relabel_weights`)
    instead of reading the message: ``what`` ("negative or infinite", "NaN" or
    "missing"), ``count``, ``position`` (index tuple into the weights the core saw, or
    ``None``), ``subject`` ("weights", or e.g. "weights (column 'w')"), ``location``
    (the label text of the first one, or ``None``), ``value`` (the first negative or
    infinite weight), ``policy`` (the policy's name, for NaN and missing weights) and
    ``group``. All of them survive pickling.

    Examples
    --------
    >>> import nanaccess as na
    >>> try:
    ...     na.median([1.0, 2.0], weights=[1.0, -2.0])
    ... except WeightsValueError as err:
    ...     print(err.what, err.count, err.position)
    negative or infinite 1 (1,)
    """

    def __init__(
        self,
        message: str | None = None,
        *,
        what: str = "negative or infinite",
        count: int = 0,
        position: Any = None,
        subject: str = "weights",
        location: str | None = None,
        value: Any = None,
        policy: str | None = None,
        group: Any = None,
    ) -> None:
        self.what = what
        self.count = int(count)
        self.position = position
        self.subject = subject
        self.location = location
        self.value = value
        self.policy = policy
        self.group = group
        if message is None:
            message = _compose_weights(self)
        super().__init__(message)

    def __reduce__(self) -> Any:
        return (_rebuild_weights, (type(self), str(self), self.what, self.count,
                                   self.position, self.subject, self.location, self.value,
                                   self.policy, self.group))

    def relabel(self, subject: str, location: str | None = None, *,
                group: Any = None) -> WeightsValueError:
        """A new error naming ``subject`` (e.g. "weights (column 'w')") and
        ``location`` (e.g. "index 'd'") instead of array positions; as
        :meth:`NaNError.relabel`."""
        return type(self)(
            what=self.what, count=self.count, position=self.position, subject=subject,
            location=location if location is not None else self.location, value=self.value,
            policy=self.policy, group=group if group is not None else self.group)


class TotalWeightError(ValueError):
    """Raised when non-integer frequency weights leave less than one unit of weight
    beyond ``ddof``: ``sum(w) - ddof < 1`` (normalized weights with ``ddof=1``).

    Frequency weights count values, so ``ddof`` subtracts from their total; a total
    below ``ddof + 1`` made of fractional weights is almost always a sign that the
    weights are not counts (normalized weights, probabilities): pass
    ``weights_kind="reliability"`` (:func:`numpy.cov`'s ``aweights``) or ``ddof=0``.
    Integer weights with ``sum(w) <= ddof`` give NaN instead, as unweighted data with
    too few values.

    Subclasses :class:`ValueError`. The facts: ``total`` (the exact total weight,
    rounded to a float), ``ddof``, ``cell`` (the position of the result the core was
    computing: the flat index of the output cell, or the group's code), ``subject``
    (what is named: "data", "column 'x'", ...) and ``group`` (a group label, or
    ``None``). All of them survive pickling.

    Examples
    --------
    >>> import nanaccess as na
    >>> try:
    ...     na.var([1.0, 2.0, 4.0], weights=[0.25, 0.25, 0.5], ddof=1)
    ... except na.TotalWeightError as err:
    ...     print(err.total, err.ddof)
    1.0 1
    """

    def __init__(self, message: str | None = None, *, total: float = 0.0, ddof: Any = 0,
                 cell: Any = None, subject: str = "data", group: Any = None) -> None:
        self.total = total
        self.ddof = ddof
        self.cell = cell
        self.subject = subject
        self.group = group
        if message is None:
            where = f" (group {group!r})" if group is not None else ""
            message = (f"{subject}{where}: the total frequency weight {total!r} minus "
                       f"ddof={ddof!r} is below 1 and the weights are not integers; "
                       "frequency weights count values (ddof subtracts from their total): "
                       'pass weights_kind="reliability" for weights that are not counts '
                       "(normalized weights, as numpy.cov's aweights) or ddof=0")
        super().__init__(message)

    def __reduce__(self) -> Any:
        return (_rebuild_total, (type(self), str(self), self.total, self.ddof, self.cell,
                                 self.subject, self.group))

    def relabel(self, subject: str, *, group: Any = None) -> TotalWeightError:
        """A new error naming ``subject`` (e.g. "column 'x'") and ``group`` (kept
        when not given)."""
        return type(self)(total=self.total, ddof=self.ddof, cell=self.cell, subject=subject,
                          group=group if group is not None else self.group)


def _rebuild_total(cls: Any, message: Any, total: Any, ddof: Any, cell: Any, subject: Any,
                   group: Any) -> Any:
    return cls(message, total=total, ddof=ddof, cell=cell, subject=subject, group=group)


def _rebuild_weights(cls: Any, message: Any, what: Any, count: Any, position: Any, subject: Any,
                     location: Any, value: Any, policy: Any,
                     group: Any) -> Any:
    return cls(message, what=what, count=count, position=position, subject=subject,
               location=location, value=value, policy=policy, group=group)


def _compose_weights(err: WeightsValueError) -> str:
    """The message of a :class:`WeightsValueError` from its facts."""
    where = err.location if err.location is not None else _format_position(err.position)
    if err.what == "negative or infinite":
        first = f" (first at {where}: {err.value!r})" if where else ""
        return (f"{err.subject} must be non-negative and finite: {err.count} weight(s) "
                f"are not{first}")
    plural = "" if err.count == 1 else "s"
    first = f" (first at {where})" if where else ""
    return (f"{err.subject} holds {err.count} {err.what} value{plural}{first}: a weight has "
            f"no place in an order, so nan_policy={err.policy!r} cannot rank it; pass "
            'nan_policy="omit" to drop the pairs or "propagate" to return NaN')


def _rebuild(cls: Any, message: Any, count: Any, kind: Any, position: Any, subject: Any,
             location: Any = None, group: Any = None) -> Any:
    return cls(message, count=count, kind=kind, position=position, subject=subject,
               location=location, group=group)


def _format_position(position: Any) -> str | None:
    if position is None or position == ():
        return None
    if isinstance(position, tuple):
        position = tuple(int(p) for p in position)
        if len(position) == 1:
            position = position[0]
    return f"position {position}"


def _compose(subject: str, count: int, kind: str, location: str | None) -> str:
    noun = f"{kind} value" + ("" if count == 1 else "s")
    where = f" (first at {location})" if location else ""
    advice = _ADVICE.get(kind, _ADVICE["NaN"])
    return f"{subject} holds {count} {noun}{where}; {advice}"
