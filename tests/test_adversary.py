"""Threats, denial and min-max against brute force over a coarse grid (issue #7).

Brute force: every combination of my candidate placements, and for every enemy anchor the
independent checker (or, where the combinations are many, the exact Infiltrate predicate
``ArrivalSpace.legal_one``, itself compared with the checker on the single-unit case).
"""

from __future__ import annotations

import copy
import itertools
import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from planner.adversary.alternation import alternate
from planner.adversary.deny import DenySettings, build_screen, deny, greedy
from planner.adversary.legal_area import ArrivalSpace, enemy_group, fixed_units
from planner.adversary.minmax import minmax
from planner.adversary.threats import check_with, find_threats, parse_goal, point_distance
from planner.errors import ScenarioError
from planner.legality.checker import check_deployment
from planner.legality.table import Placed, Table
from planner.schema import Scenario
from planner.world import resolve

GRID = 3.0
SETTINGS = DenySettings(time_limit_s=30, workers=1, seed=0, grid_in=GRID, enemy_grid_in=GRID, candidates_per_unit=50)
R32 = 16 / 25.4


def marine(x=None, y=None):
    m = {"base": {"diameter_mm": 32}}
    if x is not None:
        m.update(x=x, y=y)
    return m


def scenario(mine, enemy_setup="reserves", enemy_at=None, width=24, depth=18, terrain=None):
    return {
        "ruleset": "hh2",
        "battlefield": {"width": width, "depth": depth},
        "deployment_zones": [
            {"id": "me-z", "player": "me", "polygon": [[0, 0], [width, 0], [width, 5], [0, 5]]},
            {"id": "en-z", "player": "en", "polygon": [[0, depth - 5], [width, depth - 5], [width, depth],
                                                        [0, depth]]},
        ],
        # a wall across the middle: hides some of the 9"-12" ring from my units
        "terrain": terrain if terrain is not None else [
            {"id": "wall", "kind": "solid", "traits": ["blocks_line_of_sight"],
             "footprint": [[7, 8.5], [14, 8.5], [14, 9.5], [7, 9.5]]}],
        "armies": [
            {"player": "me", "units": mine},
            {"player": "en", "units": [{"id": "inf", "type": "Infantry", "rules": ["Infiltrate"],
                                        "setup": enemy_setup, "models": [marine(*enemy_at) if enemy_at else marine()]}]},
        ],
    }


def world_of(data):
    w = resolve(Scenario.model_validate(data))
    w.raw = data
    return w


def checker_legal_anchors(world, space, extra=None):
    """Brute force with the checker: the anchors where some formation of the enemy is legal."""
    out = set()
    for p in space.all_positions:
        if p.anchor in out:
            continue
        rep = check_with(world, space, p, extra)
        if rep.legal:
            out.add(p.anchor)
    return out


def _space(world):
    g = enemy_group(world, "inf")
    t = Table(world)
    return ArrivalSpace(world, g, fixed_units(t, {"inf"}), GRID, table=t)


def test_threats_agree_with_the_checker_on_every_anchor_and_the_best_reply():
    data = scenario([{"id": "a", "type": "Infantry", "models": [marine(9, 3)]},
                     {"id": "b", "type": "Infantry", "models": [marine(18, 3)]}])
    w = world_of(data)
    r = find_threats(w, "inf", parse_goal("near_point:10,6", w), GRID)
    brute = checker_legal_anchors(w, _space(w))
    assert set(map(tuple, r.legal_cells)) == brute
    assert r.legal_area_sq_in == pytest.approx(len(brute) * GRID ** 2)
    # brute force best: the legal anchor whose base comes closest to (10, 6)
    best = min(max(0.0, math.hypot(x - 10, y - 6) - R32) for x, y in brute)
    assert r.best.value == pytest.approx(best)
    assert r.best.legal is True
    # some legal anchor lies within 12" of my units only because the wall hides it
    hidden = [(x, y) for x, y in brute if min(math.hypot(x - 9, y - 3), math.hypot(x - 18, y - 3)) - 2 * R32 <= 12]
    assert hidden, "the wall should hide part of the 9\"-12\" ring"
    assert all(y > 9.5 for _, y in hidden)


