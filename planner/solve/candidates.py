"""Candidate placements for units to be placed: formations on a grid, each judged exactly.

A candidate is a whole unit (with any Independent Characters that join it) in one formation at
one anchor point. Formations keep every model within coherency of its neighbours, so coherency
holds by construction; everything that depends only on the unit and the fixed units (on the
battlefield, wholly within the zone, impassable terrain, Infiltrate distance and line of sight to
enemy units, overlap with fixed models) is decided for each candidate with the same float-exact
predicates as the checker. The discretisation is therefore conservative: a candidate the CP-SAT
model can pick is legal in exact geometry; only interactions *between* placed units (overlap)
are left to the CP-SAT model, as pairwise conflicts that are also computed exactly.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from shapely.geometry import Point

from planner.geometry.measure import is_more_than_distance, is_within_distance, overlaps
from planner.geometry.shapes import Footprint, clearance_inside, distance_to_polygon, footprint
from planner.legality.hh2 import coherency_gap, coherency_range
from planner.legality.table import Placed, Table
from planner.rules import hh2 as R
from planner.schema import SetupMethod
from planner.solve import wh40k_judge
from planner.units import TOLERANCE_IN
from planner.world import ModelInfo, UnitInfo

FORMATION_GAP_IN = 0.25
"""Gap between neighbouring bases in a formation, inches (well inside every coherency range)."""


class CandidateTimeout(Exception):
    """The candidate stream ran past the builder's deadline."""


@dataclass(frozen=True)
class Formation:
    """Model offsets (dx, dy) from the anchor, inches, and one facing for every model, degrees."""

    name: str
    offsets: tuple[tuple[float, float], ...]
    facing: float


@dataclass(frozen=True)
class Candidate:
    """One legal placement of a placement group: footprints per unit id, and its cost."""

    index: int
    anchor: tuple[float, float]
    formation: str
    positions: dict[str, list[tuple[float, float, float]]]  # unit id -> [(x, y, facing)]
    footprints: tuple[Footprint, ...]
    cost: float  # inches, sum over models of centre distance to the target point
    nearest_enemy_in: float | None

    @cached_property
    def reach(self) -> float:
        """Radius of a disc about the anchor that holds every base, inches."""
        return max(math.hypot(f.cx - self.anchor[0], f.cy - self.anchor[1]) + f.outer_radius for f in self.footprints)

    @cached_property
    def _arrays(self) -> tuple[np.ndarray, np.ndarray, bool]:
        xy = np.array([[f.cx, f.cy] for f in self.footprints])
        r = np.array([f.outer_radius for f in self.footprints])
        return xy, r, all(f.kind == "circle" for f in self.footprints)

    def overlaps(self, other: Candidate) -> bool:
        """Would some base of this placement overlap some base of ``other``? Exact (as the checker)."""
        if math.hypot(self.anchor[0] - other.anchor[0], self.anchor[1] - other.anchor[1]) > self.reach + other.reach:
            return False
        xa, ra, round_a = self._arrays
        xb, rb, round_b = other._arrays
        gap = np.hypot(xa[:, None, 0] - xb[None, :, 0], xa[:, None, 1] - xb[None, :, 1]) - ra[:, None] - rb[None, :]
        if round_a and round_b:
            # round bases: the bound is the exact distance
            return bool((gap < -TOLERANCE_IN).any())
        for i, j in zip(*np.nonzero(gap <= 0), strict=True):
            if overlaps(self.footprints[i], other.footprints[j]):
                return True
        return False


@dataclass
class Group:
    """A unit to place, with the Independent Characters that join it."""

    host: UnitInfo
    members: list[UnitInfo]

    @property
    def models(self) -> list[ModelInfo]:
        return [m for u in self.members for m in u.models]

    @property
    def id(self) -> str:
        return self.host.id


def _cell(models: list[ModelInfo]) -> tuple[float, float]:
    """Cell size (along facing, across) for a formation of these models, inches."""
    along = across = 0.0
    for m in models:
        f = footprint(m.base, 0.0, 0.0, 0.0)
        if f.kind == "circle":
            along, across = max(along, 2 * f.a), max(across, 2 * f.a)
        else:
            along, across = max(along, 2 * f.a), max(across, 2 * f.b)
    return along + FORMATION_GAP_IN, across + FORMATION_GAP_IN


def formations(models: list[ModelInfo]) -> list[Formation]:
    """Compact formations for ``len(models)`` models: lines and blocks of 2-3 ranks, two facings.

    Models stand shoulder to shoulder across the facing (``FORMATION_GAP_IN`` apart) in ranks.
    """
    n = len(models)
    along, across = _cell(models)
    ranks_options = sorted({1, 2, 3} if n >= 4 else {1, 2} if n >= 2 else {1})
    out: list[Formation] = []
    for facing in (90.0, 0.0):
        rad = math.radians(facing)
        fx, fy = math.cos(rad), math.sin(rad)  # facing direction
        sx, sy = -fy, fx  # across
        for ranks in ranks_options:
            per_rank = math.ceil(n / ranks)
            offs = []
            for i in range(n):
                r, c = divmod(i, per_rank)
                a = (r - (ranks - 1) / 2) * along
                b = (c - (per_rank - 1) / 2) * across
                offs.append((a * fx + b * sx, a * fy + b * sy))
            out.append(Formation(f"{ranks}x{per_rank}@{facing:g}", tuple(offs), facing))
    return out


