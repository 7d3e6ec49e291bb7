"""Builders for in-memory 40k scenarios (tests only)."""

from __future__ import annotations

from planner.legality.checker import check_deployment
from planner.legality.report import LegalityReport
from planner.schema import Scenario
from planner.world import World, resolve

R32 = 16 / 25.4
R40 = 20 / 25.4


def dawn_of_war(depth: float = 12.0) -> list[dict]:
    """Dawn of War zones on 60" x 44": blue along y=0, red along y=44, ``depth`` deep."""
    return [
        {"id": "blue-dz", "player": "blue", "polygon": [[0, 0], [60, 0], [60, depth], [0, depth]]},
        {"id": "red-dz", "player": "red", "polygon": [[0, 44 - depth], [60, 44 - depth], [60, 44], [0, 44]]},
    ]


def model(x, y, diameter=32, **extra):
    m = {"base": {"diameter_mm": diameter}, **extra}
    if x is not None:
        m["x"], m["y"] = x, y
    return m


def unit(uid, models, *, keywords=("INFANTRY",), abilities=(), setup=None, **extra):
    u = {"id": uid, "keywords": list(keywords), "abilities": list(abilities), "models": models, **extra}
    if setup is not None:
        u["setup"] = setup
    return u


def world(ruleset, blue, red, *, zones=None, terrain=(), **extra) -> World:
    data = {
        "ruleset": ruleset,
        "battlefield": {"width": 60, "depth": 44},
        "terrain": list(terrain),
        "deployment_zones": zones if zones is not None else dawn_of_war(),
        "armies": [{"player": "blue", "units": list(blue)}, {"player": "red", "units": list(red)}],
        **extra,
    }
    return resolve(Scenario.model_validate(data), require_positions=True)


def check(ruleset, blue, red, **kw) -> LegalityReport:
    return check_deployment(world(ruleset, blue, red, **kw))


def failed(report: LegalityReport, unit: str | None = None) -> set[str]:
    return {v.rule for v in report.violations if unit is None or v.unit == unit}


def finding(report: LegalityReport, unit: str, rule: str):
    for u in report.units:
        if u.unit == unit:
            for f in u.findings:
                if f.rule == rule:
                    return f
    raise AssertionError(f"no finding {rule} for {unit}")


RED_LINE = unit("red-line", [model(20 + 2 * i, 40) for i in range(5)])
"""A red unit at the back of its zone, far from everything."""
