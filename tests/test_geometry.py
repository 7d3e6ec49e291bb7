"""Exact base-to-base geometry: boundary values of "within X" / "more than X", wholly within, Scout moves.

Every expected distance here is built analytically (closest points on a common axis, or two
support points with opposite outward normals placed ``d`` apart along that normal), never by
asking the code under test; the 45-degree ellipse cases are also checked against a dense
brute-force sampling of both boundaries.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import shapely
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from shapely.geometry import Polygon, box

from planner.geometry.measure import (
    distance,
    farthest_from,
    is_more_than,
    is_more_than_distance,
    is_wholly_within,
    is_within,
    is_within_distance,
    nearest,
    overlaps,
)
from planner.geometry.shapes import Footprint, footprint, round_footprint, signed_distance
from planner.schema import HullBase, OvalBase, RoundBase
from planner.units import TOLERANCE_IN

R32 = 16 / 25.4  # radius of a 32 mm base, inches
R25 = 12.5 / 25.4
R40 = 20 / 25.4
# a 60 x 35 mm oval (bikes) and a 105 x 70 mm oval (large cavalry): semi-axes in inches
OVAL_S = OvalBase(length_mm=60, width_mm=35)
OVAL_L = OvalBase(length_mm=105, width_mm=70)
A_S, B_S = 30 / 25.4, 17.5 / 25.4
A_L, B_L = 52.5 / 25.4, 35 / 25.4
HULL = HullBase(length_in=4.5, width_in=3.0)  # e.g. a Rhino hull
HULL2 = HullBase(length_in=2.0, width_in=1.0)

THRESHOLDS = (6.0, 9.0, 12.0)
EXACT_TOL = 1e-9


# ----------------------------------------------------------------------------- helpers


def _rot(x: float, y: float, ang: float) -> tuple[float, float]:
    c, s = math.cos(ang), math.sin(ang)
    return x * c - y * s, x * s + y * c


def _support_point_offset(base, facing_deg: float, nx: float, ny: float) -> tuple[float, float]:
    """Offset from a base's centre to its point whose outward normal is the unit vector (nx, ny)."""
    ang = math.radians(facing_deg)
    if isinstance(base, RoundBase):
        r = base.diameter_mm / 25.4 / 2
        return r * nx, r * ny
    if isinstance(base, OvalBase):
        a, b = base.length_mm / 25.4 / 2, base.width_mm / 25.4 / 2
        mx, my = _rot(nx, ny, -ang)
        k = math.sqrt(a * a * mx * mx + b * b * my * my)
        return _rot(a * a * mx / k, b * b * my / k, ang)
    raise TypeError(base)


def _place_at_distance(base_a, facing_a, base_b, facing_b, d, normal_deg, origin=(20.0, 20.0)):
    """Footprints A (centred at ``origin``) and B with closest-point distance exactly ``d``.

    The point of A with outward normal n and the point of B with outward normal -n are put ``d``
    apart along n: the two parallel supporting lines prove that no closer pair exists.
    """
    nx, ny = math.cos(math.radians(normal_deg)), math.sin(math.radians(normal_deg))
    pa = _support_point_offset(base_a, facing_a, nx, ny)
    qb = _support_point_offset(base_b, facing_b, -nx, -ny)
    ax, ay = origin
    px, py = ax + pa[0], ay + pa[1]
    bx, by = px + d * nx - qb[0], py + d * ny - qb[1]
    return footprint(base_a, ax, ay, facing_a), footprint(base_b, bx, by, facing_b)


def _boundary_points(fp: Footprint, n: int) -> np.ndarray:
    t = np.linspace(0.0, 2 * math.pi, n, endpoint=False)
    if fp.kind == "circle":
        return np.column_stack([fp.cx + fp.a * np.cos(t), fp.cy + fp.a * np.sin(t)])
    if fp.kind == "ellipse":
        x, y = fp.a * np.cos(t), fp.b * np.sin(t)
        c, s = math.cos(fp.angle), math.sin(fp.angle)
        return np.column_stack([fp.cx + x * c - y * s, fp.cy + x * s + y * c])
    ring = shapely.LineString(list(fp.verts) + [fp.verts[0]])
    return np.array([ring.interpolate(f, normalized=True).coords[0] for f in np.linspace(0, 1, n, endpoint=False)])


