"""Legality scenarios: a base scene plus one *subject* unit set just either side of a rule's threshold.

Each item draws a target (weights ``legality_targets``), a side (a fair coin: ``legal`` or
``illegal``) and an offset U(0, ``boundary_band``) inches, then builds:

- ``infiltrate_distance``: an Infiltrate unit (``setup: infiltrate``) whose closest enemy distance
  is 9" or 12" (``hh2.rules``) +/- the offset (found by Newton steps along a ray, exact distances);
  beyond 12" it may stand in plain sight; between 9" and 12" it must also be hidden;
- ``infiltrate_hidden``: a one-model Infiltrator 9"-12" from the enemy, behind a corner of a
  line-of-sight-blocking feature, its base the offset inside (hidden) or outside (seen) the sight
  line that grazes the corner from the far edge of the nearest enemy model's base;
- ``zone_edge``: a deployed unit moved so that its worst model is the offset inside or outside an
  inner edge of its deployment zone (``hh2.deployment.wholly_within_zone``);
- ``coherency``: a single-rank unit whose last model is its coherency range +/- the offset from
  its neighbour (``hh2.coherency``);
- ``overlap``: a unit set up the offset clear of, or overlapping, a friendly unit
  (``hh2.bases.no_overlap``).

The label is the checker's verdict on the scenario as written (never the intended side): the
intended side only steers the generator towards balanced classes; the manifest shows the balance.
"""

from __future__ import annotations

import bisect
import math
from functools import lru_cache
from typing import TYPE_CHECKING, cast

import numpy as np
import shapely

from planner.generate.distributions import GeneratorParams
from planner.generate.scene import (
    GenUnit,
    Scene,
    base_scene,
    block_offsets,
    catalogue_entries,
    enemy_footprints,
    free_spot,
    model_count,
    nearest_distance,
    r4,
    ranks_for,
    uniform,
    unit_models,
)
from planner.generate.trusted import generated_scenario
from planner.geometry.shapes import clearance_inside, distance_to_polygon, footprint, signed_distance
from planner.legality.checker import deployment_findings, failed_findings
from planner.legality.checks.coherency import coherency_range
from planner.rules.registry import DEFAULT_RULESET, find_ruleset
from planner.schema import SubType, UnitType
from planner.world import resolve

if TYPE_CHECKING:
    from planner.rules.hh2 import HorusHeresy2

SUBJECT = "subject"
SCENES_PER_TARGET = 3
"""Scenes tried for one target before another target is drawn."""


def _pick_target(rng: np.random.Generator, p: GeneratorParams) -> str:
    """A target drawn by its weight: ``names[rng.choice(len(names), p=w / w.sum())]``, the same draw
    (numpy's ``choice`` takes one ``random()`` and finds it in the cumulative weights, normalised
    by their last value, with ``searchsorted(side='right')``), the table kept per set of weights."""
    names, prob, cdf = _target_table(tuple(p.legality_targets.items()))
    if cdf is None:  # weights whose sum overflows: numpy's choice, and its error
        return names[int(rng.choice(len(names), p=prob))]
    return names[bisect.bisect_right(cdf, rng.random())]


@lru_cache(maxsize=16)
def _target_table(targets: tuple[tuple[str, float], ...]) -> tuple[list[str], np.ndarray, list[float] | None]:
    """The targets of positive weight in name order, their probabilities and cumulative
    probabilities as ``Generator.choice`` computes them (``p.cumsum()``, divided by its last
    value); None for the latter unless every probability is a finite number (then ``choice``
    would accept them)."""
    weights = dict(targets)
    names = sorted(k for k, v in weights.items() if v > 0)
    w = np.array([weights[k] for k in names], float)
    prob = w / w.sum()
    if not (np.isfinite(w.sum()) and np.all(np.isfinite(prob))):
        return names, prob, None
    cdf = prob.cumsum()
    cdf /= cdf[-1]
    return names, prob, cdf.tolist()


def _infantry(entries):
    return [e for e in entries if e.type is UnitType.INFANTRY and e.base.shape == "round"]


def _on_table(scene: Scene, fps) -> bool:
    t = scene.table
    return all(clearance_inside(f, t) >= 0.05 for f in fps)


