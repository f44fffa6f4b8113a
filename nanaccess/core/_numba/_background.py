"""Compile numba kernels out of the caller's way: the NumPy engine serves meanwhile.

Under ``engine="auto"`` and ``compile="background"`` (:mod:`nanaccess.options`), a
kernel called with argument types it has no machine code for, in memory or in the
on-disk cache, does not compile in the caller's thread: the call raises
:class:`NotReady` before the kernel runs (nothing is written), the caller's
``except Exception`` path takes the NumPy engine for this call (it gives the same
bits: it is the tested reference), and one daemon thread compiles that exact
signature, one signature at a time. Later calls find the machine code and run numba.

A signature in numba's on-disk cache loads in the caller's thread (tens of
milliseconds), unless the worker is busy: loading takes numba's compiler lock, which
the worker holds while it compiles, so the load is queued too rather than waited for.

An explicit ``engine="numba"`` (asked for by the call or the option) compiles in the
foreground: :func:`note_choice` records, per thread, whether the last engine choice
was explicit, and the kernels' wrappers read it.

Only kernel families whose every call site catches a kernel's exception and then
serves the call with the NumPy engine are wrapped (:data:`DEFERRABLE`); the others
compile in the foreground as before. ``window_heap`` is asked first
(:meth:`Deferred.ready`): its caller serves the call with the NumPy sorted-windows
engine (:mod:`nanaccess.core.window.sorted_windows`) where that is fast, else compiles
in the foreground.

The worker is a daemon thread, which the interpreter would kill at exit with its
compilation half done, so each new process would find the same kernels missing and
compile them again. At exit the process waits (at most :data:`EXIT_WAIT_SECONDS`) for
the compilations it started, so they land in numba's on-disk cache and later
processes load them; a wait over a second says so once (a ``WARNING`` of the
``nanaccess`` logger), a shorter one is a ``DEBUG`` record.

Under :class:`one_request` (a core statistic's computation), only the first kernel a
call finds without machine code is queued, not the fallbacks its caller then tries.
"""

from __future__ import annotations

import atexit
import logging
import os
import queue
import threading
import time
from typing import Any

import numpy as np

from ...options import _current

__all__ = ["NotReady", "DEFERRABLE", "EXIT_WAIT_SECONDS", "wrap", "note_choice", "pending", "wait",
           "one_request", "type_signature"]


def _exit_wait() -> float:
    """``NANACCESS_EXIT_WAIT`` (seconds; 0: do not wait), else 120."""
    try:
        return float(os.environ.get("NANACCESS_EXIT_WAIT", "").strip() or 120.0)
    except ValueError:
        return 120.0


#: at exit, wait at most this long for the background compilations to land on disk
#: (the ``NANACCESS_EXIT_WAIT`` environment variable, read at import; 0: no wait)
EXIT_WAIT_SECONDS = _exit_wait()

#: families whose call sites all fall back to the NumPy engine on a kernel's exception,
#: and whose NumPy engine is fast (milliseconds to a few tenths of a second on 2e5
#: rows). ``window_heap`` (rolling order statistics) is asked with
#: :meth:`Deferred.ready` instead: its caller serves a call with the NumPy sorted-windows
#: engine where the windows are small enough for it (a rolling median of 2e5 rows,
#: window 50: 0.1 s), else compiles in the foreground; the other rolling-window kernels
#: compile in the caller's thread, and `nanaccess warm` takes that off a first call.
DEFERRABLE = frozenset(
    {
        "grouped",
        "rows",
        "exact",
        "compensated",
        "compensated_var",
        "extract_sum",
        "cumulative",
        "ewm",
        "products",
        "powers",
        "weighted_var",
        "weighted_moments",
        "window_heap",
    }
)


class NotReady(Exception):  # noqa: N818 - a state, not an error of the caller
    """The kernel compiles in the background: the NumPy engine serves this call."""


_CHOICE = threading.local()
#: per thread: how deep in :class:`one_request` blocks, and whether this request queued
#: a compilation already (``depth``, ``queued``)
_REQUEST = threading.local()
_QUEUE: queue.Queue[Any] = queue.Queue()
_QUEUED: set[tuple[int, tuple[Any, ...]]] = set()
#: signatures whose background compilation failed: the next call compiles in the
#: caller's thread, so the failure reaches the caller's fallback (and its warning)
_FAILED: set[tuple[int, tuple[Any, ...]]] = set()
_STATE_LOCK = threading.Lock()
_BUSY = threading.Event()
_WORKER: list[threading.Thread] = []


