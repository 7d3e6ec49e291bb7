"""Rule ids, both ways (issue 13, item 7): every rule id the code can emit is listed by ``planner
rules --ruleset X`` for its ruleset, and every listed id is emitted by at least one scenario here.

"Can emit" is read two ways:

- from the source: every rule id written in ``planner/`` outside ``planner/rules/`` (literal ids
  such as ``"hh2.infiltrate.hidden"`` and ``f"hh2.placement.one[{g.id}]"``; 40k names joined to the
  ruleset id, ``P + "coherency"``, ``f"{rs}.battlefield"``; Deep Strike names, ``rule_id("distance")``;
  templates whose name part is computed are expanded in :data:`TEMPLATES`, and a new template
  fails the test until it is added there);
- from running the code: checker findings over every bundled scenario with positions (the 40k ones
  under both editions) and over small scenarios built here, the planner's CP-SAT constraint names
  and infeasibility explanations, its goal terms, the Deep Strike landings and odds of every
  ruleset with a Deep Strike procedure, and ``embark_findings``.

Both readings must be listed; the second must cover the whole list.
"""

from __future__ import annotations

import ast
import json
import re
import tempfile
from functools import cache
from pathlib import Path

import pytest
from ortools.sat.python import cp_model
from typer.testing import CliRunner

from planner.cli import app
from planner.deepstrike import assault, procedure
from planner.errors import ScenarioError
from planner.legality.checker import check_deployment
from planner.legality.table import Table
from planner.legality.wh40k import edition, embark_findings
from planner.rules.registry import RULESETS
from planner.schema import Scenario
from planner.solve.goals import compile_goals
from planner.solve.planner import SolverSettings, plan_deployment
from planner.world import load_scenario, resolve
from tests.wh40k_helpers import R32, RED_LINE, dawn_of_war, model, unit

ROOT = Path(__file__).resolve().parents[1]
ID = re.compile(r"(?:hh2|wh40k\d+)\.[a-z][a-z0-9_]*(?:\.[a-z0-9_]+)*")
FORTY_K = ("wh40k10", "wh40k11")
SCATTER = ("wh40k5", "wh40k7")
SETTINGS = SolverSettings(time_limit_s=20, workers=1, seed=0, grid_in=1.0, candidates_per_unit=10)


@cache
def listed() -> dict[str, set[str]]:
    """``planner rules --ruleset X --json FILE`` for every registered ruleset: its rule ids."""
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        for rs in RULESETS:
            path = Path(tmp) / f"{rs}.json"
            r = CliRunner().invoke(app, ["rules", "--ruleset", rs, "--json", str(path)])
            assert r.exit_code == 0, r.output
            out[rs] = json.loads(path.read_text(encoding="utf-8"))
    for rs, rows in out.items():
        assert all(x["meaning"] and x["source"] for x in rows)
        assert len({x["rule"] for x in rows}) == len(rows), f"{rs}: an id listed twice"
    return {rs: {x["rule"] for x in rows} for rs, rows in out.items()}


def owner(rule_id: str) -> str:
    return rule_id.split(".", 1)[0]


# ------------------------------------------------------------------------------ the source
RULESET_EXPRS = {"rs", "ruleset", "R.ruleset", "self.ruleset", "sc.ruleset", "R.ID", "self.R.ID", "R.id", "self.R.id",
                 "rs.id", "scene.ruleset", "st.rules.ruleset"}
