"""Issue 19: the Deep Strike rulings change what ``planner deepstrike`` computes (``--ruling KEY=VALUE``
and the scenario's ``rulings:``), each reading with its own answer, and every output states them."""

from __future__ import annotations

import json
import math

import pytest
import yaml
from typer.testing import CliRunner

from planner.cli.commands import app
from planner.deepstrike.assault import assault_odds
from planner.deepstrike.formation import ring_formation
from planner.deepstrike.procedure import applied_rulings, make_setup, odds
from planner.errors import ScenarioError
from planner.geometry.measure import overlaps
from planner.geometry.shapes import round_footprint, signed_distance
from planner.schema import Scenario
from planner.world import resolve

R25 = 12.5 / 25.4


def _world(ruleset: str, base: dict, n: int, *, red=(), rulings=None, facing=0.0):
    data = {"ruleset": ruleset, "battlefield": {"width": 72, "depth": 48},
            "armies": [{"player": "blue", "units": [
                {"id": "ds", "type": "Vehicle", "rules": ["Deep Strike"], "abilities": ["Deep Strike"],
                 "setup": {"method": "reserves", "arrival": "deep_strike"},
                 "models": [{"base": dict(base), "facing": facing} for _ in range(n)]}]},
                {"player": "red", "units": list(red)}]}
    if rulings:
        data["rulings"] = rulings
    return data


def _enemy(x, y, mm=25):
    return {"id": "enemy", "type": "Infantry", "models": [{"base": {"diameter_mm": mm}, "x": x, "y": y}]}


HULL = {"length_in": 4.0, "width_in": 2.5}


# --------------------------------------------------------------------------- ds-ring-spacing


def test_true_shape_ring_of_hulls_touches_and_never_overlaps():
    """Eight 4" x 2.5" hulls at facing 0: by their true outlines ring 1 holds 7 (each touching the
    first, none overlapping), where the circumscribed discs (radius 2.358") hold 6 and put the eighth
    in ring 2 (extent 11.79" against 7.08")."""
    st = make_setup(resolve(Scenario.model_validate(_world("wh40k7", HULL, 8))), "ds",
                    rulings={"ds-ring-spacing": "true-shape"})
    f = st.formation(36.0, 24.0)
    disc = ring_formation((36.0, 24.0), st.radii)
    assert f.ring_counts() == [1, 7] and disc.ring_counts() == [1, 6, 1]
    assert disc.extent == pytest.approx(5 * math.hypot(2.0, 1.25), abs=1e-9)
    fps = [S.moved(x, y) for (x, y), S in zip(f.centres, st.shapes, strict=True)]
    for i in range(8):
        for j in range(i):
            assert not overlaps(fps[i], fps[j])
    for j in range(1, 8):
        assert signed_distance(fps[0], fps[j]) == pytest.approx(0.0, abs=1e-7)
    assert f.extent < 7.1


def test_ring_spacing_reading_changes_the_odds_by_an_edge():
    """Two hulls aimed 4" from the top edge, orientation 90 (the second model towards the edge): the
    circumscribed spacing puts the second model's centre 4.717" above the first, the true outline
    2.5" (side by side): the true-shape odds are those of a 2.5" offset, the circumscribed ones of
    4.717", each its own closed form; the fixed formation is stated in the output."""
    w = resolve(Scenario.model_validate(_world("wh40k7", HULL, 2)))
    y = 48.0 - 4.0
    circ = make_setup(w, "ds", orientation_deg=90.0)
    true = make_setup(w, "ds", orientation_deg=90.0, rulings={"ds-ring-spacing": "true-shape"})
    assert circ.formation(36.0, y).offsets()[1] == pytest.approx((0.0, 2 * math.hypot(2.0, 1.25)))
    assert true.formation(36.0, y).offsets()[1] == pytest.approx((0.0, 2.5), abs=1e-9)
    pc, pt = odds(circ, 36.0, y).p_mishap, odds(true, 36.0, y).p_mishap
    # the second hull is off the table when its centre is within 1.25" of the edge: the first model's
    # centre within 1.25 + offset; the aim is 4" away: P = (2/3) sum_d P(d) P(scatter d reaches the band)
    assert pc == pytest.approx(_edge(4.0 - 1.25 - 2 * math.hypot(2.0, 1.25)), abs=1e-6)
    assert pt == pytest.approx(_edge(4.0 - 1.25 - 2.5), abs=1e-6)
    assert pc > pt + 0.1
    assert [r["key"] for r in applied_rulings(true)] == ["ds-ring-spacing"]
    assert applied_rulings(true)[0]["value"] == "true-shape" and not applied_rulings(true)[0]["default"]
    assert applied_rulings(circ)[0]["default"]


