"""planner shoot: the exact distribution on a bundled scenario with profiles added, and its errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from planner.cli.commands import app

SCENARIO = Path(__file__).parent.parent / "scenarios" / "long-edge-ravenguard-vs-ironhands.yaml"
MARINE = {"m": 7, "ws": 4, "bs": 4, "s": 4, "t": 4, "w": 1, "i": 4, "a": 1, "ld": 8, "sv": 3}


def _scenario(tmp_path: Path, **target_stats: int) -> Path:
    data = yaml.safe_load(SCENARIO.read_text(encoding="utf-8"))
    units = {u["id"]: u for a in data["armies"] for u in a["units"]}
    units["rg-tactical"]["stats"] = MARINE
    units["rg-tactical"]["weapons"] = [{"name": "Boltgun", "range_in": 24, "s": 4, "ap": 5, "type": "Rapid Fire",
                                        "shots": 1}]
    units["ih-breacher"]["stats"] = {**MARINE, **target_stats}
    units["ih-breacher"]["other_rules"] = [*units["ih-breacher"].get("other_rules", []), "Shrouded (5+)"]
    units["ih-praetor"]["stats"] = {**MARINE, **target_stats}  # joined to ih-breacher: shot with it
    out = tmp_path / "s.yaml"
    out.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return out


def test_shoot_json_has_the_exact_distribution(tmp_path: Path) -> None:
    path = _scenario(tmp_path)
    r = CliRunner().invoke(app, ["shoot", str(path), "--attacker", "rg-tactical", "--target", "ih-breacher",
                                 "--half-range", "--json", "-"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.output[r.output.index("{"):])
    n = 10 * 2  # ten marines, Rapid Fire within half range
    p = 2 / 3 * 1 / 2 * 1 / 3 * 4 / 6  # hit, wound, fail 3+, fail Shrouded 5+
    targets = 11  # ten Breachers and the Praetor joined to them, one unit
    assert data["weapon"] == "Boltgun" and data["attacks"] == n
    assert data["models_lost"]["pmf"][0] == pytest.approx((1 - p) ** n)
    assert data["models_lost"]["mean"] == pytest.approx(n * p, rel=1e-3)
    assert len(data["models_lost"]["pmf"]) == targets + 1
    assert any("Shrouded" in s for s in data["interpretations"])
    assert any("ih-praetor joined to it" in s for s in data["interpretations"])
    # aiming at the joined character shoots the same unit
    r = CliRunner().invoke(app, ["shoot", str(path), "--attacker", "rg-tactical", "--target", "ih-praetor",
                                 "--half-range", "--json", "-"])
    assert json.loads(r.output[r.output.index("{"):])["models_lost"] == data["models_lost"]
    # a unit of the attacker's own side is not a target
    own = CliRunner().invoke(app, ["shoot", str(path), "--attacker", "rg-tactical", "--target", "rg-tactical"])
    assert own.exit_code == 2 and "own player" in own.output


def test_shoot_errors_name_the_field(tmp_path: Path) -> None:
    path = _scenario(tmp_path)
    r = CliRunner().invoke(app, ["shoot", str(path), "--attacker", "rg-tactical", "--target", "nobody"])
    assert r.exit_code == 2 and "--target" in r.output and "nobody" in r.output
    r = CliRunner().invoke(app, ["shoot", str(path), "--attacker", "rg-tactical", "--target", "ih-breacher",
                                 "--weapon", "Lascannon"])
    assert r.exit_code == 2 and "no weapon named 'Lascannon'" in r.output
    r = CliRunner().invoke(app, ["shoot", str(path), "--attacker", "ih-breacher", "--target", "rg-tactical"])
    assert r.exit_code == 2 and "no weapon with a range" in r.output


def _vehicle_scenario(tmp_path: Path, rhino_facing: float) -> Path:
    data = yaml.safe_load(SCENARIO.read_text(encoding="utf-8"))
    units = {u["id"]: u for a in data["armies"] for u in a["units"]}
    units["rg-tactical"]["stats"] = MARINE
    units["rg-tactical"]["weapons"] = [{"name": "Lascannon", "range_in": 48, "s": 9, "ap": 2, "type": "Heavy",
                                        "shots": 1}]
    rhino = units["ih-tactical-rhino"]
    rhino["stats"] = {"m": 12, "bs": 4, "av_front": 11, "av_side": 11, "av_rear": 10, "hp": 3}
    rhino["models"][0]["facing"] = rhino_facing
    out = tmp_path / "v.yaml"
    out.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return out


def test_shoot_a_vehicle_on_the_facing_of_the_placed_models(tmp_path: Path) -> None:
    # the rhino's rear (AV 10) points at the Raven Guard tacticals: D6 + 9 vs 10 glances on a 1
    path = _vehicle_scenario(tmp_path, 145.0)
    r = CliRunner().invoke(app, ["shoot", str(path), "--attacker", "rg-tactical", "--target", "ih-tactical-rhino",
                                 "--ruling", "vehicle-glancing-hits=hull-point", "--json", "-"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.output[r.output.index("{"):])
    assert (data["facing"], data["armour"]) == ("rear", 10)
    assert (data["p_glance"], data["p_pen"]) == pytest.approx((1 / 6, 5 / 6))
    assert data["hull_points_lost"]["pmf"][0] == pytest.approx((1 - 4 / 6) ** 10)
    assert any("from the placed models" in n for n in data["interpretations"])
    assert [(x["key"], x["value"]) for x in data["rulings"]] == [("vehicle-glancing-hits", "hull-point")]
    side = CliRunner().invoke(app, ["shoot", str(path), "--attacker", "rg-tactical", "--target",
                                    "ih-tactical-rhino", "--facing", "side", "--ruling",
                                    "vehicle-glancing-hits=hull-point", "--json", "-"])
    data = json.loads(side.output[side.output.index("{"):])
    assert (data["facing"], data["p_glance"], data["p_pen"]) == ("side", pytest.approx(1 / 6), pytest.approx(4 / 6))
    assert data["hull_points_lost"]["pmf"][0] == pytest.approx((1 - 4 / 6 * 5 / 6) ** 10)
    default = CliRunner().invoke(app, ["shoot", str(path), "--attacker", "rg-tactical", "--target",
                                       "ih-tactical-rhino", "--facing", "side", "--json", "-"])
    data = json.loads(default.output[default.output.index("{"):])  # glances remove nothing: 4+ penetrates
    assert data["hull_points_lost"]["pmf"][0] == pytest.approx((1 - 4 / 6 * 4 / 6) ** 10)
    assert [(x["key"], x["value"], x["default"]) for x in data["rulings"]] == [
        ("vehicle-glancing-hits", "no-hull-point", True)]
    assert "Rulings applied" in default.output


def test_shoot_facing_errors(tmp_path: Path) -> None:
    path = _vehicle_scenario(tmp_path, 0.0)
    r = CliRunner().invoke(app, ["shoot", str(path), "--attacker", "rg-tactical", "--target", "ih-tactical-rhino",
                                 "--facing", "top"])
    assert r.exit_code == 2 and "--facing" in r.output and "top" in r.output
    r = CliRunner().invoke(app, ["shoot", str(_scenario(tmp_path)), "--attacker", "rg-tactical", "--target",
                                 "ih-breacher", "--facing", "side"])
    assert r.exit_code == 2 and "no Armour Values" in r.output
