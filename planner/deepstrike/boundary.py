"""The fast exact arc measure: a region's boundary extracted once, then only its crossings per circle.

:class:`planner.deepstrike.regions.RegionSet` describes a region as a union of primitives
(capsules, convex polygons). Its reference arc measure works primitive by primitive: for every
(circle, primitive) pair it solves the crossings, tests one midpoint per arc and merges the
arcs of all primitives. For a 10-model formation that is some 600 primitives, and a heat map
has 38,016 circles (3,456 aim points x 11 scatter distances): 1.4 million pairs.

Here the region is prepared once per formation instead:

1. Every primitive becomes discs and convex polygons (a capsule is a disc at each end and the
   rectangle between them).
2. The boundary of the union is extracted exactly: each disc's circle and each polygon edge is
   cut at every crossing with another primitive's boundary (closed form), and a piece is kept
   unless its midpoint lies inside another primitive by more than ``COVER_MARGIN_IN``
   (1e-9"). A kept piece that is not really on the boundary (a duplicate, a shared diagonal)
   only adds a harmless extra cut below; a boundary piece is never dropped.
3. A point locator (bins of ``cell`` inches, each marked *inside*, *outside*, or holding the
   few primitives that cross it) answers "is this point in the region" with the same strict
   tests as :meth:`RegionSet.contains`.

For a circle, the crossings with the boundary pieces cut it into arcs on which membership is
constant (the boundary is the only place where it can change); one midpoint test per arc
decides, and the inside arcs are summed. A circle with no crossing is inside or outside as a
whole (one point test). Extra cuts (duplicates, the 1e-9 slack added to every piece's ends so
that no crossing at a joint is lost) cannot change the sum. The numerical error is that of
the reference engine: crossing angles to about 1e-12 rad (1e-8 rad where a circle is nearly
tangent), so every fraction is within 2e-6 of the exact value, inside ``ERROR_BOUND`` (1e-4).
The tests compare the two engines on random circles.
"""

from __future__ import annotations

import math

import numpy as np

TWO_PI = 2.0 * math.pi
COVER_MARGIN_IN = 1e-9
_SLACK = 1e-9


def _ranges(lo, hi):
    """Every index of the half-open ranges [lo_i, hi_i) (empty where hi <= lo), and the range of each."""
    cnt = np.maximum(hi - lo, 0)
    tot = int(cnt.sum())
    r = np.repeat(np.arange(len(cnt)), cnt)
    return np.repeat(lo, cnt) + np.arange(tot) - np.repeat(np.cumsum(cnt) - cnt, cnt), r


