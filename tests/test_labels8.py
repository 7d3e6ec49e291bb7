"""Issue 18 item 4, eighth pass: the generator's shortcuts, each against the path it replaces
(the same values, the same draws from the random stream, the same errors), and the label's
verdict against the full report of the checker. The lines themselves are pinned in
test_generate_bytes."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from shapely.geometry import box

import planner.generate.scene as scene_mod
from planner import schema
from planner.generate import legality as gen_legality
from planner.generate.distributions import LEGALITY_TARGETS, GeneratorParams
from planner.generate.engine import Job, make_line
from planner.generate.legality import SUBJECT, _pick_target, verdict
from planner.generate.scene import base_scene, nearest_distance, uniform
from planner.generate.trusted import generated_scenario
from planner.geometry.shapes import footprint
from planner.legality.checker import check_deployment
from planner.rules.registry import DEFAULT_RULESET
from planner.schema import HullBase, OvalBase, RoundBase, Scenario
from planner.world import resolve
from tests.test_generate_trusted import _loop  # the oracle: every pair by its lower bound

SMALL = {"units_min": 1, "units_max": 2, "infantry_models": [5, 8]}


# --------------------------------------------------------------------------- the label's verdict


@settings(max_examples=12, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, 10_000), st.booleans())
def test_a_labels_verdict_is_the_full_reports(seed: int, index: int, small: bool) -> None:
    """The label (``verdict``: legal, rules broken, the subject's margin) is what
    ``check_deployment``'s report says of the scenario as written, validated from its line."""
    job = Job(seed, ("legality",), None, GeneratorParams(**(SMALL if small else {})).model_dump(mode="json"))
    data = json.loads(make_line(job, index))
    label = data.pop("label")
    report = check_deployment(resolve(Scenario.model_validate(data), require_positions=True))
    assert label["legal"] is report.legal
    assert label["exit_code"] == (0 if report.legal else 1)
    assert label["violations"] == sorted({v.rule for v in report.violations})
    subject = next(u for u in report.units if u.unit == SUBJECT)
    margins = [f.margin for f in subject.findings if f.rule == label["target_rule"] and f.margin is not None]
    assert label["subject_margin"] == (min(margins) if margins else None)


def test_verdict_holds_the_reports_findings_and_violations() -> None:
    """On illegal and legal scenes alike: the subject's findings are the report's (the same
    records), and the rules broken are those of the report's violations, in either order."""
    legal_seen = set()
    for index in range(24):
        job = Job(3, ("legality",), None, GeneratorParams().model_dump(mode="json"))
        data = json.loads(make_line(job, index))
        data.pop("label")
        legal, rules, findings = verdict(resolve(generated_scenario(data), require_positions=True))
        report = check_deployment(resolve(generated_scenario(data), require_positions=True))
        legal_seen.add(legal)
        assert legal is report.legal
        assert rules == sorted({v.rule for v in report.violations})
        subject = next(u for u in report.units if u.unit == SUBJECT)
        assert [f.model_dump() for f in findings] == [f.model_dump() for f in subject.findings]
    assert legal_seen == {True, False}


def test_verdict_needs_the_subject_unit() -> None:
    job = Job(1, ("legality",), None, GeneratorParams().model_dump(mode="json"))
    data = json.loads(make_line(job, 0))
    data.pop("label")
    for army in data["armies"]:
        army["units"] = [u for u in army["units"] if u["id"] != SUBJECT]
    with pytest.raises(ValueError, match="subject"):
        verdict(resolve(generated_scenario(data), require_positions=True))


# --------------------------------------------------------------------------- the target's draw


def _pick_target_by_choice(rng: np.random.Generator, p: GeneratorParams) -> str:
    """The draw as it was written before (numpy's ``choice`` with the weights)."""
    names = sorted(k for k, v in p.legality_targets.items() if v > 0)
    w = np.array([p.legality_targets[k] for k in names], float)
    return names[int(rng.choice(len(names), p=w / w.sum()))]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.one_of(st.just(0.0), st.floats(1e-6, 1e6)), min_size=len(LEGALITY_TARGETS),
                max_size=len(LEGALITY_TARGETS)).filter(lambda w: any(v > 0 for v in w)),
       st.integers(0, 2**32 - 1))
