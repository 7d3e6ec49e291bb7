"""Strip rows in the Lagrangian master (issue 18, item 1; ``benchmarks/README.md``, "Eleventh pass"):
measured, not in the planner.

A *strip row* bounds how many base centres a horizontal strip can hold: for the models of inner
radius at least ``r`` (round bases: their radius; others: the disc inscribed in the base), any two
that do not overlap by more than ``TOLERANCE_IN`` have centres at least ``d = 2 r - 2e-6`` apart. In
the strip ``x0 <= x <= x1``, ``y0 <= y <= y0 + delta`` (``delta < d``), two centres next to each other
in x differ by at most ``delta`` in y, so by at least ``s = sqrt(d^2 - delta^2)`` in x: the strip
holds at most ``floor((x1 - x0) / s) + 1`` of them, in every legal plan, on the grid or off it. With
``a(c, K)`` the number of candidate ``c``'s counted centres in strip ``K``, ``sum a(c, K) x_c <= cap_K``;
its dual ``tau_K <= 0`` is priced as the point rows' (``LB += sum tau_K cap_K``, each item's price
less ``sum tau_K a(c, K)``): valid for every ``tau <= 0`` by the weak-duality argument of
:mod:`planner.solve.lagrange`. Rows are separated from the master LP's plan: per radius class, per
strip height ``delta`` and per strip bottom (each centre's y in the LP's support), the window of x
most violated.

    .venv/bin/python benchmarks/bench_strips.py --rosters /work/shared/data/rosters --rounds 40
"""

import argparse
import json
import math
import os
import sys
import time
from pathlib import Path

import numpy as np

from planner.solve import stop
from planner.solve.candidates import COST_SCALE
from planner.solve.lagrange import LagrangeBound

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

E = 1e-7

class StripBound(LagrangeBound):
    def __init__(self, *a, delta=0.0, **k):
        self.strips = []   # (r, x0, x1, y0, y1, cap)
        self.strip_coef = []  # per strip: list per unit of (items, counts)
        self._strip_rows = []
        self.tau = np.zeros(0)
        self.delta = delta
        super().__init__(*a, **k)

    def _build(self, algorithm="GLOP"):
        super()._build(algorithm)
        inf = self._solver.infinity()
        self._strip_rows = [self._solver.Constraint(-inf, float(s[5]), "") for s in self.strips]
        # columns were re-added in super()._build before the strip rows existed: set them now
        for kk, coef in enumerate(self.strip_coef):
            for k, (items, cnt) in enumerate(coef):
                for i, c in zip(items.tolist(), cnt.tolist()):
                    v = self._cols[k].get(i)
                    if v is not None:
                        self._strip_rows[kk].SetCoefficient(v, float(c))

    def add_column(self, k, i):
        new = super().add_column(k, i)
        if new:
            v = self._cols[k][i]
            for kk, coef in enumerate(self.strip_coef):
                items, cnt = coef[k]
                t = np.searchsorted(items, i)
                if t < len(items) and items[t] == i:
                    self._strip_rows[kk].SetCoefficient(v, float(cnt[t]))
        return new

    def _coef(self, r, x0, x1, y0, y1):
        out = []
        for k in range(len(self.units)):
            xy, rr, rin, rnd, reach = self._geometry(k)
            sel = rin >= r - 1e-9
            if not sel.any():
                out.append((np.zeros(0, np.int64), np.zeros(0, np.int64)))
                continue
            c = xy[:, sel, :]
            m = ((c[..., 0] >= x0 - E) & (c[..., 0] <= x1 + E)
                 & (c[..., 1] >= y0 - E) & (c[..., 1] <= y1 + E)).sum(axis=1)
            items = np.flatnonzero(m)
            out.append((items.astype(np.int64), m[items].astype(np.int64)))
        return out

    def add_strip(self, r, x0, x1, y0, y1, cap):
        coef = self._coef(r, x0, x1, y0, y1)
        self.strips.append((r, x0, x1, y0, y1, cap))
        self.strip_coef.append(coef)
        row = self._solver.Constraint(-self._solver.infinity(), float(cap), "")
        self._strip_rows.append(row)
        for k, (items, cnt) in enumerate(coef):
            for i, c in zip(items.tolist(), cnt.tolist()):
                v = self._cols[k].get(i)
                if v is not None:
                    row.SetCoefficient(v, float(c))
        self.tau = np.r_[self.tau, 0.0]

    def lower_bound(self, pi, sigma=None):
        prices = [u.price(pi) for u in self.units]
        total = float(pi.sum())
        tau = self.tau
        for kk, coef in enumerate(self.strip_coef):
            if tau[kk] < 0:
                for k, (items, cnt) in enumerate(coef):
                    prices[k][items] -= tau[kk] * cnt
                total += tau[kk] * self.strips[kk][5]
        mins = [self._least(k, p) for k, p in enumerate(prices) if len(p)]
        if len(mins) < len(prices):
            return math.inf, prices
        return total + sum(mins), prices

    def run(self, until, per_unit=8, max_iter=10_000, target=None):
        # as LagrangeBound.run, with tau from the strip rows
        self.until = until
        self.converged = False
        if not self.iterations:
            for k, u in enumerate(self.units):
                n = 0
                for i in np.argsort(u.key, kind="stable").tolist():
                    if n >= per_unit:
                        break
                    if stop.clock() > until or self.legal(k, i):
                        n += self.add_column(k, i)
        pi = np.zeros(self.lattice.size)
        while self.iterations < max_iter and stop.clock() < until:
            self.iterations += 1
            if not self._solve():
                break
            self.lp_value = self._solver.Objective().Value() * COST_SCALE
            pi[:] = 0.0
            for p, row in self._rows.items():
                d = row.dual_value() * COST_SCALE
                if d < 0:
                    pi[p] = d
            self.tau = np.minimum(0.0, np.array([row.dual_value() * COST_SCALE for row in self._strip_rows]))
            lb, prices = self.lower_bound(pi)
            if lb > self.best:
                self.best, self.best_pi = lb, pi.copy()
            mus = [row.dual_value() * COST_SCALE for row in self._convex]
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
                    if stop.clock() > until or self.legal(k, i):
                        pick.append(i)
                added += sum(self.add_column(k, i) for i in pick)
            if not added:
                self.converged = True
                break
        return self.best

    def separate_strips(self, delta=None, max_rows=100, tol=1e-3):
        delta = self.delta if delta is None else delta
        pts = []  # (x, y, rin, w)
        for k, cols in enumerate(self._cols):
            xy, rr, rin, rnd, reach = self._geometry(k)
            for i, v in cols.items():
                w = v.solution_value()
                if w > 1e-6:
                    for m in range(xy.shape[1]):
                        pts.append((xy[i, m, 0], xy[i, m, 1], rin[m], w))
        if not pts:
            return 0
        P = np.array(pts)
        found = []
        for r in np.unique(np.round(P[:, 2], 9)):
            Q = P[P[:, 2] >= r - 1e-9]
            d = 2 * r - 2e-6
            if delta >= d:
                continue
            s = math.sqrt(d * d - delta * delta)
            for y0 in np.unique(np.round(Q[:, 1], 9)):
                S = Q[(Q[:, 1] >= y0 - E) & (Q[:, 1] <= y0 + delta + E)]
                if len(S) < 2:
                    continue
                S = S[np.argsort(S[:, 0])]
                x = S[:, 0]
                w = np.r_[0, np.cumsum(S[:, 3])]
                best = None
                for i in range(len(S)):
                    for j in range(i, len(S)):
                        W = x[j] - x[i] + 2 * E
                        cap = math.floor(W / s + 1e-12) + 1
                        viol = w[j + 1] - w[i] - cap
                        if viol > tol and (best is None or viol > best[0]):
                            best = (viol, x[i], x[j], cap)
                if best:
                    viol, x0, x1, cap = best
                    # cap over the widened window
                    W = x1 - x0 + 2 * E
                    cap = math.floor(W / s + 1e-12) + 1
                    found.append((viol, r, x0, x1, y0, y0 + delta, cap))
        found.sort(key=lambda t: -t[0])
        for viol, r, x0, x1, y0, y1, cap in found[:max_rows]:
            self.add_strip(r, x0, x1, y0, y1, cap)
        return len(found[:max_rows])


