"""Ruleset ids and aliases -> ruleset modules."""

from __future__ import annotations

from planner.errors import UnknownRulesetError
from planner.rules import hh2
from planner.rules.base import Ruleset

RULESETS: dict[str, Ruleset] = {hh2.RULESET.id: hh2.RULESET}
ALIASES: dict[str, str] = {"horus-heresy-2": "hh2", "hh2.0": "hh2"}


def find_ruleset(name: str) -> Ruleset:
    """The ruleset with id or alias ``name``.

    Raises
    ------
    UnknownRulesetError
        If no ruleset has that id; the message lists the known ids.
    """
    key = ALIASES.get(name, name)
    if key not in RULESETS:
        raise UnknownRulesetError(f"unknown ruleset; known: {', '.join(sorted(RULESETS))}", value=name)
    return RULESETS[key]
