"""Last session's leftovers (7): ``planner threats`` keeps what it found on Ctrl-C; the Scout
first-facing warning wherever the deployment is judged; a bad ``setup.from`` point named as such;
the interrupted message prefix in one place; generated legality labels name the check's rule."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from planner.cli import app
from tests.test_scout_first_facing import HULL, hh2_scenario

ROOT = Path(__file__).resolve().parents[1]


def _write(tmp_path: Path, data: dict, name: str = "s.yaml") -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(data))
    return path


# ------------------------------------------------------------------ 3: a bad setup.from point is named as such

@pytest.mark.parametrize(("point", "words"), [
    ([30, 6, 0, 5], "a first position is [x, y] or [x, y, facing]; 4 numbers given"),
    ([30], "a first position is [x, y] or [x, y, facing]; 1 number given"),
    ([30, 6, 400], "a facing is between -360 and 360 degrees, got 400"),
])
def test_a_bad_scout_first_position_is_reported_at_setup_from_i_with_its_value(tmp_path, point, words):
    data = hh2_scenario([30, 6], HULL)
    data["armies"][0]["units"][0]["setup"]["from"] = [point]
    path = _write(tmp_path, data)
    js = tmp_path / "err.json"
    r = CliRunner().invoke(app, ["check", str(path), "--json", str(js)])
    assert r.exit_code == 2, r.output
    got = json.loads(js.read_text())
    assert got["location"] == "armies[0].units[0].setup.from[0]"
    assert got["value"] == str(point).replace("'", "")
    assert got["error"] == (f"{path}: field armies[0].units[0].setup.from[0]: {words} (value: {got['value']})")
    assert "Traceback" not in r.stderr and r.stderr.count("error:") == 1


def test_a_first_position_with_a_facing_still_loads(tmp_path):
    path = _write(tmp_path, hh2_scenario([30, 6, -360], HULL))
    assert CliRunner().invoke(app, ["check", str(path)]).exit_code in (0, 1)


# ------------------------------------------------------------------ 4: the interrupted prefix, one function

def test_the_interrupted_prefix_is_one_function_of_the_stop_flag():
    from planner.solve import stop

    assert stop.said("feasible: value 3\"") == "feasible: value 3\""  # no stop requested: as it is
    stop.request()
    try:
        assert stop.said("feasible: value 3\"") == "interrupted (Ctrl-C): feasible: value 3\""
    finally:
        stop.clear()


def test_the_min_max_stopped_says_interrupted_as_the_denial_does(tmp_path):
    """``objective: reply`` (min-max) and the plain denial both prefix their message with
    :func:`planner.solve.stop.said`; the min-max run stopped is marked interrupted (exit 3)."""
    import io

    from rich.console import Console

    from planner.cli.adversary import run_deny_plan
    from planner.solve import stop
    from planner.world import load_scenario

    src = (ROOT / "tests" / "assets" / "deny-small.yaml").read_text()
    path = tmp_path / "reply.yaml"
    path.write_text(src.replace("{kind: deny, enemy_unit: inf}",
                                "{kind: deny, enemy_unit: inf, objective: reply, protect: [18, 4]}"))
    out = io.StringIO()
    stop.request()
    try:
        r = run_deny_plan(load_scenario(str(path)), 60, 1, 0, Console(file=out, width=300))
    finally:
        stop.clear()
    assert r.interrupted and r.status == "feasible" and r.exit_code == 3
    assert r.message.startswith("interrupted (Ctrl-C): feasible: value ")
    assert r.message.count("interrupted (Ctrl-C)") == 1  # said once
    assert f"Min-max against inf: feasible - {r.message}; " in out.getvalue()


# ------------------------------------------------------------------ 1: planner threats, Ctrl-C (the stop flag)
# (the real SIGINTs, through the command line: tests/test_interrupts.py)

def _ds_world():
    from tests.test_adversary import _ds_scenario, world_of

    return world_of(_ds_scenario("wh40k10", 12.0))


def test_a_deep_strike_threat_scan_stopped_keeps_the_anchors_judged(monkeypatch):
    """The scan stops at the stop request; what it found is the whole scan's answer over the
    anchors judged (row by row), marked interrupted and incomplete: exit 3."""
    from planner.adversary.ds_threats import deepstrike_threats
    from planner.adversary.threats import parse_goal
    from planner.deepstrike import procedure
    from planner.solve import stop

    world = _ds_world()
    goal = parse_goal("near_point:20,9", world)
    whole = deepstrike_threats(world, "ds", goal, 1.0, stoppable=True)
    assert whole.complete and not whole.interrupted and whole.exit_code == 0
    assert (whole.positions_judged, whole.positions) == (25 * 19, 25 * 19)
    calls = []
    best_setup = procedure.best_setup

    def stop_at_the_100th(*a, **k):
        calls.append(1)
        if len(calls) == 100:
            stop.request()
        return best_setup(*a, **k)

    monkeypatch.setattr(procedure, "best_setup", stop_at_the_100th)
    try:
        cut = deepstrike_threats(world, "ds", goal, 1.0, stoppable=True)
    finally:
        stop.clear()
    assert cut.interrupted and not cut.complete and cut.exit_code == 3
    assert (cut.positions_judged, cut.positions) == (100, 25 * 19)
    judged = {(float(i), float(j)) for j in range(19) for i in range(25) if j * 25 + i < 100}
    assert set(map(tuple, cut.legal_cells)) == set(map(tuple, whole.legal_cells)) & judged
    best = min((c for c in cut.legal_cells), key=lambda c: math.hypot(c[0] - 20, c[1] - 9))
    assert cut.best is not None and tuple(cut.best.anchor) == tuple(best)
    assert cut.message.startswith("interrupted (Ctrl-C): the scan was cut after 100 of 475 arrival positions")


def test_threats_stopped_before_any_position_is_judged_is_a_plain_ctrl_c():
    """Nothing found yet: as any Ctrl-C (the command line's "interrupted", exit 3, nothing written)."""
    import io

    from rich.console import Console

    from planner.cli.adversary import run_threats
    from planner.solve import stop

    stop.request()
    try:
        with pytest.raises(KeyboardInterrupt):
            run_threats(_ds_world(), "ds", None, 1.0, False, Console(file=io.StringIO()))
    finally:
        stop.clear()


def test_the_threats_exit_code_of_a_partial_answer():
    from planner.adversary.threats import EnemyPlacement, ThreatResult

    def result(**kw):
        base = {"enemy_unit": "e", "goal": "g", "grid_in": 2.0, "legal_anchors": 1, "legal_area_sq_in": 4.0,
                "wall_time_s": 0.0, "deployment_legal": True}
        return ThreatResult(**{**base, **kw})

    legal = EnemyPlacement(unit="e", formation="f", anchor=(0, 0), value=1.0, models={}, legal=True)
    assert result(best=legal).exit_code == 0
    assert result(best=None).exit_code == 1  # proven by the rules alone: no legal arrival
    assert result(best=None, limit="grid").exit_code == 3  # over the grid only: not a proof
    assert result(best=None, limit="formations").exit_code == 3
    assert result(best=legal, complete=False, interrupted=True).exit_code == 3  # no proof yet
    assert result(best=None, complete=False, interrupted=True).exit_code == 3  # none found *yet*
    assert result(best=legal, complete=False, interrupted=True, deployment_legal=False).exit_code == 1
    assert result(best=legal.model_copy(update={"legal": False}), complete=False).exit_code == 1
    assert result(best=legal, interrupted=True).exit_code == 0  # whole answer (Ctrl-C as it was checked)
