"""``planner exposure``: the damage one volley leaves on a model carries to the next (fresh14 findings 4, 14).

Models of several wounds lose models as their wounds lost say (:meth:`planner.combat.exposure.Exposure.losses`,
:func:`planner.combat.exposure.models_from_wounds`): a one-model unit that lost all its wounds is dead. Checked
against closed forms and a shot-by-shot enumeration that resolves the volleys in turn; the exposure goal's
measure (:meth:`planner.combat.exposure.Exposure.goal_models_lost`) still bounds the report's figure.
"""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from planner.cli.commands import app
from planner.combat.exposure import Exposure, _at_least, _combine, exposure, models_from_wounds
from planner.schema import Scenario
from planner.world import World, resolve

HH_W2 = {"ws": 4, "bs": 4, "s": 4, "t": 4, "w": 2, "i": 4, "a": 1, "ld": 8, "sv": 3, "m": 7}
GUN = {"name": "Gun", "range_in": 24, "s": 4, "ap": 5, "type": "Assault", "shots": 1}
SHOOTER = {**HH_W2, "w": 1, "m": 0}


def _p_unsaved_hh() -> float:
    """One Gun shot at the W2 model, by enumerating the three dice: hits on 3+ (BS 4), wounds on 4+
    (S4 v T4), the 3+ armour save (AP 5 does not ignore it) fails on 1-2."""
    rolls = list(itertools.product(range(1, 7), repeat=3))
    return sum(1 for h, w, s in rolls if h >= 3 and w >= 4 and s < 3) / len(rolls)


P = _p_unsaved_hh()


def _hh(mine: list[tuple[float, float]], attackers: list[list[tuple[float, float]]]) -> dict:
    """An HH2 table: my W2 unit (models at ``mine``) and one attacking unit per entry of ``attackers``."""
    zones = [{"id": "red-zone", "player": "red", "polygon": [[0, 0], [72, 0], [72, 24], [0, 24]]},
             {"id": "blue-zone", "player": "blue", "polygon": [[0, 24], [72, 24], [72, 48], [0, 48]]}]
    red = [{"id": f"shooters{k}", "stats": SHOOTER, "weapons": [GUN],
            "models": [{"base": {"diameter_mm": 32}, "type": "infantry", "x": x, "y": y} for x, y in xs]}
           for k, xs in enumerate(attackers)]
    blue = [{"id": "target", "place": True, "stats": HH_W2,
             "models": [{"base": {"diameter_mm": 32}, "type": "infantry", "x": x, "y": y} for x, y in mine]}]
    return {"ruleset": "hh2", "battlefield": {"width": 72, "depth": 48}, "deployment_zones": zones,
            "armies": [{"player": "red", "units": red}, {"player": "blue", "units": blue}]}


def _world(data: dict) -> World:
    return resolve(Scenario.model_validate(data), require_positions=True)


E5 = _hh([(30.0, 31.26)], [[(30.0, 10.0), (31.3, 10.0)], [(40.0, 10.0), (41.3, 10.0)]])
"""fresh14's e5: two units of two Gun shots each at one T4 W2 Sv3+ model."""


def test_e5_one_model_is_lost_exactly_when_both_its_wounds_are():
    assert P == pytest.approx(1 / 9)
    rep = exposure(_world(E5), "blue")
    (u,) = rep.units
    assert len(u.shot_by) == 2 and u.wounds == 2
    q = 1 - P
    two_or_more = 1 - q ** 4 - 4 * P * q ** 3  # 4 shots, each wound one wound: dead at 2 wounds
    assert u.wounds_lost == pytest.approx((q ** 4, 4 * P * q ** 3, two_or_more), abs=1e-12)
    assert u.models_lost == pytest.approx((1 - two_or_more, two_or_more), abs=1e-12)
    assert u.models_lost[1] == pytest.approx(0.0636, abs=5e-5)  # fresh14 got 0.0245 (each volley's own chance)
    assert u.models_lost[-1] == u.wounds_lost[-1]  # the report agrees with itself
    assert u.separable_models_lost == pytest.approx(two_or_more, abs=1e-12)  # the goal's measure: both shoot
    # each volley alone is unchanged (2 shots: both wounds with P^2)
    for th in u.shot_by:
        assert th.result.models_lost == pytest.approx((1 - P ** 2, P ** 2), abs=1e-12)


