"""Footprints of bases on the battlefield plane, with exact distances.

A footprint is a convex set: a disc (round base), an ellipse (oval base) or a rotated rectangle
(the hull of a model without a base). Coordinates are inches, facings degrees counter-clockwise
from +x; an oval's length and a hull's length lie along the facing.

Exact maths, not polygons
-------------------------
``shapely``'s ``buffer()`` circles are inscribed polygons (a unit circle buffered with the
default resolution has area 3.1365, not pi), which would put a base up to ~0.0005" closer or
farther than it is. Round bases are therefore measured from centres and radii, and every convex
pair through the support-function formula

    signed_distance(A, B) = max over unit u of ( min_{b in B} u.b  -  max_{a in A} u.a )

which is the gap between A and B along the best direction when they are apart (the distance)
and minus the penetration depth when they overlap. Support functions of discs, ellipses and
polygons are closed-form. For an oval apart from another base (or a round base whose centre lies
outside the oval) the maximum over u is a certified Newton solve (:func:`_oval_apart`: exact to
rounding); otherwise it is found by a 512-direction scan refined by vectorised zooming to about
1e-11 rad (error below 1e-9"). Polygons (``shapely``) are used for drawing, for terrain and
zones, and as inscribed/circumscribed bounds where a proof needs a polygon.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Generic, TypeVar, cast, overload

import numpy as np
import shapely
from shapely.geometry import LineString, Polygon
from shapely.geometry.base import BaseGeometry

from planner.schema import HullBase, OvalBase, RoundBase, new_polygon
from planner.units import mm_to_in

_SCAN = 512
_THETAS = np.linspace(0.0, 2.0 * math.pi, _SCAN, endpoint=False)
_UX = np.cos(_THETAS)
_UY = np.sin(_THETAS)


_Obj = TypeVar("_Obj")
_Val = TypeVar("_Val")


class cached_property(Generic[_Obj, _Val]):  # noqa: N801 (named as the functools one it replaces)
    """``functools.cached_property`` without its per-instance lock (Python 3.11 takes a lock on
    every first access, a measurable cost for the many footprints the checker makes). The value is
    stored in the instance ``__dict__``, so later reads are plain attribute reads."""

    def __init__(self, func: Callable[[_Obj], _Val]) -> None:
        self.func = func
        self.name = func.__name__
        self.__doc__ = func.__doc__

    def __set_name__(self, owner: type[Any], name: str) -> None:
        self.name = name

    @overload
    def __get__(self, obj: None, objtype: type[Any] | None = None) -> cached_property[_Obj, _Val]: ...
    @overload
    def __get__(self, obj: _Obj, objtype: type[Any] | None = None) -> _Val: ...
    def __get__(self, obj: _Obj | None, objtype: type[Any] | None = None) -> _Val | cached_property[_Obj, _Val]:
        if obj is None:
            return self
        val = self.func(obj)
        obj.__dict__[self.name] = val
        return val


@dataclass(frozen=True)
class Footprint:
    """A convex footprint: ``kind`` is ``'circle'``, ``'ellipse'``, ``'polygon'`` or ``'segment'``.

    circle: centre (cx, cy), radius ``a``; ellipse: semi-axes ``a`` (along ``angle`` radians) and
    ``b``; polygon: convex ``verts`` (counter-clockwise); segment: ``verts`` holds its two ends.
    """

    kind: str
    cx: float
    cy: float
    a: float = 0.0
    b: float = 0.0
    angle: float = 0.0
    verts: tuple[tuple[float, float], ...] = field(default=())

    # ---------------------------------------------------------------- support function
    def support(self, ux: float, uy: float) -> float:
        """max over points p of the footprint of u.p, for a unit vector u."""
        if self.kind == "circle":
            return self.cx * ux + self.cy * uy + self.a
        if self.kind == "ellipse":
            c, s = self._cs
            ua = ux * c + uy * s
            ub = -ux * s + uy * c
            return self.cx * ux + self.cy * uy + math.hypot(self.a * ua, self.b * ub)
        return max(x * ux + y * uy for x, y in self.verts)

    @cached_property
    def _cs(self) -> tuple[float, float]:
        return math.cos(self.angle), math.sin(self.angle)

    @cached_property
    def _straight(self) -> LineString | Polygon:
        """The shapely geometry of a straight-edged footprint (polygon or segment), built once."""
        return shapely.LineString(self.verts) if self.kind == "segment" else new_polygon(self.verts)

    @cached_property
    def _verts_array(self) -> np.ndarray:
        return np.asarray(self.verts)

    def support_many(self, ux: np.ndarray, uy: np.ndarray) -> np.ndarray:
        """Vectorised :meth:`support` over arrays of unit vectors."""
        if self.kind == "circle":
            return self.cx * ux + self.cy * uy + self.a
        if self.kind == "ellipse":
            c, s = math.cos(self.angle), math.sin(self.angle)
            ua = ux * c + uy * s
            ub = -ux * s + uy * c
            return self.cx * ux + self.cy * uy + np.hypot(self.a * ua, self.b * ub)
        v = self._verts_array
        out: np.ndarray = np.max(v[:, 0:1] * ux[None, :] + v[:, 1:2] * uy[None, :], axis=0)
        return out

    # ---------------------------------------------------------------- radii
    @cached_property
    def outer_radius(self) -> float:
        """Radius of the smallest disc about the centre that contains the footprint."""
        if self.kind in ("circle", "ellipse"):
            return max(self.a, self.b) if self.kind == "ellipse" else self.a
        return max(math.hypot(x - self.cx, y - self.cy) for x, y in self.verts)

    @cached_property
    def inner_radius(self) -> float:
        """Radius of a disc about the centre contained in the footprint (0 for a segment)."""
        if self.kind == "circle":
            return self.a
        if self.kind == "ellipse":
            return min(self.a, self.b)
        if self.kind == "segment":
            return 0.0
        return min(self.a, self.b)  # hull rectangles keep half-length and half-width in a and b

    # ---------------------------------------------------------------- polygons
    def polygon(self, n: int = 96, *, circumscribed: bool = False) -> Polygon:
        """A shapely polygon of the footprint.

        Curved footprints give an ``n``-gon, inscribed by default (every vertex on the curve), or
        circumscribed (containing the true shape) with ``circumscribed=True``.
        """
        return _polygon_cached(self, n, circumscribed)

    def _polygon(self, n: int, circumscribed: bool) -> Polygon:
        if self.kind == "segment":
            raise ValueError("a segment has no polygon")
        if self.kind == "polygon":
            return cast(Polygon, new_polygon(self.verts))
        t = np.linspace(0.0, 2.0 * math.pi, n, endpoint=False)
        scale = 1.0 / math.cos(math.pi / n) if circumscribed else 1.0
        a = self.a * scale
        b = (self.b if self.kind == "ellipse" else self.a) * scale
        ang = self.angle if self.kind == "ellipse" else 0.0
        c, s = math.cos(ang), math.sin(ang)
        x = a * np.cos(t)
        y = b * np.sin(t)
        # an ellipse is an affine image of a circle, so the scaled n-gon still contains it
        return Polygon(np.column_stack([self.cx + x * c - y * s, self.cy + x * s + y * c]))

    def contains_point(self, x: float, y: float) -> bool:
        """True if (x, y) is in the closed footprint."""
        dx, dy = x - self.cx, y - self.cy
        if self.kind == "circle":
            return dx * dx + dy * dy <= self.a * self.a
        if self.kind == "ellipse":
            c, s = math.cos(self.angle), math.sin(self.angle)
            p = dx * c + dy * s
            q = -dx * s + dy * c
            return (p / self.a) ** 2 + (q / self.b) ** 2 <= 1.0
        return self.polygon().covers(shapely.Point(x, y))

    def moved(self, x: float, y: float, facing_deg: float | None = None) -> Footprint:
        """The same shape with its centre at (x, y) (and, for ellipses/polygons, a new facing)."""
        return footprint_of_shape(self, x, y, facing_deg)


_POLYGONS_MAX = 65536
_POLYGONS: dict[tuple[Footprint, int, bool], Polygon] = {}


def _polygon_cached(fp: Footprint, n: int, circumscribed: bool) -> Polygon:
    """``fp._polygon(n, circumscribed)``, kept by value (at most ``_POLYGONS_MAX``, the oldest
    dropped first)."""
    key = (fp, n, circumscribed)
    hit = _POLYGONS.get(key)
    if hit is None:
        hit = _keep_polygon(key, fp._polygon(n, circumscribed))
    return hit


def _keep_polygon(key: tuple[Footprint, int, bool], poly: Polygon) -> Polygon:
    if len(_POLYGONS) >= _POLYGONS_MAX:
        _POLYGONS.pop(next(iter(_POLYGONS)))
    _POLYGONS[key] = poly
    return poly


def polygons(fps: Sequence[Footprint], n: int = 96, *, circumscribed: bool = False) -> list[Polygon]:
    """``[f.polygon(n, circumscribed=circumscribed) for f in fps]``: the same polygons (the same
    coordinates, bit for bit, and the same kept objects), the curved ones not made yet built in
    one vectorised pass (the same numpy operations, elementwise, in the same order, as
    :meth:`Footprint.polygon`), one GEOS call for all of them.

    Raises
    ------
    ValueError
        If some footprint is a segment.
    """
    out: list[Polygon | None] = []
    todo: list[int] = []
    for k, f in enumerate(fps):
        hit = _POLYGONS.get((f, n, circumscribed))
        if hit is None and f.kind != "polygon" and f.kind != "segment":
            todo.append(k)
        elif hit is None:
            hit = _polygon_cached(f, n, circumscribed)
        out.append(hit)
    if len(todo) == 1:
        f = fps[todo[0]]
        out[todo[0]] = _polygon_cached(f, n, circumscribed)
    elif todo:
        curved = [fps[k] for k in todo]
        t = np.linspace(0.0, 2.0 * math.pi, n, endpoint=False)
        scale = 1.0 / math.cos(math.pi / n) if circumscribed else 1.0
        a = np.array([f.a * scale for f in curved])[:, None]
        b = np.array([(f.b if f.kind == "ellipse" else f.a) * scale for f in curved])[:, None]
        cs = [(math.cos(f.angle), math.sin(f.angle)) if f.kind == "ellipse" else (1.0, 0.0) for f in curved]
        c = np.array([v[0] for v in cs])[:, None]
        s = np.array([v[1] for v in cs])[:, None]
        x = a * np.cos(t)
        y = b * np.sin(t)
        cx = np.array([f.cx for f in curved])[:, None]
        cy = np.array([f.cy for f in curved])[:, None]
        made = cast(np.ndarray, shapely.polygons(np.stack([cx + x * c - y * s, cy + x * s + y * c], axis=-1)))
        for k, f, poly in zip(todo, curved, made.tolist(), strict=True):
            key = (f, n, circumscribed)
            # a footprint listed twice: the first one made is kept, as one by one
            out[k] = _POLYGONS.get(key) or _keep_polygon(key, poly)
    return cast(list[Polygon], out)


@lru_cache(maxsize=64)
def battlefield_box(width: float, depth: float) -> Polygon:
    """The battlefield ``box(0, 0, width, depth)`` (inches), one shared polygon per size:
    shapely geometries are immutable, and what is measured against a polygon is kept by its
    identity (:func:`clearances_inside`, :func:`clearance_inside`), so the generator's scenes
    and the checker's tables of one size measure against one box instead of a new one each."""
    return shapely.box(0.0, 0.0, width, depth)


