"""Horus Heresy dice maths: closed forms at each seed rule's boundary, and a seeded Monte Carlo."""

from __future__ import annotations

import math

import pytest

from planner.combat import hh2
from planner.combat.dice import mean, parse_dice, variance
from planner.combat.hh2 import HHAttacker, HHTarget, HHTargetGroup, HHWeapon, shoot
from planner.combat.montecarlo import simulate_hh2

BOLTER = HHWeapon("bolter", strength=4, shots=1, ap=5, type="Rapid Fire")



def _target(models: int = 1, toughness: int = 4, wounds: int = 1, save: int | None = None, **kw: object) -> HHTarget:
    return HHTarget("t", (HHTargetGroup("m", models, toughness, wounds, save),), **kw)  # type: ignore[arg-type]


def _p_lost(attacker: HHAttacker, target: HHTarget) -> float:
    return shoot(attacker, target).models_lost[1]


def test_tables_at_their_boundaries() -> None:
    assert [hh2.to_hit(bs) for bs in (1, 4, 5, 6, 10)] == [(6, None), (3, None), (2, None), (2, 6), (2, 2)]
    assert hh2.to_hit(5, snap=True) == (6, None)
    assert [hh2.to_wound(4, t) for t in (2, 3, 4, 5, 6, 7, 8)] == [2, 3, 4, 5, 6, 6, None]
    with pytest.raises(ValueError, match="BS 11"):
        hh2.to_hit(11)


def test_one_shot_closed_form() -> None:
    a = HHAttacker("a", 1, 4, BOLTER)
    assert _p_lost(a, _target(save=4)) == pytest.approx(2 / 3 * 1 / 2 * 1 / 2)
    assert _p_lost(a, _target(save=5)) == pytest.approx(2 / 3 * 1 / 2)  # AP5 ignores a 5+ armour save
    assert _p_lost(a, _target(save=6)) == pytest.approx(2 / 3 * 1 / 2)
    assert _p_lost(a, _target(toughness=8)) == 0.0


def test_binomial_mean_and_variance() -> None:
    a = HHAttacker("a", 10, 4, HHWeapon("bolter", 4, shots=2, ap=5))
    r = shoot(a, _target(models=30, save=3))
    p = 2 / 3 * 1 / 2 * 1 / 3
    assert mean(r.models_lost) == pytest.approx(20 * p)
    assert variance(r.models_lost) == pytest.approx(20 * p * (1 - p))
    assert sum(r.models_lost) == pytest.approx(1.0)


def test_shrouded_6_vs_fearless() -> None:
    a = HHAttacker("a", 1, 4, BOLTER)
    base = 2 / 3 * 1 / 2
    assert _p_lost(a, _target(shrouded=6)) == pytest.approx(base * 5 / 6)
    assert _p_lost(a, _target(shrouded=6, fearless=True)) == pytest.approx(base)
    assert _p_lost(a, _target(shrouded=5)) == pytest.approx(base * 4 / 6)
    ic = HHAttacker("a", 1, 4, HHWeapon("flamer", 4, type="Assault", ignores_cover=True))
    assert _p_lost(ic, _target(shrouded=6)) == pytest.approx(base)
    melee = HHAttacker("a", 1, 4, HHWeapon("sword", 4, type="Melee"))
    assert _p_lost(melee, _target(shrouded=6)) == pytest.approx(base)


def test_one_damage_mitigation_roll_per_wound() -> None:
    a = HHAttacker("a", 1, 4, BOLTER)
    base = 2 / 3 * 1 / 2
    # Shrouded 4+ and Stupefied 6+: only the better roll, not both
    assert _p_lost(a, _target(shrouded=4, stupefied=True)) == pytest.approx(base * 1 / 2)
    assert _p_lost(a, _target(stupefied=True)) == pytest.approx(base * 5 / 6)
    assert _p_lost(a, _target(stupefied=True, fearless=True)) == pytest.approx(base * 4 / 6)


def test_stupefied_vs_instant_death() -> None:
    a = HHAttacker("a", 1, 4, HHWeapon("lascannon", 9, ap=2, type="Heavy"))
    # S9 vs T4: 2+ to wound and Instant Death: no Stupefied roll
    assert _p_lost(a, _target(wounds=3, stupefied=True)) == pytest.approx(2 / 3 * 5 / 6)
    # S7 vs T4 is not Instant Death: the roll is allowed, and a 3-wound model is not removed by one wound
    b = HHAttacker("a", 1, 4, HHWeapon("missile", 7, ap=4, type="Heavy"))
    r = shoot(b, _target(wounds=1, stupefied=True))
    assert r.models_lost[1] == pytest.approx(2 / 3 * 5 / 6 * 5 / 6)
    assert shoot(b, _target(wounds=3)).models_lost[1] == 0.0
    # weapon with the Instant Death rule against a tougher model
    c = HHAttacker("a", 1, 4, HHWeapon("force", 4, type="Melee", instant_death=True))
    assert _p_lost(c, _target(wounds=3, stupefied=True)) == pytest.approx(2 / 3 * 1 / 2)


def test_stupefied_attacker_snap_shots_and_strength() -> None:
    a = HHAttacker("a", 1, 5, BOLTER, stupefied=True)
    assert _p_lost(a, _target(toughness=4)) == pytest.approx(1 / 6 * 4 / 6)  # 6+ to hit, S5 vs T4 3+


def test_relentless_heavy_after_moving() -> None:
    heavy = HHWeapon("heavy bolter", 5, ap=4, type="Heavy")
    moved = HHAttacker("a", 1, 4, heavy, moved=True)
    assert _p_lost(moved, _target()) == pytest.approx(1 / 6 * 4 / 6)
    rel = HHAttacker("a", 1, 4, heavy, moved=True, relentless=True)
    assert _p_lost(rel, _target()) == pytest.approx(4 / 6 * 4 / 6)
    assault = HHAttacker("a", 1, 4, HHWeapon("bolter", 5, type="Assault"), moved=True)
    assert _p_lost(assault, _target()) == pytest.approx(4 / 6 * 4 / 6)


