"""Min-max: choose my deployment to minimise the enemy's best reply, solved by alternating best
replies with the replies added as cuts.

The enemy's reply value is the distance from its arrival to a point I protect (an objective, say;
the enemy wants it small, I want it large): for each enemy unit (each arrives after my set-up, on
its own) the best reply against my deployment ``D`` is ``v(D) = min`` over its legal positions of
that distance, and the enemy's value is the minimum over its units (no legal arrival at all counts
as ``cap_in``). I maximise ``v(D)``.

Master (CP-SAT ``cp``): my candidates as in :mod:`planner.adversary.deny`, and ``z`` (inches x
1000) with, for every reply ``r`` found so far (``hh2.infiltrate.*`` removal as in denial),
``z <= value(r)`` unless ``r`` is removed by the chosen candidates. The master's optimum is an
upper bound (fewer replies, and undecided sight counted as seeing, both relax it). The exact best
reply to the master's deployment is a lower bound (a value my deployment guarantees). Replies are
added (with the sight pairs they rely on decided exactly) until the bound meets the value.
"""

from __future__ import annotations

import math
import time

from ortools.sat.python import cp_model
from pydantic import BaseModel, ConfigDict, Field

from planner.adversary.deny import DenySettings, Screen, _base_model, build_screen, greedy, killed_var
from planner.adversary.threats import EnemyPlacement, check_with, point_distance
from planner.errors import SolverError
from planner.solve import cpsat, stop
from planner.solve.candidates import Candidate
from planner.world import World

SCALE = 1000


class MinMaxResult(BaseModel):
    """Report of :func:`minmax`."""

    model_config = ConfigDict(extra="forbid")
    status: str = Field(description="optimal (bound met value), feasible (gap left), unknown")
    message: str
    value_in: float | None = Field(default=None, description="Enemy's best reply distance my deployment guarantees.")
    bound_in: float | None = Field(default=None, description="Proven upper bound on that value.")
    gap_in: float | None = None
    iterations: int
    replies: int
    placements: dict[str, tuple[float, float]] = Field(default_factory=dict)
    enemy_replies: list[EnemyPlacement] = Field(default_factory=list)
    my_positions: dict[str, list[tuple[float, float, float]]] = Field(default_factory=dict)
    wall_time_s: float


def reply_values(screen: Screen, point: tuple[float, float]) -> list[dict[int, float]]:
    """Per space: position index -> distance to the point (inches)."""
    return [{p.index: point_distance(p.footprints, point) for p in sp.positions} for sp in screen.spaces]


def evaluate(screen: Screen, chosen: dict[str, Candidate], values: list[dict[int, float]], cap: float):
    """Exact enemy best reply against ``chosen``: (value, [(space, position) best per unit])."""
    best_v = cap
    best: list[tuple[int, int, float]] = []
    for s in range(len(screen.spaces)):
        legal = screen.legal_positions(s, chosen)
        if not legal:
            continue
        k = min(legal, key=lambda k: (values[s][k], k))
        best.append((s, k, values[s][k]))
        best_v = min(best_v, values[s][k])
    return best_v, best


