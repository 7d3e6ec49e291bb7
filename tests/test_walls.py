"""No model stands on a wall (found by a fresh user: plans put models across ruin walls): the
checker refuses it with the ruleset's rule id, at the wall's edge exactly it is allowed, and the
planner's judge never offers it (the one predicate, ``closest_no_go`` over ``Table.no_go_polys``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.legality.checker import check_deployment
from planner.legality.table import Table
from planner.schema import Scenario
from planner.world import load_scenario, resolve

ROOT = Path(__file__).resolve().parents[1]
LAYOUT = ROOT / "scenarios" / "wh40k" / "layouts" / "legal-take-vs-take-01.yaml"
URBAN = ROOT / "scenarios" / "hh2-urban-ravenguard-vs-ironhands.yaml"


def _first_wall(world):
    """The first wall of a feature models may stand in (an area, not impassable)."""
    from planner.schema import TerrainKind

    for t in world.scenario.terrain:
        if t.kind is TerrainKind.AREA and not t.is_impassable:
            for w in t.walls:
                return t, w.polygon()
    raise AssertionError("no wall of an area feature")


@pytest.mark.parametrize(("path", "rule"), [(LAYOUT, "wh40k11.terrain.placement"), (URBAN, "hh2.terrain.impassable")])
def test_a_model_on_a_wall_of_an_area_feature_is_illegal(path, rule):
    world = load_scenario(path, require_positions=True)
    assert check_deployment(world).legal
    t, wall = _first_wall(world)
    data = world.scenario.model_dump(mode="json", by_alias=True, exclude_none=True)
    unit = data["armies"][0]["units"][0]
    m = unit["models"][0]
    c = wall.representative_point()  # inside the wall (an L-shaped wall's centroid may not be)
    m["x"], m["y"] = c.x, c.y
    report = check_deployment(resolve(Scenario.model_validate(data), None, require_positions=True))
    hits = [v for v in report.violations if v.rule == rule and v.unit == unit["id"]]
    assert hits and hits[0].measured < 0
    assert hits[0].message.startswith(f"model {hits[0].model} stands on a wall of {t.id}")
    table = Table(world)  # the one place a message names a no-go feature, also for Deep Strike's messages
    assert table.no_go_place(t.id) == f"on a wall of {t.id}"
    for f in table.no_go_features:
        assert table.no_go_place(f.id) == f"in {f.id}"
        assert table.no_go_place(f.id, kind=True).startswith(f"in {f.id} ({f.kind.value}")


def test_the_planner_places_no_model_on_a_wall():
    from planner.solve.planner import SolverSettings, plan_deployment

    world = load_scenario(ROOT / "scenarios" / "wh40k" / "layouts" / "plan-take-vs-take-02.yaml")
    result = plan_deployment(world, SolverSettings(time_limit_s=15, workers=1))
    assert result.status in ("optimal", "feasible")
    planned = resolve(Scenario.model_validate(result.scenario_data), None, require_positions=True)
    report = check_deployment(planned)
    assert report.legal, [v.message for v in report.violations]
    walls = [w.polygon() for t in planned.scenario.terrain for w in t.walls]

    from planner.geometry.shapes import footprint

    for u in planned.units.values():
        for mi in u.models:
            if mi.x is None:
                continue
            fp = footprint(mi.base, mi.x, mi.y, mi.facing)
            poly = fp.polygon(64)
            assert all(poly.intersection(w).area < 1e-6 for w in walls), (u.id, mi.id)
