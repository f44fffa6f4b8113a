"""Higher moments and products: skew, kurt, sem, prod.

Exact power sums (:mod:`.powers`) and an exact product (:mod:`.product`), rounded once
(:mod:`.finish`); :mod:`.cells` computes one value per row or group of NaN-free data,
:mod:`.stat` applies the ``nan_policy`` for rows (``core.reduce``) and groups.
"""

from __future__ import annotations

from .stat import HIGHER_STATS, grouped_higher, higher_stat

__all__ = ["HIGHER_STATS", "higher_stat", "grouped_higher"]
