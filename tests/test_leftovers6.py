"""Last session's leftovers: a plan with no answer names the limit that blocks it (the planner's
1-3-rank formations: status unknown, exit 3; the Infiltrate rule "out of sight, or more than 12"")."""

from __future__ import annotations

import json

import yaml
from typer.testing import CliRunner

from planner.cli.commands import app

MARINE = {"profile": "legion-tactical-marine"}


def _scenario(tmp_path, name: str, width: float, depth: float, zones: list, mine: dict, enemy: list) -> str:
    data = {"ruleset": "hh2", "battlefield": {"width": width, "depth": depth}, "deployment_zones": zones,
            "goals": [{"kind": "near_point", "x": width / 2, "y": depth / 2}],
            "armies": [{"player": "red", "units": [mine]},
                       {"player": "blue", "units": [{"id": "tac", "models": enemy}]}]}
    path = tmp_path / name
    path.write_text(yaml.safe_dump(data))
    return str(path)


def _plan(path: str, tmp_path) -> tuple[int, dict]:
    out = tmp_path / "plan.json"
    res = CliRunner().invoke(app, ["plan", path, "--time-limit", "30", "--json", str(out)])
    return res.exit_code, json.loads(out.read_text())


def test_a_300_model_unit_no_formation_fits_names_the_planners_formations_as_the_limit(tmp_path):
    zones = [{"id": "red-zone", "player": "red", "polygon": [[0, 0], [72, 0], [72, 12], [0, 12]]},
             {"id": "blue-zone", "player": "blue", "polygon": [[0, 36], [72, 36], [72, 48], [0, 48]]}]
    path = _scenario(tmp_path, "horde.yaml", 72, 48, zones, {"id": "horde", "place": True, "models": [MARINE] * 300},
                     [{**MARINE, "x": 36, "y": 40}])
    code, data = _plan(path, tmp_path)
    # the planner's formations, not the rules, leave no plan: no answer (exit 3), not a proof (session 14)
    assert code == 3 and (data["status"], data["limit"]) == ("unknown", "formations")
    (c,) = data["conflicts"]
    # 3 ranks of 100 32 mm bases shoulder to shoulder: 100 x (1.26" + the formation gap) across, > 72"
    assert "the limit is the planner's formations, not the rules" in c["message"]
    assert 'the most compact of them, 3x100@90 (150.7" x 4.3"), does not fit in its deployment zone (72" x 12")' \
        in c["message"]
    assert c["message"] in data["message"]
    # the rule is the zone's (the formations, wider than the table, were rejected off the battlefield first)
    assert c["rules"] == ["hh2.deployment.wholly_within_zone"]
    assert c["message"].startswith("unit horde: no formation of the planner fits wholly within its deployment zone "
                                   "red-zone (")


def test_a_unit_whose_formations_fit_says_nothing_of_formations(tmp_path):
    # the same unit of 30 models fits (3 x 10): the 16" table's conflict is the Infiltrate rule
    zones = [{"id": "red-zone", "player": "red", "polygon": [[0, 0], [16, 0], [16, 3], [0, 3]]},
             {"id": "blue-zone", "player": "blue", "polygon": [[0, 13], [16, 13], [16, 16], [0, 16]]}]
    recon = {"id": "recon", "rules": ["Infiltrate"], "setup": "infiltrate", "place": True, "models": [MARINE] * 5}
    path = _scenario(tmp_path, "small.yaml", 16, 16, zones, recon,
                     [{**MARINE, "x": 8, "y": 14}, {**MARINE, "x": 9.5, "y": 14}])
    code, data = _plan(path, tmp_path)
    assert (code, data["status"], data["limit"]) == (3, "unknown", "grid")  # over the grid only
    (c,) = data["conflicts"]
    assert "hh2.infiltrate.hidden" in c["rules"]
    # the rule that blocks, in its own words: hidden, or more than 12" in plain sight
    assert 'out of sight of every enemy unit or more than 12" from them all (seen by enemy unit tac)' in c["message"]
    assert "formations" not in c["message"]


# ------------------------------------------------------------------ 3: a piece a model stands in; blocked or clear
FLOOR = """
ruleset: hh2
battlefield: {width: 72, depth: 48}
deployment_zones:
  - {id: red-zone, player: red, polygon: [[0, 0], [72, 0], [72, 14], [0, 14]]}
  - {id: blue-zone, player: blue, polygon: [[0, 36], [72, 36], [72, 48], [0, 48]]}
terrain:
  - id: t-ruin
    kind: area
    traits: [blocks_line_of_sight]
    pieces:
      - footprint: [[30, 20], [42, 20], [42, 21], [30, 21]]
        height_in: 6.0
      - footprint: [[30, 21], [42, 21], [42, 27], [30, 27]]
        height_in: 1.0
    floors:
      - {height_in: 0.0}
      - height_in: 3.0
        footprint: [[30, 21], [42, 21], [42, 27], [30, 27]]
  - {id: t-wall, kind: solid, traits: [blocks_line_of_sight], height_in: 6.0,
     footprint: [[50, 20], [62, 20], [62, 21], [50, 21]]}
armies:
  - player: blue
    units:
      - {id: tac, models: [{profile: legion-tactical-marine, x: 36, y: 11}]}
      - {id: tac2, models: [{profile: legion-tactical-marine, x: 56, y: 11}]}
  - player: red
    units:
      - {id: recon, rules: [Infiltrate], setup: infiltrate, models: [{profile: legion-tactical-marine, x: 36, y: 24, z: 3.0}]}
      - {id: scouts, rules: [Infiltrate], setup: infiltrate, models: [{profile: legion-tactical-marine, x: 56, y: 22.5}]}
"""


