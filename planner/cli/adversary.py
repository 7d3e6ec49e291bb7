"""Command bodies for ``planner threats`` and ``planner plan`` with a ``deny`` goal (the CLI
functions in :mod:`planner.cli` are thin wrappers)."""

from __future__ import annotations

import copy
import io
import time

from rich.console import Console
from rich.markup import escape

from planner.cli.exits import EXIT_ILLEGAL, EXIT_OK
from planner.errors import ScenarioError
from planner.schema import DenyGoal
from planner.solve import stop
from planner.world import World


def deny_goal(world: World) -> tuple[int, DenyGoal] | None:
    """The scenario's ``deny`` goal with its index, or None.

    Raises
    ------
    ScenarioError
        More than one deny goal; an enemy unit of the goal (``enemy_unit``, ``also``) of the
        player being planned (a player with a unit marked ``place: true``: the denial places
        those against the enemy's), or one that cannot Infiltrate
        (:func:`planner.adversary.legal_area.enemy_group`), naming the goal's field.
    """
    from planner.world import deny_enemy_fields

    found = [(i, g) for i, g in enumerate(world.scenario.goals) if isinstance(g, DenyGoal)]
    if len(found) > 1:
        raise ScenarioError("one 'deny' goal at a time", file=world.file, location=f"goals[{found[1][0]}]",
                            value="deny")
    if not found:
        return None
    planned = {u.player for u in world.units.values() if u.record.place}
    for where, ref in deny_enemy_fields(found[0][1], found[0][0]):
        u = world.units.get(ref)
        if u is not None and u.player in planned:
            raise ScenarioError(f"{ref} is a unit of the player being planned ({u.player}: units marked "
                                "'place: true'), not an enemy unit", file=world.file, location=where, value=ref)
    from planner.adversary.legal_area import enemy_group

    for where, ref in deny_enemy_fields(found[0][1], found[0][0]):
        enemy_group(world, ref, where)  # an enemy unit that cannot Infiltrate: named by the goal's field
    return found[0]


def arriving_positions_note(world: World, enemy_unit: str) -> str | None:
    """The warning ``planner threats`` gives when the enemy unit (or an Independent Character
    joined to it: :func:`planner.adversary.report.enemy_ids`, the units taken off the table) already
    has positions in the scenario: they are disregarded, the unit is scanned as not yet placed.
    None when none of them has a position (or the unit is unknown: its error comes later)."""
    from planner.adversary.report import enemy_ids

    if enemy_unit not in world.units:
        return None
    placed = sorted(u for u in enemy_ids(world, [enemy_unit])
                    if any(m.x is not None for m in world.units[u].models))
    if not placed:
        return None
    names = ", ".join(placed)
    return (f"unit{'s' if len(placed) > 1 else ''} {names} already {'have' if len(placed) > 1 else 'has'} "
            f"positions in the scenario: threats disregards them ({enemy_unit} is treated as not yet placed, "
            "the unit arriving)")


