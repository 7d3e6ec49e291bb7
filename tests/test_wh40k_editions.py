"""Switching a scenario between wh40k10 and wh40k11 changes exactly the verdicts the rules predict.

The bundled scenario ``scenarios/wh40k-edition-switch.yaml`` (Dawn of War, 12"-deep zones,
60" x 44") holds one unit per rule that differs between the editions (RULES.md §3.1), each placed
so that it is legal in one edition and not in the other, plus a red Infiltrator that breaks the
rules in both. The test lists every verdict that changes and asserts that nothing else does.

Where each unit stands (R = 16/25.4", a 32 mm base's radius):

- b-inf85: Infiltrators 8.5" from the red zone (more than 8", not more than 9");
- b-line7: 7 models in a line 1.7" apart: an end's second model is 2.14" away (10th: units of 7+
  need two models within 2"), the far end 8.94" (11th: within 9" of every model);
- b-clumps: two pairs 12" apart: each model within 2" of another (10th), not within 9" of all (11th);
- b-scout: Infiltrators, then a 9" Scouts move ending 8.5" from r-target; 11th: the move must
  start wholly within the own zone;
- b-eng / r-inf: 1.5" apart: outside 1" Engagement Range (10th), within 2" (11th);
- b-reserve: 300 of 1000 points in Strategic Reserves (over 25%, under 50%);
- b-ds: arrives by Deep Strike in round 2, 8.5" from r-line;
- b-host with b-leader (Leader) and b-support (Support): Support attachments exist in 11th only;
- r-tank: a FRAME model on a round base (11th measures FRAME models to the hull).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.legality.checker import check_deployment
from planner.world import load_scenario, resolve

SCENARIO = Path(__file__).resolve().parents[1] / "scenarios" / "wh40k-edition-switch.yaml"


EXPECTED_ONLY_10 = {
    ("b-inf85", "infiltrators.zone_distance"),
    ("b-line7", "coherency"),
    ("b-scout", "scouts.more_than"),
    ("b-reserve", "reserves.points"),
    ("b-ds", "deepstrike.distance"),
    ("b-support", "attached.leader"),
}
EXPECTED_ONLY_11 = {
    ("b-clumps", "coherency"),
    ("b-scout", "scouts.first_position"),
    ("b-eng", "engagement"),
    ("r-inf", "engagement"),
    ("r-tank", "frame"),
}
EXPECTED_BOTH = {
    ("r-inf", "infiltrators.distance"),
    ("r-inf", "infiltrators.zone_distance"),
}


def _report(ruleset: str):
    world = load_scenario(SCENARIO, require_positions=True)
    assert world.scenario.ruleset == "wh40k10"
    return check_deployment(resolve(world.scenario.model_copy(update={"ruleset": ruleset}), str(SCENARIO),
                                    require_positions=True))


def _broken(ruleset: str) -> set[tuple[str, str]]:
    r = _report(ruleset)
    prefix = ruleset + "."
    assert all(v.rule.startswith(prefix) for v in r.violations)
    return {(v.unit, v.rule[len(prefix):]) for v in r.violations}


def test_switching_the_edition_changes_exactly_the_predicted_verdicts():
    v10, v11 = _broken("wh40k10"), _broken("wh40k11")
    assert v10 & v11 == EXPECTED_BOTH
    assert v10 - v11 == EXPECTED_ONLY_10
    assert v11 - v10 == EXPECTED_ONLY_11


@pytest.mark.parametrize("ruleset", ["wh40k10", "wh40k11"])
def test_every_predicted_unit_is_checked_for_its_rule(ruleset):
    r = _report(ruleset)
    checked = {(u.unit, f.rule[len(ruleset) + 1:]) for u in r.units for f in u.findings}
    checked |= {(v.unit, v.rule[len(ruleset) + 1:]) for v in r.violations}
    expected = EXPECTED_ONLY_10 | EXPECTED_ONLY_11 | EXPECTED_BOTH
    if ruleset == "wh40k10":
        expected = {e for e in expected if e[1] != "frame"}  # no FRAME rule in 10th
    assert expected <= checked
