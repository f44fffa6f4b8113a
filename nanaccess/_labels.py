"""The one label formatter and the one relabel helper of every host.

The core raises :class:`~nanaccess.errors.NaNError` with array positions; each
adapter (pandas, xarray, dask) restates it with what the user sees: a subject
("column 'temp'", "variable 'temp'", "Series", "data"), the label of the first
offending value ("index '2024-01-05'", "time='2024-01-30T06:00:00', lat=0.0") and,
for grouped statistics, the group label. The pieces here are picklable (they travel
inside dask tasks and come back from ``dask.distributed`` workers).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any, Protocol, cast

import numpy as np
import pandas as pd

from .errors import NaNError, WeightsValueError

__all__ = [
    "fmt_label",
    "subject",
    "relabel",
    "relabel_weights",
    "restate",
    "Relabeller",
    "SubjectOnly",
    "name_overflow",
    "IndexLocation",
    "CoordLocation",
]

#: position of the first offending value (as ``err.position``) -> location text
LocationOf = Callable[[Any], str | None]


def fmt_label(label: Any) -> str:
    """A label as error messages show it.

    Dates at midnight show as the date alone, other times in ISO 8601; NumPy scalars
    as the Python value; MultiIndex tuples element by element.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> fmt_label(pd.Timestamp("2024-01-05")), fmt_label(np.datetime64("2024-01-05T06:00"))
    ("'2024-01-05'", "'2024-01-05T06:00:00'")
    >>> fmt_label(np.int64(3)), fmt_label((np.int64(2024), "y")), fmt_label("b")
    ('3', "(2024, 'y')", "'b'")
    """
    if isinstance(label, np.datetime64 | np.timedelta64):
        try:
            label = pd.Timestamp(label) if label.dtype.kind == "M" else pd.Timedelta(label)
        except (ValueError, OverflowError):  # outside pandas' range: NumPy's own text
            return repr(str(label))
    if label is pd.NaT:
        return "NaT"
    if isinstance(label, pd.Timestamp):
        if label.tz is None and label == label.normalize():
            return repr(label.isoformat().split("T")[0])
        return repr(label.isoformat())
    if isinstance(label, pd.Timedelta):
        return repr(str(label))
    if isinstance(label, np.generic):
        label = label.item()
    if isinstance(label, tuple):  # (2024, 'y'), not (np.int64(2024), 'y')
        parts = [fmt_label(x) for x in label]
        return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"
    return repr(label)


def subject(noun: str, name: Hashable | None, *, unnamed: str | None = None) -> str:
    """What held the values: ``"column 'temp'"``; ``unnamed`` when ``name`` is None.

    Examples
    --------
    >>> subject("variable", "temp"), subject("variable", None, unnamed="data")
    ("variable 'temp'", 'data')
    """
    if name is None and unnamed is not None:
        return unnamed
    return f"{noun} {fmt_label(name)}"


def relabel(
    err: NaNError,
    subject: str,
    location_of_position: LocationOf | None = None,
    group: Any = None,
) -> NaNError:
    """``err`` restated for the user: a new error of the same class.

    Parameters
    ----------
    err : NaNError
        As the core raised it (``err.position`` indexes the array the core saw).
    subject : str
        What held the values, e.g. ``subject("column", name)``.
    location_of_position : callable, optional
        ``err.position`` -> location text (e.g. :class:`IndexLocation`); ``None`` (or
        a ``None`` result) keeps ``err.location``.
    group : object, optional
        The group label of a grouped statistic: the subject gains
        " in group <label>" and the error's ``group`` is this label (else
        ``err.group`` is kept).

    Examples
    --------
    >>> import pandas as pd
    >>> err = NaNError(count=2, position=(1,))
    >>> idx = pd.Index(pd.date_range("2024-01-01", periods=3))
    >>> new = relabel(err, "column 'x'", IndexLocation(idx), group="b")
    >>> print(new)
    column 'x' in group 'b' holds 2 NaN values (first at index '2024-01-02'); pass ...
    >>> new.group, new.position
    ('b', (1,))
    """
    location = None
    if location_of_position is not None and err.position is not None:
        location = location_of_position(err.position)
    if group is not None:
        subject = f"{subject} in group {fmt_label(group)}"
    return err.relabel(subject, location, group=group)


def relabel_weights(err: Exception, subject: str,
                    location_of_position: LocationOf | None = None) -> Exception:
    """A core error on the weights restated for the user; other errors unchanged.

    The weights' errors are a :class:`~nanaccess.errors.NaNError` with subject
    "weights" (NaN / missing weights the policy refuses) and a
    :class:`~nanaccess.errors.WeightsValueError` (negative or infinite weights; NaN /
    missing weights under an ordering policy). Both carry ``position`` (into the
    weights the core saw), so ``location_of_position`` labels it as :func:`relabel`.

    Examples
    --------
    >>> import pandas as pd
    >>> err = WeightsValueError(count=1, position=(2,), value=-1.0)
    >>> new = relabel_weights(err, "weights (column 'w')", IndexLocation(pd.Index(list("abc"))))
    >>> print(new)
    weights (column 'w') must be non-negative and finite: 1 weight(s) are not (first at ...
    >>> new.location, new.position
    ("index 'c'", (2,))
    """
    if not (isinstance(err, WeightsValueError)
            or (isinstance(err, NaNError) and err.subject == "weights")):
        return err
    location = None
    if location_of_position is not None and err.position is not None:
        location = location_of_position(err.position)
    return err.relabel(subject, location)


def restate(err: Exception, subject: str) -> Exception:
    """A TypeError / OverflowError of the same class prefixed by ``subject``
    (unless the message names it already)."""
    if str(err).startswith(f"{subject}:"):
        return err
    naming = getattr(err, "naming", None)
    if callable(naming):  # an exact sum past its integer dtype names what overflowed
        return cast("Exception", naming(subject))
    return type(err)(f"{subject}: {err}")


class SubjectOnly:
    """A relabeller that leaves policy errors as they are and only names the data: for
    paths whose policy errors are labelled elsewhere (a dask column's own check), so
    that an error without a position of its own, an exact integer sum past its dtype,
    can still name the column. Picklable."""

    def __init__(self, subject: str) -> None:
        self.subject = subject
        self.location_of_position = None

    def __call__(self, err: NaNError) -> NaNError:
        return err


def name_overflow(err: Exception, relabel: Any, position: Sequence[int] | None = None,
                  kept: Sequence[int] | None = None) -> Exception:
    """An exact integer sum past its dtype (an error with ``naming``, the core's
    ``SumOverflowError``) restated with ``relabel``'s subject and, where ``relabel``
    locates by coordinates, the coordinates of the kept dims ``kept`` (their indices)
    at ``position``; other errors, or no subject, unchanged."""
    subject = getattr(relabel, "subject", None)
    naming = getattr(err, "naming", None)
    if not subject or not callable(naming):
        return err
    where = getattr(relabel, "location_of_position", None)
    if isinstance(where, CoordLocation) and kept and position is not None and \
            len(position) == len(kept) and max(kept) < len(where.dims):
        at = CoordLocation([where.dims[i] for i in kept],
                           [where.labels[i] for i in kept])(position)
        if at:
            return cast("Exception", naming(f"{subject} at {at}"))
    return cast("Exception", naming(subject))


class Relabeller:
    """:func:`relabel` with its arguments bound: ``Relabeller(...)(err)``.

    Picklable when ``location_of_position`` is (the classes below are), so it can
    travel inside dask tasks.
    """

    def __init__(self, subject: str, location_of_position: LocationOf | None = None,
                 group: Any = None) -> None:
        self.subject = subject
        self.location_of_position = location_of_position
        self.group = group

    def __call__(self, err: NaNError) -> NaNError:
        return relabel(err, self.subject, self.location_of_position, self.group)


def _ints(position: Any) -> tuple[int, ...]:
    if position == ():
        return ()
    return tuple(int(p) for p in np.atleast_1d(position))


class _ByPosition(Protocol):
    """What :class:`IndexLocation` reads labels from: a list, a pandas Index, a dict
    keyed by position, ..."""

    def __getitem__(self, position: int, /) -> Any: ...


class IndexLocation:
    """Position -> ``"index <label>"`` for one-dimensional (row) positions.

    ``rows`` maps the core's row positions to positions in ``index`` (when the core
    saw a subset of the rows); a 2-D position reads its first (row) element.
    """

    def __init__(self, index: _ByPosition, rows: np.ndarray | None = None) -> None:
        self.index = index
        self.rows = rows

    def __call__(self, position: Any) -> str | None:
        pos = _ints(position)
        if not pos:
            return None
        row = pos[0] if self.rows is None else int(self.rows[pos[0]])
        return f"index {fmt_label(self.index[row])}"


class CoordLocation:
    """Position -> ``"time='2024-01-02', lat=0.0"``: one ``dim=label`` per dimension.

    ``labels[i]`` is the index of ``dims[i]``, or ``None`` (the integer position is
    shown). A position of another length gives ``None``.
    """

    def __init__(self, dims: Sequence[Hashable], labels: Sequence[Any]) -> None:
        self.dims = tuple(dims)
        self.labels = list(labels)

    def __call__(self, position: Any) -> str | None:
        pos = _ints(position)
        if len(pos) != len(self.dims) or not pos:
            return None
        return ", ".join(
            f"{d}={fmt_label(lab[p])}" if lab is not None else f"{d}={p}"
            for d, lab, p in zip(self.dims, self.labels, pos, strict=True)
        )
