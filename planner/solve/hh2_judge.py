"""The planner's candidate judge for Horus Heresy 2.0 (and rulesets derived from it).

Decides, with the checker's float-exact predicates and the ruleset's numbers, everything about
one candidate placement that does not involve the other units being placed: wholly on the
battlefield, wholly within the own zone (normal deployment), out of impassable terrain and solid
features, a Scout redeploy's distance from where each model stood and more than
``SCOUT_MORE_THAN_IN`` from enemy units, an Infiltrator more than
``INFILTRATE_HIDDEN_MORE_THAN_IN`` from enemy units, no overlap with fixed models, and hidden from
every deployed enemy unit when within ``INFILTRATE_PLAIN_SIGHT_MORE_THAN_IN``. "More than"
distances keep the planner's margin.

A judge module offers: :func:`rule_ids`, :func:`coherent`, :func:`prefilter_rules`,
:func:`scout_limit`, :func:`judge` and :func:`describe_all` (the 40k one,
:mod:`planner.solve.wh40k_judge`, the same); a ruleset names its judge with
:meth:`planner.rules.base.Ruleset.planner_judge`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from planner.geometry.shapes import Footprint
from planner.legality import hh2 as checks
from planner.legality.checks.coherency import is_joined_coherent
from planner.legality.checks.distance import (
    InfiltrateDistance,
    infiltrate_distance,
    moved_within,
    scout_far_enough,
)
from planner.legality.checks.placement import closest_no_go, first_outside
from planner.legality.checks.restriction import first_breach, first_setup_breach
from planner.legality.table import Placed
from planner.schema import SetupMethod

if TYPE_CHECKING:
    from planner.rules.hh2 import HorusHeresy2
    from planner.world import World

Reason = tuple[str, str | None]


def _rs(builder: Any) -> HorusHeresy2:
    return cast("HorusHeresy2", builder.table.world.ruleset)


def rule_ids(rs: HorusHeresy2) -> dict[str, str]:
    """The ruleset's ids for the planner's own constraints: 'one' (one placement per unit),
    'overlap', 'battlefield', 'capacity' (as in the checker's findings)."""
    return {"one": rs.rid("placement.one"), "overlap": rs.rid("bases.no_overlap"),
            "battlefield": rs.rid("battlefield"), "capacity": rs.rid("transport.capacity")}


def sight_rule(rs: HorusHeresy2) -> str | None:
    """The rule id of a rejection by the fast line-of-sight test (re-judged exactly when an
    infeasibility is explained)."""
    return rs.rid("infiltrate.hidden")


def coherent(rs: HorusHeresy2, models: list, fps: list[Footprint]) -> bool:
    """Is a formation of ``models`` at ``fps`` in unit coherency, by the checker's predicates
    (:func:`~planner.legality.checks.coherency.is_joined_coherent`): ``models`` the host unit's
    first, then the joined Independent Characters' (:attr:`planner.solve.candidates.Group.models`);
    each character within coherency of a model of the host itself (``hh2.ic.coherency``, not
    through another character) and the whole group linked (``hh2.coherency``)."""
    return is_joined_coherent(models, fps, rs)


def prefilter_rules(builder: Any, unit: Any) -> tuple[str, str, float, list[Placed]]:
    """For the candidate prefilter: (battlefield rule id, Infiltrate distance rule id, its
    distance in inches, the enemy units measured to)."""
    rs = _rs(builder)
    return (rs.rid("battlefield"), rs.rid("infiltrate.distance"), rs.INFILTRATE_HIDDEN_MORE_THAN_IN,
            builder._enemies(unit))


def far_from(builder: Any, unit: Any) -> list[tuple[str, float, str, list[tuple[str, Any]]]]:
    """What a model of ``unit`` must be more than a distance from wherever it stands, by rule
    alone (for :func:`planner.solve.planner.distance_limit`): (rule id, inches, what they are,
    [(enemy unit id, shapely geometry of a base)]), the same rule, distance and enemy units as
    :func:`prefilter_rules` (Infiltrate: more than 9" from every enemy unit, hidden or not); []
    for another set-up."""
    if unit.method is not SetupMethod.INFILTRATE:
        return []
    _, rule, limit, enemies = prefilter_rules(builder, unit)
    return [(rule, limit, "enemy unit", [(e.unit.id, f.polygon()) for e in enemies for f in e.footprints])]


def scout_limit(builder: Any, group: Any) -> float:
    """The Scout redeploy distance of the group's host unit, inches (6" or 12" by unit type)."""
    return checks.scout_limit(group.host, _rs(builder))


def judge(builder: Any, group: Any, fps: list[Footprint], exact_sight: bool = False
          ) -> tuple[Reason | None, float | None]:
    """(None if legal apart from the other placed units, else (rule id, detail); nearest enemy
    distance or None), in the order battlefield, zone, impassable, Scout distance, distance to
    the enemy, overlap with fixed models, line of sight (the sound fast test unless
    ``exact_sight``)."""
    t = builder.table
    rs = _rs(builder)
    u = group.host
    static = static_reason(builder, group)
    if static is not None:
        return static, None
    if first_outside(fps, t.battlefield) is not None:
        return (rs.rid("battlefield"), None), None
    if u.method is SetupMethod.DEPLOYMENT_ZONE:
        region = builder.region(group)
        if region is None or first_outside(fps, region) is not None:
            return (rs.rid("deployment.wholly_within_zone"), None), None
    no_go = closest_no_go(fps, t.no_go_polys, first_hit=True)
    if no_go is not None and not no_go.ok:
        return (rs.rid("terrain.impassable"), no_go.feature), None
    near = None
    placed = Placed(u, tuple(fps), tuple(f"{m.unit_id}/{m.id}" for m in group.models))
    if u.method is SetupMethod.SCOUT:
        first = [(f, checks.scout_limit(m, rs)) for m in group.members for f in t.first(m).footprints]
        if not all(moved_within(a, b, limit) for (a, limit), b in zip(first, fps, strict=True)):
            return (rs.rid("scout.distance"), None), None
        n = builder._nearest(placed, builder._enemies(u))
        if n is not None:
            near = n[0]
            if not scout_far_enough(rs, near, builder.margin):
                return (rs.rid("scout.more_than_9"), n[2].unit.id), near
    verdict = None
    if u.method is SetupMethod.INFILTRATE:
        n = builder._nearest(placed, builder._enemies(u))
        if n is not None:
            near = n[0]
            # keep a margin a player can reproduce with a tape measure
            verdict = infiltrate_distance(rs, near, builder.margin)
            if verdict is InfiltrateDistance.TOO_CLOSE:
                return (rs.rid("infiltrate.distance"), n[2].unit.id), near
    holders = _holders(builder, builder._enemies(u))
    breach = first_breach(t, placed, builder.margin, holders=holders) if holders else None
    if breach is not None:
        return (rs.rid("restriction.within"), breach.held.holder.id), near if near is not None else breach.distance
    # after the distance to the enemy (a base on an enemy base is also too close to it)
    hit = builder._fixed_overlap(fps)
    if hit is not None:
        return (rs.rid("bases.no_overlap"), hit), near
    if verdict is InfiltrateDistance.HIDDEN_NEEDED:
        seen_by, _ = t.sight_from_any(builder._enemies(u), placed, exact=exact_sight)
        if seen_by is not None:
            return (rs.rid("infiltrate.hidden"), seen_by.unit.id), near
    return None, near


def _holders(builder: Any, enemies: list[Placed]) -> list[Placed]:
    """The ``enemies`` that hold a restriction (:attr:`planner.legality.table.Table.restriction_holders`),
    in order, kept per list: the others add no verdict to :func:`first_breach`, so the verdicts
    are the same."""
    cache = builder.__dict__.setdefault("_hh2_holders", {})
    hit = cache.get(id(enemies))
    if hit is None or hit[0] is not enemies:
        held = {h.id for h in builder.table.restriction_holders}
        hit = cache[id(enemies)] = (enemies, [e for e in enemies if e.unit.id in held])
    return cast("list[Placed]", hit[1])


def static_reason(builder: Any, group: Any) -> Reason | None:
    """Why no placement of the group can be legal whatever its position, by the checker's own
    predicates (cached per group): a unit set up by Infiltrate or Scout without the rule, a Scout
    whose first set-up breaks an enemy restriction on that method (the one predicate,
    :func:`first_setup_breach`), or an Independent Character that may not join its unit (Infiltrate, unit type, not an IC). Members in
    ``builder.waived`` are not asked."""
    cache = builder.__dict__.setdefault("_hh2_static", {})
    if group.id in cache:
        return cast("Reason | None", cache[group.id])
    world, rs = builder.table.world, _rs(builder)
    checker = checks.HH2Checker(world, rs)
    why: Reason | None = None
    for m in group.members:
        if m.id in getattr(builder, "waived", ()):
            continue
        if m.method is SetupMethod.INFILTRATE and not checks.has_infiltrate_for_setup(world, m):
            why = (rs.rid("infiltrate.eligible"), m.id)
        elif m.method is SetupMethod.SCOUT and not checks.has_scout_for_setup(world, m):
            why = (rs.rid("scout.eligible"), m.id)
        elif (breach := first_setup_breach(builder.table, m)) is not None:
            # the first set-up is given, not planned: judged as the checker does (no margin)
            why = (rs.rid("restriction.within"), breach.held.holder.id)
        elif m.setup.joined:
            checker.check_ic(m)
            coherency = rs.rid("ic.coherency")  # the formation keeps the IC in coherency
            bad = [f for f in checker.findings[m.id] if not f.passed and f.rule != coherency]
            why = (bad[0].rule, m.id) if bad else None
        if why is not None:
            break
    cache[group.id] = why
    return why


# --------------------------------------------------------------------------- explanations

_RULE_ORDER = ("infiltrate.distance", "scout.more_than_9", "infiltrate.hidden", "scout.distance",
               "deployment.wholly_within_zone", "battlefield", "terrain.impassable", "bases.no_overlap")
"""The order of the phrases in an explanation (rule ids less the ruleset prefix)."""


def _name(rule: str) -> str:
    return rule.split(".", 1)[1] if "." in rule else rule


def _describe(world: World, rs: HorusHeresy2, rule: str, detail: str | None, unit: Any) -> str:
    def lab(uid: str | None) -> str:
        if uid is None:
            return "?"
        u = world.units.get(uid)
        return f"{u.label} ({uid})" if u is not None and u.label != uid else uid

    name = _name(rule)
    if name == "battlefield":
        return "wholly on the battlefield"
    if name == "deployment.wholly_within_zone":
        return "wholly within its deployment zone"
    if name == "terrain.impassable":
        return f"clear of {detail} (impassable terrain, buildings and walls)"
    if name == "bases.no_overlap":
        return f"clear of the bases of {lab(detail)}"
    if name == "infiltrate.distance":
        return f"more than {rs.INFILTRATE_HIDDEN_MORE_THAN_IN:g}\" from enemy unit {lab(detail)}"
    if name == "infiltrate.hidden":
        return (f"out of sight of every enemy unit or more than {rs.INFILTRATE_PLAIN_SIGHT_MORE_THAN_IN:g}\" from "
                f"them all (seen by enemy unit {lab(detail)})")
    if name == "scout.distance":
        return f"entirely within {checks.scout_limit(unit, rs):g}\" of where each model stood"
    if name == "scout.more_than_9":
        return f"more than {rs.SCOUT_MORE_THAN_IN:g}\" from enemy unit {lab(detail)}"
    if name == "restriction.within":
        first = " at the Scout's first set-up or its redeploy" if getattr(unit, "method", None) is SetupMethod.SCOUT else ""
        return f"clear of the restriction of enemy unit {lab(detail)} (no enemy set-up within its distance{first})"
    if name == "infiltrate.eligible":
        return f"set up by Infiltrate ({lab(detail)} has no model with Infiltrate)"
    if name == "scout.eligible":
        return f"set up by a Scout redeploy ({lab(detail)} has no model with Scout)"
    if name in ("ic.infiltrate", "ic.unit_type", "ic.eligible"):
        return f"joined by {lab(detail)} ({rs.rule(rule).meaning})"
    return rule if detail is None else f"{rule} ({detail})"


def _plural(rs: HorusHeresy2, name: str) -> str | None:
    return {
        "infiltrate.distance": f"more than {rs.INFILTRATE_HIDDEN_MORE_THAN_IN:g}\" from enemy units {{}}",
        "scout.more_than_9": f"more than {rs.SCOUT_MORE_THAN_IN:g}\" from enemy units {{}}",
        "infiltrate.hidden": f"out of sight of every enemy unit or more than {rs.INFILTRATE_PLAIN_SIGHT_MORE_THAN_IN:g}\" "
                             "from them all (seen by enemy units {})",
        "terrain.impassable": "clear of {} (impassable terrain, buildings and walls)",
        "bases.no_overlap": "clear of the bases of {}",
    }.get(name)


def describe_all(world: World, unit: Any, by_rule: dict[str, list[str | None]]) -> list[str]:
    """One phrase per rule of an infeasibility explanation, naming every unit or feature of that
    rule in the conflict ("no position on the grid is <phrase> and <phrase>")."""
    rs = cast("HorusHeresy2", world.ruleset)

    def rank(rule: str) -> int:
        n = _name(rule)
        return _RULE_ORDER.index(n) if n in _RULE_ORDER else len(_RULE_ORDER)

    out = []
    for rule in sorted(by_rule, key=rank):
        details = by_rule[rule]
        plural = _plural(rs, _name(rule))
        if len(details) == 1 or plural is None:
            out.append(_describe(world, rs, rule, details[0], unit))
            continue
        names = [d or "?" for d in details]
        listed = ", ".join(names[:6]) + (f" and {len(names) - 6} more" if len(names) > 6 else "")
        out.append(plural.format(listed))
    return out
