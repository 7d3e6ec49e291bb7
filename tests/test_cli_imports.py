"""What the command line imports (issue #18 item 5: ``planner check`` as a whole process under
1 s). ``import planner.cli`` and a plain ``planner check`` must not load the solver (ortools),
the pictures (matplotlib), the other command groups' packages or the web app: each command
imports what it needs inside its function. Checked in a fresh interpreter (``sys.modules``), so
a module-level import that brings one back fails here instead of slowing every command."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCENARIO = ROOT / "scenarios" / "long-edge-ravenguard-vs-ironhands.yaml"

NEVER_FOR_CHECK = ("ortools", "matplotlib", "fastapi", "starlette", "uvicorn", "ray", "PIL",
                   "planner.solve", "planner.deepstrike", "planner.combat", "planner.adversary", "planner.generate",
                   "planner.web", "planner.render", "planner.io.roster", "planner.io.lists40k", "planner.io.tts",
                   "planner.io.dataset")
"""Packages and modules a plain ``planner check`` (text report, no picture, no --suggest) never needs."""


def _modules_after(code: str) -> list[list[str]]:
    """The heavy or optional modules loaded each time ``code``, run in a new interpreter, calls
    ``report()`` (and once more at its exit)."""
    probe = (f"import atexit, json, sys\n"
             f"heavy = {NEVER_FOR_CHECK!r}\n"
             "def report():\n"
             "    sys.__stderr__.write('MODULES ' + json.dumps(sorted(m for m in sys.modules\n"
             "        if m in heavy or m.startswith(tuple(h + '.' for h in heavy)))) + '\\n')\n"
             "atexit.register(report)\n"
             + code)
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert out.returncode == 0, out.stderr
    lines = [ln for ln in out.stderr.splitlines() if ln.startswith("MODULES ")]
    assert lines, out.stderr
    return [json.loads(ln[len("MODULES "):]) for ln in lines]


def test_import_planner_cli_loads_no_solver_pictures_or_web():
    after_import, after_roster, _ = _modules_after("import planner.cli\nreport()\nimport planner.io.roster\nreport()\n")
    assert after_import == []
    assert "planner.io.roster" in after_roster  # the probe is not blind: a module imported shows


def test_plain_check_loads_only_what_it_needs():
    code = ("import sys\nfrom planner.cli import main\n"
            f"sys.argv = ['planner', 'check', {str(SCENARIO)!r}]\n"
            "try:\n    main()\nexcept SystemExit as e:\n    assert e.code == 0, e.code\n")
    assert _modules_after(code) == [[]]
