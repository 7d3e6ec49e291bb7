"""The standard tables: the 45 Chapter Approved 11th-edition layouts of ``wh40kdc`` converted
(``planner.io.layouts``), ``planner layouts`` and ``planner new``, the bundled 40k scenarios on
them (``scenarios/wh40k/layouts/``) and planning on them in both editions."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from shapely.geometry import Polygon, box
from typer.testing import CliRunner

from planner.cli.commands import app
from planner.io import layouts as L
from planner.io.files import parse_record
from planner.legality.checker import check_deployment
from planner.schema import Scenario, TerrainKind, TerrainTrait
from planner.world import load_scenario, resolve

pytest.importorskip("wh40kdc")
from wh40kdc.terrain import resolve_layout  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
LAYOUT_SCENARIOS = ROOT / "scenarios" / "wh40k" / "layouts"
ROSTERS = [ROOT / "scenarios" / "rosters" / "wh40k11-space-marines.ros",
           ROOT / "scenarios" / "rosters" / "wh40k11-necrons.ros"]


@pytest.fixture(scope="module")
def converted() -> dict[str, Scenario]:
    return {lay["id"]: parse_record(Scenario, L.layout_scenario(lay["id"])) for lay in L.layouts()}


def test_there_are_45_layouts_on_the_six_maps():
    ids = [lay["id"] for lay in L.layouts()]
    assert len(ids) == 45 == len(set(ids))
    assert {m["id"] for m in L.deployment_maps()} == set(L.MAP_FRAME)


def test_every_layout_converts_validates_and_keeps_every_piece(converted):
    for lay in L.layouts():
        sc = converted[lay["id"]]
        pieces = resolve_layout(lay, L._templates())
        assert len(sc.terrain) == len(pieces), lay["id"]
        assert [t.id for t in sc.terrain] == [p["id"] for p in pieces]
        assert len({t.id for t in sc.terrain}) == len(sc.terrain)
        resolve(sc)  # zones, objectives and terrain resolve as a scenario


def test_every_piece_lies_on_the_battlefield(converted):
    table = box(0, 0, 60, 44)
    for lid, sc in converted.items():
        for t in sc.terrain:
            assert table.contains(t.shape), (lid, t.id)
            for w in t.walls:
                assert table.buffer(1e-6).contains(w.polygon()), (lid, t.id)


def test_the_frame_flips_y_and_keeps_x():
    lay = L.find_layout("bm-take-vs-take-01")
    piece = resolve_layout(lay, L._templates())[0]
    feat = parse_record(Scenario, L.layout_scenario(lay["id"])).terrain[0]
    expected: list[tuple[float, float]] = []
    for v in piece["vertices"]:  # consecutive repeats (the package rounds to 4 decimals) are dropped
        q = (v["x"], 44 - v["y"])
        if not expected or max(abs(q[0] - expected[-1][0]), abs(q[1] - expected[-1][1])) > 1e-9:
            expected.append(q)
    if expected[-1] == expected[0]:  # ... and a closing repeat of the first point
        expected.pop()
    assert len(expected) == len(feat.footprint or []) > 100
    for q, p in zip(expected, feat.footprint or [], strict=True):
        assert p == (pytest.approx(q[0], abs=1e-6), pytest.approx(q[1], abs=1e-6))
    # area is kept (a reflection and nothing else)
    assert Polygon(feat.footprint).area == pytest.approx(Polygon([(v["x"], v["y"]) for v in piece["vertices"]]).area)


def test_categories_traits_walls_floors_and_heights(converted):
    sc = converted["bm-take-vs-take-01"]
    by_name: dict[str, list] = {}
    for t in sc.terrain:
        by_name.setdefault(t.name, []).append(t)
    ruin = by_name["Battlemaster AB"][0]  # dense, upper floor, roof
    assert ruin.kind is TerrainKind.AREA and ruin.category.value == "dense" and ruin.roof
    assert TerrainTrait.BLOCKS_LINE_OF_SIGHT in ruin.traits and ruin.height_in == L.RUIN_HEIGHT_IN
    assert [f.height_in for f in ruin.floors] == [0.0, L.STOREY_IN]
    assert Polygon(ruin.floors[1].footprint).area == pytest.approx(2.5 * 2.5, abs=1e-3)  # the template's 2.5" x 2.5"
    assert Polygon(ruin.footprint).buffer(1e-3).contains(Polygon(ruin.floors[1].footprint))
    assert ruin.walls and all(w.height_in == L.RUIN_HEIGHT_IN and w.thickness_in == 0.5 for w in ruin.walls)
    gen = by_name["Battlemaster Generator"][0]  # dense block without a floor
    assert gen.kind is TerrainKind.SOLID and gen.height_in == L.BLOCK_HEIGHT_IN and not gen.floors
    barrier = by_name["Battlemaster Short Barrier"][0]  # light: walls, no sight-blocking trait
    assert barrier.category.value == "light" and not barrier.traits and barrier.walls[0].height_in == L.LIGHT_HEIGHT_IN
    areas = [t for t in sc.terrain if "--" not in t.id]
    assert len(areas) == 16
    for a in areas:  # every area holds a light or dense feature: obscuring
        assert a.category.value == "obscuring" and TerrainTrait.OBSCURING in a.traits
        dense_inside = any(t.id.startswith(a.id + "--") and t.category.value == "dense" for t in sc.terrain)
        assert (TerrainTrait.BLOCKS_LINE_OF_SIGHT in a.traits) == dense_inside
        for t in sc.terrain:  # features lie within their area
            if t.id.startswith(a.id + "--"):
                assert a.shape.buffer(0.01).contains(t.shape), t.id


def test_objectives_are_the_layouts_markers(converted):
    sc = converted["bm-take-vs-take-01"]
    assert sorted(o.id for o in sc.objectives) == ["center-1", "center-2", "expansion-1", "expansion-2", "home-1",
                                                  "home-2"]
    c1 = next(o for o in sc.objectives if o.id == "center-1")
    assert (c1.x, c1.y) == (pytest.approx(29.0015), pytest.approx(44 - 21.9985))


@pytest.mark.parametrize("map_id", sorted(L.MAP_FRAME))
def test_our_maps_match_the_packages(map_id):
    c = L.map_correspondence(map_id)
    assert (c["transform"], c["players"]) == (L.MAP_FRAME[map_id][0], f"defender={L.MAP_FRAME[map_id][1]}")
    limit = 0.2 if map_id == "search-and-destroy" else 1e-6  # the package's arc is rounded to 0.01"
    assert max(c["difference_sq_in"]) <= limit
    ours = [Polygon(z["polygon"]) for z in L.map_zones(map_id)]
    theirs = [Polygon(p) for p in L._package_zone_polygons(map_id)]
    for a, b in zip(ours, theirs, strict=True):
        assert a.symmetric_difference(b).area <= limit


def test_the_picture_draws_the_packages_vertices(tmp_path):
    """The SVG of a layout: each terrain path is the package's vertices under one scale and offset,
    y pointing down as in the package (its own picture frame), no mirror."""
    lay = L.find_layout("bm-purge-vs-assets-03")
    data = L.layout_scenario(lay["id"])
    data["armies"] = [{"player": "defender", "units": []}, {"player": "attacker", "units": []}]
    src = tmp_path / "layout.yaml"
    src.write_text(json.dumps(data), encoding="utf-8")
    out = tmp_path / "layout.svg"
    res = CliRunner().invoke(app, ["render", str(src), "--out", str(out)])
    assert res.exit_code == 0, res.output
    svg = out.read_text(encoding="utf-8")
    pieces = {p["id"]: p for p in resolve_layout(lay, L._templates())}
    fits = []
    for pid in ("area-01", "area-05", "area-09"):
        m = re.search(rf'<g id="terrain-{re.escape(pid)}">\s*<path d="([^"]+)"', svg)
        assert m, pid
        pts = [(float(a), float(b)) for a, b in re.findall(r"([-\d.]+) ([-\d.]+)", m.group(1))]
        verts = [(v["x"], v["y"]) for v in pieces[pid]["vertices"]]
        xs, ys = [v[0] for v in verts], [v[1] for v in verts]
        us, ws = [p[0] for p in pts], [p[1] for p in pts]
        sx = (max(us) - min(us)) / (max(xs) - min(xs))
        sy = (max(ws) - min(ws)) / (max(ys) - min(ys))
        assert sx == pytest.approx(sy, rel=1e-3) and sx > 0
        ox, oy = min(us) - sx * min(xs), min(ws) - sx * min(ys)  # min SVG y at the package's min y: y down in both
        mapped = [(ox + sx * x, oy + sx * y) for x, y in verts]
        for u, w in pts:  # every drawn point is a package vertex, and every vertex is drawn
            assert min(abs(u - mu) + abs(w - mw) for mu, mw in mapped) < 0.02
        for mu, mw in mapped:
            assert min(abs(u - mu) + abs(w - mw) for u, w in pts) < 0.02
        fits.append((sx, ox, oy))
    # one scale and offset for the whole picture
    for f in fits[1:]:
        assert f == pytest.approx(fits[0], abs=0.02)


# --------------------------------------------------------------------------- the commands


def test_planner_layouts_lists_45_with_their_maps(tmp_path):
    out = tmp_path / "layouts.json"
    res = CliRunner().invoke(app, ["layouts", "--json", str(out)])
    assert res.exit_code == 0, res.output
    data = json.loads(out.read_text(encoding="utf-8"))
    assert len(data["layouts"]) == 45 and sum(m["layouts"] for m in data["maps"]) == 45
    row = next(r for r in data["layouts"] if r["id"] == "bm-take-vs-take-01")
    assert (row["map"], row["pieces"]) == ("tipping-point", 44)
    assert "bm-take-vs-take-01" in res.output


def test_planner_new_writes_a_scenario_with_imported_armies(tmp_path):
    out = tmp_path / "new.yaml"
    res = CliRunner().invoke(app, ["new", "--ruleset", "wh40k11", "--layout", "bm-take-vs-take-01", "--map",
                                   "tipping-point", "--roster", str(ROSTERS[0]), "--player", "blue",
                                   "--roster", str(ROSTERS[1]), "--player", "red", "--out", str(out)])
    assert res.exit_code == 0, res.output
    world = load_scenario(out)
    sc = world.scenario
    assert sc.ruleset == "wh40k11" and len(sc.terrain) == 44 and len(sc.objectives) == 6
    assert [z.player for z in sc.deployment_zones] == ["blue", "red"]
    assert Polygon(sc.deployment_zones[0].polygon).contains(Polygon([(0, 0), (20, 0), (20, 20), (0, 20)]))
    units = {u.id: u for a in sc.armies for u in a.units}
    assert len(units["blue-intercessor-squad"].models) == 5 and len(units["red-necron-warriors"].models) == 10
    assert all(u.place for u in units.values())


@pytest.mark.parametrize("args, field", [
    (["--layout", "no-such-layout"], "--layout"),
    (["--layout", "bm-take-vs-take-01", "--map", "no-such-map"], "--map"),
    (["--layout", "bm-take-vs-take-01", "--ruleset", "hh2"], "--ruleset"),
    (["--layout", "bm-take-vs-take-01", "--roster", "x.ros"], "--roster"),
    (["--layout", "bm-take-vs-take-01", "--player", "a", "--player", "a"], "--player"),
])
def test_planner_new_refuses_bad_input_naming_the_option(tmp_path, args, field):
    out = tmp_path / "new.yaml"
    res = CliRunner().invoke(app, ["new", *args, "--out", str(out)])
    assert res.exit_code == 2, res.output
    assert field in res.output and "Traceback" not in res.output
    assert not out.exists()


def test_planner_new_never_writes_over_a_roster(tmp_path):
    roster = tmp_path / "army.ros"
    roster.write_bytes(ROSTERS[0].read_bytes())
    res = CliRunner().invoke(app, ["new", "--layout", "bm-take-vs-take-01", "--roster", str(roster), "--player",
                                   "blue", "--out", str(roster)])
    assert res.exit_code == 2 and roster.read_bytes() == ROSTERS[0].read_bytes()


# --------------------------------------------------------------------------- bundled scenarios

VERDICTS = {
    "legal-take-vs-take-01.yaml": set(),
    "legal-purge-vs-assets-03.yaml": set(),
    "legal-disrupt-vs-recon-02.yaml": set(),
    "illegal-zone-assets-vs-assets-01.yaml": {("deployment.wholly_within_zone", "blue-intercessor-squad"),
                                              ("coherency", "blue-intercessor-squad")},
    "illegal-coherency-disrupt-vs-assets-03.yaml": {("coherency", "red-necron-warriors")},
    "illegal-overlap-recon-vs-recon-02.yaml": {("bases.overlap", "red-lychguard"),
                                               ("bases.overlap", "red-necron-warriors")},
}


def test_every_bundled_layout_scenario_is_covered():
    names = {p.name for p in LAYOUT_SCENARIOS.glob("*.yaml")}
    assert names == {*VERDICTS, "plan-take-vs-take-02.yaml"}
    readme = (ROOT / "scenarios" / "README.md").read_text(encoding="utf-8")
    for n in names:
        assert n in readme


@pytest.mark.parametrize("name", sorted(VERDICTS))
@pytest.mark.parametrize("edition", ["wh40k11", "wh40k10"])
def test_bundled_layout_scenario_verdicts(name, edition):
    data = json.loads(json.dumps(__import__("yaml").safe_load((LAYOUT_SCENARIOS / name).read_text("utf-8"))))
    data["ruleset"] = edition
    sc = parse_record(Scenario, data)
    assert len(sc.terrain) >= 40 and len(sc.armies) == 2 and all(a.units for a in sc.armies)
    report = check_deployment(resolve(sc, require_positions=True))
    found = {(v.rule.removeprefix(f"{edition}."), v.unit) for v in report.violations}
    assert found == VERDICTS[name], (edition, report.violations)
    assert report.legal is (not VERDICTS[name])


def test_check_command_on_a_bundled_layout_scenario():
    bad = subprocess.run([sys.executable, "-m", "planner", "check",
                          str(LAYOUT_SCENARIOS / "illegal-coherency-disrupt-vs-assets-03.yaml")],
                         capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert bad.returncode == 1 and "wh40k11.coherency" in bad.stdout


@pytest.mark.slow
@pytest.mark.parametrize("edition", ["wh40k11", "wh40k10"])
def test_plan_on_a_layout_with_two_imported_armies_is_accepted_by_check(tmp_path, edition):
    import yaml

    data = yaml.safe_load((LAYOUT_SCENARIOS / "plan-take-vs-take-02.yaml").read_text("utf-8"))
    data["ruleset"] = edition
    src = tmp_path / "scenario.yaml"
    src.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    out = tmp_path / "planned.yaml"
    r = subprocess.run([sys.executable, "-m", "planner", "plan", str(src), "--out", str(out), "--time-limit", "5",
                        "--workers", "1", "--seed", "0"], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    planned = yaml.safe_load(out.read_text("utf-8"))
    blue = next(a for a in planned["armies"] if a["player"] == "blue")
    assert len(blue["units"]) == 4 and all("x" in m for u in blue["units"] for m in u["models"])
    c = subprocess.run([sys.executable, "-m", "planner", "check", str(out)], capture_output=True, text=True, cwd=ROOT,
                       timeout=300)
    assert c.returncode == 0, c.stdout + c.stderr


# --------------------------------------------------------------------------- Horus Heresy tables

HH_HEIGHTS = [  # the stated ruling of scenarios/README.md: typical heights for the kind of feature
    (("building", "bastion", "bunker"), 8.0), (("ruined curtain wall",), 5.0), (("ruin",), 6.0),
    (("wood", "copse", "thicket"), 5.0), (("pylon",), 7.0), (("statuary",), 4.0), (("tank",), 4.0),
    (("rockcrete wall",), 3.0), (("aegis", "barricade"), 1.5), (("pool", "marsh"), 0.25), (("crater", "rubble"), 0.5),
    (("hill",), 2.0),
]


@pytest.mark.parametrize("path", sorted((ROOT / "scenarios").glob("*.yaml")), ids=lambda p: p.stem)
def test_horus_heresy_tables_have_heights_by_kind_of_feature(path):
    import yaml

    data = yaml.safe_load(path.read_text("utf-8"))
    if data["ruleset"] != "hh2":
        pytest.skip("not a Horus Heresy table")
    sc = parse_record(Scenario, data)
    assert sc.terrain
    for t in sc.terrain:
        want = next(h for words, h in HH_HEIGHTS if any(w in t.name.lower() for w in words))
        assert t.height_in == want and t.has_heights, t.id
