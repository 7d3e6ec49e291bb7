"""Ctrl-C (SIGINT) always ends a command with its "interrupted" message and exit 3, wherever it
lands: CP-SAT's own SIGINT handler (which swallowed a Ctrl-C during a solve and left SIGINT to the
system default afterwards, so that a later Ctrl-C killed the process: exit 130, no message) is
replaced by :func:`planner.solve.cpsat.solve`."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


def _as_from_a_terminal() -> None:
    """In the child: SIGINT at its default, as for a command typed at a terminal. A suite started in
    the background by a shell without job control (a CI runner, ``cmd &``) ignores SIGINT, and an
    ignored signal stays ignored across exec: Python then installs no handler and a Ctrl-C could
    not reach the command at all (what these tests send is the user's Ctrl-C, not the runner's)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)

SOLVES = r"""
import os, signal, threading, time
from ortools.sat.python import cp_model
from planner.solve.cpsat import solve

def model():
    m = cp_model.CpModel()
    xs = [m.new_int_var(0, 1000, f"x{i}") for i in range(60)]
    for i in range(59):
        m.add(xs[i] + xs[i + 1] <= 1000 - i)
    m.add_all_different(xs)
    m.maximize(sum((i % 7 + 1) * x for i, x in enumerate(xs)))
    return m

s = cp_model.CpSolver()
s.parameters.max_time_in_seconds = 0.05
s.parameters.num_workers = 1
solve(s, model())
try:  # after a solve: Python's handler is still the one
    os.kill(os.getpid(), signal.SIGINT)
    time.sleep(0.2)
    print("no KeyboardInterrupt")
except KeyboardInterrupt:
    print("after: KeyboardInterrupt")
s.parameters.max_time_in_seconds = 30
threading.Timer(0.1, os.kill, (os.getpid(), signal.SIGINT)).start()
t0 = time.monotonic()
try:  # during a solve: the search stops at once and Python raises
    solve(s, model())
    print("during: returned")
except KeyboardInterrupt:
    print(f"during: KeyboardInterrupt after {time.monotonic() - t0:.1f} s")
"""


def test_sigint_after_and_during_a_cp_sat_solve_is_a_keyboard_interrupt():
    r = subprocess.run([sys.executable, "-c", SOLVES], env=ENV, capture_output=True, text=True, timeout=60,
                       preexec_fn=_as_from_a_terminal)
    assert r.returncode == 0, (r.returncode, r.stderr)
    lines = r.stdout.split("\n")
    assert lines[0] == "after: KeyboardInterrupt"
    assert lines[1].startswith("during: KeyboardInterrupt after ")
    assert float(lines[1].split()[-2]) < 3.0


def test_generate_interrupted_after_lines_were_written_says_so_and_exits_3(tmp_path):
    out = tmp_path / "gx"
    p = subprocess.Popen([sys.executable, "-m", "planner", "generate", "--count", "400", "--seed", "3", "--kind",
                          "puzzle", "--out", str(out), "--workers", "1"], env=ENV, cwd=tmp_path,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=_as_from_a_terminal)
    lines = out / "scenarios.jsonl"
    deadline = time.monotonic() + 60
    try:
        # the moment the bug needed: once a line (a CP-SAT solve) is done, then again mid-solve
        while time.monotonic() < deadline and not (lines.exists() and lines.read_bytes().count(b"\n") >= 1):
            time.sleep(0.02)
        time.sleep(0.05)
        p.send_signal(signal.SIGINT)
        _, err = p.communicate(timeout=30)
    finally:
        p.kill()
    assert p.returncode == 3, (p.returncode, err)
    kept = lines.read_text().splitlines()
    assert f"interrupted: {len(kept)} of 400 lines kept" in err and "--resume" in err
    assert "interrupted" not in [ln.strip() for ln in err.splitlines()], err  # said once, not the bare word after
    assert "Traceback" not in err
    assert [json.loads(x)["name"] for x in kept] == [f"puzzle-{i}" for i in range(len(kept))]
    assert not (out / "generate.lock").exists()  # the folder is free again


# --------------------------------------------------------------------------- planner plan: Ctrl-C keeps the plan

