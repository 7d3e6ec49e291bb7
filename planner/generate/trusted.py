"""The :class:`planner.schema.Scenario` of a generated scene, built without pydantic's validation.

The generator writes its scenes as plain data (:meth:`planner.generate.scene.Scene.data`) and
labels the record that data validates to. Validating it again for every line costs about as much
as resolving it (most of it :meth:`planner.schema.Record._clean_text` on every field), and the
data holds nothing the generator did not make: ids and names it chose, catalogue entries (read
and validated once), floats it computed, polygons it drew. :func:`generated_scenario` builds the
same record directly, for the shapes of data the generator writes (catalogue units, the subject
unit, terrain features with their traits and Buildings, the players' zones, rulings), each
field's value of the type validation would give it and ``model_fields_set`` the keys given.

Anything else (a key it does not know, a value of another type, a number out of its field's
range, a polygon that is not simple, units from a roster file) is validated as before, with
``Scenario.model_validate``: the fast path never accepts what validation would refuse, and
refuses nothing itself. ``tests/test_labels6.py`` compares both records on generated lines.
"""

from __future__ import annotations

import math
from typing import Any

from pydantic import BaseModel

from planner.legality.report import _trusted
from planner.schema import (
    MAX_ITEMS,
    MAX_MAGNITUDE,
    MAX_MODELS,
    MAX_MODELS_PER_UNIT,
    MAX_TERRAIN,
    MAX_UNITS,
    Army,
    Battlefield,
    Building,
    DeploymentZone,
    HullBase,
    Model,
    OvalBase,
    RoundBase,
    Scenario,
    Setup,
    SetupMethod,
    TerrainFeature,
    TerrainKind,
    TerrainTrait,
    Unit,
    UnitType,
    _check_polygon,
    parse_rule,
    text_problem,
)


class _Untrusted(Exception):
    """The data is not of a shape the fast path builds: validate it."""


_PLANS: dict[type, tuple[dict[str, Any], tuple[tuple[str, Any], ...], frozenset[str]]] = {}


def _plan(cls: type[BaseModel]) -> tuple[dict[str, Any], tuple[tuple[str, Any], ...], frozenset[str]]:
    """``cls``'s fields: the plain defaults (a required field: None), the default factories, the
    required fields; read once per record class."""
    hit = _PLANS.get(cls)
    if hit is None:
        fields = cls.model_fields
        plain = {n: (None if f.is_required() or f.default_factory is not None else f.default)
                 for n, f in fields.items()}
        factories = tuple((n, f.default_factory) for n, f in fields.items() if f.default_factory is not None)
        hit = _PLANS[cls] = (plain, factories, frozenset(n for n, f in fields.items() if f.is_required()))
    return hit


def _defaults(cls: type[BaseModel]) -> dict[str, Any]:
    """Every field of ``cls`` at its default (a new list or dict from a default factory each call;
    None for a required field, which the caller gives)."""
    plain, factories, _ = _plan(cls)
    out = dict(plain)
    for name, make in factories:
        out[name] = make()
    return out


def _make(cls: type[BaseModel], values: dict[str, Any], given: set[str]) -> Any:
    if not _plan(cls)[2] <= given:
        raise _Untrusted
    return _trusted(cls, values, given)


def _keys(d: object, allowed: frozenset[str]) -> dict:
    if type(d) is not dict or not allowed.issuperset(d):
        raise _Untrusted
    return d


def _text(v: object, *, is_id: bool, min_length: int = 0) -> str:
    if type(v) is not str or len(v) < min_length or text_problem(v, is_id=is_id) is not None:
        raise _Untrusted
    return v


def _num(v: object, lo: float = -MAX_MAGNITUDE, hi: float = MAX_MAGNITUDE, *, gt: bool = False) -> float:
    """A float as a ``Num`` field with these bounds holds it (``gt``: strictly more than ``lo``)."""
    if type(v) is not float or not math.isfinite(v) or not (lo < v if gt else lo <= v) or not v <= hi \
            or abs(v) > MAX_MAGNITUDE:
        raise _Untrusted
    return v


def _points(v: object) -> list[tuple[float, float]]:
    if type(v) is not list:
        raise _Untrusted
    pts = []
    for p in v:
        if type(p) is not list or len(p) != 2:
            raise _Untrusted
        pts.append((_num(p[0]), _num(p[1])))
    try:
        _check_polygon(pts, "polygon")
    except ValueError:
        raise _Untrusted from None
    return pts


