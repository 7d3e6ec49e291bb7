"""A scenario without ``battlefield:`` is on its ruleset's default table (the ruleset module's
``BATTLEFIELD_WIDTH_IN`` x ``BATTLEFIELD_DEPTH_IN``), and ``check``/``plan`` warn which: a 40k
10th/11th scenario was checked on the Horus Heresy 72" x 48"."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from planner.rules.registry import find_ruleset
from planner.schema import Scenario
from planner.world import load_scenario, resolve

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(("ruleset", "size"), [("hh2", (72, 48)), ("wh40k5", (72, 48)), ("wh40k7", (72, 48)),
                                               ("wh40k10", (60, 44)), ("wh40k11", (60, 44)), ("40k10", (60, 44))])
def test_no_battlefield_is_the_rulesets_default(ruleset, size):
    world = resolve(Scenario(ruleset=ruleset))
    bf = world.scenario.battlefield
    assert (bf.width, bf.depth) == size
    assert world.battlefield_default
    rs = find_ruleset(ruleset)
    assert (rs.BATTLEFIELD_WIDTH_IN, rs.BATTLEFIELD_DEPTH_IN) == size  # one place: the ruleset's module


def test_a_battlefield_given_is_kept_and_not_called_default():
    world = resolve(Scenario.model_validate({"ruleset": "wh40k10", "battlefield": {"width": 72, "depth": 48}}))
    assert (world.scenario.battlefield.width, world.scenario.battlefield.depth) == (72, 48)
    assert not world.battlefield_default
    world = resolve(Scenario.model_validate({"ruleset": "wh40k10", "battlefield": {}}))  # given, empty: both defaulted
    assert (world.scenario.battlefield.width, world.scenario.battlefield.depth) == (60, 44)
    assert world.battlefield_default == ("width", "depth")


@pytest.mark.parametrize(("ruleset", "given", "size", "missing"), [
    ("wh40k10", {"width": 60}, (60, 44), ("depth",)),
    ("wh40k11", {"width": 72}, (72, 44), ("depth",)),
    ("wh40k10", {"depth": 30}, (60, 30), ("width",)),
    ("hh2", {"width": 48}, (48, 48), ("depth",)),
    ("hh2", {"depth": 72}, (72, 72), ("width",)),
    ("wh40k7", {"depth": 44}, (72, 44), ("width",)),
])
def test_a_partial_battlefield_takes_the_missing_dimension_from_the_ruleset(ruleset, given, size, missing):
    """Not the schema's 72" / 48": ``battlefield: {width: 60}`` under wh40k10 is 60" x 44"."""
    world = resolve(Scenario.model_validate({"ruleset": ruleset, "battlefield": given}))
    assert (world.scenario.battlefield.width, world.scenario.battlefield.depth) == size
    assert world.battlefield_default == missing


def _one_model_at(tmp_path: Path, ruleset: str, x: float, y: float, battlefield: dict | None = None) -> Path:
    data: dict = {"ruleset": ruleset,
                  "deployment_zones": [{"id": "z", "player": "blue", "polygon": [[0, 0], [80, 0], [80, 50], [0, 50]]}],
                  "armies": [{"player": "blue", "units": [{"id": "intercessors",
                                                           "models": [{"profile": "sm-intercessor", "x": x, "y": y}]}]}]}
    if battlefield is not None:
        data["battlefield"] = battlefield
    path = tmp_path / f"{ruleset}-{x}-{y}.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def _check(path: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "planner", "check", str(path)], capture_output=True, text=True,
                          cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120)


