"""The relaxation-induced neighbourhood (issue 18, ``plan8``): the units where a round's relaxed
optimum and the best plan disagree are re-placed at the brute-force optimum with the others fixed,
never worse, never overlapping; the planner runs it when the next round's candidates are taken;
the report names the step that found the plan."""

from __future__ import annotations

import functools
import itertools
import sys
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from planner.schema import Scenario
from planner.solve import planner as P
from planner.testing import assert_plan_legal
from planner.world import resolve

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_planner_lns import _brute, _run  # noqa: E402  (a run over the crowded instance, its brute force)
from test_planner_scaling import _crowd  # noqa: E402


@functools.cache
def _setup(seed: int) -> tuple[P._Planning, list[tuple]]:
    """Four single marines crowding one point, five candidates each, and every legal plan over them."""
    run = _run(4, seed, per_unit=5)
    legal = [combo for combo in itertools.product(*(run.cands[g.id] for g in run.groups))
             if not any(a.overlaps(b) for a, b in itertools.combinations(combo, 2))]
    assert len(legal) > 1
    return run, legal


@settings(max_examples=60, deadline=None)
@given(seed=st.sampled_from([0, 1, 2]), data=st.data())
def test_rins_is_the_brute_force_optimum_over_the_units_where_the_relaxation_disagrees(seed, data):
    run, legal = _setup(seed)
    start = {g.id: c for g, c in zip(run.groups, data.draw(st.sampled_from(legal)), strict=True)}
    # the relaxed optimum: any candidate of each unit, or its "not taken yet" option
    picked = {g.id: data.draw(st.sampled_from([*run.cands[g.id], P._Rest(-1, 0)])) for g in run.groups}
    run.start, run.rins_done, run.found_by = dict(start), set(), "before"
    before = run.incumbent_cost()
    run.rins(2, picked, 10.0)
    free = {gid for gid, c in picked.items() if P._is_rest(c) or c is not start[gid]}
    fixed = {gid: c for gid, c in start.items() if gid not in free}
    want = _brute(run, fixed)
    assert want is not None and want <= before
    assert run.incumbent_cost() == want
    assert all(run.start[gid] is c for gid, c in fixed.items())
    assert all(any(c is d for d in run.cands[gid]) for gid, c in run.start.items())
    assert not any(a.overlaps(b) for a, b in itertools.combinations(run.start.values(), 2))
    assert run.found_by == ("rins after round 2" if want < before else "before")


def test_rins_with_no_time_or_no_disagreement_leaves_the_plan():
    run, legal = _setup(0)
    worst = max(legal, key=lambda combo: sum(c.icost for c in combo))
    start = {g.id: c for g, c in zip(run.groups, worst, strict=True)}
    assert _brute(run, {}) < sum(c.icost for c in worst)  # a better plan exists
    for picked, budget in ((dict(start), 10.0), ({gid: P._Rest(-1, 0) for gid in start}, 0.1)):
        run.start, run.rins_done = dict(start), set()
        run.rins(1, picked, budget)
        assert run.start == start
    # every unit disagreeing: the whole plan re-placed, at the optimum over the candidates taken
    run.rins(1, {gid: P._Rest(-1, 0) for gid in start}, 10.0)
    assert run.incumbent_cost() == _brute(run, {})


def test_the_planner_runs_rins_at_the_next_round_and_names_the_step_that_found_the_plan(monkeypatch):
    """Three marines crowding one point, two candidates each: round 1's optimum rests some units;
    round 2 starts with a rins over round 1's optimum. The plan is the grid optimum, legal, and the
    report (message and JSON) says which step found it."""
    real, calls = P._Planning.rins, []

    def spy(self, round_, picked, budget):
        calls.append((round_, self.rounds))
        return real(self, round_, picked, budget)

    monkeypatch.setattr(P._Planning, "rins", spy)
    world = resolve(Scenario.model_validate(_crowd(3, 0)))
    res = P.plan_deployment(world, P.SolverSettings(time_limit_s=30, candidates_per_unit=2, margin_in=0.0))
    assert res.status == "optimal"
    assert_plan_legal(res)
    assert calls and all(r == now - 1 for r, now in calls)  # round N's optimum, when round N + 1's candidates are in
    assert res.found_by is not None and res.message.endswith(f"; the plan was found by {res.found_by}")
    steps = ("greedy", "recreate", "exact recreate", "CP-SAT round ", "repair after round ", "lns after round ",
             "rins after round ")
    assert res.found_by.startswith(steps)
    assert res.model_dump(mode="json")["found_by"] == res.found_by


def test_rins_is_hinted_with_the_plan_where_most_freed_units_are_rested():
    run, _ = _setup(0)
    ids = [g.id for g in run.groups]
    a, b, c, d = (run.cands[gid][1] for gid in ids)
    rest = P._Rest(-1, 0)
    # one of four freed units rested: the relaxed optimum's candidates, the rested unit unhinted
    assert P._rins_guide({ids[0]: a, ids[1]: b, ids[2]: c, ids[3]: rest}, frozenset(ids)) == {
        ids[0]: a, ids[1]: b, ids[2]: c, ids[3]: None}
    # half of them rested (or more): the plan's hint
    assert P._rins_guide({ids[0]: a, ids[1]: b, ids[2]: rest, ids[3]: rest}, frozenset(ids)) is None
    assert P._rins_guide({ids[0]: rest, ids[1]: rest, ids[2]: rest, ids[3]: d}, frozenset(ids)) is None
    # only the freed units count: two freed, neither rested; the agreeing unit's rest does not count
    assert P._rins_guide({ids[0]: a, ids[1]: b, ids[2]: rest}, frozenset(ids[:2])) == {ids[0]: a, ids[1]: b}


def test_a_whole_army_rins_keeps_its_budget_only_when_hinted_with_the_plan(monkeypatch):
    """Every unit free: hinted with the relaxed optimum, the local search's budget (search_s); hinted with
    the plan (most units rested), the budget asked for."""
    run, legal = _setup(1)
    start = {g.id: c for g, c in zip(run.groups, legal[0], strict=True)}
    seen: list[tuple[float, object]] = []
    real = P._solve

    def spy(*args, **kwargs):
        seen.append((args[3] - P.time.monotonic(), kwargs["guide"]))
        return real(*args, **kwargs)

    monkeypatch.setattr(P, "_solve", spy)
    other = {g.id: next(c for c in run.cands[g.id] if c is not start[g.id]) for g in run.groups}
    ids = [g.id for g in run.groups]
    few_rested = {**other, ids[0]: P._Rest(-1, 0)}
    most_rested = {gid: P._Rest(-1, 0) for gid in ids[:3]} | {ids[3]: other[ids[3]]}
    monkeypatch.setattr(run, "search_s", 1.0)  # the cached run is shared with the other tests
    for picked in (few_rested, most_rested):
        run.start, run.rins_done = dict(start), set()
        run.rins(1, picked, 10.0)
    (left_few, guide_few), (left_most, guide_most) = seen
    assert guide_few == {gid: None if P._is_rest(c) else c for gid, c in few_rested.items()}
    assert left_few <= 1.0
    assert guide_most is None
    assert left_most > 5.0  # min(10 s, the builder's deadline): far more than search_s
