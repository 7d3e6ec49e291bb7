"""Issue 19 item 5, the rest: restrictions honoured by 40k Deep Strike threats, by the Deep Strike
landing test (and so the generator's labels), and at a Scout's first set-up."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from planner.cli import app
from planner.cli.generate import run_generate
from planner.deepstrike.procedure import judge_landing, make_setup, odds
from planner.legality.checker import check_deployment
from planner.schema import Scenario
from planner.world import resolve

B32 = 32 / 25.4
SCEN = Path(__file__).resolve().parent / "data" / "rulings" / "restriction.yaml"


def _w40k(restriction: float | None = 12.0, ds_models=None) -> dict:
    ward = {"id": "ward", "keywords": ["INFANTRY"], "models": [{"base": {"diameter_mm": 32}, "x": 30, "y": 6}]}
    if restriction is not None:
        ward["restrictions"] = [{"within_in": restriction, "methods": ["deep_strike"], "source": "datasheet p.9",
                                 "name": "Ward"}]
    ds = {"id": "ds", "keywords": ["INFANTRY"], "abilities": ["Deep Strike"],
          "setup": {"method": "reserves", "arrival": "deep_strike"},
          "models": ds_models or [{"base": {"diameter_mm": 32}}]}
    return {"ruleset": "wh40k10", "battlefield": {"width": 60, "depth": 44},
            "deployment_zones": [{"id": "a", "player": "red", "polygon": [[0, 0], [60, 0], [60, 12], [0, 12]]},
                                 {"id": "b", "player": "blue", "polygon": [[0, 32], [60, 32], [60, 44], [0, 44]]}],
            "armies": [{"player": "red", "units": [ward]}, {"player": "blue", "units": [ds]}]}


@pytest.mark.parametrize("gap, legal", [(12.0, False), (12.01, True)])
def test_deep_strike_landing_honours_the_restriction(gap, legal):
    """The landing test (odds, heat maps, threats, generator labels) and the checker agree at
    exactly 12" (illegal: within) and 12.01"."""
    st = make_setup(resolve(Scenario.model_validate(_w40k())), "ds")
    assert st.restricted
    y = 6 + B32 + gap
    land = judge_landing(st, 30.0, y)
    # the trigger is the rule id planner check reports (one table: DeepStrikeRules.arrival_rule_id)
    assert land.mishap is not legal and land.triggers == ([] if legal else ["wh40k10.restriction.within"])
    (f,) = [f for f in land.findings if f.rule == "wh40k10.restriction.within"]
    assert f.passed is legal and f.measured == pytest.approx(gap, abs=1e-9) and "datasheet p.9" in f.message
    o = odds(st, 30.0, y)
    assert o.triggers["wh40k10.restriction.within"] == (0.0 if legal else 1.0)
    # the checker, with the unit arriving at that position
    d = _w40k()
    d["armies"][1]["units"][0]["setup"]["battle_round"] = 2
    d["armies"][1]["units"][0]["models"][0].update(x=30.0, y=y)
    rep = check_deployment(resolve(Scenario.model_validate(d), "w.yaml", require_positions=True))
    (g,) = [f for u in rep.units if u.unit == "ds" for f in u.findings if f.rule == "wh40k10.restriction.within"]
    assert g.passed is legal


def test_no_restriction_keeps_the_old_landing():
    st = make_setup(resolve(Scenario.model_validate(_w40k(None))), "ds")
    assert not st.restricted
    assert list(odds(st, 30.0, 20.0).triggers) == ["wh40k10.battlefield", "wh40k10.deepstrike.distance",
                                                   "wh40k10.terrain.placement", "wh40k10.bases.overlap"]


def test_40k_deep_strike_threats_honour_the_restriction(tmp_path):
    """Threats: the enemy unit's legal arrival area shrinks to outside the 12" ward, and its best
    arrival near my unit is more than 12" away (about 9" without the restriction)."""
    out = {}
    for name, r in (("ward", 12.0), ("free", None)):
        src = tmp_path / f"{name}.yaml"
        src.write_text(yaml.safe_dump(_w40k(r)), encoding="utf-8")
        js = tmp_path / f"{name}.json"
        res = CliRunner().invoke(app, ["threats", str(src), "--enemy-unit", "ds", "--goal", "near_units",
                                       "--grid", "2", "--json", str(js)])
        assert res.exit_code == 0, res.output
        out[name] = json.loads(js.read_text())
    assert 12.0 < out["ward"]["best"]["value"] <= 12.0 + 2.0
    assert 9.0 < out["free"]["best"]["value"] < 12.0
    assert out["ward"]["legal_anchors"] < out["free"]["legal_anchors"]


def test_generated_deep_strike_with_a_restricting_unit_follows_the_checker(tmp_path):
    """deepstrike_restriction 1 under wh40k10: each item's enemy ward and aim point about X" from
    it; the label's restriction finding and odds agree with the checker on the scenario with the
    unit arriving at the labelled positions; both sides of X occur."""
    params = tmp_path / "p.yaml"
    params.write_text("deepstrike_restriction: 1.0\ndeepstrike_models: [1, 3]\nboundary_band: 0.25\n",
                      encoding="utf-8")
    out = tmp_path / "g"
    manifest, code = run_generate(8, 7, str(out), ruleset="wh40k10", kinds_text="deepstrike",
                                  params_file=str(params))
    assert code == 0
    lines = [json.loads(x) for x in (out / "scenarios.jsonl").read_text().splitlines()]
    verdicts = set()
    seen = 0
    for line in lines:
        lab = line["label"]
        if "restriction" not in lab:
            continue
        seen += 1
        data = {k: v for k, v in line.items() if k != "label"}
        unit = next(u for a in data["armies"] for u in a["units"] if u["id"] == lab["unit"])
        unit["setup"]["battle_round"] = 2
        for m, (x, y) in zip(unit["models"], lab["positions"], strict=True):
            m.update(x=x, y=y)
        rep = check_deployment(resolve(Scenario.model_validate(data), "g.yaml", require_positions=True))
        found = [f for u in rep.units if u.unit == lab["unit"] for f in u.findings
                 if f.rule == "wh40k10.restriction.within"]
        assert [f.passed for f in found] == [f["passed"] for f in lab["restriction"]]
        ok = all(f.passed for f in found)
        verdicts.add(ok)
        assert (lab["odds"]["triggers"]["wh40k10.restriction.within"] == 0.0) is ok
        if not ok:
            assert lab["odds"]["p_mishap"] == 1.0  # an arrival within X" is illegal
    assert seen >= 4 and verdicts == {True, False}


# --------------------------------------------------------------------------- a Scout's first set-up


def _scout(gap: float) -> dict:
    """restriction.yaml with the red unit a Scout: first set up by Infiltrate at ``gap`` from the
    14" Auspex Ward (which forbids Infiltrate set-up), then redeployed far from it."""
    data = yaml.safe_load(SCEN.read_text())
    inf = data["armies"][0]["units"][0]
    inf["rules"] = ["Infiltrate", "Scout"]
    y0 = 40 - B32 - gap
    inf["setup"] = {"method": "scout", "first": "infiltrate", "from": [[36, y0]]}
    inf["models"][0].update(x=36, y=y0 - 4.0)
    return data


