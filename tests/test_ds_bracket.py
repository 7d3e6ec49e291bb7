"""Issue 19 item 1, the best formation over the scatter as a proven bracket: P(mishap) of the text's
best formation in [P(sure mishap), P(family)], the lower end counting the landings where the first
model cannot be placed or lands in a pocket of free space smaller than the unit's bases; closed
forms on walled cells."""

from __future__ import annotations

import math

import pytest
from shapely.geometry import Point

from planner.deepstrike.formation import base_area, free_pockets
from planner.deepstrike.procedure import best_formation_odds, make_setup, pack_landing
from planner.schema import Scenario
from planner.units import TOLERANCE_IN
from planner.world import resolve

C = (36.0, 24.0)


def _cell(h: float, t: float):
    """Four impassable walls ``t`` thick round an open square cell of half-side ``h`` about C."""
    x, y = C

    def wall(x0, y0, x1, y1, tid):
        return {"id": tid, "kind": "solid", "traits": ["impassable"],
                "footprint": [[x0, y0], [x1, y0], [x1, y1], [x0, y1]]}

    return [wall(x - h - t, y - h - t, x + h + t, y - h, "s"), wall(x - h - t, y + h, x + h + t, y + h + t, "n"),
            wall(x - h - t, y - h, x - h, y + h, "w"), wall(x + h, y - h, x + h + t, y + h, "e")]


def _setup(n: int, mm: float, terrain, ruleset: str = "wh40k7"):
    data = {"ruleset": ruleset, "battlefield": {"width": 72, "depth": 48}, "terrain": terrain,
            "armies": [{"player": "blue", "units": [{"id": "ds", "type": "Infantry", "rules": ["Deep Strike"],
                                                     "setup": {"method": "reserves", "arrival": "deep_strike"},
                                                     "models": [{"base": {"diameter_mm": mm}} for _ in range(n)]}]},
                       {"player": "red", "units": []}]}
    return make_setup(resolve(Scenario.model_validate(data)), "ds")


def _square(a: float, p_hit: float, dist) -> float:
    """P(the scatter from the centre of a square of half-side ``a`` ends inside it): the HIT, and
    for 2D6 = d the share of the circle of radius d inside (1 if d <= a, 0 if d >= a sqrt 2, else
    1 - 4 arccos(a / d) / pi)."""
    def inside(d: float) -> float:
        if d <= a:
            return 1.0
        if d >= a * math.sqrt(2):
            return 0.0
        return 1.0 - 4 * math.acos(a / d) / math.pi

    return p_hit + (1 - p_hit) * sum(pd * inside(d) for d, pd in dist)


def test_a_cell_too_small_for_the_unit_is_a_sure_mishap_closed_form():
    """Four 100 mm models (48.7 sq in) aimed at the centre of a 6.9" square cell (47.6 sq in) in 1"
    walls: every landing in the cell is a sure mishap. The landings in the walls or within a base
    radius of them already fail the first model (the old lower bound); the rest of the cell is the
    square of half-side 3.45 - r about the aim point: P(sure) - P(first model) = its closed form
    (the HIT and the 2D6 = 2 circle's share inside it)."""
    r = 50 / 25.4
    h = 3.45
    st = _setup(4, 100, _cell(h, 1.0))
    assert (2 * h) ** 2 < sum(base_area(S) for S in st.shapes) < (2 * h + 1) ** 2
    (q,) = [q for q in free_pockets(st, TOLERANCE_IN) if q.distance(Point(*C)) < 1.0]
    assert q.area == pytest.approx((2 * h + 4 * TOLERANCE_IN) ** 2, rel=1e-9)
    b = best_formation_odds(st, *C, 45.0, pack=False)
    closed = _square(h - r, st.rules.p_hit, st.rules.scatter_distances())
    assert 1 / 3 < closed < 1 / 3 + 1 / 36  # the d = 2 circle is partly inside
    assert b.p_mishap_sure - b.p_mishap_lower == pytest.approx(closed, abs=1e-6)
    assert b.bracket == (b.p_mishap_sure, b.p_mishap)
    assert b.p_mishap_lower < b.p_mishap_sure <= b.p_mishap + 1e-12
    assert any("proven bracket" in n and f"{b.p_mishap_sure:.4f}" in n for n in b.interpretations)
    # the claim, checked at a landing in the cell: the packing search finds no formation either
    assert pack_landing(st, C[0] + 0.5, C[1] - 0.3, 6.0, 4) is None


