"""Wargear counts from a BattleScribe roster (fresh16 finding 3): a selection's ``number`` becomes the
weapon's ``count`` on the unit ("Meltagun" 2 of 10 Breachers) or on a model (a Land Raider's two
sponson lascannons), and ``planner shoot`` / ``planner exposure`` fire that many."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from planner.combat import hh2
from planner.combat.profiles import _weapon, hh_attacker, hh_target
from planner.errors import ScenarioError
from planner.io.roster import read_roster, roster_to_army
from planner.schema import Model, Unit, WeaponProfile

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "data" / "rosters" / "wargear-counts.ros"
IRONHANDS = ROOT.parent / "shared" / "data" / "rosters" / "ironhands.rosz"
SCENARIO = ROOT / "scenarios" / "hh2-exposure-ravenguard-vs-ironhands.yaml"


def _units(path: Path) -> dict[str, Unit]:
    army, _ = roster_to_army(read_roster(path), "hh2", default_base_mm=32)
    return {u.id: u for u in army.units}


def _fired(unit: Unit, weapon: str) -> int:
    """How many of ``weapon`` the unit fires (the dice maths' count, without needing its BS)."""
    return _weapon(unit, weapon, None)[1]


def test_fixture_counts_on_units_and_models() -> None:
    units = _units(FIXTURE)
    breachers = units["breacher-siege-squad-legion"]
    melta = next(w for w in breachers.weapons if w.name == "Meltagun")
    assert melta.count == 2 and _fired(breachers, "Meltagun") == 2
    # "Standard Wargear: Bolters" number 1 is the squad's: the nine troopers, no count; the sergeant
    # keeps his own Bolter, so all ten fire one
    bolter = next(w for w in breachers.weapons if w.name == "Boltgun")
    assert bolter.count is None and _fired(breachers, "Boltgun") == 10
    phobos = units["land-raider-phobos"]
    (raider,) = phobos.models
    assert raider.weapons is not None
    carried = {w.name: w.count for w in raider.weapons}
    assert carried == {"Twin-Linked Lascannon": 2, "Twin-Linked Heavy Bolter": None}
    assert _fired(phobos, "Twin-Linked Lascannon") == 2 and _fired(phobos, "Twin-Linked Heavy Bolter") == 1
    support = units["support-squad-legion"]
    # four collapsed marines: "Bolt Pistols" 4 is one each, "Plasma Pistol" 2 on two of them
    assert [[(w.name, w.count) for w in m.weapons or []] for m in support.models] == \
        [[("Bolt Pistol", None), ("Plasma Pistol", None)]] * 2 + [[("Bolt Pistol", None)]] * 2
    assert _fired(support, "Bolt Pistol") == 4 and _fired(support, "Plasma Pistol") == 2
    veterans = units["veteran-squad-legion"]
    # squad wargear of number 4 for 2 veterans: two each, on the models
    assert not veterans.weapons
    assert [[(w.name, w.count) for w in m.weapons or []] for m in veterans.models] == \
        [[("Volkite Serpenta", 2)]] * 2
    assert _fired(veterans, "Volkite Serpenta") == 4


def test_two_meltaguns_shoot_two_attacks() -> None:
    units = _units(FIXTURE)
    a = hh_attacker(units["breacher-siege-squad-legion"], "Meltagun")
    r = hh2.shoot(a, hh_target(units["support-squad-legion"]))
    # BS4 hits 2/3, S8 v T4 wounds 2+ (5/6), AP1 leaves no 3+ save: 2 x 5/9
    assert a.models == 2 and r.expected_models_lost == pytest.approx(10 / 9)


def test_weapon_count_on_a_unit_and_on_a_model() -> None:
    gun = WeaponProfile(name="Lascannon", range_in=48, s=9, ap=2, type="Heavy", shots=1)
    base = {"base": {"diameter_mm": 32}}
    # the unit's count among the models without their own: a sergeant's own and 2 of the other 4
    unit = Unit(id="u", type="Infantry", weapons=[gun.model_copy(update={"count": 2})],
                models=[Model(**base, weapons=[gun]), *[Model(**base) for _ in range(4)]])
    assert _fired(unit, "Lascannon") == 3
    # more than the models without their own: all of them (4), the sergeant's besides
    unit = unit.model_copy(update={"weapons": [gun.model_copy(update={"count": 9})]})
    assert _fired(unit, "Lascannon") == 5
    # a model's count is how many it carries; 0 carries none
    one = Unit(id="v", type="Vehicle", models=[Model(**base, weapons=[gun.model_copy(update={"count": 3})])])
    assert _fired(one, "Lascannon") == 3
    none = Unit(id="w", type="Vehicle", models=[Model(**base, weapons=[gun.model_copy(update={"count": 0})])])
    assert _fired(none, "Lascannon") == 0
    with pytest.raises(ScenarioError, match="no weapon named 'Meltagun'"):
        _fired(one, "Meltagun")


@pytest.mark.skipif(not IRONHANDS.exists(), reason="../shared/data/rosters not present")
def test_real_ironhands_roster_counts() -> None:
    units = _units(IRONHANDS)
    breachers = units["breacher-siege-squad-legion"]
    assert [(w.name, w.count) for w in breachers.weapons if w.name in ("Meltagun", "Melta Bombs", "Boltgun")] == \
        [("Melta Bombs", None), ("Meltagun", 2), ("Boltgun", None)]
    assert _fired(breachers, "Meltagun") == 2 and _fired(breachers, "Boltgun") == 10
    (raider,) = units["land-raider-phobos"].models
    assert raider.weapons is not None
    assert [(w.name, w.count) for w in raider.weapons] == [("Twin-Linked Lascannon", 2),
                                                          ("Twin-Linked Heavy Bolter", None), ("Multi-Melta", None),
                                                          ("Hunter-killer Missile", None)]
    assert _fired(units["land-raider-phobos"], "Twin-Linked Lascannon") == 2
    # the sergeant's own Bolt Pistol no longer hides the squad's: all ten Assault Marines carry one
    assert _fired(units["assault-squad-legion"], "Bolt Pistol") == 10


def _shoot(*args: str) -> dict:
    r = subprocess.run([sys.executable, "-m", "planner", "shoot", str(SCENARIO), *args, "--json", "-"],
                       capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    return json.loads(r.stdout[r.stdout.index("{"):])


def test_cli_shoot_fires_the_rosters_counts() -> None:
    # the Breachers' first ranged weapon is the Meltagun: 2 attacks, not 10 (5.556 before)
    melta = _shoot("--attacker", "ih-breacher", "--target", "rg-tactical")
    assert (melta["weapon"], melta["attacks"]) == ("Meltagun", 2)
    assert melta["models_lost"]["mean"] == pytest.approx(10 / 9, abs=1e-9)  # printed 1.111
    # the Land Raider Phobos fires both sponson lascannons (0.556 with one)
    las = _shoot("--attacker", "ih-breacher-phobos", "--target", "rg-tactical", "--weapon", "Twin-Linked Lascannon")
    assert las["attacks"] == 2
    assert las["models_lost"]["mean"] == pytest.approx(10 / 9, abs=1e-9)


def test_cli_shoot_names_the_weapon_in_any_case() -> None:
    # fresh16b finding 8: --weapon meltagun was "no weapon named 'meltagun'" (exit 2)
    melta = _shoot("--attacker", "ih-breacher", "--target", "rg-tactical", "--weapon", "meltagun")
    assert (melta["weapon"], melta["attacks"]) == ("Meltagun", 2)
    r = subprocess.run([sys.executable, "-m", "planner", "shoot", str(SCENARIO), "--attacker", "ih-breacher",
                        "--target", "rg-tactical", "--weapon", "plasma cannon"], capture_output=True, text=True,
                       cwd=ROOT, timeout=120)
    assert r.returncode == 2 and "has no weapon named 'plasma cannon'" in " ".join(r.stderr.split())
