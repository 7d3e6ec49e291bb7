"""The 40k Objective Control goal and report (issue 20 item 4): the expected OC of my units on an
objective after the enemy's first turn, closed forms on a small scene, the plan, the errors."""

from __future__ import annotations

import math

import pytest
from typer.testing import CliRunner

from planner.cli.commands import app
from planner.combat.control import battle_shock_pass
from planner.combat.exposure import exposure
from planner.errors import ScenarioError
from planner.schema import Scenario
from planner.solve.goals import compile_goals
from planner.solve.planner import SolverSettings, plan_deployment
from planner.testing import assert_plan_legal
from planner.world import resolve
from tests.wh40k_helpers import dawn_of_war, model, unit

OBJ = {"id": "obj", "x": 30, "y": 22}
SQUAD_STATS = {"m": 6, "t": 4, "w": 1, "sv": 7, "ld": 7, "oc": 2}
GUN = {"name": "gun", "range_in": 24, "a": 1, "bs": 4, "s": 4, "ap": 0, "d": 1}
GUNS_STATS = {"m": 6, "t": 4, "w": 1, "sv": 3, "ld": 7, "oc": 1}


def _binom(n: int, p: float, k: int) -> float:
    return math.comb(n, k) * p ** k * (1 - p) ** (n - k)


def _squad(xs, stats=SQUAD_STATS, **extra) -> dict:
    return unit("squad", [model(x, y) for x, y in xs], stats=stats, **extra)


