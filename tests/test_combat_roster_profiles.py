"""Characteristics and weapons read from a BattleScribe roster (issue 20 item 1)."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.combat import hh2
from planner.combat.profiles import hh_attacker, hh_target, model_stats, model_weapons
from planner.errors import ScenarioError
from planner.io.roster import read_roster, roster_to_army

ROSTER = """<?xml version="1.0" encoding="UTF-8"?>
<roster id="r" name="Profiles" battleScribeVersion="2.03" gameSystemId="28d4-bd2e-4858-ece6"
        gameSystemName="Horus Heresy" xmlns="http://www.battlescribe.net/schema/rosterSchema">
  <forces><force id="f1" name="Crusade" catalogueName="Legiones Astartes"><selections>
    <selection id="s1" name="Tactical Squad, Legion" number="1" type="unit">
      <categories><category id="c1" name="Infantry" primary="false"/></categories>
      <selections>
        <selection id="s1a" name="Tactical Space Marines, Legion" number="4" type="model">
          <profiles><profile id="p1" name="Legion Tactical Space Marine" typeName="Unit" hidden="false">
            <characteristics>
              <characteristic name="Unit Type">Infantry</characteristic>
              <characteristic name="M">7</characteristic><characteristic name="WS">4</characteristic>
              <characteristic name="BS">4</characteristic><characteristic name="S">4</characteristic>
              <characteristic name="T">4</characteristic><characteristic name="W">1</characteristic>
              <characteristic name="I">4</characteristic><characteristic name="A">1</characteristic>
              <characteristic name="Ld">7</characteristic><characteristic name="Sv">SVVALUE</characteristic>
            </characteristics></profile></profiles>
          <selections><selection id="s1a1" name="Bolter" number="4" type="upgrade">
            <profiles><profile id="pw" name="Bolter" typeName="Weapon" hidden="false"><characteristics>
              <characteristic name="Range">24"</characteristic><characteristic name="Str">4</characteristic>
              <characteristic name="AP">5</characteristic>
              <characteristic name="Type">Rapid Fire, Precision Shots (6+)</characteristic>
            </characteristics></profile></profiles></selection></selections>
        </selection>
      </selections>
    </selection>
  </selections></force></forces>
