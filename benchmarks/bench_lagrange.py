"""The Lagrangian bound over every candidate (:mod:`planner.solve.lagrange`, proof there) on the
rosters and the 20-unit instance of ``bench_plan_scaling.py``: its value, time, iterations and how
split the LP's plan is, next to the packing bound by area (``benchmarks/README.md``, "Fifth pass").

Each instance in its own process (peak memory is its maximum resident set). ``--take`` first takes
the planner's greedy plan and round 1's candidates (as the planner does before the bound runs);
``--no-judge`` prices the streams' placements unjudged (the weaker bound first measured);
``--check`` compares the translated lattice points with ``_deep_points`` at sampled placements.

    .venv/bin/python benchmarks/bench_lagrange.py --rosters /work/shared/data/rosters --sizes 20
    .venv/bin/python benchmarks/bench_lagrange.py --rosters /work/shared/data/rosters --lattice 0.25 --take
"""

from __future__ import annotations

import time
from pathlib import Path

from planner.solve.candidates import COST_SCALE
from planner.solve.lagrange import LATTICE_IN, LagrangeBound, check_translation

HERE = Path(__file__).resolve().parent


def worker(what: str, h: float, limit: float, take: bool, check: bool, judge: bool = True, cuts: int = 0) -> dict:
    """Build the instance (a unit count or a roster file), open the planner's streams (and, with
    ``take``, its greedy plan and round 1's candidates, so that the placements judged illegal are
    out of the streams), then run column generation for at most ``limit`` s."""
    import resource

    from bench_plan_scaling import instance, roster_instance

    from planner.schema import Scenario
    from planner.solve.planner import SolverSettings, _groups, _Planning
    from planner.world import resolve

    data = instance(int(what)) if what.isdigit() else roster_instance(Path(what))
    world = resolve(Scenario.model_validate(data), f"<lagrange {what}>")
    t0 = time.monotonic()
    run = _Planning(world, SolverSettings(time_limit_s=30.0), _groups(world), None, t0)
    if take:
        run.start = run.greedy(t0 + 0.6 * max(0.0, run.builder.deadline - t0))
        run.rounds = 1
        run.take_candidates()
    t1 = time.monotonic()
    lb = LagrangeBound(run.groups, run.streams, run.cands, h, judge)
    t2 = time.monotonic()
    lb.run(t2 + limit)
    rounds = [(round(time.monotonic() - t2, 2), lb.iterations, 0, lb.best / COST_SCALE,
               None if lb.lp_value is None else lb.lp_value / COST_SCALE, lb.converged)]
    for _ in range(cuts):  # clique rows (lb.run_cuts, one round at a time for the figures)
        if not lb.converged or time.monotonic() > t2 + limit or not lb.separate(until=t2 + limit):
            break
        lb.run(t2 + limit)
        rounds.append((round(time.monotonic() - t2, 2), lb.iterations, len(lb.cuts), lb.best / COST_SCALE,
                       None if lb.lp_value is None else lb.lp_value / COST_SCALE, lb.converged))
    t3 = time.monotonic()
    ib = lb.integer_bound()
    converged = lb.lp_value is not None and lb.lp_value - lb.best < 0.5
    out = {"instance": what, "lattice_in": h, "units": len(lb.units), "items": int(sum(len(u.key) for u in lb.units)),
           "taken": int(sum(len(c) for c in run.cands.values())), "setup_s": round(t1 - t0, 2),
           "build_s": round(t2 - t1, 2), "cg_s": round(t3 - t2, 2), "iterations": lb.iterations,
           "columns": int(sum(len(c) for c in lb._cols)), "point_rows": len(lb._rows),
           "least": sum(int(u.key.min()) for u in lb.units) / COST_SCALE,
           "lagrange_bound": None if ib is None else ib / COST_SCALE,
           "lp": None if lb.lp_value is None else lb.lp_value / COST_SCALE, "converged": converged,
           "fractional_units": lb.fractional_units(), "judged": lb.judged, "judge": judge,
           "cut_rounds": rounds, "cuts": len(lb.cuts), "rebuilds": lb.rebuilds,
           "trace": [(round(t - t2, 2), it, round(b / COST_SCALE, 3)) for t, it, b in lb.trace],
           "packing_bound": None if run.packing is None else run.packing / COST_SCALE,
           "greedy": None if run.start is None else sum(c.icost for c in run.start.values()) / COST_SCALE}
    if check:
        out["translation_check"] = check_translation(lb, run.streams, h)
    out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return out


