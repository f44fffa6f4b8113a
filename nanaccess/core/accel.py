"""Optional compiled kernels (numba), used automatically when numba is installed.

The NumPy path stays the tested reference; every kernel here must return the same
bits. Each hook is ``None`` when numba is missing or disabled with the environment
variable ``NANACCESS_NO_NUMBA=1``.
"""

from __future__ import annotations

select_rows = None  # (keys (rows, n) int, ranks (K, rows) int64) -> (K, rows) keys
