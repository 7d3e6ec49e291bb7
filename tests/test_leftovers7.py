"""Last session's leftovers (7): ``planner threats`` keeps what it found on Ctrl-C; the Scout
first-facing warning wherever the deployment is judged; a bad ``setup.from`` point named as such;
the interrupted message prefix in one place; generated legality labels name the check's rule."""

from __future__ import annotations

import json
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
