"""40k Devastating Wounds, Anti-X, Melta X and Precision: closed forms in both editions, a seeded Monte
Carlo, and wh40kdc's calculator (``wh40kdc.cruncher``) where it models the keyword."""

from __future__ import annotations

import math
from typing import Any

import pytest

from planner.combat import wh40k
from planner.combat.dice import mean, variance
from planner.combat.montecarlo import simulate_40k
from planner.combat.result import VolleyResult
from planner.combat.wh40k import Attacker40k, Group40k, Target40k, Weapon40k
from planner.combat.wh40k import shoot as _shoot
from planner.rules.registry import find_ruleset

BOLT = Weapon40k("bolt rifle", attacks=2, bs=3, strength=4, ap=-1, damage=1)


def shoot(attacker: Attacker40k, target: Target40k, edition: str = "wh40k11") -> VolleyResult:
    """The dice maths with the ruleset's own benefit-of-cover rule."""
    return _shoot(attacker, target, cover=find_ruleset(edition).COVER_IN_SHOOTING or "", ruleset=edition)


def _unit(models: int = 10, t: int = 4, w: int = 1, sv: int = 3) -> Target40k:
    return Target40k("t", (Group40k("m", models, t, w, sv),))

# ---- Devastating Wounds, Anti-X, Melta X, Precision (both editions: the same ruling, see KEYWORD_INTERPRETATIONS) ----

EDITIONS = ("wh40k10", "wh40k11")


@pytest.mark.parametrize("edition", EDITIONS)
def test_devastating_wounds_critical_wounds_allow_no_save(edition: str) -> None:
    # 2+ to hit, S4 vs T4 4+ (a 6 is critical), Sv 2+ with a 4+ invulnerable: the save fails on a 1 only
    target = Target40k("t", (Group40k("m", 1, 4, 1, 2, invuln=4),))
    plain = Attacker40k("a", 1, Weapon40k("x", 1, 2, 4, 0, 1))
    dev = Attacker40k("a", 1, Weapon40k("x", 1, 2, 4, 0, 1, keywords=("Devastating Wounds",)))
    assert shoot(plain, target, edition).models_lost[1] == pytest.approx(5 / 6 * 3 / 6 * 1 / 6)
    r = shoot(dev, target, edition)
    assert r.models_lost[1] == pytest.approx(5 / 6 * (1 / 6 + 2 / 6 * 1 / 6))
    assert mean(r.no_save) == pytest.approx(5 / 6 * 1 / 6)
    assert mean(r.wounding) == pytest.approx(5 / 6 * 3 / 6)
    # Lethal Hits' automatic wound is not a Critical Wound: no Devastating Wounds from it
    both = Attacker40k("a", 1, Weapon40k("x", 1, 2, 4, 0, 1, keywords=("[Lethal Hits]", "[Devastating Wounds]")))
    assert mean(shoot(both, target, edition).no_save) == pytest.approx(4 / 6 * 1 / 6)


def test_devastating_wounds_damage_spill_is_lost_and_feel_no_pain_applies() -> None:
    # one D3 Devastating attack at two W1 models: at most one model, whatever the damage
    t = Target40k("t", (Group40k("m", 2, 4, 1, 2, fnp=5),))
    a = Attacker40k("a", 1, Weapon40k("x", 1, 2, 4, 0, "D3", keywords=("Devastating Wounds",)))
    r = shoot(a, t)
    assert len(r.models_lost) == 3 and r.models_lost[2] == 0.0
    # critical: no save, the model survives only if every one of its D3 wounds is stopped by the 5+
    p_fnp_all = (1 / 3) * (2 / 6) + (1 / 3) * (2 / 6) ** 2 + (1 / 3) * (2 / 6) ** 3
    normal = 2 / 6 * 1 / 6 * (1 - p_fnp_all)
    assert r.models_lost[1] == pytest.approx(5 / 6 * (1 / 6 * (1 - p_fnp_all) + normal))


@pytest.mark.parametrize("edition", EDITIONS)
@pytest.mark.parametrize("keywords, p_wound", [(("INFANTRY",), 3 / 6), (("VEHICLE",), 1 / 6), ((), 1 / 6)])
def test_anti_x_critical_wound_on_its_value(edition: str, keywords: tuple[str, ...], p_wound: float) -> None:
    # S3 vs T8 wounds on 6+; Anti-Infantry 4+ makes 4+ a Critical Wound (which always wounds)
    a = Attacker40k("a", 1, Weapon40k("x", 1, 2, 3, 0, 1, keywords=("Anti-Infantry 4+",)))
    t = Target40k("t", (Group40k("m", 1, 8, 1, 7),), keywords=keywords)
    r = shoot(a, t, edition)
    assert r.p_wound == pytest.approx(p_wound)
    assert r.models_lost[1] == pytest.approx(5 / 6 * p_wound)


