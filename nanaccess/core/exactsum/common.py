"""What every part of the exact sums shares: the input view and a few constants."""

from __future__ import annotations

import math
from typing import Any, cast

import numpy as np

CANONICAL_NAN = float(np.array(0x7FF8000000000000, dtype=np.int64).view(np.float64))
I64_MAX = (1 << 63) - 1
SCALE = 1074  # 2**-1074 is the smallest float64 step: x * 2**1074 is an integer


def prepare(x: Any, where: Any) -> tuple[np.ndarray, np.ndarray | None, tuple[int, ...], str]:
    """View x as ``(rows, n)``; broadcast ``where``; classify the dtype."""
    x = np.asarray(x)
    if x.ndim == 0:
        raise ValueError("exact sums reduce along the last axis: pass an array with ndim >= 1")
    kind = x.dtype.kind
    if kind == "f":
        if x.dtype.itemsize not in (2, 4, 8):
            raise TypeError(f"exact sums handle float16/32/64, not {x.dtype}")
        kind = "float"
    elif kind in "iub":
        kind = "int"
    else:
        raise TypeError(f"exact sums need float, int or bool data, not dtype {x.dtype}")
    lead = x.shape[:-1]
    x2 = x.reshape(math.prod(lead), x.shape[-1])
    w2 = None
    if where is not None:
        w = np.asarray(where)
        if w.dtype != np.bool_:
            raise TypeError(f"'where' must be a boolean array, not dtype {w.dtype}")
        w2 = np.broadcast_to(w, x.shape).reshape(x2.shape)
    return x2, w2, lead, kind


def counts(x2: np.ndarray, w2: np.ndarray | None) -> np.ndarray:
    if w2 is None:
        return np.full(x2.shape[0], x2.shape[1], dtype=np.int64)
    return cast("np.ndarray", np.count_nonzero(w2, axis=1).astype(np.int64))


class SumOverflowError(OverflowError):
    """An exact integer sum that does not fit its integer dtype. ``row`` is the flat
    row of the reduction, ``value`` the exact sum and ``dtype`` its name, so a host
    can name the column or group instead of the row (:meth:`naming`)."""

    def __init__(self, row: int, lead: tuple[int, ...], value: int, dtype: str = "int64",
                 extra: str = "") -> None:
        self.row, self.lead, self.value, self.dtype, self.extra = row, lead, value, dtype, extra
        super().__init__(self._text(row_label(row, lead)))

    def _text(self, where: str) -> str:
        return (f"exact integer sum of {where} is {self.value}, which does not fit in "
                f"{self.dtype}{self.extra}; sum a float copy for a rounded value")

    def naming(self, where: str) -> SumOverflowError:
        """The same error, its message naming ``where`` (e.g. "column 'x'")."""
        out = SumOverflowError(self.row, self.lead, self.value, self.dtype, self.extra)
        out.args = (out._text(where),)
        return out


def row_label(r: int, lead: tuple[int, ...]) -> str:
    if len(lead) <= 1:
        return f"row {r}"
    return f"row {tuple(int(i) for i in np.unravel_index(r, lead))}"


def finish(res: np.ndarray, lead: tuple[int, ...]) -> np.ndarray:
    return res.reshape(lead)



def idiv(a: int, b: int) -> float:
    """Correctly rounded a / b for Python ints (b > 0), overflow -> +-inf."""
    try:
        return a / b
    except OverflowError:
        return math.inf if a > 0 else -math.inf
