"""Scenario schema: pydantic records for battlefields, terrain, zones, armies and deployments.

All distances and coordinates are in inches, base sizes in millimetres, facings in degrees
(counter-clockwise from the +x axis). The battlefield's origin is its lower-left corner:
x runs along the width, y along the depth.

Records are called *records* in prose; :class:`Model` is a miniature.
``planner schema`` prints the JSON Schema of :class:`Scenario`.
"""

from __future__ import annotations

import math
import re
from enum import StrEnum
from functools import lru_cache
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Discriminator,
    Field,
    Strict,
    Tag,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

MAX_MAGNITUDE = 1_000_000
"""Largest magnitude of any number in a scenario (inches, mm, degrees, weights, counts): larger
is a typo or an attack (a 400-digit distance would otherwise be infinite)."""
MAX_VERTICES = 1000
"""Most points of one polygon (a terrain footprint, a deployment zone)."""
MAX_TERRAIN = 500
"""Most terrain features of a scenario."""
MAX_MODELS_PER_UNIT = 1000
"""Most models of one unit."""
MAX_MODELS = 10_000
"""Most models of a scenario, all armies together."""
TOO_MANY_MODELS = "too_many_models"
"""The error type of a scenario over :data:`MAX_MODELS` (at ``armies``; ``ctx["count"]`` the count,
the value :func:`planner.io.files.validation_error` shows)."""
MAX_UNITS = 1000
"""Most units of one army."""
MAX_ITEMS = 100
"""Most armies, deployment zones, objectives or goals of a scenario."""


def _bounded_number(v: float) -> float:
    if not -MAX_MAGNITUDE <= v <= MAX_MAGNITUDE:
        raise ValueError(f"number out of range: at most {MAX_MAGNITUDE} in size")
    return v


def _bounded_count(v: int) -> int:
    if not -MAX_MAGNITUDE <= v <= MAX_MAGNITUDE:
        raise ValueError(f"whole number out of range: at most {MAX_MAGNITUDE} in size")
    return v


Num = Annotated[float, Strict(), AfterValidator(_bounded_number)]
"""A number as written: an int or a float, never a string or a boolean (``x: "36"`` and
``x: true`` are input errors, not 36 and 1); finite, at most :data:`MAX_MAGNITUDE` in size."""
Count = Annotated[int, Strict(), AfterValidator(_bounded_count)]
"""A whole number as written (not a boolean, not 10.0), at most :data:`MAX_MAGNITUDE` in size."""
Point = tuple[Num, Num]
Height = Annotated[float, Strict(), AfterValidator(_bounded_number), Field(gt=0, le=100)]
"""A model's height in inches (more than 0, at most 100): a model is a volume, never flat."""
TerrainTop = Annotated[float, Strict(), AfterValidator(_bounded_number), Field(ge=0, le=100, description=(
    "Height of the top above the table, inches (0 to 100); 0: flat (a mat, a road), which no sight line "
    "between two models passes under, so it never blocks one by its height."))]
"""The top of a terrain piece, wall or feature above the table in inches (0 to 100).

Ruling (2.5D line of sight, issue 15): a piece blocks a line where its top is higher than the
line there (:func:`planner.geometry.sight.split_by_height`); every model has a height above 0,
so a line between two models never runs at or below the table and a top of 0 (a flat mat, a
road) never blocks by height. The feature is still terrain for everything else (standing in it,
its traits); a ruleset whose area terrain blocks at any height (``AREA_BLOCKS_AT_ANY_HEIGHT``,
40k) ignores heights of area terrain, 0 included."""

ID_FIELDS = frozenset({"id", "player", "zone", "in_", "joined", "profile", "objective", "unit", "enemy_unit",
                       "against", "units", "features", "also", "system", "ruleset"})
"""Fields that hold ids (or lists of ids): printable characters only."""
_BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


_BOUND_KEYWORDS = {"ge": "minimum", "le": "maximum", "gt": "exclusiveMinimum", "lt": "exclusiveMaximum"}
"""pydantic's names of a number's limits, as they leak into a schema where ``Field(ge=...)`` bounds an
optional number (``Num | None``), and JSON Schema's keywords for them."""


def json_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The JSON Schema (draft 2020-12, by alias) of ``model``, with every number's limits under JSON
    Schema's own keywords (``minimum``, ``maximum``, ``exclusiveMinimum``, ``exclusiveMaximum``):
    pydantic writes ``ge``/``le``/``gt``/``lt`` in the ``anyOf`` branch of an optional number, which
    a standard validator ignores."""

    def fix(node: Any) -> Any:
        if isinstance(node, dict):
            numeric = node.get("type") in ("number", "integer")
            return {(_BOUND_KEYWORDS[k] if numeric and k in _BOUND_KEYWORDS and isinstance(v, int | float) else k):
                    fix(v) for k, v in node.items()}
        if isinstance(node, list):
            return [fix(v) for v in node]
        return node

    return fix(model.model_json_schema(by_alias=True))


def text_problem(text: str, *, is_id: bool) -> str | None:
    """Why ``text`` cannot be a scenario string, or None: an id must be printable (no control,
    format, bidirectional-override or line-separator characters, no space other than ' '); any
    other text (names, descriptions) may hold tabs and line breaks but no other control
    character, no bidirectional override and no unpaired surrogate."""
    if text.isprintable():
        return None
    import unicodedata

    for i, ch in enumerate(text):
        if ch in _BIDI_CONTROLS:
            return f"bidirectional control character U+{ord(ch):04X} at position {i}"
        cat = unicodedata.category(ch)
        if is_id and not ch.isprintable():
            return f"non-printable character U+{ord(ch):04X} at position {i} in an id"
        if cat in ("Cc", "Cs") and ch not in "\t\n\r":
            return f"control character U+{ord(ch):04X} at position {i}"
    return None


class Record(BaseModel):
    """Base of every schema record: unknown keys are errors; strings are checked by
    :func:`text_problem` (ids printable, no control or bidirectional-override characters)."""

    # defer_build: the validators are built when a record is first validated (a scenario's in one
    # piece, with the records it holds), not one per record class at import: every command is faster
    model_config = ConfigDict(extra="forbid", validate_assignment=False, allow_inf_nan=False, defer_build=True)

    @field_validator("*", mode="after")
    @classmethod
    def _clean_text(cls, v: object, info) -> object:
        is_id = info.field_name in ID_FIELDS
        if isinstance(v, str):
            why = text_problem(v, is_id=is_id)
        elif isinstance(v, list) and v and isinstance(v[0], str):
            why = next((w for w in (text_problem(x, is_id=is_id) for x in v if isinstance(x, str)) if w), None)
        else:
            return v
        if why:
            raise ValueError(f"refused text: {why}")
        return v


# --------------------------------------------------------------------------- bases


class RoundBase(Record):
    """A round base, by its diameter in mm (e.g. 32 for a Legion Space Marine)."""

    shape: Literal["round"] = "round"
    diameter_mm: Num = Field(gt=0, le=1000)


class OvalBase(Record):
    """An oval base: a true ellipse, ``length_mm`` along the model's facing, ``width_mm`` across."""

    shape: Literal["oval"] = "oval"
    length_mm: Num = Field(gt=0, le=1000)
    width_mm: Num = Field(gt=0, le=1000)


