"""A Scout first position given as [x, y] (no facing): the ruling (the model stood at its end
facing) is said, never silent (a fresh user found a 10"x4" HH2 vehicle pivoting from facing 0
to 90 judged legal at 11.5" when [x, y, 0] measures 14.5"). For a round base facing changes
nothing and nothing is said. Real files, the real command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from planner.cli import app

NOTE = ("first facing not given (model 1: taken as its end facing 90); give [x, y, facing] in setup.from to "
        "measure the pivot")
WARNING = f"warning: unit rhino: {NOTE}"


def hh2_scenario(first: list[float], base: dict) -> dict:
    return {"ruleset": "hh2", "battlefield": {"width": 72, "depth": 48},
            "deployment_zones": [
                {"id": "red-zone", "player": "red", "polygon": [[0, 0], [72, 0], [72, 12], [0, 12]]},
                {"id": "blue-zone", "player": "blue", "polygon": [[0, 36], [72, 36], [72, 48], [0, 48]]}],
            "armies": [
                {"player": "red", "units": [{"id": "rhino", "type": "vehicle", "rules": ["Scout"],
                                             "setup": {"method": "scout", "first": "deployment_zone", "from": [first]},
                                             "models": [{"base": base, "x": 30, "y": 17.5, "facing": 90}]}]},
                {"player": "blue", "units": [{"id": "foe", "type": "infantry",
                                              "models": [{"base": {"diameter_mm": 32}, "x": 60, "y": 44}]}]}]}


def wh40k10_scenario(first: list[float]) -> dict:
    # a Rhino's hull (4.6" x 3.6"), Scouts 6": from facing 0 to 90 the pivot adds 0.5" to a 5.8" move
    return {"ruleset": "wh40k10", "battlefield": {"width": 60, "depth": 44},
            "deployment_zones": [
                {"id": "blue-dz", "player": "blue", "polygon": [[0, 0], [60, 0], [60, 12], [0, 12]]},
                {"id": "red-dz", "player": "red", "polygon": [[0, 32], [60, 32], [60, 44], [0, 44]]}],
            "armies": [
                {"player": "blue", "units": [{"id": "rhino", "keywords": ["VEHICLE"], "abilities": ['Scouts 6"'],
                                              "setup": {"method": "scout", "from": [first]},
                                              "models": [{"base": {"length_in": 4.6, "width_in": 3.6},
                                                          "x": 30, "y": 11.8, "facing": 90}]}]},
                {"player": "red", "units": [{"id": "foe", "keywords": ["INFANTRY"],
                                             "models": [{"base": {"diameter_mm": 32}, "x": 30, "y": 40}]}]}]}


def check(tmp_path: Path, data: dict) -> tuple[int, str, dict]:
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump(data))
    r = CliRunner().invoke(app, ["check", str(path), "-v", "--json", str(tmp_path / "r.json")])
    return r.exit_code, " ".join(r.stderr.split()), json.loads((tmp_path / "r.json").read_text())


def message(report: dict, rule: str) -> tuple[str, float | None]:
    f = next(f for u in report["units"] if u["unit"] == "rhino" for f in u["findings"] if f["rule"] == rule)
    return f["message"], f.get("measured")


HULL = {"length_in": 10, "width_in": 4}


def test_hh2_a_vehicle_without_a_first_facing_is_judged_at_its_end_facing_and_says_so(tmp_path):
    code, err, report = check(tmp_path, hh2_scenario([30, 6], HULL))
    assert code == 0
    assert WARNING in err
    msg, measured = message(report, "hh2.scout.distance")
    assert msg.endswith(f"11.500\" from where it stood; {NOTE}") and measured == pytest.approx(11.5)
    assert message(report, "hh2.scout.first_position")[0].endswith(f"; {NOTE}")


def test_hh2_the_first_facing_given_measures_the_pivot(tmp_path):
    code, err, report = check(tmp_path, hh2_scenario([30, 6, 0], HULL))
    assert code == 1
    assert "first facing not given" not in err
    msg, measured = message(report, "hh2.scout.distance")
    assert measured == pytest.approx(14.5) and "first facing" not in msg


@pytest.mark.parametrize("base", [{"diameter_mm": 100}, {"length_mm": 60, "width_mm": 60}])
def test_hh2_a_round_base_needs_no_first_facing(tmp_path, base):
    code, err, report = check(tmp_path, hh2_scenario([30, 6], base))
    assert "first facing" not in err
    assert "first facing" not in message(report, "hh2.scout.distance")[0]


def test_wh40k10_a_rhino_without_a_first_facing_says_so(tmp_path):
    code, err, report = check(tmp_path, wh40k10_scenario([30, 6]))
    assert code == 0
    assert WARNING in err
    msg, measured = message(report, "wh40k10.scouts.distance")
    assert msg == f"model 1 moved 5.800\" of up to 6\"; {NOTE}" and measured == pytest.approx(5.8)
    assert message(report, "wh40k10.scouts.first_position")[0].endswith(f"; {NOTE}")


def test_wh40k10_a_rhino_with_its_first_facing_is_measured_with_the_pivot(tmp_path):
    code, err, report = check(tmp_path, wh40k10_scenario([30, 6, 0]))
    assert code == 1
    assert "first facing" not in err
    msg, measured = message(report, "wh40k10.scouts.distance")
    assert measured == pytest.approx(6.3) and "first facing" not in msg
