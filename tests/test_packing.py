"""The packing bound by area (planner.solve.packing): never above a legal plan's objective."""

from __future__ import annotations

import math
import re
import time

import numpy as np
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st

from planner.geometry.shapes import Footprint
from planner.schema import Scenario
from planner.solve.candidates import COST_SCALE
from planner.solve.packing import PackModel, area_levels, pack_model, packing_bound, plan_packing_bound
from planner.solve.planner import SolverSettings, _groups, _Planning
from planner.world import resolve


def disc(r: float, w: float = 1.0) -> PackModel:
    return pack_model(Footprint("circle", 0.0, 0.0, r), w)


def brute(zone: tuple[float, float, float, float], point: tuple[float, float], radii: list[float],
          weights: list[float], step: float) -> float:
    """The least weighted sum of centre distances over every placement of the discs with centres
    on the ``step`` lattice, wholly in the box ``zone``, not overlapping (exhaustive)."""
    x0, y0, x1, y1 = zone
    spots = []
    for r in radii:
        xs = np.arange(math.ceil((x0 + r) / step - 1e-9), math.floor((x1 - r) / step + 1e-9) + 1) * step
        ys = np.arange(math.ceil((y0 + r) / step - 1e-9), math.floor((y1 - r) / step + 1e-9) + 1) * step
        spots.append([(x, y) for x in xs for y in ys])
    best = math.inf

    def go(i: int, chosen: list[tuple[float, float]], cost: float) -> None:
        nonlocal best
        if i == len(radii):
            best = min(best, cost)
            return
        for c in spots[i]:
            if all(math.hypot(c[0] - a[0], c[1] - a[1]) >= radii[i] + radii[j] - 1e-9 for j, a in enumerate(chosen)):
                go(i + 1, chosen + [c], cost + weights[i] * math.hypot(c[0] - point[0], c[1] - point[1]))

    go(0, [], 0.0)
    return best


def test_one_disc_bound_is_the_nearest_place():
    # a disc of radius 0.5 in the box [0,3]x[0,1.5], the point 2" below the box: nearest centre 2.5" away
    b = packing_bound(shapely.box(0, 0, 3, 1.5), (1.5, -2.0), [disc(0.5, 2.0)])
    assert b == pytest.approx(2 * 2.5, abs=1e-5)
    assert b <= brute((0, 0, 3, 1.5), (1.5, -2.0), [0.5], [2.0], 0.25) + 1e-9


def test_area_levels_of_a_half_plane():
    # the box y >= 0 and the point (0, -1): area within u of the point, inverted
    zone = shapely.box(-50, 0, 50, 50)
    u = np.array([1.5, 2.0, 3.0])
    h = u - 1.0
    segment = u * u * np.arccos(1.0 / u) - np.sqrt(u * u - 1.0)  # area of the circular segment beyond y = 0
    lv = area_levels(zone, (0.0, -1.0), segment)
    assert np.all(lv < u) and np.all(lv > u - 1e-3 * h - 1e-6)


@pytest.mark.parametrize("radii,weights,step", [([0.5, 0.5, 0.4], [1.0, 1.0, 1.0], 0.25),
                                                ([0.6, 0.3, 0.3], [2.0, 0.5, 1.0], 0.25),
                                                ([0.4, 0.4, 0.4, 0.4, 0.4], [1.0, 1.5, 1.0, 0.7, 1.2], 0.5)])
def test_bound_below_exhaustive_optimum(radii, weights, step):
    zone, point = (0.0, 0.0, 3.0, 2.0), (1.5, -0.5)
    best = brute(zone, point, radii, weights, step)
    b = packing_bound(shapely.box(*zone), point, [disc(r, w) for r, w in zip(radii, weights, strict=True)])
    assert math.isfinite(best)
    assert b <= best + 1e-9
    # and at least each disc alone at its nearest place
    alone = sum(w * (0.5 + r) for r, w in zip(radii, weights, strict=True))
    assert b >= alone - 1e-5  # (less the tolerance the bases may overlap by)


def test_too_much_area_has_no_placement():
    assert packing_bound(shapely.box(0, 0, 1, 1), (5.0, 5.0), [disc(0.5), disc(0.5)]) == math.inf


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.floats(0.2, 0.8), st.floats(0.5, 2.0)), min_size=1, max_size=5),
       st.floats(-5, 15), st.floats(-5, 10), st.integers(0, 2**31 - 1))
def test_bound_below_random_legal_placements(models, px, py, seed):
    """Any legal placement (random, not overlapping, wholly in the zone) costs at least the bound."""
    zone = (0.0, 0.0, 10.0, 5.0)
    rng = np.random.default_rng(seed)
    placed: list[tuple[float, float, float]] = []
    for r, _ in models:
        for _try in range(200):
            x, y = rng.uniform(zone[0] + r, zone[2] - r), rng.uniform(zone[1] + r, zone[3] - r)
            if all(math.hypot(x - a, y - b) >= r + q for a, b, q in placed):
                placed.append((x, y, r))
                break
        else:
            return  # no room found: nothing to compare
    cost = sum(w * math.hypot(x - px, y - py) for (x, y, _), (_, w) in zip(placed, models, strict=True))
    b = packing_bound(shapely.box(*zone), (px, py), [disc(r, w) for r, w in models])
    assert 0.0 <= b <= cost + 1e-9