class HullBase(Record):
    """A model without a base, measured to its hull: a rectangle in *inches*, length along facing."""

    shape: Literal["hull"] = "hull"
    length_in: Num = Field(gt=0, le=100)
    width_in: Num = Field(gt=0, le=100)


BASE_SIZE_FIELDS = {"round": ("diameter_mm",), "oval": ("length_mm", "width_mm"), "hull": ("length_in", "width_in")}
"""The size fields of each base kind (the fields of :class:`RoundBase`, :class:`OvalBase`, :class:`HullBase`)."""

BASE_KINDS_TEXT = "a base is {diameter_mm}, {length_mm, width_mm} (oval) or {length_in, width_in} (hull)"
"""How to give a base, said when a base gives none of the size fields or those of two kinds."""


def _base_shape(v: object) -> str | None:
    """The base kind: ``shape`` if given, else inferred from the size fields."""
    if isinstance(v, BaseModel):
        return getattr(v, "shape", None)
    if not isinstance(v, dict):
        return None
    if "shape" in v:
        return v["shape"] if v["shape"] in ("round", "oval", "hull") else None
    for kind, fields in BASE_SIZE_FIELDS.items():
        if any(f in v for f in fields):
            return kind
    return None


def _one_base_kind(v: object) -> object:
    """Refuse a base whose size fields (or ``shape``) belong to more than one kind of base, e.g.
    ``{diameter_mm: 32, length_mm: 60}``, naming the fields that conflict.

    Raises
    ------
    ValueError
        "conflicting base fields: diameter_mm (round), length_mm (oval); give one kind: a base
        is {diameter_mm}, ..." (the shape too when ``shape`` names a kind its fields are not of).
    """
    if not isinstance(v, dict):
        return v
    given = {kind: [f for f in fields if f in v] for kind, fields in BASE_SIZE_FIELDS.items()}
    kinds = {kind for kind, fs in given.items() if fs}
    shape = v.get("shape")
    if isinstance(shape, str) and shape in BASE_SIZE_FIELDS and kinds and kinds != {shape}:
        named = [f"shape {shape}"] + [f"{f} ({kind})" for kind, fs in given.items() if kind != shape for f in fs]
    elif len(kinds) > 1:
        named = [f"{f} ({kind})" for kind, fs in given.items() for f in fs]
    else:
        return v
    raise ValueError(f"conflicting base fields: {', '.join(named)}; give one kind: {BASE_KINDS_TEXT}")


Base = Annotated[
    Annotated[RoundBase, Tag("round")] | Annotated[OvalBase, Tag("oval")] | Annotated[HullBase, Tag("hull")],
    Discriminator(_base_shape, custom_error_type="base_shape", custom_error_message=BASE_KINDS_TEXT),
    BeforeValidator(_one_base_kind),
]


# --------------------------------------------------------------------------- special rules


class SpecialRule(StrEnum):
    """The special rules that matter for deployment (Horus Heresy 2.0 names)."""

    INFILTRATE = "Infiltrate"
    SCOUT = "Scout"
    DEEP_STRIKE = "Deep Strike"
    OUTFLANK = "Outflank"
    INDEPENDENT_CHARACTER = "Independent Character"
    DEDICATED_TRANSPORT = "Dedicated Transport"
    TRANSPORT = "Transport"
    BULKY = "Bulky"


_RULE_LOOKUP = {r.value.lower(): r for r in SpecialRule}
_DECORATED = re.compile(r"^\s*(?P<name>[A-Za-z][A-Za-z ]*?)\s*(\((?P<arg>[^)]*)\))?\s*$")


def parse_rule(text: str) -> tuple[SpecialRule, int | None]:
    """Parse a rule name as written in a book or roster.

    ``"Infiltrate"``, ``"Infiltrate (By Wing and Talon)"`` -> (INFILTRATE, None);
    ``"Bulky (2)"`` -> (BULKY, 2); ``"Bulky"`` -> (BULKY, 2).

    Raises
    ------
    ValueError
        If the name is not a deployment-relevant rule this planner knows.
    """
    m = _DECORATED.match(text)
    if not m:
        raise ValueError(f"not a rule name: {text!r}")
    name = m.group("name").strip().lower()
    arg = m.group("arg")
    if name not in _RULE_LOOKUP:
        known = ", ".join(f"{r.value} (X)" if r is SpecialRule.BULKY else r.value for r in SpecialRule)
        raise ValueError(f"unknown special rule {text!r}; known: {known} (e.g. 'Bulky (3)' for Very Bulky; other "
                         "rules go in other_rules)")
    rule = _RULE_LOOKUP[name]
    if rule is SpecialRule.BULKY:
        if arg is None:
            return rule, 2
        try:
            value = int(arg.strip())
        except ValueError:
            raise ValueError(f"Bulky needs a whole number, as in 'Bulky (2)': {text!r}") from None
        if not 1 <= value <= 100:
            raise ValueError(f"Bulky (X) needs X from 1 to 100: {text[:40]!r}")
        return rule, value
    return rule, None


def _known_rules(names: list[str]) -> list[str]:
    for r in names:
        parse_rule(r)
    return names


RuleNames = Annotated[list[str], AfterValidator(_known_rules)]


def _keyword_phrase(v: str | None) -> str | None:
    """A 40k keyword phrase (``transport_eligible``) that :func:`planner.rules.keywords.parse_selector` reads."""
    if v is not None:
        from planner.rules.keywords import parse_selector

        parse_selector(v)  # KeywordError is a ValueError: a validation error naming the field
        parse_selector(v if " model" in f" {v}" else f"{v} models")  # as the 40k transport check reads it
    return v


KeywordPhrase = Annotated[str | None, AfterValidator(_keyword_phrase)]
"""Special rule names as written, each one :func:`parse_rule` knows."""


def _enum_any_case(cls, value: object):
    """The member whose value equals ``value`` but for letter case and surrounding spaces ("infantry",
    " close-order"), or None (pydantic then names the field, the value and the allowed ones)."""
    if isinstance(value, str):
        key = value.strip().casefold()
        for member in cls:
            if member.value.casefold() == key:
                return member
    return None


class UnitType(StrEnum):
    """Horus Heresy 2.0 unit types (p.195-216)."""

    INFANTRY = "Infantry"
    CAVALRY = "Cavalry"
    DREADNOUGHT = "Dreadnought"
    AUTOMATA = "Automata"
    VEHICLE = "Vehicle"
    PRIMARCH = "Primarch"
    KNIGHT = "Knight"
    TITAN = "Titan"
    MONSTROUS = "Monstrous"
    FORTIFICATION = "Fortification"

    _missing_ = classmethod(_enum_any_case)  # "infantry" is Infantry


