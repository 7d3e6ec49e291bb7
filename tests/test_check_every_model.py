"""Every model that fails a per-model rule is named, the worst first, not only the worst one (a
judge moves each): terrain, restrictions, Scout distances, Infiltrators' zone distance, reserves
edges and enemy zones. Each rule with two failing models and one passing at the boundary
("within X"" includes exactly X"; "more than X"" excludes it)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from shapely.geometry import Polygon
from typer.testing import CliRunner

from planner.legality.checker import check_deployment
from planner.schema import Scenario
from planner.world import resolve
from tests.wh40k_helpers import R32, RED_LINE, check, finding, model, unit

R = 0.5  # the radius of a 25.4 mm base, inches


def _one(report, unit_id: str, rule: str):
    """The one finding of ``rule`` for ``unit_id``, and it failed (a violation)."""
    (f,) = [f for u in report.units if u.unit == unit_id for f in u.findings if f.rule == rule]
    assert not f.passed, f.message
    assert [v for v in report.violations if v.rule == rule and v.unit == unit_id][0].message == f.message
    return f


def _hh2(units_red: list[dict], units_blue: list[dict], terrain: tuple[dict, ...] = ()):
    data = {"ruleset": "hh2", "battlefield": {"width": 72, "depth": 48}, "terrain": list(terrain),
            "deployment_zones": [{"id": "zs", "player": "blue", "polygon": [[0, 0], [72, 0], [72, 12], [0, 12]]},
                                 {"id": "zn", "player": "red", "polygon": [[0, 24], [72, 24], [72, 48], [0, 48]]}],
            "armies": [{"player": "red", "units": units_red}, {"player": "blue", "units": units_blue}]}
    return check_deployment(resolve(Scenario.model_validate(data), "t.yaml", require_positions=True))


def _m(x: float, y: float) -> dict:
    return {"base": {"diameter_mm": 25.4}, "type": "Infantry", "x": x, "y": y}


# ------------------------------------------------------------------ terrain
BLOCK = {"id": "blk", "kind": "solid", "height_in": 5, "footprint": [[20, 2], [30, 2], [30, 10], [20, 10]]}


def test_40k_every_model_in_a_solid_feature_is_named_deepest_first():
    # model 1 touches the block (allowed), model 2 is 0.5" in, model 3 0.3" in
    u = unit("u", [model(20 - R32, 3), model(20 - R32 + 0.5, 5.5), model(20 - R32 + 0.3, 8)])
    f = _one(check("wh40k10", [u], [RED_LINE], terrain=[BLOCK]), "u", "wh40k10.terrain.placement")
    assert f.model == "2" and f.measured == pytest.approx(-0.5)
    assert f.message == 'model 2 stands in blk (solid); also model 3 (in blk, 0.300" deep)', f.message
    assert f.failing_models == ["2", "3"]


def test_40k_one_model_in_terrain_lists_no_others_and_a_passing_finding_is_unchanged():
    one = unit("u", [model(20 - R32, 3), model(20 - R32 + 0.5, 5.5)])
    f = _one(check("wh40k10", [one], [RED_LINE], terrain=[BLOCK]), "u", "wh40k10.terrain.placement")
    assert f.message == "model 2 stands in blk (solid)" and f.failing_models == ["2"]
    clear = unit("u", [model(20 - R32, 3), model(20 - R32, 5.5)])
    ok = finding(check("wh40k10", [clear], [RED_LINE], terrain=[BLOCK]), "u", "wh40k10.terrain.placement")
    assert ok.passed and ok.failing_models == [] and "also" not in ok.message
    assert ok.message == 'no model in impassable terrain, a solid feature or a wall; closest: model 1, 0.000" from blk'


def test_hh2_every_model_in_impassable_terrain_is_named_deepest_first():
    pit = {"id": "pit", "kind": "area", "traits": ["impassable"], "footprint": [[20, 2], [30, 2], [30, 10], [20, 10]]}
    blue = [{"id": "tac", "models": [_m(20 - R, 3), _m(20 - R + 0.25, 4.5), _m(20 - R + 0.75, 6)]}]
    red = [{"id": "far", "models": [_m(36, 40)]}]
    f = _one(_hh2(red, blue, (pit,)), "tac", "hh2.terrain.impassable")
    assert f.model == "3" and f.measured == pytest.approx(-0.75)
    assert f.message == 'model 3 stands in pit (area, impassable); also model 2 (in pit, 0.250" deep)', f.message
    assert f.failing_models == ["3", "2"]


# ------------------------------------------------------------------ restrictions
WARD = [{"methods": ["scout"], "name": "ward", "source": "test", "within_in": 12.0}]


def test_restriction_names_every_model_within_exactly_x_counts():
    red = [{"id": "red-a", "restrictions": WARD, "models": [_m(36, 26), _m(37.5, 26), _m(39, 26)]}]
    # straight below each ward model: 12.0" (within), 11.7" (within, the closest), 12.01" (not)
    blue = [{"id": "sc", "rules": ["Scout"], "models": [_m(36, 13.0), _m(37.5, 13.3), _m(39, 12.99)],
             "setup": {"method": "scout", "first": "deployment_zone", "from": [[36, 10], [37.5, 10], [39, 10]]}}]
    f = _one(_hh2(red, blue), "sc", "hh2.restriction.within")
    assert f.model == "2" and f.measured == pytest.approx(11.7)
    assert f.message.endswith('[test]; also model 1 (12.000" from red-a)'), f.message
    assert f.failing_models == ["2", "1"]


# ------------------------------------------------------------------ HH2 Scout
def test_hh2_scout_more_than_9_names_every_model_not_more_than_9():
    red = [{"id": "red-a", "models": [_m(36, 26), _m(37.5, 26), _m(39, 26)]}]
    blue = [{"id": "sc", "rules": ["Scout"], "models": [_m(36, 16.0), _m(37.5, 16.5), _m(39, 15.99)],
             "setup": {"method": "scout", "first": "deployment_zone", "from": [[36, 11], [37.5, 11], [39, 11]]}}]
    r = _hh2(red, blue)
    f = _one(r, "sc", "hh2.scout.more_than_9")
    assert f.model == "2" and f.measured == pytest.approx(8.5)
    assert f.message.endswith('needs more than 9"; also model 1 (9.000" from red-a/1)'), f.message
    assert f.failing_models == ["2", "1"]
    assert finding(r, "sc", "hh2.scout.distance").passed  # 5.5" of 6"


def test_hh2_scout_distance_names_every_model_moved_too_far():
    red = [{"id": "red-a", "models": [_m(36, 40)]}]
    # Infantry: entirely within 6" of its position; moved 6.0 (allowed), 6.5, 6.2
    blue = [{"id": "sc", "rules": ["Scout"], "models": [_m(36, 8.0), _m(37.5, 8.5), _m(39, 8.2)],
             "setup": {"method": "scout", "first": "deployment_zone", "from": [[36, 2], [37.5, 2], [39, 2]]}}]
    f = _one(_hh2(red, blue), "sc", "hh2.scout.distance")
    assert f.model == "2" and f.measured == pytest.approx(6.5)
    assert f.message.endswith('more than 6"; also model 3 (6.200" from where it stood)'), f.message
    assert f.failing_models == ["2", "3"]


# ------------------------------------------------------------------ 40k
def test_40k_scouts_distance_names_every_model_moved_too_far():
    u = unit("sc", [model(30, 8.0), model(32, 8.5), model(34, 8.2)], abilities=['Scouts 6"'],
             setup={"method": "scout", "from": [[30, 2], [32, 2], [34, 2]]})
    f = _one(check("wh40k10", [u], [RED_LINE]), "sc", "wh40k10.scouts.distance")
    assert f.model == "2" and f.measured == pytest.approx(6.5)
    assert f.message == 'model 2 moved 6.500" of up to 6"; also model 3 (moved 6.200")', f.message
    assert f.failing_models == ["2", "3"]


def test_40k_infiltrators_zone_distance_names_every_model_not_more_than_9():
    edge = 32.0  # the red zone's edge (Dawn of War, 12" deep)
    u = unit("inf", [model(30, edge - R32 - 9.0), model(32, edge - R32 - 8.5), model(34, edge - R32 - 9.01)],
             abilities=["Infiltrators"], setup="infiltrate")
    f = _one(check("wh40k10", [u], [RED_LINE]), "inf", "wh40k10.infiltrators.zone_distance")
    assert f.model == "2" and f.measured == pytest.approx(8.5)
    assert f.message.endswith('needs more than 9"; also model 1 (9.000" from red-dz)'), f.message
    assert f.failing_models == ["2", "1"]


def test_40k_reserves_edge_names_every_model_not_wholly_within_6():
    arrive = {"method": "reserves", "arrival": "reserves", "battle_round": 2}
    u = unit("res", [model(6 - R32, 20), model(6.5 - R32, 21.5), model(6.2 - R32, 23)], setup=arrive)
    r = check("wh40k10", [u], [RED_LINE])
    f = _one(r, "res", "wh40k10.reserves.edge")
    assert f.model == "2" and f.measured == pytest.approx(6.5)
    assert f.message.endswith('battlefield edge (6.500"); also model 3 (6.200")'), f.message
    assert f.failing_models == ["2", "3"]


def test_40k_reserves_enemy_zone_names_every_model_within_it():
    arrive = {"method": "reserves", "arrival": "reserves", "battle_round": 2}
    far = unit("far", [model(50, 5)])
    # the red zone starts at y = 32: touching it (within), in it, 0.01" short of it (not within)
    u = unit("res", [model(3, 32 - R32 - 0.01), model(4.5, 32 - R32), model(3, 33.5)], setup=arrive)
    f = _one(check("wh40k10", [u], [far]), "res", "wh40k10.reserves.enemy_zone")
    assert f.message == "model 2 is within enemy deployment zone red-dz in battle round 2; also model 3 (within red-dz)"
    assert f.failing_models == ["2", "3"]


# ------------------------------------------------------------------ the CLI, on a file
def test_cli_check_names_every_model_in_terrain(tmp_path):
    import yaml

    from planner.cli.commands import app

    data = {"ruleset": "wh40k10", "battlefield": {"width": 60, "depth": 44}, "terrain": [BLOCK],
            "deployment_zones": [{"id": "blue-dz", "player": "blue", "polygon": [[0, 0], [60, 0], [60, 12], [0, 12]]}],
            "armies": [{"player": "blue", "units": [unit("u", [model(20 - R32 + 0.5, 3), model(20 - R32 + 0.3, 4.5),
                                                               model(20 - R32, 6)])]}]}
    path = tmp_path / "terrain.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    before = path.read_text(encoding="utf-8")
    res = CliRunner().invoke(app, ["check", str(path), "--json", str(tmp_path / "r.json")])
    assert res.exit_code == 1, res.output
    import json

    (f,) = [f for u in json.loads((tmp_path / "r.json").read_text())["units"] for f in u["findings"]
            if f["rule"] == "wh40k10.terrain.placement"]
    assert f["failing_models"] == ["1", "2"] and "also model 2 (in blk, 0.300\" deep)" in f["message"]
    assert path.read_text(encoding="utf-8") == before


# ------------------------------------------------------------------ the predicate, against brute force
disc = st.builds(lambda x, y, r: (x, y, r), st.floats(0, 12), st.floats(0, 12), st.floats(0.3, 1.2))
box = st.builds(lambda x, y, w, h: (x, y, w, h), st.floats(0, 10), st.floats(0, 10), st.floats(0.5, 4),
                st.floats(0.5, 4))


@settings(max_examples=60, deadline=None)
@given(st.lists(disc, min_size=1, max_size=8), st.lists(box, min_size=1, max_size=3))
def test_every_in_no_go_is_every_base_standing_in_a_feature(discs, boxes):
    """Its bounds skip no base that stands in a feature: the same bases, deepest first, as
    measuring every pair; closest_no_go leads with the deepest and lists them all."""
    from planner.geometry.shapes import Footprint, distance_to_polygon
    from planner.legality.checks.placement import closest_no_go, every_in_no_go, no_go_lower_bounds
    from planner.units import TOLERANCE_IN

    fps = [Footprint("circle", x, y, r) for x, y, r in discs]
    feats = [(f"t{k}", Polygon([(x, y), (x + w, y), (x + w, y + h), (x, y + h)])) for k, (x, y, w, h) in
             enumerate(boxes)]
    got = every_in_no_go(fps, feats, no_go_lower_bounds(fps, feats))
    deepest = {i: min(distance_to_polygon(f, p) for _, p in feats) for i, f in enumerate(fps)}
    want = sorted((d, i) for i, d in deepest.items() if d < -TOLERANCE_IN)
    assert [(g.distance, g.index) for g in got] == want
    best = closest_no_go(fps, feats)
    assert best is not None
    if want:
        assert not best.ok and best.inside == got and (best.distance, best.index) == want[0]
    else:
        assert best.ok and best.inside == () and math.isfinite(best.distance)
