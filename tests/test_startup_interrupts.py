"""Ctrl-C (a real SIGINT) at any time of a real ``python -m planner`` process ends it as the command
line's convention says: "interrupted", exit 3 and nothing written before the answer; the answer
itself (its exit code and its complete ``--json``) once it is given. Never a traceback, never
another library's ``ImportError`` (numpy's "failed to import", seen when the Ctrl-C landed in an
import), never an end by SIGINT (exit -2/130) after the command said "interrupted".

The delays count from the moment the bare interpreter is up (``python -c pass``, measured in the
same run): before that, a Ctrl-C meets Python's own start-up, before any of the planner's code runs.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
CHECK_SCENARIO = ROOT / "scenarios" / "long-edge-ravenguard-vs-ironhands.yaml"
PLAN_SCENARIO = ROOT / "scenarios" / "wh40k-exposure-marines-vs-necrons.yaml"  # ~10 s to plan
DELAYS = (0.02, 0.1, 0.3, 0.6, 1.0, 1.5)


def _as_from_a_terminal() -> None:
    """In the child: SIGINT at its default (a suite run in the background ignores SIGINT, and an
    ignored signal stays ignored across exec)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _interpreter_start() -> float:
    """Seconds a bare ``python -c pass`` takes here and now (the slowest of three)."""
    times = []
    for _ in range(3):
        t0 = time.monotonic()
        subprocess.run([sys.executable, "-c", "pass"], check=True, env=ENV, preexec_fn=_as_from_a_terminal)
        times.append(time.monotonic() - t0)
    return max(times)


def _ctrl_c_at(delay: float, args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    p = subprocess.Popen([sys.executable, "-m", "planner", *args], cwd=cwd, env=ENV, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, preexec_fn=_as_from_a_terminal)
    time.sleep(delay)
    os.kill(p.pid, signal.SIGINT)
    sent = time.monotonic()
    out, err = p.communicate(timeout=120)
    res = subprocess.CompletedProcess(p.args, p.returncode, out, err)
    res.after_s = time.monotonic() - sent  # type: ignore[attr-defined]
    return res


def _assert_interrupted_or_answered(res: subprocess.CompletedProcess, report: Path, answers: set[int]) -> str:
    """The run ended either by Ctrl-C ("interrupted", exit 3, no report) or with its answer (an
    exit code of ``answers`` and a complete JSON report). Returns which."""
    assert "Traceback" not in res.stderr, res.stderr
    assert "Error" not in res.stderr, res.stderr
    if res.returncode == 3:
        if report.exists():  # plan: a Ctrl-C during the search keeps the plan found, says so, writes it whole
            assert "interrupted (Ctrl-C)" in res.stdout + res.stderr, res
            json.loads(report.read_text())
            return "kept"
        assert res.stderr.strip().splitlines()[-1] == "interrupted", res.stderr
        return "interrupted"
    assert res.returncode in answers, (res.returncode, res.stderr)
    json.loads(report.read_text())  # complete, valid JSON
    return "answered"


@pytest.mark.parametrize("delay", DELAYS)
def test_check_ctrl_c_at_any_time_is_interrupted_or_the_answer(tmp_path, delay):
    scenario = tmp_path / CHECK_SCENARIO.name
    shutil.copyfile(CHECK_SCENARIO, scenario)
    before = scenario.read_bytes(), scenario.stat().st_mtime_ns
    report = tmp_path / "report.json"
    res = _ctrl_c_at(_interpreter_start() + delay, ["check", str(scenario), "--json", str(report)], ROOT)
    how = _assert_interrupted_or_answered(res, report, {0})
    if how == "interrupted":
        assert not report.exists()
    assert (scenario.read_bytes(), scenario.stat().st_mtime_ns) == before  # the input is never touched
    assert [p.name for p in tmp_path.iterdir()] in (["report.json", scenario.name], [scenario.name, "report.json"],
                                                   [scenario.name])  # no stray temporary file


def test_early_ctrl_c_is_interrupted_not_a_traceback(tmp_path):
    """The fault itself: a Ctrl-C while the command line imports typer, pydantic, shapely (the
    first ~0.3 s here) was a traceback, or numpy's ImportError with exit 1."""
    start = _interpreter_start()
    for delay in (0.005, 0.02, 0.05, 0.1, 0.15, 0.2):
        report = tmp_path / f"r{delay}.json"
        res = _ctrl_c_at(start + delay, ["check", str(CHECK_SCENARIO), "--json", str(report)], ROOT)
        assert _assert_interrupted_or_answered(res, report, {0}) == "interrupted", (delay, res)


def test_ctrl_c_while_options_are_parsed_is_interrupted():
    """A KeyboardInterrupt outside a command's own boundary (typer returns 130 for it) is the same
    "interrupted", exit 3 (here raised by the SIGINT handler while the help is being written)."""
    code = ("import os, signal, sys\n"
            "import planner.cli.commands as c\n"
            "sys.argv = ['planner', 'check', '--help']\n"
            "import rich.console\n"
            "print_ = rich.console.Console.print\n"
            "def ctrl_c(self, *a, **k):\n"
            "    os.kill(os.getpid(), signal.SIGINT)\n"
            "    return print_(self, *a, **k)\n"
            "rich.console.Console.print = ctrl_c\n"
            "from planner.cli import main\n"
            "main()\n")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=ENV, cwd=ROOT,
                         timeout=60, preexec_fn=_as_from_a_terminal)
    assert "Traceback" not in res.stderr, res.stderr
    assert res.returncode == 3, (res.returncode, res.stderr)
    assert res.stderr.strip().splitlines()[-1] == "interrupted"


