"""Random base scenes: battlefield, deployment map, terrain and two deployed armies.

Everything is drawn from :class:`planner.generate.distributions.GeneratorParams` with one
``numpy.random.Generator`` per item, and returned as plain scenario data (the dict a scenario
file holds), so that what is labelled is exactly what is written. Coordinates are rounded to
``DECIMALS`` places before anything is labelled.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from functools import cached_property, lru_cache

import numpy as np
import shapely
from shapely.geometry import Polygon, box

from planner.errors import ScenarioError
from planner.generate.distributions import GeneratorParams
from planner.geometry.shapes import battlefield_box, footprint, signed_distance
from planner.io.catalogue import load_catalogue
from planner.rules.registry import DEFAULT_RULESET, find_ruleset
from planner.schema import CatalogueEntry, HullBase, OvalBase, RoundBase, UnitType, polygons_ahead
from planner.units import mm_to_in

DECIMALS = 4
"""Model positions and terrain points are rounded to this many decimal places of an inch."""
_SCALE = 10.0 ** DECIMALS
FORMATION_GAP_IN = 0.5
"""Gap between neighbouring bases of a generated block formation (inside every coherency range)."""
PLAYERS = ("red", "blue")


def r4(v: float) -> float:
    return round(float(v), DECIMALS)


def uniform(rng: np.random.Generator, low: float, high: float) -> float:
    """``rng.uniform(low, high)`` for two floats, the same draw and the same float (numpy computes
    ``low + (high - low) * next_double``), without numpy's per-call argument handling (about 5x
    faster).

    Raises
    ------
    OverflowError
        ``high - low`` is not finite (as numpy).
    ValueError
        ``high - low`` is negative (as numpy).
    """
    span = high - low
    if not math.isfinite(span):
        raise OverflowError(f"uniform: high - low is not finite ({low!r}, {high!r})")
    if span < 0.0:
        raise ValueError(f"uniform: high - low < 0 ({low!r}, {high!r})")
    return float(low + span * rng.random())


def base_half_extents(base) -> tuple[float, float]:
    """(half size along the facing, half size across), inches."""
    if isinstance(base, RoundBase):
        r = mm_to_in(base.diameter_mm) / 2
        return r, r
    if isinstance(base, OvalBase):
        return mm_to_in(base.length_mm) / 2, mm_to_in(base.width_mm) / 2
    assert isinstance(base, HullBase)
    return base.length_in / 2, base.width_in / 2


@dataclass
class GenUnit:
    """A generated unit: its record data and the catalogue entry its models are."""

    data: dict
    entry: CatalogueEntry
    player: str
    bases: list | None = None
    """Each model's base, when they differ (units from rosters); else every model has ``entry.base``."""
    _fps: list | None = None
    _bounds: tuple | None = None

    @property
    def id(self) -> str:
        return self.data["id"]

    def centres(self) -> list[tuple[float, float]]:
        return [(m["x"], m["y"]) for m in self.data["models"] if "x" in m]

    def footprints(self):
        """The models' footprints (cached: call :meth:`moved` after changing positions)."""
        if self._fps is None:
            bases = self.bases or [self.entry.base] * len(self.data["models"])
            self._fps = [footprint(b, m["x"], m["y"], m.get("facing", 0.0))
                         for b, m in zip(bases, self.data["models"], strict=True)]
        return self._fps

    def block_bounds(self) -> tuple[float, float, float, float] | None:
        """:func:`footprint_bounds` of the unit's positioned models (None: none is), kept until
        :meth:`moved`."""
        if self._bounds is None:
            c = self.centres()
            self._bounds = (footprint_bounds(self.entry, c) if c else None,)
        return self._bounds[0]

    def positioned(self) -> bool:
        """Whether any model has a position (``bool(self.centres())``)."""
        return any("x" in m for m in self.data["models"])

    def moved(self) -> None:
        self._fps = None
        self._bounds = None


