"""The :class:`Ruleset` interface: everything that differs from one game system to another.

A ruleset is an object (one per game system, found by :func:`planner.rules.registry.find_ruleset`)
that carries

- its identity: ``id``, ``name``, ``aliases``;
- its numbers, as typed class attributes in UPPER_CASE (``INFILTRATE_HIDDEN_MORE_THAN_IN``,
  ``COHERENCY_IN`` ...), in inches unless the name says otherwise, each with its source in the
  ruleset's module;
- its rule ids with meaning and source (:attr:`Ruleset.rules`; ids are ``<ruleset id>.<rule>``, the
  same in checker findings, CP-SAT constraint names and reports);
- capability flags (``HAS_DEPLOYMENT_CHECKER``, ``HAS_DEEP_STRIKE_ARRIVAL`` ...);
- hooks: the checks it runs (:meth:`Ruleset.run_checks`), the planner's candidate judge
  (:meth:`Ruleset.planner_judge`), its Deep Strike procedure (:meth:`Ruleset.deep_strike_rules`).

Code outside ``planner/rules/`` asks the ruleset (``rs.SCOUT_MORE_THAN_IN``,
``rs.run_checks(world)``) and never compares its id, as python-chess code never asks which
variant a board is. A new ruleset is a subclass that overrides what differs, registered with
:func:`planner.rules.registry.register` (a variant of Horus Heresy with another Infiltrate
distance is a few lines: see ``tests/test_ruleset_interface.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    from planner.deepstrike.procedure import DeepStrikeRules
    from planner.legality.report import Finding
    from planner.legality.table import Table
    from planner.world import ModelInfo, UnitInfo, World


@dataclass(frozen=True)
class RuleInfo:
    """One rule the checker enforces.

    ``id`` is stable and is the same in checker findings, CP-SAT constraint names and reports,
    e.g. ``hh2.infiltrate.hidden``.
    """

    id: str
    meaning: str
    source: str


@dataclass(frozen=True)
class RulingInfo:
    """A point the sources leave open, and the readings the planner can apply (issue #19 item 4).

    ``key`` is what a scenario's ``rulings:`` section and ``--ruling KEY=VALUE`` name (e.g.
    ``'ic-infiltrate'``); ``readings`` maps each value to its meaning; ``default`` is the reading
    applied when none is chosen; ``sources`` says where the open point is (rule pages, RULES.md).
    Each ruling is declared once, in a ruleset module's ``RULINGS``.
    """

    key: str
    question: str
    default: str
    readings: tuple[tuple[str, str], ...]
    sources: str

    def meaning(self, value: str) -> str:
        """The meaning of reading ``value``.

        Raises
        ------
        KeyError
            If ``value`` is not one of the readings.
        """
        for v, m in self.readings:
            if v == value:
                return m
        raise KeyError(value)

    @property
    def values(self) -> tuple[str, ...]:
        return tuple(v for v, _ in self.readings)


@dataclass(frozen=True)
class InfiltrateDistances:
    """Where an Infiltrator may be set up, as distances it stays *more than* away from (inches;
    exactly the distance is too close). What :meth:`Ruleset.infiltrate_distances` gives, and what
    the pictures and the web page draw (:mod:`planner.render.areas`).

    ``plain_in``: from every enemy unit (its closest model) on the battlefield, even in plain sight
    (rule ``unit_rule``); ``hidden_in``: the shorter distance allowed out of sight of every deployed
    enemy unit (HH2; None: no such band); ``zone_in``: from every enemy deployment zone (40k
    Infiltrators, rule ``zone_rule``; None: no zone rule). Rule ids are relative to the ruleset
    (``'infiltrators.distance'``).
    """

    plain_in: float
    hidden_in: float | None = None
    zone_in: float | None = None
    unit_rule: str = "infiltrate.distance"
    zone_rule: str | None = None


class Ruleset:
    """A game system's deployment rules (see the module docstring).

    Subclasses set the class attributes and override the hooks they support; a hook a ruleset
    does not support raises :class:`planner.errors.ScenarioError` naming the ruleset.

    Attributes
    ----------
    id : str
        The ruleset id, e.g. ``'hh2'``; the prefix of every rule id.
    name : str
        Display name.
    aliases : tuple of str
        Other names :func:`~planner.rules.registry.find_ruleset` accepts.
    RULE_TABLE : tuple of RuleInfo
        The rules, each ``id`` relative to the ruleset (``'infiltrate.hidden'``); see :attr:`rules`.
    """

    id: ClassVar[str] = ""
    name: ClassVar[str] = ""
    aliases: ClassVar[tuple[str, ...]] = ()
    family: ClassVar[str] = ""
    """The game family, in messages ("Horus Heresy", "40k")."""

    BATTLEFIELD_WIDTH_IN: ClassVar[float] = 72.0
    BATTLEFIELD_DEPTH_IN: ClassVar[float] = 48.0
    """The battlefield of a scenario that gives no ``battlefield:`` (width along x, depth along y,
    inches): each ruleset's own (:func:`planner.world.resolve`; the command line says when it is used)."""
    BATTLEFIELD_NAME: ClassVar[str] = "6' x 4'"
    """What the default battlefield is called (in the warning that says it is used)."""
    RULE_TABLE: ClassVar[tuple[RuleInfo, ...]] = ()
    RULINGS: ClassVar[tuple[RulingInfo, ...]] = ()
    """The open points of this ruleset's sources and their readings (:class:`RulingInfo`)."""

    CATALOGUE: ClassVar[str | None] = None
    """The ``models/`` catalogue system this ruleset's scenarios use (None: its own id)."""
    ROSTER_GAME_SYSTEMS: ClassVar[tuple[str, ...]] = ()
    """Words of a roster's ``gameSystemName`` (case-insensitive) that belong to this ruleset."""
    ROSTER_DATA_IDS: ClassVar[tuple[str, ...]] = ()
    """BattleScribe ``gameSystemId`` values of the data written for this ruleset's edition; a roster
    of the family with another id gets an edition warning on import (empty: no check)."""
    ROSTER_DATA_NAMES: ClassVar[tuple[str, ...]] = ()
    """``gameSystemName`` values (case-insensitive) of this edition's data, for rosters without an id."""

    # ------------------------------------------------------------ capabilities
    HAS_DEPLOYMENT_CHECKER: ClassVar[bool] = False
    """``planner check`` judges deployments of this ruleset."""
    HAS_DEEP_STRIKE_ARRIVAL: ClassVar[bool] = False
    """Deep Strike is an arrival from Reserves judged like a set-up (no scatter): ``threats`` can
    map it."""
    HAS_STANDARD_LAYOUTS: ClassVar[bool] = False
    """The Chapter Approved 11th-edition terrain layouts (``planner layouts``, ``planner new``)
    are for this ruleset's battlefield (60" x 44")."""
    GENERATES_LEGALITY_LABELS: ClassVar[bool] = False
    """``planner generate --kind legality|puzzle`` builds scenes of this ruleset."""
    HAS_INERTIAL_GUIDANCE: ClassVar[bool] = False
    """Deep Strike may use an Inertial Guidance System (halved scatter)."""
    COMBAT_DICE: ClassVar[str | None] = None
    """Shooting dice maths (``planner.combat``): ``"heresy"`` (``combat/hh2.py``), ``"40k"``
    (``combat/wh40k.py``); None: none."""
    COVER_IN_SHOOTING: ClassVar[str | None] = None
    """40k benefit of cover against a ranged attack: ``"save"`` (+1 armour save, 10th) or ``"bs"``
    (the attack's BS worsened by 1, 11th; seed text 004)."""
    GOAL_KINDS: ClassVar[frozenset[str]] = frozenset()
    """Planner goal kinds of this ruleset beyond the common ones (e.g. 40k ``objective``, ``cover``)."""
    OBJECTIVE_RANGE_IN: ClassVar[float | None] = None
    """An objective marker is controlled by models within this distance (the ``control_objective`` goal)."""
    INFILTRATE_HIDDEN_MORE_THAN_IN: ClassVar[float | None] = None
    """Infiltrate while hidden: more than this from every enemy unit (None: no such rule)."""
    INFILTRATE_PLAIN_SIGHT_MORE_THAN_IN: ClassVar[float | None] = None
    """Infiltrate in plain sight: more than this from every enemy unit (None: no such rule)."""

    def infiltrate_distances(self) -> InfiltrateDistances | None:
        """The distances of the ruleset's Infiltrate set-up (:class:`InfiltrateDistances`), or None
        if it has none. Here: HH2's, from :attr:`INFILTRATE_HIDDEN_MORE_THAN_IN` and
        :attr:`INFILTRATE_PLAIN_SIGHT_MORE_THAN_IN` (rule ``infiltrate.distance``); 40k overrides it."""
        hidden, plain = self.INFILTRATE_HIDDEN_MORE_THAN_IN, self.INFILTRATE_PLAIN_SIGHT_MORE_THAN_IN
        if hidden is None or plain is None:
            return None
        return InfiltrateDistances(plain_in=float(plain), hidden_in=float(hidden))

    # ------------------------------------------------------------ heights (2.5D line of sight)
    MODEL_HEIGHT_IN: ClassVar[dict[str, float]] = {}
    """Default height of a model by unit type (inches), when neither the model nor its catalogue
    profile states one; each ruleset module gives its own with the source."""
    DEFAULT_MODEL_HEIGHT_IN: ClassVar[float] = 1.25
    """Height of a model whose unit type has no entry in :attr:`MODEL_HEIGHT_IN` (inches)."""
    DISTANCES_3D: ClassVar[bool] = False
    """Set-up distances between models on different floors are measured in space (closest points
    of the two volumes); False: horizontally, as the 10th/11th-edition texts say."""
    COHERENCY_VERTICAL_IN: ClassVar[float | None] = None
    """The vertical part of coherency and Engagement Range ("within 2\" horizontally and 5\"
    vertically"); None: the ruleset's coherency has no vertical part."""
    AREA_BLOCKS_AT_ANY_HEIGHT: ClassVar[bool] = False
    """Area terrain that blocks sight blocks as if it were as high as any line, whatever its
    pieces' heights (40k ruins and obscuring areas block by their footprint); False: each piece
    blocks up to its own height (true line of sight)."""
    STANDING_IN_AREA_RULING: ClassVar[str] = "area terrain does not block the sight of a model standing in it"
    """How a report words why a sight line through an area feature a model stands in is not
    blocked by it (the scenario's ``standing_in`` says when a model stands in it); each ruleset
    module may state it with its source."""
    SCOUT_MORE_THAN_IN: ClassVar[float | None] = None
    """A Scout redeploy (Horus Heresy) ends more than this from every enemy unit (None: no such rule)."""

    # ------------------------------------------------------------ rule ids
    @cached_property
    def rules(self) -> tuple[RuleInfo, ...]:
        """Every rule, with its full id ``<ruleset id>.<rule>``."""
        return tuple(RuleInfo(f"{self.id}.{r.id}", self._words(r.meaning), r.source) for r in self.RULE_TABLE)

    def _words(self, meaning: str) -> str:
        """A meaning with the ruleset's numbers put in (``{INFILTRATE_HIDDEN_MORE_THAN_IN:g}`` -> ``9``),
        so that a derived ruleset's rules say its own numbers."""
        if "{" not in meaning:
            return meaning
        return meaning.format_map({k: getattr(self, k) for k in dir(self) if k.isupper()})

    @cached_property
    def _rule_ids(self) -> frozenset[str]:
        return frozenset(r.id for r in self.RULE_TABLE)

    @cached_property
    def _full_ids(self) -> dict[str, str]:
        """:meth:`rid` of each rule the ruleset lists (the checkers ask for one per finding)."""
        return {rule: f"{self.id}.{rule}" for rule in self._rule_ids}

    def rid(self, rule: str) -> str:
        """The full rule id of ``rule`` (``'infiltrate.hidden'`` -> ``'hh2.infiltrate.hidden'``).

        Raises
        ------
        KeyError
            If the ruleset does not list that rule (a rule id the code emits is always listed).
        """
        full = self._full_ids.get(rule)
        if full is None:
            raise KeyError(f"{self.id}.{rule}")
        return full

    def rule(self, rule_id: str) -> RuleInfo:
        """The rule with full id ``rule_id``.

        Raises
        ------
        KeyError
            If no rule has that id.
        """
        for r in self.rules:
            if r.id == rule_id:
                return r
        raise KeyError(rule_id)

    def ruling_info(self, key: str) -> RulingInfo:
        """The ruling ``key`` of this ruleset.

        Raises
        ------
        KeyError
            If the ruleset declares no such ruling.
        """
        for r in self.RULINGS:
            if r.key == key:
                return r
        raise KeyError(key)

    def check_rulings(self, chosen: dict[str, str], *, file: str | None = None,
                      location: str = "rulings") -> dict[str, str]:
        """``chosen`` (KEY -> VALUE) validated against :attr:`RULINGS`; returns it as a new dict.

        Raises
        ------
        ScenarioError
            Naming ``file``, the field ``location.KEY`` and the value, for a key the ruleset does
            not declare or a value that is not one of its readings.
        """
        from planner.errors import ScenarioError

        out: dict[str, str] = {}
        for key, value in chosen.items():
            try:
                info = self.ruling_info(key)
            except KeyError:
                known = ", ".join(r.key for r in self.RULINGS) or "none"
                raise ScenarioError(f"unknown ruling for {self.id}; known: {known}", file=file,
                                    location=f"{location}.{key}", value=key) from None
            if value not in info.values:
                raise ScenarioError(f"unknown reading of ruling {key}; choose one of {', '.join(info.values)}",
                                    file=file, location=f"{location}.{key}", value=value)
            out[key] = value
        return out

    @property
    def default_width_in(self) -> float:
        return self.BATTLEFIELD_WIDTH_IN

    @property
    def default_depth_in(self) -> float:
        return self.BATTLEFIELD_DEPTH_IN

    @property
    def catalogue(self) -> str:
        """The catalogue system id (``CATALOGUE``, or this ruleset's id)."""
        return self.CATALOGUE or self.id

    DEPLOYMENT_MAPS: ClassVar[tuple[str, ...]] = ()
    """Names of the deployment maps :meth:`deployment_map` draws (a new scenario of ``planner serve``)."""

    def deployment_map(self, name: str) -> tuple[list[list[float]], list[list[float]]]:
        """The two deployment zones of map ``name`` (first player, second player) as polygon points
        [[x, y], ...] in inches on the ruleset's default battlefield.

        Raises
        ------
        ScenarioError
            For a name not in :attr:`DEPLOYMENT_MAPS` (field ``map``).
        """
        from planner.errors import ScenarioError

        known = ", ".join(self.DEPLOYMENT_MAPS) or "none"
        raise ScenarioError(f"unknown deployment map for {self.id}; choose one of {known}", location="map",
                            value=name)

    # ------------------------------------------------------------ hooks
    def _unsupported(self, what: str) -> Exception:
        from planner.errors import UnknownRulesetError

        return UnknownRulesetError(f"ruleset {self.id!r} has no {what}", location="ruleset", value=self.id)

    def run_checks(self, world: World) -> dict[str, list[Finding]]:
        """Run every deployment check of this ruleset over a resolved scenario.

        Returns the findings (passed or not) per unit id.

        Raises
        ------
        UnknownRulesetError
            If the ruleset has no deployment checker (``HAS_DEPLOYMENT_CHECKER`` is false).
        """
        raise self._unsupported("deployment checker")

    def check_warnings(self, world: World) -> list[str]:
        """Warnings ``planner check`` prints before its verdict: assumptions the check makes about
        a scenario that leaves something open (HH2: enemy Infiltrators without ``setup.order``).
        Words, one warning each; [] by default."""
        return []

    def cover_report(self, world: World) -> list[Any]:
        """Per model on the battlefield and enemy unit on the battlefield, whether the model has
        the benefit of cover against it and why (:class:`planner.legality.report.ModelCover`).

        Raises
        ------
        UnknownRulesetError
            If the ruleset has no benefit-of-cover rule here.
        """
        raise self._unsupported("benefit of cover rule ('check --cover' is for wh40k10 and wh40k11)")

    def model_height(self, model: ModelInfo) -> float:
        """The height of ``model`` for line of sight (inches): its own or its profile's, else
        :attr:`MODEL_HEIGHT_IN` for its unit type, else :attr:`DEFAULT_MODEL_HEIGHT_IN`."""
        if model.height_in is not None:
            return model.height_in
        return self.MODEL_HEIGHT_IN.get(str(model.type), self.DEFAULT_MODEL_HEIGHT_IN)

    def sight_range_in(self, world: World) -> float | None:
        """The longest distance a unit can draw line of sight during deployment (inches; None:
        unlimited, the default); a ruleset with a ruling on it (Night Fighting) overrides this."""
        return None

    def table(self, world: World) -> Table:
        """The prepared table of a scenario with this ruleset's line-of-sight rule (what the
        checker, the planner, its goals and the adversary measure on)."""
        from planner.legality.table import Table

        return Table(world)

    def setup_label(self, unit: UnitInfo) -> str:
        """How a unit's set-up is named in reports (e.g. ``'infiltrate'``, ``'scout (from infiltrate)'``)."""
        from planner.legality.table import setup_label

        return setup_label(unit)

    def planner_judge(self) -> Any:
        """The planner's candidate judge for this ruleset (a module or object with the judge
        functions of :mod:`planner.solve.hh2_judge`; ``far_from`` is optional: without it no
        distance proof by the rules alone, :func:`planner.solve.planner.distance_limit`, is sought).

        Raises
        ------
        UnknownRulesetError
            If the planner cannot place units of this ruleset.
        """
        raise self._unsupported("deployment planner")

    DEEP_STRIKE_FIELD: ClassVar[str] = "rules"
    """Where a scenario of this ruleset states Deep Strike: a unit's or model's ``rules`` or ``abilities``."""

    def without_deep_strike(self, models: Sequence[ModelInfo]) -> list[ModelInfo]:
        """The models of a unit that lack Deep Strike, as this ruleset's scenarios state it (Horus
        Heresy and the older editions: the ``Deep Strike`` special rule in ``rules``)."""
        from planner.schema import SpecialRule

        return [m for m in models if SpecialRule.DEEP_STRIKE not in m.rules]

    def deep_strike_rules(self, inertial_guidance: bool = False) -> DeepStrikeRules:
        """The Deep Strike procedure of this ruleset.

        Raises
        ------
        ScenarioError
            If the ruleset has no Deep Strike procedure here, or an option it does not have.
        """
        raise self._unsupported("Deep Strike procedure in 'planner deepstrike'")

    def __repr__(self) -> str:
        return f"<Ruleset {self.id}>"
