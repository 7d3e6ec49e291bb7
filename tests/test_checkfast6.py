"""Issue 18 item 3, sixth pass: the batched outlines and the pruned Scout scan against the exact
one-by-one forms."""

from __future__ import annotations

import math

import shapely
from hypothesis import given, settings
from hypothesis import strategies as st

import planner.geometry.measure as measure
from planner.geometry.measure import farthest_from
from planner.geometry.shapes import Footprint, footprint, polygons
from planner.schema import HullBase, OvalBase, RoundBase

_BASES = [RoundBase(diameter_mm=32), RoundBase(diameter_mm=60), OvalBase(length_mm=75, width_mm=42),
          OvalBase(length_mm=120, width_mm=92), OvalBase(length_mm=50, width_mm=50),
          HullBase(length_in=4.6, width_in=3.3)]

_placed = st.tuples(st.integers(0, len(_BASES) - 1), st.floats(-40, 110), st.floats(-40, 90), st.floats(-720, 720))


def _fp(item: tuple[int, float, float, float]) -> Footprint:
    k, x, y, facing = item
    return footprint(_BASES[k], x, y, facing)


@settings(max_examples=15, deadline=None)
@given(st.lists(_placed, min_size=0, max_size=12), st.sampled_from([(64, True), (96, False), (32, True), (7, False)]),
       st.booleans())
def test_polygons_are_the_one_by_one_outlines(items: list[tuple[int, float, float, float]], nc: tuple[int, bool],
                                              repeat: bool) -> None:
    n, circumscribed = nc
    fps = [_fp(i) for i in items]
    if repeat and fps:
        fps += fps[:2]  # a footprint listed twice: the same kept polygon
    got = polygons(fps, n, circumscribed=circumscribed)
    assert len(got) == len(fps)
    for f, g in zip(fps, got, strict=True):
        exact = f._polygon(n, circumscribed)  # the polygon made alone, never kept
        assert g.wkb == exact.wkb  # every coordinate, bit for bit, and the ring closed alike
        assert g is f.polygon(n, circumscribed=circumscribed)  # the kept one


def test_polygons_values() -> None:
    circle, oval = Footprint("circle", 1.0, 2.0, 0.5), Footprint("ellipse", 3.0, 4.0, 2.0, 1.0, math.pi / 2)
    a, b = polygons([circle, oval], 4, circumscribed=False)
    xy = shapely.get_coordinates(b)
    assert len(xy) == 5 and (xy[0] == xy[-1]).all()  # 4 vertices, the ring closed
    # the oval's long axis along y: its first vertex is at the end of that axis
    assert math.isclose(xy[0][0], 3.0, abs_tol=1e-12) and math.isclose(xy[0][1], 6.0)
    assert math.isclose(a.area, 2 * 0.25, rel_tol=1e-12)  # an inscribed square of half-diagonal 0.5
    square = polygons([circle], 4, circumscribed=True)[0]
    assert math.isclose(square.area, 4 * 0.25, rel_tol=1e-12)  # circumscribed: side 1
    assert polygons([], 64) == []


_moves = st.tuples(st.sampled_from([2, 3, 5]), st.sampled_from([0, 2, 3, 5]), st.floats(0.05, 7),
                   st.floats(0, 2 * math.pi), st.floats(-360, 360), st.floats(-360, 360))


@settings(max_examples=8, deadline=None)
@given(_moves)
def test_scout_scan_pruned_is_the_full_scan(move: tuple[int, int, float, float, float, float]) -> None:
    after_k, before_k, r, bearing, f0, f1 = move
    before = footprint(_BASES[before_k], 10.0, 10.0, f0)
    after = footprint(_BASES[after_k], 10.0 + r * math.cos(bearing), 10.0 + r * math.sin(bearing), f1)
    assert farthest_from(before, after) == farthest_from(before, after, prune=False)


def test_scout_scan_pruned_measures_fewer_points(monkeypatch) -> None:
    calls = []
    real = measure.signed_distance
    monkeypatch.setattr(measure, "signed_distance", lambda a, b: calls.append(1) or real(a, b))
    before = footprint(_BASES[2], 10.0, 10.0, 30.0)
    after = footprint(_BASES[2], 14.0, 12.0, 75.0)
    fast = farthest_from(before, after)
    n_fast = len(calls)
    calls.clear()
    full = farthest_from(before, after, prune=False)
    assert fast == full
    assert len(calls) == 360 + 5 * 25  # every scanned point, 5 a zoom step (25 halvings to 1e-9 rad)
    assert n_fast < len(calls) / 2
    # a brute-force oracle: 720 points of the outline measured by shapely to a fine inscribed
    # polygon of the base before (which lies inside it: each distance as large, about 2e-6 more at most)
    t = [2 * math.pi * k / 720 for k in range(720)]
    c, s = math.cos(after.angle), math.sin(after.angle)
    pts = shapely.points([(after.cx + after.a * math.cos(u) * c - after.b * math.sin(u) * s,
                           after.cy + after.a * math.cos(u) * s + after.b * math.sin(u) * c) for u in t])
    oracle = float(shapely.distance(before.polygon(2048), pts).max())
    assert math.isclose(fast, oracle, abs_tol=1e-4)
    assert 4.0 < fast < math.hypot(4, 2) + (75 - 42) / 25.4 / 2  # centre moved 4.47", oval 75 x 42 mm
