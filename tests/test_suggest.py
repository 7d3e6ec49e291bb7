"""``check --suggest`` (issue #17): the least total movement that makes an illegal unit legal.

The brute-force tests enumerate, without the planner's generator, every placement of the unit on
the same candidate grid (the planner's formations at every grid point, the unit's shape as it
stands moved by whole grid steps, that shape with one model moved to a grid point within
``REPAIR_RADIUS_IN``, that shape with two or three of the models the checker names as failing a
rule each standing or moved to a grid point within ``REPAIR_RADIUS_IN`` (every combination: no
per-model filter, no cap), and that shape with its cut-off models, each group of them and all
together, moved by whole grid steps to anywhere), judge each with the independent checker, and
show that no legal one moves less than the suggestion (total of the centre-to-centre distances,
inches).
"""

from __future__ import annotations

import copy
import itertools
import json
import math
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rich.console import Console
from typer.testing import CliRunner

from planner.cli.commands import app
from planner.legality.checker import check_deployment
from planner.schema import RoundBase, Scenario
from planner.solve.candidates import REPAIR_RADIUS_IN, formations
from planner.solve.suggest import SuggestReport, apply_moves, suggest_moves
from planner.world import load_scenario, resolve

ROOT = Path(__file__).resolve().parents[1]
BUNDLED = ROOT / "scenarios" / "short-edge-chogorian-vs-berserkers.yaml"
GOLDEN = ROOT / "tests" / "golden" / "short-edge-suggest.txt"
R32 = 16 / 25.4  # radius of a 32 mm base, inches


def marine(x, y):
    return {"base": {"diameter_mm": 32}, "x": x, "y": y}


def small(enemy, mine, *, width=20, depth=10):
    return {
        "ruleset": "hh2",
        "battlefield": {"width": width, "depth": depth},
        "deployment_zones": [
            {"id": "red-zone", "player": "red", "polygon": [[0, 0], [4, 0], [4, depth], [0, depth]]},
            {"id": "blue-zone", "player": "blue", "polygon": [[width - 6, 0], [width, 0], [width, depth],
                                                               [width - 6, depth]]},
        ],
        "armies": [{"player": "red", "units": enemy}, {"player": "blue", "units": mine}],
    }


def world_of(data):
    for army in data["armies"]:
        for u in army["units"]:
            u.setdefault("type", "Infantry")
    return resolve(Scenario.model_validate(data), require_positions=True)


def unit_legal(data, uid, where):
    """The checker's verdict on unit ``uid`` with its models at ``where`` [(x, y, facing)]."""
    d = copy.deepcopy(data)
    for army in d["armies"]:
        for u in army["units"]:
            if u["id"] == uid:
                u["models"] = [{**m, "x": x, "y": y, "facing": f} for m, (x, y, f) in zip(u["models"], where,
                                                                                         strict=True)]
    report = check_deployment(world_of(d))
    return not any(v.unit == uid for v in report.violations)


def grid_placements(data, uid, grid):
    """Every placement of the candidate grid of unit ``uid``, as model positions (see the module doc)."""
    w = world_of(data)
    models = w.units[uid].models
    width, depth = data["battlefield"]["width"], data["battlefield"]["depth"]
    points = [(i * grid, j * grid) for i in range(int(width / grid) + 1) for j in range(int(depth / grid) + 1)]
    out = []
    for form in formations(models):
        out += [[(ax + dx, ay + dy, form.facing) for dx, dy in form.offsets] for ax, ay in points]
    here = [(m.x, m.y, m.facing) for m in models]
    px = round(sum(x for x, _, _ in here) / len(here) / grid) * grid
    py = round(sum(y for _, y, _ in here) / len(here) / grid) * grid
    out += [[(x - px + ax, y - py + ay, f) for x, y, f in here] for ax, ay in points]
    for i, (x, y, f) in enumerate(here):
        for gx, gy in points:
            d = math.hypot(gx - x, gy - y)
            if 1e-9 < d <= REPAIR_RADIUS_IN + 1e-9:
                out.append(here[:i] + [(gx, gy, f)] + here[i + 1:])
    faulty = sorted({i for v in check_deployment(w).violations if v.unit == uid
                     for i, m in enumerate(models) if m.id in v.failing_models})
    if 2 <= len(faulty) <= 3:
        near = [[(x, y)] + [(gx, gy) for gx, gy in points if 1e-9 < math.hypot(gx - x, gy - y) <= REPAIR_RADIUS_IN + 1e-9]
                for x, y, _ in (here[i] for i in faulty)]
        for pick in itertools.product(*near):
            where = list(here)
            for i, (x, y) in zip(faulty, pick, strict=True):
                where[i] = (x, y, here[i][2])
            out.append(where)
    for part in cut_off_parts(here, R32):
        for i in range(-int(width / grid), int(width / grid) + 1):
            for j in range(-int(depth / grid), int(depth / grid) + 1):
                out.append([(x + i * grid, y + j * grid, f) if k in part else (x, y, f)
                            for k, (x, y, f) in enumerate(here)])
    return out, here


