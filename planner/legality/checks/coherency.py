"""Unit coherency, as each ruleset words it.

Horus Heresy: every model within the coherency range (2", Close-order 1", Skirmish 3") of another
model, all in one linked group (:func:`coherency_gap` is the longest link of a minimum spanning
tree). 40k 10th/11th: within 2" of one other model (two in a unit of 7+ in 10th) and, in 11th,
within 9" of every model (:func:`coherency_shortfall`). Distances are closest point to closest
point, inches.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from planner.geometry.measure import is_within_distance
from planner.geometry.shapes import Footprint, signed_distance, signed_distances
from planner.legality.checks.distance import vertical_gap
from planner.schema import SubType
from planner.units import TOLERANCE_IN

if TYPE_CHECKING:
    from planner.rules.hh2 import HorusHeresy2
    from planner.rules.wh40k import Warhammer40k
    from planner.world import ModelInfo


def coherency_range(models: Sequence[ModelInfo], R: HorusHeresy2) -> float:
    """Unit coherency range in inches for a group of models (HH2: 2", Close-order 1", Skirmish 3").

    A group uses the Close-order or Skirmish range only if every model has that sub-type.
    """
    if models and all(SubType.CLOSE_ORDER in m.subtypes for m in models):
        return R.COHERENCY_CLOSE_ORDER_IN
    if models and all(SubType.SKIRMISH in m.subtypes for m in models):
        return R.COHERENCY_SKIRMISH_IN
    return R.COHERENCY_IN


def _distance_matrix(fps: Sequence[Footprint],
                     measure: Callable[[list[tuple[Footprint, Footprint]]], np.ndarray]) -> list[list[float]]:
    """Closest-point distances between every two of ``fps`` (inches, 0 for touching or overlapping)."""
    n = len(fps)
    dist = [[0.0] * n for _ in range(n)]
    hypot = math.hypot
    other: list[tuple[int, int]] = []
    for i in range(n):
        a = fps[i]
        for j in range(i + 1, n):
            b = fps[j]
            if a.kind == "circle" and b.kind == "circle":  # signed_distance's own formula, inlined
                dist[i][j] = dist[j][i] = max(0.0, hypot(a.cx - b.cx, a.cy - b.cy) - a.a - b.a)
            else:
                other.append((i, j))
    # the other pairs (ovals, hulls) measured together: the same values, one vectorised search
    if other:
        for (i, j), d in zip(other, measure([(fps[i], fps[j]) for i, j in other]).tolist(), strict=True):
            dist[i][j] = dist[j][i] = max(0.0, d)
    return dist


def coherency_gap(fps: Sequence[Footprint],
                  measure: Callable[[list[tuple[Footprint, Footprint]]], np.ndarray] = signed_distances
                  ) -> tuple[float, int, int]:
    """The smallest range that links every model into one group: the longest edge of a minimum
    spanning tree over closest-point distances (Prim). Returns (inches, i, j) of that edge.
    ``measure``: :func:`~planner.geometry.shapes.signed_distances`, or a caller's cache of it."""
    n = len(fps)
    if n < 2:
        return 0.0, 0, 0
    return _tree_gap(_distance_matrix(fps, measure))


def _tree_gap(dist: list[list[float]]) -> tuple[float, int, int]:
    """:func:`coherency_gap` of a distance matrix (Prim from model 0)."""
    n = len(dist)
    left = list(range(n))  # the models not in the tree yet, in index order
    best = [math.inf] * n
    link = [0] * n
    best[0] = 0.0
    worst = (0.0, 0, 0)
    for _ in range(n):
        k = left[0]  # the first of the least ``best`` (min's tie rule)
        for i in left:
            if best[i] < best[k]:
                k = i
        left.remove(k)
        if k != 0 and best[k] > worst[0]:
            worst = (best[k], link[k], k)
        row = dist[k]
        for i in left:
            if row[i] < best[i]:
                best[i], link[i] = row[i], k
    return worst


def _groups(dist: list[list[float]], rng: float) -> list[list[int]]:
    """The linked groups of a distance matrix (models within ``rng`` inches, link by link: the
    same predicate as the tree's gap), each in model order, the largest first (on a tie, the
    group of the lowest model index first)."""
    n = len(dist)
    group = [-1] * n
    for s in range(n):
        if group[s] < 0:
            group[s], todo = s, [s]
            while todo:
                k = todo.pop()
                for i in range(n):
                    if group[i] < 0 and is_within_distance(dist[k][i], rng):
                        group[i] = s
                        todo.append(i)
    out = [[i for i in range(n) if group[i] == g] for g in dict.fromkeys(group)]
    return sorted(out, key=lambda m: (-len(m), m[0]))


def linked_groups(fps: Sequence[Footprint], rng: float,
                  measure: Callable[[list[tuple[Footprint, Footprint]]], np.ndarray] = signed_distances
                  ) -> list[list[int]]:
    """The groups of bases ``fps`` linked within ``rng`` inches (edge to edge, link by link), as
    lists of indices in order, the largest first (on a tie, the group of the lowest index): the
    unit's coherency groups, whose first is the one :func:`cut_off` measures the others to."""
    return _groups(_distance_matrix(fps, measure), rng) if len(fps) > 1 else [list(range(len(fps)))]


def cut_off(fps: Sequence[Footprint], rng: float,
            measure: Callable[[list[tuple[Footprint, Footprint]]], np.ndarray] = signed_distances
            ) -> tuple[tuple[float, int, int], list[tuple[int, float, int]]]:
    """:func:`coherency_gap` of ``fps``, and every model not linked (within ``rng`` inches, link
    by link) to the largest group of the unit (on a tie, the group of the lowest model index):
    (its index, its distance to the nearest model of that group in inches, that model's index),
    in model order; empty when the unit is coherent (:func:`is_coherent`)."""
    n = len(fps)
    if n < 2:
        return (0.0, 0, 0), []
    dist = _distance_matrix(fps, measure)
    gap = _tree_gap(dist)
    if is_within_distance(gap[0], rng):
        return gap, []
    members = _groups(dist, rng)[0]
    main = set(members)
    out = []
    for k in range(n):
        if k not in main:
            j = min(members, key=lambda i: dist[k][i])
            out.append((k, dist[k][j], j))
    return gap, out


def is_coherent(models: Sequence[ModelInfo], fps: list[Footprint], R: HorusHeresy2) -> bool:
    """Horus Heresy unit coherency of ``models`` standing at ``fps``: one linked group within the
    range of :func:`coherency_range`."""
    return is_within_distance(coherency_gap(fps)[0], coherency_range(models, R))


def joined_gap(ic_models: Sequence[ModelInfo], ic_fps: Sequence[Footprint], host_models: Sequence[ModelInfo],
               host_fps: Sequence[Footprint], R: HorusHeresy2) -> tuple[float, float, bool]:
    """Horus Heresy ``hh2.ic.coherency``: is a joined Independent Character within unit coherency
    of a model of the host unit itself (p.241)?

    A stated ruling: a chain through another joined character does not count (RULES.md §1.6 says
    "deployed in unit coherency with the unit" and "may join other ICs"; the stricter reading is
    the safe one: a deployment legal under it is legal under the chain reading too). The one
    predicate of the rule: the checker's finding and the planner's formations
    (:func:`is_joined_coherent`) both call it.

    Returns ``(d, rng, ok)`` in inches: ``d`` the closest distance from the character's bases
    ``ic_fps`` to the host's ``host_fps`` (closest point to closest point, 0 where bases touch or
    overlap), ``rng`` the coherency range of the character and host models together
    (:func:`coherency_range`), ``ok`` whether ``d`` is within it. Both lists must be non-empty.
    """
    rng = coherency_range(list(ic_models) + list(host_models), R)
    d = min(max(0.0, signed_distance(x, y)) for x in ic_fps for y in host_fps)
    return d, rng, is_within_distance(d, rng)


def is_joined_coherent(models: Sequence[ModelInfo], fps: list[Footprint], R: HorusHeresy2) -> bool:
    """Horus Heresy unit coherency of a unit with Independent Characters joined to it, standing at
    ``fps``: ``models`` are the host unit's first, then each character's (grouped by
    ``unit_id``, as :attr:`planner.solve.candidates.Group.models` lists them). Each character is
    within coherency of a model of the host itself (:func:`joined_gap`, ``hh2.ic.coherency``), and
    all the models are one linked group (:func:`is_coherent`, ``hh2.coherency``, as the checker
    judges the unit with the characters in range of it). A single unit: :func:`is_coherent`."""
    if not models:
        return True
    host = models[0].unit_id
    host_models = [m for m in models if m.unit_id == host]
    host_fps = [f for m, f in zip(models, fps, strict=True) if m.unit_id == host]
    for uid in dict.fromkeys(m.unit_id for m in models if m.unit_id != host):
        ic = [(m, f) for m, f in zip(models, fps, strict=True) if m.unit_id == uid]
        if not joined_gap([m for m, _ in ic], [f for _, f in ic], host_models, host_fps, R)[2]:
            return False
    return is_coherent(models, fps, R)


def coherency_shortfall(fps: list[Footprint], R: Warhammer40k,
                        levels: Sequence[tuple[float, float]] | None = None) -> tuple[float, int, str]:
    """How far a group of models is from coherency under ruleset module ``R``.

    Returns (margin in inches, index of the worst model, which part): a margin >= 0 (within the
    tolerance) is coherent. Parts: 'neighbours' (each model within ``COHERENCY_IN`` of 1 other
    model, or of 2 in a unit of ``COHERENCY_LARGE_UNIT_MODELS`` or more), 'every' (each model
    within ``COHERENCY_ALL_WITHIN_IN`` of every other model; 11th edition only).

    ``levels`` ((floor z, top) of each model, inches) brings in the vertical part ("and 5\"
    vertically", ``COHERENCY_VERTICAL_IN``): a pair further apart vertically is not within the
    range however close in plan, and counts as short by its vertical excess (a finite margin).
    """
    n = len(fps)
    if n < 2:
        return math.inf, 0, "neighbours"
    m, i, part, _ = min(coherency_shortfalls(fps, R, levels), key=lambda t: t[0])  # the first of the lowest
    return m, i, part


def coherency_shortfalls(fps: list[Footprint], R: Warhammer40k,
                         levels: Sequence[tuple[float, float]] | None = None) -> list[tuple[float, int, str, int]]:
    """Each model's margin in each part of :func:`coherency_shortfall` (the same arguments):
    (margin in inches, model index, part, index of the model it is measured to: its
    ``k``-th nearest for 'neighbours', its farthest for 'every'), every model's 'neighbours'
    first, then every model's 'every' (11th edition); empty for fewer than two models. A
    margin below ``-TOLERANCE_IN`` is a model out of coherency in that part."""
    n = len(fps)
    if n < 2:
        return []
    d = [[0.0] * n for _ in range(n)]
    for i in range(n):
        for j in range(i + 1, n):
            d[i][j] = d[j][i] = max(0.0, signed_distance(fps[i], fps[j]))
    excess = [[0.0] * n for _ in range(n)]  # how far beyond the vertical limit a pair is
    if levels is not None and R.COHERENCY_VERTICAL_IN is not None:
        for i in range(n):
            for j in range(i + 1, n):
                excess[i][j] = excess[j][i] = max(0.0, vertical_gap(levels[i], levels[j]) - R.COHERENCY_VERTICAL_IN)

    def within(i: int, j: int, limit: float) -> float:
        """The pair's distance as a coherency limit sees it: beyond the limit by the vertical excess."""
        return max(d[i][j], limit + excess[i][j]) if excess[i][j] > TOLERANCE_IN else d[i][j]
    large = R.COHERENCY_LARGE_UNIT_MODELS is not None and n >= R.COHERENCY_LARGE_UNIT_MODELS
    k = R.COHERENCY_NEIGHBOURS_LARGE if large else R.COHERENCY_NEIGHBOURS
    k = min(k, n - 1)
    out = []
    for i in range(n):
        kth, j = sorted((within(i, j, R.COHERENCY_IN), j) for j in range(n) if j != i)[k - 1]
        out.append((R.COHERENCY_IN - kth, i, "neighbours", j))
    if R.COHERENCY_ALL_WITHIN_IN is not None:
        for i in range(n):
            far, j = max((within(i, j, R.COHERENCY_ALL_WITHIN_IN), -j) for j in range(n) if j != i)
            out.append((R.COHERENCY_ALL_WITHIN_IN - far, i, "every", -j))
    return out


def is_coherent_40k(fps: list[Footprint], R: Warhammer40k,
                    levels: Sequence[tuple[float, float]] | None = None) -> bool:
    """40k unit coherency (:func:`coherency_shortfall` within the tolerance)."""
    return coherency_shortfall(fps, R, levels)[0] >= -TOLERANCE_IN
