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


def _modules_after(code: str) -> list[str]:
    """The heavy or optional modules loaded once ``code`` has run in a new interpreter."""
    probe = (f"import atexit, json, sys\n"
             f"heavy = {NEVER_FOR_CHECK!r}\n"
             "atexit.register(lambda: sys.__stderr__.write('MODULES ' + json.dumps(sorted(\n"
             "    m for m in sys.modules if m in heavy or m.startswith(tuple(h + '.' for h in heavy)))) + '\\n'))\n"
             + code)
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, timeout=300)
    lines = [ln for ln in out.stderr.splitlines() if ln.startswith("MODULES ")]
    assert lines, out.stderr
    return json.loads(lines[-1][len("MODULES "):])


def test_import_planner_cli_loads_no_solver_pictures_or_web():
    assert _modules_after("import planner.cli\n") == []


def test_plain_check_loads_only_what_it_needs():
    code = ("import sys\nfrom planner.cli import main\n"
            f"sys.argv = ['planner', 'check', {str(SCENARIO)!r}]\n"
            "try:\n    main()\nexcept SystemExit as e:\n    sys.__stderr__.write(f'EXIT {e.code}\\n')\n")
    assert _modules_after(code) == []


def test_the_probe_sees_a_module_that_is_imported():
    # the probe is not blind: a command that needs the solver shows it
    assert "planner.solve" in _modules_after("import planner.solve.planner\n")
