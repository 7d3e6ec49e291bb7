"""The Ruleset interface (issue #13): a ruleset defined here, in the test, is honoured by
``check``, ``plan``, ``threats`` and ``generate`` without touching ``planner/``; and no code outside
``planner/rules/`` branches on a ruleset id or an edition number.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from planner.cli import app
from planner.rules.hh2 import HorusHeresy2
from planner.rules.registry import find_ruleset, register, unregister

R32 = 16 / 25.4
R25 = 12.5 / 25.4
ROOT = Path(__file__).resolve().parents[1]


# --------------------------------------------------------------------------- the test-only ruleset


class HorusHeresy10(HorusHeresy2):
    """Horus Heresy 2.0 with Infiltrate at more than 10" (hidden) instead of 9"."""

    id = "hh2-test10"
    name = "Horus Heresy 2.0, Infiltrate at 10\" (test only)"
    aliases = ()
    INFILTRATE_HIDDEN_MORE_THAN_IN = 10.0


@pytest.fixture
def hh10():
    rs = register(HorusHeresy10())
    yield rs
    unregister(rs.id)


runner = CliRunner()


def _scenario(ruleset: str, infiltrator_y: float | None, *, place: bool = False, width=72, depth=48) -> dict:
    """An enemy marine at (36, 10) behind a wall, and my 25 mm Infiltrator north of it."""
    me: dict = {"id": "recon", "type": "Infantry", "rules": ["Infiltrate"], "setup": {"method": "infiltrate"},
                "models": [{"base": {"diameter_mm": 25}}]}
    if place:
        me["place"] = True
    else:
        me["models"][0].update(x=36, y=infiltrator_y)
    return {
        "ruleset": ruleset,
        "battlefield": {"width": width, "depth": depth},
        "deployment_zones": [
            {"id": "red-dz", "player": "red", "polygon": [[0, 0], [72, 0], [72, 12], [0, 12]]},
            {"id": "blue-dz", "player": "blue", "polygon": [[0, 36], [72, 36], [72, 48], [0, 48]]},
        ],
        "terrain": [{"id": "wall", "kind": "solid", "traits": ["blocks_line_of_sight"],
                     "footprint": [[20, 14.5], [52, 14.5], [52, 15.5], [20, 15.5]]}],
        "goals": [{"kind": "near_point", "x": 36, "y": 10}],
        "armies": [
            {"player": "red", "units": [{"id": "tacticals", "type": "Infantry",
                                         "models": [{"base": {"diameter_mm": 32}, "x": 36, "y": 10}]}]},
            {"player": "blue", "units": [me]},
        ],
    }


def _write(tmp_path: Path, data: dict, name: str = "s.yaml") -> Path:
    p = tmp_path / name
    p.write_text(yaml.safe_dump(data), encoding="utf-8")
    return p


def _y_at(distance: float) -> float:
    """The Infiltrator's centre y for a closest-point distance ``distance`` to the enemy marine."""
    return 10 + R32 + distance + R25


def test_the_ruleset_is_found_and_lists_its_own_rule_ids(hh10):
    rs = find_ruleset("hh2-test10")
    assert rs is hh10 and rs.INFILTRATE_HIDDEN_MORE_THAN_IN == 10.0
    assert rs.INFILTRATE_PLAIN_SIGHT_MORE_THAN_IN == 12.0  # inherited
    assert "hh2-test10.infiltrate.distance" in {r.id for r in rs.rules}
    assert len(rs.rules) == len(find_ruleset("hh2").rules)
    res = runner.invoke(app, ["rules", "--ruleset", "hh2-test10", "--json", "-"])
    assert res.exit_code == 0
    assert "hh2-test10.infiltrate.hidden" in res.output


