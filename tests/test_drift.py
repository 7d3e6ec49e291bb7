"""The drift bugs of issue 13 item 7: each fixed, each with a test that failed before the fix.

1. Two overlapping 40k units are both flagged (as the hh2 checker flags both).
2. 40k arrivals from reserves are checked for coherency, for standing on models (friendly too), and
   for the Deep Strike ability when they arrive by Deep Strike.
3. One rule, one id: a Deep Strike landing off the battlefield edge is ``<rs>.battlefield`` in
   ``planner deepstrike`` as in ``planner check`` (``<rs>.deepstrike.battlefield`` is gone); a
   Dedicated Transport infiltrating with Infiltrators inside is judged under ``hh2.infiltrate.*``
   (``hh2.transport.dedicated_infiltrate``, never emitted, is gone: ``hh2.infiltrate.eligible``
   covers exactly that rule, as ``hh2.scout.eligible`` covers the Scout one).
5. A scenario that repeats a model with a YAML anchor (``- *marine``) is planned with each model
   on its own position, and nothing the planner was given is changed.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from planner.deepstrike.procedure import judge_landing, make_setup
from planner.errors import ScenarioError
from planner.io.files import read_data, unshared
from planner.legality.checker import check_deployment
from planner.rules.registry import find_ruleset
from planner.schema import Scenario
from planner.solve.planner import SolverSettings, plan_deployment
from planner.world import load_scenario, resolve
from tests.wh40k_helpers import R32, RED_LINE, check, failed, finding, model, unit, world

D32 = 2 * R32
ROOT = Path(__file__).resolve().parents[1]


# ------------------------------------------------------------------------------ 1. both overlapping units flagged
@pytest.mark.parametrize("ruleset", ["wh40k10", "wh40k11"])
def test_both_overlapping_40k_units_are_flagged(ruleset):
    r = check(ruleset, [unit("a", [model(30, 5)]), unit("b", [model(30 + D32 - 0.01, 5)])], [RED_LINE])
    bad = {(v.unit, v.model, v.rule) for v in r.violations}
    rule = f"{ruleset}.bases.overlap"
    assert bad == {("a", "1", rule), ("b", "1", rule)}
    verdict = {u.unit: u.legal for u in r.units}
    assert verdict == {"a": False, "b": False, "red-line": True}
    # each names the other model and the overlap depth, 0.01"
    for v, other in zip(sorted(r.violations, key=lambda v: v.unit), ("b/1", "a/1"), strict=True):
        assert other in v.message
        assert v.margin == pytest.approx(-0.01, abs=1e-9)


def test_touching_40k_bases_are_not_an_overlap():
    r = check("wh40k10", [unit("a", [model(30, 5)]), unit("b", [model(30 + D32, 5)])], [RED_LINE])
    assert r.legal


# ------------------------------------------------------------------------------ 2. arrivals from reserves
def _arrival(uid, xs, y=3.0, *, rnd=2, arrival="reserves", abilities=(), **setup):
    """A blue unit arriving in battle round ``rnd``, one 32 mm model at each x, along the blue edge."""
    return unit(uid, [model(x, y) for x in xs], abilities=abilities,
                setup={"method": "reserves", "arrival": arrival, "battle_round": rnd, **setup})


@pytest.mark.parametrize("ruleset", ["wh40k10", "wh40k11"])
@pytest.mark.parametrize("arrival", ["reserves", "deep_strike"])
@pytest.mark.parametrize(("gap", "legal"), [(2.0, True), (2.01, False)])
def test_an_arrival_is_set_up_in_coherency(ruleset, arrival, gap, legal):
    u = _arrival("res", [30, 30 + D32 + gap], arrival=arrival, abilities=["Deep Strike"])
    r = check(ruleset, [u], [RED_LINE])
    assert r.legal is legal
    f = finding(r, "res", f"{ruleset}.coherency")
    assert f.passed is legal
    assert f.margin == pytest.approx(2.0 - gap, abs=1e-9)


@pytest.mark.parametrize("ruleset", ["wh40k10", "wh40k11"])
def test_an_arriving_attached_unit_is_one_unit_for_coherency(ruleset):
    squad = _arrival("squad", [30, 30 + D32 + 1.0])
    # the Leader arrives with it, 1.5" from the second model: it links nothing, but is within 2" of one
    near = _arrival("cap", [30 + 2 * D32 + 2.5], abilities=["Leader"], joined="squad")
    assert check(ruleset, [squad, near], [RED_LINE]).legal
    # 3" away from its Bodyguard: the attached unit is out of coherency
    far = _arrival("cap", [30 + 2 * D32 + 4.0], abilities=["Leader"], joined="squad")
    r = check(ruleset, [squad, far], [RED_LINE])
    assert failed(r) == {f"{ruleset}.coherency"}
    assert finding(r, "squad", f"{ruleset}.coherency").margin == pytest.approx(-1.0, abs=1e-9)


@pytest.mark.parametrize("ruleset", ["wh40k10", "wh40k11"])
def test_an_arrival_may_not_stand_on_a_friendly_model(ruleset):
    guard = unit("guard", [model(30, 3)])  # deployed in the blue zone, at the battlefield edge
    onto = _arrival("res", [30 + D32 - 0.01])
    r = check(ruleset, [guard, onto], [RED_LINE])
    # only the arrival is flagged: it is the one set up onto a model already on the battlefield
    assert {(v.unit, v.rule) for v in r.violations} == {("res", f"{ruleset}.bases.overlap")}
    v = r.violations[0]
    assert "guard/1" in v.message and "battle round 2" in v.message
    assert v.margin == pytest.approx(-0.01, abs=1e-9)
    assert check(ruleset, [guard, _arrival("res", [30 + D32])], [RED_LINE]).legal  # touching is not overlapping


@pytest.mark.parametrize("ruleset", ["wh40k10", "wh40k11"])
def test_friendly_arrivals_of_one_battle_round_may_not_overlap(ruleset):
    a = _arrival("a", [30])
    b2 = _arrival("b", [30 + D32 - 0.01])
    r = check(ruleset, [a, b2], [RED_LINE])
    assert {(v.unit, v.rule) for v in r.violations} == {("a", f"{ruleset}.bases.overlap"),
                                                          ("b", f"{ruleset}.bases.overlap")}
    # arriving a battle round apart, the two set-ups never meet on the battlefield as written
    assert check(ruleset, [a, _arrival("b", [30 + D32 - 0.01], rnd=3)], [RED_LINE]).legal


@pytest.mark.parametrize("ruleset", ["wh40k10", "wh40k11"])
def test_arriving_by_deep_strike_needs_the_ability(ruleset):
    rule = f"{ruleset}.deepstrike.eligible"
    mid = 22.0  # mid-table: only a Deep Strike may arrive there
    without = _arrival("ds", [30], mid, arrival="deep_strike")
    r = check(ruleset, [without], [RED_LINE])
    assert failed(r) == {rule}
    assert "ds/1 does not have Deep Strike" in finding(r, "ds", rule).message
    r = check(ruleset, [_arrival("ds", [30], mid, arrival="deep_strike", abilities=["Deep Strike"])], [RED_LINE])
    assert r.legal and finding(r, "ds", rule).passed
    # by the Strategic Reserves rules the ability is not needed (and not checked)
    r = check(ruleset, [_arrival("sr", [30])], [RED_LINE])
    assert r.legal and rule not in {f.rule for u in r.units for f in u.findings}


@pytest.mark.parametrize("ruleset", ["wh40k10", "wh40k11"])
def test_every_model_of_an_attached_unit_needs_deep_strike(ruleset):
    squad = _arrival("squad", [30, 31.5], 22.0, arrival="deep_strike", abilities=["Deep Strike"])
    cap = _arrival("cap", [33], 22.0, arrival="deep_strike", abilities=["Leader"], joined="squad")
    r = check(ruleset, [squad, cap], [RED_LINE])
    assert {(v.unit, v.rule) for v in r.violations} == {("squad", f"{ruleset}.deepstrike.eligible"),
                                                          ("cap", f"{ruleset}.deepstrike.eligible")}
    assert "cap/1" in finding(r, "squad", f"{ruleset}.deepstrike.eligible").message


# ------------------------------------------------------------------------------ 3. one rule, one id
def _listed(ruleset: str) -> set[str]:
    return {r.id for r in find_ruleset(ruleset).rules}


@pytest.mark.parametrize("ruleset", ["wh40k10", "wh40k11"])
def test_a_deep_strike_off_the_edge_has_the_checkers_id(ruleset):
    x = R32 - 0.01  # the base overhangs the left edge by 0.01"
    ds = unit("ds", [model(x, 22.0)], abilities=["Deep Strike"], rules=["Deep Strike"],
              setup={"method": "reserves", "arrival": "deep_strike", "battle_round": 2})
    w = world(ruleset, [ds], [RED_LINE])
    land = judge_landing(make_setup(w, "ds"), x, 22.0)
    by_rule = {f.rule: f for f in land.findings}
    assert set(by_rule) == {f"{ruleset}.battlefield", f"{ruleset}.deepstrike.distance", f"{ruleset}.terrain.placement",
                            f"{ruleset}.bases.overlap"}
    assert set(by_rule) <= _listed(ruleset)
    assert not by_rule[f"{ruleset}.battlefield"].passed and land.triggers == [f"{ruleset}.battlefield"]
    # the checker says the same under the same id
    assert failed(check_deployment(w)) == {f"{ruleset}.battlefield"}
    assert f"{ruleset}.deepstrike.battlefield" not in _listed(ruleset)


RHINO = {"base": {"shape": "hull", "length_in": 4.5, "width_in": 3.0}, "facing": 90}


def _hh2(red_units, blue_units):
    data = {"ruleset": "hh2", "battlefield": {"width": 72, "depth": 48},
            "deployment_zones": [{"id": "blue-dz", "player": "blue", "polygon": [[0, 0], [72, 0], [72, 12], [0, 12]]},
                                 {"id": "red-dz", "player": "red", "polygon": [[0, 36], [72, 36], [72, 48], [0, 48]]}],
            "armies": [{"player": "red", "units": list(red_units)}, {"player": "blue", "units": list(blue_units)}]}
    return check_deployment(resolve(Scenario.model_validate(data), require_positions=True))


def _rhino_with(cargo_rules, y):
    rhino = {"id": "rhino", "type": "Vehicle", "rules": ["Transport", "Dedicated Transport"], "transport_capacity": 10,
             "setup": {"method": "infiltrate"}, "models": [{**RHINO, "x": 36, "y": y}]}
    cargo = {"id": "cargo", "type": "Infantry", "rules": list(cargo_rules), "setup": {"method": "embarked", "in": "rhino"},
             "models": [{"base": {"diameter_mm": 32}}, {"base": {"diameter_mm": 32}}]}
    return [rhino, cargo]


BLUE_TAC = {"id": "tac", "type": "Infantry", "models": [{"base": {"diameter_mm": 32}, "x": 36, "y": 6}]}


def test_a_dedicated_transport_infiltrating_with_infiltrators_inside():
    # the Rhino's hull (4.5" long, facing 90: its near end 2.25" below its centre) 20" from the blue model
    r = _hh2(_rhino_with(["Infiltrate"], 6 + R32 + 2.25 + 20), [BLUE_TAC])
    assert r.legal
    rhino = {f.rule: f for u in r.units if u.unit == "rhino" for f in u.findings}
    assert {"hh2.infiltrate.eligible", "hh2.infiltrate.distance"} <= set(rhino)
    assert "Dedicated Transport carrying a unit with Infiltrate" in rhino["hh2.infiltrate.eligible"].message
    assert rhino["hh2.infiltrate.distance"].measured == pytest.approx(20.0, abs=1e-6)
    # the Transport deploys by the Infiltrate rules: 10" away in plain sight it must be hidden, and is not
    r = _hh2(_rhino_with(["Infiltrate"], 6 + R32 + 2.25 + 10), [BLUE_TAC])
    assert failed(r) == {"hh2.infiltrate.hidden"}
    # with no Infiltrator inside, the Rhino may not Infiltrate
    r = _hh2(_rhino_with([], 6 + R32 + 2.25 + 20), [BLUE_TAC])
    assert failed(r) == {"hh2.infiltrate.eligible"}
    emitted = {f.rule for u in r.units for f in u.findings}
    assert emitted <= _listed("hh2")
    assert "hh2.transport.dedicated_infiltrate" not in _listed("hh2")


# ------------------------------------------------------------------------------ 5. YAML anchors
ANCHORED = {
    "hh2": """\
