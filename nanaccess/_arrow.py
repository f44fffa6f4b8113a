"""Arrow float arrays to NumPy bit for bit: the one reader of Parquet NaN bits.

``to_numpy`` / ``to_pandas`` may canonicalise NaNs and turn nulls into NaN; reading the
value buffer keeps every NaN's sign, payload and quiet bit, and the validity bitmap says
which slots are null. Used by the command line's Parquet reader and
:func:`nanaccess.data.load_forensic`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["float_values"]


def float_values(col: Any) -> tuple[np.ndarray, np.ndarray | None]:
    """(values, null mask or None) of a pyarrow float array or chunked array.

    The values are a fresh array with the stored bits (a null's slot holds whatever
    the writer left there).

    Examples
    --------
    >>> import pyarrow as pa
    >>> nan = np.array([0x7FF8000000000003], dtype=np.uint64).view(np.float64)[0]
    >>> values, nulls = float_values(pa.array([1.0, None, nan]))
    >>> hex(values.view(np.uint64)[2]), nulls.tolist()
    ('0x7ff8000000000003', [False, True, False])
    """
    import pyarrow as pa

    arr = col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col
    buf = np.frombuffer(arr.buffers()[1], dtype=arr.type.to_pandas_dtype())
    values = buf[arr.offset : arr.offset + len(arr)].copy()
    nulls = np.asarray(arr.is_null().to_numpy(zero_copy_only=False)) if arr.null_count else None
    return values, nulls
