"""A loaded scenario with every reference resolved: what the checker and the planner read.

:func:`load_scenario` reads a file, validates it against the schema, fills models from the
``models/`` catalogue and checks that ids are unique and references resolve. Every failure is a
:class:`planner.errors.ScenarioError` naming the file, the field path and the value.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from planner.errors import ScenarioError, UnknownRulesetError
from planner.io.catalogue import load_catalogue
from planner.schema import (
    Base,
    Battlefield,
    DeploymentZone,
    Scenario,
    SetupMethod,
    SpecialRule,
    SubType,
    TerrainFeature,
    Unit,
    UnitType,
    parse_rule,
)

if TYPE_CHECKING:
    from planner.rules.base import Ruleset

FAR_OFF_TABLE_IN = 24.0
"""A model centre more than this far outside the battlefield is a typo, not a deployment: input error."""


@dataclass(frozen=True)
class ModelInfo:
    """One miniature with its effective base, type, sub-types and rules, and its position (inches)."""

    unit_id: str
    index: int
    id: str
    label: str
    base: Base
    type: UnitType
    subtypes: frozenset[SubType]
    rules: frozenset[SpecialRule]
    bulky: int
    x: float | None
    y: float | None
    facing: float
    keywords: frozenset[str] = frozenset()
    """40k keywords, canonical (upper case, singular: :func:`planner.rules.keywords.canonical`)."""
    abilities: tuple[tuple[str, float | None], ...] = ()
    """40k abilities as (name, value), e.g. ("Scouts", 6.0)."""
    z: float = 0.0
    """Height of the floor the model stands on (inches; 0: the table)."""
    height_in: float | None = None
    """The model's own or its profile's height (inches); None: the ruleset's default for its type
    (:meth:`planner.rules.base.Ruleset.model_height`)."""

    def ability(self, name: str) -> tuple[bool, float | None]:
        """(has the 40k ability ``name``, its value)."""
        for n, v in self.abilities:
            if n == name:
                return True, v
        return False, None

    @property
    def ref(self) -> str:
        """``unit/model`` reference used in findings."""
        return f"{self.unit_id}/{self.id}"

    def has(self, rule: SpecialRule) -> bool:
        return rule in self.rules


_MODEL_INFO_FIELDS = tuple(f.name for f in fields(ModelInfo))


def _model_info(*values: Any) -> ModelInfo:
    """``ModelInfo(*values)`` (every field given, in the class's order): an equal object with the
    same fields in the same order, made without the frozen dataclass's field-by-field
    ``object.__setattr__`` (0.6 instead of 1.6 us; :func:`resolve` makes one per model).

    Raises
    ------
    ValueError
        Not one value per field.
    """
    mi = object.__new__(ModelInfo)
    mi.__dict__.update(zip(_MODEL_INFO_FIELDS, values, strict=True))
    return mi


@dataclass
class UnitInfo:
    """A unit with its player, set-up and resolved models."""

    id: str
    label: str
    player: str
    record: Unit
    models: list[ModelInfo]
    path: str
    transport_capacity: int | None = None
    embarked: list[str] = field(default_factory=list)
    joined_by: list[str] = field(default_factory=list)

    @property
    def setup(self):  # -> Setup
        return self.record.setup

    @property
    def method(self) -> SetupMethod:
        return self.record.setup.method

    @property
    def on_battlefield(self) -> bool:
        return self.record.setup.on_battlefield

    def any_model_has(self, rule: SpecialRule) -> bool:
        """"A unit containing at least one model with this special rule"."""
        return any(rule in m.rules for m in self.models)

    def all_models_have(self, rule: SpecialRule) -> bool:
        """"A unit made up entirely of models with this special rule"."""
        return all(rule in m.rules for m in self.models)

    @property
    def types(self) -> frozenset[UnitType]:
        return frozenset(m.type for m in self.models)

    @property
    def subtypes(self) -> frozenset[SubType]:
        out: set[SubType] = set()
        for m in self.models:
            out |= m.subtypes
        return frozenset(out)

    @property
    def is_positioned(self) -> bool:
        return all(m.x is not None for m in self.models)

    def capacity_used(self) -> int:
        return sum(m.bulky for m in self.models)


@dataclass
class World:
    """A scenario, resolved: units by id, players, zones, terrain."""

    scenario: Scenario
    file: str | None
    units: dict[str, UnitInfo]
    players: list[str]
    zones: dict[str, DeploymentZone]
    terrain: dict[str, TerrainFeature]
    raw: dict | None = None
    """The file's data as read (so that a planned scenario keeps the user's own wording)."""
    rulings_used: dict[str, str] = field(default_factory=dict)
    """The rulings :meth:`ruling` was asked for, with the reading applied (what reports state)."""
    battlefield_default: tuple[str, ...] = ()
    """The table's dimensions (``"width"``, ``"depth"``) the scenario does not give, taken from its
    ruleset's default table (:attr:`planner.rules.base.Ruleset.BATTLEFIELD_WIDTH_IN`,
    ``BATTLEFIELD_DEPTH_IN``): both when there is no ``battlefield:``; empty when the scenario gives
    both. The command line says which were taken."""

    def ruling(self, key: str) -> str:
        """The reading of ruling ``key`` applied to this scenario: the scenario's ``rulings:``
        (with any ``--ruling`` given on the command line), else the ruling's default
        (:attr:`planner.rules.base.Ruleset.RULINGS`). Recorded in :attr:`rulings_used`.

        Raises
        ------
        KeyError
            If the scenario's ruleset declares no ruling ``key`` (a bug: code asks only for
            rulings its ruleset declares).
        """
        info = self.ruleset.ruling_info(key)
        value = self.scenario.rulings.get(key, info.default)
        self.rulings_used[key] = value
        return value

    def with_rulings(self, chosen: dict[str, str], location: str = "--ruling") -> World:
        """This world with the rulings ``chosen`` (KEY -> VALUE) over the scenario's own (in place;
        returns the world).

        Raises
        ------
        ScenarioError
            For a key the ruleset does not declare or a value that is not one of its readings
            (field ``--ruling.KEY``).
        """
        if chosen:
            checked = self.ruleset.check_rulings(chosen, location=location)
            self.scenario = self.scenario.model_copy(update={"rulings": {**self.scenario.rulings, **checked}})
            if isinstance(self.raw, dict):
                self.raw = {**self.raw, "rulings": {**(self.raw.get("rulings") or {}), **checked}}
        return self

    @property
    def ruleset(self) -> Ruleset:
        """The scenario's ruleset (:func:`planner.rules.registry.find_ruleset`)."""
        from planner.rules.registry import find_ruleset

        return find_ruleset(self.scenario.ruleset)

    def units_of(self, player: str) -> list[UnitInfo]:
        return [u for u in self.units.values() if u.player == player]

    def enemies_of(self, player: str) -> list[UnitInfo]:
        return [u for u in self.units.values() if u.player != player]

    def zone_of(self, player: str) -> DeploymentZone | None:
        for z in self.zones.values():
            if z.player == player:
                return z
        return None


