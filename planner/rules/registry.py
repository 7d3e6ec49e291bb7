"""Ruleset ids and aliases -> ruleset modules."""

from __future__ import annotations

from planner.errors import UnknownRulesetError
from planner.rules import hh2, wh40k5, wh40k7, wh40k10, wh40k11
from planner.rules.base import Ruleset

RULESETS: dict[str, Ruleset] = {hh2.RULESET.id: hh2.RULESET}
ALIASES: dict[str, str] = {"horus-heresy-2": "hh2", "hh2.0": "hh2"}
RULESETS.update({m.RULESET.id: m.RULESET for m in (wh40k5, wh40k7, wh40k10, wh40k11)})
ALIASES.update({"40k5": "wh40k5", "40k7": "wh40k7", "40k10": "wh40k10", "40k11": "wh40k11"})


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
