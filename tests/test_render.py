"""Battlefield pictures (``planner.render``, ``planner render``, ``--render``).

SVGs are parsed with defusedxml and their elements counted by id; exclusion areas are compared
with exact offsets (Steiner's formula for convex sets: area(K + rB) = area(K) + perimeter(K) r + pi r^2).
"""

from __future__ import annotations

import math
import struct
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
import yaml
from defusedxml import ElementTree
from typer.testing import CliRunner

from planner.cli import app
from planner.cli.render import deepstrike_heat
from planner.deepstrike.scene import scene, scene_data
from planner.geometry.shapes import Footprint, footprint, signed_distance
from planner.legality.checker import check_deployment
from planner.render import RenderOptions, render_bytes
from planner.render.areas import (
    area,
    enemies_on_battlefield,
    infiltrate_distances,
    legal_area,
    outline,
    placed_models,
    unit_exclusion,
)
from planner.schema import HullBase, OvalBase
from planner.units import mm_to_in
from planner.world import load_scenario

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = sorted((ROOT / "scenarios").glob("*.yaml"))
LONG_EDGE = ROOT / "scenarios" / "long-edge-ravenguard-vs-ironhands.yaml"
SHORT_EDGE = ROOT / "scenarios" / "short-edge-chogorian-vs-berserkers.yaml"
PLAN = ROOT / "scenarios" / "plan-ravenguard-infiltrate.yaml"
SVG_NS = "{http://www.w3.org/2000/svg}"


def svg_ids(data: bytes) -> list[str]:
    root = ElementTree.fromstring(data)
    return [el.get("id") for el in root.iter() if el.get("id")]


def count_prefix(ids: list[str], prefix: str) -> int:
    return sum(1 for i in ids if i.startswith(prefix))


@pytest.fixture(scope="module")
def long_edge():
    w = load_scenario(LONG_EDGE)
    return w, check_deployment(w)


@pytest.fixture(scope="module")
def short_edge():
    w = load_scenario(SHORT_EDGE)
    return w, check_deployment(w)


# --------------------------------------------------------------------------- exact exclusion areas


def ellipse_perimeter(a: float, b: float, n: int = 200_000) -> float:
    """Perimeter of an ellipse by the trapezoid rule on a periodic integrand (spectrally accurate)."""
    t = np.linspace(0.0, 2.0 * math.pi, n, endpoint=False)
    return float(np.mean(np.hypot(a * np.sin(t), b * np.cos(t))) * 2.0 * math.pi)


@pytest.mark.parametrize("length_mm,width_mm,facing,d", [(170, 105, 90, 9.0), (120, 92, 33, 12.0), (75, 42, 0, 9.0),
                                                         (60, 35, -60, 1.0)])
def test_oval_exclusion_area_is_the_exact_offset(length_mm, width_mm, facing, d):
    """The exclusion area of an oval base is its true offset (not a circle), area within 0.5% (in fact 0.01%)."""
    from planner.world import ModelInfo, UnitInfo

    base = OvalBase(length_mm=length_mm, width_mm=width_mm)
    a, b = mm_to_in(length_mm) / 2, mm_to_in(width_mm) / 2
    m = ModelInfo("u", 0, "1", "oval", base, "Cavalry", frozenset(), frozenset(), 1, 20.0, 30.0, facing)
    u = UnitInfo("u", "u", "p", _record("deployment_zone"), [m], "armies[0].units[0]")
    geom = unit_exclusion(u, d)
    exact = math.pi * a * b + ellipse_perimeter(a, b) * d + math.pi * d * d
    rel = abs(area(geom) - exact) / exact
    assert rel < 0.005
    assert rel < 1e-4  # what the 720-point outline and 64-segment corners give
    # and it is not the circle about the centre of radius a + d, which would be far off
    circle = math.pi * (a + d) ** 2
    assert abs(circle - exact) / exact > 0.005 or length_mm == width_mm
    # every point of its boundary is d from the true ellipse (support-function distance)
    fp = footprint(base, 20.0, 30.0, facing)
    pts = np.asarray(geom.exterior.coords)[::37]
    gaps = [signed_distance(fp, Footprint("circle", float(x), float(y), 0.0)) for x, y in pts]
    assert max(abs(g - d) for g in gaps) < 2e-3


