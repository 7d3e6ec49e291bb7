"""One ``planner generate`` run at a time in an ``--out`` folder: two runs started into one folder
used to both append to ``scenarios.jsonl`` (40 lines, 20 distinct, a manifest saying complete) and
both exit 0. A run now holds ``DIR/generate.lock`` (an exclusive ``flock``) for its whole life."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from planner.cli.generate import run_generate
from planner.errors import ScenarioError
from planner.io import dataset
from planner.io.dataset import LOCK, hold_folder

ROOT = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
SEED = 3


def _cli(out: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "planner", "generate", "--count", "2000", "--seed", str(SEED), "--kind",
            "legality", "--out", str(out), "--workers", "1", *extra]


def test_a_second_run_while_one_writes_the_folder_is_refused_and_a_killed_run_leaves_no_lock(tmp_path):
    out = tmp_path / "c"
    lines = out / "scenarios.jsonl"
    first = subprocess.Popen(_cli(out), env=ENV, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not (lines.exists() and lines.read_bytes().count(b"\n") >= 1):
            assert first.poll() is None, first.communicate()
            time.sleep(0.02)
        assert (out / LOCK).read_text().strip() == str(first.pid)
        second = subprocess.run(_cli(out), env=ENV, cwd=tmp_path, capture_output=True, text=True, timeout=60)
        # a --resume is refused the same way (in this process: the holder is still a real other one)
        with pytest.raises(ScenarioError, match=f"another run \\(process {first.pid}\\) is writing") as resumed:
            run_generate(2000, SEED, str(out), resume=True)
        assert first.poll() is None  # both were refused while the first run was writing
        first.send_signal(signal.SIGKILL)  # a crash: nothing of the first run's own cleanup runs
        first.communicate(timeout=30)
    finally:
        first.kill()
    assert second.returncode == 2, second.stderr
    assert "field --out" in second.stderr and str(out) in second.stderr and "Traceback" not in second.stderr
    assert f"another run (process {first.pid}) is writing this folder" in second.stderr
    assert resumed.value.location == "--out" and resumed.value.value == str(out)
    assert (out / LOCK).exists()  # left by the killed run; the operating system dropped its lock
    kept = len(lines.read_bytes().split(b"\n")) - 1
    assert kept >= 1
    manifest, code = run_generate(kept + 3, SEED, str(out), resume=True)
    assert code == 0 and manifest["complete"] and manifest["counts"]["lines"] == kept + 3
    assert not (out / LOCK).exists()
    written = lines.read_bytes().splitlines()
    assert [json.loads(ln)["label"]["index"] for ln in written] == list(range(kept + 3))  # one run's, each once
    assert manifest["sha256"] == hashlib.sha256(lines.read_bytes()).hexdigest()


def test_a_held_folder_is_left_as_it_was(tmp_path):
    out = tmp_path / "held"
    out.mkdir()
    with hold_folder(out) as lock:
        assert lock == out / LOCK and lock.read_text() == f"{os.getpid()}\n"
        with pytest.raises(ScenarioError, match="another run") as exc:
            run_generate(2, SEED, str(out))
        assert exc.value.location == "--out" and exc.value.value == str(out)
        assert sorted(p.name for p in out.iterdir()) == [LOCK]  # no manifest, schema or lines written
    assert not (out / LOCK).exists()
    run_generate(2, SEED, str(out))  # free again once the holder ends


def test_a_lock_file_a_dead_run_left_is_taken_over_and_a_foreign_one_is_not_touched(tmp_path):
    out = tmp_path / "stale"
    out.mkdir()
    (out / LOCK).write_text("999999999\n")  # a process id no run holds any more
    manifest, code = run_generate(2, SEED, str(out))
    assert code == 0 and manifest["complete"] and not (out / LOCK).exists()
    other = tmp_path / "other"
    other.mkdir()
    (other / LOCK).write_text("my notes\n")
    with pytest.raises(ScenarioError, match="not a lock file of planner generate"):
        run_generate(2, SEED, str(other))
    assert (other / LOCK).read_text() == "my notes\n"
    assert not (other / "scenarios.jsonl").exists()


def test_a_lock_file_removed_as_it_was_locked_is_not_the_one_held(tmp_path, monkeypatch):
    """A run that ends removes its lock file; a run that opened that file just before locks a file
    no longer in the folder, so it locks the one there now instead."""
    real = dataset._try_lock
    calls: list[int] = []

    def removed_first(fd: int) -> bool:
        calls.append(fd)
        if len(calls) == 1:
            (tmp_path / LOCK).unlink()  # the run that held it ended between our open and lock
        return real(fd)

    monkeypatch.setattr(dataset, "_try_lock", removed_first)
    with hold_folder(tmp_path) as lock:
        assert len(calls) == 2
        assert os.path.samestat(os.stat(lock), os.fstat(calls[1]))
        assert json.loads(lock.read_text()) == os.getpid()
