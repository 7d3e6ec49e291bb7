"""Last session's leftovers (a fresh user's findings): each failing model's measure as data
(``failing_details``), the HH2 Infiltrate "also" entries naming the enemy model, the 10th/11th
Deep Strike distance naming the closest landing model, a 40k model failing both coherency parts
showing both, and the coherency row's measured value."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from planner.cli.commands import app
from tests.test_check_every_model import _hh2, _m, _one
from tests.wh40k_helpers import R32, RED_LINE, check, model, unit

ROOT = Path(__file__).resolve().parents[1]
SHORT_EDGE = ROOT / "scenarios" / "short-edge-chogorian-vs-berserkers.yaml"


# ------------------------------------------------------------------ 1, 2: each failing model's measure, as data
def test_check_json_gives_each_failing_model_its_measure_and_the_enemy_model_measured_to(tmp_path):
    """The short-edge scenario's Infiltrators: two models 8.5" from two different enemy models."""
    out = tmp_path / "r.json"
    before = SHORT_EDGE.read_bytes()
    res = CliRunner().invoke(app, ["check", str(SHORT_EDGE), "--json", str(out)])
    assert res.exit_code == 1, res.output
    (f,) = [f for u in json.loads(out.read_text())["units"] for f in u["findings"]
            if f["rule"] == "hh2.infiltrate.distance" and u["unit"] == "ws-falcons-claws"]
    assert f["failing_models"] == ["2", "3"]
    assert [(d["model"], d["measured_to"]) for d in f["failing_details"]] == [("2", "we-tactical-1/1"),
                                                                               ("3", "we-tactical-1/6")]
    assert [d["measured"] for d in f["failing_details"]] == pytest.approx([8.5, 8.5], abs=1e-3)
    assert f["failing_details"][0]["measured"] == f["measured"]  # the first: the finding's own model
    assert f["failing_details"][1]["detail"] == '8.500" from we-tactical-1/6'
    # the "also" words name the enemy model, not only its unit
    assert f["message"].endswith('; also model 3 (8.500" from we-tactical-1/6)'), f["message"]
    assert SHORT_EDGE.read_bytes() == before


def test_report_schema_describes_the_failing_details():
    res = CliRunner().invoke(app, ["schema", "report"])
    assert res.exit_code == 0, res.output
    schema = json.loads(res.output)
    finding = schema["$defs"]["Finding"]["properties"]
    assert "failing_details" in finding and "failing_models" in finding["failing_details"]["description"]
    fm = schema["$defs"]["FailingModel"]["properties"]
    assert {"model", "measured", "measured_to", "detail"} <= set(fm)


def test_a_zone_finding_gives_each_model_its_clearance_and_the_zone():
    # two models out of the zone (by 1" and 0.5"), one inside: the clearances are negative, as 'measured'
    u = unit("u", [model(10, 12 - R32 + 1.0), model(11.5, 12 - R32 + 0.5), model(13, 6)])
    f = _one(check("wh40k10", [u], [RED_LINE]), "u", "wh40k10.deployment.wholly_within_zone")
    assert [(d.model, d.measured_to) for d in f.failing_details] == [("1", "blue-dz"), ("2", "blue-dz")]
    assert [d.measured for d in f.failing_details] == pytest.approx([-1.0, -0.5])
    assert f.failing_details[0].measured == f.measured
    assert f.failing_details[1].detail == '0.500" outside'


def test_a_single_failing_model_is_listed_with_its_details():
    # one failing model is named in failing_models too (a consumer counts the failing models there)
    u = unit("u", [model(10, 12 - R32 + 1.0), model(14, 6)])
    f = _one(check("wh40k10", [u], [RED_LINE]), "u", "wh40k10.deployment.wholly_within_zone")
    assert f.failing_models == ["1"] and [d.model for d in f.failing_details] == ["1"]
    assert f.failing_details[0].measured == f.measured == pytest.approx(-1.0)


def test_hh2_infiltrate_also_entries_name_the_enemy_model():
    # model 1 is 8" from red-a/1, model 3 8.5" from red-a/2 (both too close), model 2 far enough
    red = [{"id": "red-a", "models": [_m(20, 30), _m(50, 30)]}]
    blue = [{"id": "inf", "rules": ["Infiltrate"], "setup": "infiltrate",
             "models": [_m(20, 21.0), _m(35, 14.0), _m(50, 20.5)]}]
    f = _one(_hh2(red, blue), "inf", "hh2.infiltrate.distance")
    assert f.model == "1" and f.failing_models == ["1", "3"]
    assert f.message.endswith('; also model 3 (8.500" from red-a/2)'), f.message
    assert [d.measured_to for d in f.failing_details] == ["red-a/1", "red-a/2"]
    assert [d.measured for d in f.failing_details] == pytest.approx([8.0, 8.5])


