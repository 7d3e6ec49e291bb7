"""Issue 19 (restrictions, item 5) in the Horus Heresy Deep Strike Assault: the first model, the rest
of its unit and the later units honour an enemy unit's restriction on Deep Strike arrivals (the
one predicate, planner.legality.checks.restriction), at exactly X" and just past it; the output
names the restriction when it bites."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
import yaml
from typer.testing import CliRunner

from planner.cli.commands import app
from planner.deepstrike.assault import (
    RESTRICTION_TRIGGER,
    assault_odds,
    assault_regions,
    place_assault,
    restriction_breach,
)
from planner.deepstrike.procedure import make_setup
from planner.errors import ScenarioError
from planner.legality.checks.restriction import restriction_verdicts
from planner.legality.table import Placed
from planner.schema import Scenario, SetupKind
from planner.units import TOLERANCE_IN
from planner.world import resolve

R32 = 16 / 25.4
X = 12.0
HOLDER = (50.0, 24.0)
TRIG = f"hh2.deepstrike_assault.{RESTRICTION_TRIGGER}"


def _unit(uid, n=1, base=None):
    return {"id": uid, "type": "Infantry", "rules": ["Deep Strike"],
            "setup": {"method": "reserves", "arrival": "deep_strike"},
            "models": [{"base": dict(base or {"diameter_mm": 32})} for _ in range(n)]}


def _data(blue, restricted=True, holder=HOLDER):
    warden = {"id": "warden", "models": [{"profile": "legion-tactical-marine", "x": holder[0], "y": holder[1]}]}
    if restricted:
        warden["restrictions"] = [{"within_in": X, "methods": ["deep_strike"], "source": "test ability p.1",
                                   "name": "Auspex Ward"}]
    return {"ruleset": "hh2", "battlefield": {"width": 72, "depth": 48},
            "armies": [{"player": "blue", "units": list(blue)}, {"player": "red", "units": [warden]}]}


def _setup(blue, unit="ds", **kw):
    return make_setup(resolve(Scenario.model_validate(_data(blue, **kw))), unit)


def _aim(gap: float) -> tuple[float, float]:
    """The aim point ``gap`` inches (closest points of the two 32 mm bases) left of the warden."""
    return HOLDER[0] - 2 * R32 - gap, HOLDER[1]


@pytest.mark.parametrize("gap, legal", [(X, False), (X + 0.01, True)])
def test_first_model_at_exactly_x_is_refused_just_past_is_aimed(gap, legal):
    st = _setup([_unit("ds")])
    assert st.restricted and st.unapplied == ()
    if legal:
        o = assault_odds(st, *_aim(gap))
        assert TRIG in o.triggers
        assert any("Auspex Ward (warden, 12\", [test ability p.1])" in n for n in o.interpretations)
    else:
        with pytest.raises(ScenarioError) as exc:
            assault_odds(st, *_aim(gap))
        assert "Auspex Ward (warden)" in str(exc.value) and "within 12\"" in str(exc.value)
        assert "test ability p.1" in str(exc.value)


def test_relocation_odds_equal_the_closed_form_of_the_restriction_disc():
    """Aimed 12.01" from the warden, far from every edge: the first model is relocated exactly when
    the scatter ends with its centre within rho = 12" + tolerance + 2 r of the warden's centre (a
    disc); P = (1 - P(hit)) * sum_d P(d) arccos((d^2 + D^2 - rho^2) / (2 d D)) / pi; without the
    restriction, the same with rho = 1" + tolerance + 2 r (the 1" trigger)."""
    st = _setup([_unit("ds")])
    x, y = _aim(X + 0.01)
    D = math.hypot(HOLDER[0] - x, HOLDER[1] - y)
    R = st.rules

    def disc(rho: float) -> float:
        return sum(pd * (1.0 if d + D <= rho else 0.0 if abs(D - d) >= rho else
                         math.acos((d * d + D * D - rho * rho) / (2 * d * D)) / math.pi)
                   for d, pd in R.scatter_distances()) * (1 - R.p_hit)

    closed = disc(X + TOLERANCE_IN + 2 * R32)
    o = assault_odds(st, x, y)
    assert o.triggers[TRIG] == pytest.approx(closed, abs=1e-9)
    assert o.p_relocated == pytest.approx(closed, abs=1e-9)  # the 1" of the warden lies inside it; no edge in reach
    assert 0.25 < closed < 0.3  # about 2/3 x (a little under half of each scatter circle)
    free = assault_odds(_setup([_unit("ds")], restricted=False), x, y)
    # without it only the warden's 1" relocates (a 12" scatter reaches it): the same closed form
    assert TRIG not in free.triggers and free.p_relocated == pytest.approx(disc(1.0 + TOLERANCE_IN + 2 * R32), abs=1e-9)
    assert 0 < free.p_relocated < 0.01


def test_the_region_is_where_the_one_predicate_refuses_the_first_model():
    """A Drop Pod (a true 4" x 2.5" hull at 30 deg): the relocation region of the restriction and
    the checker's predicate agree at 400 points about its boundary."""
    st = make_setup(resolve(Scenario.model_validate(_data([_unit("ds", 1, {"length_in": 4.0, "width_in": 2.5})]))),
                    "ds", facing_deg=30.0)
    assert st.shapes[0].kind == "polygon"
    rs, ids = assault_regions(st)
    rng = np.random.default_rng(7)
    th = rng.uniform(0, 2 * math.pi, 400)
    rr = rng.uniform(X, X + 4.0, 400)
    px, py = HOLDER[0] + rr * np.cos(th), HOLDER[1] + rr * np.sin(th)
    inside = rs.contains(px, py)[:, ids[RESTRICTION_TRIGGER]]
    seen = set()
    for a, b, k in zip(px, py, inside, strict=True):
        v = restriction_breach(st, st.unit, [st.shapes[0].moved(float(a), float(b))], ("1",))
        (ver,) = restriction_verdicts(st.table, Placed(st.unit, (st.shapes[0].moved(float(a), float(b)),), ("1",)),
                                      kind=SetupKind.DEEP_STRIKE)
        if abs(ver.distance - X - TOLERANCE_IN) < 1e-6:
            continue
        assert bool(k) is (v is not None), (a, b, ver.distance)
        seen.add(bool(k))
    assert seen == {True, False}