def test_e5_cli_says_which_side_shoots_without_a_verb_to_agree(tmp_path: Path):
    src = tmp_path / "e5.yaml"
    src.write_text(yaml.safe_dump(E5, sort_keys=False), encoding="utf-8")
    out = tmp_path / "e5.json"
    r = CliRunner().invoke(app, ["exposure", str(src), "--json", str(out)])
    assert r.exit_code == 0, r.output
    assert "First turn: the enemy; shooting side: red; side shot at: blue (hh2)" in r.output
    assert "shoots at" not in r.output
    j = json.loads(out.read_text(encoding="utf-8"))["units"][0]
    assert j["models_lost_pmf"][1] == pytest.approx(j["wounds_lost_pmf"][2], abs=1e-12)
    assert j["expected_models_lost"] == pytest.approx(j["wounds_lost_pmf"][2], abs=1e-12)


def _sequential_oracle(shots: int, p: float, wounds: list[int], damage: int = 1) -> list[float]:
    """P(k models lost): every combination of ``shots`` independent shots, each unsaved with ``p``,
    resolved one after another; an unsaved shot deals ``damage`` to the first model still standing
    (the wounded one: wounds go to the wounded model first), excess damage lost."""
    out = [0.0] * (len(wounds) + 1)
    for combo in itertools.product((False, True), repeat=shots):
        left = list(wounds)
        for hit in combo:
            if hit:
                i = next((i for i, w in enumerate(left) if w > 0), None)
                if i is not None:
                    left[i] = max(0, left[i] - damage)
        k = sum(1 for w in left if w == 0)
        out[k] += math.prod(p if hit else 1 - p for hit in combo)
    return out


def test_a_three_model_w2_unit_shot_by_two_squads_agrees_with_the_shot_by_shot_oracle():
    mine = [(30.0, 31.26), (31.5, 31.26), (33.0, 31.26)]
    rep = exposure(_world(_hh(mine, [[(30.0 + 1.3 * k, 10.0) for k in range(3)],
                                     [(45.0 + 1.3 * k, 10.0) for k in range(3)]])), "blue")
    (u,) = rep.units
    assert len(u.shot_by) == 2 and u.models == 3 and u.wounds == 6
    want = _sequential_oracle(6, P, [2, 2, 2])
    got = list(u.models_lost) + [0.0] * (4 - len(u.models_lost))
    assert got == pytest.approx(want, abs=1e-12)
    # the old figure (each volley's models lost added up) was less: no volley of 3 shots takes 2 models
    old = _combine([th.result.models_lost for th in u.shot_by], 3)
    assert sum(k * p for k, p in enumerate(old)) < u.expected_models_lost - 0.05


def test_the_exposure_goal_measure_bounds_the_report_for_several_wounds_and_one():
    for data in (E5, _hh([(30.0, 31.26), (31.5, 31.26)], [[(30.0, 10.0)], [(40.0, 10.0)], [(50.0, 10.0)]])):
        w = _world(data)
        rep = exposure(w, "blue")
        ex = Exposure(w, "blue", judge_cover=False, exact=False)
        (t,) = ex.targets
        placed = ex.placed_of(t)
        shots = ex.threats_at(placed)
        goal = ex.goal_models_lost(t, shots, len(placed.footprints))
        # every enemy unit shoots the one target in both: the goal is the report's figure, damage carried
        assert len(shots) == len(rep.units[0].shot_by)
        assert goal == pytest.approx(rep.expected_models_lost, abs=1e-12)
        assert goal > sum(th.expected_models_lost for th in shots) + 0.01  # what the goal measured before
        # one volley fewer measures less: more volleys never lower the measure
        assert ex.goal_models_lost(t, shots[:-1], len(placed.footprints)) < goal
    w1 = _hh([(30.0 + 1.5 * k, 31.26) for k in range(3)], [[(30.0, 10.0), (31.3, 10.0)], [(40.0, 10.0)]])
    w1["armies"][1]["units"][0]["stats"] = {**HH_W2, "w": 1}
    one = _world(w1)
    ex = Exposure(one, "blue", judge_cover=False, exact=False)
    (t,) = ex.targets
    placed = ex.placed_of(t)
    shots = ex.threats_at(placed)
    # one-wound models: the goal is the volleys' expected models added up, as before
    assert len(shots) == 2
    assert ex.goal_models_lost(t, shots, 3) == sum(th.expected_models_lost for th in shots)
    assert exposure(one, "blue").expected_models_lost <= ex.goal_models_lost(t, shots, 3) + 1e-12


