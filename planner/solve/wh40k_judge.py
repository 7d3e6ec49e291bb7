"""The planner's candidate judge for the 40k rulesets (wh40k10, wh40k11).

Decides, with the checker's float-exact predicates and the edition's numbers, everything about
one candidate placement that does not involve the other units being placed: wholly on the
battlefield, wholly within the own zone (normal deployment), out of impassable terrain, no
overlap with fixed models, unengaged, and for Infiltrators more than 9" (10th) / 8" (11th) from
the enemy deployment zone and every enemy unit on the battlefield (plus the planner's margin).
Rule ids and numbers: :mod:`planner.rules.wh40k10`, :mod:`planner.rules.wh40k11`.
"""

from __future__ import annotations

from shapely.geometry import Point

from planner.geometry.measure import is_more_than_distance, overlaps
from planner.geometry.shapes import Footprint, clearance_inside, distance_to_polygon
from planner.legality.table import Placed
from planner.legality.wh40k import EDITIONS, coherency_shortfall, edition
from planner.schema import SetupMethod
from planner.units import TOLERANCE_IN


def handles(ruleset_id: str) -> bool:
    """True for the rulesets this judge serves."""
    return ruleset_id in EDITIONS


def coherent(ruleset_id: str, fps: list[Footprint]) -> bool:
    """Is a formation in coherency under the edition's rule (10th: 2" to one or two models;
    11th: also within 9" of every model)?"""
    return coherency_shortfall(fps, edition(ruleset_id))[0] >= -TOLERANCE_IN


def judge(builder, group, fps: list[Footprint]) -> tuple[tuple[str, str | None] | None, float | None]:
    """(None if legal apart from the other placed units, else (rule id, detail); nearest enemy
    distance or None). Impassable terrain, which the 40k checker does not rule on, is kept clear
    conservatively under the battlefield rule id."""
    t = builder.table
    rs = t.world.scenario.ruleset
    R = edition(rs)
    u = group.host
    for f in fps:
        if clearance_inside(f, t.battlefield) < -TOLERANCE_IN:
            return (f"{rs}.battlefield", None), None
    region = builder.region(group)
    if u.method is SetupMethod.DEPLOYMENT_ZONE:
        if region is None:
            return (f"{rs}.deployment.wholly_within_zone", None), None
        for f in fps:
            if clearance_inside(f, region) < -TOLERANCE_IN:
                return (f"{rs}.deployment.wholly_within_zone", None), None
    for feat in t.no_go_features:
        poly = t.terrain_polys[feat.id]
        for f in fps:
            if poly.distance(Point(f.cx, f.cy)) > f.outer_radius + 1e-3:
                continue
            if distance_to_polygon(f, poly) < -TOLERANCE_IN:
                return (f"{rs}.battlefield", feat.id), None
    for p in builder.fixed:
        for a in p.footprints:
            for f in fps:
                if overlaps(a, f):
                    return (f"{rs}.bases.overlap", p.unit.id), None
    enemies = [t.first(e) for e in t.enemy_units(u.player)]
    placed = Placed(u, tuple(fps), tuple(f"{m.unit_id}/{m.id}" for m in group.models))
    n = t.nearest_unit(placed, enemies)
    near = None if n is None else n[0]
    if near is not None and not is_more_than_distance(near, R.ENGAGEMENT_RANGE_IN + builder.margin):
        return (f"{rs}.engagement", n[2].unit.id), near
    if u.method is SetupMethod.INFILTRATE:
        limit = R.INFILTRATORS_MORE_THAN_IN + builder.margin
        if near is not None and not is_more_than_distance(near, limit):
            return (f"{rs}.infiltrators.distance", n[2].unit.id), near
        for z in t.world.zones.values():
            if z.player == u.player:
                continue
            poly = t.zone_polys[z.id]
            for f in fps:
                if not is_more_than_distance(max(0.0, distance_to_polygon(f, poly)), limit):
                    return (f"{rs}.infiltrators.zone_distance", z.id), near
    return None, near


OBJECTIVE_MISS_COST_IN = 20.0
"""Cost of one placed model out of range of a goal objective, in inches of distance: far more than
moving a model across an objective's range, so models in range come first."""
NO_COVER_COST_IN = 20.0
"""Cost per model of a placement without the benefit of cover against a goal's enemy unit."""


def goal_cost(builder, group, fps: list[Footprint]) -> float:
    """The 40k goals' part of a candidate's cost, inches: ``objective`` goals add
    ``OBJECTIVE_MISS_COST_IN`` per model not in range (within 3" of the marker), ``cover`` goals
    ``NO_COVER_COST_IN`` per model if the unit would not have the benefit of cover against the
    goal's unit (:meth:`planner.legality.wh40k.WH40kTable.cover_for`). Weighted per goal."""
    from planner.legality.wh40k import WH40kTable, in_objective_range

    world = builder.table.world
    R = edition(world.scenario.ruleset)
    cost = 0.0
    for g in world.scenario.goals:
        if g.kind == "objective":
            obj = next(o for o in world.scenario.objectives if o.id == g.objective)
            cost += g.weight * OBJECTIVE_MISS_COST_IN * sum(not in_objective_range(f, obj, R) for f in fps)
        elif g.kind == "cover":
            table = getattr(builder, "_wh40k_table", None)
            if table is None:
                table = builder._wh40k_table = WH40kTable(world, R)
            enemy = world.units[g.against]
            if not (enemy.on_battlefield and enemy.is_positioned):
                continue  # not on the battlefield: it cannot attack, every placement is as good
            ok, _ = table.cover_for(group.models, fps, list(table.final(enemy).footprints))
            if not ok:
                cost += g.weight * NO_COVER_COST_IN * len(fps)
    return cost