def test_anti_x_with_devastating_wounds_and_twin_linked() -> None:
    # Anti-Infantry 5+ and Devastating Wounds: 5+ critical (no save vs Sv 2+), S4 vs T4 4 normal; twin-linked re-rolls
    w = Weapon40k("x", 1, 2, 4, 0, 1, keywords=("[Anti-Infantry 5+]", "[Devastating Wounds]", "[Twin-linked]"))
    t = Target40k("t", (Group40k("m", 1, 4, 1, 2),), keywords=("Infantry", "Imperium"))
    pc, pn = wh40k.wound_roll(w, t)
    assert (pc, pn) == pytest.approx((2 / 6 * (1 + 3 / 6), 1 / 6 * (1 + 3 / 6)))
    r = shoot(Attacker40k("a", 1, w), t)
    assert r.models_lost[1] == pytest.approx(5 / 6 * (pc + pn * 1 / 6))


@pytest.mark.parametrize("edition", EDITIONS)
def test_melta_adds_damage_within_half_range_only(edition: str) -> None:
    # D6 Damage vs an 8-wound model: Melta 2 within half range removes it on a 6 (6 + 2)
    t = Target40k("t", (Group40k("tank", 1, 4, 8, 7),))
    w = Weapon40k("melta", 1, 2, 9, -4, "D6", range_in=12, keywords=("Melta 2",))
    near = shoot(Attacker40k("a", 1, w, half_range=True), t, edition)
    far = shoot(Attacker40k("a", 1, w), t, edition)
    assert near.models_lost[1] == pytest.approx(5 / 6 * 5 / 6 * 1 / 6)
    assert far.models_lost[1] == 0.0
    assert near.expected_wounds_lost == pytest.approx(5 / 6 * 5 / 6 * (3.5 + 2))
    assert any(n.startswith("Melta 2: within half range") for n in near.interpretations)


def _attached() -> Target40k:
    return Target40k("u", (Group40k("guard", 3, 4, 2, 3), Group40k("captain", 1, 4, 1, 7, character=True)),
                     attached=True)


@pytest.mark.parametrize("edition", EDITIONS)
def test_precision_allocates_to_the_character(edition: str) -> None:
    sniper = Attacker40k("a", 1, Weapon40k("sniper", 1, 2, 4, 0, 1, keywords=("Precision",)))
    r = shoot(sniper, _attached(), edition)
    # the unsaveable W1 captain is the attacker's best choice: 5/6 to hit, 1/2 to wound, no save
    assert r.group_models_lost_mean == pytest.approx((0.0, 5 / 6 * 1 / 2))
    assert "Precision attacks allocated to captain." in r.interpretations
    plain = shoot(Attacker40k("a", 1, Weapon40k("sniper", 1, 2, 4, 0, 1)), _attached(), edition)
    assert plain.group_models_lost_mean[1] == 0.0
    # not an attached unit: Precision has nothing to do, and naming a group is an error
    alone = Target40k("u", _attached().groups)
    assert shoot(sniper, alone, edition).group_models_lost_mean[1] == 0.0
    with pytest.raises(ValueError, match="precision_group 1"):
        _shoot(sniper, alone, precision_group=1)
    with pytest.raises(ValueError, match="precision_group 0"):
        _shoot(sniper, _attached(), precision_group=0)


def test_precision_character_first_then_the_normal_order() -> None:
    # three wounding attacks at most; the W1 character takes the first unsaved one, the rest go to the guard
    sniper = Attacker40k("a", 3, Weapon40k("sniper", 1, 2, 8, -6, 1, keywords=("Precision",)))
    r = _shoot(sniper, _attached(), precision_group=1)
    q = 5 / 6 * 5 / 6  # hit 2+, S8 vs T4 2+; no save at AP-6
    assert r.group_models_lost_mean[1] == pytest.approx(1 - (1 - q) ** 3)
    assert r.wounds_lost[3] == pytest.approx(q**3)


def test_memoised_results_are_the_same_object() -> None:
    a = Attacker40k("a", 5, BOLT)
    assert _shoot(a, _unit()) is _shoot(a, _unit())


KEYWORD_MC = [
    (Attacker40k("eradicators", 3, Weapon40k("melta rifle", 1, 3, 9, -4, "D6", 12, ("Melta 2", "Anti-Vehicle 4+",
                                                                                      "Devastating Wounds")),
                 half_range=True),
     Target40k("dreads", (Group40k("d", 2, 9, 8, 2, invuln=5), ), keywords=("VEHICLE",)), None),
    (Attacker40k("vindicare", 2, Weapon40k("exitus", 2, 2, 5, -3, "D3", 36, ("[Precision]", "[Devastating Wounds]",
                                                                             "[Sustained Hits 1]"))),
     Target40k("squad", (Group40k("m", 4, 4, 2, 3), Group40k("lt", 1, 4, 4, 3, invuln=4, character=True)),
               attached=True), 1),
]


