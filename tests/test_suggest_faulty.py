"""``check --suggest`` when two models of one unit are at fault in different places (session 16):
no one-model move or one-part move makes the unit legal, so the suggestion re-formed the whole
unit. The family now also moves the models the checker names as failing a rule together, each to
a grid point within ``REPAIR_RADIUS_IN`` of it, the rest standing
(:func:`planner.solve.candidates.faulty_moved`).

The two cases, 32 mm marines (radius ``R32``) in the blue zone y 36-48 of a 72" x 48" table:

- ``ends``: ten in a line along y at x 30, 1.3" apart from y 36.2 to 47.9: model 1 is 0.43"
  out of the zone, model 10 0.53" off the table (and out of the zone). Was 29.360" (all ten
  re-formed in a 3-rank block); now models 1 and 10 step in beside their neighbours:
  (30, 36.2) -> (28.5, 37) and (30, 47.9) -> (28.5, 47), 1.700" + 1.749" = 3.449".
- ``cut``: ten in a line along x at y 42, 1.5" apart, models 1 and 10 each 3" further out (3.24"
  from the rest, edge to edge; coherency 2"). Was 16.5" (model 1 carried to the far end, between
  models 9 and 10); now each moves 1.5" back in: 3.0".
- ``near`` (40k, 10th edition): ten Infiltrators in a line 9.5" from the enemy zone, models 1 and
  10 (the ends) 8.5" from it (more than 9" needed). Was 10.0" (all ten 1" back); now the two ends
  step back: (19.76, 20.76) -> (20, 22) and (33.26, 20.76) -> (33.5, 22), 1.263" each.
"""

from __future__ import annotations

import itertools
import json
import math

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from planner.cli.commands import app
from planner.geometry.shapes import footprint
from planner.legality.checker import check_deployment
from planner.schema import Scenario
from planner.solve import candidates
from planner.solve.candidates import REPAIR_MAX_FAULTY, REPAIR_RADIUS_IN, faulty_moved, repair_points
from planner.solve.suggest import apply_moves, suggest_moves
from planner.world import resolve

R32 = 16 / 25.4

ENDS_BEFORE_IN = 29.360016371394078  # the whole unit re-formed (the suggestion before this family)
CUT_BEFORE_IN = 16.5  # model 1 carried to the far end (a cut-off part moved alone)


def marine(x, y):
    return {"base": {"diameter_mm": 32}, "type": "infantry", "x": round(x, 3), "y": round(y, 3)}


def scenario(models):
    return {
        "ruleset": "hh2",
        "battlefield": {"width": 72, "depth": 48},
        "deployment_zones": [
            {"id": "red-zone", "player": "red", "polygon": [[0, 0], [72, 0], [72, 12], [0, 12]]},
            {"id": "blue-zone", "player": "blue", "polygon": [[0, 36], [72, 36], [72, 48], [0, 48]]},
        ],
        "armies": [
            {"player": "red", "units": [{"id": "tac", "models": [marine(10, 5)]}]},
            {"player": "blue", "units": [{"id": "squad", "models": models}]},
        ],
    }


def ends():
    return scenario([marine(30, 36.2 + 1.3 * i) for i in range(10)])


def cut():
    xs = [20 + 1.5 * i for i in range(10)]
    xs[0] -= 3.0
    xs[-1] += 3.0
    return scenario([marine(x, 42) for x in xs])


def near():
    x0 = 10 + 2 * R32 + 8.5
    return {
        "ruleset": "wh40k10",
        "battlefield": {"width": 54, "depth": 48},
        "deployment_zones": [
            {"id": "red-zone", "player": "red", "polygon": [[0, 0], [54, 0], [54, 12], [0, 12]]},
            {"id": "blue-zone", "player": "blue", "polygon": [[0, 36], [54, 36], [54, 48], [0, 48]]},
        ],
        "armies": [
            {"player": "red", "units": [{"id": "left", "models": [marine(10, 11)]}]},
            {"player": "blue", "units": [{"id": "scouts", "abilities": ["Infiltrators"], "setup": "infiltrate",
                                          "models": [marine(x0 + 1.5 * i, 11 + 2 * R32 + (8.5 if i in (0, 9) else 9.5))
                                                     for i in range(10)]}]},
        ],
    }


