"""The 40k checks one by one, at their boundaries (exact values; "within" inclusive, "more than" strict)."""

from __future__ import annotations

import pytest

from planner.legality.wh40k import WH40kTable, edition, embark_findings, in_objective_range
from planner.schema import Objective
from tests.wh40k_helpers import R32, R40, RED_LINE, check, failed, finding, model, unit, world

D32 = 2 * R32
RHINO_BASE = {"length_in": 4.6, "width_in": 3.6}


# ------------------------------------------------------------------------------ coherency
@pytest.mark.parametrize("ruleset", ["wh40k10", "wh40k11"])
@pytest.mark.parametrize(("gap", "legal"), [(2.0, True), (2.01, False)])
def test_coherency_2_inches(ruleset, gap, legal):
    r = check(ruleset, [unit("pair", [model(10, 5), model(10 + D32 + gap, 5)])], [RED_LINE])
    assert r.legal is legal
    assert finding(r, "pair", f"{ruleset}.coherency").margin == pytest.approx(2.0 - gap)


@pytest.mark.parametrize(("gap", "legal"), [(2.0, True), (2.01, False)])
def test_coherency_10th_units_of_7_need_two_models_within_2(gap, legal):
    # 7 models in a line: each end's second-nearest model is `gap` away
    step = (gap + D32) / 2  # centre spacing so that two steps leave `gap` between bases
    models = [model(5 + step * i, 5) for i in range(7)]
    assert check("wh40k10", [unit("seven", models)], [RED_LINE]).legal is legal
    # six models in the same line: one neighbour is enough
    assert check("wh40k10", [unit("six", models[:6])], [RED_LINE]).legal


@pytest.mark.parametrize(("span", "legal"), [(9.0, True), (9.01, False)])
def test_coherency_11th_every_model_within_9(span, legal):
    # a chain of models 1.5" apart whose ends are `span` apart (closest points)
    n = 8
    end = 5 + span + D32
    models = [model(5 + (end - 5) * i / (n - 1), 5) for i in range(n)]
    r = check("wh40k11", [unit("chain", models)], [RED_LINE])
    assert r.legal is legal
    assert check("wh40k10", [unit("chain", models)], [RED_LINE]).legal  # 10th: no 9" rule, 8 models, 2 each


def test_attached_unit_coherency_counts_the_leader():
    squad = unit("squad", [model(10, 5), model(10 + D32 + 1, 5)])
    near = unit("cpt", [model(10, 5 + R32 + R40 + 2.0, 40)], abilities=["Leader"], setup={"joined": "squad"})
    far = unit("cpt", [model(10, 5 + R32 + R40 + 2.01, 40)], abilities=["Leader"], setup={"joined": "squad"})
    assert check("wh40k10", [squad, near], [RED_LINE]).legal
    r = check("wh40k10", [squad, far], [RED_LINE])
    assert failed(r) == {"wh40k10.coherency"} and {v.unit for v in r.violations} == {"squad"}


# ------------------------------------------------------------------------------ engagement, battlefield, zone
@pytest.mark.parametrize(("ruleset", "gap", "legal"), [
    ("wh40k10", 1.0, False), ("wh40k10", 1.01, True), ("wh40k11", 2.0, False), ("wh40k11", 2.01, True)])
def test_set_up_unengaged(ruleset, gap, legal):
    blue = unit("blue", [model(30, 5)])
    red = unit("red-inf", [model(30, 5 + D32 + gap)], abilities=["Infiltrators"], setup="infiltrate")
    r = check(ruleset, [blue], [red])
    assert (f"{ruleset}.engagement" not in failed(r, "blue")) is legal


@pytest.mark.parametrize(("x", "legal"), [(R32, True), (R32 - 0.01, False)])
def test_bases_may_not_overhang_the_battlefield_edge(x, legal):
    r = check("wh40k11", [unit("edge", [model(x, 5)])], [RED_LINE])
    assert r.legal is legal
    if not legal:  # over the table edge, and so out of the zone along it
        assert failed(r) == {"wh40k11.battlefield", "wh40k11.deployment.wholly_within_zone"}


