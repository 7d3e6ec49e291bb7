"""Fresh user 14's findings 3, 6, 7 and 11: a plan the rules alone rule out (no base fits the
region, or the bases' area exceeds it) is ``infeasible`` (exit 1) with the reason, not ``unknown``
(limit formations, exit 3), in ``plan``, a deny goal and ``threats``; a deny goal with other goals
warns that they are not used; a deny goal naming a unit of the player being planned, or an enemy
unit twice, is invalid input naming the field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from shapely.geometry import box
from typer.testing import CliRunner

from planner.cli.commands import app
from planner.geometry.shapes import footprint
from planner.schema import RoundBase

ROOT = Path(__file__).resolve().parents[1]
DENY_SMALL = ROOT / "tests" / "assets" / "deny-small.yaml"
AUX = {"type": "Infantry", "base": {"diameter_mm": 25}}
MARINE = {"profile": "legion-tactical-marine"}


def _cli(*args: str):
    r = CliRunner().invoke(app, [str(a) for a in args])
    return r.exit_code, r.stdout, r.stderr


def _write(tmp_path, name: str, data: dict) -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def _zone_plan(models: list[dict], side_x: float, side_y: float | None = None) -> dict:
    """hh2: unit aux of ``models`` to place in red's ``side_x`` x ``side_y`` zone at the corner."""
    sy = side_x if side_y is None else side_y
    zones = [{"id": "red-zone", "player": "red", "polygon": [[0, 0], [side_x, 0], [side_x, sy], [0, sy]]},
             {"id": "blue-zone", "player": "blue", "polygon": [[0, 38], [72, 38], [72, 48], [0, 48]]}]
    return {"ruleset": "hh2", "battlefield": {"width": 72, "depth": 48}, "deployment_zones": zones,
            "goals": [{"kind": "near_point", "x": 0, "y": 0}],
            "armies": [{"player": "red", "units": [{"id": "aux", "place": True, "models": models}]},
                       {"player": "blue", "units": [{"id": "tac", "models": [{**MARINE, "x": 36, "y": 44}]}]}]}


def _plan(tmp_path, data: dict, *extra: str) -> tuple[int, str, dict]:
    js = tmp_path / "plan.json"
    code, out, _ = _cli("plan", _write(tmp_path, "plan.yaml", data), "--time-limit", "20", "--json", js, *extra)
    return code, out, json.loads(js.read_text())


# ------------------------------------------------------------------ 3: no single base fits the region

def test_five_25mm_bases_in_a_half_inch_zone_are_infeasible_by_the_rules_exit_1(tmp_path):
    code, out, data = _plan(tmp_path, _zone_plan([AUX] * 5, 0.5))
    assert code == 1
    assert (data["status"], data["limit"]) == ("infeasible", None)
    assert data["message"].startswith("proven infeasible by the rules alone (on the grid or off it, any formation)")
    (c,) = data["conflicts"]
    assert c["units"] == ["aux"]
    assert c["rules"] == ["hh2.deployment.wholly_within_zone", "hh2.bases.no_overlap"]
    assert c["message"] == ('unit aux: the base of model aux/1 fits nowhere wholly within its deployment zone '
                            'red-zone (0.5" x 0.5"): a round base of radius 0.492" cannot be wholly within it')
    assert "may fit" not in data["message"] and "formations" not in data["message"]
    assert "Solver status: infeasible - proven infeasible by the rules alone" in out


@pytest.mark.parametrize(("side", "by_rules"), [(0.98, True), (0.985, False)])
def test_one_base_the_zone_just_holds_is_not_claimed_impossible(tmp_path, side, by_rules):
    # a 25 mm base is 0.98425" across: a 0.98" zone cannot hold it, a 0.985" one can (off the grid)
    code, _, data = _plan(tmp_path, _zone_plan([AUX], side))
    # no 1" grid point holds it either way: by the rules (exit 1), or over the grid only (exit 3)
    assert (code, data["status"], data["limit"]) == ((1, "infeasible", None) if by_rules else (3, "unknown", "grid"))
    assert data["message"].startswith("proven infeasible by the rules alone") is by_rules
    if not by_rules:
        assert data["message"].startswith('no plan on the 1" candidate grid')
        assert "not proven infeasible by the rules: a placement off the grid may exist" in data["message"]


