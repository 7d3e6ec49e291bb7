"""``planner plan``'s work, kept out of the CLI module: which units to place, then the plan."""

from __future__ import annotations

from planner.solve.planner import PlanResult, ProgressCallback, SolverSettings, plan_deployment
from planner.world import World


def run_plan(world: World, settings: SolverSettings, *, next_step: bool = False, units: list[str] | None = None,
             on_progress: ProgressCallback | None = None) -> tuple[PlanResult, str | None]:
    """Plan the marked units, or only ``units``, or (``next_step``) the next Infiltrator of the
    alternation (:mod:`planner.solve.alternation`). Returns the result and a note for the report
    (who was placed, with which order), or None.

    Raises
    ------
    ScenarioError
        As :func:`planner.solve.planner.plan_deployment`, and when ``next_step`` finds nobody next.
    """
    note = None
    if next_step:
        from planner.solve.alternation import next_infiltrator, record_step

        unit, order = next_infiltrator(world)
        if world.raw is None:
            world.raw = world.scenario.model_dump(mode="json", by_alias=True, exclude_none=True)
        record_step(world.raw, world, unit, order)
        result = plan_deployment(world, settings, units=[unit.id], on_progress=on_progress)
        note = (f"Infiltrate alternation: placed {unit.label} ({unit.id}) of player {unit.player} as Infiltrator "
                f"number {order}")
        return result, note
    return plan_deployment(world, settings, units=units, on_progress=on_progress), note