def test_threat_goals_sight_and_hidden_near_are_checked_placements():
    data = scenario([{"id": "a", "type": "Infantry", "models": [marine(9, 3)]},
                     {"id": "b", "type": "Infantry", "models": [marine(18, 3)]}])
    w = world_of(data)
    s = find_threats(w, "inf", parse_goal("sight", w), GRID)
    sp = _space(w)
    mine = sp.observers
    seen = [sum(sp.table.sight_from_any([sp.placed(p)], m, exact=True)[0] is not None for m in mine)
            for p in sp.positions]
    assert s.best.value == max(seen) and s.best.legal
    h = find_threats(w, "inf", parse_goal("hidden_near:10,10", w), GRID)
    assert h.best.legal and h.best.value <= 12.0
    brute = []
    for p in sp.positions:
        d = point_distance(p.footprints, (10, 10))
        if d <= 12 and sp.legal_one(p, []) and sp.table.sight_from_any(mine, sp.placed(p), exact=True)[0] is None:
            brute.append(d)
    assert h.best.value == pytest.approx(min(brute))


def test_threats_boundary_more_than_9_inches():
    # my marine at (3, 3) and the enemy on the 3" grid: centre 12.0 + 2r apart is exactly 12" (not
    # more than 12"): legal only hidden; no terrain, so illegal
    data = scenario([{"id": "a", "type": "Infantry", "models": [marine(3, 3)]}], terrain=[])
    w = world_of(data)
    r = find_threats(w, "inf", parse_goal(None, w), GRID)
    for x, y in r.legal_cells:
        assert math.hypot(x - 3, y - 3) - 2 * R32 > 12.0
    assert r.best.legal


def test_unknown_enemy_unit_and_a_unit_without_infiltrate_are_input_errors():
    data = scenario([{"id": "a", "type": "Infantry", "models": [marine(3, 3)]}])
    w = world_of(data)
    with pytest.raises(ScenarioError, match="no unit with this id"):
        find_threats(w, "nope", parse_goal(None, w), GRID)
    with pytest.raises(ScenarioError, match="cannot Infiltrate"):
        find_threats(w, "a", parse_goal(None, w), GRID)
    with pytest.raises(ScenarioError, match="unknown goal"):
        parse_goal("closest", w)


def test_denial_one_unit_matches_checker_brute_force():
    data = scenario([{"id": "a", "type": "Infantry", "place": True, "models": [marine()]}])
    w = world_of(data)
    r = deny(w, "inf", SETTINGS)
    assert r.status == "optimal" and r.legal
    screen = build_screen(w, ["inf"], SETTINGS)
    sp = screen.spaces[0]
    brute = {}
    for c in screen.cands["a"]:
        brute[c.anchor] = len(checker_legal_anchors(w, sp, c.positions))
    assert r.area_sq_in == pytest.approx(min(brute.values()) * GRID ** 2)
    assert brute[r.placements[0].anchor] == min(brute.values())
    assert r.enemy_best.legal


def _brute_combos(screen):
    ids = [g.id for g in screen.groups]
    for combo in itertools.product(*(screen.cands[i] for i in ids)):
        if any(a.overlaps(b) for a, b in itertools.combinations(combo, 2)):
            continue
        yield dict(zip(ids, combo, strict=True))


def _legal_exact(screen, chosen):
    """Direct exact predicate (the checker's rule, not the CP-SAT relations)."""
    sp = screen.spaces[0]
    mine = [Placed(g.host, chosen[g.id].footprints, tuple(f"{m.unit_id}/{m.id}" for m in g.models))
            for g in screen.groups]
    return [p for p in sp.positions if sp.legal_one(p, mine)]


