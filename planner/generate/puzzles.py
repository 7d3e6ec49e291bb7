"""Placement puzzles: "place this unit as near this point as you can", with the planner's answer.

A base scene (hh2) gets one more unit of the blue player, ``place: true`` with no positions, set
up by Infiltrate or in the deployment zone (a fair coin), and a ``near_point`` goal drawn on the
battlefield (Infiltrate) or in the blue zone. The label holds what
:func:`planner.solve.planner.plan_deployment` answers (status, objective in inches, the model
positions) and whether that optimum is *unique* over the planner's candidate placements: every
candidate of the unit's stream that could cost as little (candidates are visited nearest the goal
first; a candidate at anchor distance ``d`` costs at least ``n * d - S``, ``S`` the largest sum of
model offsets of a formation) is costed, and the ties at the objective (to the planner's integer
scale, 1/``COST_SCALE`` inch) are counted.

Both are claims about the candidate grid, and the label's fields say so: ``optimal_on_grid``
(CP-SAT proved no better answer among the candidate placements, formations on the ``grid_in``
grid keeping the planner's ``margin_in`` margin on "more than" distances) and ``unique_on_grid``.
Neither is a claim about every legal placement: one off the grid may be nearer the goal (the
labels before had ``optimal``/``unique``, which read as that claim and are gone).

Determinism: CP-SAT runs with one worker and a fixed seed; a puzzle solved to optimality within
``puzzle_time_limit_s`` gives the same answer every run (the planner breaks cost ties by candidate
order). A puzzle stopped by the time limit (status ``feasible``/``unknown``) may differ between runs
on a loaded machine; the label says which.
"""

from __future__ import annotations

import numpy as np

from planner.generate.distributions import GeneratorParams
from planner.generate.scene import GenUnit, base_scene, catalogue_entries, model_count, r4
from planner.generate.trusted import generated_scenario
from planner.rules.registry import DEFAULT_RULESET
from planner.schema import UnitType
from planner.world import resolve

SUBJECT = "subject"


def _uniqueness(world, objective: float, settings) -> dict:
    """Ties and better candidates than ``objective`` over the whole candidate stream of the subject."""
    from planner.solve.candidates import CandidateBuilder, Group
    from planner.solve.goals import point_term
    from planner.solve.planner import COST_SCALE

    unit = world.units[SUBJECT]
    goal = world.scenario.goals[0]
    table = world.ruleset.table(world)
    fixed = [table.final(u) for u in table.on_table if u.id != SUBJECT]
    builder = CandidateBuilder(table, fixed, settings.grid_in, [point_term(goal.x, goal.y)], settings.margin_in)
    z = round(objective * COST_SCALE)
    ties = better = seen = 0
    for c in builder.stream(Group(unit, [unit])):  # legal candidates in nondecreasing cost
        if c.icost > z:
            break
        seen += 1
        ties += c.icost == z
        better += c.icost < z
    return {"ties": ties, "better_candidates": better, "candidates_costed": seen}


def puzzle_item(rng: np.random.Generator, p: GeneratorParams, index: int, ruleset: str = DEFAULT_RULESET) -> dict:
    """One placement puzzle with the planner's answer as its label."""
    from planner.solve.planner import SolverSettings, plan_deployment

    entries = [e for e in catalogue_entries(ruleset, p) if e.type is UnitType.INFANTRY]
    scene = base_scene(rng, p, ruleset)
    entry = entries[int(rng.integers(len(entries)))]
    n = min(model_count(entry, rng, p), 6)
    infiltrate = bool(rng.random() < 0.5)
    if infiltrate:
        gx, gy = rng.uniform(0.2, 0.8) * scene.width, rng.uniform(0.2, 0.8) * scene.depth
    else:
        x0, y0, x1, y1 = scene.zones["blue"].bounds
        gx, gy = rng.uniform(x0, x1), rng.uniform(y0, y1)
    unit = {"id": SUBJECT, "name": entry.name, "place": True,
            "setup": {"method": "infiltrate"} if infiltrate else {"method": "deployment_zone",
                                                                   "zone": scene.zone_ids["blue"]},
            "models": [{"profile": entry.id} for _ in range(n)]}
    if infiltrate:
        unit["rules"] = ["Infiltrate"]
    scene.units.append(GenUnit(unit, entry, "blue"))
    data = scene.data(name=f"puzzle-{index}", description="generated puzzle: place the unit 'subject' as near "
                                                          "the goal point as the rules allow")
    data["goals"] = [{"kind": "near_point", "x": r4(gx), "y": r4(gy)}]
    world = resolve(generated_scenario(data))
    settings = SolverSettings(time_limit_s=p.puzzle_time_limit_s, workers=1, seed=0)
    result = plan_deployment(world, settings)
    answer = None
    uniq: dict = {}
    if result.scenario_data is not None:
        units = {u["id"]: u for a in result.scenario_data["armies"] for u in a["units"]}
        answer = [[r4(m["x"]), r4(m["y"]), float(m.get("facing", 0.0))] for m in units[SUBJECT]["models"]]
    if result.status in ("optimal", "feasible") and result.objective is not None:
        uniq = _uniqueness(world, result.objective, settings)
    data["label"] = {
        "kind": "puzzle",
        "index": index,
        "unit": SUBJECT,
        "setup": "infiltrate" if infiltrate else "deployment_zone",
        "goal": [r4(gx), r4(gy)],
        "status": result.status,
        "limit": result.limit,
        # on the planner's candidate grid only: a placement off the grid may be better (fresh user:
        # an answer labelled optimal and unique moved 0.6" off the grid was legal and nearer)
        "grid_in": settings.grid_in,
        "margin_in": settings.margin_in,
        "optimal_on_grid": result.status == "optimal",
        "objective": result.objective,
        "legal": result.legal,
        "answer": answer,
        "unique_on_grid": (uniq["ties"] == 1 and uniq["better_candidates"] == 0) if uniq else None,
        "ties": uniq.get("ties"),
        "better_candidates": uniq.get("better_candidates"),
        "message": result.message,
    }
    return data