ruleset: hh2
battlefield: {width: 30, depth: 24}
deployment_zones:
  - {id: za, player: A, polygon: [[0, 0], [30, 0], [30, 6], [0, 6]]}
  - {id: zb, player: B, polygon: [[0, 18], [30, 18], [30, 24], [0, 24]]}
goals: [{kind: near_point, x: 15, y: 12}]
armies:
  - player: A
    units:
      - id: squad
        type: Infantry
        place: true
        models: [&marine {base: {diameter_mm: 32}}, *marine, *marine, *marine]
  - player: B
    units:
      - {id: bfix, type: Infantry, models: [{base: {diameter_mm: 32}, x: 27, y: 21}]}
""",
    "wh40k10": """\
ruleset: wh40k10
battlefield: {width: 60, depth: 44}
deployment_zones:
  - {id: blue-dz, player: blue, polygon: [[0, 0], [60, 0], [60, 12], [0, 12]]}
  - {id: red-dz, player: red, polygon: [[0, 32], [60, 32], [60, 44], [0, 44]]}
goals: [{kind: near_point, x: 30, y: 22}]
armies:
  - player: blue
    units:
      - id: squad
        keywords: [INFANTRY]
        place: true
        models:
          - &marine {base: {diameter_mm: 32}}
          - *marine
          - *marine
          - *marine
          - *marine
  - player: red
    units:
      - {id: red-line, keywords: [INFANTRY], models: [{base: {diameter_mm: 32}, x: 30, y: 40}]}
