"""Issue 18 item 4, ninth pass: each shortcut against what it replaces (the same records, the
same values, the same errors). The generated lines themselves are pinned in test_generate_bytes."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from planner.generate.engine import item_rng
from planner.legality.report import _EVIDENCE_TEXT, Evidence, make_evidence
from planner.rules.registry import all_rulesets
from planner.schema import RoundBase, SpecialRule, SubType, UnitType
from planner.world import ModelInfo, _model_info

# --------------------------------------------------------------------------- resolved models

_values = st.tuples(
    st.text(max_size=8),
    st.integers(0, 50),
    st.text(min_size=1, max_size=4),
    st.text(max_size=8),
    st.sampled_from([RoundBase(diameter_mm=25.0), RoundBase(diameter_mm=32.0)]),
    st.sampled_from(list(UnitType)),
    st.frozensets(st.sampled_from(list(SubType)), max_size=3),
    st.frozensets(st.sampled_from(list(SpecialRule)), max_size=3),
    st.integers(1, 3),
    st.one_of(st.none(), st.floats(-10, 80)),
    st.one_of(st.none(), st.floats(-10, 80)),
    st.floats(-360, 360),
    st.frozensets(st.text(max_size=6), max_size=2),
    st.just((("Scouts", 6.0),)),
    st.floats(0, 5),
    st.one_of(st.none(), st.floats(0.5, 10)),
)


@settings(max_examples=60, deadline=None)
@given(_values)
def test_model_info_is_the_dataclass_made_by_its_constructor(values: tuple) -> None:
    """The same object as ``ModelInfo(*values)``: equal, every field the same value in the same
    order, still frozen."""
    made, built = _model_info(*values), ModelInfo(*values)
    assert type(made) is ModelInfo
    assert made == built
    assert [getattr(made, f.name) for f in dataclasses.fields(ModelInfo)] == list(values)
    assert list(made.__dict__) == list(built.__dict__)
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.x = 1.0  # type: ignore[misc]


def test_model_info_needs_every_field() -> None:
    values = (
        "u",
        0,
        "1",
        "",
        RoundBase(diameter_mm=32.0),
        UnitType.INFANTRY,
        frozenset(),
        frozenset(),
        1,
        1.0,
        2.0,
        90.0,
    )
    with pytest.raises(ValueError):
        _model_info(*values)  # the four fields with defaults left out: the constructor would fill them
    assert len(dataclasses.fields(ModelInfo)) == len(values) + 4


# --------------------------------------------------------------------------- evidence


_text_fields = st.dictionaries(st.sampled_from(sorted(_EVIDENCE_TEXT)), st.text(max_size=12), max_size=4)


@settings(max_examples=80, deadline=None)
@given(_text_fields)
def test_evidence_of_text_is_the_validated_record(values: dict) -> None:
    """Text fields given as text: the record ``Evidence(**values)`` validates to (values, field
    order, fields set, JSON), with its own new lists."""
    made, valid = make_evidence(**values), Evidence(**values)
    assert made == valid
    assert list(made.__dict__.items()) == list(valid.__dict__.items())
    assert made.model_fields_set == valid.model_fields_set == set(values)
    assert made.model_dump_json() == valid.model_dump_json()
    assert made.observer_units is not make_evidence(**values).observer_units


@pytest.mark.parametrize(
    "values",
    [
        {"model": None},  # None given: a field set, through validation
        {"observer_units": ["red-1"], "model": "1"},  # a list
        {"sight_line": [(0.0, 1.0), (2.0, 3.0)]},
        {"model": 3},  # not text: validation refuses it
        {"colour": "red"},  # not a field: refused
    ],
)
def test_other_evidence_is_validated(values: dict) -> None:
    """Anything else goes through validation: the same record, or the same error."""
    try:
        valid = Evidence(**values)
    except ValidationError as e:
        with pytest.raises(ValidationError) as got:
            make_evidence(**values)
        assert got.value.errors() == e.errors()
        return
    made = make_evidence(**values)
    assert made == valid and made.model_fields_set == valid.model_fields_set


def test_a_text_subclass_is_validated() -> None:
    class Name(str):
        pass

    made = make_evidence(model=Name("1"))
    assert type(made.model) is type(Evidence(model=Name("1")).model)


def test_no_evidence_is_the_default_record() -> None:
    assert make_evidence() == Evidence() and make_evidence().model_fields_set == set()


# --------------------------------------------------------------------------- rule ids


def test_rid_is_the_ruleset_prefix_and_refuses_unlisted_rules() -> None:
    for rs in all_rulesets():
        for info in rs.RULE_TABLE:
            assert rs.rid(info.id) == f"{rs.id}.{info.id}"
        with pytest.raises(KeyError, match=rf"{rs.id}\.no\.such\.rule"):
            rs.rid("no.such.rule")


# --------------------------------------------------------------------------- item streams


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**63), st.integers(0, 10**8))
def test_item_rng_is_numpys_default_generator(seed: int, index: int) -> None:
    """The stream ``default_rng(SeedSequence(seed, spawn_key=(index,)))`` gives: the same bit
    generator, state and draws."""
    mine, numpys = (
        item_rng(seed, index),
        np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(index,))),
    )
    assert type(mine.bit_generator) is type(numpys.bit_generator)
    assert mine.bit_generator.state == numpys.bit_generator.state
    assert mine.random(5).tolist() == numpys.random(5).tolist()
    assert mine.integers(0, 1000, 5).tolist() == numpys.integers(0, 1000, 5).tolist()


# --------------------------------------------------------------------------- standing in a feature


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(st.floats(0, 60), st.floats(0, 40), st.floats(0.5, 8), st.floats(0.5, 8)),
        min_size=1,
        max_size=6,
    ),
    st.floats(0, 60),
    st.floats(0, 40),
    st.floats(0.4, 1.0),
)
def test_one_call_measures_each_blocker_as_one_by_one(rects, x: float, y: float, rt: float) -> None:
    """``_behind_corner``'s test of standing in (or touching) a blocker, in one shapely call over
    the blockers: the same distances, so the same verdict, as one call per blocker."""
    blockers = [shapely.box(x0, y0, x0 + w, y0 + h) for x0, y0, w, h in rects]
    one_by_one = [shapely.distance(b, shapely.Point(x, y)) for b in blockers]
    together = shapely.distance(np.array(blockers, dtype=object), shapely.Point(x, y)).tolist()
    assert together == one_by_one
    assert bool((np.array(together) < rt + 0.05).any()) is any(d < rt + 0.05 for d in one_by_one)
    assert all(math.isfinite(d) for d in together)


# --------------------------------------------------------------------------- records without validation


def _record_classes() -> list[type]:
    from pydantic import BaseModel

    from planner import schema
    from planner.legality import report

    out: list[type] = []
    for mod in (schema, report):
        out += [
            c
            for c in vars(mod).values()
            if isinstance(c, type) and issubclass(c, BaseModel) and c is not BaseModel
        ]
    return out


def test_trusted_records_set_the_slots_object_setattr_sets() -> None:
    """``_trusted`` sets a record's four slots by their descriptors: the same instance as the
    ``object.__setattr__`` calls it replaced (no record class has a ``__new__`` of its own)."""
    from planner.legality.report import _trusted

    classes = _record_classes()
    assert len(classes) > 20
    for cls in classes:
        assert cls.__new__ is object.__new__, cls
    values = {
        "nearest_enemy_unit": "red-1",
        "nearest_enemy_model": "2",
        "model": "1",
        "observer_units": ["red-1"],
        "seen_by": None,
        "sight_line": None,
        "blocking_features": [],
        "sight_passes": [],
        "other_model": None,
        "terrain_feature": None,
        "note": None,
    }
    old = object.__new__(Evidence)
    object.__setattr__(old, "__dict__", dict(values))
    object.__setattr__(old, "__pydantic_fields_set__", {"model"})
    object.__setattr__(old, "__pydantic_extra__", None)
    object.__setattr__(old, "__pydantic_private__", None)
    new = _trusted(Evidence, dict(values), {"model"})
    assert new == old and new.__dict__ == old.__dict__ and new.model_fields_set == old.model_fields_set
    assert new.__pydantic_extra__ is None and new.__pydantic_private__ is None
    assert new.model_dump_json() == old.model_dump_json() == Evidence(**values).model_dump_json()


@settings(max_examples=30, deadline=None)
@given(st.floats(1.0, 200.0), st.floats(1.0, 200.0))
def test_one_battlefield_box_per_size_is_the_box(width: float, depth: float) -> None:
    """The shared battlefield is ``box(0, 0, width, depth)`` (the same WKB), one object per size."""
    from planner.geometry.shapes import battlefield_box

    got = battlefield_box(width, depth)
    assert got.wkb == shapely.box(0.0, 0.0, width, depth).wkb
    assert battlefield_box(width, depth) is got


def test_the_generators_scene_and_the_checkers_table_share_the_battlefield() -> None:
    from planner.generate.distributions import GeneratorParams
    from planner.generate.scene import base_scene
    from planner.generate.trusted import generated_scenario
    from planner.legality.table import Table
    from planner.world import resolve

    scene = base_scene(item_rng(1, 0), GeneratorParams(), "hh2")
    table = Table(resolve(generated_scenario(scene.data()), require_positions=True))
    assert table.battlefield is scene.table
    assert table.battlefield.bounds == (0.0, 0.0, scene.width, scene.depth)


def test_a_finding_without_evidence_holds_the_default_record() -> None:
    from planner.legality.report import _evidence_defaults, _no_evidence

    assert _no_evidence() == Evidence() and _no_evidence().model_fields_set == set()
    assert list(_evidence_defaults()) == list(Evidence.model_fields)
    assert _no_evidence().observer_units is not _no_evidence().observer_units
