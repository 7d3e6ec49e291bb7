"""The HH2 areas an Infiltrator must keep out of are measured as the checker measures: to each
enemy unit where it was set up (before a Scout redeploy), leaving out an enemy Infiltrator that
sets up later (case 3); the Scout area to where enemies stand now."""

from __future__ import annotations

from pathlib import Path

import yaml
from shapely.geometry import Point

from planner.legality.checker import check_deployment
from planner.render.areas import infiltrate_exclusions, legal_area
from planner.world import load_scenario

_ZONES = [
    {"id": "red-zone", "player": "red", "polygon": [[0, 0], [72, 0], [72, 12], [0, 12]]},
    {"id": "blue-zone", "player": "blue", "polygon": [[0, 36], [72, 36], [72, 48], [0, 48]]},
]
_R25 = 25 / 25.4 / 2


def _scenario(tmp_path: Path, inf_y: float, order: tuple[int, int] | None = None) -> Path:
    """Red: a Scout unit set up at (36, 6) and redeployed to (36, 11); a red Infiltrator at (60, 24).
    Blue: an Infiltrator (25 mm) at (36, inf_y)."""
    m = {"base": {"diameter_mm": 25}, "type": "Infantry"}
    red_inf = {"id": "red-inf", "rules": ["Infiltrate"], "models": [m | {"x": 60, "y": 24}],
               "setup": {"method": "infiltrate"} | ({"order": order[0]} if order else {})}
    blue_inf = {"id": "recon", "rules": ["Infiltrate"], "models": [m | {"x": 36, "y": inf_y}],
                "setup": {"method": "infiltrate"} | ({"order": order[1]} if order else {})}
    data = {
        "ruleset": "hh2", "battlefield": {"width": 72, "depth": 48}, "deployment_zones": _ZONES,
        "armies": [
            {"player": "red", "units": [
                {"id": "scouts", "rules": ["Scout"], "models": [m | {"x": 36, "y": 11}],
                 "setup": {"method": "scout", "from": [[36, 6]]}},
                red_inf]},
            {"player": "blue", "units": [
                {"id": "tac", "models": [m | {"x": 10, "y": 44}]}, blue_inf]},
        ],
    }
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def test_exclusion_is_round_where_the_scouts_set_up(tmp_path):
    world = load_scenario(_scenario(tmp_path, 30))
    _, areas = infiltrate_exclusions(world, "blue")
    scouts = {a.distance_in: a.geom for a in areas if a.source == "scouts"}
    # 12" plain-sight area round the base at (36, 6): its top at 6 + r + 12
    top = 6 + _R25 + 12
    assert abs(scouts[12.0].bounds[3] - top) < 1e-3
    assert abs(scouts[9.0].bounds[3] - (6 + _R25 + 9)) < 1e-3


def test_legal_area_agrees_with_the_checker_at_the_scouts_start(tmp_path):
    # recon's base 12.05" from the Scouts' first position and 7.05" from where they stand now:
    # legal (the checker measures Infiltrate to the set-up before the Scout move), and shaded certain
    y = 6 + _R25 + 12.05 + _R25
    world = load_scenario(_scenario(tmp_path, y, order=(1, 2)))
    report = check_deployment(world)
    recon = next(u for u in report.units if u.unit == "recon")
    assert recon.legal
    la = legal_area(world, "recon")
    assert la.certain.contains(Point(36, y).buffer(_R25))
    # 11.95": only if hidden, and the checker says seen (open table)
    y2 = 6 + _R25 + 11.95 + _R25
    world2 = load_scenario(_scenario(tmp_path, y2, order=(1, 2)))
    assert not next(u for u in check_deployment(world2).units if u.unit == "recon").legal
    la2 = legal_area(world2, "recon")
    assert not la2.certain.contains(Point(36, y2).buffer(_R25))
    base = Point(36, y2).buffer(_R25)
    assert la2.if_hidden.union(la2.certain).contains(base) and la2.if_hidden.intersects(base)


def test_a_later_enemy_infiltrator_is_no_observer_in_the_legal_area(tmp_path):
    # red-inf at (60, 24) sets up after recon (orders 1 and 2 swapped): recon's area ignores it
    world = load_scenario(_scenario(tmp_path, 30, order=(2, 1)))
    la = legal_area(world, "recon")
    assert la.certain.contains(Point(60, 30).buffer(_R25))  # 6" from red-inf, which is not there yet
    world_before = load_scenario(_scenario(tmp_path, 30, order=(1, 2)))
    assert not legal_area(world_before, "recon").certain.contains(Point(60, 30).buffer(_R25))