@dataclass
class Scene:
    """A base scene being built: the scenario data plus the geometry the generators need."""

    ruleset: str
    width: float
    depth: float
    deployment_map: str
    zones: dict[str, Polygon]
    zone_ids: dict[str, str]
    terrain: list[dict] = field(default_factory=list)
    terrain_polys: list[Polygon] = field(default_factory=list)
    units: list[GenUnit] = field(default_factory=list)
    use_profiles: bool = True
    _no_go: tuple | None = None
    _no_go_boxes: tuple | None = None
    rulings: dict[str, str] = field(default_factory=dict)
    """The rulings every scenario of the run states (``GeneratorParams.rulings``)."""
    _region_bounds: dict = field(default_factory=dict)
    _others: dict = field(default_factory=dict)

    @cached_property
    def table(self) -> Polygon:
        return battlefield_box(self.width, self.depth)

    def no_go(self) -> list[Polygon]:
        """Footprints no model may stand in: impassable or solid features (and buildings)."""
        if self._no_go is None or self._no_go[0] != len(self.terrain):
            self._no_go = (len(self.terrain), [p for t, p in zip(self.terrain, self.terrain_polys, strict=True)
                                               if t["kind"] == "solid" or "impassable" in t["traits"]])
        return self._no_go[1]

    def no_go_boxes(self) -> list[tuple[tuple[float, float, float, float], Polygon]]:
        """(bounds, polygon) of each of :meth:`no_go`, kept while the terrain is unchanged."""
        polys = self.no_go()
        if self._no_go_boxes is None or self._no_go_boxes[0] is not polys:
            self._no_go_boxes = (polys, [(q.bounds, q) for q in polys])
        return self._no_go_boxes[1]

    def zone_bounds(self, region: Polygon) -> tuple[float, float, float, float]:
        """``region.bounds`` (kept per polygon of the scene: the zones are asked for again and again)."""
        hit = self._region_bounds.get(id(region))
        if hit is None or hit[0] is not region:
            hit = self._region_bounds[id(region)] = (region, region.bounds)
        return hit[1]

    def blocking(self) -> list[tuple[dict, Polygon]]:
        return [(t, p) for t, p in zip(self.terrain, self.terrain_polys, strict=True)
                if "blocks_line_of_sight" in t["traits"] or "building" in t]

    def footprints_except(self, skip: str | None = None) -> list:
        """The footprints of every positioned model of the units other than ``skip``, unit by unit:
        one list kept while those units and their footprint lists are the same objects (a
        builder measures many spots against it, and :func:`nearest_distance` keeps the arrays of
        the last few lists it saw)."""
        units = [u for u in self.units if u.id != skip and u.positioned()]
        lists = [u.footprints() for u in units]
        hit = self._others.get(skip)
        if hit is not None and len(hit[0]) == len(lists) and all(a is b for a, b in zip(hit[0], lists, strict=True)):
            return hit[1]
        flat = [f for fl in lists for f in fl]
        self._others[skip] = (lists, flat)
        return flat

    def units_of(self, player: str) -> list[GenUnit]:
        return [u for u in self.units if u.player == player]

    def data(self, name: str = "", description: str = "") -> dict:
        armies = [{"player": p, "units": [u.data for u in self.units_of(p)]} for p in PLAYERS]
        zones = [{"id": self.zone_ids[p], "player": p,
                  "polygon": [[r4(x), r4(y)] for x, y in list(self.zones[p].exterior.coords)[:-1]]}
                 for p in PLAYERS]
        data = {"ruleset": self.ruleset, "name": name, "description": description,
                "battlefield": {"width": self.width, "depth": self.depth}, "terrain": self.terrain,
                "deployment_zones": zones, "armies": armies}
        if self.rulings:
            data["rulings"] = dict(self.rulings)
        return data


# --------------------------------------------------------------------------- battlefield and zones


def zones_for(kind: str, w: float, d: float, p: GeneratorParams) -> dict[str, Polygon]:
    """The two players' deployment zones of a deployment map (red first): a new dict of shared
    polygons (shapely geometries are immutable; a run asks for the same few maps again and again)."""
    return dict(_zones(kind, float(w), float(d), p.zone_depth, p.short_edge_depth, p.quarter_gap))


@lru_cache(maxsize=64)
def _zones(kind: str, w: float, d: float, zone_depth: float, short_edge_depth: float,
           quarter_gap: float) -> dict[str, Polygon]:
    if kind == "long_edge":
        z = min(zone_depth, d / 3)
        return {"red": box(0, 0, w, z), "blue": box(0, d - z, w, d)}
    if kind == "short_edge":
        z = min(short_edge_depth, w / 3)
        return {"red": box(0, 0, z, d), "blue": box(w - z, 0, w, d)}
    g = quarter_gap
    return {"red": box(0, 0, w / 2 - g, d / 2 - g), "blue": box(w / 2 + g, d / 2 + g, w, d)}