def _record(method: str):
    from planner.schema import Unit

    return Unit.model_validate({"id": "u", "type": "Cavalry", "setup": method,
                                "models": [{"base": {"diameter_mm": 32}}]})


def test_hull_exclusion_area_is_the_exact_offset():
    from planner.world import ModelInfo, UnitInfo

    base = HullBase(length_in=5.0, width_in=3.5)
    m = ModelInfo("u", 0, "1", "tank", base, "Vehicle", frozenset(), frozenset(), 1, 30.0, 20.0, 30.0)
    u = UnitInfo("u", "u", "p", _record("deployment_zone"), [m], "armies[0].units[0]")
    d = 12.0
    exact = 5.0 * 3.5 + 2 * (5.0 + 3.5) * d + math.pi * d * d
    assert abs(area(unit_exclusion(u, d)) - exact) / exact < 1e-4


def test_oval_outline_is_the_true_ellipse_and_faces_its_facing():
    fp = footprint(OvalBase(length_mm=170, width_mm=105), 10.0, 10.0, 90.0)
    poly = outline(fp)
    minx, miny, maxx, maxy = poly.bounds
    assert maxy - miny == pytest.approx(mm_to_in(170), abs=1e-4)  # length along the facing (+y)
    assert maxx - minx == pytest.approx(mm_to_in(105), abs=1e-4)
    assert area(poly) == pytest.approx(math.pi * mm_to_in(170) / 2 * mm_to_in(105) / 2, rel=1e-4)


# --------------------------------------------------------------------------- legal areas


def test_infiltrate_legal_area_keeps_the_distances(long_edge):
    world, _ = long_edge
    la = legal_area(world, "rg-tactical")
    d = infiltrate_distances("hh2")
    assert (d.hidden_in, d.plain_in) == (9.0, 12.0)
    # measured as the checker measures: to where each enemy was set up (ih-outriders before its Scout move)
    enemy_fps = [fp for p in world.ruleset.table(world).enemy_presence("raven-guard", "first") for fp in p.footprints]
    assert enemy_fps
    # sample points of each shaded part: a tiny base there is more than 12" (certain) or 9"-12" (band) away
    rng = np.random.default_rng(1)
    for geom, lo, hi in [(la.certain, 12.0, math.inf), (la.if_hidden, 9.0, 12.0 + 1e-3)]:
        minx, miny, maxx, maxy = geom.bounds
        from shapely.geometry import Point

        pts = [(x, y) for x, y in rng.uniform((minx, miny), (maxx, maxy), size=(400, 2))
               if geom.contains(Point(x, y))][:60]
        assert len(pts) >= 20
        for x, y in pts:
            near = min(signed_distance(Footprint("circle", x, y, 0.0), fp) for fp in enemy_fps)
            assert lo - 2e-3 < near < hi
    # nothing is shaded inside a building or impassable feature
    for t in world.scenario.terrain:
        if t.is_impassable or t.building is not None:
            from shapely.geometry import Polygon

            assert la.certain.intersection(Polygon(t.footprint)).area < 1e-6


def test_zone_legal_area_is_the_zone_minus_no_go_terrain(long_edge):
    world, _ = long_edge
    la = legal_area(world, "rg-predators")
    assert la.if_hidden is None
    assert area(la.certain) == pytest.approx(72 * 12, rel=1e-9)  # no terrain in the south zone


# --------------------------------------------------------------------------- SVG element counts