def note_choice(explicit: bool) -> None:
    """Record that this thread's last engine choice asked for numba explicitly."""
    _CHOICE.explicit = explicit


class one_request:  # noqa: N801 - used as a statement, ``with one_request():``
    """One statistic's computation: the first kernel it finds without machine code is
    queued, the fallbacks it then tries (a certified kernel's exact one, ...) are not.

    A kernel that raises :class:`NotReady` hands the call to its caller's fallback,
    which may try another kernel before the NumPy engine serves it; queueing each of
    them would compile, for one call, kernels that a warm call never runs (they serve
    only what the first one refuses). Within the outermost block of a thread, only the
    first :class:`NotReady` queues its signature; the others compile when a call
    reaches them first-hand. Outside any block every missing signature is queued.
    """

    __slots__ = ("depth",)

    def __enter__(self) -> None:
        depth = self.depth = getattr(_REQUEST, "depth", 0)
        if not depth:
            _REQUEST.queued = False
        _REQUEST.depth = depth + 1

    def __exit__(self, *exc: object) -> None:
        _REQUEST.depth = self.depth


def _defer_now() -> bool:
    return _current("compile") == "background" and not getattr(_CHOICE, "explicit", False)


def _on_disk(d: Any, sig: tuple[Any, ...]) -> bool:
    """Is ``sig`` of dispatcher ``d`` in numba's on-disk cache index? (False when the
    cache cannot tell: no cache, or another numba layout.)"""
    try:
        cache = d._cache
        key = cache._index_key(sig, d.targetctx.codegen())
        return key in cache._cache_file._load_index()
    except Exception:
        return False


def _run() -> None:
    while True:
        d, sig, key = _QUEUE.get()
        _BUSY.set()
        try:
            if tuple(sig) not in d.overloads:
                d.compile(sig)
        except Exception:  # the next call meets (and reports) the failure in the foreground
            _FAILED.add(key)
        finally:
            with _STATE_LOCK:
                _QUEUED.discard(key)
                if _QUEUE.empty():
                    _BUSY.clear()
            _QUEUE.task_done()
        # numba's compiler lock is not fair: pause, so that a caller waiting to load or
        # compile a kernel gets it before this thread starts the next compilation
        time.sleep(0.02)


def _submit(d: Any, sig: tuple[Any, ...]) -> None:
    key = (id(d), sig)
    with _STATE_LOCK:
        if key in _QUEUED:
            return
        _QUEUED.add(key)
        _BUSY.set()
        if not _WORKER:
            t = threading.Thread(target=_run, name="nanaccess-compile", daemon=True)
            _WORKER.append(t)
            t.start()
            atexit.register(_finish_at_exit)
    _QUEUE.put((d, sig, key))


def is_worker() -> bool:
    """Is the current thread the background compiler?"""
    return bool(_WORKER) and threading.current_thread() is _WORKER[0]


def pending() -> int:
    """How many signatures are queued or compiling."""
    with _STATE_LOCK:
        return len(_QUEUED)


def wait(timeout: float | None = None) -> bool:
    """Block until the background compilations are done (tests, ``nanaccess warm``);
    True when none is left."""
    end = None if timeout is None else time.monotonic() + timeout
    while pending():
        if end is not None and time.monotonic() > end:
            return False
        time.sleep(0.01)
    return True


#: an exit wait longer than this says so (a ``WARNING``); a shorter one only logs at
#: ``DEBUG``
EXIT_NOTICE_SECONDS = 1.0


def _finish_at_exit() -> None:
    """Wait for the started compilations, so they reach numba's on-disk cache (a
    daemon thread is killed at exit). A wait over :data:`EXIT_NOTICE_SECONDS` says so
    once, as a ``WARNING``; a shorter one logs at ``DEBUG`` only."""
    left = pending()
    if not left or EXIT_WAIT_SECONDS <= 0:
        return
    log = logging.getLogger("nanaccess")
    log.debug("nanaccess: finishing %d numba compilation(s) before exit", left)
    first = min(EXIT_NOTICE_SECONDS, EXIT_WAIT_SECONDS)
    if wait(first) or EXIT_WAIT_SECONDS <= first:
        return
    log.warning(
        "nanaccess: finishing %d numba compilation(s) before exit (at most %.0f s), so "
        "that later runs load them from the on-disk cache in milliseconds. Silence this "
        "note with logging.getLogger('nanaccess').setLevel(logging.ERROR).",
        pending(),
        EXIT_WAIT_SECONDS,
    )
    wait(EXIT_WAIT_SECONDS - first)


