"""The records of ``scenarios.jsonl``: a scenario (:class:`planner.schema.Scenario`) plus a ``label``.

``planner generate`` writes the JSON Schema of :class:`ScenarioLine` next to the data
(``scenario-line.schema.json``). Drop the ``label`` key and a line is a scenario file that
``planner check`` / ``plan`` / ``deepstrike`` read as it is. Distances in inches.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from planner.legality.report import Finding
from planner.schema import Scenario, json_schema


class _L(BaseModel):
    model_config = ConfigDict(extra="forbid")


class LegalityLabel(_L):
    """The checker's verdict on the scenario as written, and the near-boundary case aimed at."""

    kind: Literal["legality"] = Field(description="The kind of label: a legality verdict.")
    index: int = Field(ge=0, description="Line number, from 0.")
    legal: bool = Field(description="planner check's verdict (exit 0 if true, 1 if false).")
    violations: list[str] = Field(description="Rule ids broken, sorted, each once.")
    exit_code: Literal[0, 1] = Field(description="planner check's exit code on the scenario: 0 legal, 1 illegal.")
    target: str = Field(description="The near-boundary case the generator aimed at.")
    target_rule: str = Field(description="The rule id of that case.")
    threshold: float | None = Field(description="The rule's threshold, inches (None: line of sight).")
    intended: Literal["legal", "illegal"] = Field(description="The side of the threshold aimed at.")
    offset: float = Field(description="Signed distance aimed at from the threshold, inches (+ legal side).")
    subject_unit: str = Field(description="Id of the unit set near the threshold.")
    subject_margin: float | None = Field(description="The checker's margin of the subject on the target rule.")
    deployment_map: str = Field(description="The deployment map of the scene: long_edge, short_edge or quarters.")
    details: dict[str, Any] = Field(
        default_factory=dict,
        description="What the case was built from, by target (e.g. the corner, feature and observer of a hidden "
                    "infiltrator, the other unit of an overlap, a note on the coherency range).")


class PuzzleLabel(_L):
    """The planner's answer to "place the unit as near the goal as the rules allow"."""

    kind: Literal["puzzle"] = Field(description="The kind of label: a placement puzzle.")
    index: int = Field(ge=0, description="Line number, from 0.")
    unit: str = Field(description="Id of the unit to place (place: true, no positions in the scenario).")
    setup: Literal["infiltrate", "deployment_zone"] = Field(
        description="How the unit is set up: by Infiltrate, or in its deployment zone.")
    goal: tuple[float, float] = Field(
        description="The goal point [x, y], inches (the scenario's near_point goal).")
    status: Literal["optimal", "feasible", "infeasible", "unknown"] = Field(
        description="The solver's proof status over the candidate placements (see optimal_on_grid): infeasible "
                    "only when the rules alone leave no placement; no answer on the grid only is unknown.")
    limit: Literal["formations", "grid"] | None = Field(
        default=None,
        description="Why the status is unknown when the time did not run out: 'grid' (no placement on the "
                    "candidate grid, proven over that grid only: one off the grid may be legal), 'formations' "
                    "(no formation of the planner fits the unit's region); None otherwise.")
    grid_in: float = Field(description="The planner's candidate grid step, inches.")
    margin_in: float = Field(description="The planner's margin kept on 'more than' distances, inches.")
    optimal_on_grid: bool = Field(
        description="No better answer among the candidate placements on the grid_in grid (proved by CP-SAT); "
                    "not a claim about every legal placement: one off the grid may be nearer the goal.")
    objective: float | None = Field(
        description="Sum over models of centre distance to the goal, inches (None: no answer).")
    legal: bool | None = Field(description="The checker's verdict on the planned scenario (None: no answer).")
    answer: list[tuple[float, float, float]] | None = Field(
        description="The planner's answer: one row [x, y, facing] per model of the unit (x, y inches, facing "
                    "degrees), in the order of the unit's models in the scenario (rows carry no model ids: row i "
                    "is the unit's models[i]); None: no answer.")
    unique_on_grid: bool | None = Field(
        description="No other candidate placement on the grid reaches the objective (placements off the grid "
                    "not counted); None: not counted (no answer).")
    ties: int | None = Field(
        default=None,
        description="Candidate placements on the grid at the objective, the answer included (1: unique_on_grid "
                    "if better_candidates is 0); None: not counted (no answer).")
    better_candidates: int | None = Field(
        default=None,
        description="Candidate placements on the grid with a lower cost than the objective (0 for an answer "
                    "proved optimal on the grid); None: not counted (no answer).")
    message: str = Field(default="", description="The planner's message on the answer (e.g. why none was found).")


class DeepStrikeOdds(_L):
    """Exact odds of aiming the unit's first model at (x, y) (probabilities, each within ``error_bound``)."""

    x: float = Field(description="Aim point x, inches.")
    y: float = Field(description="Aim point y, inches.")
    p_mishap: float = Field(description="Probability of a mishap (10th/11th: that the set-up is not legal).")
    p_clean: float = Field(description="1 - p_mishap.")
    results: dict[str, float] = Field(description="Probability of each mishap table result, by result name.")
    triggers: dict[str, float] = Field(description="Probability of each mishap trigger, by rule id (they overlap); "
                                       "10th/11th: each rule the arrival is judged by, by the id planner check "
                                       "reports (e.g. wh40k10.deepstrike.distance), 1.0 if broken, else 0.0.")
    dangerous: dict[str, float] = Field(
        description="Probability of landing clean with a model in each dangerous feature, by feature id.")
    within: float | None = Field(description="Probability of landing clean with a model near a goal point "
                                             "(None: no goal asked for).")
    error_bound: float = Field(description="Bound on the numerical error of each probability.")


class DeepStrikeLabel(_L):
    """Exact Deep Strike odds for aiming the unit's first model at ``at``."""

    kind: Literal["deepstrike"] = Field(description="The kind of label: Deep Strike odds.")
    index: int = Field(ge=0, description="Line number, from 0.")
    unit: str = Field(description="Id of the unit in reserves that Deep Strikes.")
    ruleset: str = Field(description="The ruleset whose Deep Strike procedure the odds follow.")
    at: tuple[float, float] = Field(description="Aim point [x, y] of the first model, inches.")
    orientation_deg: float = Field(description="Direction of the formation's rings, degrees (the odds are for it).")
    aim: str = Field(description="How the aim point was drawn, in words.")
    exact_bases: bool = Field(description="Every model has a round base (the formation's spacing is then exact).")
    odds: DeepStrikeOdds = Field(description="The odds at the aim point.")
    positions: list[tuple[float, float]] | None = Field(
        default=None,
        description="10th/11th with a restriction on arrivals: the models' centres [x, y] of the arrival, inches, "
                    "in the unit's model order; absent otherwise.")
    restriction: list[Finding] | None = Field(
        default=None,
        description="10th/11th with a restriction on arrivals: the checker's findings on it (rule "
                    "<ruleset>.restriction.within); absent otherwise.")


Label = Annotated[LegalityLabel | PuzzleLabel | DeepStrikeLabel, Field(discriminator="kind")]


class ScenarioLine(Scenario):
    """One line of ``scenarios.jsonl``: the scenario and its label."""

    label: Label


def line_schema() -> dict:
    """The JSON Schema of a line."""
    return json_schema(ScenarioLine)
