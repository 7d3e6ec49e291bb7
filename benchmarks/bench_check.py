"""Benchmark: how long ``check_deployment`` takes on a full-size Horus Heresy 2.0 table.

Run on demand (it is not part of the test suite)::

    .venv/bin/python benchmarks/bench_check.py [--repeat N] [--seed S] [--output PATH]

It builds a fixed-seed scenario (72" x 48", long-edge deployment zones, 12 terrain features,
2 x 100 models, 10 Infiltrate units of which 4 are hidden 9"-12" from the enemy behind terrain),
asserts that ``check_deployment`` finds it legal, then times

* ``check_deployment(world)`` (the World is built once; only the check is timed), and
* a baseline measured in the same run: a plain per-pair shapely loop doing the same core
  work naively (polygon distances between every pair of enemy models, ``covered_by`` of every
  model against each zone, centre-to-centre sight lines from every Infiltrate model to every
  enemy model against every LOS-blocking footprint).

It prints a small table, a cProfile breakdown of one check, and writes the figures as JSON to
``benchmarks/results/check.json``. See ``benchmarks/README.md``.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import json
import math
import os
import platform
import pstats
import random
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import shapely
from shapely import affinity
from shapely.geometry import LineString, Point, Polygon

from planner.geometry.shapes import footprint, signed_distance
from planner.legality.checker import check_deployment
from planner.schema import HullBase, OvalBase, RoundBase, Scenario, SetupMethod
from planner.units import mm_to_in
from planner.world import World, resolve

TARGET_MS = 25.0
"""The issue's target for one whole ``check_deployment`` call (issue 18 item 3; it was 50 ms)."""

DEFAULT_SEED = 20_240_611
WIDTH, DEPTH = 72.0, 48.0
ZONE_DEPTH = 12.0
HERE = Path(__file__).resolve().parent
DEFAULT_OUTPUT = HERE / "results" / "check.json"

A, B = "loyalists", "traitors"

# base kinds --------------------------------------------------------------------------------------
R32 = {"shape": "round", "diameter_mm": 32.0}
R40 = {"shape": "round", "diameter_mm": 40.0}
OVAL = {"shape": "oval", "length_mm": 75.0, "width_mm": 42.0}
LAND_RAIDER = {"shape": "hull", "length_in": 5.9, "width_in": 4.1}
PREDATOR = {"shape": "hull", "length_in": 4.6, "width_in": 3.0}
RHINO = {"shape": "hull", "length_in": 4.6, "width_in": 3.0}
SICARAN = {"shape": "hull", "length_in": 5.3, "width_in": 3.5}

GAP = 0.5  # nominal gap between neighbouring bases in a formation (coherency is 2")
JITTER = 0.06  # per-model position jitter, inches (seeded)
TURN_JITTER = 3.0  # per-model facing jitter for ovals and hulls, degrees (seeded)


def _extent(base: dict) -> tuple[float, float]:
    """(width along x, depth along y) of a base facing the enemy (+y), inches."""
    if base["shape"] == "round":
        d = mm_to_in(base["diameter_mm"])
        return d, d
    if base["shape"] == "oval":
        return mm_to_in(base["width_mm"]), mm_to_in(base["length_mm"])
    return base["width_in"], base["length_in"]


# ------------------------------------------------------------------------------------------------
# scenario
# ------------------------------------------------------------------------------------------------


@dataclass
class UnitPlan:
    """A unit on the loyalist (south) side, with nominal positions; the traitors get a mirror."""

    id: str
    name: str
    type: str
    base: dict
    positions: list[tuple[float, float]]
    facing: float = 90.0
    infiltrate: str | None = None  # None, "hidden" or "plain"
    subtypes: list[str] = field(default_factory=list)


def _block(
    x0: float, top: float, base: dict, n: int, per_row: int
) -> tuple[list[tuple[float, float]], float]:
    """Rows of ``per_row`` bases, first row's front edge at ``top``, rows going back (-y).

    Returns the centres and the block's width.
    """
    w, d = _extent(base)
    pts = []
    rows = math.ceil(n / per_row)
    for r in range(rows):
        k = min(per_row, n - r * per_row)
        offset = (per_row - k) * (w + GAP) / 2.0  # centre a short back row
        y = top - d / 2.0 - r * (d + GAP)
        for c in range(k):
            pts.append((x0 + offset + w / 2.0 + c * (w + GAP), y))
    return pts, per_row * w + (per_row - 1) * GAP


