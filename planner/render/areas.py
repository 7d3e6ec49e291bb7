"""Areas drawn on the battlefield picture: true base outlines, exclusion areas, legal set-up areas.

Coordinates are inches. Outlines are polygons fine enough to draw and to measure areas with:
round and oval bases are sampled at :data:`OUTLINE_POINTS` points on the true circle/ellipse
(every vertex on the curve), hulls are their exact rectangles. An exclusion area is the set of
points within D" of a unit: the union over its models of the base outline offset by D
(``shapely`` buffer with :data:`BUFFER_QUAD_SEGS` segments per quarter circle), the true offset
of an oval or a hull, not a circle about its centre.
"""

from __future__ import annotations

from dataclasses import dataclass

import shapely
from shapely.geometry import Polygon, box
from shapely.geometry.base import BaseGeometry
from shapely.ops import unary_union

from planner.errors import ScenarioError
from planner.geometry.shapes import Footprint, footprint
from planner.rules.base import InfiltrateDistances
from planner.schema import SetupMethod
from planner.world import ModelInfo, UnitInfo, World, no_unit_text

OUTLINE_POINTS = 720
"""Vertices of a round or oval base outline (inscribed: every vertex on the true curve)."""
BUFFER_QUAD_SEGS = 64
"""Segments per quarter circle of an offset's rounded corners."""


DRAW_POINTS = 180
"""Vertices of a drawn round or oval base (0.0001\" from the true curve for a 32 mm base)."""


def outline(fp: Footprint, n: int = OUTLINE_POINTS) -> Polygon:
    """The outline of a footprint as a polygon: exact for hulls, ``n`` points on the true curve
    (circle or ellipse) otherwise."""
    return fp.polygon(n)


def model_footprint(m: ModelInfo) -> Footprint | None:
    """The model's footprint where it stands, or None if it has no position."""
    if m.x is None or m.y is None:
        return None
    return footprint(m.base, m.x, m.y, m.facing)


def placed_models(u: UnitInfo) -> list[tuple[ModelInfo, Footprint]]:
    """The unit's positioned models with their footprints (none for a unit off the battlefield)."""
    if not u.on_battlefield:
        return []
    return [(m, fp) for m in u.models if (fp := model_footprint(m)) is not None]


def unit_exclusion(u: UnitInfo, distance_in: float):
    """Points within ``distance_in`` inches of some base of unit ``u`` (a shapely geometry; empty if
    the unit has no model on the battlefield)."""
    return footprints_exclusion([fp for _, fp in placed_models(u)], distance_in)


def enemies_on_battlefield(world: World, player: str) -> list[UnitInfo]:
    """Enemy units of ``player`` with at least one model on the battlefield."""
    return [u for u in world.enemies_of(player) if placed_models(u)]


def infiltrate_distances(ruleset: str, option: str = "--exclusion", value: str | None = None) -> InfiltrateDistances:
    """The Infiltrate distances of the ruleset with id ``ruleset``
    (:meth:`planner.rules.base.Ruleset.infiltrate_distances`: HH2's 9"/12", 40k's Infiltrators
    9" (10th) / 8" (11th) from enemy models and the enemy deployment zone).

    Raises
    ------
    ScenarioError
        If the ruleset is unknown, or has no Infiltrate set-up (e.g. wh40k5, wh40k7): the error
        names ``option`` (``--exclusion``, ``--legal-area``; the web page's field) with ``value``
        (the option's value; the ruleset's id without one) and the rulesets that have one; exit 2,
        as an option the ruleset does not use.
    """
    from planner.rules.registry import all_rulesets, find_ruleset

    d = find_ruleset(ruleset).infiltrate_distances()
    if d is None:
        have = ", ".join(r.id for r in all_rulesets() if r.infiltrate_distances() is not None)
        raise ScenarioError(f"ruleset {ruleset} has no Infiltrate set-up, so there are no Infiltrate distances to "
                            f"draw (drawn for {have})", location=option, value=value if value is not None else ruleset)
    return d


def footprints_exclusion(fps, distance_in: float):
    """Points within ``distance_in`` inches of some of the footprints ``fps`` (their outlines
    offset, as :func:`unit_exclusion`; empty for none)."""
    parts = [outline(fp).buffer(distance_in, quad_segs=BUFFER_QUAD_SEGS) for fp in fps]
    return unary_union(parts) if parts else Polygon()


def infiltrators_measured_to(world: World, player: str):
    """The enemy units a 40k Infiltrator of ``player`` is measured to, as the checker measures
    them (``WH40kChecker.enemies(u, "first")``): each enemy unit on the battlefield (not embarked,
    not in reserves) at the footprints where it was set up (before a Scouts move). A list of
    :class:`planner.legality.table.Placed`."""
    table = world.ruleset.table(world)
    return [table.first(e) for e in table.enemy_units(player)]


