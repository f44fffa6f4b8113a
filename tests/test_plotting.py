"""nanaccess.plotting: kind classification, NaN maps, policy comparisons."""

from __future__ import annotations

import sys
from decimal import Decimal

import numpy as np
import pandas as pd
import pytest
import xarray as xr

from nanaccess.plotting import (
    KIND_COLORS,
    KIND_NAMES,
    classify_kinds,
    plot_nan_map,
    plot_policy_comparison,
    policy_results,
)

plt = pytest.importorskip("matplotlib.pyplot")

NUMBER, QUIET, NEGATIVE, SIGNALING, MISSING = range(5)


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def from_bits(bits: list[int], dtype: str) -> np.ndarray:
    itemsize = np.dtype(dtype).itemsize
    return np.array(bits, dtype=f"u{itemsize}").view(dtype)


@pytest.mark.parametrize(
    ("dtype", "quiet", "sig", "sign"),
    [
        ("float16", 0x7E00, 0x7C01, 0x8000),
        ("float32", 0x7FC00000, 0x7F800001, 0x80000000),
        ("float64", 0x7FF8000000000000, 0x7FF0000000000001, 0x8000000000000000),
    ],
)
def test_classify_kinds_on_bits(dtype: str, quiet: int, sig: int, sign: int):
    x = from_bits([quiet, sig, quiet | sign, sig | sign, quiet | 5, 0, sign], dtype)
    x = np.concatenate([x, np.array([np.inf, -np.inf], dtype=dtype)])
    codes = classify_kinds(x)
    assert codes.tolist() == [
        QUIET,
        SIGNALING,
        NEGATIVE,
        SIGNALING,
        QUIET,
        NUMBER,
        NUMBER,
        NUMBER,
        NUMBER,
    ]


def test_classify_kinds_missing_values():
    pa = pytest.importorskip("pyarrow")
    arrow = pd.Series(
        pd.arrays.ArrowExtensionArray(
            pa.array(np.array([1.0, -np.nan, 3.0]), mask=np.array([False, False, True]))
        )
    )
    assert classify_kinds(arrow).tolist() == [NUMBER, NEGATIVE, MISSING]
    nullable = pd.Series([1.0, None, 2.0], dtype="Float64")
    assert classify_kinds(nullable).tolist() == [NUMBER, MISSING, NUMBER]
    obj = np.array([None, pd.NA, Decimal("sNaN"), Decimal("-NaN"), 1, float("nan")], dtype=object)
    assert classify_kinds(obj).tolist() == [MISSING, MISSING, SIGNALING, NEGATIVE, NUMBER, QUIET]
    dates = pd.Series(pd.to_datetime(["2024-01-01", None]))
    assert classify_kinds(dates).tolist() == [NUMBER, MISSING]
    masked = np.ma.masked_array([1.0, np.nan, 3.0], mask=[False, False, True])
    assert classify_kinds(masked).tolist() == [NUMBER, QUIET, MISSING]


def test_classify_dataframe_is_rows_by_columns():
    df = pd.DataFrame({"a": [1.0, np.nan], "b": [-np.nan, 2.0], "c": [1, 2]})
    assert classify_kinds(df).tolist() == [[NUMBER, NEGATIVE, NUMBER], [QUIET, NUMBER, NUMBER]]


def test_nan_map_of_dataframe():
    df = pd.DataFrame(
        {
            "a": [1.0, np.nan, 3.0, 4.0],
            "b": np.concatenate(
                [from_bits([0x7FF0000000000001] * 2, "f8"), np.array([-np.nan, 1.0])]
            ),
        },
        index=pd.date_range("2024-01-01", periods=4, name="date"),
    )
    ax = plot_nan_map(df)
    image = np.asarray(ax.images[0].get_array())
    assert image.shape == (2, 4)  # one strip per column, the index along x
    np.testing.assert_array_equal(image, classify_kinds(df).T)
    assert [t.get_text() for t in ax.get_yticklabels()] == ["a", "b"]
    assert ax.get_xlabel() == "date"
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend == ["number (4)", "quiet NaN (1)", "negative NaN (1)", "signaling NaN (2)"]


