"""Every model out of coherency (HH2's one linked group; 40k 10th's 2" neighbours, 11th's 9") and
every HH2 Infiltrator in plain sight is named, the worst first, with the model it is measured to
or the enemy model that sees it (fresh user: only the first was named)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planner.geometry.shapes import round_footprint
from planner.legality.checks.coherency import coherency_gap, cut_off
from planner.units import TOLERANCE_IN
from tests.test_check_every_model import _hh2, _m, _one
from tests.wh40k_helpers import R32, RED_LINE, check, finding, model, unit

FAR = [{"id": "far", "models": [_m(36, 40)]}]


def test_hh2_coherency_names_every_model_cut_off_from_the_largest_group():
    # 1-3 linked, 4 exactly 2" from 3 (within: linked), 5 3" from 4 and 6 linked to 5 only
    blue = [{"id": "tac", "models": [_m(10, 6), _m(11.5, 6), _m(13, 6), _m(16, 6), _m(20, 6), _m(21.5, 6)]}]
    f = _one(_hh2(FAR, blue), "tac", "hh2.coherency")
    assert f.model == "5" and f.measured == pytest.approx(3.0)
    assert f.message == ('out of unit coherency (2"): tac/5 is 3.000" from the rest of the unit; '
                         'also model tac/6 (4.500" from tac/4)'), f.message
    assert f.failing_models == ["5", "6"]
    assert f.evidence.other_model == "tac/4"


def test_hh2_coherency_the_lone_model_of_the_first_link_is_the_one_named():
    # model 1 alone, 2-4 linked: the longest link (from model 1, Prim's start) ends in the group
    blue = [{"id": "tac", "models": [_m(5, 6), _m(10, 6), _m(11.5, 6), _m(13, 6)]}]
    f = _one(_hh2(FAR, blue), "tac", "hh2.coherency")
    assert f.model == "1" and f.failing_models == ["1"] and "also" not in f.message
    assert f.message == 'out of unit coherency (2"): tac/1 is 4.000" from the rest of the unit', f.message


def test_hh2_every_infiltrator_in_plain_sight_is_named_with_who_sees_it():
    # red at (36, 30); blue 10.5" away (hidden needed); model 3 behind a block, 1 and 2 seen
    block = {"id": "blk", "kind": "solid", "traits": ["blocks_line_of_sight"], "footprint": [[38, 20], [46, 20], [46, 24], [38, 24]]}
    red = [{"id": "obs", "models": [_m(36, 30)]}]
    blue = [{"id": "inf", "rules": ["Infiltrate"], "setup": "infiltrate",
             "models": [_m(30, 18.5), _m(36, 18.5), _m(42, 18.5)]}]
    f = _one(_hh2(red, blue, (block,)), "inf", "hh2.infiltrate.hidden")
    assert sorted(f.failing_models) == ["1", "2"] and f.failing_models[0] == f.model
    other = ({"1", "2"} - {f.model}).pop()
    assert f.message.endswith(f"; also model {other} (seen by obs/1)"), f.message
    assert "model 3" not in f.message


def test_40k_11th_names_every_model_more_than_9_from_another_and_to_whom():
    u = unit("tac", [model(10, 6), model(11.5, 6), model(13, 6), model(25, 6), model(26.5, 6)])
    f = _one(check("wh40k11", [u], [RED_LINE]), "tac", "wh40k11.coherency")
    assert f.model == "tac/1" and f.margin == pytest.approx(9 - (16.5 - 2 * R32))
    assert f.message.startswith('model tac/1 is more than 9" from model tac/5 of its unit (by 6.240": 15.240" apart); also '
                                'model tac/5 (more than 9" from tac/1 by 6.240"), model tac/2 (more than 9" from '
                                'tac/5 by 4.740"), model tac/4'), f.message
    assert f.failing_models == ["tac/1", "tac/5", "tac/2", "tac/4", "tac/3"]
    assert f.evidence.other_model == "tac/5"
    # the ends of a chain of six exactly 9" apart (within 9"): coherent
    s = (9 + 2 * R32) / 5
    ok = unit("tac", [model(10 + k * s, 6) for k in range(6)])
    assert finding(check("wh40k11", [ok], [RED_LINE]), "tac", "wh40k11.coherency").passed


def test_40k_10th_large_unit_names_both_ends_short_of_a_second_neighbour():
    step = 1.0 + 2 * R32  # 1" between neighbours: the ends have one within 2", the others two
    u = unit("tac", [model(10 + k * step, 6) for k in range(6)] + [model(10 + 6 * step + 0.1, 6)])
    f = _one(check("wh40k10", [u], [RED_LINE]), "tac", "wh40k10.coherency")
    short = 2 * step - 2 * R32 - 2.0
    assert f.model == "tac/7" and f.margin == pytest.approx(-short - 0.1)
    assert f.message == (f'model tac/7 is not within 2" of 2 other model(s) (short by {short + 0.1:.3f}"; the '
                         f'second nearest: model tac/5); also model tac/1 (short by {short:.3f}"; the second '
                         'nearest: tac/3)'), f.message
    assert f.failing_models == ["tac/7", "tac/1"]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 12), st.floats(0, 4)), min_size=2, max_size=7))
def test_cut_off_is_empty_exactly_when_coherent_and_names_no_model_of_the_largest_group(xys):
    fps = [round_footprint(x, y, 25.4) for x, y in xys]
    gap, apart = cut_off(fps, 2.0)
    assert gap == coherency_gap(fps)
    assert (not apart) == (gap[0] <= 2.0 + TOLERANCE_IN)
    rest = [f for k, f in enumerate(fps) if k not in {j for j, _, _ in apart}]
    assert len(rest) >= 1 and cut_off(rest, 2.0)[1] == []  # what stays is one linked group
    for _k, d, o in apart:  # each measured to the nearest model of the group, more than 2" away
        assert d > 2.0 + TOLERANCE_IN and o not in {j for j, _, _ in apart}
