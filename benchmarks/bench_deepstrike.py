"""Benchmark: the Deep Strike mishap heat map against a Monte Carlo estimate of the same accuracy.

Run on demand (not part of the test suite)::

    .venv/bin/python benchmarks/bench_deepstrike.py [--no-ovals] [--resolution 1.0] [--output PATH]

Scene (:func:`planner.deepstrike.scene.scene`): 72" x 48", 12 terrain features (impassable,
difficult, dangerous, a building, a non-convex ruin), 8 enemy infantry models, an enemy tank hull,
2 enemy 75x42 mm bikes (``--no-ovals`` drops them), 5 friendly models; the Deep Strike unit is
10 models on 32 mm bases under wh40k7. The heat map is the exact P(mishap) at every 1" cell
centre (3456 cells).

Monte Carlo for the same accuracy: to bring one cell's standard error down to ``eps`` takes
p(1-p)/eps^2 samples (at worst 0.25/eps^2). The MC throughput (samples per second, the same
vectorised region test, so the comparison is kind to MC) is measured in the same run; the MC
time for the whole map is cells x samples / throughput. It is reported for eps = 1e-4 (the
documented error bound of the exact odds) and eps = 1e-2 (a coarse map).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path

import numpy as np

import planner.deepstrike.regions as regions
from planner.deepstrike.procedure import (
    ERROR_BOUND,
    build_regions,
    heat_map,
    make_setup,
    region_probabilities,
)
from planner.deepstrike.scene import scene


def reference_map(st, resolution: float) -> tuple[float, np.ndarray]:
    """The map through the per-primitive reference engine (the engine before the boundary one)."""
    xs = np.arange(resolution / 2, st.width, resolution)
    ys = np.arange(resolution / 2, st.depth, resolution)
    X, Y = np.meshgrid(xs, ys)
    saved = regions.BOUNDARY_MIN_QUERIES
    regions.BOUNDARY_MIN_QUERIES = 1 << 62
    try:
        t0 = time.perf_counter()
        rs, _ = build_regions(st, dangerous=False, triggers=False)
        P = region_probabilities(st, rs, X.ravel(), Y.ravel())[:, 0].reshape(X.shape)
        return time.perf_counter() - t0, P
    finally:
        regions.BOUNDARY_MIN_QUERIES = saved


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--no-ovals", action="store_true", help="drop the two oval-based enemy bikes")
    ap.add_argument("--resolution", type=float, default=1.0)
    ap.add_argument("--repeat", type=int, default=3, help="timed runs of the exact map (median reported)")
    ap.add_argument("--no-reference", action="store_true", help="skip timing the reference engine")
    ap.add_argument("--mc-samples", type=int, default=200_000, help="samples to time the MC throughput")
    ap.add_argument("--output", default="benchmarks/results/deepstrike.json")
    a = ap.parse_args()

    st = make_setup(scene("wh40k7", 10, 32.0, ovals=not a.no_ovals), "ds")
    times = []
    for _ in range(a.repeat):
        t0 = time.perf_counter()
        xs, ys, P, bound = heat_map(st, a.resolution, with_bound=True)
        times.append(time.perf_counter() - t0)
    t_map = float(np.median(times))
    cells = P.size
    t_ref, diff = None, None
    if not a.no_reference:
        t_ref, Pref = reference_map(st, a.resolution)
        diff = float(np.abs(Pref - P).max())

    # MC throughput: sample first-model positions by the procedure, judge with the fastest region
    # test there is (the boundary engine's binned locator, prepared beforehand, not timed)
    rs, _ = build_regions(st, dangerous=False, triggers=False)
    b = rs.boundary(0)
    rng = np.random.default_rng(1)
    n = a.mc_samples
    ax, ay = rng.uniform(0, 72, n), rng.uniform(0, 48, n)
    t0 = time.perf_counter()
    hit = rng.integers(0, 6, n) < 2
    d = np.where(hit, 0, rng.integers(1, 7, n) + rng.integers(1, 7, n))
    th = rng.uniform(0, 2 * np.pi, n)
    b.contains(ax + d * np.cos(th), ay + d * np.sin(th))
    t_mc = time.perf_counter() - t0
    rate = n / t_mc
    pq = float(np.mean(P * (1 - P)))
    rows = {}
    for eps in (ERROR_BOUND, 1e-2):
        per_cell = pq / eps ** 2
        t = cells * per_cell / rate
        rows[f"{eps:g}"] = {"samples_per_cell": per_cell, "mc_seconds": t, "ratio_mc_over_exact": t / t_map}
    out = {"scene": "ovals" if not a.no_ovals else "no-ovals", "cells": int(cells), "resolution": a.resolution,
           "exact_map_seconds": t_map, "exact_map_runs": times, "error_bound": bound, "target_seconds": 2.0,
           "reference_engine_seconds": t_ref, "max_difference_vs_reference": diff,
           "mc_samples_per_second": rate, "mean_p_mishap": float(P.mean()), "mc_for_same_accuracy": rows,
           "python": platform.python_version(), "machine": platform.machine(), "cpus": os.cpu_count(),
           "load_average": os.getloadavg()}
    print(f"exact heat map: {cells} cells in {t_map:.2f} s (median of {a.repeat}; error bound {bound:.2g}; "
          f"target < 2 s: {'met' if t_map < 2 else 'NOT met'})")
    if t_ref is not None:
        print(f"reference (per-primitive) engine, same run: {t_ref:.2f} s = {t_ref / t_map:.1f} x the boundary "
              f"engine; largest difference {diff:.1e}")
    print(f"MC throughput: {rate:,.0f} samples/s (vectorised binned region test)")
    for k, r in rows.items():
        print(f"  MC for s.e. {k}: {r['samples_per_cell']:,.0f} samples/cell -> {r['mc_seconds']:,.1f} s "
              f"= {r['ratio_mc_over_exact']:,.1f} x the exact map")
    print(f"load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cpus")
    Path(a.output).parent.mkdir(parents=True, exist_ok=True)
    Path(a.output).write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
