"""Fuzzing the loader, resolver and checker: mutated scenarios only ever raise PlannerError
subclasses; and the whole command line on the cases of :mod:`tests.fuzzing` (end of the file).

A valid scenario that exercises every set-up method is mutated by hypothesis (keys removed or
added, values replaced with wrong types, nan/inf/huge/negative numbers, random strings, list
items duplicated or dropped), then run through ``parse_record`` -> ``resolve`` -> ``check_deployment``.
"""

from __future__ import annotations

import copy
import math
import random
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from planner.errors import PlannerError
from planner.io.files import parse_record
from planner.legality.checker import check_deployment
from planner.schema import Scenario
from planner.world import resolve
from tests.fuzzing import OUTCOMES, duplicate_at, make_case, mutate_bytes, mutate_structure, run_case

# shapely warns about overflow while validating polygons with 1e308 coordinates; the loader then
# rejects them, which is what is tested
pytestmark = pytest.mark.filterwarnings("ignore:.*encountered in:RuntimeWarning")

BASE = {
    "ruleset": "hh2",
    "name": "fuzz base",
    "battlefield": {"width": 72, "depth": 48},
    "terrain": [
        {"id": "ruin", "footprint": [[30, 20], [34, 20], [34, 24], [30, 24]], "kind": "area",
         "traits": ["blocks_line_of_sight", "difficult"], "standing_in": "partly"},
        {"id": "wall", "footprint": [[20, 16], [40, 16], [40, 17], [20, 17]], "kind": "solid",
         "traits": ["blocks_line_of_sight"]},
        {"id": "bunker", "footprint": [[50, 22], [54, 22], [54, 26], [50, 26]], "kind": "solid",
         "building": {"capacity": 10}},
        {"id": "lava", "footprint": [[60, 10], [63, 10], [61, 13]], "kind": "open", "traits": ["impassable"]},
    ],
    "deployment_zones": [
        {"id": "red-dz", "player": "red", "polygon": [[0, 0], [72, 0], [72, 12], [0, 12]]},
        {"id": "blue-dz", "player": "blue", "polygon": [[0, 36], [72, 36], [72, 48], [0, 48]]},
    ],
    "objectives": [{"id": "obj1", "x": 36, "y": 24}],
    "armies": [
        {"player": "red", "units": [
            {"id": "squad", "type": "Infantry", "setup": {"method": "deployment_zone", "zone": "red-dz"},
             "models": [{"base": {"diameter_mm": 32}, "x": 10, "y": 5},
                        {"base": {"diameter_mm": 32}, "x": 11.5, "y": 5, "id": "sgt"}]},
            {"id": "captain", "type": "Infantry", "rules": ["Independent Character"],
             "setup": {"method": "deployment_zone", "joined": "squad"},
             "models": [{"base": {"diameter_mm": 40}, "x": 13.2, "y": 5}]},
            {"id": "recon", "type": "Infantry", "rules": ["Infiltrate", "Scout"],
             "setup": {"method": "scout", "first": "infiltrate", "from": [[36, 14], [37.5, 14, 90]], "order": 1},
             "models": [{"base": {"diameter_mm": 32}, "x": 36, "y": 18.5},
                        {"base": {"diameter_mm": 32}, "x": 37.5, "y": 18.5}]},
            {"id": "bikes", "type": "Cavalry", "subtypes": ["Bike"], "rules": ["Scout"],
             "setup": {"method": "scout", "from": [[5, 8, 0]]},
             "models": [{"base": {"shape": "oval", "length_mm": 75, "width_mm": 42}, "x": 12, "y": 14,
                         "facing": 45}]},
            {"id": "rhino", "type": "Vehicle", "rules": ["Transport", "Dedicated Transport"],
             "transport_capacity": 10,
             "models": [{"base": {"shape": "hull", "length_in": 4.5, "width_in": 3.0}, "x": 40, "y": 6,
                         "facing": 90}]},
            {"id": "cargo", "type": "Infantry", "setup": {"method": "embarked", "in": "rhino"},
             "models": [{"base": {"diameter_mm": 32}}, {"base": {"diameter_mm": 32}, "rules": ["Bulky (2)"]}]},
            {"id": "hidden", "type": "Infantry", "rules": ["Infiltrate"],
             "setup": {"method": "embarked", "in": "bunker", "first": "infiltrate"},
             "models": [{"base": {"diameter_mm": 25}}]},
        ]},
        {"player": "blue", "units": [
            {"id": "tacticals", "type": "Infantry",
             "models": [{"base": {"diameter_mm": 32}, "x": 36, "y": 40},
                        {"base": {"diameter_mm": 32}, "x": 38, "y": 40}]},
            {"id": "infiltrators", "type": "Infantry", "rules": ["Infiltrate"], "setup": {"method": "infiltrate",
                                                                                        "order": 2},
             "models": [{"base": {"diameter_mm": 25}, "x": 60, "y": 30}]},
            {"id": "deepstrikers", "type": "Infantry", "rules": ["Deep Strike"],
             "setup": {"method": "reserves", "arrival": "deep_strike"},
             "models": [{"base": {"diameter_mm": 40}}]},
            {"id": "walker", "type": "Dreadnought", "models": [{"base": {"diameter_mm": 60}, "x": 10, "y": 42}]},
        ]},
    ],
    "goals": [{"kind": "near_point", "x": 36, "y": 24, "weight": 2}],
}

