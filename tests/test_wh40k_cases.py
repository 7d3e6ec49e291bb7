"""Acceptance cases 15, 17 and 21 of the handed CASES.md (40k 10th and 11th edition), as
in-memory scenarios with exact values (a 32 mm base has radius 16/25.4")."""

from __future__ import annotations

import math

import pytest

from planner.legality.wh40k import WH40kTable, edition
from tests.wh40k_helpers import R32, RED_LINE, check, dawn_of_war, failed, finding, model, unit, world


def _infiltrator(y):
    return unit("inf", [model(30, y)], abilities=["Infiltrators"], setup="infiltrate")


# ------------------------------------------------------------------------------ case 15
@pytest.mark.parametrize("depth", [12.0, 10.0])
@pytest.mark.parametrize(("ruleset", "limit"), [("wh40k10", 9.0), ("wh40k11", 8.0)])
def test_case15_infiltrators_exactly_at_the_limit_is_illegal(ruleset, limit, depth):
    zone_edge = 44 - depth
    y = zone_edge - limit - R32  # exactly `limit` from the enemy zone
    r = check(ruleset, [_infiltrator(y)], [RED_LINE], zones=dawn_of_war(depth))
    assert failed(r) == {f"{ruleset}.infiltrators.zone_distance"}
    f = finding(r, "inf", f"{ruleset}.infiltrators.zone_distance")
    assert f.measured == pytest.approx(limit, abs=1e-9)
    assert not f.passed


@pytest.mark.parametrize("depth", [12.0, 10.0])
@pytest.mark.parametrize(("ruleset", "y12", "expected"), [("wh40k10", 22.36, 9.01008), ("wh40k11", 23.36, 8.01008)])
def test_case15_infiltrators_just_beyond_the_limit_is_legal(ruleset, y12, expected, depth):
    shift = 12.0 - depth  # a 10"-deep zone moves every value by +2"
    r = check(ruleset, [_infiltrator(y12 + shift)], [RED_LINE], zones=dawn_of_war(depth))
    assert r.legal, r.violations
    f = finding(r, "inf", f"{ruleset}.infiltrators.zone_distance")
    assert f.measured == pytest.approx(expected, abs=1e-5)


def test_case15_8_inches_is_legal_in_11th_and_illegal_in_10th():
    y = 32 - 8.5 - R32  # 8.5" from the enemy zone
    assert check("wh40k11", [_infiltrator(y)], [RED_LINE]).legal
    assert failed(check("wh40k10", [_infiltrator(y)], [RED_LINE])) == {"wh40k10.infiltrators.zone_distance"}


@pytest.mark.parametrize(("ruleset", "limit"), [("wh40k10", 9.0), ("wh40k11", 8.0)])
def test_case15_also_more_than_the_limit_from_enemy_models(ruleset, limit):
    # red Infiltrators out in no man's land, 'limit' from ours (and ours far from the red zone)
    y = 15.0
    red = unit("red-inf", [model(30, y + 2 * R32 + limit)], abilities=["Infiltrators"], setup="infiltrate")
    red_far = unit("red-inf", [model(30, y + 2 * R32 + limit + 0.01)], abilities=["Infiltrators"],
                   setup="infiltrate")
    zones = dawn_of_war(6.0)  # shallow zones so that only the model distance matters
    r = check(ruleset, [_infiltrator(y)], [red], zones=zones)
    assert f"{ruleset}.infiltrators.distance" in failed(r, "inf")
    assert check(ruleset, [_infiltrator(y)], [red_far], zones=zones).legal


def test_case15_embarked_and_reserve_units_are_not_measured_to():
    y = 15.0
    rhino = unit("red-rhino", [{"base": {"length_in": 4.5, "width_in": 3.5}, "x": 10, "y": 41}],
                 keywords=["VEHICLE", "TRANSPORT", "DEDICATED TRANSPORT"], transport_capacity=12)
    red = [RED_LINE, rhino,
           # positions written for units off the battlefield are not where anything stands
           unit("red-cargo", [model(30, 13)], setup={"method": "embarked", "in": "red-rhino"}),
           unit("red-reserve", [model(30, 17)], setup="reserves")]
    r = check("wh40k10", [_infiltrator(y)], red, zones=dawn_of_war(6.0))
    assert r.legal, r.violations
    f = finding(r, "inf", "wh40k10.infiltrators.distance")
    assert f.evidence.nearest_enemy_unit == "red-line"
    assert f.measured == pytest.approx(math.hypot(30 - 28, 40 - 15) - 2 * R32)