def _keywords_of(m, unit: Unit, entry) -> frozenset[str]:
    """A model's 40k keywords: its own list, else its catalogue entry's, plus the unit's."""
    from planner.rules.keywords import keyword_set

    own = m.keywords if m.keywords is not None else (entry.keywords if entry is not None else [])
    return keyword_set([*own, *unit.keywords])


def _abilities_of(m, unit: Unit, entry) -> tuple[tuple[str, float | None], ...]:
    from planner.rules.abilities import parse_ability

    names = [*unit.abilities, *(entry.abilities if entry is not None else []), *m.abilities]
    out: dict[str, float | None] = {}
    for n in names:
        a, v = parse_ability(n)
        out[a.value] = v if a.value not in out or v is None else max(v, out[a.value] or 0.0)
    return tuple(out.items())


def _type_from_keywords(kws: frozenset[str]) -> UnitType:
    """A 40k model without an HH2 unit type: VEHICLE -> Vehicle, MONSTER -> Monstrous, else Infantry
    (the HH2 type is not read by the 40k checker; the 40k rules read keywords)."""
    if "VEHICLE" in kws:
        return UnitType.VEHICLE
    if "MONSTER" in kws:
        return UnitType.MONSTROUS
    return UnitType.INFANTRY


def _err(msg: str, file: str | None, loc: str, value: object = None) -> ScenarioError:
    return ScenarioError(msg, file=file, location=loc, value=value)