def test_marked_for_death_rerolls_wound_ones() -> None:
    a = HHAttacker("a", 1, 4, BOLTER, marked_for_death=True)
    assert _p_lost(a, _target()) == pytest.approx(2 / 3 * (1 / 2 + 1 / 6 * 1 / 2))
    assert _p_lost(a, _target(toughness=8)) == 0.0


def _squad_with_sergeant() -> HHTarget:
    # the sergeant (2+ armour) is last in the allocation order; precision shots go where the attacker likes
    return HHTarget("squad", (HHTargetGroup("marines", 4, 4, 1, 3), HHTargetGroup("sergeant", 1, 4, 1, 2,
                                                                                    character=True)))


@pytest.mark.parametrize("x, p_prec", [(5, 2 / 6), (6, 1 / 6)])
def test_precision_shots_5_vs_6(x: int, p_prec: float) -> None:
    a = HHAttacker("a", 1, 4, HHWeapon("sniper", 4, ap=5, precision=x))
    r = shoot(a, _squad_with_sergeant(), precision_group=1)
    p_wound = 1 / 2
    assert r.group_models_lost_mean[1] == pytest.approx(p_prec * p_wound * 1 / 6)
    assert r.group_models_lost_mean[0] == pytest.approx((4 / 6 - p_prec) * p_wound * 1 / 3)
    assert r.p_hit == pytest.approx(4 / 6)


def test_precision_default_is_worst_for_the_target_and_stated() -> None:
    a = HHAttacker("a", 3, 4, HHWeapon("sniper", 4, ap=5, precision=5))
    r = shoot(a, _squad_with_sergeant())
    # aiming precision wounds at the 3+ marines costs more models than at the 2+ sergeant
    assert any("Precision wounds allocated to marines" in n for n in r.interpretations)
    sgt = shoot(a, _squad_with_sergeant(), precision_group=1)
    assert r.expected_models_lost > sgt.expected_models_lost


def test_precision_with_bs_reroll() -> None:
    a = HHAttacker("a", 1, 6, HHWeapon("sniper", 4, precision=5))
    r = shoot(a, _squad_with_sergeant(), precision_group=1)
    p_prec = 2 / 6 + 1 / 6 * 1 / 6  # first roll 5+, or a 1 re-rolled into a 6 (BS6 re-roll needs 6+)
    assert r.group_models_lost_mean[1] == pytest.approx(p_prec * 1 / 2 * 1 / 6)


def test_multi_wound_models_and_allocation_order() -> None:
    a = HHAttacker("a", 1, 4, HHWeapon("bolter", 4, shots=3))
    t = HHTarget("t", (HHTargetGroup("terminators", 2, 4, 2, None),))
    r = shoot(a, t)
    q = 1 / 3  # per-shot unsaved wound
    assert r.models_lost[1] == pytest.approx(3 * q**2 * (1 - q) + q**3)
    assert r.wounds_lost[3] == pytest.approx(q**3)


def test_dice_parser_errors() -> None:
    assert parse_dice("D6+1") == pytest.approx((0, 0, 1 / 6, 1 / 6, 1 / 6, 1 / 6, 1 / 6, 1 / 6))
    assert mean(parse_dice("2D3")) == pytest.approx(4)
    with pytest.raises(ValueError, match="'D7'"):
        parse_dice("D7")
    with pytest.raises(ValueError, match="'x'"):
        parse_dice("x")


MC_CASES = [
    (HHAttacker("tacticals", 10, 4, HHWeapon("bolter", 4, shots=2, ap=5)),
     HHTarget("marines", (HHTargetGroup("m", 10, 4, 1, 3, cover=5),), shrouded=5)),
    (HHAttacker("snipers", 5, 5, HHWeapon("sniper", 4, shots=1, ap=5, precision=5), marked_for_death=True),
     HHTarget("squad", (HHTargetGroup("m", 4, 4, 1, 3), HHTargetGroup("sgt", 1, 4, 2, 2, invuln=4)))),
    (HHAttacker("lascannons", 4, 4, HHWeapon("lascannon", 9, ap=2, type="Heavy")),
     HHTarget("terminators", (HHTargetGroup("t", 5, 4, 2, 2, invuln=5),), stupefied=True)),
    (HHAttacker("stupefied", 8, 4, HHWeapon("bolter", 4, shots=2, ap=5), stupefied=True),
     HHTarget("brutes", (HHTargetGroup("b", 3, 5, 3, 4),), stupefied=True, fearless=True)),
]


@pytest.mark.parametrize("attacker, target", MC_CASES, ids=[c[0].name for c in MC_CASES])
def test_monte_carlo_agrees_within_4_standard_errors(attacker: HHAttacker, target: HHTarget) -> None:
    trials = 6000
    exact = shoot(attacker, target, precision_group=len(target.groups) - 1)
    sims = simulate_hh2(attacker, target, trials, seed=20, precision_group=len(target.groups) - 1)
    for index, pmf in ((0, exact.models_lost), (1, exact.wounds_lost)):
        xs = [s[index] for s in sims]
        se = math.sqrt(variance(pmf) / trials)
        assert abs(sum(xs) / trials - mean(pmf)) <= 4 * se + 1e-9
    # and the whole distribution: each outcome's frequency
    for k, p in enumerate(exact.models_lost):
        freq = sum(1 for s in sims if s[0] == k) / trials
        assert abs(freq - p) <= 4 * math.sqrt(p * (1 - p) / trials) + 1e-9