PREFIX_EXPRS = {"P", "self.P", "R.ID", "self.R.ID", "R.id", "self.R.id"}
TEMPLATES: dict[str, set[str]] = {
    # DeepStrikeRules.rule_id itself: every call of it is read below
    "{self.ruleset}.deepstrike.{what}": set(),
    # the 5th/7th mishap triggers, in findings and in the odds
    "R.rule_id(f'mishap.{trigger}')": {f"{rs}.deepstrike.mishap.{t}" for rs in SCATTER for t in procedure.TRIGGERS},
    "st.rules.rule_id(f'mishap.{t}')": {f"{rs}.deepstrike.mishap.{t}" for rs in SCATTER for t in procedure.TRIGGERS},
    # DeepStrikeRules.arrival_rule_id: the 10th/11th arrival's rules (planner check's ids), one table
    "{self.ruleset}.{dict(ARRIVAL_RULES)[trigger]}": {f"{rs}.{rule}" for rs in FORTY_K
                                                      for _, rule in procedure.ARRIVAL_RULES},
    # the HH2 Deep Strike Assault odds, one per trigger
    "{RULE}.{t}": {f"hh2.{assault.RULE}.{t}" for t in assault.ALL_TRIGGERS},
    "{st.rules.ruleset}.{RULE}": set(),  # the same ids: the ruleset, then the two parts above
    # the 40k cover goal names the edition's sight rule
    "{sc.ruleset}.visibility.{R40.VISIBILITY}": {f"{rs}.visibility.{edition(rs).VISIBILITY}" for rs in FORTY_K},
}
"""Rule ids built with a computed name part, and what each can give."""


def _name(node: ast.AST) -> str:
    return ast.unparse(node)


@cache
def written() -> tuple[frozenset[str], frozenset[str], frozenset[str], frozenset[str]]:
    """(full rule ids, names joined to a ruleset id, prefix constants, templates) in planner/."""
    full, suffixes, prefixes, templates = set(), set(), set(), set()
    for path in sorted((ROOT / "planner").rglob("*.py")):
        if path.relative_to(ROOT / "planner").parts[0] == "rules":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        consts = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Assign)
                  and all(isinstance(t, ast.Name) and t.id.isupper() for t in n.targets)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and ID.fullmatch(node.value):
                (prefixes if id(node) in consts else full).add(node.value)
            elif isinstance(node, ast.JoinedStr) and node.values:
                vals = node.values
                if isinstance(vals[0], ast.Constant):  # f"hh2.placement.one[{g.id}]"
                    m = re.match(rf"({ID.pattern})(\[|$)", vals[0].value)
                    if m and (m.group(2) == "[" or len(vals) == 1):
                        full.add(m.group(1))
                    elif re.match(r"(?:hh2|wh40k\d+)\.", vals[0].value):
                        templates.add(_name(node))
                for k in range(len(vals) - 1):  # f"... {rs}.battlefield ...", f"{RULE}.{t}"
                    v, c = vals[k], vals[k + 1]
                    if not (isinstance(v, ast.FormattedValue) and _name(v.value) in RULESET_EXPRS | {"RULE"}
                            and isinstance(c, ast.Constant) and c.value.startswith(".")):
                        continue
                    rest = c.value[1:]
                    name = re.match(r"(?:[a-z][a-z0-9_]*(?:\.[a-z0-9_]+)*)?", rest).group(0)
                    if rest in (name, name + ".") and k + 2 < len(vals):  # the name goes on, computed
                        templates.add(f"{{{_name(v.value)}}}.{rest}{{{_name(vals[k + 2].value)}}}")
                    elif name:
                        suffixes.add(name)
            elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add) and _name(node.left) in PREFIX_EXPRS \
                    and isinstance(node.right, ast.Constant) and isinstance(node.right.value, str) \
                    and node.right.value.strip("."):  # (R.ID + "." is the prefix itself)
                suffixes.add(node.right.value.lstrip("."))
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "rid" \
                    and node.args and isinstance(node.args[0], ast.Constant):  # rs.rid("infiltrate.hidden")
                suffixes.add(node.args[0].value)
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "rule_id" \
                    and node.args:
                arg = node.args[0]
                if isinstance(arg, ast.Constant):
                    suffixes.add(f"deepstrike.{arg.value}")
                else:
                    templates.add(_name(node))
    return frozenset(full), frozenset(suffixes), frozenset(prefixes), frozenset(templates)


def test_the_source_scan_finds_the_rule_ids_it_should():
    """The scan is not empty-handed: each form of rule id in the source is read."""
    full, suffixes, prefixes, templates = written()
    assert {"infiltrate.hidden", "placement.one", "bases.no_overlap", "scout.more_than_9"} <= suffixes
    assert {"coherency", "battlefield", "placement.one", "deepstrike.eligible", "deepstrike.distance",
            "scouts.distance"} <= suffixes
    assert not full and not prefixes  # every id is the ruleset's: none is written out whole
    assert {"{RULE}.{t}", "{sc.ruleset}.visibility.{R40.VISIBILITY}"} <= templates
    assert {"objective.range", "cover"} <= suffixes


