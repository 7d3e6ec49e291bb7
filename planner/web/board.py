"""What the page draws, as JSON: the battlefield of a resolved scenario and the overlays.

Coordinates are inches (origin at the battlefield's lower-left corner, y up), angles degrees
counter-clockwise from +x, as in scenario files. Every shape is given as the page draws it:
a base by its kind and half sizes (``circle``: radius ``a``; ``ellipse``: semi-axes ``a`` along the
facing and ``b``; ``rect``: half length ``a`` along the facing and half width ``b``, a hull), so
the page can move and turn a base without asking the server; overlays as polygons
(``[[exterior], [hole], ...]`` rings of [x, y]) made by the same functions as the pictures
(:mod:`planner.render.areas`, :mod:`planner.cli.render`, :func:`planner.adversary.threats.find_threats`).
"""

from __future__ import annotations

import math
from typing import Any

from shapely.geometry import GeometryCollection, MultiPolygon, Polygon
from shapely.geometry.base import BaseGeometry

from planner.errors import ScenarioError
from planner.geometry.shapes import footprint
from planner.schema import TerrainFeature
from planner.world import World, no_unit_text

PLAYER_COLOURS = ("#1f5fbf", "#c0392b", "#2e8b57", "#8e44ad", "#d35400", "#16a085")


def _r(v: float) -> float:
    return round(float(v), 6)


def base_shape(m) -> dict[str, Any]:
    """The model's base for drawing: kind and half sizes in inches (see the module docstring)."""
    fp = footprint(m.base, 0.0, 0.0, 0.0)
    kind = {"circle": "circle", "ellipse": "ellipse", "polygon": "rect"}[fp.kind]
    b = fp.a if fp.kind == "circle" else fp.b
    return {"kind": kind, "a": _r(fp.a), "b": _r(b)}


def board(world: World) -> dict[str, Any]:
    """The battlefield, zones, terrain, objectives and every unit with its models' bases and
    positions (``x``/``y`` None: not placed), each unit with its place in the scenario data
    (``army``, ``index``) so that the page can edit that data."""
    sc = world.scenario
    colours = {p: PLAYER_COLOURS[i % len(PLAYER_COLOURS)] for i, p in enumerate(world.players)}
    where: dict[str, tuple[int, int]] = {}
    for ai, army in enumerate(sc.armies):
        for ui, unit in enumerate(army.units):
            where[unit.id] = (ai, ui)
    units = []
    for u in world.units.values():
        ai, ui = where.get(u.id, (-1, -1))
        units.append({
            "id": u.id, "label": u.label, "player": u.player, "colour": colours.get(u.player, "#555"),
            "setup": u.method.value, "on_battlefield": u.on_battlefield, "place": bool(u.record.place),
            "army": ai, "index": ui,
            "models": [{"index": m.index, "id": m.id, "x": None if m.x is None else _r(m.x),
                        "y": None if m.y is None else _r(m.y), "facing": _r(m.facing), "base": base_shape(m)}
                       for m in u.models],
        })
    return {
        "ruleset": world.ruleset.id, "name": sc.name, "file": world.file,
        "battlefield": {"width": sc.battlefield.width, "depth": sc.battlefield.depth},
        "players": [{"player": p, "colour": colours[p]} for p in world.players],
        "zones": [{"id": z.id, "player": z.player, "polygon": [list(p) for p in z.polygon]}
                  for z in sc.deployment_zones],
        "terrain": [_terrain(t) for t in sc.terrain],
        "objectives": [{"id": o.id, "x": o.x, "y": o.y} for o in sc.objectives],
        "units": units,
    }


def _terrain(t: TerrainFeature) -> dict[str, Any]:
    """A terrain feature for the page: its pieces (the first also as ``footprint``), its walls as
    polygons, and its greatest height (inches; None: blocks every line)."""
    pieces = t.all_pieces()
    heights = [p.height_in for p in pieces if p.height_in is not None]
    walls = []
    for w in t.walls:
        g = w.polygon()
        if isinstance(g, Polygon) and not g.is_empty:
            walls.append([[_r(x), _r(y)] for x, y in list(g.exterior.coords)[:-1]])
    return {"id": t.id, "name": t.name, "kind": t.kind.value, "traits": [tr.value for tr in t.traits],
            "footprint": [list(p) for p in pieces[0].footprint],
            "pieces": [[list(q) for q in p.footprint] for p in pieces], "walls": walls,
            "impassable": t.is_impassable, "height": max(heights) if heights else None}


def json_safe(data: Any) -> Any:
    """Data with NaN and infinities as None (they are not JSON)."""
    if isinstance(data, float):
        return data if math.isfinite(data) else None
    if isinstance(data, dict):
        return {k: json_safe(v) for k, v in data.items()}
    if isinstance(data, list | tuple):
        return [json_safe(v) for v in data]
    return data