PLAN_SCENARIO = ROOT / "scenarios" / "roster-strike-force-plan.yaml"
"""Five units from a real roster: a greedy plan within a few seconds, optimal only after ~20-30 s."""

PLAN_CLI = r"""
import os, signal, sys
from planner.report import progress
from planner.solve import planner as solve_planner

said = []
update = progress.SolveProgress.update

def tell(self, obj, bound, elapsed):  # the parent sends Ctrl-C once a plan exists
    if obj is not None and not said:
        said.append(1)
        print("PLAN", file=sys.stderr, flush=True)
    return update(self, obj, bound, elapsed)

progress.SolveProgress.update = tell
if os.environ.get("CTRL_C_AT_GREEDY"):  # Ctrl-C (a real SIGINT) as the first plan is being sought
    greedy = solve_planner._Planning.greedy

    def greedy_after_ctrl_c(self, until):
        if not said:
            said.append(1)
            os.kill(os.getpid(), signal.SIGINT)
        return greedy(self, until)

    solve_planner._Planning.greedy = greedy_after_ctrl_c
if os.environ.get("CTRL_C_AT"):  # Ctrl-C (a real SIGINT) once the search has ended: 'checked' or 'written'
    import planner.cli.plan as cli_plan
    import planner.report.formats as formats

    def ctrl_c():
        os.kill(os.getpid(), signal.SIGINT)

    if os.environ["CTRL_C_AT"] == "checked":
        run_plan = cli_plan.run_plan

        def run_plan_then_ctrl_c(*a, **k):
            got = run_plan(*a, **k)
            ctrl_c()
            return got

        cli_plan.run_plan = run_plan_then_ctrl_c
    else:
        plan_output = formats.plan_output

        def ctrl_c_then_output(*a, **k):
            ctrl_c()
            return plan_output(*a, **k)

        formats.plan_output = ctrl_c_then_output
from planner.cli.commands import main
sys.argv = ["planner", *sys.argv[1:]]
main()
"""


def _plan_with_ctrl_c(tmp_path, sigints: int, env: dict | None = None, limit: str = "120"):
    """Run ``planner plan`` (120 s limit) on the roster scenario; once it reports its first plan
    send ``sigints`` SIGINTs (50 ms apart). Returns (exit code, stderr, stdout, seconds from the first
    SIGINT to the exit, --json path, --out path)."""
    out, js = tmp_path / "plan.yaml", tmp_path / "plan.json"
    p = subprocess.Popen([sys.executable, "-c", PLAN_CLI, "plan", str(PLAN_SCENARIO), "--time-limit", limit,
                          "--out", str(out), "--json", str(js)], env={**ENV, **(env or {})}, cwd=tmp_path,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=_as_from_a_terminal)
    try:
        first = p.stderr.readline() if sigints else ""
        t0 = time.monotonic()
        if sigints:
            assert first.strip() == "PLAN", first
            for k in range(sigints):
                if k:
                    time.sleep(0.05)
                p.send_signal(signal.SIGINT)
        stdout, err = p.communicate(timeout=110)
    finally:
        p.kill()
    return p.returncode, first + err, stdout, time.monotonic() - t0, js, out


@pytest.mark.slow
def test_plan_ctrl_c_after_a_plan_keeps_it_checked_and_written_with_exit_3(tmp_path):
    import planner

    code, err, stdout, after, js, out = _plan_with_ctrl_c(tmp_path, 1)
    assert code == 3, (code, err)
    assert "Traceback" not in err
    assert after < 20, after  # the search stopped at once (the check and the report follow; a busy VM)
    data = json.loads(js.read_text())
    assert data["status"] == "feasible" and data["solver_status"] == "feasible"
    assert data["interrupted"] is True
    assert "interrupted (Ctrl-C)" in data["message"] and "time limit" not in data["message"]
    assert data["legal"] is True and data["objective"] is not None
    assert data["best_bound"] is not None and data["gap"] is not None and data["gap"] > 0  # not proven optimal
    assert data["wall_time_s"] < 100  # stopped long before the 120 s limit
    assert "interrupted (Ctrl-C)" in stdout and f"Wrote the planned scenario to {out}" in stdout
    # the written plan is the reported one, and the independent checker finds it legal
    world = planner.load_scenario(str(out))
    assert planner.check_deployment(world).legal
    placed = {p["unit"]: tuple(p["anchor"]) for p in data["placements"]}
    assert set(placed) == {u.id for u in world.units.values() if u.record.place}


