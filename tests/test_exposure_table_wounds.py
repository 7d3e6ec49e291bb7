"""``planner exposure`` on an illegal table and its wounds lost (fresh13 findings 1 and 2).

1. A table already illegal is refused as ``plan`` and ``threats`` refuse it (the same helper,
   :func:`planner.cli.plan.illegal_table`: exit 1, JSON status ``illegal_table``); with
   ``--allow-illegal-table`` a warning, and a unit's standing position always counts
   (:class:`planner.combat.exposure.Mover`).
2. The wounds lost of several volleys are capped at the unit's wounds, and the models lost of models of
   several wounds come from them (:meth:`planner.combat.exposure.Exposure.losses`), checked against
   closed forms and a brute-force enumeration of the volleys' outcomes.
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
from planner.combat.exposure import Exposure, _combine, exposure
from planner.legality.checker import check_deployment
from planner.schema import Scenario
from planner.world import World, resolve

R = 16 / 25.4  # a 32 mm base's radius, inches
MARINE = {"m": 7, "ws": 4, "bs": 4, "s": 4, "t": 4, "w": 1, "i": 4, "a": 1, "ld": 7, "sv": 3}
BOLTGUN = {"name": "Boltgun", "range_in": 24, "s": 4, "ap": 5, "type": "Rapid Fire", "shots": 1}
P_BOLT = 4 / 6 * 1 / 2 * 2 / 6
"""One boltgun shot at a marine: hits on 3+ (BS 4), wounds on 4+ (S4 v T4), the 3+ save fails on 1-2."""


def _unit(uid: str, xs: list[tuple[float, float]], stats: dict | None = None, **extra) -> dict:
    return {"id": uid, "type": "Infantry", "stats": stats or MARINE, "weapons": [BOLTGUN],
            "models": [{"base": {"diameter_mm": 32}, "x": x, "y": y} for x, y in xs], **extra}


def _data(theirs: list[dict], mine: list[dict], terrain: list[dict] | None = None) -> dict:
    return {"ruleset": "hh2", "battlefield": {"width": 72, "depth": 48}, "terrain": terrain or [],
            "armies": [{"player": "red", "units": theirs}, {"player": "blue", "units": mine}]}


def _world(data: dict) -> World:
    return resolve(Scenario.model_validate(data), require_positions=True)


def _squad(uid: str, x0: float) -> dict:
    return _unit(uid, [(x0 + 1.5 * k, 6.0) for k in range(10)])


VICTIM = _unit("victim", [(35.0, 20.0), (36.5, 20.0)])


def _overkill(second_at: float = 19.0) -> dict:
    """fresh13's exp-overkill table: four Tactical Squads 12.7" from a two-model unit in the open;
    ``second_at``: where tac1's first model stands (16.7498: it overlaps tac0's last by 0.010")."""
    zones = [{"id": "red-zone", "player": "red", "polygon": [[0, 0], [72, 0], [72, 12], [0, 12]]},
             {"id": "blue-zone", "player": "blue", "polygon": [[0, 12], [72, 12], [72, 48], [0, 48]]}]
    return {**_data([_squad("tac0", 2.0), _squad("tac1", second_at), _squad("tac2", 36.0), _squad("tac3", 53.0)],
                    [VICTIM]), "deployment_zones": zones}


OVERLAP_AT = 15.5 + 2 * R - 0.01


def _cli(tmp_path: Path, data: dict, *args: str) -> tuple[int, str, dict]:
    src = tmp_path / "table.yaml"
    src.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    out = tmp_path / "exposure.json"
    r = CliRunner().invoke(app, ["exposure", str(src), "--player", "blue", "--json", str(out), *args])
    return r.exit_code, r.output, json.loads(out.read_text(encoding="utf-8"))


# --------------------------------------------------------------------------- 1. an illegal table


def test_an_overlap_of_a_hundredth_is_refused_as_plan_and_threats_refuse_it(tmp_path: Path):
    code, out, data = _cli(tmp_path, _overkill(OVERLAP_AT))
    assert code == 1  # the house code of plan and threats for a table already illegal
    assert "error: the table is already illegal before exposure measures anything: 2 violations" in out
    assert 'tac1: model 1 overlaps tac0/10 by 0.010" [hh2.bases.no_overlap]' in out
    assert "--allow-illegal-table" in out
    assert data["status"] == "illegal_table" and data["warnings"] == []
    assert {(v["unit"], v["rule"]) for v in data["violations"]} == {("tac0", "hh2.bases.no_overlap"),
                                                                    ("tac1", "hh2.bases.no_overlap")}


