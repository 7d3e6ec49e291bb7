"""Ruleset ids and aliases -> :class:`~planner.rules.base.Ruleset` objects.

The one place that lists the rulesets: adding one is a module and a line here (or a call to
:func:`register`).
"""

from __future__ import annotations

import os

from planner.errors import ScenarioError, UnknownRulesetError
from planner.rules import hh2, wh40k5, wh40k7, wh40k10, wh40k11
from planner.rules.base import Ruleset

DEFAULT_RULESET = hh2.RULESET.id
"""The ruleset of commands whose ``--ruleset`` is not given."""

RULESETS: dict[str, Ruleset] = {}
ALIASES: dict[str, str] = {}


def register(ruleset: Ruleset) -> Ruleset:
    """Make ``ruleset`` known by its id and aliases (a later one with the same id replaces it).

    Returns the ruleset, so a module can write ``RULESET = register(MyRuleset())``.
    """
    RULESETS[ruleset.id] = ruleset
    for a in ruleset.aliases:
        ALIASES[a] = ruleset.id
    return ruleset


def unregister(ruleset_id: str) -> None:
    """Forget a ruleset and its aliases (for test-only rulesets)."""
    RULESETS.pop(ruleset_id, None)
    for a in [a for a, i in ALIASES.items() if i == ruleset_id]:
        del ALIASES[a]


for _m in (hh2, wh40k5, wh40k7, wh40k10, wh40k11):
    register(_m.RULESET)

PLUGINS_ENV = "PLANNER_RULESETS"
"""Environment variable: comma-separated Python modules to import once the built-in rulesets are
registered; each registers its own rulesets (``register(MyRuleset())``), so that every command
knows them (``PLANNER_RULESETS=my_rules planner check ...``)."""


def load_plugins(names: str | None = None) -> None:
    """Import the ruleset modules named in ``names`` (default: :data:`PLUGINS_ENV`).

    Raises
    ------
    UnknownRulesetError
        If a module cannot be imported; the message names it.
    """
    import importlib

    text = os.environ.get(PLUGINS_ENV, "") if names is None else names
    for name in (n.strip() for n in text.split(",")):
        if not name:
            continue
        try:
            importlib.import_module(name)
        except Exception as exc:  # noqa: BLE001 - any failure of a user's module is an input error
            raise UnknownRulesetError(f"cannot import ruleset module {name!r} (named in {PLUGINS_ENV}): "
                                      f"{type(exc).__name__}: {exc}",
                                      location=PLUGINS_ENV, value=name) from None


def find_ruleset(name: str) -> Ruleset:
    """The ruleset with id or alias ``name``.

    Raises
    ------
    UnknownRulesetError
        If no ruleset has that id; the message lists the known ids.
    """
    _load_plugins_once()
    key = ALIASES.get(name, name)
    if key not in RULESETS:
        raise UnknownRulesetError(f"unknown ruleset; known: {', '.join(sorted(RULESETS))}", value=name)
    return RULESETS[key]


def all_rulesets() -> list[Ruleset]:
    """Every known ruleset, by id."""
    _load_plugins_once()
    return [RULESETS[k] for k in sorted(RULESETS)]


def require_standard_layouts(ruleset: Ruleset, location: str, value: object) -> None:
    """Refuse the Chapter Approved layouts and the 40k deployment maps (60" x 44") on a ruleset whose
    battlefield they are not for (``HAS_STANDARD_LAYOUTS`` false: hh2, wh40k5, wh40k7). The one check
    of ``planner new --ruleset`` and ``planner import-tts --map``.

    Raises
    ------
    ScenarioError
        Naming ``location`` (the option, e.g. ``--map``) and ``value`` (exit 2 on the command line).
    """
    if ruleset.HAS_STANDARD_LAYOUTS:
        return
    fit = " or ".join(r.id for r in all_rulesets() if r.HAS_STANDARD_LAYOUTS)
    raise ScenarioError(f"the standard layouts and deployment maps are for the 60\" x 44\" Warhammer 40,000 "
                        f"battlefield: {fit}, not ruleset {ruleset.id} ({ruleset.default_width_in:g}\" x "
                        f"{ruleset.default_depth_in:g}\")", location=location, value=value)


def ruleset_goal_kinds() -> frozenset[str]:
    """Goal kinds that only some rulesets have (the union of their ``GOAL_KINDS``)."""
    return frozenset().union(*(r.GOAL_KINDS for r in RULESETS.values()))


def rulesets_with_goal(kind: str) -> str:
    """The rulesets that have goal kind ``kind``, in words: "the 40k rulesets wh40k10, wh40k11"."""
    have = sorted((r for r in RULESETS.values() if kind in r.GOAL_KINDS), key=lambda r: r.id)
    families = " or ".join(sorted({r.family for r in have if r.family}))
    return f"the {families + ' ' if families else ''}rulesets {', '.join(r.id for r in have)}"


_plugins_loaded = False


def _load_plugins_once() -> None:
    global _plugins_loaded
    if not _plugins_loaded:
        _plugins_loaded = True
        load_plugins()