def _hidden_findings(tmp_path) -> dict[str, dict]:
    path = tmp_path / "floor.yaml"
    path.write_text(FLOOR)
    out = tmp_path / "r.json"
    res = CliRunner().invoke(app, ["check", str(path), "--json", str(out)])
    assert res.exit_code == 1, res.output
    return {u["unit"]: f for u in json.loads(out.read_text())["units"] for f in u["findings"]
            if f["rule"] == "hh2.infiltrate.hidden"}


def test_a_model_on_an_upper_floor_is_seen_through_its_own_features_piece_and_the_finding_says_why(tmp_path):
    f = _hidden_findings(tmp_path)["recon"]
    assert not f["passed"]
    # the line from tac crosses the ruin's 6" piece below its top: not blocked, as recon stands in the ruin
    assert ('it crosses t-ruin piece 0 (top 6") at 3.33", below its top, and is not blocked by it: model recon/1 '
            "stands in t-ruin (a ruling: an area feature does not block the sight of a model standing in it") \
        in f["message"]
    assert "RULES.md §1.10" in f["message"]


def test_a_hidden_finding_says_the_centre_line_is_blocked_not_that_it_passes(tmp_path):
    f = _hidden_findings(tmp_path)["scouts"]
    assert f["passed"]
    assert 'the centre line is blocked by t-wall (top 6"): it runs at' in f["message"]
    assert "the centre line passes" not in f["message"]
    (p,) = [p for p in f["evidence"]["sight_passes"] if p["feature"] == "t-wall"]
    assert p["blocks"] and p["line_in"] < p["top_in"]


# ------------------------------------------------------------------ 4: each violation names every failing model
def test_check_json_violations_name_every_failing_model_and_the_schema_says_so(tmp_path):
    from pathlib import Path

    short_edge = Path(__file__).resolve().parents[1] / "scenarios" / "short-edge-chogorian-vs-berserkers.yaml"
    out = tmp_path / "r.json"
    res = CliRunner().invoke(app, ["check", str(short_edge), "--json", str(out)])
    assert res.exit_code == 1, res.output
    data = json.loads(out.read_text())
    (v,) = [v for v in data["violations"] if v["rule"] == "hh2.infiltrate.distance" and v["unit"] == "ws-falcons-claws"]
    assert v["model"] == "2" and v["failing_models"] == ["2", "3"]
    assert [(d["model"], d["measured_to"], d["detail"]) for d in v["failing_details"]] == [
        ("2", "we-tactical-1/1", '8.500" from we-tactical-1/1'), ("3", "we-tactical-1/6", '8.500" from we-tactical-1/6')]
    # the same as the finding's, for every violation
    findings = {(f["rule"], u["unit"]): f for u in data["units"] for f in u["findings"] if not f["passed"]}
    for v in data["violations"]:
        f = findings[v["rule"], v["unit"]]
        assert (v["failing_models"], v["failing_details"]) == (f["failing_models"], f["failing_details"])
    res = CliRunner().invoke(app, ["schema", "report"])
    viol = json.loads(res.output)["$defs"]["Violation"]["properties"]
    assert viol["failing_details"]["items"] == {"$ref": "#/$defs/FailingModel"}
    assert "every one is in failing_models" in viol["model"]["description"]


# ------------------------------------------------------------------ 5: JSON measures rounded to 1e-9 in, in one place
NINE = """
ruleset: hh2
battlefield: {width: 72, depth: 48}
deployment_zones:
  - {id: red-zone, player: red, polygon: [[0, 0], [72, 0], [72, 12], [0, 12]]}
  - {id: blue-zone, player: blue, polygon: [[0, 36], [72, 36], [72, 48], [0, 48]]}
armies:
  - player: red
    units:
      - {id: tac, type: Infantry, models: [{base: {diameter_mm: 25.4}, x: 36, y: 9.9}]}
  - player: blue
    units:
      - {id: recon, type: Infantry, rules: [Infiltrate], setup: infiltrate,
         models: [{base: {diameter_mm: 25.4}, x: 36, y: 19.9}]}
"""


def test_an_exact_9_inches_reads_9_in_json_as_in_the_text_and_is_not_more_than_9(tmp_path):
    import planner
    from planner.legality.report import MEASURE_DECIMALS, json_measure

    path = tmp_path / "nine.yaml"
    path.write_text(NINE)
    # 1" bases, centres 10" apart: closest points exactly 9" apart, which the float maths gives as 8.999999999999998
    (raw,) = [f for u in planner.check_deployment(planner.load_scenario(str(path))).units for f in u.findings
              if f.rule == "hh2.infiltrate.distance"]
    assert raw.measured != 9.0 and abs(raw.measured - 9.0) < 1e-12  # the record keeps the value measured
    out = tmp_path / "r.json"
    res = CliRunner().invoke(app, ["check", str(path), "--json", str(out)])
    assert res.exit_code == 1, res.output  # exactly 9" is not more than 9"
    assert '9.000" from enemy unit tac' in res.output
    text = out.read_text()
    (f,) = [f for u in json.loads(text)["units"] for f in u["findings"] if f["rule"] == "hh2.infiltrate.distance"]
    assert f["measured"] == 9.0 and f["margin"] == 0.0 and not f["passed"]
    (v,) = [v for v in json.loads(text)["violations"] if v["rule"] == "hh2.infiltrate.distance"]
    assert v["measured"] == 9.0
    assert "8.99999" not in text and "-0.0," not in text
    assert MEASURE_DECIMALS == 9 and json_measure(-1e-15) == 0.0 and json_measure(3) == 3
