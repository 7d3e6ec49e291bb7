"""Distance predicates of the set-up rules: the Infiltrate (HH2) and Infiltrators (40k) distances
and a Scout redeploy's.

``margin`` (inches, default 0) is the planner's safety margin on "more than" distances: a plan
keeps it so that a player can reproduce the placement with a tape measure; the checker uses 0.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from enum import Enum
from typing import TYPE_CHECKING, Any

from planner.geometry.measure import farthest_from, is_more_than_distance, is_within_distance
from planner.geometry.shapes import Footprint
from planner.units import TOLERANCE_IN

if TYPE_CHECKING:
    from planner.legality.table import Placed
    from planner.rules.base import Ruleset
    from planner.rules.wh40k import Warhammer40k


class InfiltrateDistance(Enum):
    """Where a distance to the nearest enemy unit leaves an Infiltrator (HH2 p.242)."""

    TOO_CLOSE = "too_close"
    """Not more than ``INFILTRATE_HIDDEN_MORE_THAN_IN``: illegal."""
    HIDDEN_NEEDED = "hidden_needed"
    """More than the hidden distance, not more than ``INFILTRATE_PLAIN_SIGHT_MORE_THAN_IN``: legal
    only out of sight of every deployed enemy unit."""
    PLAIN_SIGHT = "plain_sight"
    """More than the plain-sight distance: legal even in plain sight."""


def infiltrate_distance(rs: Ruleset, nearest_in: float, margin: float = 0.0) -> InfiltrateDistance:
    """Rule ``<rs>.infiltrate.distance``: classify the closest-point distance ``nearest_in``
    (inches) from an Infiltrator to the nearest enemy unit.

    Raises
    ------
    ValueError
        If the ruleset has no Infiltrate distances.
    """
    hidden, plain = rs.INFILTRATE_HIDDEN_MORE_THAN_IN, rs.INFILTRATE_PLAIN_SIGHT_MORE_THAN_IN
    if hidden is None or plain is None:
        raise ValueError(f"ruleset {rs.id} has no Infiltrate distances")
    if not is_more_than_distance(nearest_in, hidden + margin):
        return InfiltrateDistance.TOO_CLOSE
    if not is_more_than_distance(nearest_in, plain + margin):
        return InfiltrateDistance.HIDDEN_NEEDED
    return InfiltrateDistance.PLAIN_SIGHT


def infiltrators_far_enough(rs: Warhammer40k, nearest_in: float, margin: float = 0.0) -> bool:
    """Rules ``<rs>.infiltrators.distance`` and ``<rs>.infiltrators.zone_distance`` (40k 10th/11th,
    10E-GST / 11E-GST p.39): an Infiltrator is more than ``INFILTRATORS_MORE_THAN_IN`` horizontally
    from the enemy deployment zone and every enemy model / unit (``nearest_in``: the closest-point
    distance to the one measured, inches; 0 inside a zone). Strict: exactly the distance is too close."""
    return is_more_than_distance(nearest_in, rs.INFILTRATORS_MORE_THAN_IN + margin)


def scout_far_enough(rs: Ruleset, nearest_in: float, margin: float = 0.0) -> bool:
    """Rule ``<rs>.scout.more_than_9``: a Scout redeploy ends more than ``SCOUT_MORE_THAN_IN``
    from every enemy unit (``nearest_in``: the closest-point distance, inches).

    Raises
    ------
    ValueError
        If the ruleset has no Scout redeploy distance.
    """
    if rs.SCOUT_MORE_THAN_IN is None:
        raise ValueError(f"ruleset {rs.id} has no Scout redeploy distance")
    return is_more_than_distance(nearest_in, rs.SCOUT_MORE_THAN_IN + margin)


Level = tuple[float, float]
"""A model's volume in height: (z of the floor it stands on, its top), inches."""


def vertical_gap(a: Level, b: Level) -> float:
    """The vertical distance between two model volumes (inches; 0 where their heights overlap,
    as for two models on the same floor)."""
    return max(0.0, b[0] - a[1], a[0] - b[1])


def measured_distance(horizontal_in: float, a: Level, b: Level, rs: Ruleset) -> float:
    """The distance between two models as ruleset ``rs`` measures set-up distances: horizontally
    (``rs.DISTANCES_3D`` False: 10th/11th "more than 9\" horizontally"), or between the closest
    points of the two volumes (True: the distance in space, from the horizontal closest-point
    distance ``horizontal_in`` and :func:`vertical_gap`). An overlap (negative) stays as it is."""
    if not rs.DISTANCES_3D or horizontal_in < 0:
        return horizontal_in
    v = vertical_gap(a, b)
    return horizontal_in if v == 0 else float(math.hypot(horizontal_in, v))


def within_vertically(a: Level, b: Level, limit_in: float) -> bool:
    """The vertical part of a "within X\" horizontally and Y\" vertically" rule (40k coherency
    and Engagement Range, 5"): the two volumes are within ``limit_in`` vertically."""
    return is_within_distance(vertical_gap(a, b), limit_in)


def moved_within(before: Footprint, after: Footprint, limit_in: float) -> bool:
    """A move of "up to X"" / "entirely within X" of its position": no part of the base at
    ``after`` is more than ``limit_in`` from where it stood (its base at ``before``).

    The verdict of :func:`~planner.geometry.measure.farthest_from`, with two certificates first
    (``c`` the centre move, ``R``/``r`` the outer/inner radii, each base holding the disc of its
    inner radius about its centre): every point of ``after`` lies within ``c + R_after`` of
    ``before``'s centre, so within ``c + R_after - r_before`` of ``before``; and the point of
    ``after``'s inner disc farthest from ``before``'s centre lies ``c + r_after`` from it, so at
    least ``c + r_after - R_before`` from ``before``. Only a move between the two is measured
    exactly (a Scout redeploy of oval bases: 18.5 s of a 23 s plan went to exact scans)."""
    c = math.hypot(after.cx - before.cx, after.cy - before.cy)
    if c + after.outer_radius - before.inner_radius <= limit_in:
        return True
    if c + after.inner_radius - before.outer_radius > limit_in + TOLERANCE_IN + 1e-9:
        return False
    return is_within_distance(farthest_from(before, after), limit_in)


def each_too_close(placed: Placed, nearest: tuple[Any, ...], measure: Callable[[Placed], tuple[Any, ...] | None],
                   fails: Callable[[float], bool]) -> list[tuple[int, float, str]]:
    """Every model of ``placed`` (a :class:`planner.legality.table.Placed`) that fails a distance
    rule, not only the closest one (a judge moves each), worst first: (footprint index, distance in
    inches, the nearest other model as ``unit/model``).

    ``nearest`` is the unit's ``(d, i, other, j)`` already found (``Table.nearest_unit``);
    ``measure(p)`` gives the same for one footprint ``p`` (the same call with the same enemies), and
    ``fails(d)`` is the rule's verdict on a distance (True: too close). Called only when the
    closest model fails, so a legal unit costs nothing more."""
    from planner.legality.report import worst_first
    from planner.legality.table import Placed

    d, i, other, j = nearest
    out = [(i, d, f"{other.unit.id}/{other.model_id(j)}")]
    for k, fp in enumerate(placed.footprints):
        if k == i:
            continue
        nk = measure(Placed(placed.unit, (fp,), (placed.model_id(k),)))
        if nk is not None and fails(nk[0]):
            out.append((k, nk[0], f"{nk[2].unit.id}/{nk[2].model_id(nk[3])}"))
    return worst_first(out, i, larger_is_worse=False)  # the one order of every "also model ..." list
