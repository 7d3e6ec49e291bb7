"""world.resolve derives the traits of a unit's plain models once per profile (issue 18 item 4,
branch labels5): the models that give something of their own (type, sub-types, rules, keywords,
abilities) are resolved on their own, and every model's traits are what resolving it alone gives."""

from __future__ import annotations

from planner.rules.registry import find_ruleset
from planner.schema import Scenario, SpecialRule, SubType, UnitType
from planner.world import resolve


def _scenario(models: list[dict], unit_extra: dict | None = None) -> Scenario:
    unit = {"id": "u", "models": models, **(unit_extra or {})}
    return Scenario.model_validate({
        "ruleset": "hh2", "battlefield": {"width": 72, "depth": 48},
        "deployment_zones": [{"id": "z", "player": "red", "polygon": [[0, 0], [72, 0], [72, 12], [0, 12]]}],
        "armies": [{"player": "red", "units": [unit]}]})


def _alone(model: dict, unit_extra: dict | None = None):
    """The model resolved as the only model of the unit (no traits shared with another)."""
    return resolve(_scenario([model], unit_extra), require_positions=True).units["u"].models[0]


def _traits(m):
    return (m.base, m.type, m.subtypes, m.rules, m.bulky, m.keywords, m.abilities, m.height_in, m.label)


def test_plain_and_own_models_of_one_unit_resolve_as_each_alone():
    models = [
        {"profile": "legion-outrider", "x": 10.0, "y": 5.0},
        {"profile": "legion-outrider", "x": 14.0, "y": 5.0, "rules": ["Infiltrate"]},
        {"profile": "legion-outrider", "x": 18.0, "y": 5.0},
        {"profile": "legion-outrider", "x": 22.0, "y": 5.0, "type": "Infantry", "subtypes": ["Heavy"]},
        {"profile": "legion-hussar", "x": 26.0, "y": 5.0},
        {"profile": "legion-outrider", "x": 30.0, "y": 5.0, "name": "the sergeant"},
    ]
    world = resolve(_scenario(models, {"rules": ["Scout"]}), require_positions=True)
    got = world.units["u"].models
    assert [m.id for m in got] == ["1", "2", "3", "4", "5", "6"]
    for m, spec in zip(got, models, strict=True):
        assert _traits(m) == _traits(_alone(spec, {"rules": ["Scout"]}))
        assert (m.x, m.y) == (spec["x"], spec["y"])
    # the values themselves: the profile's (Bike, Scout, Bulky 3) with the unit's and the model's own
    assert got[0].type is UnitType.CAVALRY and got[0].subtypes == frozenset({SubType.BIKE})
    assert got[0].bulky == 3 and SpecialRule.SCOUT in got[0].rules and SpecialRule.INFILTRATE not in got[0].rules
    assert SpecialRule.INFILTRATE in got[1].rules and SpecialRule.INFILTRATE not in got[2].rules
    assert got[3].type is UnitType.INFANTRY and got[3].subtypes == frozenset({SubType.HEAVY})
    assert got[2].type is UnitType.CAVALRY and got[2].subtypes == frozenset({SubType.BIKE})
    assert got[5].label == "the sergeant" and got[0].label != "the sergeant"


def test_a_generated_scene_resolves_as_its_models_alone():
    import json

    from planner.generate.distributions import GeneratorParams
    from planner.generate.engine import Job, run

    job = Job(5, ("legality",), None, GeneratorParams().model_dump(mode="json"))
    data = json.loads(next(iter(run(job, 0, 1, 1))))
    data.pop("label")
    world = resolve(Scenario.model_validate(data), require_positions=True)
    assert world.ruleset is find_ruleset("hh2")
    n = 0
    for army in data["armies"]:
        for u in army["units"]:
            extra = {k: v for k, v in u.items() if k not in ("id", "models", "setup")}
            for m, spec in zip(world.units[u["id"]].models, u["models"], strict=True):
                assert _traits(m) == _traits(_alone(spec, extra))
                n += 1
    assert n >= 10
