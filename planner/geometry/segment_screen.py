"""A vectorised screen of many segments against one (multi)polygon: certainly meets it, certainly
clear of it, or undecided (then the caller asks shapely).

The screen decides a segment only where the answer holds with a margin far above the rounding
of the arithmetic, so its decisions are the mathematical answers, which is what GEOS's robust
``intersects`` returns; the undecided segments (near an edge or a vertex, or near a non-convex
part) go to shapely. It is a speed-up of one predicate, never a second rule: the line-of-sight
test that uses it (:meth:`planner.legality.table.Table._quick_visible`) gives the same first clear
line with or without it (``tests/test_segment_screen.py`` compares with shapely on random
segments, and the quick test with and without the screen).

Method: the separating axis theorem for a segment and a convex polygon. The two are disjoint if
and only if their projections are disjoint on one of the axes normal to the polygon's edges or to
the segment. Disjoint on some axis by more than the margin: certainly clear; overlapping by more
than the margin on every axis: certainly meeting. A non-convex part (or one with holes) is
screened by its convex hull for "clear" only.
"""

from __future__ import annotations

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

MEETS, CLEAR, UNDECIDED = 1, 0, -1
"""The screen's verdicts per segment."""

_REL = 1e-9
"""The margin, relative to the axis length times the coordinates' magnitude (the rounding of the
projections is about 1e-16 of that)."""


class SegmentScreen:
    """The screen of one geometry (a Polygon or MultiPolygon, inches; other geometries: every
    segment undecided). Build once per geometry, then :meth:`classify` any number of segments."""

    def __init__(self, geom: BaseGeometry | None):
        self.usable = geom is not None and geom.geom_type in ("Polygon", "MultiPolygon") and not geom.is_empty
        if not self.usable or geom is None:
            return
        self.scale = 1.0 + max(abs(v) for v in geom.bounds)
        rings, convex = [], []
        for poly in getattr(geom, "geoms", [geom]):
            if poly.is_empty:
                continue
            hull = poly.convex_hull
            if hull.geom_type != "Polygon":  # a degenerate part: leave everything to shapely
                self.usable = False
                return
            is_convex = not poly.interiors and abs(hull.area - poly.area) <= 1e-12 * hull.area
            ring = np.asarray((poly if is_convex else hull).exterior.coords)[:-1]
            edges = np.roll(ring, -1, axis=0) - ring
            ring = ring[np.hypot(edges[:, 0], edges[:, 1]) > 0]
            if len(ring) < 3:
                self.usable = False
                return
            rings.append(ring)
            convex.append(is_convex)
        if not rings:
            self.usable = False
            return
        # every part padded to the same number of vertices by repeating its last one (a repeated
        # vertex adds a zero edge, whose axis is a copy of a real one: the same tests)
        n = max(len(r) for r in rings)
        verts = np.stack([np.vstack([r, np.repeat(r[-1:], n - len(r), axis=0)]) for r in rings])  # (P, n, 2)
        edges = np.roll(verts, -1, axis=1) - verts
        for k, r in enumerate(rings):  # the closing edge of a padded ring: from the repeat back to the first
            edges[k, len(r) - 1:] = r[0] - r[-1]
        self.verts = verts
        self.axes = np.stack([-edges[..., 1], edges[..., 0]], axis=2)  # (P, n, 2) edge normals
        proj = np.einsum("pvd,pnd->pvn", verts, self.axes)  # (P, vertices, axes)
        self.lo, self.hi = proj.min(axis=1), proj.max(axis=1)  # (P, n)
        self.eps = _REL * np.hypot(self.axes[..., 0], self.axes[..., 1]) * self.scale
        self.convex = np.array(convex)

    def classify(self, p: np.ndarray, q: np.ndarray) -> np.ndarray:
        """For segments from ``p[k]`` to ``q[k]`` (each (m, 2), inches): :data:`MEETS`, :data:`CLEAR`
        or :data:`UNDECIDED` per segment (int8, (m,))."""
        m = len(p)
        out = np.full(m, UNDECIDED, dtype=np.int8)
        if not self.usable or m == 0:
            return out
        d = q - p
        nrm = np.stack([-d[:, 1], d[:, 0]], axis=1)  # the segments' normals
        c = np.einsum("ij,ij->i", p, nrm)[:, None]  # each segment's projection on its own normal
        eps_s = (_REL * self.scale) * np.hypot(nrm[:, 0], nrm[:, 1])[:, None]
        sep = np.zeros((m, len(self.convex)), dtype=bool)  # (segment, part): separated on some axis
        over = np.broadcast_to(self.convex[None], sep.shape).copy()  # overlapping on every axis so far
        vmin = vmax = None
        for k in range(self.axes.shape[1]):  # axis by axis: (m, parts) arrays, no short-axis reductions
            ax = self.axes[:, k, :].T  # (2, P)
            pa, qa = p @ ax, q @ ax
            smin, smax = np.minimum(pa, qa), np.maximum(pa, qa)
            lo, hi, eps = self.lo[:, k], self.hi[:, k], self.eps[:, k]
            sep |= (smax < lo - eps) | (smin > hi + eps)
            over &= (smax > lo + eps) & (smin < hi - eps)
            vp = nrm @ self.verts[:, k, :].T  # vertex k of every part on each segment's normal
            vmin = vp if vmin is None else np.minimum(vmin, vp)
            vmax = vp if vmax is None else np.maximum(vmax, vp)
        sep |= (c < vmin - eps_s) | (c > vmax + eps_s)
        over &= (c > vmin + eps_s) & (c < vmax - eps_s)
        out[sep.all(axis=1)] = CLEAR
        out[over.any(axis=1)] = MEETS
        return out


def first_clear(screen: SegmentScreen, p: np.ndarray, q: np.ndarray, geom: BaseGeometry, chunk: int = 48
                ) -> int | None:
    """The first ``k`` (in order) whose segment ``p[k]``-``q[k]`` does not meet ``geom``, as
    ``shapely.intersects`` decides it, or None: the screen decides most segments, shapely only
    the undecided ones before the first certainly clear one. The first ``chunk`` segments are
    screened alone first (a clear line is usually among them)."""
    for s0, s1 in ((0, chunk), (chunk, len(p))):
        if s0 >= s1:
            continue
        cls = screen.classify(p[s0:s1], q[s0:s1])
        clear = np.nonzero(cls == CLEAR)[0]
        stop = int(clear[0]) if len(clear) else len(cls)
        open_ = np.nonzero(cls[:stop] == UNDECIDED)[0] + s0
        if len(open_):
            segs = shapely.linestrings(np.stack([p[open_], q[open_]], axis=1))
            free = open_[~shapely.intersects(segs, geom)]
            if len(free):
                return int(free[0])
        if stop < len(cls):
            return s0 + stop
    return None