def rings(geom: BaseGeometry) -> list[list[list[list[float]]]]:
    """A shapely (multi)polygon as a list of polygons, each ``[exterior, *holes]`` of [x, y] rings."""
    if geom is None or geom.is_empty:
        return []
    if isinstance(geom, Polygon):
        parts = [geom]
    elif isinstance(geom, MultiPolygon | GeometryCollection):
        parts = [g for g in geom.geoms if isinstance(g, Polygon)]
    else:
        return []
    out = []
    for p in parts:
        if p.is_empty:
            continue
        out.append([[[_r(x), _r(y)] for x, y in ring.coords] for ring in (p.exterior, *p.interiors)])
    return out


def _unit(world: World, unit: str | None, field: str = "unit"):
    if not unit or unit not in world.units:
        raise ScenarioError(no_unit_text(world.units), location=field, value=unit)
    return world.units[unit]


def overlay(world: World, kind: str, unit: str | None, *, resolution: float = 1.0, grid: float = 2.0
            ) -> dict[str, Any]:
    """An overlay for the page: ``infiltrate`` (the ruleset's Infiltrate distances round the enemy
    units of ``unit``'s player, :func:`planner.render.areas.infiltrate_exclusions`: layers
    ``exclusion-<D>``, and for 40k Infiltrators ``exclusion-zone-<D>`` round the enemy deployment
    zones), ``legal`` (where ``unit``'s bases may stand,
    :func:`planner.render.areas.legal_area`), ``heat`` (``unit``'s Deep Strike heat map,
    :func:`planner.cli.render.deepstrike_heat`, cells of ``resolution`` inches), ``threat`` (the
    legal arrival anchors of enemy unit ``unit``, :func:`planner.adversary.threats.find_threats`
    on a ``grid``-inch grid).

    Returns ``{"kind", "unit", "layers": [{"id", "label", "polygons"}], "cells": [[x, y, value]],
    "cell_in"}``.

    Raises
    ------
    ScenarioError
        Unknown kind or unit, or what the underlying function refuses (naming the field: ``kind``
        for an Infiltrate overlay of a ruleset without Infiltrate distances, ``unit`` for a legal
        area the unit's set-up does not have).
    """
    from planner.render.areas import infiltrate_exclusions, legal_area

    u = _unit(world, unit)
    out: dict[str, Any] = {"kind": kind, "unit": u.id, "layers": [], "cells": [], "cell_in": None}
    if kind == "infiltrate":
        from shapely.ops import unary_union

        d, areas = infiltrate_exclusions(world, u.player, "kind")
        for dist, kind_of, words in ([(d.plain_in, "unit", "an enemy unit")]
                                     + ([(d.hidden_in, "unit", "an enemy unit")] if d.hidden_in is not None else [])
                                     + ([(d.zone_in, "zone", "an enemy deployment zone")] if d.zone_in is not None
                                        else [])):
            geom = unary_union([a.geom for a in areas if a.kind == kind_of and a.distance_in == dist])
            out["layers"].append({"id": f"exclusion-{'zone-' if kind_of == 'zone' else ''}{dist:g}",
                                  "label": f"within {dist:g}\" of {words}", "polygons": rings(geom)})
    elif kind == "legal":
        la = legal_area(world, u.id, option="unit")
        out["layers"].append({"id": "legal", "label": la.what, "polygons": rings(la.certain)})  # type: ignore[arg-type]
        if la.if_hidden is not None:
            out["layers"].append({"id": "legal-hidden", "label": la.what_hidden or "only if hidden",
                                  "polygons": rings(la.if_hidden)})  # type: ignore[arg-type]
    elif kind == "heat":
        from planner.cli.render import deepstrike_heat

        hm = deepstrike_heat(world, u.id, resolution=resolution)
        out["cell_in"] = float(resolution)
        out["label"] = hm.label
        out["cells"] = [[_r(x), _r(y), _r(hm.values[j, i])] for j, y in enumerate(hm.ys) for i, x in enumerate(hm.xs)]
    elif kind == "threat":
        from planner.adversary.threats import find_threats, parse_goal

        res = find_threats(world, u.id, parse_goal(None, world), grid)
        out["cell_in"] = float(res.grid_in)
        out["label"] = f"legal arrival anchors of {u.id}: {res.legal_anchors} ({res.legal_area_sq_in:g} sq in)"
        out["cells"] = [[_r(x), _r(y), 1.0] for x, y in res.legal_cells]
    else:
        raise ScenarioError("unknown overlay; choose infiltrate, legal, heat or threat", location="kind", value=kind)
    return out
