"""Benchmark: how ``check_deployment`` grows with the army size (issue 18, item 3).

Run on demand (it is not part of the test suite)::

    .venv/bin/python benchmarks/bench_scaling.py --before main [--repeat 5] [--rounds 2]

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
given with ``--before`` and this tree. ``--before`` is a tree holding the previous ``planner/``
(e.g. ``git archive <commit> planner models | tar -x -C DIR``) or a git revision of this
repository (``main``, a commit), which is archived so into a temporary folder.

It prints the medians of the wall time (``time.perf_counter``) and of the CPU time
(``time.process_time``: this process's CPU, less sensitive to other work on the machine), the
ratio after / before per size, the growth exponent (the slope of log time against log models,
least squares over the sizes), the slope from 2 x 100 to 2 x 400 (log(t400 / t100) / log(4):
the same table tiled, the stricter figure, since the 2 x 50 scene keeps every Infiltrator),
the verdicts (both versions must give the same report: compared by a digest of the report's
JSON) and the load average, and writes ``benchmarks/results/scaling.json``.
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
import tempfile
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
        times, cpu = [], []
        for _ in range(repeat):
            gc.collect()
            c0, t0 = time.process_time(), time.perf_counter()
            check_deployment(world)
            t1, c1 = time.perf_counter(), time.process_time()
            times.append((t1 - t0) * 1000.0)
            cpu.append((c1 - c0) * 1000.0)
        out["sizes"][str(n)] = {"ms": times, "cpu_ms": cpu, "legal": report.legal,
                                "violations": len(report.violations), "digest": digest}
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


def before_tree(spec: str, keep: list[tempfile.TemporaryDirectory]) -> Path:
    """The tree ``--before`` names: a folder as it is, else a git revision of this repository
    archived (``planner/`` and ``models/``) into a temporary folder (kept alive in ``keep``)."""
    path = Path(spec)
    if path.is_dir():
        return path.resolve()
    root = HERE.parent
    rev = subprocess.run(["git", "rev-parse", "--verify", "--quiet", f"{spec}^{{commit}}"], cwd=root,
                         capture_output=True, text=True, check=False)
    if rev.returncode != 0:
        raise SystemExit(f"--before {spec}: neither a folder nor a git revision of {root}")
    tmp = tempfile.TemporaryDirectory(prefix="bench-scaling-before-")
    keep.append(tmp)
    archive = subprocess.run(["git", "archive", rev.stdout.strip(), "planner", "models"], cwd=root,
                             capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", tmp.name], input=archive.stdout, check=True)
    print(f"before = {spec} ({rev.stdout.strip()[:10]}), archived into {tmp.name}")
    return Path(tmp.name)


def slope(t_small: float, t_large: float, ratio: float = 4.0) -> float:
    """The growth exponent between two sizes ``ratio`` apart: log(t_large / t_small) / log(ratio)."""
    return math.log(t_large / t_small) / math.log(ratio)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", help="a tree holding the previous planner/, or a git revision (run side by side)")
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
    keep: list[tempfile.TemporaryDirectory] = []
    versions = {"after": after_tree} | ({"before": before_tree(args.before, keep)} if args.before else {})
    load0 = os.getloadavg()
    runs: dict[str, list[dict]] = {v: [] for v in versions}
    for _ in range(args.rounds):
        for v in sorted(versions, reverse=True):  # before first, then after
            runs[v].append(_run(versions[v], sizes, args.repeat))
    load1 = os.getloadavg()

    med: dict[str, dict[int, float]] = {}
    cpu: dict[str, dict[int, float]] = {}
    for v, rs in runs.items():
        med[v] = {n: statistics.median([t for r in rs for t in r["sizes"][str(n)]["ms"]]) for n in sizes}
        cpu[v] = {n: statistics.median([t for r in rs for t in r["sizes"][str(n)]["cpu_ms"]]) for n in sizes}
    same = all(len({r["sizes"][str(n)]["digest"] for rs in runs.values() for r in rs}) == 1 for n in sizes)
    print(f"check_deployment against the army size ({args.rounds} processes per version, {args.repeat} checks each;"
          " medians, wall / CPU (process time) ms)")
    order = [v for v in ("after", "before") if v in med]
    head = f"{'models':>9}" + "".join(f"  {v + ' wall':>12}  {v + ' CPU':>11}" for v in order)
    print(head + ("  after/before (wall, CPU)" if "before" in med else "") + "  verdict")
    for n in sizes:
        r = runs["after"][0]["sizes"][str(n)]
        line = f"{'2 x ' + str(n):>9}" + "".join(f"  {med[v][n]:12.1f}  {cpu[v][n]:11.1f}" for v in order)
        if "before" in med:
            line += f"  {med['after'][n] / med['before'][n]:11.2f}, {cpu['after'][n] / cpu['before'][n]:.2f}"
        print(line + f"  {'legal' if r['legal'] else 'illegal'} ({r['violations']} violations)")
    exps = {v: exponent(sizes, [med[v][n] for n in sizes]) for v in med}
    exps_cpu = {v: exponent(sizes, [cpu[v][n] for n in sizes]) for v in cpu}
    lo, hi = min(sizes), max(sizes)
    print(f"growth exponent (least squares, {lo} -> {hi}), wall / CPU: "
          + ", ".join(f"{v} {exps[v]:.2f} / {exps_cpu[v]:.2f}" for v in order))
    slopes: dict[str, dict[str, float]] = {}
    if 100 in sizes and 400 in sizes:
        slopes = {v: {"wall": slope(med[v][100], med[v][400]), "cpu": slope(cpu[v][100], cpu[v][400])} for v in med}
        print("slope 2 x 100 -> 2 x 400, log(t400 / t100) / log(4), wall / CPU: "
              + ", ".join(f"{v} {slopes[v]['wall']:.2f} / {slopes[v]['cpu']:.2f}" for v in order))
    print(f"same reports in every run: {'yes' if same else 'NO'}")
    print(f"load average (1, 5, 15 min): before the runs {load0[0]:.2f} {load0[1]:.2f} {load0[2]:.2f}, "
          f"after {load1[0]:.2f} {load1[1]:.2f} {load1[2]:.2f}")
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps({"sizes": sizes, "median_ms": med, "median_cpu_ms": cpu, "exponent": exps,
                                       "exponent_cpu": exps_cpu, "slope_100_400": slopes, "same_reports": same,
                                       "load_average": [load0, load1], "runs": runs}, indent=1))
    print(f"wrote {args.output}")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
