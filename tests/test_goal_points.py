"""A goal point off the battlefield is an input error (exit 2 naming the option or field and the
value), for every option and file field that takes one: ``threats --goal near_point:X,Y`` and
``hidden_near:X,Y``, ``deepstrike --near``, a scenario's ``near_point`` goal and a deny goal's
``protect``. The battlefield's edge counts as on it."""

from __future__ import annotations

import json

import pytest
import yaml
from typer.testing import CliRunner

from planner.adversary.threats import parse_goal
from planner.cli.commands import app
from planner.errors import ScenarioError
from planner.schema import Scenario
from planner.world import resolve


def _data(goals=()):
    inf = {"id": "inf", "type": "Infantry", "rules": ["Infiltrate", "Deep Strike"],
           "setup": {"method": "reserves", "arrival": "deep_strike"},
           "models": [{"base": {"diameter_mm": 32}}]}
    me = {"id": "me", "type": "Infantry", "models": [{"base": {"diameter_mm": 32}, "x": 5.0, "y": 3.0}]}
    return {"ruleset": "hh2", "battlefield": {"width": 24, "depth": 18}, "goals": list(goals),
            "deployment_zones": [{"id": "z", "player": "me", "polygon": [[0, 0], [24, 0], [24, 5], [0, 5]]}],
            "armies": [{"player": "me", "units": [me]}, {"player": "en", "units": [inf]}]}


@pytest.mark.parametrize("text", ["near_point:999,5", "near_point:24.001,5", "hidden_near:5,-0.5",
                                  "near_point:3,18.01"])
def test_threats_goal_off_the_battlefield_is_refused(text):
    with pytest.raises(ScenarioError, match='on the 24" x 18" battlefield') as e:
        parse_goal(text, resolve(Scenario.model_validate(_data())))
    assert (e.value.location, e.value.value) == ("--goal", text)


def test_threats_goal_on_the_edge_is_a_goal():
    w = resolve(Scenario.model_validate(_data()))
    assert parse_goal("near_point:24,18", w).point == (24.0, 18.0)
    assert parse_goal("hidden_near:0,0", w).point == (0.0, 0.0)


def test_cli_threats_and_deepstrike_name_the_option_and_the_value(tmp_path):
    src = tmp_path / "s.yaml"
    src.write_text(yaml.safe_dump(_data()), encoding="utf-8")
    r = CliRunner().invoke(app, ["threats", str(src), "--enemy-unit", "inf", "--goal", "near_point:999,5",
                                 "--json", "-"])
    assert r.exit_code == 2
    err = json.loads(r.stdout)
    assert (err["location"], err["value"], err["exit_code"]) == ("--goal", "near_point:999,5", 2)
    r = CliRunner().invoke(app, ["deepstrike", str(src), "--unit", "inf", "--ruleset", "wh40k7", "--best",
                                 "--near", "999,5", "--json", "-"])
    assert r.exit_code == 2
    err = json.loads(r.stdout)
    assert (err["location"], err["value"]) == ("--near", "999,5") and "battlefield" in err["error"]


def test_scenario_goal_points_off_the_battlefield_name_the_field():
    with pytest.raises(ScenarioError, match="battlefield") as e:
        resolve(Scenario.model_validate(_data([{"kind": "near_point", "x": 12, "y": 18.5}])), "s.yaml")
    assert (e.value.file, e.value.location, e.value.value) == ("s.yaml", "goals[0].y", 18.5)
    with pytest.raises(ScenarioError, match="battlefield") as e:
        resolve(Scenario.model_validate(_data([{"kind": "deny", "enemy_unit": "inf", "protect": [-1, 4],
                                                "radius": 3}])), "s.yaml")
    assert (e.value.location, e.value.value) == ("goals[0].protect", [-1.0, 4.0])
    resolve(Scenario.model_validate(_data([{"kind": "near_point", "x": 24, "y": 0}])))  # the edge: a goal
