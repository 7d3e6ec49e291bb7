"""The Deep Strike formation: the first model, then the others in base contact in concentric rings.

The text (5th/7th editions, RULES.md §2.1): "the other models are placed in base contact with
the first, forming a circle around it; when the first circle is complete, a further concentric
circle, each model touching the circle inside it; each circle must include as many models as
will fit". Shared by the landing test and the odds (:mod:`planner.deepstrike.procedure`).

Exact construction (round bases). A base that is not round (an oval, a hull such as a Drop Pod)
follows the ``ds-ring-spacing`` ruling: ``circumscribed`` (the default) spaces the rings by its
circumscribed disc, so that no two models overlap whatever their facing; ``true-shape`` places the
models in contact by their true outlines at their facing (the same construction with convex
contact bodies instead of discs). The mishap tests always use the true shape at the stated facing
(:mod:`planner.deepstrike.procedure`).

- Ring 0 is the first model, radius ``r0``, at ``first_centre``.
- Ring k (k >= 1) is built around the *envelope* of ring k-1: the outer boundary of the union of
  the discs of radius ``rho_i + r`` about the centres of ring k-1 (``rho_i`` their radii, ``r``
  the radius of the model being placed). A centre on that envelope is a position where the model
  touches a model of ring k-1 and overlaps none of them. For ring 1 the envelope is the circle of
  radius ``r0 + r`` about the first model.
- The ring starts on the envelope in direction ``orientation_deg`` (counter-clockwise from +x)
  from the first model's centre. Each next model goes counter-clockwise along the envelope to the
  first position where it touches the previous model of the ring (a circle-circle intersection,
  closed form), never overlapping a placed model.
- The ring is complete when the next position would overlap the ring's own first model (or
  would pass it): that ring then holds as many models as fit along the chain. The next model
  starts ring k+1.

- ``ring_caps`` cuts ring k short after ``ring_caps[k-1]`` models (terrain or models stop it);
  the next model starts ring k+1, which goes round the short ring. The controlling player's
  choice among orientations and cut rings is
  :func:`planner.deepstrike.procedure.best_formation_odds`.

Equal round bases give the hexagonal rings 1 + 6 + 12 + 18 ...; all positions are exact to
about 1e-12" and tested with the exact geometry (no overlaps; every ring-1 model touches the
first; every outer model touches the ring inside it).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from planner.geometry.shapes import footprint
from planner.units import mm_to_in

_EPS = 1e-9


@dataclass(frozen=True)
class Formation:
    """Model centres (inches) and their ring numbers (0 = the first model), in model order."""

    centres: tuple[tuple[float, float], ...]
    radii: tuple[float, ...]
    rings: tuple[int, ...]

    def offsets(self) -> list[tuple[float, float]]:
        """Each centre relative to the first model's centre."""
        x0, y0 = self.centres[0]
        return [(x - x0, y - y0) for x, y in self.centres]

    def ring_counts(self) -> list[int]:
        """How many models each ring holds (ring 0 = the first model: 1)."""
        n = max(self.rings) + 1
        return [sum(1 for r in self.rings if r == k) for k in range(n)]

    @property
    def extent(self) -> float:
        """Radius of a disc about the first centre containing every base."""
        x0, y0 = self.centres[0]
        return max(math.hypot(x - x0, y - y0) + r for (x, y), r in zip(self.centres, self.radii, strict=True))


def base_radius(base) -> tuple[float, bool]:
    """The radius used by the formation and the odds, and whether it is exact (round base)."""
    fp = footprint(base, 0.0, 0.0, 0.0)
    if fp.kind == "circle":
        return fp.a, True
    return fp.outer_radius, False


def _envelope_radius(cx: float, cy: float, ux: float, uy: float, discs: list[tuple[float, float, float]]) -> float:
    """Distance from (cx, cy) along unit (ux, uy) to the outer boundary of the union of discs."""
    best = -math.inf
    for px, py, R in discs:
        dx, dy = px - cx, py - cy
        along = dx * ux + dy * uy
        across2 = (dx * dx + dy * dy) - along * along
        if across2 <= R * R:
            best = max(best, along + math.sqrt(R * R - across2))
    return best