def round_footprint(x: float, y: float, diameter_mm: float) -> Footprint:
    """A round base of ``diameter_mm`` centred at (x, y) inches."""
    return Footprint("circle", x, y, mm_to_in(diameter_mm) / 2.0)


def segment(p: tuple[float, float], q: tuple[float, float]) -> Footprint:
    """A line segment, as a convex footprint (used for polygon edges)."""
    return _new_footprint("segment", (p[0] + q[0]) / 2, (p[1] + q[1]) / 2, verts=(p, q))


def _new_footprint(kind: str, cx: float, cy: float, a: float = 0.0, b: float = 0.0, angle: float = 0.0,
                   verts: tuple[tuple[float, float], ...] = ()) -> Footprint:
    """``Footprint(kind, cx, cy, a, b, angle, verts)``, the same (equal, hashed alike) object,
    made without the frozen dataclass's field-by-field ``object.__setattr__`` (about half the
    cost; the checker makes a footprint per model per check)."""
    fp = object.__new__(Footprint)
    fp.__dict__.update(kind=kind, cx=cx, cy=cy, a=a, b=b, angle=angle, verts=verts)
    return fp


def footprint(base: RoundBase | OvalBase | HullBase, x: float, y: float, facing_deg: float = 0.0) -> Footprint:
    """The footprint of ``base`` with centre (x, y) inches and facing in degrees."""
    if isinstance(base, RoundBase):
        return _new_footprint("circle", x, y, mm_to_in(base.diameter_mm) / 2.0)
    ang = math.radians(facing_deg)
    if isinstance(base, OvalBase):
        a = mm_to_in(base.length_mm) / 2.0
        b = mm_to_in(base.width_mm) / 2.0
        if a == b:
            return _new_footprint("circle", x, y, a)
        return _new_footprint("ellipse", x, y, a, b, ang)
    hl, hw = base.length_in / 2.0, base.width_in / 2.0
    c, s = math.cos(ang), math.sin(ang)
    corners = [(hl, hw), (-hl, hw), (-hl, -hw), (hl, -hw)]
    verts = tuple((x + px * c - py * s, y + px * s + py * c) for px, py in corners)
    # counter-clockwise order for corners listed (+,+), (-,+), (-,-), (+,-)
    return _new_footprint("polygon", x, y, hl, hw, ang, verts)


def footprint_of_shape(fp: Footprint, x: float, y: float, facing_deg: float | None) -> Footprint:
    ang = fp.angle if facing_deg is None else math.radians(facing_deg)
    if fp.kind == "circle":
        return Footprint("circle", x, y, fp.a)
    if fp.kind == "ellipse":
        return Footprint("ellipse", x, y, fp.a, fp.b, ang)
    if fp.kind == "polygon":
        hl, hw = fp.a, fp.b
        c, s = math.cos(ang), math.sin(ang)
        corners = [(hl, hw), (-hl, hw), (-hl, -hw), (hl, -hw)]
        verts = tuple((x + px * c - py * s, y + px * s + py * c) for px, py in corners)
        return Footprint("polygon", x, y, hl, hw, ang, verts)
    raise ValueError(f"cannot move a {fp.kind}")


