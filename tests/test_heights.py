"""Heights (issue #15): 2.5D line of sight, features of several pieces, walls, floors, and the
distances per the rules' words, with stated answers; soundness of "hidden" against a dense 3D
brute-force sampler.

Definition under test (planner.geometry.sight.line_of_sight with ``tops``): a model is a volume
(its base from ``z`` to ``z + height``); A sees B if some straight segment from a point of A's
volume to a point of B's passes above every piece it crosses (a piece blocks where its top is
higher than the segment there, by more than the tolerance).
"""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
import shapely
from shapely.geometry import LineString, Point, box

from planner.geometry.shapes import Footprint, footprint, signed_distance
from planner.geometry.sight import Obstacle, crossings, line_of_sight
from planner.legality.checker import check_deployment
from planner.legality.report import LegalityReport
from planner.schema import Scenario
from planner.units import TOLERANCE_IN
from planner.world import resolve
from tests.test_sight import _boundary, _random_base, _random_obstacle

R32 = 16 / 25.4
R25 = 12.5 / 25.4

# ----------------------------------------------------------------------------- the dense 3D sampler


def _sampled_clear_3d(a: Footprint, b: Footprint, obstacles: list[Obstacle], tops, n: int = 30) -> bool:
    """Brute force: is some segment between sampled points of the two bases (at the two tops,
    the highest a segment can be) clear of every obstacle, with a margin (so a grazing line that
    rounding might read either way never counts)? Written apart from the engine: the segment's
    height is interpolated at every point where it enters or leaves a piece."""
    pa, pb = _boundary(a, n), _boundary(b, n)
    ii, jj = np.meshgrid(np.arange(len(pa)), np.arange(len(pb)), indexing="ij")
    p, q = pa[ii.ravel()], pb[jj.ravel()]
    lines = shapely.linestrings(np.stack([p, q], axis=1))
    ok = np.ones(len(lines), dtype=bool)
    ta, tb = tops
    for o in obstacles:
        poly = o.polygon.buffer(-1e-5)
        if poly.is_empty:
            continue
        shapely.prepare(poly)
        idx = np.nonzero(ok)[0]
        crossed = idx[shapely.intersects(lines[idx], poly)]
        if o.height is None or not len(crossed):
            ok[crossed] = False
            continue
        pts, k = shapely.get_coordinates(shapely.intersection(lines[crossed], poly), return_index=True)
        which = crossed[k]
        d = q[which] - p[which]
        s = ((pts - p[which]) * d).sum(axis=1) / (d * d).sum(axis=1)
        z = ta + (tb - ta) * s
        low = z < o.height + 1e-5  # not clearly above the top
        ok[np.unique(which[low])] = False
    return bool(ok.any())


def _evidence_ok(seg, a: Footprint, b: Footprint, obstacles, tops) -> bool:
    """The evidence joins the two bases and passes above every piece it crosses (3D)."""
    p, q = seg

    def near(pt, fp):
        return fp.polygon(512, circumscribed=True).distance(Point(pt)) <= 1e-3

    if near(p, b) and near(q, a) and not (near(p, a) and near(q, b)):
        p, q, tops = q, p, tops  # the plane search may give the line from b to a
    if not (near(p, a) and near(q, b)):
        return False
    line = LineString([p, q])
    for o in obstacles:
        inter = line.intersection(o.polygon.buffer(-1e-6))
        if inter.is_empty:
            continue
        if o.height is None:
            return False
        pts = shapely.get_coordinates(inter)
        s = ((pts[:, 0] - p[0]) * (q[0] - p[0]) + (pts[:, 1] - p[1]) * (q[1] - p[1])) / line.length ** 2
        if (tops[0] + (tops[1] - tops[0]) * s < o.height - 1e-5).any():
            return False
    return True


N_SCENES = 1000


def _scene(rng: random.Random):
    while True:
        a = footprint(_random_base(rng), rng.uniform(5, 15), rng.uniform(5, 15), rng.uniform(-180, 180))
        b = footprint(_random_base(rng), rng.uniform(12, 25), rng.uniform(5, 20), rng.uniform(-180, 180))
        if signed_distance(a, b) > 0.05:
            break
    tops = (rng.choice([1.25, 2.5, rng.uniform(0.5, 4.0)]) + rng.choice([0.0, 0.0, rng.uniform(0, 6)]),
            rng.choice([1.25, 2.5, rng.uniform(0.5, 4.0)]) + rng.choice([0.0, 0.0, rng.uniform(0, 6)]))
    obstacles = []
    for k in range(rng.randint(1, 4)):
        o = _random_obstacle(rng, a, b, k)
        r = rng.random()
        h = None if r < 0.15 else rng.choice([tops[0], tops[1], rng.uniform(0.2, max(tops) + 2)])
        obstacles.append(Obstacle(o.id, o.polygon, h, "piece 0"))
    return a, b, obstacles, tops