def _line(
    units: list[tuple[str, str, str, dict, int, int]], x_start: float, top: float, spacing: float, prefix: str
) -> list[UnitPlan]:
    out = []
    x = x_start
    for uid, name, utype, base, n, per_row in units:
        pts, width = _block(x, top, base, n, per_row)
        out.append(UnitPlan(f"{prefix}{uid}", name, utype, base, pts))
        x += width + spacing
    return out


def _u_shape(
    cx: float, bar_lo: float, bar_hi: float, arm_end: float, half: float = 6.0, wall: float = 1.0
) -> list[tuple[float, float]]:
    """A U-shaped footprint: a bar across y in [bar_lo, bar_hi], arms reaching to ``arm_end``.

    With ``arm_end < bar_lo`` the U opens towards -y (south), else towards +y (north).
    """
    w0, w1 = cx - half, cx + half  # west and east outer edges
    if arm_end < bar_lo:  # opens south
        return [
            (w0, arm_end),
            (w0 + wall, arm_end),
            (w0 + wall, bar_lo),
            (w1 - wall, bar_lo),
            (w1 - wall, arm_end),
            (w1, arm_end),
            (w1, bar_hi),
            (w0, bar_hi),
        ]
    return [
        (w0, bar_lo),
        (w1, bar_lo),
        (w1, arm_end),
        (w1 - wall, arm_end),
        (w1 - wall, bar_hi),
        (w0 + wall, bar_hi),
        (w0 + wall, arm_end),
        (w0, arm_end),
    ]


def _rect(x0, y0, x1, y1):
    return [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]


def _octagon(cx, cy, r):
    return [
        (cx + r * math.cos(math.pi / 8 + k * math.pi / 4), cy + r * math.sin(math.pi / 8 + k * math.pi / 4))
        for k in range(8)
    ]


def _terrain() -> list[dict]:
    """12 features: 4 U-shaped hides (2 solid bastions, 2 ruins), an impassable reactor, 2 walls,
    a ruin and a building in each deployment zone, and a ruin in no man's land."""
    los = ["blocks_line_of_sight"]
    t = [
        # hides for loyalist infiltrators (open to the south) and traitor ones (open to the north)
        dict(
            id="bastion-w",
            name="Bastion (west)",
            kind="solid",
            traits=los,
            footprint=_u_shape(9.0, 26.3, 27.3, 20.0),
        ),
        dict(
            id="ruin-hide-cw",
            name="Ruined chapel",
            kind="area",
            traits=los,
            footprint=_u_shape(27.0, 20.7, 21.7, 28.0),
        ),
        dict(
            id="ruin-hide-ce",
            name="Ruined manufactorum",
            kind="area",
            traits=los,
            footprint=_u_shape(45.0, 26.3, 27.3, 20.0),
        ),
        dict(
            id="bastion-e",
            name="Bastion (east)",
            kind="solid",
            traits=los,
            footprint=_u_shape(63.0, 20.7, 21.7, 28.0),
        ),
        dict(
            id="reactor",
            name="Breached reactor",
            kind="solid",
            traits=los + ["impassable"],
            footprint=_octagon(36.0, 24.0, 2.8),
        ),
        dict(
            id="wall-sw",
            name="Wall (south-west)",
            kind="solid",
            traits=los,
            footprint=_rect(15.5, 16.6, 20.5, 17.4),
        ),
        dict(
            id="wall-ne",
            name="Wall (north-east)",
            kind="solid",
            traits=los,
            footprint=_rect(51.5, 30.6, 56.5, 31.4),
        ),
        dict(
            id="ruin-south",
            name="Hab ruin (south zone)",
            kind="area",
            traits=los + ["difficult"],
            footprint=[(40.0, 5.5), (50.0, 5.5), (50.0, 9.5), (44.0, 9.5), (40.0, 8.0)],
        ),
        dict(
            id="ruin-north",
            name="Hab ruin (north zone)",
            kind="area",
            traits=los + ["difficult"],
            footprint=[
                (72.0 - x, 48.0 - y)
                for x, y in [(40.0, 5.5), (50.0, 5.5), (50.0, 9.5), (44.0, 9.5), (40.0, 8.0)]
            ],
        ),
        dict(
            id="bunker-south",
            name="Bunker (south zone)",
            kind="solid",
            traits=los,
            footprint=_rect(58.0, 0.5, 69.0, 5.5),
        ),
        dict(
            id="bunker-north",
            name="Bunker (north zone)",
            kind="solid",
            traits=los,
            footprint=_rect(3.0, 42.5, 14.0, 47.5),
        ),
        dict(
            id="ruin-nml",
            name="Ruined shrine (no man's land)",
            kind="area",
            traits=los,
            footprint=[(38.0, 13.2), (46.0, 13.2), (46.0, 16.5), (41.0, 17.5), (38.0, 16.0)],
        ),
    ]
    assert len(t) == 12
    return t


