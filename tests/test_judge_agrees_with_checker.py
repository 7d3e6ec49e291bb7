"""The planner's candidate judge and the independent checker agree (issue #13, one rule one place).

On generated scenes (hypothesis: terrain, enemy units, my unit by Infiltrate or in its zone, Horus
Heresy and both 40k editions), every candidate the judge rules on is placed in the scenario and
checked: a candidate the judge accepts is legal for the checker, and a candidate it rejects breaks,
for the checker, the very rule the judge named.
"""

from __future__ import annotations

import copy

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from planner.legality.checker import check_deployment
from planner.legality.table import Table
from planner.schema import Scenario
from planner.solve.candidates import CandidateBuilder, Group
from planner.world import resolve

W, D = 36, 24


@st.composite
def scenes(draw):
    ruleset = draw(st.sampled_from(["hh2", "wh40k10", "wh40k11"]))
    terrain = []
    for k in range(draw(st.integers(0, 3))):
        x = draw(st.integers(2, W - 8))
        y = draw(st.integers(5, D - 9))
        w, h = draw(st.integers(1, 6)), draw(st.integers(1, 4))
        solid = draw(st.booleans())
        feat = {"id": f"t{k}", "footprint": [[x, y], [x + w, y], [x + w, y + h], [x, y + h]]}
        if solid:
            feat.update(kind="solid", traits=["blocks_line_of_sight"])
        else:
            feat.update(kind="open", traits=["impassable"])
        terrain.append(feat)
    enemies = []
    for k in range(draw(st.integers(1, 2))):
        n = draw(st.integers(1, 3))
        x0, y0 = draw(st.floats(2, W - 6)), draw(st.floats(D - 5, D - 1.5))
        enemies.append({"id": f"e{k}", "type": "Infantry", "models": [
            {"base": {"diameter_mm": 32}, "x": x0 + 1.5 * i, "y": y0} for i in range(n)]})
    method = draw(st.sampled_from(["infiltrate", "deployment_zone"]))
    size = draw(st.integers(1, 3))
    diameter = draw(st.sampled_from([25, 32, 40]))
    if ruleset == "hh2":
        mine = {"id": "me", "type": "Infantry", "rules": ["Infiltrate"], "place": True,
                "setup": {"method": method}, "models": [{"base": {"diameter_mm": diameter}}] * size}
    else:
        mine = {"id": "me", "keywords": ["INFANTRY"], "abilities": ["Infiltrators"], "place": True,
                "setup": {"method": method}, "models": [{"base": {"diameter_mm": diameter}}] * size}
        for e in enemies:
            e.pop("type")
            e["keywords"] = ["INFANTRY"]
        terrain = [t for t in terrain if "impassable" not in t["traits"]]
    data = {
        "ruleset": ruleset,
        "battlefield": {"width": W, "depth": D},
        "deployment_zones": [
            {"id": "blue-z", "player": "blue", "polygon": [[0, 0], [W, 0], [W, 6], [0, 6]]},
            {"id": "red-z", "player": "red", "polygon": [[0, D - 6], [W, D - 6], [W, D], [0, D]]},
        ],
        "terrain": terrain,
        "armies": [{"player": "red", "units": enemies}, {"player": "blue", "units": [mine]}],
    }
    return data, draw(st.randoms(use_true_random=False))


def _placed(data: dict, fps, facing: float) -> dict:
    out = copy.deepcopy(data)
    unit = out["armies"][1]["units"][0]
    unit.pop("place")
    unit["models"] = [{"base": m["base"], "x": f.cx, "y": f.cy, "facing": facing}
                      for m, f in zip(unit["models"], fps, strict=True)]
    return out


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenes())
def test_every_candidate_the_judge_rules_on_gets_the_checkers_verdict(scene):
    data, rnd = scene
    world = resolve(Scenario.model_validate(data))
    table = Table(world)
    me = world.units["me"]
    fixed = [table.final(u) for u in table.on_table if u.id != "me"]
    builder = CandidateBuilder(table, fixed, 2.0, [], 0.0)
    stream = builder.stream(Group(me, [me]))
    pairs = [(ai, fi) for ai in range(len(stream.anchors)) for fi in range(len(stream.forms))]
    rnd.shuffle(pairs)
    checked = 0
    for ai, fi in pairs[:25]:
        fps = stream.positions(ai, fi)
        reason, _ = builder.judge(stream.group, fps, exact_sight=True)
        report = check_deployment(resolve(Scenario.model_validate(_placed(data, fps, stream.forms[fi].facing)),
                                          require_positions=True))
        (unit,) = [u for u in report.units if u.unit == "me"]
        failed = {f.rule for f in unit.findings if not f.passed}
        if reason is None:
            assert not failed, (reason, failed, [f.message for f in unit.findings if not f.passed])
        elif data["ruleset"] != "hh2" and reason[0].endswith(".battlefield") and reason[1] is not None:
            # the one stated difference: the 40k checker has no rule on standing inside a solid
            # feature, the 40k judge keeps plans out of them (stricter, never a plan the checker refuses)
            feature = next(t for t in data["terrain"] if t["id"] == reason[1])
            assert feature["kind"] == "solid"
        else:
            assert reason[0] in failed, (reason, failed)
        checked += 1
    assert checked == min(25, len(pairs))