@pytest.mark.slow
def test_hidden_is_sound_against_a_dense_3d_sampler_on_1000_scenes():
    rng = random.Random(1515)
    counts = {"hidden": 0, "visible": 0, "unproven": 0, "unproven_sampler_clear": 0}
    for case in range(N_SCENES):
        a, b, obstacles, tops = _scene(rng)
        s = line_of_sight(a, b, obstacles, tops)
        clear = _sampled_clear_3d(a, b, obstacles, tops)
        ctx = f"scene {case}: a={a}, b={b}, tops={tops}, obstacles={[(o.polygon.wkt, o.height) for o in obstacles]}"
        if clear:
            assert s.visible, f"the sampler found a clear 3D segment but the verdict is hidden; {ctx}"
        if not s.visible:
            counts["hidden"] += 1
            assert set(s.blocking) <= {o.id for o in obstacles} and s.blocking, ctx
        elif s.proven:
            counts["visible"] += 1
            assert _evidence_ok(s.segment, a, b, obstacles, tops), f"evidence {s.segment} is not a clear line; {ctx}"
        else:
            counts["unproven"] += 1
            counts["unproven_sampler_clear"] += clear
    assert counts["hidden"] >= N_SCENES // 10, counts
    assert counts["visible"] >= N_SCENES // 10, counts
    # undecided scenes read as visible (never a guessed hidden); they must stay rare
    assert counts["unproven"] <= N_SCENES // 100, counts


def test_infinite_heights_give_todays_2d_verdicts():
    """Every piece higher than both tops (or with no height) blocks as in the plane: the same
    verdict as the 2D test on the same scenes, with the same blocking features."""
    rng = random.Random(77)
    for _ in range(60):
        a, b, obstacles, tops = _scene(rng)
        flat = line_of_sight(a, b, [Obstacle(o.id, o.polygon) for o in obstacles])
        tall = line_of_sight(a, b, [Obstacle(o.id, o.polygon, max(tops) + 1.0) for o in obstacles], tops)
        none = line_of_sight(a, b, [Obstacle(o.id, o.polygon) for o in obstacles], tops)
        assert flat.visible == tall.visible == none.visible
        assert flat.blocking == tall.blocking == none.blocking


def test_pieces_no_higher_than_the_lower_top_never_block():
    a = footprint(_random_base(random.Random(1)), 0, 0)
    b = footprint(_random_base(random.Random(2)), 20, 0)
    wall = Obstacle("wall", box(9, -30, 10, 30), 1.25)
    assert line_of_sight(a, b, [wall], (1.25, 6.0)).visible  # exactly the lower top: passes over
    assert not line_of_sight(a, b, [Obstacle("wall", wall.polygon)], (1.25, 6.0)).visible


# ----------------------------------------------------------------------------- stated answers (HH2)


def _hh2(ours, theirs, terrain) -> LegalityReport:
    data = {"ruleset": "hh2", "battlefield": {"width": 72, "depth": 48}, "terrain": terrain,
            "deployment_zones": [{"id": "blue-dz", "player": "blue", "polygon": [[0, 0], [72, 0], [72, 12], [0, 12]]},
                                 {"id": "red-dz", "player": "red", "polygon": [[0, 36], [72, 36], [72, 48], [0, 48]]}],
            "armies": [{"player": "red", "units": ours}, {"player": "blue", "units": theirs}]}
    return check_deployment(resolve(Scenario.model_validate(data), require_positions=True))


def _rules(report: LegalityReport, unit: str) -> set[str]:
    return {v.rule for v in report.violations if v.unit == unit}


ENEMY = {"id": "tacticals", "type": "Infantry", "models": [{"base": {"diameter_mm": 32}, "x": 36, "y": 10}]}
"""An enemy Legionary on the table: 1.25" tall (the HH2 default for Infantry)."""
Y_VEHICLE = 10 + R32 + 10 + 1.0  # the Rhino's hull (2" deep) starts 10" from the enemy's base


