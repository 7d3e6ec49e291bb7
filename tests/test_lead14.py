"""A fresh user's checker findings (session 14): an Independent Character set up out of coherency is
reported once, under the IC; two enemy Infiltrators without ``setup.order`` are warned about; the
planner measures a later enemy Infiltrator exactly as the checker does (case 3, one predicate)."""

from __future__ import annotations

import copy
from pathlib import Path

import yaml
from typer.testing import CliRunner

from planner.cli import app
from planner.legality.checker import check_deployment
from planner.legality.hh2 import deployed_before, unordered_infiltrators
from planner.world import World, load_scenario

runner = CliRunner()

_ZONES = [
    {"id": "red-zone", "player": "red", "polygon": [[0, 0], [72, 0], [72, 12], [0, 12]]},
    {"id": "blue-zone", "player": "blue", "polygon": [[0, 36], [72, 36], [72, 48], [0, 48]]},
]


def _ic_table(praetor_x: float, host_x: tuple[float, ...] = ()) -> dict:
    """Infantry models (32 mm) of tac-b at (x, 41) for x in ``host_x`` (default: two, 1" apart, the
    second at x=35), the Praetor (40 mm IC) joined to it at (praetor_x, 41)."""
    host_x = host_x or (35 - 2 * _R32 - 1.0, 35.0)
    inf = {"base": {"diameter_mm": 32}, "type": "Infantry"}
    return {
        "ruleset": "hh2", "battlefield": {"width": 72, "depth": 48}, "deployment_zones": _ZONES,
        "armies": [
            {"player": "red", "units": [{"id": "tac", "models": [inf | {"x": 36, "y": 5}]}]},
            {"player": "blue", "units": [
                {"id": "tac-b", "models": [inf | {"x": x, "y": 41} for x in host_x]},
                {"id": "praetor", "rules": ["Independent Character"],
                 "setup": {"method": "deployment_zone", "joined": "tac-b"},
                 "models": [{"base": {"diameter_mm": 40}, "type": "Infantry", "x": praetor_x, "y": 41}]},
            ]},
        ],
    }


def _world(tmp_path: Path, data: dict) -> World:
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return load_scenario(path, require_positions=True)


def _broken(report) -> dict[str, list]:
    return {u.unit: sorted(f.rule for f in u.findings if not f.passed) for u in report.units
            if any(not f.passed for f in u.findings)}


_R32 = 32 / 25.4 / 2  # radius of a 32 mm base, inches
_R40 = 40 / 25.4 / 2


def test_ic_out_of_range_is_reported_once_under_the_ic(tmp_path):
    # 2.1" gap between the praetor and tac-b's model at x=35: out of coherency (2")
    x = 35 + _R32 + 2.1 + _R40
    report = check_deployment(_world(tmp_path, _ic_table(x)))
    assert _broken(report) == {"praetor": ["hh2.ic.coherency"]}
    ic = next(f for u in report.units if u.unit == "praetor" for f in u.findings if f.rule == "hh2.ic.coherency")
    assert abs(float(ic.measured) - 2.1) < 1e-9
    host = next(f for u in report.units if u.unit == "tac-b" for f in u.findings if f.rule == "hh2.coherency")
    assert host.passed


def test_ic_just_within_range_passes_both(tmp_path):
    x = 35 + _R32 + 2.0 + _R40  # exactly 2.0": within
    report = check_deployment(_world(tmp_path, _ic_table(x)))
    assert _broken(report) == {}


def test_a_model_of_the_unit_cut_off_with_the_ic_is_named_under_the_unit(tmp_path):
    # tac-b's fourth model and the praetor stand together 3" from the other three: the IC is within
    # range of its unit (of model 4), the unit is split; the unit's finding names its model 4 and the
    # IC by its unit ("praetor/1"), the IC's own finding passes
    step = 2 * _R32 + 1.0
    host = (20.0, 20 + step, 20 + 2 * step, 20 + 3 * step + 2.0)
    x = host[-1] + _R32 + 0.5 + _R40
    report = check_deployment(_world(tmp_path, _ic_table(x, host)))
    assert _broken(report) == {"tac-b": ["hh2.coherency"]}
    host = next(f for u in report.units if u.unit == "tac-b" for f in u.findings if f.rule == "hh2.coherency")
    named = {host.model, *(f.model for f in host.failing_details)}
    assert named == {"4", "praetor/1"}  # both cut off from models 1-3; the IC named with its unit
    assert abs(float(host.measured) - 3.0) < 1e-9


def test_cli_ic_message_once(tmp_path):
    x = 35 + _R32 + 2.1 + _R40
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump(_ic_table(x)), encoding="utf-8")
    res = runner.invoke(app, ["check", str(path)])
    assert res.exit_code == 1
    assert res.stdout.count("2.100\"") == 1
    assert "unit praetor: 2.100\" from tac-b: not within coherency (2\")" in res.stdout
    assert "unit tac-b model" not in res.stdout


