"""The planner's local search and its model building (issue 18): a neighbourhood's solve is the
brute-force optimum with the other units fixed, the local search reaches the optimum over the
candidates taken when one neighbourhood holds every unit, the overlap constraints built from
arrays are the ones built from tuples, and a part solved in the last round is reused unchanged."""

from __future__ import annotations

import itertools
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from ortools.sat.python import cp_model

from planner.schema import Scenario
from planner.solve import planner as P
from planner.solve.placement_model import add_placements
from planner.world import resolve

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_planner_scaling import _crowd  # noqa: E402  (the crowded instance of the rounds' brute-force test)


def _run(n_units: int, seed: int, per_unit: int = 6) -> P._Planning:
    """A planning run over ``_crowd`` with its first candidates taken and their overlaps measured."""
    world = resolve(Scenario.model_validate(_crowd(n_units, seed)))
    groups = P._groups(world)
    run = P._Planning(world, P.SolverSettings(time_limit_s=60, candidates_per_unit=per_unit, margin_in=0.0),
                      groups, None, time.monotonic())
    run.take_candidates()
    assert run.measure_overlaps()
    return run


def _brute(run: P._Planning, fixed: dict) -> int | None:
    """The least cost (integer units) of a plan over the candidates taken, ``fixed`` units fixed."""
    lists = [[fixed[g.id]] if g.id in fixed else run.cands[g.id] for g in run.groups]
    best = None
    for combo in itertools.product(*lists):
        if any(a.overlaps(b) for a, b in itertools.combinations(combo, 2)):
            continue
        cost = sum(c.icost for c in combo)
        best = cost if best is None else min(best, cost)
    return best


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_neighbourhood_is_the_brute_force_optimum_with_the_others_fixed(seed):
    run = _run(4, seed)
    start = run.greedy(time.monotonic() + 10)
    assert start is not None
    ids = P.rule_ids("hh2")
    for keep in ([0], [1, 3], [2]):
        fixed = {run.groups[k].id: start[run.groups[k].id] for k in keep}
        for hint in (None, start):  # without the hint nothing is pruned; with it, pruned below its cost
            found: dict = {}
            P._solve(run.groups, run.cands, run.settings, time.monotonic() + 10, run.overlapping, hint, None, None,
                     run.t0, ids, rest={}, found=found, fixed=fixed)
            plan = found["plan"]
            assert all(plan[gid] is c for gid, c in fixed.items())
            assert not any(a.overlaps(b) for a, b in itertools.combinations(plan.values(), 2))
            assert sum(c.icost for c in plan.values()) == _brute(run, fixed)


@pytest.mark.parametrize("seed", [0, 3])
def test_the_local_search_reaches_the_optimum_over_the_candidates_taken(seed):
    """Four units, neighbourhoods of five: one neighbourhood frees all, so from the dearest legal
    plan the search ends at the brute-force optimum over the candidates taken (and never worse)."""
    run = _run(4, seed, per_unit=8)
    legal = [combo for combo in itertools.product(*(run.cands[g.id] for g in run.groups))
             if not any(a.overlaps(b) for a, b in itertools.combinations(combo, 2))]
    worst = max(legal, key=lambda combo: sum(c.icost for c in combo))  # the dearest legal plan
    run.start = {g.id: c for g, c in zip(run.groups, worst, strict=True)}
    before = run.incumbent_cost()
    run.lns(5.0)
    assert run.incumbent_cost() == _brute(run, {}) < before
    assert not any(a.overlaps(b) for a, b in itertools.combinations(run.start.values(), 2))


def _constraints(cp: cp_model.CpModel) -> set[tuple[str, frozenset[int]]]:
    return {(c.name, frozenset(c.at_most_one.literals)) for c in cp.proto.constraints if c.has_at_most_one()}


def test_overlaps_as_arrays_build_the_constraints_built_from_tuples():
    class U:
        def __init__(self, uid: str):
            self.id = uid

    class C:
        def __init__(self, index: int):
            self.index = index

    rng = np.random.default_rng(7)
    groups = [U("a"), U("b"), U("c")]
    cands = {"a": [C(i) for i in range(0, 30, 2)], "b": [C(i) for i in range(25)], "c": [C(i) for i in range(5, 20)]}
    pairs = [(ga, int(i), gb, int(j)) for ga, gb in (("a", "b"), ("a", "c"), ("b", "c"))
             for i, j in rng.integers(0, 30, size=(80, 2))]  # some name candidates the model does not hold
    ids = P.rule_ids("hh2")
    cp1, cp2 = cp_model.CpModel(), cp_model.CpModel()
    add_placements(cp1, groups, cands, pairs, ids)
    arrays = [(ga, np.array([p[1] for p in pairs if p[0] == ga and p[2] == gb]), gb,
               np.array([p[3] for p in pairs if p[0] == ga and p[2] == gb])) for ga, gb in (("a", "b"), ("a", "c"), ("b", "c"))]
    add_placements(cp2, groups, cands, (), ids, arrays)
    got = _constraints(cp1)
    assert got == _constraints(cp2) and len(got) > 30
    # each holds one candidate of the first unit and every candidate of the other it overlaps
    held = {(g.id, c.index) for g in groups for c in cands[g.id]}
    want = {}
    for ga, i, gb, j in pairs:
        if (ga, i) in held and (gb, j) in held:
            want.setdefault((ga, i, gb), set()).add(j)
    assert len(got) == len(want)


def test_a_part_solved_to_optimality_last_round_is_not_solved_again(monkeypatch):
    run = _run(4, 1)
    run.start = run.greedy(time.monotonic() + 10)
    ids = P.rule_ids("hh2")
    memo: dict = {}
    args = (run.groups, run.cands, run.settings, time.monotonic() + 20, run.overlapping, run.start, None, None,
            run.t0, ids)
    first = P._solve(*args, rest={}, memo=memo)
    assert first[0] == cp_model.OPTIMAL and memo["last"]
    calls = []
    real = cp_model.CpSolver.solve
    monkeypatch.setattr(cp_model.CpSolver, "solve", lambda self, *a, **k: calls.append(1) or real(self, *a, **k))
    again = P._solve(*args, rest={}, memo=memo)
    assert calls == [] and again[0] == cp_model.OPTIMAL
    assert again[1].objective_value == first[1].objective_value == _brute(run, {})
    assert again[1].best_objective_bound == first[1].best_objective_bound
    picked = {g.id: next(c for c in again[5][g.id] if again[1].boolean_value(again[3][g.id, c.index]))
              for g in run.groups}
    assert sum(c.icost for c in picked.values()) == _brute(run, {})
