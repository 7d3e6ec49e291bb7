"""The checker's faster sight and distance paths (issue #18 item 3) give the answers of the
paths they replace: group proofs of "hidden" are sound pair by pair, the nearest enemy unit is
the one a pass in order finds, the box screen never drops a segment that meets the box, and
``sight_from_any`` answers as the unit-by-unit method did."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st
from shapely.geometry import LineString, box

from planner.geometry.sight import line_of_sight
from planner.io.files import load_scenario_record
from planner.legality.table import Table, _segments_meet_box
from planner.world import resolve

ROOT = Path(__file__).resolve().parent.parent
SCENES = ["long-edge-ravenguard-vs-ironhands.yaml", "hh2-urban-ravenguard-vs-ironhands.yaml",
          "hh2-fortified-line-chogorian-vs-berserkers.yaml", "short-edge-chogorian-vs-berserkers.yaml"]


def _table(name: str) -> Table:
    world = resolve(load_scenario_record(ROOT / "scenarios" / name), name, require_positions=True)
    return Table(world)


coord = st.floats(-10.0, 10.0, allow_nan=False, allow_subnormal=False)


@settings(max_examples=300, deadline=None)
@given(coord, coord, coord, coord, coord, coord, st.floats(0.01, 5.0), st.floats(0.01, 5.0))
def test_box_screen_keeps_every_segment_that_meets_the_box(x0, y0, x1, y1, bx, by, w, h):
    bounds = np.array([[bx, by, bx + w, by + h]])
    got = bool(_segments_meet_box(np.array([[x0, y0]]), np.array([[x1, y1]]), bounds, 1e-6)[0, 0])
    seg = LineString([(x0, y0), (x1, y1)]) if (x0, y0) != (x1, y1) else shapely.Point(x0, y0)
    d = seg.distance(box(bx, by, bx + w, by + h))
    if d == 0.0:
        assert got  # a screen: never drops a segment that meets the box
    elif d > 1e-5:
        assert not got  # and it is tight: one well clear of the (widened) box is dropped


@pytest.mark.parametrize("name", SCENES)
def test_nearest_unit_is_the_one_found_in_order(name):
    t = _table(name)
    checked = 0
    for u in t.on_table:
        others = t.enemy_presence(u.player)
        got = t.nearest_unit(t.final(u), others)
        want = t._nearest_in_order(t.final(u), others)
        assert (got is None) == (want is None)
        if got is not None and want is not None:
            assert (got[0], got[1], got[2].unit.id, got[3]) == (want[0], want[1], want[2].unit.id, want[3])
            checked += 1
    assert checked >= 4


def _old_sight_from_any(t: Table, observers, target):
    """The unit-by-unit method: the quick centre lines, then each observer's own proofs."""
    tgt = list(target.footprints)
    tops_t = t.tops_of(target)
    tops_o = [t.tops_of(o) for o in observers]
    low = min(min(tops_t), *(min(x) for x in tops_o)) if t.has_heights else None
    quick = t._quick_visible(observers, tgt, low)
    if quick is not None:
        return observers[quick[0]].unit.id, target.model_id(quick[2])
    for o, tops in zip(observers, tops_o, strict=True):
        s = t._prove_hidden(o, target, True, tops, tops_t)
        if s.visible:
            return o.unit.id, s.target_model
    return None, None


@pytest.mark.parametrize("name", [SCENES[0], SCENES[1], SCENES[3]])
def test_group_proofs_are_sound_and_sight_answers_as_before(name):
    t = _table(name)
    fresh = Table(t.world)  # its own caches: the old method's answers are not read from t's
    proven_pairs = 0
    for u in t.on_table:
        target = t.final(u)
        observers = t.enemy_presence(u.player)
        if not observers:
            continue
        tops_t = t.tops_of(target)
        tops_o = [t.tops_of(o) for o in observers]
        proven, _ = t._groups_hidden(observers, target, tops_o, tops_t)
        for k in sorted(proven)[:3]:  # every model pair of a proven observer is hidden (exact test)
            o = observers[k]
            for i, a in enumerate(o.footprints):
                for j, b in enumerate(target.footprints):
                    s = line_of_sight(a, b, t.obstacles_for([a], targets=[b]),
                                      (tops_o[k][i], tops_t[j]) if t.has_heights else None)
                    assert not s.visible, (name, o.unit.id, u.id, i, j)
            proven_pairs += 1
        want = _old_sight_from_any(fresh, fresh.enemy_presence(u.player), fresh.final(u))
        for proof_first in (False, True):
            o, s = t.sight_from_any(observers, target, proof_first=proof_first)
            assert ((o.unit.id if o else None), s.target_model if s.visible else None) == want, (name, u.id)
    if name == SCENES[0]:
        assert proven_pairs > 0  # the long-edge table has hidden Infiltrators: the proof is used


