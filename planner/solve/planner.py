"""plan_deployment: place the units a scenario marks ``place: true`` with OR-Tools CP-SAT.

The CP-SAT model ``cp`` has one Boolean per (unit, candidate placement) -- see
:mod:`planner.solve.candidates` for how candidates are generated and judged exactly -- with

- ``hh2.placement.one[<unit>]``: exactly one candidate per unit;
- ``hh2.bases.no_overlap[<unit>,<unit>]``: candidates of two units whose bases overlap exclude
  each other (overlap decided exactly, as in the checker);
- objective: minimise the weighted sum over models of the centre distance to the goal point
  (``near_point`` goals; inches, scaled to integers by ``COST_SCALE``).

The status is CP-SAT's, stated honestly: ``optimal`` means optimal *over the candidate set*
(formations on a grid), ``feasible`` means stopped by the time limit with the best bound.
Every plan returned is re-checked by the independent checker, and the report includes that
verdict.
"""

from __future__ import annotations

import copy
import time
from dataclasses import dataclass
from typing import Literal

import numpy as np
from ortools.sat.python import cp_model
from pydantic import BaseModel, ConfigDict, Field

from planner.errors import ScenarioError, SolverError
from planner.legality.checker import check_deployment
from planner.legality.report import LegalityReport
from planner.legality.table import Table
from planner.schema import Scenario, SetupMethod
from planner.solve.candidates import Candidate, CandidateBuilder, CandidateTimeout, Group
from planner.units import TOLERANCE_IN
from planner.world import World, resolve

COST_SCALE = 1000
"""Objective units per inch."""


@dataclass(frozen=True)
class SolverSettings:
    """CP-SAT limits: wall time in seconds, worker threads, random seed; candidate generation."""

    time_limit_s: float = 20.0
    workers: int = 2
    seed: int = 0
    grid_in: float = 1.0
    candidates_per_unit: int = 60
    margin_in: float = 0.1
    """Planned units keep this much more than a "more than X\"" distance asks (Infiltrate 9"/12"),
    so that the plan can be set up with a tape measure; the checker itself allows no margin."""


class UnitPlacement(BaseModel):
    """Where the planner put one unit."""

    model_config = ConfigDict(extra="forbid")
    unit: str
    formation: str
    anchor: tuple[float, float]
    distance_to_target: float = Field(description="Sum over models of centre distance to the goal point, inches.")
    nearest_enemy: float | None = Field(default=None, description="Closest enemy unit, inches (Infiltrate).")
    candidates: int


class PlanResult(BaseModel):
    """The planner's answer. ``scenario`` is the complete planned scenario (not in the JSON report)."""

    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)
    status: Literal["optimal", "feasible", "infeasible", "unknown"]
    message: str
    objective: float | None = Field(default=None, description="Weighted distance, inches.")
    best_bound: float | None = None
    gap: float | None = Field(default=None, description="(objective - bound) / objective, if feasible.")
    terms: dict[str, float] = Field(default_factory=dict)
    wall_time_s: float
    solver_time_s: float = 0.0
    placements: list[UnitPlacement] = Field(default_factory=list)
    legal: bool | None = None
    legality: LegalityReport | None = None
    scenario: Scenario | None = None
    scenario_data: dict | None = Field(default=None, description="The planned scenario as data (for writing).")

    @property
    def exit_code(self) -> int:
        if self.status in ("optimal", "feasible"):
            return 0 if self.legal else 1
        return 1 if self.status == "infeasible" else 3


def _groups(world: World) -> list[Group]:
    to_place = [u for u in world.units.values() if u.record.place and u.on_battlefield]
    ids = {u.id for u in to_place}
    groups: dict[str, Group] = {}
    for u in to_place:
        if u.setup.joined:
            continue
        groups[u.id] = Group(u, [u])
    for u in to_place:
        if u.setup.joined:
            if u.setup.joined not in ids:
                raise ScenarioError(f"Independent Character {u.id!r} is to be placed but the unit it joins is not; "
                                    "mark both 'place: true'", file=world.file, location=f"{u.path}.setup.joined",
                                    value=u.setup.joined)
            groups[u.setup.joined].members.append(u)
    for u in to_place:
        for ic in u.joined_by:
            if ic not in ids and world.units[ic].on_battlefield:
                raise ScenarioError(f"Independent Character {ic!r} joins {u.id!r}, which is to be placed; mark "
                                    f"{ic!r} 'place: true' too so they are placed together", file=world.file,
                                    location=f"{world.units[ic].path}.place", value=False)
    for g in groups.values():
        if g.host.method not in (SetupMethod.DEPLOYMENT_ZONE, SetupMethod.INFILTRATE):
            raise ScenarioError("the planner places units set up by deployment_zone or infiltrate; Scout planning "
                                "is not supported yet", file=world.file, location=f"{g.host.path}.setup.method",
                                value=g.host.method.value)
    players = {g.host.player for g in groups.values()}
    if len(players) > 1:
        raise ScenarioError(f"units of several players are marked 'place: true' ({sorted(players)}); plan one "
                            "player's units at a time", file=world.file, location="armies")
    return list(groups.values())