def resolve(scenario: Scenario, file: str | None = None, *, require_positions: bool = False) -> World:
    """Resolve catalogue profiles and cross-references of a validated scenario.

    Parameters
    ----------
    scenario : Scenario
        A record that passed schema validation.
    file : str, optional
        File name for error messages.
    require_positions : bool
        If True, every model of a unit on the battlefield needs ``x`` and ``y`` (what ``check``
        needs); if False, units marked ``place: true`` may lack them (what ``plan`` needs).

    Raises
    ------
    ScenarioError
        Unknown ruleset, duplicate id, dangling reference, unknown catalogue profile, a model with
        no base or type, a model far off the table, or a missing position.
    """
    rs = _scenario_ruleset(scenario, file)
    if rs.id != scenario.ruleset:  # an alias ('hh2.0'): every later lookup uses the ruleset's id
        scenario = scenario.model_copy(update={"ruleset": rs.id})
    scenario, battlefield_default = _default_battlefield(scenario, rs)
    if any(a.roster is not None for a in scenario.armies):
        from planner.io.roster import expand_rosters

        scenario, _ = expand_rosters(scenario, file)
    catalogue = load_catalogue(rs.catalogue)
    players = _check_ids_and_players(scenario, file)
    _check_outlines_near_table(scenario, file)
    units = _resolve_units(scenario, catalogue, file)
    zones = {z.id: z for z in scenario.deployment_zones}
    terrain = {t.id: t for t in scenario.terrain}
    for u in units.values():
        _check_setup(u, units, zones, terrain, scenario.battlefield, file, require_positions)
    _check_goals(scenario, rs, units, file)
    rs.check_rulings(scenario.rulings, file=file)
    return World(scenario, file, units, players, zones, terrain, battlefield_default=battlefield_default)


def _default_battlefield(scenario: Scenario, rs: Ruleset) -> tuple[Scenario, tuple[str, ...]]:
    """``scenario`` with every table dimension it does not give (no ``battlefield:``, or one
    without ``width`` or ``depth``) taken from its ruleset's default table (the size differs by
    ruleset: its module gives it), and the names of the dimensions taken."""
    given = scenario.battlefield.model_fields_set if "battlefield" in scenario.model_fields_set else set()
    missing = tuple(k for k in ("width", "depth") if k not in given)
    if not missing:
        return scenario, ()
    size = {"width": rs.BATTLEFIELD_WIDTH_IN, "depth": rs.BATTLEFIELD_DEPTH_IN}
    bf = Battlefield(**{k: getattr(scenario.battlefield, k) if k in given else size[k] for k in ("width", "depth")})
    return scenario.model_copy(update={"battlefield": bf}), missing


def _scenario_ruleset(scenario: Scenario, file: str | None) -> Ruleset:
    """The scenario's ruleset; an unknown one is an error naming the file and the field."""
    from planner.rules.registry import find_ruleset

    try:
        return find_ruleset(scenario.ruleset)
    except UnknownRulesetError as exc:
        raise UnknownRulesetError(exc.detail, file=file, location="ruleset", value=scenario.ruleset) from None


def _check_unique(items, what: str, file: str | None) -> None:
    """No two of ``items`` (the scenario's ``what`` list) share an id."""
    seen: set[str] = set()
    for i, it in enumerate(items):
        if it.id in seen:
            raise _err(f"duplicate {what} id", file, f"{what}[{i}].id", it.id)
        seen.add(it.id)


