"""Post-import hooks: call a function the moment a named module has been imported.

What :func:`wrapt.register_post_import_hook` does for :mod:`nanaccess._register` and
:mod:`nanaccess.xarray`, without importing wrapt (with ``asyncio`` and
``importlib.metadata`` behind it, a third of ``import nanaccess``: issue 26). A finder
first on ``sys.meta_path`` answers only for the hooked names: it takes the spec the
other finders give and wraps its loader, whose ``exec_module`` runs the module and
then the hooks (each once), the module's ``__loader__`` being the original one.
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import sys
import threading
from collections.abc import Callable
from types import ModuleType
from typing import Any

__all__ = ["register_post_import_hook"]

Hook = Callable[[ModuleType], object]

_HOOKS: dict[str, list[Hook]] = {}
_LOCK = threading.RLock()
_SEARCHING = threading.local()  # the names this thread is looking up (no recursion)


def register_post_import_hook(hook: Hook, name: str) -> None:
    """Call ``hook(module)`` once module ``name`` is imported: now if it is, else right
    after its import runs (before the importing statement returns)."""
    with _LOCK:
        module = sys.modules.get(name)
        if module is None:
            _HOOKS.setdefault(name, []).append(hook)
            if not any(isinstance(f, _Finder) for f in sys.meta_path):
                sys.meta_path.insert(0, _Finder())
            return
    hook(module)


def _fire(name: str, module: ModuleType) -> None:
    with _LOCK:
        hooks = _HOOKS.pop(name, [])
    for hook in hooks:
        hook(module)


class _Finder:
    """Finds nothing itself: for a hooked name it wraps the loader others find."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if fullname not in _HOOKS:
            return None
        busy = _SEARCHING.__dict__.setdefault("names", set())
        if fullname in busy:
            return None
        busy.add(fullname)
        try:
            spec = importlib.util.find_spec(fullname)
        finally:
            busy.discard(fullname)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return None
        spec.loader = _Loader(spec.loader)
        return spec


class _Loader(importlib.abc.Loader):
    """The module's own loader, and the hooks after its ``exec_module``."""

    def __init__(self, loader: Any) -> None:
        self._loader = loader

    def __getattr__(self, name: str) -> Any:
        return getattr(self._loader, name)

    def create_module(self, spec: Any) -> Any:
        return self._loader.create_module(spec) if hasattr(self._loader, "create_module") \
            else None

    def exec_module(self, module: ModuleType) -> None:
        module.__loader__ = self._loader
        spec = getattr(module, "__spec__", None)
        if spec is not None:
            spec.loader = self._loader
        self._loader.exec_module(module)
        _fire(module.__name__, module)
