"""The generator's scenarios built without validation (``planner.generate.trusted``) are the
records validation makes, and the single-footprint path of ``nearest_distance`` is the loop's
value (issue 18 item 4, branch labels6). The lines themselves are pinned in test_generate_bytes."""

from __future__ import annotations

import copy
import math

import numpy as np
import pytest
from pydantic import BaseModel, ValidationError

import planner.generate.deepstrike as gen_deepstrike
import planner.generate.legality as gen_legality
from planner.generate import trusted
from planner.generate.distributions import GeneratorParams
from planner.generate.engine import Job, run
from planner.generate.scene import nearest_distance
from planner.geometry.shapes import footprint, signed_distance
from planner.schema import HullBase, OvalBase, RoundBase, Scenario

SMALL = {"units_min": 1, "units_max": 2, "infantry_models": [5, 8]}
DS40K = {"deepstrike_rulesets": ["wh40k10", "wh40k11", "wh40k7"]}


def _difference(a: object, b: object, path: str = "$") -> str | None:
    """Where two values differ in type, value, or (records) fields set, extra or private; None if nowhere."""
    if type(a) is not type(b):
        return f"{path}: {type(a).__name__} vs {type(b).__name__}"
    if isinstance(a, BaseModel):
        assert isinstance(b, BaseModel)
        if a.model_fields_set != b.model_fields_set:
            return f"{path}: fields set {sorted(a.model_fields_set)} vs {sorted(b.model_fields_set)}"
        if (a.__pydantic_extra__, a.__pydantic_private__) != (b.__pydantic_extra__, b.__pydantic_private__):
            return f"{path}: extra or private"
        if list(a.__dict__) != list(b.__dict__):
            return f"{path}: fields {list(a.__dict__)} vs {list(b.__dict__)}"
        return next((d for k in a.__dict__ if (d := _difference(a.__dict__[k], b.__dict__[k], f"{path}.{k}"))), None)
    if isinstance(a, (list, tuple)):
        assert isinstance(b, (list, tuple))
        if len(a) != len(b):
            return f"{path}: {len(a)} vs {len(b)} items"
        return next((d for i, (x, y) in enumerate(zip(a, b, strict=True)) if (d := _difference(x, y, f"{path}[{i}]"))),
                    None)
    if isinstance(a, dict):
        assert isinstance(b, dict)
        if list(a) != list(b):
            return f"{path}: keys {list(a)} vs {list(b)}"
        return next((d for k in a if (d := _difference(a[k], b[k], f"{path}[{k!r}]"))), None)
    return None if repr(a) == repr(b) else f"{path}: {a!r} vs {b!r}"


def _scenes(monkeypatch, module, kinds, params, count, seed=5) -> list[dict]:
    """The data of every scenario the generator labels in ``count`` lines (copies, as given)."""
    seen: list[dict] = []
    real = trusted.generated_scenario

    def spy(data):
        seen.append(copy.deepcopy(data))
        return real(data)

    monkeypatch.setattr(module, "generated_scenario", spy)
    list(run(Job(seed, kinds, None, GeneratorParams(**params).model_dump(mode="json")), 0, count, 1))
    assert len(seen) == count
    return seen


@pytest.mark.parametrize(("module", "kinds", "params", "count"), [
    (gen_legality, ("legality",), {}, 8),
    (gen_legality, ("legality",), SMALL, 12),
    (gen_deepstrike, ("deepstrike",), DS40K, 4),
])
def test_a_generated_scenario_is_the_record_validation_makes(monkeypatch, module, kinds, params, count):
    for data in _scenes(monkeypatch, module, kinds, params, count):
        built = trusted._scenario(data)  # the fast path itself: these scenes never fall back
        valid = Scenario.model_validate(data)
        assert _difference(built, valid) is None
        assert built == valid
        assert built.model_dump_json() == valid.model_dump_json()
        assert trusted.generated_scenario(data) == valid


def _scene() -> dict:
    return {"ruleset": "hh2", "name": "n", "battlefield": {"width": 72.0, "depth": 48.0},
            "terrain": [{"id": "t1", "name": "ruin", "kind": "area", "traits": ["blocks_line_of_sight"],
                         "footprint": [[10.0, 10.0], [14.0, 10.0], [14.0, 14.0], [10.0, 14.0]]}],
            "deployment_zones": [{"id": "red-zone", "player": "red",
                                  "polygon": [[0.0, 0.0], [72.0, 0.0], [72.0, 12.0], [0.0, 12.0]]}],
            "armies": [{"player": "red", "units": [
                {"id": "u", "name": "U", "setup": {"method": "deployment_zone", "zone": "red-zone"},
                 "models": [{"profile": "legion-tactical-marine", "x": 5.0, "y": 5.0, "facing": 90.0}]}]}]}


