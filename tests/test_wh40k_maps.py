"""The six 40k deployment maps as scenarios (Dawn of War in both depths): the zones match
planner.rules.wh40k_maps, every scenario passes the checker, and the planner puts the
Infiltrator Squad near the centre objective with a plan the checker accepts, in both editions."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import yaml
from shapely.geometry import Point, Polygon
from shapely.ops import unary_union

from planner.legality.checker import check_deployment
from planner.legality.wh40k import edition
from planner.rules import wh40k_maps
from planner.schema import Scenario
from planner.solve.planner import SolverSettings, plan_deployment
from planner.testing import assert_plan_legal
from planner.world import resolve

ROOT = Path(__file__).resolve().parent.parent / "scenarios" / "wh40k"
FILES = {
    "hammer-and-anvil.yaml": ("hammer-and-anvil", 12.0),
    "dawn-of-war-12in.yaml": ("dawn-of-war", 12.0),
    "dawn-of-war-10in.yaml": ("dawn-of-war", 10.0),
    "search-and-destroy.yaml": ("search-and-destroy", 12.0),
    "sweeping-engagement.yaml": ("sweeping-engagement", 12.0),
    "crucible-of-battle.yaml": ("crucible-of-battle", 12.0),
    "tipping-point.yaml": ("tipping-point", 12.0),
}
FAST = SolverSettings(time_limit_s=20, workers=1, seed=0, grid_in=1.0, candidates_per_unit=30)
R32 = 16 / 25.4


def _data(name: str, ruleset: str | None = None) -> dict:
    data = yaml.safe_load((ROOT / name).read_text())
    if ruleset:
        data["ruleset"] = ruleset
    return data


def test_every_map_has_a_scenario():
    assert sorted(ROOT.glob("*.yaml")) == sorted(ROOT / f for f in FILES)
    assert {m for m, _ in FILES.values()} == set(wh40k_maps.MAPS)


@pytest.mark.parametrize("name", sorted(FILES))
def test_scenario_zones_are_the_map_geometry(name):
    m, depth = FILES[name]
    a, b = wh40k_maps.zones(m, dawn_of_war_depth_in=depth)
    zones = {z["player"]: Polygon(z["polygon"]) for z in _data(name)["deployment_zones"]}
    for want, got in ((a, zones["blue"]), (b, zones["red"])):
        assert got.symmetric_difference(want).area < 1e-4


@pytest.mark.parametrize(("m", "area", "gap"), [
    ("hammer-and-anvil", 18 * 44, 24.0),
    ("dawn-of-war", 60 * 12, 20.0),
    ("sweeping-engagement", 30 * 14 + 30 * 8, 44 - 14 - 14),
    ("crucible-of-battle", 660.0, 30 * 44 / math.hypot(30, 44)),  # Goonhammer: 660 sq. in.
    ("tipping-point", 22 * 20 + 22 * 12, 60 - 20 - 20),
])
def test_map_areas_and_gaps(m, area, gap):
    a, b = wh40k_maps.zones(m)
    assert a.area == pytest.approx(area) and b.area == pytest.approx(area)
    assert a.distance(b) == pytest.approx(gap)
    assert a.intersection(b).area == 0


def test_dawn_of_war_depth_is_a_parameter():
    a, b = wh40k_maps.zones("dawn-of-war", dawn_of_war_depth_in=10.0)
    assert a.bounds == (0, 0, 60, 10) and b.bounds == (0, 34, 60, 44)
    with pytest.raises(ValueError, match="depth"):
        wh40k_maps.zones("dawn-of-war", dawn_of_war_depth_in=23)
    with pytest.raises(ValueError, match="unknown deployment map"):
        wh40k_maps.zones("spearhead")


def test_search_and_destroy_keeps_out_of_the_9_inch_circle():
    a, b = wh40k_maps.zones("search-and-destroy")
    centre = Point(30, 22)
    assert a.distance(centre) >= 9.0 - 1e-9 and b.distance(centre) >= 9.0 - 1e-9
    true_area = 30 * 22 - math.pi * 81 / 4
    assert true_area - 0.1 < a.area < true_area


@pytest.mark.parametrize("m", wh40k_maps.MAPS)
def test_maps_are_point_symmetric(m):
    a, b = wh40k_maps.zones(m)
    mirrored = Polygon([(60 - x, 44 - y) for x, y in a.exterior.coords])
    assert mirrored.symmetric_difference(b).area < 1e-9


def _legal_centres(world, ruleset: str) -> Polygon:
    """Where a 32 mm Infiltrator's centre may stand (exact buffers, then shrunk by 1e-6)."""
    R = edition(ruleset)
    lim = R.INFILTRATORS_MORE_THAN_IN
    bad = [Polygon(z.polygon).buffer(lim + R32, 256) for z in world.zones.values() if z.player == "red"]
    bad += [Point(m.x, m.y).buffer(lim + R32 + 20 / 25.4 if m.base.diameter_mm == 40 else lim + 2 * R32, 256)
            for u in world.units.values() if u.player == "red" for m in u.models]
    return Polygon([(R32, R32), (60 - R32, R32), (60 - R32, 44 - R32), (R32, 44 - R32)]).difference(unary_union(bad))


PLANS = [(f, "wh40k10") for f in sorted(FILES)] + [("dawn-of-war-12in.yaml", "wh40k11"),
                                                   ("search-and-destroy.yaml", "wh40k11")]


@pytest.mark.parametrize(("name", "ruleset"), PLANS)
def test_scenario_is_planned_near_the_centre_and_the_plan_is_legal(name, ruleset):
    data = _data(name, ruleset)
    world = resolve(Scenario.model_validate(data))
    result = plan_deployment(world, FAST)
    assert result.status in ("optimal", "feasible"), result.message
    assert_plan_legal(result)
    planned = resolve(result.scenario, require_positions=True)
    report = check_deployment(planned)
    assert report.legal and report.ruleset == ruleset
    inf = planned.units["infiltrators"]
    closest = min(math.hypot(m.x - 30, m.y - 22) for m in inf.models)
    best = _legal_centres(planned, ruleset).distance(Point(30, 22))
    # never closer than the exact legal region allows, and within the candidate grid of it
    assert closest >= best - 1e-6
    assert closest <= best + FAST.grid_in * math.sqrt(2) + 1.6


def test_the_8_inch_rule_lets_11th_edition_infiltrators_closer():
    objectives = {}
    for ruleset in ("wh40k10", "wh40k11"):
        world = resolve(Scenario.model_validate(_data("search-and-destroy.yaml", ruleset)))
        objectives[ruleset] = plan_deployment(world, FAST).objective
    assert objectives["wh40k11"] < objectives["wh40k10"]