def _brute_min_distance(a: Footprint, b: Footprint, n: int = 20000) -> float:
    """Minimum distance between ``n`` boundary samples of each footprint (all candidate pairs).

    To keep it fast, only samples within 0.01" of the best sample-to-other-shape distance (measured
    against a 512-gon, error < 1e-4") can hold the minimum; all pairs of those are compared.
    """
    pa = _boundary_points(a, n)
    pb = _boundary_points(b, n)
    poly_a, poly_b = a.polygon(512), b.polygon(512)
    da = shapely.distance(shapely.points(pa), poly_b)
    db = shapely.distance(shapely.points(pb), poly_a)
    pa = pa[da <= da.min() + 0.01]
    pb = pb[db <= db.min() + 0.01]
    best = math.inf
    for k in range(0, len(pa), 1000):
        chunk = pa[k : k + 1000]
        d2 = (chunk[:, 0:1] - pb[None, :, 0]) ** 2 + (chunk[:, 1:2] - pb[None, :, 1]) ** 2
        best = min(best, float(np.sqrt(d2.min())))
    return best


def _assert_boundary(a: Footprint, b: Footprint, x: float) -> None:
    assert is_within(a, b, x), f"exactly {x} must be within {x}"
    assert not is_more_than(a, b, x), f"exactly {x} is not more than {x}"
    assert is_within_distance(signed_distance(a, b), x)


# ----------------------------------------------------------------------------- round-round


@pytest.mark.parametrize("x", THRESHOLDS)
@pytest.mark.parametrize(("da", "db"), [(32, 32), (25, 32), (40, 25)])
def test_round_round_exact_threshold(x, da, db):
    ra, rb = da / 25.4 / 2, db / 25.4 / 2
    a = round_footprint(36.0, 10.0, da)
    b = round_footprint(36.0, 10.0 + ra + x + rb, db)
    assert signed_distance(a, b) == pytest.approx(x, abs=EXACT_TOL)
    _assert_boundary(a, b, x)
    # 0.01" farther: no longer within, now more than
    c = round_footprint(36.0, 10.0 + ra + x + 0.01 + rb, db)
    assert signed_distance(c, a) == pytest.approx(x + 0.01, abs=EXACT_TOL)
    assert not is_within(a, c, x)
    assert is_more_than(a, c, x)
    # 0.01" closer: within
    e = round_footprint(36.0, 10.0 + ra + x - 0.01 + rb, db)
    assert is_within(a, e, x) and not is_more_than(a, e, x)


def test_round_round_diagonal_and_docstring_value():
    a = round_footprint(0, 0, 32)
    b = round_footprint(10.5, 0, 32)
    assert signed_distance(a, b) == pytest.approx(10.5 - 32 / 25.4, abs=EXACT_TOL)
    # diagonal: centres 3-4-5 apart
    c = round_footprint(3 * 3, 4 * 3, 25)
    assert signed_distance(a, c) == pytest.approx(15 - R32 - R25, abs=EXACT_TOL)


def test_tolerance_is_one_millionth():
    a = round_footprint(0, 0, 32)
    at = round_footprint(0, 2 * R32 + 9.0 + 0.5 * TOLERANCE_IN, 32)
    over = round_footprint(0, 2 * R32 + 9.0 + 3 * TOLERANCE_IN, 32)
    assert is_within(a, at, 9.0) and not is_more_than(a, at, 9.0)
    assert not is_within(a, over, 9.0) and is_more_than(a, over, 9.0)
    assert is_more_than_distance(9.0 + 3e-6, 9.0)
    assert not is_more_than_distance(9.0 + 5e-7, 9.0)
    assert is_within_distance(9.0 - 1.0, 9.0)


def test_negative_threshold_rejected():
    a = round_footprint(0, 0, 32)
    with pytest.raises(ValueError):
        is_within(a, a, -1.0)
    with pytest.raises(ValueError):
        is_within_distance(1.0, float("nan"))


# ----------------------------------------------------------------------------- oval-round


@pytest.mark.parametrize("x", THRESHOLDS)
def test_oval_round_along_major_axis(x):
    # oval facing 0: its end (A_S, 0) is the closest point to a disc centred on the +x axis
    o = footprint(OVAL_S, 20.0, 20.0, 0.0)
    for d, within in ((x, True), (x + 0.01, False)):
        r = round_footprint(20.0 + A_S + d + R32, 20.0, 32)
        assert signed_distance(o, r) == pytest.approx(d, abs=EXACT_TOL)
        assert is_within(o, r, x) is within
        assert is_more_than(r, o, x) is (not within)


