"""Warhammer 40,000 10th edition: every deployment number of the edition, and its rule ids.

Sources (RULES.md §3): 10E-GST (Infiltrators, Scouts, Deep Strike, Leader), 10E-CORE-MD
(coherency, engagement range, measuring, embark), CONSCRIPT / 10E-SUM (Strategic Reserves),
the Leviathan mission pack (no Reserves arrive in battle round 1). Ruling: a scenario without
``battlefield:`` is on the Strike Force battlefield, 60" (x) by 44" (y). The shared checks live in
:mod:`planner.legality.wh40k`; this module holds only what is the 10th edition's own.
"""

from __future__ import annotations

from typing import ClassVar

from planner.rules.base import RuleInfo
from planner.rules.wh40k import Warhammer40k


class Warhammer40k10(Warhammer40k):
    """Warhammer 40,000 10th edition: its numbers and rule ids (the checks are :class:`Warhammer40k`'s)."""

    id = "wh40k10"
    COMBAT_DICE = "40k"
    COVER_IN_SHOOTING = "save"
    name = "Warhammer 40,000 10th edition"
    aliases = ("40k10",)
    ROSTER_GAME_SYSTEMS = ("40,000 10th", "40k 10th", "40,000: 10th")

    BATTLEFIELD_WIDTH_IN = 60.0
    BATTLEFIELD_DEPTH_IN = 44.0
    BATTLEFIELD_NAME = "Strike Force, 44\" x 60\""
    """Ruling: a scenario without ``battlefield:`` is on the Strike Force battlefield, 44" x 60"
    (RULES.md §3.1), laid 60" along x and 44" along y as the deployment maps
    (:mod:`planner.rules.wh40k_maps`) are."""

    SCATTER = False
    DEEP_STRIKE_MORE_THAN_IN = 9.0
    """More than 9" horizontally from all enemy models (strict: exactly 9.0" is illegal)."""

    # ---------------------------------------------------------------- setting up
    COHERENCY_IN = 2.0
    """Within 2" horizontally of other models of the unit (10E-CORE-MD)."""
    COHERENCY_VERTICAL_IN = 5.0
    """... and 5" vertically (10E-CORE-MD): also the vertical part of Engagement Range; measured
    between models on different floors (``z``)."""
    COHERENCY_LARGE_UNIT_MODELS = 7
    """A unit of 7 or more models: each model within 2" of two other models."""
    COHERENCY_NEIGHBOURS = 1
    COHERENCY_NEIGHBOURS_LARGE = 2
    COHERENCY_ALL_WITHIN_IN = None
    """10th has no 'within X" of every model' rule."""
    ENGAGEMENT_RANGE_IN = 1.0
    """1" horizontally (5" vertically) (10E-CORE-MD)."""

    # ---------------------------------------------------------------- Infiltrators / Scouts
    INFILTRATORS_MORE_THAN_IN = 9.0
    """More than 9" horizontally from the enemy deployment zone and all enemy models (10E-GST p.39)."""
    INFILTRATORS_FROM = "models"
    SCOUTS_MORE_THAN_IN = 9.0
    """A Scouts move ends more than 9" horizontally from all enemy models (10E-GST)."""
    SCOUTS_FIRST_WHOLLY_IN_OWN_ZONE = False
    """10th: a Normal move at the start of the first battle round from wherever the unit was set up."""

    # ---------------------------------------------------------------- reserves
    STRATEGIC_RESERVES_POINTS_SHARE = 0.25
    """At most 25% of the points limit in Strategic Reserves, embarked units included (CONSCRIPT)."""
    STRATEGIC_RESERVES_FORBIDDEN = "FORTIFICATION"
    """No FORTIFICATIONS in Strategic Reserves (CONSCRIPT)."""
    RESERVES_FIRST_ROUND = 2
    """Reserves cannot arrive in battle round 1 (Leviathan pack; CONSCRIPT for Strategic Reserves)."""
    RESERVES_EDGE_IN = 6.0
    """Strategic Reserves: wholly within 6" of a battlefield edge."""
    RESERVES_ENEMY_ZONE_FROM_ROUND = 3
    """Round 2: not within the enemy deployment zone; round 3+: any edge (10E-SUM)."""
    RESERVES_MORE_THAN_IN = 9.0
    RESERVES_DESTROYED_AFTER_ROUND = 3

    # ---------------------------------------------------------------- transports, objectives
    EMBARK_WITHIN_IN = 3.0
    OBJECTIVE_RANGE_IN = 3.0
    COVER_KEYWORDS = ()
    """10th: cover is per terrain feature (ruins: wholly within, or not fully visible), no keyword list."""
    VISIBILITY = "ruins"
    """Ruins block sight through their footprint unless the target is wholly within (community
    summaries of the 10th-edition terrain rules, RULES.md §3.1 Terrain)."""

    RULE_TABLE: ClassVar[tuple[RuleInfo, ...]] = (
        RuleInfo("battlefield", "every model wholly on the battlefield: the base (or hull) may not overhang the edge "
                 "(every set-up: deployment, a Scouts move, an arrival from reserves or by Deep Strike)",
                 "10E FAQ quoted in RULES.md §3.4"),
        RuleInfo("terrain.placement", "no model is set up in impassable terrain, inside a solid feature, or on a "
                 "wall of a terrain feature (the model must physically stand where it is set up)",
                 "planner ruling: the rules place models on the battlefield, and a wall or a solid block leaves no "
                 "room for a base; RULES.md §3.1 Terrain"),
        RuleInfo("deployment.wholly_within_zone", "normal deployment: every model wholly within its own deployment "
                 "zone", "10E-CORE-MD Deploy Armies; RULES.md §3.1"),
        RuleInfo("restriction.within",
                 "an enemy unit's ability forbids set-up or arrival within X\" of it (by set-up method, as the "
                 "scenario states it with its source): the unit is set up more than X\" horizontally from it; a "
                 "restriction beats a permission", "the ability's own source (scenario 'restrictions:')"),
        RuleInfo("placement.one", "each unit to deploy is set up once, at exactly one placement (the planner's "
                 "one-placement-per-unit constraint)", "10E-CORE-MD Deploy Armies; README, Planning"),
        RuleInfo("bases.overlap", "no model's base overlaps another's (a unit arriving from reserves is not "
                 "set up on any model on the battlefield, nor on a friendly unit arriving in the same battle round)",
                 "10E-CORE-MD"),
        RuleInfo("coherency", "each model within 2\" horizontally (5\" vertically) of at least one other model of "
                 "its unit; of two other models in a unit of 7 or more; an attached unit counts as one unit; on every "
                 "set-up, arrivals from reserves included",
                 "10E-CORE-MD Unit Coherency; RULES.md §3.1"),
        RuleInfo("engagement", "a unit is set up unengaged: no model within Engagement Range (1\" horizontally) of an "
                 "enemy model", "10E-CORE-MD Engagement Range; RULES.md §3.1"),
        RuleInfo("infiltrators.eligible", "set up by Infiltrators: every model has the Infiltrators ability",
                 "10E-GST Infiltrators; RULES.md §3.3"),
        RuleInfo("infiltrators.zone_distance", "Infiltrators: every model more than 9\" horizontally from the enemy "
                 "deployment zone", "10E-GST p.39; RULES.md §3.1"),
        RuleInfo("infiltrators.distance", "Infiltrators: every model more than 9\" horizontally from all enemy "
                 "models on the battlefield (embarked and reserve units are not measured to)",
                 "10E-GST p.39; RULES.md §3.1, §3.2"),
        RuleInfo("scouts.eligible", "a Scouts move: every model has Scouts X\"; a DEDICATED TRANSPORT only if every "
                 "embarked model has Scouts (however it gained the ability)", "10E-GST Scouts; CASES.md case 17"),
        RuleInfo("scouts.first_position", "the position before the Scouts move was a legal set-up",
                 "10E-GST Scouts"),
        RuleInfo("scouts.distance", "a Normal move of up to X\": no part of a model ends more than X\" from where "
                 "it stood"
                 " (a first position without a facing: the end facing, said in the finding)", "10E-GST Scouts"),
        RuleInfo("scouts.more_than", "the Scouts move ends more than 9\" horizontally from all enemy models",
                 "10E-GST Scouts; RULES.md §3.1"),
        RuleInfo("attached.leader", "an attached unit: the joining unit is a Leader (one per Bodyguard unit) and is "
                 "set up with its Bodyguard as one unit", "10E-GST Leader; RULES.md §3.1"),
        RuleInfo("transport.capacity", "a TRANSPORT carries no more models than its capacity", "10E-CORE-MD"),
        RuleInfo("transport.eligible", "every embarked model is eligible to embark per the TRANSPORT's datasheet",
                 "10E-CORE-MD; datasheets"),
        RuleInfo("embark.within", "embarking: every model of the unit within 3\" of the TRANSPORT",
                 "10E-CORE-MD; RULES.md §3.1 Embark"),
        RuleInfo("embark.eligible", "embarking: the unit is eligible per the TRANSPORT's datasheet",
                 "10E-CORE-MD; RULES.md §3.1 Embark"),
        RuleInfo("embark.capacity", "embarking: the TRANSPORT has sufficient remaining capacity for each model",
                 "10E-CORE-MD; RULES.md §3.1 Embark"),
        RuleInfo("reserves.points", "Strategic Reserves (embarked units included) total at most 25% of the points "
                 "limit", "CONSCRIPT; RULES.md §3.1"),
        RuleInfo("reserves.fortification", "no FORTIFICATION unit in Strategic Reserves", "CONSCRIPT; RULES.md §3.1"),
        RuleInfo("reserves.round", "Reserves arrive from battle round 2 (Leviathan: not in battle round 1)",
                 "Leviathan mission pack; RULES.md §3.1"),
        RuleInfo("reserves.edge", "Strategic Reserves arrive wholly within 6\" of a battlefield edge",
                 "10E-SUM; RULES.md §3.1"),
        RuleInfo("reserves.enemy_zone", "Strategic Reserves arriving in battle round 2 are not within the enemy "
                 "deployment zone", "10E-SUM; RULES.md §3.1"),
        RuleInfo("deepstrike.distance", "Deep Strike / Reserves arrival: every model more than 9\" horizontally "
                 "from all enemy models", "10E-GST Deep Strike; RULES.md §3.1"),
        RuleInfo("deepstrike.eligible", "arriving by Deep Strike (not by the Strategic Reserves rules): every "
                 "model of the unit (an attached unit: of every unit in it) has the Deep Strike ability",
                 "10E-GST Deep Strike; RULES.md §3.1, §3.3"),
        RuleInfo("visibility.ruins", "a sight line through a ruin's footprint is blocked unless the target is wholly "
                 "within that ruin", "RULES.md §3.1 Terrain (lawyerofrules.com/terrain; 40kwith40iq)"),
        RuleInfo("cover", "benefit of cover: every model wholly within ruins, or not fully visible to the attacking "
                 "model (a planner goal, not a deployment rule)", "RULES.md §3.1 Benefit of cover (CONSCRIPT; 40kwith40iq)"),
        RuleInfo("objective.range", "a model is in range of an objective marker within 3\" horizontally",
                 "RULES.md §3.1 Objectives"),
    )


RULESET = Warhammer40k10()
ID = RULESET.id
RULES = RULESET.rules
"""Every rule of the ruleset with its full id, meaning and source."""