# ---------------------------------------------------------------- signed distance


def signed_distance(a: Footprint, b: Footprint) -> float:
    """Closest-point distance between two footprints, in inches; negative when they overlap.

    When the footprints are apart this is the length of the shortest segment joining them
    ("closest point of base to closest point of base"); 0 when they touch; minus the
    penetration depth when they overlap.

    Examples
    --------
    Two 32 mm bases whose centres are 10.5" apart are 10.5 - 32/25.4 = 9.2401..." apart:

    >>> round(signed_distance(round_footprint(0, 0, 32), round_footprint(10.5, 0, 32)), 6)
    9.240157
    """
    if a.kind == "circle" and b.kind == "circle":
        return math.hypot(a.cx - b.cx, a.cy - b.cy) - a.a - b.a
    if a.kind in ("polygon", "segment") and b.kind in ("polygon", "segment"):
        ga, gb = _straight(a), _straight(b)
        if not ga.intersects(gb):
            return ga.distance(gb)  # exact for straight-edged shapes
    if a.kind == "circle" and b.kind in ("polygon", "segment"):
        return _circle_poly(a, b)
    if b.kind == "circle" and a.kind in ("polygon", "segment"):
        return _circle_poly(b, a)
    if a.kind == "ellipse" or b.kind == "ellipse":
        apart = _oval_apart(a, b)
        if apart is not None:
            return apart
    return _searched(a, b)


def _searched(a: Footprint, b: Footprint) -> float:
    """The support-function search of :func:`signed_distance`: a scan of :data:`_SCAN` directions,
    the best one (apart) or three (overlapping) refined by :func:`_zoom_max`."""
    ux, uy = _UX, _UY
    vals = -b.support_many(-ux, -uy) - a.support_many(ux, uy)
    # refine the best local maximum (the gap is unimodal where positive, so one suffices when the
    # footprints are apart); when they overlap, refine the best three
    idx = [int(np.argmax(vals))] if vals.max() > 0 else list(np.argsort(vals)[-3:])
    step = 2.0 * math.pi / _SCAN
    best = -math.inf
    for i in idx:
        t0 = float(_THETAS[i])
        best = max(best, _zoom_max(a, b, t0, step), float(vals[i]))
    return best


_ZOOM = np.linspace(-1.0, 1.0, 33)


def _zoom_max(a: Footprint, b: Footprint, t0: float, half: float) -> float:
    """Maximise the gap near angle t0 by vectorised zooming: 33 angles a round, 16x narrower each
    round, to a bracket of about 1e-11 rad."""
    best = -math.inf
    while half > 1e-11:
        t = t0 + half * _ZOOM
        ux, uy = np.cos(t), np.sin(t)
        vals = -b.support_many(-ux, -uy) - a.support_many(ux, uy)
        k = int(np.argmax(vals))
        best = max(best, float(vals[k]))
        t0 = float(t[k])
        half /= 16.0
    return best


def signed_distances(pairs: Sequence[tuple[Footprint, Footprint]]) -> np.ndarray:
    """:func:`signed_distance` of every pair ``(a, b)`` (inches; negative: overlapping), the same
    values: the pairs with an oval that the Newton solve (:func:`_oval_apart`) leaves to the
    support-function search are searched together, each round one numpy pass over all of them,
    the others one by one.

    Returns an array of ``len(pairs)`` floats."""
    out = np.empty(len(pairs))
    batch: list[int] = []
    for k, (a, b) in enumerate(pairs):
        if a.kind == "ellipse" or b.kind == "ellipse":
            apart = _oval_apart(a, b)
            if apart is None:
                batch.append(k)
            else:
                out[k] = apart
        else:
            out[k] = signed_distance(a, b)
    if len(batch) == 1:
        out[batch[0]] = _searched(*pairs[batch[0]])
    elif batch:
        fa = [pairs[k][0] for k in batch]
        fb = [pairs[k][1] for k in batch]
        top, idx = _scan_many(fa, fb)
        apart = np.nonzero(top > 0)[0]
        for r in np.nonzero(~(top > 0))[0].tolist():  # overlapping: the search of the best three, one by one
            out[batch[r]] = _searched(fa[r], fb[r])
        if len(apart):
            best = _zoom_many([fa[r] for r in apart.tolist()], [fb[r] for r in apart.tolist()],
                              _THETAS[idx[apart]], 2.0 * math.pi / _SCAN)
            best = np.maximum(best, top[apart])
            out[np.asarray(batch)[apart]] = best
    return out


_SCAN_EPS = 1e-7
"""Slack (inches) of the scan window's bound: far above the rounding of the gap (about 1e-13)."""


def _scan_many(fa: Sequence[Footprint], fb: Sequence[Footprint]) -> tuple[np.ndarray, np.ndarray]:
    """For each pair ``(fa[r], fb[r])``: the largest gap ``-h_b(-u) - h_a(u)`` over the
    :data:`_SCAN` directions and the first direction (index into :data:`_THETAS`) that gives it,
    as the full scan of every direction finds them (the same floats).

    For two round or oval bases only the directions that can hold the maximum are measured: the
    gap is ``(c_b - c_a).u`` less the two support radii, each between the base's inner and outer
    radius (exact for circles and ellipses), so a direction whose upper bound is below the best
    lower bound by more than :data:`_SCAN_EPS` cannot reach the maximum. The directions kept are
    measured with the same values of :data:`_UX`, :data:`_UY` (the same floats), in groups of
    rows of at most 64, 128 or 256 directions; other pairs (a hull or an edge) scan every one."""
    n = len(fa)
    top = np.empty(n)
    first = np.empty(n, dtype=np.intp)
    curved = np.array([a.kind in ("circle", "ellipse") and b.kind in ("circle", "ellipse") for a, b in zip(fa, fb, strict=True)])
    width = np.full(n, _SCAN)
    keep = np.zeros((0, _SCAN), dtype=np.bool_)
    rows_c = np.nonzero(curved)[0]
    if len(rows_c):
        dx = np.array([fb[r].cx - fa[r].cx for r in rows_c.tolist()])
        dy = np.array([fb[r].cy - fa[r].cy for r in rows_c.tolist()])
        r_in = np.array([fa[r].inner_radius + fb[r].inner_radius for r in rows_c.tolist()])
        r_out = np.array([fa[r].outer_radius + fb[r].outer_radius for r in rows_c.tolist()])
        along = dx[:, None] * _UX[None, :] + dy[:, None] * _UY[None, :]
        low = along.max(axis=1) - r_out  # the gap in the best direction is at least this
        keep = along - r_in[:, None] >= (low - _SCAN_EPS)[:, None]
        width[rows_c] = keep.sum(axis=1)
    where = {r: k for k, r in enumerate(rows_c.tolist())}
    for lo, hi in ((0, 64), (64, 128), (128, 256), (256, _SCAN)):
        rows = np.nonzero((width > lo) & (width <= hi))[0]
        if not len(rows):
            continue
        if hi == _SCAN:
            cols = np.broadcast_to(np.arange(_SCAN), (len(rows), _SCAN))
        else:  # each row's kept directions in order, padded with its first (no new maximum)
            mask = keep[[where[r] for r in rows.tolist()]]
            order = np.argsort(~mask, axis=1, kind="stable")[:, :hi]
            cols = np.where(np.arange(hi)[None, :] < width[rows][:, None], order, order[:, :1])
        ux, uy = _UX[cols], _UY[cols]
        ga, gb = [fa[r] for r in rows.tolist()], [fb[r] for r in rows.tolist()]
        vals = -_Supports(gb)(-ux, -uy) - _Supports(ga)(ux, uy)
        best = vals.max(axis=1)
        # the first direction of the maximum, in the order of the full scan
        first[rows] = np.where(vals == best[:, None], cols, _SCAN).min(axis=1)
        top[rows] = best
    return top, first


