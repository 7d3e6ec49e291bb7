"""The convex Minkowski sum and the grown convex polygon behind the fast oval regions (issue 19:
best-formation odds near oval models): the same set as the convex hull of all vertex sums, and an
outer polygon that contains the grown set with an inner one inside it."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from shapely.geometry import MultiPoint, Polygon

from planner.deepstrike.procedure import grown_convex, minkowski_convex

pts = st.lists(st.tuples(st.floats(-5, 5), st.floats(-5, 5)), min_size=3, max_size=14)


def _hull(p):
    h = MultiPoint(p).convex_hull
    return None if not isinstance(h, Polygon) or h.area < 1e-3 else np.asarray(h.exterior.coords)[:-1]


@settings(max_examples=120, deadline=None)
@given(pts, pts, st.booleans())
def test_minkowski_sum_is_the_hull_of_vertex_sums(a, b, flip):
    A, B = _hull(a), _hull(b)
    if A is None or B is None:
        return
    if flip:
        B = B[::-1]
    m = Polygon(minkowski_convex(A, B))
    ref = MultiPoint((A[:, None, :] + B[None, :, :]).reshape(-1, 2)).convex_hull
    assert m.is_valid and m.exterior.is_ccw
    assert m.symmetric_difference(ref).area < 1e-9 * max(1.0, ref.area)


@settings(max_examples=80, deadline=None)
@given(pts, st.floats(0.05, 3.0))
def test_grown_convex_brackets_the_grown_set(a, g):
    A = _hull(a)
    if A is None:
        return
    true = Polygon(A).buffer(g, quad_segs=1024)
    outer, inner = Polygon(grown_convex(A, g, "outer")), Polygon(grown_convex(A, g, "inner"))
    assert outer.is_valid and inner.is_valid
    assert outer.buffer(1e-9).contains(true.buffer(-1e-5))
    assert true.buffer(1e-5).contains(inner)
    # the gap is that of tangent lines at most 2 pi / 256 apart: about g (pi/256)^2 / 2 wide
    assert outer.area - inner.area <= true.length * g * (math.pi / 256) ** 2 + 1e-6