def test_every_rule_id_written_in_the_source_is_listed():
    full, suffixes, prefixes, templates = written()
    ids = listed()
    assert not {t for t in templates if t not in TEMPLATES}, "add the template's expansion to TEMPLATES"
    unlisted = {r for r in full if r not in ids.get(owner(r), set())}
    unlisted |= {r for t in templates for r in TEMPLATES[t] if r not in ids.get(owner(r), set())}
    assert not unlisted
    # a name joined to a ruleset id is listed under some ruleset (which one: the scenarios below)
    every = set().union(*ids.values())
    assert not {s for s in suffixes if not any(f"{rs}.{s}" in every for rs in RULESETS)}
    assert all(any(r.startswith(p + ".") for r in ids["hh2"]) for p in prefixes)


# ------------------------------------------------------------------------------ running the code
def _hh2(red, blue, terrain=(), goals=()):
    return {"ruleset": "hh2", "battlefield": {"width": 72, "depth": 48}, "terrain": list(terrain),
            "goals": list(goals),
            "deployment_zones": [{"id": "red-dz", "player": "red", "polygon": [[0, 0], [72, 0], [72, 12], [0, 12]]},
                                 {"id": "blue-dz", "player": "blue",
                                  "polygon": [[0, 36], [72, 36], [72, 48], [0, 48]]}],
            "armies": [{"player": "red", "units": list(red)}, {"player": "blue", "units": list(blue)}]}


def _m(x=None, y=None, d=32):
    return {"base": {"diameter_mm": d}} | ({"x": x, "y": y} if x is not None else {})


BUNKER = {"id": "bunker", "kind": "solid", "traits": ["blocks_line_of_sight"], "building": {"capacity": 10},
          "footprint": [[30, 20], [36, 20], [36, 24], [30, 24]]}


def _hh2_checks() -> list[dict]:
    """What the bundled hh2 scenarios do not show: an Infiltrator set up in a Building."""
    inside = {"id": "hidden", "type": "Infantry", "rules": ["Infiltrate"],
              "setup": {"method": "embarked", "in": "bunker", "first": "infiltrate"}, "models": [_m()]}
    ward = {"id": "ward", "type": "Infantry", "models": [_m(10, 5)],
            "restrictions": [{"within_in": 12, "methods": ["deployment"], "source": "test"}]}
    return [_hh2([{"id": "tac", "type": "Infantry", "models": [_m(10, 5)]}], [inside], terrain=[BUNKER]),
            _hh2([ward], [{"id": "blues", "type": "Infantry", "models": [_m(10, 40)]}])]


def _w40(ruleset, blue, red=(RED_LINE,), **extra) -> dict:
    return {"ruleset": ruleset, "battlefield": {"width": 60, "depth": 44}, "deployment_zones": dawn_of_war(),
            "armies": [{"player": "blue", "units": list(blue)}, {"player": "red", "units": list(red)}], **extra}


def _arrive(uid, x, y, arrival="reserves", rnd=2, abilities=()):
    return unit(uid, [model(x, y)], abilities=list(abilities),
                setup={"method": "reserves", "arrival": arrival, "battle_round": rnd})


def _40k_checks(ruleset) -> list[dict]:
    """What the bundled 40k scenarios do not show, in one edition."""
    rhino = unit("rhino", [{"profile": "sm-rhino", "x": 30, "y": 6}], keywords=[])
    full = unit("m", [{"profile": "sm-intercessor"} for _ in range(13)], setup={"method": "embarked", "in": "rhino"})
    necrons = unit("n", [{"profile": "necron-warrior"}], setup={"method": "embarked", "in": "rhino"})
    fort = unit("fort", [model(None, None, 100)], keywords=["FORTIFICATION"], setup="reserves")
    return [
        _w40(ruleset, [unit("a", [model(30, 5)]), unit("b", [model(30 + 2 * R32 - 0.01, 5)])]),
        _w40(ruleset, [rhino, full]),
        _w40(ruleset, [rhino, necrons]),
        _w40(ruleset, [fort]),
        _w40(ruleset, [_arrive("mid", 30, 22), _arrive("corner", 3, 33), _arrive("ds", 40, 20, "deep_strike")]),
        _w40(ruleset, [unit("big", [model(30, 85 / 25.4, 170)], setup={"method": "reserves", "battle_round": 2})]),
        _w40(ruleset, [unit("ward", [model(30, 5)], restrictions=[
            {"within_in": 12, "methods": ["deployment"], "source": "test"}])]),
    ]


