"""Deep Strike (issue 4): cases 10 and 12 of CASES.md, exact odds against closed forms and seeded
Monte Carlo, the ring formation's shape, the 10th/11th arrival distance, and the command line.

Exact values, not rounded radii: a 25 mm base has radius 12.5/25.4".
"""

from __future__ import annotations

import itertools
import json
import math
import subprocess
import sys
from dataclasses import replace

import numpy as np
import pytest
import yaml

from planner.deepstrike.formation import mm_radius, ring_formation
from planner.deepstrike.procedure import (
    best_landing,
    build_regions,
    deepstrike_rules,
    heat_map,
    judge_landing,
    make_setup,
    mishap_result,
    odds,
    region_probabilities,
    simulate,
)
from planner.deepstrike.regions import RegionSet
from planner.deepstrike.scene import scene, scene_data
from planner.errors import ScenarioError
from planner.geometry.measure import overlaps
from planner.geometry.shapes import round_footprint, signed_distance
from planner.legality.checker import check_deployment
from planner.schema import Scenario
from planner.world import resolve

R25 = 12.5 / 25.4
R32 = 16 / 25.4


def _world(ruleset: str, *, n: int = 1, mm: float = 25, red=(), terrain=()):
    data = {
        "ruleset": ruleset,
        "battlefield": {"width": 72, "depth": 48},
        "terrain": list(terrain),
        "armies": [
            {"player": "blue", "units": [{"id": "ds", "type": "Infantry", "rules": ["Deep Strike"],
                                          "abilities": ["Deep Strike"],
                                          "setup": {"method": "reserves", "arrival": "deep_strike"},
                                          "models": [{"base": {"diameter_mm": mm}} for _ in range(n)]}]},
            {"player": "red", "units": list(red)},
        ],
    }
    return resolve(Scenario.model_validate(data))


def _enemy(x, y, mm=25):
    return {"id": "enemy", "type": "Infantry", "models": [{"base": {"diameter_mm": mm}, "x": x, "y": y}]}


# --------------------------------------------------------------------------- case 10


@pytest.mark.parametrize("ruleset", ["wh40k7", "wh40k5"])
def test_case10_scatter_off_table(ruleset):
    st = make_setup(_world(ruleset), "ds")
    # aimed at (2, 24), arrow to -x, 2D6 = 3: centre (-1, 24): mishap in both editions
    land = judge_landing(st, 2 - 3, 24)
    assert land.mishap and land.triggers == ["off_table"]
    assert any(f.rule == f"{ruleset}.deepstrike.mishap.off_table" and not f.passed for f in land.findings)


def test_case10_partial_overhang_differs_by_edition():
    # centre (0.3, 24), r 0.492: part of the base overhangs; 7th: mishap, 5th (centre on the table): none
    assert judge_landing(make_setup(_world("wh40k7"), "ds"), 0.3, 24).triggers == ["off_table"]
    assert judge_landing(make_setup(_world("wh40k5"), "ds"), 0.3, 24).triggers == []
    # touching the edge is on the table in 7th
    assert judge_landing(make_setup(_world("wh40k7"), "ds"), R25, 24).triggers == []


def test_case10_mishap_d6_2():
    assert mishap_result(deepstrike_rules("wh40k7"), 2) == "misplaced"
    assert mishap_result(deepstrike_rules("wh40k5"), 2) == "destroyed"
    assert [mishap_result(deepstrike_rules("wh40k7"), d) for d in range(1, 7)] == \
        ["destroyed", "misplaced", "misplaced", "delayed", "delayed", "delayed"]
    assert [mishap_result(deepstrike_rules("wh40k5"), d) for d in range(1, 7)] == \
        ["destroyed", "destroyed", "misplaced", "misplaced", "delayed", "delayed"]


# --------------------------------------------------------------------------- case 12


def test_case12_within_1_of_enemy():
    ex, ey = 36.0, 30.0
    world = _world("wh40k7", red=[_enemy(ex, ey)])
    st = make_setup(world, "ds")
    y09 = ey - 2 * R25 - 0.9        # first model's base edge 0.9" from the enemy base
    land = judge_landing(st, ex, y09)
    assert land.triggers == ["enemy_within_1"]
    f = next(f for f in land.findings if f.rule == "wh40k7.deepstrike.mishap.enemy_within_1")
    assert not f.passed and f.measured == pytest.approx(0.9, abs=1e-9)
    assert judge_landing(st, ex, ey - 2 * R25 - 1.01).triggers == []
    # a ring model within 1" makes the whole unit mishap: 3 models, rings start towards +y (90 deg)
    st3 = make_setup(_world("wh40k7", n=3, red=[_enemy(ex, ey)]), "ds", orientation_deg=90)
    land3 = judge_landing(st3, ex, ey - 2 * R25 - 1.01)
    assert "enemy_within_1" in land3.triggers
    assert next(f for f in land3.findings if f.rule.endswith("enemy_within_1")).model != "1"


# --------------------------------------------------------------------------- exact odds


@pytest.mark.parametrize("ruleset", ["wh40k7", "wh40k5"])
def test_empty_table_centre_no_mishap(ruleset):
    o = odds(make_setup(_world(ruleset), "ds"), 36, 24)
    assert o.p_mishap == 0.0 and o.p_clean == 1.0