def _check_ids_and_players(scenario: Scenario, file: str | None) -> list[str]:
    """The players, in army order, after checking terrain, zone and objective ids are unique, one
    army per player and a zone only for a player with an army."""
    _check_unique(scenario.terrain, "terrain", file)
    _check_unique(scenario.deployment_zones, "deployment_zones", file)
    _check_unique(scenario.objectives, "objectives", file)
    players: list[str] = []
    for ai, army in enumerate(scenario.armies):
        if army.player in players:
            raise _err("two armies for the same player", file, f"armies[{ai}].player", army.player)
        players.append(army.player)
    for zi, z in enumerate(scenario.deployment_zones):
        if z.player not in players:
            raise _err(f"deployment zone of a player with no army (players: {players})", file,
                       f"deployment_zones[{zi}].player", z.player)
    return players


def _far_off_table(x: float, y: float, bf) -> bool:
    """Whether (x, y) is more than ``FAR_OFF_TABLE_IN`` outside the battlefield ``bf`` (inches)."""
    return not (-FAR_OFF_TABLE_IN <= x <= bf.width + FAR_OFF_TABLE_IN
                and -FAR_OFF_TABLE_IN <= y <= bf.depth + FAR_OFF_TABLE_IN)


def _check_outlines_near_table(scenario: Scenario, file: str | None) -> None:
    """No terrain footprint or deployment zone point far outside the battlefield."""
    bf = scenario.battlefield
    for ti, t in enumerate(scenario.terrain):
        outlines = [("footprint", t.footprint or [])] + [(f"pieces[{k}].footprint", p.footprint)
                                                        for k, p in enumerate(t.pieces)]
        outlines += [(f"walls[{k}].{'points' if w.points else 'footprint'}", w.points or w.footprint or [])
                     for k, w in enumerate(t.walls)]
        for where, points in outlines:
            for pi, (x, y) in enumerate(points):
                if _far_off_table(x, y, bf):
                    raise _err("terrain point far outside the battlefield", file, f"terrain[{ti}].{where}[{pi}]",
                               [x, y])
    for zi, z in enumerate(scenario.deployment_zones):
        for pi, (x, y) in enumerate(z.polygon):
            if _far_off_table(x, y, bf):
                raise _err("deployment zone point far outside the battlefield", file,
                           f"deployment_zones[{zi}].polygon[{pi}]", [x, y])


def _resolve_units(scenario: Scenario, catalogue, file: str | None) -> dict[str, UnitInfo]:
    """Every army's units with their resolved models, by unique unit id."""
    units: dict[str, UnitInfo] = {}
    where: dict[str, str] = {}
    for ai, army in enumerate(scenario.armies):
        for ui, unit in enumerate(army.units):
            upath = f"armies[{ai}].units[{ui}]"
            if unit.id in units:  # a clash with a roster's unit is refused before, at its id_prefix (expand_rosters)
                raise _err(f"duplicate unit id (also {where[unit.id]}.id)", file, f"{upath}.id", unit.id)
            where[unit.id] = upath
            units[unit.id] = _resolve_unit(scenario, unit, army.player, upath, catalogue, file)
    return units


def _resolve_unit(scenario: Scenario, unit: Unit, player: str, upath: str, catalogue,
                  file: str | None) -> UnitInfo:
    """One unit: its models resolved in order (unique model ids) and its transport capacity."""
    unit_rules = [parse_rule(r) for r in unit.rules]
    models: list[ModelInfo] = []
    seen_model_ids: set[str] = set()
    traits: dict[str, tuple] = {}
    for mi, m in enumerate(unit.models):
        models.append(_resolve_model(scenario, unit, unit_rules, m, mi, f"{upath}.models[{mi}]", seen_model_ids,
                                     catalogue, file, traits))
    cap = _transport_capacity(unit, catalogue)
    return UnitInfo(unit.id, unit.label, player, unit, models, upath, cap)