def _clear_of_no_go(scene: Scene, fps) -> bool:
    no_go = scene.no_go()
    if not no_go or not fps:
        return True
    centres = shapely.points([(f.cx, f.cy) for f in fps])
    for q in no_go:
        near = shapely.distance(q, centres).tolist()  # each centre's distance, in one call
        for f, d in zip(fps, near, strict=True):
            if d <= f.outer_radius + 0.05 and distance_to_polygon(f, q) < 0.05:
                return False
    return True


def _clear_of_models(scene: Scene, fps, skip: str | None = None) -> bool:
    return nearest_distance(fps, scene.footprints_except(skip)) > 0.05


def _solve_along(place, measure, target: float, start: float, steps: int = 12) -> tuple[float, float] | None:
    """Find t with measure(place(t)) == target by Newton steps of slope 1 (a 1-Lipschitz distance)."""
    t = start
    for _ in range(steps):
        d = measure(place(t))
        if not math.isfinite(d):
            return None
        if abs(d - target) < 1e-7:
            return t, d
        t += target - d
    d = measure(place(t))
    return (t, d) if abs(d - target) < 1e-5 else None


# --------------------------------------------------------------------------- targets


def _infiltrate_distance(scene: Scene, rng, p, entries, legal_side: bool, off: float, pick: float) -> dict | None:
    R = cast("HorusHeresy2", find_ruleset(scene.ruleset))
    # the threshold is drawn once per item (``pick``), so a hard case is retried, not swapped
    threshold = R.INFILTRATE_HIDDEN_MORE_THAN_IN if pick < 0.5 else R.INFILTRATE_PLAIN_SIGHT_MORE_THAN_IN
    target = threshold + off if legal_side else threshold - off
    if threshold == R.INFILTRATE_HIDDEN_MORE_THAN_IN and legal_side:
        # just more than 9": legal only if hidden, so set it well behind a corner
        info = _behind_corner(scene, rng, entries, uniform(rng, 0.3, 1.0), target, check_others=True)
        if info is not None:
            info.update({"rule": f"{scene.ruleset}.infiltrate.distance", "threshold": threshold})
        return info
    enemies = enemy_footprints(scene, "blue")
    if not enemies:
        return None
    inf = _infantry(entries)
    entry = inf[int(rng.integers(len(inf)))]
    n = int(rng.integers(1, 6))
    offs = block_offsets(entry, n, ranks_for(n, rng))
    blockers = [q for _, q in scene.blocking()]
    efs = [e[0] for e in enemies]
    for _ in range(12):
        ef, _, _ = enemies[int(rng.integers(len(enemies)))]
        ang = uniform(rng, 0.0, 2 * math.pi)
        if threshold == R.INFILTRATE_HIDDEN_MORE_THAN_IN and blockers and rng.random() < 0.7:
            # aim behind a sight-blocking feature near that enemy model, to give "hidden" a chance
            q = min(blockers, key=lambda b: b.centroid.distance(_pt(ef)))
            ang = math.atan2(q.centroid.y - ef.cy, q.centroid.x - ef.cx) + rng.normal(0, 0.2)
        ux, uy = math.cos(ang), math.sin(ang)

        def place(t, ux=ux, uy=uy, ef=ef):
            return [footprint(entry.base, ef.cx + ux * t + dx, ef.cy + uy * t + dy, 90.0) for dx, dy in offs]

        sol = _solve_along(place, lambda fps: nearest_distance(fps, efs), target,
                           target + 2 * entry.base.diameter_mm / 25.4 * (n ** 0.5) + 1.0)
        if sol is None:
            continue
        fps = place(sol[0])
        if not (_on_table(scene, fps) and _clear_of_no_go(scene, fps) and _clear_of_models(scene, fps)):
            continue
        centres = [(f.cx, f.cy) for f in fps]
        scene.units.append(GenUnit({"id": SUBJECT, "name": entry.name, "rules": ["Infiltrate"],
                                    "setup": {"method": "infiltrate"},
                                    "models": unit_models(entry, centres, scene.use_profiles)}, entry, "blue"))
        return {"rule": f"{scene.ruleset}.infiltrate.distance", "threshold": threshold}
    return None


def _pt(f):
    from shapely.geometry import Point

    return Point(f.cx, f.cy)