def run_threats(world: World, enemy_unit: str, goal_text: str | None, grid_in: float, show_map: bool,
                console: Console, render_path: str | None = None,
                time_limit_s: float | None = None) -> tuple[dict, int]:
    """``planner threats``: print the report (and draw the legal area to ``render_path``, .svg or
    .png); return (JSON data, exit code).

    A stop request (the first Ctrl-C, inside :func:`planner.solve.stop.ctrl_c_stops`) ends the scan:
    the threats found so far are reported, marked interrupted (exit 3 unless something illegal is
    proven; :attr:`planner.adversary.threats.ThreatResult.exit_code`). The time limit
    (``time_limit_s``, wall-clock seconds of the scan and the valuing; None: none) ends it the same
    way, marked ``time_limit_reached``.

    Raises
    ------
    KeyboardInterrupt
        A stop requested before any arrival position was judged: nothing to report (as any Ctrl-C,
        exit 3, nothing written).
    """
    from planner.adversary.ds_threats import deepstrike_threats, is_deepstrike_arrival
    from planner.adversary.legal_area import fixed_units
    from planner.adversary.threats import ascii_map, find_threats, parse_goal

    goal = parse_goal(goal_text, world)
    deep = is_deepstrike_arrival(world, enemy_unit)
    r = (deepstrike_threats if deep else find_threats)(world, enemy_unit, goal, grid_in, stoppable=True,
                                                        time_limit_s=time_limit_s)
    if r.interrupted and not r.positions_judged:
        raise KeyboardInterrupt  # before the scan judged anything: nothing found to report
    how = "arrive by Deep Strike" if deep else "Infiltrate"
    console.print(f"[bold]Threats: where can {escape(enemy_unit)} {how}?[/bold] ({escape(goal.label)})")
    if r.interrupted or r.time_limit_reached:
        console.print(f"[yellow]{escape(r.message)}[/yellow]")
    if not r.deployment_legal:
        console.print("[red]the deployment itself is not legal (run planner check):[/red]")
        for line in r.deployment_violations[:10]:
            console.print(f"  {escape(line)}", highlight=False)
        if len(r.deployment_violations) > 10:
            console.print(f"  ... and {len(r.deployment_violations) - 10} more (planner check lists every one)")
    console.print(f"legal area: {r.legal_anchors} anchors on the {grid_in:g}\" grid = {r.legal_area_sq_in:g} sq in"
                  + (f"; exact area more than 9\" from my units (terrain and sight ignored): "
                     f"{r.distance_region_sq_in:.1f} sq in" if r.distance_region_sq_in is not None else ""))
    if r.best is not None:
        b = r.best
        judge = "Deep Strike procedure" if deep else "checker"
        console.print(f"best for the enemy: {b.formation} at ({b.anchor[0]:g}, {b.anchor[1]:g}), value {b.value:.3f}; "
                      f"{judge}: {'legal' if b.legal else 'ILLEGAL'}")
    elif not (r.interrupted or r.time_limit_reached):  # (a run cut short has said its message above)
        console.print(escape(r.message))
    if show_map:
        if deep:
            from planner.deepstrike.procedure import make_setup

            mine = [o.fp for o in make_setup(world, enemy_unit).obstacles if o.enemy]
        else:
            mine = [f for p in fixed_units(world.ruleset.table(world), {enemy_unit})
                    if p.unit.player != world.units[enemy_unit].player for f in p.footprints]
        console.print("legal arrival anchors (o), my models (#), terrain (T), the enemy's best placement (X), "
                      "elsewhere (.):")
        console.print(escape(ascii_map(world, grid_in, {(x, y) for x, y in r.legal_cells}, mine,
                                       mark=r.best.anchor if r.best else None)))
    code = r.exit_code
    data = r.model_dump(mode="json")
    if render_path is not None:
        from planner.adversary.report import threat_picture
        from planner.render import render_file

        pw, opts = threat_picture(world, r, goal.label)
        summary = render_file(pw, render_path, None, opts)
        console.print(f"Wrote the picture of the legal area to {escape(render_path)}: "
                      f"{summary.counts.get('threat_cell', 0)} legal cells")
        data["render"] = {"file": render_path, "counts": summary.counts}
    return data, code


def deny_alone_warning(world: World) -> str | None:
    """The warning for a scenario whose ``deny`` goal comes with other goals: the denial planner
    plans the deny goal alone, so the others (named by index and kind) are not used; None when the
    deny goal is the only goal (or there is none)."""
    found = deny_goal(world)
    if found is None:
        return None
    others = [f"goals[{j}] ({g.kind})" for j, g in enumerate(world.scenario.goals) if j != found[0]]
    if not others:
        return None
    return (f"the deny goal (goals[{found[0]}]) is planned alone: the other goal{'s' if len(others) > 1 else ''} "
            f"{', '.join(others)} {'are' if len(others) > 1 else 'is'} not used (plan "
            f"{'them' if len(others) > 1 else 'it'} in a scenario without the deny goal)")


def run_deny_plan(world: World, time_limit: float, workers: int, seed: int, console: Console, *,
                  quiet: bool = False, next_step: bool = False, units: list[str] | None = None):
    """``planner plan`` with a ``deny`` goal: solve, print the text report (unless ``quiet``: another
    report format follows); return the DenyResult, its ``warnings`` holding
    :func:`deny_alone_warning` (the scenario's other goals are not used).

    Raises
    ------
    ScenarioError
        ``--next`` or ``--unit`` (a deny goal places every marked unit of mine together), an enemy
        unit that cannot Infiltrate (an unknown one is refused when the scenario is loaded).
    """
    r = _run_deny_plan(world, time_limit, workers, seed, console, quiet=quiet, next_step=next_step, units=units)
    if (note := deny_alone_warning(world)) is not None:
        r.warnings.append(note)
    return r


