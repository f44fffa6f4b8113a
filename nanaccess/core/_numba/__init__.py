"""The one compiled-engine module: every numba kernel of nanaccess compiles through it.

numba is optional and never imported by ``import nanaccess`` (it costs about 0.15 s):
:data:`AVAILABLE` only asks the import system whether numba is installed, and the
first compiled call imports it. One place holds each rule of the accelerator:

* :func:`choose_engine`: numpy or numba for a call (reads the ``engine`` option of
  :mod:`nanaccess.options`); the only place that decides.
* :func:`jit`: ``numba.njit`` with an on-disk cache where one can be written.
* :func:`register` / :func:`kernels`: each kernel module registers a builder; the
  kernels compile on first use, once, under :data:`LOCK`.
* :data:`BROKEN` and :func:`fallback`: when numba fails to import or compile, a
  warning is issued once and NumPy serves the rest of the run.
* ``NANACCESS_NO_NUMBA=1`` (read at import) turns every compiled path off.

Kernels are written as plain Python over arrays (valid, slow Python: readable, and
testable uncompiled); their helpers are bound to compiled versions in the kernel
module's globals before the drivers compile (:func:`bind`). A kernel module calls
``prange`` for its parallel loops: ``range`` until :func:`bind` binds numba's.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import threading
import warnings
from collections.abc import Callable, Iterable
from typing import Any

from ...options import resolve_engine

__all__ = [
    "AVAILABLE",
    "DISABLED",
    "BROKEN",
    "LOCK",
    "choose_engine",
    "fallback",
    "jit",
    "bind",
    "register",
    "kernels",
    "parallel_ok",
]

#: the environment switch honoured at import
DISABLED = os.environ.get("NANACCESS_NO_NUMBA", "").strip().lower() not in (
    "", "0", "false", "no")
#: numba is installed and not disabled (found without importing it)
AVAILABLE = not DISABLED and importlib.util.find_spec("numba") is not None
#: set (with the reason) when numba failed to import or compile: NumPy from then on
BROKEN: list[str] = []
#: held while a kernel module compiles (re-entrant: builders compile shared helpers)
LOCK = threading.RLock()

_BUILDERS: dict[str, Callable[[], dict[str, Any]]] = {}
_COMPILED: dict[str, dict[str, Any]] = {}


def numba() -> Any:
    """The numba module, imported on first use (an ``ImportError`` when disabled)."""
    if not AVAILABLE:
        raise ImportError("numba is not installed or disabled by NANACCESS_NO_NUMBA")
    return importlib.import_module("numba")


def choose_engine(engine: str | None = None, *, size: int | None = None,
                  min_size: int = 0) -> str:
    """``"numpy"`` or ``"numba"`` for one call: the only place that decides.

    Parameters
    ----------
    engine : {None, "auto", "numpy", "numba"}
        What the caller asked for; None reads the ``engine`` option
        (``set_options(engine=...)`` / ``option_context(engine=...)``).
    size : int, optional
        The input's size; under "auto", inputs smaller than ``min_size`` use NumPy
        (as fast there, and no compilation).
    min_size : int

    Returns
    -------
    str

    Raises
    ------
    ImportError
        ``"numba"`` was asked for and numba is missing or disabled.

    Examples
    --------
    >>> choose_engine("numpy")
    'numpy'
    >>> choose_engine("auto", size=10, min_size=1000)
    'numpy'
    """
    engine = resolve_engine(engine)
    if engine == "numpy":
        return "numpy"
    if engine == "numba":
        if not AVAILABLE:
            raise ImportError("engine='numba' needs numba installed (and NANACCESS_NO_NUMBA "
                              "unset)")
        return "numba"
    if not AVAILABLE or BROKEN or (size is not None and size < min_size):
        return "numpy"
    return "numba"


def fallback(exc: BaseException, engine: str | None = None, *, stacklevel: int = 3) -> None:
    """A compiled kernel failed: re-raise when numba was asked for explicitly, else
    mark numba broken (NumPy for the rest of the run) and warn, once."""
    if resolve_engine(engine) == "numba":
        raise exc
    with LOCK:
        first = not BROKEN
        BROKEN.append(repr(exc))
    if first:
        warnings.warn(f"nanaccess: numba kernel failed ({exc!r}); numba kernel unavailable "
                      "from now on, NumPy is used instead", RuntimeWarning,
                      stacklevel=stacklevel)


def jit(**options: Any) -> Callable[[Callable], Any]:
    """``numba.njit`` with an on-disk cache where one can be written, else in memory."""
    nb = numba()

    def deco(fn: Callable) -> Any:
        fn = getattr(fn, "py_func", fn)  # a helper another module bound already
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return nb.njit(cache=True, **options)(fn)
        except Exception:  # no cache locator (read-only install): compile in memory
            return nb.njit(cache=False, **options)(fn)

    return deco


def bind(namespace: dict[str, Any], helpers: Iterable[str],
         compiled: dict[str, Any] | None = None) -> dict[str, Any]:
    """Bind compiled helpers (and numba's ``prange``) in a kernel module's globals.

    ``helpers`` are names in ``namespace`` to compile with ``nogil=True``, or to take
    from ``compiled`` (helpers another module compiled already). Returns the compiled
    helpers by name.
    """
    out = {}
    for name in helpers:
        fn = compiled[name] if compiled and name in compiled else jit(nogil=True)(namespace[name])
        namespace[name] = out[name] = fn
    namespace["prange"] = numba().prange
    return out


def register(name: str, build: Callable[[], dict[str, Any]]) -> None:
    """Register the builder of a kernel family (compiled by :func:`kernels`)."""
    _BUILDERS[name] = build


def kernels(name: str) -> dict[str, Any]:
    """The compiled kernels of family ``name``: built on first use, once, under the lock."""
    got = _COMPILED.get(name)
    if got is None:
        with LOCK:
            got = _COMPILED.get(name)
            if got is None:
                got = _COMPILED[name] = _BUILDERS[name]()
    return got


def parallel_ok(n: int, min_size: int) -> bool:
    """Spread a kernel over numba's threads? Large inputs, on the main thread only
    (numba's pool is never driven from two threads at once, e.g. under dask)."""
    return (n >= min_size and threading.current_thread() is threading.main_thread()
            and int(numba().get_num_threads()) > 1)
