"""No plan on the planner's candidate grid is a proof over the grid only, not over the rules: a
placement off the grid (or made by hand) may still be legal. So it is status ``unknown`` with
``limit: "grid"``, exit 3 (no answer within the limits); what the rules alone rule out (on the
grid or off it: the bases' area, the Infiltrate distance, a rule independent of the position)
stays ``infeasible``, exit 1. (The deny goal and ``threats``: tests/test_limits14.py,
tests/test_fresh13_deny.py, tests/test_fresh14_limits.py, tests/test_threat_map.py.)"""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from typer.testing import CliRunner

from planner.cli.commands import app

ROOT = Path(__file__).resolve().parents[1]
MARINE = {"profile": "legion-tactical-marine"}
BASE_32 = {"type": "Infantry", "base": {"diameter_mm": 32}}  # 1.260" across


def _cli(*args: object) -> tuple[int, str]:
    r = CliRunner().invoke(app, [str(a) for a in args])
    return r.exit_code, r.stdout


def _write(tmp_path: Path, name: str, data: dict) -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def _pocket(model: dict) -> dict:
    """hh2: red's 1.4" x 1.4" zone from (10.2, 10.2): a 32 mm base's centre must lie within
    [10.83, 10.97] on both axes, where no point of the 1" grid is."""
    zones = [{"id": "red-zone", "player": "red",
              "polygon": [[10.2, 10.2], [11.6, 10.2], [11.6, 11.6], [10.2, 11.6]]},
             {"id": "blue-zone", "player": "blue", "polygon": [[0, 38], [72, 38], [72, 48], [0, 48]]}]
    return {"ruleset": "hh2", "battlefield": {"width": 72, "depth": 48}, "deployment_zones": zones,
            "goals": [{"kind": "near_point", "x": 0, "y": 0}],
            "armies": [{"player": "red", "units": [{"id": "aux", "models": [model]}]},
                       {"player": "blue", "units": [{"id": "tac", "models": [{**MARINE, "x": 36, "y": 44}]}]}]}


def test_a_unit_whose_only_legal_spots_are_off_the_grid_is_unknown_limit_grid_exit_3(tmp_path):
    data = _pocket(dict(BASE_32))
    data["armies"][0]["units"][0]["place"] = True
    js = tmp_path / "plan.json"
    out_file = tmp_path / "planned.yaml"
    code, out = _cli("plan", _write(tmp_path, "pocket.yaml", data), "--time-limit", "10", "--json", js,
                     "--out", out_file)
    report = json.loads(js.read_text())
    assert code == 3, out
    assert (report["status"], report["solver_status"], report["limit"]) == ("unknown", "unknown", "grid")
    assert report["message"] == (
        'no plan on the 1" candidate grid (every formation of 1-3 ranks, two facings, at every grid point of '
        "each unit's region) (proven over that grid only: judged with the checker's exact predicates (line of "
        "sight re-judged exactly), keeping the planner's 0.1\" tape-measure margin on 'more than' distances), "
        "not proven infeasible by the rules: a placement off the grid may exist; try a finer grid ('planner plan "
        "--grid 0.5') or place the models by hand and check them with 'planner check'. unit aux: no position on "
        "the 1\" grid is wholly within its "
        "deployment zone")
    # what rejected the grid's placements is still said
    assert report["conflicts"] == [{"units": ["aux"], "rules": ["hh2.deployment.wholly_within_zone"],
                                    "message": 'unit aux: no position on the 1" grid is wholly within its '
                                               "deployment zone"}]
    assert report["placements"] == [] and not out_file.exists()
    assert 'Solver status: unknown - no plan on the 1" candidate grid' in out
    # the rules allow it: the model placed by hand at (10.9, 10.9), off the grid, passes the checker
    code, out = _cli("check", _write(tmp_path, "hand.yaml", _pocket({**BASE_32, "x": 10.9, "y": 10.9})))
    assert code == 0, out
    # and 0.1" to the side (11.0, 10.9: 0.03" past the zone's edge) it does not
    code, out = _cli("check", _write(tmp_path, "hand2.yaml", _pocket({**BASE_32, "x": 11.0, "y": 10.9})))
    assert code == 1, out


