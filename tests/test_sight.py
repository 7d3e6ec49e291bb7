"""Line of sight between bases: hand-made layouts, and soundness of "hidden" against a brute-force sampler.

Definition under test (planner.geometry.sight): A sees B when some straight segment from a point of
A's base to a point of B's base crosses the interior of no blocking footprint; grazing is clear.
"""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
import shapely
from shapely.affinity import rotate
from shapely.geometry import LineString, Point, Polygon, box
from shapely.ops import unary_union

from planner.geometry.shapes import Footprint, footprint, round_footprint, signed_distance
from planner.geometry.sight import Obstacle, group_separated, line_of_sight
from planner.legality.table import Table
from planner.schema import HullBase, OvalBase, RoundBase, Scenario
from planner.world import resolve

R32 = 16 / 25.4


def _clear(seg, obstacles, shrink=1e-6) -> bool:
    line = LineString(seg)
    return not any(line.intersects(o.polygon.buffer(-shrink)) for o in obstacles)


def _near_base(p, fp: Footprint, tol=1e-3) -> bool:
    if fp.kind == "circle":
        return math.hypot(p[0] - fp.cx, p[1] - fp.cy) <= fp.a + tol
    return fp.polygon(512, circumscribed=True).distance(Point(p)) <= tol


def _assert_evidence(sight, a: Footprint, b: Footprint, obstacles) -> None:
    assert sight.visible
    assert sight.segment is not None
    p, q = sight.segment
    ends_ok = (_near_base(p, a) and _near_base(q, b)) or (_near_base(p, b) and _near_base(q, a))
    assert ends_ok, f"evidence {sight.segment} does not join the two bases"
    assert _clear(sight.segment, obstacles), f"evidence {sight.segment} crosses an obstacle"


# ----------------------------------------------------------------------------- hand-made layouts


def test_wall_between_two_bases_blocks():
    a, b = round_footprint(10, 10, 32), round_footprint(20, 10, 32)
    wall = Obstacle("wall", box(14, 0, 16, 20))
    s = line_of_sight(a, b, [wall])
    assert not s.visible
    assert s.segment is None
    assert s.blocking == ("wall",)
    assert line_of_sight(b, a, [wall]).visible is False


def test_no_obstacles_visible():
    a, b = round_footprint(10, 10, 32), round_footprint(20, 10, 32)
    s = line_of_sight(a, b, [])
    _assert_evidence(s, a, b, [])
    # a wall off to the side of both bases is irrelevant
    side = Obstacle("side", box(14, 12, 16, 20))
    _assert_evidence(line_of_sight(a, b, [side]), a, b, [side])


def test_narrow_wall_can_be_seen_around():
    a, b = round_footprint(10, 10, 32), round_footprint(20, 10, 32)
    post = [Obstacle("post", box(14, 9.9, 16, 10.1))]
    s = line_of_sight(a, b, post)
    _assert_evidence(s, a, b, post)


def test_wall_slightly_narrower_than_bases_is_seen_past_its_end():
    # a wall that covers the centre line and one side: only lines past its lower end are clear
    a, b = round_footprint(10, 10, 32), round_footprint(20, 10, 32)
    wall = [Obstacle("wall", box(14, 10 - R32 + 0.05, 16, 30))]
    _assert_evidence(line_of_sight(a, b, wall), a, b, wall)
    # with the wall reaching just past the bases' common tangent y = 10 - R32 nothing is clear
    wall2 = [Obstacle("wall", box(14, 10 - R32 - 0.01, 16, 30))]
    assert not _sampled_clear_segment(a, b, wall2)
    assert not line_of_sight(a, b, wall2).visible