def test_denial_two_units_and_protected_point_match_brute_force():
    data = scenario([{"id": "a", "type": "Infantry", "place": True, "models": [marine()]},
                     {"id": "b", "type": "Infantry", "place": True, "models": [marine(), marine()]}],
                    width=36, depth=21)
    w = world_of(data)
    screen = build_screen(w, ["inf"], SETTINGS)
    areas = {}
    for chosen in _brute_combos(screen):
        legal = _legal_exact(screen, chosen)
        areas[tuple(c.anchor for c in chosen.values())] = (len({p.anchor for p in legal}), legal)
    best = min(v[0] for v in areas.values())
    r = deny(w, "inf", SETTINGS)
    assert r.status == "optimal" and r.legal
    assert r.anchors_left == best
    assert r.greedy_area_sq_in >= r.area_sq_in
    # protect (12, 8) by 6": feasible iff some combination leaves no legal base within 6"
    protect = (12.0, 8.0, 6.0)
    ok = [k for k, (n, legal) in areas.items()
          if all(point_distance(p.footprints, protect[:2]) > 6.0 for p in legal)]
    rp = deny(w, "inf", SETTINGS, protect=protect)
    if ok:
        assert rp.status == "optimal" and rp.legal
        assert rp.anchors_left == min(areas[k][0] for k in ok)
        assert all(math.hypot(x - 12, y - 8) - R32 > 6.0 for x, y in rp.legal_cells)
    else:
        assert rp.status == "infeasible"
    # greedy is a legal deployment too
    g = greedy(screen)
    assert len(g) == 2 and not g["a"].overlaps(g["b"])


def test_minmax_value_matches_brute_force_and_replies_pass_the_checker():
    data = scenario([{"id": "a", "type": "Infantry", "place": True, "models": [marine()]},
                     {"id": "b", "type": "Infantry", "place": True, "models": [marine()]}])
    w = world_of(data)
    point = (12.0, 6.0)
    screen = build_screen(w, ["inf"], SETTINGS, target=point)
    cap = math.hypot(24, 18)
    brute = max(min((point_distance(p.footprints, point) for p in _legal_exact(screen, chosen)), default=cap)
                for chosen in _brute_combos(screen))
    r = minmax(w, ["inf"], point, SETTINGS)
    assert r.status == "optimal"
    assert r.value_in == pytest.approx(brute)
    assert r.gap_in == 0.0
    assert r.enemy_replies and all(e.legal for e in r.enemy_replies)


# ----------------------------------------------------------------------------- CLI on real files
ROOT = Path(__file__).resolve().parents[1]
DENY_SMALL = ROOT / "tests" / "assets" / "deny-small.yaml"


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "planner", *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=300)


def _cli_in_process(*args):
    """The same command line in this process (typer's runner), as ``_cli`` gives it (returncode, stdout,
    stderr): for the refusals of bad input, which the commands raise themselves (exit 2) and
    ``planner.cli.main`` passes through unchanged; a process start each would cost a second or more."""
    from types import SimpleNamespace

    from typer.testing import CliRunner

    from planner.cli.commands import app

    r = CliRunner().invoke(app, list(args))
    return SimpleNamespace(returncode=r.exit_code, stdout=r.stdout, stderr=r.stderr)


def test_cli_plan_with_a_deny_goal_writes_a_legal_screen_and_threats_agree(tmp_path):
    out = tmp_path / "screen.yaml"
    js = tmp_path / "deny.json"
    p = _cli("plan", str(DENY_SMALL), "--time-limit", "30", "--workers", "1", "--out", str(out), "--json", str(js))
    assert p.returncode == 0, p.stdout + p.stderr
    report = json.loads(js.read_text())
    assert report["status"] == "optimal" and report["legal"] is True
    assert report["area_sq_in"] <= report["greedy_area_sq_in"] <= report["area_before_sq_in"]
    assert "legal arrivals left" in p.stdout
    c = _cli("check", str(out))
    assert c.returncode == 0, c.stdout
    t = _cli("threats", str(out), "--enemy-unit", "inf", "--goal", "near_point:18,6", "--json", "-")
    assert t.returncode == 0, t.stderr
    threat = json.loads(t.stdout)
    # the threat command measures the same legal area on the planned deployment
    assert threat["legal_area_sq_in"] == pytest.approx(report["area_sq_in"])
    assert threat["best"]["legal"] is True


def test_cli_threats_bad_input_exits_2_naming_the_option():
    p = _cli("threats", str(DENY_SMALL), "--enemy-unit", "nope")
    assert p.returncode == 2
    assert "field --unit:" in p.stderr and "nope" in p.stderr
    p = _cli_in_process("threats", str(DENY_SMALL), "--enemy-unit", "inf", "--goal", "near_point:x")
    assert p.returncode == 2 and "--goal" in p.stderr