def test_nan_map_of_dataarray_and_arrays():
    da = xr.DataArray(
        np.array([[1.0, np.nan, 2.0], [np.nan, np.nan, 5.0]]),
        dims=("station", "time"),
        coords={"station": ["hill", "north"]},
        name="temp",
    )
    ax = plot_nan_map(da)
    assert np.asarray(ax.images[0].get_array()).tolist() == [[0, 1, 0], [1, 1, 0]]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["hill", "north"]
    assert (ax.get_ylabel(), ax.get_xlabel(), ax.get_title()) == ("station", "time", "temp")

    ax = plot_nan_map(np.array([1.0, np.nan]))
    assert np.asarray(ax.images[0].get_array()).shape == (1, 2)

    fig, given = plt.subplots()
    assert plot_nan_map(pd.Series([np.nan, 1.0], name="s"), ax=given) is given
    assert given.get_title() == "s"

    with pytest.raises(ValueError, match="at most 2 dimensions"):
        plot_nan_map(np.zeros((2, 2, 2)))
    with pytest.raises(ValueError, match="at most 2 dimensions"):
        plot_nan_map(xr.DataArray(np.zeros((2, 2, 2))))


def test_policy_results_values():
    s = pd.Series([3.0, np.nan, 1.0, 10.0, 2.0], name="x")
    r = policy_results(s, "median")
    assert list(r.columns) == ["raise", "propagate", "omit", "smallest", "largest", "totalorder"]
    row = r.loc["x"]
    assert row["omit"] == 2.5  # median of [1, 2, 3, 10]
    assert row["smallest"] == 2.0  # [nan, 1, 2, 3, 10]
    assert row["largest"] == 3.0  # [1, 2, 3, 10, nan]
    assert row["totalorder"] == 3.0  # a positive NaN sorts last
    assert np.isnan(row["propagate"]) and np.isnan(row["raise"])
    assert list(r.attrs["errors"]) == [("x", "raise")]
    assert "NaNError" in r.attrs["errors"][("x", "raise")]

    grouped = pd.DataFrame({"g": ["a", "a", "b", "b"], "v": [1.0, 3.0, np.nan, 5.0]})
    r = policy_results(grouped.groupby("g")["v"], "quantile", q=1.0)
    ax = plot_policy_comparison(grouped.groupby("g")["v"], "quantile", q=1.0)
    assert ax.child_axes[0].get_xlabel() == "g" and ax.get_ylabel() == "quantile (q=1.0)"
    assert r.loc["a"].tolist() == [3.0] * 6  # no NaN: every policy agrees
    assert r.loc["b", "omit"] == 5.0 and r.loc["b", "smallest"] == 5.0
    assert ("b", "raise") in r.attrs["errors"] and ("a", "raise") not in r.attrs["errors"]

    with pytest.raises(ValueError, match="unknown statistic"):
        policy_results(s, "no_such_stat")


def _offsets_by_label(ax) -> dict[str, np.ndarray]:
    # the band's markers carry their policy as gid (no label: the legend lists each once)
    return {c.get_gid() or c.get_label(): np.asarray(c.get_offsets()) for c in ax.collections}


def test_policy_comparison_plot():
    df = pd.DataFrame({"a": [1.0, 2.0, np.nan, 10.0], "b": [3.0, 4.0, 5.0, 6.0]})
    ax = plot_policy_comparison(df, stat="median")
    assert ax.get_ylabel() == "median"
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend == ["raise", "propagate", "omit", "smallest", "largest", "totalorder"]
    # every numeric result is drawn on the value axis where policy_results says, and
    # nothing else is: "a" raises under "raise" and is NaN under "propagate"
    drawn = sorted(float(y) for off in _offsets_by_label(ax).values() for y in off[:, 1])
    expected = policy_results(df, "median").to_numpy().ravel()
    assert drawn == sorted(expected[~np.isnan(expected)].tolist())
    assert len(drawn) == 10
    lo, hi = ax.get_ylim()
    assert lo <= min(drawn) and max(drawn) <= hi

    # the outcomes without a value sit in their own labelled band below the value axis
    (band,) = ax.child_axes
    rows = [t.get_text() for t in band.get_yticklabels()]
    assert rows == ["NaN", "raised NaNError"]
    row_y = dict(zip(rows, band.get_yticks(), strict=True))
    bx0, by0, bx1, by1 = band.get_position().extents
    vx0, vy0, vx1, vy1 = ax.get_position().extents
    assert by1 < vy0, "the band must lie below the value axis, not on it"
    in_band = {}
    for label, off in _offsets_by_label(band).items():
        assert len(off) == 1
        in_band[label] = float(off[0, 1])
    assert in_band == {"raise": row_y["raised NaNError"], "propagate": row_y["NaN"]}
    # both at category "a" (x near 0), each at its own policy offset
    xs = {c.get_gid(): np.asarray(c.get_offsets())[0, 0] for c in band.collections}
    assert -0.5 < xs["raise"] < xs["propagate"] < 0.5
    # the categories are named once, under the band; the value axis hides its copy
    assert [t.get_text() for t in band.get_xticklabels()] == ["a", "b"]
    assert band.get_xlabel() == "column"
    assert not ax.xaxis.get_tick_params()["labelbottom"]