class SubType(StrEnum):
    """Horus Heresy 2.0 unit sub-types that the deployment rules read."""

    ARTILLERY = "Artillery"
    SKIRMISH = "Skirmish"
    CLOSE_ORDER = "Close-order"
    CHARACTER = "Character"
    UNIQUE = "Unique"
    HEAVY = "Heavy"
    LIGHT = "Light"
    LINE = "Line"
    JUMP = "Jump"
    BIKE = "Bike"
    JETBIKE = "Jetbike"
    ANTIGRAV = "Antigrav"
    SKIMMER = "Skimmer"
    FAST = "Fast"
    TANK = "Tank"
    TRANSPORT = "Transport"
    WALKER = "Walker"
    FLYER = "Flyer"
    BUILDING = "Building"
    MONSTROUS = "Monstrous"
    LUMBERING = "Lumbering"
    STUBBORN = "Stubborn"
    COMMAND = "Command"

    _missing_ = classmethod(_enum_any_case)  # "close-order" is Close-order


def _known_abilities(names: list[str]) -> list[str]:
    from planner.rules.abilities import parse_ability

    for a in names:
        parse_ability(a)
    return names


Abilities = Annotated[list[str], AfterValidator(_known_abilities)]
"""Warhammer 40,000 deployment abilities as written (``Infiltrators``, ``Scouts 6"``, ``Deep Strike``,
``Leader``, ``Support``), each one :func:`planner.rules.abilities.parse_ability` knows."""


# --------------------------------------------------------------------------- profiles (issue 20)


def _dice_value(v: int | str) -> int | str:
    from planner.combat.dice import parse_dice

    parse_dice(v)  # raises ValueError naming the value
    return v


def keyword_list(names: list[str]) -> list[str]:
    """The single weapon keywords written in ``names``: a bracketed list may hold several,
    comma-separated (``[Anti-Infantry 4+, Devastating Wounds]`` is two), brackets stripped."""
    return [part.strip().strip("[]").strip() for name in names for part in name.strip().strip("[]").split(",")]


def _weapon_keywords(names: list[str]) -> list[str]:
    """Weapon keywords with a number: ``X+`` rolls from 2+ to 6+ (``Anti-Infantry 4+``), other numbers
    at most 20 (``Sustained Hits 2``, ``Rapid Fire 1``, ``Melta 2``); see :func:`keyword_list`."""
    import re

    for name in names:
        for part in keyword_list([name]):
            m = re.search(r"(\d+)(\+?)$", part)
            if m is None:
                continue
            n, roll = int(m.group(1)), bool(m.group(2))
            if roll and not 2 <= n <= 6:
                raise ValueError(f"weapon keyword {name!r}: a roll from 2+ to 6+")
            if not roll and n > 20:
                raise ValueError(f"weapon keyword {name!r}: its number is at most 20")
    return names


DiceValue = Annotated[int | str, AfterValidator(_dice_value)]
"""A whole number or dice as written: ``2``, ``"D3"``, ``"D6+1"``, ``"2D6"``."""
Roll = Annotated[int, Strict(), Field(ge=2, le=7)]
"""A D6 score needed (2+ to 6+; 7: cannot succeed)."""
Stat = Annotated[int, Strict(), Field(ge=0, le=20)]


class Characteristics(Record):
    """A model's profile, as printed (Horus Heresy: M WS BS S T W I A Ld Sv, invulnerable save, vehicle
    armour values; 40k: M T Sv W Ld OC and InSv). Every field is optional here; the dice maths
    (``planner.combat.profiles``) names the unit and the field when one it needs is missing."""

    m: Num | None = Field(default=None, ge=0, le=100, description="Move (inches).")
    ws: Stat | None = None
    bs: Stat | None = Field(default=None, ge=1, le=10, description="Horus Heresy Ballistic Skill (1-10).")
    s: Stat | None = None
    t: Stat | None = Field(default=None, ge=1)
    w: Stat | None = Field(default=None, ge=1)
    i: Stat | None = None
    a: Stat | None = None
    ld: Stat | None = None
    sv: Roll | None = Field(default=None, description="Armour save X+ (7: none).")
    inv: Roll | None = Field(default=None, description="Invulnerable save X+.")
    av_front: Stat | None = Field(default=None, description="Vehicle armour value, front.")
    av_side: Stat | None = None
    av_rear: Stat | None = None
    hp: Stat | None = Field(default=None, description="Vehicle Hull Points.")
    oc: Stat | None = Field(default=None, description="40k Objective Control.")
    fnp: Roll | None = Field(default=None, description="Feel No Pain X+ (40k).")


class WeaponProfile(Record):
    """A weapon, as printed. Horus Heresy: range, S, AP ('-' as none), type and shots; 40k: range,
    A, BS (X+), S, AP (0 or negative), D and keywords. ``range_in`` none: melee."""

    name: str = Field(min_length=1)
    range_in: Num | None = Field(default=None, ge=0, le=1000, description="Range in inches; none: melee.")
    s: Stat | None = Field(default=None, description="Strength (none: the model's, for melee).")
    ap: int | None = Field(default=None, ge=-6, le=6, description="HH: AP 1-6 (none: '-'); 40k: 0 to -6.")
    type: str | None = Field(default=None, description="HH weapon type: Assault, Heavy, Rapid Fire, Ordnance...")
    shots: DiceValue | None = Field(default=None, description="HH shots per model.")
    a: DiceValue | None = Field(default=None, description="40k Attacks per model.")
    bs: Roll | None = Field(default=None, description="40k BS (or WS) X+.")
    d: DiceValue | None = Field(default=None, description="40k Damage.")
    keywords: Annotated[list[str], AfterValidator(_weapon_keywords)] = Field(
        default_factory=list, description="40k weapon keywords, HH special rules.")
    count: Count | None = Field(default=None, ge=0, description=(
        "On a unit: how many of its models carry it, among those without a weapon of that name of their own "
        "(none: all of them). On a model (or a catalogue entry): how many of it the model carries, e.g. 2 "
        "sponson lascannons (none: one)."))


# --------------------------------------------------------------------------- catalogue


class CatalogueEntry(Record):
    """One kind of miniature in the ``models/`` catalogue: its base, unit type and special rules."""

    id: str = Field(min_length=1, pattern=r"^[A-Za-z0-9_.\-]+$")
    name: str = Field(min_length=1)
    aliases: list[str] = Field(default_factory=list, description="Other names, e.g. as spelled in rosters.")
    base: Base
    type: UnitType
    subtypes: list[SubType] = Field(default_factory=list)
    rules: RuleNames = Field(default_factory=list)
    transport_capacity: Count | None = Field(default=None, ge=0)
    height_in: Num | None = Field(default=None, gt=0, le=100, description=(
        "Height of the model in inches (for line of sight); absent: the catalogue's height default for its "
        "unit type (the ruleset's ``MODEL_HEIGHT_IN``)."))
    source: str = Field(default="", description="Where the base size and type come from.")
    stats: Characteristics | None = Field(default=None, description="The model's characteristics.")
    weapons: list[WeaponProfile] = Field(default_factory=list, description="The model's weapons.")
    keywords: list[str] = Field(default_factory=list, description="40k keywords of the model, e.g. INFANTRY.")
    abilities: Abilities = Field(default_factory=list, description="40k deployment abilities, e.g. 'Scouts 6\"'.")
    transport_eligible: KeywordPhrase = Field(
        default=None, description="40k TRANSPORT: keyword expression of the models it may carry, e.g. "
                                  "'ADEPTUS ASTARTES INFANTRY'.")


