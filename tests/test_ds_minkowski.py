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


# --------------------------------------------------------------------------- the per-landing packing at the aim point


def test_packing_places_models_in_two_opposite_slots():
    """The first model in a cell with one closed slot east and one west, each one base long: no
    ring of the family fits on target (the second model of a chain, or ring 2, goes into a wall),
    but models placed one by one in contact with the first fill both slots: the HIT third is no
    mishap, every scatter lands in a wall, so P(mishap) = 2/3 = the lower bound."""
    from dataclasses import replace

    import pytest

    from planner.deepstrike.procedure import best_formation_odds, judge_landing, make_setup, pack_landing
    from planner.schema import Scenario
    from planner.world import resolve

    r = 12.5 / 25.4
    cx, cy, h = 36.0, 24.0, r + 0.05
    end = cx + h + 2 * r + 0.1

    def wall(x0, y0, x1, y1, tid):
        return {"id": tid, "kind": "solid", "traits": ["impassable"],
                "footprint": [[x0, y0], [x1, y0], [x1, y1], [x0, y1]]}

    terrain = [wall(cx - 20, cy + h, cx + 20, cy + 20, "n"), wall(cx - 20, cy - 20, cx + 20, cy - h, "s"),
               wall(end, cy - h, cx + 20, cy + h, "e"), wall(cx - 20, cy - h, 2 * cx - end, cy + h, "w")]
    data = {"ruleset": "wh40k7", "battlefield": {"width": 72, "depth": 48}, "terrain": terrain,
            "armies": [{"player": "blue", "units": [{"id": "ds", "type": "Infantry", "rules": ["Deep Strike"],
                                                     "setup": {"method": "reserves", "arrival": "deep_strike"},
                                                     "models": [{"base": {"diameter_mm": 25}}] * 3}]},
                       {"player": "red", "units": []}]}
    st = make_setup(resolve(Scenario.model_validate(data)), "ds")
    form = pack_landing(st, cx, cy)
    assert form is not None and form.ring_counts() == [1, 2]
    east, west = sorted(form.centres[1:], key=lambda c: -c[0])
    assert east[0] - cx == pytest.approx(2 * r, abs=2e-3) and west[0] - cx == pytest.approx(-2 * r, abs=2e-3)
    assert not judge_landing(st, cx, cy, form).mishap
    plain = best_formation_odds(st, cx, cy, pack=False)
    assert plain.on_target is None and plain.p_mishap == pytest.approx(1.0, abs=1e-6)
    b = best_formation_odds(st, cx, cy)
    assert b.on_target is not None and b.on_target["label"].startswith("per-landing packing")
    assert b.p_mishap == pytest.approx(2 / 3, abs=1e-6) == b.p_mishap_lower
    assert any("per-landing packing search" in n and "places every model" in n for n in b.interpretations)
    # a unit of 4 does not fit (no third slot): the packing fails too, still a mishap on target
    st4 = replace(st, radii=st.radii + [r], shapes=st.shapes + [st.shapes[0]])
    assert pack_landing(st4, cx, cy) is None


def test_finer_orientation_step_never_worse():
    """Orientations every 5 degrees contain those every 15: P(mishap) no higher, still above the
    lower bound (the test scene by the cliff, the tank and the crater)."""
    import pytest

    from planner.deepstrike.procedure import best_formation_odds, make_setup
    from planner.deepstrike.scene import scene

    st = make_setup(scene(n=3, ovals=False), "ds")
    b15 = best_formation_odds(st, 16.0, 24.0)
    b5 = best_formation_odds(st, 16.0, 24.0, 5.0)
    assert b5.candidates == 3 * b15.candidates
    assert b5.p_mishap_lower - 1e-9 <= b5.p_mishap <= b15.p_mishap + 1e-9
    assert b5.p_mishap_lower == pytest.approx(b15.p_mishap_lower, abs=1e-12)
