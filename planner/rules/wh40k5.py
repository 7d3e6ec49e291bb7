"""Warhammer 40,000, older edition (5th-edition wording): Deep Strike and its Mishap table.

Source: the French seed text ``source-texts/002_66430696c88c6da6.txt`` ("Frappe en
Profondeur"), which RULES.md §2.1 identifies as the **5th-edition** procedure and table (not
7th). Every number the Deep Strike code reads for this ruleset is defined here. Ruling: a
scenario without ``battlefield:`` is on the standard 6' x 4' table, 72" (x) by 48" (y) (not in the
seed text; as 7th, RULES.md §2.8).

Procedure (seed): place one model where the unit should arrive; roll the scatter die: on a HIT
it stays, otherwise it moves 2D6" in the arrow's direction; the other models go in base contact
with the first in a circle around it, further circles in base contact with the circle inside
it, each circle holding as many models as possible. Difficult terrain counts as dangerous for
arriving models. Mishap if any model cannot be deployed because it lands off the table, in
impassable terrain, on a (friendly or enemy) model, or within 1" of an enemy model
("à 1 ps ou moins": within = not more than 1").

Off the table (decision, documented): the seed says "atterrit hors de la table" (lands off the
table), without 7th's "partially or fully". We read "lands off the table" as **the model's
centre is off the table** (more than half the base overhangs: the model cannot stand there).
A base that only partly overhangs the edge with its centre on the table is *not* a mishap in
this edition; in 7th it is (CASES.md case 10: centre (0.3, 24), 25 mm base: mishap in 7th, not
here). ``OFF_TABLE_RULE`` names the reading; the Deep Strike code implements ``"centre"`` and
``"partial"``.
"""

from __future__ import annotations

from typing import ClassVar

from planner.rules.base import RuleInfo
from planner.rules.scatter import ScatterDeepStrike


class Warhammer40k5(ScatterDeepStrike):
    """Warhammer 40,000 5th edition (Deep Strike, French seed wording): the Deep Strike scatter and Mishap procedure (no deployment checker)."""

    id = "wh40k5"
    name = "Warhammer 40,000 5th edition (Deep Strike, French seed wording)"
    aliases = ("40k5",)
    ROSTER_GAME_SYSTEMS = ("40,000 5th", "40k 5th", "40,000: 5th")

    BATTLEFIELD_WIDTH_IN = 72.0
    BATTLEFIELD_DEPTH_IN = 48.0
    BATTLEFIELD_NAME = "the standard 6' x 4' table"
    """Ruling: a scenario without ``battlefield:`` is on 72" x 48" (the 5th edition standard table,
    6' x 4'; not found in the texts here)."""

    SCATTER_HIT_FACES = 2
    """The scatter die: 2 HIT faces of 6 (RULES.md §1.11): P(HIT) = 1/3."""
    SCATTER_FACES = 6
    SCATTER_DICE = 2
    """An arrow: the model moves 2D6" in the arrow's direction (uniform over the circle)."""
    SCATTER_HALVED = False

    OFF_TABLE_RULE = "centre"
    """'centre': a model lands off the table when its centre is off it (see the module text)."""
    ENEMY_MISHAP_WITHIN_IN = 1.0
    """Mishap: a model would land within 1" (not more than 1") of an enemy model."""
    BUILDINGS_IMPASSABLE = False
    """The seed does not make buildings impassable (only terrain with the impassable trait)."""
    DIFFICULT_IS_DANGEROUS = True
    """Models arriving by Deep Strike treat difficult terrain as dangerous terrain."""

    MISHAP_TABLE = (
        (1, 2, "destroyed"),
        (3, 4, "misplaced"),
        (5, 6, "delayed"),
    )
    """D6 -> result: 1-2 Destroyed (the whole unit); 3-4 Misplaced (the opponent deploys the unit
    anywhere on the table, not in impassable terrain, in a valid Deep Strike formation, no scatter);
    5-6 Delayed (back to Reserves; on game turn 5 or later, if the game ends with it still in
    Reserves it counts as destroyed)."""

    RULE_TABLE: ClassVar[tuple[RuleInfo, ...]] = (
        RuleInfo("deepstrike.mishap.off_table",
                 "Deep Strike mishap: a model would land off the table (\"hors de la table\"; read here as: its centre off the battlefield)",
                 "French seed 002 (5th-edition wording); RULES.md §2.1"),
        RuleInfo("deepstrike.mishap.impassable", "Deep Strike mishap: a model would land in impassable terrain",
                 "French seed 002; RULES.md §2.1"),
        RuleInfo("deepstrike.mishap.on_model",
                 "Deep Strike mishap: a model would land on a friendly or enemy model (bases overlap)",
                 "French seed 002; RULES.md §2.1"),
        RuleInfo("deepstrike.mishap.enemy_within_1",
                 "Deep Strike mishap: a model would land within 1\" of an enemy model", "French seed 002; RULES.md §2.1"),
        RuleInfo("deepstrike.dangerous",
                 "models arriving by Deep Strike treat difficult terrain as dangerous terrain",
                 "French seed 002; RULES.md §2.1"),
        RuleInfo("deepstrike.formation",
                 "the other models in base contact around the first, in concentric circles, each as full as possible",
                 "French seed 002; RULES.md §2.1"),
        RuleInfo("deepstrike.mishap.table",
                 "Deep Strike Mishap D6: 1-2 destroyed, 3-4 misplaced, 5-6 delayed", "French seed 002; RULES.md §2.1"),
    )


RULESET = Warhammer40k5()
ID = RULESET.id
RULES = RULESET.rules
"""Every rule of the ruleset with its full id, meaning and source."""
