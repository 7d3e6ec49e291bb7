"""Warhammer 40,000 10th/11th-edition shooting: hit, wound, save, damage and wound allocation.

Sources: RULES.md (benefit of cover per edition) and seed text 004 (11th edition: allocation groups,
attached-unit Toughness). Interpretations are listed in :data:`INTERPRETATIONS` and in each result.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from planner.combat.allocation import ChainResult, Group, Kind, allocate_kinds
from planner.combat.dice import Pmf, binomial, convolve, d6_at_least, parse_dice, power, trim
from planner.combat.memo import memoised
from planner.combat.result import VolleyResult

COVER_RULES = ("save", "bs")
"""Benefit of cover: ``"save"`` +1 to the armour save (10th), ``"bs"`` BS worsened by 1 (11th)."""
SUPPORTED_KEYWORDS = ("lethal hits", "sustained hits", "torrent", "ignores cover", "heavy", "twin-linked",
                      "rapid fire", "blast", "devastating wounds", "melta", "precision", "anti")
"""Weapon keywords the maths models (``anti`` stands for every ``Anti-X Y+``); 11th-edition
bracketed abilities (``[Lethal Hits]``) are read the same way."""

INTERPRETATIONS = (
    "Hit: BS X+ with the sum of modifiers capped at +/-1; an unmodified 1 fails and an unmodified 6 hits "
    "(a Critical Hit: Lethal Hits wounds automatically, Sustained Hits X adds X hits).",
    "Wound: S >= 2T 2+, S > T 3+, S = T 4+, S < T 5+, 2S <= T 6+; an unmodified 1 fails, a 6 wounds.",
    "Save: Sv worsened by AP, the invulnerable save if better (AP does not apply); an unmodified 1 fails.",
    "Benefit of cover: 10th +1 to the armour save (not Sv 3+ or better vs AP 0); 11th the attack's BS is "
    "worsened by 1; neither against Ignores Cover or Torrent (no hit roll).",
    "Damage: rolled per failed save; a model is destroyed at 0 wounds and excess damage is lost; Feel No "
    "Pain X+ is rolled per wound lost.",
    "Allocation: groups in order: non-CHARACTER groups (a group with a wounded model first, then the "
    "order given), then CHARACTER groups (wounded first); each group's wounded model first; the save is "
    "that group's.",
    "Toughness: the highest T among bodyguard (non-CHARACTER) models of an attached unit, else the highest "
    "T in the unit, at the start of the attack.",
)

KEYWORD_INTERPRETATIONS = {
    "devastating wounds": (
        "Devastating Wounds (not in the source texts; the 10th-edition wording as updated in 2024, the same "
        "ruling for 11th): a Critical Wound (an unmodified wound roll of 6, or the Anti-X value) allows no "
        "save of any kind, invulnerable included; its damage is applied as normal (excess lost, Feel No Pain "
        "allowed), and these attacks are allocated after the unit's other attacks."),
    "anti": (
        "Anti-X Y+ (not in the source texts; 10th-edition wording, the same ruling for 11th): against a target "
        "with keyword X (any model's, the unit has them all: seed 004) an unmodified wound roll of Y+ is a "
        "Critical Wound, which always wounds."),
    "melta": (
        "Melta X (not in the source texts; 10th-edition wording, the same ruling for 11th): within half range "
        "the attack's Damage is increased by X."),
    "precision": (
        "Precision ([Precision] in 11th, seed 004 lists it; its text is not in the sources): each attack that "
        "wounds an attached unit may be allocated to a visible CHARACTER model (assumed visible) instead of "
        "the normal order; the attacker picks the CHARACTER group (default: the choice, a character or none, "
        "that costs the target most models in expectation), then the normal order once it is gone. 10th "
        "allocates to a CHARACTER model, 11th to a CHARACTER group (seed 004); each CHARACTER model is its own "
        "group, so the numbers agree."),
}


@dataclass(frozen=True)
class Weapon40k:
    """A 40k weapon profile: A (int or dice), BS (X+), S, AP (0 or negative), D (int or dice), keywords."""

    name: str
    attacks: int | str
    bs: int
    strength: int
    ap: int = 0
    damage: int | str = 1
    range_in: float = 24.0
    keywords: tuple[str, ...] = ()


@dataclass(frozen=True)
class Group40k:
    """Target models sharing T, W, Sv, InSv (or one CHARACTER model): ``wounded`` wounds already lost."""

    name: str
    models: int
    toughness: int
    wounds: int
    save: int
    invuln: int | None = None
    character: bool = False
    wounded: int = 0
    fnp: int | None = None


@dataclass(frozen=True)
class Target40k:
    """A target unit: its groups, whether it is an attached unit, whether it has the benefit of cover."""

    name: str
    groups: tuple[Group40k, ...]
    attached: bool = False
    in_cover: bool = False
    keywords: tuple[str, ...] = ()  # the unit's keywords (every model's), for Anti-X


@dataclass(frozen=True)
class Attacker40k:
    """The firing unit: ``models`` firing ``weapon``; stationary (Heavy); within half range (Rapid Fire)."""

    name: str
    models: int
    weapon: Weapon40k
    stationary: bool = False
    half_range: bool = False
    hit_modifier: int = 0
    extra: tuple[str, ...] = field(default_factory=tuple)


def _kw(weapon: Weapon40k) -> dict[str, int]:
    """Weapon keywords, lower case, brackets stripped, with their number (1 when none): ``Sustained
    Hits 2`` -> ``{"sustained hits": 2}``, ``[Lethal Hits]`` -> ``{"lethal hits": 1}``,
    ``Anti-Infantry 4+`` -> ``{"anti infantry": 4}``."""
    from planner.schema import keyword_list

    out: dict[str, int] = {}
    for k in keyword_list(list(weapon.keywords)):
        parts = k.lower().replace("-", " ").split()
        if parts and parts[-1].rstrip("+").isdigit():
            out[" ".join(parts[:-1]).replace("twin linked", "twin-linked")] = int(parts[-1].rstrip("+"))
        else:
            out[" ".join(parts).replace("twin linked", "twin-linked")] = 1
    return out


def _modelled(key: str) -> bool:
    return key in SUPPORTED_KEYWORDS or key.startswith("anti ")


def critical_wound_need(weapon: Weapon40k, target: Target40k) -> int:
    """The unmodified wound roll that is a Critical Wound: 6, or Y for an ``Anti-X Y+`` whose X is
    one of the target unit's keywords (case-insensitive; the lowest Y when several apply)."""
    kw = _kw(weapon)
    have = {k.strip().lower().replace("-", " ") for k in target.keywords}
    needs = [v for k, v in kw.items() if k.startswith("anti ") and k[5:] in have]
    return max(2, min([6, *needs]))


