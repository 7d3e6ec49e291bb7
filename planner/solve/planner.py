"""plan_deployment: place the units a scenario marks ``place: true`` with OR-Tools CP-SAT.

The CP-SAT model ``cp`` has one Boolean per (unit, candidate placement) -- see
:mod:`planner.solve.candidates` for how candidates are generated and judged exactly -- with

- ``hh2.placement.one[<unit>]``: exactly one candidate per unit;
- ``hh2.bases.no_overlap[<unit>,<unit>]``: candidates of two units whose bases overlap exclude
  each other (overlap decided exactly, as in the checker);
- the rule ids are the scenario ruleset's (:func:`rule_ids`): ``wh40k10.placement.one[...]``,
  ``wh40k10.bases.overlap[...]`` in a 40k scenario, as in the checker's findings;
- objective: minimise the weighted sum of the goal terms (:mod:`planner.solve.goals`), in
  integer units of ``1 / COST_SCALE``.

Before each solve, the candidates that can be in no plan as cheap as the hint are dropped
(:func:`_prune`: a look-ahead bound over the other units' cheapest candidates clear of each one);
this leaves the optimum over the taken candidates unchanged and makes the model far smaller.

Rounds and the bound. Each unit's legal candidates stream in nondecreasing cost; a round solves
over the candidates taken so far. Every candidate not taken yet for unit *u* costs at least
``next(u)``, the stream's bound, and every candidate of another unit *v* costs at least ``m(v)``,
the cost of its first (cheapest) candidate. So a plan that uses an untaken candidate costs at
least ``LB = min_u next(u) + sum_{v != u} m(v)``. When the optimum over the taken candidates is
at most ``LB``, it is optimal over the *whole candidate grid* (every formation at every grid point
of every unit's region); otherwise the units whose ``next(u)`` could still pay take more
candidates and the model is solved again. ``feasible`` reports ``min(CP-SAT bound, LB)`` as the
bound. No plan over the same grid is proven, and explained, with one CP-SAT assumption literal
per (rule, unit) (``sufficient_assumptions_for_infeasibility``, then shrunk): that is not a proof
over the rules (a placement off the grid may be legal), so it is ``unknown`` with ``limit="grid"``
(exit 3); ``infeasible`` (exit 1) only when the rules alone leave no plan, on the grid or off it.

Every plan returned is re-checked by the independent checker, and the report includes that
verdict.
"""

from __future__ import annotations

import copy
import logging
import math
import os
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import shapely
from ortools.sat.python import cp_model
from pydantic import BaseModel, ConfigDict, Field

from planner.errors import ScenarioError, SolverError
from planner.geometry.shapes import Footprint
from planner.legality.checker import check_deployment
from planner.legality.report import LegalityReport
from planner.rules.registry import DEFAULT_RULESET
from planner.schema import Scenario, SetupMethod
from planner.solve import cpsat, stop
from planner.solve.candidates import (
    COST_SCALE,
    REPAIR_MAX_COMBINATIONS,
    REPAIR_MAX_FAULTY,
    REPAIR_MAX_MODELS,
    REPAIR_RADIUS_IN,
    Candidate,
    CandidateBuilder,
    CandidateStream,
    CandidateTimeout,
    Group,
)
from planner.solve.goals import Term, compile_goals
from planner.solve.placement_model import add_placements
from planner.units import TOLERANCE_IN
from planner.world import World, resolve

_DEBUG = bool(os.environ.get("PLANNER_DEBUG"))
"""``PLANNER_DEBUG`` set: CP-SAT logs its search, and each round is logged (logger ``planner.solve.planner``)."""
_log = logging.getLogger(__name__)

ProgressCallback = Callable[[float | None, float | None, float], None]
"""``on_progress(objective, bound, elapsed_s)``: objective and bound in objective units (None
when not known yet), seconds since planning started."""


@dataclass(frozen=True)
class SolverSettings:
    """CP-SAT limits: wall time in seconds, worker threads, random seed; candidate generation."""

    time_limit_s: float = 20.0
    workers: int = 2
    seed: int = 0
    grid_in: float = 1.0
    candidates_per_unit: int = 60
    margin_in: float = 0.1
    """Planned units keep this much more than a "more than X\"" distance asks (Infiltrate 9"/12",
    Scout 9"), so that the plan can be set up with a tape measure; the checker allows no margin."""

    def __post_init__(self) -> None:
        if not 0 <= self.seed <= 2**31 - 1:
            raise ValueError(f"a CP-SAT seed is a whole number from 0 to 2147483647, got {self.seed}")


class UnitPlacement(BaseModel):
    """Where the planner put one unit."""

    model_config = ConfigDict(extra="forbid")
    unit: str
    formation: str
    anchor: tuple[float, float]
    cost: float = Field(description="This unit's share of the objective (weighted goal terms).")
    values: dict[str, float] = Field(default_factory=dict, description="Each goal term's value for this unit.")
    nearest_enemy: float | None = Field(default=None, description="Closest enemy unit, inches (Infiltrate, Scout).")
    candidates: int


class GoalValue(BaseModel):
    """One goal's value in the plan: ``cost = weight * value``."""

    model_config = ConfigDict(extra="forbid")
    name: str
    kind: str
    weight: float
    value: float = Field(description="In the goal's measure: inches, units or models (see 'measure').")
    measure: str
    cost: float


class Conflict(BaseModel):
    """Rules that together leave a unit (or units) no legal place, from an infeasibility proof."""

    model_config = ConfigDict(extra="forbid")
    units: list[str]
    rules: list[str] = Field(description="Rule ids, as in the checker's findings.")
    message: str


class PlanResult(BaseModel):
    """The planner's answer. ``scenario`` is the complete planned scenario (not in the JSON report)."""

    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)
    status: Literal["optimal", "feasible", "infeasible", "unknown"]
    message: str
    objective: float | None = Field(default=None, description="Weighted sum of the goal terms.")
    best_bound: float | None = None
    gap: float | None = Field(default=None, description="(objective - bound) / objective, if feasible.")
    terms: dict[str, float] = Field(default_factory=dict, description="Each goal's cost (weight * value), by name.")
    goals: list[GoalValue] = Field(default_factory=list)
    conflicts: list[Conflict] = Field(default_factory=list, description="Why no plan exists (infeasible); with "
                                      "limit 'formations' or 'grid': what rejected every placement of the "
                                      "planner's candidates (not a proof over the rules).")
    limit: Literal["formations", "grid"] | None = Field(default=None, description="Status unknown because of a "
                                                        "limit of the planner, not of the time (exit 3): "
                                                        "'formations' (no formation of the planner, 1-3 ranks in "
                                                        "two facings, fits a unit's region: a deeper formation, "
                                                        "or models placed by hand, may fit); 'grid' (no plan on "
                                                        "the candidate grid, proven over the grid only, not by "
                                                        "the rules: a placement off the grid, or made by hand, "
                                                        "may be legal); None otherwise.")
    grid_in: float | None = Field(default=None, description="The candidate grid the plan was sought on, inches "
                                  "(SolverSettings.grid_in: `planner plan --grid`); None for an answer found "
                                  "before any grid (the rules alone, the units' capacity).")
    wall_time_s: float
    solver_time_s: float = Field(default=0.0, description="CP-SAT's own time, seconds, over every solve of "
                                 "the run (rounds, local search, relaxation-induced neighbourhoods).")
    rounds: int = 0
    found_by: str | None = Field(default=None, description="The step that found the plan returned (a plan of "
                                 "its cost): 'greedy' (biggest units first), 'recreate' (ruin and recreate), "
                                 "'exact recreate' (ruin and recreate by CP-SAT), 'CP-SAT round N' (the "
                                 "round's solve), 'repair after round N', 'lns after round N' "
                                 "(local search), 'rins after round N' (the units where the round's relaxed "
                                 "optimum and the plan disagree, re-placed when the next round's candidates are "
                                 "taken).")
    placements: list[UnitPlacement] = Field(default_factory=list)
    legal: bool | None = None
    legality: LegalityReport | None = None
    interrupted: bool = Field(default=False, description="The search was stopped by Ctrl-C "
                              "(planner.solve.stop): the plan, if any, is the best found by then.")
    scenario: Scenario | None = None
    scenario_data: dict | None = Field(default=None, description="The planned scenario as data (for writing).")

    @property
    def exit_code(self) -> int:
        """0 legal (and, when :attr:`interrupted`, proven optimal), 1 illegal or infeasible (proven
        by the rules), 3 no answer within the limits (an interrupted feasible plan has no proof: 3
        too; so is status unknown, with :attr:`limit` ``formations`` or ``grid`` too)."""
        if self.status in ("optimal", "feasible"):
            if not self.legal:
                return 1
            return 3 if self.interrupted and self.status == "feasible" else 0
        return 1 if self.status == "infeasible" else 3


def _ran_out(words: str = "the time ran out") -> str:
    """``words`` (how a message says the time limit stopped a step), or ``interrupted (Ctrl-C)``
    when a stop was requested (:mod:`planner.solve.stop`)."""
    return stop.INTERRUPTED if stop.requested() else words


def rule_ids(ruleset: str) -> dict[str, str]:
    """The ruleset's ids for the planner's own constraints and explanations: 'one' (exactly one
    placement per unit), 'overlap' (bases do not overlap), 'battlefield', 'capacity' (transport
    capacity), as in that ruleset's checker findings (``planner rules --ruleset``)."""
    from planner.rules.registry import find_ruleset

    rs = find_ruleset(ruleset)
    return rs.planner_judge().rule_ids(rs)

def _groups(world: World, only: list[str] | None = None) -> list[Group]:
    """The placement groups: each unit marked ``place: true`` (or each of ``only``) with the
    Independent Characters that join it."""
    to_place = [u for u in world.units.values() if u.record.place and u.on_battlefield]
    if only is not None:
        for uid in only:
            u = world.units.get(uid)
            if u is None or not u.record.place or not u.on_battlefield:
                raise ScenarioError("not a unit marked 'place: true' on the battlefield", file=world.file,
                                    location="--unit", value=uid)
        keep = set(only)
        keep |= {ic for uid in only for ic in world.units[uid].joined_by}
        keep |= {world.units[uid].setup.joined for uid in only if world.units[uid].setup.joined}
        to_place = [u for u in to_place if u.id in keep]
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
        if g.host.method not in (SetupMethod.DEPLOYMENT_ZONE, SetupMethod.INFILTRATE, SetupMethod.SCOUT):
            raise ScenarioError("the planner places units set up by deployment_zone, infiltrate or scout",
                                file=world.file, location=f"{g.host.path}.setup.method", value=g.host.method.value)
        for m in g.members[1:]:
            if m.method is not g.host.method:
                raise ScenarioError(f"a joined Independent Character is set up with its unit ({g.host.method.value})",
                                    file=world.file, location=f"{m.path}.setup.method", value=m.method.value)
    players = {g.host.player for g in groups.values()}
    if len(players) > 1:
        raise ScenarioError(f"units of several players are marked 'place: true' ({sorted(players)}); plan one "
                            "player's units at a time (planner plan --player NAME, or --next / --unit)",
                            file=world.file, location="armies")
    return list(groups.values())


def _with_positions(world: World, chosen: dict[str, Candidate]) -> dict:
    """The scenario's data (as the user wrote it, where known) with the planned model positions."""
    data = copy.deepcopy(world.raw) if world.raw is not None else \
        world.scenario.model_dump(mode="json", by_alias=True, exclude_none=True)
    where: dict[str, list[tuple[float, float, float]]] = {}
    for c in chosen.values():
        where.update(c.positions)
    for army in data["armies"]:
        for unit in army["units"]:
            if unit["id"] in where:  # each model a new mapping: never written through a shared one
                unit["models"] = [{**m, "x": float(x), "y": float(y), "facing": float(facing)}
                                  for m, (x, y, facing) in zip(unit["models"], where[unit["id"]], strict=True)]
    return data


class _Arrays:
    """The candidates of one unit as arrays, for :func:`_overlap_index`: anchors (N, 2), reach (N,),
    model centres (N, M, 2), outer radii (N, M), shape ids (N,); ``round``: every base a circle."""

    def __init__(self, cands: Sequence[Candidate]):
        self.cands = list(cands)
        n = len(self.cands)
        self.anchors = np.array([c.anchor for c in self.cands], dtype=float).reshape(n, 2)
        self.reach = np.array([c.reach for c in self.cands], dtype=float)
        arrs = [c._arrays for c in self.cands]
        m = len(arrs[0][1]) if arrs else 0
        self.xy = np.array([a[0] for a in arrs], dtype=float).reshape(n, m, 2)
        self.r = np.array([a[1] for a in arrs], dtype=float).reshape(n, m)
        self.round = all(a[2] for a in arrs)
        self.shape = np.array([c.shape_id for c in self.cands], dtype=np.int64)

    def __len__(self) -> int:
        return len(self.cands)

    def part(self, k0: int, k1: int | None = None) -> _Arrays:
        """Candidates ``k0:k1`` (positions from ``k0``), sharing the arrays."""
        out = _Arrays.__new__(_Arrays)
        sl = slice(k0, k1)
        out.cands, out.anchors, out.reach, out.xy, out.r = (self.cands[sl], self.anchors[sl], self.reach[sl],
                                                           self.xy[sl], self.r[sl])
        out.round, out.shape = self.round, self.shape[sl]
        return out


_SCREEN_DENSE = 2_000_000
"""Anchor pairs measured densely (numpy broadcast) at most; more go through a shapely STRtree."""


