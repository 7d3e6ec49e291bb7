"""Goals of ``planner plan``: each scenario goal compiled into a term of the objective.

A term measures one candidate placement of one placement group (a unit with the Independent
Characters that join it). The objective is the weighted sum of every term over the placed
groups; terms are separable (one group at a time), which is what lets the candidate streams come
out in cost order (:mod:`planner.solve.candidates`) and the planner prove optimality over the
whole candidate grid.

Each term gives

- ``lower(xy)``: a vectorised lower bound of its value for many placements at once
  (``xy``: array (N, M, 2) of model centres, inches); exact for the distance terms;
- ``exact(group, fps)``: the exact value for one placement (may measure line of sight);
- ``exact_is_lower``: True if ``lower`` is already exact (no second look needed).

Values are in the goal's own measure (inches, units, models); the cost is ``weight * value``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from planner.errors import ScenarioError
from planner.geometry.measure import is_within_distance
from planner.geometry.shapes import Footprint, round_footprint, signed_distance
from planner.legality.table import Placed, Table
from planner.schema import TerrainKind

if TYPE_CHECKING:
    from planner.world import World


@dataclass
class Term:
    """One compiled goal."""

    name: str
    kind: str
    weight: float
    measure: str  # what the value counts, for reports: 'in', 'units', 'models'
    units: frozenset[str] | None  # placed unit ids it applies to (None: all)
    points: np.ndarray | None = None  # (P, 2): distance to the nearest of these points (distance terms)
    cap: float | None = None  # far_from_enemy: value = sum max(0, cap - d)
    exact_is_lower: bool = True
    # lazily measured terms
    table: Table | None = None
    observers: list[Placed] = field(default_factory=list)
    features: list = field(default_factory=list)
    marker: Footprint | None = None
    range_in: float = 0.0  # control_objective: the ruleset's OBJECTIVE_RANGE_IN (set by compile_goals)
    measure_fn: Callable[[Placed, list[Footprint], list[bool]], float] | None = None  # 40k objective, cover
    origins: dict[str, tuple[float, float]] | None = None  # stay_close: "unit/model" -> where it stands
    model_oc: dict[str, float] | None = None  # objective_control: "unit/model" -> the model's OC

    def applies(self, member_ids: list[str]) -> list[bool]:
        return [self.units is None or m in self.units for m in member_ids]

    def lower(self, xy: np.ndarray, mask: np.ndarray, radii: np.ndarray,
              keys: list[str] | None = None) -> np.ndarray:
        """Lower bound of the value for placements ``xy`` (N, M, 2); ``mask`` (M,) marks the
        models the term counts; ``radii`` (M,) their outer radii, inches; ``keys`` (M,) the
        models' ``"unit/model"`` ids (needed by ``stay_close``)."""
        n = xy.shape[0]
        if not mask.any():
            return np.zeros(n)
        if self.origins is not None:
            if keys is None:
                raise ValueError("a stay_close term needs the models' keys")
            o = np.array([self.origins[k] for k in keys], dtype=float).reshape(-1, 2)
            d = np.hypot(xy[:, :, 0] - o[None, :, 0], xy[:, :, 1] - o[None, :, 1])
            return (d * mask[None, :]).sum(axis=1)
        if self.points is not None:
            d = np.hypot(xy[:, :, None, 0] - self.points[None, None, :, 0],
                         xy[:, :, None, 1] - self.points[None, None, :, 1]).min(axis=2)
            if self.cap is not None:
                d = np.maximum(0.0, self.cap - d)
            return (d * mask[None, :]).sum(axis=1)
        if self.kind == "objective_control":
            assert self.marker is not None and self.model_oc is not None
            if keys is None:
                raise ValueError("an objective_control term needs the models' keys")
            d = np.hypot(xy[:, :, 0] - self.marker.cx, xy[:, :, 1] - self.marker.cy) - radii[None, :] \
                - self.marker.outer_radius
            oc = np.array([self.model_oc.get(k, 0.0) for k in keys], dtype=float)
            # a model whose bounding disc is farther than the range cannot count: its whole OC is lost
            return ((d > self.range_in + 1e-9) * (oc * mask)[None, :]).sum(axis=1)
        if self.kind == "control_objective":
            assert self.marker is not None
            d = np.hypot(xy[:, :, 0] - self.marker.cx, xy[:, :, 1] - self.marker.cy) - radii[None, :] \
                - self.marker.outer_radius
            # a model whose bounding disc is farther than the range cannot control
            can = ((d <= self.range_in + 1e-9) & mask[None, :]).any(axis=1)
            return np.where(can, 0.0, 1.0)
        if self.kind == "in_terrain" and self.table is not None:
            return _not_near_terrain(self.table, self.features, xy, mask, radii)
        return np.zeros(n)  # hidden: measured exactly when needed

    def exact(self, placed: Placed, fps: list[Footprint], mask: list[bool], lower: float) -> float:
        """The exact value for one placement (``lower`` is its lower bound, already computed)."""
        if self.exact_is_lower or not any(mask):
            return lower
        if self.measure_fn is not None:
            return self.measure_fn(placed, fps, mask)
        t = self.table
        assert t is not None
        if self.kind == "hidden":
            return float(sum(1 for o in self.observers if t.sight_from_any([o], placed, exact=False)[0] is not None))
        if self.kind == "in_terrain":
            return float(sum(1 for f, m in zip(fps, mask, strict=True)
                             if m and not any(t.stands_in(f, feat) for feat in self.features)))
        if self.kind == "control_objective":
            if lower > 0:
                return lower
            assert self.marker is not None
            ok = any(m and is_within_distance(max(0.0, signed_distance(f, self.marker)), self.range_in)
                     for f, m in zip(fps, mask, strict=True))
            return 0.0 if ok else 1.0
        raise AssertionError(self.kind)


