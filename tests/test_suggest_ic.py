"""``check --suggest`` for a joined Independent Character out of coherency (fresh user, session 14,
finding 2): a squad at (50, 40) and (51.5, 40), its praetor at (60, 40), all 32 mm. The praetor
alone moves to (54.5, 40), 5.5" (3" centre to centre from the squad's model at 51.5: 1.74" edge
to edge, within 2"); the suggestion was 9.364", moving all three models, and called it least.
"""

from __future__ import annotations

import json
import math

import pytest
import yaml
from typer.testing import CliRunner

from planner.cli.commands import app
from planner.legality.checker import check_deployment
from planner.schema import Scenario
from planner.solve.suggest import apply_moves, suggest_moves
from planner.world import resolve

R32 = 16 / 25.4


def scenario(px=60.0, squad_x=(50.0, 51.5)):
    def m(x, y, **kw):
        return {"base": {"diameter_mm": 32}, "type": "infantry", "x": x, "y": y, **kw}

    return {
        "ruleset": "hh2",
        "battlefield": {"width": 72, "depth": 48},
        "deployment_zones": [
            {"id": "red-zone", "player": "red", "polygon": [[0, 0], [72, 0], [72, 12], [0, 12]]},
            {"id": "blue-zone", "player": "blue", "polygon": [[0, 36], [72, 36], [72, 48], [0, 48]]},
        ],
        "armies": [
            {"player": "red", "units": [{"id": "tac", "models": [m(10, 5)]}]},
            {"player": "blue", "units": [
                {"id": "squad", "models": [m(x, 40) for x in squad_x]},
                {"id": "praetor", "rules": ["Independent Character"],
                 "setup": {"method": "deployment_zone", "joined": "squad"},
                 "models": [m(px, 40, subtypes=["Character"])]},
            ]},
        ],
    }


def world_of(data):
    return resolve(Scenario.model_validate(data), require_positions=True)


def praetor_legal_at(x, y):
    data = scenario()
    data["armies"][1]["units"][1]["models"][0].update(x=x, y=y)
    return not any(v.unit == "praetor" for v in check_deployment(world_of(data)).violations)


def test_the_praetor_alone_moves_5_5_inches():
    world = world_of(scenario())
    assert [v.rule for v in check_deployment(world).violations] == ["hh2.ic.coherency"]
    (s,) = suggest_moves(world, time_limit_s=10).units
    assert s.unit_id == "praetor" and s.status == "optimal" and s.legal_after and not s.new_violations
    assert s.family == "character_alone" and s.moved_units == ["praetor"]
    assert [(mv.unit_id, mv.model_id, mv.to_x, mv.to_y) for mv in s.moves] == [("praetor", "1", 54.5, 40.0)]
    assert s.total_move_in == pytest.approx(5.5)
    assert s.proof.startswith("least over the moves of praetor alone (squad standing)")
    assert 'on the 0.5" grid' in s.proof
    # the checker passes the whole scenario with the move applied
    assert check_deployment(world_of(apply_moves(world, s.moves))).legal


def test_no_grid_point_nearer_for_the_praetor():
    """Brute force with the checker: of the 0.5" grid points within 5.5" of where the praetor
    stands, none nearer than (54.5, 40) is legal for it (so 5.5" is least over every position of
    the praetor alone on the grid, not only over the planner's candidates)."""
    best = math.inf
    for i in range(-11, 12):
        for j in range(-11, 12):
            x, y = 60 + 0.5 * i, 40 + 0.5 * j
            d = math.hypot(x - 60, y - 40)
            if d <= 5.5 + 1e-9 and d < best - 1e-9 and praetor_legal_at(x, y):
                best = d
    assert best == pytest.approx(5.5)
    assert not praetor_legal_at(55.0, 40.0)  # 3.5" centre to centre: 2.24" edge to edge, out of 2"


def test_a_finding_of_the_host_searches_the_whole_group():
    """The squad's own two models 6.5" apart, the praetor 2.5" past the second (hh2.coherency, a
    finding of the squad, not of the character): the family searched is the group's; the cut-off
    model moves 3.5" in (45 -> 48.5: 3" centre to centre from 51.5), the others stand."""
    world = world_of(scenario(px=54.0, squad_x=(45.0, 51.5)))
    rules = {(v.unit, v.rule) for v in check_deployment(world).violations}
    assert rules == {("squad", "hh2.coherency")}
    by = {s.unit_id: s for s in suggest_moves(world, time_limit_s=10).units}
    s = by["squad"]
    assert s.status == "optimal" and s.legal_after and s.family == "unit_with_characters"
    assert s.moved_units == ["squad", "praetor"] and "one part moved alone" in s.proof
    assert [(mv.unit_id, mv.model_id, mv.to_x, mv.to_y) for mv in s.moves] == [("squad", "1", 48.5, 40.0)]
    assert s.total_move_in == pytest.approx(3.5)
    assert check_deployment(world_of(apply_moves(world, s.moves))).legal


def test_cli_text_and_json(tmp_path):
    src = tmp_path / "ic3.yaml"
    src.write_text(yaml.safe_dump(scenario()), encoding="utf-8")
    out, js = tmp_path / "fixed.yaml", tmp_path / "r.json"
    r = CliRunner().invoke(app, ["check", str(src), "--suggest-out", str(out), "--json", str(js), "--time-limit", "5"])
    assert r.exit_code == 1, r.output  # the verdict of the scenario as given
    assert 'praetor [hh2.ic.coherency]: move 5.500" in total, least over the moves of praetor alone' in r.output
    assert "least on the grid" not in r.output
    (u,) = json.loads(js.read_text())["suggestions"]["units"]
    assert (u["status"], u["family"], u["total_move_in"]) == ("optimal", "character_alone", 5.5)
    assert CliRunner().invoke(app, ["check", str(out)]).exit_code == 0


def test_the_part_reach_covers_every_rulesets_coherency_range():
    """The part-moved shapes go to every offset that ends the part within PART_REACH_IN of the
    standing models: farther, the group cannot be coherent, only if no ruleset's range (edge to
    edge, on the table) is wider."""
    from planner.rules.registry import all_rulesets
    from planner.solve.candidates import PART_REACH_IN

    ranges = {(rs.id, name): getattr(rs, name) for rs in all_rulesets() for name in dir(rs)
              if name.startswith("COHERENCY") and name.endswith("_IN") and name not in
              ("COHERENCY_VERTICAL_IN", "COHERENCY_ALL_WITHIN_IN") and isinstance(getattr(rs, name), int | float)}
    assert ("hh2", "COHERENCY_SKIRMISH_IN") in ranges and ("wh40k10", "COHERENCY_IN") in ranges
    assert max(ranges.values()) == PART_REACH_IN == 3.0


def test_moved_parts_names_the_character_the_host_and_the_cut_off_models():
    from planner.solve.candidates import moved_parts

    world = world_of(scenario(px=54.0, squad_x=(45.0, 51.5)))
    models = world.units["squad"].models + world.units["praetor"].models
    parts = moved_parts(models, 2.0)
    assert parts == [("squad alone", frozenset({0, 1})), ("praetor alone", frozenset({2})),
                     ("cut-off squad/1", frozenset({0}))]
