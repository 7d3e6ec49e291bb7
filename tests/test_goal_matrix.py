"""Every goal gives a legal plan within the default time limit, with its status stated (issue 18
item 2): each goal kind on the bundled planning scenario where it was slowest (the Raven Guard
Infiltrate scenario: ``hidden`` ended exit 3 at 30-120 s, ``in_terrain`` needed 48.6 s against the
20 s default), the 40k-only kinds on a 40k mission. The whole matrix (every kind on every bundled
planning scenario, about 3 minutes) is ``benchmarks/bench_goals.py``; its last figures are in
benchmarks/README.md."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from planner.solve.planner import SolverSettings

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_goals import goal_for, planning_scenarios, run_case  # noqa: E402

HH = ROOT / "scenarios" / "plan-ravenguard-infiltrate.yaml"
WH40K = ROOT / "scenarios" / "wh40k" / "crucible-of-battle.yaml"
CASES = [(HH, k) for k in ("near_point", "near_objective", "near_enemy_unit", "hidden", "in_terrain",
                           "control_objective", "near_friendly", "far_from_enemy")] \
    + [(WH40K, k) for k in ("objective", "cover")]


def test_the_bundled_planning_scenarios_are_found():
    names = {p.name for p in planning_scenarios()}
    assert {"plan-ravenguard-infiltrate.yaml", "roster-strike-force-plan.yaml", "crucible-of-battle.yaml"} <= names
    assert not any(n.endswith("-illegal.yaml") for n in names)


@pytest.mark.slow
@pytest.mark.parametrize(("path", "kind"), CASES, ids=[f"{p.stem}-{k}" for p, k in CASES])
def test_each_goal_gives_a_legal_plan_within_the_default_limit(path, kind):
    default = SolverSettings().time_limit_s
    r = run_case(path, kind)
    assert r["status"] in ("optimal", "feasible"), r["message"]
    assert r["legal"] is True
    assert r["time_s"] <= default + 3.0  # the limit, and the re-check by the checker after it
    assert r["message"].startswith(r["status"])  # the status is stated, with what it is proven over


def test_a_goal_that_does_not_fit_is_skipped_not_planned():
    from planner.world import load_scenario

    world = load_scenario(HH)
    assert goal_for(world, "objective") is None  # 40k only
    assert goal_for(world, "cover") is None
    assert run_case(HH, "objective")["status"] == "n/a"
