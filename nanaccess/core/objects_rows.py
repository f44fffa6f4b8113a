"""Old import path of :mod:`nanaccess.core.objects.rows` (kept for callers not yet moved)."""

from __future__ import annotations

from .objects.rows import object_rows_moment_stat, object_rows_order_stat

__all__ = ["object_rows_order_stat", "object_rows_moment_stat"]