def _target(world: World) -> tuple[tuple[float, float], float, str]:
    goals = world.goal_points()
    if not goals:
        bf = world.scenario.battlefield
        return (bf.width / 2, bf.depth / 2), 1.0, "battlefield centre (no goal given)"
    total = sum(g.weight for g in goals)
    x = sum(g.x * g.weight for g in goals) / total
    y = sum(g.y * g.weight for g in goals) / total
    return (x, y), total, f"near_point ({x:g}, {y:g})"


def _with_positions(world: World, chosen: dict[str, Candidate]) -> dict:
    """The scenario's data (as the user wrote it, where known) with the planned model positions."""
    data = copy.deepcopy(world.raw) if world.raw is not None else \
        world.scenario.model_dump(mode="json", by_alias=True, exclude_none=True)
    where: dict[str, list[tuple[float, float, float]]] = {}
    for c in chosen.values():
        where.update(c.positions)
    for army in data["armies"]:
        for unit in army["units"]:
            if unit["id"] in where:
                for m, (x, y, facing) in zip(unit["models"], where[unit["id"]], strict=True):
                    m["x"], m["y"], m["facing"] = float(x), float(y), float(facing)
    return data


def _overlapping_pairs(ca_list: list[Candidate], cb_list: list[Candidate], ida: str, idb: str,
                       cache: dict[tuple[str, int, str, int], bool]) -> list[tuple[Candidate, Candidate]]:
    """Pairs of candidates of two units whose bases overlap (exact, as the checker decides).

    All pairs at once with numpy: centre distance less outer radii for every model pair. For
    round bases that is the exact distance; pairs with other bases whose bounds come within 0"
    go to :meth:`Candidate.overlaps` (cached across rounds).
    """
    xa = np.array([[[f.cx, f.cy] for f in c.footprints] for c in ca_list])
    xb = np.array([[[f.cx, f.cy] for f in c.footprints] for c in cb_list])
    ra = np.array([[f.outer_radius for f in c.footprints] for c in ca_list])
    rb = np.array([[f.outer_radius for f in c.footprints] for c in cb_list])
    gap = (np.hypot(xa[:, None, :, None, 0] - xb[None, :, None, :, 0], xa[:, None, :, None, 1] - xb[None, :, None, :, 1])
           - ra[:, None, :, None] - rb[None, :, None, :])
    round_a = all(f.kind == "circle" for f in ca_list[0].footprints)
    round_b = all(f.kind == "circle" for f in cb_list[0].footprints)
    if round_a and round_b:
        hits = (gap < -TOLERANCE_IN).any(axis=(2, 3))
        return [(ca_list[i], cb_list[j]) for i, j in zip(*np.nonzero(hits), strict=True)]
    maybe = (gap <= 0).any(axis=(2, 3))
    out = []
    for i, j in zip(*np.nonzero(maybe), strict=True):
        ca, cb = ca_list[i], cb_list[j]
        key = (ida, ca.index, idb, cb.index)
        hit = cache.get(key)
        if hit is None:
            hit = cache[key] = ca.overlaps(cb)
        if hit:
            out.append((ca, cb))
    return out


