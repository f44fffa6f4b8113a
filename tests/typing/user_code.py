"""Code a user writes, checked by mypy --strict with the nanaccess plugin (tests/test_typing.py).

Lines marked ``# E: <code>`` must be reported with that error code; every other line
must check clean. Never run; only type-checked.
"""

from __future__ import annotations

from typing import assert_type

import numpy as np
import pandas as pd
import xarray as xr

import nanaccess as na
from nanaccess.pandas.ewm import NanEwm
from nanaccess.pandas.frame import DataFrameNanStats
from nanaccess.pandas.groupby import NanGroupBy
from nanaccess.pandas.series import SeriesNanStats
from nanaccess.pandas.window import NanWindow
from nanaccess.typing import NanPolicyArg
from nanaccess.xarray.accessor import DataArrayNanStats, DatasetNanStats

s = pd.Series([1.0, np.nan, 3.0])
df = pd.DataFrame({"g": [1, 1, 2], "x": [1.0, np.nan, 3.0]})
da = xr.DataArray(np.arange(3.0), dims="time")

# the attribute, through the plugin
assert_type(s.nanstats, SeriesNanStats)
assert_type(df.nanstats, DataFrameNanStats)
assert_type(df.groupby("g").nanstats, NanGroupBy)
assert_type(df.rolling(2).nanstats, NanWindow)
assert_type(df.ewm(span=2).nanstats, NanEwm)
assert_type(da.nanstats, DataArrayNanStats)
assert_type(da.to_dataset(name="v").nanstats, DatasetNanStats)

# the function, for every checker and editor
assert_type(na.nanstats(s), SeriesNanStats)
assert_type(na.nanstats(df), DataFrameNanStats)
assert_type(na.nanstats(df.groupby("g")), NanGroupBy)
assert_type(na.nanstats(s.expanding()), NanWindow)
assert_type(na.nanstats(da), DataArrayNanStats)

# policies are Literal names or NanPolicy members
policy: NanPolicyArg = "omit"
s.nanstats.median(nan_policy=policy)
df.nanstats.quantile(0.9, nan_policy=na.NanPolicy.TOTALORDER)
na.median([1.0, 2.0], nan_policy="largest")
na.median([1.0, 2.0], nan_policy="omitt")  # E: arg-type
s.nanstats.median(nan_policy="ignore")  # E: arg-type
bad: NanPolicyArg = "skip"  # E: assignment

# the plain functions keep their signatures
na.quantile(np.arange(3.0), 0.5, method="linear")
na.median(np.arange(3.0), axs=0)  # E: call-arg
s.nanstats.medain()  # E: attr-defined