class BaseRule(Record):
    """A documented rule giving a base to a model no catalogue entry names, by unit type, sub-types,
    names and wargear (e.g. "Infantry with Terminator armour: 40 mm").

    Every condition given must hold (an empty one always holds): ``types`` any of the model's unit
    type; ``subtypes`` all among its sub-types; ``names`` any regular expression found (case
    insensitive) in the model's or its unit's name; ``wargear`` any found in a name of its wargear
    (upgrades, rules); ``catalogues`` any found in the name of the army list (BattleScribe
    catalogue) it comes from. The first rule that holds, in file order, gives ``base`` and
    ``height_in`` (inches; absent: the height default of the unit type).
    """

    id: str = Field(min_length=1, pattern=r"^[A-Za-z0-9_.\-]+$")
    types: list[UnitType] = Field(default_factory=list)
    subtypes: list[SubType] = Field(default_factory=list)
    names: list[str] = Field(default_factory=list)
    wargear: list[str] = Field(default_factory=list)
    catalogues: list[str] = Field(default_factory=list)
    base: Base
    height_in: Num | None = Field(default=None, gt=0, le=100)
    source: str = Field(min_length=1, description="Where the base size comes from, or the ruling made.")

    @field_validator("names", "wargear", "catalogues")
    @classmethod
    def _patterns(cls, v: list[str]) -> list[str]:
        for p in v:
            try:
                re.compile(p)
            except re.error as exc:
                raise ValueError(f"not a regular expression: {p!r} ({exc})") from None
        return v


class Catalogue(Record):
    """A catalogue file: the miniatures of one game system, and optionally base rules for
    miniatures it does not list (heights by unit type are the ruleset's ``MODEL_HEIGHT_IN``)."""

    system: str = Field(description="Ruleset id the entries belong to, e.g. 'hh2'.")
    also: list[str] = Field(default_factory=list,
                            description="Other ruleset ids the same entries serve, e.g. ['wh40k11'] for 'wh40k10'.")
    entries: list[CatalogueEntry] = Field(default_factory=list)
    base_rules: list[BaseRule] = Field(default_factory=list)


# --------------------------------------------------------------------------- battlefield


@lru_cache(maxsize=1024)
def _polygon_and_problem(points: tuple[tuple[float, float], ...]) -> tuple[Any, str | None]:
    """The shapely polygon of ``points`` and why it is not a simple polygon of positive area (None
    if it is), built once per point list: validating a scenario, the feature's :attr:`shape`, the
    checker's zones and the generator's scenes ask for the same polygons (immutable, so shared).
    A polygon made ahead by :func:`polygons_ahead` is taken (and judged) here."""
    poly = _AHEAD.pop(points, None)
    if poly is None:
        poly = new_polygon(points)
    if not poly.is_valid:
        from shapely.validation import explain_validity

        return poly, f"is not a simple polygon: {explain_validity(poly)}"
    if poly.area <= 0:
        return poly, "has zero area"
    return poly, None


def new_polygon(points: tuple[tuple[float, float], ...]) -> Any:
    """``shapely.geometry.Polygon(points)``: the same geometry (the same coordinates, its ring
    closed the same way), made by ``shapely.polygons`` from one float array, without the
    ``Polygon`` and ``LinearRing`` constructors' per-point Python conversion (about a third of the
    cost for the generator's few-point features). Anything that is not three or more (x, y) pairs
    of numbers takes the constructor itself, so its errors are the constructor's."""
    import numpy as np
    import shapely
    from shapely.geometry import Polygon

    if len(points) >= 3:
        try:
            coords = np.array(points, dtype=np.float64)
        except (TypeError, ValueError, OverflowError):
            coords = None
        if coords is not None and coords.ndim == 2 and coords.shape[1] == 2:
            return shapely.polygons(coords)
    return Polygon(points)


_AHEAD: dict[tuple[tuple[float, float], ...], Any] = {}
"""Polygons made by :func:`polygons_ahead` that :func:`polygon_of` has not asked for yet."""
_AHEAD_MOST = 4096


def polygons_ahead(point_lists: list[list[tuple[float, float]]]) -> list[Any]:
    """``new_polygon`` of each list of (x, y) floats (the same geometries), made in one shapely
    call per number of points, and kept for the first :func:`polygon_of` of each list, which then
    gives this very polygon and judges its validity only then (the generator draws many scenes
    whose terrain is never validated). A list whose points are not all floats is left to
    :func:`new_polygon`."""
    import numpy as np
    import shapely

    if len(_AHEAD) + len(point_lists) > _AHEAD_MOST:
        _AHEAD.clear()
    out: list[Any] = [None] * len(point_lists)
    by_size: dict[int, list[int]] = {}
    for i, pts in enumerate(point_lists):
        if len(pts) >= 3 and all(type(x) is float and type(y) is float for x, y in pts):
            by_size.setdefault(len(pts), []).append(i)
        else:
            out[i] = new_polygon(tuple(pts))
    for ids in by_size.values():
        made = np.asarray(shapely.polygons(np.array([point_lists[i] for i in ids], dtype=np.float64))).tolist()
        for i, poly in zip(ids, made, strict=True):
            out[i] = poly
    for pts, poly in zip(point_lists, out, strict=True):
        _AHEAD[tuple((x, y) for x, y in pts)] = poly
    return out


def polygon_of(points: list[Point] | tuple[Point, ...]) -> Any:
    """The shapely ``Polygon`` of a list of (x, y) points, inches; one shared object per distinct
    point list (see :func:`_polygon_and_problem`). Raises nothing: validity is the validators' job."""
    return _polygon_and_problem(tuple((x, y) for x, y in points))[0]


def _check_polygon(points: list[Point], what: str) -> list[Point]:
    if len(points) < 3:
        raise ValueError(f"{what} needs at least 3 points, got {len(points)}")
    if len(points) > MAX_VERTICES:
        raise ValueError(f"{what} has {len(points)} points; at most {MAX_VERTICES} are allowed")
    for i, (x, y) in enumerate(points):
        if not (math.isfinite(x) and math.isfinite(y)):
            raise ValueError(f"{what} point {i} must be finite numbers, got {[x, y]}")
    why = _polygon_and_problem(tuple((x, y) for x, y in points))[1]
    if why:
        raise ValueError(f"{what} {why}")
    return points


class Battlefield(Record):
    """The table: width along x, depth along y, in inches. A scenario without 'battlefield' is on its
    ruleset's default table: 72" x 48" for hh2, wh40k5 and wh40k7; 60" x 44" for wh40k10 and wh40k11
    (each ruleset module's BATTLEFIELD_WIDTH_IN and BATTLEFIELD_DEPTH_IN, applied when the scenario is
    resolved). A 'battlefield' given without a width or a depth takes the missing one from the
    same default table. The 72" / 48" field defaults below apply only to a record that was not
    resolved."""

    width: Num = Field(default=72.0, gt=0, le=1000)
    depth: Num = Field(default=48.0, gt=0, le=1000)

    def holds(self, x: float, y: float) -> bool:
        """The point (x, y), inches, is on the battlefield (its edge counts): where an aim point,
        a goal point or a contested point may be."""
        return 0.0 <= x <= self.width and 0.0 <= y <= self.depth


