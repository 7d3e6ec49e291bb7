"""40k dice maths: closed forms, 11th-edition allocation groups, attached Toughness, Monte Carlo,
and a cross-check of the expected stages against wh40kdc's calculator (``wh40kdc.cruncher``)."""

from __future__ import annotations

import math
from typing import Any

import pytest

from planner.combat import wh40k
from planner.combat.dice import mean, parse_dice, variance
from planner.combat.montecarlo import simulate_40k
from planner.combat.result import VolleyResult
from planner.combat.wh40k import Attacker40k, Group40k, Target40k, Weapon40k
from planner.combat.wh40k import shoot as _shoot
from planner.rules.registry import find_ruleset


def shoot(attacker: Attacker40k, target: Target40k, edition: str = "wh40k11") -> VolleyResult:
    """The dice maths with the ruleset's own benefit-of-cover rule."""
    cover = find_ruleset(edition).COVER_IN_SHOOTING
    assert cover is not None
    return _shoot(attacker, target, cover=cover, ruleset=edition)

BOLT = Weapon40k("bolt rifle", attacks=2, bs=3, strength=4, ap=-1, damage=1)


def _unit(models: int = 10, t: int = 4, w: int = 1, sv: int = 3, **kw: Any) -> Target40k:
    return Target40k("t", (Group40k("m", models, t, w, sv),), **kw)


def test_wound_table_boundaries() -> None:
    assert [wh40k.to_wound(s, 4) for s in (8, 5, 4, 3, 2)] == [2, 3, 4, 5, 6]
    assert wh40k.to_wound(2, 5) == 6 and wh40k.to_wound(3, 5) == 5


def test_closed_form_one_attack() -> None:
    a = Attacker40k("a", 1, Weapon40k("x", 1, 3, 4, -1, 1))
    r = shoot(a, _unit(models=1))
    assert r.models_lost[1] == pytest.approx(4 / 6 * 1 / 2 * 1 / 2)


@pytest.mark.parametrize("edition, p", [("wh40k11", 3 / 6 * 1 / 2 * 1 / 3), ("wh40k10", 4 / 6 * 1 / 2 * 1 / 3)])
def test_benefit_of_cover_per_edition(edition: str, p: float) -> None:
    # 11th: BS worsened by 1; 10th: +1 save, but not for Sv 3+ vs AP 0
    a = Attacker40k("a", 1, Weapon40k("x", 1, 3, 4, 0, 1))
    assert shoot(a, _unit(models=1, sv=3, in_cover=True), edition=edition).models_lost[1] == pytest.approx(p)
    b = Attacker40k("a", 1, Weapon40k("x", 1, 3, 4, -1, 1))
    expect10 = 4 / 6 * 1 / 2 * 1 / 3
    expect11 = 3 / 6 * 1 / 2 * 1 / 2
    got = shoot(b, _unit(models=1, sv=3, in_cover=True), edition=edition).models_lost[1]
    assert got == pytest.approx(expect10 if edition == "wh40k10" else expect11)
    ic = Attacker40k("a", 1, Weapon40k("x", 1, 3, 4, -1, 1, keywords=("Ignores Cover",)))
    assert shoot(ic, _unit(models=1, in_cover=True), edition=edition).models_lost[1] == pytest.approx(4 / 6 / 4)


def test_damage_spill_is_lost() -> None:
    # one D3 attack into W2 models can remove at most one model
    a = Attacker40k("a", 1, Weapon40k("x", 1, 2, 8, -3, "D3"))
    r = shoot(a, _unit(models=3, w=2, sv=3))
    assert len(r.models_lost) == 4 and r.models_lost[2] == 0.0
    p_unsaved = 5 / 6 * 5 / 6 * 5 / 6  # 2+ to hit, S8 vs T4 2+, Sv 3+ at AP-3 is 6+
    assert r.models_lost[1] == pytest.approx(p_unsaved * 2 / 3)


def test_feel_no_pain_per_wound() -> None:
    a = Attacker40k("a", 1, Weapon40k("x", 1, 2, 8, -4, 2))
    t = Target40k("t", (Group40k("m", 1, 4, 2, 6, fnp=5),))
    assert shoot(a, t).models_lost[1] == pytest.approx(5 / 6 * 5 / 6 * (4 / 6) ** 2)


