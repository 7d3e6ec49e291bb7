"""Worst case for me: the enemy unit's best legal Infiltrate placement against a deployment.

``find_threats`` takes a deployment (every unit positioned, the enemy unit in Reserves or set to
Infiltrate with or without positions) and returns the enemy unit's whole legal arrival area
(see :mod:`planner.adversary.legal_area`) and its best placement under a goal:

- ``near_point X,Y``: closest to a point (closest base edge to the point, inches; smaller is better
  for the enemy); ``near_objective ID`` the same with an objective's centre;
- ``near_units``: closest to one of my units (closest base to base, inches);
- ``sight``: most of my units in its line of sight (count; larger is better for the enemy);
- ``hidden_near X,Y``: hidden from all my units and within 12" of the point, closest to it.

The reported placement is written into the scenario and passes the independent checker (the
report carries that verdict).
"""

from __future__ import annotations

import copy
import math
import time
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from planner.adversary.legal_area import (
    ArrivalSpace,
    Position,
    distance_region_area,
    enemy_group,
    fixed_units,
)
from planner.errors import ScenarioError
from planner.geometry.shapes import Footprint
from planner.legality.checker import check_deployment
from planner.legality.hh2 import infiltrates
from planner.legality.report import LegalityReport
from planner.legality.table import Placed
from planner.schema import Scenario
from planner.solve import stop
from planner.world import World, resolve

GOAL_KINDS = ("near_point", "near_objective", "near_units", "sight", "hidden_near")
HIDDEN_NEAR_IN = 12.0
"""``hidden_near``: the enemy must be within this distance of the point (issue #7's statement)."""


@dataclass(frozen=True)
class ThreatGoal:
    """What the enemy wants. ``kind`` one of GOAL_KINDS; ``point`` (inches) for point goals."""

    kind: str
    point: tuple[float, float] | None = None
    label: str = ""

    @property
    def maximise(self) -> bool:
        return self.kind == "sight"


def parse_goal(text: str | None, world: World) -> ThreatGoal:
    """``near_point:X,Y``, ``near_objective:ID``, ``near_units``, ``sight``, ``hidden_near:X,Y``.

    Raises ScenarioError (option ``--goal``) for anything else.
    """
    if text is None:
        return ThreatGoal("near_units", None, "closest to one of my units")
    kind, _, arg = text.partition(":")
    kind = kind.strip().replace("-", "_")
    if kind not in GOAL_KINDS:
        raise ScenarioError(f"unknown goal; choose one of {', '.join(GOAL_KINDS)} (point goals as "
                            "near_point:X,Y)", location="--goal", value=text)
    if kind in ("near_point", "hidden_near"):
        try:
            xs, ys = arg.split(",")
            x, y = float(xs), float(ys)
        except ValueError:
            raise ScenarioError(f"{kind} needs a point X,Y in inches, as in {kind}:36,24", location="--goal",
                                value=text) from None
        if not (math.isfinite(x) and math.isfinite(y)):
            raise ScenarioError("the point must be finite numbers", location="--goal", value=text)
        bf = world.scenario.battlefield
        if not bf.holds(x, y):
            raise ScenarioError(f"the goal point must be on the {bf.width:g}\" x {bf.depth:g}\" battlefield",
                                location="--goal", value=text)
        words = "closest to" if kind == "near_point" else f'hidden and within {HIDDEN_NEAR_IN:g}" of, closest to'
        return ThreatGoal(kind, (x, y), f"{words} ({x:g}, {y:g})")
    if kind == "near_objective":
        obj = next((o for o in world.scenario.objectives if o.id == arg.strip()), None)
        if obj is None:
            ids = ", ".join(o.id for o in world.scenario.objectives) or "none in the scenario"
            raise ScenarioError(f"no objective {arg.strip()!r} (objectives: {ids})", location="--goal", value=text)
        return ThreatGoal("near_point", (obj.x, obj.y), f"closest to objective {obj.id} ({obj.x:g}, {obj.y:g})")
    if arg:
        raise ScenarioError(f"{kind} takes no argument", location="--goal", value=text)
    return ThreatGoal(kind, None, "closest to one of my units" if kind == "near_units"
                      else "most of my units in its line of sight")


