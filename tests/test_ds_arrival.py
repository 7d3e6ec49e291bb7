"""10th/11th `planner deepstrike --at`: an arrival check (LEGAL / NOT LEGAL), not an odds table, each
rule broken named by the id `planner check` reports for the same arrival (one table:
:data:`planner.deepstrike.procedure.ARRIVAL_RULES`), with its meaning; JSON ``legal``,
``rules_failed`` and ``odds.triggers`` keyed by those ids.

One 25 mm model, so the exact distances are those of the bases: a 25 mm base has radius 12.5/25.4".
"""

from __future__ import annotations

import copy
import json

import pytest
import yaml
from typer.testing import CliRunner

from planner.cli.commands import app
from planner.deepstrike.procedure import ARRIVAL_RULES, deepstrike_rules
from planner.legality.checker import check_deployment
from planner.rules.registry import find_ruleset
from planner.schema import Scenario
from planner.world import resolve

R25 = 12.5 / 25.4
ENEMY = (30.0, 30.0)


def _data(ruleset: str) -> dict:
    return {"ruleset": ruleset, "battlefield": {"width": 60, "depth": 44}, "terrain": [],
            "armies": [
                {"player": "blue", "units": [{"id": "ds", "keywords": ["INFANTRY"], "abilities": ["Deep Strike"],
                                              "setup": {"method": "reserves", "arrival": "deep_strike"},
                                              "models": [{"base": {"diameter_mm": 25}}]}]},
                {"player": "red", "units": [{"id": "enemy", "keywords": ["INFANTRY"],
                                             "models": [{"base": {"diameter_mm": 25}, "x": ENEMY[0],
                                                         "y": ENEMY[1]}]}]}]}


def _arrive(tmp_path, ruleset: str, x: float, y: float):
    """`planner deepstrike --at x,y --json`: (exit code, text with whitespace runs made one space, JSON)."""
    src, js = tmp_path / f"{ruleset}.yaml", tmp_path / f"{ruleset}.json"
    src.write_text(yaml.safe_dump(_data(ruleset)), encoding="utf-8")
    r = CliRunner().invoke(app, ["deepstrike", str(src), "--unit", "ds", "--at", f"{x!r},{y!r}", "--json", str(js)])
    assert r.exception is None or isinstance(r.exception, SystemExit), r.exception
    return r.exit_code, " ".join(r.output.split()), json.loads(js.read_text(encoding="utf-8"))


def _checked(ruleset: str, positions: list[list[float]]) -> set[str]:
    """The rule ids `planner check` fails for the unit arriving (battle round 2) at ``positions``."""
    d = copy.deepcopy(_data(ruleset))
    ds = d["armies"][0]["units"][0]
    ds["setup"]["battle_round"] = 2
    for m, (cx, cy) in zip(ds["models"], positions, strict=True):
        m.update(x=cx, y=cy)
    rep = check_deployment(resolve(Scenario.model_validate(d), "w.yaml", require_positions=True))
    return {v.rule for v in rep.violations if v.unit == "ds"}


def _meaning(rule_id: str) -> str:
    return " ".join(find_ruleset(rule_id.split(".")[0]).rule(rule_id).meaning.split())


@pytest.mark.parametrize("ruleset", ["wh40k10", "wh40k11"])
def test_every_arrival_rule_id_is_a_rule_of_the_ruleset(ruleset):
    R = deepstrike_rules(ruleset)
    ids = R.arrival_rule_ids(restricted=True)
    assert ids == tuple(f"{ruleset}.{rule}" for _, rule in ARRIVAL_RULES)
    assert ids == (f"{ruleset}.battlefield", f"{ruleset}.deepstrike.distance", f"{ruleset}.restriction.within",
                   f"{ruleset}.terrain.placement", f"{ruleset}.bases.overlap")
    assert R.arrival_rule_ids() == tuple(i for i in ids if not i.endswith(".restriction.within"))
    for i in ids:
        assert find_ruleset(ruleset).rule(i).id == i  # KeyError if not listed
    with pytest.raises(KeyError):
        R.arrival_rule_id("enemy_within_1")  # a 5th/7th mishap trigger, no 10th/11th rule


def test_a_legal_10th_arrival_says_legal_and_no_odds(tmp_path):
    code, out, data = _arrive(tmp_path, "wh40k10", 30.0, 10.0)
    assert code == 0, out
    assert "Deep Strike arrival check, ds at (30, 10), wh40k10: LEGAL" in out
    assert "NOT LEGAL" not in out and "Deep Strike odds" not in out
    assert "probability" not in out and "0.0000" not in out and "1.0000" not in out
    assert ("Every rule of the arrival holds: wh40k10.battlefield, wh40k10.deepstrike.distance, "
            "wh40k10.terrain.placement, wh40k10.bases.overlap") in out
    assert "decides this arrival check" in out
    assert data["legal"] is True and data["rules_failed"] == []
    o = data["odds"]  # the fields kept: p_mishap / p_clean 0 or 1, triggers by rule id
    assert (o["p_mishap"], o["p_clean"]) == (0.0, 1.0)
    assert o["triggers"] == {"wh40k10.battlefield": 0.0, "wh40k10.deepstrike.distance": 0.0,
                             "wh40k10.terrain.placement": 0.0, "wh40k10.bases.overlap": 0.0}
    assert _checked("wh40k10", data["landing_on_target"]["positions"]) == set()