def _not_near_terrain(table: Table, features: list, xy: np.ndarray, mask: np.ndarray,
                      radii: np.ndarray) -> np.ndarray:
    """A lower bound of ``in_terrain`` for placements ``xy`` (N, M, 2): the counted models whose
    bounding disc is farther from every feature than :meth:`Table.stands_in` lets a base stand in
    it (centre distance more than the outer radius plus the larger of 1e-3 and ``TOLERANCE_IN``)."""
    import shapely

    from planner.units import TOLERANCE_IN

    n, m = xy.shape[:2]
    far = np.ones((n, m), dtype=bool)
    pts = shapely.points(xy.reshape(-1, 2))
    for feat in features:
        d = shapely.distance(pts, table.terrain_polys[feat.id]).reshape(n, m)
        far &= d > radii[None, :] + max(1e-3, TOLERANCE_IN) + 1e-9
    return (far & mask[None, :]).sum(axis=1).astype(float)


def compile_goals(world, table: Table, player: str, placing: set[str]) -> list[Term]:
    """Compile the scenario's goals for the units of ``player`` being placed (ids ``placing``).

    With no goals, the single term is "near the battlefield centre".

    Raises
    ------
    ScenarioError
        A goal names an objective, unit or terrain feature that does not exist or does not fit
        (an enemy unit that is not an enemy on the battlefield, a friendly unit that is being
        placed, a ``units`` id that is not placed, a feature that is not area terrain).
    """
    sc = world.scenario
    if not sc.goals:
        bf = sc.battlefield
        return [Term(f"near_point ({bf.width / 2:g}, {bf.depth / 2:g}) (battlefield centre, no goal given)",
                     "near_point", 1.0, "in", None, points=np.array([[bf.width / 2, bf.depth / 2]]))]
    objectives = {o.id: o for o in sc.objectives}
    terms: list[Term] = []
    names: set[str] = set()
    exposure_models: dict = {}  # one exposure loss model per player, for the exposure and OC goals
    for i, g in enumerate(sc.goals):
        loc = f"goals[{i}]"

        def err(msg: str, fld: str, value: object) -> ScenarioError:
            return ScenarioError(msg, file=world.file, location=f"{loc}.{fld}", value=value)  # noqa: B023

        if g.kind == "deny":
            raise err("a deny goal is planned by the denial planner, which `planner plan FILE` (and the page's "
                      "Plan) use for it; it cannot be planned here, together with other goals", "kind", g.kind)
        units = None
        if g.units is not None:
            for k, uid in enumerate(g.units):
                if uid not in placing:
                    raise ScenarioError(f"not a unit being placed (placed: {sorted(placing)})", file=world.file,
                                        location=f"{loc}.units[{k}]", value=uid)
            units = frozenset(g.units)

        def unit_points(uid: str, fld: str, enemy: bool) -> np.ndarray:
            u = world.units.get(uid)
            if u is None:
                raise err("no unit with this id", fld, uid)
            if enemy and u.player == player:
                raise err(f"not an enemy unit: it belongs to {player!r}, the player being planned", fld, uid)
            if not enemy and u.player != player:
                raise err(f"not a friendly unit: it belongs to {u.player!r}", fld, uid)
            if uid in placing:
                raise err("this unit is being placed in the same plan; name a unit already on the battlefield",
                          fld, uid)
            if not (u.on_battlefield and u.is_positioned):
                raise err("this unit is not on the battlefield with positions", fld, uid)
            return np.array([[m.x, m.y] for m in u.models], dtype=float)

        kind = g.kind
        if kind == "near_point":
            label, term = f"near_point ({g.x:g}, {g.y:g})", Term("", kind, g.weight, "in", units,
                                                                  points=np.array([[g.x, g.y]], dtype=float))
        elif kind in ("near_objective", "control_objective"):
            o = objectives.get(g.objective)
            if o is None:
                raise err(f"no objective with this id (objectives: {sorted(objectives)})", "objective", g.objective)
            if kind == "near_objective":
                label, term = f"near_objective {o.id}", Term("", kind, g.weight, "in", units,
                                                             points=np.array([[o.x, o.y]], dtype=float))
            else:
                reach = _control_range(world)
                label = f"control_objective {o.id} (within {reach:g}\")"
                term = Term("", kind, g.weight, "units", units, exact_is_lower=False, table=table,
                            marker=round_footprint(o.x, o.y, o.diameter_mm), range_in=reach)
        elif kind == "near_enemy_unit":
            label, term = f"near_enemy_unit {g.unit}", Term("", kind, g.weight, "in", units,
                                                            points=unit_points(g.unit, "unit", True))
        elif kind == "near_friendly":
            label, term = f"near_friendly {g.unit}", Term("", kind, g.weight, "in", units,
                                                          points=unit_points(g.unit, "unit", False))
        elif kind == "stay_close":
            origins: dict[str, tuple[float, float]] = {}
            for uid in sorted(units if units is not None else placing):
                u = world.units[uid]
                if not u.is_positioned:
                    raise ScenarioError("a stay_close goal measures from where the models stand: this placed unit "
                                        "has no positions", file=world.file, location=f"{u.path}.models", value=uid)
                origins.update({f"{uid}/{m.id}": (float(m.x), float(m.y)) for m in u.models})
            label = "stay_close (total movement of the models, centre to centre)"
            term = Term("", kind, g.weight, "in", units, origins=origins)
        elif kind == "far_from_enemy":
            label = f"far_from_enemy {g.unit} (up to {g.cap:g}\")"
            term = Term("", kind, g.weight, "in", units, points=unit_points(g.unit, "unit", True), cap=g.cap)
        elif kind == "hidden":
            label = "hidden (enemy units with line of sight)"
            term = Term("", kind, g.weight, "units", units, exact_is_lower=False, table=table,
                        observers=table.enemy_presence(player, "final"))
        elif kind == "in_terrain":
            if g.features is None:
                feats = [t for t in sc.terrain if t.kind is TerrainKind.AREA]
            else:
                feats = []
                for k, fid in enumerate(g.features):
                    t = world.terrain.get(fid)
                    if t is None or t.kind is not TerrainKind.AREA:
                        raise ScenarioError("not an area terrain feature (ruins, woods) a model can stand in",
                                            file=world.file, location=f"{loc}.features[{k}]", value=fid)
                    feats.append(t)
            label = "in_terrain (models not in " + (", ".join(t.id for t in feats) if feats else "any area terrain") + ")"
            term = Term("", kind, g.weight, "models", units, exact_is_lower=False, table=table, features=feats)
        elif kind in ("objective", "cover"):
            label, term = _wh40k_term(world, table, g, units, err)
        elif kind == "exposure":
            label, term = _exposure_term(world, table, g, units, player, exposure_models)
        elif kind == "objective_control":
            label, term = _objective_control_term(world, table, g, units, player, placing, err, exposure_models)
        else:  # pragma: no cover - the schema admits no other kind
            raise err("unknown goal kind", "kind", kind)
        name = g.name or label
        if name in names:
            name = f"{name} #{i}"
        names.add(name)
        term.name = name
        terms.append(term)
    return terms