class TerrainKind(StrEnum):
    """How a terrain feature blocks sight.

    ``solid``: buildings, walls, hills: block every line through their footprint.
    ``area``: ruins, woods: block lines through them except for a model standing in them.
    ``open``: blocks nothing (craters, rubble that is only difficult).
    """

    SOLID = "solid"
    AREA = "area"
    OPEN = "open"


class TerrainTrait(StrEnum):
    BLOCKS_LINE_OF_SIGHT = "blocks_line_of_sight"
    OBSCURING = "obscuring"
    """40k 11th edition: an obscuring terrain area (RULES.md §3.1 Terrain, 11E-CORE-B 13.10)."""
    DIFFICULT = "difficult"
    DANGEROUS = "dangerous"
    IMPASSABLE = "impassable"


class StandingIn(StrEnum):
    """For area terrain: when a model counts as standing in it (and so sees out and is seen)."""

    PARTLY = "partly"
    WHOLLY = "wholly"


class Building(Record):
    """A terrain feature that is a Building (HH2 p.224): units may be embarked in it."""

    capacity: Count = Field(ge=1, description="Transport Capacity, in models (Bulky counts).")


class AreaCategory(StrEnum):
    """40k 11th edition terrain area categories (RULES.md §3.1 Terrain; 11E-CORE-B 13.x)."""

    DENSE = "dense"
    LIGHT = "light"
    OBSCURING = "obscuring"


class TerrainPiece(Record):
    """One polygon of a terrain feature (inches). A feature may be drawn as several pieces (a ruin
    as two halves sharing an edge, a hill and its crest): standing in any piece is standing in
    the feature. ``height_in`` is the height of the piece's top above the table (0: flat, see
    :data:`TerrainTop`); none means the feature's ``height_in``, and if that is none too, a piece
    that blocks every sight line (as high as any line), which is what every feature meant before
    heights existed."""

    footprint: list[Point]
    height_in: TerrainTop | None = None

    @field_validator("footprint")
    @classmethod
    def _poly(cls, v: list[Point]) -> list[Point]:
        return _check_polygon(v, "footprint")


class Wall(Record):
    """A wall of a feature: a polyline ``points`` with a ``thickness_in`` (the wall is the set of
    points within half the thickness of the line, with flat ends), or a thin polygon
    ``footprint``; ``height_in`` as for a piece (none: the feature's height, else as high as any
    line)."""

    points: list[Point] | None = Field(default=None, description="Polyline of the wall's centre line (2+ points).")
    thickness_in: Num = Field(default=0.25, gt=0, le=12)
    footprint: list[Point] | None = Field(default=None, description="The wall as a thin polygon instead.")
    height_in: TerrainTop | None = None

    @field_validator("points")
    @classmethod
    def _line(cls, v: list[Point] | None) -> list[Point] | None:
        if v is None:
            return v
        if not 2 <= len(v) <= MAX_VERTICES:
            raise ValueError(f"a wall's points need 2 to {MAX_VERTICES} points, got {len(v)}")
        if any(a == b for a, b in zip(v, v[1:], strict=False)):
            raise ValueError("a wall's points repeat a point")
        return v

    @field_validator("footprint")
    @classmethod
    def _poly(cls, v: list[Point] | None) -> list[Point] | None:
        return None if v is None else _check_polygon(v, "footprint")

    @model_validator(mode="after")
    def _one_form(self) -> Wall:
        if self.points is not None and self.footprint is not None:
            raise ValueError("give a wall either points (a polyline with thickness_in) or a footprint, not both")
        if self.points is None and self.footprint is None:
            raise ValueError("a wall needs points (a polyline with thickness_in) or a footprint; neither was given")
        return self

    def polygon(self) -> Any:
        """The wall's footprint as a shapely Polygon (inches)."""
        from shapely.geometry import LineString, Polygon

        if self.footprint is not None:
            return Polygon(self.footprint)
        return LineString(self.points).buffer(self.thickness_in / 2, cap_style="flat", join_style="mitre")


class Floor(Record):
    """A floor of a ruin: ``height_in`` above the table (0 is the ground floor), over
    ``footprint`` (default: the whole feature). A model standing on it gives that height as its
    ``z``."""

    height_in: Num = Field(ge=0, le=100)
    footprint: list[Point] | None = None

    @field_validator("footprint")
    @classmethod
    def _poly(cls, v: list[Point] | None) -> list[Point] | None:
        return None if v is None else _check_polygon(v, "footprint")


class TerrainFeature(Record):
    """A terrain feature: one ``footprint`` polygon, or several ``pieces`` that count as one
    feature (inches), with its traits and, optionally, heights, walls, floors and a roof.

    A feature with no height anywhere blocks every sight line through it (if it blocks sight at
    all), as before heights existed. ``category`` is the 11th-edition area category, for the
    rulesets that use it.
    """

    id: str = Field(min_length=1)
    name: str = ""
    footprint: list[Point] | None = None
    pieces: list[TerrainPiece] = Field(default_factory=list, max_length=MAX_VERTICES)
    height_in: TerrainTop | None = Field(default=None, description="Height of the feature's top (inches; 0: "
                                                                    "flat, never blocks by height); none: blocks "
                                                                    "every line it crosses.")
    kind: TerrainKind = TerrainKind.AREA
    traits: list[TerrainTrait] = Field(default_factory=list)
    standing_in: StandingIn = Field(
        default=StandingIn.PARTLY,
        description="Area terrain: a model partly (default) or only wholly inside it sees out of it.",
    )
    building: Building | None = None
    walls: list[Wall] = Field(default_factory=list, max_length=MAX_VERTICES)
    floors: list[Floor] = Field(default_factory=list, max_length=100)
    roof: bool = Field(default=False, description="The feature has a roof (a model under it is inside, not on top).")
    category: AreaCategory | None = None

    @field_validator("footprint")
    @classmethod
    def _poly(cls, v: list[Point] | None) -> list[Point] | None:
        return None if v is None else _check_polygon(v, "footprint")

    @model_validator(mode="after")
    def _has_a_shape(self) -> TerrainFeature:
        if self.footprint is None and not self.pieces:
            raise ValueError("a terrain feature needs a footprint or pieces")
        return self

    def all_pieces(self) -> list[TerrainPiece]:
        """The feature's pieces: ``footprint`` (with the feature's height) first, then ``pieces``;
        a piece without a height takes the feature's."""
        out = []
        if self.footprint is not None:
            # both fields were validated as this feature's (the same checks): no second validation
            out.append(TerrainPiece.model_construct(footprint=self.footprint, height_in=self.height_in))
        out += [p if p.height_in is not None or self.height_in is None
                else p.model_copy(update={"height_in": self.height_in}) for p in self.pieces]
        return out

    @property
    def shape(self) -> Any:
        """The feature's area as a shapely geometry: the union of its pieces (a Polygon, or a
        MultiPolygon for pieces apart), inches. Walls are not part of it."""
        from shapely import union_all
        from shapely.geometry import Polygon

        if self.footprint is not None and not self.pieces:
            return polygon_of(self.footprint)
        polys = [Polygon(p.footprint) for p in self.all_pieces()]
        return polys[0] if len(polys) == 1 else union_all(polys)

    @property
    def has_heights(self) -> bool:
        """True if any piece or wall states a height (a 2.5D feature)."""
        return self.height_in is not None or any(p.height_in is not None for p in self.pieces) or any(
            w.height_in is not None for w in self.walls)

    @property
    def blocks_line_of_sight(self) -> bool:
        return TerrainTrait.BLOCKS_LINE_OF_SIGHT in self.traits or self.building is not None

    @property
    def is_impassable(self) -> bool:
        return TerrainTrait.IMPASSABLE in self.traits