def enemy_zones(world: World, player: str) -> list[tuple[str, Polygon]]:
    """(zone id, polygon) of every deployment zone not ``player``'s: the checker's enemy zones
    (``WH40kChecker.enemy_zones``, the table's zone polygons)."""
    polys = world.ruleset.table(world).zone_polys
    return [(z.id, polys[z.id]) for z in world.zones.values() if z.player != player]


def zone_exclusion(world: World, player: str, distance_in: float):
    """Points within ``distance_in`` inches of an enemy deployment zone of ``player`` (the zones
    themselves included: a model in a zone is 0" from it), rule ``infiltrators.zone_distance``."""
    parts = [poly.buffer(distance_in, quad_segs=BUFFER_QUAD_SEGS) for _, poly in enemy_zones(world, player)]
    return unary_union(parts) if parts else Polygon()


@dataclass(frozen=True)
class Exclusion:
    """One exclusion area of an Infiltrate overlay: the points within ``distance_in`` of ``source``
    (an enemy unit, ``kind`` 'unit', or an enemy deployment zone, ``kind`` 'zone'); ``geom`` a
    shapely geometry, inches."""

    distance_in: float
    kind: str
    source: str
    geom: BaseGeometry


def infiltrate_exclusions(world: World, player: str, option: str = "--exclusion", value: str | None = None
                          ) -> tuple[InfiltrateDistances, list[Exclusion]]:
    """The ruleset's Infiltrate distances and the areas an Infiltrator of ``player`` must keep out
    of, as the checker measures them: HH2, within the plain-sight distance (12") and within the
    hidden distance (9") of each enemy unit on the battlefield where it was set up (before a Scout
    redeploy) and of each Building holding an enemy garrison; 40k Infiltrators, within 9" (10th) /
    8" (11th) of each enemy unit where it was set up (:func:`infiltrators_measured_to`) and of each
    enemy deployment zone. Plain-sight areas first; an enemy unit without a model on the battlefield
    has none.

    Raises
    ------
    ScenarioError
        A ruleset without Infiltrate distances (:func:`infiltrate_distances`, naming ``option`` and ``value``: the option's value, the player without one).
    """
    d = infiltrate_distances(world.scenario.ruleset, option, value if value is not None else player)
    out: list[Exclusion] = []
    if d.hidden_in is None:
        out += [Exclusion(d.plain_in, "unit", p.unit.id, footprints_exclusion(p.footprints, d.plain_in))
                for p in infiltrators_measured_to(world, player) if p.footprints]
        if d.zone_in is not None:
            out += [Exclusion(d.zone_in, "zone", zid, poly.buffer(d.zone_in, quad_segs=BUFFER_QUAD_SEGS))
                    for zid, poly in enemy_zones(world, player)]
        return d, out
    # HH2: the checker's observers (Table.enemy_presence(..., "first")): where each enemy unit was
    # set up (before a Scout redeploy, which comes after Infiltrate), a garrison as its Building
    presence = world.ruleset.table(world).enemy_presence(player, "first")
    for dist in (d.plain_in, d.hidden_in):
        out += [Exclusion(dist, "unit", p.unit.id, footprints_exclusion(p.footprints, dist))
                for p in presence if p.footprints]
    return d, out


def no_go_terrain(world: World):
    """Terrain no model may stand in (impassable, solid features such as buildings, and every
    wall): the checker's own list (:attr:`planner.legality.table.Table.no_go_polys`)."""
    polys = [p for _, p in world.ruleset.table(world).no_go_polys]
    return unary_union(polys) if polys else Polygon()


@dataclass(frozen=True)
class LegalArea:
    """Where the bases of a unit may stand for its set-up.

    ``certain``: every base wholly inside is legal as far as distances, zones and terrain go;
    ``if_hidden``: legal only if no deployed enemy unit can draw line of sight (not shaded as
    certain, because sight depends on where the whole unit stands); ``what`` says in words what is
    shaded (for the legend).
    """

    unit: str
    certain: object
    if_hidden: object | None
    what: str
    what_hidden: str | None = None