def test_a_finer_grid_given_by_plan_grid_finds_the_spot_the_default_grid_misses(tmp_path):
    """The pocket moved 0.4" down and left: a 32 mm base's centre must lie within [10.43, 10.57] on
    both axes; the 1" grid has no point there (exit 3, limit grid), the 0.5" grid has (10.5, 10.5)."""
    data = _pocket(dict(BASE_32))
    data["deployment_zones"][0]["polygon"] = [[9.8, 9.8], [11.2, 9.8], [11.2, 11.2], [9.8, 11.2]]
    data["armies"][0]["units"][0]["place"] = True
    path = _write(tmp_path, "pocket.yaml", data)
    js = tmp_path / "plan.json"
    code, out = _cli("plan", path, "--time-limit", "10", "--json", js)
    assert code == 3, out
    assert (json.loads(js.read_text())["limit"], json.loads(js.read_text())["grid_in"]) == ("grid", 1.0)
    planned = tmp_path / "planned.yaml"
    code, out = _cli("plan", path, "--time-limit", "10", "--grid", "0.5", "--json", js, "--out", planned)
    report = json.loads(js.read_text())
    assert code == 0, out
    assert (report["status"], report["legal"], report["limit"], report["grid_in"]) == ("optimal", True, None, 0.5)
    model = yaml.safe_load(planned.read_text())["armies"][0]["units"][0]["models"][0]
    assert (model["x"], model["y"]) == (10.5, 10.5)
    code, _ = _cli("check", planned)
    assert code == 0
    # out of its range: an input error naming the option (exit 2), nothing planned
    r = CliRunner().invoke(app, ["plan", str(path), "--grid", "0.1"])
    assert r.exit_code == 2 and "--grid" in r.output


def test_at_the_finest_grid_the_advice_is_to_place_by_hand_only(tmp_path):
    # fresh16b finding 4: at --grid 0.25 the message advised --grid 0.125, which --grid refuses
    data = _pocket(dict(BASE_32))
    data["armies"][0]["units"][0]["place"] = True
    data["deployment_zones"][0]["polygon"] = [[10.2, 10.2], [11.6, 10.2], [11.6, 11.6], [10.2, 11.6]]
    js = tmp_path / "plan.json"
    code, out = _cli("plan", _write(tmp_path, "pocket.yaml", data), "--time-limit", "10", "--grid", "0.25",
                     "--json", js)
    report = json.loads(js.read_text())
    assert code == 3 and report["limit"] == "grid", out
    assert "finer grid" not in report["message"]
    assert "a placement off the grid may exist; place the models by hand and check them with 'planner check'" \
        in report["message"]


def test_too_many_bases_for_the_zone_is_still_proven_infeasible_by_the_rules_exit_1(tmp_path):
    # two 32 mm bases (1.247 sq in each) cannot both be in the 1.96 sq in pocket, on the grid or off it
    data = _pocket(dict(BASE_32))
    data["armies"][0]["units"][0].update(place=True, models=[dict(BASE_32), dict(BASE_32)])
    js = tmp_path / "plan.json"
    code, out = _cli("plan", _write(tmp_path, "two.yaml", data), "--time-limit", "10", "--json", js)
    report = json.loads(js.read_text())
    assert code == 1, out
    assert (report["status"], report["limit"]) == ("infeasible", None)
    assert report["message"] == (
        "proven infeasible by the rules alone (on the grid or off it, any formation): unit aux: the unit's 2 "
        "bases, which may not overlap, cover at least 2.5 sq in, more than its deployment zone red-zone "
        '(1.4" x 1.4") holds (2.0 sq in)')