def test_allowed_anyway_the_overlap_costs_no_shot_and_the_losses_are_the_legal_tables(tmp_path: Path):
    (tmp_path / "legal").mkdir()
    (tmp_path / "bad").mkdir()
    code, out, legal = _cli(tmp_path / "legal", _overkill())
    assert code == 0 and legal["warnings"] == [] and "table_violations" not in legal
    assert "already illegal" not in out
    code, out, bad = _cli(tmp_path / "bad", _overkill(OVERLAP_AT), "--allow-illegal-table")
    assert code == 0
    assert "warning: the table is already illegal before exposure measures anything" in out
    assert "losses are measured from where the units stand" in out
    assert bad["warnings"][0].startswith("the table is already illegal: 2 violations")
    assert any("overlaps tac0/10 by 0.010\"" in w for w in bad["warnings"][1:])
    assert len(bad["table_violations"]) == 2
    # every attacker still shoots the victim, with the legal table's volleys (fresh13: 1.832, tac0 and
    # tac1 "none in reach"; every squad touching: 0.000)
    assert bad["targets"] == legal["targets"] == {f"tac{k}": "victim" for k in range(4)}
    assert bad["expected_models_lost"] == pytest.approx(legal["expected_models_lost"], abs=1e-9)
    assert legal["expected_models_lost"] == pytest.approx(1.9919, abs=1e-4)
    modes = {t["attacker"]: (t["moved"], t["half_range"]) for t in bad["units"][0]["shot_by"]}
    assert modes == {t["attacker"]: (t["moved"], t["half_range"]) for t in legal["units"][0]["shot_by"]}
    assert modes["tac1"] == (True, True)  # tac1 moves into half range: away from the model it overlaps


def test_every_squad_touching_its_neighbour_is_legal_and_still_shoots():
    # each squad's last base touches the next one's first: legal (touching bases pass the checker), but
    # the move test's circumscribed outlines meet, which used to bar every move, v = 0 included (0.000)
    data = {**_overkill(), "armies": [
        {"player": "red", "units": [_squad("tac0", 2.0), _squad("tac1", 15.5 + 2 * R), _squad("tac2", 29.0 + 4 * R)]},
        {"player": "blue", "units": [VICTIM]}]}
    world = _world(data)
    assert check_deployment(world).violations == []
    rep = exposure(world, "blue")
    assert set(rep.choices.values()) == {"victim"} and rep.expected_models_lost > 1.9


PIT = {"id": "pit", "kind": "open", "traits": ["impassable"], "footprint": [[18, 22], [22, 22], [22, 26], [18, 26]]}


def test_a_unit_standing_where_no_move_can_end_shoots_from_where_it_stands():
    # the enemy marine stands inside impassable terrain, 10" from mine: every move is barred, not v = 0
    mine = [_unit("mine", [(10.0, 24.0)])]
    foe = [_unit("foe", [(20.0, 24.0)])]
    ex = Exposure(_world({**_data(foe, mine, [PIT])}), "blue")
    mv = ex.mover(ex.world.units["foe"])
    assert mv.moves == [(0.0, 0.0)] and not mv.stands_clear
    rep = ex.run()
    (th,) = rep.units[0].shot_by
    assert th.witness == (0.0, 0.0) and not th.moved and th.half_range
    # the same volley as from the same spot in the open (2 shots in half range, one wound each)
    assert rep.expected_models_lost == pytest.approx(1 - (1 - P_BOLT) ** 2)
    assert exposure(_world(_data(foe, mine)), "blue").expected_models_lost == pytest.approx(rep.expected_models_lost)


def test_a_base_meeting_its_own_side_moves_only_away_from_that_model():
    mine = [_unit("mine", [(40.0, 40.0)])]
    foe = [_unit("a", [(20.0, 24.0)]), _unit("b", [(20.0 + 2 * R - 0.2, 24.0)])]  # b overlaps a by 0.2"
    ex = Exposure(_world(_data(foe, mine)), "blue")
    a, b = ex.world.units["a"], ex.world.units["b"]
    for mover, sign in ((ex.mover(a), -1.0), (ex.mover(b), 1.0)):
        assert mover.stands_clear and (0.0, 0.0) in mover.moves
        # every kept move of a goes left (away from b's centre), of b right; the full 7" away is kept
        assert all(sign * dx >= -1e-9 for dx, _ in mover.moves)
        assert any(math.isclose(sign * dx, 7.0) for dx, _ in mover.moves)
        assert mover.valid([(-sign * 3.0, 0.0)]) == []  # straight at the model it meets: barred
        assert mover.valid([(0.0, 3.0)]) == [(0.0, 3.0)]  # sideways: the centres draw no nearer


# --------------------------------------------------------------------------- 2. wounds lost


def test_one_wound_models_lose_exactly_as_many_wounds_as_models():
    rep = exposure(_world(_overkill()), "blue")
    (u,) = rep.units
    assert u.wounds == 2 and len(u.shot_by) == 4
    assert u.wounds_lost == u.models_lost  # the same distribution, not an approximation of it
    assert u.expected_wounds_lost == u.expected_models_lost == pytest.approx(1.9919, abs=1e-4)
    assert rep.expected_wounds_lost == rep.expected_models_lost  # fresh13: 5.145 wounds from two W1 models
    for th in u.shot_by:  # each volley's own figures agree too
        assert th.result.wounds_lost == pytest.approx(th.result.models_lost, abs=1e-12)
    j = u.to_json()
    assert j["wounds"] == 2 and j["wounds_lost_pmf"] == j["models_lost_pmf"]


