"""What fresh15 found: the arriving unit's own position is not part of the table ``threats`` checks."""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from typer.testing import CliRunner

from planner.cli import app

runner = CliRunner()


def _scenario(tac_y: float) -> dict:
    # inf stands exactly 9.0" from tac (base edge to base edge): its own Infiltrate position is illegal
    return {
        "ruleset": "hh2",
        "battlefield": {"width": 72, "depth": 48},
        "deployment_zones": [
            {"id": "red-zone", "player": "red", "polygon": [[0, 0], [72, 0], [72, 12], [0, 12]]},
            {"id": "blue-zone", "player": "blue", "polygon": [[0, 36], [72, 36], [72, 48], [0, 48]]},
        ],
        "armies": [
            {
                "player": "red",
                "units": [
                    {
                        "id": "tac",
                        "models": [{"base": {"diameter_mm": 32}, "type": "Infantry", "x": 36, "y": tac_y}],
                    }
                ],
            },
            {
                "player": "blue",
                "units": [
                    {
                        "id": "inf",
                        "rules": ["Infiltrate"],
                        "setup": "infiltrate",
                        "models": [
                            {"base": {"diameter_mm": 25}, "type": "Infantry", "x": 36, "y": 20.12204724409449}
                        ],
                    }
                ],
            },
        ],
    }


def _threats(tmp_path: Path, data: dict, name: str) -> tuple[int, str, dict]:
    path, js = tmp_path / f"{name}.yaml", tmp_path / f"{name}.json"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    res = runner.invoke(app, ["threats", str(path), "--enemy-unit", "inf", "--json", str(js)])
    return res.exit_code, res.output, json.loads(js.read_text())


def test_the_arriving_units_own_position_is_not_a_broken_rule_of_the_table(tmp_path):
    code, out, data = _threats(tmp_path, _scenario(10.0), "own")
    assert code == 0, out
    assert data["deployment_legal"] is True and data["deployment_violations"] == []
    assert "not legal" not in out and "hh2.infiltrate.distance" not in out
    assert data["best"]["legal"] is True


def test_a_table_illegal_for_another_reason_still_refuses(tmp_path):
    # tac outside its zone (y 30): the usual refusal before the scan
    code, out, data = _threats(tmp_path, _scenario(30.0), "ill")
    assert code == 1, out
    assert data["status"] == "illegal_table"
    assert [v["rule"] for v in data["violations"]] == ["hh2.deployment.wholly_within_zone"]
    assert "already illegal before threats scans the enemy unit's arrivals" in out


def test_a_type_error_on_a_mapping_says_what_was_given(tmp_path):
    data = _scenario(10.0)
    data["armies"][0]["units"] = {
        "models": [{"base": {"diameter_mm": 32}, "type": "Infantry", "x": 36, "y": 10}]
    }
    path, js = tmp_path / "map.yaml", tmp_path / "map.json"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    res = runner.invoke(app, ["check", str(path), "--json", str(js)])
    assert res.exit_code == 2, res.output
    err = json.loads(js.read_text())
    assert err["location"] == "armies[0].units"
    assert err["error"].endswith("field armies[0].units: Input should be a valid list, got a mapping")
    assert "got a mapping" in res.output


def test_a_text_list_read_as_an_xml_roster_gets_a_hint(tmp_path):
    res = runner.invoke(
        app, ["import-roster", "tests/data/lists40k/gw-app.txt", "--ruleset", "hh2", "--player", "blue"]
    )
    assert res.exit_code == 2, res.output
    assert "not a well-formed XML roster at line 1 column 0" in res.output
    assert "read with --ruleset wh40k10 or wh40k11" in res.output
    # broken XML gets no such hint
    bad = tmp_path / "bad.ros"
    bad.write_text("<roster><force></roster>", encoding="utf-8")
    res = runner.invoke(app, ["import-roster", str(bad), "--ruleset", "hh2", "--player", "blue"])
    assert res.exit_code == 2, res.output
    assert "not a well-formed XML roster" in res.output and "wh40k10" not in res.output


def test_import_tts_on_an_empty_file_says_it_is_empty(tmp_path):
    empty = tmp_path / "empty.json"
    empty.write_text("\n", encoding="utf-8")
    res = runner.invoke(app, ["import-tts", str(empty), "--ruleset", "hh2"])
    assert res.exit_code == 2, res.output
    assert "expected a JSON document, got empty" in res.output and "malformed JSON" not in res.output


def test_next_with_unit_places_that_unit_or_names_the_conflict(tmp_path):
    s = "scenarios/plan-ravenguard-infiltrate.yaml"
    out = tmp_path / "x.yaml"
    res = runner.invoke(
        app, ["plan", s, "--next", "--unit", "rg-breacher", "--out", str(out), "--time-limit", "10"]
    )
    assert res.exit_code == 0, res.output
    assert "placed Breacher Siege Squad, Legion (rg-breacher)" in res.output
    res = runner.invoke(app, ["plan", s, "--next", "--unit", "rg-sabres", "--out", str(tmp_path / "y.yaml")])
    assert res.exit_code == 2, res.output
    assert "the Infiltrate alternation places rg-tactical (player raven-guard) next" in res.output
