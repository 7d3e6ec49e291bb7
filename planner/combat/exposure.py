"""Exposure of a deployment: what the side taking the first turn can shoot, and what it costs (issue 20 item 3).

For each of my units: which enemy units can shoot it in their first turn, and the exact distribution
of models and wounds it loses (:mod:`planner.combat`). What is modelled (every point is printed
with the report, :data:`MODEL_NOTES`):

- **The move.** Each enemy unit makes a Normal move of up to its M (``stats.m``, inches) as one rigid
  formation: every model moves by the same vector ``v``, ``|v| <= M``, in a straight line. The
  vectors tried are ``v = 0`` (stationary), a polar lattice (:data:`RINGS` rings x :data:`BEARINGS`
  bearings) and, per target, the moves straight at it (full M; just far enough to be in range; in
  half range). A move is kept if, for every model, the base swept along the line stays on the
  battlefield, clear of impassable and solid terrain and walls (the checker's no-go list,
  :attr:`planner.legality.table.Table.no_go_polys`), off the other units of its own side and more
  than the engagement distance (:data:`ENGAGEMENT_IN`, 1") from every enemy model; a move whose
  swept bases touch difficult terrain is at most ``M - penalty`` (:meth:`difficult_penalty_in`, the
  ruling ``difficult-move``), none for a unit of only Move Through Cover models (seed text 001).
  ``v = 0`` always counts, wherever the unit stands (a unit never loses its shot because of where it
  already stands: :class:`Mover`), and a base already meeting a model of its own side at the start
  (touching, or overlapping on an illegal table) may move only away from it.
- **Can it shoot?** From a kept position, the models within the weapon's range of the target
  (closest-point distance, "within" = not more than, :func:`planner.geometry.measure.is_within_distance`)
  must include one that draws line of sight to it by
  :meth:`planner.legality.table.Table.sight_from_any`, the checker's own predicate. ``proven``: a
  "can shoot" is always proven (the position is a witness); a "cannot" is proven only when the
  target is more than range + M away (no move of up to M brings any model in range); else it is
  "not found on the lattice": the threat found is a lower bound.
- **The damage.** Every model carrying the weapon fires it once the unit can shoot (the enemy brings
  the unit to bear); one weapon per unit, the one with the most expected models lost. Stationary
  (``v = 0``) or moved (HH: Heavy/Ordnance fire Snap Shots after moving unless Relentless; 40k: Heavy
  +1 to hit only stationary), half range (Rapid Fire) if a model within half range sees the target:
  the best mode for the enemy. 40k benefit of cover (:meth:`planner.legality.wh40k.WH40kTable.cover_for`)
  judged against the witness position's models.
- **Target choice.** Each enemy unit shoots the one of my units where it does most expected damage
  (models lost, then wounds lost): the worst for me.
- **Several volleys at one unit** (:meth:`Exposure.losses`). The wounds lost (Hull Points for a
  vehicle) add up, capped at the unit's wounds (:meth:`Exposure.unit_wounds`): the sum of the
  volleys' independent distributions, each volley's from the unit at full strength (:func:`_combine`).
  One-wound models: the models lost add up the same way, capped at the unit's models, and the
  wounds-lost distribution *is* the models-lost one. Models of several wounds: the models lost are
  derived from those wounds lost, the wounds taken by the models in allocation order
  (:meth:`Exposure.model_wounds`, :func:`models_from_wounds`; a unit of one W: ``min(L // W, models)``),
  so the damage one volley leaves on a model carries to the next (fresh14: two volleys at one W2
  model lose it with P(2 wounds lost), not with the sum of each volley's chance of taking both).
  Exact when every unsaved wound takes one wound and the unit has one profile (HH2 without Instant
  Death, 40k Damage 1, with one save for the whole unit). Otherwise an approximation, as each
  volley's wounds are counted against the unit at full strength: with Instant Death or 40k Damage
  above 1 a volley can take more wounds from a fresh model than from one already wounded (excess
  damage is lost), so the count can be more than resolving the volleys in turn (the worse for me);
  with models of different saves each volley meets the unit's first models' saves (either way);
  Precision wounds (allocated out of order) likewise. For a unit of one W the count is never fewer
  models than the volleys' own models lost added up. A Horus Heresy vehicle (destroyed by a
  penetrating hit with Hull Points left): the larger of that count and the volleys' vehicles
  destroyed added up (:func:`_at_least`). So the report never calls a model standing that lost all
  its wounds.
- **Marked for Death** (HH2, seed text 000): if a unit of the enemy has the rule, the marked unit is
  the one of mine that makes the enemy's total expected models lost largest.
- **Vehicles** (HH2, Armour Values): shot by :func:`planner.combat.vehicles.shoot_vehicle` on the
  facing the attacker's closest model hits from the witness position
  (:func:`planner.combat.vehicles.facing_hit`), the ruling ``vehicle-glancing-hits`` applied.
- **Joined characters** (HH Independent Characters, 40k Leaders): one target with their unit
  (:func:`attached_record`).
- **Objective Control** (40k): the expected OC of each of my units on each objective after the
  volleys it takes (:func:`oc_unit`, :func:`oc_after`, :data:`OC_NOTES`).

Sources: RULES.md, seed texts 000, 001 (Move Through Cover, Relentless), 004.
"""

from __future__ import annotations

import bisect
import dataclasses
import itertools
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import shapely
from shapely.ops import unary_union

from planner.combat import hh2, vehicles, wh40k
from planner.combat.dice import Pmf, mean, trim
from planner.combat.profiles import (
    Lookup,
    _rules,
    attacker_40k,
    hh_attacker,
    hh_target,
    hh_vehicle,
    model_stats,
    model_weapons,
    target_40k,
)
from planner.combat.result import VolleyResult
from planner.combat.vehicles import VehicleResult
from planner.errors import ScenarioError
from planner.geometry.measure import is_more_than_distance, is_within_distance
from planner.geometry.shapes import Footprint, signed_distance
from planner.legality.table import Placed, Table
from planner.schema import TerrainTrait, Unit, WeaponProfile
from planner.world import ModelInfo, UnitInfo, World

RINGS = 4
"""Rings of the move lattice (radii M/4, M/2, 3M/4, M)."""
BEARINGS = 16
"""Bearings per ring of the move lattice."""
STAGE = 4
"""Moves tried in the first sight call of a mode (the moves straight at the target come first)."""
ENGAGEMENT_IN = 1.0
"""A Normal move may not come within 1" of enemy models (HH2: 1"; 40k: Engagement Range 1")."""