def minmax(world: World, enemy_units: list[str], point: tuple[float, float], settings: DenySettings | None = None,
           cap_in: float | None = None, replies_per_round: int = 5) -> MinMaxResult:
    """Maximise the distance from the protected ``point`` to the enemy's best legal Infiltrate
    arrival (over its units ``enemy_units``); see the module docstring.

    Raises
    ------
    ScenarioError
        See :func:`planner.adversary.deny.build_screen`.
    """
    settings = settings or DenySettings()
    t0 = time.monotonic()
    deadline = t0 + settings.time_limit_s
    screen = build_screen(world, enemy_units, settings, target=point)
    bf = world.scenario.battlefield
    cap = cap_in if cap_in is not None else math.hypot(bf.width, bf.depth)
    values = reply_values(screen, point)
    cuts: set[tuple[int, int]] = set()
    start = greedy(screen)
    best: tuple[float, dict[str, Candidate], list] | None = None
    if len(start) == len(screen.groups):
        v, rep = evaluate(screen, start, values, cap)
        best = (v, start, rep)
        for s in range(len(screen.spaces)):
            legal = screen.legal_positions(s, start)
            for k in sorted(legal, key=lambda k: values[s][k])[:replies_per_round]:
                cuts.add((s, k))
    upper = cap
    it = 0
    status = "unknown"
    while True:
        it += 1
        cp, x = _base_model(screen)
        z = cp.new_int_var(0, round(cap * SCALE), "z")
        cache: dict = {}
        for s, k in sorted(cuts):
            kv = killed_var(cp, x, screen, s, k, cache)
            cp.add(z <= round(values[s][k] * SCALE)).only_enforce_if(kv.Not()).with_name(f"reply[{s}:{k}]")
        cp.maximize(z)
        if best is not None:
            for g in screen.groups:
                for c in screen.cands[g.id]:
                    cp.add_hint(x[g.id, c.index], best[1].get(g.id) is c)
        solver = cp_model.CpSolver()
        solver.parameters.max_time_in_seconds = max(0.2, deadline - time.monotonic())
        solver.parameters.num_workers = settings.workers
        solver.parameters.random_seed = settings.seed
        st = cpsat.solve(solver, cp)
        if st == cp_model.MODEL_INVALID:
            raise SolverError(f"CP-SAT model invalid: {cp.validate()}")
        if st not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            break
        upper = min(upper, solver.best_objective_bound / SCALE)
        chosen = {g.id: next(c for c in screen.cands[g.id] if solver.boolean_value(x[g.id, c.index]))
                  for g in screen.groups}
        v, rep = evaluate(screen, chosen, values, cap)
        if best is None or v > best[0] + 1e-9:
            best = (v, chosen, rep)
        if round(best[0] * SCALE) >= math.floor(solver.best_objective_bound + 1e-6):
            status = "optimal"
            break
        added = 0
        for s in range(len(screen.spaces)):
            legal = screen.legal_positions(s, chosen)
            for k in sorted(legal, key=lambda k: values[s][k])[:replies_per_round]:
                if (s, k) not in cuts:
                    cuts.add((s, k))
                    added += 1
        if stop.clock() >= deadline:  # the time limit, or Ctrl-C (planner.solve.stop)
            status = "feasible" if best else "unknown"
            break
        if added == 0:
            # the master thought the reply removed: the exact sight pairs are learned now (in
            # legal_positions), so the next master is tighter
            continue
    if best is None:
        return MinMaxResult(status="unknown", message="no deployment found within the time limit", iterations=it,
                            replies=len(cuts), wall_time_s=time.monotonic() - t0)
    v, chosen, rep = best
    if status != "optimal":
        status = "feasible"
    replies = []
    for s, k, val in rep:
        sp = screen.spaces[s]
        p = sp.all_positions[k]
        extra = {}
        for c in chosen.values():
            extra.update(c.positions)
        report = check_with(world_with_raw(world), sp, p, extra)
        replies.append(EnemyPlacement(unit=sp.group.id, formation=p.formation, anchor=p.anchor, value=val,
                                      models=p.positions, legal=report.legal))
    mine = {}
    for c in chosen.values():
        mine.update(c.positions)
    gap = max(0.0, upper - v)
    msg = (f"optimal over the candidates and the {settings.enemy_grid_in:g}\" enemy grid: the enemy's best reply "
           f"is {v:.3f}\" from the point"
           if status == "optimal" else f"feasible: value {v:.3f}\", bound {upper:.3f}\" (gap {gap:.3f}\")")
    return MinMaxResult(status=status, message=msg, value_in=v, bound_in=max(v, upper) if status != "optimal" else v,
                        gap_in=0.0 if status == "optimal" else gap, iterations=it, replies=len(cuts),
                        placements={g: c.anchor for g, c in chosen.items()}, enemy_replies=replies,
                        my_positions=mine, wall_time_s=time.monotonic() - t0)


def world_with_raw(world: World) -> World:
    """``world`` with its data kept (so reports keep the user's wording)."""
    if world.raw is None:
        world.raw = world.scenario.model_dump(mode="json", by_alias=True, exclude_none=True)
    return world
