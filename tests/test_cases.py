"""Acceptance cases 1, 3, 4 and 6 of the handed CASES.md (HH2), re-stated here as in-memory scenarios.

Each test asserts the verdict and the rule id of every violation. Exact values, not rounded radii:
a 32 mm base has radius 16/25.4", a 25 mm base 12.5/25.4".
"""

from __future__ import annotations

import pytest

from planner.legality.checker import check_deployment
from planner.legality.report import LegalityReport
from planner.schema import Scenario
from planner.world import resolve

R32 = 16 / 25.4
R25 = 12.5 / 25.4

WALL = {
    "id": "wall",
    "name": "Bastion wall",
    "footprint": [[28, 14.5], [44, 14.5], [44, 15.5], [28, 15.5]],
    "kind": "solid",
    "traits": ["blocks_line_of_sight"],
}

ZONES = [
    {"id": "blue-dz", "player": "blue", "polygon": [[0, 0], [72, 0], [72, 12], [0, 12]]},
    {"id": "red-dz", "player": "red", "polygon": [[0, 36], [72, 36], [72, 48], [0, 48]]},
]


def _model(x, y, diameter=32, **extra):
    return {"base": {"diameter_mm": diameter}, "x": x, "y": y, **extra}


def _unit(uid, models, *, type="Infantry", rules=(), setup=None, **extra):
    u = {"id": uid, "type": type, "rules": list(rules), "models": models, **extra}
    if setup is not None:
        u["setup"] = setup
    return u


def _check(red_units, blue_units, *, terrain=(), zones=ZONES) -> LegalityReport:
    data = {
        "ruleset": "hh2",
        "battlefield": {"width": 72, "depth": 48},
        "terrain": list(terrain),
        "deployment_zones": list(zones),
        "armies": [
            {"player": "red", "units": list(red_units)},
            {"player": "blue", "units": list(blue_units)},
        ],
    }
    world = resolve(Scenario.model_validate(data), require_positions=True)
    return check_deployment(world)


def _violations(report: LegalityReport, unit: str | None = None) -> set[str]:
    return {v.rule for v in report.violations if unit is None or v.unit == unit}


def _finding(report: LegalityReport, unit: str, rule: str):
    (u,) = [u for u in report.units if u.unit == unit]
    found = [f for f in u.findings if f.rule == rule]
    assert found, f"no {rule} finding for {unit}: {[f.rule for f in u.findings]}"
    return found[0]


def _assert_consistent(report: LegalityReport) -> None:
    assert report.legal == (not report.violations)
    for u in report.units:
        assert u.legal == all(f.passed for f in u.findings)


# ----------------------------------------------------------------------------- case 1: exactly 9.0"

ENEMY_TAC = _unit("tacticals", [_model(36, 10, 32)])
Y_EXACT_9 = 10 + 16 / 25.4 + 9 + 12.5 / 25.4  # 20.12205...


def _infiltrator(y, **setup):
    return _unit("infiltrators", [_model(36, y, 25)], rules=["Infiltrate"], setup={"method": "infiltrate", **setup})


def test_case1_exactly_9_inches_is_illegal_even_hidden():
    report = _check([_infiltrator(Y_EXACT_9)], [ENEMY_TAC], terrain=[WALL])
    _assert_consistent(report)
    assert not report.legal
    assert _violations(report) == {"hh2.infiltrate.distance"}
    (v,) = report.violations
    assert v.unit == "infiltrators"
    assert v.measured == pytest.approx(9.0, abs=1e-9)
    f = _finding(report, "infiltrators", "hh2.infiltrate.distance")
    assert f.evidence.nearest_enemy_unit == "tacticals"


def test_case1_just_inside_the_tolerance_is_still_9():
    report = _check([_infiltrator(Y_EXACT_9 + 5e-7)], [ENEMY_TAC], terrain=[WALL])
    assert _violations(report) == {"hh2.infiltrate.distance"}