def test_the_target_draw_is_numpys_choice(weights: list[float], seed: int) -> None:
    p = GeneratorParams(legality_targets=dict(zip(LEGALITY_TARGETS, weights, strict=True)))
    a, b = np.random.default_rng(seed), np.random.default_rng(seed)
    assert [_pick_target(a, p) for _ in range(40)] == [_pick_target_by_choice(b, p) for _ in range(40)]
    assert a.random() == b.random()  # the same draws taken


@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")
def test_weights_whose_sum_overflows_fail_as_numpys_choice() -> None:
    p = GeneratorParams(legality_targets={"overlap": 1e308, "coherency": 1e308})
    with pytest.raises(ValueError) as want:
        _pick_target_by_choice(np.random.default_rng(1), p)
    with pytest.raises(ValueError) as got:
        _pick_target(np.random.default_rng(1), p)
    assert str(got.value) == str(want.value)


# --------------------------------------------------------------------------- terrain


def _feature_points_by_uniform(rng: np.random.Generator, area: float, w: float, d: float):
    """The feature's points as they were drawn before (every draw through ``uniform``, ``_r4``)."""
    aspect = uniform(rng, 1.0, 3.0)
    fw = math.sqrt(area * aspect)
    fh = area / fw
    cx, cy = uniform(rng, fw / 2 + 1, w - fw / 2 - 1), uniform(rng, fh / 2 + 1, d - fh / 2 - 1)
    if rng.random() < 0.3:
        cw, ch = fw * uniform(rng, 0.35, 0.6), fh * uniform(rng, 0.35, 0.6)
        pts = [(-fw / 2, -fh / 2), (fw / 2, -fh / 2), (fw / 2, fh / 2 - ch), (fw / 2 - cw, fh / 2 - ch),
               (fw / 2 - cw, fh / 2), (-fw / 2, fh / 2)]
    else:
        pts = [(-fw / 2, -fh / 2), (fw / 2, -fh / 2), (fw / 2, fh / 2), (-fw / 2, fh / 2)]
    ang = uniform(rng, 0.0, math.pi) if rng.random() < 0.5 else float(rng.integers(0, 2)) * math.pi / 2
    c, s = math.cos(ang), math.sin(ang)
    return [(scene_mod._r4(cx + x * c - y * s), scene_mod._r4(cy + x * s + y * c)) for x, y in pts]


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**32 - 1), st.floats(0.5, 400), st.sampled_from([(72.0, 48.0), (48.0, 48.0), (44.0, 30.0)]))
def test_feature_points_are_the_draws_through_uniform(seed: int, area: float, table: tuple[float, float]) -> None:
    a, b = np.random.default_rng(seed), np.random.default_rng(seed)
    for _ in range(6):
        got = scene_mod._feature_points(a, area, *table)
        want = _feature_points_by_uniform(b, area, *table)
        assert [(x.hex(), y.hex()) for x, y in got] == [(x.hex(), y.hex()) for x, y in want]
    assert a.random() == b.random()


def test_a_feature_wider_than_the_table_fails_as_uniform_does() -> None:
    with pytest.raises(ValueError, match="high - low < 0"):
        scene_mod._feature_points(np.random.default_rng(2), 5000.0, 20.0, 20.0)


def test_every_scene_of_a_table_size_shares_one_table_polygon() -> None:
    p = GeneratorParams()
    rng = np.random.default_rng(4)
    scenes = [base_scene(rng, p, DEFAULT_RULESET, armies=False) for _ in range(12)]
    by_size: dict[tuple[float, float], object] = {}
    for s in scenes:
        assert s.table.equals_exact(box(0, 0, s.width, s.depth), 0.0)
        assert by_size.setdefault((s.width, s.depth), s.table) is s.table
    assert len(by_size) > 1


# --------------------------------------------------------------------------- the other models


