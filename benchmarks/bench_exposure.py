"""Benchmark: the first-turn exposure of a 2 x 15 unit Horus Heresy 2.0 scene (issue 20 item 3).

Run on demand (it is not part of the test suite)::

    .venv/bin/python benchmarks/bench_exposure.py [--repeat N] [--seed S] [--output PATH]

It builds a fixed-seed scene (72" x 48", long-edge zones 12" deep, 6 terrain features: 4 blocking
ruins and 2 solid bunkers in no man's land, one of them impassable; 15 units of 5 models a side on
32 mm bases, every unit with a profile: M 7, BS 4, T 4, W 1, Sv 3+ or 4+ and a bolter, a heavy
bolter or a plasma gun), then times, interleaved, one of each per repeat:

* ``exposure(world, "loyalists")``: the whole report, with its volley cache (the same attacker
  profile x target profile x modifiers computed once), and
* the naive baseline in the same run: the same report without the cache (every volley of every
  attacker x target x mode computed afresh) and with one sight test per move of the lattice
  instead of the batched calls (the moves straight at the target first, then the rest at once).

The target is under 1 s. It prints the medians, the ratio and the load average, checks that both
give the same figures, and writes them as JSON to ``benchmarks/results/exposure.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from planner.combat.exposure import exposure  # noqa: E402
from planner.schema import Scenario  # noqa: E402
from planner.world import World, resolve  # noqa: E402

TARGET_S = 1.0
DEFAULT_SEED = 20_261_201
DEFAULT_OUTPUT = HERE / "results" / "exposure.json"
A, B = "loyalists", "traitors"
MARINE = {"m": 7, "ws": 4, "bs": 4, "s": 4, "t": 4, "w": 1, "i": 4, "a": 1, "ld": 8, "sv": 3}
WEAPONS = [
    {"name": "Bolter", "range_in": 24, "s": 4, "ap": 5, "type": "Rapid Fire", "shots": 1},
    {"name": "Heavy bolter", "range_in": 36, "s": 5, "ap": 4, "type": "Heavy", "shots": 3},
    {"name": "Plasma gun", "range_in": 24, "s": 7, "ap": 2, "type": "Rapid Fire", "shots": 1},
]


def scene(seed: int) -> World:
    """The benchmark scene (a pure function of ``seed``)."""
    rng = random.Random(seed)
    terrain = []
    for k, (x, y) in enumerate([(14, 24), (30, 20), (44, 28), (58, 22)]):
        terrain.append({"id": f"ruin-{k}", "kind": "area", "traits": ["blocks_line_of_sight", "difficult"],
                        "footprint": [[x - 3, y - 2.5], [x + 3, y - 2.5], [x + 3, y + 2.5], [x - 3, y + 2.5]]})
    terrain.append({"id": "bunker", "kind": "solid", "traits": ["blocks_line_of_sight"],
                    "footprint": [[22, 26], [26, 26], [26, 30], [22, 30]]})
    terrain.append({"id": "reactor", "kind": "solid", "traits": ["blocks_line_of_sight", "impassable"],
                    "footprint": [[49, 16], [53, 16], [53, 19], [49, 19]]})
    armies = []
    for player, y0, sv in ((A, 7.0, 3), (B, 41.0, 4)):
        units = []
        for i in range(15):
            col, row = i % 8, i // 8
            x0 = 4.5 + col * 9.0 + rng.uniform(-0.5, 0.5)
            y = y0 + (row * 3.5 if player == A else -row * 3.5) + rng.uniform(-0.3, 0.3)
            models = [{"base": {"diameter_mm": 32}, "x": round(x0 + 1.5 * j, 3), "y": round(y, 3)} for j in range(5)]
            units.append({"id": f"{player}-{i}", "type": "Infantry", "stats": {**MARINE, "sv": sv},
                          "weapons": [WEAPONS[i % 3]], "models": models})
        armies.append({"player": player, "units": units})
    data = {"ruleset": "hh2", "battlefield": {"width": 72, "depth": 48}, "terrain": terrain,
            "deployment_zones": [{"id": "south", "player": A, "polygon": [[0, 0], [72, 0], [72, 12], [0, 12]]},
                                 {"id": "north", "player": B, "polygon": [[0, 36], [72, 36], [72, 48], [0, 48]]}],
            "armies": armies}
    return resolve(Scenario.model_validate(data), require_positions=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED)
    ap.add_argument("--output", default=str(DEFAULT_OUTPUT))
    args = ap.parse_args(argv)
    world = scene(args.seed)
    load_before = os.getloadavg()
    fast, naive, fast_cpu, naive_cpu = [], [], [], []
    report = base = None
    for _ in range(args.repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        report = exposure(world, A)
        fast.append(time.perf_counter() - t0)
        fast_cpu.append(time.process_time() - c0)
        t0, c0 = time.perf_counter(), time.process_time()
        base = exposure(world, A, cache=False, batch=False)
        naive.append(time.perf_counter() - t0)
        naive_cpu.append(time.process_time() - c0)
    assert report is not None and base is not None
    assert abs(report.expected_models_lost - base.expected_models_lost) < 1e-9, "the cache changed the figures"
    load_after = os.getloadavg()
    med, med_naive = statistics.median(fast), statistics.median(naive)
    pairs = sum(1 for u in report.units for _ in u.can_shoot)
    out = {
        "scene": {"seed": args.seed, "units_per_side": 15, "models_per_unit": 5, "terrain": 6},
        "exposure_s": {"median": med, "all": fast, "cpu_median": statistics.median(fast_cpu)},
        "naive_s": {"median": med_naive, "all": naive, "cpu_median": statistics.median(naive_cpu)},
        "ratio_naive_over_exposure": med_naive / med if med else None, "target_s": TARGET_S,
        "met": med < TARGET_S, "pairs_that_can_shoot": pairs,
        "volleys": {"computed": report.volleys_computed, "from_cache": report.volleys_cached,
                    "naive_computed": base.volleys_computed},
        "expected_models_lost": report.expected_models_lost,
        "load_average": {"before": load_before, "after": load_after}, "cpus": os.cpu_count(),
        "python": platform.python_version(), "machine": platform.machine(),
    }
    print(f"exposure of 2 x 15 units: median {med:.3f} s (target {TARGET_S:g} s: {'met' if med < TARGET_S else 'NOT met'})")
    print(f"process (CPU) time: exposure {statistics.median(fast_cpu):.3f} s, naive {statistics.median(naive_cpu):.3f} s")
    print(f"naive baseline (no volley cache, one sight call per move): median {med_naive:.3f} s; ratio {med_naive / med:.2f}x")
    print(f"volleys computed {report.volleys_computed}, from the cache {report.volleys_cached} "
          f"(naive: {base.volleys_computed}); {pairs} attacker-target pairs can shoot; "
          f"expected models lost {report.expected_models_lost:.3f}")
    print(f"load average before {load_before[0]:.2f}, after {load_after[0]:.2f} ({os.cpu_count()} cpus)")
    Path(args.output).parent.mkdir(parents=True, exist_ok=True)
    Path(args.output).write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    return 0 if med < TARGET_S else 1


if __name__ == "__main__":
    raise SystemExit(main())