_BATTLEFIELD = frozenset({"width", "depth"})
_FEATURE = frozenset({"id", "name", "kind", "traits", "footprint", "building"})
_ZONE = frozenset({"id", "player", "polygon"})
_ARMY = frozenset({"player", "units"})
_UNIT = frozenset({"id", "name", "rules", "abilities", "setup", "models"})
_SETUP = frozenset({"method", "zone", "arrival"})
_MODEL = frozenset({"profile", "base", "type", "x", "y", "facing"})
_BASES: dict[str, tuple[type[BaseModel], tuple[str, ...], float]] = {
    "round": (RoundBase, ("diameter_mm",), 1000.0), "oval": (OvalBase, ("length_mm", "width_mm"), 1000.0),
    "hull": (HullBase, ("length_in", "width_in"), 100.0)}
"""Each base shape: its record, its size fields and their upper bound (each more than 0)."""
_SCENARIO = frozenset({"ruleset", "name", "description", "battlefield", "terrain", "deployment_zones", "armies",
                       "rulings"})
_KINDS = {k.value: k for k in TerrainKind}
_TRAITS = {t.value: t for t in TerrainTrait}
_METHODS = {m.value: m for m in SetupMethod}
_TYPES = {t.value: t for t in UnitType}


def _battlefield(d: object) -> Battlefield:
    d = _keys(d, _BATTLEFIELD)
    v = _defaults(Battlefield)
    for k in d:
        v[k] = _num(d[k], 0.0, 1000.0, gt=True)
    return _make(Battlefield, v, set(d))


def _feature(d: object) -> TerrainFeature:
    d = _keys(d, _FEATURE)
    if "footprint" not in d:
        raise _Untrusted
    v = _defaults(TerrainFeature)
    v["id"] = _text(d.get("id"), is_id=True, min_length=1)
    if "name" in d:
        v["name"] = _text(d["name"], is_id=False)
    if "kind" in d:
        if type(d["kind"]) is not str or d["kind"] not in _KINDS:
            raise _Untrusted
        v["kind"] = _KINDS[d["kind"]]
    if "traits" in d:
        if type(d["traits"]) is not list or not all(type(t) is str and t in _TRAITS for t in d["traits"]):
            raise _Untrusted
        v["traits"] = [_TRAITS[t] for t in d["traits"]]
    v["footprint"] = _points(d["footprint"])
    if "building" in d:
        b = _keys(d["building"], frozenset({"capacity"}))
        cap = b.get("capacity")
        if type(cap) is not int or not 1 <= cap <= MAX_MAGNITUDE:
            raise _Untrusted
        v["building"] = _make(Building, {"capacity": cap}, {"capacity"})
    return _make(TerrainFeature, v, set(d))


def _zone(d: object) -> DeploymentZone:
    d = _keys(d, _ZONE)
    v = {"id": _text(d.get("id"), is_id=True, min_length=1), "player": _text(d.get("player"), is_id=True,
                                                                              min_length=1),
         "polygon": _points(d.get("polygon"))}
    return _make(DeploymentZone, v, set(d))


def _setup(d: object) -> Setup:
    d = _keys(d, _SETUP)
    method = d.get("method", SetupMethod.DEPLOYMENT_ZONE.value)
    if type(method) is not str or method not in _METHODS:
        raise _Untrusted
    v = _defaults(Setup)
    v["method"] = _METHODS[method]
    if v["method"] in (SetupMethod.SCOUT, SetupMethod.EMBARKED):  # need 'from' / 'in': validate
        raise _Untrusted
    if "zone" in d:
        v["zone"] = _text(d["zone"], is_id=True)
    if "arrival" in d:
        if d["arrival"] not in ("reserves", "deep_strike", "outflank"):
            raise _Untrusted
        v["arrival"] = d["arrival"]
    return _make(Setup, v, set(d))


def _base(d: object) -> BaseModel:
    """A base written with its ``shape`` (as ``CatalogueEntry.base.model_dump`` writes it)."""
    if type(d) is not dict or d.get("shape") not in _BASES:
        raise _Untrusted
    cls, sizes, hi = _BASES[d["shape"]]
    d = _keys(d, frozenset(("shape", *sizes)))
    v: dict[str, Any] = {"shape": d["shape"]}
    for k in sizes:
        v[k] = _num(d.get(k), 0.0, hi, gt=True)
    return _make(cls, v, set(d))