def world_of(data):
    return resolve(Scenario.model_validate(data), require_positions=True)


def checked_after(world, s):
    """The independent checker's findings of the unit with the suggestion's moves applied."""
    after = check_deployment(resolve(Scenario.model_validate(apply_moves(world, s.moves)), world.file))
    return [v for v in after.violations if v.unit == s.unit_id]


def test_ends_two_models_out_of_the_zone_move_alone():
    world = world_of(ends())
    before = check_deployment(world)
    assert {(v.rule, tuple(v.failing_models)) for v in before.violations} == {
        ("hh2.battlefield", ("10",)), ("hh2.deployment.wholly_within_zone", ("10", "1"))}
    (s,) = suggest_moves(world, time_limit_s=10).units
    assert s.status == "optimal" and s.legal_after and s.family == "unit_with_characters"
    assert sorted((mv.model_id, mv.to_x, mv.to_y) for mv in s.moves) == [("1", 28.5, 37.0), ("10", 28.5, 47.0)]
    assert s.total_move_in == pytest.approx(math.hypot(1.5, 0.8) + math.hypot(1.5, 0.9))  # 3.449"
    assert s.total_move_in < ENDS_BEFORE_IN / 8
    assert checked_after(world, s) == [] and s.new_violations == []
    assert "models the checker names moved at once" in s.proof


def test_cut_two_models_out_of_coherency_move_back_in():
    world = world_of(cut())
    assert [(v.rule, v.failing_models) for v in check_deployment(world).violations] == [("hh2.coherency", ["1", "10"])]
    (s,) = suggest_moves(world, time_limit_s=10).units
    assert s.status == "optimal" and s.legal_after
    assert sorted((mv.model_id, mv.to_x, mv.to_y) for mv in s.moves) == [("1", 18.5, 42.0), ("10", 35.0, 42.0)]
    assert s.total_move_in == pytest.approx(3.0) and s.total_move_in < CUT_BEFORE_IN
    assert checked_after(world, s) == []


def test_near_two_infiltrators_too_near_the_enemy_zone_step_back():
    world = world_of(near())
    assert [(v.rule, v.failing_models) for v in check_deployment(world).violations] == [
        ("wh40k10.infiltrators.zone_distance", ["1", "10"])]
    (s,) = suggest_moves(world, time_limit_s=10).units
    assert s.status == "optimal" and s.legal_after
    assert sorted((mv.model_id, mv.to_x, mv.to_y) for mv in s.moves) == [("1", 20.0, 22.0), ("10", 33.5, 22.0)]
    assert s.total_move_in == pytest.approx(2 * math.hypot(0.24, 1.24)) and s.total_move_in < 10.0
    assert checked_after(world, s) == []


def test_cli_ends(tmp_path):
    """The real command on a file: exit 1 (the verdict as given), the JSON suggestion moves models
    1 and 10 only, and the --suggest-out file checks legal."""
    src, js, out = tmp_path / "ends.yaml", tmp_path / "r.json", tmp_path / "moved.yaml"
    src.write_text(yaml.safe_dump(ends(), sort_keys=False), encoding="utf-8")
    r = CliRunner().invoke(app, ["check", str(src), "--suggest", "--json", str(js), "--suggest-out", str(out)])
    assert r.exit_code == 1, r.output
    (u,) = json.loads(js.read_text())["suggestions"]["units"]
    assert [m["model_id"] for m in u["moves"]] == ["1", "10"] and round(u["total_move_in"], 3) == 3.449
    assert CliRunner().invoke(app, ["check", str(out)]).exit_code == 0


# --------------------------------------------------------------------------- the shapes themselves


def line_models(n=6):
    w = world_of(scenario([marine(20 + 1.5 * i, 42) for i in range(n)]))
    return w.units["squad"].models


