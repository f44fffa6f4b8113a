"""The one compiled-engine module: every numba kernel of nanaccess compiles through it.

numba is optional and never imported by ``import nanaccess`` (it costs about 0.15 s):
:data:`AVAILABLE` only asks the import system whether numba is installed, and the
first compiled call imports it. One place holds each rule of the accelerator:

* :func:`choose_engine`: numpy or numba for a call (reads the ``engine`` option of
  :mod:`nanaccess.options`); the only place that decides.
* :func:`jit`: ``numba.njit`` with an on-disk cache where one can be written, in a
  directory named by every source the function binds (:mod:`._cache`: an edit of a
  helper's module alone recompiles the kernels that call it).
* :func:`compile_notice`: a compilation that takes over a second says so, once per
  process, as a ``WARNING`` record of the ``nanaccess`` logger (silence it with
  ``logging.getLogger("nanaccess").setLevel(logging.ERROR)``).
* :func:`register` / :func:`kernels`: each kernel module registers a builder; the
  kernels compile on first use, once, under :data:`LOCK`.
* :data:`BROKEN` and :func:`fallback`: when numba fails to import or compile, a
  warning is issued once and NumPy serves the rest of the run.
* ``NANACCESS_NO_NUMBA=1`` (read at import) turns every compiled path off.
* :mod:`._background`: under ``compile="background"`` (the default option), a kernel
  with no machine code for a call's types (in memory or in the on-disk cache) raises
  :class:`NotReady` before it runs; the caller's fallback serves that call with NumPy
  (same bits) while a daemon thread compiles the signature.

Kernels are written as plain Python over arrays (valid, slow Python: readable, and
testable uncompiled); their helpers are bound to compiled versions in the kernel
module's globals before the drivers compile (:func:`bind`). A kernel module calls
``prange`` for its parallel loops: ``range`` until :func:`bind` binds numba's.
"""

from __future__ import annotations

import functools
import gc
import importlib
import importlib.util
import logging
import os
import sys
import threading
import time
import warnings
from collections.abc import Callable, Iterable
from typing import Any

from ...options import resolve_engine
from . import _background, _cache
from ._background import NotReady, one_request

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
    "compile_notice",
    "NotReady",
    "one_request",
    "module",
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
#: kernel families registered by a module of another name
_HOMES = {"weighted_rows": "weighted"}
_COMPILED: dict[str, dict[str, Any]] = {}
_WRAPPED: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {}


def numba() -> Any:
    """The numba module, imported on first use (an ``ImportError`` when disabled)."""
    if not AVAILABLE:
        raise ImportError("numba is not installed or disabled by NANACCESS_NO_NUMBA")
    nb = sys.modules.get("numba")
    if nb is None or not _LOADED:
        with LOCK:
            nb = _load_numba()
    return nb


_LOADED: list[bool] = []


def _load_numba() -> Any:
    """Import numba and set up its CPU target once, the lean way (a warm first call).

    Two costs of numba's own first use are avoided: the cyclic garbage collector
    runs full passes over the ~10**5 objects the import creates (it is paused for
    the import, then restored as it was), and :mod:`numba.np.arraymath` asks at
    import whether scipy's BLAS is there by importing :mod:`scipy.linalg` (0.2-0.3
    s) although only its ``np.dot``-backed kernels use the answer; it is told from
    the file system instead (:func:`_blas_on_disk`) and numba's own check still runs
    when such a kernel compiles (nanaccess compiles none).
    """
    if _LOADED:
        return importlib.import_module("numba")
    paused = gc.isenabled()
    gc.disable()
    try:
        nb = importlib.import_module("numba")
        _import_arraymath()
        from numba.core.registry import cpu_target

        cpu_target.target_context.refresh()  # what the first compiled call does first
    finally:
        if paused:
            gc.enable()
    _time_compilations()
    _LOADED.append(True)
    return nb


#: a compilation (cache miss) longer than this says so, once per process
NOTICE_SECONDS = 1.0
LOG = logging.getLogger("nanaccess")
_NOTIFIED: list[str] = []


