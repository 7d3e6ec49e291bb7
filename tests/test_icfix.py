"""Independent Characters joined to one unit (fresh user, session 16, findings 1 and 2).

The ruling (``hh2.ic.coherency``): each joined IC is within unit coherency of a model of the host
unit itself; a chain through another joined IC does not count. The checker and the planner use
the one predicate (:func:`planner.legality.checks.coherency.joined_gap`). Before: the planner
laid three ICs in a row after a 2-model squad (sq, sq, ic3, ic4, ic5), which the checker
rejected, and ``check --suggest`` called a zero move of an IC 2.74" from its unit (1.24" from a
second IC) ``optimal`` while the checker still failed it.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from planner.cli.commands import app
from planner.geometry.shapes import footprint
from planner.legality.checker import check_deployment
from planner.schema import Scenario
from planner.solve import hh2_judge
from planner.world import resolve

runner = CliRunner()
R32 = 16 / 25.4  # radius of a 32 mm base, inches


def _base(mm: int = 32, x: float | None = None, y: float | None = None) -> dict:
    m: dict = {"base": {"diameter_mm": mm}}
    if x is not None:
        m |= {"x": x, "y": y}
    return m


def _ic(uid: str, *models: dict, place: bool = False) -> dict:
    return {"id": uid, "type": "Infantry", "rules": ["Independent Character"], "setup": {"joined": "sq"},
            "models": list(models), **({"place": True} if place else {})}


def _scenario(sq: list[dict], ics: list[dict], goal: bool = True) -> dict:
    return {
        "ruleset": "hh2",
        "battlefield": {"width": 72, "depth": 48},
        "deployment_zones": [
            {"id": "red-z", "player": "red", "polygon": [[0, 0], [72, 0], [72, 12], [0, 12]]},
            {"id": "blue-z", "player": "blue", "polygon": [[0, 36], [72, 36], [72, 48], [0, 48]]},
        ],
        **({"goals": [{"kind": "near_point", "x": 36, "y": 24}]} if goal else {}),
        "armies": [
            {"player": "blue", "units": [{"id": "zz", "type": "Infantry", "models": [_base(32, 30, 40)]}]},
            {"player": "red", "units": [
                {"id": "sq", "type": "Infantry", "models": sq, **({"place": True} if "x" not in sq[0] else {})},
                *ics]},
        ],
    }


def _three_ics(n_host: int) -> dict:
    """The user's ic-plan.yaml (n_host 2) and ic-plan5.yaml (5): ic3, ic4 of 32 mm, ic5 of 40 mm."""
    return _scenario([_base() for _ in range(n_host)],
                     [_ic("ic3", _base(), place=True), _ic("ic4", _base(), place=True),
                      _ic("ic5", _base(40), place=True)])


def _write(tmp_path: Path, data: dict, name: str) -> Path:
    p = tmp_path / f"{name}.yaml"
    p.write_text(yaml.safe_dump(data), encoding="utf-8")
    return p


def _host_gaps(data: dict) -> dict[str, float]:
    """Each IC's closest distance to a model of sq itself (the checker's ic.coherency findings)."""
    report = check_deployment(resolve(Scenario.model_validate(data), require_positions=True))
    return {u.unit: f.measured for u in report.units for f in u.findings if f.rule == "hh2.ic.coherency"}


@pytest.mark.parametrize(("n_host", "objective"), [(2, 71.261), (5, 113.184)])
def test_three_ics_plan_passes_the_checker(tmp_path, n_host, objective):
    src = _write(tmp_path, _three_ics(n_host), "ic-plan")
    out, js = tmp_path / "out.yaml", tmp_path / "plan.json"
    r = runner.invoke(app, ["plan", str(src), "--time-limit", "10", "--out", str(out), "--json", str(js)])
    assert r.exit_code == 0, r.output
    res = json.loads(js.read_text())
    assert res["status"] == "optimal" and res["legal"] is True
    assert res["objective"] == pytest.approx(objective, abs=1e-3)
    assert runner.invoke(app, ["check", str(out)]).exit_code == 0  # the independent checker, on the file
    gaps = _host_gaps(yaml.safe_load(out.read_text()))
    assert set(gaps) == {"ic3", "ic4", "ic5"}
    # each IC in the cell next to a model of the squad itself (cells 1.575" + 0.25" wide, sized by
    # ic5's 40 mm base), not two cells down a chain (2.390", the old plan's ic4)
    cell = 40 / 25.4 + 0.25
    assert gaps == pytest.approx({"ic3": cell - 2 * R32, "ic4": cell - 2 * R32, "ic5": cell - R32 - 20 / 25.4})


def test_one_model_host_with_four_ics_gets_a_host_centred_formation(tmp_path):
    """1 host model + 4 ICs (ic5 of 40 mm: cells 1.825" wide): in model order no formation of 1-3
    ranks has every IC within 2" of the host (a 2x3 or 3x2 block puts one two cells away, 2.39");
    the host-centred slots do (the host in the middle of a side, the ICs round it)."""
    from planner.solve.candidates import formations, host_centred

    data = _scenario([_base()], [_ic(f"ic{k}", _base(40 if k == 5 else 32), place=True) for k in (3, 4, 5, 6)])
    world = resolve(Scenario.model_validate(data))
    models = world.units["sq"].models + [m for k in (3, 4, 5, 6) for m in world.units[f"ic{k}"].models]
    forms = formations(models)
    rs = world.ruleset

    def ok(f) -> bool:
        return hh2_judge.coherent(rs, models, [footprint(m.base, dx, dy, f.facing)
                                               for m, (dx, dy) in zip(models, f.offsets, strict=True)])
    assert [f.name for f in forms if ok(f)] == ["2x3@90 host-centred", "3x2@90 host-centred",
                                               "2x3@0 host-centred", "3x2@0 host-centred"]
    # the host takes the slot nearest the centre
    f = next(f for f in forms if f.name == "3x2@90")
    assert host_centred(models, list(f.offsets))[0] == min(f.offsets, key=lambda o: (math.hypot(*o), f.offsets.index(o)))
    src = _write(tmp_path, data, "h1ic4")
    out = tmp_path / "out.yaml"
    r = runner.invoke(app, ["plan", str(src), "--time-limit", "10", "--out", str(out)])
    assert r.exit_code == 0, r.output
    assert runner.invoke(app, ["check", str(out)]).exit_code == 0