def test_case1_at_9_00995_hidden_is_legal():
    report = _check([_infiltrator(20.132)], [ENEMY_TAC], terrain=[WALL])
    _assert_consistent(report)
    assert report.legal, [v.message for v in report.violations]
    f = _finding(report, "infiltrators", "hh2.infiltrate.distance")
    assert f.passed
    assert f.measured == pytest.approx(20.132 - 10 - R32 - R25, abs=1e-9)
    assert f.measured == pytest.approx(9.00995, abs=1e-5)
    hidden = _finding(report, "infiltrators", "hh2.infiltrate.hidden")
    assert hidden.passed
    assert hidden.evidence.blocking_features == ["wall"]
    assert hidden.evidence.observer_units == ["tacticals"]


def test_case1_at_9_00995_in_sight_is_illegal():
    report = _check([_infiltrator(20.132)], [ENEMY_TAC])
    _assert_consistent(report)
    assert not report.legal
    assert _violations(report) == {"hh2.infiltrate.hidden"}
    f = _finding(report, "infiltrators", "hh2.infiltrate.hidden")
    assert f.evidence.seen_by == "tacticals/1"
    assert f.evidence.sight_line is not None


def test_case1_more_than_12_needs_no_cover():
    y = 10 + R32 + 12 + R25
    assert _violations(_check([_infiltrator(y)], [ENEMY_TAC])) == {"hh2.infiltrate.hidden"}  # exactly 12": hidden needed
    report = _check([_infiltrator(y + 0.01)], [ENEMY_TAC])
    assert report.legal, [v.message for v in report.violations]
    assert _finding(report, "infiltrators", "hh2.infiltrate.distance").measured == pytest.approx(12.01, abs=1e-9)


def test_case1_wall_with_a_gap_does_not_hide():
    # the same wall with a 0.2" slot right between the two models: sight through the slot
    left = dict(WALL, id="wall-left", footprint=[[28, 14.5], [35.9, 14.5], [35.9, 15.5], [28, 15.5]])
    right = dict(WALL, id="wall-right", footprint=[[36.1, 14.5], [44, 14.5], [44, 15.5], [36.1, 15.5]])
    report = _check([_infiltrator(20.132)], [ENEMY_TAC], terrain=[left, right])
    assert _violations(report) == {"hh2.infiltrate.hidden"}


# ----------------------------------------------------------------------------- case 3: deployed observers only

# our infiltrator (red) is 9.878" from the blue tacticals, hidden from them by the wall; a second
# blue unit B at (60, 17) has a clear view of it but is 24" - radii away (more than 12").
Y_OURS = 17.0
TAC_LOW = _unit("tacticals", [_model(36, 6, 32)])
WALL_LOW = dict(WALL, footprint=[[28, 11], [44, 11], [44, 12], [28, 12]])


def _ours(order=None):
    setup = {"method": "infiltrate"}
    if order is not None:
        setup["order"] = order
    return _unit("ours", [_model(36, Y_OURS, 25)], rules=["Infiltrate"], setup=setup)


def _b(setup):
    return _unit("b", [_model(60, Y_OURS, 25)], rules=["Infiltrate"], setup=setup)


def test_case3_baseline_hidden_from_the_deployed_unit():
    report = _check([_ours()], [TAC_LOW], terrain=[WALL_LOW])
    _assert_consistent(report)
    assert report.legal, [v.message for v in report.violations]
    d = _finding(report, "ours", "hh2.infiltrate.distance").measured
    assert d == pytest.approx(11 - R32 - R25, abs=1e-9)
    assert 9 < d < 12


def test_case3_enemy_in_reserves_is_not_an_observer():
    report = _check([_ours()], [TAC_LOW, _b("reserves")], terrain=[WALL_LOW])
    _assert_consistent(report)
    assert report.legal, [v.message for v in report.violations]
    hidden = _finding(report, "ours", "hh2.infiltrate.hidden")
    assert hidden.evidence.observer_units == ["tacticals"]