def _overlap_index(a: _Arrays, b: _Arrays, ida: str, deadline: float = float("inf")
                   ) -> tuple[np.ndarray, np.ndarray]:
    """Positions ``(ia, ib)`` in ``a`` and ``b`` of the candidate pairs of two units whose bases
    overlap (exact, as the checker decides).

    First the anchor pairs whose reach discs meet (an STRtree ``dwithin`` query when there are
    many), then for those, in chunks, the centre distance less the outer radii of every model
    pair: for round bases that is the exact distance; pairs with other bases whose bounds come
    within 0" go to :meth:`Candidate.overlaps` once per distinct (shape, shape, offset) (cached
    across rounds).

    Raises
    ------
    CandidateTimeout
        If ``deadline`` (time.monotonic) passes.
    """
    empty = np.zeros(0, dtype=np.int64)
    if not len(a) or not len(b):
        return empty, empty
    if len(a) * len(b) <= _SCREEN_DENSE:
        close = np.hypot(a.anchors[:, None, 0] - b.anchors[None, :, 0], a.anchors[:, None, 1] - b.anchors[None, :, 1]) \
            <= a.reach[:, None] + b.reach[None, :] + 1e-9
        ii, jj = np.nonzero(close)
    else:
        tree = shapely.STRtree(np.asarray(shapely.points(b.anchors), dtype=object))
        ii, jj = tree.query(shapely.points(a.anchors), predicate="dwithin",
                            distance=float(a.reach.max() + b.reach.max()) + 1e-6)
        keep = np.hypot(a.anchors[ii, 0] - b.anchors[jj, 0], a.anchors[ii, 1] - b.anchors[jj, 1]) \
            <= a.reach[ii] + b.reach[jj] + 1e-9
        ii, jj = ii[keep], jj[keep]
    if not len(ii):
        return empty, empty
    exact = a.round and b.round
    chunk = max(1, 200_000 // (a.xy.shape[1] * b.xy.shape[1]))
    out_i, out_j = [], []
    for s0 in range(0, len(ii), chunk):
        if stop.clock() > deadline:
            raise CandidateTimeout(ida)
        i, j = ii[s0:s0 + chunk], jj[s0:s0 + chunk]
        pa, pb = a.xy[i], b.xy[j]  # (K, Ma, 2), (K, Mb, 2)
        gap = (np.hypot(pa[:, :, None, 0] - pb[:, None, :, 0], pa[:, :, None, 1] - pb[:, None, :, 1])
               - a.r[i][:, :, None] - b.r[j][:, None, :])
        if exact:
            hits = (gap < -TOLERANCE_IN).any(axis=(1, 2))
            out_i.append(i[hits])
            out_j.append(j[hits])
            continue
        maybe = (gap <= 0).any(axis=(1, 2))
        i, j = i[maybe], j[maybe]
        if not len(i):
            continue
        # overlap depends only on the two shapes and the offset: judge each distinct one once
        keys = np.stack([a.shape[i], b.shape[j], np.round((b.anchors[j, 0] - a.anchors[i, 0]) * 1e6).astype(np.int64),
                         np.round((b.anchors[j, 1] - a.anchors[i, 1]) * 1e6).astype(np.int64)], axis=1)
        uniq, inverse = np.unique(keys, axis=0, return_inverse=True)
        verdict = np.zeros(len(uniq), dtype=bool)
        first = np.full(len(uniq), -1)
        first[inverse.reshape(-1)[::-1]] = np.arange(len(i))[::-1]
        for u, k in enumerate(first):
            if u % 256 == 0 and stop.clock() > deadline:
                raise CandidateTimeout(ida)
            verdict[u] = a.cands[i[k]].overlaps(b.cands[j[k]])
        hits = verdict[inverse.reshape(-1)]
        out_i.append(i[hits])
        out_j.append(j[hits])
    if not out_i:
        return empty, empty
    return np.concatenate(out_i).astype(np.int64), np.concatenate(out_j).astype(np.int64)


def _overlapping_pairs(ca_list: list[Candidate], cb_list: list[Candidate], ida: str, idb: str,
                       cache: dict[tuple[str, int, str, int], bool] | None = None, deadline: float = float("inf")
                       ) -> list[tuple[Candidate, Candidate]]:
    """Pairs of candidates of two units whose bases overlap (exact, as the checker decides): the
    pairs of :func:`_overlap_index`. ``cache`` is unused (verdicts are cached by the run's
    :class:`~planner.solve.candidates.RunCache`).

    Raises
    ------
    CandidateTimeout
        If ``deadline`` (time.monotonic) passes.
    """
    ia, ib = _overlap_index(_Arrays(ca_list), _Arrays(cb_list), ida, deadline)
    return [(ca_list[i], cb_list[j]) for i, j in zip(ia.tolist(), ib.tolist(), strict=True)]


@dataclass(frozen=True)
class _Rest:
    """A unit's candidates not taken yet, as one option of the round's model (index -1): it costs
    the unit's stream bound (every untaken candidate costs at least that) and overlaps nothing, so
    the model with these options is a relaxation of the model over the whole candidate grid."""

    index: int
    icost: int


def _is_rest(c: object) -> bool:
    return isinstance(c, _Rest)


class _Watch(cp_model.CpSolverSolutionCallback):
    """Keeps each improving CP-SAT solution that uses no :class:`_Rest` option (a real plan) in
    ``found['plan']`` and reports it to ``on_progress`` (objective units), with the bound."""

    def __init__(self, groups: list[Group], live: dict[str, list], x: dict, found: dict,
                 on_progress: ProgressCallback | None, tie: int, outside: int | None, t0: float):
        super().__init__()
        self.groups, self.live, self.x, self.found = groups, live, x, found
        self.on_progress, self.tie, self.outside, self.t0 = on_progress, tie, outside, t0
        self.rests = [x[g.id, -1] for g in groups if (g.id, -1) in x]

    def on_solution_callback(self) -> None:
        if any(self.boolean_value(v) for v in self.rests):
            return
        obj = int(round(self.objective_value)) // self.tie
        best = self.found.get("plan")
        if best is None or obj < sum(c.icost for c in best.values()):
            self.found["plan"] = {g.id: next(c for c in self.live[g.id] if not _is_rest(c)
                                             and self.boolean_value(self.x[g.id, c.index])) for g in self.groups}
        if self.on_progress is not None:
            bound = _true_bound(self.best_objective_bound, self.tie, obj, self.outside)
            self.on_progress(obj / COST_SCALE, bound / COST_SCALE, time.monotonic() - self.t0)


def _true_bound(cp_bound: float, tie: int, obj: int, outside: int | None) -> int:
    """A lower bound of the optimum over the whole grid, integer cost units: CP-SAT's bound over
    the round's model (less the tie-break, which adds under ``tie`` per plan), capped by the cost
    ``obj`` of a known plan and by ``outside``, a bound of the plans the model leaves out."""
    b = min(obj, max(0, int(np.ceil((cp_bound - (tie - 1)) / tie))))
    return b if outside is None else min(b, outside)


Overlaps = dict[tuple[int, int], tuple[np.ndarray, np.ndarray]]
"""``(a, b) -> (ia, ib)``: positions in the candidate lists of groups ``a < b`` of the pairs whose
bases overlap (:func:`_overlap_index`)."""


class _Parts:
    """The CP-SAT solves of one round, one per part (units that can interact), seen as one solver:
    ``boolean_value`` of any part's variable, the summed objective and bound, the total time."""

    def __init__(self) -> None:
        self.solvers: dict[int, cp_model.CpSolver] = {}  # id(variable) -> the part's solver
        self.models: list[tuple[cp_model.CpModel, list[Group], dict[tuple[str, int], cp_model.IntVar]]] = []
        self.objective_value = 0.0
        self.best_objective_bound = 0.0
        self.wall_time = 0.0
        self.statuses: list[int] = []
        self.partial_bound: float | None = None
        """When a part's solve ran out of time without a solution: a bound of the round's whole model
        all the same (the parts solved before it at their bounds, it at CP-SAT's bound so far or its
        units' least option costs, the parts not solved yet at their units' least option costs)."""
        self.part_bounds: list[tuple[frozenset[str], int]] = []
        """Each part solved (its units) with the bound proven for it (its optimum, if solved to optimality)."""
        self.stopped: str | None = None
        """The part whose solve ran out of time (FEASIBLE or UNKNOWN), e.g. "part 2 of 2 (15 units, 930 options)"."""

    def boolean_value(self, var: cp_model.IntVar) -> bool:
        return self.solvers[id(var)].boolean_value(var)

    @staticmethod
    def status_name(status: int) -> str:
        return cp_model.CpSolver().status_name(status)

    def validate(self) -> str:
        return "; ".join(v for cp, _, _ in self.models if (v := cp.validate()))


def _parts(groups: list[Group], cands: dict[str, list[Candidate]], live: dict[str, list],
           overlapping: Overlaps) -> list[list[int]]:
    """The groups (indices) that can interact through the live candidates: connected components
    of "some live candidates of the two overlap", smallest first. The objective is a sum over
    units, so the plan of each part can be optimised (and bounded) alone."""
    alive = {g.id: {id(c) for c in live[g.id]} for g in groups}
    mask = {g.id: np.fromiter((id(c) in alive[g.id] for c in cands[g.id]), dtype=bool, count=len(cands[g.id]))
            for g in groups}
    root = list(range(len(groups)))

    def find(i: int) -> int:
        while root[i] != i:
            root[i] = root[root[i]]
            i = root[i]
        return i

    for (a, b), (ia, ib) in overlapping.items():
        if find(a) != find(b) and (mask[groups[a].id][ia] & mask[groups[b].id][ib]).any():
            root[find(a)] = find(b)
    out: dict[int, list[int]] = {}
    for i in range(len(groups)):
        out.setdefault(find(i), []).append(i)
    return sorted(out.values(), key=lambda p: (sum(len(live[groups[i].id]) for i in p), p))


def _solve(groups: list[Group], cands: dict[str, list[Candidate]], settings: SolverSettings,
           deadline: float, overlapping: Overlaps,
           hint: dict[str, Candidate] | None, on_progress: ProgressCallback | None, outside: int | None,
           t0: float, ids: dict[str, str] | None = None, rest: dict[str, int] | None = None,
           found: dict | None = None, floor: int | None = None, hint_rest: frozenset[str] = frozenset(),
           fixed: dict[str, Candidate] | None = None, memo: dict | None = None,
           prior: Sequence[tuple[frozenset[str], int]] = (), guide: dict[str, Candidate | None] | None = None):
    """Build and solve the CP-SAT models of a round over the candidates so far, with overlaps
    ``overlapping`` and, for each unit in ``rest``, the option of a candidate not taken yet at
    that cost (:class:`_Rest`); one model per part of units that can interact (:func:`_parts`),
    smallest first, each given its share of the time left. Returns ``(status, solver, models,
    x, tie, live)``: the status of all parts together (optimal only if every part is), the parts
    as one solver (:class:`_Parts`), the variables of every part, the candidates kept. A real
    plan found on the way (each part's best solution without a :class:`_Rest`) goes to
    ``found['plan']``. ``floor``: a bound the whole optimum is known to reach (an earlier round's:
    each round's model has no solution cheaper than the last round's optimum, since a candidate
    taken since then costs at least the :class:`_Rest` option it replaces), stated to CP-SAT
    (when there is one part) so that it may stop there. ``hint_rest``: units hinted at their
    :class:`_Rest` option rather than at ``hint`` (the last round's optimum, where it used them).
    ``fixed``: units kept at these candidates (the others free over theirs; a neighbourhood of
    :meth:`_Planning.lns`). ``memo``: the parts solved to optimality by the last call, by their
    units and options (an unchanged part is not solved again; replaced by this call's).
    ``prior``: the last round's parts (their units) with the bounds proven for them, where
    :meth:`_Planning.solve_round` found that valid (:func:`_part_floor`): each part of this round
    costs at least the sum of the last round's parts inside it (plus its other units' least costs),
    a floor stated to CP-SAT and counted in the bound, also for a part cut short by the time.
    ``guide``: units hinted at these candidates rather than at ``hint`` (None: not hinted; a
    candidate the pruning dropped is not hinted either), ``hint`` still pruning (:meth:`_Planning.rins`)."""
    ids = ids or rule_ids(DEFAULT_RULESET)
    rest = rest or {}
    found = {} if found is None else found
    tie = _tie(groups, cands)
    opts: dict[str, list] = {g.id: list(cands[g.id]) + ([_Rest(-1, rest[g.id])] if g.id in rest else [])
                             for g in groups}
    alive = None if not fixed else [np.array([g.id not in fixed or c is fixed[g.id] for c in opts[g.id]], dtype=bool)
                                     for g in groups]
    live = opts if alive is None else {g.id: [c for c, k in zip(opts[g.id], alive[i], strict=True) if k]
                                       for i, g in enumerate(groups)}
    if hint is not None and all(any(c is hint[g.id] for c in cands[g.id]) for g in groups):
        live = _prune_idx(groups, opts, overlapping, sum(hint[g.id].icost for g in groups), alive)
    index = {g.id: np.array([c.index for c in cands[g.id]], dtype=np.int64) for g in groups}
    parts = _parts(groups, cands, live, overlapping)
    if _DEBUG:
        _log.debug("parts (units, options): %s", [(len(p), sum(len(live[groups[i].id]) for i in p)) for p in parts
                                                  if len(p) > 1])
    out = _Parts()
    x: dict[tuple[str, int], cp_model.IntVar] = {}
    plans: list[dict | None] = []

    def least_of(pg: list[Group]) -> int:
        return sum(min(c.icost for c in live[g.id]) for g in pg)

    def floor_of(pg: list[Group]) -> int:
        # the whole model's floor (one part), the last round's parts inside this one, the least costs
        out_ = max(least_of(pg), _part_floor(pg, prior, live))
        return max(out_, floor) if floor is not None and len(parts) == 1 else out_

    status = cp_model.OPTIMAL
    for k, part in enumerate(parts):
        mine = set(part)
        pg = [groups[i] for i in part]
        if fixed and all(g.id in fixed for g in pg):  # nothing free here: the part's plan is as fixed
            plans.append({g.id: fixed[g.id] for g in pg})
            continue

        key = (tuple((g.id, tuple(c.icost if _is_rest(c) else id(c) for c in live[g.id])) for g in pg),
               floor if len(parts) == 1 else None)
        if memo is not None and key in memo.get("last", {}):
            # the same units with the same options as in the last round, solved to optimality then
            cp, xp, solver, plan = memo.setdefault("now", {})[key] = memo["last"][key]
            out.models.append((cp, pg, xp))
            out.statuses.append(int(cp_model.OPTIMAL))
            for v in xp.values():
                out.solvers[id(v)] = solver
            x.update(xp)
            out.objective_value += solver.objective_value
            out.best_objective_bound += solver.objective_value
            out.part_bounds.append((frozenset(g.id for g in pg), int(round(solver.objective_value))))
            plans.append(plan)
            continue
        pairs = [(groups[a].id, index[groups[a].id][ia], groups[b].id, index[groups[b].id][ib])
                 for (a, b), (ia, ib) in overlapping.items() if a in mine and b in mine]
        cp = cp_model.CpModel()
        xp = add_placements(cp, pg, live, (), ids, pairs)
        _add_point_cliques(cp, pg, live, xp, ids)
        # the cost alone: a tie-break term (candidate order) in the objective makes the optimality
        # proof much harder (equal-cost plans would no longer be equal); ties are broken afterwards
        # by _tie_break
        objective = sum(c.icost * xp[g.id, c.index] for g in pg for c in live[g.id])
        cp.minimize(objective)
        pf = floor_of(pg)
        if pf > least_of(pg):
            cp.add(objective >= pf)
        if hint is not None:
            for g in pg:
                if guide is not None and g.id in guide:
                    want = guide[g.id]
                    if want is not None and any(c is want for c in live[g.id]):
                        for c in live[g.id]:
                            cp.add_hint(xp[g.id, c.index], c is want)
                    continue
                at_rest = g.id in hint_rest and (g.id, -1) in xp
                for c in live[g.id]:
                    cp.add_hint(xp[g.id, c.index], _is_rest(c) if at_rest else c is hint[g.id])
        solver = cp_model.CpSolver()
        share = (deadline - time.monotonic()) / (len(parts) - k)
        solver.parameters.max_time_in_seconds = max(0.5 if k == len(parts) - 1 else 0.05, share)
        solver.parameters.num_workers = settings.workers
        _full_subsolvers(solver, settings.workers)
        solver.parameters.random_seed = settings.seed
        solver.parameters.log_search_progress = _DEBUG and len(pg) > 1
        mine_found: dict = {}
        st = cpsat.solve(solver, cp, _Watch(pg, live, xp, mine_found, None, tie, None, t0))
        out.models.append((cp, pg, xp))
        out.statuses.append(int(st))
        out.wall_time += solver.wall_time
        if found is not None:  # the run's total CP-SAT time (PlanResult.solver_time_s)
            found["cp_s"] = found.get("cp_s", 0.0) + solver.wall_time
        for v in xp.values():
            out.solvers[id(v)] = solver
        x.update(xp)
        if st in (cp_model.FEASIBLE, cp_model.UNKNOWN):
            out.stopped = (f"part {k + 1} of {len(parts)} ({len(pg)} unit{'s' if len(pg) > 1 else ''}, "
                           f"{sum(len(live[g.id]) for g in pg)} options)")
        if st not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            if st == cp_model.UNKNOWN and not fixed:
                # out of time in this part: each part's optimum is at least its bound, so the round's
                # model's optimum is at least their sum (the parts not solved yet at their floors)
                here = max(solver.best_objective_bound, pf)
                later = sum(floor_of([groups[i] for i in p]) for p in parts[k + 1:])
                out.partial_bound = out.best_objective_bound + here + later
            return st, out, out, x, tie, live
        if st == cp_model.FEASIBLE:
            status = cp_model.FEASIBLE
        out.objective_value += solver.objective_value
        # each unit takes one of its options: their least costs bound the part too (CP-SAT's own
        # bound may still be far below when the time ran out early)
        bound_here = max(solver.best_objective_bound, pf)
        out.best_objective_bound += bound_here
        out.part_bounds.append((frozenset(g.id for g in pg),
                                int(round(solver.objective_value)) if st == cp_model.OPTIMAL
                                else int(math.ceil(bound_here - 1e-6))))
        plans.append(mine_found.get("plan"))
        if memo is not None and st == cp_model.OPTIMAL:
            memo.setdefault("now", {})[key] = (cp, xp, solver, mine_found.get("plan"))
    if memo is not None:
        memo["last"] = memo.pop("now", {})
    if all(p is not None for p in plans):
        found["plan"] = {gid: c for p in plans if p is not None for gid, c in p.items()}
    if on_progress is not None and found.get("plan"):
        obj = sum(c.icost for c in found["plan"].values())
        on_progress(obj / COST_SCALE, _true_bound(out.best_objective_bound, tie, obj, outside) / COST_SCALE,
                    time.monotonic() - t0)
    return status, out, out, x, tie, live


def _part_floor(pg: list[Group], prior: Sequence[tuple[frozenset[str], int]], live: dict[str, list]) -> int:
    """A floor of the optimum of one part (units ``pg``) of a round's model: the bounds of the last
    round's parts (``prior``, filtered by :meth:`_Planning.solve_round`) that lie inside it, plus the
    least option cost of each of its units in none of them.

    Why (issue 18, ``planscale4``). Let X be an optimal solution of this round's relaxation R (every
    unit with candidates left offered "one not taken yet", so cost(X) <= the grid optimum <= the
    incumbent). X maps unit by unit onto the last round's relaxation R': a candidate taken then stays,
    one taken since then, or this round's "not taken yet", becomes R''s "not taken yet" option, which
    costs at most as much (its stream's bound then; :meth:`_Planning.prior_parts` checks that every
    unit was offered then, at no more than now, or has taken nothing since and is not offered now). The image Z is a solution of R' with cost(Z) <= cost(X) <= the incumbent
    then, so the pruning of R' (which keeps every solution no dearer than the incumbent) kept it, and
    Z restricted to each of R''s parts Q costs at least Q's proven bound. X restricted to this part
    is optimal for the part (the parts do not interact), so the part's optimum is at least the sum
    over the Q inside it, plus its other units' least costs."""
    ids = {g.id for g in pg}
    inside = [(units, c) for units, c in prior if units <= ids]
    covered: set[str] = set().union(*[units for units, _ in inside]) if inside else set()
    return sum(c for _, c in inside) + sum(min(c.icost for c in live[g.id]) for g in pg if g.id not in covered)


FULL_SUBSOLVERS = ("max_lp", "default_lp")
"""CP-SAT's full-problem workers when there are at least two: ``max_lp`` (the full linear
relaxation, with the clique cuts) proves these packing models far faster than the default pair
(the 15-unit part of the 20-unit instance: 1.7 s against no proof in 8 s; measured on models
exported from ``bench_plan_scaling.py``)."""


def _full_subsolvers(solver: cp_model.CpSolver, workers: int) -> None:
    """Use :data:`FULL_SUBSOLVERS` as ``solver``'s full-problem workers (two or more workers)."""
    if workers >= 2:
        solver.parameters.subsolvers.extend(FULL_SUBSOLVERS)


SEARCH_S = 3.0
"""The local search after a round whose optimum used untaken candidates gets at most this long, s
(and at most :data:`LNS_S`); its budget halves after each round in which the repair and the search
found no better plan, down to :data:`SEARCH_MIN_S`."""

LNS_S = 1.5
"""At most this long, s, for the local search over the best real plan (:meth:`_Planning.lns`)."""

SEARCH_MIN_S = 0.5
"""The local search of a round gets at least this long, s."""

LAGRANGE_S = 12.0
"""At most this long, s, for the Lagrangian bound over every candidate before round 1's CP-SAT
solve (:meth:`_Planning.lagrange`), and at most :data:`LAGRANGE_SHARE` of the time left."""

LAGRANGE_SHARE = 0.5
"""The Lagrangian bound's share of the time left before round 1's CP-SAT solve, at most."""

RECREATE_S = 8.0
"""At most this long, s, for the ruin-and-recreate search over the first plan where units crowd
(:meth:`_Planning.recreate`), and at most :data:`RECREATE_SHARE` of the time left."""

RECREATE_SHARE = 0.3
"""The ruin-and-recreate search's share of the time left before round 1's CP-SAT solve, at most."""

RECREATE_UNITS = 3
"""Units taken out and placed again together in one step of :meth:`_Planning.recreate` (measured on
chogorian-brotherhood, 20 s from the greedy plan 1599.511: 3 units 1570.954, 4 units 1577.903 in 30 s,
6 units 1584.724)."""

RECREATE_EXACT_SHARE = 0.5
"""The exact ruin-and-recreate search's share of the ruin-and-recreate budget (:data:`RECREATE_S`): where
units crowd, :meth:`_Planning.recreate` runs first with the rest, then :meth:`_Planning.recreate_exact` with
what is left of the budget (measured in ``benchmarks/README.md``, tenth pass: 3 runs a roster)."""

RECREATE_EXACT_MOST = 2 / 3
"""The exact ruin-and-recreate search runs only where its step frees at most this share of the units
(:data:`RECREATE_EXACT_UNITS` of them): freeing most of the army is the rounds' own whole model, which
they search with a bound (berserker-assault, 5 of 6 units freed: the same plan, and its proof lost in
2 of 2 runs of 30 s; :meth:`recreate` then keeps the whole budget)."""

RECREATE_EXACT_UNITS = 5
"""Units taken out and re-placed together by CP-SAT in one step of :meth:`_Planning.recreate_exact`."""

RECREATE_EXACT_PULL = 16
"""Candidates pulled from each freed unit's stream, clear of the units that stay, in one step of
:meth:`_Planning.recreate_exact`."""

LNS_UNITS = 5
"""Units freed together in one neighbourhood of :meth:`_Planning.lns` (the others stay)."""

LNS_STEP_S = 0.5
"""At most this long, s, for one neighbourhood's CP-SAT solve."""

RINS_S = 8.0
"""At most this long, s, for one relaxation-induced neighbourhood (:meth:`_Planning.rins`), and at
most :data:`RINS_SHARE` of the time left."""

RINS_SHARE = 0.4
"""The relaxation-induced neighbourhood's share of the time left, at most."""

RINS_MIN_S = 0.5
"""A relaxation-induced neighbourhood is not tried with less time than this, s."""

RINS_PLAN_HINT = 0.5
"""A relaxation-induced neighbourhood is hinted with the best plan, not the relaxed optimum, where at
least this share of the units it frees are rested (:func:`_rins_guide`)."""

CLIQUE_STEP_IN = 0.5
"""Spacing of the lattice of points whose covering candidates form the clique cuts, inches."""


def _deep_points(fps: list[Footprint], h: float) -> tuple[np.ndarray, np.ndarray]:
    """The points of the ``h`` lattice that lie at least ``TOLERANCE_IN`` inside each of ``fps``
    (one model's base in N candidates, all of one kind): ``(n, key)``, the candidate position
    and the point's key (``i << 32 + j``) of every such point. Circles, ellipses (inside the
    ellipse scaled by ``1 - TOLERANCE_IN / b``, which keeps that far from its edge) and convex
    polygons; segments have none."""
    kind = fps[0].kind
    if kind == "segment" or any(f.kind != kind for f in fps):
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    c = np.array([[f.cx, f.cy] for f in fps], dtype=float)
    reach = max(f.outer_radius for f in fps)
    k = int(math.ceil(reach / h)) + 1
    d = np.arange(-k, k + 1)
    di, dj = (a.ravel() for a in np.meshgrid(d, d, indexing="ij"))
    pi = np.round(c[:, 0] / h).astype(np.int64)[:, None] + di  # (N, K)
    pj = np.round(c[:, 1] / h).astype(np.int64)[:, None] + dj
    px, py = pi * h - c[:, 0, None], pj * h - c[:, 1, None]  # relative to the centre
    dt = TOLERANCE_IN
    if kind == "circle":
        r = np.array([f.a for f in fps])[:, None]
        inside = np.hypot(px, py) < r - dt
    elif kind == "ellipse":
        a = np.array([f.a for f in fps])[:, None]
        b = np.array([f.b for f in fps])[:, None]
        t = np.array([f.angle for f in fps])[:, None]
        s = 1.0 - dt / np.minimum(a, b)
        u = (px * np.cos(t) + py * np.sin(t)) / (s * a)
        v = (-px * np.sin(t) + py * np.cos(t)) / (s * b)
        inside = (s > 0) & (u * u + v * v < 1.0)
    else:
        verts = np.array([f.verts for f in fps], dtype=float) - c[:, None, :]  # (N, V, 2), counter-clockwise
        e = np.roll(verts, -1, axis=1) - verts
        n = np.stack([-e[:, :, 1], e[:, :, 0]], axis=2) / np.hypot(e[:, :, 0], e[:, :, 1])[:, :, None]
        depth = ((px[:, :, None] - verts[:, None, :, 0]) * n[:, None, :, 0]
                 + (py[:, :, None] - verts[:, None, :, 1]) * n[:, None, :, 1])  # (N, K, V)
        inside = (depth > dt).all(axis=2)
    rows, _ = np.nonzero(inside)
    return rows, pi[inside] * (1 << 32) + pj[inside]


def _add_point_cliques(cp: cp_model.CpModel, groups: list[Group], live: dict[str, list],
                       x: dict[tuple[str, int], cp_model.IntVar], ids: dict[str, str]) -> int:
    """Clique cuts: for each point of a ``CLIQUE_STEP_IN`` lattice, at most one of the candidates
    (of every unit) with a base holding it at least ``TOLERANCE_IN`` deep; returns how many.

    Two such bases both hold the disc of radius ``TOLERANCE_IN`` about the point, so in every
    direction they overlap by at least twice that (the signed distance is the largest gap over
    all directions): they overlap by more than the tolerance, and the pairwise constraints already
    forbid them together. The cuts add no restriction; they only make the linear relaxation much
    tighter (a unit crowding a place is then counted once per place, not once per pair).
    """
    h = CLIQUE_STEP_IN
    keys, units, pos = [], [], []
    for ui, g in enumerate(groups):
        cs = [c for c in live[g.id] if not _is_rest(c)]
        if not cs:
            continue
        for m in range(len(cs[0].footprints)):
            rows, key = _deep_points([c.footprints[m] for c in cs], h)
            keys.append(key)
            units.append(np.full(len(rows), ui))
            pos.append(rows)
    if len(keys) < 2:
        return 0
    key, unit, at = np.concatenate(keys), np.concatenate(units), np.concatenate(pos)
    order = np.lexsort((at, unit, key))
    key, unit, at = key[order], unit[order], at[order]
    starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
    ends = np.r_[starts[1:], len(key)]
    multi = unit[starts] != unit[ends - 1]  # sorted by unit within a point: more than one unit
    real = {g.id: [c for c in live[g.id] if not _is_rest(c)] for g in groups}
    n = 0
    for s0, e0 in zip(starts[multi].tolist(), ends[multi].tolist(), strict=True):
        lits = {(groups[u].id, real[groups[u].id][a].index) for u, a in zip(unit[s0:e0].tolist(), at[s0:e0].tolist(),
                                                                            strict=True)}
        cp.add_at_most_one([x[k] for k in sorted(lits)])
        n += 1
    return n


def _prune(groups: list[Group], cands: dict[str, list[Candidate]],
           overlapping: dict[tuple[int, int], list[tuple[Candidate, Candidate]]], ub: int
           ) -> dict[str, list[Candidate]]:
    """The candidates that can be in a plan (over ``cands``) costing at most ``ub``, integer cost
    units (the cost of a known plan over ``cands``, e.g. the hint).

    A plan that places unit *u* at candidate *c* places every other unit *v* at a candidate of *v*
    whose bases do not overlap those of *c*, so it costs at least
    ``LB(c) = cost(c) + sum_{v != u} min{cost(d) : d of v, clear of c}``. Candidates with
    ``LB(c) > ub`` are in no plan costing at most ``ub`` and are dropped; the minima are then taken
    again over the candidates left, until nothing changes. Every plan costing at most ``ub`` keeps
    all its candidates (by induction: its other candidates are never dropped before its own), so
    the optimum over the candidates left is the optimum over ``cands`` (the known plan is among
    them). This look-ahead bound is much stronger than CP-SAT's linear relaxation here: units
    crowding the same places make the relaxation split each unit over several places.
    """
    pos = [{c.index: k for k, c in enumerate(cands[g.id])} for g in groups]
    idx: Overlaps = {}
    for (a, b), ps in overlapping.items():
        if ps:
            idx[a, b] = (np.fromiter((pos[a][ca.index] for ca, _ in ps), dtype=np.int64, count=len(ps)),
                         np.fromiter((pos[b][cb.index] for _, cb in ps), dtype=np.int64, count=len(ps)))
    return _prune_idx(groups, cands, idx, ub)


_PRUNE_HEAD = 32
"""Cheapest candidates of the other unit tried first for each candidate in :func:`_prune_idx`."""


def _prune_idx(groups: list[Group], cands: dict[str, list], overlapping: Overlaps, ub: int,
               alive: list[np.ndarray] | None = None) -> dict[str, list]:
    """:func:`_prune` with the overlaps as positions (``(a, b) -> (ia, ib)``) in the lists of
    ``cands`` (whose entries need only ``icost``). The minimum over the other unit's candidates
    clear of each candidate is first sought among its ``_PRUNE_HEAD`` cheapest, and over all of
    them only where those all overlap it (the same minimum). ``alive``: each unit's candidates
    that may be chosen at all (a mask per unit, in the order of ``cands``; all if None)."""
    n = len(groups)
    big = np.int64(1) << 60
    cost = [np.array([c.icost for c in cands[g.id]], dtype=np.int64) for g in groups]
    clash: dict[tuple[int, int], np.ndarray] = {}
    for (a, b), (ia, ib) in overlapping.items():
        if not len(ia):
            continue
        m = np.zeros((len(cost[a]), len(cost[b])), dtype=bool)
        m[ia, ib] = True
        clash[a, b], clash[b, a] = m, m.T
    alive = [np.ones(len(c), dtype=bool) for c in cost] if alive is None else [a.copy() for a in alive]
    start = [a.copy() for a in alive]
    changed = True
    while changed:
        changed = False
        for u in range(n):
            lb = cost[u].copy()
            for v in range(n):
                if v == u:
                    continue
                cv = np.where(alive[v], cost[v], big)
                m = clash.get((u, v))
                if m is None:
                    lb += cv.min()
                else:
                    order = np.argsort(cv, kind="stable")[:_PRUNE_HEAD]
                    free = ~m[:, order] & (cv[order] < big)[None, :]
                    has = free.any(axis=1)
                    best = np.where(has, cv[order][free.argmax(axis=1)], big)
                    rows = np.nonzero(~has)[0]
                    if len(rows):
                        best[rows] = np.where(m[rows], big, cv[None, :]).min(axis=1)
                    lb += best
                np.minimum(lb, big, out=lb)  # no overflow: at most big + big per step
            keep = alive[u] & (lb <= ub)
            if not keep.any():  # cannot happen with a plan of cost ub over cands; stay safe
                return {g.id: [c for c, k in zip(cands[g.id], start[i], strict=True) if k] for i, g in enumerate(groups)}
            if (keep != alive[u]).any():
                alive[u] = keep
                changed = True
    return {g.id: [c for c, k in zip(cands[g.id], alive[i], strict=True) if k] for i, g in enumerate(groups)}


def _tie(groups: list[Group], cands: dict[str, list[Candidate]]) -> int:
    return 1  # objective units per cost unit (no tie-break term in the objective)


def _tie_break(cp: cp_model.CpModel, x, groups: list[Group], cands: dict[str, list[Candidate]],
               chosen: dict[str, Candidate], settings: SolverSettings, until: float) -> dict[str, Candidate]:
    """Among the plans of the same (optimal) cost, the one earliest in candidate order, so that
    equal plans come out the same every run; within at most 2 s (else ``chosen`` as is)."""
    budget = min(2.0, until - time.monotonic())
    if budget <= 0.05:
        return chosen
    obj = sum(c.icost for c in chosen.values())
    cp.add(sum(c.icost * x[g.id, c.index] for g in groups for c in cands[g.id]) <= obj)
    cp.minimize(sum(c.index * x[g.id, c.index] for g in groups for c in cands[g.id]))
    cp.clear_hints()
    for g in groups:
        for c in cands[g.id]:
            cp.add_hint(x[g.id, c.index], c is chosen[g.id])
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = budget
    solver.parameters.num_workers = 1
    solver.parameters.random_seed = settings.seed
    if cpsat.solve(solver, cp) == cp_model.OPTIMAL:
        return {g.id: next(c for c in cands[g.id] if solver.boolean_value(x[g.id, c.index])) for g in groups}
    return chosen


def _outside_bound(groups: list[Group], cands: dict[str, list[Candidate]],
                   streams: dict[str, CandidateStream]) -> tuple[int | None, dict[str, int]]:
    """``LB``: the least cost of a plan that uses some candidate not taken yet (None if every
    stream is exhausted), and for each unit with candidates left the cost below which its next
    candidates could still improve a plan: ``objective - sum_{v != u} m(v)`` is compared with
    its ``next(u)`` by the caller (returned here as ``rest[u] = sum_{v != u} m(v)``)."""
    # the cheapest legal candidate of each unit: taken, or still in its stream (the greedy may
    # take candidates out of cost order)
    m = {g.id: min([c.icost for c in cands[g.id]]
                   + ([nxt] if (nxt := streams[g.id].bound()) is not None else [])) for g in groups}
    total = sum(m.values())
    rest = {g.id: total - m[g.id] for g in groups}
    lbs = [nxt + rest[g.id] for g in groups if (nxt := streams[g.id].bound()) is not None]
    return (min(lbs) if lbs else None), rest


def _packing_icost(builder: CandidateBuilder, groups: list[Group], terms: list[Term]) -> int | None:
    """The packing bound by area (:func:`planner.solve.packing.plan_packing_bound`) in integer
    cost units, or None where it does not apply. Each candidate's integer cost is its cost rounded
    to the nearest unit, so a plan's integer cost is at least ``COST_SCALE * cost - len(groups) / 2``."""
    from planner.solve.packing import plan_packing_bound

    b = plan_packing_bound(builder, groups, terms)
    if b is None:
        return None
    return max(0, math.floor(b * COST_SCALE - 0.5 * len(groups)))


EXTRA_GROWTH = 2
"""A unit whose "not taken yet" option a round's optimum used takes at most this many times the
candidates it has (all those below :func:`_below`, if fewer)."""


def _rins_guide(picked: dict, free: frozenset[str]) -> dict[str, Candidate | None] | None:
    """The hint of a relaxation-induced neighbourhood (:meth:`_Planning.rins`) freeing units ``free``,
    from a round's relaxed optimum ``picked`` (unit id -> candidate or :class:`_Rest`): the relaxed
    optimum's candidates (a rested unit not hinted), as ``_solve``'s ``guide``; or None (hinted with
    the best plan) where at least :data:`RINS_PLAN_HINT` of the freed units are rested, since the
    relaxed optimum then places too few of them to guide the search.

    Measured (``plan9``, 30 s runs at load 3.6-5.6, ``PLANNER_DEBUG=1``): the 20-unit instance's
    neighbourhood after round 2 frees 10 units, 2 rested, and the relaxed optimum's hint finds 340.713
    (``plan8``); ravenguard's and ironhands' after round 1 free 8-9 units, 7 rested: with the plan's hint
    ravenguard reached 477.7-480.9 in 5 of 5 runs (with the relaxed optimum's, 1 of 3 in ``plan8``),
    ironhands' neighbourhood was proven in 5.1 s against 8.7 s (one run each)."""
    rested = sum(1 for gid in free if _is_rest(picked[gid]))
    if rested >= RINS_PLAN_HINT * len(free):
        return None
    return {gid: None if _is_rest(picked[gid]) else picked[gid] for gid in free}


def _below(inc: int | None, relaxed: int, rest: int, offered: int | None) -> int | None:
    """The cost (integer units) below which a unit's untaken candidates can still be in a plan
    cheaper than the incumbent ``inc``, after a round whose model (a relaxation of the whole grid,
    solved to its optimum ``relaxed``) offered the unit "a candidate not taken yet" at ``offered``
    (its stream's bound then), ``rest`` being the sum of the other units' least costs.

    A plan *P* using an untaken candidate *c* of the unit, and cheaper than ``inc``, maps to a
    solution of the round's model: the unit at its option (cost ``offered`` <= cost(c), overlapping
    nothing), every other unit's untaken candidate at its own option (offered, else *P* costs at
    least ``inc``). So ``relaxed <= cost(P) - cost(c) + offered``, and cost(P) < ``inc`` needs
    ``cost(c) < offered + inc - relaxed``: the window of the gap above the option. The older
    bound ``inc - rest`` (the other units alone at their best) holds too; the least of the two.
    None: no incumbent, no limit.
    """
    if inc is None:
        return None
    out = inc - rest
    if offered is not None:
        out = min(out, offered + max(0, inc - relaxed))
    return out


def plan_deployment(world: World, settings: SolverSettings | None = None, *, units: list[str] | None = None,
                    on_progress: ProgressCallback | None = None, waived: frozenset[str] = frozenset(),
                    standing: frozenset[str] = frozenset(), faulty: frozenset[str] = frozenset()) -> PlanResult:
    """Place the units marked ``place: true`` (or only ``units`` and the ICs joining them),
    minimising the weighted goals of the scenario.

    Parameters
    ----------
    world : World
        A resolved scenario (:func:`planner.world.load_scenario`); fixed units need positions.
        Units marked to place but not in ``units`` and without positions count as not deployed.
    settings : SolverSettings
        Time limit (s), workers, seed, candidate grid (inches), first batch of candidates per unit.
    units : list of str, optional
        Place only these units (e.g. the next Infiltrator in the alternation).
    on_progress : callable, optional
        ``on_progress(objective, bound, elapsed_s)``, called for each improving CP-SAT solution
        and between rounds (objective units; None when not known).
    waived : frozenset of str
        Placed units (joined Independent Characters) whose position-independent failures
        (eligibility, joining) do not reject their group's placements; the checker still reports
        them (``check --suggest``).
    standing : frozenset of str
        Placed units (of a group with a ``stay_close`` goal) whose models stay where they stand:
        their group gets only the shapes that leave them there (``check --suggest`` moving a joined
        Independent Character alone, its host standing).
    faulty : frozenset of str
        Models (``unit/model``) the checker names as failing a rule: with a ``stay_close`` goal
        their group also gets the shapes that move two or more of them at once, each to a grid
        point near it, the rest standing (:func:`planner.solve.candidates.faulty_moved`;
        ``check --suggest``).

    Returns
    -------
    PlanResult
        Status (optimal / feasible / infeasible / unknown) with what it is proven over, the
        objective and its named terms, the bound, the placements, the planned scenario and the
        checker's verdict on it; for ``infeasible`` (proven by the rules alone, on the grid or off
        it) the conflicting rules by unit; ``unknown`` with ``limit="formations"`` (and the
        conflicts) when no formation of the planner fits a unit's region and no proof without such
        units exists, or with ``limit="grid"`` (and the conflicts) when there is no plan on the
        candidate grid (proven over the grid, not over the rules).

    Raises
    ------
    ScenarioError
        If nothing is marked to place, the marked units cannot be planned by this planner, or a
        goal does not fit the scenario.
    SolverError
        If CP-SAT reports MODEL_INVALID (a bug in this module).

    A stop requested while planning (:mod:`planner.solve.stop`: Ctrl-C in ``planner plan``) ends
    each step as its time limit would: the answer is the best plan found by then, with the bound
    proven by then, marked ``interrupted`` (its message says which step was cut).
    """
    settings = settings or SolverSettings()
    t0 = time.monotonic()
    groups = _groups(world, units)
    if not groups:
        raise ScenarioError("no unit is marked 'place: true': nothing to plan", file=world.file, location="armies")
    run = _Planning(world, settings, groups, on_progress, t0, waived, standing, faulty)
    capacity = _capacity_conflicts(world, run.placing)
    if capacity:
        return PlanResult(status="infeasible", wall_time_s=time.monotonic() - t0, conflicts=capacity,
                          message="proven infeasible: " + "; ".join(c.message for c in capacity))
    result = run.plan()
    result.grid_in = settings.grid_in
    if stop.requested():  # Ctrl-C (planner.solve.stop): the answer is what the steps had by then
        result.interrupted = True
        if result.status == "feasible" and stop.INTERRUPTED not in result.message:  # the limit came first
            result.message += f"; {stop.INTERRUPTED} after that"
        if result.status == "optimal":
            result.message += (f"; {stop.INTERRUPTED} after the proof (among plans of the same cost, the one "
                               "kept may not be the first in candidate order)")
    return result


@dataclass
class _Round:
    """One CP-SAT solve over the candidates taken so far, with the bounds it is judged by."""

    status: Any  # a CP-SAT status
    solver: cp_model.CpSolver | _Parts | None
    cp: _Parts | None
    x: dict[tuple[str, int], cp_model.IntVar]
    tie: int
    live: dict[str, list[Candidate]]
    outside: int | None
    rest: dict[str, int]
    out_of_time: bool
    offer: dict[str, int] | None = None  # each offered unit's "not taken yet" option cost, next(u)


class _Planning:
    """The steps of :func:`plan_deployment` and the state they share: the candidate streams, the
    candidates taken, the hint (``start``), the batch size and the rounds."""

    def __init__(self, world: World, settings: SolverSettings, groups: list[Group],
                 on_progress: ProgressCallback | None, t0: float, waived: frozenset[str] = frozenset(),
                 standing: frozenset[str] = frozenset(), faulty: frozenset[str] = frozenset()):
        """Compile the goals and open one candidate stream per group (none judged yet)."""
        self.world, self.settings, self.groups, self.on_progress, self.t0 = world, settings, groups, on_progress, t0
        table = world.ruleset.table(world)
        self.placing = {u.id for g in groups for u in g.members}
        fixed = [table.final(u) for u in table.on_table if u.id not in self.placing]
        self.terms = compile_goals(world, table, groups[0].host.player, self.placing)
        self.builder = builder = CandidateBuilder(table, fixed, settings.grid_in, self.terms, settings.margin_in)
        builder.waived = waived
        builder.standing = standing
        builder.faulty = faulty
        self.deadline = t0 + settings.time_limit_s
        builder.deadline = self.deadline - min(2.0, 0.2 * settings.time_limit_s)  # leave the solver some time
        self.streams = {g.id: builder.stream(g) for g in groups}
        self.cands: dict[str, list[Candidate]] = {g.id: [] for g in groups}
        self.arrays: dict[str, _Arrays] = {}  # each unit's candidates taken, as arrays
        self.overlapping: Overlaps = {}  # overlapping pairs of the candidates taken (positions)
        self.measured: dict[tuple[int, int], tuple[int, int]] = {}  # (a, b) -> candidates of each measured
        kept = ("the unit as its models stand, moved by whole grid steps, or with one model moved to a grid point "
                f"within {REPAIR_RADIUS_IN:g}\" of it (units of up to {REPAIR_MAX_MODELS} models)"
                + (f", or with 2-{REPAIR_MAX_FAULTY} of the models the checker names as failing a rule moved at once, "
                   f"each up to {REPAIR_RADIUS_IN:g}\" to a grid point where the planner's judge passes it alone (the "
                   f"{REPAIR_MAX_COMBINATIONS} least moves)" if faulty else "")
                + ", or with one part moved alone by whole grid steps (a joined character, its host, the models cut "
                  "off as they stand)")
        if standing:
            self.grid = (f"the {settings.grid_in:g}\" candidate grid, {', '.join(sorted(standing))} standing where "
                         f"it stands: only {kept} that leave it there)")
        else:
            self.grid = (f"the {settings.grid_in:g}\" candidate grid (every formation of 1-3 ranks, two facings, at "
                         f"every grid point of each unit's region" + (f"; and {kept})" if builder.keep_shape else ")"))
        self.batch = settings.candidates_per_unit
        self.rounds = 0
        self.start: dict[str, Candidate] | None = None
        self.proven: int | None = None  # the best lower bound over the grid proven by a round so far
        self.todo_extra: dict[str, int | None] | None = None  # per unit: take candidates below this cost
        self.rested: frozenset[str] = frozenset()  # units whose untaken candidates the last optimum used
        self.floor: int | None = None  # the last round's optimum: no later round's model has a cheaper solution
        self.memo: dict = {}  # the last round's parts solved to optimality (_solve)
        self.last_parts: tuple[list[tuple[frozenset[str], int]], dict[str, int], dict[str, int]] | None = None
        # the last round's parts with their bounds, offers and candidate counts (prior_parts)
        self.search_s = SEARCH_S  # the next round's time for the local search (s)
        self.cp_s = 0.0  # CP-SAT's time over every solve so far (s)
        self._packing: tuple[int | None] | None = None  # the packing bound by area, when first asked
        self.lagrange_bound: int | None = None  # the Lagrangian bound over every candidate (lagrange)
        self.recreated = False  # did the ruin-and-recreate search (recreate) improve the plan?
        self.found_by: str | None = None  # the step that found the best real plan (adopt)
        self.rins_done: set[tuple] = set()  # neighbourhoods of rins proven to hold no better plan
        self.relaxed: tuple[int, dict] | None = None  # the last round and its optimum, where it used untaken
        # candidates (rins at the next round's start)

    def plan(self) -> PlanResult:
        """A greedy first plan, then rounds of more candidates and a CP-SAT solve until one answers."""
        # a first legal plan before anything else: the answer if time runs short, and the hint
        self.start = self.greedy(self.t0 + 0.6 * max(0.0, self.builder.deadline - self.t0))
        self.found_by = "greedy"
        self.report_start()
        while True:
            self.rounds += 1
            self.take_candidates()
            answer = self.no_candidates_answer()
            if answer is not None:
                return answer
            if self.start is None:
                self.start = self.greedy(time.monotonic() + 0.4 * max(0.0, self.builder.deadline - time.monotonic()))
                self.found_by = "greedy"
                self.report_start()
            if self.rounds == 1 and self.crowded():
                self.lagrange(min(LAGRANGE_S, LAGRANGE_SHARE * (self.builder.deadline - time.monotonic())))
                budget = min(RECREATE_S, RECREATE_SHARE * (self.builder.deadline - time.monotonic()))
                exact = RECREATE_EXACT_UNITS <= RECREATE_EXACT_MOST * len(self.groups)
                t = time.monotonic()
                self.recreate((1.0 - RECREATE_EXACT_SHARE) * budget if exact else budget)
                if exact:
                    self.recreate_exact(budget - (time.monotonic() - t))
                if _DEBUG:
                    _log.debug("recreate: plan %s (%s) t=%.1f", self.incumbent_cost(), self.found_by,
                               time.monotonic() - self.t0)
            answer = self.solve_round()
            if answer is not None:
                return answer

    def crowded(self) -> bool:
        """Does some goal term pull two or more units (a whole army to one point)? Where each unit
        has its own term the rounds' CP-SAT bound was measured above the Lagrangian one (the 20-unit
        instance: 323.6 against 333.5), and the time is better left to the rounds."""
        return any(sum(1 for g in self.groups if any(t.applies([u.id for u in g.members]))) >= 2
                   for t in self.terms)

    def lagrange(self, budget: float) -> None:
        """The Lagrangian bound over every candidate of every unit (:mod:`planner.solve.lagrange`:
        the point cliques relaxed, multipliers by column generation), within ``budget`` s; kept in
        :attr:`lagrange_bound` (integer cost units, over the same candidate grid as the rounds'
        bound; its docstring has the proof). Run before round 1's CP-SAT solve where units crowd
        (:meth:`crowded`), so no rounds' bound is proven yet; were it called later, it would stop
        once the master LP shows it cannot beat the one proven so far."""
        from planner.solve.lagrange import LagrangeBound

        if budget < 0.5 or self.start is None:
            return
        until = time.monotonic() + budget
        lb = LagrangeBound(self.groups, self.streams, self.cands)
        lb.run(until, target=self.proven)
        b = lb.integer_bound()
        if _DEBUG:
            _log.debug("lagrange bound %s (LP %s, %d iterations, %d judged) t=%.1f", b, lb.lp_value, lb.iterations,
                       lb.judged, time.monotonic() - self.t0)
        if b is not None and (self.lagrange_bound is None or b > self.lagrange_bound):
            self.lagrange_bound = b

    def progress(self, obj: float | None, bound: float | None) -> None:
        """Report an objective and bound (objective units) to ``on_progress``, if given."""
        if self.on_progress is not None:
            self.on_progress(obj, bound, time.monotonic() - self.t0)

    def report_start(self) -> None:
        """Report the greedy plan's objective, if there is one."""
        if self.start is not None:
            self.progress(sum(c.icost for c in self.start.values()) / COST_SCALE, None)

    def extend(self, g: Group, n: int, until: float, below: int | None = None) -> None:
        """Take up to ``n`` more candidates (only those whose cost is below ``below``, if given)."""
        s = self.streams[g.id]
        k = 0
        while k < n and (below is None or ((nxt := s.bound()) is not None and nxt < below)):
            if stop.clock() > until or s.exhausted:
                break
            try:
                c = next(s, None)
            except CandidateTimeout:
                break
            if c is None:
                return
            self.cands[g.id].append(c)
            k += 1
        if not self.cands[g.id]:
            # out of time before the cheapest candidate is known (an exactly measured goal): the
            # cheapest measured so far, out of cost order (the stream's bound stays true)
            c = s.take_measured(np.zeros((0, 2)), np.zeros(0))
            if c is not None:
                self.cands[g.id].append(c)

    def greedy(self, until: float) -> dict[str, Candidate] | None:
        """Biggest units first, each at its cheapest candidate clear of those already placed
        (pulling more candidates from its stream as needed): a quick legal plan, used as the
        CP-SAT hint and as the answer if the exact model cannot be built in time."""
        cands, streams, builder = self.cands, self.streams, self.builder
        picked: dict[str, Candidate] = {}
        taken_xy = np.zeros((0, 2))
        taken_r = np.zeros(0)
        saved = builder.deadline
        builder.deadline = min(saved, until)
        try:
            order = sorted(self.groups, key=lambda g: -len(g.models))
            for k, g in enumerate(order):
                i = 0
                # each unit its share of the time; then its cheapest place measured so far will do
                share = time.monotonic() + max(0.0, until - time.monotonic()) / (len(order) - k)
                while g.id not in picked:
                    if i >= len(cands[g.id]):
                        # skip places near the units already picked, without judging them (a heuristic:
                        # they stay in the stream for the CP-SAT model)
                        c = streams[g.id].next_clear(taken_xy, taken_r, share)
                        if c is None:
                            return None
                        cands[g.id].append(c)
                    c = cands[g.id][i]
                    i += 1
                    if not any(c.overlaps(o) for o in picked.values()):
                        picked[g.id] = c
                        taken_xy = np.vstack([taken_xy, [[f.cx, f.cy] for f in c.footprints]])
                        taken_r = np.concatenate([taken_r, [f.outer_radius for f in c.footprints]])
        except CandidateTimeout:
            return None
        finally:
            builder.deadline = saved
        return picked

    def take_candidates(self) -> None:
        """Take this round's candidates: ``batch`` more per unit sharing the time fairly, or the
        more candidates below ``todo_extra`` of the units whose untaken candidates the last round's
        optimum used (all of them, up to ``EXTRA_GROWTH`` times as many as each has; :func:`_below`)."""
        if self.todo_extra is None:
            # share the candidate time fairly: units with fewest candidates first, each a slice
            todo = sorted((g for g in self.groups if not self.streams[g.id].exhausted),
                          key=lambda g: len(self.cands[g.id]))
            for k, g in enumerate(todo):
                share = (self.builder.deadline - time.monotonic()) / (len(todo) - k)
                self.extend(g, self.batch, time.monotonic() + max(0.0, share))
        else:
            todo = [g for g in self.groups if g.id in self.todo_extra]
            for k, g in enumerate(todo):
                share = (self.builder.deadline - time.monotonic()) / (len(todo) - k)
                # the candidates that can still improve the plan (_below), up to EXTRA_GROWTH times as
                # many more as the unit has (at least a batch): when all are taken, the unit takes no
                # "not taken yet" option again
                self.extend(g, max(self.batch, EXTRA_GROWTH * len(self.cands[g.id])),
                            time.monotonic() + max(0.0, share), below=self.todo_extra[g.id])

    def no_candidates_answer(self) -> PlanResult | None:
        """Infeasible or unknown when some unit has no candidate yet; None when every unit has one.

        The time the builder leaves the solver (its deadline, before the planning's) is of no use
        to a unit without a candidate: such units search on until the planning's own deadline."""
        empty = [g for g in self.groups if not self.cands[g.id]]
        if not empty:
            return None
        if stop.clock() < self.deadline and any(not self.streams[g.id].exhausted for g in empty):
            saved, self.builder.deadline = self.builder.deadline, self.deadline
            try:
                for k, g in enumerate(empty):
                    share = (self.deadline - time.monotonic()) / (len(empty) - k)
                    self.extend(g, 1, time.monotonic() + max(0.0, share))
            finally:
                self.builder.deadline = saved
            empty = [g for g in self.groups if not self.cands[g.id]]
            if not empty:
                return None
        if all(self.streams[g.id].exhausted for g in empty):
            return _infeasible(self.world, empty, self.cands, self.streams, self.builder, self.settings, self.t0,
                               self.grid, self.rounds)
        return PlanResult(status="unknown", wall_time_s=time.monotonic() - self.t0, rounds=self.rounds,
                          message=f"no legal placement found before {_ran_out('the time limit')} on {self.grid} for unit(s) "
                                  f"{', '.join(g.id for g in empty)}. This is not a proof that no legal "
                                  "position exists; try a longer --time-limit.")

    def measure_overlaps(self) -> bool:
        """Bring the overlapping pairs up to the candidates taken: only the new candidates of each
        pair of units are measured (against all of the other's). False if the time runs out."""
        groups = self.groups
        for g in groups:
            have = self.arrays.get(g.id)
            if have is None or len(have) != len(self.cands[g.id]):
                self.arrays[g.id] = _Arrays(self.cands[g.id])
        box = {}
        for g in groups:
            arr = self.arrays[g.id]
            if len(arr):
                r = float(arr.reach.max())
                box[g.id] = (arr.anchors[:, 0].min() - r, arr.anchors[:, 1].min() - r,
                             arr.anchors[:, 0].max() + r, arr.anchors[:, 1].max() + r)
        for a in range(len(groups)):
            for b in range(a + 1, len(groups)):
                ga, gb = groups[a].id, groups[b].id
                A, B = self.arrays[ga], self.arrays[gb]
                na, nb = self.measured.get((a, b), (0, 0))
                if (na, nb) == (len(A), len(B)):
                    continue
                if stop.clock() > self.deadline:
                    return False
                ba, bb = box.get(ga), box.get(gb)
                if ba is None or bb is None or ba[2] < bb[0] or bb[2] < ba[0] or ba[3] < bb[1] or bb[3] < ba[1]:
                    self.measured[a, b] = (len(A), len(B))  # no candidate of one comes near the other
                    continue
                try:
                    new_a = _overlap_index(A.part(na), B, ga, self.deadline)
                    old_a = _overlap_index(A.part(0, na), B.part(nb), ga, self.deadline)
                except CandidateTimeout:
                    return False
                ia0, ib0 = self.overlapping.get((a, b), (np.zeros(0, dtype=np.int64),) * 2)
                ia = np.concatenate([ia0, new_a[0] + na, old_a[0]])
                ib = np.concatenate([ib0, new_a[1], old_a[1] + nb])
                if len(ia):
                    self.overlapping[a, b] = (ia, ib)
                self.measured[a, b] = (len(A), len(B))
        return True

    def repair(self, picked: dict) -> dict[str, Candidate] | None:
        """A real plan from a solution of a round's model that used untaken candidates of some
        units: the other units stay, and each of those takes its cheapest candidate clear of the
        units placed (pulling more from its stream, as the greedy plan does); None if none is
        found in time."""
        plan = {gid: c for gid, c in picked.items() if not _is_rest(c)}
        taken = [f for c in plan.values() for f in c.footprints]
        taken_xy = np.array([[f.cx, f.cy] for f in taken]).reshape(-1, 2)
        taken_r = np.array([f.outer_radius for f in taken])
        saved = self.builder.deadline
        try:
            for g in self.groups:
                if g.id in plan:
                    continue
                for c in self.cands[g.id]:
                    if not any(c.overlaps(o) for o in plan.values()):
                        break
                else:
                    while True:
                        if stop.clock() > saved:
                            return None
                        c = self.streams[g.id].next_clear(taken_xy, taken_r)
                        if c is None:
                            return None
                        self.cands[g.id].append(c)
                        if not any(c.overlaps(o) for o in plan.values()):
                            break
                plan[g.id] = c
                taken_xy = np.vstack([taken_xy, [[f.cx, f.cy] for f in c.footprints]])
                taken_r = np.concatenate([taken_r, [f.outer_radius for f in c.footprints]])
        except CandidateTimeout:
            return None
        return plan

    def lns(self, budget: float = LNS_S) -> None:
        """A local search over the best real plan, within ``budget`` s: the unit placed farthest above
        its cheapest candidate and the ``LNS_UNITS - 1`` units placed nearest that candidate are
        re-placed together over their candidates taken (CP-SAT, the other units fixed where they
        are), the next unit when nothing improves, again from the first after each improvement.
        Only a better real plan comes out of it (:meth:`adopt`); no bound."""
        if self.start is None or len(self.groups) < 2:
            return
        until = min(self.builder.deadline, time.monotonic() + budget)
        if until - stop.clock() < 0.2 or not self.measure_overlaps():
            return
        ids = rule_ids(self.world.scenario.ruleset)
        best = {g.id: min(self.cands[g.id], key=lambda c: c.icost) for g in self.groups}
        tried: set[tuple[frozenset[str], int]] = set()
        again = True
        while again and stop.clock() < until - 0.1:
            again = False
            inc = self.start
            cost = self.incumbent_cost()
            assert cost is not None
            order = sorted((g for g in self.groups if inc[g.id].icost > best[g.id].icost),
                           key=lambda g: (best[g.id].icost - inc[g.id].icost, g.id))
            for g in order:
                if stop.clock() >= until - 0.1:
                    return
                cx, cy = best[g.id].anchor
                near = sorted((h for h in self.groups if h.id != g.id),
                              key=lambda h: (math.hypot(inc[h.id].anchor[0] - cx, inc[h.id].anchor[1] - cy), h.id))
                hood = frozenset([g.id] + [h.id for h in near[:LNS_UNITS - 1]])
                if (hood, cost) in tried:
                    continue
                tried.add((hood, cost))
                found: dict = {}
                _solve(self.groups, self.cands, self.settings, min(until, time.monotonic() + LNS_STEP_S),
                       self.overlapping, inc, None, None, self.t0, ids, rest={}, found=found,
                       fixed={gid: c for gid, c in inc.items() if gid not in hood})
                self.cp_s += found.get("cp_s", 0.0)
                self.adopt(found.get("plan"), f"lns after round {self.rounds}")
                if self.incumbent_cost() != cost:
                    again = True
                    break

    def rins(self, round_: int, picked: dict, budget: float) -> None:
        """A relaxation-induced neighbourhood (RINS) over the best real plan, within ``budget`` s:
        the units that round ``round_``'s relaxed optimum ``picked`` places elsewhere than the best
        real plan (or at a candidate not taken yet, :class:`_Rest`) are re-placed exactly over their
        candidates taken by CP-SAT, and the units on which both agree stay where they are
        (``_solve(fixed=...)``). Called when the next round's candidates are taken, so the units the
        optimum rested are re-placed over their new candidates too. CP-SAT is hinted with the
        relaxed optimum's candidates (the rested units not hinted), or with the plan where most of the
        freed units are rested (:func:`_rins_guide`): on the 20-unit neighbourhood below, exported and
        solved alone at load 4, the plan's hint gave no better plan in 10 s, the relaxed optimum's found
        the better one in 4-5 s; on the rosters' (7 of 8-9 units rested) the plan's hint does better.

        Where the relaxation and the plan disagree is where a better plan is to be found: on the
        20-unit instance of issue 18, round 2's optimum and the plan 343.068 disagree on ten units,
        exactly the ten that the better plan 340.713 moves, over round 3's candidates; CP-SAT
        (its ``max_lp`` worker) solves that neighbourhood to optimality in 4-6 s on 2 cores. The
        local search (:meth:`lns`, five units near one unit's cheapest place) and neighbourhoods of
        6-10 units that crowd each other, grown from a seed unit (1.5 s steps, measured in
        ``plan8``), found nothing there; the whole model over the candidates taken (the former
        polish) did not in 3 s. A neighbourhood proven optimal from a plan is not solved again
        while the plan and its units' candidates are the same. Where every unit disagrees the
        neighbourhood is the whole model, which the next round's solve searches too: hinted with the
        relaxed optimum, it gets at most the local search's budget (:data:`SEARCH_S`, halving after a
        round that found nothing; the 6 units of berserker-assault took 7-9 s of the rounds' time at
        8 s). Hinted with the plan it keeps its budget: the next round's solve is hinted mostly at
        "not taken yet" options then, and ravenguard's whole-army neighbourhood found 478.4 at 8 s in
        3 of 3 runs, none in 2 of 2 at 3 s (``plan9``). Only a better real plan comes out of it
        (:meth:`adopt`); no bound."""
        if self.start is None or budget < RINS_MIN_S:
            return
        inc = self.start
        free = frozenset(gid for gid, c in picked.items() if _is_rest(c) or c is not inc[gid])
        cost = self.incumbent_cost()
        key = (free, cost, tuple(len(self.cands[gid]) for gid in sorted(free)))
        if not free or key in self.rins_done or not self.measure_overlaps():
            return
        guide = _rins_guide(picked, free)
        if len(free) == len(self.groups) and guide is not None:
            # every unit free, hinted with the relaxed optimum: the whole model over the candidates taken,
            # much as the next round's own solve (hinted with the plan, the rested units at their
            # "not taken yet" options, a minority here), given the local search's budget only
            budget = min(budget, self.search_s)
        found: dict = {}
        status, *_ = _solve(self.groups, self.cands, self.settings,
                            min(self.builder.deadline, time.monotonic() + budget), self.overlapping, inc, None,
                            None, self.t0, rule_ids(self.world.scenario.ruleset), rest={}, found=found,
                            fixed={gid: c for gid, c in inc.items() if gid not in free},
                            guide=guide)
        self.cp_s += found.get("cp_s", 0.0)
        self.adopt(found.get("plan"), f"rins after round {round_}")
        if status == cp_model.OPTIMAL and self.incumbent_cost() == cost:
            self.rins_done.add(key)
        if _DEBUG:
            _log.debug("rins %d free %s: %s -> %s (%s) t=%.1f", len(free), sorted(free), cost, self.incumbent_cost(),
                       cp_model.CpSolver().status_name(status), time.monotonic() - self.t0)

    def recreate(self, budget: float, units: int = RECREATE_UNITS) -> None:
        """A ruin-and-recreate search over the best real plan, within ``budget`` s: a unit drawn at
        random (seeded by ``settings.seed``) and the ``units - 1`` units placed nearest it are taken
        out and placed again one by one, in a random order, each at its cheapest placement clear of
        the units placed (:meth:`cheapest_clear`: over its candidates taken and the next one its
        stream yields clear of them); the new plan is kept when it is cheaper (:meth:`adopt`). It
        stops early once every step (a unit drawn, an order) has been tried from the best plan
        without a better one: from one plan a step gives the same plan again (a unit's cheapest
        clear placement was taken the first time; only where bounding discs are not the bases, for
        non-round bases, can a later yield be a cheaper clear one), so little is left to find.

        Where a whole army is pulled to one point (:meth:`crowded`) the greedy plan packs the
        biggest units first and every unit's candidates taken lie in the same few square inches, so
        :meth:`lns` (CP-SAT over the candidates taken) cannot move a unit anywhere new; this search
        pulls the candidates it needs from the streams (the candidates taken grow; the streams'
        bounds stay true). Only a better real plan comes out of it; no bound."""
        if self.start is None or len(self.groups) < 2:
            return
        until = min(self.builder.deadline, time.monotonic() + budget)
        rng = random.Random(self.settings.seed)
        by_id = {g.id: g for g in self.groups}
        k = min(units, len(self.groups))
        tried: set[tuple[str, ...]] = set()  # the steps tried since the last better plan
        every = len(self.groups) * math.factorial(k)  # at most this many different steps from one plan
        misses = 0
        try:
            while stop.clock() < until and len(tried) < every and misses < every:
                inc = self.start
                g = rng.choice(self.groups)
                cx, cy = inc[g.id].anchor
                near = sorted((h for h in self.groups if h.id != g.id),
                              key=lambda h: (math.hypot(inc[h.id].anchor[0] - cx, inc[h.id].anchor[1] - cy), h.id))
                out = [g.id] + [h.id for h in near[:k - 1]]
                rng.shuffle(out)
                if tuple(out) in tried:  # the same step from the same plan gives the same plan
                    misses += 1
                    continue
                tried.add(tuple(out))
                misses = 0
                plan = {gid: c for gid, c in inc.items() if gid not in out}
                for gid in out:
                    c = self.cheapest_clear(by_id[gid], plan, until)
                    if c is None:
                        break
                    plan[gid] = c
                else:
                    cost = self.incumbent_cost()
                    self.adopt(plan, "recreate")
                    if self.incumbent_cost() != cost:
                        self.recreated = True
                        tried.clear()
        except CandidateTimeout:
            return

    def recreate_exact(self, budget: float, units: int = RECREATE_EXACT_UNITS,
                       pull: int = RECREATE_EXACT_PULL) -> None:
        """A ruin-and-recreate search over the best real plan whose recreate is exact, within ``budget``
        s: a unit drawn at random (seeded by ``settings.seed``) and the ``units - 1`` units placed
        nearest it are taken out; each takes up to ``pull`` more candidates from its stream, the next
        ones clear of the bases of the units that stay (:meth:`CandidateStream.next_clear`: the holes
        the freed units leave, and beyond); then CP-SAT re-places the freed units together over all
        their candidates taken, the others fixed (``_solve(fixed=...)``, hinted and pruned by the plan:
        the plan itself is a solution). The new plan is kept when cheaper (:meth:`adopt`). A step
        drawn again from the same plan is skipped, and the search stops after as many skips in a row
        as there are units. The candidates pulled are taken (``cands``), so the streams' bounds and
        every round's relaxation stay valid. Only a better real plan comes out of it; no bound.

        :meth:`recreate` re-places its units one by one (each at its cheapest clear place); here they
        are placed jointly, which a packing needs when two freed units want the same hole. The planner
        calls it after :meth:`recreate`, with :data:`RECREATE_EXACT_SHARE` of their budget (measured, 3
        runs of 30 s a roster, against :meth:`recreate` alone with the whole budget: ironhands 707.9-711.3
        against 712.7-713.5, ravenguard 476.6 in 3 of 3 against 478.2-485.3, chogorian-brotherhood
        1571.13 against 1570.95; ``benchmarks/README.md``, tenth pass)."""
        if self.start is None or len(self.groups) < 2:
            return
        until = min(self.builder.deadline, time.monotonic() + budget)
        rng = random.Random(self.settings.seed + 1)
        ids = rule_ids(self.world.scenario.ruleset)
        k = min(units, len(self.groups))
        tried: set[tuple[frozenset[str], int]] = set()
        misses = 0
        try:
            while stop.clock() < until - 0.2 and misses < len(self.groups):
                inc = self.start
                cost = self.incumbent_cost()
                assert cost is not None
                g = rng.choice(self.groups)
                cx, cy = inc[g.id].anchor
                near = sorted((h for h in self.groups if h.id != g.id),
                              key=lambda h: (math.hypot(inc[h.id].anchor[0] - cx, inc[h.id].anchor[1] - cy), h.id))
                free = frozenset([g.id] + [h.id for h in near[:k - 1]])
                if (free, cost) in tried:
                    misses += 1
                    continue
                tried.add((free, cost))
                misses = 0
                fixed = {gid: c for gid, c in inc.items() if gid not in free}
                fps = [f for c in fixed.values() for f in c.footprints]
                xy = np.array([[f.cx, f.cy] for f in fps]).reshape(-1, 2)
                r = np.array([f.outer_radius for f in fps])
                for gid in sorted(free):
                    for _ in range(pull):
                        c = self.streams[gid].next_clear(xy, r, until)
                        if c is None:
                            break
                        self.cands[gid].append(c)
                if not self.measure_overlaps():
                    return
                found: dict = {}
                _solve(self.groups, self.cands, self.settings, until, self.overlapping, inc, None, None, self.t0,
                       ids, rest={}, found=found, fixed=fixed)
                self.cp_s += found.get("cp_s", 0.0)
                self.adopt(found.get("plan"), "exact recreate")
        except CandidateTimeout:
            return

    def cheapest_clear(self, g: Group, plan: dict[str, Candidate], until: float) -> Candidate | None:
        """``g``'s cheapest placement clear of every base of ``plan`` (exact, :meth:`Candidate.overlaps`)
        among its candidates taken and the next candidate its stream yields clear of them
        (:meth:`CandidateStream.next_clear`, taken too); None if there is none.

        Raises
        ------
        CandidateTimeout
            If the stream is still judging at the builder's deadline.
        """
        placed = list(plan.values())
        best = None
        for c in self.cands[g.id]:
            if (best is None or c.icost < best.icost) and not any(c.overlaps(o) for o in placed):
                best = c
        fps = [f for c in placed for f in c.footprints]
        xy = np.array([[f.cx, f.cy] for f in fps]).reshape(-1, 2)
        r = np.array([f.outer_radius for f in fps])
        c = self.streams[g.id].next_clear(xy, r, until)
        if c is not None:
            self.cands[g.id].append(c)
            if (best is None or c.icost < best.icost) and not any(c.overlaps(o) for o in placed):
                best = c
        return best

    def incumbent_cost(self) -> int | None:
        """The cost of the best real plan so far (integer units), or None."""
        return None if self.start is None else sum(c.icost for c in self.start.values())

    def adopt(self, plan: dict[str, Candidate] | None, by: str | None = None) -> None:
        """Keep ``plan`` as the best real plan (and the next round's hint) if it is cheaper; ``by``
        names the step that found it (:attr:`found_by`; default: this round's CP-SAT solve)."""
        cost = self.incumbent_cost()
        if plan is not None and (cost is None or sum(c.icost for c in plan.values()) < cost):
            self.start = plan
            self.found_by = by if by is not None else f"CP-SAT round {self.rounds}"

    def solve_round(self) -> PlanResult | None:
        """Solve over the candidates taken, each unit with candidates left also offered "one not
        taken yet" at its stream's bound (:class:`_Rest`): the answer, or None to take more
        candidates and solve again."""
        groups, t0 = self.groups, self.t0
        if self.relaxed is not None:
            # the units where the last round's relaxed optimum and the best plan disagree, re-placed over
            # their candidates taken since (the rested units' among them): a better plan, a better hint
            self.rins(*self.relaxed, min(RINS_S, RINS_SHARE * (self.builder.deadline - time.monotonic())))
            self.relaxed = None
        _, rest = _outside_bound(groups, self.cands, self.streams)
        inc = self.incumbent_cost()
        # a plan with an untaken candidate of u costs at least next(u) + rest[u]: offered only if
        # that could beat the best plan known (else the plans it stands for cost at least inc)
        offer = {g.id: nxt for g in groups if (nxt := self.streams[g.id].bound()) is not None
                 and (inc is None or nxt + rest[g.id] < inc)}
        outside = inc if len(offer) < sum(self.streams[g.id].bound() is not None for g in groups) else None
        if _DEBUG:
            _log.debug("round %d t=%.1f candidates %s offered %s", self.rounds, time.monotonic() - t0,
                       [len(self.cands[g.id]) for g in groups], len(offer))
        found: dict = {}
        prior = self.prior_parts(offer, outside)
        counts = {g.id: len(self.cands[g.id]) for g in groups}
        if not self.measure_overlaps():
            status, solver, cp, x, tie, live = cp_model.UNKNOWN, None, None, {}, 1, self.cands
        else:
            status, solver, cp, x, tie, live = _solve(groups, self.cands, self.settings, self.deadline,
                                                      self.overlapping, self.start, self.on_progress, outside, t0,
                                                      rule_ids(self.world.scenario.ruleset), rest=offer,
                                                      found=found, floor=self.floor, hint_rest=self.rested,
                                                      memo=self.memo, prior=prior)
        self.cp_s += found.get("cp_s", 0.0)
        self.adopt(found.get("plan"))
        # this round's parts and their bounds, for the next round's floors (only from a relaxation)
        self.last_parts = (solver.part_bounds, offer, counts) \
            if isinstance(solver, _Parts) and outside is None and status in (cp_model.OPTIMAL, cp_model.FEASIBLE) \
            else None
        if _DEBUG:
            _log.debug("solve %s t=%.1f obj %s bound %s tie %s", solver.status_name(status) if solver else None,
                       time.monotonic() - t0, solver.objective_value if solver else None,
                       solver.best_objective_bound if solver else None, tie)
        if status == cp_model.MODEL_INVALID:
            raise SolverError(f"CP-SAT model invalid: {cp.validate() if cp is not None else ''}")
        out_of_time = stop.clock() >= self.builder.deadline
        r = _Round(status, solver, cp, x, tie, live, outside, rest, out_of_time, offer)
        if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            return self.solution_answer(r)
        if status == cp_model.INFEASIBLE:
            if all(s.exhausted for s in self.streams.values()):
                return _infeasible(self.world, groups, self.cands, self.streams, self.builder, self.settings, t0,
                                   self.grid, self.rounds)
            if not r.out_of_time:
                self.batch *= 2
                self.todo_extra = None
                return None
        return self.no_solution_answer(r)

    def prior_parts(self, offer: dict[str, int], outside: int | None) -> list[tuple[frozenset[str], int]]:
        """The last round's parts and bounds that floor this round's parts (:func:`_part_floor`):
        only when both rounds are relaxations (every unit with candidates left offered "one not taken
        yet"), and only if every unit either was offered then, at no more than now, or has taken no
        candidate since and is not offered now."""
        if self.last_parts is None or outside is not None:
            return []
        bounds, before, counts = self.last_parts

        def mapped(gid: str) -> bool:
            if gid in before:
                return gid not in offer or offer[gid] >= before[gid]
            return counts.get(gid) == len(self.cands[gid]) and gid not in offer

        # every unit must map (the image of this round's optimum is a whole solution of the last round's)
        return list(bounds) if all(mapped(g.id) for g in self.groups) else []

    def solution_answer(self, r: _Round) -> PlanResult | None:
        """CP-SAT found a solution of the round's model: optimal or feasible, or None to take more
        candidates of the units whose untaken candidates it used."""
        solver = r.solver
        assert solver is not None  # OPTIMAL or FEASIBLE: the model was built and solved
        picked = {g.id: next(c for c in r.live[g.id] if solver.boolean_value(r.x[g.id, c.index])) for g in self.groups}
        rested = sorted(gid for gid, c in picked.items() if _is_rest(c))
        self.rested = frozenset(rested)
        if rested:
            before = self.incumbent_cost()
            self.adopt(self.repair(picked), f"repair after round {self.rounds}")
            repaired = self.incumbent_cost()
            budget = self.search_s
            if not r.out_of_time:
                self.lns(min(LNS_S, budget))
            searched = self.incumbent_cost()
            # the next round re-places the units where this optimum and the plan disagree (rins), once
            # the units it rested have taken their next candidates
            self.relaxed = (self.rounds, picked)
            # a round whose repair and search found no better plan halves the next one's budget
            self.search_s = SEARCH_S if self.incumbent_cost() != before else max(SEARCH_MIN_S, budget / 2)
            if _DEBUG:
                _log.debug("rested %s: repaired %s, local search %s, t=%.1f", rested, repaired, searched,
                           time.monotonic() - self.t0)
        else:
            self.adopt(picked)
        obj = int(round(solver.objective_value)) // r.tie
        inc = self.incumbent_cost()
        if r.status == cp_model.OPTIMAL:
            # the optimum of a relaxation of the whole grid's model: a bound over the grid
            bound = self.prove(obj if r.outside is None else min(obj, r.outside))
            if r.outside is None:
                self.floor = obj
            if inc is not None and bound is not None and inc <= bound:
                assert self.start is not None  # inc is its cost
                return self.optimal_answer(r, self.start, inc)
            self.progress(None if inc is None else inc / COST_SCALE, None if bound is None else bound / COST_SCALE)
            if not r.out_of_time:
                self.todo_extra = {gid: _below(inc, obj, r.rest[gid], (r.offer or {}).get(gid)) for gid in rested}
                return None
            if self.start is None:
                return self.no_solution_answer(r)
            return self.done(self.start, "feasible", self.proven,
                             f"feasible: {_ran_out()} before the candidates not taken yet of "
                             f"{', '.join(rested)} (which the round's optimum, at their lower bounds, used) were "
                             "judged", solver)
        if self.start is None:
            return self.no_solution_answer(r)
        inc = self.incumbent_cost()
        assert inc is not None
        bound = self.prove(_true_bound(solver.best_objective_bound, r.tie, inc, r.outside))
        where = (f" (while solving {solver.stopped} of round {self.rounds}'s CP-SAT model)"
                 if isinstance(solver, _Parts) and solver.stopped else
                 f" (while solving round {self.rounds}'s CP-SAT model)")
        return self.done(self.start, "feasible", bound, f"feasible: {_ran_out('time limit reached')} before a proof{where}", solver)

    def prove(self, bound: int | None) -> int | None:
        """Keep the best lower bound over the grid proven so far (a later round may prove less
        within its time, never undo an earlier proof); returns it."""
        if bound is not None and (self.proven is None or bound > self.proven):
            self.proven = bound
        return self.proven

    def optimal_answer(self, r: _Round, chosen: dict[str, Candidate], obj: int) -> PlanResult:
        """Optimal over the grid: the round's model (a relaxation of the whole grid's) has no
        cheaper solution than ``chosen``; ties broken by candidate order."""
        if isinstance(r.cp, _Parts) and all(any(c is chosen[g.id] for c in r.live[g.id]) for g in self.groups):
            until = min(self.deadline, time.monotonic() + 2.0)
            chosen = dict(chosen)
            for cp, pg, xp in r.cp.models:
                if len(pg) == 1:  # the first of its cheapest candidates
                    g = pg[0]
                    chosen[g.id] = min((c for c in r.live[g.id] if not _is_rest(c) and c.icost == chosen[g.id].icost),
                                       key=lambda c: c.index)
                    continue
                for g in pg:
                    if (g.id, -1) in xp:
                        cp.add(xp[g.id, -1] == 0)
                live = {g.id: [c for c in r.live[g.id] if not _is_rest(c)] for g in pg}
                chosen.update(_tie_break(cp, xp, pg, live, {g.id: chosen[g.id] for g in pg}, self.settings, until))
        self.progress(obj / COST_SCALE, obj / COST_SCALE)
        return self.done(chosen, "optimal", obj,
                         f"optimal over {self.grid}: no plan is cheaper, counting every candidate not taken yet at "
                         "its unit's lower bound and clear of every other unit", r.solver)

    def no_solution_answer(self, r: _Round) -> PlanResult:
        """No CP-SAT plan and no more rounds: the best plan so far (the last round's, else the
        greedy one) with the bound an earlier round proved, if there is one, else unknown; the
        message names the step that ran out of time."""
        solver, status = r.solver, r.status
        n = sum(len(v) for v in self.cands.values())
        if solver is None:
            step = f"building round {self.rounds}'s CP-SAT model ({n} candidates and their overlapping pairs)"
        elif status == cp_model.INFEASIBLE:
            step = None
        else:
            part = f"{solver.stopped} of " if isinstance(solver, _Parts) and solver.stopped else ""
            step = (f"solving {part}round {self.rounds}'s CP-SAT model ({n} candidates; status "
                    f"{solver.status_name(status)})")
        raised = False
        if self.start is not None and isinstance(solver, _Parts) and solver.partial_bound is not None:
            inc, before = self.incumbent_cost(), self.proven
            assert inc is not None
            raised = self.prove(_true_bound(solver.partial_bound, r.tie, inc, r.outside)) != before
        if self.start is not None:
            what = ("the plan of an earlier round" if self.rounds > 1 and self.proven is not None else
                    "the greedy placement (biggest units first, each at its cheapest place clear of the others)"
                    + (", improved by taking units out and placing them again" if self.recreated else ""))
            bound = self.proven
            kept = (f"the rounds' CP-SAT bound {bound / COST_SCALE:.3f} is this round's, from its parts (those solved at their "
                    "bounds, the one cut short at CP-SAT's bound so far, the others at their units' least costs)"
                    if raised and bound is not None else
                    f"the rounds' CP-SAT bound {bound / COST_SCALE:.3f}, proven in an earlier round, is kept"
                    if bound is not None
                    else "no round proved a bound" if self.packing is not None else "so there is no bound")
            why = f"{_ran_out()} while {step}" if step else "the CP-SAT model found no plan"
            return self.done(self.start, "feasible", bound, f"feasible: {what}; {why}; {kept}", None)
        if step is None:
            why = ("the candidate placements found all crowd each other (overlapping bases "
                   f"[{rule_ids(self.world.scenario.ruleset)['overlap']}])")
        else:
            why = f"{_ran_out()} while {step}"
        return PlanResult(status="unknown", wall_time_s=time.monotonic() - self.t0, rounds=self.rounds,
                          solver_time_s=self.cp_s,
                          message=f"no plan found within {self.settings.time_limit_s:g} s after {self.rounds} "
                                  f"round(s) of candidates: {why}. This is not a proof that no legal plan exists; "
                                  "try a longer --time-limit.")

    @property
    def packing(self) -> int | None:
        """The packing bound by area (integer cost units; None where it does not apply), measured
        when first asked (only a feasible answer needs it)."""
        if self._packing is None:
            self._packing = (_packing_icost(self.builder, self.groups, self.terms),)
        return self._packing[0]

    def best_of_bounds(self, bound: int | None, message: str) -> tuple[int | None, str]:
        """The largest of ``bound`` (the rounds' CP-SAT bound), the packing bound by area and the
        Lagrangian bound, and ``message`` saying which it is and what the others are."""
        named = [("the rounds' CP-SAT bound", bound), ("the packing bound by area", self.packing),
                 ("the Lagrangian bound over every candidate", self.lagrange_bound)]
        known = [(n, b) for n, b in named if b is not None]
        if len(known) < 2 and (not known or known[0][0] == named[0][0]):
            return bound, message
        why = {named[1][0]: "the bases, which do not overlap, cannot all stand nearer the goal point",
               named[2][0]: "no two bases hold one lattice point, priced over each unit's whole candidate stream"}
        best_name, best = max(known, key=lambda nb: nb[1])
        others = "; ".join(f"{n}: {'none' if b is None else f'{b / COST_SCALE:.3f}'}" for n, b in named
                           if n != best_name and (b is not None or n == named[0][0]))
        how = f": {why[best_name]}" if best_name in why else ""
        return best, message + f"; the bound reported is {best_name} ({best / COST_SCALE:.3f}{how}; {others})"

    def done(self, chosen: dict[str, Candidate], status: Literal["optimal", "feasible"], bound: int | None,
             message: str, solver: cp_model.CpSolver | _Parts | None) -> PlanResult:
        """The plan result for ``chosen``, re-checked by the checker (:func:`_result`). A feasible
        plan's bound is the largest of ``bound`` (the rounds'), the packing bound by area
        (:mod:`planner.solve.packing`) and the Lagrangian bound (:mod:`planner.solve.lagrange`), and
        the message says which one it is (:meth:`best_of_bounds`); optimal if the Lagrangian bound
        reaches the plan's cost."""
        if status == "feasible":
            bound, message = self.best_of_bounds(bound, message)
            if bound is not None and bound == self.lagrange_bound and bound >= sum(c.icost for c in chosen.values()):
                status = "optimal"  # the Lagrangian bound (over the same grid as the rounds') reaches the plan
                message = (f"optimal over {self.grid}: the Lagrangian bound over every candidate reaches the "
                           f"plan's cost ({message})")
        return _result(self.world, self.groups, self.cands, chosen, self.terms, self.t0, status=status, bound=bound,
                       message=message, solver_time=self.cp_s,
                       rounds=self.rounds, found_by=self.found_by)


def _result(world: World, groups: list[Group], cands: dict[str, list[Candidate]], chosen: dict[str, Candidate],
            terms: list[Term], t0: float, *, status: Literal["optimal", "feasible"], bound: int | None,
            message: str, solver_time: float, rounds: int, found_by: str | None = None) -> PlanResult:
    """The plan for the chosen candidates, re-checked by the independent checker; ``found_by``: the
    step that found it, named at the end of the message (:attr:`PlanResult.found_by`)."""
    planned_data = _with_positions(world, chosen)
    planned = Scenario.model_validate(planned_data)
    # every unit positioned, except units still to place in a later step (--next / --unit)
    partial = any(u.record.place and u.on_battlefield and not u.is_positioned for u in world.units.values()
                  if u.id not in chosen and u.id not in {m.id for g in groups for m in g.members})
    report = check_deployment(resolve(planned, world.file, require_positions=not partial))
    iobj = sum(c.icost for c in chosen.values())
    obj = iobj / COST_SCALE
    best = gap = None
    if bound is not None:
        best = bound / COST_SCALE
        gap = (iobj - bound) / iobj if iobj > 0 else 0.0
        if status == "feasible" and "gap" not in message:
            message += f"; best bound {best:.3f}, gap {gap:.1%}"
    if found_by is not None:
        message += f"; the plan was found by {found_by}"
    goals = []
    for k, t in enumerate(terms):
        value = sum(c.values[k] for c in chosen.values())
        goals.append(GoalValue(name=t.name, kind=t.kind, weight=t.weight, value=value, measure=t.measure,
                               cost=t.weight * value))
    placements = [UnitPlacement(unit=g.id, formation=chosen[g.id].formation, anchor=chosen[g.id].anchor,
                                cost=chosen[g.id].cost,
                                values={t.name: chosen[g.id].values[k] for k, t in enumerate(terms)},
                                nearest_enemy=chosen[g.id].nearest_enemy_in, candidates=len(cands[g.id]))
                  for g in groups]
    return PlanResult(status=status, message=message, objective=obj, best_bound=best, gap=gap,
                      terms={gv.name: gv.cost for gv in goals}, goals=goals, wall_time_s=time.monotonic() - t0,
                      solver_time_s=solver_time, rounds=rounds, placements=placements, legal=report.legal,
                      legality=report, scenario=planned, scenario_data=planned_data, found_by=found_by)


# --------------------------------------------------------------------------- infeasibility

def _capacity_conflicts(world: World, placing: set[str]) -> list[Conflict]:
    """Transports and buildings the placed units' cargo does not fit (static: who rides where is
    given by the scenario)."""
    loads: dict[str, list] = {}
    for u in world.units.values():
        if u.method is SetupMethod.EMBARKED:
            loads.setdefault(u.setup.in_, []).append(u)
    out = []
    for tid, cargo in loads.items():
        if tid in world.units:
            if tid not in placing:
                continue
            cap = world.units[tid].transport_capacity or 0
        else:
            if not any(c.record.place for c in cargo):
                continue
            cap = world.terrain[tid].building.capacity  # type: ignore[union-attr]
        used = sum(c.capacity_used() for c in cargo)
        if used > cap:
            out.append(Conflict(units=[c.id for c in cargo], rules=[rule_ids(world.scenario.ruleset)["capacity"]],
                                message=f"{tid} carries {used} models (Bulky counted) but holds {cap}: "
                                        + ", ".join(c.id for c in cargo)))
    return out


def _describe_all(world: World, unit, families: list[tuple[str, str | None]]) -> list[str]:
    """One phrase per rule, naming every unit or feature of that rule in the conflict (the
    ruleset's judge words them)."""
    by_rule: dict[str, list[str | None]] = {}
    for rule, detail in families:
        by_rule.setdefault(rule, []).append(detail)
    return world.ruleset.planner_judge().describe_all(world, unit, by_rule)


def _infeasible(world: World, groups: list[Group], cands: dict[str, list[Candidate]],
                streams: dict[str, CandidateStream], builder: CandidateBuilder, settings: SolverSettings,
                t0: float, grid: str, rounds: int) -> PlanResult:
    """Prove and explain that ``groups`` have no plan on the candidate grid (every stream of
    ``groups`` is exhausted).

    One assumption literal per (rule, detail, unit) guards the candidates that rule rejected
    (each rejected candidate is tagged with the first rule it breaks: tagging fewer rules than
    it breaks keeps every conflict found a true one); one literal per pair of units guards their
    mutual no-overlap. CP-SAT's sufficient assumptions are then shrunk by deletion. Candidates
    the fast line-of-sight test rejected are judged again with the exact test.

    The answer is ``infeasible`` (exit 1) only when the rules alone leave some units no placement,
    on the grid or off it (:func:`_rules_limit`, :func:`_shared_rules_limit`,
    :func:`distance_limit`, :func:`static_conflict`). Otherwise a proof over the grid is not a proof over the rules: the
    answer is ``unknown`` (exit 3), with ``limit="grid"``, its conflicts those of the proof. When
    no formation of some units fits their region (:func:`_formation_limit`), the proof is sought
    again without those units' literals (and their pairs): if it holds, the limit is the grid; if
    not, the planner's formations leave no plan, and the limit is ``"formations"``, its conflicts
    those of the whole proof.
    """
    ruled = [([g], words) for g in groups if (words := _rules_limit(g, builder)) is not None]
    if not ruled:  # units sharing one region: their bases together
        ruled = _shared_rules_limit(groups, builder)
    out = [Conflict(units=[g.id for g in gs], rules=_rules_limit_rules(world, gs[0]),
                    message=f"unit{'s' if len(gs) > 1 else ''} {', '.join(g.host.label for g in gs)}: {words}")
           for gs, words in ruled]
    out += [Conflict(units=[g.id], rules=rules, message=f"unit {g.host.label}: {words}") for g in groups
            if not any(g.id in c.units for c in out) and (far := distance_limit(g, builder)) is not None
            for rules, words in [far]]
    out += [c for g in groups if (c := static_conflict(world, g, builder)) is not None]
    if out:  # the rules alone leave these units no placement, on the grid or off it
        return PlanResult(status="infeasible", wall_time_s=time.monotonic() - t0, rounds=rounds, conflicts=out,
                          message="proven infeasible by the rules alone (on the grid or off it, any formation): "
                                  + "; ".join(c.message for c in out))
    proof = _Assumptions(groups, cands)
    for g in groups:
        reasons = _rejection_reasons(g, streams[g.id], builder)
        if reasons is None:
            # the exact test proves it hidden: a legal place the fast test could not offer
            return PlanResult(status="unknown", wall_time_s=time.monotonic() - t0, rounds=rounds,
                              message=f"no plan over {grid} with the fast line-of-sight test, but the exact "
                                      f"test proves some rejected placements of {g.id} hidden; not a proof "
                                      "of infeasibility")
        proof.add_unit(g, reasons)
    proof.add_pairs(rule_ids(world.scenario.ruleset)["overlap"])
    keys = list(proof.lits)
    ids = rule_ids(world.scenario.ruleset)
    verdict = proof.infeasible_with(keys)
    if not verdict:
        return PlanResult(status="unknown", wall_time_s=time.monotonic() - t0, rounds=rounds,
                          message=f"no plan found over {grid}, and the infeasibility proof did not conclude")
    limits = {g.id: lim for g in groups if (lim := _formation_limit(g, streams[g.id], builder)) is not None}
    core = list(proof.core) or keys
    if limits:  # a proof that holds whatever those units' formations: without their literals (and pairs)
        free = [k for k in keys if not set(k[1:] if k[0] == "pair" else k[:1]) & set(limits)]
        if free and proof.infeasible_with(free):
            core = list(proof.core) or free
            limits = {}
    core = proof.shrink(core)
    out = _core_conflicts(world, groups, core, ids, settings)
    if not out:  # a unit whose region holds no grid point at all, or none of whose formations is coherent
        out = [Conflict(units=[g.id], rules=[ids["battlefield"]],
                        message=f"unit {g.host.label}: no grid point in its region") if streams[g.id].forms else
               Conflict(units=[g.id], rules=[_coherency_rule(world, g)],
                        message=f"unit {g.host.label}: no formation of the planner is in unit coherency")
               for g in groups if not proof.legal[g.id] and not streams[g.id].rejected]
    for c in out:
        g = next(g for g in groups if g.id == c.units[0])
        limit = _formation_limit(g, streams[c.units[0]], builder)
        if limit is not None and limit != NO_COHERENT_FORMATION and len(c.units) == 1:
            # no formation fits the unit's region by its size: the rule is that region's (a zone
            # unit's formations wider than the table were rejected off the battlefield first)
            c.rules = _rules_limit_rules(world, g)[:1]
            c.message = f"unit {g.host.label}: no formation of the planner fits wholly within its {_region_words(g, builder)}"
        if limit is not None:
            c.message += f" ({limit})"
    if limits:  # the planner's formations, not the rules, leave no plan: no answer, not a proof (exit 3)
        return PlanResult(status="unknown", limit="formations", wall_time_s=time.monotonic() - t0, rounds=rounds,
                          conflicts=out,
                          message=f"no plan over {grid}, and not proven infeasible: no formation of the planner "
                                  + ("is in coherency for" if set(limits.values()) == {NO_COHERENT_FORMATION} else
                                     "fits the region of")
                                  + f" unit{'s' if len(limits) > 1 else ''} "
                                  f"{', '.join(sorted(limits))}, so the rules may still allow a deployment. "
                                  + "; ".join(c.message for c in out))
    # a proof over the grid only: a placement off the grid may be legal, so no answer (exit 3), not a proof
    return PlanResult(status="unknown", limit="grid", wall_time_s=time.monotonic() - t0, rounds=rounds, conflicts=out,
                      message=grid_limit_words(grid, _proof_scope(settings),
                                               finer_grid_advice(settings.grid_in, "place the models by hand and "
                                                                 "check them with 'planner check'"))
                      + ". " + "; ".join(c.message for c in out))


FINEST_GRID_IN = 0.25
"""The finest candidate grid ``planner plan --grid`` takes, inches."""


def finer_grid_advice(grid_in: float, by_hand: str) -> str:
    """What to try after a grid limit: half the grid (``planner plan --grid``) where that is allowed
    (:data:`FINEST_GRID_IN`), and ``by_hand`` (placing by hand and checking)."""
    half = grid_in / 2
    return f"try a finer grid ('planner plan --grid {half:g}') or {by_hand}" if half >= FINEST_GRID_IN - 1e-9 \
        else by_hand


def grid_limit_words(grid: str, scope: str, try_next: str, what: str = "plan") -> str:
    """The one wording of the grid limit (``limit="grid"``, exit 3): no ``what`` (a plan, a
    deployment) on ``grid`` (e.g. 'the 1" candidate grid (...)'), proven over that grid only
    (``scope`` says how), not by the rules, so a placement off the grid may exist; ``try_next``
    says what to try (a finer grid, a placement by hand)."""
    return (f"no {what} on {grid} (proven over that grid only: {scope}), not proven infeasible by the rules: "
            f"a placement off the grid may exist; {try_next}")


def static_conflict(world: World, g: Group, builder: CandidateBuilder) -> Conflict | None:
    """When a rule that does not depend on where the models stand leaves unit ``g`` no legal
    placement, on the grid or off it (the ruleset judge's ``static_reason``: eligibility for the
    set-up, an Independent Character that may not join, ...), the conflict that says so (a proof
    over the rules); else None."""
    why = builder.rules_judge.static_reason(builder, g)
    if why is None:
        return None
    return Conflict(units=[g.id], rules=[why[0]],
                    message=f"unit {g.host.label}: no position, on the grid or off it, is "
                            + " and ".join(_describe_all(world, g.host, [why]))
                            + " (a rule that does not depend on where the models stand)")


def _coherency_rule(world: World, g: Group) -> str:
    """The coherency rule a group without a coherent formation breaks: its joined characters'
    (``ic.coherency``) where it has some and the ruleset has that rule, else the unit's."""
    if len(g.members) > 1:
        try:
            return world.ruleset.rid("ic.coherency")
        except KeyError:
            pass
    return world.ruleset.rid("coherency")


def _region_words(g: Group, builder: CandidateBuilder) -> str:
    """The name of ``g``'s region in a :func:`_rules_limit` phrase: "deployment zone ID" or "battlefield"."""
    u = g.host
    if u.method is SetupMethod.DEPLOYMENT_ZONE:
        zid = u.setup.zone or (z.id if (z := builder.table.world.zone_of(u.player)) else None)
        return f"deployment zone {zid}"
    return "battlefield"


def _bases(g: Group) -> list[tuple[str, Footprint]]:
    """Each model of ``g`` (label unit/model) with its base at the origin, facing 0."""
    from planner.geometry.shapes import footprint

    return [(f"{m.unit_id}/{m.id}", footprint(m.base, 0.0, 0.0, 0.0)) for m in g.models]


def _shared_rules_limit(groups: list[Group], builder: CandidateBuilder) -> list[tuple[list[Group], str]]:
    """:func:`_rules_limit` for units that share one region (a deployment zone, or the
    battlefield), two or more: their bases together (the same test, the area's part), one
    (units, phrase) per region the rules alone leave them no placement in."""
    from planner.solve.packing import no_fit_words

    by_region: dict[str, list[Group]] = {}
    for g in groups:
        if builder.region(g) is not None:
            by_region.setdefault(_region_words(g, builder), []).append(g)
    out = []
    for where, gs in by_region.items():
        if len(gs) < 2:
            continue
        words = no_fit_words(builder.region(gs[0]), [b for g in gs for b in _bases(g)], where,
                             owner=f"units {', '.join(g.id for g in gs)}")
        if words is not None:
            out.append((gs, words))
    return out


def _rules_limit(g: Group, builder: CandidateBuilder) -> str | None:
    """When the rules alone leave unit ``g`` no placement wholly within its region (its deployment
    zone, or the battlefield), whatever the formation, on the grid or off it: the phrase that says
    why (:func:`planner.solve.packing.no_fit_words`: no base fits, or the bases' area exceeds the
    region's, the packing bound by area's test; or, set up in its deployment zone, its player has
    none: the checker's ``deployment.wholly_within_zone`` finding); else None (not a proof that it fits)."""
    from planner.solve.packing import no_fit_words

    region = builder.region(g)
    if region is None:
        if g.host.method is SetupMethod.DEPLOYMENT_ZONE:  # the checker's finding, in its words
            return f"player {g.host.player!r} has no deployment zone"
        return None
    return no_fit_words(region, _bases(g), _region_words(g, builder))


def distance_limit(g: Group, builder: CandidateBuilder) -> tuple[list[str], str] | None:
    """When the distance rules alone leave unit ``g`` no placement, on the grid or off it (an
    Infiltrator that cannot be more than 9" from the enemy anywhere): (the rule ids, the phrase
    that says why); else None (not a proof that it fits). What a model must be more than a distance
    from, and the rule ids, are the ruleset judge's own (``far_from``: the rules of its candidates'
    tests, e.g. ``hh2.infiltrate.distance``; 40k's Infiltrators distance to enemy models and zones).

    A base holds a disc of its inner radius ``r`` about its centre, so a model wholly within its
    region (its deployment zone, or the battlefield) more than ``D`` inches from a shape has its
    centre in the region eroded by ``r`` and outside the shape grown by ``D + r``. When that set is
    empty for the unit's largest such disc, no model of it can stand anywhere: a proof over the
    rules. Sound under polygon arithmetic: the region is grown by ``TOLERANCE_IN`` first, both radii
    are shrunk by :data:`planner.solve.packing.ERODE_SLACK` of themselves, and curved shapes and
    their growth are inscribed polygons (each inside the true shape)."""
    from planner.solve.packing import ERODE_SLACK

    region = builder.region(g)
    far_from = getattr(builder.rules_judge, "far_from", None)  # optional: a judge without it proves nothing here
    far = [f for f in far_from(builder, g.host) if f[3]] if far_from is not None else []
    label, fp = max(_bases(g), key=lambda b: b[1].inner_radius)
    r = fp.inner_radius
    if region is None or not far or r <= 0:
        return None
    keep = 1.0 - ERODE_SLACK
    centres = region.buffer(TOLERANCE_IN, join_style="mitre").buffer(-r * keep)
    grown = [shapely.union_all([shape.buffer((d + r) * keep) for _, shape in shapes]) for _, d, _, shapes in far]

    def nowhere(kept: list[int]) -> bool:
        return bool(kept) and centres.difference(shapely.union_all([grown[k] for k in kept])).is_empty

    kept = list(range(len(far)))
    if not nowhere(kept):
        return None
    for k in list(kept):  # name only the rules the proof needs
        if nowhere([j for j in kept if j != k]):
            kept.remove(k)
    far = [far[k] for k in kept]
    held = (f"a round base of radius {r:.3f}\"" if fp.kind == "circle"
            else f"a disc of radius {r:.3f}\" (inside its base)")
    parts = []
    for _, d, what, shapes in far:
        ids = sorted({i for i, _ in shapes})
        parts.append(f"more than {d:g}\" from every {what} ({', '.join(ids) if len(ids) <= 6 else f'{len(ids)} of them'})")
    return ([_rules_limit_rules(builder.table.world, g)[0], *(f[0] for f in far)],
            f"model {label} ({held}) can stand nowhere wholly on the {_region_words(g, builder)} "
            + " and ".join(parts))


def _rules_limit_rules(world: World, g: Group) -> list[str]:
    """The rule ids of a :func:`_rules_limit` proof: wholly within the region (the deployment zone,
    or the battlefield) and the bases' no-overlap."""
    ids = rule_ids(world.scenario.ruleset)
    within = (world.ruleset.rid("deployment.wholly_within_zone") if g.host.method is SetupMethod.DEPLOYMENT_ZONE
              else ids["battlefield"])
    if g.host.method is SetupMethod.DEPLOYMENT_ZONE and world.zone_of(g.host.player) is None and not g.host.setup.zone:
        return [within]  # no zone at all: the bases' overlap plays no part
    return [within, ids["overlap"]]


NO_COHERENT_FORMATION = ("the limit is the planner's formations, not the rules: none of its formations of the unit "
                         "(1-3 ranks, two facings, each joined character beside a model of its unit) is in unit "
                         "coherency; models placed by hand may be")
"""The formation limit when no formation of a unit passes the coherency rules at all (e.g. three
joined characters on 60 mm bases about a one-model unit on 25 mm)."""


def _formation_limit(g: Group, s: CandidateStream, builder: CandidateBuilder) -> str | None:
    """What the grid holds, when that is the limit: if none of the unit's formations (1-3 ranks,
    two facings: :func:`planner.solve.candidates.formations`) fits, by its bounding box, in the
    bounding box of the unit's region (its deployment zone, or the battlefield), no placement of
    the grid can be wholly within that region, whatever the other rules say, and the phrase says
    so and that a deeper formation is not tried (:func:`formation_limit_words`); or, when no formation
    of the unit is in coherency at all, :data:`NO_COHERENT_FORMATION`; else None."""
    region = builder.region(g)
    if region is not None and not s.forms:
        return NO_COHERENT_FORMATION
    forms = [fi for fi, f in enumerate(s.forms) if f.at is None]
    if region is None or not forms or not len(s.anchors):
        return None
    where = "deployment zone" if g.host.method is SetupMethod.DEPLOYMENT_ZONE else "battlefield"
    return formation_limit_words([(s.positions(0, fi), s.forms[fi].name) for fi in forms], region.bounds,
                                 len(g.models), where, "only in 1-3 ranks of shoulder-to-shoulder models, two facings")


def formation_limit_words(forms: Sequence[tuple[Sequence[Footprint], str]], bounds: tuple[float, float, float, float],
                          n_models: int, where: str, tried: str) -> str | None:
    """The planner's formation limit, the one test (the planner's candidates, ``planner threats``'
    arrival positions): ``forms`` (each formation's footprints at any anchor, and its name) are
    the formations tried (``tried`` says which, e.g. "only in 1-3 ranks ..."); if none fits, by its
    bounding box (exact extents: each base's support function, inches), in the bounding box
    ``bounds`` (x0, y0, x1, y1, inches) of the unit's region (``where``: "deployment zone",
    "battlefield"), the phrase that says so, names the most compact and says that a deeper
    formation, or models placed by hand, may fit; None when some formation fits."""
    x0, y0, x1, y1 = bounds
    width, depth = x1 - x0, y1 - y0
    if not forms or width <= 0 or depth <= 0:
        return None
    sizes = []
    for fps, name in forms:
        w = max(f.support(1.0, 0.0) for f in fps) + max(f.support(-1.0, 0.0) for f in fps)
        h = max(f.support(0.0, 1.0) for f in fps) + max(f.support(0.0, -1.0) for f in fps)
        if w <= width + TOLERANCE_IN and h <= depth + TOLERANCE_IN:
            return None
        sizes.append((max(w / width, h / depth), w, h, name))
    _, w, h, name = min(sizes)
    return (f"the limit is the planner's formations, not the rules: the grid holds the unit ({n_models} models) "
            f"{tried}, and the most compact of them, "
            f"{name} ({w:.1f}\" x {h:.1f}\"), does not fit in its {where} ({width:g}\" x {depth:g}\"); a deeper "
            "formation, or the models placed by hand, may fit")


def _rejection_reasons(g: Group, s: CandidateStream, builder: CandidateBuilder) -> dict | None:
    """How many of ``g``'s candidates each (rule, detail) rejected, line of sight re-judged
    exactly; None if the exact test finds a rejected placement legal."""
    reasons = dict(s.rejected)
    if s.rejected_sight:
        reasons = {r: n for r, n in reasons.items() if r[0] != builder.sight_rule}
        builder.deadline = float("inf")
        for ai, fi in s.rejected_sight:
            why, _ = builder.judge(g, s.positions(ai, fi), exact_sight=True)
            if why is None:
                return None
            reasons[why] = reasons.get(why, 0) + 1
    return reasons


class _Assumptions:
    """The infeasibility model: each unit's legal candidates or a relaxed rule, no-overlap between
    units, one assumption literal per (unit, rule, detail) and per pair of units (``lits``)."""

    def __init__(self, groups: list[Group], cands: dict[str, list[Candidate]]):
        """An empty model over ``groups``' candidates so far (all legal)."""
        self.groups = groups
        self.cp = cp_model.CpModel()
        self.lits: dict[tuple, cp_model.IntVar] = {}
        self.legal: dict[str, list[Candidate]] = {g.id: list(cands[g.id]) for g in groups}
        self.xs: dict[tuple[str, int], cp_model.IntVar] = {}
        self.core: list[tuple] = []

    def add_unit(self, g: Group, reasons: dict) -> None:
        """Exactly one of ``g``'s legal candidates, or one relaxed (rule, detail) of its rejections."""
        cp = self.cp
        options = []
        for c in self.legal[g.id]:
            self.xs[g.id, c.index] = v = cp.new_bool_var(f"place[{g.id}@{c.index}]")
            options.append(v)
        for (rule, detail) in sorted(reasons, key=lambda r: (r[0], r[1] or "")):
            key = (g.id, rule, detail)
            a = self.lits[key] = cp.new_bool_var(f"{rule}[{g.id},{detail}]")
            y = cp.new_bool_var(f"relax[{g.id},{rule},{detail}]")
            cp.add_implication(y, a.Not())
            options.append(y)
        if options:
            cp.add_exactly_one(options)
        else:
            cp.add_bool_or([])  # an empty region: no grid point at all

    def add_pairs(self, overlap_rule: str) -> None:
        """For each pair of units with overlapping candidates, a literal guarding their no-overlap."""
        groups, legal, xs = self.groups, self.legal, self.xs
        conflicts_cache: dict = {}
        for i in range(len(groups)):
            for j in range(i + 1, len(groups)):
                ga, gb = groups[i], groups[j]
                pairs = _overlapping_pairs(legal[ga.id], legal[gb.id], ga.id, gb.id, conflicts_cache) \
                    if legal[ga.id] and legal[gb.id] else []
                if not pairs:
                    continue
                a = self.lits[("pair", ga.id, gb.id)] = self.cp.new_bool_var(f"{overlap_rule}[{ga.id},{gb.id}]")
                for ca, cb in pairs:
                    self.cp.add_bool_or([xs[ga.id, ca.index].Not(), xs[gb.id, cb.index].Not(), a.Not()])

    def infeasible_with(self, subset: list[tuple]) -> bool | None:
        """Whether the literals of ``subset`` alone leave no plan (None: not decided in 10 s);
        if so, ``core`` is CP-SAT's sufficient subset of them."""
        cp, lits = self.cp, self.lits
        cp.clear_assumptions()
        cp.add_assumptions([lits[k] for k in subset])
        solver = cp_model.CpSolver()
        solver.parameters.num_workers = 1
        solver.parameters.max_time_in_seconds = 10.0
        st = cpsat.solve(solver, cp)
        if st == cp_model.INFEASIBLE:
            core_idx = set(solver.sufficient_assumptions_for_infeasibility())
            self.core = [k for k in subset if lits[k].index in core_idx]
            return True
        return False if st in (cp_model.OPTIMAL, cp_model.FEASIBLE) else None

    def shrink(self, core: list[tuple]) -> list[tuple]:
        """``core`` less each literal the conflict does not need (deletion, in order)."""
        for k in list(core):  # shrink: drop each literal the conflict does not need
            trial = [c for c in core if c != k]
            if trial and self.infeasible_with(trial):
                core = trial
        return core


def _core_conflicts(world: World, groups: list[Group], core: list[tuple], ids: dict[str, str],
                    settings: SolverSettings) -> list[Conflict]:
    """One conflict per unit in the shrunk core: its rules and units, worded by the ruleset's judge."""
    by_unit: dict[tuple[str, ...], list[tuple]] = {}
    for k in core:
        who = (k[1], k[2]) if k[0] == "pair" else (k[0],)
        by_unit.setdefault(who, []).append(k)
    out: list[Conflict] = []
    involved = {u for who in by_unit for u in who}
    for g in groups:
        if g.id not in involved:
            continue
        mine = [k for k in core if k[0] == g.id]
        pairs = [k for k in core if k[0] == "pair" and g.id in k[1:]]
        descs = _describe_all(world, g.host, [(rule, detail) for _, rule, detail in mine])
        descs += [f"clear of the legal positions of unit {k[2] if k[1] == g.id else k[1]}" for k in pairs]
        if not descs:
            continue
        rules = sorted({rule for _, rule, _ in mine} | ({ids["overlap"]} if pairs else set()))
        if not mine and not pairs:
            continue
        out.append(Conflict(units=[g.id] + sorted({k[2] if k[1] == g.id else k[1] for k in pairs}), rules=rules,
                            message=f"unit {g.host.label}: no position on the {settings.grid_in:g}\" grid is "
                                    + " and ".join(descs)))
    return out


def _proof_scope(settings: SolverSettings) -> str:
    """How the grid proof judged the grid's placements: the exact predicates, the planner's margin."""
    return ("judged with the checker's exact predicates (line of sight re-judged exactly)" + (f", keeping the planner's {settings.margin_in:g}\" tape-measure margin on "
                          "'more than' distances" if settings.margin_in > 0 else ""))
