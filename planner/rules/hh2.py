"""Horus Heresy 2.0 (Age of Darkness, 2022): the deployment rules' numbers and rule ids.

Sources: *Age of Darkness Rulebook* (page numbers as carried by the BSData ``2022 - Horus
Heresy.gst`` rule entries); see the project's rules notes. Every HH2 number used by the checker
and the planner is defined here and nowhere else. Ruling: a scenario without ``battlefield:`` is on
the standard 6' x 4' table, 72" (x) by 48" (y) (RULES.md §1.13; not found in the HH2 text here).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from planner.rules.base import RuleInfo, Ruleset, RulingInfo
from planner.rules.scatter import RING_SPACING
from planner.schema import SubType, UnitType

if TYPE_CHECKING:
    from planner.deepstrike.procedure import DeepStrikeRules
    from planner.legality.report import Finding
    from planner.world import World


class HorusHeresy2(Ruleset):
    """Horus Heresy 2.0: the numbers of its deployment rules, its rule ids and its checks."""

    family = "Horus Heresy"

    id = "hh2"
    COMBAT_DICE = "heresy"
    name = "Horus Heresy 2.0 (Age of Darkness)"
    aliases = ("horus-heresy-2", "hh2.0")
    ROSTER_GAME_SYSTEMS = ("horus heresy", "warhammer 30,000", "warhammer 30k")
    # BSData/horus-heresy "2022 - Horus Heresy.gst" (game system "Horus Heresy (2022)"); the HH1
    # data ("Warhammer 30,000 - The Horus Heresy") had the id ca571888-56a9-c58e-ddaf-54f4713538bc
    ROSTER_DATA_IDS = ("28d4-bd2e-4858-ece6",)
    ROSTER_DATA_NAMES = ("horus heresy (2022)",)
    HAS_DEPLOYMENT_CHECKER = True
    GENERATES_LEGALITY_LABELS = True
    HAS_INERTIAL_GUIDANCE = True
    CATALOGUE = "hh2"

    BATTLEFIELD_WIDTH_IN = 72.0
    BATTLEFIELD_DEPTH_IN = 48.0
    BATTLEFIELD_NAME = "the standard Horus Heresy 6' x 4' table"
    """Ruling: a scenario without ``battlefield:`` is on 72" x 48" (RULES.md §1.13: the standard
    HH table, not found in the HH2 text here)."""

    DEPLOYMENT_MAPS = ("long_edge", "short_edge", "quarters")
    """The maps of the bundled scenarios (scenarios/README.md), as the generator draws them with
    its default depths (``planner.generate.distributions.GeneratorParams``)."""
    LONG_EDGE_ZONE_IN: ClassVar[float] = 12.0
    SHORT_EDGE_ZONE_IN: ClassVar[float] = 18.0
    QUARTERS_GAP_IN: ClassVar[float] = 6.0

    INFILTRATE_HIDDEN_MORE_THAN_IN = 9.0
    """Infiltrate option A (p.242): more than 9" from any enemy unit, out of sight of every deployed enemy unit."""
    INFILTRATE_PLAIN_SIGHT_MORE_THAN_IN = 12.0
    """Infiltrate option B (p.242): more than 12" from any enemy unit, even in plain sight."""

    SCOUT_SHORT_IN = 6.0
    """Scout (p.246): Infantry, Artillery, Dreadnought or Automata: each model entirely within 6" of its position."""
    SCOUT_LONG_IN = 12.0
    """Scout (p.246): any other unit type: entirely within 12"."""
    SCOUT_MORE_THAN_IN = 9.0
    """Scout (p.246): must remain more than 9" away from any enemy unit."""
    SCOUT_SHORT_TYPES = frozenset({UnitType.INFANTRY, UnitType.DREADNOUGHT, UnitType.AUTOMATA})
    SCOUT_SHORT_SUBTYPES = frozenset({SubType.ARTILLERY})

    COHERENCY_IN = 2.0
    """Unit coherency range (HH-GST 4b54-...): 2"."""
    COHERENCY_CLOSE_ORDER_IN = 1.0
    """Close-order sub-type (p.129): 1"."""
    COHERENCY_SKIRMISH_IN = 3.0
    """Skirmish sub-type (p.95): 3"."""

    IC_FORBIDDEN_HOST_TYPES = frozenset({UnitType.VEHICLE, UnitType.DREADNOUGHT, UnitType.AUTOMATA, UnitType.MONSTROUS})
    """IC (p.241): cannot join units containing Vehicles, Dreadnoughts, Automata or Monstrous models unless it shares the type."""
    IC_INFANTRY_HOST_ALLOWS = frozenset({UnitType.INFANTRY, UnitType.PRIMARCH})
    """Infantry units may only be joined by Infantry or Primarch models (p.195)."""

    CONTROL_OBJECTIVE_WITHIN_IN = 3.0
    """An objective marker is controlled by models within 3" of it (base to marker; the planner's
    ``control_objective`` goal)."""

    DEFAULT_BULKY = 2

    DISTANCES_3D: ClassVar[bool] = True
    """Infiltrate and Scout distances between models on different floors are measured between the
    closest points of the two models in space. Planner ruling [I]: the HH2 text says "more than
    9\" from any enemy unit" with no "horizontally" (HH2 p.242, source text 000), and true line of
    sight and true distances go together; the 10th/11th editions add "horizontally" where they
    mean it (RULES.md §1.9, §3.1). Models on the table (no ``z``) measure as before."""

    STANDING_IN_AREA_RULING: ClassVar[str] = (
        "a ruling: an area feature does not block the sight of a model standing in it, on any floor, "
        "whatever its pieces' heights; RULES.md §1.10")
    """Planner ruling [I]: HH2 uses true line of sight (RULES.md §1.10, the rulebook text not
    retrieved [U]); the planner reads an area feature (ruins, woods) as not blocking the lines of
    a model standing in it (partly or wholly, per the feature's ``standing_in``), on the ground or
    on an upper floor: its own walls and pieces are around it, not between it and the table."""

    MODEL_HEIGHT_IN: ClassVar[dict[str, float]] = {
        "Infantry": 1.25, "Cavalry": 1.75, "Dreadnought": 2.75, "Automata": 2.25, "Vehicle": 2.5,
        "Primarch": 2.0, "Knight": 6.0, "Titan": 12.0, "Monstrous": 2.5, "Fortification": 4.0,
    }
    """Default model heights by unit type (inches), for true line of sight when neither the model
    nor its profile states one. Planner ruling: the rules give no model heights (HH2 uses true
    line of sight from the model itself); these are typical heights of the current plastic kits,
    table top to the top of the model (a Legionary about 32 mm, a Rhino about 62 mm, a Contemptor
    about 70 mm, a Questoris Knight about 150 mm), rounded to a quarter inch."""
    """Bulky with no value counts as Bulky (2)."""

    RULE_TABLE: ClassVar[tuple[RuleInfo, ...]] = (
        RuleInfo("battlefield", "every model's base is wholly on the battlefield", "HH2 rulebook, deployment"),
        RuleInfo("deployment.wholly_within_zone",
                 "normal deployment: every model wholly within its player's deployment zone", "HH2 rulebook, deployment"),
        RuleInfo("bases.no_overlap", "no two models' bases (or hulls) overlap", "HH2 rulebook, models and bases"),
        RuleInfo("terrain.impassable",
                 "no model stands in impassable terrain, or inside a solid feature (a building or wall: only by embarking)",
                 "HH2 rulebook, terrain; p.224 (Buildings)"),
        RuleInfo("coherency",
                 "unit coherency: each model within {COHERENCY_IN:g}\" of another (Close-order {COHERENCY_CLOSE_ORDER_IN:g}\", "
                 "Skirmish {COHERENCY_SKIRMISH_IN:g}\"), one connected group",
                 "HH2 rulebook p.129 (Close-order), p.95 (Skirmish); HH-GST 4b54-c60c-3ce2-7409"),
        RuleInfo("infiltrate.eligible", "a unit setting up by Infiltrate contains at least one model with Infiltrate "
                 "(a Dedicated Transport: a unit with Infiltrate deployed inside it; the Transport then deploys by the "
                 "Infiltrate rules)",
                 "HH2 rulebook p.242 (Infiltrate)"),
        RuleInfo("infiltrate.distance",
                 "Infiltrate: more than {INFILTRATE_HIDDEN_MORE_THAN_IN:g}\" from every enemy unit (hidden) or more than "
                 "{INFILTRATE_PLAIN_SIGHT_MORE_THAN_IN:g}\" (plain sight)",
                 "HH2 rulebook p.242 (Infiltrate)"),
        RuleInfo("infiltrate.hidden",
                 "Infiltrate within {INFILTRATE_PLAIN_SIGHT_MORE_THAN_IN:g}\" of an enemy unit: no deployed enemy unit can "
                 "draw line of sight to it",
                 "HH2 rulebook p.242 (Infiltrate)"),
        RuleInfo("infiltrate.building",
                 "Infiltrate into a Building: the Building is more than {INFILTRATE_HIDDEN_MORE_THAN_IN:g}\" from every "
                 "enemy unit",
                 "HH2 rulebook p.242 (Infiltrate), p.224 (Buildings)"),
        RuleInfo("scout.eligible",
                 "a Scout redeploy needs a model with Scout (or a Dedicated Transport carrying a Scout unit)",
                 "HH2 rulebook p.246 (Scout)"),
        RuleInfo("scout.distance",
                 "Scout: each model ends entirely within {SCOUT_SHORT_IN:g}\" (Infantry, Artillery, Dreadnought, Automata) "
                 "or {SCOUT_LONG_IN:g}\" "
                 "(other types) of its position: every part of its base within that distance of the base where it stood"
                 " (a first position without a facing: the end facing, said in the finding)",
                 "HH2 rulebook p.246 (Scout)"),
        RuleInfo("scout.more_than_9", "Scout: ends more than {SCOUT_MORE_THAN_IN:g}\" from every enemy unit", "HH2 rulebook p.246 (Scout)"),
        RuleInfo("scout.first_position", "the position before a Scout redeploy was itself a legal set-up",
                 "HH2 rulebook p.246 (Scout)"),
        RuleInfo("ic.infiltrate",
                 "an Independent Character without Infiltrate cannot join Infiltrators during deployment, and vice versa",
                 "HH2 rulebook p.242 (Infiltrate), p.241 (Independent Character)"),
        RuleInfo("ic.unit_type",
                 "an IC cannot join a unit with Vehicle, Dreadnought, Automata or Monstrous models unless it shares the "
                 "type; Infantry units only take Infantry or Primarch ICs", "HH2 rulebook p.241, p.195"),
        RuleInfo("ic.coherency", "an IC joined at deployment is set up in unit coherency with the unit: within "
                 "the coherency range of a model of the unit itself (a stated ruling: a chain through another joined "
                 "IC does not count; the stricter reading, so a deployment legal here is legal under the chain "
                 "reading too)",
                 "HH2 rulebook p.241 (Independent Character); RULES.md §1.6"),
        RuleInfo("ic.eligible", "only a unit with Independent Character joins another unit",
                 "HH2 rulebook p.241 (Independent Character)"),
        RuleInfo("transport.capacity",
                 "models embarked in a transport or building fit its capacity (Bulky (X) counts X)",
                 "HH2 rulebook, Transports; Bulky (X)"),
        RuleInfo("restriction.within",
                 "an enemy unit's ability forbids set-up or arrival within X\" of it (by set-up method, as the "
                 "scenario states it with its source): the unit is set up more than X\" from it; a restriction beats a "
                 "permission", "the ability's own source (scenario 'restrictions:')"),
        RuleInfo("placement.one", "each unit to deploy is set up once, at exactly one placement (the planner's "
                 "one-placement-per-unit constraint)", "HH2 rulebook, deployment; README, Planning"),
        RuleInfo("deepstrike_assault.edge_within_1", "Deep Strike Assault: the first model ends within 1\" of a "
                 "battlefield edge after its scatter, so the opponent moves it (up to 18\") clear of edges, enemy models "
                 "and Impassable Terrain", "HH2 rulebook p.310 [I]; Drop Pod Assault p.99, Subterranean Assault p.101; "
                 "RULES.md §1.4"),
        RuleInfo("deepstrike_assault.impassable_within_1", "Deep Strike Assault: the first model ends within 1\" of "
                 "Impassable Terrain after its scatter, so the opponent moves it (up to 18\")",
                 "HH2 rulebook p.310 [I]; Drop Pod Assault p.99, Subterranean Assault p.101; RULES.md §1.4"),
        RuleInfo("deepstrike_assault.enemy_within_1", "Deep Strike Assault: the first model ends within 1\" of an "
                 "enemy model after its scatter, so the opponent moves it (up to 18\")",
                 "HH2 rulebook p.310 [I]; Drop Pod Assault p.99, Subterranean Assault p.101; RULES.md §1.4"),
        RuleInfo("deepstrike_assault.on_model", "Deep Strike Assault: the first model ends on a model of its own "
                 "side, so the opponent moves it as for the 1\" triggers (a stated ruling: no model stands on "
                 "another; the sources name enemy models, edges and Impassable Terrain)",
                 "HH2 rulebook p.310 [I]; RULES.md §1.4 step 3"),
        RuleInfo("deepstrike_assault.restriction_within", "Deep Strike Assault: the first model ends within an "
                 "enemy unit's restriction on Deep Strike arrivals (X\", by the one restriction predicate) after its "
                 "scatter, so the opponent moves it (up to 18\") as for the 1\" triggers (an interpretation)",
                 "the ability's own source (scenario 'restrictions:'); HH2 rulebook p.310 [I]"),
    )

    NIGHT_FIGHTING_SIGHT_IN: ClassVar[float] = 24.0
    """Night Fighting (HH-GST 5305-9807-b158-3c1c): no unit may draw line of sight to any unit more than 24" away."""

    RULINGS: ClassVar[tuple[RulingInfo, ...]] = (
        RulingInfo("ic-infiltrate",
                   "'An Independent Character without Infiltrate cannot join a unit of Infiltrators during "
                   "deployment, and vice versa': is a unit of Infiltrators a unit that has Infiltrate, or one that "
                   "uses it?",
                   "has",
                   (("has", "a unit of Infiltrators is a unit with a model with Infiltrate, however it deploys: the "
                            "IC and the unit both have Infiltrate or neither has it"),
                    ("uses", "a unit of Infiltrators is a unit set up by Infiltrate: an IC without Infiltrate cannot "
                             "join a unit that Infiltrates; an IC with Infiltrate may join a unit that deploys "
                             "normally (it then deploys normally with it)")),
                   "HH2 rulebook p.242 (Infiltrate), p.241 (Independent Character); RULES.md §1.1"),
        RulingInfo("night-fighting-deployment",
                   "Night Fighting in effect in Game Turn 1: does it limit line of sight during deployment, which "
                   "precedes Game Turn 1 (the Infiltrate 'can draw line of sight' test)?",
                   "ignored",
                   (("ignored", "deployment precedes Game Turn 1: Night Fighting never limits line of sight during "
                                "deployment (the letter of the text)"),
                    ("24in", "Night Fighting is in effect in Game Turn 1 and read as applying during deployment: no "
                             "deployed unit can draw line of sight to a unit more than 24\" away (Primarchs and "
                             "Night Vision are not modelled)")),
                   "HH-GST Night Fighting 5305-9807-b158-3c1c; RULES.md §1.10 [I]"),
        RING_SPACING,
        RulingInfo("vehicle-glancing-hits",
                   "Does a Glancing Hit on a vehicle remove a Hull Point? The source texts hold no vehicle damage "
                   "rules; Games Workshop's preview of the 2022 rules says Glancing Hits no longer do.",
                   "no-hull-point",
                   (("no-hull-point", "a Glancing Hit removes no Hull Point: it rolls on a table for a random "
                                      "Tactical Status instead, which the losses do not count (Warhammer Community, "
                                      "'Rules in the Age of Darkness: How vehicles work', 2022)"),
                    ("hull-point", "a Glancing Hit removes 1 Hull Point, as in the previous edition")),
                   "Warhammer Community preview (2022) of the Age of Darkness vehicle rules; no source text; "
                   "planner/combat/vehicles.py"),
        RulingInfo("dsa-igs-correction",
                   "Deep Strike Assault with an Inertial Guidance System: after the minimum-distance correction the "
                   "model touches the edge or the terrain; is it then relocated by the opponent?",
                   "relocated",
                   (("relocated", "it touches the edge or terrain, so it is within 1\" of it and the opponent "
                                  "relocates it (the correction does not change P(relocated))"),
                    ("kept", "the correction is the end of the scatter: the model stays where it was moved")),
                   "HH-GST Inertial Guidance System d222-fde9-51b8-8739; HH2 p.310 [I]; RULES.md §1.4"),
        RulingInfo("dsa-igs-off-battlefield",
                   "Inertial Guidance System: when does a model 'scatter off the battlefield'?",
                   "any-part",
                   (("any-part", "any part of its base (or hull) would be off the table"),
                    ("centre", "the centre of its base would be off the table")),
                   "HH-GST Inertial Guidance System d222-fde9-51b8-8739; RULES.md §1.4"),
        RulingInfo("dsa-igs-reroll",
                   "An assault made entirely of models with an Inertial Guidance System may re-roll the Disordered "
                   "roll: is the re-roll taken in the odds?",
                   "taken",
                   (("taken", "the re-roll is taken: P(Disordered) = (1/6)^2 (with the Warlord trait (3/6)^2)"),
                    ("declined", "the re-roll is not taken: P(Disordered) = 1/6 (3/6)")),
                   "HH-GST Inertial Guidance System d222-fde9-51b8-8739; RULES.md §1.4"),
        RulingInfo("dsa-first-model-shape",
                   "Deep Strike Assault: is a first model that is not round (a hull such as a Drop Pod, an oval) "
                   "judged by its true shape or by its circumscribed disc?",
                   "true-shape",
                   (("disc", "its circumscribed disc stands in for it (conservative)"),
                    ("true-shape", "its true hull or oval at its facing")),
                   "HH2 p.310 [I]; Drop Pod Assault p.99; RULES.md §1.4"),
        RulingInfo("difficult-move",
                   "Exposure (planner exposure, the exposure goal): how much shorter is a Normal move that goes "
                   "through difficult terrain? The shared source texts name Move Through Cover ('no penalty for "
                   "moving through Difficult Terrain', seed text 001) but not the penalty itself.",
                   "minus-2",
                   (("minus-2", "the move is at most M - 2\" (the HH2 core rule as read here, not in the shared "
                                "texts); none for a unit of only Move Through Cover models"),
                    ("none", "difficult terrain does not shorten the move (an upper bound on the threat)")),
                   "seed text 001 (Move Through Cover); HH2 core rules, Difficult Terrain [I]"),
    )
    """The points the sources leave open (``rulings:`` in a scenario, ``--ruling KEY=VALUE``). The
    Deep Strike ones (``ds-ring-spacing``, ``dsa-*``) are read by ``planner deepstrike``
    (:func:`planner.deepstrike.procedure.make_setup`; each reading changes its odds); ``check``,
    ``plan``, ``threats`` and ``generate`` read ``ic-infiltrate`` and ``night-fighting-deployment``."""

    def sight_range_in(self, world: World) -> float | None:
        """The longest distance a unit can draw line of sight during deployment (inches), None:
        unlimited; ``24`` under the ``night-fighting-deployment=24in`` ruling."""
        return self.NIGHT_FIGHTING_SIGHT_IN if world.ruling("night-fighting-deployment") == "24in" else None

    # --------------------------------------------------------------------------- Deep Strike Assault (RULES.md §1.4)
    # Data only: the HH2 Deep Strike Assault procedure as far as RULES.md sources it. HH2 has no Deep
    # Strike Mishap table; a first model ending within 1" of an enemy model, a battlefield edge or
    # Impassable Terrain is moved by the opponent instead.

    DEEP_STRIKE_FIRST_MODEL_CLEAR_IN = 1.0
    """The first model is placed at least 1" from any enemy model, battlefield edge and Impassable Terrain."""
    DEEP_STRIKE_OPPONENT_MOVE_IN = 18.0
    """Scattered within 1" of those: the opponent moves it up to 18" to a spot more than 1" from all of them."""
    DEEP_STRIKE_DISORDERED_ON = (1,)
    """D6 once the first unit is down: Disordered on a 1 (a Warlord trait: 1-3)."""
    DEEP_STRIKE_DISORDERED_WITHIN_IN = 24.0
    """Disordered: the opponent places the remaining units within 24" of the first, no scatter."""
    DEEP_STRIKE_OTHERS_WITHIN_IN = 6.0
    """Not Disordered: the other units of a Deep Strike Assault are placed within 6" of the first."""
    DEEP_STRIKE_PINNING_WITHIN_IN = 6.0
    """Enemy units with models within 6" of a deployed unit take a Pinning test (Drop Pod Assault)."""
    INERTIAL_GUIDANCE_SCATTER_FACTOR = 0.5
    """Inertial Guidance System (p.121): the first model's scatter distance is halved; if it would
    scatter into Impassable Terrain or off the battlefield it is moved the minimum distance to avoid that."""

    OBJECTIVE_RANGE_IN = CONTROL_OBJECTIVE_WITHIN_IN


    def deployment_map(self, name: str) -> tuple[list[list[float]], list[list[float]]]:
        """``long_edge`` (12" zones along y = 0 and y = 48), ``short_edge`` (18" along x = 0 and
        x = 72), ``quarters`` (opposite quarters, 6" from the centre lines); see :meth:`Ruleset.deployment_map`."""
        w, d = self.BATTLEFIELD_WIDTH_IN, self.BATTLEFIELD_DEPTH_IN

        def rect(x0: float, y0: float, x1: float, y1: float) -> list[list[float]]:
            return [[x0, y0], [x1, y0], [x1, y1], [x0, y1]]

        if name == "long_edge":
            z = self.LONG_EDGE_ZONE_IN
            return rect(0, 0, w, z), rect(0, d - z, w, d)
        if name == "short_edge":
            z = self.SHORT_EDGE_ZONE_IN
            return rect(0, 0, z, d), rect(w - z, 0, w, d)
        if name == "quarters":
            g = self.QUARTERS_GAP_IN
            return rect(0, 0, w / 2 - g, d / 2 - g), rect(w / 2 + g, d / 2 + g, w, d)
        return super().deployment_map(name)

    def run_checks(self, world: World) -> dict[str, list[Finding]]:
        from planner.legality.hh2 import HH2Checker

        return HH2Checker(world, self).run()

    def check_warnings(self, world: World) -> list[str]:
        from planner.legality.hh2 import unordered_infiltrators

        pairs = unordered_infiltrators(world)
        if not pairs:
            return []
        shown = ", ".join(f"{a} and {b}" for a, b in pairs[:5]) + (" ..." if len(pairs) > 5 else "")
        return [f"enemy Infiltrators without setup.order ({shown}): each is judged as deployed before the "
                "other, an observer of it; give setup.order (1, 2, ...) for the order they were placed in"]

    def planner_judge(self) -> Any:
        from planner.solve import hh2_judge

        return hh2_judge

    def deep_strike_rules(self, inertial_guidance: bool = False) -> DeepStrikeRules:
        from planner.deepstrike.procedure import DeepStrikeRules

        # RULES.md §1.11: the scatter die (HIT on 2 of 6) and 2D6", the deep-strike scatter [I]
        return DeepStrikeRules(self.id, True, 2 / 6, 2,
                               self.INERTIAL_GUIDANCE_SCATTER_FACTOR if inertial_guidance else 1.0,
                               enemy_within_in=self.DEEP_STRIKE_FIRST_MODEL_CLEAR_IN, difficult_is_dangerous=False,
                               procedure="assault")


RULESET = HorusHeresy2()
ID = RULESET.id
RULES = RULESET.rules
"""Every rule of the ruleset with its full id, meaning and source."""
