"""Exact measure of circles inside planar regions (the engine of the Deep Strike odds).

A *region* is a union of primitives in the plane of the first model's centre:

- capsules ``{p : dist(p, segment ab) < R}`` (a disc when a == b): a round base's overlap with
  another round base, with a polygon's edge band, "within X"" of a point;
- convex polygons (non-convex polygons are cut into triangles by ear clipping).

For a circle (centre C, radius d) :meth:`RegionSet.arc_fraction` returns, per region, the
fraction of the circle's angle that lies inside it. Per (circle, primitive) pair every crossing
angle of the circle with the primitive's boundary is solved in closed form (circle-line and
circle-circle intersections); between consecutive crossings membership is constant, so one
midpoint test per arc decides it; the arcs of all primitives of a region are merged (sorted
union). The result is exact up to floating-point rounding: a crossing angle is accurate to about
1e-12 rad, or about 1e-8 rad where the circle is nearly tangent to a boundary (square root of a
tiny discriminant); a misplaced crossing changes the measure by at most its own error, so with
fewer than 10^3 crossings per circle the fraction is within 2e-6 of the exact value, far inside
the 1e-4 required.

Pairs are pruned by bounding box: a primitive whose box the circle does not cross cannot change
membership along the circle except by containing it (box contains circle: kept) or not touching it.
"""

from __future__ import annotations

import math

import numpy as np

from planner.deepstrike.boundary import Boundary, box_test

TWO_PI = 2.0 * math.pi
BOUNDARY_MIN_QUERIES = 2000
"""From this many circles (or points) on, the boundary engine answers instead of the reference one."""


def _is_convex(v: np.ndarray) -> bool:
    n = len(v)
    sign = 0
    for i in range(n):
        a, b, c = v[i], v[(i + 1) % n], v[(i + 2) % n]
        cr = (b[0] - a[0]) * (c[1] - b[1]) - (b[1] - a[1]) * (c[0] - b[0])
        if abs(cr) > 1e-12:
            s = 1 if cr > 0 else -1
            if sign == 0:
                sign = s
            elif s != sign:
                return False
    return True


def _ccw(v: np.ndarray) -> np.ndarray:
    area = 0.5 * np.sum(v[:, 0] * np.roll(v[:, 1], -1) - np.roll(v[:, 0], -1) * v[:, 1])
    return v if area > 0 else v[::-1]


def ear_clip(verts) -> list[np.ndarray]:
    """Triangles covering a simple polygon exactly (ear clipping; convex input returns itself)."""
    v = _ccw(np.asarray(verts, dtype=float))
    if len(v) > 1 and np.allclose(v[0], v[-1]):
        v = v[:-1]
    if _is_convex(v):
        return [v]
    idx = list(range(len(v)))
    out: list[np.ndarray] = []
    guard = 0
    while len(idx) > 3 and guard < 10000:
        guard += 1
        for k in range(len(idx)):
            i0, i1, i2 = idx[k - 1], idx[k], idx[(k + 1) % len(idx)]
            a, b, c = v[i0], v[i1], v[i2]
            cr = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
            if cr <= 1e-14:
                continue
            ok = True
            for j in idx:
                if j in (i0, i1, i2):
                    continue
                p = v[j]
                d1 = (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0])
                d2 = (c[0] - b[0]) * (p[1] - b[1]) - (c[1] - b[1]) * (p[0] - b[0])
                d3 = (a[0] - c[0]) * (p[1] - c[1]) - (a[1] - c[1]) * (p[0] - c[0])
                if d1 >= 0 and d2 >= 0 and d3 >= 0:
                    ok = False
                    break
            if ok:
                out.append(np.array([a, b, c]))
                idx.pop(k)
                break
    out.append(v[idx])
    return out