def _model(d: object) -> Model:
    d = _keys(d, _MODEL)
    v = _defaults(Model)
    if "profile" in d:
        v["profile"] = _text(d["profile"], is_id=True)
    if "base" in d:
        v["base"] = _base(d["base"])
    if "type" in d:
        if type(d["type"]) is not str or d["type"] not in _TYPES:
            raise _Untrusted
        v["type"] = _TYPES[d["type"]]
    if ("x" in d) != ("y" in d):
        raise _Untrusted
    if "x" in d:
        v["x"], v["y"] = _num(d["x"], -1000.0, 2000.0), _num(d["y"], -1000.0, 2000.0)
    if "facing" in d:
        v["facing"] = _num(d["facing"], -360.0, 360.0)
    return _make(Model, v, set(d))


def _names(v: object, *, rules: bool) -> list[str]:
    if type(v) is not list or not all(type(x) is str and text_problem(x, is_id=False) is None for x in v):
        raise _Untrusted
    if rules:
        try:
            for r in v:
                parse_rule(r)
        except ValueError:
            raise _Untrusted from None
    else:
        from planner.rules.abilities import parse_ability

        try:
            for a in v:
                parse_ability(a)
        except ValueError:
            raise _Untrusted from None
    return list(v)


def _unit(d: object) -> Unit:
    d = _keys(d, _UNIT)
    v = _defaults(Unit)
    v["id"] = _text(d.get("id"), is_id=True, min_length=1)
    if "name" in d:
        v["name"] = _text(d["name"], is_id=False)
    if "rules" in d:
        v["rules"] = _names(d["rules"], rules=True)
    if "abilities" in d:
        v["abilities"] = _names(d["abilities"], rules=False)
    if "setup" in d:
        v["setup"] = _setup(d["setup"])
    models = d.get("models")
    if type(models) is not list or not 1 <= len(models) <= MAX_MODELS_PER_UNIT:
        raise _Untrusted
    v["models"] = [_model(m) for m in models]
    return _make(Unit, v, set(d))


def _army(d: object) -> Army:
    d = _keys(d, _ARMY)
    v = _defaults(Army)
    v["player"] = _text(d.get("player"), is_id=True, min_length=1)
    units = d.get("units", [])
    if type(units) is not list or len(units) > MAX_UNITS:
        raise _Untrusted
    v["units"] = [_unit(u) for u in units]
    return _make(Army, v, set(d))


def _scenario(data: dict) -> Scenario:
    d = _keys(data, _SCENARIO)
    v = _defaults(Scenario)
    v["ruleset"] = _text(d.get("ruleset"), is_id=True)
    for k in ("name", "description"):
        if k in d:
            v[k] = _text(d[k], is_id=False)
    if "battlefield" in d:
        v["battlefield"] = _battlefield(d["battlefield"])
    for key, make, most in (("terrain", _feature, MAX_TERRAIN), ("deployment_zones", _zone, MAX_ITEMS),
                            ("armies", _army, MAX_ITEMS)):
        items = d.get(key, [])
        if type(items) is not list or len(items) > most:
            raise _Untrusted
        v[key] = [make(x) for x in items]
    if "rulings" in d:
        r = d["rulings"]
        if type(r) is not dict or len(r) > MAX_ITEMS or not all(type(a) is str and type(b) is str
                                                                for a, b in r.items()):
            raise _Untrusted
        v["rulings"] = dict(r)
    sc = _make(Scenario, v, set(d))
    if sum(len(u.models) for a in sc.armies for u in a.units) > MAX_MODELS:
        raise _Untrusted
    return sc


def generated_scenario(data: dict) -> Scenario:
    """``Scenario.model_validate(data)`` for the data of a generated scene: the same record (the
    same fields, values, types and fields set), built directly when the data is of the shapes
    the generator writes, else validated.

    Raises
    ------
    pydantic.ValidationError
        As ``Scenario.model_validate``, for data it refuses (only ever from the validated path).
    """
    try:
        return _scenario(data)
    except _Untrusted:
        return Scenario.model_validate(data)
