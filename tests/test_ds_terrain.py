"""Deep Strike landings judged against the checker's no-go terrain and other models (session 6's
fresh user: a 10th/11th-edition landing inside a solid feature or on a friendly model was called
legal, and 7th / Horus Heresy treated only `impassable` features as impassable)."""

from __future__ import annotations

import copy

import pytest

from planner.deepstrike.assault import place_assault
from planner.deepstrike.procedure import judge_landing, make_setup, odds
from planner.legality.checker import check_deployment
from planner.schema import Scenario
from planner.world import resolve

B32 = {"diameter_mm": 32}
TERRAIN = [
    {"id": "rock", "kind": "solid", "traits": ["blocks_line_of_sight"],
     "footprint": [[10, 20], [20, 20], [20, 26], [10, 26]]},
    {"id": "pit", "kind": "area", "traits": ["impassable"], "footprint": [[24, 20], [28, 20], [28, 24], [24, 24]]},
    {"id": "ruin", "kind": "area", "traits": ["blocks_line_of_sight"],
     "footprint": [[32, 18], [40, 18], [40, 26], [32, 26]], "walls": [{"points": [[32, 18], [40, 18]], "thickness_in": 0.5}]},
]


def _scenario(ruleset: str, n: int = 3) -> dict:
    red = {"id": "intercessors", "models": [{"base": B32, "x": 22.0, "y": 17.0}]}
    blue = {"id": "enemy", "models": [{"base": B32, "x": 50.0, "y": 40.0}]}
    ds = {"id": "ds", "setup": {"method": "reserves", "arrival": "deep_strike"}, "models": [
        {"base": B32} for _ in range(n)]}
    if ruleset.startswith("wh40k1"):
        for u in (red, blue, ds):
            u["keywords"] = ["INFANTRY"]
        ds["abilities"] = ["Deep Strike"]
    else:
        for u in (red, blue, ds):
            u["type"] = "Infantry"
        ds["rules"] = ["Deep Strike"]
    return {"ruleset": ruleset, "battlefield": {"width": 60, "depth": 44}, "terrain": copy.deepcopy(TERRAIN),
            "deployment_zones": [{"id": "a", "player": "red", "polygon": [[0, 0], [60, 0], [60, 44], [0, 44]]},
                                 {"id": "b", "player": "blue", "polygon": [[0, 36], [60, 36], [60, 44], [0, 44]]}],
            "armies": [{"player": "red", "units": [red, ds]}, {"player": "blue", "units": [blue]}]}


