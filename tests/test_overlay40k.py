"""40k Infiltrators on the picture and the web page (fresh13 finding 5): ``render --legal-area`` and
``--exclusion`` and ``POST /api/overlay`` draw the 10th (9") / 11th (8") Infiltrators areas with
the checker's numbers and units measured to; the drawn area agrees with the checker's verdict at
sample bases just inside and just outside the distance. A ruleset without Infiltrate (wh40k7) is
refused naming the option (exit 2 / HTTP 400, as an option the ruleset does not use)."""

from __future__ import annotations

import copy
import math
from pathlib import Path

import pytest
import yaml
from defusedxml import ElementTree
from shapely.ops import unary_union
from typer.testing import CliRunner

from planner import resolve
from planner.cli import app
from planner.deepstrike.scene import scene_data
from planner.legality.checker import check_deployment
from planner.render.areas import infiltrate_exclusions, legal_area, outline, placed_models
from planner.schema import Scenario

ROOT = Path(__file__).resolve().parents[1]
DOW = ROOT / "scenarios" / "wh40k" / "dawn-of-war-12in.yaml"
LIMIT = {"wh40k10": 9.0, "wh40k11": 8.0}
ZONE_EDGE_Y = 32.0  # the red (enemy) deployment zone is y >= 32, the full width


def dow(ruleset: str = "wh40k10") -> dict:
    data = yaml.safe_load(DOW.read_text(encoding="utf-8"))
    data["ruleset"] = ruleset
    return data


def infiltrators(data: dict) -> dict:
    return next(u for u in data["armies"][0]["units"] if u["id"] == "infiltrators")


def one_infiltrator_at(data: dict, x: float, y: float) -> dict:
    """The scenario with the Infiltrator Squad cut to one model, standing at (x, y)."""
    data = copy.deepcopy(data)
    u = infiltrators(data)
    u["models"] = [{**u["models"][0], "x": x, "y": y}]
    u.pop("place", None)
    return data


def base_radius(data: dict) -> float:
    world = resolve(Scenario.model_validate(one_infiltrator_at(data, 30.0, 5.0)))
    fp = placed_models(world.units["infiltrators"])[0][1]
    return fp.outer_radius


def findings(report, unit: str) -> list:
    return next(u.findings for u in report.units if u.unit == unit)


def verdicts(data: dict) -> tuple[dict[str, bool], bool, bool]:
    """(the checker's pass/fail of each Infiltrators distance rule, the base wholly inside the
    drawn legal area, the base overlapping the drawn exclusion areas by a positive area)."""
    world = resolve(Scenario.model_validate(data))
    report = check_deployment(world)
    rs = world.ruleset.id
    found = {f.rule.split(".", 2)[2]: f.passed for f in findings(report, "infiltrators")
             if f.rule in (f"{rs}.infiltrators.distance", f"{rs}.infiltrators.zone_distance")}
    base = outline(placed_models(world.units["infiltrators"])[0][1])
    la = legal_area(world, "infiltrators")
    _, areas = infiltrate_exclusions(world, "blue")
    excluded = unary_union([a.geom for a in areas])
    return found, la.certain.contains(base), base.intersection(excluded).area > 1e-9


# --------------------------------------------------------------------------- the command line


@pytest.mark.parametrize("ruleset", ["wh40k10", "wh40k11"])
def test_render_draws_the_infiltrators_areas(ruleset, tmp_path):
    src = tmp_path / "dow.yaml"
    src.write_text(yaml.safe_dump(dow(ruleset)), encoding="utf-8")
    out = tmp_path / "r.svg"
    r = CliRunner().invoke(app, ["render", str(src), "--out", str(out), "--legal-area", "infiltrators",
                                 "--exclusion", "blue", "--json", str(tmp_path / "r.json")])
    assert r.exit_code == 0, r.output
    ids = {el.get("id") for el in ElementTree.fromstring(out.read_bytes()).iter() if el.get("id")}
    d = f"{LIMIT[ruleset]:g}"
    assert {"legal-infiltrators", f"exclusion-{d}-warriors", f"exclusion-{d}-overlord",
            f"exclusion-{d}-zone-red-dz", f"excluded-{d}"} <= ids
    assert not any(i.startswith("exclusion-12") or i.startswith("legal-hidden") for i in ids)  # no HH2 band
    legend = yaml.safe_load((tmp_path / "r.json").read_text())["legend"]
    assert f"within {d}\" of the deployment zone of red (Infiltrators need more than {d}\")" in legend
    assert any(e.startswith(f"bases may stand: infiltrators: Infiltrators, more than {d}\"") for e in legend)
    # the legal area: the battlefield below the line LIMIT" from the red zone (enemy models are all
    # inside their zone's band; no terrain): 60" x (32 - LIMIT)"
    world = resolve(Scenario.model_validate(dow(ruleset)))
    la = legal_area(world, "infiltrators")
    assert la.if_hidden is None
    assert la.certain.bounds == pytest.approx((0.0, 0.0, 60.0, ZONE_EDGE_Y - LIMIT[ruleset]), abs=1e-9)
    assert la.certain.area == pytest.approx(60.0 * (ZONE_EDGE_Y - LIMIT[ruleset]), rel=1e-9)


