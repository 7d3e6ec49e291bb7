"""Objective Control after losses (40k): battle-shock below half-strength, exact distributions."""

from __future__ import annotations

import pytest

from planner.combat import wh40k
from planner.combat.control import battle_shock_pass, combine_losses, expected_oc
from planner.combat.dice import mean
from planner.rules.registry import find_ruleset

EDITIONS = ("wh40k10", "wh40k11")


def test_battle_shock_test_boundaries() -> None:
    assert [battle_shock_pass(ld) for ld in (2, 6, 7, 12, 13)] == pytest.approx([1.0, 26 / 36, 21 / 36, 1 / 36, 0.0])


@pytest.mark.parametrize("edition", EDITIONS)
def test_expected_oc_closed_form(edition: str) -> None:
    lost = [0.5, 0, 0, 0, 0.2, 0, 0.2, 0, 0, 0, 0.1]
    r = expected_oc([2] * 10, lost, ruleset=edition, leadership=6)
    p = 26 / 36
    # 4 lost: 6 of 10 left, not below half; 6 lost: 4 left, below half, OC 8 only if the test passes
    assert r.expected == pytest.approx(0.5 * 20 + 0.2 * 12 + 0.2 * 8 * p)
    assert r.pmf[20] == pytest.approx(0.5) and r.pmf[12] == pytest.approx(0.2)
    assert r.pmf[8] == pytest.approx(0.2 * p)
    assert r.pmf[0] == pytest.approx(0.1 + 0.2 * (1 - p))
    assert (r.p_below_half, r.p_battle_shocked, r.p_destroyed) == pytest.approx((0.2, 0.2 * (1 - p), 0.1))
    assert sum(r.pmf) == pytest.approx(1.0)
    assert any(n.startswith("Battle-shock test: 2D6") for n in r.interpretations)


@pytest.mark.parametrize("n, lost, below", [(10, 5, False), (10, 6, True), (5, 2, False), (5, 3, True),
                                            (1, 0, False), (2, 1, False), (3, 2, True)])
def test_below_half_strength_is_fewer_than_half(n: int, lost: int, below: bool) -> None:
    pmf = [0.0] * (n + 1)
    pmf[lost] = 1.0
    r = expected_oc([1] * n, pmf, ruleset="wh40k11", leadership=13)  # Ld 13: a test always fails
    assert r.p_below_half == (1.0 if below else 0.0)
    assert r.expected == (0.0 if below else n - lost)


def test_models_are_lost_in_the_order_given() -> None:
    # a sergeant with OC 1 first, then OC 2 models
    r = expected_oc([1, 2, 2, 2], [0, 1.0], ruleset="wh40k11", leadership=2)
    assert r.pmf == pytest.approx((0, 0, 0, 0, 0, 0, 1.0))
    r = expected_oc([2, 2, 2, 1], [0, 1.0], ruleset="wh40k11", leadership=2)
    assert r.expected == 5


def test_one_model_unit_below_half_by_wounds() -> None:
    # W10: 6 wounds lost leaves 4 (below half), 5 lost leaves 5 (not); 10 lost destroys it
    for lost, expect in ((5, 3.0), (6, 3 * 21 / 36), (10, 0.0)):
        wl = [0.0] * 11
        wl[lost] = 1.0
        r = expected_oc([3], [1.0], ruleset="wh40k10", leadership=7, wounds=10, wounds_lost_pmf=wl)
        assert r.expected == pytest.approx(expect)


def test_with_the_dice_maths() -> None:
    shooters = wh40k.Attacker40k("a", 10, wh40k.Weapon40k("bolt rifle", 2, 3, 4, -1, 1))
    target = wh40k.Target40k("t", (wh40k.Group40k("m", 10, 4, 1, 3),))
    lost = wh40k.shoot(shooters, target).models_lost
    r = expected_oc([2] * 10, lost, ruleset=find_ruleset("wh40k11"), leadership=7)
    p = 21 / 36
    expect = sum(pk * 2 * (10 - k) * (p if 2 * (10 - k) < 10 else 1.0) for k, pk in enumerate(lost))
    assert r.expected == pytest.approx(expect)
    assert r.expected < 2 * (10 - mean(lost))  # battle-shock only lowers it


def test_combine_losses_caps_at_the_unit() -> None:
    assert combine_losses([[0.5, 0.5], [0.5, 0.5]], 1) == pytest.approx((0.25, 0.75))
    assert combine_losses([[0.5, 0.5], [0.5, 0.5]], 5) == pytest.approx((0.25, 0.5, 0.25))


def test_errors() -> None:
    with pytest.raises(ValueError, match="'hh2' has no Objective Control"):
        expected_oc([1], [1.0], ruleset="hh2", leadership=7)
    with pytest.raises(ValueError, match="above 2"):
        expected_oc([1, 1], [0, 0, 0, 1.0], ruleset="wh40k11", leadership=7)
    with pytest.raises(ValueError, match="not a distribution"):
        expected_oc([1, 1], [0.5, 0.2], ruleset="wh40k11", leadership=7)
    with pytest.raises(ValueError, match="0 or more"):
        expected_oc([1, -1], [1.0], ruleset="wh40k11", leadership=7)
    with pytest.raises(ValueError, match="at least one model"):
        expected_oc([], [1.0], ruleset="wh40k11", leadership=7)