# terrain that a plain-sight Infiltrator may not stand in (everything but the no-man's-land ruin)
_PLAIN_FORBIDDEN = {
    "bastion-w",
    "ruin-hide-cw",
    "ruin-hide-ce",
    "bastion-e",
    "reactor",
    "wall-sw",
    "wall-ne",
    "ruin-south",
    "ruin-north",
    "bunker-south",
    "bunker-north",
}


def _zone_units(prefix: str) -> list[UnitPlan]:
    """77 models in three lines in the south zone (y in [0, 12])."""
    front_top = ZONE_DEPTH - 0.15
    line1 = _line(
        [
            ("tac-1", "Tactical Squad I", "Infantry", R32, 10, 5),
            ("tac-2", "Tactical Squad II", "Infantry", R32, 10, 5),
            ("tac-3", "Tactical Squad III", "Infantry", R32, 12, 6),
            ("vets", "Veteran Tactical Squad", "Infantry", R32, 10, 5),
            ("assault", "Assault Squad", "Infantry", R32, 10, 5),
            ("outriders", "Outrider Squadron", "Cavalry", OVAL, 5, 5),
        ],
        1.5,
        front_top,
        1.6,
        prefix,
    )
    line2 = _line(
        [
            ("terminators", "Cataphractii Terminators", "Infantry", R40, 5, 5),
            ("command", "Command Squad", "Infantry", R40, 5, 5),
            ("heavy", "Heavy Support Squad", "Infantry", R40, 5, 5),
        ],
        20.0,
        8.3,
        3.0,
        prefix,
    )
    line3 = _line(
        [
            ("land-raider", "Land Raider Proteus", "Vehicle", LAND_RAIDER, 1, 1),
            ("predators", "Predator Squadron", "Vehicle", PREDATOR, 2, 2),
            ("rhino", "Rhino", "Vehicle", RHINO, 1, 1),
            ("sicaran", "Sicaran Battle Tank", "Vehicle", SICARAN, 1, 1),
        ],
        4.0,
        6.1,
        2.5,
        prefix,
    )
    return line1 + line2 + line3


def _hidden_unit(prefix: str, uid: str, name: str, cx: float) -> UnitPlan:
    """5 Infantry on 32 mm bases inside the south-opening U at ``cx``: 3 in front, 2 behind."""
    pts = [(cx - 1.5, 25.4), (cx, 25.4), (cx + 1.5, 25.4), (cx - 0.75, 24.0), (cx + 0.75, 24.0)]
    return UnitPlan(f"{prefix}{uid}", name, "Infantry", R32, pts, infiltrate="hidden")


def _mirror(p: UnitPlan, prefix: str) -> UnitPlan:
    """The same unit for the traitors: rotated 180 degrees about the table centre."""
    return UnitPlan(
        prefix + p.id.split("-", 1)[1],
        p.name,
        p.type,
        p.base,
        [(WIDTH - x, DEPTH - y) for x, y in p.positions],
        (p.facing + 180.0) % 360.0,
        p.infiltrate,
        list(p.subtypes),
    )


def _fps(base: dict, positions, facing: float):
    b = {"round": RoundBase, "oval": OvalBase, "hull": HullBase}[base["shape"]](**base)
    return [footprint(b, x, y, f) for (x, y), f in zip(positions, [facing] * len(positions), strict=True)]


def _jittered(rng: random.Random, plan: UnitPlan) -> list[tuple[float, float, float]]:
    turn = plan.base["shape"] != "round"
    return [
        (
            x + rng.uniform(-JITTER, JITTER),
            y + rng.uniform(-JITTER, JITTER),
            plan.facing + (rng.uniform(-TURN_JITTER, TURN_JITTER) if turn else 0.0),
        )
        for x, y in plan.positions
    ]


