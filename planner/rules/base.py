"""What every ruleset module provides: its id, its rule ids with meanings and sources."""

from __future__ import annotations

from dataclasses import dataclass


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
class Ruleset:
    """A game system: its id, display name, default battlefield and the rules it checks."""

    id: str
    name: str
    default_width_in: float
    default_depth_in: float
    rules: tuple[RuleInfo, ...]

    def rule(self, rule_id: str) -> RuleInfo:
        for r in self.rules:
            if r.id == rule_id:
                return r
        raise KeyError(rule_id)
