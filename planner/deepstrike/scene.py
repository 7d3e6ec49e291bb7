"""A reproducible Deep Strike test scene (tests and the benchmark): 72" x 48", 12 terrain features
(impassable, difficult, dangerous, a building, one non-convex ruin), enemy and friendly models,
and a reserve unit of ``n`` models of ``mm`` bases that will Deep Strike."""

from __future__ import annotations

from planner.schema import Scenario
from planner.world import World, resolve


def _rect(x, y, w, h):
    return [[x, y], [x + w, y], [x + w, y + h], [x, y + h]]


def scene_data(ruleset: str = "wh40k7", n: int = 10, mm: float = 32.0, ovals: bool = True) -> dict:
    terrain = [
        {"id": "crater-1", "kind": "open", "traits": ["difficult"], "footprint": _rect(8, 8, 5, 4)},
        {"id": "crater-2", "kind": "open", "traits": ["difficult"], "footprint": _rect(58, 36, 5, 5)},
        {"id": "ruin-L", "kind": "area", "traits": ["blocks_line_of_sight", "difficult"],
         "footprint": [[20, 30], [28, 30], [28, 33], [23, 33], [23, 38], [20, 38]]},
        {"id": "ruin-2", "kind": "area", "traits": ["difficult"], "footprint": _rect(44, 8, 6, 6)},
        {"id": "lake", "kind": "open", "traits": ["impassable"], "footprint": [[33, 20], [39, 19], [41, 24], [36, 28],
                                                                                [31, 25]]},
        {"id": "cliff", "kind": "solid", "traits": ["impassable", "blocks_line_of_sight"],
         "footprint": _rect(12, 20, 2, 8)},
        {"id": "pillar", "kind": "solid", "traits": ["impassable"], "footprint": _rect(60, 20, 1.5, 1.5)},
        {"id": "bastion", "kind": "solid", "traits": ["blocks_line_of_sight"], "footprint": _rect(50, 28, 6, 4),
         "building": {"capacity": 10}},
        {"id": "mines", "kind": "open", "traits": ["dangerous"], "footprint": _rect(26, 4, 4, 3)},
        {"id": "woods", "kind": "area", "traits": ["difficult"], "footprint": [[2, 38], [8, 36], [10, 42], [4, 45]]},
        {"id": "wall", "kind": "solid", "traits": ["impassable"], "footprint": _rect(40, 40, 8, 0.5)},
        {"id": "hill", "kind": "solid", "traits": [], "footprint": _rect(64, 6, 5, 5)},
    ]
    enemies = [{"base": {"diameter_mm": 32}, "x": 30 + 1.5 * i, "y": 42} for i in range(5)]
    enemies += [{"base": {"diameter_mm": 40}, "x": 46 + 2 * i, "y": 20} for i in range(3)]
    tank = {"id": "tank", "type": "Vehicle", "models": [{"base": {"length_in": 4.6, "width_in": 3.6}, "x": 16,
                                                          "y": 14, "facing": 30}]}
    bikes = {"id": "bikes", "type": "Cavalry", "models": [{"base": {"length_mm": 75, "width_mm": 42}, "x": 66 + 2 * i,
                                                           "y": 30, "facing": 90} for i in range(2)]}
    friends = [{"base": {"diameter_mm": 32}, "x": 4 + 1.5 * i, "y": 4} for i in range(5)]
    return {
        "ruleset": ruleset,
        "battlefield": {"width": 72, "depth": 48},
        "terrain": terrain,
        "armies": [
            {"player": "blue", "units": [
                {"id": "ds", "type": "Infantry", "rules": ["Deep Strike"],
                 "setup": {"method": "reserves", "arrival": "deep_strike"},
                 "models": [{"base": {"diameter_mm": mm}} for _ in range(n)]},
                {"id": "friends", "type": "Infantry", "models": friends}]},
            {"player": "red", "units": [
                {"id": "squad", "type": "Infantry", "models": enemies}, tank, *([bikes] if ovals else [])]},
        ],
    }


def scene(ruleset: str = "wh40k7", n: int = 10, mm: float = 32.0, ovals: bool = True) -> World:
    return resolve(Scenario.model_validate(scene_data(ruleset, n, mm, ovals)))