# ------------------------------------------------------------------ 3: the bases' area exceeds the region's

@pytest.mark.parametrize(("n", "code", "status", "limit"), [
    (400, 1, "infeasible", None),  # 400 x 0.7608 = 304.3 sq in in 100
    (132, 1, "infeasible", None),  # 100.4 sq in: just over
    (131, 3, "unknown", "formations"),  # 99.7 sq in: the area allows it; only the planner's formations fail
    (40, 3, "unknown", "formations"),  # the README's case: an 8 x 5 block fits by hand
])
def test_many_25mm_bases_in_a_ten_inch_zone_by_the_packing_area(tmp_path, n, code, status, limit):
    got, _, data = _plan(tmp_path, _zone_plan([AUX] * n, 10))
    assert got == code
    assert (data["status"], data["limit"]) == (status, limit)
    (c,) = data["conflicts"]
    if status == "infeasible":
        assert c["message"] == (f"unit aux: the unit's {n} bases, which may not overlap, cover at least "
                                f"{n * 0.7607912:.1f} sq in, more than its deployment zone red-zone (10\" x 10\") "
                                "holds (100.0 sq in)")
    else:
        assert "the limit is the planner's formations, not the rules" in c["message"]
        assert "by the rules alone" not in data["message"]


@pytest.mark.parametrize(("sizes", "code", "status"), [
    ((44, 44, 44), 1, "infeasible"),  # 132 bases, 100.4 sq in, in 100: none alone, but together over
    ((44, 44, 43), 3, "unknown"),  # 131 bases, 99.7 sq in: the area allows it
])
def test_units_sharing_a_zone_are_judged_by_their_bases_together(tmp_path, sizes, code, status):
    data = _zone_plan([AUX], 10)
    data["armies"][0]["units"] = [{"id": f"aux{k}", "place": True, "models": [AUX] * n}
                                  for k, n in enumerate(sizes, start=1)]
    got, _, report = _plan(tmp_path, data)
    assert got == code and report["status"] == status
    if status == "infeasible":
        (c,) = report["conflicts"]
        assert c["units"] == ["aux1", "aux2", "aux3"]
        assert c["rules"] == ["hh2.deployment.wholly_within_zone", "hh2.bases.no_overlap"]
        assert c["message"] == ("units aux1, aux2, aux3: the 132 bases of units aux1, aux2, aux3, which may not "
                                "overlap, cover at least 100.4 sq in, more than their deployment zone red-zone "
                                '(10" x 10") holds (100.0 sq in)')
    else:
        assert report["limit"] == "formations" and "by the rules alone" not in report["message"]


@pytest.mark.parametrize(("width", "by_rules"), [(1.9, True), (2.1, False)])
def test_a_hull_is_ruled_out_only_by_the_disc_it_surely_holds(tmp_path, width, by_rules):
    # a 4" x 2" hull holds a disc of radius 1" about its centre: a 1.9" wide zone cannot take it;
    # a 2.1" wide one can (standing lengthwise), so no proof is claimed there
    hull = {"type": "Vehicle", "base": {"shape": "hull", "length_in": 4, "width_in": 2}}
    got, _, data = _plan(tmp_path, _zone_plan([hull], width, 10))
    c = data["conflicts"][0] if data["conflicts"] else None
    if by_rules:
        assert got == 1 and data["status"] == "infeasible"
        assert c is not None and c["message"] == (
            'unit aux: the base of model aux/1 fits nowhere wholly within its deployment zone red-zone '
            '(1.9" x 10"): a disc of radius 1.000" (inside its base) cannot be wholly within it')
    else:
        assert not data["message"].startswith("proven infeasible by the rules alone")


