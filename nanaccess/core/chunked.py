"""The core's face for the chunked (dask) engine.

The dask adapters run the core's rules per chunk and combine the partials, so they
need more of the core than the labelled hosts do: the kernels' building blocks
(keys, plans, exact partials, tallies). They import them from here only (an
import-linter contract of ``pyproject.toml`` holds them to it), so the rule modules
behind this face can move without touching the dask adapters.
"""

from __future__ import annotations

from ._numba import rows as row_kernels
from .axes import Reduction, normalize_axis
from .bits import as_bits, layout_of
from .classify import REPORT_KEYS, canonical_nan, float_masks, report_array
from .compose import compose
from .exactsum import ExactPartials, exact_partials, round_mean, round_sum, round_var
from .exactsum.axis import axis_moments
from .exactsum.common import SCALE
from .exactsum.narrow import round_narrow_exact
from .higher.cells import KMAX, cell_sums, cell_values, check_params, finish_cells
from .interp import validate_q
from .keys import float_keys, integer_keys, keys_to_float, remap_keys, unmap_keys
from .moments import moment_stat, result_dtype, temporal_mean_of_sums
from .nanscan import scan_rows
from .objects import classify_object
from .plan import combine, rank_plan
from .policy import RULES, NanTally, check_weights, empty_value, finish, raise_for
from .select import keys_to_values, order_stat
from .sorting import RANK_DEFAULT, SORT_DEFAULT, sort_policy
from .spread import deviations
from .weighted.prepare import flat_position, float_nan_masks, lay_weights

__all__ = [
    "ExactPartials",
    "KMAX",
    "NanTally",
    "RANK_DEFAULT",
    "REPORT_KEYS",
    "RULES",
    "Reduction",
    "SCALE",
    "SORT_DEFAULT",
    "as_bits",
    "axis_moments",
    "canonical_nan",
    "cell_sums",
    "cell_values",
    "check_params",
    "check_weights",
    "classify_object",
    "combine",
    "compose",
    "deviations",
    "empty_value",
    "exact_partials",
    "finish",
    "finish_cells",
    "flat_position",
    "float_keys",
    "float_masks",
    "float_nan_masks",
    "integer_keys",
    "keys_to_float",
    "keys_to_values",
    "lay_weights",
    "layout_of",
    "moment_stat",
    "normalize_axis",
    "order_stat",
    "raise_for",
    "rank_plan",
    "remap_keys",
    "report_array",
    "result_dtype",
    "round_mean",
    "round_narrow_exact",
    "round_sum",
    "round_var",
    "row_kernels",
    "scan_rows",
    "sort_policy",
    "temporal_mean_of_sums",
    "unmap_keys",
    "validate_q",
]
