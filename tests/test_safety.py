"""Nothing lost, nothing hangs (issue #14): no output lands on an input, every input is bounded,
odd values are refused, an internal error has its own exit code, and an illegal table is said so.

Every test runs the real command line (``planner.cli.app``) on real files in a temporary folder.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import threading
import time
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from planner.cli import app

ROOT = Path(__file__).resolve().parents[1]
SCEN = ROOT / "scenarios"
LONG_EDGE = SCEN / "long-edge-ravenguard-vs-ironhands.yaml"
PLAN = SCEN / "plan-ravenguard-infiltrate.yaml"
ROSTER_PLAN = SCEN / "roster-strike-force-plan.yaml"
ROSTER = SCEN / "rosters" / "strike-force-newrecruit.ros"


def run(*args: str, env: dict | None = None):
    return CliRunner().invoke(app, [str(a) for a in args], env=env)


def one_line(text: str) -> str:
    return " ".join(text.split())


@pytest.fixture
def roster_scenario(tmp_path: Path) -> Path:
    """The bundled roster scenario with its roster, copied to a temporary folder."""
    shutil.copy(ROSTER_PLAN, tmp_path / ROSTER_PLAN.name)
    (tmp_path / "rosters").mkdir()
    shutil.copy(ROSTER, tmp_path / "rosters" / ROSTER.name)
    return tmp_path / ROSTER_PLAN.name


# --------------------------------------------------------------------------- no input is ever written


@pytest.mark.parametrize("option", ["--out", "--json"])
def test_plan_refuses_to_write_over_the_roster_the_scenario_imports(roster_scenario: Path, option: str):
    roster = roster_scenario.parent / "rosters" / ROSTER.name
    before = roster.read_bytes()
    r = run("plan", roster_scenario, "--time-limit", "2", option, roster)
    assert r.exit_code == 2, r.stderr
    msg = one_line(r.stderr)
    assert option in msg and "refusing to overwrite an input" in msg and str(roster) in msg
    assert roster.read_bytes() == before


def test_a_hard_link_or_a_symlink_to_an_input_is_the_same_file(roster_scenario: Path, tmp_path: Path):
    roster = roster_scenario.parent / "rosters" / ROSTER.name
    before = roster.read_bytes()
    os.link(roster, tmp_path / "other-name.ros")
    r = run("plan", roster_scenario, "--time-limit", "2", "--out", tmp_path / "other-name.ros")
    assert r.exit_code == 2 and "same file as" in one_line(r.stderr), r.stderr
    (tmp_path / "link.yaml").symlink_to(roster_scenario)
    scen_before = roster_scenario.read_bytes()
    r = run("check", roster_scenario, "--json", tmp_path / "link.yaml")
    assert r.exit_code == 2 and "--json" in r.stderr
    # another spelling of the scenario's own path
    r = run("plan", roster_scenario, "--time-limit", "2", "--json", f"{tmp_path}/./rosters/../{roster_scenario.name}")
    assert r.exit_code == 2 and "refusing to overwrite an input" in one_line(r.stderr)
    assert roster.read_bytes() == before and roster_scenario.read_bytes() == scen_before
    assert (tmp_path / "link.yaml").is_symlink()


def test_two_outputs_of_one_run_may_not_be_the_same_file(tmp_path: Path):
    r = run("plan", PLAN, "--time-limit", "2", "--out", tmp_path / "p.yaml", "--json", tmp_path / "./p.yaml")
    assert r.exit_code == 2, r.stderr
    assert "--json" in r.stderr and "--out" in r.stderr and "same file" in r.stderr
    assert not (tmp_path / "p.yaml").exists()


def test_import_roster_refuses_its_roster_as_json_output(tmp_path: Path):
    shutil.copy(ROSTER, tmp_path / "r.ros")
    before = (tmp_path / "r.ros").read_bytes()
    os.link(tmp_path / "r.ros", tmp_path / "r2.ros")
    for opt in ("--out", "--json"):
        r = run("import-roster", tmp_path / "r.ros", "--player", "blue", opt, tmp_path / "r2.ros")
        assert r.exit_code == 2 and opt in r.stderr, r.stderr
    assert (tmp_path / "r.ros").read_bytes() == before


def test_generate_refuses_to_write_over_its_params_or_its_own_lines(tmp_path: Path):
    params = tmp_path / "params.yaml"
    params.write_text("{}\n", encoding="utf-8")
    r = run("generate", "--count", "2", "--out", tmp_path / "g", "--params", params, "--json", params)
    assert r.exit_code == 2 and "--json" in r.stderr and "refusing to overwrite an input" in one_line(r.stderr)
    assert params.read_text(encoding="utf-8") == "{}\n"
    r = run("generate", "--count", "2", "--out", tmp_path / "g2", "--json", tmp_path / "g2" / "scenarios.jsonl")
    assert r.exit_code == 2 and "same file" in one_line(r.stderr), r.stderr
    # the params file inside the output folder, named as one of its outputs
    (tmp_path / "g3").mkdir()
    inside = tmp_path / "g3" / "manifest.json"
    inside.write_text("{}\n", encoding="utf-8")
    r = run("generate", "--count", "2", "--out", tmp_path / "g3", "--params", inside)
    assert r.exit_code == 2 and "refusing to overwrite an input" in one_line(r.stderr), r.stderr
    assert inside.read_text(encoding="utf-8") == "{}\n"


def test_a_device_given_as_output_stays_a_device(tmp_path: Path):
    r = run("check", LONG_EDGE, "--json", "/dev/null")
    assert r.exit_code == 0, r.stderr
    r = run("import-roster", ROSTER, "--player", "blue", "--out", "/dev/null")
    assert r.exit_code == 0, r.stderr
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_a_symlink_given_as_output_is_followed_not_replaced(tmp_path: Path):
    target = tmp_path / "real.json"
    target.write_text("old\n", encoding="utf-8")
    os.chmod(target, 0o640)
    (tmp_path / "link.json").symlink_to(target)
    r = run("check", LONG_EDGE, "--json", tmp_path / "link.json")
    assert r.exit_code == 0, r.stderr
    assert (tmp_path / "link.json").is_symlink()
    assert json.loads(target.read_text(encoding="utf-8"))["legal"] is True
    assert stat.S_IMODE(target.stat().st_mode) == 0o640  # the replaced file keeps its permissions
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.json", "real.json"]  # no temporary file left


def test_a_fifo_output_with_no_reader_is_refused_at_once(tmp_path: Path):
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    t = time.monotonic()
    r = run("check", LONG_EDGE, "--json", fifo)
    assert r.exit_code == 2 and "no process reads this FIFO" in r.stderr
    assert time.monotonic() - t < 10
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    # refused when claimed, before the work: no report printed first (a fresh user saw the whole
    # report end "Legal deployment ..." and then the refusal)
    assert r.stdout == "" and "Legal deployment" not in r.stderr
    shown = repr(str(fifo)) if len(repr(str(fifo))) <= 80 else repr(str(fifo))[:77] + "..."  # a long value is cut
    assert one_line(r.stderr) == f"error: field --json: no process reads this FIFO (value: {shown})"


@pytest.mark.parametrize("command", [("plan", PLAN, "--time-limit", "5", "--out", "OUT"),
                                     ("render", LONG_EDGE, "--out", "OUT.svg")])
def test_a_fifo_output_with_no_reader_is_refused_before_the_work_by_every_command(tmp_path: Path, command):
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    args = [str(a).replace("OUT", str(tmp_path / "out")) for a in command]
    r = run(*args, "--json", fifo)
    assert r.exit_code == 2 and "field --json: no process reads this FIFO" in r.stderr
    assert r.stdout == ""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.fifo"]  # neither the plan nor the picture


def _run_with_a_fifo_reader(fifo: Path, *args):
    """``run(*args, "--json", fifo)`` while a thread reads ``fifo`` (made here); (result, bytes read)."""
    os.mkfifo(fifo)
    got: list[bytes] = []

    def reader() -> None:
        with open(fifo, "rb") as fh:
            got.append(fh.read())

    th = threading.Thread(target=reader, daemon=True)
    th.start()
    time.sleep(0.2)
    r = run(*args, "--json", fifo)
    th.join(10)
    return r, got[0]


def test_a_fifo_output_with_a_reader_gets_the_error_report(tmp_path: Path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("ruleset: hh2\nbattlefield: {width: -3}\narmies: []\n")
    r, got = _run_with_a_fifo_reader(tmp_path / "out.fifo", "check", bad)
    assert r.exit_code == 2, r.stderr
    data = json.loads(got)
    assert (data["ok"], data["location"], data["value"]) == (False, "battlefield.width", -3)


def test_a_fifo_output_with_a_reader_is_written_through(tmp_path: Path):
    fifo = tmp_path / "out.fifo"
    r, got = _run_with_a_fifo_reader(fifo, "check", LONG_EDGE)
    assert r.exit_code == 0, r.stderr
    assert json.loads(got)["legal"] is True
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


# --------------------------------------------------------------------------- bounded input


def test_an_endless_device_as_scenario_ends_quickly_with_exit_2():
    t = time.monotonic()
    r = run("check", "/dev/zero")
    assert r.exit_code == 2 and "limit" in r.stderr and "/dev/zero" in r.stderr
    assert time.monotonic() - t < 15


def test_a_fifo_roster_nobody_writes_fails_within_the_read_time_limit(roster_scenario: Path):
    fifo = roster_scenario.parent / "fifo.ros"
    os.mkfifo(fifo)
    text = roster_scenario.read_text(encoding="utf-8").replace("rosters/strike-force-newrecruit.ros", "fifo.ros")
    roster_scenario.write_text(text, encoding="utf-8")
    t = time.monotonic()
    r = run("plan", roster_scenario, "--time-limit", "2", env={"PLANNER_READ_TIMEOUT": "1"})
    assert r.exit_code == 2, r.stderr
    msg = one_line(r.stderr)
    assert "fifo.ros" in msg and "did not end within 1 s" in msg and "armies[1].roster.file" in msg
    assert time.monotonic() - t < 20


def test_a_fifo_scenario_with_a_writer_is_read_with_the_same_limits(tmp_path: Path):
    fifo = tmp_path / "s.yaml"
    os.mkfifo(fifo)
    data = LONG_EDGE.read_bytes()

    def writer() -> None:
        with open(fifo, "wb") as fh:
            fh.write(data)

    th = threading.Thread(target=writer, daemon=True)
    th.start()
    r = run("check", fifo)
    th.join(10)
    assert r.exit_code == 0, r.stderr


def test_the_size_limit_is_named_and_can_be_raised(tmp_path: Path):
    r = run("check", LONG_EDGE, env={"PLANNER_MAX_INPUT_MB": "0.001"})
    assert r.exit_code == 2 and "PLANNER_MAX_INPUT_MB" in one_line(r.stderr) and "limit 1048" in r.stderr
    r = run("check", LONG_EDGE, env={"PLANNER_MAX_INPUT_MB": "5"})
    assert r.exit_code == 0
    r = run("check", LONG_EDGE, env={"PLANNER_MAX_INPUT_MB": "nan"})
    assert r.exit_code == 2 and "PLANNER_MAX_INPUT_MB" in r.stderr



@pytest.mark.parametrize("value", ["-1", "nan", "abc", "0", "86400.5", "1e400"])
def test_a_bad_read_time_limit_is_refused_on_every_run_not_only_for_a_fifo(value: str):
    """Like PLANNER_MAX_INPUT_MB: a regular scenario file, exit 2 naming the variable and value."""
    r = run("check", LONG_EDGE, env={"PLANNER_READ_TIMEOUT": value})
    assert r.exit_code == 2, r.stderr
    assert (f"field PLANNER_READ_TIMEOUT: give the read time limit in seconds, more than 0 and at most 86400 "
            f"(value: {value!r})") in one_line(r.stderr)
    assert "Traceback" not in r.stderr


def test_a_good_read_time_limit_with_a_regular_file_is_fine():
    assert run("check", LONG_EDGE, env={"PLANNER_READ_TIMEOUT": "86400"}).exit_code == 0


BOMB = ("\n".join(["a: &a [x, x, x, x, x, x, x, x, x]"]
                 + [f"{n}: &{n} [{', '.join([f'*{p}'] * 9)}]" for p, n in zip("abcdefgh", "bcdefghi", strict=True)])
        + "\n")


def test_an_alias_bomb_is_refused_without_expanding_it(tmp_path: Path):
    f = tmp_path / "bomb.yaml"
    f.write_text(BOMB, encoding="utf-8")
    assert f.stat().st_size < 500
    t = time.monotonic()
    r = run("check", f)
    assert r.exit_code == 2 and "aliases expand to more than 1000000 values" in one_line(r.stderr), r.stderr
    assert time.monotonic() - t < 10


@pytest.mark.parametrize("text, words", [
    ("a: &a [*a]\n", "alias refers to the node that holds it"),
    ("[" * 200 + "]" * 200 + "\n", "nests more than 64 levels"),
])
def test_recursive_and_deep_yaml_is_refused(tmp_path: Path, text: str, words: str):
    f = tmp_path / "s.yaml"
    f.write_text(text, encoding="utf-8")
    r = run("check", f)
    assert r.exit_code == 2 and words in one_line(r.stderr), r.stderr


@pytest.mark.parametrize("number, words", [
    ("9" * 5000, "a number of 5000 characters; at most 40"),
    ("9" * 400 + ".5", "a number of 402 characters"),
    ("1e999", "number too large"),
])
def test_big_numbers_are_refused_naming_the_field(tmp_path: Path, number: str, words: str):
    f = tmp_path / "s.yaml"
    f.write_text(f"ruleset: hh2\nbattlefield: {{width: {number}, depth: 48}}\n", encoding="utf-8")
    r = run("check", f)
    assert r.exit_code == 2, r.stderr
    msg = one_line(r.stderr)
    assert words in msg and "s.yaml" in msg
    if "characters" in words:
        assert "battlefield.width" in msg


def test_out_of_range_numbers_are_refused(tmp_path: Path):
    data = yaml.safe_load(LONG_EDGE.read_text(encoding="utf-8"))
    data["goals"] = [{"kind": "near_point", "x": 36, "y": 24, "weight": 10**30}]
    f = tmp_path / "s.yaml"
    f.write_text(yaml.safe_dump(data), encoding="utf-8")
    r = run("check", f)
    assert r.exit_code == 2 and "goals[0].weight" in r.stderr and "out of range" in r.stderr


@pytest.mark.parametrize("text, words", [
    ('{"ruleset": "hh2", "ruleset": "hh2"}', "duplicate key 'ruleset'"),
    ('{"ruleset": "hh2", "battlefield": {"width": NaN}}', "NaN is not a JSON number"),
    ('{"ruleset": "hh2", "battlefield": {"width": Infinity}}', "Infinity is not a JSON number"),
    ('{"ruleset": "hh2", "battlefield": {"width": 1e999}}', "number too large"),
])
def test_json_refuses_duplicate_keys_nan_and_infinity(tmp_path: Path, text: str, words: str):
    f = tmp_path / "s.json"
    f.write_text(text, encoding="utf-8")
    r = run("check", f)
    assert r.exit_code == 2 and words in one_line(r.stderr), r.stderr


def test_too_many_models_and_vertices_are_refused(tmp_path: Path):
    data = yaml.safe_load(LONG_EDGE.read_text(encoding="utf-8"))
    unit = data["armies"][0]["units"][0]
    unit["models"] = [dict(unit["models"][0]) for _ in range(1001)]
    f = tmp_path / "s.yaml"
    f.write_text(yaml.safe_dump(data), encoding="utf-8")
    r = run("check", f)
    assert r.exit_code == 2 and "armies[0].units[0].models" in r.stderr and "1000" in r.stderr
    data = yaml.safe_load(LONG_EDGE.read_text(encoding="utf-8"))
    import math

    data["terrain"][0]["footprint"] = [[36 + 5 * math.cos(k / 200 * math.tau), 24 + 5 * math.sin(k / 200 * math.tau)]
                                       for k in range(1200)]
    f.write_text(yaml.safe_dump(data), encoding="utf-8")
    r = run("check", f)
    assert r.exit_code == 2 and "at most 1000 are allowed" in one_line(r.stderr), r.stderr


# --------------------------------------------------------------------------- values


def test_alternate_refuses_a_nan_point():
    r = run("alternate", ROOT / "tests" / "assets" / "alternate-small.yaml", "--winner", "red", "--point", "nan,nan")
    assert r.exit_code == 2 and "--point" in r.stderr


@pytest.mark.parametrize("option, value", [("--orientation", "nan"), ("--facing", "inf")])
def test_deepstrike_refuses_non_finite_angles(option: str, value: str):
    r = run("deepstrike", LONG_EDGE, "--unit", "x", "--at", "36,24", option, value)
    assert r.exit_code == 2 and option in r.stderr


@pytest.mark.parametrize("field, value, words", [
    ("id", "a\x00b", "non-printable character U+0000"),
    ("id", "tac\u202etical", "bidirectional control character U+202E"),
    ("name", "\x1b[31mRed", "control character U+001B"),
])
def test_control_characters_are_refused(tmp_path: Path, field: str, value: str, words: str):
    data = yaml.safe_load(LONG_EDGE.read_text(encoding="utf-8"))
    data["armies"][0]["units"][0][field] = value
    f = tmp_path / "s.json"
    f.write_text(json.dumps(data), encoding="utf-8")
    r = run("check", f)
    assert r.exit_code == 2 and words in r.stderr and f"armies[0].units[0].{field}" in r.stderr, r.stderr


def test_names_with_markup_are_printed_as_written(tmp_path: Path):
    data = yaml.safe_load(LONG_EDGE.read_text(encoding="utf-8"))
    data["armies"][0]["units"][0]["name"] = "[/][bold]X"
    f = tmp_path / "s.yaml"
    f.write_text(yaml.safe_dump(data), encoding="utf-8")
    r = run("check", f, "-v")
    assert r.exit_code == 0, r.stderr
    assert "([/][bold]X)" in r.stdout  # rich markup in a name is text, not markup (nor a MarkupError)


def test_a_failing_margin_of_zero_reads_as_failing():
    from planner.report.ruling import fmt_margin

    assert fmt_margin(0.0, failing=True) == '0.000" (fails)'
    assert fmt_margin(1e-9, failing=True) == '0.000" (fails)'
    assert fmt_margin(0.0) == '+0.000"'
    assert fmt_margin(-0.25, failing=True) == '-0.250"'


# --------------------------------------------------------------------------- exit codes


def test_an_internal_error_exits_4_and_names_the_log_with_the_traceback(monkeypatch):
    import planner.legality.checker as checker

    def broken(world):
        raise ZeroDivisionError("a planted bug")

    monkeypatch.setattr(checker, "check_deployment", broken)
    r = run("check", LONG_EDGE)
    assert r.exit_code == 4, r.stderr
    msg = one_line(r.stderr)
    assert "internal error" in msg and "Traceback" not in msg
    log = Path(msg.split("the traceback is in ")[1].split()[0])
    text = log.read_text(encoding="utf-8")
    assert "Traceback" in text and "ZeroDivisionError: a planted bug" in text
    log.unlink()


# --------------------------------------------------------------------------- illegal starting tables


@pytest.fixture
def illegal_plan(tmp_path: Path) -> Path:
    data = yaml.safe_load(PLAN.read_text(encoding="utf-8"))
    fixed = next(u for a in data["armies"] for u in a["units"] if not u.get("place") and "y" in u["models"][0])
    for m in fixed["models"]:
        m["y"] = 24.0  # out of its deployment zone
    f = tmp_path / "illegal.yaml"
    f.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return f


def test_plan_refuses_an_illegal_table_before_planning(illegal_plan: Path, tmp_path: Path):
    t = time.monotonic()
    r = run("plan", illegal_plan, "--time-limit", "5", "--out", tmp_path / "p.yaml", "--json", tmp_path / "p.json")
    assert r.exit_code == 1, r.stderr
    out = one_line(r.stdout)
    assert "already illegal before the plan places anything" in out and "wholly_within_zone" in out
    assert "optimal" not in out and not (tmp_path / "p.yaml").exists()
    assert json.loads((tmp_path / "p.json").read_text(encoding="utf-8"))["status"] == "illegal_table"
    assert time.monotonic() - t < 5  # before any solving


def test_plan_of_an_illegal_table_with_allow_is_reported_illegal(illegal_plan: Path, tmp_path: Path):
    r = run("plan", illegal_plan, "--time-limit", "30", "--allow-illegal-table", "--json", tmp_path / "p.json")
    assert r.exit_code == 1, r.stderr
    out = one_line(r.stdout)
    assert "warning: the table is already illegal" in out
    assert "Solver status: ILLEGAL" in out and "Solver status: optimal" not in out
    # the JSON says it as the text does (a fresh user read "status": "optimal" beside "legal": false)
    report = json.loads((tmp_path / "p.json").read_text(encoding="utf-8"))
    assert (report["status"], report["solver_status"], report["legal"]) == ("illegal", "optimal", False)


# --------------------------------------------------------------------------- the CLI's own words


def test_help_shows_flags_as_flags_and_names_every_ruleset():
    from planner.rules.registry import RULESETS

    r = CliRunner().invoke(app, ["check", "--help"], terminal_width=160)
    line = next(ln for ln in r.stdout.splitlines() if "--verbose" in ln)
    assert "<bool>" not in line
    r = CliRunner().invoke(app, ["--help"], terminal_width=160)
    text = one_line(r.stdout)
    for rid in RULESETS:
        assert rid in text
    assert "4 internal error" in text


# --------------------------------------------------------------------------- Ray


def test_an_unreachable_ray_address_fails_within_30_s(tmp_path: Path):
    pytest.importorskip("ray")
    import socket

    with socket.socket() as s:  # a free port where nothing listens
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    t = time.monotonic()
    r = run("generate", "--count", "2", "--out", tmp_path / "g", "--engine", "ray", "--address", f"127.0.0.1:{port}")
    assert r.exit_code in (2, 3), r.stderr
    assert "--address" in r.stderr and "no Ray cluster answers" in one_line(r.stderr)
    assert time.monotonic() - t < 30


def test_paths_with_markup_are_printed_as_written(tmp_path: Path):
    odd = tmp_path / "a["
    odd.mkdir()
    scen = odd / "x]s.yaml"  # the path holds '[/x]', a closing tag for rich
    shutil.copy(LONG_EDGE, scen)
    r = run("check", scen)
    assert r.exit_code == 0, r.stderr
    assert "[/x]s.yaml" in one_line(r.stdout)
    r = run("plan", PLAN, "--time-limit", "1", "--out", odd / "x]p.yaml")
    assert r.exit_code in (0, 3), r.stderr
    assert "internal error" not in r.stderr


def test_deepstrike_map_refuses_the_scenario(tmp_path: Path):
    scen = tmp_path / "s.csv"  # a scenario file with a map's extension
    shutil.copy(LONG_EDGE, scen)
    before = scen.read_bytes()
    r = run("deepstrike", scen, "--unit", "ih-assault", "--at", "10,30", "--map", scen)
    assert r.exit_code == 2, r.stderr
    assert "--map" in r.stderr and scen.read_bytes() == before


def test_catalogue_files_are_inputs_too(tmp_path: Path):
    models = tmp_path / "models"
    shutil.copytree(ROOT / "models", models)
    target = sorted(models.glob("**/*.yaml"))[0]
    before = target.read_bytes()
    r = run("check", LONG_EDGE, "--json", target, env={"PLANNER_MODELS": str(models)})
    assert r.exit_code == 2 and "refusing to overwrite an input" in one_line(r.stderr), r.stderr
    assert target.read_bytes() == before


@pytest.mark.parametrize("value, words", [("1e9,30", "less than 10000 in size"), ("nan,3", "finite numbers"),
                                          ("3", "give a point as X,Y")])
def test_deepstrike_aim_point_too_large_or_not_finite_is_named(value: str, words: str):
    r = run("deepstrike", LONG_EDGE, "--unit", "ih-assault", "--at", value)
    assert r.exit_code == 2 and "--at" in r.stderr and words in " ".join(r.stderr.split()), r.stderr


def test_command_line_errors_also_write_the_json_error_report(tmp_path: Path):
    """Session 6's fresh user: `--json PATH` held the error for a bad scenario but was not written for
    a bad option (the console script's errors, exit 2); it is now, and never over an input."""
    import subprocess
    import sys

    out = tmp_path / "err.json"
    p = subprocess.run([sys.executable, "-m", "planner", "plan", str(LONG_EDGE), "--time-limit", "0.01",
                        "--json", str(out)], capture_output=True, text=True, timeout=120)
    assert p.returncode == 2 and "--time-limit" in p.stderr and "Traceback" not in p.stderr
    report = json.loads(out.read_text())
    assert report["ok"] is False and report["exit_code"] == 2 and report["location"] == "--time-limit"
    assert "0.1" in report["error"]
    # --json naming the scenario itself: the error is shown, the scenario untouched
    scen = tmp_path / "s.yaml"
    shutil.copy(LONG_EDGE, scen)
    before = scen.read_bytes()
    p = subprocess.run([sys.executable, "-m", "planner", "check", "--bogus", "--json", str(scen), str(scen)],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 2 and "--bogus" in p.stderr and scen.read_bytes() == before
    p = subprocess.run([sys.executable, "-m", "planner", "check", "--bogus", "--json", "-"],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 2 and json.loads(p.stdout)["error"].startswith("No such option: --bogus")