def _plain_candidates(
    rng: random.Random,
    plan_template: tuple[str, dict, int, int],
    player: str,
    placed: dict[str, list],
    terrain_polys: dict[str, Polygon],
    tries: int = 4000,
):
    """Rejection-sample an anchor for a plain-sight Infiltrator: more than 12.25" from every enemy
    model, clear of own models and of every terrain feature but the no-man's-land ruin."""
    _, base, n, per_row = plan_template
    w, d = _extent(base)
    for _ in range(tries):
        x0 = rng.uniform(0.5, WIDTH - 0.5)
        if player == A:  # front edge at ``top``, rows going south
            top, facing = rng.uniform(13.5, 22.0), 90.0
            pts, width = _block(x0, top, base, n, per_row)
        else:  # front edge at ``front``, rows going north (mirror of the block about y = front)
            front, facing = rng.uniform(26.0, 34.5), 270.0
            pts, width = _block(x0, front, base, n, per_row)
            pts = [(x, 2.0 * front - y) for x, y in pts]
        if x0 + width > WIDTH - 0.5:
            continue
        fps = _fps(base, pts, facing)
        ok = True
        for f in fps:
            poly = f.polygon(32, circumscribed=True)
            if not poly.buffer(0.3).within(Polygon(_rect(0, 0, WIDTH, DEPTH))):
                ok = False
                break
            if any(terrain_polys[t].distance(poly) < 0.3 for t in _PLAIN_FORBIDDEN):
                ok = False
                break
        if not ok:
            continue
        for who, other in placed.items():
            for g in other:
                for f in fps:
                    lb = math.hypot(f.cx - g.cx, f.cy - g.cy) - f.outer_radius - g.outer_radius
                    limit = 12.25 if who != player else 0.4
                    if lb > limit:
                        continue
                    if signed_distance(f, g) <= limit:
                        ok = False
                        break
                if not ok:
                    break
            if not ok:
                break
        if ok:
            return pts, facing
    raise RuntimeError(f"no room for a plain-sight Infiltrator of {player} (seed too unlucky?)")


PLAIN_TEMPLATES = [
    ("recon", "Reconnaissance Squad", "Infantry", R32, 5, 3),
    ("scimitars", "Scimitar Jetbike Squadron", "Cavalry", OVAL, 3, 3),
    ("infiltrators", "Infiltration Cadre", "Infantry", R40, 5, 3),
]


def build_scenario(seed: int = DEFAULT_SEED) -> tuple[Scenario, dict[str, str]]:
    """The benchmark scenario, and the Infiltrate class ("hidden"/"plain") of each Infiltrate unit."""
    rng = random.Random(seed)
    terrain = _terrain()
    terrain_polys = {t["id"]: Polygon(t["footprint"]) for t in terrain}

    south = _zone_units("s-") + [
        _hidden_unit("s-", "recon-bastion", "Recon Squad (in the bastion)", 9.0),
        _hidden_unit("s-", "seekers-ruin", "Seeker Squad (in the ruin)", 45.0),
    ]
    north = [_mirror(p, "n-") for p in south]
    plans = {A: south, B: north}

    units: dict[str, list[dict]] = {A: [], B: []}
    placed: dict[str, list] = {A: [], B: []}
    klass: dict[str, str] = {}

    def add(player: str, plan: UnitPlan, posf: list[tuple[float, float, float]]) -> None:
        rules = ["Infiltrate"] if plan.infiltrate else []
        setup = {"method": "infiltrate"} if plan.infiltrate else {"method": "deployment_zone"}
        models = [
            {"id": str(i + 1), "base": plan.base, "x": round(x, 4), "y": round(y, 4), "facing": round(f, 3)}
            for i, (x, y, f) in enumerate(posf)
        ]
        units[player].append(
            {
                "id": plan.id,
                "name": plan.name,
                "type": plan.type,
                "rules": rules,
                "setup": setup,
                "models": models,
            }
        )
        b = {"round": RoundBase, "oval": OvalBase, "hull": HullBase}[plan.base["shape"]](**plan.base)
        placed[player].extend(footprint(b, x, y, f) for x, y, f in posf)
        if plan.infiltrate:
            klass[plan.id] = plan.infiltrate

    for player in (A, B):
        for plan in plans[player]:
            add(player, plan, _jittered(rng, plan))

    # plain-sight Infiltrators, alternating sides, each > 12" from everything the enemy has placed
    for tmpl in PLAIN_TEMPLATES:
        for player, prefix in ((A, "s-"), (B, "n-")):
            uid, name, utype, base, n, per_row = tmpl
            pts, facing = _plain_candidates(rng, (uid, base, n, per_row), player, placed, terrain_polys)
            plan = UnitPlan(prefix + uid, name, utype, base, pts, facing, "plain")
            add(player, plan, [(x, y, facing) for x, y in pts])  # no jitter: the sample is the jitter

    scenario = Scenario.model_validate(
        {
            "ruleset": "hh2",
            "name": "bench: 2 x 100 models, 12 terrain features, 10 Infiltrate units",
            "description": f"benchmarks/bench_check.py, seed {seed}",
            "battlefield": {"width": WIDTH, "depth": DEPTH},
            "terrain": terrain,
            "deployment_zones": [
                {"id": "zone-south", "player": A, "polygon": _rect(0.0, 0.0, WIDTH, ZONE_DEPTH)},
                {"id": "zone-north", "player": B, "polygon": _rect(0.0, DEPTH - ZONE_DEPTH, WIDTH, DEPTH)},
            ],
            "armies": [
                {"player": A, "name": "Loyalist Legion", "units": units[A]},
                {"player": B, "name": "Traitor Legion", "units": units[B]},
            ],
        }
    )
    return scenario, klass