def test_svg_has_one_base_per_model_and_every_zone_and_terrain(long_edge):
    world, report = long_edge
    data, summary = render_bytes(world, "svg", report)
    ids = svg_ids(data)
    on_table = {u.id: len(placed_models(u)) for u in world.units.values() if placed_models(u)}
    got = Counter(i.split("-", 1)[1].rsplit("-", 1)[0] for i in ids if i.startswith("base-"))
    assert dict(got) == on_table
    assert sum(on_table.values()) == 54
    assert {i for i in ids if i.startswith("zone-")} == {f"zone-{z.id}" for z in world.scenario.deployment_zones}
    assert {i for i in ids if i.startswith("terrain-")} == {f"terrain-{t.id}" for t in world.scenario.terrain}
    assert count_prefix(ids, "objective-") == len(world.scenario.objectives) == 3
    assert count_prefix(ids, "label-") == len(on_table)
    for one in ("battlefield", "legend", "scalebar", "offtable"):
        assert one in ids
    # the hidden Infiltrators' evidence: blocked centre-to-centre sight lines, each crossing a blocker it names
    hidden = [f for u in report.units for f in u.findings if f.rule == "hh2.infiltrate.hidden" and f.passed]
    assert hidden
    blocked = [i for i in ids if i.startswith("sightline-blocked-") and "-at-" not in i and "-pass-" not in i]
    assert blocked and summary.counts["sightline"] == len(blocked)
    for i in ids:
        if "-at-" in i:
            assert i.split("-at-")[1] in hidden[0].evidence.blocking_features or any(
                i.split("-at-")[1] in f.evidence.blocking_features for f in hidden)
    assert count_prefix(ids, "violation-") == 0  # legal


def test_svg_overlays_exclusion_and_legal_area(long_edge):
    world, report = long_edge
    data, summary = render_bytes(world, "svg", report, RenderOptions(exclusion_for="rg-tactical",
                                                                     legal_area="rg-tactical"))
    ids = svg_ids(data)
    enemies = enemies_on_battlefield(world, "raven-guard")
    assert len(enemies) == 7
    assert {i for i in ids if i.startswith("exclusion-")} == {f"exclusion-{d}-{e.id}" for d in (9, 12) for e in enemies}
    assert "legal-rg-tactical" in ids and "legal-hidden-rg-tactical" in ids
    assert any("only if hidden" in name for name in summary.legend)


def test_svg_marks_every_violation(short_edge):
    world, report = short_edge
    ids = svg_ids(render_bytes(world, "svg", report)[0])
    marked = {i.split("-", 1)[1] for i in ids if i.startswith("violation-")}
    for v in report.violations:
        assert any(m == v.unit or m.startswith(v.unit + "-") for m in marked), v
    # the plain-sight Infiltrator: the clear sight line of the report is drawn
    assert count_prefix(ids, "sightline-clear-ws-seekers") == 1
    # the 8.5" Infiltrate distance is drawn as a measurement
    assert count_prefix(ids, "measure-ws-falcons-claws") == 1
    no_lines = svg_ids(render_bytes(world, "svg", report, RenderOptions(sight_lines=False, violations=False))[0])
    assert count_prefix(no_lines, "sightline-") == 0 and count_prefix(no_lines, "violation-") == 0


def test_same_input_same_svg_bytes(short_edge):
    world, report = short_edge
    a = render_bytes(world, "svg", report)[0]
    b = render_bytes(load_scenario(SHORT_EDGE), "svg", check_deployment(load_scenario(SHORT_EDGE)))[0]
    assert a == b
    assert b"<dc:date>" not in a


def test_heat_map_overlay():
    world = scene("wh40k7", n=3)
    heat = deepstrike_heat(world, "ds", resolution=4.0)
    assert heat.values.shape == (12, 18)
    ids = svg_ids(render_bytes(world, "svg", None, RenderOptions(heat=heat))[0])
    assert "heatmap" in ids
    assert count_prefix(ids, "base-") == 5 + 3 + 1 + 2 + 5  # squad, tank, bikes, friends (ds is in reserve)


