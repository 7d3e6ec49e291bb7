"""``planner plan``'s work, kept out of the CLI module: which units to place, then the plan."""

from __future__ import annotations

import copy

from planner.errors import ScenarioError
from planner.legality.report import Violation
from planner.solve.planner import PlanResult, ProgressCallback, SolverSettings, plan_deployment
from planner.world import World


def units_to_place(world: World, units: list[str] | None, *, every_marked: bool = False) -> set[str]:
    """The ids of the units a plan places: those of :func:`planner.solve.planner._groups` (marked
    ``place: true``, or ``units`` with their Independent Characters), or every marked unit."""
    if every_marked:
        return {u.id for u in world.units.values() if u.record.place}
    from planner.solve.planner import _groups

    return {m.id for g in _groups(world, units) for m in g.members}


def player_units(world: World, player: str, units: list[str] | None, *, next_step: bool = False,
                 deny: bool = False) -> list[str]:
    """The units ``planner plan --player PLAYER`` places: ``player``'s units marked ``place: true``
    on the battlefield (the Independent Characters that join them come with their unit), or, with
    ``units`` (``--unit``), those units after checking that each is ``player``'s.

    Raises
    ------
    ScenarioError
        (exit 2) ``player`` has no army in the scenario, no marked unit on the battlefield, a
        ``--unit`` of another player, or ``--player`` given with ``--next`` or a deny goal (which
        choose the units themselves).
    """
    from planner.errors import ScenarioError

    if next_step or deny:
        raise ScenarioError("--player chooses the units to place; " + (
            "--next places the next Infiltrator of the alternation, whoever's it is" if next_step else
            "a deny goal places every marked unit of mine together") + ": give one or the other",
                            file=world.file, location="--player", value=player)
    players = sorted({u.player for u in world.units.values()})
    if player not in players:
        raise ScenarioError(f"no army of this player in the scenario (players: {', '.join(players)})",
                            file=world.file, location="--player", value=player)
    if units:
        for uid in units:
            u = world.units.get(uid)
            if u is not None and u.player != player:
                raise ScenarioError(f"this unit belongs to {u.player!r}, not to --player {player!r}",
                                    file=world.file, location="--unit", value=uid)
        return list(units)
    ids = [u.id for u in world.units.values()
           if u.player == player and u.record.place and u.on_battlefield and not u.setup.joined]
    if not ids:
        marked = sorted({u.player for u in world.units.values() if u.record.place and u.on_battlefield})
        raise ScenarioError("this player has no unit marked 'place: true' on the battlefield"
                            + (f" (players with marked units: {', '.join(marked)})" if marked else ""),
                            file=world.file, location="--player", value=player)
    return ids


def table_violations(world: World, placing: set[str]) -> list[Violation]:
    """The violations of the units already on the table, before anything is placed: the checker
    (:func:`planner.legality.checker.check_deployment`) on the scenario without the positions of
    the units in ``placing``; [] for a ruleset without a checker.

    Raises
    ------
    ScenarioError
        As :func:`planner.world.resolve`.
    """
    from planner.errors import UnknownRulesetError
    from planner.legality.checker import check_deployment
    from planner.schema import Scenario
    from planner.world import resolve

    data = copy.deepcopy(world.scenario.model_dump(mode="json", by_alias=True, exclude_none=True))
    for army in data.get("armies", []):
        for unit in army.get("units", []):
            if unit.get("id") in placing:
                unit["place"] = True
                for m in unit.get("models", []):
                    m.pop("x", None)
                    m.pop("y", None)
    try:
        report = check_deployment(resolve(Scenario.model_validate(data), world.file))
    except UnknownRulesetError:
        return []
    return [v for v in report.violations if v.unit not in placing]


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

        if units and len(units) > 1:
            raise ScenarioError("--next places one unit: give at most one --unit", file=world.file,
                                location="--unit", value=",".join(units))
        unit, order = next_infiltrator(world, units[0] if units else None)
        if world.raw is None:
            world.raw = world.scenario.model_dump(mode="json", by_alias=True, exclude_none=True)
        record_step(world.raw, world, unit, order)
        result = plan_deployment(world, settings, units=[unit.id], on_progress=on_progress)
        note = (f"Infiltrate alternation: placed {unit.label} ({unit.id}) of player {unit.player} as Infiltrator "
                f"number {order}")
        return result, note
    return plan_deployment(world, settings, units=units, on_progress=on_progress), note