def test_hull_of_a_model_without_a_base_may_not_overhang():
    rhino = {"base": RHINO_BASE, "x": 2.3, "y": 5, "facing": 0}  # 4.6" long along x: touches x = 0
    kw = ["VEHICLE", "FRAME"]
    assert check("wh40k11", [unit("rhino", [rhino], keywords=kw)], [RED_LINE]).legal
    rhino["x"] = 2.29
    assert failed(check("wh40k11", [unit("rhino", [rhino], keywords=kw)], [RED_LINE])) == {
        "wh40k11.battlefield", "wh40k11.deployment.wholly_within_zone"}


def test_frame_model_on_a_round_base_is_flagged_in_11th_only():
    tank = unit("tank", [model(30, 5, 100)], keywords=["VEHICLE", "FRAME"])
    assert failed(check("wh40k11", [tank], [RED_LINE])) == {"wh40k11.frame"}
    assert check("wh40k10", [tank], [RED_LINE]).legal


@pytest.mark.parametrize(("y", "legal"), [(12 - R32, True), (12 - R32 + 0.01, False)])
def test_wholly_within_the_deployment_zone(y, legal):
    r = check("wh40k10", [unit("u", [model(30, y)])], [RED_LINE])
    assert r.legal is legal


def test_overlapping_bases():
    r = check("wh40k10", [unit("a", [model(30, 5)]), unit("b", [model(30 + D32 - 0.01, 5)])], [RED_LINE])
    assert failed(r) == {"wh40k10.bases.overlap"}


# ------------------------------------------------------------------------------ Infiltrators, Scouts
def test_infiltrators_need_every_model_of_the_attached_unit():
    inf = unit("inf", [model(30, 20), model(31.5, 20)], abilities=["Infiltrators"], setup="infiltrate")
    cpt = unit("cpt", [model(30.75, 21.6, 40)], abilities=["Leader"], setup={"method": "infiltrate", "joined": "inf"})
    r = check("wh40k10", [inf, cpt], [RED_LINE])
    assert failed(r) == {"wh40k10.infiltrators.eligible"}
    cpt["abilities"].append("Infiltrators")
    assert check("wh40k10", [inf, cpt], [RED_LINE]).legal


@pytest.mark.parametrize(("end_gap", "legal"), [(8.0, False), (8.01, True)])
def test_11th_scout_move_from_the_own_zone(end_gap, legal):
    red = unit("red", [model(30, 27)])
    y_end = 27 - D32 - end_gap
    scouts = unit("sc", [model(30, y_end)], abilities=['Scouts 9"'],
                  setup={"method": "scout", "from": [[30, 12 - R32]]})
    zones = [{"id": "blue-dz", "player": "blue", "polygon": [[0, 0], [60, 0], [60, 12], [0, 12]]},
             {"id": "red-dz", "player": "red", "polygon": [[0, 26], [60, 26], [60, 44], [0, 44]]}]
    r = check("wh40k11", [scouts], [red], zones=zones)
    assert y_end - (12 - R32) <= 9.0
    assert ("wh40k11.scouts.more_than" not in failed(r)) is legal
    assert failed(r) <= {"wh40k11.scouts.more_than"}


# ------------------------------------------------------------------------------ transports and embarking
def _rhino(x=30, y=6):
    return unit("rhino", [{"profile": "sm-rhino", "x": x, "y": y}], keywords=[])


def test_transport_capacity_and_eligibility_from_the_catalogue():
    marines = unit("m", [{"profile": "sm-intercessor"} for _ in range(12)], setup={"method": "embarked", "in": "rhino"})
    assert check("wh40k10", [_rhino(), marines], [RED_LINE]).legal
    marines["models"].append({"profile": "sm-intercessor"})
    assert failed(check("wh40k10", [_rhino(), marines], [RED_LINE])) == {"wh40k10.transport.capacity"}
    necrons = unit("n", [{"profile": "necron-warrior"}], setup={"method": "embarked", "in": "rhino"})
    r = check("wh40k11", [_rhino(), necrons], [RED_LINE])
    assert failed(r) == {"wh40k11.transport.eligible"}