@pytest.mark.parametrize("x", THRESHOLDS)
def test_oval_round_rotated_90(x):
    # facing 90: the oval's length lies along y; along +x only the half-width B_S sticks out
    o = footprint(OVAL_S, 20.0, 20.0, 90.0)
    for d, within in ((x, True), (x + 0.01, False)):
        r = round_footprint(20.0 + B_S + d + R25, 20.0, 25)
        assert signed_distance(o, r) == pytest.approx(d, abs=EXACT_TOL)
        assert is_within(o, r, x) is within
        assert is_more_than(o, r, x) is (not within)
        # and along +y the full half-length
        r2 = round_footprint(20.0, 20.0 + A_S + d + R25, 25)
        assert signed_distance(o, r2) == pytest.approx(d, abs=EXACT_TOL)
        assert is_within(o, r2, x) is within


@pytest.mark.parametrize("x", THRESHOLDS)
def test_oval_round_rotated_45(x):
    for normal in (10.0, 45.0, 120.0, 200.0):
        for d, within in ((x, True), (x + 0.01, False)):
            o, r = _place_at_distance(OVAL_L, 45.0, RoundBase(diameter_mm=40), 0.0, d, normal)
            assert signed_distance(o, r) == pytest.approx(d, abs=EXACT_TOL)
            assert is_within(o, r, x) is within
            assert is_more_than(r, o, x) is (not within)


# ----------------------------------------------------------------------------- oval-oval


@pytest.mark.parametrize("x", THRESHOLDS)
def test_oval_oval_axis_aligned_0_and_90(x):
    for d, within in ((x, True), (x + 0.01, False)):
        a = footprint(OVAL_S, 20.0, 20.0, 0.0)
        # both facing 0, end to end along x
        b = footprint(OVAL_L, 20.0 + A_S + d + A_L, 20.0, 0.0)
        assert signed_distance(a, b) == pytest.approx(d, abs=EXACT_TOL)
        assert is_within(a, b, x) is within and is_more_than(a, b, x) is (not within)
        # B turned 90 degrees: its side (half-width B_L) faces A's end
        c = footprint(OVAL_L, 20.0 + A_S + d + B_L, 20.0, 90.0)
        assert signed_distance(a, c) == pytest.approx(d, abs=EXACT_TOL)
        assert is_within(c, a, x) is within and is_more_than(c, a, x) is (not within)
        # both turned 90 degrees, side by side along x
        e = footprint(OVAL_S, 20.0, 20.0, 90.0)
        f = footprint(OVAL_L, 20.0 + B_S + d + B_L, 20.0, -90.0)
        assert signed_distance(e, f) == pytest.approx(d, abs=EXACT_TOL)
        assert is_within(e, f, x) is within and is_more_than(e, f, x) is (not within)


@pytest.mark.parametrize("x", THRESHOLDS)
@pytest.mark.parametrize(("fa", "fb", "normal"), [(45.0, 0.0, 0.0), (45.0, -45.0, 30.0), (45.0, 90.0, 250.0)])
def test_oval_oval_rotated_45_exact_and_sampled(x, fa, fb, normal):
    for d, within in ((x, True), (x + 0.01, False)):
        a, b = _place_at_distance(OVAL_S, fa, OVAL_L, fb, d, normal)
        exact = signed_distance(a, b)
        assert exact == pytest.approx(d, abs=EXACT_TOL)
        assert is_within(a, b, x) is within
        assert is_more_than(a, b, x) is (not within)
        if d == x:
            sampled = _brute_min_distance(a, b)
            assert abs(sampled - exact) <= 1e-4
            assert exact <= sampled + 1e-9


def test_oval_oval_45_unconstructed_agrees_with_sampling():
    # a configuration not built from support points: compare with brute force only
    a = footprint(OVAL_S, 10.0, 10.0, 45.0)
    b = footprint(OVAL_L, 18.3, 14.1, 45.0)
    exact = signed_distance(a, b)
    sampled = _brute_min_distance(a, b)
    assert exact > 0
    assert abs(sampled - exact) <= 1e-4
    assert exact <= sampled + 1e-9


# ----------------------------------------------------------------------------- hull-round, hull-hull