def build_world(seed: int = DEFAULT_SEED) -> tuple[World, dict[str, str]]:
    scenario, klass = build_scenario(seed)
    return resolve(scenario, f"<bench seed {seed}>", require_positions=True), klass


def scenario_stats(world: World, klass: dict[str, str]) -> dict:
    units = [u for u in world.units.values() if u.on_battlefield]
    kinds: dict[str, int] = {}
    for u in units:
        for m in u.models:
            k = m.base.shape if m.base.shape != "round" else f"round {m.base.diameter_mm:g} mm"
            kinds[k] = kinds.get(k, 0) + 1
    terrain = world.scenario.terrain
    return {
        "battlefield_in": [world.scenario.battlefield.width, world.scenario.battlefield.depth],
        "players": world.players,
        "models_per_player": {p: sum(len(u.models) for u in units if u.player == p) for p in world.players},
        "units_per_player": {p: sum(1 for u in units if u.player == p) for p in world.players},
        "bases": dict(sorted(kinds.items())),
        "terrain_features": len(terrain),
        "terrain_kinds": {k: sum(1 for t in terrain if t.kind.value == k) for k in ("solid", "area", "open")},
        "terrain_blocking_los": sum(1 for t in terrain if t.blocks_line_of_sight),
        "terrain_impassable": sum(1 for t in terrain if t.is_impassable),
        "infiltrate_units": len(klass),
        "infiltrate_hidden_9_to_12": sorted(k for k, v in klass.items() if v == "hidden"),
        "infiltrate_plain_beyond_12": sorted(k for k, v in klass.items() if v == "plain"),
    }


def assert_legal(world: World, klass: dict[str, str]) -> None:
    """The scenario must be legal, and each Infiltrate unit must be in the class it was built for."""
    report = check_deployment(world)
    if not report.legal:
        lines = "\n".join(f"  {v.rule} {v.unit}/{v.model}: {v.message}" for v in report.violations)
        raise AssertionError(f"benchmark scenario is not legal:\n{lines}")
    by_unit = {u.unit: u for u in report.units}
    for uid, k in klass.items():
        fs = {f.rule: f for f in by_unit[uid].findings}
        d = fs["hh2.infiltrate.distance"].measured
        assert d is not None
        if k == "hidden":
            assert 9.0 < d <= 12.0, (uid, d)
            assert fs["hh2.infiltrate.hidden"].passed, uid
        else:
            assert d > 12.0, (uid, d)
            assert "hh2.infiltrate.hidden" not in fs, uid
    assert sum(1 for v in klass.values() if v == "hidden") >= 4
    assert len(klass) == 10


# ------------------------------------------------------------------------------------------------
# baseline: a plain per-pair shapely loop
# ------------------------------------------------------------------------------------------------