@pytest.mark.parametrize(("gap", "ok"), [(3.0, True), (3.01, False)])
def test_embark_needs_every_model_within_3(gap, ok):
    # the rhino's hull is 3.6" wide: its long side at y = 6 + 1.8
    squad = unit("m", [{"profile": "sm-intercessor", "x": 30, "y": 7.8 + gap + R32}])
    w = world("wh40k11", [_rhino(), squad], [RED_LINE])
    fs = {f.rule: f for f in embark_findings(w, "m", "rhino")}
    assert fs["wh40k11.embark.within"].passed is ok
    assert fs["wh40k11.embark.eligible"].passed and fs["wh40k11.embark.capacity"].passed
    assert fs["wh40k11.embark.not_set_up_this_turn"].passed
    fs = {f.rule: f for f in embark_findings(w, "m", "rhino", set_up_this_turn=True, already_embarked=12)}
    assert not fs["wh40k11.embark.not_set_up_this_turn"].passed
    assert not fs["wh40k11.embark.capacity"].passed
    w10 = world("wh40k10", [_rhino(), squad], [RED_LINE])
    assert "wh40k10.embark.not_set_up_this_turn" not in {f.rule for f in embark_findings(w10, "m", "rhino")}


# ------------------------------------------------------------------------------ reserves
def _arriving(x, y, rnd, arrival="reserves"):
    abilities = ["Deep Strike"] if arrival == "deep_strike" else []  # arriving by Deep Strike needs the ability
    return unit("res", [model(x, y)], abilities=abilities,
                setup={"method": "reserves", "arrival": arrival, "battle_round": rnd})


@pytest.mark.parametrize("ruleset", ["wh40k10", "wh40k11"])
def test_reserves_do_not_arrive_in_round_1(ruleset):
    assert failed(check(ruleset, [_arriving(30, 3, 1)], [RED_LINE])) == {f"{ruleset}.reserves.round"}
    assert check(ruleset, [_arriving(30, 3, 2)], [RED_LINE]).legal


@pytest.mark.parametrize(("y", "legal"), [(6 - R32, True), (6 - R32 + 0.01, False)])
def test_strategic_reserves_wholly_within_6_of_an_edge(y, legal):
    r = check("wh40k11", [_arriving(30, y, 2)], [RED_LINE])
    assert r.legal is legal
    assert check("wh40k11", [_arriving(30, 22, 2, "deep_strike")], [RED_LINE]).legal  # Deep Strike: anywhere


@pytest.mark.parametrize("ruleset", ["wh40k10", "wh40k11"])
def test_strategic_reserves_not_in_the_enemy_zone_before_round_3(ruleset):
    # along the left edge, inside the red zone (y >= 32), far from the red models
    r2 = check(ruleset, [_arriving(3, 33, 2)], [RED_LINE])
    assert failed(r2) == {f"{ruleset}.reserves.enemy_zone"}
    assert check(ruleset, [_arriving(3, 33, 3)], [RED_LINE]).legal


@pytest.mark.parametrize(("ruleset", "share"), [("wh40k10", 0.25), ("wh40k11", 0.50)])
def test_strategic_reserves_points_share(ruleset, share):
    limit = 2000
    at = unit("sr", [model(None, None)], points=int(limit * share), setup="reserves")
    over = unit("sr", [model(None, None)], points=int(limit * share) + 1, setup="reserves")
    assert check(ruleset, [at], [RED_LINE], points_limit=limit).legal
    assert failed(check(ruleset, [over], [RED_LINE], points_limit=limit)) == {f"{ruleset}.reserves.points"}


