"""Deep Strike scenarios: a unit in Reserve, an aim point, and its exact odds.

A base scene under one of ``deepstrike_rulesets`` (terrain and two deployed armies, bases and
types written out) gets a blue unit of ``deepstrike_models`` models with Deep Strike, in Reserve
(``arrival: deep_strike``). The aim point is uniform on the battlefield, or (half the time) 2"-8"
from an enemy model, where mishaps are likely. The label holds the odds of
:func:`planner.deepstrike.procedure.odds` (exact over the dice; ``error_bound`` on the angular
integral), as ``planner deepstrike --at X,Y`` prints them, for the formation orientation 0 deg.

With ``deepstrike_restriction`` > 0 (10th/11th only) an enemy unit may hold a restriction (no enemy
Deep Strike arrival within X" of it, :mod:`planner.legality.checks.restriction`) and the aim point is
then set about X" from it: the label (``odds``, and ``restriction``: the findings of rule
``<ruleset>.restriction.within`` with ``positions``, the models' centres) follows that predicate.
"""

from __future__ import annotations

import math
from dataclasses import asdict

import numpy as np

from planner.generate.distributions import GeneratorParams
from planner.generate.scene import GenUnit, base_scene, catalogue_entries, enemy_footprints, r4
from planner.generate.trusted import generated_scenario
from planner.geometry.shapes import footprint
from planner.rules.registry import find_ruleset
from planner.schema import UnitType
from planner.world import resolve

SUBJECT = "subject"


def deepstrike_item(rng: np.random.Generator, p: GeneratorParams, index: int, ruleset: str | None = None) -> dict:
    """One Deep Strike scenario labelled with the exact odds at its aim point."""
    from planner.deepstrike.procedure import deepstrike_rules, judge_landing, make_setup, odds

    rs = ruleset or p.deepstrike_rulesets[int(rng.integers(len(p.deepstrike_rulesets)))]
    scene = base_scene(rng, p, rs)
    entries = [e for e in catalogue_entries(rs, p) if e.type is UnitType.INFANTRY and e.base.shape == "round"]
    entry = entries[int(rng.integers(len(entries)))]
    lo, hi = p.deepstrike_models
    n = int(rng.integers(lo, hi + 1))
    field = find_ruleset(rs).DEEP_STRIKE_FIELD  # 'rules' (5th/7th), 'abilities' (10th/11th)
    scene.units.append(GenUnit({"id": SUBJECT, "name": entry.name, field: ["Deep Strike"],
                                "setup": {"method": "reserves", "arrival": "deep_strike"},
                                "models": [{"base": entry.base.model_dump(mode="json"), "type": entry.type.value}
                                           for _ in range(n)]}, entry, "blue"))
    enemies = enemy_footprints(scene, "blue")
    ward = None
    if p.deepstrike_restriction > 0 and enemies and not deepstrike_rules(rs).scatter \
            and rng.random() < p.deepstrike_restriction:
        ward = _restricting_unit(scene, rng, p, enemies, deepstrike_rules(rs).more_than_in or 0.0,
                                 footprint(entry.base, 0.0, 0.0).outer_radius)
    if ward is not None:
        x, y, how = ward
    elif enemies and rng.random() < 0.5:
        f = enemies[int(rng.integers(len(enemies)))][0]
        ang, d = rng.uniform(0, 2 * math.pi), rng.uniform(2.0, 8.0)
        x = min(max(f.cx + d * math.cos(ang), 0.0), scene.width)
        y = min(max(f.cy + d * math.sin(ang), 0.0), scene.depth)
        how = "near an enemy model"
    else:
        x, y = rng.uniform(0, scene.width), rng.uniform(0, scene.depth)
        how = "uniform on the battlefield"
    x, y = r4(x), r4(y)
    data = scene.data(name=f"deepstrike-{index}", description=f"generated Deep Strike: aim point {how}")
    world = resolve(generated_scenario(data))
    st = make_setup(world, SUBJECT, None, 0.0)
    o = odds(st, x, y, fixed=True)  # the label is for the formation at orientation 0 (its positions)
    data["label"] = {"kind": "deepstrike", "index": index, "unit": SUBJECT, "ruleset": st.rules.ruleset,
                     "at": [x, y], "orientation_deg": 0.0, "aim": how, "exact_bases": st.exact_bases,
                     "odds": asdict(o)}
    if st.restricted:  # the arrival's positions and the restriction findings (the checker's predicate)
        land = judge_landing(st, x, y)
        data["label"]["positions"] = [[r4(cx), r4(cy)] for cx, cy in land.formation.centres]
        data["label"]["restriction"] = [f.model_dump(mode="json") for f in land.findings
                                        if f.rule.endswith(".restriction.within")]
    return data


def _restricting_unit(scene, rng: np.random.Generator, p: GeneratorParams, enemies, arrival_in: float,
                      radius: float) -> tuple[float, float, str] | None:
    """Give one enemy unit a restriction on Deep Strike arrivals within X" (X = the arrival
    distance + U(1, 6)) and aim the subject's first model so that its base is X +/- U(0,
    ``boundary_band``) from that model (a fair coin for the side). Returns the aim point and how it
    was chosen, or None when 12 directions all fall off the battlefield."""
    f, uid, _ = enemies[int(rng.integers(len(enemies)))]
    within = r4(arrival_in + float(rng.uniform(1.0, 6.0)))
    off = float(rng.uniform(0.0, p.boundary_band)) * (1 if rng.random() < 0.5 else -1)
    d = f.outer_radius + within + off + radius
    for _ in range(12):  # a direction that keeps the first model on the battlefield
        ang = float(rng.uniform(0, 2 * math.pi))
        x, y = f.cx + d * math.cos(ang), f.cy + d * math.sin(ang)
        if radius < x < scene.width - radius and radius < y < scene.depth - radius:
            break
    else:
        return None
    unit = next(u for u in scene.units if u.id == uid)
    unit.data.setdefault("restrictions", []).append(
        {"within_in": within, "methods": ["deep_strike"], "name": "generated ward",
         "source": "generated (planner generate: deepstrike_restriction)"})
    return x, y, f"{off:+.3f}\" past the {within:g}\" restriction of enemy unit {uid}"