def _vehicle(**model):
    return {"id": "rhino", "type": "Vehicle", "rules": ["Infiltrate"], "setup": {"method": "infiltrate"},
            "models": [{"base": {"length_in": 4.0, "width_in": 2.0}, "x": 36, "y": Y_VEHICLE, "facing": 0,
                        "height_in": 2.5, **model}]}


def _wall(height):
    return {"id": "wall", "kind": "solid", "traits": ["blocks_line_of_sight"], "height_in": height,
            "footprint": [[24, 15], [48, 15], [48, 15.5], [24, 15.5]]}


def test_a_rhino_behind_a_1_inch_wall_is_seen_and_needs_more_than_12():
    report = _hh2([_vehicle()], [ENEMY], [_wall(1.0)])
    assert _rules(report, "rhino") == {"hh2.infiltrate.hidden"}  # 10": hidden needed, and it is seen
    hidden = next(f for u in report.units if u.unit == "rhino" for f in u.findings if f.rule == "hh2.infiltrate.hidden")
    assert hidden.evidence.observer_units == ["tacticals"]


def test_a_rhino_behind_a_4_inch_wall_is_hidden():
    report = _hh2([_vehicle()], [ENEMY], [_wall(4.0)])
    assert _rules(report, "rhino") == set()


def test_a_flat_piece_of_height_0_is_allowed_and_never_blocks_by_height():
    """Ruling (planner.schema.TerrainTop): a top of 0 is a flat mat or road; every line between
    two models runs above the table, so it hides nothing: the Rhino is seen (and needs more than
    12"), as with no terrain at all, and as with a 0.01" top; the same footprint with no height
    blocks every line."""
    seen = {"hh2.infiltrate.hidden"}
    assert _rules(_hh2([_vehicle()], [ENEMY], []), "rhino") == seen
    for top in (0, 0.0, 0.01):
        assert _rules(_hh2([_vehicle()], [ENEMY], [_wall(top)]), "rhino") == seen, top
    assert _rules(_hh2([_vehicle()], [ENEMY], [{**_wall(1.0), "height_in": None}]), "rhino") == set()
    # a piece and a wall may be flat too; a model may not (a model is a volume)
    piece = {"id": "road", "kind": "open", "pieces": [{"footprint": [[24, 15], [48, 15], [48, 15.5], [24, 15.5]],
                                                       "height_in": 0}],
             "walls": [{"points": [[24, 15.25], [48, 15.25]], "height_in": 0}], "traits": ["blocks_line_of_sight"]}
    assert _rules(_hh2([_vehicle()], [ENEMY], [piece]), "rhino") == seen
    with pytest.raises(ValueError, match="greater than 0"):
        _hh2([_vehicle(height_in=0)], [ENEMY], [])
    with pytest.raises(ValueError, match="greater than or equal to 0"):
        _hh2([_vehicle()], [ENEMY], [_wall(-0.5)])


def test_the_wall_height_boundary():
    """Both models 2.5" tall: the highest line is level at 2.5"; a wall exactly 2.5" high is
    passed over, one 2.5" + 2 x tolerance high hides the Rhino."""
    ours, theirs = _vehicle(), {**ENEMY, "models": [{**ENEMY["models"][0], "height_in": 2.5}]}
    assert _rules(_hh2([ours], [theirs], [_wall(2.5)]), "rhino") == {"hh2.infiltrate.hidden"}
    assert _rules(_hh2([ours], [theirs], [_wall(2.5 + TOLERANCE_IN / 2)]), "rhino") == {"hh2.infiltrate.hidden"}
    assert _rules(_hh2([ours], [theirs], [_wall(2.5 + 2 * TOLERANCE_IN)]), "rhino") == set()


def test_a_wall_of_a_feature_blocks_with_its_own_height():
    low_piece = {"id": "ruin", "kind": "area", "traits": ["blocks_line_of_sight"], "height_in": 0.5,
                 "footprint": [[24, 13], [48, 13], [48, 18], [24, 18]]}
    assert _rules(_hh2([_vehicle()], [ENEMY], [low_piece]), "rhino") == {"hh2.infiltrate.hidden"}
    walled = {**low_piece, "walls": [{"points": [[24, 15.25], [48, 15.25]], "thickness_in": 0.5, "height_in": 4}]}
    assert _rules(_hh2([_vehicle()], [ENEMY], [walled]), "rhino") == set()


