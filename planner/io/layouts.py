"""The Chapter Approved 11th-edition terrain layouts and deployment maps of the ``wh40kdc`` package
(MIT; layouts from Battlemaster), converted to this planner's scenario records.

Frames. ``wh40kdc`` gives board inches with the origin at a board corner and **y pointing down**
(``wh40kdc.terrain.resolve``: "origin at a board corner, y-down"; its pictures are drawn that way).
This planner's origin is the lower-left corner with y up, so every point (x, y) of the package
becomes (x, 44 - y) on the 60" x 44" battlefield: the table looks as the package draws it (its top
edge is our y = 44). Terrain and zones go through the same map, so they stay where the layout's
author put them relative to each other.

What each piece becomes (one :class:`~planner.schema.TerrainFeature` per piece that
``wh40kdc.terrain.resolve_layout`` emits, ids as the package gives them):

- a **terrain area** (``piece_type: area``, the base or mat a feature stands on) is an ``area``
  feature, ``category: obscuring`` and trait ``obscuring`` when it holds a light or dense feature
  ("Obscuring: terrain areas containing light or dense features"; RULES.md §3.1 Terrain,
  11E-CORE-B 13.02-13.11); it also gets ``blocks_line_of_sight`` when it holds a dense feature, so
  the 10th edition reads it as a ruin whose footprint blocks sight except into or out of it
  (RULES.md §3.1 Terrain, 10th column). An area has no height: it is a flat boundary, and
  obscuring is a rule about crossing it, not a height.
- a **dense feature with an upper floor** (Battlemaster ruins AB, CD, CO, EF, GH, Tower: walls,
  a floor, a roof) is an ``area`` feature (models stand in it) with ``blocks_line_of_sight``
  ("Solid (dense): line of sight cannot cross enclosed gaps", 11E-CORE-B 13.x), its walls, the
  ground floor and the upper floor, ``roof`` as the package says, ``category: dense``.
- a **dense feature without an upper floor** (Generator, Pipes, Ruin Part: closed blocks) is a
  ``solid`` feature with ``blocks_line_of_sight`` (no model stands in it).
- a **light feature** (barricades, corners, small L walls) is an ``area`` feature with its walls
  and ``category: light`` and no sight-blocking trait: a light feature gives cover (11E-CORE-B
  13.08) but does not hide a model behind it; its 2" walls are for the 2.5D sight engine.

Heights (a stated ruling: the package gives heights only for its GW templates,
``default_height_inches``, used where given): typical heights for the kind of feature:
:data:`RUIN_HEIGHT_IN` for ruins with an upper floor (two storeys of :data:`STOREY_IN`, the upper
floor at :data:`STOREY_IN`), :data:`BLOCK_HEIGHT_IN` for dense blocks without a floor (as the
package's own GW "generator" template, 3"), :data:`LIGHT_HEIGHT_IN` for light walls (as its GW
"barricade", 2").

Deployment maps: the package's map ids are this planner's map names
(:data:`planner.rules.wh40k_maps.MAPS`); the zones are ours (:mod:`planner.rules.wh40k_maps`, the
one copy of the maps), placed as the package places them relative to its terrain
(:data:`MAP_FRAME`: Crucible of Battle is our map's mirror image, x -> 60 - x; the defender is our
zone ``a`` or ``b``; Dawn of War 12" deep, as the package), players ``defender`` and ``attacker``. Objectives: the layout's own objective markers (11th edition: the
terrain area at an objective point is the objective, 11E-CORE-B 14.01), else the map's.
"""

from __future__ import annotations

import copy
from functools import cache
from typing import Any

from planner.errors import ScenarioError

BOARD_WIDTH_IN = 60.0
BOARD_DEPTH_IN = 44.0
STOREY_IN = 3.0
"""Height of one storey of a ruin (ruling: typical GW / Battlemaster ruin floors), inches."""
RUIN_HEIGHT_IN = 2 * STOREY_IN
"""Walls of a ruin with an upper floor: two storeys, inches."""
BLOCK_HEIGHT_IN = 3.0
"""A dense feature without a floor (generator, pipes): the package's GW generator height, inches."""
LIGHT_HEIGHT_IN = 2.0
"""A light feature's walls (barricades): the package's GW barricade height, inches."""
LAYOUT_SOURCE = "battlemaster-11e"
"""The package's source tag of the 45 Chapter Approved 11th-edition layouts."""
PLAYERS = ("defender", "attacker")


@cache
def _raw() -> dict[str, Any]:
    try:
        from wh40kdc.data.bundle import raw_data
    except ImportError:  # pragma: no cover - a dependency
        raise ScenarioError("the wh40kdc package is needed for the standard layouts (pip install wh40kdc)") from None
    return raw_data()


