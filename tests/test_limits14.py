"""Session 14's house-convention gaps (fresh user 13, findings 6-9): a plan blocked by the planner's
own formations is ``unknown`` (exit 3), not ``infeasible``; ``schema --json``; ``threats
--time-limit`` (exit 3 with the partial answer); an HH2 Deep Strike aim point in terrain is a
legal question (exit 1 with the rule id), as a 10th/11th arrival is."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from planner.cli.commands import app

ROOT = Path(__file__).resolve().parents[1]
LONG_EDGE = ROOT / "scenarios" / "long-edge-ravenguard-vs-ironhands.yaml"
MARINE = {"profile": "legion-tactical-marine"}
AUX = {"type": "Infantry", "base": {"diameter_mm": 25}}


def _cli(*args: str):
    r = CliRunner().invoke(app, [str(a) for a in args])
    return r.exit_code, r.stdout, r.stderr


def _write(tmp_path, name: str, data: dict) -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


# ------------------------------------------------------------------ 6: the planner's formations are not a proof

def _square_zone(models: list[dict], extra_units: list[dict] | None = None) -> dict:
    zones = [{"id": "red-zone", "player": "red", "polygon": [[0, 0], [10, 0], [10, 10], [0, 10]]},
             {"id": "blue-zone", "player": "blue", "polygon": [[0, 38], [72, 38], [72, 48], [0, 48]]}]
    return {"ruleset": "hh2", "battlefield": {"width": 72, "depth": 48}, "deployment_zones": zones,
            "goals": [{"kind": "near_point", "x": 5, "y": 5}],
            "armies": [{"player": "red", "units": [{"id": "aux", "place": True, "models": models},
                                                   *(extra_units or [])]},
                       {"player": "blue", "units": [{"id": "tac", "models": [{**MARINE, "x": 36, "y": 44}]}]}]}


def test_forty_models_in_a_ten_inch_zone_is_unknown_exit_3_not_infeasible_and_a_hand_block_is_legal(tmp_path):
    path = _write(tmp_path, "aux.yaml", _square_zone([AUX] * 40))
    js = tmp_path / "plan.json"
    code, out, _ = _cli("plan", path, "--time-limit", "20", "--json", js)
    data = json.loads(js.read_text())
    assert code == 3
    assert (data["status"], data["solver_status"], data["limit"]) == ("unknown", "unknown", "formations")
    assert data["message"].startswith('no plan over the 1" candidate grid')
    assert "not proven infeasible: no formation of the planner fits the region of unit aux" in data["message"]
    assert "proven infeasible over" not in data["message"]
    (c,) = data["conflicts"]  # what rejected every candidate, still said
    # no formation fits the zone by its size: the zone's rule alone (session 17; was also hh2.battlefield)
    assert c["units"] == ["aux"] and c["rules"] == ["hh2.deployment.wholly_within_zone"]
    assert '3x14@0 (3.5" x 17.0"), does not fit in its deployment zone (10" x 10")' in c["message"]
    assert "Solver status: unknown - no plan over" in out
    # the rules allow it: an 8 x 5 block of 25 mm bases (1.2" apart) passes the checker
    block = [{**AUX, "x": 0.6 + 1.2 * (k % 8), "y": 0.6 + 1.2 * (k // 8)} for k in range(40)]
    hand = _square_zone(block)
    hand["armies"][0]["units"][0]["place"] = False
    code, out, _ = _cli("check", _write(tmp_path, "hand.yaml", hand))
    assert code == 0, out


def test_another_units_candidates_alone_leaving_no_plan_is_the_grid_limit_not_the_formations_exit_3(tmp_path):
    # aux (40 models, no formation fits) and recon, which must Infiltrate out of sight or more than 12"
    # from tac on a 16" table where nothing hides it: recon's candidates alone leave no plan on the grid
    # (a proof over the grid, not over the rules: the limit is the grid, not aux's formations)
    zones = [{"id": "red-zone", "player": "red", "polygon": [[0, 0], [16, 0], [16, 10], [0, 10]]},
             {"id": "blue-zone", "player": "blue", "polygon": [[0, 13], [16, 13], [16, 16], [0, 16]]}]
    recon = {"id": "recon", "rules": ["Infiltrate"], "setup": "infiltrate", "place": True, "models": [MARINE] * 5}
    data = {"ruleset": "hh2", "battlefield": {"width": 16, "depth": 16}, "deployment_zones": zones,
            "goals": [{"kind": "near_point", "x": 8, "y": 8}],
            "armies": [{"player": "red", "units": [{"id": "aux", "place": True, "models": [AUX] * 40}, recon]},
                       {"player": "blue", "units": [{"id": "tac", "models": [{**MARINE, "x": 8, "y": 14},
                                                                             {**MARINE, "x": 9.5, "y": 14}]}]}]}
    js = tmp_path / "plan.json"
    code, _, _ = _cli("plan", _write(tmp_path, "both.yaml", data), "--time-limit", "30", "--json", js)
    out = json.loads(js.read_text())
    assert code == 3
    assert (out["status"], out["limit"]) == ("unknown", "grid")
    assert out["message"].startswith('no plan on the 1" candidate grid')
    assert "not proven infeasible by the rules: a placement off the grid may exist" in out["message"]
    (c,) = out["conflicts"]
    assert c["units"] == ["recon"] and "hh2.infiltrate.hidden" in c["rules"]
    assert "formations" not in c["message"]


# ------------------------------------------------------------------ 7: schema --json

def test_schema_json_file_holds_the_schema_in_its_report_and_stdout_is_unchanged(tmp_path):
    js = tmp_path / "schema.json"
    code, out, _ = _cli("schema", "plan", "--json", js)
    assert code == 0
    report = json.loads(js.read_text())
    assert set(report) == {"schema", "json_schema"} and report["schema"] == "plan"
    assert report["json_schema"] == json.loads(out)  # stdout: the bare schema, as without --json
    assert report["json_schema"]["title"] == "PlanResult" and "limit" in report["json_schema"]["properties"]


def test_schema_json_dash_writes_only_the_report_on_stdout():
    code, out, _ = _cli("schema", "--json", "-")
    assert code == 0
    report = json.loads(out)
    assert report["schema"] == "scenario" and report["json_schema"]["title"] == "Scenario"


def test_schema_unknown_what_writes_the_error_report_to_json(tmp_path):
    js = tmp_path / "err.json"
    code, _, err = _cli("schema", "bogus", "--json", js)
    assert code == 2
    report = json.loads(js.read_text())
    assert (report["ok"], report["exit_code"], report["location"], report["value"]) == (False, 2, "WHAT", "bogus")
    assert "unknown schema" in err


# ------------------------------------------------------------------ 8: threats --time-limit

def _threats_json(tmp_path, *extra: str, grid: str = "2") -> tuple[int, str, dict]:
    js = tmp_path / "threats.json"
    code, out, _ = _cli("threats", LONG_EDGE, "--enemy-unit", "rg-breacher", "--goal", "near_point:36,24",
                        "--grid", grid, "--json", js, *extra)
    return code, out, json.loads(js.read_text())


def test_threats_within_its_default_time_limit_is_whole(tmp_path):
    code, _, data = _threats_json(tmp_path)
    assert code == 0
    assert (data["time_limit_s"], data["time_limit_reached"], data["interrupted"], data["complete"]) == \
        (60.0, False, False, True)
    assert data["positions_judged"] == data["positions"] == 1850


def test_threats_time_limit_cuts_the_scan_as_ctrl_c_does_with_the_answer_over_the_positions_judged(tmp_path,
                                                                                                   monkeypatch):
    from planner.adversary import legal_area
    from planner.adversary.threats import best_reply, parse_goal
    from planner.solve import stop

    # a clock that passes the 100 s limit once 600 positions (300 anchors of 2 formations) are judged
    calls = [0]
    static = legal_area.ArrivalSpace._static

    def counting(self, p):
        calls[0] += 1
        return static(self, p)

    monkeypatch.setattr(legal_area.ArrivalSpace, "_static", counting)
    monkeypatch.setattr(stop, "clock", lambda: time.monotonic() + (1000.0 if calls[0] >= 600 else 0.0))
    code, out, data = _threats_json(tmp_path, "--time-limit", "100")
    monkeypatch.undo()
    assert code == 3
    assert (data["time_limit_s"], data["time_limit_reached"], data["interrupted"], data["complete"]) == \
        (100.0, True, False, False)
    assert (data["positions_judged"], data["positions"]) == (600, 1850)
    assert data["message"].startswith("time limit reached (100 s): the scan was cut after 600 of 1850 arrival "
                                      "positions")
    assert data["message"] in out
    # the answer is the whole scan's over the first 600 positions (as after a Ctrl-C there)
    from planner.adversary.legal_area import ArrivalSpace, enemy_group, fixed_units
    from planner.world import load_scenario

    world = load_scenario(str(LONG_EDGE))
    group = enemy_group(world, "rg-breacher")
    table = world.ruleset.table(world)
    space = ArrivalSpace(world, group, fixed_units(table, {u.id for u in group.members}), 2.0, table=table)
    first = [p for p in space.positions if p.index < 600]
    assert first and len(first) < len(space.positions)
    assert [tuple(c) for c in data["legal_cells"]] == sorted({p.anchor for p in first})
    best, value, _ = best_reply(space, parse_goal("near_point:36,24", world), space.observers, first)
    assert tuple(data["best"]["anchor"]) == best.anchor and data["best"]["value"] == pytest.approx(value)
    assert data["best"]["legal"] is True


def test_threats_time_limit_bounds_a_real_fine_grid_scan(tmp_path):
    # 28,130 positions at the 0.5" grid: far more than 1 s of scanning
    t0 = time.monotonic()
    code, out, data = _threats_json(tmp_path, "--time-limit", "1", grid="0.5")
    assert code == 3
    assert data["time_limit_reached"] is True and data["complete"] is False
    assert 0 <= data["positions_judged"] < data["positions"] == 145 * 97 * 2
    assert data["wall_time_s"] < 10 and time.monotonic() - t0 < 30
    assert "time limit reached (1 s)" in out


@pytest.mark.parametrize("command", ["plan", "threats"])
def test_time_limit_out_of_range_is_refused_alike_by_plan_and_threats(monkeypatch, capsys, command):
    import sys

    from planner.cli.commands import main

    # the command line's usage errors are reported by its entry point (planner.cli.commands.main)
    monkeypatch.setattr(sys, "argv", ["planner", command, str(LONG_EDGE), "--unit", "rg-breacher",
                                      "--time-limit", "0", "--json", "-"])
    with pytest.raises(SystemExit) as e:
        main()
    assert e.value.code == 2
    report = json.loads(capsys.readouterr().out)
    assert (report["location"], report["value"]) == ("--time-limit", "0")
    assert report["error"] == "Invalid value for '--time-limit': out of range: give a number from 0.1 to 86400"


# ------------------------------------------------------------------ 9: an HH2 aim point in terrain: exit 1

def test_hh2_deep_strike_aim_in_impassable_terrain_is_not_legal_exit_1_with_the_rule_id(tmp_path):
    js = tmp_path / "ds.json"
    code, out, _ = _cli("deepstrike", LONG_EDGE, "--unit", "ih-assault", "--at", "36,30", "--json", js)
    data = json.loads(js.read_text())
    assert code == 1
    assert data["legal"] is False and data["rules_failed"] == ["hh2.deepstrike_assault.impassable_within_1"]
    assert "assault_odds" not in data  # no odds at a point the first model may not be placed
    assert "NOT LEGAL" in out and "hh2.deepstrike_assault.impassable_within_1: " in out
    # the rule's meaning speaks of the scatter; the line says the aim point itself breaks it (fresh16 7c)
    assert ("Rule broken (1), by the aim point itself (each rule's meaning is its test after the scatter, the "
            "same distance):") in " ".join(out.split())


def test_hh2_deep_strike_aim_clear_of_terrain_has_its_odds_and_is_legal_exit_0(tmp_path):
    js = tmp_path / "ds.json"
    code, _, _ = _cli("deepstrike", LONG_EDGE, "--unit", "ih-assault", "--at", "36,33", "--json", js)
    data = json.loads(js.read_text())
    assert code == 0
    assert data["legal"] is True and data["rules_failed"] == []
    assert 0 < data["assault_odds"]["p_relocated"] < 1


def test_hh2_aim_point_off_the_table_stays_invalid_input(tmp_path):
    code, _, err = _cli("deepstrike", LONG_EDGE, "--unit", "ih-assault", "--at", "80,30")
    assert code == 2 and "--at" in err


# ------------------------------------------------------------------ 6: a deny goal, the same limit

@pytest.mark.parametrize(("objective", "n", "code", "status", "limit"), [
    ("area", 100, 3, "unknown", "formations"),  # 3x34 (51.1" wide) in a 36" x 5" zone: the formations
    ("reply", 100, 3, "unknown", "formations"),
    ("area", 60, 3, "unknown", "grid"),  # 3x20 fits the zone's box, but no 2" grid point holds it wholly
])
def test_a_deny_goal_whose_unit_has_no_candidate_is_unknown_never_invalid_input(
        tmp_path, objective, n, code, status, limit):
    data = yaml.safe_load((ROOT / "tests" / "assets" / "deny-small.yaml").read_text(encoding="utf-8"))
    data["armies"][0]["units"][1]["models"] = [{"base": {"diameter_mm": 32}}] * n
    if objective == "reply":
        data["goals"] = [{"kind": "deny", "enemy_unit": "inf", "objective": "reply", "protect": [18, 10]}]
    js = tmp_path / "deny.json"
    got, out, _ = _cli("plan", _write(tmp_path, "deny.yaml", data), "--time-limit", "10", "--json", js)
    report = json.loads(js.read_text())
    assert got == code, out
    assert (report["status"], report["solver_status"], report["limit"]) == (status, status, limit)
    assert report["message"].startswith('no legal candidate placement for unit b on the 2" grid'
                                        if limit == "formations" else
                                        'no deployment of mine on the 2" candidate grid (proven over that grid '
                                        "only: judged with the checker's exact predicates), not proven infeasible "
                                        "by the rules: a placement off the grid may exist")
    if limit == "formations":
        assert "not proven infeasible: the limit is the planner's formations, not the rules" in report["message"]
        assert '3x34@90 (51.1" x 4.3"), does not fit in its deployment zone (36" x 5")' in report["message"]
    else:
        assert "(rules: hh2.battlefield, hh2.deployment.wholly_within_zone)" in report["message"]
    assert report["placements"] == [] and report["area_before_sq_in"] is None


def test_threats_with_no_formation_on_the_battlefield_is_no_answer_exit_3_not_a_perfect_screen(tmp_path):
    data = yaml.safe_load((ROOT / "tests" / "assets" / "deny-small.yaml").read_text(encoding="utf-8"))
    data.pop("goals")
    mine = data["armies"][0]["units"]
    for u, xs in zip(mine, ([5], [20, 22]), strict=True):
        u.pop("place")
        for m, x in zip(u["models"], xs, strict=True):
            m.update(x=x, y=2)
    data["armies"][1]["units"][0]["models"] = [{"base": {"diameter_mm": 32}}] * 100  # 3x34: 51.1" on a 36" table
    js = tmp_path / "threats.json"
    code, out, _ = _cli("threats", _write(tmp_path, "big-enemy.yaml", data), "--enemy-unit", "inf", "--json", js)
    report = json.loads(js.read_text())
    assert code == 3
    assert (report["limit"], report["complete"], report["best"], report["legal_anchors"]) == \
        ("formations", True, None, 0)
    assert report["message"].startswith("no legal arrival for the enemy unit on the grid, and that is not a proof: "
                                        "the limit is the planner's formations, not the rules")
    assert '3x34@90 (51.1" x 4.3"), does not fit in its battlefield (36" x 21")' in report["message"]
    assert report["message"] in out
    # a 3-model enemy unit on the same table: a real answer (exit 0), no limit
    data["armies"][1]["units"][0]["models"] = [{"base": {"diameter_mm": 32}}] * 3
    code, _, _ = _cli("threats", _write(tmp_path, "small-enemy.yaml", data), "--enemy-unit", "inf", "--json", js)
    report = json.loads(js.read_text())
    assert code == 0 and report["limit"] is None and report["best"]["legal"] is True