class _Supports:
    """:meth:`Footprint.support_many` of ``fps[r]`` over row ``r`` of direction arrays (the same
    floats), the parameters of each kind gathered once, each kind one numpy pass."""

    def __init__(self, fps: Sequence[Footprint]):
        kinds: dict[str, list[int]] = {}
        for r, f in enumerate(fps):
            kinds.setdefault("straight" if f.kind in ("polygon", "segment") else f.kind, []).append(r)
        self.groups: list[tuple[str, np.ndarray, tuple[np.ndarray, ...]]] = []
        for kind, rows in kinds.items():
            g = [fps[r] for r in rows]
            cx, cy = np.array([[f.cx] for f in g]), np.array([[f.cy] for f in g])
            if kind == "circle":
                params: tuple[np.ndarray, ...] = (cx, cy, np.array([[f.a] for f in g]))
            elif kind == "ellipse":
                params = (cx, cy, np.array([[math.cos(f.angle)] for f in g]), np.array([[math.sin(f.angle)] for f in g]),
                          np.array([[f.a] for f in g]), np.array([[f.b] for f in g]))
            else:  # the vertices padded by repeating the first: the same maximum
                n = max(len(f.verts) for f in g)
                v = np.array([list(f.verts) + [f.verts[0]] * (n - len(f.verts)) for f in g])
                params = (v[:, :, 0:1], v[:, :, 1:2])
            self.groups.append((kind, np.asarray(rows), params))
        self.n = len(fps)

    def __call__(self, ux: np.ndarray, uy: np.ndarray) -> np.ndarray:
        if len(self.groups) == 1:
            return self._one(*self.groups[0], ux, uy, whole=True)
        out = np.empty(ux.shape)
        for kind, rows, params in self.groups:
            out[rows] = self._one(kind, rows, params, ux, uy, whole=False)
        return out

    @staticmethod
    def _one(kind: str, rows: np.ndarray, params: tuple[np.ndarray, ...], ux: np.ndarray, uy: np.ndarray,
             whole: bool) -> np.ndarray:
        x, y = (ux, uy) if whole else (ux[rows], uy[rows])
        if kind == "circle":
            cx, cy, a = params
            out: np.ndarray = cx * x + cy * y + a
            return out
        if kind == "ellipse":
            cx, cy, c, s, a, b = params
            ua = x * c + y * s
            ub = -x * s + y * c
            out = cx * x + cy * y + np.hypot(a * ua, b * ub)
            return out
        vx, vy = params
        out = np.max(vx * x[:, None, :] + vy * y[:, None, :], axis=1)
        return out


def _zoom_many(fa: Sequence[Footprint], fb: Sequence[Footprint], t0: np.ndarray, half: float) -> np.ndarray:
    """:func:`_zoom_max` of pairs ``(fa[r], fb[r])`` from angles ``t0[r]``, all at once."""
    sa, sb = _Supports(fa), _Supports(fb)
    best = np.full(len(fa), -math.inf)
    rows = np.arange(len(fa))
    while half > 1e-11:
        t = t0[:, None] + half * _ZOOM
        ux, uy = np.cos(t), np.sin(t)
        vals = -sb(-ux, -uy) - sa(ux, uy)
        k = np.argmax(vals, axis=1)
        best = np.maximum(best, vals[rows, k])
        t0 = t[rows, k]
        half /= 16.0
    return best


# ---------------------------------------------------------------- ovals apart: a Newton solve

_COARSE = 32
_COARSE_U = tuple((math.cos(2.0 * math.pi * k / _COARSE), math.sin(2.0 * math.pi * k / _COARSE)) for k in range(_COARSE))
_NEWTON_STEP = 1e-13
"""Newton stops once its step is below this (radians): the gap is then exact to rounding (its
error is second order in the angle)."""
_CERTIFY = 1e-9
"""Half-width (radians) of the interval across which ``g'`` must change sign from + to -."""
_MEETS_EPS = 1e-9
"""Margin of the scaled test "the segment misses the oval" (squared unit-disc radius): closer
segments take the search."""


def _oval_apart(a: Footprint, b: Footprint) -> float | None:
    """:func:`signed_distance` of a pair with an oval (ellipse) in it when the two are apart;
    ``None`` when that cannot be shown quickly (touching, overlapping, or too close to tell: the
    caller's support-function search takes those).

    Two round or oval bases: the gap ``g(t) = (c_b - c_a).u(t) - s_a(t) - s_b(t)`` along the
    direction ``u(t)`` (``s``: a base's support radius, ``sqrt(a^2 ua^2 + b^2 ub^2)`` for an
    ellipse) is a lower bound of the distance for every ``t``, and its maximum is the distance.
    Where it is positive its superlevel sets are arcs (``g(u) - c|u|`` is concave in the plane), so
    a local maximum with a positive value is the maximum. Newton's method on ``g'(t) = 0`` from
    the centre line finds it in a few steps; it is accepted only with that certificate (``g > 0``
    and ``g'`` changing sign from + to - across :data:`_CERTIFY` of it). Otherwise the best of 32
    directions, when positive and above two positive neighbours, brackets the maximum for a
    safeguarded Newton solve (bisection when a step leaves the bracket). The value returned is
    the largest ``g`` evaluated: never above the distance, below it by rounding only.

    An oval and a round base: the distance of the base's centre (a point: a round base of radius 0
    above) less its radius, also when they overlap if the centre lies outside the oval.

    An oval and a segment (a polygon edge): the distance is the gap to the segment's line where
    the oval's nearest point to the line projects inside the segment, else the nearer end's
    distance (a point, as above), once the segment is shown to miss the
    oval. A hull: the least over its edges, when the oval's centre lies outside it and every edge
    misses the oval; an end's distance is solved only when its bounds (centre distance less the
    outer and the inner radius) let it be the least."""
    ka, kb = a.kind, b.kind
    if ka == "ellipse":
        if kb == "ellipse":
            return _curved_gap(a, b.cx - a.cx, b.cy - a.cy, b)
        e, o = a, b
    elif kb == "ellipse":
        e, o = b, a
    else:
        return None
    if o.kind == "circle":
        # a disc's signed distance is its centre's less its radius: exact also when the two
        # overlap, as long as the centre lies outside the oval (the point's gap is positive)
        g = _curved_gap(e, o.cx - e.cx, o.cy - e.cy, None)
        return None if g is None else g - o.a
    vs = o.verts
    if o.kind == "segment":
        edges = [(vs[0], vs[1])]
    elif o.kind == "polygon":
        edges = list(zip(vs, vs[1:] + vs[:1], strict=True))
        # the oval's centre must lie outside the convex hull (on the outer side of some edge,
        # whichever way the vertices turn)
        sides = [(q[0] - p[0]) * (e.cy - p[1]) - (q[1] - p[1]) * (e.cx - p[0]) for p, q in edges]
        if min(sides) >= 0.0 or max(sides) <= 0.0:
            return None
    else:
        return None
    best = math.inf
    ends: set[tuple[float, float]] = set()
    for p, q in edges:
        side = _segment_side(e, p, q)
        if side is None:
            return None
        if side >= 0.0:
            best = min(best, side)
        else:
            ends.update((p, q))
    if not ends:
        return best
    radial = sorted((math.hypot(v[0] - e.cx, v[1] - e.cy), v) for v in ends)
    best = min(best, radial[0][0] - e.inner_radius)  # an upper bound of the nearest end's distance
    for rho, v in radial:
        if rho - e.outer_radius > best:
            break
        d = _curved_gap(e, v[0] - e.cx, v[1] - e.cy, None)
        if d is None:
            return None
        best = min(best, d)
    return best