</roster>
"""


def _read(tmp_path: Path, sv: str = "3+") -> Path:
    p = tmp_path / "profiles.ros"
    p.write_text(ROSTER.replace("SVVALUE", sv), encoding="utf-8")
    return p


def test_roster_profiles_reach_the_dice_maths(tmp_path: Path) -> None:
    army, _ = roster_to_army(read_roster(_read(tmp_path)), "hh2", default_base_mm=32)
    unit = army.units[0]
    m = unit.models[0]
    # shared by every model: written once, on the unit
    assert m.stats is None and unit.stats is not None
    st = model_stats(unit, m)
    assert st is not None and (st.bs, st.t, st.w, st.sv, st.m) == (4, 4, 1, 3, 7)
    assert m.weapons is not None
    w = m.weapons[0]
    assert (w.name, w.range_in, w.s, w.ap, w.type, w.shots, w.keywords) == \
        ("Bolter", 24, 4, 5, "Rapid Fire", 1, ["Precision Shots (6+)"])
    a = hh_attacker(unit, "Bolter")
    assert a.models == 4 and a.weapon.precision == 6
    assert hh_attacker(unit, "Bolter", half_range=True).weapon.shots == 2
    r = hh2.shoot(a, hh_target(unit))
    assert r.expected_models_lost == pytest.approx(4 * 2 / 3 * 1 / 2 * 1 / 3, rel=1e-3)


def test_roster_bad_characteristic_is_named_and_left_out(tmp_path: Path) -> None:
    army, warnings = roster_to_army(read_roster(_read(tmp_path, "three")), "hh2", default_base_mm=32)
    hit = [w for w in warnings if "characteristic 'Sv' of profile 'Legion Tactical Space Marine'" in w]
    assert len(hit) == 1 and "profiles.ros" in hit[0] and "'three'" in hit[0] and "left out" in hit[0]
    stats = army.units[0].stats
    assert stats is not None and stats.sv is None and stats.t == 4


def test_reader_without_warn_raises(tmp_path: Path) -> None:
    from planner.io.roster_profiles import characteristics_of

    roster = read_roster(_read(tmp_path, "three"))
    model_sel = roster.all_forces()[0].selections[0].children[0]
    with pytest.raises(ScenarioError, match=r"profiles.ros: field .*characteristic 'Sv'.*'three'"):
        characteristics_of(model_sel, file=roster.file)


def test_real_rosters_carry_profiles() -> None:
    shared = Path("/work/shared/data/rosters/ironhands.rosz")
    if not shared.exists():
        pytest.skip("shared rosters not present")
    army, warnings = roster_to_army(read_roster(shared), "hh2")
    stats = [s for u in army.units for m in u.models if (s := model_stats(u, m)) is not None]
    with_weapons = [m for u in army.units for m in u.models if model_weapons(u, m)]
    assert stats and with_weapons
    assert all(s.t is not None or s.av_front is not None for s in stats)
    tactical = next(u for u in army.units if u.id == "tactical-squad-legion")
    # nine marines share the unit's profile, the sergeant keeps his own (A 2, Ld 9)
    assert tactical.stats is not None and tactical.stats.a == 1
    assert [m.stats.a for m in tactical.models if m.stats is not None] == [2]
    assert "Boltgun" in {w.name for w in tactical.weapons}
    # the Breachers' troopers have no profile in this roster: said once, naming them
    no_profile = [w for w in warnings if "no characteristics profile" in w]
    assert len(no_profile) == 1
    assert no_profile[0].startswith("breacher-siege-squad-legion: 9 of 10 models") and "legion-breacher x9" in no_profile[0]


def test_40k_list_profiles_from_wh40kdc_datasheets() -> None:
    from planner.combat import wh40k
    from planner.combat.profiles import attacker_40k, target_40k
    from planner.io.lists40k import import_list

    army, warnings = import_list(Path(__file__).parent / "data" / "lists40k" / "newrecruit.json", "wh40k11",
                                 default_base_mm=32)
    assert not [w for w in warnings if "left out" in w]
    squad = next(u for u in army.units if u.id == "intercessor-squad")
    assert squad.stats is not None and (squad.stats.t, squad.stats.w, squad.stats.sv, squad.stats.oc) == (5, 2, 3, 2)
    rifle = next(w for w in squad.weapons if w.name == "Bolt Rifle (Focused Fire)")
    assert (rifle.a, rifle.bs, rifle.s, rifle.ap, rifle.d, rifle.count) == (1, 3, 5, -1, 2, 10)
    assert rifle.keywords == ["Heavy", "Rapid Fire 1"]
    scouts = next(u for u in army.units if u.id == "scout-squad")
    a = attacker_40k(squad, "Bolt Rifle (Focused Fire)", stationary=True)
    assert a.models == 10
    r = wh40k.shoot(a, target_40k(scouts))
    # Heavy: +1 to hit when stationary (2+), S5 vs T4 3+, Sv 4+ at AP-1 5+, D2 kills a W2 scout
    p = 5 / 6 * 4 / 6 * 4 / 6
    assert r.models_lost[0] == pytest.approx((1 - p) ** 10)


def test_models_without_a_profile_are_warned_of(tmp_path: Path) -> None:
    # a sergeant with a profile, troopers without (the first-edition Breachers): one warning naming them
    troopers = ('<selection id="s1b" name="Breachers, Legion" number="3" type="model"></selection>\n'
                '      </selections>\n    </selection>\n  </selections></force></forces>')
    text = ROSTER.replace("SVVALUE", "3+").replace(
        "</selections>\n    </selection>\n  </selections></force></forces>", troopers, 1)
    p = tmp_path / "mixed.ros"
    p.write_text(text, encoding="utf-8")
    army, warnings = roster_to_army(read_roster(p), "hh2", default_base_mm=32)
    unit = army.units[0]
    assert unit.stats is None and sum(m.stats is not None for m in unit.models) == 4
    hit = [w for w in warnings if "no characteristics profile" in w]
    assert len(hit) == 1, warnings
    assert hit[0].startswith(f"{unit.id}: 3 of 7 models have no characteristics profile")
    assert "planner shoot" in hit[0]
    # the plain roster: every model has one, no such warning
    _, plain = roster_to_army(read_roster(_read(tmp_path)), "hh2", default_base_mm=32)
    assert not [w for w in plain if "no characteristics profile" in w]