def test_attached_unit_uses_bodyguard_toughness() -> None:
    leader = Group40k("captain", 1, 5, 5, 2, invuln=4, character=True)
    guard = Group40k("intercessors", 5, 4, 2, 3)
    assert wh40k.wound_toughness(Target40k("u", (leader, guard), attached=True)) == 4
    assert wh40k.wound_toughness(Target40k("u", (leader, guard), attached=False)) == 5
    # once the bodyguard is gone the leader's own T
    assert wh40k.wound_toughness(Target40k("u", (leader, Group40k("x", 0, 4, 2, 3)), attached=True)) == 5


def test_11th_allocation_groups_characters_last_wounded_first() -> None:
    groups = (Group40k("captain", 1, 4, 5, 2, character=True), Group40k("a", 3, 4, 2, 3),
              Group40k("b", 2, 4, 3, 3, wounded=1), Group40k("lt", 1, 4, 4, 3, character=True, wounded=2))
    assert wh40k.allocation_order(groups) == [2, 1, 3, 0]
    # an S4 AP0 D1 volley vs a unit of 1 wounded W2 model and a character: the wounded model goes first
    t = Target40k("u", (Group40k("chr", 1, 4, 1, 7, character=True), Group40k("m", 1, 4, 2, 7, wounded=1)))
    r = shoot(Attacker40k("a", 1, Weapon40k("x", 1, 2, 4, 0, 1)), t)
    assert r.group_models_lost_mean == pytest.approx((0.0, 5 / 6 * 1 / 2))


def test_keywords_lethal_sustained_torrent() -> None:
    lethal = Attacker40k("a", 1, Weapon40k("x", 1, 4, 4, 0, 1, keywords=("Lethal Hits",)))
    assert shoot(lethal, _unit(models=1, sv=7)).wounding[1] == pytest.approx(1 / 6 + 2 / 6 * 1 / 2)
    sus = Attacker40k("a", 1, Weapon40k("x", 1, 4, 4, 0, 1, keywords=("Sustained Hits 2",)))
    r = shoot(sus, _unit(models=5, sv=7))
    assert mean(r.wounding) == pytest.approx(2 / 6 * 1 / 2 + 1 / 6 * 3 * 1 / 2)
    torrent = Attacker40k("a", 1, Weapon40k("x", 1, 6, 4, 0, 1, keywords=("Torrent",)))
    assert shoot(torrent, _unit(models=1, sv=7, in_cover=True)).models_lost[1] == pytest.approx(1 / 2)
    unknown = Attacker40k("a", 1, Weapon40k("x", 1, 4, 4, 0, 1, keywords=("Hazardous", "[Devastating Wounds]")))
    notes = shoot(unknown, _unit()).interpretations
    assert any(n == "Keywords not modelled: hazardous." for n in notes)
    assert any(n.startswith("Devastating Wounds") for n in notes)


def test_cover_rule_error() -> None:
    with pytest.raises(ValueError, match="'hit'"):
        _shoot(Attacker40k("a", 1, BOLT), _unit(), cover="hit")


MC_CASES = [
    (Attacker40k("intercessors", 10, BOLT), _unit(models=10, w=2, sv=3, in_cover=True), "wh40k11"),
    (Attacker40k("devastators", 4, Weapon40k("lascannon", 1, 3, 12, -3, "D6+1", keywords=("Heavy",)),
                 stationary=True),
     Target40k("bikes", (Group40k("b", 3, 5, 3, 3), Group40k("chaplain", 1, 5, 5, 3, invuln=4, character=True)),
               attached=True), "wh40k11"),
    (Attacker40k("hellblasters", 5, Weapon40k("plasma", "D3", 3, 8, -3, 2,
                                               keywords=("Rapid Fire 1", "Sustained Hits 1", "Twin-linked")),
                 half_range=True),
     Target40k("terminators", (Group40k("t", 5, 5, 3, 2, invuln=4, wounded=1, fnp=6),), in_cover=True), "wh40k10"),
]


