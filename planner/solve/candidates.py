"""Candidate placements for units to be placed: formations on a grid, each judged exactly.

A candidate is a whole unit (with any Independent Characters that join it) in one formation at
one anchor point of the grid. The *candidate grid* of a unit is every (anchor, formation) pair
with the anchor on a ``grid_in`` lattice point of its region; its legal candidates are streamed in
nondecreasing cost (the weighted goal terms of :mod:`planner.solve.goals`), which is what lets the
planner bound every candidate it has not taken yet. Formations keep every model within coherency of its neighbours, so coherency
holds by construction; everything that depends only on the unit and the fixed units (on the
battlefield, wholly within the zone, impassable terrain, Infiltrate distance and line of sight to
enemy units, overlap with fixed models) is decided for each candidate with the same float-exact
predicates as the checker. The discretisation is therefore conservative: a candidate the CP-SAT
model can pick is legal in exact geometry; only interactions *between* placed units (overlap)
are left to the CP-SAT model, as pairwise conflicts that are also computed exactly.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Collection
from dataclasses import dataclass, field, replace
from functools import cached_property

import numpy as np

from planner.geometry.measure import (
    is_more_than_distance,
    is_overlap_distance,
    is_wholly_within_clearance,
    overlaps,
)
from planner.geometry.shapes import Footprint, footprint
from planner.legality.checks.coherency import linked_groups
from planner.legality.checks.placement import first_overlap
from planner.legality.table import Placed, Table
from planner.schema import SetupMethod
from planner.solve import stop
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
    facings: tuple[float, ...] | None = None
    """Each model's own facing (a shape kept as the models stand), else ``facing`` for all."""
    at: tuple[float, float] | None = None
    """Only placed at this grid point (a shape with one model moved), else at every anchor."""
    still: frozenset[str] = frozenset()
    """The units of the group whose models all stand where they stand, placed at ``at``."""

    def facing_of(self, i: int) -> float:
        """The facing of model ``i``, degrees."""
        return self.facing if self.facings is None else self.facings[i]


@dataclass
class RunCache:
    """What one planning run (one :class:`CandidateBuilder`) remembers across candidates: the
    overlap verdict of each (shape, shape, offset) and a small integer per candidate shape. Scoped
    to the run, so that nothing grows across runs in one process (a server, the generator)."""

    overlaps: dict[tuple, bool] = field(default_factory=dict)
    shape_ids: dict[tuple, int] = field(default_factory=dict)

    MAX_OVERLAPS = 2_000_000
    """Verdicts kept at most (then the cache starts again)."""


@dataclass(frozen=True)
class Candidate:
    """One legal placement of a placement group: footprints per unit id, and its cost."""

    index: int
    anchor: tuple[float, float]
    formation: str
    positions: dict[str, list[tuple[float, float, float]]]  # unit id -> [(x, y, facing)]
    footprints: tuple[Footprint, ...]
    cost: float  # weighted sum of the goal terms (objective units)
    nearest_enemy_in: float | None
    icost: int = 0  # cost in integer objective units (round(cost * COST_SCALE))
    values: tuple[float, ...] = ()  # each goal term's value, in the order of the builder's terms
    cache: RunCache = field(default_factory=RunCache, compare=False, repr=False)  # the run's (shared)

    @cached_property
    def reach(self) -> float:
        """Radius of a disc about the anchor that holds every base, inches."""
        return max(math.hypot(f.cx - self.anchor[0], f.cy - self.anchor[1]) + f.outer_radius for f in self.footprints)

    @cached_property
    def _arrays(self) -> tuple[np.ndarray, np.ndarray, bool]:
        xy = np.array([[f.cx, f.cy] for f in self.footprints])
        r = np.array([f.outer_radius for f in self.footprints])
        return xy, r, all(f.kind == "circle" for f in self.footprints)

    @cached_property
    def shape(self) -> tuple:
        """The footprints relative to the anchor: two candidates with the same shape are the
        same placement translated (overlap depends only on the shapes and the offset)."""
        ax, ay = self.anchor
        return tuple((f.kind, round(f.a, 9), round(f.b, 9), round(f.angle, 9), round(f.cx - ax, 9),
                      round(f.cy - ay, 9)) for f in self.footprints)

    @cached_property
    def shape_id(self) -> int:
        """A small integer naming :attr:`shape` (interned for the run)."""
        ids = self.cache.shape_ids
        return ids.setdefault(self.shape, len(ids))

    def overlaps(self, other: Candidate) -> bool:
        """Would some base of this placement overlap some base of ``other``? Exact (as the checker).

        Verdicts are cached by (shape, shape, offset between anchors): a translated pair is the
        same pair.
        """
        if math.hypot(self.anchor[0] - other.anchor[0], self.anchor[1] - other.anchor[1]) > self.reach + other.reach:
            return False
        key = (self.shape, other.shape, round(other.anchor[0] - self.anchor[0], 6),
               round(other.anchor[1] - self.anchor[1], 6))
        cache = self.cache.overlaps
        hit = cache.get(key)
        if hit is None:
            if len(cache) > RunCache.MAX_OVERLAPS:
                cache.clear()
            hit = cache[key] = self._overlaps(other)
        return hit

    def _overlaps(self, other: Candidate) -> bool:
        xa, ra, round_a = self._arrays
        xb, rb, round_b = other._arrays
        gap = np.hypot(xa[:, None, 0] - xb[None, :, 0], xa[:, None, 1] - xb[None, :, 1]) - ra[:, None] - rb[None, :]
        if round_a and round_b:
            # round bases: the bound is the exact distance
            return bool(is_overlap_distance(gap).any())
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