def _flat(polys: list[tuple[np.ndarray, int]]):
    """Polygons as pieces of one vertex array: (vertices (N, 2), and per piece its first vertex
    ``o``, start ``a``, step, the count ``m`` it wraps at, its vertex count ``k`` and region):
    piece vertex j is vertex o + (a + step j) mod m. Here each polygon is one piece, all of it."""
    F = np.concatenate([p for p, _ in polys]).astype(float)
    k = np.array([len(p) for p, _ in polys], dtype=np.int64)
    zero = np.zeros(len(k), dtype=np.int64)
    return F, np.cumsum(k) - k, zero, zero + 1, k, k, np.array([r for _, r in polys], dtype=np.int64)


def _fan_pieces(convex: list[tuple[np.ndarray, int]]):
    """The reference engine's pieces of convex polygons, as :func:`_flat` gives them: a polygon
    of at most 32 vertices whole; a larger one as a core polygon through every 16th vertex, then
    the convex caps between consecutive core vertices (each vertices a .. b, at most 17), in
    that order (small pieces with small boxes)."""
    F, o, _, _, n, _, reg = _flat(convex)
    ncut = (n + 15) // 16
    big = ncut >= 3
    nc = np.where(big, ncut, 0)
    # the caps of the large ones: vertices a = 16 t .. b = min(a + 16, n) (mod n), if b - a >= 2
    cp = np.repeat(np.arange(len(n)), nc)
    a = 16 * (np.arange(len(cp)) - np.repeat(np.cumsum(nc) - nc, nc))
    b = np.minimum(a + 16, n[cp])
    keep = b - a >= 2
    cp, a, c_len = cp[keep], a[keep], (b - a + 1)[keep]
    # each polygon's first piece (its core, every 16th vertex, or the whole of it), then its caps
    poly = np.concatenate([np.arange(len(n)), cp])
    order = np.argsort(poly, kind="stable")
    poly = poly[order]
    first = np.concatenate([np.zeros(len(n), np.int64), a])[order]
    step = np.concatenate([np.where(big, 16, 1), np.ones(len(cp), np.int64)])[order]
    k = np.concatenate([np.where(big, ncut, n), c_len])[order]
    return F, o[poly], first, step, n[poly], k, reg[poly]


class _Polys:
    """Convex counter-clockwise polygons of one vertex count: (m, k, 2) vertices and boxes; the
    edges (each to the next vertex, the last to the first; a zero-length one not valid) and
    their outward normals are made for the polygons asked for."""

    def __init__(self, V: np.ndarray):
        self.V = V
        self.box = np.column_stack([V[..., 0].min(1), V[..., 1].min(1), V[..., 0].max(1), V[..., 1].max(1)])

    def edges(self, k):
        """(V, W, valid) of polygons k: each (len(k), vertices[, 2])."""
        V = self.V[k]
        W = np.roll(V, -1, axis=1)
        E = W - V
        return V, W, np.hypot(E[..., 0], E[..., 1]) > 0

    def normals(self, k):
        """(nx, ny, c, valid) of polygons k: a point p is inside edge j when nx p_x + ny p_y < c."""
        V, W, _ = self.edges(k)
        E = W - V
        ln = np.hypot(E[..., 0], E[..., 1])
        valid = ln > 0
        ln = np.where(valid, ln, 1.0)
        nx, ny = E[..., 1] / ln, -E[..., 0] / ln
        return nx, ny, nx * V[..., 0] + ny * V[..., 1], valid

    @staticmethod
    def test(nrm, px, py, rows) -> np.ndarray:
        """Is point i strictly inside polygon rows_i of the polygons of ``nrm`` (:meth:`normals`)?"""
        nx, ny, c, valid = nrm
        s = nx[rows] * px[:, None] + ny[rows] * py[:, None] - c[rows]
        return np.all((s < 0) | ~valid[rows], axis=-1)

    def inside(self, px, py, k) -> np.ndarray:
        """Is point i strictly inside polygon k_i (arrays (m,))?"""
        return self.test(self.normals(k), px, py, np.arange(len(k)))


