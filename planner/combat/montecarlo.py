"""Seeded Monte Carlo of the same shooting procedures, rolled die by die (for tests and checks).

``simulate_hh2`` and ``simulate_40k`` take the same records as the exact functions and return the
list of models lost per trial (and wounds lost), so the exact distributions can be checked against
independent dice rolls. They share only the rules tables (``to_hit``, ``to_wound``, save needs).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from planner.combat import hh2, vehicles, wh40k


@dataclass
class _Model:
    group: int
    wounds_left: int


def _d6(rng: random.Random) -> int:
    return rng.randint(1, 6)


def _roll_dice(rng: random.Random, value: int | str) -> int:
    if isinstance(value, int) or str(value).strip().isdigit():
        return int(value)
    s = str(value).upper().replace(" ", "")
    count_s, rest = s.split("D", 1)
    mod = 0
    for sign in "+-":
        if sign in rest:
            rest, m = rest.split(sign)
            mod = int(m) * (1 if sign == "+" else -1)
    faces = int(rest)
    total = sum(rng.randint(1, faces) for _ in range(int(count_s or 1))) + mod
    return max(0, total)


def _models(groups: list[tuple[int, int, int]]) -> list[list[_Model]]:
    """Per group (models, W, wounded): its models, the wounded one first."""
    out = []
    for i, (n, w, wounded) in enumerate(groups):
        out.append([_Model(i, w - (wounded if k == 0 else 0)) for k in range(n)])
    return out


def _apply(models: list[list[_Model]], order: list[int], unsaved_roll: Callable[[int], bool],
           damage_roll: Callable[[int], int]) -> int:
    """Allocate one wounding attack: returns wounds lost."""
    g = next((i for i in order if models[i]), None)
    if g is None:
        return 0
    if not unsaved_roll(g):
        return 0
    d = damage_roll(g)
    m = models[g][0]
    taken = min(d, m.wounds_left)
    m.wounds_left -= d
    if m.wounds_left <= 0:
        models[g].pop(0)
    return taken


def simulate_hh2(attacker: hh2.HHAttacker, target: hh2.HHTarget, trials: int, seed: int,
                 precision_group: int = 0) -> list[tuple[int, int]]:
    """(models lost, wounds lost) for each of ``trials`` rolled volleys."""
    rng = random.Random(seed)
    w = attacker.weapon
    snap = attacker.stupefied or (attacker.moved and w.type in ("Heavy", "Ordnance") and not attacker.relentless)
    s = w.strength + (1 if attacker.stupefied else 0)
    first, reroll = hh2.to_hit(attacker.bs, snap=snap)
    t = hh2.unit_toughness(target)
    wneed = hh2.to_wound(s, t)
    out = []
    for _ in range(trials):
        models = _models([(g.models, g.wounds, g.wounded) for g in target.groups])
        prec, norm = 0, 0
        for _shot in range(attacker.models * w.shots):
            r = _d6(rng)
            if r < first:
                if reroll is None:
                    continue
                r = _d6(rng)
                if r < reroll:
                    continue
            if wneed is None:
                continue
            wr = _d6(rng)
            if wr == 1 and attacker.marked_for_death:
                wr = _d6(rng)
            if wr < wneed:
                continue
            if not snap and w.precision is not None and r >= w.precision:
                prec += 1
            else:
                norm += 1
        lost = 0

        def unsaved(g: int) -> bool:
            grp = target.groups[g]
            return _d6(rng) < max(2, _best_save(grp, w))

        def damage(g: int) -> int:
            grp = target.groups[g]
            inst = w.instant_death or s >= 2 * grp.toughness
            need = hh2.mitigation_need(target, w, inst)
            if need is not None and _d6(rng) >= need:
                return 0
            return grp.wounds if inst else 1

        porder = [precision_group, *[i for i in range(len(target.groups)) if i != precision_group]]
        for _ in range(prec):
            lost += _apply(models, porder, unsaved, damage)
        for _ in range(norm):
            lost += _apply(models, list(range(len(target.groups))), unsaved, damage)
        dead = sum(g.models for g in target.groups) - sum(len(m) for m in models)
        out.append((dead, lost))
    return out


def _best_save(group: hh2.HHTargetGroup, w: hh2.HHWeapon) -> int:
    opts = [7]
    if group.save is not None and (w.ap is None or w.ap > group.save):
        opts.append(group.save)
    if group.invuln is not None:
        opts.append(group.invuln)
    if group.cover is not None and not w.ignores_cover and w.type != "Melee":
        opts.append(group.cover)
    return min(opts)


def simulate_40k(attacker: wh40k.Attacker40k, target: wh40k.Target40k, trials: int, seed: int,
                 cover: str = "bs", precision_group: int | None = None) -> list[tuple[int, int]]:
    """(models lost, wounds lost) for each of ``trials`` rolled volleys; ``precision_group``: the
    CHARACTER group a Precision weapon's attacks go to (None: the normal order)."""
    rng = random.Random(seed)
    w = attacker.weapon
    plain = [k.strip().strip("[]").strip() for k in w.keywords]
    kw = {k.lower().replace("-", " ").rstrip("0123456789+ ").replace("twin linked", "twin-linked"): k for k in plain}
    sustained = next((int(k.split()[-1]) for k in plain if k.lower().startswith("sustained")), 0)
    rapid = next((int(k.split()[-1]) for k in plain if k.lower().startswith("rapid")), 0)
    melta = next((int(k.split()[-1]) for k in plain if k.lower().startswith("melta")), 0)
    need = w.bs + (1 if cover == "bs" and target.in_cover and "ignores cover" not in kw else 0)
    mod = max(-1, min(1, attacker.hit_modifier + (1 if "heavy" in kw and attacker.stationary else 0)))
    t = wh40k.wound_toughness(target)
    wneed = wh40k.to_wound(w.strength, t)
    crit_need = 6
    have = {x.lower() for x in target.keywords}
    for k in plain:
        low = k.lower()
        if low.startswith("anti-") and low[5:].rsplit(" ", 1)[0] in have:
            crit_need = min(crit_need, int(low.rsplit(" ", 1)[1].rstrip("+")))
    devastating = "devastating wounds" in kw
    order = wh40k.allocation_order(target.groups)
    if precision_group is not None:
        order = [precision_group, *[i for i in order if i != precision_group]]
    out = []
    for _ in range(trials):
        n = 0
        for _m in range(attacker.models):
            n += _roll_dice(rng, w.attacks) + (rapid if attacker.half_range else 0)
            if "blast" in kw:
                n += sum(g.models for g in target.groups) // 5
        wounds, crits = 0, 0
        for _a in range(n):
            if "torrent" in kw:
                hits, auto = 1, 0
            else:
                r = _d6(rng)
                if r == 1 or (r != 6 and r + mod < need):
                    continue
                if r == 6:
                    hits = 1 + sustained
                    auto = 1 if "lethal hits" in kw else 0
                    hits -= auto
                else:
                    hits, auto = 1, 0
            wounds += auto
            for _h in range(hits):
                r = _d6(rng)
                if r < wneed and r < crit_need and "twin-linked" in kw:
                    r = _d6(rng)
                if r >= crit_need and devastating:
                    crits += 1
                elif r >= wneed or r >= crit_need:
                    wounds += 1
        models = _models([(g.models, g.wounds, g.wounded) for g in target.groups])
        def unsaved(g: int) -> bool:
            need_s = wh40k.save_need(target.groups[g], w, target, cover)
            r = _d6(rng)
            return r == 1 or r < need_s

        def damage(g: int) -> int:
            d = _roll_dice(rng, w.damage) + (melta if attacker.half_range else 0)
            fnp = target.groups[g].fnp
            if fnp is not None:
                d = sum(1 for _ in range(d) if _d6(rng) < fnp)
            return d

        lost = sum(_apply(models, order, unsaved, damage) for _ in range(wounds))
        # Devastating Wounds' Critical Wounds: allocated after the others, no save
        lost += sum(_apply(models, order, lambda g: True, damage) for _ in range(crits))
        dead = sum(g.models for g in target.groups) - sum(len(m) for m in models)
        out.append((dead, lost))
    return out