def _edge(gap: float) -> float:
    """P(mishap) of a landing whose centre must stay more than ``gap`` from one straight edge
    (7th edition, 2D6 scatter, HIT 1/3): the closed form of an arc beyond a line."""
    p = (1 / 3) * (gap < 0)
    for a in range(1, 7):
        for b in range(1, 7):
            d = a + b
            if gap < 0:
                f = 1.0 if d <= -gap else 1 - math.acos(-gap / d) / math.pi
            else:
                f = 0.0 if d <= gap else math.acos(gap / d) / math.pi
            p += (2 / 3) * f / 36
    return p


def test_round_bases_read_no_ring_spacing():
    st = make_setup(resolve(Scenario.model_validate(_world("wh40k7", {"diameter_mm": 32}, 5))), "ds",
                    rulings={"ds-ring-spacing": "true-shape"})
    assert st.rulings == {} and st.ring_spacing == "circumscribed"


def test_scenario_rulings_section_is_read():
    w = resolve(Scenario.model_validate(_world("wh40k7", HULL, 2, rulings={"ds-ring-spacing": "true-shape"})))
    st = make_setup(w, "ds")
    assert st.ring_spacing == "true-shape" and not applied_rulings(st)[0]["default"]


def test_unknown_ruling_or_reading_is_refused():
    w = resolve(Scenario.model_validate(_world("wh40k7", HULL, 2)))
    with pytest.raises(ScenarioError, match="unknown reading"):
        make_setup(w, "ds", rulings={"ds-ring-spacing": "squares"})
    with pytest.raises(ScenarioError, match="unknown ruling"):
        make_setup(w, "ds", rulings={"dsa-igs-reroll": "taken"})  # an HH2 ruling, not a 7th-edition one


# --------------------------------------------------------------------------- dsa-*


def test_first_model_shape_disc_refuses_a_pod_2_clear_of_an_enemy():
    """The Drop Pod hull 2" clear of an enemy: accepted by its true shape (the default); under
    dsa-first-model-shape=disc its circumscribed disc comes 0.89" from the enemy: refused."""
    ey = 24.0
    w = resolve(Scenario.model_validate(_world("hh2", HULL, 1, red=[_enemy(36.0, ey)])))
    y = ey - R25 - 2.0 - 1.25
    o = assault_odds(make_setup(w, "ds"), 36.0, y)
    assert 0 < o.p_relocated < 1
    disc = make_setup(w, "ds", rulings={"dsa-first-model-shape": "disc"})
    assert disc.shapes[0].kind == "circle"
    assert signed_distance(disc.shapes[0].moved(36.0, y), round_footprint(36.0, ey, 25)) == pytest.approx(
        2.0 + 1.25 - math.hypot(2.0, 1.25), abs=1e-9)
    with pytest.raises(ScenarioError, match="enemy_within_1"):
        assault_odds(disc, 36.0, y)
    # aimed 4" clear the disc is accepted, with more chance of relocation than the hull
    y4 = ey - R25 - 4.0 - 1.25
    assert assault_odds(disc, 36.0, y4).p_relocated > assault_odds(make_setup(w, "ds"), 36.0, y4).p_relocated


def _igs_world(**kw):
    return resolve(Scenario.model_validate(_world("hh2", {"diameter_mm": 25}, 1, **kw)))


def _relocation(gap: float) -> float:
    """P(relocated) by one edge, IGS (scatter D6" halved: 2D6/2), the centre within ``gap`` ... of
    the edge band: HIT 1/3 stays; the arc beyond the line at distance ``gap`` from the aim."""
    p = 0.0
    for a in range(1, 7):
        for b in range(1, 7):
            d = (a + b) / 2
            p += (2 / 3) * (0.0 if d <= gap else math.acos(gap / d) / math.pi) / 36
    return p