def test_two_pieces_sharing_an_edge_give_the_same_verdicts_as_one_polygon():
    one = {"id": "ruin", "kind": "area", "traits": ["blocks_line_of_sight"], "height_in": 3.0,
           "footprint": [[30, 13], [42, 13], [42, 18], [30, 18]]}
    two = {"id": "ruin", "kind": "area", "traits": ["blocks_line_of_sight"], "height_in": 3.0,
           "pieces": [{"footprint": [[30, 13], [36, 13], [36, 18], [30, 18]]},
                      {"footprint": [[36, 13], [42, 13], [42, 18], [36, 18]]}]}
    rng = random.Random(5)
    seen = set()
    for _ in range(40):
        # the Infiltrator stands around the ruin, often in one half of it
        x, y = rng.uniform(28, 44), rng.uniform(12, 20)
        ours = [{"id": "scouts", "type": "Infantry", "rules": ["Infiltrate"], "setup": {"method": "infiltrate"},
                 "models": [{"base": {"diameter_mm": 25}, "x": x, "y": y}]}]
        enemy = [{**ENEMY, "models": [{"base": {"diameter_mm": 32}, "x": rng.uniform(30, 42), "y": 2}]}]
        r1, r2 = _hh2(ours, enemy, [one]), _hh2(ours, enemy, [two])
        assert _rules(r1, "scouts") == _rules(r2, "scouts"), (x, y)
        seen.add(frozenset(_rules(r1, "scouts")))
    assert len(seen) >= 2  # the scenes give more than one verdict


def test_standing_in_either_half_of_a_ruin_is_standing_in_the_ruin():
    two = {"id": "ruin", "kind": "area", "traits": ["blocks_line_of_sight"], "standing_in": "wholly",
           "pieces": [{"footprint": [[30, 13], [36, 13], [36, 18], [30, 18]]},
                      {"footprint": [[36, 13], [42, 13], [42, 18], [36, 18]]}]}
    # a base across the shared edge is wholly within the ruin: it sees out, so it is seen
    ours = [{"id": "scouts", "type": "Infantry", "rules": ["Infiltrate"], "setup": {"method": "infiltrate"},
             "models": [{"base": {"diameter_mm": 25}, "x": 36, "y": 14.0}]}]
    enemy = {**ENEMY, "models": [{"base": {"diameter_mm": 32}, "x": 36, "y": 2}]}  # 10.9" away: hidden needed
    assert _rules(_hh2(ours, [enemy], [two]), "scouts") == {"hh2.infiltrate.hidden"}
    ours[0]["models"][0]["y"] = 18.1  # partly out of the far side: not wholly within, hidden by it
    enemy["models"][0]["y"] = 6.0  # 10.98" away
    assert _rules(_hh2(ours, [enemy], [two]), "scouts") == set()


# ----------------------------------------------------------------------------- distances between floors

TOWER = {"id": "tower", "kind": "open", "footprint": [[20, 18], [52, 18], [52, 30], [20, 30]],
         "floors": [{"height_in": 0}, {"height_in": 6.0}]}
"""A gantry with a 6" floor (open terrain: it does not block sight)."""


def _floors(*heights, polygon=((0, 0), (60, 0), (60, 44), (0, 44))):
    return {"id": "gantry", "kind": "open", "footprint": [list(p) for p in polygon],
            "floors": [{"height_in": h} for h in heights]}


def _infiltrator_on_floor(z, dy_horizontal):
    return [{"id": "scouts", "type": "Infantry", "rules": ["Infiltrate"], "setup": {"method": "infiltrate"},
             "models": [{"base": {"diameter_mm": 25}, "x": 36, "y": 10 + R32 + dy_horizontal + R25, "z": z}]}]


def test_hh2_distances_between_floors_are_measured_in_space():
    """HH2 (planner ruling): an Infiltrator on a 6" floor above a 1.25" Legionary is 4.75" above
    it; the distance is the closest-point distance in space."""
    v = 6.0 - 1.25
    h_exact = math.sqrt(12.0 ** 2 - v ** 2)  # exactly 12" in space: not more than 12"
    at = _hh2(_infiltrator_on_floor(6.0, h_exact), [ENEMY], [TOWER])
    past = _hh2(_infiltrator_on_floor(6.0, h_exact + 0.001), [ENEMY], [TOWER])
    assert _rules(at, "scouts") == {"hh2.infiltrate.hidden"}  # in plain sight at exactly 12"
    assert _rules(past, "scouts") == set()
    d = next(f for u in past.units if u.unit == "scouts" for f in u.findings if f.rule == "hh2.infiltrate.distance")
    assert d.measured == pytest.approx(math.hypot(h_exact + 0.001, v), abs=1e-9)