@pytest.mark.parametrize("ruleset", ["wh40k10", "wh40k11"])
def test_40k_check_without_battlefield_is_on_strike_force_and_says_so(tmp_path, ruleset):
    """(65, 30) is on a 72" x 48" table but off the 60" x 44" Strike Force one (illegal, exit 1);
    (58, 42) is on both (legal): the warning names the size used."""
    off = _check(_one_model_at(tmp_path, ruleset, 65, 30))
    assert off.returncode == 1, off
    assert f"{ruleset}.battlefield" in off.stdout
    assert (f'warning: the scenario gives no battlefield: the {ruleset} default, 60" wide (x) by 44" deep (y), '
            f'is used (Strike Force, 44" x 60")') in " ".join(off.stderr.split())
    on = _check(_one_model_at(tmp_path, ruleset, 58, 42))
    assert on.returncode == 0, on
    assert "60\" wide (x) by 44\" deep (y)" in on.stderr
    given = _check(_one_model_at(tmp_path, ruleset, 65, 30, {"width": 72, "depth": 48}))
    assert given.returncode == 0, given
    assert "no battlefield" not in given.stderr


def test_hh2_default_is_still_72_by_48(tmp_path):
    scenario = load_scenario(str(ROOT / "scenarios" / "long-edge-ravenguard-vs-ironhands.yaml"))
    data = {k: v for k, v in scenario.raw.items() if k != "battlefield"} if isinstance(scenario.raw, dict) else None
    assert data is not None
    path = tmp_path / "hh2.yaml"
    path.write_text(yaml.safe_dump(data))
    res = _check(path)
    assert res.returncode == 0, res
    assert 'the hh2 default, 72" wide (x) by 48" deep (y)' in " ".join(res.stderr.split())


def test_40k_partial_battlefield_is_checked_on_the_rulesets_depth_and_says_so(tmp_path):
    """wh40k10 ``battlefield: {width: 60}``: (30, 46) is on 60" x 48" but off 60" x 44" (exit 1), and
    the warning names the dimension taken and the table used; (30, 43) is legal."""
    off = _check(_one_model_at(tmp_path, "wh40k10", 30, 46, {"width": 60}))
    assert off.returncode == 1, off
    assert "wh40k10.battlefield" in off.stdout
    assert ('warning: the scenario\'s battlefield gives no depth: the wh40k10 default depth (Strike Force, 44" x 60"), '
            '44", is used, so the table is 60" wide (x) by 44" deep (y)') in " ".join(off.stderr.split())
    on = _check(_one_model_at(tmp_path, "wh40k10", 30, 43, {"width": 60}))
    assert on.returncode == 0, on
    assert "gives no depth" in on.stderr
    whole = _check(_one_model_at(tmp_path, "wh40k10", 30, 43, {"width": 60, "depth": 44}))
    assert whole.returncode == 0, whole
    assert "warning: the scenario" not in whole.stderr


@pytest.mark.parametrize(("command", "extra"), [("render", ["--out", "picture.svg"]),
                                                ("export-tts", ["--out", "save.json"])])
def test_other_commands_say_the_default_battlefield_too(tmp_path, command, extra):
    """Every command that reads a scenario says when the ruleset's default table filled it in, not
    only check and plan (render draws that table; export-tts writes it into the save)."""
    path = _one_model_at(tmp_path, "wh40k10", 30, 20)
    res = subprocess.run([sys.executable, "-m", "planner", command, str(path),
                          *[str(tmp_path / a) if a.endswith((".svg", ".json")) else a for a in extra]],
                         capture_output=True, text=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
                         timeout=120)
    assert res.returncode == 0, res
    assert ('warning: the scenario gives no battlefield: the wh40k10 default, 60" wide (x) by 44" deep (y)'
            in " ".join(res.stderr.split())), res.stderr
    given = _one_model_at(tmp_path, "wh40k10", 31, 20, {"width": 60, "depth": 44})
    res = subprocess.run([sys.executable, "-m", "planner", command, str(given),
                          *[str(tmp_path / ("2" + a)) if a.endswith((".svg", ".json")) else a for a in extra]],
                         capture_output=True, text=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
                         timeout=120)
    assert res.returncode == 0, res
    assert "no battlefield" not in res.stderr