def point_distance(fps: tuple[Footprint, ...], point: tuple[float, float]) -> float:
    """Closest distance from any base to a point, inches (0 if a base covers it)."""
    from shapely.geometry import Point

    best = math.inf
    for f in fps:
        lb = math.hypot(f.cx - point[0], f.cy - point[1]) - f.outer_radius
        if lb >= best:
            continue
        d = 0.0 if f.contains_point(*point) else f.polygon(256, circumscribed=False).exterior.distance(Point(point))
        if f.kind == "circle":
            d = max(0.0, lb)
        best = min(best, d)
    return best


class EnemyPlacement(BaseModel):
    """Where the enemy unit arrives: formation, anchor (inches), model positions and goal value."""

    model_config = ConfigDict(extra="forbid")
    unit: str
    formation: str
    anchor: tuple[float, float]
    value: float
    models: dict[str, list[tuple[float, float, float]]]
    legal: bool | None = Field(default=None, description="The checker's verdict with it on the table.")


class ThreatResult(BaseModel):
    """``planner threats`` report."""

    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)
    enemy_unit: str
    goal: str
    grid_in: float
    legal_anchors: int
    legal_area_sq_in: float = Field(description="Anchors with a legal formation x cell area (grid_in^2).")
    distance_region_sq_in: float | None = Field(
        default=None, description="Exact area (shapely) of centre points more than 9\" from my units on the "
                                  "battlefield, terrain and sight ignored (single round base only).")
    best: EnemyPlacement | None = None
    message: str = ""
    wall_time_s: float
    deployment_legal: bool
    deployment_violations: list[str] = Field(
        default_factory=list, description="When the deployment itself is not legal: each of the checker's "
                                          "violations, as 'unit U: message [rule]'.")
    legality: LegalityReport | None = None
    legal_cells: list[tuple[float, float]] = Field(default_factory=list)
    interrupted: bool = Field(default=False, description="Ctrl-C was pressed while the threats were sought (the "
                                                         "message says when).")
    limit: Literal["formations", "grid"] | None = Field(
        default=None, description="No legal arrival, and that is not a proof over the rules (exit 3): "
                                  "'formations' (no formation the scan tries fits on the battlefield: the limit is "
                                  "the scan's formations), 'grid' (every arrival position of the grid judged, none "
                                  "legal: an arrival off the grid may be; try a finer --grid); None otherwise (a "
                                  "best arrival, a scan cut short, or no arrival proven by the rules alone).")
    time_limit_s: float | None = Field(default=None, description="The time limit of the scan and the valuing, "
                                                                 "wall-clock seconds (None: none).")
    time_limit_reached: bool = Field(default=False, description="The time limit cut the scan or the valuing "
                                                                "short (complete is then False; the message "
                                                                "says where).")
    complete: bool = Field(default=True, description="Every arrival position was judged and valued for the goal. "
                                                     "False when Ctrl-C or the time limit cut the scan: the legal "
                                                     "area and the best "
                                                     "placement are those of the positions judged (positions_judged "
                                                     "of positions): the true area is at least this one, and the "
                                                     "enemy's true best at least as good.")
    positions_judged: int | None = Field(default=None, description="Arrival positions judged (each anchor with "
                                                                   "each formation tried; Deep Strike: anchors).")
    positions: int | None = Field(default=None, description="Arrival positions on the grid.")

    @property
    def exit_code(self) -> int:
        """0 a best placement that passes the checker on a legal deployment; 1 none (proven by the
        rules alone), or it or the deployment illegal; 3 an answer cut short by Ctrl-C or the time
        limit (:attr:`complete` False) that proves nothing illegal, or no arrival because of the
        scan's formations or its grid (:attr:`limit`): no answer within the limits."""
        if not self.deployment_legal or (self.best is not None and self.best.legal is False):
            return 1
        if not self.complete or self.limit is not None:
            return 3
        return 0 if self.best is not None and self.best.legal else 1


def grid_only_words(grid_in: float) -> str:
    """What a scan that judged every position of its ``grid_in`` inch grid and found no legal
    arrival proves (``limit="grid"``, exit 3): the phrase added to its message."""
    return (f", and that is not a proof: every arrival position on the {grid_in:g}\" grid judged, none legal, so "
            "no legal arrival is proven over the grid only, not by the rules: an arrival off the grid may be legal; "
            "try a finer --grid")


