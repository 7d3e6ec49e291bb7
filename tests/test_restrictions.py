"""Restrictions as data (issue #19 item 5): "no enemy set-up or arrival within X" of this unit",
by set-up method, with its source; one predicate (planner.legality.checks.restriction) for the
checkers, the planner's judges and threats; a restriction beats a permission."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from planner.cli import app
from planner.legality.checker import check_deployment
from planner.schema import Scenario
from planner.world import resolve

SCEN = Path(__file__).resolve().parent / "data" / "rulings" / "restriction.yaml"
BASE_IN = 32 / 25.4  # legion-tactical-marine: 32 mm round base


def _data() -> dict:
    return yaml.safe_load(SCEN.read_text())


def _check(data: dict):
    return check_deployment(resolve(Scenario.model_validate(data), "r.yaml", require_positions=True))


def _findings(report, unit: str, rule: str = "hh2.restriction.within"):
    return [f for u in report.units if u.unit == unit for f in u.findings if f.rule == rule]


def _at_gap(data: dict, gap: float) -> dict:
    d = copy.deepcopy(data)
    d["armies"][0]["units"][0]["models"][0]["y"] = 40 - BASE_IN - gap  # warden at y = 40
    return d


@pytest.mark.parametrize("gap, legal", [(14.0, False), (14.01, True)])
def test_infiltrate_restriction_at_exactly_x_and_just_past(gap, legal):
    report = _check(_at_gap(_data(), gap))
    (f,) = _findings(report, "inf")
    assert f.passed is legal
    assert f.measured == pytest.approx(gap, abs=1e-9)
    assert f.margin == pytest.approx(gap - 14.0, abs=1e-9)
    assert "Auspex Ward" in f.message and "test ability p.1" in f.message
    # the restriction beats the unit's permission to Infiltrate closer: the finding names both
    assert "Test Infiltrate closer" in f.message and "test permission" in f.message
    assert report.legal is legal
    if not legal:
        assert "hh2.restriction.within" in {v.rule for v in report.violations}


def test_a_restriction_applies_only_to_its_methods():
    data = _at_gap(_data(), 13.0)
    data["armies"][1]["units"][0]["restrictions"][0]["methods"] = ["deep_strike"]
    report = _check(data)
    assert _findings(report, "inf") == [] and report.legal


def test_a_model_restriction_measures_from_that_model():
    data = _at_gap(_data(), 13.0)
    warden = data["armies"][1]["units"][0]
    warden["restrictions"] = []
    warden["models"].append({"profile": "legion-tactical-marine", "x": 37.5, "y": 40,
                             "restrictions": [{"within_in": 13.5, "methods": ["infiltrate"], "source": "m"}]})
    (f,) = _findings(_check(data), "inf")
    assert not f.passed and f.evidence.nearest_enemy_model == "2"


def test_bad_restriction_is_an_input_error():
    data = _data()
    data["armies"][1]["units"][0]["restrictions"][0]["methods"] = ["teleport"]
    with pytest.raises(ValueError) as exc:
        Scenario.model_validate(data)
    assert "teleport" in str(exc.value)


def test_restriction_in_a_file_bad_value_exit_2(tmp_path):
    data = _data()
    data["armies"][1]["units"][0]["restrictions"][0]["within_in"] = -3
    f = tmp_path / "bad.yaml"
    f.write_text(yaml.safe_dump(data))
    r = CliRunner().invoke(app, ["check", str(f)])
    assert r.exit_code == 2 and "within_in" in r.output and "Traceback" not in r.output


def test_40k_restriction_on_deep_strike_arrival():
    data = {
        "ruleset": "wh40k10", "battlefield": {"width": 60, "depth": 44},
        "deployment_zones": [{"id": "a", "player": "red", "polygon": [[0, 0], [60, 0], [60, 12], [0, 12]]},
                             {"id": "b", "player": "blue", "polygon": [[0, 32], [60, 32], [60, 44], [0, 44]]}],
        "armies": [
            {"player": "red", "units": [{"id": "ward", "keywords": ["INFANTRY"], "restrictions": [
                {"within_in": 12, "methods": ["deep_strike"], "source": "datasheet"}],
                "models": [{"base": {"diameter_mm": 32}, "x": 30, "y": 6}]}]},
            {"player": "blue", "units": [{"id": "ds", "keywords": ["INFANTRY"], "abilities": ["Deep Strike"],
                                          "setup": {"method": "reserves", "arrival": "deep_strike",
                                                    "battle_round": 2},
                                          "models": [{"base": {"diameter_mm": 32}, "x": 30, "y": 0}]}]}],
    }
    out = {}
    for gap in (12.0, 12.01):
        d = copy.deepcopy(data)
        d["armies"][1]["units"][0]["models"][0]["y"] = 6 + BASE_IN + gap
        rep = check_deployment(resolve(Scenario.model_validate(d), "w.yaml", require_positions=True))
        (f,) = _findings(rep, "ds", "wh40k10.restriction.within")
        out[gap] = f.passed
    assert out == {12.0: False, 12.01: True}


def test_planner_keeps_clear_of_the_restriction(tmp_path):
    data = _data()
    inf = data["armies"][0]["units"][0]
    inf["place"] = True
    inf["models"][0].pop("x")
    inf["models"][0].pop("y")
    data["goals"] = [{"kind": "near_point", "x": 36, "y": 36}]
    f = tmp_path / "p.yaml"
    f.write_text(yaml.safe_dump(data))
    out = tmp_path / "o.yaml"
    r = CliRunner().invoke(app, ["plan", str(f), "--time-limit", "5", "--out", str(out)])
    assert r.exit_code == 0, r.output
    report = _check(yaml.safe_load(out.read_text()))
    (fd,) = _findings(report, "inf")
    assert fd.passed and 14.0 < fd.measured < 16.0  # as near the point as the restriction allows
    data["armies"][1]["units"][0]["restrictions"] = []
    f.write_text(yaml.safe_dump(data))
    r = CliRunner().invoke(app, ["plan", str(f), "--time-limit", "5", "--out", str(out)])
    assert r.exit_code == 0, r.output
    free = _check(yaml.safe_load(out.read_text()))
    near = [x for u in free.units if u.unit == "inf" for x in u.findings if x.rule == "hh2.infiltrate.distance"]
    assert near[0].measured < 14.0  # without it the plan comes closer


def test_threats_honour_the_restriction(tmp_path):
    j = tmp_path / "t.json"
    r = CliRunner().invoke(app, ["threats", str(SCEN), "--enemy-unit", "inf", "--grid", "3", "--json", str(j)])
    assert r.exit_code == 0, r.output
    best = json.loads(j.read_text())["best"]
    assert best["value"] > 14.0
    data = _data()
    data["armies"][1]["units"][0]["restrictions"] = []
    f = tmp_path / "free.yaml"
    f.write_text(yaml.safe_dump(data))
    r = CliRunner().invoke(app, ["threats", str(f), "--enemy-unit", "inf", "--grid", "3", "--json", str(j)])
    assert r.exit_code == 0, r.output
    assert json.loads(j.read_text())["best"]["value"] < 14.0
