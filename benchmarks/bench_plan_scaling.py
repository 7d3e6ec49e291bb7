"""Planner scaling (issue 18): ``plan_deployment`` at 2 to 30 Infiltrate units, against a previous tree.

The instance (a pure function of the unit count and ``--seed``): a 72" x 48" battlefield, 20 enemy
units of 5 Legion marines (32 mm bases; 100 models) deployed in their 12" zone, 12
line-of-sight-blocking features in no man's land (6 solid walls, 6 area ruins), and ``n``
Infiltrate units of 5 marines to place, each with its own weighted ``near_point`` goal. The
20-unit instance is the issue's acceptance instance (100 models against 100).

Each size is planned in its own process (peak memory is the process's maximum resident set),
once per version, the previous tree (``--before DIR``, e.g. ``git archive 2f8ec50 planner models |
tar -x -C /tmp/before-plan``) and this one alternating, in the same run. Every plan is re-checked
by the independent checker (``legal``). Prints a table and writes
``benchmarks/results/plan_scaling.json``.

    .venv/bin/python benchmarks/bench_plan_scaling.py --before /tmp/before-plan
    .venv/bin/python benchmarks/bench_plan_scaling.py --sizes 20 --time-limit 30
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SIZES = [2, 5, 10, 15, 20, 30]
DEFAULT_OUTPUT = HERE / "results" / "plan_scaling.json"
MARINE = {"diameter_mm": 32}


def instance(n_units: int, seed: int = 3, n_enemy: int = 20, n_features: int = 12) -> dict:
    """The scaling instance as scenario data (deterministic in its arguments)."""
    rng = random.Random(seed)
    enemy = []
    for i in range(n_enemy):
        row, col = divmod(i, 10)
        x0 = 1.0 + col * 7.0 + rng.uniform(0, 0.3)  # 5 bases 1.35" apart: 6.66" wide, clear of the next
        y0 = 2.0 + row * 5.0 + rng.uniform(0, 1.5)
        enemy.append({"id": f"enemy-{i + 1}", "name": f"Enemy squad {i + 1}", "type": "Infantry",
                      "models": [{"base": MARINE, "x": round(x0 + 1.35 * k, 3), "y": round(y0, 3)}
                                 for k in range(5)]})
    terrain: list[dict] = []
    placed: list[tuple[float, float, float, float]] = []

    def free(b: tuple[float, float, float, float]) -> bool:
        return all(b[2] + 2 < o[0] or o[2] + 2 < b[0] or b[3] + 2 < o[1] or o[3] + 2 < b[1] for o in placed)

    while len(terrain) < n_features:
        k = len(terrain)
        if k % 2 == 0:  # solid walls
            w, h = (rng.uniform(5, 8), 1.0) if rng.random() < 0.6 else (1.0, rng.uniform(4, 6))
            kind = "solid"
        else:  # area ruins
            w, h = rng.uniform(4, 7), rng.uniform(3, 5)
            kind = "area"
        x, y = rng.uniform(2, 70 - w), rng.uniform(15, 35 - h)
        b = (x, y, x + w, y + h)
        if not free(b):
            continue
        placed.append(b)
        terrain.append({"id": f"{'wall' if kind == 'solid' else 'ruin'}-{k + 1}", "kind": kind,
                        "traits": ["blocks_line_of_sight"],
                        "footprint": [[round(x, 3), round(y, 3)], [round(x + w, 3), round(y, 3)],
                                      [round(x + w, 3), round(y + h, 3)], [round(x, 3), round(y + h, 3)]]})
    mine, goals = [], []
    for i in range(n_units):
        uid = f"infiltrator-{i + 1}"
        mine.append({"id": uid, "type": "Infantry", "rules": ["Infiltrate"], "setup": "infiltrate", "place": True,
                     "models": [{"base": MARINE} for _ in range(5)]})
        goals.append({"kind": "near_point", "name": f"target of {uid}", "units": [uid],
                      "x": round(rng.uniform(6, 66), 1), "y": round(rng.uniform(16, 30), 1),
                      "weight": round(rng.uniform(0.5, 2.0), 2)})
    return {
        "ruleset": "hh2", "name": f"bench-plan-scaling {n_units} units seed {seed}",
        "battlefield": {"width": 72, "depth": 48},
        "deployment_zones": [{"id": "south", "player": "iron-hands", "polygon": [[0, 0], [72, 0], [72, 12], [0, 12]]},
                             {"id": "north", "player": "raven-guard",
                              "polygon": [[0, 36], [72, 36], [72, 48], [0, 48]]}],
        "terrain": terrain, "goals": goals,
        "armies": [{"player": "iron-hands", "units": enemy}, {"player": "raven-guard", "units": mine}],
    }


def roster_instance(path: Path) -> dict:
    """A whole imported roster (every unit ``place: true``, set up in its deployment zone, with a
    ``near_point`` goal at the table centre) against a deployed enemy squad and tank, with a
    bastion in no man's land: the scenario of ``tests/test_roster.py``."""
    from planner.io.roster import army_to_data, import_roster

    army, _ = import_roster(path, "hh2", "blue", place=True)
    enemy = {"player": "red", "units": [
        {"id": "enemy-squad", "type": "Infantry",
         "models": [{"base": {"diameter_mm": 32}, "x": 30 + 1.5 * i, "y": 6} for i in range(5)]},
        {"id": "enemy-tank", "type": "Vehicle", "models": [{"base": {"length_in": 4.6, "width_in": 3.6}, "x": 50,
                                                             "y": 6}]},
    ]}
    return {
        "ruleset": "hh2", "name": f"roster {path.name}", "battlefield": {"width": 72, "depth": 48},
        "deployment_zones": [
            {"id": "red-zone", "player": "red", "polygon": [[0, 0], [72, 0], [72, 12], [0, 12]]},
            {"id": "blue-zone", "player": "blue", "polygon": [[0, 36], [72, 36], [72, 48], [0, 48]]},
        ],
        "terrain": [{"id": "bastion", "kind": "solid", "traits": ["blocks_line_of_sight"],
                     "footprint": [[30, 22], [42, 22], [42, 26], [30, 26]]}],
        "goals": [{"kind": "near_point", "x": 36, "y": 24}],
        "armies": [enemy, army_to_data(army)],
    }