def _r4(v: float) -> float:
    """``numpy.round(v, DECIMALS)`` for a float (the same IEEE steps: v * 10**4, round half to even,
    / 10**4), without building an array."""
    return round(v * _SCALE) / _SCALE


_AREA_SPAN = 1.4 - 0.6
"""``high - low`` of a feature's area factor U(0.6, 1.4) (as :func:`uniform` computes it)."""
_L_SPAN = 0.6 - 0.35
"""``high - low`` of the corner cut's U(0.35, 0.6) (as :func:`uniform` computes it)."""


def _feature_points(rng: np.random.Generator, area: float, w: float, d: float) -> list[tuple[float, float]]:
    # the draws of uniform(rng, lo, hi) written out where lo and hi are constants (the same
    # floats: lo + (hi - lo) * next_double); the others through uniform, for its errors
    rand = rng.random
    aspect = float(1.0 + 2.0 * rand())
    fw = math.sqrt(area * aspect)
    fh = area / fw
    cx, cy = uniform(rng, fw / 2 + 1, w - fw / 2 - 1), uniform(rng, fh / 2 + 1, d - fh / 2 - 1)
    if rand() < 0.3:  # an L: a rectangle less one corner
        cw, ch = fw * float(0.35 + _L_SPAN * rand()), fh * float(0.35 + _L_SPAN * rand())
        pts = [(-fw / 2, -fh / 2), (fw / 2, -fh / 2), (fw / 2, fh / 2 - ch), (fw / 2 - cw, fh / 2 - ch),
               (fw / 2 - cw, fh / 2), (-fw / 2, fh / 2)]
    else:
        pts = [(-fw / 2, -fh / 2), (fw / 2, -fh / 2), (fw / 2, fh / 2), (-fw / 2, fh / 2)]
    ang = float(0.0 + math.pi * rand()) if rand() < 0.5 else float(rng.integers(0, 2)) * math.pi / 2
    c, s = math.cos(ang), math.sin(ang)
    # _r4 written out: round(v * 10**4) / 10**4
    sc = _SCALE
    return [(round((cx + x * c - y * s) * sc) / sc, round((cy + x * s + y * c) * sc) / sc) for x, y in pts]


def add_terrain(scene: Scene, rng: np.random.Generator, p: GeneratorParams) -> None:
    """Draw the terrain features (see the module doc of distributions for the distribution)."""
    n = int(rng.integers(p.terrain_min, p.terrain_max + 1))
    if n == 0:
        return
    each = p.terrain_density * scene.width * scene.depth / n
    boxes: list[tuple[float, float, float, float]] = []
    width, depth, g = scene.width, scene.depth, p.terrain_gap
    rand = rng.random
    kept: list[list[tuple[float, float]]] = []
    for _ in range(n):
        for _attempt in range(25):
            # uniform(rng, 0.6, 1.4) written out (the same float)
            pts = _feature_points(rng, each * float(0.6 + _AREA_SPAN * rand()), width, depth)
            xs, ys = [q[0] for q in pts], [q[1] for q in pts]
            x0, y0, x1, y1 = min(xs), min(ys), max(xs), max(ys)
            if x0 <= 0 or y0 <= 0 or x1 >= width or y1 >= depth:
                continue
            if any(x0 - g < b[2] and b[0] < x1 + g and y0 - g < b[3] and b[1] < y1 + g for b in boxes):
                continue
            boxes.append((x0, y0, x1, y1))
            break
        else:
            continue
        tid = f"t{len(scene.terrain) + 1}"
        u = rng.random(3)
        if u[0] < p.share_buildings:
            feat: dict[str, object] = {"id": tid, "name": "building", "kind": "solid", "traits": ["blocks_line_of_sight"],
                    "building": {"capacity": 10}}
        elif u[1] < p.share_los_blocking:
            solid = u[2] < p.share_solid
            feat = {"id": tid, "name": "wall" if solid else "ruin", "kind": "solid" if solid else "area",
                    "traits": ["blocks_line_of_sight"] if solid else ["blocks_line_of_sight", "difficult"]}
        else:
            imp = u[2] < p.share_impassable
            feat = {"id": tid, "name": "lake" if imp else "crater", "kind": "open",
                    "traits": ["impassable"] if imp else ["difficult"]}
        feat["footprint"] = [[float(x), float(y)] for x, y in pts]
        scene.terrain.append(feat)
        kept.append(pts)
    # the polygons validation and the checker will ask for (polygon_of), made together
    scene.terrain_polys.extend(polygons_ahead(kept))