class RegionSet:
    """Primitives labelled by region id (0 .. n_regions-1)."""

    def __init__(self, n_regions: int):
        self.n_regions = n_regions
        self._caps: list[tuple[float, float, float, float, float, int]] = []
        self._polys: list[tuple[np.ndarray, int]] = []
        self._done = False
        self._boundaries: dict[int, Boundary] = {}
        self._convex: list[tuple[np.ndarray, int]] = []
        # the reference engine's pieces of the add_convex polygons: (place among _polys, polygons)
        self._fanblocks: list[tuple[int, list[tuple[np.ndarray, int]]]] = []
        self._fanned = 0

    # ------------------------------------------------------------------ building
    def add_capsule(self, ax: float, ay: float, bx: float, by: float, radius: float, region: int) -> None:
        if radius > 0:
            self._caps.append((ax, ay, bx, by, radius, region))
            self._done = False
            self._boundaries = {}

    def add_disc(self, x: float, y: float, radius: float, region: int) -> None:
        self.add_capsule(x, y, x, y, radius, region)

    def add_polygon(self, verts, region: int) -> None:
        """A simple polygon (any shape): cut into convex pieces."""
        for piece in ear_clip(verts):
            piece = _ccw(np.asarray(piece, dtype=float))
            if len(piece) <= 4:
                self._polys.append((piece, region))
            else:  # a fan of triangles keeps every piece small (fixed-size, fast arrays)
                for i in range(1, len(piece) - 1):
                    self._polys.append((piece[[0, i, i + 1]], region))
        self._done = False
        self._boundaries = {}

    def add_convex(self, verts, region: int) -> None:
        """A convex polygon, e.g. the many-sided bounds of an oval: the boundary engine keeps it
        whole, the reference engine gets a fan of triangles."""
        self._convex.append((_ccw(np.asarray(verts, dtype=float)), region))
        self._done = False
        self._boundaries = {}

    def _make_fans(self) -> None:
        """The reference engine's pieces of every add_convex polygon not yet cut (made when first
        needed, :func:`_fan_pieces`), placed after the polygons added so far."""
        if self._fanned < len(self._convex):
            self._fanblocks.append((len(self._polys), self._convex[self._fanned:]))
        self._fanned = len(self._convex)

    def add_rect(self, x0: float, y0: float, x1: float, y1: float, region: int) -> None:
        if x1 > x0 and y1 > y0:
            self._polys.append((np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], dtype=float), region))
            self._done = False
            self._boundaries = {}

    def add_polygon_band(self, verts, radius: float, region: int, dx: float = 0.0, dy: float = 0.0) -> None:
        """The polygon grown by ``radius`` (polygon plus a capsule on every edge), shifted by (dx, dy)."""
        v = np.asarray(verts, dtype=float) + np.array([dx, dy])
        self.add_polygon(v, region)
        n = len(v)
        for i in range(n):
            a, b = v[i], v[(i + 1) % n]
            self.add_capsule(a[0], a[1], b[0], b[1], radius, region)

    def extend(self, other: RegionSet, region_map: dict[int, int]) -> None:
        """Copy the primitives of ``other`` whose region is in ``region_map``, relabelled."""
        for c in other._caps:
            if c[5] in region_map:
                self._caps.append((*c[:5], region_map[c[5]]))
        for p, r in other._polys:
            if r in region_map:
                self._polys.append((p, region_map[r]))
        for p, r in other._convex:
            if r in region_map:
                self._convex.append((p, region_map[r]))
        self._done = False
        self._boundaries = {}

    def _finalize(self) -> None:
        if self._done:
            return
        self._make_fans()
        c = np.array(self._caps, dtype=float).reshape(-1, 6)
        self.cax, self.cay, self.cbx, self.cby, self.cR = (c[:, k] for k in range(5))
        self.creg = c[:, 5].astype(int)
        self.cbox = np.column_stack([np.minimum(self.cax, self.cbx) - self.cR, np.minimum(self.cay, self.cby) - self.cR,
                                     np.maximum(self.cax, self.cbx) + self.cR, np.maximum(self.cay, self.cby) + self.cR])
        # every polygon in order (those added, the pieces of the add_convex ones where they were
        # cut), grouped by vertex count (no padding: the per-edge values of one padded array)
        parts, pos = [], 0
        for at, block in self._fanblocks:
            if at > pos:
                parts.append(_flat(self._polys[pos:at]))
                pos = at
            parts.append(_fan_pieces(block))
        if pos < len(self._polys):
            parts.append(_flat(self._polys[pos:]))
        shift = np.cumsum([0] + [len(q[0]) for q in parts])
        F = np.concatenate([q[0] for q in parts]) if parts else np.zeros((0, 2))
        o, a, step, m, nv, reg = (np.concatenate([q[j] + (shift[i] if j == 1 else 0) for i, q in enumerate(parts)])
                                  if parts else np.zeros(0, np.int64) for j in range(1, 7))
        self.preg = reg.astype(int)
        n = len(nv)
        self.pbox = np.zeros((n, 4))
        self.pgrp = np.zeros(n, dtype=int)
        self.ploc = np.zeros(n, dtype=int)
        self._pgroups: list[_Polys] = []
        for gi, k in enumerate(np.unique(nv).tolist()):
            idx = np.nonzero(nv == k)[0]
            j = np.arange(k)
            grp = _Polys(F[o[idx, None] + (a[idx, None] + step[idx, None] * j) % m[idx, None]])
            self._pgroups.append(grp)
            self.pgrp[idx] = gi
            self.ploc[idx] = np.arange(len(idx))
            self.pbox[idx] = grp.box
        self._done = True

    # ------------------------------------------------------------------ membership
    def _in_caps(self, px, py, k) -> np.ndarray:
        ax, ay, bx, by, R = self.cax[k], self.cay[k], self.cbx[k], self.cby[k], self.cR[k]
        ex, ey = bx - ax, by - ay
        ee = ex * ex + ey * ey
        t = np.clip(((px - ax) * ex + (py - ay) * ey) / np.where(ee > 0, ee, 1.0), 0.0, 1.0)
        t = np.where(ee > 0, t, 0.0)
        dx, dy = px - (ax + t * ex), py - (ay + t * ey)
        return dx * dx + dy * dy < R * R

    def _in_polys(self, px, py, k) -> np.ndarray:
        """Is point i strictly inside polygon k_i (arrays (m,))?"""
        out = np.zeros(len(k), dtype=bool)
        g = self.pgrp[k]
        for gi, grp in enumerate(self._pgroups):
            sel = np.nonzero(g == gi)[0]
            if len(sel):
                out[sel] = grp.inside(px[sel], py[sel], self.ploc[k[sel]])
        return out

    def contains(self, px, py) -> np.ndarray:
        """(n, n_regions) booleans: is point i inside region r (only primitives whose box holds it are tested)."""
        px, py = np.atleast_1d(np.asarray(px, float)), np.atleast_1d(np.asarray(py, float))
        n = len(px)
        if n >= BOUNDARY_MIN_QUERIES and all(r in self._boundaries for r in range(self.n_regions)):
            return np.column_stack([self._boundaries[r].contains(px, py) for r in range(self.n_regions)])
        self._finalize()
        out = np.zeros(n * self.n_regions, dtype=bool)
        zero = np.zeros(n)
        for start in range(0, n, 40000):
            sl = slice(start, min(n, start + 40000))
            for box, test, reg in ((self.cbox, self._in_caps, self.creg), (self.pbox, self._in_polys, self.preg)):
                i, k = self._pairs(px[sl], py[sl], zero[sl], box)
                if len(i):
                    hit = test(px[sl][i], py[sl][i], k)
                    out[((i + start) * self.n_regions + reg[k])[hit]] = True
        return out.reshape(n, self.n_regions)

    # ------------------------------------------------------------------ arcs
    def boundary(self, region: int, queries=None) -> Boundary:
        """The region's boundary and point locator (:mod:`planner.deepstrike.boundary`), built once:
        a capsule becomes a disc at each end and the rectangle between them. ``queries``: the box
        ((x0, y0), (x1, y1)) of the first queries, for the locator (:class:`Boundary`)."""
        if region not in self._boundaries:
            discs, polys = [], []
            for ax, ay, bx, by, R, reg in self._caps:
                if reg != region:
                    continue
                discs.append((ax, ay, R))
                ln = math.hypot(bx - ax, by - ay)
                if ln > 0:
                    discs.append((bx, by, R))
                    nx, ny = -(by - ay) / ln * R, (bx - ax) / ln * R
                    polys.append(np.array([[ax - nx, ay - ny], [bx - nx, by - ny], [bx + nx, by + ny],
                                           [ax + nx, ay + ny]]))
            polys += [p for p, reg in self._polys if reg == region]
            polys += [p for p, reg in self._convex if reg == region]
            self._boundaries[region] = Boundary(np.array(discs, float).reshape(-1, 3), polys, queries)
        return self._boundaries[region]

    def arc_fraction(self, cx, cy, d) -> np.ndarray:
        """(n, n_regions): fraction of the angle of circle (cx_i, cy_i, d_i) inside each region
        (the boundary engine, :mod:`planner.deepstrike.boundary`)."""
        cx, cy, d = (np.atleast_1d(np.asarray(a, float)) for a in (cx, cy, d))
        cx, cy, d = np.broadcast_arrays(cx, cy, d)
        if len(cx) < BOUNDARY_MIN_QUERIES:  # a few circles: preparing the boundary would cost more
            return self.arc_fraction_reference(cx, cy, d)
        out = np.zeros((len(cx), self.n_regions))
        box = ((float((cx - d).min()), float((cy - d).min())), (float((cx + d).max()), float((cy + d).max())))
        for r in range(self.n_regions):
            out[:, r] = self.boundary(r, box).arc_fraction(cx, cy, d)
        return out

    def arc_fraction_reference(self, cx, cy, d, chunk: int = 40000) -> np.ndarray:
        """The same fractions primitive by primitive (the reference engine the tests compare with)."""
        self._finalize()
        cx, cy, d = (np.atleast_1d(np.asarray(a, float)) for a in (cx, cy, d))
        cx, cy, d = np.broadcast_arrays(cx, cy, d)
        n = len(cx)
        out = np.zeros((n, self.n_regions))
        for s in range(0, n, chunk):
            sl = slice(s, min(n, s + chunk))
            out[sl] = self._arc_chunk(cx[sl], cy[sl], d[sl])
        return out

    def _pairs(self, cx, cy, d, box, tile: float = 2.0):
        """(circle, primitive) index pairs where circle i crosses box k or lies inside it:
        dist(C, box) <= d <= distance to the farthest corner. Circles are grouped by centre tile
        and radius first; a group keeps the boxes its annulus [d - h, d + h] can reach (h the
        group's spread), then each member circle is tested exactly."""
        if len(box) == 0 or len(cx) == 0:
            return np.zeros(0, int), np.zeros(0, int)
        key = np.column_stack([np.floor(cx / tile), np.floor(cy / tile), d])
        _, grp, counts = np.unique(key, axis=0, return_inverse=True, return_counts=True)
        grp = grp.ravel()
        ng = len(counts)
        gx = np.bincount(grp, cx, ng) / counts
        gy = np.bincount(grp, cy, ng) / counts
        gd = np.bincount(grp, d, ng) / counts
        h = np.zeros(ng)
        np.maximum.at(h, grp, np.hypot(cx - gx[grp], cy - gy[grp]) + np.abs(d - gd[grp]))
        order = np.argsort(grp, kind="stable")
        starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
        gi_all, k_all = [], []
        step = max(1, 4_000_000 // max(1, len(box)))
        for s0 in range(0, ng, step):
            sl = slice(s0, min(ng, s0 + step))
            m = box_test(gx[sl], gy[sl], gd[sl] + h[sl], np.maximum(gd[sl] - h[sl], 0.0), box)
            gi, k = np.nonzero(m)
            gi_all.append(gi + s0)
            k_all.append(k)
        gi = np.concatenate(gi_all)
        k = np.concatenate(k_all)
        # expand each (group, box) pair to the group's circles
        cnt = counts[gi]
        rep_k = np.repeat(k, cnt)
        first = np.repeat(starts[gi], cnt)
        within = np.arange(len(rep_k)) - np.repeat(np.cumsum(cnt) - cnt, cnt)
        ci = order[first + within]
        keep = box_test(cx[ci], cy[ci], d[ci], d[ci], box[rep_k], paired=True)
        return ci[keep], rep_k[keep]

    def _arc_chunk(self, cx, cy, d) -> np.ndarray:
        nc = len(cx)
        gs, ss, es = self._raw_arcs(cx, cy, d)
        out = np.zeros(nc * self.n_regions)
        if gs:
            g = np.concatenate(gs)
            s0 = np.concatenate(ss)
            e0 = np.concatenate(es)
            order = np.lexsort((s0, g))
            g, s0, e0 = g[order], s0[order], e0[order]
            off = g.astype(float) * 8.0
            S, E = s0 + off, e0 + off
            prev = np.concatenate([[-1.0], np.maximum.accumulate(E)[:-1]])
            add = np.maximum(0.0, E - np.maximum(S, prev))
            out += np.bincount(g, weights=add, minlength=nc * self.n_regions)
        return np.minimum(out.reshape(nc, self.n_regions) / TWO_PI, 1.0)

    def all_fraction(self, cx, cy, d) -> np.ndarray:
        """(n,): fraction of the angle of circle (cx_i, cy_i, d_i) inside *every* region at once
        (the intersection of the regions), with the reference engine's crossings.

        Every crossing angle of circle i with any primitive of any region is a breakpoint; between
        consecutive breakpoints membership of each region is constant: a piece is in a region when
        one of the region's primitive arcs (each decided by its midpoint test) covers it. Same
        error as :meth:`arc_fraction_reference`. Meant for a few circles (one aim point's odds)."""
        self._finalize()
        cx, cy, d = (np.atleast_1d(np.asarray(a, float)) for a in (cx, cy, d))
        cx, cy, d = np.broadcast_arrays(cx, cy, d)
        gs, ss, es = self._raw_arcs(cx, cy, d)
        g = np.concatenate(gs) if gs else np.zeros(0, int)
        s0 = np.concatenate(ss) if gs else np.zeros(0)
        e0 = np.concatenate(es) if gs else np.zeros(0)
        circle, reg = g // self.n_regions, g % self.n_regions
        out = np.zeros(len(cx))
        for i in range(len(cx)):
            mine = circle == i
            cuts = np.unique(np.concatenate([[0.0, TWO_PI], s0[mine], e0[mine]]))
            nsub = len(cuts) - 1
            a = np.searchsorted(cuts, s0[mine])
            b = np.searchsorted(cuts, e0[mine])
            cover = np.zeros((self.n_regions, nsub + 1), dtype=np.int32)
            np.add.at(cover, (reg[mine], a), 1)
            np.add.at(cover, (reg[mine], b), -1)
            inside = (np.cumsum(cover, axis=1)[:, :nsub] > 0).all(axis=0)
            out[i] = float(np.sum(np.diff(cuts)[inside])) / TWO_PI
        return np.minimum(out, 1.0)

    def _raw_arcs(self, cx, cy, d):
        """Per (circle, primitive) pair the arcs inside the primitive: lists of (circle * n_regions
        + region, start, end) arrays, angles in [0, 2 pi]."""
        gs, ss, es = [], [], []
        # ---- capsules
        ci, k = self._pairs(cx, cy, d, self.cbox)
        if len(ci):
            X, Y, D = cx[ci], cy[ci], d[ci]
            ax, ay, bx, by, R = self.cax[k], self.cay[k], self.cbx[k], self.cby[k], self.cR[k]
            ex, ey = bx - ax, by - ay
            ln = np.hypot(ex, ey)
            seg = ln > 0
            lns = np.where(seg, ln, 1.0)
            nx, ny = -ey / lns * R, ex / lns * R
            angs = [
                _circle_circle(X, Y, D, ax, ay, R), _circle_circle(X, Y, D, bx, by, R),
                _circle_segment(X, Y, D, ax + nx, ay + ny, bx + nx, by + ny, seg),
                _circle_segment(X, Y, D, ax - nx, ay - ny, bx - nx, by - ny, seg),
            ]
            A = np.concatenate(angs, axis=1)
            g, s0, e0 = _arcs(A, X, Y, D, lambda px, py, rows: self._in_caps(px, py, k[rows]))
            gs.append(ci[g] * self.n_regions + self.creg[k][g])
            ss.append(s0)
            es.append(e0)
        # ---- convex polygons, a group of one vertex count at a time, the arcs then in pair order
        ci, k = self._pairs(cx, cy, d, self.pbox)
        if len(ci):
            grp_of = self.pgrp[k]
            pg, ps, pe = [], [], []
            for gi, grp in enumerate(self._pgroups):
                sel = np.nonzero(grp_of == gi)[0]
                if not len(sel):
                    continue
                kk = self.ploc[k[sel]]
                X, Y, D = cx[ci[sel]], cy[ci[sel]], d[ci[sel]]
                V, W, valid = grp.edges(kk)
                A = _circle_segment(X[:, None], Y[:, None], D[:, None], V[..., 0], V[..., 1], W[..., 0], W[..., 1],
                                    valid)
                nrm = grp.normals(kk)
                g, s0, e0 = _arcs(A.reshape(len(sel), -1), X, Y, D,
                                  lambda px, py, rows, nrm=nrm: _Polys.test(nrm, px, py, rows))
                pg.append(sel[g])
                ps.append(s0)
                pe.append(e0)
            g = np.concatenate(pg)
            o = np.argsort(g, kind="stable")  # by pair, each pair's arcs in angle order: as one padded array gave
            g = g[o]
            gs.append(ci[g] * self.n_regions + self.preg[k][g])
            ss.append(np.concatenate(ps)[o])
            es.append(np.concatenate(pe)[o])
        return gs, ss, es


def local_difference(outer: RegionSet, inner: RegionSet, region: int = 0) -> tuple[RegionSet, RegionSet, np.ndarray]:
    """Where region ``region`` of two sets that share most primitives differs, as two small sets.

    ``outer`` and ``inner`` hold the same primitives except some (e.g. the outer and the inner
    polygons of ovals, :func:`planner.deepstrike.procedure.build_regions`), each piece of
    ``inner`` inside the piece of ``outer`` it replaces, so that U_in <= U_out. With O the
    pieces only in ``outer``, I those only in ``inner`` and L the shared ones whose box meets a
    box of O, the returned one-region sets are A = O + L and B = I + L, and
    U_out minus U_in = A minus B (inside O, a shared piece that covers a point is in L; outside
    O the two unions are the same), with B inside A: so P(U_out) - P(U_in) = P(A) - P(B) for
    any point or circle, and a circle that meets no box of O has none of the difference. The
    third value is the boxes of O, (n, 4) inches (x0, y0, x1, y1). Pieces compare by value
    (multisets: a repeated piece counts as often as it is added)."""
    def pieces(rs: RegionSet):
        caps = [(("c", c[:5]), c[:5]) for c in rs._caps if c[5] == region]
        polys = [(("p", p.shape, p.tobytes()), p) for p, r in rs._polys if r == region]
        conv = [(("v", p.shape, p.tobytes()), p) for p, r in rs._convex if r == region]
        return caps + polys + conv

    po, pi = pieces(outer), pieces(inner)
    left: dict = {}
    for key, _ in pi:
        left[key] = left.get(key, 0) + 1
    only_out, shared = [], []
    for key, v in po:
        if left.get(key, 0) > 0:
            left[key] -= 1
            shared.append((key, v))
        else:
            only_out.append((key, v))
    seen: dict = {}
    for key, _ in po:
        seen[key] = seen.get(key, 0) + 1
    only_in = []
    for key, v in pi:
        if seen.get(key, 0) > 0:
            seen[key] -= 1
        else:
            only_in.append((key, v))

    def box(key, v) -> tuple[float, float, float, float]:
        if key[0] == "c":
            ax, ay, bx, by, R = v
            return min(ax, bx) - R, min(ay, by) - R, max(ax, bx) + R, max(ay, by) + R
        return float(v[:, 0].min()), float(v[:, 1].min()), float(v[:, 0].max()), float(v[:, 1].max())

    obox = np.array([box(k, v) for k, v in only_out], float).reshape(-1, 4)
    sbox = np.array([box(k, v) for k, v in shared], float).reshape(-1, 4)
    meets = ((sbox[:, None, 0] <= obox[None, :, 2]) & (obox[None, :, 0] <= sbox[:, None, 2])
             & (sbox[:, None, 1] <= obox[None, :, 3]) & (obox[None, :, 1] <= sbox[:, None, 3])).any(axis=1)
    local = [shared[j] for j in np.nonzero(meets)[0].tolist()]

    def make(own) -> RegionSet:
        rs = RegionSet(1)
        for key, v in own + local:
            if key[0] == "c":
                rs._caps.append((*v, 0))
            elif key[0] == "p":
                rs._polys.append((v, 0))
            else:
                rs._convex.append((v, 0))
        return rs

    return make(only_out), make(only_in), obox


def _circle_circle(X, Y, D, qx, qy, R) -> np.ndarray:
    """Angles (about (X, Y)) where circle (X, Y, D) meets circle (qx, qy, R): (n, 2), NaN if none."""
    dx, dy = qx - X, qy - Y
    L = np.hypot(dx, dy)
    with np.errstate(invalid="ignore", divide="ignore"):
        c = (D * D + L * L - R * R) / (2 * D * L)
        alpha = np.arccos(np.where(np.abs(c) <= 1, c, np.nan))
    beta = np.arctan2(dy, dx)
    return np.column_stack([beta - alpha, beta + alpha])


def _circle_segment(X, Y, D, px, py, qx, qy, valid) -> np.ndarray:
    """Angles where circle (X, Y, D) meets segment p-q: shape (..., 2), NaN where none."""
    ex, ey = qx - px, qy - py
    fx, fy = px - X, py - Y
    a = ex * ex + ey * ey
    b = fx * ex + fy * ey
    c = fx * fx + fy * fy - D * D
    disc = b * b - a * c
    ok = valid & (a > 0) & (disc >= 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        sq = np.sqrt(np.where(ok, disc, np.nan))
        aa = np.where(ok, a, np.nan)
        res = []
        for t in ((-b - sq) / aa, (-b + sq) / aa):
            t = np.where((t >= 0) & (t <= 1), t, np.nan)
            res.append(np.arctan2(fy + t * ey, fx + t * ex))
    return np.stack(res, axis=-1)


def _arcs(A, X, Y, D, inside):
    """From crossing angles A (pairs x m, NaN = none) to the arcs inside each pair's primitive
    (``inside(px, py, rows)``: are the points, of pairs ``rows``, inside their pair's primitive).

    Returns (pair index, start, end) of every inside arc, angles in [0, 2 pi]."""
    A = np.mod(A, TWO_PI)
    A = np.sort(A, axis=1)  # NaN last
    npair, m = A.shape
    B = np.concatenate([np.zeros((npair, 1)), A, np.full((npair, 1), TWO_PI)], axis=1)
    # replace NaN bounds by 2 pi so that they give empty arcs
    B = np.where(np.isnan(B), TWO_PI, B)
    lo, hi = B[:, :-1], B[:, 1:]
    g, j = np.nonzero(hi > lo)  # the midpoint test only on arcs that are not empty
    lo, hi = lo[g, j], hi[g, j]
    mid = 0.5 * (lo + hi)
    px = X[g] + D[g] * np.cos(mid)
    py = Y[g] + D[g] * np.sin(mid)
    ins = inside(px, py, g)
    return g[ins], lo[ins], hi[ins]