@pytest.mark.parametrize("ruleset", ["wh40k10", "wh40k11"])
@pytest.mark.parametrize("gap_over", [-0.01, 0.01])
@pytest.mark.parametrize("x", [5.0, 30.0, 55.0])
def test_drawn_zone_distance_is_the_checkers(ruleset, gap_over, x):
    """A base whose edge is LIMIT - 0.01" / LIMIT + 0.01" from the red zone: illegal / legal for
    the checker (infiltrators.zone_distance), outside / inside the drawn legal area, overlapping /
    clear of the drawn exclusion area."""
    data = dow(ruleset)
    r = base_radius(data)
    gap = LIMIT[ruleset] + gap_over
    found, inside, overlaps = verdicts(one_infiltrator_at(data, x, ZONE_EDGE_Y - gap - r))
    legal = gap_over > 0
    assert found["zone_distance"] is legal
    assert inside is legal and overlaps is not legal


@pytest.mark.parametrize("ruleset", ["wh40k10", "wh40k11"])
def test_exactly_the_distance_is_illegal_and_the_drawn_edge(ruleset):
    """Exactly LIMIT" from the zone is illegal for the checker ("more than"); the drawn area's
    edge is that line, and 9.01" (8.01") is legal."""
    data = dow(ruleset)
    r = base_radius(data)
    world = resolve(Scenario.model_validate(one_infiltrator_at(data, 30.0, ZONE_EDGE_Y - LIMIT[ruleset] - r)))
    f = next(f for f in findings(check_deployment(world), "infiltrators")
             if f.rule == f"{ruleset}.infiltrators.zone_distance")
    assert not f.passed and f.measured == pytest.approx(LIMIT[ruleset], abs=1e-9)
    assert legal_area(world, "infiltrators").certain.bounds[3] == pytest.approx(ZONE_EDGE_Y - LIMIT[ruleset], abs=1e-9)


@pytest.mark.parametrize("ruleset", ["wh40k10", "wh40k11"])
@pytest.mark.parametrize("gap_over", [-0.01, 0.01])
def test_drawn_unit_distance_is_the_checkers(ruleset, gap_over):
    """An enemy unit out in the open (the Necron Warriors moved to y = 20): a base LIMIT -/+ 0.01"
    from its nearest model, beside it, is illegal / legal for the checker (infiltrators.distance)
    and outside / inside the drawn area."""
    data = dow(ruleset)
    red = data["armies"][1]["units"]
    for m in red[0]["models"]:
        m["y"] -= 18.25  # rows at y 20 and 21.5
    red[1]["models"][0]["y"] = 20.75  # the Overlord with them
    world = resolve(Scenario.model_validate(data))
    rw = placed_models(world.units["warriors"])[0][1].outer_radius
    r = base_radius(data)
    gap = LIMIT[ruleset] + gap_over
    x = 27.0 - rw - gap - r  # left of the warrior at (27, 20), on its centre line
    found, inside, overlaps = verdicts(one_infiltrator_at(data, x, 20.0))
    legal = gap_over > 0
    assert found["distance"] is legal and found["zone_distance"] is True
    assert inside is legal and overlaps is not legal


