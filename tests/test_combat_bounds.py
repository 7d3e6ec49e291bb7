"""Volleys too large for the exact maths and profile values out of range are input errors (exit 2
naming the field), never a hang or an internal error (the fresh user's findings, session 5)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from planner.cli.commands import app
from planner.combat.dice import MAX_DICE_VALUE, parse_dice
from planner.combat.wh40k import Weapon40k, _kw
from planner.schema import Characteristics, WeaponProfile

ROOT = Path(__file__).resolve().parents[1]


def test_dice_values_are_bounded():
    assert len(parse_dice(MAX_DICE_VALUE)) == MAX_DICE_VALUE + 1
    for bad in (MAX_DICE_VALUE + 1, 1_000_000, "10D6+50"):
        with pytest.raises(ValueError, match="more than 100"):
            parse_dice(bad)


def test_profile_values_out_of_range_are_refused():
    with pytest.raises(ValueError, match="bs"):
        Characteristics.model_validate({"bs": 0})
    with pytest.raises(ValueError, match="bs"):
        Characteristics.model_validate({"bs": 11})
    assert Characteristics.model_validate({"bs": 10}).bs == 10
    for kw in ("Sustained Hits 1000", "Anti-Infantry 9+", "[Anti-Infantry 1+, Lethal Hits]"):
        with pytest.raises(ValueError, match="weapon keyword"):
            WeaponProfile.model_validate({"name": "w", "keywords": [kw]})
    with pytest.raises(ValueError, match="more than 100"):
        WeaponProfile.model_validate({"name": "w", "a": 100000})


def test_a_bracketed_list_of_keywords_counts_each():
    w = Weapon40k("w", 2, 3, 4, 0, 1, 24.0, ("[Anti-Infantry 4+, Devastating Wounds]",))
    assert _kw(w) == {"anti infantry": 4, "devastating wounds": 1}


def _scenario(tmp_path: Path, shots: int) -> Path:
    data = yaml.safe_load((ROOT / "scenarios" / "long-edge-ravenguard-vs-ironhands.yaml").read_text("utf-8"))
    units = {u["id"]: u for a in data["armies"] for u in a["units"]}
    units["rg-tactical"]["stats"] = {"m": 7, "ws": 4, "bs": 4, "s": 4, "t": 4, "w": 1, "i": 4, "a": 1, "ld": 8,
                                     "sv": 3}
    units["rg-tactical"]["weapons"] = [{"name": "Gun", "range_in": 48, "s": 4, "ap": 5, "type": "Assault",
                                        "shots": shots}]
    units["ih-breacher"]["stats"] = units["rg-tactical"]["stats"]
    out = tmp_path / f"s{shots}.yaml"
    out.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return out


def test_a_volley_too_large_is_exit_2_naming_the_weapon(tmp_path):
    ok = CliRunner().invoke(app, ["shoot", str(_scenario(tmp_path, 2)), "--attacker", "rg-tactical", "--target",
                                  "ih-breacher", "--json", "-"])
    assert ok.exit_code == 0, ok.output
    big = _scenario(tmp_path, 100)  # 10 models x 100 shots: more than the 600 the maths takes
    out = tmp_path / "err.json"
    r = CliRunner().invoke(app, ["shoot", str(big), "--attacker", "rg-tactical", "--target", "ih-breacher",
                                 "--json", str(out)])
    assert r.exit_code == 2, r.output
    err = json.loads(out.read_text("utf-8"))
    assert "at most 600" in err["error"] and err["location"] == "units[rg-tactical].weapons[Gun]"
    huge = CliRunner().invoke(app, ["shoot", str(_scenario(tmp_path, 2000)), "--attacker", "rg-tactical",
                                    "--target", "ih-breacher"])
    assert huge.exit_code == 2 and "more than 100" in huge.output