# --------------------------------------------------------------------------- PNGs and the command line


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_render_every_bundled_scenario_to_png(path, tmp_path):
    out = tmp_path / f"{path.stem}.png"
    res = CliRunner().invoke(app, ["render", str(path), "--out", str(out), "--json", str(tmp_path / "r.json")])
    assert res.exit_code == 0, res.output
    w, h = png_size(out.read_bytes())
    assert w > 1000 and h > 600
    import json

    data = json.loads((tmp_path / "r.json").read_text())
    world = load_scenario(path)
    assert data["counts"].get("base", 0) == sum(len(placed_models(u)) for u in world.units.values())
    assert data["counts"].get("terrain", 0) == len(world.scenario.terrain)


def test_render_cli_overlays_and_errors(tmp_path):
    out = tmp_path / "p.svg"
    r = CliRunner().invoke(app, ["render", str(PLAN), "--out", str(out), "--exclusion", "raven-guard",
                                 "--legal-area", "rg-tactical"])
    assert r.exit_code == 0, r.output
    ids = svg_ids(out.read_bytes())
    assert "legal-rg-tactical" in ids and count_prefix(ids, "exclusion-9-") == 8
    # not placed yet: listed off the battlefield (rg-tactical-rhino is another unit)
    assert [i for i in ids if i.startswith("base-rg-tactical-") and not i.startswith("base-rg-tactical-rhino")] == []
    assert count_prefix(ids, "base-rg-tactical-rhino-") == 1
    for args, where in [(["--out", str(tmp_path / "p.pdf")], "--out"),
                        (["--out", str(out), "--legal-area", "nobody"], "--legal-area"),
                        (["--out", str(out), "--exclusion", "nobody"], "--exclusion"),
                        (["--out", str(PLAN)], "--out")]:
        r = CliRunner().invoke(app, ["render", str(PLAN), *args])
        assert r.exit_code == 2, (args, r.output)
        assert where in r.stderr and "Traceback" not in r.stderr
    assert PLAN.read_text(encoding="utf-8").startswith("# Planning scenario")


def test_check_render_writes_the_picture_and_keeps_the_verdict(tmp_path):
    out = tmp_path / "check.png"
    r = CliRunner().invoke(app, ["check", str(SHORT_EDGE), "--render", str(out)])
    assert r.exit_code == 1
    png_size(out.read_bytes())
    r = CliRunner().invoke(app, ["check", str(SHORT_EDGE), "--render", str(SHORT_EDGE)])
    assert r.exit_code == 2 and "--render" in r.stderr


def test_deepstrike_render(tmp_path):
    src = tmp_path / "ds.yaml"
    src.write_text(yaml.safe_dump(scene_data("wh40k7", n=3)), encoding="utf-8")
    out = tmp_path / "ds.svg"
    r = CliRunner().invoke(app, ["deepstrike", str(src), "--unit", "ds", "--render", str(out), "--resolution", "4"])
    assert r.exit_code == 0, r.output
    assert "heatmap" in svg_ids(out.read_bytes())


def _path_extent(data: bytes, gid: str) -> tuple[float, float]:
    """Width and height (SVG units) of the path(s) drawn in the group with id ``gid``."""
    import re

    root = ElementTree.fromstring(data)
    group = next(el for el in root.iter() if el.get("id") == gid)
    nums = [float(v) for p in group.iter(f"{SVG_NS}path") for v in re.findall(r"-?\d+(?:\.\d+)?", p.get("d", ""))]
    xs, ys = nums[0::2], nums[1::2]
    return max(xs) - min(xs), max(ys) - min(ys)


