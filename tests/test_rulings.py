"""Rulings (issue #19 item 4): the readings of points the sources leave open, declared once per
ruleset, chosen in a scenario's ``rulings:`` or by ``--ruling KEY=VALUE``, stated in every report."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from planner.cli import app
from planner.errors import ScenarioError
from planner.legality.checker import check_deployment
from planner.rules.registry import all_rulesets, find_ruleset
from planner.schema import Scenario
from planner.world import load_scenario, resolve

DATA = Path(__file__).resolve().parent / "data" / "rulings"
IC = DATA / "ic-joins-infiltrate-unit.yaml"
NIGHT = DATA / "night-fighting.yaml"


def run(*args: object):
    return CliRunner().invoke(app, [str(a) for a in args])


def _rules(report, unit: str, rule: str):
    return [f for u in report.units if u.unit == unit for f in u.findings if f.rule == rule]


def _world(path: Path, **rulings: str):
    data = yaml.safe_load(path.read_text())
    data["rulings"] = {k.replace("_", "-"): v for k, v in rulings.items()}
    return resolve(Scenario.model_validate(data), str(path), require_positions=True)


# --------------------------------------------------------------------------- declarations


def test_every_ruling_is_declared_once_with_its_default_among_its_readings():
    for rs in all_rulesets():
        keys = [r.key for r in rs.RULINGS]
        assert len(keys) == len(set(keys)), rs.id
        for r in rs.RULINGS:
            assert r.default in r.values and len(r.values) >= 2 and r.sources and r.question
    hh2 = find_ruleset("hh2")
    for key in ("ic-infiltrate", "night-fighting-deployment", "ds-ring-spacing", "dsa-igs-correction",
                "dsa-igs-off-battlefield", "dsa-igs-reroll", "dsa-first-model-shape"):
        hh2.ruling_info(key)
    # the ring spacing is one declaration shared by the rulesets whose Deep Strike places rings
    assert find_ruleset("wh40k7").ruling_info("ds-ring-spacing") is hh2.ruling_info("ds-ring-spacing")
    assert find_ruleset("wh40k5").ruling_info("ds-ring-spacing") is hh2.ruling_info("ds-ring-spacing")


# --------------------------------------------------------------------------- Independent Character reading


def test_ic_reading_has_refuses_a_character_without_infiltrate_in_a_unit_with_it():
    report = check_deployment(_world(IC))
    (f,) = _rules(report, "praetor", "hh2.ic.infiltrate")
    assert not f.passed and "a unit of Infiltrators" in f.message
    assert "ic-infiltrate=has" in (f.evidence.note or "")
    assert [(r.key, r.value, r.default) for r in report.rulings] == [("ic-infiltrate", "has", True)]
    assert not report.legal


def test_ic_reading_uses_accepts_it_when_the_unit_deploys_normally():
    report = check_deployment(_world(IC, ic_infiltrate="uses"))
    (f,) = _rules(report, "praetor", "hh2.ic.infiltrate")
    assert f.passed and "does not set up by Infiltrate" in f.message
    assert [(r.key, r.value, r.default) for r in report.rulings] == [("ic-infiltrate", "uses", False)]
    assert report.legal


def test_ic_reading_uses_still_refuses_a_character_without_infiltrate_in_a_unit_that_infiltrates():
    data = yaml.safe_load(IC.read_text())
    for u in data["armies"][0]["units"]:
        u["setup"] = {"method": "infiltrate", **({"joined": "recon"} if u["id"] == "praetor" else {})}
        for m in u["models"]:
            m["y"] = 24.0  # more than 12" from the enemy: plain sight allowed
    data["rulings"] = {"ic-infiltrate": "uses"}
    report = check_deployment(resolve(Scenario.model_validate(data), "x.yaml", require_positions=True))
    (f,) = _rules(report, "praetor", "hh2.ic.infiltrate")
    assert not f.passed and "a unit setting up by Infiltrate" in f.message
    data["armies"][0]["units"][1]["rules"].append("Infiltrate")
    report = check_deployment(resolve(Scenario.model_validate(data), "x.yaml", require_positions=True))
    assert _rules(report, "praetor", "hh2.ic.infiltrate")[0].passed and report.legal


def test_ic_reading_with_an_infiltrate_character_in_a_unit_without_it():
    data = yaml.safe_load(IC.read_text())
    data["armies"][0]["units"][0]["rules"] = []
    data["armies"][0]["units"][1]["rules"] = ["Independent Character", "Infiltrate"]
    has = check_deployment(resolve(Scenario.model_validate(data), "x.yaml", require_positions=True))
    assert not _rules(has, "praetor", "hh2.ic.infiltrate")[0].passed  # "and vice versa"
    data["rulings"] = {"ic-infiltrate": "uses"}
    uses = check_deployment(resolve(Scenario.model_validate(data), "x.yaml", require_positions=True))
    assert _rules(uses, "praetor", "hh2.ic.infiltrate")[0].passed and uses.legal


def test_check_cli_text_names_the_reading_applied_and_the_option_changes_the_verdict():
    r = run("check", IC)
    assert r.exit_code == 1, r.output
    assert "Rulings applied:" in r.output and "ic-infiltrate=has (default)" in r.output
    r = run("check", IC, "--ruling", "ic-infiltrate=uses")
    assert r.exit_code == 0, r.output
    assert "ic-infiltrate=uses (chosen)" in r.output


def test_every_format_states_the_rulings():
    from planner.report.html import check_html
    from planner.report.markdown import check_markdown

    report = check_deployment(_world(IC, ic_infiltrate="uses"))
    for text in (check_markdown(report), check_html(report)):
        assert "Rulings applied" in text and "ic-infiltrate" in text and "uses (chosen)" in text


def test_check_json_lists_the_rulings(tmp_path):
    out = tmp_path / "r.json"
    r = run("check", IC, "--json", out)
    assert r.exit_code == 1, r.output
    data = json.loads(out.read_text())
    assert data["rulings"][0]["key"] == "ic-infiltrate" and data["rulings"][0]["value"] == "has"
    assert data["rulings"][0]["default"] is True and "p.242" in data["rulings"][0]["sources"]


def test_scenario_rulings_section_is_read_and_the_option_beats_it(tmp_path):
    data = yaml.safe_load(IC.read_text())
    data["rulings"] = {"ic-infiltrate": "uses"}
    f = tmp_path / "s.yaml"
    f.write_text(yaml.safe_dump(data))
    r = run("check", f)
    assert r.exit_code == 0 and "ic-infiltrate=uses (chosen)" in r.output
    r = run("check", f, "--ruling", "ic-infiltrate=has")
    assert r.exit_code == 1 and "ic-infiltrate=has (chosen)" in r.output


@pytest.mark.parametrize("args, names", [
    (("--ruling", "ic-infiltrate=maybe"), ("--ruling.ic-infiltrate", "maybe", "has, uses")),
    (("--ruling", "no-such-thing=x"), ("--ruling.no-such-thing", "no-such-thing", "ic-infiltrate")),
    (("--ruling", "ic-infiltrate"), ("--ruling", "KEY=VALUE")),
])
def test_unknown_ruling_or_reading_is_exit_2_naming_it(args, names):
    r = run("check", IC, *args)
    assert r.exit_code == 2, r.output
    assert "Traceback" not in r.output
    for n in names:
        assert n in r.output


def test_unknown_ruling_in_the_file_names_the_file_and_the_field(tmp_path):
    data = yaml.safe_load(IC.read_text())
    data["rulings"] = {"ic-infiltrate": "sometimes"}
    f = tmp_path / "bad.yaml"
    f.write_text(yaml.safe_dump(data))
    with pytest.raises(ScenarioError) as exc:
        load_scenario(f, require_positions=True)
    assert exc.value.file == str(f) and exc.value.location == "rulings.ic-infiltrate"
    assert exc.value.value == "sometimes"
    r = run("check", f)
    assert r.exit_code == 2 and "bad.yaml" in r.output and "sometimes" in r.output


def test_a_ruleset_without_rulings_refuses_any():
    with pytest.raises(ScenarioError, match="unknown ruling for wh40k10"):
        find_ruleset("wh40k10").check_rulings({"ic-infiltrate": "has"})


def test_rules_lists_the_rulings():
    r = run("rules", "--ruleset", "hh2", "--rulings", "--json", "-")
    assert r.exit_code == 0, r.output
    rows = json.loads(r.output[r.output.index("[\n"):r.output.rindex("]") + 1])
    by = {x["ruling"]: x for x in rows}
    assert by["ic-infiltrate"]["default"] == "has"
    assert [x["value"] for x in by["ic-infiltrate"]["readings"]] == ["has", "uses"]
    assert "p.241" in by["ic-infiltrate"]["sources"]
    assert by["night-fighting-deployment"]["default"] == "ignored"
    assert by["ds-ring-spacing"]["default"] == "circumscribed"


# --------------------------------------------------------------------------- the planner's judge reads it


def _plan_data() -> dict:
    data = yaml.safe_load(IC.read_text())
    for u in data["armies"][0]["units"]:
        u["place"] = True
        for m in u["models"]:
            m.pop("x")
            m.pop("y")
    data["goals"] = [{"kind": "near_point", "x": 36, "y": 6}]
    return data


@pytest.mark.parametrize("reading, code", [("has", 1), ("uses", 0)])
def test_plan_follows_the_ic_reading(tmp_path, reading, code):
    f = tmp_path / "plan.yaml"
    f.write_text(yaml.safe_dump(_plan_data()))
    out = tmp_path / "out.yaml"
    r = run("plan", f, "--ruling", f"ic-infiltrate={reading}", "--time-limit", "5", "--out", out)
    assert r.exit_code == code, r.output
    assert f"ic-infiltrate={reading}" in r.output or code == 1
    if code == 0:  # the written plan keeps the ruling, so that checking it gives the same verdict
        assert yaml.safe_load(out.read_text())["rulings"] == {"ic-infiltrate": "uses"}
        assert run("check", out).exit_code == 0


# --------------------------------------------------------------------------- Night Fighting


def test_night_fighting_reading_ignored_by_default_far_unit_sees():
    report = check_deployment(_world(NIGHT))
    (f,) = _rules(report, "inf", "hh2.infiltrate.hidden")
    assert not f.passed and f.evidence.seen_by == "far/1"
    assert [(r.key, r.value) for r in report.rulings] == [("night-fighting-deployment", "ignored")]


def test_night_fighting_reading_24in_no_sight_beyond_24():
    report = check_deployment(_world(NIGHT, night_fighting_deployment="24in"))
    (f,) = _rules(report, "inf", "hh2.infiltrate.hidden")
    assert f.passed and "more than 24\" away" in f.message and report.legal


def test_night_fighting_boundary_exactly_24_sees_just_past_does_not():
    data = yaml.safe_load(NIGHT.read_text())
    data["rulings"] = {"night-fighting-deployment": "24in"}
    world = resolve(Scenario.model_validate(data), "n.yaml", require_positions=True)
    base = world.units["inf"].models[0].base
    radius = 2 * base.diameter_mm / 25.4 / 2  # two equal round bases, centre to centre = gap + 2 radii
    # put 'far' so that the closest-point distance is 24" exactly, then 24.01", along +x from 'inf'
    for gap, seen in ((24.0, True), (24.01, False)):
        d = copy.deepcopy(data)
        d["armies"][1]["units"][1]["models"][0].update({"x": 36 + gap + radius, "y": 24})
        d["deployment_zones"][1]["polygon"] = [[0, 20], [72, 20], [72, 48], [0, 48]]
        d["armies"][1]["units"][0]["models"][0].update({"x": 36, "y": 37})
        rep = check_deployment(resolve(Scenario.model_validate(d), "n.yaml", require_positions=True))
        (f,) = _rules(rep, "inf", "hh2.infiltrate.hidden")
        assert f.passed is (not seen), (gap, f.message)


def test_threats_follows_the_night_fighting_reading(tmp_path):
    out = {}
    for reading in ("ignored", "24in"):
        j = tmp_path / f"{reading}.json"
        r = run("threats", NIGHT, "--enemy-unit", "inf", "--grid", "3", "--json", j,
                "--ruling", f"night-fighting-deployment={reading}")
        assert r.exit_code in (0, 1), r.output
        out[reading] = json.loads(j.read_text())
    # far enemy units no longer see the Infiltrator: more of the table is legal, never less
    assert out["24in"]["legal_anchors"] > out["ignored"]["legal_anchors"]
    assert out["24in"]["legality"]["rulings"][0]["value"] == "24in"


def test_generate_writes_the_rulings_into_every_scenario_and_labels_by_them(tmp_path):
    out = tmp_path / "g"
    r = run("generate", "--count", "3", "--out", out, "--ruling", "ic-infiltrate=uses")
    assert r.exit_code == 0, r.output
    lines = [json.loads(x) for x in (out / "scenarios.jsonl").read_text().splitlines()]
    assert len(lines) == 3
    for line in lines:
        assert line["rulings"] == {"ic-infiltrate": "uses"}
        label = line.pop("label")
        rep = check_deployment(resolve(Scenario.model_validate(line), require_positions=True))
        assert rep.legal is label["legal"]
    r = run("generate", "--count", "1", "--out", tmp_path / "h", "--ruling", "ic-infiltrate=sometimes")
    assert r.exit_code == 2 and "--ruling.ic-infiltrate" in r.output