def test_gap_between_two_walls():
    a, b = round_footprint(10, 10, 32), round_footprint(30, 10, 32)
    walls = [Obstacle("w1", box(19, 0, 21, 9.95)), Obstacle("w2", box(19, 10.05, 21, 20))]
    _assert_evidence(line_of_sight(a, b, walls), a, b, walls)
    # two staggered walls closing every line
    closed = [Obstacle("w1", box(15, 0, 16, 10.6)), Obstacle("w2", box(24, 9.4, 25, 20))]
    s = line_of_sight(a, b, closed)
    assert not s.visible
    assert not _sampled_clear_segment(a, b, closed)
    # staggered but leaving a slanted gap: (10, 10.63) -> (30, 9.37) passes above w1 and below w2
    slanted = [Obstacle("w1", box(15, 0, 16, 10.2)), Obstacle("w2", box(24, 9.8, 25, 20))]
    assert _sampled_clear_segment(a, b, slanted)
    _assert_evidence(line_of_sight(a, b, slanted), a, b, slanted)
    assert set(s.blocking) == {"w1", "w2"}


def test_grazing_line_is_clear():
    # two 1" hulls at y in [10.5, 11.5]; a wall covers y >= 10.5 between them: the only lines
    # left run along y = 10.5, grazing the wall's lower edge, and a grazing line is clear
    h = HullBase(length_in=1, width_in=1)
    a, b = footprint(h, 10, 11), footprint(h, 20, 11)
    wall = [Obstacle("wall", box(14, 10.5, 16, 20))]
    s = line_of_sight(a, b, wall)
    _assert_evidence(s, a, b, wall)
    assert s.segment[0][1] == pytest.approx(10.5, abs=1e-6)
    # lower the wall by 0.001": nothing is clear
    assert not line_of_sight(a, b, [Obstacle("wall", box(14, 10.499, 16, 20))]).visible


def test_walls_meeting_along_an_edge_block_as_one():
    # a wall built from two rectangles that share the edge y = 10.5 has no seam to see through
    h = HullBase(length_in=1, width_in=1)
    a, b = footprint(h, 10, 10), footprint(h, 20, 11)
    walls = [Obstacle("top", box(14, 10.5, 16, 20)), Obstacle("bottom", box(14, 0, 16, 10.5))]
    s = line_of_sight(a, b, walls)
    assert not s.visible
    assert set(s.blocking) == {"top", "bottom"}


def test_oval_seen_over_a_low_corner():
    # an oval turned 90 degrees sticks out past a wall end; a disc sees its tip
    o = footprint(OvalBase(length_mm=105, width_mm=70), 20, 10, 90.0)
    r = round_footprint(8, 10, 25)
    wall = [Obstacle("wall", box(13, 0, 14, 11.0))]
    # oval tip reaches y = 10 + 52.5/25.4 = 12.07; the line from it over (14, 11) meets x = 8 at
    # y = 9.93, inside the disc
    _assert_evidence(line_of_sight(r, o, wall), r, o, wall)
    # with the wall top at 11.5 that line would meet x = 8 at y = 10.93, above the disc (top 10.49)
    higher = [Obstacle("wall", box(13, 0, 14, 11.5))]
    assert not _sampled_clear_segment(r, o, higher)
    assert not line_of_sight(r, o, higher).visible
    # the oval facing 0 is only 1.38" tall: hidden behind the lower wall too
    flat = footprint(OvalBase(length_mm=105, width_mm=70), 20, 10, 0.0)
    assert not _sampled_clear_segment(r, flat, wall)
    assert not line_of_sight(r, flat, wall).visible


def test_group_separated_is_sound_and_complete_here():
    g1 = [round_footprint(10, 10, 32), round_footprint(10, 12, 32)]
    g2 = [round_footprint(20, 10, 32), round_footprint(20, 13, 32)]
    wall = [Obstacle("wall", box(14, -5, 16, 30))]
    assert group_separated(g1, g2, wall)
    short = [Obstacle("wall", box(14, -5, 16, 11))]
    assert not group_separated(g1, g2, short)
    assert not group_separated(g1, g2, [])


# ----------------------------------------------------------------------------- area terrain via Table