FIELD_NAMES = [
    "ruleset", "name", "battlefield", "width", "depth", "terrain", "footprint", "kind", "traits", "standing_in",
    "building", "capacity", "deployment_zones", "polygon", "player", "objectives", "x", "y", "facing",
    "diameter_mm", "armies", "units", "models", "base", "shape", "length_mm", "width_mm", "length_in", "width_in",
    "type", "subtypes", "rules", "setup", "method", "zone", "first", "from", "in", "arrival", "joined", "order",
    "transport_capacity", "place", "profile", "id", "goals", "weight", "other_rules",
]
KNOWN_STRINGS = [
    "hh2", "infiltrate", "scout", "reserves", "embarked", "deployment_zone", "deep_strike", "outflank",
    "Infantry", "Cavalry", "Vehicle", "Dreadnought", "Automata", "Artillery", "Skirmish", "Close-order",
    "round", "oval", "hull", "area", "solid", "open", "wholly", "partly", "impassable", "blocks_line_of_sight",
    "squad", "captain", "recon", "rhino", "bunker", "red-dz", "blue-dz", "tacticals", "red", "blue", "ruin",
    "Infiltrate", "Scout", "Bulky (3)", "Bulky (x)", "Independent Character", "legion-tactical-marine",
    "legion-land-speeder", "near_point", "",
]

numbers = st.one_of(
    st.integers(min_value=-(10**20), max_value=10**20),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0, -0.0, 1e308, -1e308, 1e-320, math.nan, math.inf, -math.inf, 2**63, -1, 0.5, 1000, 1001,
                     72, 48, 2000, -1000]),
)
scalars = st.one_of(
    st.none(), st.booleans(), numbers, st.text(max_size=12), st.sampled_from(KNOWN_STRINGS),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.sampled_from(FIELD_NAMES) | st.text(max_size=6), inner, max_size=3),
        st.lists(st.lists(numbers, min_size=2, max_size=3), min_size=0, max_size=5),  # point lists
    ),
    max_leaves=8,
)


def _paths(node, prefix=()):
    """Every path (tuple of keys/indices) to a value inside ``node``, containers included."""
    yield prefix
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _paths(v, prefix + (i,))


def _get(node, path):
    for p in path:
        node = node[p]
    return node


SPECIAL_NUMBERS = [math.nan, math.inf, -math.inf, 1e308, -1e308, -1, 0, -0.0, 1e-320, 10**30, 2**63, 361, -361]