def _circle_circle(ax, ay, ra, bx, by, rb) -> list[tuple[float, float]]:
    dx, dy = bx - ax, by - ay
    d = math.hypot(dx, dy)
    if d == 0 or d > ra + rb + _EPS or d < abs(ra - rb) - _EPS:
        return []
    a = (ra * ra - rb * rb + d * d) / (2 * d)
    h2 = ra * ra - a * a
    h = math.sqrt(max(0.0, h2))
    mx, my = ax + a * dx / d, ay + a * dy / d
    return [(mx - h * dy / d, my + h * dx / d), (mx + h * dy / d, my - h * dx / d)]


def ring_formation(first_centre: tuple[float, float], radii: list[float], orientation_deg: float = 0.0,
                   ring_caps: tuple[int, ...] | None = None, shapes=None) -> Formation:
    """Centres of a Deep Strike formation: ``radii[0]`` is the first model at ``first_centre``.

    Parameters
    ----------
    first_centre : (float, float)
        Centre of the first model, inches.
    radii : list of float
        Base radius of every model, inches, in placement order (the first model first).
    orientation_deg : float
        Direction, from the first model, in which every ring starts (degrees counter-clockwise).
    ring_caps : tuple of int, optional
        At most ``ring_caps[k-1]`` models in ring k (a ring cut short by terrain or models: the
        models that do not fit start the next ring); rings past the tuple hold as many as fit.
    shapes : list of Footprint, optional
        The ``ds-ring-spacing=true-shape`` ruling: each model's true footprint at its facing,
        centred at the origin; models are then placed in contact by their true outlines (the
        contact set of models i and j is the convex body S_i (+) (-S_j), a polygon; curved
        outlines enter by their circumscribed 128-gon, so no two models ever overlap, spacing at
        most 1e-3" wider than touching for a 75 mm oval). None (the default, ``circumscribed``):
        the discs of ``radii``.

    Raises
    ------
    ValueError
        If ``radii`` is empty or holds a radius that is not positive.
    """
    if not radii or any(not (r > 0) for r in radii):
        raise ValueError("ring_formation needs at least one model, every radius > 0")
    geo: _Discs | _Bodies = _Discs(radii) if shapes is None else _Bodies(shapes)
    cx, cy = first_centre
    phi0 = math.radians(orientation_deg)
    ux0, uy0 = math.cos(phi0), math.sin(phi0)
    centres = [(cx, cy)]
    rings = [0]
    inner: list[int] = [0]  # the ring inside the one being built (model indices)
    current: list[int] = []
    ring = 1
    start_angle = 0.0
    i = 1
    while i < len(radii):
        if not current:
            t = geo.envelope_radius(cx, cy, ux0, uy0, inner, centres, i)
            pos = (cx + t * ux0, cy + t * uy0)
            start_angle = math.atan2(pos[1] - cy, pos[0] - cx)
        else:
            q = current[-1]
            qx, qy = centres[q]
            q_ang = math.atan2(qy - cy, qx - cx)
            best = None
            for p in geo.contacts(q, inner, centres, i):
                if not geo.free(p, i, centres):
                    continue
                ang = math.atan2(p[1] - cy, p[0] - cx)
                u = (math.cos(ang), math.sin(ang))
                if math.hypot(p[0] - cx, p[1] - cy) < geo.envelope_radius(cx, cy, *u, inner, centres, i) - 1e-7:
                    continue  # not on the outer envelope
                adv = (ang - q_ang) % (2 * math.pi)
                if adv < 1e-9:
                    continue
                if best is None or adv < best[0]:
                    best = (adv, p)
            closes = best is None or (ring_caps is not None and ring <= len(ring_caps)
                                      and len(current) >= ring_caps[ring - 1])
            if best is not None:
                ang = math.atan2(best[1][1] - cy, best[1][0] - cx)
                swept = (ang - start_angle) % (2 * math.pi)
                prev_swept = (q_ang - start_angle) % (2 * math.pi)
                if swept < prev_swept - 1e-12:  # went past the ring's start
                    closes = True
                if geo.overlap(current[0], best[1], i, centres):
                    closes = True
            if closes:
                inner, current, ring = current, [], ring + 1
                continue
            pos = best[1]  # type: ignore[index]
        centres.append(pos)
        rings.append(ring)
        current.append(i)
        i += 1
    return Formation(tuple(centres), tuple(radii), tuple(rings))