# --------------------------------------------------------------------------- armies


def catalogue_entries(ruleset: str, p: GeneratorParams) -> list[CatalogueEntry]:
    """Catalogue entries of the allowed unit types, in catalogue-id order (deterministic).

    Rulesets without a catalogue of their own (the 40k Deep Strike rulesets) borrow the hh2
    miniatures, written with explicit bases and types."""
    return _entries(ruleset, tuple(p.unit_types))


@lru_cache(maxsize=16)
def _entries(ruleset: str, unit_types: tuple[str, ...]) -> list[CatalogueEntry]:
    cat = load_catalogue(find_ruleset(DEFAULT_RULESET).catalogue)
    types = {UnitType(t) for t in unit_types}
    out = [e for e in cat.by_id.values() if e.type in types]
    return sorted(out, key=lambda e: e.id)


def block_offsets(entry: CatalogueEntry, n: int, ranks: int, facing: float = 90.0) -> list[tuple[float, float]]:
    """Centre offsets of ``n`` models in ``ranks`` ranks, ``FORMATION_GAP_IN`` apart, facing +y (90 deg)."""
    along, across = base_half_extents(entry.base)
    per = math.ceil(n / ranks)
    out = []
    for i in range(n):
        r, c = divmod(i, per)
        dx = (c - (per - 1) / 2) * (2 * across + FORMATION_GAP_IN)
        dy = (r - (ranks - 1) / 2) * (2 * along + FORMATION_GAP_IN)
        out.append((dx, dy) if facing == 90.0 else (dy, dx))
    return out


def unit_models(entry: CatalogueEntry, centres: list[tuple[float, float]], use_profile: bool,
                facing: float = 90.0) -> list[dict]:
    if use_profile:  # the same keys in the same order as below, in one dict
        return [{"profile": entry.id, "x": r4(x), "y": r4(y), "facing": facing} for x, y in centres]
    models = []
    for x, y in centres:
        m: dict = {"base": entry.base.model_dump(mode="json"), "type": entry.type.value}
        m.update({"x": r4(x), "y": r4(y), "facing": facing})
        models.append(m)
    return models


def footprint_bounds(entry: CatalogueEntry, centres: list[tuple[float, float]]) -> tuple[float, float, float, float]:
    """Bounding box (x0, y0, x1, y1) of a block of models facing +y, inches."""
    along, across = base_half_extents(entry.base)
    xs = [c[0] for c in centres]
    ys = [c[1] for c in centres]
    return min(xs) - across, min(ys) - along, max(xs) + across, max(ys) + along


def _boxes_meet(a, b, pad: float) -> bool:
    return a[0] - pad < b[2] and b[0] < a[2] + pad and a[1] - pad < b[3] and b[1] < a[3] + pad


def free_spot(scene: Scene, rng: np.random.Generator, region: Polygon, entry: CatalogueEntry,
              offsets: list[tuple[float, float]], *, clearance: float = 0.3, tries: int = 40,
              avoid_units: bool = True) -> list[tuple[float, float]] | None:
    """Centres for a block at a random anchor wholly within ``region`` (a rectangle), clear of
    no-go terrain and (``avoid_units``) of every other unit by ``clearance`` inches; None if no
    spot was found in ``tries`` draws."""
    x0, y0, x1, y1 = scene.zone_bounds(region)
    no_go = scene.no_go_boxes()
    others = [b for u in scene.units if (b := u.block_bounds()) is not None] if avoid_units else []
    ob = footprint_bounds(entry, offsets)
    if x1 - x0 <= ob[2] - ob[0] + 0.1 or y1 - y0 <= ob[3] - ob[1] + 0.1:
        return None
    for _ in range(tries):
        ax, ay = uniform(rng, x0 - ob[0], x1 - ob[2]), uniform(rng, y0 - ob[1], y1 - ob[3])
        bb = (ax + ob[0], ay + ob[1], ax + ob[2], ay + ob[3])
        if bb[0] < x0 + 0.05 or bb[1] < y0 + 0.05 or bb[2] > x1 - 0.05 or bb[3] > y1 - 0.05:
            continue
        if any(_boxes_meet(bb, o, clearance) for o in others):
            continue
        hits = [q for b, q in no_go if _boxes_meet(bb, b, clearance)]
        if hits:
            g = shapely.box(*bb)
            if any(shapely.dwithin(g, q, clearance) for q in hits):
                continue
        return [(ax + dx, ay + dy) for dx, dy in offsets]
    return None