def _mutate(data, rng, draw) -> None:
    """One mutation. Where and what is chosen with ``rng`` (uniform over the choices, so rare
    fields are hit as often as common ones); wild values come from hypothesis strategies. Most
    mutations keep the file close to valid (a number or a name changed), so that the resolver
    and the checker see the odd values; the rest break its shape."""
    paths = list(_paths(data))
    op = rng.choice(["number"] * 10 + ["string"] * 3 + ["delete"] * 2 + ["duplicate"] * 2 + ["replace"] * 2
                    + ["add"])
    if op == "number":
        nums = [p for p in paths if p and isinstance(_get(data, p), int | float) and not isinstance(_get(data, p), bool)]
        if nums:
            # pick the kind of number first (x, facing, diameter_mm, a 'from' entry, ...), then one of
            # that kind: rare kinds are hit as often as the many model coordinates
            groups: dict[str, list] = {}
            for p in nums:
                groups.setdefault(next((k for k in reversed(p) if isinstance(k, str)), ""), []).append(p)
            path = rng.choice(groups[rng.choice(sorted(groups))])
            orig = _get(data, path)
            k = rng.random()
            if k < 0.5:  # a plausible nudge (may cross a threshold or an edge)
                new = orig + rng.uniform(-15, 15)
            elif k < 0.8:
                new = rng.choice(SPECIAL_NUMBERS)
            else:  # anything numeric
                new = draw(numbers)
            _get(data, path[:-1])[path[-1]] = new
            return
        op = "replace"
    if op == "string":
        strs = [p for p in paths if p and isinstance(_get(data, p), str)]
        if strs:
            path = rng.choice(strs)
            _get(data, path[:-1])[path[-1]] = rng.choice(KNOWN_STRINGS) if rng.random() < 0.7 else draw(
                st.text(max_size=8))
            return
        op = "replace"
    path = rng.choice(paths)
    if not path:
        op = "add"
    parent = _get(data, path[:-1]) if path else None
    key = path[-1] if path else None
    if op == "replace":
        parent[key] = draw(values)
    elif op == "delete":
        del parent[key]
    elif op == "duplicate":
        duplicate_at(data, path, rng)
    else:  # add a key to the nearest dict
        node = _get(data, path)
        if not isinstance(node, dict):
            node = parent if isinstance(parent, dict) else data
        node[rng.choice(FIELD_NAMES) if rng.random() < 0.7 else draw(st.text(max_size=8))] = draw(values)


def _pipeline(data, require_positions: bool) -> None:
    try:
        scenario = parse_record(Scenario, data)
        world = resolve(scenario, require_positions=require_positions)
        report = check_deployment(world)  # units still to be placed are skipped
        assert report.legal == (not report.violations)
        for u in report.units:
            for f in u.findings:
                # a nan or inf that got past the loader shows up as a non-finite measurement
                for v in (f.measured, f.margin):
                    assert v is None or math.isfinite(v), f"{u.unit}: {f.rule} measured {f.measured}: {f.message}"
    except PlannerError as exc:
        assert str(exc)  # a message for the user, never empty


def test_base_scenario_is_valid():
    world = resolve(parse_record(Scenario, copy.deepcopy(BASE)), require_positions=True)
    report = check_deployment(world)
    assert {u.unit for u in report.units} == {
        "squad", "captain", "recon", "bikes", "rhino", "cargo", "hidden", "tacticals", "infiltrators",
        "deepstrikers", "walker",
    }


