"""Property tests for the 40k rulesets: keyword algebra, and every plan passes the checker."""

from __future__ import annotations

from pathlib import Path

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from planner.rules.keywords import canonical, parse_keywords
from planner.rules.wh40k_maps import MAPS, zones
from planner.schema import Scenario
from planner.solve.planner import SolverSettings, plan_deployment
from planner.testing import assert_plan_legal
from planner.world import resolve

WORDS = ["INFANTRY", "VEHICLE", "BEASTS", "SWARM", "CHARACTER", "FLY", "MONSTER", "PSYKER"]
kw = st.sampled_from(WORDS)
kwsets = st.sets(kw, max_size=5).map(lambda s: {canonical(k) for k in s})


@given(a=kw, b=kw, c=kw, have=kwsets)
def test_keyword_lists_are_or_adjacency_is_and_non_is_not(a, b, c, have):
    one = lambda k: parse_keywords(k).matches(have)  # noqa: E731
    assert parse_keywords(f"{a}, {b} or {c}").matches(have) == (one(a) or one(b) or one(c))
    assert parse_keywords(f"{a}/{b}/{c}").matches(have) == (one(a) or one(b) or one(c))
    assert parse_keywords(f"{a} {b}").matches(have) == (one(a) and one(b))
    assert parse_keywords(f"non-{a}").matches(have) == (not one(a))
    assert parse_keywords(f"non-{a} {b}").matches(have) == (not one(a) and one(b))


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(MAPS), ruleset=st.sampled_from(["wh40k10", "wh40k11"]),
       shift=st.floats(min_value=-6, max_value=6), goal_x=st.floats(min_value=5, max_value=55),
       goal_y=st.floats(min_value=5, max_value=39))
def test_every_40k_plan_passes_the_checker(name, ruleset, shift, goal_x, goal_y):
    """A deployment-map scenario with the red army shifted along its zone and a random goal point."""
    base = {"dawn-of-war": "dawn-of-war-12in"}.get(name, name)
    data = yaml.safe_load((Path(__file__).resolve().parents[1] / "scenarios" / "wh40k" / f"{base}.yaml").read_text())
    data["ruleset"] = ruleset
    data["goals"] = [{"kind": "near_point", "x": goal_x, "y": goal_y}]
    _, red_zone = zones(name)
    moved = []
    for u in data["armies"][1]["units"]:
        for m in u["models"]:
            moved.append((m, m["x"] + shift if name in ("dawn-of-war", "sweeping-engagement") else m["x"],
                          m["y"] + shift if name in ("hammer-and-anvil", "tipping-point") else m["y"]))
    from shapely.geometry import Point

    if all(red_zone.buffer(-1.0).contains(Point(x, y)) for _, x, y in moved):
        for m, x, y in moved:
            m["x"], m["y"] = x, y
    result = plan_deployment(resolve(Scenario.model_validate(data)),
                             SolverSettings(time_limit_s=20, workers=1, seed=0, candidates_per_unit=20))
    assert result.status in ("optimal", "feasible"), result.message
    assert_plan_legal(result)
