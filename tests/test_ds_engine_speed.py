"""The faster Deep Strike engines give the answers of the plain constructions (issue 18 item 4: the
heat map's error bound without an inner map; issue 19: the reference engine near many-sided ovals)."""

from __future__ import annotations

import numpy as np
import pytest

from planner.deepstrike.boundary import circle_box_pairs
from planner.deepstrike.procedure import (
    NUMERIC_ERROR,
    build_regions,
    heat_map,
    make_setup,
    region_probabilities,
)
from planner.deepstrike.regions import RegionSet, _fan_pieces, local_difference
from planner.deepstrike.scene import scene


@pytest.fixture(scope="module")
def oval_setup():
    return make_setup(scene("wh40k7", 3, 32.0, ovals=True), "ds")


def test_heat_map_bound_is_the_whole_inner_map_gap(oval_setup):
    """The bound measured on the small difference sets equals max(P_outer - P_inner) of the whole
    inner map (what the map computed before), and the map is the outer one."""
    st = oval_setup
    xs, ys, P, bound = heat_map(st, 2.0, with_bound=True)
    X, Y = np.meshgrid(xs, ys)
    inner, _ = build_regions(st, dangerous=False, triggers=False, ellipse="inner")
    Pin = region_probabilities(st, inner, X.ravel(), Y.ravel())[:, 0].reshape(X.shape)
    gap = float(np.max(P - Pin))
    assert 1e-7 < gap < 1e-4  # the bikes' polygons matter, and the gap is small
    assert bound - NUMERIC_ERROR == pytest.approx(gap, abs=1e-12)
    assert np.array_equal(P, heat_map(st, 2.0)[2])


def test_local_difference_is_where_the_sets_differ(oval_setup):
    outer, _ = build_regions(oval_setup, dangerous=False, triggers=False, ellipse="outer")
    inner, _ = build_regions(oval_setup, dangerous=False, triggers=False, ellipse="inner")
    A, B, obox = local_difference(outer, inner)
    assert len(obox) == 2 * 3  # each bike once per model of the formation (the mishap region)
    rng = np.random.default_rng(4)
    # points near the bikes (the boxes) and anywhere on the table
    lo, hi = obox[:, :2].min(axis=0) - 0.5, obox[:, 2:].max(axis=0) + 0.5
    # and just inside the outer polygons' vertices (between the outer and the inner polygon)
    band = np.vstack([c + (v - c) * (1 - 1e-5) for v in (p for p, _ in A._convex) for c in [v.mean(axis=0)]])
    pts = np.vstack([rng.uniform(lo, hi, (4000, 2)), rng.uniform([-2, -2], [74, 50], (1000, 2)), band])
    a, b = A.contains(pts[:, 0], pts[:, 1])[:, 0], B.contains(pts[:, 0], pts[:, 1])[:, 0]
    o, i = outer.contains(pts[:, 0], pts[:, 1])[:, 0], inner.contains(pts[:, 0], pts[:, 1])[:, 0]
    assert not (b & ~a).any() and not (i & ~o).any()
    assert np.array_equal(a & ~b, o & ~i)
    assert (a & ~b)[-len(band):].sum() >= 100  # points between the outer and the inner polygons (the rest covered)
    # the same circles' measures: P(outer) - P(inner) = P(A) - P(B)
    cx, cy = rng.uniform(lo[0], hi[0], 300), rng.uniform(lo[1], hi[1], 300)
    d = rng.integers(2, 13, 300).astype(float)
    f_ab = A.arc_fraction_reference(cx, cy, d)[:, 0] - B.arc_fraction_reference(cx, cy, d)[:, 0]
    f_oi = outer.arc_fraction_reference(cx, cy, d)[:, 0] - inner.arc_fraction_reference(cx, cy, d)[:, 0]
    assert np.abs(f_ab - f_oi).max() <= 1e-9


def _fans_one_by_one(v: np.ndarray) -> list[np.ndarray]:
    """The pieces as the loop before the vectorised cut made them."""
    n = len(v)
    cut = list(range(0, n, 16))
    pieces = [v[cut]] if len(cut) >= 3 else []
    for a, b in zip(cut, cut[1:] + [n], strict=True):
        if b - a >= 2:
            pieces.append(v[np.arange(a, b + 1) % n])
    return pieces if len(cut) >= 3 else [v]


def test_fan_pieces_are_the_loops_pieces():
    rng = np.random.default_rng(2)
    polys = []
    for k, n in enumerate([3, 4, 16, 17, 31, 32, 33, 34, 48, 49, 50, 256, 300, 1008]):
        t = np.sort(rng.uniform(0, 2 * np.pi, n))
        polys.append((np.column_stack([np.cos(t), np.sin(t)]) * (k + 1), k))
    F, o, a, step, m, kv, reg = _fan_pieces(polys)
    got = [F[o[i] + (a[i] + step[i] * np.arange(kv[i])) % m[i]] for i in range(len(kv))]
    want = [(p, r) for v, r in polys for p in _fans_one_by_one(v)]
    assert len(got) == len(want)
    for g, r, (w, wr) in zip(got, reg.tolist(), want, strict=True):
        assert r == wr and np.array_equal(g, w)


def test_reference_engine_with_many_sided_pieces_matches_the_boundary_engine(oval_setup):
    """Polygons of many vertex counts (triangles, rectangles, 17-vertex caps, whole small convex
    pieces) in one set: the reference engine's fractions and point tests agree with the boundary
    engine's."""
    st = oval_setup
    rs, ids = build_regions(st, within=(60.0, 30.0, 2.0), dangerous=False)
    rs.add_convex(np.array([[10.0, 10.0], [14.0, 10.0], [15.0, 13.0], [12.0, 15.0], [9.0, 13.0]]), 0)
    rng = np.random.default_rng(9)
    n = 600
    cx, cy = rng.uniform(-3, 75, n), rng.uniform(-3, 51, n)
    d = rng.integers(2, 13, n).astype(float)
    fast = np.column_stack([rs.boundary(r).arc_fraction(cx, cy, d) for r in range(rs.n_regions)])
    ref = rs.arc_fraction_reference(cx, cy, d)
    assert np.abs(fast - ref).max() <= 1e-8
    loc = np.column_stack([rs.boundary(r).contains(cx, cy) for r in range(rs.n_regions)])
    fresh = RegionSet(rs.n_regions)
    fresh.extend(rs, {r: r for r in range(rs.n_regions)})
    assert (loc == fresh.contains(cx, cy)).all()
    assert len({g.V.shape[1] for g in fresh._pgroups}) >= 4  # several vertex counts, each its own group


def test_circle_box_pairs_unordered_are_the_same_pairs():
    rng = np.random.default_rng(5)
    cx, cy, d = rng.uniform(0, 30, 500), rng.uniform(0, 20, 500), rng.choice([2.0, 5.0, 12.0], 500)
    x, y = rng.uniform(-5, 35, 80), rng.uniform(-5, 25, 80)
    box = np.column_stack([x, y, x + rng.exponential(1.0, 80), y + rng.exponential(1.0, 80)])
    i, k = circle_box_pairs(cx, cy, d, box)
    iu, ku = circle_box_pairs(cx, cy, d, box, ordered=False)
    assert len(iu) == len(i) > 0
    assert set(zip(iu.tolist(), ku.tolist(), strict=True)) == set(zip(i.tolist(), k.tolist(), strict=True))