@pytest.mark.parametrize("gap, legal", [(14.0, False), (14.01, True)])
def test_scout_redeploy_is_checked_at_its_first_set_up(gap, legal):
    rep = check_deployment(resolve(Scenario.model_validate(_scout(gap)), "s.yaml", require_positions=True))
    found = [f for u in rep.units if u.unit == "inf" for f in u.findings if f.rule == "hh2.restriction.within"]
    first = [f for f in found if "first set-up" in f.message]
    assert len(first) == 1 and first[0].passed is legal
    assert first[0].measured == pytest.approx(gap, abs=1e-9)
    # the redeploy itself (scout) is not a method of this restriction: no finding for it
    assert len(found) == 1
    # with 'scout' among its methods the redeploy is measured too, 18" away: passes
    d = _scout(gap)
    d["armies"][1]["units"][0]["restrictions"][0]["methods"].append("scout")
    rep = check_deployment(resolve(Scenario.model_validate(d), "s.yaml", require_positions=True))
    found = [f for u in rep.units if u.unit == "inf" for f in u.findings if f.rule == "hh2.restriction.within"]
    assert len(found) == 2 and [f for f in found if "first set-up" not in f.message][0].measured == pytest.approx(
        gap + 4.0, abs=1e-9)
    _ = copy


def _plan_scout(data: dict):
    from planner.solve.planner import SolverSettings, plan_deployment

    return plan_deployment(resolve(Scenario.model_validate(data)),
                           SolverSettings(time_limit_s=10, workers=1, seed=0, grid_in=1.0, candidates_per_unit=10))


