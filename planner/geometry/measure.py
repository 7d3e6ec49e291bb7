"""The rules' words, defined once.

- *within X"*: the closest-point distance is not more than X" (inclusive).
- *more than X"*: exactly ``not within`` (strict: 9.0" is not more than 9").
- *wholly/entirely within* an area: every part of the base is inside it (touching the edge counts).

All comparisons use the single tolerance :data:`planner.units.TOLERANCE_IN`: a measured value
within a millionth of an inch of the threshold counts as equal to it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import overload

import numpy as np
from shapely.geometry import Polygon

from planner.geometry.shapes import (
    Footprint,
    clearance_inside,
    distance_lower_bound,
    signed_distance,
    signed_distances,
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


@overload
def is_wholly_within_clearance(clearance: float) -> bool: ...
@overload
def is_wholly_within_clearance(clearance: np.ndarray) -> np.ndarray: ...
def is_wholly_within_clearance(clearance: float | np.ndarray) -> bool | np.ndarray:
    """True if a base whose clearance inside an area is ``clearance`` (inches; negative = it sticks
    out by that much, :func:`planner.geometry.shapes.clearance_inside`) is wholly within the area:
    touching the edge counts, sticking out by more than the tolerance does not."""
    return clearance >= -TOLERANCE_IN


def is_wholly_within(fp: Footprint, area: Polygon) -> bool:
    """Rules term "wholly/entirely within" an area: every part of the base inside (edges count)."""
    return is_wholly_within_clearance(clearance_inside(fp, area))


@overload
def is_overlap_distance(signed: float) -> bool: ...
@overload
def is_overlap_distance(signed: np.ndarray) -> np.ndarray: ...
def is_overlap_distance(signed: float | np.ndarray) -> bool | np.ndarray:
    """True if a signed distance (negative = penetration) means the bases overlap: by more than
    the tolerance (touching is not overlapping)."""
    return signed < -TOLERANCE_IN


_PROBE = np.linspace(0.0, 2.0 * math.pi, 16, endpoint=False)
_PROBE_UX, _PROBE_UY = np.cos(_PROBE), np.sin(_PROBE)


def overlaps(a: Footprint, b: Footprint) -> bool:
    """True if two bases overlap by more than the tolerance (touching is not overlapping).

    Exact, with two cheap certificates first: the signed distance is the largest gap between the
    bases over all directions, so *any* direction with a gap of at least ``-TOLERANCE_IN`` proves
    they do not overlap (the centre line and 16 probes are tried); and centres closer than the
    sum of the inner radii prove they do.
    """
    if distance_lower_bound(a, b) > 0:
        return False
    if a.kind == "circle" and b.kind == "circle":
        return is_overlap_distance(signed_distance(a, b))
    dx, dy = b.cx - a.cx, b.cy - a.cy
    d = math.hypot(dx, dy)
    if d < a.inner_radius + b.inner_radius - TOLERANCE_IN:
        return True
    if d > 0:
        ux, uy = np.array([dx / d]), np.array([dy / d])
        if float(-b.support_many(-ux, -uy)[0] - a.support_many(ux, uy)[0]) >= -TOLERANCE_IN:
            return False
    gaps = -b.support_many(-_PROBE_UX, -_PROBE_UY) - a.support_many(_PROBE_UX, _PROBE_UY)
    if float(gaps.max()) >= -TOLERANCE_IN:
        return False
    # a point of one base lying deeper than the tolerance inside the other proves overlap: no
    # translation shorter than that depth can separate them
    for p, q in ((a, b), (b, a)):
        pts = np.vstack([[p.cx, p.cy], np.asarray(p.polygon(16).exterior.coords)[:-1]])
        if float(_depth_inside(q, pts[:, 0], pts[:, 1]).max()) > TOLERANCE_IN:
            return True
    return is_overlap_distance(signed_distance(a, b))


def _depth_inside(fp: Footprint, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
    """A lower bound of how deep points lie inside a footprint (negative or 0 outside), inches."""
    dx, dy = xs - fp.cx, ys - fp.cy
    if fp.kind == "circle":
        return fp.a - np.hypot(dx, dy)
    c, s = math.cos(fp.angle), math.sin(fp.angle)
    u, v = dx * c + dy * s, -dx * s + dy * c
    if fp.kind == "ellipse":
        # a point on the ellipse scaled by rho < 1 has a disc of radius (1 - rho) * b around it
        rho = np.hypot(u / fp.a, v / fp.b)
        return (1.0 - rho) * min(fp.a, fp.b)
    return np.minimum(fp.a - np.abs(u), fp.b - np.abs(v))  # hull rectangle: half-length, half-width


@dataclass(frozen=True)
class Nearest:
    """The closest pair between two groups of footprints: indices and the distance in inches."""

    i: int
    j: int
    distance: float


def nearest(group_a: Sequence[Footprint], group_b: Sequence[Footprint],
            measure: Callable[[list[tuple[Footprint, Footprint]]], np.ndarray] | None = None) -> Nearest:
    """The closest pair of footprints between two non-empty groups (e.g. two units' models).

    Exact: pairs are visited in order of their lower bound and the search stops once no
    remaining pair can be closer than the best exact distance found. With ovals, the pairs of
    :func:`nearest_candidates` are measured together (``measure``: how, default
    :func:`~planner.geometry.shapes.signed_distances`; a caller may pass its cache of them).

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
    if any(f.kind == "ellipse" for f in (*group_a, *group_b)):
        # ovals take a searched distance: measure together every pair that can be the nearest,
        # then take the first of them in the same order: the pair found one by one
        bounds = _candidates(group_a, group_b, bounds)
        exact = (measure or signed_distances)([(group_a[i], group_b[j]) for _, i, j in bounds]).tolist()
        best = Nearest(-1, -1, math.inf)
        for (_, i, j), sd in zip(bounds, exact, strict=True):
            d = max(0.0, sd)
            if d < best.distance:
                best = Nearest(i, j, d)
        return best
    best = Nearest(-1, -1, math.inf)
    for lb, i, j in bounds:
        if lb >= best.distance:
            break
        d = distance(group_a[i], group_b[j])
        if d < best.distance:
            best = Nearest(i, j, d)
    return best


def _candidates(group_a: Sequence[Footprint], group_b: Sequence[Footprint],
                bounds: list[tuple[float, int, int]]) -> list[tuple[float, int, int]]:
    """The (bound, i, j) of ``bounds`` whose lower bound is not above the least upper bound (the
    gap between the discs each base contains): the only pairs that can be the nearest."""
    ub = min(max(0.0, math.hypot(a.cx - b.cx, a.cy - b.cy) - a.inner_radius - b.inner_radius)
             for a in group_a for b in group_b)
    return [t for t in bounds if t[0] <= ub]


def nearest_candidates(group_a: Sequence[Footprint], group_b: Sequence[Footprint]) -> list[tuple[Footprint, Footprint]]:
    """The pairs :func:`nearest` measures when a group holds an oval (none otherwise)."""
    if not group_a or not group_b or not any(f.kind == "ellipse" for f in (*group_a, *group_b)):
        return []
    bounds = sorted(
        (distance_lower_bound(a, b), i, j) for i, a in enumerate(group_a) for j, b in enumerate(group_b)
    )
    return [(group_a[i], group_b[j]) for _, i, j in _candidates(group_a, group_b, bounds)]


def farthest_from(before: Footprint, after: Footprint, *, prune: bool = True) -> float:
    """How far the farthest point of ``after`` lies from the base ``before``, inches.

    Rules term "each model can redeploy anywhere entirely within 6\" of its current position"
    (HH2 Scout): every part of the base at its new position lies within 6\" of the base where it
    stood. For a round base this is exactly how far its centre moved; a vehicle that turns on the
    spot has moved 0\" to no further than its hull already reached.

    An oval ``after`` is scanned at 360 points of its outline, then zoomed on the farthest one.
    With ``prune`` (the default) a scanned point is measured only if its upper bound (its centre
    distance to ``before`` less the radius of the disc ``before`` contains) can reach the value
    of the point with the highest lower bound, and a zoom point already measured is not measured
    again: the same farthest point (the first one on a tie) and the same float as measuring every
    point (``prune=False``, the reference the tests compare it with).
    """
    def dist_to_before(x: float, y: float) -> float:
        if before.kind == "circle":
            return max(0.0, math.hypot(x - before.cx, y - before.cy) - before.a)
        return max(0.0, signed_distance(Footprint("circle", x, y, 0.0), before))

    if after.kind == "circle" and before.kind == "circle":
        return max(0.0, math.hypot(after.cx - before.cx, after.cy - before.cy) + after.a - before.a)
    if after.kind == "polygon":
        # distance to a convex set is convex: its maximum over a polygon is at a vertex
        return max(dist_to_before(x, y) for x, y in after.verts)
    # ellipse (or circle around a non-circle): scan the outline, then zoom on the farthest point
    ca, sa = (math.cos(after.angle), math.sin(after.angle)) if after.kind == "ellipse" else (1.0, 0.0)
    b = after.b if after.kind == "ellipse" else after.a

    def point(t: float) -> tuple[float, float]:
        px, py = after.a * math.cos(t), b * math.sin(t)
        return after.cx + px * ca - py * sa, after.cy + px * sa + py * ca

    ts = [2 * math.pi * k / 360 for k in range(360)]
    if prune and before.kind != "circle":
        vals = _scan_pruned(before, [point(t) for t in ts], dist_to_before)
    else:
        vals = [dist_to_before(*point(t)) for t in ts]
    k = max(range(len(ts)), key=vals.__getitem__)
    best, t0, half = vals[k], ts[k], 2 * math.pi / 360
    seen: dict[float, float] = {}
    while half > 1e-9:
        cand = [t0 + half * f for f in (-1.0, -0.5, 0.0, 0.5, 1.0)]
        if prune:
            cv = []
            for t in cand:
                v = seen.get(t)
                if v is None:
                    v = seen[t] = dist_to_before(*point(t))
                cv.append(v)
        else:
            cv = [dist_to_before(*point(t)) for t in cand]
        j = max(range(5), key=cv.__getitem__)
        best, t0, half = max(best, cv[j]), cand[j], half / 2.0
    return best


# a measured distance of a point to a base is never above the true one but by rounding (far
# less than this): a point whose upper bound is below a measured value by more than this cannot
# be the farthest, nor tie with it
_BOUND_SLACK_IN = 1e-6


def _scan_pruned(before: Footprint, pts: list[tuple[float, float]],
                 dist: Callable[[float, float], float]) -> list[float]:
    """``[dist(x, y) for x, y in pts]`` where it can be the largest value, ``-inf`` where it
    cannot: every point lies from ``before`` no nearer than its centre distance less
    ``before``'s outer radius and no farther than that less its inner radius (0 at least), so a
    point whose upper bound is below the measured value of the point with the highest lower
    bound (by more than :data:`_BOUND_SLACK_IN`) is neither the largest nor equal to it."""
    xy = np.asarray(pts)
    centre = np.hypot(xy[:, 0] - before.cx, xy[:, 1] - before.cy)
    lower = np.maximum(centre - before.outer_radius, 0.0)
    upper = np.maximum(centre - before.inner_radius, 0.0)
    seed = int(np.argmax(lower))
    floor = dist(*pts[seed])
    vals = [-math.inf] * len(pts)
    vals[seed] = floor
    for k in np.nonzero(upper + _BOUND_SLACK_IN >= floor)[0].tolist():
        if k != seed:
            vals[k] = dist(*pts[k])
    return vals

