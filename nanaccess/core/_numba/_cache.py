"""numba's on-disk cache, stamped with every source a kernel binds.

numba keys a cached function by its own bytecode and stamps the cache index with a
hash of its own source file only (``numba.core.caching``: ``Cache._index_key`` and
the locator's ``get_source_stamp``). A kernel that calls a helper compiled from
another module (``compensated_var`` and ``weighted_moments`` call
:mod:`.compensated`'s TwoSum and TwoProduct) links the helper's machine code into its
own cache entry, so after an edit of the helper's module alone numba would load the
kernel with the old helper's bits.

:func:`install` puts locators in front of numba's own (``CacheImpl._locator_classes``,
consulted in order): for a function compiled through :func:`nanaccess.core._numba.jit`
(:func:`mark`) they find the same cache directory as numba's locator would, and their
source stamp also covers, transitively, every function the kernel's code names in its
globals (a compiled dispatcher or a plain function: its file's hash) and every
constant it names (numba freezes global numbers, strings, tuples and arrays into the
machine code). Any change to those gives another stamp, and numba's index then drops
the stale entries. Other functions fall through to numba's own locators unchanged.

The stamp is computed once per compiled function, when it is decorated (file hashes
memoised on path, mtime and size): no cost on calls.
"""

from __future__ import annotations

import functools
import hashlib
import os
import sys
import types
import weakref
from typing import Any

__all__ = ["install", "mark", "source_stamp"]

#: the functions compiled through ``jit`` (their caches take the bound stamp)
_MARKED: weakref.WeakSet = weakref.WeakSet()
_INSTALLED: list[type] = []
#: global values numba compiles in as constants (hashed by their repr)
_CONSTANTS = (bool, int, float, complex, str, bytes, type(None))


def mark(fn: Any) -> None:
    """Have ``fn``'s on-disk cache stamped with what it binds (:func:`source_stamp`)."""
    try:
        _MARKED.add(fn)
    except TypeError:  # not weakly referenceable: numba's own stamp
        pass


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


def _bound(base: type) -> type:
    """A locator of ``base``'s cache directory for marked functions, with the bound
    stamp; None (the next locator) for every other function."""

    class Bound(base):  # type: ignore[misc, valid-type]
        def __init__(self, py_func: Any, py_file: str) -> None:
            super().__init__(py_func, py_file)
            self._stamp = source_stamp(py_func)

        def get_source_stamp(self) -> Any:
            return ("nanaccess-bound", self._stamp)

        @classmethod
        def from_function(cls, py_func: Any, py_file: str) -> Any:
            if py_func not in _MARKED or getattr(sys, "frozen", False):
                return None
            return super().from_function(py_func, py_file)

    Bound.__name__ = Bound.__qualname__ = f"Bound{base.__name__}"
    return Bound


def install() -> None:
    """Put the bound locators in front of numba's (once); a no-op when numba's cache
    module has another layout (numba's own stamps then apply)."""
    if _INSTALLED:
        return
    from numba.core import caching

    impl = getattr(caching, "CacheImpl", None) or getattr(caching, "_CacheImpl", None)
    classes = getattr(impl, "_locator_classes", None)
    bases = [getattr(caching, n, None) or getattr(caching, "_" + n, None) for n in (
        "UserProvidedCacheLocator", "InTreeCacheLocator", "UserWideCacheLocator")]
    if not isinstance(classes, list) or any(b is None for b in bases):
        _INSTALLED.append(type(None))
        return
    ours = [_bound(b) for b in bases]
    classes[:0] = ours
    _INSTALLED.extend(ours)