def _solve(groups: list[Group], cands: dict[str, list[Candidate]], weight: float, settings: SolverSettings,
           deadline: float, conflicts: dict[tuple[str, int, str, int], bool],
           hint: dict[str, Candidate] | None = None):
    """Build and solve the CP-SAT model ``cp`` over the candidates so far (``conflicts`` caches
    the exact overlap test of candidate pairs across rounds)."""
    cp = cp_model.CpModel()
    x: dict[tuple[str, int], cp_model.IntVar] = {}
    for g in groups:
        for c in cands[g.id]:
            x[g.id, c.index] = cp.new_bool_var(f"place[{g.id}@{c.index}]")
        cp.add_exactly_one(x[g.id, c.index] for c in cands[g.id]).with_name(f"hh2.placement.one[{g.id}]")
    for a in range(len(groups)):
        for b in range(a + 1, len(groups)):
            if time.monotonic() > deadline:
                return cp_model.UNKNOWN, None, cp, x  # out of time while building the model
            ga, gb = groups[a], groups[b]
            for ca, cb in _overlapping_pairs(cands[ga.id], cands[gb.id], ga.id, gb.id, conflicts):
                cp.add_bool_or([x[ga.id, ca.index].Not(), x[gb.id, cb.index].Not()]).with_name(
                    f"hh2.bases.no_overlap[{ga.id}@{ca.index},{gb.id}@{cb.index}]")
    # ties (equal cost) are broken by candidate order, so equal plans come out the same every run;
    # tie exceeds any sum of candidate indices, so the cost still comes first
    tie = 1 + len(groups) * max(len(cands[g.id]) for g in groups)
    cp.minimize(sum((round(c.cost * weight * COST_SCALE) * tie + c.index) * x[g.id, c.index]
                    for g in groups for c in cands[g.id]))
    if hint is not None:
        for g in groups:
            for c in cands[g.id]:
                cp.add_hint(x[g.id, c.index], c is hint[g.id])
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = max(0.5, deadline - time.monotonic())
    solver.parameters.num_workers = settings.workers
    solver.parameters.random_seed = settings.seed
    status = solver.solve(cp)
    return status, solver, cp, x


def plan_deployment(world: World, settings: SolverSettings | None = None) -> PlanResult:
    """Place every unit marked ``place: true`` as close as possible to the goal point.

    Parameters
    ----------
    world : World
        A resolved scenario (:func:`planner.world.load_scenario`); fixed units need positions.
    settings : SolverSettings
        Time limit (s), workers, seed, candidate grid (inches) and candidates per unit.

    Returns
    -------
    PlanResult
        Status (optimal / feasible / infeasible / unknown), objective and bound in inches, the
        placements, the planned scenario and the checker's verdict on it.

    Raises
    ------
    ScenarioError
        If nothing is marked to place, or the marked units cannot be planned by this planner.
    SolverError
        If CP-SAT reports MODEL_INVALID (a bug in this module).
    """
    settings = settings or SolverSettings()
    t0 = time.monotonic()
    groups = _groups(world)
    if not groups:
        raise ScenarioError("no unit is marked 'place: true': nothing to plan", file=world.file, location="armies")
    table = Table(world)
    placing = {u.id for g in groups for u in g.members}
    fixed = [table.final(u) for u in table.on_table if u.id not in placing]
    target, weight, target_label = _target(world)
    builder = CandidateBuilder(table, fixed, settings.grid_in, target, settings.margin_in)
    deadline = t0 + settings.time_limit_s
    builder.deadline = deadline - min(2.0, 0.2 * settings.time_limit_s)  # leave the solver some time
    streams = {g.id: builder.stream(g) for g in groups}
    cands: dict[str, list[Candidate]] = {g.id: [] for g in groups}
    exhausted: set[str] = set()
    conflicts: dict[tuple[str, int, str, int], bool] = {}

    def extend(g: Group, n: int, until: float) -> None:
        for _ in range(n):
            if time.monotonic() > until:
                return
            try:
                c = next(streams[g.id], None)
            except CandidateTimeout:
                return
            if c is None:
                exhausted.add(g.id)
                return
            cands[g.id].append(c)

    def greedy(until: float) -> dict[str, Candidate] | None:
        """Biggest units first, each at its cheapest candidate clear of those already placed
        (pulling more candidates from its stream as needed): a quick legal plan, used as the
        CP-SAT hint and as the answer if the exact model cannot be built in time."""
        picked: dict[str, Candidate] = {}
        for g in sorted(groups, key=lambda g: -len(g.models)):
            i = 0
            while g.id not in picked:
                while i >= len(cands[g.id]):
                    if g.id in exhausted or time.monotonic() > until:
                        return None
                    extend(g, 10, until)
                c = cands[g.id][i]
                i += 1
                if not any(c.overlaps(o) for o in picked.values()):
                    picked[g.id] = c
        return picked

    # Rounds: take the next batch of candidates for every unit, solve; when the units crowd each
    # other out (infeasible over the candidates so far), take more and solve again.
    batch = settings.candidates_per_unit
    rounds = 0
    start = None
    while True:
        rounds += 1
        # share the candidate time fairly: units with fewest candidates first, each a slice
        todo = sorted((g for g in groups if g.id not in exhausted), key=lambda g: len(cands[g.id]))
        for k, g in enumerate(todo):
            share = (builder.deadline - time.monotonic()) / (len(todo) - k)
            extend(g, batch, time.monotonic() + max(0.0, share))
        if start is None and all(cands[g.id] for g in groups):
            start = greedy(time.monotonic() + 0.4 * max(0.0, builder.deadline - time.monotonic()))
        empty = [g.id for g in groups if not cands[g.id]]
        if empty:
            where = "in the whole region" if all(e in exhausted for e in empty) else "before the time limit"
            return PlanResult(status="unknown", wall_time_s=time.monotonic() - t0,
                              message=f"no legal placement found {where} on the {settings.grid_in:g}\" candidate "
                                      f"grid (formations of 1-3 ranks) for unit(s) {', '.join(empty)}: every "
                                      "candidate broke a rule (zone, battlefield edge, impassable terrain, overlap "
                                      "with fixed models, or Infiltrate distance / line of sight). This is not a "
                                      "proof that no legal position exists.")
        status, solver, cp, x = _solve(groups, cands, weight, settings, deadline, conflicts, start)
        if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            break
        if start is not None and status != cp_model.MODEL_INVALID:
            return _result(world, groups, cands, start, t0, target_label, weight,
                           status="feasible", solver=None,
                           message="feasible: the greedy placement (biggest units first, each at its cheapest "
                                   "place clear of the others); the CP-SAT model could not improve or bound it "
                                   "within the time limit, so there is no bound")
        if status == cp_model.MODEL_INVALID:
            raise SolverError(f"CP-SAT model invalid: {cp.validate()}")
        out_of_time = time.monotonic() >= deadline
        if status == cp_model.INFEASIBLE and not out_of_time and len(exhausted) < len(groups):
            batch *= 2
            continue
        if solver is None:
            why = "the time ran out while building the CP-SAT model"
        elif status == cp_model.INFEASIBLE:
            why = "the candidate placements found all crowd each other (overlapping bases [hh2.bases.no_overlap])"
        else:
            why = f"CP-SAT status {solver.status_name(status)}"
        return PlanResult(status="unknown", wall_time_s=time.monotonic() - t0,
                          solver_time_s=solver.wall_time if solver is not None else 0.0,
                          message=f"no plan found within {settings.time_limit_s:g} s after {rounds} round(s) of "
                                  f"candidates: {why}. This is not a proof that no legal plan exists; try a "
                                  "longer --time-limit.")
    chosen = {g.id: next(c for c in cands[g.id] if solver.boolean_value(x[g.id, c.index])) for g in groups}
    st: Literal["optimal", "feasible"] = "optimal" if status == cp_model.OPTIMAL else "feasible"
    return _result(world, groups, cands, chosen, t0, target_label, weight, status=st, solver=solver, message="")


