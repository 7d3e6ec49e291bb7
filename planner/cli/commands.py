"""The ``planner`` command line. One convention for every command:

exit 0 = done and legal; 1 = illegal or proven infeasible (by the rules, not only over the
planner's candidate grid); 2 = invalid input; 3 = no answer within the limits (the time, the
planner's formations or its candidate grid); 4 = internal error (a bug: the message names the log file that
holds the traceback). Outputs never land on an input (:mod:`planner.io.outputs`).
``--json PATH|-`` writes the machine-readable report ('-' = standard output).
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import signal
import sys
import tempfile
import traceback
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape

from planner.cli.exits import (
    EXIT_ILLEGAL,
    EXIT_INPUT,
    EXIT_INTERNAL,
    EXIT_NO_ANSWER,
    EXIT_OK,
    TYPER_CTRL_C,
    ctrl_c_received,
    say_interrupted,
)
from planner.errors import PlannerError, ScenarioError
from planner.rules.registry import DEFAULT_RULESET

app = typer.Typer(
    name="planner",
    help="Check and plan army deployments. Rulesets: Horus Heresy 2.0 (hh2); Warhammer 40,000 10th and 11th "
         "edition (wh40k10, wh40k11); older 40k Deep Strike (wh40k5, wh40k7). Exit codes: 0 done and legal, "
         "1 illegal or proven infeasible (by the rules), 2 invalid input, 3 no answer within the limits (the "
         "time, the planner's formations or its candidate grid), 4 internal error.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode="markdown",  # a docstring's paragraphs reflowed to the terminal, not its source lines
)


def _print_version(value: bool) -> None:
    if value:
        from planner import __version__

        typer.echo(f"planner (deployment-planner) {__version__}")
        raise typer.Exit()


@app.callback()
def _options(version: Annotated[bool, typer.Option("--version", callback=_print_version, is_eager=True, metavar="",
                                                   help="Print the version and exit.")] = False) -> None:
    pass


JsonOpt = Annotated[str | None, typer.Option("--json", help="Write the JSON report to PATH, or '-' for stdout.")]
FormatOpt = Annotated[str, typer.Option("--format", help="Report format on stdout: text, markdown, html (with the "
                                                         "picture) or json.")]
RenderOpt = Annotated[str | None, typer.Option("--render", help="Draw the battlefield to FILE.svg or FILE.png.")]
RulingOpt = Annotated[list[str] | None, typer.Option(
    "--ruling", help="KEY=VALUE: a reading of a point the rules leave open, over the scenario's 'rulings:' "
                     "(repeatable; 'planner rules --rulings' lists them).")]


def _parse_rulings(values: list[str] | None) -> dict[str, str]:
    """``--ruling KEY=VALUE`` options as a dict (the ruleset checks keys and values later).

    Raises
    ------
    ScenarioError
        For an option without ``=``, with an empty key or value, or a key given twice with two
        values (field ``--ruling``).
    """
    out: dict[str, str] = {}
    for v in values or ():
        key, eq, value = v.partition("=")
        if not eq or not key.strip() or not value.strip():
            raise ScenarioError("give KEY=VALUE", location="--ruling", value=v)
        key, value = key.strip(), value.strip()
        if key in out and out[key] != value:
            raise ScenarioError(f"ruling {key} given twice, as {out[key]} and as {value}: give it once",
                                location="--ruling", value=v)
        out[key] = value
    return out


TIME_LIMIT_MIN_S, TIME_LIMIT_MAX_S = 0.1, 86400.0
"""The bounds of a command's ``--time-limit`` (wall-clock seconds): ``plan`` and ``threats``."""


def _time_limit_option(help_text: str) -> Any:
    """The ``--time-limit`` option of ``plan`` and ``threats``: wall-clock seconds, from
    :data:`TIME_LIMIT_MIN_S` to :data:`TIME_LIMIT_MAX_S` (a value outside is refused, exit 2)."""
    return typer.Option("--time-limit", min=TIME_LIMIT_MIN_S, max=TIME_LIMIT_MAX_S, help=help_text)


AllowIllegalOpt = Annotated[bool, typer.Option("--allow-illegal-table", metavar="",
                                               help="Go on (with a warning) when the units already on the table "
                                                    "break a rule.")]


def _console(json_to_stdout: bool) -> Console:
    # when the JSON goes to stdout, the human-readable output goes to stderr
    console = Console(stderr=json_to_stdout, highlight=False, soft_wrap=True)
    if not console.is_terminal:
        console.width = 140  # files and pipes: wide enough for rule ids
    return console


def _write_json(target: str | None, data: Any, inputs: list[str]) -> None:
    """Write the JSON report (``-``: standard output) with the one output writer; NaN and
    infinities are never written (they are not JSON)."""
    if target is None:
        return
    from planner.io.outputs import write_output

    try:
        text = json.dumps(data, indent=2, allow_nan=False) + "\n"
    except ValueError as exc:  # a NaN or an infinity in a report is our bug, not the user's input
        raise RuntimeError(f"the JSON report holds a value JSON cannot represent: {exc}") from None
    write_output(target, text, "--json", what="JSON report", inputs=inputs)


def _ruleset_option(value: str):
    """The ruleset named by a ``--ruleset`` option; an unknown name is an input error naming it."""
    from planner.rules.registry import find_ruleset

    try:
        return find_ruleset(value)
    except ScenarioError as exc:
        raise ScenarioError(exc.detail, location="--ruleset", value=value) from None


def _check_writable(target: str | None, option: str, inputs: tuple[str, ...] = ()) -> None:
    """Fail early (before a long solve) if ``target`` cannot be written for ``option``, or is the
    same file as an input or another output of this run (:func:`planner.io.outputs.claim`)."""
    from planner.io.outputs import claim

    claim(target, option, inputs=inputs)


def _check_picture(target: str | None, scenario: str, option: str = "--render") -> None:
    """Fail early for a picture file that is an input, has the wrong extension, or cannot be written."""
    if target is None:
        return
    if Path(target).suffix.lower() not in (".svg", ".png"):
        raise ScenarioError("the picture file must end in .svg or .png", location=option, value=target)
    _check_writable(target, option, (scenario,))


def _say_written_whole() -> None:
    """Say on stderr that a Ctrl-C came while the outputs were written, and that they are whole
    (each is written atomically): ``plan`` and ``threats``."""
    from planner.solve import stop

    Console(stderr=True).print(f"{stop.INTERRUPTED} while the outputs were written: they are complete")


def say_battlefield_default(world) -> None:
    """A warning on standard error when the scenario gives no ``battlefield:``, or one without a
    width or a depth, and its ruleset's default table fills it in
    (:attr:`planner.world.World.battlefield_default`): which size, and which dimension."""
    missing = world.battlefield_default
    if not missing:
        return
    bf, rs = world.scenario.battlefield, world.ruleset
    size = f'{_inches(bf.width)} wide (x) by {_inches(bf.depth)} deep (y)'
    name = escape(rs.BATTLEFIELD_NAME)
    if len(missing) == 2:
        text = f"the scenario gives no battlefield: the {rs.id} default, {size}, is used ({name})"
    else:
        (dim,) = missing
        value = bf.width if dim == "width" else bf.depth
        text = (f"the scenario's battlefield gives no {dim}: the {rs.id} default {dim} ({name}), {_inches(value)}, "
                f"is used, so the table is {size}")
    Console(stderr=True, highlight=False, soft_wrap=True).print(f"[yellow]warning:[/yellow] {text}")


def _inches(v: float) -> str:
    return f'{v:g}"'