def _run_deny_plan(world: World, time_limit: float, workers: int, seed: int, console: Console, *,
                   quiet: bool = False, next_step: bool = False, units: list[str] | None = None):
    """:func:`run_deny_plan` without its warnings."""
    from planner.adversary.deny import DenyResult, DenySettings, NoCandidate, deny
    from planner.adversary.threats import ascii_map
    from planner.world import resolve

    i, goal = deny_goal(world)  # type: ignore[misc]
    if next_step or units:
        raise ScenarioError("a 'deny' goal places every marked unit of mine together; remove this option or the "
                            "goal", file=world.file, location="--next" if next_step else "--unit",
                            value="--next" if next_step else ",".join(units or []))
    if quiet:
        console = Console(file=_Null(), highlight=False)
    # (the goal's unit ids are checked when the scenario is loaded: planner.world._check_goals)
    settings = DenySettings(time_limit_s=time_limit, workers=workers, seed=seed, enemy_grid_in=goal.grid_in)
    t0 = time.monotonic()
    protect = (goal.protect[0], goal.protect[1], goal.radius) if goal.protect is not None and goal.radius is not None \
        else None
    try:
        if goal.objective == "reply":
            return run_minmax_plan(world, goal, settings, console)
        r = deny(world, goal.enemy_unit, settings, protect=protect)
    except NoCandidate as none:  # no deployment of mine to offer: by the rules (1), or the grid or the formations (3)
        who = ", ".join([goal.enemy_unit, *goal.also]) if goal.objective == "reply" else goal.enemy_unit
        r = DenyResult(status=none.status, limit=none.limit, message=none.message, enemy_unit=who, protect=protect,
                       wall_time_s=time.monotonic() - t0)
        what = "Min-max" if goal.objective == "reply" else "Denial"
        console.print(f"[bold]{what} against {escape(who)}[/bold]: {escape(r.status)} - {escape(r.message)}")
        return r
    _mark_interrupted(r)
    console.print(f"[bold]Denial against {escape(goal.enemy_unit)}[/bold]: {escape(r.status)} - {escape(r.message)}")
    console.print(f"legal area before: {r.area_before_sq_in:g} sq in; greedy screen: {r.greedy_area_sq_in} sq in; "
                  f"{r.iterations} round(s), {r.exact_sight_pairs} sight pairs decided exactly, {r.wall_time_s:.1f} s")
    for p in r.placements:
        console.print(f"  {escape(p.unit)}: {p.formation} at ({p.anchor[0]:g}, {p.anchor[1]:g})")
    from planner.adversary.report import closest_left_line, recheck_line

    if (line := closest_left_line(r)) is not None:
        console.print(escape(line))
    if (line := recheck_line(r)) is not None:
        console.print(escape(line), style="red" if r.recheck_inside else None)
    if r.scenario is not None:
        console.print(f"my deployment: {'legal' if r.legal else 'ILLEGAL'} (independent checker)")
        w = resolve(r.scenario, world.file)
        t = w.ruleset.table(w)
        placed = {p.unit for p in r.placements}
        mine = [f for u in w.units.values() if u.id in placed or w.units[u.id].setup.joined in placed
                for f in t.final(u).footprints]
        console.print("legal arrivals left (o), my models (#), terrain (T), protected disc (+):")
        console.print(escape(ascii_map(world, settings.enemy_grid_in, {(x, y) for x, y in r.legal_cells}, mine,
                                       protect=protect)))
    return r


class _Null(io.StringIO):
    """A file that drops what is written (the text report when another format is asked for)."""

    def write(self, s: str) -> int:
        return len(s)

    def flush(self) -> None:
        pass