# ------------------------------------------------------------------ 4, 5: 40k coherency
def _chain(*gaps: float) -> list[dict]:
    """32 mm models in a row, ``gaps`` inches between neighbouring bases."""
    xs = [10.0]
    for g in gaps:
        xs.append(xs[-1] + 2 * R32 + g)
    return [model(x, 6) for x in xs]


def test_40k_11th_model_failing_both_coherency_parts_shows_both():
    # tac/1-tac/2 1" apart; tac/3 8" from tac/2 (2" short by 6") and 8 + 1 + 2R from tac/1 (9" exceeded)
    f = _one(check("wh40k11", [unit("tac", _chain(1.0, 8.0))], [RED_LINE]), "tac", "wh40k11.coherency")
    over = 8.0 + 1.0 + 2 * R32 - 9.0
    assert f.model == "tac/3" and f.margin == pytest.approx(-6.0)
    assert f.message == ('model tac/3 is not within 2" of 1 other model(s) (short by 6.000"; its nearest: model '
                         f'tac/2); it is also more than 9" from tac/1 by {over:.3f}"; also model tac/1 (more than '
                         f'9" from tac/3 by {over:.3f}")'), f.message
    assert f.failing_models == ["tac/3", "tac/1"]
    # measured: the distance of the worst part (to its nearest), as for every other distance rule
    assert f.measured == pytest.approx(8.0)
    assert [(d.measured, d.measured_to) for d in f.failing_details] == [(pytest.approx(8.0), "tac/2"),
                                                                         (pytest.approx(9.0 + over), "tac/3")]


def test_40k_11th_also_entry_of_a_model_failing_both_parts_shows_both():
    # tac/3 fails both parts (8" from tac/2, 10.26" from tac/1), tac/4 too (10" further); tac/1 and
    # tac/4 are equally far over 9" from each other: the first in model order is the finding's model
    f = _one(check("wh40k11", [unit("tac", _chain(1.0, 8.0, 10.0))], [RED_LINE]), "tac", "wh40k11.coherency")
    over3 = 8.0 + 1.0 + 2 * R32 - 9.0
    over4 = 10.0 + 8.0 + 1.0 + 4 * R32 - 9.0
    assert f.model == "tac/1" and f.margin == pytest.approx(-over4)
    assert f.message.startswith(f'model tac/1 is more than 9" from model tac/4 of its unit (by {over4:.3f}": '
                                f'{9 + over4:.3f}" apart); '
                                f'also model tac/4 (more than 9" from tac/1 by {over4:.3f}"; short by 8.000"; its '
                                'nearest: tac/3), '), f.message
    (d3,) = [d for d in f.failing_details if d.model == "tac/3"]
    assert d3.detail == f'short by 6.000"; its nearest: tac/2; more than 9" from tac/1 by {over3:.3f}"', d3.detail
    assert f"model tac/3 ({d3.detail})" in f.message
    assert d3.measured == pytest.approx(8.0) and d3.measured_to == "tac/2"
    assert f.failing_models[:2] == ["tac/1", "tac/4"] and sorted(f.failing_models) == ["tac/1", "tac/2", "tac/3",
                                                                                        "tac/4"]


def test_40k_10th_coherency_is_unchanged_by_the_9_inch_part():
    f = _one(check("wh40k10", [unit("tac", _chain(1.0, 8.0))], [RED_LINE]), "tac", "wh40k10.coherency")
    assert f.message == 'model tac/3 is not within 2" of 1 other model(s) (short by 6.000"; its nearest: model tac/2)'


def test_40k_coherency_row_has_its_measured_value_in_the_markdown_report():
    from planner.report.markdown import check_markdown

    u = unit("tac", [model(10, 6), model(10 + 2 * R32 + 1.5, 6)])
    r = check("wh40k10", [u], [RED_LINE])
    (f,) = [f for x in r.units if x.unit == "tac" for f in x.findings if f.rule == "wh40k10.coherency"]
    assert f.passed and f.measured == pytest.approx(1.5) and f.margin == pytest.approx(0.5)
    rows = [line for line in check_markdown(r).splitlines() if line.startswith("| wh40k10.coherency | passed |")]
    # the measured cell of each unit's row: tac's 1.5" gap, red-line's 2" spacing of 32 mm bases
    assert sorted(row.split(" | ")[3] for row in rows) == ['0.740"', '1.500"'], rows