def _w40(targets: list[tuple[float, float]], attackers: int) -> dict:
    """A 40k 10th table: ``attackers`` units of one model, A1 BS3+ S4 AP-1 D2, at my W3 Sv3+ unit."""
    zones = [{"id": "blue-zone", "player": "blue", "polygon": [[0, 0], [60, 0], [60, 22], [0, 22]]},
             {"id": "red-zone", "player": "red", "polygon": [[0, 22], [60, 22], [60, 44], [0, 44]]}]
    gun = {"name": "Gun", "range_in": 24, "a": 1, "bs": 3, "s": 4, "ap": -1, "d": 2}
    st40 = {"m": 6, "t": 4, "sv": 3, "w": 3, "ld": 6, "oc": 2}
    red = [{"id": f"a{k}", "stats": {**st40, "m": 0}, "weapons": [gun],
            "models": [{"base": {"diameter_mm": 32}, "type": "infantry", "x": 10.0 + 10 * k, "y": 30.0}]}
           for k in range(attackers)]
    blue = [{"id": "target", "place": True, "stats": st40,
             "models": [{"base": {"diameter_mm": 32}, "type": "infantry", "x": x, "y": y} for x, y in targets]}]
    return {"ruleset": "wh40k10", "battlefield": {"width": 60, "depth": 44}, "deployment_zones": zones,
            "armies": [{"player": "red", "units": red}, {"player": "blue", "units": blue}]}


P40 = 4 / 6 * 3 / 6 * 3 / 6
"""One 40k attack: hits on 3+, wounds on 4+ (S4 v T4), the 3+ save at AP-1 (4+) fails on 1-3."""


def test_40k_damage_2_at_one_w3_model_dies_exactly_when_all_its_wounds_are_lost():
    rep = exposure(_world(_w40([(30.0, 15.0)], 2)), "blue")
    (u,) = rep.units
    assert len(u.shot_by) == 2 and u.wounds == 3
    # two D2 attacks: one unsaved takes 2 wounds, two take all 3 (the second's excess is lost)
    dead = P40 ** 2
    assert u.models_lost == pytest.approx((1 - dead, dead), abs=1e-12)
    assert u.models_lost[-1] == pytest.approx(u.wounds_lost[-1], abs=1e-15)
    assert u.models_lost[-1] == pytest.approx(_sequential_oracle(2, P40, [3], damage=2)[1], abs=1e-12)


def test_40k_damage_2_across_volleys_is_the_stated_approximation_the_worse_for_me():
    # two W3 models, three one-attack volleys of D2: resolved in turn, three unsaved attacks kill one
    # model (2 + 1 wasted, then 2); counted from full strength, 3 x 2 wounds take both
    rep = exposure(_world(_w40([(28.0, 15.0), (29.5, 15.0)], 3)), "blue")
    (u,) = rep.units
    assert len(u.shot_by) == 3 and u.wounds == 6
    oracle = _sequential_oracle(3, P40, [3, 3], damage=2)
    got = list(u.models_lost) + [0.0] * (3 - len(u.models_lost))
    assert got[2] == pytest.approx(P40 ** 3, abs=1e-12) and oracle[2] == 0.0
    assert got[0] == pytest.approx(oracle[0], abs=1e-12)
    # never below the volleys resolved in turn, and never below their own models added up
    tail = [sum(got[k:]) for k in range(3)]
    assert all(t >= sum(oracle[k:]) - 1e-12 for k, t in enumerate(tail))
    old = _combine([th.result.models_lost for th in u.shot_by], 2)
    assert all(t >= sum(old[k:]) - 1e-12 for k, t in enumerate(tail))


def test_models_from_wounds_fills_the_models_in_order():
    assert models_from_wounds((0.1, 0.2, 0.3, 0.4), (2, 2)) == pytest.approx((0.3, 0.7))
    assert models_from_wounds((0.5, 0.0, 0.0, 0.5), (1, 2)) == pytest.approx((0.5, 0.0, 0.5))
    # a wounded model (1 left) first, then a fresh W2 model
    assert models_from_wounds((0.25, 0.25, 0.25, 0.25), (1, 2)) == pytest.approx((0.25, 0.5, 0.25))