def _segment_side(e: Footprint, p: tuple[float, float], q: tuple[float, float]) -> float | None:
    """For the oval ``e`` and the segment ``pq``: the distance between them (>= 0) when it is the
    gap to the segment's line; -1.0 when the segment misses the oval and the distance is that of
    the nearer end; ``None`` when the segment may meet the oval."""
    ex, ey = q[0] - p[0], q[1] - p[1]
    ln2 = ex * ex + ey * ey
    c, s = e._cs
    px, py = p[0] - e.cx, p[1] - e.cy
    if ln2 > 0.0:
        ln = math.sqrt(ln2)
        nx, ny = -ey / ln, ex / ln
        t = nx * px + ny * py
        if t < 0.0:
            nx, ny, t = -nx, -ny, -t
        na, nb = nx * c + ny * s, ny * c - nx * s
        h = math.hypot(e.a * na, e.b * nb)  # the oval's reach towards the line
        if t - h > 0.0:
            # the oval's nearest point to the line (its support point along n), projected on it
            mx, my = e.a * e.a * na / h, e.b * e.b * nb / h
            lam = ((mx * c - my * s - px) * ex + (mx * s + my * c - py) * ey) / ln2
            return t - h if 0.0 <= lam <= 1.0 else -1.0
    # the line meets the oval: in the oval's frame scaled to a unit disc, the segment misses the
    # disc if its nearest point to the centre lies outside it
    pa, pb = (px * c + py * s) / e.a, (py * c - px * s) / e.b
    da, db = (ex * c + ey * s) / e.a, (ey * c - ex * s) / e.b
    dd = da * da + db * db
    lam = min(1.0, max(0.0, -(pa * da + pb * db) / dd)) if dd > 0.0 else 0.0
    if (pa + lam * da) ** 2 + (pb + lam * db) ** 2 <= 1.0 + _MEETS_EPS:
        return None
    return -1.0


def _curved_gap(a: Footprint, dx: float, dy: float, b: Footprint | None) -> float | None:
    """The maximum over directions of the gap between the oval ``a`` and an oval ``b`` (``None``:
    a point) whose centre is ``(dx, dy)`` from ``a``'s, as :func:`_oval_apart` describes; ``None``
    when no positive maximum is certified."""
    ca, sa = a._cs
    a2, b2 = a.a * a.a, a.b * a.b
    two: tuple[float, float, float, float] | None = None
    if b is not None:
        cb, sb = b._cs
        two = (cb, sb, b.a * b.a, b.b * b.b)

    def terms(t: float) -> tuple[float, float, float]:
        """g(t), g'(t), g''(t)."""
        ux, uy = math.cos(t), math.sin(t)
        along = dx * ux + dy * uy
        g, d1, d2 = along, dy * ux - dx * uy, -along
        for c, s, p2, q2 in ((ca, sa, a2, b2),) if two is None else ((ca, sa, a2, b2), two):
            ua, ub = ux * c + uy * s, uy * c - ux * s
            sq = math.sqrt(p2 * ua * ua + q2 * ub * ub)
            k = q2 - p2
            s1 = k * ua * ub / sq
            g -= sq
            d1 -= s1
            d2 -= (k * (ua * ua - ub * ub) - s1 * s1) / sq
        return g, d1, d2

    t = math.atan2(dy, dx)
    best = -math.inf
    for _ in range(16):
        g, d1, d2 = terms(t)
        best = max(best, g)
        step = -d1 / d2 if d2 < 0.0 else math.copysign(0.25, d1)
        if abs(step) < _NEWTON_STEP:
            if g > 0.0 and terms(t - _CERTIFY)[1] > 0.0 > terms(t + _CERTIFY)[1]:
                return best
            break
        t += max(-0.5, min(0.5, step))
    return _bracketed_gap(terms, dx, dy, ((ca, sa, a2, b2),) if two is None else ((ca, sa, a2, b2), two))


def _bracketed_gap(terms: Callable[[float], tuple[float, float, float]], dx: float, dy: float,
                   ells: tuple[tuple[float, float, float, float], ...]) -> float | None:
    """The fallback of :func:`_curved_gap`: the best of :data:`_COARSE` directions brackets the
    maximum when it and both its neighbours are positive; a safeguarded Newton solve in it."""
    vals = []
    for ux, uy in _COARSE_U:
        g = dx * ux + dy * uy
        for c, s, p2, q2 in ells:
            ua, ub = ux * c + uy * s, uy * c - ux * s
            g -= math.sqrt(p2 * ua * ua + q2 * ub * ub)
        vals.append(g)
    k = max(range(_COARSE), key=vals.__getitem__)
    best = vals[k]
    lo_v, hi_v = vals[k - 1], vals[(k + 1) % _COARSE]
    if not (lo_v > 0.0 and hi_v > 0.0 and best > lo_v and best > hi_v):
        return None
    step = 2.0 * math.pi / _COARSE
    lo, hi = step * k - step, step * k + step
    t = step * k
    for _ in range(100):
        g, d1, d2 = terms(t)
        best = max(best, g)
        if d1 > 0.0:
            lo = t
        else:
            hi = t
        nt = t - d1 / d2 if d2 < 0.0 else lo - 1.0
        if not lo < nt < hi:
            nt = 0.5 * (lo + hi)
        if abs(nt - t) < _NEWTON_STEP or hi - lo < _NEWTON_STEP:
            return max(best, terms(nt)[0])
        t = nt
    return None


def _straight(f: Footprint) -> LineString | Polygon:
    return f._straight


def _point_to_segment(px: float, py: float, ax: float, ay: float, bx: float, by: float) -> float:
    """GEOS's ``Distance::pointToSegment`` in Python floats (the same operations in the same
    order, so the same float as ``shapely.distance`` of a point and a segment)."""
    if ax == bx and ay == by:
        return math.sqrt((px - ax) * (px - ax) + (py - ay) * (py - ay))
    ex, ey = bx - ax, by - ay
    l2 = ex * ex + ey * ey
    r = ((px - ax) * ex + (py - ay) * ey) / l2
    if r <= 0.0:
        return math.sqrt((px - ax) * (px - ax) + (py - ay) * (py - ay))
    if r >= 1.0:
        return math.sqrt((px - bx) * (px - bx) + (py - by) * (py - by))
    s = ((ay - py) * ex - (ax - px) * ey) / l2
    return abs(s) * math.sqrt(l2)