def _naive_polygon(m) -> Polygon:
    """The model's base as a plain shapely polygon: buffered circle, scaled-circle ellipse, or hull box."""
    b = m.base
    if isinstance(b, RoundBase):
        return Point(m.x, m.y).buffer(mm_to_in(b.diameter_mm) / 2.0)
    if isinstance(b, OvalBase):
        circle = Point(m.x, m.y).buffer(1.0)
        ell = affinity.scale(
            circle, mm_to_in(b.length_mm) / 2.0, mm_to_in(b.width_mm) / 2.0, origin=(m.x, m.y)
        )
        return affinity.rotate(ell, m.facing, origin=(m.x, m.y))
    hl, hw = b.length_in / 2.0, b.width_in / 2.0
    return affinity.rotate(shapely.box(m.x - hl, m.y - hw, m.x + hl, m.y + hw), m.facing, origin=(m.x, m.y))


def baseline(world: World) -> dict[str, int]:
    """The same core work as the checker, done naively with scalar shapely calls.

    - a polygon per model (built inside the timed region, as the checker builds its footprints);
    - ``distance`` between every pair of models of different players;
    - ``covered_by`` of every model against each deployment zone;
    - for every Infiltrate model and every enemy model, a centre-to-centre LineString
      ``intersects`` test against every line-of-sight-blocking footprint (no early exit).
    """
    models = [(u, m) for u in world.units.values() if u.on_battlefield for m in u.models]
    polys = [(u.player, m, _naive_polygon(m)) for u, m in models]
    zones = [Polygon(z.polygon) for z in world.scenario.deployment_zones]
    blockers = [Polygon(t.footprint) for t in world.scenario.terrain if t.blocks_line_of_sight]
    n_dist = n_cov = n_los = 0
    nearest = {}
    for i, (pa, ma, a) in enumerate(polys):
        for pb, _mb, b in polys[i + 1 :]:
            if pa != pb:
                d = a.distance(b)
                n_dist += 1
                if d < nearest.get(id(ma), math.inf):
                    nearest[id(ma)] = d
    covered = 0
    for _, _, a in polys:
        for z in zones:
            covered += a.covered_by(z)
            n_cov += 1
    crossings = 0
    infiltrators = [(u, m) for u, m in models if u.method is SetupMethod.INFILTRATE]
    for u, m in infiltrators:
        for v, e in models:
            if v.player == u.player:
                continue
            line = LineString([(m.x, m.y), (e.x, e.y)])
            for bl in blockers:
                crossings += line.intersects(bl)
                n_los += 1
    return {
        "polygons": len(polys),
        "distance_calls": n_dist,
        "covered_by_calls": n_cov,
        "line_intersects_calls": n_los,
        "infiltrate_models": len(infiltrators),
    }


# ------------------------------------------------------------------------------------------------
# timing and profiling
# ------------------------------------------------------------------------------------------------


def _timed(fn, *args) -> float:
    gc.collect()
    t0 = time.perf_counter()
    fn(*args)
    return (time.perf_counter() - t0) * 1000.0


def _fmt_func(key) -> str:
    filename, line, name = key
    p = Path(filename)
    try:
        rel = p.resolve().relative_to(Path(__file__).resolve().parents[1])
        where = str(rel)
    except ValueError:
        where = p.name if filename not in ("~",) else ""
    return f"{where}:{line}({name})" if where else name


PHASES = [
    ("check_battlefield", "wholly on the battlefield"),
    ("check_impassable", "not in impassable terrain"),
    ("check_zone", "wholly within the deployment zone"),
    ("check_infiltrate", "Infiltrate (distance + hidden)"),
    ("check_hidden", "  of which: line of sight (hidden)"),
    ("check_scout", "Scout"),
    ("check_coherency", "unit coherency"),
    ("check_overlaps", "bases do not overlap"),
    ("check_ic", "Independent Characters"),
    ("check_building_infiltrate", "Infiltrate into buildings"),
    ("check_capacity", "transport capacity"),
]


