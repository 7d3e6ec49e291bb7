"""#20 acceptance on a scenario built from the real rosters: the Raven Guard infiltration against the
deployed Iron Hands with the profiles of ``ravenguard.rosz`` / ``ironhands.rosz``
(``scenarios/hh2-exposure-ravenguard-vs-ironhands.yaml``, made by ``tests/regen_hh2_exposure_scenario.py``)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
SCENARIO = ROOT / "scenarios" / "hh2-exposure-ravenguard-vs-ironhands.yaml"


def _planner(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "planner", *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=300)


def _lost(path: Path, tmp_path: Path) -> float:
    out = tmp_path / f"{path.stem}-exposure.json"
    r = _planner("exposure", str(path), "--json", str(out))
    assert r.returncode == 0, r.stdout + r.stderr
    return json.loads(out.read_text(encoding="utf-8"))["expected_models_lost"]


PLAIN_CEILING_S = 120.0
"""A ceiling, not a budget: the near-point plan ends at its proof (2 s of planning at load 6,
measured; its old 10 s limit, process start and report included, could cut it short)."""
EXPOSURE_LIMIT_S = 20.0
"""The exposure plan never proves optimal in a test's time (43 % gap after 60 s at load 5), and its
answer is not monotonic in the time it is given (measured at load 5-7, the exposure goal's value:
8 s 7.12 models, 12 s 3.43, 16 s 7.12, 20 s 2.87): no time limit makes "loses less than the
near-point plan" hold on a loaded machine, so the test asserts what holds at any status and the
comparison where the plan's own exposure value proves it."""


@pytest.mark.slow
def test_the_exposure_plan_loses_less_than_the_near_point_plan_and_is_legal(tmp_path):
    plain, plain_json = tmp_path / "plain.yaml", tmp_path / "plain.json"
    r = _planner("plan", str(SCENARIO), "--out", str(plain), "--time-limit", f"{PLAIN_CEILING_S:g}", "--workers", "1",
                 "--json", str(plain_json))
    assert r.returncode == 0, r.stdout + r.stderr
    first = json.loads(plain_json.read_text(encoding="utf-8"))
    assert first["status"] == "optimal", first["message"]
    data = yaml.safe_load(SCENARIO.read_text(encoding="utf-8"))
    data["goals"].append({"kind": "exposure", "weight": 20})
    src = tmp_path / "with-exposure.yaml"
    src.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    planned, planned_json = tmp_path / "planned.yaml", tmp_path / "planned.json"
    r = _planner("plan", str(src), "--out", str(planned), "--time-limit", f"{EXPOSURE_LIMIT_S:g}", "--workers", "1",
                 "--json", str(planned_json))
    # at any status (optimal or cut short): a plan, its exposure term, legal by the checker
    assert r.returncode == 0, r.stdout + r.stderr
    assert "term exposure" in r.stdout
    c = _planner("check", str(planned))
    assert c.returncode == 0, c.stdout + c.stderr
    result = json.loads(planned_json.read_text(encoding="utf-8"))
    (goal,) = [g for g in result["goals"] if g["kind"] == "exposure"]
    near, exposed = _lost(plain, tmp_path), _lost(planned, tmp_path)
    # the near-point plan (proven optimal) leaves the Tactical Squad in reach of four Iron Hands units
    # measured 3.888, the figure scenarios/README.md quotes (6.649 when the import gave all ten Breachers a
    # meltagun and the Land Raider Phobos one lascannon)
    assert near == pytest.approx(3.888, abs=0.05)
    # the goal's value is an upper bound of planner exposure's figure, whatever the plan's status
    assert exposed <= goal["value"] + 1e-9
    # the near-point plan is the optimum of its goal over the candidate grid (the same grid and rules
    # as the exposure plan's): no plan, this one included, is nearer the point
    cost = {g["kind"]: g["cost"] for g in result["goals"]}
    (best_near,) = [g["cost"] for g in first["goals"] if g["kind"] == "near_point"]
    assert cost["near_point"] >= best_near - 1e-6
    if goal["value"] >= near:  # cut short before the Tactical Squad was drawn back (a loaded machine)
        pytest.xfail(f"the exposure plan ({result['status']}, {EXPOSURE_LIMIT_S:g} s) was cut short at an "
                     f"exposure value of {goal['value']:.3f} models, not below the near-point plan's {near:.3f}")
    assert exposed < near  # measured: 3.888 -> about 2.1 (the Tactical Squad drawn back)