def simulate_hh2_vehicle(attacker: hh2.HHAttacker, vehicle: vehicles.HHVehicle, trials: int, seed: int,
                         facing: str = "front", half_range: bool = False,
                         glancing_hull_point: bool = False) -> list[tuple[int, int, int]]:
    """(vehicles destroyed, hull points lost, vehicles exploded) for each of ``trials`` rolled volleys
    (``glancing_hull_point``: the ruling of :func:`planner.combat.vehicles.shoot_vehicle`)."""
    rng = random.Random(seed)
    w = attacker.weapon
    snap = attacker.stupefied or (attacker.moved and w.type in ("Heavy", "Ordnance") and not attacker.relentless)
    s = w.strength + (1 if attacker.stupefied else 0)
    first, reroll = hh2.to_hit(attacker.bs, snap=snap)
    av = vehicle.armour(facing)
    if w.lance:
        av = min(av, 12)
    saves = [x for x in (vehicle.invuln,) if x is not None]
    if vehicle.cover is not None and not w.ignores_cover and w.type != "Melee":
        saves.append(vehicle.cover)
    shrouded = (vehicle.shrouded if vehicle.shrouded is not None and not vehicle.fearless
                and w.type != "Melee" and not w.ignores_cover else None)
    mod = {1: 2, 2: 1}.get(w.ap or 0, 0) - (1 if w.ap is None else 0) + (1 if vehicle.open_topped else 0)
    out = []
    for _ in range(trials):
        dead, boom, total = 0, 0, 0
        cur = vehicle.hull_points_lost
        for _shot in range(attacker.models * w.shots):
            if dead >= vehicle.models:
                break
            r = _d6(rng)
            if r < first and (reroll is None or _d6(rng) < reroll):
                continue
            pen_roll = max(_d6(rng), _d6(rng)) if w.type == "Ordnance" else _d6(rng)
            if w.armourbane or (w.melta and half_range):
                pen_roll += _d6(rng)
            value = s + pen_roll
            if value < av or (value == av and not glancing_hull_point):
                continue
            if saves and _d6(rng) >= max(2, min(saves)):
                continue
            if shrouded is not None and _d6(rng) >= shrouded:
                continue
            total += 1
            explodes = value > av and max(1, _d6(rng) + mod) >= 7
            if explodes or cur + 1 >= vehicle.hull_points:
                dead += 1
                boom += 1 if explodes else 0
                cur = 0
            else:
                cur += 1
        out.append((dead, total, boom))
    return out