def test_deny_goal_needs_protect_and_radius_together():
    data = scenario([{"id": "a", "type": "Infantry", "place": True, "models": [marine()]}])
    data["goals"] = [{"kind": "deny", "enemy_unit": "inf", "protect": [10, 10]}]
    with pytest.raises(ValueError, match="radius"):
        Scenario.model_validate(data)


def test_minmax_two_enemy_units_matches_brute_force():
    data = scenario([{"id": "a", "type": "Infantry", "place": True, "models": [marine()]},
                     {"id": "b", "type": "Infantry", "place": True, "models": [marine()]}])
    # a second Infiltrator with a 40 mm base: each arrives on its own after my set-up
    data["armies"][1]["units"].append({"id": "inf2", "type": "Infantry", "rules": ["Infiltrate"],
                                       "setup": "reserves", "models": [{"base": {"diameter_mm": 40}}]})
    w = world_of(data)
    point = (6.0, 6.0)
    screen = build_screen(w, ["inf", "inf2"], SETTINGS, target=point)
    cap = math.hypot(24, 18)

    def value(chosen):
        best = cap
        for sp in screen.spaces:
            mine = [Placed(g.host, chosen[g.id].footprints, tuple(f"{m.unit_id}/{m.id}" for m in g.models))
                    for g in screen.groups]
            for p in sp.positions:
                if sp.legal_one(p, mine):
                    best = min(best, point_distance(p.footprints, point))
        return best

    brute = max(value(chosen) for chosen in _brute_combos(screen))
    r = minmax(w, ["inf", "inf2"], point, SETTINGS)
    assert r.status == "optimal"
    assert r.value_in == pytest.approx(brute)
    assert all(e.legal for e in r.enemy_replies)


def test_cli_plan_deny_reply_objective(tmp_path):
    src = DENY_SMALL.read_text().replace("{kind: deny, enemy_unit: inf}",
                                         "{kind: deny, enemy_unit: inf, objective: reply, protect: [18, 4]}")
    f = tmp_path / "reply.yaml"
    f.write_text(src)
    js = tmp_path / "r.json"
    p = _cli("plan", str(f), "--time-limit", "30", "--workers", "1", "--json", str(js))
    assert p.returncode == 0, p.stdout + p.stderr
    rep = json.loads(js.read_text())
    assert rep["status"] == "optimal" and rep["legal"] is True
    assert rep["reply_value_in"] == pytest.approx(rep["reply_bound_in"])
    assert rep["enemy_best"]["legal"] is True
    bad = tmp_path / "bad.yaml"
    bad.write_text(DENY_SMALL.read_text().replace("{kind: deny, enemy_unit: inf}", "{kind: deny, enemy_unit: inf, "
                                                                                     "objective: reply}"))
    p = _cli("plan", str(bad))
    assert p.returncode == 2 and "protect" in p.stderr


# ----------------------------------------------------------------------------- alternating Infiltrate
def _alt_scenario(n_a, n_b, w=18, d=15):
    def inf(i, p):
        return {"id": f"{p}{i}", "type": "Infantry", "rules": ["Infiltrate"], "setup": "infiltrate", "place": True,
                "models": [marine()]}
    a = [inf(i, "a") for i in range(n_a)] + [{"id": "afix", "type": "Infantry", "models": [marine(3, 2)]}]
    b = [inf(i, "b") for i in range(n_b)] + [{"id": "bfix", "type": "Infantry", "models": [marine(w - 3, d - 2)]}]
    return {"ruleset": "hh2", "battlefield": {"width": w, "depth": d},
            "terrain": [{"id": "wall", "kind": "solid", "traits": ["blocks_line_of_sight"],
                         "footprint": [[6, 7], [11, 7], [11, 8], [6, 8]]}],
            "deployment_zones": [{"id": "za", "player": "A", "polygon": [[0, 0], [w, 0], [w, 4], [0, 4]]},
                                 {"id": "zb", "player": "B", "polygon": [[0, d - 4], [w, d - 4], [w, d], [0, d]]}],
            "armies": [{"player": "A", "units": a}, {"player": "B", "units": b}]}