def _resolve_model(scenario: Scenario, unit: Unit, unit_rules: list, m, mi: int, mpath: str,
                   seen_model_ids: set[str], catalogue, file: str | None, traits: dict | None = None) -> ModelInfo:
    """One model: catalogue entry, base, type and keywords, sub-types, rules, id and position.

    ``traits``: the unit's models resolved so far, by profile, for models that give nothing of
    their own (type, keywords, sub-types, rules, abilities): those traits depend only on the
    unit and the catalogue entry, so a unit of ten such models derives them once."""
    plain = traits is not None and m.profile is not None and m.type is None and m.keywords is None \
        and m.subtypes is None and not m.rules and not m.abilities
    hit = traits.get(m.profile) if plain and traits is not None else None
    if hit is not None:
        entry, mtype, kws, subs, rules, bulky, abilities = hit
    else:
        entry = None
        if m.profile is not None:
            entry = catalogue.get(m.profile)
            if entry is None:
                raise _err(f"no catalogue entry with this id or name for ruleset {scenario.ruleset!r}",
                           file, f"{mpath}.profile", m.profile)
    base = m.base or (entry.base if entry else None)
    if base is None:
        raise _err("model has no base: give 'base' or a catalogue 'profile'", file, f"{mpath}.base")
    if hit is None:
        mtype, kws = _model_type(m, unit, entry, mpath, file)
        subs = frozenset(_model_subtypes(m, unit, entry))
        rules, bulky = _model_rules(m, unit_rules, entry)
        abilities = _abilities_of(m, unit, entry)
        if plain and traits is not None:
            traits[m.profile] = (entry, mtype, kws, subs, rules, bulky, abilities)
    mid = m.id or str(mi + 1)
    if mid in seen_model_ids:
        raise _err("duplicate model id within the unit", file, f"{mpath}.id", mid)
    seen_model_ids.add(mid)
    _check_model_position(m, mpath, scenario.battlefield, file)
    _check_model_floor(m, base, mpath, scenario, file)
    label = m.name or (entry.name if entry else "") or unit.name or unit.id
    return _model_info(unit.id, mi, mid, label, base, mtype, subs, rules, bulky,
                       m.x, m.y, m.facing, kws, abilities, m.z or 0.0,
                       m.height_in if m.height_in is not None else (entry.height_in if entry else None))


def _model_type(m, unit: Unit, entry, mpath: str, file: str | None) -> tuple[UnitType, frozenset[str]]:
    """A model's unit type (model, unit, catalogue, else from its 40k keywords) and its keywords."""
    mtype = m.type or unit.type or (entry.type if entry else None)
    kws = _keywords_of(m, unit, entry)
    if mtype is None and kws:
        mtype = _type_from_keywords(kws)
    if mtype is None:
        raise _err("model has no unit type: give 'type' on the model or unit, or a 'profile'",
                   file, f"{mpath}.type")
    return mtype, kws


def _model_subtypes(m, unit: Unit, entry) -> set[SubType]:
    """A model's sub-types: its own list, else its catalogue entry's (if the unit gives none),
    else the unit's with the entry's."""
    if m.subtypes is not None:
        subs = set(m.subtypes)
    elif entry is not None and not unit.subtypes:
        subs = set(entry.subtypes)
    else:
        subs = set(unit.subtypes) | (set(entry.subtypes) if entry else set())
    return subs


def _model_rules(m, unit_rules: list, entry) -> tuple[frozenset[SpecialRule], int]:
    """A model's special rules (unit's, model's, catalogue entry's) and its Bulky value (1 without)."""
    parsed = unit_rules + [parse_rule(r) for r in m.rules]
    if entry is not None:
        parsed += [parse_rule(r) for r in entry.rules]
    rules = frozenset(r for r, _ in parsed)
    bulky = max([v for r, v in parsed if r is SpecialRule.BULKY and v is not None], default=1)
    return rules, bulky