def test_a_single_unit_group_gets_no_host_centred_shapes():
    from planner.solve.candidates import formations

    world = resolve(Scenario.model_validate(_scenario([_base() for _ in range(5)], [])))
    assert not [f for f in formations(world.units["sq"].models) if "host-centred" in f.name]


def test_ic_min_suggests_ic3_alone_one_inch(tmp_path):
    """sq at (50, 6); ic3 at (54, 6): 2.740" from sq (illegal), 1.240" from ic4 at (51.5, 6)
    (legal). ic3 alone moves 1" to (53, 6): 1.740" from sq. (0.5" grid: (53.5, 6) is 2.240".)"""
    data = _scenario([_base(32, 50, 6)], [_ic("ic3", _base(32, 54, 6)), _ic("ic4", _base(32, 51.5, 6))], goal=False)
    assert _host_gaps(data) == pytest.approx({"ic3": 4 - 2 * R32, "ic4": 1.5 - 2 * R32})
    src = _write(tmp_path, data, "ic-min")
    js = tmp_path / "r.json"
    r = runner.invoke(app, ["check", str(src), "--suggest", "--time-limit", "5", "--json", str(js)])
    assert r.exit_code == 1, r.output  # the scenario as given
    assert 'ic3 [hh2.ic.coherency]: move 1.000" in total, least over the moves of ic3 alone (sq, ic4 standing)' \
        in r.output
    (u,) = json.loads(js.read_text())["suggestions"]["units"]
    assert (u["status"], u["family"], u["total_move_in"], u["legal_after"]) == ("optimal", "character_alone", 1.0, True)
    assert [(m["unit_id"], m["model_id"], m["to_x"], m["to_y"]) for m in u["moves"]] == [("ic3", "1", 53.0, 6.0)]


def test_a_planner_checker_disagreement_is_never_optimal(monkeypatch):
    """With the planner's old chain predicate put back, ic-min's zero move fails the checker: the
    suggestion is unknown with no moves, never optimal at 0"."""
    from planner.legality.checks.coherency import is_coherent
    from planner.solve.suggest import suggest_moves

    monkeypatch.setattr(hh2_judge, "coherent", lambda rs, models, fps: is_coherent(models, fps, rs))
    data = _scenario([_base(32, 50, 6)], [_ic("ic3", _base(32, 54, 6)), _ic("ic4", _base(32, 51.5, 6))], goal=False)
    (s,) = suggest_moves(resolve(Scenario.model_validate(data), require_positions=True), time_limit_s=5).units
    assert (s.unit_id, s.status, s.moves, s.total_move_in, s.legal_after) == ("ic3", "unknown", [], 0.0, False)
    assert "does not pass the independent checker (hh2.ic.coherency)" in s.message


def _boundary(gap4: float) -> dict:
    """sq at (50, 6); ic3 exactly 2.0" to its right; ic4 ``gap4`` inches (edge to edge) from sq at
    45 degrees, 1.24" from ic3."""
    c3 = 2 * R32 + 2.0
    c4 = 2 * R32 + gap4
    a = math.radians(45)
    return _scenario([_base(32, 50, 6)], [_ic("ic3", _base(32, 50 + c3, 6)),
                                           _ic("ic4", _base(32, 50 + c4 * math.cos(a), 6 + c4 * math.sin(a)))],
                     goal=False)


@pytest.mark.parametrize(("gap4", "legal"), [(2.0, True), (2.01, False)])
def test_boundary_two_inches_from_a_host_model(tmp_path, gap4, legal):
    data = _boundary(gap4)
    world = resolve(Scenario.model_validate(data), require_positions=True)
    ic3, ic4, sq = (world.units[k].models[0] for k in ("ic3", "ic4", "sq"))
    fps = {m.unit_id: footprint(m.base, m.x, m.y, m.facing) for m in (sq, ic3, ic4)}
    assert hh2_judge.coherent(world.ruleset, [sq, ic3], [fps["sq"], fps["ic3"]])  # exactly 2.0": legal
    gap34 = math.hypot(ic3.x - ic4.x, ic3.y - ic4.y) - 2 * R32
    assert 1.23 < gap34 < 1.25  # ic4 within 2" of ic3, its base clear of ic3's
    # the planner's predicate and the checker's verdict agree, through the CLI too
    assert hh2_judge.coherent(world.ruleset, [sq, ic3, ic4], [fps["sq"], fps["ic3"], fps["ic4"]]) is legal
    gaps = _host_gaps(data)
    assert gaps["ic3"] == pytest.approx(2.0, abs=1e-9) and gaps["ic4"] == pytest.approx(gap4, abs=1e-9)
    js = tmp_path / "r.json"
    r = runner.invoke(app, ["check", str(_write(tmp_path, data, "b")), "--json", str(js)])
    assert r.exit_code == (0 if legal else 1), r.output
    bad = [(v["unit"], v["rule"]) for v in json.loads(js.read_text())["violations"]]
    assert bad == ([] if legal else [("ic4", "hh2.ic.coherency")])
