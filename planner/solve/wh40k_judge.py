"""The planner's candidate judge for the 40k rulesets (wh40k10, wh40k11).

Decides, with the checker's float-exact predicates and the edition's numbers, everything about
one candidate placement that does not involve the other units being placed: wholly on the
battlefield, wholly within the own zone (normal deployment), out of impassable terrain, no
overlap with fixed models, unengaged, for Infiltrators more than 9" (10th) / 8" (11th) from
the enemy deployment zone and every enemy unit on the battlefield, and for a Scouts move (the
candidate is where it ends) what the checker's ``check_scouts`` asks: the unit may make it
(``scouts.eligible``), its position before the move qualifies (``scouts.first_position``; 11th:
wholly within its own zone) and is unengaged, no part of a model ends more than its Scouts X"
from where it stood (``scouts.distance``), and it ends more than 9" (10th) / 8" (11th) from every
enemy unit at its final position (``scouts.more_than``). "More than" distances keep the planner's
margin. Rule ids and numbers: :mod:`planner.rules.wh40k10`, :mod:`planner.rules.wh40k11`;
:func:`describe` gives the infeasibility explanation's phrase for each rule id.
"""

from __future__ import annotations

from typing import Any

from planner.geometry.measure import farthest_from, is_more_than_distance, is_within_distance
from planner.geometry.shapes import Footprint, distance_to_polygon
from planner.legality.checks.coherency import is_coherent_40k
from planner.legality.checks.distance import infiltrators_far_enough
from planner.legality.checks.placement import closest_no_go, first_outside
from planner.legality.checks.restriction import first_breach, first_setup_breach
from planner.legality.table import Placed
from planner.legality.wh40k import WH40kChecker, edition
from planner.schema import SetupMethod


def rule_ids(rs) -> dict[str, str]:
    """The ruleset's ids for the planner's own constraints: 'one' (one placement per unit),
    'overlap', 'battlefield', 'capacity' (as in the checker's findings)."""
    return {"one": rs.rid("placement.one"), "overlap": rs.rid("bases.overlap"),
            "battlefield": rs.rid("battlefield"), "capacity": rs.rid("transport.capacity")}


def sight_rule(rs) -> str | None:
    """None: no 40k candidate is rejected by a line-of-sight test."""
    return None


def coherent(rs, models, fps: list[Footprint]) -> bool:
    """Is a formation in coherency under the edition's rule (10th: 2" to one or two models;
    11th: also within 9" of every model)?"""
    return is_coherent_40k(fps, rs)


def _checker(builder) -> WH40kChecker:
    """The checker of the scenario being planned (its Scouts eligibility and first-position tests)."""
    c = getattr(builder, "_wh40k_checker", None)
    if c is None:
        c = builder._wh40k_checker = WH40kChecker(builder.table.world)
    return c


def scout_limit(builder, group) -> float:
    """The least Scouts X" (inches) of the group's units (as the checker reads it: every model,
    or a DEDICATED TRANSPORT's embarked models); 0 if one may not make a Scouts move."""
    xs = [_checker(builder).scouts_eligibility(m)[1] for m in group.members]
    return 0.0 if any(x is None for x in xs) else min(x for x in xs if x is not None)


def static_reason(builder, group) -> tuple[str, str | None] | None:
    """Why no placement of the group can be legal whatever its position, or None: for a Scouts
    move, the unit may not make it or its position before the move does not qualify."""
    if group.host.method is SetupMethod.SCOUT:
        return _scouts_before(builder, group)
    return None


def _scouts_before(builder, group) -> tuple[str, str | None] | None:
    """Why the group cannot make the Scouts move whatever its end (rule id, detail), or None:
    not eligible, a position before the move that does not qualify, engaged there, or set up there
    against an enemy restriction on that method (:func:`first_setup_breach`). Cached."""
    cache = builder.__dict__.setdefault("_wh40k_scouts_before", {})
    if group.id in cache:
        return cache[group.id]
    c = _checker(builder)
    P = c.P
    why = None
    for m in group.members:
        if m.id in getattr(builder, "waived", ()):
            continue
        if not c.scouts_eligibility(m)[0]:
            why = (P + "scouts.eligible", m.id)
            break
        if not c.scouts_first_position(m)[0]:
            why = (P + "scouts.first_position", m.id)
            break
        first = builder.table.first(m)
        near = builder.table.nearest_unit(first, c.enemies(m, "first"))
        if near is not None and not is_more_than_distance(near[0], c.R.ENGAGEMENT_RANGE_IN):
            why = (P + "engagement", near[2].unit.id)
            break
        breach = first_setup_breach(builder.table, m)  # given, not planned: as the checker (no margin)
        if breach is not None:
            why = (P + "restriction.within", breach.held.holder.id)
            break
    cache[group.id] = why
    return why


