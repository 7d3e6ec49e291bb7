"""A new user's findings of session 17 (4 Dec 2026): the printed JSON Schemas' limits, unquoted YAML
values in text fields, the web API on a scenario without units."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from planner.cli.commands import app

SCENARIO = """ruleset: hh2
battlefield: {width: 72, depth: 48}
armies:
  - player: red
    units:
      - id: ID
        type: Infantry
        models: [{base: {diameter_mm: 32}, x: 10, y: 10}]
"""


def _walk(node, path=""):
    if isinstance(node, dict):
        for k, v in node.items():
            yield path, k, v
            yield from _walk(v, f"{path}/{k}")
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _walk(v, f"{path}[{i}]")


@pytest.mark.parametrize("what", ["scenario", "plan", "catalogue", "report"])
def test_the_printed_schemas_use_json_schemas_own_keywords_for_limits(what):
    res = CliRunner().invoke(app, ["schema", what])
    assert res.exit_code == 0
    schema = json.loads(res.output)
    numeric = [(p, k) for p, k, v in _walk(schema)
               if k in ("ge", "le", "gt", "lt") and isinstance(v, int | float)]
    assert numeric == []


def test_an_optional_numbers_limits_bind_a_standard_validator():
    schema = json.loads(CliRunner().invoke(app, ["schema", "scenario"]).output)
    x = schema["$defs"]["Model"]["properties"]["x"]["anyOf"][0]
    assert x == {"type": "number", "minimum": -1000, "maximum": 2000}
    radius = schema["$defs"]["DenyGoal"]["properties"]["radius"]["anyOf"][0]
    assert radius["exclusiveMinimum"] == 0 and radius["maximum"] == 1000
    jsonschema = pytest.importorskip("jsonschema")
    import yaml

    data = yaml.safe_load(SCENARIO)
    jsonschema.validate(data, schema)  # the file itself is valid
    data["armies"][0]["units"][0]["models"][0]["x"] = 5000  # planner check refuses it: so does the schema
    with pytest.raises(jsonschema.ValidationError, match="5000 is greater than the maximum of 2000"):
        jsonschema.validate(data, schema)


@pytest.mark.parametrize(("written", "field", "kind", "value"), [
    ("id: off", "armies[0].units[0].id", "a boolean (unquoted, yes, no, on, off, true and false are one)", "False"),
    ("id: 007", "armies[0].units[0].id", "a number (unquoted, 12 and 007 are one)", "7"),
    ("id: 12", "armies[0].units[0].id", "a number (unquoted, 12 and 007 are one)", "12"),
    ("id: 2024-01-01", "armies[0].units[0].id", "a date (unquoted, 2024-01-01 is one)", "'2024-01-01'"),
])
def test_an_unquoted_value_yaml_reads_as_no_text_says_to_quote_it(tmp_path, written, field, kind, value):
    path = tmp_path / "s.yaml"
    path.write_text(SCENARIO.replace("id: ID", written))
    res = CliRunner().invoke(app, ["check", str(path)])
    assert res.exit_code == 2
    key = field.rsplit(".", 1)[-1]
    assert res.stderr == (f"error: {path}: field {field}: Input should be a valid string, got {kind}: write it in "
                          f"quotes, {key}: \"...\" (value: {value})\n")


def test_a_quoted_value_is_text(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text(SCENARIO.replace("id: ID", 'id: "007"'))
    res = CliRunner().invoke(app, ["check", str(path), "--json", "-"])
    assert res.exit_code == 1  # no deployment zone for red: illegal, but read
    assert json.loads(res.stdout)["units"][0]["unit"] == "007"


# --------------------------------------------------------------------- planner shoot and the table

TABLE = """battlefield: {width: 72, depth: 48}
deployment_zones:
  - {id: red-zone, player: red, polygon: [[0, 0], [72, 0], [72, 12], [0, 12]]}
  - {id: blue-zone, player: blue, polygon: [[0, 36], [72, 36], [72, 48], [0, 48]]}
armies:
  - player: red
    units:
"""
"""The 72\" x 48\" table with 12\" zones, up to the red army's units (YAML)."""

SHOOT = "ruleset: hh2\n" + TABLE + """      - id: shooter
        type: Infantry
        stats: {m: 7, ws: 4, bs: 4, s: 4, t: 4, w: 1, i: 4, a: 1, ld: 8, sv: 3}
        weapons: [{name: Bolt pistol, range_in: 12, s: 4, ap: 5, type: Pistol, shots: 1}]
        models: [{base: {diameter_mm: 32}, x: 36, y: 10}]
  - player: blue
    units:
      - id: target
        type: Infantry
        stats: {m: 7, ws: 4, bs: 4, s: 4, t: 4, w: 1, i: 4, a: 1, ld: 8, sv: 3}
        models: [{base: {diameter_mm: 32}, x: 36, y: Y}]
"""