def _infiltrate_hidden(scene: Scene, rng, p, entries, legal_side: bool, off: float, pick: float) -> dict | None:
    R = cast("HorusHeresy2", find_ruleset(scene.ruleset))
    shift = off if legal_side else -off
    d = uniform(rng, R.INFILTRATE_HIDDEN_MORE_THAN_IN + 0.5, R.INFILTRATE_PLAIN_SIGHT_MORE_THAN_IN - 0.5)
    info = _behind_corner(scene, rng, entries, shift, d, check_others=legal_side)
    if info is not None:
        info.update({"rule": f"{scene.ruleset}.infiltrate.hidden", "threshold": None})
    return info


def _behind_corner(scene: Scene, rng, entries, shift: float, distance: float, *,
                   check_others: bool, tries: int = 20) -> dict | None:
    """Set a one-model Infiltrator behind a silhouette corner of a sight-blocking feature, as seen
    from the enemy model nearest that corner: its base ``shift`` inches on the shadow side of the
    line that grazes the corner from the far edge of that model's base (negative: in view), and
    ``distance`` inches from the nearest enemy model (exact). ``check_others``: also reject spots
    that another enemy model plainly sees (a cheap sufficient test)."""
    enemies = enemy_footprints(scene, "blue")
    blockers = [q for _, q in scene.blocking()]
    if not enemies or not blockers:
        return None
    inf = _infantry(entries)
    entry = inf[int(rng.integers(len(inf)))]
    rt = entry.base.diameter_mm / 25.4 / 2
    efs = [e[0] for e in enemies]
    # corners near enough the enemy to hide a model the given distance away, with their observer:
    # the enemy model nearest the corner
    exy = np.array([(f.cx, f.cy) for f in efs])
    outlines = [(q, list(q.exterior.coords)[:-1]) for q in blockers]
    cxy = np.array([c for _, verts in outlines for c in verts])
    # every corner against every enemy model in one pass (the same floats as corner by corner)
    dd = np.hypot(exy[None, :, 0] - cxy[:, 0:1], exy[None, :, 1] - cxy[:, 1:2])
    ks = np.argmin(dd, axis=1)
    near = dd[np.arange(len(cxy)), ks]
    corners = []
    row = 0
    for q, verts in outlines:
        for c in verts:
            if 2.0 < near[row] < distance + 1.0:
                corners.append((q, verts, c, int(ks[row]), float(near[row])))
            row += 1
    if not corners:
        return None
    blocker_array = np.array(blockers, dtype=object)
    for _ in range(tries):
        q, verts, c, k, dist = corners[int(rng.integers(len(corners)))]
        ef, eu, ei = enemies[k]
        dx, dy = c[0] - ef.cx, c[1] - ef.cy
        ux, uy = dx / dist, dy / dist
        sides = [ux * (v[1] - c[1]) - uy * (v[0] - c[0]) for v in verts if v != c]
        if not (all(v > 1e-9 for v in sides) or all(v < -1e-9 for v in sides)):
            continue  # not a silhouette corner seen from the observer
        side = 1.0 if sides[0] > 0 else -1.0
        # the grazing line: from the far edge of the observer's base, past the corner
        alpha = math.asin(min(1.0, ef.outer_radius / dist))
        a = math.atan2(uy, ux) + side * alpha
        lx, ly = math.cos(a), math.sin(a)
        nx, ny = -ly * side, lx * side  # normal towards the shadow side
        off_line = rt + shift

        def place(t, c=c, lx=lx, ly=ly, nx=nx, ny=ny, off_line=off_line):
            return [footprint(entry.base, c[0] + lx * t + nx * off_line, c[1] + ly * t + ny * off_line, 90.0)]

        # how far past the corner: so that the nearest enemy model is ``distance`` away; first the
        # cheap tests at the distance from the observer alone
        s0 = distance + ef.outer_radius + rt - dist
        if not rt + 0.5 <= s0 <= 8.0:
            continue
        x0, y0 = c[0] + lx * s0 + nx * off_line, c[1] + ly * s0 + ny * off_line
        if not (rt < x0 < scene.width - rt and rt < y0 < scene.depth - rt):
            continue
        # the tests below draw nothing, so their order is free: the cheapest and most selective
        # first (measured: the solve, then standing in a feature, which rejects half the spots)
        near = [f for f in efs if math.hypot(f.cx - x0, f.cy - y0) < distance + 6.0]
        sol = _solve_along(place, lambda fps, near=near: nearest_distance(fps, near), distance, s0)
        if sol is None or not rt + 0.5 <= sol[0] <= 8.0:
            continue
        fps = place(sol[0])
        x, y = fps[0].cx, fps[0].cy
        if bool((shapely.distance(blocker_array, shapely.Point(x, y)) < rt + 0.05).any()):
            continue  # standing in (or touching) a feature: not hidden by it (each distance in one call)
        if not (_on_table(scene, fps) and _clear_of_no_go(scene, fps) and _clear_of_models(scene, fps)):
            continue
        others = [f for f in efs if f is not ef] if check_others else []
        if check_others and _seen_by_others(x0, y0, rt, others, blockers):
            continue  # another enemy model plainly sees the spot at the observer's distance
        if check_others and _seen_by_others(x, y, rt, others, blockers):
            continue  # another enemy model plainly sees it: not a grazing case
        scene.units.append(GenUnit({"id": SUBJECT, "name": entry.name, "rules": ["Infiltrate"],
                                    "setup": {"method": "infiltrate"},
                                    "models": unit_models(entry, [(x, y)], scene.use_profiles)}, entry, "blue"))
        return {"corner": [r4(c[0]), r4(c[1])], "feature": _feature_id(scene, q), "observer": f"{eu}/{ei + 1}"}
    return None


