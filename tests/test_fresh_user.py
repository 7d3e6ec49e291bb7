"""A fresh user's findings, each on a real file through the command line (or the web API): an
unknown key named with the field it may be, --params named, singular words for one unit, a
scenario with no units says so, /api/check says which units are still to place."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.test_output_paths import run as run_in

ROOT = Path(__file__).resolve().parents[1]
ASSET = ROOT / "tests" / "assets" / "web-infiltrate.yaml"


run = run_in  # the command line in a folder (tests/test_output_paths.py)


def test_a_typo_of_a_field_names_the_unknown_key_and_the_field(tmp_path):
    data = yaml.safe_load(ASSET.read_text())
    unit = data["armies"][0]["units"][0]
    unit["modles"] = unit.pop("models")
    (tmp_path / "s.yaml").write_text(yaml.safe_dump(data))
    r = run(["check", "s.yaml"], tmp_path)
    assert r.exit_code == 2
    assert ("s.yaml: field armies[0].units[0].models: Field required; the key 'modles' here is not a field "
            "(did you mean 'models'?)") in r.output
    assert "more problem" not in r.output  # the two errors were the one mistake


def test_generate_params_folder_names_the_option(tmp_path):
    (tmp_path / "adir").mkdir()
    r = run(["generate", "--count", "2", "--out", "gx", "--params", "adir"], tmp_path)
    assert r.exit_code == 2
    assert "adir: field --params: is a folder, not a parameter file" in r.output
    assert not (tmp_path / "gx").exists()


def test_hidden_from_one_enemy_unit_is_singular(tmp_path):
    data = yaml.safe_load(ASSET.read_text())
    data["armies"][1]["units"][1]["models"][0]["y"] = 12.27  # 9.01" from the one red unit, behind the wall
    (tmp_path / "s.yaml").write_text(yaml.safe_dump(data))
    r = run(["check", "s.yaml", "--json", "r.json"], tmp_path)
    assert r.exit_code in (0, 1), r.output
    report = json.loads((tmp_path / "r.json").read_text())
    texts = [f["message"] for u in report["units"] for f in u["findings"] if f["rule"] == "hh2.infiltrate.hidden"]
    assert texts and all("hidden from the one deployed enemy unit" in t for t in texts), texts
    assert not any("all 1 " in t for t in texts)


def test_a_scenario_with_no_units_is_invalid_input_for_check(tmp_path):
    """Nothing to check is not a legal deployment (fix16: was exit 0 with a warning)."""
    (tmp_path / "only.yaml").write_text("ruleset: hh2\n")
    for fmt in ("text", "markdown"):
        r = run(["check", "only.yaml", "--format", fmt], tmp_path)
        assert r.exit_code == 2
        assert r.stderr == ("error: only.yaml: field armies: the scenario has no units to check (add armies with "
                            "units)\n")
        assert "Legal" not in r.output and "LEGAL" not in r.output


def test_api_check_names_the_units_still_to_place(tmp_path):
    pytest.importorskip("fastapi")
    pytest.importorskip("httpx")
    from fastapi.testclient import TestClient

    from planner.web.app import create_app

    data = yaml.safe_load(ASSET.read_text())
    with TestClient(create_app(root=tmp_path), raise_server_exceptions=False) as client:
        body = client.post("/api/check", json={"scenario": data}).json()
        assert body["to_place"] == [] and body["message"] == "legal: every rule checked passed"
        for army in data["armies"]:
            for unit in army["units"]:
                unit["place"] = True
                for m in unit["models"]:
                    m.pop("x"), m.pop("y")
        body = client.post("/api/check", json={"scenario": data}).json()
        assert body["report"]["legal"] is True  # the checker's verdict, unchanged
        assert body["to_place"] == ["red-guard", "blue-line", "blue-scouts"]
        assert body["message"] == ("nothing placed yet: all 3 units are still to place (marked place: true, no "
                                   "positions), so no rule was checked")
        data["armies"][0]["units"][0]["models"][0].update(x=18, y=2)
        data["armies"][0]["units"][0]["place"] = False
        body = client.post("/api/check", json={"scenario": data}).json()
        assert body["to_place"] == ["blue-line", "blue-scouts"] and body["message"].startswith("legal so far")
        # no units: refused as the command line refuses it (exit 2), never legal (fresh17 finding 4)
        res = client.post("/api/check", json={"scenario": {"ruleset": "hh2"}})
        assert res.status_code == 400 and "legal" not in res.json()
        assert res.json()["error"].endswith("field armies: the scenario has no units to check (add armies with units)")