def _run(fn, json_out: str | None = None) -> None:
    """Call ``fn`` and turn its result or error into the exit code (the one error boundary).

    The run's files are recorded (:mod:`planner.io.outputs`) so that no output lands on an input.
    An input error with ``json_out`` (the command's ``--json``) also writes the error report there
    (``{"ok": false, "exit_code", "error", "file", "location", "value"}``), when it can.
    An error of our own (any other exception, or CP-SAT refusing our model) exits
    :data:`EXIT_INTERNAL` with the name of a log file holding the traceback.
    """
    from planner.errors import SolverError
    from planner.io.outputs import begin_run, end_run

    begin_run()
    try:
        code = fn()
    except SolverError:
        _internal_error()
    except PlannerError as exc:
        Console(stderr=True, highlight=False, soft_wrap=True).print(f"[red]error:[/red] {escape(str(exc))}")
        _write_error_report(json_out, _error_data(exc))
        raise typer.Exit(exc.exit_code) from None
    except (typer.Exit, typer.Abort):
        raise
    except BrokenPipeError:
        # the reader of our output went away (e.g. `| head`): nothing left to say
        try:
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - silence the flush at exit
        except OSError:
            pass
        raise typer.Exit(0) from None
    except KeyboardInterrupt:
        say_interrupted()
        raise typer.Exit(EXIT_NO_ANSWER) from None
    except Exception:  # noqa: BLE001 - the boundary: never show a traceback to the user
        if ctrl_c_received():  # a library's own error for the KeyboardInterrupt raised inside it
            say_interrupted()
            raise typer.Exit(EXIT_NO_ANSWER) from None
        _internal_error()
    finally:
        end_run()
    raise typer.Exit(code)


def _error_data(exc: PlannerError, **extra: Any) -> dict[str, Any]:
    """The error report of an input error: ``{"ok": false, "exit_code", "error", "file",
    "location", "value"}`` and the ``extra`` keys of a command (over those)."""
    return {"ok": False, "exit_code": exc.exit_code, "error": str(exc), "file": getattr(exc, "file", None),
            "location": getattr(exc, "location", None) or None, "value": getattr(exc, "value", None), **extra}


def _write_error_report(json_out: str | None, data: dict[str, Any], inputs: list[str] | None = None) -> None:
    """Write the error report ``data`` (:func:`_error_data`) to ``json_out`` (if given; never over an
    input), its value made JSON (:func:`json_safe_report`). The one writer of error reports: when it
    cannot write, it says so on standard error (unless the error reported is about ``--json`` itself,
    which that message has already said)."""
    if json_out is None:
        return
    try:
        _write_json(json_out, json_safe_report(data), list(inputs or []))
    except (PlannerError, OSError, RuntimeError) as exc:
        if data.get("location") == "--json":
            return  # e.g. --json names an input or a FIFO nobody reads: the error above is the answer
        Console(stderr=True, highlight=False, soft_wrap=True).print(
            f"[red]error:[/red] the error report was not written to --json {escape(json_out)}: {escape(str(exc))}")


def json_safe_report(data: dict[str, Any]) -> dict[str, Any]:
    """The error report with a value JSON can hold: a NaN or an infinity as the text Python
    gives it (``nan``, ``inf``, ``-inf``: the error message's words), a long or odd value as text,
    cut to 200 characters."""
    v = data.get("value")
    if isinstance(v, float) and not math.isfinite(v):
        v = str(v)
    elif v is not None and not isinstance(v, str | int | float | bool):
        v = str(v)
    if isinstance(v, str) and len(v) > 200:
        v = v[:200] + "..."
    return {**data, "value": v}


def _internal_error() -> None:
    """Write the traceback of the exception being handled to a log file, name it, exit 4."""
    from planner import __version__

    try:
        fd, name = tempfile.mkstemp(prefix="planner-error-", suffix=".log")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(f"planner {__version__}; command: {' '.join(sys.argv)}\n")
            fh.write(traceback.format_exc())
        where = f"; the traceback is in {name}"
    except OSError as exc:
        where = f"; no log file could be written ({exc.strerror})"
    Console(stderr=True, highlight=False, soft_wrap=True).print(
        f"internal error (exit {EXIT_INTERNAL}): a bug in the planner, please report it{escape(where)}")
    raise typer.Exit(EXIT_INTERNAL) from None


@app.command()
def check(
    scenario: Annotated[str, typer.Argument(help="Scenario file (YAML or JSON).")],
    json_out: JsonOpt = None,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", metavar="",
                                          help="List every rule checked for every unit.")] = False,
    fmt: FormatOpt = "text",
    render_out: RenderOpt = None,
    suggest: Annotated[bool, typer.Option("--suggest", metavar="",
                                          help="For each illegal unit, the least total movement of its models "
                                               "that makes it legal (the planner, other units fixed).")] = False,
    suggest_out: Annotated[str | None, typer.Option("--suggest-out", help="Write the scenario with the suggested "
                                                                          "moves applied to FILE (implies "
                                                                          "--suggest).")] = None,
    time_limit: Annotated[float, typer.Option("--time-limit", min=0.1, max=3600,
                                              help="--suggest: planner seconds per unit.")] = 10.0,
    ruling: RulingOpt = None,
    cover: Annotated[bool, typer.Option("--cover", metavar="",
                                        help="Also report, per model and enemy unit, the benefit of cover and why "
                                             "(wh40k10, wh40k11; not part of the verdict).")] = False,
) -> None:
    """Check a deployment: exit 0 if legal, 1 if not, 2 for invalid input (with --suggest too; a scenario
    without units is invalid input: there is nothing to check)."""

    def go() -> int:
        from planner.legality.checker import check_deployment
        from planner.report.formats import check_json, check_output, parse_format
        from planner.world import load_scenario

        form = parse_format(fmt, json_out)
        _check_picture(render_out, scenario)
        _check_writable(json_out, "--json", (scenario,))
        _check_writable(suggest_out, "--suggest-out", (scenario,))
        chosen = _parse_rulings(ruling)
        world = load_scenario(scenario, require_positions=True).with_rulings(chosen)
        if not world.units:  # nothing to judge is not a legal deployment (units still to place: as before)
            raise ScenarioError("the scenario has no units to check (add armies with units)", file=scenario,
                                location="armies")
        say_battlefield_default(world)
        _check_writable(render_out, "--render")
        _check_writable(json_out, "--json")
        _check_writable(suggest_out, "--suggest-out")
        report = check_deployment(world, cover=True) if cover else check_deployment(world)
        waiting = [u.id for u in world.units.values() if not world.ruleset.HAS_DEEP_STRIKE_ARRIVAL
                   and not u.on_battlefield and any(m.x is not None for m in u.models)]
        if waiting:  # HH2 judges the deployment; a Deep Strike landing is planner deepstrike's
            Console(stderr=True, highlight=False).print(
                f"[yellow]warning:[/yellow] positions of units not deployed (in reserve or embarked: "
                f"{escape(', '.join(waiting[:5]))}{' ...' if len(waiting) > 5 else ''}) are not checked: the "
                f"{world.ruleset.id} check judges the deployment; a Deep Strike landing is planner deepstrike's")
        for note in world.ruleset.check_warnings(world):  # e.g. HH2 case 3's order, said
            Console(stderr=True, highlight=False, soft_wrap=True).print(f"[yellow]warning:[/yellow] {escape(note)}")
        from planner.legality.table import Table

        for u in world.units.values():  # the Scout first-facing ruling's assumption, said (not silent)
            note = Table.first_facing_note(u)
            if note:
                Console(stderr=True, highlight=False, soft_wrap=True).print(
                    f"[yellow]warning:[/yellow] unit {escape(u.id)}: {escape(note.removeprefix('; '))}")
        suggestions = None
        if suggest or suggest_out is not None:
            from planner.solve.suggest import suggest_moves

            suggestions = suggest_moves(world, time_limit_s=time_limit)
        console = _console(json_out == "-" or form != "text")
        check_output(world, report, form, render_out, console, verbose=verbose, suggestions=suggestions)
        _write_json(json_out, check_json(report, suggestions), [scenario])
        if suggest_out is not None and suggestions is not None:
            from planner.io.files import dump_data

            dump_data(suggestions.moved_scenario(world), suggest_out, "--suggest-out", "scenario with the moves")
            console.print(f"Wrote the scenario with the suggested moves to {escape(suggest_out)}")
        return EXIT_OK if report.legal else EXIT_ILLEGAL

    _run(go, json_out)