def legal_area(world: World, unit_id: str, option: str = "--legal-area") -> LegalArea:
    """The area where the bases of ``unit_id`` may stand for its set-up (see :class:`LegalArea`;
    ``option``: what an error names, the command line's ``--legal-area`` or the web page's field).

    Deployment zone: the zone minus no-go terrain. Infiltrate (HH2 p.242): the battlefield minus
    no-go terrain, more than the plain-sight distance from every enemy unit (certain), and the band
    between the hidden and plain-sight distances (only if hidden). 40k Infiltrators (10E-GST /
    11E-GST p.39): the battlefield minus no-go terrain, more than 9" (10th) / 8" (11th) from every
    enemy deployment zone and from every enemy unit on the battlefield where it was set up (the
    checker's rules ``infiltrators.zone_distance`` and ``infiltrators.distance``, the same numbers
    and the same units measured to). Scout (HH2 p.246): the battlefield
    minus no-go terrain, within the unit's 6"/12" of where its models stood (the union over its
    models: each model may only use the part round its own start) and more than 9" from every
    enemy unit.

    Raises
    ------
    ScenarioError
        Unknown unit, a set-up that is not on the battlefield (embarked, reserves), or an
        Infiltrator of a ruleset without Infiltrate distances (naming ``--legal-area``).
    """
    if unit_id not in world.units:
        raise ScenarioError(no_unit_text(world.units), file=world.file, location=option, value=unit_id)
    u = world.units[unit_id]
    bf = world.scenario.battlefield
    field = box(0.0, 0.0, bf.width, bf.depth).difference(no_go_terrain(world))
    method = u.method
    if method is SetupMethod.SCOUT:
        method = SetupMethod(u.setup.first) if u.setup.first else SetupMethod.DEPLOYMENT_ZONE
        rs = world.ruleset
        more_than = rs.SCOUT_MORE_THAN_IN
        if more_than is not None and u.setup.from_ is not None:
            from planner.legality.hh2 import scout_limit

            limit = scout_limit(u, rs)  # type: ignore[arg-type]
            starts = [footprint(m.base, p[0], p[1], p[2] if len(p) > 2 else m.facing)
                      for m, p in zip(u.models, u.setup.from_, strict=True)]
            reach = unary_union([outline(fp).buffer(limit, quad_segs=BUFFER_QUAD_SEGS) for fp in starts])
            # the checker's: every enemy where it stands now, a garrison as its Building
            excl = unary_union([footprints_exclusion(p.footprints, more_than)
                                for p in world.ruleset.table(world).enemy_presence(u.player, "final")])
            return LegalArea(u.id, field.intersection(reach).difference(excl), None,
                             f"{u.id}: Scout, within {limit:g}\" of where its models stood (each model of its "
                             f"own) and more than {more_than:g}\" from enemies")
    if method is SetupMethod.DEPLOYMENT_ZONE:
        zone_id = u.setup.zone or (z.id if (z := world.zone_of(u.player)) else None)
        if zone_id is None:
            raise ScenarioError("the unit's player has no deployment zone", file=world.file,
                                location=option, value=unit_id)
        zone = Polygon(world.zones[zone_id].polygon)
        return LegalArea(u.id, zone.intersection(field), None, f"{u.id}: deployment zone {zone_id}")
    if method is SetupMethod.INFILTRATE:
        d = infiltrate_distances(world.scenario.ruleset, option, unit_id)
        if d.hidden_in is None:  # 40k Infiltrators: one distance, from the enemy zones and units
            rid = world.ruleset.id
            zones = [zone_exclusion(world, u.player, d.zone_in)] if d.zone_in is not None else []
            far = unary_union(zones + [footprints_exclusion(p.footprints, d.plain_in)
                                 for p in infiltrators_measured_to(world, u.player)])
            return LegalArea(u.id, field.difference(far), None,
                             f"{u.id}: Infiltrators, more than {d.plain_in:g}\" from the enemy deployment zone and "
                             f"enemy models ({rid}.{d.zone_rule}, {rid}.{d.unit_rule})")
        from planner.legality.hh2 import deployed_before  # the checker's observers of u (case 3 order)

        enemies = [p.footprints for p in world.ruleset.table(world).enemy_presence(u.player, "first")
                   if p.footprints and deployed_before(p.unit, u)]
        near = unary_union([footprints_exclusion(f, d.hidden_in) for f in enemies]) if enemies else Polygon()
        far = unary_union([footprints_exclusion(f, d.plain_in) for f in enemies]) if enemies else Polygon()
        certain = field.difference(far)
        band = field.difference(near).difference(certain)
        return LegalArea(u.id, certain, band,
                         f"{u.id}: Infiltrate, more than {d.plain_in:g}\" from enemies",
                         f"{u.id}: Infiltrate {d.hidden_in:g}\"-{d.plain_in:g}\", only if hidden")
    hint = ("; for Deep Strike use 'planner deepstrike --render'" if u.method is SetupMethod.RESERVES
            else f"; draw the legal area of {u.setup.in_} instead" if u.method is SetupMethod.EMBARKED else "")
    raise ScenarioError(f"the unit is not set up on the battlefield (set-up {u.method.value}){hint}",
                        file=world.file, location=option, value=unit_id)


def area(geom) -> float:
    """Area of a shapely geometry, square inches."""
    return float(shapely.area(geom))
