"""The planner's ruin-and-recreate search (issue 18, item 1): a unit's cheapest placement clear of
the others is the brute-force one over its whole candidate grid, the search never makes the plan
dearer nor illegal, and a whole army pulled to one point is planned legal and no dearer than the
greedy plan."""

from __future__ import annotations

import itertools
import sys
import time
from pathlib import Path

import pytest

from planner.schema import Scenario
from planner.solve import planner as P
from planner.world import resolve

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_planner_scaling import _crowd  # noqa: E402  (single marines crowding one point)


def _run(data: dict, per_unit: int = 2) -> P._Planning:
    world = resolve(Scenario.model_validate(data))
    return P._Planning(world, P.SolverSettings(time_limit_s=60, candidates_per_unit=per_unit, margin_in=0.0),
                       P._groups(world), None, time.monotonic())


def _every_candidate(data: dict) -> dict[str, list]:
    """Each unit's every legal candidate over the grid (its stream of a fresh run, exhausted)."""
    run = _run(data)
    return {g.id: list(run.streams[g.id]) for g in run.groups}


def _shared_goal(n_units: int, seed: int) -> dict:
    """``_crowd`` with one goal for the whole army (as a roster pulled to the table centre)."""
    data = _crowd(n_units, seed)
    data["goals"] = [{"kind": "near_point", "x": data["goals"][0]["x"], "y": 5.0}]
    return data


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_cheapest_clear_placement_is_the_brute_force_one_over_the_grid(seed):
    data = _crowd(4, seed)
    every = _every_candidate(data)
    run = _run(data)
    run.take_candidates()
    plan = run.greedy(time.monotonic() + 10)
    assert plan is not None
    for g in run.groups:
        rest = {gid: c for gid, c in plan.items() if gid != g.id}
        got = run.cheapest_clear(g, rest, time.monotonic() + 10)
        clear = [c.icost for c in every[g.id] if not any(c.overlaps(o) for o in rest.values())]
        assert got is not None and clear
        assert got.icost == min(clear)
        assert not any(got.overlaps(o) for o in rest.values())
        assert got in run.cands[g.id]  # taken: the stream's bound stays a bound of what is left


@pytest.mark.parametrize("seed", [0, 3])
def test_the_search_never_makes_the_plan_dearer_or_overlapping(seed):
    """From the dearest legal plan over the candidates taken the search ends cheaper, legal, and
    no cheaper than every unit at its cheapest candidate of the whole grid."""
    data = _crowd(3, seed)
    every = _every_candidate(data)
    least = sum(min(c.icost for c in cs) for cs in every.values())
    run = _run(data, per_unit=8)
    run.take_candidates()
    legal = [combo for combo in itertools.product(*(run.cands[g.id] for g in run.groups))
             if not any(a.overlaps(b) for a, b in itertools.combinations(combo, 2))]
    worst = max(legal, key=lambda combo: sum(c.icost for c in combo))
    run.start = {g.id: c for g, c in zip(run.groups, worst, strict=True)}
    before = run.incumbent_cost()
    assert before is not None and before > least
    run.recreate(1.0)
    after = run.incumbent_cost()
    assert after is not None and least <= after < before and run.recreated
    assert not any(a.overlaps(b) for a, b in itertools.combinations(run.start.values(), 2))


def test_an_army_pulled_to_one_point_is_planned_legal_and_no_dearer_than_the_greedy_plan():
    data = _shared_goal(4, 1)
    world = resolve(Scenario.model_validate(data))
    run = _run(data)
    greedy = run.greedy(time.monotonic() + 10)
    assert greedy is not None and run.crowded()
    res = P.plan_deployment(world, P.SolverSettings(time_limit_s=20, workers=2, margin_in=0.0))
    assert res.legal and res.objective is not None
    assert res.objective <= sum(c.icost for c in greedy.values()) / P.COST_SCALE + 1e-9


