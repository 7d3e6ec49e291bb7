"""The documented, parameterised distributions that ``planner generate`` draws scenarios from.

Every random choice the generator makes reads one field of :class:`GeneratorParams`; the manifest
records the whole record, so a data set says exactly where it came from. Distances are in inches,
shares are probabilities in [0, 1]. ``planner generate --params FILE`` reads a YAML or JSON file of
this record (unknown keys are input errors); fields not given keep the defaults below.

Distributions (each item draws independently, from its own random stream):

- battlefield: one of ``battlefields`` (width x depth), uniformly;
- deployment map: one of ``deployment_maps`` uniformly: ``long_edge`` (zones ``zone_depth`` deep
  along the two long edges), ``short_edge`` (zones ``short_edge_depth`` deep along the short
  edges), ``quarters`` (opposite table quarters, each ``quarter_gap`` from the centre lines);
- terrain: the number of features is uniform in [``terrain_min``, ``terrain_max``]; together they
  cover about ``terrain_density`` of the table (each feature's area is that share divided by the
  count, times U(0.6, 1.4)); a feature is a rotated rectangle or an L; with probability
  ``share_buildings`` it is a Building (solid, blocks line of sight, capacity 10), else with
  ``share_los_blocking`` it blocks line of sight, and is solid with ``share_solid`` (else area
  terrain); with ``share_impassable`` a feature that does not block sight is impassable.
  The bounding boxes of features keep ``terrain_gap`` apart (so models can pass between them);
- armies: two players, each with a number of units uniform in [``units_min``, ``units_max``]
  (with ``rosters``: that many units, at most all, drawn without replacement from one roster file
  chosen uniformly for each player; the roster's own unit records, bases from the catalogue, 32 mm
  for models it does not know);
  each unit is one catalogue entry (the ``models/`` catalogue of the ruleset, entries of the
  types in ``unit_types``) with ``infantry_models`` (uniform in the range) models for Infantry
  and ``other_models`` for other types; units are set up in block formations (2-3 ranks, 0.5"
  apart) wholly within their zone, clear of impassable and solid terrain and of each other;
- legality targets: the rule the near-boundary perturbation aims at is drawn with
  ``legality_targets`` weights; the side of the threshold (legal or illegal) is a fair coin, and
  the distance from the threshold is U(0, ``boundary_band``).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from planner.schema import UnitType

KINDS = ("legality", "puzzle", "deepstrike")
"""Kinds of label: a legality verdict, a placement puzzle with its optimal answer, Deep Strike odds."""

LEGALITY_TARGETS = ("infiltrate_distance", "infiltrate_hidden", "zone_edge", "coherency", "overlap")
"""Near-boundary cases the legality generator aims at (see :mod:`planner.generate.legality`)."""


class GeneratorParams(BaseModel):
    """Parameters of every distribution the generator draws from (inches, probabilities)."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    battlefields: list[tuple[float, float]] = Field(
        default=[(72.0, 48.0), (60.0, 44.0)], min_length=1,
        description="Battlefield (width, depth) choices, inches; one drawn uniformly.")
    deployment_maps: list[Literal["long_edge", "short_edge", "quarters"]] = Field(
        default=["long_edge", "short_edge", "quarters"], min_length=1)
    zone_depth: float = Field(default=12.0, gt=0, le=24, description="long_edge zone depth, inches.")
    short_edge_depth: float = Field(default=18.0, gt=0, le=30, description="short_edge zone depth, inches.")
    quarter_gap: float = Field(default=6.0, ge=0, le=12, description="quarters: gap to the centre lines, inches.")

    terrain_min: int = Field(default=4, ge=0, le=40)
    terrain_max: int = Field(default=9, ge=0, le=40)
    terrain_density: float = Field(default=0.18, ge=0, le=0.5, description="Share of the table covered.")
    share_los_blocking: float = Field(default=0.6, ge=0, le=1)
    share_buildings: float = Field(default=0.12, ge=0, le=1)
    share_solid: float = Field(default=0.4, ge=0, le=1)
    share_impassable: float = Field(default=0.15, ge=0, le=1)
    terrain_gap: float = Field(default=2.0, ge=0, le=12,
                               description="Least gap between the features' bounding boxes, inches.")

    rulings: dict[str, str] = Field(
        default_factory=dict, max_length=100,
        description="Rulings (KEY: VALUE, `planner rules --rulings`) written into every scenario and applied to "
                    "its labels; `generate --ruling KEY=VALUE` adds to them.")

    units_min: int = Field(default=2, ge=1, le=20)
    units_max: int = Field(default=4, ge=1, le=20)
    rosters: list[str] = Field(
        default_factory=list,
        description="BattleScribe/New Recruit roster files (.ros/.rosz), relative to the parameter file; if "
                    "given, each player's units are drawn from one of them (hh2 scenes) instead of the catalogue.")
    unit_types: list[str] = Field(default=["Infantry", "Cavalry", "Dreadnought", "Vehicle"], min_length=1)
    infantry_models: tuple[int, int] = Field(default=(5, 10))
    other_models: tuple[int, int] = Field(default=(1, 3))

    legality_targets: dict[str, float] = Field(
        default={"infiltrate_distance": 2.0, "infiltrate_hidden": 0.5, "zone_edge": 1.0, "coherency": 1.0,
                 "overlap": 1.0},
        description="Weights of the near-boundary cases (keys: " + ", ".join(LEGALITY_TARGETS) + ").")
    boundary_band: float = Field(default=0.25, gt=0, le=3,
                                 description="Distance from the threshold: U(0, band) inches, either side.")

    puzzle_time_limit_s: float = Field(default=10.0, gt=0, le=600,
                                       description="Planner time limit per puzzle (seconds).")
    deepstrike_rulesets: list[str] = Field(default=["wh40k7", "wh40k5"], min_length=1)
    deepstrike_models: tuple[int, int] = Field(default=(1, 10))
    deepstrike_restriction: float = Field(
        default=0.0, ge=0, le=1,
        description="10th/11th Deep Strike items: the probability that an enemy unit holds a restriction (no enemy "
                    "Deep Strike arrival within X\", X 1\"-6\" past the arrival distance) with the aim point "
                    "about X from it; the label follows the restriction predicate (rule <ruleset>.restriction.within).")

    @model_validator(mode="after")
    def _ranges(self) -> GeneratorParams:
        if self.terrain_min > self.terrain_max:
            raise ValueError(f"terrain_min ({self.terrain_min}) is more than terrain_max ({self.terrain_max})")
        if self.units_min > self.units_max:
            raise ValueError(f"units_min ({self.units_min}) is more than units_max ({self.units_max})")
        for name in ("infantry_models", "other_models", "deepstrike_models"):
            lo, hi = getattr(self, name)
            if not 1 <= lo <= hi <= 30:
                raise ValueError(f"{name} must be [low, high] with 1 <= low <= high <= 30, got {[lo, hi]}")
        for w, d in self.battlefields:
            if not (24 <= w <= 120 and 24 <= d <= 120):
                raise ValueError(f"a battlefield is 24\" to 120\" each way, got {[w, d]}")
        types = {t.value for t in UnitType}
        bad = [t for t in self.unit_types if t not in types]
        if bad:
            raise ValueError(f"unknown unit type(s) {bad}; known: {', '.join(sorted(types))}")
        if UnitType.INFANTRY.value not in self.unit_types:
            raise ValueError("unit_types must include Infantry: the units set near a threshold are Infantry")
        unknown = set(self.legality_targets) - set(LEGALITY_TARGETS)
        if unknown:
            raise ValueError(f"unknown legality target(s) {sorted(unknown)}; known: {', '.join(LEGALITY_TARGETS)}")
        if not any(v > 0 for v in self.legality_targets.values()) or any(v < 0 for v in
                                                                           self.legality_targets.values()):
            raise ValueError("legality_targets weights must be >= 0 with at least one > 0")
        return self
