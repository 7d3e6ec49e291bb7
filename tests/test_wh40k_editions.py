"""Switching a scenario between wh40k10 and wh40k11 changes exactly the verdicts the rules predict.

One scenario (Dawn of War, 12"-deep zones, 60" x 44") holds one unit per rule that differs
between the editions (RULES.md §3.1), each placed so that it is legal in one edition and not in
the other, plus a red Infiltrator that breaks the rules in both. The test lists every verdict
that changes and asserts that nothing else does.
"""

from __future__ import annotations

import pytest

from planner.legality.checker import check_deployment
from tests.wh40k_helpers import R32, model, unit, world

RED_Y = 40.0

BLUE = [
    # 8.5" from the red zone: more than 8" (11th) but not more than 9" (10th)
    unit("b-inf85", [model(5, 32 - 8.5 - R32)], abilities=["Infiltrators"], setup="infiltrate"),
    # 7 models in a line: the ends have one model within 2" (10th: 7+ models need two); 11th: all within 9"
    unit("b-line7", [model(2 + 1.7 * i, 3) for i in range(7)]),  # ends: 2nd model 2.14", far end 8.94"
    # two pairs 12" apart: each model within 2" of another (10th), not within 9" of all (11th)
    unit("b-clumps", [model(20, 3), model(21.5, 3), model(33.5, 3), model(35, 3)]),
    # Infiltrators then a 9" Scouts move ending 8.5" from a red model: 10th needs more than 9";
    # 11th needs the move to start wholly within the own deployment zone
    unit("b-scout", [model(50, 40 - 8.5 - 2 * R32)], abilities=["Infiltrators", 'Scouts 9"'],
         setup={"method": "scout", "first": "infiltrate", "from": [[50, 21.5]]}),
    # a red Infiltrator 1.5" away: outside 1" Engagement Range (10th), inside 2" (11th)
    unit("b-eng", [model(40, 10)]),
    # 30% of the points limit in Strategic Reserves: over 25% (10th), under 50% (11th)
    unit("b-reserve", [model(None, None)], points=300, setup="reserves"),
    # arriving by Deep Strike in round 2, 8.5" from a red model: more than 8", not more than 9"
    unit("b-ds", [model(20, RED_Y - 8.5 - 2 * R32)], abilities=["Deep Strike"],
         setup={"method": "reserves", "arrival": "deep_strike", "battle_round": 2}),
    # a Leader and a Support attached to one Bodyguard: Support attachments exist in 11th only
    unit("b-host", [model(48 + 1.5 * i, 5) for i in range(3)]),
    unit("b-leader", [model(49.5, 6.7, 40)], keywords=["INFANTRY", "CHARACTER"], abilities=["Leader"],
         setup={"joined": "b-host"}),
    unit("b-support", [model(51.2, 6.7, 40)], keywords=["INFANTRY", "CHARACTER"], abilities=["Support"],
         setup={"joined": "b-host"}),
]
RED = [
    unit("r-line", [model(20 + 2 * i, RED_Y) for i in range(5)]),
    unit("r-target", [model(50, RED_Y)]),
    # breaks the Infiltrators distances in both editions (and is 1.5" from b-eng)
    unit("r-inf", [model(40, 10 + 2 * R32 + 1.5)], abilities=["Infiltrators"], setup="infiltrate"),
    # a FRAME model on a round base: 11th measures FRAME models to the hull
    unit("r-tank", [model(10, 38, 100)], keywords=["VEHICLE", "FRAME"]),
]

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


def _broken(ruleset: str) -> set[tuple[str, str]]:
    r = check_deployment(world(ruleset, BLUE, RED, points_limit=1000))
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
    r = check_deployment(world(ruleset, BLUE, RED, points_limit=1000))
    checked = {(u.unit, f.rule[len(ruleset) + 1:]) for u in r.units for f in u.findings}
    checked |= {(v.unit, v.rule[len(ruleset) + 1:]) for v in r.violations}
    expected = EXPECTED_ONLY_10 | EXPECTED_ONLY_11 | EXPECTED_BOTH
    if ruleset == "wh40k10":
        expected = {e for e in expected if e[1] != "frame"}  # no FRAME rule in 10th
    assert expected <= checked