def test_policy_comparison_missing_outcome_and_no_band():
    data = {"nullable": pd.Series([1.0, None, 3.0], dtype="Float64")}
    r = policy_results(data, "median")
    assert r.attrs["outcomes"] == {
        ("nullable", "raise"): "raise",
        ("nullable", "propagate"): "missing",
    }
    ax = plot_policy_comparison(data, stat="median")
    (band,) = ax.child_axes
    labels = [t.get_text() for t in band.get_yticklabels()]
    assert "missing (NA)" in labels and "NaN" not in labels
    # no NaN anywhere: every policy agrees, nothing goes in a band and there is none
    ax = plot_policy_comparison(pd.DataFrame({"x": [1.0, 2.0, 4.0]}), stat="mean")
    assert ax.child_axes == []
    assert [t.get_text() for t in ax.get_xticklabels()] == ["x"]
    ys = {float(y) for off in _offsets_by_label(ax).values() for y in off[:, 1]}
    assert ys == {7.0 / 3.0}


def test_policy_comparison_many_long_categories_do_not_overlap():
    rng = np.random.default_rng(5)
    names = [f"weather_station_{i:02d}_north" for i in range(14)]
    df = pd.DataFrame({n: np.where(rng.random(20) < 0.2, np.nan, rng.random(20)) for n in names})
    ax = plot_policy_comparison(df, stat="median")
    fig = ax.figure
    assert fig.get_size_inches()[0] >= 0.85 * len(names)  # sized to the categories
    bottom = ax.child_axes[0] if ax.child_axes else ax
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    labels = [t for t in bottom.get_xticklabels() if t.get_text()]
    assert len(labels) == len(names)
    angle = labels[0].get_rotation()
    assert {t.get_rotation() for t in labels} == {angle}
    # parallel labels rotated by angle stand apart by (tick spacing) * sin(angle) across
    # their reading direction: more than the height of the tallest (wrapped) label
    ticks = bottom.transData.transform(np.c_[bottom.get_xticks(), np.zeros(len(names))])[:, 0]
    spacing = float(np.min(np.diff(ticks)))
    upright = []
    for t in labels:
        t.set_rotation(0)
        upright.append(t.get_window_extent(renderer))
        t.set_rotation(angle)
    if angle:
        across = spacing * np.sin(np.radians(angle))
        assert across > max(b.height for b in upright), "category names overlap"
    else:
        assert spacing > max(b.width for b in upright), "category names overlap"
    assert all("\n" in t.get_text() for t in bottom.get_xticklabels())  # wrapped


def test_missing_matplotlib_says_how_to_install(monkeypatch: pytest.MonkeyPatch):
    for name in list(sys.modules):
        if name == "matplotlib" or name.startswith("matplotlib."):
            monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(ImportError, match=r'pip install "nanaccess\[plot\]"'):
        plot_nan_map(np.array([1.0, np.nan]))
    with pytest.raises(ImportError, match="matplotlib"):
        plot_policy_comparison(np.array([1.0, np.nan]))


def test_accessors_delegate_to_plot_nan_map():
    import nanaccess  # noqa: F401  (registers the accessors)

    df = pd.DataFrame({"a": [1.0, np.nan], "b": [-np.nan, 2.0]})
    ax = df.nanstats.plot_nan_map()
    np.testing.assert_array_equal(np.asarray(ax.images[0].get_array()), classify_kinds(df).T)
    ax = df["a"].nanstats.plot_nan_map()
    assert np.asarray(ax.images[0].get_array()).tolist() == [[0, 1]]
    da = xr.DataArray(np.array([[np.nan, 1.0]]), dims=("y", "x"))
    ax = da.nanstats.plot_nan_map()
    assert np.asarray(ax.images[0].get_array()).tolist() == [[1, 0]]