@pytest.mark.parametrize(("gap", "where"), [(12.0, "within"), (12.01, "OUT OF")])
def test_shoot_says_whether_the_placed_units_are_within_the_weapons_range(tmp_path, gap, where):
    path = tmp_path / "shoot.yaml"
    path.write_text(SHOOT.replace("y: Y", f"y: {10 + 2 * 0.62992125984252 + gap!r}"))
    res = CliRunner().invoke(app, ["shoot", str(path), "--attacker", "shooter", "--target", "target",
                                   "--json", "-"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout[res.stdout.index("{"):])
    note = next(n for n in data["interpretations"] if n.startswith("On the table"))
    assert note.startswith(f"On the table the closest models are {gap:.3f}\" apart: {where} the weapon's 12\" range.")
    assert "range, line of sight and cover are not read" in note
    shown = "note: On the table the closest models are" in res.stderr + res.stdout
    assert shown == (where == "OUT OF")  # out of range is said before the long list


def test_shoot_of_units_not_placed_says_the_table_is_not_read(tmp_path):
    path = tmp_path / "shoot.yaml"
    path.write_text(SHOOT.replace(", x: 36, y: Y", "").replace("      - id: target\n", "      - id: target\n        place: true\n"))
    res = CliRunner().invoke(app, ["shoot", str(path), "--attacker", "shooter", "--target", "target",
                                   "--json", "-"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout[res.stdout.index("{"):])
    assert not any(n.startswith("On the table") for n in data["interpretations"])
    assert any(n.startswith("The dice maths assume the shot is made") for n in data["interpretations"])


def test_exposure_without_stats_says_where_they_come_from():
    from pathlib import Path

    path = Path(__file__).parent.parent / "scenarios" / "long-edge-ravenguard-vs-ironhands.yaml"
    res = CliRunner().invoke(app, ["exposure", str(path), "--player", "raven-guard"])
    assert res.exit_code == 2
    assert res.stderr == (f"error: {path}: field armies[0].units[0].stats: unit 'rg-tactical' has no profile (stats), "
                          "which the exposure needs: give 'stats' (and 'weapons') on the unit, a 'profile' of the "
                          "catalogue, or import a list that carries them (a 40k text or JSON list, a BattleScribe "
                          "roster with profiles)\n")


def test_shoot_errors_name_the_file(tmp_path):
    path = tmp_path / "shoot.yaml"
    path.write_text(SHOOT.replace("y: Y", "y: 30"))
    res = CliRunner().invoke(app, ["shoot", str(path), "--attacker", "shooter", "--target", "nobody"])
    assert res.exit_code == 2
    assert res.stderr == f"error: {path}: field --target: no unit 'nobody' in the scenario (value: 'nobody')\n"


def test_version():
    from importlib.metadata import version

    import planner

    res = CliRunner().invoke(app, ["--version"])
    assert res.exit_code == 0
    assert res.stdout == f"planner (deployment-planner) {planner.__version__}\n"
    assert planner.__version__ == version("deployment-planner")  # the package's own, not a second number


DS = "ruleset: RULESET\n" + TABLE + """      - id: ds
        rules: [Deep Strike]
        setup: {method: reserves, arrival: deep_strike}
        models: [{base: {diameter_mm: 25}, type: Infantry}]
  - player: blue
    units:
      - id: enemy
        models: [{base: {diameter_mm: 32}, type: Infantry, x: 36, y: 24}]
"""


@pytest.mark.parametrize("ruleset", ["hh2", "wh40k7"])
@pytest.mark.parametrize("at", ["80,24", "-0.01,24"])
def test_deepstrike_an_aim_point_off_the_table_prints_only_the_error(tmp_path, ruleset, at):
    path = tmp_path / "ds.yaml"
    path.write_text(DS.replace("RULESET", ruleset))
    res = CliRunner().invoke(app, ["deepstrike", str(path), "--unit", "ds", "--at", at])
    assert res.exit_code == 2
    assert res.stdout == ""  # no header of a run that never starts
    assert res.stderr == f"error: field --at: the aim point must be on the 72\" x 48\" battlefield (value: '{at}')\n"
    ok = CliRunner().invoke(app, ["deepstrike", str(path), "--unit", "ds", "--at", "0,24"])  # the edge is on it
    assert ok.exit_code in (0, 1) and ok.stdout.startswith("Deep Strike")


def test_help_reflows_a_docstrings_paragraphs():
    res = CliRunner().invoke(app, ["deepstrike", "--help"], env={"COLUMNS": "200", "TERMINAL_WIDTH": "200"})
    assert res.exit_code == 0
    # one paragraph of the docstring, broken over source lines, reads as one line on a wide terminal
    assert "each mishap result and trigger, dangerous terrain, a goal point; hh2: the Deep Strike Assault" in res.stdout
    assert "wh40k10.deepstrike.distance" in res.stdout  # the rule ids as written (no markdown emphasis)
