"""The public API in ``planner/__init__.py``: every name resolves to its home module's object,
``import planner`` loads none of the heavy libraries, and :func:`planner.deep_strike_odds` gives
what ``planner deepstrike --at`` reports."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import planner
from planner.errors import ScenarioError

ROOT = Path(__file__).resolve().parents[1]
LONG_EDGE = ROOT / "scenarios" / "long-edge-ravenguard-vs-ironhands.yaml"


def test_every_public_name_is_its_home_modules_object():
    assert planner.__all__ == ["__version__", *planner._EXPORTS]
    for name, (module, attr) in planner._EXPORTS.items():
        assert getattr(planner, name) is getattr(importlib.import_module(module), attr), name
    assert set(planner.__all__) <= set(dir(planner))


def test_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no_such_thing"):
        planner.no_such_thing  # noqa: B018
    assert not hasattr(planner, "plan")


def test_version_is_the_projects():
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert planner.__version__ == meta["project"]["version"]


def test_import_planner_loads_no_heavy_library():
    code = ("import sys, planner; heavy = ('ortools', 'matplotlib', 'shapely', 'pydantic', 'numpy', 'planner.');"
            "print(sorted(m for m in sys.modules if m.startswith(heavy)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def _cli_json(*args: str) -> dict:
    p = subprocess.run([sys.executable, "-m", "planner", "deepstrike", str(LONG_EDGE), *args, "--json", "-"],
                       capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def test_deep_strike_odds_are_the_commands():
    world = planner.load_scenario(LONG_EDGE)
    o = planner.deep_strike_odds(world, "ih-assault", 36, 24, ruleset="wh40k7", within=(36, 30, 3))
    cli = _cli_json("--unit", "ih-assault", "--at", "36,24", "--ruleset", "wh40k7", "--near", "36,30",
                    "--within", "3")["odds"]
    assert o.p_mishap == pytest.approx(cli["p_mishap"], abs=1e-12)
    assert o.results == pytest.approx(cli["results"], abs=1e-12)
    assert o.triggers == pytest.approx(cli["triggers"], abs=1e-12)
    assert o.within == pytest.approx(cli["within"], abs=1e-12)
    assert 0 < o.p_mishap < 1 and o.p_clean == pytest.approx(1 - o.p_mishap)
    assert sum(o.results.values()) == pytest.approx(o.p_mishap)


def test_deep_strike_odds_hh2_is_the_assault_procedure():
    world = planner.load_scenario(LONG_EDGE)
    a = planner.deep_strike_odds(world, "ih-assault", 36, 33, ruleset="hh2")
    cli = _cli_json("--unit", "ih-assault", "--at", "36,33", "--ruleset", "hh2")["assault_odds"]
    assert a.p_relocated == pytest.approx(cli["p_relocated"], abs=1e-12)
    assert a.p_disordered == pytest.approx(cli["p_disordered"], abs=1e-12)
    assert a.p_stays == pytest.approx(1 - a.p_relocated)
    with pytest.raises(ScenarioError, match="Mishap table"):
        planner.deep_strike_odds(world, "ih-assault", 36, 33, ruleset="hh2", within=(36, 30, 3))


@pytest.mark.parametrize("x,y", [(-0.5, 24), (36, 48.5)])
def test_deep_strike_odds_refuses_an_aim_point_off_the_battlefield(x, y):
    world = planner.load_scenario(LONG_EDGE)
    with pytest.raises(ScenarioError, match='72" x 48" battlefield') as err:
        planner.deep_strike_odds(world, "ih-assault", x, y, ruleset="wh40k7")
    assert str(LONG_EDGE) in str(err.value)


def test_deep_strike_odds_unknown_unit():
    world = planner.load_scenario(LONG_EDGE)
    with pytest.raises(ScenarioError, match="no unit with this id"):
        planner.deep_strike_odds(world, "nobody", 36, 24, ruleset="wh40k7")