def test_a_rule_that_does_not_depend_on_the_position_is_a_proof_exit_1(tmp_path):
    # a praetor without Infiltrate joined to Infiltrators: no position anywhere makes it legal
    data = {"ruleset": "hh2",
            "deployment_zones": [
                {"id": "red-zone", "player": "red", "polygon": [[0, 0], [72, 0], [72, 12], [0, 12]]},
                {"id": "blue-zone", "player": "blue", "polygon": [[0, 36], [72, 36], [72, 48], [0, 48]]}],
            "goals": [{"kind": "near_point", "x": 36, "y": 24}],
            "armies": [
                {"player": "red", "units": [{"id": "tactical", "models": [{**MARINE, "x": 36, "y": 6}]}]},
                {"player": "blue", "units": [
                    {"id": "recon", "rules": ["Infiltrate"], "setup": "infiltrate", "place": True,
                     "models": [MARINE, MARINE]},
                    {"id": "praetor", "place": True, "setup": {"method": "infiltrate", "joined": "recon"},
                     "models": [{"profile": "legion-praetor"}]}]}]}
    js = tmp_path / "plan.json"
    code, out = _cli("plan", _write(tmp_path, "ic.yaml", data), "--time-limit", "10", "--json", js)
    report = json.loads(js.read_text())
    assert code == 1, out
    assert (report["status"], report["limit"]) == ("infeasible", None)
    assert report["conflicts"] == [{
        "units": ["recon"], "rules": ["hh2.infiltrate.eligible"],
        "message": "unit recon: no position, on the grid or off it, is set up by Infiltrate (praetor has no model "
                   "with Infiltrate) (a rule that does not depend on where the models stand)"}]
    assert report["message"] == ("proven infeasible by the rules alone (on the grid or off it, any formation): "
                                 + report["conflicts"][0]["message"])


def _strip(width: float) -> dict:
    """hh2: a ``width`` x 2" table, red's marine tac at (0.63, 1) at its left end, blue's
    Infiltrator recon (one marine, 32 mm) to place: its centre must be more than 9" + 1.26" =
    10.26" from tac's, so x > 10.89, and at most width - 0.63 to stand wholly on the table."""
    zones = [{"id": "red-zone", "player": "red", "polygon": [[0, 0], [2, 0], [2, 2], [0, 2]]},
             {"id": "blue-zone", "player": "blue",
              "polygon": [[width - 1.4, 0], [width, 0], [width, 2], [width - 1.4, 2]]}]
    return {"ruleset": "hh2", "battlefield": {"width": width, "depth": 2}, "deployment_zones": zones,
            "goals": [{"kind": "near_point", "x": width, "y": 1}],
            "armies": [{"player": "red", "units": [{"id": "tac", "models": [{**MARINE, "x": 0.63, "y": 1}]}]},
                       {"player": "blue", "units": [{"id": "recon", "rules": ["Infiltrate"], "setup": "infiltrate",
                                                     "place": True, "models": [MARINE]}]}]}


def test_an_infiltrator_that_cannot_be_more_than_9_inches_away_anywhere_is_infeasible_by_the_rules_exit_1(
        tmp_path):
    # 11.4" long: x <= 10.77 < 10.89, nowhere on the table or off the grid
    js = tmp_path / "plan.json"
    code, out = _cli("plan", _write(tmp_path, "short.yaml", _strip(11.4)), "--time-limit", "10", "--json", js)
    report = json.loads(js.read_text())
    assert code == 1, out
    assert (report["status"], report["limit"]) == ("infeasible", None)
    assert report["conflicts"] == [{
        "units": ["recon"], "rules": ["hh2.battlefield", "hh2.infiltrate.distance"],
        "message": 'unit recon: model recon/1 (a round base of radius 0.630") can stand nowhere wholly on the '
                   'battlefield more than 9" from every enemy unit (tac)'}]
    assert report["message"] == ("proven infeasible by the rules alone (on the grid or off it, any formation): "
                                 + report["conflicts"][0]["message"])


def test_an_infiltrator_the_9_inch_rule_leaves_a_sliver_is_not_claimed_infeasible_by_it(tmp_path):
    # 11.6" long: 10.89 < x <= 10.97 is more than 9" away (off the 1" grid): no rules proof claimed
    js = tmp_path / "plan.json"
    code, out = _cli("plan", _write(tmp_path, "long.yaml", _strip(11.6)), "--time-limit", "10", "--json", js)
    report = json.loads(js.read_text())
    assert code == 3, out
    assert (report["status"], report["limit"]) == ("unknown", "grid")
    assert report["conflicts"] == [{
        "units": ["recon"], "rules": ["hh2.battlefield", "hh2.infiltrate.distance"],
        "message": 'unit recon: no position on the 1" grid is more than 9" from enemy unit tac and wholly on the '
                   "battlefield"}]


