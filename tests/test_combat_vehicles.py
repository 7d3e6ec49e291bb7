"""Horus Heresy shooting at vehicles: penetration, hull points, the damage table, facings; closed forms
and a seeded Monte Carlo within 4 standard errors."""

from __future__ import annotations

import math

import pytest

from planner.combat import vehicles
from planner.combat.dice import mean, variance
from planner.combat.hh2 import HHAttacker, HHWeapon
from planner.combat.montecarlo import simulate_hh2_vehicle
from planner.combat.profiles import hh_vehicle, is_vehicle
from planner.combat.vehicles import HHVehicle, facing_hit, glance_pen
from planner.combat.vehicles import shoot_vehicle as _shoot_vehicle
from planner.errors import ScenarioError
from planner.schema import Unit

LASCANNON = HHWeapon("lascannon", 9, ap=2, type="Heavy")
RHINO = HHVehicle("rhino", 11, 11, 10, 3)
PREDATOR = HHVehicle("predator", 13, 12, 10, 3)


def shoot_vehicle(*args, **kw):
    """The closed forms below are for the reading vehicle-glancing-hits=hull-point (a Glancing Hit
    removes a Hull Point); the default reading has its own tests at the end."""
    kw.setdefault("glancing_hull_point", True)
    return _shoot_vehicle(*args, **kw)


def test_penetration_glancing_equal_penetrating_more() -> None:
    # D6 + 9 vs 12: 3 glances, 4-6 penetrate
    assert glance_pen(LASCANNON, 9, 12) == pytest.approx((1 / 6, 3 / 6))
    assert glance_pen(LASCANNON, 9, 15) == pytest.approx((1 / 6, 0.0))  # 9 + 6 = 15 only glances
    assert glance_pen(LASCANNON, 9, 16) == (0.0, 0.0)
    assert glance_pen(HHWeapon("bolter", 4, ap=5), 4, 10) == pytest.approx((1 / 6, 0.0))  # a 6 glances AV 10
    assert glance_pen(HHWeapon("bolter", 4, ap=5), 4, 11) == (0.0, 0.0)


def test_ordnance_keeps_the_highest_of_two_dice() -> None:
    ordnance = HHWeapon("battle cannon", 8, ap=3, type="Ordnance")
    # S8 vs 12: highest 4 glances (7/36), 5 or 6 penetrate (9/36 + 11/36)
    assert glance_pen(ordnance, 8, 12) == pytest.approx((7 / 36, 20 / 36))


def test_lance_counts_armour_above_12_as_12() -> None:
    lance = HHWeapon("lance", 8, ap=2, type="Assault", lance=True)
    assert glance_pen(lance, 8, 14) == pytest.approx((1 / 6, 2 / 6))
    assert glance_pen(lance, 8, 11) == pytest.approx((1 / 6, 3 / 6))  # at or below 12: as printed


def test_melta_within_half_range_and_armourbane_add_a_die() -> None:
    melta = HHWeapon("meltagun", 8, ap=1, type="Assault", range_in=12, melta=True)
    # S8 + 2D6 vs 14: a total of 6 glances (5/36), 7 or more penetrates (21/36)
    assert glance_pen(melta, 8, 14, half_range=True) == pytest.approx((5 / 36, 21 / 36))
    assert glance_pen(melta, 8, 14) == pytest.approx((1 / 6, 0.0))
    bane = HHWeapon("bane", 8, ap=1, armourbane=True)
    assert glance_pen(bane, 8, 14) == pytest.approx((5 / 36, 21 / 36))
    assert glance_pen(HHWeapon("both", 8, ap=1, melta=True, armourbane=True), 8, 14, half_range=True) == \
        pytest.approx((5 / 36, 21 / 36))  # one extra die, not two


@pytest.mark.parametrize("ap, open_topped, p_explode", [(2, False, 1 / 6), (1, False, 2 / 6), (3, False, 0.0),
                                                         (None, False, 0.0), (None, True, 0.0), (1, True, 3 / 6),
                                                         (2, True, 2 / 6)])