def _alt_legal(data, placements):
    """Checker verdict with the given Infiltrators placed in this order (others in Reserves)."""
    d = copy.deepcopy(data)
    for army in d["armies"]:
        for u in army["units"]:
            if u.get("place"):
                u.pop("place")
                if u["id"] in placements:
                    x, y, order = placements[u["id"]]
                    u["setup"] = {"method": "infiltrate", "order": order}
                    u["models"][0].update(x=x, y=y)
                else:
                    u["setup"] = "reserves"
    return check_deployment(resolve(Scenario.model_validate(d), require_positions=True)).legal


def test_alternation_one_a_side_matches_checker_brute_force():
    data = _alt_scenario(1, 1)
    w = world_of(data)
    point = (9.0, 7.5)
    r = alternate(w, "A", point, GRID, top_k=None)
    assert r.legal and len(r.line) == 2
    cap = math.hypot(18, 15)
    grid = [(i * GRID, j * GRID) for i in range(7) for j in range(6)]

    def dist(xy):
        return max(0.0, math.hypot(xy[0] - point[0], xy[1] - point[1]) - R32)

    def value(first, second, sign):
        best = None
        for f in grid:
            if not _alt_legal(data, {first: (*f, 1)}):
                continue
            replies = [dist(s) for s in grid if _alt_legal(data, {first: (*f, 1), second: (*s, 2)})]
            v = sign * ((min(replies) if replies else cap) - dist(f))
            best = v if best is None else max(best, v)
        return best

    # A first: A maximises (B's distance - A's); B first: B minimises it, i.e. maximises the negation
    assert r.value_if_first == pytest.approx(value("a0", "b0", 1))
    assert r.value_if_second == pytest.approx(-value("b0", "a0", 1))
    assert r.first == ("A" if r.value_if_first >= r.value_if_second else "B")


def test_alternation_three_a_side_is_legal_and_refuses_four():
    data = _alt_scenario(3, 3, w=30, d=24)
    r = alternate(world_of(data), "A", (15.0, 12.0), GRID, top_k=1)
    assert r.legal and len(r.line) == 6
    assert [m.order for m in r.line] == [1, 2, 3, 4, 5, 6]
    with pytest.raises(ScenarioError, match="at most 3"):
        alternate(world_of(_alt_scenario(4, 1, w=30, d=24)), "A", (15.0, 12.0), GRID)


@pytest.mark.parametrize(("gap", "kill9", "near12"), [(9.0, True, False), (9.01, False, True), (12.0, False, True),
                                                       (12.01, False, False)])
def test_relation_boundaries_within_9_and_12_inches(gap, kill9, near12):
    from planner.geometry.shapes import footprint
    from planner.schema import RoundBase

    data = scenario([{"id": "a", "type": "Infantry", "place": True, "models": [marine()]}], terrain=[])
    w = world_of(data)
    sp = _space(w)
    target = next(p for p in sp.positions if p.anchor == (12.0, 15.0))
    # my base straight below the enemy anchor, base edge to base edge exactly ``gap``
    fp = footprint(RoundBase(diameter_mm=32), 12.0, 15.0 - gap - 2 * R32, 0.0)
    rel = sp.relation(w.units["a"], (fp,))
    assert (target.index in rel.kill9) is kill9
    assert (target.index in rel.near12) is near12


def test_denial_with_a_vehicle_hull_matches_checker_brute_force():
    # a tank without a base (hull 4.6" x 2.9"): distances go through the bounds and exact hull measures
    data = scenario([{"id": "tank", "type": "Vehicle", "place": True,
                      "models": [{"base": {"length_in": 4.6, "width_in": 2.9}}]}])
    w = world_of(data)
    r = deny(w, "inf", SETTINGS)
    assert r.status == "optimal" and r.legal
    screen = build_screen(w, ["inf"], SETTINGS)
    sp = screen.spaces[0]
    brute = {c.index: len(checker_legal_anchors(w, sp, c.positions)) for c in screen.cands["tank"]}
    assert r.anchors_left == min(brute.values())
    assert r.enemy_best.legal