def cut_short(result: ThreatResult, valued: int | None = None, legal: int | None = None, *,
              time_limit_s: float | None = None, deadline: float = math.inf) -> None:
    """Mark ``result`` as answered after a stop request (Ctrl-C, :mod:`planner.solve.stop`), if
    one was made, or after the time limit (``time_limit_s``, seconds, which ran out at the
    ``time.monotonic()`` time ``deadline``), if it was reached: the scan cut after
    ``positions_judged`` of ``positions``, or (``valued`` of ``legal``) the goal valued for some
    of the legal positions only, or the answer whole (the Ctrl-C came while it was checked; a time
    limit reached after the scan and the valuing cut nothing, and is not reported). Nothing when
    no stop was requested and the time limit was not reached. ``result.time_limit_s`` is set to
    ``time_limit_s``."""
    result.time_limit_s = time_limit_s
    judged, total = result.positions_judged, result.positions
    cut = (judged is not None and total is not None and judged < total) or \
        (valued is not None and legal is not None and valued < legal)
    if not stop.requested():
        if not (cut and stop.clock() >= deadline):
            return
        result.time_limit_reached = True
    else:
        result.interrupted = True
    if judged is not None and total is not None and judged < total:
        result.complete = False
        what = (f"the scan was cut after {judged} of {total} arrival positions: the legal area is at least the one "
                "found, and the best placement is the best of those")
    elif valued is not None and legal is not None and valued < legal:
        result.complete = False
        what = (f"the goal was valued for {valued} of the {legal} legal positions: the legal area is whole, the "
                "best placement is the best of those valued")
    else:
        what = "the scan had ended (the answer is whole; the placement was being checked)"
    if result.time_limit_reached:
        result.message = f"time limit reached ({time_limit_s:g} s): {what}; {result.message}"
    else:
        result.message = stop.said(f"{what}; {result.message}")


def table_report(world: World, arriving: set[str]) -> LegalityReport | None:
    """The checker's report on the table the enemy arrives on: ``arriving`` (the enemy unit and the
    Independent Characters joined to it) off the table, as a ``deny`` goal has them
    (:func:`planner.adversary.deny.off_table`): their current positions are not part of the table.
    None when some other unit on the battlefield has no position (nothing complete to check)."""
    from planner.adversary.deny import off_table

    if not all(u.is_positioned for u in world.units.values() if u.on_battlefield and u.id not in arriving):
        return None
    return check_deployment(off_table(world, arriving))


def violation_lines(report: LegalityReport | None) -> list[str]:
    """The checker's violations of ``report`` as 'unit U: message [rule]' lines, as the planner
    prints a table already illegal (none for None)."""
    if report is None:
        return []
    return [f"unit {v.unit}: {v.message} [{v.rule}]" for v in report.violations]


def goal_value(space: ArrivalSpace, goal: ThreatGoal, p: Position, mine: list[Placed]) -> float | None:
    """The enemy's value of a legal position; None if the goal excludes it (hidden_near)."""
    if goal.kind == "near_point":
        return point_distance(p.footprints, goal.point)  # type: ignore[arg-type]
    if goal.kind == "near_units":
        n = space.table.nearest_unit(space.placed(p), mine)
        return n[0] if n else math.inf
    if goal.kind == "sight":
        target = space.placed(p)
        return float(sum(1 for m in mine if space.table.sight_from_any([target], m, exact=True)[0] is not None))
    if goal.kind == "hidden_near":
        d = point_distance(p.footprints, goal.point)  # type: ignore[arg-type]
        if d > HIDDEN_NEAR_IN:
            return None
        if mine and space.table.sight_from_any(mine, space.placed(p), exact=True)[0] is not None:
            return None
        return d
    raise ValueError(goal.kind)