def compile_notice(seconds: float, what: str) -> bool:
    """Log, once per process, that compiling ``what`` took ``seconds`` (when over
    :data:`NOTICE_SECONDS`): first calls are slow on a new machine or after an upgrade,
    and the reader should know why and what helps. Returns whether it logged."""
    if seconds < NOTICE_SECONDS or any(n != "numpy engine" for n in _NOTIFIED) \
            or _background.is_worker():  # compiled out of the caller's way: no wait to explain
        return False
    _NOTIFIED.append(what)
    LOG.warning(
        "nanaccess: compiling the numba kernel %s took %.1f s. Compiled kernels are "
        "cached on disk (%s), so later runs load them in milliseconds; run `nanaccess "
        "warm` once to compile the common ones ahead. Silence this note with "
        "logging.getLogger('nanaccess').setLevel(logging.ERROR).",
        what, seconds, _cache.cache_base())
    return True


#: a call at least this large (elements; a window's: values x window) on the NumPy
#: engine because numba is not installed says so, once per process
SLOW_NOTICE_SIZE = 1_000_000


def _numpy_notice() -> None:
    if "numpy engine" in _NOTIFIED:
        return
    _NOTIFIED.append("numpy engine")
    LOG.warning(
        "nanaccess: numba is not installed, so this large call runs on the NumPy engine: "
        "the same results, but slower, above all for rolling windows (35-800x slower "
        "than with numba). `pip install numba` where your platform has wheels. Silence "
        "this note with logging.getLogger('nanaccess').setLevel(logging.ERROR).")


def _time_compilations() -> None:
    """Time each compilation of a nanaccess kernel (numba's public event API: a
    ``numba:compile`` event is a cache miss; the outermost one includes its helpers)."""
    try:
        from numba.core import event
    except ImportError:  # pragma: no cover - a numba without the event API: no note
        return

    class _Timer(event.Listener):
        def __init__(self) -> None:
            self.depth, self.start = 0, 0.0

        def on_start(self, ev: Any) -> None:
            if self.depth == 0:
                self.start = time.perf_counter()
            self.depth += 1

        def on_end(self, ev: Any) -> None:
            self.depth -= 1
            if self.depth:
                return
            fn = getattr((ev.data or {}).get("dispatcher"), "py_func", None)
            if fn is not None and getattr(fn, "__module__", "").startswith("nanaccess."):
                compile_notice(time.perf_counter() - self.start,
                               f"{fn.__module__.rsplit('.', 1)[-1]}.{fn.__name__}")

    event.register("numba:compile", _Timer())


def _blas_on_disk() -> None:
    """numba's ``ensure_blas`` answered without importing scipy: an ImportError when
    scipy's ``linalg/cython_blas`` extension is not installed."""
    spec = importlib.util.find_spec("scipy")
    dirs = list(spec.submodule_search_locations or ()) if spec is not None else []
    if not any(f.startswith("cython_blas.") for d in dirs
               for f in (os.listdir(os.path.join(d, "linalg"))
                         if os.path.isdir(os.path.join(d, "linalg")) else ())):
        raise ImportError("scipy's cython_blas is not installed")


def _import_arraymath() -> None:
    """Import :mod:`numba.np.arraymath` with :func:`_blas_on_disk` standing in for
    numba's BLAS check (restored right after); a plain import when scipy.linalg is
    loaded already or numba's layout differs."""
    if "numba.np.arraymath" in sys.modules or "scipy.linalg" in sys.modules:
        return
    from numba.np import linalg

    real = getattr(linalg, "ensure_blas", None)
    if not callable(real):
        return
    linalg.ensure_blas = _blas_on_disk
    try:
        arraymath = importlib.import_module("numba.np.arraymath")
    finally:
        linalg.ensure_blas = real
    if getattr(arraymath, "ensure_blas", None) is _blas_on_disk:
        arraymath.ensure_blas = real