def _closed_form_edge(edge_gap: float) -> float:
    """P(mishap) for a single model aimed ``1"`` from the left edge: off the table when the
    scatter d along theta gives d cos(theta) > edge_gap; uniform theta: arccos(edge_gap / d) / pi."""
    total = 0.0
    for a, b in itertools.product(range(1, 7), repeat=2):
        d = a + b
        if d > edge_gap:
            total += math.acos(edge_gap / d) / math.pi / 36
    return (2 / 3) * total


@pytest.mark.parametrize("ruleset,gap", [("wh40k7", 1 - R25), ("wh40k5", 1.0)])
def test_edge_closed_form(ruleset, gap):
    o = odds(make_setup(_world(ruleset), "ds"), 1.0, 24)
    assert o.p_mishap == pytest.approx(_closed_form_edge(gap), abs=1e-6)
    assert o.triggers[f"{ruleset}.deepstrike.mishap.off_table"] == pytest.approx(o.p_mishap, abs=1e-12)
    res = deepstrike_rules(ruleset).result_probabilities()
    for k, v in res.items():
        assert o.results[k] == pytest.approx(o.p_mishap * v)


def test_monte_carlo_agrees_within_4_se():
    st = make_setup(scene(ovals=False), "ds")
    o = odds(st, 36, 30)
    s = simulate(st, 36, 30, 100_000, seed=12345)
    assert abs(s.p_mishap - o.p_mishap) <= 4 * s.se_mishap
    for name, p in o.results.items():
        se = math.sqrt(p * (1 - p) / s.n)
        assert abs(s.results[name] - p) <= 4 * se + 1e-12


def test_checker_replay_agrees_within_4_se():
    """The replay judged by the checker's own predicates (not the regions) agrees with the exact odds."""
    st = make_setup(scene(ovals=False), "ds")
    o = odds(st, 36, 30)
    s = simulate(st, 36, 30, 600, seed=7, use_checker=True)
    assert abs(s.p_mishap - o.p_mishap) <= 4 * math.sqrt(o.p_mishap * (1 - o.p_mishap) / s.n)


def test_regions_match_landing_test():
    """The odds' regions say mishap (and which trigger) exactly where the landing test does."""
    st = make_setup(scene(ovals=False), "ds")
    rs, ids = build_regions(st)
    pts = np.random.default_rng(3).uniform([-2, -2], [74, 50], (250, 2))
    inside = rs.contains(pts[:, 0], pts[:, 1])
    for (x, y), row in zip(pts, inside, strict=True):
        land = judge_landing(st, float(x), float(y))
        assert bool(row[0]) == land.mishap, (x, y, land.triggers)
        for t in ("off_table", "impassable", "on_model", "enemy_within_1"):
            assert bool(row[ids[f"trigger:{t}"]]) == (t in land.triggers), (x, y, t)
        dang = set(land.dangerous_models)
        if not land.mishap:
            for m in st.unit.models:
                assert bool(row[ids[f"dangerous:{m.id}"]]) == (m.id in dang), (x, y, m.id)


def test_heat_map_matches_odds():
    st = make_setup(scene(ovals=False, n=3), "ds")
    xs, ys, P = heat_map(st, 12.0)
    assert P.shape == (4, 6)
    for j, i in [(0, 0), (2, 3), (3, 5)]:
        assert P[j, i] == pytest.approx(odds(st, xs[i], ys[j]).p_mishap, abs=1e-12)


def test_boundary_engine_matches_reference_engine():
    """The fast engine (the region's boundary extracted once) gives the reference engine's
    fractions, region by region, on random circles (centres on and off the table, every
    scatter distance)."""
    st = make_setup(scene(ovals=False), "ds")
    rs, ids = build_regions(st, within=(30.0, 24.0, 3.0), dangerous=False)
    rng = np.random.default_rng(11)
    n = 2500
    cx, cy = rng.uniform(-3, 75, n), rng.uniform(-3, 51, n)
    d = rng.integers(2, 13, n).astype(float)
    fast = rs.arc_fraction(cx, cy, d)
    ref = rs.arc_fraction_reference(cx, cy, d)
    assert fast.shape == (n, len(ids))
    assert np.abs(fast - ref).max() <= 1e-8
    assert 0.05 < float(fast[:, 0].mean()) < 0.95  # the regions are neither empty nor everything
    # point membership through the boundary engine's locator agrees with the reference test
    px, py = rng.uniform(-3, 75, n), rng.uniform(-3, 51, n)
    loc = np.column_stack([rs.boundary(r).contains(px, py) for r in range(rs.n_regions)])
    rs._boundaries.clear()
    assert (loc == rs.contains(px, py)).all()


def test_full_heat_map_matches_odds():
    """A 1" map (3456 cells: the boundary engine) equals the single-point odds (reference engine)."""
    st = make_setup(scene(ovals=False, n=5), "ds")
    xs, ys, P = heat_map(st, 1.0)
    assert P.shape == (48, 72)
    for j, i in [(0, 0), (20, 35), (24, 36), (30, 10), (47, 71), (5, 60), (40, 30)]:
        assert P[j, i] == pytest.approx(odds(st, xs[i], ys[j]).p_mishap, abs=1e-9)