def test_picture_is_to_scale(long_edge):
    """The scale bar is 12" and a 32 mm base is 32 mm, measured against the 72" x 48" battlefield in the SVG."""
    world, report = long_edge
    data = render_bytes(world, "svg", report)[0]
    bw, bh = _path_extent(data, "battlefield")
    assert bw / bh == pytest.approx(72 / 48, rel=1e-4)
    per_inch = bw / 72.0
    assert _path_extent(data, "scalebar")[0] / per_inch == pytest.approx(12.0, rel=1e-4)
    m = world.units["rg-tactical"].models[0]
    assert m.base.diameter_mm == 32
    w, h = _path_extent(data, f"base-rg-tactical-{m.id}")
    assert w / per_inch == pytest.approx(mm_to_in(32), rel=1e-3) and h / per_inch == pytest.approx(mm_to_in(32), rel=1e-3)
    hussar = world.units["ih-hussars"].models[0]  # oval, facing 270: its length runs up the page
    w, h = _path_extent(data, f"base-ih-hussars-{hussar.id}")
    assert h / per_inch == pytest.approx(mm_to_in(hussar.base.length_mm), rel=1e-3)
    assert w / per_inch == pytest.approx(mm_to_in(hussar.base.width_mm), rel=1e-3)


def test_same_svg_from_separate_processes(tmp_path):
    import os
    import subprocess
    import sys

    outs = []
    for seed in ("1", "2"):
        out = tmp_path / f"s{seed}.svg"
        subprocess.run([sys.executable, "-m", "planner", "render", str(SHORT_EDGE), "--out", str(out)], check=True,
                       capture_output=True, cwd=ROOT, timeout=300, env={**os.environ, "PYTHONHASHSEED": seed})
        outs.append(out.read_bytes())
    assert outs[0] == outs[1]


def test_scout_legal_area_is_within_the_move_and_clear_of_enemies(long_edge, tmp_path):
    from shapely.geometry import Point

    world, _ = long_edge
    u = world.units["ih-outriders"]
    la = legal_area(world, u.id)
    assert "within 12\"" in la.what  # Cavalry: the 12" Scout move
    starts = [footprint(m.base, p[0], p[1], p[2] if len(p) > 2 else m.facing) for m, p in zip(u.models, u.setup.from_, strict=True)]
    enemy_fps = [fp for e in enemies_on_battlefield(world, u.player) for _, fp in placed_models(e)]
    rng = np.random.default_rng(2)
    minx, miny, maxx, maxy = la.certain.bounds
    pts = [(x, y) for x, y in rng.uniform((minx, miny), (maxx, maxy), size=(300, 2))
           if la.certain.contains(Point(x, y))][:40]
    assert len(pts) >= 20
    for x, y in pts:
        p = Footprint("circle", x, y, 0.0)
        assert min(signed_distance(p, fp) for fp in starts) <= 12.0 + 1e-3
        assert min(signed_distance(p, fp) for fp in enemy_fps) > 9.0 - 1e-3
    r = CliRunner().invoke(app, ["render", str(LONG_EDGE), "--out", str(tmp_path / "x.svg"), "--legal-area", "ih-tactical"])
    assert r.exit_code == 2 and "embarked" in r.stderr and "ih-tactical-rhino" in r.stderr