def _brute_over_taken(run: P._Planning, fixed: dict) -> int | None:
    """The least cost of a plan over the candidates taken, ``fixed`` units fixed (every combination)."""
    lists = [[fixed[g.id]] if g.id in fixed else run.cands[g.id] for g in run.groups]
    costs = [sum(c.icost for c in combo) for combo in itertools.product(*lists)
             if not any(a.overlaps(b) for a, b in itertools.combinations(combo, 2))]
    return min(costs) if costs else None


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_exact_recreate_of_every_unit_ends_at_the_brute_force_optimum_over_the_candidates_taken(seed):
    """Every unit freed in each step: the search ends at the best plan over the candidates taken by then
    (the last step solved that whole model, and pulled nothing after it), from the greedy plan."""
    run = _run(_shared_goal(3, seed), per_unit=4)
    run.take_candidates()
    plan = run.greedy(time.monotonic() + 10)
    assert plan is not None
    run.start, run.found_by = dict(plan), "greedy"
    before = run.incumbent_cost()
    assert before is not None
    counts = {g.id: len(run.cands[g.id]) for g in run.groups}
    run.recreate_exact(20.0, units=3, pull=4)
    assert any(len(run.cands[g.id]) > counts[g.id] for g in run.groups)  # candidates were pulled
    want = _brute_over_taken(run, {})
    assert want is not None and run.incumbent_cost() == want <= before
    assert run.found_by == ("exact recreate" if want < before else "greedy")
    assert not any(a.overlaps(b) for a, b in itertools.combinations(run.start.values(), 2))
    assert all(any(c is d for d in run.cands[gid]) for gid, c in run.start.items())


@pytest.mark.parametrize("seed", [0, 3])
def test_the_exact_recreate_of_some_units_never_makes_the_plan_dearer_or_overlapping(seed):
    """Two of four units freed a step: the plan is never dearer, never overlapping, made of candidates
    taken, and the units' pulled candidates are clear of the bases of the units that stayed; no time,
    no change."""
    run = _run(_shared_goal(4, seed), per_unit=3)
    run.take_candidates()
    plan = run.greedy(time.monotonic() + 10)
    assert plan is not None
    run.start, run.found_by = dict(plan), "greedy"
    run.recreate_exact(0.0, units=2, pull=3)
    assert run.start == plan and run.found_by == "greedy"
    before = run.incumbent_cost()
    run.recreate_exact(5.0, units=2, pull=3)
    after = run.incumbent_cost()
    assert after is not None and before is not None and after <= before
    assert run.found_by == ("exact recreate" if after < before else "greedy")
    assert not any(a.overlaps(b) for a, b in itertools.combinations(run.start.values(), 2))
    assert all(any(c is d for d in run.cands[gid]) for gid, c in run.start.items())


@pytest.mark.parametrize("n_units, exact", [(6, False), (8, True)])
def test_the_planner_gives_the_exact_recreate_half_the_budget_only_where_it_frees_at_most_two_thirds(
        monkeypatch, n_units, exact):
    """Where units crowd, round 1 runs :meth:`recreate` then :meth:`recreate_exact` in one budget, the
    exact search with what :meth:`recreate` (given half, :data:`RECREATE_EXACT_SHARE`) leaves of it (here
    all of it: the spies return at once); where its 5 units are more than 2/3 of the army (6 units), it is not run and
    :meth:`recreate` keeps the whole budget."""
    calls: list[tuple[str, float]] = []
    monkeypatch.setattr(P._Planning, "recreate", lambda self, budget, **k: calls.append(("recreate", budget)))
    monkeypatch.setattr(P._Planning, "recreate_exact", lambda self, budget, **k: calls.append(("exact", budget)))
    world = resolve(Scenario.model_validate(_shared_goal(n_units, 0)))
    res = P.plan_deployment(world, P.SolverSettings(time_limit_s=20, candidates_per_unit=2, margin_in=0.0))
    assert res.legal
    assert [name for name, _ in calls] == (["recreate", "exact"] if exact else ["recreate"])
    budget = calls[0][1] / (1 - P.RECREATE_EXACT_SHARE) if exact else calls[0][1]
    assert 0 < budget <= P.RECREATE_S
    if exact:  # what recreate left of the same budget: all of it, less the spy's microseconds
        assert budget - 0.05 < calls[1][1] <= budget