def _seen_by_others(x: float, y: float, rt: float, others, blockers) -> bool:
    """A cheap sufficient test of being seen: a clear line between the base centres, or along
    either side between points just inside the two bases (a feature the observer stands in does
    not block its sight)."""
    if not others:
        return False
    ends = []
    for f in others:
        dx, dy = x - f.cx, y - f.cy
        ln = math.hypot(dx, dy)
        nx, ny = -dy / ln, dx / ln
        ro, rr = 0.98 * f.inner_radius, 0.98 * rt
        for k in (-1.0, 0.0, 1.0):
            ends.append([(f.cx + k * nx * ro, f.cy + k * ny * ro), (x + k * nx * rr, y + k * ny * rr)])
    lines = shapely.linestrings(ends)
    obs = shapely.points([(f.cx, f.cy) for f in others])
    rad = np.array([f.outer_radius for f in others])
    feats = np.array(blockers, dtype=object)
    shapely.prepare(feats)  # many lines against few polygons; idempotent, and the checker prepares the same
    # one shapely call per predicate over every (line, feature) pair: line i is blocked if some
    # feature it crosses is not one its observer stands in
    stands = np.repeat(shapely.distance(obs[:, None], feats[None, :]) <= rad[:, None], 3, axis=0)
    blocked = (shapely.intersects(lines[:, None], feats[None, :]) & ~stands).any(axis=1)
    return not bool(blocked.all())


def _feature_id(scene: Scene, q) -> str:
    for t, poly in zip(scene.terrain, scene.terrain_polys, strict=True):
        if poly is q:
            return t["id"]
    return ""


def _inner_edges(scene: Scene, zone) -> list[tuple[tuple[float, float], tuple[float, float]]]:
    pts = list(zone.exterior.coords)
    out = []
    for a, b in zip(pts[:-1], pts[1:], strict=True):
        on_edge = (a[0] == b[0] and a[0] in (0.0, scene.width)) or (a[1] == b[1] and a[1] in (0.0, scene.depth))
        if not on_edge:
            out.append((a, b))
    return out


