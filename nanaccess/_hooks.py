"""Run a callback once a module has been imported: now if it already is, else later.

``import nanaccess`` must not import dask (about 1 s), yet ``ddf.nanstats`` must exist
whenever ``dask.dataframe`` does, whichever is imported first. A meta-path finder
that watches for the one module name and runs the callback right after the module
has executed does that. (``wrapt.when_imported`` does the same; these few lines
spare a required dependency for it.)
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import sys
import threading
from collections.abc import Callable
from typing import Any

__all__ = ["when_imported"]


class _AfterImport(importlib.abc.MetaPathFinder):
    """Finds nothing itself: it wraps the real loader of one module."""

    def __init__(self, name: str, callback: Callable[[], Any]) -> None:
        self.name, self.callback = name, callback
        self._local = threading.local()

    def find_spec(self, fullname, path, target=None):
        if fullname != self.name or getattr(self._local, "busy", False):
            return None
        self._local.busy = True  # the real finders answer the nested lookup
        try:
            spec = importlib.util.find_spec(fullname)
        finally:
            self._local.busy = False
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return None
        run = spec.loader.exec_module

        def exec_module(module):
            run(module)
            if self in sys.meta_path:
                sys.meta_path.remove(self)
            self.callback()

        spec.loader.exec_module = exec_module
        return spec


def when_imported(name: str, callback: Callable[[], Any]) -> None:
    """Call ``callback()`` once module ``name`` is imported (at once if it is).

    Examples
    --------
    >>> import json
    >>> when_imported("json", lambda: print("json is here"))
    json is here
    """
    if name in sys.modules:
        callback()
    else:
        sys.meta_path.insert(0, _AfterImport(name, callback))