@pytest.mark.parametrize("x", THRESHOLDS)
def test_hull_round(x):
    hl, hw = HULL.length_in / 2, HULL.width_in / 2
    for d, within in ((x, True), (x + 0.01, False)):
        h = footprint(HULL, 30.0, 20.0, 0.0)
        # face: disc beyond the front of the hull
        r = round_footprint(30.0 + hl + d + R32, 20.5, 32)
        assert signed_distance(h, r) == pytest.approx(d, abs=EXACT_TOL)
        assert is_within(h, r, x) is within and is_more_than(r, h, x) is (not within)
        # corner: disc diagonally off the (+,+) corner
        k = (d + R32) / math.sqrt(2)
        c = round_footprint(30.0 + hl + k, 20.0 + hw + k, 32)
        assert signed_distance(h, c) == pytest.approx(d, abs=EXACT_TOL)
        assert is_within(h, c, x) is within and is_more_than(h, c, x) is (not within)
        # hull turned 90 degrees: along +x only its half-width sticks out
        h90 = footprint(HULL, 30.0, 20.0, 90.0)
        r90 = round_footprint(30.0 + hw + d + R25, 20.0, 25)
        assert signed_distance(h90, r90) == pytest.approx(d, abs=EXACT_TOL)
        assert is_within(h90, r90, x) is within
        # hull turned 45 degrees: the corner (hl, -hw) rotated points along 45 - atan(hw/hl)
        h45 = footprint(HULL, 30.0, 20.0, 45.0)
        cx, cy = _rot(hl, hw, math.radians(45.0))  # the corner (+,+) after the turn
        # disc along the outward diagonal of that corner's two edges' bisector is awkward; use +y face:
        # the (+,+) corner is the topmost point of the turned hull (highest y)
        top = max(h45.verts, key=lambda v: v[1])
        assert top == pytest.approx((30.0 + cx, 20.0 + cy))
        r45 = round_footprint(top[0], top[1] + d + R25, 25)
        assert signed_distance(h45, r45) == pytest.approx(d, abs=EXACT_TOL)
        assert is_within(h45, r45, x) is within


@pytest.mark.parametrize("x", THRESHOLDS)
def test_hull_hull(x):
    hl, hw = HULL.length_in / 2, HULL.width_in / 2
    for d, within in ((x, True), (x + 0.01, False)):
        a = footprint(HULL, 30.0, 20.0, 0.0)
        # parallel faces, offset sideways but overlapping in y
        b = footprint(HULL2, 30.0 + hl + d + HULL2.length_in / 2, 21.0, 0.0)
        assert signed_distance(a, b) == pytest.approx(d, abs=EXACT_TOL)
        assert is_within(a, b, x) is within and is_more_than(a, b, x) is (not within)
        # B turned 45 degrees, its leftmost corner pointing at A's front face (y = 20, inside the face)
        b45 = footprint(HULL2, 0.0, 0.0, 45.0)
        left = min(b45.verts, key=lambda v: v[0])
        c = footprint(HULL2, 30.0 + hl + d - left[0], 20.0 - left[1], 45.0)
        assert signed_distance(a, c) == pytest.approx(d, abs=EXACT_TOL)
        assert is_within(c, a, x) is within and is_more_than(c, a, x) is (not within)
        # corner to corner along the diagonal
        k = d / math.sqrt(2)
        e = footprint(HULL2, 30.0 + hl + k + HULL2.length_in / 2, 20.0 + hw + k + HULL2.width_in / 2, 0.0)
        assert signed_distance(a, e) == pytest.approx(d, abs=EXACT_TOL)
        assert is_within(a, e, x) is within


def test_oval_hull_exact():
    a = footprint(HULL, 30.0, 20.0, 0.0)
    o = footprint(OVAL_S, 30.0 + HULL.length_in / 2 + 9.0 + A_S, 20.0, 0.0)
    assert signed_distance(a, o) == pytest.approx(9.0, abs=EXACT_TOL)
    assert is_within(a, o, 9.0) and not is_more_than(a, o, 9.0)
    o2 = footprint(OVAL_S, 30.0 + HULL.length_in / 2 + 9.01 + B_S, 20.0, 90.0)
    assert signed_distance(a, o2) == pytest.approx(9.01, abs=EXACT_TOL)
    assert is_more_than(a, o2, 9.0)


# ----------------------------------------------------------------------------- overlap, nearest


