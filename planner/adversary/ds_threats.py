"""Worst case for me, 40k 10th/11th: where can an enemy unit arrive by Deep Strike?

A unit set up with ``{method: reserves, arrival: deep_strike}`` arrives with every model more than
the ruleset's distance from every enemy model (``DEEP_STRIKE_MORE_THAN_IN``: 9" in wh40k10, 8" in
wh40k11) and wholly on the battlefield (RULES.md §2; the predicates of
:func:`planner.deepstrike.procedure.judge_landing`). The unit lands in the procedure's ring
formation with its first model's centre at a grid anchor (multiples of ``grid_in``, as for
Infiltrate threats); the legal area is (legal anchors) x (cell area), square inches. Restrictions
of my units on Deep Strike arrivals (``restrictions:`` with method ``deep_strike``) are honoured:
the landing test measures them with the one predicate (:mod:`planner.legality.checks.restriction`,
rule ``<ruleset>.restriction.within``).

Goals: ``near_point``/``near_objective`` (closest base edge to the point) and ``near_units``
(closest base to base to one of my models). Sight goals are refused: this ruleset's arrival has
no line-of-sight condition here.
"""

from __future__ import annotations

import math
import time

from planner.adversary.threats import (
    EnemyPlacement,
    ThreatGoal,
    ThreatResult,
    cut_short,
    grid_only_words,
    point_distance,
    violation_lines,
)
from planner.errors import ScenarioError
from planner.geometry.shapes import signed_distance
from planner.legality.report import LegalityReport
from planner.schema import SetupMethod
from planner.solve import stop
from planner.world import World


def is_deepstrike_arrival(world: World, unit_id: str) -> bool:
    """The unit exists, the ruleset's Deep Strike is an arrival from Reserves (10th/11th) and the
    unit arrives that way."""
    u = world.units.get(unit_id)
    return (u is not None and world.ruleset.HAS_DEEP_STRIKE_ARRIVAL and u.setup.method is SetupMethod.RESERVES
            and u.setup.arrival == "deep_strike")


def deepstrike_threats(world: World, enemy_unit: str, goal: ThreatGoal, grid_in: float = 2.0, *,
                       stoppable: bool = False, time_limit_s: float | None = None) -> ThreatResult:
    """The enemy unit's legal Deep Strike arrival anchors against my deployment and its best one.
    With ``stoppable``, a stop request (Ctrl-C) or the time limit (``time_limit_s``, wall-clock
    seconds from the call; None: none) ends the scan: the answer is then the one of the anchors
    judged so far (:func:`planner.adversary.threats.cut_short`).

    Returns a :class:`planner.adversary.threats.ThreatResult` (``best.legal``: the landing judged by
    the Deep Strike procedure's exact predicates; ``legality`` None).

    Raises
    ------
    ScenarioError
        A sight goal (``--goal``), or a unit that cannot Deep Strike (see
        :func:`planner.deepstrike.procedure.make_setup`).
    """
    from planner.deepstrike.procedure import best_setup, judge_landing, make_setup

    if goal.kind not in ("near_point", "near_units"):
        raise ScenarioError("Deep Strike arrivals (10th/11th) take the goals near_units, near_point:X,Y and "
                            "near_objective:ID", location="--goal", value=goal.kind)
    t0 = time.monotonic()
    deadline = t0 + time_limit_s if time_limit_s is not None else math.inf
    st = make_setup(world, enemy_unit)
    mine = [o.fp for o in st.obstacles if o.enemy]
    g = float(grid_in)
    nx, ny = math.floor(st.width / g + 1e-9) + 1, math.floor(st.depth / g + 1e-9) + 1
    legal: list[tuple[float, float]] = []
    best = None
    judged = 0
    for j in range(ny):
        for i in range(nx):
            if stoppable and stop.clock() >= deadline:  # a stop request (clock: inf) or the time limit
                break
            judged += 1
            x, y = i * g, j * g
            land = best_setup(st, x, y)  # as the controller would set it up there (any legal formation)
            if land.mishap:
                continue
            legal.append((x, y))
            fps = tuple(S.moved(cx, cy) for (cx, cy), S in zip(land.formation.centres, st.shapes, strict=True))
            if goal.kind == "near_point":
                v = point_distance(fps, goal.point)  # type: ignore[arg-type]
            else:
                v = min((max(0.0, signed_distance(f, m)) for f in fps for m in mine), default=math.inf)
            if best is None or v < best[0] - 1e-9:
                best = (v, x, y, fps, land.formation)
    placement = None
    if best is not None:
        v, x, y, fps, form = best
        placement = EnemyPlacement(unit=enemy_unit, formation="deep strike ring", anchor=(x, y), value=v,
                                   models={enemy_unit: [(f.cx, f.cy, st.facing_deg) for f in fps]},
                                   legal=not judge_landing(st, x, y, form).mishap)
    limit = st.rules.more_than_in
    base = _deployment_report(world, enemy_unit)
    gridded = best is None and judged == nx * ny  # every anchor judged, none legal: a proof over the grid only
    msg = (f"best Deep Strike arrival for the enemy ({goal.label}): {best[0]:g}" if best is not None
           else f"no legal Deep Strike arrival (more than {limit:g}\" from my models) on the grid"
           + (grid_only_words(g) if gridded else ""))
    result = ThreatResult(enemy_unit=enemy_unit, goal=goal.label, grid_in=g, legal_anchors=len(legal),
                          legal_area_sq_in=len(legal) * g * g, best=placement, message=msg,
                          wall_time_s=time.monotonic() - t0, deployment_legal=base is None or base.legal,
                          deployment_violations=violation_lines(base), legal_cells=legal, positions_judged=judged,
                          positions=nx * ny, limit="grid" if gridded else None)
    if stoppable:
        cut_short(result, time_limit_s=time_limit_s, deadline=deadline)
    return result


def _deployment_report(world: World, enemy_unit: str) -> LegalityReport | None:
    """The checker's report on the table the unit arrives on (:func:`planner.adversary.threats.table_report`)."""
    from planner.adversary.report import enemy_ids
    from planner.adversary.threats import table_report

    return table_report(world, enemy_ids(world, [enemy_unit]))
