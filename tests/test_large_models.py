"""11th-edition large models from Strategic Reserves (issue #19 item 3, 11E-CORE-A 03.02, RULES.md
§3.4): a model too large to fit wholly within 6" of an edge may be set up touching the edge
(still more than 8" from enemy units); rule ``wh40k11.reserves.large_model_edge``."""

from __future__ import annotations

import pytest

from planner.geometry.shapes import footprint
from planner.legality.checker import check_deployment
from planner.legality.checks.placement import minimum_width, too_large_for_edge
from planner.schema import HullBase, OvalBase, RoundBase, Scenario
from planner.world import resolve

MM = 1 / 25.4


def _scenario(ruleset: str, diameter_mm: float, y: float, enemy_y: float = 40.0) -> dict:
    return {
        "ruleset": ruleset, "battlefield": {"width": 60, "depth": 44},
        "deployment_zones": [{"id": "a", "player": "red", "polygon": [[0, 0], [60, 0], [60, 12], [0, 12]]},
                             {"id": "b", "player": "blue", "polygon": [[0, 32], [60, 32], [60, 44], [0, 44]]}],
        "armies": [
            {"player": "red", "units": [{"id": "big", "keywords": ["MONSTER"],
                                         "setup": {"method": "reserves", "battle_round": 2},
                                         "models": [{"base": {"diameter_mm": diameter_mm}, "x": 30, "y": y}]}]},
            {"player": "blue", "units": [{"id": "foe", "keywords": ["INFANTRY"],
                                          "models": [{"base": {"diameter_mm": 32}, "x": 30, "y": enemy_y}]}]}],
    }


def _report(data: dict):
    return check_deployment(resolve(Scenario.model_validate(data), "l.yaml", require_positions=True))


def _rules(report, rule: str):
    return [f for u in report.units if u.unit == "big" for f in u.findings if f.rule == rule]


@pytest.mark.parametrize("lift, legal", [(0.0, True), (0.01, False)])
def test_11th_too_large_model_touching_the_edge(lift, legal):
    r = 170 * MM / 2  # 170 mm base: 6.69" wide, too large for 6"
    rep = _report(_scenario("wh40k11", 170, r + lift))
    (f,) = _rules(rep, "wh40k11.reserves.large_model_edge")
    assert f.passed is legal and f.measured == pytest.approx(lift, abs=1e-9)
    assert _rules(rep, "wh40k11.reserves.edge") == []  # the large model is judged by the exception only
    assert rep.legal is legal, [v.message for v in rep.violations]


def test_11th_large_model_still_more_than_8_from_enemies():
    r = 170 * MM / 2
    rep = _report(_scenario("wh40k11", 170, r, enemy_y=2 * r + 8.0 + 32 * MM / 2))  # exactly 8" apart
    (f,) = _rules(rep, "wh40k11.deepstrike.distance")
    assert not f.passed and f.measured == pytest.approx(8.0, abs=1e-9)
    assert _rules(rep, "wh40k11.reserves.large_model_edge")[0].passed and not rep.legal


def test_a_model_that_fits_keeps_the_normal_rule():
    r = 150 * MM / 2  # 5.9" wide: it fits wholly within 6"
    rep = _report(_scenario("wh40k11", 150, 6.0 - r + 0.01))
    assert _rules(rep, "wh40k11.reserves.large_model_edge") == []
    (f,) = _rules(rep, "wh40k11.reserves.edge")
    assert not f.passed


def test_10th_edition_has_no_such_exception():
    r = 170 * MM / 2
    rep = _report(_scenario("wh40k10", 170, r))
    assert _rules(rep, "wh40k10.reserves.large_model_edge") == []
    (f,) = _rules(rep, "wh40k10.reserves.edge")
    assert not f.passed  # 6.69" deep: not wholly within 6"


def test_minimum_width_of_shapes():
    assert minimum_width(footprint(RoundBase(diameter_mm=50.8), 0, 0, 0)) == pytest.approx(2.0)
    assert minimum_width(footprint(OvalBase(length_mm=170, width_mm=105), 0, 0, 33)) == pytest.approx(105 * MM)
    hull = footprint(HullBase(length_in=7.0, width_in=6.5), 10, 10, 30)
    assert minimum_width(hull) == pytest.approx(6.5)
    assert too_large_for_edge(hull, 6.0) and not too_large_for_edge(footprint(HullBase(length_in=9, width_in=6.0),
                                                                                0, 0, 0), 6.0)