@app.command()
def plan(
    scenario: Annotated[str, typer.Argument(help="Scenario file; units with 'place: true' are placed.")],
    out: Annotated[str | None, typer.Option("--out", help="Write the planned scenario here (YAML or JSON).")] = None,
    time_limit: Annotated[float, _time_limit_option("Time limit of the planning, wall-clock seconds (the "
                                                    "independent check and the report come after it).")] = 20.0,
    workers: Annotated[int, typer.Option("--workers", min=1, max=64, help="CP-SAT worker threads.")] = 2,
    seed: Annotated[int, typer.Option("--seed", min=0, max=2**31 - 1, help="CP-SAT random seed (0 to 2147483647).")] = 0,
    grid: Annotated[float | None, typer.Option("--grid", min=0.25, max=6.0,  # planner.solve.planner.FINEST_GRID_IN
                                               help="The planner's candidate grid, inches (0.25 to 6; default 1; "
                                                    "not with a deny goal, which has its own): every formation at "
                                                    "every grid point; a finer grid finds placements a coarser one "
                                                    "misses, with more candidates to judge.")] = None,
    next_step: Annotated[bool, typer.Option("--next", metavar="",
                                            help="Place only the next Infiltrator of the alternation (with --unit ID: that one, if it is that player's turn and no order is fixed; else exit 2).")] = False,
    unit: Annotated[list[str] | None, typer.Option("--unit", help="Place only this marked unit (repeatable).")] = None,
    player: Annotated[str | None, typer.Option("--player", help="Place only this player's marked units (the other "
                                                                "player's stay where they stand).")] = None,
    json_out: JsonOpt = None,
    fmt: FormatOpt = "text",
    render_out: RenderOpt = None,
    allow_illegal: AllowIllegalOpt = False,
    ruling: RulingOpt = None,
) -> None:
    """Plan the marked units with CP-SAT, write the complete scenario and check it.

    With --player, only that player's marked units are placed: plan one army, then the other from
    the written file (every imported unit is marked place: true).
    The units already on the table are checked first: if they break a rule, exit 1 before
    planning (or, with --allow-illegal-table, a warning and a plan reported illegal).
    Exit 0 with a legal plan, 1 when illegal or proven infeasible by the rules alone (on the
    grid or off it), 3 when no plan was found within the limits: the time, the planner's
    formations (status unknown, JSON limit "formations", when none of them fits a unit's region;
    the rules may still allow one) or its candidate grid (--grid, 1" by default; status unknown,
    JSON limit "grid", when no plan exists on the grid: a placement off it, on a finer grid or made
    by hand, may be legal). Ctrl-C
    stops the search and keeps the best plan found so far (written as at the time limit; exit 3
    unless it is proven optimal); a second Ctrl-C ends at once.
    """

    def go() -> int:
        from planner.io.files import dump_scenario
        from planner.report.formats import parse_format, plan_output
        from planner.report.progress import SolveProgress
        from planner.solve.planner import SolverSettings
        from planner.world import load_scenario

        form = parse_format(fmt, json_out)
        _check_picture(render_out, scenario)
        _check_writable(out, "--out", (scenario,))
        _check_writable(json_out, "--json", (scenario,))
        chosen = _parse_rulings(ruling)
        world = load_scenario(scenario).with_rulings(chosen)
        say_battlefield_default(world)
        # the files the scenario references are known now: claim the outputs again
        _check_writable(out, "--out")
        _check_writable(json_out, "--json")
        _check_writable(render_out, "--render")
        console = _console(json_out == "-" or form != "text")
        # --- adversary hook (issue #7): a 'deny' goal routes to the denial solver (plan_scenario: as the page's Plan)
        from planner.cli.adversary import deny_alone_warning, deny_goal
        from planner.cli.plan import illegal_table, placing_for, plan_scenario, player_units

        goal = deny_goal(world)
        if goal is not None and grid is not None:
            # measured (fresh16b): the denial takes each unit's 40 candidates nearest its goal, so a finer
            # grid covers less ground and screened worse (156 -> 200 sq in left at 0.5")
            raise ScenarioError("a deny goal places my units on its own 2\" grid (40 candidates per unit, the "
                                "enemy's grid from the goal's grid_in); --grid is for the other goals",
                                file=world.file, location="--grid", value=f"{grid:g}")
        if goal is not None and (alone := deny_alone_warning(world)) is not None:  # JSON: the result's warnings
            Console(stderr=True, highlight=False, soft_wrap=True).print(f"[yellow]warning:[/yellow] {escape(alone)}")
        only = unit or None
        if player is not None:
            only = player_units(world, player, only, next_step=next_step, deny=goal is not None)
        placing = placing_for(world, only, next_step=next_step)
        found = illegal_table(world, placing, console, allow_illegal, "the plan")
        if found and not allow_illegal:
            _write_json(json_out, {"status": "illegal_table", "scenario": scenario,
                                   "violations": [v.model_dump(mode="json") for v in found]}, [scenario])
            return EXIT_ILLEGAL
        from planner.solve import stop

        # Ctrl-C while solving stops the search and keeps the best plan found so far; one after the
        # search (while the plan is checked or written) lets the outputs be written whole and then
        # says so; a second one ends at once ("interrupted", exit 3, nothing more written)
        with stop.ctrl_c_stops():
            settings = SolverSettings(time_limit_s=time_limit, workers=workers, seed=seed,
                                      grid_in=SolverSettings.grid_in if grid is None else grid)
            shown = SolveProgress(console, time_limit_s=time_limit) if goal is None else contextlib.nullcontext()
            with shown as progress:
                result, note = plan_scenario(world, settings, console, quiet=form != "text", next_step=next_step,
                                             units=only, on_progress=progress.update if progress is not None else None)
            # --- end of adversary hook
            if result.interrupted and result.status == "unknown":
                raise KeyboardInterrupt  # interrupted before any plan: as any Ctrl-C (exit 3, nothing written)
            if stop.requested() and not result.interrupted:  # the search had ended: the plan is its answer
                result.interrupted = True
                result.message += f"; {stop.INTERRUPTED} after the search, while the plan was checked"
            wrote = False
            if out is not None and result.scenario is not None:
                # write the plan before printing, so a closed pipe (`| head`) cannot lose it
                dump_scenario(result.scenario_data or result.scenario, out)
                wrote = True
            if note:
                console.print(note)
            if goal is not None:  # adversary hook: the denial report (text printed while solving), picture
                from planner.adversary.report import deny_output

                deny_output(result, world, goal[1], form, render_out, console)
            else:
                plan_output(result, world, form, render_out, console)
            if wrote:
                console.print(f"Wrote the planned scenario to {escape(str(out))}")
            from planner.report.ruling import plan_json

            _write_json(json_out, plan_json(result, {"scenario", "scenario_data"}), [scenario])
            late = stop.requested() and not result.interrupted
        if late:
            _say_written_whole()
            return EXIT_NO_ANSWER if result.exit_code == EXIT_OK and result.status != "optimal" else result.exit_code
        return result.exit_code

    _run(go, json_out)


@app.command()
def schema(
    what: Annotated[str, typer.Argument(help="scenario (default), report, plan or catalogue")] = "scenario",
    json_out: JsonOpt = None,
) -> None:
    """Print a JSON Schema: of scenario files, of the check report, of the plan report, or of catalogue files.

    --json PATH|- writes the report {"schema": WHAT, "json_schema": the schema} (with '-', that report is
    what standard output holds). Exit 0, 2 for an unknown WHAT (with --json, the error report).
    """

    def go() -> int:
        from planner.legality.report import LegalityReport
        from planner.schema import Catalogue, Scenario, json_schema

        _check_writable(json_out, "--json")
        models: dict[str, Any] = {"scenario": Scenario, "report": LegalityReport, "catalogue": Catalogue}
        if what == "plan":
            from planner.solve.planner import PlanResult

            models["plan"] = PlanResult
        if what not in models:
            raise ScenarioError(f"unknown schema; choose one of {', '.join([*models, 'plan'])}", location="WHAT",
                                value=what)
        found = json_schema(models[what])
        if json_out != "-":
            sys.stdout.write(json.dumps(found, indent=2) + "\n")
        _write_json(json_out, {"schema": what, "json_schema": found}, [])
        return EXIT_OK

    _run(go, json_out)