def test_igs_readings_each_give_their_answer():
    """Aim 3" from the left edge with an IGS (scatter 1-6" halved). Relocated when the centre ends
    within r + 1" of the edge; the IGS correction when any part of the base (r) or, under
    dsa-igs-off-battlefield=centre, the centre (0) would be off. Under dsa-igs-correction=kept the
    corrected model stays: P(relocated) = P(band) - P(correction). The re-roll: (1/6)^2 or 1/6."""
    x = 3.0
    T = 1e-6
    base = assault_odds(make_setup(_igs_world(), "ds", inertial_guidance=True), x, 24.0)
    assert base.p_relocated == pytest.approx(_relocation(x - R25 - 1.0 - T), abs=1e-6)
    assert base.p_igs_correction == pytest.approx(_relocation(x - R25 + T), abs=1e-6)
    assert base.p_disordered == pytest.approx(1 / 36)
    cen = assault_odds(make_setup(_igs_world(), "ds", inertial_guidance=True,
                                  rulings={"dsa-igs-off-battlefield": "centre"}), x, 24.0)
    assert cen.p_igs_correction == pytest.approx(_relocation(x + T), abs=1e-6)
    assert cen.p_igs_correction < base.p_igs_correction and cen.p_relocated == pytest.approx(base.p_relocated)
    kept = assault_odds(make_setup(_igs_world(), "ds", inertial_guidance=True,
                                   rulings={"dsa-igs-correction": "kept"}), x, 24.0)
    assert kept.p_relocated == pytest.approx(base.p_relocated - base.p_igs_correction, abs=1e-9)
    assert sum(o["probability"] for o in kept.outcomes) == pytest.approx(1.0)
    dec = assault_odds(make_setup(_igs_world(), "ds", inertial_guidance=True,
                                  rulings={"dsa-igs-reroll": "declined"}), x, 24.0)
    assert dec.p_disordered == pytest.approx(1 / 6)
    st = make_setup(_igs_world(), "ds", inertial_guidance=True)
    assert sorted(st.rulings) == ["dsa-igs-correction", "dsa-igs-off-battlefield", "dsa-igs-reroll"]
    assert make_setup(_igs_world(), "ds").rulings == {}  # no IGS, a round model: no ruling decides the odds


# --------------------------------------------------------------------------- the command line


def test_cli_ruling_changes_the_answer_and_is_printed(tmp_path):
    src = tmp_path / "ds.yaml"
    src.write_text(yaml.safe_dump(_world("wh40k7", HULL, 2)), encoding="utf-8")
    runner = CliRunner()
    outs = {}
    for reading in ("circumscribed", "true-shape"):
        js = tmp_path / f"{reading}.json"
        r = runner.invoke(app, ["deepstrike", str(src), "--unit", "ds", "--at", "36,44", "--orientation", "90",
                                "--ruling", f"ds-ring-spacing={reading}", "--json", str(js)])
        assert r.exit_code == 0, r.output
        assert f"ds-ring-spacing={reading} (chosen)" in r.output and "Rulings applied" in r.output
        outs[reading] = json.loads(js.read_text())
        assert outs[reading]["rulings"][0]["key"] == "ds-ring-spacing"
        assert outs[reading]["rulings"][0]["value"] == reading
    assert outs["circumscribed"]["odds"]["p_mishap"] > outs["true-shape"]["odds"]["p_mishap"] + 0.1
    r = runner.invoke(app, ["deepstrike", str(src), "--unit", "ds", "--at", "36,44"])
    assert r.exit_code == 0 and "ds-ring-spacing=circumscribed (default)" in r.output
    bad = runner.invoke(app, ["deepstrike", str(src), "--unit", "ds", "--at", "36,44", "--ruling", "ds-ring-spacing=x"])
    assert bad.exit_code == 2 and "ds-ring-spacing" in bad.output


def test_cli_hh2_ruling_from_another_ruleset(tmp_path):
    """``--ruleset hh2`` over a 7th-edition scenario: the dsa rulings are the HH2 ones."""
    src = tmp_path / "ds.yaml"
    src.write_text(yaml.safe_dump(_world("wh40k7", {"diameter_mm": 25}, 1)), encoding="utf-8")
    js = tmp_path / "o.json"
    r = CliRunner().invoke(app, ["deepstrike", str(src), "--unit", "ds", "--at", "3,24", "--ruleset", "hh2",
                                 "--inertial-guidance", "--ruling", "dsa-igs-reroll=declined", "--json", str(js)])
    assert r.exit_code == 0, r.output
    data = json.loads(js.read_text())
    assert data["assault_odds"]["p_disordered"] == pytest.approx(1 / 6)
    by = {x["key"]: x for x in data["rulings"]}
    assert by["dsa-igs-reroll"]["value"] == "declined" and not by["dsa-igs-reroll"]["default"]
    assert by["dsa-igs-correction"]["default"]
    assert "dsa-igs-reroll=declined (chosen)" in r.output