def shapes(models, faulty, fits=None, grid=0.5):
    fps = [footprint(m.base, m.x, m.y, m.facing) for m in models]
    return faulty_moved(models, fps, grid, (0.0, 0.0), faulty, fits)


def moved_of(models, form):
    return {i: (dx, dy) for i, (m, (dx, dy)) in enumerate(zip(models, form.offsets, strict=True))
            if (dx, dy) != (m.x, m.y)}


def test_how_many_faulty_models():
    """Two or three faulty models (``REPAIR_MAX_FAULTY``) get shapes; one or four get none."""
    models = line_models()
    assert REPAIR_MAX_FAULTY == 3
    assert shapes(models, {0}) == [] and shapes(models, {0, 2, 3, 5}) == []
    for faulty in ({0, 5}, {0, 2, 5}):
        out = shapes(models, faulty)
        assert len(out) == candidates.REPAIR_MAX_COMBINATIONS
        for form in out:
            moved = moved_of(models, form)
            assert 2 <= len(moved) and set(moved) <= faulty  # only faulty models move, at least two
            for i, (x, y) in moved.items():
                assert math.hypot(x - models[i].x, y - models[i].y) <= REPAIR_RADIUS_IN + 1e-9
                assert (x, y) in repair_points(models[i].x, models[i].y, 0.5)


def test_fits_is_asked_and_obeyed():
    """A place ``fits`` refuses is never taken (here: model 1 only below y 42, model 6 only above)."""
    models = line_models()
    asked = []

    def fits(i, fp):
        asked.append(i)
        return fp.cy < 42 if i == 0 else fp.cy > 42

    out = shapes(models, {0, 5}, fits)
    assert set(asked) == {0, 5} and out
    for form in out:
        moved = moved_of(models, form)
        assert set(moved) == {0, 5} and moved[0][1] < 42 < moved[5][1]
    assert shapes(models, {0, 5}, lambda i, fp: i == 0) == []  # nowhere for model 6 (not even where it stands)


@settings(max_examples=12, deadline=None)
@given(cap=st.integers(1, 60),
       case=st.sampled_from([(0.5, (0, 5)), (1.0, (0, 5)), (1.0, (0, 3, 5)), (0.5, (1, 2)), (1.0, (1, 2, 3))]))
def test_the_cheapest_combinations_in_order(cap, case):
    """The shapes are the ``REPAIR_MAX_COMBINATIONS`` least total moves of every combination (each
    faulty model where it stands or at one of its repair points, two or more moved, bases clear of
    each other and of the standing models), cheapest first: checked against the whole product."""
    grid, pick = case
    models = line_models()
    fps = [footprint(m.base, m.x, m.y, m.facing) for m in models]
    standing = [f for j, f in enumerate(fps) if j not in pick]

    def clear(a, b):
        return math.hypot(a[0] - b[0], a[1] - b[1]) > 2 * R32 + 1e-9

    lists = [[(models[i].x, models[i].y)] + [p for p in repair_points(models[i].x, models[i].y, grid)
                                               if all(clear(p, (f.cx, f.cy)) for f in standing)] for i in pick]
    costs = []
    for combo in itertools.product(*lists):
        moves = [math.hypot(x - models[i].x, y - models[i].y) for i, (x, y) in zip(pick, combo, strict=True)]
        if sum(d > 1e-9 for d in moves) >= 2 and all(clear(a, b) for a, b in itertools.combinations(combo, 2)):
            costs.append(sum(moves))
    costs.sort()
    old = candidates.REPAIR_MAX_COMBINATIONS
    candidates.REPAIR_MAX_COMBINATIONS = cap
    try:
        out = shapes(models, set(pick), grid=grid)
    finally:
        candidates.REPAIR_MAX_COMBINATIONS = old
    got = [sum(math.hypot(x - models[i].x, y - models[i].y) for i, (x, y) in moved_of(models, f).items())
           for f in out]
    assert len(got) == min(cap, len(costs))
    assert got == pytest.approx(costs[:len(got)], abs=1e-9)