def svg_cells(data: bytes, gid: str, width_in: float) -> list[tuple[float, float, float]]:
    """Centre (x, y inches, battlefield coordinates) and side (inches) of each square drawn in the group
    ``gid``, measured against the battlefield (``width_in`` wide) in the same SVG."""
    import re

    def coords(el):
        v = [float(t) for p in el.iter(f"{SVG_NS}path") for t in re.findall(r"-?\d+(?:\.\d+)?", p.get("d", ""))]
        return v[0::2], v[1::2]

    root = ElementTree.fromstring(data)
    bx, by = coords(next(el for el in root.iter() if el.get("id") == "battlefield"))
    x0, y0 = min(bx), max(by)  # the battlefield's lower-left corner (SVG y runs down)
    per_inch = (max(bx) - x0) / width_in
    group = next(el for el in root.iter() if el.get("id") == gid)
    out = []
    for p in group.iter(f"{SVG_NS}path"):
        xs, ys = coords(p)
        cx, cy = (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2
        out.append(((cx - x0) / per_inch, (y0 - cy) / per_inch, (max(xs) - min(xs)) / per_inch))
    return out


def test_arrival_cells_overlay_draws_one_square_per_anchor_to_scale():
    from planner.render import ArrivalCells
    from planner.schema import Scenario
    from planner.world import resolve

    data = {"ruleset": "hh2", "battlefield": {"width": 36, "depth": 21},
            "deployment_zones": [{"id": "z", "player": "me", "polygon": [[0, 0], [36, 0], [36, 5], [0, 5]]}],
            "armies": [{"player": "me", "units": [{"id": "a", "type": "Infantry",
                                                   "models": [{"base": {"diameter_mm": 32}, "x": 4, "y": 2}]}]},
                       {"player": "en", "units": [{"id": "inf", "type": "Infantry", "rules": ["Infiltrate"],
                                                   "setup": "reserves",
                                                   "models": [{"base": {"diameter_mm": 32}},
                                                              {"base": {"diameter_mm": 32}}]}]}]}
    w = resolve(Scenario.model_validate(data))
    cells = [(2.0, 16.0), (4.0, 16.0), (30.0, 20.0), (4.0, 16.0)]  # a repeat is drawn once
    best = {"inf": [(30.0, 20.0, 0.0), (31.5, 20.0, 0.0)]}
    arrival = ArrivalCells("inf", cells, 2.0, "legal arrival anchors", best=best, protect=(18.0, 4.0, 6.0))
    svg, summary = render_bytes(w, "svg", None, RenderOptions(arrival=arrival))
    drawn = svg_cells(svg, "threat-area-inf", 36.0)
    assert summary.counts["threat_cell"] == 3 == len(drawn)
    assert sorted((round(x, 3), round(y, 3)) for x, y, _ in drawn) == [(2.0, 16.0), (4.0, 16.0), (30.0, 20.0)]
    assert all(s == pytest.approx(2.0, rel=1e-3) for *_, s in drawn)
    ids = svg_ids(svg)
    assert count_prefix(ids, "threat-best-inf-") == 2
    assert "protected-point" in ids and "protected-radius" in ids
    assert "legal arrival anchors" in summary.legend
    # no cells, no legend entry; a point without a radius draws the point only
    svg, summary = render_bytes(w, "svg", None, RenderOptions(arrival=ArrivalCells("inf", [], 2.0, None,
                                                                                   protect=(18.0, 4.0, None))))
    ids = svg_ids(svg)
    assert "threat-area-inf" not in ids and "protected-radius" not in ids and "protected-point" in ids
    assert "threat_cell" not in summary.counts


def test_the_readme_picture_is_what_the_readme_command_makes(tmp_path):
    """README, "Pictures and rulings": the committed scenarios/pictures/plan-ravenguard-infiltrate.png is the picture its command makes."""
    import re
    import subprocess
    import sys

    import matplotlib.image as mpimg

    root = Path(__file__).resolve().parents[1]
    readme = (root / "README.md").read_text(encoding="utf-8")
    cmd = re.search(r"\.venv/bin/planner (plan scenarios/plan-ravenguard-infiltrate\.yaml [^\n]*--render out/plan\.png)",
                    readme)
    assert cmd, "the README's picture command is gone"
    args = cmd.group(1).replace("out/", f"{tmp_path}/").split()
    args = [str(root / a) if a.startswith("scenarios/") else a for a in args]
    p = subprocess.run([sys.executable, "-m", "planner", *args], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    made = mpimg.imread(tmp_path / "plan.png")
    committed = mpimg.imread(root / "scenarios" / "pictures" / "plan-ravenguard-infiltrate.png")
    assert made.shape == committed.shape
    assert float(np.abs(made - committed).max()) < 1e-6