def _deny_far(line_y: float) -> dict:
    """hh2, a deny goal on a 36" x 12" table: my unit a (my 3" deep zone) and my Infiltrator b to
    place; the enemy's line of 18 marines' bases (32 mm) at y = ``line_y`` across its zone (y 10-12):
    b's centre must be below line_y - 10.26."""
    return {"ruleset": "hh2", "battlefield": {"width": 36, "depth": 12},
            "deployment_zones": [{"id": "me-z", "player": "me", "polygon": [[0, 0], [36, 0], [36, 3], [0, 3]]},
                                 {"id": "en-z", "player": "en", "polygon": [[0, 10], [36, 10], [36, 12], [0, 12]]}],
            "armies": [{"player": "me", "units": [
                {"id": "a", "type": "Infantry", "place": True, "models": [{"base": {"diameter_mm": 32}}]},
                {"id": "b", "type": "Infantry", "rules": ["Infiltrate"], "setup": "infiltrate", "place": True,
                 "models": [{"base": {"diameter_mm": 32}}]}]},
                {"player": "en", "units": [
                    {"id": "line", "type": "Infantry",
                     "models": [{"base": {"diameter_mm": 32}, "x": 1 + 2 * k, "y": line_y} for k in range(18)]},
                    {"id": "inf", "type": "Infantry", "rules": ["Infiltrate"], "setup": "reserves",
                     "models": [{"base": {"diameter_mm": 32}}]}]}],
            "goals": [{"kind": "deny", "enemy_unit": "inf"}]}


def test_a_deny_goal_whose_infiltrator_cannot_be_9_inches_away_is_infeasible_by_the_rules_exit_1(tmp_path):
    # line at y 10.7: b below 0.44, but its base needs y >= 0.63: nowhere, on the grid or off it
    js = tmp_path / "deny.json"
    code, out = _cli("plan", _write(tmp_path, "deny.yaml", _deny_far(10.7)), "--time-limit", "10", "--json", js)
    report = json.loads(js.read_text())
    assert code == 1, out
    assert (report["status"], report["limit"]) == ("infeasible", None)
    assert report["message"] == (
        "proven infeasible by the rules alone (on the grid or off it, any formation): unit b has no legal "
        'placement: model b/1 (a round base of radius 0.630") can stand nowhere wholly on the battlefield more '
        'than 9" from every enemy unit (line)')
    # line at y 11.3: y 0.63-1.04 is more than 9" away (not on my 2" grid): no rules proof claimed
    code, out = _cli("plan", _write(tmp_path, "deny2.yaml", _deny_far(11.3)), "--time-limit", "10", "--json", js)
    report = json.loads(js.read_text())
    assert code == 3, out
    assert (report["status"], report["limit"]) == ("unknown", "grid")
    assert report["message"].startswith('no deployment of mine on the 2" candidate grid (proven over that grid only')
    assert report["message"].endswith("no legal candidate placement for unit b on the 2\" grid (rules: "
                                      "hh2.battlefield, hh2.infiltrate.distance)")
    # a deny goal has its own grid (each unit's 40 candidates nearest its goal: a finer grid covered less
    # ground and screened worse, fresh16b): --grid is refused with it, exit 2, naming the option
    assert "--grid" not in report["message"]
    code, out = _cli("plan", _write(tmp_path, "deny2.yaml", _deny_far(11.3)), "--time-limit", "10", "--grid", "1.5",
                     "--json", js)
    report = json.loads(js.read_text())
    assert code == 2, out
    assert (report["location"], report["value"]) == ("--grid", "1.5")
    assert 'field --grid: a deny goal places my units on its own 2" grid' in report["error"]