def profile_check(world: World) -> dict:
    """cProfile one ``check_deployment`` call; phases and the top planner functions."""
    prof = cProfile.Profile()
    prof.enable()
    check_deployment(world)
    prof.disable()
    st = pstats.Stats(prof)
    planner_dir = str(Path(__file__).resolve().parents[1] / "planner")
    entries = []
    for key, (cc, nc, tt, ct, _callers) in st.stats.items():  # type: ignore[attr-defined]
        entries.append(
            {
                "func": _fmt_func(key),
                "file": key[0],
                "name": key[2],
                "ncalls": nc,
                "primitive": cc,
                "own_ms": tt * 1000.0,
                "cum_ms": ct * 1000.0,
            }
        )
    total = next((e["cum_ms"] for e in entries if e["name"] == "check_deployment"), st.total_tt * 1000.0)
    hh2 = [e for e in entries if e["file"].endswith(os.path.join("legality", "hh2.py"))]
    phases = []
    for name, label in PHASES:
        e = next((x for x in hh2 if x["name"] == name), None)
        if e is not None:
            phases.append(
                {
                    "phase": name,
                    "what": label.strip(),
                    "cum_ms": e["cum_ms"],
                    "calls": e["ncalls"],
                    "share": e["cum_ms"] / total,
                }
            )
    run = next((x["cum_ms"] for x in hh2 if x["name"] == "run_checks"), None)
    if run is not None:
        phases.append(
            {
                "phase": "report",
                "what": "building the LegalityReport (pydantic)",
                "cum_ms": total - run,
                "calls": 1,
                "share": (total - run) / total,
            }
        )
    mine = [e for e in entries if e["file"].startswith(planner_dir)]
    top_cum = sorted(mine, key=lambda e: -e["cum_ms"])[:15]
    top_own = sorted(entries, key=lambda e: -e["own_ms"])[:12]
    for e in top_cum + top_own:
        e["share"] = e["cum_ms"] / total
    strip = ("file", "name")
    return {
        "profiled_total_ms": total,
        "phases": phases,
        "top_cumulative_planner": [{k: v for k, v in e.items() if k not in strip} for e in top_cum],
        "top_own_time_all": [{k: v for k, v in e.items() if k not in strip} for e in top_own],
    }


def _git_commit() -> str | None:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=HERE, capture_output=True, text=True, timeout=5
        )
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--", "planner"],
            cwd=HERE,
            capture_output=True,
            text=True,
            timeout=5,
        )
        return (
            out.stdout.strip() + ("+dirty(planner/)" if dirty.stdout.strip() else "")
            if out.returncode == 0
            else None
        )
    except (OSError, subprocess.SubprocessError):
        return None


