"""Line of sight between model volumes across line-of-sight-blocking terrain pieces (2.5D).

Heights (issue #15): every obstacle may have a top (``Obstacle.height``, inches; None: as high
as any line, what every obstacle meant before heights) and a pair of models may be given their
``tops`` (floor ``z`` plus the model's height). A sees B if some straight segment from a point of
A's volume to a point of B's passes above every piece it crosses (a piece blocks where its top is
higher than the segment there, by more than ``TOLERANCE_IN``). The highest segments join the two
tops, so the question is one about lines in the plane: pieces higher than both tops block as in
the plane, pieces no higher than the lower top never block, and the ones in between block part
of a line (:func:`line_of_sight` says how that stays a proof). With no heights, or no ``tops``,
everything below is the whole method, unchanged.

Definition used (HH2 true line of sight reduced to the table plane, as the issue states it):
unit A can draw line of sight to unit B when a straight line from *some point of some model's
base* in A to *some point of some model's base* in B crosses the interior of no blocking
footprint. Solid features (buildings, walls) block every such line; area features (ruins,
woods) block it unless the observing or the target model stands in that feature (partly or
wholly, per feature). Models do not block. A line that only grazes a footprint's edge or corner
is clear.

Method, and why a "hidden" verdict is sound
-------------------------------------------
For one pair of bases A, B with obstacles O (open sets):

1. Obstacles that do not meet the convex hull of A and B are irrelevant (every segment from A to
   B lies in that hull). None left: visible.
2. A few direct segments (centre to centre, and between the bases' extreme points) are tested;
   any clear one proves visibility and is kept as evidence.
3. *Separation proof*: if, inside the hull H of (circumscribed polygons of) A and B, the
   obstacles cut every part of A off from every part of B, no segment can be clear: hidden.
4. Otherwise an exact search over *critical lines*. If some clear segment exists, one exists
   on a line where two constraints meet: the line is a supporting (tangent) line of A or of B,
   or passes through an obstacle vertex or a point where an obstacle edge crosses A's or B's
   outline (a clear segment can be slid and turned until two such contacts stop it; the range of
   directions of lines meeting both A and B is an interval, so a free region has such a corner).
   The candidates -- the edge lines of A and B, the tangents to each from every vertex of the
   other, the tangents to A and to B from every obstacle point, and the lines through every two
   obstacle points -- are tested at once with numpy and shapely's vectorised predicates. Round and oval bases enter as *circumscribed* polygons, which contain
   the true base: "no clear segment between the bigger shapes" implies none between the true
   ones, so hidden is never claimed wrongly; a clear segment found between the bigger shapes is
   re-checked against inscribed polygons; if only the bigger shapes see each other, the search
   is repeated with circumscribed and inscribed 512-gons (none between the bigger 512-gons: hidden;
   a remaining gap of under 0.0001" reads as visible, the side that can never make an illegal
   Infiltrate look legal). Obstacles are shrunk by 1e-7" so floating-point noise on grazing lines
   reads as clear; critical points are taken from the unshrunk obstacles, so a line through them
   grazes and is clear.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

import numpy as np
import shapely
from shapely.geometry import LineString, MultiPoint, Polygon
from shapely.geometry.base import BaseGeometry
from shapely.ops import unary_union

from planner.geometry.shapes import Footprint, polygons, signed_distance
from planner.units import TOLERANCE_IN

_SHRINK = 1e-7
_N_POLY = 64
_CHORD_EPS = 1e-9
_N_FINE = 512


@dataclass(frozen=True)
class Obstacle:
    """A blocking footprint: the terrain feature id and its polygon (inches).

    ``height`` is the top of the piece above the table (inches); None: as high as any line (it
    blocks every line crossing it, what every obstacle meant before heights). ``piece`` names the
    piece or wall of the feature (for evidence), e.g. ``'pieces[1]'`` or ``'walls[0]'``.
    """

    id: str
    polygon: Polygon  # a MultiPolygon too, where pieces of one height lie apart
    height: float | None = None
    piece: str = ""


@dataclass(frozen=True)
class Sight:
    """Verdict for one pair of bases.

    ``visible``: a clear line exists; ``segment`` is one such line (evidence).
    ``blocking``: when hidden, the obstacles that stand between the two bases.
    """

    visible: bool
    segment: tuple[tuple[float, float], tuple[float, float]] | None = None
    blocking: tuple[str, ...] = ()
    proven: bool = True
    """False only for a "visible" verdict that is not proven: the 2.5D search found neither a
    clear line nor a proof of hidden (read as visible, the side that never makes an illegal
    Infiltrate look legal)."""


def _shrunk(obstacles: Sequence[Obstacle]) -> list[Polygon]:
    """The obstacles merged, then shrunk by 1e-7": features that touch along an edge (a wall
    built from two rectangles) block as one, with no seam to see through."""
    return shrunk_union([o.polygon for o in obstacles])


_SHRUNK_CACHE: dict[tuple[int, ...], tuple[tuple[Polygon, ...], list[Polygon]]] = {}
_SHRUNK_CACHE_MAX = 512
"""Shrunk unions by the identities of their polygons (the same table pieces come back for
every pair of a check); each entry keeps its polygons alive, so an identity is never reused
while its entry stands."""


def shrunk_union(polygons: Sequence[Polygon]) -> list[Polygon]:
    """Union of blocking footprints, shrunk by the grazing margin, as a list of polygons
    (cached per tuple of polygons; a new list each call, the polygons shared and prepared)."""
    if not polygons:
        return []
    key = tuple(id(p) for p in polygons)
    hit = _SHRUNK_CACHE.get(key)
    if hit is not None:
        return list(hit[1])
    merged = unary_union(list(polygons)).buffer(-_SHRINK, join_style="mitre")
    parts = [] if merged.is_empty else [g for g in getattr(merged, "geoms", [merged]) if not g.is_empty]
    for g in parts:
        shapely.prepare(g)  # the same answers, faster where the part comes first in a predicate
    if len(_SHRUNK_CACHE) >= _SHRUNK_CACHE_MAX:
        _SHRUNK_CACHE.pop(next(iter(_SHRUNK_CACHE)))
    _SHRUNK_CACHE[key] = (tuple(polygons), parts)
    return list(parts)


_MERGED_CACHE: dict[tuple[int, ...], tuple[tuple[Polygon, ...], BaseGeometry]] = {}


def _merged(blockers: list[Polygon]) -> BaseGeometry:
    """``unary_union(blockers)``, prepared, cached per tuple of (shrunk, cached) parts like
    :func:`shrunk_union` (each entry keeps its parts alive)."""
    key = tuple(id(b) for b in blockers)
    hit = _MERGED_CACHE.get(key)
    if hit is not None:
        return hit[1]
    union = unary_union(blockers)
    shapely.prepare(union)
    if len(_MERGED_CACHE) >= _SHRUNK_CACHE_MAX:
        _MERGED_CACHE.pop(next(iter(_MERGED_CACHE)))
    _MERGED_CACHE[key] = (tuple(blockers), union)
    return union


def _segment_clear(p: tuple[float, ...], q: tuple[float, ...], blockers: list[Polygon]) -> bool:
    line = LineString([p, q]) if p != q else shapely.Point(p)
    return not any(b.intersects(line) for b in blockers)


def _first_clear(P: np.ndarray, Q: np.ndarray, blockers: list[Polygon], chunk: int = 0) -> int | None:
    """Index of the first segment P[i] -> Q[i] that meets none of ``blockers`` (None: all
    blocked): :func:`_segment_clear` for many segments in vectorised calls, the first
    ``chunk`` segments alone first (a clear one there saves testing the others)."""
    if 0 < chunk < len(P):
        k = _first_clear(P[:chunk], Q[:chunk], blockers)
        if k is not None:
            return k
        k = _first_clear(P[chunk:], Q[chunk:], blockers)
        return None if k is None else k + chunk
    lines = np.asarray(shapely.linestrings(np.stack([P, Q], axis=1)), dtype=object)
    same = (P == Q).all(axis=1)
    if same.any():
        lines[same] = shapely.points(P[same])
    polys = np.asarray(blockers, dtype=object)
    lb, bb = shapely.bounds(lines), shapely.bounds(polys)
    # only pairs whose bounding boxes meet can intersect: the predicate runs on those alone
    near = ((lb[:, None, 0] <= bb[None, :, 2]) & (bb[None, :, 0] <= lb[:, None, 2])
            & (lb[:, None, 1] <= bb[None, :, 3]) & (bb[None, :, 1] <= lb[:, None, 3]))
    li, bi = np.nonzero(near)
    hit = np.zeros(len(lines), dtype=np.bool_)
    if len(li):
        hit[li[shapely.intersects(polys[bi], lines[li])]] = True  # the prepared blocker first
    free = np.nonzero(~hit)[0]
    return int(free[0]) if len(free) else None


def _meeting(obstacles: Sequence[Obstacle], geom: BaseGeometry) -> list[Obstacle]:
    """The obstacles whose polygons intersect ``geom``, in order (one vectorised predicate)."""
    if not obstacles:
        return []
    hit = shapely.intersects(np.asarray([o.polygon for o in obstacles], dtype=object), geom)
    return [o for o, h in zip(obstacles, hit.tolist(), strict=True) if h]


def _convex_parts(fp: Footprint, circumscribed: bool) -> Polygon:
    return fp.polygon(_N_POLY, circumscribed=circumscribed)


_FREE_MAX = 4
_FREE: dict[tuple[bytes, int], tuple[BaseGeometry, BaseGeometry]] = {}


def _free_space(hull: BaseGeometry, blocked: BaseGeometry) -> BaseGeometry:
    """``hull.difference(blocked)``, kept for the last :data:`_FREE_MAX` pairs: a hull of the
    same coordinates (its WKB) and the same ``blocked`` object (immutable) give the same overlay.
    Every hidden target of a player is proven against one group of observers whose hull usually
    holds the target already, so their proofs share one hull and one blocked union: one overlay
    of the whole table instead of one per target."""
    key = (shapely.to_wkb(hull), id(blocked))
    hit = _FREE.get(key)
    if hit is not None and hit[0] is blocked:
        return hit[1]
    free = hull.difference(blocked)
    try:
        while _FREE and len(_FREE) >= _FREE_MAX:
            _FREE.pop(next(iter(_FREE)), None)
    except (RuntimeError, StopIteration):  # another thread changed the store meanwhile
        _FREE.clear()
    _FREE[key] = (blocked, free)
    return free


def _separated(hull: BaseGeometry, a_poly: BaseGeometry | Sequence[BaseGeometry], b_poly: BaseGeometry,
               blocked: BaseGeometry, a_tree: shapely.STRtree | None = None, b_hull: BaseGeometry | None = None,
               a_points: np.ndarray | None = None) -> bool:
    """True if every path inside ``hull`` from ``a_poly`` to ``b_poly`` meets ``blocked``
    (``a_poly`` may be the members of a collection when ``a_tree``, their tree, is given).

    The free parts of the hull and their contacts are found with shapely's vectorised queries
    (one tree query, one distance call per side). ``a_tree``: :func:`outline_tree` of the
    members of ``a_poly`` (a collection), already built. ``b_hull``: the convex hull of
    ``b_poly``: a part farther than :data:`_HULL_CLEAR` from it is not within 1e-9" of
    ``b_poly`` (which it contains), so only the other parts are measured to ``b_poly``.
    ``a_points``: points inside ``a_poly``'s outlines (n x 2, e.g. the bases' centres): a part
    that holds one touches ``a_poly``; only the parts that hold none are measured to it."""
    free = _free_space(hull, blocked)
    if free.is_empty:
        return True
    parts = np.asarray(getattr(free, "geoms", [free]), dtype=object)
    n = len(parts)
    if a_points is None:
        ta = _touching(parts, a_poly, a_tree)
    else:  # a part holding a point of some outline touches it; the others are measured
        shapely.prepare(parts)
        ta = np.array([bool(shapely.intersects_xy(g, a_points[:, 0], a_points[:, 1]).any()) for g in parts],
                      dtype=np.bool_)
        rest = np.nonzero(~ta)[0]
        if len(rest):
            ta[rest] = _touching(parts[rest], a_poly, a_tree)
    if b_hull is None:
        tb = _touching(parts, b_poly)
    else:
        tb = np.zeros(n, dtype=np.bool_)
        shapely.prepare(b_hull)  # a screen with a margin: the prepared within-distance test
        near = np.nonzero(shapely.dwithin(b_hull, parts, _HULL_CLEAR))[0]
        if len(near):
            tb[near] = _touching(parts[near], b_poly)
    if not ta.any() or not tb.any():
        return True
    if (ta & tb).any():
        return False
    parent = list(range(n))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    left, right = shapely.STRtree(parts).query(parts, predicate="dwithin", distance=1e-9)
    for i, j in zip(left.tolist(), right.tolist(), strict=True):
        if j > i:
            parent[find(i)] = find(j)
    roots_a = {find(i) for i in np.nonzero(ta)[0].tolist()}
    return not any(find(i) in roots_a for i in np.nonzero(tb)[0].tolist())


_HULL_CLEAR = 1e-9 + 1e-12
"""A free part farther than this (inches) from the hull of a group of outlines is farther than
the contact distance (1e-9") from each of them, whatever the rounding of the two distances
(about 1e-14" on a battlefield): it is not measured to the outlines."""

_TREE_MIN = 8
"""Outlines in a collection above which contacts are found through a tree over its members."""


def outline_tree(members: Sequence[BaseGeometry]) -> shapely.STRtree | None:
    """The tree :func:`_touching` measures a collection of ``members`` through (None for
    ``_TREE_MIN`` or fewer: measured directly); a caller proving many targets against one
    group of outlines builds it once and passes it to :func:`outlines_separated`."""
    return shapely.STRtree(list(members)) if len(members) > _TREE_MIN else None


def _touching(parts: np.ndarray, geom: BaseGeometry | Sequence[BaseGeometry], tree: shapely.STRtree | None = None
              ) -> np.ndarray:
    """For each of ``parts``: is it within 1e-9" of ``geom``? For a collection of many
    geometries (a group of observer units), through a tree over its members (``tree``: that
    tree, :func:`outline_tree`, already built)."""
    members = getattr(geom, "geoms", None)
    if tree is None and isinstance(geom, shapely.GeometryCollection) and members is not None:
        tree = outline_tree(members)
    if tree is not None:
        hit = np.zeros(len(parts), dtype=np.bool_)
        idx = tree.query(parts, predicate="dwithin", distance=1e-9)[0]
        hit[idx] = True
        return hit
    return np.asarray(shapely.distance(parts, geom) <= 1e-9, dtype=np.bool_)


def _chord(px: np.ndarray, py: np.ndarray, dx: np.ndarray, dy: np.ndarray,
           poly_xy: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Parameter interval [t0, t1] where lines p + t d meet the convex polygon (vectorised)."""
    v = poly_xy
    e = np.roll(v, -1, axis=0) - v  # edges, counter-clockwise
    nx, ny = e[:, 1], -e[:, 0]  # outward normals for a ccw polygon
    ln = np.hypot(nx, ny)
    ln[ln == 0] = 1.0
    nx, ny = nx / ln, ny / ln  # unit normals: num is a distance, den a cosine
    c = nx * v[:, 0] + ny * v[:, 1]
    num = c[None, :] - (nx[None, :] * px[:, None] + ny[None, :] * py[:, None])
    den = nx[None, :] * dx[:, None] + ny[None, :] * dy[:, None]
    par = np.abs(den) < 1e-12
    with np.errstate(divide="ignore", invalid="ignore"):
        t = num / den
    t0 = np.where(~par & (den < 0), t, -np.inf).max(axis=1)
    t1 = np.where(~par & (den > 0), t, np.inf).min(axis=1)
    parallel_out = (par & (num < -_CHORD_EPS)).any(axis=1)
    # a line through a vertex touches the polygon in one point: rounding may give t0 a hair
    # above t1 there, and such lines are exactly the critical ones, so allow a tiny slack
    ok = (t0 <= t1 + _CHORD_EPS) & ~parallel_out
    t1 = np.where(ok, np.maximum(t0, t1), t1)
    return t0, t1, ok


def _ccw(poly: Polygon) -> np.ndarray:
    p = shapely.orient_polygons(poly) if hasattr(shapely, "orient_polygons") else shapely.geometry.polygon.orient(poly)
    return np.asarray(p.exterior.coords)[:-1]


def _tangent_vertices(P: np.ndarray, V: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For points P (outside convex polygon V), the two vertices of V touched by tangent lines."""
    c = V.mean(axis=0)
    rel = V[None, :, :] - P[:, None, :]
    to_c = (c - P)[:, None, :]
    cross = to_c[..., 0] * rel[..., 1] - to_c[..., 1] * rel[..., 0]
    dot = (to_c * rel).sum(axis=2)
    ang = np.arctan2(cross, dot)
    return V[np.argmin(ang, axis=1)], V[np.argmax(ang, axis=1)]


def _critical_lines(a_poly: Polygon, b_poly: Polygon, blockers: list[Polygon], hull: BaseGeometry
                    ) -> tuple[np.ndarray, ...] | None:
    """The critical lines between two convex polygons (see :func:`_critical_search`), as arrays
    (px, py, dx, dy, ta0, ta1, tb0, tb1): a point and unit direction of each line and the
    parameter intervals where it meets ``a_poly`` and ``b_poly``; None if no line meets both."""
    av = _ccw(a_poly)
    bv = _ccw(b_poly)
    obs = []
    parts = [g for bl in blockers for g in getattr(bl, "geoms", [bl])]  # pieces apart come as a MultiPolygon
    for bl in parts:
        inter = bl.intersection(hull.buffer(1e-6))
        if inter.is_empty:
            continue
        for g in getattr(inter, "geoms", [inter]):
            if isinstance(g, Polygon):
                obs.append(np.asarray(g.exterior.coords)[:-1])
                for r in g.interiors:
                    obs.append(np.asarray(r.coords)[:-1])
        for outline in (a_poly.exterior, b_poly.exterior):
            x = bl.exterior.intersection(outline)
            if not x.is_empty:
                obs.append(shapely.get_coordinates(x))
    pts_o = np.unique(np.round(np.vstack(obs), 12), axis=0) if obs else np.zeros((0, 2))
    starts = [av, bv]
    ends = [np.roll(av, -1, axis=0), np.roll(bv, -1, axis=0)]
    for src, poly in ((av, bv), (bv, av)):
        t1, t2 = _tangent_vertices(src, poly)
        starts += [src, src]
        ends += [t1, t2]
    if len(pts_o):
        a_shape, b_shape = Polygon(av), Polygon(bv)
        for V, shape in ((av, a_shape), (bv, b_shape)):
            outside = ~shapely.contains_xy(shape, pts_o[:, 0], pts_o[:, 1])
            Po = pts_o[outside]
            if len(Po):
                t1, t2 = _tangent_vertices(Po, V)
                starts += [Po, Po]
                ends += [t1, t2]
        if len(pts_o) >= 2:
            ii, jj = np.triu_indices(len(pts_o), 1)
            starts.append(pts_o[ii])
            ends.append(pts_o[jj])
    return _lines_through(np.vstack(starts), np.vstack(ends), av, bv)


def _lines_through(S: np.ndarray, E: np.ndarray, av: np.ndarray, bv: np.ndarray) -> tuple[np.ndarray, ...] | None:
    """Lines through point pairs S[i], E[i] that meet both convex polygons (ccw vertices ``av``,
    ``bv``), with their chords, as in :func:`_critical_lines`."""
    px, py = S[:, 0], S[:, 1]
    dx, dy = E[:, 0] - px, E[:, 1] - py
    norm = np.hypot(dx, dy)
    keep = norm > 1e-12
    px, py, dx, dy = px[keep], py[keep], dx[keep] / norm[keep], dy[keep] / norm[keep]
    ta0, ta1, oka = _chord(px, py, dx, dy, av)
    tb0, tb1, okb = _chord(px, py, dx, dy, bv)
    ok = oka & okb
    if not ok.any():
        return None
    return px[ok], py[ok], dx[ok], dy[ok], ta0[ok], ta1[ok], tb0[ok], tb1[ok]


def _critical_search(a_poly: Polygon, b_poly: Polygon, blockers: list[Polygon], blocked_union: BaseGeometry,
                     hull: BaseGeometry) -> tuple[tuple[float, float], tuple[float, float]] | None:
    """Exact search for a clear segment between two convex polygons; returns one or None.

    Critical lines: the edge lines of both polygons; the tangents to each polygon from every
    vertex of the other; the tangents to both polygons from every obstacle point (obstacle
    vertices, and points where an obstacle edge crosses a polygon's outline); and the lines
    through every two obstacle points.
    """
    found = _critical_lines(a_poly, b_poly, blockers, hull)
    if found is None:
        return None
    px, py, dx, dy, ta0, ta1, tb0, tb1 = found
    s = np.where(ta1 < tb0, ta1, np.where(tb1 < ta0, tb1, np.maximum(ta0, tb0)))
    e = np.where(ta1 < tb0, tb0, np.where(tb1 < ta0, ta0, np.maximum(ta0, tb0)))
    x0, y0 = px + s * dx, py + s * dy
    x1, y1 = px + e * dx, py + e * dy
    coords = np.stack([np.column_stack([x0, y0]), np.column_stack([x1, y1])], axis=1)
    lines = shapely.linestrings(coords)
    hits = shapely.intersects(blocked_union, lines)  # a prepared union is used where it comes first
    free = np.nonzero(~hits)[0]
    if len(free) == 0:
        return None
    k = int(free[0])
    return (float(x0[k]), float(y0[k])), (float(x1[k]), float(y1[k]))


def _line_of_sight_2d(a: Footprint, b: Footprint, obstacles: Sequence[Obstacle]) -> Sight:
    """Can a straight line join some point of base ``a`` to some point of base ``b`` unblocked (in the plane)?

    Parameters
    ----------
    a, b : Footprint
        The two bases (inches).
    obstacles : sequence of Obstacle
        The footprints that block this pair (area terrain either model stands in already removed).

    Returns
    -------
    Sight
        ``visible`` with a clear segment as evidence, or hidden with the blocking feature ids.
        Hidden verdicts are sound (see the module docstring).
    """
    a_out = _convex_parts(a, True)
    b_out = _convex_parts(b, True)
    hull = _points_hull(a_out, b_out)
    relevant = _meeting(obstacles, hull)
    centre = ((a.cx, a.cy), (b.cx, b.cy))
    if not relevant:
        return Sight(True, centre)
    blockers = _shrunk(relevant)
    blockers = [bl for bl in blockers if bl.intersects(hull)]
    if not blockers:
        return Sight(True, centre)
    if signed_distance(a, b) <= 0:
        return Sight(True, centre)  # touching or overlapping bases see each other
    # 2. quick direct segments between the true bases
    if _segment_clear(*centre, blockers):
        return Sight(True, centre)
    a_in = _convex_parts(a, False)
    b_in = _convex_parts(b, False)
    av = np.asarray(a_in.exterior.coords)[:-1:8]
    bv = np.asarray(b_in.exterior.coords)[:-1:8]
    ii, jj = np.divmod(np.arange(len(av) * len(bv)), len(bv))  # the order of itertools.product
    k = _first_clear(av[ii], bv[jj], blockers, chunk=len(bv))
    if k is not None:
        p, q = av[ii[k]], bv[jj[k]]
        return Sight(True, ((float(p[0]), float(p[1])), (float(q[0]), float(q[1]))))
    blocked_union = _merged(blockers)
    ids = tuple(dict.fromkeys(o.id for o in relevant))
    # 3. separation proof
    if _separated(hull, a_out, b_out, blocked_union):
        return Sight(False, None, ids)
    # 4. exact critical-line search on the circumscribed polygons (sound for hidden)
    # critical points come from the unshrunk obstacles: a line through a vertex of a shrunk
    # obstacle touches it and would read as blocked, while one through the true vertex grazes
    # (clear) and misses the shrunk obstacle by the shrink margin
    outlines = [o.polygon for o in relevant]
    found = _critical_search(a_out, b_out, outlines, blocked_union, hull)
    if found is None:
        return Sight(False, None, ids)
    # evidence on the true bases where possible
    exact = _critical_search(a_in, b_in, outlines, blocked_union, hull)
    if exact is not None:
        return Sight(True, exact)
    # only the 64-gons that contain the bases see each other: settle it with finer polygons
    # (circumscribed 512-gons still contain the bases, so "none" there is a sound hidden)
    a_fine, b_fine = a.polygon(_N_FINE, circumscribed=True), b.polygon(_N_FINE, circumscribed=True)
    # a 512-gon's vertices may stick out of the 64-gon's edges by ~2e-5 r: widen the hull to hold both
    hull_fine = _points_hull(hull, a_fine, b_fine)
    fine = _critical_search(a_fine, b_fine, outlines, blocked_union, hull_fine)
    if fine is None:
        return Sight(False, None, ids)
    exact = _critical_search(a.polygon(_N_FINE), b.polygon(_N_FINE), outlines, blocked_union, hull_fine)
    return Sight(True, exact or fine)


Tops = tuple[float, float]
"""The tops of two model volumes above the table, ``z + height`` (inches)."""


def split_by_height(obstacles: Sequence[Obstacle], low: float, high: float) -> tuple[list[Obstacle], list[Obstacle]]:
    """Obstacles for lines between two volumes whose tops are ``low`` <= ``high`` (inches).

    Returns (full, partial): ``full`` block wherever a line crosses them (no height, or a top
    higher than ``high``: every line is lower); ``partial`` may block some lines (a top higher
    than ``low`` but not than ``high``). The others (top not higher than ``low``) never block: a
    line is never lower than its lower end. "Higher" is by more than ``TOLERANCE_IN``: a line at
    exactly a wall's height passes over it.
    """
    full: list[Obstacle] = []
    partial: list[Obstacle] = []
    for o in obstacles:
        if o.height is None or o.height > high + TOLERANCE_IN:
            full.append(o)
        elif o.height > low + TOLERANCE_IN:
            partial.append(o)
    return full, partial


def line_of_sight(a: Footprint, b: Footprint, obstacles: Sequence[Obstacle], tops: Tops | None = None) -> Sight:
    """Can a straight segment join some point of model volume ``a`` to some point of volume ``b``
    passing above every obstacle it crosses (2.5D line of sight)?

    Parameters
    ----------
    a, b : Footprint
        The two bases (inches).
    obstacles : sequence of Obstacle
        The pieces that block this pair (area terrain either model stands in already removed),
        each with its top height (None: as high as any line).
    tops : (float, float), optional
        The tops of the two volumes above the table (``z + height``, inches). None, or no
        obstacle with a height: the plane test, every obstacle blocking every line crossing it.

    Returns
    -------
    Sight
        ``visible`` with a clear segment as evidence, or hidden with the blocking feature ids.
        Hidden verdicts are sound: a segment is highest when it joins the two tops, so only its
        plan position matters; obstacles higher than both tops block as in the plane, those not
        higher than the lower top never block, and one in between blocks a line where the line
        is lower than its top. Hidden is claimed only when the plane test proves it with every
        in-between obstacle cut down to its *core* (the grid cells where every segment between
        the two bases passes lower than its top, bounded with the bases' outer radii). A clear
        line is searched for among the plane's critical lines and lines between outline points,
        each lifted to the two tops at its best end points; if neither is found the verdict is
        "visible" with ``proven=False`` (never a guessed hidden).
    """
    if tops is None or all(o.height is None for o in obstacles):
        return _line_of_sight_2d(a, b, obstacles)
    ta, tb = tops
    full, partial = split_by_height(obstacles, min(ta, tb), max(ta, tb))
    if not partial:
        return _line_of_sight_2d(a, b, full)
    every = _line_of_sight_2d(a, b, full + partial)
    if every.visible:
        return every  # clear of every piece in the plane: clear at any height
    ids = tuple(dict.fromkeys(o.id for o in full + partial))
    cores = [c for o in partial if (c := _core(o, a, b, ta, tb)) is not None]
    cored = _line_of_sight_2d(a, b, full + cores)
    if not cored.visible:
        return Sight(False, None, ids)
    seg = _search_3d(a, b, full, partial, (ta, tb), cored.segment)
    if seg is not None:
        return Sight(True, seg)
    return Sight(True, None, ids, proven=False)


_CORE_CELLS = 24


def _core(o: Obstacle, a: Footprint, b: Footprint, ta: float, tb: float) -> Obstacle | None:
    """The part of in-between obstacle ``o`` that every segment from base ``a`` (top ``ta``) to
    base ``b`` (top ``tb``) crossing it passes lower than its top: a union of grid cells, each
    kept when a bound holds over the whole cell (sound), or None if no cell is kept."""
    assert o.height is not None
    low, high, t_low, t_high = (a, b, ta, tb) if ta <= tb else (b, a, tb, ta)
    # along a segment from the lower end, the height at fraction s is t_low + (t_high - t_low) s;
    # the piece blocks there if its top is higher by more than the tolerance: s < s_star
    s_star = (o.height - TOLERANCE_IN - t_low) / (t_high - t_low)
    minx, miny, maxx, maxy = o.polygon.bounds
    cell = max(maxx - minx, maxy - miny) / _CORE_CELLS
    if cell <= 0:
        return None
    nx, ny = max(1, math.ceil((maxx - minx) / cell)), max(1, math.ceil((maxy - miny) / cell))
    ex, ey = minx + np.arange(nx + 1) * cell, miny + np.arange(ny + 1) * cell  # shared cell edges: no seams
    x0, y0 = np.meshgrid(ex[:-1], ey[:-1])
    x1, y1 = np.meshgrid(ex[1:], ey[1:])
    x0, y0, x1, y1 = x0.ravel(), y0.ravel(), x1.ravel(), y1.ravel()
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    half_diag = cell * math.sqrt(0.5) + 1e-9
    # the fraction s of a point x on a segment from p (in the lower base) to q (in the higher) is
    # |px| / (|px| + |xq|), at most far / (far + near) with far >= |px|, near <= |xq|: far is the
    # farthest vertex of the lower base's circumscribed polygon, near the distance to the higher
    # base's circumscribed polygon (both contain the true bases), each widened by the cell
    lv = np.asarray(low.polygon(_N_POLY, circumscribed=True).exterior.coords)[:-1]
    far = np.hypot(cx[:, None] - lv[None, :, 0], cy[:, None] - lv[None, :, 1]).max(axis=1) + half_diag + 1e-9
    near = np.maximum(shapely.distance(high.polygon(_N_POLY, circumscribed=True), shapely.points(cx, cy))
                      - half_diag - 1e-9, 0.0)
    keep = far < s_star * (far + near)
    if not keep.any():
        return None
    if keep.all():
        return Obstacle(o.id, o.polygon, None, o.piece)
    boxes = shapely.box(x0[keep], y0[keep], x1[keep], y1[keep])
    region = shapely.union_all(boxes).intersection(o.polygon)
    if region.is_empty or region.area <= 0:
        return None
    return Obstacle(o.id, cast(Polygon, region), None, o.piece)


def _search_3d(a: Footprint, b: Footprint, full: list[Obstacle], partial: list[Obstacle], tops: Tops,
               hint: tuple[tuple[float, float], tuple[float, float]] | None
               ) -> tuple[tuple[float, float], tuple[float, float]] | None:
    """A segment between points of the true bases that crosses no ``full`` obstacle and passes
    above every ``partial`` one it crosses, or None: tried on the plane's critical lines, on lines
    between outline points of the two bases and on ``hint``, each with its end points chosen to
    lift it most (the lower end as far back in its base as the line allows, the higher end at
    the near side of its base) and with the shortest end points."""
    a_in, b_in = _convex_parts(a, False), _convex_parts(b, False)
    av, bv = _ccw(a_in), _ccw(b_in)
    hull = _points_hull(a_in, b_in)
    sets = []
    crit = _critical_lines(a_in, b_in, [o.polygon for o in full + partial], hull)
    if crit is not None:
        sets.append(crit)
    pa, pb = av[::2], bv[::2]
    ii, jj = np.meshgrid(np.arange(len(pa)), np.arange(len(pb)))
    S, E = pa[ii.ravel()], pb[jj.ravel()]
    if hint is not None:
        S, E = np.vstack([np.asarray([hint[0]]), S]), np.vstack([np.asarray([hint[1]]), E])
    sampled = _lines_through(S, E, av, bv)
    if sampled is not None:
        sets.insert(0, sampled)
    if not sets:
        return None
    px, py, dx, dy, a0, a1, b0, b1 = (np.concatenate(parts) for parts in zip(*sets, strict=True))
    ta, tb = tops
    a_first = (a0 + a1) < (b0 + b1)
    near_a, far_a = np.where(a_first, a1, a0), np.where(a_first, a0, a1)
    near_b, far_b = np.where(a_first, b0, b1), np.where(a_first, b1, b0)
    if ta < tb:
        lifted = (far_a, near_b)
    else:
        lifted = (near_a, far_b)
    blocked_full = unary_union(_shrunk(full)) if full else None
    shrunk_partial = [(o, o.polygon.buffer(-_SHRINK, join_style="mitre")) for o in partial]
    for sa, sb in (lifted, (near_a, near_b)):
        x0, y0 = px + sa * dx, py + sa * dy
        x1, y1 = px + sb * dx, py + sb * dy
        ok = _clear_3d(x0, y0, x1, y1, ta, tb, blocked_full, shrunk_partial)
        free = np.nonzero(ok)[0]
        if len(free):
            k = int(free[0])
            return (float(x0[k]), float(y0[k])), (float(x1[k]), float(y1[k]))
    return None


def _clear_3d(x0: np.ndarray, y0: np.ndarray, x1: np.ndarray, y1: np.ndarray, ta: float, tb: float,
              blocked_full: BaseGeometry | None, partial: Sequence[tuple[Obstacle, BaseGeometry]]) -> np.ndarray:
    """For segments (x0, y0, ta) -> (x1, y1, tb): True where the segment crosses no full
    obstacle and passes above every partial one (the height is linear along a segment, so its
    lowest point over a piece is where it enters or leaves it)."""
    lines = np.asarray(shapely.linestrings(np.stack([np.column_stack([x0, y0]), np.column_stack([x1, y1])], axis=1)))
    ok = np.ones(len(x0), dtype=np.bool_)
    if blocked_full is not None:
        ok = ok & ~np.asarray(shapely.intersects(lines, blocked_full), dtype=np.bool_)
    ux, uy = x1 - x0, y1 - y0
    ll = ux * ux + uy * uy
    ll[ll == 0] = 1.0
    for o, poly in partial:
        idx = np.nonzero(ok)[0]
        if not len(idx) or poly.is_empty:
            continue
        inter = shapely.intersection(lines[idx], poly)
        pts, which = shapely.get_coordinates(inter, return_index=True)
        if not len(pts):
            continue
        k = idx[which]
        frac = ((pts[:, 0] - x0[k]) * ux[k] + (pts[:, 1] - y0[k]) * uy[k]) / ll[k]
        z = ta + (tb - ta) * np.clip(frac, 0.0, 1.0)
        low = z + TOLERANCE_IN < cast(float, o.height)
        ok[np.unique(k[low])] = False
    return ok


@dataclass(frozen=True)
class Crossing:
    """Where a sight line crosses a piece: the feature id, the piece, the piece's top (None: as
    high as any line) and the lowest height of the line over the piece (inches)."""

    id: str
    piece: str
    top: float | None
    line_height: float
    at: tuple[float, float] = (0.0, 0.0)
    """The point (inches, in plan) where the line is lowest over the piece."""

    @property
    def blocks(self) -> bool:
        """The piece's top is higher than the line there (by more than the tolerance)."""
        return self.top is None or self.top > self.line_height + TOLERANCE_IN


def crossings(p: tuple[float, float], q: tuple[float, float], tops: Tops, obstacles: Sequence[Obstacle]
              ) -> list[Crossing]:
    """The pieces the segment from ``p`` (at height ``tops[0]``) to ``q`` (at ``tops[1]``)
    crosses in the plane, each with the lowest height of the segment over it (the evidence a
    picture or a report names: "passes wall X at 2.1\" over its 1\" top")."""
    line = LineString([p, q]) if p != q else None
    out: list[Crossing] = []
    if line is None:
        return out
    ux, uy = q[0] - p[0], q[1] - p[1]
    ll = ux * ux + uy * uy
    for o in obstacles:
        inter = line.intersection(o.polygon.buffer(-_SHRINK, join_style="mitre"))
        if inter.is_empty:
            continue
        pts = shapely.get_coordinates(inter)
        frac = np.clip(((pts[:, 0] - p[0]) * ux + (pts[:, 1] - p[1]) * uy) / ll, 0.0, 1.0)
        z = tops[0] + (tops[1] - tops[0]) * frac
        k = int(np.argmin(z))
        out.append(Crossing(o.id, o.piece, o.height, float(z[k]), (float(pts[k, 0]), float(pts[k, 1]))))
    return out


def group_separated(group_a: Sequence[Footprint], group_b: Sequence[Footprint], obstacles: Sequence[Obstacle]) -> bool:
    """Sound and cheap: True proves that *no* base of ``group_a`` sees any base of ``group_b``.

    Uses the separation proof on the hull of both groups. False means "not proven" only.
    """
    if not obstacles:
        return False
    a_union = outline_union(group_a)
    b_union = outline_union(group_b)
    return outlines_separated(a_union, b_union, obstacles)


def _points_hull(*geoms: BaseGeometry) -> BaseGeometry:
    """The convex hull of the vertices of ``geoms``."""
    points = shapely.multipoints(np.vstack([shapely.get_coordinates(g) for g in geoms]))
    return cast(MultiPoint, points).convex_hull


_HULL_DIRECTIONS = np.linspace(0.0, 2.0 * math.pi, 16, endpoint=False)


def outlines_hull(group: Sequence[Footprint], outlines: Sequence[BaseGeometry] | None = None) -> BaseGeometry:
    """The convex hull of the circumscribed outlines of ``group`` (``outlines``: those outlines,
    ``f.polygon(_N_POLY, circumscribed=True)`` of each, already made), the same polygon as
    ``GeometryCollection(outlines).convex_hull``, from fewer points: a base whose outline lies
    strictly inside the convex polygon of the extreme centres in 16 directions (a polygon inside
    the hull: every centre lies in its outline) holds no vertex of the hull, and GEOS's hull
    depends only on the points that are (``tests/test_checkfast5.py`` compares the two)."""
    polys = list(outlines) if outlines is not None else polygons(group, _N_POLY, circumscribed=True)
    if len(group) > 8:
        xy = np.array([[f.cx, f.cy] for f in group])
        # every vertex of an outline is within this of its centre (a circumscribed n-gon's corner)
        reach = np.array([f.outer_radius for f in group]) / math.cos(math.pi / _N_POLY) * (1.0 + 1e-9) + 1e-9
        along = xy[:, 0:1] * np.cos(_HULL_DIRECTIONS) + xy[:, 1:2] * np.sin(_HULL_DIRECTIONS)
        corners = xy[np.argmax(along, axis=0)]  # in order of direction: counter-clockwise
        keep = np.r_[True, np.any(corners[1:] != corners[:-1], axis=1)]
        corners = corners[keep]
        if len(corners) > 1 and (corners[0] == corners[-1]).all():
            corners = corners[:-1]
        p, q = corners, np.roll(corners, -1, axis=0)
        ex, ey = q[:, 0] - p[:, 0], q[:, 1] - p[:, 1]
        turns = ex * np.roll(ey, -1) - ey * np.roll(ex, -1)
        if len(corners) >= 3 and (turns > 0).all():  # a convex polygon, counter-clockwise
            ln = np.hypot(ex, ey)
            # the distance of each centre inside each edge line (positive: on the inner side)
            inside = ((xy[:, 0:1] - p[:, 0]) * -ey + (xy[:, 1:2] - p[:, 1]) * ex) / ln
            deep = inside.min(axis=1) > reach + 1e-6
            if deep.any():
                polys = [g for g, d in zip(polys, deep.tolist(), strict=True) if not d]
    return points_hull(polys)


def points_hull(polys: Sequence[BaseGeometry]) -> BaseGeometry:
    """``GeometryCollection(polys).convex_hull``, the same polygon: the hull of their vertices
    in the same order, taken from one line through them (no collection of copies)."""
    coords = shapely.get_coordinates(np.asarray(polys, dtype=object))
    if len(coords) < 2:
        return shapely.GeometryCollection(list(polys)).convex_hull
    return cast(BaseGeometry, shapely.convex_hull(shapely.linestrings(coords)))


def outline_union(group: Sequence[Footprint]) -> BaseGeometry:
    """Union of the circumscribed polygons of a group of bases (contains every true base)."""
    polys = polygons(group, _N_POLY, circumscribed=True)
    return polys[0] if len(polys) == 1 else unary_union(polys)


def outlines_separated(a_union: BaseGeometry | Sequence[BaseGeometry], b_union: BaseGeometry,
                       obstacles: Sequence[Obstacle], blocked: BaseGeometry | None = None,
                       hulls: Sequence[BaseGeometry] | None = None, tree: shapely.STRtree | None = None,
                       b_hull: BaseGeometry | None = None, a_points: np.ndarray | None = None) -> bool:
    """:func:`group_separated` for outlines already made by :func:`outline_union`.

    ``a_union`` may also be a sequence of such outlines (several observer units at once: True
    proves that no base of any of them sees any base of ``b_union``; the segments all lie in the
    hull of the whole group, so the proof is the same one). ``blocked``, if given, is the union of
    the same obstacles already merged and shrunk (as :func:`shrunk_union` makes it), which saves
    recomputing it. ``hulls``, if given, are the convex hulls of the outlines (the parts of
    ``a_union`` and ``b_union``): the hull of the pair is built from their vertices only, the
    same polygon from fewer points. ``tree``, if given, is :func:`outline_tree` of the parts of
    ``a_union`` (a collection), kept by a caller that proves many targets against one group.
    ``b_hull``, if given, is the convex hull of ``b_union`` (parts of the free space far from it
    are not measured to ``b_union`` itself: the same contacts). ``a_points``, if given, are
    points inside the outlines of ``a_union`` (n x 2; see :func:`_separated`).
    """
    if not obstacles:
        return False
    if not isinstance(a_union, BaseGeometry):
        parts = list(a_union)
        if tree is None or hulls is None:  # else measured through the tree only: no collection needed
            a_union = parts[0] if len(parts) == 1 else shapely.geometrycollections(parts)
    hull = (_points_hull(cast(BaseGeometry, a_union), b_union) if hulls is None
            else shapely.GeometryCollection(list(hulls)).convex_hull)
    if blocked is None:
        blockers = [bl for bl in _shrunk([o for o in obstacles if o.polygon.intersects(hull)])
                    if bl.intersects(hull)]
        if not blockers:
            return False
        blocked = unary_union(blockers)
    elif not blocked.intersects(hull):
        return False
    return _separated(hull, a_union, b_union, blocked, tree, b_hull, a_points)
