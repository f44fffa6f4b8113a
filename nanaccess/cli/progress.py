"""Progress of the command line on stderr: a bar on a terminal, plain lines in a log.

On a terminal, a tqdm bar (sizes in kB/MB/GB). Elsewhere (a log file, a pipe, CI) no
``\\r`` frames: one line when a step starts and one at each tenth of the way, sizes
human-readable (``nanaccess: reading big.csv: 12.3 MB of 40.0 MB (30%)``).

Examples
--------
>>> human_bytes(999), human_bytes(12_345_678), human_bytes(4.2e10)
('999 B', '12.3 MB', '42.0 GB')
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from typing import Any

__all__ = ["progress", "human_bytes"]

_UNITS = ("kB", "MB", "GB", "TB", "PB")


def human_bytes(n: float) -> str:
    """A byte count as tqdm writes it (powers of 1000, one decimal)."""
    if n < 1000:
        return f"{int(n)} B"
    for unit in _UNITS:
        n /= 1000
        if n < 999.95 or unit == _UNITS[-1]:
            return f"{n:.1f} {unit}"
    raise AssertionError("unreachable")  # pragma: no cover


def _amount(n: float, unit: str) -> str:
    if unit == "B":
        return human_bytes(n)
    plural = "s" if n != 1 else ""
    return f"{int(n)} {unit}{plural}"


def progress(iterable: Iterable[Any] | None = None, *, enabled: bool, **kwargs: Any) -> Any:
    """Progress on stderr: a tqdm bar on a terminal; elsewhere plain lines (start and
    every tenth); the plain iterable when disabled. ``kwargs`` as tqdm's (``total``,
    ``desc``, ``unit``, ``unit_scale``)."""
    if not enabled:
        return _NoBar(iterable)
    if not _isatty(sys.stderr):
        total = kwargs.get("total")
        if total is None and iterable is not None and hasattr(iterable, "__len__"):
            total = len(iterable)  # type: ignore[arg-type]
        return _LineBar(iterable, total, kwargs.get("desc", "working"), kwargs.get("unit", "it"))
    try:
        from tqdm.auto import tqdm
    except ImportError:
        print("nanaccess: note: install tqdm for a progress bar (pip install tqdm)",
              file=sys.stderr)
        return _NoBar(iterable)
    return tqdm(iterable, file=sys.stderr, disable=None, dynamic_ncols=True, leave=False,
                **kwargs)


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


class _NoBar:
    def __init__(self, iterable: Iterable[Any] | None) -> None:
        self._it = iterable

    def __iter__(self) -> Iterator[Any]:
        return iter(self._it if self._it is not None else ())

    def __enter__(self) -> _NoBar:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def update(self, n: float = 1) -> None:
        return None

    def close(self) -> None:
        return None


class _LineBar(_NoBar):
    """Plain progress lines: ``desc (total)`` first, then ``desc: done of total (p%)``
    each time another tenth is done (never more than 11 lines)."""

    def __init__(self, iterable: Iterable[Any] | None, total: float | None, desc: str,
                 unit: str) -> None:
        super().__init__(iterable)
        self._total, self._desc, self._unit = total, desc, unit
        self._done: float = 0
        self._tenths = 0
        size = "" if total is None else f" ({_amount(total, unit)})"
        self._say(f"{desc}{size}")

    @staticmethod
    def _say(text: str) -> None:
        print(f"nanaccess: {text}", file=sys.stderr, flush=True)

    def __iter__(self) -> Iterator[Any]:
        for item in super().__iter__():
            yield item
            self.update(1)

    def update(self, n: float = 1) -> None:
        self._done += n
        if not self._total:
            return
        tenths = min(10, int(self._done * 10 // self._total))
        if tenths > self._tenths:
            self._tenths = tenths
            if self._unit == "B":
                done = f"{human_bytes(self._done)} of {human_bytes(self._total)}"
            else:
                done = f"{int(self._done)} of {_amount(self._total, self._unit)}"
            self._say(f"{self._desc}: {done} ({100 * self._done / self._total:.0f}%)")