def _world(terrain_kind: str, observer_xy, target_xy, standing_in="partly"):
    data = {
        "ruleset": "hh2",
        "terrain": [
            {
                "id": "ruin",
                "footprint": [[30, 10], [34, 10], [34, 30], [30, 30]],
                "kind": terrain_kind,
                "traits": ["blocks_line_of_sight"],
                "standing_in": standing_in,
            }
        ],
        "armies": [
            {"player": "red", "units": [{"id": "obs", "type": "Infantry", "setup": "reserves",
                                         "models": [{"base": {"diameter_mm": 32}, "x": observer_xy[0],
                                                     "y": observer_xy[1]}]}]},
            {"player": "blue", "units": [{"id": "tgt", "type": "Infantry", "setup": "reserves",
                                          "models": [{"base": {"diameter_mm": 32}, "x": target_xy[0],
                                                      "y": target_xy[1]}]}]},
        ],
    }
    return resolve(Scenario.model_validate(data), require_positions=True)


def _unit_sight(world):
    t = Table(world)
    obs, tgt = world.units["obs"], world.units["tgt"]
    return t, t.unit_sight(t.final(obs), t.final(tgt))


def test_area_terrain_blocks_when_nobody_stands_in_it():
    world = _world("area", (25, 20), (40, 20))
    t, s = _unit_sight(world)
    assert not s.visible
    assert s.blocking == ("ruin",)


def test_area_terrain_does_not_block_the_model_standing_in_it():
    # observer partly inside the ruin (its base reaches x = 30.13 > 30)
    world = _world("area", (29.5, 20), (40, 20))
    t, s = _unit_sight(world)
    assert s.visible
    a, b = t.final(world.units["obs"]).footprints[0], t.final(world.units["tgt"]).footprints[0]
    assert t.obstacles_for([a, b]) == []
    _assert_evidence(s, a, b, [])
    # ... and the same layout without the obstacle, directly
    assert line_of_sight(a, b, []).visible
    # target wholly inside the ruin: also sees out
    world = _world("area", (20, 20), (32, 20))
    _, s = _unit_sight(world)
    assert s.visible


def test_area_terrain_standing_in_wholly():
    # partly inside, but the feature needs models wholly inside: still blocked
    world = _world("area", (29.5, 20), (40, 20), standing_in="wholly")
    _, s = _unit_sight(world)
    assert not s.visible
    world = _world("area", (30 + R32, 20), (40, 20), standing_in="wholly")  # touching the edge from inside
    _, s = _unit_sight(world)
    assert s.visible


def test_solid_terrain_blocks_even_the_model_touching_it():
    world = _world("solid", (29.5, 20), (40, 20))
    _, s = _unit_sight(world)
    assert not s.visible


def test_open_terrain_never_blocks():
    world = _world("open", (25, 20), (40, 20))
    _, s = _unit_sight(world)
    assert s.visible


# ----------------------------------------------------------------------------- soundness on random cases

N_CASES = 600
N_BOUNDARY = 60


def _random_base(rng: random.Random):
    k = rng.random()
    if k < 0.4:
        return RoundBase(diameter_mm=rng.choice([25, 32, 40, 50, 60, 90]))
    if k < 0.75:
        return OvalBase(length_mm=rng.uniform(60, 120), width_mm=rng.uniform(35, 70))
    return HullBase(length_in=rng.uniform(1.0, 5.0), width_in=rng.uniform(0.8, 3.0))


def _random_obstacle(rng: random.Random, a: Footprint, b: Footprint, k: int) -> Obstacle:
    t = rng.uniform(0.15, 0.85)
    cx = a.cx + t * (b.cx - a.cx) + rng.gauss(0, 1.5)
    cy = a.cy + t * (b.cy - a.cy) + rng.gauss(0, 1.5)
    if rng.random() < 0.6:
        w, h = rng.uniform(0.1, 4.0), rng.uniform(0.1, 6.0)
        poly = rotate(box(cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2), rng.uniform(0, 180), origin=(cx, cy))
    else:
        pts = [(cx + rng.uniform(-3, 3), cy + rng.uniform(-3, 3)) for _ in range(3)]
        poly = Polygon(pts)
        if poly.area < 0.05:
            poly = box(cx - 0.5, cy - 0.5, cx + 0.5, cy + 0.5)
    return Obstacle(f"o{k}", poly)


