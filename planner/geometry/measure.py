"""The rules' words, defined once.

- *within X"*: the closest-point distance is not more than X" (inclusive).
- *more than X"*: exactly ``not within`` (strict: 9.0" is not more than 9").
- *wholly/entirely within* an area: every part of the base is inside it (touching the edge counts).

All comparisons use the single tolerance :data:`planner.units.TOLERANCE_IN`: a measured value
within a millionth of an inch of the threshold counts as equal to it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from shapely.geometry import Polygon

from planner.geometry.shapes import (
    Footprint,
    clearance_inside,
    distance_lower_bound,
    signed_distance,
)
from planner.units import TOLERANCE_IN


def _check_inches(inches: float) -> None:
    if inches < 0 or math.isnan(inches):
        raise ValueError(f"a distance in inches must be >= 0, got {inches}")


def is_within_distance(measured: float, inches: float) -> bool:
    """True if a measured distance satisfies "within ``inches``" (not more than it).

    >>> is_within_distance(9.0, 9.0), is_within_distance(9.01, 9.0)
    (True, False)
    """
    _check_inches(inches)
    return measured <= inches + TOLERANCE_IN


def is_more_than_distance(measured: float, inches: float) -> bool:
    """True if a measured distance satisfies "more than ``inches``": exactly ``not within``.

    >>> is_more_than_distance(9.0, 9.0), is_more_than_distance(9.00995, 9.0)
    (False, True)
    """
    return not is_within_distance(measured, inches)


def distance(a: Footprint, b: Footprint) -> float:
    """Closest point to closest point, inches (0 when touching or overlapping).

    Raises
    ------
    ValueError
        Never for valid footprints.
    """
    return max(0.0, signed_distance(a, b))


def is_within(a: Footprint, b: Footprint, inches: float) -> bool:
    """Rules term "within X"": closest points not more than ``inches`` apart.

    Raises
    ------
    ValueError
        If ``inches`` is negative.
    """
    _check_inches(inches)
    if distance_lower_bound(a, b) > inches + TOLERANCE_IN:
        return False
    return is_within_distance(distance(a, b), inches)


def is_more_than(a: Footprint, b: Footprint, inches: float) -> bool:
    """Rules term "more than X"": exactly ``not is_within(a, b, inches)``."""
    return not is_within(a, b, inches)


def is_wholly_within(fp: Footprint, area: Polygon) -> bool:
    """Rules term "wholly/entirely within" an area: every part of the base inside (edges count)."""
    return clearance_inside(fp, area) >= -TOLERANCE_IN


def is_overlap_distance(signed: float) -> bool:
    """True if a signed distance (negative = penetration) means the bases overlap: by more than
    the tolerance (touching is not overlapping)."""
    return signed < -TOLERANCE_IN


def overlaps(a: Footprint, b: Footprint) -> bool:
    """True if two bases overlap by more than the tolerance (touching is not overlapping)."""
    if distance_lower_bound(a, b) > 0:
        return False
    return is_overlap_distance(signed_distance(a, b))


@dataclass(frozen=True)
class Nearest:
    """The closest pair between two groups of footprints: indices and the distance in inches."""

    i: int
    j: int
    distance: float


def nearest(group_a: Sequence[Footprint], group_b: Sequence[Footprint]) -> Nearest:
    """The closest pair of footprints between two non-empty groups (e.g. two units' models).

    Exact: pairs are visited in order of their lower bound and the search stops once no
    remaining pair can be closer than the best exact distance found.

    Raises
    ------
    ValueError
        If either group is empty.
    """
    if not group_a or not group_b:
        raise ValueError("nearest() needs two non-empty groups")
    bounds = sorted(
        (distance_lower_bound(a, b), i, j) for i, a in enumerate(group_a) for j, b in enumerate(group_b)
    )
    best = Nearest(-1, -1, math.inf)
    for lb, i, j in bounds:
        if lb >= best.distance:
            break
        d = distance(group_a[i], group_b[j])
        if d < best.distance:
            best = Nearest(i, j, d)
    return best


def max_displacement(before: Footprint, after: Footprint) -> float:
    """How far any point of a base travelled when moved rigidly from ``before`` to ``after``, inches.

    "Entirely within 6" of its current position" (Scout) is read as: no point of the base ends
    more than 6" from where that point started. For a round base this is the centre's move; for
    ovals and hulls a turn adds the swing of the far end (maximum over the boundary).
    """
    dx, dy = after.cx - before.cx, after.cy - before.cy
    if before.kind == "circle":
        return math.hypot(dx, dy)
    dth = after.angle - before.angle
    c, s = math.cos(dth), math.sin(dth)
    if before.kind == "polygon":
        pts = [(x - before.cx, y - before.cy) for x, y in before.verts]
    else:
        # the displacement is smooth along the ellipse: scan 720 points, then zoom on the best
        ca, sa = math.cos(before.angle), math.sin(before.angle)

        def moved(t: np.ndarray) -> np.ndarray:
            px, py = before.a * np.cos(t), before.b * np.sin(t)
            qx, qy = px * ca - py * sa, px * sa + py * ca
            return np.hypot((c - 1) * qx - s * qy + dx, s * qx + (c - 1) * qy + dy)

        t = np.linspace(0.0, 2 * math.pi, 720, endpoint=False)
        vals = moved(t)
        k = int(np.argmax(vals))
        best, t0, half = float(vals[k]), float(t[k]), 2 * math.pi / 720
        while half > 1e-11:
            tt = t0 + half * np.linspace(-1.0, 1.0, 33)
            vv = moved(tt)
            k = int(np.argmax(vv))
            best, t0, half = max(best, float(vv[k])), float(tt[k]), half / 16.0
        return best
    best = 0.0
    for px, py in pts:
        mx = (c - 1) * px - s * py + dx
        my = s * px + (c - 1) * py + dy
        best = max(best, math.hypot(mx, my))
    return best