def _circle_poly_fast(c: Footprint, p: Footprint) -> float | None:
    """:func:`_circle_poly` without shapely: the least GEOS point-to-segment distance from the
    centre over the footprint's edges (walked as its shapely ring is: ``verts`` in order, then
    back to the first), inside or outside by a crossing count; None when the centre lies within
    :data:`_NEAR_EDGE_IN` of an edge (there the crossing count is not robust: shapely decides)."""
    px, py = c.cx, c.cy
    v = p.verts
    if p.kind == "segment":
        (ax, ay), (bx, by) = v
        return _point_to_segment(px, py, ax, ay, bx, by) - c.a
    d = math.inf
    inside = False
    ax, ay = v[-1]
    for bx, by in v:
        # the ring's segment from (ax, ay) to (bx, by); the last vertex to the first comes
        # first here, which changes no minimum
        e = _point_to_segment(px, py, ax, ay, bx, by)
        if e < d:
            d = e
        if (ay > py) != (by > py) and px < ax + (py - ay) * (bx - ax) / (by - ay):
            inside = not inside
        ax, ay = bx, by
    if d <= _NEAR_EDGE_IN:
        return None
    return -(d + c.a) if inside else d - c.a


def _circle_poly(c: Footprint, p: Footprint) -> float:
    fast = _circle_poly_fast(c, p)
    if fast is not None:
        return fast
    return _circle_poly_shapely(c, p)


def _circle_poly_shapely(c: Footprint, p: Footprint) -> float:
    """The distance from a round base to a straight-edged footprint by shapely (the oracle of
    :func:`_circle_poly_fast`): the centre's distance less the radius; minus the centre's
    distance to the boundary plus the radius when the polygon covers the centre."""
    pt = shapely.Point(c.cx, c.cy)
    if p.kind == "segment":
        d = p._straight.distance(pt)
        return d - c.a
    poly = cast(Polygon, p._straight)
    if poly.covers(pt):
        return -(poly.exterior.distance(pt) + c.a)
    return poly.distance(pt) - c.a


def distance_lower_bound(a: Footprint, b: Footprint) -> float:
    """A cheap lower bound of :func:`signed_distance` (centre distance minus outer radii)."""
    return math.hypot(a.cx - b.cx, a.cy - b.cy) - a.outer_radius - b.outer_radius


def polygon_edges(poly: Polygon) -> list[Footprint]:
    """The edges of a polygon (exterior and holes) as segment footprints."""
    out: list[Footprint] = []
    for ring in [poly.exterior, *poly.interiors]:
        cs = list(ring.coords)
        for p, q in zip(cs[:-1], cs[1:], strict=True):
            if p != q:
                out.append(segment(p, q))
    return out


_Measure = Callable[[list[tuple[Footprint, Footprint]]], np.ndarray]


def distance_to_polygon(fp: Footprint, poly: Polygon, measure: _Measure | None = None) -> float:
    """Signed distance from a footprint to a (possibly non-convex) polygon, inches.

    Positive: apart (the closest-point distance); zero: touching; negative: the footprint and
    the polygon's interior overlap (the value is then minus the overlap depth across the nearest
    edge, or minus the distance to the boundary plus the radius when the centre is inside).
    ``measure``: how an oval's distances to the edges of :func:`oval_edge_pairs` are taken
    (default :func:`signed_distances`; a caller may pass its cache of them).
    """
    if fp.kind == "circle":
        pt = shapely.Point(fp.cx, fp.cy)
        if poly.covers(pt):
            return -(poly.boundary.distance(pt) + fp.a)
        return poly.distance(pt) - fp.a
    if fp.kind == "polygon":
        # apart: the closest-point distance between straight-edged shapes is exact (as in
        # signed_distance); touching or overlapping: the edge-by-edge measure below
        g = fp._straight
        if not poly.intersects(g):
            return poly.distance(g)
    inside = poly.covers(shapely.Point(fp.cx, fp.cy))
    d = _min_edge_distance(fp, poly, measure)
    if inside:
        return -abs(d) if d > 0 else d - 1e-12
    return d


_BY_POLYGON: dict[tuple[str, int], tuple[Polygon, object]] = {}


def _per_polygon(kind: str, poly: Polygon, make: Callable[[Polygon], Any]) -> Any:
    """``make(poly)``, cached by the polygon's identity (hashing a shapely geometry serialises
    it, which costs more than the small computations cached here)."""
    key = (kind, id(poly))
    hit = _BY_POLYGON.get(key)
    if hit is not None and hit[0] is poly:
        return hit[1]
    if len(_BY_POLYGON) > 4096:
        _BY_POLYGON.clear()
        _BY_SHAPE.clear()
        _WKB.clear()
    # a new object with the same shape as one seen before (the same zones recur scene after scene);
    # its WKB serialised once for every kind asked of it
    seen = _WKB.get(id(poly))
    if seen is not None and seen[0] is poly:
        wkb = seen[1]
    else:
        wkb = poly.wkb
        _WKB[id(poly)] = (poly, wkb)
    shape_key = (kind, wkb)
    val = _BY_SHAPE.get(shape_key, _BY_SHAPE)
    if val is _BY_SHAPE:
        val = _BY_SHAPE[shape_key] = make(poly)
    _BY_POLYGON[key] = (poly, val)
    return val


_BY_SHAPE: dict[tuple[str, bytes], Any] = {}
_WKB: dict[int, tuple[Polygon, bytes]] = {}


_HalfPlanes = tuple[np.ndarray, np.ndarray, np.ndarray, tuple[tuple[float, float, float], ...]]


def _convex_halfplanes(poly: Polygon) -> _HalfPlanes | None:
    """For a convex polygon without holes: unit outward normals and offsets of its edge lines."""
    hp: _HalfPlanes | None = _per_polygon("halfplanes", poly, _make_convex_halfplanes)
    return hp


def _make_convex_halfplanes(poly: Polygon) -> _HalfPlanes | None:
    if poly.interiors or abs(poly.convex_hull.area - poly.area) > 1e-12 * max(1.0, poly.area):
        return None
    v = np.asarray(shapely.orient_polygons(poly).exterior.coords)[:-1] if hasattr(shapely, "orient_polygons") \
        else np.asarray(shapely.geometry.polygon.orient(poly).exterior.coords)[:-1]
    e = np.roll(v, -1, axis=0) - v
    ln = np.hypot(e[:, 0], e[:, 1])
    keep = ln > 0
    v, e, ln = v[keep], e[keep], ln[keep]
    nx, ny = e[:, 1] / ln, -e[:, 0] / ln
    c = nx * v[:, 0] + ny * v[:, 1]
    return nx, ny, c, tuple(zip(nx.tolist(), ny.tolist(), c.tolist(), strict=True))


