"""Older 40k editions (5th, 7th): Deep Strike by scatter die and 2D6, then the Mishap table.

What the editions share is the procedure; the numbers (scatter faces, the off-table reading, the
Mishap table ...) are each edition's own, in :mod:`planner.rules.wh40k5` and :mod:`planner.rules.wh40k7`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from planner.rules.base import Ruleset, RulingInfo

if TYPE_CHECKING:
    from planner.deepstrike.procedure import DeepStrikeRules


RING_SPACING = RulingInfo(
    "ds-ring-spacing",
    "Deep Strike rings of models whose base is not round (ovals, hulls such as Drop Pods): how are the models "
    "of a circle spaced, when the text speaks of bases in contact forming a circle?",
    "circumscribed",
    (("circumscribed", "each model is spaced by its circumscribed disc, so that no two models overlap whatever "
                       "their facing (the mishap tests use the true shape at the stated facing)"),
     ("true-shape", "models are placed in base contact by their true outline at their facing (closer rings)")),
    "5th/7th-edition Deep Strike (RULES.md §2.1: 'in base contact ... forming a circle'); HH2 p.310 [I]; "
    "planner/deepstrike/formation.py")
"""Ring spacing of non-round bases in a Deep Strike formation (issue #19 item 4): declared here once,
listed by every ruleset whose Deep Strike places rings."""


class ScatterDeepStrike(Ruleset):
    """A ruleset whose Deep Strike scatters and can mishap (no deployment checker here)."""

    family = "40k"

    SCATTER_HIT_FACES: ClassVar[int]
    SCATTER_FACES: ClassVar[int]
    SCATTER_DICE: ClassVar[int]
    SCATTER_HALVED: ClassVar[bool]
    OFF_TABLE_RULE: ClassVar[str]
    ENEMY_MISHAP_WITHIN_IN: ClassVar[float]
    BUILDINGS_IMPASSABLE: ClassVar[bool]
    DIFFICULT_IS_DANGEROUS: ClassVar[bool]
    MISHAP_TABLE: ClassVar[tuple[tuple[int, int, str], ...]]
    RULINGS: ClassVar[tuple[RulingInfo, ...]] = (RING_SPACING,)

    def deep_strike_rules(self, inertial_guidance: bool = False) -> DeepStrikeRules:
        from planner.deepstrike.procedure import DeepStrikeRules

        return DeepStrikeRules(self.id, True, self.SCATTER_HIT_FACES / self.SCATTER_FACES, self.SCATTER_DICE,
                               0.5 if self.SCATTER_HALVED else 1.0, self.OFF_TABLE_RULE, self.ENEMY_MISHAP_WITHIN_IN,
                               self.BUILDINGS_IMPASSABLE, self.DIFFICULT_IS_DANGEROUS, self.MISHAP_TABLE)