@pytest.mark.parametrize("attacker, target, pg", KEYWORD_MC, ids=[c[0].name for c in KEYWORD_MC])
def test_keywords_monte_carlo_within_4_standard_errors(attacker: Attacker40k, target: Target40k,
                                                       pg: int | None) -> None:
    trials = 4000
    exact = _shoot(attacker, target, precision_group=pg)
    sims = simulate_40k(attacker, target, trials, seed=41, precision_group=pg)
    for index, pmf in ((0, exact.models_lost), (1, exact.wounds_lost)):
        se = math.sqrt(variance(pmf) / trials)
        assert abs(sum(s[index] for s in sims) / trials - mean(pmf)) <= 4 * se + 1e-9
    for k, p in enumerate(exact.models_lost):
        freq = sum(1 for s in sims if s[0] == k) / trials
        assert abs(freq - p) <= 4 * math.sqrt(p * (1 - p) / trials) + 1e-9


_KEYWORD_IDS = {"Devastating Wounds": ("devastating-wounds", None), "Melta 2": ("melta", {"value": 2}),
                "Anti-Infantry 4+": ("anti", {"target_keyword": "INFANTRY", "threshold": 4})}

CROSS_KEYWORDS = [
    (Weapon40k("dev", 2, 3, 4, -1, 1, keywords=("Devastating Wounds",)), 10, Group40k("m", 20, 4, 1, 3), ()),
    (Weapon40k("anti", 2, 3, 3, 0, 1, keywords=("Anti-Infantry 4+", "Devastating Wounds")), 5,
     Group40k("g", 30, 5, 1, 4), ("INFANTRY",)),
    (Weapon40k("anti-miss", 2, 3, 3, 0, 1, keywords=("Anti-Infantry 4+",)), 5, Group40k("g", 30, 5, 1, 4),
     ("VEHICLE",)),
    (Weapon40k("melta", 1, 3, 9, -4, "D6", keywords=("Melta 2",)), 2, Group40k("r", 2, 10, 12, 3, invuln=5), ()),
]


@pytest.mark.parametrize("weapon, models, group, keywords", CROSS_KEYWORDS, ids=[c[0].name for c in CROSS_KEYWORDS])
def test_keywords_cross_check_with_wh40kdc_cruncher(weapon: Weapon40k, models: int, group: Group40k,
                                                    keywords: tuple[str, ...]) -> None:
    half = "Melta 2" in weapon.keywords
    cruncher = pytest.importorskip("wh40kdc.cruncher")
    inp_stages = _cruncher_stages_with(cruncher, weapon, models, group, keywords, half)
    r = _shoot(Attacker40k("a", models, weapon, half_range=half), Target40k("u", (group,), keywords=keywords))
    assert mean(r.wounding) == pytest.approx(inp_stages["wounds"])
    assert (mean(r.wounding) - mean(r.no_save)) * r.group_unsaved[0] == pytest.approx(inp_stages["unsaved"])
    dmg = mean(wh40k._damage(weapon, half))
    assert (inp_stages["unsaved"] + mean(r.no_save)) * dmg == pytest.approx(inp_stages["damage"])


def _cruncher_stages_with(cruncher: Any, weapon: Weapon40k, models: int, group: Group40k,
                          keywords: tuple[str, ...], half: bool) -> dict[str, float]:
    kws = []
    for k in weapon.keywords:
        kid, params = _KEYWORD_IDS[k]
        kws.append({"keyword_id": kid, **({"parameters": params} if params else {})})
    profile: dict[str, Any] = {"T": group.toughness, "Sv": group.save, "W": group.wounds}
    if group.invuln is not None:
        profile["invuln_sv"] = group.invuln
    inp = {"attacker": {"weapon": {"id": "w", "profiles": [{"range": 24, "keywords": kws, "stats": {
        "A": weapon.attacks, "BS": weapon.bs, "S": weapon.strength, "AP": weapon.ap, "D": weapon.damage}}]},
        "profileIndex": 0},
        "target": {"unit": {"id": "u", "profiles": [profile], "keywords": list(keywords)}, "profileIndex": 0,
                   "modelCount": group.models},
        "modelsFiring": models, "context": {"withinHalfRange": True} if half else {}, "buffs": []}
    return {s["name"]: s["expected"] for s in cruncher.crunch(inp)["stages"]}