def test_oval_obstacles_are_bounded_inside_and_outside():
    """Oval enemy bikes: the outer and inner polygons bracket the grown ellipse (exact maths of
    measure.py), the odds carry the measured gap in their error bound, and a replay judged by
    the checker's exact ellipse predicates agrees within 4 standard errors."""
    from planner.deepstrike.procedure import grown_ellipse_bounds
    from planner.geometry.shapes import Footprint, signed_distance

    st = make_setup(scene(ovals=True, n=3), "ds")
    bike = next(o.fp for o in st.obstacles if o.fp.kind == "ellipse")
    inner, outer = grown_ellipse_bounds(bike, 1.5)
    for (x, y) in inner:  # inner vertices lie on the grown ellipse
        assert signed_distance(Footprint("circle", x, y, 1e-9), bike) == pytest.approx(1.5, abs=1e-7)
    for (x, y) in outer:  # outer vertices lie outside it
        assert signed_distance(Footprint("circle", x, y, 1e-9), bike) >= 1.5 - 1e-9
    o = odds(st, 66.0, 26.0)
    assert 0 < o.p_mishap < 1 and 2e-6 < o.error_bound <= 1e-4
    s = simulate(st, 66.0, 26.0, 500, seed=5, use_checker=True)
    se = math.sqrt(o.p_mishap * (1 - o.p_mishap) / s.n)
    assert abs(s.p_mishap - o.p_mishap) <= 4 * se + o.error_bound
    xs, ys, P, bound = heat_map(st, 1.0, with_bound=True)
    assert bound <= 1e-4
    assert P[25, 65] == pytest.approx(odds(st, xs[65], ys[25]).p_mishap, abs=1e-9)


def _shaped_unit(bases: list[dict], facing: float):
    data = scene_data(n=1, ovals=True)
    data["armies"][0]["units"][0]["models"] = [{"base": b} for b in bases]
    return make_setup(resolve(Scenario.model_validate(data)), "ds", facing_deg=facing)


def test_hull_deep_striker_keeps_its_facing_and_true_shape():
    """A hull (a Drop Pod-like 4" x 3" model) keeps the stated facing: its regions say mishap
    exactly where the landing test with the true rotated rectangle does, and the facing matters."""
    st = _shaped_unit([{"length_in": 4.0, "width_in": 3.0}], facing=30.0)
    assert st.shapes[0].kind == "polygon" and not st.exact_bases
    rs, ids = build_regions(st, dangerous=False)
    pts = np.random.default_rng(5).uniform([-2, -2], [74, 50], (300, 2))
    inside = rs.contains(pts[:, 0], pts[:, 1])
    for (x, y), row in zip(pts, inside, strict=True):
        land = judge_landing(st, float(x), float(y))
        assert bool(row[0]) == land.mishap, (x, y, land.triggers)
        for t in ("off_table", "impassable", "on_model", "enemy_within_1"):
            assert bool(row[ids[f"trigger:{t}"]]) == (t in land.triggers), (x, y, t)
    # extent towards the left edge: half-length 2 along the facing, half-width 1.5 across it;
    # at 30 degrees 2 cos 30 + 1.5 sin 30 = 2.482", at 90 degrees 1.5"
    assert "off_table" in judge_landing(st, 2.4, 24.0).triggers
    assert "off_table" not in judge_landing(st, 2.49, 24.0).triggers
    st90 = _shaped_unit([{"length_in": 4.0, "width_in": 3.0}], facing=90.0)
    assert "off_table" not in judge_landing(st90, 1.6, 24.0).triggers


@pytest.mark.slow
def test_oval_deep_strikers_are_bracketed():
    """Oval (75x42 mm) deep strikers facing 90 degrees: the outer regions contain every landing
    the exact ellipse test calls a mishap, the inner ones only such landings."""
    st = _shaped_unit([{"length_mm": 75, "width_mm": 42}] * 3, facing=90.0)
    outer, _ = build_regions(st, dangerous=False, triggers=False)
    inner, _ = build_regions(st, dangerous=False, triggers=False, ellipse="inner")
    pts = np.random.default_rng(8).uniform([-2, -2], [74, 50], (200, 2))
    o, i = outer.contains(pts[:, 0], pts[:, 1])[:, 0], inner.contains(pts[:, 0], pts[:, 1])[:, 0]
    for (x, y), a, b in zip(pts, o, i, strict=True):
        m = judge_landing(st, float(x), float(y)).mishap
        assert (not b or m) and (not m or a), (x, y)
    od = odds(st, 40.0, 12.0)
    assert 0 < od.p_mishap < 1 and od.error_bound <= 1e-4


# --------------------------------------------------------------------------- ring formation


@pytest.mark.parametrize("mm", [25, 32, 40])
@pytest.mark.parametrize("n", range(1, 21))
def test_ring_formation_shape(mm, n):
    r = mm_radius(mm)
    f = ring_formation((36.0, 24.0), [r] * n, orientation_deg=17.0)
    fps = [round_footprint(x, y, mm) for x, y in f.centres]
    assert len(fps) == n and f.rings[0] == 0
    for a, b in itertools.combinations(fps, 2):
        assert not overlaps(a, b)
    expected = [1, 6, 12, 18]
    counts = f.ring_counts()
    left = n
    for k, c in enumerate(counts):
        assert c == min(expected[k], left)
        left -= c
    for i, ring in enumerate(f.rings):
        if ring == 1:
            assert abs(signed_distance(fps[i], fps[0])) <= 1e-9
        elif ring > 1:  # touches the ring inside it
            inner = [fps[j] for j, rr in enumerate(f.rings) if rr == ring - 1]
            assert min(abs(signed_distance(fps[i], g)) for g in inner) <= 1e-9