def prefilter_rules(builder, unit) -> tuple[str, str, float, list[Placed]]:
    """For the candidate prefilter: (battlefield rule id, Infiltrators distance rule id, its
    distance in inches, the enemy units measured to where they were set up)."""
    t = builder.table
    rs = t.world.scenario.ruleset
    return (f"{rs}.battlefield", f"{rs}.infiltrators.distance", edition(rs).INFILTRATORS_MORE_THAN_IN,
            [t.first(e) for e in t.enemy_units(unit.player)])


def far_from(builder, unit) -> list[tuple[str, float, str, list[tuple[str, Any]]]]:
    """What a model of ``unit`` must be more than a distance from wherever it stands, by rule
    alone (for :func:`planner.solve.planner.distance_limit`): (rule id, inches, what they are,
    [(id, shapely geometry)]). Infiltrators (:func:`judge`'s tests): more than the edition's distance from every
    enemy model where it was set up, and from every enemy deployment zone; [] for another set-up."""
    if unit.method is not SetupMethod.INFILTRATE:
        return []
    t = builder.table
    _, rule, limit, enemies = prefilter_rules(builder, unit)
    zones = [(z.id, t.zone_polys[z.id]) for z in t.world.zones.values() if z.player != unit.player]
    return [(rule, limit, "enemy unit", [(e.unit.id, f.polygon()) for e in enemies for f in e.footprints]),
            (f"{t.world.scenario.ruleset}.infiltrators.zone_distance", limit, "enemy deployment zone", zones)]


def enemies_final(t, u) -> list[Placed]:
    """The enemy units on the table where they stand (holders of restrictions)."""
    return [t.final(e) for e in t.enemy_units(u.player)]


def judge(builder, group, fps: list[Footprint], exact_sight: bool = False
          ) -> tuple[tuple[str, str | None] | None, float | None]:
    """(None if legal apart from the other placed units, else (rule id, detail); nearest enemy
    distance or None). Impassable terrain, which the 40k checker does not rule on, is kept clear
    conservatively under the battlefield rule id."""
    t = builder.table
    rs = t.world.scenario.ruleset
    R = edition(rs)
    u = group.host
    if first_outside(fps, t.battlefield) is not None:
        return (f"{rs}.battlefield", None), None
    region = builder.region(group)
    if u.method is SetupMethod.DEPLOYMENT_ZONE:
        if region is None or first_outside(fps, region) is not None:
            return (f"{rs}.deployment.wholly_within_zone", None), None
    no_go = closest_no_go(fps, t.no_go_polys, first_hit=True)
    if no_go is not None and not no_go.ok:
        return (f"{rs}.terrain.placement", no_go.feature), None
    hit = builder._fixed_overlap(fps)
    if hit is not None:
        return (f"{rs}.bases.overlap", hit), None
    placed = Placed(u, tuple(fps), tuple(f"{m.unit_id}/{m.id}" for m in group.models))
    breach = first_breach(t, placed, builder.margin, holders=enemies_final(t, u))
    if breach is not None:
        return (f"{rs}.restriction.within", breach.held.holder.id), breach.distance
    if u.method is SetupMethod.SCOUT:
        return _judge_scouts(builder, group, fps, placed)
    enemies = [t.first(e) for e in t.enemy_units(u.player)]
    n = t.nearest_unit(placed, enemies)
    near = None if n is None else n[0]
    if near is not None and not is_more_than_distance(near, R.ENGAGEMENT_RANGE_IN + builder.margin):
        return (f"{rs}.engagement", n[2].unit.id), near
    if u.method is SetupMethod.INFILTRATE:
        if near is not None and not infiltrators_far_enough(R, near, builder.margin):
            return (f"{rs}.infiltrators.distance", n[2].unit.id), near
        for z in t.world.zones.values():
            if z.player == u.player:
                continue
            poly = t.zone_polys[z.id]
            for f in fps:
                if not infiltrators_far_enough(R, max(0.0, distance_to_polygon(f, poly)), builder.margin):
                    return (f"{rs}.infiltrators.zone_distance", z.id), near
    return None, near


