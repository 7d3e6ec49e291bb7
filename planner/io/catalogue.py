"""The ``models/`` catalogue of miniatures: base sizes, unit types and special rules per game system.

Files are YAML records of :class:`planner.schema.Catalogue`, one or more per game system. The
folder is, in this order: the one the environment variable ``PLANNER_MODELS`` names; the package
data ``planner/_models/`` of an installed wheel (built from the top-level ``models/`` by
the build backend: ``force-include`` in ``pyproject.toml``; found with :mod:`importlib.resources`); the top-level ``models/`` of a source checkout
or editable install. None of them is a :class:`~planner.errors.ScenarioError` (exit 2) naming where
it looked.

Besides entries, files may hold base rules (:class:`~planner.schema.BaseRule`):
:meth:`ModelCatalogue.resolve` gives a model the entry named after it, else an entry made from the
first base rule that holds; every loaded entry without its own ``height_in`` gets the default of
its unit type, the ruleset's ``MODEL_HEIGHT_IN`` (one table, in the ruleset's module).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path

from planner.errors import ScenarioError
from planner.io.files import load_catalogue_file
from planner.schema import BaseRule, CatalogueEntry, SubType, UnitType

ENV_VAR = "PLANNER_MODELS"


@lru_cache(maxsize=1)
def _package_data_dir() -> Path | None:
    """``planner/_models/`` of an installed wheel, if there is one on the file system (looked up
    once per process: every scenario resolved asks)."""
    res = resources.files("planner").joinpath("_models")
    return res if isinstance(res, Path) and res.is_dir() else None


@lru_cache(maxsize=1)
def _source_dir() -> Path:
    """The top-level ``models/`` of a source checkout (or editable install); looked up once."""
    return Path(__file__).resolve().parents[2] / "models"


def catalogue_dir() -> Path:
    """The folder holding the catalogue files (see the module docstring for the order).

    Raises
    ------
    ScenarioError
        ``PLANNER_MODELS`` names no folder, or (without it) neither the package data nor a source
        checkout has the catalogue; the message names every place looked at.
    """
    env = os.environ.get(ENV_VAR)
    if env:
        if not Path(env).is_dir():
            raise ScenarioError(f"no models catalogue: the folder named by the environment variable {ENV_VAR} "
                                "does not exist", value=env)
        return Path(env)
    packaged = _package_data_dir()
    if packaged is not None:
        return packaged
    source = _source_dir()
    if source.is_dir():
        return source
    pkg = Path(str(resources.files("planner"))) / "_models"
    raise ScenarioError(f"no models catalogue: looked in the package data {pkg} and the source checkout {source}; "
                        f"reinstall the package or set {ENV_VAR} to the models/ folder")


def _norm(name: str) -> str:
    return " ".join(name.lower().replace(",", " ").split())


@dataclass(frozen=True)
class ModelFacts:
    """What a roster or army-list data says about one miniature, for :meth:`ModelCatalogue.resolve`.

    ``type``/``subtypes`` from its "Unit Type" (None: unknown); ``unit`` the name of its unit;
    ``wargear`` names of its upgrades and rules (and its unit's); ``catalogue`` the army list's name.
    """

    name: str
    type: UnitType | None = None
    subtypes: frozenset[SubType] = frozenset()
    unit: str = ""
    wargear: tuple[str, ...] = ()
    catalogue: str = ""


@dataclass(frozen=True)
class Resolution:
    """How a miniature got its base: ``entry`` (an explicit catalogue entry, or one made from
    ``rule``), ``how`` ``"entry"`` or ``"rule"``."""

    entry: CatalogueEntry
    how: str
    rule: BaseRule | None = None


def _rule_holds(rule: BaseRule, facts: ModelFacts, mtype: UnitType) -> bool:
    def found(patterns: list[str], texts: list[str]) -> bool:
        return any(re.search(p, t, flags=re.IGNORECASE) for p in patterns for t in texts if t)

    return ((not rule.types or mtype in rule.types)
            and set(rule.subtypes) <= set(facts.subtypes)
            and (not rule.names or found(rule.names, [facts.name, facts.unit]))
            and (not rule.wargear or found(rule.wargear, list(facts.wargear)))
            and (not rule.catalogues or found(rule.catalogues, [facts.catalogue])))


class ModelCatalogue:
    """All catalogue entries of one game system, looked up by id or by (alias) name, with the base
    rules and height defaults for miniatures it does not list (:meth:`resolve`)."""

    def __init__(self, system: str, entries: list[CatalogueEntry], base_rules: list[BaseRule] = (),  # type: ignore[assignment]
                 height_defaults: dict[UnitType, float] | None = None):
        self.system = system
        self.base_rules = list(base_rules)
        self.height_defaults = dict(height_defaults or {})
        self.by_id: dict[str, CatalogueEntry] = {}
        self.by_name: dict[str, CatalogueEntry] = {}
        for e in entries:
            if e.height_in is None and e.type in self.height_defaults:
                e = e.model_copy(update={"height_in": self.height_defaults[e.type]})
            self.by_id[e.id] = e
            for n in [e.name, *e.aliases]:
                self.by_name.setdefault(_norm(n), e)

    def get(self, ref: str) -> CatalogueEntry | None:
        """The entry with id ``ref``, else the entry whose name or alias is ``ref`` (case-insensitive)."""
        return self.by_id.get(ref) or self.by_name.get(_norm(ref))

    def resolve(self, facts: ModelFacts, names: list[str] | None = None) -> Resolution | None:
        """The miniature's base, type and height: the entry named ``facts.name`` (or one of
        ``names``, tried first, in order), else an entry made from the first base rule that holds
        for its type, sub-types, names, wargear and catalogue (the model's own type and sub-types,
        the rule's base and height, else the type's height default). None: no entry, and no type
        known or no rule holds."""
        for n in [*(names or []), facts.name]:
            if n and (e := self.get(n)) is not None:
                return Resolution(e, "entry")
        if facts.type is None:
            return None
        for rule in self.base_rules:
            if _rule_holds(rule, facts, facts.type):
                height = rule.height_in if rule.height_in is not None else self.height_defaults.get(facts.type)
                order = list(SubType)
                entry = CatalogueEntry(id=rule.id, name=facts.name or rule.id, base=rule.base, type=facts.type,
                                       subtypes=sorted(facts.subtypes, key=order.index), height_in=height,
                                       source=f"base rule {rule.id}: {rule.source}")
                return Resolution(entry, "rule", rule)
        return None

    def __len__(self) -> int:
        return len(self.by_id)


def _ruleset_heights(system: str) -> dict[UnitType, float]:
    """The ruleset's model heights by unit type (``MODEL_HEIGHT_IN``, inches, with its ruling):
    the one table of default heights, given to entries and rules that state none."""
    from planner.rules.registry import find_ruleset

    try:
        table = find_ruleset(system).MODEL_HEIGHT_IN
    except ScenarioError:  # a catalogue of a ruleset not loaded: no defaults
        return {}
    return {t: table[t.value] for t in UnitType if t.value in table}


@lru_cache(maxsize=8)
def _load(folder: str, system: str, from_env: bool = False) -> ModelCatalogue:
    entries: list[CatalogueEntry] = []
    rules: list[BaseRule] = []
    seen: dict[str, str] = {}
    root = Path(folder)
    files = sorted(root.glob("**/*.yaml")) + sorted(root.glob("**/*.yml")) if root.is_dir() else []
    if not files:
        where = f" named by the environment variable {ENV_VAR}" if from_env else ""
        raise ScenarioError(f"no models catalogue: no catalogue files (*.yaml, *.yml) in the folder{where}", file=folder)
    for f in files:
        try:
            cat = load_catalogue_file(f)
        except ScenarioError as exc:  # say it is a catalogue file (and who named its folder), not a scenario
            raise ScenarioError(f"{exc.detail}; {_whose(folder, from_env)}", file=exc.file,
                                location=exc.location, value=exc.value) from None
        if cat.system != system and system not in cat.also:
            continue
        for i, e in enumerate(cat.entries):
            if e.id in seen:
                raise ScenarioError(
                    f"duplicate catalogue id (also in {seen[e.id]})", file=str(f), location=f"entries[{i}].id", value=e.id
                )
            seen[e.id] = str(f)
            entries.append(e)
        for i, r in enumerate(cat.base_rules):
            if r.id in seen:
                raise ScenarioError(
                    f"duplicate catalogue id (also in {seen[r.id]})", file=str(f), location=f"base_rules[{i}].id",
                    value=r.id)
            seen[r.id] = str(f)
            rules.append(r)
    return ModelCatalogue(system, entries, rules, _ruleset_heights(system))


def load_catalogue(system: str) -> ModelCatalogue:
    """Load every catalogue entry of game system ``system`` (e.g. ``'hh2'``).

    Raises
    ------
    ScenarioError
        If there is no catalogue folder (:func:`catalogue_dir`) or it holds no catalogue file, a
        catalogue file does not validate, or two entries share an id.
    """
    return _load(str(catalogue_dir()), system, bool(os.environ.get(ENV_VAR)))


def _whose(folder: str, from_env: bool) -> str:
    """Why a file with an error was read, for its message: a models catalogue file, and the
    environment variable when it named the folder (the error is not the scenario's)."""
    return (f"read as a models catalogue file because the environment variable {ENV_VAR} names its folder {folder}"
            if from_env else f"read as a models catalogue file of the folder {folder}")