@pytest.mark.parametrize(("distance", "legal_hh2", "legal_10"), [
    (9.0, False, False),    # exactly 9": not more than 9" in either
    (9.01, True, False),    # hidden, more than 9" but not more than 10"
    (10.0, True, False),    # exactly 10": not more than 10"
    (10.01, True, True),
])
def test_check_honours_the_10_inch_distance(hh10, tmp_path, distance, legal_hh2, legal_10):
    for ruleset, legal in (("hh2", legal_hh2), ("hh2-test10", legal_10)):
        path = _write(tmp_path, _scenario(ruleset, _y_at(distance)), f"{ruleset}.yaml")
        res = runner.invoke(app, ["check", str(path), "--json", "-"])
        assert res.exit_code == (0 if legal else 1), res.output
        report = json.loads(res.stdout[res.stdout.index("{"):])
        assert report["ruleset"] == ruleset
        rules = {v["rule"] for v in report["violations"]}
        assert rules == (set() if legal else {f"{ruleset}.infiltrate.distance"})


def test_plan_places_the_infiltrator_more_than_10_inches_away_and_check_accepts(hh10, tmp_path):
    for ruleset, limit in (("hh2", 9.0), ("hh2-test10", 10.0)):
        path = _write(tmp_path, _scenario(ruleset, None, place=True), f"{ruleset}.yaml")
        out = tmp_path / f"{ruleset}-plan.yaml"
        res = runner.invoke(app, ["plan", str(path), "--out", str(out), "--time-limit", "20", "--workers", "1",
                                  "--json", str(tmp_path / f"{ruleset}.json")])
        assert res.exit_code == 0, res.output
        plan = yaml.safe_load(out.read_text())
        (m,) = plan["armies"][1]["units"][0]["models"]
        d = math.hypot(m["x"] - 36, m["y"] - 10) - R32 - R25
        # as close to the enemy as the rule lets it, on the 1" grid: more than the limit, by less than 1.5"
        assert limit < d < limit + 1.5, (ruleset, d)
        assert runner.invoke(app, ["check", str(out)]).exit_code == 0


def test_threats_honour_the_10_inch_distance(hh10, tmp_path):
    def cells(ruleset: str) -> set[tuple[float, float]]:
        data = {
            "ruleset": ruleset,
            "battlefield": {"width": 24, "depth": 24},
            "deployment_zones": [{"id": "me-z", "player": "me", "polygon": [[0, 18], [24, 18], [24, 24], [0, 24]]},
                                 {"id": "en-z", "player": "en", "polygon": [[0, 0], [24, 0], [24, 4], [0, 4]]}],
            # a wall between my marine and the 9"-12" ring south of it
            "terrain": [{"id": "wall", "kind": "solid", "traits": ["blocks_line_of_sight"],
                         "footprint": [[4, 13], [20, 13], [20, 14], [4, 14]]}],
            "armies": [
                {"player": "me", "units": [{"id": "a", "type": "Infantry",
                                            "models": [{"base": {"diameter_mm": 32}, "x": 12, "y": 20}]}]},
                {"player": "en", "units": [{"id": "inf", "type": "Infantry", "rules": ["Infiltrate"],
                                            "setup": "reserves", "models": [{"base": {"diameter_mm": 25}}]}]},
            ],
        }
        path = _write(tmp_path, data, f"t-{ruleset}.yaml")
        res = runner.invoke(app, ["threats", str(path), "--enemy-unit", "inf", "--grid", "0.5", "--json", "-"])
        assert res.exit_code == 0, res.output
        return {tuple(c) for c in json.loads(res.stdout[res.stdout.index("{"):])["legal_cells"]}

    def dist(c: tuple[float, float]) -> float:
        return math.hypot(c[0] - 12, c[1] - 20) - R32 - R25

    hh2, hh10_cells = cells("hh2"), cells("hh2-test10")
    assert any(9.0 < dist(c) <= 10.0 for c in hh2)  # hidden behind the wall, 9"-10" away
    assert hh10_cells and all(dist(c) > 10.0 for c in hh10_cells)
    assert hh10_cells == {c for c in hh2 if dist(c) > 10.0}


