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


NAN_SCENARIO = """ruleset: hh2
battlefield: {width: 72, depth: 48}
deployment_zones:
  - {id: red-zone, player: red, polygon: [[0, 0], [72, 0], [72, 12], [0, 12]]}
  - {id: blue-zone, player: blue, polygon: [[0, 36], [72, 36], [72, 48], [0, 48]]}
armies:
  - player: red
    units:
      - id: tactical
        models: [{base: {diameter_mm: 32}, x: VALUE, y: 6}]
"""

# every command that reads a scenario (a fresh user found check and plan wrote no error report
# for x: .nan: the value itself could not be written as JSON, and the failure was swallowed)
SCENARIO_COMMANDS = [("check",), ("plan", "--time-limit", "1"), ("render", "--out", "PIC.svg"),
                     ("threats", "--enemy-unit", "tactical"), ("deepstrike", "--unit", "tactical"),
                     ("alternate", "--winner", "red", "--point", "36,24"), ("shoot", "--attacker", "tactical", "--target", "tactical"),
                     ("exposure",), ("export-tts", "--out", "PIC.json")]


NAN_CASES = [(c, ".nan", "nan") for c in SCENARIO_COMMANDS] + [
    (c, w, shown) for c in SCENARIO_COMMANDS[:2] for w, shown in [(".inf", "inf"), ("-.inf", "-inf"), (".NaN", "nan")]]


@pytest.mark.parametrize("command, written, shown", NAN_CASES, ids=[f"{c[0]}{w}" for c, w, _ in NAN_CASES])
def test_a_nan_or_infinite_number_writes_the_error_report_with_the_value_as_text(tmp_path, command, written, shown):
    bad = tmp_path / "nan.yaml"
    bad.write_text(NAN_SCENARIO.replace("VALUE", written))
    out = tmp_path / "err.json"
    args = [a.replace("PIC", str(tmp_path / "pic")) for a in command]
    r = run(args[0], bad, *args[1:], "--json", out)
    assert r.exit_code == 2, r.output
    data = json.loads(out.read_text())  # strict JSON: no NaN, no Infinity
    assert data == {"ok": False, "exit_code": 2, "file": str(bad), "location": "armies[0].units[0].models[0].x",
                    "value": shown, "error": f"{bad}: field armies[0].units[0].models[0].x: Input should be a "
                                             f"finite number (value: {shown})",
                    **({"out": str(tmp_path / "pic.json")} if command[0] == "export-tts" else {})}
    assert "not written" not in r.stderr


def test_a_nan_error_report_on_standard_output(tmp_path):
    bad = tmp_path / "nan.yaml"
    bad.write_text(NAN_SCENARIO.replace("VALUE", ".nan"))
    r = run("check", bad, "--json", "-")
    assert r.exit_code == 2
    data = json.loads(r.stdout)
    assert (data["ok"], data["value"]) == (False, "nan")


def test_an_error_report_that_cannot_be_written_is_said(tmp_path, monkeypatch):
    """Writing the error report failing for a reason of its own is said on standard error, not swallowed."""
    import planner.io.outputs as outputs

    def refuse(target, *a, **k):
        raise OSError(28, "No space left on device")

    bad = tmp_path / "bad.yaml"
    bad.write_text("ruleset: hh2\nbattlefield: {width: -3}\narmies: []\n")
    monkeypatch.setattr(outputs, "write_output", refuse)
    r = run("check", bad, "--json", tmp_path / "err.json")
    assert r.exit_code == 2
    assert "field battlefield.width" in r.stderr
    assert (f"error: the error report was not written to --json {tmp_path / 'err.json'}: [Errno 28] No space left "
            "on device") in " ".join(r.stderr.split())
