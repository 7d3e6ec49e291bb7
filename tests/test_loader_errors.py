"""Bad input through the CLI: exit code 2, one message naming the file, the field and the value; no traceback.

Every case writes its file to ``tmp_path``, runs ``python -m planner check FILE`` and checks that
the input file is byte-for-byte unchanged afterwards.
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]

VALID = {
    "ruleset": "hh2",
    "battlefield": {"width": 72, "depth": 48},
    "terrain": [
        {"id": "ruin", "footprint": [[30, 20], [34, 20], [34, 24], [30, 24]], "kind": "area",
         "traits": ["blocks_line_of_sight"]},
        {"id": "bunker", "footprint": [[50, 20], [54, 20], [54, 24], [50, 24]], "kind": "solid",
         "building": {"capacity": 10}},
    ],
    "deployment_zones": [
        {"id": "red-dz", "player": "red", "polygon": [[0, 0], [72, 0], [72, 12], [0, 12]]},
        {"id": "blue-dz", "player": "blue", "polygon": [[0, 36], [72, 36], [72, 48], [0, 48]]},
    ],
    "armies": [
        {"player": "red", "units": [
            {"id": "squad", "type": "Infantry", "setup": {"method": "deployment_zone", "zone": "red-dz"},
             "models": [{"base": {"diameter_mm": 32}, "x": 10, "y": 5},
                        {"base": {"diameter_mm": 32}, "x": 11.5, "y": 5}]},
            {"id": "captain", "type": "Infantry", "rules": ["Independent Character"],
             "setup": {"method": "deployment_zone", "joined": "squad"},
             "models": [{"base": {"diameter_mm": 40}, "x": 13.2, "y": 5}]},
        ]},
        {"player": "blue", "units": [
            {"id": "tacticals", "type": "Infantry",
             "models": [{"base": {"diameter_mm": 32}, "x": 36, "y": 40}]},
        ]},
    ],
}


def _run(path: Path) -> subprocess.CompletedProcess:
    """``planner check PATH`` run in this process by typer's runner, as a finished process (exit code,
    stdout, stderr): a process start each (~2 s, 33 of them) was most of this file's time. The loader's
    refusals are the command's own (exit 2), which ``planner.cli.main`` passes through unchanged; the
    real process is run by :func:`test_a_real_process_refuses_as_the_runner_does` and the last test here."""
    from typer.testing import CliRunner

    from planner.cli.commands import app

    res = CliRunner().invoke(app, ["check", str(path)])
    assert res.exception is None or isinstance(res.exception, SystemExit), res.exception  # never a traceback
    return subprocess.CompletedProcess(["planner", "check", str(path)], res.exit_code, res.stdout, res.stderr)


def _run_process(path: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "planner", "check", str(path)], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)


def _write(tmp_path: Path, data, name="scenario.yaml") -> Path:
    p = tmp_path / name
    p.write_text(data if isinstance(data, str) else yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return p


def _assert_input_error(path: Path, *expected: str, file_shown: str | None = None) -> str:
    before = path.read_bytes() if path.is_file() else None
    res = _run(path)
    out = res.stdout + res.stderr
    assert "Traceback" not in out, out
    assert res.returncode == 2, f"exit {res.returncode}; stdout={res.stdout!r} stderr={res.stderr!r}"
    err = res.stderr.strip()
    assert err, "no message on stderr"
    assert len(err.splitlines()) == 1, f"expected one message, got: {err!r}"
    assert (file_shown or str(path)) in err, err
    for e in expected:
        assert e in err, f"{e!r} not in {err!r}"
    if before is not None:
        assert path.read_bytes() == before, "the input file was changed"
    return err


def _mutated(fn) -> dict:
    d = copy.deepcopy(VALID)
    fn(d)
    return d


def test_valid_scenario_runs(tmp_path):
    """The base of every case below is itself valid input (exit 0 or 1, never 2)."""
    p = _write(tmp_path, VALID)
    res = _run(p)
    assert res.returncode in (0, 1), res.stderr
    assert "Traceback" not in res.stdout + res.stderr


def test_a_real_process_refuses_as_the_runner_does(tmp_path):
    """The cases below run ``planner check`` in this process (``_run``): a real ``python -m planner``
    process gives the same exit code and the same bytes on stdout and stderr."""
    cases = [_write(tmp_path, "ruleset: hh2\narmies:\n\t- player: red\n", "tab.yaml"),
             _write(tmp_path, _mutated(lambda d: d.update(colour="red")), "field.yaml")]
    for path in cases:
        fast, real = _run(path), _run_process(path)
        assert real.returncode == 2
        assert (fast.returncode, fast.stdout, fast.stderr) == (real.returncode, real.stdout, real.stderr)


def test_malformed_yaml(tmp_path):
    p = _write(tmp_path, "ruleset: hh2\narmies:\n  - player: red\n    units: [\n      {id: a\n")
    _assert_input_error(p, "malformed YAML", "line")


def test_yaml_tab_indentation(tmp_path):
    p = _write(tmp_path, "ruleset: hh2\narmies:\n\t- player: red\n")
    _assert_input_error(p, "malformed YAML")


def test_unknown_top_level_field(tmp_path):
    p = _write(tmp_path, _mutated(lambda d: d.update(colour="red")))
    _assert_input_error(p, "field colour", "'red'")


def test_unknown_nested_field(tmp_path):
    def f(d):
        d["armies"][0]["units"][1]["models"][0]["facing_deg"] = 90

    p = _write(tmp_path, _mutated(f))
    _assert_input_error(p, "armies[0].units[1].models[0].facing_deg", "90")


@pytest.mark.parametrize("size", [-32, 0])
def test_bad_base_size(tmp_path, size):
    def f(d):
        d["armies"][0]["units"][0]["models"][1]["base"]["diameter_mm"] = size

    p = _write(tmp_path, _mutated(f))
    _assert_input_error(p, "armies[0].units[0].models[1].base.diameter_mm", f"value: {size}")


def test_bad_oval_size(tmp_path):
    def f(d):
        d["armies"][1]["units"][0]["models"][0]["base"] = {"length_mm": 75, "width_mm": -1}

    p = _write(tmp_path, _mutated(f))
    _assert_input_error(p, "armies[1].units[0].models[0].base.width_mm", "-1")


@pytest.mark.parametrize(("base", "named"), [
    ({"diameter_mm": 32, "length_mm": 60}, "diameter_mm (round), length_mm (oval)"),
    ({"length_mm": 60, "width_mm": 30, "length_in": 3}, "length_mm (oval), width_mm (oval), length_in (hull)"),
    ({"shape": "round", "diameter_mm": 32, "width_in": 2}, "shape round, width_in (hull)"),
    ({"shape": "hull", "diameter_mm": 32}, "shape hull, diameter_mm (round)"),
])
def test_a_base_with_the_sizes_of_two_kinds_names_the_fields_that_conflict(tmp_path, base, named):
    def f(d):
        d["armies"][1]["units"][0]["models"][0]["base"] = base

    p = _write(tmp_path, _mutated(f))
    _assert_input_error(p, f"field armies[1].units[0].models[0].base: conflicting base fields: {named}; "
                           "give one kind: a base is {diameter_mm}, {length_mm, width_mm} (oval) or "
                           "{length_in, width_in} (hull)")


def test_a_base_whose_shape_is_not_text_is_an_input_error(tmp_path):
    """Found by the fuzzer: the conflict check looked a list ``shape`` up as a dict key (TypeError)."""
    def f(d):
        d["armies"][1]["units"][0]["models"][0]["base"] = {"shape": ["round"], "diameter_mm": 32}

    _assert_input_error(_write(tmp_path, _mutated(f)), "armies[1].units[0].models[0].base")


def test_self_intersecting_polygon(tmp_path):
    def f(d):
        d["terrain"][0]["footprint"] = [[30, 20], [34, 24], [34, 20], [30, 24]]

    p = _write(tmp_path, _mutated(f))
    _assert_input_error(p, "terrain[0].footprint", "not a simple polygon", "[30, 20]")


def test_self_intersecting_zone(tmp_path):
    def f(d):
        d["deployment_zones"][1]["polygon"] = [[0, 36], [72, 48], [72, 36], [0, 48]]

    p = _write(tmp_path, _mutated(f))
    _assert_input_error(p, "deployment_zones[1].polygon", "not a simple polygon")


def test_unit_with_no_models(tmp_path):
    def f(d):
        d["armies"][1]["units"][0]["models"] = []

    p = _write(tmp_path, _mutated(f))
    _assert_input_error(p, "armies[1].units[0].models", "at least 1", "[]")


def test_duplicate_unit_id(tmp_path):
    def f(d):
        d["armies"][0]["units"][1]["id"] = "squad"
        d["armies"][0]["units"][1]["setup"] = {"method": "deployment_zone"}

    p = _write(tmp_path, _mutated(f))
    _assert_input_error(p, "armies[0].units[1].id", "duplicate", "'squad'")


def test_duplicate_unit_id_across_armies(tmp_path):
    def f(d):
        d["armies"][1]["units"][0]["id"] = "squad"

    p = _write(tmp_path, _mutated(f))
    _assert_input_error(p, "armies[1].units[0].id", "'squad'")


def test_dangling_joined(tmp_path):
    def f(d):
        d["armies"][0]["units"][1]["setup"]["joined"] = "ghosts"

    p = _write(tmp_path, _mutated(f))
    _assert_input_error(p, "armies[0].units[1].setup.joined", "'ghosts'")


def test_dangling_embarked_in(tmp_path):
    def f(d):
        d["armies"][0]["units"][0]["setup"] = {"method": "embarked", "in": "rhino-7"}

    p = _write(tmp_path, _mutated(f))
    _assert_input_error(p, "armies[0].units[0].setup.in", "'rhino-7'")


def test_dangling_zone(tmp_path):
    def f(d):
        d["armies"][0]["units"][0]["setup"]["zone"] = "nowhere"

    p = _write(tmp_path, _mutated(f))
    _assert_input_error(p, "armies[0].units[0].setup.zone", "'nowhere'")


def test_zone_of_the_other_player(tmp_path):
    def f(d):
        d["armies"][0]["units"][0]["setup"]["zone"] = "blue-dz"

    p = _write(tmp_path, _mutated(f))
    _assert_input_error(p, "armies[0].units[0].setup.zone", "'blue-dz'")


def test_model_far_off_the_table(tmp_path):
    def f(d):
        d["armies"][1]["units"][0]["models"][0]["x"] = 500

    p = _write(tmp_path, _mutated(f))
    _assert_input_error(p, "armies[1].units[0].models[0].x", "500")


def test_zone_point_far_off_the_table(tmp_path):
    def f(d):
        d["deployment_zones"][0]["polygon"][2] = [72, 1e9]

    p = _write(tmp_path, _mutated(f))
    _assert_input_error(p, "deployment_zones[0].polygon[2]", "1000000000")


def test_terrain_point_not_a_number(tmp_path):
    def f(d):
        d["terrain"][0]["footprint"][1] = [float("nan"), 20]

    p = _write(tmp_path, _mutated(f))
    assert ".nan" in p.read_text()
    _assert_input_error(p, "terrain[0].footprint", "finite", "nan")


def test_scout_from_facing_not_a_number(tmp_path):
    def f(d):
        d["armies"][1]["units"][0]["setup"] = {"method": "scout", "from": [[36, 41, 1e400]]}

    p = _write(tmp_path, _mutated(f))
    _assert_input_error(p, "armies[1].units[0].setup", "from[0]", "inf")


def test_model_with_only_x(tmp_path):
    def f(d):
        del d["armies"][1]["units"][0]["models"][0]["y"]

    p = _write(tmp_path, _mutated(f))
    _assert_input_error(p, "armies[1].units[0].models[0]", "both x and y")


def test_unknown_ruleset(tmp_path):
    p = _write(tmp_path, _mutated(lambda d: d.update(ruleset="warhammer-99")))
    _assert_input_error(p, "field ruleset", "'warhammer-99'")


def test_unknown_special_rule(tmp_path):
    def f(d):
        d["armies"][0]["units"][0]["rules"] = ["Infiltrate", "Teleport Homer"]

    p = _write(tmp_path, _mutated(f))
    _assert_input_error(p, "armies[0].units[0].rules", "Teleport Homer")


def test_rich_markup_in_a_value_is_shown_verbatim(tmp_path):
    p = _write(tmp_path, _mutated(lambda d: d.update(ruleset="[bold]hh9[/bold]")))
    _assert_input_error(p, "field ruleset", "'[bold]hh9[/bold]'")


def test_empty_file(tmp_path):
    p = _write(tmp_path, "")
    _assert_input_error(p, "empty")


def test_comment_only_file(tmp_path):
    p = _write(tmp_path, "# nothing here\n")
    _assert_input_error(p, "empty")


def test_top_level_list(tmp_path):
    p = _write(tmp_path, "- ruleset: hh2\n")
    _assert_input_error(p, "mapping", "list")


def test_json_file_with_a_bad_field(tmp_path):
    def f(d):
        d["armies"][0]["units"][0]["models"][0]["x"] = "left"

    p = tmp_path / "scenario.json"
    p.write_text(json.dumps(_mutated(f), indent=2), encoding="utf-8")
    _assert_input_error(p, "armies[0].units[0].models[0].x", "'left'")


def test_valid_json_file_is_read(tmp_path):
    p = tmp_path / "scenario.json"
    p.write_text(json.dumps(VALID), encoding="utf-8")
    res = _run(p)
    assert res.returncode in (0, 1), res.stderr


def test_malformed_json(tmp_path):
    p = tmp_path / "scenario.json"
    p.write_text('{"ruleset": "hh2", "armies": [}', encoding="utf-8")
    _assert_input_error(p, "malformed JSON", "line 1")


def test_not_utf8(tmp_path):
    p = tmp_path / "scenario.yaml"
    p.write_bytes(b"ruleset: hh2\nname: \xff\xfe\n")
    _assert_input_error(p, "UTF-8")


def test_missing_file(tmp_path):
    p = tmp_path / "no-such-scenario.yaml"
    _assert_input_error(p, "no such file")
    assert not p.exists()


def test_directory(tmp_path):
    d = tmp_path / "scenarios.yaml"
    d.mkdir()
    _assert_input_error(d, "folder")


def test_duplicate_yaml_key_is_an_input_error(tmp_path):
    path = tmp_path / "dup.yaml"
    path.write_text("ruleset: hh2\nruleset: hh2\narmies: []\n")
    r = subprocess.run([sys.executable, "-m", "planner", "check", str(path)], capture_output=True, text=True)
    assert r.returncode == 2
    assert "duplicate key 'ruleset'" in r.stderr and "line 2" in r.stderr
    assert "Traceback" not in r.stderr + r.stdout


@pytest.mark.parametrize(("text", "value"), [("1e2", 100.0), ("7.2e+1", 72.0), ("-2.5E-1", -0.25), ("36", 36)])
def test_yaml_12_numbers_in_exponent_form_are_numbers(tmp_path, text, value):
    """``width: 1e2`` is the number 100 (YAML 1.2), not the text '1e2' PyYAML reads by default."""
    from planner.io.files import read_data

    p = tmp_path / "n.yaml"
    p.write_text(f"a: {text}\nb: '1e2'\n", encoding="utf-8")
    data = read_data(p)
    assert data["a"] == value and type(data["a"]) is type(value)
    assert data["b"] == "1e2"  # quoted stays text


@pytest.mark.parametrize(("where", "limit"), [("models", 1000), ("units", 1000), ("terrain", 500)])
def test_a_list_over_its_limit_gives_the_count_as_the_value_and_the_limit(tmp_path, where, limit):
    def f(d):
        if where == "models":
            d["armies"][1]["units"][0]["models"] = [{"base": {"diameter_mm": 32}, "x": 36, "y": 40}] * (limit + 1)
        elif where == "units":
            d["armies"][1]["units"] = [{"id": f"u{i}", "type": "Infantry", "models": [{"base": {"diameter_mm": 25}}]}
                                       for i in range(limit + 1)]
        else:
            d["terrain"] = [{"id": f"t{i}", "footprint": [[0, 0], [1, 0], [1, 1]]} for i in range(limit + 1)]

    p = _write(tmp_path, _mutated(f))
    field = {"models": "armies[1].units[0].models", "units": "armies[1].units", "terrain": "terrain"}[where]
    _assert_input_error(p, f"field {field}: too many items: at most {limit} are allowed (value: {limit + 1})")
