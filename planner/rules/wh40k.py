"""Warhammer 40,000 10th and 11th edition: what the two editions share (the checks, the planner's
judge, Deep Strike as an arrival from Reserves). Each edition's numbers and rule ids live in
:mod:`planner.rules.wh40k10` and :mod:`planner.rules.wh40k11`; where the editions differ in kind
rather than in a number, a flag here says so and the edition sets it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from planner.rules.base import InfiltrateDistances, Ruleset
from planner.rules.wh40k_maps import MAPS

if TYPE_CHECKING:
    from planner.deepstrike.procedure import DeepStrikeRules
    from planner.legality.report import Finding
    from planner.legality.table import Table
    from planner.world import ModelInfo, UnitInfo, World


class Warhammer40k(Ruleset):
    """The 40k deployment rules shared by the 10th and 11th editions."""

    family = "40k"

    HAS_DEPLOYMENT_CHECKER = True
    HAS_DEEP_STRIKE_ARRIVAL = True
    HAS_STANDARD_LAYOUTS = True
    GOAL_KINDS = frozenset({"objective", "cover", "objective_control"})

    FRAME_MODELS: ClassVar[bool] = False
    """FRAME models (no base, measured to the hull) exist and need a hull outline (11E-CORE-A 01.04)."""
    SUPPORT_ABILITY: ClassVar[bool] = False
    """A Support unit may attach to a Bodyguard besides a Leader (11E-CORE-C 19.02)."""
    EMBARK_NOT_SET_UP_THIS_TURN: ClassVar[bool] = False
    """Embarking needs a unit not set up on the battlefield this turn (11E-CORE-C 18.02)."""

    DEEP_STRIKE_MORE_THAN_IN: ClassVar[float] = 9.0

    DEPLOYMENT_MAPS = MAPS
    """The deployment maps of the current mission packs (:mod:`planner.rules.wh40k_maps`)."""

    def deployment_map(self, name: str) -> tuple[list[list[float]], list[list[float]]]:
        """The maps of :mod:`planner.rules.wh40k_maps` (60" x 44"); see :meth:`Ruleset.deployment_map`."""
        from planner.rules.wh40k_maps import polygon_points, zones

        if name not in self.DEPLOYMENT_MAPS:
            return super().deployment_map(name)
        a, b = zones(name)
        return polygon_points(a), polygon_points(b)

    MODEL_HEIGHT_IN: ClassVar[dict[str, float]] = {
        "Infantry": 1.25, "Cavalry": 1.75, "Dreadnought": 2.75, "Automata": 2.25, "Vehicle": 2.5,
        "Primarch": 2.0, "Knight": 6.0, "Titan": 12.0, "Monstrous": 2.5, "Fortification": 4.0,
    }
    """Default model heights by unit type (inches; the type read from the 40k keywords), when
    neither the model nor its profile states one. Planner ruling: the rules give no heights
    (10th: true line of sight, RULES.md §3.1 Visibility); typical heights of current kits, table
    top to the top of the model (an Intercessor about 32 mm, a Rhino about 62 mm, a Redemptor
    Dreadnought about 75 mm), rounded to a quarter inch."""
    AREA_BLOCKS_AT_ANY_HEIGHT: ClassVar[bool] = True
    """Ruins (10th) and obscuring terrain areas (11th) block by their footprint whatever their
    height (RULES.md §3.1 Terrain; 11E-CORE-B 13.10); other features block up to their height."""

    # the numbers every edition gives (in its module, with its source)
    SCATTER: ClassVar[bool]
    COHERENCY_IN: ClassVar[float]
    COHERENCY_VERTICAL_IN: ClassVar[float]
    COHERENCY_LARGE_UNIT_MODELS: ClassVar[int | None]
    COHERENCY_NEIGHBOURS: ClassVar[int]
    COHERENCY_NEIGHBOURS_LARGE: ClassVar[int]
    COHERENCY_ALL_WITHIN_IN: ClassVar[float | None]
    ENGAGEMENT_RANGE_IN: ClassVar[float]
    INFILTRATORS_MORE_THAN_IN: ClassVar[float]
    INFILTRATORS_FROM: ClassVar[str]
    SCOUTS_MORE_THAN_IN: ClassVar[float]
    SCOUTS_FIRST_WHOLLY_IN_OWN_ZONE: ClassVar[bool]
    STRATEGIC_RESERVES_POINTS_SHARE: ClassVar[float]
    STRATEGIC_RESERVES_FORBIDDEN: ClassVar[str | None]
    RESERVES_FIRST_ROUND: ClassVar[int]
    RESERVES_EDGE_IN: ClassVar[float]
    RESERVES_ENEMY_ZONE_FROM_ROUND: ClassVar[int]
    RESERVES_MORE_THAN_IN: ClassVar[float]
    RESERVES_LARGE_TOUCHING_EDGE: ClassVar[bool] = False
    """A model too large to fit wholly within ``RESERVES_EDGE_IN`` of an edge may arrive touching a
    battlefield edge instead (still more than ``RESERVES_MORE_THAN_IN`` from enemy units)."""
    RESERVES_DESTROYED_AFTER_ROUND: ClassVar[int]
    EMBARK_WITHIN_IN: ClassVar[float]
    OBJECTIVE_RANGE_IN: ClassVar[float]
    COVER_KEYWORDS: ClassVar[tuple[str, ...]]
    VISIBILITY: ClassVar[str]

    def infiltrate_distances(self) -> InfiltrateDistances:
        """Infiltrators (10E-GST p.39, 11E-GST p.39): more than :attr:`INFILTRATORS_MORE_THAN_IN`
        horizontally from every enemy deployment zone (rule ``infiltrators.zone_distance``) and from
        every enemy model / unit on the battlefield (``infiltrators.distance``); no hidden band."""
        d = float(self.INFILTRATORS_MORE_THAN_IN)
        return InfiltrateDistances(plain_in=d, zone_in=d, unit_rule="infiltrators.distance",
                                   zone_rule="infiltrators.zone_distance")

    def run_checks(self, world: World) -> dict[str, list[Finding]]:
        from planner.legality.wh40k import WH40kChecker

        return WH40kChecker(world).run()

    def cover_report(self, world: World) -> list[Any]:
        from planner.legality.wh40k import cover_report

        return cover_report(world, self)

    def table(self, world: World) -> Table:
        """The table with the edition's visibility rule (:class:`planner.legality.wh40k.WH40kTable`)."""
        from planner.legality.wh40k import WH40kTable

        return WH40kTable(world, self)

    def setup_label(self, unit: UnitInfo) -> str:
        from planner.legality.wh40k import setup_label_40k

        return setup_label_40k(unit)

    def planner_judge(self) -> Any:
        from planner.solve import wh40k_judge

        return wh40k_judge

    DEEP_STRIKE_FIELD = "abilities"

    def without_deep_strike(self, models: Sequence[ModelInfo]) -> list[ModelInfo]:
        """The models that lack the Deep Strike ability (a datasheet ability: ``abilities``)."""
        from planner.rules.abilities import Ability

        return [m for m in models if not m.ability(Ability.DEEP_STRIKE.value)[0]]

    def deep_strike_rules(self, inertial_guidance: bool = False) -> DeepStrikeRules:
        from planner.deepstrike.procedure import DeepStrikeRules

        return DeepStrikeRules(self.id, False, more_than_in=self.DEEP_STRIKE_MORE_THAN_IN, procedure="arrival")
