"""Writing ``DIR/scenarios.jsonl`` one line at a time (append + flush), and resuming it.

Every finished line is on disk as soon as it is made: an interrupted run keeps all of them, and
at most one partial line (cut mid-write) at the end, which :func:`finished_lines` drops.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from planner.errors import ScenarioError

LINES = "scenarios.jsonl"
MANIFEST = "manifest.json"
SCHEMA = "scenario-line.schema.json"


def finished_lines(path: Path) -> list[bytes]:
    """The complete lines of a JSONL file (each ending in a newline), without the newline; a
    trailing partial line is cut off the file."""
    if not path.exists():
        return []
    raw = path.read_bytes()
    end = raw.rfind(b"\n") + 1
    if end < len(raw):
        with open(path, "r+b") as fh:
            fh.truncate(end)
    return raw[:end].split(b"\n")[:-1] if end else []


def verify_prefix(path: Path, lines: list[bytes], remake) -> None:
    """Check that the finished lines are this run's lines 0..n-1: each parses, its label's index is
    its line number, and the last one is made again byte for byte (``remake(i) -> str``).

    Raises
    ------
    ScenarioError
        If a line does not belong to this run (other seed, parameters or kinds).
    """
    for i, ln in enumerate(lines):
        try:
            idx = json.loads(ln)["label"]["index"]
        except (ValueError, KeyError, TypeError):
            raise ScenarioError(f"line {i + 1} is not a generated scenario line; cannot resume", file=str(path)) \
                from None
        if idx != i:
            raise ScenarioError(f"line {i + 1} has label index {idx}, expected {i}; cannot resume", file=str(path))
    if lines:
        n = len(lines) - 1
        if remake(n).encode("utf-8") != lines[n]:
            raise ScenarioError(f"line {n + 1} differs from what this seed and these parameters make; "
                                "resume with the run's own --seed, --kind, --ruleset and --params", file=str(path))


class LineWriter:
    """Appends lines to a JSONL file, flushing each one."""

    def __init__(self, path: Path):
        self.path = path
        self.fh = open(path, "a", encoding="utf-8", newline="\n")  # noqa: SIM115 - closed in close()

    def write(self, line: str) -> None:
        self.fh.write(line + "\n")
        self.fh.flush()

    def close(self) -> None:
        try:
            self.fh.flush()
            os.fsync(self.fh.fileno())
        except OSError:
            pass
        self.fh.close()


def write_json(path: Path, data: dict, option: str = "--out") -> None:
    """Write JSON (sorted keys, so the bytes depend only on the data) atomically, never over an
    input of the run (:func:`planner.io.outputs.write_output`)."""
    from planner.io.outputs import write_output

    write_output(path, json.dumps(data, indent=2, sort_keys=True, allow_nan=False) + "\n", option, what=path.name)