def worker(path: str, rounds: int, deltas: list[float], limit: float) -> dict:
    """Set up the planner as before its Lagrangian bound (greedy plan, round 1's candidates
    taken), converge the master LP, then alternate strip separation and column generation."""
    from bench_plan_scaling import roster_instance

    from planner.schema import Scenario
    from planner.solve.planner import SolverSettings, _groups, _Planning
    from planner.world import resolve

    data = roster_instance(Path(path))
    world = resolve(Scenario.model_validate(data), f"<strips {path}>")
    t0 = time.monotonic()
    run = _Planning(world, SolverSettings(time_limit_s=30.0), _groups(world), None, t0)
    run.start = run.greedy(t0 + 0.6 * max(0.0, run.builder.deadline - t0))
    run.rounds = 1
    run.take_candidates()
    t1 = time.monotonic()
    lb = StripBound(run.groups, run.streams, run.cands)
    lb.run(t1 + limit)
    trace = [(0, 0, round(time.monotonic() - t1, 2), round(lb.best / COST_SCALE, 3))]
    for rd in range(rounds):
        if time.monotonic() > t1 + limit or not sum(lb.separate_strips(delta=d) for d in deltas):
            break
        lb.run(t1 + limit)
        trace.append((rd + 1, len(lb.strips), round(time.monotonic() - t1, 2),
                      round(lb.best / COST_SCALE, 3)))
    return {"roster": Path(path).stem, "units": len(lb.units), "trace": trace,
            "greedy": None if run.start is None else sum(c.icost for c in run.start.values()) / COST_SCALE}


def main(argv: list[str] | None = None) -> int:
    import subprocess

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rosters", type=Path, default=Path("/work/shared/data/rosters"))
    ap.add_argument("--rounds", type=int, default=40, help="separation rounds (default 40)")
    ap.add_argument("--deltas", default="0,0.25,0.5,0.75,1.0", help="strip heights, inches")
    ap.add_argument("--time-limit", type=float, default=120.0, help="column generation and rows, s")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    deltas = [float(d) for d in args.deltas.split(",") if d]
    if args.worker:
        print(json.dumps(worker(args.worker, args.rounds, deltas, args.time_limit)))
        return 0
    print(f"load average {os.getloadavg()[0]:.2f}")
    for p in sorted(args.rosters.glob("*.rosz")):
        res = subprocess.run([sys.executable, __file__, "--worker", str(p), "--rounds", str(args.rounds),
                              "--deltas", args.deltas, "--time-limit", str(args.time_limit)],
                             capture_output=True, text=True, check=False,
                             env=dict(os.environ, PYTHONPATH=str(HERE.parent)))
        if res.returncode:
            print(p.stem, "error", res.stderr.strip().splitlines()[-1:])
            continue
        r = json.loads(res.stdout)
        (_, _, t0, lb0), (rd, rows, t, lb) = r["trace"][0], r["trace"][-1]
        print(f"{r['roster']:>24} ({r['units']} units): LB {lb0:.3f} at {t0:.1f} s -> {lb:.3f} "
              f"(+{100 * (lb - lb0) / lb0:.2f}%) with {rows} rows, {rd} rounds, {t:.1f} s")
    print(f"load average {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
