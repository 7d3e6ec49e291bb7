"""A command-line error (a value out of range, not a number, an unknown option) in the JSON error
report gives the value the user typed, not null (session 6's fresh user), read from the raw command
line: ``--opt VALUE``, ``--opt=VALUE``, the last of several; the unknown option's own name."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from planner.cli.commands import main

ROOT = Path(__file__).resolve().parents[1]
SCEN = str(ROOT / "scenarios" / "plan-ravenguard-infiltrate.yaml")


def _report(monkeypatch, capsys, *args: str) -> dict:
    monkeypatch.setattr(sys, "argv", ["planner", *args, "--json", "-"])
    with pytest.raises(SystemExit) as e:
        main()
    assert e.value.code == 2
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize(("args", "location", "value"), [
    (("plan", SCEN, "--time-limit", "-5"), "--time-limit", "-5"),
    (("plan", SCEN, "--time-limit=-5"), "--time-limit", "-5"),
    (("plan", SCEN, "--time-limit", "30", "--time-limit", "0.01"), "--time-limit", "0.01"),
    (("deepstrike", SCEN, "--unit", "x", "--resolution", "abc"), "--resolution", "abc"),
    (("plan", SCEN, "--bogus", "3"), "--bogus", "--bogus"),
])
def test_the_json_error_report_holds_the_typed_value(monkeypatch, capsys, args, location, value):
    r = _report(monkeypatch, capsys, *args)
    assert (r["ok"], r["exit_code"], r["location"], r["value"]) == (False, 2, location, value)


def test_a_missing_argument_has_no_value(monkeypatch, capsys):
    r = _report(monkeypatch, capsys, "plan")
    assert r["location"] == "scenario" and r["value"] is None and "Missing argument" in r["error"]


@pytest.mark.parametrize("typed", ["nan", "-inf"])
def test_nan_for_a_number_option_says_it_must_be_finite(monkeypatch, capsys, typed):
    r = _report(monkeypatch, capsys, "deepstrike", SCEN, "--unit", "x", f"--facing={typed}")
    assert (r["location"], r["value"]) == ("--facing", typed)
    assert "must be a finite number" in r["error"] and "less than" not in r["error"]