def test_the_command_lines_handler_counts_as_pythons_default_for_plan():
    """``planner plan`` replaces the handler by its stop flag (first Ctrl-C keeps the best plan):
    the entry point's handler must not make it think SIGINT is someone else's."""
    code = ("import os, signal, time\n"
            "from planner.cli.exits import CtrlCAfterImports\n"
            "from planner.solve import stop\n"
            "signal.signal(signal.SIGINT, CtrlCAfterImports())\n"
            "with stop.ctrl_c_stops():\n"
            "    os.kill(os.getpid(), signal.SIGINT)\n"
            "    time.sleep(0.1)\n"
            "    print('stop requested', stop.requested())\n"
            "try:\n"
            "    os.kill(os.getpid(), signal.SIGINT)\n"
            "    time.sleep(0.1)\n"
            "except KeyboardInterrupt:\n"
            "    print('KeyboardInterrupt after')\n")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=ENV, cwd=ROOT,
                         timeout=60, preexec_fn=_as_from_a_terminal)
    assert res.stdout.split("\n")[:2] == ["stop requested True", "KeyboardInterrupt after"], res


@pytest.mark.slow
@pytest.mark.parametrize("delay", (*DELAYS, 3.0, 5.0, 8.0))
def test_plan_ctrl_c_at_any_time_is_interrupted_or_the_answer(tmp_path, delay):
    out, report = tmp_path / "plan.yaml", tmp_path / "plan.json"
    res = _ctrl_c_at(_interpreter_start() + delay,
                     ["plan", str(PLAN_SCENARIO), "--time-limit", "60", "--out", str(out), "--json", str(report)], ROOT)
    _assert_interrupted_or_answered(res, report, {0})
    assert out.exists() == report.exists()
    # the README: the search stops within about a second (measured 0.1-1.0 s at load 3.5-4.3 on 2 cores,
    # writing included); 2 s leaves room for a loaded machine
    assert res.after_s < 2.0, res.after_s


def test_a_librarys_error_for_a_ctrl_c_is_interrupted_not_an_internal_error():
    """pydantic's serializer turns a KeyboardInterrupt raised inside it into its own error
    (``PydanticSerializationError: Error serializing to JSON: KeyboardInterrupt``; seen at a Ctrl-C
    during ``planner check``): after a Ctrl-C, the boundary says "interrupted", exit 3, not exit 4."""
    code = ("import os, signal, sys, time\n"
            "from planner.cli.exits import CtrlCAfterImports\n"
            "from planner.cli.commands import _run\n"
            "signal.signal(signal.SIGINT, CtrlCAfterImports())\n"
            "def fn():\n"
            "    try:\n"
            "        os.kill(os.getpid(), signal.SIGINT)\n"
            "        time.sleep(1)\n"
            "    except KeyboardInterrupt:\n"
            "        raise RuntimeError('Error serializing to JSON: KeyboardInterrupt') from None\n"
            "    return 0\n"
            "try:\n"
            "    _run(fn)\n"
            "except BaseException as e:\n"
            "    print(type(e).__name__, getattr(e, 'exit_code', None))\n")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=ENV, cwd=ROOT,
                         timeout=60, preexec_fn=_as_from_a_terminal)
    assert res.stdout.strip() == "Exit 3", res
    assert res.stderr.strip() == "interrupted", res
