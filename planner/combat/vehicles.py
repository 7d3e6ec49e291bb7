"""Horus Heresy 2.0 shooting at vehicles: armour penetration, hull points and the vehicle damage table.

The source texts hold one vehicle rule, Shrouded (X) (seed 001): the roll ignores a Glancing or
Penetrating Hit, is a Damage Mitigation roll, and is not allowed against Melee attacks, Ignores Cover
or for Fearless models. Everything else here (the penetration roll, hull points, the damage table and
its modifiers, Ordnance, Lance, Melta and Armourbane, the facings' arcs) is not in the sources: the
rulings below follow the Horus Heresy vehicle rules of the previous edition (the 7th-edition 40k
procedure, which the 2022 Horus Heresy "Age of Darkness" rulebook keeps in outline: D6 + S against
the facing's Armour Value, equal a Glancing Hit, more a Penetrating Hit). Every ruling is listed in
:data:`INTERPRETATIONS` and repeated in each result; the table and its modifiers are data
(:data:`VEHICLE_DAMAGE_TABLE`, :func:`damage_modifier`) so a reading of the rulebook changes one place.

Units: positions and sizes in inches, headings in degrees (counter-clockwise from +x, the direction
the vehicle's front faces).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from planner.combat import hh2
from planner.combat.dice import Pmf, binomial, d6_at_least, mean, trim, variance
from planner.combat.memo import memoised

FACINGS = ("front", "side", "rear")
FACING_RULES = ("closest", "best")
"""Which facing a volley hits: ``"closest"`` the arc holding the attacker's closest model,
``"best"`` the lowest Armour Value among the arcs holding any attacking model."""

VEHICLE_DAMAGE_TABLE: tuple[tuple[int, str], ...] = (
    (1, "Crew Shaken"), (4, "Crew Stunned"), (5, "Weapon Destroyed"), (6, "Immobilised"), (7, "Explodes"))
"""Penetrating hit: D6 + modifiers; each row is (lowest score, result); below 1 counts as 1."""

INTERPRETATIONS = (
    "Vehicles: the sources hold only Shrouded (X) for them (seed 001); the rest is a ruling after the "
    "previous edition's vehicle rules.",
    "To hit as against any other target (BS, Snap Shots); Precision Shots and Marked for Death do not apply "
    "(no wound allocation among models, no To Wound roll).",
    "Armour penetration: D6 + S against the Armour Value of the facing hit; equal: a Glancing Hit, more: a "
    "Penetrating Hit. Ordnance rolls 2D6 and keeps the highest; Armourbane, or Melta within half range, "
    "adds one D6 (once); Lance counts an Armour Value above 12 as 12.",
    "Each Glancing or Penetrating Hit: an invulnerable or cover save (the better; none vs Ignores Cover), then "
    "one Shrouded roll (not vs Melee or Ignores Cover, not for Fearless); a Penetrating Hit then removes 1 Hull "
    "Point, a Glancing Hit as the ruling vehicle-glancing-hits says (below).",
    "A Penetrating Hit also rolls on the vehicle damage table: D6, +1 AP 2, +2 AP 1, -1 AP '-', +1 "
    "Open-topped; 1-3 Crew Shaken, 4 Crew Stunned, 5 Weapon Destroyed, 6 Immobilised, 7+ Explodes "
    "(destroyed).",
    "A vehicle reduced to 0 Hull Points is Wrecked (destroyed), unless that hit's damage roll is Explodes.",
    "A squadron's hits go to its first vehicle until it is destroyed, then to the next; hits on a destroyed "
    "squadron are lost.",
    "Facing hit: the arcs are bounded by the lines from the hull's centre through its corners; the facing "
    "is that of the arc holding the attacking unit's model closest to the hull (by model centre); a model "
    "on a line between two arcs hits the weaker facing.",
)


@dataclass(frozen=True)
class HHVehicle:
    """A target vehicle (or a squadron of ``models`` alike): Armour Values, Hull Points and rules.

    ``hull_points_lost``: already lost by the first vehicle; ``invuln``/``cover``: X+ saves against
    Glancing and Penetrating Hits; ``shrouded``: Shrouded (X+).
    """

    name: str
    front: int
    side: int
    rear: int
    hull_points: int
    models: int = 1
    hull_points_lost: int = 0
    invuln: int | None = None
    cover: int | None = None
    shrouded: int | None = None
    fearless: bool = False
    open_topped: bool = False

    def __post_init__(self) -> None:
        if self.hull_points < 1 or self.models < 1:
            raise ValueError(f"vehicle {self.name!r}: {self.models} models of {self.hull_points} Hull Points "
                             "(at least 1 of each)")
        if not 0 <= self.hull_points_lost < self.hull_points:
            raise ValueError(f"vehicle {self.name!r}: hull_points_lost {self.hull_points_lost} is not between 0 "
                             f"and {self.hull_points - 1}")

    def armour(self, facing: str) -> int:
        """The Armour Value of ``facing`` (one of :data:`FACINGS`); raises ValueError otherwise."""
        if facing not in FACINGS:
            raise ValueError(f"facing {facing!r} is not one of {FACINGS}")
        return {"front": self.front, "side": self.side, "rear": self.rear}[facing]


@dataclass(frozen=True)
class VehicleResult:
    """Distributions (``pmf[k]`` = P(k)) of one unit shooting a vehicle (squadron).

    ``penetrating``/``glancing``: hits of each kind before saves (every shot, as if the target
    stayed on the table); ``hull_points_lost``: Hull Points
    lost (after saves and Shrouded); ``models_lost``: vehicles destroyed, of which ``exploded``
    by an Explodes result (the rest Wrecked); ``damage_results``: expected number of each damage-table
    result rolled on a vehicle still on the table. ``p_glance``/``p_pen`` per hit.
    """

    ruleset: str
    attacker: str
    target: str
    attacks: int
    facing: str
    armour: int
    p_hit: float
    p_glance: float
    p_pen: float
    glancing: Pmf
    penetrating: Pmf
    hull_points_lost: Pmf
    models_lost: Pmf
    exploded: Pmf
    damage_results: tuple[tuple[str, float], ...]
    interpretations: tuple[str, ...] = field(default_factory=tuple)

    @property
    def wounds_lost(self) -> Pmf:
        """The Hull Points lost (the vehicle's wounds), for callers that treat every target alike."""
        return self.hull_points_lost

    @property
    def expected_models_lost(self) -> float:
        """Mean of :attr:`models_lost`."""
        return mean(self.models_lost)

    @property
    def expected_wounds_lost(self) -> float:
        """Mean of :attr:`hull_points_lost`."""
        return mean(self.hull_points_lost)

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict: means, standard deviations and the full distributions."""
        def d(p: Pmf) -> dict[str, Any]:
            return {"mean": mean(p), "sd": variance(p) ** 0.5, "pmf": list(p)}
        return {
            "ruleset": self.ruleset, "attacker": self.attacker, "target": self.target, "attacks": self.attacks,
            "facing": self.facing, "armour": self.armour, "p_hit": self.p_hit, "p_glance": self.p_glance,
            "p_pen": self.p_pen, "glancing": d(self.glancing), "penetrating": d(self.penetrating),
            "hull_points_lost": d(self.hull_points_lost), "wounds_lost": d(self.hull_points_lost),
            "models_lost": d(self.models_lost), "exploded": d(self.exploded),
            "damage_results": dict(self.damage_results), "interpretations": list(self.interpretations),
        }


def penetration_pmf(weapon: hh2.HHWeapon, strength: int, *, half_range: bool = False) -> dict[int, float]:
    """Distribution of the armour penetration total (S + dice): Ordnance keeps the highest of 2D6;
    Armourbane, or Melta within half range, adds one D6."""
    if weapon.type == "Ordnance":
        base = {k: (2 * k - 1) / 36 for k in range(1, 7)}  # the highest of two D6
    else:
        base = {k: 1 / 6 for k in range(1, 7)}
    if weapon.armourbane or (weapon.melta and half_range):
        extra: dict[int, float] = {}
        for k, p in base.items():
            for j in range(1, 7):
                extra[k + j] = extra.get(k + j, 0.0) + p / 6
        base = extra
    return {strength + k: p for k, p in base.items()}


def glance_pen(weapon: hh2.HHWeapon, strength: int, armour: int, *, half_range: bool = False) -> tuple[float, float]:
    """(P(Glancing Hit), P(Penetrating Hit)) of one hit against Armour Value ``armour``."""
    av = min(armour, 12) if weapon.lance else armour
    dist = penetration_pmf(weapon, strength, half_range=half_range)
    return dist.get(av, 0.0), sum(p for v, p in dist.items() if v > av)


def damage_modifier(weapon: hh2.HHWeapon, vehicle: HHVehicle) -> int:
    """The damage-table modifier: +1 AP 2, +2 AP 1, -1 AP '-', +1 Open-topped."""
    mod = {1: 2, 2: 1}.get(weapon.ap or 0, 0) - (1 if weapon.ap is None else 0)
    return mod + (1 if vehicle.open_topped else 0)


def damage_table(modifier: int) -> dict[str, float]:
    """P(each result) of one damage-table roll (D6 + ``modifier``, see :data:`VEHICLE_DAMAGE_TABLE`)."""
    out = {name: 0.0 for _, name in VEHICLE_DAMAGE_TABLE}
    for roll in range(1, 7):
        score = max(1, roll + modifier)
        name = [n for low, n in VEHICLE_DAMAGE_TABLE if score >= low][-1]
        out[name] += 1 / 6
    return out


def _save_fail(vehicle: HHVehicle, weapon: hh2.HHWeapon) -> float:
    options = [x for x in (vehicle.invuln,) if x is not None]
    if vehicle.cover is not None and not weapon.ignores_cover and weapon.type != "Melee":
        options.append(vehicle.cover)
    return 1 - d6_at_least(max(2, min(options))) if options else 1.0


def _shrouded_keep(vehicle: HHVehicle, weapon: hh2.HHWeapon) -> float:
    if vehicle.shrouded is None or vehicle.fearless or weapon.type == "Melee" or weapon.ignores_cover:
        return 1.0
    return 1 - d6_at_least(vehicle.shrouded)


GLANCING_NOTES = {
    False: "Glancing Hits remove no Hull Point (ruling vehicle-glancing-hits=no-hull-point, the default: Games "
           "Workshop's 2022 preview says they roll for a random Tactical Status instead, not counted here; the "
           "losses are then a lower bound).",
    True: "Glancing Hits remove 1 Hull Point each (ruling vehicle-glancing-hits=hull-point, the previous edition).",
}


def shoot_vehicle(attacker: hh2.HHAttacker, vehicle: HHVehicle, *, facing: str = "front",
                  half_range: bool = False, glancing_hull_point: bool = False) -> VehicleResult:
    """Exact distribution of ``attacker`` shooting ``vehicle`` on ``facing``; ``half_range`` for Melta;
    ``glancing_hull_point``: the ruling ``vehicle-glancing-hits`` (False, the default reading: a
    Glancing Hit removes no Hull Point; True: one, as in the previous edition).

    Returns :class:`VehicleResult`; memoised on the (frozen) arguments. Raises ValueError for an
    unknown facing or an out-of-range BS.
    """
    return _shoot_vehicle(attacker, vehicle, facing, half_range, glancing_hull_point)


_State = tuple[int, int, int, int]


def _add(d: dict[_State, float], s: _State, p: float) -> None:
    d[s] = d.get(s, 0.0) + p


@memoised
def _shoot_vehicle(attacker: hh2.HHAttacker, vehicle: HHVehicle, facing: str, half_range: bool,
                   glancing_hull_point: bool) -> VehicleResult:
    w = attacker.weapon
    armour = vehicle.armour(facing)
    snap = attacker.stupefied or (attacker.moved and w.type in ("Heavy", "Ordnance") and not attacker.relentless)
    strength = w.strength + (1 if attacker.stupefied else 0)
    p_norm, p_prec = hh2._hit_probs(attacker.bs, snap, None)
    p_hit = p_norm + p_prec
    g, pen = glance_pen(w, strength, armour, half_range=half_range)
    stick = _save_fail(vehicle, w) * _shrouded_keep(vehicle, w)
    table = damage_table(damage_modifier(w, vehicle))
    p_explode = table["Explodes"]
    n = attacker.models * w.shots
    # per shot: nothing, a hull point without a damage roll, a penetrating hull point (then the table)
    q_hp = p_hit * g * stick if glancing_hull_point else 0.0
    q_pen = p_hit * pen * stick
    q_none = 1 - q_hp - q_pen
    hp = vehicle.hull_points
    # state: (vehicles destroyed, exploded, hull points lost by the current vehicle, total lost)
    dist: dict[_State, float] = {(0, 0, vehicle.hull_points_lost, 0): 1.0}
    expected_results = {name: 0.0 for _, name in VEHICLE_DAMAGE_TABLE}
    for _ in range(n):
        nxt: dict[_State, float] = {}
        add = partial(_add, nxt)
        for (dead, boom, cur, total), p in dist.items():
            if dead >= vehicle.models:
                add((dead, boom, cur, total), p)
                continue
            add((dead, boom, cur, total), p * q_none)
            for kind, q in (("glance", q_hp), ("pen", q_pen)):
                if not q:
                    continue
                last = cur + 1 >= hp
                if kind == "pen":
                    for name, pr in table.items():
                        expected_results[name] += p * q * pr
                    pe = p * q * p_explode
                    if pe:
                        add((dead + 1, boom + 1, 0, total + 1), pe)
                    rest = p * q * (1 - p_explode)
                else:
                    rest = p * q
                if rest:
                    add((dead + 1, boom, 0, total + 1) if last else (dead, boom, cur + 1, total + 1), rest)
        dist = nxt
    models_lost = [0.0] * (vehicle.models + 1)
    exploded = [0.0] * (vehicle.models + 1)
    hp_lost = [0.0] * (n + 1)
    for (dead, boom, _cur, total), p in dist.items():
        models_lost[dead] += p
        exploded[boom] += p
        hp_lost[total] += p
    notes = [*INTERPRETATIONS, GLANCING_NOTES[glancing_hull_point]]
    if attacker.weapon.unmodelled:
        notes.append(f"Keywords not modelled: {', '.join(attacker.weapon.unmodelled)}.")
    if snap:
        notes.append(f"{attacker.name} fires Snap Shots.")
    notes.append(f"Facing hit: {facing} (Armour Value {armour}"
                 + (", counted as 12 by Lance)." if w.lance and armour > 12 else ")."))
    return VehicleResult(
        ruleset="hh2", attacker=attacker.name, target=vehicle.name, attacks=n, facing=facing, armour=armour,
        p_hit=p_hit, p_glance=g, p_pen=pen, glancing=binomial(n, p_hit * g), penetrating=binomial(n, p_hit * pen),
        hull_points_lost=trim(hp_lost), models_lost=tuple(models_lost), exploded=tuple(exploded),
        damage_results=tuple(expected_results.items()), interpretations=tuple(notes))


def _arc_of(dx: float, dy: float, heading_deg: float, length: float, width: float) -> tuple[str, ...]:
    """The arcs (one, or two on a line between them) holding the offset (dx, dy) from the hull's centre."""
    h = math.radians(heading_deg)
    fx = dx * math.cos(h) + dy * math.sin(h)  # along the vehicle's front
    fy = -dx * math.sin(h) + dy * math.cos(h)  # to its left
    if fx == 0.0 and fy == 0.0:
        return FACINGS
    angle = math.degrees(math.atan2(abs(fy), fx))  # 0: dead ahead, 180: dead astern
    corner = math.degrees(math.atan2(width / 2, length / 2))
    eps = 1e-9
    if abs(angle - corner) <= eps:
        return ("front", "side")
    if abs(angle - (180 - corner)) <= eps:
        return ("side", "rear")
    if angle < corner:
        return ("front",)
    if angle > 180 - corner:
        return ("rear",)
    return ("side",)


def facing_hit(vehicle: HHVehicle, centre: tuple[float, float], heading_deg: float, length: float, width: float,
               attackers: Sequence[tuple[float, float]], rule: str = "closest") -> str:
    """The facing a volley from models at ``attackers`` (centres, inches) hits on a hull ``length`` x
    ``width`` inches centred at ``centre`` facing ``heading_deg``.

    ``rule`` (:data:`FACING_RULES`): ``"closest"`` the arc of the model closest to the hull (a tie,
    or a model on a line between arcs: the lower Armour Value), ``"best"`` the lowest Armour Value
    among the arcs holding any attacking model. Raises ValueError for no attackers, a bad rule or a
    hull without area.
    """
    if rule not in FACING_RULES:
        raise ValueError(f"facing rule {rule!r} is not one of {FACING_RULES}")
    if not attackers:
        raise ValueError("facing_hit needs at least one attacking model")
    if length <= 0 or width <= 0:
        raise ValueError(f"hull {length} x {width} has no area")
    h = math.radians(heading_deg)

    def gap(p: tuple[float, float]) -> float:
        dx, dy = p[0] - centre[0], p[1] - centre[1]
        fx = abs(dx * math.cos(h) + dy * math.sin(h)) - length / 2
        fy = abs(-dx * math.sin(h) + dy * math.cos(h)) - width / 2
        return math.hypot(max(fx, 0.0), max(fy, 0.0))

    if rule == "closest":
        near = min(gap(p) for p in attackers)
        chosen = [p for p in attackers if gap(p) <= near + 1e-9]
    else:
        chosen = list(attackers)
    arcs = {a for p in chosen for a in _arc_of(p[0] - centre[0], p[1] - centre[1], heading_deg, length, width)}
    return min(arcs, key=lambda a: (vehicle.armour(a), FACINGS.index(a)))