@app.command()
def rules(
    ruleset: Annotated[str, typer.Option("--ruleset", help="Ruleset id.")] = DEFAULT_RULESET,
    json_out: JsonOpt = None,
    list_rulings: Annotated[bool, typer.Option("--rulings", metavar="",
                                               help="List the rulings instead: the points the sources leave open "
                                                    "(id, default, readings, sources).")] = False,
) -> None:
    """List every rule id the checker enforces, with its meaning and source (--rulings: the rulings)."""

    def go() -> int:
        from rich.table import Table as RichTable


        _check_writable(json_out, "--json")
        rs = _ruleset_option(ruleset)
        console = _console(json_out == "-")
        if list_rulings:
            t = RichTable(title=f"Rulings of {rs.name} ({rs.id})")
            for col in ("ruling", "question", "default", "readings", "sources"):
                t.add_column(col, no_wrap=col == "ruling")
            for r in rs.RULINGS:
                t.add_row(r.key, r.question, r.default, "\n".join(f"{v}: {m}" for v, m in r.readings), r.sources)
            console.print(t)
            _write_json(json_out, [{"ruling": r.key, "question": r.question, "default": r.default,
                                    "readings": [{"value": v, "meaning": m} for v, m in r.readings],
                                    "sources": r.sources} for r in rs.RULINGS], [])
            return EXIT_OK
        t = RichTable(title=f"{rs.name} ({rs.id})")
        t.add_column("rule id", no_wrap=True)
        t.add_column("meaning")
        t.add_column("source")
        for r in rs.rules:
            t.add_row(r.id, r.meaning, r.source)
        console.print(t)
        _write_json(json_out, [{"rule": r.id, "meaning": r.meaning, "source": r.source} for r in rs.rules], [])
        return EXIT_OK

    _run(go, json_out)


@app.command("import-roster")
def import_roster(
    roster: Annotated[str, typer.Argument(help="BattleScribe .ros/.rosz or New Recruit roster file; for wh40k10/"
                                                "wh40k11 also a GW app, New Recruit, ListForge or Rosterizer list.")],
    player: Annotated[str, typer.Option("--player", help="The player whose army this is.")],
    ruleset: Annotated[str, typer.Option("--ruleset", help="Ruleset id.")] = DEFAULT_RULESET,
    out: Annotated[str | None, typer.Option("--out", help="Write the army here (YAML, or JSON if it ends in "
                                                           ".json); default: print the YAML.")] = None,
    default_base: Annotated[str | None, typer.Option("--default-base", help="Round base for models the catalogue "
                                                                            "does not know, e.g. 32mm.")] = None,
    embark: Annotated[bool, typer.Option("--embark", metavar="",
                                         help="Embark Infantry units in their Dedicated Transports.")] = False,
    strict: Annotated[bool, typer.Option("--strict", metavar="",
                                         help="A roster not written with the ruleset's edition data is an error "
                                              "(exit 2), not a warning.")] = False,
    json_out: JsonOpt = None,
    list_format: Annotated[str, typer.Option("--list-format", help="40k list format: auto (default: from the "
                                                                   "content), battlescribe, gw, newrecruit-json, "
                                                                   "newrecruit-wtc-compact, newrecruit-wtc-full, "
                                                                   "newrecruit-simple, listforge, listforge-text, "
                                                                   "rosterizer, roster-json.")] = "auto",
) -> None:
    """Import an army list into a scenario army: units, model counts, types, deployment rules, transports.

    Exit 0 when imported (warnings go to stderr), 2 for a file that cannot be used (with --json, the
    report then holds the error and each unknown model with its place in the roster).
    With --json - and no --out, the army is in the JSON report instead of printed as YAML.
    """

    def go() -> int:
        from planner.io.files import dump_data
        from planner.io.outputs import write_output
        from planner.io.roster import army_to_data, army_to_yaml, parse_base_size, read_roster, roster_to_army

        if not player.strip():
            raise ScenarioError("give the player's name", location="--player", value=player)
        _check_writable(out, "--out", (roster,))
        _check_writable(json_out, "--json", (roster,))
        rs = _ruleset_option(ruleset)
        base = parse_base_size(default_base) if default_base is not None else None
        try:
            from planner.io.lists40k import list_to_army, read_if_list

            rec: Any = read_if_list(roster, rs.id, list_format)
            if rec is not None:
                army, warnings = list_to_army(rec, rs.id, player, base, embark)
            else:
                rec = read_roster(roster, rs.id)
                army, warnings = roster_to_army(rec, rs.id, player, base, embark, strict=strict)
        except ScenarioError as exc:  # the error report too, then exit 2 as any input error
            _write_error_report(json_out, _error_data(exc, file=roster, ruleset=rs.id, player=player,
                                                      unknown_models=getattr(exc, "models", [])), [roster])
            raise
        err = Console(stderr=True, highlight=False, soft_wrap=True)
        for w in warnings:
            err.print(f"[yellow]warning:[/yellow] {escape(w)}")
        n_models = sum(len(u.models) for u in army.units)
        summary = (f"Imported {len(army.units)} unit{'' if len(army.units) == 1 else 's'} ({n_models} model{'' if n_models == 1 else 's'}) "
                   f"from {roster} ({rec.generator})")
        if out is not None:
            if out.lower().endswith(".json"):
                dump_data(army_to_data(army), out, what="army")
            else:
                header = [f"Army imported by planner import-roster from {Path(roster).name} ({rec.generator}, "
                          f"{rec.game_system}); paste it under 'armies:' of a scenario.",
                          *[f"warning: {w}" for w in warnings]]
                write_output(out, army_to_yaml(army, header), "--out", what="army")
            err.print(f"{escape(summary)}; wrote {escape(out)}")
        elif json_out != "-":
            sys.stdout.write(army_to_yaml(army, [f"{summary}; paste under 'armies:' of a scenario."]))
        else:
            err.print(escape(summary))
        _write_json(json_out, {"file": roster, "generator": rec.generator, "game_system": rec.game_system,
                               "ruleset": rs.id, "player": player, "units": len(army.units), "models": n_models,
                               "warnings": warnings, "army": army_to_data(army)}, [roster])
        return EXIT_OK

    _run(go)


@app.command("import-tts")
def import_tts(
    save: Annotated[str, typer.Argument(help="Tabletop Simulator save or saved-object file (JSON).")],
    ruleset: Annotated[str, typer.Option("--ruleset", help="Ruleset id.")],
    map_id: Annotated[str | None, typer.Option("--map", help="40k deployment map for the zones and "
                                                             "its 60x44 battlefield (e.g. hammer-and-anvil, "
                                                             "dawn-of-war-10in); wh40k10/wh40k11 only. A save of "
                                                             "another table size is moved onto it centre on "
                                                             "centre, with a warning.")] = None,
    out: Annotated[str | None, typer.Option("--out", help="Write the scenario here (YAML, or JSON if it ends in "
                                                           ".json); default: print the YAML.")] = None,
    json_out: JsonOpt = None,
) -> None:
    """Import a Tabletop Simulator save into a scenario: models by unit, bases, terrain, zones drawn as lines.

    Exit 0 when imported (objects not matched are listed), 2 for a save that cannot be used.
    """

    def go() -> int:
        from planner.cli.tts import run_import

        _check_writable(out, "--out", (save,))
        _check_writable(json_out, "--json", (save,))
        try:
            rs = _ruleset_option(ruleset)
            data, code = run_import(save, rs.id, map_id, out, json_out == "-", Console(stderr=True, highlight=False,
                                                                                      soft_wrap=True))
        except ScenarioError as exc:  # the error report too, then exit 2 as any input error
            _write_error_report(json_out, _error_data(exc, file=save, ruleset=ruleset), [save])
            raise
        _write_json(json_out, data, [save])
        return code

    _run(go)  # go writes its own error report (with the ruleset)


@app.command("export-tts")
def export_tts(
    plan_file: Annotated[str, typer.Argument(help="Scenario or planned scenario (YAML or JSON).")],
    out: Annotated[str, typer.Option("--out", help="Write the Tabletop Simulator save here (JSON).")],
    json_out: JsonOpt = None,
) -> None:
    """Write a Tabletop Simulator save that spawns the deployment (import-tts reads it back).

    Exit 0 when written, 2 for invalid input.
    """

    def go() -> int:
        from planner.cli.tts import run_export

        _check_writable(out, "--out", (plan_file,))
        _check_writable(json_out, "--json", (plan_file,))
        try:
            data, code = run_export(plan_file, out, _console(json_out == "-"))
        except ScenarioError as exc:  # the error report too, then exit 2 as any input error
            _write_error_report(json_out, _error_data(exc, file=plan_file, out=out), [plan_file])
            raise
        _write_json(json_out, data, [plan_file])
        return code

    _run(go)  # go writes its own error report