def test_case3_enemy_infiltrator_placed_later_is_not_an_observer():
    report = _check([_ours(order=1)], [TAC_LOW, _b({"method": "infiltrate", "order": 2})], terrain=[WALL_LOW])
    _assert_consistent(report)
    assert report.legal, [v.message for v in report.violations]
    assert _finding(report, "ours", "hh2.infiltrate.hidden").evidence.observer_units == ["tacticals"]
    # B itself is checked against us: more than 12" away, so plain sight is allowed
    b_dist = _finding(report, "b", "hh2.infiltrate.distance")
    assert b_dist.passed
    assert b_dist.measured == pytest.approx(24 - 2 * R25, abs=1e-9)


def test_case3_enemy_infiltrator_placed_later_must_itself_keep_away():
    # B placed later but within 12" of us and in plain sight: B is illegal, we are not
    b_close = _unit("b", [_model(47, Y_OURS, 25)], rules=["Infiltrate"], setup={"method": "infiltrate", "order": 2})
    report = _check([_ours(order=1)], [TAC_LOW, b_close], terrain=[WALL_LOW])
    _assert_consistent(report)
    assert _violations(report, "ours") == set()
    assert _violations(report, "b") == {"hh2.infiltrate.hidden"}
    assert _finding(report, "b", "hh2.infiltrate.hidden").evidence.seen_by == "ours/1"


def test_case3_enemy_infiltrator_placed_earlier_is_an_observer():
    report = _check([_ours(order=2)], [TAC_LOW, _b({"method": "infiltrate", "order": 1})], terrain=[WALL_LOW])
    _assert_consistent(report)
    assert _violations(report) == {"hh2.infiltrate.hidden"}
    (v,) = report.violations
    assert v.unit == "ours"
    f = _finding(report, "ours", "hh2.infiltrate.hidden")
    assert f.evidence.seen_by == "b/1"


def test_case3_enemy_infiltrator_without_order_counts_as_deployed():
    report = _check([_ours(order=2)], [TAC_LOW, _b("infiltrate")], terrain=[WALL_LOW])
    assert _violations(report) == {"hh2.infiltrate.hidden"}
    assert _finding(report, "ours", "hh2.infiltrate.hidden").evidence.seen_by == "b/1"


def test_case3_enemy_deployed_normally_is_an_observer():
    b_zone = _unit("b", [_model(60, 8, 32)])  # in blue's zone, clear view up to y = 17
    report = _check([_ours(order=1)], [TAC_LOW, b_zone], terrain=[WALL_LOW])
    assert _violations(report) == {"hh2.infiltrate.hidden"}
    assert _finding(report, "ours", "hh2.infiltrate.hidden").evidence.seen_by == "b/1"


# ----------------------------------------------------------------------------- case 4: ICs and Infiltrate

RECON = [_model(50, 30, 32, id=f"r{i}") for i in range(3)]
for _i, _m in enumerate(RECON):
    _m["x"] = 50 + 1.5 * _i  # centres 1.5" apart: 0.24" between bases


def _recon(method="infiltrate", rules=("Infiltrate",)):
    return _unit("recon", [dict(m) for m in RECON], rules=rules, setup={"method": method})


def _praetor(method="infiltrate", rules=("Independent Character",), joined="recon"):
    # 1.5" from the last recon model's centre: 0.24" base to base, in coherency
    return _unit("praetor", [_model(54.5, 30, 32)], rules=rules, subtypes=["Character"],
                 setup={"method": method, "joined": joined})


def test_case4_ic_without_infiltrate_cannot_join_infiltrators():
    report = _check([_recon(), _praetor()], [ENEMY_TAC])
    _assert_consistent(report)
    assert not report.legal
    assert "hh2.ic.infiltrate" in _violations(report, "praetor")
    # nothing else about the join is wrong: it is an IC, Infantry into Infantry, in coherency
    assert _violations(report, "praetor") <= {"hh2.ic.infiltrate", "hh2.infiltrate.eligible"}
    assert _finding(report, "praetor", "hh2.ic.coherency").passed
    assert _finding(report, "praetor", "hh2.ic.unit_type").passed
    assert _violations(report, "recon") == set()


