"""The ``nan_policy`` names, and the process-wide / per-context defaults."""

from __future__ import annotations

import contextvars
import dis
import enum
import functools
import sys
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from types import CodeType, MappingProxyType
from typing import Any

__all__ = ["NanPolicy", "set_options", "get_options", "resolve_policy"]


class NanPolicy(enum.StrEnum):
    """The six ways nanaccess can treat NaN (see the "NaN semantics" page).

    A plain string works wherever a policy is expected.

    Examples
    --------
    >>> from nanaccess import NanPolicy
    >>> NanPolicy("omit") is NanPolicy.OMIT
    True
    >>> [p.value for p in NanPolicy]
    ['raise', 'propagate', 'omit', 'smallest', 'largest', 'totalorder']
    """

    RAISE = "raise"
    PROPAGATE = "propagate"
    OMIT = "omit"
    SMALLEST = "smallest"
    LARGEST = "largest"
    TOTALORDER = "totalorder"



VALID_POLICIES = tuple(p.value for p in NanPolicy)

_DEFAULTS: dict[str, Any] = {"nan_policy": NanPolicy.RAISE}
# process-wide values (what plain ``set_options(...)`` changes; worker threads see them)
_global: dict[str, Any] = dict(_DEFAULTS)
_global_lock = threading.Lock()
# per-thread / per-task overrides from ``with set_options(...)`` blocks
_NO_OVERRIDE: Mapping[str, Any] = MappingProxyType({})
_override: contextvars.ContextVar[Mapping[str, Any]] = contextvars.ContextVar(
    "nanaccess_options", default=_NO_OVERRIDE
)


def resolve_policy(policy: str | NanPolicy | None) -> NanPolicy:
    """Return the :class:`NanPolicy` for ``policy``; ``None`` means the current default.

    Raises
    ------
    ValueError
        For an unknown name; the message lists the valid ones.
    """
    if policy is None:
        return get_options()["nan_policy"]
    if isinstance(policy, NanPolicy):
        return policy
    try:
        return NanPolicy(policy)
    except ValueError:
        valid = ", ".join(repr(p) for p in VALID_POLICIES)
        raise ValueError(f"unknown nan_policy {policy!r}; expected one of {valid}") from None


def _validated(kwargs: Mapping[str, Any]) -> dict[str, Any]:
    out = {}
    for key, value in kwargs.items():
        if key not in _DEFAULTS:
            raise TypeError(
                f"set_options() got an unknown option {key!r}; known: {sorted(_DEFAULTS)}"
            )
        out[key] = resolve_policy(value) if key == "nan_policy" else value
    return out


def get_options() -> dict[str, Any]:
    """Return the options in force here: the process-wide values with any
    ``with set_options(...)`` override of this thread or task on top.

    Examples
    --------
    >>> import nanaccess as na
    >>> str(na.get_options()["nan_policy"])
    'raise'
    """
    return {**_global, **_override.get()}


class set_options:  # noqa: N801 - used like a function, as xarray.set_options
    """Set nanaccess options, process-wide or inside a ``with`` block.

    A plain call changes the process-wide default (every thread sees it). Used as a
    context manager it overrides only inside the block, for this thread or async
    task, and restores the previous values on exit, as :func:`xarray.set_options`.

    Parameters
    ----------
    nan_policy : {"raise", "propagate", "omit", "smallest", "largest", "totalorder"}
        The policy used when a function is called without ``nan_policy``.

    Examples
    --------
    >>> import nanaccess as na
    >>> with na.set_options(nan_policy="omit"):
    ...     na.median([1.0, float("nan"), 3.0])
    2.0
    >>> str(na.get_options()["nan_policy"])
    'raise'
    """

    def __init__(self, **kwargs: Any) -> None:
        self._new = _validated(kwargs)
        self._token: contextvars.Token | None = None
        caller = sys._getframe(1)
        self._applied_globally = not _call_opens_with_block(caller.f_code, caller.f_lasti)
        if self._applied_globally:
            with _global_lock:
                self._old_global = dict(_global)
                _global.update(self._new)

    def __enter__(self) -> set_options:
        if self._applied_globally:
            # the with-statement was not recognised in the bytecode: undo the
            # process-wide change and override on the context variable instead
            with _global_lock:
                for key in self._new:
                    _global[key] = self._old_global[key]
            self._applied_globally = False
        self._token = _override.set({**_override.get(), **self._new})
        return self

    def __exit__(self, *exc: object) -> None:
        if self._token is not None:
            _override.reset(self._token)
            self._token = None


_WITH_OPCODES = {"BEFORE_WITH", "LOAD_SPECIAL", "COPY"}


@functools.lru_cache(maxsize=256)
def _call_opens_with_block(code: CodeType, lasti: int) -> bool:
    """True when the call at ``lasti`` is the head of a ``with`` statement.

    ``with set_options(...)`` must not touch the process-wide value even for an
    instant (another thread would see it), so the caller's next instruction decides.
    CPython 3.11-3.13 emit BEFORE_WITH; 3.14 emits COPY + LOAD_SPECIAL.
    """
    for ins in dis.get_instructions(code):
        if ins.offset > lasti and ins.opname not in {"CACHE", "EXTENDED_ARG"}:
            return ins.opname in _WITH_OPCODES
    return False


@contextmanager
def _policy_default(policy: str | NanPolicy) -> Iterator[None]:
    """Internal helper for tests: a temporary context-local default."""
    with set_options(nan_policy=policy):
        yield