@pytest.mark.parametrize(("where", "value"), [
    (("name",), "bad\x07name"),                                       # a control character: refused
    (("armies", 0, "units", 0, "id"), "u\u202e"),                     # a bidirectional override in an id
    (("armies", 0, "units", 0, "models", 0, "x"), math.inf),          # not finite
    (("armies", 0, "units", 0, "models", 0, "facing"), 400.0),         # out of range
    (("battlefield", "width"), -1.0),
    (("terrain", 0, "footprint"), [[0.0, 0.0], [4.0, 4.0], [4.0, 0.0], [0.0, 4.0]]),  # self-crossing
    (("terrain", 0, "kind"), "lava"),
    (("armies", 0, "units", 0, "rules"), ["Not A Rule"]),
    (("armies", 0, "units", 0, "models"), []),
])
def test_what_validation_refuses_is_refused(where, value):
    data = _scene()
    assert trusted._scenario(copy.deepcopy(data)) == Scenario.model_validate(data)
    node = data
    for k in where[:-1]:
        node = node[k]
    node[where[-1]] = value
    with pytest.raises(trusted._Untrusted):
        trusted._scenario(data)
    with pytest.raises(ValidationError):
        trusted.generated_scenario(data)


def test_other_shapes_of_data_are_validated_as_before():
    data = _scene()
    data["armies"][0]["units"][0]["keywords"] = ["INFANTRY"]  # a key the fast path does not build
    data["objectives"] = [{"id": "o", "x": 1.0, "y": 1.0}]
    with pytest.raises(trusted._Untrusted):
        trusted._scenario(data)
    assert _difference(trusted.generated_scenario(data), Scenario.model_validate(data)) is None
    data["armies"][0]["units"][0]["models"][0]["x"] = 5  # an int: validated (a Num keeps it as written)
    del data["armies"][0]["units"][0]["keywords"]
    del data["objectives"]
    with pytest.raises(trusted._Untrusted):
        trusted._scenario(data)
    assert _difference(trusted.generated_scenario(data), Scenario.model_validate(data)) is None


def _loop(fps, others) -> float:
    """``nearest_distance`` as it was: every pair by its lower bound, the general loop (the oracle of
    this file and test_labels8)."""
    if not others:
        return math.inf
    a = np.array([[f.cx, f.cy, f.outer_radius] for f in fps])
    b = np.array([[f.cx, f.cy, f.outer_radius] for f in others])
    lb = np.hypot(a[:, None, 0] - b[None, :, 0], a[:, None, 1] - b[None, :, 1]) - a[:, None, 2] - b[None, :, 2]
    best = math.inf
    for k in np.argsort(lb, axis=None):
        i, j = divmod(int(k), len(others))
        if lb[i, j] >= best:
            break
        best = min(best, signed_distance(fps[i], others[j]))
    return best


def test_nearest_distance_of_one_footprint_is_the_loops_value():
    rng = np.random.default_rng(18)
    bases = [RoundBase(diameter_mm=32), RoundBase(diameter_mm=25), OvalBase(length_mm=105, width_mm=70),
             HullBase(length_in=5.0, width_in=3.0)]
    fast = 0
    for trial in range(250):
        n = int(rng.integers(1, 12))
        others = [footprint(bases[int(rng.integers(4))], float(rng.uniform(0, 20)), float(rng.uniform(0, 20)),
                            float(rng.uniform(0, 360))) for _ in range(n)]
        if trial % 5 == 0:  # ties: the same footprint twice, and two at one distance
            others.append(others[0])
        base = bases[int(rng.integers(4))]
        me = [footprint(base, float(rng.uniform(-5, 25)), float(rng.uniform(-5, 25)), float(rng.uniform(0, 360)))]
        got, want = nearest_distance(me, others), _loop(me, others)
        assert repr(got) == repr(want)
        if trial % 5:
            fast += 1
        # several footprints: the loop itself
        two = me + [footprint(base, float(rng.uniform(0, 20)), float(rng.uniform(0, 20)), 90.0)]
        assert repr(nearest_distance(two, others)) == repr(_loop(two, others))
    assert fast > 0
    assert nearest_distance(me, []) == math.inf