def main(argv: list[str] | None = None) -> int:
    import argparse
    import json
    import os
    import subprocess
    import sys

    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--sizes", default="20", help="unit counts of the scaling instance (default 20; '' for none)")
    ap.add_argument("--rosters", type=Path, help="also each *.rosz roster of this folder, planned in full")
    ap.add_argument("--lattice", type=float, default=LATTICE_IN, help="clique lattice spacing, inches (default 0.5)")
    ap.add_argument("--time-limit", type=float, default=60.0, help="column generation time per instance, s")
    ap.add_argument("--take", action="store_true", help="first take the planner's greedy plan and round 1's "
                    "candidates (placements judged illegal leave the streams)")
    ap.add_argument("--no-judge", action="store_true", help="price the stream's placements unjudged (at their keys)")
    ap.add_argument("--cuts", type=int, default=0, help="rounds of clique rows after convergence (default 0)")
    ap.add_argument("--check", action="store_true", help="compare the translated points with measured ones")
    ap.add_argument("--output", type=Path, default=HERE / "results" / "lagrange.json")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(args.worker, args.lattice, args.time_limit, args.take, args.check, not args.no_judge,
                                args.cuts)))
        return 0
    todo = [s for s in args.sizes.split(",") if s] + (
        [str(p) for p in sorted(args.rosters.glob("*.rosz"))] if args.rosters else [])
    load0 = os.getloadavg()
    rows = []
    for what in todo:
        cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", what, "--lattice", str(args.lattice),
               "--time-limit", str(args.time_limit), "--cuts", str(args.cuts)] + (["--take"] if args.take else []) + (
               ["--check"] if args.check else []) + (["--no-judge"] if args.no_judge else [])
        res = subprocess.run(cmd, capture_output=True, text=True, check=False, timeout=args.time_limit * 3 + 120)
        if res.returncode != 0:
            rows.append({"instance": what, "error": (res.stderr.strip().splitlines() or ["?"])[-1]})
        else:
            rows.append(json.loads(res.stdout.strip().splitlines()[-1]))
        r = rows[-1]
        name = Path(what).stem if not what.isdigit() else f"{what} units"
        if "error" in r:
            print(f"{name:>22}: error {r['error']}")
            continue
        lp = "none" if r["lp"] is None else f"{r['lp']:.3f}"
        print(f"{name:>22}: LB {r['lagrange_bound']} (LP {lp}, {'converged' if r['converged'] else 'not converged'},"
              f" {r['iterations']} iterations, {r['cg_s']:.1f} s; {r['fractional_units']} of {r['units']} units"
              f" split; {r['judged']} judged) least {r['least']:.3f} packing {r['packing_bound']} greedy {r['greedy']}; {r['items']} "
              f"placements, {r['point_rows']} point rows, peak {r['peak_rss_mb']:.0f} MB"
              + (f"; cut rounds (s, iterations, rows, LB, LP, converged) {r['cut_rounds']}, {r['rebuilds']} rebuilds"
                 if r["cuts"] else "")
              + (f"; translation check {r['translation_check']}" if "translation_check" in r else ""), flush=True)
    load1 = os.getloadavg()
    print(f"load average (1, 5, 15 min): before {load0[0]:.2f} {load0[1]:.2f} {load0[2]:.2f}, "
          f"after {load1[0]:.2f} {load1[1]:.2f} {load1[2]:.2f} on {os.cpu_count()} CPUs")
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps({"lattice_in": args.lattice, "take": args.take, "time_limit_s": args.time_limit,
                                       "load_average": [load0, load1], "runs": rows}, indent=1))
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
