"""Issue 18 item 3, fifth pass: the vectorised measures give the same floats as shapely."""

from __future__ import annotations

import numpy as np
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st
from shapely.geometry import Polygon, box

from planner.geometry.shapes import point_distances


def _star(cx: float, cy: float, radii: list[float]) -> Polygon:
    t = np.linspace(0.0, 2.0 * np.pi, len(radii), endpoint=False)
    r = np.asarray(radii)
    return Polygon(np.column_stack([cx + r * np.cos(t), cy + r * np.sin(t)]))


def _probe(poly: Polygon, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Random points about the polygon, its vertices, its edges' midpoints and rounded points."""
    x0, y0, x1, y1 = poly.bounds
    x = rng.uniform(x0 - 4, x1 + 4, 300)
    y = rng.uniform(y0 - 4, y1 + 4, 300)
    c = shapely.get_coordinates(poly)
    return (np.concatenate([x, c[:, 0], (c[:-1, 0] + c[1:, 0]) / 2, np.round(x[:40], 1)]),
            np.concatenate([y, c[:, 1], (c[:-1, 1] + c[1:, 1]) / 2, np.round(y[:40], 1)]))


@settings(max_examples=25, deadline=None)
@given(st.lists(st.floats(0.5, 9.0), min_size=3, max_size=11), st.floats(-30, 30), st.floats(-30, 30),
       st.booleans(), st.integers(0, 2**31))
def test_point_distances_are_shapely_floats(radii: list[float], cx: float, cy: float, hole: bool, seed: int) -> None:
    poly = _star(cx, cy, radii)
    if hole:
        poly = poly.difference(shapely.Point(cx, cy).buffer(0.3))
    polys = [poly, box(cx - 1, cy + 2, cx + 3.5, cy + 2.5), poly.buffer(0.7)]
    rng = np.random.default_rng(seed)
    x, y = _probe(poly, rng)
    got = point_distances(polys, x, y)
    want = np.array([shapely.distance(p, shapely.points(x, y)) for p in polys])
    assert np.array_equal(got, want)  # bit for bit, inside points 0.0


def test_point_distances_edge_cases() -> None:
    square = box(0, 0, 4, 4)
    bow = Polygon([(0, 0), (2, 2), (2, 0), (0, 2)])  # invalid: shapely measures it
    multi = shapely.MultiPolygon([box(0, 0, 1, 1), box(3, 3, 5, 5)])
    x = np.array([2.0, 4.0, 4.0 + 1e-9, -3.0, 1.0, 2.0, 0.5])
    y = np.array([2.0, 2.0, 2.0, -4.0, 1.5, 4.0, 0.5])
    got = point_distances([square, bow, multi], x, y)
    want = np.array([shapely.distance(p, shapely.points(x, y)) for p in (square, bow, multi)])
    assert np.array_equal(got, want)
    assert got[0, 0] == 0.0 and got[0, 3] == 5.0
    assert point_distances([square], np.zeros(0), np.zeros(0)).shape == (1, 0)


def _bases(draw_xy: list[tuple[float, float]], kinds: list[int]) -> list:
    from planner.geometry.shapes import footprint
    from planner.schema import HullBase, OvalBase, RoundBase

    bases = [RoundBase(diameter_mm=32), RoundBase(diameter_mm=40), OvalBase(length_mm=75, width_mm=42),
             HullBase(length_in=4.6, width_in=3.0)]
    return [footprint(bases[k % 4], x, y, 37.0 * k) for (x, y), k in zip(draw_xy, kinds, strict=True)]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 30), st.floats(0, 12)), min_size=1, max_size=60),
       st.lists(st.integers(0, 11), min_size=60, max_size=60), st.booleans())