def _gaps(st, first, rows) -> list[float]:
    """The closest-point distance (inches) of every model of the assault as placed (the first
    model, then each row's models) to the warden's base: signed_distance, not the predicate."""
    from planner.geometry.shapes import footprint, signed_distance

    warden = st.world.units["warden"].models[0]
    wf = footprint(warden.base, warden.x, warden.y, 0.0)
    shapes = {"ds": st.shapes[1:], **{u.id: [footprint(m.base, 0, 0, 0) for m in u.models]
                                      for u in st.world.units.values() if u.id not in ("ds", "warden")}}
    out = [signed_distance(first, wf)]
    for r in rows:
        out += [signed_distance(S.moved(*c), wf) for c, S in zip(r["positions"], shapes[r["unit"]], strict=True)]
    return out


def test_the_rest_of_the_unit_and_later_units_keep_out_and_the_output_names_it():
    """The first model 12.01" from the warden, the warden straight ahead (direction 0, where the
    candidates start): the rest of its unit (base contact) and a later unit (within 6") are placed
    with every model more than 12" from the warden (measured apart from the predicate); without the restriction
    the same search puts them within 12" (the restriction bites, and is named)."""
    blue = [_unit("ds", 3), _unit("ds2")]
    st = _setup(blue)
    first = st.shapes[0].moved(*_aim(X + 0.01))
    rows = place_assault(st, first)
    assert [r["unit"] for r in rows] == ["ds", "ds2"]
    assert all(r["space"] and r["placed_by"] == "controller" for r in rows)
    assert min(_gaps(st, first, rows)) > X + TOLERANCE_IN  # every model more than 12" from the warden
    assert all(r["restrictions"] == ["Auspex Ward (warden, 12\", [test ability p.1])"] for r in rows)
    free = place_assault(_setup(blue, restricted=False), first)
    assert all("restrictions" not in r for r in free)
    assert min(_gaps(st, first, free)) < X  # without it the search starts towards the warden


@pytest.mark.parametrize("gap, ok", [(X, False), (X + 0.01, True)])
def test_a_later_unit_at_exactly_x_is_refused(gap, ok):
    st = _setup([_unit("ds"), _unit("ds2")])
    later = st.world.units["ds2"]
    fp = st.shapes[0].moved(*_aim(gap))
    v = restriction_breach(st, later, [fp])
    assert (v is None) is ok
    if not ok:
        assert v.distance == pytest.approx(X, abs=1e-9) and v.held.restriction.name == "Auspex Ward"


def test_cli_names_the_restriction(tmp_path):
    src = tmp_path / "a.yaml"
    src.write_text(yaml.safe_dump(_data([_unit("ds", 3), _unit("ds2")])), encoding="utf-8")
    x, y = _aim(X + 0.01)
    r = CliRunner().invoke(app, ["deepstrike", str(src), "--unit", "ds", "--at", f"{x!r},{y!r}", "--json", "-"])
    assert r.exit_code == 0, r.output
    out = r.output
    assert TRIG in out and "or an enemy restriction" in out and "Not applied" not in out
    assert "refused by the restriction Auspex Ward (warden, 12\", [test ability p.1])" in out
    data = json.loads(out[out.index("\n{") + 1:])
    assert TRIG in data["assault_odds"]["triggers"]
    assert data["assault_followers"]["on_target"][0]["restrictions"] == ["Auspex Ward (warden, 12\", [test ability p.1])"]
    x, y = _aim(X)
    r = CliRunner().invoke(app, ["deepstrike", str(src), "--unit", "ds", "--at", f"{x!r},{y!r}", "--json", "-"])
    # an aim point within the restriction is not legal (exit 1, the rule id), not invalid input
    assert r.exit_code == 1 and "Auspex Ward" in r.output and "Traceback" not in r.output
    assert "NOT LEGAL" in r.output and "hh2.restriction.within: " in r.output
    data = json.loads(r.output[r.output.index("\n{") + 1:])
    assert data["legal"] is False and data["rules_failed"] == ["hh2.restriction.within"]


def test_replay_agrees_with_the_exact_relocation_odds():
    from planner.deepstrike.procedure import simulate

    st = _setup([_unit("ds")])
    x, y = _aim(X + 0.5)
    o = assault_odds(st, x, y)
    s = simulate(st, x, y, 20_000, seed=3)
    assert o.triggers[TRIG] > 0.2 and abs(s.p_mishap - o.p_relocated) <= 4 * s.se_mishap
