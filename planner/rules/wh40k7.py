"""Warhammer 40,000 7th edition: Deep Strike (BRB p.162) and Deep Strike Mishaps.

Source: RULES.md §2.1 (7E-HB copy of the 7th-edition text; the same trigger wording and table
appear in two other independent fan rule files). Every number the Deep Strike code reads for
this ruleset is defined here. Ruling: a scenario without ``battlefield:`` is on the standard
6' x 4' table, 72" (x) by 48" (y) (RULES.md §2.8; not found in the 7th-edition texts here).

Mishap trigger: at least one model would land **partially or fully off the table**, in
impassable terrain, on top of a friendly model, or on top of or within 1" of an enemy model.
"Partially off" = any part of the base beyond a table edge (touching the edge is on the table,
as "wholly within" counts touching). Non-ruined buildings count as impassable terrain: a terrain
feature with a ``building`` record counts as impassable here.
"""

from __future__ import annotations

from typing import ClassVar

from planner.rules.base import RuleInfo
from planner.rules.scatter import ScatterDeepStrike


class Warhammer40k7(ScatterDeepStrike):
    """Warhammer 40,000 7th edition: the Deep Strike scatter and Mishap procedure (no deployment checker)."""

    id = "wh40k7"
    name = "Warhammer 40,000 7th edition"
    aliases = ("40k7",)
    ROSTER_GAME_SYSTEMS = ("40,000 7th", "40k 7th", "40,000: 7th")

    BATTLEFIELD_WIDTH_IN = 72.0
    BATTLEFIELD_DEPTH_IN = 48.0
    BATTLEFIELD_NAME = "the standard 6' x 4' table"
    """Ruling: a scenario without ``battlefield:`` is on 72" x 48" (RULES.md §2.8: the 6th/7th
    edition standard table, 6' x 4', not found in the texts here)."""

    SCATTER_HIT_FACES = 2
    """The scatter die: 2 HIT faces of 6 (RULES.md §1.11): P(HIT) = 1/3."""
    SCATTER_FACES = 6
    SCATTER_DICE = 2
    """An arrow: the model moves 2D6" that way (uniform over the circle)."""
    SCATTER_HALVED = False

    OFF_TABLE_RULE = "partial"
    """'partial': any part of a base off the table is a mishap ("partially or fully off the table")."""
    ENEMY_MISHAP_WITHIN_IN = 1.0
    """Mishap: on top of or within 1" of an enemy model."""
    BUILDINGS_IMPASSABLE = True
    """Non-ruined buildings (except battlements) count as impassable for Deep Strike (p.162)."""
    DIFFICULT_IS_DANGEROUS = True
    """Deep-striking models treat all difficult terrain as dangerous terrain."""

    MISHAP_TABLE = (
        (1, 1, "destroyed"),
        (2, 3, "misplaced"),
        (4, 6, "delayed"),
    )
    """D6 -> result: 1 Terrible Accident (destroyed); 2-3 Misplaced (the opponent deploys the unit
    anywhere on the table, not impassable, in a valid Deep Strike formation, no scatter); 4-6
    Delayed (into Ongoing Reserves)."""

    RULE_TABLE: ClassVar[tuple[RuleInfo, ...]] = (
        RuleInfo("deepstrike.mishap.off_table",
                 "Deep Strike mishap: a model would land partially or fully off the table", "7th BRB p.162; RULES.md §2.1"),
        RuleInfo("deepstrike.mishap.impassable",
                 "Deep Strike mishap: a model would land in impassable terrain (non-ruined buildings count)",
                 "7th BRB p.162; RULES.md §2.1"),
        RuleInfo("deepstrike.mishap.on_model",
                 "Deep Strike mishap: a model would land on top of a friendly or enemy model", "7th BRB p.162"),
        RuleInfo("deepstrike.mishap.enemy_within_1",
                 "Deep Strike mishap: a model would land within 1\" of an enemy model", "7th BRB p.162; RULES.md §2.1"),
        RuleInfo("deepstrike.dangerous", "deep-striking models treat all difficult terrain as dangerous terrain",
                 "7th BRB p.162; RULES.md §2.1"),
        RuleInfo("deepstrike.formation",
                 "the other models in base contact with the first, in concentric circles, each as full as possible",
                 "7th BRB p.162; RULES.md §2.1"),
        RuleInfo("deepstrike.mishap.table",
                 "Deep Strike Mishap D6: 1 destroyed, 2-3 misplaced, 4-6 delayed (Ongoing Reserves)",
                 "7th BRB p.162; RULES.md §2.1"),
    )


RULESET = Warhammer40k7()
ID = RULESET.id
RULES = RULESET.rules
"""Every rule of the ruleset with its full id, meaning and source."""