def test_ring_formation_mixed_bases():
    radii = [mm_radius(60)] + [mm_radius(25)] * 15
    f = ring_formation((0.0, 0.0), radii)
    fps = [round_footprint(x, y, 2 * r * 25.4) for (x, y), r in zip(f.centres, radii, strict=True)]
    for a, b in itertools.combinations(fps, 2):
        assert signed_distance(a, b) >= -1e-9
    assert f.ring_counts()[1] == 10  # ten 25 mm bases fit around a 60 mm base


# --------------------------------------------------------------------------- 10th / 11th


@pytest.mark.parametrize("ruleset,limit", [("wh40k10", 9.0), ("wh40k11", 8.0)])
def test_new_editions_arrival_distance(ruleset, limit):
    st = make_setup(_world(ruleset, red=[_enemy(30, 30, 32)]), "ds")
    at = 30 - R32 - limit - R25           # exactly the limit: not "more than"
    assert judge_landing(st, 30, at).triggers == [f"{ruleset}.deepstrike.distance"]  # planner check's id
    assert judge_landing(st, 30, at - 0.01).triggers == []
    assert odds(st, 30, at - 0.01).p_clean == 1.0


def test_check_refuses_ruleset_without_checker():
    with pytest.raises(ScenarioError, match="no deployment checker"):
        check_deployment(_world("wh40k7"))


def test_inertial_guidance_is_hh2_only():
    with pytest.raises(ScenarioError, match="Inertial Guidance"):
        deepstrike_rules("wh40k7", inertial_guidance=True)
    assert deepstrike_rules("hh2", inertial_guidance=True).scale == 0.5
    assert deepstrike_rules("hh2").procedure == "assault"


def _closed_form_relocation(gap: float, scale: float) -> float:
    """P(the first model ends within 1" of the left edge) on an empty table, aimed with its
    edge-trigger margin ``gap``: an arrow with 2D6 = s moves it s * scale; uniform theta."""
    total = 0.0
    for a, b in itertools.product(range(1, 7), repeat=2):
        d = (a + b) * scale
        if d > gap:
            total += math.acos(gap / d) / math.pi / 36
    return (2 / 3) * total


@pytest.mark.parametrize("igs", [False, True])
def test_hh2_deep_strike_assault_edge_closed_form(igs):
    from planner.deepstrike.assault import assault_odds

    st = make_setup(_world("hh2"), "ds", inertial_guidance=igs)
    lim = R25 + 1.0 + 1e-6  # the relocation band: the centre within r + 1" (+ tolerance) of the edge
    o = assault_odds(st, 3.0, 24.0)
    assert o.p_relocated == pytest.approx(_closed_form_relocation(3.0 - lim, 0.5 if igs else 1.0), abs=1e-6)
    assert o.triggers["hh2.deepstrike_assault.edge_within_1"] == pytest.approx(o.p_relocated, abs=1e-12)
    assert o.p_disordered == pytest.approx((1 / 6) ** 2 if igs else 1 / 6)
    if igs:  # the IGS correction: base partly off the table, centre within r of the edge
        assert o.p_igs_correction == pytest.approx(_closed_form_relocation(3.0 - R25 + 1e-6, 0.5), abs=1e-6)
        assert any("interpretation" not in n and "IGS" in n for n in o.interpretations)
    # the first model must be placed at least 1" from the edge
    with pytest.raises(ScenarioError, match="at least 1"):
        assault_odds(st, 1.2, 24.0)
    s = simulate(st, 3.0, 24.0, 100_000, seed=9)
    assert abs(s.p_mishap - o.p_relocated) <= 4 * s.se_mishap


# --------------------------------------------------------------------------- command line
def _in_process(*args: str):
    """``python -m planner ARGS`` run in this process by typer's runner, as (returncode, stdout, stderr):
    for refusals of bad input (exit 2), which the commands make themselves; a process start costs ~2 s.
    Each command's refusals keep one real process below."""
    from types import SimpleNamespace

    from typer.testing import CliRunner

    from planner.cli.commands import app

    res = CliRunner().invoke(app, list(args))
    assert res.exception is None or isinstance(res.exception, SystemExit), res.exception  # no traceback
    return SimpleNamespace(returncode=res.exit_code, stdout=res.stdout, stderr=res.stderr)




