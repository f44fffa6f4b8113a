"""The one label formatter and relabel helper (nanaccess/_labels.py)."""

from __future__ import annotations

import pickle

import numpy as np
import pandas as pd
import pytest

from nanaccess._labels import (
    CoordLocation,
    IndexLocation,
    Relabeller,
    fmt_label,
    relabel,
    restate,
    subject,
)
from nanaccess.errors import NaNError, SignalingNaNError


@pytest.mark.parametrize(("label", "text"), [
    (pd.Timestamp("2024-01-05"), "'2024-01-05'"),
    (np.datetime64("2024-01-05"), "'2024-01-05'"),
    (np.datetime64("2024-01-05T00:00:00.000000000"), "'2024-01-05'"),
    (pd.Timestamp("2024-01-30 06:00"), "'2024-01-30T06:00:00'"),
    (np.datetime64("2024-01-30T06:00"), "'2024-01-30T06:00:00'"),
    (pd.Timestamp("2024-01-05", tz="UTC"), "'2024-01-05T00:00:00+00:00'"),
    (pd.NaT, "NaT"),
    (np.datetime64("NaT"), "NaT"),
    (pd.Timedelta("1D"), "'1 days 00:00:00'"),
    (np.timedelta64(2, "h"), "'0 days 02:00:00'"),
    (np.int64(3), "3"),
    (np.float64(0.0), "0.0"),
    ("b", "'b'"),
    (12, "12"),
    (None, "None"),
    ((np.int64(2024), "y"), "(2024, 'y')"),
    ((np.int64(1),), "(1,)"),
    ((pd.Timestamp("2024-01-05"), 1), "('2024-01-05', 1)"),
])
def test_fmt_label(label, text):
    assert fmt_label(label) == text


def test_fmt_label_outside_pandas_range():
    assert fmt_label(np.datetime64("9999-12-31", "D")) == "'9999-12-31'"
    assert "20000" in fmt_label(np.datetime64("20000-01-01", "D"))


def test_subject():
    assert subject("column", "x") == "column 'x'"
    assert subject("column", None) == "column None"
    assert subject("column", None, unnamed="Series") == "Series"
    assert subject("variable", np.int64(3), unnamed="data") == "variable 3"


def test_relabel_index_and_group():
    err = NaNError(count=2, position=(3,))
    idx = pd.Index(pd.date_range("2024-01-01", periods=5))
    new = relabel(err, "column 'x'", IndexLocation(idx), group=np.int64(7))
    assert type(new) is NaNError
    assert str(new).startswith(
        "column 'x' in group 7 holds 2 NaN values (first at index '2024-01-04')")
    assert new.location == "index '2024-01-04'" and new.group == 7 and new.position == (3,)
    # rows map the core's rows to index positions
    assert relabel(err, "s", IndexLocation(idx, rows=np.array([4, 3, 2, 1]))).location \
        == "index '2024-01-02'"


def test_relabel_keeps_class_location_and_group_when_not_given():
    err = SignalingNaNError(count=1, position=(0,), location="index 'a'", group="g")
    new = relabel(err, "variable 'v'")
    assert type(new) is SignalingNaNError
    assert (new.location, new.group, new.subject) == ("index 'a'", "g", "variable 'v'")
    assert "variable 'v' holds 1 signaling NaN value (first at index 'a')" in str(new)


def test_coord_location():
    loc = CoordLocation(("time", "x"), [pd.Index(pd.date_range("2024-01-01", periods=2)), None])
    assert loc((1, 0)) == "time='2024-01-02', x=0"
    assert loc((1,)) is None  # another shape: no location
    assert CoordLocation((), [])(()) is None


def test_relabeller_pickles_with_its_facts():
    r = Relabeller("variable 't'", CoordLocation(("x",), [pd.Index(["a", "b"])]), group="g")
    r2 = pickle.loads(pickle.dumps(r))
    err = pickle.loads(pickle.dumps(r2(NaNError(count=1, position=(1,)))))
    assert str(err).startswith("variable 't' in group 'g' holds 1 NaN value (first at x='b')")
    assert (err.location, err.group) == ("x='b'", "g")


def test_restate():
    err = restate(TypeError("bad dtype"), "column 'x'")
    assert type(err) is TypeError and str(err) == "column 'x': bad dtype"
    assert restate(err, "column 'x'") is err
    assert type(restate(OverflowError("big"), "v")) is OverflowError