def to_wound(strength: int, toughness: int) -> int:
    """D6 score needed to wound (2-6)."""
    if strength >= 2 * toughness:
        return 2
    if strength > toughness:
        return 3
    if strength == toughness:
        return 4
    if 2 * strength > toughness:
        return 5
    return 6


def wound_toughness(target: Target40k) -> int:
    """T for the wound roll: attached unit's bodyguard models' highest, else the unit's highest."""
    bodyguard = [g.toughness for g in target.groups if not g.character and g.models]
    if target.attached and bodyguard:
        return max(bodyguard)
    return max(g.toughness for g in target.groups if g.models)


def allocation_order(groups: tuple[Group40k, ...]) -> list[int]:
    """The 11th-edition group order (seed 004): non-characters, wounded first; then characters, wounded first."""
    idx = list(range(len(groups)))
    return sorted(idx, key=lambda i: (groups[i].character, groups[i].wounded == 0, i))


def hit_probabilities(attacker: Attacker40k, target: Target40k, cover: str) -> tuple[float, float]:
    """(P(non-critical hit), P(critical hit)) of one attack."""
    kw = _kw(attacker.weapon)
    if "torrent" in kw:
        return 1.0, 0.0
    need = attacker.weapon.bs
    if cover == "bs" and target.in_cover and "ignores cover" not in kw:
        need += 1
    mod = attacker.hit_modifier + (1 if "heavy" in kw and attacker.stationary else 0)
    mod = max(-1, min(1, mod))
    eff = max(2, min(6, need - mod))  # 1 always fails, 6 always hits
    p = d6_at_least(eff)
    return p - 1 / 6, 1 / 6


def save_need(group: Group40k, weapon: Weapon40k, target: Target40k, cover: str) -> int:
    """D6 score the model needs to save (7: no save)."""
    kw = _kw(weapon)
    armour = group.save - weapon.ap
    if (cover == "save" and target.in_cover and "ignores cover" not in kw and "torrent" not in kw
            and not (group.save <= 3 and weapon.ap == 0)):
        armour -= 1
    armour = max(2, armour)
    best = min(armour, group.invuln) if group.invuln is not None else armour
    return min(7, max(2, best))