def _boundary(fp: Footprint, n: int) -> np.ndarray:
    t = np.linspace(0.0, 2 * math.pi, n, endpoint=False)
    if fp.kind == "circle":
        pts = np.column_stack([fp.cx + fp.a * np.cos(t), fp.cy + fp.a * np.sin(t)])
    elif fp.kind == "ellipse":
        x, y = fp.a * np.cos(t), fp.b * np.sin(t)
        c, s = math.cos(fp.angle), math.sin(fp.angle)
        pts = np.column_stack([fp.cx + x * c - y * s, fp.cy + x * s + y * c])
    else:
        ring = LineString(list(fp.verts) + [fp.verts[0]])
        pts = np.array([ring.interpolate(f, normalized=True).coords[0] for f in np.linspace(0, 1, n, endpoint=False)])
    return np.vstack([pts, [[fp.cx, fp.cy]]])


def _sampled_clear_segment(a: Footprint, b: Footprint, obstacles) -> bool:
    pa, pb = _boundary(a, N_BOUNDARY), _boundary(b, N_BOUNDARY)
    ii, jj = np.meshgrid(np.arange(len(pa)), np.arange(len(pb)), indexing="ij")
    coords = np.stack([pa[ii.ravel()], pb[jj.ravel()]], axis=1)
    lines = shapely.linestrings(coords)
    blocked = unary_union([o.polygon.buffer(-1e-6) for o in obstacles])
    return bool((~shapely.intersects(lines, blocked)).any())


@pytest.mark.slow
def test_hidden_verdicts_are_sound_on_random_layouts():
    rng = random.Random(20240611)
    counts = {"visible": 0, "hidden": 0}
    for case in range(N_CASES):
        while True:
            a = footprint(_random_base(rng), rng.uniform(5, 15), rng.uniform(5, 15), rng.uniform(-180, 180))
            b = footprint(_random_base(rng), rng.uniform(12, 25), rng.uniform(5, 20), rng.uniform(-180, 180))
            if signed_distance(a, b) > 0.05:
                break
        obstacles = [_random_obstacle(rng, a, b, k) for k in range(rng.randint(1, 4))]
        s = line_of_sight(a, b, obstacles)
        sampled = _sampled_clear_segment(a, b, obstacles)
        ctx = f"case {case}: a={a}, b={b}, obstacles={[o.polygon.wkt for o in obstacles]}"
        if sampled:
            assert s.visible, f"sampler found a clear segment but the verdict is hidden; {ctx}"
        if s.visible:
            counts["visible"] += 1
            _assert_evidence(s, a, b, obstacles)
        else:
            counts["hidden"] += 1
            assert s.blocking, ctx
            assert set(s.blocking) <= {o.id for o in obstacles}
    # the generator must produce both verdicts in earnest, or the test proves little
    assert counts["hidden"] >= N_CASES // 10, counts
    assert counts["visible"] >= N_CASES // 10, counts


# ----------------------------------------------------------------------------- regressions found by the sampler


def test_regression_line_through_obstacle_vertices_is_clear():
    """Two discs seen only through a narrow slot whose clear lines pass near obstacle corners.

    The critical-line search once took its points from the obstacles shrunk by 1e-7": a line
    through such a point touches the shrunk obstacle and read as blocked, so "hidden" was claimed.
    """
    a = Footprint(kind="circle", cx=12.85581497292202, cy=14.77221751896651, a=0.984251968503937)
    b = Footprint(kind="circle", cx=12.766326661577452, cy=19.920467499706596, a=1.1811023622047245)
    obs = [Obstacle(f"o{i}", shapely.from_wkt(w)) for i, w in enumerate([
        "POLYGON ((12.724843908987541 16.806921771905543, 11.401138455413209 15.50535600454959, "
        "11.538483859439054 13.54373685970955, 12.724843908987541 16.806921771905543))",
        "POLYGON ((16.605197620315227 17.67413664888027, 15.712883674517506 18.082957480040942, "
        "14.68753794467016 15.844983716792658, 15.57985189046788 15.43616288563199, "
        "16.605197620315227 17.67413664888027))",
        "POLYGON ((14.825626698176716 16.932223929237974, 12.58244172233655 17.216389512225085, "
        "13.882000215555754 17.98285572752561, 14.825626698176716 16.932223929237974))"])]
    assert _sampled_clear_segment(a, b, obs)
    _assert_evidence(line_of_sight(a, b, obs), a, b, obs)