@pytest.mark.slow
def test_plan_second_ctrl_c_ends_at_once_writing_nothing(tmp_path):
    code, err, _, after, js, out = _plan_with_ctrl_c(tmp_path, 2)
    assert code == 3, (code, err)
    assert err.strip().splitlines()[-1] == "interrupted"
    assert "Traceback" not in err
    assert not js.exists() and not out.exists()
    assert after < 20


@pytest.mark.slow
def test_plan_ctrl_c_before_any_plan_is_interrupted_exit_3_nothing_written(tmp_path):
    code, err, stdout, _, js, out = _plan_with_ctrl_c(tmp_path, 0, {"CTRL_C_AT_GREEDY": "1"})
    assert code == 3, (code, err)
    assert err.strip().splitlines()[-1] == "interrupted"
    assert "Traceback" not in err and "Solver status" not in stdout
    assert not js.exists() and not out.exists()


@pytest.mark.slow
@pytest.mark.parametrize("at", ["checked", "written"])
def test_plan_ctrl_c_after_the_search_writes_the_outputs_whole_and_exits_3(tmp_path, at):
    # a Ctrl-C after the time limit ended the search (the plan checked, or being written): both outputs
    # are written whole, the run says it was interrupted, exit 3 while the plan has no proof (feasible),
    # exit 0 where the 4 s were enough to prove it optimal (a fast quiet machine)
    code, err, stdout, _, js, out = _plan_with_ctrl_c(tmp_path, 0, {"CTRL_C_AT": at}, limit="4")
    assert "Traceback" not in err
    data = json.loads(js.read_text())
    assert data["status"] in ("feasible", "optimal"), data["status"]
    assert code == (0 if data["status"] == "optimal" else 3), (code, data["status"], err, stdout)
    assert data["legal"] is True and out.exists()
    import planner

    assert planner.check_deployment(planner.load_scenario(str(out))).legal
    if at == "checked":
        assert data["interrupted"] is True
        assert "interrupted (Ctrl-C) after the search" in data["message"]
    else:  # the report was made before the Ctrl-C: it is the search's; the end says what happened
        assert data["interrupted"] is False
        assert "interrupted (Ctrl-C) while the outputs were written: they are complete" in err


def test_a_stop_requested_ends_every_step_and_is_said():
    """The stop flag itself (what Ctrl-C sets): with it set, the planner's deadline clock has passed,
    a CP-SAT solve returns at once (UNKNOWN), and a plan run answers at once, marked interrupted."""
    from ortools.sat.python import cp_model

    import planner
    from planner.solve import cpsat, stop
    from planner.solve.planner import PlanResult, SolverSettings, plan_deployment

    m = cp_model.CpModel()
    xs = [m.new_int_var(0, 1000, f"x{i}") for i in range(200)]
    m.add_all_different(xs)
    m.maximize(sum((i % 7 + 1) * x for i, x in enumerate(xs)))
    s = cp_model.CpSolver()
    s.parameters.max_time_in_seconds = 30
    world = planner.load_scenario(str(PLAN_SCENARIO))
    assert not stop.requested() and stop.clock() < float("inf")
    stop.request()
    try:
        assert stop.clock() == float("inf")
        t0 = time.monotonic()
        assert cpsat.solve(s, m) == cp_model.UNKNOWN
        r = plan_deployment(world, SolverSettings(time_limit_s=60))
        assert time.monotonic() - t0 < 10
    finally:
        stop.clear()
    assert r.interrupted and r.status == "unknown" and r.exit_code == 3
    assert "interrupted (Ctrl-C)" in r.message
    assert stop.clock() < float("inf")
    # exit codes: an interrupted feasible plan has no proof (3); one proven optimal is done (0)
    base = {"message": "", "wall_time_s": 0.0, "legal": True, "interrupted": True}
    assert PlanResult(status="feasible", **base).exit_code == 3
    assert PlanResult(status="optimal", **base).exit_code == 0
    assert PlanResult(status="feasible", **{**base, "legal": False}).exit_code == 1
    assert PlanResult(status="feasible", **{**base, "interrupted": False}).exit_code == 0


