"""The solver's share of the time limit goes to the candidate search when a unit has no candidate
at all (fresh16 finding 5: ``--time-limit 10`` planned for 8.0 s, then said "no legal placement
found before the time limit", and the same plan was optimal after 9.08 s with a longer limit)."""

from __future__ import annotations

import time
from pathlib import Path

from planner.solve.planner import SolverSettings, _groups, _Planning
from planner.world import load_scenario

ROOT = Path(__file__).resolve().parents[1]


def _run(limit: float) -> _Planning:
    world = load_scenario(str(ROOT / "scenarios" / "plan-ravenguard-infiltrate.yaml"))
    return _Planning(world, SolverSettings(time_limit_s=limit), _groups(world), None, time.monotonic())


def test_a_unit_without_a_candidate_searches_on_past_the_builders_deadline():
    run = _run(30.0)
    assert run.builder.deadline == run.deadline - 2.0  # the solver's reserve: min(2 s, 20%)
    run.builder.deadline = time.monotonic()  # as if the candidate time were spent with nothing found
    run.take_candidates()
    assert [g.id for g in run.groups if not run.cands[g.id]] == [g.id for g in run.groups]
    assert run.no_candidates_answer() is None  # each unit found its candidate in the planning's own time
    assert all(run.cands[g.id] for g in run.groups)
    assert run.builder.deadline < run.deadline  # the reserve is kept for the solver afterwards


def test_past_the_planning_deadline_the_answer_is_unknown_and_says_the_time_ran_out():
    run = _run(5.0)
    run.builder.deadline = run.deadline = time.monotonic()
    run.take_candidates()
    answer = run.no_candidates_answer()
    assert answer is not None and answer.status == "unknown"
    assert answer.message.startswith("no legal placement found before the time limit")
