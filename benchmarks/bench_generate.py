"""Benchmark: labelled legality scenarios per second, on one worker process and on two.

Run on demand (not part of the test suite)::

    .venv/bin/python benchmarks/bench_generate.py [--count 600] [--seed 1] [--params FILE] [--output PATH]

Measures, in one run, with the default generator parameters (``GeneratorParams()``):

- **1 worker**: ``planner generate``'s local engine in this process; lines per second of wall time;
- **2 workers**: the local engine with two worker processes (spawned); wall time including the
  worker start-up, and the rate after the first 10% of lines (steady state);
- **scaling**: rate(2) / rate(1);
- **per CPU-second**: lines / CPU seconds used (this process, and the worker processes once they
  have ended): the per-core rate on a machine shared with other work;
- **baseline**: the labelling floor, measured on the same scenarios: validating, resolving and
  checking each line's scenario with ``check_deployment`` (what labelling cannot avoid), per second.

It asserts that both runs wrote the same bytes. Issue 18's target (item 4): at least 200 labelled
legality scenarios per second per core (issue 9's was 50). Wall times depend on the machine and its load: read the ratios.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import time
from pathlib import Path

from planner.cli.generate import load_params
from planner.generate.distributions import GeneratorParams
from planner.generate.engine import Job, run

TARGET_PER_CORE = 200.0
"""Issue 18, item 4: legality labels per second per core."""


def cpu_seconds() -> float:
    """CPU time of this process and of its finished children (the worker processes), seconds."""
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def timed(job: Job, count: int, workers: int) -> tuple[list[str], float, float, float]:
    """Lines, total wall seconds, steady rate (lines/s after the first 10%), CPU seconds."""
    c0 = cpu_seconds()
    t0 = time.perf_counter()
    lines: list[str] = []
    mark = None
    skip = max(1, count // 10)
    for line in run(job, 0, count, workers):
        lines.append(line)
        if len(lines) == skip:
            mark = time.perf_counter()
    t1 = time.perf_counter()
    steady = (count - skip) / (t1 - mark) if mark is not None and t1 > mark else float("nan")
    return lines, t1 - t0, steady, cpu_seconds() - c0


def baseline(lines: list[str]) -> tuple[float, float]:
    """Scenarios per second (wall, CPU) for the checker alone (validate + resolve + check) on these lines."""
    from planner.legality.checker import check_deployment
    from planner.schema import Scenario
    from planner.world import resolve

    datas = []
    for ln in lines:
        d = json.loads(ln)
        d.pop("label")
        datas.append(d)
    c0 = time.process_time()
    t0 = time.perf_counter()
    for d in datas:
        check_deployment(resolve(Scenario.model_validate(d), require_positions=True))
    return len(datas) / (time.perf_counter() - t0), len(datas) / (time.process_time() - c0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--count", type=int, default=600)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--params", default=None, help="YAML/JSON generator parameters (default: the defaults)")
    ap.add_argument("--output", default="benchmarks/results/generate.json")
    a = ap.parse_args()

    params = load_params(a.params) if a.params else GeneratorParams()
    job = Job(a.seed, ("legality",), None, params.model_dump(mode="json"))
    # warm up imports and the catalogue in this process (the 2-worker run pays its own start-up)
    list(run(job, 0, 2, 1))
    load0 = os.getloadavg()
    one, t1, s1, c1 = timed(job, a.count, 1)
    two, t2, s2, c2 = timed(job, a.count, 2)
    assert one == two, "1 and 2 workers wrote different lines"
    base, cbase = baseline(one)
    r1, r2 = a.count / t1, a.count / t2
    res = {
        "count": a.count, "seed": a.seed, "params": a.params or "defaults",
        "one_worker": {"seconds": t1, "per_s": r1, "steady_per_s": s1, "cpu_seconds": c1, "per_cpu_s": a.count / c1},
        "two_workers": {"seconds": t2, "per_s": r2, "steady_per_s": s2, "cpu_seconds": c2,
                        "per_cpu_s": a.count / c2},
        "scaling_two_over_one": r2 / r1, "scaling_steady": s2 / s1,
        "baseline_check_only_per_s": base, "baseline_check_only_per_cpu_s": cbase,
        "generate_over_check_only": r1 / base,
        "target_per_core": TARGET_PER_CORE, "target_met_one_core": r1 >= TARGET_PER_CORE,
        "target_met_per_cpu_s": a.count / c1 >= TARGET_PER_CORE,
        "load_avg_before": load0,
        "legal_share": sum(json.loads(ln)["label"]["legal"] for ln in one) / len(one),
        "environment": {"python": platform.python_version(), "platform": platform.platform(),
                        "cpus": os.cpu_count(), "load_avg": os.getloadavg()},
    }
    try:
        res["git_commit"] = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                                           text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        pass
    print(f"legality scenarios, {a.count} lines, seed {a.seed}, parameters {a.params or 'default'}")
    print(f"  1 worker : {r1:7.1f} /s wall ({t1:.1f} s; steady {s1:.1f} /s); {a.count / c1:.1f} per CPU-second")
    print(f"  2 workers: {r2:7.1f} /s wall ({t2:.1f} s with start-up; steady {s2:.1f} /s); "
          f"{a.count / c2:.1f} per CPU-second")
    print(f"  scaling 2/1: {r2 / r1:.2f} (steady {s2 / s1:.2f})")
    print(f"  baseline, checker alone on the same scenarios: {base:.1f} /s wall, {cbase:.1f} per CPU-second; "
          f"generate / baseline = {r1 / base:.2f}")
    print(f"  target >= {TARGET_PER_CORE:g} /s per core (issue 18): {'met' if r1 >= TARGET_PER_CORE else 'NOT met'} "
          f"(wall), {'met' if a.count / c1 >= TARGET_PER_CORE else 'NOT met'} (per CPU-second)")
    print(f"  load average before {load0}, after {os.getloadavg()} on {os.cpu_count()} CPUs")
    Path(a.output).parent.mkdir(parents=True, exist_ok=True)
    Path(a.output).write_text(json.dumps(res, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
