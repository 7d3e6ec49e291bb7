"""Issue 18 item 4, seventh pass: the shortcuts a label takes, each against the slow path it
replaces (the same floats, bit for bit; the same errors)."""

from __future__ import annotations

import math
import struct

import numpy as np
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st
from shapely.geometry import Polygon

from planner.geometry import shapes
from planner.geometry.shapes import Footprint, footprint, segment
from planner.schema import HullBase, new_polygon


def _bits(v: float) -> bytes:
    return struct.pack("<d", v)


_coord = st.floats(-80, 80, allow_nan=False, allow_infinity=False)


@settings(max_examples=400, deadline=None)
@given(st.floats(0.3, 10), st.floats(0.3, 6), _coord, _coord, st.floats(-720, 720),
       st.floats(-12, 12), st.floats(-12, 12), st.floats(0.2, 2.5), st.booleans())
def test_round_base_to_hull_is_shapelys_float(length: float, width: float, x: float, y: float, facing: float,
                                              dx: float, dy: float, r: float, seg: bool) -> None:
    hull = footprint(HullBase(length_in=length, width_in=width), x, y, facing)
    p = segment(hull.verts[0], hull.verts[2]) if seg else hull
    c = Footprint("circle", x + dx, y + dy, r)
    fast = shapes._circle_poly_fast(c, p)
    slow = shapes._circle_poly_shapely(c, p)
    if fast is None:  # the centre within 1e-7" of an edge: shapely decides
        assert not seg
        assert shapes._circle_poly(c, p) == slow
    else:
        assert _bits(fast) == _bits(slow)
    assert _bits(shapes._circle_poly(c, p)) == _bits(slow)


def test_round_base_on_and_next_to_a_hull_edge() -> None:
    hull = footprint(HullBase(length_in=4.0, width_in=2.0), 10.0, 10.0, 0.0)  # x 8..12, y 9..11
    for cx, cy in [(12.0, 10.0), (12.0, 11.0), (8.0, 9.0), (10.0, 11.0), (12.0 + 1e-9, 10.0), (12.0 - 5e-8, 10.5)]:
        c = Footprint("circle", cx, cy, 0.5)
        assert shapes._circle_poly_fast(c, hull) is None
        assert _bits(shapes._circle_poly(c, hull)) == _bits(shapes._circle_poly_shapely(c, hull))
    # inside, well clear of the edges: minus (distance to the boundary + radius)
    c = Footprint("circle", 10.0, 10.25, 0.5)
    assert shapes._circle_poly(c, hull) == pytest.approx(-(0.75 + 0.5))
    assert _bits(shapes._circle_poly(c, hull)) == _bits(shapes._circle_poly_shapely(c, hull))
    # a degenerate segment (both ends equal): GEOS's point distance
    s = segment((3.0, 4.0), (3.0, 4.0))
    c = Footprint("circle", 0.0, 0.0, 1.0)
    assert shapes._circle_poly(c, s) == shapes._circle_poly_shapely(c, s) == 4.0


_pts = st.lists(st.tuples(_coord, _coord), min_size=3, max_size=12)


@settings(max_examples=300, deadline=None)
@given(_pts, st.booleans())
def test_new_polygon_is_the_constructors_polygon(pts: list[tuple[float, float]], ints: bool) -> None:
    pts_t = tuple((float(int(x)), y) if ints else (x, y) for x, y in pts)
    a, b = Polygon(pts_t), new_polygon(pts_t)
    assert type(a) is type(b)
    assert a.wkb == b.wkb


@pytest.mark.parametrize("pts", [((0, 0), (1, 1)), (), (("a", "b"), (1, 1), (1, 0)), ((0, 0, 1), (1, 1, 1), (1, 0, 1)),
                                 ((0, 0), (1, 1), (1, 0, 2))])
def test_new_polygon_refuses_and_accepts_what_the_constructor_does(pts: tuple) -> None:
    try:
        want = Polygon(pts)
    except Exception as e:  # noqa: BLE001 (the constructor's own error, whatever it is)
        with pytest.raises(type(e)) as got:
            new_polygon(pts)
        assert str(got.value) == str(e)
    else:
        assert new_polygon(pts).wkb == want.wkb


@settings(max_examples=200, deadline=None)
@given(_pts, st.booleans())
def test_one_ring_segments_are_the_ring_by_ring_segments(pts: list[tuple[float, float]], reverse: bool) -> None:
    poly = Polygon(pts).convex_hull
    if poly.geom_type != "Polygon" or not poly.is_valid or poly.is_empty:
        return
    if reverse:
        poly = Polygon(list(poly.exterior.coords)[::-1])
    got = shapes._segments_of(poly)
    want = shapes._ring_segments(poly)
    assert got is not None
    assert got.dtype == want.dtype and got.shape == want.shape
    assert got.tobytes() == want.tobytes()


def test_segments_of_holes_multipolygons_and_invalid_shapes() -> None:
    square = Polygon([(0, 0), (10, 0), (10, 10), (0, 10)], holes=[[(2, 2), (4, 2), (4, 4), (2, 4)]])
    multi = shapely.MultiPolygon([Polygon([(0, 0), (1, 0), (1, 1)]), Polygon([(5, 5), (6, 5), (6, 6)])])
    for g in (square, multi):
        got = shapes._segments_of(g)
        assert got is not None and got.tobytes() == shapes._ring_segments(g).tobytes()
    assert len(shapes._segments_of(square)) == 8
    assert shapes._segments_of(Polygon([(0, 0), (2, 2), (2, 0), (0, 2)])) is None  # a bow tie
    assert shapes._segments_of(Polygon()) is None


def test_per_polygon_serialises_a_polygon_once_for_every_kind(monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[str] = []
    poly = Polygon([(0, 0), (3, 0), (3, 2.5), (0, 2)])
    twin = Polygon([(0, 0), (3, 0), (3, 2.5), (0, 2)])  # another object of the same shape
    calls = 0
    real = shapely.to_wkb

    def counting(*a, **k):
        nonlocal calls
        calls += 1
        return real(*a, **k)

    monkeypatch.setattr(shapely, "to_wkb", counting)
    a = shapes._per_polygon("labels7-a", poly, lambda p: made.append("a") or p.area)
    b = shapes._per_polygon("labels7-b", poly, lambda p: made.append("b") or p.length)
    assert (a, b) == (poly.area, poly.length)
    assert shapes._per_polygon("labels7-a", poly, lambda p: made.append("again")) == poly.area
    assert shapes._per_polygon("labels7-b", twin, lambda p: made.append("twin")) == poly.length
    assert made == ["a", "b"]  # the twin is the same shape: its value is the kept one
    assert calls <= 2  # poly once (for both kinds), twin once


def test_point_distances_still_shapelys_floats_on_one_ring_polygons() -> None:
    rng = np.random.default_rng(7)
    polys = [Polygon(rng.uniform(0, 40, (5, 2))).convex_hull for _ in range(6)]
    x, y = rng.uniform(-5, 45, 50), rng.uniform(-5, 45, 50)
    got = shapes.point_distances(polys, x, y)
    for k, poly in enumerate(polys):
        want = shapely.distance(poly, shapely.points(np.column_stack([x, y])))
        assert got[k].tobytes() == np.asarray(want, dtype=float).tobytes()
    assert math.isfinite(float(got.sum()))
