"""40k planner goals: objective control (models in range, 3") and benefit of cover."""

from __future__ import annotations

import pytest

from planner.errors import ScenarioError
from planner.legality.wh40k import WH40kTable, edition, in_objective_range
from planner.schema import Scenario
from planner.solve.planner import SolverSettings, plan_deployment
from planner.testing import assert_plan_legal
from planner.world import resolve
from tests.wh40k_helpers import dawn_of_war, model, unit

SETTINGS = SolverSettings(time_limit_s=20, workers=1, seed=0, grid_in=1.0, candidates_per_unit=250)
WARRIORS = unit("warriors", [model(26 + 2 * i, 39) for i in range(5)], keywords=["INFANTRY", "NECRONS"])
RUIN = {"id": "ruin", "name": "ruined hab", "kind": "area", "traits": ["obscuring"],
        "footprint": [[33, 15], [40, 15], [40, 21], [33, 21]]}


def _data(ruleset, goals, *, terrain=(), objectives=()):
    inf = unit("inf", [model(None, None) for _ in range(5)], keywords=["INFANTRY", "IMPERIUM"],
               abilities=["Infiltrators"], setup="infiltrate", place=True)
    return {"ruleset": ruleset, "battlefield": {"width": 60, "depth": 44}, "deployment_zones": dawn_of_war(12),
            "terrain": list(terrain), "objectives": list(objectives), "goals": list(goals),
            "armies": [{"player": "blue", "units": [inf]}, {"player": "red", "units": [WARRIORS]}]}


def _plan(data):
    result = plan_deployment(resolve(Scenario.model_validate(data)), SETTINGS)
    assert result.status in ("optimal", "feasible"), result.message
    assert_plan_legal(result)
    return resolve(result.scenario, require_positions=True)


@pytest.mark.parametrize("ruleset", ["wh40k10", "wh40k11"])
def test_objective_goal_puts_every_model_in_range(ruleset):
    # an objective whose range crosses the Infiltrators' 9"/8" line, and a second goal point that
    # pulls the unit away from it: the objective goal keeps every model in range
    obj = {"id": "obj", "x": 30, "y": 24}
    R = edition(ruleset)

    def in_range(goals):
        w = _plan(_data(ruleset, goals, objectives=[obj]))
        o = w.scenario.objectives[0]
        return [in_objective_range(f, o, R) for f in WH40kTable(w, R).final(w.units["inf"]).footprints]

    pull = {"kind": "near_point", "x": 30, "y": 12}
    assert all(in_range([pull, {"kind": "objective", "objective": "obj"}]))
    # the same pull towards the same mean point (30, 18) without the objective goal: not all in range
    assert not all(in_range([{"kind": "near_point", "x": 30, "y": 18, "weight": 2}]))


def test_cover_goal_moves_infantry_into_a_terrain_area_in_11th():
    near = [{"kind": "near_point", "x": 30, "y": 22}]
    cover = near + [{"kind": "cover", "against": "warriors"}]
    plain = _plan(_data("wh40k11", near, terrain=[RUIN]))
    t = WH40kTable(plain, edition("wh40k11"))
    assert not t.has_cover(plain.units["inf"], plain.units["warriors"])[0]
    covered = _plan(_data("wh40k11", cover, terrain=[RUIN]))
    t = WH40kTable(covered, edition("wh40k11"))
    ok, why = t.has_cover(covered.units["inf"], covered.units["warriors"])
    assert ok, why
    assert all("within terrain area ruin" in r for r in why)


def test_cover_in_10th_needs_ruins_wholly_within_or_hidden():
    ruin10 = {**RUIN, "traits": ["blocks_line_of_sight"], "standing_in": "wholly"}
    cover = [{"kind": "near_point", "x": 30, "y": 22}, {"kind": "cover", "against": "warriors"}]
    w = _plan(_data("wh40k10", cover, terrain=[ruin10]))
    t = WH40kTable(w, edition("wh40k10"))
    ok, why = t.has_cover(w.units["inf"], w.units["warriors"])
    assert ok, why


def test_goal_references_are_checked():
    with pytest.raises(ScenarioError, match="no objective with this id"):
        resolve(Scenario.model_validate(_data("wh40k10", [{"kind": "objective", "objective": "nope"}])))
    with pytest.raises(ScenarioError, match="no unit with this id"):
        resolve(Scenario.model_validate(_data("wh40k10", [{"kind": "cover", "against": "nope"}])))
    data = _data("wh40k10", [{"kind": "cover", "against": "warriors"}])
    data["ruleset"] = "hh2"
    data["armies"][0]["units"][0]["type"] = "Infantry"
    data["armies"][1]["units"][0]["type"] = "Infantry"
    with pytest.raises(ScenarioError, match="40k rulesets"):
        resolve(Scenario.model_validate(data))