def test_cli_alternate_reports_the_choice_and_a_checked_line(tmp_path):
    f = ROOT / "tests" / "assets" / "alternate-small.yaml"
    js = tmp_path / "alt.json"
    p = _cli("alternate", str(f), "--winner", "A", "--point", "15,12", "--json", str(js))
    assert p.returncode == 0, p.stdout + p.stderr
    rep = json.loads(js.read_text())
    assert rep["legal"] is True and len(rep["line"]) == 4
    assert rep["first"] == ("A" if rep["value_if_first"] >= rep["value_if_second"] else "B")
    # the winner's line alternates between the players, starting with the chosen one
    assert [m["player"] for m in rep["line"]] == ([rep["first"], "B" if rep["first"] == "A" else "A"] * 2)
    bad = _cli_in_process("alternate", str(f), "--winner", "Z", "--point", "15,12")
    assert bad.returncode == 2 and "--winner" in bad.stderr
    bad = _cli_in_process("alternate", str(f), "--winner", "A", "--point", "15")
    assert bad.returncode == 2 and "--point" in bad.stderr


# ----------------------------------------------------------------------------- pictures and report formats
def _svg_ids(data: bytes) -> list[str]:
    from defusedxml import ElementTree

    return [el.get("id") for el in ElementTree.fromstring(data).iter() if el.get("id")]


def test_cli_threats_render_draws_exactly_the_checkers_legal_anchors(tmp_path):
    from tests.test_render import svg_cells

    data = scenario([{"id": "a", "type": "Infantry", "models": [marine(9, 3)]},
                     {"id": "b", "type": "Infantry", "models": [marine(18, 3)]}])
    f = tmp_path / "threat.yaml"
    f.write_text(json.dumps(data))
    svg, js = tmp_path / "t.svg", tmp_path / "t.json"
    p = _cli("threats", str(f), "--enemy-unit", "inf", "--goal", "near_point:10,6", "--grid", str(GRID),
             "--render", str(svg), "--json", str(js))
    assert p.returncode == 0, p.stdout + p.stderr
    rep = json.loads(js.read_text())
    drawn = svg_cells(svg.read_bytes(), "threat-area-inf", 24.0)
    # one square per legal anchor: the drawn cells add up to the reported area
    assert len(drawn) == rep["legal_anchors"] == round(rep["legal_area_sq_in"] / GRID ** 2)
    assert rep["render"]["counts"]["threat_cell"] == len(drawn)
    assert all(s == pytest.approx(GRID, rel=1e-3) for *_, s in drawn)
    # ... centred on exactly the anchors where the independent checker accepts the enemy unit
    w = world_of(data)
    brute = checker_legal_anchors(w, _space(w))
    assert {(round(x, 2), round(y, 2)) for x, y, _ in drawn} == {(round(x, 2), round(y, 2)) for x, y in brute}
    ids = _svg_ids(svg.read_bytes())
    assert [i for i in ids if i.startswith("threat-best-inf-")] == ["threat-best-inf-1"]
    assert not [i for i in ids if i.startswith("base-inf-")]  # the enemy is not on the table before it arrives
    assert "legal cells" in p.stdout
    bad = _cli("threats", str(f), "--enemy-unit", "inf", "--render", str(tmp_path / "t.pdf"))
    assert bad.returncode == 2 and "--render" in bad.stderr