def test_a_unit_whose_player_has_no_deployment_zone_is_infeasible_by_the_checkers_rule(tmp_path):
    """fresh16 finding 4: no zone for the player was a grid limit blaming hh2.battlefield; the
    checker says "player 'a' has no deployment zone" under hh2.deployment.wholly_within_zone, and so
    does the planner now, as a proof by the rules (exit 1)."""
    unit = {"id": "u", "type": "Infantry", "models": [{"base": {"diameter_mm": 32}}]}
    data = {"ruleset": "hh2", "battlefield": {"width": 72, "depth": 48},
            "armies": [{"player": "a", "units": [{**unit, "place": True}]}]}
    js = tmp_path / "plan.json"
    code, out = _cli("plan", _write(tmp_path, "nz.yaml", data), "--time-limit", "5", "--json", js)
    report = json.loads(js.read_text())
    assert code == 1, out
    assert (report["status"], report["limit"]) == ("infeasible", None)
    assert report["conflicts"] == [{"units": ["u"], "rules": ["hh2.deployment.wholly_within_zone"],
                                    "message": "unit u: player 'a' has no deployment zone"}]
    placed = {**data, "armies": [{"player": "a", "units": [{**unit, "models": [{**unit["models"][0], "x": 5,
                                                                                   "y": 5}]}]}]}
    code, out = _cli("check", _write(tmp_path, "nz-placed.yaml", placed), "--format", "json")
    found = [f for u in json.loads(out)["units"] for f in u["findings"] if not f["passed"]]
    assert code == 1 and [(f["rule"], f["message"]) for f in found] == [
        ("hh2.deployment.wholly_within_zone", "player 'a' has no deployment zone")]


def test_no_coherent_formation_is_the_planners_formation_limit_not_no_grid_point(tmp_path):
    """fresh16b finding 3: three joined characters on 60 mm bases about a one-model unit on 25 mm:
    none of the planner's formations is in coherency (the diagonal slot is just over 2"), which
    read "no grid point in its region" (hh2.battlefield) and advised a finer grid. It is the
    planner's formation limit (exit 3), under the joined characters' coherency rule; by hand, the
    three stand about the trooper and pass the checker."""
    def ic(i: int) -> dict:
        return {"id": f"ic{i}", "rules": ["Independent Character"], "setup": {"joined": "sq"},
                "models": [{"type": "infantry", "base": {"diameter_mm": 60}}]}
    data = _pocket(dict(BASE_32))
    data["deployment_zones"][0]["polygon"] = [[0, 0], [72, 0], [72, 12], [0, 12]]
    data["armies"][0]["units"] = [{"id": "sq", "place": True, "models": [{"type": "infantry",
                                                                          "base": {"diameter_mm": 25}}]},
                                  *({**ic(i), "place": True} for i in range(3))]
    js = tmp_path / "plan.json"
    code, out = _cli("plan", _write(tmp_path, "bigic.yaml", data), "--time-limit", "10", "--json", js)
    report = json.loads(js.read_text())
    assert code == 3, out
    assert (report["status"], report["limit"]) == ("unknown", "formations")
    assert "no formation of the planner is in coherency for unit sq" in report["message"]
    assert "finer grid" not in report["message"] and "no grid point" not in report["message"]
    assert [(c["units"], c["rules"]) for c in report["conflicts"]] == [(["sq"], ["hh2.ic.coherency"])]
    # by hand: the trooper at (20, 6), the characters 1.9" from it edge to edge on three sides
    r = 0.5 * 25 / 25.4 + 1.9 + 0.5 * 60 / 25.4
    hand = {**data, "armies": [{"player": "red", "units": [
        {"id": "sq", "models": [{"type": "infantry", "base": {"diameter_mm": 25}, "x": 20, "y": 6}]},
        *({**ic(i), "models": [{**ic(i)["models"][0], "x": 20 + r * dx, "y": 6 + r * dy}]}
          for i, (dx, dy) in enumerate(((1, 0), (-1, 0), (0, 1))))]}, data["armies"][1]]}
    code, out = _cli("check", _write(tmp_path, "bigic-hand.yaml", hand))
    assert code == 0, out