#: numba's argument types of a call, by :func:`_type_key` of its arguments
_SIGNATURES: dict[tuple[Any, ...], tuple[Any, ...]] = {}
_INT64 = (-(2**63), 2**63)
#: NumPy's flag bits C_CONTIGUOUS, F_CONTIGUOUS, ALIGNED and WRITEABLE (``flags.num``)
_LAYOUT_FLAGS = 0x1 | 0x2 | 0x100 | 0x400


def _type_key(args: tuple[Any, ...]) -> tuple[Any, ...] | None:
    """What numba's typing of ``args`` depends on, cheaply: per array its dtype, rank,
    layout, writability and alignment, per scalar its type (a Python int: within int64
    or not); None for anything else (typed by numba each time)."""
    key: list[Any] = []
    for a in args:
        t = type(a)
        if t is np.ndarray:  # the flags as one int (one attribute, not six)
            key.append((a.dtype, a.ndim, a.flags.num & _LAYOUT_FLAGS))
        elif t is float or t is bool or a is None:
            key.append(t)
        elif t is int:
            if not _INT64[0] <= a < _INT64[1]:
                return None
            key.append(t)
        elif isinstance(a, np.generic):
            key.append((t, a.dtype))
        else:
            return None
    return tuple(key)


def type_signature(d: Any, args: tuple[Any, ...]) -> tuple[Any, ...]:
    """numba's argument types of ``d(*args)``, typed once per :func:`_type_key` (numba
    types a call the same way on every dispatcher of the CPU target)."""
    key = _type_key(args)
    if key is None:
        return tuple(d.typeof_pyval(a) for a in args)
    sig = _SIGNATURES.get(key)
    if sig is None:
        sig = _SIGNATURES[key] = tuple(d.typeof_pyval(a) for a in args)
    return sig


class Deferred:
    """A kernel that, called with a signature it has no machine code for, queues the
    compilation and raises :class:`NotReady` (see the module's docstring)."""

    __slots__ = ("dispatcher", "_ready")

    def __init__(self, dispatcher: Any) -> None:
        self.dispatcher = dispatcher
        #: the :func:`_type_key` of calls whose machine code is in memory: such a call
        #: needs neither numba's typing nor the lookup again (most of a small call's
        #: cost); numba never drops an overload, so a key stays ready
        self._ready: set[tuple[Any, ...]] = set()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.dispatcher, name)

    def ready(self, *args: Any) -> bool:
        """Would a call with ``args`` run now without compiling in the caller's thread
        (machine code in memory or in the on-disk cache, or the foreground asked for)?
        When not, the compilation is queued; nothing runs."""
        key = _type_key(args)
        if key is not None and key in self._ready:
            return True  # machine code in memory: ready in any compile mode
        if not _defer_now():
            return True
        d = self.dispatcher
        try:
            sig = type_signature(d, args)
        except Exception:  # numba's own call reports what it cannot type
            return True
        if key is not None and sig in d.overloads:
            self._ready.add(key)
            return True
        if (
            sig not in d.overloads
            and (id(d), sig) not in _FAILED
            and (_BUSY.is_set() or not _on_disk(d, sig))
        ):
            if getattr(_REQUEST, "depth", 0):
                if _REQUEST.queued:  # a fallback of a kernel this call queued already
                    return False
                _REQUEST.queued = True
            _submit(d, sig)
            return False
        return True

    def __call__(self, *args: Any) -> Any:
        if _type_key(args) in self._ready:  # machine code in memory (ready's first test)
            return self.dispatcher(*args)
        if not self.ready(*args):
            raise NotReady(f"{self.dispatcher.py_func.__name__} compiles in the background")
        return self.dispatcher(*args)


def wrap(name: str, family: dict[str, Any]) -> dict[str, Any]:
    """The kernels of ``family`` with each dispatcher wrapped when ``name`` is
    deferrable (the same dict otherwise)."""
    if name not in DEFERRABLE:
        return family
    return {
        k: Deferred(v) if hasattr(v, "overloads") and hasattr(v, "typeof_pyval") else v
        for k, v in family.items()
    }