def clearance_inside(fp: Footprint, poly: Polygon) -> float:
    """How far the footprint stays inside ``poly``: min distance from the footprint to the boundary.

    Positive when the footprint is wholly inside with room to spare, 0 when it touches the
    boundary from inside, negative when part of it is outside (minus the overhang across the
    nearest edge) or its centre is outside.
    """
    hp = _convex_halfplanes(poly)
    if hp is not None:
        # convex area: the clearance is the least gap to an edge line (exact, no search)
        nx, ny, c, rows = hp
        # the same floats as the vectorised form below, without numpy's per-call overhead
        if fp.kind == "circle":
            cx, cy, r = fp.cx, fp.cy, fp.a
            return min(ck - (cx * nxk + cy * nyk + r) for nxk, nyk, ck in rows)
        if fp.kind == "polygon":
            vs = fp.verts
            return min(ck - max(x * nxk + y * nyk for x, y in vs) for nxk, nyk, ck in rows)
        return float(np.min(c - fp.support_many(nx, ny)))
    pt = shapely.Point(fp.cx, fp.cy)
    if not poly.covers(pt):
        return -(poly.distance(pt) + fp.inner_radius) - 1e-12
    if fp.kind == "circle":
        return poly.boundary.distance(pt) - fp.a
    # ellipse or hull: signed distance to every edge; crossing an edge is negative
    return _min_edge_distance(fp, poly)


def clearances_inside(fps: Sequence[Footprint], poly: Polygon) -> np.ndarray:
    """:func:`clearance_inside` of every footprint of ``fps`` (inches), the same floats: round
    bases in a convex area in one numpy pass, the others one by one."""
    out = np.empty(len(fps))
    hp = _convex_halfplanes(poly)
    rows = [i for i, f in enumerate(fps) if f.kind == "circle"] if hp is not None else []
    if rows:
        nx, ny, c, _ = hp  # type: ignore[misc]
        cx = np.array([fps[i].cx for i in rows])
        cy = np.array([fps[i].cy for i in rows])
        r = np.array([fps[i].a for i in rows])
        out[rows] = np.min(c[:, None] - (cx[None, :] * nx[:, None] + cy[None, :] * ny[:, None] + r[None, :]), axis=0)
    done = set(rows)
    for i, f in enumerate(fps):
        if i not in done:
            out[i] = clearance_inside(f, poly)
    return out


def oval_edge_pairs(fp: Footprint, poly: Polygon) -> list[tuple[Footprint, Footprint]]:
    """The (oval, edge) pairs whose signed distances give an oval's least distance to the edges
    of ``poly`` (:func:`distance_to_polygon`): the closest edge is among those whose lower bound
    is not above the least upper bound (plus 1e-9", for rounding), with the closed-form bounds of
    :func:`_edge_bounds`. Empty for a footprint that is not an oval."""
    if fp.kind != "ellipse":
        return []
    edges, _ = _per_polygon("edges", poly, _edges_and_lines)
    bounds = [_edge_bounds(fp, *e.verts) for e in edges]
    ub = min(hi for _, hi in bounds) + _BOUND_SLACK
    return [(fp, e) for e, (lo, _) in zip(edges, bounds, strict=True) if lo <= ub]


_BOUND_SLACK = 1e-9
"""Inches added to the least upper bound of :func:`oval_edge_pairs`: a bound that equals the
distance (an edge facing the oval) must not drop its edge by a rounding."""


def _edge_bounds(fp: Footprint, p: tuple[float, float], q: tuple[float, float]) -> tuple[float, float]:
    """A lower and an upper bound of the signed distance from the oval ``fp`` to the segment
    ``pq``, inches: below, the centre's distance to the segment less the outer radius, and the
    gap to the segment's line along its normal; above, the centre's distance less the inner
    radius (the disc the oval contains), and the distance from the oval's nearest point to the
    line (a point of the oval) to the segment."""
    ex, ey = q[0] - p[0], q[1] - p[1]
    ln2 = ex * ex + ey * ey

    def to_segment(x: float, y: float) -> float:
        lam = 0.0 if ln2 == 0.0 else min(1.0, max(0.0, ((x - p[0]) * ex + (y - p[1]) * ey) / ln2))
        return math.hypot(x - p[0] - lam * ex, y - p[1] - lam * ey)

    dc = to_segment(fp.cx, fp.cy)
    lo, hi = dc - fp.outer_radius, dc - fp.inner_radius
    if ln2 > 0.0:
        ln = math.sqrt(ln2)
        nx, ny = -ey / ln, ex / ln
        t = nx * (p[0] - fp.cx) + ny * (p[1] - fp.cy)
        if t < 0.0:
            nx, ny, t = -nx, -ny, -t
        c, s = fp._cs
        na, nb = nx * c + ny * s, ny * c - nx * s
        h = math.hypot(fp.a * na, fp.b * nb)
        lo = max(lo, t - h)
        mx, my = fp.a * fp.a * na / h, fp.b * fp.b * nb / h
        hi = min(hi, to_segment(fp.cx + mx * c - my * s, fp.cy + mx * s + my * c))
    return lo, hi


def _min_edge_distance(fp: Footprint, poly: Polygon, measure: _Measure | None = None) -> float:
    """min over the polygon's edges of the signed distance, exact distances only where a cheap
    lower bound (edge to centre, less the outer radius) could still beat the best so far; for
    an oval, the pairs of :func:`oval_edge_pairs` measured together (the same minimum)."""
    if fp.kind == "ellipse":
        near = oval_edge_pairs(fp, poly)
        if near:
            return float(np.min((measure or signed_distances)(near)))
    edges, lines = _per_polygon("edges", poly, _edges_and_lines)
    centre = shapely.Point(fp.cx, fp.cy)
    lbs = shapely.distance(lines, centre) - fp.outer_radius
    if fp.kind == "ellipse":
        lbs = np.maximum(lbs, circumscribed_gap(fp, lines))
    bounds = sorted(zip(lbs.tolist(), range(len(edges)), strict=True))
    best = math.inf
    for lb, k in bounds:
        if lb >= best:
            break
        best = min(best, signed_distance(fp, edges[k]))
    return best


def _edges_and_lines(poly: Polygon) -> tuple[list[Footprint], np.ndarray]:
    edges = polygon_edges(poly)
    return edges, shapely.linestrings([e.verts for e in edges])


def circumscribed_gap(fp: Footprint, geoms: np.ndarray | BaseGeometry) -> np.ndarray:
    """A lower bound of the signed distance from a curved footprint to each of ``geoms``: the
    distance to a polygon circumscribing it (it contains the footprint), where positive; else
    -inf (no bound: the footprint may overlap). Much tighter than the centre distance less the
    outer radius for an oval, so the exact (searched) distances can be skipped for far shapes."""
    d = shapely.distance(geoms, fp.polygon(circumscribed=True))
    return np.where(d > 0, d, -np.inf)


_NEAR_EDGE_IN = 1e-7
"""A point closer than this (inches) to a polygon's boundary is measured by shapely itself in
:func:`point_distances` (the crossing test of a point on or next to an edge is not robust)."""


def _segments_of(poly: BaseGeometry) -> np.ndarray | None:
    """The boundary segments of a valid polygon or multipolygon, (n, 4) rows ``ax, ay, bx, by``
    in the order GEOS walks them; None for any other geometry (an invalid or empty polygon too)."""
    if poly.is_empty or poly.geom_type not in ("Polygon", "MultiPolygon") or not poly.is_valid:
        return None
    if poly.geom_type == "Polygon" and shapely.get_num_interior_rings(poly) == 0 and not shapely.has_z(poly):
        # one ring (most polygons): its coordinates in one call, the same floats as below
        r = shapely.get_coordinates(poly)
        return np.hstack([r[:-1], r[1:]])
    return _ring_segments(poly)