@pytest.mark.parametrize(("ruleset", "limit"), [("wh40k10", 9.0), ("wh40k11", 8.0)])
@pytest.mark.parametrize(("gap", "legal"), [(0.0, False), (0.01, True)])
def test_exactly_the_arrival_distance_is_not_legal_and_a_hundredth_more_is(tmp_path, ruleset, limit, gap, legal):
    """Base to base exactly 9.0" (11th: 8.0") from the enemy model: NOT LEGAL, the rule
    <ruleset>.deepstrike.distance listed with its meaning; 9.01" (8.01"): LEGAL. planner check says
    the same of the unit set up there, under the same id."""
    y = ENEMY[1] - 2 * R25 - limit - gap
    code, out, data = _arrive(tmp_path, ruleset, 30.0, y)
    rid = f"{ruleset}.deepstrike.distance"
    assert code == (0 if legal else 1), out
    assert f"Deep Strike arrival check, ds at (30, {y:g}), {ruleset}: {'LEGAL' if legal else 'NOT LEGAL'}" in out
    assert "Deep Strike odds" not in out and "0.0000" not in out and "1.0000" not in out
    assert data["legal"] is legal and data["rules_failed"] == ([] if legal else [rid])
    assert data["odds"]["triggers"][rid] == (0.0 if legal else 1.0)
    assert data["odds"]["p_mishap"] == (0.0 if legal else 1.0)
    if not legal:
        assert f"Rule broken (1): {rid}: {_meaning(rid)}" in out
        assert f'more than {limit:g}" horizontally' in _meaning(rid)
        assert f"x [{rid}] closest enemy model enemy/1 at {limit:.3f}\" from model 1" in out
        assert f'(required: more than {limit:g}" from every enemy)' in out
    else:
        assert "Rule broken" not in out and f"{rid}:" not in out
    assert _checked(ruleset, data["landing_on_target"]["positions"]) == set(data["rules_failed"])


@pytest.mark.parametrize("ruleset", ["wh40k10", "wh40k11"])
def test_an_arrival_over_the_table_edge_names_the_battlefield_rule(tmp_path, ruleset):
    """The base overhangs the left edge by 0.1": <ruleset>.battlefield (planner check's id, not a
    trigger name such as off_table), with its meaning and the model over the edge."""
    x = R25 - 0.1
    code, out, data = _arrive(tmp_path, ruleset, x, 10.0)
    rid = f"{ruleset}.battlefield"
    assert code == 1, out
    assert f"Deep Strike arrival check, ds at ({x:g}, 10), {ruleset}: NOT LEGAL" in out
    assert f"Rule broken (1): {rid}: {_meaning(rid)}" in out
    assert f'x [{rid}] model 1 would land off the table (0.100" over the edge)' in out
    assert "off_table" not in out and "off_table" not in json.dumps(data)
    assert data["legal"] is False and data["rules_failed"] == [rid]
    assert data["landing_on_target"]["triggers"] == [rid]
    assert [k for k, v in data["odds"]["triggers"].items() if v] == [rid]
    assert _checked(ruleset, data["landing_on_target"]["positions"]) == {rid}


def test_simulate_is_refused_for_an_arrival_check(tmp_path):
    """10th/11th roll no dice: --simulate would replay nothing (it printed P(mishap) 0 beside an
    exact 1 before), so it is refused naming it, exit 2."""
    src = tmp_path / "s.yaml"
    src.write_text(yaml.safe_dump(_data("wh40k11")), encoding="utf-8")
    r = CliRunner().invoke(app, ["deepstrike", str(src), "--unit", "ds", "--at", "30,27", "--simulate", "100",
                                 "--json", "-"])
    assert r.exit_code == 2, r.output
    err = json.loads(r.stdout)
    assert err["location"] == "--simulate" and "does not apply under wh40k11" in err["error"]


def test_the_7th_edition_keeps_its_odds_table(tmp_path):
    """The Mishap procedure's output is unchanged: the odds table, its rows and probabilities."""
    d = _data("wh40k7")
    ds = d["armies"][0]["units"][0]
    ds.pop("abilities")
    ds["rules"] = ["Deep Strike"]
    for u in (ds, d["armies"][1]["units"][0]):
        u.pop("keywords")
        u["type"] = "Infantry"
    src = tmp_path / "s.yaml"
    src.write_text(yaml.safe_dump(d), encoding="utf-8")
    r = CliRunner().invoke(app, ["deepstrike", str(src), "--unit", "ds", "--at", "30,10"], terminal_width=300)
    assert r.exit_code == 0, r.output
    assert "Deep Strike odds, aim (30, 10)" in r.output and "clean landing" in r.output
    assert "arrival check" not in r.output and "decides these odds" in r.output
