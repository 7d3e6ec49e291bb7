"""A lower bound of the planner's objective by packing area, independent of the candidates.

Where the objective is a weighted sum of per-model distances to a point (``near_point``,
``near_objective``: value = the sum over the models a term counts of the distance, inches, from
the model's centre to the point), the bases cannot all stand near the point: they do not overlap
and each lies wholly in the region its unit is set up in. :func:`packing_bound` turns that into a
bound over *every* legal plan, on the candidate grid or off it; :func:`plan_packing_bound` applies
it to the planner's groups and goal terms (``planner.solve.planner`` reports the larger of it and
CP-SAT's bound, and says which one it is).

The argument (issue 18 item 1, branch ``planscale4``). Let ``Z`` be a set that holds every base
(the union of the units' regions), ``P`` the point, and for model *i* let ``d_i`` be the distance
from its centre to ``P``, ``r_i`` its outer radius (the base lies in the disc of ``r_i`` about
its centre), ``a_i`` a lower bound of its base's area, and ``s_i = d_i + r_i``. Then model *i*'s
base lies in ``Z ∩ B(P, s_i)``. Bases do not overlap, so for every ``u`` the bases of the models
with ``s_i <= u`` have areas summing to at most ``A(u) = area(Z ∩ B(P, u))``, nondecreasing in
``u``. Sort the ``s_i``: the ``k`` models of the ``k`` smallest all lie in ``B(P, s_(k))``, and
their areas sum to at least ``S_k``, the sum of the ``k`` smallest ``a_i``; so ``A(s_(k)) >=
S_k``, and every ``u`` with ``A(u) < S_k`` is below ``s_(k)``. Such a ``u`` is ``L_k`` (found
by bisection, ``A`` measured on a polygon containing the disc, so never under the true area).
Model *i* of rank ``k`` has ``d_i = s_i - r_i >= L_k - r_i``, and also ``d_i >= m_i``, the least
distance any placement of its base allows (``dist(P, Z) + inner radius``, ``P`` outside ``Z``).
With weights ``w_i > 0`` the objective ``sum_i w_i d_i`` is at least
``sum_k w_pi(k) max(L_k - r_pi(k), m_pi(k))`` for the ranking ``pi`` of the plan, so at least the
least of these sums over all rankings: an assignment problem (solved exactly, OR-Tools'
``SimpleLinearSumAssignment``, over costs rounded down). Bases that overlap by up to the
checker's tolerance (``planner.units.TOLERANCE_IN``) are allowed: the areas are those of the
bases shrunk by half the tolerance (which then do not overlap), and ``Z`` is grown by the
tolerance. Terms are separate sums, each bounded alone; the objective is their sum.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from planner.geometry.shapes import Footprint, footprint
from planner.units import TOLERANCE_IN

DISC_SIDES = 256
"""Sides of the polygon (containing the disc) that ``A(u)`` is measured on."""

BISECT_STEPS = 30
"""Bisection steps for each ``L_k`` (the interval halves each step)."""

ASSIGN_SCALE = 1_000_000
"""Assignment costs are ``floor(cost * ASSIGN_SCALE)`` (integers; the least sum only decreases)."""

_TERMS = ("near_point", "near_objective")
"""Goal kinds whose value is the sum over the models of the centre distance to one point."""


@dataclass(frozen=True)
class PackModel:
    """One model in the packing bound: ``weight`` (> 0), ``area`` (a lower bound of its base's
    area, sq in), ``outer`` (outer radius, inches: the base lies in this disc about the centre),
    ``inner`` (a disc of this radius about the centre lies in the base, inches)."""

    weight: float
    area: float
    outer: float
    inner: float


def pack_model(fp: Footprint, weight: float) -> PackModel:
    """The :class:`PackModel` of a base footprint (circle, ellipse, convex polygon): the area of
    the base shrunk by half of ``TOLERANCE_IN`` (every point that far inside; a lower bound of it for
    an ellipse), so that bases overlapping by up to the tolerance shrink to disjoint ones."""
    t = TOLERANCE_IN / 2
    if fp.kind == "circle":
        area = math.pi * max(0.0, fp.a - t) ** 2
    elif fp.kind == "ellipse":
        # the points within t of the boundary of a convex shape hold at most t * its perimeter, and
        # the ellipse's perimeter is at most that of the circle about it
        area = max(0.0, math.pi * fp.a * fp.b - t * 2 * math.pi * max(fp.a, fp.b))
    elif fp.kind == "segment":
        area = 0.0
    else:
        area = float(fp.polygon().buffer(-t, join_style="mitre").area)
    return PackModel(weight, area, fp.outer_radius, fp.inner_radius)


def _discs(point: tuple[float, float], radii: np.ndarray) -> np.ndarray:
    """Regular ``DISC_SIDES``-gons about ``point`` containing the discs of ``radii`` (inches)."""
    n = DISC_SIDES
    t = np.linspace(0.0, 2 * math.pi, n, endpoint=False)
    big = radii[:, None] / math.cos(math.pi / n) * (1 + 1e-12)
    ring = np.stack([point[0] + big * np.cos(t)[None, :], point[1] + big * np.sin(t)[None, :]], axis=2)
    ring = np.concatenate([ring, ring[:, :1]], axis=1)
    return np.asarray(shapely.polygons(ring))


def area_levels(region: BaseGeometry, point: tuple[float, float], sums: np.ndarray) -> np.ndarray:
    """For each area ``S`` of ``sums`` (sq in), an ``L`` (inches) with ``area(region ∩ B(point, L))
    < S`` (0 if ``S <= 0``): every disc about ``point`` holding at least ``S`` of ``region`` has a
    radius above ``L``. Bisection over all of them at once, on polygons containing the discs."""
    sums = np.asarray(sums, dtype=float)
    p = shapely.Point(point)
    lo = np.full(len(sums), float(region.distance(p)))
    x0, y0, x1, y1 = region.bounds
    far = max(math.hypot(x - point[0], y - point[1]) for x in (x0, x1) for y in (y0, y1)) + 1.0
    hi = np.full(len(sums), far)
    full = float(region.area)
    out = np.where(sums > full, far, lo)  # more area than the region holds: no plan at all
    todo = (sums > 0) & (sums <= full)
    if not todo.any():
        return np.where(sums <= 0, 0.0, out)
    lo, hi, s = lo[todo], hi[todo], sums[todo]
    shapely.prepare(region)
    for _ in range(BISECT_STEPS):
        mid = (lo + hi) / 2
        a = shapely.area(shapely.intersection(region, _discs(point, mid)))
        below = a < s
        lo = np.where(below, mid, lo)
        hi = np.where(below, hi, mid)
    out[todo] = lo
    return np.where(sums <= 0, 0.0, out)


def packing_bound(region: BaseGeometry, point: tuple[float, float], models: Sequence[PackModel]) -> float:
    """A lower bound, inches times weight, of ``sum_i weight_i * d_i`` over every placement of
    ``models`` whose bases lie in ``region`` (up to ``TOLERANCE_IN``) and do not overlap (by more
    than ``TOLERANCE_IN``), ``d_i`` the distance from model *i*'s centre to ``point``. The proof is
    in the module's docstring. ``math.inf`` if the bases' areas exceed the region's (no placement)."""
    if not models:
        return 0.0
    z = region.buffer(TOLERANCE_IN, join_style="mitre")
    areas = np.sort(np.array([m.area for m in models], dtype=float))
    sums = np.cumsum(areas)
    if bases_exceed(z, float(sums[-1])):
        return math.inf
    levels = area_levels(z, point, sums)  # ascending with k
    gap = float(z.distance(shapely.Point(point)))
    w = np.array([m.weight for m in models], dtype=float)
    outer = np.array([m.outer for m in models], dtype=float)
    least = np.array([gap + m.inner if gap > 0 else 0.0 for m in models], dtype=float)
    cost = w[:, None] * np.maximum(levels[None, :] - outer[:, None], least[:, None])  # (model, rank)
    cost = np.maximum(cost, 0.0)
    return _least_assignment(cost)