def test_cli_plan_deny_picture_and_report_formats(tmp_path):
    from tests.test_render import svg_cells

    src = DENY_SMALL.read_text().replace("{kind: deny, enemy_unit: inf}",
                                         "{kind: deny, enemy_unit: inf, protect: [18, 4], radius: 10}")
    f = tmp_path / "protect.yaml"
    f.write_text(src)
    svg, js = tmp_path / "d.svg", tmp_path / "d.json"
    p = _cli("plan", str(f), "--time-limit", "30", "--workers", "1", "--render", str(svg), "--json", str(js),
             "--format", "html")
    assert p.returncode == 0, p.stdout + p.stderr
    rep = json.loads(js.read_text())
    assert rep["status"] == "optimal" and rep["legal"] is True and rep["grid_in"] == 2.0
    drawn = svg_cells(svg.read_bytes(), "threat-area-inf", 36.0)
    assert len(drawn) == rep["anchors_left"] == round(rep["area_sq_in"] / rep["grid_in"] ** 2)
    assert {(round(x, 2), round(y, 2)) for x, y, _ in drawn} == {tuple(c) for c in rep["legal_cells"]}
    # no legal arrival left has a base within 10" of the protected point (anchor = the base's centre)
    assert all(math.hypot(x - 18, y - 4) - R32 > 10 for x, y, _ in drawn)
    ids = _svg_ids(svg.read_bytes())
    assert "protected-point" in ids and "protected-radius" in ids
    assert {i for i in ids if i.startswith("base-")} == {"base-a-1", "base-b-1", "base-b-2"}
    assert "threat-best-inf-1" in ids
    # --format html: one page on stdout with the same picture inline and the report's statements
    assert p.stdout.startswith("<!DOCTYPE html>") and 'id="threat-area-inf"' in p.stdout
    assert f"{rep['area_sq_in']:g} sq in" in p.stdout and "Ruling on my deployment" in p.stdout
    assert "legal arrivals left (o)" not in p.stdout + p.stderr  # the text report is not mixed in
    # --format json: the JSON report on stdout; markdown with the picture embedded
    p = _cli("plan", str(f), "--time-limit", "30", "--workers", "1", "--format", "json")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["legal_cells"] == rep["legal_cells"] and out["area_sq_in"] == rep["area_sq_in"]
    p = _cli("plan", str(f), "--time-limit", "30", "--workers", "1", "--format", "markdown")
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("# Denial plan") and "data:image/png;base64," in p.stdout
    assert "| a |" in p.stdout and "| b |" in p.stdout


def test_cli_plan_deny_refuses_next_and_unit():
    for run, extra in ((_cli, ["--next"]), (_cli_in_process, ["--unit", "a"])):
        p = run("plan", str(DENY_SMALL), *extra)
        assert p.returncode == 2, p.stdout + p.stderr
        assert extra[0] in p.stderr and "deny" in p.stderr


# ----------------------------------------------------------------------------- Deep Strike arrivals (10th/11th)
def _ds_scenario(ruleset, my_x, n_ds=1):
    return {"ruleset": ruleset, "battlefield": {"width": 24, "depth": 18},
            "deployment_zones": [{"id": "me-z", "player": "me", "polygon": [[0, 0], [24, 0], [24, 18], [0, 18]]}],
            "armies": [
                {"player": "me", "units": [{"id": "a", "type": "Infantry", "models": [marine(my_x, 9)]}]},
                {"player": "en", "units": [{"id": "ds", "type": "Infantry", "abilities": ["Deep Strike"],
                                            "setup": {"method": "reserves", "arrival": "deep_strike"},
                                            "models": [marine() for _ in range(n_ds)]}]}]}


@pytest.mark.parametrize("ruleset,limit", [("wh40k10", 9.0), ("wh40k11", 8.0)])
def test_deepstrike_threats_more_than_the_limit_from_my_models(ruleset, limit):
    from planner.adversary.ds_threats import deepstrike_threats

    exact_x = 2 + limit + 2 * R32  # the anchor (2, 9) is exactly `limit` from my model: not "more than"
    r = deepstrike_threats(world_of(_ds_scenario(ruleset, exact_x)), "ds", parse_goal(None, None), 1.0)
    assert (2.0, 9.0) not in set(map(tuple, r.legal_cells))
    x0 = exact_x + 0.01
    w = world_of(_ds_scenario(ruleset, x0))
    r = deepstrike_threats(w, "ds", parse_goal("near_point:20,9", w), 1.0)
    # independent geometry: wholly on the 24" x 18" battlefield and more than `limit` from my base
    brute = {(float(x), float(y)) for x in range(25) for y in range(19)
             if R32 <= x <= 24 - R32 and R32 <= y <= 18 - R32 and math.hypot(x - x0, y - 9) - 2 * R32 > limit}
    assert (2.0, 9.0) in brute
    assert set(map(tuple, r.legal_cells)) == brute
    assert r.legal_anchors == len(brute) and r.legal_area_sq_in == pytest.approx(len(brute))
    best = min(max(0.0, math.hypot(x - 20, y - 9) - R32) for x, y in brute)
    assert r.best.value == pytest.approx(best) and r.best.legal is True
    assert r.deployment_legal is True
    with pytest.raises(ScenarioError, match="near_units"):
        deepstrike_threats(w, "ds", parse_goal("sight", w), 1.0)