def _record_constraint_names(monkeypatch) -> set[str]:
    names: set[str] = set()
    orig = cp_model.Constraint.with_name

    def with_name(self, name):
        names.add(name.split("[", 1)[0])
        return orig(self, name)

    monkeypatch.setattr(cp_model.Constraint, "with_name", with_name)
    return names


def _plans() -> list[dict]:
    """For each planning ruleset: two units that could overlap (feasible), and an Infiltrator with
    no legal place (infeasible, explained)."""
    out = []
    enemy = [{"id": f"e{i}{j}", "type": "Infantry", "models": [_m(4 + 8 * i, 4 + 8 * j)]}
             for i in range(9) for j in range(6)]
    pair = [{"id": u, "type": "Infantry", "place": True, "models": [_m(), _m()]} for u in ("sq1", "sq2")]
    out.append(_hh2([{"id": "tac", "type": "Infantry", "models": [_m(36, 6)]}], pair,
                    goals=[{"kind": "near_point", "x": 36, "y": 40}]))
    out.append(_hh2(enemy, [{"id": "inf", "type": "Infantry", "rules": ["Infiltrate"], "setup": "infiltrate",
                             "place": True, "models": [_m()]}]))
    for rs in FORTY_K:
        pair40 = [unit(u, [model(None, None), model(None, None)], place=True) for u in ("sq1", "sq2")]
        out.append(_w40(rs, pair40, goals=[{"kind": "near_point", "x": 30, "y": 12}]))
        zones = [{"id": "blue-dz", "player": "blue", "polygon": [[0, 0], [60, 0], [60, 8], [0, 8]]},
                 {"id": "red-dz", "player": "red", "polygon": [[0, 8], [60, 8], [60, 44], [0, 44]]}]
        inf = unit("inf", [model(None, None)], abilities=["Infiltrators"], setup="infiltrate", place=True)
        out.append(_w40(rs, [inf], red=[unit("red-line", [model(30, 40)])]) | {"deployment_zones": zones})
    return out


def _goal_terms(ruleset) -> set[str]:
    """The 40k goals' terms name the rules they measure."""
    data = _w40(ruleset, [unit("sq", [model(None, None)], place=True)],
                objectives=[{"id": "c", "x": 30, "y": 22}],
                goals=[{"kind": "objective", "objective": "c"}, {"kind": "cover", "against": "red-line"}])
    w = resolve(Scenario.model_validate(data))
    terms = compile_goals(w, Table(w), "blue", {"sq"})
    return {m for t in terms for m in ID.findall(t.name)}


def _deepstrike() -> set[str]:
    """Landings and odds of every ruleset with a Deep Strike procedure: each trigger once."""
    out: set[str] = set()
    for rs in RULESETS:
        data = {"ruleset": rs, "battlefield": {"width": 72, "depth": 48},
                "terrain": [{"id": "rock", "kind": "solid", "traits": ["impassable"],
                             "footprint": [[50, 20], [56, 20], [56, 26], [50, 26]]},
                            {"id": "mud", "kind": "area", "traits": ["difficult"],
                             "footprint": [[10, 30], [20, 30], [20, 40], [10, 40]]}],
                "armies": [{"player": "blue", "units": [
                    {"id": "ds", "type": "Infantry", "rules": ["Deep Strike"], "abilities": ["Deep Strike"],
                     "setup": {"method": "reserves", "arrival": "deep_strike"}, "models": [_m() for _ in range(3)]},
                    {"id": "mine", "type": "Infantry", "models": [_m(36, 10)]}]},
                    {"player": "red", "units": [{"id": "foe", "type": "Infantry", "models": [_m(36, 30)]}]}]}
        if not rs.startswith("wh40k"):
            data["armies"][0]["units"][0].pop("abilities")
        w = resolve(Scenario.model_validate(data))
        try:
            st = procedure.make_setup(w, "ds")
        except ScenarioError:
            continue  # no Deep Strike procedure for this ruleset
        if st.rules.procedure == "assault":
            out |= set(assault.assault_odds(st, 36, 24).triggers)
            # a restriction on Deep Strike arrivals adds its relocation trigger
            data["armies"][1]["units"][0]["restrictions"] = [{"within_in": 3, "methods": ["deep_strike"], "source": "t"}]
            st = procedure.make_setup(resolve(Scenario.model_validate(data)), "ds")
            out |= set(assault.assault_odds(st, 36, 24).triggers)
            continue
        for x, y in ((0.2, 24), (53, 23), (36, 10), (37.5, 30), (15, 35), (36, 24)):
            out |= {f.rule for f in procedure.judge_landing(st, x, y).findings}
        if st.rules.scatter:
            out |= set(procedure.odds(st, 36, 24).triggers)
    return out


