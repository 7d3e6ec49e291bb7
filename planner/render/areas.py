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
from shapely.ops import unary_union

from planner.errors import ScenarioError
from planner.geometry.shapes import Footprint, footprint
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
    parts = [outline(fp).buffer(distance_in, quad_segs=BUFFER_QUAD_SEGS) for _, fp in placed_models(u)]
    return unary_union(parts) if parts else Polygon()


def enemies_on_battlefield(world: World, player: str) -> list[UnitInfo]:
    """Enemy units of ``player`` with at least one model on the battlefield."""
    return [u for u in world.enemies_of(player) if placed_models(u)]


@dataclass(frozen=True)
class InfiltrateDistances:
    """The ruleset's Infiltrate distances: more than ``hidden_in`` if hidden, more than ``plain_in``."""

    hidden_in: float
    plain_in: float


def infiltrate_distances(ruleset: str) -> InfiltrateDistances:
    """The Infiltrate distances of the ruleset with id ``ruleset`` (its ``INFILTRATE_*`` numbers).

    Raises
    ------
    ScenarioError
        If the ruleset is unknown or defines no Infiltrate distances.
    """
    from planner.rules.registry import find_ruleset

    rs = find_ruleset(ruleset)
    hidden, plain = rs.INFILTRATE_HIDDEN_MORE_THAN_IN, rs.INFILTRATE_PLAIN_SIGHT_MORE_THAN_IN
    if hidden is None or plain is None:
        raise ScenarioError("this ruleset has no Infiltrate distances to draw", location="ruleset", value=ruleset)
    return InfiltrateDistances(float(hidden), float(plain))


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


def legal_area(world: World, unit_id: str) -> LegalArea:
    """The area where the bases of ``unit_id`` may stand for its set-up (see :class:`LegalArea`).

    Deployment zone: the zone minus no-go terrain. Infiltrate (HH2 p.242): the battlefield minus
    no-go terrain, more than the plain-sight distance from every enemy unit (certain), and the band
    between the hidden and plain-sight distances (only if hidden). Scout (HH2 p.246): the battlefield
    minus no-go terrain, within the unit's 6"/12" of where its models stood (the union over its
    models: each model may only use the part round its own start) and more than 9" from every
    enemy unit.

    Raises
    ------
    ScenarioError
        Unknown unit, or a set-up that is not on the battlefield (embarked, reserves).
    """
    if unit_id not in world.units:
        raise ScenarioError(no_unit_text(world.units), file=world.file,
                            location="--legal-area", value=unit_id)
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
            excl = unary_union([unit_exclusion(e, more_than) for e in enemies_on_battlefield(world, u.player)])
            return LegalArea(u.id, field.intersection(reach).difference(excl), None,
                             f"{u.id}: Scout, within {limit:g}\" of where its models stood (each model of its "
                             f"own) and more than {more_than:g}\" from enemies")
    if method is SetupMethod.DEPLOYMENT_ZONE:
        zone_id = u.setup.zone or (z.id if (z := world.zone_of(u.player)) else None)
        if zone_id is None:
            raise ScenarioError("the unit's player has no deployment zone", file=world.file,
                                location="--legal-area", value=unit_id)
        zone = Polygon(world.zones[zone_id].polygon)
        return LegalArea(u.id, zone.intersection(field), None, f"{u.id}: deployment zone {zone_id}")
    if method is SetupMethod.INFILTRATE:
        d = infiltrate_distances(world.scenario.ruleset)
        enemies = enemies_on_battlefield(world, u.player)
        near = unary_union([unit_exclusion(e, d.hidden_in) for e in enemies]) if enemies else Polygon()
        far = unary_union([unit_exclusion(e, d.plain_in) for e in enemies]) if enemies else Polygon()
        certain = field.difference(far)
        band = field.difference(near).difference(certain)
        return LegalArea(u.id, certain, band,
                         f"{u.id}: Infiltrate, more than {d.plain_in:g}\" from enemies",
                         f"{u.id}: Infiltrate {d.hidden_in:g}\"-{d.plain_in:g}\", only if hidden")
    hint = ("; for Deep Strike use 'planner deepstrike --render'" if u.method is SetupMethod.RESERVES
            else f"; draw the legal area of {u.setup.in_} instead" if u.method is SetupMethod.EMBARKED else "")
    raise ScenarioError(f"the unit is not set up on the battlefield (set-up {u.method.value}){hint}",
                        file=world.file, location="--legal-area", value=unit_id)


def area(geom) -> float:
    """Area of a shapely geometry, square inches."""
    return float(shapely.area(geom))