def _crowd(n_units: int) -> dict:
    """``n_units`` units of 5 marines set up in a 24" x 6" zone, pulled to a point 6" beyond its edge."""
    marine = {"diameter_mm": 32}
    return {
        "ruleset": "hh2", "name": "crowd", "battlefield": {"width": 24, "depth": 24},
        "deployment_zones": [{"id": "red-zone", "player": "red", "polygon": [[0, 0], [24, 0], [24, 6], [0, 6]]},
                             {"id": "blue-zone", "player": "blue", "polygon": [[0, 18], [24, 18], [24, 24], [0, 24]]}],
        "goals": [{"kind": "near_point", "x": 12, "y": 12}],
        "armies": [{"player": "red", "units": [{"id": "enemy", "type": "Infantry", "models": [
                        {"base": marine, "x": 2 + 1.5 * i, "y": 2} for i in range(5)]}]},
                   {"player": "blue", "units": [{"id": f"squad-{k}", "type": "Infantry", "place": True,
                                                 "models": [{"base": marine} for _ in range(5)]}
                                                for k in range(n_units)]}],
    }


def test_planner_reports_the_packing_bound_when_it_is_higher():
    world = resolve(Scenario.model_validate(_crowd(4)), "<crowd>")
    groups = _groups(world)
    run = _Planning(world, SolverSettings(time_limit_s=20), groups, None, time.monotonic())
    b = plan_packing_bound(run.builder, groups, run.terms)
    assert b is not None
    # 20 marines (1.26" bases): not all within 6" + 0.63" of the point; each alone is 6.63" away
    assert b > 20 * 6.63 + 3
    start = run.greedy(time.monotonic() + 10)
    assert start is not None
    obj = sum(c.icost for c in start.values())
    assert run.packing is not None and run.packing <= obj
    res = run.done(start, "feasible", None, "feasible: a test", None)
    assert res.best_bound == pytest.approx(run.packing / COST_SCALE)
    assert "the packing bound by area" in res.message and res.legal
    res = run.done(start, "feasible", obj, "feasible: a test", None)  # a higher rounds' bound is kept
    assert res.best_bound == pytest.approx(obj / COST_SCALE) and "the rounds' CP-SAT bound" in res.message


def test_packing_bound_does_not_apply_to_other_goals():
    data = _crowd(1)
    data["goals"] = [{"kind": "far_from_enemy", "unit": "enemy", "cap": 12}]
    world = resolve(Scenario.model_validate(data), "<crowd>")
    groups = _groups(world)
    run = _Planning(world, SolverSettings(), groups, None, time.monotonic())
    assert run.packing is None


def _two_parts() -> dict:
    """Three squads, one pulled to each end of the zone's edge (two parts that cannot interact)."""
    data = _crowd(3)
    data["goals"] = [{"kind": "near_point", "x": 2, "y": 12, "units": ["squad-0"]},
                     {"kind": "near_point", "x": 22, "y": 12, "units": ["squad-1", "squad-2"]}]
    return data


def test_a_part_cut_short_keeps_the_bounds_of_the_round(monkeypatch):
    """A round whose last part runs out of time without a solution still proves a bound: the parts
    solved at their optima, the one cut short at CP-SAT's bound or its units' least costs (never
    above the true optimum), and the report names the part."""
    from ortools.sat.python import cp_model

    from planner.solve import planner as P

    world = resolve(Scenario.model_validate(_two_parts()), "<two parts>")
    optimal = P.plan_deployment(world, SolverSettings(time_limit_s=20))
    assert optimal.status == "optimal"
    real = cp_model.CpSolver

    class CutShort(real):  # type: ignore[misc, valid-type]
        def solve(self, model, callback=None):
            if len(model.proto.constraints) > 10:  # the two-squad part (no-overlap pairs): out of time at once,
                super().solve(cp_model.CpModel())  # with no solution and a bound of 0
                return cp_model.UNKNOWN
            return super().solve(model, callback)

    monkeypatch.setattr(cp_model, "CpSolver", CutShort)
    res = P.plan_deployment(world, SolverSettings(time_limit_s=20))
    assert res.status == "feasible" and res.legal
    # parts smallest first: the two squads (pruned to a few options) are part 1, cut short
    assert "while solving part 1 of 2 (2 units, " in res.message and "is this round's, from its parts" in res.message
    assert res.best_bound is not None and optimal.objective is not None
    assert 0 < res.best_bound <= optimal.objective + 1e-9
    # the cut part at its units' least costs, squad-0 (not solved yet) at its own: each squad at its
    # nearest place alone (the three are mirror images: squad-0's optimum, 37.816)
    squad0 = next(p.cost for p in optimal.placements if p.unit == "squad-0")
    assert squad0 == pytest.approx(37.816, abs=1e-3)
    # the rounds' bound is that; the report may give a higher one (the Lagrangian bound), naming both
    rounds = re.search(r"the rounds' CP-SAT bound(?:: | \()([0-9.]+)", res.message)
    assert rounds is not None and float(rounds.group(1)) == pytest.approx(3 * squad0, abs=2e-3)
    assert res.best_bound >= float(rounds.group(1))
