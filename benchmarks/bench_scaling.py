"""Benchmark: how ``check_deployment`` grows with the army size (issue 18, item 3).

Run on demand (it is not part of the test suite)::

    .venv/bin/python benchmarks/bench_scaling.py --before /tmp/main-src [--repeat 5] [--rounds 2]

The scenes are the table of ``bench_check.py`` (72" x 48", 12 blocking features, 10 Infiltrate
units, 4 of them hidden in U-shaped hides), scaled:

* 2 x 100: that table as it is;
* 2 x 200, 2 x 400: 2 and 4 copies of it side by side, 12" apart (terrain, units and ids
  copied per tile; one deployment zone per side over the whole width);
* 2 x 50: the table with 6 deployment-zone units a side left out (50 models each; every
  Infiltrate unit kept).

Each code version runs in its own process (``PYTHONPATH`` = the tree given), which builds every
scene once and times ``check_deployment`` ``--repeat`` times per size (one warm-up first,
``gc.collect()`` before each call). The versions alternate, ``--rounds`` times each: the code
given with ``--before`` (e.g. ``git archive <commit> planner | tar -x -C DIR``) and this tree.
It prints the medians, the ratio after / before per size, the growth exponent (the slope of
log time against log models, least squares over the sizes), the verdicts (both versions must
give the same report: compared by a digest of the report's JSON) and the load average, and
writes ``benchmarks/results/scaling.json``.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import json
import math
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_OUTPUT = HERE / "results" / "scaling.json"
SIZES = (50, 100, 200, 400)
TILE_GAP = 12.0
DROPPED_FOR_50 = ("tac-1", "tac-2", "vets", "assault", "terminators", "command")


def _shift(pts: list, dx: float) -> list:
    return [[p[0] + dx, p[1], *p[2:]] for p in pts]


def scene(models_per_side: int) -> dict:
    """The scenario data (a dict for ``Scenario.model_validate``) with this many models a side."""
    sys.path.insert(0, str(HERE))
    import bench_check as bc

    base, _ = bc.build_scenario()
    data = base.model_dump(mode="json", by_alias=True, exclude_none=True)
    if models_per_side == 50:
        for army in data["armies"]:
            army["units"] = [u for u in army["units"] if u["id"].split("-", 1)[1] not in DROPPED_FOR_50]
        data["name"] = "bench scaling: 2 x 50 models"
        return data
    k = models_per_side // 100
    assert k * 100 == models_per_side, models_per_side
    if k == 1:
        return data
    width = data["battlefield"]["width"]
    step = width + TILE_GAP
    terrain, armies = [], {a["player"]: [] for a in data["armies"]}
    for i in range(k):
        dx = i * step
        for t in data["terrain"]:
            t2 = json.loads(json.dumps(t))
            t2["id"] = f"{t['id']}-t{i}"
            t2["footprint"] = _shift(t["footprint"], dx)
            for key in ("pieces", "walls"):
                for piece in t2.get(key, []) or []:
                    for pk in ("footprint", "polygon", "points", "line"):
                        if pk in piece:
                            piece[pk] = _shift(piece[pk], dx)
            terrain.append(t2)
        for army in data["armies"]:
            for u in army["units"]:
                u2 = json.loads(json.dumps(u))
                u2["id"] = f"{u['id']}-t{i}"
                for m in u2["models"]:
                    m["x"] = m["x"] + dx
                armies[army["player"]].append(u2)
    total = k * width + (k - 1) * TILE_GAP
    data["battlefield"]["width"] = total
    data["terrain"] = terrain
    for z in data["deployment_zones"]:
        xs = [p[0] for p in z["polygon"]]
        z["polygon"] = [[total if p[0] == max(xs) else p[0], p[1]] for p in z["polygon"]]
    for army in data["armies"]:
        army["units"] = armies[army["player"]]
    data["name"] = f"bench scaling: 2 x {models_per_side} models"
    return data


def worker(sizes: list[int], repeat: int) -> dict:
    """Time ``check_deployment`` on each scene in this process (whatever ``planner`` imports)."""
    import planner
    from planner.legality.checker import check_deployment
    from planner.schema import Scenario
    from planner.world import resolve

    out: dict = {"planner": str(Path(planner.__file__).resolve().parent), "sizes": {}}
    for n in sizes:
        world = resolve(Scenario.model_validate(scene(n)), f"<scaling {n}>", require_positions=True)
        report = check_deployment(world)  # warm-up, and the verdict
        digest = hashlib.sha256(report.model_dump_json().encode()).hexdigest()[:16]
        times = []
        for _ in range(repeat):
            gc.collect()
            t0 = time.perf_counter()
            check_deployment(world)
            times.append((time.perf_counter() - t0) * 1000.0)
        out["sizes"][str(n)] = {"ms": times, "legal": report.legal, "violations": len(report.violations),
                                "digest": digest}
    return out


def _run(tree: Path, sizes: list[int], repeat: int) -> dict:
    env = dict(os.environ, PYTHONPATH=str(tree))
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", "--repeat", str(repeat),
           "--sizes", ",".join(map(str, sizes))]
    res = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False, cwd=str(tree))
    if res.returncode != 0:
        raise SystemExit(f"worker on {tree} failed:\n{res.stderr}")
    return json.loads(res.stdout)


def exponent(ns: list[int], ms: list[float]) -> float:
    """Least-squares slope of log(ms) against log(n)."""
    xs, ys = [math.log(n) for n in ns], [math.log(m) for m in ms]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum((x - mx) ** 2 for x in xs)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", type=Path, help="a tree holding the previous planner/ (run side by side)")
    ap.add_argument("--repeat", type=int, default=5, help="timed checks per size and process (default 5)")
    ap.add_argument("--rounds", type=int, default=2, help="processes per version, alternating (default 2)")
    ap.add_argument("--sizes", default=",".join(map(str, SIZES)), help="models per side (default 50,100,200,400)")
    ap.add_argument("--output", type=Path, default=DEFAULT_OUTPUT)
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    if args.worker:
        print(json.dumps(worker(sizes, args.repeat)))
        return 0

    after_tree = HERE.parent
    versions = {"after": after_tree} | ({"before": args.before.resolve()} if args.before else {})
    load0 = os.getloadavg()
    runs: dict[str, list[dict]] = {v: [] for v in versions}
    for _ in range(args.rounds):
        for v in sorted(versions, reverse=True):  # before first, then after
            runs[v].append(_run(versions[v], sizes, args.repeat))
    load1 = os.getloadavg()

    med: dict[str, dict[int, float]] = {}
    for v, rs in runs.items():
        med[v] = {n: statistics.median([t for r in rs for t in r["sizes"][str(n)]["ms"]]) for n in sizes}
    same = all(len({r["sizes"][str(n)]["digest"] for rs in runs.values() for r in rs}) == 1 for n in sizes)
    print(f"check_deployment against the army size ({args.rounds} processes per version, {args.repeat} checks each)")
    head = f"{'models':>9}  {'after ms':>9}" + (f"  {'before ms':>10}  {'after/before':>12}" if "before" in med else "")
    print(head + "  verdict")
    for n in sizes:
        r = runs["after"][0]["sizes"][str(n)]
        line = f"{'2 x ' + str(n):>9}  {med['after'][n]:9.1f}"
        if "before" in med:
            line += f"  {med['before'][n]:10.1f}  {med['after'][n] / med['before'][n]:12.2f}"
        print(line + f"  {'legal' if r['legal'] else 'illegal'} ({r['violations']} violations)")
    exps = {v: exponent(sizes, [med[v][n] for n in sizes]) for v in med}
    print("growth exponent (50 -> 400): " + ", ".join(f"{v} {e:.2f}" for v, e in exps.items()))
    print(f"same reports in every run: {'yes' if same else 'NO'}")
    print(f"load average (1, 5, 15 min): before the runs {load0[0]:.2f} {load0[1]:.2f} {load0[2]:.2f}, "
          f"after {load1[0]:.2f} {load1[1]:.2f} {load1[2]:.2f}")
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps({"sizes": sizes, "median_ms": med, "exponent": exps, "same_reports": same,
                                       "load_average": [load0, load1], "runs": runs}, indent=1))
    print(f"wrote {args.output}")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
