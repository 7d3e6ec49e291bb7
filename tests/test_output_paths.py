"""Every output path a command writes is checked before the work starts (planner.io.outputs.claim):
a path that cannot be written is refused with exit 2 naming the option, the path and why, and
nothing is written."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from planner.cli.commands import app

ROOT = Path(__file__).resolve().parents[1]
ASSET = ROOT / "tests" / "assets" / "web-infiltrate.yaml"
PROC = Path("/proc/version")
needs_proc = pytest.mark.skipif(not PROC.is_file(), reason="needs Linux /proc")


@pytest.fixture
def scenario(tmp_path):
    data = yaml.safe_load(ASSET.read_text())
    data["armies"][1]["units"][1]["place"] = True
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def _proc_refusal() -> str:
    """The errno text the system gives for a new file in /proc (No such file or directory on Linux)."""
    try:
        fd, name = tempfile.mkstemp(dir="/proc")
    except OSError as exc:
        return exc.strerror or str(exc)
    os.close(fd)
    os.unlink(name)
    pytest.skip("/proc accepts new files here")


def one_line(text: str) -> str:
    return " ".join(text.split())


def run(args, cwd):
    old = os.getcwd()
    os.chdir(cwd)
    try:
        return CliRunner().invoke(app, args)
    finally:
        os.chdir(old)


@needs_proc
@pytest.mark.parametrize("args, option", [
    (["plan", "s.yaml", "--out", "out6.yaml", "--json", str(PROC)], "--json"),
    (["plan", "s.yaml", "--out", str(PROC), "--json", "r.json"], "--out"),
    (["plan", "s.yaml", "--out", "out6.yaml", "--render", "/proc/sub/pic.svg"], "--render"),
    (["check", "s.yaml", "--json", str(PROC), "--render", "pic.svg"], "--json"),
    (["render", "s.yaml", "--out", "/proc/pic.png", "--json", "r.json"], "--out"),
    (["rules", "--json", str(PROC)], "--json"),
])
def test_an_output_that_cannot_be_written_is_refused_before_any_work(scenario, args, option):
    folder = scenario.parent
    before = sorted(p.name for p in folder.iterdir())
    r = run(args, folder)
    assert r.exit_code == 2, r.output
    # what was tried (a new file in /proc), why it failed (the system's own words), nothing that contradicts it
    assert f"field {option}: cannot write there: the folder /proc does not accept a new file" in r.output
    assert f"(making one failed: {_proc_refusal()})" in one_line(r.output)
    assert "it does not take new files" not in r.output
    assert "Traceback" not in r.output
    after = sorted(p.name for p in folder.iterdir())
    if "r.json" in after:  # only the error report that --json asks for (the command line's contract)
        report = json.loads((folder / "r.json").read_text())
        assert (report["ok"], report["exit_code"], report["location"]) == (False, 2, option)
        after.remove("r.json")
    assert after == before  # nothing else written, not even out6.yaml


def test_a_file_where_a_folder_should_be_is_named(scenario):
    (scenario.parent / "afile").write_text("x")
    r = run(["check", "s.yaml", "--json", "afile/sub/r.json"], scenario.parent)
    assert r.exit_code == 2 and "field --json: cannot write there:" in r.output and "is not a folder" in r.output
    assert (scenario.parent / "afile").read_text() == "x"


def test_a_writable_output_is_written_and_no_probe_is_left(scenario):
    sub = scenario.parent / "new" / "deeper"
    r = run(["check", "s.yaml", "--json", str(sub / "r.json")], scenario.parent)
    assert r.exit_code in (0, 1), r.output
    assert (sub / "r.json").is_file()
    assert not [p for p in scenario.parent.rglob(".planner-probe-*")]
    shutil.rmtree(scenario.parent / "new")


def _interrupt_after(monkeypatch, name: str):
    """``os.NAME`` does its work, then a Ctrl-C lands (KeyboardInterrupt) before the next statement."""
    real = getattr(os, name)

    def cut(*args, **kw):
        real(*args, **kw)
        raise KeyboardInterrupt

    monkeypatch.setattr(os, name, cut)


@pytest.mark.parametrize("step", ["open", "close"])
def test_a_ctrl_c_in_the_folder_probe_leaves_no_probe_file(tmp_path, monkeypatch, step):
    """fu14 #4: a Ctrl-C just after the probe file is made (as os.open returns, or as it is
    closed, before its removal) leaves nothing: the removal is in a finally that holds its name."""
    from planner.io.outputs import _probe_folder

    with monkeypatch.context() as m:
        _interrupt_after(m, step)
        with pytest.raises(KeyboardInterrupt):
            _probe_folder(tmp_path, str(tmp_path / "r.json"), "--json", "")
    assert list(tmp_path.iterdir()) == []
    _probe_folder(tmp_path, str(tmp_path / "r.json"), "--json", "")  # and unpatched: nothing left either
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("step", ["open", "fchmod", "replace"])
def test_a_ctrl_c_in_an_atomic_write_leaves_the_old_file_or_the_new_one_and_no_temporary(tmp_path, monkeypatch,
                                                                                          step):
    from planner.io.outputs import _write_atomic

    target = tmp_path / "r.json"
    target.write_text("old")
    with monkeypatch.context() as m:
        _interrupt_after(m, step)
        with pytest.raises(KeyboardInterrupt):
            _write_atomic(str(target), b"new", os.stat(target))
    assert [p.name for p in tmp_path.iterdir()] == ["r.json"]
    assert target.read_text() == ("new" if step == "replace" else "old")  # replace had renamed it whole
    _write_atomic(str(target), b"newer", os.stat(target))
    assert [p.name for p in tmp_path.iterdir()] == ["r.json"] and target.read_text() == "newer"