pmf_st = st.lists(st.floats(0.0, 1.0), min_size=1, max_size=5).filter(lambda xs: sum(xs) > 1e-6).map(
    lambda xs: tuple(x / sum(xs) for x in xs))


@settings(max_examples=60, deadline=None)
@given(pmf_st, pmf_st)
def test_at_least_is_a_distribution_with_each_tail_the_larger(a, b):
    got = _at_least(a, b)
    assert sum(got) == pytest.approx(1.0) and min(got) >= 0.0
    for k in range(max(len(a), len(b))):
        assert sum(got[k:]) == pytest.approx(max(sum(a[k:]), sum(b[k:])), abs=1e-12)


def test_a_horus_heresy_vehicle_that_loses_its_hull_points_over_three_volleys_is_destroyed():
    # a Rhino (HP 3, side AV 11) and three units of two Krak missiles: each shot takes a Hull Point with
    # 1/3 (hits 2/3, then 3+ on D6 + 8 v 11 glances or penetrates, 1/2) and destroys nothing alone; 6 shots
    rhino = {"id": "rhino", "type": "Vehicle", "stats": {"m": 12, "bs": 4, "av_front": 11, "av_side": 11,
                                                          "av_rear": 10, "hp": 3},
             "models": [{"base": {"shape": "hull", "length_in": 4.6, "width_in": 3.6}, "x": 36, "y": 20}]}
    krak = {"name": "Krak missile", "range_in": 48, "s": 8, "ap": 3, "type": "Heavy", "shots": 1}
    foes = [{"id": f"f{k}", "type": "Infantry", "stats": SHOOTER, "weapons": [krak],
             "models": [{"base": {"diameter_mm": 32}, "x": 20 + 15 * k + 1.3 * i, "y": 40} for i in range(2)]}
            for k in range(3)]
    data = {"ruleset": "hh2", "battlefield": {"width": 72, "depth": 48},
            "armies": [{"player": "me", "units": [rhino]}, {"player": "foe", "units": foes}]}
    rep = exposure(_world(data), "me")
    (u,) = rep.units
    assert len(u.shot_by) == 3 and u.wounds == 3
    for th in u.shot_by:
        assert th.result.models_lost[0] == pytest.approx(1.0)  # no volley alone destroys it
        assert th.result.wounds_lost == pytest.approx((4 / 9, 4 / 9, 1 / 9))
    dead = 1 - sum(math.comb(6, k) * (1 / 3) ** k * (2 / 3) ** (6 - k) for k in range(3))
    assert dead == pytest.approx(233 / 729)
    assert u.wounds_lost[3] == pytest.approx(dead, abs=1e-12)
    assert u.models_lost == pytest.approx((1 - dead, dead), abs=1e-12)  # before: (1.0,), never destroyed


def test_a_joined_independent_character_takes_its_wounds_last_across_volleys():
    # three W1 models and a joined W2 Independent Character (the same T4 Sv3+: one save, so exact), shot by
    # three units of two Gun shots: the IC is lost only after the three, and only by its second wound
    data = _hh([(30.0 + 1.5 * k, 31.26) for k in range(3)],
               [[(25.0 + 7 * k, 10.0), (26.3 + 7 * k, 10.0)] for k in range(3)])
    data["armies"][1]["units"][0]["stats"] = {**HH_W2, "w": 1}
    data["armies"][1]["units"].append({"id": "ic", "stats": HH_W2, "setup": {"joined": "target"},
                                       "models": [{"base": {"diameter_mm": 32}, "type": "infantry",
                                                   "x": 34.5, "y": 31.26}]})
    w = _world(data)
    rep = exposure(w, "blue")
    (u,) = rep.units
    assert u.unit == "target" and u.models == 4 and u.wounds == 5 and len(u.shot_by) == 3
    ex = Exposure(w, "blue")
    assert ex.model_wounds(w.units["target"]) == (1, 1, 1, 2)
    got = list(u.models_lost) + [0.0] * (5 - len(u.models_lost))
    assert got == pytest.approx(_sequential_oracle(6, P, [1, 1, 1, 2]), abs=1e-12)
    assert got[4] == pytest.approx(u.wounds_lost[5], abs=1e-15)