def test_a_ruleset_without_infiltrate_names_the_option(tmp_path):
    src = tmp_path / "ds.yaml"
    src.write_text(yaml.safe_dump(scene_data("wh40k7", n=3)), encoding="utf-8")
    for args in (["--exclusion", "blue"], ["--exclusion", "friends"]):
        r = CliRunner().invoke(app, ["render", str(src), "--out", str(tmp_path / "x.svg"), *args])
        assert r.exit_code == 2, r.output
        assert "field --exclusion" in r.stderr and "no Infiltrate set-up" in r.stderr
        assert "drawn for hh2, wh40k10, wh40k11" in r.stderr and "Traceback" not in r.stderr
        assert f"(value: '{args[1]}')" in " ".join(r.stderr.split())  # the option's value, not the ruleset's
    # a unit set up by Infiltrate in wh40k7 (the scenario allows it; the ruleset has no such rule)
    data = scene_data("wh40k7", n=3)
    data["armies"][0]["units"][1]["setup"] = "infiltrate"
    src.write_text(yaml.safe_dump(data), encoding="utf-8")
    r = CliRunner().invoke(app, ["render", str(src), "--out", str(tmp_path / "x.svg"), "--legal-area", "friends"])
    assert r.exit_code == 2, r.output
    assert "field --legal-area" in r.stderr and "no Infiltrate set-up" in r.stderr


# --------------------------------------------------------------------------- the web page

pytest.importorskip("fastapi")
pytest.importorskip("httpx")


@pytest.fixture
def client(tmp_path):
    from fastapi.testclient import TestClient

    from planner.web.app import create_app

    with TestClient(create_app(root=tmp_path), raise_server_exceptions=False) as c:
        yield c


def _area(polys) -> float:
    from shapely.geometry import Polygon

    return sum(Polygon(p[0], p[1:]).area for p in polys)


@pytest.mark.parametrize("ruleset", ["wh40k10", "wh40k11"])
def test_web_overlays_draw_the_infiltrators_areas(client, ruleset):
    data = dow(ruleset)
    lim = LIMIT[ruleset]
    r = client.post("/api/overlay", json={"scenario": data, "kind": "legal", "unit": "infiltrators"})
    assert r.status_code == 200, r.text
    layers = {x["id"]: x for x in r.json()["layers"]}
    assert set(layers) == {"legal"}
    assert _area(layers["legal"]["polygons"]) == pytest.approx(60.0 * (ZONE_EDGE_Y - lim), rel=1e-9)
    assert f"more than {lim:g}\"" in layers["legal"]["label"]
    r = client.post("/api/overlay", json={"scenario": data, "kind": "infiltrate", "unit": "infiltrators"})
    assert r.status_code == 200, r.text
    layers = {x["id"]: x for x in r.json()["layers"]}
    assert set(layers) == {f"exclusion-{lim:g}", f"exclusion-zone-{lim:g}"}
    # the zone's offset: 60" x 12" widened by LIMIT (Steiner: area + perimeter r + pi r^2)
    want = 60 * 12 + 2 * (60 + 12) * lim + math.pi * lim ** 2
    assert _area(layers[f"exclusion-zone-{lim:g}"]["polygons"]) == pytest.approx(want, rel=1e-4)
    world = resolve(Scenario.model_validate(data))
    _, areas = infiltrate_exclusions(world, "blue")
    units = unary_union([a.geom for a in areas if a.kind == "unit"])
    assert _area(layers[f"exclusion-{lim:g}"]["polygons"]) == pytest.approx(units.area, rel=1e-6)
    r = client.post("/api/render", json={"scenario": data, "format": "svg", "legal_area": "infiltrators",
                                         "exclusion": "blue"})
    assert r.status_code == 200, r.text
    assert b'id="legal-infiltrators"' in r.content and f'id="exclusion-{lim:g}-zone-red-dz"'.encode() in r.content


def test_web_overlay_of_a_ruleset_without_infiltrate_names_the_field(client):
    data = scene_data("wh40k7", n=3)
    r = client.post("/api/overlay", json={"scenario": data, "kind": "infiltrate", "unit": "friends"})
    assert r.status_code == 400, r.text
    assert r.json()["field"] == "kind" and "no Infiltrate set-up" in r.json()["error"]
    data["armies"][0]["units"][1]["setup"] = "infiltrate"
    r = client.post("/api/overlay", json={"scenario": data, "kind": "legal", "unit": "friends"})
    assert r.status_code == 400, r.text
    assert r.json()["field"] == "unit" and "no Infiltrate set-up" in r.json()["error"]