class DeploymentZone(Record):
    """A player's deployment zone: a polygon in inches."""

    id: str = Field(min_length=1)
    player: str = Field(min_length=1)
    polygon: list[Point]

    @field_validator("polygon")
    @classmethod
    def _poly(cls, v: list[Point]) -> list[Point]:
        return _check_polygon(v, "polygon")


class Objective(Record):
    """An objective marker (centre in inches)."""

    id: str = Field(min_length=1)
    x: Num
    y: Num
    diameter_mm: Num = Field(default=40.0, gt=0)


# --------------------------------------------------------------------------- armies


class SetupKind(StrEnum):
    """A way of being set up or arriving, as restrictions name them."""

    DEPLOYMENT = "deployment"
    """Normal deployment in a deployment zone."""
    INFILTRATE = "infiltrate"
    """Infiltrate (HH2) / Infiltrators (40k)."""
    SCOUT = "scout"
    """A Scout redeploy (HH2) / Scouts move (40k): where it ends."""
    DEEP_STRIKE = "deep_strike"
    """An arrival from Reserves (Deep Strike and other reserve arrivals with positions)."""


class Restriction(Record):
    """An ability of this unit (or model): enemy units may not be set up, or arrive, within
    ``within_in`` inches of it by the ``methods`` named ("within": not more than).
    A restriction beats any permission (:class:`Permission`) of the enemy unit."""

    within_in: Num = Field(gt=0, le=100, description="No enemy set-up or arrival within this distance (inches).")
    methods: list[SetupKind] = Field(min_length=1, max_length=4, description="The set-up methods it forbids.")
    source: str = Field(min_length=1, description="Where the ability comes from (datasheet, rule page).")
    name: str = Field(default="", description="The ability's name, for reports.")


class Permission(Record):
    """An ability of this unit allowing it to be set up or arrive closer to enemy units than
    usual (more than ``more_than_in`` inches from them) by the ``methods`` named. Recorded so that
    a restriction that beats it names it; it does not relax the ruleset's own distance rules."""

    more_than_in: Num = Field(ge=0, le=100, description="It may set up more than this from enemy units (inches).")
    methods: list[SetupKind] = Field(min_length=1, max_length=4)
    source: str = Field(min_length=1)
    name: str = ""


class Model(Record):
    """A miniature: its base, type and rules (or a catalogue ``profile``), and its position.

    ``x``/``y`` are the centre of the base in inches, ``facing`` in degrees. They are optional in
    the file: a unit the planner is to place has none yet.
    """

    id: str | None = None
    name: str = ""
    profile: str | None = Field(default=None, description="Catalogue entry id, e.g. 'legion-tactical-marine'.")
    base: Base | None = None
    type: UnitType | None = None
    subtypes: list[SubType] | None = None
    rules: RuleNames = Field(default_factory=list)
    keywords: list[str] | None = Field(default=None, description="40k keywords (replace the profile's).")
    abilities: Abilities = Field(default_factory=list, description="40k abilities (added to the profile's).")
    x: Num | None = Field(default=None, ge=-1000, le=2000)
    y: Num | None = Field(default=None, ge=-1000, le=2000)
    facing: Num = Field(default=0.0, ge=-360, le=360)
    z: Num | None = Field(default=None, ge=0, le=100,
                          description="Height of the floor the model stands on (inches); none: the table.")
    height_in: Height | None = Field(default=None, description="The model's height (inches); none: its profile's, "
                                                                "else the ruleset's default for its unit type.")
    stats: Characteristics | None = Field(default=None, description="Characteristics (replace the unit's).")
    weapons: list[WeaponProfile] | None = Field(default=None, description="The model's own weapons (its "
                                                     "catalogue entry's when absent), besides the unit's.")
    restrictions: list[Restriction] = Field(default_factory=list, max_length=MAX_ITEMS,
                                            description="No enemy set-up within X\" of this model (by method).")

    @model_validator(mode="after")
    def _both_or_neither(self) -> Model:
        if (self.x is None) != (self.y is None):
            raise ValueError("give both x and y, or neither")
        return self

    @property
    def is_positioned(self) -> bool:
        return self.x is not None and self.y is not None


class SetupMethod(StrEnum):
    DEPLOYMENT_ZONE = "deployment_zone"
    INFILTRATE = "infiltrate"
    SCOUT = "scout"
    EMBARKED = "embarked"
    RESERVES = "reserves"


def _first_position(p: list[float]) -> list[float]:
    """One Scout first position (``setup.from[i]``): [x, y] or [x, y, facing], finite, the facing
    between -360 and 360 degrees. A validator of the element, so that an error names
    ``setup.from[i]`` and its value."""
    if len(p) not in (2, 3):
        raise ValueError(f"a first position is [x, y] or [x, y, facing]; {len(p)} number{'s' if len(p) != 1 else ''} given")
    if not all(math.isfinite(v) for v in p):
        raise ValueError("a first position must hold finite numbers")
    if len(p) == 3 and not -360 <= p[2] <= 360:
        raise ValueError(f"a facing is between -360 and 360 degrees, got {p[2]:g}")
    return p


