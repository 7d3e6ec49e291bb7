"""Bounds off the grid for a roster pulled to one point (issue 18, item 1; ``benchmarks/README.md``,
"Twelfth pass"): measured, not in the planner.

The roster instance of ``bench_plan_scaling.py`` (every unit in the 72" x 12" zone ``y >= 36``, one
``near_point`` goal at (36, 24): the sum over the models of the centre distance). For the round bases
of inner radius at least ``r`` of the roster's most common class, any two legal centres are at least
``d = 2 r - 2e-6`` apart and lie in the convex zone shrunk by ``r``. **Oler's inequality** (N. Oler,
1961): a compact convex set ``K`` holds at most ``(2 / sqrt 3) A(K) / d^2 + P(K) / (2 d) + 1`` points
pairwise at least ``d`` apart. With ``K = zone ∩ B(P, rho)`` (convex; ``A`` and ``P`` measured on a
polygon about the disc, so never under), the ``k``-th nearest centre is at least ``rho_k`` from the
point, the least ``rho`` whose count reaches ``k``: ``sum_k rho_k`` bounds the sum of those models'
distances in every legal plan, on the grid or off it. Printed beside: the planner's packing bound by
area (:func:`planner.solve.packing.plan_packing_bound`, every model), and the sum for the same
models at the nearest sites of a hexagonal packing against the zone's edge (best of 13 offsets):
not a plan (no unit shapes, no coherency, the other models left out), a reference for how close the
models of that class can stand.

    .venv/bin/python benchmarks/bench_crowd.py /work/shared/data/rosters/chogorian-brotherhood.rosz
"""

from __future__ import annotations

import argparse
import collections
import math
import sys
from pathlib import Path

import numpy as np
import shapely
from shapely.geometry import Polygon, box

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

POINT = (36.0, 24.0)
ZONE = (0.0, 36.0, 72.0, 48.0)


def _disc(rho: float, n: int = 512) -> Polygon:
    big = rho / math.cos(math.pi / n)  # the polygon about the disc
    a = np.linspace(0.0, 2 * math.pi, n, endpoint=False)
    return Polygon(np.c_[POINT[0] + big * np.cos(a), POINT[1] + big * np.sin(a)])


def oler_sum(n: int, r: float) -> float:
    """``sum_k rho_k`` over the ``n`` nearest centres of discs of radius ``r`` (module docstring)."""
    d = 2 * r - 2e-6
    zone = box(ZONE[0] + r, ZONE[1] + r, ZONE[2] - r, ZONE[3] - r)

    def count(rho: float) -> float:
        k = zone.intersection(_disc(rho))
        return 0.0 if k.is_empty else 2 / math.sqrt(3) * k.area / d**2 + k.length / (2 * d) + 1

    total, lo = 0.0, float(shapely.distance(zone, shapely.Point(POINT)))
    for k in range(1, n + 1):
        a, b = lo, 200.0
        if count(a) < k:
            for _ in range(40):
                m = (a + b) / 2
                a, b = (a, m) if count(m) >= k else (m, b)
        total, lo = total + a, a
    return total


def hex_sum(n: int, r: float) -> float:
    """The least sum of the ``n`` nearest sites of a hexagonal packing of pitch ``2 r`` whose first
    row stands on the zone's edge (13 offsets along it)."""
    best = math.inf
    for off in np.linspace(0.0, 2 * r, 13):
        dist = []
        for row in range(100):
            y = ZONE[1] + r + row * r * math.sqrt(3)
            if y > ZONE[3] - r:
                break
            xs = np.arange(-100, 101) * 2 * r + POINT[0] + off + (r if row % 2 else 0.0)
            xs = xs[(xs >= ZONE[0] + r) & (xs <= ZONE[2] - r)]
            dist += np.hypot(xs - POINT[0], y - POINT[1]).tolist()
        best = min(best, float(sum(sorted(dist)[:n])))
    return best


def main(argv: list[str] | None = None) -> int:
    from bench_plan_scaling import roster_instance

    from planner.geometry.shapes import footprint
    from planner.schema import Scenario
    from planner.solve.packing import plan_packing_bound
    from planner.solve.planner import SolverSettings, _groups, _Planning
    from planner.world import resolve

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("roster", type=Path)
    args = ap.parse_args(argv)
    world = resolve(Scenario.model_validate(roster_instance(args.roster)), str(args.roster))
    run = _Planning(world, SolverSettings(time_limit_s=30.0), _groups(world), None, 0.0)
    radii = collections.Counter()
    for g in run.groups:
        for m in g.models:
            fp = footprint(m.base, 0.0, 0.0, 0.0)
            radii["other" if fp.kind != "circle" else round(fp.a, 4)] += 1
    print(f"{args.roster.stem}: bases {dict(radii)}")
    r = max((k for k in radii if k != "other"), key=lambda k: radii[k])
    n = sum(v for k, v in radii.items() if k != "other" and k >= r)
    print(f"packing bound by area, every model: {plan_packing_bound(run.builder, run.groups, run.terms):.3f}")
    print(f"Oler's bound, the {n} round bases of radius >= {r}\": {oler_sum(n, r - 1e-6):.3f}")
    print(f"hexagonal packing, {n} discs of radius {r}\" (a reference, not a plan): {hex_sum(n, r):.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