@pytest.mark.parametrize("gap, legal", [(14.0, False), (14.01, True)])
def test_planner_judges_a_scouts_first_set_up_against_restrictions(gap, legal):
    # HH2: first set up by Infiltrate at ``gap`` from the 14" Auspex Ward; the redeploy is planned
    from planner.testing import assert_plan_legal

    data = _scout(gap)
    inf = data["armies"][0]["units"][0]
    inf["place"] = True
    for k in ("x", "y"):
        inf["models"][0].pop(k)
    data["goals"] = [{"kind": "near_point", "x": 36, "y": 26}]
    result = _plan_scout(data)
    if legal:
        assert result.status == "optimal", result.message
        assert_plan_legal(result)  # the checker accepts the plan, first set-up included
        first = [f for u in result.legality.units if u.unit == "inf" for f in u.findings
                 if f.rule == "hh2.restriction.within"]
        assert len(first) == 1 and first[0].passed and first[0].measured == pytest.approx(14.01, abs=1e-9)
    else:  # exactly 14": no redeploy can mend the first set-up, so no plan is returned
        assert result.status == "infeasible" and result.exit_code == 1 and not result.placements
        (c,) = result.conflicts
        assert c.units == ["inf"] and "hh2.restriction.within" in c.rules and "warden" in c.message
        assert "first set-up" in c.message


@pytest.mark.parametrize("ruleset", ["wh40k10", "wh40k11"])
@pytest.mark.parametrize("gap, legal", [(12.0, False), (12.01, True)])
def test_planner_judges_a_40k_scouts_first_set_up_against_restrictions(ruleset, gap, legal):
    from planner.testing import assert_plan_legal

    # the Scouts unit was deployed in its zone ``gap`` from a ward forbidding deployment within 12"
    first = [30.0, 22.0 - 2 * B32 / 2 - gap]
    ward = {"id": "ward", "keywords": ["INFANTRY"], "abilities": ["Infiltrators"], "setup": "infiltrate",
            "restrictions": [{"within_in": 12, "methods": ["deployment"], "source": "datasheet p.3", "name": "Ward"}],
            "models": [{"base": {"diameter_mm": 32}, "x": 30, "y": 22}]}
    scout = {"id": "scout", "keywords": ["INFANTRY"], "abilities": ['Scouts 6"'], "place": True,
             "setup": {"method": "scout", "first": "deployment_zone", "from": [first]},
             "models": [{"base": {"diameter_mm": 32}}]}
    data = {"ruleset": ruleset, "battlefield": {"width": 60, "depth": 44},
            "deployment_zones": [{"id": "blue-dz", "player": "blue", "polygon": [[0, 0], [60, 0], [60, 12], [0, 12]]},
                                 {"id": "red-dz", "player": "red", "polygon": [[0, 32], [60, 32], [60, 44], [0, 44]]}],
            "goals": [{"kind": "near_point", "x": 30, "y": 0}],
            "armies": [{"player": "blue", "units": [scout]}, {"player": "red", "units": [ward]}]}
    result = _plan_scout(data)
    if legal:
        assert result.status == "optimal", result.message
        assert_plan_legal(result)
        rs = [f for u in result.legality.units if u.unit == "scout" for f in u.findings
              if f.rule == f"{ruleset}.restriction.within"]
        assert len(rs) == 1 and rs[0].passed and rs[0].measured == pytest.approx(12.01, abs=1e-9)
    else:
        assert result.status == "infeasible" and result.exit_code == 1 and not result.placements
        (c,) = result.conflicts
        assert f"{ruleset}.restriction.within" in c.rules and "ward" in c.message and "first set-up" in c.message


def test_a_deep_strike_ruleset_without_restrictions_says_it_does_not_apply_them(tmp_path):
    # the fresh user's finding: HH/7th Deep Strike odds ignored a ward in silence
    d = _w40k()
    d["ruleset"] = "wh40k7"
    d["armies"][1]["units"][0].pop("abilities")
    d["armies"][1]["units"][0]["rules"] = ["Deep Strike"]
    src = tmp_path / "w7.yaml"
    src.write_text(yaml.safe_dump(d), encoding="utf-8")
    st = make_setup(resolve(Scenario.model_validate(d)), "ds")
    assert st.unapplied == ("ward",) and not st.restricted
    res = CliRunner().invoke(app, ["deepstrike", str(src), "--unit", "ds", "--at", "30,20", "--json", "-"])
    assert res.exit_code in (0, 1), res.output
    assert "Not applied: the restrictions on Deep Strike arrivals of ward" in res.output
    data = json.loads(res.output[res.output.index("{"):])
    assert any("ward" in n for n in data["notes"])
    assert make_setup(resolve(Scenario.model_validate(_w40k())), "ds").unapplied == ()  # 10th applies them
