"""The look-ahead pruning before CP-SAT (planner.solve.planner._prune) keeps every cheap plan."""

from __future__ import annotations

import itertools
from types import SimpleNamespace

from hypothesis import given, settings
from hypothesis import strategies as st

from planner.geometry.shapes import Footprint
from planner.solve.candidates import Candidate
from planner.solve.planner import _overlapping_pairs, _prune

R = 0.63  # a 32 mm base, inches


def _cand(index: int, bases: list[tuple[float, float]], icost: int) -> Candidate:
    fps = tuple(Footprint("circle", x, y, R) for x, y in bases)
    return Candidate(index, bases[0], "test", {"u": [(x, y, 0.0) for x, y in bases]}, fps, icost / 1000, None, icost)


def _pairs(groups, cands):
    out = {}
    for a in range(len(groups)):
        for b in range(a + 1, len(groups)):
            ga, gb = groups[a], groups[b]
            out[a, b] = _overlapping_pairs(cands[ga.id], cands[gb.id], ga.id, gb.id, {})
    return out


def test_prune_drops_what_only_dearer_plans_use():
    groups = [SimpleNamespace(id="a"), SimpleNamespace(id="b")]
    a1, a2 = _cand(0, [(0.0, 0.0)], 0), _cand(1, [(10.0, 0.0)], 10)
    b1, b2 = _cand(0, [(0.5, 0.0)], 0), _cand(1, [(5.0, 0.0)], 5)  # b1 overlaps a1; b2 clear of both
    cands = {"a": [a1, a2], "b": [b1, b2]}
    # the hint a1 + b2 costs 5: a2 (10 + 0) and b1 (0 + a2's 10) can only be in dearer plans
    live = _prune(groups, cands, _pairs(groups, cands), 5)
    assert live == {"a": [a1], "b": [b2]}
    # with a looser bound (a plan costing 10 is known), a2 + b1 (cost 10) stays possible
    live = _prune(groups, cands, _pairs(groups, cands), 10)
    assert live == {"a": [a1, a2], "b": [b1, b2]}


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_prune_keeps_every_plan_as_cheap_as_the_bound(data):
    n_units = data.draw(st.integers(2, 4))
    groups = [SimpleNamespace(id=f"u{k}") for k in range(n_units)]
    coord = st.floats(0.0, 5.0, allow_nan=False).map(lambda v: round(v, 2))
    cands = {}
    for g in groups:
        n = data.draw(st.integers(1, 6))
        cands[g.id] = [_cand(i, [(data.draw(coord), data.draw(coord)), (data.draw(coord), data.draw(coord))],
                             data.draw(st.integers(0, 50))) for i in range(n)]
    pairs = _pairs(groups, cands)
    clash = {(groups[a].id, ca.index, groups[b].id, cb.index) for (a, b), ps in pairs.items() for ca, cb in ps}

    def ok(plan):
        return not any((groups[a].id, plan[a].index, groups[b].id, plan[b].index) in clash
                       for a in range(n_units) for b in range(a + 1, n_units))

    plans = [p for p in itertools.product(*(cands[g.id] for g in groups)) if ok(p)]
    if not plans:
        return
    hint = data.draw(st.sampled_from(plans))
    ub = sum(c.icost for c in hint)
    live = _prune(groups, cands, pairs, ub)
    kept = {(g.id, c.index) for g in groups for c in live[g.id]}
    for p in plans:
        if sum(c.icost for c in p) <= ub:
            assert all((g.id, c.index) in kept for g, c in zip(groups, p, strict=True)), p
    # and the optimum over what is left is the optimum over everything
    best = min(sum(c.icost for c in p) for p in plans)
    left = [p for p in itertools.product(*(live[g.id] for g in groups)) if ok(p)]
    assert min(sum(c.icost for c in p) for p in left) == best