def _result(world: World, groups: list[Group], cands: dict[str, list[Candidate]], chosen: dict[str, Candidate],
            t0: float, target_label: str, weight: float, *, status: Literal["optimal", "feasible"],
            solver: cp_model.CpSolver | None, message: str) -> PlanResult:
    """The plan for the chosen candidates, re-checked by the independent checker."""
    planned_data = _with_positions(world, chosen)
    planned = Scenario.model_validate(planned_data)
    report = check_deployment(resolve(planned, world.file, require_positions=True))
    obj = sum(c.cost for c in chosen.values()) * weight
    bound = gap = None
    if solver is not None:
        tie = 1 + len(groups) * max(len(cands[g.id]) for g in groups)
        obj = sum(round(c.cost * weight * COST_SCALE) for c in chosen.values()) / COST_SCALE
        # the tie-break adds less than tie per unit: take it off so the bound stays a true bound
        bound = min(obj, max(0.0, (solver.best_objective_bound - (tie - 1)) / tie) / COST_SCALE)
        if status == "optimal":
            bound = obj
        gap = (obj - bound) / obj if obj > 0 else 0.0
        message = ("optimal over the candidate placements" if status == "optimal"
                   else f"feasible: time limit reached before a proof; best bound {bound:.3f}, gap {gap:.1%}")
    placements = [UnitPlacement(unit=g.id, formation=chosen[g.id].formation, anchor=chosen[g.id].anchor,
                                distance_to_target=chosen[g.id].cost, nearest_enemy=chosen[g.id].nearest_enemy_in,
                                candidates=len(cands[g.id])) for g in groups]
    return PlanResult(status=status, message=message, objective=obj, best_bound=bound, gap=gap,
                      terms={f"distance to {target_label}": obj}, wall_time_s=time.monotonic() - t0,
                      solver_time_s=solver.wall_time if solver is not None else 0.0, placements=placements,
                      legal=report.legal, legality=report, scenario=planned, scenario_data=planned_data)