def bases_exceed(grown: BaseGeometry, total: float) -> bool:
    """The packing bound by area's test of "no placement at all": do bases whose areas (each a
    lower bound, :func:`pack_model`) sum to ``total`` (sq in) exceed the area of ``grown`` (the
    region the bases must lie wholly within, grown by ``TOLERANCE_IN``)? Bases may not overlap, so
    then no placement of them all exists (used by :func:`packing_bound` and :func:`no_fit_words`)."""
    return total > float(grown.area)


ERODE_SLACK = 1e-3
""":func:`no_fit_words` erodes the region by this fraction less than a base's inner radius (and
grows it by ``TOLERANCE_IN`` first), so that polygon arithmetic can never claim a fit impossible
that the checker would accept."""


def no_fit_words(region: BaseGeometry, bases: Sequence[tuple[str, Footprint]], where: str,
                 owner: str | None = None) -> str | None:
    """A proof by the rules alone (whatever the formation, the grid or a placement by hand) that
    the bases ``bases`` (each model's label and base footprint, at any position and facing) cannot
    all stand wholly within ``region`` (``where`` names it, e.g. "deployment zone bz") without
    overlapping: the phrase that says why, or None where neither test proves it (not a proof of a fit).

    (a) Some base fits nowhere: a base holds a disc of its inner radius about its centre
    (:attr:`Footprint.inner_radius`; the base itself for a round base), so a base wholly within
    the region puts its centre in the region eroded by that radius. If that erosion (of the region
    grown by ``TOLERANCE_IN``, by the radius less :data:`ERODE_SLACK` of it) is empty, no base of
    that size fits: exact for round bases, sound (but weaker) for ovals and hulls.
    (b) The bases' areas (lower bounds, :func:`pack_model`) sum to more than the region's: the
    packing bound by area's test (:func:`bases_exceed`), since bases may not overlap.

    ``owner`` names the bases' owners in the phrase ("units a, b"; None: "the unit's N bases").
    Inches and square inches."""
    if not bases:
        return None
    grown = region.buffer(TOLERANCE_IN, join_style="mitre")
    x0, y0, x1, y1 = region.bounds
    size = f"{where} ({x1 - x0:g}\" x {y1 - y0:g}\")"
    label, fp = max(bases, key=lambda b: b[1].inner_radius)
    r = fp.inner_radius
    if r > 0 and grown.buffer(-r * (1 - ERODE_SLACK)).is_empty:
        held = (f"a round base of radius {r:.3f}\"" if fp.kind == "circle"
                else f"a disc of radius {r:.3f}\" (inside its base)")
        return f"the base of model {label} fits nowhere wholly within its {size}: {held} cannot be wholly within it"
    total = sum(pack_model(f, 1.0).area for _, f in bases)
    if bases_exceed(grown, total):
        them = f"the unit's {len(bases)} bases" if owner is None else f"the {len(bases)} bases of {owner}"
        return (f"{them}, which may not overlap, cover at least {total:.1f} sq in, more than "
                f"{'its' if owner is None else 'their'} {size} holds ({float(region.area):.1f} sq in)")
    return None


