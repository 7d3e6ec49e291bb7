"""Issue 19 item 1, the rest: the heat map and ``--best`` use one fixed formation orientation; every
output says so (text, JSON, the picture's caption), and ``--best`` gives the controller's best
formation (over the orientation family) at the cell it picks."""

from __future__ import annotations

import json

import yaml
from typer.testing import CliRunner

from planner.cli.commands import app
from planner.cli.render import deepstrike_heat
from planner.deepstrike.scene import scene_data
from planner.schema import Scenario
from planner.world import resolve


def test_best_and_map_state_the_fixed_orientation_and_best_gives_the_best_formation(tmp_path):
    src = tmp_path / "ds.yaml"
    src.write_text(yaml.safe_dump(scene_data(n=3, ovals=False)), encoding="utf-8")
    js, csv = tmp_path / "o.json", tmp_path / "m.csv"
    r = CliRunner().invoke(app, ["deepstrike", str(src), "--unit", "ds", "--best", "--orientation", "30",
                                 "--map", str(csv), "--resolution", "6", "--formation-step", "45", "--json", str(js)])
    assert r.exit_code == 0, r.output
    data = json.loads(js.read_text())
    best, mp = data["best"], data["map"]
    for rec in (best, mp):
        assert rec["orientation"] == "fixed" and rec["orientation_deg"] == 30.0
        assert rec["note"] == "formation at the fixed orientation 30 deg"
    assert "formation at the fixed orientation 30 deg (not the controller's best formation)" in r.output
    assert "The search above assumes the formation at the fixed orientation 30 deg" in r.output
    bf = best["best_formation"]
    assert (bf["x"], bf["y"]) == (best["x"], best["y"]) and bf["step_deg"] == 45.0
    # the controller's best formation is never worse than the fixed orientation at the same point
    assert bf["bracket"][0] - 1e-9 <= bf["p_mishap"] <= best["odds"]["p_mishap"] + 1e-9
    assert f"in [{bf['bracket'][0]:.4f}, {bf['bracket'][1]:.4f}], both ends proven" in r.output


def test_the_heat_caption_names_the_orientation_and_a_single_model_needs_none():
    world = resolve(Scenario.model_validate(scene_data(n=3, ovals=False)))
    assert deepstrike_heat(world, "ds", orientation=45.0, resolution=12.0).label.endswith(
        ", formation at the fixed orientation 45 deg")
    one = resolve(Scenario.model_validate(scene_data(n=1, ovals=False)))
    assert "orientation" not in deepstrike_heat(one, "ds", resolution=12.0).label