def test_cli_threats_deepstrike_render(tmp_path):
    from tests.test_render import svg_cells

    f = tmp_path / "ds.yaml"
    f.write_text(json.dumps(_ds_scenario("wh40k10", 12.0, n_ds=2)))
    svg, js = tmp_path / "ds.svg", tmp_path / "ds.json"
    p = _cli("threats", str(f), "--enemy-unit", "ds", "--grid", "1", "--render", str(svg), "--json", str(js))
    assert p.returncode == 0, p.stdout + p.stderr
    assert "arrive by Deep Strike" in p.stdout
    rep = json.loads(js.read_text())
    drawn = svg_cells(svg.read_bytes(), "threat-area-ds", 24.0)
    assert len(drawn) == rep["legal_anchors"] == round(rep["legal_area_sq_in"]) > 0
    assert {(round(x, 2), round(y, 2)) for x, y, _ in drawn} == {tuple(c) for c in rep["legal_cells"]}
    ids = _svg_ids(svg.read_bytes())
    assert sorted(i for i in ids if i.startswith("threat-best-ds-")) == ["threat-best-ds-1", "threat-best-ds-2"]
    # both models of the best arrival are more than 9" from my model (base edge to base edge)
    for x, y, _ in rep["best"]["models"]["ds"]:
        assert math.hypot(x - 12, y - 9) - 2 * R32 > 9


def test_denial_candidates_are_one_per_anchor_the_cheapest_there():
    """Issue 18: the denial area grew from 796 to 860 sq in when candidates began to stream in cost
    order (several formations at one anchor used up the cap). One per anchor restores the spread."""
    from dataclasses import replace

    from planner.solve.candidates import CandidateBuilder
    from planner.solve.goals import point_term

    data = scenario([{"id": "b", "type": "Infantry", "place": True, "models": [marine(), marine(), marine()]}],
                    width=36, depth=21)
    w = world_of(data)
    cap = 7
    screen = build_screen(w, ["inf"], replace(SETTINGS, candidates_per_unit=cap))
    cs = screen.cands["b"]
    assert len(cs) == cap
    assert len({c.anchor for c in cs}) == cap  # one candidate per anchor
    # the same stream, uncapped: each kept candidate is the first (cheapest) at its anchor, and
    # the anchors kept are the first `cap` anchors the stream reaches
    g = screen.groups[0]
    bf = screen.world.scenario.battlefield
    builder = CandidateBuilder(screen.table, [], SETTINGS.grid_in, [point_term(bf.width / 2, bf.depth / 2)],
                               SETTINGS.margin_in)
    first: dict = {}
    for c in builder.stream(g):
        first.setdefault(c.anchor, c)
        if len(first) == cap:
            break
    assert [c.anchor for c in cs] == list(first)
    assert [c.formation for c in cs] == [c.formation for c in first.values()]


def test_threats_on_an_illegal_deployment_list_its_violations(tmp_path):
    # my two models overlap: the threats are still computed, and the checker's violation is named
    from planner.adversary.threats import find_threats

    data = scenario([{"id": "a", "type": "Infantry", "models": [marine(4, 2), marine(4.5, 2)]}])
    r = find_threats(world_of(data), "inf", parse_goal(None, None), 1.0)
    assert r.deployment_legal is False and r.deployment_violations
    assert r.deployment_violations == ['unit a: model 1 overlaps a/2 by 0.760" [hh2.bases.no_overlap]',
                                       'unit a: model 2 overlaps a/1 by 0.760" [hh2.bases.no_overlap]']
    path = tmp_path / "illegal.yaml"
    path.write_text(json.dumps(data))
    p = _cli("threats", str(path), "--enemy-unit", "inf")
    assert p.returncode == 1 and "already illegal" in p.stdout and "hh2.bases.no_overlap" in p.stdout
    p = _cli("threats", str(path), "--enemy-unit", "inf", "--allow-illegal-table")
    assert p.returncode == 1, p.stdout + p.stderr
    assert "the deployment itself is not legal" in p.stdout
    tail = p.stdout.split("the deployment itself is not legal", 1)[1]
    assert r.deployment_violations[0] in tail and r.deployment_violations[1] in tail
