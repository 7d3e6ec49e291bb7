"""Deployment maps of the current 40k mission packs on the 60" x 44" battlefield.

Geometry per RULES.md §3.6 (CA-POLY, third-party; Goonhammer for Crucible of Battle), moved to
this planner's origin at the battlefield's lower-left corner: x along the 60" width, y along the
44" depth. Player ``a`` deploys on the low side (y = 0 or x = 0), player ``b`` opposite; every map
is point-symmetric about the centre (30, 22), where the centre objective stands.

Readings (RULES.md §3.6 leaves these open):

- Dawn of War: the depth differs by mission pack: 12" (Leviathan-era tools) or 10" (Chapter
  Approved 2025-26); ``depth_in`` chooses.
- Sweeping Engagement: zone ``a`` is 14" deep on the x < 30 half and 8" deep on the other;
  Tipping Point: zone ``a`` is 20" deep on the y < 22 half and 12" on the other (which half is
  deeper is not in the sources; the opposite zone is the point reflection).
- Search and Destroy: the quarter minus a circle of radius 9" about the centre; the arc is a
  polygon whose edges lie *outside* the circle (circumscribed), so the zone never reaches into
  the 9" circle (it is smaller than the true zone by at most 0.011").
"""

from __future__ import annotations

import math

from shapely.geometry import Point, Polygon, box
from shapely.geometry.polygon import orient

WIDTH_IN = 60.0
DEPTH_IN = 44.0
CENTRE = (WIDTH_IN / 2, DEPTH_IN / 2)
DAWN_OF_WAR_DEPTHS_IN = {"leviathan": 12.0, "chapter-approved-2025": 10.0}
SEARCH_AND_DESTROY_RADIUS_IN = 9.0
ARC_SEGMENTS_PER_QUARTER = 16

MAPS = ("hammer-and-anvil", "dawn-of-war", "search-and-destroy", "sweeping-engagement", "crucible-of-battle",
        "tipping-point")


def _mirror(poly: Polygon) -> Polygon:
    """The point reflection of ``poly`` through the centre."""
    cx, cy = CENTRE
    return Polygon([(2 * cx - x, 2 * cy - y) for x, y in poly.exterior.coords[:-1]])


def zones(name: str, *, dawn_of_war_depth_in: float = 12.0) -> tuple[Polygon, Polygon]:
    """The two deployment zones (player a, player b) of deployment map ``name``, inches.

    Raises
    ------
    ValueError
        For a name not in :data:`MAPS`, or a Dawn of War depth outside (0, 22).
    """
    if name == "hammer-and-anvil":
        a = box(0, 0, 18, DEPTH_IN)
    elif name == "dawn-of-war":
        if not 0 < dawn_of_war_depth_in < DEPTH_IN / 2:
            raise ValueError(f"Dawn of War depth must be between 0 and 22 inches, got {dawn_of_war_depth_in}")
        a = box(0, 0, WIDTH_IN, dawn_of_war_depth_in)
    elif name == "search-and-destroy":
        r = SEARCH_AND_DESTROY_RADIUS_IN / math.cos(math.pi / (4 * ARC_SEGMENTS_PER_QUARTER))
        a = box(0, 0, CENTRE[0], CENTRE[1]).difference(Point(CENTRE).buffer(r, quad_segs=ARC_SEGMENTS_PER_QUARTER))
    elif name == "sweeping-engagement":
        a = Polygon([(0, 0), (60, 0), (60, 8), (30, 8), (30, 14), (0, 14)])
    elif name == "crucible-of-battle":
        a = Polygon([(0, 0), (30, 44), (0, 44)])
    elif name == "tipping-point":
        a = Polygon([(0, 0), (20, 0), (20, 22), (12, 22), (12, 44), (0, 44)])
    else:
        raise ValueError(f"unknown deployment map {name!r}; known: {', '.join(MAPS)}")
    assert isinstance(a, Polygon), name  # the search-and-destroy difference is one polygon
    a = orient(a)
    return a, orient(_mirror(a))


def polygon_points(poly: Polygon, ndigits: int = 6) -> list[list[float]]:
    """The polygon's vertices as [[x, y], ...] for a scenario file, rounded to ``ndigits``
    decimals (1e-6" at most: far inside the Search and Destroy arc's 0.011" margin)."""
    return [[round(x, ndigits), round(y, ndigits)] for x, y in poly.exterior.coords[:-1]]