def test_group_proof_bearing_order_wraps_at_the_widest_gap():
    t = _table(SCENES[0])
    u = next(u for u in t.on_table if t.enemy_presence(u.player))
    observers = t.enemy_presence(u.player)
    target = t.final(u)
    proven, tried = t._groups_hidden(observers, target, [t.tops_of(o) for o in observers], t.tops_of(target))
    assert proven.isdisjoint(tried)
    assert proven | tried == set(range(len(observers)))  # every observer is decided or left to its own proof
    assert all(math.isfinite(f.cx) for f in target.footprints)


# ------------------------------------------------------------------ vectorised distances (#18)

def _shape(kind: str, x: float, y: float, p: float, q: float, ang: float):
    from planner.geometry.shapes import Footprint, segment

    if kind == "circle":
        return Footprint("circle", x, y, 0.3 + p)
    if kind == "ellipse":
        return Footprint("ellipse", x, y, 0.5 + p + q, 0.3 + q, ang)
    if kind == "segment":
        return segment((x, y), (x + 3 * math.cos(ang) * (p + 0.1), y + 3 * math.sin(ang) * (p + 0.1)))
    hl, hw = 0.5 + 2 * p, 0.5 + q
    c, s = math.cos(ang), math.sin(ang)
    verts = tuple((x + px * c - py * s, y + px * s + py * c) for px, py in [(hl, hw), (-hl, hw), (-hl, -hw), (hl, -hw)])
    return Footprint("polygon", x, y, hl, hw, ang, verts)


shape = st.builds(_shape, st.sampled_from(["circle", "ellipse", "polygon", "segment"]), st.floats(-8, 8),
                  st.floats(-8, 8), st.floats(0, 1), st.floats(0, 1), st.floats(0, 2 * math.pi))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(shape, shape), min_size=1, max_size=12))
def test_signed_distances_are_the_pair_by_pair_values(pairs):
    """The batched search gives the very floats of signed_distance, pair by pair (ovals, hulls,
    segments and discs, apart and overlapping)."""
    from planner.geometry.shapes import signed_distance, signed_distances

    got = signed_distances(pairs).tolist()
    assert got == [signed_distance(a, b) for a, b in pairs]


def test_signed_distances_oval_pairs_apart():
    """Two 75 x 42 mm ovals side by side 0.5" apart (the bench's Outriders): the batched value is
    the exact gap, the same as one by one."""
    from planner.geometry.shapes import Footprint, signed_distance, signed_distances

    a = 75 / 25.4 / 2
    b = 42 / 25.4 / 2
    row = [Footprint("ellipse", 2 * b * k + 0.5 * k, 0.0, a, b, math.pi / 2) for k in range(5)]
    pairs = [(row[i], row[j]) for i in range(5) for j in range(i + 1, 5)]
    got = signed_distances(pairs)
    assert got[0] == pytest.approx(0.5, abs=1e-9)
    assert got.tolist() == [signed_distance(p, q) for p, q in pairs]


def _old_closest_no_go(fps, features):
    """closest_no_go as it was (bounds per feature and model in a sorted list of tuples)."""
    from planner.geometry.shapes import circumscribed_gap, distance_to_polygon
    from planner.legality.checks.placement import NoGo

    centres = shapely.points([(f.cx, f.cy) for f in fps])
    radii = np.array([f.outer_radius for f in fps])
    bounds = []
    for k, (_, poly) in enumerate(features):
        lbs = shapely.distance(poly, centres) - radii
        for i, f in enumerate(fps):
            if f.kind == "ellipse":
                lbs[i] = max(lbs[i], float(circumscribed_gap(f, poly)))
        bounds += [(float(lb), i, k) for i, lb in enumerate(lbs)]
    bounds.sort()
    best = None
    for lb, i, k in bounds:
        if best is not None and lb >= best.distance:
            break
        d = distance_to_polygon(fps[i], features[k][1])
        if best is None or d < best.distance:
            best = NoGo(d, i, features[k][0])
    return best


@pytest.mark.parametrize("name", SCENES)
def test_no_go_bounds_of_the_table_give_the_same_closest_feature(name):
    """closest_no_go with the table's one-pass lower bounds answers as the old per-unit loop."""
    from planner.legality.checks.placement import closest_no_go

    t = _table(name)
    assert t.no_go_polys
    for u in t.on_table:
        fps = t.final(u).footprints
        lb = t.no_go_bounds(fps)
        assert lb is not None
        want = _old_closest_no_go(fps, t.no_go_polys)
        assert closest_no_go(fps, t.no_go_polys, lower_bounds=lb) == want
        assert closest_no_go(fps, t.no_go_polys) == want
    loose = tuple(f.moved(f.cx + 0.25, f.cy) for f in t.final(t.on_table[0]).footprints)
    assert t.no_go_bounds(loose) is None  # bases not on the table: the caller makes its own


