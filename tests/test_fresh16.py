"""Small findings of the session-16 new user (/work/notes/s16/fresh16.md, finding 7)."""

from __future__ import annotations

from pathlib import Path

import yaml
from typer.testing import CliRunner

from planner.cli.commands import app


def test_very_bulky_in_a_scenario_is_refused_naming_the_form_to_write(tmp_path: Path):
    # the importer reads a roster's "Very Bulky" as Bulky (3); a scenario written by hand must say
    # "Bulky (3)", and the error says so (it listed "Bulky" alone)
    data = {"ruleset": "hh2", "battlefield": {"width": 72, "depth": 48},
            "deployment_zones": [{"id": "z", "player": "red", "polygon": [[0, 0], [72, 0], [72, 12], [0, 12]]}],
            "armies": [{"player": "red", "units": [{"id": "u", "type": "Infantry", "rules": ["Very Bulky"],
                                                   "models": [{"base": {"diameter_mm": 32}, "x": 5, "y": 5}]}]}]}
    path = tmp_path / "vb.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    r = CliRunner().invoke(app, ["check", str(path)])
    assert r.exit_code == 2
    said = " ".join(r.output.split())
    assert "field armies[0].units[0].rules: unknown special rule 'Very Bulky'" in said
    assert "Bulky (X) (e.g. 'Bulky (3)' for Very Bulky; other rules go in other_rules)" in said
    data["armies"][0]["units"][0]["rules"] = ["Bulky (3)"]
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    assert CliRunner().invoke(app, ["check", str(path)]).exit_code == 0