def _least_assignment(cost: np.ndarray) -> float:
    """The least sum of ``cost[i, pi(i)]`` over permutations ``pi`` (square, >= 0), rounded down
    on the ``ASSIGN_SCALE`` grid (never above the true least sum)."""
    from ortools.graph.python import linear_sum_assignment  # type: ignore[import-untyped]

    n = cost.shape[0]
    if n == 1:
        return float(cost[0, 0])
    ic = np.floor(cost * ASSIGN_SCALE).astype(np.int64)
    a = linear_sum_assignment.SimpleLinearSumAssignment()
    ii, jj = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    a.add_arcs_with_cost(ii.ravel(), jj.ravel(), ic.ravel())
    if a.solve() != a.OPTIMAL:  # pragma: no cover - a full square matrix always has an assignment
        return float(np.sort(cost, axis=0)[0].sum())  # each rank at its cheapest model: still a bound
    return a.optimal_cost() / ASSIGN_SCALE


def plan_packing_bound(builder, groups, terms) -> float | None:
    """The packing bound (objective units, floating) of the planner's whole objective, or None
    where it does not apply: every goal term must be a single-point distance term (``near_point``,
    ``near_objective``); each term is bounded alone (the models it counts, in the union of their
    units' regions) and the bounds summed.

    ``builder``: the run's :class:`~planner.solve.candidates.CandidateBuilder` (its ``region``
    and ``table``); ``groups``: the placement groups; ``terms``: the compiled goal terms."""
    if not terms or any(t.kind not in _TERMS or t.points is None or len(t.points) != 1 or t.cap is not None
                        or t.origins is not None for t in terms):
        return None
    total = 0.0
    for t in terms:
        models, regions = [], []
        for g in groups:
            counted = [m for u in g.members for m in u.models if t.units is None or u.id in t.units]
            if not counted:
                continue
            poly = builder.region(g)
            if poly is None:
                return None
            regions.append(poly)
            models += [pack_model(footprint(m.base, 0.0, 0.0, 0.0), t.weight) for m in counted]
        if not models:
            continue
        z = shapely.union_all(regions)
        assert t.points is not None
        b = packing_bound(z, (float(t.points[0, 0]), float(t.points[0, 1])), models)
        if not math.isfinite(b):
            return None
        total += b
    return total
