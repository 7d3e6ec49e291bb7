"""A Lagrangian bound over every candidate of every unit, by column generation (issue 18, item 1):
measured on the rosters and the 20-unit instance, and found far below the rounds' CP-SAT bound
(``benchmarks/README.md``, "Fifth pass"), so it is a measurement here, not a planner step.

The problem bounded: one candidate per unit, over the *whole* candidate grid (every (anchor,
formation) pair of each unit's stream, taken or not), minimising the sum of the integer costs,
with no two bases of different units overlapping. Every cross-unit rule except non-overlap is
dropped (a relaxation), and non-overlap is stated only through the point cliques of
:func:`planner.solve.planner._add_point_cliques`: for a point ``p`` of the ``h`` lattice, at most
one base holds ``p`` at least ``TOLERANCE_IN`` deep (two such bases overlap by more than the
tolerance; see that docstring). With ``a(c, p) = 1`` when candidate ``c`` holds ``p`` deep (the
points of one candidate counted once), every legal plan ``(c_u)`` has ``sum_u a(c_u, p) <= 1``.

**The bound.** For any multipliers ``pi_p <= 0`` every legal plan satisfies (weak Lagrangian
duality: each ``pi_p (1 - sum_u a(c_u, p))`` is at most 0)::

    sum_u cost(c_u) >= sum_u cost(c_u) + sum_p pi_p (1 - sum_u a(c_u, p))
                     = sum_p pi_p + sum_u [cost(c_u) - sum_{p held by c_u} pi_p]
                    >= sum_p pi_p + sum_u min_{c in stream(u)} [cost(c) - sum_{p held by c} pi_p] = LB(pi)

No LP optimality is needed: ``LB(pi)`` is valid for every ``pi <= 0``; the LP only finds good
ones. The minimum is over a *superset* of each unit's legal candidates (those taken, at their
integer costs, plus every placement still in the stream, judged or not, at its key, a lower bound
of its integer cost), which only lowers it. A plan's cost is an integer, so the bound is
``ceil(LB(pi) - eps)``, ``eps`` covering the float error of the sums (:data:`EPS_REL`). The
subproblem (one candidate per unit, free) has the integrality property, so the best ``LB(pi)``
over all ``pi`` equals the LP relaxation's optimum over every candidate: column generation that
stops with no column pricing out has reached the best this relaxation can give.

**Good multipliers by column generation.** A master LP (GLOP, ``ortools.linear_solver``) over the
columns so far: ``sum_c x_{u,c} = 1`` per unit, ``sum a(c, p) x_{u,c} <= 1`` per point, ``x >= 0``,
plus a dear "phantom" column per unit holding no point, so that the LP is always feasible (it only
makes the LP dearer, never the bound invalid). Its point duals (clipped to ``<= 0``) are priced
over each unit's whole stream, vectorised: one formation's points are the same lattice offsets
about every anchor of the same lattice phase, so a candidate's price is a gather from a dense array
over the lattice. Each unit's cheapest columns of negative reduced cost are added and the LP is
solved again; the best ``LB`` seen is kept.

Translating a formation's points by whole lattice steps rather than measuring them at each anchor
moves a point's depth by float rounding only (about 1e-14"), far below the margin of the clique
argument (two bases each holding ``p`` at depth ``TOLERANCE_IN - 1e-14`` still overlap by more than
``TOLERANCE_IN``); ``--check`` compares the two on sampled placements.

    .venv/bin/python benchmarks/bench_lagrange.py --rosters /work/shared/data/rosters --sizes 20
    .venv/bin/python benchmarks/bench_lagrange.py --rosters /work/shared/data/rosters --lattice 0.25 --take
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from ortools.linear_solver import pywraplp

from planner.solve.candidates import COST_SCALE, Candidate, CandidateStream, Group
from planner.solve.planner import _deep_points

EPS_REL = 1e-9
"""Relative float error allowed for in ``LB(pi)`` (sums of about 1e5 float64 terms of integer
magnitudes below 1e8 err by far less); the bound is taken ``EPS_REL * (sum of |terms|) + 1e-6``
lower before it is rounded up to the integer cost unit."""

HERE = Path(__file__).resolve().parent

LATTICE_IN = 0.5
"""Spacing of the lattice of clique points, inches (that of the rounds' clique cuts)."""


@dataclass
class UnitItems:
    """Every placement of one unit that may be legal: integer cost (a lower bound of it), the
    flat lattice index of its anchor's cell and its point class (formation and lattice phase)."""

    gid: str
    key: np.ndarray  # int64, integer cost units
    base: np.ndarray  # int64, flat index of the anchor's lattice point
    cls: np.ndarray  # int32, index into deltas
    deltas: list[np.ndarray]  # per class: flat offsets of the points held deep (unique)
    ai: np.ndarray  # int64, the stream's anchor index
    fi: np.ndarray  # int64, the stream's formation index
    known: np.ndarray  # int8 per item: 1 judged legal (or taken), -1 judged illegal, 0 not judged here
    by_cls: list[np.ndarray] = field(default_factory=list)  # item positions per class

    def __post_init__(self) -> None:
        order = np.argsort(self.cls, kind="stable")
        bounds = np.searchsorted(self.cls[order], np.arange(len(self.deltas) + 1))
        self.by_cls = [order[bounds[k]:bounds[k + 1]] for k in range(len(self.deltas))]

    def price(self, pi: np.ndarray) -> np.ndarray:
        """``key - sum_{p held} pi_p`` for every item (float64, integer cost units); ``pi`` flat, <= 0."""
        out = self.key.astype(np.float64)
        for k, rows in enumerate(self.by_cls):
            d = self.deltas[k]
            if len(rows) and len(d):
                out[rows] -= pi[self.base[rows][:, None] + d[None, :]].sum(axis=1)
        out[self.known < 0] = np.inf  # judged illegal: not a candidate
        return out

    def points(self, i: int) -> np.ndarray:
        """The flat lattice indices held deep by item ``i``."""
        return self.base[i] + self.deltas[self.cls[i]]


class Lattice:
    """The flat index of lattice points ``(i, j)`` (point ``(i h, j h)``) over a box."""

    def __init__(self, i0: int, i1: int, j0: int, j1: int):
        self.i0, self.j0 = i0, j0
        self.width = j1 - j0 + 1
        self.size = (i1 - i0 + 1) * self.width

    def flat(self, i: np.ndarray, j: np.ndarray) -> np.ndarray:
        return (i - self.i0) * self.width + (j - self.j0)


def _decode(key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(i, j)`` from ``_deep_points``' keys ``i * 2**32 + j``."""
    i = (key + (1 << 31)) >> 32
    return i, key - (i << 32)


def unit_items(stream: CandidateStream, taken: Sequence[Candidate], h: float = LATTICE_IN):
    """The placements of ``stream``'s unit that may be legal: ``taken`` (its candidates taken, at
    their integer costs) and every item still in the stream's heap (at its key), as raw arrays
    ``(key, ai, fi, i, j, deltas_ij, cls)`` with lattice indices not yet flattened."""
    anchors = stream.anchors
    where = {(float(a[0]), float(a[1])): k for k, a in enumerate(anchors)}
    fnames = {f.name: k for k, f in enumerate(stream.forms)}
    heap = np.array([(k, ai, fi) for k, ai, fi, _ in stream.heap], dtype=np.int64).reshape(-1, 3)
    tk = np.array([(c.icost, where[c.anchor], fnames[c.formation]) for c in taken], dtype=np.int64).reshape(-1, 3)
    rows = np.concatenate([heap, tk])
    key, ai, fi = rows[:, 0], rows[:, 1], rows[:, 2]
    ax, ay = anchors[ai, 0] / h, anchors[ai, 1] / h
    bi, bj = np.round(ax).astype(np.int64), np.round(ay).astype(np.int64)
    phase = np.stack([fi, np.round((ax - bi) * 1e6).astype(np.int64), np.round((ay - bj) * 1e6).astype(np.int64)],
                     axis=1)
    classes, first, cls = np.unique(phase, axis=0, return_index=True, return_inverse=True)
    cls = cls.reshape(-1)
    deltas = []
    for k in range(len(classes)):
        r = first[k]
        fps = stream.positions(int(ai[r]), int(fi[r]))
        keys = [_deep_points([f], h)[1] for f in fps]
        pts = np.unique(np.concatenate(keys)) if keys else np.zeros(0, dtype=np.int64)
        pi, pj = _decode(pts)
        deltas.append((pi - bi[r], pj - bj[r]))
    known = np.r_[np.zeros(len(heap), dtype=np.int8), np.ones(len(tk), dtype=np.int8)]
    return key, ai, fi, bi, bj, deltas, cls.astype(np.int32), known


class LagrangeBound:
    """Column generation for ``LB(pi)`` (module docstring) over the streams of ``groups`` and
    their candidates taken ``cands``, on the ``h`` lattice (inches)."""

    def __init__(self, groups: Sequence[Group], streams: dict[str, CandidateStream],
                 cands: dict[str, list[Candidate]], h: float = LATTICE_IN, judge: bool = True):
        raw = [unit_items(streams[g.id], cands[g.id], h) for g in groups]
        self.streams = streams
        self.judge = judge
        """Judge (the stream's exact judge, :meth:`CandidateBuilder.judge`) each placement not judged yet
        that a unit's minimum or a new column would use; without, the bound is over the heap items
        unjudged (valid, but the cheapest are often illegal: off the zone towards the goal point)."""
        self.judged = 0
        self.until = math.inf  # judging stops here (run's ``until``)
        self.trace: list[tuple[float, int, float]] = []  # (time.monotonic, iteration, LB) at each better LB
        lo_i = min((int((bi + d[0].min()).min()) for _, _, _, bi, _, ds, _, _ in raw for d in ds if len(d[0])),
                   default=0)
        hi_i = max((int((bi + d[0].max()).max()) for _, _, _, bi, _, ds, _, _ in raw for d in ds if len(d[0])),
                   default=0)
        lo_j = min((int((bj + d[1].min()).min()) for _, _, _, _, bj, ds, _, _ in raw for d in ds if len(d[1])),
                   default=0)
        hi_j = max((int((bj + d[1].max()).max()) for _, _, _, _, bj, ds, _, _ in raw for d in ds if len(d[1])),
                   default=0)
        # margins so that base + delta stays inside for every item (anchors beyond the points' box)
        all_bi = [r[3] for r in raw if len(r[3])]
        all_bj = [r[4] for r in raw if len(r[4])]
        if all_bi:
            lo_i, hi_i = min(lo_i, int(min(a.min() for a in all_bi))), max(hi_i, int(max(a.max() for a in all_bi)))
            lo_j, hi_j = min(lo_j, int(min(a.min() for a in all_bj))), max(hi_j, int(max(a.max() for a in all_bj)))
        self.lattice = lat = Lattice(lo_i, hi_i, lo_j, hi_j)
        self.groups = list(groups)
        self.units: list[UnitItems] = []
        self.groups_by_id = {g.id: g for g in groups}
        for g, (key, ai, fi, bi, bj, ds, cls, known) in zip(groups, raw, strict=True):
            base = lat.flat(bi, bj)
            deltas = [(d[0] * lat.width + d[1]).astype(np.int64) for d in ds]
            self.units.append(UnitItems(g.id, key, base, cls, deltas, ai, fi, known))
        self.best = -math.inf  # the best LB(pi) so far, float, integer cost units (before rounding)
        self.best_pi: np.ndarray | None = None
        self.iterations = 0
        self.lp_value: float | None = None
        self._cols: list[dict[int, pywraplp.Variable]] = [{} for _ in self.units]
        self._rows: dict[int, pywraplp.Constraint] = {}
        self._solver = pywraplp.Solver.CreateSolver("GLOP")
        if self._solver is None:  # pragma: no cover - GLOP ships with ortools
            raise RuntimeError("GLOP is not available in this OR-Tools build")
        big = 10.0 * max((float(u.key.max()) for u in self.units if len(u.key)), default=1.0) / COST_SCALE + 1.0
        obj = self._solver.Objective()
        self._convex = []
        for u in self.units:
            row = self._solver.Constraint(1.0, 1.0, f"one[{u.gid}]")
            ph = self._solver.NumVar(0.0, 1.0, f"phantom[{u.gid}]")
            row.SetCoefficient(ph, 1.0)
            obj.SetCoefficient(ph, big)
            self._convex.append(row)
        obj.SetMinimization()

    # -- the bound -------------------------------------------------------------------------------

    def legal(self, k: int, i: int) -> bool:
        """Is unit ``k``'s item ``i`` legal (judged once, by the stream's judge)?"""
        u = self.units[k]
        if u.known[i] == 0:
            s = self.streams[u.gid]
            reason, _ = s.b.judge(self.groups_by_id[u.gid], s.positions(int(u.ai[i]), int(u.fi[i])))
            u.known[i] = 1 if reason is None else -1
            self.judged += 1
        return bool(u.known[i] > 0)

    def _least(self, k: int, price: np.ndarray) -> float:
        """Unit ``k``'s least price over its items not judged illegal, judging (with :attr:`judge`)
        the cheapest until it is legal; ``price`` is updated in place."""
        while True:
            i = int(price.argmin())
            # past the time: the unjudged count as legal (a superset: the minimum stays a bound)
            if not np.isfinite(price[i]) or not self.judge or time.monotonic() > self.until or self.legal(k, i):
                return float(price[i])
            price[i] = np.inf

    def lower_bound(self, pi: np.ndarray) -> tuple[float, list[np.ndarray]]:
        """``LB(pi)`` (float, integer cost units) and each unit's prices; ``pi`` flat over the lattice, <= 0."""
        prices = [u.price(pi) for u in self.units]
        mins = [self._least(k, p) for k, p in enumerate(prices) if len(p)]
        if len(mins) < len(prices):
            return math.inf, prices  # a unit without any placement: no plan at all
        return float(pi.sum()) + sum(mins), prices

    def integer_bound(self) -> int | None:
        """The best bound so far as an integer cost: ``ceil(LB - eps)`` (see :data:`EPS_REL`), or None."""
        if self.best_pi is None or not math.isfinite(self.best):
            return None
        # every term of LB is sum(pi) or a unit's key less a sum of pi: all at most this in magnitude
        mag = float(np.abs(self.best_pi).sum()) * (1 + len(self.units)) + sum(
            float(np.abs(u.key).max()) for u in self.units if len(u.key))
        return max(0, math.ceil(self.best - EPS_REL * mag - 1e-6))

    # -- column generation -----------------------------------------------------------------------

    def add_column(self, k: int, i: int) -> bool:
        """Column of unit ``k``'s item ``i`` in the master LP (False if it is there already)."""
        if i in self._cols[k]:
            return False
        u = self.units[k]
        s = self._solver
        v = s.NumVar(0.0, 1.0, "")
        s.Objective().SetCoefficient(v, float(u.key[i]) / COST_SCALE)
        self._convex[k].SetCoefficient(v, 1.0)
        for p in u.points(i).tolist():
            row = self._rows.get(p)
            if row is None:
                row = self._rows[p] = s.Constraint(-s.infinity(), 1.0, "")
            row.SetCoefficient(v, 1.0)
        self._cols[k][i] = v
        return True

    def run(self, until: float, per_unit: int = 8, max_iter: int = 10_000) -> float:
        """Column generation until ``until`` (time.monotonic) or no column prices out; returns the
        best ``LB`` (float). Starts from each unit's ``per_unit`` cheapest items."""
        self.until = until
        if not self.iterations:
            for k, u in enumerate(self.units):
                n = 0
                for i in np.argsort(u.key, kind="stable").tolist():
                    if n >= per_unit:
                        break
                    if not self.judge or time.monotonic() > until or self.legal(k, i):
                        n += self.add_column(k, i)
        pi = np.zeros(self.lattice.size)
        while self.iterations < max_iter and time.monotonic() < until:
            self.iterations += 1
            status = self._solver.Solve()
            if status != pywraplp.Solver.OPTIMAL:
                break
            self.lp_value = self._solver.Objective().Value() * COST_SCALE
            pi[:] = 0.0
            for p, row in self._rows.items():
                d = row.dual_value() * COST_SCALE
                if d < 0:
                    pi[p] = d
            lb, prices = self.lower_bound(pi)
            if lb > self.best:
                self.best, self.best_pi = lb, pi.copy()
                self.trace.append((time.monotonic(), self.iterations, lb))
            mus = [row.dual_value() * COST_SCALE for row in self._convex]  # before the model changes
            added = 0
            for k, pr in enumerate(prices):
                mu = mus[k]
                cand = np.flatnonzero(pr < mu - 1e-6 * max(1.0, abs(mu)))
                if not len(cand):
                    continue
                pick = []
                for i in cand[np.argsort(pr[cand], kind="stable")].tolist():
                    if len(pick) >= per_unit:
                        break
                    if not self.judge or time.monotonic() > until or self.legal(k, i):
                        pick.append(i)
                added += sum(self.add_column(k, i) for i in pick)
            if not added:
                break
        return self.best

    def columns(self, k: int, tol: float = 0.0) -> list[int]:
        """Unit ``k``'s items whose LP value is above ``tol`` in the last master solve."""
        return [i for i, v in self._cols[k].items() if v.solution_value() > tol]


    def fractional_units(self) -> int:
        """How many units no column of the last master solve takes at 1 (split over several)."""
        return sum(1 for cols in self._cols if not any(v.solution_value() > 1 - 1e-6 for v in cols.values()))


def check_translation(lb: LagrangeBound, streams: dict[str, CandidateStream], h: float, per_unit: int = 40,
                      seed: int = 0) -> tuple[int, int]:
    """``(sampled, differing)``: placements whose points by translation differ from ``_deep_points``
    measured at the placement itself."""
    rng = np.random.default_rng(seed)
    n = bad = 0
    for u in lb.units:
        s = streams[u.gid]
        for i in rng.choice(len(u.key), size=min(per_unit, len(u.key)), replace=False).tolist():
            keys = np.unique(np.concatenate([_deep_points([f], h)[1] for f in s.positions(int(u.ai[i]), int(u.fi[i]))]))
            pi, pj = _decode(keys)
            n += 1
            bad += not np.array_equal(np.sort(lb.lattice.flat(pi, pj)), np.sort(u.points(i)))
    return n, bad


def worker(what: str, h: float, limit: float, take: bool, check: bool, judge: bool = True) -> dict:
    """Build the instance (a unit count or a roster file), open the planner's streams (and, with
    ``take``, its greedy plan and round 1's candidates, so that the placements judged illegal are
    out of the streams), then run column generation for at most ``limit`` s."""
    import resource

    from bench_plan_scaling import instance, roster_instance

    from planner.schema import Scenario
    from planner.solve.planner import SolverSettings, _groups, _Planning
    from planner.world import resolve

    data = instance(int(what)) if what.isdigit() else roster_instance(Path(what))
    world = resolve(Scenario.model_validate(data), f"<lagrange {what}>")
    t0 = time.monotonic()
    run = _Planning(world, SolverSettings(time_limit_s=30.0), _groups(world), None, t0)
    if take:
        run.start = run.greedy(t0 + 0.6 * max(0.0, run.builder.deadline - t0))
        run.rounds = 1
        run.take_candidates()
    t1 = time.monotonic()
    lb = LagrangeBound(run.groups, run.streams, run.cands, h, judge)
    t2 = time.monotonic()
    lb.run(t2 + limit)
    t3 = time.monotonic()
    ib = lb.integer_bound()
    converged = lb.lp_value is not None and lb.lp_value - lb.best < 0.5
    out = {"instance": what, "lattice_in": h, "units": len(lb.units), "items": int(sum(len(u.key) for u in lb.units)),
           "taken": int(sum(len(c) for c in run.cands.values())), "setup_s": round(t1 - t0, 2),
           "build_s": round(t2 - t1, 2), "cg_s": round(t3 - t2, 2), "iterations": lb.iterations,
           "columns": int(sum(len(c) for c in lb._cols)), "point_rows": len(lb._rows),
           "least": sum(int(u.key.min()) for u in lb.units) / COST_SCALE,
           "lagrange_bound": None if ib is None else ib / COST_SCALE,
           "lp": None if lb.lp_value is None else lb.lp_value / COST_SCALE, "converged": converged,
           "fractional_units": lb.fractional_units(), "judged": lb.judged, "judge": judge,
           "trace": [(round(t - t2, 2), it, round(b / COST_SCALE, 3)) for t, it, b in lb.trace],
           "packing_bound": None if run.packing is None else run.packing / COST_SCALE,
           "greedy": None if run.start is None else sum(c.icost for c in run.start.values()) / COST_SCALE}
    if check:
        out["translation_check"] = check_translation(lb, run.streams, h)
    out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return out


def main(argv: list[str] | None = None) -> int:
    import argparse
    import json
    import os
    import subprocess
    import sys

    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--sizes", default="20", help="unit counts of the scaling instance (default 20; '' for none)")
    ap.add_argument("--rosters", type=Path, help="also each *.rosz roster of this folder, planned in full")
    ap.add_argument("--lattice", type=float, default=LATTICE_IN, help="clique lattice spacing, inches (default 0.5)")
    ap.add_argument("--time-limit", type=float, default=60.0, help="column generation time per instance, s")
    ap.add_argument("--take", action="store_true", help="first take the planner's greedy plan and round 1's "
                    "candidates (placements judged illegal leave the streams)")
    ap.add_argument("--no-judge", action="store_true", help="price the stream's placements unjudged (at their keys)")
    ap.add_argument("--check", action="store_true", help="compare the translated points with measured ones")
    ap.add_argument("--output", type=Path, default=HERE / "results" / "lagrange.json")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(args.worker, args.lattice, args.time_limit, args.take, args.check, not args.no_judge)))
        return 0
    todo = [s for s in args.sizes.split(",") if s] + (
        [str(p) for p in sorted(args.rosters.glob("*.rosz"))] if args.rosters else [])
    load0 = os.getloadavg()
    rows = []
    for what in todo:
        cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", what, "--lattice", str(args.lattice),
               "--time-limit", str(args.time_limit)] + (["--take"] if args.take else []) + (
               ["--check"] if args.check else []) + (["--no-judge"] if args.no_judge else [])
        res = subprocess.run(cmd, capture_output=True, text=True, check=False, timeout=args.time_limit * 3 + 120)
        if res.returncode != 0:
            rows.append({"instance": what, "error": (res.stderr.strip().splitlines() or ["?"])[-1]})
        else:
            rows.append(json.loads(res.stdout.strip().splitlines()[-1]))
        r = rows[-1]
        name = Path(what).stem if not what.isdigit() else f"{what} units"
        if "error" in r:
            print(f"{name:>22}: error {r['error']}")
            continue
        lp = "none" if r["lp"] is None else f"{r['lp']:.3f}"
        print(f"{name:>22}: LB {r['lagrange_bound']} (LP {lp}, {'converged' if r['converged'] else 'not converged'},"
              f" {r['iterations']} iterations, {r['cg_s']:.1f} s; {r['fractional_units']} of {r['units']} units"
              f" split; {r['judged']} judged) least {r['least']:.3f} packing {r['packing_bound']} greedy {r['greedy']}; {r['items']} "
              f"placements, {r['point_rows']} point rows, peak {r['peak_rss_mb']:.0f} MB"
              + (f"; translation check {r['translation_check']}" if "translation_check" in r else ""), flush=True)
    load1 = os.getloadavg()
    print(f"load average (1, 5, 15 min): before {load0[0]:.2f} {load0[1]:.2f} {load0[2]:.2f}, "
          f"after {load1[0]:.2f} {load1[1]:.2f} {load1[2]:.2f} on {os.cpu_count()} CPUs")
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps({"lattice_in": args.lattice, "take": args.take, "time_limit_s": args.time_limit,
                                       "load_average": [load0, load1], "runs": rows}, indent=1))
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