def test_signed_distance_negative_when_overlapping():
    a = round_footprint(0, 0, 32)
    b = round_footprint(1.0, 0, 32)
    assert signed_distance(a, b) == pytest.approx(1.0 - 2 * R32, abs=EXACT_TOL)
    assert signed_distance(a, b) < 0
    assert distance(a, b) == 0.0
    assert overlaps(a, b)
    # ovals end to end overlapping by 0.1" along their length: penetration depth 0.1"
    o1 = footprint(OVAL_S, 10, 10, 0.0)
    o2 = footprint(OVAL_L, 10 + A_S + A_L - 0.1, 10, 0.0)
    assert signed_distance(o1, o2) == pytest.approx(-0.1, abs=1e-7)
    assert overlaps(o1, o2)
    # hulls overlapping by 0.2" along x
    h1 = footprint(HULL, 30, 20, 0.0)
    h2 = footprint(HULL2, 30 + HULL.length_in / 2 + HULL2.length_in / 2 - 0.2, 20, 0.0)
    assert signed_distance(h1, h2) == pytest.approx(-0.2, abs=1e-7)
    # disc centred inside a hull
    r = round_footprint(30.5, 20.0, 25)
    assert signed_distance(h1, r) < -R25
    # touching is not overlapping
    t = round_footprint(2 * R32, 0, 32)
    assert signed_distance(a, t) == pytest.approx(0.0, abs=EXACT_TOL)
    assert not overlaps(a, t)


def test_nearest_picks_closest_pair():
    group_a = [round_footprint(0, 0, 32), round_footprint(2, 0, 32)]
    group_b = [round_footprint(20, 0, 32), round_footprint(2, 12, 25), footprint(OVAL_S, 15, 0, 0)]
    n = nearest(group_a, group_b)
    assert (n.i, n.j) == (1, 1)
    assert n.distance == pytest.approx(12 - R32 - R25, abs=EXACT_TOL)
    with pytest.raises(ValueError):
        nearest([], group_b)


# ----------------------------------------------------------------------------- property tests

_bases = st.one_of(
    st.builds(RoundBase, diameter_mm=st.floats(20, 170)),
    st.builds(OvalBase, length_mm=st.floats(25, 170), width_mm=st.floats(20, 120)),
    st.builds(HullBase, length_in=st.floats(0.5, 8), width_in=st.floats(0.5, 5)),
)
_footprints = st.builds(
    footprint, _bases, st.floats(0, 72), st.floats(0, 48), st.floats(-360, 360)
)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(a=_footprints, b=_footprints, x=st.floats(0, 30))
def test_more_than_is_not_within(a, b, x):
    assert is_more_than(a, b, x) == (not is_within(a, b, x))
    # and both agree with the measured distance
    assert is_within(a, b, x) == is_within_distance(distance(a, b), x)