def scenario_with(world: World, space: ArrivalSpace, p: Position, extra: dict[str, list] | None = None) -> dict:
    """The scenario's data with the enemy unit (and joined ICs) set up by Infiltrate at ``p``;
    ``extra`` places other units too (unit id -> [(x, y, facing)]). The enemy unit is given the
    last Infiltrate ``order`` so that it is placed after every unit of mine (my Infiltrators
    without an order get order 1): it arrives after my set-up."""
    data = copy.deepcopy(world.raw) if world.raw is not None else \
        world.scenario.model_dump(mode="json", by_alias=True, exclude_none=True)
    where = dict(extra or {})
    where.update(p.positions)
    enemy_ids = set(p.positions)
    orders = [u.setup.order for u in world.units.values() if u.setup.order]
    last = max(orders, default=0) + 1
    for army in data["armies"]:
        for unit in army["units"]:
            uid = unit["id"]
            if uid in where:
                for m, (x, y, facing) in zip(unit["models"], where[uid], strict=True):
                    m["x"], m["y"], m["facing"] = float(x), float(y), float(facing)
            if uid in enemy_ids:
                setup = unit.get("setup", {})
                setup = {"method": setup} if isinstance(setup, str) else dict(setup)
                keep = {k: v for k, v in setup.items() if k == "joined"}
                unit["setup"] = {"method": "infiltrate", **keep, "order": last}
                unit.pop("place", None)
            elif world.units[uid].player != space.player and infiltrates(world.units[uid]):
                setup = unit.get("setup", {})
                setup = {"method": setup} if isinstance(setup, str) else dict(setup)
                setup.setdefault("order", 1)
                unit["setup"] = setup
    return data


def check_with(world: World, space: ArrivalSpace, p: Position, extra: dict[str, list] | None = None) -> LegalityReport:
    """The checker's verdict on the scenario with the enemy unit at ``p`` (see :func:`scenario_with`)."""
    data = scenario_with(world, space, p, extra)
    return check_deployment(resolve(Scenario.model_validate(data), world.file, require_positions=True))


def best_reply(space: ArrivalSpace, goal: ThreatGoal, mine: list[Placed],
               legal: list[Position] | None = None) -> tuple[Position | None, float | None, list[Position]]:
    """The enemy's best legal position against ``mine`` (ties: lowest position index), its value,
    and every legal position. Exact (checker predicates); brute force over the grid."""
    if legal is None:
        legal = space.legal_against(mine)
    best, best_v, _ = _best_of(space, goal, mine, legal)
    return best, best_v, legal


def _best_of(space: ArrivalSpace, goal: ThreatGoal, mine: list[Placed], legal: list[Position],
             stoppable: bool = False, deadline: float = math.inf) -> tuple[Position | None, float | None, int]:
    """:func:`best_reply` over ``legal``, and how many positions were valued: all of them, unless
    (``stoppable``) a stop request (Ctrl-C) or the ``deadline`` (``time.monotonic()`` seconds)
    ended the valuing early."""
    best, best_v = None, None
    valued = 0
    for p in legal:
        if stoppable and stop.clock() >= deadline:  # a stop request (clock: inf) or the time limit
            break
        valued += 1
        v = goal_value(space, goal, p, mine)
        if v is None:
            continue
        key = -v if goal.maximise else v
        if best_v is None or key < (-best_v if goal.maximise else best_v) - 1e-9:
            best, best_v = p, v
    return best, best_v, valued