def _brute(pmfs: list[tuple[float, ...]], cap: int) -> list[float]:
    """P(k), the sum of independent outcomes capped at ``cap``, by enumerating every combination."""
    out = [0.0] * (cap + 1)
    for combo in itertools.product(*(list(enumerate(p)) for p in pmfs)):
        out[min(cap, sum(k for k, _ in combo))] += math.prod(p for _, p in combo)
    return out


def _padded(p: tuple[float, ...], n: int) -> list[float]:
    return list(p) + [0.0] * (n - len(p))


W2 = {**MARINE, "w": 2}


def test_three_volleys_at_one_two_wound_model_closed_form():
    # one W2 model; three enemy marines 20" away (no half range after a 7" move): one shot each,
    # one wound lost with P_BOLT: the wounds lost are capped at its 2
    mine = [_unit("mine", [(36.0, 24.0)], stats=W2)]
    foe = [_unit(f"f{k}", [(36.0 + 2 * R + 20.0, 16.0 + 8.0 * k)]) for k in range(3)]
    rep = exposure(_world(_data(foe, mine)), "blue")
    (u,) = rep.units
    assert u.wounds == 2 and len(u.shot_by) == 3 and not any(t.half_range for t in u.shot_by)
    p, q = P_BOLT, 1 - P_BOLT
    assert _padded(u.wounds_lost, 3) == pytest.approx([q ** 3, 3 * p * q ** 2, 1 - q ** 3 - 3 * p * q ** 2], abs=1e-12)
    assert u.expected_wounds_lost == pytest.approx(3 * p * q ** 2 + 2 * (1 - q ** 3 - 3 * p * q ** 2))
    # the damage one volley leaves carries to the next (fresh14 finding 4; this test asserted (1.0,), no
    # model lost, before): the model is lost exactly when its 2 wounds are
    assert u.models_lost == pytest.approx((q ** 3 + 3 * p * q ** 2, 1 - q ** 3 - 3 * p * q ** 2), abs=1e-12)


def test_a_multi_wound_unit_shot_by_several_squads_agrees_with_brute_force():
    # three W3 marines shot by three squads (two in half range): wounds summed over every combination
    # of the volleys' outcomes and capped at 9, models from them (3 wounds a model)
    mine = [_unit("mine", [(36.0, 24.0), (37.5, 24.0), (39.0, 24.0)], stats={**MARINE, "w": 3, "sv": 4})]
    foe = [_unit("near", [(30.0 + 1.5 * k, 14.0) for k in range(5)]),
           _unit("mid", [(30.0 + 1.5 * k, 40.0) for k in range(5)]),
           _unit("far", [(60.0 + 1.5 * k, 24.0) for k in range(5)])]
    rep = exposure(_world(_data(foe, mine)), "blue")
    (u,) = rep.units
    assert u.wounds == 9 and len(u.shot_by) == 3
    volleys = [th.result.wounds_lost for th in u.shot_by]
    want = _brute(volleys, 9)
    assert _padded(u.wounds_lost, 10) == pytest.approx(want, abs=1e-12)
    # models from the wounds lost, 3 a model (fresh14 finding 4; before: the volleys' models lost summed)
    models = [sum(want[3 * k:3 * k + 3]) for k in range(3)] + [want[9]]
    assert _padded(u.models_lost, 4) == pytest.approx(models, abs=1e-12)
    assert u.expected_models_lost >= (  # never fewer than the volleys' own models lost added up
        sum(k * p for k, p in enumerate(_brute([th.result.models_lost for th in u.shot_by], 3))) - 1e-12)
    assert u.expected_wounds_lost <= 9 and u.expected_models_lost <= 3
    # the plain sum of the volleys' wounds (fresh13's figure) is more than the capped one here
    plain = sum(th.expected_wounds_lost for th in u.shot_by)
    assert u.expected_wounds_lost < plain - 1e-3
    assert [th.half_range for th in u.shot_by].count(True) == 2


pmf_st = st.lists(st.floats(0.0, 1.0), min_size=1, max_size=5).filter(lambda xs: sum(xs) > 1e-6).map(
    lambda xs: tuple(x / sum(xs) for x in xs))


@settings(max_examples=60, deadline=None)
@given(st.lists(pmf_st, min_size=0, max_size=4), st.integers(1, 8))
def test_combined_losses_are_capped_and_equal_the_enumeration(pmfs, cap):
    got = _combine(pmfs, cap)
    assert len(got) <= cap + 1 and sum(got) == pytest.approx(1.0)
    assert sum(k * p for k, p in enumerate(got)) <= cap + 1e-9
    assert _padded(got, cap + 1) == pytest.approx(_brute(pmfs, cap), abs=1e-12)