CTRL_C_STOPS = r"""
import os, signal, time
from planner.solve import stop
with stop.ctrl_c_stops():
    os.kill(os.getpid(), signal.SIGINT)
    time.sleep(0.1)
    print("first: stop requested", stop.requested())
    try:
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.1)
        print("second: no KeyboardInterrupt")
    except KeyboardInterrupt:
        print("second: KeyboardInterrupt")
print("after:", stop.requested(), signal.getsignal(signal.SIGINT) is signal.default_int_handler)
signal.signal(signal.SIGINT, signal.SIG_IGN)
with stop.ctrl_c_stops():  # an ignored SIGINT (planner serve's jobs) stays ignored
    os.kill(os.getpid(), signal.SIGINT)
    time.sleep(0.1)
    print("ignored:", stop.requested(), signal.getsignal(signal.SIGINT) is signal.SIG_IGN)
"""


def test_ctrl_c_stops_first_requests_a_stop_second_raises():
    r = subprocess.run([sys.executable, "-c", CTRL_C_STOPS], env=ENV, capture_output=True, text=True, timeout=60,
                       preexec_fn=_as_from_a_terminal)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["first: stop requested True", "second: KeyboardInterrupt",
                                     "after: False True", "ignored: False True"]


@pytest.mark.slow
def test_a_deny_plan_stopped_keeps_its_screen_says_interrupted_and_exits_3():
    """``planner plan`` with a deny goal: the same stop flag ends its rounds (the greedy screen is kept)."""
    import io

    from rich.console import Console

    from planner import load_scenario
    from planner.cli.adversary import run_deny_plan
    from planner.solve import stop

    world = load_scenario(str(ROOT / "tests" / "assets" / "deny-small.yaml"))
    stop.request()
    try:
        r = run_deny_plan(world, 60, 1, 0, Console(file=io.StringIO()))
    finally:
        stop.clear()
    assert r.interrupted and r.status == "feasible" and r.exit_code == 3
    assert r.message.startswith("interrupted (Ctrl-C): feasible: ")
    assert r.scenario is not None and r.legal


# --------------------------------------------------------------------------- planner threats: Ctrl-C keeps what was found

THREATS_SCENARIO = ROOT / "scenarios" / "long-edge-ravenguard-vs-ironhands.yaml"
"""rg-breacher's 1850 arrival positions on the 2" grid: a scan of a few seconds."""

THREATS_CLI = r"""
import os, signal, sys
from planner.adversary import legal_area, threats

AT = int(os.environ.get("CTRL_C_AT_POSITION", "0"))  # a real SIGINT as the scan judges its AT-th position
calls = [0]
static = legal_area.ArrivalSpace._static

def ctrl_c():
    os.kill(os.getpid(), signal.SIGINT)

def static_then_ctrl_c(self, p):
    calls[0] += 1
    if calls[0] == AT:
        ctrl_c()
    return static(self, p)

legal_area.ArrivalSpace._static = static_then_ctrl_c
if os.environ.get("CTRL_C_AT_CHECK"):  # a real SIGINT as the best placement is checked (the scan has ended)
    check_with = threats.check_with

    def ctrl_c_then_check(*a, **k):
        ctrl_c()
        return check_with(*a, **k)

    threats.check_with = ctrl_c_then_check
from planner.cli.commands import main
sys.argv = ["planner", *sys.argv[1:]]
main()
"""