@app.command()
def deepstrike(
    scenario: Annotated[str, typer.Argument(help="Scenario file; the unit is in it (e.g. setup: reserves).")],
    unit: Annotated[str, typer.Option("--unit", help="Id of the unit that Deep Strikes.")],
    at: Annotated[str | None, typer.Option("--at", help="Aim point of the first model, X,Y inches.")] = None,
    ruleset: Annotated[str | None, typer.Option("--ruleset", help="Override the scenario's ruleset "
                                                                  "(wh40k5, wh40k7, wh40k10, wh40k11).")] = None,
    orientation: Annotated[float | None, typer.Option("--orientation", min=-360, max=360,
                                                      help="Odds also for this fixed direction of the rings, "
                                                           "degrees (default: the best formation, and 0; "
                                                           "10th/11th: check the arrival in this one only).")] = None,
    map_file: Annotated[str | None, typer.Option("--map", help="Write a mishap heat map (10th/11th: where the "
                                                               "arrival is illegal; .csv, or .png with "
                                                               "matplotlib).")] = None,
    resolution: Annotated[float, typer.Option("--resolution", min=0.1, max=12.0, help="Map/search cell, inches.")]
    = 1.0,
    best: Annotated[bool, typer.Option("--best", metavar="",
                                       help="Find the aim point with the best chance of the goal.")] = False,
    near: Annotated[str | None, typer.Option("--near", help="Goal point X,Y for --best (and the odds).")] = None,
    within: Annotated[float | None, typer.Option("--within", min=0.0, help="Goal: a model within D inches of "
                                                                           "--near.")] = None,
    n_sim: Annotated[int | None, typer.Option("--simulate", min=1, max=10_000_000, help="Replay N times.")] = None,
    seed: Annotated[int, typer.Option("--seed", min=0, help="Random seed for --simulate.")] = 0,
    facing: Annotated[float | None, typer.Option("--facing", min=-360, max=360,
                                                                  help="Facing of the landing models, degrees "
                                                                  "(default: the scenario's, else 0).")] = None,
    inertial_guidance: Annotated[bool, typer.Option("--inertial-guidance", metavar="",
                                                    help="HH2: the first model has an Inertial Guidance "
                                                         "System.")] = False,
    json_out: JsonOpt = None,
    render_out: Annotated[str | None, typer.Option("--render", help="Draw the battlefield with the heat map to "
                                                                     "FILE.svg or FILE.png.")] = None,
    ruling: RulingOpt = None,
    formation_step: Annotated[float | None, typer.Option("--formation-step", min=1.0, max=90.0,
                                                  help="Best formation: ring orientations every DEG degrees "
                                                       "(default 15; a divisor of 15 gives a larger candidate set, "
                                                       "never worse odds).")] = None,
) -> None:
    """Deep Strike odds (wh40k5/wh40k7, hh2) or, for wh40k10/wh40k11, an arrival check.

    wh40k5/wh40k7: the exact odds of a clean landing, each mishap result and trigger, dangerous terrain,
    a goal point; hh2: the Deep Strike Assault odds of the first model. wh40k10/wh40k11 do not scatter:
    --at is a legal/not-legal arrival check (LEGAL or NOT LEGAL, each rule broken by the rule id that
    'planner check' reports, e.g. wh40k10.deepstrike.distance, with its meaning; no odds table).

    Exit 0 with the odds (10th/11th: 0 if the arrival at --at is legal, 1 if not; hh2: 1 for an aim point
    where the first model may not be placed, e.g. in or within 1" of Impassable Terrain, with the rule id),
    2 for invalid input.
    """

    def go() -> int:
        from planner.cli.deepstrike import run_deepstrike
        from planner.world import load_scenario

        if ruleset is not None:
            _ruleset_option(ruleset)
        _check_writable(map_file, "--map", (scenario,))
        _check_picture(render_out, scenario)
        _check_writable(json_out, "--json", (scenario,))
        chosen = _parse_rulings(ruling)  # checked against the Deep Strike's ruleset (make_setup)
        world = load_scenario(scenario)
        say_battlefield_default(world)
        for target, option in ((map_file, "--map"), (render_out, "--render"), (json_out, "--json")):
            _check_writable(target, option)
        console = _console(json_out == "-")
        data: dict[str, Any]
        if render_out is not None and at is None and not best and map_file is None:
            data, code = {"scenario": world.file, "unit": unit}, 0  # only the picture was asked for
        else:
            data, code = run_deepstrike(world, unit, at, ruleset, orientation, map_file, resolution, best, near,
                                        within, n_sim, seed, console, inertial_guidance, facing, chosen,
                                        formation_step)
        if render_out is not None:
            from planner.cli.render import render_deepstrike

            data["render"] = render_deepstrike(world, unit, ruleset, orientation or 0.0, resolution, render_out, console,
                                               data.get("formation_drawn"), facing, chosen)
        _write_json(json_out, data, [scenario])
        return code

    _run(go, json_out)


@app.command()
def render(
    scenario: Annotated[str, typer.Argument(help="Scenario file (units without positions are listed, not drawn).")],
    out: Annotated[str, typer.Option("--out", help="Picture file: FILE.svg or FILE.png.")],
    exclusion: Annotated[str | None, typer.Option("--exclusion", help="PLAYER or UNIT: shade the Infiltrate "
                                                                      "distances around its enemy units.")] = None,
    legal_area: Annotated[str | None, typer.Option("--legal-area", help="UNIT: shade where its bases may stand "
                                                                        "for its set-up.")] = None,
    sight_lines: Annotated[bool, typer.Option("--sight-lines/--no-sight-lines", metavar="",
                                              help="Draw the sight lines the check used as evidence.")]
    = True,
    heat: Annotated[str | None, typer.Option("--heat", help="UNIT: overlay its Deep Strike heat map.")] = None,
    resolution: Annotated[float, typer.Option("--resolution", min=0.1, max=12.0, help="Heat-map cell, inches.")]
    = 1.0,
    json_out: JsonOpt = None,
) -> None:
    """Draw the battlefield to scale: zones, terrain, objectives, every base, and the check's evidence.

    Exit 0 when the picture is written (whatever the verdict), 2 for invalid input.
    """

    def go() -> int:
        from planner.cli.render import run_render
        from planner.world import load_scenario

        _check_picture(out, scenario, "--out")
        _check_writable(json_out, "--json", (scenario,))
        world = load_scenario(scenario)
        say_battlefield_default(world)
        _check_writable(out, "--out")
        _check_writable(json_out, "--json")
        data, code = run_render(world, out, exclusion=exclusion, legal=legal_area, sight_lines=sight_lines,
                                heat_unit=heat, resolution=resolution, console=_console(json_out == "-"))
        _write_json(json_out, data, [scenario])
        return code

    _run(go, json_out)