def circle_box_pairs(cx, cy, d, box, row: float = 1.0, ordered: bool = True):
    """(circle, box) index pairs where circle i crosses box k or lies inside it
    (dist(C, box) <= d <= distance to the farthest corner, :func:`box_test`): arrays (m,), (m,),
    ordered by (circle, box) (with ``ordered=False`` in no stated order: the same pairs).

    A row sweep, with work in proportion to the pairs found: the circles are sorted by (radius,
    row of ``row`` inches, x). For a box, a radius d and a row of centres (y in [ya, yb]), a centre can
    meet the box only with x in [x0 - a, x1 + a] (a = sqrt(d^2 - ny^2), ny the least vertical gap
    between the row and the box) and not with |x - xm| < c - w / 2 (c = sqrt(d^2 - fy^2), fy the
    largest vertical reach, xm and w the box's mid x and width): the box then lies wholly inside
    the circle. These ranges (padded by 1e-7") are found by binary search and every candidate is
    tested exactly."""
    if len(box) == 0 or len(cx) == 0:
        return np.zeros(0, int), np.zeros(0, int)
    du, di = np.unique(d, return_inverse=True)
    di = di.ravel()
    rr = np.floor(cy / row).astype(np.int64)
    r0 = int(rr.min())
    rr -= r0
    nr = int(rr.max()) + 1
    xmin = float(cx.min())
    span = float(cx.max()) - xmin + 4.0
    seg = di.astype(np.int64) * nr + rr
    key = seg * span + (cx - xmin)
    order = np.lexsort((cx, seg))
    key = key[order]
    # each (radius, row) segment's least and largest centre y (an empty segment: none reach it)
    ylo = np.full(len(du) * nr, np.inf)
    yhi = np.full(len(du) * nr, -np.inf)
    np.minimum.at(ylo, seg, cy)
    np.maximum.at(yhi, seg, cy)
    # every (box, radius, row) the box can reach
    nb, nd = len(box), len(du)
    kb = np.repeat(np.arange(nb), nd)
    kd = np.tile(np.arange(nd), nb)
    x0, y0, x1, y1 = (box[kb, j] for j in range(4))
    D = du[kd]
    ra = np.clip(np.floor((y0 - D) / row).astype(np.int64) - r0, 0, nr)
    rb = np.clip(np.floor((y1 + D) / row).astype(np.int64) - r0 + 1, 0, nr)
    idx, t = _ranges(ra, rb)
    kb, kd, x0, y0, x1, y1, D = kb[t], kd[t], x0[t], y0[t], x1[t], y1[t], D[t]
    sg = kd.astype(np.int64) * nr + idx
    ya, yb = ylo[sg], yhi[sg]
    pad = 1e-7
    # rows with a centre, and within reach of the box
    ny = np.maximum(np.maximum(y0 - yb, ya - y1), 0.0)
    a2 = D * D - ny * ny
    t = np.nonzero((ya <= yb) & (a2 >= -pad))[0]
    kb, x0, y0, x1, y1, D, sg, ya, yb, a2 = (v[t] for v in (kb, x0, y0, x1, y1, D, sg, ya, yb, a2))
    fy = np.maximum(yb - y0, y1 - ya)
    a = np.sqrt(np.maximum(a2, 0.0)) + pad
    xm, hw = 0.5 * (x0 + x1), 0.5 * (x1 - x0)
    e = np.sqrt(np.maximum(D * D - fy * fy, 0.0)) - hw - pad
    base = sg * span
    lim = span - 2.0

    def q(x):
        return base + np.clip(x - xmin, -1.0, lim)

    # The candidates are the keys in [q(x0 - a), q(x1 + a)] and, where the box can lie wholly
    # inside the circle (e > 0), not in (q(xm - e), q(xm + e)): the ranges a binary search of the
    # keys gives. Instead of that search, each (radius, row) segment's centres are counted in bins
    # of ``w`` inches of x (a table of first positions); each range is widened to whole bins and
    # one more bin on each side (so no rounding can leave a candidate out), and the keys in it are
    # compared with the range's ends exactly: the same candidates.
    ns = len(du) * nr
    w = max(1.0 / 16.0, span * ns / (16.0 * len(cx)))
    nbin = int(span / w) + 3
    flat = seg * (nbin + 1) + np.floor((cx - xmin) / w).astype(np.int64)
    table = np.zeros(ns * (nbin + 1) + 1, np.int64)  # table[s (nbin + 1) + b]: first position of bin b of segment s
    np.cumsum(np.bincount(flat, minlength=ns * (nbin + 1)), out=table[1:])
    rowt = sg * (nbin + 1)

    def at(x, shift, rows):  # the table's position of the bin of x, ``shift`` bins on, in the segment
        return table[rows + np.clip(np.floor((x - xmin) / w) + shift, 0, nbin).astype(np.int64)]

    v_lo, v_hi = q(x0 - a), q(x1 + a)
    lo1, hi2 = at(x0 - a, -1, rowt), at(x1 + a, 2, rowt)
    v_a, v_b = v_hi.copy(), np.full(len(v_hi), np.inf)
    hi1, lo2 = hi2.copy(), hi2.copy()
    sp = np.nonzero(e > 0)[0]
    xa, xz = xm[sp] - e[sp], xm[sp] + e[sp]
    v_a[sp] = base[sp] + np.clip(xa - xmin, -1.0, lim)
    v_b[sp] = base[sp] + np.clip(xz - xmin, -1.0, lim)
    hi1[sp], lo2[sp] = at(xa, 2, rowt[sp]), at(xz, -1, rowt[sp])
    merge = hi1 >= lo2  # the two ranges meet: one range, the exact test below keeps both parts
    hi1[merge] = lo2[merge] = hi2[merge]
    p1, t1 = _ranges(lo1, hi1)
    p2, t2 = _ranges(lo2, hi2)
    p, t = np.concatenate([p1, p2]), np.concatenate([t1, t2])
    kk = key[p]
    exact = ((kk >= v_lo[t]) & (kk <= v_a[t])) | ((kk >= v_b[t]) & (kk <= v_hi[t]))
    ci = order[p[exact]]
    k = kb[t[exact]]
    keep = box_test(cx[ci], cy[ci], d[ci], d[ci], box[k], paired=True)
    if not ordered:
        return ci[keep], k[keep]
    pk = np.sort(ci[keep].astype(np.int64) * nb + k[keep])
    return pk // nb, pk % nb


def box_test(X, Y, dmax, dmin, box, paired: bool = False):
    """Can a circle about (X, Y) with radius in [dmin, dmax] meet the box (or its inside)?"""
    if paired:
        x0, y0, x1, y1 = box[:, 0], box[:, 1], box[:, 2], box[:, 3]
    else:
        x0, y0, x1, y1 = (box[:, j][None, :] for j in range(4))
        X, Y, dmax, dmin = X[:, None], Y[:, None], dmax[:, None], dmin[:, None]
    nx = np.maximum(np.maximum(x0 - X, 0), X - x1)
    ny = np.maximum(np.maximum(y0 - Y, 0), Y - y1)
    fx = np.maximum(np.abs(X - x0), np.abs(X - x1))
    fy = np.maximum(np.abs(Y - y0), np.abs(Y - y1))
    return (nx * nx + ny * ny <= dmax * dmax * (1 + 1e-12) + 1e-12) & \
        (fx * fx + fy * fy >= dmin * dmin * (1 - 1e-12) - 1e-12)


