"""Profiles in the schema (issue 20 item 1) and their use by the dice maths."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from planner.combat import hh2, wh40k
from planner.combat.profiles import attacker_40k, hh_attacker, hh_target, model_stats, target_40k
from planner.errors import ScenarioError
from planner.schema import CatalogueEntry, Unit

MARINE = {"m": 7, "ws": 4, "bs": 4, "s": 4, "t": 4, "w": 1, "i": 4, "a": 1, "ld": 7, "sv": 3}
BOLTER = {"name": "bolter", "range_in": 24, "s": 4, "ap": 5, "type": "Rapid Fire", "shots": 2}


def _unit(**kw: object) -> Unit:
    data: dict[str, object] = {"id": "tac", "stats": MARINE, "weapons": [BOLTER], "models": [{} for _ in range(10)]}
    data.update(kw)
    return Unit.model_validate(data)


def test_schema_rejects_bad_profile_values() -> None:
    with pytest.raises(ValidationError, match=r"weapons.0.d"):
        _unit(weapons=[{"name": "x", "d": "D7"}])
    with pytest.raises(ValidationError, match=r"stats.sv"):
        _unit(stats={**MARINE, "sv": 1})
    with pytest.raises(ValidationError, match=r"stats.toughness"):
        _unit(stats={**MARINE, "toughness": 4})
    with pytest.raises(ValidationError, match=r"stats.t"):
        _unit(stats={**MARINE, "t": "4"})


def test_hh_unit_to_dice_maths_matches_hand_built_records() -> None:
    shooter, target = _unit(), _unit(id="enemy", other_rules=["Shrouded (5+)", "Fearless"])
    a = hh_attacker(shooter, "bolter", marked_for_death=True)
    t = hh_target(target, cover=5)
    assert a.models == 10 and a.bs == 4 and a.weapon.shots == 2 and a.weapon.ap == 5
    assert t.shrouded == 5 and t.fearless and t.groups[0].cover == 5 and t.groups[0].models == 10
    hand = hh2.shoot(hh2.HHAttacker("tac", 10, 4, hh2.HHWeapon("bolter", 4, 2, 5, "Rapid Fire", 24.0),
                                    marked_for_death=True),
                     hh2.HHTarget("enemy", (hh2.HHTargetGroup("g", 10, 4, 1, 3, None, 5),), 5, True))
    assert hh2.shoot(a, t).models_lost == pytest.approx(hand.models_lost)


def test_bare_shrouded_is_6_plus_and_model_stats_override() -> None:
    sgt = {**MARINE, "w": 2, "sv": 2}
    u = _unit(id="enemy", other_rules=["Shrouded"], models=[{}, {}, {"stats": sgt}])
    t = hh_target(u)
    assert t.shrouded == 6
    assert [(g.models, g.wounds, g.save) for g in t.groups] == [(2, 1, 3), (1, 2, 2)]


def test_catalogue_entry_profile_is_used() -> None:
    entry = CatalogueEntry.model_validate({"id": "legion-tactical-marine", "name": "Legionary", "type": "Infantry",
                                           "base": {"diameter_mm": 32}, "stats": {**MARINE, "t": 5}})
    u = _unit(stats=None, models=[{"profile": "legion-tactical-marine"}])
    stats = model_stats(u, u.models[0], lambda ref: entry if ref == entry.id else None)
    assert stats is not None and stats.t == 5


def test_missing_values_name_unit_and_field() -> None:
    with pytest.raises(ScenarioError, match=r"field units\[tac\].stats: unit 'tac' has no T"):
        hh_target(_unit(stats={"bs": 4}))
    with pytest.raises(ScenarioError, match="no weapon named 'lascannon'"):
        hh_attacker(_unit(), "lascannon")
    with pytest.raises(ScenarioError, match="has no D"):
        attacker_40k(_unit(weapons=[{"name": "bolt", "a": 2, "bs": 3, "s": 4}]), "bolt")


def test_40k_unit_to_dice_maths() -> None:
    inter = {"m": 6, "t": 4, "sv": 3, "w": 2, "ld": 6, "oc": 2}
    captain = {"m": 6, "t": 4, "sv": 3, "w": 5, "inv": 4, "oc": 1}
    u = Unit.model_validate({"id": "squad", "stats": inter, "models": [{}, {}, {"stats": captain, "keywords": ["CHARACTER"]}],
                             "weapons": [{"name": "bolt rifle", "range_in": 24, "a": 2, "bs": 3, "s": 4, "ap": -1,
                                          "d": 1, "keywords": ["Heavy"]}]})
    t = target_40k(u, attached=True)
    assert [(g.models, g.character, g.invuln) for g in t.groups] == [(2, False, None), (1, True, 4)]
    assert t.keywords == ("CHARACTER",)  # the unit has every model's keywords (for Anti-X)
    a = attacker_40k(u, "bolt rifle", stationary=True)
    assert a.models == 3 and a.weapon.keywords == ("Heavy",)
    r = wh40k.shoot(a, t)
    assert sum(r.models_lost) == pytest.approx(1.0)
    assert r.group_models_lost_mean[1] < r.group_models_lost_mean[0]


def test_hh_character_subtype_and_40k_positive_ap() -> None:
    u = _unit(models=[{}, {}, {"subtypes": ["Character"], "stats": {**MARINE, "w": 2}}])
    assert [g.character for g in hh_target(u).groups] == [False, True]
    v = Unit.model_validate({"id": "v", "stats": {"t": 4, "w": 1, "sv": 3},
                             "weapons": [{"name": "gun", "a": 1, "bs": 3, "s": 4, "ap": 1, "d": 1}], "models": [{}]})
    assert attacker_40k(v, "gun").weapon.ap == -1


def test_hh_keywords_the_maths_does_not_use_are_stated() -> None:
    gun = {**BOLTER, "keywords": ["Gets Hot", "Precision Shots (5+)", "Rending (6+)", "Large Blast (5\")"]}
    a = hh_attacker(_unit(weapons=[gun]), "bolter")
    assert a.weapon.precision == 5
    assert a.weapon.unmodelled == ('Gets Hot', 'Large Blast (5")', "Rending (6+)")
    notes = hh2.shoot(a, hh_target(_unit(id="enemy"))).interpretations
    assert notes[-1] == 'Keywords not modelled: Gets Hot, Large Blast (5"), Rending (6+).'
    # every keyword modelled: nothing said
    plain = hh_attacker(_unit(weapons=[{**BOLTER, "keywords": ["Melta", "Lance", "Armourbane", "Instant Death"]}]),
                        "bolter")
    assert plain.weapon.unmodelled == ()
    assert not [n for n in hh2.shoot(plain, hh_target(_unit(id="enemy"))).interpretations if "not modelled" in n]
    from planner.combat import vehicles

    rhino = vehicles.HHVehicle("rhino", 11, 11, 10, 3)
    assert vehicles.shoot_vehicle(a, rhino).interpretations[-1] != notes[-1]  # the facing note comes last
    assert notes[-1] in vehicles.shoot_vehicle(a, rhino).interpretations
