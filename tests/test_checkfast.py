"""The checker's faster sight and distance paths (issue #18 item 3) give the answers of the
paths they replace: group proofs of "hidden" are sound pair by pair, the nearest enemy unit is
the one a pass in order finds, the box screen never drops a segment that meets the box, and
``sight_from_any`` answers as the unit-by-unit method did."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st
from shapely.geometry import LineString, box

from planner.geometry.sight import line_of_sight
from planner.io.files import load_scenario_record
from planner.legality.table import Table, _segments_meet_box
from planner.world import resolve

ROOT = Path(__file__).resolve().parent.parent
SCENES = ["long-edge-ravenguard-vs-ironhands.yaml", "hh2-urban-ravenguard-vs-ironhands.yaml",
          "hh2-fortified-line-chogorian-vs-berserkers.yaml", "short-edge-chogorian-vs-berserkers.yaml"]


def _table(name: str) -> Table:
    world = resolve(load_scenario_record(ROOT / "scenarios" / name), name, require_positions=True)
    return Table(world)


coord = st.floats(-10.0, 10.0, allow_nan=False, allow_subnormal=False)


@settings(max_examples=300, deadline=None)
@given(coord, coord, coord, coord, coord, coord, st.floats(0.01, 5.0), st.floats(0.01, 5.0))
def test_box_screen_keeps_every_segment_that_meets_the_box(x0, y0, x1, y1, bx, by, w, h):
    bounds = np.array([[bx, by, bx + w, by + h]])
    got = bool(_segments_meet_box(np.array([[x0, y0]]), np.array([[x1, y1]]), bounds, 1e-6)[0, 0])
    seg = LineString([(x0, y0), (x1, y1)]) if (x0, y0) != (x1, y1) else shapely.Point(x0, y0)
    d = seg.distance(box(bx, by, bx + w, by + h))
    if d == 0.0:
        assert got  # a screen: never drops a segment that meets the box
    elif d > 1e-5:
        assert not got  # and it is tight: one well clear of the (widened) box is dropped


@pytest.mark.parametrize("name", SCENES)
def test_nearest_unit_is_the_one_found_in_order(name):
    t = _table(name)
    checked = 0
    for u in t.on_table:
        others = t.enemy_presence(u.player)
        got = t.nearest_unit(t.final(u), others)
        want = t._nearest_in_order(t.final(u), others)
        assert (got is None) == (want is None)
        if got is not None and want is not None:
            assert (got[0], got[1], got[2].unit.id, got[3]) == (want[0], want[1], want[2].unit.id, want[3])
            checked += 1
    assert checked >= 4


def _old_sight_from_any(t: Table, observers, target):
    """The unit-by-unit method: the quick centre lines, then each observer's own proofs."""
    tgt = list(target.footprints)
    tops_t = t.tops_of(target)
    tops_o = [t.tops_of(o) for o in observers]
    low = min(min(tops_t), *(min(x) for x in tops_o)) if t.has_heights else None
    quick = t._quick_visible(observers, tgt, low)
    if quick is not None:
        return observers[quick[0]].unit.id, target.model_id(quick[2])
    for o, tops in zip(observers, tops_o, strict=True):
        s = t._prove_hidden(o, target, True, tops, tops_t)
        if s.visible:
            return o.unit.id, s.target_model
    return None, None


@pytest.mark.parametrize("name", [SCENES[0], SCENES[1], SCENES[3]])
def test_group_proofs_are_sound_and_sight_answers_as_before(name):
    t = _table(name)
    fresh = Table(t.world)  # its own caches: the old method's answers are not read from t's
    proven_pairs = 0
    for u in t.on_table:
        target = t.final(u)
        observers = t.enemy_presence(u.player)
        if not observers:
            continue
        tops_t = t.tops_of(target)
        tops_o = [t.tops_of(o) for o in observers]
        proven, _ = t._groups_hidden(observers, target, tops_o, tops_t)
        for k in sorted(proven)[:3]:  # every model pair of a proven observer is hidden (exact test)
            o = observers[k]
            for i, a in enumerate(o.footprints):
                for j, b in enumerate(target.footprints):
                    s = line_of_sight(a, b, t.obstacles_for([a], targets=[b]),
                                      (tops_o[k][i], tops_t[j]) if t.has_heights else None)
                    assert not s.visible, (name, o.unit.id, u.id, i, j)
            proven_pairs += 1
        want = _old_sight_from_any(fresh, fresh.enemy_presence(u.player), fresh.final(u))
        for proof_first in (False, True):
            o, s = t.sight_from_any(observers, target, proof_first=proof_first)
            assert ((o.unit.id if o else None), s.target_model if s.visible else None) == want, (name, u.id)
    if name == SCENES[0]:
        assert proven_pairs > 0  # the long-edge table has hidden Infiltrators: the proof is used


def test_group_proof_bearing_order_wraps_at_the_widest_gap():
    t = _table(SCENES[0])
    u = next(u for u in t.on_table if t.enemy_presence(u.player))
    observers = t.enemy_presence(u.player)
    target = t.final(u)
    proven, tried = t._groups_hidden(observers, target, [t.tops_of(o) for o in observers], t.tops_of(target))
    assert proven.isdisjoint(tried)
    assert proven | tried == set(range(len(observers)))  # every observer is decided or left to its own proof
    assert all(math.isfinite(f.cx) for f in target.footprints)