def test_the_fit_test_erodes_a_non_convex_zone_soundly():
    from planner.solve.packing import no_fit_words

    base = footprint(RoundBase(diameter_mm=25), 0.0, 0.0, 0.0)
    # an L of 0.8" arms: a centre needs x, y >= 0.492" (the outer edges) and 0.492" from the inner
    # corner (0.8, 0.8); the farthest such point, (0.492, 0.492), is 0.435" from it: no base anywhere
    thin = box(0, 0, 0.8, 10).union(box(0, 0, 10, 0.8))
    assert no_fit_words(thin, [("u/1", base)], "zone") == (
        'the base of model u/1 fits nowhere wholly within its zone (10" x 10"): a round base of radius 0.492" '
        "cannot be wholly within it")
    # with 0.9" arms the centre (0.5, 0.5) is 0.566" from the inner corner: the base fits there
    wide = box(0, 0, 0.9, 10).union(box(0, 0, 10, 0.9))
    assert no_fit_words(wide, [("u/1", base)], "zone") is None


# ------------------------------------------------------------------ 3: the deny goal and threats, the same test

def _deny_small() -> dict:
    return yaml.safe_load(DENY_SMALL.read_text(encoding="utf-8"))


@pytest.mark.parametrize(("n", "code", "status", "limit"), [
    (145, 1, "infeasible", None),  # 145 x 1.2468 = 180.8 sq in in the 36" x 5" zone (180)
    (144, 3, "unknown", "formations"),  # 179.5 sq in: the formations, not the rules
])
def test_a_deny_goal_whose_unit_the_rules_rule_out_is_infeasible(tmp_path, n, code, status, limit):
    data = _deny_small()
    data["armies"][0]["units"][1]["models"] = [{"base": {"diameter_mm": 32}}] * n
    js = tmp_path / "deny.json"
    got, out, _ = _cli("plan", _write(tmp_path, "deny.yaml", data), "--time-limit", "10", "--json", js)
    report = json.loads(js.read_text())
    assert got == code, out
    assert (report["status"], report["limit"]) == (status, limit)
    if status == "infeasible":
        assert report["message"] == (
            f"proven infeasible by the rules alone (on the grid or off it, any formation): unit b has no legal "
            f"placement: the unit's {n} bases, which may not overlap, cover at least 180.8 sq in, more than its "
            "deployment zone me-z (36\" x 5\") holds (180.0 sq in)")
    else:
        assert "not proven infeasible: the limit is the planner's formations, not the rules" in report["message"]


def _threats_data(diameter_mm: float) -> dict:
    data = _deny_small()
    data.pop("goals")
    for u, xs in zip(data["armies"][0]["units"], ([5], [20, 22]), strict=True):
        u.pop("place")
        for m, x in zip(u["models"], xs, strict=True):
            m.update(x=x, y=2)
    data["armies"][1]["units"][0]["models"] = [{"base": {"diameter_mm": diameter_mm}}]
    return data


def test_threats_with_an_enemy_base_larger_than_the_table_is_a_proof_exit_1(tmp_path):
    js = tmp_path / "threats.json"
    # 540 mm is 21.26" across: it cannot stand wholly on a 21" deep table
    code, out, _ = _cli("threats", _write(tmp_path, "t.yaml", _threats_data(540)), "--enemy-unit", "inf",
                        "--json", js)
    report = json.loads(js.read_text())
    assert code == 1
    assert (report["limit"], report["complete"], report["best"], report["legal_anchors"]) == (None, True, None, 0)
    assert report["message"] == (
        "no legal arrival for the enemy unit on the grid, proven by the rules alone (on the grid or off it, any "
        "formation): the base of model inf/1 fits nowhere wholly within its battlefield (36\" x 21\"): a round "
        "base of radius 10.630\" cannot be wholly within it")
    assert "not a proof" not in out


def test_threats_with_an_enemy_base_the_table_holds_is_no_rules_proof_but_the_grid_limit_exit_3(tmp_path):
    js = tmp_path / "threats.json"
    code, _, _ = _cli("threats", _write(tmp_path, "t.yaml", _threats_data(500)), "--enemy-unit", "inf",
                      "--json", js)  # 19.69" across on a 21" deep table: it fits, but no grid point is legal
    report = json.loads(js.read_text())
    assert code == 3
    assert (report["limit"], report["best"], report["legal_anchors"], report["complete"]) == ("grid", None, 0, True)
    assert report["message"] == (  # over the grid only, no rules claim
        'no legal arrival for the enemy unit on the grid, and that is not a proof: every arrival position on the '
        '2" grid judged, none legal, so no legal arrival is proven over the grid only, not by the rules: an '
        "arrival off the grid may be legal; try a finer --grid")


