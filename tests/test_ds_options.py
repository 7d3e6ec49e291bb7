"""``planner deepstrike`` options and wording (a fresh user's findings): what each output says it is."""

from __future__ import annotations

import json

import pytest
import yaml
from typer.testing import CliRunner

from planner.cli.commands import app
from planner.deepstrike.scene import scene_data


def _run(tmp_path, ruleset: str, *args: str, n: int = 1):
    src = tmp_path / "ds.yaml"
    src.write_text(yaml.safe_dump(scene_data(ruleset, n=n, ovals=False)), encoding="utf-8")
    js = tmp_path / "ds.json"
    r = CliRunner().invoke(app, ["deepstrike", str(src), "--unit", "ds", *args, "--json", str(js)])
    data = json.loads(js.read_text()) if js.exists() and r.exit_code in (0, 1) else None
    return r, data


def test_best_says_it_is_over_the_grid(tmp_path):
    r, data = _run(tmp_path, "wh40k7", "--best", "--near", "40,24", "--within", "6", "--resolution", "6")
    assert r.exit_code == 0, r.output
    assert 'Best aim point over the 6" grid (--resolution)' in " ".join(r.output.split())
    assert data["best"]["grid_in"] == 6.0 and "grid" in data["best"]["search"]


@pytest.mark.parametrize(("ruleset", "args", "option"), [
    ("hh2", ["--at", "36,30", "--within", "3"], "--within"),
    ("hh2", ["--at", "36,30", "--orientation", "45"], "--orientation"),
    ("hh2", ["--at", "36,30", "--formation-step", "5"], "--formation-step"),
    ("wh40k10", ["--at", "36,30", "--near", "40,24", "--within", "3"], "--near"),
    ("wh40k11", ["--at", "36,30", "--within", "3"], "--within"),
    ("wh40k7", ["--at", "36,30", "--near", "40,24"], "--near"),
])
def test_an_option_the_procedure_would_ignore_is_refused(tmp_path, ruleset, args, option):
    src = tmp_path / "ds.yaml"
    src.write_text(yaml.safe_dump(scene_data("hh2" if ruleset == "hh2" else "wh40k7", n=1, ovals=False)),
                   encoding="utf-8")
    r = CliRunner().invoke(app, ["deepstrike", str(src), "--unit", "ds", "--ruleset", ruleset, *args, "--json", "-"])
    assert r.exit_code == 2, r.output
    err = json.loads(r.stdout)
    given = args[args.index(option) + 1]
    assert err["location"] == option and str(err["value"]) in (given, str(float(given)) if "," not in given else given)
    assert f"{option} does not apply" in err["error"] or "needs --within" in err["error"]


@pytest.mark.parametrize(("ruleset", "column"), [("hh2", "p_relocated"), ("wh40k7", "p_mishap")])
def test_heat_map_column_names_what_it_holds(tmp_path, ruleset, column):
    csv = tmp_path / "m.csv"
    r, data = _run(tmp_path, ruleset, "--map", str(csv), "--resolution", "12")
    assert r.exit_code == 0, r.output
    lines = csv.read_text().splitlines()
    assert lines[0] == f"x,y,{column}" and len(lines) == 1 + 6 * 4


def test_controller_formation_at_is_named(tmp_path):
    """10th/11th --at where the 0 deg rings are illegal: the formation set up is named, text and JSON."""
    from pathlib import Path

    src = Path(__file__).resolve().parents[1] / "scenarios" / "hh2-fortified-line-chogorian-vs-berserkers.yaml"
    js = tmp_path / "w.json"
    r = CliRunner().invoke(app, ["deepstrike", str(src), "--unit", "ws-assault", "--at", "26.6,24", "--ruleset",
                                 "wh40k10", "--json", str(js)])
    assert r.exit_code == 0, r.output
    data = json.loads(js.read_text())
    land = data["landing_on_target"]
    assert land["formation"] and land["formation"] != "orientation 0 deg"
    assert data["orientation_deg"] == land["orientation_deg"] and data["orientation_deg"] != 0.0
    assert f"Formation set up: {land['formation']}" in r.output
    assert land["formation"] in data["formation_drawn"][0]


@pytest.mark.parametrize(("ruleset", "args"), [
    ("wh40k7", ["--map", "MAP", "--resolution", "12"]),
    ("wh40k5", ["--map", "MAP", "--resolution", "12"]),
    ("wh40k10", ["--map", "MAP", "--resolution", "12"]),
    ("wh40k10", ["--at", "36,30", "--orientation", "30"]),
])
def test_formation_step_where_nothing_uses_it_is_refused(tmp_path, ruleset, args):
    """The heat map judges the formation at the fixed orientation (and a 10th/11th --at with
    --orientation sets up that one): --formation-step would be ignored, so it is refused (exit 2,
    naming it), no map written."""
    src = tmp_path / "ds.yaml"
    src.write_text(yaml.safe_dump(scene_data("wh40k7", n=3, ovals=False)), encoding="utf-8")
    out = tmp_path / "m.csv"
    args = [str(out) if a == "MAP" else a for a in args]
    r = CliRunner().invoke(app, ["deepstrike", str(src), "--unit", "ds", "--ruleset", ruleset, *args,
                                 "--formation-step", "5", "--json", "-"])
    assert r.exit_code == 2, r.output
    err = json.loads(r.stdout)
    assert err["location"] == "--formation-step" and float(err["value"]) == 5.0
    assert "--formation-step does not apply" in err["error"]
    assert not out.exists()
    # where it is used (5th/7th --best and --map, 10th/11th --at): tests/test_ds_fixed_orientation.py,
    # tests/test_ds_bracket.py