def find_threats(world: World, enemy_unit: str, goal: ThreatGoal, grid_in: float = 2.0, *,
                 stoppable: bool = False, time_limit_s: float | None = None) -> ThreatResult:
    """Where can ``enemy_unit`` Infiltrate against the deployment in ``world``, and where is it
    best for the enemy? See the module docstring for the goals. With ``stoppable``, a stop request
    (Ctrl-C, :mod:`planner.solve.stop`) or the time limit (``time_limit_s``, wall-clock seconds
    from the call; None: none) ends the scan and the valuing of the positions: the answer is then
    the one of the positions judged so far (:func:`cut_short`).

    Raises
    ------
    ScenarioError
        If the unit is unknown or cannot Infiltrate.
    """
    t0 = time.monotonic()
    deadline = t0 + time_limit_s if time_limit_s is not None else math.inf
    group = enemy_group(world, enemy_unit)
    table = world.ruleset.table(world)
    exclude = {u.id for u in group.members}
    fixed = fixed_units(table, exclude)
    space = ArrivalSpace(world, group, fixed, grid_in, table=table, stoppable=stoppable, deadline=deadline)
    mine = space.observers
    # every legal position is legal against fixed units already (static); mine are among the fixed
    legal = space.positions
    # a scan cut short (Ctrl-C or the time limit) is valued whole (what it found, at most the work
    # already done; a second Ctrl-C still ends the command at once); a whole scan's valuing is cut by
    # a Ctrl-C that comes during it, or by the time limit
    best, value, valued = _best_of(space, goal, mine, legal, stoppable and not stop.requested()
                                   and space.judged == space.total_positions, deadline)
    base_report = table_report(world, exclude)
    region = None
    one = space.all_positions[0].footprints if space.all_positions else ()
    if len(one) == 1 and one[0].kind == "circle":
        region = distance_region_area(world, mine, one[0].outer_radius)
    placement = None
    report = None
    if best is not None:
        report = check_with(world, space, best)
        placement = EnemyPlacement(unit=enemy_unit, formation=best.formation, anchor=best.anchor, value=value,
                                   models=best.positions, legal=report.legal)
    where = "on the grid" if space.judged == space.total_positions else "among the positions judged"
    msg = (f"best for the enemy ({goal.label}): {value:g}" if best is not None
           else f"no legal arrival for the enemy unit {where}" + (" meeting the goal" if legal else ""))
    ruled = space.rules_limit() if not legal and space.judged == space.total_positions else None
    limit = space.formation_limit() if not legal and space.judged == space.total_positions and ruled is None else None
    if ruled is not None:
        msg += f", proven by the rules alone (on the grid or off it, any formation): {ruled}"
    if limit is not None:
        msg += f", and that is not a proof: {limit}"
    gridded = not legal and space.judged == space.total_positions and ruled is None and limit is None
    if gridded:  # every position of the grid judged, none legal: a proof over the grid only
        msg += grid_only_words(space.grid)
    result = ThreatResult(enemy_unit=enemy_unit, goal=goal.label, grid_in=space.grid, legal_anchors=len(
        {p.anchor for p in legal}), legal_area_sq_in=space.area(legal), distance_region_sq_in=region, best=placement,
        message=msg, wall_time_s=time.monotonic() - t0,
        deployment_legal=base_report.legal if base_report is not None else True,
        deployment_violations=violation_lines(base_report), legality=report,
        legal_cells=sorted({p.anchor for p in legal}), positions_judged=space.judged,
        positions=space.total_positions, limit="formations" if limit is not None else "grid" if gridded else None)
    if stoppable:
        cut_short(result, valued, len(legal), time_limit_s=time_limit_s, deadline=deadline)
    return result


def ascii_map(world: World, grid_in: float, cells: set[tuple[float, float]], mine: list[Footprint],
              mark: tuple[float, float] | None = None, protect: tuple[float, float, float] | None = None) -> str:
    """A text picture of the battlefield, one character per grid cell, top row = far edge:
    ``o`` a legal arrival anchor, ``#`` my models (``mine``: their bases), ``T`` blocking or impassable terrain, ``X`` the
    marked placement, ``+`` the protected disc, ``.`` elsewhere."""
    from shapely.geometry import box

    bf = world.scenario.battlefield
    g = grid_in
    nx, ny = math.floor(bf.width / g) + 1, math.floor(bf.depth / g) + 1
    terrain = [t.shape for t in world.scenario.terrain]
    rows = []
    for j in reversed(range(ny)):
        row = []
        for i in range(nx):
            x, y = i * g, j * g
            ch = "."
            if protect is not None and math.hypot(x - protect[0], y - protect[1]) <= protect[2]:
                ch = "+"
            if any(poly.intersects(box(x - g / 2, y - g / 2, x + g / 2, y + g / 2)) for poly in terrain):
                ch = "T"
            if (x, y) in cells:
                ch = "o"
            if any(abs(f.cx - x) <= g / 2 and abs(f.cy - y) <= g / 2 for f in mine):
                ch = "#"
            if mark is not None and (x, y) == mark:
                ch = "X"
            row.append(ch)
        rows.append("".join(row))
    return "\n".join(rows)