def _ring_segments(poly: BaseGeometry) -> np.ndarray:
    """The boundary segments of a valid polygon or multipolygon, ring by ring (the general path of
    :func:`_segments_of`, and its oracle in the tests)."""
    rings = [np.asarray(r.coords) for p in shapely.get_parts(poly) for r in (p.exterior, *p.interiors)]
    return np.vstack([np.hstack([r[:-1], r[1:]]) for r in rings])


def _point_segment_terms(px: np.ndarray, py: np.ndarray, ax: np.ndarray, ay: np.ndarray, bx: np.ndarray,
                         by: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """GEOS's point-to-segment distance from (``px``, ``py``) to segment a -> b and whether a
    ray from the point towards +x crosses the segment (the crossing count of the inside test),
    elementwise over arrays that broadcast: the array form of the formula (:func:`_point_to_segment`
    is its scalar form, for one pair at a time; the tests hold both to ``shapely.distance``)."""
    ex, ey = bx - ax, by - ay
    l2 = ex * ex + ey * ey
    dxa, dya = px - ax, py - ay
    with np.errstate(divide="ignore", invalid="ignore"):
        r = (dxa * ex + dya * ey) / l2
        s = ((ay - py) * ex - (ax - px) * ey) / l2
        xcross = ax + (py - ay) * ex / ey
    da = np.sqrt(dxa * dxa + dya * dya)
    dxb, dyb = px - bx, py - by
    d = np.where(r <= 0.0, da, np.where(r >= 1.0, np.sqrt(dxb * dxb + dyb * dyb), np.abs(s) * np.sqrt(l2)))
    zero = l2 == 0.0
    if zero.any():
        d = np.where(zero, da, d)
    crossing = ((ay > py) != (by > py)) & (px < xcross)
    return d, crossing


_POINT_BLOCK = 16384
"""Points x segments per numpy pass of :func:`point_distances` (the points taken in blocks:
the same values, with arrays that stay in the processor's cache)."""

_WITHIN_SLACK = 1e-9
"""The slack of :func:`point_distances`'s ``within`` screen, relative to the largest coordinate
(plus this, inches): far more than the rounding of a distance."""


def point_distances(polys: Sequence[BaseGeometry], x: np.ndarray, y: np.ndarray,
                    within: np.ndarray | None = None) -> np.ndarray:
    """``shapely.distance(polys[k], Point(x[i], y[i]))`` for every polygon and point, the same
    floats, as an array (polygons x points, inches; 0 inside): GEOS's point-to-segment distance
    (``Distance::pointToSegment``: the end's distance where the projection falls outside the
    segment, else ``|s| * sqrt(L2)``) evaluated in numpy over every segment of every polygon at
    once, its least value per polygon, and 0 where a crossing count puts the point inside. A
    point within :data:`_NEAR_EDGE_IN` of a boundary, and every point of a geometry that is not
    a valid polygon, is measured by shapely (``tests/test_checkfast5.py`` compares the two).

    ``within`` (one distance per point, inches): a caller that only asks whether each distance
    is at most ``within[i]``. A point farther than that (by more than a slack far above the
    rounding of a distance) from a polygon's bounding box is farther from the polygon too: that
    pair is not measured and reads ``inf``; every other pair has the value above."""
    n = len(x)
    out = np.empty((len(polys), n))
    if not n or not len(polys):
        return out
    segs: list[np.ndarray] = []
    starts: list[int] = []
    rows: list[int] = []
    at = 0
    for k, poly in enumerate(polys):
        s = _per_polygon("segments", cast(Polygon, poly), _segments_of)
        if s is None:
            out[k] = shapely.distance(poly, shapely.points(x, y))
            continue
        segs.append(s)
        starts.append(at)
        rows.append(k)
        at += len(s)
    if not segs:
        return out
    first = np.asarray(starts)
    if within is None:
        least, inside = _least_dense(segs, first, x, y)
    else:
        least, inside = _least_within(segs, first, x, y, within)
    got = np.where(inside, 0.0, least)
    near = least <= _NEAR_EDGE_IN
    if near.any():
        for j, i in zip(*np.nonzero(near), strict=True):
            got[j, i] = shapely.distance(polys[rows[j]], shapely.Point(x[i], y[i]))
    out[rows] = got
    return out


def _least_dense(segs: list[np.ndarray], first: np.ndarray, x: np.ndarray, y: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray]:
    """For :func:`point_distances`: the least segment distance of each polygon (its segments
    ``segs``, starting at ``first`` in their stack) to each point, and whether the crossing
    count puts the point inside (polygons x points), over every pair, the points in blocks."""
    S = segs[0] if len(segs) == 1 else np.vstack(segs)
    ax, ay, bx, by = S[:, 0], S[:, 1], S[:, 2], S[:, 3]
    n = len(x)
    least = np.empty((len(segs), n))
    inside = np.empty((len(segs), n), dtype=np.bool_)
    step = max(1, _POINT_BLOCK // len(S))
    for i0 in range(0, n, step):
        d, crossing = _point_segment_terms(x[i0:i0 + step, None], y[i0:i0 + step, None], ax, ay, bx, by)
        least[:, i0:i0 + step] = np.minimum.reduceat(d, first, axis=1).T
        inside[:, i0:i0 + step] = (np.add.reduceat(crossing, first, axis=1) & 1).astype(np.bool_).T
    return least, inside


def _least_within(segs: list[np.ndarray], first: np.ndarray, x: np.ndarray, y: np.ndarray, within: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_least_dense` for the pairs whose point comes within ``within`` (plus the slack)
    of the polygon's bounding box (``inf`` and outside for the others): the same terms on the
    same numbers, pair by pair, each pair's segments in their order."""
    n = len(x)
    least = np.full((len(segs), n), np.inf)
    inside = np.zeros((len(segs), n), dtype=np.bool_)
    S = segs[0] if len(segs) == 1 else np.vstack(segs)
    ax, ay, bx, by = S[:, 0], S[:, 1], S[:, 2], S[:, 3]
    lens = np.diff(np.append(first, len(S)))
    box = np.array([[min(g[:, 0].min(), g[:, 2].min()), min(g[:, 1].min(), g[:, 3].min()),
                     max(g[:, 0].max(), g[:, 2].max()), max(g[:, 1].max(), g[:, 3].max())] for g in segs])
    reach = max(float(np.abs(S).max()), float(np.abs(x).max()), float(np.abs(y).max()))
    gap = np.maximum(np.maximum(box[:, 0:1] - x[None, :], x[None, :] - box[:, 2:3]),
                     np.maximum(box[:, 1:2] - y[None, :], y[None, :] - box[:, 3:4]))
    pj, pi = np.nonzero(gap <= within[None, :] + _WITHIN_SLACK * (1.0 + reach))
    if not len(pj):
        return least, inside
    counts = lens[pj]
    at = np.cumsum(counts) - counts  # where each pair's segments start
    seg = np.repeat(first[pj] - at, counts) + np.arange(int(counts.sum()))
    pts = np.repeat(pi, counts)
    d, crossing = _point_segment_terms(x[pts], y[pts], ax[seg], ay[seg], bx[seg], by[seg])
    least[pj, pi] = np.minimum.reduceat(d, at)
    inside[pj, pi] = (np.add.reduceat(crossing, at) & 1).astype(np.bool_)
    return least, inside