MODEL_NOTES = (
    "Move: a Normal move of up to M as one rigid formation in a straight line (v = 0, a polar lattice of "
    f"{RINGS} rings x {BEARINGS} bearings, and the moves straight at each target); swept bases stay on the "
    "battlefield, off impassable/solid terrain and walls, off the own side's other units and more than 1\" from "
    "enemy models; standing still (v = 0) always counts, and a base already meeting a model of its own side "
    "moves only away from it.",
    "Can shoot: some model within range (closest points, 'within' = not more than) draws line of sight to the "
    "target by the checker's sight predicate; proven when found, or when the target is more than range + M "
    "away; otherwise 'not found on the lattice' (the threat found is a lower bound).",
    "Damage: every model carrying the weapon fires once the unit can shoot; one weapon per unit (most expected "
    "models lost); stationary only from v = 0; half range (Rapid Fire) when a model within half range sees the "
    "target.",
    "Target choice: each enemy unit shoots the one of my units where it does most expected damage (models lost, "
    "then wounds lost): the worst for me.",
    "Several volleys at one unit: wounds lost (Hull Points) add up, capped at the unit's wounds; one-wound models: "
    "models lost add up the same way, capped at the unit's models (the same distribution as the wounds lost, "
    "exact); models of several wounds: models lost derived from the wounds lost, taken by the models in "
    "allocation order (one W: wounds // W), so damage carries from volley to volley: exact when each unsaved "
    "wound takes one wound and the unit has one profile; with Instant Death or Damage above 1 an approximation "
    "(each volley's wounds counted against the unit at full strength: the worse for me); with mixed saves or "
    "Precision wounds either way; a Horus Heresy vehicle: at least the volleys' vehicles destroyed added up.",
    "Marked for Death: the unit the enemy marks is the one of mine that makes its total expected models lost "
    "largest (the worst for me).",
)


VEHICLE_NOTE = (
    "Horus Heresy vehicles (" + "Armour Values" + "): shot by planner.combat.vehicles.shoot_vehicle on the facing "
    "hit from the witness position (planner.combat.vehicles.facing_hit, 'closest': the arc of the attacking "
    "model closest to the hull; a squadron by its first vehicle); models lost are vehicles destroyed, wounds "
    "lost Hull Points; whether a Glancing Hit removes a Hull Point is the ruling vehicle-glancing-hits.")

# --------------------------------------------------------------------------- results


@dataclass(frozen=True)
class Reach:
    """Can ``attacker`` shoot ``target`` with a weapon of range ``range_in``? ``modes`` holds the
    (moved, half_range) pairs found possible, each with its witness (the move (dx, dy), inches)."""

    attacker: str
    target: str
    range_in: float
    modes: dict[tuple[bool, bool], tuple[tuple[float, float], str | None, bool]]
    """(moved, half range) -> (the move, the model that sees, the target's 40k benefit of cover there)."""
    proven: bool
    nearest_in: float = math.inf

    @property
    def can_shoot(self) -> bool:
        return bool(self.modes)


@dataclass(frozen=True)
class Threat:
    """One enemy unit's best volley at one of my units."""

    attacker: str
    target: str
    weapon: str
    moved: bool
    half_range: bool
    in_cover: bool
    marked: bool
    proven: bool
    witness: tuple[float, float] | None
    result: VolleyResult | VehicleResult
    facing: str | None = None
    """A Horus Heresy vehicle target: the facing hit (front, side, rear)."""

    @property
    def expected_models_lost(self) -> float:
        return self.result.expected_models_lost

    @property
    def expected_wounds_lost(self) -> float:
        return self.result.expected_wounds_lost

    def to_json(self) -> dict[str, Any]:
        r = self.result
        return {"attacker": self.attacker, "weapon": self.weapon, "moved": self.moved,
                "half_range": self.half_range, "in_cover": self.in_cover, "marked_for_death": self.marked,
                "proven": self.proven, "move": list(self.witness) if self.witness else None,
                "facing": self.facing,
                "expected_models_lost": r.expected_models_lost, "expected_wounds_lost": r.expected_wounds_lost,
                "models_lost_pmf": list(r.models_lost)}


@dataclass
class UnitExposure:
    """What one of my units loses: the enemy units able to shoot it, those that do (target choice),
    and the distribution of models lost (:data:`MODEL_NOTES`)."""

    unit: str
    models: int
    can_shoot: list[str]
    not_proven: list[str]
    shot_by: list[Threat]
    models_lost: Pmf
    """P(k models lost), k = 0 .. ``models``, from the volleys of ``shot_by`` (:meth:`Exposure.losses`)."""
    wounds: int
    """The unit's wounds at full strength (Hull Points for a Horus Heresy vehicle), with its joined characters."""
    wounds_lost: Pmf
    """P(k wounds lost), k = 0 .. ``wounds``: the volleys' wounds lost summed, capped at ``wounds``
    (one-wound models: ``models_lost`` itself; :meth:`Exposure.losses`)."""
    separable_models_lost: float
    """Models lost if every enemy unit able to shoot it did (the planning goal's measure,
    :meth:`Exposure.goal_models_lost`, of this report's volleys)."""

    @property
    def expected_models_lost(self) -> float:
        return mean(self.models_lost)

    @property
    def expected_wounds_lost(self) -> float:
        """Mean of :attr:`wounds_lost`: never more than :attr:`wounds`."""
        return mean(self.wounds_lost)

    def to_json(self) -> dict[str, Any]:
        return {"unit": self.unit, "models": self.models, "wounds": self.wounds, "can_shoot": self.can_shoot,
                "not_proven_hidden": self.not_proven, "expected_models_lost": self.expected_models_lost,
                "expected_wounds_lost": self.expected_wounds_lost, "models_lost_pmf": list(self.models_lost),
                "wounds_lost_pmf": list(self.wounds_lost),
                "separable_models_lost": self.separable_models_lost,
                "shot_by": [t.to_json() for t in self.shot_by]}


@dataclass(frozen=True)
class ObjectiveOC:
    """The expected OC of my units on one objective after the enemy's turn: per unit (0 for a unit
    with no model in range), and the total (the sum)."""

    objective: str
    units: dict[str, float]
    full: dict[str, int]
    """Each unit's OC with no model lost, counting every model (in range or not)."""

    @property
    def expected(self) -> float:
        return sum(self.units.values())

    def to_json(self) -> dict[str, Any]:
        return {"objective": self.objective, "expected_oc": self.expected, "units": dict(self.units),
                "full_oc": dict(self.full)}


@dataclass
class ExposureReport:
    """``planner exposure``: per unit of the side shot at, and the enemy's choices."""

    ruleset: str
    player: str
    shooter: str
    first: str
    units: list[UnitExposure]
    threats: list[Threat]
    """Every (attacker, target) pair that can shoot, its best volley."""
    choices: dict[str, str | None]
    """Each attacking unit -> the unit it shoots (None: none in reach)."""
    marked: str | None
    interpretations: list[str]
    reaches: list[Reach] = field(default_factory=list)
    volleys_computed: int = 0
    volleys_cached: int = 0
    objective_control: list[ObjectiveOC] = field(default_factory=list)
    """40k: the expected OC of my units on each objective after the enemy's turn (:func:`objective_oc`)."""

    @property
    def expected_models_lost(self) -> float:
        return sum(u.expected_models_lost for u in self.units)

    @property
    def expected_wounds_lost(self) -> float:
        return sum(u.expected_wounds_lost for u in self.units)

    def to_json(self) -> dict[str, Any]:
        return {"ruleset": self.ruleset, "player": self.player, "shooting_side": self.shooter,
                "first": self.first, "expected_models_lost": self.expected_models_lost,
                "expected_wounds_lost": self.expected_wounds_lost, "marked_for_death": self.marked,
                "targets": self.choices, "units": [u.to_json() for u in self.units],
                "volleys": {"computed": self.volleys_computed, "from_cache": self.volleys_cached},
                "objective_control": [o.to_json() for o in self.objective_control],
                "interpretations": self.interpretations}


# --------------------------------------------------------------------------- geometry


