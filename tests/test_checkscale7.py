"""The seventh pass of the checker's fast paths (issue #18 item 3): the pruned segment/box
screen (only pairs whose bounding boxes meet are clipped) gives the Booleans of the dense one,
and the blocked-terrain names come out the same."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from planner.legality.table import _box_segment_pairs, _segments_meet_box

grid = st.integers(0, 6).map(float)  # on box edges and corners: parallel, touching, zero-length
free = st.floats(-1.0, 7.0, allow_nan=False, allow_subnormal=False)
point = st.tuples(st.one_of(grid, free), st.one_of(grid, free))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(point, point), min_size=1, max_size=16),
       st.lists(st.tuples(point, st.tuples(st.integers(0, 3), st.integers(0, 3))), min_size=1, max_size=6),
       st.sampled_from([0.0, 1e-6, 0.5]))
def test_pruned_screen_gives_the_dense_booleans(segments, boxes, margin):
    start = np.array([s for s, _ in segments])
    end = np.array([e for _, e in segments])
    bounds = np.array([[x, y, x + w, y + h] for (x, y), (w, h) in boxes])
    dense = _segments_meet_box(start, end, bounds, margin, prune=False)
    pruned = _segments_meet_box(start, end, bounds, margin)
    assert dense.shape == pruned.shape == (len(bounds), len(start))
    assert (dense == pruned).all()
    b, i = _box_segment_pairs(start, end, bounds, margin)
    assert list(zip(b.tolist(), i.tolist(), strict=True)) == list(zip(*(a.tolist() for a in np.nonzero(dense)),
                                                                      strict=True))


def test_corner_touch_and_zero_length_are_kept():
    bounds = np.array([[1.0, 1.0, 2.0, 2.0]])
    start = np.array([[0.0, 0.0], [1.0, 1.0], [3.0, 0.0], [2.0, 2.0], [0.0, 3.0]])
    end = np.array([[1.0, 1.0], [1.0, 1.0], [3.0, 5.0], [4.0, 0.0], [0.0, 3.0]])
    got = _segments_meet_box(start, end, bounds, 0.0)[0].tolist()
    assert got == [True, True, False, True, False]
    assert got == _segments_meet_box(start, end, bounds, 0.0, prune=False)[0].tolist()


coord = st.floats(-3.0, 12.0, allow_nan=False, allow_subnormal=False)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(coord, coord), min_size=1, max_size=30), st.floats(0.0, 3.0),
       st.sampled_from([0, 1, 2]))
def test_within_screen_keeps_every_value_it_is_asked_about(pts, reach, which):
    import shapely
    from shapely.geometry import Polygon

    from planner.geometry.shapes import point_distances

    polys = [Polygon([(0, 0), (4, 0), (4, 3), (0, 3)]), Polygon([(5, 5), (9, 6), (7, 9)]),
             Polygon([(0, 6), (3, 6), (3, 7), (1, 7), (1, 9), (0, 9)])][: which + 1]
    x = np.array([p[0] for p in pts])
    y = np.array([p[1] for p in pts])
    full = point_distances(polys, x, y)
    want = np.array([[shapely.distance(g, shapely.Point(a, b)) for a, b in pts] for g in polys])
    assert (full == want).all()  # the point blocks of the dense pass: shapely's floats
    within = np.full(len(x), reach)
    got = point_distances(polys, x, y, within=within)
    measured = np.isfinite(got)
    assert (got[measured] == full[measured]).all()
    assert ((got <= within) == (full <= within)).all()
    assert (full[~measured] > reach).all()