def _templates() -> list[dict[str, Any]]:
    return _raw()["terrain_templates"]


def layouts() -> list[dict[str, Any]]:
    """The package's Chapter Approved 11th-edition layouts (source ``battlemaster-11e``), in its order."""
    return [lay for lay in _raw()["terrain_layouts"] if lay.get("source") == LAYOUT_SOURCE]


def deployment_maps() -> list[dict[str, Any]]:
    """The package's deployment maps of the 60" x 44" battlefield (those the layouts use), in its order."""
    used = {lay["deployment_pattern_id"] for lay in layouts()}
    return [d for d in _raw()["deployment_patterns"] if d["id"] in used]


def find_layout(layout_id: str) -> dict[str, Any]:
    """The layout record ``layout_id``.

    Raises
    ------
    ScenarioError
        For an id that is not one of :func:`layouts` (the message lists a few).
    """
    for lay in layouts():
        if lay["id"] == layout_id:
            return lay
    ids = [lay["id"] for lay in layouts()]
    raise ScenarioError(f"unknown layout; {len(ids)} layouts, e.g. {', '.join(ids[:3])} (planner layouts lists "
                        "them)", location="--layout", value=layout_id)


def find_map(map_id: str) -> dict[str, Any]:
    """The deployment map record ``map_id``.

    Raises
    ------
    ScenarioError
        For an id that is not one of :func:`deployment_maps`.
    """
    for d in deployment_maps():
        if d["id"] == map_id:
            return d
    raise ScenarioError(f"unknown deployment map; known: {', '.join(d['id'] for d in deployment_maps())}",
                        location="--map", value=map_id)


# --------------------------------------------------------------------------- geometry


def to_planner(x: float, y: float) -> list[float]:
    """A package point (corner origin, y down) as this planner's [x, y] (lower-left origin, y up), inches."""
    return [round(float(x), 6), round(BOARD_DEPTH_IN - float(y), 6)]


def _points(vertices: list[dict[str, float]]) -> list[list[float]]:
    out: list[list[float]] = []
    for v in vertices:
        p = to_planner(v["x"], v["y"])
        if not out or p != out[-1]:
            out.append(p)
    if len(out) > 1 and out[0] == out[-1]:
        out.pop()
    return out


def _polyline(points: list[dict[str, float]]) -> list[list[float]]:
    out: list[list[float]] = []
    for v in points:
        p = to_planner(v["x"], v["y"])
        if not out or p != out[-1]:
            out.append(p)
    return out


def resolved_pieces(layout: dict[str, Any]) -> list[dict[str, Any]]:
    """``wh40kdc.terrain.resolve_layout`` of the layout with the package's templates, each piece
    with its template's upper floor (``upper_floor_vertices``, board frame, when it has one),
    ``default_height_inches`` and ``ground_accessible``.

    The upper floor is placed by the package's own wall transform: it is passed as one more wall
    polyline of a copy of the template and read back (so floors and walls move together).
    """
    from wh40kdc.terrain import resolve_layout

    templates = copy.deepcopy(_templates())
    by_id = {t["id"]: t for t in templates}
    marked: dict[str, dict[str, Any]] = {}
    for t in templates:
        uf = t.get("upper_floor")
        if uf:
            from wh40kdc.terrain import footprint_vertices

            t["walls"] = [*(t.get("walls") or []), {"points": footprint_vertices(uf["footprint"]),
                                                     "_floor": True}]
            marked[t["id"]] = uf
    pieces = resolve_layout(layout, templates)
    # the name of each piece's template, in the package's emission order
    names: list[str | None] = []
    for p in layout.get("pieces") or []:
        names.append(p.get("template"))
        if not p.get("parent_area_id") and p.get("template"):
            names += [f["template"] for f in by_id[p["template"]].get("features") or []]
    out = []
    for piece, tid in zip(pieces, names, strict=True):
        piece = dict(piece)
        t = by_id.get(tid) if tid else None
        piece["template"] = tid
        if t is not None and tid in marked and piece.get("walls"):
            *walls, floor = piece["walls"]
            piece["walls"] = walls
            piece["upper_floor_vertices"] = floor["points"]
            if not walls:
                del piece["walls"]
        if t is not None:
            piece["default_height_inches"] = t.get("default_height_inches")
            piece["ground_accessible"] = t.get("ground_accessible", True)
        out.append(piece)
    return out


def _zone_points(zone: dict[str, Any]) -> list[list[float]]:
    from wh40kdc.terrain import footprint_vertices

    ox, oy = zone["position"]["x"], zone["position"]["y"]
    verts = footprint_vertices(zone["shape"])
    pts = [{"x": v["x"] + ox, "y": v["y"] + oy} for v in verts]
    return _points(pts)


