"""Horus Heresy 2.0 shooting: to hit by BS, S against T, saves, Instant Death and the seed rules.

Sources: the HH2 core rules as summarised in RULES.md and the seed texts 000/001/004 (Precision
Shots, Marked for Death, Shrouded (X), Stupefied, Relentless). Every interpretation the texts
leave open is listed in :data:`INTERPRETATIONS` and repeated in each result.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from planner.combat.allocation import Group, allocate
from planner.combat.dice import binomial, d6_at_least
from planner.combat.memo import memoised
from planner.combat.result import VolleyResult

INTERPRETATIONS = (
    "To hit (BS 1-5): 7 - BS or more; BS 6-10 hit on 2+ and a failed roll is re-rolled needing 6+/5+/4+/3+/2+.",
    "Snap Shots hit on 6+ whatever the BS and can never be Precision Shots.",
    "To wound: S >= T+2 2+, S = T+1 3+, S = T 4+, S = T-1 5+, S = T-2 or T-3 6+, lower cannot wound.",
    "Instant Death when S >= 2 x T: each unsaved wound removes the model whatever its wounds.",
    "One save per wound: the best of armour (none if AP <= Sv), invulnerable and cover (none vs Ignores Cover).",
    "Damage mitigation: one roll per unsaved wound, the best one allowed (Shrouded (X): not vs melee, "
    "Ignores Cover or Fearless models; Stupefied 6+, 5+ if Fearless: not vs Instant Death).",
    "Precision Shots: a hit whose final To Hit roll (re-roll included) is X or more; their wounds are "
    "resolved first, against the group the attacker picks (default: the one that costs the target most "
    "models in expectation), then in the normal order once it is gone.",
    "Wound allocation: the groups in the order given (closest model first); each group's wounded model first.",
    "Wound rolls use the majority Toughness of the target (a tie: the highest); Instant Death is judged per model.",
    "Marked for Death: failed To Wound rolls of 1 are re-rolled once.",
    "Heavy and Ordnance weapons fire Snap Shots after moving unless the firer is Relentless; a Stupefied "
    "firer fires Snap Shots only and has +1 Strength.",
)

_REROLL_NEED = {6: 6, 7: 5, 8: 4, 9: 3, 10: 2}


def to_hit(bs: int, *, snap: bool = False) -> tuple[int, int | None]:
    """(first roll needed, re-roll needed or None) for BS ``bs``; raises ValueError outside 1-10."""
    if not 1 <= bs <= 10:
        raise ValueError(f"BS {bs} is outside 1-10")
    if snap:
        return 6, None
    if bs <= 5:
        return 7 - bs, None
    return 2, _REROLL_NEED[bs]


def to_wound(strength: int, toughness: int) -> int | None:
    """D6 score needed to wound (2-6), or None when S cannot wound T."""
    d = toughness - strength
    if d <= -2:
        return 2
    if d >= 4:
        return None
    return {-1: 3, 0: 4, 1: 5, 2: 6, 3: 6}[d]


@dataclass(frozen=True)
class HHWeapon:
    """A Horus Heresy weapon profile: ``shots`` per model, S, AP (None: '-'), type, special rules."""

    name: str
    strength: int
    shots: int = 1
    ap: int | None = None
    type: str = "Assault"  # Assault, Heavy, Rapid Fire, Ordnance, Pistol, Melee, ...
    range_in: float = 24.0
    precision: int | None = None  # Precision Shots (X+)
    ignores_cover: bool = False
    instant_death: bool = False
    lance: bool = False  # vs vehicles: an Armour Value above 12 counts as 12 (planner.combat.vehicles)
    melta: bool = False  # vs vehicles: one more penetration D6 within half range
    armourbane: bool = False  # vs vehicles: one more penetration D6
    unmodelled: tuple[str, ...] = ()  # the profile's special rules the dice maths does not use (stated)


@dataclass(frozen=True)
class HHTargetGroup:
    """Models of the target with one profile: T, W, Sv, invulnerable and cover saves (X+)."""

    name: str
    models: int
    toughness: int
    wounds: int = 1
    save: int | None = None
    invuln: int | None = None
    cover: int | None = None
    character: bool = False
    wounded: int = 0


@dataclass(frozen=True)
class HHTarget:
    """A target unit: its groups in allocation order and its unit-wide rules."""

    name: str
    groups: tuple[HHTargetGroup, ...]
    shrouded: int | None = None  # Shrouded (X+); a bare Shrouded is 6
    fearless: bool = False
    stupefied: bool = False


@dataclass(frozen=True)
class HHAttacker:
    """The firing unit: models firing, BS and its rules; ``moved`` this turn."""

    name: str
    models: int
    bs: int
    weapon: HHWeapon
    moved: bool = False
    relentless: bool = False
    stupefied: bool = False
    marked_for_death: bool = False  # the target is the unit this player marked
    extra_rules: tuple[str, ...] = field(default_factory=tuple)


def _hit_probs(bs: int, snap: bool, precision: int | None) -> tuple[float, float]:
    """(P(normal hit), P(precision hit)) of one shot."""
    first, reroll = to_hit(bs, snap=snap)
    if snap or precision is None:
        p = d6_at_least(first) + (1 - d6_at_least(first)) * (d6_at_least(reroll) if reroll else 0.0)
        return p, 0.0
    px = max(precision, first)
    prec = d6_at_least(px)
    normal = d6_at_least(first) - prec
    if reroll:
        miss = 1 - d6_at_least(first)
        prec_r = d6_at_least(max(precision, reroll))
        prec += miss * prec_r
        normal += miss * (d6_at_least(reroll) - prec_r)
    return normal, prec


def unit_toughness(target: HHTarget) -> int:
    """The Toughness the wound roll uses: the majority's (most models); a tie takes the highest."""
    by_t: dict[int, int] = {}
    for g in target.groups:
        by_t[g.toughness] = by_t.get(g.toughness, 0) + g.models
    return max(by_t, key=lambda t: (by_t[t], t))