def host_centred(models: list[ModelInfo], offsets: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """The slots ``offsets`` (inches, about the formation's centre) given out again for a unit
    with characters joined to it (``models``: the host's first, as :attr:`Group.models`): the
    host's models take the slots nearest the centre (in model order), then each character's model
    the free slot nearest a host slot (centre to centre; ties: nearer the centre, then the lower
    slot), so that each character stands beside a model of the host itself, not at the end of a
    chain through another character (the ruling of ``hh2.ic.coherency``)."""
    host = models[0].unit_id
    order = sorted(range(len(offsets)), key=lambda k: (math.hypot(*offsets[k]), k))
    n_host = sum(1 for m in models if m.unit_id == host)
    host_slots, free = order[:n_host], order[n_host:]
    free.sort(key=lambda k: (min(math.hypot(offsets[k][0] - offsets[h][0], offsets[k][1] - offsets[h][1])
                                 for h in host_slots), math.hypot(*offsets[k]), k))
    it_host, it_free = iter(host_slots), iter(free)
    return [offsets[next(it_host) if m.unit_id == host else next(it_free)] for m in models]


def formations(models: list[ModelInfo]) -> list[Formation]:
    """Compact formations for ``len(models)`` models: lines and blocks of 2-3 ranks, two facings.

    Models stand shoulder to shoulder across the facing (``FORMATION_GAP_IN`` apart) in ranks,
    in model order. A unit with characters joined to it (models of more than one unit, the
    host's first) also gets each of these shapes with its slots given out by
    :func:`host_centred` (named ``... host-centred``), where it differs.
    """
    n = len(models)
    joined = len({m.unit_id for m in models}) > 1
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
            if joined and (centred := host_centred(models, offs)) != offs:
                out.append(Formation(f"{ranks}x{per_rank}@{facing:g} host-centred", tuple(centred), facing))
    return out


REPAIR_RADIUS_IN = 4.0
"""How far (centre to centre, inches) a single model may move in the shapes of :func:`kept_shapes`."""

REPAIR_MAX_MODELS = 20
"""Units (with joined characters) of more models get no one-model-moved shapes (their number and
coherency tests grow with the square of the unit's size)."""

REPAIR_MAX_FAULTY = 3
"""The faulty models (those the checker names as failing a rule, :attr:`CandidateBuilder.faulty`)
that the shapes of :func:`kept_shapes` move together, each to a grid point within
``REPAIR_RADIUS_IN``, at most; a unit with more gets none of these shapes."""

REPAIR_MAX_COMBINATIONS = 2000
"""The shapes with faulty models moved together, at most: the cheapest (least total movement)
combinations of their grid points."""

PART_REACH_IN = 3.0
"""How far (edge to edge, inches) the moved part of a part-moved shape of :func:`kept_shapes` may
end from the models that stand: the widest coherency range of any ruleset (HH2 Skirmish 3").
Farther, no model of the part is within coherency of a standing model, so the unit cannot be
coherent: the bound leaves out no coherent shape."""


def moved_parts(models: list[ModelInfo], coherency_in: float) -> list[tuple[str, frozenset[int]]]:
    """The parts of a group that :func:`kept_shapes` moves alone, the rest standing: (name,
    indices into ``models``). Each unit of a group of two or more units (a joined Independent
    Character, or its host), and the models cut off as they stand: each group of models connected
    within ``coherency_in`` (edge to edge, inches) other than the largest, and all of them together.
    Duplicates and the whole group are left out."""
    out: list[tuple[str, frozenset[int]]] = []
    units = list(dict.fromkeys(m.unit_id for m in models))
    if len(units) > 1:
        out += [(f"{uid} alone", frozenset(i for i, m in enumerate(models) if m.unit_id == uid)) for uid in units]
    fps = [footprint(m.base, float(m.x or 0.0), float(m.y or 0.0), m.facing) for m in models]
    parts = linked_groups(fps, coherency_in)  # the checker's coherency groups, the largest first
    cut = parts[1:]
    together = [sorted(i for part in cut for i in part)] if len(cut) > 1 else []
    for c in cut + together:
        out.append(("cut-off " + ", ".join(f"{models[i].unit_id}/{models[i].id}" for i in c), frozenset(c)))
    seen: set[frozenset[int]] = set()
    uniq = []
    for name, part in out:
        if part and len(part) < len(models) and part not in seen:
            seen.add(part)
            uniq.append((name, part))
    return uniq


def kept_shapes(models: list[ModelInfo], grid_in: float, coherency_in: float = 2.0,
                faulty: Collection[int] = (), fits: Callable[[int, Footprint], bool] | None = None
                ) -> list[Formation]:
    """The shapes of a unit as its models stand (for the ``stay_close`` goal): the arrangement
    itself, anchored at the grid point ``P`` nearest its centroid (so that at ``P`` nothing moves,
    and at any other grid point it is translated by a whole number of grid steps), and, only at
    ``P``: the arrangement with one model moved to a grid point within ``REPAIR_RADIUS_IN`` of
    where it stands (the others unmoved; units of at most ``REPAIR_MAX_MODELS`` models); the
    arrangement with two or more of the ``faulty`` models (indices into ``models``, 2 to
    ``REPAIR_MAX_FAULTY`` of them) moved at once, each to a grid point within ``REPAIR_RADIUS_IN``
    of where it stands (:func:`faulty_moved`); and the arrangement with one part
    (:func:`moved_parts`: a joined character or its host alone, the models cut off as they stand)
    moved as it stands by whole grid steps, the rest unmoved, to every offset that ends it within
    ``PART_REACH_IN`` of the rest and clear of their bases. Each model keeps its facing. Empty if
    a model has no position. ``fits(i, footprint)``: may model ``i`` stand there (the planner's
    judge on the model alone, :class:`CandidateStream`); None: everywhere."""
    if not models or any(m.x is None or m.y is None for m in models):
        return []
    xs = [float(m.x) for m in models if m.x is not None]
    ys = [float(m.y) for m in models if m.y is not None]
    g = grid_in
    px, py = round(sum(xs) / len(xs) / g) * g, round(sum(ys) / len(ys) / g) * g
    facings = tuple(m.facing for m in models)
    units = frozenset(m.unit_id for m in models)
    base = tuple((x - px, y - py) for x, y in zip(xs, ys, strict=True))
    fps = [footprint(m.base, x, y, f) for m, x, y, f in zip(models, xs, ys, facings, strict=True)]
    # the models' own bases may overlap as they stand (rule "no two bases overlap", the checker's
    # predicate): the shape is kept only without, a one-model move only if it clears every overlap
    bad = [(i, j) for i in range(len(fps)) for j in range(i + 1, len(fps))
           if first_overlap([fps[i]], [("", fps[j])]) is not None]
    out = [] if bad else [Formation("as placed", base, facings[0], facings)]
    for i, (x, y) in enumerate(zip(xs, ys, strict=True) if len(models) <= REPAIR_MAX_MODELS else ()):
        if not all(i in pair for pair in bad):
            continue
        others = [("", f) for j, f in enumerate(fps) if j != i]
        for gx, gy in repair_points(x, y, g):
            if first_overlap([footprint(models[i].base, gx, gy, facings[i])], others) is not None:
                continue
            offs = list(base)
            offs[i] = (gx - px, gy - py)
            out.append(Formation(f"as placed, {models[i].id} to ({gx:g}, {gy:g})", tuple(offs), facings[0],
                                 facings, at=(px, py), still=units - {models[i].unit_id}))
    out += faulty_moved(models, fps, g, (px, py), faulty, fits, bad)
    if bad:
        return out
    xy = np.array(list(zip(xs, ys, strict=True)))
    ro = np.array([f.outer_radius for f in fps])
    for name, part in moved_parts(models, coherency_in):
        mv = sorted(part)
        st = [j for j in range(len(models)) if j not in part]
        # translations t with some moved bounding disc within PART_REACH_IN of a standing one
        lo = (xy[st][None, :, :] - xy[mv][:, None, :]) - (ro[mv][:, None] + ro[st][None, :] + PART_REACH_IN)[..., None]
        hi = (xy[st][None, :, :] - xy[mv][:, None, :]) + (ro[mv][:, None] + ro[st][None, :] + PART_REACH_IN)[..., None]
        i0, i1 = math.floor(lo[..., 0].min() / g), math.ceil(hi[..., 0].max() / g)
        j0, j1 = math.floor(lo[..., 1].min() / g), math.ceil(hi[..., 1].max() / g)
        ti, tj = np.meshgrid(np.arange(i0, i1 + 1), np.arange(j0, j1 + 1), indexing="ij")
        t = np.stack([ti.ravel(), tj.ravel()], axis=1) * g
        moved = xy[mv][None, :, :] + t[:, None, :]
        d = np.hypot(moved[:, :, None, 0] - xy[st][None, None, :, 0], moved[:, :, None, 1] - xy[st][None, None, :, 1])
        near = (d <= (ro[mv][:, None] + ro[st][None, :] + PART_REACH_IN)[None] + 1e-9).any(axis=(1, 2))
        still = frozenset(models[j].unit_id for j in st) - {models[i].unit_id for i in mv}
        standing = [("", fps[j]) for j in st]
        for k in np.nonzero(near)[0]:
            tx, ty = float(t[k, 0]), float(t[k, 1])
            if abs(tx) < 1e-9 and abs(ty) < 1e-9:
                continue
            if first_overlap([footprint(models[i].base, xs[i] + tx, ys[i] + ty, facings[i]) for i in mv],
                             standing) is not None:
                continue
            offs = list(base)
            for i in mv:
                offs[i] = (xs[i] + tx - px, ys[i] + ty - py)
            out.append(Formation(f"as placed, {name} moved ({tx:+g}, {ty:+g})", tuple(offs), facings[0], facings,
                                 at=(px, py), still=still))
    return out


def repair_points(x: float, y: float, grid_in: float) -> list[tuple[float, float]]:
    """The grid points a model standing at (``x``, ``y``) may move to in the repaired shapes of
    :func:`kept_shapes`: within ``REPAIR_RADIUS_IN`` (centre to centre, inches), not its own spot."""
    g = grid_in
    k = math.ceil(REPAIR_RADIUS_IN / g)
    i0, j0 = round(x / g), round(y / g)
    out = []
    for di in range(-k, k + 1):
        for dj in range(-k, k + 1):
            gx, gy = (i0 + di) * g, (j0 + dj) * g
            if math.hypot(gx - x, gy - y) > REPAIR_RADIUS_IN + 1e-9 or (abs(gx - x) < 1e-9 and abs(gy - y) < 1e-9):
                continue
            out.append((gx, gy))
    return out


def faulty_moved(models: list[ModelInfo], fps: list[Footprint], grid_in: float, at: tuple[float, float],
                 faulty: Collection[int], fits: Callable[[int, Footprint], bool] | None = None,
                 bad: Collection[tuple[int, int]] = ()) -> list[Formation]:
    """The shapes of :func:`kept_shapes` with faulty models moved together, placed at ``at``: each
    of the ``faulty`` models (indices into ``models``; 2 to ``REPAIR_MAX_FAULTY`` of them, in a
    unit of at most ``REPAIR_MAX_MODELS`` models, else none) stands where it stands or moves to a
    grid point of :func:`repair_points`, at least two of them move, the other models stand. A
    faulty model's places are those where ``fits`` passes it (None: all) and its base is clear of
    the standing models' bases; the faulty models' bases are clear of each other (the checker's
    overlap predicate). The ``REPAIR_MAX_COMBINATIONS`` cheapest combinations (least total
    movement, centre to centre, inches; ties in a fixed order) are kept. ``fps``: the models'
    footprints as they stand; ``bad``: the pairs of them that overlap there (a pair of standing
    models: no shape)."""
    mv = sorted(set(faulty))
    if not 2 <= len(mv) <= REPAIR_MAX_FAULTY or len(models) > REPAIR_MAX_MODELS:
        return []
    if any(i not in mv and j not in mv for i, j in bad):
        return []
    st = [("", f) for j, f in enumerate(fps) if j not in mv]
    places: list[list[tuple[float, float, float, Footprint]]] = []  # per faulty model: (move, x, y, base there)
    for i in mv:
        here = fps[i]
        opts = []
        for gx, gy in [(here.cx, here.cy)] + repair_points(here.cx, here.cy, grid_in):
            f = fps[i] if (gx, gy) == (here.cx, here.cy) else footprint(models[i].base, gx, gy, models[i].facing)
            if first_overlap([f], st) is None and (fits is None or fits(i, f)):
                opts.append((math.hypot(gx - here.cx, gy - here.cy), gx, gy, f))
        opts.sort(key=lambda o: (o[0], o[1], o[2]))
        if not opts:
            return []
        places.append(opts)
    units = frozenset(m.unit_id for m in models)
    px, py = at
    base = [(f.cx - px, f.cy - py) for f in fps]
    out: list[Formation] = []
    # best first over the product of the sorted places (each successor adds one step in one list)
    start = (0,) * len(mv)
    heap = [(sum(p[0][0] for p in places), start)]
    seen = {start}
    while heap and len(out) < REPAIR_MAX_COMBINATIONS:
        _, pick = heapq.heappop(heap)
        for k in range(len(mv)):
            if pick[k] + 1 < len(places[k]):
                nxt = pick[:k] + (pick[k] + 1,) + pick[k + 1:]
                if nxt not in seen:
                    seen.add(nxt)
                    heapq.heappush(heap, (sum(places[j][n][0] for j, n in enumerate(nxt)), nxt))
        chosen = [places[k][n] for k, n in enumerate(pick)]
        moving = [k for k, c in enumerate(chosen) if c[0] > 1e-9]
        if len(moving) < 2:
            continue  # none, or one model moved: a shape of one model moved
        if any(first_overlap([chosen[a][3]], [("", chosen[b][3])]) is not None
               for a in range(len(mv)) for b in range(a + 1, len(mv))):
            continue
        offs = list(base)
        for k, (_, gx, gy, _) in enumerate(chosen):
            offs[mv[k]] = (gx - px, gy - py)
        name = ", ".join(f"{models[mv[k]].id} to ({chosen[k][1]:g}, {chosen[k][2]:g})" for k in moving)
        out.append(Formation(f"as placed, {name}", tuple(offs), models[0].facing,
                             tuple(m.facing for m in models), at=at,
                             still=units - {models[mv[k]].unit_id for k in moving}))
    return out


COST_SCALE = 1000
"""Integer objective units per objective unit (per inch for the distance goals)."""

Reason = tuple[str, str | None]
"""Why a candidate is illegal: (rule id, detail), e.g. ("hh2.infiltrate.hidden", "rapier")."""


class CandidateStream:
    """The legal candidates of one group, lazily, in nondecreasing cost.

    ``bound()`` is a lower bound of the integer cost of every candidate not yielded yet (None
    when the grid is exhausted). ``rejected`` counts the reasons of the candidates judged
    illegal; ``rejected_at`` keeps those rejected for line of sight (for the infeasibility
    explanation, which re-judges them exactly).
    """

    def __init__(self, builder: CandidateBuilder, group: Group):
        self.b = builder
        self.group = group
        self.index = 0
        self.exhausted = False
        self.rejected: dict[Reason, int] = {}
        self.rejected_sight: list[tuple[int, int]] = []
        self.measured: dict[tuple[int, int], tuple[int, int, int, int]] = {}  # judged legal, measured, in the heap
        self._prepare()

    def _prepare(self) -> None:
        import heapq

        b, g = self.b, self.group
        models = g.models
        rs = b.table.world.ruleset
        judge = b.rules_judge
        kept = kept_shapes(models, b.grid, getattr(rs, "COHERENCY_IN", 2.0), *self._faulty()) if b.keep_shape else []
        standing = b.standing & {u.id for u in g.members}
        # units that must stand: only the shapes (at their one grid point) that leave them standing
        shapes = [f for f in kept if f.at is not None and standing <= f.still] if standing else formations(models) + kept
        self.forms = [f for f in shapes if judge.coherent(rs, models,
            [footprint(m.base, dx, dy, f.facing_of(i)) for i, (m, (dx, dy)) in enumerate(zip(models, f.offsets,
                                                                                           strict=True))])]
        anchors = b.anchors(g)
        for f in self.forms:  # a shape placed at one grid point only: that point is an anchor
            if f.at is not None and f.at not in anchors:
                anchors.append(f.at)
        self.anchors = np.array(anchors, dtype=float).reshape(-1, 2)
        where = {a: i for i, a in enumerate(anchors)}
        member_of = [u.id for u in g.members for _ in u.models]
        keys = [f"{m.unit_id}/{m.id}" for m in models]
        radii = np.array([footprint(m.base, 0.0, 0.0, 0.0).outer_radius for m in models])
        self.masks = [np.array(t.applies(member_of)) for t in b.terms]
        heap: list[tuple[int, int, int, int]] = []
        self.lowers: dict[tuple[int, int], np.ndarray] = {}  # exact values, where measured
        self._vals: dict[int, np.ndarray] = {}  # per formation: the lower values of every anchor
        if len(self.anchors):
            for fi, form in enumerate(self.forms):
                # a shape placed at one grid point only is measured and judged there only
                rows = np.arange(len(self.anchors)) if form.at is None else np.array([where[form.at]])
                xy = self.anchors[rows][:, None, :] + np.array(form.offsets)[None, :, :]
                vals = np.stack([t.lower(xy, mk, radii, keys) for t, mk in zip(b.terms, self.masks, strict=True)],
                                axis=1) if b.terms else np.zeros((len(rows), 0))
                cost = vals @ np.array([t.weight for t in b.terms]) if b.terms else np.zeros(len(rows))
                icost = np.round(cost * COST_SCALE).astype(np.int64)
                exact = all(t.exact_is_lower for t in b.terms)
                dropped = self._prefilter(xy, radii)
                keep = [k for k, why in enumerate(dropped) if why is None]
                for why in dropped:
                    if why is not None:
                        self.rejected[why] = self.rejected.get(why, 0) + 1
                heap += zip(icost[keep].tolist(), rows[keep].tolist(), [fi] * len(keep),
                            [1 if exact else 0] * len(keep), strict=True)
                self._vals[fi] = vals
        heapq.heapify(heap)
        self.heap = heap

    def _faulty(self) -> tuple[frozenset[int], Callable[[int, Footprint], bool] | None]:
        """The group's faulty models (:attr:`CandidateBuilder.faulty`, indices into its models)
        and where each may stand in :func:`faulty_moved`: where the planner's judge passes the
        model alone (as a unit of that one model, its host's set-up), every rule the judge decides
        being one that each model must pass (on the battlefield, within the zone, clear of
        terrain and fixed bases, its distance to the enemy, hidden). A Scout redeploy (its
        distances measured model by model from where the unit stood) is not judged alone: None."""
        b, g = self.b, self.group
        models = g.models
        faulty = frozenset(i for i, m in enumerate(models) if f"{m.unit_id}/{m.id}" in b.faulty)
        if not faulty or g.host.method is SetupMethod.SCOUT:
            return faulty, None
        if b.rules_judge.static_reason(b, g) is not None:  # cached per group id: the whole group's first
            return frozenset(), None

        def fits(i: int, fp: Footprint) -> bool:
            alone = replace(g.host, models=[models[i]])
            return b.judge(Group(alone, [alone]), [fp])[0] is None

        return faulty, fits

    def _prefilter(self, xy: np.ndarray, radii: np.ndarray) -> list[Reason | None]:
        """For all-round bases, the judge's first two tests for every anchor of one formation at
        once, with the same comparisons (exact for circles): wholly on the battlefield, and an
        Infiltrator more than 9" (plus the margin) from every enemy unit. Returns the reason per
        anchor, or None where the full judge must decide."""
        b, g = self.b, self.group
        u = g.host
        static = b.rules_judge.static_reason(b, g)
        if static is not None:  # no position can be legal: every anchor is rejected for that rule
            return [static] * xy.shape[0]
        key = ((u.player, u.method, u.setup.zone, u.setup.order), xy.shape, float(xy[0, 0, 0]) if xy.size else 0.0,
               float(xy[0, 0, 1]) if xy.size else 0.0, tuple(np.round(xy[0] - xy[0, 0], 9).ravel()) if xy.size else (),
               tuple(radii))
        hit = b._prefilter_cache.get(key)
        if hit is None:
            hit = b._prefilter_cache[key] = self._prefilter_uncached(xy, radii)
        return hit

    def _prefilter_uncached(self, xy: np.ndarray, radii: np.ndarray) -> list[Reason | None]:
        b, g = self.b, self.group
        n = xy.shape[0]
        out: list[Reason | None] = [None] * n
        if n == 0 or not all(footprint(m.base, 0.0, 0.0, 0.0).kind == "circle" for m in g.models):
            return out
        bf = b.table.battlefield.bounds
        lo = np.minimum(xy[:, :, 0] - radii - bf[0], xy[:, :, 1] - radii - bf[1])
        hi = np.minimum(bf[2] - xy[:, :, 0] - radii, bf[3] - xy[:, :, 1] - radii)
        off = (~is_wholly_within_clearance(np.minimum(lo, hi))).any(axis=1)  # exact for round bases
        near = None
        # the rule ids, the Infiltrate distance and the enemies measured to, as the ruleset's judge has them
        bf_rule, dist_rule, limit, enemies = b.rules_judge.prefilter_rules(b, g.host)
        if g.host.method is SetupMethod.INFILTRATE:
            efs = [(k, f) for k, e in enumerate(enemies) for f in e.footprints]
            if efs and all(f.kind == "circle" for _, f in efs):
                exy = np.array([[f.cx, f.cy] for _, f in efs])
                er = np.array([f.a for _, f in efs])
                d = (np.hypot(xy[:, :, None, 0] - exy[None, None, :, 0], xy[:, :, None, 1] - exy[None, None, :, 1])
                     - radii[None, :, None] - er[None, None, :])
                flat = d.reshape(n, -1)
                arg = flat.argmin(axis=1)
                near = (flat[np.arange(n), arg], [enemies[efs[a % len(efs)][0]].unit.id for a in arg])
        limit += b.margin
        for ai in range(n):
            if off[ai]:
                out[ai] = (bf_rule, None)
            elif near is not None and not is_more_than_distance(float(near[0][ai]), limit):
                out[ai] = (dist_rule, near[1][ai])
        return out

    def next_clear(self, taken_xy: np.ndarray, taken_r: np.ndarray, until: float | None = None
                   ) -> Candidate | None:
        """The next legal candidate, skipping (without judging them) the placements whose bounding
        discs meet those of the bases ``taken_xy`` (centres, inches; outer radii ``taken_r``);
        the skipped ones stay in the stream (so :meth:`bound` stays a true bound) but the
        candidates may then come out of cost order. None when the stream is exhausted. After
        ``until`` (time.monotonic), the cheapest placement already judged legal and measured
        (clear of those bases) is taken out of order, if there is one: a goal measured exactly
        (hidden) may otherwise measure most of the grid before its cheapest candidate is known."""
        import heapq

        aside = []
        try:
            while self.heap:
                if until is not None and stop.clock() > until:
                    c = self.take_measured(taken_xy, taken_r)
                    if c is not None:
                        return c
                    until = None
                if stop.clock() > self.b.deadline:
                    raise CandidateTimeout(self.group.id)
                key, ai, fi, exact = self.heap[0]
                if len(taken_xy):
                    fps = self.positions(ai, fi)
                    cxy = np.array([[f.cx, f.cy] for f in fps])
                    cr = np.array([f.outer_radius for f in fps])
                    d = np.hypot(cxy[:, None, 0] - taken_xy[None, :, 0], cxy[:, None, 1] - taken_xy[None, :, 1])
                    if (d < cr[:, None] + taken_r[None, :] + 1e-3).any():
                        aside.append(heapq.heappop(self.heap))
                        continue
                c = self._step()
                if c is not None:
                    return c
            self.exhausted = not aside
            return None
        finally:
            for item in aside:
                heapq.heappush(self.heap, item)
            if aside:
                self.exhausted = False

    def bound(self) -> int | None:
        """Lower bound of the integer cost of every candidate not yielded yet (None: none left)."""
        return self.heap[0][0] if self.heap else None

    def positions(self, ai: int, fi: int) -> list[Footprint]:
        ax, ay = self.anchors[ai]
        form = self.forms[fi]
        return [footprint(m.base, float(ax + dx), float(ay + dy), form.facing_of(i))
                for i, (m, (dx, dy)) in enumerate(zip(self.group.models, form.offsets, strict=True))]

    def __iter__(self) -> CandidateStream:
        return self

    def __next__(self) -> Candidate:

        while self.heap:
            if stop.clock() > self.b.deadline:
                raise CandidateTimeout(self.group.id)
            c = self._step()
            if c is not None:
                return c
        self.exhausted = True
        raise StopIteration

    def _step(self) -> Candidate | None:
        """Process the cheapest item: measure it (put back with its exact cost), or judge it
        (the candidate if legal, None if not)."""
        import heapq

        b, g = self.b, self.group
        key, ai, fi, exact = self.heap[0]
        fps = self.positions(ai, fi)
        if not exact:
            heapq.heappop(self.heap)
            vals = self._exact_values(ai, fi, fps)
            if vals is None:
                return None  # illegal: no need to measure it
            cost = float(np.dot(vals, [t.weight for t in b.terms]))
            self.lowers[ai, fi] = np.array(vals)
            item = (max(key, round(cost * COST_SCALE)), ai, fi, 1)
            heapq.heappush(self.heap, item)
            self.measured[ai, fi] = item
            return None
        heapq.heappop(self.heap)
        self.measured.pop((ai, fi), None)
        reason, near = b.judge(g, fps)
        if reason is not None:
            self.rejected[reason] = self.rejected.get(reason, 0) + 1
            if reason[0] == b.sight_rule:
                self.rejected_sight.append((ai, fi))
            return None
        return self._make(ai, fi, key, fps, near)

    def take_measured(self, taken_xy: np.ndarray, taken_r: np.ndarray) -> Candidate | None:
        """The cheapest placement measured (so judged legal) but not yielded yet whose bounding
        discs are clear of the bases ``taken_xy`` / ``taken_r``, taken out of the heap (the bound of
        what is left stays true), or None."""
        import heapq

        for item in sorted(self.measured.values()):
            key, ai, fi, _ = item
            fps = self.positions(ai, fi)
            if len(taken_xy):
                cxy = np.array([[f.cx, f.cy] for f in fps])
                cr = np.array([f.outer_radius for f in fps])
                d = np.hypot(cxy[:, None, 0] - taken_xy[None, :, 0], cxy[:, None, 1] - taken_xy[None, :, 1])
                if (d < cr[:, None] + taken_r[None, :] + 1e-3).any():
                    continue
            if item not in self.heap:  # set aside by the caller's loop
                continue
            self.heap.remove(item)
            heapq.heapify(self.heap)
            del self.measured[ai, fi]
            reason, near = self.b.judge(self.group, fps)
            if reason is not None:  # cannot happen: measured means judged legal
                continue
            return self._make(ai, fi, key, fps, near)
        return None

    def _make(self, ai: int, fi: int, key: int, fps: list[Footprint], near: float | None) -> Candidate:
        """The candidate of a placement judged legal, at integer cost ``key``."""
        b, g = self.b, self.group
        vals = self._lower(ai, fi)
        self.lowers.pop((ai, fi), None)
        cost = float(np.dot(vals, [t.weight for t in b.terms])) if b.terms else 0.0
        positions: dict[str, list[tuple[float, float, float]]] = {}
        k = 0
        form = self.forms[fi]
        for u in g.members:
            positions[u.id] = [(fps[k + i].cx, fps[k + i].cy, form.facing_of(k + i)) for i in range(len(u.models))]
            k += len(u.models)
        c = Candidate(self.index, (float(self.anchors[ai][0]), float(self.anchors[ai][1])), form.name, positions,
                      tuple(fps), cost, near, key, tuple(float(v) for v in vals), b.cache)
        self.index += 1
        return c

    def _lower(self, ai: int, fi: int) -> np.ndarray:
        """The goal values known for this item: exact if measured, else the lower values."""
        hit = self.lowers.get((ai, fi))
        return self._vals[fi][ai if self.forms[fi].at is None else 0] if hit is None else hit

    def _exact_values(self, ai: int, fi: int, fps: list[Footprint]) -> list[float] | None:
        """Exact goal values, measured only for a legal placement (None if it is illegal; the
        reason is then counted as for any rejected candidate)."""
        b, g = self.b, self.group
        reason, _ = b.judge(g, fps)
        if reason is not None:
            self.rejected[reason] = self.rejected.get(reason, 0) + 1
            if reason[0] == b.sight_rule:
                self.rejected_sight.append((ai, fi))
            return None
        placed = Placed(g.host, tuple(fps), tuple(f"{m.unit_id}/{m.id}" for m in g.models))
        low = self._lower(ai, fi)
        return [t.exact(placed, fps, list(mk), float(lv)) for t, mk, lv in zip(b.terms, self.masks, low, strict=True)]


class CandidateBuilder:
    """Generates and judges candidates for groups against the fixed units of a scenario.

    ``terms`` are the compiled goals (:func:`planner.solve.goals.compile_goals`); judgements
    are cached per (unit shape and set-up, anchor, formation), so that units of the same models
    share them.
    """

    def __init__(self, table: Table, fixed: list[Placed], grid_in: float, terms: list,
                 margin_in: float = 0.0):
        self.table = table
        self.cache = RunCache()
        self.margin = margin_in
        self.fixed = fixed
        self.grid = grid_in
        self.terms = terms
        self.keep_shape = any(t.kind == "stay_close" for t in terms)
        """Also the shapes of each unit as its models stand (:func:`kept_shapes`): a stay_close goal."""
        self.waived: frozenset[str] = frozenset()
        """Units whose position-independent failures (eligibility, joining) do not reject their
        group's placements (``check --suggest`` moves a unit joined by an IC that may not join it)."""
        self.faulty: frozenset[str] = frozenset()
        """The models (``unit/model``) the checker names as failing a rule: with a stay_close goal,
        their group also gets the shapes of :func:`kept_shapes` that move several of them at once
        (:func:`faulty_moved`; ``check --suggest``)."""
        self.standing: frozenset[str] = frozenset()
        """Units whose models stand where they stand: their groups get only the shapes of
        :func:`kept_shapes` that leave them there (``check --suggest`` moving a joined character alone)."""
        self.judged = 0
        self.deadline = math.inf
        self._judge_cache: dict = {}
        self._prefilter_cache: dict = {}
        self._observers: dict = {}

    def stream(self, group: Group) -> CandidateStream:
        """The group's legal candidates in nondecreasing cost (see :class:`CandidateStream`)."""
        return CandidateStream(self, group)

    def region(self, group: Group):
        """Polygon the group's anchors lie in: its zone (normal deployment) or the battlefield."""
        u = group.host
        if u.method is SetupMethod.DEPLOYMENT_ZONE:
            zid = u.setup.zone or (z.id if (z := self.table.world.zone_of(u.player)) else None)
            if zid is None:
                return None
            return self.table.zone_polys[zid]
        return self.table.battlefield

    def anchors(self, group: Group) -> list[tuple[float, float]]:
        """Grid points of the group's region (its bounding box), in a fixed order. A Scout
        redeploy only looks at points that can be within its distance of where it stood."""
        poly = self.region(group)
        if poly is None:
            return []
        x0, y0, x1, y1 = poly.bounds
        g = self.grid
        pts = []
        i0, i1 = math.ceil(x0 / g - 1e-9), math.floor(x1 / g + 1e-9)
        j0, j1 = math.ceil(y0 / g - 1e-9), math.floor(y1 / g + 1e-9)
        for i in range(i0, i1 + 1):
            for j in range(j0, j1 + 1):
                pts.append((i * g, j * g))
        u = group.host
        if u.method is SetupMethod.SCOUT:
            first = self.table.first(u).footprints
            cx = sum(f.cx for f in first) / len(first)
            cy = sum(f.cy for f in first) / len(first)
            spread = max(math.hypot(f.cx - cx, f.cy - cy) for f in first)
            limit = self.rules_judge.scout_limit(self, group)
            reach = limit + 2 * spread + 2 * max(f.outer_radius for f in first) + 6.0 * len(first)
            pts = [p for p in pts if math.hypot(p[0] - cx, p[1] - cy) <= reach]
        return pts

    def _enemies(self, u) -> list[Placed]:
        key = (u.player, u.setup.order, u.method)
        if key not in self._observers:
            t = self.table
            if u.method is SetupMethod.SCOUT:
                self._observers[key] = t.enemy_presence(u.player, "final")
            else:
                from planner.legality.hh2 import deployed_before  # the checker's case-3 order, one place

                self._observers[key] = [e for e in t.enemy_presence(u.player, "first") if deployed_before(e.unit, u)]
        return self._observers[key]

    @cached_property
    def _fixed_arrays(self):
        fps = [(p.unit.id, f) for p in self.fixed for f in p.footprints]
        xy = np.array([[f.cx, f.cy] for _, f in fps]).reshape(-1, 2)
        r = np.array([f.outer_radius for _, f in fps])
        return fps, xy, r

    def _fixed_overlap(self, fps: list[Footprint]) -> str | None:
        """The id of a fixed unit some base of ``fps`` overlaps (exact, as the checker), or None.
        Bounding discs first, vectorised; exact tests only where they meet."""
        fixed, xy, r = self._fixed_arrays
        return first_overlap(fps, fixed, (xy, r))

    def _nearest(self, placed: Placed, others: list[Placed]):
        """As :meth:`Table.nearest_unit`; all-round bases are measured in one numpy pass (for
        circles, centre distance less the radii is the exact distance)."""
        if not others:
            return None
        key = id(others)
        arr = self._enemy_arrays.get(key)
        if arr is None or arr[0] is not others:
            allc = all(f.kind == "circle" for o in others for f in o.footprints)
            owner = np.array([k for k, o in enumerate(others) for _ in o.footprints])
            idx = np.array([j for o in others for j in range(len(o.footprints))])
            xy = np.array([[f.cx, f.cy] for o in others for f in o.footprints])
            r = np.array([f.outer_radius for o in others for f in o.footprints])
            arr = self._enemy_arrays[key] = (others, allc, owner, idx, xy, r)
        _, allc, owner, idx, xy, r = arr
        if not (allc and all(f.kind == "circle" for f in placed.footprints)):
            return self.table.nearest_unit(placed, others)
        cx = np.array([[f.cx, f.cy] for f in placed.footprints])
        cr = np.array([f.a for f in placed.footprints])
        d = np.hypot(cx[:, None, 0] - xy[None, :, 0], cx[:, None, 1] - xy[None, :, 1]) - cr[:, None] - r[None, :]
        i, j = np.unravel_index(int(np.argmin(d)), d.shape)
        return float(d[i, j]), int(i), others[owner[j]], int(idx[j])

    @cached_property
    def _enemy_arrays(self) -> dict:
        return {}

    def judge(self, group: Group, fps: list[Footprint], *, exact_sight: bool = False
              ) -> tuple[Reason | None, float | None]:
        """Is this placement legal for everything that does not involve other placed units?

        Returns (None, nearest enemy distance) if legal, else (the first rule it breaks, in the
        order battlefield, zone, impassable, Scout distance, distance to the enemy, overlap with
        fixed models, line of sight; nearest enemy distance or None). Rules are judged with the
        checker's float-exact predicates; line of sight by the sound fast test (a placement it
        cannot prove hidden counts as seen) unless ``exact_sight``.
        """
        u = group.host
        # the verdict depends on the set-up, not on which unit: units of the same models share it
        setup = (u.player, u.method, u.setup.zone, u.setup.order, u.id if u.method is SetupMethod.SCOUT else None)
        key = (setup, tuple((f.kind, f.cx, f.cy, f.a, f.b, f.angle) for f in fps), exact_sight)
        hit = self._judge_cache.get(key)
        if hit is None:
            hit = self._judge_cache[key] = self._judge(group, fps, exact_sight)
        return hit

    def _judge(self, group: Group, fps: list[Footprint], exact_sight: bool) -> tuple[Reason | None, float | None]:
        self.judged += 1
        return self.rules_judge.judge(self, group, fps, exact_sight)

    @cached_property
    def rules_judge(self):
        """The ruleset's candidate judge (:meth:`planner.rules.base.Ruleset.planner_judge`)."""
        return self.table.world.ruleset.planner_judge()

    @cached_property
    def sight_rule(self) -> str | None:
        """The rule id under which the judge rejects a placement by the fast line-of-sight test
        (re-judged exactly when an infeasibility is explained), or None."""
        return self.rules_judge.sight_rule(self.table.world.ruleset)