# ----------------------------------------------------------------------------- 40k: horizontally, and 5" vertically


def _wh40k(ruleset, blue, red, floors=()):
    from tests.wh40k_helpers import check

    return check(ruleset, blue, red, terrain=[_floors(*floors)] if floors else ())


@pytest.mark.parametrize(("ruleset", "limit"), [("wh40k10", 9.0), ("wh40k11", 8.0)])
def test_40k_setup_distances_are_horizontal_on_any_floor(ruleset, limit):
    from tests.wh40k_helpers import RED_LINE, failed, model, unit

    def blue(dy):  # an Infiltrator on a 6" floor, ``dy`` horizontally from the red model's base
        return [unit("inf", [model(30, 30 - R32 - dy - R32, z=6.0)], abilities=["Infiltrators"],
                     setup={"method": "infiltrate"})]

    red = [RED_LINE, unit("red-ruin", [model(30, 30)])]
    assert f"{ruleset}.infiltrators.distance" in failed(_wh40k(ruleset, blue(limit), red, [6.0]), "inf")
    assert f"{ruleset}.infiltrators.distance" not in failed(_wh40k(ruleset, blue(limit + 0.001), red, [6.0]), "inf")


@pytest.mark.parametrize(("ruleset", "er"), [("wh40k10", 1.0), ("wh40k11", 2.0)])
def test_40k_coherency_and_engagement_have_a_5_inch_vertical_part(ruleset, er):
    from tests.wh40k_helpers import RED_LINE, failed, finding, model, unit

    # two models 1" apart in plan; the second on a floor: 5" above the first's 1.25" top is
    # exactly within 5" vertically, 5.001" is not
    def squad(z):
        return unit("squad", [model(10, 6), model(10 + 2 * R32 + 1.0, 6, z=z)], setup={"method": "deployment_zone"})

    assert f"{ruleset}.coherency" not in failed(_wh40k(ruleset, [squad(1.25 + 5.0)], [RED_LINE], [6.25]), "squad")
    report = _wh40k(ruleset, [squad(1.25 + 5.001)], [RED_LINE], [6.251])
    assert f"{ruleset}.coherency" in failed(report, "squad")
    assert finding(report, "squad", f"{ruleset}.coherency").margin == pytest.approx(-0.001, abs=1e-9)

    # Engagement Range: an enemy model ER - 0.5" away in plan, on a floor 5" (engaged) or 5.001"
    # (not engaged) above the blue model's top
    def enemy(z):
        return unit("red-close", [model(40, 20 + 2 * R32 + er - 0.5, z=z)], setup={"method": "deployment_zone"})

    blue = [unit("b", [model(40, 20)], setup={"method": "deployment_zone"})]
    zones = [{"id": "blue-dz", "player": "blue", "polygon": [[0, 0], [60, 0], [60, 30], [0, 30]]},
             {"id": "red-dz", "player": "red", "polygon": [[0, 14], [60, 14], [60, 44], [0, 44]]}]
    from tests.wh40k_helpers import check

    engaged = check(ruleset, blue, [RED_LINE, enemy(1.25 + 5.0)], zones=zones, terrain=[_floors(6.25)])
    free = check(ruleset, blue, [RED_LINE, enemy(1.25 + 5.001)], zones=zones, terrain=[_floors(6.251)])
    assert f"{ruleset}.engagement" in failed(engaged, "b")
    assert f"{ruleset}.engagement" not in failed(free, "b")


# ----------------------------------------------------------------------------- evidence


def test_crossings_name_the_piece_and_the_height_the_line_passes_it():
    wall = Obstacle("ruin", box(9, -5, 10, 5), 1.0, "walls[0]")
    tall = Obstacle("bastion", box(14, -5, 15, 5), 6.0, "piece 0")
    got = crossings((0.0, 0.0), (20.0, 0.0), (1.25, 2.5), [wall, tall])
    assert [(c.id, c.piece, c.top) for c in got] == [("ruin", "walls[0]", 1.0), ("bastion", "piece 0", 6.0)]
    assert got[0].line_height == pytest.approx(1.25 + 1.25 * 9 / 20, abs=1e-6)
    assert not got[0].blocks and got[1].blocks