def model_count(entry: CatalogueEntry, rng: np.random.Generator, p: GeneratorParams) -> int:
    lo, hi = p.infantry_models if entry.type is UnitType.INFANTRY else p.other_models
    return int(rng.integers(lo, hi + 1))


def ranks_for(n: int, rng: np.random.Generator) -> int:
    return 1 if n <= 3 else int(rng.integers(1, 4))


@dataclass(frozen=True)
class RosterUnit:
    """A unit of a given roster: its record, each model's base, and an entry to space the block by
    (the largest base)."""

    record: dict
    bases: tuple
    spacing: CatalogueEntry


@lru_cache(maxsize=8)
def roster_units(paths: tuple[str, ...]) -> tuple[tuple[RosterUnit, ...], ...]:
    """The on-battlefield units of each roster file (``.ros``/``.rosz``), models resolved by the hh2
    catalogue (unknown models: 32 mm round bases).

    Raises
    ------
    ScenarioError
        A roster that cannot be read or imported (the message names the file).
    """
    from planner.io.roster import read_roster, roster_to_army

    cat = load_catalogue(find_ruleset(DEFAULT_RULESET).catalogue)
    out = []
    for path in paths:
        army, _ = roster_to_army(read_roster(path, DEFAULT_RULESET), DEFAULT_RULESET, "roster", 32.0)
        units = []
        for u in army.units:
            if not u.setup.on_battlefield:
                continue
            bases = []
            for m in u.models:
                entry = cat.get(m.profile) if m.profile else None
                base = m.base or (entry.base if entry is not None else None)
                if base is None:  # roster_to_army gives every model a base or a catalogue profile
                    raise ScenarioError(f"model {m.profile!r} has neither a base nor a catalogue entry", file=path)
                bases.append(base)
            big = max(bases, key=lambda b: sum(base_half_extents(b)))
            first = cat.get(u.models[0].profile) if u.models[0].profile else None
            utype = u.type or (first.type if first else UnitType.INFANTRY)
            spacing = CatalogueEntry(id="roster-unit", name=u.name or u.id, base=big, type=utype)
            rec = u.model_dump(mode="json", by_alias=True, exclude_none=True)
            units.append(RosterUnit(rec, tuple(bases), spacing))
        out.append(tuple(units))
    return tuple(out)


def _add_roster_army(scene: Scene, rng: np.random.Generator, p: GeneratorParams, player: str) -> None:
    rosters = roster_units(tuple(p.rosters))
    units = rosters[int(rng.integers(len(rosters)))]
    n = min(len(units), int(rng.integers(p.units_min, p.units_max + 1)))
    for k, j in enumerate(sorted(rng.choice(len(units), size=n, replace=False).tolist())):
        ru = units[j]
        nm = len(ru.bases)
        offs = block_offsets(ru.spacing, nm, ranks_for(nm, rng))
        centres = free_spot(scene, rng, scene.zones[player], ru.spacing, offs)
        if centres is None:
            continue
        rec = json.loads(json.dumps(ru.record))
        rec["id"] = f"{player}-{k + 1}"
        rec["setup"] = {"method": "deployment_zone", "zone": scene.zone_ids[player]}
        rec.pop("place", None)
        for m, (x, y) in zip(rec["models"], centres, strict=True):
            m.update({"x": r4(x), "y": r4(y), "facing": 90.0})
        scene.units.append(GenUnit(rec, ru.spacing, player, list(ru.bases)))


def add_armies(scene: Scene, rng: np.random.Generator, p: GeneratorParams, entries: list[CatalogueEntry]) -> None:
    """Two armies in block formations, wholly within their zones: catalogue units, or (``rosters``
    given) units of a roster drawn for each player."""
    for player in PLAYERS:
        if p.rosters and scene.use_profiles:
            _add_roster_army(scene, rng, p, player)
            continue
        n_units = int(rng.integers(p.units_min, p.units_max + 1))
        for k in range(n_units):
            entry = entries[int(rng.integers(len(entries)))]
            n = model_count(entry, rng, p)
            offs = block_offsets(entry, n, ranks_for(n, rng))
            centres = free_spot(scene, rng, scene.zones[player], entry, offs)
            if centres is None:
                continue
            uid = f"{player}-{k + 1}"
            scene.units.append(GenUnit({"id": uid, "name": entry.name,
                                        "setup": {"method": "deployment_zone", "zone": scene.zone_ids[player]},
                                        "models": unit_models(entry, centres, scene.use_profiles)}, entry, player))