def test_footprints_except_is_every_other_positioned_models_footprint() -> None:
    p = GeneratorParams()
    rng = np.random.default_rng(8)
    entries = scene_mod.catalogue_entries(DEFAULT_RULESET, p)
    for _ in range(6):
        s = base_scene(rng, p, DEFAULT_RULESET)
        for skip in [None] + [u.id for u in s.units]:
            want = [f for u in s.units if u.id != skip and u.centres() for f in u.footprints()]
            first = s.footprints_except(skip)
            assert first == want
            assert s.footprints_except(skip) is first  # kept while nothing changed
        if not s.units:
            continue
        # a unit moved: its new footprints, not the kept list
        u = s.units[0]
        for m in u.data["models"]:
            m["x"] += 0.25
        u.moved()
        want = [f for v in s.units if v.centres() for f in v.footprints()]
        assert s.footprints_except(None) == want
        # a unit added, and one without positions (left out)
        entry = entries[0]
        s.units.append(scene_mod.GenUnit({"id": "extra", "models": [{"x": 3.0, "y": 4.0, "facing": 90.0}]}, entry,
                                         "red"))
        s.units.append(scene_mod.GenUnit({"id": "off", "models": [{"profile": entry.id}]}, entry, "red"))
        want = [f for v in s.units if v.centres() for f in v.footprints()]
        assert s.footprints_except(None) == want
        assert s.footprints_except("extra") == [f for v in s.units if v.id != "extra" and v.centres()
                                                for f in v.footprints()]


# --------------------------------------------------------------------------- nearest_distance


_BASES = [RoundBase(diameter_mm=32), RoundBase(diameter_mm=25), OvalBase(length_mm=105, width_mm=70),
          HullBase(length_in=5.0, width_in=3.0)]


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 7), st.integers(1, 14), st.booleans(), st.booleans())
def test_nearest_distance_of_a_block_is_the_loops_value(seed: int, n: int, m: int, tie: bool, same: bool) -> None:
    rng = np.random.default_rng(seed)

    def draw(k: int, spread: float) -> list:
        return [footprint(_BASES[int(rng.integers(4))], float(rng.uniform(0, spread)), float(rng.uniform(0, spread)),
                          float(rng.choice([90.0, rng.uniform(0, 360)]))) for _ in range(k)]

    others = draw(m, 20.0)
    fps = draw(n, 25.0)
    if tie:  # the same footprint twice on one side: equal bounds
        others.append(others[-1])
        fps.append(fps[0])
    if same:  # a footprint on both sides: overlapping, at the least bound
        fps[-1] = others[0]
    assert repr(nearest_distance(fps, others)) == repr(_loop(fps, others))


def test_blocks_take_the_shortcut_and_fall_back_on_ties(monkeypatch) -> None:
    calls = {"argsort": 0}
    real = np.argsort

    def counting(*a, **k):
        calls["argsort"] += 1
        return real(*a, **k)

    r = RoundBase(diameter_mm=32)
    others = [footprint(r, 0.0, 0.0), footprint(r, 10.0, 0.0)]
    block = [footprint(r, 3.0, 0.0), footprint(r, 6.0, 0.0)]
    middle = [footprint(r, 5.0, 0.0), footprint(r, 5.0, 3.0)]  # as near to both: a tie
    want = _loop(block, others), _loop(middle, others)
    monkeypatch.setattr(scene_mod.np, "argsort", counting)
    assert nearest_distance(block, others) == want[0] == pytest.approx(3.0 - 32 / 25.4)
    assert calls["argsort"] == 0  # one least pair: no loop
    assert nearest_distance(middle, others) == want[1] == pytest.approx(5.0 - 32 / 25.4)
    assert calls["argsort"] == 1  # the tie: the loop


def test_the_groups_arrays_are_kept_for_the_last_few_lists() -> None:
    r = RoundBase(diameter_mm=32)
    groups = [[footprint(r, float(k), float(j)) for j in range(3)] for k in range(scene_mod._GROUP_KEPT + 1)]
    first = [scene_mod._centres_radii(g) for g in groups[:scene_mod._GROUP_KEPT]]
    for g, hit in zip(groups[:scene_mod._GROUP_KEPT], first, strict=True):
        assert scene_mod._centres_radii(g) is hit
        arr, x, y, rad = hit
        assert arr.tolist() == [[f.cx, f.cy, f.outer_radius] for f in g]
        assert (x.tolist(), y.tolist(), rad.tolist()) == ([f.cx for f in g], [f.cy for f in g],
                                                           [f.outer_radius for f in g])
    scene_mod._centres_radii(groups[-1])  # one more: the oldest is dropped
    assert len(scene_mod._GROUP) == 2 * scene_mod._GROUP_KEPT
    grown = groups[0] + [footprint(r, 9.0, 9.0)]
    assert scene_mod._centres_radii(grown)[0].shape == (4, 3)