def test_hidden_evidence_names_the_blocking_piece_and_the_line_height():
    report = _hh2([_vehicle()], [ENEMY], [_wall(4.0)])
    hidden = next(f for u in report.units if u.unit == "rhino" for f in u.findings if f.rule == "hh2.infiltrate.hidden")
    (sp,) = hidden.evidence.sight_passes
    assert (sp.feature, sp.piece, sp.top_in, sp.blocks) == ("wall", "", 4.0, True)
    # the centre line runs from the Legionary's top (1.25" at y=10) to the Rhino's (2.5" at y=Y_VEHICLE);
    # it is lowest over the wall where it enters it, at y = 15
    assert sp.line_in == pytest.approx(1.25 + 1.25 * 5 / (Y_VEHICLE - 10), abs=1e-6)
    assert 'wall (top 4")' in hidden.message


def test_seen_evidence_says_how_high_the_line_passes_the_wall():
    report = _hh2([_vehicle()], [ENEMY], [_wall(1.0)])
    seen = next(f for u in report.units if u.unit == "rhino" for f in u.findings if f.rule == "hh2.infiltrate.hidden")
    (sp,) = seen.evidence.sight_passes
    assert (sp.feature, sp.top_in, sp.blocks) == ("wall", 1.0, False) and sp.line_in > 1.25


def test_the_picture_shows_heights_walls_floors_and_the_blocking_piece():
    from planner.render.draw import render_bytes
    from tests.test_render import svg_ids

    ruin = {"id": "ruin", "kind": "area", "traits": ["blocks_line_of_sight"], "height_in": 0.5,
            "pieces": [{"footprint": [[20, 20], [26, 20], [26, 26], [20, 26]], "height_in": 6},
                       {"footprint": [[26, 20], [32, 20], [32, 26], [26, 26]]}],
            "walls": [{"points": [[20, 20], [32, 20]], "thickness_in": 0.25, "height_in": 3}],
            "floors": [{"height_in": 0}, {"height_in": 3, "footprint": [[20, 20], [26, 20], [26, 26], [20, 26]]}]}
    data = {"ruleset": "hh2", "battlefield": {"width": 72, "depth": 48}, "terrain": [ruin, _wall(4.0)],
            "deployment_zones": [{"id": "blue-dz", "player": "blue", "polygon": [[0, 0], [72, 0], [72, 12], [0, 12]]},
                                 {"id": "red-dz", "player": "red", "polygon": [[0, 36], [72, 36], [72, 48], [0, 48]]}],
            "armies": [{"player": "red", "units": [_vehicle()]}, {"player": "blue", "units": [ENEMY]}]}
    world = resolve(Scenario.model_validate(data), require_positions=True)
    report = check_deployment(world)
    svg, summary = render_bytes(world, "svg", report)
    ids = set(svg_ids(svg))
    assert {"terrain-ruin-piece-0", "terrain-ruin-piece-1", "height-terrain-ruin-piece-0", "wall-ruin-0",
            "height-wall-ruin-0", "floor-ruin-1", "floor-label-ruin-1"} <= ids
    assert "floor-ruin-0" not in ids  # the ground floor is the table
    assert any(i.startswith("sightline-blocked-rhino-tacticals-pass-wall") for i in ids), sorted(ids)
    assert summary.counts["wall"] == 1 and summary.counts["floor"] == 1
    assert b'top 4&quot; above the line at 1.' in svg or b'top 4" above the line at 1.' in svg


def test_a_model_above_the_table_must_stand_on_a_floor_of_that_height(tmp_path):
    from typer.testing import CliRunner

    from planner.cli import app

    data = {"ruleset": "hh2", "battlefield": {"width": 72, "depth": 48}, "terrain": [TOWER],
            "deployment_zones": [{"id": "blue-dz", "player": "blue", "polygon": [[0, 0], [72, 0], [72, 12], [0, 12]]},
                                 {"id": "red-dz", "player": "red", "polygon": [[0, 36], [72, 36], [72, 48], [0, 48]]}],
            "armies": [{"player": "red", "units": _infiltrator_on_floor(5.0, 12.0)},
                       {"player": "blue", "units": [ENEMY]}]}
    path = tmp_path / "floor.yaml"
    import yaml

    path.write_text(yaml.safe_dump(data))
    r = CliRunner().invoke(app, ["check", str(path)])
    assert r.exit_code == 2, r.output
    assert "armies[0].units[0].models[0].z" in r.output and "no floor 5" in r.output and "floor.yaml" in r.output
    data["armies"][0]["units"] = _infiltrator_on_floor(6.0, 12.0)
    path.write_text(yaml.safe_dump(data))
    r = CliRunner().invoke(app, ["check", str(path)])
    assert r.exit_code == 0, r.output  # 12" across and 4.75" up: more than 12" away, legal in plain sight


