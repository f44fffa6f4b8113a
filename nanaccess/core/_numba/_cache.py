"""numba's on-disk cache, in a directory named by every source a kernel binds.

numba keys a cached function by its own bytecode and stamps the cache index with its
own source file only. A kernel that calls a helper compiled from another module
(``compensated_var`` and ``weighted_moments`` call :mod:`.compensated`'s TwoSum and
TwoProduct) links the helper's machine code into its own cache entry, so after an edit
of the helper's module alone numba would load the kernel with the old helper's bits.

Only numba's public cache options are used: ``cache=True`` and the cache directory
(``NUMBA_CACHE_DIR``, :data:`numba.config.CACHE_DIR`). :func:`located` sets the
directory while a function is decorated (numba picks a function's cache location
then) to ``<base>/nanaccess-<stamp>``, where the stamp (:func:`source_stamp`) covers,
transitively, every function the kernel's code names in its globals or closure (a
compiled dispatcher or a plain function: its file's hash) and every constant it names
(numba freezes global numbers, strings, tuples and arrays into the machine code). Any
change to those gives another directory, hence a fresh compile. ``<base>`` is the
user's ``NUMBA_CACHE_DIR`` when set, else the user cache directory
(``$XDG_CACHE_HOME/nanaccess`` or ``~/.cache/nanaccess``; ``%LOCALAPPDATA%`` on Windows);
where it cannot be written, numba's own default location and stamps apply.

The stamp is computed once per compiled function, when it is decorated (file hashes
memoised on path, mtime and size): no cost on calls.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import sys
import threading
import types
from collections.abc import Iterator
from typing import Any

__all__ = ["located", "cache_base", "source_stamp"]

#: one decoration at a time sets numba's cache directory
_LOCK = threading.RLock()
#: global values numba compiles in as constants (hashed by their repr)
_CONSTANTS = (bool, int, float, complex, str, bytes, type(None))


def _file_hash(path: str) -> bytes:
    """sha256 of a file, memoised on (path, mtime, size) as numba's own stamp is."""
    st = os.stat(path)
    return _hash_file(path, st.st_mtime, st.st_size)


@functools.cache
def _hash_file(path: str, mtime: float, size: int) -> bytes:
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).digest()


def _names(code: types.CodeType) -> set[str]:
    """The global (and attribute) names a code object and its nested ones use."""
    out = set(code.co_names)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            out |= _names(c)
    return out


def _constant(value: Any) -> bytes | None:
    """The bytes a global constant is stamped with, or None (not a constant)."""
    import numpy as np

    if isinstance(value, _CONSTANTS) or isinstance(value, np.generic | np.dtype):
        return repr((type(value).__name__, value)).encode()
    if isinstance(value, tuple) and all(isinstance(v, _CONSTANTS) for v in value):
        return repr(value).encode()
    if isinstance(value, np.ndarray):
        return repr((value.dtype.str, value.shape)).encode() + np.ascontiguousarray(
            value).tobytes()
    return None


def source_stamp(fn: Any) -> bytes:
    """A digest of ``fn``'s source file, the files of every function it names in its
    globals or captures in a closure (compiled dispatchers through their Python
    function), transitively, and the global constants those functions name."""
    h = hashlib.sha256()
    seen: set[int] = set()
    files: set[str] = set()
    todo = [getattr(fn, "py_func", fn)]
    while todo:
        f = todo.pop()
        if id(f) in seen:
            continue
        seen.add(id(f))
        code = getattr(f, "__code__", None)
        if code is None:
            continue
        files.add(code.co_filename)
        for cell in getattr(f, "__closure__", None) or ():  # helpers captured by a closure
            try:
                inner = getattr(cell.cell_contents, "py_func", cell.cell_contents)
            except ValueError:  # an empty cell
                continue
            if isinstance(inner, types.FunctionType):
                todo.append(inner)
        glob = getattr(f, "__globals__", {})
        for name in sorted(_names(code)):
            if name not in glob:
                continue
            value = glob[name]
            inner = getattr(value, "py_func", value)
            if isinstance(inner, types.FunctionType):
                todo.append(inner)
                continue
            const = _constant(value)
            if const is not None:
                h.update(f"{getattr(f, '__module__', '')}.{name}=".encode() + const)
    for path in sorted(files):
        h.update(os.path.basename(path).encode())
        h.update(_file_hash(path) if os.path.exists(path) else path.encode())
    return h.digest()


def cache_base() -> str:
    """Where nanaccess's numba caches live: the user's ``NUMBA_CACHE_DIR`` if set, else
    the user cache directory."""
    user = os.environ.get("NUMBA_CACHE_DIR", "").strip()
    if user:
        return user
    if sys.platform == "win32" and os.environ.get("LOCALAPPDATA"):
        return os.path.join(os.environ["LOCALAPPDATA"], "nanaccess", "numba")
    root = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(root, "nanaccess", "numba")


@contextlib.contextmanager
def located(fn: Any, config: Any) -> Iterator[None]:
    """Within: numba's ``config.CACHE_DIR`` is ``<base>/nanaccess-<stamp of fn>``
    (numba reads it when ``njit(cache=True)`` decorates ``fn``); restored after. When
    the directory cannot be made, numba's own location is left in place."""
    if getattr(sys, "frozen", False):
        yield
        return
    path = os.path.join(cache_base(), "nanaccess-" + source_stamp(fn).hex()[:20])
    try:
        os.makedirs(path, exist_ok=True)
    except OSError:
        yield
        return
    with _LOCK:
        before = config.CACHE_DIR
        config.CACHE_DIR = path
        try:
            yield
        finally:
            config.CACHE_DIR = before