def choose_engine(engine: str | None = None, *, size: int | None = None,
                  min_size: int = 0, warm: str | None = None) -> str:
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
    warm : str, optional
        A kernel family (:func:`kernels`): when it is compiled in this process already,
        "auto" uses it below ``min_size`` too (numba's load and the compilation, which
        the threshold keeps off small first calls, are paid already).

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
        _background.note_choice(True)  # asked for: its kernels compile in the foreground
        return "numba"
    _background._CHOICE.explicit = False  # note_choice(False), inline: every call runs it
    if not AVAILABLE or BROKEN:
        if size is not None and size >= SLOW_NOTICE_SIZE and not DISABLED and not BROKEN:
            _numpy_notice()
        return "numpy"
    if size is not None and size < min_size and (warm is None or warm not in _COMPILED):
        return "numpy"
    return "numba"


def fallback(exc: BaseException, engine: str | None = None, *, stacklevel: int = 3) -> None:
    """A compiled kernel failed: re-raise when numba was asked for explicitly, else
    mark numba broken (NumPy for the rest of the run) and warn, once. A kernel that
    compiles in the background (:class:`NotReady`) only hands this call to NumPy."""
    if isinstance(exc, NotReady):
        return
    if resolve_engine(engine) == "numba":
        raise exc
    with LOCK:
        first = not BROKEN
        BROKEN.append(repr(exc))
    if first:
        warnings.warn(f"nanaccess: numba kernel failed ({exc!r}); numba kernel unavailable "
                      "from now on, NumPy is used instead", RuntimeWarning,
                      stacklevel=stacklevel)


def jit(**options: Any) -> Callable[[Callable[..., Any]], Any]:
    """``numba.njit`` with an on-disk cache where one can be written, else in memory.

    The cache of a function compiled here lives in a directory named by the sources
    it binds, not only its own file (:mod:`._cache`): a kernel that calls a helper of
    another module is compiled again when that module changes.
    """
    nb = numba()

    def deco(fn: Callable[..., Any]) -> Any:
        fn = getattr(fn, "py_func", fn)  # a helper another module bound already
        try:
            with warnings.catch_warnings(), _cache.located(fn, nb.config):
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
        fn = fn.dispatcher if isinstance(fn, _background.Deferred) else fn
        namespace[name] = out[name] = fn
    namespace["prange"] = numba().prange
    return out


def register(name: str, build: Callable[[], dict[str, Any]]) -> None:
    """Register the builder of a kernel family (compiled by :func:`kernels`)."""
    _BUILDERS[name] = build


@functools.cache
def module(name: str) -> Any:
    """The kernel module ``core/_numba/<name>.py``, imported on first use (the one
    accessor through which the core reaches a kernel module's drivers and constants,
    so that ``import nanaccess`` and a call that never needs a family load none of it).

    Examples
    --------
    >>> module("window_fused").MODE_PICK == module("window_fused").MODE_PICK
    True
    """
    return importlib.import_module(f"{__name__}.{name}")


def kernels(name: str) -> dict[str, Any]:
    """The compiled kernels of family ``name``: built on first use, once, under the lock.
    A family not registered yet is looked for in the module of its name
    (``core/_numba/<name>.py``, :func:`module`), whose import registers it. The kernels of a
    deferrable family come wrapped (:mod:`._background`)."""
    got = _WRAPPED.get(name)
    if got is not None and got[0] is _COMPILED.get(name):
        return got[1]
    with LOCK:
        raw = _COMPILED.get(name)
        if raw is None:
            if name not in _BUILDERS:
                module(_HOMES.get(name, name))
            raw = _COMPILED[name] = _BUILDERS[name]()
        got = _WRAPPED[name] = (raw, _background.wrap(name, raw))
    return got[1]


def parallel_ok(n: int, min_size: int) -> bool:
    """Spread a kernel over numba's threads? Large inputs, on the main thread only
    (numba's pool is never driven from two threads at once, e.g. under dask)."""
    return (n >= min_size and threading.current_thread() is threading.main_thread()
            and int(numba().get_num_threads()) > 1)