@pytest.fixture(scope="module")
def emitted() -> dict[str, str]:
    return emitted_ids()


@cache
def emitted_ids() -> dict[str, str]:
    """Every rule id the runs below emit -> where it was first seen."""
    mp = pytest.MonkeyPatch()
    names = _record_constraint_names(mp)
    seen: dict[str, str] = {}

    def note(ids, where: str) -> None:
        for r in ids:
            seen.setdefault(r, where)

    try:
        files = sorted([*ROOT.glob("scenarios/**/*.yaml"), *ROOT.glob("tests/assets/*.yaml")])
        for f in files:
            try:
                w = load_scenario(f, require_positions=True)
            except ScenarioError:
                continue  # a scenario to plan: positions come from the planner
            rulesets = FORTY_K if w.scenario.ruleset in FORTY_K else (w.scenario.ruleset,)
            for rs in rulesets:
                w2 = resolve(w.scenario.model_copy(update={"ruleset": rs}), str(f), require_positions=True)
                note((x.rule for u in check_deployment(w2).units for x in u.findings), f"check {f.name} as {rs}")
        built = _hh2_checks() + [d for rs in FORTY_K for d in _40k_checks(rs)]
        for k, data in enumerate(built):
            r = check_deployment(resolve(Scenario.model_validate(data), require_positions=True))
            note((x.rule for u in r.units for x in u.findings), f"built scenario {k} ({data['ruleset']})")
        for rs in FORTY_K:
            w = resolve(Scenario.model_validate(_w40(rs, [
                unit("rhino", [{"profile": "sm-rhino", "x": 30, "y": 6}], keywords=[]),
                unit("m", [{"profile": "sm-intercessor", "x": 30, "y": 10}])])), require_positions=True)
            note((f.rule for f in embark_findings(w, "m", "rhino", set_up_this_turn=True)), f"embark ({rs})")
            note(_goal_terms(rs), f"goal terms ({rs})")
        for k, data in enumerate(_plans()):
            before = set(names)
            res = plan_deployment(resolve(Scenario.model_validate(data)), SETTINGS)
            assert res.status in ("optimal", "infeasible"), res.message
            note(names - before, f"CP-SAT constraint names, plan {k} ({data['ruleset']})")
            note((r for c in res.conflicts for r in c.rules), f"infeasibility explanation, plan {k}")
            if res.legality is not None:
                note((x.rule for u in res.legality.units for x in u.findings), f"plan {k} re-check")
        note(_deepstrike(), "deepstrike")
    finally:
        mp.undo()
    return seen


def test_every_emitted_rule_id_is_listed_for_its_ruleset(emitted):
    ids = listed()
    unlisted = {r: where for r, where in emitted.items() if ID.fullmatch(r) and r not in ids.get(owner(r), set())}
    assert not unlisted
    # constraint names without a ruleset prefix are the planner's own goals, not rules
    assert {r for r in emitted if not ID.fullmatch(r)} <= {"reply", "protect"}


@pytest.mark.parametrize("ruleset", sorted(RULESETS))
def test_every_listed_rule_id_is_emitted(emitted, ruleset):
    assert sorted(listed()[ruleset] - set(emitted)) == []