@app.command()
def threats(
    scenario: Annotated[str, typer.Argument(help="Scenario file: my units positioned; the enemy unit anywhere.")],
    enemy_unit: Annotated[str, typer.Option("--unit", "--enemy-unit", help="Id of the enemy unit that Infiltrates "
                                                                                "(or Deep Strikes, wh40k10/11); "
                                                                                "--enemy-unit is the same option.")],
    goal: Annotated[str | None, typer.Option("--goal", help="near_units (default), near_point:X,Y, "
                                                            "near_objective:ID, sight, hidden_near:X,Y.")] = None,
    grid: Annotated[float, typer.Option("--grid", min=0.5, max=12.0, help="Anchor grid, inches.")] = 2.0,
    show_map: Annotated[bool, typer.Option("--map", metavar="",
                                           help="Print a text map of the legal area.")] = False,
    json_out: JsonOpt = None,
    render_out: Annotated[str | None, typer.Option("--render", help="Draw the legal area (one square per legal "
                                                                     "anchor) and the best placement to "
                                                                     "FILE.svg or FILE.png.")] = None,
    allow_illegal: AllowIllegalOpt = False,
    ruling: RulingOpt = None,
    time_limit: Annotated[float, _time_limit_option("Time limit of the scan and the valuing, wall-clock seconds "
                                                    "(the check of the best placement and the report come "
                                                    "after it); when it runs out, the threats found so far "
                                                    "are reported, exit 3.")] = 60.0,
) -> None:
    """Worst case: the enemy unit's best legal Infiltrate (or 10th/11th Deep Strike) placement against my
    deployment, and its legal area. Positions the enemy unit (or a character joined to it) already has in
    the scenario are disregarded: it is the unit arriving (a warning says so; JSON "warnings").

    Exit 0 with a best placement that passes the checker, 1 if there is none by the rules alone (or it or the
    deployment is illegal: the units already on the table are checked first, see --allow-illegal-table), 2 for
    invalid input, 3 when none is legal on the --grid only (JSON limit "grid": an arrival off the grid may be;
    try a finer --grid) or none of the scan's formations fits (limit "formations"), or when Ctrl-C or
    --time-limit cut the scan: the threats found so far are reported and written, marked
    interrupted or time_limit_reached (a second Ctrl-C ends at once, writing nothing).
    """

    def go() -> int:
        from planner.cli.adversary import run_threats
        from planner.world import load_scenario

        _check_picture(render_out, scenario)
        _check_writable(json_out, "--json", (scenario,))
        chosen = _parse_rulings(ruling)
        world = load_scenario(scenario).with_rulings(chosen)
        say_battlefield_default(world)
        _check_writable(render_out, "--render")
        _check_writable(json_out, "--json")
        console = _console(json_out == "-")
        from planner.cli.adversary import arriving_positions_note
        from planner.cli.plan import illegal_table

        note = arriving_positions_note(world, enemy_unit)
        warnings = [note] if note else []
        if note:
            Console(stderr=True, highlight=False, soft_wrap=True).print(f"[yellow]warning:[/yellow] {escape(note)}")
        if enemy_unit in world.units:
            found = illegal_table(world, {enemy_unit}, console, allow_illegal, "threats", does="scans the enemy unit's arrivals")
            if found and not allow_illegal:
                _write_json(json_out, {"status": "illegal_table", "scenario": scenario,
                                       "violations": [v.model_dump(mode="json") for v in found],
                                       "warnings": warnings}, [scenario])
                return EXIT_ILLEGAL
        from planner.solve import stop

        # as planner plan: the first Ctrl-C ends the scan and the threats found so far are reported
        # (marked interrupted, exit 3) and written whole; a second one ends at once ("interrupted",
        # exit 3, nothing more written)
        with stop.ctrl_c_stops():
            data, code = run_threats(world, enemy_unit, goal, grid, show_map, console, render_out, time_limit)
            data["warnings"] = warnings
            _write_json(json_out, data, [scenario])
            late = stop.requested() and not data["interrupted"]
        if late:
            _say_written_whole()
        return code

    _run(go, json_out)


@app.command()
def generate(
    count: Annotated[int, typer.Option("--count", min=1, max=100_000_000, help="Number of scenarios.")],
    out: Annotated[str, typer.Option("--out", help="Folder for scenarios.jsonl, manifest.json and the schema.")],
    seed: Annotated[int, typer.Option("--seed", min=0, help="Random seed (same seed, same bytes).")] = 0,
    workers: Annotated[int, typer.Option("--workers", min=1, max=256, help="Worker processes (or Ray CPUs).")] = 1,
    ruleset: Annotated[str | None, typer.Option("--ruleset", help="Ruleset (default: hh2 for legality and "
                                                                  "puzzles, wh40k7/wh40k5 for Deep Strike).")] = None,
    kind: Annotated[str, typer.Option("--kind", help="legality, puzzle, deepstrike; several comma-separated "
                                                     "take turns.")] = "legality",
    engine: Annotated[str, typer.Option("--engine", help="local (processes) or ray.")] = "local",
    address: Annotated[str | None, typer.Option("--address", help="Ray cluster address (--engine ray).")] = None,
    resume: Annotated[bool, typer.Option("--resume", metavar="",
                                         help="Go on with an interrupted run in --out.")] = False,
    params: Annotated[str | None, typer.Option("--params", help="YAML/JSON file of generator parameters.")] = None,
    json_out: JsonOpt = None,
    ruling: RulingOpt = None,
) -> None:
    """Generate labelled training scenarios (legality verdicts, placement puzzles, Deep Strike odds).

    Exit 0 when every line is written, 2 for invalid options, 3 when interrupted (finished lines
    are kept: run again with --resume).
    """

    def go() -> int:
        from planner.cli.generate import run_generate

        _check_writable(json_out, "--json", (params,) if params else ())
        manifest, code = run_generate(count, seed, out, workers, ruleset, kind, engine, address, resume, params,
                                      Console(stderr=True, highlight=False, soft_wrap=True),
                                      rulings=_parse_rulings(ruling))
        _write_json(json_out, manifest, [])
        return code

    _run(go, json_out)


@app.command()
def alternate(
    scenario: Annotated[str, typer.Argument(help="Scenario file; each side's Infiltrators marked 'place: true'.")],
    winner: Annotated[str, typer.Option("--winner", help="The player who won the roll-off.")],
    point: Annotated[str, typer.Option("--point", help="Contested point X,Y, inches.")],
    grid: Annotated[float, typer.Option("--grid", min=1.0, max=12.0, help="Anchor grid, inches.")] = 3.0,
    top_k: Annotated[int, typer.Option("--top-k", min=0, max=20, help="Replies tried per unit (0 = all).")] = 2,
    json_out: JsonOpt = None,
) -> None:
    """Alternating Infiltrate (up to 3 Infiltrators a side): who the roll-off winner should have go first.

    Exit 0 with a line of play that passes the checker, 1 if it does not, 2 for invalid input.
    """

    def go() -> int:
        from planner.cli.adversary import run_alternate
        from planner.world import load_scenario

        _check_writable(json_out, "--json", (scenario,))
        world = load_scenario(scenario)
        say_battlefield_default(world)
        _check_writable(json_out, "--json")
        data, code = run_alternate(world, winner, point, grid, top_k or None, _console(json_out == "-"))
        _write_json(json_out, data, [scenario])
        return code

    _run(go, json_out)


@app.command()
def shoot(
    scenario: Annotated[str, typer.Argument(help="Scenario file whose units carry stats and weapons.")],
    attacker: Annotated[str, typer.Option("--attacker", help="Firing unit id.")],
    target: Annotated[str, typer.Option("--target", help="Target unit id.")],
    weapon: Annotated[str | None, typer.Option("--weapon", help="Weapon name (default: its first ranged).")] = None,
    moved: Annotated[bool, typer.Option("--moved", help="The attacker moved (HH Heavy/Ordnance, 40k Heavy).")]
    = False,
    half_range: Annotated[bool, typer.Option("--half-range", help="Within half range (Rapid Fire).")] = False,
    cover: Annotated[int | None, typer.Option("--cover", min=2, max=6, help="HH cover save X+.")] = None,
    in_cover: Annotated[bool, typer.Option("--in-cover", help="40k: the target has the benefit of cover.")] = False,
    attached: Annotated[bool, typer.Option("--attached", help="40k: the target is an attached unit.")] = False,
    facing: Annotated[str | None, typer.Option("--facing", help="HH vehicle target: front, side or rear "
                                               "(default: from the placed models).")] = None,
    json_out: JsonOpt = None,
    ruling: RulingOpt = None,
) -> None:
    """Exact distribution of wounds and models lost when one unit shoots another.

    Exit 0 when computed, 2 for invalid input (unknown unit or weapon, a missing characteristic).
    """

    def go() -> int:
        from planner.cli.shoot import run_shoot
        from planner.world import load_scenario

        _check_writable(json_out, "--json", (scenario,))
        world = load_scenario(scenario).with_rulings(_parse_rulings(ruling))
        say_battlefield_default(world)
        data, code = run_shoot(world, attacker, target, weapon, moved=moved, half_range=half_range, cover=cover,
                               in_cover=in_cover, attached=attached, console=_console(json_out == "-"),
                               facing=facing)
        _write_json(json_out, data, [scenario])
        return code

    _run(go, json_out)


