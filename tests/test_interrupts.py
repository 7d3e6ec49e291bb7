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