class _Discs:
    """Contact geometry of round (or circumscribed) bases: closed forms."""

    def __init__(self, radii: list[float]):
        self.radii = radii

    def envelope_radius(self, cx, cy, ux, uy, inner, centres, i) -> float:
        r = self.radii[i]
        return _envelope_radius(cx, cy, ux, uy, [(*centres[m], self.radii[m] + r) for m in inner])

    def contacts(self, q, inner, centres, i):
        r = self.radii[i]
        qx, qy = centres[q]
        for m in inner:
            px, py = centres[m]
            yield from _circle_circle(qx, qy, self.radii[q] + r, px, py, self.radii[m] + r)

    def free(self, p, i, centres) -> bool:
        return _free(p, self.radii[i], centres, self.radii)

    def overlap(self, k, p, i, centres) -> bool:
        fx, fy = centres[k]
        return math.hypot(p[0] - fx, p[1] - fy) < self.radii[k] + self.radii[i] - _EPS


class _Bodies:
    """Contact geometry of true outlines (``ds-ring-spacing=true-shape``): model j at centre c_j
    touches model k at c_k when c_j - c_k is on the boundary of D(k, j) = S_k (+) (-S_j), and
    overlaps it when inside (convex polygons: the half-planes of their edges)."""

    SIDES = 128

    def __init__(self, shapes):
        import numpy as np

        self._np = np
        self.polys, keys = [], []
        for S in shapes:
            if S.kind == "polygon":
                v = np.asarray(S.verts, float) - [S.cx, S.cy]
            else:
                v = np.asarray(S.polygon(self.SIDES, circumscribed=True).exterior.coords)[:-1] - [S.cx, S.cy]
            self.polys.append(v)
            keys.append(v.round(12).tobytes())
        self._key = [keys.index(k) for k in keys]  # equal outlines share their bodies
        self._bodies: dict[tuple[int, int], tuple] = {}

    def body(self, k: int, j: int):
        """(vertices ccw, outward unit normals, offsets) of D(k, j) at the origin."""
        key = (self._key[k], self._key[j])
        if key not in self._bodies:
            from shapely.geometry import MultiPoint

            np = self._np
            sums = (self.polys[k][:, None, :] - self.polys[j][None, :, :]).reshape(-1, 2)
            hull = np.asarray(MultiPoint(sums).convex_hull.exterior.coords)[:-1]  # type: ignore[attr-defined]
            if _signed_area(hull) < 0:
                hull = hull[::-1]
            e = np.roll(hull, -1, axis=0) - hull
            n = np.column_stack([e[:, 1], -e[:, 0]])
            n /= np.hypot(n[:, 0], n[:, 1])[:, None]
            self._bodies[key] = (hull, n, np.einsum("ij,ij->i", n, hull))
        return self._bodies[key]

    def _exit(self, k, j, ox, oy, cx, cy, ux, uy) -> float:
        """Largest t with (cx, cy) + t u in D(k, j) + (ox, oy); -inf if the line misses it."""
        np = self._np
        _, n, h = self.body(k, j)
        a = n[:, 0] * ux + n[:, 1] * uy
        b = h - (n[:, 0] * (cx - ox) + n[:, 1] * (cy - oy))
        flat = np.abs(a) < 1e-15
        if np.any(flat & (b < 0)):
            return -math.inf
        with np.errstate(divide="ignore", invalid="ignore"):
            t = b / a
        hi = float(np.min(t[(a > 0) & ~flat], initial=math.inf))
        lo = float(np.max(t[(a < 0) & ~flat], initial=-math.inf))
        return hi if lo <= hi + 1e-12 else -math.inf

    def envelope_radius(self, cx, cy, ux, uy, inner, centres, i) -> float:
        return max(self._exit(m, i, centres[m][0], centres[m][1], cx, cy, ux, uy) for m in inner)

    def contacts(self, q, inner, centres, i):
        from shapely.geometry import LinearRing

        rq = LinearRing(self.body(q, i)[0] + centres[q])
        for m in inner:
            cut = rq.intersection(LinearRing(self.body(m, i)[0] + centres[m]))
            for g in getattr(cut, "geoms", [cut]):
                if g.is_empty:
                    continue
                for c in g.coords:  # points, or the ends of a shared edge piece
                    yield (float(c[0]), float(c[1]))

    def _inside(self, k, p, i, centres) -> bool:
        _, n, h = self.body(k, i)
        d = n[:, 0] * (p[0] - centres[k][0]) + n[:, 1] * (p[1] - centres[k][1])
        return bool((d < h - 1e-7).all())

    def free(self, p, i, centres) -> bool:
        return not any(self._inside(k, p, i, centres) for k in range(len(centres)))

    def overlap(self, k, p, i, centres) -> bool:
        return self._inside(k, p, i, centres)