# --------------------------------------------------------------------------- conversion


def _feature_record(piece: dict[str, Any], contains: set[str]) -> dict[str, Any]:
    pid = piece["id"]
    rec: dict[str, Any] = {"id": pid, "name": piece.get("name") or pid, "footprint": _points(piece["vertices"])}
    category = piece.get("terrain_category")
    if piece["piece_type"] == "area":
        rec["kind"] = "area"
        traits = []
        if contains & {"light", "dense"}:
            rec["category"] = "obscuring"
            traits.append("obscuring")
        if "dense" in contains:
            traits.append("blocks_line_of_sight")
        if category:  # an area template with its own category (GW area templates)
            rec["category"] = category
        rec["traits"] = traits
        if piece.get("default_height_inches"):
            rec["height_in"] = float(piece["default_height_inches"])
        return rec
    upper = piece.get("upper_floor_vertices")
    if category == "dense":
        height = float(piece.get("default_height_inches") or (RUIN_HEIGHT_IN if upper else BLOCK_HEIGHT_IN))
        rec["kind"] = "area" if upper else "solid"
        rec["traits"] = ["blocks_line_of_sight"]
    else:
        height = float(piece.get("default_height_inches") or LIGHT_HEIGHT_IN)
        rec["kind"] = "area"
        rec["traits"] = []
    rec["category"] = category or "light"
    rec["height_in"] = height
    walls = []
    for w in piece.get("walls") or []:
        pts = _polyline(w["points"])
        if len(pts) >= 2:
            walls.append({"points": pts, "thickness_in": float(w.get("thickness", 0.25)), "height_in": height})
    if walls:
        rec["walls"] = walls
    if upper:
        floors: list[dict[str, Any]] = []
        if piece.get("ground_accessible", True) is not False:
            floors.append({"height_in": 0.0})
        floors.append({"height_in": STOREY_IN, "footprint": _points(upper)})
        rec["floors"] = floors
    if piece.get("has_roof"):
        rec["roof"] = True
    return rec


def layout_terrain(layout: dict[str, Any]) -> list[dict[str, Any]]:
    """The layout's terrain as scenario records (plain data), one per package piece, in the
    package's order; see the module docstring for what each piece becomes."""
    pieces = resolved_pieces(layout)
    # which categories of feature each area holds: its composed features follow it (the
    # package's emission order), parented ones name it
    contains: dict[str, set[str]] = {}
    current: str | None = None
    for p in pieces:
        if p["piece_type"] == "area":
            current = p["id"]
            contains.setdefault(current, set())
        elif p.get("terrain_category"):
            owner = p["id"].split("--")[0] if "--" in (p["id"] or "") else current
            if owner is not None:
                contains.setdefault(owner, set()).add(p["terrain_category"])
    return [_feature_record(p, contains.get(p["id"], set()) if p["piece_type"] == "area" else set())
            for p in pieces]


def layout_objectives(layout: dict[str, Any]) -> list[dict[str, Any]]:
    """The layout's objective markers as scenario records: ``<role>-<n>`` ids (``center-1``,
    ``home-1`` ...), at the marker positions the layout gives; else the map's objectives."""
    out = []
    seen: dict[str, int] = {}
    for p in layout.get("pieces") or []:
        obj = p.get("objective")
        if not obj or "position" not in obj:
            continue
        role = p.get("objective_role") or "objective"
        seen[role] = seen.get(role, 0) + 1
        x, y = to_planner(obj["position"]["x"], obj["position"]["y"])
        out.append({"id": f"{role}-{seen[role]}", "x": x, "y": y})
    if not out:
        m = find_map(layout["deployment_pattern_id"])
        for i, o in enumerate(m.get("objectives") or []):
            x, y = to_planner(o["x"], o["y"])
            out.append({"id": f"objective-{i + 1}", "x": x, "y": y})
    return out


MAP_FRAME: dict[str, tuple[str, str]] = {
    "hammer-and-anvil": ("identity", "a"),
    "dawn-of-war": ("identity", "b"),
    "search-and-destroy": ("identity", "a"),
    "sweeping-engagement": ("identity", "b"),
    "crucible-of-battle": ("mirror-x", "b"),
    "tipping-point": ("identity", "a"),
}
"""Each package map as :func:`planner.rules.wh40k_maps.zones` of the same name: the transform
(``mirror-x``: x -> 60 - x) and which of our zones (``a`` or ``b``) is the package's defender
zone. :func:`map_correspondence` derives it from the package's geometry (a test checks it): the
zones agree exactly, except Search and Destroy, whose arc the package draws as a polygon on the
9" circle rounded to 0.01" (0.12 square inches apart from ours, which never reaches into the
circle). Dawn of War is the package's 12" depth."""