class Setup(Record):
    """How a unit was (or is to be) set up.

    - ``deployment_zone``: normal deployment, wholly within ``zone`` (default: the player's zone).
    - ``infiltrate``: by the Infiltrate special rule (HH2 p.242).
    - ``scout``: deployed by ``first`` (deployment_zone or infiltrate) at the positions ``from``
      (one [x, y] or [x, y, facing] per model, in model order), then redeployed by Scout (p.246)
      to the model positions.
    - ``embarked``: inside the transport unit or building ``in`` (not on the battlefield);
      ``first: infiltrate`` says it Infiltrated into that building.
    - ``reserves``: in Reserves (not on the battlefield); ``arrival`` says how it will arrive.

    ``joined`` names the unit an Independent Character joins at deployment. ``order`` is the
    unit's place in the Infiltrate alternation (1 = deployed first); an Infiltrator is checked
    for line of sight only against enemy units deployed before it (RULES.md §1.1: "no *deployed*
    enemy unit"); an enemy Infiltrator without an order counts as deployed before.
    """

    method: SetupMethod = SetupMethod.DEPLOYMENT_ZONE
    zone: str | None = None
    first: Literal["deployment_zone", "infiltrate"] = "deployment_zone"
    from_: list[Annotated[list[Num], AfterValidator(_first_position)]] | None = Field(
        default=None, alias="from", max_length=MAX_MODELS_PER_UNIT,
        description="Scout: each model's position before the redeploy, [x, y] or [x, y, facing] (inches, degrees). "
                    "Ruling: without a facing the model stood at its end facing; for a round base that changes "
                    "nothing, for a non-round one (oval, hull) the pivot is then not measured, and the check says so "
                    "in its findings and a warning: give [x, y, facing] to measure it.")
    in_: str | None = Field(default=None, alias="in")
    arrival: Literal["reserves", "deep_strike", "outflank"] = "reserves"
    joined: str | None = None
    order: Count | None = Field(default=None, ge=1)
    battle_round: Count | None = Field(
        default=None, ge=1, description="40k: a unit in reserves with model positions arrives then (checked).")

    model_config = ConfigDict(extra="forbid", populate_by_name=True, allow_inf_nan=False)

    @model_validator(mode="before")
    @classmethod
    def _from_string(cls, data: object) -> object:
        if isinstance(data, str):
            return {"method": data}
        return data

    @classmethod
    def __get_pydantic_json_schema__(cls, core_schema: Any, handler: Any) -> Any:
        """The JSON Schema says what the loader accepts: the object, or a method name alone
        (``setup: infiltrate`` is ``setup: {method: infiltrate}``)."""
        schema = handler(core_schema)
        return {"anyOf": [schema, {"type": "string", "enum": [m.value for m in SetupMethod],
                                   "description": "a set-up method alone: {method: <it>}"}]}

    @model_validator(mode="after")
    def _consistent(self) -> Setup:
        if self.method is SetupMethod.SCOUT and self.from_ is None:
            raise ValueError("a Scout redeploy needs 'from': the model positions before the redeploy")
        if self.method is not SetupMethod.SCOUT and self.from_ is not None:
            raise ValueError("'from' is only for method 'scout'")
        if self.method is SetupMethod.EMBARKED and not self.in_:
            raise ValueError("method 'embarked' needs 'in': the transport unit or building id")
        if self.method is not SetupMethod.EMBARKED and self.in_:
            raise ValueError("'in' is only for method 'embarked'")
        return self

    @property
    def on_battlefield(self) -> bool:
        return self.method not in (SetupMethod.EMBARKED, SetupMethod.RESERVES)


class Unit(Record):
    """A unit: its models and how it is set up.

    ``type``, ``subtypes`` and ``rules`` given on the unit apply to every model; a model's own
    values (or its catalogue profile) take precedence for type and sub-types, and add rules.
    ``place: true`` marks a unit for ``planner plan`` to position.
    """

    id: str = Field(min_length=1)
    name: str = ""
    type: UnitType | None = None
    subtypes: list[SubType] = Field(default_factory=list)
    rules: RuleNames = Field(default_factory=list)
    other_rules: list[str] = Field(default_factory=list, description="Kept for reference; not read.")
    transport_capacity: Count | None = Field(default=None, ge=0)
    keywords: list[str] = Field(default_factory=list, description="40k keywords every model has.")
    abilities: Abilities = Field(default_factory=list, description="40k abilities every model has.")
    transport_eligible: KeywordPhrase = Field(default=None, description="40k TRANSPORT: who may embark (keywords).")
    points: Count | None = Field(default=None, ge=0, description="40k points cost (Strategic Reserves share).")
    setup: Setup = Field(default_factory=Setup)
    place: bool = False
    stats: Characteristics | None = Field(default=None, description="Characteristics of every model.")
    weapons: list[WeaponProfile] = Field(default_factory=list, description=(
        "Wargear of the unit's models: each weapon on every model without its own of that name, or on "
        "``count`` of them."))
    restrictions: list[Restriction] = Field(default_factory=list, max_length=MAX_ITEMS,
                                            description="No enemy set-up within X\" of this unit (by method).")
    permissions: list[Permission] = Field(default_factory=list, max_length=MAX_ITEMS,
                                          description="This unit may set up closer to enemies (named when a "
                                                      "restriction beats it).")
    models: list[Model] = Field(min_length=1, max_length=MAX_MODELS_PER_UNIT)

    @property
    def label(self) -> str:
        return self.name or self.id


class RosterRef(Record):
    """An army list to import (BattleScribe ``.ros``/``.rosz`` or New Recruit), see ``planner.io.roster``.

    ``file`` is relative to the scenario file. Its units come first; a unit written in the army
    with the id of an imported unit replaces it (to give positions or a set-up), other written
    units are added after.
    """

    file: str = Field(min_length=1)
    default_base_mm: Num | None = Field(default=None, gt=0, le=1000,
                                          description="Round base for models the catalogue does not know.")
    embark: bool = Field(default=False, description="Embark Infantry units in their Dedicated Transports.")
    place: bool = Field(default=False, description="Mark the imported units 'place: true' for planner plan.")
    id_prefix: str = Field(default="", description="Put before every imported unit id.")


class Army(Record):
    """One player's army."""

    player: str = Field(min_length=1)
    name: str = ""
    roster: RosterRef | None = Field(default=None, description="Import the units of an army list file.")
    units: list[Unit] = Field(default_factory=list, max_length=MAX_UNITS)


# --------------------------------------------------------------------------- goals


class GoalBase(Record):
    """What every goal has: a ``weight`` (objective units per unit of the goal's measure), an
    optional ``name`` for reports, and ``units``: the ids of the placed units it applies to (all
    placed units when omitted)."""

    weight: Num = Field(default=1.0, gt=0)
    name: str | None = None
    units: list[str] | None = Field(default=None, description="Placed unit ids the goal applies to (default: all).")


class NearPointGoal(GoalBase):
    """Get close to a point: sum over models of the centre distance to (x, y), inches."""

    kind: Literal["near_point"] = "near_point"
    x: Num
    y: Num


class NearObjectiveGoal(GoalBase):
    """Get close to an objective marker: sum over models of the centre distance to its centre, inches."""

    kind: Literal["near_objective"] = "near_objective"
    objective: str = Field(min_length=1)


class NearEnemyUnitGoal(GoalBase):
    """Get close to a named enemy unit: sum over models of the centre distance to the nearest
    model centre of that unit, inches (it must be on the battlefield)."""

    kind: Literal["near_enemy_unit"] = "near_enemy_unit"
    unit: str = Field(min_length=1)


class HiddenGoal(GoalBase):
    """Stay hidden: per unit, the number of enemy units on the battlefield that the planner cannot
    prove are unable to draw line of sight to it (a sound count: never fewer than the true one)."""

    kind: Literal["hidden"] = "hidden"


class InTerrainGoal(GoalBase):
    """Stand in terrain: the number of models *not* standing in one of the area features
    ``features`` (default: any area feature), by each feature's ``standing_in`` reading."""

    kind: Literal["in_terrain"] = "in_terrain"
    features: list[str] | None = None


