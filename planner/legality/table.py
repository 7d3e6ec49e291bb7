"""The battlefield as the checker sees it: footprints of every model on it, terrain polygons,
and the measurements the rules ask for (nearest enemy unit, line of sight between units).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import cast

import numpy as np
import shapely
from shapely.geometry import Point, Polygon
from shapely.geometry.base import BaseGeometry
from shapely.ops import unary_union

from planner.geometry.measure import nearest, nearest_candidates
from planner.geometry.segment_screen import SegmentScreen, first_clear
from planner.geometry.shapes import (
    Footprint,
    battlefield_box,
    clearance_inside,
    clearances_inside,
    distance_to_polygon,
    footprint,
    oval_edge_pairs,
    point_distances,
    polygons,
    signed_distance,
    signed_distances,
)
from planner.geometry.sight import (
    Crossing,
    Obstacle,
    Sight,
    crossings,
    line_of_sight,
    outline_tree,
    outline_union,
    outlines_hull,
    outlines_separated,
    points_hull,
    shrunk_union,
)
from planner.schema import SetupMethod, StandingIn, TerrainFeature, TerrainKind, polygon_of
from planner.units import TOLERANCE_IN
from planner.world import ModelInfo, UnitInfo, World


@dataclass(frozen=True)
class Placed:
    """A unit's footprints at one moment (before a Scout redeploy, or final).

    ``ids`` names the footprints when they are not the unit's own models one for one (a unit
    with the Independent Characters that join it; a unit embarked in a Building, measured to
    the Building).
    """

    unit: UnitInfo
    footprints: tuple[Footprint, ...]
    ids: tuple[str, ...] = ()
    tops: tuple[float, ...] = ()
    """The top of each footprint's volume above the table (``z + height``, inches); empty: from
    the models (:meth:`Table.tops_of`)."""

    def model_id(self, i: int) -> str:
        """The id of the model (or stand-in) behind footprint ``i``."""
        return self.ids[i] if self.ids else self.unit.models[i].id


@dataclass(frozen=True)
class UnitSight:
    """Line of sight from an observer unit to a target unit."""

    visible: bool
    observer_model: str | None = None
    target_model: str | None = None
    segment: tuple[tuple[float, float], tuple[float, float]] | None = None
    blocking: tuple[str, ...] = ()
    passes: tuple[Crossing, ...] = ()
    """With heights: the pieces the evidence line crosses and how high it passes each (the clear
    line; when hidden, the centre line of the nearest pair of models)."""


class Table:
    """Footprints and terrain of a resolved scenario, with cached geometry."""

    def __init__(self, world: World):
        self.world = world
        bf = world.scenario.battlefield
        self.battlefield = battlefield_box(bf.width, bf.depth)
        self.terrain_key = tuple(t.model_dump_json() for t in world.scenario.terrain)
        self.terrain_polys: dict[str, Polygon] = _terrain_polys(self.terrain_key, world.scenario.terrain)
        self.zone_polys: dict[str, Polygon] = {z.id: polygon_of(z.polygon) for z in world.scenario.deployment_zones}
        self.rules = world.ruleset

    # ------------------------------------------------------------------ heights
    def top_of(self, model: ModelInfo) -> float:
        """The top of a model's volume above the table: its floor ``z`` plus its height (inches)."""
        return model.z + self.rules.model_height(model)

    @cached_property
    def _models_by_ref(self) -> dict[str, ModelInfo]:
        return {m.ref: m for u in self.world.units.values() for m in u.models}

    def levels_of(self, placed: Placed) -> tuple[tuple[float, float], ...]:
        """(floor ``z``, top) of each footprint of ``placed`` (inches): its own ``tops`` (on the
        table), else its models' (by ``unit/model`` id, or one for one), else the highest model
        of the unit (a stand-in: the higher, the more it sees, so a hidden verdict stays sound)."""
        if placed.tops:
            return tuple((0.0, t) for t in placed.tops)
        n = len(placed.footprints)
        ms: list[ModelInfo]
        if placed.ids and len(placed.ids) == n and all(i in self._models_by_ref for i in placed.ids):
            ms = [self._models_by_ref[i] for i in placed.ids]
        elif not placed.ids and len(placed.unit.models) == n:
            ms = list(placed.unit.models)
        else:
            top = max((self.top_of(m) for m in placed.unit.models), default=self.rules.DEFAULT_MODEL_HEIGHT_IN)
            return ((0.0, top),) * n
        return tuple((m.z, self.top_of(m)) for m in ms)

    def tops_of(self, placed: Placed) -> tuple[float, ...]:
        """The top of each footprint's volume of ``placed`` (:meth:`levels_of`), inches."""
        return cast(tuple[float, ...], self._of_placed("tops", placed,
                                                       lambda p: tuple(t for _, t in self.levels_of(p))))

    def _of_placed(self, kind: str, placed: Placed, make: Callable[[Placed], object]) -> object:
        """``make(placed)``, kept for this table by the identity of ``placed`` (a Placed holds a
        unit, so it is not hashed by value)."""
        key = (kind, id(placed))
        hit = self._placed_values.get(key)
        if hit is None or hit[0] is not placed:
            hit = (placed, make(placed))
            self._placed_values[key] = hit
        return hit[1]

    @cached_property
    def _placed_values(self) -> dict[tuple[str, int], tuple[Placed, object]]:
        return {}

    def _standing_union(self, placed: Placed) -> frozenset[str]:
        """The blocking area features some base of ``placed`` stands in (:meth:`standing_in`)."""
        return cast(frozenset[str], self._of_placed(
            "standing", placed, lambda p: frozenset().union(*(self.standing_in(f) for f in p.footprints))))

    def _group_standing(self, observers: list[Placed]) -> frozenset[str]:
        """The union of :meth:`_standing_union` over ``observers``, kept for this list of units
        (every hidden target of a player is proven against the same observer units)."""
        key = ("standing", tuple(id(o) for o in observers))
        hit = self._group_standings.get(key)
        if hit is None or any(a is not b for a, b in zip(hit[0], observers, strict=True)):
            hit = (tuple(observers), frozenset().union(*(self._standing_union(o) for o in observers)))
            self._group_standings[key] = hit
        return hit[1]

    @cached_property
    def _group_standings(self) -> dict[tuple[str, tuple[int, ...]], tuple[tuple[Placed, ...], frozenset[str]]]:
        return {}

    @cached_property
    def off_the_table(self) -> bool:
        """Some model stands on a floor above the table (``z`` > 0)."""
        return any(m.z > 0 for m in self._models_by_ref.values())

    @cached_property
    def pieces(self) -> dict[str, list[Obstacle]]:
        """The sight obstacles of each blocking feature: its pieces (those of one height merged
        into one polygon, so a ruin drawn as two halves blocks as one) and its walls, each with
        its top (None: as high as any line). A feature with no height anywhere is its whole
        shape, as before heights existed; where the ruleset says so
        (:attr:`~planner.rules.base.Ruleset.AREA_BLOCKS_AT_ANY_HEIGHT`) an area feature blocks
        at any height."""
        hit = self._prepared.get("pieces")
        if hit is None:
            hit = self._prepared["pieces"] = self._make_pieces()
        return cast(dict[str, list[Obstacle]], hit)

    @cached_property
    def _prepared(self) -> dict[str, object]:
        """The terrain geometry this table shares with every table of the same terrain and the
        same blocking features (:func:`_prepared_terrain`): the pieces and the blocked unions."""
        key = (self.terrain_key, bool(self.rules.AREA_BLOCKS_AT_ANY_HEIGHT), tuple(t.id for t in self.blocking_features))
        return _prepared_terrain(key)

    def _make_pieces(self) -> dict[str, list[Obstacle]]:
        out: dict[str, list[Obstacle]] = {}
        for t in self.blocking_features:
            any_height = self.rules.AREA_BLOCKS_AT_ANY_HEIGHT and t.kind is TerrainKind.AREA
            obs: list[Obstacle] = []
            if not t.has_heights or any_height:
                obs.append(Obstacle(t.id, self.terrain_polys[t.id], None, "footprint"))
            else:
                by_height: dict[float | None, list[tuple[int, Polygon]]] = {}
                pieces = t.all_pieces()
                for k, p in enumerate(pieces):
                    by_height.setdefault(p.height_in, []).append((k, Polygon(p.footprint)))
                for h, polys in by_height.items():
                    union = polys[0][1] if len(polys) == 1 else unary_union([q for _, q in polys])
                    # which pieces, in words: none for a feature of one piece
                    name = ("" if len(pieces) == 1 else f"piece {polys[0][0]}" if len(polys) == 1
                            else "pieces " + ", ".join(str(k) for k, _ in polys))
                    obs.append(Obstacle(t.id, cast(Polygon, union), h, name))
            for k, w in enumerate(t.walls):
                h = None if any_height else (w.height_in if w.height_in is not None else t.height_in)
                obs.append(Obstacle(t.id, w.polygon(), h, f"walls[{k}]"))
            for o in obs:
                shapely.prepare(o.polygon)
            out[t.id] = obs
        return out

    # ------------------------------------------------------------------ footprints
    def final(self, unit: UnitInfo) -> Placed:
        """The unit's footprints at its model positions."""
        key = ("final", unit.id)
        if key not in self._placed:
            fps = tuple(footprint(m.base, m.x, m.y, m.facing) for m in unit.models)  # type: ignore[arg-type]
            self._placed[key] = Placed(unit, fps)
        return self._placed[key]

    @cached_property
    def _placed(self) -> dict[tuple[str, str], Placed]:
        return {}

    def first(self, unit: UnitInfo) -> Placed:
        """The unit's footprints before a Scout redeploy (``setup.from``), else its final ones."""
        frm = unit.setup.from_
        if frm is None:
            return self.final(unit)
        key = ("first", unit.id)
        if key in self._placed:
            return self._placed[key]
        fps = []
        for m, p in zip(unit.models, frm, strict=True):
            facing = p[2] if len(p) > 2 else m.facing
            fps.append(footprint(m.base, p[0], p[1], facing))
        self._placed[key] = Placed(unit, tuple(fps))
        return self._placed[key]

    @staticmethod
    def first_facings_assumed(unit: UnitInfo) -> list[tuple[str, float]]:
        """Ruling (Scout first facing): a first position given as ``[x, y]`` (no facing) stands at
        the model's end facing (:meth:`first`). For a round base facing changes nothing; for a
        non-round one (an oval, a hull) the pivot is then not measured, so the checker says so.
        Returns (model id, the end facing taken, degrees) for each such non-round model."""
        frm = unit.setup.from_
        if frm is None:
            return []
        return [(m.id, m.facing) for m, p in zip(unit.models, frm, strict=True)
                if len(p) < 3 and footprint(m.base, 0.0, 0.0, 0.0).kind != "circle"]

    @classmethod
    def first_facing_note(cls, unit: UnitInfo) -> str:
        """What a finding on a Scout first position adds when a facing was assumed
        (:meth:`first_facings_assumed`): "" when none was."""
        assumed = cls.first_facings_assumed(unit)
        if not assumed:
            return ""
        if len(assumed) == 1:
            taken = f"model {assumed[0][0]}: taken as its end facing {assumed[0][1]:g}"
        else:
            taken = "taken as each model's end facing (" + ", ".join(f"model {mid}: {f:g}" for mid, f in assumed) + ")"
        return f"; first facing not given ({taken}); give [x, y, facing] in setup.from to measure the pivot"

    @cached_property
    def on_table(self) -> list[UnitInfo]:
        return [u for u in self.world.units.values() if u.on_battlefield and u.is_positioned]

    @cached_property
    def restriction_holders(self) -> list[UnitInfo]:
        """The units of :attr:`on_table` that hold a restriction (on the unit or on a model):
        the only ones :func:`planner.legality.checks.restriction.restriction_verdicts` measures to."""
        return [u for u in self.on_table
                if u.record.restrictions or any(m.restrictions for m in u.record.models)]

    def enemy_units(self, player: str) -> list[UnitInfo]:
        """Enemy units on the battlefield (not embarked, not in Reserves)."""
        return [u for u in self.on_table if u.player != player]

    def enemy_presence(self, player: str, stage: str = "final") -> list[Placed]:
        """Every enemy unit that can be measured to, and that can see: those on the battlefield
        (at their positions before a Scout redeploy if ``stage`` is 'first'), and those embarked
        in a Building, which stand for the Building's footprint (a Building uses the Transport
        rules, HH2 p.103: its garrison is measured to and sees from the Building). Units embarked
        in a transport unit are represented by the transport; units in Reserves are absent."""
        hit = self._presence.get((player, stage))
        if hit is None:
            hit = [self.first(u) if stage == "first" else self.final(u) for u in self.enemy_units(player)]
            for u in self.world.units.values():
                if u.player != player and u.method is SetupMethod.EMBARKED and u.setup.in_ in self.terrain_polys:
                    hit.append(self.garrison(u))
            self._presence[(player, stage)] = hit
        return list(hit)

    @cached_property
    def _presence(self) -> dict[tuple[str, str], list[Placed]]:
        return {}

    def garrison(self, unit: UnitInfo) -> Placed:
        """A unit embarked in a Building, standing for the Building's footprint (its convex hull)."""
        key = ("garrison", unit.id)
        if key not in self._placed:
            tid = unit.setup.in_
            hull = self.terrain_polys[tid].convex_hull
            ring = shapely.geometry.polygon.orient(cast(Polygon, hull)).exterior.coords[:-1]
            c = hull.centroid
            fp = Footprint("polygon", c.x, c.y, 0.0, 0.0, 0.0, tuple((float(x), float(y)) for x, y in ring))
            self._garrison_skip[id(fp)] = (fp, frozenset({tid}))
            self._placed[key] = Placed(unit, (fp,), (f"(in building {tid})",))
        return self._placed[key]

    @cached_property
    def _garrison_skip(self) -> dict[int, tuple[Footprint, frozenset[str]]]:
        return {}

    @cached_property
    def no_go_polys(self) -> list[tuple[str, Polygon]]:
        """(feature id, polygon) of each of :attr:`no_go_features`, and of every wall of every
        feature (no base stands on a wall): what the placement checks take."""
        out = [(t.id, self.terrain_polys[t.id]) for t in self.no_go_features]
        out += [(t.id, w.polygon()) for t in self.world.scenario.terrain for w in t.walls]
        return out

    def clearances_in(self, zone: str | None, fps: tuple[Footprint, ...]) -> np.ndarray | None:
        """:func:`planner.geometry.shapes.clearances_inside` of bases ``fps`` in deployment zone
        ``zone`` (None: the battlefield), from one pass over every model on the table (a zone:
        over every base of the player whose bases are asked for, the first time; each base's
        clearance is its own, whatever else is measured with it); None if some base of ``fps``
        is not one of them."""
        cols = self._columns(fps)
        if cols is None:
            return None
        table_fps = self._near_area[0]
        hit = self._clearances.get(zone)
        if hit is None:
            n = len(table_fps)
            hit = self._clearances[zone] = (np.empty(n), np.full(n, zone is None, dtype=np.bool_))
            if zone is None:
                hit[0][:] = clearances_inside(table_fps, self.battlefield)
        values, done = hit
        if zone is not None and not done[cols].all():
            players = self._column_players
            batch = np.nonzero(~done & (players == players[cols[0]]))[0]
            batch = np.union1d(batch, cols[~done[cols]])
            values[batch] = clearances_inside([table_fps[c] for c in batch.tolist()], self.zone_polys[zone])
            done[batch] = True
        return cast(np.ndarray, values[cols])

    @cached_property
    def _column_players(self) -> np.ndarray:
        """The player of each base of :attr:`_near_area` (its unit's), as an array."""
        players = [u.player for u in self.on_table for _ in self.final(u).footprints]
        players += [u.player for u in self.on_table if u.setup.from_ is not None for _ in self.first(u).footprints]
        return np.array(players, dtype=object)

    def _columns(self, fps: tuple[Footprint, ...]) -> np.ndarray | None:
        """The index of each of ``fps`` among the models on the table (:attr:`_near_area`), or
        None if some base is not one of them; kept by the identity of ``fps`` (a unit's
        footprints are asked for by several checks)."""
        kept = self._columns_kept.get(id(fps))
        if kept is not None and kept[0] is fps:
            return kept[1]
        table_fps, index, _, _ = self._near_area
        found: list[int] = []
        cols: np.ndarray | None = None
        for f in fps:
            c = index.get(id(f))
            if c is None or table_fps[c] is not f:
                break
            found.append(c)
        else:
            cols = np.array(found, dtype=np.intp)
        self._columns_kept[id(fps)] = (fps, cols)
        return cols

    @cached_property
    def _columns_kept(self) -> dict[int, tuple[tuple[Footprint, ...], np.ndarray | None]]:
        return {}

    @cached_property
    def _clearances(self) -> dict[str | None, tuple[np.ndarray, np.ndarray]]:
        return {}

    def pair_distances(self, pairs: list[tuple[Footprint, Footprint]]) -> np.ndarray:
        """:func:`planner.geometry.shapes.signed_distances` of ``pairs``, kept for this table by
        the footprints' identity (the coherency and overlap checks measure the same pairs), those
        not measured yet in one batch."""
        cache = self._pair_cache
        out = np.empty(len(pairs))
        missing: dict[tuple[int, int], list[int]] = {}
        hypot = math.hypot
        for k, (a, b) in enumerate(pairs):
            ka, kb = a.kind, b.kind
            if ka == "circle" and kb == "circle":  # signed_distance's own formula, inlined
                out[k] = hypot(a.cx - b.cx, a.cy - b.cy) - a.a - b.a
                continue
            if ka != "ellipse" and kb != "ellipse":
                out[k] = signed_distance(a, b)  # closed form or shapely: not worth keeping
                continue
            hit = cache.get((id(a), id(b)))
            if hit is not None and hit[0] is a and hit[1] is b:
                out[k] = hit[2]
            else:
                missing.setdefault((id(a), id(b)), []).append(k)
        if missing:
            firsts = [ks[0] for ks in missing.values()]
            for key, ks, v in zip(missing, missing.values(), signed_distances([pairs[k] for k in firsts]).tolist(),
                                  strict=True):
                cache[key] = (pairs[ks[0]][0], pairs[ks[0]][1], v)
                out[ks] = v
        return out

    @cached_property
    def _pair_cache(self) -> dict[tuple[int, int], tuple[Footprint, Footprint, float]]:
        return {}

    def no_go_bounds(self, fps: tuple[Footprint, ...]) -> np.ndarray | None:
        """The lower bounds of :func:`planner.legality.checks.placement.no_go_lower_bounds` for
        bases ``fps`` against :attr:`no_go_polys` (features x bases), from one vectorised pass
        over every model on the table; None if some base of ``fps`` is not one of them.

        An oval's bound is tightened by its circumscribed polygon's distance only where the
        centre's bound is not above the group's least upper bound (:meth:`_no_go_upper`): a
        pair above it is never measured by
        :func:`~planner.legality.checks.placement.closest_no_go` (the nearest pair's bound is
        below it, so the search stops first) nor by :meth:`no_go_oval_pairs`, and the tightened
        bound is only larger, so every pair that is measured has the same bound, in the same
        order. Kept by the identity of ``fps``."""
        cols = self._columns(fps)
        if cols is None:
            return None
        kept = self._no_go_kept.get(id(fps))
        if kept is not None and kept[0] is fps:
            return kept[1]
        dc, lbc = self._no_go_centres
        lb = lbc[:, cols]
        table_fps = self._near_area[0]
        ovals = [j for j, c in enumerate(cols.tolist()) if table_fps[c].kind == "ellipse"]
        if ovals and lb.size:
            ub = self._no_go_upper(fps, cols)
            for j in ovals:
                ks = np.nonzero(lb[:, j] <= ub)[0]
                if len(ks):
                    shell = table_fps[int(cols[j])].polygon(circumscribed=True)
                    d = shapely.distance(np.asarray([self.no_go_polys[k][1] for k in ks.tolist()], dtype=object), shell)
                    lb[ks, j] = np.maximum(lb[ks, j], np.where(d > 0, d, -np.inf))
        self._no_go_kept[id(fps)] = (fps, lb)
        return lb

    def _no_go_upper(self, fps: tuple[Footprint, ...], cols: np.ndarray) -> float:
        """The least upper bound of the no-go distances of bases ``fps`` (columns ``cols``): each
        base's centre distance less the radius of the disc it contains, or 0 (inches)."""
        dc, _ = self._no_go_centres
        inner = np.array([f.inner_radius for f in fps])
        return float(np.min(np.maximum(dc[:, cols] - inner, 0.0)))

    @cached_property
    def _no_go_kept(self) -> dict[int, tuple[tuple[Footprint, ...], np.ndarray]]:
        return {}

    def no_go_oval_pairs(self) -> list[tuple[Footprint, Footprint]]:
        """The (oval, edge) pairs :func:`planner.legality.checks.placement.closest_no_go` can
        measure for the units on the table (:func:`planner.geometry.shapes.oval_edge_pairs`):
        a pair is measured only when its lower bound is not above the unit's closest distance,
        and that is at most the least upper bound of the unit (the centre's distance less the
        radius of the disc each base contains, or 0), so those pairs, for the ovals only."""
        out: list[tuple[Footprint, Footprint]] = []
        if not self.no_go_polys:
            return out
        for u in self.on_table:
            fps = self.final(u).footprints
            if not any(f.kind == "ellipse" for f in fps):
                continue
            lb = self.no_go_bounds(fps)
            if lb is None:
                continue
            ub = self._no_go_upper(fps, cast(np.ndarray, self._columns(fps)))
            for k, (_, poly) in enumerate(self.no_go_polys):
                for i, f in enumerate(fps):
                    if f.kind == "ellipse" and lb[k, i] <= ub:
                        out += oval_edge_pairs(f, poly)
        return out

    @cached_property
    def _no_go_centres(self) -> tuple[np.ndarray, np.ndarray]:
        """The distance of every table base's centre to each of :attr:`no_go_polys` (features x
        bases, inches: shapely's floats, :func:`~planner.geometry.shapes.point_distances`) and
        that less the base's outer radius (the bound of a round base), where it can matter;
        ``inf`` where it cannot.

        A distance is needed where it can be below the least upper bound of some group of
        bases holding this one (:meth:`_no_go_upper`) plus the widest gap between a base's
        outer and inner radii (``delta``): :func:`~planner.legality.checks.placement.closest_no_go`
        measures a pair only while its bound is below the closest distance found, which is at
        most the first pair's, and a pair's signed distance is at most ``max(bound + delta, 0)``;
        :meth:`no_go_bounds` and :meth:`no_go_oval_pairs` only look at bounds up to the least
        upper bound. So each centre is measured exactly (the same floats) to the features within
        its own upper bound (from the farthest corner of each feature's bounding box, which holds
        the feature) plus ``delta`` and its outer radius; the farther pairs read ``inf``. Below
        :data:`_NO_GO_WITHIN_MIN` features x bases every pair is measured (the same values where
        they matter)."""
        fps = self._near_area[0]
        if not fps or not self.no_go_polys:
            z = np.zeros((len(self.no_go_polys), len(fps)))
            return z, z
        x, y = self._table_xy
        polys = [poly for _, poly in self.no_go_polys]
        outer = np.array([f.outer_radius for f in fps])
        if len(polys) * len(fps) < _NO_GO_WITHIN_MIN:
            dc = point_distances(polys, x, y)
            return dc, dc - outer
        inner = np.array([f.inner_radius for f in fps])
        b = shapely.bounds(np.asarray(polys, dtype=object))
        far = np.hypot(np.maximum(np.abs(x[None, :] - b[:, 0:1]), np.abs(x[None, :] - b[:, 2:3])),
                       np.maximum(np.abs(y[None, :] - b[:, 1:2]), np.abs(y[None, :] - b[:, 3:4])))
        reach = np.maximum(far.min(axis=0) - inner, 0.0) + float((outer - inner).max()) + outer
        reach += 1e-6 * (1.0 + float(np.abs(reach).max()))
        dc = point_distances(polys, x, y, within=reach if np.isfinite(reach).all() else None)
        return dc, dc - outer

    @cached_property
    def _table_xy(self) -> tuple[np.ndarray, np.ndarray]:
        """The centres of the bases of :attr:`_near_area` (x and y arrays, inches)."""
        fps = self._near_area[0]
        return np.array([f.cx for f in fps]), np.array([f.cy for f in fps])

    @cached_property
    def no_go_features(self) -> list[TerrainFeature]:
        """Terrain no model may stand in: impassable features, and solid ones (buildings, walls),
        which models can only occupy by embarking."""
        return [t for t in self.world.scenario.terrain if t.is_impassable or t.kind is TerrainKind.SOLID]

    def no_go_place(self, tid: str, kind: bool = False) -> str:
        """Where a base stands that stands in no-go feature ``tid`` of :attr:`no_go_polys`, in
        words (the one place a message names it): ``in tid`` (with ``kind``: ``in tid (solid,
        impassable)``) for one of :attr:`no_go_features`, else ``on a wall of tid`` (a feature
        whose walls alone are no-go, e.g. the walls of an area ruin; a feature without walls that a
        caller holds no-go by its own rules, e.g. a 7th-edition building for Deep Strike: ``in tid``)."""
        t = self.world.terrain[tid]
        if t not in self.no_go_features and t.walls:
            return f"on a wall of {tid}"
        return f"in {tid} ({t.kind.value}{', impassable' if t.is_impassable else ''})" if kind else f"in {tid}"

    # ------------------------------------------------------------------ terrain
    def stands_in(self, fp: Footprint, feature: TerrainFeature) -> bool:
        """True if a model with footprint ``fp`` stands in area terrain ``feature`` (per its trait)."""
        key = (fp, feature.id)
        hit = self._stands_in_cache.get(key)
        if hit is None:
            hit = self._stands_in(fp, feature)
            self._stands_in_cache[key] = hit
        return hit

    def _stands_in(self, fp: Footprint, feature: TerrainFeature) -> bool:
        poly = self.terrain_polys[feature.id]
        near = self._near_of(fp, feature.id)
        if near is None:
            near = poly.distance(Point(fp.cx, fp.cy)) <= fp.outer_radius + 1e-3
        if not near:
            return False  # too far for any part of the base to touch the feature
        if feature.standing_in is StandingIn.WHOLLY:
            return clearance_inside(fp, poly) >= -TOLERANCE_IN
        return distance_to_polygon(fp, poly) <= TOLERANCE_IN

    @cached_property
    def _stands_in_cache(self) -> dict[tuple[Footprint, str], bool]:
        return {}

    def _near_of(self, fp: Footprint, feature_id: str) -> bool | None:
        """Could base ``fp`` touch blocking area feature ``feature_id`` (:attr:`_near_area`)?
        None if ``fp`` is not one of the models on the table."""
        fps, index, close, _ = self._near_area
        k = index.get(id(fp))
        if k is None or fps[k] is not fp or feature_id not in close:
            return None
        return bool(close[feature_id][k])

    def _area_features_near(self, fp: Footprint) -> list[TerrainFeature]:
        """The blocking area features base ``fp`` could touch: those near it (one vectorised
        pass, :attr:`_near_area`) for a model on the table, else every one."""
        fps, index, _, near = self._near_area
        k = index.get(id(fp))
        if k is not None and fps[k] is fp:
            return near[k]
        # elsewhere (a planner's candidate): every feature whose bounding box comes within the
        # base's reach of its centre; the others are farther than :meth:`_stands_in`'s nearness
        # test (``distance <= outer radius + 1e-3``), so it would say False for them
        reach = fp.outer_radius + 1e-3 + 1e-9
        return [t for t, (x0, y0, x1, y1) in self._area_bounds
                if max(x0 - fp.cx, fp.cx - x1, y0 - fp.cy, fp.cy - y1) <= reach]

    @cached_property
    def _area_bounds(self) -> list[tuple[TerrainFeature, tuple[float, float, float, float]]]:
        """The blocking area features and the bounds of their shapes (inches)."""
        return [(t, self.terrain_polys[t.id].bounds) for t in self.blocking_features if t.kind is TerrainKind.AREA]

    @cached_property
    def _near_area(self) -> tuple[list[Footprint], dict[int, int], dict[str, np.ndarray], list[list[TerrainFeature]]]:
        """For every model on the table (footprints, their index by id): could the base touch
        each blocking area feature (feature id -> a Boolean per footprint), and the list of the
        features it could touch. Computed in one vectorised pass per feature."""
        fps = [f for u in self.on_table for f in self.final(u).footprints]
        fps += [f for u in self.on_table if u.setup.from_ is not None for f in self.first(u).footprints]
        index = {id(f): k for k, f in enumerate(fps)}
        close: dict[str, np.ndarray] = {}
        near: list[list[TerrainFeature]] = [[] for _ in fps]
        if not fps:
            return fps, index, close, near
        radii = np.array([f.outer_radius for f in fps])
        areas = [t for t in self.blocking_features if t.kind is TerrainKind.AREA]
        # only "within reach?" is asked: far pairs (from each feature's box) are not measured
        dist = point_distances([self.terrain_polys[t.id] for t in areas], np.array([f.cx for f in fps]),
                               np.array([f.cy for f in fps]), within=radii + 1e-3)
        for t, d in zip(areas, dist, strict=True):
            c = d <= radii + 1e-3
            close[t.id] = c
            for k in np.nonzero(c)[0].tolist():
                near[k].append(t)
        return fps, index, close, near

    @cached_property
    def blocking_features(self) -> list[TerrainFeature]:
        return [t for t in self.world.scenario.terrain if t.blocks_line_of_sight and t.kind is not TerrainKind.OPEN]

    def standing_in(self, fp: Footprint) -> frozenset[str]:
        """Ids of the blocking area features a model with footprint ``fp`` stands in."""
        cache = self._standing_cache
        hit = cache.get(id(fp))
        if hit is None or hit[0] is not fp:
            # only the features the base could touch: the others fail every stands-in test
            near = self._area_features_near(fp)
            inside = frozenset(t.id for t in near if self.stands_in(fp, t)) if near else _NO_FEATURES
            g = self._garrison_skip.get(id(fp))
            if g is not None and g[0] is fp:
                inside |= g[1]  # a garrison sees out of its own Building
            hit = (fp, inside)
            cache[id(fp)] = hit
        return hit[1]

    @cached_property
    def _standing_cache(self) -> dict[int, tuple[Footprint, frozenset[str]]]:
        return {}

    def _outline(self, fps: tuple[Footprint, ...]) -> BaseGeometry:
        return self._outline_and_hull(fps)[0]

    def _outline_and_hull(self, fps: tuple[Footprint, ...]) -> tuple[BaseGeometry, BaseGeometry]:
        """The union of the circumscribed outlines of ``fps`` and its convex hull (cached)."""
        key = tuple(id(f) for f in fps)
        hit = self._outline_cache.get(key)
        if hit is None or any(a is not b for a, b in zip(hit[0], fps, strict=True)):
            outline = outline_union(fps)
            hit = (fps, outline, outline.convex_hull)
            self._outline_cache[key] = hit
        return hit[1], hit[2]

    def _outline_parts(self, fps: tuple[Footprint, ...]) -> tuple[list[BaseGeometry], BaseGeometry]:
        """The circumscribed outlines of ``fps`` one by one (no union: a group proof only measures
        to them) and the convex hull of all of them (cached)."""
        key = tuple(id(f) for f in fps)
        hit = self._parts_cache.get(key)
        if hit is None or any(a is not b for a, b in zip(hit[0], fps, strict=True)):
            polys: list[BaseGeometry] = [*polygons(fps, 64, circumscribed=True)]
            hit = (fps, polys, points_hull(polys))
            self._parts_cache[key] = hit
        return hit[1], hit[2]

    def _outline_polys(self, fps: tuple[Footprint, ...]) -> list[BaseGeometry]:
        """The circumscribed outlines of ``fps`` (those of :meth:`_outline_parts`, without the
        hull), kept for this table: every hidden target measures to the same observer units."""
        key = tuple(id(f) for f in fps)
        hit = self._parts_cache.get(key)
        if hit is not None and all(a is b for a, b in zip(hit[0], fps, strict=True)):
            return hit[1]
        kept = self._polys_cache.get(key)
        if kept is None or any(a is not b for a, b in zip(kept[0], fps, strict=True)):
            kept = self._polys_cache[key] = (fps, [*polygons(fps, 64, circumscribed=True)])
        return kept[1]

    def _group_hull(self, observers: list[Placed]) -> BaseGeometry:
        """The convex hull of the circumscribed outlines of every base of ``observers`` (the hull
        of their units' hulls, from every vertex at once), kept for this group of units."""
        return self._group_outlines(observers)[1]

    def _group_outlines(self, observers: list[Placed]
                        ) -> tuple[BaseGeometry | list[BaseGeometry], BaseGeometry, shapely.STRtree | None]:
        """The circumscribed outlines of every base of ``observers`` as one collection (a list
        when there is a tree), its
        convex hull, and a tree over the outlines (None for a few: the separation proof measures
        to them directly, :func:`planner.geometry.sight.outlines_separated`), kept for this group
        of units: every hidden target of one player is proven against the same group."""
        key = ("group", tuple(id(o) for o in observers))
        hit = self._group_hulls.get(key)
        if hit is None or any(a is not b for a, b in zip(hit[0], observers, strict=True)):
            polys = [p for o in observers for p in self._outline_polys(o.footprints)]
            tree = outline_tree(polys)
            # with a tree the proof measures through it: the outlines themselves, no collection
            group: BaseGeometry | list[BaseGeometry] = shapely.GeometryCollection(polys) if tree is None else polys
            hull = outlines_hull([f for o in observers for f in o.footprints], polys)
            hit = (tuple(observers), group, hull, tree)
            self._group_hulls[key] = hit
        return hit[1], hit[2], hit[3]

    @cached_property
    def _group_hulls(self) -> dict[tuple[str, tuple[int, ...]], tuple[tuple[Placed, ...],
                                                                     BaseGeometry | list[BaseGeometry], BaseGeometry,
                                                                     shapely.STRtree | None]]:
        return {}

    @cached_property
    def _polys_cache(self) -> dict[tuple[int, ...], tuple[tuple[Footprint, ...], list[BaseGeometry]]]:
        return {}

    @cached_property
    def _parts_cache(self) -> dict[tuple[int, ...], tuple[tuple[Footprint, ...], list[BaseGeometry], BaseGeometry]]:
        return {}

    @cached_property
    def _outline_cache(self) -> dict[tuple[int, ...], tuple[tuple[Footprint, ...], BaseGeometry, BaseGeometry]]:
        return {}

    def target_standing_in(self, fp: Footprint) -> frozenset[str]:
        """Ids of the blocking area features whose sight rule a *target* model standing at ``fp``
        escapes; the same as :meth:`standing_in` unless the ruleset tells the two sides of a
        sight line apart (40k 10th-edition ruins)."""
        return self.standing_in(fp)

    def obstacles_for(self, fps: list[Footprint], above: float | None = None,
                      targets: list[Footprint] | tuple[Footprint, ...] = ()) -> list[Obstacle]:
        """Blocking obstacles (pieces and walls, :attr:`pieces`) for lines from any of ``fps``
        (observers) to any of ``targets`` (or between any two of ``fps``): area terrain they
        stand in is dropped (:meth:`standing_in`, :meth:`target_standing_in`); with ``above``,
        only those higher than ``above`` inches (by more than the tolerance), or with no height."""
        skip: set[str] = set()
        for f in fps:
            skip |= self.standing_in(f)
        for f in targets:
            skip |= self.target_standing_in(f)
        return self._obstacles_skipping(skip, above)

    def _obstacles_skipping(self, skip: set[str] | frozenset[str], above: float | None) -> list[Obstacle]:
        """:meth:`obstacles_for` once the skipped features are known."""
        return [o for t in self.blocking_features if t.id not in skip for o in self.pieces[t.id]
                if above is None or o.height is None or o.height > above + TOLERANCE_IN]

    def _blocked_union(self, skip: frozenset[str], above: float | None = None) -> BaseGeometry | None:
        """Union of the (slightly shrunk) blocking pieces, without the features in ``skip``; with
        ``above``, only the pieces higher than ``above`` inches (see :meth:`obstacles_for`)."""
        cache = self._union_cache
        key = (skip, above)
        if key not in cache:
            polys = shrunk_union([o.polygon for t in self.blocking_features if t.id not in skip
                                  for o in self.pieces[t.id]
                                  if above is None or o.height is None or o.height > above + TOLERANCE_IN])
            union = unary_union(polys) if polys else None
            if union is not None:
                shapely.prepare(union)
            cache[key] = union
        return cache[key]

    @cached_property
    def _union_cache(self) -> dict[tuple[frozenset[str], float | None], BaseGeometry | None]:
        return cast(dict[tuple[frozenset[str], float | None], BaseGeometry | None],
                    self._prepared.setdefault("unions", {}))

    @cached_property
    def has_heights(self) -> bool:
        """Some blocking piece has a height (else every line test is the plane test)."""
        return any(o.height is not None for obs in self.pieces.values() for o in obs)

    # ------------------------------------------------------------------ measurements
    def nearest_unit(self, placed: Placed, others: list[Placed], *, vertical_within: float | None = None
                     ) -> tuple[float, int, Placed, int] | None:
        """The closest model pair between ``placed`` and any unit in ``others``, measured as the
        ruleset measures set-up distances (:func:`planner.legality.checks.distance.measured_distance`:
        horizontally, or in space between models on different floors).

        ``vertical_within``: only pairs within this distance vertically count (the vertical part
        of Engagement Range). Returns (distance_in, index_in_placed, other Placed, index_in_other),
        or None if ``others`` is empty (or no pair is within ``vertical_within``).
        """
        if self.off_the_table:
            return self._nearest_levels(placed, others, vertical_within)
        if not others:
            return None
        # a lower bound per other unit (centre distance less both outer radii) in one numpy pass;
        # units visited nearest bound first, stopping once the bound passes the best distance.
        # The answer is the nearest unit, the first in ``others`` on a tie, as one pass in order.
        sizes = [len(o.footprints) for o in others]
        if min(sizes) == 0 or not placed.footprints:
            return self._nearest_in_order(placed, others)
        a = self._discs(placed)
        b, starts = self._stacked_discs(others, sizes)
        gap = (np.hypot(a[:, None, 0] - b[None, :, 0], a[:, None, 1] - b[None, :, 1])
               - a[:, None, 2] - b[None, :, 2]).min(axis=0)
        lb = np.minimum.reduceat(gap, starts)
        best: tuple[float, int, Placed, int] | None = None
        best_k = -1
        for k in np.argsort(lb, kind="stable").tolist():
            if best is not None and lb[k] > best[0] + 1e-9:
                break
            o = others[k]
            n = nearest(list(placed.footprints), list(o.footprints), self.pair_distances)
            if best is None or n.distance < best[0] or (n.distance == best[0] and k < best_k):
                best, best_k = (n.distance, n.i, o, n.j), k
        return best

    def nearest_oval_pairs(self, placed: Placed, others: list[Placed]) -> list[tuple[Footprint, Footprint]]:
        """The pairs of bases :meth:`nearest_unit` (``placed`` against ``others``, on the table)
        can measure with a search, where an oval is in the pair: it visits a unit only while the
        unit's lower bound is not above the nearest distance, at most the least gap between the
        discs each base contains, and measures there :func:`planner.geometry.measure.nearest_candidates`."""
        if self.off_the_table or not others or not placed.footprints or any(not o.footprints for o in others):
            return []
        if not any(f.kind == "ellipse" for p in (placed, *others) for f in p.footprints):
            return []
        a = self._discs(placed)
        b, starts = self._stacked_discs(others, [len(o.footprints) for o in others])
        ia = np.array([f.inner_radius for f in placed.footprints])
        ib = self._stacked_inner(others)
        centre = np.hypot(a[:, None, 0] - b[None, :, 0], a[:, None, 1] - b[None, :, 1])
        lbs = np.minimum.reduceat((centre - a[:, None, 2] - b[None, :, 2]).min(axis=0), starts)
        ub = float(np.maximum(centre - ia[:, None] - ib[None, :], 0.0).min())
        out: list[tuple[Footprint, Footprint]] = []
        for k in np.nonzero(lbs <= ub + 1e-9)[0].tolist():
            out += nearest_candidates(list(placed.footprints), list(others[k].footprints))
        return out

    def _stacked_discs(self, others: list[Placed], sizes: list[int]) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`_discs` of every unit of ``others`` stacked, and where each unit's rows start,
        kept for this list of units (every Infiltrator of a player measures to the same one)."""
        key = tuple(id(o) for o in others)
        hit = self._stacks.get(key)
        if hit is None or any(a is not b for a, b in zip(hit[0], others, strict=True)):
            hit = (tuple(others), np.vstack([self._discs(o) for o in others]), np.cumsum([0, *sizes[:-1]]))
            self._stacks[key] = hit
        return hit[1], hit[2]

    @cached_property
    def _stacks(self) -> dict[tuple[int, ...], tuple[tuple[Placed, ...], np.ndarray, np.ndarray]]:
        return {}

    def _stacked_inner(self, others: list[Placed]) -> np.ndarray:
        """The inner radius of every base of ``others`` in the order of :meth:`_stacked_discs`,
        kept for this list of units."""
        key = tuple(id(o) for o in others)
        hit = self._inner_stacks.get(key)
        if hit is None or any(a is not b for a, b in zip(hit[0], others, strict=True)):
            hit = (tuple(others), np.array([f.inner_radius for o in others for f in o.footprints]))
            self._inner_stacks[key] = hit
        return hit[1]

    @cached_property
    def _inner_stacks(self) -> dict[tuple[int, ...], tuple[tuple[Placed, ...], np.ndarray]]:
        return {}

    def _discs(self, placed: Placed) -> np.ndarray:
        """The centre and outer radius of each base of ``placed`` (n x 3, inches), kept."""
        return cast(np.ndarray, self._of_placed(
            "discs", placed, lambda p: np.array([[f.cx, f.cy, f.outer_radius] for f in p.footprints]).reshape(-1, 3)))

    def _nearest_in_order(self, placed: Placed, others: list[Placed]) -> tuple[float, int, Placed, int] | None:
        """:meth:`nearest_unit` on the table, one unit after the other (the way for a unit with no
        footprint: it raises as it always did)."""
        best: tuple[float, int, Placed, int] | None = None
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

    def _nearest_levels(self, placed: Placed, others: list[Placed], vertical_within: float | None
                        ) -> tuple[float, int, Placed, int] | None:
        """:meth:`nearest_unit` where some model stands on a floor: every pair measured."""
        from planner.legality.checks.distance import measured_distance, within_vertically

        la = self.levels_of(placed)
        best: tuple[float, int, Placed, int] | None = None
        for o in others:
            lo = self.levels_of(o)
            for i, a in enumerate(placed.footprints):
                for j, b in enumerate(o.footprints):
                    if vertical_within is not None and not within_vertically(la[i], lo[j], vertical_within):
                        continue
                    if best is not None and math.hypot(a.cx - b.cx, a.cy - b.cy) - a.outer_radius - b.outer_radius \
                            >= best[0]:
                        continue
                    d = measured_distance(max(0.0, signed_distance(a, b)), la[i], lo[j], self.rules)
                    if best is None or d < best[0]:
                        best = (d, i, o, j)
        return best

    def unit_sight(self, observer: Placed, target: Placed, *, exact: bool = True) -> UnitSight:
        """Can any model of ``observer`` draw line of sight to any model of ``target``?

        1. Quick, vectorised: the centre-to-centre lines between every pair of bases; a clear one
           proves visibility.
        2. Sound proofs of "hidden", cheapest first: the terrain separates the two whole units;
           else it separates each observer model from the whole target unit.
        3. Every pair still open is decided exactly by
           :func:`planner.geometry.sight.line_of_sight`. With ``exact=False`` (the planner's fast
           judge) an open pair counts as visible instead: the answer may then be a false
           "visible", never a false "hidden".
        """
        return self.sight_from_any([observer], target, exact=exact)[1]

    @cached_property
    def sight_range_in(self) -> float | None:
        """The longest distance a unit can draw line of sight here (inches; None: unlimited):
        :meth:`planner.rules.base.Ruleset.sight_range_in` (Night Fighting, by its ruling)."""
        return self.rules.sight_range_in(self.world)

    def in_sight_range(self, observers: list[Placed], target: Placed) -> list[Placed]:
        """The ``observers`` within :attr:`sight_range_in` of ``target`` (closest models, as
        set-up distances are measured): the others cannot draw line of sight to it at all."""
        limit = self.sight_range_in
        if limit is None:
            return observers
        from planner.geometry.measure import is_within_distance

        out = []
        for o in observers:
            n = self.nearest_unit(target, [o])
            if n is not None and is_within_distance(n[0], limit):
                out.append(o)
        return out

    def sight_from_any(self, observers: list[Placed], target: Placed, *, exact: bool = True,
                       proof_first: bool = False) -> tuple[Placed | None, UnitSight]:
        """Can any of the ``observers`` draw line of sight to ``target``? The first observer that
        can and its sight line, or (None, a hidden verdict naming the features that block the
        centre lines). The same method as :meth:`unit_sight`, with the quick lines of every
        observer tested in one batch.

        With heights (2.5D), each model is a volume from its floor to its top
        (:meth:`tops_of`): the quick lines count every piece that could block some line (higher
        than the lowest top), the group proofs only the pieces that block every line (higher
        than the highest top), and each open pair is decided by
        :func:`planner.geometry.sight.line_of_sight` with the two tops.

        The proofs of "hidden" are tried on groups of observer units first (:meth:`_groups_hidden`),
        then unit by unit for those left. ``proof_first``: the group proof for every observer
        at once comes before the quick lines (cheaper where hidden is the usual answer, as for a
        legal Infiltrator); the answer is the same either way."""
        tgt = list(target.footprints)
        observers = self.in_sight_range(observers, target)
        if not observers:
            return None, UnitSight(False)
        if not self.blocking_features:
            o = observers[0]
            return o, UnitSight(True, o.model_id(0), target.model_id(0),
                                ((o.footprints[0].cx, o.footprints[0].cy), (tgt[0].cx, tgt[0].cy)))
        if self.has_heights:
            tops_t = self.tops_of(target)
            tops_o = [self.tops_of(o) for o in observers]
            low: float | None = min(min(tops_t), *(min(t) for t in tops_o))
        else:  # every line is the plane test: no top is read (only their count)
            tops_t = (0.0,) * len(tgt)
            tops_o = [(0.0,) * len(o.footprints) for o in observers]
            low = None
        # ``proof_first`` (a check where hidden is the expected answer): one sound proof for all
        # the observers first (hidden: no quick line can be clear); else the quick lines first
        proven: set[int] = set()
        tried: set[int] = set()
        whole = proof_first and len(observers) > 1
        if whole:
            proven, tried = self._groups_hidden(observers, target, tops_o, tops_t, whole_only=True)
        if len(proven) < len(observers):
            quick = self._quick_visible(observers, tgt, low)
            if quick is not None:
                k, i, j, seg = quick
                return observers[k], UnitSight(True, observers[k].model_id(i), target.model_id(j), seg,
                                               passes=self._passes(observers[k], i, target, j, seg))
            proven, tried = self._groups_hidden(observers, target, tops_o, tops_t, whole_tried=whole)
        for k, (observer, tops) in enumerate(zip(observers, tops_o, strict=True)):
            if k in proven:
                continue
            s = self._prove_hidden(observer, target, exact, tops, tops_t, unit_tried=k in tried)
            if s.visible:
                return observer, s
        all_obs = [f for o in observers for f in o.footprints]
        passes: tuple[Crossing, ...] = ()
        if self.has_heights:
            k, i, j = min(((k, i, j) for k, o in enumerate(observers) for i in range(len(o.footprints))
                           for j in range(len(tgt))),
                          key=lambda kij: math.hypot(observers[kij[0]].footprints[kij[1]].cx - tgt[kij[2]].cx,
                                                     observers[kij[0]].footprints[kij[1]].cy - tgt[kij[2]].cy))
            a = observers[k].footprints[i]
            passes = self._passes(observers[k], i, target, j, ((a.cx, a.cy), (tgt[j].cx, tgt[j].cy)))
        # obstacles_for(all_obs, low, tgt), from each observer unit's standing-in features (kept)
        skip = self._group_standing(observers).union(*(self.target_standing_in(f) for f in tgt))
        obs_xy = self._stacked_discs(observers, [len(o.footprints) for o in observers])[0][:, :2]
        return None, UnitSight(False, blocking=self._blockers_between(all_obs, tgt, self._obstacles_skipping(skip, low), obs_xy),
                               passes=passes)

    def ignored_crossings(self, observer: Placed, i: int, target: Placed, j: int,
                          seg: tuple[tuple[float, float], tuple[float, float]] | None
                          ) -> list[tuple[Crossing, str]]:
        """The pieces with a height of the area features that observer model ``i`` or target model
        ``j`` stands in (:meth:`standing_in`, :meth:`target_standing_in`) that ``seg`` crosses, each
        with "observer" or "target" (who stands in it): the pieces the sight rule leaves out for
        this pair, so a report can say why a line through them is not blocked. Without heights, the
        features themselves (each a :class:`Crossing` with ``top`` None: as high as any line)."""
        if seg is None:
            return []
        a, b = observer.footprints[i], target.footprints[j]
        ta, tb = self.tops_of(observer)[i], self.tops_of(target)[j]
        p, q = seg
        if math.hypot(p[0] - a.cx, p[1] - a.cy) > math.hypot(q[0] - a.cx, q[1] - a.cy):
            p, q = q, p
        mine, theirs = self.standing_in(a), self.target_standing_in(b)
        out = []
        for t in self.blocking_features:
            if t.id in mine or t.id in theirs:
                who = "observer" if t.id in mine else "target"
                out += [(c, who) for c in crossings(p, q, (ta, tb), self.pieces[t.id])
                        if c.top is not None or not self.has_heights]
        return out

    def _passes(self, observer: Placed, i: int, target: Placed, j: int,
                seg: tuple[tuple[float, float], tuple[float, float]] | None) -> tuple[Crossing, ...]:
        """The pieces with a height that ``seg`` (from observer model ``i`` to target model ``j``,
        either way round) crosses, and how high it passes each; () without heights."""
        if not self.has_heights or seg is None:
            return ()
        a, b = observer.footprints[i], target.footprints[j]
        ta, tb = self.tops_of(observer)[i], self.tops_of(target)[j]
        p, q = seg
        if math.hypot(p[0] - a.cx, p[1] - a.cy) > math.hypot(q[0] - a.cx, q[1] - a.cy):
            p, q = q, p  # the line runs from the target: start it at the observer
        return tuple(crossings(p, q, (ta, tb), self.obstacles_for([a], targets=[b])))

    def _groups_hidden(self, observers: list[Placed], target: Placed, tops_o: list[tuple[float, ...]],
                       tops_t: tuple[float, ...], *, whole_only: bool = False, whole_tried: bool = False
                       ) -> tuple[set[int], set[int]]:
        """Sound group proofs that ``target`` is hidden from whole groups of observer units.

        The separation proof (:func:`planner.geometry.sight.outlines_separated`) is tried on every
        observer unit at once, then on halves (observers in order of their bearing from the
        target, so a group is a narrow wedge), down to single units. Each proof counts only the
        pieces that block every line of the group (higher than the highest top, area terrain
        any of its models stands in dropped), so it is the unit proof of :meth:`_prove_hidden`
        made for several units; a group of one is exactly that proof. ``whole_only``: only the
        proof for every observer at once; ``whole_tried``: that one is known to fail, start with
        the halves. Returns (the observers proven hidden from, the observers whose unit proof was
        tried and failed)."""
        proven: set[int] = set()
        tried: set[int] = set()
        tgt = target.footprints
        heights = self.has_heights
        high_t = max(tops_t)
        skip_t = frozenset().union(*(self.target_standing_in(f) for f in tgt))
        # the target's outlines as a collection (a proof measures to them, no union needed)
        tgt_parts, tgt_hull = self._outline_parts(tgt)
        tgt_outline = tgt_parts[0] if len(tgt_parts) == 1 else shapely.GeometryCollection(tgt_parts)
        polys: list[list[BaseGeometry]] = []  # each observer unit's outlines, made for the first part group

        def attempt(ks: list[int], known_open: bool = False) -> None:
            if known_open:
                if len(ks) == 1:
                    tried.add(ks[0])
                else:
                    attempt(ks[:len(ks) // 2])
                    attempt(ks[len(ks) // 2:])
                return
            high = max(high_t, *(max(tops_o[k]) for k in ks)) if heights else None
            # what obstacles_for(the observers' bases, high, tgt) gives: the same skipped features
            skip = (skip_t | self._group_standing(observers) if len(ks) == len(observers)
                    else skip_t.union(*(self._standing_union(observers[k]) for k in ks)))
            obstacles = self._obstacles_skipping(skip, high)
            # the hull of the group: of every observer at once (kept for the observers), or of
            # the units' hulls
            tree = None
            centres = None
            if len(ks) == len(observers):
                outlines, group_hull, tree = self._group_outlines(observers)
                hulls = [group_hull, tgt_hull]
                # every base's centre lies in its outline
                centres = self._stacked_discs(observers, [len(o.footprints) for o in observers])[0][:, :2]
            else:
                if not polys:
                    polys.extend(self._outline_polys(o.footprints) for o in observers)
                outlines = [p for k in ks for p in polys[k]]
                hulls = [*(self._outline_parts(observers[k].footprints)[1] for k in ks), tgt_hull]
            if obstacles and outlines_separated(outlines, tgt_outline, obstacles, self._blocked_union(skip, high),
                                                hulls=hulls, tree=tree, b_hull=tgt_hull, a_points=centres):
                proven.update(ks)
            elif len(ks) == 1:
                tried.add(ks[0])
            elif not whole_only:
                attempt(ks[:len(ks) // 2])
                attempt(ks[len(ks) // 2:])

        if whole_only:  # one proof for the group: no halves, so no order by bearing
            if observers:
                attempt(list(range(len(observers))))
            return proven, tried
        cx = sum(f.cx for f in tgt) / len(tgt)
        cy = sum(f.cy for f in tgt) / len(tgt)
        bearings = [math.atan2(sum(f.cy for f in o.footprints) / len(o.footprints) - cy,
                               sum(f.cx for f in o.footprints) / len(o.footprints) - cx) for o in observers]
        bearing = bearings.__getitem__
        order = sorted(range(len(observers)), key=bearing)
        if order:
            # the bearings wrap round at pi: start the circle at the widest gap between neighbours
            angles = [bearing(k) for k in order]
            gaps = [(angles[(i + 1) % len(order)] - angles[i]) % (2 * math.pi) for i in range(len(order))]
            start = (max(range(len(order)), key=gaps.__getitem__) + 1) % len(order)
            attempt(order[start:] + order[:start], whole_tried)
        return proven, tried

    def _prove_hidden(self, observer: Placed, target: Placed, exact: bool, tops_o: tuple[float, ...],
                      tops_t: tuple[float, ...], unit_tried: bool = False) -> UnitSight:
        """The unit proof (skipped when ``unit_tried``: :meth:`_groups_hidden` tried it), then a
        proof per observer model, then the exact test of each open pair of models."""
        obs, tgt = list(observer.footprints), list(target.footprints)
        heights = self.has_heights
        high_t = max(tops_t)
        high = max(high_t, max(tops_o)) if heights else None
        skip_t = frozenset().union(*(self.target_standing_in(f) for f in tgt))
        skip_all = skip_t.union(*(self.standing_in(f) for f in obs))
        group_obstacles = self.obstacles_for(obs, high, tgt)
        tgt_outline = self._outline(target.footprints)
        if not unit_tried and group_obstacles and outlines_separated(
                self._outline(observer.footprints), tgt_outline, group_obstacles,
                self._blocked_union(skip_all, high)):
            return UnitSight(False)
        open_pairs: list[tuple[int, int]] = []
        for i, a in enumerate(obs):
            skip = skip_t | self.standing_in(a)
            above = max(high_t, tops_o[i]) if heights else None
            obstacles = self.obstacles_for([a], above, tgt)
            if not (obstacles and outlines_separated(self._outline((a,)), tgt_outline, obstacles,
                                                     self._blocked_union(skip, above))):
                open_pairs += [(i, j) for j in range(len(tgt))]
        if open_pairs and not exact:
            i, j = open_pairs[0]
            return UnitSight(True, observer.model_id(i), target.model_id(j), None)
        open_pairs.sort(key=lambda ij: math.hypot(obs[ij[0]].cx - tgt[ij[1]].cx, obs[ij[0]].cy - tgt[ij[1]].cy))
        for i, j in open_pairs:
            a, b = obs[i], tgt[j]
            s: Sight = line_of_sight(a, b, self.obstacles_for([a], targets=[b]),
                                     (tops_o[i], tops_t[j]) if heights else None)
            if s.visible:
                return UnitSight(True, observer.model_id(i), target.model_id(j), s.segment,
                                 passes=self._passes(observer, i, target, j, s.segment))
        return UnitSight(False)

    def _quick_visible(self, observers: list[Placed], tgt: list[Footprint], low: float | None = None
                       ) -> tuple[int, int, int, tuple[tuple[float, float], tuple[float, float]]] | None:
        """A clear centre-to-centre line from some observer base to some target base, or None.

        Cheap, and any clear line is a proof (it misses every piece higher than ``low``, the
        lowest top of the models, so it passes above the others); outline points are tried per
        pair later by :func:`planner.geometry.sight.line_of_sight` when it comes to that. Returns
        (observer index, observer model index, target model index, segment): the first clear
        line in (observer, model, target model) order within the first group of lines (by the
        area features skipped) that has one. The lines are screened in numpy
        (:func:`planner.geometry.segment_screen.first_clear`; ``shapely.intersects`` decides only
        those the screen leaves open), which gives the same first clear line.
        """
        st = [self.target_standing_in(f) for f in tgt]
        ct = np.array([[f.cx, f.cy] for f in tgt])
        centres, who, so = self._observer_bases(observers)
        # every (observer base, target base) pair in (k, i, j) order, grouped by the features
        # skipped (in order of first appearance): usually one group
        n_t = len(tgt)
        keys: dict[frozenset[str], int] = {}
        so_ids = {s_: n for n, s_ in enumerate(dict.fromkeys(so))}
        st_ids = {s_: n for n, s_ in enumerate(dict.fromkeys(st))}
        combo = np.array([[keys.setdefault(a | b, len(keys)) for b in st_ids] for a in so_ids], dtype=np.int64)
        flat = combo[np.array([so_ids[s_] for s_ in so])[:, None], np.array([st_ids[s_] for s_ in st])[None, :]].ravel()
        if len(keys) == 1:
            groups = [(next(iter(keys)), np.arange(flat.size))]
        else:
            uniq, first = np.unique(flat, return_index=True)
            by_id = {v: k for k, v in keys.items()}
            groups = [(by_id[int(g)], np.nonzero(flat == g)[0]) for g in uniq[np.argsort(first)]]
        for key, idx in groups:
            union = self._blocked_union(key, low)
            b, j = idx // n_t, idx % n_t
            if union is None:
                m: int | None = 0
            else:
                m = first_clear(self._segment_screen(union), centres[b], ct[j], union)
                if m is None:
                    continue
            k, i = (int(v) for v in who[b[m]])
            jj = int(j[m])
            return k, i, jj, ((observers[k].footprints[i].cx, observers[k].footprints[i].cy), (tgt[jj].cx, tgt[jj].cy))
        return None

    def _observer_bases(self, observers: list[Placed]) -> tuple[np.ndarray, np.ndarray, list[frozenset[str]]]:
        """Every base of ``observers`` in order: centres (n x 2, inches), (unit index, model
        index) (n x 2) and the area features each stands in (:meth:`standing_in`), kept for
        this list of units (the planner asks about many targets against the same observers)."""
        key = tuple(id(o) for o in observers)
        hit = self._observer_cache.get(key)
        if hit is None or any(a is not b for a, b in zip(hit[0], observers, strict=True)):
            fps = [(k, i, f) for k, o in enumerate(observers) for i, f in enumerate(o.footprints)]
            hit = (tuple(observers), np.array([[f.cx, f.cy] for _, _, f in fps]).reshape(-1, 2),
                   np.array([[k, i] for k, i, _ in fps], dtype=np.int64).reshape(-1, 2),
                   [self.standing_in(f) for _, _, f in fps])
            self._observer_cache[key] = hit
        return hit[1], hit[2], hit[3]

    @cached_property
    def _observer_cache(self) -> dict[tuple[int, ...], tuple[tuple[Placed, ...], np.ndarray, np.ndarray,
                                                            list[frozenset[str]]]]:
        return {}

    def _segment_screen(self, union: BaseGeometry) -> SegmentScreen:
        """The vectorised segment screen of a blocked union (:mod:`planner.geometry.segment_screen`), kept."""
        hit = self._screens.get(id(union))
        if hit is None or hit[0] is not union:
            hit = self._screens[id(union)] = (union, SegmentScreen(union))
        return hit[1]

    @cached_property
    def _screens(self) -> dict[int, tuple[BaseGeometry, SegmentScreen]]:
        return {}

    def _blockers_between(self, obs: list[Footprint], tgt: list[Footprint], obstacles: list[Obstacle],
                          obs_xy: np.ndarray | None = None) -> tuple[str, ...]:
        """The obstacles that cross some centre-to-centre line between the two groups (the
        features a judge would point at); all obstacles in the way if none does alone.
        ``obs_xy``: the centres of ``obs`` (n x 2), when the caller keeps them.

        Only the lines that meet a piece's bounding box (widened: a screen, never a verdict)
        are tested, exactly, a few at a time until one crosses the piece: the first 4 of every
        piece, then the next 60 of the pieces not named yet, then the rest, each round one
        vectorised predicate over every piece still open. With many lines and pieces
        (:data:`_BEARING_MIN`) the lines are screened by bearing (:class:`_BearingScreen`): one
        probe line per target base and piece is tested first, and only the pieces it leaves
        unnamed are screened line by line. A piece is named if and only if some line crosses
        it (``shapely.intersects``), and every such line meets its widened box, so the names are
        the same whichever lines are tested first."""
        named: set[str] = set()
        if obstacles and obs and tgt:
            p = np.array([[a.cx, a.cy] for a in obs]) if obs_xy is None else obs_xy
            q = np.array([[b.cx, b.cy] for b in tgt])
            n_q = len(q)
            polys = np.asarray([o.polygon for o in obstacles], dtype=object)
            bounds = shapely.bounds(polys)
            # line l runs from p[l // n_q] to q[l % n_q] (every observer base to every target base)
            if len(p) * n_q * len(obstacles) >= _BEARING_MIN:
                # many lines and pieces: the lines by bearing from each target base; one probe line
                # per target base and piece first, then the lines meeting the box of each piece
                # not named yet (the same pairs as the box screen)
                screen = _BearingScreen(p, q, bounds, 1e-6)
                which, idx = screen.probes()
                if len(which):
                    hit = shapely.intersects(polys[which], shapely.linestrings(
                        np.stack([p[idx // n_q], q[idx % n_q]], axis=1)))
                    named.update(obstacles[k].id for k in set(which[hit].tolist()))
                box_of, line = screen.pairs([k for k, o in enumerate(obstacles) if o.id not in named])
            else:
                start, end = np.repeat(p, n_q, axis=0), np.tile(q, (len(p), 1))
                # the lines meeting each piece's box, by piece, then by line (only the pairs whose
                # bounding boxes meet are clipped): each piece's lines in order from ``first[k]``
                box_of, line = _box_segment_pairs(start, end, bounds, 1e-6)
            counts = np.bincount(box_of, minlength=len(obstacles))
            first = np.cumsum(counts) - counts
            rank = np.arange(len(box_of)) - first[box_of]
            open_ = [k for k in range(len(obstacles)) if counts[k]]
            for c0, c1 in ((0, 4), (4, 64), (64, None)):
                ks = [k for k in open_ if obstacles[k].id not in named and counts[k] > c0]
                if not ks:
                    break
                alive = np.zeros(len(obstacles), dtype=np.bool_)
                alive[ks] = True
                pick = alive[box_of] & (rank >= c0)
                if c1 is not None:
                    pick &= rank < c1
                which, idx = box_of[pick], line[pick]
                hit = shapely.intersects(polys[which], shapely.linestrings(np.stack([p[idx // n_q], q[idx % n_q]],
                                                                                    axis=1)))
                crossed = set(which[hit].tolist())
                named.update(obstacles[k].id for k in crossed)
                open_ = [k for k in ks if k not in crossed]
        return tuple(sorted(named)) if named else tuple(sorted({o.id for o in obstacles}))

_NO_FEATURES: frozenset[str] = frozenset()

_PREPARED_MAX = 16
_PREPARED: dict[tuple[object, ...], dict[str, object]] = {}
_POLYS: dict[tuple[str, ...], dict[str, Polygon]] = {}


def _terrain_polys(key: tuple[str, ...], terrain: list[TerrainFeature]) -> dict[str, Polygon]:
    """The shape of every feature (:attr:`TerrainFeature.shape`, prepared for many predicates),
    kept per terrain: ``key`` is the features' JSON, so tables of the same terrain (one scenario
    checked again, generator labels on one table) share them, and a feature changed in place is
    a new key. Shapely geometries are immutable; a new dict for each table."""
    hit = _POLYS.get(key)
    if hit is None:
        hit = {t.id: t.shape for t in terrain}
        for poly in hit.values():
            shapely.prepare(poly)  # many predicates against few polygons
        if len(_POLYS) >= _PREPARED_MAX:
            _POLYS.pop(next(iter(_POLYS)))
        _POLYS[key] = hit
    return dict(hit)


def _prepared_terrain(key: tuple[object, ...]) -> dict[str, object]:
    """The shared store of a terrain's sight geometry (pieces, blocked unions), by ``key``
    (the terrain's JSON, the ruleset's area-height rule and the blocking feature ids): what a
    table derives from those alone. At most ``_PREPARED_MAX`` terrains are kept."""
    hit = _PREPARED.get(key)
    if hit is None:
        if len(_PREPARED) >= _PREPARED_MAX:
            _PREPARED.pop(next(iter(_PREPARED)))
        hit = _PREPARED[key] = {}
    return hit


_SCREEN_SLACK = 1e-9
"""The box screen's slack (relative to the largest coordinate, plus this in inches): a segment
whose bounding box misses a widened box by more than this is one the clipping test rejects too
(rounding moves its parameters by about 1e-16 of the coordinates), so it is not clipped."""


def _clip_meets(sx: np.ndarray, sy: np.ndarray, ex: np.ndarray, ey: np.ndarray,
                x0: np.ndarray, y0: np.ndarray, x1: np.ndarray, y1: np.ndarray) -> np.ndarray:
    """Does the segment (``sx``, ``sy``) -> (``ex``, ``ey``) meet the box ``x0`` .. ``x1``,
    ``y0`` .. ``y1``? Elementwise over arrays that broadcast (inches): Liang-Barsky clipping
    (per axis, the entry and exit parameters are the lesser and the greater of the two edge
    parameters; a segment parallel to an axis meets the slab only from inside it). The one place
    of the test: the dense screen and the pruned one evaluate it on the same numbers, so they
    give the same Booleans."""
    t0: np.ndarray | float = 0.0
    t1: np.ndarray | float = 1.0
    ok: np.ndarray | bool = True
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for s, e, lo, hi in ((sx, ex, x0, x1), (sy, ey, y0, y1)):
            d = e - s
            par = d == 0
            r1 = (lo - s) / d
            r2 = (hi - s) / d
            enter = np.where(par, -np.inf, np.minimum(r1, r2))
            leave = np.where(par, np.inf, np.maximum(r1, r2))
            ok = ok & (~par | ((s - lo >= 0) & (hi - s >= 0)))
            t0 = np.maximum(t0, enter)
            t1 = np.minimum(t1, leave)
    return cast(np.ndarray, ok & (t0 <= t1))


def _box_segment_pairs(start: np.ndarray, end: np.ndarray, bounds: np.ndarray, margin: float
                       ) -> tuple[np.ndarray, np.ndarray]:
    """The (box, segment) pairs where segment ``start[i]`` -> ``end[i]`` (n x 2 arrays, inches)
    meets box ``bounds[b]`` (m x 4: minx, miny, maxx, maxy) widened by ``margin``: the True
    entries of :func:`_segments_meet_box`, in its row-major order (by box, then by segment).

    Only the pairs whose bounding boxes come within :data:`_SCREEN_SLACK` of each other are
    clipped (:func:`_clip_meets` on those numbers alone): a segment whose x (or y) range ends
    before the widened box's by more than the slack has both its edge parameters on one side of
    [0, 1] on that axis (or, parallel to the axis, lies outside the slab), so clipping rejects it
    as well."""
    if not len(start) or not len(bounds):
        return np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.intp)
    x0, y0 = bounds[:, 0] - margin, bounds[:, 1] - margin
    x1, y1 = bounds[:, 2] + margin, bounds[:, 3] + margin
    sx, sy = np.ascontiguousarray(start[:, 0]), np.ascontiguousarray(start[:, 1])
    ex, ey = np.ascontiguousarray(end[:, 0]), np.ascontiguousarray(end[:, 1])
    reach = max(float(np.abs(start).max()), float(np.abs(end).max()), float(np.abs(x0).max()),
                float(np.abs(y0).max()), float(np.abs(x1).max()), float(np.abs(y1).max()))
    slack = _SCREEN_SLACK * (1.0 + reach)
    near = ((np.minimum(sx, ex)[None, :] <= (x1 + slack)[:, None]) & (np.maximum(sx, ex)[None, :] >= (x0 - slack)[:, None])
            & (np.minimum(sy, ey)[None, :] <= (y1 + slack)[:, None]) & (np.maximum(sy, ey)[None, :] >= (y0 - slack)[:, None]))
    b, i = np.nonzero(near)
    meets = _clip_meets(sx.take(i), sy.take(i), ex.take(i), ey.take(i), x0.take(b), y0.take(b), x1.take(b), y1.take(b))
    return b[meets], i[meets]


_NO_GO_WITHIN_MIN = 4_096
"""No-go features x table bases from which :attr:`Table._no_go_centres` measures only the
pairs within each base's reach (below it, every pair: one dense pass is cheaper)."""

