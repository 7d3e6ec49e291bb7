"""The records of ``scenarios.jsonl``: a scenario (:class:`planner.schema.Scenario`) plus a ``label``.

``planner generate`` writes the JSON Schema of :class:`ScenarioLine` next to the data
(``scenario-line.schema.json``). Drop the ``label`` key and a line is a scenario file that
``planner check`` / ``plan`` / ``deepstrike`` read as it is. Distances in inches.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from planner.schema import Scenario


class _L(BaseModel):
    model_config = ConfigDict(extra="forbid")


class LegalityLabel(_L):
    """The checker's verdict on the scenario as written, and the near-boundary case aimed at."""

    kind: Literal["legality"]
    index: int = Field(ge=0, description="Line number, from 0.")
    legal: bool = Field(description="planner check's verdict (exit 0 if true, 1 if false).")
    violations: list[str] = Field(description="Rule ids broken, sorted, each once.")
    exit_code: Literal[0, 1]
    target: str = Field(description="The near-boundary case the generator aimed at.")
    target_rule: str = Field(description="The rule id of that case.")
    threshold: float | None = Field(description="The rule's threshold, inches (None: line of sight).")
    intended: Literal["legal", "illegal"] = Field(description="The side of the threshold aimed at.")
    offset: float = Field(description="Signed distance aimed at from the threshold, inches (+ legal side).")
    subject_unit: str
    subject_margin: float | None = Field(description="The checker's margin of the subject on the target rule.")
    deployment_map: str
    details: dict[str, Any] = Field(default_factory=dict)


class PuzzleLabel(_L):
    """The planner's answer to "place the unit as near the goal as the rules allow"."""

    kind: Literal["puzzle"]
    index: int = Field(ge=0)
    unit: str
    setup: Literal["infiltrate", "deployment_zone"]
    goal: tuple[float, float]
    status: Literal["optimal", "feasible", "infeasible", "unknown"] = Field(
        description="The solver's proof status over the candidate placements (see optimal_on_grid).")
    grid_in: float = Field(description="The planner's candidate grid step, inches.")
    margin_in: float = Field(description="The planner's margin kept on 'more than' distances, inches.")
    optimal_on_grid: bool = Field(
        description="No better answer among the candidate placements on the grid_in grid (proved by CP-SAT); "
                    "not a claim about every legal placement: one off the grid may be nearer the goal.")
    objective: float | None = Field(description="Sum over models of centre distance to the goal, inches.")
    legal: bool | None = Field(description="The checker's verdict on the planned scenario.")
    answer: list[tuple[float, float, float]] | None = Field(description="[x, y, facing] per model.")
    unique_on_grid: bool | None = Field(
        description="No other candidate placement on the grid reaches the objective (placements off the grid "
                    "not counted).")
    ties: int | None = None
    better_candidates: int | None = None
    message: str = ""


class DeepStrikeOdds(_L):
    x: float
    y: float
    p_mishap: float
    p_clean: float
    results: dict[str, float]
    triggers: dict[str, float]
    dangerous: dict[str, float]
    within: float | None
    error_bound: float


class DeepStrikeLabel(_L):
    """Exact Deep Strike odds for aiming the unit's first model at ``at``."""

    kind: Literal["deepstrike"]
    index: int = Field(ge=0)
    unit: str
    ruleset: str
    at: tuple[float, float]
    orientation_deg: float
    aim: str
    exact_bases: bool
    odds: DeepStrikeOdds


Label = Annotated[LegalityLabel | PuzzleLabel | DeepStrikeLabel, Field(discriminator="kind")]


class ScenarioLine(Scenario):
    """One line of ``scenarios.jsonl``: the scenario and its label."""

    label: Label


def line_schema() -> dict:
    """The JSON Schema of a line."""
    return ScenarioLine.model_json_schema(by_alias=True)