@app.command()
def exposure(
    scenario: Annotated[str, typer.Argument(help="Scenario file: both armies positioned, units with profiles.")],
    first: Annotated[str, typer.Option("--first", help="Who takes the first turn: enemy (their units shoot "
                                                       "mine) or me (mine shoot theirs).")] = "enemy",
    player: Annotated[str | None, typer.Option("--player", help="My player (default: the player of the units "
                                                                "marked place, else the first army).")] = None,
    fmt: Annotated[str, typer.Option("--format", help="Report format on stdout: text or markdown.")] = "text",
    json_out: JsonOpt = None,
    render_out: Annotated[str | None, typer.Option("--render", help="Draw the threat regions and my units "
                                                                     "coloured by expected loss to FILE.svg "
                                                                     "or FILE.png.")] = None,
    allow_illegal: AllowIllegalOpt = False,
    ruling: RulingOpt = None,
) -> None:
    """First-turn exposure: which enemy units can shoot each of my units after a Normal move, and the
    exact distribution of models lost.

    The table is checked first, as by planner plan and threats: if a unit on it breaks a rule, exit 1
    (JSON status "illegal_table") before measuring anything; with --allow-illegal-table, a warning (JSON
    "warnings" and "table_violations") and the losses measured from where the units stand.
    Exit 0 when computed, 1 for an illegal table, 2 for invalid input (a unit without a profile or M:
    the file, unit and field).
    """

    def go() -> int:
        from planner.cli.exposure import run_exposure
        from planner.world import load_scenario

        _check_picture(render_out, scenario)
        _check_writable(json_out, "--json", (scenario,))
        world = load_scenario(scenario).with_rulings(_parse_rulings(ruling))
        say_battlefield_default(world)
        waiting = [u for u in world.units.values() if u.on_battlefield and not u.is_positioned]
        if waiting:
            raise ScenarioError(f"planner exposure measures a deployment: {len(waiting)} unit(s) on the battlefield "
                                f"have no positions ({', '.join(u.id for u in waiting[:6])}"
                                f"{', ...' if len(waiting) > 6 else ''}); place them first, e.g. planner plan "
                                f"{scenario} --out planned.yaml, then planner exposure planned.yaml",
                                file=scenario, location=f"{waiting[0].path}.models", value=waiting[0].id)
        from planner.cli.exposure import ILLEGAL_TABLE_GOING_ON, illegal_table_warnings
        from planner.cli.plan import illegal_table

        console = _console(json_out == "-")
        found = illegal_table(world, set(), console, allow_illegal, "exposure", does="measures anything",
                              going_on=ILLEGAL_TABLE_GOING_ON,
                              anyway="measure anyway (each unit shoots from where it stands)")
        if found and not allow_illegal:
            _write_json(json_out, {"status": "illegal_table", "scenario": scenario,
                                   "violations": [v.model_dump(mode="json") for v in found], "warnings": []},
                        [scenario])
            return EXIT_ILLEGAL
        data, code = run_exposure(world, player, first, fmt=fmt, scenario=scenario, render_path=render_out,
                                  console=console)
        data["warnings"] = illegal_table_warnings(found)
        if found:
            data["table_violations"] = [v.model_dump(mode="json") for v in found]
        _write_json(json_out, data, [scenario])
        return code

    _run(go, json_out)


@app.command()
def layouts(json_out: JsonOpt = None) -> None:
    """List the 45 Chapter Approved 11th-edition terrain layouts and the deployment maps (wh40kdc package)."""

    def go() -> int:
        from planner.cli.layouts import run_layouts

        _check_writable(json_out, "--json")
        data, code = run_layouts(_console(json_out == "-"))
        _write_json(json_out, data, [])
        return code

    _run(go, json_out)


@app.command()
def new(
    layout: Annotated[str, typer.Option("--layout", help="Layout id (planner layouts lists them).")],
    out: Annotated[str, typer.Option("--out", help="Write the scenario here (YAML, or JSON if it ends in .json).")],
    ruleset: Annotated[str, typer.Option("--ruleset", help="wh40k11 or wh40k10.")] = "wh40k11",
    map_id: Annotated[str | None, typer.Option("--map", help="Deployment map id (default: the layout's).")] = None,
    roster: Annotated[list[str] | None, typer.Option("--roster", help="Army list to import for the --player of the "
                                                                      "same position (repeat).")] = None,
    player: Annotated[list[str] | None, typer.Option("--player", help="Player name: the first deploys in the "
                                                                      "defender zone, the second in the attacker "
                                                                      "zone (repeat).")] = None,
    default_base: Annotated[str | None, typer.Option("--default-base", help="Round base for models the catalogue "
                                                                            "does not know, e.g. 32mm.")] = None,
    json_out: JsonOpt = None,
) -> None:
    """Write a ready scenario on a standard layout: zones, objectives, terrain and imported armies.

    Every imported unit is marked place: true: plan one player's units with planner plan --player
    NAME --out FILE, then the other player's from FILE with planner plan --player OTHER. Exit 0 when written, 2 for invalid input.
    """

    def go() -> int:
        from planner.cli.layouts import run_new
        from planner.io.roster import parse_base_size

        rosters = list(roster or [])
        _check_writable(out, "--out", tuple(rosters))
        _check_writable(json_out, "--json", tuple(rosters))
        base = parse_base_size(default_base) if default_base is not None else None
        data, code = run_new(ruleset, layout, map_id, rosters, list(player or []), out, base,
                             _console(json_out == "-"))
        _write_json(json_out, data, rosters)
        return code

    _run(go, json_out)


@app.command()
def serve(
    scenario: Annotated[str | None, typer.Argument(help="Scenario file the page opens first.")] = None,
    port: Annotated[int, typer.Option("--port", min=1, max=65535, help="TCP port.")] = 8765,
    host: Annotated[str, typer.Option("--host", help="Address to bind (default: this machine only).")] = "127.0.0.1",
    root: Annotated[str | None, typer.Option("--root", help="The only folder the page may open and save files in "
                                                            "(default: the scenario's folder, else the current one).")]
    = None,
) -> None:
    """Start the web page (set up, check and plan a deployment in a browser) and print its address.

    Exit 0 when stopped (Ctrl-C), 2 for invalid input (the scenario, or the web extra not installed).
    """

    def go() -> int:
        from planner.web.server import make_server, url_of

        server, folder = make_server(scenario, host, port, root)
        err = Console(stderr=True, highlight=False, soft_wrap=True)
        err.print(f"planner serve: open {url_of(host, port)} (API: {url_of(host, port)}docs; files in "
                  f"{escape(folder)}); Ctrl-C stops it")
        try:
            server.run()
        except KeyboardInterrupt:  # uvicorn stops gracefully, then passes Ctrl-C on: the normal way out
            pass
        return EXIT_OK

    _run(go)


def _json_target(argv: list[str]) -> tuple[str | None, int | None]:
    """The value of ``--json`` among command-line arguments ``argv`` and its position, or (None, None)."""
    for k, a in enumerate(argv):
        if a == "--json" and k + 1 < len(argv):
            return argv[k + 1], k + 1
        if a.startswith("--json="):
            return a[len("--json="):], k
    return None, None


def _typed_value(exc: Exception, argv: list[str]) -> object:
    """What the user typed for the option a command-line error is about, from the raw ``argv``
    (click's errors carry the parameter, not its text): the value after its last ``--opt VALUE``
    or ``--opt=VALUE`` (every one, a list, for a repeatable option), or the unknown option's name
    itself; None where the command line holds none (a missing option, a positional argument)."""
    if isinstance(exc, RepeatedOption):
        return ", ".join(exc.values)  # every value given, in order
    name = getattr(exc, "option_name", None)
    param = getattr(exc, "param", None)
    opts = [o for o in (getattr(param, "opts", None) or []) + (getattr(param, "secondary_opts", None) or [])
            if isinstance(o, str) and o.startswith("-")]
    if not opts:  # an unknown option: its name (an option missing its value: nothing typed)
        return name if isinstance(name, str) and type(exc).__name__ == "NoSuchOption" else None
    if getattr(param, "is_flag", False) or getattr(param, "count", False):
        return None  # a flag takes no value
    seen: list[str] = []
    k = 0
    while k < len(argv):
        a = argv[k]
        if a == "--":
            break
        if a in opts and k + 1 < len(argv):
            seen.append(argv[k + 1])
            k += 2
            continue
        hit = next((a.split("=", 1)[1] for o in opts if o.startswith("--") and a.startswith(o + "=")), None)
        if hit is None:  # a short option with its value attached: -t5
            hit = next((a[len(o):] for o in opts if not o.startswith("--") and a.startswith(o) and a != o), None)
        if hit is not None:
            seen.append(hit)
        k += 1
    if not seen:
        return None
    return seen if getattr(param, "multiple", False) else seen[-1]


def _usage_error_report(exc: Exception, argv: list[str]) -> None:
    """A command-line error (an unknown option, a value out of range) as the JSON error report at
    the command's ``--json`` target, as for an input error: never over a file named elsewhere on
    the command line (an input)."""
    target, at = _json_target(argv)
    if target is None:
        return
    inputs = [a for k, a in enumerate(argv) if k != at and not a.startswith("-") and Path(a).is_file()]
    data = {"ok": False, "exit_code": getattr(exc, "exit_code", EXIT_INPUT), "error": exc.format_message()
            if hasattr(exc, "format_message") else str(exc), "file": None,
            "location": _usage_error_where(exc), "value": _typed_value(exc, argv)}
    _write_error_report(target, data, inputs)


