"""``check --cover`` (issue #19 item 6): per model, the benefit of cover against each enemy unit
and why, by the planner's cover predicate (:meth:`planner.legality.wh40k.WH40kTable.model_cover`)."""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from typer.testing import CliRunner

from planner.cli import app
from planner.legality.checker import check_deployment
from planner.legality.wh40k import WH40kTable, edition
from planner.schema import Scenario
from planner.world import resolve
from tests.wh40k_helpers import dawn_of_war, model, unit

RUIN = {"id": "ruin", "kind": "area", "traits": ["obscuring", "blocks_line_of_sight"],
        "footprint": [[33, 15], [40, 15], [40, 21], [33, 21]]}
WALL = {"id": "wall", "kind": "solid", "traits": ["blocks_line_of_sight"],
        "footprint": [[10, 20], [20, 20], [20, 21], [10, 21]]}


def _data(ruleset: str) -> dict:
    blue = unit("inf", [model(36, 18), model(50, 18), model(15, 18), model(20.2, 18.5)], keywords=["INFANTRY"])
    red = unit("foe", [model(15, 39), model(16.5, 39)], keywords=["INFANTRY"])
    return {"ruleset": ruleset, "battlefield": {"width": 60, "depth": 44}, "deployment_zones": dawn_of_war(12),
            "terrain": [RUIN, WALL],
            "armies": [{"player": "blue", "units": [blue]}, {"player": "red", "units": [red]}]}


def _cover(ruleset: str) -> dict[str, tuple[bool, str]]:
    world = resolve(Scenario.model_validate(_data(ruleset)), "c.yaml", require_positions=True)
    rep = check_deployment(world, cover=True)
    assert rep.cover is not None
    return {c.model: (c.cover, c.reason) for c in rep.cover if c.unit == "inf" and c.against == "foe"}


def test_11th_cover_per_model_with_reasons():
    c = _cover("wh40k11")
    assert c["1"] == (True, "within terrain area ruin")  # INFANTRY within a terrain area
    assert c["2"] == (False, "in the open and fully visible")
    assert c["3"] == (True, "not visible at all (so not fully visible)")  # wholly behind the wall
    assert c["4"] == (True, "not fully visible")  # past the wall's end: partly seen


def test_10th_needs_wholly_within_ruins():
    c = _cover("wh40k10")
    assert c["2"] == (False, "in the open and fully visible")
    assert c["3"] == (True, "not visible at all (so not fully visible)")
    assert c["4"] == (True, "not fully visible")
    assert c["1"][0] is True  # wholly within the ruin (10th: ruins are area features that block sight)


def test_check_cover_is_the_planner_goals_predicate():
    # the unit-level verdict of the cover goal (cover_for) is every model's, in the same words
    world = resolve(Scenario.model_validate(_data("wh40k11")), "c.yaml", require_positions=True)
    t = WH40kTable(world, edition("wh40k11"))
    ok, why = t.has_cover(world.units["inf"], world.units["foe"])
    c = _cover("wh40k11")
    assert ok is all(v[0] for v in c.values()) is False
    assert why == [f"{m}: {c[m][1]}" for m in ("1", "2")]


def test_cli_text_and_json(tmp_path):
    f = tmp_path / "c.yaml"
    f.write_text(yaml.safe_dump(_data("wh40k11")))
    j = tmp_path / "c.json"
    r = CliRunner().invoke(app, ["check", str(f), "--cover", "--json", str(j)], terminal_width=200)
    assert r.exit_code in (0, 1), r.output
    assert "Benefit of cover" in r.output and "within terrain area ruin" in r.output
    rows = json.loads(j.read_text())["cover"]
    assert {(x["model"], x["cover"]) for x in rows if x["unit"] == "inf"} == {("1", True), ("2", False), ("3", True),
                                                                          ("4", True)}
    r = CliRunner().invoke(app, ["check", str(f), "--json", str(j)])
    assert json.loads(j.read_text())["cover"] is None  # not asked: the report is as before


def test_cover_in_every_format():
    from planner.report.html import check_html
    from planner.report.markdown import check_markdown

    world = resolve(Scenario.model_validate(_data("wh40k11")), "c.yaml", require_positions=True)
    report = check_deployment(world, cover=True)
    for text in (check_markdown(report), check_html(report)):
        assert "Benefit of cover" in text and "not fully visible" in text and "within terrain area ruin" in text


def test_hh2_has_no_cover_rule_exit_2():
    hh2 = Path(__file__).resolve().parent / "data" / "rulings" / "ic-joins-infiltrate-unit.yaml"
    r = CliRunner().invoke(app, ["check", str(hh2), "--cover"])
    assert r.exit_code == 2 and "benefit of cover" in r.output


def test_a_deep_striker_arrived_in_round_2_is_listed_from_its_arrival():
    """A 10th/11th unit set up by Deep Strike in battle round 2 (positions, ``battle_round: 2``) is on
    the battlefield once it arrives: check --cover lists its models against the enemy and the
    enemy's models against it, the reason saying from which round; a unit still in reserves
    (no positions) is not listed."""
    data = _data("wh40k11")
    ds = unit("ds", [model(55, 25), model(56.5, 25)], keywords=["INFANTRY"])
    ds.update(abilities=["Deep Strike"], setup={"method": "reserves", "arrival": "deep_strike", "battle_round": 2})
    data["armies"][1]["units"] += [ds, {"id": "waiting", "keywords": ["INFANTRY"], "setup": "reserves",
                                        "models": [{"base": {"diameter_mm": 32}}]}]
    world = resolve(Scenario.model_validate(data), "c.yaml", require_positions=True)
    rep = check_deployment(world, cover=True)
    assert rep.cover is not None
    rows = {(c.unit, c.model, c.against): (c.cover, c.reason) for c in rep.cover}
    after = " (from battle round 2, once ds has arrived)"
    assert rows[("ds", "1", "inf")] == (False, "in the open and fully visible" + after)
    assert rows[("inf", "1", "ds")] == (True, "within terrain area ruin" + after)
    assert rows[("inf", "1", "foe")] == (True, "within terrain area ruin")  # the deployed units as before
    assert {k[0] for k in rows} == {"inf", "foe", "ds"} and not any("waiting" in k for k in rows)
