"""The clique rows of the Lagrangian bound (planner.solve.lagrange.LagrangeBound.separate): every row
a true clique (any two members of different units overlap, exactly), the bound with them never
above the optimum over the candidate grid (exhaustive search on tiny instances, fixed and random)
and never below the bound without them, and any multipliers on them giving a valid bound."""

from __future__ import annotations

import functools
import itertools
import time

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from planner.schema import Scenario
from planner.solve.lagrange import LagrangeBound
from planner.solve.planner import SolverSettings, _groups, _Planning
from planner.world import resolve


def _instance(sizes: tuple[int, ...], goal: tuple[float, float], zone_w: float, zone_d: float) -> dict:
    """Units of ``sizes`` marines (32 mm) in a ``zone_w`` x ``zone_d`` zone, all pulled to ``goal``."""
    marine = {"diameter_mm": 32}
    return {
        "ruleset": "hh2", "name": "tiny-cuts", "battlefield": {"width": 12, "depth": 12},
        "deployment_zones": [{"id": "blue-zone", "player": "blue",
                              "polygon": [[1, 0], [1 + zone_w, 0], [1 + zone_w, zone_d], [1, zone_d]]},
                             {"id": "red-zone", "player": "red", "polygon": [[0, 10], [12, 10], [12, 12], [0, 12]]}],
        "goals": [{"kind": "near_point", "x": goal[0], "y": goal[1]}],
        "armies": [{"player": "red", "units": [{"id": "enemy", "type": "Infantry",
                                                "models": [{"base": marine, "x": 6, "y": 11}]}]},
                   {"player": "blue", "units": [{"id": f"u{k}", "type": "Infantry", "place": True,
                                                 "setup": "deployment_zone",
                                                 "models": [{"base": marine} for _ in range(n)]}
                                                for k, n in enumerate(sizes)]}],
    }


def _run(data: dict) -> _Planning:
    world = resolve(Scenario.model_validate(data), "<tiny-cuts>")
    return _Planning(world, SolverSettings(time_limit_s=30, margin_in=0.0), _groups(world), None, time.monotonic())


def _optimum(run: _Planning) -> int | None:
    """Every stream exhausted into the candidates taken; the optimum over them (integer cost units)
    by exhaustive search over every combination, or None if no plan exists."""
    for g in run.groups:
        run.cands[g.id] = run.cands[g.id] + list(run.streams[g.id])
    cs = [run.cands[g.id] for g in run.groups]
    ov = {(i, j): np.array([[a.overlaps(b) for b in cs[j]] for a in cs[i]], dtype=bool).reshape(len(cs[i]), len(cs[j]))
          for i, j in itertools.combinations(range(len(cs)), 2)}
    best: int | None = None

    def walk(k: int, picked: list[int], cost: int) -> None:
        nonlocal best
        if best is not None and cost >= best:
            return
        if k == len(cs):
            best = cost
            return
        for c in np.argsort([x.icost for x in cs[k]], kind="stable").tolist():
            if not any(ov[i, k][p, c] for i, p in enumerate(picked)):
                walk(k + 1, picked + [c], cost + cs[k][c].icost)

    walk(0, [], 0)
    return best


def _assert_true_cliques(lb: LagrangeBound) -> None:
    for members in lb.cuts:
        for (k, i), (m, j) in itertools.combinations(members, 2):
            if k != m:
                assert lb.candidate(k, i).overlaps(lb.candidate(m, j)), (k, i, m, j)


@functools.lru_cache(maxsize=1)
def _three() -> tuple[_Planning, int]:
    """Two single marines and a pair in a 10" x 4" zone pulled to a point just beyond its edge
    (the instance of tests/test_lagrange.py), and its optimum."""
    run = _run(_instance((1, 1, 2), (5.0, 5.0), 10.0, 4.0))
    best = _optimum(run)
    assert best is not None
    return run, best


def test_cliques_close_the_tiny_instances_gap_and_stay_below_the_optimum():
    run, best = _three()
    plain = LagrangeBound(run.groups, run.streams, run.cands)
    plain.run(time.monotonic() + 20)
    cut = LagrangeBound(run.groups, run.streams, run.cands)
    cut.run_cuts(time.monotonic() + 30)
    b0, b1 = plain.integer_bound(), cut.integer_bound()
    assert b0 is not None and b1 is not None
    assert b0 < best  # the point rows alone leave a gap (the LP's half-and-half plan) ...
    assert cut.cuts and b0 <= b1 <= best  # ... the clique rows raise the bound, never above the optimum
    assert b1 == best  # measured: on this instance they close it
    _assert_true_cliques(cut)


def test_cliques_over_the_streams_unjudged_are_valid():
    """Nothing taken, every placement priced from the streams (judged or not): still below the optimum."""
    _, best = _three()
    for judge in (True, False):
        fresh = _run(_instance((1, 1, 2), (5.0, 5.0), 10.0, 4.0))
        lb = LagrangeBound(fresh.groups, fresh.streams, fresh.cands, judge=judge)
        lb.run_cuts(time.monotonic() + 30)
        b = lb.integer_bound()
        assert b is not None and b <= best
        _assert_true_cliques(lb)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 10**6), st.floats(0, 5000)), max_size=40), st.floats(0, 3000),
       st.lists(st.floats(0, 20000), max_size=40))
def test_any_multipliers_on_the_cliques_give_a_bound_below_the_optimum(spots, flat, sig):
    run, best = _three()
    lb = _separated()
    pi = np.full(lb.lattice.size, -flat)
    for k, v in spots:
        pi[k % lb.lattice.size] = -v
    sigma = np.zeros(len(lb.cuts))
    for k, v in enumerate(sig):
        sigma[k % len(sigma)] = -v
    value, _ = lb.lower_bound(pi, sigma)
    assert value <= best + 1e-6


@functools.lru_cache(maxsize=1)
def _separated() -> LagrangeBound:
    run, _ = _three()
    lb = LagrangeBound(run.groups, run.streams, run.cands)
    lb.run_cuts(time.monotonic() + 30)
    assert lb.cuts
    return lb


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from([(1, 1, 1), (1, 2), (1, 1, 2), (2, 2)]), st.floats(3.0, 9.0), st.floats(3.5, 6.0),
       st.floats(5.0, 10.0), st.floats(2.5, 4.0))
def test_random_tiny_instances_bound_with_cliques_between_the_plain_bound_and_the_optimum(sizes, gx, gy, zw, zd):
    run = _run(_instance(sizes, (gx, gy), zw, zd))
    best = _optimum(run)
    plain = LagrangeBound(run.groups, run.streams, run.cands)
    plain.run(time.monotonic() + 20)
    cut = LagrangeBound(run.groups, run.streams, run.cands)
    cut.run_cuts(time.monotonic() + 30)
    b0, b1 = plain.integer_bound(), cut.integer_bound()
    if best is None:  # no plan: any bound is right
        return
    assert b0 is not None and b1 is not None
    assert b0 <= b1 <= best
    _assert_true_cliques(cut)