@pytest.mark.parametrize("ruleset", ["wh40k10", "wh40k11"])
def test_40k_landing_agrees_with_the_checker_around_terrain_and_a_friendly_model(ruleset):
    data = _scenario(ruleset)
    st = make_setup(resolve(Scenario.model_validate(data)), "ds")
    seen = {True: 0, False: 0}
    rules_fired = set()
    named = 0
    for x in (12.0, 15.0, 19.5, 21.0, 22.0, 23.5, 26.0, 29.0, 33.0, 36.0):
        for y in (16.5, 17.0, 18.2, 19.0, 21.0, 23.0):
            land = judge_landing(st, x, y)
            d = copy.deepcopy(data)
            ds = d["armies"][0]["units"][1]
            ds["setup"]["battle_round"] = 2
            for m, (cx, cy) in zip(ds["models"], land.formation.centres, strict=True):
                m.update(x=cx, y=cy)
            rep = check_deployment(resolve(Scenario.model_validate(d), "w.yaml", require_positions=True))
            assert rep.legal is not land.mishap, (x, y, land.triggers, [v.rule for v in rep.violations])
            # the landing's triggers are the rule ids planner check reports for the arriving unit
            assert set(land.triggers) == {v.rule for v in rep.violations if v.unit == "ds"}, (x, y)
            seen[rep.legal] += 1
            rules_fired |= {v.rule for v in rep.violations}
            assert {v.rule for v in rep.violations} <= {f.rule for f in land.findings if not f.passed} | {
                f"{ruleset}.reserves.distance"}, (x, y)
            # every failing model named, worst first, as the checker names them (battlefield, terrain)
            mine = {f.rule: (f.model, f.failing_models) for f in land.findings if not f.passed}
            for f in (f for u in rep.units if u.unit == "ds" for f in u.findings if not f.passed):
                if f.rule in (f"{ruleset}.battlefield", f"{ruleset}.terrain.placement"):
                    assert mine[f.rule] == (f.model, f.failing_models), (x, y, f.rule)
                    named += len(f.failing_models)
    assert seen[True] and seen[False] and named
    assert {f"{ruleset}.terrain.placement", f"{ruleset}.bases.overlap"} <= rules_fired
    # inside the solid rock, in the impassable pit, on the friendly model: each named, every model
    # in the rock named (the deepest first; 3.630" = 3" to the rock's edge + the 16 mm radius)
    rock = judge_landing(st, 15.0, 23.0).findings[-2]
    assert rock.message == ('model 1 would be set up in rock; also model 2 (in rock, 3.630" deep), '
                            'model 3 (in rock, 2.539" deep)')
    assert rock.failing_models == ["1", "2", "3"]
    assert judge_landing(st, 26.0, 22.0).triggers == [f"{ruleset}.terrain.placement"]
    on = judge_landing(st, 22.0, 17.0)
    assert on.triggers == [f"{ruleset}.bases.overlap"] and odds(st, 22.0, 17.0).triggers[f"{ruleset}.bases.overlap"] == 1.0


def test_7th_edition_solid_feature_is_impassable_for_the_mishap():
    """A solid feature (no model stands in it) is impassable terrain for the mishap test, as the
    checker's no-go terrain: a model landing in it is a mishap; aimed into its middle with no scatter
    the unit always mishaps there."""
    st = make_setup(resolve(Scenario.model_validate(_scenario("wh40k7", n=1))), "ds")
    assert set(st.impassable) == {"rock", "pit", "ruin"}
    land = judge_landing(st, 15.0, 23.0)
    assert land.triggers == ["impassable"] and "rock" in land.findings[1].message
    assert judge_landing(st, 36.0, 18.0).triggers == ["impassable"]  # on the ruin's wall
    assert judge_landing(st, 36.0, 22.0).triggers == []  # inside the ruin, off its wall
    o = odds(st, 15.0, 23.0)
    # a hit (1/3) lands in the rock; a scatter of 2D6 (2-12") from the middle of a 10" x 6" rock is
    # out of it more often than not
    imp = o.triggers["wh40k7.deepstrike.mishap.impassable"]
    assert 1 / 3 < imp < 1 and o.p_mishap >= imp


def test_hh2_deep_strike_assault_followers_stay_out_of_a_solid_building():
    data = _scenario("hh2", n=5)
    data["terrain"][0]["building"] = {"capacity": 10}
    data["armies"][0]["units"].insert(1, {"id": "pod", "type": "Vehicle", "setup": {
        "method": "reserves", "arrival": "deep_strike"}, "models": [{"profile": "legion-drop-pod"}]})
    world = resolve(Scenario.model_validate(data))
    st = make_setup(world, "pod")
    assert "rock" in st.impassable
    from shapely.geometry import Point

    from planner.legality.table import Table

    rock = Table(world).terrain_polys["rock"]
    S = st.shapes[0]
    r = 16 / 25.4
    for disordered in (False, True):
        groups = place_assault(st, S.moved(15.0, 29.0), disordered=disordered)
        (tac,) = [g for g in groups if g["unit"] == "ds"]
        assert tac["space"], groups
        for cx, cy in tac["positions"]:
            assert rock.distance(Point(cx, cy)) >= r - 1e-9, (disordered, cx, cy)
    # aimed at the building's roof, the first model itself is in Impassable Terrain (relocated)
    assert "rock" in st.impassable