# ------------------------------------------------------------------ 6: a deny goal with other goals

def test_a_deny_goal_with_another_goal_warns_that_the_other_is_not_used(tmp_path):
    data = _deny_small()
    data["goals"].append({"kind": "near_point", "x": 3, "y": 3})
    js = tmp_path / "deny.json"
    code, _, err = _cli("plan", _write(tmp_path, "r6.yaml", data), "--time-limit", "20", "--json", js)
    report = json.loads(js.read_text())
    assert code == 0
    words = ("the deny goal (goals[0]) is planned alone: the other goal goals[1] (near_point) is not used (plan it "
             "in a scenario without the deny goal)")
    assert report["warnings"] == [words]
    assert f"warning: {words}" in " ".join(err.split())
    # the deny goal alone: no warning
    code, _, err = _cli("plan", DENY_SMALL, "--time-limit", "20", "--json", js)
    assert code == 0 and json.loads(js.read_text())["warnings"] == [] and "warning" not in err


def test_a_deny_goal_after_two_others_names_both(tmp_path):
    from planner.cli.adversary import deny_alone_warning
    from planner.world import load_scenario

    data = _deny_small()
    data["goals"] = [{"kind": "near_point", "x": 3, "y": 3}, {"kind": "near_point", "x": 9, "y": 3},
                     {"kind": "deny", "enemy_unit": "inf"}]
    world = load_scenario(_write(tmp_path, "three.yaml", data))
    assert deny_alone_warning(world) == ("the deny goal (goals[2]) is planned alone: the other goals goals[0] "
                                         "(near_point), goals[1] (near_point) are not used (plan them in a scenario "
                                         "without the deny goal)")


# ------------------------------------------------------------------ 7, 11: the deny goal's enemy units

def test_a_deny_goal_against_my_own_unit_names_the_goal_field(tmp_path):
    data = _deny_small()
    data["goals"] = [{"kind": "deny", "enemy_unit": "a"}]
    js = tmp_path / "err.json"
    code, _, err = _cli("plan", _write(tmp_path, "d8.yaml", data), "--json", js)
    report = json.loads(js.read_text())
    assert code == 2
    assert (report["location"], report["value"]) == ("goals[0].enemy_unit", "a")
    assert "a is a unit of the player being planned (me: units marked 'place: true'), not an enemy unit" in \
        " ".join(err.split())
    assert "--unit" not in err


def _reply(also: list[str], extra_enemy: bool = False) -> dict:
    data = _deny_small()
    if extra_enemy:
        data["armies"][1]["units"].append({"id": "inf2", "type": "Infantry", "rules": ["Infiltrate"],
                                           "setup": "reserves", "models": [{"base": {"diameter_mm": 32}}]})
    data["goals"] = [{"kind": "deny", "enemy_unit": "inf", "objective": "reply", "protect": [18, 10],
                      "also": also}]
    return data


@pytest.mark.parametrize(("also", "where", "value", "words"), [
    (["inf"], "goals[0].also[0]", "inf", "inf is named twice among the deny goal's enemy units"),
    (["inf2", "inf2"], "goals[0].also[1]", "inf2", "inf2 is named twice among the deny goal's enemy units"),
    (["b"], "goals[0].also[0]", "b", "b is a unit of the player being planned (me: units marked 'place: true')"),
])
def test_a_reply_goals_also_is_checked_for_duplicates_and_my_units(tmp_path, also, where, value, words):
    js = tmp_path / "err.json"
    code, _, err = _cli("plan", _write(tmp_path, "r.yaml", _reply(also, extra_enemy=True)), "--json", js)
    report = json.loads(js.read_text())
    assert code == 2
    assert (report["location"], report["value"]) == (where, value)
    assert words in " ".join(err.split())


def test_a_reply_goal_with_a_second_enemy_unit_is_still_accepted(tmp_path):
    from planner.world import load_scenario

    world = load_scenario(_write(tmp_path, "ok.yaml", _reply(["inf2"], extra_enemy=True)))
    (g,) = world.scenario.goals
    assert (g.enemy_unit, g.also) == ("inf", ["inf2"])