def _damage_after_fnp(damage: Pmf, fnp: int | None) -> Pmf:
    if fnp is None:
        return damage
    keep = 1 - d6_at_least(fnp)
    out: Pmf = (0.0,)
    total = [0.0] * len(damage)
    for d, p in enumerate(damage):
        for k, q in enumerate(binomial(d, keep)):
            total[k] += p * q
    out = tuple(total)
    return trim(out)


def attacks_pmf(attacker: Attacker40k, target: Target40k) -> Pmf:
    """Distribution of the number of attacks (per-model dice summed; Rapid Fire X, Blast)."""
    kw = _kw(attacker.weapon)
    per = parse_dice(attacker.weapon.attacks)
    extra = (kw["rapid fire"] if "rapid fire" in kw and attacker.half_range else 0)
    if "blast" in kw:
        extra += sum(g.models for g in target.groups) // 5
    if extra:
        per = convolve(per, tuple([0.0] * extra + [1.0]))
    return power(per, attacker.models)


def wound_roll(weapon: Weapon40k, target: Target40k) -> tuple[float, float]:
    """(P(Critical Wound), P(other successful wound)) of one hit's wound roll, Twin-linked's re-roll
    of a failed roll included."""
    kw = _kw(weapon)
    need = to_wound(weapon.strength, wound_toughness(target))
    p_crit = d6_at_least(critical_wound_need(weapon, target))
    p = max(d6_at_least(need), p_crit)
    if "twin-linked" in kw:
        return p_crit * (2 - p), (p - p_crit) * (2 - p)
    return p_crit, p - p_crit


def _conv2(a: np.ndarray, k: np.ndarray) -> np.ndarray:
    """2-D convolution of a pmf ``a`` with a small kernel ``k`` (exact sums, no FFT)."""
    out = np.zeros((a.shape[0] + k.shape[0] - 1, a.shape[1] + k.shape[1] - 1))
    for (i, j), p in np.ndenumerate(k):
        if p:
            out[i:i + a.shape[0], j:j + a.shape[1]] += p * a
    return out


def wound_counts(attacker: Attacker40k, target: Target40k, cover: str) -> np.ndarray:
    """Joint pmf ``m[n, c]`` of the volley's wounding attacks: ``n`` that allow saves, ``c``
    Critical Wounds of a Devastating Wounds weapon (no save); ``c`` is 0 without Devastating Wounds."""
    w = attacker.weapon
    kw = _kw(w)
    p_norm, p_crit_hit = hit_probabilities(attacker, target, cover)
    pc, pn = wound_roll(w, target)
    if "devastating wounds" not in kw:
        pc, pn = 0.0, pc + pn
    one = np.array([[1 - pc - pn, pn], [pc, 0.0]])  # [crit wounds, other wounds] of one hit
    sustained = kw.get("sustained hits", 0)
    crit = np.array([[1.0]])
    for _ in range(sustained):
        crit = _conv2(crit, one)
    crit = _conv2(crit, np.array([[0.0, 1.0]]) if "lethal hits" in kw else one)
    per = np.zeros((max(2, crit.shape[0]), max(2, crit.shape[1])))
    per[0, 0] += 1 - p_norm - p_crit_hit
    per[:2, :2] += p_norm * one
    per[:crit.shape[0], :crit.shape[1]] += p_crit_hit * crit
    per = per.T  # [other, crit]
    total = np.zeros((1, 1))
    acc = np.array([[1.0]])
    for a, pa in enumerate(attacks_pmf(attacker, target)):
        if a:
            acc = _conv2(acc, per)
        if pa:
            if total.shape != acc.shape:
                grown = np.zeros(acc.shape)
                grown[:total.shape[0], :total.shape[1]] = total
                total = grown
            total += pa * acc
    return total


def _damage(weapon: Weapon40k, half_range: bool) -> Pmf:
    dmg = parse_dice(weapon.damage)
    melta = _kw(weapon).get("melta", 0)
    if melta and half_range:
        dmg = tuple([0.0] * melta) + dmg
    return dmg