def test_kind_names_match_codes():
    assert KIND_NAMES == ("number", "quiet NaN", "negative NaN", "signaling NaN", "missing")


def _strip_colours(ax, n_strips):
    """The RGB colours drawn in the middle row of each strip of a rendered NaN map."""
    fig = ax.figure
    fig.canvas.draw()
    pixels = np.asarray(fig.canvas.buffer_rgba())[..., :3]
    height = pixels.shape[0]
    box = ax.get_window_extent()
    x0, x1 = int(np.ceil(box.x0)) + 1, int(np.floor(box.x1)) - 1
    colours = []
    for k in range(n_strips):  # strip k is drawn from the top (origin "upper")
        y = box.y1 - (k + 0.5) * box.height / n_strips
        row = pixels[height - int(round(y)), x0:x1]
        colours.append({tuple(c) for c in row})
    return colours


def test_nan_map_never_hides_a_lone_nan_at_the_default_size():
    # 8,784 hourly rows (a leap year), single isolated NaNs in two of four columns:
    # subsampling rows used to drop them from the picture.
    n = 8784
    rng = np.random.default_rng(0)
    values = rng.normal(size=(n, 4))
    values[5_001, 1] = np.nan  # x: one quiet NaN
    with np.errstate(invalid="ignore"):
        made = np.float64(np.inf) - np.float64(np.inf)  # z: a NaN made by arithmetic,
    values[77, 3] = -abs(made)  # negative as x86 makes it (pandas' setitem would quiet the sign)
    df = pd.DataFrame(
        values,
        columns=["w", "x", "y", "z"],
        index=pd.date_range("2024-01-01", periods=n, freq="h", tz="UTC", name="time"),
    )
    df["y"] = df["y"].astype("Float64")
    df.iloc[8_000, 2] = pd.NA  # y: one missing value
    ax = plot_nan_map(df)
    image = np.asarray(ax.images[0].get_array())
    assert image.shape[1] <= 400 and ax.get_xlabel() == "time (22 per cell)"
    assert [(image[j] != NUMBER).sum() for j in range(4)] == [0, 1, 1, 1]
    assert (image[1] == QUIET).any() and (image[2] == MISSING).any()
    assert (image[3] == NEGATIVE).any()

    from matplotlib.colors import to_rgb

    colours = _strip_colours(ax, 4)
    rgb = {k: tuple(int(round(255 * c)) for c in to_rgb(col)) for k, col in enumerate(KIND_COLORS)}
    assert rgb[QUIET] not in colours[0] and rgb[QUIET] in colours[1]
    assert rgb[MISSING] in colours[2] and rgb[NEGATIVE] in colours[3]
    plt.close(ax.figure)


def test_nan_map_pixel_takes_the_most_telling_kind():
    x = np.zeros(10)
    x[3] = np.nan
    x[4] = from_bits([0x7FF0000000000001], "f8")[0]
    ax = plot_nan_map(pd.Series(x, dtype="float64"), max_cells=2)
    assert np.asarray(ax.images[0].get_array()).tolist() == [[SIGNALING, NUMBER]]
    assert ax.get_xlabel() == "position (5 per cell)"
    with pytest.raises(ValueError, match="max_cells"):
        plot_nan_map(x, max_cells=0)
    plt.close("all")


def test_nan_map_puts_north_at_the_top_as_xarray_does():
    lat = np.array([-60.0, 0.0, 60.0])  # ascending, as most grids store it
    data = np.zeros((3, 2))
    data[2, 0] = np.nan  # the northernmost row
    da = xr.DataArray(data, dims=("lat", "lon"), coords={"lat": lat, "lon": [0.0, 1.0]})
    ax = plot_nan_map(da)
    assert ax.images[0].origin == "lower"
    ylim = ax.get_ylim()
    assert ylim[1] > ylim[0]  # row 2 (lat 60) is drawn at the top
    assert [t.get_text() for t in ax.get_yticklabels()] == ["-60.0", "0.0", "60.0"]
    descending = da.isel(lat=slice(None, None, -1))
    assert plot_nan_map(descending).images[0].origin == "upper"  # row 0 (lat 60) at the top
    plt.close("all")