# ------------------------------------------------------------------ 3: the 10th/11th Deep Strike distance
@pytest.mark.parametrize("ruleset", ["wh40k10", "wh40k11"])
def test_deepstrike_distance_finding_names_the_closest_landing_model(tmp_path, ruleset):
    """`planner deepstrike --at` (a legal landing): the distance finding says which landing model
    is the closest to the enemy, the one of its ``model`` field, as the positions show."""
    import math

    import yaml

    from tests.test_ds_terrain import _scenario

    src, js = tmp_path / "s.yaml", tmp_path / "s.json"
    src.write_text(yaml.safe_dump(_scenario(ruleset, 3)), encoding="utf-8")
    r = CliRunner().invoke(app, ["deepstrike", str(src), "--unit", "ds", "--at", "34,28", "--json", str(js)])
    assert r.exit_code == 0, r.output
    land = json.loads(js.read_text())["landing_on_target"]
    (f,) = [f for f in land["findings"] if f["rule"] == f"{ruleset}.deepstrike.distance"]
    # the enemy model stands at (50, 40); every base is 32 mm
    gaps = [math.hypot(50 - x, 40 - y) - 2 * R32 for x, y in land["positions"]]
    closest = min(range(3), key=gaps.__getitem__)
    assert f["passed"] and f["model"] == str(closest + 1)
    assert f["message"] == f'closest enemy model enemy/1 at {gaps[closest]:.3f}" from model {closest + 1}', f["message"]
    assert f["measured"] == pytest.approx(gaps[closest])


# ------------------------------------------------------------------ 7: the Deep Strike render's colours
def test_deepstrike_render_draws_the_formation_in_the_controllers_colour(tmp_path):
    """The landing formation is the Deep Striking player's: drawn in its colour (red's when red Deep
    Strikes), not in one fixed blue that reads as the other player's models."""
    import re

    import yaml

    from planner.deepstrike.scene import scene_data
    from planner.render.draw import NAMED_COLOURS

    data = scene_data("wh40k7", n=3, ovals=False)
    controller = "red"  # the Deep Striking army is red's, the enemy blue's (the old fixed colour was a blue)
    mine, theirs = data["armies"]
    mine["player"], theirs["player"] = "red", "blue"
    src, out = tmp_path / "ds.yaml", tmp_path / "ds.svg"
    src.write_text(yaml.safe_dump(data), encoding="utf-8")
    r = CliRunner().invoke(app, ["deepstrike", str(src), "--unit", "ds", "--at", "16,24", "--orientation", "0",
                                 "--render", str(out), "--resolution", "12"])
    assert r.exit_code == 0, r.output
    svg = out.read_text(encoding="utf-8")
    fills = re.findall(r'<g id="formation-\d+">\s*<path[^>]*style="fill: (#[0-9a-f]{6})', svg)
    assert fills == [NAMED_COLOURS[controller]] * 3, fills


# ------------------------------------------------------------------ 8: the duplicate unit id hint
def test_a_roster_clash_is_refused_at_the_id_prefix_by_resolve_too_and_a_plain_one_gets_no_prefix_hint(tmp_path):
    """The resolver's duplicate-id error no longer has a roster branch: every army from a roster is
    expanded (its ``roster`` dropped) and a clash with it refused at ``roster.id_prefix`` before the
    resolver sees the units, by :func:`planner.world.resolve` as by the file loader."""
    from planner.errors import ScenarioError
    from planner.schema import Scenario
    from planner.world import resolve

    ros = ROOT / "scenarios" / "rosters" / "wh40k11-necrons.ros"
    if not ros.exists():
        pytest.skip("no example roster")
    one = {"id": "x", "keywords": ["INFANTRY"], "place": True, "models": [{"base": {"diameter_mm": 32}}]}
    base = {"ruleset": "wh40k11", "battlefield": {"width": 60, "depth": 44}, "deployment_zones": [], "terrain": []}
    alone = resolve(Scenario.model_validate(
        {**base, "armies": [{"player": "red", "roster": {"file": str(ros), "id_prefix": "m-", "place": True}}]}),
        str(tmp_path / "s.yaml"))
    taken = next(iter(alone.units))
    data = {**base, "armies": [{"player": "red", "roster": {"file": str(ros), "id_prefix": "m-", "place": True}},
                               {"player": "blue", "units": [{**one, "id": taken}]}]}
    with pytest.raises(ScenarioError) as exc:
        resolve(Scenario.model_validate(data), str(tmp_path / "s.yaml"))
    assert exc.value.location == "armies[0].roster.id_prefix" and exc.value.value == "m-", str(exc.value)
    # two hand-written units of one id in the roster's own army: the resolver's words, no prefix hint
    data["armies"] = [{**data["armies"][0], "units": [{**one, "id": "extra"}, {**one, "id": "extra"}]}]
    with pytest.raises(ScenarioError) as exc:
        resolve(Scenario.model_validate(data), str(tmp_path / "s.yaml"))
    assert exc.value.location.startswith("armies[0].units[") and exc.value.value == "extra", str(exc.value)
    assert "duplicate unit id (also armies[0].units[" in str(exc.value) and "id_prefix" not in str(exc.value)


