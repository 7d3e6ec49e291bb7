"""--json on an input error: the error report is written there too (a fresh user found that
check, import-tts and export-tts wrote nothing), and never over an input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from planner.cli.commands import app

ROOT = Path(__file__).resolve().parents[1]


def run(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


@pytest.mark.parametrize("command", [("check",), ("render", "--out", "PIC.svg"), ("plan", "--time-limit", "1")])
def test_an_input_error_writes_the_error_report(tmp_path, command):
    bad = tmp_path / "bad.yaml"
    bad.write_text("ruleset: hh2\nbattlefield: {width: -3}\narmies: []\n")
    out = tmp_path / "report.json"
    args = [a.replace("PIC", str(tmp_path / "pic")) for a in command]
    r = run(args[0], bad, *args[1:], "--json", out)
    assert r.exit_code == 2
    data = json.loads(out.read_text())
    assert data["ok"] is False and data["exit_code"] == 2
    assert data["file"] == str(bad) and data["location"] == "battlefield.width" and data["value"] == -3
    assert "battlefield.width" in data["error"]


def test_the_error_report_on_standard_output(tmp_path):
    r = run("check", tmp_path / "missing.yaml", "--json", "-")
    assert r.exit_code == 2
    data = json.loads(r.stdout)
    assert data["ok"] is False and data["exit_code"] == 2 and "missing.yaml" in data["error"]


def test_the_error_report_never_lands_on_an_input(tmp_path):
    bad = tmp_path / "bad.yaml"
    text = "ruleset: hh2\nbattlefield: {width: -3}\narmies: []\n"
    bad.write_text(text)
    r = run("check", bad, "--json", bad)
    assert r.exit_code == 2
    assert bad.read_text() == text