def placing_for(world: World, units: list[str] | None, *, next_step: bool = False) -> set[str]:
    """The units a plan leaves off the table when the units already on it are checked first
    (:func:`table_violations`): with a ``deny`` goal, every marked unit and the enemy units
    (they arrive later); otherwise those of :func:`units_to_place` (``next_step``: every marked
    unit, the alternation chooses among them).

    Raises
    ------
    ScenarioError
        More than one deny goal (:func:`planner.cli.adversary.deny_goal`).
    """
    from planner.cli.adversary import deny_goal

    goal = deny_goal(world)
    if goal is not None:
        return units_to_place(world, None, every_marked=True) | {goal[1].enemy_unit, *goal[1].also}
    return units_to_place(world, units, every_marked=next_step)


def plan_scenario(world: World, settings: SolverSettings, console, *, quiet: bool = False, next_step: bool = False,
                  units: list[str] | None = None, on_progress: ProgressCallback | None = None):
    """Plan as ``planner plan`` does (the command and the page's Plan, :mod:`planner.web.jobs`, both
    come here): a scenario with a ``deny`` goal goes to the denial planner
    (:func:`planner.cli.adversary.run_deny_plan`, whose text report is printed on ``console``
    unless ``quiet``; ``on_progress`` is not called), any other to :func:`run_plan`. Returns the
    result (a :class:`planner.solve.planner.PlanResult`, or a
    :class:`planner.adversary.deny.DenyResult`) and a note for the report, or None.

    Raises
    ------
    ScenarioError
        As :func:`run_plan` or :func:`planner.cli.adversary.run_deny_plan` (a deny goal with
        ``next_step`` or ``units``: it places every marked unit of mine together).
    """
    from planner.cli.adversary import deny_goal, run_deny_plan

    if deny_goal(world) is not None:
        return run_deny_plan(world, settings.time_limit_s, settings.workers, settings.seed, console, quiet=quiet,
                             next_step=next_step, units=units), None
    return run_plan(world, settings, next_step=next_step, units=units, on_progress=on_progress)


def illegal_table(world: World, placing: set[str], console, allow: bool, what: str, *,
                  does: str = "places anything", going_on: str = "the result cannot be legal while these stand",
                  anyway: str | None = None) -> list[Violation]:
    """Check the units already on the table (:func:`table_violations`) and print their violations
    as such: an error (the caller exits 1 before planning) or, with ``allow``
    (``--allow-illegal-table``), a warning. Returns the violations ([] when the table is legal).

    The words: "the table is already illegal before ``what`` ``does``", then with ``allow``
    "going on (--allow-illegal-table): ``going_on``", else "fix the scenario, or give
    --allow-illegal-table to ``anyway``" (default: "run ``what`` anyway (the result will be reported
    with the table illegal)"; ``planner plan`` and ``threats`` keep the defaults;
    ``planner exposure`` measures rather than places)."""
    from rich.markup import escape

    found = table_violations(world, placing)
    if not found:
        return found
    head = "[red]error:[/red]" if not allow else "[yellow]warning:[/yellow]"
    n = len(found)
    console.print(f"{head} the table is already illegal before {escape(what)} {escape(does)}: {n} violation"
                  f"{'s' if n != 1 else ''} by units already deployed:")
    for v in found:
        console.print(f"  unit {escape(v.unit)}: {escape(v.message)} {escape(f'[{v.rule}]')}", highlight=False)
    if allow:
        console.print(f"  going on (--allow-illegal-table): {escape(going_on)}")
    else:
        console.print(f"  fix the scenario, or give --allow-illegal-table to "
                      f"{escape(anyway or f'run {what} anyway (the result will be reported with the table illegal)')}")
    return found