class CandidateBuilder:
    """Generates and judges candidates for one group against the fixed units of a scenario."""

    def __init__(self, table: Table, fixed: list[Placed], grid_in: float, target: tuple[float, float],
                 margin_in: float = 0.0):
        self.table = table
        self.margin = margin_in
        self.fixed = fixed
        self.grid = grid_in
        self.target = target
        self.judged = 0
        self.deadline = math.inf

    def region(self, group: Group):
        """Polygon the group must stand in: its zone (normal deployment) or the battlefield."""
        u = group.host
        if u.method is SetupMethod.DEPLOYMENT_ZONE:
            zid = u.setup.zone or (self.table.world.zone_of(u.player).id if self.table.world.zone_of(u.player)
                                   else None)
            if zid is None:
                return None
            return self.table.zone_polys[zid]
        return self.table.battlefield

    def anchors(self, group: Group) -> list[tuple[float, float]]:
        """Grid points of the group's region, nearest the target first."""
        poly = self.region(group)
        if poly is None:
            return []
        x0, y0, x1, y1 = poly.bounds
        g = self.grid
        pts = []
        i0, i1 = math.ceil(x0 / g), math.floor(x1 / g)
        j0, j1 = math.ceil(y0 / g), math.floor(y1 / g)
        for i in range(i0, i1 + 1):
            for j in range(j0, j1 + 1):
                pts.append((i * g, j * g))
        tx, ty = self.target
        pts.sort(key=lambda p: (math.hypot(p[0] - tx, p[1] - ty), p))
        return pts

    def judge(self, group: Group, fps: list[Footprint]) -> tuple[bool, float | None]:
        """Is this placement legal for everything that does not involve other placed units?"""
        if wh40k_judge.handles(self.table.world.scenario.ruleset):
            return wh40k_judge.judge(self, group, fps)
        t = self.table
        u = group.host
        for f in fps:
            if clearance_inside(f, t.battlefield) < -TOLERANCE_IN:
                return False, None
        region = self.region(group)
        if u.method is SetupMethod.DEPLOYMENT_ZONE and region is not None:
            for f in fps:
                if clearance_inside(f, region) < -TOLERANCE_IN:
                    return False, None
        for feat in t.no_go_features:
            poly = t.terrain_polys[feat.id]
            for f in fps:
                if poly.distance(Point(f.cx, f.cy)) > f.outer_radius + 1e-3:
                    continue
                if distance_to_polygon(f, poly) < -TOLERANCE_IN:
                    return False, None
        for p in self.fixed:
            for a in p.footprints:
                for f in fps:
                    if overlaps(a, f):
                        return False, None
        near = None
        if u.method is SetupMethod.INFILTRATE:
            enemies = [e for e in t.enemy_presence(u.player, "first")
                       if not (e.unit.setup.order and u.setup.order and e.unit.setup.order > u.setup.order)]
            placed = Placed(u, tuple(fps), tuple(f"{m.unit_id}/{m.id}" for m in group.models))
            n = t.nearest_unit(placed, enemies)
            if n is not None:
                near = n[0]
                # keep a margin a player can reproduce with a tape measure
                if not is_more_than_distance(near, R.INFILTRATE_HIDDEN_MORE_THAN_IN + self.margin):
                    return False, near
                if not is_more_than_distance(near, R.INFILTRATE_PLAIN_SIGHT_MORE_THAN_IN + self.margin):
                    seen_by, _ = t.sight_from_any(enemies, placed, exact=False)
                    if seen_by is not None:
                        return False, near
        return True, near

    def stream(self, group: Group) -> Iterator[Candidate]:
        """Legal candidates for ``group``, lazily, nearest the target first.

        Anchors are visited in order of distance to the target. At each anchor the formations
        that keep the unit in coherency are judged cheapest first, and the first legal one is
        kept: one candidate per anchor spreads the candidates of crowded units over more ground.
        The stream ends when the region is exhausted.
        """
        models = group.models
        rng = coherency_range(models)
        ruleset = self.table.world.scenario.ruleset

        def coherent(fps: list[Footprint]) -> bool:
            if wh40k_judge.handles(ruleset):
                return wh40k_judge.coherent(ruleset, fps)
            return is_within_distance(coherency_gap(fps)[0], rng)

        forms = [f for f in formations(models) if coherent(
            [footprint(m.base, dx, dy, f.facing) for m, (dx, dy) in zip(models, f.offsets, strict=True)])]
        tx, ty = self.target
        index = 0
        for ax, ay in self.anchors(group):
            if time.monotonic() > self.deadline:
                raise CandidateTimeout(group.id)
            placed = [(form, [footprint(m.base, ax + dx, ay + dy, form.facing)
                              for m, (dx, dy) in zip(models, form.offsets, strict=True)]) for form in forms]
            placed.sort(key=lambda p: sum(math.hypot(f.cx - tx, f.cy - ty) for f in p[1]))
            for form, fps in placed:
                self.judged += 1
                ok, dist = self.judge(group, fps)
                if not ok:
                    continue
                positions: dict[str, list[tuple[float, float, float]]] = {}
                k = 0
                for u in group.members:
                    positions[u.id] = [(fps[k + i].cx, fps[k + i].cy, form.facing) for i in range(len(u.models))]
                    k += len(u.models)
                cost = sum(math.hypot(f.cx - tx, f.cy - ty) for f in fps)
                if wh40k_judge.handles(ruleset):
                    cost += wh40k_judge.goal_cost(self, group, fps)
                yield Candidate(index, (ax, ay), form.name, positions, tuple(fps), cost, dist)
                index += 1
                break
