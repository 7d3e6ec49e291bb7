"""The battlefield as the checker sees it: footprints of every model on it, terrain polygons,
and the measurements the rules ask for (nearest enemy unit, line of sight between units).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

from shapely.geometry import Point, Polygon, box

from planner.geometry.measure import nearest
from planner.geometry.shapes import Footprint, clearance_inside, distance_to_polygon, footprint
from planner.geometry.sight import Obstacle, Sight, group_separated, line_of_sight
from planner.schema import SetupMethod, StandingIn, TerrainFeature, TerrainKind
from planner.units import TOLERANCE_IN
from planner.world import UnitInfo, World


@dataclass(frozen=True)
class Placed:
    """A unit's footprints at one moment (``stage`` 'first' = before Scout, 'final' = after)."""

    unit: UnitInfo
    footprints: tuple[Footprint, ...]


@dataclass(frozen=True)
class UnitSight:
    """Line of sight from an observer unit to a target unit."""

    visible: bool
    observer_model: str | None = None
    target_model: str | None = None
    segment: tuple[tuple[float, float], tuple[float, float]] | None = None
    blocking: tuple[str, ...] = ()


class Table:
    """Footprints and terrain of a resolved scenario, with cached geometry."""

    def __init__(self, world: World):
        self.world = world
        bf = world.scenario.battlefield
        self.battlefield = box(0.0, 0.0, bf.width, bf.depth)
        self.terrain_polys: dict[str, Polygon] = {t.id: Polygon(t.footprint) for t in world.scenario.terrain}
        self.zone_polys: dict[str, Polygon] = {z.id: Polygon(z.polygon) for z in world.scenario.deployment_zones}

    # ------------------------------------------------------------------ footprints
    def final(self, unit: UnitInfo) -> Placed:
        """The unit's footprints at its model positions."""
        fps = tuple(footprint(m.base, m.x, m.y, m.facing) for m in unit.models)  # type: ignore[arg-type]
        return Placed(unit, fps)

    def first(self, unit: UnitInfo) -> Placed:
        """The unit's footprints before a Scout redeploy (``setup.from``), else its final ones."""
        frm = unit.setup.from_
        if frm is None:
            return self.final(unit)
        fps = []
        for m, p in zip(unit.models, frm, strict=True):
            facing = p[2] if len(p) > 2 else m.facing
            fps.append(footprint(m.base, p[0], p[1], facing))
        return Placed(unit, tuple(fps))

    @cached_property
    def on_table(self) -> list[UnitInfo]:
        return [u for u in self.world.units.values() if u.on_battlefield and u.is_positioned]

    def enemy_units(self, player: str) -> list[UnitInfo]:
        """Enemy units on the battlefield (not embarked, not in Reserves)."""
        return [u for u in self.on_table if u.player != player]

    # ------------------------------------------------------------------ terrain
    def stands_in(self, fp: Footprint, feature: TerrainFeature) -> bool:
        """True if a model with footprint ``fp`` stands in area terrain ``feature`` (per its trait)."""
        poly = self.terrain_polys[feature.id]
        if poly.distance(Point(fp.cx, fp.cy)) > fp.outer_radius + 1e-3:
            return False  # too far for any part of the base to touch the feature
        if feature.standing_in is StandingIn.WHOLLY:
            return clearance_inside(fp, poly) >= -TOLERANCE_IN
        return distance_to_polygon(fp, poly) <= TOLERANCE_IN

    @cached_property
    def blocking_features(self) -> list[TerrainFeature]:
        return [t for t in self.world.scenario.terrain if t.blocks_line_of_sight and t.kind is not TerrainKind.OPEN]

    def obstacles_for(self, fps: list[Footprint]) -> list[Obstacle]:
        """Blocking obstacles for lines from or to any of ``fps``: area terrain they stand in is dropped."""
        out = []
        for t in self.blocking_features:
            if t.kind is TerrainKind.AREA and any(self.stands_in(f, t) for f in fps):
                continue
            out.append(Obstacle(t.id, self.terrain_polys[t.id]))
        return out

    # ------------------------------------------------------------------ measurements
    def nearest_unit(self, placed: Placed, others: list[Placed]):
        """The closest model pair between ``placed`` and any unit in ``others``.

        Returns (distance_in, index_in_placed, other Placed, index_in_other), or None if ``others``
        is empty.
        """
        best = None
        for o in others:
            lb = min(
                math.hypot(a.cx - b.cx, a.cy - b.cy) - a.outer_radius - b.outer_radius
                for a in placed.footprints
                for b in o.footprints
            )
            if best is not None and lb >= best[0]:
                continue
            n = nearest(list(placed.footprints), list(o.footprints))
            if best is None or n.distance < best[0]:
                best = (n.distance, n.i, o, n.j)
        return best

    def unit_sight(self, observer: Placed, target: Placed) -> UnitSight:
        """Can any model of ``observer`` draw line of sight to any model of ``target``?

        Sound for "hidden": first a cheap proof that the terrain separates the two units
        completely; failing that, every model pair is decided by
        :func:`planner.geometry.sight.line_of_sight` (stopping at the first clear line).
        """
        all_fps = list(observer.footprints) + list(target.footprints)
        group_obstacles = self.obstacles_for(all_fps)
        if group_separated(list(observer.footprints), list(target.footprints), group_obstacles):
            return UnitSight(False, blocking=tuple(o.id for o in group_obstacles))
        blocking: set[str] = set()
        order = sorted(
            ((i, j) for i in range(len(observer.footprints)) for j in range(len(target.footprints))),
            key=lambda ij: math.hypot(
                observer.footprints[ij[0]].cx - target.footprints[ij[1]].cx,
                observer.footprints[ij[0]].cy - target.footprints[ij[1]].cy,
            ),
        )
        for i, j in order:
            a, b = observer.footprints[i], target.footprints[j]
            s: Sight = line_of_sight(a, b, self.obstacles_for([a, b]))
            if s.visible:
                return UnitSight(True, observer.unit.models[i].id, target.unit.models[j].id, s.segment)
            blocking.update(s.blocking)
        return UnitSight(False, blocking=tuple(sorted(blocking)))


def setup_label(unit: UnitInfo) -> str:
    """How the unit was set up, in words for reports."""
    s = unit.setup
    m = s.method
    if m is SetupMethod.DEPLOYMENT_ZONE:
        text = f"deployment zone {s.zone}" if s.zone else "deployment zone"
    elif m is SetupMethod.INFILTRATE:
        text = "Infiltrate" + (f" (order {s.order})" if s.order else "")
    elif m is SetupMethod.SCOUT:
        text = f"Scout redeploy after {'Infiltrate' if s.first == 'infiltrate' else 'deployment zone'}"
    elif m is SetupMethod.EMBARKED:
        text = f"embarked in {s.in_}" + (" (Infiltrate)" if s.first == "infiltrate" else "")
    else:
        text = "Reserves" + (f" ({s.arrival.replace('_', ' ')})" if s.arrival != "reserves" else "")
    if s.joined:
        text += f", joined to {s.joined}"
    return text