def _judge_scouts(builder, group, fps: list[Footprint], placed: Placed
                  ) -> tuple[tuple[str, str | None] | None, float | None]:
    """A Scouts move ending at ``fps``: the checks of ``WH40kChecker.check_scouts`` (and its
    engagement check, made where the unit was set up), the move's end more than the edition's
    distance plus the planner's margin from every enemy unit at its final position."""
    t = builder.table
    R = edition(t.world.scenario.ruleset)
    before = _scouts_before(builder, group)
    if before is not None:
        return before, None
    k = 0
    for m in group.members:
        x = _checker(builder).scouts_eligibility(m)[1]
        first = t.first(m).footprints
        for a, b in zip(first, fps[k:k + len(first)], strict=True):
            if x is None or not is_within_distance(farthest_from(a, b), x):
                return (R.id + ".scouts.distance", m.id), None
        k += len(first)
    n = t.nearest_unit(placed, [t.final(e) for e in t.enemy_units(group.host.player)])
    near = None if n is None else n[0]
    if near is not None and not is_more_than_distance(near, R.SCOUTS_MORE_THAN_IN + builder.margin):
        return (R.id + ".scouts.more_than", n[2].unit.id), near
    return None, near


def describe(world, rule: str, details: list[str | None], label) -> str:
    """The infeasibility explanation's phrase for a 40k rule id and the units or features it
    names (``details``; ``label(id)`` names a unit), with the edition's numbers: "no position
    on the grid is <phrase> and <phrase>"."""
    R = edition(world.scenario.ruleset)
    names = [label(d) if d in world.units else (d or "?") for d in details]
    listed = ", ".join(names[:6]) + (f" and {len(names) - 6} more" if len(names) > 6 else "")
    many = len(names) > 1
    units = f"enemy unit{'s' if many else ''} {listed}"
    name = rule.split(".", 1)[1]
    if name == "battlefield":
        return "wholly on the battlefield"
    if name == "terrain.placement":
        feats = sorted({d for d in details if d is not None})
        return f"clear of {', '.join(feats) or 'no-go terrain'} (impassable terrain, solid features and walls)"
    if name == "deployment.wholly_within_zone":
        return "wholly within its deployment zone"
    if name == "bases.overlap":
        return f"clear of the bases of {listed}"
    if name == "restriction.within":
        return f"clear of the restrictions of {units} (no enemy set-up within their distance)"
    if name == "engagement":
        return f"more than {R.ENGAGEMENT_RANGE_IN:g}\" (Engagement Range) from {units}"
    if name == "infiltrators.distance":
        return f"more than {R.INFILTRATORS_MORE_THAN_IN:g}\" from {units} (Infiltrators)"
    if name == "infiltrators.zone_distance":
        return (f"more than {R.INFILTRATORS_MORE_THAN_IN:g}\" from the enemy deployment zone{'s' if many else ''} "
                f"{listed} (Infiltrators)")
    if name == "scouts.eligible":
        return f"reachable by a Scouts move ({listed}: not every model has Scouts)"
    if name == "scouts.first_position":
        where = ("wholly within its own deployment zone" if R.SCOUTS_FIRST_WHOLLY_IN_OWN_ZONE
                 else "a legal set-up")
        return f"reachable by a Scouts move ({listed}: the position before the move is not {where})"
    if name == "scouts.distance":
        return f"within the Scouts move of {listed} (no part of a model more than its Scouts X\" from where it stood)"
    if name == "scouts.more_than":
        return f"more than {R.SCOUTS_MORE_THAN_IN:g}\" from {units} (Scouts move)"
    return rule if not any(details) else f"{rule} ({listed})"


RULE_ORDER = ("infiltrators.distance", "infiltrators.zone_distance", "scouts.more_than", "engagement",
              "scouts.eligible", "scouts.first_position", "scouts.distance", "deployment.wholly_within_zone",
              "battlefield", "bases.overlap")
"""The order of the phrases in an explanation (rule ids less the ruleset prefix)."""


def rule_rank(rule: str) -> int:
    name = rule.split(".", 1)[1]
    return RULE_ORDER.index(name) if name in RULE_ORDER else len(RULE_ORDER)


def describe_all(world, unit, by_rule: dict[str, list[str | None]]) -> list[str]:
    """One phrase per rule of an infeasibility explanation (:func:`describe`), in :data:`RULE_ORDER`."""
    def lab(uid: str) -> str:
        u = world.units[uid]
        return f"{u.label} ({uid})" if u.label != uid else uid

    out = [describe(world, rule, by_rule[rule], lab) for rule in sorted(by_rule, key=rule_rank)]
    if getattr(unit, "method", None) is SetupMethod.SCOUT:  # judged at the first set-up too
        out = [p.replace("(no enemy set-up within their distance)",
                         "(no enemy set-up within their distance at the first set-up or the Scouts move)")
               for p in out]
    return out


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