def test_regression_vertex_to_vertex_line_between_hulls():
    """Two hulls whose only clear lines run corner to corner (the line touches each hull in one point).

    The chord computation once dropped such lines: rounding put the entry a hair after the exit.
    """
    a = Footprint(kind="polygon", cx=9.975933012080532, cy=7.439870108431128, a=1.888593534891724,
                  b=0.582080731507763, angle=1.8917486961725383,
                  verts=((8.827780563412547, 9.048394112804436), (10.01937143242005, 5.464087574429515),
                         (11.124085460748516, 5.83134610405782), (9.932494591741014, 9.415652642432741)))
    b = Footprint(kind="polygon", cx=12.616151230841119, cy=17.040930830016613, a=1.1855455669131791,
                  b=0.903173972573241, angle=-0.9682804894467337,
                  verts=((14.032156455629215, 16.575989199987603), (12.688418577624942, 18.5295607190589),
                         (11.200146006053023, 17.505872460045623), (12.543883884057296, 15.552300940974328)))
    obs = [Obstacle(f"o{i}", shapely.from_wkt(w)) for i, w in enumerate([
        "POLYGON ((11.57445659007924 17.26322048998892, 14.384423896856088 19.875799427320203, "
        "15.214424859299704 16.99976596108777, 11.57445659007924 17.26322048998892))",
        "POLYGON ((10.136186234534549 12.285695196870465, 9.017877317789804 8.566924424567583, "
        "9.794249726311739 8.333453678365332, 10.912558643056485 12.052224450668215, "
        "10.136186234534549 12.285695196870465))",
        "POLYGON ((14.283850183777865 9.80145469289973, 14.032151760638133 8.981438378286246, "
        "12.701921530008427 7.641821177129693, 14.283850183777865 9.80145469289973))",
        "POLYGON ((11.088642262016377 13.922113969666812, 8.413898790291903 9.450088680226827, "
        "10.244741265946102 8.35505150074675, 12.919484737670576 12.827076790186734, "
        "11.088642262016377 13.922113969666812))"])]
    assert _sampled_clear_segment(a, b, obs)
    _assert_evidence(line_of_sight(a, b, obs), a, b, obs)


def test_first_clear_is_the_first_segment_clear_one_by_one():
    """The vectorised direct-segment test picks the same first clear segment as the loop."""
    from planner.geometry.sight import _first_clear, _segment_clear, shrunk_union

    walls = [box(2, -1, 3, 1), box(2, 1, 3, 3), box(5, -3, 6, 0)]
    blockers = shrunk_union(walls)
    assert shrunk_union(walls) is not blockers and shrunk_union(walls) == blockers  # cached, a new list
    rng = np.random.default_rng(7)
    P = rng.uniform(-1, 1, (40, 2))
    Q = rng.uniform(7, 9, (40, 2)) - [0, 4]
    Q[5] = P[5]  # a degenerate segment is a point
    loop = next((i for i in range(len(P)) if _segment_clear(tuple(P[i]), tuple(Q[i]), blockers)), None)
    assert loop is not None and loop > 0  # some segments before it are blocked
    assert _first_clear(P, Q, blockers) == loop
    assert _first_clear(P[:5], Q[:5] * 0 + [2.5, 0.0], blockers) is None  # every one ends in a wall