def test_damage_table_modifiers(ap: int | None, open_topped: bool, p_explode: float) -> None:
    v = HHVehicle("v", 12, 12, 12, 3, open_topped=open_topped)
    table = vehicles.damage_table(vehicles.damage_modifier(HHWeapon("w", 9, ap=ap), v))
    assert table["Explodes"] == pytest.approx(p_explode)
    assert sum(table.values()) == pytest.approx(1.0)
    assert vehicles.damage_table(0) == pytest.approx({"Crew Shaken": 3 / 6, "Crew Stunned": 1 / 6,
                                                      "Weapon Destroyed": 1 / 6, "Immobilised": 1 / 6,
                                                      "Explodes": 0.0})
    assert vehicles.damage_table(-1)["Crew Shaken"] == pytest.approx(4 / 6)  # a 0 counts as 1


def test_one_shot_closed_form() -> None:
    a = HHAttacker("a", 1, 4, LASCANNON)
    r = shoot_vehicle(a, PREDATOR, facing="side")  # AV 12
    hit = 4 / 6
    assert r.armour == 12 and r.facing == "side"
    assert r.hull_points_lost[1] == pytest.approx(hit * 4 / 6)
    assert r.models_lost[1] == pytest.approx(hit * 3 / 6 * 1 / 6)  # Explodes: D6 + 1 (AP 2) scores 7+
    assert r.exploded[1] == pytest.approx(r.models_lost[1])
    assert dict(r.damage_results)["Crew Shaken"] == pytest.approx(hit * 3 / 6 * 2 / 6)  # rolls 1-2 (+1: 2-3)
    # the last hull point: any hit that sticks destroys it, Wrecked unless it explodes
    last = shoot_vehicle(a, HHVehicle("p", 13, 12, 10, 3, hull_points_lost=2), facing="side")
    assert last.models_lost[1] == pytest.approx(hit * 4 / 6)
    assert last.exploded[1] == pytest.approx(hit * 3 / 6 * 1 / 6)
    assert any("Facing hit: side (Armour Value 12)" in n for n in r.interpretations)


def test_hull_points_over_several_shots() -> None:
    a = HHAttacker("a", 3, 4, LASCANNON)
    v = HHVehicle("v", 12, 12, 12, 2)
    r = shoot_vehicle(a, v)
    q = 4 / 6 * 4 / 6  # a hull point per shot
    e = 4 / 6 * 3 / 6 * 1 / 6  # an explosion per shot
    survive = (1 - q) ** 3 + 3 * (q - e) * (1 - q) ** 2
    assert r.models_lost[0] == pytest.approx(survive)
    assert sum(r.hull_points_lost) == pytest.approx(1.0)
    assert len(r.hull_points_lost) <= 3  # a destroyed vehicle loses no more


def test_squadron_hits_go_to_one_vehicle_at_a_time() -> None:
    # AP '-' (-1): no Explodes; two 1-HP vehicles, three shots: vehicles lost = min(2, hull points lost)
    a = HHAttacker("a", 3, 5, HHWeapon("autocannon", 7, ap=None))
    v = HHVehicle("speeders", 10, 10, 10, 1, models=2)
    r = shoot_vehicle(a, v)
    q = 5 / 6 * 4 / 6  # BS5 2+, D6 + 7 >= 10 on a 3+
    assert r.models_lost[0] == pytest.approx((1 - q) ** 3)
    assert r.models_lost[1] == pytest.approx(3 * q * (1 - q) ** 2)
    assert r.models_lost[2] == pytest.approx(1 - (1 - q) ** 3 - 3 * q * (1 - q) ** 2)
    assert r.exploded == (1.0, 0.0, 0.0)


def test_saves_and_shrouded_on_glancing_and_penetrating_hits() -> None:
    a = HHAttacker("a", 1, 4, LASCANNON)
    base = shoot_vehicle(a, RHINO).hull_points_lost[1]
    assert base == pytest.approx(4 / 6 * 5 / 6)  # D6 + 9 vs 11: 2 glances, 3+ penetrates
    assert shoot_vehicle(a, HHVehicle("r", 11, 11, 10, 3, cover=4)).hull_points_lost[1] == pytest.approx(base / 2)
    assert shoot_vehicle(a, HHVehicle("r", 11, 11, 10, 3, invuln=5, cover=4)).hull_points_lost[1] == \
        pytest.approx(base / 2)  # the better save only
    shrouded = HHVehicle("r", 11, 11, 10, 3, shrouded=5)
    assert shoot_vehicle(a, shrouded).hull_points_lost[1] == pytest.approx(base * 4 / 6)
    assert shoot_vehicle(a, HHVehicle("r", 11, 11, 10, 3, shrouded=5, fearless=True)).hull_points_lost[1] == \
        pytest.approx(base)
    ic = HHAttacker("a", 1, 4, HHWeapon("lascannon", 9, ap=2, type="Heavy", ignores_cover=True))
    assert shoot_vehicle(ic, HHVehicle("r", 11, 11, 10, 3, shrouded=5, cover=4)).hull_points_lost[1] == \
        pytest.approx(base)
    # cover 4+ and Shrouded 5+: one save and one mitigation roll
    assert shoot_vehicle(a, HHVehicle("r", 11, 11, 10, 3, shrouded=5, cover=4)).hull_points_lost[1] == \
        pytest.approx(base / 2 * 4 / 6)