def shoot(attacker: Attacker40k, target: Target40k, *, cover: str = "bs", ruleset: str = "wh40k11",
          precision_group: int | None = None) -> VolleyResult:
    """Exact distribution of one 40k shooting attack; ``cover`` is the ruleset's
    ``COVER_IN_SHOOTING`` (:data:`COVER_RULES`), ``ruleset`` names it in the result.

    ``precision_group``: for a Precision weapon against an attached unit, the CHARACTER group (index
    into ``target.groups``) its attacks go to (default: the attacker's best choice). Results are
    memoised on the (frozen) arguments. Raises ValueError for an unknown cover rule, a bad dice value
    or a ``precision_group`` that is not a CHARACTER group.
    """
    if cover not in COVER_RULES:
        raise ValueError(f"cover rule {cover!r} is not one of {COVER_RULES}")
    return _shoot(attacker, target, cover, ruleset, precision_group)


@memoised
def _shoot(attacker: Attacker40k, target: Target40k, cover: str, ruleset: str,
           precision_group: int | None) -> VolleyResult:
    w = attacker.weapon
    kw = _kw(w)
    p_norm, p_crit = hit_probabilities(attacker, target, cover)
    pc, pn = wound_roll(w, target)
    pw = pc + pn
    counts2 = wound_counts(attacker, target, cover)
    dmg = _damage(w, attacker.half_range)
    groups = tuple(Group(g.name, g.models, g.wounds, 1 - d6_at_least(save_need(g, w, target, cover)),
                         _damage_after_fnp(dmg, g.fnp), g.character, g.wounded) for g in target.groups)
    no_save = tuple(Group(g.name, g.models, g.wounds, 1.0, g.damage, g.character, g.wounded) for g in groups)
    order = tuple(allocation_order(target.groups))
    devastating = "devastating wounds" in kw
    nz = np.nonzero(counts2)
    counts: dict[tuple[int, ...], float] = {(int(n), int(c)): float(counts2[n, c]) for n, c in zip(*nz, strict=True)}
    notes = list(INTERPRETATIONS)
    notes += [v for k, v in KEYWORD_INTERPRETATIONS.items() if k in kw or (k == "anti" and any(
        x.startswith("anti ") for x in kw))]

    def run(first: int | None) -> ChainResult:
        o = order if first is None else (first, *[i for i in order if i != first])
        if devastating:
            return allocate_kinds((Kind(groups, o), Kind(no_save, o)), counts)
        return allocate_kinds((Kind(groups, o),), {(n,): p for (n, _c), p in counts.items()})

    chars = [i for i, g in enumerate(target.groups) if g.character and g.models]
    use_precision = "precision" in kw and target.attached and bool(chars) and len(target.groups) > 1
    if precision_group is not None and (precision_group not in chars or not use_precision):
        raise ValueError(f"precision_group {precision_group!r} is not a CHARACTER group of an attached unit "
                         f"hit by a Precision weapon")
    if use_precision:
        if precision_group is None:
            best: tuple[float, int | None, ChainResult] | None = None
            for option in [*chars, None]:
                r = run(option)
                key = sum(k * p for k, p in enumerate(r.models_lost))
                if best is None or key > best[0] + 1e-12:
                    best = (key, option, r)
            assert best is not None
            _, chosen, chain = best
        else:
            chosen, chain = precision_group, run(precision_group)
        notes.append(f"Precision attacks allocated to {target.groups[chosen].name}." if chosen is not None
                     else "Precision not used (the normal order costs the target more models).")
    else:
        chain = run(None)
    unknown = [k for k in kw if not _modelled(k)]
    if unknown:
        notes.append(f"Keywords not modelled: {', '.join(sorted(unknown))}.")
    if "melta" in kw and attacker.half_range:
        notes.append(f"Melta {kw['melta']}: within half range, +{kw['melta']} Damage.")
    mean_attacks = sum(a * p for a, p in enumerate(attacks_pmf(attacker, target)))
    wounding = [0.0] * (counts2.shape[0] + counts2.shape[1] - 1)
    for (n, c), p in counts.items():
        wounding[n + c] += p
    crit_only = [float(x) for x in counts2.sum(axis=0)]
    return VolleyResult.build(ruleset=ruleset, attacker=attacker.name, target=target.name,
                              attacks=round(mean_attacks), p_hit=p_norm + p_crit, p_wound=pw,
                              wounding=tuple(wounding), chain=chain, groups=groups, interpretations=tuple(notes),
                              no_save=trim(crit_only))