def _shift(fp: Footprint, dx: float, dy: float) -> Footprint:
    """``fp`` moved by (dx, dy) inches."""
    return dataclasses.replace(fp, cx=fp.cx + dx, cy=fp.cy + dy,
                               verts=tuple((x + dx, y + dy) for x, y in fp.verts))


def _outer(fp: Footprint) -> float:
    return float(fp.outer_radius)


def _distance(a: list[Footprint], b: list[Footprint], limit: float = math.inf) -> np.ndarray:
    """Closest-point distance from each footprint of ``a`` to the group ``b`` (inches); where even
    the lower bound (centres less outer radii) is more than ``limit``, that bound instead (so any
    value within ``limit`` is exact)."""
    pa = np.array([[f.cx, f.cy, _outer(f)] for f in a])
    pb = np.array([[f.cx, f.cy, _outer(f)] for f in b])
    lb = np.hypot(pa[:, None, 0] - pb[None, :, 0], pa[:, None, 1] - pb[None, :, 1]) - pa[:, None, 2] - pb[None, :, 2]
    if all(f.kind == "circle" for f in a) and all(f.kind == "circle" for f in b):
        return np.asarray(lb.min(axis=1))  # exact for discs
    out = lb.min(axis=1)
    for i, f in enumerate(a):
        if out[i] <= limit + 1e-9:
            out[i] = min(signed_distance(f, b[j]) for j in np.nonzero(lb[i] <= limit + 1e-9)[0].tolist())
    return np.asarray(out)


class Obstacles:
    """What a Normal move of one side's units must keep clear of, built once per side: the no-go
    terrain (the checker's list), the own side's models (a search tree, labelled by unit), the
    enemy models (to stay more than :data:`ENGAGEMENT_IN` from) and the difficult terrain."""

    def __init__(self, table: Table, own: list[Placed], enemies: list[Placed]):
        nogo = [p for _, p in table.no_go_polys]
        self.nogo = unary_union(nogo) if nogo else None
        polys = [f.polygon(32, circumscribed=True) for o in own for f in o.footprints]
        self.own_labels = np.array([o.unit.id for o in own for _ in o.footprints], dtype=object)
        self.own_centres = np.array([[f.cx, f.cy] for o in own for f in o.footprints], dtype=float).reshape(-1, 2)
        self.own = shapely.STRtree(polys) if polys else None
        enemy = [f.polygon(32, circumscribed=True) for o in enemies for f in o.footprints]
        self.enemy = shapely.STRtree(enemy) if enemy else None
        diff = [table.terrain_polys[t.id] for t in table.world.scenario.terrain if TerrainTrait.DIFFICULT in t.traits]
        self.difficult = unary_union(diff) if diff else None
        for g in (self.nogo, self.difficult):
            if g is not None:
                shapely.prepare(g)


