"""The oval distance search scans only the directions that can hold the largest gap
(``shapes._scan_many``, issue #18 item 3): it must find the very maximum and the very first
direction of it that the scan of all 512 directions finds, so every distance keeps its floats."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from planner.geometry import shapes as S
from planner.geometry.shapes import Footprint, segment, signed_distance, signed_distances


def _full_scan(fa, fb):
    """Every direction, as the search did before the window (the reference)."""
    ux = np.broadcast_to(S._UX, (len(fa), S._SCAN))
    uy = np.broadcast_to(S._UY, (len(fa), S._SCAN))
    vals = -S._Supports(fb)(-ux, -uy) - S._Supports(fa)(ux, uy)
    return vals.max(axis=1), np.argmax(vals, axis=1)


def _curved(kind: str, x: float, y: float, p: float, q: float, ang: float) -> Footprint:
    if kind == "circle":
        return Footprint("circle", x, y, 0.2 + p)
    return Footprint("ellipse", x, y, 0.4 + p + q, 0.2 + q, ang)


curved = st.builds(_curved, st.sampled_from(["circle", "ellipse"]), st.floats(-30, 30), st.floats(-30, 30),
                   st.floats(0, 1.5), st.floats(0, 1.5), st.floats(0, 2 * math.pi))
near = st.tuples(curved, st.floats(-3, 3), st.floats(-3, 3)).map(
    lambda t: Footprint(t[0].kind, t[0].cx + t[1], t[0].cy + t[2], t[0].a, t[0].b, t[0].angle))


@settings(max_examples=80, deadline=None)
@given(st.lists(st.one_of(st.tuples(curved, curved), st.tuples(curved, near), st.tuples(near, curved)),
                min_size=1, max_size=30))
def test_the_window_finds_the_full_scans_maximum_and_its_first_direction(pairs):
    fa, fb = [a for a, _ in pairs], [b for _, b in pairs]
    top, first = S._scan_many(fa, fb)
    ref_top, ref_first = _full_scan(fa, fb)
    assert top.tolist() == ref_top.tolist()
    assert first.tolist() == ref_first.tolist()


def test_ties_take_the_first_direction_of_the_full_scan():
    # concentric bases: every direction gives the same gap (the window keeps all of them)
    a, b = Footprint("circle", 5.0, 5.0, 0.6), Footprint("ellipse", 5.0, 5.0, 1.0, 0.5, 0.3)
    # a pair mirror-symmetric about the x axis: the window spans direction 0 from both sides
    c, d = Footprint("ellipse", 0.0, 0.0, 1.2, 0.6, 0.0), Footprint("ellipse", 4.0, 0.0, 1.2, 0.6, 0.0)
    fa, fb = [a, c, d], [b, d, c]
    top, first = S._scan_many(fa, fb)
    ref_top, ref_first = _full_scan(fa, fb)
    assert top.tolist() == ref_top.tolist()
    assert first.tolist() == ref_first.tolist()
    assert first[1] == 0  # the gap of c to d is largest along +x, direction 0


def test_the_window_is_narrow_for_bases_apart_and_every_direction_otherwise():
    # two 75 x 42 mm ovals 10" apart: a window of well under a quarter of the directions; an
    # oval and an edge (no radius bound for an edge) scan every direction, with the same answer
    o1 = Footprint("ellipse", 0.0, 0.0, 75 / 50.8, 42 / 50.8, 0.4)
    o2 = Footprint("ellipse", 12.0, 1.0, 75 / 50.8, 42 / 50.8, 1.9)
    edge = segment((3.0, -5.0), (3.0, 5.0))
    dx, dy = o2.cx - o1.cx, o2.cy - o1.cy
    along = dx * S._UX + dy * S._UY
    kept = along - (o1.inner_radius + o2.inner_radius) >= along.max() - (o1.outer_radius + o2.outer_radius) - S._SCAN_EPS
    assert 0 < kept.sum() < S._SCAN // 4
    pairs = [(o1, o2), (o1, edge), (edge, o2)]
    assert signed_distances(pairs).tolist() == [signed_distance(p, q) for p, q in pairs]
    top, first = S._scan_many([p for p, _ in pairs], [q for _, q in pairs])
    ref_top, ref_first = _full_scan([p for p, _ in pairs], [q for _, q in pairs])
    assert top.tolist() == ref_top.tolist() and first.tolist() == ref_first.tolist()