def _check_model_position(m, mpath: str, bf, file: str | None) -> None:
    """A positioned model's centre is not far off the battlefield (x, then y)."""
    if m.x is not None and m.y is not None:
        if not (-FAR_OFF_TABLE_IN <= m.x <= bf.width + FAR_OFF_TABLE_IN):
            raise _err(f"model centre far off the {bf.width:g}\" x {bf.depth:g}\" battlefield",
                       file, f"{mpath}.x", m.x)
        if not (-FAR_OFF_TABLE_IN <= m.y <= bf.depth + FAR_OFF_TABLE_IN):
            raise _err(f"model centre far off the {bf.width:g}\" x {bf.depth:g}\" battlefield",
                       file, f"{mpath}.y", m.y)


def _check_model_floor(m, base, mpath: str, scenario: Scenario, file: str | None) -> None:
    """A model above the table (``z`` > 0) stands on a floor of that height: some feature's floor
    (its footprint, else the whole feature) at ``z`` is under its base (touching counts)."""
    if not m.z or m.x is None or m.y is None:
        return
    from shapely.geometry import Polygon

    from planner.geometry.shapes import distance_to_polygon, footprint
    from planner.units import TOLERANCE_IN

    fp = footprint(base, m.x, m.y, m.facing)
    for t in scenario.terrain:
        for f in t.floors:
            if abs(f.height_in - m.z) <= TOLERANCE_IN:
                area = Polygon(f.footprint) if f.footprint is not None else t.shape
                if distance_to_polygon(fp, area) <= TOLERANCE_IN:
                    return
    raise _err(f"no floor {m.z:g}\" high under the model: give z the height of a floor of the feature it "
               "stands on (terrain floors), or leave it out for the table", file, f"{mpath}.z", m.z)


def _transport_capacity(unit: Unit, catalogue) -> int | None:
    """The unit's transport capacity: its own, else the largest of its models' catalogue entries."""
    cap = unit.transport_capacity
    if cap is None:
        caps = [catalogue.get(m.profile).transport_capacity for m in unit.models
                if m.profile and catalogue.get(m.profile) is not None]
        caps = [c for c in caps if c is not None]
        cap = max(caps) if caps else None
    return cap


def _check_setup(u: UnitInfo, units: dict[str, UnitInfo], zones: dict[str, DeploymentZone],
                 terrain: dict[str, TerrainFeature], bf, file: str | None, require_positions: bool) -> None:
    """A unit's set-up: its zone, transport or building, joined unit, 'from' positions and the
    positions of its models on the battlefield (records embarked and joined units)."""
    s = u.setup
    if s.zone is not None:
        _check_setup_zone(u, zones, file)
    if s.method is SetupMethod.EMBARKED:
        _check_embarked(u, units, terrain, file)
    if s.joined is not None:
        _check_joined(u, units, file)
    if s.from_ is not None and len(s.from_) != len(u.models):
        raise _err(f"'from' needs one position per model ({len(u.models)}), got {len(s.from_)}", file,
                   f"{u.path}.setup.from", len(s.from_))
    if s.from_ is not None:
        for i, p in enumerate(s.from_):
            if _far_off_table(p[0], p[1], bf):
                raise _err("position far off the battlefield", file, f"{u.path}.setup.from[{i}]", p)
    if u.on_battlefield:
        _check_positioned(u, file, require_positions)


def _check_setup_zone(u: UnitInfo, zones: dict[str, DeploymentZone], file: str | None) -> None:
    """The set-up zone exists and is the unit's player's."""
    s = u.setup
    if s.zone not in zones:
        raise _err(f"no deployment zone with this id (zones: {sorted(zones)})", file,
                   f"{u.path}.setup.zone", s.zone)
    if zones[s.zone].player != u.player:
        raise _err(f"deployment zone belongs to player {zones[s.zone].player!r}, not {u.player!r}",
                   file, f"{u.path}.setup.zone", s.zone)


