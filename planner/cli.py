"""The ``planner`` command line. One convention for every command:

exit 0 = done and legal; 1 = illegal or proven infeasible; 2 = invalid input;
3 = no answer within the limits (or an internal error, reported without a traceback).
``--json PATH|-`` writes the machine-readable report ('-' = standard output).
"""

from __future__ import annotations

import json
import sys
import tempfile
import traceback
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape

from planner.errors import PlannerError, ScenarioError

app = typer.Typer(
    name="planner",
    help="Check and plan army deployments (Horus Heresy 2.0).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

EXIT_OK, EXIT_ILLEGAL, EXIT_INPUT, EXIT_NO_ANSWER = 0, 1, 2, 3

JsonOpt = Annotated[str | None, typer.Option("--json", help="Write the JSON report to PATH, or '-' for stdout.")]


def _console(json_to_stdout: bool) -> Console:
    # when the JSON goes to stdout, the human-readable output goes to stderr
    console = Console(stderr=json_to_stdout, highlight=False, soft_wrap=True)
    if not console.is_terminal:
        console.width = 140  # files and pipes: wide enough for rule ids
    return console


def _same_file(a: str | Path, b: str | Path) -> bool:
    try:
        return Path(a).resolve() == Path(b).resolve()
    except OSError:
        return False


def _write_json(target: str | None, data: Any, inputs: list[str]) -> None:
    if target is None:
        return
    text = json.dumps(data, indent=2) + "\n"
    if target == "-":
        sys.stdout.write(text)
        return
    for inp in inputs:
        if _same_file(target, inp):
            raise ScenarioError("refusing to overwrite an input file with the JSON report", location="--json",
                                value=target)
    try:
        Path(target).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise ScenarioError(f"cannot write the JSON report: {exc.strerror}", location="--json", value=target) from None


def _run(fn) -> None:
    """Call ``fn`` and turn its result or error into the exit code (the one error boundary)."""
    try:
        code = fn()
    except PlannerError as exc:
        Console(stderr=True, highlight=False, soft_wrap=True).print(f"[red]error:[/red] {escape(str(exc))}")
        raise typer.Exit(exc.exit_code) from None
    except (typer.Exit, typer.Abort):
        raise
    except KeyboardInterrupt:
        Console(stderr=True).print("interrupted")
        raise typer.Exit(EXIT_NO_ANSWER) from None
    except Exception:  # noqa: BLE001 - the boundary: never show a traceback to the user
        log = Path(tempfile.gettempdir()) / "planner-error.log"
        try:
            log.write_text(traceback.format_exc(), encoding="utf-8")
            where = f" (details in {log})"
        except OSError:
            where = ""
        Console(stderr=True).print(f"unexpected internal error, please report it{where}")
        raise typer.Exit(EXIT_NO_ANSWER) from None
    raise typer.Exit(code)


@app.command()
def check(
    scenario: Annotated[str, typer.Argument(help="Scenario file (YAML or JSON).")],
    json_out: JsonOpt = None,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="List every rule checked for every unit.")] = False,
) -> None:
    """Check a deployment: exit 0 if legal, 1 if not, 2 for invalid input."""

    def go() -> int:
        from planner.legality.checker import check_deployment
        from planner.report.text import print_check_report
        from planner.world import load_scenario

        world = load_scenario(scenario, require_positions=True)
        report = check_deployment(world)
        console = _console(json_out == "-")
        print_check_report(report, console, verbose=verbose)
        _write_json(json_out, report.model_dump(mode="json"), [scenario])
        return EXIT_OK if report.legal else EXIT_ILLEGAL

    _run(go)


@app.command()
def plan(
    scenario: Annotated[str, typer.Argument(help="Scenario file; units with 'place: true' are placed.")],
    out: Annotated[str | None, typer.Option("--out", help="Write the planned scenario here (YAML or JSON).")] = None,
    time_limit: Annotated[float, typer.Option("--time-limit", min=0.1, help="Solver time limit, seconds.")] = 20.0,
    workers: Annotated[int, typer.Option("--workers", min=1, max=64, help="CP-SAT worker threads.")] = 2,
    seed: Annotated[int, typer.Option("--seed", help="CP-SAT random seed.")] = 0,
    json_out: JsonOpt = None,
) -> None:
    """Plan the marked units with CP-SAT, write the complete scenario and check it.

    Exit 0 with a legal plan, 1 when proven infeasible, 3 when no plan was found within the limit.
    """

    def go() -> int:
        from planner.io import dump_scenario
        from planner.report.plan_text import print_plan_report
        from planner.solve.planner import SolverSettings, plan_deployment
        from planner.world import load_scenario

        if out is not None and _same_file(out, scenario):
            raise ScenarioError("refusing to overwrite the input scenario; choose another --out", location="--out",
                                value=out)
        world = load_scenario(scenario)
        result = plan_deployment(world, SolverSettings(time_limit_s=time_limit, workers=workers, seed=seed))
        console = _console(json_out == "-")
        print_plan_report(result, console)
        if out is not None and result.scenario is not None:
            try:
                dump_scenario(result.scenario_data or result.scenario, out)
            except OSError as exc:
                raise ScenarioError(f"cannot write the plan: {exc.strerror}", location="--out", value=out) from None
            console.print(f"Wrote the planned scenario to {out}")
        _write_json(json_out, result.model_dump(mode="json", exclude={"scenario", "scenario_data"}), [scenario])
        return result.exit_code

    _run(go)


@app.command()
def schema(
    what: Annotated[str, typer.Argument(help="scenario (default), report, plan or catalogue")] = "scenario",
) -> None:
    """Print a JSON Schema: of scenario files, of the check report, of the plan report, or of catalogue files."""

    def go() -> int:
        from planner.legality.report import LegalityReport
        from planner.schema import Catalogue, Scenario

        models: dict[str, Any] = {"scenario": Scenario, "report": LegalityReport, "catalogue": Catalogue}
        if what == "plan":
            from planner.solve.planner import PlanResult

            models["plan"] = PlanResult
        if what not in models:
            raise ScenarioError(f"unknown schema; choose one of {', '.join([*models, 'plan'])}", location="WHAT",
                                value=what)
        sys.stdout.write(json.dumps(models[what].model_json_schema(by_alias=True), indent=2) + "\n")
        return EXIT_OK

    _run(go)


@app.command()
def rules(
    ruleset: Annotated[str, typer.Option("--ruleset", help="Ruleset id.")] = "hh2",
    json_out: JsonOpt = None,
) -> None:
    """List every rule id the checker enforces, with its meaning and source."""

    def go() -> int:
        from rich.table import Table as RichTable

        from planner.rules.registry import find_ruleset

        rs = find_ruleset(ruleset)
        console = _console(json_out == "-")
        t = RichTable(title=f"{rs.name} ({rs.id})")
        t.add_column("rule id", no_wrap=True)
        t.add_column("meaning")
        t.add_column("source")
        for r in rs.rules:
            t.add_row(r.id, r.meaning, r.source)
        console.print(t)
        _write_json(json_out, [{"rule": r.id, "meaning": r.meaning, "source": r.source} for r in rs.rules], [])
        return EXIT_OK

    _run(go)


def main() -> None:
    """Console-script entry point."""
    app()


if __name__ == "__main__":
    main()