def _two_infiltrators(red_order: int | None, blue_order: int | None) -> dict:
    def inf(uid: str, x: float, order: int | None) -> dict:
        setup: dict = {"method": "infiltrate"} | ({"order": order} if order is not None else {})
        return {"id": uid, "rules": ["Infiltrate"], "setup": setup,
                "models": [{"base": {"diameter_mm": 25}, "type": "Infantry", "x": x, "y": 24}]}
    return {
        "ruleset": "hh2", "battlefield": {"width": 72, "depth": 48}, "deployment_zones": _ZONES,
        "armies": [
            {"player": "red", "units": [
                {"id": "tac", "models": [{"base": {"diameter_mm": 32}, "type": "Infantry", "x": 36, "y": 5}]},
                inf("b-inf", 47, red_order)]},
            {"player": "blue", "units": [
                {"id": "tac-b", "models": [{"base": {"diameter_mm": 32}, "type": "Infantry", "x": 36, "y": 44}]},
                inf("recon", 36, blue_order)]},
        ],
    }


def test_unordered_enemy_infiltrators_are_each_deployed_before_the_other(tmp_path):
    w = _world(tmp_path, _two_infiltrators(None, None))
    assert unordered_infiltrators(w) == [("b-inf", "recon")]
    assert deployed_before(w.units["recon"], w.units["b-inf"]) and deployed_before(w.units["b-inf"], w.units["recon"])
    assert _broken(check_deployment(w)) == {"b-inf": ["hh2.infiltrate.hidden"], "recon": ["hh2.infiltrate.hidden"]}
    one = _world(tmp_path, _two_infiltrators(1, None))  # one order only: still both ways
    assert unordered_infiltrators(one) == [("b-inf", "recon")]
    ordered = _world(tmp_path, _two_infiltrators(1, 2))
    assert unordered_infiltrators(ordered) == []
    assert not deployed_before(ordered.units["recon"], ordered.units["b-inf"])
    assert deployed_before(ordered.units["b-inf"], ordered.units["recon"])
    # recon (order 2) stands 10.016" from b-inf in plain sight: only recon is judged against b-inf
    assert _broken(check_deployment(ordered)) == {"recon": ["hh2.infiltrate.hidden"]}


def test_cli_warns_about_infiltrators_without_order(tmp_path):
    for orders, warned in (((None, None), True), ((1, 2), False)):
        path = tmp_path / "s.yaml"
        path.write_text(yaml.safe_dump(_two_infiltrators(*orders)), encoding="utf-8")
        res = runner.invoke(app, ["check", str(path)])
        assert ("enemy Infiltrators without setup.order (b-inf and recon)" in res.stderr) is warned
        assert res.exit_code == 1  # recon is seen either way; b-inf too without orders
        assert ("unit b-inf model 1" in res.stdout) is warned


def test_planner_and_checker_share_the_order_rule(tmp_path):
    # an enemy unit set up in its zone with a higher order than the Infiltrator still counts (only a
    # later Infiltrator does not): the planner's observers are the checker's
    data = _two_infiltrators(1, 2)
    blue = data["armies"][1]["units"]
    blue[0]["setup"] = {"method": "deployment_zone", "order": 5}
    w = _world(tmp_path, copy.deepcopy(data))
    assert deployed_before(w.units["tac-b"], w.units["b-inf"])
    assert not deployed_before(w.units["recon"], w.units["b-inf"])


def test_a_clear_line_through_the_ruin_a_model_stands_in_says_why(tmp_path):
    # recon stands partly in a sight-blocking ruin (no heights): tac sees it through the ruin, and the
    # message names the ruin and the standing-in ruling (as it already did on an upper floor)
    data = {
        "ruleset": "hh2", "battlefield": {"width": 72, "depth": 48}, "deployment_zones": _ZONES,
        "terrain": [{"id": "ruin", "kind": "area", "standing_in": "partly", "traits": ["blocks_line_of_sight"],
                     "footprint": [[0, 14], [72, 14], [72, 20], [0, 20]]}],
        "armies": [
            {"player": "red", "units": [
                {"id": "tac", "models": [{"base": {"diameter_mm": 32}, "type": "Infantry", "x": 36, "y": 9.4}]}]},
            {"player": "blue", "units": [
                {"id": "recon", "rules": ["Infiltrate"], "setup": "infiltrate",
                 "models": [{"base": {"diameter_mm": 25}, "type": "Infantry", "x": 36, "y": 20.3}]}]},
        ],
    }
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    res = runner.invoke(app, ["check", str(path)])
    assert res.exit_code == 1
    assert "it crosses ruin footprint and is not blocked by it: model recon/1 stands in ruin" in " ".join(res.stdout.split())