@pytest.mark.slow
@settings(max_examples=500, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_mutated_scenarios_raise_only_planner_errors(data):
    rng = data.draw(st.randoms(use_true_random=True), label="rng")
    scenario = copy.deepcopy(BASE)
    for _ in range(rng.randint(1, 3)):
        _mutate(scenario, rng, data.draw)
    _pipeline(scenario, require_positions=rng.random() < 0.8)


def _numeric_paths(data):
    return [p for p in _paths(data)
            if p and isinstance(_get(data, p), int | float) and not isinstance(_get(data, p), bool)]


@pytest.mark.slow
def test_every_number_replaced_by_special_values():
    """Exhaustive companion of the random fuzz: each number of the base scenario in turn set to
    nan, +-inf, +-1e308, -1 and 0 (the random search reaches a rare field such as a 'from' facing
    only by luck)."""
    specials = [math.nan, math.inf, -math.inf, 1e308, -1e308, -1, 0]
    paths = _numeric_paths(BASE)
    assert len(paths) > 80
    for path in paths:
        for v in specials:
            data = copy.deepcopy(BASE)
            _get(data, path[:-1])[path[-1]] = v
            try:
                _pipeline(data, require_positions=True)
            except AssertionError as exc:
                raise AssertionError(f"{path} = {v}: {exc}") from None
            except Exception as exc:
                raise AssertionError(f"{path} = {v}: {type(exc).__name__}: {exc}") from exc


# --------------------------------------------------------------------------- the whole command line
# Cases of tests/fuzzing.py (structure-aware mutations of the bundled scenarios, byte-level
# mutations of YAML and roster XML) run through the real command line: every outcome is an exit
# code of the table (0-3), never an internal error (exit 4) or a bad output (a plan written with
# exit 0 that fails the checker, a picture that is not well-formed SVG, a JSON file that is not
# JSON). benchmarks/fuzz.py runs thousands of them with time and memory limits.

def fuzz_cases(command: str):
    """A hypothesis strategy of fuzz cases of ``command`` (hypothesis draws the random choices)."""
    return st.randoms(use_true_random=False).map(lambda rng: make_case(rng, command))


def _run(case) -> str:
    with tempfile.TemporaryDirectory(prefix="planner-fuzz-") as d:
        outcome, detail = run_case(case, Path(d))
    assert outcome in OUTCOMES
    assert outcome not in ("internal error", "bad output"), (
        f"{case.command} [{case.note}] {case.args}: {outcome}\n{detail}")
    return outcome


def cli_settings(n: int) -> settings:
    return settings(max_examples=n, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@cli_settings(120)
@given(case=fuzz_cases("load"))
def test_fuzz_load(case):
    _run(case)


@cli_settings(80)
@given(case=fuzz_cases("check"))
def test_fuzz_check(case):
    _run(case)


@cli_settings(120)
@given(case=fuzz_cases("import-roster"))
def test_fuzz_import_roster(case):
    _run(case)


@cli_settings(15)
@given(case=fuzz_cases("render"))
def test_fuzz_render(case):
    _run(case)


@cli_settings(12)
@given(case=fuzz_cases("threats"))
def test_fuzz_threats(case):
    _run(case)


@cli_settings(20)
@given(case=fuzz_cases("deepstrike"))
def test_fuzz_deepstrike(case):
    _run(case)


@cli_settings(6)
@given(case=fuzz_cases("plan"))
def test_fuzz_plan(case):
    _run(case)


def test_fuzz_cases_are_reproducible_and_varied():
    a = make_case(random.Random("0:7"))
    b = make_case(random.Random("0:7"))
    assert (a.command, a.args, a.files) == (b.command, b.args, b.files)
    commands = {make_case(random.Random(f"0:{i}")).command for i in range(200)}
    assert commands == {"load", "check", "plan", "render", "threats", "deepstrike", "import-roster"}
    rng = random.Random(3)
    ops = set()
    for _ in range(300):
        data = copy.deepcopy(BASE)
        ops.add(mutate_structure(data, rng))
    assert {"polygon", "cycle", "string", "number", "delete", "duplicate"} <= ops
    raw = b"ruleset: hh2\nbattlefield: {width: 72, depth: 48}\n"
    assert any(mutate_bytes(raw, rng, [b"&a "]) != raw for _ in range(5))


def test_the_fuzz_runner_sees_an_internal_error(monkeypatch):
    """The runner is not blind: a planted bug in the checker is an internal error, not an exit code."""
    import planner.legality.checker as checker

    monkeypatch.setattr(checker, "check_deployment", lambda world: 1 / 0)
    case = make_case(random.Random(1), "check")
    case.files = {"scenario.yaml": (Path(__file__).resolve().parents[1] / "scenarios"
                                    / "long-edge-ravenguard-vs-ironhands.yaml").read_bytes()}
    case.args = ["check", "{scenario.yaml}"]
    with tempfile.TemporaryDirectory() as d:
        outcome, detail = run_case(case, Path(d))
    assert outcome == "internal error" and "ZeroDivisionError" in detail