@settings(max_examples=200, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(a=_footprints, b=_footprints)
def test_distance_bracketed_by_polygons(a, b):
    """Inscribed polygons are never closer than the true shapes, circumscribed ones never farther."""
    d = signed_distance(a, b)
    assert d == pytest.approx(signed_distance(b, a), abs=1e-9)
    if d <= 0.01:
        return
    inner = a.polygon(256).distance(b.polygon(256))
    outer = a.polygon(256, circumscribed=True).distance(b.polygon(256, circumscribed=True))
    assert outer - 1e-9 <= d <= inner + 1e-9


# ----------------------------------------------------------------------------- wholly within

ZONE = box(0.0, 0.0, 72.0, 12.0)


def test_round_touching_zone_edge_is_wholly_within():
    assert is_wholly_within(round_footprint(36.0, 12.0 - R32, 32), ZONE)
    assert is_wholly_within(round_footprint(R32, 12.0 - R32, 32), ZONE)  # corner: touches two edges
    assert not is_wholly_within(round_footprint(36.0, 12.0 - R32 + 0.01, 32), ZONE)
    assert not is_wholly_within(round_footprint(36.0, 12.0, 32), ZONE)  # straddles the edge
    assert not is_wholly_within(round_footprint(36.0, 13.0, 32), ZONE)  # centre outside


def test_oval_rotated_90_near_zone_edge():
    # facing 0: only the half-width B_S is across the edge direction y
    assert is_wholly_within(footprint(OVAL_S, 36.0, 12.0 - B_S, 0.0), ZONE)
    # turned 90 degrees the half-length A_S lies along y: the same centre now straddles the edge
    assert not is_wholly_within(footprint(OVAL_S, 36.0, 12.0 - B_S, 90.0), ZONE)
    assert is_wholly_within(footprint(OVAL_S, 36.0, 12.0 - A_S, 90.0), ZONE)
    assert not is_wholly_within(footprint(OVAL_S, 36.0, 12.0 - A_S + 0.01, 90.0), ZONE)
    # touching the x = 72 edge with its side when turned 90 degrees
    assert is_wholly_within(footprint(OVAL_S, 72.0 - B_S, 6.0, 90.0), ZONE)
    assert not is_wholly_within(footprint(OVAL_S, 72.0 - B_S + 0.01, 6.0, 90.0), ZONE)


def test_oval_45_and_hull_near_zone_edge():
    # an ellipse turned 45 degrees reaches sqrt(a^2 sin^2 + b^2 cos^2) along y
    reach = math.sqrt((A_S**2 + B_S**2) / 2)
    assert is_wholly_within(footprint(OVAL_S, 36.0, 12.0 - reach, 45.0), ZONE)
    assert not is_wholly_within(footprint(OVAL_S, 36.0, 12.0 - reach + 0.01, 45.0), ZONE)
    hw = HULL.width_in / 2
    assert is_wholly_within(footprint(HULL, 36.0, 12.0 - hw, 0.0), ZONE)
    assert not is_wholly_within(footprint(HULL, 36.0, 12.0 - hw + 0.01, 0.0), ZONE)
    assert not is_wholly_within(footprint(HULL, 36.0, 12.0 - hw, 90.0), ZONE)


def test_wholly_within_non_convex_zone():
    # an L-shaped zone: a base in the inner corner touching both inner edges is inside
    zone = Polygon([(0, 0), (20, 0), (20, 10), (10, 10), (10, 20), (0, 20)])
    assert is_wholly_within(round_footprint(10 - R32, 10 + R32, 32), zone)
    assert not is_wholly_within(round_footprint(10 + R32 * 0.5, 10 + R32 * 0.5, 32), zone)


# ----------------------------------------------------------------------------- Scout displacement


def test_farthest_from_round_is_the_centre_move():
    a = round_footprint(36.0, 18.0, 25)
    b6 = round_footprint(36.0, 24.0, 25)
    b65 = round_footprint(36.0, 24.5, 25)
    assert farthest_from(a, b6) == pytest.approx(6.0, abs=EXACT_TOL)
    assert is_within_distance(farthest_from(a, b6), 6.0)
    assert farthest_from(a, b65) == pytest.approx(6.5, abs=EXACT_TOL)
    assert not is_within_distance(farthest_from(a, b65), 6.0)
    diag = round_footprint(36.0 + 3.6, 18.0 + 4.8, 25)  # 6.0 along a 3-4-5 diagonal
    assert farthest_from(a, diag) == pytest.approx(6.0, abs=EXACT_TOL)


def test_farthest_from_oval_and_hull_with_turn():
    a = footprint(OVAL_S, 20.0, 20.0, 0.0)
    # pure translation: the leading tip ends exactly as far from the old base as the move
    assert farthest_from(a, a.moved(26.0, 20.0)) == pytest.approx(6.0, abs=EXACT_TOL)
    assert farthest_from(a, a.moved(26.5, 20.0)) == pytest.approx(6.5, abs=EXACT_TOL)
    # turning 90 degrees in place: the new tip (0, A_S) is A_S - B_S from the old outline
    assert farthest_from(a, a.moved(20.0, 20.0, 90.0)) == pytest.approx(A_S - B_S, abs=1e-7)
    # a move plus a turn, against brute force: the farthest of 4000 outline points from a
    # 4096-gon of the old oval (the polygon is inscribed, so it may read up to ~1e-5 long)
    moved = a.moved(25.0, 21.0, 30.0)
    old = a.polygon(4096)
    new_pts = shapely.get_coordinates(moved.polygon(4000).exterior)
    brute = max(old.distance(shapely.Point(x, y)) for x, y in new_pts)
    assert farthest_from(a, moved) == pytest.approx(brute, abs=1e-4)
    h = footprint(HULL, 30.0, 20.0, 0.0)
    assert farthest_from(h, h.moved(36.0, 20.0, 0.0)) == pytest.approx(6.0, abs=EXACT_TOL)
    # a hull turned end for end in place covers the same ground: it has gone nowhere
    assert farthest_from(h, h.moved(30.0, 20.0, 180.0)) == pytest.approx(0.0, abs=1e-9)
    # 11.5" forward while turning 90 degrees: the far corner (43, 22.25) ends 10.75" along and
    # 0.75" across from the old hull's corner (32.25, 21.5)
    assert farthest_from(h, h.moved(41.5, 20.0, 90.0)) == pytest.approx(math.hypot(10.75, 0.75), abs=1e-9)