def _check_embarked(u: UnitInfo, units: dict[str, UnitInfo], terrain: dict[str, TerrainFeature],
                    file: str | None) -> None:
    """An embarked unit is in a friendly transport that is not itself embarked (recorded in the
    transport's ``embarked``), or in a building."""
    tgt = u.setup.in_
    if tgt in units:
        t = units[tgt]
        if t.player != u.player:
            raise _err("cannot embark in an enemy transport", file, f"{u.path}.setup.in", tgt)
        if t.transport_capacity is None:
            raise _err("unit is not a transport (no transport_capacity)", file, f"{u.path}.setup.in", tgt)
        if t.method is SetupMethod.EMBARKED:
            raise _err("cannot embark in a transport that is itself embarked", file, f"{u.path}.setup.in", tgt)
        t.embarked.append(u.id)
    elif tgt in terrain:
        if terrain[tgt].building is None:
            raise _err("terrain feature is not a building", file, f"{u.path}.setup.in", tgt)
    else:
        raise _err("no transport unit or building with this id", file, f"{u.path}.setup.in", tgt)


def _check_joined(u: UnitInfo, units: dict[str, UnitInfo], file: str | None) -> None:
    """An Independent Character joins another friendly unit (recorded in its ``joined_by``)."""
    s = u.setup
    if s.joined not in units:
        raise _err("no unit with this id to join", file, f"{u.path}.setup.joined", s.joined)
    host = units[s.joined]
    if host.player != u.player:
        raise _err("an Independent Character cannot join an enemy unit", file,
                   f"{u.path}.setup.joined", s.joined)
    if host.id == u.id:
        raise _err("a unit cannot join itself", file, f"{u.path}.setup.joined", s.joined)
    if host.setup.joined is not None:
        raise _err(f"{host.id!r} itself joins {host.setup.joined!r}: join the unit directly (a character joins a "
                   "unit, not another character)", file, f"{u.path}.setup.joined", s.joined)
    host.joined_by.append(u.id)


def _check_positioned(u: UnitInfo, file: str | None, require_positions: bool) -> None:
    """Every model of a unit on the battlefield has a position, unless positions are not required
    and the unit is to be placed by the planner."""
    missing = [i for i, m in enumerate(u.models) if m.x is None]
    if missing and (require_positions or not u.record.place):
        i = missing[0]
        hint = (" (or mark the unit 'place: true' for planner plan)" if not require_positions
                else " (the unit is marked 'place: true': plan it first, planner plan, then check the planned file)"
                if u.record.place else "")
        raise _err(f"model on the battlefield has no position: give x and y{hint}", file,
                   f"{u.path}.models[{i}].x")


def no_unit_text(ids: Iterable[str]) -> str:
    """The error text for an id that names no unit: the scenario's unit ids (sorted), or that it
    has none."""
    ids = sorted(ids)
    return f"no unit with this id (units: {', '.join(ids)})" if ids else "no unit with this id: the scenario has no units"


def _check_goals(scenario: Scenario, rs: Ruleset, units: dict[str, UnitInfo], file: str | None) -> None:
    """Each goal is of a kind the ruleset has, names an existing objective or unit (every field
    that names one: :data:`GOAL_REFERENCES`), and its point
    (``near_point``, a deny goal's ``protect``) is on the battlefield. Every command that loads a
    scenario (``check`` as ``plan``) refuses such a goal alike."""
    from planner.rules.registry import ruleset_goal_kinds, rulesets_with_goal

    objective_ids = {o.id for o in scenario.objectives}
    no_objective = (f"no objective with this id (objectives: {sorted(objective_ids)})" if objective_ids
                    else "no objective with this id: the scenario has no objectives")
    no_unit = no_unit_text(units)
    bf = scenario.battlefield
    for gi, g in enumerate(scenario.goals):
        off = f"the goal point must be on the {bf.width:g}\" x {bf.depth:g}\" battlefield"
        if g.kind == "near_point" and not bf.holds(g.x, g.y):
            axis = "x" if not bf.holds(g.x, 0.0) else "y"
            raise _err(off, file, f"goals[{gi}].{axis}", getattr(g, axis))
        if g.kind == "deny" and g.protect is not None and not bf.holds(*g.protect):
            raise _err(off, file, f"goals[{gi}].protect", list(g.protect))
        if g.kind not in rs.GOAL_KINDS and g.kind in ruleset_goal_kinds():
            raise _err(f"{g.kind} goals are for {rulesets_with_goal(g.kind)}, not {rs.id}",
                       file, f"goals[{gi}].kind", g.kind)
        for name, what in GOAL_REFERENCES.get(g.kind, ()):
            value = getattr(g, name)
            known, why = (objective_ids, no_objective) if what == "objective" else (units, no_unit)
            for j, ref in enumerate(value if isinstance(value, list) else [value]):
                if ref not in known:
                    where = f"goals[{gi}].{name}" + (f"[{j}]" if isinstance(value, list) else "")
                    raise _err(why, file, where, ref)
        if g.kind == "deny":
            _check_deny_units(g, gi, units, file)


