"""The Horus Heresy 2.0 tables of issue 15 (``scenarios/hh2-*.yaml``): urban, open field and
fortified line, 72" x 48", heights on every feature, both armies deployed, each judged by
``planner check`` (exit code and the rule ids of every violation).

These tests read only the repository.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import pytest
import yaml
from shapely import union_all
from shapely.geometry import Polygon
from typer.testing import CliRunner

from planner.cli.commands import app
from planner.io.files import parse_record
from planner.legality.checker import check_deployment
from planner.schema import Scenario, SetupMethod, TerrainKind
from planner.world import load_scenario, resolve

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = ROOT / "scenarios"

URBAN = SCENARIOS / "hh2-urban-ravenguard-vs-ironhands.yaml"
OPEN_FIELD = SCENARIOS / "hh2-open-field-ravenguard-vs-ironhands.yaml"
FORTIFIED = SCENARIOS / "hh2-fortified-line-chogorian-vs-berserkers.yaml"
FORTIFIED_ILLEGAL = SCENARIOS / "hh2-fortified-line-chogorian-vs-berserkers-illegal.yaml"

# file -> (exit code of planner check, {(rule id, unit id)} of its violations)
VERDICTS = {
    URBAN: (0, set()),
    OPEN_FIELD: (0, set()),
    FORTIFIED: (0, set()),
    FORTIFIED_ILLEGAL: (1, {("hh2.infiltrate.hidden", "ws-seekers")}),
}
TABLES = list(VERDICTS)

# the Infiltrators of each table: unit id -> "hidden" (within 12" of an enemy, so it must be out of
# sight) or "plain" (more than 12" from every enemy unit)
INFILTRATORS = {
    URBAN: {"rg-breacher": "hidden", "rg-tactical": "plain"},
    OPEN_FIELD: {"rg-breacher": "plain", "rg-tactical": "plain"},
    FORTIFIED: {"ws-seekers": "hidden", "ws-falcons-claws": "plain"},
}

# the height below which a feature is "low": a hidden verdict must not rest on one (a 2.5D sight
# engine would see over a 1.5" barricade or a 3" wall)
LOW_IN = 4.0


def _data(path: Path) -> dict:
    return yaml.safe_load(path.read_text("utf-8"))


@cache
def _findings(path: Path):
    report = check_deployment(load_scenario(path, require_positions=True))
    return report, {(f.unit, f.rule): f for ur in report.units for f in ur.findings}


@pytest.mark.parametrize("path", TABLES, ids=lambda p: p.stem)
def test_planner_check_gives_the_stated_verdict(path: Path, tmp_path: Path):
    code, violations = VERDICTS[path]
    out = tmp_path / "report.json"
    res = CliRunner().invoke(app, ["check", str(path), "--json", str(out)])
    assert res.exit_code == code, res.output
    report = json.loads(out.read_text("utf-8"))
    assert report["legal"] is (code == 0)
    assert {(v["rule"], v["unit"]) for v in report["violations"]} == violations
    desc = _data(path)["description"]
    assert ("LEGAL (planner check exits 0)" in desc) == (code == 0)
    assert all(rule in desc for rule, _ in violations)


@pytest.mark.parametrize("path", TABLES, ids=lambda p: p.stem)
def test_a_72_by_48_table_with_heights_on_every_feature_piece_and_wall(path: Path):
    world = load_scenario(path, require_positions=True)  # every model on the table has a position
    sc = world.scenario
    assert (sc.ruleset, sc.battlefield.width, sc.battlefield.depth) == ("hh2", 72, 48)
    assert len(world.zones) == 2 and len(sc.objectives) >= 3 and len(sc.armies) == 2
    assert all(a.units for a in sc.armies)
    for t in sc.terrain:
        assert t.has_heights and t.height_in is not None and t.height_in > 0, t.id
        assert all(p.height_in is not None and p.height_in > 0 for p in t.all_pieces()), t.id
        assert all((w.height_in or t.height_in) > 0 for w in t.walls), t.id
        assert t.shape.is_valid and t.shape.within(Polygon([(0, 0), (72, 0), (72, 48), (0, 48)]).buffer(1e-9)), t.id


def test_each_table_looks_like_its_name():
    urban = parse_record(Scenario, _data(URBAN)).terrain
    assert len(urban) >= 12
    assert sum(t.building is not None or "ruin" in t.name.lower() for t in urban) >= 9  # many buildings and ruins
    assert sum(len(t.pieces) >= 2 for t in urban) >= 2 and sum(bool(t.walls) for t in urban) >= 3
    assert any(t.floors for t in urban) and any("wall" in t.name.lower() for t in urban)

    open_field = parse_record(Scenario, _data(OPEN_FIELD)).terrain
    assert len(open_field) <= 8 and not any(t.building for t in open_field)
    assert sum("hill" in t.name.lower() for t in open_field) == 2
    assert any("wood" in t.name.lower() for t in open_field)
    assert all(t.height_in <= 5.0 for t in open_field)
    assert sum(t.height_in <= 2.0 for t in open_field) >= len(open_field) - 2  # mostly low

    fort = parse_record(Scenario, _data(FORTIFIED)).terrain
    line = [t for t in fort if t.kind is TerrainKind.SOLID and t.shape.bounds[0] >= 44.5 and t.shape.bounds[2] <= 53]
    assert sum(t.building is not None for t in line) == 3 and sum(bool(t.walls) for t in line) == 2
    assert {t.height_in for t in line} == {8.0, 5.0, 3.0}
    # the line runs edge to edge with one 2" gate gap
    strip = Polygon([(44.6, 0), (45.4, 0), (45.4, 48), (44.6, 48)])  # the line's narrowest part: the end walls
    assert union_all([t.shape for t in line]).intersection(strip).area == pytest.approx(0.8 * (48 - 2))
    assert any("barricade" in t.name.lower() for t in fort) and any("aegis" in t.name.lower() for t in fort)


@pytest.mark.parametrize("path", list(INFILTRATORS), ids=lambda p: p.stem)
def test_infiltrators_are_legal_as_stated(path: Path):
    world = load_scenario(path, require_positions=True)
    report, found = _findings(path)
    assert report.legal
    for uid, how in INFILTRATORS[path].items():
        assert world.units[uid].method is SetupMethod.INFILTRATE
        dist = found[(uid, "hh2.infiltrate.distance")]
        assert dist.passed
        if how == "hidden":
            assert 9.0 < dist.measured < 12.0
            assert found[(uid, "hh2.infiltrate.hidden")].passed
        else:
            assert dist.measured > 12.0
            assert (uid, "hh2.infiltrate.hidden") not in found


def test_the_illegal_variant_differs_only_in_the_seekers():
    legal, illegal = _data(FORTIFIED), _data(FORTIFIED_ILLEGAL)
    for d in (legal, illegal):
        d.pop("name"), d.pop("description")
        for a in d["armies"]:
            a["units"] = [u for u in a["units"] if u["id"] != "ws-seekers"]
    assert legal == illegal
    _, found = _findings(FORTIFIED_ILLEGAL)
    assert 9.0 < found[("ws-seekers", "hh2.infiltrate.distance")].measured < 12.0
    assert "we-predators" in found[("ws-seekers", "hh2.infiltrate.hidden")].message


@pytest.mark.parametrize("path", TABLES, ids=lambda p: p.stem)
def test_no_verdict_rests_on_a_low_feature(path: Path):
    """The same verdict when every feature lower than 4" stops blocking sight: a hidden Infiltrator
    is hidden by bastions, buildings, ruins and curtain walls, not by a barricade or a hill."""
    data = _data(path)
    low = [t for t in data["terrain"] if t["height_in"] < LOW_IN]
    assert low and all("building" not in t for t in low)
    for t in low:
        t["traits"] = [tr for tr in t["traits"] if tr != "blocks_line_of_sight"]
    report = check_deployment(resolve(parse_record(Scenario, data), str(path), require_positions=True))
    assert {(v.rule, v.unit) for v in report.violations} == VERDICTS[path][1]


def test_the_tables_are_listed():
    listed = (SCENARIOS / "README.md").read_text("utf-8")
    readme = (ROOT / "README.md").read_text("utf-8")
    for path in TABLES:
        assert f"`{path.name}`" in listed and f"scenarios/{path.name}" in readme