def worker(n_units: int | str, seed: int, time_limit: float, grid_in: float | None = None,
           formation_gap_in: float | None = None) -> dict:
    """Plan one instance (a unit count, or a roster file) in this process (whatever ``planner`` imports):
    on the candidate grid ``grid_in`` (None: the planner's default), and, as an experiment, with
    ``planner.solve.candidates.FORMATION_GAP_IN`` set to ``formation_gap_in``."""
    import planner
    import planner.solve.candidates as candidates
    from planner.schema import Scenario
    from planner.solve.planner import SolverSettings, plan_deployment
    from planner.world import resolve

    if formation_gap_in is not None:
        candidates.FORMATION_GAP_IN = formation_gap_in
    data = roster_instance(Path(n_units)) if isinstance(n_units, str) else instance(n_units, seed)
    world = resolve(Scenario.model_validate(data), f"<plan scaling {n_units}>")
    grid = {} if grid_in is None else {"grid_in": grid_in}
    t0, c0 = time.monotonic(), time.process_time()
    res = plan_deployment(world, SolverSettings(time_limit_s=time_limit, workers=2, seed=0, **grid))
    return {"planner": str(Path(planner.__file__).resolve().parent), "units": n_units, "status": res.status,
            "placed": len(res.placements),
            "time_s": time.monotonic() - t0, "cpu_s": time.process_time() - c0, "objective": res.objective,
            "bound": res.best_bound, "gap": res.gap, "legal": res.legal, "rounds": res.rounds,
            "candidates": sum(p.candidates for p in res.placements), "message": res.message,
            "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def _run(tree: Path, n: int | str, seed: int, time_limit: float, extra: list[str]) -> dict:
    env = dict(os.environ, PYTHONPATH=str(tree))
    what = ["--roster", n] if isinstance(n, str) else ["--sizes", str(n)]
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", *what, "--seed", str(seed),
           "--time-limit", str(time_limit), *extra]
    res = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False, cwd=str(tree),
                         timeout=time_limit * 4 + 120)
    if res.returncode != 0:
        return {"units": n, "status": "error", "message": res.stderr.strip().splitlines()[-1:]}
    return json.loads(res.stdout)


