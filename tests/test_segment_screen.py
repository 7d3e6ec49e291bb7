"""The vectorised segment screen of the quick line-of-sight test (issue 18 item 1, planfast5):
its decisions are shapely's, and the quick test gives the same first clear line as the plain
shapely loop it replaced, on random candidate placements (area terrain stood in, several keys)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st
from shapely import affinity
from shapely.geometry import Polygon, box
from shapely.ops import unary_union

from planner.geometry.segment_screen import CLEAR, MEETS, UNDECIDED, SegmentScreen, first_clear
from planner.geometry.shapes import footprint
from planner.schema import RoundBase, Scenario
from planner.world import resolve

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))


def _shapes(seed: int):
    """A union of rotated boxes, triangles and one L (non-convex, merged with a box)."""
    rng = np.random.default_rng(seed)
    parts = []
    for _ in range(6):
        x, y = rng.uniform(0, 40, 2)
        w, h = rng.uniform(0.5, 6, 2)
        parts.append(affinity.rotate(box(x, y, x + w, y + h), rng.uniform(0, 90), origin="centroid"))
    parts.append(Polygon([(5, 5), (9, 6), (6, 10)]))
    parts.append(box(20, 20, 26, 21))
    parts.append(box(25, 20.5, 26, 25))  # overlaps the last one: an L after the union
    return unary_union(parts)


def _vertex_segments(geom, rng, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Segments from a vertex of ``geom`` (touching it), along an edge, and grazing one."""
    verts = np.vstack([np.asarray(g.exterior.coords) for g in getattr(geom, "geoms", [geom])])
    p = verts[rng.integers(0, len(verts), n)]
    q = np.vstack([verts[rng.integers(0, len(verts), n // 2)], rng.uniform(-5, 50, (n - n // 2, 2))])
    return p, q


def test_screen_decisions_are_shapely_answers():
    """On 60,000 random segments and 4,000 through the union's vertices (touching, along edges),
    every decided segment is decided as ``shapely.intersects`` does, and most are decided."""
    for seed in range(3):
        geom = _shapes(seed)
        screen = SegmentScreen(geom)
        rng = np.random.default_rng(100 + seed)
        p, q = rng.uniform(-5, 50, (20000, 2)), rng.uniform(-5, 50, (20000, 2))
        vp, vq = _vertex_segments(geom, rng, 1400)
        p, q = np.vstack([p, vp]), np.vstack([q, vq])
        cls = screen.classify(p, q)
        truth = shapely.intersects(shapely.linestrings(np.stack([p, q], axis=1)), geom)
        assert not (truth & (cls == CLEAR)).any()
        assert not (~truth & (cls == MEETS)).any()
        assert (cls == UNDECIDED).mean() < 0.25
        assert (cls == MEETS).sum() > 1000 and (cls == CLEAR).sum() > 1000


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 5), pts=st.lists(st.tuples(st.floats(-5, 50), st.floats(-5, 50), st.floats(-5, 50),
                                                       st.floats(-5, 50)), min_size=1, max_size=80),
       chunk=st.integers(1, 60))
def test_first_clear_is_the_first_segment_shapely_finds_clear(seed, pts, chunk):
    geom = _shapes(seed % 3)
    a = np.array(pts)
    p, q = a[:, :2], a[:, 2:]
    free = np.nonzero(~shapely.intersects(shapely.linestrings(np.stack([p, q], axis=1)), geom))[0]
    want = int(free[0]) if len(free) else None
    assert first_clear(SegmentScreen(geom), p, q, geom, chunk=chunk) == want


def test_degenerate_segments_and_geometries():
    geom = box(0, 0, 1, 1)
    s = SegmentScreen(geom)
    p = np.array([[0.5, 0.5], [2.0, 2.0], [1.0, 0.5]])
    cls = s.classify(p, p.copy())  # points: inside, outside, on an edge
    assert cls[1] == CLEAR and cls[0] in (MEETS, UNDECIDED) and cls[2] == UNDECIDED
    assert first_clear(s, p, p.copy(), geom) == 1
    empty = SegmentScreen(None)
    assert (empty.classify(p, p) == UNDECIDED).all()


def _reference_quick_visible(t, observers, tgt, low=None):
    """The quick test as it was before the screen (main at 0b3ac78): every centre line through shapely."""
    st_ = [t.target_standing_in(f) for f in tgt]
    ct = np.array([[f.cx, f.cy] for f in tgt])
    by_key: dict = {}
    centres = []
    for k, o in enumerate(observers):
        centres.append([(f.cx, f.cy) for f in o.footprints])
        for i, f in enumerate(o.footprints):
            so = t.standing_in(f)
            for j in range(len(tgt)):
                by_key.setdefault(so | st_[j], []).append((k, i, j))
    for key, triples in by_key.items():
        union = t._blocked_union(key, low)
        kij = np.array(triples)
        starts = np.array([centres[k][i] for k, i, _ in triples])
        if union is None:
            m = 0
        else:
            segs = shapely.linestrings(np.stack([starts, ct[kij[:, 2]]], axis=1))
            free = np.nonzero(~shapely.intersects(segs, union))[0]
            if not len(free):
                continue
            m = int(free[0])
        k, i, j = (int(v) for v in kij[m])
        return k, i, j, (centres[k][i], (tgt[j].cx, tgt[j].cy))
    return None


def test_quick_visible_same_as_the_shapely_loop_on_random_candidates():
    """The 20-unit planning instance with some enemy models moved into the area ruins (so the
    lines fall into several groups by the features skipped): 400 random 5-model placements,
    some in the ruins, against every enemy unit or one to three of them, give the same (observer, model, target model, segment) or None."""
    from bench_plan_scaling import instance

    data = instance(2, 3)
    ruins = [t for t in data["terrain"] if t["kind"] == "area"]
    enemy = data["armies"][0]["units"]
    for u, r in zip(enemy[:4], ruins, strict=False):  # four squads partly in a ruin
        (x0, y0), (_x1, y1) = r["footprint"][0], r["footprint"][2]
        for k, m in enumerate(u["models"][:3]):
            m["x"], m["y"] = round(x0 + 0.7 + 0.9 * k, 3), round((y0 + y1) / 2, 3)
    world = resolve(Scenario.model_validate(data), "<screen test>")
    t = world.ruleset.table(world)
    observers = [t.final(u) for u in t.on_table]
    assert sum(bool(t.standing_in(f)) for o in observers for f in o.footprints) >= 8
    rng = np.random.default_rng(7)
    base = RoundBase(diameter_mm=32)
    seen = hidden = in_ruin = 0
    for n in range(400):
        if n % 3 == 0:  # in or at a ruin
            r = ruins[n % len(ruins)]["footprint"]
            cx, cy = rng.uniform(r[0][0] - 1, r[2][0] + 1), rng.uniform(r[0][1] - 1, r[2][1] + 1)
        else:
            cx, cy = rng.uniform(2, 70), rng.uniform(13, 46)
        tgt = [footprint(base, float(cx + 1.4 * k), float(cy + rng.uniform(-0.5, 0.5)), 0.0) for k in range(5)]
        obs = observers if n % 5 == 0 else [observers[k] for k in rng.choice(len(observers), 1 + n % 3, replace=False)]
        want = _reference_quick_visible(t, obs, tgt)
        assert t._quick_visible(obs, tgt) == want
        in_ruin += any(t.target_standing_in(f) for f in tgt)
        seen += want is not None
        hidden += want is None
    assert seen > 100 and hidden > 20 and in_ruin > 30