def test_outlines_hull_is_the_collections_hull(xy: list[tuple[float, float]], kinds: list[int], grid: bool) -> None:
    from planner.geometry.sight import outlines_hull, points_hull

    if grid:  # formations: bases in rows, many wholly inside the hull
        xy = [(round(x / 1.5) * 1.5, round(y / 1.5) * 1.5) for x, y in xy]
    fps = _bases(xy, kinds[:len(xy)])
    want = shapely.GeometryCollection([f.polygon(64, circumscribed=True) for f in fps]).convex_hull
    got = outlines_hull(fps)
    assert np.array_equal(shapely.get_coordinates(got), shapely.get_coordinates(want))
    few = [f.polygon(64, circumscribed=True) for f in fps[:5]]
    assert np.array_equal(shapely.get_coordinates(points_hull(few)),
                          shapely.get_coordinates(shapely.GeometryCollection(few).convex_hull))


def test_new_footprint_is_a_footprint() -> None:
    from planner.geometry.shapes import Footprint, _new_footprint

    a = _new_footprint("ellipse", 1.0, 2.0, 1.5, 0.8, 0.3)
    b = Footprint("ellipse", 1.0, 2.0, 1.5, 0.8, 0.3)
    assert a == b and hash(a) == hash(b) and repr(a) == repr(b)
    assert a.outer_radius == 1.5 and a.polygon(64).equals_exact(b.polygon(64), 0)


@settings(max_examples=50, deadline=None)
@given(st.booleans(), st.one_of(st.none(), st.floats(allow_nan=False), st.integers(-5, 5)),
       st.one_of(st.none(), st.floats(-1e6, 1e6)), st.lists(st.text(max_size=3), max_size=3),
       st.one_of(st.none(), st.text(max_size=4)), st.booleans())
def test_make_finding_is_the_validated_finding(passed: bool, measured: float | int | None, margin: float | None,
                                                failing: list[str], model: str | None, np_values: bool) -> None:
    from types import SimpleNamespace

    from planner.legality.report import Evidence, FailingModel, Finding, make_finding

    unit = SimpleNamespace(id="u-1")
    fails = [FailingModel(model=m, detail=f"{k}.000\" short", measured=float(k) if k % 2 else None,
                          measured_to=None if k % 2 else "enemy/1") for k, m in enumerate(failing)]
    if np_values:  # what numpy hands back: numpy Booleans and floats
        passed = np.bool_(passed)  # type: ignore[assignment]
        margin = None if margin is None else np.float64(margin)  # type: ignore[assignment]
    for ev in (None, Evidence(model="m", blocking_features=["t1"])):
        got = make_finding("hh2.rule", passed, unit, "words", model=model, measured=measured, required="r",  # type: ignore[arg-type]
                           margin=margin, evidence=ev, failing=fails)
        want = Finding(rule="hh2.rule", passed=passed, unit="u-1", model=model, measured=measured, required="r",
                       margin=margin, message="words", evidence=ev or Evidence(),
                       failing_models=failing, failing_details=fails)
        assert got == want
        assert got.model_dump_json() == want.model_dump_json()
        assert got.model_fields_set == want.model_fields_set
        assert got.evidence.model_fields_set == want.evidence.model_fields_set
        assert type(got.passed) is bool and all(type(v) in (float, type(None)) for v in (got.measured, got.margin))
    a, b = make_finding("r", True, unit, "m", required="r"), make_finding("r", True, unit, "m", required="r")  # type: ignore[arg-type]
    a.evidence.blocking_features.append("x")
    assert b.evidence.blocking_features == []  # no list shared between records


def test_make_unit_report_is_the_validated_report() -> None:
    from types import SimpleNamespace

    from planner.legality.report import UnitReport, make_finding, make_unit_report

    fs = [make_finding("r", False, SimpleNamespace(id="u"), "m", required="x", margin=-1)]  # type: ignore[arg-type]
    for margin in (None, -1, np.float64(-0.25)):
        got = make_unit_report("u", "Unit", "p", "deployment zone", False, margin, "r", fs, False)
        want = UnitReport(unit="u", name="Unit", player="p", setup="deployment zone", legal=False,
                          tightest_margin=margin, tightest_rule="r", findings=fs, to_place=False)
        assert got == want and got.model_dump_json() == want.model_dump_json()
        assert got.model_fields_set == want.model_fields_set and got.findings is not fs