def cut_off_parts(here, radius, coherency=2.0):
    """The models outside the largest group connected within ``coherency`` (round bases of one
    ``radius``): each other group, and all of them together if more than one."""
    groups: list[set[int]] = []
    for k, (x, y, _) in enumerate(here):
        near = [g for g in groups if any(math.hypot(x - here[j][0], y - here[j][1]) - 2 * radius <= coherency + 1e-9
                                         for j in g)]
        merged = {k}.union(*near)
        groups = [g for g in groups if g not in near] + [merged]
    groups.sort(key=lambda g: (-len(g), min(g)))
    cut = groups[1:]
    return cut + ([set().union(*cut)] if len(cut) > 1 else [])


def brute_force_least_move(data, uid, grid):
    placements, here = grid_placements(data, uid, grid)
    best = math.inf
    for where in placements:
        move = sum(math.hypot(a[0] - b[0], a[1] - b[1]) for a, b in zip(where, here, strict=True))
        if move < best - 1e-9 and unit_legal(data, uid, where):
            best = move
    return best


CASES = {
    # two Infiltrators 8.5" from the enemy in plain sight (no terrain): they need more than 12"
    "infiltrate-too-close": (small([{"id": "foe", "setup": "deployment_zone", "models": [marine(2, 5)]}],
                                   [{"id": "scouts", "rules": ["Infiltrate"], "setup": "infiltrate",
                                     "models": [marine(2 + 2 * R32 + 8.5, 5), marine(2 + 2 * R32 + 8.5, 6.5)]}]),
                             "scouts"),
    # three marines in their zone, one 3" from the others (coherency 2")
    "coherency": (small([{"id": "foe", "setup": "deployment_zone", "models": [marine(2, 5)]}],
                        [{"id": "squad", "setup": "deployment_zone",
                          "models": [marine(16, 3), marine(17.5, 3), marine(17.5, 3 + 2 * R32 + 3.0)]}]),
                  "squad"),
    # five marines, two of them 7.5" (centres) from the other three: no one model can bridge them
    # (within 2" of both needs centres at most 2 x 3.26" apart); the two move 4.5" each, together
    "cut-off-pair": (small([{"id": "foe", "setup": "deployment_zone", "models": [marine(2, 5)]}],
                           [{"id": "squad", "setup": "deployment_zone",
                             "models": [marine(15, 2), marine(16.5, 2), marine(18, 2), marine(15, 9.5),
                                        marine(16.5, 9.5)]}]),
                     "squad"),
    # one model hanging 0.3" over the edge of its zone
    "zone-edge": (small([{"id": "foe", "setup": "deployment_zone", "models": [marine(2, 5)]}],
                        [{"id": "lone", "setup": "deployment_zone", "models": [marine(14 + R32 - 0.3, 5)]}]),
                  "lone"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_no_smaller_move_on_the_grid(case):
    data, uid = CASES[case]
    world = world_of(data)
    assert any(v.unit == uid for v in check_deployment(world).violations), "the case must start illegal"
    report = suggest_moves(world, time_limit_s=10, grid_in=1.0)
    (s,) = report.units
    assert s.unit_id == uid and s.status == "optimal" and s.legal_after
    where = {(m.x, m.y): m for m in world.units[uid].models}
    moved = {(mv.from_x, mv.from_y): (mv.to_x, mv.to_y, mv.to_facing) for mv in s.moves}
    after = [moved.get((x, y), (x, y, where[(x, y)].facing)) for x, y in where]
    assert unit_legal(data, uid, after)  # the independent checker agrees
    assert math.isclose(s.total_move_in, sum(mv.distance_in for mv in s.moves), abs_tol=1e-9)
    best = brute_force_least_move(data, uid, 1.0)
    assert best < math.inf
    assert best - 1e-9 <= s.total_move_in <= best + 1e-3  # the planner's costs are in 1/1000"


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(method=st.sampled_from(["deployment_zone", "infiltrate"]),
       xy=st.lists(st.tuples(st.floats(11, 19.5), st.floats(0.5, 9.5)), min_size=1, max_size=3))
def test_every_suggestion_passes_the_checker(method, xy):
    """Random small units: whatever the planner suggests, the independent checker passes the unit
    after the moves; an already legal unit is left alone."""
    data = small([{"id": "foe", "setup": "deployment_zone", "models": [marine(2, 5)]}],
                 [{"id": "u", "setup": method, "rules": ["Infiltrate"] if method == "infiltrate" else [],
                   "models": [marine(round(x, 2), round(y, 2)) for x, y in xy]}])
    world = world_of(data)
    (s,) = suggest_moves(world, ["u"], time_limit_s=5, grid_in=1.0).units
    here = [(m.x, m.y, m.facing) for m in world.units["u"].models]
    if unit_legal(data, "u", here):
        assert s.status == "already_legal"
        return
    assert s.status in ("optimal", "feasible", "infeasible") or (s.status, s.limit) == ("unknown", "grid")
    if s.status in ("infeasible", "unknown"):
        return
    moved = {mv.model_id: (mv.to_x, mv.to_y, mv.to_facing) for mv in s.moves}
    after = [moved.get(m.id, (m.x, m.y, m.facing)) for m in world.units["u"].models]
    assert s.legal_after and unit_legal(data, "u", after)
    assert math.isclose(s.total_move_in, sum(math.hypot(a[0] - b[0], a[1] - b[1]) for a, b in zip(after, here,
                                                                                                  strict=True)))


def test_cut_off_pair_values():
    """The two cut-off marines move together, 4.5" each straight in (y 9.5 -> 5: 3" centre to
    centre, 1.74" edge to edge, from the marines at y 2), the other three stand: 9" in total. Before
    the cut-off family no candidate moved only them (one model cannot bridge the gap)."""
    data, uid = CASES["cut-off-pair"]
    (s,) = suggest_moves(world_of(data), time_limit_s=10).units
    assert s.status == "optimal" and s.legal_after and s.family == "unit_with_characters"
    assert sorted((mv.model_id, mv.to_x, mv.to_y) for mv in s.moves) == [("4", 15.0, 5.0), ("5", 16.5, 5.0)]
    assert s.total_move_in == pytest.approx(9.0)
    assert "the models cut off" in s.proof and 'on the 0.5" grid' in s.proof


def test_zone_edge_values():
    """The lone model moves to the nearest grid point that puts its base wholly within the zone."""
    data, uid = CASES["zone-edge"]
    (s,) = suggest_moves(world_of(data), grid_in=1.0).units
    (mv,) = s.moves
    assert (mv.to_x, mv.to_y) == (15.0, 5.0)  # 14.63 - 0.3 + 0.63 needs x >= 14.63: the grid point 15
    assert mv.distance_in == pytest.approx(15.0 - (14 + R32 - 0.3))


def test_legal_unit_and_unknown_id():
    data, _ = CASES["zone-edge"]
    w = world_of(data)
    (s,) = suggest_moves(w, ["foe"]).units
    assert s.status == "already_legal" and s.moves == [] and s.total_move_in == 0.0
    from planner.errors import ScenarioError

    with pytest.raises(ScenarioError, match="no unit with this id"):
        suggest_moves(w, ["nobody"])
    with pytest.raises(ScenarioError, match="time_limit_s"):
        suggest_moves(w, time_limit_s=float("nan"))
    with pytest.raises(ScenarioError, match="grid_in"):
        suggest_moves(w, grid_in=0.0)


@pytest.fixture(scope="module")
def bundled() -> tuple:
    world = load_scenario(BUNDLED, require_positions=True)
    return world, suggest_moves(world, time_limit_s=10)


def test_bundled_every_illegal_unit(bundled):
    """Every illegal unit of the bundled scenario gets a move after which the checker passes it,
    except the Centurion, whose rules do not depend on where it stands."""
    world, report = bundled
    before = check_deployment(world)
    illegal = [uid for uid in world.units if any(v.unit == uid for v in before.violations)]
    assert [s.unit_id for s in report.units] == illegal
    by = {s.unit_id: s for s in report.units}
    assert by["ws-centurion"].status == "infeasible"
    assert by["ws-centurion"].rule_ids == ["hh2.ic.infiltrate", "hh2.infiltrate.eligible"]
    for uid, s in by.items():
        if uid == "ws-centurion":
            continue
        assert s.status == "optimal" and s.legal_after and s.moves, uid
        after = check_deployment(resolve(Scenario.model_validate(apply_moves(world, s.moves)), world.file))
        assert not any(v.unit == uid for v in after.violations), uid
    # one marine back in, by whole grid steps (cut off: it moves alone): 2", was 2.01" to a grid point
    assert by["we-tactical-2"].total_move_in == pytest.approx(2.0)
    assert [m.model_id for m in by["we-tactical-2"].moves] == ["10"]
    assert by["ws-recon"].total_move_in == pytest.approx(2.5)  # five models 0.5" back: within 6"
    # the two marines out of the zone (models 1 and 6, one above the other) could step in past their
    # neighbours, the other eight and their praetor standing (3.002"), but that puts a marine in
    # sight of ws-seekers, legal where they stand: the least move that breaks nothing is taken
    # instead, all ten 0.5" in (5"), and the message names the smaller one and what it would break
    t1 = by["we-tactical-1"]
    assert t1.total_move_in == pytest.approx(5.0) and t1.new_violations == []
    assert sorted(mv.model_id for mv in t1.moves) == [str(i) for i in sorted(range(1, 11), key=str)]
    assert {mv.unit_id for mv in t1.moves} == {"we-tactical-1"}
    small = math.hypot(0.7, 1.5) + math.hypot(0.7, 1.15)
    assert (f'a move of {small:.3f}" (the named models moved together) would break ws-seekers: '
            'hh2.infiltrate.hidden: this one breaks nothing') in t1.message
    assert not [v for s in by.values() for v in s.new_violations]


def render(report: SuggestReport) -> str:
    from planner.report.suggest import print_suggestions

    console = Console(record=True, width=140, file=open("/dev/null", "w"), color_system=None,  # noqa: SIM115
                      soft_wrap=True)
    print_suggestions(report, console)
    return console.export_text()


def test_bundled_golden_text(bundled):
    expected = GOLDEN.read_text(encoding="utf-8").splitlines()
    assert render(bundled[1]).splitlines() == expected, \
        f"{GOLDEN.name} differs: regenerate with python tests/test_suggest.py and review the diff"


def test_bundled_formats(bundled, capsys):
    """Markdown, HTML and JSON carry the same suggestions as the text."""
    from planner.report.formats import check_output

    world, report = bundled
    legality = check_deployment(world)
    console = Console(file=open("/dev/null", "w"))  # noqa: SIM115
    check_output(world, legality, "json", None, console, verbose=False, suggestions=report)
    data = json.loads(capsys.readouterr().out)
    assert data["legal"] is False and data["suggestions"] == report.to_dict()
    tac2 = next(u for u in data["suggestions"]["units"] if u["unit_id"] == "we-tactical-2")
    assert tac2["moves"][0]["to_x"] == 64.5 and tac2["moves"][0]["to_y"] == 29.7
    assert tac2["family"] == "unit_with_characters" and tac2["proof"].startswith("least over the candidate moves")
    check_output(world, legality, "markdown", None, console, verbose=False, suggestions=report)
    md = capsys.readouterr().out
    assert "## Suggested moves" in md and "| we-tactical-2 | 10 | (66.50, 29.70) | (64.50, 29.70) | 2.000\" |" in md
    check_output(world, legality, "html", None, console, verbose=False, suggestions=report)
    html = capsys.readouterr().out
    assert '<section id="suggestions">' in html and html.index('id="suggestions"') < html.index("</body>")
    assert "<td>we-tactical-2</td><td>10</td><td>(66.50, 29.70)</td><td>(64.50, 29.70)</td>" in html


def test_cli_suggest_small(tmp_path):
    """On a real file: exit 1 (the verdict as given), text and --json, --suggest-out written and legal,
    the input untouched; --suggest-out onto the input is refused (exit 2)."""
    data, uid = CASES["coherency"]
    src = tmp_path / "in.yaml"
    src.write_text(yaml.safe_dump(data), encoding="utf-8")
    original = src.read_bytes()
    out, js = tmp_path / "moved.yaml", tmp_path / "r.json"
    r = CliRunner().invoke(app, ["check", str(src), "--suggest-out", str(out), "--json", str(js),
                                 "--time-limit", "5"])
    assert r.exit_code == 1, r.output
    assert "Suggested moves" in r.output and "squad [hh2.coherency]: move" in r.output
    assert src.read_bytes() == original
    report = json.loads(js.read_text())["suggestions"]
    assert report["units"][0]["status"] == "optimal"
    r2 = CliRunner().invoke(app, ["check", str(out)])
    assert r2.exit_code == 0, r2.output
    r3 = CliRunner().invoke(app, ["check", str(src), "--suggest-out", str(src)])
    assert r3.exit_code == 2 and "--suggest-out" in r3.output
    assert src.read_bytes() == original


def test_round_based_units_get_no_facing_change_reported(bundled):
    """The solver may turn a round base (it changes nothing): the suggestion neither reports nor
    applies it ("facing 0 -> 90" was printed for the Falcon's Claws, all on round bases)."""
    world, report = bundled
    moves = [mv for s in report.units for mv in s.moves]
    round_only = {u for u in {mv.unit_id for mv in moves}
                  if all(isinstance(m.base, RoundBase) for m in world.units[u].models)}
    assert {"ws-falcons-claws", "ws-centurion"} <= round_only  # the Centurion moves with the Claws it joins
    for mv in moves:
        if mv.unit_id in round_only:
            assert mv.to_facing == mv.from_facing, mv
    assert " -> 90" not in render(report) and "facing 0 -> " not in render(report)


def test_a_non_round_base_keeps_the_solvers_turn_and_a_round_one_does_not():
    from planner.solve.suggest import _moves

    def scen(facing):
        return small([], [{"id": "r", "setup": "deployment_zone", "models": [marine(16, 3) | {"facing": facing}]},
                          {"id": "o", "setup": "deployment_zone",
                           "models": [{"base": {"length_mm": 60, "width_mm": 35}, "x": 17, "y": 7, "facing": facing}]}])

    before, after = world_of(scen(0)), world_of(scen(90))
    (r,) = _moves(before, after, ["r"])
    (o,) = _moves(before, after, ["o"])
    assert (r.from_facing, r.to_facing) == (0, 0)
    assert (o.from_facing, o.to_facing) == (0, 90)


if __name__ == "__main__":  # regenerate the golden text
    w = load_scenario(BUNDLED, require_positions=True)
    GOLDEN.write_text(render(suggest_moves(w, time_limit_s=10)), encoding="utf-8")
    print(f"wrote {GOLDEN}")


def test_stay_close_goal_in_a_plan():
    """The goal in a scenario file: ``planner plan`` keeps a placed unit where it stands if it is
    legal there (objective 0), and a placed unit without positions is an input error naming it."""
    from planner.errors import ScenarioError
    from planner.solve.planner import SolverSettings, plan_deployment

    data, _ = CASES["coherency"]
    d = copy.deepcopy(data)
    d["goals"] = [{"kind": "stay_close"}]
    d["armies"][1]["units"][0]["models"][2]["y"] = 3 + 2 * R32 + 1.0  # back in coherency: legal as it stands
    d["armies"][1]["units"][0]["place"] = True
    result = plan_deployment(world_of(d), SolverSettings(time_limit_s=5, workers=1, grid_in=1.0, margin_in=0.0))
    assert result.status == "optimal" and result.legal and result.objective == 0.0
    for m in d["armies"][1]["units"][0]["models"]:
        del m["x"], m["y"]
    with pytest.raises(ScenarioError, match="stay_close") as err:
        plan_deployment(resolve(Scenario.model_validate(d)), SolverSettings(time_limit_s=5, workers=1))
    assert "armies[1].units[0]" in str(err.value)


def test_of_two_overlapping_units_only_the_first_moves():
    # the fresh user's finding: each unit was moved as if the other stayed, so both moved
    data = small([{"id": "r", "setup": {"method": "deployment_zone"}, "models": [marine(2, 5)]}],
                 [{"id": "a", "setup": {"method": "deployment_zone"}, "models": [marine(17, 5)]},
                  {"id": "b", "setup": {"method": "deployment_zone"}, "models": [marine(17.5, 5)]}])
    world = world_of(data)
    before = {(v.unit, v.rule) for v in check_deployment(world).violations}
    assert {u for u, _ in before} == {"a", "b"}  # the overlap is a finding of both units
    rep = suggest_moves(world, time_limit_s=5)
    a, b = rep.units
    assert a.unit_id == "a" and a.status == "optimal" and a.moves and a.legal_after
    # a moved the least distance that clears b: centres 2 x R32 apart, on the 0.5" grid
    assert a.total_move_in == pytest.approx(1.0)
    assert b.unit_id == "b" and b.status == "already_legal" and not b.moves
    assert "once a moved as suggested above" in b.message and b.rule_ids
    after = world_of(rep.moved_scenario(world))
    assert check_deployment(after).legal