@pytest.mark.parametrize("attacker, target, edition", MC_CASES, ids=[c[0].name for c in MC_CASES])
def test_monte_carlo_agrees_within_4_standard_errors(attacker: Attacker40k, target: Target40k, edition: str) -> None:
    trials = 4000
    exact = shoot(attacker, target, edition=edition)
    sims = simulate_40k(attacker, target, trials, seed=40, cover=find_ruleset(edition).COVER_IN_SHOOTING or "")
    for index, pmf in ((0, exact.models_lost), (1, exact.wounds_lost)):
        xs = [s[index] for s in sims]
        se = math.sqrt(variance(pmf) / trials)
        assert abs(sum(xs) / trials - mean(pmf)) <= 4 * se + 1e-9
    for k, p in enumerate(exact.models_lost):
        freq = sum(1 for s in sims if s[0] == k) / trials
        assert abs(freq - p) <= 4 * math.sqrt(p * (1 - p) / trials) + 1e-9


# ---- cross-check against wh40kdc's calculator (11th edition; expected values by stage) ----

cruncher = pytest.importorskip("wh40kdc.cruncher")

_KEYWORD_IDS = {"Lethal Hits": ("lethal-hits", None), "Sustained Hits 1": ("sustained-hits", {"value": 1}),
                "Twin-linked": ("twin-linked", None), "Ignores Cover": ("ignores-cover", None),
                "Torrent": ("torrent", None)}

CROSS = [
    (Weapon40k("bolt rifle", 2, 3, 4, -1, 1), 10, Group40k("m", 10, 4, 2, 3), False),
    (Weapon40k("plasma", 1, 3, 8, -3, 2, keywords=("Sustained Hits 1",)), 5, Group40k("t", 5, 5, 3, 2, invuln=4), False),
    (Weapon40k("heavy bolter", 3, 4, 5, -1, 2, keywords=("Lethal Hits",)), 4, Group40k("g", 20, 3, 1, 5), True),
    (Weapon40k("melta", 1, 3, 9, -4, "D6", keywords=("Twin-linked",)), 2, Group40k("r", 2, 10, 12, 3, invuln=5), True),
    (Weapon40k("flamer", "D6", 7, 4, 0, 1, keywords=("Torrent", "Ignores Cover")), 3, Group40k("g", 20, 3, 1, 5), True),
]


def _cruncher_stages(weapon: Weapon40k, models: int, group: Group40k, cover: bool) -> dict[str, float]:
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
        "target": {"unit": {"id": "u", "profiles": [profile], "keywords": []}, "profileIndex": 0,
                   "modelCount": group.models},
        "modelsFiring": models, "context": {},
        "buffs": [{"source": {"kind": "manual"}, "contribution": {"type": "cover"}}] if cover else []}
    return {s["name"]: s["expected"] for s in cruncher.crunch(inp)["stages"]}


@pytest.mark.parametrize("weapon, models, group, cover", CROSS, ids=[c[0].name for c in CROSS])
def test_cross_check_with_wh40kdc_cruncher(weapon: Weapon40k, models: int, group: Group40k, cover: bool) -> None:
    stages = _cruncher_stages(weapon, models, group, cover)
    target = Target40k("u", (group,), in_cover=cover)
    r = shoot(Attacker40k("a", models, weapon), target, edition="wh40k11")
    assert mean(r.wounding) == pytest.approx(stages["wounds"])
    # unsaved attacks: ours stop once the unit is gone; the calculator's do not (a tiny difference
    # only when the unit can be wiped out), so compare where the unit survives with certainty
    survive = r.models_lost[-1] == 0.0
    p_unsaved = r.group_unsaved[0]
    assert mean(r.wounding) * p_unsaved == pytest.approx(stages["unsaved"])
    assert stages["unsaved"] * mean(parse_dice(weapon.damage)) == pytest.approx(stages["damage"])
    if survive and group.wounds == 1:
        # one wound per model: every unsaved attack removes one model, whatever its damage (excess
        # damage is lost); the calculator's models-killed is damage / W, so it agrees only at D 1
        assert r.expected_models_lost == pytest.approx(stages["unsaved"])
        if weapon.damage == 1:
            assert r.expected_models_lost == pytest.approx(stages["models-killed"])
        else:
            assert r.expected_models_lost < stages["models-killed"]

