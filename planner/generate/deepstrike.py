"""Deep Strike scenarios: a unit in Reserve, an aim point, and its exact odds.

A base scene under one of ``deepstrike_rulesets`` (terrain and two deployed armies, bases and
types written out) gets a blue unit of ``deepstrike_models`` models with Deep Strike, in Reserve
(``arrival: deep_strike``). The aim point is uniform on the battlefield, or (half the time) 2"-8"
from an enemy model, where mishaps are likely. The label holds the odds of
:func:`planner.deepstrike.procedure.odds` (exact over the dice; ``error_bound`` on the angular
integral), as ``planner deepstrike --at X,Y`` prints them, for the formation orientation 0 deg.
"""

from __future__ import annotations

import math
from dataclasses import asdict

import numpy as np

from planner.generate.distributions import GeneratorParams
from planner.generate.scene import GenUnit, base_scene, catalogue_entries, enemy_footprints, r4
from planner.schema import Scenario, UnitType
from planner.world import resolve

SUBJECT = "subject"


def deepstrike_item(rng: np.random.Generator, p: GeneratorParams, index: int, ruleset: str | None = None) -> dict:
    """One Deep Strike scenario labelled with the exact odds at its aim point."""
    from planner.deepstrike.procedure import make_setup, odds

    rs = ruleset or p.deepstrike_rulesets[int(rng.integers(len(p.deepstrike_rulesets)))]
    scene = base_scene(rng, p, rs)
    entries = [e for e in catalogue_entries(rs, p) if e.type is UnitType.INFANTRY and e.base.shape == "round"]
    entry = entries[int(rng.integers(len(entries)))]
    lo, hi = p.deepstrike_models
    n = int(rng.integers(lo, hi + 1))
    scene.units.append(GenUnit({"id": SUBJECT, "name": entry.name, "rules": ["Deep Strike"],
                                "setup": {"method": "reserves", "arrival": "deep_strike"},
                                "models": [{"base": entry.base.model_dump(mode="json"), "type": entry.type.value}
                                           for _ in range(n)]}, entry, "blue"))
    enemies = enemy_footprints(scene, "blue")
    if enemies and rng.random() < 0.5:
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
    world = resolve(Scenario.model_validate(data))
    st = make_setup(world, SUBJECT, None, 0.0)
    o = odds(st, x, y)
    data["label"] = {"kind": "deepstrike", "index": index, "unit": SUBJECT, "ruleset": st.rules.ruleset,
                     "at": [x, y], "orientation_deg": 0.0, "aim": how, "exact_bases": st.exact_bases,
                     "odds": asdict(o)}
    return data