class Mover:
    """One unit of the shooting side: its start bases, M, and the moves it can make.

    Where the unit stands always counts: ``v = 0`` is kept even if the unit stands where no move
    could end (an illegal table: overlapping its own side's models, on no-go terrain, within 1" of
    the enemy or off the battlefield), so a unit never loses its shot because of where it already
    stands. A base that already meets one of its own side's models at the start may move only away
    from it (the move does not bring the two centres nearer: along a straight line their distance
    then never falls); the other obstacles still forbid every move but ``v = 0``.
    ``stands_clear`` is False when where the unit stands is itself barred (no-go terrain, within 1"
    of the enemy, off the battlefield): ``v = 0`` is then its only move.
    """

    def __init__(self, table: Table, unit: UnitInfo, move_in: float, penalty_in: float, obstacles: Obstacles,
                 rings: int = RINGS, bearings: int = BEARINGS):
        self.table, self.unit, self.move_in = table, unit, float(move_in)
        self.start = list(table.final(unit).footprints)
        self.penalty_in = penalty_in
        self.refs = tuple(m.ref for m in unit.models)
        bf = table.world.scenario.battlefield
        self.bounds = (bf.width, bf.depth)
        self.obstacles = obstacles
        self._placed: dict[tuple[float, float], list[Footprint]] = {}
        lattice = [(0.0, 0.0)]
        for k in range(1, rings + 1):
            r = self.move_in * k / rings
            for j in range(bearings):
                t = 2 * math.pi * (j + 0.5 * (k % 2)) / bearings
                lattice.append((r * math.cos(t), r * math.sin(t)))
        self._meets_own = self._start_contacts()
        self.stands_clear = bool(self.valid([(0.0, 0.0)]))
        self.moves = self.valid(lattice) if self.move_in > 0 else [(0.0, 0.0)]
        if (0.0, 0.0) not in self.moves:
            self.moves.insert(0, (0.0, 0.0))  # where the unit stands always counts (the class docstring)

    def _start_contacts(self) -> set[tuple[int, int]]:
        """The (base, own-side footprint) pairs of another unit that already meet where the unit stands
        (the same test as :meth:`valid`'s, on the start centres)."""
        ob = self.obstacles
        if ob.own is None or not self.start:
            return set()
        pts = shapely.points(np.array([[f.cx, f.cy] for f in self.start], dtype=float))
        i, j = ob.own.query(pts, predicate="dwithin", distance=np.array([_outer(f) for f in self.start]))
        return {(int(a), int(b)) for a, b in zip(i.tolist(), j.tolist(), strict=True)
                if ob.own_labels[b] != self.unit.id}

    def valid(self, moves: list[tuple[float, float]]) -> list[tuple[float, float]]:
        """The moves of ``moves`` the unit can make (see the module docstring), in order. A base
        touching an obstacle counts as meeting it (the circumscribed outlines: conservative)."""
        if not moves:
            return []
        fps = self.start
        c = np.array([[f.cx, f.cy] for f in fps])
        r = np.array([_outer(f) for f in fps])
        v = np.array(moves, dtype=float)
        end = c[None, :, :] + v[:, None, :]
        w, d = self.bounds
        ok = ((end[:, :, 0] - r >= -1e-9) & (end[:, :, 0] + r <= w + 1e-9) & (end[:, :, 1] - r >= -1e-9)
              & (end[:, :, 1] + r <= d + 1e-9)).all(axis=1)
        n, m = len(moves), len(fps)
        start = np.broadcast_to(c[None, :, :], (n, m, 2))
        length = np.hypot(v[:, 0], v[:, 1])
        lines = np.asarray(shapely.linestrings(np.stack([start, end], axis=2).reshape(n * m, 2, 2)))
        still = np.repeat(length < 1e-9, m)
        paths = np.where(still, shapely.points(end.reshape(n * m, 2)), lines)  # each base centre's path
        rad = np.tile(r, n)
        ob = self.obstacles
        bad = np.zeros(n * m, dtype=bool)
        if ob.nogo is not None:
            bad |= shapely.distance(paths, ob.nogo) <= rad
        if ob.own is not None:
            i, j = ob.own.query(paths, predicate="dwithin", distance=rad)
            hit = ob.own_labels[j] != self.unit.id
            if self._meets_own and hit.any():
                # a base already meeting that model where it stands: only a move nearer its centre is barred
                base = i % m
                met = np.array([(int(b), int(k)) in self._meets_own for b, k in zip(base.tolist(), j.tolist(),
                                                                                    strict=True)], dtype=bool)
                away = ((v[i // m] * (c[base] - ob.own_centres[j])).sum(axis=1) >= -1e-12)
                hit &= ~(met & away)
            bad[i[hit]] = True
        if ob.enemy is not None:
            i, _ = ob.enemy.query(paths, predicate="dwithin", distance=rad + ENGAGEMENT_IN)
            bad[i] = True
        ok &= ~bad.reshape(n, m).any(axis=1)
        if ob.difficult is not None and self.penalty_in > 0:
            slow = (shapely.distance(paths, ob.difficult) <= rad).reshape(n, m).any(axis=1)
            ok &= ~slow | (length <= self.move_in - self.penalty_in + 1e-9)
        ok &= length <= self.move_in + 1e-9
        return [moves[k] for k in np.nonzero(ok)[0].tolist()]

    def at(self, move: tuple[float, float]) -> list[Footprint]:
        """The unit's bases after ``move``."""
        hit = self._placed.get(move)
        if hit is None:
            hit = [_shift(f, move[0], move[1]) for f in self.start]
            self._placed[move] = hit
        return hit

    def aimed(self, target: list[Footprint], ranges: list[float]) -> list[tuple[float, float]]:
        """Moves straight at ``target`` (along the closest pair of bases): the full M, and just far
        enough to bring the closest model within each of ``ranges``."""
        best = None
        for f in self.start:
            for g in target:
                dd = signed_distance(f, g)
                if best is None or dd < best[0]:
                    best = (dd, f, g)
        assert best is not None
        d0, f, g = best
        ux, uy = g.cx - f.cx, g.cy - f.cy
        norm = math.hypot(ux, uy)
        if norm < 1e-9:
            return []
        ux, uy = ux / norm, uy / norm
        lengths = {self.move_in, *(min(self.move_in, max(0.0, d0 - rg)) for rg in ranges)}
        if self.penalty_in > 0:
            lengths.add(max(0.0, self.move_in - self.penalty_in))
        out = [(ux * ln, uy * ln) for ln in sorted(lengths, reverse=True) if ln > 0]
        return self.valid(out)


# --------------------------------------------------------------------------- the shooting side


def difficult_penalty_in(world: World, unit: UnitInfo) -> float:
    """How much shorter a Normal move through difficult terrain is for ``unit`` (inches): the
    ruleset's reading (ruling ``difficult-move`` where the ruleset declares it; 0 otherwise), 0 for
    a unit of only Move Through Cover models (seed text 001)."""
    rs = world.ruleset
    if not any(r.key == "difficult-move" for r in rs.RULINGS):
        return 0.0
    reading = world.ruling("difficult-move")
    if reading == "none":
        return 0.0
    rules = _rules(unit.record.other_rules)
    if "move through cover" in rules or all(any("move through cover" in str(x).lower() for x in m.rules)
                                            for m in unit.models):
        return 0.0
    return float(reading.removeprefix("minus-"))


def lookup_of(world: World) -> Lookup | None:
    """The catalogue lookup of the scenario's ruleset (profiles of catalogue entries)."""
    from planner.io.catalogue import load_catalogue

    rs = world.ruleset
    cat = load_catalogue(rs.catalogue) if getattr(rs, "catalogue", None) else None
    return cat.get if cat is not None else None


def ranged_weapons(unit: UnitInfo, lookup: Lookup | None) -> list[WeaponProfile]:
    """The unit's weapons with a range, one per name, in order."""
    seen: dict[str, WeaponProfile] = {}
    rec = unit.record
    for m in rec.models:
        for w in model_weapons(rec, m, lookup):
            if w.range_in and w.name not in seen:
                seen[w.name] = w
    return list(seen.values())


def move_of(world: World, unit: UnitInfo, lookup: Lookup | None) -> float:
    """The unit's M (the slowest model's; inches).

    Raises ScenarioError naming the file, the unit and the field when no model has an M.
    """
    rec = unit.record
    ms = [model_stats(rec, m, lookup) for m in rec.models]
    vals = [s.m for s in ms if s is not None and s.m is not None]
    if not vals or len(vals) < len(ms):
        raise ScenarioError(f"unit {unit.id!r} has no M (Move) characteristic, which the exposure needs",
                            file=world.file, location=f"{unit.path}.stats.m", value=None)
    return float(min(vals))


def attached_record(world: World, host: UnitInfo, lookup: Lookup | None) -> Unit:
    """The target profile of ``host`` with the characters joining it (Horus Heresy Independent
    Characters, 40k Leaders: ``setup.joined``) as one unit: the host's record (its rules and
    keywords) with the host's models, then each joined model with its own characteristics made
    explicit and the CHARACTER keyword (so the dice maths allocates to them last and, in 40k, takes
    the Toughness from the bodyguard models). A host with no joined unit: its own record."""
    if not host.joined_by:
        return host.record
    models = [m.model_copy(update={"stats": model_stats(host.record, m, lookup)}) for m in host.record.models]
    for j in host.joined_by:
        rec = world.units[j].record
        for m in rec.models:
            entry = lookup(m.profile) if m.profile and lookup is not None else None
            own = m.keywords if m.keywords is not None else (entry.keywords if entry is not None else [])
            kws = [*own, *(k for k in rec.keywords if k not in own)]
            if not any(k.upper() == "CHARACTER" for k in kws):
                kws.append("CHARACTER")
            models.append(m.model_copy(update={"stats": model_stats(rec, m, lookup), "keywords": kws}))
    return host.record.model_copy(update={"models": models})


def _armour_only(unit: UnitInfo, lookup: Lookup | None) -> bool:
    """Every model has armour values and no Toughness (a Horus Heresy vehicle)."""
    rec = unit.record
    sts = [model_stats(rec, m, lookup) for m in rec.models]
    return all(st is not None and st.t is None and st.av_front is not None for st in sts)


def _has_profile(unit: UnitInfo, lookup: Lookup | None) -> bool:
    rec = unit.record
    return any(model_stats(rec, m, lookup) is not None for m in rec.models)


OC_NOTES = (
    "Objective Control: a unit's OC on an objective is the OC of its models in range of the marker (the "
    "checker's predicate, planner.legality.wh40k.in_objective_range: within the ruleset's objective range); a "
    "unit with no model in range has OC 0 there; after the losses of the enemy's turn (the exposure's loss "
    "distribution), Below Half-strength and battle-shock by planner.combat.control.expected_oc.",
    "Objective Control: models are removed out of range of the objective first, CHARACTER models last (the "
    "defender's choice within the allocation order); a unit with joined characters is one unit (Starting "
    "Strength and Leadership, the best in the unit, of all its models).",
)


@dataclass(frozen=True)
class OCUnit:
    """What the OC maths needs of one placed unit (with the characters joining it): ``order`` each
    model's OC on the objective (0 out of range) in the order models are removed; ``full`` the OC of
    every model; ``leadership`` the best (lowest) Ld in the unit; ``wounds`` a one-model unit's W."""

    order: tuple[int, ...]
    full: int
    leadership: int
    wounds: int | None


def oc_unit(world: World, placed: Placed, objective: Any, lookup: Lookup | None) -> OCUnit:
    """The OC profile of ``placed`` (a unit, or a unit with its joined characters: ``placed.ids``
    ``"unit/model"``) on ``objective`` (a scenario Objective), for a 40k ruleset.

    Raises ScenarioError naming the unit and the field ``stats.oc`` / ``stats.ld`` when a model has
    no OC or no Leadership."""
    from planner.legality.wh40k import edition, in_objective_range

    r40 = edition(world.ruleset.id)
    if placed.ids and all("/" in i for i in placed.ids):
        by_ref = {m.ref: m for u in world.units.values() for m in u.models}
        models = [by_ref[i] for i in placed.ids]
    else:
        models = list(placed.unit.models)
    rows = []
    lds = []
    for m, fp in zip(models, placed.footprints, strict=True):
        oc, ld, w = model_oc(world, m, lookup)
        lds.append(ld)
        inside = in_objective_range(fp, objective, r40)
        rows.append(("CHARACTER" in m.keywords, inside, oc, w))
    rows.sort(key=lambda r: (r[0], r[1]))  # stable: out of range first, characters last
    return OCUnit(tuple(oc if inside else 0 for _, inside, oc, _ in rows), sum(r[2] for r in rows), min(lds),
                  rows[0][3] if len(rows) == 1 else None)


def model_oc(world: World, model: ModelInfo, lookup: Lookup | None) -> tuple[int, int, int]:
    """(OC, Ld, W) of ``model`` (its own, its catalogue entry's or its unit's characteristics; W 1
    when not given). Raises ScenarioError naming the unit and ``stats.oc`` / ``stats.ld``."""
    u = world.units[model.unit_id]
    st = model_stats(u.record, u.record.models[model.index], lookup)
    for name in ("oc", "ld"):
        if st is None or getattr(st, name) is None:
            raise ScenarioError(f"unit {u.id!r} has no {name.upper()} characteristic, which Objective Control "
                                "needs", file=world.file, location=f"{u.path}.stats.{name}", value=None)
    assert st is not None and st.oc is not None and st.ld is not None
    return int(st.oc), int(st.ld), int(st.w or 1)


def oc_after(world: World, unit: OCUnit, models_lost: Pmf, wounds_lost: Pmf | None = None) -> float:
    """The expected OC of ``unit`` after losing models per ``models_lost`` (P(k models lost), as
    :meth:`Exposure.losses` gives it for the volleys the unit takes), a one-model unit by its
    ``wounds_lost`` (P(k wounds lost), the same method's) when given
    (:func:`planner.combat.control.expected_oc`)."""
    from planner.combat.control import expected_oc

    wounds_pmf = wounds_lost if unit.wounds is not None else None
    return expected_oc(list(unit.order), models_lost, ruleset=world.ruleset, leadership=unit.leadership,
                       wounds=unit.wounds if wounds_pmf is not None else None, wounds_lost_pmf=wounds_pmf).expected


class Exposure:
    """The exposure machinery for one world: movers, reaches and a volley cache.

    ``player`` is the side shot at (my units); the other side shoots. ``cache``: reuse volleys of
    the same attacker profile x target profile x modifiers; ``judge_cover``: False counts no target
    as having the 40k benefit of cover (the worse for me: an upper bound of the loss); ``rings`` x
    ``bearings``: the move lattice; ``exact`` False: the sight test's fast judge (a pair it cannot prove
    hidden counts as visible: never a false "hidden", so the threat found may be too large, as for
    the planner's ``hidden`` goal); ``batch`` False: one sight call per move (the benchmark's naive
    baseline; the same verdicts).
    Raises
    ScenarioError (exit 2) for a unit without a profile, naming the file, the unit and the field.
    """

    def __init__(self, world: World, player: str, *, table: Table | None = None, cache: bool = True,
                 judge_cover: bool = True, rings: int = RINGS, bearings: int = BEARINGS, exact: bool = True,
                 batch: bool = True):
        rs = world.ruleset
        if rs.COMBAT_DICE not in ("heresy", "40k"):
            raise ScenarioError(f"no shooting dice maths for ruleset {rs.id!r} (hh2, wh40k10, wh40k11 have them)",
                                file=world.file, location="ruleset", value=rs.id)
        if player not in {u.player for u in world.units.values()}:
            raise ScenarioError("no army of this player in the scenario", file=world.file, location="--player",
                                value=player)
        self.world, self.player = world, player
        self.table = table if table is not None else rs.table(world)
        self.lookup = lookup_of(world)
        self.use_cache = cache
        self.judge_cover = judge_cover
        self.lattice = (rings, bearings)
        self.exact = exact
        self.batch = batch
        self._volleys: dict[Any, Any] = {}
        self.computed = 0
        self.cached = 0
        on = [u for u in self.table.on_table]
        self.targets = [u for u in on if u.player == player]
        self.attackers = [u for u in on if u.player != player]
        for u in [*self.targets, *self.attackers]:
            if not _has_profile(u, self.lookup):
                raise ScenarioError(f"unit {u.id!r} has no profile (stats), which the exposure needs: give "
                                    "'stats' (and 'weapons') on the unit, a 'profile' of the catalogue, or import "
                                    "a list that carries them (a 40k text or JSON list, a BattleScribe roster "
                                    "with profiles)",
                                    file=world.file, location=f"{u.path}.stats", value=None)
        # Horus Heresy vehicles (armour values, no T): shot by planner.combat.vehicles on the facing hit
        self.vehicles = {u.id for u in self.targets if rs.COMBAT_DICE == "heresy" and _armour_only(u, self.lookup)}
        self.glancing_hull_point = (rs.COMBAT_DICE == "heresy" and any(r.key == "vehicle-glancing-hits"
                                                                       for r in rs.RULINGS)
                                    and world.ruling("vehicle-glancing-hits") == "hull-point")
        # a joined character is shot at with its unit, as one target (attached_record, placed_of)
        host_ids = {u.id for u in self.targets}
        self.joined = {j: u.id for u in self.targets for j in u.joined_by if j in host_ids}
        self.targets = [u for u in self.targets if u.id not in self.joined]
        self._records: dict[str, Unit] = {}
        self._vehicle: dict[str, bool] = {}
        self._model_wounds: dict[str, tuple[int, ...]] = {}
        self._last_threats: tuple[Placed, Any, list[Threat]] | None = None
        self.weapons = {u.id: ranged_weapons(u, self.lookup) for u in self.attackers}
        self.moves = {u.id: move_of(world, u, self.lookup) for u in self.attackers}
        self._movers: dict[tuple[str, Any], Mover] = {}
        self._obstacles: dict[Any, Obstacles] = {}
        rules = {u.id: _rules(u.record.other_rules) for u in self.attackers}
        self.mfd_units = {uid for uid, r in rules.items() if "marked for death" in r}

    def is_vehicle(self, unit: UnitInfo) -> bool:
        """Whether ``unit`` is a Horus Heresy vehicle target (Armour Values, no T)."""
        if unit.id not in self._vehicle:
            self._vehicle[unit.id] = self.world.ruleset.COMBAT_DICE == "heresy" and _armour_only(unit, self.lookup)
        return self._vehicle[unit.id]

    def record(self, target: UnitInfo) -> Unit:
        """The target profile of ``target`` with its joined characters (:func:`attached_record`)."""
        hit = self._records.get(target.id)
        if hit is None:
            hit = self._records[target.id] = attached_record(self.world, target, self.lookup)
        return hit

    def unit_wounds(self, target: UnitInfo) -> int:
        """The wounds of ``target`` with its joined characters at full strength: the sum of W over
        its models as the dice maths profiles them (:func:`planner.combat.profiles.hh_target`,
        :func:`planner.combat.profiles.target_40k`); a Horus Heresy vehicle: its Hull Points times
        its vehicles (:func:`planner.combat.profiles.hh_vehicle`). Raises ScenarioError (with the
        file) for a missing W or HP."""
        return sum(self.model_wounds(target))

    def model_wounds(self, target: UnitInfo) -> tuple[int, ...]:
        """Each model's wounds left (Hull Points for a Horus Heresy vehicle) in the order the dice
        maths allocates wounds to them: Horus Heresy, the profile's groups in order (the unit's
        models, joined Independent Characters last), each group's wounded model first; 40k, the
        seed-004 order (:func:`planner.combat.wh40k.allocation_order`: non-CHARACTER groups, then
        CHARACTER groups, wounded first); a vehicle squadron, its first vehicle (the one that has
        lost Hull Points) first. Cached per unit. Raises ScenarioError (with the file) for a missing
        W or HP."""
        hit = self._model_wounds.get(target.id)
        if hit is not None:
            return hit
        rs = self.world.ruleset
        try:
            if self.is_vehicle(target):
                v = hh_vehicle(target.record, lookup=self.lookup)
                out = (v.hull_points - v.hull_points_lost,) + (v.hull_points,) * (v.models - 1)
            else:
                if rs.COMBAT_DICE == "heresy":
                    groups: Any = hh_target(self.record(target), lookup=self.lookup).groups
                    order: list[int] = list(range(len(groups)))
                else:
                    groups = target_40k(self.record(target), lookup=self.lookup).groups
                    order = wh40k.allocation_order(groups)
                seq: list[int] = []
                for i in order:
                    g = groups[i]
                    if g.models:
                        seq += [g.wounds - g.wounded] + [g.wounds] * (g.models - 1)
                out = tuple(seq)
        except ScenarioError as e:
            raise (e.with_file(self.world.file) if self.world.file else e) from None
        self._model_wounds[target.id] = out
        return out

    def placed_of(self, target: UnitInfo) -> Placed:
        """``target``'s models with those of the characters joining it, where they stand (ids ``unit/model``)."""
        members = [target, *(self.world.units[j] for j in target.joined_by if j in self.joined)]
        if len(members) == 1:
            return self.table.final(target)
        fps = tuple(f for u in members for f in self.table.final(u).footprints)
        return Placed(target, fps, tuple(m.ref for u in members for m in u.models))

    # ------------------------------------------------------------------ moves and sight
    def mover(self, unit: UnitInfo, targets: list[Placed] | None = None) -> Mover:
        """The moves of attacking ``unit`` with my units at ``targets`` (default: all of mine)."""
        key = (unit.id, None if targets is None else tuple(id(f) for p in targets for f in p.footprints))
        hit = self._movers.get(key)
        if hit is None:
            okey = key[1]
            ob = self._obstacles.get(okey)
            if ob is None:
                mine = targets if targets is not None else [self.table.final(u) for u in self.targets]
                ob = Obstacles(self.table, [self.table.final(u) for u in self.attackers], mine)
                self._obstacles[okey] = ob
            hit = Mover(self.table, unit, self.moves[unit.id], difficult_penalty_in(self.world, unit), ob,
                        *self.lattice)
            self._movers[key] = hit
        return hit

    def reach(self, mover: Mover, target: Placed, range_in: float) -> Reach:
        """Can ``mover`` shoot ``target`` with a weapon of range ``range_in`` after a Normal move?
        See the module docstring (what is exact, what is a lower bound)."""
        tgt = list(target.footprints)
        d0 = float(_distance(mover.start, tgt).min())
        uid, tid = mover.unit.id, target.unit.id
        if is_more_than_distance(d0, range_in + mover.move_in):
            return Reach(uid, tid, range_in, {}, True, nearest_in=d0)
        moves = list(mover.moves)
        extra = [m for m in mover.aimed(tgt, [range_in, range_in / 2]) if m not in moves]
        moves = [moves[0], *extra, *moves[1:]] if moves else extra
        modes: dict[tuple[bool, bool], tuple[tuple[float, float], str | None, bool]] = {}
        dists: dict[tuple[float, float], np.ndarray] = {}
        for moved in (False, True):
            cands = [m for m in moves if (m == (0.0, 0.0)) != moved]
            for half in (False, True):
                reach_in = range_in / 2 if half else range_in
                if half and (moved, False) not in modes:
                    continue  # nothing seen in range: nothing in half range
                # the moves straight at the target first (a few, one sight call), then the rest:
                # every kept move is tried, in two calls of the checker's sight test at most
                batches = [cands[:STAGE], cands[STAGE:]] if self.batch else [[mv] for mv in cands]
                for batch in batches:
                    observers: list[Placed] = []
                    which: list[tuple[float, float]] = []
                    for mv in batch:
                        fps = mover.at(mv)
                        if mv not in dists:
                            dists[mv] = _distance(fps, tgt, range_in)
                        keep = [i for i, x in enumerate(dists[mv])
                                if is_within_distance(max(0.0, float(x)), reach_in)]
                        if keep:
                            observers.append(Placed(mover.unit, tuple(fps[i] for i in keep),
                                                    tuple(mover.refs[i] for i in keep)))
                            which.append(mv)
                    if not observers:
                        continue
                    seen, sight = self.table.sight_from_any(observers, target, exact=self.exact)
                    if seen is not None:
                        k = next(i for i, o in enumerate(observers) if o is seen)
                        modes[(moved, half)] = (which[k], sight.observer_model,
                                                self._cover(target, list(seen.footprints)))
                        break
        return Reach(uid, tid, range_in, modes, bool(modes), nearest_in=d0)

    def _cover(self, target: Placed, attacker_fps: list[Footprint]) -> bool:
        """40k benefit of cover of ``target`` against models at ``attacker_fps`` (HH: False)."""
        cover_for = getattr(self.table, "cover_for", None)
        if cover_for is None or not self.judge_cover or self.world.ruleset.COMBAT_DICE != "40k":
            return False
        refs = {m.ref: m for m in target.unit.models}
        models = [refs[i] for i in target.ids] if target.ids and all(i in refs for i in target.ids) \
            else list(target.unit.models)
        if len(models) != len(target.footprints):
            return False  # joined characters: not judged (no cover assumed: the worse for me)
        ok, _ = cover_for(models, list(target.footprints), attacker_fps)
        return bool(ok)

    # ------------------------------------------------------------------ volleys
    def volley(self, attacker: UnitInfo, weapon: str, target: UnitInfo, *, moved: bool, half: bool,
               in_cover: bool, marked: bool, facing: str = "front") -> VolleyResult | VehicleResult:
        """The exact volley (cached by attacker profile x target profile x modifiers); a Horus
        Heresy vehicle target is hit on ``facing`` (:func:`planner.combat.vehicles.shoot_vehicle`).

        Raises ScenarioError (with the file) for a missing value the dice maths needs."""
        rs = self.world.ruleset
        if self.is_vehicle(target):
            return self._vehicle_volley(attacker, weapon, target, moved=moved, half=half, marked=marked,
                                        facing=facing)
        try:
            if rs.COMBAT_DICE == "heresy":
                a: Any = hh_attacker(attacker.record, weapon, moved=moved, half_range=half,
                                     marked_for_death=marked, lookup=self.lookup)
                t: Any = hh_target(self.record(target), lookup=self.lookup)
            else:
                a = attacker_40k(attacker.record, weapon, stationary=not moved, half_range=half, lookup=self.lookup)
                t = target_40k(self.record(target), attached=bool(target.joined_by), in_cover=in_cover,
                               lookup=self.lookup)
        except ScenarioError as e:
            raise (e.with_file(self.world.file) if self.world.file else e) from None
        key = (dataclasses.replace(a, name=""), _anon_target(t), rs.id)
        if self.use_cache and key in self._volleys:
            self.cached += 1
            r = self._volleys[key]
        else:
            self.computed += 1
            if rs.COMBAT_DICE == "heresy":
                r = hh2.shoot(dataclasses.replace(a, name=""), _anon_target(t))
            else:
                r = wh40k.shoot(dataclasses.replace(a, name=""), _anon_target(t),
                                cover=rs.COVER_IN_SHOOTING or "bs", ruleset=rs.id)
            if self.use_cache:
                self._volleys[key] = r
        return dataclasses.replace(r, attacker=attacker.id, target=target.id)

    def _vehicle_volley(self, attacker: UnitInfo, weapon: str, target: UnitInfo, *, moved: bool, half: bool,
                        marked: bool, facing: str) -> VehicleResult:
        """A Horus Heresy volley at a vehicle (squadron) on ``facing``, cached as :meth:`volley`."""
        try:
            a = hh_attacker(attacker.record, weapon, moved=moved, half_range=half, marked_for_death=marked,
                            lookup=self.lookup)
            v = hh_vehicle(target.record, lookup=self.lookup)
        except ScenarioError as e:
            raise (e.with_file(self.world.file) if self.world.file else e) from None
        a, v = dataclasses.replace(a, name=""), dataclasses.replace(v, name="")
        key = ("vehicle", a, v, facing, half, self.glancing_hull_point)
        if self.use_cache and key in self._volleys:
            self.cached += 1
            r = self._volleys[key]
        else:
            self.computed += 1
            r = vehicles.shoot_vehicle(a, v, facing=facing, half_range=half,
                                       glancing_hull_point=self.glancing_hull_point)
            if self.use_cache:
                self._volleys[key] = r
        return dataclasses.replace(r, attacker=attacker.id, target=target.id)

    def facing(self, mover: Mover, move: tuple[float, float], target: Placed) -> str:
        """The facing of vehicle ``target`` (its first hull) that ``mover``'s models hit after ``move``
        (:func:`planner.combat.vehicles.facing_hit`, the closest model's arc). A round base counts as
        a square of its diameter."""
        hull = target.footprints[0]
        length, width = 2 * float(hull.a), 2 * float(hull.b if hull.kind != "circle" else hull.a)
        v = hh_vehicle(target.unit.record, lookup=self.lookup)
        return vehicles.facing_hit(v, (hull.cx, hull.cy), math.degrees(hull.angle), length, width,
                                   [(f.cx, f.cy) for f in mover.at(move)])

    def best_threat(self, attacker: UnitInfo, target: Placed, *, marked: bool = False,
                    mover: Mover | None = None) -> tuple[Threat | None, bool]:
        """The attacker's best volley at ``target`` over its weapons and the modes it can reach
        (None if it cannot shoot it), and whether "cannot" is proven for every weapon."""
        mover = mover if mover is not None else self.mover(attacker)
        best: Threat | None = None
        proven_all = True
        by_range: dict[float, Reach] = {}
        for w in self.weapons[attacker.id]:
            rg = float(w.range_in or 0.0)
            if rg not in by_range:
                by_range[rg] = self.reach(mover, target, rg)
            rc = by_range[rg]
            if not rc.can_shoot:
                proven_all &= rc.proven
                continue
            for (moved, half), (move, _, cover) in sorted(rc.modes.items()):
                facing = self.facing(mover, move, target) if self.is_vehicle(target.unit) else None
                res = self.volley(attacker, w.name, target.unit, moved=moved, half=half, in_cover=cover,
                                  marked=marked, facing=facing or "front")
                th = Threat(attacker.id, target.unit.id, w.name, moved, half, cover, marked, True, move, res,
                            facing)
                if best is None or (th.expected_models_lost, th.expected_wounds_lost) > \
                        (best.expected_models_lost + 1e-12, best.expected_wounds_lost):
                    best = th
        return best, proven_all

    def threats_at(self, placed: Placed, movers: dict[str, Mover] | None = None) -> list[Threat]:
        """The planning goals' separable loss model: every enemy unit able to shoot ``placed`` does,
        its best volley, a Marked for Death attacker marking it (the worse for me; an upper bound of
        the report's losses). ``movers``: per attacker id, its :class:`Mover` (default: :meth:`mover`)."""
        last = self._last_threats
        if last is not None and last[0] is placed and last[1] is movers:
            return last[2]  # the planner measures one placement for every goal in turn
        out = []
        for a in self.attackers:
            mv = movers[a.id] if movers is not None else self.mover(a)
            th, _ = self.best_threat(a, placed, mover=mv, marked=a.id in self.mfd_units)
            if th is not None:
                out.append(th)
        self._last_threats = (placed, movers, out)
        return out

    # ------------------------------------------------------------------ the whole deployment
    def run(self, *, first: str = "enemy") -> ExposureReport:
        """The exposure of my units (``player``) to the other side's first turn."""
        threats: dict[tuple[str, str], Threat] = {}
        unproven: dict[str, list[str]] = {u.id: [] for u in self.targets}
        placed = {u.id: self.placed_of(u) for u in self.targets}
        for a in self.attackers:
            mv = self.mover(a)
            for t in self.targets:
                th, proven = self.best_threat(a, placed[t.id], mover=mv)
                if th is not None:
                    threats[(a.id, t.id)] = th
                elif not proven:
                    unproven[t.id].append(a.id)
        marked = None
        notes = list(MODEL_NOTES)
        if self.vehicles:
            notes.append(VEHICLE_NOTE)
        if self.joined:
            notes.append("Joined characters are one target with their unit (Starting Strength, models lost and "
                         "allocation, CHARACTER models last; 40k: the bodyguard's Toughness): "
                         + ", ".join(f"{j} with {h}" for j, h in sorted(self.joined.items())) + ".")
        if self.mfd_units and self.targets:
            best_total = -1.0
            for t in self.targets:
                trial = dict(threats)
                for a in self.attackers:
                    if a.id in self.mfd_units and (a.id, t.id) in threats:
                        th, _ = self.best_threat(a, placed[t.id], marked=True, mover=self.mover(a))
                        if th is not None:
                            trial[(a.id, t.id)] = th
                total = sum(x.expected_models_lost for x in _choose(trial, self.attackers).values())
                if total > best_total + 1e-12:
                    best_total, marked, best_trial = total, t.id, trial
            threats = best_trial
            notes.append(f"Marked for Death ({', '.join(sorted(self.mfd_units))}): {marked} is marked (the worst "
                         "for me).")
        chosen = _choose(threats, self.attackers)
        units = []
        for t in self.targets:
            shots = [th for th in chosen.values() if th.target == t.id]
            size = len(placed[t.id].footprints)
            pmf, wounds, wpmf = self.losses(t, shots, size)
            able = [a for (a, tid) in threats if tid == t.id]
            sep = self.goal_models_lost(t, [th for (_, tid), th in threats.items() if tid == t.id], size)
            units.append(UnitExposure(t.id, size, able, unproven[t.id], shots, pmf, wounds, wpmf, sep))
        for th in threats.values():
            for s in th.result.interpretations:
                if s not in notes:
                    notes.append(s)
        control = self._control(units, placed, notes)
        return ExposureReport(self.world.ruleset.id, self.player, next(iter({a.player for a in self.attackers}),
                                                                            ""),
                              first, units, list(threats.values()),
                              {a.id: (chosen[a.id].target if a.id in chosen else None) for a in self.attackers},
                              marked, notes, volleys_computed=self.computed, volleys_cached=self.cached,
                              objective_control=control)

    def losses(self, target: UnitInfo, shots: list[Threat], size: int) -> tuple[Pmf, int, Pmf]:
        """The models-lost distribution of ``target`` (``size`` models) shot by ``shots``, its
        wounds and its wounds-lost distribution (the module docstring's rulings). Wounds lost: the
        volleys' wounds lost summed, capped at the unit's wounds (:meth:`unit_wounds`). Models lost:
        one-wound models, the volleys' models lost summed, capped at ``size`` (the same distribution
        as the wounds lost); models of several wounds, derived from the wounds lost, taken by the
        models in allocation order (:meth:`model_wounds`, :func:`models_from_wounds`: a unit of one
        W loses ``min(L // W, models)`` models to L wounds), so damage carries from one volley to the
        next; a Horus Heresy vehicle (which a penetrating hit can destroy with Hull Points left), the
        larger of that and the volleys' vehicles destroyed summed (:func:`_at_least`)."""
        wounds = self.unit_wounds(target)
        if wounds == size and not self.is_vehicle(target):
            pmf = _combine([th.result.models_lost for th in shots], size)
            return pmf, wounds, pmf
        wpmf = _combine([th.result.wounds_lost for th in shots], wounds)
        pmf = models_from_wounds(wpmf, self.model_wounds(target))
        if self.is_vehicle(target):
            pmf = _at_least(pmf, _combine([th.result.models_lost for th in shots], size))
        return pmf, wounds, wpmf

    def goal_models_lost(self, target: UnitInfo, shots: list[Threat], size: int) -> float:
        """The exposure goal's measure of ``target`` (``size`` models) shot by ``shots`` (every enemy
        unit able to shoot it, :meth:`threats_at`), in models. One-wound models: the volleys'
        expected models lost added up (the capped sum :meth:`losses` reports is no more). Models of
        several wounds and Horus Heresy vehicles: the mean of :meth:`losses`'s models lost for those
        volleys (it grows with every volley added, so more volleys never measure less). Raises
        ScenarioError as :meth:`model_wounds`."""
        if self.unit_wounds(target) == size and not self.is_vehicle(target):
            return sum(th.expected_models_lost for th in shots)
        return mean(self.losses(target, shots, size)[0])

    def _control(self, units: list[UnitExposure], placed: dict[str, Placed], notes: list[str]) -> list[ObjectiveOC]:
        """40k: the expected OC of each of my units on each objective after the volleys the enemy
        chooses (none for Horus Heresy or without objectives; a unit without OC or Ld: a note, none)."""
        objectives = self.world.scenario.objectives
        if self.world.ruleset.COMBAT_DICE != "40k" or not objectives or not units:
            return []
        out = []
        try:
            for o in objectives:
                oc: dict[str, float] = {}
                full: dict[str, int] = {}
                for u in units:
                    ou = oc_unit(self.world, placed[u.unit], o, self.lookup)
                    oc[u.unit] = oc_after(self.world, ou, u.models_lost, u.wounds_lost)
                    full[u.unit] = ou.full
                out.append(ObjectiveOC(o.id, oc, full))
        except ScenarioError as e:
            notes.append(f"Objective Control not reported: {e.detail} ({e.location}).")
            return []
        notes.extend(s for s in OC_NOTES if s not in notes)
        return out


def _anon_target(t: Any) -> Any:
    """``t`` with its name (and its groups' names) blanked: the cache key is the profile."""
    groups = tuple(dataclasses.replace(g, name=f"g{k}") for k, g in enumerate(t.groups))
    return dataclasses.replace(t, name="", groups=groups)


def _choose(threats: dict[tuple[str, str], Threat], attackers: list[UnitInfo]) -> dict[str, Threat]:
    """Each attacker's target: most expected models lost, then wounds lost (ties: the first target)."""
    out: dict[str, Threat] = {}
    for a in attackers:
        opts = [th for (aid, _), th in threats.items() if aid == a.id]
        if opts:
            out[a.id] = max(opts, key=lambda th: (round(th.expected_models_lost, 12),
                                                  round(th.expected_wounds_lost, 12)))
    return out


def models_from_wounds(wounds_lost: Pmf, model_wounds: tuple[int, ...]) -> Pmf:
    """P(k models lost) from ``wounds_lost`` (P(L wounds lost), L = 0, 1, ...) when the wounds are
    taken by the models in the order of ``model_wounds`` (each model's wounds left, in allocation
    order, every wound to the first model still standing): k is the number of leading models whose
    wounds add up to L or less (a unit of one W: ``min(L // W, models)``). Returns a trimmed pmf
    over k = 0 .. ``len(model_wounds)``."""
    bounds = list(itertools.accumulate(model_wounds))
    out = [0.0] * (len(model_wounds) + 1)
    for lost, p in enumerate(wounds_lost):
        out[bisect.bisect_right(bounds, lost)] += p
    return trim(tuple(out))


def _at_least(a: Pmf, b: Pmf) -> Pmf:
    """The distribution of the larger of two counts when their quantiles go together:
    ``P(X >= k) = max(P(A >= k), P(B >= k))`` (never less than either)."""
    n = max(len(a), len(b))
    tail_a = [sum(a[k:]) for k in range(n)] + [0.0]
    tail_b = [sum(b[k:]) for k in range(n)] + [0.0]
    tail = [max(x, y) for x, y in zip(tail_a, tail_b, strict=True)]
    return trim(tuple(max(0.0, tail[k] - tail[k + 1]) for k in range(n)))


def _combine(pmfs: list[Pmf], cap: int) -> Pmf:
    """Losses from several independent volleys (models, or wounds): the sum of the distributions,
    capped at ``cap`` (the unit's models, or its wounds): ``P(cap)`` takes every sum of ``cap`` or
    more (:func:`planner.combat.control.combine_losses`, trimmed)."""
    from planner.combat.control import combine_losses

    return trim(combine_losses(pmfs, cap))


def exposure(world: World, player: str, *, first: str = "enemy", table: Table | None = None,
             cache: bool = True, batch: bool = True) -> ExposureReport:
    """The exposure of ``player``'s units if the other side takes the first turn (``first='enemy'``),
    or of the other side's units to ``player``'s if ``first='me'``.

    ``cache``/``batch``: see :class:`Exposure` (False: the naive way, the same figures).
    Returns an :class:`ExposureReport` (inches, models, wounds). Raises ScenarioError for a unit
    without a profile or M, an unknown player, or a ruleset without dice maths.
    """
    if first not in ("enemy", "me"):
        raise ScenarioError("choose enemy or me", file=world.file, location="--first", value=first)
    shot = player
    if first == "me":
        others = sorted({u.player for u in world.units.values() if u.player != player})
        if not others:
            raise ScenarioError("no enemy army in the scenario", file=world.file, location="--player", value=player)
        shot = others[0]
    return Exposure(world, shot, table=table, cache=cache, batch=batch).run(first=first)
