"""The fourth pass of the checker's fast paths (issue #18 item 3) gives the same values as the
code it replaces: the blocker screen's Booleans (axis-parallel and zero-length segments too),
the coherency spanning tree's longest link and its models (ties: the first model), and the
closest no-go feature of a round base whose bound is taken as its distance, and the close base
pairs of the sweep (those of the whole matrix, in its order)."""

from __future__ import annotations

import math

import numpy as np
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st
from shapely.geometry import Polygon

from planner.geometry.shapes import distance_to_polygon, footprint, signed_distance
from planner.legality.checks.coherency import coherency_gap
from planner.legality.checks.placement import closest_no_go
from planner.legality.table import _segments_meet_box
from planner.schema import RoundBase


def _old_meet_box(start, end, bounds, margin):
    """The screen as it was (four clipping steps, each a masked update)."""
    minx, miny, maxx, maxy = (bounds[:, c:c + 1] for c in range(4))
    sx, sy = start[None, :, 0], start[None, :, 1]
    dx, dy = end[None, :, 0] - sx, end[None, :, 1] - sy
    shape = (len(bounds), len(start))
    t0, t1, ok = np.zeros(shape), np.ones(shape), np.ones(shape, dtype=np.bool_)
    for pp, qq in ((-dx, sx - (minx - margin)), (dx, (maxx + margin) - sx),
                   (-dy, sy - (miny - margin)), (dy, (maxy + margin) - sy)):
        pp = np.broadcast_to(pp, shape)
        par = pp == 0
        ok &= ~(par & (qq < 0))
        with np.errstate(divide="ignore", invalid="ignore"):
            r = qq / pp
        t0 = np.where(~par & (pp < 0), np.maximum(t0, r), t0)
        t1 = np.where(~par & (pp > 0), np.minimum(t1, r), t1)
    return ok & (t0 <= t1)


grid = st.integers(0, 6).map(float)  # on box edges and corners, parallel and zero-length segments
free = st.floats(0.0, 6.0, allow_nan=False, allow_subnormal=False)
point = st.tuples(st.one_of(grid, free), st.one_of(grid, free))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(point, point), min_size=1, max_size=12),
       st.lists(st.tuples(point, st.tuples(st.integers(0, 3), st.integers(0, 3))), min_size=1, max_size=4),
       st.sampled_from([0.0, 1e-6]))
def test_box_screen_gives_the_booleans_of_the_old_screen(segments, boxes, margin):
    start = np.array([s for s, _ in segments])
    end = np.array([e for _, e in segments])
    bounds = np.array([[x, y, x + w, y + h] for (x, y), (w, h) in boxes])
    assert (_segments_meet_box(start, end, bounds, margin) == _old_meet_box(start, end, bounds, margin)).all()


def _old_gap(fps):
    """Prim's longest link as it was (generator minimum, full rows)."""
    n = len(fps)
    if n < 2:
        return 0.0, 0, 0
    dist = [[max(0.0, signed_distance(fps[i], fps[j])) if i != j else 0.0 for j in range(n)] for i in range(n)]
    in_tree, best, link = [False] * n, [math.inf] * n, [0] * n
    best[0] = 0.0
    worst = (0.0, 0, 0)
    for _ in range(n):
        k = min((i for i in range(n) if not in_tree[i]), key=lambda i: best[i])
        in_tree[k] = True
        if k != 0 and best[k] > worst[0]:
            worst = (best[k], link[k], k)
        for i in range(n):
            if not in_tree[i] and dist[k][i] < best[i]:
                best[i], link[i] = dist[k][i], k
    return worst


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 8), st.integers(0, 3)), min_size=1, max_size=9))
def test_coherency_gap_is_the_old_spanning_tree(cells):
    # 32 mm bases on a 1.5" grid: many equal links, so the tie rule (the first model) is tested
    fps = [footprint(RoundBase(diameter_mm=32), 1.5 * x, 1.5 * y) for x, y in cells]
    assert coherency_gap(fps) == _old_gap(fps)


WALL = Polygon([(10, 10), (14, 10.5), (13, 16), (10.2, 15)])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.floats(6.0, 18.0), st.floats(6.0, 20.0)), min_size=1, max_size=5),
       st.sampled_from([25.0, 32.0, 40.0]))
def test_round_bases_clear_of_a_feature_have_its_exact_distance(centres, mm):
    fps = [footprint(RoundBase(diameter_mm=mm), x, y) for x, y in centres]
    features = [("w", WALL), ("box", shapely.box(15, 5, 17, 8))]
    got = closest_no_go(fps, features)
    want = min((distance_to_polygon(f, p), i, k) for i, f in enumerate(fps) for k, (_, p) in enumerate(features))
    assert got is not None and got.distance == want[0]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.one_of(grid, free), st.one_of(grid, free), st.sampled_from([0.0, 0.63, 0.79, 2.5])),
                max_size=25))
def test_close_pairs_by_sweep_are_those_of_the_whole_matrix(discs):
    from planner.legality.hh2 import _pairs_within_reach

    x, y, rad = (np.array([d[k] for d in discs], dtype=float) for k in range(3))
    rows, cols = _pairs_within_reach(x, y, rad, 1.0)
    lb = np.hypot(x[rows] - x[cols], y[rows] - y[cols]) - rad[rows] - rad[cols]
    keep = lb <= 1.0
    if len(discs):
        full = np.hypot(x[:, None] - x[None, :], y[:, None] - y[None, :]) - rad[:, None] - rad[None, :]
        want = np.nonzero(np.triu(full <= 1.0, k=1))
    else:
        want = (np.zeros(0, dtype=int), np.zeros(0, dtype=int))
    assert rows[keep].tolist() == want[0].tolist() and cols[keep].tolist() == want[1].tolist()
