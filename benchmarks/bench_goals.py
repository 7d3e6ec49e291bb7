"""Every goal on every bundled planning scenario (issue 18 item 2), at the default time limit.

A planning scenario is a bundled scenario (``scenarios/``, ``scenarios/wh40k/``, its layouts)
with a unit marked ``place: true``. Each goal kind is tried alone, with parameters read from the
scenario (:func:`goal_for`: the table centre, the first objective, the first enemy or friendly unit
on the table, an area feature, an enemy Infiltrator not yet placed for ``deny``); a kind that does
not fit a scenario (no objective, no area feature, a 40k-only goal in a Horus Heresy scenario, ...)
is skipped and said so. Each plan runs with the planner's default settings and must end with a
stated status; a plan must pass the independent checker.

    .venv/bin/python benchmarks/bench_goals.py                  # the whole matrix
    .venv/bin/python benchmarks/bench_goals.py --kinds hidden,in_terrain --scenarios plan-ravenguard
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

KINDS = ["near_point", "near_objective", "near_enemy_unit", "hidden", "in_terrain", "control_objective",
         "near_friendly", "far_from_enemy", "objective", "cover", "stay_close", "deny"]


def planning_scenarios() -> list[Path]:
    """The bundled scenarios with a unit marked ``place: true`` (that are meant to be legal)."""
    import yaml

    out = []
    for p in sorted([*ROOT.glob("scenarios/*.yaml"), *ROOT.glob("scenarios/wh40k/*.yaml"),
                     *ROOT.glob("scenarios/wh40k/layouts/*.yaml")]):
        if p.stem.endswith("-illegal"):
            continue
        text = p.read_text(encoding="utf-8")
        if "place: true" not in text:  # cheap first: most layouts place nothing
            continue
        data = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
        if any(u.get("place") for a in data.get("armies", []) for u in a.get("units") or []) or any(
                (a.get("roster") or {}).get("place") for a in data.get("armies", [])):
            out.append(p)
    return out


def goal_for(world, kind: str) -> dict | None:
    """A goal of ``kind`` fitted to the scenario, or None where it does not fit."""
    placing = [u for u in world.units.values() if u.record.place and u.on_battlefield]
    if not placing:
        return None
    me = placing[0].player
    on_table = [u for u in world.units.values() if u.on_battlefield and u.is_positioned and not u.record.place]
    enemies = [u for u in on_table if u.player != me]
    friends = [u for u in on_table if u.player == me]
    objectives = list(world.scenario.objectives or [])
    forty_k = world.scenario.ruleset.startswith("wh40k")
    bf = world.scenario.battlefield
    if kind == "near_point":
        return {"kind": kind, "x": bf.width / 2, "y": bf.depth / 2}
    if kind in ("near_objective", "control_objective", "objective"):
        if not objectives or (kind == "objective" and not forty_k):
            return None
        return {"kind": kind, "objective": objectives[0].id}
    if kind in ("near_enemy_unit", "far_from_enemy"):
        return {"kind": kind, "unit": enemies[0].id} if enemies else None
    if kind == "cover":
        return {"kind": kind, "against": enemies[0].id} if forty_k and enemies else None
    if kind == "near_friendly":
        return {"kind": kind, "unit": friends[0].id} if friends else None
    if kind == "hidden":
        return {"kind": kind} if enemies else None
    if kind == "in_terrain":
        area = [t for t in world.scenario.terrain if t.kind.value == "area"]
        return {"kind": kind} if area else None
    if kind == "stay_close":
        return {"kind": kind} if all(u.is_positioned for u in placing) else None
    if kind == "deny":
        infiltrators = [u for u in world.units.values() if u.player != me and u.on_battlefield
                        and not u.is_positioned and u.method.value == "infiltrate"]
        return {"kind": kind, "enemy_unit": infiltrators[0].id} if infiltrators else None
    raise ValueError(kind)


def run_case(path: Path, kind: str, time_limit: float | None = None) -> dict:
    """Plan ``path`` with the one goal ``kind`` (default settings unless ``time_limit``)."""
    from planner.schema import Scenario
    from planner.solve.planner import SolverSettings, plan_deployment
    from planner.world import load_scenario

    world = load_scenario(path)
    goal = goal_for(world, kind)
    if goal is None:
        return {"scenario": path.name, "kind": kind, "status": "n/a"}
    world.scenario = Scenario.model_validate({**world.scenario.model_dump(mode="json", by_alias=True,
                                                                          exclude_none=True), "goals": [goal]})
    settings = SolverSettings() if time_limit is None else SolverSettings(time_limit_s=time_limit)
    t0 = time.monotonic()
    if kind == "deny":
        from planner.adversary.deny import DenySettings, deny

        r = deny(world, goal["enemy_unit"], DenySettings(time_limit_s=settings.time_limit_s))
        return {"scenario": path.name, "kind": kind, "status": r.status, "time_s": time.monotonic() - t0,
                "legal": r.legal, "limit_s": settings.time_limit_s, "message": r.message}
    res = plan_deployment(world, settings)
    return {"scenario": path.name, "kind": kind, "status": res.status, "time_s": time.monotonic() - t0,
            "legal": res.legal, "gap": res.gap, "limit_s": settings.time_limit_s, "message": res.message}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kinds", default=",".join(KINDS))
    ap.add_argument("--scenarios", default="", help="only scenarios whose file name contains one of these")
    ap.add_argument("--output", type=Path, default=ROOT / "benchmarks" / "results" / "goals.json")
    args = ap.parse_args(argv)
    pick = [s for s in args.scenarios.split(",") if s]
    rows = []
    load0 = os.getloadavg()
    for path in planning_scenarios():
        if pick and not any(s in path.name for s in pick):
            continue
        for kind in args.kinds.split(","):
            r = run_case(path, kind)
            rows.append(r)
            if r["status"] != "n/a":
                gap = "" if r.get("gap") is None else f" gap {r['gap']:.1%}"
                print(f"{path.name:48} {kind:18} {r['status']:9} {r['time_s']:6.1f} s  legal {r['legal']}{gap}",
                      flush=True)
    load1 = os.getloadavg()
    print(f"load average before {load0[0]:.2f}, after {load1[0]:.2f}")
    bad = [r for r in rows if r["status"] not in ("n/a", "optimal", "feasible") or r.get("legal") is False]
    print(f"{len([r for r in rows if r['status'] != 'n/a'])} plans, {len(bad)} without a legal plan")
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps({"rows": rows, "load_average": [load0, load1]}, indent=1))
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
