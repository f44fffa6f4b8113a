"""The ``nan_policy`` names, and the process-wide / per-context defaults.

Two ways to change a default, as the ecosystem does:

* :func:`set_options` (xarray's name and behaviour): a plain call changes the
  process-wide value; used as ``with``, the block ends by restoring the old values.
* :func:`option_context` (pandas' name): an override for the current thread or async
  task only (a :mod:`contextvars` variable on top of the process-wide values). This
  is the form for threaded code: other threads never see it.

Nothing here reads the caller's code.
"""

from __future__ import annotations

import contextvars
import enum
import os
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from types import MappingProxyType
from typing import Any, cast

__all__ = ["NanPolicy", "set_options", "option_context", "get_options", "resolve_policy",
           "ENGINES", "DASK_PASSES", "COMPILES", "resolve_dask_passes", "resolve_compile",
           "chosen_option"]


class NanPolicy(enum.StrEnum):
    """The six ways nanaccess can treat NaN (see the "NaN semantics" page).

    A plain string works wherever a policy is expected.

    Parameters
    ----------
    value : {"raise", "propagate", "omit", "smallest", "largest", "totalorder"}
        The policy's name; an unknown name raises ``ValueError``.

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
#: kernels for the grouped and accelerated paths: "auto" picks numba when it imports
ENGINES = ("auto", "numpy", "numba")
#: how the exact order statistics of dask arrays run their passes over the chunks:
#: "graph" (one lazy graph), "streaming" (each pass its own computation, at call
#: time), "auto" (streaming unless the input is persisted, deferred to compute time)
DASK_PASSES = ("graph", "streaming", "auto")

#: when a numba kernel is not compiled yet (nor cached on disk): "background" (the
#: NumPy engine serves the call while a daemon thread compiles it) or "foreground"
#: (the call waits for the compilation)
COMPILES = ("background", "foreground")


def _compile_default() -> str:
    """``NANACCESS_COMPILE`` (read at import; test suites set "foreground"), else
    "background"."""
    got = os.environ.get("NANACCESS_COMPILE", "").strip().lower()
    return got if got in COMPILES else "background"


_DEFAULTS: dict[str, Any] = {"nan_policy": NanPolicy.RAISE, "engine": "auto",
                             "dask_passes": "auto", "compile": _compile_default()}
# process-wide values (what ``set_options(...)`` changes; every thread sees them)
_global: dict[str, Any] = dict(_DEFAULTS)
# the keys of ``_global`` that a ``set_options`` call chose (even if to the default
# value): entry points with their own default (describe, the CLI) follow those
_global_chosen: set[str] = set()
_global_lock = threading.Lock()
# per-thread / per-task overrides from ``with option_context(...)`` blocks
_NO_OVERRIDE: Mapping[str, Any] = MappingProxyType({})
_override: contextvars.ContextVar[Mapping[str, Any]] = contextvars.ContextVar(
    "nanaccess_options", default=_NO_OVERRIDE
)


_BY_NAME = {p.value: p for p in NanPolicy}


def _current(key: str) -> Any:
    """One option in force here (what :func:`get_options` holds, without building the
    whole dict: the lean paths read it on every call)."""
    override = _override.get()
    return override[key] if key in override else _global[key]


def chosen_option(key: str) -> Any:
    """The value of option ``key`` if the user chose one here, else ``None``.

    Chosen: inside ``option_context(key=...)`` (this thread or task), or after a
    ``set_options(key=...)`` that is still in force (a plain call, or inside its
    ``with`` block). The entry points whose own default differs from the option's
    (``describe``: "omit"; the command line's ``describe``: all six policies) use it
    to follow a policy the user set, and keep their default otherwise.

    Examples
    --------
    >>> import nanaccess as na
    >>> from nanaccess.options import chosen_option
    >>> with na.option_context(nan_policy="propagate"):
    ...     str(chosen_option("nan_policy"))
    'propagate'
    """
    override = _override.get()
    if key in override:
        return override[key]
    return _global[key] if key in _global_chosen else None


def resolve_policy(policy: str | NanPolicy | None) -> NanPolicy:
    """Return the :class:`NanPolicy` for ``policy``; ``None`` means the current default.

    Raises
    ------
    ValueError
        For an unknown name; the message lists the valid ones.
    """
    if type(policy) is str:  # the common spelling: one dict lookup
        got = _BY_NAME.get(policy)
        if got is not None:
            return got
    if policy is None:
        return cast("NanPolicy", _current("nan_policy"))
    if isinstance(policy, NanPolicy):
        return policy
    try:
        return NanPolicy(policy)
    except ValueError:
        valid = ", ".join(repr(p) for p in VALID_POLICIES)
        raise ValueError(f"unknown nan_policy {policy!r}; expected one of {valid}") from None


def resolve_engine(engine: str | None) -> str:
    """``engine`` checked against :data:`ENGINES`; ``None`` means the current default."""
    if engine is None:
        return cast("str", _current("engine"))
    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r}; expected one of {ENGINES}")
    return engine


def resolve_dask_passes(passes: str | None) -> str:
    """``passes`` checked against :data:`DASK_PASSES`; ``None`` means the current default."""
    if passes is None:
        return cast("str", _current("dask_passes"))
    if passes not in DASK_PASSES:
        raise ValueError(f"unknown dask_passes {passes!r}; expected one of {DASK_PASSES}")
    return passes


def resolve_compile(mode: str | None) -> str:
    """``mode`` checked against :data:`COMPILES`; ``None`` means the current default."""
    if mode is None:
        return cast("str", _current("compile"))
    if mode not in COMPILES:
        raise ValueError(f"unknown compile {mode!r}; expected one of {COMPILES}")
    return mode


_RESOLVE = {"nan_policy": resolve_policy, "engine": resolve_engine,
            "dask_passes": resolve_dask_passes, "compile": resolve_compile}


def _validated(kwargs: Mapping[str, Any], caller: str) -> dict[str, Any]:
    out = {}
    for key, value in kwargs.items():
        if key not in _DEFAULTS:
            raise TypeError(
                f"{caller}() got an unknown option {key!r}; known: {sorted(_DEFAULTS)}"
            )
        out[key] = _RESOLVE[key](value)
    return out


def get_options() -> dict[str, Any]:
    """Return the options in force here: the process-wide values with any
    ``option_context(...)`` override of this thread or task on top.

    Returns
    -------
    dict
        A fresh copy (changing it changes nothing): ``"nan_policy"`` (a
        :class:`NanPolicy`), ``"engine"`` (one of ``"auto"``, ``"numpy"``,
        ``"numba"``), ``"dask_passes"`` (one of ``"graph"``, ``"streaming"``,
        ``"auto"``) and ``"compile"`` (``"background"`` or ``"foreground"``).

    Examples
    --------
    >>> import nanaccess as na
    >>> str(na.get_options()["nan_policy"]), na.get_options()["engine"]
    ('raise', 'auto')
    """
    return {**_global, **_override.get()}


class set_options:  # noqa: N801 - used like a function, as xarray.set_options
    """Set nanaccess options process-wide; as ``with``, restore them on exit.

    As :func:`xarray.set_options`: the call changes the process-wide default at once
    (every thread sees it), and a ``with`` block puts the previous values back when
    it ends. For an override that other threads never see, use
    :func:`option_context`.

    Parameters
    ----------
    nan_policy : {"raise", "propagate", "omit", "smallest", "largest", "totalorder"}
        The policy used when a function is called without ``nan_policy``.
    engine : {"auto", "numpy", "numba"}
        Kernels of the grouped and accelerated paths ("auto": numba when it imports).
    dask_passes : {"auto", "graph", "streaming"}
        How the exact median/quantiles of a dask array over a chunked axis run their
        passes over the chunks. "auto" (the default): lazy; on an input that is not
        persisted the result is one task that, when computed, runs each pass as its
        own computation (chunks re-read per pass and released, only the small state
        between passes kept); on a persisted input (every key of its graph a computed
        chunk or future) one lazy graph. "graph": one lazy graph always; a lazily
        generated input is held (or spilled) until the last pass. "streaming": each
        pass its own computation, run when the statistic is called (the result is a
        dask array of the computed values). See the dask page.
    compile : {"background", "foreground"}
        What a call does under ``engine="auto"`` when its numba kernel is neither
        compiled in this process nor cached on disk. "background" (the default; the
        ``NANACCESS_COMPILE`` environment variable sets another at import): the NumPy
        engine serves the call (the same bits) while a daemon thread compiles the
        kernel, one at a time; later calls use numba once it is ready. "foreground":
        the call compiles the kernel and waits (seconds, once per machine). An
        explicit ``engine="numba"`` always compiles in the foreground. See the
        performance page.

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
        new = _validated(kwargs, "set_options")
        with _global_lock:
            self._old = {key: _global[key] for key in new}
            self._old_chosen = set(_global_chosen)
            _global.update(new)
            _global_chosen.update(new)

    def __enter__(self) -> set_options:
        return self

    def __exit__(self, *exc: object) -> None:
        with _global_lock:
            _global.update(self._old)
            _global_chosen.clear()
            _global_chosen.update(self._old_chosen)


@contextmanager
def option_context(**kwargs: Any) -> Iterator[None]:
    """Override nanaccess options inside a ``with`` block, for this thread or task only.

    pandas' name for it. The override sits on a :mod:`contextvars` variable on top of
    the process-wide values, so other threads (and other asyncio tasks) keep theirs:
    the form to use in threaded code.

    Parameters
    ----------
    nan_policy, engine, dask_passes, compile
        As :func:`set_options`.

    Yields
    ------
    None
        The block runs with the override; the previous values come back when it
        ends, also when it raises.

    Examples
    --------
    >>> import nanaccess as na
    >>> with na.option_context(nan_policy="largest"):
    ...     na.max([1.0, float("nan")])
    nan
    >>> str(na.get_options()["nan_policy"])
    'raise'
    """
    new = _validated(kwargs, "option_context")
    token = _override.set({**_override.get(), **new})
    try:
        yield
    finally:
        _override.reset(token)
