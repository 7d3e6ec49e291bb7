"""Benchmark: ``planner check`` of the ``bench_check.py`` table as a whole process (issue 18 item 5).

Run on demand (it is not part of the test suite)::

    .venv/bin/python benchmarks/bench_cli.py [--before OLD_TREE] [--rounds N]

It writes the 2 x 100 model scenario of ``bench_check.py`` to a YAML file (about 57 KB) and runs
``python -m planner check FILE`` as a new process, again and again, timing each run's wall time
and its CPU time (user + system of the child). Two ways of starting are measured:

* ``cold``: no compiled bytecode of ``planner`` (a fresh copy of the tree, without
  ``__pycache__``) and ``PYTHONDONTWRITEBYTECODE=1``, so every ``planner`` module is compiled
  in every run (as in an environment that sets that variable); the libraries' bytecode is used;
* ``warm``: the copy's bytecode written by one run first, then used.

With ``--before`` (a tree holding ``planner/`` and ``models/``, e.g. ``git archive main planner
models | tar -x -C /tmp/before``) the two versions alternate, run for run. It prints the medians,
after/before and the load average, and writes ``benchmarks/results/cli.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DEFAULT_OUTPUT = HERE / "results" / "cli.json"
TARGET_S = 1.0
"""The issue's target: the whole process under 1 s of wall time."""


def _copy_tree(src: Path, dst: Path) -> Path:
    """``planner/`` and ``models/`` of ``src`` under ``dst``, without compiled bytecode."""
    for part in ("planner", "models"):
        shutil.copytree(src / part, dst / part, ignore=shutil.ignore_patterns("__pycache__"))
    return dst


def _one_run(tree: Path, scenario: Path, env: dict[str, str]) -> tuple[float, float, int]:
    """(wall s, CPU s of the child, exit code) of one ``planner check``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    p = subprocess.run([sys.executable, "-m", "planner", "check", str(scenario)], cwd=scenario.parent,
                       env={**env, "PYTHONPATH": str(tree)}, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       timeout=120)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if p.returncode != 0:
        raise SystemExit(f"planner check failed in {tree} (exit {p.returncode}): {p.stderr.decode()[-500:]}")
    return wall, cpu, p.returncode


def _stats(xs: list[float]) -> dict:
    return {"median": statistics.median(xs), "min": min(xs), "max": max(xs), "runs": xs}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", type=Path, help="an older tree (planner/ and models/) to compare with")
    ap.add_argument("--rounds", type=int, default=5, help="runs of each version and start (default 5)")
    ap.add_argument("--output", type=Path, default=DEFAULT_OUTPUT)
    args = ap.parse_args(argv)

    sys.path.insert(0, str(HERE))
    import bench_check as bc
    import yaml

    versions = {"after": ROOT} | ({"before": args.before.resolve()} if args.before else {})
    results: dict = {"load_before": os.getloadavg(), "rounds": args.rounds, "versions": {}}
    with tempfile.TemporaryDirectory(prefix="bench-cli-") as tmp:
        base = Path(tmp)
        scenario = base / "bench-2x100.yaml"
        data = bc.build_scenario()[0].model_dump(mode="json", by_alias=True, exclude_none=True)
        scenario.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
        size_kb = scenario.stat().st_size / 1024
        trees = {name: _copy_tree(src, base / name) for name, src in versions.items()}
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONDONTWRITEBYTECODE")}
        runs: dict[tuple[str, str], list[tuple[float, float]]] = {}
        for start in ("cold", "warm"):
            if start == "warm":  # one run that writes each copy's bytecode
                for tree in trees.values():
                    _one_run(tree, scenario, env)
            for _ in range(args.rounds):
                for name, tree in trees.items():
                    wall, cpu, _ = _one_run(tree, scenario, {**env, "PYTHONDONTWRITEBYTECODE": "1"})
                    runs.setdefault((name, start), []).append((wall, cpu))
        results["load_after"] = os.getloadavg()
    print(f"planner check of the bench_check table (2 x 100 models, {size_kb:.0f} KB of YAML) as a whole process")
    print(f"{'version':8s} {'start':5s} {'wall median':>12s} {'wall min':>9s} {'CPU median':>11s} {'CPU min':>8s}")
    for (name, start), xs in runs.items():
        walls, cpus = [w for w, _ in xs], [c for _, c in xs]
        results["versions"].setdefault(name, {})[start] = {"wall_s": _stats(walls), "cpu_s": _stats(cpus)}
        print(f"{name:8s} {start:5s} {statistics.median(walls):11.3f}s {min(walls):8.3f}s "
              f"{statistics.median(cpus):10.3f}s {min(cpus):7.3f}s")
    if "before" in versions:
        for start in ("cold", "warm"):
            a, b = results["versions"]["after"][start], results["versions"]["before"][start]
            print(f"after / before, {start}: wall {a['wall_s']['median'] / b['wall_s']['median']:.2f}, "
                  f"CPU {a['cpu_s']['median'] / b['cpu_s']['median']:.2f}")
    met = all(results["versions"]["after"][s]["wall_s"]["median"] < TARGET_S for s in ("cold", "warm"))
    results["target_s"] = TARGET_S
    results["target_met_wall_median"] = met
    print(f"target: under {TARGET_S:g} s of wall time: {'met' if met else 'NOT met'} (median, after, both starts); "
          f"load average {results['load_before'][0]:.2f} -> {results['load_after'][0]:.2f}")
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(results, indent=2), encoding="utf-8")
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
