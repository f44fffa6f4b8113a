"""The policy module: the rules table against the spec, the mergeable tally, the one
raising function (order, positions, pickling) and the result tails."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import nanaccess as na
from nanaccess.core.policy import RULES, NanTally, empty_value, finish, raise_for, raise_missing
from nanaccess.options import NanPolicy

P = NanPolicy

# spec section 2, one row per policy, written out independently of policy.py:
# (nan_rank, nan_raises, missing_raises, signaling_allowed, propagates,
#  moment_propagates, removes, can_sort, missing_last)
SPEC = {
    P.RAISE: (None, True, True, False, False, False, False, True, False),
    P.PROPAGATE: (None, False, False, False, True, True, False, False, False),
    P.OMIT: (None, False, False, False, False, False, True, True, False),
    P.SMALLEST: ("first", False, False, False, False, True, False, True, True),
    P.LARGEST: ("last", False, False, False, False, True, False, True, True),
    P.TOTALORDER: ("totalorder", False, False, True, False, True, False, True, True),
}
FIELDS = ("nan_rank", "nan_raises", "missing_raises", "signaling_allowed", "propagates",
          "moment_propagates", "removes", "can_sort", "missing_last")


@pytest.mark.parametrize("policy", list(P))
def test_rules_table_is_the_spec(policy):
    r = RULES[policy]
    assert r.policy is policy
    assert tuple(getattr(r, f) for f in FIELDS) == SPEC[policy]
    assert r.orders_nans == (SPEC[policy][0] is not None)


def test_every_policy_has_rules_and_names_resolve():
    assert set(RULES) == set(P)
    assert RULES["largest"] is RULES[P.LARGEST]


# ----------------------------------------------------------------------------- tally

_pos = st.none() | st.integers(0, 10**6)


@st.composite
def tallies(draw):
    s, n, m = (draw(st.integers(0, 5)) for _ in range(3))
    n = max(n, s)  # signaling NaNs are NaNs

    def first(count):
        return draw(st.integers(0, 10**6)) if count else None

    return NanTally(s, first(s), n, first(n), m, first(m))


@given(tallies(), tallies(), tallies())
def test_merge_is_associative(a, b, c):
    assert a.merge(b).merge(c) == a.merge(b.merge(c))


@given(tallies(), tallies())
def test_merge_is_commutative_and_has_identity(a, b):
    assert a.merge(b) == b.merge(a)
    assert a.merge(NanTally()) == a


@given(st.lists(tallies(), min_size=1, max_size=6))
def test_array_form_round_trips_and_merges_as_a_tree(ts):
    for t in ts:
        assert NanTally.from_array(t.as_array()) == t
    folded = ts[0]
    for t in ts[1:]:
        folded = folded.merge(t)
    stacked = np.stack([t.as_array() for t in ts])
    assert NanTally.from_array(NanTally.merge_arrays(stacked)) == folded


@given(tallies(), st.integers(0, 1000))
def test_offset_shifts_positions_only(t, k):
    o = t.offset(k)
    assert (o.signaling, o.nan, o.missing) == (t.signaling, t.nan, t.missing)
    for f in ("first_signaling", "first_nan", "first_missing"):
        v = getattr(t, f)
        assert getattr(o, f) == (None if v is None else v + k)


def test_from_masks_counts_and_first_positions():
    nan = np.array([[False, True], [True, False]])
    miss = np.array([[False, False], [False, True]])
    t = NanTally.from_masks(nan=nan, missing=miss)
    assert (t.nan, t.first_nan, t.missing, t.first_missing, t.signaling) == (2, 1, 1, 3, 0)
    assert not NanTally() and bool(t)


def test_chunked_tally_equals_whole():
    rng = np.random.default_rng(3)
    m = rng.random(1000) < 0.05
    whole = NanTally.from_masks(nan=m)
    parts = NanTally()
    for start in range(0, 1000, 137):
        parts = parts.merge(NanTally.from_masks(nan=m[start:start + 137]).offset(start))
    assert parts == whole


# ---------------------------------------------------------------------------- raising


def test_raise_order_signaling_then_nan_then_missing():
    t = NanTally(signaling=1, first_signaling=4, nan=3, first_nan=1, missing=2,
                 first_missing=0)
    with pytest.raises(na.SignalingNaNError) as e:
        raise_for(t, P.RAISE)
    assert e.value.position == (4,) and e.value.count == 1
    for policy in (P.OMIT, P.PROPAGATE, P.SMALLEST, P.LARGEST):
        with pytest.raises(na.SignalingNaNError):
            raise_for(t, policy)
    raise_for(t, P.TOTALORDER)  # nothing signals
    no_sig = NanTally(nan=3, first_nan=1, missing=2, first_missing=0)
    with pytest.raises(na.NaNError, match="3 NaN values") as e:
        raise_for(no_sig, P.RAISE)
    assert type(e.value) is na.NaNError and e.value.kind == "NaN"
    with pytest.raises(na.NaNError, match="2 missing values") as e:
        raise_for(NanTally(missing=2, first_missing=0), P.RAISE)
    assert e.value.kind == "missing"
    for policy in P:
        if policy is not P.RAISE:
            raise_for(no_sig, policy)


def test_positions_follow_the_shape():
    t = NanTally(nan=1, first_nan=5)
    with pytest.raises(na.NaNError) as e:
        raise_for(t, P.RAISE, shape=(2, 3))
    assert e.value.position == (1, 2)
    assert "position (1, 2)" in str(e.value)
    with pytest.raises(na.NaNError) as e:
        raise_for(t, P.RAISE)
    assert e.value.position == (5,)
    with pytest.raises(na.NaNError) as e:
        raise_for(NanTally(nan=1, first_nan=0), P.RAISE, shape=())
    assert e.value.position == ()


def test_positions_match_numpy_unravel():
    x = np.zeros((3, 4, 5))
    x[2, 1, 3] = np.nan
    x[2, 3, 0] = np.nan
    with pytest.raises(na.NaNError) as e:
        na.median(x)
    assert e.value.position == (2, 1, 3) and e.value.count == 2


def test_subject_locate_and_group_reach_the_error():
    t = NanTally(nan=2, first_nan=7)
    with pytest.raises(na.NaNError) as e:
        raise_for(t, P.RAISE, subject="column 'temp'", locate=lambda i: f"index 'r{i}'",
                  group="g1")
    err = e.value
    assert str(err).startswith("column 'temp' holds 2 NaN values (first at index 'r7')")
    assert (err.location, err.group, err.subject) == ("index 'r7'", "g1", "column 'temp'")


@pytest.mark.parametrize("cls, tally", [
    (na.NaNError, NanTally(nan=2, first_nan=7)),
    (na.SignalingNaNError, NanTally(signaling=1, first_signaling=3, nan=1, first_nan=3)),
])
def test_errors_pickle_with_location_and_group(cls, tally):
    with pytest.raises(cls) as e:
        raise_for(tally, P.RAISE, shape=(2, 5), subject="variable 't'",
                  locate=lambda i: f"time {i}", group=("a", 1))
    back = pickle.loads(pickle.dumps(e.value))
    assert type(back) is cls
    for f in ("count", "kind", "position", "subject", "location", "group"):
        assert getattr(back, f) == getattr(e.value, f)
    assert str(back) == str(e.value)


def test_raise_missing_only_under_raise():
    mask = np.array([[False, False], [True, True]])
    with pytest.raises(na.NaNError, match="missing") as e:
        raise_missing(mask, P.RAISE)
    assert e.value.position == (1, 0) and e.value.count == 2
    for policy in P:
        if policy is not P.RAISE:
            raise_missing(mask, policy)


# ------------------------------------------------------------------------------ tails


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_empty_value_is_the_canonical_nan(dtype):
    v = empty_value(np.dtype(dtype), "median")
    assert v.dtype == np.dtype(dtype)
    assert np.asarray(v).tobytes() == np.asarray(na.make_nan(dtype=dtype)).tobytes()


def test_empty_value_other_kinds():
    assert empty_value(np.dtype("int64"), "sum") == 0
    assert empty_value(np.dtype("float32"), "count") == 0
    assert np.isnat(empty_value(np.dtype("m8[s]"), "median"))
    assert np.isnan(empty_value(np.dtype("int64"), "median"))


def test_finish_order_nan_wins_over_missing_and_empty():
    vals = np.array([[1.0, 2.0, 3.0, 4.0]])
    nan_v = na.make_nan(9, negative=True)
    out, miss = finish(vals, "median", empty=np.array([False, True, True, False]),
                       nan_rows=np.array([False, False, True, True]),
                       nan_values=np.full(4, nan_v),
                       missing_rows=np.array([True, False, False, True]))
    assert out[0, 0] != out[0, 0] and out[0, 1] != out[0, 1]
    for j in (2, 3):
        assert np.asarray(out[0, j]).tobytes() == np.asarray(nan_v).tobytes()
    assert miss.tolist() == [[True, False, False, False]]
    assert vals[0, 0] == 1.0  # the input is not modified
    out, miss = finish(vals, "median")
    assert miss is None and out.tolist() == vals.tolist()


def test_drops_silently_follows_the_rule_fields():
    from nanaccess.core.policy import RULES

    for r in RULES.values():
        assert r.drops_silently(False, False)
        assert r.drops_silently(True, False) is r.removes
        assert r.drops_silently(True, True) is (r.removes and r.signaling_allowed)
    # only "omit" lets quiet NaNs go; no policy lets a signaling NaN go silently
    assert [p.value for p, r in RULES.items() if r.drops_silently(True, False)] == ["omit"]
    assert not any(r.drops_silently(True, True) for r in RULES.values())
