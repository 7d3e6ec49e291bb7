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
    # an option of one value given twice is refused as such (it was: the last one kept, silently)
    (("plan", SCEN, "--time-limit", "30", "--time-limit", "0.01"), "--time-limit", "30, 0.01"),
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


def _range_options() -> list[tuple[tuple[str, ...], str, str, str]]:
    """(command path, option, a value just outside its range, the range as the error words it) for
    every option of every command with a min or max (read from the app, so a new range option is
    covered)."""
    import typer

    from planner.cli.commands import app

    found = []

    def walk(cmd, path):
        for name, sub in sorted(getattr(cmd, "commands", {}).items()):
            walk(sub, (*path, name))
        for p in getattr(cmd, "params", []):
            lo, hi = getattr(p, "min", None), getattr(p, "max", None)
            if lo is not None or hi is not None:
                what = "a whole number" if p.type_descriptor.annotation is int else "a number"
                ends = [f"{b:g}" if isinstance(b, float) else str(b) for b in (lo, hi)]
                words = (f"give {what} from {ends[0]} to {ends[1]}" if lo is not None and hi is not None
                         else f"give {what} of {ends[0]} or more" if lo is not None
                         else f"give {what} of {ends[1]} or less")
                found.append((path, p.opts[-1], str(lo - 1 if lo is not None else hi + 1), words))

    walk(typer.main.get_command(app), ())
    return found


RANGE_OPTIONS = _range_options()


def test_the_range_options_are_found():
    found = {(c, o, t): w for c, o, t, w in RANGE_OPTIONS}
    assert found[(("plan",), "--time-limit", "-0.9")] == "give a number from 0.1 to 86400"
    assert found[(("plan",), "--workers", "0")] == "give a whole number from 1 to 64"
    assert found[(("serve",), "--port", "0")] == "give a whole number from 1 to 65535"
    assert found[(("generate",), "--seed", "-1")] == "give a whole number of 0 or more"
    assert len({c for c, _, _, _ in RANGE_OPTIONS}) >= 5


@pytest.mark.parametrize(("command", "option", "typed", "words"), RANGE_OPTIONS,
                         ids=[f"{' '.join(c)} {o}" for c, o, _, _ in RANGE_OPTIONS])
def test_a_value_out_of_range_is_the_one_line_input_error(monkeypatch, capsys, command, option, typed, words):
    """Not click's boxed usage text nor pydantic's words ("Input should be greater than or equal
    to"): ``error: field --opt: out of range: give a number from LO to HI (value: 'typed')``, exit
    2, as for a bad value in a scenario file."""
    monkeypatch.setattr(sys, "argv", ["planner", *command, f"{option}={typed}"])
    with pytest.raises(SystemExit) as e:
        main()
    err = capsys.readouterr().err
    assert e.value.code == 2
    assert err == f"error: field {option}: out of range: {words} (value: '{typed}')\n", err


@pytest.mark.parametrize(("args", "line"), [
    (("plan", SCEN, "--time-limit", "0"), "field --time-limit: out of range: give a number from 0.1 to 86400 "
                                          "(value: '0')"),
    (("plan", SCEN, "--workers", "0"), "field --workers: out of range: give a whole number from 1 to 64 (value: '0')"),
    (("plan", SCEN, "--seed", "2147483648"), "field --seed: out of range: give a whole number from 0 to 2147483647 "
                                             "(value: '2147483648')"),
    (("check", SCEN, "--time-limit", "3601"), "field --time-limit: out of range: give a number from 0.1 to 3600 "
                                              "(value: '3601')"),
    (("threats", SCEN, "--unit", "x", "--grid", "0"), "field --grid: out of range: give a number from 0.5 to 12 "
                                                      "(value: '0')"),
    (("generate", "--count", "1", "--out", "unused", "--workers", "0"),
     "field --workers: out of range: give a whole number from 1 to 256 (value: '0')"),
    (("generate", "--count", "0", "--out", "unused"),
     "field --count: out of range: give a whole number from 1 to 100000000 (value: '0')"),
    (("deepstrike", SCEN, "--unit", "x", "--within", "-1"), "field --within: out of range: give a number of 0 or "
                                                            "more (value: '-1')"),
])
def test_the_range_error_of_each_limit_option(monkeypatch, capsys, args, line):
    """The paths a fresh user met, one by one, on standard error and in the JSON report."""
    monkeypatch.setattr(sys, "argv", ["planner", *args])
    with pytest.raises(SystemExit) as e:
        main()
    err = capsys.readouterr().err
    assert (e.value.code, err) == (2, f"error: {line}\n")
    option, words = line.removeprefix("field ").rsplit(" (value: ", 1)[0].split(": ", 1)
    r = _report(monkeypatch, capsys, *args)
    assert (r["location"], r["error"]) == (option, f"Invalid value for '{option}': {words}")


def test_a_value_not_a_number_and_nan_are_one_line_too(monkeypatch, capsys):
    for typed, words in (("abc", "not a number: give a number from -360 to 360"),
                         ("nan", "must be a finite number")):
        monkeypatch.setattr(sys, "argv", ["planner", "deepstrike", SCEN, "--unit", "x", f"--facing={typed}"])
        with pytest.raises(SystemExit) as e:
            main()
        err = capsys.readouterr().err
        assert e.value.code == 2 and err == f"error: field --facing: {words} (value: '{typed}')\n", err


@pytest.mark.parametrize("args", [("plan",), ("plan", SCEN, "--bogus"), ("plan", SCEN, "--time-limit")])
def test_usage_errors_keep_the_usage_text_and_the_pointer_to_help(monkeypatch, capsys, args):
    monkeypatch.setattr(sys, "argv", ["planner", *args])
    with pytest.raises(SystemExit) as e:
        main()
    err = capsys.readouterr().err
    assert e.value.code == 2 and "error: field" not in err
    assert ("Try 'planner plan --help' for help." in err) == (args[-1] != "--time-limit")


@pytest.mark.parametrize(("args", "line"), [
    (("plan", SCEN, "--workers", "1.5"), "field --workers: not a whole number: give a whole number from 1 to 64 "
                                         "(value: '1.5')"),
    (("plan", SCEN, "--time-limit", "abc"), "field --time-limit: not a number: give a number from 0.1 to 86400 "
                                            "(value: 'abc')"),
    (("generate", "--count", "1", "--out", "unused", "--seed", "x"),
     "field --seed: not a whole number: give a whole number of 0 or more (value: 'x')"),
])
def test_text_for_a_number_option_says_what_to_give(monkeypatch, capsys, args, line):
    """Not pydantic's "Input should be a valid integer, unable to parse string as an integer"."""
    monkeypatch.setattr(sys, "argv", ["planner", *args])
    with pytest.raises(SystemExit) as e:
        main()
    assert (e.value.code, capsys.readouterr().err) == (2, f"error: {line}\n")
