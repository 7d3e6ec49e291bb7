"""Ovals apart are measured by a certified Newton solve (``shapes._oval_apart``, issue #18 item 4)
instead of the support-function search (``shapes._searched``): the same distances, to far below
the tolerance and never above the search's (both are the gap along a direction, a lower bound),
and the boundary cases decided the same way."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planner.geometry import shapes as S
from planner.geometry.measure import is_more_than, is_overlap_distance, is_within
from planner.geometry.shapes import Footprint, footprint, segment, signed_distance, signed_distances
from planner.schema import HullBase, OvalBase
from planner.units import TOLERANCE_IN

coord = st.floats(-8, 8)
ang = st.floats(-7, 7)
oval = st.builds(lambda x, y, a, f, t: Footprint("ellipse", x, y, a, a * f, t),
                 coord, coord, st.floats(0.3, 2.5), st.floats(0.1, 0.99), ang)
disc = st.builds(lambda x, y, r: Footprint("circle", x, y, r), coord, coord, st.floats(0.0, 1.5))
edge = st.builds(lambda x, y, dx, dy: segment((x, y), (x + dx, y + dy)), coord, coord, st.floats(-9, 9), st.floats(-9, 9))
hull = st.builds(lambda x, y, ln, w, f: footprint(HullBase(length_in=ln, width_in=w), x, y, f),
                 coord, coord, st.floats(0.5, 5), st.floats(0.5, 3), st.floats(0, 360))


def _agrees(a: Footprint, b: Footprint) -> float | None:
    fast = S._oval_apart(a, b)
    ref = S._searched(a, b)
    if fast is None:
        return None
    # pairs apart take the solve (and discs, also overlapping); touching ones may read +-1e-16
    assert ref > -1e-12 or b.kind == "circle" or a.kind == "circle"
    assert fast >= ref - 1e-12  # the search's value is a gap along a direction too: at most the distance
    assert fast - ref < 1e-9  # and within 1e-9" of it (the search's own accuracy)
    assert signed_distance(a, b) == fast
    assert abs(signed_distance(b, a) - fast) < 1e-12
    return fast


@settings(max_examples=400, deadline=None)
@given(oval, st.one_of(oval, disc, edge, hull), st.booleans())
def test_the_solve_is_the_searched_distance(a, b, swap):
    _agrees(*((b, a) if swap else (a, b)))


def test_thousands_of_pairs_and_most_of_them_solved():
    rng = np.random.default_rng(18)
    solved = 0
    for _ in range(1500):
        x, y, t = rng.uniform(-6, 6, 3)
        la = rng.uniform(0.3, 2.5)
        a = Footprint("ellipse", 0.0, 0.0, la, la * rng.uniform(0.1, 0.99), rng.uniform(-4, 4))
        kind = rng.integers(3)
        if kind == 0:
            lb = rng.uniform(0.3, 2.5)
            b = Footprint("ellipse", x, y, lb, lb * rng.uniform(0.1, 0.99), t)
        elif kind == 1:
            b = Footprint("circle", x, y, rng.uniform(0.2, 1.5))
        else:
            b = footprint(HullBase(length_in=rng.uniform(0.5, 5), width_in=rng.uniform(0.5, 3)), x, y, math.degrees(t))
        solved += _agrees(a, b) is not None
    assert solved > 1000  # the search is left to touching, overlapping and very close pairs


def test_a_disc_overlapping_an_oval_is_its_centre_distance_less_its_radius():
    o = Footprint("ellipse", 0.0, 0.0, 1.5, 0.8, 0.0)
    for c, want in ((Footprint("circle", 2.5, 0.0, 1.0), 0.0), (Footprint("circle", 2.0, 0.0, 0.6), -0.1),
                    (Footprint("circle", 0.0, 1.3, 0.7), -0.2)):
        got = _agrees(o, c)
        assert got == pytest.approx(want, abs=1e-12)
        assert is_within(o, c, 0.0)
        assert is_overlap_distance(got) is (want < 0)


def test_touching_and_overlapping_pairs_take_the_search():
    o = Footprint("ellipse", 0.0, 0.0, 1.5, 0.8, 0.0)
    for b in (Footprint("circle", 1.0, 0.2, 1.0),            # a disc whose centre is inside the oval
              Footprint("ellipse", 2.5, 0.0, 1.0, 0.5, 0.0),  # touching end to end
              Footprint("ellipse", 2.9, 0.0, 1.5, 0.8, 0.0),  # overlapping by 0.1"
              segment((-3.0, 0.5), (3.0, 0.5)),               # an edge across the oval
              footprint(HullBase(length_in=1.0, width_in=1.0), 0.5, 0.0, 0.0)):  # a hull inside it
        assert S._oval_apart(o, b) is None
    assert signed_distance(o, Footprint("ellipse", 2.9, 0.0, 1.5, 0.8, 0.0)) == pytest.approx(-0.1, abs=1e-9)
    # a hull around the oval, its corners listed either way round
    big = footprint(HullBase(length_in=6.0, width_in=4.0), 0.0, 0.0, 0.0)
    for verts in (big.verts, big.verts[::-1]):
        assert S._oval_apart(o, Footprint("polygon", 0.0, 0.0, 3.0, 2.0, 0.0, verts)) is None


A = 60 / 25.4 / 2  # a 60 x 35 mm oval (bikes): semi-axes in inches
B = 35 / 25.4 / 2
R = 32 / 25.4 / 2  # a 32 mm round base


@pytest.mark.parametrize("gap", [9.0, 9.0 + TOLERANCE_IN / 2, 9.01])
@pytest.mark.parametrize("facing", [0.0, 30.0, 90.0, 135.0])
def test_boundary_9_inches_with_ovals(gap, facing):
    """Pairs built exactly ``gap`` inches apart: within 9" up to the tolerance, more than 9" at 9.01"."""
    t = math.radians(facing)
    o = footprint(OvalBase(length_mm=60, width_mm=35), 10.0, 10.0, facing)
    # along the facing, the oval's tip; a disc and another oval beyond it
    ux, uy = math.cos(t), math.sin(t)
    disc_fp = Footprint("circle", 10.0 + (A + gap + R) * ux, 10.0 + (A + gap + R) * uy, R)
    tip_to_tip = Footprint("ellipse", 10.0 + (2 * A + gap) * ux, 10.0 + (2 * A + gap) * uy, A, B, t)
    # across the facing, a hull edge parallel to the oval's length at the half-width plus the gap
    nx, ny = -uy, ux
    d = B + gap + 0.5
    hull_fp = footprint(HullBase(length_in=6.0, width_in=1.0), 10.0 + d * nx, 10.0 + d * ny, facing)
    # a long edge at 45 degrees to the oval: its reach along the edge's normal is closed-form
    m = (math.cos(t + math.pi / 4), math.sin(t + math.pi / 4))
    reach = math.sqrt((A * A + B * B) / 2) + gap
    px, py = 10.0 + reach * m[0], 10.0 + reach * m[1]
    edge_fp = segment((px - 5 * m[1], py + 5 * m[0]), (px + 5 * m[1], py - 5 * m[0]))
    for other in (disc_fp, tip_to_tip, hull_fp, edge_fp):
        assert S._oval_apart(o, other) is not None
        got = signed_distance(o, other)
        assert got == pytest.approx(gap, abs=1e-12)
        assert signed_distances([(o, other), (other, o)]).tolist() == [got, signed_distance(other, o)]
        assert is_within(o, other, 9.0) is (gap < 9.005) is not is_more_than(o, other, 9.0)
        assert (S._searched(o, other) <= 9.0 + TOLERANCE_IN) is is_within(o, other, 9.0)


@settings(max_examples=150, deadline=None)
@given(oval, st.floats(-5, 5), st.floats(-5, 5), st.floats(1, 9), st.floats(1, 9), st.floats(0, 3), st.booleans())
def test_oval_edge_pairs_hold_the_nearest_edge(o, x0, y0, w, h, turn, ell):
    """The closed-form bounds keep the edge that is nearest (the same least distance as every edge
    measured), for a rectangle or an L-shaped feature."""
    from shapely.geometry import Polygon

    from planner.geometry.shapes import oval_edge_pairs, polygon_edges

    pts = [(0, 0), (w, 0), (w, h / 2), (w / 2, h / 2), (w / 2, h), (0, h)] if ell else [(0, 0), (w, 0), (w, h), (0, h)]
    c, s = math.cos(turn), math.sin(turn)
    poly = Polygon([(x0 + x * c - y * s, y0 + x * s + y * c) for x, y in pts])
    pairs = oval_edge_pairs(o, poly)
    every = [signed_distance(o, e) for e in polygon_edges(poly)]
    assert min(signed_distance(a, b) for a, b in pairs) == min(every)