# ------------------------------------------------------------------------------ case 17
def _case17(character_has_scouts: bool, moved_to_y: float = 14.0):
    rhino = unit("rhino", [{"base": {"length_in": 4.5, "width_in": 3.5}, "x": 30, "y": moved_to_y, "facing": 90}],
                 keywords=["VEHICLE", "TRANSPORT", "DEDICATED TRANSPORT", "IMPERIUM"], transport_capacity=12,
                 setup={"method": "scout", "from": [[30, 8, 90]]})
    squad = unit("scouts", [model(None, None) for _ in range(5)], abilities=['Scouts 6"'],
                 setup={"method": "embarked", "in": "rhino"})
    char = unit("captain", [model(None, None, 40)], keywords=["INFANTRY", "CHARACTER"],
                abilities=["Leader"] + (['Scouts 6"'] if character_has_scouts else []),
                setup={"method": "embarked", "in": "rhino", "joined": "scouts"})
    return [rhino, squad, char]


@pytest.mark.parametrize("ruleset", ["wh40k10", "wh40k11"])
def test_case17_dedicated_transport_with_a_character_without_scouts_cannot_scout(ruleset):
    r = check(ruleset, _case17(False), [RED_LINE])
    assert failed(r) == {f"{ruleset}.scouts.eligible"}
    assert "captain" in finding(r, "rhino", f"{ruleset}.scouts.eligible").message


@pytest.mark.parametrize("ruleset", ["wh40k10", "wh40k11"])
def test_case17_scouts_conferred_on_the_character_lets_the_transport_scout(ruleset):
    r = check(ruleset, _case17(True), [RED_LINE])
    assert r.legal, r.violations
    f = finding(r, "rhino", f"{ruleset}.scouts.distance")
    assert f.measured == pytest.approx(6.0)  # 8 -> 14: exactly 6", within 6"
    r = check(ruleset, _case17(True, 14.01), [RED_LINE])
    assert failed(r) == {f"{ruleset}.scouts.distance"}


# ------------------------------------------------------------------------------ case 21
MAT = {"id": "mat", "name": "light-terrain area", "kind": "area", "traits": ["obscuring"],
       "footprint": [[0, 18], [60, 18], [60, 24], [0, 24]]}


def _sight(ruleset, target_y, mat=MAT):
    w = world(ruleset, [unit("shooter", [model(30, 6)])], [unit("target", [model(30, target_y)])],
              zones=[], terrain=[mat])
    t = WH40kTable(w, edition(ruleset))
    return t, w.units["target"], w.units["shooter"]


def test_case21_obscuring_area_between_the_models_blocks_sight_in_11th():
    t, target, shooter = _sight("wh40k11", 34)
    assert not t.visible(shooter, target).visible
    assert not t.visible(target, shooter).visible


@pytest.mark.parametrize("height", [0.1, 1.0])
def test_case21_a_flat_mat_with_a_height_still_blocks(height):
    """Case 21 "even if the mat is flat", with the 2.5D line of sight: an obscuring area lower than
    both models still blocks every line across it in the 11th; the target inside it is seen."""
    flat = {**MAT, "height_in": height}
    t, target, shooter = _sight("wh40k11", 34, flat)
    assert not t.visible(shooter, target).visible
    t, target, shooter = _sight("wh40k11", 21, flat)
    assert t.visible(shooter, target).visible


def test_case21_target_within_the_area_is_visible_and_infantry_has_cover():
    t, target, shooter = _sight("wh40k11", 21)
    assert t.visible(shooter, target).visible
    cover, why = t.has_cover(target, shooter)
    assert cover and why == ["1: within terrain area mat"]
    # a VEHICLE in the same place is visible and, fully visible, has no cover
    w = world("wh40k11", [unit("shooter", [model(30, 6)])],
              [unit("target", [model(30, 21)], keywords=["VEHICLE"])], zones=[], terrain=[MAT])
    t2 = WH40kTable(w, edition("wh40k11"))
    assert t2.has_cover(w.units["target"], w.units["shooter"])[0] is False


def test_case21_partly_within_counts_as_within():
    # base centre just outside the mat, the base reaching into it: "within" the area
    t, target, shooter = _sight("wh40k11", 24 + R32 - 0.01)
    assert t.visible(shooter, target).visible


def test_case21_obscuring_is_an_11th_edition_rule():
    t, target, shooter = _sight("wh40k10", 34)
    assert t.visible(shooter, target).visible
