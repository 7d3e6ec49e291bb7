"""The enemy unit's legal arrival space: the grid anchors where its formation may Infiltrate.

An *arrival position* is the enemy unit (with the Independent Characters that join it) in one
formation at one anchor of a square grid over the battlefield. Its legality is judged with the
checker's predicates (HH2 p.242, Infiltrate; rule ids ``hh2.battlefield``,
``hh2.terrain.impassable``, ``hh2.bases.no_overlap``, ``hh2.infiltrate.distance``,
``hh2.infiltrate.hidden``):

- every base wholly on the battlefield, not in impassable terrain nor inside a solid feature,
  overlapping no model already on the table;
- more than 9" from every enemy (to it) unit, and if within 12" of any, out of sight of every
  deployed enemy unit.

The *legal area* is stated as: (number of anchors with at least one legal formation) x (grid
cell area), in square inches. It is a measure of the grid, not the exact area of a region.
:func:`distance_region_area` gives, for comparison, the exact area (shapely) of the centre
locus of a single base that is on the battlefield and more than 9" from the given units
(terrain and line of sight ignored).

Legality against *my* units splits into what one unit of mine does alone (``kill9``: some base
overlaps or is within 9"; ``near12``: within 12") and line of sight (``sees``), because the
rule is "more than 9" and hidden from *every* deployed enemy unit, or more than 12" from all".
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field

import numpy as np
import shapely
from shapely.ops import unary_union

from planner.errors import ScenarioError
from planner.geometry.measure import is_more_than_distance, nearest
from planner.geometry.shapes import Footprint, footprint
from planner.geometry.sight import shrunk_union
from planner.legality.checks.distance import InfiltrateDistance, infiltrate_distance
from planner.legality.checks.placement import closest_no_go, first_outside, first_overlap
from planner.legality.checks.restriction import first_breach
from planner.legality.hh2 import has_infiltrate_for_setup
from planner.legality.table import Placed, Table
from planner.schema import SetupMethod
from planner.solve import stop
from planner.solve.candidates import Group, formations
from planner.units import TOLERANCE_IN
from planner.world import UnitInfo, World


def infiltrate_distances(world: World) -> tuple[float, float]:
    """(hidden, plain sight): an Infiltrator is more than the first from every enemy unit and
    hidden, or more than the second (the scenario ruleset's numbers).

    Raises
    ------
    ScenarioError
        If the scenario's ruleset has no Infiltrate distances.
    """
    rs = world.ruleset
    if rs.INFILTRATE_HIDDEN_MORE_THAN_IN is None or rs.INFILTRATE_PLAIN_SIGHT_MORE_THAN_IN is None:
        raise ScenarioError("this ruleset has no Infiltrate distances", file=world.file, location="ruleset",
                            value=rs.id)
    return rs.INFILTRATE_HIDDEN_MORE_THAN_IN, rs.INFILTRATE_PLAIN_SIGHT_MORE_THAN_IN


@dataclass(frozen=True)
class Position:
    """One arrival position of the enemy unit: its formation at one grid anchor."""

    index: int
    anchor: tuple[float, float]
    formation: str
    footprints: tuple[Footprint, ...]
    positions: dict[str, list[tuple[float, float, float]]]  # unit id -> [(x, y, facing)]

    @property
    def xy(self) -> np.ndarray:
        return np.array([[f.cx, f.cy] for f in self.footprints])

    @property
    def radii(self) -> np.ndarray:
        return np.array([f.outer_radius for f in self.footprints])


@dataclass
class Relation:
    """How one placement of mine (a unit at fixed footprints) bears on the arrival positions.

    ``kill9``: position indices it alone makes illegal (overlap, or within 9");
    ``near12``: indices within 12" (hidden needed); ``sees``: indices it proves it sees (exact or
    a clear centre line); ``unknown``: indices where neither sight nor its absence is proven yet
    (decided by :meth:`ArrivalSpace.sight_exact` on demand).
    """

    kill9: set[int] = field(default_factory=set)
    near12: set[int] = field(default_factory=set)
    sees: set[int] = field(default_factory=set)
    unknown: set[int] = field(default_factory=set)


def enemy_group(world: World, unit_id: str, option: str = "--unit") -> Group:
    """The enemy unit with the Independent Characters joined to it, as a :class:`Group`.

    Raises
    ------
    ScenarioError
        If the unit does not exist or cannot Infiltrate (no model with Infiltrate, HH2 p.242).
    """
    u = world.units.get(unit_id)
    if u is None:
        raise ScenarioError(f"no unit with this id; units: {', '.join(sorted(world.units))}" if world.units
                            else "no unit with this id: the scenario has no units", file=world.file,
                            location=option, value=unit_id)
    if u.setup.joined:
        raise ScenarioError(f"{unit_id!r} is an Independent Character joined to {u.setup.joined!r}: name that unit",
                            file=world.file, location=option, value=unit_id)
    if world.ruleset.INFILTRATE_HIDDEN_MORE_THAN_IN is None:
        ds = ("the older Deep Strike rulesets (wh40k5, wh40k7) scatter: their odds are planner deepstrike's"
              if not world.ruleset.HAS_DEEP_STRIKE_ARRIVAL else
              "threats covers its Deep Strike arrivals: a unit in reserves with arrival deep_strike")
        raise ScenarioError(f"ruleset {world.ruleset.id} has no Infiltrate arrival to map"
                            + (" (its Infiltrators set up in the deployment step)" if world.ruleset.HAS_DEEP_STRIKE_ARRIVAL
                               else "") + f"; {ds}", file=world.file, location=option, value=unit_id)
    if not has_infiltrate_for_setup(world, u):
        raise ScenarioError("this unit cannot Infiltrate (no model with Infiltrate, HH2 p.242); threats and denial "
                            "cover Infiltrate arrivals (and a Scout's Infiltrate set-up)", file=world.file,
                            location=option, value=unit_id)
    members = [u] + [world.units[j] for j in u.joined_by]
    return Group(u, members)


def _coherent_forms(models, limit: int, rs):
    coherent = rs.planner_judge().coherent  # the ruleset's coherency predicate, as the planner uses it
    out = []
    for f in formations(models):
        fps = [footprint(m.base, dx, dy, f.facing) for m, (dx, dy) in zip(models, f.offsets, strict=True)]
        if coherent(rs, models, fps):
            reach = max(math.hypot(p.cx, p.cy) + p.outer_radius for p in fps)
            out.append((reach, f))
    out.sort(key=lambda rf: (rf[0], rf[1].name))
    # the most compact formations, one per facing
    chosen, facings = [], set()
    for _, f in out:
        if f.facing not in facings:
            chosen.append(f)
            facings.add(f.facing)
        if len(chosen) >= limit:
            break
    return chosen


class ArrivalSpace:
    """Arrival positions of one enemy unit and their legality.

    Parameters
    ----------
    world : World
        The resolved scenario.
    group : Group
        The enemy unit (:func:`enemy_group`).
    fixed : list[Placed]
        Units already on the table that stay where they are (any player): overlap, and for the
        other player's units Infiltrate distance and sight, are judged against them.
    grid_in : float
        Grid spacing of the anchors, inches. The area of one cell is ``grid_in ** 2``.
    formations_per_anchor : int
        How many formations (the most compact, one per facing) are tried at each anchor.
    stoppable : bool
        A stop request (Ctrl-C, :mod:`planner.solve.stop`) ends the scan of the positions: those
        not judged yet count as not legal, and :attr:`judged` says how many were (``planner
        threats``' partial answer). Without it (the denial, the min-max, the alternation, whose
        answers need the whole space) the scan always ends.
    deadline : float
        With ``stoppable``, the scan also ends (as at a stop request) once
        :func:`planner.solve.stop.clock` reaches this ``time.monotonic()`` time, seconds
        (``planner threats --time-limit``); ``inf`` (default): no time limit.
    """

    def __init__(self, world: World, group: Group, fixed: list[Placed], grid_in: float = 2.0,
                 formations_per_anchor: int = 2, table: Table | None = None, *, stoppable: bool = False,
                 deadline: float = math.inf):
        self.world = world
        self.far_in, self.near_in = infiltrate_distances(world)
        self.table = table or world.ruleset.table(world)
        self.group = group
        self.player = group.host.player
        self.grid = float(grid_in)
        self.cell_area = self.grid ** 2
        self.fixed = fixed
        self.observers = [p for p in fixed if p.unit.player != self.player]
        self._unit = group.host
        models = group.models
        forms = _coherent_forms(models, formations_per_anchor, world.ruleset)
        if not forms:
            raise ScenarioError("no formation keeps this unit in coherency", file=world.file, location="--unit",
                                value=group.id)
        self.forms = forms
        """The formations tried at each anchor (the most compact of 1-3 ranks, one per facing)."""
        bf = world.scenario.battlefield
        g = self.grid
        positions: list[Position] = []
        ok: list[bool] = []  # each position judged as it is laid out, in index order
        nx, ny = math.floor(bf.width / g) + 1, math.floor(bf.depth / g) + 1
        self.total_positions = nx * ny * len(forms)
        """How many arrival positions the grid has (each anchor with each formation tried): those
        of :attr:`all_positions`, unless a stop request or the deadline ended a ``stoppable``
        scan (:attr:`all_positions` then holds the first of them, the ones judged)."""
        stopped = False
        for i in range(0, nx):
            for j in range(0, ny):
                if stoppable and stop.clock() >= deadline:  # a stop request (clock: inf) or the time limit
                    stopped = True
                    break
                ax, ay = i * g, j * g
                for f in forms:
                    fps = tuple(footprint(m.base, ax + dx, ay + dy, f.facing)
                                for m, (dx, dy) in zip(models, f.offsets, strict=True))
                    pos: dict[str, list[tuple[float, float, float]]] = {}
                    k = 0
                    for u in group.members:
                        pos[u.id] = [(fps[k + n].cx, fps[k + n].cy, f.facing) for n in range(len(u.models))]
                        k += len(u.models)
                    p = Position(len(positions), (ax, ay), f.name, fps, pos)
                    positions.append(p)
                    ok.append(self._static(p))
            if stopped:
                break
        self.all_positions = positions
        self.judged = len(ok)
        """How many positions (in :attr:`all_positions` order) were judged: all of them, unless a
        stop request or the deadline ended a ``stoppable`` scan."""
        self.static_ok = np.array(ok + [False] * (len(positions) - len(ok)), dtype=bool)
        self.positions = [p for p in positions if self.static_ok[p.index]]
        anchors = sorted({p.anchor for p in positions})
        self.anchor_index = {a: k for k, a in enumerate(anchors)}
        self.anchors = anchors
        self._sight_cache: dict[tuple[int, int], bool] = {}

    def rules_limit(self) -> str | None:
        """When the rules alone leave the unit no arrival wholly on the battlefield, whatever the
        formation (no base fits, or its bases' area exceeds the battlefield's:
        :func:`planner.solve.packing.no_fit_words`, the one test), the phrase that says why; else None."""
        from planner.solve.packing import no_fit_words

        return no_fit_words(self.table.battlefield, [(f"{m.unit_id}/{m.id}", footprint(m.base, 0.0, 0.0, 0.0))
                                                     for m in self.group.models], "battlefield")

    def formation_limit(self) -> str | None:
        """When none of the formations tried (:attr:`forms`) fits on the battlefield, by its
        bounding box, the phrase that says the limit is the scan's formations, not the rules
        (:func:`planner.solve.planner.formation_limit_words`, the one test); else None."""
        from planner.solve.planner import formation_limit_words

        models = self.group.models
        forms = [(tuple(footprint(m.base, dx, dy, f.facing) for m, (dx, dy) in zip(models, f.offsets, strict=True)),
                  f.name) for f in self.forms]
        bf = self.world.scenario.battlefield
        return formation_limit_words(forms, (0.0, 0.0, bf.width, bf.depth), len(models), "battlefield",
                                     "only in its most compact formation of 1-3 ranks in each of two facings")

    @functools.cached_property
    def _xy(self) -> np.ndarray:
        """The model centres of every position of :attr:`all_positions`, (P, n, 2), inches (built
        on first use: a scan the time limit cuts short need not pay for them)."""
        return np.array([p.xy for p in self.all_positions])

    @functools.cached_property
    def _r(self) -> np.ndarray:
        """The outer radius of every model of every position, (P, n), inches (built on first use)."""
        return np.array([p.radii for p in self.all_positions])

    # ------------------------------------------------------------------ static legality
    def placed(self, p: Position) -> Placed:
        ids = tuple(f"{m.unit_id}/{m.id}" for m in self.group.models)
        return Placed(self._unit, p.footprints, ids)

    def _static(self, p: Position) -> bool:
        """The rules that do not depend on my units being placed, with the checker's predicates:
        wholly on the battlefield, clear of no-go terrain and of the fixed units' bases, and the
        Infiltrate distance and sight to the fixed units."""
        t = self.table
        fps = p.footprints
        if first_outside(fps, t.battlefield) is not None:
            return False
        hit = closest_no_go(fps, t.no_go_polys, first_hit=True)
        if hit is not None and not hit.ok:
            return False
        if first_overlap(fps, self._fixed_fps) is not None:
            return False
        if first_breach(t, self.placed(p), holders=self.observers) is not None:
            return False
        if self.observers:
            n = t.nearest_unit(self.placed(p), self.observers)
            assert n is not None  # self.observers is not empty
            verdict = infiltrate_distance(self.world.ruleset, n[0])
            if verdict is InfiltrateDistance.TOO_CLOSE:
                return False
            if verdict is InfiltrateDistance.HIDDEN_NEEDED:
                seen_by, _ = t.sight_from_any(self.observers, self.placed(p), exact=True)
                if seen_by is not None:
                    return False
        return True

    @property
    def _fixed_fps(self) -> list[tuple[str, Footprint]]:
        if not hasattr(self, "_fixed_fps_cache"):
            self._fixed_fps_cache = [(q.unit.id, a) for q in self.fixed for a in q.footprints]
        return self._fixed_fps_cache

    @property
    def fixed_near12(self) -> set[int]:
        """Static-legal positions within 12" of a fixed enemy (to them) unit: already need hiding."""
        if not hasattr(self, "_fixed_near12"):
            out = set()
            for p in self.positions:
                n = self.table.nearest_unit(self.placed(p), self.observers) if self.observers else None
                if n is not None and not is_more_than_distance(n[0], self.near_in):
                    out.add(p.index)
            self._fixed_near12 = out
        return self._fixed_near12

    # ------------------------------------------------------------------ relations to my units
    def distances(self, fps: tuple[Footprint, ...], idx: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Closest distance (inches) from the bases ``fps`` to each position in ``idx`` (default: the
        static-legal ones), as far as the 9" and 12" thresholds need it: exact for round bases, and
        for other bases wherever a threshold lies between a cheap lower bound (outer radii) and
        upper bound (inner radii); elsewhere a bound on the same side of both thresholds.

        Returns (indices, distances); a negative distance means overlap.
        """
        if idx is None:
            cache = self.__dict__.setdefault("_dist_cache", {})
            if fps not in cache:
                cache[fps] = self.distances(fps, np.array([p.index for p in self.positions], dtype=int))
            return cache[fps]
        if not len(idx):
            return idx, np.zeros(0)
        mx = np.array([[f.cx, f.cy] for f in fps])
        mr = np.array([f.outer_radius for f in fps])
        pxy = self._xy[idx]  # (k, n, 2)
        pr = self._r[idx]
        cd = np.hypot(pxy[:, :, None, 0] - mx[None, None, :, 0], pxy[:, :, None, 1] - mx[None, None, :, 1])
        lb = (cd - pr[:, :, None] - mr[None, None, :]).min(axis=(1, 2))
        round_all = all(f.kind == "circle" for f in fps) and all(
            f.kind == "circle" for f in self.all_positions[0].footprints)
        d = lb.copy()
        if not round_all:
            mi = np.array([f.inner_radius for f in fps])
            pi = np.array([[f.inner_radius for f in self.all_positions[int(k)].footprints] for k in idx])
            ub = (cd - pi[:, :, None] - mi[None, None, :]).min(axis=(1, 2))
            tol = TOLERANCE_IN
            # decided by the bounds: both on the same side of 9" and of 12"
            sure = ((ub <= self.far_in - tol) | (lb > self.near_in + tol) | ((lb > self.far_in + tol) & (ub <= self.near_in - tol)))
            d = np.where(ub <= self.near_in - tol, ub, lb)
            for k in np.nonzero(~sure & (lb <= self.near_in + 0.5))[0]:
                p = self.all_positions[int(idx[k])]
                d[k] = nearest(list(p.footprints), list(fps)).distance
        return idx, d

    def relation(self, unit: UnitInfo, fps: tuple[Footprint, ...], *, exact_sight: bool = False,
                 candidates_sight: np.ndarray | None = None) -> Relation:
        """How my unit with bases ``fps`` bears on every static-legal position (see :class:`Relation`).

        Sight is proven visible by a clear centre line (vectorised) for positions within 12" of
        some base of mine -- those are the positions where the hidden requirement can be
        triggered; with ``candidates_sight`` (position indices), also for those positions.
        Pairs not proven visible go to ``unknown`` unless ``exact_sight``, which decides them
        with :meth:`sight_exact`.
        """
        rel = Relation()
        idx, d = self.distances(fps)
        # "not more than X" (measure.is_within_distance); an overlap is 0" or less apart
        rel.kill9 = set(idx[d <= self.far_in + TOLERANCE_IN].tolist())
        rel.near12 = set(idx[d <= self.near_in + TOLERANCE_IN].tolist()) - rel.kill9
        sight_idx = sorted(set(candidates_sight.tolist()) - rel.kill9) if candidates_sight is not None \
            else sorted(rel.near12)
        if sight_idx:
            vis = self.quick_visible(fps, np.array(sight_idx, dtype=int))
            for k, v in zip(sight_idx, vis, strict=True):
                if v:
                    rel.sees.add(k)
                elif exact_sight:
                    if self.sight_exact(unit, fps, k):
                        rel.sees.add(k)
                else:
                    rel.unknown.add(k)
        return rel

    def _stand_code(self, key: frozenset[str]) -> int:
        codes = self._codes
        if key not in codes:
            codes[key] = len(codes)
            self._keys.append(key)
        return codes[key]

    def _reps(self) -> tuple[np.ndarray, np.ndarray]:
        """Per position: the centre of its base nearest the anchor, and the code of the area
        terrain that base stands in."""
        if not hasattr(self, "_rep_xy"):
            self._codes: dict[frozenset[str], int] = {}
            self._keys: list[frozenset[str]] = []
            xy = np.zeros((len(self.all_positions), 2))
            code = np.zeros(len(self.all_positions), dtype=int)
            for p in self.all_positions:
                j = int(np.argmin(np.hypot(p.xy[:, 0] - p.anchor[0], p.xy[:, 1] - p.anchor[1])))
                xy[p.index] = p.xy[j]
                code[p.index] = self._stand_code(self.table.target_standing_in(p.footprints[j]))
            self._rep_xy, self._rep_code = xy, code
        return self._rep_xy, self._rep_code

    def quick_visible(self, fps: tuple[Footprint, ...], idx: np.ndarray) -> np.ndarray:
        """For each position in ``idx``: is the centre line from my base nearest the middle of
        ``fps`` to the position's base nearest its anchor clear of blocking terrain? True is a
        proof of line of sight (as the checker's quick test); False means not proven.

        Terrain a base stands in does not block its own lines (as in the checker). Vectorised:
        one segment per position.
        """
        t = self.table
        if not t.blocking_features:
            return np.ones(len(idx), dtype=bool)
        rep_xy, rep_code = self._reps()
        mx = np.array([[f.cx, f.cy] for f in fps])
        i0 = int(np.argmin(np.hypot(mx[:, 0] - mx[:, 0].mean(), mx[:, 1] - mx[:, 1].mean())))
        mine_key = t.standing_in(fps[i0])
        # units with the same base at the same point share the answer
        ckey = (float(mx[i0, 0]), float(mx[i0, 1]), mine_key, idx.tobytes())
        cache = self.__dict__.setdefault("_quick_cache", {})
        if ckey in cache:
            return cache[ckey]
        out = np.zeros(len(idx), dtype=bool)
        codes = rep_code[idx]
        for c in np.unique(codes):
            sel = np.nonzero(codes == c)[0]
            tree = self._tree(mine_key | self._keys[int(c)])
            if tree is None:
                out[sel] = True
                continue
            ends = rep_xy[idx[sel]]
            starts = np.broadcast_to(mx[i0], ends.shape)
            segs = shapely.linestrings(np.stack([starts, ends], axis=1))
            hit = tree.query(segs, predicate="intersects")[0]
            clear = np.ones(len(sel), dtype=bool)
            clear[hit] = False
            out[sel] = clear
        cache[ckey] = out
        return out

    def _tree(self, skip: frozenset[str]):
        """STRtree of the (slightly shrunk) blocking footprints without ``skip``: a segment that
        meets none of them misses the checker's blocked union (Table._blocked_union)."""
        trees = self.__dict__.setdefault("_trees", {})
        if skip not in trees:
            polys = shrunk_union([o.polygon for f in self.table.blocking_features if f.id not in skip
                                  for o in self.table.pieces[f.id]])  # every piece and wall, any height
            trees[skip] = shapely.STRtree(polys) if polys else None
        return trees[skip]

    def sight_exact(self, unit: UnitInfo, fps: tuple[Footprint, ...], k: int, key: int | None = None) -> bool:
        """Can my unit with bases ``fps`` draw line of sight to position ``k``? Exact, as the checker
        (:meth:`Table.sight_from_any`). Cached under ``(key, k)`` when ``key`` is given."""
        if key is not None and (key, k) in self._sight_cache:
            return self._sight_cache[key, k]
        seen, _ = self.table.sight_from_any([Placed(unit, fps)], self.placed(self.all_positions[k]), exact=True)
        v = seen is not None
        if key is not None:
            self._sight_cache[key, k] = v
        return v

    # ------------------------------------------------------------------ legality against a deployment
    def legal_against(self, mine: list[Placed]) -> list[Position]:
        """Positions legal when ``mine`` (my units, placed) stand on the table too. Exact."""
        legal = []
        for p in self.positions:
            if self.legal_one(p, mine):
                legal.append(p)
        return legal

    def legal_one(self, p: Position, mine: list[Placed]) -> bool:
        t = self.table
        target = self.placed(p)
        if not mine:
            return True
        if first_breach(t, target, holders=mine) is not None:
            return False
        n = t.nearest_unit(target, mine)
        assert n is not None  # mine is not empty
        # overlap is at most 0" apart: not more than 9" either
        if not is_more_than_distance(max(n[0], 0.0), self.far_in) or n[0] < -TOLERANCE_IN:
            return False
        near12 = not is_more_than_distance(n[0], self.near_in) or p.index in self.fixed_near12
        if not near12:
            return True
        seen_by, _ = t.sight_from_any(mine + self.observers, target, exact=True)
        return seen_by is None

    def area(self, positions: list[Position]) -> float:
        """Square inches: (anchors with some legal formation) x cell area."""
        return len({p.anchor for p in positions}) * self.cell_area


def distance_region_area(world: World, mine: list[Placed], base_radius_in: float) -> float:
    """Exact area (square inches, shapely) of where the centre of one round base of radius
    ``base_radius_in`` may stand: wholly on the battlefield and more than 9" from every base in
    ``mine``. Terrain and line of sight are ignored: an upper bound on the Infiltrate region."""
    bf = world.scenario.battlefield
    r = base_radius_in
    far_in, _ = infiltrate_distances(world)
    inner: shapely.geometry.base.BaseGeometry = shapely.box(r, r, bf.width - r, bf.depth - r)
    discs = [f.polygon(256, circumscribed=True).buffer(far_in + r, 64) for p in mine for f in p.footprints]
    if discs:
        inner = inner.difference(unary_union(discs))
    return float(inner.area)


def fixed_units(table: Table, exclude: set[str]) -> list[Placed]:
    """Every unit on the table, where it finally stands, except those in ``exclude``."""
    return [table.final(u) for u in table.on_table if u.id not in exclude and u.method is not SetupMethod.RESERVES]