_BEARING_MIN = 20_000
"""Lines x pieces from which :meth:`Table._blockers_between` screens the lines by bearing
(:class:`_BearingScreen`) rather than by the bounding boxes of every (piece, line) pair."""

_BEARING_TURN = 1e-8
"""The widening of a box's range of bearings (radians) in :class:`_BearingScreen`: far above
the rounding of the bearings (about 1e-13 rad at :data:`_BEARING_NEAR` from a box)."""

_BEARING_NEAR = 1e-3
"""A target base's centre within this of a (widened) box (inches): every line from it is
screened for that box (its bearings there may span more than half a turn)."""


class _BearingScreen:
    """The lines from every point ``q[j]`` to every point ``p[i]`` (line ``l = i * len(q) + j``
    runs from ``p[i]`` to ``q[j]``, as :meth:`Table._blockers_between` makes them) against boxes
    ``bounds`` (m x 4) widened by ``margin``, screened by bearing: a segment from ``q[j]`` that
    meets a box not within :data:`_BEARING_NEAR` of ``q[j]`` points into the box's range of
    bearings seen from ``q[j]`` (less than half a turn, spanned by its corners), widened by
    :data:`_BEARING_TURN`. The points are sorted by bearing from each ``q[j]``, so the
    candidates of each (target point, box) are one run of that order (two across the cut at
    pi: the order is doubled); :func:`_clip_meets` then decides each candidate on the numbers of
    the box screen, so :meth:`pairs` gives the pairs of :func:`_box_segment_pairs` exactly."""

    def __init__(self, p: np.ndarray, q: np.ndarray, bounds: np.ndarray, margin: float) -> None:
        self.p, self.q = p, q
        n_p, n_q, m = len(p), len(q), len(bounds)
        self.n_p, self.n_q, self.m = n_p, n_q, m
        x0, y0 = bounds[:, 0] - margin, bounds[:, 1] - margin
        x1, y1 = bounds[:, 2] + margin, bounds[:, 3] + margin
        self.box = (x0, y0, x1, y1)
        qx, qy = q[:, 0:1], q[:, 1:2]
        turn = 2.0 * math.pi
        bearing = np.arctan2(p[None, :, 1] - qy, p[None, :, 0] - qx)  # (n_q, n_p)
        self.order = np.argsort(bearing, axis=1, kind="stable")
        ranked = np.take_along_axis(bearing, self.order, axis=1)
        # each row twice (the second a turn on), the rows 4 turns apart: one sorted array
        rows = np.arange(n_q)[:, None] * (4.0 * turn)
        keys = (np.concatenate([ranked, ranked + turn], axis=1) + rows).ravel()
        # each box's bearings: its corners' about the bearing of its centre (less than half a
        # turn from it when the point is outside the box)
        mid = np.arctan2((y0 + y1)[None, :] * 0.5 - qy, (x0 + x1)[None, :] * 0.5 - qx)  # (n_q, m)
        cx = np.stack([x0, x1, x1, x0], axis=1)[None]
        cy = np.stack([y0, y0, y1, y1], axis=1)[None]
        rel = (np.arctan2(cy - qy[:, :, None], cx - qx[:, :, None]) - mid[:, :, None] + math.pi) % turn - math.pi
        lo = (mid + rel.min(axis=2) - _BEARING_TURN + math.pi) % turn - math.pi
        width = rel.max(axis=2) - rel.min(axis=2) + 2.0 * _BEARING_TURN
        a = np.searchsorted(keys, (lo + rows).ravel(), "left")
        b = np.searchsorted(keys, (lo + width + rows).ravel(), "right")
        inside = ((qx >= (x0 - _BEARING_NEAR)[None, :]) & (qx <= (x1 + _BEARING_NEAR)[None, :])
                  & (qy >= (y0 - _BEARING_NEAR)[None, :]) & (qy <= (y1 + _BEARING_NEAR)[None, :])).ravel()
        row0 = np.repeat(np.arange(n_q) * (2 * n_p), m)
        self.inside = inside
        self.lo = np.where(inside, row0, a)  # (n_q * m): runs of the doubled rows, by (j, box)
        self.hi = np.where(inside, row0 + n_p, np.minimum(b, a + n_p))

    def _lines(self, pos: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The (p index, q index) at positions ``pos`` of the doubled rows."""
        j = pos // (2 * self.n_p)
        return self.order.ravel()[j * self.n_p + pos % (2 * self.n_p) % self.n_p], j

    def _meets(self, box: np.ndarray, i: np.ndarray, j: np.ndarray) -> np.ndarray:
        x0, y0, x1, y1 = self.box
        return _clip_meets(self.p[i, 0], self.p[i, 1], self.q[j, 0], self.q[j, 1],
                           x0.take(box), y0.take(box), x1.take(box), y1.take(box))

    def probes(self) -> tuple[np.ndarray, np.ndarray]:
        """(box, line), lines worth testing first: per target point and box, the line of the
        middle bearing of the box's candidates (the point outside the box) or the lines from
        the first 4 points ``p`` (the point in or near the box), where they meet the box."""
        boxes = np.tile(np.arange(self.m), self.n_q)
        keep = ~self.inside & (self.hi > self.lo)
        i, j = self._lines((self.lo[keep] + self.hi[keep]) // 2)
        box = boxes[keep]
        near = np.nonzero(self.inside)[0]
        if len(near):
            k = min(4, self.n_p)
            i = np.concatenate([i, np.tile(np.arange(k), len(near))])
            j = np.concatenate([j, np.repeat(near // self.m, k)])
            box = np.concatenate([box, np.repeat(boxes[near], k)])
        ok = self._meets(box, i, j)
        return box[ok], i[ok] * self.n_q + j[ok]

    def pairs(self, boxes: list[int] | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The (box, line) pairs of :func:`_box_segment_pairs` for these lines, in its order (by
        box, then by line); only for ``boxes`` if given."""
        sel = np.arange(self.n_q * self.m)
        if boxes is not None:
            want = np.zeros(self.m, dtype=np.bool_)
            want[boxes] = True
            sel = sel[np.tile(want, self.n_q)]
        lo, hi = self.lo[sel], self.hi[sel]
        counts = hi - lo
        total = int(counts.sum())
        pos = np.repeat(lo - (np.cumsum(counts) - counts), counts) + np.arange(total)
        box = np.repeat(sel % self.m, counts)
        i, j = self._lines(pos)
        ok = self._meets(box, i, j)
        box, line = box[ok], i[ok] * self.n_q + j[ok]
        k = np.argsort(box * (self.n_p * self.n_q) + line, kind="stable")
        return box[k], line[k]


def _segments_meet_box(start: np.ndarray, end: np.ndarray, bounds: np.ndarray, margin: float, *,
                       prune: bool = True) -> np.ndarray:
    """For segments ``start[i]`` -> ``end[i]`` (n x 2 arrays, inches) and boxes ``bounds[b]``
    (m x 4: minx, miny, maxx, maxy): does segment i meet box b widened by ``margin``? An m x n
    Boolean array (:func:`_clip_meets`). ``prune``: clip only the pairs whose bounding boxes
    meet (:func:`_box_segment_pairs`); else every pair (the dense screen): the same Booleans."""
    if not prune:
        col = [bounds[:, 0:1] - margin, bounds[:, 1:2] - margin, bounds[:, 2:3] + margin, bounds[:, 3:4] + margin]
        got = _clip_meets(start[None, :, 0], start[None, :, 1], end[None, :, 0], end[None, :, 1], *col)
        return np.ascontiguousarray(np.broadcast_to(got, (len(bounds), len(start))))
    out = np.zeros((len(bounds), len(start)), dtype=np.bool_)
    b, i = _box_segment_pairs(start, end, bounds, margin)
    out[b, i] = True
    return out


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
