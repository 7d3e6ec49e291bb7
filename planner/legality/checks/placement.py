"""Placement predicates: wholly within an area, clear of no-go terrain, clear of other bases.

Inches throughout. Each returns the measurement the checker reports (the tightest clearance and
the model it belongs to), so the checker explains with the same numbers the planner decides by.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import shapely
from shapely.geometry import Polygon

from planner.geometry.measure import is_wholly_within_clearance, overlaps
from planner.geometry.shapes import (
    Footprint,
    clearance_inside,
    clearances_inside,
    distance_to_polygon,
    point_distances,
)
from planner.units import TOLERANCE_IN


@dataclass(frozen=True)
class Clearance:
    """The tightest model of a group against an area: its index and its clearance (inches inside
    the area's edge; negative = it sticks out by that much)."""

    clearance: float
    index: int
    outside: tuple[tuple[int, float], ...] = ()
    """Every base not wholly within the area, (index, clearance), the worst first (a judge moves
    each one); empty when :attr:`ok`."""

    @property
    def ok(self) -> bool:
        """Every model wholly within the area (touching the edge counts)."""
        return is_wholly_within_clearance(self.clearance)


def wholly_within(fps: Sequence[Footprint], area: Polygon, clearances: np.ndarray | None = None) -> Clearance:
    """Rules term "wholly within" an area (the battlefield, a deployment zone) for every base of
    ``fps``: the tightest clearance and whose it is (the first on a tie), and every base not
    wholly within (:attr:`Clearance.outside`). ``clearances``: the
    clearance of each base (:func:`~planner.geometry.shapes.clearances_inside`) already made.

    Raises
    ------
    ValueError
        If ``fps`` is empty.
    """
    if not fps:
        raise ValueError("no footprints")
    if clearances is None:
        clearances = clearances_inside(fps, area)
    i = int(np.argmin(clearances))
    tight = Clearance(float(clearances[i]), i)
    if tight.ok:
        return tight
    bad = [(int(k), float(clearances[k])) for k in np.argsort(clearances, kind="stable")
           if not is_wholly_within_clearance(float(clearances[k]))]
    return Clearance(tight.clearance, i, tuple(bad))


def first_outside(fps: Sequence[Footprint], area: Polygon) -> int | None:
    """The index of the first base of ``fps`` not wholly within ``area``, or None (stops at the first)."""
    for i, f in enumerate(fps):
        if not is_wholly_within_clearance(clearance_inside(f, area)):
            return i
    return None


@dataclass(frozen=True)
class NoGo:
    """The closest (or an overlapping) pair of a base and a no-go feature: signed distance in
    inches (negative: the base stands in the feature), the base's index and the feature's id."""

    distance: float
    index: int
    feature: str
    inside: tuple[NoGo, ...] = ()
    """Every base standing in a no-go feature (each with its deepest feature), the deepest first
    and this one first (a judge moves each one); empty when :attr:`ok` or with ``first_hit``."""

    @property
    def ok(self) -> bool:
        """The base does not stand in the feature (touching its edge is allowed)."""
        return self.distance >= -TOLERANCE_IN


def every_in_no_go(fps: Sequence[Footprint], features: Sequence[tuple[str, Polygon]], lower_bounds: np.ndarray,
                   measure: Callable[[list[tuple[Footprint, Footprint]]], np.ndarray] | None = None
                   ) -> tuple[NoGo, ...]:
    """Every base of ``fps`` standing in one of ``features`` (the predicate of :attr:`NoGo.ok`),
    each with its deepest feature (the first on a tie), the deepest first (the lower index on a
    tie). Exact distances only for the pairs whose lower bound (``lower_bounds``, features x
    bases, :func:`no_go_lower_bounds`) is below ``-TOLERANCE_IN``: no other pair can overlap (a
    bound is exact or smaller wherever the base's centre is outside the feature, and minus the
    outer radius where it is inside)."""
    deepest: dict[int, NoGo] = {}
    for k, i in zip(*np.nonzero(lower_bounds < -TOLERANCE_IN), strict=True):
        fid, poly = features[int(k)]
        d = distance_to_polygon(fps[int(i)], poly, measure)
        hit = NoGo(d, int(i), fid)
        if not hit.ok and (int(i) not in deepest or d < deepest[int(i)].distance):
            deepest[int(i)] = hit
    return tuple(sorted(deepest.values(), key=lambda g: (g.distance, g.index)))


_CENTRE_CLEAR_IN = 1e-9
"""A round base's centre this far outside a feature is outside it for every predicate (no
rounding of the centre's distance can put it inside): its lower bound is its exact distance."""


def no_go_lower_bounds(fps: Sequence[Footprint], features: Sequence[tuple[str, Polygon]]) -> np.ndarray:
    """The lower bounds :func:`closest_no_go` orders its exact distances by, for every base of
    ``fps`` against every feature: an array (features x bases) of inches (centre distance less
    the outer radius; for ovals the distance to a circumscribed polygon where larger): the centres'
    distances in one vectorised pass (:func:`~planner.geometry.shapes.point_distances`, shapely's
    floats), one distance call per feature for the ovals. A caller checking many groups of the same bases (the
    checker, every unit on the table) makes it once and passes its columns."""
    radii = np.array([f.outer_radius for f in fps])
    out: np.ndarray = point_distances([poly for _, poly in features], np.array([f.cx for f in fps]),
                                      np.array([f.cy for f in fps])) - radii
    ovals = [i for i, f in enumerate(fps) if f.kind == "ellipse"]
    if ovals:  # an oval's outer radius is a weak bound: use a circumscribing polygon
        shells = [fps[i].polygon(circumscribed=True) for i in ovals]
        for k, (_, poly) in enumerate(features):
            d = shapely.distance(poly, shells)
            out[k, ovals] = np.maximum(out[k, ovals], np.where(d > 0, d, -np.inf))
    return out


def closest_no_go(fps: Sequence[Footprint], features: Sequence[tuple[str, Polygon]], *,
                  first_hit: bool = False, lower_bounds: np.ndarray | None = None,
                  measure: Callable[[list[tuple[Footprint, Footprint]]], np.ndarray] | None = None) -> NoGo | None:
    """Rule "no model in impassable terrain or inside a solid feature": the closest base/feature
    pair over ``features`` ((id, polygon) pairs), exact, or None if there are no features. When a
    base stands in a feature (and not ``first_hit``): the deepest such pair, with every base
    standing in one (:attr:`NoGo.inside`, :func:`every_in_no_go`).

    Exact distances are taken in order of a cheap lower bound (:func:`no_go_lower_bounds`;
    ``lower_bounds``: those bounds already made, features x bases), stopping when no pair can be
    closer. For a round base whose centre is more than ``_CENTRE_CLEAR_IN`` outside the
    feature the bound is the exact distance (the centre's distance less the radius, the same
    floats as :func:`~planner.geometry.shapes.distance_to_polygon`), so it is taken as it is. With ``first_hit`` the search stops at the first base standing in a feature (what a
    judge needs: the verdict, not the closest pair). ``measure``: passed to
    :func:`~planner.geometry.shapes.distance_to_polygon` (a caller's cache of oval distances).
    """
    if not features or not fps:
        return None
    lb = no_go_lower_bounds(fps, features) if lower_bounds is None else lower_bounds
    # pairs in the order of (bound, base, feature): flat index i * features + k, sorted stably
    n_k = len(features)
    flat = lb.T.ravel()
    order = np.argsort(flat, kind="stable")
    best: NoGo | None = None
    for idx, bound in zip(order.tolist(), flat[order].tolist(), strict=True):
        i, k = divmod(idx, n_k)
        if best is not None and bound >= best.distance:
            break
        if first_hit and bound > TOLERANCE_IN:
            break  # no later pair can overlap either
        fid, poly = features[k]
        f = fps[i]
        if f.kind == "circle" and bound > _CENTRE_CLEAR_IN - f.a:
            d = bound  # the centre clear of the feature: the bound is distance_to_polygon's value
        else:
            d = distance_to_polygon(f, poly, measure)
        if best is None or d < best.distance:
            best = NoGo(d, i, fid)
            if first_hit and not best.ok:
                return best
    if best is not None and not best.ok and not first_hit:
        inside = every_in_no_go(fps, features, lb, measure)
        if inside:  # the deepest first (the search above stops at the first bound past the closest found)
            return NoGo(inside[0].distance, inside[0].index, inside[0].feature, inside)
    return best


def first_overlap(fps: Sequence[Footprint], others: Sequence[tuple[str, Footprint]],
                  arrays: tuple[np.ndarray, np.ndarray] | None = None) -> str | None:
    """Rule "no two bases overlap": the id paired with the first base of ``others`` that some base
    of ``fps`` overlaps (exact; touching is not overlapping), or None. Bounding discs first,
    vectorised; exact tests only where they meet. ``arrays``: the centres (n, 2) and outer radii
    (n,) of ``others``, when the caller keeps them across calls."""
    if not others or not fps:
        return None
    if arrays is None:
        xy = np.array([[f.cx, f.cy] for _, f in others])
        r = np.array([f.outer_radius for _, f in others])
    else:
        xy, r = arrays
    cx = np.array([[f.cx, f.cy] for f in fps])
    cr = np.array([f.outer_radius for f in fps])
    gap = np.hypot(cx[:, None, 0] - xy[None, :, 0], cx[:, None, 1] - xy[None, :, 1]) - cr[:, None] - r[None, :]
    for i, j in zip(*np.nonzero(gap <= 0), strict=True):
        if overlaps(others[j][1], fps[i]):
            return others[int(j)][0]
    return None


def minimum_width(fp: Footprint) -> float:
    """The least width of a base over every orientation (inches): a circle's diameter, an
    ellipse's minor axis, a convex polygon's least distance between parallel supporting lines
    (attained at one of its edges' normals, exact); 0 for a segment."""
    if fp.kind == "circle":
        return 2 * fp.a
    if fp.kind == "ellipse":
        return 2 * min(fp.a, fp.b)
    if fp.kind != "polygon" or len(fp.verts) < 3:
        return 0.0
    v = np.asarray(fp.verts, dtype=float)
    best = float("inf")
    for k in range(len(v)):
        a, b = v[k], v[(k + 1) % len(v)]
        ex, ey = b - a
        n = float(np.hypot(ex, ey))
        if n == 0:
            continue
        dist = np.abs((v[:, 0] - a[0]) * ey - (v[:, 1] - a[1]) * ex) / n
        best = min(best, float(dist.max()))
    return best


def too_large_for_edge(fp: Footprint, edge_in: float) -> bool:
    """A model "too large to fit wholly within" ``edge_in`` of a battlefield edge: in no
    orientation is its base less than or equal to that wide (11E-CORE-A 03.02)."""
    return minimum_width(fp) > edge_in + TOLERANCE_IN


def edge_gap(fp: Footprint, bounds: tuple[float, float, float, float]) -> float:
    """How far the base is from its nearest battlefield edge (inches; 0 or less: touching it or
    over it). ``bounds``: the battlefield (x0, y0, x1, y1)."""
    x0, y0, x1, y1 = bounds
    s = fp.support_many(np.array([1.0, -1.0, 0.0, 0.0]), np.array([0.0, 0.0, 1.0, -1.0]))
    max_x, min_x, max_y, min_y = float(s[0]), -float(s[1]), float(s[2]), -float(s[3])
    return min(min_x - x0, x1 - max_x, min_y - y0, y1 - max_y)