def test_hh2_first_model_keeps_1_inch_from_impassable_terrain_only():
    """The Deep Strike Assault's first model is placed at least 1" from Impassable Terrain (the
    trait); a solid feature without it is only not to be landed in: 0.5" from the rock is fine,
    0.5" from the impassable pit is refused, inside the rock is refused."""
    import numpy as np

    from planner.deepstrike.assault import assault_odds
    from planner.errors import ScenarioError

    data = _scenario("hh2", n=1)
    data["armies"][0]["units"][1] = {"id": "pod", "type": "Vehicle", "rules": ["Deep Strike"], "setup": {
        "method": "reserves", "arrival": "deep_strike"}, "models": [{"profile": "legion-drop-pod"}]}
    st = make_setup(resolve(Scenario.model_validate(data)), "pod")
    below = float(st.shapes[0].support_many(np.array([0.0]), np.array([-1.0]))[0])  # the hull's reach down
    assert st.impassable_terrain == frozenset({"pit"})
    assault_odds(st, 15.0, 26.0 + below + 0.5)  # 0.5" above the rock: accepted
    with pytest.raises(ScenarioError, match="impassable_within_1"):
        assault_odds(st, 26.0, 24.0 + below + 0.5)  # 0.5" above the pit
    with pytest.raises(ScenarioError, match="impassable_within_1"):
        assault_odds(st, 15.0, 23.0)  # in the rock


def _corridor(ruleset: str) -> dict:
    """Five 32 mm models to arrive in a 1.4" corridor between two solid blocks (session 6's fresh
    user: the fixed ring did not fit, so the arrival was called illegal where a column is legal)."""
    blocks = [{"id": "west", "kind": "solid", "footprint": [[20, 10], [29.3, 10], [29.3, 30], [20, 30]]},
              {"id": "east", "kind": "solid", "footprint": [[30.7, 10], [40, 10], [40, 30], [30.7, 30]]}]
    kw = {"keywords": ["INFANTRY"]}
    return {"ruleset": ruleset, "battlefield": {"width": 60, "depth": 44}, "terrain": blocks,
            "deployment_zones": [{"id": "b", "player": "blue", "polygon": [[0, 0], [60, 0], [60, 12], [0, 12]]},
                                 {"id": "r", "player": "red", "polygon": [[0, 32], [60, 32], [60, 44], [0, 44]]}],
            "armies": [{"player": "blue", "units": [{"id": "foe", **kw, "models": [{"base": B32, "x": 58, "y": 2}]}]},
                       {"player": "red", "units": [{"id": "ds", **kw, "abilities": ["Deep Strike"],
                                                    "setup": {"method": "reserves", "arrival": "deep_strike",
                                                              "battle_round": 2},
                                                    "models": [{"base": B32} for _ in range(5)]}]}]}


@pytest.mark.parametrize("ruleset", ["wh40k10", "wh40k11"])
def test_40k_arrival_takes_a_legal_formation_when_the_fixed_ring_does_not_fit(ruleset):
    from planner.deepstrike.procedure import best_setup

    data = _corridor(ruleset)
    st = make_setup(resolve(Scenario.model_validate(data)), "ds")
    assert judge_landing(st, 30.0, 20.0).mishap  # the ring at orientation 0 meets a block
    land = best_setup(st, 30.0, 20.0)
    assert not land.mishap
    assert odds(st, 30.0, 20.0).p_mishap == 0.0 and odds(st, 30.0, 20.0, fixed=True).p_mishap == 1.0
    # the checker accepts the unit set up where the controller's formation puts it
    d = copy.deepcopy(data)
    for m, (cx, cy) in zip(d["armies"][1]["units"][0]["models"], land.formation.centres, strict=True):
        m.update(x=cx, y=cy)
    assert check_deployment(resolve(Scenario.model_validate(d), "c.yaml", require_positions=True)).legal
    # in a 1.2" gap no formation fits (a 32 mm base is 1.26" across): illegal whatever the formation
    narrow = copy.deepcopy(data)
    narrow["terrain"][1]["footprint"] = [[30.5, 10], [40, 10], [40, 30], [30.5, 30]]
    st2 = make_setup(resolve(Scenario.model_validate(narrow)), "ds")
    assert best_setup(st2, 29.9, 20.0).mishap