def _threats_with_ctrl_c(tmp_path, env: dict) -> tuple[int, str, str, Path, Path]:
    """``planner threats`` (near_point:36,24, --json, --render) with real SIGINTs where ``env`` says;
    returns (exit code, stdout, stderr, --json path, --render path)."""
    js, svg = tmp_path / "threats.json", tmp_path / "threats.svg"
    r = subprocess.run([sys.executable, "-c", THREATS_CLI, "threats", str(THREATS_SCENARIO), "--enemy-unit",
                        "rg-breacher", "--goal", "near_point:36,24", "--json", str(js), "--render", str(svg)],
                       env={**ENV, **env}, cwd=tmp_path, capture_output=True, text=True, timeout=120,
                       preexec_fn=_as_from_a_terminal)
    return r.returncode, r.stdout, r.stderr, js, svg


def _threats_space():
    """The whole arrival space of rg-breacher, judged in this process (the oracle of the partial answers)."""
    import planner
    from planner.adversary.legal_area import ArrivalSpace, enemy_group, fixed_units

    world = planner.load_scenario(str(THREATS_SCENARIO))
    group = enemy_group(world, "rg-breacher")
    table = world.ruleset.table(world)
    return ArrivalSpace(world, group, fixed_units(table, {u.id for u in group.members}), 2.0, table=table)


@pytest.mark.slow
def test_threats_ctrl_c_during_the_scan_reports_what_was_found_writes_it_whole_and_exits_3(tmp_path):
    from planner.adversary.threats import best_reply, parse_goal, point_distance

    code, stdout, err, js, svg = _threats_with_ctrl_c(tmp_path, {"CTRL_C_AT_POSITION": "600"})
    assert code == 3, (code, err)
    assert "Traceback" not in err
    data = json.loads(js.read_text())
    assert data["interrupted"] is True and data["complete"] is False
    assert (data["positions_judged"], data["positions"]) == (600, 1850)
    assert data["message"].startswith("interrupted (Ctrl-C): the scan was cut after 600 of 1850 arrival positions")
    assert data["message"] in stdout
    # what was found is exactly the whole scan's answer over the first 600 positions
    space = _threats_space()
    first = [p for p in space.positions if p.index < 600]
    assert first and len(first) < len(space.positions)
    assert [tuple(c) for c in data["legal_cells"]] == sorted({p.anchor for p in first})
    assert data["legal_anchors"] == len({p.anchor for p in first}) and data["legal_area_sq_in"] == 4 * data[
        "legal_anchors"]
    best, value, _ = best_reply(space, parse_goal("near_point:36,24", space.world), space.observers, first)
    assert tuple(data["best"]["anchor"]) == best.anchor and data["best"]["formation"] == best.formation
    assert data["best"]["value"] == pytest.approx(value) == pytest.approx(point_distance(best.footprints, (36, 24)))
    assert data["best"]["legal"] is True  # the checker judged the placement found
    # the picture is written whole: one square per legal anchor found
    assert data["render"]["counts"]["threat_cell"] == data["legal_anchors"]
    assert svg.read_text().rstrip().endswith("</svg>") and 'id="threat-area-rg-breacher"' in svg.read_text()


@pytest.mark.slow
def test_threats_ctrl_c_after_the_scan_keeps_the_whole_answer_and_its_verdict(tmp_path):
    code, stdout, err, js, _ = _threats_with_ctrl_c(tmp_path, {"CTRL_C_AT_CHECK": "1"})
    assert code == 0, (code, err)  # the answer is whole (every position judged): the verdict stands
    data = json.loads(js.read_text())
    assert data["interrupted"] is True and data["complete"] is True
    assert (data["positions_judged"], data["positions"]) == (1850, 1850)
    assert data["message"].startswith("interrupted (Ctrl-C): the scan had ended (the answer is whole")
    space = _threats_space()
    assert [tuple(c) for c in data["legal_cells"]] == sorted({p.anchor for p in space.positions})
    assert data["best"]["legal"] is True


@pytest.mark.slow
def test_threats_second_ctrl_c_ends_at_once_writing_nothing(tmp_path):
    code, _, err, js, svg = _threats_with_ctrl_c(tmp_path, {"CTRL_C_AT_POSITION": "600", "CTRL_C_AT_CHECK": "1"})
    assert code == 3, (code, err)
    assert err.strip().splitlines()[-1] == "interrupted"
    assert "Traceback" not in err
    assert not js.exists() and not svg.exists()