def test_a_pocket_that_holds_one_model_of_two_gives_the_exact_answer():
    """The pocket of test_deepstrike's ring test (just wider than one 25 mm base, walls 13" thick):
    the bracket closes at 1 (every landing is in the walls or the pocket), where the old lower bound
    was 2/3 (the HIT lands the first model clear)."""
    r = 12.5 / 25.4
    st = _setup(2, 25, _cell(r + 0.05, 13.0))
    b = best_formation_odds(st, *C, 45.0, pack=False)
    assert b.p_mishap == pytest.approx(1.0, abs=1e-6)
    assert b.p_mishap_lower == pytest.approx(2 / 3, abs=1e-6)
    assert b.p_mishap_sure == pytest.approx(1.0, abs=1e-6)
    assert any("(exact)" in n for n in b.interpretations if "proven bracket" in n)


def test_a_cell_that_holds_the_bases_adds_nothing():
    """The same walls round a cell larger than the bases' area: no pocket, the lower end is the first
    model's own bound (no claim the area argument cannot prove)."""
    st = _setup(4, 100, _cell(3.6, 1.0))
    assert (2 * 3.6) ** 2 > sum(base_area(S) for S in st.shapes)
    assert not [q for q in free_pockets(st, TOLERANCE_IN) if q.distance(Point(*C)) < 1.0]
    b = best_formation_odds(st, *C, 45.0, pack=False)
    assert b.p_mishap_sure == b.p_mishap_lower


def test_an_enemy_model_in_the_cell_shrinks_the_free_space():
    """A cell that holds four 100 mm bases on its own, with an enemy 25 mm model in a corner: its
    base grown by 1" takes more than the spare area, so the cell becomes a pocket."""
    st0 = _setup(4, 100, _cell(3.6, 1.0))
    spare = (2 * 3.6) ** 2 - sum(base_area(S) for S in st0.shapes)
    data_enemy = {"id": "foe", "type": "Infantry", "models": [{"base": {"diameter_mm": 25}, "x": C[0] - 2.9,
                                                                 "y": C[1] - 2.9}]}
    data = {"ruleset": "wh40k7", "battlefield": {"width": 72, "depth": 48}, "terrain": _cell(3.6, 1.0),
            "armies": [{"player": "blue", "units": [{"id": "ds", "type": "Infantry", "rules": ["Deep Strike"],
                                                     "setup": {"method": "reserves", "arrival": "deep_strike"},
                                                     "models": [{"base": {"diameter_mm": 100}} for _ in range(4)]}]},
                       {"player": "red", "units": [data_enemy]}]}
    st = make_setup(resolve(Scenario.model_validate(data)), "ds")
    assert math.pi * (12.5 / 25.4 + 1) ** 2 > spare  # the grown disc, wholly inside the cell
    assert [q for q in free_pockets(st, TOLERANCE_IN) if q.distance(Point(*C)) < 1.0]


def test_cli_states_the_bracket(tmp_path):
    import json

    import yaml
    from typer.testing import CliRunner

    from planner.cli.commands import app

    st = _setup(4, 100, _cell(3.45, 1.0))
    src = tmp_path / "cell.yaml"
    src.write_text(yaml.safe_dump({"ruleset": "wh40k7", "battlefield": {"width": 72, "depth": 48},
                                   "terrain": _cell(3.45, 1.0), "armies": [
                                       {"player": "blue", "units": [{
                                           "id": "ds", "type": "Infantry", "rules": ["Deep Strike"],
                                           "setup": {"method": "reserves", "arrival": "deep_strike"},
                                           "models": [{"base": {"diameter_mm": 100}} for _ in range(4)]}]},
                                       {"player": "red", "units": []}]}), encoding="utf-8")
    js = tmp_path / "o.json"
    r = CliRunner().invoke(app, ["deepstrike", str(src), "--unit", "ds", "--at", "36,24", "--formation-step", "45",
                                 "--json", str(js)])
    assert r.exit_code in (0, 1), r.output
    bf = json.loads(js.read_text())["best_formation"]
    lo, hi = bf["bracket"]
    assert lo == bf["p_mishap_sure"] and hi == bf["p_mishap"] and bf["p_mishap_lower"] < lo
    r_ = 50 / 25.4  # the closed form of the cell test
    assert lo - bf["p_mishap_lower"] == pytest.approx(_square(3.45 - r_, st.rules.p_hit, st.rules.scatter_distances()),
                                                      abs=1e-6)
    assert f"in [{lo:.4f}, {hi:.4f}], both ends proven" in r.output
    assert "a sure mishap (the first model, or a pocket too small for the unit)" in r.output