def _guns(y: float = 34.0, n: int = 10) -> dict:
    """``n`` guns in two ranks (1.5" apart) from (24, y) (11th-edition coherency: within 9" of each other)."""
    return unit("guns", [model(24 + 1.5 * (i % 5), y + 1.5 * (i // 5)) for i in range(n)], stats=GUNS_STATS,
                weapons=[GUN])


def _data(ruleset: str, blue: list[dict], red: list[dict], goals=()) -> dict:
    return {"ruleset": ruleset, "battlefield": {"width": 60, "depth": 44}, "deployment_zones": dawn_of_war(12),
            "objectives": [OBJ], "goals": list(goals),
            "armies": [{"player": "blue", "units": blue}, {"player": "red", "units": red}]}


def _world(*args, **kw):
    return resolve(Scenario.model_validate(_data(*args, **kw)), require_positions=True)


# Ten guns, one attack each: hit 4+ (1/2), S4 v T4 wounds on 4+ (1/2), no save, D1 against one-wound
# models: each attack kills with probability 1/4, models lost ~ Binomial(10, 1/4) capped at 5.
P_KILL = 0.25
P_PASS = 21 / 36  # 2D6 >= 7


def _expected_oc(oc_left) -> float:
    """E[OC] of the five-model squad with ``oc_left(k)`` = its OC on the objective after k lost:
    Below Half-strength (fewer than 2.5 models: 3 or more lost) tests on Ld 7."""
    total = 0.0
    for k in range(0, 5):
        p = _binom(10, P_KILL, k)
        total += p * oc_left(k) * (P_PASS if k >= 3 else 1.0)
    return total  # k >= 5: destroyed, OC 0


ON = [(27.4 + 1.3 * i, 22) for i in range(5)]  # every model within 3" of the marker at (30, 22)


@pytest.mark.parametrize("ruleset", ["wh40k10", "wh40k11"])
def test_report_expected_oc_on_the_objective_is_the_closed_form(ruleset):
    assert battle_shock_pass(7) == pytest.approx(P_PASS)
    rep = exposure(_world(ruleset, [_squad(ON)], [_guns()]), "blue")
    assert rep.units[0].shot_by and rep.units[0].shot_by[0].result.p_hit == pytest.approx(0.5)
    oc = rep.objective_control[0]
    assert oc.objective == "obj" and oc.full == {"squad": 10}
    expected = _expected_oc(lambda k: 2 * (5 - k))
    assert oc.units["squad"] == pytest.approx(expected, rel=1e-9)
    assert expected == pytest.approx(4.508557, abs=1e-6)  # of 10: the losses and the test matter
    assert any("Objective Control" in s for s in rep.interpretations)


def test_models_out_of_range_count_nothing_and_are_removed_first():
    # two models more than 3" from the marker: OC on it 2 * min(3, 5 - k) (the out-of-range ones go first)
    xs = [(13.0, 22), (14.3, 22), *ON[2:]]
    rep = exposure(_world("wh40k11", [_squad(xs)], [_guns()]), "blue")
    expected = _expected_oc(lambda k: 2 * min(3, 5 - k))
    assert rep.objective_control[0].units["squad"] == pytest.approx(expected, rel=1e-9)
    far = [(10 + 1.3 * i, 22) for i in range(5)]  # none in range: OC 0 there, whatever is lost
    rep = exposure(_world("wh40k11", [_squad(far)], [_guns()]), "blue")
    assert rep.objective_control[0].units["squad"] == 0.0


def test_out_of_reach_of_the_guns_keeps_its_whole_oc_and_out_of_range_has_none():
    low = [(x, 2.0) for x, _ in ON]  # y 2 against guns from y 41: more than 24" + 6" apart
    w = _world("wh40k11", [_squad(low)], [_guns(y=41.0)])
    rep = exposure(w, "blue")
    assert rep.units[0].can_shoot == [] and rep.objective_control[0].units["squad"] == 0.0  # obj at y 22
    data = _data("wh40k11", [_squad(low)], [_guns(y=41.0)])
    data["objectives"] = [{"id": "obj", "x": 30, "y": 2}]
    rep = exposure(resolve(Scenario.model_validate(data), require_positions=True), "blue")
    assert rep.objective_control[0].units["squad"] == 10.0  # nothing lost, every model in range


def _goal_value(world, goal_index: int = 0) -> float:
    """The compiled objective_control term's value at the squad's positions in ``world``."""
    from planner.legality.table import Placed

    table = world.ruleset.table(world)
    terms = compile_goals(world, table, "blue", {"squad"})
    u = world.units["squad"]
    base = table.final(u)
    placed = Placed(u, base.footprints, tuple(m.ref for m in u.models))
    fps = list(base.footprints)
    mask = [True] * len(fps)
    import numpy as np

    xy = np.array([[[f.cx, f.cy] for f in fps]])
    radii = np.array([float(f.outer_radius) for f in fps])
    t = terms[goal_index]
    low = float(t.lower(xy, np.array(mask), radii, [m.ref for m in u.models])[0])
    value = t.exact(placed, fps, mask, low)
    assert 0.0 <= low <= value + 1e-12  # the lower bound bounds the value
    return value


def test_goal_value_is_the_full_oc_less_the_expected_oc():
    goal = [{"kind": "objective_control", "objective": "obj"}]
    w = _world("wh40k11", [_squad(ON)], [_guns()], goals=goal)
    assert _goal_value(w) == pytest.approx(10 - _expected_oc(lambda k: 2 * (5 - k)), rel=1e-9)
    far = [(10 + 1.3 * i, 22) for i in range(5)]
    w = _world("wh40k11", [_squad(far)], [_guns()], goals=goal)
    assert _goal_value(w) == pytest.approx(10.0)  # out of range: the whole OC is lost (the lower bound says so)


def test_goal_is_40k_only_and_names_its_objective_and_fields():
    goal = [{"kind": "objective_control", "objective": "obj"}]
    with pytest.raises(ScenarioError, match="objective_control") as e:
        _world("hh2", [_squad(ON)], [_guns()], goals=goal)
    assert e.value.location == "goals[0].kind"
    with pytest.raises(ScenarioError, match="no objective") as e:
        _world("wh40k11", [_squad(ON)], [_guns()], goals=[{"kind": "objective_control", "objective": "nope"}])
    assert e.value.location == "goals[0].objective"
    no_oc = _squad(ON, stats={k: v for k, v in SQUAD_STATS.items() if k != "oc"})
    w = _world("wh40k11", [no_oc], [_guns()], goals=goal)
    with pytest.raises(ScenarioError, match=r"no OC") as e:
        compile_goals(w, w.ruleset.table(w), "blue", {"squad"})
    assert e.value.location.endswith("stats.oc")


def test_cli_exit_2_for_a_horus_heresy_scenario_with_the_goal(tmp_path):
    import yaml

    p = tmp_path / "hh.yaml"
    p.write_text(yaml.safe_dump(_data("hh2", [_squad(ON)], [_guns()],
                                      goals=[{"kind": "objective_control", "objective": "obj"}])),
                 encoding="utf-8")
    r = CliRunner().invoke(app, ["plan", str(p)])
    assert r.exit_code == 2 and "objective_control" in r.output and "hh.yaml" in r.output


def test_plan_with_the_goal_and_another_is_legal_and_keeps_oc(tmp_path):
    # the squad is placed in its zone (y <= 12); the objective at (30, 10) is in the zone; the guns
    # stand at the back of theirs. Plain near_point towards (30, 2) versus that plus objective_control.
    import yaml

    obj = {"id": "obj", "x": 30, "y": 10}
    sq = unit("squad", [model(None, None) for _ in range(5)], stats=SQUAD_STATS, place=True)
    data = _data("wh40k11", [sq], [_guns(y=40.5)],
                 goals=[{"kind": "near_point", "x": 30, "y": 2},
                        {"kind": "objective_control", "objective": "obj", "weight": 5}])
    data["objectives"] = [obj]
    settings = SolverSettings(time_limit_s=15, workers=1, seed=0, grid_in=1.0, candidates_per_unit=200)
    plain = plan_deployment(resolve(Scenario.model_validate({**data, "goals": data["goals"][:1]})), settings)
    assert plain.scenario is not None, plain.message
    # the near_point pull alone leaves the squad out of range of the objective: OC 0 there
    assert exposure(resolve(plain.scenario, require_positions=True), "blue").objective_control[0].units["squad"] == 0
    result = plan_deployment(resolve(Scenario.model_validate(data)), settings)
    assert result.status in ("optimal", "feasible"), result.message
    assert_plan_legal(result)
    term = next(g for g in result.goals if g.kind == "objective_control")
    assert term.value == pytest.approx(0.0, abs=1e-9)  # out of the guns' reach (more than 30") and in range
    planned = resolve(result.scenario, require_positions=True)
    rep = exposure(planned, "blue")
    assert rep.objective_control[0].units["squad"] == pytest.approx(10.0)
    p = tmp_path / "planned.yaml"
    p.write_text(yaml.safe_dump(result.scenario_data, sort_keys=False), encoding="utf-8")
    r = CliRunner().invoke(app, ["check", str(p)])
    assert r.exit_code == 0, r.output


def test_cli_exposure_prints_and_writes_the_expected_oc(tmp_path):
    import json

    import yaml

    p = tmp_path / "scene.yaml"
    p.write_text(yaml.safe_dump(_data("wh40k11", [_squad(ON)], [_guns()])), encoding="utf-8")
    # the squad stands on the centre objective, outside its deployment zone: planner exposure refuses
    # that table (exit 1, as plan and threats) unless told to measure it anyway
    r = CliRunner().invoke(app, ["exposure", str(p), "--player", "blue", "--json", "-"])
    assert r.exit_code == 1 and "already illegal" in r.output and "wholly_within_zone" in r.output
    r = CliRunner().invoke(app, ["exposure", str(p), "--player", "blue", "--json", "-", "--allow-illegal-table"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.output[r.output.index("{"):])
    assert data["warnings"] and "wholly_within_zone" in " ".join(data["warnings"])
    [oc] = data["objective_control"]
    expected = _expected_oc(lambda k: 2 * (5 - k))
    assert oc["objective"] == "obj" and oc["expected_oc"] == pytest.approx(expected) and oc["full_oc"] == {"squad": 10}
    r = CliRunner().invoke(app, ["exposure", str(p), "--player", "blue", "--allow-illegal-table"])
    assert r.exit_code == 0 and f"Expected OC on obj after the enemy's turn: {expected:.3f}" in r.output


def test_a_joined_leader_is_one_target_with_its_bodyguard():
    # a T5 CHARACTER Leader joins five T4 one-wound models: one target of six models, wounded by the
    # bodyguard's Toughness (S4 v T4: 4+), the Leader removed last; its OC counts with the unit's
    from planner.combat import wh40k
    from planner.combat.exposure import attached_record, lookup_of
    from planner.combat.profiles import attacker_40k, target_40k

    leader = unit("leader", [model(30, 23.5)], keywords=["INFANTRY", "CHARACTER"], abilities=["Leader"],
                  stats={"m": 6, "t": 5, "w": 4, "sv": 3, "ld": 6, "oc": 1}, setup={"joined": "squad"})
    w = _world("wh40k11", [_squad(ON), leader], [_guns()])
    rep = exposure(w, "blue")
    [u] = rep.units
    assert u.unit == "squad" and u.models == 6 and len(u.models_lost) <= 7
    [th] = u.shot_by
    assert th.result.p_wound == pytest.approx(0.5)  # the bodyguard's T4, not the Leader's T5 (5+: 1/3)
    direct = wh40k.shoot(attacker_40k(w.units["guns"].record, "gun", stationary=True),
                         target_40k(attached_record(w, w.units["squad"], lookup_of(w)), attached=True),
                         cover="bs", ruleset="wh40k11")
    assert th.result.models_lost == pytest.approx(direct.models_lost)
    assert any("leader with squad" in s for s in rep.interpretations)
    oc = rep.objective_control[0]
    assert oc.full == {"squad": 11} and set(oc.units) == {"squad"}
    # Below Half-strength: fewer than 3 of 6 models left, i.e. 4 or more lost; the Leader goes last
    # (one-wound bodyguards lost one per model first, so k <= 5 lost leaves the Leader and 5 - k marines)
    lost = direct.models_lost
    by_hand = sum(p * (2 * (5 - k) + 1) * (battle_shock_pass(6) if k >= 4 else 1.0)
                  for k, p in enumerate(lost) if k <= 5)
    assert oc.units["squad"] == pytest.approx(by_hand, rel=1e-9)


def test_bundled_scenario_planned_for_objective_control_keeps_what_the_goal_promises(tmp_path):
    # the bundled marines v necrons lists: objective_control on home-1 with near_objective. The goal's
    # value bounds the report's loss of OC (its losses are an upper bound of the report's), the plan is legal.
    from pathlib import Path

    import yaml

    from planner.legality.checker import check_deployment

    bundled = Path(__file__).parent.parent / "scenarios" / "wh40k-exposure-marines-vs-necrons.yaml"
    data = yaml.safe_load(bundled.read_text(encoding="utf-8"))
    data["goals"] = [{"kind": "objective_control", "objective": "home-1", "weight": 20},
                     {"kind": "near_objective", "objective": "home-1"}]
    result = plan_deployment(resolve(Scenario.model_validate(data), bundled.as_posix()),
                             SolverSettings(time_limit_s=15))
    assert result.scenario is not None, result.message
    value = next(g.value for g in result.goals if g.kind == "objective_control")
    planned = resolve(result.scenario, require_positions=True)
    assert check_deployment(planned).legal
    [oc] = [o for o in exposure(planned, "marines").objective_control if o.objective == "home-1"]
    full = sum(oc.full.values())
    assert full == 26  # captain 1, two Intercessor squads 2 x 5 x 2, Infiltrators 5 x 1
    assert oc.expected >= full - value - 1e-9
    assert value < full  # the plan holds the objective
    p = tmp_path / "planned.yaml"
    p.write_text(yaml.safe_dump(result.scenario_data, sort_keys=False), encoding="utf-8")
    r = CliRunner().invoke(app, ["check", str(p)])
    assert r.exit_code == 0, r.output
