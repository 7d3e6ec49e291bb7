"""What fix16 fixed (a fresh user's CLI findings): threats says it disregards the enemy unit's own
positions and takes ``--unit``; range errors of number options in the house words; ``check`` of a
scenario without units; the model limit's error location; a generate Job's unknown kind."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from planner.cli import app
from planner.errors import ScenarioError

runner = CliRunner()


def _scenario(inf_positioned: bool = True) -> dict:
    inf_model: dict = {"base": {"diameter_mm": 25}, "type": "Infantry"}
    if inf_positioned:
        inf_model |= {"x": 36, "y": 30}
    return {
        "ruleset": "hh2",
        "battlefield": {"width": 72, "depth": 48},
        "deployment_zones": [
            {"id": "red-zone", "player": "red", "polygon": [[0, 0], [72, 0], [72, 12], [0, 12]]},
            {"id": "blue-zone", "player": "blue", "polygon": [[0, 36], [72, 36], [72, 48], [0, 48]]},
        ],
        "armies": [
            {"player": "red", "units": [
                {"id": "tac", "models": [{"base": {"diameter_mm": 32}, "type": "Infantry", "x": 36, "y": 6}]}]},
            {"player": "blue", "units": [
                {"id": "inf", "rules": ["Infiltrate"], "setup": "infiltrate", "models": [inf_model],
                 **({} if inf_positioned else {"place": True})}]},
        ],
    }


def _write(tmp_path: Path, data: dict, name: str = "s") -> Path:
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def _threats(path: Path, *opts: str) -> tuple[int, str, str, dict]:
    js = path.with_suffix(".json")
    res = runner.invoke(app, ["threats", str(path), *opts, "--grid", "4", "--json", str(js)])
    return res.exit_code, res.stdout, res.stderr, json.loads(js.read_text())


# --- 2. threats --unit ID, --enemy-unit kept as an alias

def test_threats_unit_and_enemy_unit_give_the_same_answer(tmp_path):
    path = _write(tmp_path, _scenario(True))
    a = _threats(path, "--unit", "inf")
    b = _threats(path, "--enemy-unit", "inf")
    for r in (a, b):
        r[3].pop("wall_time_s")
    assert a[0] == b[0] == 0
    assert a[3] == b[3] and a[3]["best"] is not None and a[3]["enemy_unit"] == "inf"


def test_threats_help_lists_both_spellings():
    res = runner.invoke(app, ["threats", "--help"], env={"COLUMNS": "200", "TERMINAL_WIDTH": "200"})
    assert res.exit_code == 0
    assert "--unit" in res.stdout and "--enemy-unit" in res.stdout


def test_an_unknown_unit_names_the_option(tmp_path):
    path = _write(tmp_path, _scenario(True))
    res = runner.invoke(app, ["threats", str(path), "--unit", "nope"])
    assert res.exit_code == 2
    assert "field --unit: no unit with this id; units: inf, tac (value: 'nope')" in res.stderr
# --- 1. threats names the enemy unit whose positions it disregards

def test_threats_warns_that_the_enemy_units_own_positions_are_disregarded(tmp_path):
    code, out, err, data = _threats(_write(tmp_path, _scenario(True)), "--unit", "inf")
    assert code == 0, out + err
    want = ("unit inf already has positions in the scenario: threats disregards them (inf is treated as not "
            "yet placed, the unit arriving)")
    assert data["warnings"] == [want]
    assert f"warning: {want}" in err


def test_threats_without_positions_for_the_enemy_unit_warns_of_nothing(tmp_path):
    code, out, err, data = _threats(_write(tmp_path, _scenario(False)), "--unit", "inf")
    assert code == 0, out + err
    assert data["warnings"] == [] and "disregards" not in err + out


def test_the_warning_names_a_joined_character_with_a_position(tmp_path):
    data = _scenario(True)
    data["armies"][1]["units"].append({"id": "ic", "setup": {"joined": "inf"}, "rules": ["Infiltrate"],
                                       "models": [{"base": {"diameter_mm": 25}, "type": "Infantry",
                                                   "x": 38, "y": 30}]})
    code, out, err, rep = _threats(_write(tmp_path, data), "--unit", "inf")
    assert code in (0, 1), out + err
    assert rep["warnings"] == ["units ic, inf already have positions in the scenario: threats disregards them "
                               "(inf is treated as not yet placed, the unit arriving)"]


def test_the_warning_is_in_the_illegal_table_report_too(tmp_path):
    data = _scenario(True)
    data["armies"][0]["units"][0]["models"][0]["y"] = 30  # tac outside its zone: refused before the scan
    code, out, err, rep = _threats(_write(tmp_path, data), "--unit", "inf")
    assert code == 1 and rep["status"] == "illegal_table"
    assert rep["warnings"][0].startswith("unit inf already has positions")




# --- 4. the README says which rulesets generate labels, as the code does

def test_the_readme_says_legality_and_puzzle_labels_are_hh2_only():
    from planner.generate.engine import check_ruleset
    from planner.rules.registry import all_rulesets

    assert [r.id for r in all_rulesets() if r.GENERATES_LEGALITY_LABELS] == ["hh2"]
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    assert "the legality and puzzle labels are Horus Heresy 2.0 (`hh2`) only" in readme
    for rs in ("wh40k5", "wh40k7", "wh40k10", "wh40k11"):  # what the README says of Deep Strike
        assert check_ruleset(rs, ("deepstrike",)) == rs
        with pytest.raises(ScenarioError, match="exist for hh2 only"):
            check_ruleset(rs, ("legality",))
    with pytest.raises(ScenarioError, match="Deep Strike Assault"):
        check_ruleset("hh2", ("deepstrike",))


# --- 5. check of a scenario without units: invalid input (exit 2), not a vacuous "legal"

def test_check_without_units_is_invalid_input_with_the_error_report(tmp_path):
    for name, armies in (("none", []), ("empty", [{"player": "red", "units": []}])):
        path = _write(tmp_path, {"ruleset": "hh2", "battlefield": {"width": 72, "depth": 48}, "armies": armies},
                      name)
        js = tmp_path / f"{name}.json"
        res = runner.invoke(app, ["check", str(path), "--json", str(js)])
        assert res.exit_code == 2
        assert res.stderr == f"error: {path}: field armies: the scenario has no units to check (add armies with units)\n"
        assert json.loads(js.read_text()) == {
            "ok": False, "exit_code": 2, "file": str(path), "location": "armies", "value": None,
            "error": f"{path}: field armies: the scenario has no units to check (add armies with units)"}


def test_check_with_units_but_nothing_placed_is_as_before(tmp_path):
    """Its own error, unchanged: the first model without a position, with the hint to plan it."""
    data = _scenario(False)
    data["armies"][0]["units"][0]["models"][0].pop("x")
    data["armies"][0]["units"][0]["models"][0].pop("y")
    data["armies"][0]["units"][0]["place"] = True
    res = runner.invoke(app, ["check", str(_write(tmp_path, data)), "--json", "-"])
    assert res.exit_code == 2, res.output
    report = json.loads(res.stdout)
    assert report["location"] == "armies[0].units[0].models[0].x"
    assert "no units to check" not in report["error"] and "plan it first" in report["error"]


# --- 6. the scenario's model limit: its error has a location (armies) and the count as its value

def test_the_scenario_model_limit_error_names_armies_and_the_count(tmp_path):
    from planner.schema import MAX_MODELS

    per_unit = 100
    units = MAX_MODELS // per_unit + 1  # one unit over: MAX_MODELS + 100 models
    model = {"base": {"diameter_mm": 25}, "x": 1, "y": 1}
    data = {"ruleset": "hh2", "battlefield": {"width": 72, "depth": 48},
            "armies": [{"player": "red", "units": [{"id": f"u{i}", "models": [model] * per_unit}
                                                   for i in range(units)]}]}
    path = tmp_path / "big.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    js = tmp_path / "err.json"
    res = runner.invoke(app, ["check", str(path), "--json", str(js)])
    n = units * per_unit
    line = f"{path}: field armies: the scenario has {n} models; at most {MAX_MODELS} are allowed (value: {n})"
    assert (res.exit_code, res.stderr) == (2, f"error: {line}\n")
    assert json.loads(js.read_text()) == {"ok": False, "exit_code": 2, "error": line, "file": str(path),
                                          "location": "armies", "value": n}


# --- 7. a generate Job's kinds: an unknown one fails at construction (as --kind does), naming the field

def test_a_job_with_an_unknown_kind_fails_at_construction():
    from planner.generate.engine import Job

    with pytest.raises(ScenarioError) as e:
        Job(seed=1, kinds=("legality", "bogus"), ruleset=None, params={})
    assert (e.value.location, e.value.value) == ("kinds", "bogus")
    assert str(e.value) == ("field kinds: unknown kind; give one or more of legality, puzzle, deepstrike, each once "
                            "(value: 'bogus')")
    for kinds, shown in (((), []), (("puzzle", "puzzle"), ["puzzle", "puzzle"]), ("legality", "legality")):
        with pytest.raises(ScenarioError, match="give one or more of legality, puzzle, deepstrike") as e:
            Job(seed=1, kinds=kinds, ruleset=None, params={})  # type: ignore[arg-type]
        assert (e.value.location, e.value.value) == ("kinds", shown)


def test_generate_kind_and_the_resumed_manifest_say_the_same(tmp_path):
    res = runner.invoke(app, ["generate", "--count", "1", "--out", str(tmp_path / "d"), "--kind", "legality,bogus"])
    assert (res.exit_code, res.stderr) == (2, "error: field --kind: unknown kind; give one or more of legality, "
                                              "puzzle, deepstrike, comma-separated, each once (value: "
                                              "'legality,bogus')\n")
    out = tmp_path / "run"
    res = runner.invoke(app, ["generate", "--count", "1", "--out", str(out), "--seed", "3"])
    assert res.exit_code == 0, res.output
    manifest = out / "manifest.json"
    m = json.loads(manifest.read_text())
    m["kinds"] = ["legalty"]
    manifest.write_text(json.dumps(m))
    res = runner.invoke(app, ["generate", "--count", "2", "--out", str(out), "--seed", "3", "--resume",
                              "--json", str(tmp_path / "err.json")])
    line = (f"{manifest}: field kinds: unknown kind; give one or more of legality, puzzle, deepstrike, each once "
            "(value: 'legalty')")
    assert (res.exit_code, res.stderr) == (2, f"error: {line}\n")
    assert json.loads((tmp_path / "err.json").read_text()) == {
        "ok": False, "exit_code": 2, "error": line, "file": str(manifest), "location": "kinds", "value": "legalty"}