def _stats(xs: list[float]) -> dict:
    return {"median": statistics.median(xs), "min": min(xs), "max": max(xs), "runs": xs}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--repeat", type=int, default=7, help="timed repeats of each measurement (default 7)")
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED, help=f"scenario seed (default {DEFAULT_SEED})")
    ap.add_argument(
        "--output", type=Path, default=DEFAULT_OUTPUT, help=f"JSON file (default {DEFAULT_OUTPUT})"
    )
    ap.add_argument("--no-profile", action="store_true", help="skip the cProfile breakdown")
    args = ap.parse_args(argv)
    if args.repeat < 1:
        ap.error("--repeat must be >= 1")

    t0 = time.perf_counter()
    world, klass = build_world(args.seed)
    build_ms = (time.perf_counter() - t0) * 1000.0
    assert_legal(world, klass)  # also warms up imports and the catalogue
    info = scenario_stats(world, klass)
    ops = baseline(world)  # warm-up

    check_runs, base_runs = [], []
    for _ in range(args.repeat):  # interleaved, so both see the same machine state
        check_runs.append(_timed(check_deployment, world))
        base_runs.append(_timed(baseline, world))
    check_ms = statistics.median(check_runs)
    base_ms = statistics.median(base_runs)
    ratio = check_ms / base_ms
    met = check_ms < TARGET_MS

    prof = None if args.no_profile else profile_check(world)

    # ------------------------------------------------------------------ print
    mp = info["models_per_player"]
    print(
        f'Scenario (seed {args.seed}): {info["battlefield_in"][0]:g}" x {info["battlefield_in"][1]:g}", '
        f"{' + '.join(str(v) for v in mp.values())} models in "
        f"{' + '.join(str(v) for v in info['units_per_player'].values())} units, "
        f"{info['terrain_features']} terrain features "
        f"({info['terrain_kinds']['solid']} solid, {info['terrain_kinds']['area']} area; "
        f"{info['terrain_blocking_los']} block LOS, {info['terrain_impassable']} impassable), "
        f"{info['infiltrate_units']} Infiltrate units "
        f'({len(info["infiltrate_hidden_9_to_12"])} hidden 9-12", '
        f'{len(info["infiltrate_plain_beyond_12"])} beyond 12"); bases: '
        + ", ".join(f"{k} x{v}" for k, v in info["bases"].items())
    )
    print(
        f"check_deployment: LEGAL (asserted). World built once in {build_ms:.0f} ms; "
        f"{args.repeat} timed repeats (after one warm-up)."
    )
    print()
    rows = [
        (
            "check_deployment (median)",
            f"{check_ms:10.1f} ms",
            f"min {min(check_runs):.1f}, max {max(check_runs):.1f}",
        ),
        (
            "baseline shapely loop (median)",
            f"{base_ms:10.1f} ms",
            f"min {min(base_runs):.1f}, max {max(base_runs):.1f}",
        ),
        ("ratio check / baseline", f"{ratio:10.2f} x", "< 1 means the checker is faster than the naive loop"),
        (
            f"target < {TARGET_MS:g} ms",
            f"{'MET' if met else 'NOT MET':>13}",
            f"{check_ms / TARGET_MS:.1f} x the target"
            if not met
            else f"{TARGET_MS - check_ms:.1f} ms to spare",
        ),
    ]
    w0 = max(len(r[0]) for r in rows)
    print(f"{'measure':<{w0}}  {'value':>13}  notes")
    print(f"{'-' * w0}  {'-' * 13}  {'-' * 40}")
    for a, b, c in rows:
        print(f"{a:<{w0}}  {b:>13}  {c}")
    print(
        f"\nbaseline work per run: {ops['polygons']} polygons, {ops['distance_calls']} distance, "
        f"{ops['covered_by_calls']} covered_by, {ops['line_intersects_calls']} LineString.intersects "
        f"({ops['infiltrate_models']} Infiltrate models)"
    )

    if prof is not None:
        total = prof["profiled_total_ms"]
        print(f"\nWhere check time goes (one cProfile run: {total:.0f} ms with profiler overhead):")
        print(f"  {'phase':<36} {'cum ms':>9} {'share':>7} {'calls':>6}")
        for p in prof["phases"]:
            print(f"  {p['what']:<36} {p['cum_ms']:9.1f} {p['share']:7.1%} {p['calls']:6d}")
        print("\nTop 15 planner functions by cumulative time:")
        print(f"  {'cum ms':>9} {'share':>7} {'own ms':>8} {'calls':>8}  function")
        for e in prof["top_cumulative_planner"]:
            print(f"  {e['cum_ms']:9.1f} {e['share']:7.1%} {e['own_ms']:8.1f} {e['ncalls']:8d}  {e['func']}")
        print("\nTop 12 functions by own time (any module):")
        print(f"  {'own ms':>9} {'calls':>8}  function")
        for e in prof["top_own_time_all"]:
            print(f"  {e['own_ms']:9.1f} {e['ncalls']:8d}  {e['func']}")

    # ------------------------------------------------------------------ JSON
    result = {
        "benchmark": "check_deployment",
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "git_commit": _git_commit(),
        "environment": {
            "python": platform.python_version(),
            "shapely": shapely.__version__,
            "numpy": np.__version__,
            "platform": platform.platform(),
            "cpus": os.cpu_count(),
        },
        "seed": args.seed,
        "repeat": args.repeat,
        "scenario": info,
        "world_build_ms": build_ms,
        "legal": True,
        "check_ms": _stats(check_runs),
        "baseline_ms": _stats(base_runs),
        "baseline_work": ops,
        "ratio_check_over_baseline": ratio,
        "target_ms": TARGET_MS,
        "target_met": met,
        "profile": prof,
    }
    args.output.parent.mkdir(parents=True, exist_ok=True)
    gi = args.output.parent / ".gitignore"
    if args.output.parent.resolve() == (HERE / "results").resolve() and not gi.exists():
        gi.write_text("# benchmark results are machine-specific: not committed\n*.json\n")
    args.output.write_text(json.dumps(result, indent=2) + "\n")
    try:
        shown = args.output.resolve().relative_to(Path.cwd())
    except ValueError:
        shown = args.output
    print(f"\nwrote {shown}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