def test_cli_deepstrike(tmp_path):
    path = tmp_path / "ds.yaml"
    path.write_text(yaml.safe_dump(scene_data(n=3, ovals=False)), encoding="utf-8")
    out = tmp_path / "r.json"
    csv = tmp_path / "m.csv"
    p = subprocess.run([sys.executable, "-m", "planner", "deepstrike", str(path), "--unit", "ds", "--at", "36,30",
                        "--json", str(out), "--map", str(csv), "--resolution", "6", "--simulate", "2000"],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    data = json.loads(out.read_text())
    assert 0 < data["odds"]["p_mishap"] < 1 and data["simulation"]["n"] == 2000
    bf = data["best_formation"]  # the controller's formation: never worse than the fixed orientation 0
    assert bf["p_mishap_lower"] - 1e-9 <= bf["p_mishap"] <= data["odds"]["p_mishap"] + 1e-9
    assert "controller's best formation" in p.stdout and "fixed orientation 0 deg (for comparison)" in p.stdout
    assert "interpretation" in p.stdout and bf["candidates"] == 48
    assert len(csv.read_text().splitlines()) == 1 + 12 * 8
    bad = _in_process("deepstrike", str(path), "--unit", "ds", "--at", "x")
    assert bad.returncode == 2 and "--at" in bad.stderr
    chk = subprocess.run([sys.executable, "-m", "planner", "check", str(path)], capture_output=True, text=True,
                         timeout=60)
    assert chk.returncode == 2 and "deepstrike" in chk.stderr


def test_cli_hh2_deep_strike_assault(tmp_path):
    path = tmp_path / "ds.yaml"
    path.write_text(yaml.safe_dump(scene_data("hh2", n=3, ovals=False)), encoding="utf-8")
    out = tmp_path / "r.json"
    p = subprocess.run([sys.executable, "-m", "planner", "deepstrike", str(path), "--unit", "ds", "--at", "36,30",
                        "--inertial-guidance", "--json", str(out)], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    o = json.loads(out.read_text())["assault_odds"]
    assert o["inertial_guidance"] and 0 < o["p_relocated"] < 1 and o["p_igs_correction"] is not None
    assert "relocates" in p.stdout and "interpretation" in p.stdout
    assert sum(oc["probability"] for oc in o["outcomes"]) == pytest.approx(1.0)
    assert "Disordered: the opponent places the other units within 24" in p.stdout
    assert "the controller places the other units within 6" in p.stdout
    bad = subprocess.run([sys.executable, "-m", "planner", "deepstrike", str(path), "--unit", "ds", "--at", "0.5,30"],
                         capture_output=True, text=True, timeout=60)
    # an aim point the first model may not take is a legal question answered no (exit 1), not bad input
    assert bad.returncode == 1 and "at least 1" in bad.stdout and "NOT LEGAL" in bad.stdout
    assert "hh2.deepstrike_assault.edge_within_1: " in bad.stdout
    igs7 = _in_process("deepstrike", str(path), "--unit", "ds", "--at", "36,30", "--ruleset", "wh40k7",
                       "--inertial-guidance")
    assert igs7.returncode == 2 and "Inertial Guidance" in igs7.stderr


def test_only_a_deep_strike_unit_in_reserve_can_deep_strike():
    data = scene_data(n=1)
    data["armies"][0]["units"][0]["rules"] = []
    with pytest.raises(ScenarioError, match="needs the Deep Strike rule"):
        make_setup(resolve(Scenario.model_validate(data)), "ds")
    data = scene_data(n=1)
    data["armies"][0]["units"][0]["setup"] = {"method": "reserves"}
    with pytest.raises(ScenarioError, match="starts the game in Reserve"):
        make_setup(resolve(Scenario.model_validate(data)), "ds")


@pytest.mark.parametrize("args", [["--at", "100,24"], ["--at", "-1,5"], ["--at", "36,30", "--seed", "-1",
                                                                          "--simulate", "10"],
                                  ["--at", "36,30", "--orientation", "nan"], ["--at", "36,30", "--orientation", "inf"]])
def test_bad_deepstrike_options_are_input_errors(tmp_path, args):
    path = tmp_path / "ds.yaml"
    path.write_text(yaml.safe_dump(scene_data(n=3)), encoding="utf-8")
    if args == ["--at", "100,24"]:  # one as a real process; the others in this one (a process start each is ~2 s)
        r = subprocess.run([sys.executable, "-m", "planner", "deepstrike", str(path), "--unit", "ds", *args],
                           capture_output=True, text=True)
        code, out, err = r.returncode, r.stdout, r.stderr
    else:
        res = _in_process("deepstrike", str(path), "--unit", "ds", *args)
        code, out, err = res.returncode, res.stdout, res.stderr
    assert code == 2, out + err
    assert "Traceback" not in out + err and "internal error" not in err


def test_best_aim_for_a_point_is_the_point_itself_when_the_radius_is_small():
    # on an empty table only the HIT third lands a model on the point: aim straight at it
    data = scene_data(n=1, mm=25, ovals=False)
    data["armies"][1]["units"] = []
    data["armies"][0]["units"] = data["armies"][0]["units"][:1]
    data["terrain"] = []
    st = make_setup(resolve(Scenario.model_validate(data)), "ds")
    b = best_landing(st, (36.0, 24.0), 0.0, 1.0)
    assert (b.x, b.y) == (36.0, 24.0)
    assert b.probability == pytest.approx(1 / 3, abs=1e-9)


# --------------------------------------------------------------------------- issue 19 item 2: Deep Strike Assault whole


def _pod_world(facing: float = 0.0, red=(), terrain=()):
    """An hh2 reserve unit of one Drop Pod-like hull, 4" long and 2.5" wide (no base)."""
    data = {"ruleset": "hh2", "battlefield": {"width": 72, "depth": 48}, "terrain": list(terrain),
            "armies": [{"player": "blue", "units": [
                {"id": "pod", "type": "Vehicle", "rules": ["Deep Strike"],
                 "setup": {"method": "reserves", "arrival": "deep_strike"},
                 "models": [{"base": {"length_in": 4.0, "width_in": 2.5}, "facing": facing}]}]},
                {"player": "red", "units": list(red)}]}
    return resolve(Scenario.model_validate(data))


def test_drop_pod_aimed_2_clear_of_an_enemy_is_accepted():
    """The hull's side is 2" from the enemy base; its circumscribed disc (radius 2.358") would
    come 0.89" from it and be refused: the true shape decides."""
    from planner.deepstrike.assault import assault_odds, assault_regions

    ey = 24.0
    st = make_setup(_pod_world(red=[_enemy(36.0, ey)]), "pod")
    assert st.shapes[0].kind == "polygon"
    y = ey - R25 - 2.0 - 1.25  # the hull's long side faces the enemy, 2" away
    pod = st.shapes[0].moved(36.0, y)
    assert signed_distance(pod, round_footprint(36.0, ey, 25)) == pytest.approx(2.0, abs=1e-9)
    disc = round_footprint(36.0, y, 2 * 25.4 * math.hypot(2.0, 1.25))
    assert signed_distance(disc, round_footprint(36.0, ey, 25)) < 1.0  # the old stand-in would be refused
    o = assault_odds(st, 36.0, y)
    assert 0 < o.p_relocated < 1 and o.p_stays == pytest.approx(1 - o.p_relocated)
    assert not any("circumscribed" in n for n in o.interpretations)
    # at 0.99" the hull itself is too close
    with pytest.raises(ScenarioError, match="enemy_within_1"):
        assault_odds(st, 36.0, ey - R25 - 0.99 - 1.25)
    # the regions agree with the true hull at random points (the checker's distance predicate)
    rs, ids = assault_regions(st)
    pts = np.random.default_rng(3).uniform([28, 14], [44, 30], (400, 2))
    inside = rs.contains(pts[:, 0], pts[:, 1])
    enemy = round_footprint(36.0, ey, 25)
    for (px, py), row in zip(pts, inside, strict=True):
        d = signed_distance(st.shapes[0].moved(float(px), float(py)), enemy)
        if abs(d - 1.0) > 1e-4:
            assert bool(row[ids["enemy_within_1"]]) == (d <= 1.0), (px, py, d)


def test_drop_pod_edge_band_is_the_hull_extent():
    """Empty table: P(relocated) by the left edge is the closed form with the hull's extent
    towards the edge (half its length at facing 0, half its width at facing 90), not 2.358"."""
    from planner.deepstrike.assault import assault_odds

    for facing, half in ((0.0, 2.0), (90.0, 1.25)):
        st = make_setup(_pod_world(facing), "pod")
        o = assault_odds(st, 6.0, 24.0)
        lim = half + 1.0 + 1e-6
        assert o.p_relocated == pytest.approx(_closed_form_relocation(6.0 - lim, 1.0), abs=1e-6)


def test_assault_outcomes_have_their_probabilities():
    """The procedure after the first model: stays/relocated x Disordered/not, who places the other
    units and within what distance; the probabilities are the products and sum to 1."""
    from planner.deepstrike.assault import assault_odds

    st = make_setup(_world("hh2"), "ds")
    o = assault_odds(st, 3.0, 24.0)
    by = {(oc["first_model"], oc["rest_placed_by"]): oc for oc in o.outcomes}
    assert sum(oc["probability"] for oc in o.outcomes) == pytest.approx(1.0, abs=1e-12)
    assert by[("relocated", "opponent")]["probability"] == pytest.approx(o.p_relocated / 6)
    assert by[("stays", "controller")]["probability"] == pytest.approx((1 - o.p_relocated) * 5 / 6)
    assert by[("stays", "controller")]["rest_within_in"] == 6.0
    assert by[("stays", "opponent")]["rest_within_in"] == 24.0
    assert any("rest of the first unit" in n for n in o.interpretations)


# --------------------------------------------------------------------------- issue 19 item 1: the controller's formation


def _building(x0, y0, x1, y1, tid="bastion"):
    return {"id": tid, "kind": "solid", "traits": ["impassable", "blocks_line_of_sight"],
            "footprint": [[x0, y0], [x1, y0], [x1, y1], [x0, y1]], "building": {"capacity": 10}}


@pytest.mark.parametrize("ruleset", ["wh40k7", "wh40k5"])
def test_ring_blocked_by_a_building_face_still_fits_every_model(ruleset):
    """The first model touches a building face above it. A full first ring (1 + 6) overlaps the
    building at every orientation; ring 1 cut to 3 below the face with the other 3 in ring 2
    fits: no mishap on target, though the fixed formation has one."""
    from planner.deepstrike.procedure import best_formation_odds, formation_family

    face = 24.0 + R25 + 0.01
    st = make_setup(_world(ruleset, n=7, terrain=[_building(30, face, 42, 30)]), "ds")
    assert judge_landing(st, 36.0, 24.0).triggers == ["impassable"]  # orientation 0: ring 1 in the building
    fam = formation_family(st)
    full = [c for c in fam if c.ring_caps is None]
    assert len(full) == 24 and all(judge_landing(replace(st, orientation_deg=c.orientation_deg), 36.0, 24.0).mishap
                                   for c in full)
    b = best_formation_odds(st, 36.0, 24.0)
    assert b.on_target is not None and b.on_target["ring_caps"] and sum(b.on_target["rings"]) == 6
    chosen = replace(st, orientation_deg=b.on_target["orientation_deg"], ring_caps=tuple(b.on_target["ring_caps"]))
    land = judge_landing(chosen, 36.0, 24.0)  # the checker's predicates: every model placed, none in the building
    assert not land.mishap and all(cy + R25 <= face + 1e-9 for _, cy in land.formation.centres)
    assert b.p_mishap < odds(st, 36.0, 24.0).p_mishap - 1 / 3 + 1e-9  # the HIT third at least is saved
    assert b.p_mishap_lower <= b.p_mishap + 1e-12


def test_ring_that_cannot_place_a_model_is_a_mishap():
    """A pocket in impassable terrain just wider than one base: the first model fits, a second fits
    nowhere around it at any orientation or ring shape: on target it is a mishap."""
    from planner.deepstrike.procedure import best_formation_odds

    c, h, t = 36.0, R25 + 0.05, 13.0  # the cavity: 2 h square about (36, 24) in walls t thick
    walls = [_building(c - h - t, 24 - h - t, c + h + t, 24 - h, "w-s"),
             _building(c - h - t, 24 + h, c + h + t, 24 + h + t, "w-n"),
             _building(c - h - t, 24 - h, c - h, 24 + h, "w-w"), _building(c + h, 24 - h, c + h + t, 24 + h, "w-e")]
    one = make_setup(_world("wh40k7", n=1, terrain=walls), "ds")
    assert not judge_landing(one, c, 24.0).mishap  # the first model alone is placed
    st = make_setup(_world("wh40k7", n=2, terrain=walls), "ds")
    b = best_formation_odds(st, c, 24.0)
    assert b.on_target is None
    # every landing (scatter 2-12") is in the walls or the pocket: a mishap whatever the formation
    assert b.p_mishap == pytest.approx(1.0, abs=1e-6)
    assert b.p_mishap_lower == pytest.approx(1.0 - 1 / 3, abs=1e-6)  # only the HIT lands the first model clear


@pytest.mark.parametrize("ruleset,gap", [("wh40k7", 1 - R25), ("wh40k5", 1.0)])
def test_best_orientation_by_an_edge_is_the_single_model_closed_form(ruleset, gap):
    """Two models aimed 1" from the left edge of an empty table: the controller points the second
    model away from the edge, so only the first model's own position can mishap (the closed form of
    one model); the fixed orientation 180 deg (towards the edge) has the closed form of the second."""
    from planner.deepstrike.procedure import best_formation_odds

    st = make_setup(_world(ruleset, n=2), "ds")
    b = best_formation_odds(st, 1.0, 24.0)
    assert b.p_mishap == pytest.approx(_closed_form_edge(gap), abs=1e-6)
    assert b.p_mishap_lower == pytest.approx(b.p_mishap, abs=1e-6)
    towards = odds(replace(st, orientation_deg=180.0), 1.0, 24.0).p_mishap
    g2 = gap - 2 * R25  # 7th: the second model is over the edge on target, so the HIT third is a mishap too
    assert towards == pytest.approx((1 / 3 if g2 < 0 else 0.0) + _closed_form_edge(g2), abs=1e-6)
    assert b.results["destroyed" if ruleset == "wh40k5" else "misplaced"] > 0


def test_best_formation_at_least_every_fixed_orientation_and_monte_carlo():
    """On the test scene: P(clean) for the best formation >= P(clean) of every fixed orientation of
    the family; a seeded replay (mishap = every candidate's region) agrees within 4 s.e.; and at
    random landing points the regions agree with the checker's predicates candidate by candidate."""
    from planner.deepstrike.procedure import _variant, best_formation_odds, formation_family

    st = make_setup(scene(n=3, ovals=False), "ds")
    x, y = 16.0, 24.0  # by the cliff, the tank and the crater
    b = best_formation_odds(st, x, y)
    fam = formation_family(st)
    rs = RegionSet(len(fam))
    for k, c in enumerate(fam):
        rs.extend(build_regions(_variant(st, c), dangerous=False, triggers=False)[0], {0: k})
    fixed = 1 - region_probabilities(st, rs, [x], [y])[0]  # P(clean) of each fixed candidate (union engine)
    for k in (0, 7, 30):
        assert fixed[k] == pytest.approx(odds(_variant(st, fam[k]), x, y).p_clean, abs=1e-9)
    assert b.p_clean >= max(fixed) - 1e-9 and b.p_clean > min(fixed) + 0.01
    rng = np.random.default_rng(19)
    n = 30_000
    hit = rng.integers(0, 6, n) < 2
    d = np.where(hit, 0.0, rng.integers(1, 7, n) + rng.integers(1, 7, n))
    th = rng.uniform(0, 2 * math.pi, n)
    mis = rs.contains(x + d * np.cos(th), y + d * np.sin(th)).all(axis=1)
    se = math.sqrt(b.p_mishap * (1 - b.p_mishap) / n)
    assert abs(float(mis.mean()) - b.p_mishap) <= 4 * se
    pts = rng.uniform([x - 6, y - 6], [x + 6, y + 6], (25, 2))
    inside = rs.contains(pts[:, 0], pts[:, 1])
    for (px, py), row in zip(pts, inside, strict=True):
        for k in range(0, len(fam), 4):
            assert bool(row[k]) == judge_landing(_variant(st, fam[k]), float(px), float(py)).mishap


@pytest.mark.parametrize("cap", [1, 2, 3, 5])
def test_ring_cut_short_formation_shape(cap):
    """Ring 1 cut to ``cap``: it holds exactly cap models, no two bases overlap, every ring-1 model
    touches the first, and every later model touches a model of the ring inside it."""
    r = mm_radius(32)
    f = ring_formation((10.0, 10.0), [r] * 12, 40.0, (cap,))
    assert f.ring_counts()[1] == cap and len(f.centres) == 12
    c = f.centres
    for i in range(len(c)):
        for j in range(i):
            assert math.dist(c[i], c[j]) >= 2 * r - 1e-9
    for i in range(1, len(c)):
        inner = [j for j in range(len(c)) if f.rings[j] == f.rings[i] - 1]
        assert min(math.dist(c[i], c[j]) for j in inner) == pytest.approx(2 * r, abs=1e-9)


def test_deepstrike_render_draws_the_chosen_formation(tmp_path):
    """--render with --at draws the formation on target: the best one by default (its label in the
    legend), the fixed one with --orientation; one drawn base per model."""
    from typer.testing import CliRunner

    from planner.cli.commands import app

    src = tmp_path / "ds.yaml"
    src.write_text(yaml.safe_dump(scene_data("wh40k7", n=3, ovals=False)), encoding="utf-8")
    out, js = tmp_path / "ds.svg", tmp_path / "ds.json"
    r = CliRunner().invoke(app, ["deepstrike", str(src), "--unit", "ds", "--at", "16,24", "--render", str(out),
                                 "--resolution", "6", "--json", str(js)])
    assert r.exit_code == 0, r.output
    data = json.loads(js.read_text())
    assert data["render"]["counts"]["formation base"] == 3
    assert data["formation_drawn"][0].startswith("best formation on target")
    assert data["formation_drawn"][1] == data["best_formation"]["on_target"]["positions"]
    assert b'id="formation-2"' in out.read_bytes()
    r = CliRunner().invoke(app, ["deepstrike", str(src), "--unit", "ds", "--at", "16,24", "--orientation", "90",
                                 "--json", str(js)])
    assert r.exit_code == 0 and "fixed orientation 90 deg (as asked)" in r.output
    data = json.loads(js.read_text())
    assert data["formation_drawn"][1] == data["landing_on_target"]["positions"]


def test_walls_closing_a_courtyard_leave_the_courtyard_free():
    """A wall drawn as a closed line is a ring with a hole: the courtyard inside is not terrain.
    Before, the landing regions took the ring's outline only (the courtyard a mishap, P = 1), and
    a feature whose walls and pieces joined into several polygons was an internal error
    (``hh2-fortified-line`` Deep Strike Assault). Oracle: the 7th-edition scatter (HIT 1/3, else
    2D6 in a uniform direction) over 20,000 directions, shapely's distance to the wall."""
    import shapely

    ring = [[31, 19], [41, 19], [41, 29], [31, 29], [31, 19]]
    feature = {"id": "yard", "kind": "area", "footprint": [[31, 19], [41, 19], [41, 29], [31, 29]],
               "walls": [{"points": ring, "thickness_in": 0.5, "height_in": 3}]}
    world = _world("wh40k7", terrain=[feature])
    o = odds(make_setup(world, "ds"), 36, 24)
    from planner.legality.table import Table

    (wall,) = [p for _, p in Table(world).no_go_polys]
    assert len(wall.interiors) == 1  # the case under test: a polygon with a hole
    theta = (np.arange(20_000) + 0.5) * (2 * math.pi / 20_000)
    p = 0.0
    for a, b in itertools.product(range(1, 7), repeat=2):
        d = a + b
        pts = shapely.points(36 + d * np.cos(theta), 24 + d * np.sin(theta))
        p += (2 / 3) / 36 * float(np.mean(shapely.distance(pts, wall) < R25))
    assert 0.1 < p < 0.2
    assert o.p_mishap == pytest.approx(p, abs=2e-4)


def test_a_7th_edition_building_with_walls_is_impassable_as_a_whole():
    """7th edition: a building is impassable terrain for a Deep Strike, its walls or not. Before, a
    building whose walls are no-go to the checker was only its walls (the interior a safe landing).
    Oracle as for the courtyard: the building's footprint and walls by shapely's distance."""
    import shapely

    ring = [[31, 19], [41, 19], [41, 29], [31, 29], [31, 19]]
    feature = {"id": "keep", "kind": "area", "footprint": [[31, 19], [41, 19], [41, 29], [31, 29]],
               "building": {"capacity": 10}, "walls": [{"points": ring, "thickness_in": 0.5, "height_in": 3}]}
    world = _world("wh40k7", terrain=[feature])
    st = make_setup(world, "ds")
    o = odds(st, 36, 24)
    from planner.legality.table import Table

    (wall,) = [p for _, p in Table(world).no_go_polys]
    solid = shapely.union(wall, shapely.Polygon(feature["footprint"]))
    theta = (np.arange(20_000) + 0.5) * (2 * math.pi / 20_000)
    p = 1 / 3  # the HIT lands in the building
    for a, b in itertools.product(range(1, 7), repeat=2):
        d = a + b
        pts = shapely.points(36 + d * np.cos(theta), 24 + d * np.sin(theta))
        p += (2 / 3) / 36 * float(np.mean(shapely.distance(pts, solid) < R25))
    assert o.p_mishap == pytest.approx(p, abs=2e-4) and p > 0.5
    landing = judge_landing(st, 36, 24)
    bad = [f for f in landing.findings if not f.passed]
    assert any("would land in keep" in f.message for f in bad), [f.message for f in bad]


@pytest.mark.parametrize("n", [1, 3])
def test_cli_deepstrike_wording_for_one_model_and_several(tmp_path, n):
    """"(1 model)", not "(1 models)"; a one-model unit has no rings ("rings of -" was printed)."""
    path = tmp_path / "ds.yaml"
    path.write_text(yaml.safe_dump(scene_data(n=n, ovals=False)), encoding="utf-8")
    r = _in_process("deepstrike", str(path), "--unit", "ds", "--at", "36,30")
    assert r.returncode == 0, r.stderr
    out = " ".join(r.stdout.split())
    assert f"Deep Strike of ds ({n} model{'' if n == 1 else 's'}) under" in out
    assert "rings of -" not in out and "1 models" not in out
    if n == 1:
        assert "on target: the unit's one model at the aim point (no rings)" in out
    else:
        assert "rings of 2" in out