def test_hh2_first_model_scattering_onto_a_friendly_model_is_relocated():
    """Session 6's fresh user: a Drop Pod could land on a model of its own side (stays, no trigger).
    Now an aim point on it is refused and a scatter onto it is relocated (trigger on_model)."""
    from planner.deepstrike.assault import assault_odds
    from planner.errors import ScenarioError

    def setup(with_friend: bool):
        data = _scenario("hh2", n=1)
        data["terrain"] = []
        red = data["armies"][0]["units"]
        red[0]["models"] = [{"base": B32, "x": 30.0, "y": 38.0}] if with_friend else [{"base": B32, "x": 2, "y": 2}]
        red[1] = {"id": "pod", "type": "Vehicle", "rules": ["Deep Strike"], "setup": {
            "method": "reserves", "arrival": "deep_strike"}, "models": [{"profile": "legion-drop-pod"}]}
        return make_setup(resolve(Scenario.model_validate(data)), "pod")

    with pytest.raises(ScenarioError, match="on_model"):
        assault_odds(setup(True), 30.0, 38.0)
    far = assault_odds(setup(False), 30.0, 30.0)
    near = assault_odds(setup(True), 30.0, 30.0)
    on = near.triggers["hh2.deepstrike_assault.on_model"]
    assert 0 < on < 2 / 3 and far.triggers["hh2.deepstrike_assault.on_model"] == 0.0
    # relocated: the union of the friend's region with the edge's (they meet near the far edge)
    assert max(far.p_relocated, on) < near.p_relocated <= far.p_relocated + on + 1e-9


def test_the_landing_names_every_failing_model_in_its_text_and_json(tmp_path):
    """`planner deepstrike --at` on a friendly model: the landing's finding names every model set up
    on another (text and JSON, ``failing_models``), not only the first."""
    import json

    import yaml
    from typer.testing import CliRunner

    from planner.cli.commands import app

    src, js = tmp_path / "s.yaml", tmp_path / "s.json"
    src.write_text(yaml.safe_dump(_scenario("wh40k10", 6)), encoding="utf-8")
    r = CliRunner().invoke(app, ["deepstrike", str(src), "--unit", "ds", "--at", "21,16.5", "--json", str(js)])
    assert r.exit_code == 1, r.output
    assert ("[wh40k10.bases.overlap] model 1 would be set up on intercessors/1; also model 2 (on intercessors/1), "
            "model 3 (on intercessors/1)") in " ".join(r.output.split())
    (bad,) = [f for f in json.loads(js.read_text())["landing_on_target"]["findings"] if not f["passed"]]
    assert (bad["rule"], bad["model"], bad["failing_models"]) == ("wh40k10.bases.overlap", "1", ["1", "2", "3"])


def test_7th_edition_mishap_findings_name_every_failing_model_closest_first():
    """7th edition, six models aimed beside the enemy model: the enemy_within_1 finding names the
    closest model first (model 2, on it) and every other model within 1" after it, closest first;
    off the table at the corner: every model over the edge, the farthest over first."""
    st = make_setup(resolve(Scenario.model_validate(_scenario("wh40k7", n=6))), "ds")
    near = next(f for f in judge_landing(st, 48.0, 39.0).findings if f.rule == "wh40k7.deepstrike.mishap.enemy_within_1")
    assert not near.passed and near.model == "2" and near.failing_models == ["2", "3", "1"]
    assert near.message == ('model 2 would land 0.000" from enemy model enemy/1; also model 3 (0.113" from enemy '
                            'model enemy/1), model 1 (0.976" from enemy model enemy/1)')
    off = judge_landing(st, 0.0, 0.0).findings[0]
    assert not off.passed and off.failing_models == ["5", "6", "4", "1", "2"]
    assert off.message.startswith('model 5 would land off the table (1.890" over the edge); also model 6 (1.721" over)')