def _usage_error_where(exc: Exception) -> str | None:
    """The option or argument a command-line error is about (``--time-limit``; ``-t, --time-limit``
    for an option with a short name; an unknown option's own name), or None."""
    param = getattr(exc, "param", None)
    where = getattr(exc, "param_hint", None) or (", ".join(getattr(param, "opts", []) or []) or None) \
        or getattr(exc, "option_name", None)  # an unknown option: itself
    return where if isinstance(where, str) else None


def _invalid_value_line(exc: Exception, argv: list[str]) -> str | None:
    """The one-line message of an option or argument given a value it refuses (out of its range,
    not a number, ...), worded as any other invalid input is: ``field --time-limit: out of range: give
    a number from 0.1 to 86400 (value: '-5')`` (:class:`~planner.errors.ScenarioError`'s form);
    None for the other command-line errors (an unknown option, a missing argument or value), which
    keep click's usage text and its pointer to ``--help``."""
    # typer's BadParameter itself: its one subclass, MissingParameter, is a missing argument or option
    if type(exc) is not typer.BadParameter or exc.param is None:
        return None
    return str(ScenarioError(exc.message, location=_usage_error_where(exc) or "", value=_typed_value(exc, argv)))


def _say_finite(exc: Exception, argv: list[str]) -> None:
    """A number option given nan or inf: say it must be a finite number (a range's words, e.g.
    "give a number from -360 to 360", do not say why nan is refused)."""
    if not isinstance(exc, typer.BadParameter) or not getattr(exc, "param", None):
        return
    typed = _typed_value(exc, argv)
    try:
        number = float(typed) if isinstance(typed, str) else None
    except ValueError:
        return
    if number is not None and not math.isfinite(number):
        exc.message = "must be a finite number"


RANGE_ERRORS = frozenset({"greater_than_equal", "less_than_equal", "greater_than", "less_than"})
"""pydantic's error types for a number outside an option's ``min``/``max`` (typer checks the range
with pydantic)."""
NOT_A_NUMBER_ERRORS = frozenset({"int_parsing", "int_from_float", "float_parsing", "int_type", "float_type"})
"""pydantic's error types for a number option given text that is not a number (a whole number)."""


def _say_number(exc: Exception, argv: list[str]) -> None:
    """A number option given a (finite) value outside its ``min``/``max``, or text that is not a
    number: say so in the house words, with the option's range, in place of pydantic's text
    ("Input should be greater than or equal to 0.1", "Input should be a valid integer, unable to
    parse string as an integer"): ``out of range: give a number from 0.1 to 86400``, ``not a whole
    number: give a whole number from 1 to 64`` (``a whole number`` for an integer option; ``of 0 or
    more`` / ``of 360 or less`` for a range open on one side). The bounds are the option's own
    (``typer.Option(min=, max=)``); a NaN or an infinity is :func:`_say_finite`'s."""
    param = getattr(exc, "param", None)
    errors = getattr(exc.__cause__, "errors", None)
    if not isinstance(exc, typer.BadParameter) or param is None or not callable(errors):
        return
    try:
        types = {e.get("type") for e in errors()}
    except Exception:  # noqa: BLE001 - not pydantic's ValidationError: leave the message as it is
        return
    if types and types <= RANGE_ERRORS:
        head = "out of range"
    elif types and types <= NOT_A_NUMBER_ERRORS:
        head = "not a number"
    else:
        return
    typed = _typed_value(exc, argv)
    with contextlib.suppress(TypeError, ValueError):
        if not math.isfinite(float(typed)):  # type: ignore[arg-type]
            return
    lo, hi = getattr(param, "min", None), getattr(param, "max", None)
    annotation = getattr(getattr(param, "type_descriptor", None), "annotation", None)
    what = "a whole number" if annotation is int else "a number"
    if head == "not a number":
        head = f"not {what}"
    if lo is not None and hi is not None:
        exc.message = f"{head}: give {what} from {_bound(lo)} to {_bound(hi)}"
    elif lo is not None:
        exc.message = f"{head}: give {what} of {_bound(lo)} or more"
    elif hi is not None:
        exc.message = f"{head}: give {what} of {_bound(hi)} or less"
    else:
        exc.message = f"{head}: give {what}"


def _bound(v: float) -> str:
    """An option's bound as typed in --help: ``0.1``, ``86400``, ``2147483647``."""
    return str(int(v)) if float(v).is_integer() else f"{v:g}"


class RepeatedOption(typer.TyperException):
    """An option that takes one value given more than once (``--exclusion red --exclusion blue``):
    click keeps the last silently; the planner refuses it (exit 2) naming the option and values."""

    exit_code = EXIT_INPUT

    def __init__(self, option: str, values: list[str]) -> None:
        super().__init__(f"given {len(values)} times: give it once (values: {', '.join(map(repr, values))})")
        self.param_hint, self.values = option, values


def refuse_repeated_options(argv: list[str]) -> None:
    """Raise :class:`RepeatedOption` if ``argv`` (without the program name) gives an option of its
    command that takes one value (not a flag, not a list such as ``--ruling``) more than once."""
    if not argv:
        return
    group = typer.main.get_command(app)
    cmd = getattr(group, "commands", {}).get(argv[0])
    if cmd is None:
        return
    single = {o: p for p in cmd.params if getattr(p, "param_type_name", "") == "option"
              and not getattr(p, "multiple", False) and not getattr(p, "is_flag", False)
              and not getattr(p, "count", False) for o in [*p.opts, *p.secondary_opts]}
    seen: dict[str, tuple[str, list[str]]] = {}
    rest = argv[1:]
    i = 0
    while i < len(rest):
        a = rest[i]
        if a == "--":
            break
        name, eq, value = a.partition("=")
        if name in single:
            if not eq:
                value = rest[i + 1] if i + 1 < len(rest) else ""
                i += 1
            seen.setdefault(str(single[name].name), (name, []))[1].append(value)
        i += 1
    for opt, values in seen.values():
        if len(values) > 1:
            raise RepeatedOption(opt, values)


def main() -> None:
    """Console-script entry point: the typer app, with command-line errors (exit 2) also written
    to ``--json`` as the error report."""
    if hasattr(signal, "SIGPIPE"):
        # like cat or grep: when the reader goes away (`| head`), stop quietly
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    try:
        refuse_repeated_options(sys.argv[1:])
        rv = app(standalone_mode=False, prog_name="planner")  # not "python -m pytest" (click guesses from __main__)
    except RepeatedOption as exc:
        Console(stderr=True, highlight=False, soft_wrap=True).print(
            f"[red]error:[/red] {escape(f'field {exc.param_hint}: {exc.message}')}")
        _usage_error_report(exc, sys.argv[1:])
        sys.exit(EXIT_INPUT)
    except typer.Abort as exc:
        if isinstance(exc.__context__, KeyboardInterrupt):  # click turns a Ctrl-C outside a command into Abort
            say_interrupted()
            sys.exit(EXIT_NO_ANSWER)
        Console(stderr=True).print("Aborted!")
        sys.exit(1)
    except typer.TyperException as exc:  # click's command-line errors (exit 2), as typer shows them
        _say_finite(exc, sys.argv[1:])
        _say_number(exc, sys.argv[1:])
        line = _invalid_value_line(exc, sys.argv[1:])
        if line is not None:  # a refused value is invalid input: the one-line error, as for a scenario's
            Console(stderr=True, highlight=False, soft_wrap=True).print(f"[red]error:[/red] {escape(line)}")
        else:
            try:
                from typer.rich_utils import rich_format_error

                rich_format_error(exc)  # type: ignore[arg-type]
            except ImportError:
                exc.show()  # type: ignore[attr-defined]
        _usage_error_report(exc, sys.argv[1:])
        sys.exit(getattr(exc, "exit_code", EXIT_INPUT))
    if rv == TYPER_CTRL_C:
        say_interrupted()
        sys.exit(EXIT_NO_ANSWER)
    sys.exit(rv if isinstance(rv, int) else 0)


if __name__ == "__main__":
    main()