class ControlObjectiveGoal(GoalBase):
    """Control an objective: per unit, 1 if no model is within the ruleset's control range of the
    objective marker (HH2: 3", base to marker), else 0."""

    kind: Literal["control_objective"] = "control_objective"
    objective: str = Field(min_length=1)


class NearFriendlyGoal(GoalBase):
    """Keep units near a named friendly unit already on the battlefield: sum over models of the
    centre distance to its nearest model centre, inches."""

    kind: Literal["near_friendly"] = "near_friendly"
    unit: str = Field(min_length=1)


class FarFromEnemyGoal(GoalBase):
    """Stay far from an enemy threat: sum over models of how much closer than ``cap`` inches the
    model centre is to the threat's nearest model centre (0 once beyond the cap)."""

    kind: Literal["far_from_enemy"] = "far_from_enemy"
    unit: str = Field(min_length=1)
    cap: Num = Field(default=24.0, gt=0, le=1000)


class StayCloseGoal(GoalBase):
    """Stay close to where the models stand: sum over the placed units' models of the centre to
    centre distance from the model's position in the scenario, inches (the placed units need
    positions). The goal of ``planner check --suggest`` (:func:`planner.solve.suggest.suggest_moves`)."""

    kind: Literal["stay_close"] = "stay_close"


class DenyGoal(Record):
    """Screening: place the marked units so that the enemy unit's legal Infiltrate area
    is as small as possible; with ``protect`` and ``radius`` (inches), no legal arrival of it on
    the enemy grid (anchors every ``grid_in`` inches, default 2") may have a base within ``radius``
    of the point. The proof covers that grid only: an arrival between its anchors may come closer
    (the report re-checks on a grid half as fine and says what it finds). Routed by
    ``planner plan`` to :func:`planner.adversary.deny.deny`."""

    kind: Literal["deny"] = "deny"
    enemy_unit: str = Field(min_length=1, description="Id of the enemy unit that Infiltrates after my set-up.")
    also: list[str] = Field(default_factory=list, description="More enemy units (objective 'reply' only).")
    protect: Point | None = None
    radius: Num | None = Field(default=None, gt=0, le=1000, description=(
        "Inches: no legal arrival on the grid_in grid may have a base within this distance of 'protect' "
        "(an arrival between the grid's anchors may; the report re-checks on a finer grid)."))
    objective: Literal["area", "reply"] = Field(
        default="area", description="'area': least legal area left; 'reply' (min-max, needs 'protect'): keep the "
                                    "enemy's best arrival as far from the point as possible.")
    grid_in: Num = Field(
        default=2.0, ge=0.5, le=12,
        description="The enemy's arrival grid, inches (anchors every grid_in, as 'planner threats --grid'): the "
                    "area, the radius and the best reply are proven over this grid only, and an arrival between its "
                    "anchors may come closer; a finer grid is slower.")
    weight: Num = Field(default=1.0, gt=0)

    @model_validator(mode="after")
    def _protect_and_radius(self) -> DenyGoal:
        if self.objective == "reply":
            if self.protect is None:
                raise ValueError("objective 'reply' needs 'protect' (the point the enemy goes for)")
            return self
        if self.also:
            raise ValueError("'also' (more enemy units) is for objective 'reply'")
        if (self.protect is None) != (self.radius is None):
            raise ValueError("give both 'protect' (a point) and 'radius', or neither")
        return self

class ObjectiveGoal(GoalBase):
    """40k: hold objective ``objective``: the number of placed models not in range of it (within
    3" of the marker, RULES.md §3.1 Objectives), each costing 20" of distance (combine with
    ``near_objective`` to also pull the models close to it)."""

    kind: Literal["objective"] = "objective"
    objective: str = Field(min_length=1, description="Objective id.")


class CoverGoal(GoalBase):
    """40k: the placed units should have the benefit of cover against enemy unit ``against``
    (11th: every model INFANTRY/BEASTS/SWARM within a terrain area or not fully visible; 10th:
    every model wholly within ruins or not fully visible): the models of a unit without it, each
    costing 20" of distance."""

    kind: Literal["cover"] = "cover"
    against: str = Field(min_length=1, description="Enemy unit id.")


class ExposureGoal(GoalBase):
    """Lose little to the enemy's first turn: per placed unit, the expected models it
    loses if every enemy unit able to shoot it after a Normal move does
    (:mod:`planner.combat.exposure`; units need profiles)."""

    kind: Literal["exposure"] = "exposure"


class ObjectiveControlGoal(GoalBase):
    """40k: keep Objective Control of ``objective`` after the enemy's first turn: per placed
    unit, its full OC less its expected OC on the objective after the exposure goal's losses and
    battle-shock (:func:`planner.combat.exposure.oc_after`; OC 0 out of range); units need OC and Ld."""

    kind: Literal["objective_control"] = "objective_control"
    objective: str = Field(min_length=1, description="Objective id.")


Goal = Annotated[
    NearPointGoal | NearObjectiveGoal | NearEnemyUnitGoal | HiddenGoal | InTerrainGoal | ControlObjectiveGoal
    | NearFriendlyGoal | FarFromEnemyGoal | DenyGoal | ObjectiveGoal | CoverGoal | StayCloseGoal | ExposureGoal
    | ObjectiveControlGoal,
    Field(discriminator="kind"),
]


# --------------------------------------------------------------------------- scenario


class Scenario(Record):
    """A whole scenario file."""

    ruleset: str = Field(description="Ruleset id, e.g. 'hh2' (Horus Heresy 2.0).")
    name: str = ""
    description: str = ""
    battlefield: Battlefield = Field(
        default_factory=Battlefield,
        description="The table, inches. Not given: the ruleset's default table (72\" x 48\" for hh2, wh40k5 and "
                    "wh40k7; 60\" x 44\" Strike Force for wh40k10 and wh40k11), which check and plan warn of.")
    terrain: list[TerrainFeature] = Field(default_factory=list, max_length=MAX_TERRAIN)
    deployment_zones: list[DeploymentZone] = Field(default_factory=list, max_length=MAX_ITEMS)
    objectives: list[Objective] = Field(default_factory=list, max_length=MAX_ITEMS)
    armies: list[Army] = Field(default_factory=list, max_length=MAX_ITEMS)
    goals: list[Goal] = Field(default_factory=list, max_length=MAX_ITEMS)
    points_limit: Count | None = Field(default=None, gt=0, description="40k: the battle size's points limit.")
    rulings: dict[str, str] = Field(
        default_factory=dict, max_length=MAX_ITEMS,
        description="Readings of points the sources leave open, KEY: VALUE (`planner rules --rulings` lists "
                    "them); a ruling not given takes its default.")

    @field_validator("armies", mode="after")
    @classmethod
    def _model_count(cls, armies: list[Army]) -> list[Army]:
        """At most :data:`MAX_MODELS` models in all the armies: an error at ``armies`` whose value
        is the count (:data:`TOO_MANY_MODELS`)."""
        n = sum(len(u.models) for a in armies for u in a.units)
        if n > MAX_MODELS:
            raise PydanticCustomError(TOO_MANY_MODELS, "the scenario has {count} models; at most {limit} are allowed",
                                      {"count": n, "limit": MAX_MODELS})
        return armies
