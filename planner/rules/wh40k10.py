"""Warhammer 40,000 10th edition: Deep Strike as an arrival-distance check (no scatter).

Source: RULES.md §3.1 (10E-GST): in the Reinforcements step, set the unit up anywhere on the
battlefield **more than 9" horizontally** from all enemy models. No scatter, no mishap table.
"""

from __future__ import annotations

from planner.rules.base import RuleInfo, Ruleset

ID = "wh40k10"

BATTLEFIELD_WIDTH_IN = 60.0
BATTLEFIELD_DEPTH_IN = 44.0
"""Strike Force 44" x 60" (RULES.md §3.1)."""

SCATTER = False
DEEP_STRIKE_MORE_THAN_IN = 9.0
"""More than 9" horizontally from all enemy models (strict: exactly 9.0" is illegal)."""

RULES: tuple[RuleInfo, ...] = (
    RuleInfo("wh40k10.deepstrike.distance", "Deep Strike: every model more than 9\" horizontally from all enemy models",
             "10E-GST Deep Strike; RULES.md §3.1"),
    RuleInfo("wh40k10.deepstrike.battlefield", "Deep Strike: every model wholly on the battlefield",
             "10E-GST; RULES.md §3.1"),
)

RULESET = Ruleset(ID, "Warhammer 40,000 10th edition", BATTLEFIELD_WIDTH_IN, BATTLEFIELD_DEPTH_IN, RULES)