def run_minmax_plan(world: World, goal: DenyGoal, settings, console: Console):
    """``planner plan`` with a ``deny`` goal and ``objective: reply``: min-max by best replies."""
    from planner.adversary.deny import DenyPlacement, DenyResult
    from planner.adversary.minmax import minmax
    from planner.legality.checker import check_deployment
    from planner.schema import Scenario
    from planner.world import resolve

    units = [goal.enemy_unit, *goal.also]  # (known units: checked at load, planner.world._check_goals)
    t = time.monotonic()
    r = minmax(world, units, (goal.protect[0], goal.protect[1]), settings)  # type: ignore[index]
    r.message = stop.said(r.message)
    console.print(f"[bold]Min-max against {escape(', '.join(units))}[/bold]: {escape(r.status)} - "
                  f"{escape(r.message)}; {r.iterations} round(s), {r.replies} replies as cuts")
    for e in r.enemy_replies:
        console.print(f"  enemy best reply: {escape(e.unit)} at ({e.anchor[0]:g}, {e.anchor[1]:g}), {e.value:.3f}\" "
                      f"from the point; checker: {'legal' if e.legal else 'ILLEGAL'}")
    data = world.raw if world.raw is not None else world.scenario.model_dump(mode="json", by_alias=True,
                                                                               exclude_none=True)
    data = copy.deepcopy(data)
    for army in data["armies"]:
        for unit in army["units"]:
            if unit["id"] in r.my_positions:
                for m, (x, y, f) in zip(unit["models"], r.my_positions[unit["id"]], strict=True):
                    m["x"], m["y"], m["facing"] = float(x), float(y), float(f)
    planned = Scenario.model_validate(data) if r.my_positions else None
    report = None
    if planned is not None:
        from planner.adversary.deny import off_table

        w = off_table(resolve(planned, world.file), set(units))
        report = check_deployment(resolve(Scenario.model_validate(w.raw), world.file, require_positions=True))
        console.print(f"my deployment: {'legal' if report.legal else 'ILLEGAL'} (independent checker)")
    status = {"optimal": "optimal", "feasible": "feasible"}.get(r.status, "unknown")
    return DenyResult(status=status, message=r.message, enemy_unit=", ".join(units), area_before_sq_in=0.0,
                      wall_time_s=time.monotonic() - t, iterations=r.iterations,
                      placements=[DenyPlacement(unit=u, formation="", anchor=a, candidates=0)
                                  for u, a in r.placements.items()],
                      enemy_best=r.enemy_replies[0] if r.enemy_replies else None,
                      legal=report.legal if report is not None else None, legality=report, scenario=planned,
                      scenario_data=data if planned is not None else None,
                      reply_value_in=r.value_in, reply_bound_in=r.bound_in, interrupted=stop.requested())


def _mark_interrupted(r) -> None:
    """A denial answered after a stop request (Ctrl-C, :mod:`planner.solve.stop`) says so."""
    if stop.requested():
        r.interrupted = True
    r.message = stop.said(r.message)


def run_alternate(world: World, winner: str, point_text: str, grid_in: float, top_k: int | None,
                  console: Console) -> tuple[dict, int]:
    """``planner alternate``: the roll-off winner's choice for alternating Infiltrate; (JSON, exit code)."""
    from planner.adversary.alternation import alternate
    from planner.cli.deepstrike import parse_point

    point = parse_point(point_text, "--point")  # two finite numbers, as every X,Y option
    bf = world.scenario.battlefield
    if not bf.holds(*point):
        raise ScenarioError(f"the contested point must be on the {bf.width:g}\" x {bf.depth:g}\" battlefield",
                            location="--point", value=point_text)
    r = alternate(world, winner, point, grid_in, top_k)
    console.print(f"[bold]Alternating Infiltrate[/bold]: {escape(winner)} (roll-off winner) should have "
                  f"{escape(r.first)} place first: score {max(r.value_if_first, r.value_if_second):.3f} "
                  f"(placing first {r.value_if_first:.3f}, second {r.value_if_second:.3f}; {r.nodes} nodes)")
    for m in r.line:
        where = f"({m.anchor[0]:g}, {m.anchor[1]:g}), {m.distance_in:.3f}\" from the point" if m.anchor \
            else "no legal Infiltrate position left"
        console.print(f"  {m.order}. {escape(m.player)}: {escape(m.unit)} at {where}")
    console.print(f"final placements: {'legal' if r.legal else 'ILLEGAL'} (independent checker)")
    return r.model_dump(mode="json", exclude={"scenario_data"}), EXIT_OK if r.legal else EXIT_ILLEGAL