def test_generated_lines_do_not_depend_on_the_kept_arrays(monkeypatch) -> None:
    job = Job(7, ("legality",), None, GeneratorParams(**SMALL).model_dump(mode="json"))
    kept = [make_line(job, i) for i in range(6)]
    monkeypatch.setattr(scene_mod, "_GROUP_KEPT", 1)
    monkeypatch.setattr(scene_mod, "_GROUP", [None, None])
    monkeypatch.setattr(gen_legality, "_target_table", gen_legality._target_table.__wrapped__)
    assert [make_line(job, i) for i in range(6)] == kept


# --------------------------------------------------------------------------- polygons made ahead


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(3, 7), st.floats(-50, 50), st.floats(-50, 50), st.floats(0.1, 9)),
                min_size=1, max_size=9), st.booleans())
def test_polygons_made_ahead_are_new_polygons_and_polygon_of_gives_them(rings, bow_tie: bool) -> None:
    lists = []
    for n, cx, cy, r in rings:
        pts = [(cx + r * math.cos(2 * math.pi * k / n), cy + r * math.sin(2 * math.pi * k / n)) for k in range(n)]
        if pts not in lists:  # a list twice in one call: the later polygon is kept (the same shape)
            lists.append(pts)
    if bow_tie:  # not a simple polygon: validity is judged when polygon_of is asked, as before
        lists.append([(0.5, 0.25), (1.5, 1.25), (1.5, 0.25), (0.5, 1.25)])
    schema._polygon_and_problem.cache_clear()  # none of these lists asked for before
    schema._AHEAD.clear()
    made = schema.polygons_ahead(lists)
    assert [p.wkb for p in made] == [schema.new_polygon(tuple(pts)).wkb for pts in lists]
    for pts, poly in zip(lists, made, strict=True):
        assert schema.polygon_of(pts) is poly  # the very polygon, taken
        assert schema.polygon_of(pts) is poly  # and then kept as before
    assert not schema._AHEAD
    # a list asked for before keeps its first polygon (the same shape)
    again = schema.polygons_ahead(lists[:1])[0]
    assert again is not made[0] and schema.polygon_of(lists[0]) is made[0]
    schema._AHEAD.clear()
    if bow_tie:
        with pytest.raises(ValueError, match="is not a simple polygon: Self-intersection"):
            schema._check_polygon(lists[-1], "footprint")


def test_polygons_made_ahead_of_other_numbers_are_made_one_by_one_and_kept_bounded(monkeypatch) -> None:
    monkeypatch.setattr(schema, "_AHEAD_MOST", 5)
    schema._AHEAD.clear()
    ints = [(0, 0), (3, 0), (3, 2), (0, 2)]
    made = schema.polygons_ahead([ints, [(10.0, 10.0), (13.0, 10.0), (13.0, 12.0)]])
    assert made[0].wkb == schema.new_polygon(tuple(ints)).wkb
    assert len(schema._AHEAD) == 2
    square = [(float(k), 0.0) for k in range(2)] + [(1.0, 1.0), (0.0, 1.0)]
    schema.polygons_ahead([square] * 4)  # more than kept: the earlier ones are dropped first
    assert list(schema._AHEAD) == [tuple(square)]
    schema._AHEAD.clear()


def test_a_scenes_terrain_polygons_are_what_validation_and_the_checker_take() -> None:
    p = GeneratorParams()
    rng = np.random.default_rng(12)
    for _ in range(4):
        s = base_scene(rng, p, DEFAULT_RULESET, armies=False)
        assert len(s.terrain_polys) == len(s.terrain) > 0
        for t, poly in zip(s.terrain, s.terrain_polys, strict=True):
            assert schema.polygon_of([tuple(q) for q in t["footprint"]]) is poly
            assert poly.is_valid