def test_snap_shots_and_stupefied_strength() -> None:
    moved = HHAttacker("a", 1, 4, LASCANNON, moved=True)
    assert shoot_vehicle(moved, RHINO).p_hit == pytest.approx(1 / 6)
    stupefied = HHAttacker("a", 1, 4, HHWeapon("bolter", 4, ap=5), stupefied=True)
    r = shoot_vehicle(stupefied, RHINO, facing="rear")  # S5 + D6 vs 10: 5 glances, 6 penetrates
    assert (r.p_hit, r.p_glance, r.p_pen) == pytest.approx((1 / 6, 1 / 6, 1 / 6))


def test_facing_arcs_from_the_corners() -> None:
    v = PREDATOR  # 13 / 12 / 10
    hull = ((0.0, 0.0), 0.0, 4.0, 2.0)
    assert facing_hit(v, *hull, [(10.0, 0.0)]) == "front"
    assert facing_hit(v, *hull, [(0.0, 10.0)]) == "side"
    assert facing_hit(v, *hull, [(0.0, -10.0)]) == "side"
    assert facing_hit(v, *hull, [(-10.0, 0.0)]) == "rear"
    assert facing_hit(v, *hull, [(10.0, 5.0)]) == "side"  # on the corner line: the weaker of front and side
    assert facing_hit(v, *hull, [(10.1, 5.0)]) == "front"
    # the closest model's arc, or the attacker's best arc
    squad = [(-3.0, 0.0), (20.0, 0.0), (0.0, 30.0)]
    assert facing_hit(v, *hull, squad) == "rear"
    assert facing_hit(v, *hull, [(20.0, 0.0), (0.0, 30.0)]) == "front"
    assert facing_hit(v, *hull, [(20.0, 0.0), (0.0, 30.0)], rule="best") == "side"
    # turned to face +y
    assert facing_hit(v, (0.0, 0.0), 90.0, 4.0, 2.0, [(0.0, 10.0)]) == "front"
    assert facing_hit(v, (5.0, 5.0), 180.0, 4.0, 2.0, [(15.0, 5.0)]) == "rear"
    with pytest.raises(ValueError, match="'nearest'"):
        facing_hit(v, *hull, [(1.0, 1.0)], rule="nearest")
    with pytest.raises(ValueError, match="at least one"):
        facing_hit(v, *hull, [])
    with pytest.raises(ValueError, match="hull_points_lost 3 is not between 0 and 2"):
        HHVehicle("v", 12, 12, 12, 3, hull_points_lost=3)
    with pytest.raises(ValueError, match="at least 1"):
        HHVehicle("v", 12, 12, 12, 0)
    with pytest.raises(ValueError, match="'top'"):
        shoot_vehicle(HHAttacker("a", 1, 4, LASCANNON), v, facing="top")


def test_vehicle_from_a_scenario_unit() -> None:
    u = Unit.model_validate({"id": "pred", "stats": {"bs": 4, "av_front": 13, "av_side": 12, "av_rear": 10, "hp": 3},
                             "other_rules": ["Shrouded (5+)", "Open-topped"], "models": [{}, {}]})
    assert is_vehicle(u)
    v = hh_vehicle(u, cover=5)
    assert (v.front, v.side, v.rear, v.hull_points, v.models, v.shrouded, v.open_topped, v.cover) == \
        (13, 12, 10, 3, 2, 5, True, 5)
    bad = Unit.model_validate({"id": "pred", "stats": {"av_front": 13, "av_side": 12, "hp": 3}, "models": [{}]})
    with pytest.raises(ScenarioError, match=r"units\[pred\].stats: unit 'pred' has no av_rear"):
        hh_vehicle(bad)
    zero = Unit.model_validate({"id": "wreck", "stats": {"av_front": 10, "av_side": 10, "av_rear": 10, "hp": 0},
                                "models": [{}]})
    with pytest.raises(ScenarioError, match="0 Hull Points"):
        hh_vehicle(zero)


