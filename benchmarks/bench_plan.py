"""Benchmark of ``planner plan`` on the reference Infiltrate instance (issue 3).

The instance (a pure function of ``--seed``): a 72" x 48" battlefield, 15 enemy units (5, 4 or
3 Legion marines on 32 mm bases) deployed in their 12" zone, 8 line-of-sight-blocking features
in no man's land (4 solid walls, 4 area ruins), and 10 Infiltrate units of 5 marines (50 models)
to place, each with its own weighted ``near_point`` goal (the objective is the weighted sum of
model distances to the targets).

Three methods, measured in the same run:

- **planner**: :func:`planner.solve.planner.plan_deployment` with 2 workers (cost-ordered
  candidate streams, greedy hint, rounds, the bound on untaken candidates).
- **greedy**: the baseline: units in file order, each at its cheapest legal grid candidate clear
  of those already placed.
- **naive**: one Boolean per legal grid candidate per unit (every formation at every grid point,
  all generated first), one clause per overlapping pair, CP-SAT with 2 workers, no rounds, no
  pruning, no hint; candidate generation counts against its time limit (``--naive-limit``).

Prints a table (times, objective, bound, ratios) and writes ``benchmarks/results/plan.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import subprocess
import sys
import time
from pathlib import Path

from ortools.sat.python import cp_model

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from planner.legality.checker import check_deployment  # noqa: E402
from planner.legality.table import Table  # noqa: E402
from planner.schema import Scenario  # noqa: E402
from planner.solve.candidates import COST_SCALE, CandidateBuilder  # noqa: E402
from planner.solve.goals import compile_goals  # noqa: E402
from planner.solve.planner import (  # noqa: E402
    SolverSettings,
    _groups,
    _overlapping_pairs,
    _with_positions,
    plan_deployment,
)
from planner.world import resolve  # noqa: E402

MARINE = {"diameter_mm": 32}


def instance(seed: int) -> dict:
    """The reference instance as scenario data (deterministic in ``seed``)."""
    rng = random.Random(seed)
    enemy = []
    for i in range(15):
        n = (5, 4, 3)[i % 3]
        row, col = divmod(i, 8)
        x0 = 3.0 + col * 8.6 + rng.uniform(0, 1.0)
        y0 = 3.0 + row * 5.0 + rng.uniform(0, 1.5)
        enemy.append({"id": f"enemy-{i + 1}", "name": f"Enemy squad {i + 1}", "type": "Infantry",
                      "models": [{"base": MARINE, "x": round(x0 + 1.5 * k, 3), "y": round(y0, 3)} for k in range(n)]})
    terrain = []
    placed: list[tuple[float, float, float, float]] = []

    def free(b):
        return all(b[2] + 2 < o[0] or o[2] + 2 < b[0] or b[3] + 2 < o[1] or o[3] + 2 < b[1] for o in placed)

    while len(terrain) < 8:
        k = len(terrain)
        if k < 4:  # solid walls
            w, h = (rng.uniform(6, 10), 1.0) if rng.random() < 0.6 else (1.0, rng.uniform(4, 7))
            kind = "solid"
        else:  # area ruins
            w, h = rng.uniform(5, 8), rng.uniform(4, 6)
            kind = "area"
        x, y = rng.uniform(3, 69 - w), rng.uniform(16, 34 - h)
        b = (x, y, x + w, y + h)
        if not free(b):
            continue
        placed.append(b)
        terrain.append({"id": f"{'wall' if kind == 'solid' else 'ruin'}-{k + 1}", "kind": kind,
                        "traits": ["blocks_line_of_sight"],
                        "footprint": [[round(x, 3), round(y, 3)], [round(x + w, 3), round(y, 3)],
                                      [round(x + w, 3), round(y + h, 3)], [round(x, 3), round(y + h, 3)]]})
    mine, goals = [], []
    for i in range(10):
        uid = f"infiltrator-{i + 1}"
        mine.append({"id": uid, "type": "Infantry", "rules": ["Infiltrate"], "setup": "infiltrate", "place": True,
                     "models": [{"base": MARINE} for _ in range(5)]})
        goals.append({"kind": "near_point", "name": f"target of {uid}", "units": [uid],
                      "x": round(rng.uniform(8, 64), 1), "y": round(rng.uniform(16, 26), 1),
                      "weight": round(rng.uniform(0.5, 2.0), 2)})
    return {
        "ruleset": "hh2", "name": f"bench-plan seed {seed}", "battlefield": {"width": 72, "depth": 48},
        "deployment_zones": [{"id": "south", "player": "iron-hands", "polygon": [[0, 0], [72, 0], [72, 12], [0, 12]]},
                             {"id": "north", "player": "raven-guard",
                              "polygon": [[0, 36], [72, 36], [72, 48], [0, 48]]}],
        "terrain": terrain, "goals": goals,
        "armies": [{"player": "iron-hands", "units": enemy}, {"player": "raven-guard", "units": mine}],
    }


def _setup(data: dict, settings: SolverSettings):
    world = resolve(Scenario.model_validate(data))
    groups = _groups(world)
    table = Table(world)
    placing = {u.id for g in groups for u in g.members}
    fixed = [table.final(u) for u in table.on_table if u.id not in placing]
    terms = compile_goals(world, table, groups[0].host.player, placing)
    builder = CandidateBuilder(table, fixed, settings.grid_in, terms, settings.margin_in)
    return world, groups, builder


def _legal(world, chosen) -> bool:
    planned = Scenario.model_validate(_with_positions(world, chosen))
    return check_deployment(resolve(planned, require_positions=True)).legal


def greedy(data: dict, settings: SolverSettings) -> dict:
    """Each unit in turn at its cheapest legal candidate clear of those already placed."""
    t0 = time.monotonic()
    world, groups, builder = _setup(data, settings)
    picked = {}
    for g in groups:
        for c in builder.stream(g):
            if not any(c.overlaps(o) for o in picked.values()):
                picked[g.id] = c
                break
        else:
            return {"status": "failed", "time_s": time.monotonic() - t0}
    wall = time.monotonic() - t0
    return {"status": "feasible", "time_s": wall, "objective": sum(c.icost for c in picked.values()) / COST_SCALE,
            "legal": _legal(world, picked)}


def naive(data: dict, settings: SolverSettings, limit_s: float) -> dict:
    """All legal grid candidates per unit as Booleans, pairwise no-overlap clauses, one solve."""
    t0 = time.monotonic()
    deadline = t0 + limit_s
    world, groups, builder = _setup(data, settings)
    builder.deadline = deadline
    cands = {}
    try:
        for g in groups:
            cands[g.id] = list(builder.stream(g))
    except Exception as exc:  # CandidateTimeout
        return {"status": "no model", "time_s": time.monotonic() - t0,
                "note": f"candidate generation did not finish in {limit_s:g} s ({type(exc).__name__}; "
                        f"{sum(len(v) for v in cands.values())} candidates for {len(cands)} of {len(groups)} units)"}
    gen = time.monotonic() - t0
    cp = cp_model.CpModel()
    x = {(g.id, c.index): cp.new_bool_var("") for g in groups for c in cands[g.id]}
    for g in groups:
        cp.add_exactly_one(x[g.id, c.index] for c in cands[g.id])
    n_clauses = 0
    for a in range(len(groups)):
        for b in range(a + 1, len(groups)):
            ga, gb = groups[a], groups[b]
            if time.monotonic() > deadline:
                return {"status": "no model", "time_s": time.monotonic() - t0, "generation_s": gen,
                        "note": f"model not built in {limit_s:g} s ({n_clauses} overlap clauses so far)"}
            for ca, cb in _overlapping_pairs(cands[ga.id], cands[gb.id], ga.id, gb.id, {}):
                cp.add_bool_or([x[ga.id, ca.index].Not(), x[gb.id, cb.index].Not()])
                n_clauses += 1
    cp.minimize(sum(c.icost * x[g.id, c.index] for g in groups for c in cands[g.id]))
    built = time.monotonic() - t0
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 2
    solver.parameters.random_seed = settings.seed
    solver.parameters.max_time_in_seconds = max(0.1, deadline - time.monotonic())
    st = solver.solve(cp)
    out = {"status": solver.status_name(st).lower(), "time_s": time.monotonic() - t0, "generation_s": gen,
           "build_s": built - gen, "candidates": sum(len(v) for v in cands.values()), "clauses": n_clauses}
    if st in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        obj = solver.objective_value / COST_SCALE
        bound = solver.best_objective_bound / COST_SCALE
        out.update(objective=obj, bound=bound, gap=(obj - bound) / obj if obj else 0.0)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--time-limit", type=float, default=60.0, help="planner time limit, s")
    ap.add_argument("--naive-limit", type=float, default=60.0, help="naive formulation time limit, s")
    ap.add_argument("--output", default=str(ROOT / "benchmarks" / "results" / "plan.json"))
    ap.add_argument("--write-instance", help="also write the instance as a scenario file")
    args = ap.parse_args(argv)
    data = instance(args.seed)
    if args.write_instance:
        import yaml

        Path(args.write_instance).write_text(yaml.safe_dump(data, sort_keys=False))
    settings = SolverSettings(time_limit_s=args.time_limit, workers=2, seed=0)

    t0, c0 = time.monotonic(), time.process_time()
    res = plan_deployment(resolve(Scenario.model_validate(data)), settings)
    ours = {"status": res.status, "time_s": time.monotonic() - t0, "cpu_s": time.process_time() - c0,
            "objective": res.objective,
            "bound": res.best_bound, "gap": res.gap, "rounds": res.rounds, "legal": res.legal,
            "candidates": sum(p.candidates for p in res.placements), "message": res.message}
    base = greedy(data, settings)
    nv = naive(data, settings, args.naive_limit)

    def ratio(other):
        if ours.get("objective") and other.get("objective"):
            return other["objective"] / ours["objective"]
        return None

    rows = [("planner (2 workers)", ours), ("greedy baseline", base), ("naive formulation", nv)]
    print(f"reference instance seed {args.seed}: 10 Infiltrate units (50 models) vs 15 enemy units, 8 blocking "
          "features, 72\"x48\"")
    print(f"{'method':22} {'status':10} {'time s':>8} {'objective':>11} {'bound':>11} {'gap':>7} {'obj/planner':>11}")
    for name, r in rows:
        obj = r.get("objective")
        bound = r.get("bound")
        gap = r.get("gap")
        rt = ratio(r)
        print(f"{name:22} {r['status']:10} {r['time_s']:8.2f} {'' if obj is None else f'{obj:11.3f}':>11} "
              f"{'' if bound is None else f'{bound:11.3f}':>11} {'' if gap is None else f'{gap:7.2%}':>7} "
              f"{'' if rt is None else f'{rt:11.4f}':>11}")
    if nv.get("note"):
        print(f"naive: {nv['note']}")
    met = ours["status"] == "optimal" and ours["time_s"] < 10.0
    naive_open = nv["status"] != "optimal"
    print(f"target: planner proven optimal in under 10 s: {'met' if met else 'NOT met'}; naive formulation does "
          f"not close its gap in {args.naive_limit:g} s: {'yes' if naive_open else 'NO (it closed it)'}")
    print(f"planner: {ours['message']}")
    print(f"planner CPU time (all threads of this process): {ours['cpu_s']:.2f} s for {ours['time_s']:.2f} s wall")
    load = os.getloadavg()
    print(f"load average (1, 5, 15 min): {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} CPUs")
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                                cwd=ROOT).stdout.strip()
    except OSError:
        commit = None
    out = {"seed": args.seed, "planner": ours, "greedy": base, "naive": nv,
           "ratio_greedy_over_planner": ratio(base), "ratio_naive_over_planner": ratio(nv), "target_met": met,
           "naive_gap_open": naive_open, "environment": {"python": platform.python_version(),
                                                         "platform": platform.platform(),
                                                         "load_average": list(load)}, "git_commit": commit}
    Path(args.output).parent.mkdir(parents=True, exist_ok=True)
    Path(args.output).write_text(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
