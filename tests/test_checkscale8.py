"""The eighth pass of the checker's fast paths (issue #18 item 3): the bearing screen of the
blocker names gives the (piece, line) pairs of the box screen (and so of the dense one), its
probe lines are among them, and the blocking terrain named through it is the same."""

from __future__ import annotations

import numpy as np
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st
from shapely.geometry import Polygon

import planner.legality.table as table
from planner.geometry.shapes import footprint
from planner.geometry.sight import Obstacle
from planner.legality.table import Table, _BearingScreen, _box_segment_pairs, _segments_meet_box
from planner.schema import RoundBase

grid = st.integers(0, 6).map(float)  # on box edges and corners: parallel, touching, coincident points
free = st.floats(-1.0, 7.0, allow_nan=False, allow_subnormal=False)
point = st.tuples(st.one_of(grid, free), st.one_of(grid, free))
boxes_st = st.lists(st.tuples(point, st.tuples(st.integers(0, 3), st.integers(0, 3))), min_size=1, max_size=8)


def _star(p: np.ndarray, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The lines of ``Table._blockers_between``: line ``i * len(q) + j`` from p[i] to q[j]."""
    return np.repeat(p, len(q), axis=0), np.tile(q, (len(p), 1))


@settings(max_examples=300, deadline=None)
@given(st.lists(point, min_size=1, max_size=30), st.lists(point, min_size=1, max_size=6), boxes_st,
       st.sampled_from([0.0, 1e-6, 0.5]), st.data())
def test_bearing_screen_gives_the_pairs_of_the_box_screen(ps, qs, boxes, margin, data):
    p, q = np.array(ps), np.array(qs)
    bounds = np.array([[x, y, x + w, y + h] for (x, y), (w, h) in boxes])
    start, end = _star(p, q)
    b0, l0 = _box_segment_pairs(start, end, bounds, margin)
    dense = _segments_meet_box(start, end, bounds, margin, prune=False)
    assert list(zip(b0.tolist(), l0.tolist(), strict=True)) == list(zip(*(a.tolist() for a in np.nonzero(dense)),
                                                                      strict=True))
    screen = _BearingScreen(p, q, bounds, margin)
    b1, l1 = screen.pairs()
    assert b1.tolist() == b0.tolist() and l1.tolist() == l0.tolist()
    some = data.draw(st.lists(st.integers(0, len(bounds) - 1), unique=True))
    b2, l2 = screen.pairs(some)
    keep = np.isin(b0, some)
    assert b2.tolist() == b0[keep].tolist() and l2.tolist() == l0[keep].tolist()
    pb, pl = screen.probes()
    assert dense[pb, pl].all()  # every probe line meets the box it probes


def test_bearing_screen_across_the_cut_and_from_inside_a_box():
    # points due west of q (bearings about +-pi), a box across that cut, q inside another box
    q = np.array([[10.0, 5.0]])
    p = np.array([[0.0, 5.0], [0.0, 5.0 - 1e-12], [0.0, 5.0 + 1e-12], [0.0, 4.0], [0.0, 6.0], [20.0, 5.0],
                  [10.0, 5.0]])
    bounds = np.array([[4.0, 4.9, 5.0, 5.1], [9.0, 4.0, 11.0, 6.0], [4.0, 5.0, 5.0, 5.0]])
    start, end = _star(p, q)
    b0, l0 = _box_segment_pairs(start, end, bounds, 1e-6)
    b1, l1 = _BearingScreen(p, q, bounds, 1e-6).pairs()
    assert b1.tolist() == b0.tolist() and l1.tolist() == l0.tolist()
    assert set(l0[b0 == 0].tolist()) == {0, 1, 2}  # the three lines along y = 5 (within 1e-12)
    assert set(l0[b0 == 1].tolist()) == set(range(7))  # q is inside box 1: every line meets it


coord = st.floats(0.0, 40.0, allow_nan=False, allow_subnormal=False)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(coord, coord), min_size=1, max_size=40), st.lists(st.tuples(coord, coord), min_size=1,
                                                                            max_size=5),
       st.lists(st.tuples(st.tuples(coord, coord), st.floats(0.2, 6.0), st.integers(3, 7)), min_size=1, max_size=12))
def test_blockers_named_through_the_bearing_screen_are_the_same(obs_xy, tgt_xy, shapes):
    base = RoundBase(diameter_mm=32)
    obs = [footprint(base, x, y) for x, y in obs_xy]
    tgt = [footprint(base, x, y) for x, y in tgt_xy]
    obstacles = []
    for k, ((cx, cy), r, n) in enumerate(shapes):
        ang = np.linspace(0.0, 2 * np.pi, n, endpoint=False) + k
        poly = Polygon(np.column_stack([cx + r * np.cos(ang), cy + 0.5 * r * np.sin(ang)]))
        shapely.prepare(poly)
        obstacles.append(Obstacle(f"t{k // 2}", poly))  # two pieces per feature id
    want = _named(obs, tgt, obstacles, 10**12)
    got = _named(obs, tgt, obstacles, 0)
    assert got == want
    # the names by brute force: every feature some centre line crosses (all if none)
    lines = [shapely.LineString([(a.cx, a.cy), (b.cx, b.cy)]) for a in obs for b in tgt]
    crossed = sorted({o.id for o in obstacles if any(o.polygon.intersects(ln) for ln in lines)})
    assert list(want) == (crossed or sorted({o.id for o in obstacles}))


def _named(obs, tgt, obstacles, bearing_min):
    old = table._BEARING_MIN
    table._BEARING_MIN = bearing_min
    try:
        return Table._blockers_between(None, obs, tgt, obstacles)  # type: ignore[arg-type]
    finally:
        table._BEARING_MIN = old


@pytest.mark.parametrize("n", [200, 400])
def test_scaling_scene_names_the_same_blockers(n, monkeypatch):
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    import bench_scaling as bs

    from planner.legality.checker import check_deployment
    from planner.schema import Scenario
    from planner.world import resolve

    def report(bearing_min: int) -> str:
        monkeypatch.setattr(table, "_BEARING_MIN", bearing_min)
        world = resolve(Scenario.model_validate(bs.scene(n)), "<scaling>", require_positions=True)
        return check_deployment(world).model_dump_json()

    screened, boxed = report(0), report(10**12)
    assert screened == boxed
    assert screened.count('"blocking_features"') >= n // 25  # every hidden Infiltrator names its blockers


# ------------------------------------------------------------------ the no-go distances within reach
bases = st.sampled_from([{"diameter_mm": 25}, {"diameter_mm": 60}, {"shape": "oval", "length_mm": 75, "width_mm": 42},
                         {"shape": "oval", "length_mm": 170, "width_mm": 105},
                         {"shape": "hull", "length_in": 4.5, "width_in": 2.5}])
spot = st.tuples(st.floats(1.0, 47.0), st.floats(1.0, 47.0), st.floats(0.0, 360.0))
feature = st.tuples(st.sampled_from(["area-impassable", "solid"]), st.floats(0.0, 44.0), st.floats(0.0, 44.0),
                    st.floats(0.3, 6.0), st.floats(0.3, 6.0), st.integers(0, 1))


def _no_go_scene(ruleset: str, units: list, features: list) -> dict:
    terrain = []
    for k, (kind, x, y, w, h, tri) in enumerate(features):
        fp = [[x, y], [x + w, y], [x + w, y + h]] + ([] if tri else [[x, y + h]])
        t = {"id": f"f{k}", "kind": kind.split("-")[0], "footprint": fp, "height_in": 3.0}
        if kind == "area-impassable":
            t["traits"] = ["impassable"]
        terrain.append(t)
    armies: dict[str, list] = {"blue": [], "red": []}
    for k, (base, spots) in enumerate(units):
        player = "blue" if k % 2 == 0 else "red"
        models = [{"base": base, "type": "Infantry", "x": x, "y": y, "facing": f} for x, y, f in spots]
        armies[player].append({"id": f"u{k}", "models": models, "keywords": ["INFANTRY"]})
    return {"ruleset": ruleset, "battlefield": {"width": 48, "depth": 48}, "terrain": terrain,
            "deployment_zones": [{"id": "zb", "player": "blue", "polygon": [[0, 0], [48, 0], [48, 24], [0, 24]]},
                                 {"id": "zr", "player": "red", "polygon": [[0, 24], [48, 24], [48, 48], [0, 48]]}],
            "armies": [{"player": p, "units": us} for p, us in armies.items()]}


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(["hh2", "wh40k10"]),
       st.lists(st.tuples(bases, st.lists(spot, min_size=1, max_size=5)), min_size=1, max_size=6),
       st.lists(feature, min_size=1, max_size=10))
def test_no_go_distances_within_reach_give_the_reports_of_every_pair(ruleset, units, features):
    from planner.legality.checker import check_deployment
    from planner.schema import Scenario
    from planner.world import resolve

    data = _no_go_scene(ruleset, units, features)

    def report(within_min: int) -> str:
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(table, "_NO_GO_WITHIN_MIN", within_min)
            world = resolve(Scenario.model_validate(data), "<no-go>", require_positions=True)
            return check_deployment(world).model_dump_json()

    assert report(0) == report(10**12)


# ------------------------------------------------------------------ the free space of the separation proofs
def test_free_space_is_the_overlay_and_is_shared_only_for_the_same_hull_and_blocked_union():
    import planner.geometry.sight as sight

    sight._FREE.clear()
    hull = shapely.box(0, 0, 10, 10)
    blocked = shapely.union_all([shapely.box(2, 2, 4, 8), shapely.box(6, 1, 7, 9)])
    first = sight._free_space(hull, blocked)
    assert shapely.to_wkb(first) == shapely.to_wkb(hull.difference(blocked))
    again = sight._free_space(shapely.from_wkb(shapely.to_wkb(hull)), blocked)  # equal hull, same union
    assert again is first
    twin = shapely.from_wkb(shapely.to_wkb(blocked))  # an equal union, another object: measured anew
    assert sight._free_space(hull, twin) is not first
    other = sight._free_space(shapely.box(0, 0, 10, 11), blocked)
    assert shapely.to_wkb(other) == shapely.to_wkb(shapely.box(0, 0, 10, 11).difference(blocked))
    for k in range(sight._FREE_MAX + 2):  # bounded
        sight._free_space(shapely.box(0, 0, 10, 12 + k), blocked)
    assert len(sight._FREE) == sight._FREE_MAX


def test_reports_are_the_same_with_the_free_space_kept_or_not():
    import sys
    from pathlib import Path

    import planner.geometry.sight as sight

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    import bench_scaling as bs

    from planner.legality.checker import check_deployment
    from planner.schema import Scenario
    from planner.world import resolve

    data = bs.scene(200)
    overlays: list[int] = []

    def each_time(hull, blocked):
        overlays.append(1)
        return hull.difference(blocked)

    def report() -> str:
        world = resolve(Scenario.model_validate(data), "<scaling>", require_positions=True)
        return check_deployment(world).model_dump_json()

    sight._FREE.clear()
    real = sight._free_space
    keys: list[tuple[bytes, int]] = []

    def counted(hull, blocked):
        keys.append((shapely.to_wkb(hull), id(blocked)))
        return real(hull, blocked)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(sight, "_free_space", counted)
        shared = report()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(sight, "_free_space", each_time)
        alone = report()
    assert shared == alone
    assert len(keys) == len(overlays) >= 8  # every hidden Infiltrator's proof
    assert len(set(keys)) <= len(keys) // 2  # most proofs of a player share one overlay