# ------------------------------------------------------------------------------ attached units
def test_two_leaders_on_one_bodyguard_are_illegal():
    squad = unit("squad", [model(10, 5), model(11.5, 5)])
    a = unit("a", [model(10, 6.7, 40)], abilities=["Leader"], setup={"joined": "squad"})
    b = unit("b", [model(11.7, 6.7, 40)], abilities=["Leader"], setup={"joined": "squad"})
    r = check("wh40k11", [squad, a, b], [RED_LINE])
    assert failed(r) == {"wh40k11.attached.leader"}


def test_leader_set_up_apart_from_its_bodyguard_is_illegal():
    squad = unit("squad", [model(10, 5), model(11.5, 5)])
    a = unit("a", [model(None, None, 40)], abilities=["Leader"], setup={"method": "reserves", "joined": "squad"})
    assert "wh40k10.attached.leader" in failed(check("wh40k10", [squad, a], [RED_LINE]))


# ------------------------------------------------------------------------------ objectives and cover
@pytest.mark.parametrize(("gap", "inside"), [(3.0, True), (3.01, False)])
def test_objective_range_3_inches(gap, inside):
    w = world("wh40k11", [unit("u", [model(30, 22 - R40 - gap - R32)])], [RED_LINE], zones=[])
    t = WH40kTable(w, edition("wh40k11"))
    fp = t.final(w.units["u"]).footprints[0]
    assert in_objective_range(fp, Objective(id="c", x=30, y=22), edition("wh40k11")) is inside


def test_cover_when_not_fully_visible_behind_a_wall():
    wall = {"id": "wall", "kind": "solid", "traits": ["blocks_line_of_sight"],
            "footprint": [[20, 15], [30, 15], [30, 15.5], [20, 15.5]]}
    # the wall covers the left half of the target's base as seen from straight below
    w = world("wh40k11", [unit("shooter", [model(30, 5)])],
              [unit("tank", [model(30, 25)], keywords=["VEHICLE"])], zones=[], terrain=[wall])
    t = WH40kTable(w, edition("wh40k11"))
    assert t.visible(w.units["shooter"], w.units["tank"]).visible
    cover, why = t.has_cover(w.units["tank"], w.units["shooter"])
    assert cover and why == ["1: not fully visible"]
    # moved clear of the wall it is fully visible: no cover for a VEHICLE in the open
    w2 = world("wh40k11", [unit("shooter", [model(30, 5)])],
               [unit("tank", [model(45, 25)], keywords=["VEHICLE"])], zones=[], terrain=[wall])
    t2 = WH40kTable(w2, edition("wh40k11"))
    assert t2.has_cover(w2.units["tank"], w2.units["shooter"])[0] is False


@pytest.mark.parametrize("ruleset", ["wh40k10", "wh40k11"])
def test_reserves_not_arrived_by_the_end_of_round_3_are_destroyed(ruleset):
    assert check(ruleset, [_arriving(30, 3, 3)], [RED_LINE]).legal
    r = check(ruleset, [_arriving(30, 3, 4)], [RED_LINE])
    assert failed(r) == {f"{ruleset}.reserves.round"}
    assert "destroyed" in finding(r, "res", f"{ruleset}.reserves.round").message


def test_11th_within_an_obscuring_area_is_any_part_even_if_the_feature_says_wholly():
    mat = {"id": "mat", "kind": "area", "traits": ["obscuring"], "standing_in": "wholly",
           "footprint": [[0, 18], [60, 18], [60, 24], [0, 24]]}
    w = world("wh40k11", [unit("s", [model(30, 6)])], [unit("t", [model(30, 24 + R32 - 0.01)])], zones=[],
              terrain=[mat])
    assert WH40kTable(w, edition("wh40k11")).visible(w.units["s"], w.units["t"]).visible


def test_no_fortifications_in_strategic_reserves_in_10th():
    fort = unit("fort", [model(None, None, 100)], keywords=["FORTIFICATION"], setup="reserves")
    assert failed(check("wh40k10", [fort], [RED_LINE])) == {"wh40k10.reserves.fortification"}
    assert check("wh40k11", [fort], [RED_LINE]).legal  # no such restriction in the 11th sources reached