@pytest.mark.parametrize("ruleset", ["wh40k10", "wh40k11"])
def test_a_failing_deepstrike_arrival_line_says_what_the_rule_needs(tmp_path, ruleset):
    """`planner deepstrike --at` too close to the enemy: the failure line gives the measure and what
    the rule needs ('required: more than 9" from every enemy'), not the bare distance (a fresh user's finding)."""
    import yaml

    from tests.test_ds_terrain import _scenario

    src = tmp_path / "s.yaml"
    src.write_text(yaml.safe_dump(_scenario(ruleset, 3)), encoding="utf-8")
    r = CliRunner().invoke(app, ["deepstrike", str(src), "--unit", "ds", "--at", "50,35"])
    assert r.exit_code == 1, r.output
    line = next(ln for ln in r.output.splitlines() if f"[{ruleset}.deepstrike.distance]" in ln)
    more = 9 if ruleset == "wh40k10" else 8
    assert line.strip().startswith("x [") and line.endswith(f'(required: more than {more}" from every enemy)'), line


def test_the_odds_table_says_when_its_trigger_rows_overlap(tmp_path):
    """7th edition: a landing can be on a model and within 1" of it at once, so the trigger rows may
    add up to more than P(mishap); the table says so under them then (a fresh user added them up),
    and not where they do not (at the table edge, or a 10th-edition verdict)."""
    import yaml

    from tests.test_ds_terrain import _scenario

    src = tmp_path / "s.yaml"
    src.write_text(yaml.safe_dump(_scenario("wh40k7", 3)), encoding="utf-8")
    note = "one landing can meet several, so the rows add up to more than the mishap"

    def out(rs: str, at: str) -> str:
        src.write_text(yaml.safe_dump(_scenario(rs, 3)), encoding="utf-8")
        r = CliRunner().invoke(app, ["deepstrike", str(src), "--unit", "ds", "--at", at], terminal_width=400)
        assert r.exit_code in (0, 1), r.output
        return r.output

    assert note in out("wh40k7", "50,40")  # on the enemy model: on_model 0.3403 + within 1" 0.3670 > 0.6381
    assert note not in out("wh40k7", "2,24")  # off the table or in terrain: rows add up to the mishap
    assert "add up to more" not in out("wh40k10", "50,35")


@pytest.mark.parametrize("ruleset", ["wh40k10", "wh40k11"])
def test_a_10th_11th_map_is_the_illegal_set_up_map(tmp_path, ruleset):
    """10th/11th have no mishap: `--map` writes P(illegal set-up) with the fixed formation (column
    p_illegal, 1 near the enemy model at (50, 40), 0 far from it) and says --at tries other formations."""
    import csv

    import yaml

    from tests.test_ds_terrain import _scenario

    src, m, js = tmp_path / "s.yaml", tmp_path / "m.csv", tmp_path / "m.json"
    src.write_text(yaml.safe_dump(_scenario(ruleset, 3)), encoding="utf-8")
    r = CliRunner().invoke(app, ["deepstrike", str(src), "--unit", "ds", "--map", str(m), "--resolution", "6",
                                 "--json", str(js)], terminal_width=400)
    assert r.exit_code == 0, r.output
    assert "illegal set-up (1 illegal, 0 legal) heat map" in r.output and "--at tries the other formations" in r.output
    rows = list(csv.DictReader(m.open()))
    assert set(rows[0]) == {"x", "y", "p_illegal"}
    cell = {(float(r["x"]), float(r["y"])): float(r["p_illegal"]) for r in rows}
    assert cell[(51.0, 39.0)] == 1.0 and cell[(3.0, 3.0)] == 0.0
    assert json.loads(js.read_text())["map"]["value"] == "p_illegal"


def test_a_plan_term_reads_in_inches():
    """A plan's term line gives inches as `"` (a fresh user read 'value 12.3 in x weight 1')."""
    from types import SimpleNamespace

    from planner.report.ruling import term_text

    gv = SimpleNamespace(name="near-point", cost=25.0, value=12.5, measure="in", weight=2.0)
    assert term_text(gv) == 'term near-point: 25.000 (value 12.500" x weight 2)'
    gv = SimpleNamespace(name="exposure", cost=4.2, value=2.1, measure="models", weight=2.0)
    assert term_text(gv) == "term exposure: 4.200 (value 2.100 models x weight 2)"
    # the bounds' words: tests/test_lagrange.py ("the bound reported is ...") and
    # tests/test_planner_rounds.py ("the rounds' CP-SAT bound ..., proven in an earlier round, is kept")