def _control_range(world: World) -> float:
    """The ruleset's objective range, inches (HH2: 3" base to marker; 40k: 3", RULES.md §3.1).

    Raises
    ------
    ScenarioError
        If the ruleset has no objective range.
    """
    rs = world.ruleset
    if rs.OBJECTIVE_RANGE_IN is None:
        raise ScenarioError("this ruleset has no objective range for a control_objective goal", file=world.file,
                            location="ruleset", value=rs.id)
    return float(rs.OBJECTIVE_RANGE_IN)


def _wh40k_term(world, table: Table, g, units, err) -> tuple[str, Term]:
    """The 40k goals (rulesets wh40k10/wh40k11): ``objective`` -- models out of range of the
    objective marker, each costing :data:`planner.solve.wh40k_judge.OBJECTIVE_MISS_COST_IN` inches
    (then, through the distance goal the resolver adds, as close as possible); ``cover`` -- every
    model of a unit without the benefit of cover against the goal's enemy unit, each costing
    :data:`planner.solve.wh40k_judge.NO_COVER_COST_IN`."""
    from planner.legality.wh40k import WH40kTable, edition, in_objective_range
    from planner.solve import wh40k_judge as J

    sc = world.scenario
    if g.kind not in world.ruleset.GOAL_KINDS:
        raise err(f"{g.kind} goals are not goals of ruleset {sc.ruleset}", "kind", g.kind)
    R40 = edition(sc.ruleset)
    models = {f"{m.unit_id}/{m.id}": m for u in world.units.values() for m in u.models}
    if g.kind == "objective":
        o = next((o for o in sc.objectives if o.id == g.objective), None)
        if o is None:
            raise err("no objective with this id", "objective", g.objective)

        def out_of_range(placed: Placed, fps: list[Footprint], mask: list[bool]) -> float:
            return float(sum(1 for f, m in zip(fps, mask, strict=True) if m and not in_objective_range(f, o, R40)))

        return (f"objective {o.id} (models out of range, {J.OBJECTIVE_MISS_COST_IN:g} each; "
                f"{sc.ruleset}.objective.range)",
                Term("", "objective", g.weight * J.OBJECTIVE_MISS_COST_IN, "models", units, exact_is_lower=False,
                     table=table, measure_fn=out_of_range))
    enemy = world.units.get(g.against)
    if enemy is None:
        raise err("no unit with this id", "against", g.against)
    wt = WH40kTable(world, R40)

    def no_cover(placed: Placed, fps: list[Footprint], mask: list[bool]) -> float:
        if not (enemy.on_battlefield and enemy.is_positioned):
            return 0.0  # not on the battlefield: it cannot attack, every placement is as good
        ms = [models[i] for i in placed.ids]
        ok, _ = wt.cover_for(ms, fps, list(wt.final(enemy).footprints))
        return 0.0 if ok else float(sum(mask))

    return (f"cover against {enemy.id} (models without cover, {J.NO_COVER_COST_IN:g} each; {sc.ruleset}.cover, "
            f"sight by {sc.ruleset}.visibility.{R40.VISIBILITY})",
            Term("", "cover", g.weight * J.NO_COVER_COST_IN, "models", units, exact_is_lower=False, table=table,
                 measure_fn=no_cover))


