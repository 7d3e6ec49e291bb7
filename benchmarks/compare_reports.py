"""Are the check reports of this tree the same as another version's? (issue 18: a faster check
must say the same things.)

Run on demand (it is not part of the test suite)::

    .venv/bin/python benchmarks/compare_reports.py --before main [--mutations 12] [FILE ...]

Two kinds of checks, each run by both versions (``PYTHONPATH`` = the tree), compared byte for byte:

* ``planner check FILE --json OUT`` as a process, for every ``*.yaml`` under ``scenarios/`` and
  ``tests/`` and every ``FILE`` given (a folder: its ``*.yaml``, recursively): the exit code,
  the standard output and error, and the JSON report;
* ``check_deployment(world).model_dump_json()`` in one process per version for the four
  scenes of ``bench_scaling.py`` (2 x 50 .. 2 x 400), ``bench_check.py``'s scene for seeds
  1-3, and ``--mutations`` mutations of each tiled scene (2 x 100, 2 x 200, 2 x 400; seeded:
  every Infiltrate model moved up to 6" in x and y, every third scene without 40% of its
  terrain), so that seen Infiltrators, overlaps and other blockers are reported too.

``--before`` is a tree holding ``planner/`` and ``models/`` or a git revision of this
repository (archived into a temporary folder). It prints one line per difference and a
summary (how many reports, how many legal, how many identical) and exits 1 if any differs.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
TILED = (100, 200, 400)


def yaml_files(extra: list[str]) -> list[Path]:
    """The scenario files compared: ``scenarios/`` and ``tests/`` of this tree, then ``extra``."""
    out = sorted((ROOT / "scenarios").rglob("*.yaml")) + sorted((ROOT / "tests").rglob("*.yaml"))
    for e in extra:
        p = Path(e)
        out += sorted(p.rglob("*.yaml")) if p.is_dir() else [p]
    return [p.resolve() for p in out]


def mutated(data: dict, rng: random.Random, drop_terrain: bool) -> dict:
    """``data`` (a scenario dict) with every Infiltrate model moved up to 6" in x and y (kept on
    the table) and, with ``drop_terrain``, 40% of the terrain left out."""
    d = json.loads(json.dumps(data))
    width, depth = d["battlefield"]["width"], d["battlefield"]["depth"]
    for army in d["armies"]:
        for u in army["units"]:
            if u.get("setup", {}).get("method") != "infiltrate":
                continue
            dx, dy = rng.uniform(-6, 6), rng.uniform(-6, 6)
            for m in u["models"]:
                m["x"] = round(min(max(m["x"] + dx, 1.0), width - 1.0), 4)
                m["y"] = round(min(max(m["y"] + dy, 1.0), depth - 1.0), 4)
    if drop_terrain:
        d["terrain"] = [t for t in d["terrain"] if rng.random() >= 0.4]
    return d


def worker(mutations: int) -> dict[str, str]:
    """The report digests of the in-process scenes (whatever ``planner`` imports)."""
    sys.path.insert(0, str(HERE))
    import bench_check as bc
    import bench_scaling as bs

    from planner.legality.checker import check_deployment
    from planner.schema import Scenario
    from planner.world import resolve

    scenes: dict[str, dict] = {f"scaling 2 x {n}": bs.scene(n) for n in bs.SIZES}
    for seed in (1, 2, 3):
        scenes[f"bench_check seed {seed}"] = bc.build_scenario(seed)[0].model_dump(mode="json", by_alias=True,
                                                                                  exclude_none=True)
    rng = random.Random(20261202)
    for n in TILED:
        base = bs.scene(n)
        for k in range(mutations):
            scenes[f"scaling 2 x {n} mutation {k}"] = mutated(base, rng, k % 3 == 2)
    out = {}
    for name, data in scenes.items():
        world = resolve(Scenario.model_validate(data), f"<{name}>", require_positions=True)
        text = check_deployment(world).model_dump_json()
        legal = json.loads(text)["legal"]
        out[name] = f"{'legal' if legal else 'illegal'} {hashlib.sha256(text.encode()).hexdigest()[:16]}"
    return out


def cli_run(tree: Path, path: Path, tmp: Path) -> str:
    """``planner check PATH --json OUT`` with ``tree`` first on the path: a digest of the exit
    code, standard output and error (the temporary report path replaced) and the report."""
    out = tmp / "report.json"
    out.unlink(missing_ok=True)
    env = dict(os.environ, PYTHONPATH=str(tree))
    res = subprocess.run([sys.executable, "-m", "planner", "check", str(path), "--json", str(out)], env=env,
                         capture_output=True, text=True, check=False, cwd=str(tmp))
    report = out.read_text() if out.exists() else ""
    blob = json.dumps([res.returncode, res.stdout.replace(str(out), "OUT"), res.stderr.replace(str(out), "OUT"),
                       report])
    return f"exit {res.returncode} {hashlib.sha256(blob.encode()).hexdigest()[:16]}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="*", help="more scenario files or folders for planner check")
    ap.add_argument("--before", required=False, help="a tree holding planner/ and models/, or a git revision")
    ap.add_argument("--mutations", type=int, default=12, help="mutations of each tiled scene (default 12)")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(args.mutations)))
        return 0
    if not args.before:
        ap.error("--before is required")
    sys.path.insert(0, str(HERE))
    from bench_scaling import before_tree

    keep: list[tempfile.TemporaryDirectory] = []
    trees = {"before": before_tree(args.before, keep), "after": ROOT}
    digests: dict[str, dict[str, str]] = {v: {} for v in trees}
    with tempfile.TemporaryDirectory(prefix="compare-reports-") as tmp:
        for path in yaml_files(args.files):
            for v, tree in trees.items():
                digests[v][str(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)] = \
                    cli_run(tree, path, Path(tmp))
    for v, tree in trees.items():
        cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", "--mutations", str(args.mutations)]
        res = subprocess.run(cmd, env=dict(os.environ, PYTHONPATH=str(tree)), capture_output=True, text=True,
                             check=False, cwd=str(tree))
        if res.returncode != 0:
            raise SystemExit(f"worker on {tree} failed:\n{res.stderr}")
        digests[v].update(json.loads(res.stdout))
    names = list(digests["after"])
    differ = [n for n in names if digests["before"].get(n) != digests["after"][n]]
    for n in differ:
        print(f"DIFFERS {n}: before {digests['before'].get(n)}, after {digests['after'][n]}")
    cli = [n for n in names if not n.startswith(("scaling", "bench_check"))]
    legal = sum(1 for n in names if digests["after"][n].startswith(("legal", "exit 0")))
    print(f"{len(names)} reports ({len(cli)} planner check processes, {len(names) - len(cli)} in process), "
          f"{legal} legal (exit 0); identical: {len(names) - len(differ)} of {len(names)}")
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