def wound_probability(strength: int, toughness: int, marked: bool) -> float:
    """P(one hit wounds), with Marked for Death's re-roll of failed 1s."""
    need = to_wound(strength, toughness)
    if need is None:
        return 0.0
    p = d6_at_least(need)
    return p + p / 6.0 if marked else p


def save_fail(group: HHTargetGroup, weapon: HHWeapon) -> float:
    """P(the model fails its one save): the best of armour, invulnerable and cover."""
    options = []
    if group.save is not None and (weapon.ap is None or weapon.ap > group.save):
        options.append(group.save)
    if group.invuln is not None:
        options.append(group.invuln)
    if group.cover is not None and not weapon.ignores_cover and weapon.type != "Melee":
        options.append(group.cover)
    best = min(options) if options else 7
    return 1 - d6_at_least(max(2, best))


def mitigation_need(target: HHTarget, weapon: HHWeapon, instant_death: bool) -> int | None:
    """The best Damage Mitigation roll allowed (D6 score to ignore a wound), or None."""
    needs = []
    if target.shrouded is not None and not target.fearless and weapon.type != "Melee" and not weapon.ignores_cover:
        needs.append(target.shrouded)
    if target.stupefied and not instant_death:
        needs.append(5 if target.fearless else 6)
    return min(needs) if needs else None


def shoot(attacker: HHAttacker, target: HHTarget, *, precision_group: int | None = None) -> VolleyResult:
    """Exact distribution of one Horus Heresy shooting attack of ``attacker`` at ``target``.

    Returns a :class:`planner.combat.result.VolleyResult` (counts: wounding hits, failed saves,
    wounds lost, models lost); memoised on the (frozen) arguments. Raises ValueError for an
    out-of-range BS.
    """
    return _shoot(attacker, target, precision_group)


@memoised
def _shoot(attacker: HHAttacker, target: HHTarget, precision_group: int | None) -> VolleyResult:
    w = attacker.weapon
    snap = attacker.stupefied or (attacker.moved and w.type in ("Heavy", "Ordnance") and not attacker.relentless)
    strength = w.strength + (1 if attacker.stupefied else 0)
    p_norm, p_prec = _hit_probs(attacker.bs, snap, w.precision)
    t = unit_toughness(target)
    pw = wound_probability(strength, t, attacker.marked_for_death)
    n = attacker.models * w.shots
    a, b = p_prec * pw, p_norm * pw
    # multinomial (precision, normal, none) as Binomial(n, a) x Binomial(n - kp, b / (1 - a))
    counts: dict[tuple[int, int], float] = {}
    rest = b / (1 - a) if a < 1 else 0.0
    for kp, pk in enumerate(binomial(n, a)):
        if pk:
            for kn, pn in enumerate(binomial(n - kp, rest)):
                if pn:
                    counts[(kp, kn)] = pk * pn
    if not counts:
        counts[(0, 0)] = 1.0
    groups = []
    for g in target.groups:
        inst = w.instant_death or strength >= 2 * g.toughness
        need = mitigation_need(target, w, inst)
        keep = 1 - d6_at_least(need) if need is not None else 1.0
        dmg = g.wounds if inst else 1
        damage = [0.0] * (dmg + 1)
        damage[0] += 1 - keep
        damage[dmg] += keep
        groups.append(Group(g.name, g.models, g.wounds, save_fail(g, w), tuple(damage), g.character, g.wounded))
    order = list(range(len(groups)))
    notes = list(INTERPRETATIONS)
    if snap:
        notes.append(f"{attacker.name} fires Snap Shots.")
    if w.unmodelled:
        notes.append(f"Keywords not modelled: {', '.join(w.unmodelled)}.")
    if p_prec and len(groups) > 1:
        if precision_group is None:
            best = None
            for gi in order:
                r = allocate(groups, counts, order, [gi, *[i for i in order if i != gi]])
                key = sum(k * p for k, p in enumerate(r.models_lost))
                if best is None or key > best[0] + 1e-12:
                    best = (key, gi, r)
            assert best is not None
            _, precision_group, chain = best
        else:
            chain = allocate(groups, counts, order, [precision_group, *[i for i in order if i != precision_group]])
        notes.append(f"Precision wounds allocated to {groups[precision_group].name}.")
    else:
        chain = allocate(groups, counts, order)
    return VolleyResult.build(
        ruleset="hh2",
        attacker=attacker.name,
        target=target.name,
        attacks=n,
        p_hit=p_norm + p_prec,
        p_wound=pw,
        wounding=_marginal_total(counts),
        chain=chain,
        groups=groups,
        interpretations=tuple(notes),
    )


def _marginal_total(counts: dict[tuple[int, int], float]) -> tuple[float, ...]:
    top = max(kp + kn for kp, kn in counts)
    out = [0.0] * (top + 1)
    for (kp, kn), p in counts.items():
        out[kp + kn] += p
    return tuple(out)