def _exposure_term(world, table: Table, g, units, player: str, cache: dict) -> tuple[str, Term]:
    """``exposure``: the models a placed group loses if every enemy unit able to shoot it after a
    Normal move does (the separable model of :mod:`planner.combat.exposure`, measured by
    :meth:`planner.combat.exposure.Exposure.goal_models_lost`: the volleys' expected models lost
    added up for one-wound models; for models of several wounds and vehicles, the report's own
    combination of those volleys, damage carried from one to the next), found on the move lattice;
    a Marked for Death attacker counts as marking it. An upper bound of the report's models lost
    under the enemy's target choice (more volleys, no 40k benefit of cover, a fast sight judge that
    never calls a visible unit hidden; each volley the attacker's best by expected models, so not a
    proof). The enemy's moves are judged against the terrain and its own units, not against the
    group being placed.

    Raises ScenarioError for an enemy unit without a profile or M."""
    ex, movers = _exposure_model(world, table, player, cache)

    def expected_loss(placed: Placed, fps: list[Footprint], mask: list[bool]) -> float:
        return ex.goal_models_lost(placed.unit, ex.threats_at(placed, movers), len(placed.footprints))

    return ("exposure (expected models lost if every enemy unit able to shoot a unit does, "
            f"{len(ex.attackers)} enemy units: an upper bound of planner exposure's figure)",
            Term("", "exposure", g.weight, "models", units, exact_is_lower=False, table=table,
                 measure_fn=expected_loss))


