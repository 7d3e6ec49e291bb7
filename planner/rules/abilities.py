"""Warhammer 40,000 (10th/11th edition) deployment abilities, as written on datasheets.

``Infiltrators``, ``Scouts 6"`` (also ``Scouts 6``, ``Scouts (6")``), ``Deep Strike``,
``Leader``, ``Support``. Source: RULES.md §3.1 (10E-GST, 11E-GST, 11E-CORE-C 19.01-19.02).
"""

from __future__ import annotations

import re
from enum import StrEnum


class Ability(StrEnum):
    INFILTRATORS = "Infiltrators"
    SCOUTS = "Scouts"
    DEEP_STRIKE = "Deep Strike"
    LEADER = "Leader"
    SUPPORT = "Support"


_LOOKUP = {a.value.lower(): a for a in Ability}
_FORM = re.compile(r'^\s*(?P<name>[A-Za-z][A-Za-z ]*?)\s*\(?\s*(?P<arg>\d+(?:\.\d+)?)?\s*(?:"|in|”)?\s*\)?\s*$')


def parse_ability(text: str) -> tuple[Ability, float | None]:
    """``'Scouts 6"'`` -> (SCOUTS, 6.0); ``'Infiltrators'`` -> (INFILTRATORS, None).

    Raises
    ------
    ValueError
        If the name is not a deployment ability this planner knows, or Scouts has no distance.
    """
    m = _FORM.match(text)
    if not m or m.group("name").strip().lower() not in _LOOKUP:
        known = ", ".join(a.value for a in Ability)
        raise ValueError(f"unknown 40k ability {text!r}; known: {known} (others go in other_rules)")
    a = _LOOKUP[m.group("name").strip().lower()]
    arg = m.group("arg")
    if a is Ability.SCOUTS:
        if arg is None:
            raise ValueError(f'Scouts needs a distance, as in \'Scouts 6"\': {text!r}')
        if len(arg) > 10 or float(arg) > 100:
            raise ValueError(f"Scouts distance out of range (at most 100 inches): {text[:40]!r}")
        return a, float(arg)
    if arg is not None:
        raise ValueError(f"{a.value} takes no value: {text!r}")
    return a, None
