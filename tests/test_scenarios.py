"""The bundled scenarios in ``scenarios/``: each loads and gets its documented verdict.

The scenarios are self-contained (armies hand-converted from the rosters, bases from the catalogue);
these tests read only the repository.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from planner.errors import ScenarioError
from planner.legality.checker import check_deployment
from planner.schema import SetupMethod
from planner.world import load_scenario

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = ROOT / "scenarios"

LONG_EDGE = SCENARIOS / "long-edge-ravenguard-vs-ironhands.yaml"
SHORT_EDGE = SCENARIOS / "short-edge-chogorian-vs-berserkers.yaml"
QUARTERS = SCENARIOS / "quarters-ironhands-vs-berserkers.yaml"
PLAN = SCENARIOS / "plan-ravenguard-infiltrate.yaml"

LEGAL = [LONG_EDGE, QUARTERS]

# the violations the short-edge scenario was built to show: (rule id, unit id)
SHORT_EDGE_VIOLATIONS = {
    ("hh2.infiltrate.distance", "ws-falcons-claws"),  # infiltrates 8.5" from we-tactical-1
    ("hh2.infiltrate.hidden", "ws-seekers"),  # 10.5" from we-predators, in plain sight
    ("hh2.ic.infiltrate", "ws-centurion"),  # IC without Infiltrate joins Infiltrators
    ("hh2.infiltrate.eligible", "ws-centurion"),  # ... and so sets up by Infiltrate without it
    ("hh2.scout.distance", "ws-recon"),  # Infantry Scout move of 6.5"
    ("hh2.deployment.wholly_within_zone", "we-tactical-1"),  # sergeant 0.33" over the zone edge
    ("hh2.coherency", "we-tactical-2"),  # one marine 3.9" from the squad
}


def _check(path: Path):
    return check_deployment(load_scenario(path, require_positions=True))


def _cli(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "planner", "check", str(path)], capture_output=True, text=True,
                          cwd=ROOT, timeout=300)


def test_every_bundled_scenario_is_covered():
    bundled = {p.name for p in SCENARIOS.glob("*.yaml")}
    assert {p.name for p in [LONG_EDGE, SHORT_EDGE, QUARTERS, PLAN]} <= bundled
    readme = (SCENARIOS / "README.md").read_text(encoding="utf-8")
    for name in bundled:
        assert name in readme, f"{name} has no line in scenarios/README.md"


@pytest.mark.parametrize("path", [LONG_EDGE, SHORT_EDGE, QUARTERS, PLAN], ids=lambda p: p.stem)
def test_scenario_loads_on_a_72_by_48_table_with_terrain(path: Path):
    world = load_scenario(path)
    bf = world.scenario.battlefield
    assert (bf.width, bf.depth) == (72, 48)
    assert 8 <= len(world.scenario.terrain) <= 12
    assert len(world.zones) == 2
    assert world.scenario.objectives
    assert "expected verdict" in world.scenario.description.lower()
    kinds = {t.kind.value for t in world.scenario.terrain}
    assert {"solid", "area"} <= kinds
    assert any(t.building is not None for t in world.scenario.terrain)
    assert any(t.is_impassable for t in world.scenario.terrain)


@pytest.mark.parametrize("path", LEGAL, ids=lambda p: p.stem)
def test_legal_scenarios_are_legal(path: Path):
    report = _check(path)
    assert report.legal, [(v.rule, v.unit, v.message) for v in report.violations]
    assert report.violations == []


def test_long_edge_shows_what_it_claims():
    world = load_scenario(LONG_EDGE, require_positions=True)
    u = world.units
    # Infiltrate, hidden between 9" and 12" and in plain sight beyond 12"
    assert u["rg-breacher"].method is SetupMethod.INFILTRATE
    assert u["rg-tactical"].method is SetupMethod.INFILTRATE
    report = _check(LONG_EDGE)
    found = {(f.unit, f.rule): f for ur in report.units for f in ur.findings}
    hidden = found[("rg-breacher", "hh2.infiltrate.distance")]
    assert 9.0 < hidden.measured < 12.0
    assert found[("rg-breacher", "hh2.infiltrate.hidden")].passed
    assert found[("rg-tactical", "hh2.infiltrate.distance")].measured > 12.0
    assert ("rg-tactical", "hh2.infiltrate.hidden") not in found
    # an IC joined, a Rhino carrying a squad, a Scout redeploy, a unit in Reserves
    assert u["ih-praetor"].setup.joined == "ih-breacher"
    assert found[("ih-praetor", "hh2.ic.coherency")].passed
    assert u["ih-tactical"].setup.in_ == "ih-tactical-rhino"
    assert u["ih-tactical-rhino"].models[0].base.shape == "hull"
    assert u["ih-outriders"].method is SetupMethod.SCOUT
    assert found[("ih-outriders", "hh2.scout.distance")].passed
    assert u["ih-assault"].method is SetupMethod.RESERVES


def test_short_edge_is_illegal_with_exactly_the_planted_violations():
    report = _check(SHORT_EDGE)
    assert not report.legal
    got = {(v.rule, v.unit) for v in report.violations}
    assert got == SHORT_EDGE_VIOLATIONS
    assert {v.rule for v in report.violations} == {r for r, _ in SHORT_EDGE_VIOLATIONS}
    assert {v.unit for v in report.violations} == {
        "ws-falcons-claws", "ws-seekers", "ws-centurion", "ws-recon", "we-tactical-1", "we-tactical-2"}
    by = {(v.rule, v.unit): v for v in report.violations}
    assert by[("hh2.infiltrate.distance", "ws-falcons-claws")].measured == pytest.approx(8.5, abs=1e-3)
    assert by[("hh2.scout.distance", "ws-recon")].measured == pytest.approx(6.5, abs=1e-3)
    assert by[("hh2.deployment.wholly_within_zone", "we-tactical-1")].measured == pytest.approx(-0.33, abs=1e-3)
    assert by[("hh2.coherency", "we-tactical-2")].measured > 2.0


def test_plan_scenario_loads_for_planning_and_is_not_checkable():
    world = load_scenario(PLAN)
    marked = [u for u in world.units.values() if u.record.place]
    assert {u.id for u in marked} >= {"rg-tactical", "rg-breacher"}
    assert 2 <= len(marked) <= 4
    assert all(u.player == "raven-guard" for u in marked)
    assert all(m.x is None and m.y is None for u in marked for m in u.models)
    assert {u.method for u in marked} <= {SetupMethod.INFILTRATE, SetupMethod.DEPLOYMENT_ZONE}
    assert sum(len(u.models) for u in marked) <= 30
    assert len(world.units["rg-tactical"].models) == 10
    # the Iron Hands are fully deployed
    for u in world.units_of("iron-hands"):
        assert u.is_positioned or not u.on_battlefield
    goals = world.scenario.goals
    assert goals and goals[0].kind == "near_point"
    with pytest.raises(ScenarioError, match="no position"):
        load_scenario(PLAN, require_positions=True)


def test_cli_legal_scenario_exits_0():
    r = _cli(LONG_EDGE)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "Traceback" not in r.stderr


def test_cli_illegal_scenario_exits_1_and_names_the_violations():
    r = _cli(SHORT_EDGE)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "Traceback" not in r.stderr
    out = r.stdout
    assert "7 violation" in out
    assert '8.500" from enemy unit we-tactical-1' in out
    assert "out of unit coherency" in out
    assert 'redeployed to 6.500"' in out


def test_cli_plan_scenario_exits_2_with_a_clear_message():
    r = _cli(PLAN)
    assert r.returncode == 2, r.stdout + r.stderr
    assert "Traceback" not in r.stderr
    assert "no position" in r.stderr