def _old_nearest(group_a, group_b):
    """measure.nearest as it was: pairs one by one in order of their lower bound."""
    from planner.geometry.measure import Nearest, distance
    from planner.geometry.shapes import distance_lower_bound

    bounds = sorted((distance_lower_bound(a, b), i, j) for i, a in enumerate(group_a) for j, b in enumerate(group_b))
    best = Nearest(-1, -1, math.inf)
    for lb, i, j in bounds:
        if lb >= best.distance:
            break
        d = distance(group_a[i], group_b[j])
        if d < best.distance:
            best = Nearest(i, j, d)
    return best


@settings(max_examples=60, deadline=None)
@given(st.lists(shape, min_size=1, max_size=5), st.lists(shape, min_size=1, max_size=5))
def test_nearest_with_ovals_is_the_pair_found_one_by_one(a, b):
    from planner.geometry.measure import nearest

    a = [f for f in a if f.kind != "segment"] or [_shape("ellipse", 0, 0, 0.5, 0.5, 1.0)]
    b = [f for f in b if f.kind != "segment"] or [_shape("circle", 3, 0, 0.5, 0.5, 0.0)]
    assert nearest(a, b) == _old_nearest(a, b)


def test_nearest_ties_keep_the_first_pair_in_order():
    """Two ovals the same distance from a disc: the first in (bound, i, j) order is reported."""
    from planner.geometry.measure import nearest
    from planner.geometry.shapes import Footprint

    ovals = [Footprint("ellipse", -3.0, 0.0, 1.0, 0.5, 0.0), Footprint("ellipse", 3.0, 0.0, 1.0, 0.5, 0.0)]
    disc = [Footprint("circle", 0.0, 0.0, 0.5)]
    got = nearest(ovals, disc)
    assert got == _old_nearest(ovals, disc)
    assert (got.i, got.j) == (0, 0) and got.distance == pytest.approx(1.5, abs=1e-9)


def test_prepared_terrain_is_shared_and_follows_a_changed_feature():
    """Two tables of one terrain share its shapes and blocked unions; a feature moved in place
    is a new terrain (no stale geometry), and the check sees it."""
    from planner.legality.checker import check_deployment

    name = "long-edge-ravenguard-vs-ironhands.yaml"
    world = resolve(load_scenario_record(ROOT / "scenarios" / name), name, require_positions=True)
    t1, t2 = Table(world), Table(world)
    tid = next(iter(t1.terrain_polys))
    assert t1.terrain_polys[tid] is t2.terrain_polys[tid]
    assert t1._prepared is t2._prepared and t1.pieces is t2.pieces
    before = check_deployment(world).model_dump(mode="json")
    feature = world.scenario.terrain[0]
    saved = feature.footprint
    assert saved is not None
    feature.footprint = [(x + 100.0, y) for x, y in saved]  # off the table: a new key
    try:
        t3 = Table(world)
        assert t3.terrain_polys[feature.id] is not t1.terrain_polys[feature.id]
        assert t3.terrain_polys[feature.id].bounds[0] >= 100.0
        assert t3._prepared is not t1._prepared
    finally:
        feature.footprint = saved
    assert check_deployment(world).model_dump(mode="json") == before


def test_oval_no_go_distances_kept_for_the_check_are_the_pairs_it_takes():
    """The benchmark table (ovals beside ruins and bastions): the (oval, edge) pairs measured
    before the checks (Table.no_go_oval_pairs) hold every pair the no-go check then takes, and
    the closest feature of each unit is the one the old loop finds."""
    import sys

    from planner.legality.checks.placement import closest_no_go

    if not (ROOT / "benchmarks" / "bench_check.py").exists():
        pytest.skip("benchmarks/ is not here (an installed copy of the tests)")
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import bench_check
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    world, _ = bench_check.build_world(bench_check.DEFAULT_SEED)
    t = Table(world)
    pairs = t.no_go_oval_pairs()
    assert pairs
    t.pair_distances(pairs)
    kept = len(t._pair_cache)
    ovals = 0
    for u in t.on_table:
        fps = t.final(u).footprints
        ovals += sum(f.kind == "ellipse" for f in fps)
        got = closest_no_go(fps, t.no_go_polys, lower_bounds=t.no_go_bounds(fps), measure=t.pair_distances)
        assert got == _old_closest_no_go(fps, t.no_go_polys)
    assert ovals >= 10
    assert len(t._pair_cache) == kept  # nothing measured that was not kept beforehand
    # the same for the Infiltrate distance: the nearest enemy unit of each Infiltrator
    from planner.legality.hh2 import HH2Checker
    from planner.schema import SetupMethod

    observers = HH2Checker(world)._observers
    infiltrators = [u for u in t.on_table if u.method is SetupMethod.INFILTRATE]
    for u in infiltrators:
        t.pair_distances(t.nearest_oval_pairs(t.final(u), observers(u)))
    kept = len(t._pair_cache)
    for u in infiltrators:
        got = t.nearest_unit(t.final(u), observers(u))
        want = t._nearest_in_order(t.final(u), observers(u))
        assert got is not None and want is not None
        assert (got[0], got[1], got[2].unit.id, got[3]) == (want[0], want[1], want[2].unit.id, want[3])
    assert len(t._pair_cache) == kept