def _package_zone_polygons(map_id: str) -> list[list[list[float]]]:
    m = find_map(map_id)
    zones = {z["player"]: z for z in m["zones"]}
    return [_zone_points(zones[role]) for role in PLAYERS]


def map_zones(map_id: str, players: tuple[str, str] = PLAYERS) -> list[dict[str, Any]]:
    """The deployment zones of map ``map_id`` as scenario records, inches: the zones of
    :func:`planner.rules.wh40k_maps.zones` (the one copy of the maps' geometry) placed as the
    package places them (:data:`MAP_FRAME`): the package's ``defender`` zone for ``players[0]``,
    its ``attacker`` zone for ``players[1]``.

    Raises
    ------
    ScenarioError
        For an unknown map.
    """
    from shapely.affinity import scale
    from shapely.geometry.polygon import orient

    from planner.rules.wh40k_maps import polygon_points, zones

    find_map(map_id)
    transform, defender = MAP_FRAME[map_id]
    a, b = zones(map_id)  # Dawn of War: the default 12" depth, as the package's
    pair = (a, b) if defender == "a" else (b, a)
    out = []
    for poly, player in zip(pair, players, strict=True):
        if transform == "mirror-x":
            poly = orient(scale(poly, -1, 1, origin=(BOARD_WIDTH_IN / 2, BOARD_DEPTH_IN / 2)))
        out.append({"id": f"{player}-zone", "player": player, "polygon": polygon_points(poly)})
    return out


def layout_scenario(layout_id: str, map_id: str | None = None, ruleset: str = "wh40k11",
                    players: tuple[str, str] = PLAYERS) -> dict[str, Any]:
    """A scenario (plain data, as a file holds it) on layout ``layout_id`` and map ``map_id``
    (default: the layout's own map): battlefield 60" x 44", zones, objectives, terrain; no armies.

    Raises
    ------
    ScenarioError
        For an unknown layout or map.
    """
    lay = find_layout(layout_id)
    mid = map_id or lay["deployment_pattern_id"]
    m = find_map(mid)
    note = "" if mid == lay["deployment_pattern_id"] else (
        f" The layout was made for {lay['deployment_pattern_id']}; this scenario puts it on {mid}.")
    return {
        "ruleset": ruleset,
        "name": f"{lay['name']} ({m['name']})",
        "description": (f"Chapter Approved 11th-edition layout {lay['id']} ({lay['description']}) on deployment map "
                        f"{m['name']}, from the wh40kdc package (MIT; layouts from Battlemaster), converted by "
                        f"planner.io.layouts.{note}"),
        "battlefield": {"width": BOARD_WIDTH_IN, "depth": BOARD_DEPTH_IN},
        "deployment_zones": map_zones(mid, players),
        "objectives": layout_objectives(lay),
        "terrain": layout_terrain(lay),
        "armies": [{"player": p, "units": []} for p in players],
    }


def map_correspondence(map_id: str) -> dict[str, Any]:
    """How the package's map ``map_id`` (converted) compares with
    :func:`planner.rules.wh40k_maps.zones` of the same name: the transform (``identity``,
    ``mirror-x``: x -> 60 - x, or ``mirror-y``: y -> 44 - y) and player order (``defender`` as
    our ``a`` or ``b``) that fit best, and the area of the symmetric difference (square inches)
    for each zone. Dawn of War is compared at the package's 12" depth."""
    from shapely.affinity import scale
    from shapely.geometry import Polygon

    from planner.rules.wh40k_maps import zones

    ours = zones(map_id, dawn_of_war_depth_in=12.0) if map_id == "dawn-of-war" else zones(map_id)
    theirs = [Polygon(p) for p in _package_zone_polygons(map_id)]
    best: dict[str, Any] | None = None
    c = (BOARD_WIDTH_IN / 2, BOARD_DEPTH_IN / 2)
    for name, f in (("identity", lambda p: p), ("mirror-x", lambda p: scale(p, -1, 1, origin=c)),
                    ("mirror-y", lambda p: scale(p, 1, -1, origin=c))):
        for order, pair in (("defender=a", ours), ("defender=b", ours[::-1])):
            diffs = [f(t).symmetric_difference(o).area for t, o in zip(theirs, pair, strict=True)]
            if best is None or sum(diffs) < sum(best["difference_sq_in"]):
                best = {"map": map_id, "transform": name, "players": order, "difference_sq_in": diffs}
    assert best is not None
    return best
