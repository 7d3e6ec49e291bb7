"""The Lagrangian bound over every candidate (planner.solve.lagrange): never above the optimum
over the candidate grid (exhaustive search on a tiny instance, any multipliers by hypothesis),
its points the same as measured, and the planner reporting it."""

from __future__ import annotations

import functools
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planner.schema import Scenario
from planner.solve.candidates import COST_SCALE
from planner.solve.lagrange import LagrangeBound, check_translation
from planner.solve.planner import SolverSettings, _groups, _Planning
from planner.world import resolve


def _tiny(shared: bool = True) -> dict:
    """Two single marines and a pair of marines in a 10" x 4" zone, pulled to one point just
    beyond its edge (``shared``), or each unit to its own point."""
    marine = {"diameter_mm": 32}
    units = [("a", 1), ("b", 1), ("pair", 2)]
    goals = ([{"kind": "near_point", "x": 5.0, "y": 5.0}] if shared else
             [{"kind": "near_point", "x": 2.0 + 3 * k, "y": 5.0, "units": [uid]} for k, (uid, _) in enumerate(units)])
    return {
        "ruleset": "hh2", "name": "tiny", "battlefield": {"width": 12, "depth": 12},
        "deployment_zones": [{"id": "blue-zone", "player": "blue", "polygon": [[1, 0], [11, 0], [11, 4], [1, 4]]},
                             {"id": "red-zone", "player": "red", "polygon": [[0, 10], [12, 10], [12, 12], [0, 12]]}],
        "goals": goals,
        "armies": [{"player": "red", "units": [{"id": "enemy", "type": "Infantry",
                                                "models": [{"base": marine, "x": 6, "y": 11}]}]},
                   {"player": "blue", "units": [{"id": uid, "type": "Infantry", "place": True,
                                                 "setup": "deployment_zone",
                                                 "models": [{"base": marine} for _ in range(n)]}
                                                for uid, n in units]}],
    }


def _run(shared: bool = True) -> _Planning:
    world = resolve(Scenario.model_validate(_tiny(shared)), "<tiny>")
    return _Planning(world, SolverSettings(time_limit_s=20, margin_in=0.0), _groups(world), None, time.monotonic())


@functools.lru_cache(maxsize=1)
def _exhaustive() -> tuple[_Planning, int, int]:
    """The tiny instance with every legal candidate taken (the streams exhausted), its optimum over
    them by exhaustive search (integer cost units) and the sum of the units' least costs."""
    run = _run()
    for g in run.groups:
        run.cands[g.id] = list(run.streams[g.id])
    cs = [run.cands[g.id] for g in run.groups]
    cost = [np.array([c.icost for c in c_], dtype=np.int64) for c_ in cs]
    ov = {(i, j): np.array([[a.overlaps(b) for b in cs[j]] for a in cs[i]], dtype=bool)
          for i in range(3) for j in range(i + 1, 3)}
    best = np.iinfo(np.int64).max
    for a in range(len(cs[0])):
        for b in np.flatnonzero(~ov[0, 1][a]).tolist():
            free = ~ov[0, 2][a] & ~ov[1, 2][b]
            if free.any():
                best = min(best, int(cost[0][a] + cost[1][b] + cost[2][free].min()))
    return run, best, sum(int(c.min()) for c in cost)


def test_bound_is_below_the_exhaustive_optimum_and_above_the_least_costs():
    run, best, least = _exhaustive()
    assert least < best  # the units crowd: each alone at its best would overlap
    for judge in (True, False):
        fresh = _run()  # the same grid, nothing taken: the bound prices the streams (judged or not)
        lb = LagrangeBound(fresh.groups, fresh.streams, fresh.cands, judge=judge)
        lb.run(time.monotonic() + 20)
        b = lb.integer_bound()
        assert b is not None and b <= best
        if judge:
            assert b > least  # it proves more than each unit alone at its best
    taken = LagrangeBound(run.groups, run.streams, run.cands)  # every candidate taken, none in a stream
    taken.run(time.monotonic() + 20)
    b = taken.integer_bound()
    assert b is not None and least < b <= best


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 10**6), st.floats(0, 5000)), max_size=60), st.floats(0, 3000))
def test_any_multipliers_give_a_bound_below_the_optimum(spots, flat):
    """``LB(pi)`` for any ``pi <= 0`` (a few points priced, plus a uniform price everywhere)."""
    run, best, _ = _exhaustive()
    lb = LagrangeBound(run.groups, run.streams, run.cands)
    pi = np.full(lb.lattice.size, -flat)
    for k, v in spots:
        pi[k % lb.lattice.size] = -v
    value, _ = lb.lower_bound(pi)
    assert value <= best + 1e-6


def test_translated_points_are_the_measured_points():
    run = _run()
    lb = LagrangeBound(run.groups, run.streams, run.cands)
    n, bad = check_translation(lb, run.streams, 0.5, per_unit=60)
    assert n > 100 and bad == 0


def test_crowded_means_a_goal_pulling_two_units():
    assert _run(shared=True).crowded()
    assert not _run(shared=False).crowded()


def test_planner_reports_the_lagrangian_bound_when_it_is_highest():
    run = _run()
    start = run.greedy(time.monotonic() + 10)
    assert start is not None
    run.start = start
    obj = sum(c.icost for c in start.values())
    run.lagrange(10.0)
    assert run.lagrange_bound is not None and run.lagrange_bound <= obj
    _, best, _ = _exhaustive()
    assert run.lagrange_bound <= best
    rounds = 1000  # a rounds' bound below it
    res = run.done(start, "feasible", rounds, "feasible: a test", None)
    if run.packing is None or run.lagrange_bound > run.packing:
        assert res.best_bound == pytest.approx(run.lagrange_bound / COST_SCALE)
        assert "the bound reported is the Lagrangian bound over every candidate" in res.message
        assert "the rounds' CP-SAT bound: 1.000" in res.message
    res = run.done(start, "feasible", obj - 1, "feasible: a test", None)  # a higher rounds' bound is kept
    assert res.best_bound == pytest.approx((obj - 1) / COST_SCALE) and res.status == "feasible"
    assert "the bound reported is the rounds' CP-SAT bound" in res.message and "Lagrangian bound over every candidate: " in res.message
    run.lagrange_bound = obj  # a Lagrangian bound reaching the plan proves it optimal over the grid
    res = run.done(start, "feasible", rounds, "feasible: a test", None)
    assert res.status == "optimal" and res.legal and "the Lagrangian bound over every candidate reaches" in res.message