MC_CASES = [
    (HHAttacker("lascannons", 4, 4, LASCANNON), PREDATOR, "front", False),
    (HHAttacker("meltas", 3, 4, HHWeapon("meltagun", 8, ap=1, range_in=12, melta=True)),
     HHVehicle("land raider", 14, 14, 14, 4, shrouded=5, cover=5), "side", True),
    (HHAttacker("autocannons", 6, 4, HHWeapon("autocannon", 7, shots=2, ap=4, type="Heavy")),
     HHVehicle("speeders", 10, 10, 10, 2, models=3, open_topped=True), "rear", False),
    (HHAttacker("ordnance", 2, 3, HHWeapon("demolisher", 10, ap=2, type="Ordnance")),
     HHVehicle("rhino", 11, 11, 10, 3, hull_points_lost=1), "front", False),
]


@pytest.mark.parametrize("attacker, vehicle, facing, half", MC_CASES, ids=[c[0].name for c in MC_CASES])
def test_monte_carlo_agrees_within_4_standard_errors(attacker: HHAttacker, vehicle: HHVehicle, facing: str,
                                                     half: bool) -> None:
    trials = 5000
    exact = shoot_vehicle(attacker, vehicle, facing=facing, half_range=half)
    sims = simulate_hh2_vehicle(attacker, vehicle, trials, seed=22, facing=facing, half_range=half,
                                glancing_hull_point=True)
    for index, pmf in ((0, exact.models_lost), (1, exact.hull_points_lost), (2, exact.exploded)):
        se = math.sqrt(variance(pmf) / trials)
        assert abs(sum(s[index] for s in sims) / trials - mean(pmf)) <= 4 * se + 1e-9
    for k, p in enumerate(exact.models_lost):
        freq = sum(1 for s in sims if s[0] == k) / trials
        assert abs(freq - p) <= 4 * math.sqrt(p * (1 - p) / trials) + 1e-9


def test_by_default_a_glancing_hit_removes_no_hull_point() -> None:
    # ruling vehicle-glancing-hits=no-hull-point: D6 + 9 vs AV 11 glances on a 2 (removes nothing),
    # penetrates on 3+ (a Hull Point)
    a = HHAttacker("a", 1, 4, LASCANNON)
    rhino = HHVehicle("r", 11, 11, 10, 3)
    hit = 4 / 6
    default = _shoot_vehicle(a, rhino)
    assert default.hull_points_lost[1] == pytest.approx(hit * 4 / 6)
    assert default.p_glance == pytest.approx(1 / 6)  # the glance is still reported as a hit of its kind
    assert _shoot_vehicle(a, rhino, glancing_hull_point=True).hull_points_lost[1] == pytest.approx(hit * 5 / 6)
    assert any("vehicle-glancing-hits=no-hull-point" in n for n in default.interpretations)
    # a volley that can only glance (S9 vs AV 15) removes nothing by default
    assert _shoot_vehicle(HHAttacker("a", 5, 4, LASCANNON), HHVehicle("lr", 15, 15, 15, 4)).hull_points_lost == \
        pytest.approx((1.0,))


@pytest.mark.parametrize("glancing", [False, True])
def test_monte_carlo_follows_the_glancing_ruling(glancing: bool) -> None:
    a, rhino = HHAttacker("a", 5, 4, LASCANNON), HHVehicle("r", 11, 11, 10, 3)
    exact = _shoot_vehicle(a, rhino, glancing_hull_point=glancing)
    trials = 20000
    sims = simulate_hh2_vehicle(a, rhino, trials, seed=5, glancing_hull_point=glancing)
    mean_hp = sum(t for _, t, _ in sims) / trials
    want = sum(k * p for k, p in enumerate(exact.hull_points_lost))
    sd = (sum((k - want) ** 2 * p for k, p in enumerate(exact.hull_points_lost)) / trials) ** 0.5
    assert abs(mean_hp - want) <= 4 * sd
