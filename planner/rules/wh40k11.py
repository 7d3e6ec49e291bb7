"""Warhammer 40,000 11th edition: Deep Strike as an arrival-distance check (no scatter).

Source: RULES.md §3.1 (11E-GST): an ingress move may instead set the unit up anywhere
**more than 8" horizontally from all enemy units**, even in the opponent's deployment zone.
"""

from __future__ import annotations

from planner.rules.base import RuleInfo, Ruleset

ID = "wh40k11"

BATTLEFIELD_WIDTH_IN = 60.0
BATTLEFIELD_DEPTH_IN = 44.0
"""44" x 60" (RULES.md §3.1, 11E-NOTES §12)."""

SCATTER = False
DEEP_STRIKE_MORE_THAN_IN = 8.0
"""More than 8" horizontally from all enemy units (strict)."""

RULES: tuple[RuleInfo, ...] = (
    RuleInfo("wh40k11.deepstrike.distance", "Deep Strike: every model more than 8\" horizontally from all enemy units",
             "11E-GST Deep Strike; RULES.md §3.1"),
    RuleInfo("wh40k11.deepstrike.battlefield", "Deep Strike: every model wholly on the battlefield",
             "11E-GST; RULES.md §3.1"),
)

RULESET = Ruleset(ID, "Warhammer 40,000 11th edition", BATTLEFIELD_WIDTH_IN, BATTLEFIELD_DEPTH_IN, RULES)