def _zone_edge(scene: Scene, rng, p, entries, legal_side: bool, off: float, pick: float) -> dict | None:
    zone = scene.zones["blue"]
    edges = _inner_edges(scene, zone)
    units = scene.units_of("blue")
    if not edges or not units:
        return None
    target = off if legal_side else -off
    for _ in range(8):
        u = units[int(rng.integers(len(units)))]
        a, b = edges[int(rng.integers(len(edges)))]
        ex, ey = b[0] - a[0], b[1] - a[1]
        ln = math.hypot(ex, ey)
        # outward normal: away from the zone's interior
        nx, ny = ey / ln, -ex / ln
        mid = ((a[0] + b[0]) / 2 + nx * 0.01, (a[1] + b[1]) / 2 + ny * 0.01)
        from shapely.geometry import Point
        if zone.contains(Point(mid)):
            nx, ny = -nx, -ny
        # slide along the edge to a random spot, then towards it
        cen = np.mean(np.array(u.centres()), axis=0)
        t_along = uniform(rng, 0.2, 0.8)
        px, py = a[0] + ex * t_along, a[1] + ey * t_along
        proj = (cen[0] - px) * nx + (cen[1] - py) * ny  # negative: inside
        sx, sy = px + nx * proj - cen[0], py + ny * proj - cen[1]
        base = [(x + sx, y + sy) for x, y in u.centres()]
        facing = u.data["models"][0].get("facing", 90.0)

        def place(t, base=base, nx=nx, ny=ny, u=u, facing=facing):
            return [footprint(u.entry.base, x + nx * t, y + ny * t, facing) for x, y in base]

        def clearance(fps, zone=zone):
            return min(clearance_inside(f, zone) for f in fps)

        # clearance falls by one inch for every inch moved outwards: solve clearance == target
        sol = _solve_along(lambda t: place(-t), clearance, target, 0.0)
        if sol is None:
            continue
        fps = place(-sol[0])
        if not (_on_table(scene, fps) and _clear_of_no_go(scene, fps) and _clear_of_models(scene, fps, skip=u.id)):
            continue
        for m, f in zip(u.data["models"], fps, strict=True):
            m["x"], m["y"] = r4(f.cx), r4(f.cy)
        u.moved()
        u.data["id"] = SUBJECT
        return {"rule": f"{scene.ruleset}.deployment.wholly_within_zone", "threshold": 0.0}
    return None


def _coherency(scene: Scene, rng, p, entries, legal_side: bool, off: float, pick: float) -> dict | None:
    inf = [e for e in entries if e.type is UnitType.INFANTRY]
    entry = inf[int(rng.integers(len(inf)))]
    n = max(2, min(model_count(entry, rng, p), 6))
    from planner.world import ModelInfo

    mi = ModelInfo("x", 0, "1", "", entry.base, entry.type, frozenset(entry.subtypes), frozenset(), 1, 0, 0, 90)
    rng_in = coherency_range([mi] * n, cast("HorusHeresy2", find_ruleset(scene.ruleset)))
    target = rng_in - off if legal_side else rng_in + off
    offs = block_offsets(entry, n - 1, 1)
    along, across = _half(entry)
    # the last model continues the line, ``target`` clear of the one before it
    last0 = offs[-1]
    full = offs + [(last0[0] + 2 * across + target, last0[1])]
    centres = free_spot(scene, rng, scene.zones["blue"], entry, full)
    if centres is None:
        return None
    prev = footprint(entry.base, *centres[-2], 90.0)

    def place(t):
        return footprint(entry.base, centres[-2][0] + 2 * across + t, centres[-2][1], 90.0)

    sol = _solve_along(place, lambda f: signed_distance(prev, f), target, target)
    if sol is None:
        return None
    last = place(sol[0])
    centres[-1] = (last.cx, last.cy)
    scene.units.append(GenUnit({"id": SUBJECT, "name": entry.name,
                                "setup": {"method": "deployment_zone", "zone": scene.zone_ids["blue"]},
                                "models": unit_models(entry, centres, scene.use_profiles)}, entry, "blue"))
    sub = " (Close-order)" if SubType.CLOSE_ORDER in entry.subtypes else ""
    return {"rule": f"{scene.ruleset}.coherency", "threshold": rng_in, "note": f"coherency range {rng_in:g}\"{sub}"}


def _half(entry) -> tuple[float, float]:
    from planner.generate.scene import base_half_extents

    return base_half_extents(entry.base)