def test_case4_ic_with_infiltrate_cannot_join_a_unit_without_it():
    tacs = _unit("squad", [_model(30 + 1.5 * i, 40, 32, id=f"s{i}") for i in range(3)])
    ic = _unit("praetor", [_model(34.5, 40, 32)], rules=["Independent Character", "Infiltrate"],
               setup={"method": "deployment_zone", "joined": "squad"})
    report = _check([tacs, ic], [ENEMY_TAC])
    _assert_consistent(report)
    assert _violations(report) == {"hh2.ic.infiltrate"}
    (v,) = report.violations
    assert v.unit == "praetor"


def test_case4_matching_joins_are_legal():
    # IC with Infiltrate joining Infiltrators
    report = _check([_recon(), _praetor(rules=("Independent Character", "Infiltrate"))], [ENEMY_TAC])
    _assert_consistent(report)
    assert report.legal, [v.message for v in report.violations]
    assert _finding(report, "praetor", "hh2.ic.infiltrate").passed
    # IC without Infiltrate joining a squad without it, both in the deployment zone
    squad = _unit("squad", [_model(30 + 1.5 * i, 40, 32, id=f"s{i}") for i in range(3)])
    ic = _unit("praetor", [_model(34.5, 40, 32)], rules=["Independent Character"],
               setup={"method": "deployment_zone", "joined": "squad"})
    report = _check([squad, ic], [ENEMY_TAC])
    assert report.legal, [v.message for v in report.violations]


def test_case4_ic_out_of_coherency_with_its_unit():
    ic = _praetor(rules=("Independent Character", "Infiltrate"))
    ic["models"][0]["x"] = 53 + 2 * R32 + 2.01  # 2.01" from the last recon model
    report = _check([_recon(), ic], [ENEMY_TAC])
    assert _violations(report, "praetor") == {"hh2.ic.coherency"}
    assert _finding(report, "praetor", "hh2.ic.coherency").measured == pytest.approx(2.01, abs=1e-9)


# ----------------------------------------------------------------------------- case 6: Scout


SCOUT_ZONES = [
    {"id": "red-dz", "player": "red", "polygon": [[0, 0], [72, 0], [72, 20], [0, 20]]},
    {"id": "blue-dz", "player": "blue", "polygon": [[0, 28], [72, 28], [72, 48], [0, 48]]},
]
ENEMY_AT_30 = _unit("enemy", [_model(36, 30, 32)])


def _scout(frm, to, *, diameter=25, type="Infantry", subtypes=(), base=None, facing=0.0):
    m = _model(to[0], to[1], diameter, facing=facing)
    if base is not None:
        m["base"] = base
    return _unit("scouts", [m], type=type, subtypes=list(subtypes), rules=["Scout"],
                 setup={"method": "scout", "from": [list(frm)]})


def test_case6_scout_move_into_9_inches_is_illegal():
    report = _check([_scout((36, 18), (36, 20.5))], [ENEMY_AT_30], zones=SCOUT_ZONES)
    _assert_consistent(report)
    assert _violations(report) == {"hh2.scout.more_than_9"}
    (v,) = report.violations
    assert v.unit == "scouts"
    assert v.measured == pytest.approx(8.378, abs=1e-3)
    assert v.measured == pytest.approx(30 - 20.5 - R32 - R25, abs=1e-9)
    assert _finding(report, "scouts", "hh2.scout.distance").passed
    assert _finding(report, "scouts", "hh2.scout.first_position").passed