def base_scene(rng: np.random.Generator, p: GeneratorParams, ruleset: str, *, armies: bool = True) -> Scene:
    """Battlefield, deployment map, terrain and (``armies``) two deployed armies."""
    w, d = p.battlefields[int(rng.integers(len(p.battlefields)))]
    kind = p.deployment_maps[int(rng.integers(len(p.deployment_maps)))]
    zones = zones_for(kind, w, d, p)
    scene = Scene(ruleset, float(w), float(d), kind, zones, {pl: f"{pl}-zone" for pl in PLAYERS},
                  use_profiles=find_ruleset(ruleset).catalogue == find_ruleset(DEFAULT_RULESET).catalogue,
                  rulings=dict(p.rulings))
    add_terrain(scene, rng, p)
    if armies:
        add_armies(scene, rng, p, catalogue_entries(ruleset, p))
    return scene


def enemy_footprints(scene: Scene, player: str):
    """Footprints of every on-table model of the other player, with (unit id, model index)."""
    out = []
    for u in scene.units:
        if u.player != player and u.centres():
            for i, f in enumerate(u.footprints()):
                out.append((f, u.id, i))
    return out


def nearest_distance(fps, others) -> float:
    """Least closest-point distance between two groups of footprints (exact), inches."""
    if not others:
        return math.inf
    b, bx, by, br = _centres_radii(others)
    if len(fps) == 1:
        # one footprint (most calls): the pair of least lower bound first (the same floats as
        # ``lb`` below). When no other pair's bound is at most both its bound and its distance,
        # that pair is the only one the loop below measures (first in its order, and the next
        # bound stops it): the same value. Otherwise (ties, a loose bound, NaN) that loop.
        f = fps[0]
        lb1 = np.hypot(f.cx - bx, f.cy - by) - f.outer_radius - br
        j = int(lb1.argmin())
        low = float(lb1[j])
        best = signed_distance(f, others[j])
        if math.isfinite(low) and math.isfinite(best) and np.count_nonzero(lb1 <= max(best, low)) == 1:
            return best
    a = np.array([[f.cx, f.cy, f.outer_radius] for f in fps])
    lb = np.hypot(a[:, None, 0] - b[None, :, 0], a[:, None, 1] - b[None, :, 1]) - a[:, None, 2] - b[None, :, 2]
    if len(fps) > 1:
        # several footprints: the same shortcut over the whole matrix (the pair of least bound,
        # the first in row-major order on a tie; it is also the loop's first pair when no other
        # bound is at most both its bound and its distance, and then its only one)
        k = int(lb.argmin())
        i, j = divmod(k, len(others))
        low = float(lb[i, j])
        best = signed_distance(fps[i], others[j])
        if math.isfinite(low) and math.isfinite(best) and np.count_nonzero(lb <= max(best, low)) == 1:
            return best
    order = np.argsort(lb, axis=None)
    best = math.inf
    for k in order:
        i, j = divmod(int(k), len(others))
        if lb[i, j] >= best:
            break
        best = min(best, signed_distance(fps[i], others[j]))
    return best



_GROUP_KEPT = 4
_GROUP: list = [None, None]
"""The last lists of footprints seen by :func:`_centres_radii` and their arrays, alternately
(newest first, at most ``_GROUP_KEPT``): a builder measures its spots against the enemy and
against every other model in turn."""


def _centres_radii(fps: list) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """[[cx, cy, outer radius], ...] of a list of footprints and its three columns (contiguous
    copies, the same floats), kept for the last few lists seen (the generators measure many
    placements against one group; callers do not mutate it)."""
    for k in range(0, len(_GROUP), 2):
        if _GROUP[k] is fps and len(_GROUP[k + 1][0]) == len(fps):
            return _GROUP[k + 1]
    arr = np.array([[f.cx, f.cy, f.outer_radius] for f in fps])
    hit = (arr, arr[:, 0].copy(), arr[:, 1].copy(), arr[:, 2].copy())
    _GROUP[2:], _GROUP[:2] = _GROUP[:_GROUP_KEPT * 2 - 2], [fps, hit]
    return hit