def _overlap(scene: Scene, rng, p, entries, legal_side: bool, off: float, pick: float) -> dict | None:
    units = scene.units_of("blue")
    if not units:
        return None
    target = off if legal_side else -off
    inf = _infantry(entries)
    for _ in range(10):
        host = units[int(rng.integers(len(units)))]
        entry = inf[int(rng.integers(len(inf)))]
        n = model_count(entry, rng, p)
        offs = block_offsets(entry, n, ranks_for(n, rng))
        hf = host.footprints()
        cen = np.mean(np.array(host.centres()), axis=0)
        ang = uniform(rng, 0.0, 2 * math.pi)
        ux, uy = math.cos(ang), math.sin(ang)

        def place(t, ux=ux, uy=uy, cen=cen, entry=entry, offs=offs):
            return [footprint(entry.base, cen[0] + ux * t + dx, cen[1] + uy * t + dy, 90.0) for dx, dy in offs]

        sol = _solve_along(place, lambda fps, hf=hf: nearest_distance(fps, hf), target, 12.0)
        if sol is None:
            continue
        fps = place(sol[0])
        zone = scene.zones["blue"]
        if min(clearance_inside(f, zone) for f in fps) < 0.05:
            continue
        if not (_clear_of_no_go(scene, fps) and _clear_of_models(scene, fps, skip=host.id)):
            continue
        scene.units.append(GenUnit({"id": SUBJECT, "name": entry.name,
                                    "setup": {"method": "deployment_zone", "zone": scene.zone_ids["blue"]},
                                    "models": unit_models(entry, [(f.cx, f.cy) for f in fps], scene.use_profiles)},
                                   entry, "blue"))
        return {"rule": f"{scene.ruleset}.bases.no_overlap", "threshold": 0.0, "other_unit": host.id}
    return None


def verdict(world) -> tuple[bool, list[str], list]:
    """The label's part of :func:`planner.legality.checker.check_deployment`'s report on
    ``world``: whether it is legal, the rule ids it breaks (sorted, once each) and the subject
    unit's findings. The same checks (:func:`deployment_findings`) and the same violations
    (:func:`failed_findings`), without the report's records (a unit report per unit, the
    violations, the rulings applied), which a label does not hold."""
    findings = deployment_findings(world)
    if SUBJECT not in world.units:
        raise ValueError(f"the scene has no unit {SUBJECT!r}")
    failed = failed_findings(world, findings)
    return not failed, sorted({f.rule for f in failed}), findings.get(SUBJECT, [])


BUILDERS = {"infiltrate_distance": _infiltrate_distance, "infiltrate_hidden": _infiltrate_hidden,
            "zone_edge": _zone_edge, "coherency": _coherency, "overlap": _overlap}


def legality_item(rng: np.random.Generator, p: GeneratorParams, index: int, ruleset: str = DEFAULT_RULESET) -> dict:
    """One labelled legality scenario: the scenario data with a ``label`` object.

    Draws scenes until the target's builder succeeds (each attempt from the same stream, so the
    result depends only on the item's seed).
    """
    entries = catalogue_entries(ruleset, p)
    target = _pick_target(rng, p)
    legal_side = bool(rng.random() < 0.5)
    off = uniform(rng, 0.0, p.boundary_band)
    pick = float(rng.random())
    info = None
    for attempt in range(1, 101):
        scene = base_scene(rng, p, ruleset)
        info = BUILDERS[target](scene, rng, p, entries, legal_side, off, pick)
        if info is not None:
            break
        if attempt % SCENES_PER_TARGET == 0:
            # this case is rare in these scenes: draw another (the side of the threshold stays)
            target = _pick_target(rng, p)
            pick = float(rng.random())
    if info is None:
        raise RuntimeError(f"item {index}: could not build a near-boundary case in 100 scenes")
    data = scene.data(name=f"legality-{index}", description=f"generated: {target}, intended "
                                                             f"{'legal' if legal_side else 'illegal'}")
    legal, violations, subject_findings = verdict(resolve(generated_scenario(data), require_positions=True))
    margins = [f.margin for f in subject_findings if f.rule == info["rule"] and f.margin is not None]
    label = {
        "kind": "legality",
        "index": index,
        "legal": legal,
        "violations": violations,
        "exit_code": 0 if legal else 1,
        "target": target,
        "target_rule": info["rule"],
        "threshold": info.get("threshold"),
        "intended": "legal" if legal_side else "illegal",
        "offset": r4(off if legal_side else -off),
        "subject_unit": SUBJECT,
        "subject_margin": min(margins) if margins else None,
        "deployment_map": scene.deployment_map,
        "details": {k: v for k, v in info.items() if k not in ("rule", "threshold")},
    }
    if legal != legal_side:  # the scene missed the side aimed at: the description says the verdict apart
        found = "legal" if legal else f"illegal ({', '.join(label['violations'])})"
        data["description"] = f"generated: {target}, aimed at {label['intended']}; the check found it {found}"
    data["label"] = label
    return data
