"""Benchmark: ``check_deployment`` with 2.5D line of sight against the same scene with heights ignored.

Run on demand (it is not part of the test suite)::

    .venv/bin/python benchmarks/bench_heights.py [--repeat N] [--seed S] [--output PATH]
    .venv/bin/python benchmarks/bench_heights.py --layout [SCENARIO]   # an 11th-edition layout

It takes the fixed-seed table of ``bench_check.py`` (72" x 48", 2 x 100 models, 10 Infiltrate
units) and gives its terrain heights: every feature is cut into pieces (strips 4" wide), each with
its own height (ruins 3"-6", solid features 4"-7"), and every feature gets a wall along its
longest edge (2" high); the table then has 40+ pieces. The *flat* scene is the same scene with
every height removed (the pieces then block every line, as before heights existed). Both are
checked in the same run, alternately, ``--repeat`` times; the medians, their ratio (target: at
most 1.5) and the load average are printed and written as JSON to
``benchmarks/results/heights.json``. See ``benchmarks/README.md``.

``--layout`` takes a bundled 11th-edition layout scenario instead (default
``scenarios/wh40k/layouts/legal-take-vs-take-01.yaml``: 44 pieces and 28 walls converted from the
``wh40kdc`` package, ruins with floors and walls, obscuring areas) and fills each player's
deployment zone with 5-model units until each side has 100 models (rows 1.4" apart, models 1.6"
apart in a row, skipping points within 0.7" of terrain): the issue's "check on an 11th-edition layout (its 40+ pieces with heights)
with 2 x 100 models".
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

from shapely import clip_by_rect
from shapely.geometry import LineString, Polygon

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_check import DEFAULT_SEED, build_scenario  # noqa: E402

from planner.legality.checker import check_deployment  # noqa: E402
from planner.schema import Scenario  # noqa: E402
from planner.world import resolve  # noqa: E402

TARGET_RATIO = 1.5
STRIP_IN = 4.0
DEFAULT_OUTPUT = HERE / "results" / "heights.json"


def _pieces(footprint: list, solid: bool, k: int) -> list[dict]:
    """The footprint cut into strips ``STRIP_IN`` wide, each with a height."""
    poly = Polygon(footprint)
    minx, miny, maxx, maxy = poly.bounds
    out = []
    x = minx
    i = 0
    while x < maxx - 1e-9:
        part = clip_by_rect(poly, x, miny, min(x + STRIP_IN, maxx), maxy)
        for g in getattr(part, "geoms", [part]):
            if isinstance(g, Polygon) and g.area > 0.05:
                ring = [list(map(float, c)) for c in g.exterior.coords[:-1]]
                h = (4.0 + (i + k) % 4) if solid else (3.0 + (i + k) % 4)
                out.append({"footprint": ring, "height_in": h})
                i += 1
        x += STRIP_IN
    return out


def _longest_edge_wall(footprint: list) -> dict:
    pts = [tuple(p) for p in footprint]
    edges = list(zip(pts, pts[1:] + pts[:1], strict=True))
    a, b = max(edges, key=lambda e: LineString(e).length)
    return {"points": [list(a), list(b)], "thickness_in": 0.25, "height_in": 2.0}


def scenes(seed: int) -> tuple[Scenario, Scenario, int]:
    """(scene with heights, the same scene flat, number of pieces and walls with a height)."""
    base, _ = build_scenario(seed)
    data = base.model_dump(mode="json", by_alias=True, exclude_none=True)
    n = 0
    for k, t in enumerate(data["terrain"]):
        fp = t.pop("footprint")
        t["pieces"] = _pieces(fp, t.get("kind") == "solid", k)
        t["walls"] = [_longest_edge_wall(fp)]
        n += len(t["pieces"]) + 1
    tall = Scenario.model_validate(data)
    for t in data["terrain"]:
        for p in t["pieces"]:
            p.pop("height_in")
        for w in t["walls"]:
            w.pop("height_in")
    flat = Scenario.model_validate(data)
    return tall, flat, n


LAYOUT_SCENARIO = HERE.parent / "scenarios" / "wh40k" / "layouts" / "legal-take-vs-take-01.yaml"
PROFILES = ("sm-intercessor", "necron-warrior")


def layout_scenes(path: Path, per_side: int = 100) -> tuple[Scenario, Scenario, int]:
    """(the layout scene with 2 x ``per_side`` models, the same scene flat, pieces and walls with a
    height). Units of 5 models in a row 1.6" apart (32 mm bases: in coherency), rows 1.4" apart,
    inside the player's zone and more than 0.7" from every terrain piece."""
    from shapely import union_all
    from shapely.geometry import Point

    from planner.io.files import read_data

    data = read_data(path)
    terrain = union_all([Polygon(p["footprint"]) for t in data["terrain"]
                         for p in ([{"footprint": t["footprint"]}] if t.get("footprint") else []) + t.get("pieces", [])])
    armies = []
    for k, zone in enumerate(data["deployment_zones"][:2]):
        poly = Polygon(zone["polygon"])
        x0, y0, x1, y1 = poly.bounds
        units, y = [], y0 + 1.0
        while y < y1 - 1.0 and len(units) * 5 < per_side:
            x = x0 + 1.0
            while x + 6.4 < x1 - 1.0 and len(units) * 5 < per_side:
                row = [(x + 1.6 * i, y) for i in range(5)]
                if all(poly.buffer(-0.65).contains(Point(p)) and terrain.distance(Point(p)) > 0.7 for p in row):
                    n = len(units)
                    units.append({"id": f"{zone['player']}-u{n}", "setup": "deployment_zone",
                                  "models": [{"id": f"m{i}", "profile": PROFILES[k % 2], "x": px, "y": py}
                                             for i, (px, py) in enumerate(row)]})
                    x += 7.8
                else:
                    x += 0.4
            y += 1.4
        armies.append({"player": zone["player"], "units": units})
    data["armies"] = armies
    tall = Scenario.model_validate(data)
    n = sum(len(t.all_pieces()) + len(t.walls) for t in tall.terrain if t.has_heights)
    for t in data["terrain"]:
        t.pop("height_in", None)
        for part in t.get("pieces", []) + t.get("walls", []):
            part.pop("height_in", None)
    flat = Scenario.model_validate(data)
    return tall, flat, n


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED)
    ap.add_argument("--output", type=Path, default=DEFAULT_OUTPUT)
    ap.add_argument("--layout", nargs="?", const=LAYOUT_SCENARIO, type=Path, default=None,
                    help="an 11th-edition layout scenario instead of the bench_check table")
    args = ap.parse_args(argv)

    tall, flat, n_pieces = layout_scenes(args.layout) if args.layout else scenes(args.seed)
    w_tall, w_flat = resolve(tall, require_positions=True), resolve(flat, require_positions=True)
    n_models = sum(len(u.models) for u in w_tall.units.values())
    times: dict[str, list[float]] = {"heights": [], "flat": []}
    verdicts = {}
    load_before = os.getloadavg()
    for _ in range(args.repeat):
        for name, world in (("heights", w_tall), ("flat", w_flat)):
            t0 = time.perf_counter()
            report = check_deployment(world)
            times[name].append(time.perf_counter() - t0)
            verdicts[name] = {"legal": report.legal, "violations": sorted({v.rule for v in report.violations})}
    load_after = os.getloadavg()
    med = {k: statistics.median(v) for k, v in times.items()}
    ratio = med["heights"] / med["flat"]
    result = {
        "scene": str(args.layout) if args.layout else f"bench_check seed {args.seed}",
        "seed": args.seed, "repeat": args.repeat, "models": n_models, "pieces_with_height": n_pieces,
        "median_s": med, "all_s": times, "ratio": ratio, "target_ratio": TARGET_RATIO,
        "within_target": ratio <= TARGET_RATIO, "verdicts": verdicts,
        "load_average_before": load_before, "load_average_after": load_after,
        "cpu_count": os.cpu_count(), "python": platform.python_version(),
    }
    print(f"check_deployment, {n_models} models, {n_pieces} pieces and walls with heights, {args.repeat} runs each")
    print(f"  with heights: median {med['heights'] * 1000:8.1f} ms   verdict {verdicts['heights']}")
    print(f"  heights off:  median {med['flat'] * 1000:8.1f} ms   verdict {verdicts['flat']}")
    print(f"  ratio {ratio:.2f} (target at most {TARGET_RATIO}); load average {load_before[0]:.2f} -> "
          f"{load_after[0]:.2f} on {os.cpu_count()} cores")
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
