"""Warhammer 40,000 11th edition: every deployment number of the edition, and its rule ids.

Sources (RULES.md §3): 11E-GST (Infiltrators, Scouts, Deep Strike), 11E-CORE-A (03.03 coherency,
03.04 engagement range, 01.04 measuring and FRAME, 01.02.04 not-on-battlefield units, 02.05.01
keywords), 11E-CORE-B (13.08 benefit of cover, 13.10 obscuring, 14.01 objectives), 11E-CORE-C
(18.02 embark, 19.01-19.02 attached units, 20.01-20.04 strategic reserves), 11E-NOTES. Ruling: a
scenario without ``battlefield:`` is on the 44" x 60" battlefield, 60" (x) by 44" (y). The
shared checks live in :mod:`planner.legality.wh40k`; this module holds the edition's own.
"""

from __future__ import annotations

from typing import ClassVar

from planner.rules.base import RuleInfo
from planner.rules.wh40k import Warhammer40k


class Warhammer40k11(Warhammer40k):
    """Warhammer 40,000 11th edition: its numbers and rule ids (the checks are :class:`Warhammer40k`'s)."""

    id = "wh40k11"
    COMBAT_DICE = "40k"
    COVER_IN_SHOOTING = "bs"
    name = "Warhammer 40,000 11th edition"
    aliases = ("40k11",)
    ROSTER_GAME_SYSTEMS = ("40,000 11th", "40k 11th", "40,000: 11th")
    FRAME_MODELS = True
    SUPPORT_ABILITY = True
    EMBARK_NOT_SET_UP_THIS_TURN = True


    BATTLEFIELD_WIDTH_IN = 60.0
    BATTLEFIELD_DEPTH_IN = 44.0
    BATTLEFIELD_NAME = "Strike Force, 44\" x 60\""
    """Ruling: a scenario without ``battlefield:`` is on the 44" x 60" battlefield (RULES.md §3.1,
    11E-NOTES §12: the pre-game order's "44\"x60\" battlefield"), laid 60" along x and 44" along y as
    the deployment maps (:mod:`planner.rules.wh40k_maps`) are."""

    SCATTER = False
    DEEP_STRIKE_MORE_THAN_IN = 8.0
    """More than 8" horizontally from all enemy units (strict)."""

    # ---------------------------------------------------------------- setting up
    COHERENCY_IN = 2.0
    """Within 2" horizontally (5" vertically) of at least one other model (11E-CORE-A 03.03)."""
    COHERENCY_VERTICAL_IN = 5.0
    COHERENCY_LARGE_UNIT_MODELS = None
    """11th has no 7-model rule."""
    COHERENCY_NEIGHBOURS = 1
    COHERENCY_NEIGHBOURS_LARGE = 1
    COHERENCY_ALL_WITHIN_IN = 9.0
    """... and within 9" horizontally of every other model of the unit (11E-CORE-A 03.03)."""
    ENGAGEMENT_RANGE_IN = 2.0
    """2" horizontally (5" vertically) (11E-CORE-A 03.04)."""

    # ---------------------------------------------------------------- Infiltrators / Scouts
    INFILTRATORS_MORE_THAN_IN = 8.0
    """More than 8" horizontally from the opponent's deployment zone and all enemy units (11E-GST p.39)."""
    INFILTRATORS_FROM = "units"
    SCOUTS_MORE_THAN_IN = 8.0
    """The scout move ends more than 8" from enemy units (11E-NOTES)."""
    SCOUTS_FIRST_WHOLLY_IN_OWN_ZONE = True
    """11th: the pre-battle scout move is made by a unit wholly within its own deployment zone."""

    # ---------------------------------------------------------------- reserves
    STRATEGIC_RESERVES_POINTS_SHARE = 0.50
    """At most 50% of the points limit (11E-CORE-C 20.01)."""
    STRATEGIC_RESERVES_FORBIDDEN = None
    """No keyword restriction in the 11th-edition sources reached (11E-CORE-C 20.01 states only the 50%)."""
    RESERVES_FIRST_ROUND = 2
    """Ingress moves from battle round 2 (11E-CORE-C 20.03)."""
    RESERVES_EDGE_IN = 6.0
    RESERVES_ENEMY_ZONE_FROM_ROUND = 3
    """Before battle round 3 not in the opponent's deployment zone (11E-CORE-C 20.04)."""
    RESERVES_MORE_THAN_IN = 8.0
    RESERVES_LARGE_TOUCHING_EDGE = True
    """11E-CORE-A 03.02 (RULES.md §3.4): a model too large for the deployment zone ... "From Strategic
    Reserves: may touch a battlefield edge but still more than 8\" from all enemy units"."""
    RESERVES_DESTROYED_AFTER_ROUND = 3

    # ---------------------------------------------------------------- transports, objectives, terrain
    EMBARK_WITHIN_IN = 3.0
    OBJECTIVE_RANGE_IN = 3.0
    COVER_KEYWORDS = ("INFANTRY", "BEASTS", "SWARM")
    """Benefit of cover: INFANTRY/BEASTS/SWARM within a terrain area (11E-CORE-B 13.08)."""
    VISIBILITY = "obscuring"
    """Every sight line crossing an obscuring terrain area that neither model is within is blocked."""

    RULE_TABLE: ClassVar[tuple[RuleInfo, ...]] = (
        RuleInfo("battlefield", "every model wholly on the battlefield: the base (FRAME: the model) may not overhang "
                 "the edge (every set-up: deployment, a scout move, an ingress move or a Deep Strike)",
                 "11E-CORE-A 01.04.01; RULES.md §3.4"),
        RuleInfo("terrain.placement", "no model is set up in impassable terrain, inside a solid feature, or on a "
                 "wall of a terrain feature (the model must physically stand where it is set up)",
                 "planner ruling: the rules place models on the battlefield, and a wall or a solid block leaves no "
                 "room for a base; RULES.md §3.1 Terrain"),
        RuleInfo("deployment.wholly_within_zone", "normal deployment: every model wholly within its own deployment "
                 "zone", "11E-CORE-A 03.02; RULES.md §3.4"),
        RuleInfo("restriction.within",
                 "an enemy unit's ability forbids set-up or arrival within X\" of it (by set-up method, as the "
                 "scenario states it with its source): the unit is set up more than X\" horizontally from it; a "
                 "restriction beats a permission", "the ability's own source (scenario 'restrictions:')"),
        RuleInfo("placement.one", "each unit to deploy is set up once, at exactly one placement (the planner's "
                 "one-placement-per-unit constraint)", "11E-CORE-A 03.02; RULES.md §3.4, §3.5; README, Planning"),
        RuleInfo("bases.overlap", "no model's base overlaps another's (a unit arriving from reserves is not "
                 "set up on any model on the battlefield, nor on a friendly unit arriving in the same battle round)",
                 "11E-CORE-A"),
        RuleInfo("frame", "a FRAME model (no base) is measured to its hull: it needs a hull outline",
                 "11E-CORE-A 01.04; RULES.md §3.1 Measuring"),
        RuleInfo("coherency", "each model within 2\" horizontally (5\" vertically) of at least one other model and "
                 "within 9\" horizontally of every other model of its unit; an attached unit counts as one unit; on "
                 "every set-up, arrivals from reserves included",
                 "11E-CORE-A 03.03; RULES.md §3.1"),
        RuleInfo("engagement", "a unit is set up unengaged: no model within Engagement Range (2\" horizontally) of an "
                 "enemy model", "11E-CORE-A 03.02, 03.04; RULES.md §3.4"),
        RuleInfo("infiltrators.eligible", "set up by Infiltrators: every model has the Infiltrators ability",
                 "11E-GST Infiltrators; RULES.md §3.3"),
        RuleInfo("infiltrators.zone_distance", "Infiltrators: every model more than 8\" horizontally from the "
                 "opponent's deployment zone", "11E-GST p.39; RULES.md §3.1"),
        RuleInfo("infiltrators.distance", "Infiltrators: more than 8\" horizontally from all enemy units on the "
                 "battlefield (embarked and strategic reserve units are not measured to)",
                 "11E-GST p.39; 11E-CORE-A 01.02.04; RULES.md §3.1, §3.2"),
        RuleInfo("scouts.eligible", "a scout move: every model has Scouts X\"; a DEDICATED TRANSPORT only if every "
                 "embarked model has Scouts", "11E-GST Scouts; CASES.md case 17"),
        RuleInfo("scouts.first_position", "the unit made the scout move from wholly within its own deployment zone "
                 "(Resolve Pre-battle Abilities step)", "11E-GST Scouts; RULES.md §3.1"),
        RuleInfo("scouts.distance", "a scout move of up to X\": no part of a model ends more than X\" from where it "
                 "stood"
                 " (a first position without a facing: the end facing, said in the finding)", "11E-GST Scouts; 11E-CORE-C 24.32"),
        RuleInfo("scouts.more_than", "the scout move ends more than 8\" horizontally from all enemy units",
                 "11E-NOTES; RULES.md §3.1"),
        RuleInfo("attached.leader", "an attached unit: at most one Leader and one Support per Bodyguard unit, set up "
                 "with it as one unit", "11E-CORE-C 19.01-19.02; RULES.md §3.1"),
        RuleInfo("transport.capacity", "a TRANSPORT has sufficient remaining capacity for each embarked model",
                 "11E-CORE-C 18.02; source text 004"),
        RuleInfo("transport.eligible", "every embarked model is eligible to embark, as described on the TRANSPORT's "
                 "datasheet", "11E-CORE-C 18.02; source text 004"),
        RuleInfo("embark.within", "embarking: every model of the unit within 3\" of the TRANSPORT",
                 "11E-CORE-C 18.02; RULES.md §3.1 Embark"),
        RuleInfo("embark.eligible", "embarking: the unit is eligible per the TRANSPORT's datasheet",
                 "11E-CORE-C 18.02; RULES.md §3.1 Embark"),
        RuleInfo("embark.capacity", "embarking: the TRANSPORT has sufficient remaining capacity for each model",
                 "11E-CORE-C 18.02; RULES.md §3.1 Embark"),
        RuleInfo("embark.not_set_up_this_turn", "embarking: the unit was not set up on the battlefield this turn",
                 "11E-CORE-C 18.02; source text 004"),
        RuleInfo("reserves.points", "strategic reserves (embarked units included) total at most 50% of the points "
                 "limit", "11E-CORE-C 20.01; RULES.md §3.1"),
        RuleInfo("reserves.round", "ingress moves from battle round 2; units still in reserves at the end of battle "
                 "round 3 are destroyed", "11E-CORE-C 20.03-20.04"),
        RuleInfo("reserves.edge", "strategic reserves arrive wholly within 6\" of one or more battlefield edges",
                 "11E-CORE-C 20.04; RULES.md §3.1"),
        RuleInfo("reserves.large_model_edge", "a model too large to fit wholly within 6\" of a battlefield edge "
                 "arrives from strategic reserves touching a battlefield edge instead (still more than 8\" "
                 "horizontally from all enemy units)", "11E-CORE-A 03.02; RULES.md §3.4"),
        RuleInfo("reserves.enemy_zone", "before battle round 3 an ingress move does not end in the opponent's "
                 "deployment zone", "11E-CORE-C 20.04; RULES.md §3.1"),
        RuleInfo("deepstrike.distance", "Deep Strike / ingress: every model more than 8\" horizontally from all "
                 "enemy units", "11E-GST Deep Strike; RULES.md §3.1"),
        RuleInfo("deepstrike.eligible", "arriving by Deep Strike (not by the Strategic Reserves rules): every "
                 "model of the unit (an attached unit: of every unit in it) has the Deep Strike ability",
                 "11E-GST Deep Strike; RULES.md §3.1, §3.3"),
        RuleInfo("visibility.obscuring", "if every sight line between two models crosses an obscuring terrain area "
                 "that neither model is within, they are not visible to each other", "11E-CORE-B 13.10; CASES.md case 21"),
        RuleInfo("cover", "a unit has the benefit of cover only if every model is INFANTRY/BEASTS/SWARM within a "
                 "terrain area, or not fully visible to the attacking model", "11E-CORE-B 13.08; source text 004"),
        RuleInfo("objective.range", "a model is in range of an objective within 3\" horizontally (5\" vertically)",
                 "11E-CORE-B 14.01"),
    )


RULESET = Warhammer40k11()
ID = RULESET.id
RULES = RULESET.rules
"""Every rule of the ruleset with its full id, meaning and source."""