def test_case6_scout_ending_exactly_9_is_illegal_and_just_beyond_is_legal():
    y9 = 30 - R32 - 9 - R25
    report = _check([_scout((36, 18), (36, y9))], [ENEMY_AT_30], zones=SCOUT_ZONES)
    assert _violations(report) == {"hh2.scout.more_than_9"}
    report = _check([_scout((36, 18), (36, y9 - 0.01))], [ENEMY_AT_30], zones=SCOUT_ZONES)
    assert report.legal, [v.message for v in report.violations]
    assert _finding(report, "scouts", "hh2.scout.more_than_9").measured == pytest.approx(9.01, abs=1e-9)


def test_case6_infantry_6_5_inch_move_is_illegal():
    report = _check([_scout((20, 10), (26.5, 10))], [ENEMY_AT_30], zones=SCOUT_ZONES)
    _assert_consistent(report)
    assert _violations(report) == {"hh2.scout.distance"}
    f = _finding(report, "scouts", "hh2.scout.distance")
    assert f.measured == pytest.approx(6.5, abs=1e-9)
    assert f.margin == pytest.approx(-0.5, abs=1e-9)


def test_case6_infantry_exactly_6_inch_move_is_legal():
    report = _check([_scout((20, 10), (23.6, 14.8))], [ENEMY_AT_30], zones=SCOUT_ZONES)  # 3-4-5 diagonal
    assert report.legal, [v.message for v in report.violations]
    assert _finding(report, "scouts", "hh2.scout.distance").measured == pytest.approx(6.0, abs=1e-9)


def test_case6_land_speeder_may_move_up_to_12():
    speeder = {"shape": "round", "diameter_mm": 60}
    report = _check([_scout((10, 10), (21.9, 10), type="Cavalry", subtypes=["Antigrav"], base=speeder)],
                    [ENEMY_AT_30], zones=SCOUT_ZONES)
    _assert_consistent(report)
    assert report.legal, [v.message for v in report.violations]
    f = _finding(report, "scouts", "hh2.scout.distance")
    assert f.passed and f.measured == pytest.approx(11.9, abs=1e-9)
    assert "12" in f.required
    # 12.5" is too far even for Cavalry
    report = _check([_scout((10, 10), (22.5, 10), type="Cavalry", subtypes=["Antigrav"], base=speeder)],
                    [ENEMY_AT_30], zones=SCOUT_ZONES)
    assert _violations(report) == {"hh2.scout.distance"}


def test_case6_oval_cavalry_turning_is_measured_from_where_it_stood():
    # "entirely within 12\" of its current position": every part of the base at its new place lies
    # within 12" of the base where it stood; turning does not add the swing of its ends
    oval = {"shape": "oval", "length_mm": 75, "width_mm": 42}
    unit = _scout((10, 10), (21.9, 10), type="Cavalry", base=oval, facing=90.0)
    unit["setup"]["from"] = [[10, 10, 0.0]]
    report = _check([unit], [ENEMY_AT_30], zones=SCOUT_ZONES)
    assert report.legal, [v.message for v in report.violations]
    (dist,) = [f for u in report.units for f in u.findings if f.rule == "hh2.scout.distance"]
    # the new side point (21.9 + 21/25.4, 10) is farthest: 11.9 + (21 - 37.5) / 25.4 from the old tip
    assert dist.measured == pytest.approx(11.9 + (21 - 37.5) / 25.4, abs=1e-6)
    unit = _scout((10, 10), (23.0, 10), type="Cavalry", base=oval, facing=90.0)
    unit["setup"]["from"] = [[10, 10, 0.0]]
    report = _check([unit], [ENEMY_AT_30], zones=SCOUT_ZONES)
    assert _violations(report) == {"hh2.scout.distance"}


def test_case6_artillery_subtype_takes_the_6_inch_limit():
    report = _check([_scout((10, 10), (17, 10), type="Cavalry", subtypes=["Artillery"])], [ENEMY_AT_30],
                    zones=SCOUT_ZONES)
    assert _violations(report) == {"hh2.scout.distance"}
