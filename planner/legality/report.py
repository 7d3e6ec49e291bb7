"""The legality report: what ``planner check`` prints and writes as JSON.

``planner schema report`` prints the JSON Schema of :class:`LegalityReport`.
Distances are in inches. ``margin`` is how far a measured value is on the legal side of its
threshold (negative: by how much the rule is broken). In JSON, the measures (``measured``,
``margin``, ``tightest_margin``) are rounded to :data:`MEASURE_DECIMALS` decimals (:data:`Measure`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, PlainSerializer

from planner.units import TOLERANCE_IN

T = TypeVar("T", bound=tuple[Any, ...])
_M = TypeVar("_M", bound=BaseModel)

if TYPE_CHECKING:
    from planner.geometry.sight import Crossing
    from planner.legality.table import Placed
    from planner.world import UnitInfo, World


MEASURE_DECIMALS = 9
"""A report's measures are written to JSON rounded to this many decimals (1e-9 inches): the float
noise of exact maths (an exact 9" measured as 8.999999999999998) goes, while every verdict is
decided on the unrounded value with the tolerance ``TOLERANCE_IN`` (1e-6 in), a thousand times
coarser. The text reports show 3 decimals; the records keep the unrounded values (the library API)."""


def json_measure(x: float) -> float:
    """``x`` rounded to :data:`MEASURE_DECIMALS` decimals (a whole number, e.g. a count of models, as it is)."""
    return x if isinstance(x, int) else round(x, MEASURE_DECIMALS) + 0.0  # + 0.0: no -0.0


Measure = Annotated[float, PlainSerializer(json_measure, return_type=float, when_used="json")]
"""A measure (inches, or models for capacity): written to JSON by :func:`json_measure`, the one place."""


class _R(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SightPass(_R):
    """Where a sight line crosses a terrain piece that has a height (2.5D line of sight)."""

    feature: str
    piece: str = Field(description="The piece or wall of the feature, e.g. 'pieces 0' or 'walls[1]'.")
    top_in: float | None = Field(description="The piece's top above the table (inches); null: as high as any line.")
    line_in: float = Field(description="The lowest height of the line over the piece (inches).")
    blocks: bool = Field(description="The piece's top is higher than the line there.")
    at: tuple[float, float] = Field(description="Where the line is lowest over the piece (inches, in plan).")


def sight_passes(passes: Iterable[Crossing]) -> list[SightPass]:
    """:class:`SightPass` records of the crossings of a sight line
    (:class:`planner.geometry.sight.Crossing`)."""
    return [SightPass(feature=c.id, piece=c.piece, top_in=c.top, line_in=round(c.line_height, 6), blocks=c.blocks,
                      at=(round(c.at[0], 6), round(c.at[1], 6))) for c in passes]


class Evidence(_R):
    """Why a finding came out as it did."""

    nearest_enemy_unit: str | None = None
    nearest_enemy_model: str | None = None
    model: str | None = Field(default=None, description="The model of this unit that was measured.")
    observer_units: list[str] = Field(default_factory=list, description="Enemy units checked for line of sight.")
    seen_by: str | None = Field(default=None, description="unit/model that can draw line of sight, if any.")
    sight_line: list[tuple[float, float]] | None = Field(default=None, description="A clear line, as evidence.")
    blocking_features: list[str] = Field(default_factory=list, description="Terrain features that block sight.")
    sight_passes: list[SightPass] = Field(
        default_factory=list, description="With heights: each piece the sight line (the clear one, or the centre "
                                          "line between the nearest models when hidden) crosses, and how high it passes.")
    other_model: str | None = Field(default=None, description="unit/model on the other side of a measurement.")
    terrain_feature: str | None = None
    note: str | None = None


class FailingModel(_R):
    """One model failing a rule judged model by model (:attr:`Finding.failing_details`)."""

    model: str
    measured: Measure | None = Field(
        default=None, description="Its measured value, as the finding's 'measured' (inches; negative: over an edge "
                                  "or into terrain by that much); null: the rule has no measure (on a model, "
                                  "seen, within a zone).")
    measured_to: str | None = Field(
        default=None, description="What it was measured to: the enemy unit/model, the model of its own unit, the "
                                  "deployment zone, the terrain feature, 'battlefield edge', 'its position before "
                                  "the move'.")
    detail: str = Field(description="The measurement in words, as in the message ('5.130\" outside').")


class Finding(_R):
    """One rule checked for one unit."""

    rule: str
    passed: bool
    unit: str
    model: str | None = None
    measured: Measure | None = Field(default=None, description="Measured value, inches (or models for capacity).")
    required: str = Field(description="What the rule asks, in words, e.g. 'more than 9\"'.")
    margin: Measure | None = None
    message: str
    evidence: Evidence = Field(default_factory=Evidence)
    failing_models: list[str] = Field(
        default_factory=list, description="Every model of the unit that fails this rule, the worst first (the "
                                          "finding's model is the first), where the rule is judged model by model "
                                          "(one failing model too); empty otherwise.")
    failing_details: list[FailingModel] = Field(
        default_factory=list, description="The models of failing_models in its order, each with its own measure "
                                          "and what it was measured to (the first: the finding's model, as "
                                          "'measured'); empty when failing_models is.")


class Violation(_R):
    """A broken rule: the failing findings, flattened for the report's top level. ``model``,
    ``measured`` and ``margin`` are the first (worst) failing model's; ``failing_models`` and
    ``failing_details`` name every failing model, as on the finding."""

    rule: str
    unit: str
    model: str | None = Field(default=None, description="The first (worst) failing model; every one is in "
                                                        "failing_models.")
    measured: Measure | None = Field(default=None, description="The first failing model's measure (see the "
                                                             "finding's 'measured').")
    required: str
    margin: Measure | None = None
    message: str
    failing_models: list[str] = Field(
        default_factory=list, description="Every model of the unit that fails this rule, the worst first (as the "
                                          "finding's failing_models); empty where the rule is not judged model by "
                                          "model.")
    failing_details: list[FailingModel] = Field(
        default_factory=list, description="Each model of failing_models with its own measure and what it was "
                                          "measured to (as the finding's failing_details).")


class UnitReport(_R):
    """Every rule checked for one unit."""

    unit: str
    name: str
    player: str
    setup: str
    legal: bool
    tightest_margin: Measure | None = Field(
        default=None, description="Legal unit: its smallest margin. Illegal unit: its worst failing margin.")
    tightest_rule: str | None = Field(
        default=None, description="The rule of that margin (for an illegal unit, a rule it breaks).")
    findings: list[Finding]
    to_place: bool = Field(default=False, description="Marked 'place: true' with no positions yet: not on the table, "
                                                      "nothing checked (a plan of the other player's units).")


class AppliedRuling(_R):
    """A ruling the check applied: the reading of a point the sources leave open
    (:attr:`planner.rules.base.Ruleset.RULINGS`)."""

    key: str
    value: str
    default: bool = Field(description="The reading is the ruling's default (not chosen in the scenario or by --ruling).")
    meaning: str
    sources: str


class ModelCover(_R):
    """Whether one model has the benefit of cover against one enemy unit, and why (``check --cover``)."""

    unit: str
    model: str
    against: str = Field(description="The enemy unit whose models attack.")
    cover: bool
    reason: str


class LegalityReport(_R):
    """The whole verdict. ``legal`` is True exactly when ``violations`` is empty (units still to
    place, ``UnitReport.to_place``, are not checked: the verdict is for the units on the table)."""

    ruleset: str
    scenario: str | None = None
    legal: bool
    violations: list[Violation]
    units: list[UnitReport]
    rulings: list[AppliedRuling] = Field(default_factory=list,
                                         description="The rulings the verdict depends on, with the reading applied.")
    cover: list[ModelCover] | None = Field(
        default=None, description="check --cover: per model on the battlefield and enemy unit, the benefit of "
                                  "cover and why (informational: not part of the verdict); null: not asked.")


def applied_rulings(world: World) -> list[AppliedRuling]:
    """The rulings ``world`` was asked for (:meth:`planner.world.World.ruling`), sorted by key."""
    rs = world.ruleset
    out = []
    for key in sorted(world.rulings_used):
        info = rs.ruling_info(key)
        value = world.rulings_used[key]
        out.append(AppliedRuling(key=key, value=value, default=key not in world.scenario.rulings,
                                 meaning=info.meaning(value), sources=info.sources))
    return out


def ruling_line(r: AppliedRuling) -> str:
    """One applied ruling in words: ``ic-infiltrate=has (default): <meaning> [<sources>]``."""
    return f"{r.key}={r.value} ({'default' if r.default else 'chosen'}): {r.meaning} [{r.sources}]"


RULE_STEP_IN = 1.0
"""Every distance a rule compares with (9", 12", 2", 1", ... and 0" for a margin or an overlap) is a
multiple of this: :func:`decimals` shows more digits for a value this close to one of them."""


def decimals(v: float) -> int:
    """How many decimals a distance (inches) is shown with: 3, or 6 when it is more than the tolerance
    (:data:`planner.units.TOLERANCE_IN`) but less than 3 decimals show away from a distance a rule
    compares with (a multiple of :data:`RULE_STEP_IN`): a pass at 9.000002" for "more than 9"" reads
    ``9.000002"``, not ``9.000"``, and an overlap of 0.00001" is not ``0.000"``. The one place of
    that choice (messages, text, Markdown, HTML)."""
    off = abs(v - round(v / RULE_STEP_IN) * RULE_STEP_IN)
    return 6 if TOLERANCE_IN < off < 5e-4 else 3


def inches(v: float) -> str:
    """A distance for a finding's message: :func:`decimals` decimals and the inch mark, e.g. ``9.000"``,
    ``9.000002"``, ``0.000010"``."""
    return f'{v:.{decimals(v)}f}"'


_FINDING_FIELDS = frozenset(Finding.model_fields)


_SLOTS = BaseModel.__dict__
_set_dict = _SLOTS["__dict__"].__set__
_set_fields_set = _SLOTS["__pydantic_fields_set__"].__set__
_set_extra = _SLOTS["__pydantic_extra__"].__set__
_set_private = _SLOTS["__pydantic_private__"].__set__
"""The setters of a pydantic record's four instance slots (``BaseModel.__slots__``): what
``object.__setattr__`` finds for them, without its look-up along the class's MRO."""


def _trusted(cls: type[_M], values: dict[str, Any], fields_set: set[str]) -> _M:
    """An instance of ``cls`` holding ``values`` (every field, already of its type), as
    validation would leave it (``model_fields_set`` ``fields_set``), without validating: for
    records the checker builds from its own measurements (:func:`make_finding`), a few
    thousand a second. ``tests/test_checkfast5.py`` compares them with validated ones."""
    obj = object.__new__(cls)  # a record class defines no ``__new__`` of its own
    _set_dict(obj, values)
    _set_fields_set(obj, fields_set)
    _set_extra(obj, None)
    _set_private(obj, None)
    return obj


_EVIDENCE_TEXT = frozenset(("nearest_enemy_unit", "nearest_enemy_model", "model", "seen_by", "other_model",
                            "terrain_feature", "note"))
"""The fields of :class:`Evidence` that hold text (or None): :func:`make_evidence` takes them as given."""


def make_evidence(**values: Any) -> Evidence:
    """``Evidence(**values)``: the same record (fields, values, fields set), made without
    pydantic's validation when every value is text (``str``) for a text field of
    :data:`_EVIDENCE_TEXT` (the checker's own ids and words), validated otherwise (lists, None,
    anything else: so the same errors). The checkers make one for most findings.

    Raises
    ------
    pydantic.ValidationError
        As ``Evidence(**values)``, for values it refuses (only from the validated path).
    """
    if not (_EVIDENCE_TEXT.issuperset(values) and all(type(v) is str for v in values.values())):
        return Evidence(**values)
    fields = _evidence_defaults()
    fields.update(values)
    return _trusted(Evidence, fields, set(values))


def _evidence_defaults() -> dict[str, Any]:
    """Every field of :class:`Evidence` at its default, in field order (the lists new)."""
    return {"nearest_enemy_unit": None, "nearest_enemy_model": None, "model": None, "observer_units": [],
            "seen_by": None, "sight_line": None, "blocking_features": [], "sight_passes": [], "other_model": None,
            "terrain_feature": None, "note": None}


def _no_evidence() -> Evidence:
    """``Evidence()``: every field its default (the lists new), none set (a finding without evidence)."""
    return _trusted(Evidence, _evidence_defaults(), set())


def _real(v: float | None) -> float | None:
    """A measurement as a float field holds it (an int or a numpy float made a Python float)."""
    return v if v is None or type(v) is float else float(v)


def make_unit_report(unit: str, name: str, player: str, setup: str, legal: bool, tightest_margin: float | None,
                     tightest_rule: str | None, findings: list[Finding], to_place: bool) -> UnitReport:
    """``UnitReport(...)`` of these fields, made as :func:`make_finding` makes a finding: without
    validating the checker's own values (text, Booleans, a float, its findings), validated when
    one is of another type."""
    if not (type(unit) is str and type(name) is str and type(player) is str and type(setup) is str
            and type(legal) is bool and type(to_place) is bool
            and (tightest_rule is None or type(tightest_rule) is str)
            and (tightest_margin is None or isinstance(tightest_margin, (int, float)))
            and all(type(f) is Finding for f in findings)):
        return UnitReport(unit=unit, name=name, player=player, setup=setup, legal=legal,
                          tightest_margin=tightest_margin, tightest_rule=tightest_rule, findings=findings,
                          to_place=to_place)
    return _trusted(UnitReport, {"unit": unit, "name": name, "player": player, "setup": setup, "legal": legal,
                                 "tightest_margin": _real(tightest_margin), "tightest_rule": tightest_rule,
                                 "findings": list(findings), "to_place": to_place}, set(_UNIT_REPORT_FIELDS))


_UNIT_REPORT_FIELDS = frozenset(UnitReport.model_fields)


def make_finding(rule: str, passed: bool, unit: UnitInfo, message: str, *, model: str | None = None,
                 measured: float | None = None, required: str, margin: float | None = None,
                 evidence: Evidence | None = None, failing: list[FailingModel] | None = None) -> Finding:
    """One :class:`Finding` for ``unit`` (a :class:`planner.world.UnitInfo`): the checkers of
    every ruleset build their findings here. ``failing``: every model failing the rule, worst
    first, with its measure (:func:`also_failing`), kept as :attr:`Finding.failing_models` and
    :attr:`Finding.failing_details` (one failing model too: a consumer counts them there).

    The record is the one ``Finding(rule=..., ...)`` validates to (the same fields, values and
    JSON), made without pydantic's validation: its values are the checker's own (text, a
    Boolean, measurements made floats here)."""
    many = list(failing) if failing else []
    if not (type(rule) is str and type(message) is str and type(required) is str and type(unit.id) is str
            and (model is None or type(model) is str) and isinstance(passed, (bool, np.bool_))
            and (not many or all(type(f) is FailingModel for f in many))
            and (evidence is None or type(evidence) is Evidence)):  # anything else: validated
        return Finding(rule=rule, passed=passed, unit=unit.id, model=model, measured=measured, required=required,
                       margin=margin, message=message, evidence=evidence or Evidence(),
                       failing_models=[f.model for f in many], failing_details=many)
    return _trusted(Finding, {"rule": rule, "passed": bool(passed), "unit": unit.id, "model": model,
                              "measured": _real(measured), "required": required, "margin": _real(margin),
                              "message": message, "evidence": evidence if evidence is not None else _no_evidence(),
                              "failing_models": [f.model for f in many], "failing_details": many},
                    set(_FINDING_FIELDS))


Failing = tuple[int, str] | tuple[int, str, float | None, str | None]
"""A failing model for :func:`also_failing`: (footprint index, its measurement in words) and,
optionally, the measured value (inches, as the finding's ``measured``) and what it was measured to."""


def also_failing(placed: Placed, failing: Sequence[Failing]) -> tuple[str, list[FailingModel]]:
    """For a finding whose worst model is ``failing[0]`` (worst first, :data:`Failing`): the words
    naming the other models that fail too (``'; also model 2 (5.130" outside)'``) and every failing
    model with its measure (:class:`FailingModel`), worst first ('' and one for one model)."""
    out = [FailingModel(model=placed.model_id(t[0]), detail=t[1], measured=t[2] if len(t) > 2 else None,
                        measured_to=t[3] if len(t) > 3 else None)
           for t in failing]
    if len(failing) < 2:
        return "", out
    return "; also " + ", ".join(f"model {f.model} ({f.detail})" for f in out[1:]), out


def worst_first(failing: Iterable[T], worst: int, *, larger_is_worse: bool) -> list[T]:
    """``failing`` (tuples of a footprint index and a measurement in inches, then anything) with
    the finding's model ``worst`` first, then the worst measurement first (equal to a millionth
    of an inch: the lower index first), for :func:`also_failing`."""
    sign = -1.0 if larger_is_worse else 1.0
    return sorted(failing, key=lambda t: (t[0] != worst, sign * round(t[1], 6), t[0]))


def also_outside(placed: Placed, outside: tuple[tuple[int, float], ...], what: str,
                 to: str | None = None) -> tuple[str, list[FailingModel]]:
    """:func:`also_failing` for the bases not wholly within an area (:attr:`Clearance.outside`),
    ``what`` the clearance's word (``outside``, ``over``), ``to`` the area's edge (each measure:
    the clearance, negative)."""
    return also_failing(placed, [(i, f"{inches(-c)} {what}", c, to) for i, c in outside])