def test_a_missing_output_folder_is_made_with_a_note(tmp_path):
    x = 35 + _R32 + 2.0 + _R40
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump(_ic_table(x)), encoding="utf-8")
    out = tmp_path / "new" / "deeper" / "r.json"
    res = runner.invoke(app, ["check", str(path), "--json", str(out)])
    assert res.exit_code == 0 and out.is_file()
    assert f"note: created the folder {out.parent} for r.json" in " ".join(res.stderr.split())
    res = runner.invoke(app, ["check", str(path), "--json", str(out)])  # the folder is there now: no note
    assert res.exit_code == 0 and "created the folder" not in res.stderr


def test_an_option_of_one_value_given_twice_is_refused(tmp_path):
    # fresh14 finding 9: --exclusion red --exclusion blue drew blue only; now exit 2 naming the option
    import json
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[1]
    js = tmp_path / "r.json"
    res = subprocess.run([sys.executable, "-m", "planner", "render", "scenarios/wh40k/dawn-of-war-12in.yaml",
                          "--out", str(tmp_path / "r.svg"), "--exclusion", "red", "--exclusion=blue", "--json", str(js)],
                         capture_output=True, text=True, cwd=root, timeout=120)
    assert res.returncode == 2
    assert "error: field --exclusion: given 2 times: give it once (values: 'red', 'blue')" in res.stderr
    assert json.loads(js.read_text())["location"] == "--exclusion"
    assert not (tmp_path / "r.svg").exists()
    # a list option (--ruling) may be repeated
    ok = subprocess.run([sys.executable, "-m", "planner", "check", "scenarios/long-edge-ravenguard-vs-ironhands.yaml",
                         "--ruling", "ic-infiltrate=has", "--ruling", "night-fighting-deployment=ignored"],
                        capture_output=True, text=True, cwd=root, timeout=120)
    assert ok.returncode in (0, 1) and "given 2 times" not in ok.stderr


def test_a_mistyped_optional_key_gets_a_hint(tmp_path):
    # fresh14 finding 13: 'sub_types' for 'subtypes' (optional: no missing-field error to pair it with)
    data = {"ruleset": "hh2", "battlefield": {"width": 72, "depth": 48}, "armies": [{"player": "red", "units": [
        {"id": "a", "models": [{"base": {"diameter_mm": 32}, "type": "Infantry", "sub_types": ["Character"],
                                "x": 10, "y": 5}]}]}]}
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    res = runner.invoke(app, ["check", str(path)])
    assert res.exit_code == 2
    assert ("field armies[0].units[0].models[0].sub_types: Extra inputs are not permitted; the key 'sub_types' is "
            "not a field here (did you mean 'subtypes'?)") in " ".join(res.stderr.split())
    data["armies"][0]["units"][0]["models"][0].pop("sub_types")
    data["armies"][0]["units"][0]["models"][0]["zzzq"] = 1  # nothing close: no hint
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    res = runner.invoke(app, ["check", str(path)])
    assert res.exit_code == 2 and "did you mean" not in res.stderr


def test_a_ruling_given_twice_with_two_values_is_refused(tmp_path):
    # fresh14b finding 3: the last one won silently; the same value twice is fine
    x = 35 + _R32 + 2.0 + _R40
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump(_ic_table(x)), encoding="utf-8")
    res = runner.invoke(app, ["check", str(path), "--ruling", "ic-infiltrate=has", "--ruling", "ic-infiltrate=uses"])
    assert res.exit_code == 2
    assert ("field --ruling: ruling ic-infiltrate given twice, as has and as uses: give it once (value: "
            "'ic-infiltrate=uses')") in " ".join(res.stderr.split())
    same = runner.invoke(app, ["check", str(path), "--ruling", "ic-infiltrate=has", "--ruling", "ic-infiltrate=has"])
    assert same.exit_code == 0


def test_a_deny_enemy_that_cannot_infiltrate_is_named_by_the_goal_field(tmp_path):
    # fresh14b finding 4: "field --unit" although no --unit was given
    root = Path(__file__).resolve().parents[1]
    data = yaml.safe_load((root / "tests" / "assets" / "deny-small.yaml").read_text())
    enemy = next(u for a in data["armies"] for u in a["units"] if u["id"] == "inf")
    player = next(a["player"] for a in data["armies"] if enemy in a["units"])
    army = next(a for a in data["armies"] if a["player"] == player)
    army["units"].append({"id": "plain", "models": [{"base": {"diameter_mm": 25}, "type": "Infantry"}],
                          "setup": "reserves"})
    for goal, where in (({"kind": "deny", "enemy_unit": "plain"}, "goals[0].enemy_unit"),
                        ({"kind": "deny", "enemy_unit": "inf", "objective": "reply", "protect": [15, 12],
                          "also": ["plain"]}, "goals[0].also[0]")):
        data["goals"] = [goal]
        path = tmp_path / "d.yaml"
        path.write_text(yaml.safe_dump(data), encoding="utf-8")
        res = runner.invoke(app, ["plan", str(path), "--time-limit", "5", "--out", str(tmp_path / "o.yaml")])
        assert res.exit_code == 2, res.output
        text = " ".join(res.stderr.split())
        assert f"{path}: field {where}: this unit cannot Infiltrate" in text and "(value: 'plain')" in text