def _dense_overlap(a, b):
    ii, jj = [], []
    step = max(1, 2_000_000 // max(1, len(b)))
    for s in range(0, len(a), step):
        A = a[s:s + step]
        m = ((A[:, None, 0] <= b[None, :, 2]) & (b[None, :, 0] <= A[:, None, 2])
             & (A[:, None, 1] <= b[None, :, 3]) & (b[None, :, 1] <= A[:, None, 3]))
        i, j = np.nonzero(m)
        ii.append(i + s)
        jj.append(j)
    if not ii:
        return np.zeros(0, int), np.zeros(0, int)
    return np.concatenate(ii), np.concatenate(jj)


def _cells(box, x0, y0, cell):
    i0 = np.floor((box[:, 0] - x0) / cell).astype(np.int64)
    i1 = np.floor((box[:, 2] - x0) / cell).astype(np.int64)
    j0 = np.floor((box[:, 1] - y0) / cell).astype(np.int64)
    j1 = np.floor((box[:, 3] - y0) / cell).astype(np.int64)
    w, h = i1 - i0 + 1, j1 - j0 + 1
    n = w * h
    k = np.repeat(np.arange(len(box)), n)
    r = np.arange(n.sum()) - np.repeat(np.cumsum(n) - n, n)
    ww = np.repeat(w, n)
    return k, (np.repeat(j0, n) + r // ww) * 1_000_003 + np.repeat(i0, n) + r % ww


def _box_overlap_pairs(a: np.ndarray, b: np.ndarray, same: bool):
    """Index pairs (i, j) of boxes a[i], b[j] that overlap (i != j when ``same``): tiny boxes
    (at most 0.25") are hashed among themselves on 0.25" cells, the rest on 2" cells."""
    if len(a) == 0 or len(b) == 0:
        return np.zeros(0, int), np.zeros(0, int)
    sa = np.maximum(a[:, 2] - a[:, 0], a[:, 3] - a[:, 1]) <= 0.25
    sb = np.maximum(b[:, 2] - b[:, 0], b[:, 3] - b[:, 1]) <= 0.25
    out_i, out_j = [], []
    for ma, mb, cell in ((sa, sb, 0.25), (sa, ~sb, 2.0), (~sa, np.ones(len(b), bool), 2.0)):
        ia, ib = np.nonzero(ma)[0], np.nonzero(mb)[0]
        i, j = _hash_pairs(a[ia], b[ib], cell)
        out_i.append(ia[i])
        out_j.append(ib[j])
    i, j = np.concatenate(out_i), np.concatenate(out_j)
    if same:
        keep = i != j
        i, j = i[keep], j[keep]
    return i, j


def _hash_pairs(a: np.ndarray, b: np.ndarray, cell: float):
    """Overlapping box pairs through a grid hash of ``cell``-inch cells (every pair for boxes
    more than 16 cells long)."""
    if len(a) == 0 or len(b) == 0:
        return np.zeros(0, int), np.zeros(0, int)
    lim = 16 * cell
    abig = (a[:, 2] - a[:, 0] > lim) | (a[:, 3] - a[:, 1] > lim)
    bbig = (b[:, 2] - b[:, 0] > lim) | (b[:, 3] - b[:, 1] > lim)
    ia, ib = np.nonzero(~abig)[0], np.nonzero(~bbig)[0]
    out_i, out_j = [], []
    if len(ia) and len(ib):
        x0 = min(a[ia, 0].min(), b[ib, 0].min())
        y0 = min(a[ia, 1].min(), b[ib, 1].min())
        ka, ca = _cells(a[ia], x0, y0, cell)
        kb, cb = _cells(b[ib], x0, y0, cell)
        order = np.argsort(cb, kind="stable")
        cb, kb = cb[order], kb[order]
        lo = np.searchsorted(cb, ca, "left")
        hi = np.searchsorted(cb, ca, "right")
        cnt = hi - lo
        pa = np.repeat(ka, cnt)
        pos = np.repeat(lo, cnt) + np.arange(cnt.sum()) - np.repeat(np.cumsum(cnt) - cnt, cnt)
        pb = kb[pos]
        # a pair is kept in one cell only, that of the corner (max x0, max y0) of the two boxes
        # (in both boxes' cell ranges when they overlap): no duplicates, no sort (the callers
        # do not depend on the order of the pairs)
        A, Bb = a[ia], b[ib]
        rx = np.floor((np.maximum(A[pa, 0], Bb[pb, 0]) - x0) / cell).astype(np.int64)
        ry = np.floor((np.maximum(A[pa, 1], Bb[pb, 1]) - y0) / cell).astype(np.int64)
        one = ry * 1_000_003 + rx == np.repeat(ca, cnt)
        out_i.append(ia[pa[one]])
        out_j.append(ib[pb[one]])
    for sel_a, sel_b in ((np.nonzero(abig)[0], np.arange(len(b))), (np.nonzero(~abig)[0], np.nonzero(bbig)[0])):
        if len(sel_a) and len(sel_b):
            i, j = _dense_overlap(a[sel_a], b[sel_b])
            out_i.append(sel_a[i])
            out_j.append(sel_b[j])
    i = np.concatenate(out_i) if out_i else np.zeros(0, int)
    j = np.concatenate(out_j) if out_j else np.zeros(0, int)
    keep = ((a[i, 0] <= b[j, 2]) & (b[j, 0] <= a[i, 2]) & (a[i, 1] <= b[j, 3]) & (b[j, 1] <= a[i, 3]))
    return i[keep], j[keep]


def _circle_circle_pts(x1, y1, r1, x2, y2, r2):
    """The (up to) two crossing points of circles 1 and 2: arrays (n, 2) of x and of y (NaN: none)."""
    dx, dy = x2 - x1, y2 - y1
    L = np.hypot(dx, dy)
    with np.errstate(invalid="ignore", divide="ignore"):
        a = (r1 * r1 - r2 * r2 + L * L) / (2 * L)
        h2 = r1 * r1 - a * a
        ok = (L > 0) & (h2 >= 0)
        h = np.sqrt(np.where(ok, h2, np.nan))
        mx, my = x1 + a * dx / L, y1 + a * dy / L
        px = np.stack([mx - h * dy / L, mx + h * dy / L], axis=-1)
        py = np.stack([my + h * dx / L, my - h * dx / L], axis=-1)
    return px, py


def _segment_circle_t(px, py, qx, qy, X, Y, D):
    """Parameters t (shape (n, 2), NaN: none) where segment p + t (q - p) meets circle (X, Y, D)."""
    ex, ey = qx - px, qy - py
    fx, fy = px - X, py - Y
    a = ex * ex + ey * ey
    b = fx * ex + fy * ey
    c = fx * fx + fy * fy - D * D
    disc = b * b - a * c
    ok = (a > 0) & (disc >= 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        sq = np.sqrt(np.where(ok, disc, np.nan))
        aa = np.where(ok, a, np.nan)
        return np.stack([(-b - sq) / aa, (-b + sq) / aa], axis=-1)


class _PolyGroup:
    """Convex counter-clockwise polygons of at most ``k`` vertices, padded to ``k``."""

    def __init__(self, polys: list[np.ndarray], k: int):
        n = len(polys)
        V = np.zeros((n, k, 2))
        W = np.zeros((n, k, 2))
        valid = np.zeros((n, k), dtype=bool)
        for i, p in enumerate(polys):
            m = len(p)
            V[i, :m] = p
            V[i, m:] = p[0]
            W[i, :m - 1] = p[1:]  # the next vertex (np.roll(p, -1) without its overhead)
            W[i, m - 1] = p[0]
            W[i, m:] = p[0]
            valid[i, :m] = True
        E = W - V
        ln = np.hypot(E[..., 0], E[..., 1])
        valid &= ln > 0
        ln = np.where(ln > 0, ln, 1.0)
        self.V, self.W, self.valid = V, W, valid
        self.nx, self.ny = E[..., 1] / ln, -E[..., 0] / ln  # outward normals
        self.c = self.nx * V[..., 0] + self.ny * V[..., 1]
        # edge j of every polygon as its own arrays (a test gathers 1-D columns and combines them
        # with &: the floats of the (n, k) expression, without numpy's slow reduction over a short
        # last axis); ``None`` where every polygon's edge j is valid
        self.cols = [(self.nx[:, j].copy(), self.ny[:, j].copy(), self.c[:, j].copy(),
                      None if valid[:, j].all() else ~valid[:, j]) for j in range(k)]

    @staticmethod
    def _test(cols, px, py, margin: float):
        """Is point i inside by more than ``margin`` for every edge of ``cols`` (columns of the
        polygons' edges, each gathered for the points' polygons)?"""
        ok = None
        for NX, NY, C, INV in cols:
            t = NX * px + NY * py - C < -margin
            if INV is not None:
                t |= INV
            if ok is None:
                ok = t
            else:
                ok &= t
        return ok

    def _gather(self, k):
        return [(NX[k], NY[k], C[k], None if INV is None else INV[k]) for NX, NY, C, INV in self.cols]

    def inside(self, px, py, k, margin: float):
        return self._test(self._gather(k), px, py, margin)

    def inside_all(self, pts, k, margin: float):
        """Is every point (px_j, py_j) of ``pts`` inside polygon k_i? The test of :meth:`inside`
        (the same floats), with the polygons' edges gathered once and later points tested only
        where the earlier ones are inside."""
        out = np.ones(len(k), dtype=bool)
        live = np.arange(len(k))
        cols = self._gather(k)
        for px, py in pts:
            ok = self._test(cols, px[live], py[live], margin)
            out[live[~ok]] = False
            live = live[ok]
            cols = [(NX[ok], NY[ok], C[ok], None if INV is None else INV[ok]) for NX, NY, C, INV in cols]
        return out


class _BigPolyGroup:
    """Convex counter-clockwise polygons of many vertices: a point is tested against the edge of
    its angular sector about an inside point and that edge's two neighbours (enough: the
    margins used, 0 and 1e-9", are far below any edge's length)."""

    def __init__(self, polys: list[np.ndarray]):
        self.polys = polys
        self.ctr = np.array([p.mean(axis=0) for p in polys]).reshape(-1, 2)
        keys, V, W, start, cnt = [], [], [], [], []
        off = 0
        for i, p in enumerate(polys):
            ang = np.mod(np.arctan2(p[:, 1] - self.ctr[i, 1], p[:, 0] - self.ctr[i, 0]), TWO_PI)
            r = int(np.argmin(ang))
            p = np.roll(p, -r, axis=0)
            ang = np.roll(ang, -r)
            keys.append(i * 8.0 + ang)
            V.append(p)
            W.append(np.roll(p, -1, axis=0))
            start.append(off)
            cnt.append(len(p))
            off += len(p)
        self.keys = np.concatenate(keys)
        V, W = np.vstack(V), np.vstack(W)
        E = W - V
        ln = np.hypot(E[:, 0], E[:, 1])
        ln = np.where(ln > 0, ln, 1.0)
        self.nx, self.ny = E[:, 1] / ln, -E[:, 0] / ln
        self.c = self.nx * V[:, 0] + self.ny * V[:, 1]
        self.start, self.cnt = np.array(start), np.array(cnt)

    def inside(self, px, py, k, margin: float):
        ang = np.mod(np.arctan2(py - self.ctr[k, 1], px - self.ctr[k, 0]), TWO_PI)
        e = np.searchsorted(self.keys, k * 8.0 + ang, side="right") - 1
        e = np.clip(e, self.start[k], self.start[k] + self.cnt[k] - 1)  # before the first vertex: the last edge
        before = k * 8.0 + ang < self.keys[self.start[k]]
        e = np.where(before, self.start[k] + self.cnt[k] - 1, e)
        ok = np.ones(len(k), dtype=bool)
        for sh in (-1, 0, 1):
            ee = self.start[k] + np.mod(e - self.start[k] + sh, self.cnt[k])
            ok &= self.nx[ee] * px + self.ny[ee] * py - self.c[ee] < -margin
        return ok


class Primitives:
    """Discs ``(x, y, R)`` and convex counter-clockwise polygons (padded arrays, grouped by
    size), with the strict membership tests of :class:`planner.deepstrike.regions.RegionSet`."""

    def __init__(self, discs: np.ndarray, polys: list[np.ndarray]):
        self.discs = np.unique(np.asarray(discs, float).reshape(-1, 3), axis=0)
        polys = [np.asarray(p, float) for p in polys]
        n = len(polys)
        size = np.array([max(4, 1 << int(math.ceil(math.log2(len(p))))) for p in polys], dtype=int)
        size = np.where(size > 16, 1 << 30, size)
        self.groups: list[_PolyGroup | _BigPolyGroup] = []
        self.gof = np.zeros(n, dtype=int)
        self.lof = np.zeros(n, dtype=int)
        for gi, k in enumerate(sorted(set(size.tolist()))):
            idx = np.nonzero(size == k)[0]
            sel = [polys[i] for i in idx]
            self.groups.append(_BigPolyGroup(sel) if k == 1 << 30 else _PolyGroup(sel, k))
            self.gof[idx] = gi
            self.lof[idx] = np.arange(len(idx))
        self.n_polys = n
        self.dbox = np.column_stack([self.discs[:, 0] - self.discs[:, 2], self.discs[:, 1] - self.discs[:, 2],
                                     self.discs[:, 0] + self.discs[:, 2], self.discs[:, 1] + self.discs[:, 2]])
        self.pbox = (np.array([[p[:, 0].min(), p[:, 1].min(), p[:, 0].max(), p[:, 1].max()] for p in polys])
                     if n else np.zeros((0, 4)))
        # every polygon edge (start, end)
        if polys:
            V = np.vstack(polys)
            W = np.vstack([np.concatenate((p[1:], p[:1])) for p in polys])
            e = np.column_stack([V, W])
        else:
            e = np.zeros((0, 4))
        self.edges = e[np.hypot(e[:, 2] - e[:, 0], e[:, 3] - e[:, 1]) > 0]

    def in_disc(self, px, py, k, margin: float = 0.0):
        x, y, R = self.discs[k, 0], self.discs[k, 1], self.discs[k, 2]
        if margin == 0.0:
            return (px - x) ** 2 + (py - y) ** 2 < R * R
        return np.hypot(px - x, py - y) < R - margin

    def in_poly_all(self, pts, k, margin: float = 0.0):
        """Is every point of ``pts`` (a list of (px, py) arrays, each shaped like k) inside
        polygon k_i (by more than ``margin``)? The same answers as :meth:`in_poly` point by point."""
        k = np.asarray(k)
        out = np.ones(k.shape, dtype=bool)
        g = self.gof[k]
        for gi, grp in enumerate(self.groups):
            sel = np.nonzero(g == gi)[0]
            if not len(sel):
                continue
            sub = [(px[sel], py[sel]) for px, py in pts]
            if isinstance(grp, _PolyGroup):
                out[sel] = grp.inside_all(sub, self.lof[k[sel]], margin)
            else:
                for px, py in sub:
                    out[sel] &= grp.inside(px, py, self.lof[k[sel]], margin)
        return out

    def in_poly(self, px, py, k, margin: float = 0.0):
        k = np.asarray(k)
        px, py = np.broadcast_to(px, k.shape), np.broadcast_to(py, k.shape)
        if len(self.groups) == 1:
            return self.groups[0].inside(px, py, self.lof[k], margin)
        out = np.zeros(k.shape, dtype=bool)
        g = self.gof[k]
        for gi, grp in enumerate(self.groups):
            sel = g == gi
            if sel.any():
                out[sel] = grp.inside(px[sel], py[sel], self.lof[k[sel]], margin)
        return out


class Locator:
    """Point-in-region tests through bins of ``cell`` inches over a box; points outside the box
    are tested against every primitive."""

    def __init__(self, prim: Primitives, lo: tuple[float, float], hi: tuple[float, float], cell: float = 0.5):
        self.prim = prim
        self.x0, self.y0 = lo
        self.cell = cell
        self.nx = max(1, int(math.ceil((hi[0] - lo[0]) / cell)))
        self.ny = max(1, int(math.ceil((hi[1] - lo[1]) / cell)))
        self.x1, self.y1 = self.x0 + self.nx * cell, self.y0 + self.ny * cell
        nb = self.nx * self.ny
        full = np.zeros(nb, dtype=bool)
        lists = {}
        for kind, box in (("d", prim.dbox), ("p", prim.pbox)):
            b, k = self._bin_pairs(box)
            # whole bin inside the (convex) primitive by more than the cover margin: its 4 corners are
            bx0 = self.x0 + (b % self.nx) * cell
            by0 = self.y0 + (b // self.nx) * cell
            corners = [(bx0 + ox, by0 + oy) for ox in (0.0, cell) for oy in (0.0, cell)]
            if kind == "d":
                inside = np.ones(len(b), dtype=bool)
                for px, py in corners:
                    inside &= prim.in_disc(px, py, k, COVER_MARGIN_IN)
            else:
                inside = prim.in_poly_all(corners, k, COVER_MARGIN_IN)
            full[b[inside]] = True
            lists[kind] = (b, k)
        self.full = full
        self.csr = {}
        for kind, (b, k) in lists.items():
            keep = ~full[b]
            b, k = b[keep], k[keep]
            order = np.argsort(b, kind="stable")
            b, k = b[order], k[order]
            counts = np.bincount(b, minlength=nb)
            starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
            self.csr[kind] = (starts, counts, k)

    def _bin_pairs(self, box):
        if len(box) == 0:
            return np.zeros(0, int), np.zeros(0, int)
        c = self.cell
        i0 = np.clip(np.floor((box[:, 0] - self.x0) / c), 0, self.nx - 1).astype(int)
        i1 = np.clip(np.floor((box[:, 2] - self.x0) / c), 0, self.nx - 1).astype(int)
        j0 = np.clip(np.floor((box[:, 1] - self.y0) / c), 0, self.ny - 1).astype(int)
        j1 = np.clip(np.floor((box[:, 3] - self.y0) / c), 0, self.ny - 1).astype(int)
        off = (box[:, 2] < self.x0) | (box[:, 0] > self.x1) | (box[:, 3] < self.y0) | (box[:, 1] > self.y1)
        w = np.where(off, 0, i1 - i0 + 1)
        h = np.where(off, 0, j1 - j0 + 1)
        n = w * h
        k = np.repeat(np.arange(len(box)), n)
        r = np.arange(n.sum()) - np.repeat(np.cumsum(n) - n, n)
        ww = np.repeat(w, n)
        return (np.repeat(j0, n) + r // ww) * self.nx + np.repeat(i0, n) + r % ww, k

    def covers(self, px, py) -> bool:
        return (self.x0 <= px.min() and px.max() < self.x1 and self.y0 <= py.min() and py.max() < self.y1)

    def inside(self, px, py, margin: float = 0.0) -> np.ndarray:
        """Is each point inside a primitive (by more than ``margin`` inches)?"""
        px, py = np.asarray(px, float), np.asarray(py, float)
        out = np.zeros(len(px), dtype=bool)
        P = self.prim
        ib = np.floor((px - self.x0) / self.cell)
        jb = np.floor((py - self.y0) / self.cell)
        inb = (ib >= 0) & (ib < self.nx) & (jb >= 0) & (jb < self.ny)
        # outside the bins: every primitive
        far = np.nonzero(~inb)[0]
        if len(far):
            for kind, n in (("d", len(P.discs)), ("p", P.n_polys)):
                if n == 0:
                    continue
                ii = np.repeat(far, n)
                kk = np.tile(np.arange(n), len(far))
                t = (P.in_disc(px[ii], py[ii], kk, margin) if kind == "d" else P.in_poly(px[ii], py[ii], kk, margin))
                out[ii[t]] = True
        idx = np.nonzero(inb)[0]
        b = (jb[idx] * self.nx + ib[idx]).astype(int)
        out[idx[self.full[b]]] = True
        rest = ~self.full[b]
        idx, b = idx[rest], b[rest]
        for kind in ("d", "p"):
            starts, counts, kl = self.csr[kind]
            cnt = counts[b]
            if cnt.sum() == 0:
                continue
            ii = np.repeat(idx, cnt)
            pos = np.repeat(starts[b], cnt) + np.arange(cnt.sum()) - np.repeat(np.cumsum(cnt) - cnt, cnt)
            kk = kl[pos]
            t = P.in_disc(px[ii], py[ii], kk, margin) if kind == "d" else P.in_poly(px[ii], py[ii], kk, margin)
            out[ii[t]] = True
        return out


class Boundary:
    """The boundary of one region (a union of discs and convex polygons) as circular arcs and
    segments, and the arc measure of circles against it."""

    def __init__(self, discs: np.ndarray, polys: list[np.ndarray],
                 queries: tuple[tuple[float, float], tuple[float, float]] | None = None):
        """``queries``: the box ((x0, y0), (x1, y1)) of the points and circles to be measured,
        when known: the one point locator then covers it as well as the primitives (one build
        instead of two; its answers do not depend on its extent)."""
        self.prim = P = Primitives(discs, polys)
        self._loc: Locator | None = None
        nd = len(P.discs)
        # ---- elements: the disc circles, the polygon edges
        sx, sy, tx, ty = (P.edges[:, j] for j in range(4))
        ns = len(sx)
        sbox = np.column_stack([np.minimum(sx, tx), np.minimum(sy, ty), np.maximum(sx, tx), np.maximum(sy, ty)])
        # where the pieces are: a locator over every finite primitive (the 1000" half-planes clipped)
        allbox = np.vstack([P.dbox, P.pbox, np.zeros((1, 4))])
        small = allbox[(allbox[:, 2] - allbox[:, 0] < 200) & (allbox[:, 3] - allbox[:, 1] < 200)]
        lo = (float(small[:, 0].min()) - 1, float(small[:, 1].min()) - 1)
        hi = (float(small[:, 2].max()) + 1, float(small[:, 3].max()) + 1)
        if queries is not None and all(math.isfinite(v) for v in (*queries[0], *queries[1])):
            lo = (min(lo[0], queries[0][0] - 1), min(lo[1], queries[0][1] - 1))
            hi = (max(hi[0], queries[1][0] + 1), max(hi[1], queries[1][1] + 1))
        cover = Locator(P, lo, hi, cell=0.5)
        if queries is not None:
            self._loc = cover
        cx, cy, cr = P.discs[:, 0], P.discs[:, 1], P.discs[:, 2]
        # ---- cut the circles
        cut_c: list[tuple[np.ndarray, np.ndarray]] = []
        i, j = _box_overlap_pairs(P.dbox, P.dbox, same=True)
        if len(i):
            X, Y = _circle_circle_pts(cx[i], cy[i], cr[i], cx[j], cy[j], cr[j])
            cut_c.append((np.repeat(i, 2), np.arctan2(Y.ravel() - np.repeat(cy[i], 2), X.ravel() - np.repeat(cx[i], 2))))
        # (disc, edge) pairs: their crossings cut both the circle and the edge (found once)
        i, e = _box_overlap_pairs(P.dbox, sbox, same=False)
        e_de = e
        t_de = np.zeros((0, 2))
        if len(i):
            t_de = t = _segment_circle_t(sx[e], sy[e], tx[e], ty[e], cx[i], cy[i], cr[i])
            t = np.where((t >= -_SLACK) & (t <= 1 + _SLACK), t, np.nan)
            X = sx[e][:, None] + t * (tx[e] - sx[e])[:, None]
            Y = sy[e][:, None] + t * (ty[e] - sy[e])[:, None]
            cut_c.append((np.repeat(i, 2), np.arctan2(Y.ravel() - np.repeat(cy[i], 2), X.ravel() - np.repeat(cx[i], 2))))
        arcs = self._keep_circle_pieces(nd, cx, cy, cr, cut_c, cover)
        # ---- cut the segments
        cut_s: list[tuple[np.ndarray, np.ndarray]] = []
        if len(e_de):
            cut_s.append((np.repeat(e_de, 2), t_de.ravel()))
        e, f = _box_overlap_pairs(sbox, sbox, same=True)
        if len(e):
            rx, ry = tx[e] - sx[e], ty[e] - sy[e]
            qx, qy = tx[f] - sx[f], ty[f] - sy[f]
            den = rx * qy - ry * qx
            wx, wy = sx[f] - sx[e], sy[f] - sy[e]
            with np.errstate(invalid="ignore", divide="ignore"):
                t = (wx * qy - wy * qx) / den
                u = (wx * ry - wy * rx) / den
            ok = (den != 0) & (u >= -_SLACK) & (u <= 1 + _SLACK)
            cut_s.append((e, np.where(ok, t, np.nan)))
        segs = self._keep_segment_pieces(ns, sx, sy, tx, ty, cut_s, cover)
        self.arcs = arcs  # (n, 5): cx, cy, R, start angle, span
        self.segs = segs  # (n, 4): px, py, qx, qy
        self.abox = _arc_boxes(arcs)
        self.sbox = np.column_stack([np.minimum(segs[:, 0], segs[:, 2]), np.minimum(segs[:, 1], segs[:, 3]),
                                     np.maximum(segs[:, 0], segs[:, 2]), np.maximum(segs[:, 1], segs[:, 3])])

    # ------------------------------------------------------------------ extraction
    @staticmethod
    def _runs(owner, lo, hi, keep):
        """Merge consecutive kept pieces of the same element: (owner, lo, hi) of every run."""
        if not len(owner):
            return owner, lo, hi
        start = keep & ~np.concatenate([[False], keep[:-1] & (owner[1:] == owner[:-1]) & (lo[1:] == hi[:-1])])
        rid = np.cumsum(start) - 1
        kept = np.nonzero(keep)[0]
        r = rid[kept]
        nr = int(start.sum())
        o = np.zeros(nr, int)
        a = np.full(nr, np.inf)
        b = np.full(nr, -np.inf)
        o[r] = owner[kept]
        np.minimum.at(a, r, lo[kept])
        np.maximum.at(b, r, hi[kept])
        return o, a, b

    def _keep_circle_pieces(self, nd, cx, cy, cr, cuts, cover: Locator) -> np.ndarray:
        own = [np.arange(nd)]
        ang = [np.zeros(nd)]
        for o, a in cuts:
            ok = np.isfinite(a)
            own.append(o[ok])
            ang.append(np.mod(a[ok], TWO_PI))
        own = np.concatenate(own)
        ang = np.concatenate(ang)
        order = np.lexsort((ang, own))
        own, ang = own[order], ang[order]
        nxt_same = np.concatenate([own[1:] == own[:-1], [False]])
        hi = np.where(nxt_same, np.concatenate([ang[1:], [0.0]]), TWO_PI)
        lo = ang
        keep = hi > lo
        mid = 0.5 * (lo + hi)
        mx, my = cx[own] + cr[own] * np.cos(mid), cy[own] + cr[own] * np.sin(mid)
        keep &= ~cover.inside(mx, my, COVER_MARGIN_IN)
        o, a, b = self._runs(own, lo, hi, keep)
        return np.column_stack([cx[o], cy[o], cr[o], a, b - a]) if len(o) else np.zeros((0, 5))

    def _keep_segment_pieces(self, ns, sx, sy, tx, ty, cuts, cover: Locator) -> np.ndarray:
        own = [np.arange(ns), np.arange(ns)]
        par = [np.zeros(ns), np.ones(ns)]
        for o, t in cuts:
            ok = np.isfinite(t) & (t > 0) & (t < 1)
            own.append(o[ok])
            par.append(t[ok])
        own = np.concatenate(own)
        par = np.concatenate(par)
        order = np.lexsort((par, own))
        own, par = own[order], par[order]
        same = np.concatenate([own[1:] == own[:-1], [False]])
        lo = par
        hi = np.where(same, np.concatenate([par[1:], [0.0]]), par)
        keep = same & (hi > lo)
        mid = 0.5 * (lo + hi)
        mx = sx[own] + mid * (tx[own] - sx[own])
        my = sy[own] + mid * (ty[own] - sy[own])
        keep &= ~cover.inside(mx, my, COVER_MARGIN_IN)
        o, a, b = self._runs(own, lo, hi, keep)
        if not len(o):
            return np.zeros((0, 4))
        ex, ey = tx[o] - sx[o], ty[o] - sy[o]
        return np.column_stack([sx[o] + a * ex, sy[o] + a * ey, sx[o] + b * ex, sy[o] + b * ey])

    # ------------------------------------------------------------------ queries
    def locator(self, lo, hi) -> Locator:
        if self._loc is None or not (self._loc.x0 <= lo[0] and self._loc.y0 <= lo[1] and hi[0] < self._loc.x1
                                     and hi[1] < self._loc.y1):
            self._loc = Locator(self.prim, (lo[0] - 1, lo[1] - 1), (hi[0] + 1, hi[1] + 1), cell=0.5)
        return self._loc

    def contains(self, px, py) -> np.ndarray:
        px, py = np.atleast_1d(np.asarray(px, float)), np.atleast_1d(np.asarray(py, float))
        if not len(px):
            return np.zeros(0, bool)
        return self.locator((px.min(), py.min()), (px.max(), py.max())).inside(px, py)

    def arc_fraction(self, cx, cy, d) -> np.ndarray:
        """Fraction of the angle of each circle (cx_i, cy_i, d_i) inside the region: shape (n,)."""
        cx, cy, d = (np.atleast_1d(np.asarray(a, float)) for a in (cx, cy, d))
        n = len(cx)
        if n == 0:
            return np.zeros(0)
        loc = self.locator((float((cx - d).min()), float((cy - d).min())), (float((cx + d).max()),
                                                                             float((cy + d).max())))
        gs, ths = [], []
        # the circles' pairs with the arcs' and the segments' boxes in one search (the sum below
        # does not depend on the order of the crossings: they are sorted by circle and angle, and
        # crossings of one angle are equal)
        na = len(self.abox)
        ci_all, k_all = circle_box_pairs(cx, cy, d, np.vstack([self.abox, self.sbox]), ordered=False)
        arc = k_all < na
        # crossings with the arcs
        ci, k = ci_all[arc], k_all[arc]
        if len(ci):
            A = self.arcs[k]
            X, Y = _circle_circle_pts(A[:, 0], A[:, 1], A[:, 2], cx[ci], cy[ci], d[ci])
            psi = np.arctan2(Y - A[:, 1:2], X - A[:, 0:1])
            rel = np.mod(psi - A[:, 3:4], TWO_PI)
            ok = np.isfinite(psi) & ((rel <= A[:, 4:5] + _SLACK) | (rel >= TWO_PI - _SLACK))
            th = np.arctan2(Y - cy[ci][:, None], X - cx[ci][:, None])
            g = np.repeat(ci, 2).reshape(-1, 2)
            gs.append(g[ok])
            ths.append(th[ok])
        ci, k = ci_all[~arc], k_all[~arc] - na
        if len(ci):
            S = self.segs[k]
            t = _segment_circle_t(S[:, 0], S[:, 1], S[:, 2], S[:, 3], cx[ci], cy[ci], d[ci])
            ok = np.isfinite(t) & (t >= -_SLACK) & (t <= 1 + _SLACK)
            X = S[:, 0:1] + t * (S[:, 2] - S[:, 0])[:, None]
            Y = S[:, 1:2] + t * (S[:, 3] - S[:, 1])[:, None]
            th = np.arctan2(Y - cy[ci][:, None], X - cx[ci][:, None])
            g = np.repeat(ci, 2).reshape(-1, 2)
            gs.append(g[ok])
            ths.append(th[ok])
        g = np.concatenate(gs) if gs else np.zeros(0, int)
        th = np.mod(np.concatenate(ths), TWO_PI) if ths else np.zeros(0)
        out = np.zeros(n)
        has = np.zeros(n, dtype=bool)
        has[g] = True
        # circles without a crossing: all in or all out
        none = np.nonzero(~has)[0]
        if len(none):
            out[none] = loc.inside(cx[none] + d[none], cy[none]).astype(float)
        if len(g):
            order = _lexsort2(th, g)
            g, th = g[order], th[order]
            same = np.concatenate([g[1:] == g[:-1], [False]])
            # the circle's first crossing, for the arc that wraps past 2 pi
            first = np.concatenate([[True], g[1:] != g[:-1]])
            first_th = np.maximum.accumulate(np.where(first, np.arange(len(g)), 0))
            nxt = np.where(same, np.concatenate([th[1:], [0.0]]), th[first_th] + TWO_PI)
            ln = nxt - th
            mid = 0.5 * (th + nxt)
            ins = loc.inside(cx[g] + d[g] * np.cos(mid), cy[g] + d[g] * np.sin(mid))
            out += np.bincount(g, weights=np.where(ins, ln, 0.0), minlength=n) / TWO_PI
        return np.minimum(out, 1.0)


def _lexsort2(minor: np.ndarray, major: np.ndarray) -> np.ndarray:
    """``np.lexsort((minor, major))`` (the same permutation: both sorts stable) through two
    stable argsorts, the integer one a radix sort where ``major`` fits in 16 bits."""
    o = np.argsort(minor, kind="stable")
    m = major[o]
    if len(m) and 0 <= m.min() and m.max() < 1 << 16:
        m = m.astype(np.uint16)
    return o[np.argsort(m, kind="stable")]


def _arc_boxes(arcs: np.ndarray) -> np.ndarray:
    """Tight boxes of arcs (cx, cy, R, start, span)."""
    if not len(arcs):
        return np.zeros((0, 4))
    cx, cy, R, a0, sp = (arcs[:, k] for k in range(5))
    a1 = a0 + sp
    xs = [cx + R * np.cos(a0), cx + R * np.cos(a1)]
    ys = [cy + R * np.sin(a0), cy + R * np.sin(a1)]
    for q in range(8):  # axis extremes inside the span (angles q pi / 2, two turns)
        phi = q * math.pi / 2
        inside = (phi >= a0) & (phi <= a1)
        xs.append(np.where(inside, cx + R * math.cos(phi), np.nan))
        ys.append(np.where(inside, cy + R * math.sin(phi), np.nan))
    X, Y = np.column_stack(xs), np.column_stack(ys)
    pad = 1e-9
    return np.column_stack([np.nanmin(X, 1) - pad, np.nanmin(Y, 1) - pad, np.nanmax(X, 1) + pad, np.nanmax(Y, 1) + pad])
