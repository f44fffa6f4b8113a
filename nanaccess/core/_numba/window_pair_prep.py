"""One pass over the rows and windows of a moving covariance or correlation (the
numba engine's certified shortcut, :func:`nanaccess.core.bivariate.certified.
window_shortcut`): the joint finite rows, the prefix counts of the joint rows holding
an infinity, and the longest window, or -1 where the windows' starts or ends go back
(the shortcut then does not serve). Windows are clamped as the kernel reads them:
``s = max(start, 0)``, ``e = max(end, s)``; nothing is written to the caller's arrays.
"""

from __future__ import annotations

from typing import Any

from . import jit, register

__all__ = ["pair_prep", "build"]


def pair_prep(x: Any, y: Any, ok: Any, start: Any, end: Any, fin: Any,
              ninf: Any) -> Any:  # pragma: no cover - compiled
    """``fin[r]``: row ``r`` is joint (``ok``) and finite in both; ``ninf[r + 1] -
    ninf[r]``: it is joint and holds an infinity. Returns the longest clamped window,
    -1 where the starts or the ends are not non-decreasing."""
    ninf[0] = 0
    inf = float("inf")
    c = 0
    for r in range(x.shape[0]):  # no branch: a loop of loads, compares and stores
        o = ok[r]
        f = o & (abs(x[r]) < inf) & (abs(y[r]) < inf)
        fin[r] = f
        c += o & (not f)
        ninf[r + 1] = c
    big = 0
    back = False
    ps = 0
    pe = 0
    for i in range(start.shape[0]):
        s = max(start[i], 0)
        e = max(end[i], s)
        back |= (s < ps) | (e < pe)
        big = max(big, e - s)
        ps = s
        pe = e
    if back:
        return -1
    return big


def build() -> dict[str, Any]:
    """Compile the pass."""
    return {"pair_prep": jit(nogil=True)(pair_prep)}


register("window_pair_prep", build)
