"""Warhammer 40,000 10th/11th-edition shooting: hit, wound, save, damage and wound allocation.

Sources: RULES.md (benefit of cover per edition) and seed text 004 (11th edition: allocation groups,
attached-unit Toughness). Interpretations are listed in :data:`INTERPRETATIONS` and in each result.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from planner.combat.allocation import Group, allocate
from planner.combat.dice import Pmf, binomial, convolve, d6_at_least, parse_dice, power, trim
from planner.combat.result import VolleyResult

COVER_RULES = ("save", "bs")
"""Benefit of cover: ``"save"`` +1 to the armour save (10th), ``"bs"`` BS worsened by 1 (11th)."""
SUPPORTED_KEYWORDS = ("lethal hits", "sustained hits", "torrent", "ignores cover", "heavy", "twin-linked",
                      "rapid fire", "blast")

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
    out: dict[str, int] = {}
    for k in weapon.keywords:
        parts = k.strip().lower().replace("-", " ").split()
        if parts and parts[-1].isdigit():
            out[" ".join(parts[:-1]).replace("twin linked", "twin-linked")] = int(parts[-1])
        else:
            out[" ".join(parts).replace("twin linked", "twin-linked")] = 1
    return out


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


def shoot(attacker: Attacker40k, target: Target40k, *, cover: str = "bs", ruleset: str = "wh40k11") -> VolleyResult:
    """Exact distribution of one 40k shooting attack; ``cover`` is the ruleset's
    ``COVER_IN_SHOOTING`` (:data:`COVER_RULES`), ``ruleset`` names it in the result.

    Raises ValueError for an unknown cover rule or a bad dice value.
    """
    if cover not in COVER_RULES:
        raise ValueError(f"cover rule {cover!r} is not one of {COVER_RULES}")
    w = attacker.weapon
    kw = _kw(w)
    p_norm, p_crit = hit_probabilities(attacker, target, cover)
    t = wound_toughness(target)
    pw = d6_at_least(to_wound(w.strength, t))
    if "twin-linked" in kw:
        pw = pw + (1 - pw) * pw
    roll = (1 - pw, pw)
    sustained = kw.get("sustained hits", 0)
    crit = power(roll, sustained)
    crit = convolve(crit, (0.0, 1.0) if "lethal hits" in kw else roll)
    per_attack = [1 - p_norm - p_crit, 0.0]
    per_attack[0] += p_norm * roll[0]
    per_attack[1] += p_norm * roll[1]
    per_attack += [0.0] * (len(crit) - len(per_attack))
    for k, p in enumerate(crit):
        per_attack[k] += p_crit * p
    wounds: list[float] = []
    for a, pa in enumerate(attacks_pmf(attacker, target)):
        if pa:
            for k, p in enumerate(power(per_attack, a)):
                if k >= len(wounds):
                    wounds.extend([0.0] * (k + 1 - len(wounds)))
                wounds[k] += pa * p
    dmg = parse_dice(w.damage)
    groups = [Group(g.name, g.models, g.wounds, 1 - d6_at_least(save_need(g, w, target, cover)),
                    _damage_after_fnp(dmg, g.fnp), g.character, g.wounded) for g in target.groups]
    counts = {(0, k): p for k, p in enumerate(wounds)}
    chain = allocate(groups, counts, allocation_order(target.groups))
    notes = list(INTERPRETATIONS)
    unknown = [k for k in kw if k not in SUPPORTED_KEYWORDS]
    if unknown:
        notes.append(f"Keywords not modelled: {', '.join(sorted(unknown))}.")
    mean_attacks = sum(a * p for a, p in enumerate(attacks_pmf(attacker, target)))
    return VolleyResult.build(ruleset=ruleset, attacker=attacker.name, target=target.name,
                              attacks=round(mean_attacks), p_hit=p_norm + p_crit, p_wound=pw,
                              wounding=tuple(wounds), chain=chain, groups=groups, interpretations=tuple(notes))