def _signed_area(v) -> float:
    x, y = v[:, 0], v[:, 1]
    return 0.5 * float((x * (y.take(range(1, len(y) + 1), mode="wrap")) - (x.take(range(1, len(x) + 1), mode="wrap")) * y).sum())


def _free(p: tuple[float, float], r: float, centres: list[tuple[float, float]], radii: list[float]) -> bool:
    for (x, y), rr in zip(centres, radii, strict=False):
        if math.hypot(p[0] - x, p[1] - y) < rr + r - _EPS:
            return False
    return True


def formation_radii(bases) -> tuple[list[float], bool]:
    """Radii for a list of schema bases, and whether all are exact (round)."""
    out, exact = [], True
    for b in bases:
        r, ok = base_radius(b)
        out.append(r)
        exact = exact and ok
    return out, exact


def mm_radius(diameter_mm: float) -> float:
    """Radius in inches of a round base of ``diameter_mm``."""
    return mm_to_in(diameter_mm) / 2.0


# --------------------------------------------------------------------------- sure mishaps (issue #19 item 1)


def base_area(S) -> float:
    """The area of footprint ``S`` (square inches): exact for a disc, an oval and a polygon."""
    if S.kind == "circle":
        return math.pi * S.a * S.a
    if S.kind == "ellipse":
        return math.pi * S.a * S.b
    return float(S.polygon().area)


def free_pockets(st, tolerance: float) -> list:
    """Pockets of free space too small for the unit: where the first model's centre lands in one,
    no formation whatever (any orientation, any ring shape, any packing) places every model, so the
    landing is a sure mishap (5th/7th Deep Strike text: a mishap when some model cannot be placed).

    The free space F is the table less Impassable Terrain, less every other model's base and the
    enemy models' bases grown by the 1" of the mishap (``st.rules.enemy_within_in``). Every model
    of a legal formation lies in F, and the bases touch in a chain, so they all lie in the connected
    piece of F holding the first model: if that piece's area is less than the bases' total area
    (:func:`base_area`), some model cannot be placed. The pieces are computed on a *larger* set than
    F (curves by inscribed polygons, every forbidden shape shrunk (the Impassable Terrain, joined,
    by twice) and the table grown by ``tolerance``; with the 'centre on the table' rule the table grown by the largest base), so a
    piece found small is small in truth, and a centre in it, or in a hole of it (forbidden space:
    the first model itself fails there), is a sure mishap. Returns shapely polygons without holes
    (the pieces' outlines), the pockets; empty if none."""
    from shapely.geometry import box
    from shapely.ops import unary_union

    R = st.rules
    grow = tolerance + (max(S.outer_radius for S in st.shapes) if R.off_table_rule == "centre" else 0.0)
    free = box(-grow, -grow, st.width + grow, st.depth + grow)
    # walls that meet are one obstacle: joined before they are shrunk (no seams opened between them)
    cut = [unary_union(list(st.impassable.values())).buffer(-2 * tolerance)] if st.impassable else []
    for o in st.obstacles:
        shape = o.fp.polygon(256)  # inscribed: inside the true base
        cut.append(shape.buffer(R.enemy_within_in - tolerance, 64) if o.enemy else shape.buffer(-tolerance))
    cut = [c for c in cut if not c.is_empty]
    if cut:
        free = free.difference(unary_union(cut))
    need = sum(base_area(S) for S in st.shapes)
    pieces = getattr(free, "geoms", [free])
    from shapely.geometry import Polygon

    return [Polygon(p.exterior) for p in pieces if not p.is_empty and p.area < need]


def fixed_orientation_note(st) -> str:
    """What a heat map or ``--best`` of Deep Strike setup ``st`` assumes about the formation: the
    rings at the fixed orientation ``st.orientation_deg`` (the controller's best orientation is
    computed per aim point only: :func:`planner.deepstrike.procedure.best_formation_odds`); empty
    for a unit of one model or the Deep Strike Assault (the first model alone)."""
    if len(st.unit.models) < 2 or st.rules.procedure == "assault":
        return ""
    return f"formation at the fixed orientation {st.orientation_deg:g} deg"