def _fmt(r: dict) -> str:
    gap = "" if r.get("gap") is None else f"{r['gap']:.1%}"
    obj = "" if r.get("objective") is None else f"{r['objective']:.2f}"
    return (f"{r['status']:>9} {r.get('time_s', 0):7.1f} {obj:>9} {gap:>6} {r.get('peak_rss_mb', 0):7.0f} "
            f"{'yes' if r.get('legal') else 'no':>5}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", type=Path, help="a tree holding the previous planner/ (run side by side)")
    ap.add_argument("--sizes", default=",".join(map(str, SIZES)), help="units to place (default 2,5,10,15,20,30)")
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--time-limit", type=float, default=30.0, help="planner time limit per instance, s")
    ap.add_argument("--output", type=Path, default=DEFAULT_OUTPUT)
    ap.add_argument("--repeat", type=int, default=1, help="runs per size and version, alternating the order; "
                    "the run of median time is shown (default 1)")
    ap.add_argument("--write-instance", type=Path, help="write the instance of the first size as a scenario")
    ap.add_argument("--rosters", type=Path, help="also plan each *.rosz roster of this folder in full "
                    "(e.g. /work/shared/data/rosters)")
    ap.add_argument("--grid", type=float, help="the planner's candidate grid, inches (default: the planner's)")
    ap.add_argument("--formation-gap", type=float, help="experiment: the gap between bases in the planner's "
                    "formations, inches (sets planner.solve.candidates.FORMATION_GAP_IN; default: the planner's)")
    ap.add_argument("--roster", help=argparse.SUPPRESS)
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    sizes: list = [int(s) for s in args.sizes.split(",") if s]
    if args.worker:
        print(json.dumps(worker(args.roster or sizes[0], args.seed, args.time_limit, args.grid, args.formation_gap)))
        return 0
    if args.rosters:
        sizes += [str(p) for p in sorted(args.rosters.glob("*.rosz"))]
    if args.write_instance:
        import yaml

        args.write_instance.write_text(yaml.safe_dump(instance(sizes[0], args.seed), sort_keys=False))
    extra = ([] if args.grid is None else ["--grid", str(args.grid)]) + (
        [] if args.formation_gap is None else ["--formation-gap", str(args.formation_gap)])
    versions = {"after": HERE.parent} | ({"before": args.before.resolve()} if args.before else {})
    load0 = os.getloadavg()
    runs: dict[str, dict[int, dict]] = {v: {} for v in versions}
    loads = {}
    every: dict[str, dict] = {v: {} for v in versions}
    for n in sizes:
        loads[n] = os.getloadavg()[0]
        got: dict[str, list[dict]] = {v: [] for v in versions}
        for k in range(args.repeat):  # before first, then after; the other way round next time
            for v in sorted(versions, reverse=k % 2 == 0):
                got[v].append(_run(versions[v], n, args.seed, args.time_limit, extra))
        for v in versions:
            rs = sorted(got[v], key=lambda r: r.get("time_s", 0.0))
            runs[v][n] = rs[len(rs) // 2]
            every[v][n] = [{k: r.get(k) for k in ("time_s", "status", "objective", "bound", "gap", "rounds")}
                           for r in got[v]]
    load1 = os.getloadavg()
    head = f"{'units':>5} {'load':>5} | {'status':>9} {'time s':>7} {'objective':>9} {'gap':>6} {'RSS MB':>7} {'legal':>5}"
    if "before" in runs:
        head += " | before: status, time s, objective, gap, RSS MB, legal | time after/before"
    print(f"plan_deployment, {args.time_limit:g} s limit, 2 workers, seed {args.seed}: n Infiltrate units of 5 "
          "vs 20 enemy units, 12 blocking features, 72\"x48\""
          + ("" if args.grid is None else f"; grid {args.grid:g}\"")
          + ("" if args.formation_gap is None else f"; formation gap {args.formation_gap:g}\""))
    print(head)
    ok = True
    for n in sizes:
        a = runs["after"][n]
        name = Path(n).stem[:14] + f" ({a.get('placed', '?')})" if isinstance(n, str) else str(n)
        line = f"{name:>5} {loads[n]:5.2f} | {_fmt(a)}"
        if "before" in runs:
            b = runs["before"][n]
            ratio = a.get("time_s", 0) / b["time_s"] if b.get("time_s") else float("nan")
            line += f" | {_fmt(b)} | {ratio:.2f}"
        print(line)
        if args.repeat > 1:
            for v in versions:
                print(f"      {v} runs (gap): " + ", ".join(
                    f"{r.get('status')} {'-' if r.get('gap') is None else format(r['gap'], '.1%')}" for r in every[v][n]))
        ok &= bool(a.get("legal"))
    print(f"load average (1, 5, 15 min): before the runs {load0[0]:.2f} {load0[1]:.2f} {load0[2]:.2f}, "
          f"after {load1[0]:.2f} {load1[1]:.2f} {load1[2]:.2f} on {os.cpu_count()} CPUs")
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps({"sizes": sizes, "seed": args.seed, "time_limit_s": args.time_limit,
                                       "load_average": [load0, load1], "runs": runs, "every_run": every}, indent=1))
    print(f"wrote {args.output}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