""",
}


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "planner", *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=300)


@pytest.mark.parametrize("ruleset", sorted(ANCHORED))
def test_anchored_models_are_planned_each_on_its_own_position(tmp_path, ruleset):
    src = tmp_path / "anchored.yaml"
    src.write_text(ANCHORED[ruleset], encoding="utf-8")
    out = tmp_path / "plan.yaml"
    r = _cli("plan", str(src), "--out", str(out), "--time-limit", "20", "--workers", "1")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "optimal" in r.stdout
    assert src.read_text(encoding="utf-8") == ANCHORED[ruleset]  # the input is untouched
    c = _cli("check", str(out))
    assert c.returncode == 0, c.stdout + c.stderr
    models = load_scenario(out, require_positions=True).units["squad"].models
    spots = {(m.x, m.y) for m in models}
    assert len(models) == len(spots) == {"hh2": 4, "wh40k10": 5}[ruleset]  # one spot per model
    assert "&" not in out.read_text(encoding="utf-8")  # written out in full, no anchors


def test_an_alias_is_read_as_its_own_copy(tmp_path):
    src = tmp_path / "anchored.yaml"
    src.write_text(ANCHORED["hh2"], encoding="utf-8")
    models = read_data(src)["armies"][0]["units"][0]["models"]
    assert models == [{"base": {"diameter_mm": 32}}] * 4
    assert len({id(m) for m in models}) == 4 and len({id(m["base"]) for m in models}) == 4


def test_planning_changes_nothing_it_was_given(tmp_path):
    src = tmp_path / "anchored.yaml"
    src.write_text(ANCHORED["hh2"], encoding="utf-8")
    w = load_scenario(src)
    before_raw, before_rec = json.dumps(w.raw), w.scenario.model_dump_json()
    res = plan_deployment(w, SolverSettings(time_limit_s=20, workers=1))
    assert res.status == "optimal" and res.legal
    assert json.dumps(w.raw) == before_raw and w.scenario.model_dump_json() == before_rec
    planned = res.scenario_data["armies"][0]["units"][0]["models"]
    assert len({(m["x"], m["y"]) for m in planned}) == 4


def test_the_planner_writes_each_model_anew_even_through_shared_data(tmp_path):
    """A library user's data may share one mapping between models: the plan still gives each its own."""
    src = tmp_path / "anchored.yaml"
    src.write_text(ANCHORED["hh2"], encoding="utf-8")
    w = load_scenario(src)
    shared = {"base": {"diameter_mm": 32}}
    w.raw["armies"][0]["units"][0]["models"] = [shared] * 4
    res = plan_deployment(w, SolverSettings(time_limit_s=20, workers=1))
    planned = res.scenario_data["armies"][0]["units"][0]["models"]
    assert len({(m["x"], m["y"]) for m in planned}) == 4
    assert shared == {"base": {"diameter_mm": 32}}
    check = check_deployment(resolve(Scenario.model_validate(res.scenario_data), require_positions=True))
    assert check.legal


def test_an_alias_bomb_is_refused_with_the_file_name(tmp_path):
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 9)]
    src = tmp_path / "bomb.yaml"
    src.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(ScenarioError, match="aliases expand to more than") as e:
        read_data(src)
    assert e.value.file == str(src)
    r = _cli("check", str(src))
    assert r.returncode == 2 and "bomb.yaml" in r.stderr and "Traceback" not in r.stderr


def test_unshared_copies_without_changing_its_input():
    inner = {"k": [1, 2]}
    data = {"a": inner, "b": [inner, inner]}
    out = unshared(data, 100)
    assert out == data and out["a"] is not inner and out["b"][0] is not out["b"][1]
    assert data["b"][0] is data["b"][1] is inner  # the input keeps its own structure
    with pytest.raises(ScenarioError):
        unshared(data, 5)
    assert yaml.safe_load(yaml.safe_dump(out)) == data
