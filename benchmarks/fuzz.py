"""Fuzz the whole command line: N generated and mutated inputs, counts by outcome.

Run on demand (it is not part of the test suite)::

    .venv/bin/python benchmarks/fuzz.py [--count N] [--seed S] [--workers W] [--time-limit T]
                                        [--plan-time-limit T] [--memory-mb M] [--output PATH]
    .venv/bin/python benchmarks/fuzz.py --replay I [--seed S]     # run case I here and show it

Each input is a case of :mod:`tests.fuzzing` (structure-aware mutations of the bundled scenarios,
byte-level mutations of YAML and roster XML; commands load, check, plan, render, threats,
deepstrike, import-roster), case ``i`` drawn from ``random.Random(f"{seed}:{i}")`` so that a
failure can be replayed. Cases run in worker processes; the supervisor kills a worker whose case
runs past its time limit (``over time``) or whose resident memory passes ``--memory-mb``
(``over memory``; the worker's data segment is also limited to that much above its size at
start, and a MemoryError counts the same), and starts a new one. Outcomes: ok, exit 1, exit 2,
exit 3, internal error (exit 4, an exception that escaped, or a worker that died), bad output (a
plan written with exit 0 that fails the checker, a picture that is not well-formed SVG, a JSON
file that is not JSON), over time, over memory.

Prints the counts (all commands, then per command) and the first failures with their case
numbers, and writes the figures as JSON (default ``benchmarks/results/fuzz.json``).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import platform
import random
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

OUTCOMES = ("ok", "exit 1", "exit 2", "exit 3", "internal error", "bad output", "over time", "over memory")
FAILURES = ("internal error", "bad output", "over time", "over memory")


def case_rng(seed: int, i: int) -> random.Random:
    return random.Random(f"{seed}:{i}")


def _rss_mb(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def _vm_data_bytes() -> int:
    with open("/proc/self/status", encoding="ascii") as fh:
        for line in fh:
            if line.startswith("VmData:"):
                return int(line.split()[1]) * 1024
    raise OSError("no VmData")


def _worker(conn, seed: int, memory_mb: int) -> None:
    """Run cases sent by the supervisor, one at a time, in this process."""
    import resource
    import warnings

    warnings.filterwarnings("ignore")
    os.environ.setdefault("PLANNER_READ_TIMEOUT", "5")
    import planner.cli  # noqa: F401 - import before measuring the start size
    from tests.fuzzing import make_case, run_case

    try:
        base = _vm_data_bytes()
        limit = base + memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_DATA, (limit, limit))
    except (ValueError, OSError):
        pass
    conn.send(("ready", None, None, None))
    while True:
        msg = conn.recv()
        if msg is None:
            return
        i = msg
        case = make_case(case_rng(seed, i))
        t = time.perf_counter()
        with tempfile.TemporaryDirectory(prefix="planner-fuzz-") as d:
            try:
                outcome, detail = run_case(case, Path(d))
            except MemoryError:
                outcome, detail = "over memory", "MemoryError"
        if outcome == "internal error" and "MemoryError" in detail:
            outcome = "over memory"
        conn.send((i, outcome, f"{case.command} [{case.note}] {' '.join(case.args)[:200]}\n{detail}",
                   time.perf_counter() - t))


class Slot:
    """One worker process and the case it runs."""

    def __init__(self, ctx, seed: int, memory_mb: int):
        self.parent, child = ctx.Pipe()
        self.proc = ctx.Process(target=_worker, args=(child, seed, memory_mb), daemon=True)
        self.proc.start()
        child.close()
        self.case: int | None = None
        self.command = ""
        self.started = 0.0
        self.ready = False

    def kill(self) -> None:
        try:
            self.proc.kill()
        except OSError:
            pass
        self.proc.join(5)
        self.parent.close()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--count", type=int, default=10_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--time-limit", type=float, default=10.0, help="seconds per case (plan: --plan-time-limit)")
    ap.add_argument("--plan-time-limit", type=float, default=20.0, help="seconds per plan case (it solves for 1 s)")
    ap.add_argument("--memory-mb", type=int, default=2048)
    ap.add_argument("--show", type=int, default=10, help="failures to print in full")
    ap.add_argument("--output", default=str(ROOT / "benchmarks" / "results" / "fuzz.json"))
    ap.add_argument("--replay", type=int, default=None, help="run case I in this process and print it")
    a = ap.parse_args()

    from tests.fuzzing import make_case

    if a.replay is not None:
        from tests.fuzzing import run_case

        case = make_case(case_rng(a.seed, a.replay))
        print(f"case {a.replay}: {case.command} [{case.note}] {case.args}")
        with tempfile.TemporaryDirectory(prefix="planner-fuzz-") as d:
            t = time.perf_counter()
            outcome, detail = run_case(case, Path(d))
            print(f"{outcome} in {time.perf_counter() - t:.2f} s\n{detail}")
        return 0

    commands = {i: make_case(case_rng(a.seed, i)).command for i in range(a.count)}
    ctx = mp.get_context("fork")
    slots = [Slot(ctx, a.seed, a.memory_mb) for _ in range(max(1, a.workers))]
    todo = list(range(a.count))[::-1]
    counts: Counter = Counter()
    by_command: dict[str, Counter] = {}
    failures: list[tuple[int, str, str]] = []
    seconds: dict[str, list[float]] = {}
    t0 = time.perf_counter()
    done = 0

    def record(i: int, outcome: str, detail: str, dt: float | None) -> None:
        nonlocal done
        done += 1
        counts[outcome] += 1
        cmd = commands[i]
        by_command.setdefault(cmd, Counter())[outcome] += 1
        if dt is not None:
            seconds.setdefault(cmd, []).append(dt)
        if outcome in FAILURES:
            failures.append((i, outcome, detail))
        if done % 250 == 0 or done == a.count:
            rate = done / (time.perf_counter() - t0)
            print(f"  {done}/{a.count} cases, {rate:.1f}/s; so far: "
                  + ", ".join(f"{k} {counts[k]}" for k in OUTCOMES if counts[k]), flush=True)

    while todo or any(s.case is not None for s in slots):
        for k, s in enumerate(slots):
            if s.case is None and s.ready and todo:
                s.case = todo.pop()
                s.command = commands[s.case]
                s.started = time.perf_counter()
                s.parent.send(s.case)
            try:
                has = s.parent.poll(0.02)
            except (OSError, EOFError):
                has = False
            if has:
                try:
                    i, outcome, detail, dt = s.parent.recv()
                except (EOFError, OSError):
                    i, outcome, detail, dt = s.case, "internal error", f"the worker died (exit {s.proc.exitcode})", None
                if i == "ready":
                    s.ready = True
                    continue
                if i is not None:
                    record(i, outcome, detail, dt)
                s.case = None
                if outcome == "internal error" and dt is None:
                    s.kill()
                    slots[k] = Slot(ctx, a.seed, a.memory_mb)
                continue
            if s.case is None:
                if not s.proc.is_alive():
                    s.kill()
                    slots[k] = Slot(ctx, a.seed, a.memory_mb)
                continue
            limit = a.plan_time_limit if s.command == "plan" else a.time_limit
            over = None
            if time.perf_counter() - s.started > limit:
                over = ("over time", f"{s.command}: still running after {limit:g} s")
            elif _rss_mb(s.proc.pid) > a.memory_mb:
                over = ("over memory", f"{s.command}: resident memory past {a.memory_mb} MB")
            elif not s.proc.is_alive():
                over = ("internal error", f"{s.command}: the worker died (exit {s.proc.exitcode})")
            if over is not None:
                record(s.case, over[0], over[1], None)
                s.kill()
                slots[k] = Slot(ctx, a.seed, a.memory_mb)
    for s in slots:
        try:
            s.parent.send(None)
        except OSError:
            pass
        s.proc.join(5)
    wall = time.perf_counter() - t0

    print(f"\nfuzz: {a.count} cases, seed {a.seed}, {a.workers} worker(s), limits {a.time_limit:g} s "
          f"(plan {a.plan_time_limit:g} s) and {a.memory_mb} MB per case, {wall:.0f} s")
    print(f"{'command':<14}" + "".join(f"{k:>15}" for k in OUTCOMES))
    for cmd in sorted(by_command):
        print(f"{cmd:<14}" + "".join(f"{by_command[cmd][k]:>15}" for k in OUTCOMES))
    print(f"{'all':<14}" + "".join(f"{counts[k]:>15}" for k in OUTCOMES))
    for i, outcome, detail in failures[: a.show]:
        print(f"\n--- case {i}: {outcome} (replay: benchmarks/fuzz.py --replay {i} --seed {a.seed})\n{detail[-2000:]}")
    result = {
        "count": a.count, "seed": a.seed, "workers": a.workers, "time_limit_s": a.time_limit,
        "plan_time_limit_s": a.plan_time_limit, "memory_mb": a.memory_mb, "wall_s": round(wall, 1),
        "counts": {k: counts[k] for k in OUTCOMES},
        "by_command": {c: {k: v[k] for k in OUTCOMES} for c, v in sorted(by_command.items())},
        "median_s": {c: round(sorted(v)[len(v) // 2], 3) for c, v in sorted(seconds.items()) if v},
        "failures": [{"case": i, "outcome": o, "detail": d[-1000:]} for i, o, d in failures[:50]],
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count()},
    }
    Path(a.output).parent.mkdir(parents=True, exist_ok=True)
    Path(a.output).write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"\nwrote {a.output}")
    return 1 if any(counts[k] for k in FAILURES) else 0


if __name__ == "__main__":
    sys.exit(main())