def test_generate_labels_use_the_rulesets_ids_and_threshold(hh10, tmp_path):
    out = tmp_path / "data"
    res = runner.invoke(app, ["generate", "--count", "24", "--seed", "1", "--out", str(out), "--workers", "1",
                              "--ruleset", "hh2-test10", "--kind", "legality"])
    assert res.exit_code == 0, res.output
    lines = [json.loads(x) for x in (out / "scenarios.jsonl").read_text().splitlines()]
    assert lines and all(x["ruleset"] == "hh2-test10" for x in lines)
    labels = [x["label"] for x in lines]
    distance = [lab for lab in labels if lab["target_rule"] == "hh2-test10.infiltrate.distance"]
    assert distance, [lab["target_rule"] for lab in labels]
    assert {lab["threshold"] for lab in distance} <= {10.0, 12.0}
    assert any(lab["threshold"] == 10.0 for lab in distance)
    assert all(lab["target_rule"].startswith("hh2-test10.") for lab in labels)
    # the labels are the checker's verdicts under the variant: every violation is one of its ids
    assert all(v.startswith("hh2-test10.") for lab in labels for v in lab["violations"])
    # a 10"-threshold item on the legal side is more than 10" away (re-checked through check)
    for x in lines:
        lab = x["label"]
        if lab["target_rule"].endswith("infiltrate.distance") and lab["threshold"] == 10.0:
            path = _write(tmp_path, {k: v for k, v in x.items() if k != "label"}, "item.yaml")
            assert runner.invoke(app, ["check", str(path)]).exit_code == lab["exit_code"]


# --------------------------------------------------------------------------- no branches outside planner/rules

BRANCH = re.compile(r"""(==|!=) *['"](hh2|wh40k[0-9]+)['"]|in \(['"](hh2|wh40k)|in \{['"](hh2|wh40k)|EDITION"""
                    r"""|import_module\(f?['"]planner\.rules|= \(['"]wh40k|\.startswith\(['"](hh2|wh40k)"""
                    r"""|['"]hh2\.[a-z_]+""")


def test_no_code_outside_planner_rules_branches_on_a_ruleset_id():
    hits = []
    for p in sorted((ROOT / "planner").rglob("*.py")):
        if p.parent.name == "rules":
            continue
        for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1):
            code = line.split("#", 1)[0]
            if BRANCH.search(code) and not code.strip().startswith(('"', "'", "``")):
                hits.append(f"{p.relative_to(ROOT)}:{n}: {line.strip()}")
    assert not hits, "\n".join(hits)


def test_the_variants_rule_meanings_say_its_own_numbers(hh10):
    meanings = {r.id: r.meaning for r in hh10.rules}
    assert 'more than 10" from every enemy unit (hidden)' in meanings["hh2-test10.infiltrate.distance"]
    assert 'more than 9" from every enemy unit (hidden)' in find_ruleset("hh2").rule("hh2.infiltrate.distance").meaning


PLUGIN = '''
from planner.rules.hh2 import HorusHeresy2
from planner.rules.registry import register


class HorusHeresy10(HorusHeresy2):
    id = "hh2-plugin10"
    name = "Horus Heresy 2.0, Infiltrate at 10 inches (a plugin)"
    aliases = ()
    INFILTRATE_HIDDEN_MORE_THAN_IN = 10.0


RULESET = register(HorusHeresy10())
'''


def test_a_ruleset_module_named_in_planner_rulesets_is_known_to_every_command(tmp_path):
    import os
    import subprocess
    import sys

    (tmp_path / "my_rules.py").write_text(PLUGIN, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)]), "PLANNER_RULESETS": "my_rules"}
    path = _write(tmp_path, _scenario("hh2-plugin10", _y_at(9.5)), "s.yaml")
    p = subprocess.run([sys.executable, "-m", "planner", "check", str(path)], capture_output=True, text=True,
                       env=env, timeout=120)
    assert p.returncode == 1 and "hh2-plugin10.infiltrate.distance" in p.stdout, p.stdout + p.stderr
    env["PLANNER_RULESETS"] = "no_such_module"
    p = subprocess.run([sys.executable, "-m", "planner", "check", str(path)], capture_output=True, text=True,
                       env=env, timeout=120)
    assert p.returncode == 2 and "no_such_module" in p.stderr and "PLANNER_RULESETS" in p.stderr