def test_every_40k_profile_has_a_height_and_every_unit_type_a_default():
    import yaml

    from planner.rules.registry import find_ruleset
    from planner.schema import UnitType

    here = __import__("pathlib").Path(__file__).resolve().parents[1]
    for path in (here / "models" / "wh40k").glob("*.yaml"):
        for e in yaml.safe_load(path.read_text())["entries"]:
            assert isinstance(e.get("height_in"), float) and 0.5 <= e["height_in"] <= 12, (path.name, e["id"])
    for rid in ("hh2", "wh40k10", "wh40k11"):
        rs = find_ruleset(rid)
        assert set(rs.MODEL_HEIGHT_IN) == {t.value for t in UnitType}, rid
        assert rs.MODEL_HEIGHT_IN["Infantry"] < rs.MODEL_HEIGHT_IN["Vehicle"] < rs.MODEL_HEIGHT_IN["Knight"]


@pytest.mark.parametrize(("target_x", "observer_x", "seen"), [
    (32.3, 20.0, False),  # target partly in the ruin: a line through the ruin does not reach it
    (30.0, 20.0, True),  # target wholly within: seen
    (40.0, 28.2, True),  # observer partly in the ruin (standing_in: partly): sees out of it
    (40.0, 20.0, False),  # nobody in the ruin: it blocks
])
def test_10th_edition_ruins_tell_the_two_sides_of_a_sight_line_apart(target_x, observer_x, seen):
    from tests.wh40k_helpers import model, unit, world

    ruin = {"id": "ruin", "kind": "area", "traits": ["blocks_line_of_sight"], "height_in": 2.0,
            "footprint": [[28, 15], [32, 15], [32, 25], [28, 25]]}
    w = world("wh40k10", [unit("tgt", [model(target_x, 20)])], [unit("obs", [model(observer_x, 20)])],
              terrain=[ruin], zones=[])
    table = w.ruleset.table(w)
    assert table.visible(w.units["obs"], w.units["tgt"]).visible is seen
    # the 2" ruin blocks by its footprint at any height in 40k (ruins are not true line of sight)
    assert all(o.height is None for o in table.pieces["ruin"])


@pytest.mark.parametrize(("category", "edition", "seen"), [
    ("dense", "wh40k11", False), ("light", "wh40k11", False), ("obscuring", "wh40k11", False),
    (None, "wh40k11", True), ("dense", "wh40k10", True),  # 10th reads no categories
])
def test_11th_edition_area_categories_make_obscuring_areas(category, edition, seen):
    from tests.wh40k_helpers import model, unit, world

    area = {"id": "area", "kind": "area", "footprint": [[28, 15], [32, 15], [32, 25], [28, 25]], "height_in": 1.0}
    if category:
        area["category"] = category
    w = world(edition, [unit("tgt", [model(40, 20)])], [unit("obs", [model(20, 20)])], terrain=[area], zones=[])
    assert w.ruleset.table(w).visible(w.units["obs"], w.units["tgt"]).visible is seen


def test_a_seen_model_names_the_low_wall_its_clear_line_passes_over():
    """A judge sees a wall between the models: the finding and the ruling's evidence say the clear
    line passes over it and how high (a fresh user's finding: they said only "clear line")."""
    from planner.report.ruling import evidence_text

    report = _hh2([_vehicle()], [ENEMY], [_wall(1.0)])
    seen = next(f for u in report.units if u.unit == "rhino" for f in u.findings if f.rule == "hh2.infiltrate.hidden")
    (sp,) = seen.evidence.sight_passes
    words = f'passes over wall (top 1") at {sp.line_in:.2f}"'
    assert words in seen.message
    assert f'passing over wall (top 1") at {sp.line_in:.2f}"' in evidence_text(seen.evidence)
    hidden = _hh2([_vehicle()], [ENEMY], [_wall(4.0)])
    assert not any("passes over" in f.message for u in hidden.units for f in u.findings)
