"""Benchmark: denial (screening) of one enemy Infiltrate unit by 8 of my units, against a greedy
screen measured in the same run (issue #7).

Run on demand (not part of the test suite)::

    .venv/bin/python benchmarks/bench_adversary.py [--time-limit 120] [--workers 2] [--output PATH]

Scenario (built in code, deterministic): Horus Heresy 2.0, 72" x 48", long-edge zones 12" deep
(mine south, the enemy's north), 12 terrain features (solid bastions and walls, area ruins and
woods, an impassable reactor). The enemy has 2 units deployed in its zone and one 5-model
Infiltrate unit (32 mm) that arrives after my set-up. I place 8 units: six 5-model squads (32 mm),
a 3-model unit on 40 mm bases and a 5-model Infiltrate squad (32 mm). Candidates on a 3" grid,
enemy anchors on a 2" grid (2 formations per anchor).

Reported: time to the proven denial optimum (or the gap at the limit), the legal area left, the
area before my set-up, and the greedy baseline (biggest units first, each at its best candidate
judged exactly) with its time and area. Every placement is re-checked by the checker.
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path

from planner.adversary.deny import DenySettings, deny
from planner.schema import Scenario
from planner.world import resolve


def _m(d=32, x=None, y=None):
    m = {"base": {"diameter_mm": d}}
    if x is not None:
        m.update(x=x, y=y)
    return m


def scenario() -> dict:
    def rect(x0, y0, x1, y1):
        return [[x0, y0], [x1, y0], [x1, y1], [x0, y1]]

    terrain = [
        {"id": "bastion-w", "kind": "solid", "traits": ["blocks_line_of_sight"], "footprint": rect(10, 20, 16, 25)},
        {"id": "bastion-e", "kind": "solid", "traits": ["blocks_line_of_sight"], "footprint": rect(56, 22, 62, 27)},
        {"id": "ruin-c", "kind": "area", "traits": ["blocks_line_of_sight", "difficult"],
         "footprint": [[30, 20], [38, 19], [40, 25], [33, 27]]},
        {"id": "ruin-nw", "kind": "area", "traits": ["blocks_line_of_sight"], "footprint": rect(20, 30, 26, 35)},
        {"id": "woods-ne", "kind": "area", "traits": ["blocks_line_of_sight", "difficult"],
         "footprint": [[46, 30], [52, 29], [54, 34], [48, 36]]},
        {"id": "wall-sw", "kind": "solid", "traits": ["blocks_line_of_sight"], "footprint": rect(18, 15, 26, 15.8)},
        {"id": "wall-se", "kind": "solid", "traits": ["blocks_line_of_sight"], "footprint": rect(44, 16, 52, 16.8)},
        {"id": "reactor", "kind": "solid", "traits": ["blocks_line_of_sight", "impassable"],
         "footprint": rect(4, 30, 8, 34)},
        {"id": "crater", "kind": "open", "traits": ["difficult"], "footprint": rect(64, 14, 68, 18)},
        {"id": "bunker-s", "kind": "solid", "traits": ["blocks_line_of_sight"], "footprint": rect(34, 5, 38, 8)},
        {"id": "ruin-s", "kind": "area", "traits": ["blocks_line_of_sight"], "footprint": rect(60, 3, 65, 8)},
        {"id": "bunker-n", "kind": "solid", "traits": ["blocks_line_of_sight"], "footprint": rect(30, 40, 36, 43)},
    ]
    squad = [_m() for _ in range(5)]
    mine = [{"id": f"sq{i}", "type": "Infantry", "place": True, "models": [dict(m) for m in squad]} for i in range(6)]
    mine.append({"id": "terminators", "type": "Infantry", "place": True, "models": [_m(40) for _ in range(3)]})
    mine.append({"id": "scouts", "type": "Infantry", "rules": ["Infiltrate"], "setup": "infiltrate", "place": True,
                 "models": [_m() for _ in range(5)]})
    enemy = [
        {"id": "en-tac", "type": "Infantry", "models": [_m(32, 20 + 1.5 * i, 42) for i in range(5)]},
        {"id": "en-hvy", "type": "Infantry", "models": [_m(40, 50 + 2 * i, 44) for i in range(3)]},
        {"id": "en-inf", "type": "Infantry", "rules": ["Infiltrate"], "setup": "reserves",
         "models": [_m() for _ in range(5)]},
    ]
    return {
        "ruleset": "hh2",
        "name": "bench: 8 units screen one Infiltrator",
        "battlefield": {"width": 72, "depth": 48},
        "terrain": terrain,
        "deployment_zones": [
            {"id": "south", "player": "me", "polygon": rect(0, 0, 72, 12)},
            {"id": "north", "player": "enemy", "polygon": rect(0, 36, 72, 48)},
        ],
        "armies": [{"player": "me", "units": mine}, {"player": "enemy", "units": enemy}],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--time-limit", type=float, default=120.0)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--grid", type=float, default=3.0, help="my candidate grid, inches")
    ap.add_argument("--enemy-grid", type=float, default=2.0)
    ap.add_argument("--candidates", type=int, default=120, help="candidates per unit of mine")
    ap.add_argument("--output", default="benchmarks/results/adversary.json")
    a = ap.parse_args()
    data = scenario()
    world = resolve(Scenario.model_validate(data))
    world.raw = data
    assert len(data["terrain"]) == 12 and sum(u.get("place", False) for u in data["armies"][0]["units"]) == 8
    settings = DenySettings(time_limit_s=a.time_limit, workers=a.workers, seed=0, grid_in=a.grid,
                            enemy_grid_in=a.enemy_grid, candidates_per_unit=a.candidates)
    t0 = time.perf_counter()
    r = deny(world, "en-inf", settings)
    wall = time.perf_counter() - t0
    assert r.legal, "the denial plan must pass the checker"
    assert r.enemy_best is None or r.enemy_best.legal, "the enemy's reply must pass the checker"
    out = {
        "status": r.status, "message": r.message, "time_to_result_s": round(wall, 2),
        "model_build_s": round(r.build_time_s, 2), "iterations": r.iterations,
        "exact_sight_pairs": r.exact_sight_pairs,
        "area_before_sq_in": r.area_before_sq_in, "area_left_sq_in": r.area_sq_in,
        "area_lower_bound_sq_in": r.area_bound_sq_in,
        "greedy_area_sq_in": r.greedy_area_sq_in, "greedy_time_s": round(r.greedy_time_s or 0, 2),
        "placements": [p.model_dump() for p in r.placements],
        "settings": {"workers": a.workers, "grid_in": a.grid, "enemy_grid_in": a.enemy_grid,
                     "candidates_per_unit": a.candidates, "time_limit_s": a.time_limit},
        "machine": platform.platform(), "python": platform.python_version(),
    }
    print(json.dumps({k: v for k, v in out.items() if k != "placements"}, indent=2))
    Path(a.output).parent.mkdir(parents=True, exist_ok=True)
    Path(a.output).write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