def _exposure_model(world, table: Table, player: str, cache: dict):  # -> tuple[Exposure, dict[str, Mover]]
    """The exposure goals' loss model (:meth:`planner.combat.exposure.Exposure.threats_at`): fast
    sight judge, no cover (upper bounds), the enemy's moves judged without the units being placed;
    one per player in ``cache``, shared by the exposure and objective_control goals of one compile."""
    from planner.combat.exposure import Exposure

    if player not in cache:
        ex = Exposure(world, player, table=table, judge_cover=False, exact=False)
        cache[player] = (ex, {a.id: ex.mover(a, targets=[]) for a in ex.attackers})
    return cache[player]


def _objective_control_term(world, table: Table, g, units, player: str, placing: set[str], err,
                            cache: dict) -> tuple[str, Term]:
    """``objective_control`` (40k): per placed group, its full OC less its expected OC on the
    objective after the enemy's first turn -- the losses of the exposure goal's model (every enemy
    unit able to shoot it does, no cover: more volleys than ``planner exposure`` counts, so in
    general the expected OC is a lower bound of the report's; each volley is the attacker's best by
    expected models lost, so this is not a proof),
    then Below Half-strength and battle-shock (:func:`planner.combat.exposure.oc_after`); a group
    with no model in range of the objective has OC 0 there. >= 0; 0 when the whole OC is kept.
    The lower bound (before any sight test): the OC of the models whose bounding disc cannot be in range.

    Raises ScenarioError for an unknown objective, a unit without OC or Ld (naming the field), or an
    enemy unit without a profile."""
    from planner.combat.exposure import model_oc, oc_after, oc_unit

    if g.kind not in world.ruleset.GOAL_KINDS:
        raise err(f"{g.kind} goals are not goals of ruleset {world.scenario.ruleset}", "kind", g.kind)
    o = next((o for o in world.scenario.objectives if o.id == g.objective), None)
    if o is None:
        raise err("no objective with this id", "objective", g.objective)
    ex, movers = _exposure_model(world, table, player, cache)
    full = {m.ref: float(model_oc(world, m, ex.lookup)[0]) for uid in sorted(placing)
            for m in world.units[uid].models}

    def oc_lost(placed: Placed, fps: list[Footprint], mask: list[bool]) -> float:
        ou = oc_unit(world, placed, o, ex.lookup)
        lost, _, wounds_lost = ex.losses(placed.unit, ex.threats_at(placed, movers), len(placed.footprints))
        kept = oc_after(world, ou, lost, wounds_lost)
        return max(0.0, ou.full - kept)

    reach = _control_range(world)
    label = (f"objective_control {o.id} (OC lost: full OC less the expected OC within {reach:g}\" after the "
             f"enemy's first turn, losses as the exposure goal's: every enemy unit able to shoot the unit does)")
    return label, Term("", "objective_control", g.weight, "OC", units, exact_is_lower=False, table=table,
                       marker=round_footprint(o.x, o.y, o.diameter_mm), range_in=reach, measure_fn=oc_lost,
                       model_oc=full)


def point_term(x: float, y: float, name: str | None = None) -> Term:
    """A single "near the point (x, y)" term (inches), for callers that stream candidates
    towards a point without a scenario goal (denial, puzzles)."""
    return Term(name or f"near_point ({x:g}, {y:g})", "near_point", 1.0, "in", None,
                points=np.array([[x, y]], dtype=float))