def deny_enemy_fields(g, gi: int) -> list[tuple[str, str]]:
    """A deny goal's (``g``, ``goals[gi]``) enemy units with their fields: ``enemy_unit``, then
    each of ``also``, as (field path, unit id)."""
    return [(f"goals[{gi}].enemy_unit", g.enemy_unit), *((f"goals[{gi}].also[{j}]", a) for j, a in enumerate(g.also))]


def _check_deny_units(g, gi: int, units: dict[str, UnitInfo], file: str | None) -> None:
    """A deny goal's enemy units (:func:`deny_enemy_fields`; known units, checked before) are
    each named once. (That none is of the player being planned is checked where the denial
    starts, :func:`planner.cli.adversary.deny_goal`: the planner's own re-resolved worlds mark
    the enemy unit ``place: true``.)"""
    seen: set[str] = set()
    for where, ref in deny_enemy_fields(g, gi):
        if ref in seen:
            raise _err(f"{ref} is named twice among the deny goal's enemy units (enemy_unit and also): name each "
                       "once", file, where, ref)
        seen.add(ref)


GOAL_REFERENCES: dict[str, tuple[tuple[str, str], ...]] = {
    "near_objective": (("objective", "objective"),), "control_objective": (("objective", "objective"),),
    "objective": (("objective", "objective"),), "objective_control": (("objective", "objective"),),
    "cover": (("against", "unit"),), "near_enemy_unit": (("unit", "unit"),), "near_friendly": (("unit", "unit"),),
    "far_from_enemy": (("unit", "unit"),), "deny": (("enemy_unit", "unit"), ("also", "unit"))}
"""Per goal kind, its fields that name an objective or a unit of the scenario (field, "objective"
or "unit"; a list field: each of its ids). A deny goal's ``objective`` is its objective function
(area or reply), not a marker."""


def load_scenario(path: str | Path, *, require_positions: bool = False) -> World:
    """Read, validate and resolve a scenario file (YAML or JSON).

    Raises
    ------
    ScenarioError
        For any problem with the file; the message names the file, the field path and the value.
    """
    from planner.io.files import read_data

    return scenario_world(read_data(path), str(path), require_positions=require_positions)


def scenario_world(raw: Any, file: str | None, *, require_positions: bool = False) -> World:
    """Validate and resolve scenario data as a scenario file's (what :func:`load_scenario` does
    after reading it): each army's ``roster:`` is imported (relative to ``file``'s folder) and its
    units replace the reference in ``World.raw`` too, so a planned scenario written from it holds
    them (``raw`` itself is not changed).

    Raises
    ------
    ScenarioError
        For any problem with the data or a roster; the message names ``file``, the field path and the value.
    """
    from planner.io.files import parse_record

    rec = parse_record(Scenario, raw, file)
    if any(a.roster is not None for a in rec.armies):  # the roster reader only when a roster is named
        from planner.io.roster import expand_rosters

        raw = {**raw, "armies": list(raw["armies"])}  # expand_rosters replaces the armies in this list
        rec, raw = expand_rosters(rec, file, raw)
    world = resolve(rec, file, require_positions=require_positions)
    world.raw = raw
    return world
