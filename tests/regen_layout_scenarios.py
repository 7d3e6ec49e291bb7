"""Regenerate the bundled 40k scenarios on the standard layouts (``scenarios/wh40k/layouts/``).

    PYTHONPATH=. python tests/regen_layout_scenarios.py

Each scenario is ``planner new`` (:func:`planner.cli.layouts.new_scenario`) on one layout with the
two bundled 11th-edition rosters (``scenarios/rosters/wh40k11-*.ros``), then both armies set up by
the planner (red first, then blue, each in its own zone, goal: near the centre), each unit then
marked ``place: false``. The illegal ones then move one model as each file's ``description``
says. ``plan-*.yaml`` keeps blue to be placed (for ``planner plan``). ``tests/test_layouts.py``
asserts every verdict and rule id; it does not call this script.
"""

from __future__ import annotations

import copy
import math
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "scenarios" / "wh40k" / "layouts"
ROSTERS = [ROOT / "scenarios" / "rosters" / "wh40k11-space-marines.ros",
           ROOT / "scenarios" / "rosters" / "wh40k11-necrons.ros"]


def _plan(data: dict, player: str, others_placed: bool) -> dict:
    from planner.io.files import parse_record
    from planner.schema import Scenario
    from planner.solve.planner import SolverSettings, plan_deployment
    from planner.world import resolve

    world = resolve(parse_record(Scenario, data))
    ids = [u["id"] for a in data["armies"] if a["player"] == player for u in a["units"]]
    res = plan_deployment(world, SolverSettings(time_limit_s=10, workers=1, seed=0), units=ids)
    assert res.legal, (player, res.status)
    out = res.scenario_data
    assert out is not None
    for a in out["armies"]:
        if a["player"] == player:
            for u in a["units"]:
                u["place"] = False
    return out


def deployed(layout: str, ruleset: str = "wh40k11") -> dict:
    """The scenario on ``layout`` with both armies set up by the planner (legal)."""
    from planner.cli.layouts import new_scenario

    data, _ = new_scenario(ruleset, layout, None, [str(r) for r in ROSTERS], ["blue", "red"])
    for a in data["armies"]:  # the roster paths are not needed in the bundled file
        a["name"] = a["name"].split(" (")[0]
    data = _plan(data, "red", False)
    return _plan(data, "blue", True)


def _clean(data: dict) -> dict:
    for a in data["armies"]:
        for u in a["units"]:
            u.pop("place", None)
    return data


def _rules(data: dict) -> set[str]:
    from planner.io.files import parse_record
    from planner.legality.checker import check_deployment
    from planner.schema import Scenario
    from planner.world import resolve

    return {v.rule for v in check_deployment(resolve(parse_record(Scenario, data))).violations}


def _model(data: dict, unit: str) -> list[dict]:
    return next(u for a in data["armies"] for u in a["units"] if u["id"] == unit)["models"]


CASES = [
    # file, layout, what is changed (None: legal as planned), description
    ("legal-take-vs-take-01.yaml", "bm-take-vs-take-01", None, "legal"),
    ("legal-purge-vs-assets-03.yaml", "bm-purge-vs-assets-03", None, "legal"),
    ("legal-disrupt-vs-recon-02.yaml", "bm-disrupt-vs-recon-02", None, "legal"),
    ("illegal-zone-assets-vs-assets-01.yaml", "bm-assets-vs-assets-01", "zone", ""),
    ("illegal-coherency-disrupt-vs-assets-03.yaml", "bm-disrupt-vs-assets-03", "coherency", ""),
    ("illegal-overlap-recon-vs-recon-02.yaml", "bm-recon-vs-recon-02", "overlap", ""),
]


def main() -> None:
    from planner.io.files import dump_data

    OUT.mkdir(parents=True, exist_ok=True)
    for name, layout, change, _ in CASES:
        data = _clean(deployed(layout))
        what = "Both armies set up by planner plan in their zones: planner check exits 0 in wh40k11 and wh40k10."
        if change == "zone":  # the first Intercessor steps 3" towards the centre line, out of the zone
            m = _model(data, "blue-intercessor-squad")[0]
            cx, cy = 30.0, 22.0
            dx, dy = cx - m["x"], cy - m["y"]
            d = (dx * dx + dy * dy) ** 0.5
            m["x"], m["y"] = round(m["x"] + 8 * dx / d, 3), round(m["y"] + 8 * dy / d, 3)
            what = ("The first model of blue-intercessor-squad moved 8\" towards the centre, out of the blue zone "
                    "and out of coherency: planner check exits 1 (deployment.wholly_within_zone, coherency).")
        elif change == "coherency":  # the last Necron Warrior 4" from where it stood, the first direction
            ms = _model(data, "red-necron-warriors")  # (of 16) where coherency is the only rule broken
            x0, y0 = ms[-1]["x"], ms[-1]["y"]
            for k in range(16):
                a = math.radians(22.5 * k)
                ms[-1]["x"], ms[-1]["y"] = round(x0 + 4 * math.cos(a), 3), round(y0 + 4 * math.sin(a), 3)
                if _rules(data) == {"wh40k11.coherency"}:
                    break
            else:
                raise AssertionError("no direction breaks coherency alone")
            what = "The last model of red-necron-warriors moved 4\" from its unit: planner check exits 1 (coherency)."
        elif change == "overlap":  # a Lychguard on top of a Necron Warrior, where only the overlap is broken
            found = None
            for lg in _model(data, "red-lychguard"):
                x0, y0 = lg["x"], lg["y"]
                for w in _model(data, "red-necron-warriors"):
                    for k in range(8):
                        a = math.radians(45 * k)
                        lg["x"], lg["y"] = round(w["x"] + 0.5 * math.cos(a), 3), round(w["y"] + 0.5 * math.sin(a), 3)
                        if _rules(data) == {"wh40k11.bases.overlap"}:
                            found = lg
                            break
                    if found:
                        break
                if found:
                    break
                lg["x"], lg["y"] = x0, y0
            if found is None:
                raise AssertionError("no Lychguard position breaks the overlap rule alone")
            what = ("A Lychguard stands 0.5\" from the centre of a Necron Warrior: planner check exits 1 "
                    "(bases.overlap).")
        data["description"] = data["description"] + " " + what
        data["goals"] = [{"kind": "near_point", "x": 30, "y": 22}]
        dump_data(data, OUT / name)
        print("wrote", OUT / name)
    # for planner plan: red set up, blue to place
    from planner.cli.layouts import new_scenario

    data, _ = new_scenario("wh40k11", "bm-take-vs-take-02", None, [str(r) for r in ROSTERS], ["blue", "red"])
    for a in data["armies"]:
        a["name"] = a["name"].split(" (")[0]
    data = _plan(data, "red", False)
    for a in data["armies"]:
        for u in a["units"]:
            if a["player"] == "red":
                u.pop("place", None)
    data["goals"] = [{"kind": "near_point", "x": 30, "y": 22}]
    data["description"] += (" Red (Necrons) set up by planner plan in its zone; blue (Space Marines) marked "
                            "place: true, for planner plan (goal: near the centre); switch 'ruleset' to wh40k10 for "
                            "the 10th edition.")
    dump_data(copy.deepcopy(data), OUT / "plan-take-vs-take-02.yaml")
    print("wrote", OUT / "plan-take-vs-take-02.yaml")


if __name__ == "__main__":
    main()
